#include "simt/trig.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>

// How: for |x| in [2^-20, 2^17] the argument is reduced by multiples of pi/2
// in double precision (pi/2 split in three parts, the first with 33
// significant bits so that k * kPiOver2Hi is exact for |k| < 2^20) and the
// sine or cosine of the remainder r, |r| <= pi/4, is a Taylor polynomial
// (sine to r^15, cosine to r^16: truncation below 2^-53 relative). The
// result y is within about 2^-50 (relative) of the true value, so rounding it
// to float gives what rounding the correctly rounded libm value gives
// unless y lies near the midpoint between two floats; there (about one call
// in 2000), and for arguments outside the range, the libm function decides.
// trig_test.cpp checks the equality on a sweep of inputs; an exhaustive run
// over all 2^32 floats is the test's hidden case "[.exhaustive]".
//
// SinFloats/CosFloats compute the same values for a warp's lanes at once,
// in vectors (GCC vector extensions): the same reduction and polynomials,
// both polynomials for every lane and the quadrant picking one by bit
// operations, so that no branch depends on the data. Their test for "near a
// midpoint" looks at the 29 bits of y that rounding to float drops: it
// sends a lane to libm when they are within 2^18 units (of y's last place)
// of half of 2^29, which covers every y that NearMidpoint flags
// (NearMidpoint's tolerance is under 2^17 units), so the lanes left to the
// polynomial are ones SinFloat also leaves to it. The vectors are 16 or 32
// lanes long, so that the compiler interleaves several independent
// dependency chains: the polynomials are long chains of dependent
// operations. trig.cpp is compiled with -ffp-contract=off: a multiply-add
// fused on a target with FMA (AVX-512 here) would round differently.

