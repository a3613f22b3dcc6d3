// Tests of emulator/simt/lower_model.cpp's MarkRedundant: an arithmetic
// instruction that repeats an earlier one of its block on the same values
// is marked (the compiler computes it once), a repeat of a repeat too; not
// across a new value of an operand, not a memory access. And of
// MarkPredicated: which selections NVIDIA's compiler could predicate, and
// the instructions of each side, and which branches are selections'. And
// of MarkFoldedChains: the links of a chain of float multiplies and adds by
// constants on one value after its first multiply-add.
#include <catch2/catch.hpp>
#include <string>
#include <utility>

#include "common/test_util.h"
#include "simt/program.h"

namespace warpsim::simt {
namespace {

Program Build(const std::string& body) {
  const std::string source =
      "#version 450\nlayout(local_size_x = 32) in;\n"
      "layout(set = 0, binding = 0) buffer B { float v[]; } b;\n"
      "void main() {\n  uint g = gl_GlobalInvocationID.x;\n"
      "  float d = b.v[g];\n" +
      body + "  b.v[g] = d;\n}\n";
  auto program = testing::BuildComputeGlsl(source);
  INFO((program.ok() ? "" : program.error().ToString()));
  REQUIRE(program.ok());
  return std::move(*program);
}

size_t Redundant(const Program& p) {
  REQUIRE(p.redundant.size() == p.code.size());
  size_t n = 0;
  for (size_t i = 0; i < p.code.size(); ++i) {
    if (p.redundant[i] == 0) continue;
    ++n;
    CHECK(p.code[i].pipe != Pipe::kLsu);
  }
  return n;
}

TEST_CASE("a repeated computation is marked once it repeats", "[simt][cse]") {
  // glmark2's medium step: fract(3.0 * d) twice, the multiply and the
  // fract of the second are repeats (the fract reads the repeated
  // multiply's value, in another register).
  CHECK(Redundant(Build("  d = fract(3.0 * d) * fract(3.0 * d);\n")) == 2);
  // Nothing repeats.
  CHECK(Redundant(Build("  d = fract(3.0 * d) * fract(5.0 * d);\n")) == 0);
  // An operand written in between: the same text, another value.
  CHECK(Redundant(Build("  float a = fract(3.0 * d);\n  d += 1.0;\n"
                        "  d = a * fract(3.0 * d);\n")) == 0);
  // Loads are never marked, even of the same word (Redundant checks that
  // no marked instruction is a memory access); the second g + 1u is.
  CHECK(Redundant(Build("  d = b.v[g + 1u] * b.v[g + 1u];\n")) == 1);
}

size_t Folded(const Program& p) {
  REQUIRE(p.folded.size() == p.code.size());
  size_t n = 0;
  for (size_t i = 0; i < p.code.size(); ++i) {
    if (p.folded[i] == 0) continue;
    ++n;
    CHECK(p.code[i].pipe == Pipe::kFma);
  }
  return n;
}

TEST_CASE(
    "a chain of float operations by constants is folded after its "
    "first multiply-add",
    "[simt][fold]") {
  // Four multiply-adds by constants: the first multiply and its add stay,
  // the other three pairs are folded.
  CHECK(Folded(Build("  d = d * 1.5 + 0.25;\n  d = d * 1.5 + 0.25;\n"
                     "  d = d * 1.5 + 0.25;\n  d = d * 1.5 + 0.25;\n")) == 6);
  // Adds and subtracts alone: all but the first.
  CHECK(Folded(Build("  d = d + 1.0;\n  d = d - 2.0;\n  d = d + 3.0;\n")) == 2);
  // A multiply by another register ends the chain, and starts none: the
  // two around it are each a first.
  CHECK(Folded(Build("  d = d * 1.5 + 0.25;\n  d = d * d;\n"
                     "  d = d * 1.5 + 0.25;\n")) == 0);
  // An intermediate value read elsewhere is computed: no fold across it.
  CHECK(Folded(Build("  float a = d * 1.5;\n  d = a + 0.25;\n"
                     "  d = d * a;\n")) == 0);
}

// The one selection MarkPredicated listed (its side sizes), or {-1, -1}
// when it listed none; exactly one branch is marked per listing.
std::pair<int, int> PredicatedSides(const Program& p) {
  if (p.predicated_selections.empty()) {
    CHECK(p.predicated.empty());
    return {-1, -1};
  }
  REQUIRE(p.predicated_selections.size() == 1);
  const PredicatedSelection& s = p.predicated_selections[0];
  REQUIRE(p.predicated.size() == p.code.size());
  CHECK(p.predicated[s.branch] == 1);
  CHECK(p.code[s.branch].op == spv::Op::OpBranchConditional);
  for (int k = 0; k < 2; ++k) {
    for (uint32_t pc : s.side[k]) {
      CHECK(p.code[pc].pipe != Pipe::kBranch);
      CHECK(p.code[pc].pipe != Pipe::kLsu);
    }
  }
  return {static_cast<int>(s.side[0].size()),
          static_cast<int>(s.side[1].size())};
}

TEST_CASE("selections of arithmetic are listed for predication",
          "[simt][predicate]") {
  // Three instructions on the true side, none on the false (its target is
  // the merge). (Not a chain of adds by constants: MarkFoldedChains would
  // leave one.)
  CHECK(PredicatedSides(Build("  if (d == 7.0) { d += 1.0; d *= d; "
                              "d += 3.0; }\n")) == std::pair{3, 0});
  // Both sides.
  CHECK(PredicatedSides(Build("  if (d == 7.0) { d += 1.0; } else { "
                              "d *= 3.0; d -= 2.0; }\n")) == std::pair{1, 2});
  // A loop of a constant 4 trips in it: the compiler unrolls it
  // completely, its body once per trip, its control not at all.
  CHECK(PredicatedSides(
            Build("  if (d == 7.0) {\n"
                  "    for (int k = 0; k < 4; ++k) d = d * 1.5 + 1.0;\n"
                  "  }\n")) == std::pair{8, 0});
  // Not: a store, a load, a loop with a run-time trip count.
  CHECK(PredicatedSides(Build("  if (d == 7.0) b.v[g + 64u] = 1.0;\n")) ==
        std::pair{-1, -1});
  CHECK(PredicatedSides(Build("  if (d == 7.0) d += b.v[g + 64u];\n")) ==
        std::pair{-1, -1});
  CHECK(PredicatedSides(Build("  if (d == 7.0) {\n"
                              "    for (uint k = 0u; k < g; ++k) d += 1.0;\n"
                              "  }\n")) == std::pair{-1, -1});
  // More than PredicatedSelection::kMaxInstructions.
  std::string many = "  if (d == 7.0) {\n";
  for (uint32_t k = 0; k <= PredicatedSelection::kMaxInstructions; ++k) {
    many += "    d = d * d + " + std::to_string(k + 1) + ".0;\n";
  }
  CHECK(PredicatedSides(Build(many + "  }\n")) == std::pair{-1, -1});
}

// The registers the one listed selection's sides write.
uint32_t SidesWrite(const Program& p) {
  REQUIRE(p.predicated_selections.size() == 1);
  return p.predicated_selections[0].written;
}

TEST_CASE("a listed selection counts the registers its sides write",
          "[simt][predicate]") {
  // One value, however many instructions: a chain of multiply-adds on d.
  CHECK(SidesWrite(Build("  if (d == 7.0) { d = d * d + 1.0; d = d * d + "
                         "2.0; d = d * d + 3.0; }\n")) == 1);
  // A vec4 of four values: its four components.
  CHECK(SidesWrite(Build("  vec4 h = vec4(d, d * d, d * 3.0, d * 5.0);\n"
                         "  if (d == 7.0) h += 1.0;\n"
                         "  d = h.x + h.y + h.z + h.w;\n")) == 4);
  // Four vec4s through a loop the compiler unrolls completely: sixteen.
  CHECK(SidesWrite(Build(
            "  vec4 h[4];\n  for (int k = 0; k < 4; ++k) h[k] = vec4(d);\n"
            "  if (d == 7.0) {\n"
            "    for (int k = 0; k < 4; ++k) h[k] += 1.0;\n  }\n"
            "  d = h[0].x + h[1].y + h[2].z + h[3].w;\n")) == 16);
}

// The conditional branches MarkPredicated marks as selection headers'.
size_t SelectionBranches(const Program& p) {
  if (p.selection_branches.empty()) return 0;
  REQUIRE(p.selection_branches.size() == p.code.size());
  size_t n = 0;
  for (size_t i = 0; i < p.code.size(); ++i) {
    if (p.selection_branches[i] == 0) continue;
    ++n;
    CHECK(p.code[i].op == spv::Op::OpBranchConditional);
  }
  return n;
}

TEST_CASE("selection headers' conditional branches are marked, listed or not",
          "[simt][predicate]") {
  // Listed for predication or not (a store), each if is marked.
  CHECK(SelectionBranches(Build("  if (d == 7.0) d += 1.0;\n")) == 1);
  CHECK(SelectionBranches(Build("  if (d == 7.0) b.v[g + 64u] = 1.0;\n")) == 1);
  CHECK(SelectionBranches(Build("  if (d == 7.0) d += 1.0;\n"
                                "  if (d == 8.0) { d += 2.0; } else { "
                                "d *= 3.0; }\n")) == 2);
  // A loop's exit branch is no selection's; the if inside it is.
  CHECK(SelectionBranches(
            Build("  for (uint k = 0u; k < g; ++k) d += 1.0;\n")) == 0);
  CHECK(SelectionBranches(Build("  for (uint k = 0u; k < g; ++k) {\n"
                                "    if (d == 7.0) d += 1.0;\n  }\n")) == 1);
  // A side that leaves the construct (a return, a break) does not come
  // back to the merge: not marked.
  CHECK(SelectionBranches(Build("  if (d == 7.0) { b.v[g] = d; return; }\n")) ==
        0);
  CHECK(SelectionBranches(Build("  for (uint k = 0u; k < g; ++k) {\n"
                                "    if (d == 7.0) break;\n"
                                "    d += 1.0;\n  }\n")) == 0);
}

}  // namespace
}  // namespace warpsim::simt
