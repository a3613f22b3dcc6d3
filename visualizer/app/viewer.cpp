// The viewer's frame, controls and shared pieces: see viewer.h.
#include "app/viewer.h"

#include <GL/gl.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "app/palette.h"
#include "sm/timing_config.h"

namespace warpsim::viz {
namespace {

constexpr std::array<std::string_view, static_cast<size_t>(View::kCount)>
    kViewNames = {"timeline", "registers", "framebuffer",
                  "shader",   "compare",   "stats"};
constexpr std::array<std::string_view, 3> kColorByNames = {"state", "stage",
                                                           "draw"};
constexpr std::array<const char*, static_cast<size_t>(View::kCount)>
    kViewTitles = {"SM timeline", "Register files", "Framebuffer",
                   "Shader",      "Compare",        "Stats"};
constexpr std::array<sm::SchedulerPolicy, 4> kSchedulers = {
    sm::SchedulerPolicy::kGto, sm::SchedulerPolicy::kLrr,
    sm::SchedulerPolicy::kTwoLevel, sm::SchedulerPolicy::kOldest};
constexpr std::array<sm::ContextSwitch, 2> kSwitches = {
    sm::ContextSwitch::kFree, sm::ContextSwitch::kSwap};

// Keys: ImGui 1.86 maps only some keys (ImGuiKey_); the others are the
// backend's key codes, which for GLFW are ASCII for letters and digits.
bool Pressed(ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k)); }
bool PressedChar(char c) { return ImGui::IsKeyPressed(static_cast<int>(c)); }

// The enumerator whose name (its index in `names`) is `name`.
template <typename E, size_t N>
bool ParseName(const std::array<std::string_view, N>& names,
               std::string_view name, E* out) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == name) {
      *out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

}  // namespace

std::string_view ViewName(View v) {
  const auto i = static_cast<size_t>(v);
  return i < kViewNames.size() ? kViewNames[i] : "unknown";
}

bool ParseView(std::string_view name, View* out) {
  return ParseName(kViewNames, name, out);
}

bool ParseColorBy(std::string_view name, ColorBy* out) {
  return ParseName(kColorByNames, name, out);
}

Viewer::Viewer(ViewerOptions options) : options_(std::move(options)) {
  for (size_t i = 0; i < kSchedulers.size(); ++i) {
    if (kSchedulers[i] == options_.run.timing.scheduler) {
      scheduler_ = static_cast<int>(i);
    }
  }
  for (size_t i = 0; i < kSwitches.size(); ++i) {
    if (kSwitches[i] == options_.run.timing.context_switch) {
      context_switch_ = static_cast<int>(i);
    }
  }
}

Viewer::~Viewer() { live_.reset(); }

void Viewer::ReleaseGl() {
  for (unsigned* t : {&texture_, &overlay_texture_}) {
    if (*t != 0) {
      const GLuint name = *t;
      glDeleteTextures(1, &name);
      *t = 0;
    }
  }
}

Status Viewer::Start() {
  if (!options_.compare_dir.empty()) {
    if (Status s = LoadRunDir(options_.compare_dir, &compare_); !s.ok()) {
      return s;
    }
    compare_label_ = options_.compare_dir;
    if (compare_.report.is_object() && compare_.report.contains("timing")) {
      const nlohmann::json& t = compare_.report["timing"];
      compare_label_ += " (scheduler " +
                        t.value("scheduler", std::string("?")) +
                        ", context switch " +
                        t.value("context_switch", std::string("?")) + ")";
    }
  }
  if (!options_.open_dir.empty()) {
    if (Status s = LoadRunDir(options_.open_dir, &data_); !s.ok()) return s;
    dirty_ = true;
    return {};
  }
  live_ = std::make_unique<LiveSession>(options_.file, options_.run,
                                        options_.start_paused);
  return {};
}

void Viewer::WaitForRun() {
  if (live_ == nullptr) return;
  live_->Wait();
  Sync();
}

void Viewer::Focus(View v) {
  view_ = v;
  focus_pending_ = true;
}

void Viewer::SetCursor(uint64_t cycle) {
  cursor_ = cycle;
  cursor_set_ = true;
}

void Viewer::SetRange(double begin, double end) {
  view_begin_ = begin;
  view_end_ = end;
  follow_ = false;
}

const std::vector<uint32_t>& Viewer::CountersOf(uint32_t sm) const {
  static const std::vector<uint32_t> kNone;
  return sm < counters_by_sm_.size() ? counters_by_sm_[sm] : kNone;
}

uint64_t Viewer::EndCycle() const {
  uint64_t end = data_.now;
  for (const trace::RunInfo& r : data_.trace.runs) end = std::max(end, r.end);
  return std::max<uint64_t>(1, end);
}

