// Tests of emulator/pipeline/compute.cpp: DispatchCompute called directly
// (workgroups cut into warps, compute built-ins, barriers across warps,
// time slices, the instruction limit and workgroup-size checks, and
// dispatches that write memory on several threads).
#include "pipeline/compute.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "runner/shader_build.h"
#include "simt/lower.h"
#include "spirv/compile.h"

namespace warpsim::pipeline {
namespace {

constexpr spirv::TargetEnv kEnv = spirv::TargetEnv::kVulkan1_3;

simt::Program BuildGlsl(const std::string& source, uint32_t warp_width = 32) {
  auto words =
      spirv::CompileGlsl(source, spirv::ShaderStage::kCompute, kEnv, "c.comp");
  INFO((words.ok() ? "" : words.error().ToString()));
  REQUIRE(words.ok());
  simt::LowerOptions options;
  options.warp_width = warp_width;
  auto built = runner::BuildProgram(*words, kEnv, "c.comp", options, {});
  INFO((built.ok() ? "" : built.error().ToString()));
  REQUIRE(built.ok());
  return std::move(built->program);
}

// Dispatches `program` with `buffers[b]` bound at binding b.
Result<DispatchStats> Dispatch(
    const simt::Program& program, const std::vector<uint32_t>& groups,
    std::map<uint32_t, std::vector<uint32_t>>& buffers,
    const ComputeLimits& limits) {
  std::vector<simt::MemRegion> regions(program.num_regions);
  for (const simt::ResourceSlot& res : program.resources) {
    auto it = buffers.find(res.binding);
    REQUIRE(it != buffers.end());
    regions[res.region] = {reinterpret_cast<uint8_t*>(it->second.data()),
                           it->second.size() * sizeof(uint32_t), true};
  }
  const uint32_t g[3] = {groups[0], groups[1], groups[2]};
  return DispatchCompute(program, g, regions, {}, limits);
}

ComputeLimits Width(uint32_t width) {
  ComputeLimits limits;
  limits.warp_width = width;
  return limits;
}

const char* const kBuiltins = R"(#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 5, local_size_y = 3, local_size_z = 2) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
void main() {
  uvec3 gid = gl_GlobalInvocationID;
  uvec3 n = gl_NumWorkGroups * gl_WorkGroupSize;
  uint base = (gid.x + n.x * (gid.y + n.y * gid.z)) * 16u;
  o.v[base + 0u] = gl_LocalInvocationID.x;
  o.v[base + 1u] = gl_LocalInvocationID.y;
  o.v[base + 2u] = gl_LocalInvocationID.z;
  o.v[base + 3u] = gl_WorkGroupID.x;
  o.v[base + 4u] = gl_WorkGroupID.y;
  o.v[base + 5u] = gl_WorkGroupID.z;
  o.v[base + 6u] = gid.x;
  o.v[base + 7u] = gid.y;
  o.v[base + 8u] = gid.z;
  o.v[base + 9u] = gl_LocalInvocationIndex;
  o.v[base + 10u] = gl_SubgroupID;
  o.v[base + 11u] = gl_NumSubgroups;
  o.v[base + 12u] = gl_SubgroupInvocationID;
  o.v[base + 13u] = gl_SubgroupSize;
  o.v[base + 14u] = gl_NumWorkGroups.x + 10u * gl_NumWorkGroups.y +
                    100u * gl_NumWorkGroups.z;
  o.v[base + 15u] = 0xC0FFEEu;
}
)";

TEST_CASE("compute built-ins for a 5x3x2 workgroup on a 2x3x2 grid",
          "[pipeline]") {
  const uint32_t kSize[3] = {5, 3, 2};
  const uint32_t kGroups[3] = {2, 3, 2};
  const uint32_t kLocal = 30;
  const uint32_t kInvocations = kLocal * 12;
  for (uint32_t width : {32u, 16u, 8u, 7u}) {
    INFO("warp width " << width);
    const simt::Program p = BuildGlsl(kBuiltins, width);
    CHECK(p.local_size[0] == 5);
    CHECK(p.local_size[1] == 3);
    CHECK(p.local_size[2] == 2);
    // One extra invocation's worth of sentinels catches stray writes.
    std::map<uint32_t, std::vector<uint32_t>> buffers{
        {0, std::vector<uint32_t>((kInvocations + 1) * 16, 0xdeadbeefu)}};
    auto stats = Dispatch(p, {2, 3, 2}, buffers, Width(width));
    INFO((stats.ok() ? "" : stats.error().ToString()));
    REQUIRE(stats.ok());
    const uint32_t warps_per_group = (kLocal + width - 1) / width;
    CHECK(stats->workgroups == 12);
    CHECK(stats->warps == 12 * warps_per_group);
    // Straight-line code: every warp runs the same instructions, so the
    // lane count shows the partial last warp of each workgroup.
    CHECK(stats->warp_instructions % stats->warps == 0);
    CHECK(stats->lane_instructions * stats->warps ==
          stats->warp_instructions * kInvocations);

    const std::vector<uint32_t>& v = buffers[0];
    for (uint32_t gz = 0; gz < kGroups[2]; ++gz) {
      for (uint32_t gy = 0; gy < kGroups[1]; ++gy) {
        for (uint32_t gx = 0; gx < kGroups[0]; ++gx) {
          for (uint32_t li = 0; li < kLocal; ++li) {
            const uint32_t l[3] = {li % 5, (li / 5) % 3, li / 15};
            const uint32_t g[3] = {gx * kSize[0] + l[0], gy * kSize[1] + l[1],
                                   gz * kSize[2] + l[2]};
            const uint32_t base = (g[0] + 10 * (g[1] + 9 * g[2])) * 16;
            const std::vector<uint32_t> expected = {
                l[0],       l[1],       l[2],
                gx,         gy,         gz,
                g[0],       g[1],       g[2],
                li,         li / width, warps_per_group,
                li % width, width,      2 + 10 * 3 + 100 * 2,
                0xC0FFEEu};
            const std::vector<uint32_t> got(v.begin() + base,
                                            v.begin() + base + 16);
            INFO("group (" << gx << "," << gy << "," << gz << "), local index "
                           << li);
            CHECK(got == expected);
          }
        }
      }
    }
    for (uint32_t k = kInvocations * 16; k < v.size(); ++k) {
      INFO("word " << k);
      CHECK(v[k] == 0xdeadbeefu);
    }
  }
}

TEST_CASE("barriers order workgroup memory across warps", "[pipeline]") {
  // A tree reduction in workgroup memory: every level needs the previous
  // level's results from other warps.
  const simt::Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
shared uint s[64];
void main() {
  uint i = gl_LocalInvocationIndex;
  uint g = gl_WorkGroupID.x;
  s[i] = i + 1u + g;
  barrier();
  o.v[g * 128u + i] = s[63u - i];
  barrier();
  for (uint stride = 32u; stride > 0u; stride >>= 1) {
    if (i < stride) s[i] += s[i + stride];
    barrier();
  }
  o.v[g * 128u + 64u + i] = s[0];
}
)");
  CHECK(p.uses_barrier);
  for (uint32_t width : {32u, 8u, 5u}) {
    INFO("warp width " << width);
    std::map<uint32_t, std::vector<uint32_t>> buffers{
        {0, std::vector<uint32_t>(3 * 128, 0)}};
    auto stats = Dispatch(p, {3, 1, 1}, buffers, Width(width));
    INFO((stats.ok() ? "" : stats.error().ToString()));
    REQUIRE(stats.ok());
    CHECK(stats->warps == 3 * ((64 + width - 1) / width));
    for (uint32_t g = 0; g < 3; ++g) {
      for (uint32_t i = 0; i < 64; ++i) {
        INFO("group " << g << ", invocation " << i);
        CHECK(buffers[0][g * 128 + i] == 63 - i + 1 + g);
        CHECK(buffers[0][g * 128 + 64 + i] == 2080 + 64 * g);
      }
    }
  }
}

