// Tests of emulator/sm/timing_loops.cpp and the loop rules of
// timing_issue.cpp: the control NVIDIA's code gives loops (a rotated loop's
// branches laid out away, unrolled loops' control once per group of trips,
// the next trip's test computed a trip ahead, loop control in idle
// cycles), with cycle counts computed by hand from the harness's machine
// (timing_harness.h).
#include <catch2/catch.hpp>
#include <string>

#include "sm/timing.h"
#include "timing_harness.h"

namespace warpsim::sm {
namespace {

using namespace timing_test;  // NOLINT: the harness

TEST_CASE(
    "a fall through and a loop's back edge issue with the instruction "
    "before them",
    "[sm][timing]") {
  // A loop of 16 trips (its count from the buffer, v[0] = 1, so nothing
  // folds it):
  // each trip ends in the unconditional branch back to the header, and the
  // header branches on to the block with the compare. NVIDIA's code has
  // neither branch (the loop is rotated, blocks fall through).
  const std::string shader =
      OnX("  for (int k = 0; k < n; ++k) x = x * 1.5 + 0.25;\n");
  TimingConfig off = TestConfig();
  off.free_layout_branches = false;
  TimingConfig on = TestConfig();
  on.free_layout_branches = true;
  const Timed plain = Run(shader, 1, off);
  const Timed free = Run(shader, 1, on);
  CHECK(plain.run.layout_branches == 0);
  // At least the back edge of each of the 16 trips.
  CHECK(free.run.layout_branches >= 16);
  CHECK(free.warp_instructions == plain.warp_instructions);
  CHECK(IssuedOrFree(free.run) == free.warp_instructions);
  // Each branch no longer issued saves its issue cycle and the branch
  // latency the warp waited after it.
  CHECK(free.run.cycles + 16 * 4 <= plain.run.cycles);
  CHECK(free.buffer == plain.buffer);
}

TEST_CASE("an unrolled loop issues its control once every loop_unroll trips",
          "[sm][timing]") {
  // One warp, 16 trips: the exit compare and branch run 17 times, the
  // counter's step 16 times. Unrolled by 4 they issue on the first trip of
  // each group of 4 (compare and branch at counts 0, 4, 8, 12, 16; the step
  // at 0, 4, 8, 12): 5 + 5 + 4 of 50 issue, 36 run with another issue.
  const std::string shader =
      OnX("  for (int k = 0; k < n; ++k) x = x * x + 0.25;\n");
  TimingConfig once = TestConfig();
  TimingConfig four = TestConfig();
  four.loop_unroll = 4;
  const Timed plain = Run(shader, 1, once);
  const Timed unrolled = Run(shader, 1, four);
  CHECK(plain.run.unrolled_loop_instructions == 0);
  CHECK(unrolled.run.unrolled_loop_instructions == 36);
  CHECK(unrolled.warp_instructions == plain.warp_instructions);
  CHECK(IssuedOrFree(unrolled.run) == unrolled.warp_instructions);
  // Each control instruction not issued saves at least its issue cycle.
  CHECK(unrolled.run.cycles + 36 <= plain.run.cycles);
  CHECK(unrolled.buffer == plain.buffer);
  // A loop of a constant 16 trips is unrolled completely: none of its 50
  // control instructions issues.
  const std::string constant =
      OnX("  for (int k = 0; k < 16; ++k) x = x * x + 0.25;\n");
  CHECK(Run(constant, 1, four).run.unrolled_loop_instructions == 50);
}

TEST_CASE(
    "entering an unrolled loop takes loop_entry_slots issue slots, in the "
    "cycles its warp waits first",
    "[sm][timing]") {
  // One warp enters the loop of 16 trips once. Its first exit branch holds
  // the warp the branch latency (4 cycles: 3 without an issue); the entry's
  // slots go out from the next cycle on, the loop's first trip after both:
  // 3 slots cost nothing, 7 cost 4 cycles.
  const std::string shader =
      OnX("  for (int k = 0; k < n; ++k) x = x * x + 0.25;\n");
  TimingConfig four = TestConfig();
  four.loop_unroll = 4;
  const Timed plain = Run(shader, 1, four);
  CHECK(plain.run.loop_entry_instructions == 0);
  four.loop_entry_slots = 3;
  const Timed hidden = Run(shader, 1, four);
  CHECK(hidden.run.loop_entry_instructions == 3);
  CHECK(hidden.run.cycles == plain.run.cycles);
  CHECK(IssuedOrFree(hidden.run) == hidden.warp_instructions);
  four.loop_entry_slots = 7;
  const Timed longer = Run(shader, 1, four);
  CHECK(longer.run.loop_entry_instructions == 7);
  CHECK(longer.run.cycles == plain.run.cycles + 4);
  CHECK(longer.warp_instructions == plain.warp_instructions);
  CHECK(IssuedOrFree(longer.run) == longer.warp_instructions);
  CHECK(longer.buffer == plain.buffer);
  // A loop left rolled, or unrolled completely, has no such code.
  TimingConfig rolled = TestConfig();
  rolled.loop_entry_slots = 7;
  CHECK(Run(shader, 1, rolled).run.loop_entry_instructions == 0);
  const std::string constant =
      OnX("  for (int k = 0; k < 16; ++k) x = x * x + 0.25;\n");
  CHECK(Run(constant, 1, four).run.loop_entry_instructions == 0);
}

TEST_CASE(
    "a loop whose body is longer than loop_unroll_max_body, or that asks "
    "DontUnroll, runs rolled",
    "[sm][timing]") {
  // The loop above with two multiply-adds a trip: a body of 2 (each
  // multiply and add one fused instruction).
  const std::string two =
      OnX("  for (int k = 0; k < n; ++k) {\n"
          "    x = x * x + 0.25;\n    x = x * x + 0.5;\n  }\n");
  TimingConfig once = TestConfig();
  TimingConfig four = TestConfig();
  four.loop_unroll = 4;
  const Timed plain = Run(two, 1, once);
  four.loop_unroll_max_body = 2;
  const Timed fits = Run(two, 1, four);
  CHECK(fits.run.unrolled_loop_instructions == 36);
  // One instruction over the limit: every trip issues its control, as with
  // no unrolling at all.
  four.loop_unroll_max_body = 1;
  const Timed rolled = Run(two, 1, four);
  CHECK(rolled.run.unrolled_loop_instructions == 0);
  CHECK(rolled.run.cycles == plain.run.cycles);
  CHECK(rolled.buffer == fits.buffer);
  // [[dont_unroll]]: rolled while honour_dont_unroll holds, else unrolled
  // as the same loop without it (NVIDIA's Vulkan driver, vulkan_ref's E34).
  const std::string dont =
      OnX("  [[dont_unroll]] for (int k = 0; k < n; ++k) {\n"
          "    x = x * x + 0.25;\n    x = x * x + 0.5;\n  }\n");
  four.loop_unroll_max_body = 2;
  const Timed honoured = Run(dont, 1, four);
  CHECK(honoured.run.unrolled_loop_instructions == 0);
  CHECK(honoured.run.cycles == plain.run.cycles);
  four.honour_dont_unroll = false;
  const Timed ignored = Run(dont, 1, four);
  CHECK(ignored.run.unrolled_loop_instructions == 36);
  CHECK(ignored.run.cycles == fits.run.cycles);
  CHECK(ignored.buffer == fits.buffer);
  // A constant trip count with [[dont_unroll]]: never unrolled completely.
  const std::string constant =
      OnX("  [[dont_unroll]] for (int k = 0; k < 16; ++k) x = x * x + 0.25;\n");
  CHECK(Run(constant, 1, four).run.unrolled_loop_instructions == 36);
}

TEST_CASE(
    "a loop's selection sides count at loop_unroll_skipped_weight against "
    "loop_unroll_max_body",
    "[sm][timing]") {
  // A multiply-add and a compare on every trip (2), and a side of four
  // multiply-adds no lane runs (x stays below 4): a body of 6, 4 of them
  // in the side (NVIDIA's driver unrolls such loops with longer bodies
  // than straight ones: vulkan_ref's E35).
  const std::string skipping =
      OnX("  for (int k = 0; k < n; ++k) {\n"
          "    x = x * 0.5 + 0.25;\n"
          "    if (x > 4.0) {\n"
          "      x = x * x + 0.25;\n      x = x * x + 0.5;\n"
          "      x = x * x + 0.75;\n      x = x * x + 1.0;\n"
          "    }\n  }\n");
  TimingConfig four = TestConfig();
  four.loop_unroll = 4;
  four.loop_unroll_max_body = 4;
  // Weight 1 (the default): a body of 6 over 4, rolled.
  const Timed whole = Run(skipping, 1, four);
  CHECK(whole.run.unrolled_loop_instructions == 0);
  // Weight 0.5: 2 + 0.5 * 4 = 4, unrolled (its control on the first trip
  // of every 4, as the loop with a body of 2 above).
  four.loop_unroll_skipped_weight = 0.5;
  const Timed unrolled = Run(skipping, 1, four);
  CHECK(unrolled.run.unrolled_loop_instructions == 36);
  CHECK(unrolled.run.cycles < whole.run.cycles);
  CHECK(unrolled.buffer == whole.buffer);
  // Just over: 2 + 0.55 * 4 = 4.2, rolled again.
  four.loop_unroll_skipped_weight = 0.55;
  const Timed over = Run(skipping, 1, four);
  CHECK(over.run.unrolled_loop_instructions == 0);
  CHECK(over.run.cycles == whole.run.cycles);
  // The straight part alone over the limit: rolled whatever the weight.
  four.loop_unroll_skipped_weight = 0;
  four.loop_unroll_max_body = 1;
  CHECK(Run(skipping, 1, four).run.unrolled_loop_instructions == 0);
}

TEST_CASE("a loop that loads has its own limit, loop_unroll_max_body_loads",
          "[sm][timing]") {
  // A load and a multiply-add a trip, no selection, no store: over a
  // limit of 2, rolled, unless loop_unroll_max_body_loads allows it
  // (NVIDIA's driver unrolls loops that load with longer bodies).
  const std::string loading =
      OnX("  for (int k = 0; k < n; ++k) x = x * 0.5 + b.v[k & 31];\n");
  TimingConfig four = TestConfig();
  four.loop_unroll = 4;
  four.loop_unroll_max_body = 2;
  const Timed rolled = Run(loading, 1, four);
  CHECK(rolled.run.unrolled_loop_instructions == 0);
  four.loop_unroll_max_body_loads = 16;
  const Timed unrolled = Run(loading, 1, four);
  CHECK(unrolled.run.unrolled_loop_instructions > 0);
  CHECK(unrolled.buffer == rolled.buffer);
  // A straight loop without a load keeps loop_unroll_max_body.
  const std::string straight =
      OnX("  for (int k = 0; k < n; ++k) {\n"
          "    x = x * 0.5 + 0.25;\n    x = x * x + 0.5;\n"
          "    x = x * 0.5 + 0.75;\n  }\n");
  CHECK(Run(straight, 1, four).run.unrolled_loop_instructions == 0);
}

TEST_CASE("what a loop computes alike every trip issues once, before it",
          "[sm][timing]") {
  // 16 trips, each converting n to a float and halving it (the same every
  // trip: n is read before the loop) besides the multiply and add on x.
  // With hoist_invariants the conversion and the multiply run with the
  // instruction before them: 2 x 16 of them, each at least its issue
  // cycle saved.
  const std::string shader =
      OnX("  for (int k = 0; k < n; ++k) x = x * x + float(n) * 0.5;\n");
  TimingConfig off = TestConfig();
  off.hoist_invariants = false;
  TimingConfig on = TestConfig();
  on.hoist_invariants = true;
  const Timed plain = Run(shader, 1, off);
  const Timed hoisted = Run(shader, 1, on);
  CHECK(plain.run.redundant_instructions == 0);
  CHECK(hoisted.run.redundant_instructions == 32);
  CHECK(hoisted.warp_instructions == plain.warp_instructions);
  CHECK(IssuedOrFree(hoisted.run) == hoisted.warp_instructions);
  CHECK(hoisted.run.cycles + 32 <= plain.run.cycles);
  CHECK(hoisted.buffer == plain.buffer);
  // x's own chain: nothing to hoist, the same cycles either way.
  const std::string chain =
      OnX("  for (int k = 0; k < n; ++k) x = x * x + float(k);\n");
  const Timed a = Run(chain, 1, off);
  const Timed b = Run(chain, 1, on);
  CHECK(b.run.redundant_instructions == 0);
  CHECK(b.run.cycles == a.run.cycles);
}

TEST_CASE("a loop's test is computed a trip ahead", "[sm][timing]") {
  // A loop tested at its top whose body is one add: NVIDIA's code computes
  // the next trip's test at the top of the body (cuda_ref's E6 SASS), so
  // the predicate is there predicate_latency after the counter's step,
  // which waits for the branch of the trip before: a trip takes
  // branch.latency + alu.latency + predicate_latency cycles (cuda_ref's
  // E30: a loop of one LOP3 and its test, 28 cycles per trip, is that sum
  // with its figures), whatever the body's instructions take below that.
  auto loop = [](const char* trips) {
    return OnX(std::string("  int m = ") + trips +
               ";\n"
               "  for (int k = 0; k < m; ++k) x += 0.25;\n");
  };
  TimingConfig on = TestConfig();
  on.predicate_latency = 13;
  const Timed t16 = Run(loop("n * 1"), 1, on);
  const Timed t32 = Run(loop("n * 2"), 1, on);
  CHECK(t32.run.cycles - t16.run.cycles ==
        16 * (on.branch.latency + on.alu.latency + on.predicate_latency));
  // A body longer than that: its test waits for nothing (the compare
  // issues once the ALU pipe takes it after the step, the branch the cycle
  // after the compare): each trip is 5 cycles shorter than without
  // predicate_latency, where the compare waits for the step's result and
  // the branch for the compare's (4 + 4 against 2 + 1).
  auto body = [](const char* trips) {
    std::string s = std::string("  int m = ") + trips +
                    ";\n  for (int k = 0; k < m; ++k) {\n";
    for (int j = 0; j < 8; ++j) s += "    x = x * 1.5 + 0.25;\n";
    return OnX(s + "  }\n");
  };
  TimingConfig off = TestConfig();
  const Timed long16 = Run(body("n"), 1, on);
  const Timed long32 = Run(body("2 * n"), 1, on);
  const Timed plain16 = Run(body("n"), 1, off);
  const Timed plain32 = Run(body("2 * n"), 1, off);
  CHECK(long32.buffer == plain32.buffer);
  CHECK((long32.run.cycles - long16.run.cycles) +
            16 * (2 * off.alu.latency - off.alu.interval - 1) ==
        plain32.run.cycles - plain16.run.cycles);
}

TEST_CASE("a rotated loop's control takes the cycles its body leaves idle",
          "[sm][timing]") {
  // One warp, a loop of 16 dependent instructions (8 x = x * 1.5 + 0.25):
  // with loop_control_in_bubbles the counter's step and the test's compare
  // run with the body's last instruction (its chain left the
  // sub-partition idle cycles in the trip), so each trip after the first
  // is shorter by what they took: the step's cycle and the ALU interval
  // before the compare (see "a loop's test is computed a trip ahead").
  auto body = [](const char* trips) {
    std::string s = std::string("  int m = ") + trips +
                    ";\n  for (int k = 0; k < m; ++k) {\n";
    for (int j = 0; j < 8; ++j) s += "    x = x * 1.5 + 0.25;\n";
    return OnX(s + "  }\n");
  };
  TimingConfig on = TestConfig();
  on.predicate_latency = 13;
  TimingConfig fill = on;
  fill.loop_control_in_bubbles = true;
  const Timed a16 = Run(body("n"), 1, on);
  const Timed a32 = Run(body("2 * n"), 1, on);
  const Timed b16 = Run(body("n"), 1, fill);
  const Timed b32 = Run(body("2 * n"), 1, fill);
  CHECK(b32.buffer == a32.buffer);
  CHECK(a32.run.bubble_instructions == 0);
  CHECK(b32.run.bubble_instructions - b16.run.bubble_instructions == 2 * 16);
  CHECK((b32.run.cycles - b16.run.cycles) + 16 * (on.alu.interval + 1) ==
        a32.run.cycles - a16.run.cycles);
  // Sixteen such warps on each sub-partition leave it no idle cycle to
  // take: their control issues as any instruction (but for the trips
  // where the warps start or end apart).
  const Timed many = Run(body("2 * n"), 64, fill);
  const Timed many_plain = Run(body("2 * n"), 64, on);
  CHECK(many.buffer == many_plain.buffer);
  CHECK(many.run.bubble_instructions * 10 < 64 * 2 * 31);
}

TEST_CASE("a loop's test waits in the compiler's count after a load's wait",
          "[sm][timing]") {
  // A chase: each trip loads the word the last one pointed to (an L1 hit)
  // and halves it; then comes the loop's control. The compiler puts the
  // next trip's compare after the load, and the stall it writes before
  // the branch covers predicate_latency from there in the warp's issues
  // and fixed waits, which know nothing of the load's wait: with
  // static_loop_test the branch issues predicate_latency (13) after the
  // load less the 3 issues since (the multiply, the counter's step, the
  // compare, the ALU pipe's interval between the last two a throttle, not
  // a fixed wait): 10 cycles after the compare, where the test computed a
  // trip ahead let it issue the cycle after: 9 more a trip.
  auto chase = [](const char* trips) {
    return OnX(std::string("  int m = ") + trips +
               ";\n"
               "  for (int k = 0; k < m; ++k) x = b.v[int(x) + 64] * 0.5;\n");
  };
  TimingConfig on = TestConfig();
  on.predicate_latency = 13;
  TimingConfig counted = on;
  counted.static_loop_test = true;
  const Timed a16 = Run(chase("n"), 1, on);
  const Timed a32 = Run(chase("2 * n"), 1, on);
  const Timed b16 = Run(chase("n"), 1, counted);
  const Timed b32 = Run(chase("2 * n"), 1, counted);
  CHECK(b32.buffer == a32.buffer);
  const uint64_t plain_trip = (a32.run.cycles - a16.run.cycles) / 16;
  const uint64_t counted_trip = (b32.run.cycles - b16.run.cycles) / 16;
  CHECK(counted_trip == plain_trip + (13 - 3) - 1);
  // A body that issues more than predicate_latency after its load leaves
  // nothing to wait: the same trips either way.
  auto longer = [](const char* trips) {
    std::string s = std::string("  int m = ") + trips +
                    ";\n  for (int k = 0; k < m; ++k) {\n"
                    "    x = b.v[int(x) + 64] * 0.5;\n";
    for (int j = 0; j < 16; ++j) s += "    x = x * 1.0;\n";
    return OnX(s + "  }\n");
  };
  const Timed c16 = Run(longer("n"), 1, on);
  const Timed c32 = Run(longer("2 * n"), 1, on);
  const Timed d16 = Run(longer("n"), 1, counted);
  const Timed d32 = Run(longer("2 * n"), 1, counted);
  CHECK(d32.buffer == c32.buffer);
  CHECK(d32.run.cycles - d16.run.cycles == c32.run.cycles - c16.run.cycles);
}

}  // namespace
}  // namespace warpsim::sm
