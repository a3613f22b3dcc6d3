// report.cpp: the JSON shape shared with `warpsim run --json`.
#include "vulkan_ref/report.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace warpsim::vkref {
namespace {

TEST_CASE("The report has warpsim run's keys plus the device's", "[vkref]") {
  DeviceRunReport r;
  r.run.file = "x.amber";
  r.run.status = runner::RunStatus::kFail;
  r.run.expectations.push_back({7, false, "probe failed"});
  r.device_known = true;
  r.device.name = "llvmpipe";
  r.device.driver_version = "0.0.1";
  DevicePipelineReport p;
  p.name = "p";
  p.stage = "fragment";
  p.executable_name = "fragment shader";
  p.statistics.push_back({"Registers", "", uint64_t{12}});
  r.pipelines.push_back(p);
  DeviceDrawReport d;
  d.pipeline = "p";
  d.statistics["fs_invocations"] = 64;
  d.gpu_ns = {30, 10, 20};
  r.draws.push_back(d);
  const nlohmann::json j = nlohmann::json::parse(DeviceReportToJson(r));
  CHECK(j["file"] == "x.amber");
  CHECK(j["result"] == "fail");
  CHECK(j["exit_code"] == 1);
  CHECK(j["expectations"][0]["line"] == 7);
  CHECK(j["device"]["name"] == "llvmpipe");
  CHECK(j["pipelines"][0]["executable_statistics"]["Registers"] == 12);
  CHECK(j["pipelines"][0]["spirv"] == "legalized");
  CHECK(j["draws"][0]["fs_invocations"] == 64);
  CHECK(j["draws"][0]["gpu_time_ns"] == 20);
  CHECK_FALSE(j["draws"][0].contains("vs_invocations"));
  CHECK(j["dispatches"].empty());
  CHECK(j["stats"].contains("host_seconds"));
  CHECK_FALSE(j.contains("diagnostic"));
}

TEST_CASE("Median GPU time of an even number of repeats", "[vkref]") {
  DeviceDrawReport d;
  CHECK(d.median_gpu_ns() == 0);
  d.gpu_ns = {4, 1, 3, 2};
  CHECK(d.median_gpu_ns() == 2.5);
}

TEST_CASE("The device's SM built-in counts are reported when it has them",
          "[vkref]") {
  DeviceRunReport r;
  r.run.file = "x.amber";
  r.device_known = true;
  r.device.name = "llvmpipe";
  const nlohmann::json without = nlohmann::json::parse(DeviceReportToJson(r));
  CHECK_FALSE(without["device"].contains("shader_sm_count"));
  r.device.name = "NVIDIA";
  r.device.shader_sm_count = 7;
  r.device.shader_warps_per_sm = 9;
  const nlohmann::json with = nlohmann::json::parse(DeviceReportToJson(r));
  CHECK(with["device"]["shader_sm_count"] == 7);
  CHECK(with["device"]["shader_warps_per_sm"] == 9);
}

}  // namespace
}  // namespace warpsim::vkref
