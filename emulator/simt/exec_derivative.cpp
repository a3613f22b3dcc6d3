// Derivative instructions: OpDPdx, OpDPdy, OpFwidth and their Fine / Coarse
// variants (Vulkan "Derivative Operations", REFERENCE.md §8.4).
//
// Quads
// -----
// A derivative is a difference between members of a 2x2 quad. Quads are four
// consecutive lanes, laid out as the Vulkan spec numbers them:
//
//   lane = 4*q + (x & 1) + 2*(y & 1)        quad q:  P0 P1     x ->
//                                                    P2 P3     y down
//
//   Fine:    dPdx(P0) = dPdx(P1) = P1 - P0    dPdy(P0) = dPdy(P2) = P2 - P0
//            dPdx(P2) = dPdx(P3) = P3 - P2    dPdy(P1) = dPdy(P3) = P3 - P1
//   Coarse:  every lane takes the fine values of P0:
//            dPdx = P1 - P0,  dPdy = P2 - P0
//   Fwidth:  |dPdx| + |dPdy| of the same flavour.
//
// Plain OpDPdx / OpDPdy / OpFwidth are fine or coarse by
// LowerOptions::derivatives_fine, chosen once at lowering time so the
// choice is consistent between the three, as the spec requires.
//
// In a fragment shader the pipeline packs each 2x2 pixel quad into a quad of
// lanes. In a compute shader (SPV_NV/KHR_compute_shader_derivatives) the
// same lane groups 4q..4q+3 are used: with DerivativeGroupLinearNV they are
// local invocation indices 4m+{0,1,2,3}, exactly the spec's grouping, since
// compute warps take invocations in LocalInvocationIndex order. With
// DerivativeGroupQuadsNV the spec's quads are 2x2 blocks of
// LocalInvocationId.xy; those coincide with lane quads only when
// local_size_x == 2, and any other size is reported as unsupported (it needs
// the dispatcher to pack invocations into warps by 2x2 blocks).
//
// Who takes part
// --------------
// A derivative reads the operand register of all four quad members whatever
// the active mask: helper lanes, and lanes that diverged away, still supply
// their (possibly stale) value, as on hardware. Only active lanes are
// written. Lanes that were never launched read their zero-initialised
// registers; a quad member beyond the warp width (a width that is not a
// multiple of 4) reads as quad lane 0's value, so differences with it are 0.
//
// Precision: derivatives are correctly rounded (spirvenv precision table).
// 16-bit differences are computed exactly in double and rounded once to
// half; Fwidth rounds each derivative first, then their sum.
//
// Like every cross-lane handler, the results are gathered into a local
// buffer before the destination is written: register allocation may give
// the destination the same register as the operand.
#include <bit>
#include <cmath>
#include <string>
#include <type_traits>

#include "simt/exec_common.h"
#include "spirv/grammar.h"

namespace warpsim::simt {

bool LowerDerivative(Lowerer& l, const spirv::Inst& inst);

namespace {

// What one derivative instruction computes.
enum class Deriv : uint8_t { kDx, kDy, kFwidth };

// Correctly rounded difference, sum and absolute value per storage type.
template <typename T>
T Sub(T a, T b) {
  if constexpr (std::is_same_v<T, Half>) {
    // Exact in double (11-bit significands, exponents within 2^-24..2^15),
    // then one rounding.
    return Half{DoubleToHalf(static_cast<double>(HalfToFloat(a.bits)) -
                             static_cast<double>(HalfToFloat(b.bits)))};
  } else {
    return a - b;
  }
}

template <typename T>
T Add(T a, T b) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{DoubleToHalf(static_cast<double>(HalfToFloat(a.bits)) +
                             static_cast<double>(HalfToFloat(b.bits)))};
  } else {
    return a + b;
  }
}

template <typename T>
T Abs(T a) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{static_cast<uint16_t>(a.bits & 0x7fffu)};
  } else {
    return std::fabs(a);
  }
}

// src[0] = P. One handler per (type, result, flavour).
template <typename T, Deriv kWhat, bool kFine>
void ExecDerivative(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const uint32_t* p = w.Reg(in.src[0]);
  T out[kMaxWarpWidth];
  for (uint32_t q = 0; q < W; q += 4) {
    const uint32_t quad_active = (act >> q) & 0xfu;
    if (quad_active == 0) continue;
    // All four members, active or not.
    T v[4];
    for (uint32_t k = 0; k < 4; ++k) {
      v[k] = LoadLane<T>(p, W, q + k < W ? q + k : q);
    }
    const T dx_top = Sub(v[1], v[0]);
    const T dy_left = Sub(v[2], v[0]);
    // Coarse: the bottom row and right column reuse P0's values.
    const T dx_bottom = kFine ? Sub(v[3], v[2]) : dx_top;
    const T dy_right = kFine ? Sub(v[3], v[1]) : dy_left;
    for (uint32_t k = 0; k < 4; ++k) {
      if (((quad_active >> k) & 1u) == 0) continue;
      const T dx = (k & 2u) ? dx_bottom : dx_top;
      const T dy = (k & 1u) ? dy_right : dy_left;
      if constexpr (kWhat == Deriv::kDx) {
        out[q + k] = dx;
      } else if constexpr (kWhat == Deriv::kDy) {
        out[q + k] = dy;
      } else {
        out[q + k] = Add(Abs(dx), Abs(dy));
      }
    }
  }
  uint32_t* d = w.Dst(in.dst);
  for (uint32_t m = act; m != 0; m &= m - 1) {
    const uint32_t lane = std::countr_zero(m);
    StoreLane<T>(d, W, lane, out[lane]);
  }
}