void Viewer::Sync() {
  if (live_ != nullptr && live_->Sync(&data_)) {
    dirty_ = true;
    if (!data_.error.empty()) status_ = data_.error;
  }
}

void Viewer::Rebuild() {
  // A live run changes often: take the new data at most ten times a second,
  // and always once it has finished. Only the cheap parts are redone here;
  // each view rebuilds its own model when it is drawn (Ensure*), so a
  // hidden view costs nothing.
  const double t = ImGui::GetTime();
  if (!dirty_) return;
  if (!data_.finished && last_rebuild_ >= 0 && t - last_rebuild_ < 0.1) return;
  last_rebuild_ = t;
  dirty_ = false;
  stale_timeline_ = stale_registers_ = stale_pixels_ = stale_profile_ = true;
  counters_by_sm_.clear();
  for (size_t i = 0; i < data_.trace.counters.size(); ++i) {
    const uint32_t sm = data_.trace.counters[i].sm;
    if (sm >= counters_by_sm_.size()) counters_by_sm_.resize(sm + 1);
    counters_by_sm_[sm].push_back(static_cast<uint32_t>(i));
  }
  if (view_end_ <= view_begin_ || (follow_ && !data_.finished)) {
    view_begin_ = 0;
    view_end_ = static_cast<double>(EndCycle());
  }
  if (!cursor_set_) cursor_ = data_.now;
}

void Viewer::EnsureTimeline() {
  if (!stale_timeline_) return;
  stale_timeline_ = false;
  timeline_ = Timeline(data_.trace, data_.now);
}

void Viewer::EnsureRegisters() {
  if (!stale_registers_) return;
  stale_registers_ = false;
  registers_ = RegisterMap(data_.trace, data_.now);
  std::vector<uint32_t> sms;
  for (const auto& [sm, sp] : registers_.Files()) {
    if (sms.empty() || sms.back() != sm) sms.push_back(sm);
  }
  register_sms_ = sms;
  if (!sms.empty() &&
      std::find(sms.begin(), sms.end(), selected_sm_) == sms.end()) {
    selected_sm_ = sms.front();
  }
}

void Viewer::EnsurePixels() {
  if (!stale_pixels_) return;
  stale_pixels_ = false;
  uint32_t w = 0, h = 0;
  if (image_ < data_.images.size()) {
    w = data_.images[image_].width;
    h = data_.images[image_].height;
  }
  pixels_ = PixelMap(data_.trace, pixel_run_, w, h);
  pixels_stamp_ += 1;
}

void Viewer::EnsureProfile() {
  if (!stale_profile_) return;
  stale_profile_ = false;
  profile_ = ProfileShaders(data_.trace);
  if (!shader_chosen_) {
    // The shader that issued the most, until the user picks one.
    uint64_t best = 0;
    for (size_t s = 0; s < profile_.shaders.size(); ++s) {
      uint64_t n = 0;
      for (const InstructionCost& c : profile_.shaders[s]) n += c.executions;
      if (n > best) {
        best = n;
        shader_ = s;
      }
    }
  }
}

void Viewer::Rerun(bool keep_for_compare) {
  if (options_.file.empty()) return;
  if (keep_for_compare && data_.finished) {
    compare_ = data_;
    compare_label_ =
        "the previous run (" + gpu_label_ + ", scheduler " +
        std::string(sm::SchedulerName(options_.run.timing.scheduler)) +
        ", context switch " +
        std::string(sm::ContextSwitchName(options_.run.timing.context_switch)) +
        ")";
  }
  live_.reset();  // stops the running one
  if (gpu_preset_ >= 0) {
    const auto& names = runner::GpuConfigPresetNames();
    auto preset =
        runner::GpuConfigPreset(names[static_cast<size_t>(gpu_preset_)]);
    if (preset.ok()) {
      static_cast<runner::GpuConfig&>(options_.run) = *preset;
      gpu_label_ =
          "GPU " + std::string(names[static_cast<size_t>(gpu_preset_)]);
    }
  }
  options_.run.timing.scheduler = kSchedulers[static_cast<size_t>(scheduler_)];
  options_.run.timing.context_switch =
      kSwitches[static_cast<size_t>(context_switch_)];
  data_ = RunData{};
  // The models index the old trace: drop them now, not at the next rebuild.
  timeline_ = Timeline();
  registers_ = RegisterMap();
  pixels_ = PixelMap();
  profile_ = ShaderProfile();
  counters_by_sm_.clear();
  register_sms_.clear();
  stale_timeline_ = stale_registers_ = stale_pixels_ = stale_profile_ = true;
  pick_x_ = pick_y_ = -1;
  status_.clear();
  cursor_set_ = false;
  follow_ = true;
  view_begin_ = view_end_ = 0;
  live_ = std::make_unique<LiveSession>(options_.file, options_.run, false);
  dirty_ = true;
}

