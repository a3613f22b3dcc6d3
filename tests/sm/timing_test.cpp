// Tests of emulator/sm/timing.cpp: the SM timing model driving compute
// dispatches, with cycle counts computed by hand from the test's own
// machine (timing_harness.h), and the results of timing mode equal
// to functional mode's.
//
// The shaders are GLSL, so a few instructions around the part under test
// (loads of the inputs, the store, the address arithmetic) are the
// compiler's; the tests compare two shaders that differ only in the part
// under test, so that those cancel: e.g. 32 more dependent FMUL + FADD
// pairs must take exactly 32 x 2 x the FMA latency more cycles.
#include "sm/timing.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "pipeline/compute.h"
#include "spirv/compile.h"
#include "timing_harness.h"

namespace warpsim::sm {
namespace {

using namespace timing_test;  // NOLINT: the harness

// A shader whose lanes each run `chains` interleaved dependent chains of
// `steps` x (v *= m; v += c) on values from the buffer.
std::string Chains(uint32_t local_size, uint32_t chains, uint32_t steps,
                   const std::string& before = "") {
  std::string s =
      "#version 450\nlayout(local_size_x = " + std::to_string(local_size) +
      ") in;\n"
      "layout(set = 0, binding = 0) buffer B { float v[]; } b;\n"
      "void main() {\n"
      "  uint i = gl_GlobalInvocationID.x;\n"
      "  float m = b.v[4000], c = b.v[4001];\n";
  s += before;
  for (uint32_t k = 0; k < chains; ++k) {
    s += "  float x" + std::to_string(k) + " = b.v[i * 4 + " +
         std::to_string(k) + "];\n";
  }
  // Each step multiplies every chain, then adds to every chain: with
  // `chains` chains an instruction's input was written `chains`
  // instructions earlier.
  for (uint32_t n = 0; n < steps; ++n) {
    for (uint32_t k = 0; k < chains; ++k) {
      s += "  x" + std::to_string(k) + " *= m;\n";
    }
    for (uint32_t k = 0; k < chains; ++k) {
      s += "  x" + std::to_string(k) + " += c;\n";
    }
  }
  std::string sum = "x0";
  for (uint32_t k = 1; k < chains; ++k) sum += " + x" + std::to_string(k);
  s += "  b.v[i * 4] = " + sum + ";\n}\n";
  return s;
}

TEST_CASE("a dependent FMA chain costs its latency per instruction",
          "[sm][timing]") {
  const Timed a = Run(Chains(32, 1, 32), 1);
  const Timed b = Run(Chains(32, 1, 64), 1);
  // 32 more steps of a dependent FMUL and FADD: 64 instructions, each
  // waiting for the one before: 64 x 4 cycles.
  CHECK(b.warp_instructions - a.warp_instructions == 64);
  CHECK(b.run.cycles - a.run.cycles == 64 * 4);
  // Waiting on a fixed-latency result is "wait".
  CHECK(b.run.stall_cycles[static_cast<size_t>(trace::StallReason::kWait)] >
        b.run.stall_cycles[static_cast<size_t>(
            trace::StallReason::kLongScoreboard)]);
}

TEST_CASE("floor and fract cost the cvt figures, on the SFU pipe",
          "[sm][timing]") {
  // A dependent chain x = floor(x) + c (FRND, then an FADD) and the same
  // with fract: each step waits for the conversion's latency, then the
  // add's. 32 more steps cost 32 x (cvt latency + FMA latency).
  auto chain = [](const std::string& fn, uint32_t steps,
                  const std::string& close = "") {
    std::string s =
        "#version 450\nlayout(local_size_x = 32) in;\n"
        "layout(set = 0, binding = 0) buffer B { float v[]; } b;\n"
        "void main() {\n  uint i = gl_GlobalInvocationID.x;\n"
        "  float c = b.v[4001], x = b.v[i];\n";
    for (uint32_t n = 0; n < steps; ++n) {
      s += "  x = " + fn + "(x)" + close + " + c;\n";
    }
    return s + "  b.v[i] = x;\n}\n";
  };
  TimingConfig config = TestConfig();
  config.cvt = {13, 8};
  config.sfu = {40, 1};  // not these instructions' figures
  for (const char* fn : {"floor", "fract"}) {
    INFO(fn);
    const Timed a = Run(chain(fn, 32), 1, config);
    const Timed b = Run(chain(fn, 64), 1, config);
    CHECK(b.warp_instructions - a.warp_instructions == 64);
    CHECK(b.run.cycles - a.run.cycles == 32 * (13 + 4));
  }
  // float(int(x)) + c: F2I (cvt), then I2F on the ALU (latency 4), then
  // the add.
  const Timed a = Run(chain("float(int", 32, ")"), 1, config);
  const Timed b = Run(chain("float(int", 64, ")"), 1, config);
  CHECK(b.warp_instructions - a.warp_instructions == 96);
  CHECK(b.run.cycles - a.run.cycles == 32 * (13 + 4 + 4));
}

TEST_CASE("a multiply and its add issue as one instruction (fused)",
          "[sm][timing]") {
  TimingConfig fused = TestConfig();
  fused.fuse_pairs = true;
  // x = x * m + c written as one statement: OpFMul then the OpFAdd that
  // reads it, which NVIDIA's compiler contracts into one FFMA.
  auto shader = [](int steps) {
    std::string s =
        "#version 450\nlayout(local_size_x = 32) in;\n"
        "layout(set = 0, binding = 0) buffer B { float v[]; } b;\n"
        "void main() {\n  uint i = gl_GlobalInvocationID.x;\n"
        "  float m = b.v[4000], c = b.v[4001], x = b.v[i];\n";
    for (int n = 0; n < steps; ++n) s += "  x = x * m + c;\n";
    return s + "  b.v[i] = x;\n}\n";
  };
  const Timed a = Run(shader(32), 1, fused);
  const Timed b = Run(shader(64), 1, fused);
  const Timed unfused = Run(shader(64), 1);
  // 32 more pairs: 64 more warp instructions, 32 more issues of latency 4.
  CHECK(b.warp_instructions - a.warp_instructions == 64);
  CHECK(b.run.fused_instructions - a.run.fused_instructions == 32);
  CHECK(b.run.cycles - a.run.cycles == 32 * 4);
  CHECK(IssuedOrFree(b.run) == b.warp_instructions);
  // Unfused, each pair costs two latencies.
  CHECK(unfused.run.cycles - b.run.cycles >= 64 * 4 - 8);
  CHECK(unfused.run.fused_instructions == 0);
  CHECK(unfused.buffer == b.buffer);
}

TEST_CASE("a repeated computation issues with the instruction before it",
          "[sm][timing]") {
  // fract(3.0 * d) twice: the second multiply and fract repeat the first
  // (simt::Program::redundant); with cse they run free, one warp each.
  const std::string shader = OnX("  x = fract(3.0 * x) * fract(3.0 * x);\n");
  TimingConfig off = TestConfig();
  off.cse = false;
  TimingConfig on = TestConfig();
  on.cse = true;
  const Timed plain = Run(shader, 1, off);
  const Timed cse = Run(shader, 1, on);
  CHECK(plain.run.redundant_instructions == 0);
  CHECK(cse.run.redundant_instructions == 2);
  CHECK(cse.warp_instructions == plain.warp_instructions);
  CHECK(IssuedOrFree(cse.run) == cse.warp_instructions);
  CHECK(cse.run.cycles < plain.run.cycles);
  CHECK(cse.buffer == plain.buffer);
}

TEST_CASE("a chain of multiply-adds by constants issues as one",
          "[sm][timing]") {
  // x = x * 1.5 + 0.25 sixteen times, an affine map of x
  // (simt::Program::folded): folded, 15 of the 16 fused pairs issue with
  // the first, and the chain waits one latency (4 cycles) instead of 16.
  std::string body;
  for (int k = 0; k < 16; ++k) body += "  x = x * 1.5 + 0.25;\n";
  const std::string shader = OnX(body);
  TimingConfig off = TestConfig();
  off.fuse_pairs = true;
  off.fold_constant_chains = false;
  TimingConfig on = off;
  on.fold_constant_chains = true;
  const Timed plain = Run(shader, 1, off);
  const Timed folded = Run(shader, 1, on);
  CHECK(folded.run.redundant_instructions - plain.run.redundant_instructions ==
        30);
  CHECK(plain.run.cycles - folded.run.cycles == 15 * 4);
  CHECK(folded.warp_instructions == plain.warp_instructions);
  CHECK(IssuedOrFree(folded.run) == folded.warp_instructions);
  CHECK(folded.buffer == plain.buffer);
}

// A shader whose lanes each run eight interleaved integer chains on
// values from the buffer: `steps` times step(k) on chain k (which may use
// m, a value from the buffer), then the store of their sum.
std::string UintChains(uint32_t local_size, uint32_t steps,
                       const std::function<std::string(int)>& step) {
  std::string s =
      "#version 450\nlayout(local_size_x = " + std::to_string(local_size) +
      ") in;\n"
      "layout(set = 0, binding = 0) buffer B { uint v[]; } b;\n"
      "void main() {\n  uint i = gl_GlobalInvocationID.x;\n"
      "  uint m = b.v[4000];\n";
  for (int k = 0; k < 8; ++k) {
    s += "  uint x" + std::to_string(k) + " = b.v[(i * 8 + " +
         std::to_string(k) + ") % 4000];\n";
  }
  for (uint32_t n = 0; n < steps; ++n) {
    for (int k = 0; k < 8; ++k) s += "  " + step(k) + "\n";
  }
  return s + "  b.v[i % 4000] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;\n}\n";
}

// Eight interleaved chains of `steps` integer adds (x_k += m), one warp.
std::string IntAdds(uint32_t steps) {
  return UintChains(32, steps,
                    [](int k) { return "x" + std::to_string(k) + " += m;"; });
}

TEST_CASE("integer adds share the ALU and FMA pipes with split_int_adds",
          "[sm][timing]") {
  // 8 x 32 more independent adds: every 2 cycles on the ALU pipe alone
  // (interval 2), every cycle when they may go to the FMA pipe (imul
  // figures, interval 2) while the ALU pipe is busy.
  TimingConfig off = TestConfig();
  TimingConfig on = TestConfig();
  on.split_int_adds = true;
  on.imul = {4, 2};
  const Timed a_off = Run(IntAdds(32), 1, off);
  const Timed b_off = Run(IntAdds(64), 1, off);
  const Timed a_on = Run(IntAdds(32), 1, on);
  const Timed b_on = Run(IntAdds(64), 1, on);
  REQUIRE(b_off.warp_instructions - a_off.warp_instructions == 256);
  CHECK(b_off.run.cycles - a_off.run.cycles == 512);
  CHECK(b_on.run.cycles - a_on.run.cycles == 256);
  CHECK(a_off.run.fma_pipe_adds == 0);
  CHECK(b_on.run.fma_pipe_adds - a_on.run.fma_pipe_adds == 128);
  CHECK(b_on.buffer == b_off.buffer);
  CHECK(b_on.warp_instructions == b_off.warp_instructions);
}

TEST_CASE("independent instructions issue one per cycle", "[sm][timing]") {
  // Four interleaved chains: each instruction's input was written four
  // instructions earlier, which the latency of 4 allows: the 64 more
  // instructions of 8 more steps issue back to back.
  const Timed a = Run(Chains(32, 4, 16), 1);
  const Timed b = Run(Chains(32, 4, 24), 1);
  CHECK(b.warp_instructions - a.warp_instructions == 64);
  CHECK(b.run.cycles - a.run.cycles == 64);
}

// `Chains(32, 8, steps)`'s steps in a loop of `trips` trips.
std::string LoopedChains(uint32_t steps, uint32_t trips) {
  std::string s = Chains(32, 8, steps);
  const size_t body = s.find("  x0 *= m;");
  const size_t end = s.find("  b.v[i * 4] =");
  s.insert(end, "  }\n");
  s.insert(body,
           "  for (int r = 0; r < " + std::to_string(trips) + "; ++r) {\n");
  return s;
}

// The test machine with an instruction cache of 8 lines of 128 bytes (2
// ways) and 16 bytes per instruction: 64 instructions, one line fetched
// every 40 cycles.
TimingConfig CacheConfig() {
  TimingConfig c = TestConfig();
  c.icache_bytes = 1024;
  c.icache_line_bytes = 128;
  c.icache_ways = 2;
  c.instruction_bytes = 16;
  c.icache_fill_cycles = 40;
  return c;
}

TEST_CASE("code the instruction cache never held costs nothing",
          "[sm][timing][icache]") {
  // 64 steps of 8 chains: over 1024 instructions in a row, 16 times the
  // cache, but each line is used once: the first pass over a shader's code
  // is free (it is part of the measured launch costs).
  const Timed a = Run(Chains(32, 8, 64), 1);
  const Timed b = Run(Chains(32, 8, 64), 1, CacheConfig());
  CHECK(b.run.cycles == a.run.cycles);
  CHECK(b.run.stall_cycles[static_cast<size_t>(
            trace::StallReason::kNoInstruction)] == 0);
}

TEST_CASE("a loop that fits the instruction cache runs as without one",
          "[sm][timing][icache]") {
  // 2 steps of 8 chains: 32 instructions and the loop's control, under the
  // 64 the cache holds: from the second trip on every line is there.
  const Timed a = Run(LoopedChains(2, 16), 1);
  const Timed b = Run(LoopedChains(2, 16), 1, CacheConfig());
  CHECK(b.run.cycles == a.run.cycles);
}

TEST_CASE("a loop larger than the instruction cache waits for its lines",
          "[sm][timing][icache]") {
  // 16 steps of 8 chains: 256 instructions, 32 lines, and the loop's
  // control, 4 times what the cache holds: every line of a trip was lost
  // since the last one and comes back one at a time, 40 cycles each, where
  // the warp would issue its 8 instructions in 8. 4 more trips take at
  // least 4 x 32 x 40 cycles more; at most 4 x (32 + 4) x 40 (the control's
  // line or two, and the line fetched ahead past the loop's end, which
  // holds up the fetch of its first line).
  const TimingConfig config = CacheConfig();
  const Timed a = Run(LoopedChains(16, 4), 1, config);
  const Timed b = Run(LoopedChains(16, 8), 1, config);
  const uint64_t more = b.run.cycles - a.run.cycles;
  INFO("4 more trips: " << more << " cycles more");
  CHECK(more >= 4 * 32 * 40);
  CHECK(more <= 4 * (32 + 4) * 40);
  CHECK(b.run.stall_cycles[static_cast<size_t>(
            trace::StallReason::kNoInstruction)] > 0);
  // Without the cache model the same 4 trips cost their instructions.
  const Timed c = Run(LoopedChains(16, 4), 1);
  const Timed d = Run(LoopedChains(16, 8), 1);
  CHECK(d.run.cycles - c.run.cycles < 4 * 32 * 40 / 4);
  // The results do not depend on the timing.
  CHECK(b.buffer == d.buffer);
}

TEST_CASE("a second warp hides the first one's latency", "[sm][timing]") {
  TimingConfig one_sp = TestConfig();
  SmLimits limits;
  limits.sub_partitions = 1;  // both warps on one scheduler
  const Timed one = Run(Chains(32, 1, 64), 1, one_sp, limits);
  const Timed two = Run(Chains(64, 1, 64), 1, one_sp, limits);
  // Each warp issues one instruction every 4 cycles; two warps fill two
  // of every four issue slots, so the second warp adds a few cycles at
  // most, not its 512.
  CHECK(two.run.cycles < one.run.cycles + 16);
  CHECK(two.run.cycles >= one.run.cycles);
  CHECK(two.run.ipc > one.run.ipc * 1.9);
}

TEST_CASE("registers limit how many warps are resident", "[sm][timing]") {
  const std::string shader = Chains(32, 1, 64);
  SmLimits tight;
  // One sub-partition whose register file holds one warp: every warp
  // takes the whole file (one allocation unit of 2048 registers).
  tight.sub_partitions = 1;
  tight.registers_per_sm = 2048;
  tight.register_allocation_unit = 2048;
  SmLimits one_sp;
  one_sp.sub_partitions = 1;
  const Timed both = Run(shader, 2, TestConfig(), one_sp);
  const Timed serial = Run(shader, 2, TestConfig(), tight);
  const Timed single = Run(shader, 1, TestConfig(), one_sp);
  // Two workgroups of one warp: together they take about as long as one;
  // with room for one warp only, the second starts when the first retired.
  CHECK(both.run.cycles < single.run.cycles + 16);
  CHECK(serial.run.cycles >= 2 * single.run.cycles - 2);
  CHECK(serial.run.cycles <= 2 * single.run.cycles + 2);
  CHECK(serial.run.achieved_occupancy < both.run.achieved_occupancy);
  CHECK(serial.run.theoretical_occupancy < both.run.theoretical_occupancy);
}

TEST_CASE("a load's latency is hidden by other warps' loads", "[sm][timing]") {
  // Every warp loads, then uses the value at once: one warp waits the
  // DRAM latency; eight warps on four sub-partitions wait for theirs at
  // the same time.
  const std::string load =
      "#version 450\nlayout(local_size_x = 32) in;\n"
      "layout(set = 0, binding = 0) buffer B { float v[]; } b;\n"
      "void main() {\n  uint i = gl_GlobalInvocationID.x;\n"
      "  b.v[i] = b.v[i + 2048] * 2.0;\n}\n";
  const Timed one = Run(load, 1);
  const Timed eight = Run(load, 8);
  CHECK(one.run.cycles >= 300);
  CHECK(eight.run.cycles < one.run.cycles + 64);
  CHECK(one.run.stall_cycles[static_cast<size_t>(
            trace::StallReason::kLongScoreboard)] >= 290);
}

TEST_CASE("a barrier holds warps until the workgroup arrives", "[sm][timing]") {
  // Warp 0 runs a long chain before the barrier, warp 1 none: warp 1
  // waits at the barrier.
  const std::string shader =
      "#version 450\nlayout(local_size_x = 64) in;\n"
      "layout(set = 0, binding = 0) buffer B { float v[]; } b;\n"
      "shared float s[64];\n"
      "void main() {\n  uint i = gl_LocalInvocationIndex;\n"
      "  float x = b.v[i], m = b.v[4000], c = b.v[4001];\n"
      "  if (i < 32) {\n" +
      [] {
        std::string body;
        for (int n = 0; n < 32; ++n) body += "    x = x * m + c;\n";
        return body;
      }() +
      "  }\n  s[i] = x;\n  barrier();\n  b.v[i] = s[63 - i];\n}\n";
  const Timed t = Run(shader, 1);
  const Timed f = Run(shader, 1, TestConfig(), SmLimits{}, true);
  CHECK(t.run.stall_cycles[static_cast<size_t>(trace::StallReason::kBarrier)] >=
        32 * 2 * 4 - 16);
  CHECK(t.buffer == f.buffer);
}

TEST_CASE("swap mode costs more than free context switches", "[sm][timing]") {
  const std::string load =
      "#version 450\nlayout(local_size_x = 32) in;\n"
      "layout(set = 0, binding = 0) buffer B { float v[]; } b;\n"
      "void main() {\n  uint i = gl_GlobalInvocationID.x;\n"
      "  float x = b.v[i + 2048];\n  float y = b.v[i + 1024];\n"
      "  b.v[i] = x * y;\n}\n";
  TimingConfig swap = TestConfig();
  swap.context_switch = ContextSwitch::kSwap;
  swap.swap_cycles_per_register = 2;
  const Timed free_mode = Run(load, 16);
  const Timed swap_mode = Run(load, 16, swap);
  CHECK(swap_mode.run.cycles > free_mode.run.cycles);
  CHECK(swap_mode.buffer == free_mode.buffer);
}

TEST_CASE(
    "a warp is throttled only while its operands are ready and its "
    "pipe is busy",
    "[sm][timing]") {
  // Eight warps (two per sub-partition), each lane running 8 independent
  // integer chains: ALU instructions that could issue every cycle.
  const std::string shader = UintChains(256, 16, [](int k) {
    return "x" + std::to_string(k) + " ^= x" + std::to_string((k + 1) % 8) +
           " >> 1;";
  });
  const auto throttle = [](const Timed& t) {
    return t.run.stall_cycles[static_cast<size_t>(
        trace::StallReason::kMathPipeThrottle)];
  };
  TimingConfig every_cycle = TestConfig();  // every pipe, every cycle
  for (PipeTiming* p :
       {&every_cycle.fma, &every_cycle.alu, &every_cycle.fp64, &every_cycle.sfu,
        &every_cycle.imul, &every_cycle.sfu_trig, &every_cycle.cvt,
        &every_cycle.branch, &every_cycle.sync, &every_cycle.lsu,
        &every_cycle.tex}) {
    p->interval = 1;
  }
  const Timed free_pipe = Run(shader, 1, every_cycle);
  // The ALU takes one instruction per 2 cycles: two warps with ready
  // operands wait for it.
  TimingConfig half = every_cycle;
  half.alu = {4, 2};
  const Timed busy_pipe = Run(shader, 1, half);
  CHECK(throttle(free_pipe) == 0);
  CHECK(throttle(busy_pipe) > 0);
  CHECK(busy_pipe.run.cycles > free_pipe.run.cycles);
  // One dependent chain on one warp: the operand (4 cycles) always comes
  // after the pipe is free again (2), so the warp waits on the operand and
  // is never throttled.
  const Timed chain = Run(Chains(32, 1, 32), 1, half);
  CHECK(throttle(chain) == 0);
  CHECK(chain.run.stall_cycles[static_cast<size_t>(trace::StallReason::kWait)] >
        0);
}

TEST_CASE(
    "timing mode computes what functional mode computes, the same "
    "way twice",
    "[sm][timing]") {
  const std::string shader = Chains(64, 2, 20);
  for (SchedulerPolicy p :
       {SchedulerPolicy::kGto, SchedulerPolicy::kLrr, SchedulerPolicy::kOldest,
        SchedulerPolicy::kTwoLevel}) {
    TimingConfig c = TestConfig();
    c.scheduler = p;
    c.two_level_active = 2;
    const Timed t1 = Run(shader, 12, c);
    const Timed t2 = Run(shader, 12, c);
    const Timed f = Run(shader, 12, c, SmLimits{}, true);
    INFO(SchedulerName(p));
    CHECK(t1.buffer == f.buffer);
    CHECK(t1.warp_instructions == f.warp_instructions);
    CHECK(t1.run.cycles == t2.run.cycles);
    CHECK(t1.run.stall_cycles == t2.run.stall_cycles);
    CHECK(t1.run.warp_instructions == f.warp_instructions);
  }
}

TEST_CASE("an observer watches the trace fill and sets its pace",
          "[sm][timing]") {
  // It asks for every cycle, so it sees each warp resident before it
  // retires, the clock never going back, and the issued count growing to
  // the run's warp instructions, the last call at the run's end.
  struct Watch : trace::Observer {
    std::vector<uint64_t> cycles;
    uint64_t issued = 0;
    bool open_seen = false, issued_monotonic = true;
    uint64_t OnProgress(const trace::Trace& t, uint64_t cycle,
                        uint64_t issued_now) override {
      cycles.push_back(cycle);
      issued_monotonic &= issued_now >= issued;
      issued = issued_now;
      for (const trace::WarpSpan& w : t.warps) {
        open_seen |= w.end == trace::kStillResident;
      }
      return cycle + 1;
    }
  };
  const simt::Program program = BuildGlsl(Chains(64, 2, 8));
  std::vector<float> buffer(4096, 1.0f);
  std::vector<simt::MemRegion> regions(program.num_regions);
  regions[program.resources[0].region] = {
      reinterpret_cast<uint8_t*>(buffer.data()), buffer.size() * sizeof(float),
      true};
  trace::Trace tr;
  TimingModel model(TestConfig(), SmLimits{}, 0, &tr);
  Watch watch;
  model.set_observer(&watch);
  pipeline::ComputeLimits cl;
  cl.driver = &model;
  const uint32_t g[3] = {4, 1, 1};
  auto stats = pipeline::DispatchCompute(program, g, regions, {}, cl);
  REQUIRE(stats.ok());
  REQUIRE(model.runs().size() == 1);
  const RunTiming& run = model.runs()[0];
  REQUIRE(watch.cycles.size() >= 2);
  CHECK(std::is_sorted(watch.cycles.begin(), watch.cycles.end()));
  CHECK(watch.cycles.back() == run.end);
  CHECK(watch.open_seen);
  CHECK(watch.issued_monotonic);
  CHECK(watch.issued == run.warp_instructions);
  CHECK(tr.warps.size() == 8);  // 4 workgroups of 2 warps
  for (const trace::WarpSpan& w : tr.warps) {
    CHECK(w.end != trace::kStillResident);
    CHECK(w.shader == 0);
  }
  REQUIRE(tr.shaders.size() == 1);
  CHECK(tr.shaders[0].lines.size() == program.code.size());
  CHECK(tr.quads.empty());

  // An observer that asks for a call every 1000 cycles is called less.
  struct Sparse : trace::Observer {
    size_t calls = 0;
    uint64_t OnProgress(const trace::Trace&, uint64_t cycle,
                        uint64_t) override {
      ++calls;
      return cycle + 1000;
    }
  };
  trace::Trace tr2;
  TimingModel model2(TestConfig(), SmLimits{}, 0, &tr2);
  Sparse sparse;
  model2.set_observer(&sparse);
  cl.driver = &model2;
  REQUIRE(pipeline::DispatchCompute(program, g, regions, {}, cl).ok());
  CHECK(sparse.calls < watch.cycles.size());
  CHECK(sparse.calls <= model2.runs()[0].cycles / 1000 + 2);
}

TEST_CASE(
    "a block in the order NVIDIA's compiler schedules it issues a load "
    "before the arithmetic the text puts first",
    "[sm][timing]") {
  // 8 dependent FMA (4 cycles each), then a load from a word nobody has
  // read (DRAM: 300 cycles) at an address of two ALU instructions, then
  // its consumer. In the text's order the chain's 32 cycles come before
  // the load; scheduled (simt/schedule.h), the load and its address go
  // first and the chain runs while it is on its way.
  const std::string shader =
      OnX("  float y = b.v[(i * 7u + 1024u) & 4095u];\n"
          "  x = x * 1.5 + 0.25; x = x * 1.5 + 0.25; x = x * 1.5 + 0.25;\n"
          "  x = x * 1.5 + 0.25; x = x * 1.5 + 0.25; x = x * 1.5 + 0.25;\n"
          "  x = x * 1.5 + 0.25; x = x * 1.5 + 0.25;\n"
          "  x += y;\n");
  // (The load is written first so that glslang keeps it in the block;
  // the text below puts it after the chain.)
  const std::string text =
      OnX("  x = x * 1.5 + 0.25; x = x * 1.5 + 0.25; x = x * 1.5 + 0.25;\n"
          "  x = x * 1.5 + 0.25; x = x * 1.5 + 0.25; x = x * 1.5 + 0.25;\n"
          "  x = x * 1.5 + 0.25; x = x * 1.5 + 0.25;\n"
          "  float y = b.v[(i * 7u + 1024u) & 4095u];\n"
          "  x += y;\n");
  TimingConfig c = TestConfig();
  c.fuse_pairs = true;  // each x * 1.5 + 0.25 one FFMA
  const Timed in_text = Run(text, 1, c, SmLimits{}, false, false);
  const Timed scheduled = Run(text, 1, c, SmLimits{}, false, true);
  const Timed written_first = Run(shader, 1, c, SmLimits{}, false, false);
  CHECK(scheduled.buffer == in_text.buffer);
  CHECK(scheduled.warp_instructions == in_text.warp_instructions);
  // The chain (8 x 4 cycles, less the few the load's address takes before
  // it) runs under the load.
  CHECK(scheduled.run.cycles + 24 <= in_text.run.cycles);
  // As fast as the text that puts the load first.
  CHECK(scheduled.run.cycles <= written_first.run.cycles);
}

TEST_CASE(
    "a storage buffer's address from a run-time index takes buffer_address's "
    "latency",
    "[sm][timing]") {
  // Dependent steps, each an index from the last value, its access chain
  // into the buffer and the load: each step's access chain is on the
  // chain, so it waits buffer_address.latency where it waited the ALU's 4
  // cycles. Two steps more cost 2 x (24 - 4) cycles more than with the
  // ALU's figures (the shader's other accesses cancel out).
  auto steps = [](int n) {
    std::string body;
    for (int k = 0; k < n; ++k) body += "  x = b.v[uint(x) & 63u];\n";
    return OnX(body);
  };
  TimingConfig alu = TestConfig();
  TimingConfig longer = TestConfig();
  longer.buffer_address = {24, 2};
  const Timed a2 = Run(steps(2), 1, alu), a4 = Run(steps(4), 1, alu);
  const Timed b2 = Run(steps(2), 1, longer), b4 = Run(steps(4), 1, longer);
  CHECK(b4.buffer == a4.buffer);
  CHECK(b4.run.cycles - b2.run.cycles ==
        a4.run.cycles - a2.run.cycles + 2 * (24 - 4));
  // Workgroup memory's addresses keep the ALU's.
  auto shared = [](int n) {
    std::string body =
        "#version 450\nlayout(local_size_x = 32) in;\n"
        "layout(set = 0, binding = 0) buffer B { float v[]; } b;\n"
        "shared float s[64];\n"
        "void main() {\n  uint i = gl_GlobalInvocationID.x;\n"
        "  s[i] = float(i); s[i + 32u] = float(i);\n  barrier();\n"
        "  float x = s[i];\n";
    for (int k = 0; k < n; ++k) body += "  x = s[uint(x) & 63u];\n";
    return body + "  b.v[i] = x;\n}\n";
  };
  CHECK(Run(shared(4), 1, longer).run.cycles -
            Run(shared(2), 1, longer).run.cycles ==
        Run(shared(4), 1, alu).run.cycles - Run(shared(2), 1, alu).run.cycles);
}

TEST_CASE(
    "a variable held in registers is no memory: its loads and stores issue "
    "with the instruction before them",
    "[sm][timing]") {
  // a[4], written and read only in loops of a constant 4 trips: the
  // register-count model holds it in registers (simt::Program::
  // register_private), so its 4 stores, 4 loads and their 8 access chains
  // are register moves.
  const std::string shader =
      OnX("  float a[4];\n"
          "  for (int k = 0; k < 4; ++k) a[k] = b.v[(i + uint(k)) & 63u];\n"
          "  for (int k = 0; k < 4; ++k) x = x * a[k] + 0.5;\n");
  TimingConfig off = TestConfig();
  off.free_register_moves = false;
  TimingConfig on = TestConfig();
  on.free_register_moves = true;
  const Timed moves = Run(shader, 1, off);
  const Timed free = Run(shader, 1, on);
  CHECK(moves.run.register_moves == 0);
  CHECK(free.run.register_moves == 16);
  CHECK(free.warp_instructions == moves.warp_instructions);
  CHECK(IssuedOrFree(free.run) == free.warp_instructions);
  // Each move not issued saves at least its issue cycle.
  CHECK(free.run.cycles + 16 <= moves.run.cycles);
  CHECK(free.buffer == moves.buffer);
}

TEST_CASE(
    "a uniform block's word at a constant offset is a constant-bank "
    "operand: no load, no wait",
    "[sm][timing]") {
  // y = x * k + 0.5, four times, with k from a uniform block (NVIDIA's
  // code reads c[bank][offset] in the FFMA) or from the storage buffer (a
  // load, and the first FFMA waits for it). The uniform's load is no
  // memory request and its value is there at once.
  auto build = [](bool uniform) {
    return BuildGlsl(
        std::string("#version 450\nlayout(local_size_x = 32) in;\n"
                    "layout(set = 0, binding = 0) buffer B { float v[]; } b;\n"
                    "layout(set = 0, binding = 1) uniform U { float k; } u;\n"
                    "void main() {\n  uint i = gl_GlobalInvocationID.x;\n"
                    "  float x = b.v[i];\n  float k = ") +
        (uniform ? "u.k" : "b.v[4000]") +
        ";\n  for (int n = 0; n < 4; ++n) x = x * k + 0.5;\n"
        "  b.v[i] = x;\n}\n");
  };
  auto run = [](const simt::Program& program, std::vector<float>* buffer,
                float* k) {
    std::vector<simt::MemRegion> regions(program.num_regions);
    regions[program.resources[0].region] = {
        reinterpret_cast<uint8_t*>(buffer->data()),
        buffer->size() * sizeof(float), true};
    regions[program.resources[1].region] = {reinterpret_cast<uint8_t*>(k),
                                            sizeof(float), false};
    TimingModel model(TestConfig(), SmLimits{}, 0);
    pipeline::ComputeLimits cl;
    cl.driver = &model;
    const uint32_t g[3] = {1, 1, 1};
    auto stats = pipeline::DispatchCompute(program, g, regions, {}, cl);
    REQUIRE(stats.ok());
    REQUIRE(model.runs().size() == 1);
    return model.runs()[0];
  };
  std::vector<float> ub(4096, 1.5f), sb(4096, 1.5f);
  float k = 1.5f;
  const simt::Program pu = build(true), ps = build(false);
  REQUIRE(pu.resources.size() == 2);
  const RunTiming u = run(pu, &ub, &k);
  const RunTiming st = run(ps, &sb, &k);
  CHECK(ub == sb);
  // The storage variant: b.v[i], b.v[4000] and the store; the uniform
  // one: b.v[i] and the store.
  CHECK(st.memory.requests == 3);
  CHECK(u.memory.requests == 2);
  CHECK(u.register_moves >= 1);
  // b.v[4000] misses the L1 as b.v[i] does (another line), in the same
  // wait: the storage variant is no faster, and it issues one more
  // instruction.
  CHECK(u.cycles < st.cycles);
}

TEST_CASE(
    "a write does not wait for an earlier pending write to its register "
    "(renamed)",
    "[sm][timing]") {
  // a[8] filled by a loop of a constant 8 trips (unrolled completely): the
  // executor loads each element into the same register, NVIDIA's code
  // each into its own. Without renaming, each trip's first write to that
  // register waits for the load before it: 7 of the 8 L1 hits (20
  // cycles) one after the other. Renamed, the 8 loads overlap.
  const std::string shader =
      OnX("  float a[8];\n"
          "  for (int k = 0; k < 8; ++k) a[k] = b.v[(i + uint(k)) & 63u];\n"
          "  for (int k = 0; k < 8; ++k) x = x * a[k] + 0.5;\n");
  TimingConfig off = TestConfig();
  off.rename_registers = false;
  TimingConfig on = TestConfig();
  on.rename_registers = true;
  const Timed waits = Run(shader, 1, off);
  const Timed renamed = Run(shader, 1, on);
  CHECK(renamed.warp_instructions == waits.warp_instructions);
  // Of the 7 serialised L1 latencies, at most one trip's few issue
  // cycles each remain.
  CHECK(renamed.run.cycles + 7 * (20 - 8) <= waits.run.cycles);
  CHECK(renamed.buffer == waits.buffer);
  // A value from a load on some lanes and a constant on the others (a phi
  // after an if): the read after the if waits for the load, renamed or
  // not. (The branch's phi copy reads the load's register; SetReady also
  // keeps the later ready cycle of a register written on fewer lanes than
  // the warp's, which the executor's allocator gives no live value here.)
  const std::string divergent =
      OnX("  float y = b.v[(i + 7u) & 63u];\n"
          "  if ((i & 1u) == 0u) y = 2.0;\n"
          "  x += y;\n");
  const Timed d_waits = Run(divergent, 1, off);
  const Timed d_renamed = Run(divergent, 1, on);
  CHECK(d_renamed.run.cycles == d_waits.run.cycles);
  CHECK(d_renamed.buffer == d_waits.buffer);
}

// One warp's eight independent loads of eight lines (each a DRAM miss in
// the test machine), then their sum, stored.
std::string EightLoads() {
  std::string s =
      "#version 450\nlayout(local_size_x = 32) in;\n"
      "layout(set = 0, binding = 0) buffer B { float v[]; } b;\n"
      "void main() {\n  uint i = gl_GlobalInvocationID.x;\n";
  for (int k = 0; k < 8; ++k) {
    s += "  float x" + std::to_string(k) + " = b.v[" + std::to_string(k * 256) +
         " + i];\n";
  }
  return s +
         "  b.v[i + 2048] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + "
         "x7));\n}\n";
}

TEST_CASE("a load holds its sub-partition's issue its *_issue_cycles more",
          "[sm][timing]") {
  // One warp, eight independent loads of eight lines (each a DRAM miss,
  // its data 300 cycles after its issue), then their sum: the sum's last
  // add waits for the last load's data, so each load but the last one
  // delays the end by the cycles it holds the issue: 7 x 3 cycles.
  const std::string s = EightLoads();
  TimingConfig held = TestConfig();
  held.memory.global_load_issue_cycles = 3;
  const Timed plain = Run(s, 1);
  const Timed hold = Run(s, 1, held);
  CHECK(hold.buffer == plain.buffer);
  CHECK(plain.run.memory_issue_hold_cycles == 0);
  CHECK(hold.run.memory_issue_hold_cycles == 8 * 3);
  CHECK(hold.run.cycles == plain.run.cycles + 7 * 3);
  // Four such warps on each sub-partition: what the loads hold is the
  // other warps' too; those ready then count as throttled by their pipes.
  auto throttled = [](const RunTiming& run) {
    uint64_t n = 0;
    for (trace::StallReason r :
         {trace::StallReason::kMathPipeThrottle,
          trace::StallReason::kLgThrottle, trace::StallReason::kTexThrottle}) {
      n += run.stall_cycles[static_cast<size_t>(r)];
    }
    return n;
  };
  const Timed many = Run(s, 16, held);
  const Timed many_plain = Run(s, 16);
  CHECK(many.run.memory_issue_hold_cycles == 16 * 8 * 3);
  CHECK(throttled(many.run) > throttled(many_plain.run));
  CHECK(many.run.cycles > many_plain.run.cycles);
}

TEST_CASE("a hold is first paid by cycles the sub-partition issues nothing",
          "[sm][timing]") {
  // The eight loads of the test above, one warp. Each load's address
  // takes an add and an access chain, 4 cycles each, so a load issues 9
  // cycles after the one before and 6 of those cycles issue nothing. With
  // holds of 8 and a slack of all eight holds the warp never stops: what
  // it owes is paid by those cycles and the 300 it waits for its data.
  // With a slack of one hold (8), the first load's fits it; each later
  // one finds 8 - 6 = 2 still owed, owes 10 and stops the issue 2 cycles:
  // 7 x 2, of which the last load's delays nothing (the sum waits for its
  // data anyway).
  const std::string s = EightLoads();
  TimingConfig c = TestConfig();
  c.memory.global_load_issue_cycles = 8;
  const Timed plain = Run(s, 1);
  c.memory.issue_hold_slack_cycles = 8 * 8;
  const Timed roomy = Run(s, 1, c);
  CHECK(roomy.buffer == plain.buffer);
  CHECK(roomy.run.memory_issue_hold_cycles == 0);
  CHECK(roomy.run.cycles == plain.run.cycles);
  c.memory.issue_hold_slack_cycles = 8;
  const Timed one = Run(s, 1, c);
  CHECK(one.run.memory_issue_hold_cycles == 7 * 2);
  CHECK(one.run.cycles == plain.run.cycles + 6 * 2);
  // A loop that stores once a trip and then waits: with one warp the wait
  // pays the store's hold, and the trips take what they take with no hold.
  const std::string loop =
      OnX("  for (int t = 0; t < n; ++t) {\n"
          "    b.v[64 + i + 32 * (t & 1)] = x;\n"
          "    x = b.v[128 + i] + x;\n  }\n");
  TimingConfig st = TestConfig();
  const Timed free_run = Run(loop, 1, st);
  st.memory.global_store_issue_cycles = 9;
  const Timed held_run = Run(loop, 1, st);
  st.memory.issue_hold_slack_cycles = 9;
  const Timed slack_run = Run(loop, 1, st);
  CHECK(slack_run.buffer == free_run.buffer);
  CHECK(held_run.run.cycles > free_run.run.cycles);
  CHECK(slack_run.run.cycles == free_run.run.cycles);
  CHECK(slack_run.run.memory_issue_hold_cycles == 0);
}

TEST_CASE("each kind of memory instruction holds the issue its own cycles",
          "[sm][timing]") {
  // Per warp: two global loads, one global store, one atomic, one shared
  // store and one shared load; each kind's figure a power of ten, so the
  // run's sum shows how many of each the model counted.
  const std::string shader =
      "#version 450\nlayout(local_size_x = 32) in;\n"
      "layout(set = 0, binding = 0) buffer B { uint u; float v[]; } b;\n"
      "shared float s[32];\n"
      "void main() {\n  uint i = gl_LocalInvocationIndex;\n"
      "  uint g = gl_GlobalInvocationID.x;\n"
      "  s[i] = b.v[g] + b.v[g + 1024];\n  barrier();\n"
      "  atomicAdd(b.u, 1u);\n"
      "  b.v[g + 2048] = s[31 - i];\n}\n";
  TimingConfig c = TestConfig();
  c.memory.global_load_issue_cycles = 1;
  c.memory.global_store_issue_cycles = 10;
  c.memory.global_atomic_issue_cycles = 100;
  c.memory.shared_store_issue_cycles = 1000;
  c.memory.shared_load_issue_cycles = 10000;
  const Timed t = Run(shader, 2, c);
  const Timed f = Run(shader, 2, TestConfig(), SmLimits{}, true);
  CHECK(t.buffer == f.buffer);
  CHECK(t.run.memory_issue_hold_cycles == 2 * 11112);
}

TEST_CASE("the instruction limit stops a timed run with its lane count",
          "[sm][timing]") {
  // Lanes run 1 to 8 trips, so lane and warp instructions are not
  // proportional, and 8 workgroups on a small GPU: some items retire
  // before the limit stops the run, some are still resident.
  const simt::Program program = BuildGlsl(
      "#version 450\nlayout(local_size_x = 32) in;\n"
      "layout(set = 0, binding = 0) buffer B { float v[]; } b;\n"
      "void main() {\n  uint i = gl_GlobalInvocationID.x;\n"
      "  float x = b.v[i];\n"
      "  for (uint k = 0u; k <= (i & 7u); ++k) x = x * 1.5 + 0.25;\n"
      "  b.v[i] = x;\n}\n",
      false);
  std::vector<float> buffer(4096, 1.0f);
  std::vector<simt::MemRegion> regions(program.num_regions);
  regions[program.resources[0].region] = {
      reinterpret_cast<uint8_t*>(buffer.data()), buffer.size() * sizeof(float),
      true};
  const uint32_t groups[3] = {8, 1, 1};
  auto run = [&](uint64_t limit) {
    TimingModel model(TestConfig(), SmLimits{}, 0);
    pipeline::ComputeLimits cl;
    cl.driver = &model;
    cl.max_warp_instructions = limit;
    return pipeline::DispatchCompute(program, groups, regions, {}, cl);
  };
  const auto whole = run(0);
  REQUIRE(whole.ok());
  REQUIRE(whole->lane_instructions != 32 * whole->warp_instructions);
  const auto over = run(whole->warp_instructions - 1);
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().kind == ErrorKind::kLimitExceeded);
  // Stopped in the cycle of the last issue: the counts are the whole
  // run's, the retired items' lanes and the resident ones' together.
  CHECK(over.error().warp_instructions == whole->warp_instructions);
  CHECK(over.error().lane_instructions == whole->lane_instructions);
  const auto early = run(whole->warp_instructions / 2);
  REQUIRE_FALSE(early.ok());
  CHECK(early.error().lane_instructions > 0);
  CHECK(early.error().lane_instructions < whole->lane_instructions);
}

}  // namespace
}  // namespace warpsim::sm
