// Constant folding with the executor's scalar functions (scalar_ops.h).
#include "simt/scalar_ops.h"

namespace warpsim::simt::scalar {
namespace {

// Folds `op` for one width: T is the unsigned type of the width, S the
// signed one. Each case calls the function the handler of `op` runs, with
// the same operand types (exec_arithmetic.cpp, exec_bitwise.cpp).
template <typename T, typename S>
std::optional<uint64_t> FoldWidth(spv::Op op, uint64_t a_bits,
                                  uint64_t b_bits) {
  using spv::Op;
  const T a = static_cast<T>(a_bits), b = static_cast<T>(b_bits);
  const S sa = static_cast<S>(a), sb = static_cast<S>(b);
  const uint32_t count = static_cast<uint32_t>(b_bits);  // shift counts
  auto bits = [](auto v) -> uint64_t {
    using V = decltype(v);
    if constexpr (std::is_same_v<V, bool>) {
      return v ? 1 : 0;
    } else {
      return static_cast<uint64_t>(static_cast<std::make_unsigned_t<V>>(v));
    }
  };
  switch (op) {
    case Op::OpIAdd:
      return bits(IAdd(a, b));
    case Op::OpISub:
      return bits(ISub(a, b));
    case Op::OpIMul:
      return bits(IMul(a, b));
    case Op::OpUDiv:
      return bits(UDiv(a, b));
    case Op::OpUMod:
      return bits(UMod(a, b));
    case Op::OpSDiv:
      return bits(SDiv(sa, sb));
    case Op::OpSRem:
      return bits(SRem(sa, sb));
    case Op::OpSMod:
      return bits(SMod(sa, sb));
    case Op::OpSNegate:
      return bits(SNegate(sa));
    case Op::OpShiftLeftLogical:
      return bits(Shl(a, count));
    case Op::OpShiftRightLogical:
      return bits(Shr(a, count));
    case Op::OpShiftRightArithmetic:
      return bits(Sar(a, count));
    case Op::OpBitwiseAnd:
      return bits(And(a, b));
    case Op::OpBitwiseOr:
      return bits(Or(a, b));
    case Op::OpBitwiseXor:
      return bits(Xor(a, b));
    case Op::OpNot:
      return bits(Not(a));
    case Op::OpIEqual:
      return bits(IEq(a, b));
    case Op::OpINotEqual:
      return bits(INe(a, b));
    case Op::OpULessThan:
      return bits(Lt(a, b));
    case Op::OpULessThanEqual:
      return bits(Le(a, b));
    case Op::OpUGreaterThan:
      return bits(Gt(a, b));
    case Op::OpUGreaterThanEqual:
      return bits(Ge(a, b));
    case Op::OpSLessThan:
      return bits(Lt(sa, sb));
    case Op::OpSLessThanEqual:
      return bits(Le(sa, sb));
    case Op::OpSGreaterThan:
      return bits(Gt(sa, sb));
    case Op::OpSGreaterThanEqual:
      return bits(Ge(sa, sb));
    case Op::OpLogicalAnd:
      return bits(LogicalAnd(a != 0, b != 0));
    case Op::OpLogicalOr:
      return bits(LogicalOr(a != 0, b != 0));
    case Op::OpLogicalEqual:
      return bits(LogicalEqual(a != 0, b != 0));
    case Op::OpLogicalNotEqual:
      return bits(LogicalNotEqual(a != 0, b != 0));
    case Op::OpLogicalNot:
      return bits(LogicalNot(a != 0));
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<uint64_t> FoldIntegerOp(spv::Op op, uint32_t width, uint64_t a,
                                      uint64_t b) {
  switch (width) {
    case 8:
      return FoldWidth<uint8_t, int8_t>(op, a, b);
    case 16:
      return FoldWidth<uint16_t, int16_t>(op, a, b);
    case 32:
      return FoldWidth<uint32_t, int32_t>(op, a, b);
    case 64:
      return FoldWidth<uint64_t, int64_t>(op, a, b);
    default:
      return std::nullopt;
  }
}

}  // namespace warpsim::simt::scalar
