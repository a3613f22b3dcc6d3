// The SM timeline view: per SM and sub-partition, warp slots over cycles,
// coloured by state, stage or draw, with the runs above and each SM's
// resident warps beside its slots.
#include <algorithm>
#include <cmath>
#include <string>

#include "app/palette.h"
#include "app/viewer.h"
#include "app/viewer_util.h"

namespace warpsim::viz {
namespace {

constexpr float kLabelWidth = 96.0f;
constexpr float kLaneHeight = 4.0f;
constexpr float kRowGap = 1.0f;

void Legend(ColorBy by, bool has_states) {
  if (by == ColorBy::kState && has_states) {
    for (size_t r = 0; r + 1 < trace::kStallReasons; ++r) {
      const auto reason = static_cast<trace::StallReason>(r);
      LegendItem(StateColor(reason),
                 std::string(trace::StallReasonName(reason)).c_str());
    }
  } else if (by != ColorBy::kRun) {
    for (auto s : {trace::Stage::kVertex, trace::Stage::kFragment,
                   trace::Stage::kCompute}) {
      LegendItem(StageColor(s), std::string(trace::StageName(s)).c_str());
    }
  } else {
    ImGui::TextDisabled("one colour per draw or dispatch");
  }
  ImGui::NewLine();
}

}  // namespace

void Viewer::DrawTimeline() {
  EnsureTimeline();
  const trace::Trace& t = data_.trace;
  int by = static_cast<int>(color_by_);
  ImGui::Text("colour by");
  ImGui::SameLine();
  ImGui::RadioButton("state", &by, 0);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "issuing or why not (needs --trace-detail instructions; live mode "
        "records it)");
  }
  ImGui::SameLine();
  ImGui::RadioButton("stage", &by, 1);
  ImGui::SameLine();
  ImGui::RadioButton("draw", &by, 2);
  color_by_ = static_cast<ColorBy>(by);
  ImGui::SameLine();
  if (ImGui::Button("Fit (Home)")) {
    view_begin_ = 0;
    view_end_ = static_cast<double>(EndCycle());
  }
  ImGui::SameLine();
  ImGui::TextDisabled("wheel: zoom, right-drag: pan, click: cursor");
  const bool states = timeline_.has_states() && color_by_ == ColorBy::kState;
  Legend(color_by_, timeline_.has_states());
  if (color_by_ == ColorBy::kState && !timeline_.has_states()) {
    ImGui::TextDisabled(
        "no instruction events in this trace: coloured by stage instead");
  }

  ImGui::BeginChild("timeline", ImVec2(0, 0), false,
                    ImGuiWindowFlags_NoScrollWithMouse);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 start = ImGui::GetCursorScreenPos();
  const float width =
      std::max(50.0f, ImGui::GetContentRegionAvail().x - kLabelWidth);
  const ImVec2 origin(start.x + kLabelWidth, start.y);
  const double span = std::max(1.0, view_end_ - view_begin_);
  const double per_pixel = span / width;
  const auto a = static_cast<uint64_t>(std::max(0.0, view_begin_));
  const auto b = static_cast<uint64_t>(std::max(0.0, view_end_)) + 1;
  auto x_of = [&](double c) { return XOf(c, origin, width); };
  // A segment's pixels, clipped to the view and at least one wide.
  auto x_range = [&](const Segment& s) {
    const float x0 = std::max(origin.x, x_of(static_cast<double>(s.begin)));
    const float x1 = std::min(
        origin.x + width, std::max(x0 + 1, x_of(static_cast<double>(s.end))));
    return std::make_pair(x0, x1);
  };
  const ImVec2 mouse = ImGui::GetIO().MousePos;

  // Ruler and runs.
  DrawRuler(dl, origin, width, 18);
  ImGui::Dummy(ImVec2(kLabelWidth + width, 18));
  const float runs_y = ImGui::GetCursorScreenPos().y;
  dl->AddText(ImVec2(start.x, runs_y), IM_COL32(220, 220, 220, 255), "runs");
  for (size_t r = 0; r < t.runs.size(); ++r) {
    const trace::RunInfo& run = t.runs[r];
    const float x0 = std::max(origin.x, x_of(static_cast<double>(run.begin)));
    const float x1 = std::min(
        origin.x + width, std::max(x0 + 1, x_of(static_cast<double>(run.end))));
    if (x1 < origin.x || x0 > origin.x + width) continue;
    dl->AddRectFilled(ImVec2(x0, runs_y + 1), ImVec2(x1, runs_y + 13),
                      CycleColor(r));
    // Its name and occupancy limiter, where the bar has room.
    std::string text = run.name.substr(0, run.name.find(" ("));
    if (const nlohmann::json* e = RunEntry(data_.report, run.name)) {
      text += ", limiter " + JsonText(*e, "limiter") + ", occupancy " +
              JsonText(*e, "achieved_occupancy") + " of " +
              JsonText(*e, "theoretical_occupancy");
    }
    if (ImGui::CalcTextSize(text.c_str()).x + 6 < x1 - x0) {
      dl->PushClipRect(ImVec2(x0, runs_y), ImVec2(x1, runs_y + 14), true);
      dl->AddText(ImVec2(x0 + 3, runs_y), TextOn(CycleColor(r)), text.c_str());
      dl->PopClipRect();
    }
    if (ImGui::IsMouseHoveringRect(ImVec2(x0, runs_y),
                                   ImVec2(x1, runs_y + 14))) {
      ImGui::BeginTooltip();
      RunTooltip(data_.report, run);
      ImGui::EndTooltip();
    }
  }
  ImGui::Dummy(ImVec2(kLabelWidth + width, 16));

  // Per SM: a strip of resident warps, then its slots.
  for (uint32_t sm : timeline_.Sms()) {
    const auto [first, last] = timeline_.LanesOf(sm);
    char title[64];
    std::snprintf(title, sizeof(title), "SM %u (%zu slots used)", sm,
                  last - first);
    ImGui::PushID(static_cast<int>(sm));
    const bool open = ImGui::CollapsingHeader(
        title,
        sm == timeline_.Sms().front() ? ImGuiTreeNodeFlags_DefaultOpen : 0);
    // Resident warps over time, from the counter samples.
    const float strip_y = ImGui::GetCursorScreenPos().y;
    const float strip_h = 20.0f;
    dl->AddText(ImVec2(start.x, strip_y + 3), IM_COL32(200, 200, 200, 255),
                "resident");
    dl->AddRectFilled(ImVec2(origin.x, strip_y),
                      ImVec2(origin.x + width, strip_y + strip_h),
                      IM_COL32(30, 30, 30, 255));
    const uint32_t max_warps =
        std::max(1u, t.sub_partitions * t.slots_per_sub_partition);
    const trace::CounterSample* hovered = nullptr;
    const std::vector<uint32_t>& samples = CountersOf(sm);
    // Samples are in cycle order: start at the first that ends in view.
    auto from = std::lower_bound(
        samples.begin(), samples.end(), view_begin_, [&](uint32_t i, double c) {
          return static_cast<double>(t.counters[i].cycle) < c;
        });
    for (auto it = from; it != samples.end(); ++it) {
      const trace::CounterSample& c = t.counters[*it];
      const double c0 =
          static_cast<double>(c.cycle - std::min(c.cycle, c.interval));
      const double c1 = static_cast<double>(c.cycle);
      if (c0 > view_end_) break;
      const float x0 = std::max(origin.x, x_of(c0));
      const float x1 = std::min(origin.x + width, std::max(x0 + 1, x_of(c1)));
      const float h = strip_h * static_cast<float>(c.resident_warps) /
                      static_cast<float>(max_warps);
      dl->AddRectFilled(ImVec2(x0, strip_y + strip_h - h),
                        ImVec2(x1, strip_y + strip_h),
                        IM_COL32(120, 170, 220, 255));
      if (mouse.x >= x0 && mouse.x < x1 && mouse.y >= strip_y &&
          mouse.y < strip_y + strip_h) {
        hovered = &c;
      }
    }
    if (hovered != nullptr) {
      ImGui::BeginTooltip();
      CounterTooltip(t, *hovered);
      ImGui::EndTooltip();
    }
    ImGui::Dummy(ImVec2(kLabelWidth + width, strip_h + 2));
    if (open) {
      const float lanes_y = ImGui::GetCursorScreenPos().y;
      const float height =
          static_cast<float>(last - first) * (kLaneHeight + kRowGap);
      ImGui::Dummy(ImVec2(kLabelWidth + width, height));
      if (ImGui::IsItemVisible()) {
        uint32_t last_sp = ~0u;
        for (size_t li = first; li < last; ++li) {
          const Lane& lane = timeline_.lanes()[li];
          const float y = lanes_y + static_cast<float>(li - first) *
                                        (kLaneHeight + kRowGap);
          if (lane.sub_partition != last_sp) {
            last_sp = lane.sub_partition;
            char sp[32];
            std::snprintf(sp, sizeof(sp), "SMSP %u", lane.sub_partition);
            dl->AddText(ImVec2(start.x + 8, y), IM_COL32(180, 180, 180, 255),
                        sp);
            dl->AddLine(ImVec2(origin.x, y - 0.5f),
                        ImVec2(origin.x + width, y - 0.5f),
                        IM_COL32(70, 70, 70, 255));
          }
          const bool hover_row = mouse.y >= y && mouse.y < y + kLaneHeight &&
                                 mouse.x >= origin.x &&
                                 mouse.x < origin.x + width;
          const double mouse_cycle = CycleAt(mouse.x, origin, width);
          const Segment* hit = nullptr;
          // Levels whose buckets are up to two pixels wide: about one
          // segment per pixel. With states shown, they cover the warps'
          // spans, so the spans are only looked up (for the tooltip).
          const SegmentLod& warps = lane.warps;
          warps.Visit(
              warps.LevelFor(2 * per_pixel), a, b, [&](const Segment& s) {
                if (hover_row && mouse_cycle >= static_cast<double>(s.begin) &&
                    mouse_cycle < static_cast<double>(s.end)) {
                  hit = &s;
                }
                if (states) return;
                const auto [x0, x1] = x_range(s);
                const trace::WarpSpan& w = t.warps[s.key];
                const ImU32 col = color_by_ == ColorBy::kRun
                                      ? CycleColor(w.run)
                                      : StageColor(w.stage);
                dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + kLaneHeight),
                                  WithAlpha(col, 0.4f + 0.6f * s.fill));
              });
          const Segment* state_hit = nullptr;
          if (states) {
            const SegmentLod& st = lane.states;
            st.Visit(st.LevelFor(2 * per_pixel), a, b, [&](const Segment& s) {
              const auto [x0, x1] = x_range(s);
              dl->AddRectFilled(
                  ImVec2(x0, y), ImVec2(x1, y + kLaneHeight),
                  StateColor(static_cast<trace::StallReason>(s.key)));
              if (hover_row && mouse_cycle >= static_cast<double>(s.begin) &&
                  mouse_cycle < static_cast<double>(s.end)) {
                state_hit = &s;
              }
            });
          }
          if (hit != nullptr || state_hit != nullptr) {
            ImGui::BeginTooltip();
            ImGui::Text("SM %u, sub-partition %u, slot %u at cycle %.0f", sm,
                        lane.sub_partition, lane.slot, mouse_cycle);
            if (hit != nullptr) WarpTooltip(t, t.warps[hit->key], hit->fill);
            if (state_hit != nullptr) {
              ImGui::Text("state: %s (cycles %llu-%llu)",
                          std::string(trace::StallReasonName(
                                          static_cast<trace::StallReason>(
                                              state_hit->key)))
                              .c_str(),
                          static_cast<unsigned long long>(state_hit->begin),
                          static_cast<unsigned long long>(state_hit->end));
            }
            ImGui::EndTooltip();
          }
        }
      }
    }
    ImGui::PopID();
  }
  // The cursor, and the live clock.
  const ImVec2 end = ImGui::GetCursorScreenPos();
  const float cx = x_of(static_cast<double>(cursor_));
  if (cx >= origin.x && cx <= origin.x + width) {
    dl->AddLine(ImVec2(cx, origin.y), ImVec2(cx, end.y),
                IM_COL32(255, 255, 255, 200));
  }
  const bool hovered = ImGui::IsWindowHovered() && mouse.x >= origin.x &&
                       mouse.x < origin.x + width;
  HandleZoom(origin, width, hovered);
  ImGui::EndChild();
}

}  // namespace warpsim::viz
