// Derivatives (exec_derivative.cpp): OpDPdx/OpDPdy/OpFwidth, Fine, Coarse.
//
// The graphics pipeline does not drive fragment warps yet, so most tests run
// one fragment warp by hand: the shader is built with the lowering API, and
// each lane gets the FragCoord of its pixel in the Vulkan quad layout
//
//   lane = 4*q + (x & 1) + 2*(y & 1),   quad q covers pixels
//   (2*(q % 4) + {0,1}, 2*(q / 4) + {0,1}):   an 8x4 pixel tile.
//
// Results are read from the lanes' Output variables. Expected values come
// from the spec's definitions written in pixel terms (P at the neighbouring
// pixel), not from the lane arithmetic of the implementation. Compute
// shaders with SPV_NV_compute_shader_derivatives run end to end through
// AmberScript. 16- and 64-bit derivatives, which the SPIR-V validator
// refuses, are lowered from assembly without validation.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "base/half.h"
#include "common/test_util.h"
#include "runner/shader_build.h"
#include "simt/disasm.h"
#include "simt/lower.h"
#include "simt/warp.h"
#include "spirv/compile.h"
#include "spirv/module.h"

namespace {

using warpsim::DoubleToHalf;
using warpsim::FloatToHalf;
using warpsim::HalfToFloat;
using warpsim::runner::RunStatus;
using warpsim::simt::ExecContext;
using warpsim::simt::InputSlot;
using warpsim::simt::InstrRecord;
using warpsim::simt::Program;
using warpsim::simt::Warp;
using warpsim::testing::Describe;
using warpsim::testing::RunAmberText;
namespace spirv = warpsim::spirv;
namespace simt = warpsim::simt;

constexpr uint32_t kWidth = 32;

struct Pixel {
  int x, y;
};

Pixel LanePixel(uint32_t lane) {
  const uint32_t q = lane / 4;
  return {static_cast<int>(2 * (q % 4) + (lane & 1u)),
          static_cast<int>(2 * (q / 4) + ((lane >> 1) & 1u))};
}

using Field = std::function<double(int x, int y)>;

// The spec's derivatives of P at `lane`'s pixel (REFERENCE §8.4), written
// with pixel neighbours: (X, Y) is the quad's top-left pixel.
struct Expected {
  double dx_fine, dy_fine, dx_coarse, dy_coarse;
  double fwidth_fine() const { return std::fabs(dx_fine) + std::fabs(dy_fine); }
  double fwidth_coarse() const {
    return std::fabs(dx_coarse) + std::fabs(dy_coarse);
  }
};

Expected Reference(const Field& p, uint32_t lane) {
  const Pixel px = LanePixel(lane);
  const int x0 = px.x & ~1, y0 = px.y & ~1;
  return {p(x0 + 1, px.y) - p(x0, px.y), p(px.x, y0 + 1) - p(px.x, y0),
          p(x0 + 1, y0) - p(x0, y0), p(x0, y0 + 1) - p(x0, y0)};
}

// P = x^2 - 3y^2 + xy: fine and coarse differ in both directions, and the
// y derivative changes sign across the tile (exercises Fwidth's |.|).
double Pattern(int x, int y) {
  return static_cast<double>(x) * x - 3.0 * y * y + static_cast<double>(x) * y;
}

constexpr const char* kPatternGlsl = R"(
  float x = gl_FragCoord.x - 0.5;
  float y = gl_FragCoord.y - 0.5;
  float p = x * x - 3.0 * y * y + x * y;
)";

std::string Frag(const std::string& outputs, const std::string& body) {
  return "#version 450\n" + outputs + "\nvoid main() {\n" + kPatternGlsl +
         body + "\n}\n";
}

// Compiles, validates, legalizes and lowers a GLSL shader.
Program BuildGlsl(const std::string& source, spirv::ShaderStage stage,
                  bool derivatives_fine = false, bool kill_terminates = true) {
  const auto env = spirv::TargetEnv::kVulkan1_1;
  auto words = spirv::CompileGlsl(source, stage, env, "derivative_test.glsl");
  if (!words.ok()) FAIL(words.error().ToString());
  simt::LowerOptions options;
  options.derivatives_fine = derivatives_fine;
  options.kill_terminates = kill_terminates;
  auto built = warpsim::runner::BuildProgram(*words, env, "derivative_test",
                                             options, {});
  if (!built.ok()) FAIL(built.error().ToString());
  return built->program;
}

// Assembles and lowers SPIR-V without validation (for what the validator
// refuses, e.g. 16-bit derivatives).
warpsim::Result<Program> LowerAsm(const std::string& text,
                                  bool derivatives_fine = false) {
  auto words = spirv::AssembleSpirv(text, spirv::TargetEnv::kSpv1_3,
                                    "derivative_test.spvasm");
  if (!words.ok()) return words.error();
  auto module = spirv::Module::Build(*words, "derivative_test.spvasm");
  if (!module.ok()) return module.error();
  simt::LowerOptions options;
  options.derivatives_fine = derivatives_fine;
  return simt::LowerProgram(*module, options);
}

bool IsDerivative(spv::Op op) {
  switch (op) {
    case spv::Op::OpDPdx:
    case spv::Op::OpDPdy:
    case spv::Op::OpFwidth:
    case spv::Op::OpDPdxFine:
    case spv::Op::OpDPdyFine:
    case spv::Op::OpFwidthFine:
    case spv::Op::OpDPdxCoarse:
    case spv::Op::OpDPdyCoarse:
    case spv::Op::OpFwidthCoarse:
      return true;
    default:
      return false;
  }
}

