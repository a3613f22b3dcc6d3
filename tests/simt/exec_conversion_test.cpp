// Conversions (exec_conversion.cpp): float -> 32-bit signed integer
// saturates like NVIDIA's F2I (NaN gives 0), on a full warp (the vector
// handler) and on a diverged one.
#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>

#include "common/test_util.h"

namespace {

std::string Words(const uint32_t (&v)[32]) {
  std::string s;
  for (uint32_t x : v) s += " " + std::to_string(x);
  return s;
}

}  // namespace

TEST_CASE("float to int conversion saturates on every lane of a warp",
          "[simt][conversion]") {
  const float kInf = std::numeric_limits<float>::infinity();
  const float kNan = std::numeric_limits<float>::quiet_NaN();
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  const int32_t kMax = std::numeric_limits<int32_t>::max();
  // (input, saturated truncation)
  const std::pair<float, int32_t> cases[32] = {
      {kNan, 0},
      {-kNan, 0},
      {kInf, kMax},
      {-kInf, kMin},
      {3e9f, kMax},
      {-3e9f, kMin},
      {2147483648.0f, kMax},
      {-2147483648.0f, kMin},
      {2147483520.0f, 2147483520},
      {-2147483520.0f, -2147483520},
      {1.5f, 1},
      {-1.5f, -1},
      {-0.5f, 0},
      {0.999f, 0},
      {1e-30f, 0},
      {-0.0f, 0},
      {0.0f, 0},
      {123456.75f, 123456},
      {-123456.75f, -123456},
      {16777217.0f, 16777216},
      {std::numeric_limits<float>::max(), kMax},
      {-std::numeric_limits<float>::max(), kMin},
      {std::numeric_limits<float>::denorm_min(), 0},
      {7.0f, 7},
      {-7.0f, -7},
      {100.25f, 100},
      {65535.9f, 65535},
      {-65535.9f, -65535},
      {2.5f, 2},
      {-2.5f, -2},
      {1e10f, kMax},
      {-1e10f, kMin}};
  uint32_t in[32], all[32], odd[32];
  for (int i = 0; i < 32; ++i) {
    in[i] = std::bit_cast<uint32_t>(cases[i].first);
    all[i] = static_cast<uint32_t>(cases[i].second);
    odd[i] = i % 2 == 1 ? all[i] : 77u;  // even lanes keep 77
  }
  for (const bool diverged : {false, true}) {
    INFO((diverged ? "odd lanes" : "every lane"));
    const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { uint v[]; } a;
layout(set = 0, binding = 1) buffer D { int v[]; } d;
void main() {
  uint i = gl_LocalInvocationID.x;
  int r = 77;
  if ()" + std::string(diverged ? "(i & 1u) == 1u" : "true") +
                              R"() r = int(uintBitsToFloat(a.v[i]));
  d.v[i] = r;
}
END
BUFFER a DATA_TYPE uint32 DATA)" +
                              Words(in) +
                              R"(
END
BUFFER d DATA_TYPE uint32 SIZE 32 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER a AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER d AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 1 1 1
EXPECT d IDX 0 EQ)" + Words(diverged ? odd : all) +
                              "\n";
    const auto report = warpsim::testing::RunAmberText(amber);
    INFO(warpsim::testing::Describe(report));
    CHECK(report.status == warpsim::runner::RunStatus::kPass);
  }
}
