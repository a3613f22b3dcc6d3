// GLSL.std.450 extended instructions (OpExtInst on the "GLSL.std.450" set).
//
// Three shapes of lowering, as a GPU compiler would produce them:
//   - Component-wise functions (Round, Sin, FMin, SClamp, FMix, Fma, Ldexp,
//     FindUMsb, ...) become one scalar instruction per component, labelled
//     OpExtInst.<Name>, whose handler computes the function for one lane.
//     16-bit floats are widened to float, computed, and rounded once.
//     Float32 functions that the host library only provides in double
//     (trigonometry, exp/log, ...) are computed in double and rounded once,
//     which is at least as accurate as the Vulkan precision rules require.
//   - Geometric and matrix functions (Length, Distance, Cross, Normalize,
//     FaceForward, Reflect, Refract, Determinant, MatrixInverse) are expanded
//     into scalar multiplies, adds, square roots and selects (the Expander
//     below). For 16-bit floats the expansion runs in float: the inputs are
//     widened once and each result is rounded once.
//   - Packing functions read or write several registers of one lane; each
//     unpacked component is its own instruction. Modf/Frexp with a pointer
//     operand compute both parts and store the second through the pointer
//     with an ordinary store.
// The InterpolateAt* instructions exist only in fragment shaders with
// interpolated inputs and are reported as unsupported; IMix is reserved.
#include <spirv/unified1/GLSL.std.450.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "simt/exec_common.h"
#include "simt/trig.h"
#include "spirv/grammar.h"