// One fragment warp of 8 quads over the 8x4 tile, run by hand.
class FragmentWarp {
 public:
  FragmentWarp(const Program& program, uint32_t launch = ~0u,
               uint32_t helpers = 0)
      : program_(program) {
    context_.regions.resize(program_.num_regions);
    warp_ = std::make_unique<Warp>(program_, kWidth, launch, &context_);
    for (uint32_t lane = 0; lane < kWidth; ++lane) {
      if (((launch >> lane) & 1u) == 0) continue;
      const Pixel px = LanePixel(lane);
      for (const InputSlot& slot : program_.inputs) {
        REQUIRE(slot.builtin == spv::BuiltIn::FragCoord);
        const float coord[4] = {px.x + 0.5f, px.y + 0.5f, 0.5f, 1.0f};
        std::memcpy(warp_->PrivateMemory(lane) + slot.offset, coord,
                    std::min<uint32_t>(slot.bytes, sizeof(coord)));
      }
    }
    warp_->set_helper(helpers);
  }

  Warp& warp() { return *warp_; }

  // Runs to completion, checking every derivative step: its inactive lanes'
  // destination keeps its value; and, unless the destination is also the
  // operand, a copy of the warp whose inactive lanes hold a poison value in
  // the destination runs the same step: the poison must survive, and the
  // active lanes must agree with the real run.
  void Run() {
    for (int steps = 0; !warp_->done(); ++steps) {
      REQUIRE(steps < 100000);
      const Warp before = *warp_;
      const InstrRecord rec = warp_->Step();
      if (!IsDerivative(rec.op)) continue;
      ++derivative_steps_;
      if (rec.active != warp_->launch_mask()) ++partial_steps_;
      const uint32_t words =
          program_.code[rec.pc].width == 64 ? 2 * kWidth : kWidth;
      const bool aliased = rec.dst == rec.src[0];
      Warp poisoned = before;
      uint32_t* p = poisoned.Reg(rec.dst);
      for (uint32_t i = 0; i < words && !aliased; ++i) {
        if (((rec.active >> (i % kWidth)) & 1u) == 0) p[i] = kPoison;
      }
      poisoned.Step();
      for (uint32_t i = 0; i < words; ++i) {
        const uint32_t lane = i % kWidth;
        INFO("derivative at pc " << rec.pc << ", lane " << lane
                                 << ", active mask 0x" << std::hex
                                 << rec.active);
        if ((rec.active >> lane) & 1u) {
          CHECK(poisoned.Reg(rec.dst)[i] == warp_->Reg(rec.dst)[i]);
        } else {
          CHECK(warp_->Reg(rec.dst)[i] == before.Reg(rec.dst)[i]);
          if (!aliased) CHECK(poisoned.Reg(rec.dst)[i] == kPoison);
        }
      }
    }
  }

  // Component `c` (32-bit float) of the output at `location`.
  float Out(uint32_t lane, uint32_t location, uint32_t c = 0) {
    for (const InputSlot& slot : program_.outputs) {
      if (slot.location == location) {
        float v = 0;
        std::memcpy(&v, warp_->PrivateMemory(lane) + slot.offset + 4 * c, 4);
        return v;
      }
    }
    FAIL("no output at location " << location);
    return 0;
  }

  int derivative_steps() const { return derivative_steps_; }
  int partial_steps() const { return partial_steps_; }

 private:
  static constexpr uint32_t kPoison = 0xdeadbeefu;
  Program program_;
  ExecContext context_;
  std::unique_ptr<Warp> warp_;
  int derivative_steps_ = 0;
  int partial_steps_ = 0;
};

}  // namespace

TEST_CASE("fine and coarse derivatives on a known pattern",
          "[simt][derivative]") {
  const Program program =
      BuildGlsl(Frag("layout(location = 0) out vec4 o;\n"
                     "layout(location = 1) out vec2 w;",
                     "  o = vec4(dFdxFine(p), dFdyFine(p), dFdxCoarse(p), "
                     "dFdyCoarse(p));\n"
                     "  w = vec2(fwidthFine(p), fwidthCoarse(p));"),
                spirv::ShaderStage::kFragment);
  FragmentWarp fw(program);
  fw.Run();
  CHECK(fw.derivative_steps() == 6);
  for (uint32_t lane = 0; lane < kWidth; ++lane) {
    const Expected e = Reference(Pattern, lane);
    INFO("lane " << lane << " pixel (" << LanePixel(lane).x << ", "
                 << LanePixel(lane).y << ")");
    CHECK(fw.Out(lane, 0, 0) == e.dx_fine);
    CHECK(fw.Out(lane, 0, 1) == e.dy_fine);
    CHECK(fw.Out(lane, 0, 2) == e.dx_coarse);
    CHECK(fw.Out(lane, 0, 3) == e.dy_coarse);
    CHECK(fw.Out(lane, 1, 0) == e.fwidth_fine());
    CHECK(fw.Out(lane, 1, 1) == e.fwidth_coarse());
  }
  // Quad 5 covers pixels (2..3, 2..3). Its top-left lane 20 and bottom-right
  // lane 23, worked by hand from P = x^2 - 3y^2 + xy:
  //   P(2,2) = -4, P(3,2) = 3, P(2,3) = -17, P(3,3) = -9.
  CHECK(fw.Out(20, 0, 0) == 7.0f);    // P(3,2) - P(2,2)
  CHECK(fw.Out(20, 0, 1) == -13.0f);  // P(2,3) - P(2,2)
  CHECK(fw.Out(23, 0, 0) == 8.0f);    // fine: P(3,3) - P(2,3)
  CHECK(fw.Out(23, 0, 1) == -12.0f);  // fine: P(3,3) - P(3,2)
  CHECK(fw.Out(23, 0, 2) == 7.0f);    // coarse: lane 20's values
  CHECK(fw.Out(23, 0, 3) == -13.0f);
  CHECK(fw.Out(23, 1, 0) == 20.0f);  // |8| + |-12|
  CHECK(fw.Out(21, 1, 0) == 19.0f);  // |7| + |-12|
}

