// Barriers (exec_misc.cpp) and the workgroup scheduling of
// pipeline/compute.cpp.
#include <catch2/catch.hpp>

#include "common/test_util.h"

using warpsim::runner::RunStatus;
using warpsim::testing::Describe;
using warpsim::testing::RunAmberText;

TEST_CASE("a subgroup barrier does not release a workgroup barrier",
          "[simt][barrier]") {
  // Warp 1 executes subgroupBarrier() first; if that counted as a workgroup
  // barrier, warp 0 would pass its barrier() before warp 1 stored s[].
  const std::string amber = R"(#!amber
SHADER compute cs GLSL TARGET_ENV spv1.3
#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
shared uint s[64];
void main() {
  uint i = gl_LocalInvocationID.x;
  if (gl_SubgroupID == 1u) subgroupBarrier();
  s[i] = i + 1u;
  barrier();
  b.v[i] = s[63u - i];
}
END
BUFFER buf DATA_TYPE uint32 SIZE 64 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
EXPECT buf IDX 0 EQ 64 63 62
EXPECT buf IDX 252 EQ 1
)";
  const auto report = RunAmberText(amber);
  INFO(Describe(report));
  CHECK(report.status == RunStatus::kPass);
}

TEST_CASE("barriers order workgroup memory across partial warps",
          "[simt][barrier]") {
  // 40 invocations: one full warp and one of 8 lanes (at width 32), or five
  // warps at width 8. Each invocation reads a neighbour's value after the
  // barrier.
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
shared uint s[40];
void main() {
  uint i = gl_LocalInvocationID.x;
  s[i] = i * i;
  barrier();
  b.v[gl_WorkGroupID.x * 40u + i] = s[(i + 1u) % 40u] + gl_WorkGroupID.x;
}
END
BUFFER buf DATA_TYPE uint32 SIZE 80 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 2 1 1
EXPECT buf IDX 0 EQ 1 4 9
EXPECT buf IDX 156 EQ 0 2 5
)";
  for (uint32_t width : {32u, 8u}) {
    const auto report = RunAmberText(amber, width);
    INFO("width " << width << ": " << Describe(report));
    CHECK(report.status == RunStatus::kPass);
    CHECK(report.stats.warps == (width == 32 ? 4u : 10u));
  }
}