namespace warpsim::simt {
namespace {

// ---------------------------------------------------------------------------
// Storage types and compute types.

// Storage type S (Half, float, double) is computed in Compute<S>.
template <typename S>
using Compute = std::conditional_t<std::is_same_v<S, Half>, float, S>;

template <typename S>
Compute<S> Widen(S v) {
  if constexpr (std::is_same_v<S, Half>) {
    return HalfToFloat(v.bits);
  } else {
    return v;
  }
}

template <typename S>
S Narrow(Compute<S> v) {
  if constexpr (std::is_same_v<S, Half>) {
    return Half{FloatToHalf(v)};
  } else {
    return v;
  }
}

// Evaluates a host double function and rounds once to T.
template <typename T>
T ViaDouble(double (*f)(double), T x) {
  return static_cast<T>(f(static_cast<double>(x)));
}

// ---------------------------------------------------------------------------
// Float functions. Each is a struct with a static template F over the
// compute type (float or double).

struct OpRound {  // halfway cases away from zero (implementation's choice)
  template <typename T>
  static T F(T x) {
    return std::round(x);
  }
};
struct OpRoundEven {
  template <typename T>
  static T F(T x) {
    const T r = std::round(x);
    // A tie rounded away from zero lands on an odd integer: step back.
    if (std::fabs(x - std::trunc(x)) == T(0.5) && std::fmod(r, T(2)) != 0) {
      return r - std::copysign(T(1), x);
    }
    return r;
  }
};
struct OpTrunc {
  template <typename T>
  static T F(T x) {
    return std::trunc(x);
  }
};
struct OpFAbs {
  template <typename T>
  static T F(T x) {
    return std::fabs(x);
  }
};
struct OpFSign {  // +-0 and NaN are returned unchanged
  template <typename T>
  static T F(T x) {
    return x > T(0) ? T(1) : (x < T(0) ? T(-1) : x);
  }
};
struct OpFloor {
  template <typename T>
  static T F(T x) {
    return std::floor(x);
  }
};
struct OpCeil {
  template <typename T>
  static T F(T x) {
    return std::ceil(x);
  }
};
struct OpFract {  // x - floor(x), as the precision rules define it
  template <typename T>
  static T F(T x) {
    return x - std::floor(x);
  }
};
struct OpRadians {
  template <typename T>
  static T F(T x) {
    return x * static_cast<T>(0.017453292519943295769);
  }
};
struct OpDegrees {
  template <typename T>
  static T F(T x) {
    return x * static_cast<T>(57.295779513082320877);
  }
};
#define WS_LIBM_UNARY(NAME, FN)                               \
  struct NAME {                                               \
    template <typename T>                                     \
    static T F(T x) {                                         \
      return ViaDouble<T>([](double v) { return FN(v); }, x); \
    }                                                         \
  };
// Sin and Cos: for float, simt/trig's functions give the same bits as the
// double libm call, faster (shaders call them a lot).
struct OpSin {
  template <typename T>
  static T F(T x) {
    if constexpr (std::is_same_v<T, float>) {
      return SinFloat(x);
    } else {
      return ViaDouble<T>([](double v) { return std::sin(v); }, x);
    }
  }
};
struct OpCos {
  template <typename T>
  static T F(T x) {
    if constexpr (std::is_same_v<T, float>) {
      return CosFloat(x);
    } else {
      return ViaDouble<T>([](double v) { return std::cos(v); }, x);
    }
  }
};
WS_LIBM_UNARY(OpTan, std::tan)
WS_LIBM_UNARY(OpAsin, std::asin)
WS_LIBM_UNARY(OpAcos, std::acos)
WS_LIBM_UNARY(OpAtan, std::atan)
WS_LIBM_UNARY(OpSinh, std::sinh)
WS_LIBM_UNARY(OpCosh, std::cosh)
WS_LIBM_UNARY(OpTanh, std::tanh)
WS_LIBM_UNARY(OpAsinh, std::asinh)
WS_LIBM_UNARY(OpAcosh, std::acosh)
WS_LIBM_UNARY(OpAtanh, std::atanh)
WS_LIBM_UNARY(OpExp, std::exp)
WS_LIBM_UNARY(OpLog, std::log)
WS_LIBM_UNARY(OpExp2, std::exp2)
WS_LIBM_UNARY(OpLog2, std::log2)
WS_LIBM_UNARY(OpSqrt, std::sqrt)
#undef WS_LIBM_UNARY
struct OpInverseSqrt {
  template <typename T>
  static T F(T x) {
    if constexpr (std::is_same_v<T, double>) {
      return 1.0 / std::sqrt(x);
    } else {
      return static_cast<T>(1.0 / std::sqrt(static_cast<double>(x)));
    }
  }
};
struct OpAtan2 {
  template <typename T>
  static T F(T y, T x) {
    return static_cast<T>(
        std::atan2(static_cast<double>(y), static_cast<double>(x)));
  }
};
struct OpPow {
  template <typename T>
  static T F(T x, T y) {
    return static_cast<T>(
        std::pow(static_cast<double>(x), static_cast<double>(y)));
  }
};
// FMin/FMax: NVIDIA's FMNMX returns the non-NaN operand, which is one of the
// results GLSL.std.450 allows; NMin/NMax require it.
struct OpFMin {
  template <typename T>
  static T F(T a, T b) {
    return std::fmin(a, b);
  }
};
struct OpFMax {
  template <typename T>
  static T F(T a, T b) {
    return std::fmax(a, b);
  }
};
struct OpFClamp {
  template <typename T>
  static T F(T x, T lo, T hi) {
    return std::fmin(std::fmax(x, lo), hi);
  }
};
struct OpFMix {  // x * (1 - a) + y * a
  template <typename T>
  static T F(T x, T y, T a) {
    return x * (T(1) - a) + y * a;
  }
};
struct OpStep {
  template <typename T>
  static T F(T edge, T x) {
    return x < edge ? T(0) : T(1);
  }
};
struct OpSmoothStep {
  template <typename T>
  static T F(T e0, T e1, T x) {
    T t = (x - e0) / (e1 - e0);
    t = std::fmin(std::fmax(t, T(0)), T(1));
    return t * t * (T(3) - T(2) * t);
  }
};
struct OpFma {
  template <typename T>
  static T F(T a, T b, T c) {
    return std::fma(a, b, c);
  }
};
struct OpModfFrac {  // fractional part with the sign of x (0 for inf)
  template <typename T>
  static T F(T x) {
    T whole;
    return std::modf(x, &whole);
  }
};
struct OpFrexpMant {
  template <typename T>
  static T F(T x) {
    if (!std::isfinite(x)) return x;  // undefined: keep the value
    int e;
    return std::frexp(x, &e);
  }
};
// Selects used by the geometric expansions.
struct OpFaceForwardSelect {  // d < 0 ? n : -n
  template <typename T>
  static T F(T n, T d) {
    return d < T(0) ? n : -n;
  }
};
struct OpZeroIfNegative {  // k < 0 ? 0 : r
  template <typename T>
  static T F(T r, T k) {
    return k < T(0) ? T(0) : r;
  }
};
struct OpFMul {
  template <typename T>
  static T F(T a, T b) {
    return a * b;
  }
};
struct OpFAdd {
  template <typename T>
  static T F(T a, T b) {
    return a + b;
  }
};
struct OpFSub {
  template <typename T>
  static T F(T a, T b) {
    return a - b;
  }
};
struct OpFDiv {
  template <typename T>
  static T F(T a, T b) {
    return a / b;
  }
};
struct OpFNegate {
  template <typename T>
  static T F(T a) {
    return -a;
  }
};

template <typename S, typename Op>
S Float1(S a) {
  return Narrow<S>(Op::F(Widen(a)));
}
template <typename S, typename Op>
S Float2(S a, S b) {
  return Narrow<S>(Op::F(Widen(a), Widen(b)));
}
template <typename S, typename Op>
S Float3(S a, S b, S c) {
  return Narrow<S>(Op::F(Widen(a), Widen(b), Widen(c)));
}
// Half fma: the exact product of two halves fits a float, and the sum is
// rounded in double before the single rounding to half.
Half HalfFma(Half a, Half b, Half c) {
  return Half{DoubleToHalf(std::fma(static_cast<double>(HalfToFloat(a.bits)),
                                    static_cast<double>(HalfToFloat(b.bits)),
                                    static_cast<double>(HalfToFloat(c.bits))))};
}

// Sin and Cos of 32-bit floats: every active lane in one call (trig.h: the
// same bits as SinFloat/CosFloat, several lanes per vector operation).
template <void (*Fn)(const float*, float*, uint32_t, uint32_t)>
void ExecTrigF32(Warp& w, const Instr& in) {
  Fn(reinterpret_cast<const float*>(w.Reg(in.src[0])),
     reinterpret_cast<float*>(w.Dst(in.dst)), w.width(), w.active());
}

template <typename Op>
HandlerSet FloatUnary() {
  // (Many of these call libm: only the active lanes are computed.)
  return {.f16 = &ExecUnary<Half, Half, &Float1<Half, Op>, false>,
          .f32 = &ExecUnary<float, float, &Float1<float, Op>, false>,
          .f64 = &ExecUnary<double, double, &Float1<double, Op>, false>};
}
template <typename Op>
HandlerSet FloatBinary() {
  return {
      .f16 = &ExecBinary<Half, Half, Half, &Float2<Half, Op>, false>,
      .f32 = &ExecBinary<float, float, float, &Float2<float, Op>, false>,
      .f64 = &ExecBinary<double, double, double, &Float2<double, Op>, false>};
}
template <typename Op>
HandlerSet FloatTernary() {
  return {
      .f16 = &ExecTernary<Half, Half, Half, Half, &Float3<Half, Op>, false>,
      .f32 =
          &ExecTernary<float, float, float, float, &Float3<float, Op>, false>,
      .f64 = &ExecTernary<double, double, double, double, &Float3<double, Op>,
                          false>};
}

// Frexp exponent (0 for zero, inf and NaN) and Ldexp, by float storage type S
// and integer type E.
template <typename S, typename E>
E FrexpExp(S a) {
  const auto x = Widen(a);
  if (!std::isfinite(x)) return E(0);
  int e = 0;
  std::frexp(x, &e);
  return static_cast<E>(e);
}
template <typename S, typename E>
S Ldexp(S a, E e) {
  // Exponents beyond +-1100 already over/underflow every format; clamping
  // keeps 64-bit exponents inside `int`.
  const int64_t c = std::clamp<int64_t>(static_cast<int64_t>(e), int64_t{-1100},
                                        int64_t{1100});
  return Narrow<S>(std::ldexp(Widen(a), static_cast<int>(c)));
}

// Picks Frexp's exponent handler: float storage S, exponent width.
template <typename S>
ExecFn FrexpExpFor(uint32_t exp_width) {
  switch (exp_width) {
    case 16:
      return &ExecUnary<int16_t, S, &FrexpExp<S, int16_t>>;
    case 32:
      return &ExecUnary<int32_t, S, &FrexpExp<S, int32_t>>;
    case 64:
      return &ExecUnary<int64_t, S, &FrexpExp<S, int64_t>>;
    default:
      return nullptr;
  }
}
template <typename S>
ExecFn LdexpFor(uint32_t exp_width) {
  switch (exp_width) {
    case 8:
      return &ExecBinary<S, S, int8_t, &Ldexp<S, int8_t>>;
    case 16:
      return &ExecBinary<S, S, int16_t, &Ldexp<S, int16_t>>;
    case 32:
      return &ExecBinary<S, S, int32_t, &Ldexp<S, int32_t>>;
    case 64:
      return &ExecBinary<S, S, int64_t, &Ldexp<S, int64_t>>;
    default:
      return nullptr;
  }
}
template <template <typename> class PickFor>
ExecFn ByFloatWidth(uint32_t float_width, uint32_t int_width) {
  switch (float_width) {
    case 16:
      return PickFor<Half>::Get(int_width);
    case 32:
      return PickFor<float>::Get(int_width);
    case 64:
      return PickFor<double>::Get(int_width);
    default:
      return nullptr;
  }
}
template <typename S>
struct FrexpPick {
  static ExecFn Get(uint32_t w) { return FrexpExpFor<S>(w); }
};
template <typename S>
struct LdexpPick {
  static ExecFn Get(uint32_t w) { return LdexpFor<S>(w); }
};

// Float width conversions for the expansions (16-bit inputs are widened to
// float; Refract's eta may have another width than I and N).
template <typename To, typename From>
To ConvertFloat(From a) {
  if constexpr (std::is_same_v<From, Half>) {
    return ConvertFloat<To, float>(HalfToFloat(a.bits));
  } else if constexpr (std::is_same_v<To, Half>) {
    if constexpr (std::is_same_v<From, double>) {
      return Half{DoubleToHalf(a)};
    } else {
      return Half{FloatToHalf(a)};
    }
  } else {
    return static_cast<To>(a);
  }
}
template <typename To>
ExecFn ConvertFrom(uint32_t from_width) {
  switch (from_width) {
    case 16:
      return &ExecUnary<To, Half, &ConvertFloat<To, Half>>;
    case 32:
      return &ExecUnary<To, float, &ConvertFloat<To, float>>;
    case 64:
      return &ExecUnary<To, double, &ConvertFloat<To, double>>;
    default:
      return nullptr;
  }
}
ExecFn ConvertHandler(uint32_t to_width, uint32_t from_width) {
  switch (to_width) {
    case 16:
      return ConvertFrom<Half>(from_width);
    case 32:
      return ConvertFrom<float>(from_width);
    case 64:
      return ConvertFrom<double>(from_width);
    default:
      return nullptr;
  }
}

// ---------------------------------------------------------------------------
// Integer functions, over the C++ integer type T of the interpretation the
// instruction prescribes (UMin reads its operands as unsigned whatever their
// declared signedness, SMin as signed).

template <typename T>
using Unsigned = std::make_unsigned_t<T>;

struct OpSAbs {  // INT_MIN stays INT_MIN
  template <typename T>
  static T F(T a) {
    return a < 0 ? static_cast<T>(Unsigned<T>(0) - static_cast<Unsigned<T>>(a))
                 : a;
  }
};
struct OpSSign {
  template <typename T>
  static T F(T a) {
    return static_cast<T>(a > 0 ? 1 : (a < 0 ? -1 : 0));
  }
};
struct OpIMin {
  template <typename T>
  static T F(T a, T b) {
    return b < a ? b : a;
  }
};
struct OpIMax {
  template <typename T>
  static T F(T a, T b) {
    return a < b ? b : a;
  }
};
struct OpIClamp {
  template <typename T>
  static T F(T x, T lo, T hi) {
    const T m = x < lo ? lo : x;
    return hi < m ? hi : m;
  }
};
// Bit scans return -1 (all ones) when no bit qualifies.
struct OpFindILsb {
  template <typename T>
  static T F(T a) {
    using U = Unsigned<T>;
    const U u = static_cast<U>(a);
    return u == 0 ? static_cast<T>(~U(0)) : static_cast<T>(std::countr_zero(u));
  }
};
struct OpFindUMsb {
  template <typename T>
  static T F(T a) {
    using U = Unsigned<T>;
    const U u = static_cast<U>(a);
    constexpr int kBits = sizeof(T) * 8;
    return u == 0 ? static_cast<T>(~U(0))
                  : static_cast<T>(kBits - 1 - std::countl_zero(u));
  }
};
struct OpFindSMsb {  // most significant bit that differs from the sign bit
  template <typename T>
  static T F(T a) {
    using U = Unsigned<T>;
    U u = static_cast<U>(a);
    if (a < 0) u = static_cast<U>(~u);
    return static_cast<T>(OpFindUMsb::F<U>(u));
  }
};

template <typename Op, typename T8, typename T16, typename T32, typename T64>
HandlerSet IntUnary() {
  return {.i8 = &ExecUnary<T8, T8, &Op::template F<T8>>,
          .i16 = &ExecUnary<T16, T16, &Op::template F<T16>>,
          .i32 = &ExecUnary<T32, T32, &Op::template F<T32>>,
          .i64 = &ExecUnary<T64, T64, &Op::template F<T64>>,
          .u8 = &ExecUnary<T8, T8, &Op::template F<T8>>,
          .u16 = &ExecUnary<T16, T16, &Op::template F<T16>>,
          .u32 = &ExecUnary<T32, T32, &Op::template F<T32>>,
          .u64 = &ExecUnary<T64, T64, &Op::template F<T64>>};
}
template <typename Op, typename T8, typename T16, typename T32, typename T64>
HandlerSet IntBinary() {
  return {.i8 = &ExecBinary<T8, T8, T8, &Op::template F<T8>>,
          .i16 = &ExecBinary<T16, T16, T16, &Op::template F<T16>>,
          .i32 = &ExecBinary<T32, T32, T32, &Op::template F<T32>>,
          .i64 = &ExecBinary<T64, T64, T64, &Op::template F<T64>>,
          .u8 = &ExecBinary<T8, T8, T8, &Op::template F<T8>>,
          .u16 = &ExecBinary<T16, T16, T16, &Op::template F<T16>>,
          .u32 = &ExecBinary<T32, T32, T32, &Op::template F<T32>>,
          .u64 = &ExecBinary<T64, T64, T64, &Op::template F<T64>>};
}
template <typename Op, typename T8, typename T16, typename T32, typename T64>
HandlerSet IntTernary() {
  return {.i8 = &ExecTernary<T8, T8, T8, T8, &Op::template F<T8>>,
          .i16 = &ExecTernary<T16, T16, T16, T16, &Op::template F<T16>>,
          .i32 = &ExecTernary<T32, T32, T32, T32, &Op::template F<T32>>,
          .i64 = &ExecTernary<T64, T64, T64, T64, &Op::template F<T64>>,
          .u8 = &ExecTernary<T8, T8, T8, T8, &Op::template F<T8>>,
          .u16 = &ExecTernary<T16, T16, T16, T16, &Op::template F<T16>>,
          .u32 = &ExecTernary<T32, T32, T32, T32, &Op::template F<T32>>,
          .u64 = &ExecTernary<T64, T64, T64, T64, &Op::template F<T64>>};
}
#define WS_SIGNED int8_t, int16_t, int32_t, int64_t
#define WS_UNSIGNED uint8_t, uint16_t, uint32_t, uint64_t

// ---------------------------------------------------------------------------
// Packing. Normalized values are rounded to nearest even (GLSL leaves the
// direction of round() at .5 to the implementation).

float RoundEvenF(float x) { return OpRoundEven::F(x); }
float ClampF(float x, float lo, float hi) {
  return std::fmin(std::fmax(x, lo), hi);
}

template <bool kSigned>
void ExecPack4x8(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const uint32_t* c[4] = {w.Reg(in.src[0]), w.Reg(in.src[1]), w.Reg(in.src[2]),
                          w.Reg(in.src[3])};
  uint32_t* d = w.Dst(in.dst);
  for (uint32_t l = 0; l < W; ++l) {
    if (!((act >> l) & 1u)) continue;
    uint32_t r = 0;
    for (uint32_t k = 0; k < 4; ++k) {
      const float v = LoadLane<float>(c[k], W, l);
      const uint32_t byte =
          kSigned ? static_cast<uint8_t>(static_cast<int8_t>(
                        RoundEvenF(ClampF(v, -1.0f, 1.0f) * 127.0f)))
                  : static_cast<uint8_t>(
                        RoundEvenF(ClampF(v, 0.0f, 1.0f) * 255.0f));
      r |= byte << (8 * k);
    }
    d[l] = r;
  }
}

uint32_t PackSnorm16(float v) {
  return static_cast<uint16_t>(
      static_cast<int16_t>(RoundEvenF(ClampF(v, -1.0f, 1.0f) * 32767.0f)));
}
uint32_t PackUnorm16(float v) {
  return static_cast<uint16_t>(RoundEvenF(ClampF(v, 0.0f, 1.0f) * 65535.0f));
}
template <uint32_t (*F)(float)>
uint32_t Pack2x16(float a, float b) {
  return F(a) | (F(b) << 16);
}
uint32_t PackHalf(float v) { return FloatToHalf(v); }
uint64_t PackDouble2x32(uint32_t lo, uint32_t hi) {
  return static_cast<uint64_t>(lo) | (static_cast<uint64_t>(hi) << 32);
}

template <uint32_t K>
float UnpackSnorm8(uint32_t v) {
  const int8_t b = static_cast<int8_t>(v >> (8 * K));
  return ClampF(static_cast<float>(b) / 127.0f, -1.0f, 1.0f);
}
template <uint32_t K>
float UnpackUnorm8(uint32_t v) {
  return static_cast<float>((v >> (8 * K)) & 0xffu) / 255.0f;
}
template <uint32_t K>
float UnpackSnorm16(uint32_t v) {
  const int16_t h = static_cast<int16_t>(v >> (16 * K));
  return ClampF(static_cast<float>(h) / 32767.0f, -1.0f, 1.0f);
}
template <uint32_t K>
float UnpackUnorm16(uint32_t v) {
  return static_cast<float>((v >> (16 * K)) & 0xffffu) / 65535.0f;
}
template <uint32_t K>
float UnpackHalf(uint32_t v) {
  return HalfToFloat(static_cast<uint16_t>(v >> (16 * K)));
}
template <uint32_t K>
uint32_t UnpackDoubleWord(uint64_t v) {
  return static_cast<uint32_t>(v >> (32 * K));
}

// ---------------------------------------------------------------------------
// Lowering helpers.

std::string NameOf(uint32_t ext) {
  return "GLSL.std.450 " + std::string(spirv::GlslStd450Name(ext));
}

// Emits `fn` once per destination register; operand k of component c is
// srcs[k][c], or srcs[k][0] for a scalar broadcast to every component.
void EmitInto(Lowerer& l, const spirv::Inst& inst, uint32_t ext, ExecFn fn,
              const ScalarType& t, const std::vector<uint32_t>& dst,
              const std::vector<std::vector<uint32_t>>& srcs) {
  for (size_t c = 0; c < dst.size(); ++c) {
    Instr& in = l.Emit(fn, spv::Op::OpExtInst, t, inst.word_offset);
    in.ext = static_cast<uint16_t>(ext);
    in.pipe = TimingOf(spv::Op::OpExtInst, ext, t.width, t.is_float()).pipe;
    in.dst = dst[c];
    for (size_t k = 0; k < srcs.size() && k < 4; ++k) {
      const auto& regs = srcs[k];
      if (!regs.empty()) in.src[k] = regs.size() == 1 ? regs[0] : regs[c];
    }
  }
}

// The operand values of an OpExtInst (operands[2..]).
std::vector<Val> Operands(Lowerer& l, const spirv::Inst& inst) {
  std::vector<Val> out;
  for (size_t i = 2; i < inst.operands.size(); ++i) {
    out.push_back(l.Get(inst.operands[i]));
  }
  return out;
}

std::vector<std::vector<uint32_t>> RegsOf(const std::vector<Val>& vals) {
  std::vector<std::vector<uint32_t>> out;
  for (const Val& v : vals) out.push_back(v.regs);
  return out;
}

bool FailWidth(Lowerer& l, const spirv::Inst& inst, uint32_t ext,
               const ScalarType& t) {
  l.Fail(l.UnsupportedAt(
      inst, NameOf(ext) + " on " + std::to_string(t.width) + "-bit operands"));
  return true;
}

// Component-wise lowering: the handler is picked by the scalar type of the
// result (or of the first operand).
bool LowerComponentwise(Lowerer& l, const spirv::Inst& inst, uint32_t ext,
                        const HandlerSet& set, bool type_from_operand = false) {
  const std::vector<Val> ops = Operands(l, inst);
  if (l.failed()) return true;
  const ScalarType t = ScalarOf(
      l, type_from_operand && !ops.empty() ? ops[0].type_id : inst.result_type);
  const ExecFn fn = set.Pick(t);
  if (fn == nullptr) return FailWidth(l, inst, ext, t);
  const std::vector<uint32_t> dst =
      l.Define(inst.result_id, inst.result_type).regs;
  EmitInto(l, inst, ext, fn, t, dst, RegsOf(ops));
  return true;
}

// Stores `regs` (a value of `type_id`) through the pointer `ptr_id` with an
// ordinary store, by naming them with a scratch id for the memory family.
void StoreThrough(Lowerer& l, const spirv::Inst& inst, uint32_t ptr_id,
                  uint32_t type_id, std::vector<uint32_t> regs) {
  // Ids are below the module's bound, so this one is never a real value.
  const uint32_t scratch = l.module().bound() + 1;
  Val v;
  v.type_id = type_id;
  v.regs = std::move(regs);
  l.Alias(scratch, std::move(v));
  spirv::Inst store;
  store.opcode = spv::Op::OpStore;
  store.operands = {ptr_id, scratch};
  store.word_offset = inst.word_offset;
  LowerMemory(l, store);
}

// Expands geometric and matrix functions into scalar instructions of the
// compute type (float for 16-bit inputs, else the input type).
class Expander {
 public:
  Expander(Lowerer& l, const spirv::Inst& inst, uint32_t ext,
           const ScalarType& t)
      : l_(l), inst_(inst), ext_(ext), t_(t), ct_(t) {
    if (t.width == 16) ct_.width = 32;
  }