TEST_CASE("plain derivatives follow LowerOptions::derivatives_fine",
          "[simt][derivative]") {
  const std::string source =
      Frag("layout(location = 0) out vec4 o;",
           "  o = vec4(dFdx(p), dFdy(p), fwidth(p), 0.0);");
  for (const bool fine : {false, true}) {
    INFO((fine ? "fine" : "coarse"));
    FragmentWarp fw(BuildGlsl(source, spirv::ShaderStage::kFragment, fine));
    fw.Run();
    for (uint32_t lane = 0; lane < kWidth; ++lane) {
      INFO("lane " << lane);
      const Expected e = Reference(Pattern, lane);
      CHECK(fw.Out(lane, 0, 0) == (fine ? e.dx_fine : e.dx_coarse));
      CHECK(fw.Out(lane, 0, 1) == (fine ? e.dy_fine : e.dy_coarse));
      CHECK(fw.Out(lane, 0, 2) == (fine ? e.fwidth_fine() : e.fwidth_coarse()));
    }
  }
}

TEST_CASE("vector derivatives are one quad instruction per component",
          "[simt][derivative]") {
  const Program program =
      BuildGlsl(Frag("layout(location = 0) out vec4 o;\n"
                     "layout(location = 1) out vec3 w;",
                     "  vec3 v = vec3(x * y, p, -y * y * y);\n"
                     "  o = vec4(dFdyFine(v), 0.0);\n"
                     "  w = fwidthCoarse(v);"),
                spirv::ShaderStage::kFragment);
  int dy_fine = 0, fwidth_coarse = 0;
  for (const auto& in : program.code) {
    if (!IsDerivative(in.op)) continue;
    CHECK(in.pipe == simt::Pipe::kSync);  // quad shuffles, not FMA-pipe math
    CHECK(in.width == 32);
    dy_fine += in.op == spv::Op::OpDPdyFine;
    fwidth_coarse += in.op == spv::Op::OpFwidthCoarse;
  }
  CHECK(dy_fine == 3);
  CHECK(fwidth_coarse == 3);
  FragmentWarp fw(program);
  fw.Run();
  const Field fields[3] = {
      [](int x, int y) { return static_cast<double>(x) * y; }, Pattern,
      [](int, int y) { return -static_cast<double>(y) * y * y; }};
  for (uint32_t lane = 0; lane < kWidth; ++lane) {
    for (uint32_t c = 0; c < 3; ++c) {
      INFO("lane " << lane << " component " << c);
      const Expected e = Reference(fields[c], lane);
      CHECK(fw.Out(lane, 0, c) == e.dy_fine);
      CHECK(fw.Out(lane, 1, c) == e.fwidth_coarse());
    }
  }
}

TEST_CASE("derivatives in divergent control flow read all four quad lanes",
          "[simt][derivative]") {
  // About a third of the pixels skip the branch, so most quads run the
  // derivatives with some members inactive; those members' P (computed
  // before the branch) must still be read, and their registers and outputs
  // left untouched (outputs start at zero).
  const Program program =
      BuildGlsl(Frag("layout(location = 0) out vec4 o;\n"
                     "layout(location = 1) out vec2 w;",
                     "  if ((uint(x) + 2u * uint(y)) % 3u != 0u) {\n"
                     "    o = vec4(dFdxFine(p), dFdyFine(p), dFdxCoarse(p), "
                     "dFdyCoarse(p));\n"
                     "    w = vec2(fwidthFine(p), fwidthCoarse(p));\n"
                     "  }"),
                spirv::ShaderStage::kFragment);
  FragmentWarp fw(program);
  fw.Run();
  CHECK(fw.derivative_steps() == 6);
  CHECK(fw.partial_steps() == 6);
  for (uint32_t lane = 0; lane < kWidth; ++lane) {
    const Pixel px = LanePixel(lane);
    const bool in_branch = (px.x + 2 * px.y) % 3 != 0;
    const Expected e = Reference(Pattern, lane);
    INFO("lane " << lane << (in_branch ? " (in branch)" : " (skipped)"));
    CHECK(fw.Out(lane, 0, 0) == (in_branch ? e.dx_fine : 0.0));
    CHECK(fw.Out(lane, 0, 1) == (in_branch ? e.dy_fine : 0.0));
    CHECK(fw.Out(lane, 0, 2) == (in_branch ? e.dx_coarse : 0.0));
    CHECK(fw.Out(lane, 0, 3) == (in_branch ? e.dy_coarse : 0.0));
    CHECK(fw.Out(lane, 1, 0) == (in_branch ? e.fwidth_fine() : 0.0));
    CHECK(fw.Out(lane, 1, 1) == (in_branch ? e.fwidth_coarse() : 0.0));
  }
}

