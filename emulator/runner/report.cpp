// The report of a run (runner.h): status names and exit codes, lane use,
// and the JSON report.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "runner/runner.h"

namespace warpsim::runner {

namespace {

// Warp-cycles by state, every state named as trace::StallReasonName names
// it ("selected" is the cycles the warps issued).
nlohmann::json StallsJson(const trace::StallCounts& stalls) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t r = 0; r < trace::kStallReasons; ++r) {
    j[std::string(trace::StallReasonName(static_cast<trace::StallReason>(r)))] =
        stalls[r];
  }
  return j;
}

// A draw's or dispatch's timing fields (timing mode), added to its entry.
void AddRunTiming(const sm::RunTiming& t, nlohmann::json* out) {
  nlohmann::json& j = *out;
  j["cycles"] = t.cycles;
  j["first_cycle"] = t.begin;
  j["ipc"] = t.ipc;
  j["sms_used"] = t.sms_used;
  j["theoretical_occupancy"] = t.theoretical_occupancy;
  j["achieved_occupancy"] = t.achieved_occupancy;
  j["limiter"] = t.limiter;
  j["registers_per_thread"] = t.registers_per_thread;
  if (t.vertex_registers_per_thread != 0) {
    j["vertex_registers_per_thread"] = t.vertex_registers_per_thread;
  }
  j["peak_warps_per_sm"] = t.peak_warps_per_sm;
  if (t.peak_fragment_warps_per_sm != 0) {
    j["peak_fragment_warps_per_sm"] = t.peak_fragment_warps_per_sm;
  }
  j["warp_switches"] = t.warp_switches;
  j["fused_instructions"] = t.fused_instructions;
  j["layout_branches"] = t.layout_branches;
  j["unrolled_loop_instructions"] = t.unrolled_loop_instructions;
  j["bubble_instructions"] = t.bubble_instructions;
  j["redundant_instructions"] = t.redundant_instructions;
  j["register_moves"] = t.register_moves;
  j["predicated_branches"] = t.predicated_branches;
  j["predicated_off_instructions"] = t.predicated_off_instructions;
  j["reconvergence_instructions"] = t.reconvergence_instructions;
  j["loop_entry_instructions"] = t.loop_entry_instructions;
  j["selection_move_instructions"] = t.selection_move_instructions;
  j["fma_pipe_adds"] = t.fma_pipe_adds;
  j["memory_issue_hold_cycles"] = t.memory_issue_hold_cycles;
  j["store_throttle_cycles"] = t.store_throttle_cycles;
  j["stall_cycles"] = StallsJson(t.stall_cycles);
  j["memory"] = {{"requests", t.memory.requests},
                 {"sectors", t.memory.sectors},
                 {"l1_hits", t.memory.l1_hits},
                 {"l1_misses", t.memory.l1_misses},
                 {"l2_hits", t.memory.l2_hits},
                 {"l2_misses", t.memory.l2_misses},
                 {"wavefronts", t.memory.wavefronts},
                 {"shared_requests", t.memory.shared_requests},
                 {"shared_wavefronts", t.memory.shared_wavefronts},
                 {"translation_misses", t.memory.translation_misses}};
}

}  // namespace

const char* RunStatusName(RunStatus s) {
  switch (s) {
    case RunStatus::kPass:
      return "pass";
    case RunStatus::kFail:
      return "fail";
    case RunStatus::kInvalid:
      return "invalid";
    case RunStatus::kUnsupported:
      return "unsupported";
    case RunStatus::kLimitExceeded:
      return "limit_exceeded";
  }
  return "?";
}

RunStatus RunStatusFor(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kUnsupported:
      return RunStatus::kUnsupported;
    case ErrorKind::kLimitExceeded:
      return RunStatus::kLimitExceeded;
    case ErrorKind::kInvalidInput:
    case ErrorKind::kInternal:
      break;
  }
  return RunStatus::kInvalid;
}

