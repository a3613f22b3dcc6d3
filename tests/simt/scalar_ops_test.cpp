// Integer scalar operations (scalar_ops.h): OpSpecConstantOp folding in the
// lowering gives bit for bit what the executor computes at run time, at the
// edges where C++ arithmetic would trap or be undefined: INT_MIN / -1,
// negating INT_MIN, division and remainder by zero, the signs of OpSRem and
// OpSMod, and shift counts at or above the width.
//
// Each case is one small compute shader in assembly: the same instruction
// once as OpSpecConstantOp on two specialization constants (folded by the
// lowering) and once on the same values loaded from a buffer (executed by a
// warp). Both results are stored to the buffer and must agree.
#include "simt/scalar_ops.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "simt/lower.h"
#include "simt/warp.h"
#include "spirv/compile.h"
#include "spirv/module.h"

namespace {

namespace simt = warpsim::simt;
namespace spirv = warpsim::spirv;

struct Case {
  const char* op;  // SPIR-V opcode without "Op"
  uint32_t width;  // operand width in bits
  uint64_t a, b;   // operand bits (b is ignored by unary ops)
};

bool IsUnary(const std::string& op) { return op == "SNegate" || op == "Not"; }

bool IsComparison(const std::string& op) {
  return op.find("LessThan") != std::string::npos ||
         op.find("GreaterThan") != std::string::npos || op == "IEqual" ||
         op == "INotEqual";
}

// The shader: buffer {a, b, folded, runtime}, each in an 8-byte slot.
std::string Shader(const Case& c) {
  const std::string op = c.op;
  const bool boolean = IsComparison(op);
  const std::string w = std::to_string(c.width);
  const std::string args = IsUnary(op) ? " %sa" : " %sa %sb";
  const std::string rargs = IsUnary(op) ? " %a" : " %a %b";
  const std::string rt = boolean ? "%bool" : "%t";
  std::string s = "OpCapability Shader\n";
  if (c.width == 64) s += "OpCapability Int64\n";
  if (c.width == 16) s += "OpCapability Int16\n";
  s += R"(OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %sa SpecId 0
OpDecorate %sb SpecId 1
OpDecorate %S Block
OpMemberDecorate %S 0 Offset 0
OpMemberDecorate %S 1 Offset 8
OpMemberDecorate %S 2 Offset 16
OpMemberDecorate %S 3 Offset 24
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%t = OpTypeInt )" +
       w + R"( 1
%u32 = OpTypeInt 32 0
%bool = OpTypeBool
%S = OpTypeStruct %t %t %t %t
%ps = OpTypePointer StorageBuffer %S
%pt = OpTypePointer StorageBuffer %t
%buf = OpVariable %ps StorageBuffer
%c0 = OpConstant %u32 0
%c1 = OpConstant %u32 1
%c2 = OpConstant %u32 2
%c3 = OpConstant %u32 3
%zero = OpConstant %t 0
%one = OpConstant %t 1
%sa = OpSpecConstant %t 0
%sb = OpSpecConstant %t 0
%f = OpSpecConstantOp )" +
       rt + " " + op + args + R"(
%main = OpFunction %void None %fn
%entry = OpLabel
%pa = OpAccessChain %pt %buf %c0
%a = OpLoad %t %pa
%pb = OpAccessChain %pt %buf %c1
%b = OpLoad %t %pb
%r = Op)" +
       op + " " + rt + rargs + "\n";
  if (boolean) {
    s += "%fv = OpSelect %t %f %one %zero\n";
    s += "%rv = OpSelect %t %r %one %zero\n";
  } else {
    s += "%fv = OpCopyObject %t %f\n%rv = OpCopyObject %t %r\n";
  }
  s += R"(%pf = OpAccessChain %pt %buf %c2
OpStore %pf %fv
%pr = OpAccessChain %pt %buf %c3
OpStore %pr %rv
OpReturn
OpFunctionEnd
)";
  return s;
}

uint64_t Mask(uint32_t width) {
  return width == 64 ? ~0ull : (1ull << width) - 1;
}