// KNOWN PROBLEM (regalloc.cpp, not the handler): liveness is per lane, but
// a derivative also reads the operand in lanes that took the other edge of
// the branch. Here the phi copies on the edge that skips the derivatives
// (r = -100, s = -200) are allowed to reuse P's register, so the skipped
// lanes' P is overwritten before their quad neighbours read it. Operands
// read across lanes (derivatives, QuadBroadcast/QuadSwap, implicit-LOD
// sampling) need to stay live in every lane from their definition to the
// reading instruction in structured order (regalloc.cpp, step 2b).
TEST_CASE("derivative operands survive phi copies on the skipping edge",
          "[simt][derivative]") {
  const Program program =
      BuildGlsl(Frag("layout(location = 0) out vec4 o;\n"
                     "layout(location = 1) out vec2 w;",
                     "  vec4 r = vec4(-100.0);\n"
                     "  vec2 s = vec2(-200.0);\n"
                     "  if ((uint(x) + 2u * uint(y)) % 3u != 0u) {\n"
                     "    r = vec4(dFdxFine(p), dFdyFine(p), dFdxCoarse(p), "
                     "dFdyCoarse(p));\n"
                     "    s = vec2(fwidthFine(p), fwidthCoarse(p));\n"
                     "  }\n"
                     "  o = r;\n"
                     "  w = s;"),
                spirv::ShaderStage::kFragment);
  FragmentWarp fw(program);
  fw.Run();
  int wrong = 0;
  for (uint32_t lane = 0; lane < kWidth; ++lane) {
    const Pixel px = LanePixel(lane);
    const bool in_branch = (px.x + 2 * px.y) % 3 != 0;
    const Expected e = Reference(Pattern, lane);
    wrong += fw.Out(lane, 0, 0) != (in_branch ? e.dx_fine : -100.0);
    wrong += fw.Out(lane, 0, 1) != (in_branch ? e.dy_fine : -100.0);
    wrong += fw.Out(lane, 0, 2) != (in_branch ? e.dx_coarse : -100.0);
    wrong += fw.Out(lane, 0, 3) != (in_branch ? e.dy_coarse : -100.0);
    wrong += fw.Out(lane, 1, 0) != (in_branch ? e.fwidth_fine() : -200.0);
    wrong += fw.Out(lane, 1, 1) != (in_branch ? e.fwidth_coarse() : -200.0);
  }
  INFO(simt::DisassembleProgram(program));
  CHECK(wrong == 0);
}

TEST_CASE("helper lanes take part, lanes never launched read as zero",
          "[simt][derivative]") {
  const Program program =
      BuildGlsl(Frag("layout(location = 0) out vec4 o;",
                     "  o = vec4(dFdxFine(p), dFdyFine(p), dFdxCoarse(p), "
                     "dFdyCoarse(p));"),
                spirv::ShaderStage::kFragment);
  // Lanes 3 and 9 do not exist (their registers stay zero); lanes 0 and 5
  // are helpers: they run and supply P like any other lane.
  const uint32_t missing = (1u << 3) | (1u << 9);
  const uint32_t helpers = (1u << 0) | (1u << 5);
  FragmentWarp fw(program, ~missing, helpers);
  fw.Run();
  const Field p = [&](int x, int y) {
    for (uint32_t l : {3u, 9u}) {
      if (LanePixel(l).x == x && LanePixel(l).y == y) return 0.0;
    }
    return Pattern(x, y);
  };
  for (uint32_t lane = 0; lane < kWidth; ++lane) {
    if ((missing >> lane) & 1u) continue;
    INFO("lane " << lane);
    const Expected e = Reference(p, lane);
    CHECK(fw.Out(lane, 0, 0) == e.dx_fine);
    CHECK(fw.Out(lane, 0, 1) == e.dy_fine);
    CHECK(fw.Out(lane, 0, 2) == e.dx_coarse);
    CHECK(fw.Out(lane, 0, 3) == e.dy_coarse);
  }
  // Lane 2 (pixel (0,1)) differences against the missing lane 3.
  CHECK(fw.Out(2, 0, 0) == -Pattern(0, 1));
}

namespace {

// What a 32-bit derivative `op` gives `lane`, from the operand register's
// values `p` in its quad (the formulas of REFERENCE §8.4 on lanes).
float QuadDerivative(spv::Op op, const uint32_t* p, uint32_t lane) {
  float v[4];
  for (uint32_t k = 0; k < 4; ++k) std::memcpy(&v[k], &p[(lane & ~3u) + k], 4);
  const uint32_t k = lane & 3u;
  const float dx_fine = (k < 2) ? v[1] - v[0] : v[3] - v[2];
  const float dy_fine = (k & 1u) ? v[3] - v[1] : v[2] - v[0];
  const float dx_coarse = v[1] - v[0], dy_coarse = v[2] - v[0];
  switch (op) {
    case spv::Op::OpDPdxFine:
      return dx_fine;
    case spv::Op::OpDPdyFine:
      return dy_fine;
    case spv::Op::OpDPdxCoarse:
      return dx_coarse;
    case spv::Op::OpDPdyCoarse:
      return dy_coarse;
    case spv::Op::OpFwidthFine:
      return std::fabs(dx_fine) + std::fabs(dy_fine);
    default:
      return std::fabs(dx_coarse) + std::fabs(dy_coarse);
  }
}

}  // namespace