TEST_CASE("workgroup memory starts at zero in every workgroup", "[pipeline]") {
  const simt::Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
shared uint s[4];
void main() {
  uint i = gl_LocalInvocationIndex;
  o.v[gl_WorkGroupID.x * 4u + i] = s[i];
  s[i] = 77u;
}
)");
  std::map<uint32_t, std::vector<uint32_t>> buffers{
      {0, std::vector<uint32_t>(8, 5)}};
  auto stats = Dispatch(p, {2, 1, 1}, buffers, Width(32));
  REQUIRE(stats.ok());
  CHECK(buffers[0] == std::vector<uint32_t>(8, 0));
}

TEST_CASE("time slices let a warp spin on another warp's store", "[pipeline]") {
  // Warp 0 waits for a flag that only warp 1 sets; warp 0 runs first, so
  // the dispatcher must switch warps while warp 0 spins.
  const simt::Program p = BuildGlsl(R"(#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
shared uint flag;
void main() {
  uint spins = 0u;
  if (gl_SubgroupID == 0u) {
    while (atomicAdd(flag, 0u) == 0u) { spins++; }
  } else {
    atomicExchange(flag, 1u);
  }
  o.v[gl_LocalInvocationIndex] = spins > 0u ? 1u : 2u;
}
)");
  ComputeLimits limits = Width(32);
  limits.time_slice = 64;
  limits.max_warp_instructions = 1'000'000;
  std::map<uint32_t, std::vector<uint32_t>> buffers{
      {0, std::vector<uint32_t>(64, 0)}};
  auto stats = Dispatch(p, {1, 1, 1}, buffers, limits);
  INFO((stats.ok() ? "" : stats.error().ToString()));
  REQUIRE(stats.ok());
  for (uint32_t i = 0; i < 64; ++i) {
    INFO("invocation " << i);
    CHECK(buffers[0][i] == (i < 32 ? 1u : 2u));
  }
}

