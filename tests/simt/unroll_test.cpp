// Tests of emulator/simt/unroll.cpp: which loops the timing model issues as
// NVIDIA's compiler unrolls them (vulkan_ref's E16): countable loops with a
// run-time trip count, completely when the trip count is a constant; not a
// loop with a break, a while loop on a computed value, a loop holding
// another loop, one whose bound it computes with arithmetic (E21), one
// stepping by more than one to an (in)equality. A loop marked [[dont_unroll]]
// is listed as such, never as unrolled completely, and every listed loop with
// its body's length (E34).
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "common/test_util.h"
#include "simt/program.h"

namespace warpsim::simt {
namespace {

Program Build(const std::string& body) {
  const std::string source =
      "#version 450\n#extension GL_EXT_control_flow_attributes : enable\n"
      "layout(local_size_x = 32) in;\n"
      "layout(set = 0, binding = 0) buffer B { float v[]; } b;\n"
      "layout(set = 0, binding = 1) uniform U { int n; float limit; } u;\n"
      "void main() {\n  uint g = gl_GlobalInvocationID.x;\n"
      "  float x = b.v[g];\n  int n = u.n;\n" +
      body + "  b.v[g] = x;\n}\n";
  auto program = testing::BuildComputeGlsl(source);
  INFO((program.ok() ? "" : program.error().ToString()));
  REQUIRE(program.ok());
  return std::move(*program);
}

// How many loops are unrolled, and how many of them completely.
std::pair<size_t, size_t> Unrolled(const Program& p) {
  size_t full = 0;
  for (const UnrolledLoop& l : p.unrolled_loops) full += l.full;
  // Every loop marks its compare, exit branch and step (and what it
  // computes its bound from, hoisted).
  size_t marked = 0;
  for (uint32_t tag : p.loop_control) marked += tag != 0;
  CHECK(marked >= 3 * p.unrolled_loops.size());
  return {p.unrolled_loops.size(), full};
}

TEST_CASE("countable loops with a run-time trip count are unrolled",
          "[simt][unroll]") {
  using P = std::pair<size_t, size_t>;
  CHECK(Unrolled(Build("  for (int i = 0; i < n; ++i) x = x * x + 0.25;\n")) ==
        P{1, 0});
  CHECK(Unrolled(Build("  for (int i = 1; i <= n; ++i) x = x * x + 0.25;\n")) ==
        P{1, 0});
  CHECK(Unrolled(Build("  for (int i = n; i > 0; --i) x = x * x + 0.25;\n")) ==
        P{1, 0});
  // An if/else in the body.
  CHECK(Unrolled(Build("  for (int i = 0; i < n; ++i) {\n"
                       "    if ((i & 1) == 0) x = x * x; else x += 1.0;\n"
                       "  }\n")) == P{1, 0});
  // The bound read from a uniform in the loop's header: invariant; its
  // load is marked too (hoisted).
  const Program hoist = Build("  for (int i = 0; i < u.n; ++i) x = x * x;\n");
  CHECK(Unrolled(hoist) == P{1, 0});
  size_t marked = 0;
  for (uint32_t tag : hoist.loop_control) marked += tag != 0;
  CHECK(marked == 4);
  // Stepped by another constant to an ordered bound (E40's `k += 1024u`,
  // E56's `i += U`: unrolled four times in the driver's code); the step is
  // listed.
  const Program two =
      Build("  for (int i = 0; i < n; i += 2) x = x * x + 0.25;\n");
  CHECK(Unrolled(two) == P{1, 0});
  CHECK(two.unrolled_loops[0].stride == 2);
  const Program down =
      Build("  for (int i = n; i >= 0; i -= 16) x = x * x + 0.25;\n");
  CHECK(Unrolled(down) == P{1, 0});
  CHECK(down.unrolled_loops[0].stride == -16);
  CHECK(Unrolled(Build("  for (uint k = g; k < 8192u; k += 1024u) "
                       "x = x * x;\n")) == P{1, 0});
  // By one, also to an inequality.
  const Program ne =
      Build("  for (int i = 0; i != n; ++i) x = x * x + 0.25;\n");
  CHECK(Unrolled(ne) == P{1, 0});
  CHECK(ne.unrolled_loops[0].stride == 1);
  // Computed from the uniform before the loop: unrolled (E21).
  CHECK(Unrolled(Build("  int m = u.n / 2;\n"
                       "  for (int i = 0; i < m; ++i) x = x * x;\n")) ==
        P{1, 0});
}

TEST_CASE("a loop whose bound it computes with arithmetic stays rolled",
          "[simt][unroll]") {
  // E21 (vulkan_ref/results/h200/e21-loop-bounds-2026-12-03): the same
  // loop on u.n / 2, u.n >> 1, u.n * 2 or u.n - 1 in its header had no
  // more code than a loop with one copy of its body.
  using P = std::pair<size_t, size_t>;
  for (const char* bound : {"u.n / 2", "(u.n >> 1)", "4 * u.n", "u.n - 1"}) {
    INFO(bound);
    CHECK(Unrolled(Build(std::string("  for (int i = 0; i < ") + bound +
                         "; ++i) x = x * x;\n")) == P{0, 0});
  }
}

TEST_CASE("the loads an unrolled loop's trips issue ahead", "[simt][unroll]") {
  auto ahead = [](const Program& p) {
    size_t n = 0;
    for (uint32_t tag : p.ahead_loads) n += tag != 0;
    return n;
  };
  // The address from the counter: ahead.
  CHECK(ahead(Build(
            "  for (int i = 0; i < n; ++i) x += b.v[g + uint(i)];\n")) == 1);
  // A chase, the address from the loop's last load: not ahead.
  CHECK(ahead(Build("  uint k = g;\n  for (int i = 0; i < n; ++i) {\n"
                    "    k = floatBitsToUint(b.v[k]) & 63u;\n    x += 1.0;\n"
                    "  }\n  x += float(k);\n")) == 0);
  // An address loaded on one side of an if/else only: still a chase (the
  // first load ahead, the second not).
  CHECK(ahead(Build(
            "  for (int i = 0; i < n; ++i) {\n"
            "    uint a = 0u;\n"
            "    if ((i & 1) == 0) a = floatBitsToUint(b.v[g + uint(i)]);\n"
            "    x += b.v[a & 63u];\n  }\n")) == 1);
  // A store in the loop: its loads stay in their trips.
  CHECK(ahead(Build("  for (int i = 0; i < n; ++i) {\n"
                    "    x += b.v[g + uint(i)];\n    b.v[g] = x;\n  }\n")) ==
        0);
  // A constant trip count: unrolled completely, not marked.
  CHECK(ahead(Build(
            "  for (int i = 0; i < 16; ++i) x += b.v[g + uint(i)];\n")) == 0);
}

TEST_CASE("a loop with a constant trip count is unrolled completely",
          "[simt][unroll]") {
  using P = std::pair<size_t, size_t>;
  CHECK(Unrolled(Build("  for (int i = 0; i < 16; ++i) x = x * x + 0.25;\n")) ==
        P{1, 1});
  // A constant bound but a run-time start: not completely.
  CHECK(Unrolled(Build("  for (int i = n; i < 16; ++i) x = x * x + 0.25;\n")) ==
        P{1, 0});
}

// The trip count of the one completely unrolled loop of `body`.
uint32_t Trips(const std::string& body) {
  const Program p = Build(body);
  REQUIRE(p.unrolled_loops.size() == 1);
  REQUIRE(p.unrolled_loops[0].full);
  return p.unrolled_loops[0].trips;
}

TEST_CASE("a completely unrolled loop knows its trip count", "[simt][unroll]") {
  CHECK(Trips("  for (int i = 0; i < 16; ++i) x = x * x + 0.25;\n") == 16);
  CHECK(Trips("  for (int i = 3; i < 16; ++i) x = x * x + 0.25;\n") == 13);
  CHECK(Trips("  for (int i = 1; i <= 16; ++i) x = x * x + 0.25;\n") == 16);
  CHECK(Trips("  for (int i = 10; i > 0; --i) x = x * x + 0.25;\n") == 10);
  CHECK(Trips("  for (int i = -256; i < 256; ++i) x = x * x + 0.25;\n") == 512);
  CHECK(Trips("  for (uint i = 0u; i < 7u; ++i) x = x * x + 0.25;\n") == 7);
  CHECK(Trips("  for (int i = 0; i < 16; i += 4) x = x * x + 0.25;\n") == 4);
  CHECK(Trips("  for (int i = 1; i < 16; i += 4) x = x * x + 0.25;\n") == 4);
  CHECK(Trips("  for (int i = 15; i >= 0; i -= 2) x = x * x + 0.25;\n") == 8);
  // The loop's range: its first instruction before its merge.
  const Program p = Build("  for (int i = 0; i < 16; ++i) x = x * x + 0.25;\n");
  REQUIRE(p.loops.size() == 1);
  CHECK(p.loops[0].begin < p.unrolled_loops[0].compare);
  CHECK(p.loops[0].end == p.unrolled_loops[0].merge_pc);
  CHECK(p.unrolled_loops[0].exit_branch < p.unrolled_loops[0].merge_pc);
}

TEST_CASE("loops that are not unrolled", "[simt][unroll]") {
  using P = std::pair<size_t, size_t>;
  // A break: a second exit.
  CHECK(Unrolled(Build("  for (int i = 0; i < n; ++i) {\n"
                       "    x = x * x + 0.25;\n"
                       "    if (x > u.limit) break;\n  }\n")) == P{0, 0});
  // A while loop on a computed value.
  CHECK(Unrolled(Build("  while (x < u.limit) x = x * x + 1.0;\n")) == P{0, 0});
  // A step of 2 to an inequality the counter may jump past.
  CHECK(Unrolled(Build("  for (int i = 0; i != n; i += 2) x = x * x;\n")) ==
        P{0, 0});
  // A bound the loop changes.
  CHECK(Unrolled(Build("  int m = n;\n"
                       "  for (int i = 0; i < m; ++i) {\n"
                       "    x = x * x;\n    if (x > 2.0) m -= 1;\n  }\n")) ==
        P{0, 0});
  // A store to memory in the loop does not stop unrolling by itself.
  CHECK(Unrolled(Build("  for (int i = 0; i < n; ++i) b.v[g + uint(i)] = x;\n"))
            .first == 1);
}

TEST_CASE("a loop is listed with its body's length and its DontUnroll",
          "[simt][unroll]") {
  // Three multiply-adds (each a fused pair) and a compare and select: 5;
  // the counter, its test and the branches are the loop's control.
  const Program p = Build(
      "  for (int i = 0; i < n; ++i) {\n"
      "    x = x * x + 0.25;\n    x = x * 0.5 + 1.0;\n"
      "    x = x * x + 0.75;\n    x = x > 4.0 ? 0.0 : x;\n  }\n");
  REQUIRE(p.unrolled_loops.size() == 1);
  CHECK(p.unrolled_loops[0].body == 5);
  CHECK_FALSE(p.unrolled_loops[0].dont_unroll);
  // A constant loop of 4 trips inside counts 4 times.
  const Program q = Build(
      "  for (int i = 0; i < n; ++i) {\n"
      "    for (int j = 0; j < 4; ++j) x = x * x + 0.25;\n"
      "    x = x * 0.5 + 1.0;\n  }\n");
  REQUIRE(q.unrolled_loops.size() == 2);
  CHECK(q.unrolled_loops[0].full);  // the inner one (found first)
  CHECK(q.unrolled_loops[1].body == 5);
  // [[dont_unroll]] (LoopControl DontUnroll): listed with it, for the
  // timing model to keep rolled or not (TimingConfig::honour_dont_unroll);
  // with a constant trip count, not unrolled completely.
  using P = std::pair<size_t, size_t>;
  const Program d = Build(
      "  [[dont_unroll]] for (int i = 0; i < n; ++i) x = x * x + 0.25;\n");
  CHECK(Unrolled(d) == P{1, 0});
  CHECK(d.unrolled_loops[0].dont_unroll);
  CHECK(d.unrolled_loops[0].body == 1);
  const Program c = Build(
      "  [[dont_unroll]] for (int i = 0; i < 8; ++i) x = x * x + 0.25;\n");
  CHECK(Unrolled(c) == P{1, 0});
  CHECK(c.unrolled_loops[0].dont_unroll);
  REQUIRE(c.loops.size() == 1);
  CHECK_FALSE(c.loops[0].constant);
}

TEST_CASE("a loop counts the instructions of its selections' sides apart",
          "[simt][unroll]") {
  // A multiply-add and a compare on every trip; the sides hold two
  // multiply-adds and one add (each multiply-add a fused pair): 5, of
  // which 3 in the sides (UnrolledLoop::skipped, vulkan_ref's E35).
  const Program p = Build(
      "  for (int i = 0; i < n; ++i) {\n"
      "    x = x * x + 0.25;\n"
      "    if (x > 4.0) {\n"
      "      x = x * 0.5 + 1.0;\n      x = x * x + 0.75;\n"
      "    } else {\n"
      "      x = x + 1.0;\n"
      "    }\n  }\n");
  REQUIRE(p.unrolled_loops.size() == 1);
  CHECK(p.unrolled_loops[0].body == 5);
  CHECK(p.unrolled_loops[0].skipped == 3);
  // Straight code: none.
  const Program q = Build(
      "  for (int i = 0; i < n; ++i) {\n"
      "    x = x * x + 0.25;\n    x = x * 0.5 + 1.0;\n  }\n");
  REQUIRE(q.unrolled_loops.size() == 1);
  CHECK(q.unrolled_loops[0].body == 2);
  CHECK(q.unrolled_loops[0].skipped == 0);
}

TEST_CASE("what every trip computes alike does not count in the body",
          "[simt][unroll]") {
  // u.limit's load (the loop writes no memory) and its product with a
  // constant are the same on every trip: the compiler hoists them, the
  // body is the multiply-add, the compare with x and nothing more.
  const Program p = Build(
      "  for (int i = 0; i < n; ++i) {\n"
      "    x = x * x + 0.25;\n"
      "    if (x > u.limit * 2.0) {\n      x = x * 0.5 + 1.0;\n    }\n"
      "  }\n");
  REQUIRE(p.unrolled_loops.size() == 1);
  CHECK(p.unrolled_loops[0].body == 3);
  CHECK(p.unrolled_loops[0].skipped == 1);
  // The same loop storing to b.v: a uniform block's word is the same on
  // every trip whatever the loop stores (the shader cannot write it), so
  // only the store counts more (its address, g + 64, is the same on every
  // trip: hoisted).
  const Program r = Build(
      "  for (int i = 0; i < n; ++i) {\n"
      "    x = x * x + 0.25;\n"
      "    if (x > u.limit * 2.0) {\n      x = x * 0.5 + 1.0;\n    }\n"
      "    b.v[g + 64u] = x;\n"
      "  }\n");
  REQUIRE(r.unrolled_loops.size() == 1);
  CHECK(r.unrolled_loops[0].body == p.unrolled_loops[0].body + 1);
  // A limit in b.v itself may change with the store: its load and the
  // product it feeds count.
  const Program q = Build(
      "  for (int i = 0; i < n; ++i) {\n"
      "    x = x * x + 0.25;\n"
      "    if (x > b.v[1] * 2.0) {\n      x = x * 0.5 + 1.0;\n    }\n"
      "    b.v[g + 64u] = x;\n"
      "  }\n");
  REQUIRE(q.unrolled_loops.size() == 1);
  CHECK(q.unrolled_loops[0].body >= r.unrolled_loops[0].body + 2);
}

TEST_CASE("what every trip computes alike is marked hoisted",
          "[simt][unroll]") {
  // The loop of the test above: u.limit's load and its product with 2.0
  // are marked, the multiply-add on x, the compare with x and the side's
  // multiply-add are not; nor is anything outside the loop.
  const Program p = Build(
      "  for (int i = 0; i < n; ++i) {\n"
      "    x = x * x + 0.25;\n"
      "    if (x > u.limit * 2.0) {\n      x = x * 0.5 + 1.0;\n    }\n"
      "  }\n");
  REQUIRE(p.unrolled_loops.size() == 1);
  REQUIRE(p.hoisted.size() == p.code.size());
  std::vector<spv::Op> marked;
  for (size_t i = 0; i < p.code.size(); ++i) {
    if (p.hoisted[i] != 0) marked.push_back(p.code[i].op);
  }
  // The load and the multiply, after whatever addresses the load (an
  // access chain into the uniform block).
  REQUIRE(marked.size() >= 2);
  CHECK(marked[marked.size() - 2] == spv::Op::OpLoad);
  CHECK(marked.back() == spv::Op::OpFMul);
  for (spv::Op op : marked) {
    CHECK(op != spv::Op::OpFAdd);
    CHECK(op != spv::Op::OpFOrdGreaterThan);
  }
  // Storing to b.v, a limit loaded from b.v may differ a trip, so neither
  // its load nor the product is hoisted; the store's address (g + 64)
  // still is.
  const Program q = Build(
      "  for (int i = 0; i < n; ++i) {\n"
      "    x = x * x + 0.25;\n"
      "    if (x > b.v[1] * 2.0) {\n      x = x * 0.5 + 1.0;\n    }\n"
      "    b.v[g + 64u] = x;\n"
      "  }\n");
  REQUIRE(q.hoisted.size() == q.code.size());
  bool add = false;
  for (size_t i = 0; i < q.code.size(); ++i) {
    if (q.hoisted[i] == 0) continue;
    CHECK(q.code[i].op != spv::Op::OpLoad);
    CHECK(q.code[i].op != spv::Op::OpFMul);
    add = add || q.code[i].op == spv::Op::OpIAdd;
  }
  CHECK(add);
  // Storing to b.v with the limit in the uniform block: its load and the
  // product are hoisted still (the shader cannot write a uniform block).
  const Program u = Build(
      "  for (int i = 0; i < n; ++i) {\n"
      "    x = x * x + 0.25;\n"
      "    if (x > u.limit * 2.0) {\n      x = x * 0.5 + 1.0;\n    }\n"
      "    b.v[g + 64u] = x;\n"
      "  }\n");
  REQUIRE(u.hoisted.size() == u.code.size());
  bool load = false, mul = false;
  for (size_t i = 0; i < u.code.size(); ++i) {
    if (u.hoisted[i] == 0) continue;
    load = load || u.code[i].op == spv::Op::OpLoad;
    mul = mul || u.code[i].op == spv::Op::OpFMul;
  }
  CHECK(load);
  CHECK(mul);
  // A loop whose every instruction depends on the trip marks none.
  const Program r =
      Build("  for (int i = 0; i < n; ++i) x = x * x + float(i);\n");
  REQUIRE(r.unrolled_loops.size() == 1);
  for (uint8_t h : r.hoisted) CHECK(h == 0);
}

TEST_CASE("of two nested loops only the inner one is unrolled",
          "[simt][unroll]") {
  const Program p = Build(
      "  for (int j = 0; j < n; ++j) {\n"
      "    for (int i = 0; i < n; ++i) x = x * x + 0.25;\n"
      "    x += 1.0;\n  }\n");
  REQUIRE(p.unrolled_loops.size() == 1);
  // The inner loop ends before the outer one's increment.
  const UnrolledLoop& inner = p.unrolled_loops[0];
  CHECK(inner.exit_branch < inner.merge_pc);
  CHECK(inner.merge_pc < p.code.size());
}

TEST_CASE("every loop, nested or not, is listed with its trip count",
          "[simt][unroll]") {
  // Two nested constant loops: both listed, the outer one holding the
  // inner one; the compiler unrolls the nest whole (H200 record
  // stage-batching-2026-12-03), and the timing model's list has both, each
  // unrolled completely.
  const Program p = Build(
      "  for (int j = 0; j < 4; ++j) {\n"
      "    for (int i = 0; i < 8; ++i) x = x * x + 0.25;\n"
      "    x += 1.0;\n  }\n");
  REQUIRE(p.loops.size() == 2);
  const LoopRange& outer = p.loops[0];
  const LoopRange& inner = p.loops[1];
  CHECK(outer.constant);
  CHECK(inner.constant);
  CHECK(outer.trips == 4);
  CHECK(inner.trips == 8);
  CHECK(outer.begin < inner.begin);
  CHECK(inner.end < outer.end);
  CHECK(outer.whole);
  CHECK(inner.whole);
  REQUIRE(p.unrolled_loops.size() == 2);
  CHECK(p.unrolled_loops[0].full);
  CHECK(p.unrolled_loops[1].full);
  // A constant loop holding a loop with a run-time trip count: constant,
  // but not unrolled whole.
  const Program q = Build(
      "  for (int j = 0; j < 4; ++j) {\n"
      "    for (int i = 0; i < n; ++i) x = x * x + 0.25;\n"
      "    x += 1.0;\n  }\n");
  REQUIRE(q.loops.size() == 2);
  CHECK(q.loops[0].constant);
  CHECK(q.loops[0].trips == 4);
  CHECK_FALSE(q.loops[0].whole);
  CHECK_FALSE(q.loops[1].constant);
  CHECK_FALSE(q.loops[1].whole);
  // A loop with a run-time trip count: listed, not constant.
  const Program r = Build("  for (int i = 0; i < n; ++i) x = x * x;\n");
  REQUIRE(r.loops.size() == 1);
  CHECK_FALSE(r.loops[0].constant);
  CHECK_FALSE(r.loops[0].whole);
}

// The loops tested at their top (Program::loop_tests): per marked loop, its
// compare and its conditional branch, in that order, with the loop's index.
std::vector<std::pair<spv::Op, uint32_t>> Tests(const Program& p) {
  std::vector<std::pair<spv::Op, uint32_t>> out;
  if (p.loop_tests.empty()) return out;
  REQUIRE(p.loop_tests.size() == p.code.size());
  for (size_t i = 0; i < p.code.size(); ++i) {
    if (p.loop_tests[i] != 0) out.emplace_back(p.code[i].op, p.loop_tests[i]);
  }
  return out;
}

TEST_CASE("a loop tested at its top marks its compare and branch",
          "[simt][unroll]") {
  using T = std::vector<std::pair<spv::Op, uint32_t>>;
  const spv::Op kBranch = spv::Op::OpBranchConditional;
  // for and while loops, rolled or not, by any compare.
  CHECK(Tests(Build("  for (int i = 0; i < n; ++i) x = x * x + 0.25;\n")) ==
        T{{spv::Op::OpSLessThan, 1}, {kBranch, 1}});
  CHECK(Tests(Build("  [[dont_unroll]] for (int i = 0; i < n; ++i) "
                    "x = x * x + 0.25;\n")) ==
        T{{spv::Op::OpSLessThan, 1}, {kBranch, 1}});
  CHECK(Tests(Build("  while (x < u.limit) x = x * x + 0.25;\n")) ==
        T{{spv::Op::OpFOrdLessThan, 1}, {kBranch, 1}});
  // Nested: each loop its own, by its index in Program::loops.
  CHECK(Tests(Build("  for (int i = 0; i < n; ++i)\n"
                    "    for (int j = 0; j < i; ++j) x = x * x + 0.25;\n")) ==
        T{{spv::Op::OpSLessThan, 1},
          {kBranch, 1},
          {spv::Op::OpSLessThan, 2},
          {kBranch, 2}});
  // Tested at the bottom (do-while): not at its top.
  CHECK(Tests(Build("  do { x = x * x + 0.25; } while (x < u.limit);\n"))
            .empty());
  // No loop.
  CHECK(Tests(Build("  if (x < u.limit) x = x * x;\n")).empty());
}

TEST_CASE("a loop whose counter moves between registers is unrolled",
          "[simt][unroll]") {
  // register_pressure's held1 loop (vulkan_ref/results/h100/
  // sass-2026-12-07: unrolled four times in the driver's code): a chase,
  // and a branch around a constant loop adding to a vec4 held in
  // registers. The allocator copies the counter to another register at
  // the selection's merge, steps it there and copies it back on the back
  // edge, giving its own register another value meanwhile.
  const Program p = Build(
      "  vec4 held[1];\n  held[0] = vec4(x);\n  uint idx = g & 63u;\n"
      "  for (int i = 0; i < u.n; ++i) {\n"
      "    uint next = uint(b.v[idx]);\n"
      "    if (next == 12345u) {\n"
      "      for (int k = 0; k < 1; ++k) held[k] += 1.0;\n    }\n"
      "    idx = next & 63u;\n  }\n"
      "  x = held[0].x + float(idx);\n");
  using P = std::pair<size_t, size_t>;
  // The outer loop with a run-time trip count, the inner one completely.
  CHECK(Unrolled(p) == P{2, 1});
  // Its selection holds a loop (PredicatedSelection::holds_loop).
  REQUIRE(p.predicated_selections.size() == 1);
  CHECK(p.predicated_selections[0].holds_loop);
  CHECK(p.predicated_selections[0].written == 4);
  // The same loop with the add written out: no loop in the side.
  const Program plain = Build(
      "  vec4 held = vec4(x);\n  uint idx = g & 63u;\n"
      "  for (int i = 0; i < u.n; ++i) {\n"
      "    uint next = uint(b.v[idx]);\n"
      "    if (next == 12345u) held += 1.0;\n"
      "    idx = next & 63u;\n  }\n"
      "  x = held.x + float(idx);\n");
  CHECK(Unrolled(plain) == P{1, 0});
  REQUIRE(plain.predicated_selections.size() == 1);
  CHECK_FALSE(plain.predicated_selections[0].holds_loop);
}

TEST_CASE("a variable held in registers adds no instruction to a loop's body",
          "[simt][unroll]") {
  // register_pressure's held8 (vulkan_ref/results/h100/sass-2026-12-07:
  // unrolled four times in the driver's code, held16 not): a branch around
  // a constant loop adding 1.0 to K vec4 held in registers. NVIDIA's code
  // has the K * 4 adds in the side; the array's loads, stores and access
  // chains are register names there, and the constant loop's control is
  // gone. The body counts the adds only.
  auto outer = [](int k) {
    const std::string n = std::to_string(k);
    const Program p =
        Build("  vec4 held[" + n + "];\n  for (int k = 0; k < " + n +
              "; ++k) held[k] = vec4(x + float(k));\n  uint idx = g & 63u;\n"
              "  for (int i = 0; i < u.n; ++i) {\n"
              "    uint next = uint(b.v[idx]);\n    if (next == 12345u) {\n"
              "      for (int k = 0; k < " +
              n +
              "; ++k) held[k] += 1.0;\n    }\n"
              "    idx = next & 63u;\n  }\n  for (int k = 0; k < " +
              n + "; ++k) x += held[k].x;\n  x += float(idx);\n");
    for (const UnrolledLoop& l : p.unrolled_loops) {
      if (!l.full) return std::pair<uint32_t, uint32_t>{l.body, l.skipped};
    }
    return std::pair<uint32_t, uint32_t>{0, 0};
  };
  const auto [body1, skipped1] = outer(1);
  CHECK(skipped1 == 4);
  for (int k : {8, 16}) {
    const auto [body, skipped] = outer(k);
    CHECK(skipped == static_cast<uint32_t>(4 * k));
    // What lies outside the side is the same whatever K.
    CHECK(body - skipped == body1 - skipped1);
  }
}

TEST_CASE("a loop that loads and holds no selection is marked as loading",
          "[simt][unroll]") {
  // UnrolledLoop::loads: the driver unrolls such loops with longer bodies
  // (TimingConfig::loop_unroll_max_body_loads).
  const Program p =
      Build("  for (int i = 0; i < n; ++i) x = x * 0.5 + b.v[g + i];\n");
  REQUIRE(p.unrolled_loops.size() == 1);
  CHECK(p.unrolled_loops[0].loads);
  // A store in the loop, a selection, or only a uniform block's word: no.
  const Program stores = Build(
      "  for (int i = 0; i < n; ++i) {\n"
      "    x = x * 0.5 + b.v[g + i];\n    b.v[g + 64u] = x;\n  }\n");
  REQUIRE(stores.unrolled_loops.size() == 1);
  CHECK_FALSE(stores.unrolled_loops[0].loads);
  const Program branch = Build(
      "  for (int i = 0; i < n; ++i) {\n"
      "    float w = b.v[g + i];\n"
      "    if (w > 4.0) {\n      x = x * 0.5 + 1.0;\n    }\n  }\n");
  REQUIRE(branch.unrolled_loops.size() == 1);
  CHECK_FALSE(branch.unrolled_loops[0].loads);
  const Program uniform =
      Build("  for (int i = 0; i < n; ++i) x = x * 0.5 + u.limit;\n");
  REQUIRE(uniform.unrolled_loops.size() == 1);
  CHECK_FALSE(uniform.unrolled_loops[0].loads);
  // Loads of a coherent buffer (past the L1): no. E56's loop of four such
  // loads a trip is rolled where the same over a plain buffer is unrolled
  // (vulkan_ref/results/h100/sass-2026-12-07d).
  auto coherent = testing::BuildComputeGlsl(
      "#version 450\nlayout(local_size_x = 32) in;\n"
      "layout(set = 0, binding = 0) coherent buffer B { float v[]; } b;\n"
      "layout(set = 0, binding = 1) uniform U { int n; } u;\n"
      "void main() {\n  uint g = gl_GlobalInvocationID.x;\n"
      "  float x = 0.0;\n"
      "  for (int i = 0; i < u.n; ++i) x = x * 0.5 + b.v[g + i];\n"
      "  b.v[g] = x;\n}\n");
  REQUIRE(coherent.ok());
  REQUIRE(coherent->unrolled_loops.size() == 1);
  CHECK_FALSE(coherent->unrolled_loops[0].loads);
}

TEST_CASE("a loop that samples with implicit derivatives is not unrolled",
          "[simt][unroll]") {
  // NVIDIA's driver keeps such loops rolled (E43's and E44's fragment
  // loops, vulkan_ref/results/h100/sass-2026-12-07b) and unrolls the same
  // loop reading through textureLod.
  const std::string head =
      "#version 450\n"
      "layout(location = 0) out vec4 color;\n"
      "layout(set = 0, binding = 0) uniform U { int n; } u;\n"
      "layout(set = 0, binding = 1) uniform sampler2D tex;\n"
      "void main() {\n  vec2 uv = gl_FragCoord.xy * 0.015625;\n"
      "  vec4 acc = vec4(0.0);\n"
      "  for (int i = 0; i < u.n; ++i) {\n";
  const std::string tail = "  }\n  color = acc;\n}\n";
  auto implicit = testing::BuildFragmentGlsl(
      head + "    acc += texture(tex, uv + vec2(float(i), 0.0));\n" + tail);
  REQUIRE(implicit.ok());
  CHECK(implicit->unrolled_loops.empty());
  auto lod = testing::BuildFragmentGlsl(
      head + "    acc += textureLod(tex, uv + vec2(float(i), 0.0), 0.0);\n" +
      tail);
  REQUIRE(lod.ok());
  CHECK(lod->unrolled_loops.size() == 1);
  // With a constant trip count the loop is unrolled completely all the
  // same.
  auto constant = testing::BuildFragmentGlsl(
      "#version 450\n"
      "layout(location = 0) out vec4 color;\n"
      "layout(set = 0, binding = 1) uniform sampler2D tex;\n"
      "void main() {\n  vec2 uv = gl_FragCoord.xy * 0.015625;\n"
      "  vec4 acc = vec4(0.0);\n"
      "  for (int i = 0; i < 4; ++i) {\n"
      "    acc += texture(tex, uv + vec2(float(i), 0.0));\n" +
      tail);
  REQUIRE(constant.ok());
  REQUIRE(constant->unrolled_loops.size() == 1);
  CHECK(constant->unrolled_loops[0].full);
}

}  // namespace
}  // namespace warpsim::simt
