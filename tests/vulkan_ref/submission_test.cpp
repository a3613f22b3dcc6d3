// submission.cpp: --repeat starts every run from the same inputs (so
// read-modify-write shaders give one run's result), and indexed draws.
#include "vulkan_ref/submission.h"

#include <catch2/catch.hpp>

#include "vulkan_ref/vk_test_util.h"

namespace warpsim::vkref {
namespace {

TEST_CASE("Repeats do not accumulate", "[vkref]") {
  if (!testing::HaveLavapipe()) return;
  const DeviceRunReport r = testing::RunText(R"(#!amber
SHADER compute cs GLSL
#version 430
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() { b.v[0] += 1u; }
END
BUFFER buf DATA_TYPE uint32 DATA 5 END
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
EXPECT buf IDX 0 EQ 6
)",
                                             4);
  INFO(testing::Describe(r));
  CHECK(r.run.status == runner::RunStatus::kPass);
  REQUIRE(r.dispatches.size() == 1);
  CHECK(r.dispatches[0].gpu_ns.size() == 4);
}

TEST_CASE("Indexed draws reuse vertices", "[vkref]") {
  if (!testing::HaveLavapipe()) return;
  const DeviceRunReport r = testing::RunText(R"(#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 430
layout(location = 0) out vec4 c;
void main() { c = vec4(0, 0, 1, 1); }
END
BUFFER pos DATA_TYPE vec2<float> DATA
-1 -1   1 -1   -1 1   1 1
END
BUFFER idx DATA_TYPE uint16 DATA 0 1 2 2 1 3 END
BUFFER frame FORMAT R8G8B8A8_UNORM
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  VERTEX_DATA pos LOCATION 0
  INDEX_DATA idx
  BIND BUFFER frame AS color LOCATION 0
  FRAMEBUFFER_SIZE 8 8
END
RUN p DRAW_ARRAY AS TRIANGLE_LIST INDEXED
EXPECT frame IDX 0 0 SIZE 8 8 EQ_RGBA 0 0 255 255
)");
  INFO(testing::Describe(r));
  CHECK(r.run.status == runner::RunStatus::kPass);
  REQUIRE(r.draws.size() == 1);
  CHECK(r.draws[0].statistics.at("input_assembly_vertices") == 6);
  CHECK(r.draws[0].statistics.at("primitives_in") == 2);
}

}  // namespace
}  // namespace warpsim::vkref
