// Reconvergence and divergent control flow (exec_control_flow.cpp, warp.h).
#include <catch2/catch.hpp>

#include "common/test_util.h"

using warpsim::runner::RunStatus;
using warpsim::testing::Describe;
using warpsim::testing::RunAmberText;

TEST_CASE("divergent if/else and per-lane loop trip counts", "[simt]") {
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint acc = 0u;
  if ((i & 1u) == 0u) {
    acc = 100u;
  } else {
    acc = 200u;
  }
  for (uint k = 0u; k < i % 7u; ++k) {
    if (k == 3u) continue;
    if (k == 5u) break;
    acc += k;
  }
  b.v[i] = acc;
}
END
BUFFER buf DATA_TYPE uint32 SIZE 64 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
EXPECT buf IDX 0 EQ 100 200 101 203 103 207 107 200 100 201 103 203 107 207
)";
  const auto report = RunAmberText(amber);
  INFO(Describe(report));
  CHECK(report.status == RunStatus::kPass);
}

TEST_CASE("switch with fall-through and early return", "[simt]") {
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer B { int v[]; } b;
void main() {
  int i = int(gl_LocalInvocationID.x);
  int r = 0;
  switch (i) {
    case 0: r += 1;
    case 1: r += 10; break;
    case 2: r += 100;
    default: r += 1000;
  }
  if (i == 7) { b.v[i] = -1; return; }
  b.v[i] = r;
}
END
BUFFER buf DATA_TYPE int32 SIZE 8 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
EXPECT buf IDX 0 EQ 11 10 1100 1000 1000 1000 1000 -1
)";
  const auto report = RunAmberText(amber);
  INFO(Describe(report));
  CHECK(report.status == RunStatus::kPass);
}
