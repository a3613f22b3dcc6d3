// Subgroup operations (exec_subgroup.cpp): votes, ballots, broadcasts,
// shuffles, reductions/scans, clustered and quad operations.
//
// Most tests are self-checking shaders: every invocation computes, with a
// plain loop over the lanes of its subgroup, what the subgroup operation must
// return (knowing which lanes are active from the same condition that made
// them diverge), and writes a bit mask of the checks that failed. The same
// shader then runs at several warp widths, with divergence and with a partial
// last warp; the expected buffer is all zeros.
#include <catch2/catch.hpp>
#include <string>

#include "common/test_util.h"

using warpsim::runner::RunStatus;
using warpsim::testing::Describe;
using warpsim::testing::RunAmberText;

namespace {

constexpr const char* kExtensions = R"(#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_quad : require
)";

// Builds a self-checking compute script: `n` invocations in one workgroup;
// `helpers` are GLSL functions (they may use the constant N), `body` sets
// bits of `err` for invocation `i`. In scope: i (local index), sid
// (subgroup invocation id), base (local index of lane 0 of this subgroup),
// end (one past the last existing invocation of this subgroup).
std::string SelfCheck(const std::string& extra_ext, const std::string& helpers,
                      const std::string& body, uint32_t n) {
  std::string zeros;
  for (uint32_t k = 0; k < n; ++k) zeros += " 0";
  const std::string ns = std::to_string(n);
  return "#!amber\nSHADER compute cs GLSL\n" + std::string(kExtensions) +
         extra_ext + "layout(local_size_x = " + ns +
         ") in;\n"
         "layout(set = 0, binding = 0) buffer B { uint v[]; } b;\n"
         "const uint N = " +
         ns + "u;\n" + helpers +
         "\nvoid main() {\n"
         "  uint i = gl_LocalInvocationID.x;\n"
         "  uint sid = gl_SubgroupInvocationID;\n"
         "  uint base = i - sid;\n"
         "  uint end = min(base + gl_SubgroupSize, N);\n"
         "  uint err = 0u;\n" +
         body +
         "\n  b.v[i] = err;\n}\nEND\n"
         "BUFFER buf DATA_TYPE uint32 SIZE " +
         ns +
         " FILL 7\n"
         "PIPELINE compute p\n  ATTACH cs\n"
         "  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n"
         "RUN p 1 1 1\nEXPECT buf IDX 0 EQ" +
         zeros + "\n";
}

// Runs a self-checking script at several warp widths.
void CheckAtWidths(const std::string& amber) {
  for (uint32_t width : {32u, 16u, 8u}) {
    const auto report = RunAmberText(amber, width);
    INFO("warp width " << width << ": " << Describe(report));
    CHECK(report.status == RunStatus::kPass);
  }
}

// Shared helpers: a pseudo-random value per invocation and the divergence
// condition (which invocations take part).
constexpr const char* kHelpers = R"(
uint F(uint j) { return (j * 2654435761u) >> 20; }
bool On(uint j) { return j < N && (j % 5u) != 3u; }
bool P(uint j) { return ((j * 7u) % 5u) < 2u; }
uint ActiveMask(uint base, uint end) {
  uint m = 0u;
  for (uint j = base; j < end; ++j) if (On(j)) m |= 1u << (j - base);
  return m;
}
)";

}  // namespace