// Runs the case; returns {folded, runtime} as the low `width` bits.
std::pair<uint64_t, uint64_t> FoldedAndRuntime(const Case& c) {
  const std::string text = Shader(c);
  INFO(text);
  auto words =
      spirv::AssembleSpirv(text, spirv::TargetEnv::kSpv1_3, "fold.spvasm");
  if (!words.ok()) FAIL(words.error().ToString());
  auto module = spirv::Module::Build(*words, "fold.spvasm");
  if (!module.ok()) FAIL(module.error().ToString());
  simt::LowerOptions options;
  options.spec_values = {{0, c.a & Mask(c.width)}, {1, c.b & Mask(c.width)}};
  auto program = simt::LowerProgram(*module, options);
  if (!program.ok()) FAIL(program.error().ToString());
  REQUIRE(program->resources.size() == 1);

  std::vector<uint8_t> buffer(32, 0);
  const uint64_t a = c.a & Mask(c.width), b = c.b & Mask(c.width);
  std::memcpy(&buffer[0], &a, c.width / 8);  // little-endian: low bytes
  std::memcpy(&buffer[8], &b, c.width / 8);
  simt::ExecContext context;
  context.regions.resize(program->num_regions);
  context.regions[program->resources[0].region] = {buffer.data(), buffer.size(),
                                                   true};
  simt::Warp warp(*program, simt::kMaxWarpWidth, 1u, &context);
  for (int steps = 0; !warp.done(); ++steps) {
    REQUIRE(steps < 1000);
    warp.Step();
  }
  REQUIRE(warp.error() == nullptr);
  uint64_t folded = 0, runtime = 0;
  std::memcpy(&folded, &buffer[16], c.width / 8);
  std::memcpy(&runtime, &buffer[24], c.width / 8);
  return {folded, runtime};
}

constexpr uint64_t kMin32 = 0x80000000u;
constexpr uint64_t kMin64 = 0x8000000000000000ull;
constexpr uint64_t kMin16 = 0x8000u;
constexpr uint64_t kMinus1 = ~0ull;  // -1 at any width (masked per case)
uint64_t Neg(uint64_t v) { return 0 - v; }

}  // namespace

TEST_CASE("OpSpecConstantOp folds integers as the executor computes them",
          "[simt][lower][fold]") {
  const Case cases[] = {
      // INT_MIN / -1 and friends (the host traps on INT_MIN / -1).
      {"SDiv", 32, kMin32, kMinus1},
      {"SDiv", 64, kMin64, kMinus1},
      {"SDiv", 16, kMin16, kMinus1},
      {"SRem", 32, kMin32, kMinus1},
      {"SRem", 64, kMin64, kMinus1},
      {"SMod", 32, kMin32, kMinus1},
      {"SMod", 64, kMin64, kMinus1},
      {"SNegate", 32, kMin32, 0},
      {"SNegate", 64, kMin64, 0},
      {"SNegate", 16, kMin16, 0},
      {"IMul", 32, kMin32, kMinus1},
      {"IMul", 64, kMin64, kMinus1},
      {"IAdd", 64, kMin64 - 1, 1},
      {"ISub", 32, kMin32, 1},
      // Division and remainder by zero.
      {"SDiv", 32, 7, 0},
      {"SDiv", 64, Neg(7), 0},
      {"UDiv", 32, 7, 0},
      {"UDiv", 64, 7, 0},
      {"SRem", 32, 7, 0},
      {"SRem", 64, 7, 0},
      {"SMod", 32, Neg(7), 0},
      {"SMod", 64, 7, 0},
      {"UMod", 32, 7, 0},
      {"UMod", 64, 7, 0},
      // Signs: OpSRem follows the dividend, OpSMod the divisor.
      {"SRem", 32, 7, 3},
      {"SRem", 32, Neg(7), 3},
      {"SRem", 32, 7, Neg(3)},
      {"SRem", 32, Neg(7), Neg(3)},
      {"SMod", 32, 7, 3},
      {"SMod", 32, Neg(7), 3},
      {"SMod", 32, 7, Neg(3)},
      {"SMod", 32, Neg(7), Neg(3)},
      {"SMod", 64, Neg(7), 3},
      {"SMod", 64, 7, Neg(3)},
      {"SDiv", 32, Neg(7), 2},
      {"UDiv", 32, kMin32, 3},
      // Shift counts at and beyond the width, and "negative" counts.
      {"ShiftLeftLogical", 32, 1, 31},
      {"ShiftLeftLogical", 32, 1, 32},
      {"ShiftLeftLogical", 32, 1, 33},
      {"ShiftLeftLogical", 32, 1, kMinus1},
      {"ShiftLeftLogical", 64, 1, 63},
      {"ShiftLeftLogical", 64, 1, 64},
      {"ShiftLeftLogical", 64, 1, 65},
      {"ShiftLeftLogical", 64, 1, 0x100000040ull},
      {"ShiftLeftLogical", 16, 1, 16},
      {"ShiftRightLogical", 32, kMin32, 32},
      {"ShiftRightLogical", 64, kMin64, 64},
      {"ShiftRightLogical", 64, kMin64, 0x100000001ull},
      {"ShiftRightArithmetic", 32, kMin32, 31},
      {"ShiftRightArithmetic", 32, kMin32, 32},
      {"ShiftRightArithmetic", 32, kMin32, 100},
      {"ShiftRightArithmetic", 64, kMin64, 64},
      {"ShiftRightArithmetic", 64, 5, 64},
      {"ShiftRightArithmetic", 16, kMin16, 16},
      // Comparisons at the signed/unsigned boundary.
      {"SLessThan", 32, kMin32, 0},
      {"ULessThan", 32, kMin32, 0},
      {"SGreaterThanEqual", 64, kMin64, kMinus1},
      {"UGreaterThan", 64, kMin64, kMinus1},
      {"IEqual", 16, kMin16, kMin16},
      {"Not", 64, kMin64, 0},
  };
  for (const Case& c : cases) {
    INFO("Op" << c.op << " on " << c.width << "-bit 0x" << std::hex
              << (c.a & Mask(c.width)) << ", 0x" << (c.b & Mask(c.width)));
    const auto [folded, runtime] = FoldedAndRuntime(c);
    CHECK(folded == runtime);
  }
}

