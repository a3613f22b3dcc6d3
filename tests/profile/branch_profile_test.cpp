// profile/branch_profile.cpp: rows, sides, idle and helper lanes, loop
// trips, lines and warp-cycles, on compute and fragment shaders whose
// lanes are known (one workgroup of 32 invocations is one warp).
#include "profile/branch_profile.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "scene/amber_parser.h"

namespace {

using warpsim::profile::BranchCost;
using warpsim::profile::BranchKind;
using warpsim::profile::ProgramProfile;

// Runs a one-workgroup compute shader (32 invocations) with the profile.
warpsim::runner::RunReport RunCompute(const std::string& body,
                                      bool timing = false) {
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint id = gl_LocalInvocationID.x;
)" + body + R"(
}
END
BUFFER buf DATA_TYPE uint32 SIZE 32 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
)";
  auto scene = warpsim::scene::ParseAmberScript(amber, "profile.amber");
  REQUIRE(scene.ok());
  warpsim::runner::RunOptions options;
  options.profile_branches = true;
  options.shader_debug_info = true;
  options.timing_mode = timing;
  return warpsim::runner::RunScene(*scene, options);
}

const ProgramProfile& ProfileOf(const warpsim::runner::RunReport& report) {
  INFO(warpsim::testing::Describe(report));
  REQUIRE(report.status == warpsim::runner::RunStatus::kPass);
  REQUIRE(report.pipelines.size() == 1);
  REQUIRE(report.pipelines[0].profile.has_value());
  return *report.pipelines[0].profile;
}

std::vector<const BranchCost*> RowsOf(const ProgramProfile& p,
                                      BranchKind kind) {
  std::vector<const BranchCost*> rows;
  for (const BranchCost& b : p.branches) {
    if (b.kind == kind && b.warp_executions > 0) rows.push_back(&b);
  }
  return rows;
}

TEST_CASE("a divergent if/else: both sides, taken lanes, idle lanes",
          "[profile]") {
  const auto report = RunCompute(R"(
  if (id < 8u) {
    b.v[id] = id * 3u + 1u;
  } else {
    b.v[id] = id * 5u + 2u;
  })");
  const ProgramProfile& p = ProfileOf(report);
  const auto ifs = RowsOf(p, BranchKind::kIf);
  REQUIRE(ifs.size() == 1);
  const BranchCost& b = *ifs[0];
  CHECK(b.warp_executions == 1);
  CHECK(b.lane_executions == 32);
  CHECK(b.taken_lanes == 8);
  CHECK(b.divergent_executions == 1);
  REQUIRE(b.sides.size() == 2);
  CHECK(b.sides[0].name == "then");
  CHECK(b.sides[1].name == "else");
  for (const auto& side : b.sides) {
    INFO(side.name);
    CHECK(side.warps == 1);
    CHECK(side.warp_instructions > 0);
    CHECK(side.helper_lane_instructions == 0);
  }
  // The then side runs 8 lanes, the else side 24; the others idle.
  CHECK(b.sides[0].lane_instructions == 8 * b.sides[0].warp_instructions);
  CHECK(b.sides[0].idle_lanes == 24 * b.sides[0].warp_instructions);
  CHECK(b.sides[1].lane_instructions == 24 * b.sides[1].warp_instructions);
  CHECK(b.sides[1].idle_lanes == 8 * b.sides[1].warp_instructions);
  // Lines: the row names the `if`, each side its first line.
  CHECK(b.source == "if (id < 8u) {");
  CHECK(b.sides[0].line == b.line + 1);
  CHECK(b.sides[1].line == b.line + 3);
  // Functional mode has no cycles.
  CHECK(b.cycles() == 0);
  CHECK(p.cycles == 0);
  CHECK(p.warp_instructions == report.stats.warp_instructions);
}

TEST_CASE("a uniform if: one side, no divergence", "[profile]") {
  const auto report = RunCompute(R"(
  if (id < 64u) {
    b.v[id] = id * 3u + 1u;
  } else {
    b.v[id] = id * 5u + 2u;
  })");
  const auto ifs = RowsOf(ProfileOf(report), BranchKind::kIf);
  REQUIRE(ifs.size() == 1);
  CHECK(ifs[0]->taken_lanes == 32);
  CHECK(ifs[0]->divergent_executions == 0);
  CHECK(ifs[0]->sides[0].warps == 1);
  CHECK(ifs[0]->sides[1].warps == 0);
  CHECK(ifs[0]->sides[1].warp_instructions == 0);
  CHECK(ifs[0]->idle_lanes() == 0);
}