TEST_CASE("votes, elect and ballots under divergence", "[simt][subgroup]") {
  const std::string body = R"(
  if (On(i)) {
    uint act = ActiveMask(base, end);
    uint ref = 0u;
    for (uint j = base; j < end; ++j)
      if (On(j) && P(j)) ref |= 1u << (j - base);
    uvec4 bal = subgroupBallot(P(i));
    if (bal != uvec4(ref, 0u, 0u, 0u)) err |= 1u;
    if (subgroupElect() != (sid == uint(findLSB(act)))) err |= 2u;
    if (subgroupAll(P(i)) != (ref == act)) err |= 4u;
    if (subgroupAny(P(i)) != (ref != 0u)) err |= 8u;
    if (!subgroupAllEqual(base)) err |= 16u;
    if (subgroupAllEqual(i) != (bitCount(act) == 1)) err |= 32u;
    if (subgroupInverseBallot(bal) != P(i)) err |= 64u;
    if (subgroupBallotBitExtract(bal, sid) != P(i)) err |= 128u;
    if (subgroupBallotBitExtract(bal, 40u)) err |= 256u;
    if (subgroupBallotBitCount(bal) != uint(bitCount(ref))) err |= 512u;
    if (subgroupBallotInclusiveBitCount(bal) !=
        uint(bitCount(ref & ((2u << sid) - 1u)))) err |= 1024u;
    if (subgroupBallotExclusiveBitCount(bal) !=
        uint(bitCount(ref & ((1u << sid) - 1u)))) err |= 2048u;
    if (ref != 0u && subgroupBallotFindLSB(bal) != uint(findLSB(ref)))
      err |= 4096u;
    if (ref != 0u && subgroupBallotFindMSB(bal) != uint(findMSB(ref)))
      err |= 8192u;
    if (subgroupBallot(true).x != act) err |= 16384u;
    // A vector AllEqual needs every component equal.
    if (subgroupAllEqual(uvec2(base, i)) != (bitCount(act) == 1)) err |= 32768u;
    if (!subgroupAllEqual(vec2(1.5, float(base)))) err |= 65536u;
  }
)";
  CheckAtWidths(SelfCheck("", kHelpers, body, 40));
}

TEST_CASE("broadcasts and shuffles read only active lanes",
          "[simt][subgroup]") {
  const std::string body = R"(
  if (On(i)) {
    uint x = F(i);
    uint first = base + uint(findLSB(ActiveMask(base, end)));
    // What lane `j` (a local index) contributes: 0 if it is not active.
    #define AT(j) ((j) >= base && (j) < end && On(j) ? F(j) : 0u)
    if (subgroupBroadcastFirst(x) != F(first)) err |= 1u;
    if (subgroupBroadcast(x, 2u) != AT(base + 2u)) err |= 2u;
    uint k = (i * 13u) % gl_SubgroupSize;
    if (subgroupShuffle(x, k) != AT(base + k)) err |= 4u;
    if (subgroupShuffleXor(x, 1u) != AT(base + (sid ^ 1u))) err |= 8u;
    if (subgroupShuffleXor(x, 6u) != AT(base + (sid ^ 6u))) err |= 16u;
    if (subgroupShuffleUp(x, 3u) != (sid >= 3u ? AT(i - 3u) : 0u)) err |= 32u;
    if (subgroupShuffleDown(x, 2u) !=
        (sid + 2u < gl_SubgroupSize ? AT(i + 2u) : 0u)) err |= 64u;
    // Vectors and doubles move component-wise (64-bit: two registers).
    uvec3 v3 = uvec3(x, x + 1u, i);
    uvec3 s3 = subgroupShuffleXor(v3, 1u);
    uint o = base + (sid ^ 1u);
    if (AT(o) != 0u && s3 != uvec3(F(o), F(o) + 1u, o)) err |= 128u;
    dvec2 d = dvec2(double(x) * 0.5, -double(i));
    dvec2 dd = subgroupShuffleUp(d, 1u);
    if (sid >= 1u && On(i - 1u) &&
        dd != dvec2(double(F(i - 1u)) * 0.5, -double(i - 1u))) err |= 256u;
    if (subgroupBroadcastFirst(d) != dvec2(double(F(first)) * 0.5,
                                           -double(first))) err |= 512u;
    #undef AT
  }
)";
  CheckAtWidths(SelfCheck("", kHelpers, body, 40));
}

