// Arithmetic, relational and logical instructions: integer and float
// add/sub/mul/div/rem/mod/negate, extended multiply and carry ops, vector
// and matrix products (expanded into scalar multiplies and adds, as a GPU
// compiler does), comparisons, OpSelect and the logical operators.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "simt/exec_common.h"
#include "simt/scalar_ops.h"

namespace warpsim::simt {
namespace {

// ---- scalar functions ----
// Integer arithmetic, comparisons and logic come from scalar_ops.h (shared
// with constant folding); the float ones are here.
using scalar::Ge;
using scalar::Gt;
using scalar::IAdd;
using scalar::IEq;
using scalar::IMul;
using scalar::INe;
using scalar::ISub;
using scalar::Le;
using scalar::LogicalAnd;
using scalar::LogicalEqual;
using scalar::LogicalNot;
using scalar::LogicalNotEqual;
using scalar::LogicalOr;
using scalar::Lt;
using scalar::SDiv;
using scalar::SMod;
using scalar::SNegate;
using scalar::SRem;
using scalar::UDiv;
using scalar::UMod;

template <typename T>
T FAdd(T a, T b) {
  return a + b;
}
template <typename T>
T FSub(T a, T b) {
  return a - b;
}
template <typename T>
T FMul(T a, T b) {
  return a * b;
}
template <typename T>
T FDiv(T a, T b) {
  return a / b;
}
template <typename T>
T FNegate(T a) {
  return -a;
}
// OpFRem: sign of the dividend (C fmod); OpFMod: sign of the divisor.
template <typename T>
T FRem(T a, T b) {
  return std::fmod(a, b);
}
template <typename T>
T FMod(T a, T b) {
  // x - y * floor(x / y), as the SPIR-V precision appendix defines it.
  if (b == 0 || std::isinf(a) || std::isnan(a) || std::isnan(b)) {
    return std::numeric_limits<T>::quiet_NaN();
  }
  if (std::isinf(b)) return a;
  T r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// OpSDiv, OpSRem and OpSMod on 32-bit integers, four lanes per vector
// operation instead of one host division per lane. Through double: the
// exact quotient a / b of two 32-bit integers is either an integer or at
// least 1/|b| away from one, which relative to |a / b| is at least 2^-31, far
// above double's rounding error of 2^-53, so truncating the rounded quotient
// gives C's a / b; a - q * b is then exact in double too. Divisors 0 and -1
// are replaced by 1 and their lanes set afterwards the way scalar_ops.h
// defines them (0, or -a wrapping for the division by -1). Lanes outside the
// active mask are computed too (their results are dropped), so the vectors
// cover the warp.
enum class SignedDivOp { kDiv, kRem, kMod };

// ExecSignedDiv32 for every lane of a full-width warp when every lane
// divides by the same b, |b| >= 2: the magnitudes' quotient from |a| times
// the reciprocal 1/|b| (relative error under 2^-51, so at most one off the
// truncated quotient, which is at most 2^30), then one correction step on
// the exact remainder |a| - q |b|, then the signs as C's / and % give them.
template <SignedDivOp kOp>
[[gnu::always_inline]] inline void SignedDivByUniform(const uint32_t* a,
                                                      int32_t b,
                                                      uint32_t* out) {
  using V4i = int32_t __attribute__((vector_size(16)));
  using V4u = uint32_t __attribute__((vector_size(16)));
  using V4d = double __attribute__((vector_size(32)));
  using V4l = int64_t __attribute__((vector_size(32)));
  using V4ul = uint64_t __attribute__((vector_size(32)));
  const double mag_b = std::fabs(static_cast<double>(b));
  const double recip = 1.0 / mag_b;
  for (uint32_t l = 0; l < kMaxWarpWidth; l += 4) {
    V4u ua;
    std::memcpy(&ua, a + l, sizeof(ua));
    const V4i va = __builtin_bit_cast(V4i, ua);
    const V4d ad = __builtin_convertvector(va, V4d);
    const V4d mag_a = __builtin_bit_cast(
        V4d, __builtin_bit_cast(V4l, ad) & ~(int64_t{1} << 63));
    V4d q = __builtin_convertvector(__builtin_convertvector(mag_a * recip, V4i),
                                    V4d);  // truncated
    V4d r = mag_a - q * mag_b;             // exact
    // One step towards 0 <= r < |b|, on sign bits (no compares: GCC 12
    // turns a compare of vectors wider than the target's into scalar code).
    const V4l one = __builtin_bit_cast(V4l, V4d{} + 1.0);
    const V4l divisor = __builtin_bit_cast(V4l, V4d{} + mag_b);
    const V4l low = __builtin_bit_cast(  // r < 0
        V4l, -(__builtin_bit_cast(V4ul, r) >> 63));
    q -= __builtin_bit_cast(V4d, low & one);
    r += __builtin_bit_cast(V4d, low & divisor);
    const V4l high = __builtin_bit_cast(  // r >= |b|
        V4l, (__builtin_bit_cast(V4ul, r - mag_b) >> 63) - 1);
    q += __builtin_bit_cast(V4d, high & one);
    r -= __builtin_bit_cast(V4d, high & divisor);
    const V4u qi = __builtin_bit_cast(V4u, __builtin_convertvector(q, V4i));
    const V4u ri = __builtin_bit_cast(V4u, __builtin_convertvector(r, V4i));
    const V4u a_neg = __builtin_bit_cast(V4u, va < 0);
    V4u res;
    if constexpr (kOp == SignedDivOp::kDiv) {
      // Negative when exactly one of a and b is.
      const V4u neg = b < 0 ? ~a_neg : a_neg;
      res = (qi ^ neg) - neg;
    } else {
      res = (ri ^ a_neg) - a_neg;  // the sign of a
      if constexpr (kOp == SignedDivOp::kMod) {
        const V4i rs = __builtin_bit_cast(V4i, res);
        const V4u fix = __builtin_bit_cast(V4u, (rs != 0) & ((rs ^ b) < 0));
        res += static_cast<uint32_t>(b) & fix;
      }
    }
    std::memcpy(out + l, &res, sizeof(res));
  }
}

// SignedDivByUniform compiled for the baseline and for AVX2 (four doubles
// per operation instead of two; the same IEEE operations, all exact), the
// second used when the CPU has it.
using DivByUniformFn = void (*)(const uint32_t*, int32_t, uint32_t*);
template <SignedDivOp kOp>
void DivByUniformBaseline(const uint32_t* a, int32_t b, uint32_t* out) {
  SignedDivByUniform<kOp>(a, b, out);
}
#if defined(__x86_64__) && defined(__GNUC__)
template <SignedDivOp kOp>
__attribute__((target("avx2"))) void DivByUniformAvx2(const uint32_t* a,
                                                      int32_t b,
                                                      uint32_t* out) {
  SignedDivByUniform<kOp>(a, b, out);
}
#endif
template <SignedDivOp kOp>
DivByUniformFn PickDivByUniform() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) return &DivByUniformAvx2<kOp>;
#endif
  return &DivByUniformBaseline<kOp>;
}

template <SignedDivOp kOp>
void ExecSignedDiv32(Warp& w, const Instr& in) {
  using V4i = int32_t __attribute__((vector_size(16)));
  using V4u = uint32_t __attribute__((vector_size(16)));
  using V4d = double __attribute__((vector_size(32)));
  constexpr uint32_t kW = kMaxWarpWidth;
  if (w.width() != kW) {
    constexpr int32_t (*kScalar)(int32_t, int32_t) =
        kOp == SignedDivOp::kDiv   ? &SDiv<int32_t>
        : kOp == SignedDivOp::kRem ? &SRem<int32_t>
                                   : &SMod<int32_t>;
    ExecBinary<int32_t, int32_t, int32_t, kScalar>(w, in);
    return;
  }
  const uint32_t* a = w.Reg(in.src[0]);
  const uint32_t* b = w.Reg(in.src[1]);
  uint32_t out[kW];
  // The same divisor of magnitude >= 2 in every active lane (x % 3):
  // multiply by its reciprocal instead of dividing.
  const uint32_t act = w.active();
  const int32_t b0 = static_cast<int32_t>(b[std::countr_zero(act | 1u)]);
  uint32_t other[kW];
  for (uint32_t l = 0; l < kW; ++l) other[l] = b[l] ^ static_cast<uint32_t>(b0);
  if ((b0 >= 2 || b0 <= -2) && !AnyLaneNonzero(other, act)) {
    static const DivByUniformFn by_uniform = PickDivByUniform<kOp>();
    by_uniform(a, b0, out);
    BlendLanes(w.Dst(in.dst), out, act);
    return;
  }
  for (uint32_t l = 0; l < kW; l += 4) {
    V4u ua, ub;
    std::memcpy(&ua, a + l, sizeof(ua));
    std::memcpy(&ub, b + l, sizeof(ub));
    const V4i va = __builtin_bit_cast(V4i, ua);
    const V4i vb = __builtin_bit_cast(V4i, ub);
    const V4u by_zero = __builtin_bit_cast(V4u, vb == 0);
    const V4u by_minus1 = __builtin_bit_cast(V4u, vb == -1);
    const V4u bad = by_zero | by_minus1;
    const V4u bs = (ub & ~bad) | (bad & 1u);  // the divisor used
    const V4d ad = __builtin_convertvector(va, V4d);
    const V4d bd = __builtin_convertvector(__builtin_bit_cast(V4i, bs), V4d);
    const V4i q = __builtin_convertvector(ad / bd, V4i);  // truncates
    V4u r;
    if constexpr (kOp == SignedDivOp::kDiv) {
      r = (__builtin_bit_cast(V4u, q) & ~bad) | ((0u - ua) & by_minus1);
    } else {
      const V4d rd = ad - __builtin_convertvector(q, V4d) * bd;  // exact
      r = __builtin_bit_cast(V4u, __builtin_convertvector(rd, V4i)) & ~bad;
      if constexpr (kOp == SignedDivOp::kMod) {
        // The sign of the divisor: a nonzero remainder of the other sign
        // moves by one divisor.
        const V4i ri = __builtin_bit_cast(V4i, r);
        const V4u fix = __builtin_bit_cast(
            V4u, (ri != 0) & ((ri ^ __builtin_bit_cast(V4i, bs)) < 0));
        r += bs & fix;
      }
    }
    std::memcpy(out + l, &r, sizeof(r));
  }
  BlendLanes(w.Dst(in.dst), out, w.active());
}

// Half precision: compute in float, round once.
template <float (*F)(float, float)>
Half HalfBinary(Half a, Half b) {
  return Half{FloatToHalf(F(HalfToFloat(a.bits), HalfToFloat(b.bits)))};
}
Half HNegate(Half a) { return Half{static_cast<uint16_t>(a.bits ^ 0x8000u)}; }

// Float comparisons (ordered <, <=, >, >= are the plain operators).
template <typename T>
bool FOrdEq(T a, T b) {
  return a == b;
}
template <typename T>
bool FOrdNe(T a, T b) {
  return !std::isnan(a) && !std::isnan(b) && a != b;
}
template <typename T>
bool FUnordEq(T a, T b) {
  return std::isnan(a) || std::isnan(b) || a == b;
}
template <typename T>
bool FUnordNe(T a, T b) {
  return a != b;
}
template <typename T>
bool FUnordLt(T a, T b) {
  return !(a >= b);
}
template <typename T>
bool FUnordLe(T a, T b) {
  return !(a > b);
}
template <typename T>
bool FUnordGt(T a, T b) {
  return !(a <= b);
}
template <typename T>
bool FUnordGe(T a, T b) {
  return !(a < b);
}
template <bool (*F)(float, float)>
bool HalfCompare(Half a, Half b) {
  return F(HalfToFloat(a.bits), HalfToFloat(b.bits));
}

template <typename T>
bool IsNan(T a) {
  return std::isnan(a);
}
template <typename T>
bool IsInf(T a) {
  return std::isinf(a);
}
template <typename T>
bool IsFinite(T a) {
  return std::isfinite(a);
}
template <typename T>
bool IsNormal(T a) {
  return std::isnormal(a);
}
template <typename T>
bool SignBitSet(T a) {
  // std::signbit, as a bit test: GCC 12 crashes (an internal compiler
  // error) vectorising __builtin_signbit over a warp.
  using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  return (std::bit_cast<U>(a) >> (8 * sizeof(T) - 1)) != 0;
}
template <bool (*F)(float)>
bool HalfTest(Half a) {
  return F(HalfToFloat(a.bits));
}

// ---- handler sets ----
#define WS_INT_BINARY(F, S8, S16, S32, S64)     \
  HandlerSet {                                  \
    .i8 = &ExecBinary<S8, S8, S8, &F<S8>>,      \
    .i16 = &ExecBinary<S16, S16, S16, &F<S16>>, \
    .i32 = &ExecBinary<S32, S32, S32, &F<S32>>, \
    .i64 = &ExecBinary<S64, S64, S64, &F<S64>>, \
    .u8 = &ExecBinary<S8, S8, S8, &F<S8>>,      \
    .u16 = &ExecBinary<S16, S16, S16, &F<S16>>, \
    .u32 = &ExecBinary<S32, S32, S32, &F<S32>>, \
    .u64 = &ExecBinary<S64, S64, S64, &F<S64>>  \
  }
#define WS_UINT_BINARY(F) \
  WS_INT_BINARY(F, uint8_t, uint16_t, uint32_t, uint64_t)
#define WS_SINT_BINARY(F) WS_INT_BINARY(F, int8_t, int16_t, int32_t, int64_t)

#define WS_INT_COMPARE(F, S8, S16, S32, S64)     \
  HandlerSet {                                   \
    .i8 = &ExecBinary<bool, S8, S8, &F<S8>>,     \
    .i16 = &ExecBinary<bool, S16, S16, &F<S16>>, \
    .i32 = &ExecBinary<bool, S32, S32, &F<S32>>, \
    .i64 = &ExecBinary<bool, S64, S64, &F<S64>>, \
    .u8 = &ExecBinary<bool, S8, S8, &F<S8>>,     \
    .u16 = &ExecBinary<bool, S16, S16, &F<S16>>, \
    .u32 = &ExecBinary<bool, S32, S32, &F<S32>>, \
    .u64 = &ExecBinary<bool, S64, S64, &F<S64>>  \
  }
#define WS_UINT_COMPARE(F) \
  WS_INT_COMPARE(F, uint8_t, uint16_t, uint32_t, uint64_t)
#define WS_SINT_COMPARE(F) WS_INT_COMPARE(F, int8_t, int16_t, int32_t, int64_t)

#define WS_FLOAT_BINARY(F)                                        \
  HandlerSet {                                                    \
    .f16 = &ExecBinary<Half, Half, Half, &HalfBinary<&F<float>>>, \
    .f32 = &ExecBinary<float, float, float, &F<float>>,           \
    .f64 = &ExecBinary<double, double, double, &F<double>>        \
  }
#define WS_FLOAT_COMPARE(F)                                        \
  HandlerSet {                                                     \
    .f16 = &ExecBinary<bool, Half, Half, &HalfCompare<&F<float>>>, \
    .f32 = &ExecBinary<bool, float, float, &F<float>>,             \
    .f64 = &ExecBinary<bool, double, double, &F<double>>           \
  }
#define WS_FLOAT_TEST(F)                                 \
  HandlerSet {                                           \
    .f16 = &ExecUnary<bool, Half, &HalfTest<&F<float>>>, \
    .f32 = &ExecUnary<bool, float, &F<float>>,           \
    .f64 = &ExecUnary<bool, double, &F<double>>          \
  }

// Two results per lane (extended multiply, carry/borrow): the second
// result's register is Program::extra[aux].
template <typename T, bool kSigned>
void ExecMulExtended(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const uint32_t* a = w.Reg(in.src[0]);
  const uint32_t* b = w.Reg(in.src[1]);
  uint32_t* lo = w.Dst(in.dst);
  uint32_t* hi = w.Reg(w.program().extra[in.aux]);
  for (uint32_t l = 0; l < W; ++l) {
    if (!((act >> l) & 1u)) continue;
    if constexpr (sizeof(T) == 8) {
      using Wide = std::conditional_t<kSigned, __int128, unsigned __int128>;
      using S = std::conditional_t<kSigned, int64_t, uint64_t>;
      const Wide p =
          static_cast<Wide>(static_cast<S>(LoadLane<uint64_t>(a, W, l))) *
          static_cast<Wide>(static_cast<S>(LoadLane<uint64_t>(b, W, l)));
      StoreLane<uint64_t>(lo, W, l, static_cast<uint64_t>(p));
      StoreLane<uint64_t>(
          hi, W, l,
          static_cast<uint64_t>(static_cast<unsigned __int128>(p) >> 64));
    } else {
      constexpr int kBits = sizeof(T) * 8;
      // Products of two 32-bit values fit in 64 bits: signed ones in
      // int64_t, unsigned ones in uint64_t.
      using S = std::conditional_t<kSigned, std::make_signed_t<T>, T>;
      using P = std::conditional_t<kSigned, int64_t, uint64_t>;
      const P x = static_cast<S>(LoadLane<T>(a, W, l));
      const P y = static_cast<S>(LoadLane<T>(b, W, l));
      const uint64_t p = static_cast<uint64_t>(x * y);
      StoreLane<T>(lo, W, l, static_cast<T>(p));
      StoreLane<T>(hi, W, l, static_cast<T>(p >> kBits));
    }
  }
}

template <typename T, bool kAdd>
void ExecCarry(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const uint32_t* a = w.Reg(in.src[0]);
  const uint32_t* b = w.Reg(in.src[1]);
  uint32_t* r = w.Dst(in.dst);
  uint32_t* c = w.Reg(w.program().extra[in.aux]);
  for (uint32_t l = 0; l < W; ++l) {
    if (!((act >> l) & 1u)) continue;
    const T x = LoadLane<T>(a, W, l), y = LoadLane<T>(b, W, l);
    const T res = kAdd ? static_cast<T>(x + y) : static_cast<T>(x - y);
    const T carry = kAdd ? (res < x ? 1 : 0) : (y > x ? 1 : 0);
    StoreLane<T>(r, W, l, res);
    StoreLane<T>(c, W, l, carry);
  }
}

// OpSelect on raw bits: works for any scalar, pointer or composite part.
void ExecSelect(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const uint32_t* c = w.Reg(in.src[0]);
  const uint32_t* a = w.Reg(in.src[1]);
  const uint32_t* b = w.Reg(in.src[2]);
  uint32_t* d = w.Dst(in.dst);
  for (uint32_t l = 0; l < W; ++l) {
    const uint32_t r = c[l] ? a[l] : b[l];
    d[l] = ((act >> l) & 1u) ? r : d[l];
  }
}
void ExecSelect64(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const uint32_t* c = w.Reg(in.src[0]);
  const uint32_t* a = w.Reg(in.src[1]);
  const uint32_t* b = w.Reg(in.src[2]);
  uint32_t* d = w.Dst(in.dst);
  for (uint32_t l = 0; l < W; ++l) {
    if (!((act >> l) & 1u)) continue;
    // Both words read before either is written: the destination may be
    // the condition's register (or overlap an operand's).
    const bool pick_a = c[l] != 0;
    const uint32_t lo = pick_a ? a[l] : b[l];
    const uint32_t hi = pick_a ? a[W + l] : b[W + l];
    d[l] = lo;
    d[W + l] = hi;
  }
}

// Emits one scalar binary op and returns its destination register.
uint32_t EmitBinary(Lowerer& l, ExecFn fn, spv::Op op, const ScalarType& t,
                    uint32_t a, uint32_t b, uint32_t word) {
  const uint32_t dst = l.NewReg(t.wide());
  Instr& in = l.Emit(fn, op, t, word);
  in.dst = dst;
  in.src[0] = a;
  in.src[1] = b;
  return dst;
}

// Sum of products sum_k a[k] * b[k] as scalar multiplies and adds.
uint32_t EmitDot(Lowerer& l, const ScalarType& t,
                 const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                 uint32_t word) {
  const HandlerSet mul = WS_FLOAT_BINARY(FMul);
  const HandlerSet add = WS_FLOAT_BINARY(FAdd);
  uint32_t acc =
      EmitBinary(l, mul.Pick(t), spv::Op::OpFMul, t, a[0], b[0], word);
  for (size_t k = 1; k < a.size(); ++k) {
    const uint32_t p =
        EmitBinary(l, mul.Pick(t), spv::Op::OpFMul, t, a[k], b[k], word);
    acc = EmitBinary(l, add.Pick(t), spv::Op::OpFAdd, t, acc, p, word);
  }
  return acc;
}

// Lowers products that mix vectors and matrices.
bool LowerProduct(Lowerer& l, const spirv::Inst& inst) {
  const ScalarType t = ScalarOf(l, inst.result_type);
  if (ScalarOf(l, inst.result_type).kind != ScalarKind::kFloat ||
      WS_FLOAT_BINARY(FMul).Pick(t) == nullptr) {
    l.Fail(l.UnsupportedAt(inst, "matrix/vector product on this type"));
    return true;
  }
  const Val a = l.Get(inst.operands[0]);
  const Val b =
      inst.opcode == spv::Op::OpTranspose ? Val{} : l.Get(inst.operands[1]);
  if (l.failed()) return true;
  const spirv::Module& m = l.module();
  std::vector<uint32_t> out;
  auto column = [&](const Val& mat, uint32_t rows, uint32_t c) {
    return std::vector<uint32_t>(mat.regs.begin() + c * rows,
                                 mat.regs.begin() + (c + 1) * rows);
  };
  switch (inst.opcode) {
    case spv::Op::OpDot:
      out.push_back(EmitDot(l, t, a.regs, b.regs, inst.word_offset));
      break;
    case spv::Op::OpMatrixTimesVector: {
      // result[r] = sum_c M[c][r] * v[c]
      const spirv::Type& mt = m.type(a.type_id);
      const uint32_t rows = m.type(mt.element).count;
      for (uint32_t r = 0; r < rows; ++r) {
        std::vector<uint32_t> row;
        for (uint32_t c = 0; c < mt.count; ++c)
          row.push_back(a.regs[c * rows + r]);
        out.push_back(EmitDot(l, t, row, b.regs, inst.word_offset));
      }
      break;
    }
    case spv::Op::OpVectorTimesMatrix: {
      // result[c] = dot(v, M[c])
      const spirv::Type& mt = m.type(b.type_id);
      const uint32_t rows = m.type(mt.element).count;
      for (uint32_t c = 0; c < mt.count; ++c) {
        out.push_back(
            EmitDot(l, t, a.regs, column(b, rows, c), inst.word_offset));
      }
      break;
    }
    case spv::Op::OpMatrixTimesMatrix: {
      // R[j][r] = sum_k A[k][r] * B[j][k]
      const spirv::Type& at = m.type(a.type_id);
      const spirv::Type& bt = m.type(b.type_id);
      const uint32_t rows = m.type(at.element).count;
      const uint32_t inner = at.count;
      for (uint32_t j = 0; j < bt.count; ++j) {
        for (uint32_t r = 0; r < rows; ++r) {
          std::vector<uint32_t> row;
          for (uint32_t k = 0; k < inner; ++k)
            row.push_back(a.regs[k * rows + r]);
          out.push_back(
              EmitDot(l, t, row, column(b, inner, j), inst.word_offset));
        }
      }
      break;
    }
    case spv::Op::OpOuterProduct: {
      // R[j][r] = a[r] * b[j]
      const HandlerSet mul = WS_FLOAT_BINARY(FMul);
      for (size_t j = 0; j < b.regs.size(); ++j) {
        for (size_t r = 0; r < a.regs.size(); ++r) {
          out.push_back(EmitBinary(l, mul.Pick(t), spv::Op::OpFMul, t,
                                   a.regs[r], b.regs[j], inst.word_offset));
        }
      }
      break;
    }
    default:
      return false;
  }
  Val res;
  res.type_id = inst.result_type;
  res.regs = std::move(out);
  l.Alias(inst.result_id, std::move(res));
  return true;
}

bool LowerTwoResults(Lowerer& l, const spirv::Inst& inst,
                     const HandlerSet& set) {
  const spirv::Type& st = l.module().type(inst.result_type);
  const ScalarType t = ScalarOf(l, st.members[0]);
  ExecFn fn = set.Pick(t);
  if (fn == nullptr) {
    l.Fail(l.UnsupportedAt(inst, "extended arithmetic on this width"));
    return true;
  }
  const Val a = l.Get(inst.operands[0]);
  const Val b = l.Get(inst.operands[1]);
  if (l.failed()) return true;
  const std::vector<uint32_t> regs =
      l.Define(inst.result_id, inst.result_type).regs;
  const size_t n = regs.size() / 2;
  for (size_t c = 0; c < n; ++c) {
    Instr& in = l.Emit(fn, inst.opcode, t, inst.word_offset);
    in.dst = regs[c];
    in.src[0] = a.regs[c];
    in.src[1] = b.regs[c];
    in.aux = static_cast<uint32_t>(l.program().extra.size());
    l.program().extra.push_back(regs[n + c]);
    l.AddDefs({regs[n + c]});
  }
  return true;
}

bool LowerSelect(Lowerer& l, const spirv::Inst& inst) {
  const Val c = l.Get(inst.operands[0]);
  const Val a = l.Get(inst.operands[1]);
  const Val b = l.Get(inst.operands[2]);
  if (l.failed()) return true;
  const auto flat = l.Flat(inst.result_type);
  Val& res = l.Define(inst.result_id, inst.result_type);
  res.ptr = a.ptr;  // selecting between pointers keeps the pointee layout
  if (a.ptr && b.ptr &&
      (a.ptr->root != b.ptr->root || !b.ptr->root_known ||
       a.ptr->root_offset != b.ptr->root_offset)) {
    // Two variables, or two places in one: the register-count model can
    // no longer tell which words an access through it touches.
    auto info = std::make_shared<PointerInfo>(*a.ptr);
    info->root_known = false;
    info->root_offset = 0;
    if (a.ptr->root != b.ptr->root) {
      l.NoteOpaqueAccess(*a.ptr);
      l.NoteOpaqueAccess(*b.ptr);
      info->root = 0;
    }
    res.ptr = std::move(info);
  }
  const std::vector<uint32_t> dst = res.regs;
  for (size_t k = 0; k < dst.size(); ++k) {
    Instr& in = l.Emit(flat[k].wide() ? ExecSelect64 : ExecSelect, inst.opcode,
                       flat[k], inst.word_offset);
    in.pipe = Pipe::kAlu;
    in.dst = dst[k];
    in.src[0] = c.regs.size() == 1 ? c.regs[0] : c.regs[k];
    in.src[1] = a.regs[k];
    in.src[2] = b.regs[k];
  }
  return true;
}

// OpAny / OpAll: reduce a bool vector with OR / AND.
bool LowerReduce(Lowerer& l, const spirv::Inst& inst, bool is_any) {
  const Val v = l.Get(inst.operands[0]);
  if (l.failed()) return true;
  const ScalarType t{ScalarKind::kBool, 32, false};
  uint32_t acc = v.regs[0];
  ExecFn fn = is_any ? &ExecBinary<bool, bool, bool, &LogicalOr>
                     : &ExecBinary<bool, bool, bool, &LogicalAnd>;
  for (size_t k = 1; k < v.regs.size(); ++k) {
    acc = EmitBinary(l, fn, inst.opcode, t, acc, v.regs[k], inst.word_offset);
  }
  if (v.regs.size() == 1) {
    acc = l.NewReg(false);
    Instr& in = l.Emit(ExecMove, inst.opcode, t, inst.word_offset);
    in.dst = acc;
    in.src[0] = v.regs[0];
  }
  Val res;
  res.type_id = inst.result_type;
  res.regs = {acc};
  l.Alias(inst.result_id, std::move(res));
  return true;
}

}  // namespace