TEST_CASE("a loop whose lanes run different trip counts", "[profile]") {
  // Lane id runs id % 4 trips: the warp runs 3, its lanes 8 x (0+1+2+3).
  const auto report = RunCompute(R"(
  uint x = id;
  for (uint i = 0u; i < id % 4u; ++i) {
    x = x * 3u + 1u;
  }
  b.v[id] = x;)");
  const ProgramProfile& p = ProfileOf(report);
  const auto loops = RowsOf(p, BranchKind::kLoop);
  REQUIRE(loops.size() == 1);
  const BranchCost& l = *loops[0];
  CHECK(l.warp_executions == 1);
  CHECK(l.lane_executions == 32);
  CHECK(l.warp_trips == 3);
  CHECK(l.lane_trips == 48);
  CHECK(l.divergent_executions == 1);
  REQUIRE(l.sides.size() == 1);
  CHECK(l.sides[0].name == "body");
  CHECK(l.sides[0].idle_lanes > 0);
  CHECK(l.source == "for (uint i = 0u; i < id % 4u; ++i) {");
  // The exit test: lanes that stay in the loop are the taken ones.
  const auto exits = RowsOf(p, BranchKind::kLoopExit);
  REQUIRE(exits.size() == 1);
  CHECK(exits[0]->taken_lanes == 48);
  CHECK(exits[0]->lane_executions == 48 + 32);
}

TEST_CASE("a uniform loop does not diverge", "[profile]") {
  const auto report = RunCompute(R"(
  uint x = id;
  for (uint i = 0u; i < b.v[0] + 5u; ++i) {
    x = x * 3u + 1u;
  }
  b.v[id] = x;)");
  const auto loops = RowsOf(ProfileOf(report), BranchKind::kLoop);
  REQUIRE(loops.size() == 1);
  CHECK(loops[0]->warp_trips == 5);
  CHECK(loops[0]->lane_trips == 5 * 32);
  CHECK(loops[0]->divergent_executions == 0);
  CHECK(loops[0]->idle_lanes() == 0);
}

TEST_CASE("a switch: a side per case and the default", "[profile]") {
  const auto report = RunCompute(R"(
  switch (id % 3u) {
    case 0u: b.v[id] = 10u; break;
    case 1u: b.v[id] = 20u + id; break;
    default: b.v[id] = 30u * id; break;
  })");
  const auto switches = RowsOf(ProfileOf(report), BranchKind::kSwitch);
  REQUIRE(switches.size() == 1);
  const BranchCost& s = *switches[0];
  CHECK(s.warp_executions == 1);
  CHECK(s.divergent_executions == 1);
  REQUIRE(s.sides.size() == 3);
  CHECK(s.sides[0].name == "default");
  uint64_t lanes_per_instruction = 0;
  for (const auto& side : s.sides) {
    INFO(side.name);
    CHECK(side.warps == 1);
    // 11 lanes have id % 3 == 0 and == 1, 10 the default.
    if (side.warp_instructions != 0) {
      lanes_per_instruction += side.lane_instructions / side.warp_instructions;
    }
  }
  CHECK(lanes_per_instruction == 32);
  // Lanes matching a case are the taken ones.
  CHECK(s.taken_lanes == 22);
}

TEST_CASE("nested ifs: idle lanes are charged to the construct that idled them",
          "[profile]") {
  const auto report = RunCompute(R"(
  if (id < 16u) {
    if (id < 4u) {
      b.v[id] = id * 3u + 1u;
    } else {
      b.v[id] = id * 7u + 5u;
    }
  } else {
    b.v[id] = id * 5u + 2u;
  })");
  const ProgramProfile& p = ProfileOf(report);
  const auto ifs = RowsOf(p, BranchKind::kIf);
  REQUIRE(ifs.size() == 2);
  const BranchCost& outer = *ifs[0];
  const BranchCost& inner = *ifs[1];
  CHECK(outer.lane_executions == 32);
  CHECK(inner.lane_executions == 16);
  // The outer then side holds the inner construct's instructions.
  CHECK(outer.sides[0].warp_instructions > inner.warp_instructions());
  // Inside the inner construct the outer one idles 16 lanes per
  // instruction, the inner one the rest of its 16.
  CHECK(inner.sides[0].idle_lanes == 12 * inner.sides[0].warp_instructions);
  CHECK(inner.sides[1].idle_lanes == 4 * inner.sides[1].warp_instructions);
  uint64_t idle = 0, slots = 0;
  for (const BranchCost* b : {&outer, &inner}) idle += b->idle_lanes();
  for (const auto& s : outer.sides) {
    slots += 32 * s.warp_instructions - s.lane_instructions;
  }
  CHECK(idle == slots);
}