TEST_CASE("reductions and scans on integers, floats and bools",
          "[simt][subgroup]") {
  const std::string body = R"(
  if (On(i)) {
    uint x = F(i);
    int s = int(F(i)) - 2048;
    float f = float(F(i)) * 0.25 - 100.0;
    float g = (i % 3u) == 0u ? 2.0 : ((i % 3u) == 1u ? 0.5 : 1.0);
    bool p = P(i);
    uint add = 0u, mul = 1u, umin = ~0u, umax = 0u, band = ~0u, bor = 0u,
         bxor = 0u, inc = 0u, exc = 0u, incmax = 0u, excor = 0u;
    int smin = 0x7fffffff, smax = -0x7fffffff - 1;
    float fadd = 0.0, fmul = 1.0, fmn = 1.0 / 0.0, fmx = -1.0 / 0.0,
          finc = 0.0, fexc = 0.0;
    bool land = true, lor = false, lxor = false, linc = true;
    for (uint j = base; j < end; ++j) {
      if (!On(j)) continue;
      uint y = F(j);
      int t = int(y) - 2048;
      float h = float(y) * 0.25 - 100.0;
      float m = (j % 3u) == 0u ? 2.0 : ((j % 3u) == 1u ? 0.5 : 1.0);
      add += y; mul *= y | 1u; umin = min(umin, y); umax = max(umax, y);
      band &= y; bor |= y; bxor ^= y;
      smin = min(smin, t); smax = max(smax, t);
      fadd += h; fmul *= m; fmn = min(fmn, h); fmx = max(fmx, h);
      land = land && P(j); lor = lor || P(j); lxor = lxor != P(j);
      if (j <= i) { inc += y; incmax = max(incmax, y); finc += h;
                    linc = linc && P(j); }
      if (j < i) { exc += y; excor |= y; fexc += h; }
    }
    if (subgroupAdd(x) != add) err |= 1u;
    if (subgroupMul(x | 1u) != mul) err |= 2u;
    if (subgroupMin(x) != umin) err |= 4u;
    if (subgroupMax(x) != umax) err |= 8u;
    if (subgroupAnd(x) != band) err |= 16u;
    if (subgroupOr(x) != bor) err |= 32u;
    if (subgroupXor(x) != bxor) err |= 64u;
    if (subgroupMin(s) != smin) err |= 128u;
    if (subgroupMax(s) != smax) err |= 256u;
    if (subgroupAdd(f) != fadd) err |= 512u;
    if (subgroupMul(g) != fmul) err |= 1024u;
    if (subgroupMin(f) != fmn) err |= 2048u;
    if (subgroupMax(f) != fmx) err |= 4096u;
    if (subgroupAnd(p) != land) err |= 8192u;
    if (subgroupOr(p) != lor) err |= 16384u;
    if (subgroupXor(p) != lxor) err |= 32768u;
    if (subgroupInclusiveAdd(x) != inc) err |= 65536u;
    if (subgroupExclusiveAdd(x) != exc) err |= 131072u;
    if (subgroupInclusiveMax(x) != incmax) err |= 262144u;
    if (subgroupExclusiveOr(x) != excor) err |= 524288u;
    if (subgroupInclusiveAdd(f) != finc) err |= 1048576u;
    if (subgroupExclusiveAdd(f) != fexc) err |= 2097152u;
    if (subgroupInclusiveAnd(p) != linc) err |= 4194304u;
    // Exclusive scans give the identity to the first active lane.
    if (base + uint(findLSB(ActiveMask(base, end))) == i &&
        (subgroupExclusiveMin(x) != ~0u || subgroupExclusiveMul(x) != 1u ||
         subgroupExclusiveMax(s) != -0x7fffffff - 1 ||
         subgroupExclusiveMin(f) != 1.0 / 0.0 ||
         subgroupExclusiveAnd(x) != ~0u)) err |= 8388608u;
    // Vectors reduce component-wise.
    if (subgroupAdd(uvec2(x, 1u)) != uvec2(add, uint(bitCount(ActiveMask(base, end)))))
      err |= 16777216u;
  }
)";
  CheckAtWidths(SelfCheck("", kHelpers, body, 40));
}

