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
