// The stats view (the report's tables, sortable: per draw and dispatch,
// per SM, stall reasons) and the compare view (two runs' figures side by
// side, with their differences).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app/palette.h"
#include "app/viewer.h"
#include "app/viewer_util.h"

namespace warpsim::viz {
namespace {

using nlohmann::json;

struct Cell {
  std::string text;
  double number = 0;
  bool numeric = false;
};

Cell CellOf(const json& obj, const std::string& key) {
  Cell c;
  if (!obj.is_object() || !obj.contains(key)) {
    c.text = "-";
    return c;
  }
  const json& v = obj[key];
  if (v.is_number()) {
    c.numeric = true;
    c.number = v.get<double>();
    char text[32];
    if (v.is_number_float()) {
      std::snprintf(text, sizeof(text), "%.3f", c.number);
    } else {
      std::snprintf(text, sizeof(text), "%lld", v.get<long long>());
    }
    c.text = text;
  } else if (v.is_string()) {
    c.text = v.get<std::string>();
  } else {
    c.text = v.dump();
  }
  return c;
}

// A table whose rows sort by any column (click its header).
void SortableTable(const char* id, const std::vector<std::string>& columns,
                   std::vector<std::vector<Cell>>& rows) {
  if (!ImGui::BeginTable(id, static_cast<int>(columns.size()),
                         ImGuiTableFlags_Sortable | ImGuiTableFlags_RowBg |
                             ImGuiTableFlags_Borders |
                             ImGuiTableFlags_Resizable |
                             ImGuiTableFlags_SizingFixedFit)) {
    return;
  }
  for (const std::string& c : columns) ImGui::TableSetupColumn(c.c_str());
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs();
      specs != nullptr && specs->SpecsCount > 0) {
    const int col = specs->Specs[0].ColumnIndex;
    const bool asc =
        specs->Specs[0].SortDirection == ImGuiSortDirection_Ascending;
    std::stable_sort(
        rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
          const Cell& x = a[col];
          const Cell& y = b[col];
          const bool less =
              x.numeric && y.numeric ? x.number < y.number : x.text < y.text;
          const bool greater =
              x.numeric && y.numeric ? y.number < x.number : y.text < x.text;
          return asc ? less : greater;
        });
  }
  for (const auto& row : rows) {
    ImGui::TableNextRow();
    for (const Cell& c : row) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(c.text.c_str());
    }
  }
  ImGui::EndTable();
}

// Stall warp-cycles by reason over every draw and dispatch of a report.
std::vector<double> StallTotals(const json& report) {
  std::vector<double> total(trace::kStallReasons, 0);
  for (const char* list : {"draws", "dispatches"}) {
    if (!report.is_object() || !report.contains(list)) continue;
    for (const json& e : report[list]) {
      if (!e.contains("stall_cycles")) continue;
      for (size_t r = 0; r < trace::kStallReasons; ++r) {
        const std::string name(
            trace::StallReasonName(static_cast<trace::StallReason>(r)));
        if (e["stall_cycles"].contains(name)) {
          total[r] += e["stall_cycles"][name].get<double>();
        }
      }
    }
  }
  return total;
}

double Sum(const json& report, const char* key) {
  double s = 0;
  for (const char* list : {"draws", "dispatches"}) {
    if (!report.is_object() || !report.contains(list)) continue;
    for (const json& e : report[list]) {
      if (e.contains(key) && e[key].is_number()) s += e[key].get<double>();
    }
  }
  return s;
}

}  // namespace

void Viewer::DrawStats() {
  const json& report = data_.report;
  if (!report.is_object()) {
    ImGui::TextDisabled(data_.finished
                            ? "no report.json with this run"
                            : "the report comes when the run finishes");
    return;
  }
  ImGui::Text("result: %s, cycles: %s, scheduler: %s, context switch: %s",
              JsonText(report, "result").c_str(),
              report.contains("timing")
                  ? JsonText(report["timing"], "cycles").c_str()
                  : "-",
              report.contains("timing")
                  ? JsonText(report["timing"], "scheduler").c_str()
                  : "-",
              report.contains("timing")
                  ? JsonText(report["timing"], "context_switch").c_str()
                  : "-");
  if (ImGui::CollapsingHeader("draws and dispatches",
                              ImGuiTreeNodeFlags_DefaultOpen)) {
    const std::vector<std::string> keys = {"pipeline",
                                           "cycles",
                                           "warp_instructions",
                                           "ipc",
                                           "simd_efficiency",
                                           "theoretical_occupancy",
                                           "achieved_occupancy",
                                           "limiter",
                                           "registers_per_thread",
                                           "warp_switches"};
    std::vector<std::string> columns = {"run"};
    columns.insert(columns.end(), keys.begin(), keys.end());
    std::vector<std::vector<Cell>> rows;
    for (const char* list : {"draws", "dispatches"}) {
      if (!report.contains(list)) continue;
      for (size_t i = 0; i < report[list].size(); ++i) {
        std::vector<Cell> row;
        const std::string kind =
            std::string(list) == "draws" ? "draw" : "dispatch";
        row.push_back(
            {kind + " " + std::to_string(i), static_cast<double>(i), false});
        for (const std::string& k : keys)
          row.push_back(CellOf(report[list][i], k));
        rows.push_back(std::move(row));
      }
    }
    SortableTable("runs", columns, rows);
  }
  if (report.contains("timing") && report["timing"].contains("sms") &&
      ImGui::CollapsingHeader("SMs", ImGuiTreeNodeFlags_DefaultOpen)) {
    const std::vector<std::string> keys = {
        "sm",        "busy_cycles",         "instructions",
        "ipc",       "mean_resident_warps", "peak_registers",
        "peak_warps"};
    std::vector<std::vector<Cell>> rows;
    for (const json& s : report["timing"]["sms"]) {
      std::vector<Cell> row;
      for (const std::string& k : keys) row.push_back(CellOf(s, k));
      rows.push_back(std::move(row));
    }
    SortableTable("sms", keys, rows);
  }
  if (ImGui::CollapsingHeader("stall reasons",
                              ImGuiTreeNodeFlags_DefaultOpen)) {
    const std::vector<double> total = StallTotals(report);
    double all = 0;
    for (double v : total) all += v;
    std::vector<std::vector<Cell>> rows;
    for (size_t r = 0; r < total.size(); ++r) {
      char share[32];
      std::snprintf(share, sizeof(share), "%.1f %%",
                    all > 0 ? 100.0 * total[r] / all : 0.0);
      char value[32];
      std::snprintf(value, sizeof(value), "%.0f", total[r]);
      rows.push_back({{std::string(trace::StallReasonName(
                           static_cast<trace::StallReason>(r))),
                       0, false},
                      {value, total[r], true},
                      {share, all > 0 ? total[r] / all : 0, true}});
    }
    SortableTable("stalls", {"state", "warp-cycles", "share"}, rows);
  }
}

