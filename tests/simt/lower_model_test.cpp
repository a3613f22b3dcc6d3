// Tests of emulator/simt/lower_model.cpp's MarkRedundant: an arithmetic
// instruction that repeats an earlier one of its block on the same values
// is marked (the compiler computes it once), a repeat of a repeat too; not
// across a new value of an operand, not a memory access.
#include <catch2/catch.hpp>
#include <string>

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

}  // namespace
}  // namespace warpsim::simt