TEST_CASE("a derivative may write the register it reads",
          "[simt][derivative]") {
  // Register allocation may give the result the operand's register; force
  // that on every derivative and check each one against the operand's
  // values just before it ran.
  Program program = BuildGlsl(
      Frag("layout(location = 0) out vec4 o;\n"
           "layout(location = 1) out vec2 w;",
           "  float a = p + 1.0, b = p + 2.0, c = p + 3.0, d = p + 4.0;\n"
           "  float e = p + 5.0, f = p + 6.0;\n"
           "  o = vec4(dFdxFine(a), dFdyFine(b), dFdxCoarse(c), "
           "dFdyCoarse(d));\n"
           "  w = vec2(fwidthFine(e), fwidthCoarse(f));"),
      spirv::ShaderStage::kFragment);
  int aliased = 0;
  for (auto& in : program.code) {
    if (IsDerivative(in.op)) {
      in.dst = in.src[0];
      ++aliased;
    }
  }
  REQUIRE(aliased == 6);
  // Lanes 1 and 14 are inactive from the start: they never overwrite
  // their operand registers, so the others read their original P.
  const uint32_t launch = ~((1u << 1) | (1u << 14));
  FragmentWarp fw(program, launch);
  Warp& warp = fw.warp();
  int checked = 0;
  for (int steps = 0; !warp.done(); ++steps) {
    REQUIRE(steps < 100000);
    Warp trial = warp;
    const InstrRecord rec = trial.Step();
    if (IsDerivative(rec.op)) {
      ++checked;
      const uint32_t* before = warp.Reg(rec.src[0]);
      const uint32_t* after = trial.Reg(rec.dst);
      for (uint32_t lane = 0; lane < kWidth; ++lane) {
        const float want = QuadDerivative(rec.op, before, lane);
        float got = 0;
        std::memcpy(&got, &after[lane], 4);
        INFO("pc " << rec.pc << " lane " << lane);
        if ((launch >> lane) & 1u) {
          CHECK(got == want);
        } else {
          CHECK(after[lane] == before[lane]);
        }
      }
    }
    warp.Step();
  }
  CHECK(checked == 6);
}

namespace {

// A fragment shader in assembly with 16-bit and 64-bit derivatives:
//   s = x * 1000 + y * 0.1 (f32), h = half(s), d = double(s)
//   out0 = (DPdxFine h, DPdyFine h, FwidthCoarse h, DPdy d)
//   out1 = FwidthFine (h, -h)   (a 16-bit vector)
constexpr const char* kWideAndNarrowAsm = R"(
               OpCapability Shader
               OpCapability Float16
               OpCapability Float64
               OpCapability DerivativeControl
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %coord %out0 %out1
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %coord BuiltIn FragCoord
               OpDecorate %out0 Location 0
               OpDecorate %out1 Location 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
        %f32 = OpTypeFloat 32
        %f16 = OpTypeFloat 16
        %f64 = OpTypeFloat 64
      %v2f32 = OpTypeVector %f32 2
      %v4f32 = OpTypeVector %f32 4
      %v2f16 = OpTypeVector %f16 2
     %ptr_in = OpTypePointer Input %v4f32
    %ptr_o4 = OpTypePointer Output %v4f32
    %ptr_o2 = OpTypePointer Output %v2f32
      %coord = OpVariable %ptr_in Input
       %out0 = OpVariable %ptr_o4 Output
       %out1 = OpVariable %ptr_o2 Output
       %half = OpConstant %f32 0.5
      %k1000 = OpConstant %f32 1000
       %k0_1 = OpConstant %f32 0.1
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %c = OpLoad %v4f32 %coord
         %cx = OpCompositeExtract %f32 %c 0
         %cy = OpCompositeExtract %f32 %c 1
          %x = OpFSub %f32 %cx %half
          %y = OpFSub %f32 %cy %half
         %ax = OpFMul %f32 %x %k1000
         %by = OpFMul %f32 %y %k0_1
          %s = OpFAdd %f32 %ax %by
          %h = OpFConvert %f16 %s
          %d = OpFConvert %f64 %s
        %dxf = OpDPdxFine %f16 %h
        %dyf = OpDPdyFine %f16 %h
        %fwc = OpFwidthCoarse %f16 %h
        %ddy = OpDPdy %f64 %d
         %r0 = OpFConvert %f32 %dxf
         %r1 = OpFConvert %f32 %dyf
         %r2 = OpFConvert %f32 %fwc
         %r3 = OpFConvert %f32 %ddy
         %o0 = OpCompositeConstruct %v4f32 %r0 %r1 %r2 %r3
               OpStore %out0 %o0
         %nh = OpFNegate %f16 %h
         %hv = OpCompositeConstruct %v2f16 %h %nh
         %fv = OpFwidthFine %v2f16 %hv
         %o1 = OpFConvert %v2f32 %fv
               OpStore %out1 %o1
               OpReturn
               OpFunctionEnd
)";

// Half arithmetic the spec requires: each operation correctly rounded.
double HalfOf(double v) { return HalfToFloat(DoubleToHalf(v)); }

}  // namespace

