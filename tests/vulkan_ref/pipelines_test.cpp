// pipelines.cpp: scene state names as Vulkan enums.
#include "vulkan_ref/pipelines.h"

#include <catch2/catch.hpp>

namespace warpsim::vkref {
namespace {

TEST_CASE("State names map to Vulkan enums", "[vkref]") {
  CHECK(*TopologyOf("triangle_strip") == VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP);
  CHECK(TopologyOf("patch_list").error().kind == ErrorKind::kUnsupported);
  CHECK(TopologyOf("spiral").error().kind == ErrorKind::kInvalidInput);
  CHECK(*CompareOpOf("greater_or_equal") == VK_COMPARE_OP_GREATER_OR_EQUAL);
  CHECK(*StencilOpOf("decrement_and_wrap") == VK_STENCIL_OP_DECREMENT_AND_WRAP);
  CHECK(*BlendFactorOf("one_minus_src_alpha") ==
        VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA);
  CHECK(*BlendFactorOf("src_alpha_saturate") ==
        VK_BLEND_FACTOR_SRC_ALPHA_SATURATE);
  CHECK(*BlendOpOf("reverse_subtract") == VK_BLEND_OP_REVERSE_SUBTRACT);
  CHECK(BlendOpOf("multiply").error().kind == ErrorKind::kUnsupported);
  CHECK(*CullModeOf("front_and_back") == VK_CULL_MODE_FRONT_AND_BACK);
  CHECK(*FrontFaceOf("clockwise") == VK_FRONT_FACE_CLOCKWISE);
  CHECK(*PolygonModeOf("line") == VK_POLYGON_MODE_LINE);
}

TEST_CASE("FixedFunctionOf: viewport defaults to the framebuffer", "[vkref]") {
  scene::Pipeline p;
  p.framebuffer_width = 32;
  p.framebuffer_height = 16;
  p.depth.test = true;
  p.depth.compare_op = "less";
  auto f = FixedFunctionOf(p);
  REQUIRE(f.ok());
  CHECK(f->viewport.width == 32);
  CHECK(f->viewport.height == 16);
  CHECK(f->scissor.extent.width == 32);
  CHECK(f->depth.depthTestEnable == VK_TRUE);
  CHECK(f->depth.depthCompareOp == VK_COMPARE_OP_LESS);
}

}  // namespace
}  // namespace warpsim::vkref