void Viewer::HandleKeys() {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  if (live_ != nullptr) {
    if (Pressed(ImGuiKey_Space)) {
      if (live_->paused()) {
        live_->Play();
      } else {
        live_->Pause();
      }
    }
    if (Pressed(ImGuiKey_RightArrow)) {
      if (io.KeyShift) {
        live_->StepInstructions(1);
      } else if (io.KeyCtrl) {
        live_->StepRun();
      } else {
        live_->StepCycles(1);
      }
    }
    if (PressedChar('R')) Rerun(true);
  }
  if (Pressed(ImGuiKey_Home)) {
    view_begin_ = 0;
    view_end_ = static_cast<double>(EndCycle());
  }
  if (Pressed(ImGuiKey_LeftArrow) && cursor_ > 0) {
    cursor_ -= 1;  // scrub back
    cursor_set_ = true;
  }
  for (int k = 0; k < static_cast<int>(View::kCount); ++k) {
    if (PressedChar(static_cast<char>('1' + k))) {
      Focus(static_cast<View>(k));
    }
  }
}

void Viewer::DrawToolbar() {
  // The same row height with buttons (live) or without (file mode).
  ImGui::AlignTextToFramePadding();
  if (live_ != nullptr) {
    const bool paused = live_->paused() || data_.finished;
    if (ImGui::Button(data_.finished ? "Done" : (paused ? "Play" : "Pause"))) {
      if (paused) {
        live_->Play();
      } else {
        live_->Pause();
      }
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Play / pause (Space)");
    ImGui::SameLine();
    if (ImGui::Button("+1 cycle")) live_->StepCycles(1);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Step one cycle (Right)");
    ImGui::SameLine();
    if (ImGui::Button("+1 instr")) live_->StepInstructions(1);
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("Step one warp instruction (Shift+Right)");
    }
    ImGui::SameLine();
    if (ImGui::Button("+1 draw")) live_->StepRun();
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("Run to the end of this draw or dispatch (Ctrl+Right)");
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(140);
    const auto& presets = runner::GpuConfigPresetNames();
    const std::string current =
        gpu_preset_ < 0
            ? "as started"
            : std::string(presets[static_cast<size_t>(gpu_preset_)]);
    if (ImGui::BeginCombo("GPU", current.c_str())) {
      if (ImGui::Selectable("as started", gpu_preset_ < 0)) gpu_preset_ = -1;
      for (size_t i = 0; i < presets.size(); ++i) {
        if (ImGui::Selectable(std::string(presets[i]).c_str(),
                              static_cast<int>(i) == gpu_preset_)) {
          gpu_preset_ = static_cast<int>(i);
        }
      }
      ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("The GPU configuration of the next Rerun");
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(110);
    static constexpr const char* kSchedulerNames[] = {"gto", "lrr", "two_level",
                                                      "oldest"};
    ImGui::Combo("scheduler", &scheduler_, kSchedulerNames, 4);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(80);
    static constexpr const char* kSwitchNames[] = {"free", "swap"};
    ImGui::Combo("context switch", &context_switch_, kSwitchNames, 2);
    ImGui::SameLine();
    if (ImGui::Button("Rerun")) Rerun(true);
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip(
          "Run the scene again with these settings; the current run becomes "
          "the Compare view's other side (R)");
    }
    ImGui::SameLine();
  }
  ImGui::Text(
      "%s | cycle %llu / %llu | %s", data_.source.c_str(),
      static_cast<unsigned long long>(cursor_),
      static_cast<unsigned long long>(EndCycle()),
      data_.finished
          ? "finished"
          : (live_ != nullptr && live_->paused() ? "paused" : "running"));
  if (!status_.empty()) {
    ImGui::TextColored(ImVec4(0.9f, 0.4f, 0.1f, 1), "%s", status_.c_str());
  }
  // Cursor scrubber over what has run.
  ImGui::SetNextItemWidth(-1);
  int64_t c = static_cast<int64_t>(cursor_);
  const int64_t lo = 0, hi = static_cast<int64_t>(EndCycle());
  if (ImGui::SliderScalar("##cursor", ImGuiDataType_S64, &c, &lo, &hi,
                          "cursor cycle %lld")) {
    cursor_ = static_cast<uint64_t>(c);
    cursor_set_ = true;
  }
}

