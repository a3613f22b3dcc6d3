// Small pieces the views share: legends, tooltips, the report entry of a
// run.
#ifndef WARPSIM_VISUALIZER_APP_VIEWER_UTIL_H_
#define WARPSIM_VISUALIZER_APP_VIEWER_UTIL_H_

#include <imgui.h>

#include <nlohmann/json.hpp>

#include "trace/trace.h"

namespace warpsim::viz {

// A coloured square and a label, on the current line.
void LegendItem(ImU32 color, const char* label);
// The report's draws[] or dispatches[] entry of a run ("draw 3 (...)" is
// draws[3]); nullptr when the report has none.
const nlohmann::json* RunEntry(const nlohmann::json& report,
                               const std::string& run_name);
// Tooltip bodies (between BeginTooltip and EndTooltip).
void RunTooltip(const nlohmann::json& report, const trace::RunInfo& run);
void CounterTooltip(const trace::Trace& t, const trace::CounterSample& c);
void WarpTooltip(const trace::Trace& t, const trace::WarpSpan& w, float fill);
// A JSON number or string as text ("-" when missing).
std::string JsonText(const nlohmann::json& j, const char* key);

}  // namespace warpsim::viz

#endif  // WARPSIM_VISUALIZER_APP_VIEWER_UTIL_H_