TEST_CASE("16-bit and 64-bit derivatives, scalar and vector",
          "[simt][derivative]") {
  for (const bool fine : {false, true}) {
    INFO("plain derivatives " << (fine ? "fine" : "coarse"));
    auto program = LowerAsm(kWideAndNarrowAsm, fine);
    if (!program.ok()) FAIL(program.error().ToString());
    int narrow = 0, wide = 0;
    for (const auto& in : program->code) {
      if (!IsDerivative(in.op)) continue;
      CHECK(in.pipe == simt::Pipe::kSync);
      narrow += in.width == 16;
      wide += in.width == 64;
    }
    CHECK(narrow == 5);  // 3 scalars + a 2-component vector
    CHECK(wide == 1);
    FragmentWarp fw(*program);
    fw.Run();
    // The f32 value each pixel computes, then its half and double.
    const auto s = [](int x, int y) {
      return static_cast<float>(x) * 1000.0f + static_cast<float>(y) * 0.1f;
    };
    const Field h = [&](int x, int y) {
      return static_cast<double>(HalfToFloat(FloatToHalf(s(x, y))));
    };
    const Field d = [&](int x, int y) { return static_cast<double>(s(x, y)); };
    for (uint32_t lane = 0; lane < kWidth; ++lane) {
      INFO("lane " << lane);
      const Expected eh = Reference(h, lane);
      const Expected ed = Reference(d, lane);
      CHECK(fw.Out(lane, 0, 0) == HalfOf(eh.dx_fine));
      CHECK(fw.Out(lane, 0, 1) == HalfOf(eh.dy_fine));
      CHECK(fw.Out(lane, 0, 2) == HalfOf(std::fabs(HalfOf(eh.dx_coarse)) +
                                         std::fabs(HalfOf(eh.dy_coarse))));
      CHECK(fw.Out(lane, 0, 3) ==
            static_cast<float>(fine ? ed.dy_fine : ed.dy_coarse));
      const double fw_fine =
          HalfOf(std::fabs(HalfOf(eh.dx_fine)) + std::fabs(HalfOf(eh.dy_fine)));
      CHECK(fw.Out(lane, 1, 0) == fw_fine);
      CHECK(fw.Out(lane, 1, 1) == fw_fine);  // of -h: the same
    }
    // Worked by hand for quad 0: half(0.1) = 0.0999755859375 and
    // half(1000.1) = 1000, so the bottom row's 999.900024... rounds to 1000
    // in half precision.
    CHECK(fw.Out(0, 0, 0) == 1000.0f);
    CHECK(fw.Out(2, 0, 0) == 1000.0f);
    CHECK(fw.Out(0, 0, 1) == 0.0999755859375f);
    CHECK(fw.Out(1, 0, 1) == 0.0f);
  }
}

namespace {

// A compute script with SPV_NV_compute_shader_derivatives: `layout` names
// the derivative group mode and workgroup size; each invocation writes
// dFdxFine, dFdyFine, dFdxCoarse, dFdyCoarse of P and plain fwidth(P).
std::string ComputeScript(const std::string& layout, const std::string& p,
                          uint32_t n, const std::string& expect) {
  const std::string ns = std::to_string(n);
  return "#!amber\nSHADER compute cs GLSL\n#version 450\n"
         "#extension GL_NV_compute_shader_derivatives : require\n" +
         layout +
         "\nlayout(set = 0, binding = 0) buffer B { float v[]; } b;\n"
         "layout(set = 0, binding = 1) buffer W { float v[]; } w;\n"
         "void main() {\n"
         "  uint i = gl_LocalInvocationIndex;\n"
         "  uvec3 id = gl_LocalInvocationID;\n"
         "  float p = " +
         p +
         ";\n"
         "  b.v[4u * i] = dFdxFine(p);\n"
         "  b.v[4u * i + 1u] = dFdyFine(p);\n"
         "  b.v[4u * i + 2u] = dFdxCoarse(p);\n"
         "  b.v[4u * i + 3u] = dFdyCoarse(p);\n"
         "  w.v[i] = fwidth(p);\n"
         "}\nEND\n"
         "BUFFER buf DATA_TYPE float SIZE " +
         std::to_string(4 * n) +
         " FILL 0\n"
         "BUFFER wbuf DATA_TYPE float SIZE " +
         ns +
         " FILL 0\n"
         "PIPELINE compute pl\n  ATTACH cs\n"
         "  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0\n"
         "  BIND BUFFER wbuf AS storage DESCRIPTOR_SET 0 BINDING 1\nEND\n"
         "RUN pl 1 1 1\n" +
         expect;
}

// EXPECT lines for per-invocation (dxF, dyF, dxC, dyC) and fwidth values.
std::string Expects(const std::vector<Expected>& e) {
  std::ostringstream b, w;
  b << "EXPECT buf IDX 0 EQ";
  w << "EXPECT wbuf IDX 0 EQ";
  for (const Expected& x : e) {
    b << ' ' << x.dx_fine << ' ' << x.dy_fine << ' ' << x.dx_coarse << ' '
      << x.dy_coarse;
    // Plain fwidth follows the default preset's derivatives (h200: fine).
    w << ' '
      << (warpsim::runner::RunOptions{}.derivatives_fine ? x.fwidth_fine()
                                                         : x.fwidth_coarse());
  }
  return b.str() + "\n" + w.str() + "\n";
}

}  // namespace

