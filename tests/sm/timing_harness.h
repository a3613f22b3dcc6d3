// The timing tests' harness (timing_test.cpp, timing_loops_test.cpp): a
// test machine with hand-picked figures, and compute dispatches of GLSL
// shaders on it, timed or functional.
#ifndef WARPSIM_TESTS_SM_TIMING_HARNESS_H_
#define WARPSIM_TESTS_SM_TIMING_HARNESS_H_

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "pipeline/compute.h"
#include "runner/shader_build.h"
#include "sm/timing.h"
#include "spirv/compile.h"

namespace warpsim::sm::timing_test {

inline constexpr spirv::TargetEnv kEnv = spirv::TargetEnv::kVulkan1_3;

// Built as the runner builds it; the blocks in the order the program text
// gives them unless `schedule` (the hand-computed cycles of the tests
// follow the text; simt/schedule.h's order has tests of its own).
inline simt::Program BuildGlsl(const std::string& source,
                               bool schedule = false) {
  auto words =
      spirv::CompileGlsl(source, spirv::ShaderStage::kCompute, kEnv, "t.comp");
  INFO((words.ok() ? "" : words.error().ToString()));
  REQUIRE(words.ok());
  simt::LowerOptions options;
  options.schedule = schedule;
  auto built = runner::BuildProgram(*words, kEnv, "t.comp", options, {});
  INFO((built.ok() ? "" : built.error().ToString()));
  REQUIRE(built.ok());
  return std::move(built->program);
}

// The test machine: one SM of four sub-partitions, FMA latency 4 and one
// instruction per cycle, ALU latency 4 every 2 cycles, memory 20 / 100 /
// 300 cycles.
inline TimingConfig TestConfig() {
  TimingConfig c;
  c.clock_mhz = 1000;
  c.sms = 1;
  c.graphics_sms = 1;
  c.fma = {4, 1};
  c.alu = {4, 2};
  c.branch = {4, 1};
  c.memory.shared_latency = 20;
  c.memory.l1_latency = 20;
  c.memory.l2_latency = 100;
  c.memory.dram_latency = 300;
  c.memory.l2_bytes_per_cycle_per_sm = 1e9;  // no bandwidth limit
  c.memory.dram_bytes_per_cycle_per_sm = 1e9;
  c.scheduler = SchedulerPolicy::kGto;
  c.fuse_pairs = false;  // every SPIR-V instruction issues (but see below)
  c.fold_constant_chains = false;  // (and chains by constants are not folded)
  return c;
}

struct Timed {
  RunTiming run;
  std::vector<float> buffer;
  uint64_t warp_instructions = 0;
};

// Every warp instruction either issued (a selected cycle that was not a
// predicated-off one) or went with the one before it (fused, a layout
// branch, unrolled loop control, loop control in idle cycles, a repeated
// computation, a register move, a predicated selection's branch): the
// run's sum of those.
inline uint64_t IssuedOrFree(const RunTiming& run) {
  return run.stall_cycles[static_cast<size_t>(trace::StallReason::kSelected)] -
         run.predicated_off_instructions - run.reconvergence_instructions -
         run.loop_entry_instructions - run.selection_move_instructions +
         run.fused_instructions + run.layout_branches +
         run.unrolled_loop_instructions + run.bubble_instructions +
         run.redundant_instructions + run.register_moves +
         run.predicated_branches;
}

// Dispatches `groups` workgroups of `source` on the timing model (or, with
// `functional`, without it) over a buffer of 4096 floats holding 1, 2, 3,
// ..., and returns the run's timing and the buffer. `schedule`: as
// BuildGlsl's.
inline Timed Run(const std::string& source, uint32_t groups,
                 const TimingConfig& config = TestConfig(),
                 const SmLimits& limits = SmLimits{}, bool functional = false,
                 bool schedule = false) {
  const simt::Program program = BuildGlsl(source, schedule);
  Timed out;
  out.buffer.resize(4096);
  for (size_t i = 0; i < out.buffer.size(); ++i) {
    out.buffer[i] = 1.0f + static_cast<float>(i % 7) * 0.125f;
  }
  std::vector<simt::MemRegion> regions(program.num_regions);
  regions[program.resources[0].region] = {
      reinterpret_cast<uint8_t*>(out.buffer.data()),
      out.buffer.size() * sizeof(float), true};
  TimingModel model(config, limits, 0);
  pipeline::ComputeLimits cl;
  if (!functional) cl.driver = &model;
  const uint32_t g[3] = {groups, 1, 1};
  auto stats = pipeline::DispatchCompute(program, g, regions, {}, cl);
  INFO((stats.ok() ? "" : stats.error().ToString()));
  REQUIRE(stats.ok());
  out.warp_instructions = stats->warp_instructions;
  if (!functional) {
    REQUIRE(model.runs().size() == 1);
    out.run = model.runs()[0];
  }
  return out;
}

// A shader of one workgroup of 32 lanes whose lanes each read x = v[i],
// run `body` on it (n = 16 trips from v[0] = 1, so nothing folds a loop on
// it), and write x back.
inline std::string OnX(const std::string& body) {
  return "#version 450\n"
         "#extension GL_EXT_control_flow_attributes : enable\n"
         "layout(local_size_x = 32) in;\n"
         "layout(set = 0, binding = 0) buffer B { float v[]; } b;\n"
         "void main() {\n  uint i = gl_GlobalInvocationID.x;\n"
         "  float x = b.v[i];\n  int n = int(b.v[0]) * 16;\n" +
         body + "  b.v[i] = x;\n}\n";
}

}  // namespace warpsim::sm::timing_test

#endif  // WARPSIM_TESTS_SM_TIMING_HARNESS_H_
