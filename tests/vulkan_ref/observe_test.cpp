// observe.cpp: statistics derived from --observe records (synthetic records
// laid out as the instrumented shaders write them), the compact file, and
// an observed run on lavapipe.
#include "vulkan_ref/observe.h"

#include <catch2/catch.hpp>
#include <cstring>

#include "scene/amber_parser.h"
#include "vulkan_ref/vk_test_util.h"

namespace warpsim::vkref {
namespace {

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

constexpr uint32_t kAllFragment = kObsFlagFragment | kObsFlagSubgroup |
                                  kObsFlagQuad | kObsFlagSm | kObsFlagPrimitive;

// One fragment record: pixel (x, y), warp w on SM sm, lane, ballot lanes
// (the low `ballot` bits), quad helper mask, primitive.
void AddFragment(std::vector<uint32_t>* buf, uint32_t w, uint32_t sm,
                 uint32_t lane, uint32_t ballot_bits, int x, int y,
                 uint32_t helpers, uint32_t primitive) {
  uint32_t r[kObserveRecordWords] = {};
  r[kObsFlags] = kAllFragment;
  r[kObsWarp] = w;
  r[kObsSm] = sm;
  r[kObsSlot] = w % 4;
  r[kObsLane] = lane;
  r[kObsBallot] = ballot_bits;
  r[kObsQuadHelpers] = helpers;
  r[kObsFragX] = FloatBits(static_cast<float>(x) + 0.5f);
  r[kObsFragY] = FloatBits(static_cast<float>(y) + 0.5f);
  r[kObsPrimitive] = primitive;
  r[kObsSubgroupSize] = 32;
  buf->insert(buf->end(), r, r + kObserveRecordWords);
  (*buf)[kObserveInvocationCounter] += 1;
}

std::vector<uint32_t> Header(uint32_t capacity) {
  std::vector<uint32_t> b(kObserveHeaderWords, 0);
  b[kObserveCapacity] = capacity;
  return b;
}

TEST_CASE("Observed fragment records give warps, quads and helpers",
          "[vkref]") {
  std::vector<uint32_t> b = Header(100);
  // Warp 0 on SM 3: a full quad at (0,0) of primitive 0 and a quad at
  // (2,0) with one covered pixel (3 helpers) of primitive 1; its ballot
  // counts the 5 covered lanes plus the 3 helpers (8 lanes).
  const int qx[4] = {0, 1, 0, 1}, qy[4] = {0, 0, 1, 1};
  for (uint32_t i = 0; i < 4; ++i)
    AddFragment(&b, 0, 3, i, 0xff, qx[i], qy[i], 0, 0);
  AddFragment(&b, 0, 3, 4, 0xff, 2, 0, 0xe, 1);
  // Warp 1 on SM 5: one quad with two covered pixels at (8,8) and (9,8),
  // its ballot counting only those two.
  AddFragment(&b, 1, 5, 0, 0x3, 8, 8, 0xc, 0);
  AddFragment(&b, 1, 5, 1, 0x3, 9, 8, 0xc, 0);
  const DrawObservation o = ObserveFromBuffer(b);
  CHECK_FALSE(o.truncated());
  const StageObservation& f = o.fragment;
  CHECK(f.invocations == 7);
  CHECK(o.vertex.invocations == 0);
  CHECK(f.warps == 2);
  CHECK(f.quads == 3);
  CHECK(f.helper_lanes == 3 + 2);
  CHECK(f.quads_per_warp_histogram ==
        std::map<uint32_t, uint64_t>{{1, 1}, {2, 1}});
  CHECK(f.primitives_per_warp_histogram ==
        std::map<uint32_t, uint64_t>{{1, 1}, {2, 1}});
  CHECK(f.ballot_lanes_histogram ==
        std::map<uint32_t, uint64_t>{{2, 1}, {8, 1}});
  CHECK(f.ballot_with_helpers == 1);
  CHECK(f.ballot_without_helpers == 1);
  CHECK(f.quad_lane_layout_matches == 7);  // lane 4 at (2,0): lane 0 of 4
  CHECK(f.sms == 2);
  CHECK(f.sm_warp_slots == 2);
  CHECK(f.max_footprint_width == 3);
  CHECK(f.max_footprint_height == 2);
  CHECK(f.mean_footprint_width == Approx((3 + 2) / 2.0));
  // 2x2 tiles: (0,0), (1,0) on SM 3 and (4,4) on SM 5, each one SM; 16x16
  // tiles: one tile holding both SMs.
  CHECK(f.tile_single_sm_share.at(2) == Approx(1.0));
  CHECK(f.tile_single_sm_share.at(16) == Approx(0.0));
}

TEST_CASE("Observed vertex records and truncation", "[vkref]") {
  std::vector<uint32_t> b = Header(3);
  for (uint32_t v : {0u, 1u, 2u, 2u}) {
    uint32_t r[kObserveRecordWords] = {};
    r[kObsFlags] = kObsFlagVertex;
    r[kObsVertexIndex] = v;
    r[kObsInstanceIndex] = 0;
    b.insert(b.end(), r, r + kObserveRecordWords);
    b[kObserveInvocationCounter] += 1;
  }
  const DrawObservation o = ObserveFromBuffer(b);
  CHECK(o.truncated());
  CHECK(o.taken == 4);
  CHECK(o.records.size() == 3 * kObserveRecordWords);
  CHECK(o.vertex.invocations == 3);
  CHECK(o.vertex.distinct_vertices == 3);
  CHECK(o.vertex.warps == 0);  // no subgroup fields: no warps
  const std::string file = ObservationFileBytes({{2, &o}});
  REQUIRE(file.size() == 8 + 4 * 4 + 3 * kObserveRecordWords * 4);
  CHECK(file.substr(0, 8) == "WSOBSV01");
  CHECK(file[8] == 2);   // draw index
  CHECK(file[12] == 4);  // taken
  CHECK(file[16] == 3);  // capacity
  CHECK(file[20] == 3);  // records
}

// A warp record with clocks: warp w of `stage` on SM sm from start to end.
void AddTimed(std::vector<uint32_t>* buf, uint32_t stage, uint32_t w,
              uint32_t sm, uint32_t start, uint32_t end) {
  uint32_t r[kObserveRecordWords] = {};
  r[kObsFlags] = stage | kObsFlagSubgroup | kObsFlagSm | kObsFlagClock;
  r[kObsWarp] = w;
  r[kObsSm] = sm;
  r[kObsBallot] = 1;
  r[kObsClockLo] = start;
  r[kObsEndClockLo] = end;
  buf->insert(buf->end(), r, r + kObserveRecordWords);
  (*buf)[kObserveInvocationCounter] += 1;
}

TEST_CASE("Observed clocks give warp lifetimes and stage overlap", "[vkref]") {
  std::vector<uint32_t> b = Header(100);
  // SM 0: vertex warp 0 [0, 100) overlaps fragment warps 1 [50, 150) and
  // 2 [60, 70); SM 1: vertex warp 3 [0, 10) then fragment warp 4 [10, 20).
  AddTimed(&b, kObsFlagVertex, 0, 0, 0, 100);
  AddTimed(&b, kObsFlagFragment, 1, 0, 50, 150);
  AddTimed(&b, kObsFlagFragment, 2, 0, 60, 70);
  AddTimed(&b, kObsFlagVertex, 3, 1, 0, 10);
  AddTimed(&b, kObsFlagFragment, 4, 1, 10, 20);
  const DrawObservation o = ObserveFromBuffer(b);
  CHECK(o.vertex.timed_warps == 2);
  CHECK(o.fragment.timed_warps == 3);
  CHECK(o.fragment.max_live_warps_per_sm == 2);
  CHECK(o.vertex.max_live_warps_per_sm == 1);
  CHECK(o.max_live_warps_per_sm == 3);
  CHECK(o.sms_with_both_stages == 2);
  CHECK(o.sms_with_overlapping_stages == 1);
  CHECK(o.vertex.mean_warp_cycles == Approx(55.0));
}

TEST_CASE("A short buffer gives an empty observation", "[vkref]") {
  const std::vector<uint32_t> b = {5, 0};
  const DrawObservation o = ObserveFromBuffer(b);
  CHECK(o.records.empty());
  CHECK(o.fragment.invocations == 0);
}

TEST_CASE("An observed run on lavapipe records every vertex and pixel",
          "[vkref]") {
  if (!testing::HaveLavapipe()) return;
  // A 16x8 framebuffer filled by a DRAW_RECT (two triangles, 4 vertices),
  // then a second draw over its left half.
  const std::string amber = R"(#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 430
layout(location = 0) out vec4 color;
void main() { color = vec4(gl_FragCoord.xy / 16.0, 0, 1); }
END
BUFFER fb FORMAT B8G8R8A8_UNORM
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 16 8
  BIND BUFFER fb AS color LOCATION 0
END
RUN p DRAW_RECT POS 0 0 SIZE 16 8
RUN p DRAW_RECT POS 0 0 SIZE 8 8
EXPECT fb IDX 15 0 SIZE 1 1 EQ_RGBA 247 8 0 255 TOLERANCE 1
)";
  auto scene = scene::ParseSceneText(amber, "observe.amber");
  REQUIRE(scene.ok());
  VkRunOptions options;
  options.device = "lavapipe";
  options.observe = true;
  const DeviceRunReport r = RunSceneOnDevice(*scene, options);
  INFO(testing::Describe(r));
  REQUIRE(r.run.status == runner::RunStatus::kPass);
  REQUIRE(r.draws.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    REQUIRE(r.draws[i].observation);
    const DrawObservation& o = *r.draws[i].observation;
    CHECK_FALSE(o.truncated());
    CHECK(o.vertex.invocations == 4);
    CHECK(o.vertex.distinct_vertices == 4);
    CHECK(o.fragment.invocations == (i == 0 ? 128u : 64u));
  }
}

}  // namespace
}  // namespace warpsim::vkref