namespace warpsim::simt {
namespace {

// pi/2 = kPiOver2Hi + kPiOver2Mid + kPiOver2Lo (to about 2^-140); the
// hexadecimal digits are pi/2 rounded to 33 bits, then the remainders
// rounded to double.
constexpr double kPiOver2Hi = 0x1.921fb54400000p+0;
constexpr double kPiOver2Mid = 0x1.0b4611a626331p-34;
constexpr double kPiOver2Lo = 0x1.1701b839a2520p-88;
constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;

constexpr double InvFactorial(int n) {
  double f = 1;
  for (int i = 2; i <= n; ++i) f *= i;
  return 1.0 / f;
}

// sin(r) for |r| <= pi/4: r - r^3/3! + ... - r^15/15!.
double SinPoly(double r) {
  const double r2 = r * r;
  double p = -InvFactorial(15);
  p = p * r2 + InvFactorial(13);
  p = p * r2 - InvFactorial(11);
  p = p * r2 + InvFactorial(9);
  p = p * r2 - InvFactorial(7);
  p = p * r2 + InvFactorial(5);
  p = p * r2 - InvFactorial(3);
  return r + r * r2 * p;
}

// cos(r) for |r| <= pi/4: 1 - r^2/2! + ... + r^16/16!.
double CosPoly(double r) {
  const double r2 = r * r;
  double p = InvFactorial(16);
  p = p * r2 - InvFactorial(14);
  p = p * r2 + InvFactorial(12);
  p = p * r2 - InvFactorial(10);
  p = p * r2 + InvFactorial(8);
  p = p * r2 - InvFactorial(6);
  p = p * r2 + InvFactorial(4);
  p = p * r2 - InvFactorial(2);
  return 1.0 + r2 * p;
}

// True when rounding y (a nonzero value within 2^-50 relative of the exact
// result) to float could differ from rounding the exact result: y is within
// 2^-36 relative of a midpoint between f = float(y) and a neighbour.
bool NearMidpoint(double y, float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const double here = f;
  const double up = std::bit_cast<float>(bits + 1);    // larger magnitude
  const double down = std::bit_cast<float>(bits - 1);  // smaller magnitude
  const double tol = std::fabs(y) * 0x1p-36;
  return std::fabs(y - (here + up) * 0.5) < tol ||
         std::fabs(y - (here + down) * 0.5) < tol;
}

// quadrant 0..3 of x and the remainder r = x - k * pi/2, or false when x is
// outside the range the reduction is exact enough for.
bool Reduce(float x, int* quadrant, double* r) {
  const double a = std::fabs(static_cast<double>(x));
  if (!(a >= 0x1p-20 && a <= 0x1p17)) return false;  // NaN too
  const double xd = x;
  // Round to nearest by adding and subtracting 1.5 * 2^52 (exact for
  // |x * 2/pi| < 2^51): std::nearbyint is a library call on baseline x86-64.
  constexpr double kRound = 0x1.8p52;
  const double k = (xd * kTwoOverPi + kRound) - kRound;
  *r = ((xd - k * kPiOver2Hi) - k * kPiOver2Mid) - k * kPiOver2Lo;
  *quadrant = static_cast<int>(static_cast<int64_t>(k) & 3);
  return true;
}

// N lanes of float, double, 64-bit and 32-bit integers (GCC vector
// extensions; a vector_size cannot depend on a template parameter, hence one
// specialization per length). The compiler splits each operation into as
// many of the target's vector operations as it takes.
template <int N>
struct Lanes;
template <>
struct Lanes<16> {
  using F = float __attribute__((vector_size(64)));
  using D = double __attribute__((vector_size(128)));
  using U = uint64_t __attribute__((vector_size(128)));
  using W = int32_t __attribute__((vector_size(64)));
};
template <>
struct Lanes<32> {
  using F = float __attribute__((vector_size(128)));
  using D = double __attribute__((vector_size(256)));
  using U = uint64_t __attribute__((vector_size(256)));
  using W = int32_t __attribute__((vector_size(128)));
};

// sin(x + shift * pi/2) of N lanes (shift 0: sine, 1: cosine) rounded to
// float; returns the lanes (bit i: lane i) that need the libm function.
// Always inlined, so that the caller's target decides the instructions.
template <int N>
[[gnu::always_inline]] inline uint32_t SinShifted(const float* x, float* out,
                                                  uint64_t shift) {
  using F = typename Lanes<N>::F;
  using D = typename Lanes<N>::D;
  using U = typename Lanes<N>::U;
  using W = typename Lanes<N>::W;
  F xf;
  std::memcpy(&xf, x, sizeof(xf));
  const D xd = __builtin_convertvector(xf, D);
  // Reduce: as Reduce() does; t holds k in its low mantissa bits.
  constexpr double kRound = 0x1.8p52;
  const D t = xd * kTwoOverPi + kRound;
  const D k = t - kRound;
  const D r = ((xd - k * kPiOver2Hi) - k * kPiOver2Mid) - k * kPiOver2Lo;
  const U q = __builtin_bit_cast(U, t) + shift;
  // SinPoly and CosPoly, the same operations in the same order (written
  // out: a loop over the coefficients is not unrolled at -O2).
  const D r2 = r * r;
  D ps = D{} - InvFactorial(15);  // 0 - c is exactly -c
  ps = ps * r2 + InvFactorial(13);
  ps = ps * r2 - InvFactorial(11);
  ps = ps * r2 + InvFactorial(9);
  ps = ps * r2 - InvFactorial(7);
  ps = ps * r2 + InvFactorial(5);
  ps = ps * r2 - InvFactorial(3);
  D pc = D{} + InvFactorial(16);
  pc = pc * r2 - InvFactorial(14);
  pc = pc * r2 + InvFactorial(12);
  pc = pc * r2 - InvFactorial(10);
  pc = pc * r2 + InvFactorial(8);
  pc = pc * r2 - InvFactorial(6);
  pc = pc * r2 + InvFactorial(4);
  pc = pc * r2 - InvFactorial(2);
  const U s = __builtin_bit_cast(U, r + r * r2 * ps);
  const U c = __builtin_bit_cast(U, 1.0 + r2 * pc);
  // Odd quadrants take the cosine; quadrants 2 and 3 negate.
  const U odd = -(q & 1);
  const U bits = ((c & odd) | (s & ~odd)) ^ ((q & 2) << 62);
  const F f = __builtin_convertvector(__builtin_bit_cast(D, bits), F);
  std::memcpy(out, &f, sizeof(f));
  // Which lanes need libm, on 32-bit words: the words of x, and the low and
  // high words of y. Every value below is under 2^31 in magnitude, so
  // a < b is the sign of a - b: no vector compares (GCC 12 turns compares
  // of vectors wider than the target's into scalar code).
  W xw;
  std::memcpy(&xw, x, sizeof(xw));
  const W lo = __builtin_convertvector(bits & 0xffffffffu, W);
  const W hi = __builtin_convertvector(bits >> 32, W);
  // |x| outside [2^-20, 2^17] (NaN too).
  constexpr int32_t kLow = std::bit_cast<int32_t>(0x1p-20f);
  constexpr int32_t kHigh = std::bit_cast<int32_t>(0x1p17f);
  const W ax = xw & 0x7fffffff;
  const W outside = (ax - kLow) | (kHigh - ax);
  // The 29 bits rounding drops within 2^18 of the midpoint 2^28.
  const W dropped = lo & ((1 << 29) - 1);
  const W near = ~((dropped - ((1 << 28) - (1 << 18) + 1)) |
                   (((1 << 28) + (1 << 18) - 1) - dropped));
  // |y| < 2^-100 (y = 0 too): the low word of 2^-100 is zero.
  constexpr int32_t kTiny = std::bit_cast<int64_t>(0x1p-100) >> 32;
  const W tiny = (hi & 0x7fffffff) - kTiny;
  // Sign bits: the lanes that need libm.
  const W fallback = outside | near | tiny;
  uint32_t lanes = 0;
  for (int i = 0; i < N; ++i) {
    lanes |= (static_cast<uint32_t>(fallback[i]) >> 31) << i;
  }
  return lanes;
}

// out[i] = float(libm(double(x[i]))) for the lanes in `lanes`, n <= 32,
// N lanes at a time.
template <int N, double (*Libm)(double)>
[[gnu::always_inline]] inline void ShiftedFloats(const float* x, float* out,
                                                 uint32_t n, uint32_t lanes,
                                                 uint64_t shift) {
  for (uint32_t base = 0; base < n && (lanes >> base) != 0; base += N) {
    const uint32_t here =
        (lanes >> base) & static_cast<uint32_t>((uint64_t{1} << N) - 1);
    if (here == 0) continue;
    float in[N] = {};
    float res[N];
    const uint32_t count = n - base < N ? n - base : N;
    std::memcpy(in, x + base, count * sizeof(float));
    const uint32_t fallback = SinShifted<N>(in, res, shift);
    for (uint32_t m = here & ~fallback; m != 0; m &= m - 1) {
      const uint32_t i = static_cast<uint32_t>(std::countr_zero(m));
      std::memcpy(out + base + i, &res[i], sizeof(float));  // may alias x
    }
    for (uint32_t m = here & fallback; m != 0; m &= m - 1) {
      const uint32_t i = static_cast<uint32_t>(std::countr_zero(m));
      // sin(+-0) = +-0 and cos(+-0) = 1 exactly: shaders often take the
      // sine of 0 (a loop's first angle), outside the polynomial's range.
      const float v = in[i] == 0 ? (shift == 0 ? in[i] : 1.0f)
                                 : static_cast<float>(Libm(double{in[i]}));
      std::memcpy(out + base + i, &v, sizeof(float));
    }
  }
}

double LibmSin(double x) { return std::sin(x); }
double LibmCos(double x) { return std::cos(x); }

// One function per instruction set, and the widest the CPU runs picked
// once (the results are the same bits on each: the same IEEE operations).
// On baseline x86-64 (SSE2) 16 lanes at a time are fastest; with AVX2 or
// AVX-512 all 32 (a measured choice: about 2x, 3x and 4x faster per lane
// than SinFloat's loop over lanes).
using BatchFn = void (*)(const float*, float*, uint32_t, uint32_t);
template <double (*Libm)(double), uint64_t kShift>
void BatchBaseline(const float* x, float* out, uint32_t n, uint32_t lanes) {
  ShiftedFloats<16, Libm>(x, out, n, lanes, kShift);
}
#if defined(__x86_64__) && defined(__GNUC__)
template <double (*Libm)(double), uint64_t kShift>
__attribute__((target("avx2"))) void BatchAvx2(const float* x, float* out,
                                               uint32_t n, uint32_t lanes) {
  ShiftedFloats<32, Libm>(x, out, n, lanes, kShift);
}
template <double (*Libm)(double), uint64_t kShift>
__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw"))) void BatchAvx512(
    const float* x, float* out, uint32_t n, uint32_t lanes) {
  ShiftedFloats<32, Libm>(x, out, n, lanes, kShift);
}
#endif

template <double (*Libm)(double), uint64_t kShift>
BatchFn BatchFor(TrigIsa isa) {
  switch (isa) {
#if defined(__x86_64__) && defined(__GNUC__)
    case TrigIsa::kAvx512:
      return &BatchAvx512<Libm, kShift>;
    case TrigIsa::kAvx2:
      return &BatchAvx2<Libm, kShift>;
#endif
    default:
      return &BatchBaseline<Libm, kShift>;
  }
}

TrigIsa BestIsa() {
  for (TrigIsa isa : {TrigIsa::kAvx512, TrigIsa::kAvx2}) {
    if (TrigIsaSupported(isa)) return isa;
  }
  return TrigIsa::kBaseline;
}

}  // namespace

