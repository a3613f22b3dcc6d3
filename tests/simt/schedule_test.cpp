// Tests of emulator/simt/schedule.cpp: the order the lowering gives each
// block's instructions (LowerOptions::schedule), against the order the
// program text has (schedule off), and the instructions it moves from a
// selection's merge block to its header (HoistOrder).
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "runner/shader_build.h"
#include "simt/program.h"
#include "spirv/compile.h"

namespace warpsim::simt {
namespace {

Program Build(const std::string& body, bool schedule) {
  const std::string source =
      "#version 450\n"
      "layout(local_size_x = 64) in;\n"
      "layout(set = 0, binding = 0) buffer B { uint w[]; } b;\n"
      "layout(set = 0, binding = 1) buffer O { float o[]; } out_;\n"
      "layout(push_constant) uniform P { float a; float c; } pc;\n"
      "shared uint s[64];\n"
      "void main() {\n"
      "  uint g = gl_GlobalInvocationID.x;\n"
      "  uint l = gl_LocalInvocationID.x;\n"
      "  float x = float(g);\n" +
      body + "}\n";
  constexpr spirv::TargetEnv kEnv = spirv::TargetEnv::kVulkan1_3;
  auto words =
      spirv::CompileGlsl(source, spirv::ShaderStage::kCompute, kEnv, "t.comp");
  INFO((words.ok() ? "" : words.error().ToString()));
  REQUIRE(words.ok());
  LowerOptions options;
  options.schedule = schedule;
  auto built = runner::BuildProgram(*words, kEnv, "t.comp", options, {});
  INFO((built.ok() ? "" : built.error().ToString()));
  REQUIRE(built.ok());
  return std::move(built->program);
}

// The positions in Program::code of the instructions of `op` (and, for
// OpExtInst, of GLSL.std.450 instruction `ext`).
std::vector<size_t> Where(const Program& p, spv::Op op, int ext = -1) {
  std::vector<size_t> at;
  for (size_t i = 0; i < p.code.size(); ++i) {
    if (p.code[i].op == op && (ext < 0 || p.code[i].ext == ext)) {
      at.push_back(i);
    }
  }
  return at;
}

constexpr int kFma = 50;  // GLSL.std.450 Fma

const char* kFmas =
    "  x = fma(x, pc.a, pc.c); x = fma(x, pc.a, pc.c);\n"
    "  x = fma(x, pc.a, pc.c); x = fma(x, pc.a, pc.c);\n";

TEST_CASE(
    "a load and its address go before the arithmetic the text puts "
    "first",
    "[simt][schedule]") {
  const std::string body = std::string(kFmas) +
                           "  uint u = b.w[(g * 7u) & 63u];\n"
                           "  out_.o[g] = x + float(u);\n";
  const Program text = Build(body, false);
  const Program sched = Build(body, true);
  // Two loads each: the push constants' a and c are operands, not loads.
  const auto text_loads = Where(text, spv::Op::OpLoad);
  const auto sched_loads = Where(sched, spv::Op::OpLoad);
  const auto text_fmas = Where(text, spv::Op::OpExtInst, kFma);
  const auto sched_fmas = Where(sched, spv::Op::OpExtInst, kFma);
  REQUIRE(text_fmas.size() == 4);
  REQUIRE(sched_fmas.size() == 4);
  REQUIRE_FALSE(text_loads.empty());
  REQUIRE_FALSE(sched_loads.empty());
  // In the text the buffer load comes after the chain; scheduled, before
  // its first step, with the multiply and mask of its index.
  CHECK(text_loads.back() > text_fmas.front());
  CHECK(sched_loads.back() < sched_fmas.front());
  for (size_t i : Where(sched, spv::Op::OpBitwiseAnd)) {
    CHECK(i < sched_loads.back());
  }
  // Its consumer stays after both.
  const auto adds = Where(sched, spv::Op::OpFAdd);
  REQUIRE(adds.size() == 1);
  CHECK(adds[0] > sched_fmas.back());
  CHECK(adds[0] > sched_loads.back());
  // The same instructions, the same count.
  CHECK(text.code.size() == sched.code.size());
}

TEST_CASE("a load stays after a store to the same memory and a barrier",
          "[simt][schedule]") {
  // The chain, then a store of its result, then a buffer load: the load
  // and its address go first unless the store may write the word it reads.
  auto body = [](const std::string& store, const std::string& more) {
    return std::string(kFmas) + store +
           "  uint u = b.w[(g * 7u) & 63u];\n"
           "  out_.o[g] = float(u" +
           more + ");\n";
  };
  const Program own = Build(body("  b.w[g] = floatBitsToUint(x);\n", ""), true);
  const Program shared =
      Build(body("  s[l] = floatBitsToUint(x);\n", " + s[l ^ 1u]"), true);
  for (const Program* p : {&own, &shared}) {
    const auto stores = Where(*p, spv::Op::OpStore);
    const auto fmas = Where(*p, spv::Op::OpExtInst, kFma);
    REQUIRE(stores.size() >= 2);
    REQUIRE(fmas.size() == 4);
    // The buffer load: the one whose address is the multiply's.
    const auto muls = Where(*p, spv::Op::OpIMul);
    REQUIRE(muls.size() == 1);
    size_t load = 0;
    for (size_t i : Where(*p, spv::Op::OpLoad)) {
      if (i > muls[0] && load == 0) load = i;
    }
    REQUIRE(load != 0);
    if (p == &own) {
      // The store may write the word it reads: after the store.
      CHECK(load > stores.front());
    } else {
      // Workgroup memory is not what it reads: before the chain.
      CHECK(load < fmas.front());
      CHECK(load < stores.front());
    }
  }
  // A barrier keeps a workgroup load after it, and the store before it.
  const std::string barrier = "  s[l] = 5u;\n  barrier();\n" +
                              std::string(kFmas) +
                              "  uint u = s[(l + 1u) & 63u];\n"
                              "  out_.o[g] = x + float(u);\n";
  const Program r = Build(barrier, true);
  const auto bars = Where(r, spv::Op::OpControlBarrier);
  const auto r_stores = Where(r, spv::Op::OpStore);
  REQUIRE(bars.size() == 1);
  REQUIRE(r_stores.size() == 2);
  CHECK(r_stores.front() < bars[0]);
  const auto r_loads = Where(r, spv::Op::OpLoad);
  REQUIRE_FALSE(r_loads.empty());
  CHECK(r_loads.back() > bars[0]);
}

TEST_CASE("a multiply and the add that reads it stay together",
          "[simt][schedule]") {
  // Both pairs are adjacent in the text; the load and its address move
  // to the top, between nothing.
  const std::string body =
      "  float y = x * pc.a + pc.c;\n"
      "  float z = y * pc.a + pc.c;\n"
      "  uint u = b.w[(g * 3u) & 63u];\n"
      "  out_.o[g] = z + float(u);\n";
  const Program p = Build(body, true);
  const auto muls = Where(p, spv::Op::OpFMul);
  REQUIRE(muls.size() == 2);
  for (size_t i : muls) {
    REQUIRE(i + 1 < p.code.size());
    CHECK(p.code[i + 1].op == spv::Op::OpFAdd);
  }
}

// The block of instruction i.
uint32_t BlockOf(const Program& p, size_t i) {
  uint32_t b = 0;
  while (b + 1 < p.blocks.size() && p.blocks[b + 1].first_instr <= i) ++b;
  return b;
}

TEST_CASE(
    "what a selection's merge block computes from values before it moves "
    "before the selection's branch",
    "[simt][schedule]") {
  // After the `if`: y from x alone moves up; z reads the phi of v (what
  // the if may change) and stays, and so does the load after it.
  const std::string body =
      "  uint v = g;\n"
      "  float a = pc.a, c = pc.c;\n"
      "  if (b.w[g] == 7u) v = v * 3u + 1u;\n"
      "  float y = x * a + c;\n"
      "  uint z = v ^ 5u;\n"
      "  uint u = b.w[(g * 3u) & 63u];\n"
      "  out_.o[g] = y + float(z + u);\n";
  const Program text = Build(body, false);
  const Program sched = Build(body, true);
  const auto branch = Where(sched, spv::Op::OpBranchConditional);
  REQUIRE(branch.size() == 1);
  const auto text_branch = Where(text, spv::Op::OpBranchConditional);
  REQUIRE(text_branch.size() == 1);
  // In the text the multiply-add comes after the branch; now before it,
  // in its block.
  const auto text_mul = Where(text, spv::Op::OpFMul);
  const auto mul = Where(sched, spv::Op::OpFMul);
  REQUIRE(text_mul.size() == 1);
  REQUIRE(mul.size() == 1);
  CHECK(text_mul[0] > text_branch[0]);
  CHECK(mul[0] < branch[0]);
  CHECK(BlockOf(sched, mul[0]) == BlockOf(sched, branch[0]));
  REQUIRE(mul[0] + 1 < sched.code.size());
  CHECK(sched.code[mul[0] + 1].op == spv::Op::OpFAdd);
  // The xor reads the phi: after the branch, as the loads are.
  const auto xors = Where(sched, spv::Op::OpBitwiseXor);
  REQUIRE(xors.size() == 1);
  CHECK(xors[0] > branch[0]);
  auto loads_after = [](const Program& p, size_t at) {
    size_t n = 0;
    for (size_t i : Where(p, spv::Op::OpLoad)) n += i > at;
    return n;
  };
  CHECK(loads_after(sched, branch[0]) == loads_after(text, text_branch[0]));
  // Every block still ends in its terminator.
  for (uint32_t b = 0; b + 1 < sched.blocks.size(); ++b) {
    const uint32_t end = sched.blocks[b + 1].first_instr;
    REQUIRE(end > sched.blocks[b].first_instr);
    const spv::Op op = sched.code[end - 1].op;
    CHECK((op == spv::Op::OpBranch || op == spv::Op::OpBranchConditional ||
           op == spv::Op::OpSwitch || op == spv::Op::OpReturn));
  }
}

TEST_CASE("a branch's flags stay with it when instructions move",
          "[simt][schedule]") {
  // A branch every lane of a warp shares (a word of the push constants),
  // then arithmetic that moves above it.
  const std::string body =
      "  uint v = g;\n"
      "  float a = pc.a, c = pc.c;\n"
      "  if (a > 2.0) v = v * 3u + 1u;\n"
      "  float y = x * a + c;\n"
      "  out_.o[g] = y + float(v);\n";
  const Program sched = Build(body, true);
  const auto branch = Where(sched, spv::Op::OpBranchConditional);
  REQUIRE(branch.size() == 1);
  REQUIRE(branch[0] < sched.uniform_branches.size());
  CHECK(sched.uniform_branches[branch[0]] == 1);
  for (size_t i = 0; i < sched.uniform_branches.size(); ++i) {
    if (i != branch[0]) CHECK(sched.uniform_branches[i] == 0);
  }
}

TEST_CASE("a conditional branch's compare comes first in its block",
          "[simt][schedule]") {
  // Four FFMA chains the text puts before the compare: scheduled, the
  // compare goes first (its predicate's wait overlaps them).
  const std::string body =
      "  float y = float(l);\n"
      "  uint k = b.w[0];\n"
      "  x = fma(x, pc.a, pc.c); y = fma(y, pc.a, pc.c);\n"
      "  x = fma(x, pc.a, pc.c); y = fma(y, pc.a, pc.c);\n"
      "  if (k + l == 9u) x += 1.0;\n"
      "  out_.o[g] = x + y;\n";
  const Program sched = Build(body, true);
  const auto branch = Where(sched, spv::Op::OpBranchConditional);
  REQUIRE(branch.size() == 1);
  const auto cmp = Where(sched, spv::Op::OpIEqual);
  REQUIRE(cmp.size() == 1);
  for (size_t f : Where(sched, spv::Op::OpExtInst, kFma)) {
    CHECK(cmp[0] < f);
  }
}

}  // namespace
}  // namespace warpsim::simt
