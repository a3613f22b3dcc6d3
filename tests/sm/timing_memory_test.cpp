// Tests of the memory model's effects on issue in emulator/sm/
// timing_issue.cpp (the SM's store path: memory.store_*_cycles), with cycle
// counts computed by hand from the harness's machine (timing_harness.h).
#include <catch2/catch.hpp>
#include <string>

#include "sm/timing.h"
#include "timing_harness.h"
#include "trace/trace.h"

namespace warpsim::sm {
namespace {

using namespace timing_test;  // NOLINT: the harness

TEST_CASE("a full store path throttles the load/store pipe", "[sm][timing]") {
  // One warp, 16 trips, each a store whose lanes write 32 lines (a word
  // each): 32 sectors and 32 lines, 64 cycles of the SM's store path at a
  // cycle each. The path holds 8; each store after the first waits for
  // the one before it to leave, so the loop takes at least 15 x 64 cycles.
  const std::string shader =
      "#version 450\nlayout(local_size_x = 32) in;\n"
      "layout(set = 0, binding = 0) buffer B { float v[]; } b;\n"
      "void main() {\n  uint i = gl_LocalInvocationIndex;\n"
      "  int n = int(b.v[0]) * 16;\n"
      "  for (int k = 0; k < n; ++k) b.v[i * 32u + uint(k)] = float(k);\n"
      "}\n";
  TimingConfig off = TestConfig();
  TimingConfig on = TestConfig();
  on.memory.store_sector_cycles = 1;
  on.memory.store_line_cycles = 1;
  on.memory.store_queue_cycles = 8;
  const Timed free = Run(shader, 1, off);
  const Timed full = Run(shader, 1, on);
  CHECK(free.buffer == full.buffer);
  CHECK(free.run.store_throttle_cycles == 0);
  CHECK(free.run.cycles < 15 * 64);
  // The first store queues 64 (56 beyond the 8); each later one finds the
  // path full.
  CHECK(full.run.store_throttle_cycles >= 16 * 56);
  CHECK(full.run.cycles >= 15 * 64);
  const auto lg = static_cast<size_t>(trace::StallReason::kLgThrottle);
  CHECK(free.run.stall_cycles[lg] == 0);
  // The warp's other instructions of a trip (its counter, compare and
  // branch, the address) run in part of each wait; at least half of it
  // is the warp's store ready with its pipe busy.
  CHECK(full.run.stall_cycles[lg] >= 14 * 32);
}

}  // namespace
}  // namespace warpsim::sm
