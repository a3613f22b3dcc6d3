#include "simt/trig.h"

#include <bit>
#include <cmath>
#include <cstdint>

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

}  // namespace

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
