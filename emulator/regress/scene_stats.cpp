#include "regress/scene_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sm/occupancy.h"
#include "trace/trace.h"

namespace warpsim::regress {

SceneStats StatsOf(const runner::RunReport& report,
                   const runner::GpuConfig& config) {
  SceneStats s;
  s.status = runner::RunStatusName(report.status);
  s.warp_instructions = report.stats.warp_instructions;
  s.lane_instructions = report.stats.lane_instructions;
  s.helper_lane_instructions = report.stats.helper_lane_instructions;
  const runner::LaneUse use = runner::LaneUseOf(
      s.warp_instructions, s.lane_instructions, s.helper_lane_instructions,
      std::max(1u, report.warp_width));
  s.simd_efficiency = use.simd_efficiency;
  s.helper_lane_share = use.helper_lane_share;
  for (const runner::PipelineReport& p : report.pipelines) {
    s.registers_per_thread =
        std::max(s.registers_per_thread, p.registers_per_thread);
  }
  s.host_seconds = report.stats.host_seconds;
  // Occupancy and cycles.
  std::vector<const sm::RunTiming*> runs;
  for (const auto& d : report.draws) {
    if (d.timing) runs.push_back(&*d.timing);
  }
  for (const auto& d : report.dispatches) {
    if (d.timing) runs.push_back(&*d.timing);
  }
  if (report.timing) {
    s.cycles = report.timing->cycles;
    double weighted = 0, weight = 0;
    double theoretical = runs.empty() ? 0.0 : 1.0;
    trace::StallCounts stalls{};
    for (const sm::RunTiming* t : runs) {
      theoretical = std::min(theoretical, t->theoretical_occupancy);
      const double w = static_cast<double>(t->cycles) *
                       static_cast<double>(std::max(1u, t->sms_used));
      weighted += t->achieved_occupancy * w;
      weight += w;
      for (size_t r = 0; r < trace::kStallReasons; ++r) {
        stalls[r] += t->stall_cycles[r];
      }
    }
    s.theoretical_occupancy = theoretical;
    s.achieved_occupancy = weight > 0 ? weighted / weight : 0.0;
    for (size_t r = 0; r < trace::kStallReasons; ++r) {
      if (stalls[r] == 0) continue;
      s.stall_cycles[std::string(trace::StallReasonName(
          static_cast<trace::StallReason>(r)))] = stalls[r];
    }
  } else {
    double theoretical = report.pipelines.empty() ? 0.0 : 1.0;
    for (const runner::PipelineReport& p : report.pipelines) {
      const sm::Occupancy o =
          p.stage == "compute"
              ? sm::ComputeOccupancy(
                    config.sm,
                    sm::Launch{.registers_per_thread = p.registers_per_thread,
                               .threads_per_block = config.sm.warp_size})
              : sm::GraphicsWarpsPerSm(config.sm, p.registers_per_thread);
      theoretical = std::min(theoretical, o.occupancy);
    }
    s.theoretical_occupancy = theoretical;
  }
  return s;
}

nlohmann::json StatsJson(const SceneStats& s) {
  nlohmann::json j = {{"status", s.status},
                      {"warp_instructions", s.warp_instructions},
                      {"lane_instructions", s.lane_instructions},
                      {"helper_lane_instructions", s.helper_lane_instructions},
                      {"simd_efficiency", s.simd_efficiency},
                      {"helper_lane_share", s.helper_lane_share},
                      {"registers_per_thread", s.registers_per_thread},
                      {"theoretical_occupancy", s.theoretical_occupancy},
                      {"host_seconds", s.host_seconds}};
  if (s.cycles) j["cycles"] = *s.cycles;
  if (s.achieved_occupancy) j["achieved_occupancy"] = *s.achieved_occupancy;
  if (!s.stall_cycles.empty()) j["stall_cycles"] = s.stall_cycles;
  return j;
}

namespace {

template <typename T>
Status Read(const nlohmann::json& j, const char* name, T* out, bool optional) {
  auto it = j.find(name);
  if (it == j.end()) {
    if (optional) return {};
    return InvalidInput(std::string("missing field \"") + name + "\"");
  }
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) {
      return InvalidInput(std::string("field \"") + name +
                          "\" is not a string");
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!it->is_number()) {
      return InvalidInput(std::string("field \"") + name +
                          "\" is not a number");
    }
  } else {
    if (!it->is_number_unsigned() &&
        !(it->is_number_integer() && it->template get<int64_t>() >= 0)) {
      return InvalidInput(std::string("field \"") + name +
                          "\" is not a count (an unsigned integer)");
    }
  }
  *out = it->template get<T>();
  return {};
}

}  // namespace

