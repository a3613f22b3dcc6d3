// The register-file view: each sub-partition's register file of the chosen
// SM as a strip over cycles (registers upwards), coloured by the stage (or
// warp) holding each range; the files at the cursor cycle with their free
// space; and the SM's shared memory in use over cycles.
#include <algorithm>
#include <cmath>
#include <string>

#include "app/palette.h"
#include "app/viewer.h"
#include "app/viewer_util.h"

namespace warpsim::viz {

void Viewer::DrawRegisters() {
  EnsureRegisters();
  const trace::Trace& t = data_.trace;
  const std::vector<uint32_t>& sms = register_sms_;
  if (sms.empty()) {
    ImGui::TextDisabled("no warps in this trace yet");
    return;
  }
  ImGui::SetNextItemWidth(120);
  if (ImGui::BeginCombo("SM", ("SM " + std::to_string(selected_sm_)).c_str())) {
    for (uint32_t s : sms) {
      if (ImGui::Selectable(("SM " + std::to_string(s)).c_str(),
                            s == selected_sm_)) {
        selected_sm_ = s;
      }
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::Checkbox("colour by warp", &registers_by_warp_);
  ImGui::SameLine();
  for (auto s : {trace::Stage::kVertex, trace::Stage::kFragment,
                 trace::Stage::kCompute}) {
    LegendItem(StageColor(s), std::string(trace::StageName(s)).c_str());
  }
  LegendItem(IM_COL32(30, 30, 30, 255), "free");
  ImGui::NewLine();

  const uint32_t file_size = std::max(1u, t.registers_per_sub_partition);
  const uint32_t sps = std::max(1u, t.sub_partitions);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float avail = ImGui::GetContentRegionAvail().x;
  const float label = 70.0f, side = 150.0f;
  const float width = std::max(50.0f, avail - label - side - 16);
  const float strip_h = 96.0f;
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const ImVec2 origin(top.x + label, top.y + 18);
  DrawRuler(dl, ImVec2(origin.x, top.y), width, 18);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  constexpr float kColumn = 2.0f;  // pixels per sampled column

  // A register's height in a strip starting at y0, and a range's colour.
  auto y_of = [&](float y0, uint32_t reg) {
    return y0 + strip_h -
           strip_h * static_cast<float>(reg) / static_cast<float>(file_size);
  };
  auto color_of = [&](const Allocation& al) {
    if (registers_by_warp_) return CycleColor(al.warp);
    if (al.span < t.warps.size()) return StageColor(t.warps[al.span].stage);
    return static_cast<ImU32>(IM_COL32(150, 150, 150, 255));
  };
  for (uint32_t sp = 0; sp < sps; ++sp) {
    const float y0 = origin.y + static_cast<float>(sp) * (strip_h + 8);
    char name[32];
    std::snprintf(name, sizeof(name), "SMSP %u", sp);
    dl->AddText(ImVec2(top.x, y0), IM_COL32(200, 200, 200, 255), name);
    dl->AddRectFilled(ImVec2(origin.x, y0),
                      ImVec2(origin.x + width, y0 + strip_h),
                      IM_COL32(30, 30, 30, 255));
    // Over time: the file sampled at each column's middle cycle.
    for (float x = 0; x < width; x += kColumn) {
      const double c = CycleAt(origin.x + x + kColumn / 2, origin, width);
      if (c < 0) continue;
      for (const Allocation& al :
           registers_.At(selected_sm_, sp, static_cast<uint64_t>(c))) {
        const float ya = y_of(y0, al.first + al.count);
        const float yb = y_of(y0, al.first);
        dl->AddRectFilled(ImVec2(origin.x + x, ya),
                          ImVec2(origin.x + x + kColumn, std::max(ya + 1, yb)),
                          color_of(al));
      }
    }
    // At the cursor: the file with its ranges, and its free space.
    const std::vector<Allocation> live =
        registers_.At(selected_sm_, sp, cursor_);
    const FreeSpace free = RegisterMap::Measure(live, file_size);
    const float sx = origin.x + width + 16;
    dl->AddRectFilled(ImVec2(sx, y0), ImVec2(sx + 24, y0 + strip_h),
                      IM_COL32(30, 30, 30, 255));
    const Allocation* hovered = nullptr;
    for (const Allocation& al : live) {
      const float ya = y_of(y0, al.first + al.count);
      const float yb = y_of(y0, al.first);
      const ImU32 col = color_of(al);
      dl->AddRectFilled(ImVec2(sx, ya), ImVec2(sx + 24, std::max(ya + 1, yb)),
                        col);
      dl->AddLine(ImVec2(sx, ya), ImVec2(sx + 24, ya), IM_COL32(0, 0, 0, 255));
      if (mouse.x >= sx && mouse.x < sx + 24 && mouse.y >= ya && mouse.y < yb) {
        hovered = &al;
      }
    }
    char info[128];
    std::snprintf(info, sizeof(info),
                  "%zu warps\n%u free\n%u holes\nlargest %u", live.size(),
                  free.free, free.holes, free.largest_hole);
    dl->AddText(ImVec2(sx + 30, y0), IM_COL32(200, 200, 200, 255), info);
    if (hovered != nullptr) {
      ImGui::BeginTooltip();
      ImGui::Text("registers r%u-r%u of SMSP %u at cycle %llu", hovered->first,
                  hovered->first + hovered->count - 1, sp,
                  static_cast<unsigned long long>(cursor_));
      if (hovered->span < t.warps.size()) {
        WarpTooltip(t, t.warps[hovered->span], 1.0f);
      }
      ImGui::EndTooltip();
    } else if (mouse.x >= origin.x && mouse.x < origin.x + width &&
               mouse.y >= y0 && mouse.y < y0 + strip_h) {
      const double c = CycleAt(mouse.x, origin, width);
      const uint32_t reg = static_cast<uint32_t>(
          (y0 + strip_h - mouse.y) / strip_h * static_cast<float>(file_size));
      ImGui::BeginTooltip();
      ImGui::Text("SMSP %u, register %u, cycle %.0f", sp, reg, c);
      bool any = false;
      for (const Allocation& al : registers_.At(
               selected_sm_, sp, static_cast<uint64_t>(std::max(0.0, c)))) {
        if (reg >= al.first && reg < al.first + al.count &&
            al.span < t.warps.size()) {
          WarpTooltip(t, t.warps[al.span], 1.0f);
          any = true;
        }
      }
      if (!any) ImGui::TextDisabled("free");
      ImGui::EndTooltip();
    }
  }
  // Shared memory in use on the SM, from the counter samples.
  const float y0 = origin.y + static_cast<float>(sps) * (strip_h + 8);
  const float h = 40.0f;
  dl->AddText(ImVec2(top.x, y0), IM_COL32(200, 200, 200, 255), "shared");
  dl->AddRectFilled(ImVec2(origin.x, y0), ImVec2(origin.x + width, y0 + h),
                    IM_COL32(30, 30, 30, 255));
  uint32_t peak = 1;
  for (uint32_t i : CountersOf(selected_sm_)) {
    peak = std::max(peak, t.counters[i].shared_allocated);
  }
  for (uint32_t i : CountersOf(selected_sm_)) {
    const trace::CounterSample& c = t.counters[i];
    const double c0 =
        static_cast<double>(c.cycle - std::min(c.cycle, c.interval));
    if (static_cast<double>(c.cycle) < view_begin_ || c0 > view_end_) continue;
    const float x0 = std::max(origin.x, XOf(c0, origin, width));
    const float x1 = std::min(
        origin.x + width,
        std::max(x0 + 1, XOf(static_cast<double>(c.cycle), origin, width)));
    const float bar =
        h * static_cast<float>(c.shared_allocated) / static_cast<float>(peak);
    dl->AddRectFilled(ImVec2(x0, y0 + h - bar), ImVec2(x1, y0 + h),
                      IM_COL32(0, 158, 115, 255));
  }
  char peak_text[64];
  std::snprintf(peak_text, sizeof(peak_text), "peak %u bytes", peak);
  dl->AddText(ImVec2(origin.x + width + 16, y0), IM_COL32(200, 200, 200, 255),
              peak_text);
  // The cursor.
  const float cx = XOf(static_cast<double>(cursor_), origin, width);
  if (cx >= origin.x && cx <= origin.x + width) {
    dl->AddLine(ImVec2(cx, origin.y), ImVec2(cx, y0 + h),
                IM_COL32(255, 255, 255, 200));
  }
  const float total_h = y0 + h - top.y + 4;
  ImGui::InvisibleButton("registers", ImVec2(label + width, total_h));
  HandleZoom(origin, width, ImGui::IsItemHovered());
}

}  // namespace warpsim::viz