void Viewer::Frame(const ImVec2& size) {
  Sync();
  Rebuild();
  HandleKeys();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(size);
  ImGui::Begin("warpsim-viz", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoBringToFrontOnFocus |
                   ImGuiWindowFlags_MenuBar);
  if (ImGui::BeginMenuBar()) {
    if (ImGui::BeginMenu("Windows")) {
      for (size_t i = 0; i < kViewTitles.size(); ++i) {
        ImGui::MenuItem(kViewTitles[i], nullptr, &detached_[i]);
      }
      ImGui::EndMenu();
    }
    ImGui::TextDisabled("(a view ticked here also opens as its own window)");
    ImGui::EndMenuBar();
  }
  DrawToolbar();
  if (ImGui::BeginTabBar("views")) {
    for (size_t i = 0; i < kViewTitles.size(); ++i) {
      const View v = static_cast<View>(i);
      ImGuiTabItemFlags flags = 0;
      if (focus_pending_ && v == view_) flags |= ImGuiTabItemFlags_SetSelected;
      char label[64];
      std::snprintf(label, sizeof(label), "%s (%zu)", kViewTitles[i], i + 1);
      if (ImGui::BeginTabItem(label, nullptr, flags)) {
        if (!focus_pending_) view_ = v;
        DrawView(v);
        ImGui::EndTabItem();
      }
    }
    focus_pending_ = false;
    ImGui::EndTabBar();
  }
  ImGui::End();
  for (size_t i = 0; i < kViewTitles.size(); ++i) {
    if (!detached_[i]) continue;
    ImGui::SetNextWindowSize(ImVec2(700, 450), ImGuiCond_FirstUseEver);
    if (ImGui::Begin(kViewTitles[i], &detached_[i])) {
      DrawView(static_cast<View>(i));
    }
    ImGui::End();
  }
}

void Viewer::DrawView(View v) {
  switch (v) {
    case View::kTimeline:
      DrawTimeline();
      break;
    case View::kRegisters:
      DrawRegisters();
      break;
    case View::kFramebuffer:
      DrawFramebuffer();
      break;
    case View::kShader:
      DrawShader();
      break;
    case View::kCompare:
      DrawCompare();
      break;
    case View::kStats:
      DrawStats();
      break;
    default:
      break;
  }
}

double Viewer::CycleAt(float x, ImVec2 origin, float width) const {
  const double f = (x - origin.x) / std::max(1.0f, width);
  return view_begin_ + f * (view_end_ - view_begin_);
}

float Viewer::XOf(double cycle, ImVec2 origin, float width) const {
  const double span = std::max(1e-9, view_end_ - view_begin_);
  return origin.x + static_cast<float>((cycle - view_begin_) / span * width);
}

void Viewer::HandleZoom(ImVec2 origin, float width, bool hovered) {
  if (!hovered) return;
  ImGuiIO& io = ImGui::GetIO();
  const double span = view_end_ - view_begin_;
  if (io.MouseWheel != 0) {
    const double at = CycleAt(io.MousePos.x, origin, width);
    const double k = io.MouseWheel > 0 ? 0.8 : 1.25;
    const double new_span = std::max(4.0, span * k);
    const double f = (at - view_begin_) / std::max(1e-9, span);
    view_begin_ = at - f * new_span;
    view_end_ = view_begin_ + new_span;
    follow_ = false;
  }
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Right) ||
      ImGui::IsMouseDragging(ImGuiMouseButton_Middle)) {
    const double d = -io.MouseDelta.x / std::max(1.0f, width) * span;
    view_begin_ += d;
    view_end_ += d;
    follow_ = false;
  }
  if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
    const double at = CycleAt(io.MousePos.x, origin, width);
    cursor_ = static_cast<uint64_t>(std::max(0.0, std::round(at)));
    cursor_set_ = true;
  }
}

void Viewer::DrawRuler(ImDrawList* dl, ImVec2 origin, float width,
                       float height) {
  const double span = std::max(1.0, view_end_ - view_begin_);
  // A tick every 1, 2 or 5 x 10^k cycles, about every 100 pixels.
  const double raw = span / std::max(1.0f, width / 100.0f);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  double step = p;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (p * m >= raw) {
      step = p * m;
      break;
    }
  }
  dl->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + height),
                    IM_COL32(40, 40, 40, 255));
  for (double c = std::ceil(view_begin_ / step) * step; c <= view_end_;
       c += step) {
    const float x = XOf(c, origin, width);
    dl->AddLine(ImVec2(x, origin.y + height - 5), ImVec2(x, origin.y + height),
                IM_COL32(200, 200, 200, 255));
    char text[32];
    std::snprintf(text, sizeof(text), "%.0f", c);
    dl->AddText(ImVec2(x + 2, origin.y), IM_COL32(200, 200, 200, 255), text);
  }
}

}  // namespace warpsim::viz