int ExitCodeFor(RunStatus status) {
  switch (status) {
    case RunStatus::kPass:
      return 0;
    case RunStatus::kFail:
      return 1;
    case RunStatus::kInvalid:
      return 2;
    case RunStatus::kUnsupported:
      return 3;
    case RunStatus::kLimitExceeded:
      return 4;
  }
  return 2;
}

LaneUse LaneUseOf(uint64_t warp_instructions, uint64_t lane_instructions,
                  uint64_t helper_lane_instructions, uint32_t warp_width) {
  const double slots =
      static_cast<double>(warp_instructions) * static_cast<double>(warp_width);
  if (slots == 0) return {};
  return {
      static_cast<double>(lane_instructions - helper_lane_instructions) / slots,
      static_cast<double>(helper_lane_instructions) / slots};
}

std::string ReportToJson(const RunReport& report) {
  nlohmann::json j;
  j["file"] = report.file;
  j["result"] = RunStatusName(report.status);
  j["exit_code"] = ExitCodeFor(report.status);
  nlohmann::json exps = nlohmann::json::array();
  for (const auto& e : report.expectations) {
    exps.push_back(
        {{"line", e.line}, {"passed", e.passed}, {"message", e.message}});
  }
  j["expectations"] = exps;
  nlohmann::json pipes = nlohmann::json::array();
  for (const auto& p : report.pipelines) {
    pipes.push_back({{"name", p.name},
                     {"stage", p.stage},
                     {"shader", p.shader},
                     {"entry_point", p.entry_point},
                     {"registers_per_thread", p.registers_per_thread},
                     {"registers_allocated", p.registers_allocated},
                     {"instructions", p.instructions}});
    if (p.profile) {
      pipes.back()["profiled_warp_instructions"] = p.profile->warp_instructions;
      pipes.back()["branches"] = profile::BranchesJson(*p.profile);
    }
  }
  j["pipelines"] = pipes;
  auto lane_use = [&](nlohmann::json* out, uint64_t warp_instructions,
                      uint64_t lane_instructions, uint64_t helper_lanes) {
    const LaneUse use = LaneUseOf(warp_instructions, lane_instructions,
                                  helper_lanes, report.warp_width);
    (*out)["warp_instructions"] = warp_instructions;
    (*out)["lane_instructions"] = lane_instructions;
    (*out)["helper_lane_instructions"] = helper_lanes;
    (*out)["simd_efficiency"] = use.simd_efficiency;
    (*out)["helper_lane_share"] = use.helper_lane_share;
  };
  nlohmann::json draws = nlohmann::json::array();
  for (const auto& d : report.draws) {
    draws.push_back({{"pipeline", d.pipeline},
                     {"vs_invocations", d.stats.vs_invocations},
                     {"vertex_warps", d.stats.vertex_warps},
                     {"primitives_in", d.stats.primitives_in},
                     {"primitives_out", d.stats.primitives_out},
                     {"fs_invocations", d.stats.fs_invocations},
                     {"helper_lanes", d.stats.helper_lanes},
                     {"quads", d.stats.quads},
                     {"fragment_warps", d.stats.fragment_warps},
                     {"fs_invocations_per_fragment_warp",
                      d.stats.InvocationsPerFragmentWarp()}});
    nlohmann::json per_warp = nlohmann::json::object();
    for (const auto& [n, warps] : d.stats.primitives_per_fragment_warp) {
      per_warp[std::to_string(n)] = warps;
    }
    draws.back()["primitives_per_fragment_warp"] = per_warp;
    lane_use(&draws.back(), d.stats.warp_instructions,
             d.stats.lane_instructions, d.stats.helper_lane_instructions);
    if (d.timing) AddRunTiming(*d.timing, &draws.back());
  }
  j["draws"] = draws;
  nlohmann::json dispatches = nlohmann::json::array();
  for (const auto& d : report.dispatches) {
    dispatches.push_back({{"pipeline", d.pipeline},
                          {"workgroups", d.stats.workgroups},
                          {"warps", d.stats.warps}});
    lane_use(&dispatches.back(), d.stats.warp_instructions,
             d.stats.lane_instructions, d.stats.helper_lane_instructions);
    if (d.timing) AddRunTiming(*d.timing, &dispatches.back());
  }
  j["dispatches"] = dispatches;
  j["stats"] = {{"dispatches", report.stats.dispatches},
                {"workgroups", report.stats.workgroups},
                {"warps", report.stats.warps},
                {"warp_width", report.warp_width},
                {"host_seconds", report.stats.host_seconds},
                {"shader_cache_hits", report.stats.shader_cache_hits},
                {"shader_cache_misses", report.stats.shader_cache_misses}};
  lane_use(&j["stats"], report.stats.warp_instructions,
           report.stats.lane_instructions,
           report.stats.helper_lane_instructions);
  if (report.timing) {
    const TimingReport& t = *report.timing;
    nlohmann::json sms = nlohmann::json::array();
    for (size_t i = 0; i < t.sms.size(); ++i) {
      const sm::SmTiming& s = t.sms[i];
      sms.push_back({{"sm", t.sm_ids[i]},
                     {"busy_cycles", s.busy_cycles},
                     {"instructions", s.issued},
                     {"ipc", s.ipc},
                     {"mean_resident_warps", s.mean_resident_warps},
                     {"peak_registers", s.peak_registers},
                     {"peak_warps", s.peak_warps},
                     {"stall_cycles", StallsJson(s.stall_cycles)}});
    }
    j["timing"] = {
        {"clock_mhz", t.clock_mhz},
        {"cycles", t.cycles},
        {"microseconds",
         t.clock_mhz > 0 ? static_cast<double>(t.cycles) / t.clock_mhz : 0.0},
        {"scheduler", t.scheduler},
        {"context_switch", t.context_switch},
        {"sms", sms}};
  }
  if (report.diagnostic) {
    const char* kind = "invalid_input";
    if (report.status == RunStatus::kUnsupported) kind = "unsupported";
    if (report.status == RunStatus::kLimitExceeded) kind = "limit_exceeded";
    j["diagnostic"] = {{"kind", kind},
                       {"file", report.diagnostic->pos.file},
                       {"line", report.diagnostic->pos.line},
                       {"word", report.diagnostic->pos.word},
                       {"opcode", report.diagnostic->pos.opcode},
                       {"message", report.diagnostic->message},
                       {"text", report.diagnostic->ToString()}};
  }
  // Names, paths and messages are bytes from the input, not always UTF-8:
  // invalid sequences become U+FFFD instead of making dump() throw.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {

std::string StallHeader() {
  std::string h;
  for (size_t r = 0; r < trace::kStallReasons; ++r) {
    h += ",stall_";
    h += trace::StallReasonName(static_cast<trace::StallReason>(r));
  }
  return h;
}

std::string StallColumns(const trace::StallCounts& stalls) {
  std::string c;
  for (uint64_t v : stalls) c += "," + std::to_string(v);
  return c;
}

// A double as the JSON report writes it (shortest round-trip form).
std::string Num(double v) { return nlohmann::json(v).dump(); }

// A CSV field: quoted, with quotes doubled.
std::string Quoted(const std::string& s) {
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

}  // namespace

std::string TimingSmsCsv(const RunReport& report) {
  std::string out =
      "sm,busy_cycles,instructions,ipc,mean_resident_warps,"
      "peak_registers,peak_warps" +
      StallHeader() + "\n";
  if (!report.timing) return out;
  const TimingReport& t = *report.timing;
  for (size_t i = 0; i < t.sms.size(); ++i) {
    const sm::SmTiming& s = t.sms[i];
    out += std::to_string(t.sm_ids[i]) + "," + std::to_string(s.busy_cycles) +
           "," + std::to_string(s.issued) + "," + Num(s.ipc) + "," +
           Num(s.mean_resident_warps) + "," + std::to_string(s.peak_registers) +
           "," + std::to_string(s.peak_warps) + StallColumns(s.stall_cycles) +
           "\n";
  }
  return out;
}

std::string TimingRunsCsv(const RunReport& report) {
  std::string out =
      "kind,index,pipeline,first_cycle,cycles,warp_instructions,ipc,sms_used,"
      "theoretical_occupancy,achieved_occupancy,limiter,"
      "registers_per_thread,vertex_registers_per_thread,peak_warps_per_sm,"
      "peak_fragment_warps_per_sm,warp_switches,fused_instructions,"
      "layout_branches,unrolled_loop_instructions,redundant_instructions,"
      "register_moves,fma_pipe_adds,predicated_branches,"
      "predicated_off_instructions,reconvergence_instructions,"
      "bubble_instructions,loop_entry_instructions,"
      "selection_move_instructions" +
      StallHeader() +
      ",memory_requests,memory_sectors,l1_hits,l1_misses,l2_hits,l2_misses,"
      "wavefronts,shared_requests,shared_wavefronts,translation_misses\n";
  auto row = [&](const char* kind, size_t i, const std::string& pipeline,
                 const sm::RunTiming& t) {
    out +=
        std::string(kind) + "," + std::to_string(i) + "," + Quoted(pipeline) +
        "," + std::to_string(t.begin) + "," + std::to_string(t.cycles) + "," +
        std::to_string(t.warp_instructions) + "," + Num(t.ipc) + "," +
        std::to_string(t.sms_used) + "," + Num(t.theoretical_occupancy) + "," +
        Num(t.achieved_occupancy) + "," + t.limiter + "," +
        std::to_string(t.registers_per_thread) + "," +
        std::to_string(t.vertex_registers_per_thread) + "," +
        std::to_string(t.peak_warps_per_sm) + "," +
        std::to_string(t.peak_fragment_warps_per_sm) + "," +
        std::to_string(t.warp_switches) + "," +
        std::to_string(t.fused_instructions) + "," +
        std::to_string(t.layout_branches) + "," +
        std::to_string(t.unrolled_loop_instructions) + "," +
        std::to_string(t.redundant_instructions) + "," +
        std::to_string(t.register_moves) + "," +
        std::to_string(t.fma_pipe_adds) + "," +
        std::to_string(t.predicated_branches) + "," +
        std::to_string(t.predicated_off_instructions) + "," +
        std::to_string(t.reconvergence_instructions) + "," +
        std::to_string(t.bubble_instructions) + "," +
        std::to_string(t.loop_entry_instructions) + "," +
        std::to_string(t.selection_move_instructions) +
        StallColumns(t.stall_cycles) + "," + std::to_string(t.memory.requests) +
        "," + std::to_string(t.memory.sectors) + "," +
        std::to_string(t.memory.l1_hits) + "," +
        std::to_string(t.memory.l1_misses) + "," +
        std::to_string(t.memory.l2_hits) + "," +
        std::to_string(t.memory.l2_misses) + "," +
        std::to_string(t.memory.wavefronts) + "," +
        std::to_string(t.memory.shared_requests) + "," +
        std::to_string(t.memory.shared_wavefronts) + "," +
        std::to_string(t.memory.translation_misses) + "\n";
  };
  // API order: draws and dispatches interleave in the run; their first
  // cycles order them.
  std::vector<std::tuple<uint64_t, const char*, size_t, const std::string*,
                         const sm::RunTiming*>>
      runs;
  for (size_t i = 0; i < report.draws.size(); ++i) {
    const auto& d = report.draws[i];
    if (d.timing) {
      runs.emplace_back(d.timing->begin, "draw", i, &d.pipeline, &*d.timing);
    }
  }
  for (size_t i = 0; i < report.dispatches.size(); ++i) {
    const auto& d = report.dispatches[i];
    if (d.timing) {
      runs.emplace_back(d.timing->begin, "dispatch", i, &d.pipeline,
                        &*d.timing);
    }
  }
  std::stable_sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) {
    return std::get<0>(a) < std::get<0>(b);
  });
  for (const auto& [begin, kind, i, pipeline, t] : runs) {
    row(kind, i, *pipeline, *t);
  }
  return out;
}

}  // namespace warpsim::runner
