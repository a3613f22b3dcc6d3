// The statistics `warpsim compare` and `warpsim test` put side by side:
// one scene's (or one variant's) figures taken from its RunReport, their
// JSON form (the baseline files of `warpsim test`), and which of them got
// worse by more than a given percentage.
#ifndef WARPSIM_REGRESS_SCENE_STATS_H_
#define WARPSIM_REGRESS_SCENE_STATS_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "runner/runner.h"

namespace warpsim::regress {

struct SceneStats {
  std::string status;  // runner::RunStatusName
  uint64_t warp_instructions = 0;
  uint64_t lane_instructions = 0;  // active lanes, helpers included
  uint64_t helper_lane_instructions = 0;
  // Active non-helper lanes per warp instruction, over the warp width; the
  // helper lanes' share of the same slots.
  double simd_efficiency = 0;
  double helper_lane_share = 0;
  // The most registers per thread of any shader the scene ran (the
  // register model's estimate the report gives).
  uint32_t registers_per_thread = 0;
  // The lowest theoretical occupancy of its shaders' warps (resident
  // warps per SM over the maximum): the timing model's per run in timing
  // mode, else the occupancy rules for one warp per block at that
  // shader's registers (sm/occupancy.h).
  double theoretical_occupancy = 0;
  // Timing mode: whole-run cycles, the warp-cycle-weighted achieved
  // occupancy of its draws and dispatches, and warp-cycles by stall
  // reason summed over them (trace::StallReasonName's names).
  std::optional<uint64_t> cycles;
  std::optional<double> achieved_occupancy;
  std::map<std::string, uint64_t> stall_cycles;
  double host_seconds = 0;  // not compared
};

SceneStats StatsOf(const runner::RunReport& report,
                   const runner::GpuConfig& config);

nlohmann::json StatsJson(const SceneStats& stats);
// The inverse of StatsJson; a missing or mistyped field is invalid input
// naming it.
Result<SceneStats> StatsFromJson(const nlohmann::json& j);

// A figure that is compared, how it reads and which way is worse.
struct Metric {
  const char* name;  // the JSON field
  bool higher_is_worse;
};
// warp_instructions, lane_instructions, simd_efficiency, helper_lane_share,
// registers_per_thread, theoretical_occupancy, and when both sides have
// them, cycles and achieved_occupancy.
const std::vector<Metric>& ComparedMetrics();
// The metric's value (nullopt: this side does not have it).
std::optional<double> MetricValue(const SceneStats& s, const Metric& m);

// Signed change in percent from `before` to `after` (0 when both are 0;
// +100 % or -100 % from 0).
double PercentChange(double before, double after);
// "before -> after (+x.y %)" with the values as FormatValue writes them.
std::string FormatChange(double before, double after, bool integer);
// Integers without decimals, shares with three.
std::string FormatValue(double v, bool integer);

struct Regression {
  std::string metric;
  double before = 0, after = 0;
  double percent = 0;  // worse by this much (positive)
};
// The metrics that got worse by more than `percent` from `base` to `now`.
std::vector<Regression> RegressionsAbove(const SceneStats& base,
                                         const SceneStats& now, double percent);

// The "cost" a --fail-above threshold compares: cycles when both sides
// have them, else warp instructions.
double CostOf(const SceneStats& s, bool use_cycles);

}  // namespace warpsim::regress

#endif  // WARPSIM_REGRESS_SCENE_STATS_H_
