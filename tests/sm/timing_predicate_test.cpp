// Tests of emulator/sm/timing_issue.cpp's selections: a small one NVIDIA's
// compiler predicates issues its branch with the instruction before it and
// a side no lane takes still issues; a branched one issues its
// reconvergence barrier; the compare's predicate latency; the limit on the
// registers a predicated side writes. Cycle counts by hand from the test
// machine (timing_harness.h), as in timing_test.cpp.
#include <catch2/catch.hpp>
#include <string>

#include "sm/timing.h"
#include "timing_harness.h"

namespace warpsim::sm {
namespace {

using namespace timing_test;  // NOLINT: the harness

// 16 trips (n from the buffer) of x = x * 0.5 + 1.0, each then adding three
// times to y when x `op` -1 ("==": never, "!=": always).
std::string LoopWithIf(const std::string& op) {
  return OnX(
      "  float y = 0.0;\n"
      "  for (int r = 0; r < n; ++r) {\n"
      "    x = x * 0.5 + 1.0;\n"
      "    if (x " +
      op +
      " -1.0) { y += 1.0; y += x; y += 3.0; }\n"
      "  }\n  x += y;\n");
}

TEST_CASE(
    "a small selection is predicated: its branch goes with the instruction "
    "before it, a side no lane takes still issues",
    "[sm][timing]") {
  // 16 trips (n from the buffer); each adds three times to y when x is
  // -1, which it never is. Predicated (vulkan_ref's E27: the H200 issues
  // such a body on every trip), each trip's branch issues with the
  // compare and the three adds take an issue slot each, writing nothing.
  const std::string never = LoopWithIf("==");
  TimingConfig off = TestConfig();
  TimingConfig on = TestConfig();
  on.predicate_max_instructions = 16;
  const Timed branched = Run(never, 1, off);
  const Timed predicated = Run(never, 1, on);
  CHECK(branched.run.predicated_branches == 0);
  CHECK(branched.run.predicated_off_instructions == 0);
  CHECK(predicated.run.predicated_branches == 16);
  CHECK(predicated.run.predicated_off_instructions == 16 * 3);
  CHECK(predicated.warp_instructions == branched.warp_instructions);
  CHECK(IssuedOrFree(predicated.run) == predicated.warp_instructions);
  CHECK(IssuedOrFree(branched.run) == branched.warp_instructions);
  CHECK(predicated.buffer == branched.buffer);
  // At most 2 instructions: not predicated.
  TimingConfig small = TestConfig();
  small.predicate_max_instructions = 2;
  CHECK(Run(never, 1, small).run.predicated_branches == 0);
  // Always taken: the branch goes with the compare, nothing more issues.
  const std::string always = LoopWithIf("!=");
  const Timed taken = Run(always, 1, on);
  CHECK(taken.run.predicated_branches == 16);
  CHECK(taken.run.predicated_off_instructions == 0);
  CHECK(IssuedOrFree(taken.run) == taken.warp_instructions);
  CHECK(taken.run.cycles < Run(always, 1, off).run.cycles);
}

TEST_CASE(
    "a branched selection issues its reconvergence instructions, then "
    "waits",
    "[sm][timing]") {
  // The never-taken if of 16 trips, not predicated: with 2 reconvergence
  // instructions (cuda_ref's E29: BSSY, BSYNC) each trip's branch is
  // followed by 2 more issue slots once the branch's wait is over, the
  // second holding the warp 5 cycles: one warp's trip is 1 + 5 cycles
  // longer.
  const std::string never = LoopWithIf("==");
  TimingConfig off = TestConfig();
  TimingConfig on = TestConfig();
  on.selection_sync_slots = 2;
  on.selection_sync_latency = 5;
  const Timed plain = Run(never, 1, off);
  const Timed synced = Run(never, 1, on);
  CHECK(plain.run.reconvergence_instructions == 0);
  CHECK(synced.run.reconvergence_instructions == 16 * 2);
  CHECK(synced.warp_instructions == plain.warp_instructions);
  CHECK(IssuedOrFree(synced.run) == synced.warp_instructions);
  CHECK(synced.buffer == plain.buffer);
  CHECK(synced.run.cycles ==
        plain.run.cycles + 16 * (1 + on.selection_sync_latency));
  // A predicated selection has no branch: nothing to reconverge.
  on.predicate_max_instructions = 16;
  CHECK(Run(never, 1, on).run.reconvergence_instructions == 0);
}

TEST_CASE("a compare's predicate waits predicate_latency", "[sm][timing]") {
  // One compare of a loaded value and the branch around a body nobody
  // takes, branched: the branch waits for the compare's predicate, 13
  // cycles instead of the ALU's 4, so one warp takes 9 cycles longer.
  const std::string once =
      OnX("  float y = 0.0;\n"
          "  if (x == -1.0) { y += 1.0; y += x; y += 3.0; }\n"
          "  x += y;\n");
  TimingConfig off = TestConfig();
  TimingConfig on = TestConfig();
  on.predicate_latency = 13;
  const Timed plain = Run(once, 1, off);
  const Timed waited = Run(once, 1, on);
  CHECK(waited.buffer == plain.buffer);
  CHECK(waited.warp_instructions == plain.warp_instructions);
  CHECK(waited.run.cycles == plain.run.cycles + (13 - off.alu.latency));
  // Predicated (no branch in NVIDIA's code): the side's instructions are
  // predicated on the compare, the first waits for its predicate. Without
  // predicate_latency the side waits for nothing.
  off.predicate_max_instructions = 16;
  on.predicate_max_instructions = 16;
  const Timed ghost_plain = Run(once, 1, off);
  const Timed ghost_waited = Run(once, 1, on);
  CHECK(ghost_waited.run.predicated_off_instructions == 3);
  CHECK(ghost_waited.buffer == ghost_plain.buffer);
  CHECK(ghost_waited.run.cycles == ghost_plain.run.cycles + 13 - 1);
}

TEST_CASE(
    "a selection whose sides write more registers than "
    "predicate_max_written is branched",
    "[sm][timing]") {
  // LoopWithIf's never-taken body of three adds to one register is
  // predicated with a limit of one register written; a never-taken body
  // that adds to the four components of a vec4 is predicated with a limit
  // of four and branched with a limit of one (the same images).
  const std::string one = LoopWithIf("==");
  TimingConfig on = TestConfig();
  on.predicate_max_instructions = 16;
  on.predicate_max_written = 1;
  CHECK(Run(one, 1, on).run.predicated_branches == 16);
  const std::string four =
      OnX("  vec4 h = vec4(x);\n"
          "  for (int r = 0; r < n; ++r) {\n"
          "    x = x * 0.5 + 1.0;\n"
          "    if (x == -1.0) h += 1.0;\n"
          "  }\n  x += h.x + h.y + h.z + h.w;\n");
  TimingConfig wide = on;
  wide.predicate_max_written = 4;
  const Timed predicated = Run(four, 1, wide);
  const Timed branched = Run(four, 1, on);
  CHECK(predicated.run.predicated_branches == 16);
  CHECK(predicated.run.predicated_off_instructions == 16 * 4);
  CHECK(branched.run.predicated_branches == 0);
  CHECK(branched.run.predicated_off_instructions == 0);
  CHECK(branched.buffer == predicated.buffer);
}

TEST_CASE(
    "a predicated side holding a loop moves its registers once a pass of an "
    "unrolled loop",
    "[sm][timing]") {
  // 16 trips of x = x * 0.5 + 1.0 and a never-taken side that adds 1.0 to
  // the vec4 held[0] through a loop of one trip (register_pressure's
  // held1): predicated, and in the loop unrolled 4 times a pass the side's
  // 4 registers are moved selection_loop_moves (2) times each once a pass:
  // 4 passes x 8 moves, one issue slot each on the FMA pipe. Not with the
  // add written out (no loop in the side), nor in a rolled loop.
  auto loop = [](const char* add) {
    return OnX(std::string("  vec4 held[1];\n  held[0] = vec4(x);\n"
                           "  for (int r = 0; r < n; ++r) {\n"
                           "    x = x * 0.5 + 1.0;\n"
                           "    if (x == -1.0) { ") +
               add + " }\n  }\n  x += held[0].x + held[0].w;\n");
  };
  const std::string inner = loop("for (int k = 0; k < 1; ++k) held[k] += 1.0;");
  const std::string plain = loop("held[0] += 1.0;");
  TimingConfig on = TestConfig();
  on.predicate_max_instructions = 16;
  on.loop_unroll = 4;
  TimingConfig moves = on;
  moves.selection_loop_moves = 2;
  const Timed without = Run(inner, 1, on);
  const Timed with = Run(inner, 1, moves);
  CHECK(with.run.predicated_branches == 16);
  CHECK(without.run.selection_move_instructions == 0);
  CHECK(with.run.selection_move_instructions == 4 * 8);
  CHECK(IssuedOrFree(with.run) == with.warp_instructions);
  CHECK(with.buffer == without.buffer);
  // One warp: each move holds the warp a cycle.
  CHECK(with.run.cycles == without.run.cycles + 4 * 8);
  CHECK(Run(plain, 1, moves).run.selection_move_instructions == 0);
  TimingConfig rolled = moves;
  rolled.loop_unroll = 1;
  CHECK(Run(inner, 1, rolled).run.selection_move_instructions == 0);
}

}  // namespace
}  // namespace warpsim::sm