TEST_CASE("the instruction limit stops a shader that never terminates",
          "[pipeline]") {
  const simt::Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint k = 0u;
  while (b.v[0] == 0u) { k++; }
  b.v[1u + gl_LocalInvocationIndex] = k;
}
)");
  ComputeLimits limits = Width(32);
  limits.max_warp_instructions = 10000;
  std::map<uint32_t, std::vector<uint32_t>> buffers{
      {0, std::vector<uint32_t>(64, 0)}};
  auto stats = Dispatch(p, {1, 1, 1}, buffers, limits);
  REQUIRE_FALSE(stats.ok());
  INFO(stats.error().ToString());
  CHECK(stats.error().kind == ErrorKind::kLimitExceeded);
  CHECK_THAT(
      stats.error().message,
      Catch::Contains("more than 10000 warp instructions") &&
          Catch::Contains("stopped after " +
                          std::to_string(stats.error().warp_instructions)) &&
          Catch::Contains("may not terminate"));
  // The diagnostic carries the work done up to the stop.
  CHECK(stats.error().warp_instructions > 10000);
  CHECK(stats.error().lane_instructions > stats.error().warp_instructions);

  // The same shader finishes when the loop condition is false.
  buffers[0][0] = 1;
  auto done = Dispatch(p, {1, 1, 1}, buffers, limits);
  INFO((done.ok() ? "" : done.error().ToString()));
  REQUIRE(done.ok());
  CHECK(buffers[0][1] == 0u);
}

TEST_CASE("the instruction limit counts exactly", "[pipeline]") {
  const simt::Program p = BuildGlsl(kBuiltins, 8);
  std::map<uint32_t, std::vector<uint32_t>> buffers{
      {0, std::vector<uint32_t>(30 * 16, 0)}};
  auto unlimited = Dispatch(p, {1, 1, 1}, buffers, Width(8));
  REQUIRE(unlimited.ok());
  const uint64_t total = unlimited->warp_instructions;
  ComputeLimits limits = Width(8);
  limits.max_warp_instructions = total;  // exactly enough
  CHECK(Dispatch(p, {1, 1, 1}, buffers, limits).ok());
  limits.max_warp_instructions = total - 1;
  auto over = Dispatch(p, {1, 1, 1}, buffers, limits);
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().kind == ErrorKind::kLimitExceeded);
  // Stopped on the last instruction: the count is the whole run's.
  CHECK(over.error().warp_instructions == total);
  CHECK(over.error().lane_instructions == unlimited->lane_instructions);
  limits.max_warp_instructions = 0;  // no limit
  CHECK(Dispatch(p, {1, 1, 1}, buffers, limits).ok());
}

TEST_CASE("workgroup sizes outside 1..1024 invocations are rejected",
          "[pipeline]") {
  struct Case {
    uint32_t size[3];
    const char* message;  // nullptr: accepted
  };
  const std::vector<Case> cases = {
      {{33, 32, 1}, "workgroup size 33x32x1 is outside 1..1024 invocations"},
      {{1025, 1, 1}, "workgroup size 1025x1x1 is outside 1..1024"},
      {{16, 16, 5}, "workgroup size 16x16x5 is outside 1..1024"},
      {{0, 1, 1}, "workgroup size 0x1x1 is outside 1..1024"},
      {{1024, 1, 1}, nullptr},
      {{8, 8, 16}, nullptr},
  };
  simt::Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() { b.v[gl_LocalInvocationIndex] = 1u; }
)");
  for (const Case& c : cases) {
    INFO(c.size[0] << "x" << c.size[1] << "x" << c.size[2]);
    for (int i = 0; i < 3; ++i) p.local_size[i] = c.size[i];
    std::map<uint32_t, std::vector<uint32_t>> buffers{
        {0, std::vector<uint32_t>(1024, 0)}};
    auto stats = Dispatch(p, {1, 1, 1}, buffers, Width(32));
    if (c.message == nullptr) {
      INFO((stats.ok() ? "" : stats.error().ToString()));
      CHECK(stats.ok());
      CHECK(buffers[0] == std::vector<uint32_t>(1024, 1));
    } else {
      REQUIRE_FALSE(stats.ok());
      CHECK(stats.error().kind == ErrorKind::kInvalidInput);
      CHECK_THAT(stats.error().message, Catch::Contains(c.message));
    }
  }
}

