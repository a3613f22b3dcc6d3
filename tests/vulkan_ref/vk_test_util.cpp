#include "vulkan_ref/vk_test_util.h"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "scene/amber_parser.h"
#include "vulkan_ref/device.h"

namespace warpsim::vkref::testing {

bool HaveLavapipe() {
  static const bool have = [] {
    auto devices = ListDevices();
    if (!devices.ok()) return false;
    for (const DeviceInfo& d : *devices) {
      if (d.is_cpu) return true;
    }
    return false;
  }();
  if (have) return true;
  const char* ci = std::getenv("CI");
  if (ci != nullptr && std::string(ci) == "true") {
    FAIL(
        "no lavapipe Vulkan device, but CI=true (tools/setup.sh installs "
        "mesa-vulkan-drivers)");
  }
  WARN("skipped: no lavapipe Vulkan device (install mesa-vulkan-drivers)");
  return false;
}

DeviceRunReport RunText(const std::string& amber, uint32_t repeat) {
  VkRunOptions options;
  options.device = "lavapipe";
  options.repeat = repeat;
  auto scene = scene::ParseSceneText(amber, "inline.amber");
  if (!scene.ok()) {
    DeviceRunReport r;
    r.run.status = runner::RunStatusFor(scene.error().kind);
    r.run.diagnostic = scene.error();
    return r;
  }
  return RunSceneOnDevice(*scene, options);
}

std::string Describe(const DeviceRunReport& report) {
  std::string s = runner::RunStatusName(report.run.status);
  if (report.run.diagnostic) s += ": " + report.run.diagnostic->ToString();
  for (const auto& e : report.run.expectations) {
    if (!e.passed) s += "; line " + std::to_string(e.line) + ": " + e.message;
  }
  return s;
}

}  // namespace warpsim::vkref::testing