void Viewer::DrawCompare() {
  if (!compare_.report.is_object()) {
    ImGui::TextWrapped(
        "Nothing to compare yet. Start warpsim-viz with --compare RUN_DIR, or "
        "in live mode change the scheduler or context switch and press "
        "Rerun: the run shown now becomes the other side.");
    return;
  }
  const json& a = data_.report;
  const json& b = compare_.report;
  ImGui::Text("A: %s (this run)", data_.source.c_str());
  ImGui::Text("B: %s", compare_label_.c_str());
  auto timing = [](const json& r, const char* key) -> double {
    if (!r.is_object() || !r.contains("timing") || !r["timing"].contains(key) ||
        !r["timing"][key].is_number()) {
      return NAN;
    }
    return r["timing"][key].get<double>();
  };
  struct Row {
    std::string name;
    double a, b;
  };
  std::vector<Row> rows = {
      {"cycles", timing(a, "cycles"), timing(b, "cycles")},
      {"warp instructions", Sum(a, "warp_instructions"),
       Sum(b, "warp_instructions")},
      {"lane instructions", Sum(a, "lane_instructions"),
       Sum(b, "lane_instructions")},
      {"warp switches", Sum(a, "warp_switches"), Sum(b, "warp_switches")},
  };
  const std::vector<double> sa = StallTotals(a), sb = StallTotals(b);
  for (size_t r = 0; r < sa.size(); ++r) {
    rows.push_back(
        {std::string("stall: ") + std::string(trace::StallReasonName(
                                      static_cast<trace::StallReason>(r))),
         sa[r], sb[r]});
  }
  if (ImGui::BeginTable("compare", 4,
                        ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders |
                            ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("figure");
    ImGui::TableSetupColumn("A");
    ImGui::TableSetupColumn("B");
    ImGui::TableSetupColumn("A vs B");
    ImGui::TableHeadersRow();
    for (const Row& r : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.name.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.0f", r.a);
      ImGui::TableNextColumn();
      ImGui::Text("%.0f", r.b);
      ImGui::TableNextColumn();
      if (std::isfinite(r.a) && std::isfinite(r.b) && r.b != 0) {
        const double d = 100.0 * (r.a - r.b) / r.b;
        ImGui::TextColored(d > 0 ? ImVec4(0.84f, 0.37f, 0.0f, 1)
                                 : ImVec4(0.34f, 0.71f, 0.91f, 1),
                           "%+.1f %%", d);
      } else {
        ImGui::TextDisabled("-");
      }
    }
    ImGui::EndTable();
  }
  // The two runs' stall mixes as bars.
  ImGui::Text("where warp-cycles went");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float w = std::max(100.0f, ImGui::GetContentRegionAvail().x - 40);
  for (int side = 0; side < 2; ++side) {
    const std::vector<double>& s = side == 0 ? sa : sb;
    double all = 0;
    for (double v : s) all += v;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    dl->AddText(p, IM_COL32(220, 220, 220, 255), side == 0 ? "A" : "B");
    float x = p.x + 20;
    for (size_t r = 0; r < s.size() && all > 0; ++r) {
      const float dw = static_cast<float>(s[r] / all) * w;
      dl->AddRectFilled(ImVec2(x, p.y), ImVec2(x + dw, p.y + 16),
                        StateColor(static_cast<trace::StallReason>(r)));
      if (ImGui::IsMouseHoveringRect(ImVec2(x, p.y),
                                     ImVec2(x + dw, p.y + 16))) {
        ImGui::SetTooltip("%s: %.1f %%",
                          std::string(trace::StallReasonName(
                                          static_cast<trace::StallReason>(r)))
                              .c_str(),
                          100.0 * s[r] / all);
      }
      x += dw;
    }
    ImGui::Dummy(ImVec2(w + 20, 20));
  }
  for (size_t r = 0; r + 1 < trace::kStallReasons; ++r) {
    LegendItem(
        StateColor(static_cast<trace::StallReason>(r)),
        std::string(trace::StallReasonName(static_cast<trace::StallReason>(r)))
            .c_str());
  }
  ImGui::NewLine();
}

}  // namespace warpsim::viz
