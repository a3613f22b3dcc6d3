// resources.cpp: image extents as the emulator lays images out, and a
// depth/stencil round trip through the device.
#include "vulkan_ref/resources.h"

#include <catch2/catch.hpp>

#include "vulkan_ref/vk_test_util.h"

namespace warpsim::vkref {
namespace {

TEST_CASE("ImageExtent follows the emulator's layout rules", "[vkref]") {
  scene::Buffer b;
  b.width = 8;
  b.height = 4;
  b.depth = 3;
  b.dim = scene::ImageDim::k2D;
  uint32_t w, h, d, layers;
  VkImageType type;
  ImageExtent(b, &w, &h, &d, &layers, &type);
  CHECK((w == 8 && h == 4 && d == 1 && layers == 3));
  CHECK(type == VK_IMAGE_TYPE_2D);
  b.dim = scene::ImageDim::k3D;
  ImageExtent(b, &w, &h, &d, &layers, &type);
  CHECK((d == 3 && layers == 1 && type == VK_IMAGE_TYPE_3D));
  b.dim = scene::ImageDim::k1D;
  ImageExtent(b, &w, &h, &d, &layers, &type);
  CHECK((h == 1 && layers == 4 && type == VK_IMAGE_TYPE_1D));
}

TEST_CASE("Depth and stencil survive the device round trip", "[vkref]") {
  if (!testing::HaveLavapipe()) return;
  // CLEAR writes depth 0.25 and stencil 7 on the device; the host copy
  // merges both aspects back into the D32_SFLOAT_S8_UINT texels.
  const DeviceRunReport r = testing::RunText(R"(#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 430
layout(location = 0) out vec4 c;
void main() { c = vec4(1); }
END
BUFFER frame FORMAT R8G8B8A8_UNORM
BUFFER ds FORMAT D32_SFLOAT_S8_UINT
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  BIND BUFFER frame AS color LOCATION 0
  BIND BUFFER ds AS depth_stencil
  FRAMEBUFFER_SIZE 4 4
END
CLEAR_DEPTH p 0.25
CLEAR_STENCIL p 7
CLEAR p
EXPECT ds IDX 0 EQ 0.25 7
EXPECT ds IDX 75 EQ 0.25 7
)");
  INFO(testing::Describe(r));
  CHECK(r.run.status == runner::RunStatus::kPass);
}

}  // namespace
}  // namespace warpsim::vkref