TEST_CASE("compute shaders: DerivativeGroupLinearNV quads are lanes 4m..4m+3",
          "[simt][derivative]") {
  // P = i^2 over local invocation index i; quad m holds i = 4m + {0,1,2,3}
  // in the layout 0 1 / 2 3.
  constexpr uint32_t kN = 64;
  std::vector<Expected> e;
  for (uint32_t i = 0; i < kN; ++i) {
    const double m = i / 4, k = i % 4;
    const double dx_top = 8 * m + 1, dx_bottom = 8 * m + 5;
    const double dy_left = 16 * m + 4, dy_right = 16 * m + 8;
    e.push_back({k < 2 ? dx_top : dx_bottom,
                 static_cast<uint32_t>(k) % 2 ? dy_right : dy_left, dx_top,
                 dy_left});
  }
  const std::string amber = ComputeScript(
      "layout(local_size_x = 64) in;\nlayout(derivative_group_linearNV) in;",
      "float(i * i)", kN, Expects(e));
  for (uint32_t width : {32u, 16u, 8u}) {
    const auto report = RunAmberText(amber, width);
    INFO("warp width " << width << ": " << Describe(report));
    CHECK(report.status == RunStatus::kPass);
  }
}

TEST_CASE("compute shaders: DerivativeGroupQuadsNV in 2-wide workgroups",
          "[simt][derivative]") {
  // With local_size_x = 2 the 2x2 blocks of LocalInvocationId.xy are the
  // lane quads; P = 5x^2 + y^2 + 3xy.
  const Field p = [](int x, int y) {
    return 5.0 * x * x + static_cast<double>(y) * y + 3.0 * x * y;
  };
  std::vector<Expected> e;
  for (int y = 0; y < 8; ++y) {
    for (int x = 0; x < 2; ++x) {
      const int y0 = y & ~1;
      e.push_back({p(1, y) - p(0, y), p(x, y0 + 1) - p(x, y0),
                   p(1, y0) - p(0, y0), p(0, y0 + 1) - p(0, y0)});
    }
  }
  const std::string amber = ComputeScript(
      "layout(local_size_x = 2, local_size_y = 8) in;\n"
      "layout(derivative_group_quadsNV) in;",
      "float(5u * id.x * id.x + id.y * id.y + 3u * id.x * id.y)", 16,
      Expects(e));
  const auto report = RunAmberText(amber);
  INFO(Describe(report));
  CHECK(report.status == RunStatus::kPass);
}

TEST_CASE("derivatives where quads are not lane quads are refused",
          "[simt][derivative]") {
  struct Case {
    std::string model_and_modes;
    warpsim::ErrorKind kind;
    std::string message;
  };
  const Case cases[] = {
      {"OpEntryPoint Vertex %main \"main\"\n",
       warpsim::ErrorKind::kInvalidInput,
       "OpDPdx needs the Fragment or GLCompute execution model"},
      {"OpEntryPoint GLCompute %main \"main\"\n"
       "OpExecutionMode %main LocalSize 4 2 1\n"
       "OpExecutionMode %main DerivativeGroupQuadsNV\n",
       warpsim::ErrorKind::kUnsupported,
       "OpDPdx with DerivativeGroupQuadsNV and local_size_x != 2"},
  };
  for (const Case& c : cases) {
    const std::string text =
        "OpCapability Shader\n"
        "OpCapability ComputeDerivativeGroupQuadsNV\n"
        "OpExtension \"SPV_NV_compute_shader_derivatives\"\n"
        "OpMemoryModel Logical GLSL450\n" +
        c.model_and_modes +
        "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n"
        "%f32 = OpTypeFloat 32\n%one = OpConstant %f32 1\n"
        "%main = OpFunction %void None %fn\n%entry = OpLabel\n"
        "%d = OpDPdx %f32 %one\nOpReturn\nOpFunctionEnd\n";
    const auto program = LowerAsm(text);
    INFO(c.model_and_modes);
    REQUIRE_FALSE(program.ok());
    INFO(program.error().ToString());
    CHECK(program.error().kind == c.kind);
    CHECK(program.error().message.find(c.message) != std::string::npos);
  }
}

// ---------------------------------------------------------------------------
// Derivatives after discard (REFERENCE §8.5). Some pixels of the tile
// discard: quads with one or two discarded members, intact quads, and one
// quad (x >= 6, y >= 2) discarded whole. P is computed before the discard,
// A = 2xy^2 - 5x + y only after it.

namespace {

bool Discards(int x, int y) {
  return (x + 2 * y) % 5 == 0 || (x >= 6 && y >= 2);
}

double After(int x, int y) {
  return 2.0 * x * y * y - 5.0 * x + static_cast<double>(y);
}

// The lanes whose pixel discards.
uint32_t DiscardedLanes() {
  uint32_t mask = 0;
  for (uint32_t lane = 0; lane < kWidth; ++lane) {
    const Pixel px = LanePixel(lane);
    if (Discards(px.x, px.y)) mask |= 1u << lane;
  }
  return mask;
}

// `statement` discards the pixel (`discard;` or `demote;`).
std::string DiscardFrag(const std::string& statement) {
  return Frag(
      "#extension GL_EXT_demote_to_helper_invocation : enable\n"
      "layout(location = 0) out vec4 o;\n"
      "layout(location = 1) out vec4 w;",
      "  int ix = int(x), iy = int(y);\n"
      "  if ((ix + 2 * iy) % 5 == 0 || (ix >= 6 && iy >= 2)) " +
          statement +
          "\n"
          "  float a = 2.0 * x * y * y - 5.0 * x + y;\n"
          "  o = vec4(dFdxFine(a), dFdyFine(a), dFdxCoarse(a), "
          "dFdyCoarse(a));\n"
          "  w = vec4(dFdxFine(p), dFdyFine(p), dFdxCoarse(p), "
          "dFdyCoarse(p));");
}

bool HasOp(const Program& program, spv::Op op) {
  return std::any_of(program.code.begin(), program.code.end(),
                     [&](const simt::Instr& in) { return in.op == op; });
}

void CheckDerivatives(FragmentWarp& fw, uint32_t lane, uint32_t location,
                      const Field& field) {
  const Expected e = Reference(field, lane);
  CHECK(fw.Out(lane, location, 0) == e.dx_fine);
  CHECK(fw.Out(lane, location, 1) == e.dy_fine);
  CHECK(fw.Out(lane, location, 2) == e.dx_coarse);
  CHECK(fw.Out(lane, location, 3) == e.dy_coarse);
}

}  // namespace