Result<SceneStats> StatsFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return InvalidInput("scene statistics must be an object");
  SceneStats s;
  for (Status st :
       {Read(j, "status", &s.status, false),
        Read(j, "warp_instructions", &s.warp_instructions, false),
        Read(j, "lane_instructions", &s.lane_instructions, false),
        Read(j, "helper_lane_instructions", &s.helper_lane_instructions, true),
        Read(j, "simd_efficiency", &s.simd_efficiency, false),
        Read(j, "helper_lane_share", &s.helper_lane_share, true),
        Read(j, "registers_per_thread", &s.registers_per_thread, false),
        Read(j, "theoretical_occupancy", &s.theoretical_occupancy, true),
        Read(j, "host_seconds", &s.host_seconds, true)}) {
    if (!st.ok()) return st.error();
  }
  if (j.contains("cycles")) {
    uint64_t c = 0;
    if (Status st = Read(j, "cycles", &c, false); !st.ok()) return st.error();
    s.cycles = c;
  }
  if (j.contains("achieved_occupancy")) {
    double a = 0;
    if (Status st = Read(j, "achieved_occupancy", &a, false); !st.ok()) {
      return st.error();
    }
    s.achieved_occupancy = a;
  }
  if (auto it = j.find("stall_cycles"); it != j.end()) {
    if (!it->is_object()) {
      return InvalidInput("field \"stall_cycles\" is not an object");
    }
    for (const auto& [name, v] : it->items()) {
      if (!v.is_number_unsigned()) {
        return InvalidInput("stall_cycles \"" + name + "\" is not a count");
      }
      s.stall_cycles[name] = v.get<uint64_t>();
    }
  }
  return s;
}

const std::vector<Metric>& ComparedMetrics() {
  static const std::vector<Metric> kMetrics = {
      {"warp_instructions", true},
      {"lane_instructions", true},
      {"simd_efficiency", false},
      {"helper_lane_share", true},
      {"registers_per_thread", true},
      {"theoretical_occupancy", false},
      {"cycles", true},
      {"achieved_occupancy", false},
  };
  return kMetrics;
}

std::optional<double> MetricValue(const SceneStats& s, const Metric& m) {
  const std::string_view n = m.name;
  if (n == "warp_instructions") return static_cast<double>(s.warp_instructions);
  if (n == "lane_instructions") return static_cast<double>(s.lane_instructions);
  if (n == "simd_efficiency") return s.simd_efficiency;
  if (n == "helper_lane_share") return s.helper_lane_share;
  if (n == "registers_per_thread") {
    return static_cast<double>(s.registers_per_thread);
  }
  if (n == "theoretical_occupancy") return s.theoretical_occupancy;
  if (n == "cycles" && s.cycles) return static_cast<double>(*s.cycles);
  if (n == "achieved_occupancy" && s.achieved_occupancy) {
    return *s.achieved_occupancy;
  }
  return std::nullopt;
}

double PercentChange(double before, double after) {
  if (before == after) return 0;
  if (before == 0) return after > 0 ? 100.0 : -100.0;
  return 100.0 * (after - before) / std::fabs(before);
}

std::string FormatValue(double v, bool integer) {
  char buf[64];
  if (integer) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f", v);
  }
  return buf;
}

std::string FormatChange(double before, double after, bool integer) {
  char pct[32];
  std::snprintf(pct, sizeof pct, "%+.1f %%", PercentChange(before, after));
  return FormatValue(before, integer) + " -> " + FormatValue(after, integer) +
         " (" + pct + ")";
}

std::vector<Regression> RegressionsAbove(const SceneStats& base,
                                         const SceneStats& now,
                                         double percent) {
  std::vector<Regression> out;
  for (const Metric& m : ComparedMetrics()) {
    const auto b = MetricValue(base, m);
    const auto a = MetricValue(now, m);
    if (!b || !a) continue;
    const double change = PercentChange(*b, *a);
    const double worse = m.higher_is_worse ? change : -change;
    if (worse > percent) out.push_back({m.name, *b, *a, worse});
  }
  return out;
}

double CostOf(const SceneStats& s, bool use_cycles) {
  if (use_cycles && s.cycles) return static_cast<double>(*s.cycles);
  return static_cast<double>(s.warp_instructions);
}

}  // namespace warpsim::regress
