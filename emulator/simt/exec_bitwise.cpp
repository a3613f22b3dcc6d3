// Bitwise instructions: shifts (shift counts at or above the width give 0,
// or the sign for arithmetic shifts, instead of host undefined behaviour),
// and/or/xor/not, bit-field insert/extract, bit reverse and bit count.
#include <bit>
#include <string>
#include <type_traits>

#include "simt/exec_common.h"
#include "simt/scalar_ops.h"

namespace warpsim::simt {
namespace {

// Shifts and and/or/xor/not come from scalar_ops.h (shared with constant
// folding). Shifts take the shift count as a 32-bit register (the lowering
// converts other widths first).
using scalar::And;
using scalar::kBits;
using scalar::Not;
using scalar::Or;
using scalar::Sar;
using scalar::Shl;
using scalar::Shr;
using scalar::Xor;

template <typename T>
T BitReverse(T a) {
  T r = 0;
  for (uint32_t i = 0; i < kBits<T>; ++i) {
    if ((a >> i) & 1u) r |= static_cast<T>(T(1) << (kBits<T> - 1 - i));
  }
  return r;
}
template <typename T>
T BitCount(T a) {
  return static_cast<T>(std::popcount(a));
}
template <typename T>
T Mask(uint32_t count) {
  return count >= kBits<T> ? static_cast<T>(~T(0))
                           : static_cast<T>((T(1) << count) - 1);
}
template <typename T>
T UExtract(T base, uint32_t offset, uint32_t count) {
  if (count == 0 || offset >= kBits<T>) return 0;
  return static_cast<T>((base >> offset) & Mask<T>(count));
}
template <typename T>
T SExtract(T base, uint32_t offset, uint32_t count) {
  if (count == 0 || offset >= kBits<T>) return 0;
  T v = UExtract(base, offset, count);
  if (count < kBits<T> && ((v >> (count - 1)) & 1u))
    v |= static_cast<T>(~Mask<T>(count));
  return v;
}

// OpBitFieldInsert: src = base, insert, offset, count.
template <typename T>
void ExecBitFieldInsert(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t* base = w.Reg(in.src[0]);
  const uint32_t* ins = w.Reg(in.src[1]);
  const uint32_t* off = w.Reg(in.src[2]);
  const uint32_t* cnt = w.Reg(in.src[3]);
  uint32_t* d = w.Dst(in.dst);
  for (uint32_t m = w.active(); m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    const uint32_t o = off[l], c = cnt[l];
    T b = LoadLane<T>(base, W, l);
    if (c != 0 && o < kBits<T>) {
      const T mask = static_cast<T>(Mask<T>(c) << o);
      b = static_cast<T>((b & ~mask) | ((LoadLane<T>(ins, W, l) << o) & mask));
    }
    StoreLane<T>(d, W, l, b);
  }
}

template <typename T, T (*F)(T, uint32_t, uint32_t)>
void ExecExtract(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t* base = w.Reg(in.src[0]);
  const uint32_t* off = w.Reg(in.src[1]);
  const uint32_t* cnt = w.Reg(in.src[2]);
  uint32_t* d = w.Dst(in.dst);
  for (uint32_t m = w.active(); m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    StoreLane<T>(d, W, l, F(LoadLane<T>(base, W, l), off[l], cnt[l]));
  }
}

#define WS_BITS_SET(MAKE)                                              \
  HandlerSet {                                                         \
    .i8 = MAKE(uint8_t), .i16 = MAKE(uint16_t), .i32 = MAKE(uint32_t), \
    .i64 = MAKE(uint64_t), .u8 = MAKE(uint8_t), .u16 = MAKE(uint16_t), \
    .u32 = MAKE(uint32_t), .u64 = MAKE(uint64_t)                       \
  }
#define WS_SHIFT(T, F) &ExecBinary<T, T, uint32_t, &F<T>>
#define WS_SHL(T) WS_SHIFT(T, Shl)
#define WS_SHR(T) WS_SHIFT(T, Shr)
#define WS_SAR(T) WS_SHIFT(T, Sar)
#define WS_AND(T) &ExecBinary<T, T, T, &And<T>>
#define WS_OR(T) &ExecBinary<T, T, T, &Or<T>>
#define WS_XOR(T) &ExecBinary<T, T, T, &Xor<T>>
#define WS_NOT(T) &ExecUnary<T, T, &Not<T>>
#define WS_REV(T) &ExecUnary<T, T, &BitReverse<T>>
#define WS_CNT(T) &ExecUnary<T, T, &BitCount<T>>
#define WS_INSERT(T) &ExecBitFieldInsert<T>
#define WS_UEXT(T) &ExecExtract<T, &UExtract<T>>
#define WS_SEXT(T) &ExecExtract<T, &SExtract<T>>

bool LowerShiftOrField(Lowerer& l, const spirv::Inst& inst,
                       const HandlerSet& set, size_t first_count_operand) {
  const ScalarType t = ScalarOf(l, inst.result_type);
  ExecFn fn = set.Pick(t);
  if (fn == nullptr) {
    l.Fail(l.UnsupportedAt(
        inst, "bit operation on " + std::to_string(t.width) + "-bit"));
    return true;
  }
  std::vector<Val> ops;
  for (uint32_t id : inst.operands) ops.push_back(l.Get(id));
  if (l.failed()) return true;
  // Count/offset operands are read as 32-bit values: a 64-bit operand's
  // low word is its first register, narrower ones are zero-extended.
  (void)first_count_operand;
  const std::vector<uint32_t> dst =
      l.Define(inst.result_id, inst.result_type).regs;
  for (size_t c = 0; c < dst.size(); ++c) {
    Instr& in = l.Emit(fn, inst.opcode, t, inst.word_offset);
    in.dst = dst[c];
    for (size_t k = 0; k < ops.size() && k < 4; ++k) {
      in.src[k] = ops[k].regs.size() == 1 ? ops[k].regs[0] : ops[k].regs[c];
    }
  }
  return true;
}

}  // namespace

bool LowerBitwise(Lowerer& l, const spirv::Inst& inst) {
  using spv::Op;
  switch (inst.opcode) {
    case Op::OpShiftLeftLogical:
      return LowerShiftOrField(l, inst, WS_BITS_SET(WS_SHL), 1);
    case Op::OpShiftRightLogical:
      return LowerShiftOrField(l, inst, WS_BITS_SET(WS_SHR), 1);
    case Op::OpShiftRightArithmetic:
      return LowerShiftOrField(l, inst, WS_BITS_SET(WS_SAR), 1);
    case Op::OpBitwiseAnd:
      return LowerWith(l, inst, WS_BITS_SET(WS_AND));
    case Op::OpBitwiseOr:
      return LowerWith(l, inst, WS_BITS_SET(WS_OR));
    case Op::OpBitwiseXor:
      return LowerWith(l, inst, WS_BITS_SET(WS_XOR));
    case Op::OpNot:
      return LowerWith(l, inst, WS_BITS_SET(WS_NOT));
    case Op::OpBitReverse:
      return LowerWith(l, inst, WS_BITS_SET(WS_REV));
    case Op::OpBitCount:
      // The result has the result type's width; the operand's value is
      // counted in its own width (same width in every valid module).
      return LowerWith(l, inst, WS_BITS_SET(WS_CNT), true);
    case Op::OpBitFieldInsert:
      return LowerShiftOrField(l, inst, WS_BITS_SET(WS_INSERT), 2);
    case Op::OpBitFieldUExtract:
      return LowerShiftOrField(l, inst, WS_BITS_SET(WS_UEXT), 1);
    case Op::OpBitFieldSExtract:
      return LowerShiftOrField(l, inst, WS_BITS_SET(WS_SEXT), 1);
    default:
      return false;
  }
}

}  // namespace warpsim::simt