TEST_CASE("64-bit and double reductions", "[simt][subgroup]") {
  const std::string ext =
      R"(#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
)";
  const std::string body = R"(
  if (On(i)) {
    uint64_t x = uint64_t(F(i)) << 30;
    int64_t s = int64_t(F(i)) * -3000000000l;
    double d = double(F(i)) / 8.0;
    uint64_t add = 0ul, mx = 0ul, inc = 0ul;
    int64_t mn = 0x7fffffffffffffffl;
    double dadd = 0.0, dmin = 1.0e300;
    for (uint j = base; j < end; ++j) {
      if (!On(j)) continue;
      uint64_t y = uint64_t(F(j)) << 30;
      add += y; mx = max(mx, y); mn = min(mn, int64_t(F(j)) * -3000000000l);
      dadd += double(F(j)) / 8.0; dmin = min(dmin, double(F(j)) / 8.0);
      if (j <= i) inc += y;
    }
    if (subgroupAdd(x) != add) err |= 1u;
    if (subgroupMax(x) != mx) err |= 2u;
    if (subgroupMin(s) != mn) err |= 4u;
    if (subgroupInclusiveAdd(x) != inc) err |= 8u;
    if (subgroupAdd(d) != dadd) err |= 16u;
    if (subgroupMin(d) != dmin) err |= 32u;
    if (subgroupShuffleXor(x, 1u) != (On(base + (sid ^ 1u)) && base + (sid ^ 1u) < end
        ? uint64_t(F(base + (sid ^ 1u))) << 30 : 0ul)) err |= 64u;
  }
)";
  CheckAtWidths(SelfCheck(ext, kHelpers, body, 40));
}

TEST_CASE("clustered reductions", "[simt][subgroup]") {
  const std::string body = R"(
  if (On(i)) {
    uint x = F(i);
    for (uint c = 1u; c <= 8u; c *= 2u) {
      uint cb = base + (sid / c) * c;
      uint add = 0u, mx = 0u;
      float fmn = 1.0 / 0.0;
      for (uint j = cb; j < min(cb + c, end); ++j) {
        if (!On(j)) continue;
        add += F(j); mx = max(mx, F(j)); fmn = min(fmn, float(F(j)));
      }
      uint got_add = c == 1u ? subgroupClusteredAdd(x, 1u)
                   : c == 2u ? subgroupClusteredAdd(x, 2u)
                   : c == 4u ? subgroupClusteredAdd(x, 4u)
                             : subgroupClusteredAdd(x, 8u);
      if (got_add != add) err |= 1u << c;
      if (c == 4u && subgroupClusteredMax(x, 4u) != mx) err |= 1u;
      if (c == 8u && subgroupClusteredMin(float(x), 8u) != fmn) err |= 1024u;
    }
  }
)";
  CheckAtWidths(SelfCheck("", kHelpers, body, 40));
}

TEST_CASE("quad broadcast and swaps read the quad members",
          "[simt][subgroup]") {
  // Quad operations read their quad's registers whatever the active mask:
  // inside the branch, lanes with i % 4 == 1 are inactive, but their x
  // (computed before the branch) is still read. Invocations that do not
  // exist (38, 39) read as 0.
  const std::string body = R"(
  uint x = F(i) + 1u;
  vec2 xv = vec2(float(x), -float(i));
  #define Q(j) ((j) < N ? F(j) + 1u : 0u)
  if ((i % 4u) != 1u) {
    if (subgroupQuadBroadcast(x, 1u) != Q((i & ~3u) + 1u)) err |= 1u;
    if (subgroupQuadBroadcast(x, 3u) != Q((i & ~3u) + 3u)) err |= 2u;
    if (subgroupQuadSwapHorizontal(x) != Q(i ^ 1u)) err |= 4u;
    if (subgroupQuadSwapVertical(x) != Q(i ^ 2u)) err |= 8u;
    if (subgroupQuadSwapDiagonal(x) != Q(i ^ 3u)) err |= 16u;
    vec2 v = subgroupQuadSwapDiagonal(xv);
    if (v != vec2(float(Q(i ^ 3u)), (i ^ 3u) < N ? -float(i ^ 3u) : 0.0))
      err |= 32u;
  }
  #undef Q
)";
  CheckAtWidths(SelfCheck("", kHelpers, body, 38));
}