TEST_CASE("timing mode: the same counts, and warp-cycles on each side",
          "[profile]") {
  const std::string body = R"(
  uint x = id;
  if (id < 8u) {
    for (uint i = 0u; i < 20u + b.v[1]; ++i) x = x * 3u + 1u;
  } else {
    x = x * 5u + 2u;
  }
  b.v[id] = x;)";
  const auto functional = RunCompute(body, false);
  const auto timed = RunCompute(body, true);
  const ProgramProfile& f = ProfileOf(functional);
  const ProgramProfile& t = ProfileOf(timed);
  REQUIRE(f.branches.size() == t.branches.size());
  CHECK(f.warp_instructions == t.warp_instructions);
  for (size_t i = 0; i < f.branches.size(); ++i) {
    CHECK(f.branches[i].warp_executions == t.branches[i].warp_executions);
    CHECK(f.branches[i].warp_instructions() ==
          t.branches[i].warp_instructions());
    CHECK(f.branches[i].idle_lanes() == t.branches[i].idle_lanes());
  }
  CHECK(t.cycles > 0);
  const auto ifs = RowsOf(t, BranchKind::kIf);
  REQUIRE(ifs.size() == 1);
  // The then side's loop waits on its dependent multiply-adds.
  CHECK(ifs[0]->sides[0].cycles > ifs[0]->sides[1].cycles);
  CHECK(ifs[0]->cycles() <= t.cycles);
}

TEST_CASE("fragment warps: helper lanes on each side", "[profile]") {
  // A thin triangle leaves quads partly covered: helper lanes run both
  // sides of the per-pixel branch with the covered lanes.
  const std::string amber = R"(#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 450
layout(location = 0) out vec4 color;
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  float x = gl_FragCoord.x;
  if (((p.x ^ p.y) & 1) == 0) {
    x = dFdx(x) + sin(x);
  } else {
    x = dFdy(x) + cos(x);
  }
  color = vec4(x, 0.0, 0.0, 1.0);
}
END
BUFFER pos DATA_TYPE vec4<float> DATA
-1.0 -1.0 0.0 1.0   1.0 -0.9 0.0 1.0   -1.0 1.0 0.0 1.0
END
IMAGE frame FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 64 HEIGHT 64
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  VERTEX_DATA pos LOCATION 0
  FRAMEBUFFER_SIZE 64 64
  BIND BUFFER frame AS color LOCATION 0
END
RUN p DRAW_ARRAY AS TRIANGLE_LIST START_IDX 0 COUNT 3
)";
  auto scene = warpsim::scene::ParseAmberScript(amber, "helpers.amber");
  REQUIRE(scene.ok());
  warpsim::runner::RunOptions options;
  options.profile_branches = true;
  const auto report = warpsim::runner::RunScene(*scene, options);
  INFO(warpsim::testing::Describe(report));
  REQUIRE(report.status == warpsim::runner::RunStatus::kPass);
  const warpsim::runner::PipelineReport* fs = nullptr;
  for (const auto& p : report.pipelines) {
    if (p.stage == "fragment") fs = &p;
  }
  REQUIRE(fs != nullptr);
  REQUIRE(fs->profile.has_value());
  const auto ifs = RowsOf(*fs->profile, BranchKind::kIf);
  REQUIRE(ifs.size() == 1);
  CHECK(ifs[0]->helper_lane_executions > 0);
  CHECK(ifs[0]->sides[0].helper_lane_instructions > 0);
  CHECK(ifs[0]->sides[1].helper_lane_instructions > 0);
  CHECK(ifs[0]->divergent_executions == ifs[0]->warp_executions);
  // JSON: executed rows only, each with its sides.
  const nlohmann::json j = warpsim::profile::BranchesJson(*fs->profile);
  REQUIRE(j.size() == 1);
  CHECK(j[0]["kind"] == "if");
  CHECK(j[0]["sides"].size() == 2);
  CHECK(j[0]["divergent_share"] == 1.0);
}

}  // namespace