template <Deriv kWhat, bool kFine>
HandlerSet DerivativeSet() {
  return HandlerSet{.f16 = &ExecDerivative<Half, kWhat, kFine>,
                    .f32 = &ExecDerivative<float, kWhat, kFine>,
                    .f64 = &ExecDerivative<double, kWhat, kFine>};
}

// Plain OpDPdx/OpDPdy/OpFwidth: the flavour LowerOptions chose.
template <Deriv kWhat>
HandlerSet PlainSet(bool fine) {
  return fine ? DerivativeSet<kWhat, true>() : DerivativeSet<kWhat, false>();
}

std::string OpName(const spirv::Inst& inst) {
  return std::string(spirv::OpcodeName(static_cast<uint32_t>(inst.opcode)));
}

// Whether the entry point's execution model defines quads for derivatives
// (reports the error and returns false otherwise).
bool CheckDerivativeGroup(Lowerer& l, const spirv::Inst& inst) {
  const Program& prog = l.program();
  if (prog.model == spv::ExecutionModel::Fragment) return true;
  if (prog.model != spv::ExecutionModel::GLCompute) {
    l.Fail(l.InvalidAt(inst, OpName(inst) +
                                 " needs the Fragment or GLCompute execution "
                                 "model (derivative groups are quads)"));
    return false;
  }
  const spirv::EntryPoint* ep =
      l.module().FindEntryPoint(prog.entry_name, prog.model);
  if (ep == nullptr) return true;  // Run() already checked
  for (const auto& mode : ep->modes) {
    // DerivativeGroupQuadsNV == DerivativeGroupQuadsKHR (same value).
    if (mode.mode == spv::ExecutionMode::DerivativeGroupQuadsNV &&
        prog.local_size[0] != 2) {
      l.Fail(l.UnsupportedAt(
          inst, OpName(inst) +
                    " with DerivativeGroupQuadsNV and local_size_x != 2 "
                    "(compute warps take invocations in LocalInvocationIndex "
                    "order; only DerivativeGroupLinearNV quads, or 2-wide "
                    "workgroups, match lane quads)"));
      return false;
    }
  }
  return true;
}

}  // namespace

bool LowerDerivative(Lowerer& l, const spirv::Inst& inst) {
  using spv::Op;
  const bool plain_fine = l.options().derivatives_fine;
  HandlerSet set;
  switch (inst.opcode) {
    case Op::OpDPdx:
      set = PlainSet<Deriv::kDx>(plain_fine);
      break;
    case Op::OpDPdy:
      set = PlainSet<Deriv::kDy>(plain_fine);
      break;
    case Op::OpFwidth:
      set = PlainSet<Deriv::kFwidth>(plain_fine);
      break;
    case Op::OpDPdxFine:
      set = DerivativeSet<Deriv::kDx, true>();
      break;
    case Op::OpDPdyFine:
      set = DerivativeSet<Deriv::kDy, true>();
      break;
    case Op::OpFwidthFine:
      set = DerivativeSet<Deriv::kFwidth, true>();
      break;
    case Op::OpDPdxCoarse:
      set = DerivativeSet<Deriv::kDx, false>();
      break;
    case Op::OpDPdyCoarse:
      set = DerivativeSet<Deriv::kDy, false>();
      break;
    case Op::OpFwidthCoarse:
      set = DerivativeSet<Deriv::kFwidth, false>();
      break;
    default:
      return false;
  }
  if (inst.operands.empty()) {
    l.Fail(l.InvalidAt(inst, OpName(inst) + " needs a P operand"));
    return true;
  }
  if (!CheckDerivativeGroup(l, inst)) return true;
  const ScalarType t = ScalarOf(l, inst.result_type);
  if (!t.is_float()) {
    l.Fail(l.InvalidAt(inst, OpName(inst) +
                                 " needs a floating-point scalar or vector "
                                 "result type"));
    return true;
  }
  const ExecFn fn = set.Pick(t);
  if (fn == nullptr) {
    l.Fail(l.UnsupportedAt(
        inst, OpName(inst) + " on " + std::to_string(t.width) + "-bit floats"));
    return true;
  }
  // One scalar instruction per component.
  EmitComponentwise(l, inst, fn, {inst.operands[0]});
  if (l.failed()) return true;
  const size_t n = l.Flat(inst.result_type).size();
  auto& code = l.program().code;
  for (size_t i = code.size() - n; i < code.size(); ++i) {
    // (The sync pipe comes from opcode_info's table.)
    code[i].kind = t.kind;
    code[i].width = t.width;
  }
  return true;
}

}  // namespace warpsim::simt
