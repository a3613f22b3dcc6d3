// device.cpp: --device selection, driver version decoding, and that a
// scene's unmet requirement is Unsupported by name.
#include "vulkan_ref/device.h"

#include <catch2/catch.hpp>

#include "scene/amber_parser.h"
#include "vulkan_ref/vk_test_util.h"

namespace warpsim::vkref {
namespace {

std::vector<DeviceInfo> Devices() {
  DeviceInfo cpu;
  cpu.index = 0;
  cpu.name = "llvmpipe";
  cpu.type = "cpu";
  cpu.vendor_id = 0x10005;
  cpu.is_cpu = true;
  DeviceInfo gpu;
  gpu.index = 1;
  gpu.name = "NVIDIA H200";
  gpu.type = "discrete_gpu";
  gpu.vendor_id = 0x10DE;
  return {cpu, gpu};
}

TEST_CASE("SelectDevice: default is the first discrete GPU", "[vkref]") {
  auto i = SelectDevice(Devices(), "");
  REQUIRE(i.ok());
  CHECK(*i == 1);
  auto only_cpu = SelectDevice({Devices()[0]}, "");
  REQUIRE(only_cpu.ok());
  CHECK(*only_cpu == 0);
}

TEST_CASE("SelectDevice: lavapipe, nvidia and indices", "[vkref]") {
  CHECK(*SelectDevice(Devices(), "lavapipe") == 0);
  CHECK(*SelectDevice(Devices(), "nvidia") == 1);
  CHECK(*SelectDevice(Devices(), "1") == 1);
  auto missing = SelectDevice({Devices()[0]}, "nvidia");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().kind == ErrorKind::kUnsupported);
  CHECK_THAT(missing.error().message, Catch::Contains("llvmpipe"));
  auto out_of_range = SelectDevice(Devices(), "7");
  REQUIRE_FALSE(out_of_range.ok());
  CHECK(out_of_range.error().kind == ErrorKind::kUnsupported);
  CHECK(SelectDevice(Devices(), "amd").error().kind ==
        ErrorKind::kInvalidInput);
  CHECK(SelectDevice({}, "").error().kind == ErrorKind::kUnsupported);
}

TEST_CASE("DriverVersionString decodes NVIDIA's and the standard packing",
          "[vkref]") {
  // 535.104.5.0 as NVIDIA packs it: 10.8.8.6 bits.
  const uint32_t nv = (535u << 22) | (104u << 14) | (5u << 6);
  CHECK(DriverVersionString(0x10DE, nv) == "535.104.5.0");
  CHECK(DriverVersionString(0x10005, VK_MAKE_API_VERSION(0, 22, 3, 6)) ==
        "22.3.6");
}

TEST_CASE("Device::Create names a missing feature", "[vkref]") {
  if (!testing::HaveLavapipe()) return;
  auto scene = scene::ParseSceneText(
      "DEVICE_FEATURE sparseResidencyAliased\n"
      "DEVICE_FEATURE NoSuchStruct.member\n",
      "x.amber");
  REQUIRE(scene.ok());
  auto d = Device::Create("lavapipe", *scene);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().kind == ErrorKind::kUnsupported);
  CHECK_THAT(d.error().message, Catch::Contains("sparseResidencyAliased"));
}

TEST_CASE("Device::Create on lavapipe offers statistics and timestamps",
          "[vkref]") {
  if (!testing::HaveLavapipe()) return;
  scene::Scene empty;
  auto d = Device::Create("lavapipe", empty);
  REQUIRE(d.ok());
  CHECK((*d)->info().is_cpu);
  CHECK((*d)->statistic_flags() != 0);
  CHECK((*d)->timestamp_valid_bits() > 0);
}

}  // namespace
}  // namespace warpsim::vkref
