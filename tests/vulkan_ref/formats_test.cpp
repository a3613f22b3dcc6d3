// formats.cpp: scene formats as VkFormats.
#include "vulkan_ref/formats.h"

#include <catch2/catch.hpp>

namespace warpsim::vkref {
namespace {

TEST_CASE("Vulkan format names map both ways", "[vkref]") {
  CHECK(VkFormatByName("R8G8B8A8_UNORM") == VK_FORMAT_R8G8B8A8_UNORM);
  CHECK(VkFormatByName("D32_SFLOAT_S8_UINT") == VK_FORMAT_D32_SFLOAT_S8_UINT);
  CHECK_FALSE(VkFormatByName("BC1_RGB_UNORM_BLOCK").has_value());
  CHECK(VkFormatName(VK_FORMAT_B8G8R8A8_UNORM) == "B8G8R8A8_UNORM");
}

TEST_CASE("Data types become the matching format", "[vkref]") {
  auto vec3 = scene::LayoutDataType("vec3<float>", scene::Layout::kStd430, {});
  REQUIRE(vec3.ok());
  CHECK(*VkFormatOf(*vec3) == VK_FORMAT_R32G32B32_SFLOAT);
  auto i8 = scene::LayoutDataType("int8", scene::Layout::kStd430, {});
  REQUIRE(i8.ok());
  CHECK(*VkFormatOf(*i8) == VK_FORMAT_R8_SINT);
  auto mat = scene::LayoutDataType("mat2x2<float>", scene::Layout::kStd430, {});
  REQUIRE(mat.ok());
  CHECK(VkFormatOf(*mat).error().kind == ErrorKind::kUnsupported);
  auto unorm = scene::ParseVulkanFormat("R16G16_UNORM");
  REQUIRE(unorm.has_value());
  CHECK(*VkFormatOf(*unorm) == VK_FORMAT_R16G16_UNORM);
}

TEST_CASE("Depth/stencil aspects and copy sizes", "[vkref]") {
  CHECK(DepthStencilAspects(VK_FORMAT_R8G8B8A8_UNORM) == 0);
  CHECK(DepthStencilAspects(VK_FORMAT_D24_UNORM_S8_UINT) ==
        (VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT));
  CHECK(DepthCopyBytes(VK_FORMAT_D16_UNORM) == 2);
  CHECK(DepthCopyBytes(VK_FORMAT_D24_UNORM_S8_UINT) == 4);
  CHECK(DepthCopyBytes(VK_FORMAT_S8_UINT) == 0);
}

}  // namespace
}  // namespace warpsim::vkref