namespace {

// Runs a / b and a % b (OpSDiv, OpSMod) on 32 lanes, all of them or
// (`diverged`) only the odd ones, and checks each lane against scalar_ops.
void CheckWarpDivision(const int32_t (&a)[32], const int32_t (&b)[32],
                       bool diverged) {
  std::string data_a, data_b, want_div, want_mod;
  for (int i = 0; i < 32; ++i) {
    data_a += " " + std::to_string(a[i]);
    data_b += " " + std::to_string(b[i]);
    // In the diverged run even lanes keep -5.
    const bool runs = !diverged || i % 2 == 1;
    want_div +=
        " " + std::to_string(runs ? simt::scalar::SDiv(a[i], b[i]) : -5);
    want_mod +=
        " " + std::to_string(runs ? simt::scalar::SMod(a[i], b[i]) : -5);
  }
  INFO((diverged ? "odd lanes" : "every lane") << ", b:" << data_b);
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { int v[]; } a;
layout(set = 0, binding = 1) buffer B { int v[]; } b;
layout(set = 0, binding = 2) buffer D { int v[]; } d;
layout(set = 0, binding = 3) buffer M { int v[]; } m;
void main() {
  uint i = gl_LocalInvocationID.x;
  int q = -5, r = -5;
  if ()" + std::string(diverged ? "(i & 1u) == 1u" : "true") +
                            R"() {
    q = a.v[i] / b.v[i];
    r = a.v[i] % b.v[i];
  }
  d.v[i] = q;
  m.v[i] = r;
}
END
BUFFER a DATA_TYPE int32 DATA)" +
                            data_a +
                            R"(
END
BUFFER b DATA_TYPE int32 DATA)" +
                            data_b +
                            R"(
END
BUFFER d DATA_TYPE int32 SIZE 32 FILL 0
BUFFER m DATA_TYPE int32 SIZE 32 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER a AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER b AS storage DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER d AS storage DESCRIPTOR_SET 0 BINDING 2
  BIND BUFFER m AS storage DESCRIPTOR_SET 0 BINDING 3
END
RUN p 1 1 1
EXPECT d IDX 0 EQ)" + want_div +
                            R"(
EXPECT m IDX 0 EQ)" + want_mod +
                            "\n";
  const auto report = warpsim::testing::RunAmberText(amber);
  INFO(warpsim::testing::Describe(report));
  CHECK(report.status == warpsim::runner::RunStatus::kPass);
}

}  // namespace

TEST_CASE("32-bit OpSDiv and OpSMod of a whole warp match scalar_ops",
          "[simt][scalar]") {
  // The 32-bit handlers divide four lanes at a time (exec_arithmetic.cpp),
  // by a reciprocal when every active lane has the same divisor: every lane
  // of a full warp, and every other lane of one that diverged, must give
  // what the scalar functions give, edge cases included.
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  const int32_t kMax = std::numeric_limits<int32_t>::max();
  // 49, -98, 147 and 343 over 49: the product with the reciprocal of 49
  // rounds below the integer quotient (the correction step).
  const int32_t a[32] = {7,    -7,   7,    -7,      kMin, kMin, kMin, kMax,
                         kMax, 0,    5,    kMin,    1,    -1,   100,  -100,
                         13,   -13,  kMax, 1 << 30, 49,   -98,  147,  kMin + 1,
                         1234, 5678, -999, 31,      kMax, kMin, 343,  -2};
  const int32_t b[32] = {3,    3,  -3, -3,         -1,   1,    0,    -1,
                         kMin, 0,  0,  kMax,       kMin, -1,   7,    7,
                         -5,   -5, 2,  -(1 << 29), 3,    3,    kMax, -1,
                         -37,  41, 17, -7,         kMax, kMin, 2,    2};
  for (const bool diverged : {false, true}) CheckWarpDivision(a, b, diverged);
  // One divisor for the warp; and one for the odd lanes only (the even
  // lanes' 0 is not theirs to divide by).
  for (const int32_t divisor : {3, -3, 2, -2, 7, 49, -49, 1000, -65536, kMax,
                                kMin, kMin + 1, 1, -1, 0}) {
    int32_t same[32], odd[32];
    for (int i = 0; i < 32; ++i) {
      same[i] = divisor;
      odd[i] = i % 2 == 1 ? divisor : 0;
    }
    CheckWarpDivision(a, same, false);
    CheckWarpDivision(a, odd, true);
  }
}
