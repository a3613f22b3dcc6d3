// pipeline_build.cpp: stages the runner does not drive are unsupported by
// name, and a pipeline entry per stage is reported.
#include <catch2/catch.hpp>

#include "vulkan_ref/pipelines.h"
#include "vulkan_ref/vk_test_util.h"

namespace warpsim::vkref {
namespace {

TEST_CASE("Geometry shaders are unsupported by warpsim-vkref", "[vkref]") {
  if (!testing::HaveLavapipe()) return;
  const DeviceRunReport r = testing::RunText(R"(#!amber
SHADER vertex vs PASSTHROUGH
SHADER geometry gs GLSL
#version 430
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
void main() {}
END
SHADER fragment fs GLSL
#version 430
layout(location = 0) out vec4 c;
void main() { c = vec4(1); }
END
BUFFER frame FORMAT R8G8B8A8_UNORM
PIPELINE graphics p
  ATTACH vs
  ATTACH gs
  ATTACH fs
  BIND BUFFER frame AS color LOCATION 0
END
RUN p DRAW_RECT POS 0 0 SIZE 10 10
)");
  CHECK(r.run.status == runner::RunStatus::kUnsupported);
  REQUIRE(r.run.diagnostic.has_value());
  CHECK_THAT(r.run.diagnostic->message, Catch::Contains("geometry"));
}

}  // namespace
}  // namespace warpsim::vkref