bool LowerArithmetic(Lowerer& l, const spirv::Inst& inst) {
  using spv::Op;
  switch (inst.opcode) {
    // Integer arithmetic.
    case Op::OpIAdd:
      return LowerWith(l, inst, WS_UINT_BINARY(IAdd));
    case Op::OpISub:
      return LowerWith(l, inst, WS_UINT_BINARY(ISub));
    case Op::OpIMul:
      return LowerWith(l, inst, WS_UINT_BINARY(IMul));
    case Op::OpUDiv:
      return LowerWith(l, inst, WS_UINT_BINARY(UDiv));
    case Op::OpUMod:
      return LowerWith(l, inst, WS_UINT_BINARY(UMod));
    case Op::OpSDiv:
    case Op::OpSRem:
    case Op::OpSMod: {
      const SignedDivOp op = inst.opcode == Op::OpSDiv   ? SignedDivOp::kDiv
                             : inst.opcode == Op::OpSRem ? SignedDivOp::kRem
                                                         : SignedDivOp::kMod;
      HandlerSet set = op == SignedDivOp::kDiv   ? WS_SINT_BINARY(SDiv)
                       : op == SignedDivOp::kRem ? WS_SINT_BINARY(SRem)
                                                 : WS_SINT_BINARY(SMod);
      set.i32 = set.u32 =
          op == SignedDivOp::kDiv   ? &ExecSignedDiv32<SignedDivOp::kDiv>
          : op == SignedDivOp::kRem ? &ExecSignedDiv32<SignedDivOp::kRem>
                                    : &ExecSignedDiv32<SignedDivOp::kMod>;
      return LowerWith(l, inst, set);
    }
    case Op::OpSNegate: {
      const HandlerSet set{
          .i8 = &ExecUnary<int8_t, int8_t, &SNegate<int8_t>>,
          .i16 = &ExecUnary<int16_t, int16_t, &SNegate<int16_t>>,
          .i32 = &ExecUnary<int32_t, int32_t, &SNegate<int32_t>>,
          .i64 = &ExecUnary<int64_t, int64_t, &SNegate<int64_t>>,
          .u8 = &ExecUnary<int8_t, int8_t, &SNegate<int8_t>>,
          .u16 = &ExecUnary<int16_t, int16_t, &SNegate<int16_t>>,
          .u32 = &ExecUnary<int32_t, int32_t, &SNegate<int32_t>>,
          .u64 = &ExecUnary<int64_t, int64_t, &SNegate<int64_t>>};
      return LowerWith(l, inst, set);
    }
    case Op::OpUMulExtended: {
      const HandlerSet set{.i8 = &ExecMulExtended<uint8_t, false>,
                           .i16 = &ExecMulExtended<uint16_t, false>,
                           .i32 = &ExecMulExtended<uint32_t, false>,
                           .i64 = &ExecMulExtended<uint64_t, false>,
                           .u8 = &ExecMulExtended<uint8_t, false>,
                           .u16 = &ExecMulExtended<uint16_t, false>,
                           .u32 = &ExecMulExtended<uint32_t, false>,
                           .u64 = &ExecMulExtended<uint64_t, false>};
      return LowerTwoResults(l, inst, set);
    }
    case Op::OpSMulExtended: {
      const HandlerSet set{.i8 = &ExecMulExtended<uint8_t, true>,
                           .i16 = &ExecMulExtended<uint16_t, true>,
                           .i32 = &ExecMulExtended<uint32_t, true>,
                           .i64 = &ExecMulExtended<uint64_t, true>,
                           .u8 = &ExecMulExtended<uint8_t, true>,
                           .u16 = &ExecMulExtended<uint16_t, true>,
                           .u32 = &ExecMulExtended<uint32_t, true>,
                           .u64 = &ExecMulExtended<uint64_t, true>};
      return LowerTwoResults(l, inst, set);
    }
    case Op::OpIAddCarry:
    case Op::OpISubBorrow: {
      const bool add = inst.opcode == Op::OpIAddCarry;
      const HandlerSet set{
          .i8 = add ? &ExecCarry<uint8_t, true> : &ExecCarry<uint8_t, false>,
          .i16 = add ? &ExecCarry<uint16_t, true> : &ExecCarry<uint16_t, false>,
          .i32 = add ? &ExecCarry<uint32_t, true> : &ExecCarry<uint32_t, false>,
          .i64 = add ? &ExecCarry<uint64_t, true> : &ExecCarry<uint64_t, false>,
          .u8 = add ? &ExecCarry<uint8_t, true> : &ExecCarry<uint8_t, false>,
          .u16 = add ? &ExecCarry<uint16_t, true> : &ExecCarry<uint16_t, false>,
          .u32 = add ? &ExecCarry<uint32_t, true> : &ExecCarry<uint32_t, false>,
          .u64 =
              add ? &ExecCarry<uint64_t, true> : &ExecCarry<uint64_t, false>};
      return LowerTwoResults(l, inst, set);
    }
    // Float arithmetic.
    case Op::OpFAdd:
      return LowerWith(l, inst, WS_FLOAT_BINARY(FAdd));
    case Op::OpFSub:
      return LowerWith(l, inst, WS_FLOAT_BINARY(FSub));
    case Op::OpFMul:
      return LowerWith(l, inst, WS_FLOAT_BINARY(FMul));
    case Op::OpFDiv:
      return LowerWith(l, inst, WS_FLOAT_BINARY(FDiv));
    case Op::OpFRem:
      return LowerWith(l, inst, WS_FLOAT_BINARY(FRem));
    case Op::OpFMod:
      return LowerWith(l, inst, WS_FLOAT_BINARY(FMod));
    case Op::OpFNegate: {
      const HandlerSet set{.f16 = &ExecUnary<Half, Half, &HNegate>,
                           .f32 = &ExecUnary<float, float, &FNegate<float>>,
                           .f64 = &ExecUnary<double, double, &FNegate<double>>};
      return LowerWith(l, inst, set);
    }
    case Op::OpVectorTimesScalar:
    case Op::OpMatrixTimesScalar:
      return LowerWith(l, inst, WS_FLOAT_BINARY(FMul));
    case Op::OpDot:
    case Op::OpMatrixTimesVector:
    case Op::OpVectorTimesMatrix:
    case Op::OpMatrixTimesMatrix:
    case Op::OpOuterProduct:
      return LowerProduct(l, inst);
    // Integer comparisons.
    case Op::OpIEqual:
      return LowerWith(l, inst, WS_UINT_COMPARE(IEq), true);
    case Op::OpINotEqual:
      return LowerWith(l, inst, WS_UINT_COMPARE(INe), true);
    case Op::OpULessThan:
      return LowerWith(l, inst, WS_UINT_COMPARE(Lt), true);
    case Op::OpULessThanEqual:
      return LowerWith(l, inst, WS_UINT_COMPARE(Le), true);
    case Op::OpUGreaterThan:
      return LowerWith(l, inst, WS_UINT_COMPARE(Gt), true);
    case Op::OpUGreaterThanEqual:
      return LowerWith(l, inst, WS_UINT_COMPARE(Ge), true);
    case Op::OpSLessThan:
      return LowerWith(l, inst, WS_SINT_COMPARE(Lt), true);
    case Op::OpSLessThanEqual:
      return LowerWith(l, inst, WS_SINT_COMPARE(Le), true);
    case Op::OpSGreaterThan:
      return LowerWith(l, inst, WS_SINT_COMPARE(Gt), true);
    case Op::OpSGreaterThanEqual:
      return LowerWith(l, inst, WS_SINT_COMPARE(Ge), true);
    // Float comparisons.
    case Op::OpFOrdEqual:
      return LowerWith(l, inst, WS_FLOAT_COMPARE(FOrdEq), true);
    case Op::OpFOrdNotEqual:
      return LowerWith(l, inst, WS_FLOAT_COMPARE(FOrdNe), true);
    case Op::OpFOrdLessThan:
      return LowerWith(l, inst, WS_FLOAT_COMPARE(Lt), true);
    case Op::OpFOrdLessThanEqual:
      return LowerWith(l, inst, WS_FLOAT_COMPARE(Le), true);
    case Op::OpFOrdGreaterThan:
      return LowerWith(l, inst, WS_FLOAT_COMPARE(Gt), true);
    case Op::OpFOrdGreaterThanEqual:
      return LowerWith(l, inst, WS_FLOAT_COMPARE(Ge), true);
    case Op::OpFUnordEqual:
      return LowerWith(l, inst, WS_FLOAT_COMPARE(FUnordEq), true);
    case Op::OpFUnordNotEqual:
      return LowerWith(l, inst, WS_FLOAT_COMPARE(FUnordNe), true);
    case Op::OpFUnordLessThan:
      return LowerWith(l, inst, WS_FLOAT_COMPARE(FUnordLt), true);
    case Op::OpFUnordLessThanEqual:
      return LowerWith(l, inst, WS_FLOAT_COMPARE(FUnordLe), true);
    case Op::OpFUnordGreaterThan:
      return LowerWith(l, inst, WS_FLOAT_COMPARE(FUnordGt), true);
    case Op::OpFUnordGreaterThanEqual:
      return LowerWith(l, inst, WS_FLOAT_COMPARE(FUnordGe), true);
    case Op::OpIsNan:
      return LowerWith(l, inst, WS_FLOAT_TEST(IsNan), true);
    case Op::OpIsInf:
      return LowerWith(l, inst, WS_FLOAT_TEST(IsInf), true);
    case Op::OpIsFinite:
      return LowerWith(l, inst, WS_FLOAT_TEST(IsFinite), true);
    case Op::OpIsNormal:
      return LowerWith(l, inst, WS_FLOAT_TEST(IsNormal), true);
    case Op::OpSignBitSet:
      return LowerWith(l, inst, WS_FLOAT_TEST(SignBitSet), true);
    // Logical.
    case Op::OpLogicalAnd:
      return LowerWith(
          l, inst, HandlerSet{.b = &ExecBinary<bool, bool, bool, &LogicalAnd>});
    case Op::OpLogicalOr:
      return LowerWith(
          l, inst, HandlerSet{.b = &ExecBinary<bool, bool, bool, &LogicalOr>});
    case Op::OpLogicalEqual:
      return LowerWith(
          l, inst,
          HandlerSet{.b = &ExecBinary<bool, bool, bool, &LogicalEqual>});
    case Op::OpLogicalNotEqual:
      return LowerWith(
          l, inst,
          HandlerSet{.b = &ExecBinary<bool, bool, bool, &LogicalNotEqual>});
    case Op::OpLogicalNot:
      return LowerWith(l, inst,
                       HandlerSet{.b = &ExecUnary<bool, bool, &LogicalNot>});
    case Op::OpAny:
      return LowerReduce(l, inst, true);
    case Op::OpAll:
      return LowerReduce(l, inst, false);
    case Op::OpSelect:
      return LowerSelect(l, inst);
    default:
      return false;
  }
}

}  // namespace warpsim::simt
