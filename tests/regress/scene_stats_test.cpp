// regress/scene_stats.cpp: the figures taken from a run, their JSON round
// trip, bad JSON, percent changes and regressions.
#include "regress/scene_stats.h"

#include <catch2/catch.hpp>
#include <string>

#include "common/test_util.h"
#include "scene/amber_parser.h"

namespace {

using warpsim::regress::SceneStats;

const char kScene[] = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 48) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint id = gl_LocalInvocationID.x;
  if (id < 8u) b.v[id] = id * 3u;
}
END
BUFFER buf DATA_TYPE uint32 SIZE 48 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
EXPECT buf IDX 16 EQ 12
)";

warpsim::runner::RunReport Run(bool timing) {
  auto scene = warpsim::scene::ParseAmberScript(kScene, "stats.amber");
  REQUIRE(scene.ok());
  warpsim::runner::RunOptions options;
  options.timing_mode = timing;
  return warpsim::runner::RunScene(*scene, options);
}

TEST_CASE("statistics of a run, functional and timed", "[regress]") {
  const auto f = Run(false);
  INFO(warpsim::testing::Describe(f));
  REQUIRE(f.status == warpsim::runner::RunStatus::kPass);
  const SceneStats s =
      warpsim::regress::StatsOf(f, warpsim::runner::RunOptions{});
  CHECK(s.status == "pass");
  CHECK(s.warp_instructions == f.stats.warp_instructions);
  CHECK(s.lane_instructions == f.stats.lane_instructions);
  // 48 lanes: a full warp and a warp of 16, so at most 2/3 of the slots.
  CHECK(s.simd_efficiency > 0);
  CHECK(s.simd_efficiency < 0.75);
  CHECK(s.helper_lane_share == 0);
  CHECK(s.registers_per_thread == f.pipelines[0].registers_per_thread);
  CHECK(s.theoretical_occupancy > 0);
  CHECK(s.theoretical_occupancy <= 1);
  CHECK_FALSE(s.cycles.has_value());
  CHECK_FALSE(s.achieved_occupancy.has_value());

  const auto t = Run(true);
  const SceneStats st =
      warpsim::regress::StatsOf(t, warpsim::runner::RunOptions{});
  REQUIRE(st.cycles.has_value());
  CHECK(*st.cycles == t.timing->cycles);
  CHECK(st.warp_instructions == s.warp_instructions);
  REQUIRE(st.achieved_occupancy.has_value());
  CHECK(*st.achieved_occupancy > 0);
  CHECK_FALSE(st.stall_cycles.empty());
}

TEST_CASE("statistics survive their JSON form", "[regress]") {
  SceneStats s;
  s.status = "fail";
  s.warp_instructions = 1234;
  s.lane_instructions = 30000;
  s.helper_lane_instructions = 12;
  s.simd_efficiency = 0.75;
  s.helper_lane_share = 0.001;
  s.registers_per_thread = 40;
  s.theoretical_occupancy = 0.5;
  s.cycles = 999;
  s.achieved_occupancy = 0.25;
  s.stall_cycles = {{"wait", 10}, {"selected", 20}};
  const auto back =
      warpsim::regress::StatsFromJson(warpsim::regress::StatsJson(s));
  REQUIRE(back.ok());
  CHECK(back->status == s.status);
  CHECK(back->warp_instructions == s.warp_instructions);
  CHECK(back->lane_instructions == s.lane_instructions);
  CHECK(back->helper_lane_instructions == s.helper_lane_instructions);
  CHECK(back->simd_efficiency == s.simd_efficiency);
  CHECK(back->registers_per_thread == s.registers_per_thread);
  CHECK(back->cycles == s.cycles);
  CHECK(back->achieved_occupancy == s.achieved_occupancy);
  CHECK(back->stall_cycles == s.stall_cycles);
}

TEST_CASE("bad statistics JSON names the field", "[regress]") {
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {R"([])", "must be an object"},
      {R"({"warp_instructions": 1})", "missing field \"status\""},
      {R"({"status": 3, "warp_instructions": 1})",
       "\"status\" is not a string"},
      {R"({"status": "pass", "warp_instructions": -1, "lane_instructions": 1,
           "simd_efficiency": 1, "registers_per_thread": 1})",
       "\"warp_instructions\" is not a count"},
      {R"({"status": "pass", "warp_instructions": 1, "lane_instructions": 1,
           "simd_efficiency": "x", "registers_per_thread": 1})",
       "\"simd_efficiency\" is not a number"},
      {R"({"status": "pass", "warp_instructions": 1, "lane_instructions": 1,
           "simd_efficiency": 1, "registers_per_thread": 1,
           "stall_cycles": {"wait": 1.5}})",
       "stall_cycles \"wait\" is not a count"},
  };
  for (const Case& c : cases) {
    INFO(c.json);
    const auto r =
        warpsim::regress::StatsFromJson(nlohmann::json::parse(c.json));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains(c.message));
  }
}

TEST_CASE("percent changes and their text", "[regress]") {
  using warpsim::regress::FormatChange;
  using warpsim::regress::PercentChange;
  CHECK(PercentChange(100, 150) == Approx(50));
  CHECK(PercentChange(200, 150) == Approx(-25));
  CHECK(PercentChange(0, 0) == 0);
  CHECK(PercentChange(0, 5) == 100);
  CHECK(FormatChange(1000, 1100, true) == "1000 -> 1100 (+10.0 %)");
  CHECK(FormatChange(0.5, 0.25, false) == "0.500 -> 0.250 (-50.0 %)");
}

TEST_CASE("regressions: worse by more than the threshold, either way",
          "[regress]") {
  SceneStats base;
  base.warp_instructions = 1000;
  base.lane_instructions = 32000;
  base.simd_efficiency = 1.0;
  base.registers_per_thread = 32;
  base.theoretical_occupancy = 1.0;
  SceneStats now = base;
  now.warp_instructions = 1040;   // +4 %
  now.simd_efficiency = 0.9;      // -10 %: worse
  now.registers_per_thread = 24;  // fewer: better
  const auto r = warpsim::regress::RegressionsAbove(base, now, 5);
  REQUIRE(r.size() == 1);
  CHECK(r[0].metric == "simd_efficiency");
  CHECK(r[0].percent == Approx(10));
  CHECK(warpsim::regress::RegressionsAbove(base, now, 0).size() == 2);
  // Cycles count only when both sides have them.
  now.cycles = 100;
  CHECK(warpsim::regress::RegressionsAbove(base, now, 0).size() == 2);
  base.cycles = 50;
  CHECK(warpsim::regress::RegressionsAbove(base, now, 0).size() == 3);
  CHECK(warpsim::regress::CostOf(now, true) == 100);
  CHECK(warpsim::regress::CostOf(now, false) == 1040);
}

}  // namespace