bool TrigIsaSupported(TrigIsa isa) {
  switch (isa) {
    case TrigIsa::kBaseline:
      return true;
#if defined(__x86_64__) && defined(__GNUC__)
    case TrigIsa::kAvx2:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx2");
    case TrigIsa::kAvx512:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512bw");
#endif
    default:
      return false;
  }
}

void SinFloats(const float* x, float* out, uint32_t n, uint32_t lanes) {
  static const BatchFn batch = BatchFor<&LibmSin, 0>(BestIsa());
  batch(x, out, n, lanes);
}

void CosFloats(const float* x, float* out, uint32_t n, uint32_t lanes) {
  static const BatchFn batch = BatchFor<&LibmCos, 1>(BestIsa());
  batch(x, out, n, lanes);
}

void SinFloats(TrigIsa isa, const float* x, float* out, uint32_t n,
               uint32_t lanes) {
  BatchFor<&LibmSin, 0>(isa)(x, out, n, lanes);
}

void CosFloats(TrigIsa isa, const float* x, float* out, uint32_t n,
               uint32_t lanes) {
  BatchFor<&LibmCos, 1>(isa)(x, out, n, lanes);
}

float SinFloat(float x) {
  int q = 0;
  double r = 0;
  if (!Reduce(x, &q, &r)) return static_cast<float>(std::sin(double{x}));
  double y = (q & 1) ? CosPoly(r) : SinPoly(r);
  if (q & 2) y = -y;
  const float f = static_cast<float>(y);
  if (y == 0 || NearMidpoint(y, f)) {
    return static_cast<float>(std::sin(double{x}));
  }
  return f;
}

float CosFloat(float x) {
  int q = 0;
  double r = 0;
  if (!Reduce(x, &q, &r)) return static_cast<float>(std::cos(double{x}));
  double y = (q & 1) ? SinPoly(r) : CosPoly(r);
  if (q == 1 || q == 2) y = -y;
  const float f = static_cast<float>(y);
  if (y == 0 || NearMidpoint(y, f)) {
    return static_cast<float>(std::cos(double{x}));
  }
  return f;
}

}  // namespace warpsim::simt