TEST_CASE("demoted lanes keep running and supply fresh values to derivatives",
          "[simt][derivative]") {
  // OpKill under the demote policy, and OpDemoteToHelperInvocation under
  // either policy: the demoted lanes run on as helpers, compute A, and
  // take part in every derivative, so every remaining lane gets the spec's
  // derivatives of A as if nothing had been discarded.
  struct Case {
    const char* statement;
    bool kill_terminates;
    spv::Op op;
  };
  const Case cases[] = {
      {"discard;", false, spv::Op::OpKill},
      {"demote;", false, spv::Op::OpDemoteToHelperInvocation},
      {"demote;", true, spv::Op::OpDemoteToHelperInvocation},
  };
  const uint32_t discarded = DiscardedLanes();
  for (const Case& c : cases) {
    INFO(c.statement << (c.kill_terminates ? " (kill terminates)"
                                           : " (kill demotes)"));
    const Program program =
        BuildGlsl(DiscardFrag(c.statement), spirv::ShaderStage::kFragment,
                  false, c.kill_terminates);
    REQUIRE(HasOp(program, c.op));
    FragmentWarp fw(program);
    fw.Run();
    CHECK(fw.derivative_steps() == 8);
    CHECK(fw.partial_steps() == 0);  // the demoted lanes are active too
    CHECK(fw.warp().demoted() == discarded);
    CHECK(fw.warp().discarded() == 0u);
    for (uint32_t lane = 0; lane < kWidth; ++lane) {
      if ((discarded >> lane) & 1u) continue;  // their outputs are dropped
      INFO("lane " << lane << " pixel (" << LanePixel(lane).x << ", "
                   << LanePixel(lane).y << ")");
      CheckDerivatives(fw, lane, 0, After);
      CheckDerivatives(fw, lane, 1, Pattern);
    }
  }
}

TEST_CASE("terminated lanes leave their registers as they were",
          "[simt][derivative]") {
  // OpKill under the terminate policy ends the discarded lanes. Vulkan
  // leaves derivatives undefined once part of a quad has terminated (the
  // control flow is no longer uniform, REFERENCE §8.4/§8.5); warpsim, like
  // hardware, reads the terminated lane's registers as it left them. So P,
  // computed before the discard, still differentiates exactly everywhere,
  // and A does in intact quads; elsewhere each derivative is the quad
  // formula over the registers as they stand, which a terminated lane
  // never writes again.
  const Program program = BuildGlsl(DiscardFrag("discard;"),
                                    spirv::ShaderStage::kFragment, false, true);
  REQUIRE(HasOp(program, spv::Op::OpKill));
  const uint32_t discarded = DiscardedLanes();
  FragmentWarp fw(program);
  Warp& warp = fw.warp();
  std::unique_ptr<Warp> at_kill;
  int derivatives = 0;
  for (int steps = 0; !warp.done(); ++steps) {
    REQUIRE(steps < 100000);
    const Warp before = warp;
    const InstrRecord rec = warp.Step();
    if (rec.op == spv::Op::OpKill) {
      CHECK(rec.active == discarded);
      at_kill = std::make_unique<Warp>(warp);
    }
    if (!IsDerivative(rec.op)) continue;
    ++derivatives;
    CHECK(rec.active == (~discarded & warp.launch_mask()));
    for (uint32_t lane = 0; lane < kWidth; ++lane) {
      if (((rec.active >> lane) & 1u) == 0) continue;
      INFO("pc " << rec.pc << " lane " << lane);
      float got = 0;
      std::memcpy(&got, &warp.Reg(rec.dst)[lane], 4);
      CHECK(got == QuadDerivative(rec.op, before.Reg(rec.src[0]), lane));
    }
  }
  CHECK(derivatives == 8);
  REQUIRE(at_kill != nullptr);
  CHECK(warp.discarded() == discarded);
  CHECK(warp.demoted() == 0u);
  const uint32_t words = program.num_regs;
  for (uint32_t lane = 0; lane < kWidth; ++lane) {
    if (((discarded >> lane) & 1u) == 0) continue;
    for (uint32_t r = 0; r < words; ++r) {
      INFO("lane " << lane << " register " << r);
      CHECK(warp.Reg(r)[lane] == at_kill->Reg(r)[lane]);
    }
  }
  for (uint32_t lane = 0; lane < kWidth; ++lane) {
    if ((discarded >> lane) & 1u) continue;
    INFO("lane " << lane << " pixel (" << LanePixel(lane).x << ", "
                 << LanePixel(lane).y << ")");
    CheckDerivatives(fw, lane, 1, Pattern);
    if (((discarded >> (lane & ~3u)) & 0xfu) == 0) {
      CheckDerivatives(fw, lane, 0, After);
    }
  }
}