  bool ok() const {
    return t_.is_float() &&
           (t_.width == 16 || t_.width == 32 || t_.width == 64);
  }
  const ScalarType& compute_type() const { return ct_; }

  // A register of type `from` in the compute type (converted once).
  uint32_t In(uint32_t reg) { return In(reg, t_); }
  uint32_t In(uint32_t reg, const ScalarType& from) {
    if (from.width == ct_.width) return reg;
    auto it = widened_.find(reg);
    if (it != widened_.end()) return it->second;
    const uint32_t r = Emit(ConvertHandler(ct_.width, from.width),
                            spv::Op::OpFConvert, 0, ct_, {reg});
    widened_[reg] = r;
    return r;
  }
  std::vector<uint32_t> In(const std::vector<uint32_t>& regs) {
    std::vector<uint32_t> out;
    for (uint32_t r : regs) out.push_back(In(r));
    return out;
  }
  // A compute-type register rounded to the result type.
  uint32_t Out(uint32_t reg) {
    if (t_.width == ct_.width) return reg;
    return Emit(ConvertHandler(t_.width, ct_.width), spv::Op::OpFConvert, 0, t_,
                {reg});
  }

  uint32_t Mul(uint32_t a, uint32_t b) {
    return Binary<OpFMul>(spv::Op::OpFMul, 0, a, b);
  }
  uint32_t Add(uint32_t a, uint32_t b) {
    return Binary<OpFAdd>(spv::Op::OpFAdd, 0, a, b);
  }
  uint32_t Sub(uint32_t a, uint32_t b) {
    return Binary<OpFSub>(spv::Op::OpFSub, 0, a, b);
  }
  uint32_t Div(uint32_t a, uint32_t b) {
    return Binary<OpFDiv>(spv::Op::OpFDiv, 0, a, b);
  }
  uint32_t Neg(uint32_t a) {
    return Emit(FloatUnary<OpFNegate>().Pick(ct_), spv::Op::OpFNegate, 0, ct_,
                {a});
  }
  uint32_t Sqrt(uint32_t a) {
    return Emit(FloatUnary<OpSqrt>().Pick(ct_), spv::Op::OpExtInst,
                GLSLstd450Sqrt, ct_, {a});
  }
  uint32_t InverseSqrt(uint32_t a) {
    return Emit(FloatUnary<OpInverseSqrt>().Pick(ct_), spv::Op::OpExtInst,
                GLSLstd450InverseSqrt, ct_, {a});
  }
  uint32_t FAbs(uint32_t a) {
    return Emit(FloatUnary<OpFAbs>().Pick(ct_), spv::Op::OpExtInst,
                GLSLstd450FAbs, ct_, {a});
  }
  uint32_t FSign(uint32_t a) {
    return Emit(FloatUnary<OpFSign>().Pick(ct_), spv::Op::OpExtInst,
                GLSLstd450FSign, ct_, {a});
  }
  // A select labelled with the instruction being expanded.
  template <typename Op>
  uint32_t Select(uint32_t a, uint32_t b) {
    return Binary<Op>(spv::Op::OpExtInst, ext_, a, b);
  }
  uint32_t Const(double v) {
    switch (ct_.width) {
      case 64:
        return l_.ConstReg(std::bit_cast<uint64_t>(v), true);
      default:
        return l_.ConstReg(std::bit_cast<uint32_t>(static_cast<float>(v)));
    }
  }
  // sum_k a[k] * b[k], multiplies and adds in order.
  uint32_t Dot(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
    uint32_t acc = Mul(a[0], b[0]);
    for (size_t k = 1; k < a.size(); ++k) acc = Add(acc, Mul(a[k], b[k]));
    return acc;
  }

