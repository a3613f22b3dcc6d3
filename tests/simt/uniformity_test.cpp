// Tests of emulator/simt/uniformity.cpp: which conditions the lowering
// marks as shared by every lane of a warp (Program::uniform_branches), and
// that MarkPredicated gives such a selection no reconvergence barrier
// (Program::selection_branches). Each shader has one if (the selection
// under test) after whatever computes its condition.
#include <catch2/catch.hpp>
#include <string>
#include <utility>

#include "common/test_util.h"
#include "simt/program.h"

namespace warpsim::simt {
namespace {

Program Build(const std::string& decls, const std::string& body) {
  const std::string source =
      "#version 450\n"
      "#extension GL_KHR_shader_subgroup_basic : require\n"
      "#extension GL_KHR_shader_subgroup_vote : require\n"
      "#extension GL_KHR_shader_subgroup_arithmetic : require\n"
      "#extension GL_KHR_shader_subgroup_ballot : require\n"
      "layout(local_size_x = 64) in;\n"
      "layout(set = 0, binding = 0) buffer B { uint w[]; } b;\n"
      "layout(push_constant) uniform P { uint n; } pc;\n" +
      decls + "void main() {\n  uint g = gl_GlobalInvocationID.x;\n" + body +
      "}\n";
  auto program = testing::BuildComputeGlsl(source);
  INFO((program.ok() ? "" : program.error().ToString()));
  REQUIRE(program.ok());
  return std::move(*program);
}

// Whether the last selection header's conditional branch (the shader's
// last `if`) is marked uniform; checks that it gets a reconvergence
// barrier exactly when it is not.
bool LastIfUniform(const Program& p) {
  int found = -1;
  for (size_t h = 0; h < p.blocks.size(); ++h) {
    const BlockInfo& bi = p.blocks[h];
    if (bi.merge_block == kNoBlock || bi.continue_block != kNoBlock) continue;
    const uint32_t end = h + 1 < p.blocks.size()
                             ? p.blocks[h + 1].first_instr
                             : static_cast<uint32_t>(p.code.size());
    if (end == bi.first_instr) continue;
    if (p.code[end - 1].op != spv::Op::OpBranchConditional) continue;
    found = static_cast<int>(end - 1);
  }
  REQUIRE(found >= 0);
  const size_t pc = static_cast<size_t>(found);
  const bool uniform =
      pc < p.uniform_branches.size() && p.uniform_branches[pc] != 0;
  const bool barrier =
      pc < p.selection_branches.size() && p.selection_branches[pc] != 0;
  CHECK(barrier == !uniform);
  return uniform;
}

// The if under test, around a store the compiler cannot predicate away.
std::string If(const std::string& cond) {
  return "  if (" + cond + ") { b.w[g] = 7u; }\n";
}

TEST_CASE("a condition on the lane's own input diverges",
          "[simt][uniformity]") {
  CHECK_FALSE(LastIfUniform(Build("", If("g == 3u"))));
  CHECK_FALSE(LastIfUniform(Build("", If("gl_LocalInvocationID.x > 5u"))));
  CHECK_FALSE(LastIfUniform(Build("", If("gl_SubgroupInvocationID == 0u"))));
  // Loaded from an address that differs by lane.
  CHECK_FALSE(LastIfUniform(Build("", If("b.w[g] == 3u"))));
}

TEST_CASE("a condition every lane computes alike is uniform",
          "[simt][uniformity]") {
  // A buffer's word at one address, a push constant, a constant.
  CHECK(LastIfUniform(Build("", If("b.w[0] == 3u"))));
  CHECK(LastIfUniform(Build("", If("pc.n > 2u"))));
  CHECK(LastIfUniform(Build("", If("b.w[pc.n] + pc.n == 9u"))));
  // What one warp shares: its workgroup, its subgroup.
  CHECK(LastIfUniform(Build("", If("gl_WorkGroupID.x == 2u"))));
  CHECK(LastIfUniform(Build("", If("gl_SubgroupID == 1u"))));
  CHECK(LastIfUniform(Build("", If("gl_NumWorkGroups.y == 1u"))));
  // A loop's counter, its bound uniform: E32's `if (u + t == never)`.
  CHECK(LastIfUniform(Build("",
                            "  uint u = b.w[0];\n"
                            "  for (uint t = 0u; t < pc.n; ++t) {\n"
                            "  " +
                                If("u + t == 77u") + "  }\n")));
}

TEST_CASE("subgroup operations whose result the warp shares are uniform",
          "[simt][uniformity]") {
  CHECK(LastIfUniform(Build("", If("subgroupAny(g > 3u)"))));
  CHECK(LastIfUniform(Build("", If("subgroupAll(g > 3u)"))));
  CHECK(LastIfUniform(Build("", If("subgroupAdd(g) == 5u"))));
  CHECK(LastIfUniform(Build("", If("subgroupBroadcastFirst(g) == 5u"))));
  CHECK(LastIfUniform(Build("", If("subgroupBallot(g > 3u).x == 5u"))));
  // Different in each lane.
  CHECK_FALSE(LastIfUniform(Build("", If("subgroupElect()"))));
  CHECK_FALSE(LastIfUniform(Build("", If("subgroupInclusiveAdd(1u) == 5u"))));
  CHECK_FALSE(LastIfUniform(Build("", If("atomicAdd(b.w[0], 1u) == 5u"))));
}

TEST_CASE("values joined after a divergent branch diverge",
          "[simt][uniformity]") {
  // A phi where the sides of a divergent if join, though each side's value
  // is a constant.
  CHECK_FALSE(LastIfUniform(Build("",
                                  "  uint x = 0u;\n"
                                  "  if (g > 3u) { x = 1u; }\n" +
                                      If("x == 1u"))));
  // The same after a uniform if: uniform.
  CHECK(LastIfUniform(Build("",
                            "  uint x = 0u;\n"
                            "  if (pc.n > 3u) { x = 1u; }\n" +
                                If("x == 1u"))));
  // A select on a divergent condition.
  CHECK_FALSE(LastIfUniform(Build("", If("(g > 3u ? 1u : 2u) == 1u"))));
}

TEST_CASE("a loop lanes leave on different trips makes its values diverge",
          "[simt][uniformity]") {
  // The counter after a loop whose exit differs by lane: each lane left
  // with its own count.
  CHECK_FALSE(LastIfUniform(Build("",
                                  "  uint i = 0u;\n"
                                  "  while (i < b.w[g]) { ++i; }\n" +
                                      If("i == 3u"))));
  // A break on a divergent condition does the same.
  CHECK_FALSE(LastIfUniform(Build("",
                                  "  uint i = 0u;\n"
                                  "  for (; i < pc.n; ++i) {\n"
                                  "    if (b.w[g] == i) break;\n"
                                  "  }\n" +
                                      If("i == 3u"))));
  // The same loop with a uniform exit: the counter stays uniform.
  CHECK(LastIfUniform(Build("",
                            "  uint i = 0u;\n"
                            "  while (i < b.w[1]) { ++i; }\n" +
                                If("i == 3u"))));
}

TEST_CASE("lane-private variables diverge with what is stored in them",
          "[simt][uniformity]") {
  // An array indexed at run time stays in memory (no SSA value): its
  // loads are uniform only while every store to it is.
  const std::string array =
      "  uint a[8] = uint[8](0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u);\n";
  CHECK(LastIfUniform(Build(
      "", array + "  a[pc.n & 7u] = 9u;\n" + If("a[b.w[0] & 7u] == 9u"))));
  // A store at an address that differs by lane.
  CHECK_FALSE(LastIfUniform(
      Build("", array + "  a[g & 7u] = 9u;\n" + If("a[pc.n & 7u] == 9u"))));
  // A divergent value stored.
  CHECK_FALSE(LastIfUniform(
      Build("", array + "  a[pc.n & 7u] = g;\n" + If("a[1] == 9u"))));
  // A uniform value stored under divergent control.
  CHECK_FALSE(
      LastIfUniform(Build("", array + "  if (g > 5u) { a[pc.n & 7u] = 9u; }\n" +
                                  If("a[1] == 9u"))));
  // A load at a divergent index.
  CHECK_FALSE(LastIfUniform(Build("", array + If("a[g & 7u] == 9u"))));
}

}  // namespace
}  // namespace warpsim::simt