TEST_CASE("an empty grid runs no workgroups", "[pipeline]") {
  const simt::Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() { b.v[gl_GlobalInvocationID.x] = 1u; }
)");
  std::map<uint32_t, std::vector<uint32_t>> buffers{
      {0, std::vector<uint32_t>(4, 0)}};
  auto stats = Dispatch(p, {0, 1, 1}, buffers, Width(32));
  REQUIRE(stats.ok());
  CHECK(stats->workgroups == 0);
  CHECK(stats->warps == 0);
  CHECK(buffers[0] == std::vector<uint32_t>(4, 0));
}

// Threads: a dispatch that writes memory runs in parallel and keeps that
// result only when no workgroup touched a word another one wrote;
// otherwise memory is put back and the dispatch runs in order. Either way
// the buffers equal the one-thread run's.
struct ThreadedRun {
  std::map<uint32_t, std::vector<uint32_t>> buffers;
  DispatchStats stats;
};

ThreadedRun RunOn(const simt::Program& program, uint32_t groups,
                  std::map<uint32_t, std::vector<uint32_t>> buffers,
                  uint32_t threads) {
  ComputeLimits limits;
  limits.threads = threads;
  auto stats = Dispatch(program, {groups, 1, 1}, buffers, limits);
  INFO((stats.ok() ? "" : stats.error().ToString()));
  REQUIRE(stats.ok());
  return {std::move(buffers), *stats};
}

TEST_CASE("workgroups writing their own words keep the parallel run",
          "[pipeline][threads]") {
  const simt::Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer In { uint v[]; } in_;
layout(set = 0, binding = 1) buffer Out { uint v[]; } out_;
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint x = in_.v[i];
  for (uint k = 0u; k < (i % 7u); ++k) x = x * 1664525u + 1013904223u;
  out_.v[i] = x;
}
)");
  std::map<uint32_t, std::vector<uint32_t>> buffers;
  buffers[0].resize(64 * 16);
  for (uint32_t i = 0; i < buffers[0].size(); ++i) buffers[0][i] = i * 7919u;
  buffers[1].assign(64 * 16, 0);
  const ThreadedRun one = RunOn(p, 16, buffers, 1);
  const ThreadedRun two = RunOn(p, 16, buffers, 2);
  CHECK(two.buffers == one.buffers);
  CHECK(two.stats.warp_instructions == one.stats.warp_instructions);
  CHECK(two.stats.threads == 2);
  CHECK_FALSE(two.stats.rerun_in_order);
}

TEST_CASE("workgroups sharing a written word are rerun in order",
          "[pipeline][threads]") {
  SECTION("an atomic counter: the order decides each invocation's slot") {
    const simt::Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint counter; uint order[]; } b;
void main() {
  b.order[gl_GlobalInvocationID.x] = atomicAdd(b.counter, 1u);
}
)");
    std::map<uint32_t, std::vector<uint32_t>> buffers;
    buffers[0].assign(1 + 32 * 12, 0);
    const ThreadedRun one = RunOn(p, 12, buffers, 1);
    const ThreadedRun two = RunOn(p, 12, buffers, 2);
    CHECK(two.buffers == one.buffers);
    CHECK(two.stats.rerun_in_order);
    CHECK(two.stats.threads == 1);
  }
  SECTION("a workgroup reads what an earlier one wrote") {
    // Workgroup g adds its id to the word workgroup g - 1 wrote: in order,
    // word g holds 1 + 2 + ... + g; out of order it could hold less.
    const simt::Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint g = gl_WorkGroupID.x;
  b.v[g + 1u] = b.v[g] + g + 1u;
}
)");
    std::map<uint32_t, std::vector<uint32_t>> buffers;
    buffers[0].assign(41, 0);
    const ThreadedRun one = RunOn(p, 40, buffers, 1);
    CHECK(one.buffers.at(0)[40] == 40 * 41 / 2);
    const ThreadedRun two = RunOn(p, 40, buffers, 2);
    CHECK(two.buffers == one.buffers);
    CHECK(two.stats.rerun_in_order);
  }
}

}  // namespace
}  // namespace warpsim::pipeline