 private:
  template <typename Op>
  uint32_t Binary(spv::Op op, uint32_t ext, uint32_t a, uint32_t b) {
    return Emit(FloatBinary<Op>().Pick(ct_), op, ext, ct_, {a, b});
  }
  uint32_t Emit(ExecFn fn, spv::Op op, uint32_t ext, const ScalarType& rt,
                std::initializer_list<uint32_t> srcs) {
    const uint32_t dst = l_.NewReg(rt.wide());
    Instr& in = l_.Emit(fn, op, rt, inst_.word_offset);
    in.ext = static_cast<uint16_t>(ext);
    in.pipe = TimingOf(op, ext, rt.width, true).pipe;
    in.dst = dst;
    size_t k = 0;
    for (uint32_t s : srcs) in.src[k++] = s;
    return dst;
  }

  Lowerer& l_;
  const spirv::Inst& inst_;
  uint32_t ext_;
  ScalarType t_;   // type of the operands and result
  ScalarType ct_;  // type the expansion computes in
  std::map<uint32_t, uint32_t> widened_;
};

void DefineAs(Lowerer& l, const spirv::Inst& inst, std::vector<uint32_t> regs) {
  Val v;
  v.type_id = inst.result_type;
  v.regs = std::move(regs);
  l.Alias(inst.result_id, std::move(v));
}

// Length, Distance, Normalize, Cross, FaceForward, Reflect, Refract.
bool LowerGeometric(Lowerer& l, const spirv::Inst& inst, uint32_t ext) {
  const std::vector<Val> ops = Operands(l, inst);
  if (l.failed()) return true;
  const ScalarType t = ScalarOf(l, ops[0].type_id);
  Expander e(l, inst, ext, t);
  if (!e.ok()) return FailWidth(l, inst, ext, t);
  std::vector<uint32_t> out;
  const std::vector<uint32_t> x = e.In(ops[0].regs);
  switch (ext) {
    case GLSLstd450Length:
      out.push_back(x.size() == 1 ? e.FAbs(x[0]) : e.Sqrt(e.Dot(x, x)));
      break;
    case GLSLstd450Distance: {
      const std::vector<uint32_t> y = e.In(ops[1].regs);
      std::vector<uint32_t> d;
      for (size_t k = 0; k < x.size(); ++k) d.push_back(e.Sub(x[k], y[k]));
      out.push_back(d.size() == 1 ? e.FAbs(d[0]) : e.Sqrt(e.Dot(d, d)));
      break;
    }
    case GLSLstd450Normalize: {
      if (x.size() == 1) {  // x / |x|
        out.push_back(e.FSign(x[0]));
        break;
      }
      const uint32_t inv = e.InverseSqrt(e.Dot(x, x));
      for (uint32_t c : x) out.push_back(e.Mul(c, inv));
      break;
    }
    case GLSLstd450Cross: {
      const std::vector<uint32_t> y = e.In(ops[1].regs);
      for (size_t k = 0; k < 3; ++k) {
        const size_t i = (k + 1) % 3, j = (k + 2) % 3;
        out.push_back(e.Sub(e.Mul(x[i], y[j]), e.Mul(y[i], x[j])));
      }
      break;
    }
    case GLSLstd450FaceForward: {  // dot(Nref, I) < 0 ? N : -N
      const std::vector<uint32_t> i = e.In(ops[1].regs);
      const std::vector<uint32_t> nref = e.In(ops[2].regs);
      const uint32_t d = e.Dot(nref, i);
      for (uint32_t c : x) out.push_back(e.Select<OpFaceForwardSelect>(c, d));
      break;
    }
    case GLSLstd450Reflect: {  // I - 2 * dot(N, I) * N
      const std::vector<uint32_t> n = e.In(ops[1].regs);
      const uint32_t d2 = e.Mul(e.Const(2.0), e.Dot(n, x));
      for (size_t k = 0; k < x.size(); ++k) {
        out.push_back(e.Sub(x[k], e.Mul(d2, n[k])));
      }
      break;
    }
    case GLSLstd450Refract: {
      // k = 1 - eta^2 * (1 - dot(N, I)^2);
      // k < 0 ? 0 : eta * I - (eta * dot(N, I) + sqrt(k)) * N
      const std::vector<uint32_t> n = e.In(ops[1].regs);
      const uint32_t eta = e.In(ops[2].regs[0], ScalarOf(l, ops[2].type_id));
      const uint32_t one = e.Const(1.0);
      const uint32_t d = e.Dot(n, x);
      const uint32_t k =
          e.Sub(one, e.Mul(e.Mul(eta, eta), e.Sub(one, e.Mul(d, d))));
      const uint32_t s = e.Add(e.Mul(eta, d), e.Sqrt(k));
      for (size_t c = 0; c < x.size(); ++c) {
        const uint32_t r = e.Sub(e.Mul(eta, x[c]), e.Mul(s, n[c]));
        out.push_back(e.Select<OpZeroIfNegative>(r, k));
      }
      break;
    }
    default:
      return false;
  }
  for (uint32_t& r : out) r = e.Out(r);
  DefineAs(l, inst, std::move(out));
  return true;
}

// Determinants of square sub-matrices by Laplace expansion along their first
// row, memoised by (row set, column set) so that MatrixInverse shares the
// minors between cofactors.
class Minors {
 public:
  Minors(Expander& e, std::vector<uint32_t> m, uint32_t n)
      : e_(e), m_(std::move(m)), n_(n) {}

