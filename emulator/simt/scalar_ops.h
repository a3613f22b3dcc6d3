// Per-lane integer and boolean operations: the one definition of what
// OpIAdd, OpSDiv, OpShiftLeftLogical, OpSLessThan, ... compute for one
// scalar. The executor's handlers (exec_arithmetic.cpp, exec_bitwise.cpp) run
// them over the active lanes, and the lowering folds OpSpecConstantOp with
// them (FoldIntegerOp), so a folded constant is bit for bit what the same
// instruction gives at run time.
//
// Rules where SPIR-V leaves the result undefined (warpsim never traps on the
// host and never relies on C++ undefined behaviour):
//   - integers wrap (arithmetic is done in the unsigned type of the width);
//   - division and remainder by zero give 0; INT_MIN / -1 wraps to INT_MIN,
//     and INT_MIN rem/mod -1 give 0;
//   - a shift count is read as a 32-bit unsigned value; counts at or above
//     the width give 0 (the sign for arithmetic right shifts).
#ifndef WARPSIM_SIMT_SCALAR_OPS_H_
#define WARPSIM_SIMT_SCALAR_OPS_H_

#include <cstdint>
#include <optional>
#include <spirv/unified1/spirv.hpp11>
#include <type_traits>

namespace warpsim::simt::scalar {

template <typename T>
using U = std::make_unsigned_t<T>;

template <typename T>
inline constexpr uint32_t kBits = sizeof(T) * 8;

// ---- arithmetic ----
template <typename T>
T IAdd(T a, T b) {
  return static_cast<T>(static_cast<U<T>>(a) + static_cast<U<T>>(b));
}
template <typename T>
T ISub(T a, T b) {
  return static_cast<T>(static_cast<U<T>>(a) - static_cast<U<T>>(b));
}
template <typename T>
T IMul(T a, T b) {
  // Narrow types promote to int, whose product may overflow: multiply in
  // at least 32 unsigned bits.
  using W = std::conditional_t<(sizeof(T) < 4), uint32_t, U<T>>;
  return static_cast<T>(static_cast<W>(static_cast<U<T>>(a)) *
                        static_cast<W>(static_cast<U<T>>(b)));
}
template <typename T>
T SNegate(T a) {
  return static_cast<T>(U<T>(0) - static_cast<U<T>>(a));
}
template <typename T>
T UDiv(T a, T b) {
  return b == 0 ? T(0) : static_cast<T>(a / b);
}
template <typename T>
T UMod(T a, T b) {
  return b == 0 ? T(0) : static_cast<T>(a % b);
}
template <typename T>
T SDiv(T a, T b) {
  if (b == 0) return 0;
  if (b == T(-1)) return SNegate(a);  // INT_MIN / -1 traps on the host
  return static_cast<T>(a / b);
}
// OpSRem: the sign of the dividend.
template <typename T>
T SRem(T a, T b) {
  if (b == 0 || b == T(-1)) return 0;
  return static_cast<T>(a % b);
}
// OpSMod: the sign of the divisor.
template <typename T>
T SMod(T a, T b) {
  T r = SRem(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r = IAdd(r, b);
  return r;
}

// ---- bitwise ----
template <typename T>
T Shl(T a, uint32_t b) {
  return b >= kBits<T> ? T(0) : static_cast<T>(a << b);
}
template <typename T>
T Shr(T a, uint32_t b) {
  return b >= kBits<T> ? T(0) : static_cast<T>(a >> b);
}
template <typename T>
T Sar(T a, uint32_t b) {
  using S = std::make_signed_t<T>;
  const S s = static_cast<S>(a);
  return static_cast<T>(b >= kBits<T> ? (s < 0 ? S(-1) : S(0))
                                      : static_cast<S>(s >> b));
}
template <typename T>
T And(T a, T b) {
  return a & b;
}
template <typename T>
T Or(T a, T b) {
  return a | b;
}
template <typename T>
T Xor(T a, T b) {
  return a ^ b;
}
template <typename T>
T Not(T a) {
  return static_cast<T>(~a);
}

// ---- comparisons (also for floats) ----
template <typename T>
bool IEq(T a, T b) {
  return a == b;
}
template <typename T>
bool INe(T a, T b) {
  return a != b;
}
template <typename T>
bool Lt(T a, T b) {
  return a < b;
}
template <typename T>
bool Le(T a, T b) {
  return a <= b;
}
template <typename T>
bool Gt(T a, T b) {
  return a > b;
}
template <typename T>
bool Ge(T a, T b) {
  return a >= b;
}

// ---- logical ----
inline bool LogicalAnd(bool a, bool b) { return a && b; }
inline bool LogicalOr(bool a, bool b) { return a || b; }
inline bool LogicalEqual(bool a, bool b) { return a == b; }
inline bool LogicalNotEqual(bool a, bool b) { return a != b; }
inline bool LogicalNot(bool a) { return !a; }

// Folds one component of integer or boolean instruction `op` on operands of
// `width` bits (8, 16, 32 or 64) given as raw bits (the low `width` bits
// count; a shift count is its low 32 bits, as the executor reads it; a
// boolean is 0 or 1). Returns the result's bits zero-extended (0 or 1 for a
// boolean), or nothing for an opcode or width it does not fold. Unary
// instructions ignore `b`.
std::optional<uint64_t> FoldIntegerOp(spv::Op op, uint32_t width, uint64_t a,
                                      uint64_t b);

}  // namespace warpsim::simt::scalar

#endif  // WARPSIM_SIMT_SCALAR_OPS_H_
