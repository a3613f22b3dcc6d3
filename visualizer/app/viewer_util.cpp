// Shared view pieces: see viewer_util.h.
#include "app/viewer_util.h"

#include <cstdio>
#include <string>

namespace warpsim::viz {

void LegendItem(ImU32 color, const char* label) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float s = ImGui::GetTextLineHeight() * 0.8f;
  dl->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + s, p.y + 2 + s), color);
  ImGui::Dummy(ImVec2(s + 2, s));
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
  ImGui::SameLine(0, 12);
}

const nlohmann::json* RunEntry(const nlohmann::json& report,
                               const std::string& run_name) {
  if (!report.is_object()) return nullptr;
  for (const char* kind : {"draw", "dispatch"}) {
    const std::string prefix = std::string(kind) + " ";
    if (run_name.rfind(prefix, 0) != 0) continue;
    const size_t index =
        std::strtoul(run_name.c_str() + prefix.size(), nullptr, 10);
    const std::string list =
        std::string(kind) == "draw" ? "draws" : "dispatches";
    if (!report.contains(list) || !report[list].is_array() ||
        index >= report[list].size()) {
      return nullptr;
    }
    return &report[list][index];
  }
  return nullptr;
}

std::string JsonText(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return "-";
  const nlohmann::json& v = j[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.3f", v.get<double>());
    return text;
  }
  return v.dump();
}

void RunTooltip(const nlohmann::json& report, const trace::RunInfo& run) {
  ImGui::Text("%s", run.name.c_str());
  ImGui::Text("cycles %llu-%llu (%llu)",
              static_cast<unsigned long long>(run.begin),
              static_cast<unsigned long long>(run.end),
              static_cast<unsigned long long>(run.end - run.begin));
  const nlohmann::json* e = RunEntry(report, run.name);
  if (e == nullptr) return;
  for (const char* key :
       {"ipc", "theoretical_occupancy", "achieved_occupancy", "limiter",
        "registers_per_thread", "peak_warps_per_sm", "warp_switches"}) {
    ImGui::Text("%s: %s", key, JsonText(*e, key).c_str());
  }
}

void CounterTooltip(const trace::Trace& t, const trace::CounterSample& c) {
  ImGui::Text(
      "SM %u, cycles %llu-%llu", c.sm,
      static_cast<unsigned long long>(c.cycle - std::min(c.cycle, c.interval)),
      static_cast<unsigned long long>(c.cycle));
  ImGui::Text("resident warps %u, registers %u, shared memory %u bytes",
              c.resident_warps, c.registers_allocated, c.shared_allocated);
  const double slots =
      static_cast<double>(c.interval) * std::max(1u, t.sub_partitions);
  ImGui::Text("issue slots used %.1f %%",
              slots > 0 ? 100.0 * static_cast<double>(c.issued) / slots : 0.0);
  for (size_t r = 0; r < trace::kStallReasons; ++r) {
    if (c.stalls[r] == 0) continue;
    ImGui::Text(
        "  %s: %llu warp-cycles",
        std::string(trace::StallReasonName(static_cast<trace::StallReason>(r)))
            .c_str(),
        static_cast<unsigned long long>(c.stalls[r]));
  }
}

void WarpTooltip(const trace::Trace& t, const trace::WarpSpan& w, float fill) {
  ImGui::Separator();
  ImGui::Text("warp %llu: %s %s", static_cast<unsigned long long>(w.warp),
              std::string(trace::StageName(w.stage)).c_str(), w.label.c_str());
  if (w.run < t.runs.size()) ImGui::Text("%s", t.runs[w.run].name.c_str());
  if (w.end == trace::kStillResident) {
    ImGui::Text("resident since cycle %llu",
                static_cast<unsigned long long>(w.begin));
  } else {
    ImGui::Text("resident cycles %llu-%llu (%llu)",
                static_cast<unsigned long long>(w.begin),
                static_cast<unsigned long long>(w.end),
                static_cast<unsigned long long>(w.end - w.begin));
  }
  ImGui::Text("%u registers per thread, %llu warp instructions", w.registers,
              static_cast<unsigned long long>(w.instructions));
  if (fill < 1.0f) {
    ImGui::TextDisabled(
        "(zoomed out: this slice stands for several warps, "
        "%.0f %% of it resident)",
        100.0 * fill);
  }
}

}  // namespace warpsim::viz