  // Element in row r, column c (matrices are stored column by column).
  uint32_t At(uint32_t r, uint32_t c) const { return m_[c * n_ + r]; }

  uint32_t Det(uint32_t rows, uint32_t cols) {
    if (std::popcount(rows) == 1) {
      return At(std::countr_zero(rows), std::countr_zero(cols));
    }
    const auto key = std::make_pair(rows, cols);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    const uint32_t r0 = std::countr_zero(rows);
    const uint32_t rest = rows & ~(1u << r0);
    uint32_t acc = kNoReg;
    uint32_t k = 0;
    for (uint32_t m = cols; m != 0; m &= m - 1, ++k) {
      const uint32_t c = std::countr_zero(m);
      const uint32_t term = e_.Mul(At(r0, c), Det(rest, cols & ~(1u << c)));
      acc = k == 0 ? term : (k % 2 ? e_.Sub(acc, term) : e_.Add(acc, term));
    }
    memo_[key] = acc;
    return acc;
  }

 private:
  Expander& e_;
  std::vector<uint32_t> m_;
  uint32_t n_;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> memo_;
};

bool LowerMatrix(Lowerer& l, const spirv::Inst& inst, uint32_t ext) {
  const std::vector<Val> ops = Operands(l, inst);
  if (l.failed()) return true;
  const spirv::Type& mt = l.module().type(ops[0].type_id);
  const uint32_t n = mt.count;
  const ScalarType t = ScalarOf(l, ops[0].type_id);
  Expander e(l, inst, ext, t);
  if (!e.ok()) return FailWidth(l, inst, ext, t);
  if (n < 2 || n > 4 || ops[0].regs.size() != n * n) {
    l.Fail(l.InvalidAt(inst, NameOf(ext) + " needs a square matrix"));
    return true;
  }
  Minors minors(e, e.In(ops[0].regs), n);
  const uint32_t all = (1u << n) - 1;
  const uint32_t det = minors.Det(all, all);
  std::vector<uint32_t> out;
  if (ext == GLSLstd450Determinant) {
    out.push_back(e.Out(det));
  } else {
    // inverse(A)[row r][col c] = (-1)^(r+c) * minor(c, r) / det(A).
    const uint32_t inv = e.Div(e.Const(1.0), det);
    const uint32_t neg_inv = e.Neg(inv);
    out.resize(n * n);
    for (uint32_t c = 0; c < n; ++c) {
      for (uint32_t r = 0; r < n; ++r) {
        const uint32_t minor = minors.Det(all & ~(1u << c), all & ~(1u << r));
        out[c * n + r] = e.Out(e.Mul(minor, (r + c) % 2 ? neg_inv : inv));
      }
    }
  }
  DefineAs(l, inst, std::move(out));
  return true;
}

// Modf / ModfStruct: fractional part and whole part (trunc).
bool LowerModf(Lowerer& l, const spirv::Inst& inst, uint32_t ext) {
  const std::vector<Val> ops = Operands(l, inst);
  if (l.failed()) return true;
  const ScalarType t = ScalarOf(l, ops[0].type_id);
  const ExecFn frac = FloatUnary<OpModfFrac>().Pick(t);
  const ExecFn whole = FloatUnary<OpTrunc>().Pick(t);
  if (frac == nullptr) return FailWidth(l, inst, ext, t);
  const size_t n = ops[0].regs.size();
  std::vector<uint32_t> frac_regs, whole_regs;
  if (ext == GLSLstd450ModfStruct) {
    const std::vector<uint32_t> regs =
        l.Define(inst.result_id, inst.result_type).regs;
    frac_regs.assign(regs.begin(), regs.begin() + n);
    whole_regs.assign(regs.begin() + n, regs.end());
  } else {
    frac_regs = l.Define(inst.result_id, inst.result_type).regs;
    for (size_t c = 0; c < n; ++c) whole_regs.push_back(l.NewReg(t.wide()));
  }
  EmitInto(l, inst, ext, frac, t, frac_regs, {ops[0].regs});
  EmitInto(l, inst, ext, whole, t, whole_regs, {ops[0].regs});
  if (ext == GLSLstd450Modf) {
    StoreThrough(l, inst, inst.operands[3], ops[0].type_id, whole_regs);
  }
  return true;
}

// Frexp / FrexpStruct: significand in [0.5, 1) and integer exponent.
bool LowerFrexp(Lowerer& l, const spirv::Inst& inst, uint32_t ext) {
  const std::vector<Val> ops = Operands(l, inst);
  if (l.failed()) return true;
  const ScalarType t = ScalarOf(l, ops[0].type_id);
  const size_t n = ops[0].regs.size();
  std::vector<uint32_t> mant_regs, exp_regs;
  ScalarType et;
  uint32_t exp_type = 0;
  if (ext == GLSLstd450FrexpStruct) {
    const std::vector<uint32_t> regs =
        l.Define(inst.result_id, inst.result_type).regs;
    mant_regs.assign(regs.begin(), regs.begin() + n);
    exp_regs.assign(regs.begin() + n, regs.end());
    et = l.Flat(inst.result_type)[n];
  } else {
    const Val& ptr = l.Get(inst.operands[3]);
    if (l.failed()) return true;
    exp_type =
        ptr.ptr ? ptr.ptr->pointee_type : l.module().type(ptr.type_id).pointee;
    et = ScalarOf(l, exp_type);
    mant_regs = l.Define(inst.result_id, inst.result_type).regs;
    for (size_t c = 0; c < n; ++c) exp_regs.push_back(l.NewReg(et.wide()));
  }
  const ExecFn mant = FloatUnary<OpFrexpMant>().Pick(t);
  const ExecFn exp = ByFloatWidth<FrexpPick>(t.width, et.width);
  if (mant == nullptr || exp == nullptr) return FailWidth(l, inst, ext, t);
  EmitInto(l, inst, ext, mant, t, mant_regs, {ops[0].regs});
  EmitInto(l, inst, ext, exp, t, exp_regs, {ops[0].regs});
  if (ext == GLSLstd450Frexp) {
    StoreThrough(l, inst, inst.operands[3], exp_type, exp_regs);
  }
  return true;
}

bool LowerLdexp(Lowerer& l, const spirv::Inst& inst, uint32_t ext) {
  const std::vector<Val> ops = Operands(l, inst);
  if (l.failed()) return true;
  const ScalarType t = ScalarOf(l, inst.result_type);
  const ScalarType et = ScalarOf(l, ops[1].type_id);
  const ExecFn fn = ByFloatWidth<LdexpPick>(t.width, et.width);
  if (!t.is_float() || fn == nullptr) return FailWidth(l, inst, ext, t);
  const std::vector<uint32_t> dst =
      l.Define(inst.result_id, inst.result_type).regs;
  EmitInto(l, inst, ext, fn, t, dst, RegsOf(ops));
  return true;
}

// Packs: one instruction reading every component.
bool LowerPack(Lowerer& l, const spirv::Inst& inst, uint32_t ext, ExecFn fn) {
  const std::vector<Val> ops = Operands(l, inst);
  if (l.failed()) return true;
  const std::vector<uint32_t> dst =
      l.Define(inst.result_id, inst.result_type).regs;
  std::vector<std::vector<uint32_t>> srcs;
  for (uint32_t r : ops[0].regs) srcs.push_back({r});
  const ScalarType t = ScalarOf(l, ops[0].type_id);
  EmitInto(l, inst, ext, fn, t, dst, srcs);
  return true;
}

// Unpacks: one instruction per result component.
bool LowerUnpack(Lowerer& l, const spirv::Inst& inst, uint32_t ext,
                 std::vector<ExecFn> per_component) {
  const std::vector<Val> ops = Operands(l, inst);
  if (l.failed()) return true;
  const std::vector<uint32_t> dst =
      l.Define(inst.result_id, inst.result_type).regs;
  const ScalarType t = ScalarOf(l, inst.result_type);
  for (size_t c = 0; c < dst.size() && c < per_component.size(); ++c) {
    EmitInto(l, inst, ext, per_component[c], t, {dst[c]}, {ops[0].regs});
  }
  return true;
}

}  // namespace

bool LowerGlslStd450(Lowerer& l, const spirv::Inst& inst) {
  if (inst.opcode != spv::Op::OpExtInst || inst.operands.size() < 2 ||
      !l.module().IsGlslStd450(inst.operands[0])) {
    return false;
  }
  const uint32_t ext = inst.operands[1];
  switch (ext) {
    // Rounding and sign.
    case GLSLstd450Round:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpRound>());
    case GLSLstd450RoundEven:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpRoundEven>());
    case GLSLstd450Trunc:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpTrunc>());
    case GLSLstd450FAbs:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpFAbs>());
    case GLSLstd450SAbs:
      return LowerComponentwise(l, inst, ext, IntUnary<OpSAbs, WS_SIGNED>());
    case GLSLstd450FSign:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpFSign>());
    case GLSLstd450SSign:
      return LowerComponentwise(l, inst, ext, IntUnary<OpSSign, WS_SIGNED>());
    case GLSLstd450Floor:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpFloor>());
    case GLSLstd450Ceil:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpCeil>());
    case GLSLstd450Fract:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpFract>());
    // Angles and trigonometry.
    case GLSLstd450Radians:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpRadians>());
    case GLSLstd450Degrees:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpDegrees>());
    case GLSLstd450Sin: {
      HandlerSet set = FloatUnary<OpSin>();
      set.f32 = &ExecTrigF32<&SinFloats>;
      return LowerComponentwise(l, inst, ext, set);
    }
    case GLSLstd450Cos: {
      HandlerSet set = FloatUnary<OpCos>();
      set.f32 = &ExecTrigF32<&CosFloats>;
      return LowerComponentwise(l, inst, ext, set);
    }
    case GLSLstd450Tan:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpTan>());
    case GLSLstd450Asin:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpAsin>());
    case GLSLstd450Acos:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpAcos>());
    case GLSLstd450Atan:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpAtan>());
    case GLSLstd450Sinh:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpSinh>());
    case GLSLstd450Cosh:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpCosh>());
    case GLSLstd450Tanh:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpTanh>());
    case GLSLstd450Asinh:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpAsinh>());
    case GLSLstd450Acosh:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpAcosh>());
    case GLSLstd450Atanh:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpAtanh>());
    case GLSLstd450Atan2:
      return LowerComponentwise(l, inst, ext, FloatBinary<OpAtan2>());
    // Exponentials.
    case GLSLstd450Pow:
      return LowerComponentwise(l, inst, ext, FloatBinary<OpPow>());
    case GLSLstd450Exp:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpExp>());
    case GLSLstd450Log:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpLog>());
    case GLSLstd450Exp2:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpExp2>());
    case GLSLstd450Log2:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpLog2>());
    case GLSLstd450Sqrt:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpSqrt>());
    case GLSLstd450InverseSqrt:
      return LowerComponentwise(l, inst, ext, FloatUnary<OpInverseSqrt>());
    // Matrices.
    case GLSLstd450Determinant:
    case GLSLstd450MatrixInverse:
      return LowerMatrix(l, inst, ext);
    // Split into parts.
    case GLSLstd450Modf:
    case GLSLstd450ModfStruct:
      return LowerModf(l, inst, ext);
    case GLSLstd450Frexp:
    case GLSLstd450FrexpStruct:
      return LowerFrexp(l, inst, ext);
    case GLSLstd450Ldexp:
      return LowerLdexp(l, inst, ext);
    // Min, max, clamp (N*: the non-NaN operand wins).
    case GLSLstd450FMin:
    case GLSLstd450NMin:
      return LowerComponentwise(l, inst, ext, FloatBinary<OpFMin>());
    case GLSLstd450FMax:
    case GLSLstd450NMax:
      return LowerComponentwise(l, inst, ext, FloatBinary<OpFMax>());
    case GLSLstd450FClamp:
    case GLSLstd450NClamp:
      return LowerComponentwise(l, inst, ext, FloatTernary<OpFClamp>());
    case GLSLstd450UMin:
      return LowerComponentwise(l, inst, ext, IntBinary<OpIMin, WS_UNSIGNED>());
    case GLSLstd450SMin:
      return LowerComponentwise(l, inst, ext, IntBinary<OpIMin, WS_SIGNED>());
    case GLSLstd450UMax:
      return LowerComponentwise(l, inst, ext, IntBinary<OpIMax, WS_UNSIGNED>());
    case GLSLstd450SMax:
      return LowerComponentwise(l, inst, ext, IntBinary<OpIMax, WS_SIGNED>());
    case GLSLstd450UClamp:
      return LowerComponentwise(l, inst, ext,
                                IntTernary<OpIClamp, WS_UNSIGNED>());
    case GLSLstd450SClamp:
      return LowerComponentwise(l, inst, ext,
                                IntTernary<OpIClamp, WS_SIGNED>());
    // Interpolation between values.
    case GLSLstd450FMix:
      return LowerComponentwise(l, inst, ext, FloatTernary<OpFMix>());
    case GLSLstd450Step:
      return LowerComponentwise(l, inst, ext, FloatBinary<OpStep>());
    case GLSLstd450SmoothStep:
      return LowerComponentwise(l, inst, ext, FloatTernary<OpSmoothStep>());
    case GLSLstd450Fma: {
      HandlerSet set = FloatTernary<OpFma>();
      set.f16 = &ExecTernary<Half, Half, Half, Half, &HalfFma>;
      return LowerComponentwise(l, inst, ext, set);
    }
    // Packing.
    case GLSLstd450PackSnorm4x8:
      return LowerPack(l, inst, ext, &ExecPack4x8<true>);
    case GLSLstd450PackUnorm4x8:
      return LowerPack(l, inst, ext, &ExecPack4x8<false>);
    case GLSLstd450PackSnorm2x16:
      return LowerPack(
          l, inst, ext,
          &ExecBinary<uint32_t, float, float, &Pack2x16<&PackSnorm16>>);
    case GLSLstd450PackUnorm2x16:
      return LowerPack(
          l, inst, ext,
          &ExecBinary<uint32_t, float, float, &Pack2x16<&PackUnorm16>>);
    case GLSLstd450PackHalf2x16:
      return LowerPack(
          l, inst, ext,
          &ExecBinary<uint32_t, float, float, &Pack2x16<&PackHalf>>);
    case GLSLstd450PackDouble2x32:
      return LowerPack(
          l, inst, ext,
          &ExecBinary<uint64_t, uint32_t, uint32_t, &PackDouble2x32>);
    case GLSLstd450UnpackSnorm2x16:
      return LowerUnpack(l, inst, ext,
                         {&ExecUnary<float, uint32_t, &UnpackSnorm16<0>>,
                          &ExecUnary<float, uint32_t, &UnpackSnorm16<1>>});
    case GLSLstd450UnpackUnorm2x16:
      return LowerUnpack(l, inst, ext,
                         {&ExecUnary<float, uint32_t, &UnpackUnorm16<0>>,
                          &ExecUnary<float, uint32_t, &UnpackUnorm16<1>>});
    case GLSLstd450UnpackHalf2x16:
      return LowerUnpack(l, inst, ext,
                         {&ExecUnary<float, uint32_t, &UnpackHalf<0>>,
                          &ExecUnary<float, uint32_t, &UnpackHalf<1>>});
    case GLSLstd450UnpackSnorm4x8:
      return LowerUnpack(l, inst, ext,
                         {&ExecUnary<float, uint32_t, &UnpackSnorm8<0>>,
                          &ExecUnary<float, uint32_t, &UnpackSnorm8<1>>,
                          &ExecUnary<float, uint32_t, &UnpackSnorm8<2>>,
                          &ExecUnary<float, uint32_t, &UnpackSnorm8<3>>});
    case GLSLstd450UnpackUnorm4x8:
      return LowerUnpack(l, inst, ext,
                         {&ExecUnary<float, uint32_t, &UnpackUnorm8<0>>,
                          &ExecUnary<float, uint32_t, &UnpackUnorm8<1>>,
                          &ExecUnary<float, uint32_t, &UnpackUnorm8<2>>,
                          &ExecUnary<float, uint32_t, &UnpackUnorm8<3>>});
    case GLSLstd450UnpackDouble2x32:
      return LowerUnpack(
          l, inst, ext,
          {&ExecUnary<uint32_t, uint64_t, &UnpackDoubleWord<0>>,
           &ExecUnary<uint32_t, uint64_t, &UnpackDoubleWord<1>>});
    // Geometry.
    case GLSLstd450Length:
    case GLSLstd450Distance:
    case GLSLstd450Cross:
    case GLSLstd450Normalize:
    case GLSLstd450FaceForward:
    case GLSLstd450Reflect:
    case GLSLstd450Refract:
      return LowerGeometric(l, inst, ext);
    // Bit scans: the operand's width picks the handler.
    case GLSLstd450FindILsb:
      return LowerComponentwise(l, inst, ext,
                                IntUnary<OpFindILsb, WS_UNSIGNED>(), true);
    case GLSLstd450FindSMsb:
      return LowerComponentwise(l, inst, ext, IntUnary<OpFindSMsb, WS_SIGNED>(),
                                true);
    case GLSLstd450FindUMsb:
      return LowerComponentwise(l, inst, ext,
                                IntUnary<OpFindUMsb, WS_UNSIGNED>(), true);
    // Fragment-only: they read interpolated inputs at other positions.
    case GLSLstd450InterpolateAtCentroid:
    case GLSLstd450InterpolateAtSample:
    case GLSLstd450InterpolateAtOffset:
      l.Fail(l.UnsupportedAt(inst, NameOf(ext)));
      return true;
    case GLSLstd450IMix:
      l.Fail(l.UnsupportedAt(inst, "GLSL.std.450 IMix (reserved number 47)"));
      return true;
    default:
      l.Fail(l.UnsupportedAt(
          inst, "GLSL.std.450 instruction number " + std::to_string(ext)));
      return true;
  }
}

}  // namespace warpsim::simt