TEST_CASE("subgroup results at warp width 32 with a partial warp",
          "[simt][subgroup]") {
  // 40 invocations: a full warp (0..31) and a partial one (32..39).
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  b.v[i] = subgroupAdd(i);
  b.v[40u + i] = subgroupBallot(i % 3u == 0u).x;
  b.v[80u + i] = subgroupShuffleDown(i, 4u);
  b.v[120u + i] = gl_SubgroupSize;
  if (i % 3u == 1u) {
    b.v[160u + i] = subgroupBroadcastFirst(i) + (subgroupElect() ? 1000u : 0u);
  } else {
    b.v[160u + i] = subgroupBallot(true).x;
  }
}
END
BUFFER buf DATA_TYPE uint32 SIZE 200 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
EXPECT buf IDX 0 EQ 496 496 496
EXPECT buf IDX 124 EQ 496 284 284 284 284 284 284 284 284
EXPECT buf IDX 160 EQ 1227133513 1227133513
EXPECT buf IDX 284 EQ 1227133513 146 146 146 146 146 146 146 146
EXPECT buf IDX 320 EQ 4 5 6
EXPECT buf IDX 424 EQ 30 31 0 0 0 0 36 37 38 39 0 0 0
EXPECT buf IDX 480 EQ 32 32
EXPECT buf IDX 636 EQ 32 1840700269
EXPECT buf IDX 640 EQ 1840700269 1001 1840700269 1840700269 1
EXPECT buf IDX 764 EQ 1 219 219 1034 219 219 34 219 219
)";
  const auto report = RunAmberText(amber);
  INFO(Describe(report));
  CHECK(report.status == RunStatus::kPass);
}

TEST_CASE("SPV_KHR_shader_ballot and SPV_KHR_subgroup_vote opcodes",
          "[simt][subgroup]") {
  // GL_ARB_shader_ballot / GL_ARB_shader_group_vote compile to
  // OpSubgroupBallotKHR, OpSubgroupFirstInvocationKHR,
  // OpSubgroupReadInvocationKHR and OpSubgroup{Any,All,AllEqual}KHR. Lanes
  // with i % 4 == 2 are inactive (their entries stay 0).
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
#extension GL_ARB_shader_ballot : require
#extension GL_ARB_shader_group_vote : require
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  if (i % 4u != 2u) {
    uint64_t bal = ballotARB(i % 3u == 0u);
    b.v[i] = uint(bal);
    b.v[40u + i] = uint(bal >> 32);
    b.v[80u + i] = readFirstInvocationARB(i * 2u);
    b.v[120u + i] = readInvocationARB(i * 3u, 5u);
    b.v[160u + i] = (anyInvocationARB(i == 5u) ? 1u : 0u) +
                    (allInvocationsARB(i < 32u) ? 2u : 0u) +
                    (allInvocationsEqualARB(i / 32u == 0u) ? 4u : 0u);
  }
}
END
BUFFER buf DATA_TYPE uint32 SIZE 200 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
EXPECT buf IDX 112 EQ 153129481 153129481 0 153129481 146 146 0 146 146 146 0 146
EXPECT buf IDX 272 EQ 0 0 0 0 0 0 0 0 0 0 0 0
EXPECT buf IDX 432 EQ 0 0 0 0 64 64 0 64 64 64 0 64
EXPECT buf IDX 592 EQ 15 15 0 15 111 111 0 111 111 111 0 111
EXPECT buf IDX 752 EQ 7 7 0 7 4 4 0 4 4 4 0 4
)";
  const auto report = RunAmberText(amber);
  INFO(Describe(report));
  CHECK(report.status == RunStatus::kPass);
}

