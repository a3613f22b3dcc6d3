#include "vulkan_ref/report.h"

#include <nlohmann/json.hpp>

namespace warpsim::vkref {

std::string DeviceLine(const DeviceInfo& info) {
  std::string line = info.name + " (";
  if (!info.driver_info.empty()) {
    line += "driver " + info.driver_name + " " + info.driver_info + ", ";
  }
  return line + "version " + info.driver_version + ", Vulkan " +
         info.api_version + ")";
}

namespace {

nlohmann::json Histogram(const std::map<uint32_t, uint64_t>& h) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, n] : h) j[std::to_string(k)] = n;
  return j;
}

nlohmann::json StageJson(const StageObservation& s, uint32_t stage) {
  nlohmann::json j = {{"invocations", s.invocations}};
  if (s.timed_warps != 0) {
    j["timed_warps"] = s.timed_warps;
    j["mean_warp_cycles"] = s.mean_warp_cycles;
    j["max_live_warps_per_sm"] = s.max_live_warps_per_sm;
  }
  if (s.flags & kObsFlagSubgroup) {
    j["warps"] = s.warps;
    j["ballot_lanes_histogram"] = Histogram(s.ballot_lanes_histogram);
  }
  if (s.flags & kObsFlagSm) {
    j["sms"] = s.sms;
    j["sm_warp_slots"] = s.sm_warp_slots;
    j["max_warp_slot"] = s.max_warp_slot;
  }
  if (stage == kObsFlagVertex) {
    j["distinct_vertices"] = s.distinct_vertices;
    return j;
  }
  if (stage == kObsFlagCompute) {
    j["workgroups"] = s.workgroups;
    return j;
  }
  if (s.flags & kObsFlagSubgroup) {
    j["quads"] = s.quads;
    j["quads_per_warp_histogram"] = Histogram(s.quads_per_warp_histogram);
    j["quad_lane_layout_matches"] = s.quad_lane_layout_matches;
    j["footprint"] = {{"mean_width", s.mean_footprint_width},
                      {"mean_height", s.mean_footprint_height},
                      {"max_width", s.max_footprint_width},
                      {"max_height", s.max_footprint_height}};
    if (s.flags & kObsFlagQuad) {
      j["helper_lanes"] = s.helper_lanes;
      j["warps_ballot_without_helpers"] = s.ballot_without_helpers;
      j["warps_ballot_with_helpers"] = s.ballot_with_helpers;
    }
    if (s.flags & kObsFlagPrimitive) {
      j["primitives_per_warp_histogram"] =
          Histogram(s.primitives_per_warp_histogram);
    }
  }
  if (!s.tile_single_sm_share.empty()) {
    nlohmann::json t = nlohmann::json::object();
    for (const auto& [side, share] : s.tile_single_sm_share)
      t[std::to_string(side)] = share;
    j["tile_single_sm_share"] = t;
  }
  return j;
}

nlohmann::json ObservationJson(const DrawObservation& o) {
  return {{"records", o.records.size() / kObserveRecordWords},
          {"taken", o.taken},
          {"truncated", o.truncated()},
          {"vertex", StageJson(o.vertex, kObsFlagVertex)},
          {"fragment", StageJson(o.fragment, kObsFlagFragment)},
          {"compute", StageJson(o.compute, kObsFlagCompute)},
          {"sms_with_both_stages", o.sms_with_both_stages},
          {"sms_with_overlapping_stages", o.sms_with_overlapping_stages},
          {"max_live_warps_per_sm", o.max_live_warps_per_sm}};
}

}  // namespace

std::string DeviceReportToJson(const DeviceRunReport& report) {
  const runner::RunReport& run = report.run;
  nlohmann::json j;
  j["file"] = run.file;
  j["result"] = runner::RunStatusName(run.status);
  j["exit_code"] = runner::ExitCodeFor(run.status);
  if (report.device_known) {
    const DeviceInfo& d = report.device;
    j["device"] = {{"index", d.index},
                   {"name", d.name},
                   {"type", d.type},
                   {"vendor_id", d.vendor_id},
                   {"device_id", d.device_id},
                   {"driver_id", d.driver_id},
                   {"driver_name", d.driver_name},
                   {"driver_info", d.driver_info},
                   {"driver_version", d.driver_version},
                   {"api_version", d.api_version}};
    if (d.shader_sm_count != 0) {
      j["device"]["shader_sm_count"] = d.shader_sm_count;
      j["device"]["shader_warps_per_sm"] = d.shader_warps_per_sm;
    }
  }
  j["buffer_memory"] = {{"device_local", report.device_local_buffers},
                        {"host", report.host_buffers}};
  nlohmann::json exps = nlohmann::json::array();
  for (const auto& e : run.expectations) {
    exps.push_back(
        {{"line", e.line}, {"passed", e.passed}, {"message", e.message}});
  }
  j["expectations"] = exps;
  nlohmann::json pipes = nlohmann::json::array();
  for (const auto& p : report.pipelines) {
    nlohmann::json e = {{"name", p.name},
                        {"stage", p.stage},
                        {"shader", p.shader},
                        {"entry_point", p.entry_point},
                        {"spirv", p.legalized ? "legalized" : "as_written"}};
    if (!p.executable_name.empty()) {
      e["executable"] = p.executable_name;
      e["subgroup_size"] = p.subgroup_size;
      nlohmann::json stats = nlohmann::json::object();
      for (const auto& s : p.statistics) {
        std::visit([&](const auto& v) { stats[s.name] = v; }, s.value);
      }
      e["executable_statistics"] = stats;
    }
    pipes.push_back(e);
  }
  j["pipelines"] = pipes;
  auto work = [&](const DeviceDrawReport& d) {
    nlohmann::json e = {{"pipeline", d.pipeline}, {"line", d.line}};
    for (const auto& [name, value] : d.statistics) e[name] = value;
    if (!d.gpu_ns.empty()) {
      e["gpu_time_ns"] = d.median_gpu_ns();
      e["gpu_times_ns"] = d.gpu_ns;
    }
    if (d.observation) e["observe"] = ObservationJson(*d.observation);
    return e;
  };
  nlohmann::json draws = nlohmann::json::array();
  for (const auto& d : report.draws) draws.push_back(work(d));
  j["draws"] = draws;
  nlohmann::json dispatches = nlohmann::json::array();
  for (const auto& d : report.dispatches) dispatches.push_back(work(d));
  j["dispatches"] = dispatches;
  j["stats"] = {{"dispatches", run.stats.dispatches},
                {"workgroups", run.stats.workgroups},
                {"host_seconds", run.stats.host_seconds},
                {"shader_cache_hits", run.stats.shader_cache_hits},
                {"shader_cache_misses", run.stats.shader_cache_misses},
                {"repeat", report.repeat}};
  if (run.diagnostic) {
    const char* kind = "invalid_input";
    if (run.status == runner::RunStatus::kUnsupported) kind = "unsupported";
    if (run.status == runner::RunStatus::kLimitExceeded)
      kind = "limit_exceeded";
    j["diagnostic"] = {{"kind", kind},
                       {"file", run.diagnostic->pos.file},
                       {"line", run.diagnostic->pos.line},
                       {"word", run.diagnostic->pos.word},
                       {"opcode", run.diagnostic->pos.opcode},
                       {"message", run.diagnostic->message},
                       {"text", run.diagnostic->ToString()}};
  }
  // Names and messages come from the input as bytes (see runner.cpp).
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace warpsim::vkref