TEST_CASE("OpGroupNonUniformRotateKHR over the subgroup and in clusters",
          "[simt][subgroup]") {
  // Lane l reads lane (l + 3) mod 32, and within clusters of 4 lane
  // 4*(l/4) + ((l + 3) mod 4).
  const std::string amber = R"(#!amber
SHADER compute cs SPIRV-ASM TARGET_ENV spv1.3
               OpCapability Shader
               OpCapability GroupNonUniform
               OpCapability GroupNonUniformRotateKHR
               OpExtension "SPV_KHR_subgroup_rotate"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %lid
               OpExecutionMode %main LocalSize 32 1 1
               OpDecorate %lid BuiltIn LocalInvocationId
               OpDecorate %rt ArrayStride 4
               OpMemberDecorate %blk 0 Offset 0
               OpDecorate %blk Block
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
     %ptr_in = OpTypePointer Input %v3uint
        %lid = OpVariable %ptr_in Input
         %rt = OpTypeRuntimeArray %uint
        %blk = OpTypeStruct %rt
    %ptr_blk = OpTypePointer StorageBuffer %blk
        %buf = OpVariable %ptr_blk StorageBuffer
   %ptr_uint = OpTypePointer StorageBuffer %uint
     %uint_0 = OpConstant %uint 0
     %uint_3 = OpConstant %uint 3
     %uint_4 = OpConstant %uint 4
    %uint_32 = OpConstant %uint 32
   %subgroup = OpConstant %uint 3
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %id = OpLoad %v3uint %lid
          %x = OpCompositeExtract %uint %id 0
         %r1 = OpGroupNonUniformRotateKHR %uint %subgroup %x %uint_3
         %r2 = OpGroupNonUniformRotateKHR %uint %subgroup %x %uint_3 %uint_4
         %p1 = OpAccessChain %ptr_uint %buf %uint_0 %x
               OpStore %p1 %r1
        %x32 = OpIAdd %uint %x %uint_32
         %p2 = OpAccessChain %ptr_uint %buf %uint_0 %x32
               OpStore %p2 %r2
               OpReturn
               OpFunctionEnd
END
BUFFER buf DATA_TYPE uint32 SIZE 64 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
EXPECT buf IDX 0 EQ 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 0 1 2
EXPECT buf IDX 128 EQ 3 0 1 2 7 4 5 6 11 8 9 10 15 12 13 14 19 16 17 18 23 20 21 22 27 24 25 26 31 28 29 30
)";
  const auto report = RunAmberText(amber);
  INFO(Describe(report));
  CHECK(report.status == RunStatus::kPass);
}

TEST_CASE("subgroup operations outside the Subgroup scope are unsupported",
          "[simt][subgroup]") {
  // SPIR-V 1.3 outside Vulkan lets the Execution scope be Workgroup;
  // warpsim only runs subgroup-scope group operations.
  const std::string amber = R"(#!amber
SHADER compute cs SPIRV-ASM TARGET_ENV spv1.3
               OpCapability Shader
               OpCapability GroupNonUniformArithmetic
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 4 1 1
               OpDecorate %gid BuiltIn LocalInvocationId
               OpDecorate %rt ArrayStride 4
               OpMemberDecorate %blk 0 Offset 0
               OpDecorate %blk Block
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
      %v3uint = OpTypeVector %uint 3
     %ptr_in = OpTypePointer Input %v3uint
        %gid = OpVariable %ptr_in Input
         %rt = OpTypeRuntimeArray %uint
        %blk = OpTypeStruct %rt
    %ptr_blk = OpTypePointer StorageBuffer %blk
        %buf = OpVariable %ptr_blk StorageBuffer
   %ptr_uint = OpTypePointer StorageBuffer %uint
     %uint_0 = OpConstant %uint 0
     %uint_2 = OpConstant %uint 2
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %id = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %id 0
          %s = OpGroupNonUniformIAdd %uint %uint_2 Reduce %x
          %p = OpAccessChain %ptr_uint %buf %uint_0 %x
               OpStore %p %s
               OpReturn
               OpFunctionEnd
END
BUFFER buf DATA_TYPE uint32 SIZE 4 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
)";
  const auto report = RunAmberText(amber);
  INFO(Describe(report));
  REQUIRE(report.status == RunStatus::kUnsupported);
  REQUIRE(report.diagnostic.has_value());
  CHECK_THAT(report.diagnostic->message,
             Catch::Contains("OpGroupNonUniformIAdd with Workgroup scope"));
}
