#include "base/half.h"

#include <bit>
#include <cmath>

namespace warpsim {
namespace {

// Rounds the integer `value` shifted right by `shift` bits.
uint32_t ShiftRound(uint64_t value, uint32_t shift, HalfRounding rounding) {
  if (shift == 0) return static_cast<uint32_t>(value);
  if (shift >= 64) return 0;
  uint64_t q = value >> shift;
  if (rounding == HalfRounding::kNearestEven) {
    const uint64_t rem = value & ((1ull << shift) - 1);
    const uint64_t half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;
  }
  return static_cast<uint32_t>(q);
}

// Rounds sign * mant * 2^exp (mant an integer with its top bit at bit
// `top`) to half precision.
uint16_t RoundToHalf(uint16_t sign, uint64_t mant, int exp, int top,
                     HalfRounding rounding) {
  if (mant == 0) return sign;
  // Value = mant * 2^exp; its leading bit has weight 2^(exp + top).
  const int e = exp + top;  // unbiased exponent of the leading bit
  if (e > 15) {
    return static_cast<uint16_t>(
        sign | (rounding == HalfRounding::kTowardZero ? 0x7bffu : 0x7c00u));
  }
  // Normal halves keep 11 significant bits; subnormals have a fixed
  // quantum of 2^-24.
  const int quantum_exp = e >= -14 ? e - 10 : -24;
  const int shift = quantum_exp - exp;
  uint32_t q = shift >= 0
                   ? ShiftRound(mant, static_cast<uint32_t>(shift), rounding)
                   : static_cast<uint32_t>(mant << -shift);
  // q is the significand in units of 2^quantum_exp (may carry to 2^11).
  if (e < -14)
    return static_cast<uint16_t>(sign | q);  // subnormal (or min normal)
  uint32_t biased = static_cast<uint32_t>(e + 15);
  if (q >= 0x800u) {  // rounding carried into the next binade
    q >>= 1;
    ++biased;
  }
  if (biased >= 0x1f) {
    return static_cast<uint16_t>(
        sign | (rounding == HalfRounding::kTowardZero ? 0x7bffu : 0x7c00u));
  }
  return static_cast<uint16_t>(sign | (biased << 10) | (q & 0x3ffu));
}

}  // namespace

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 0x1f)
    return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t FloatToHalf(float f, HalfRounding rounding) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t exp = (x >> 23) & 0xffu;
  const uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) {
    return static_cast<uint16_t>(sign | 0x7c00u |
                                 (mant ? 0x200u | (mant >> 13) : 0u));
  }
  if (exp == 0) return sign;  // float subnormals are far below half's range
  return RoundToHalf(sign, mant | 0x800000u, static_cast<int>(exp) - 150, 23,
                     rounding);
}

uint16_t DoubleToHalf(double d) {
  const uint64_t x = std::bit_cast<uint64_t>(d);
  const uint16_t sign = static_cast<uint16_t>((x >> 48) & 0x8000u);
  const uint32_t exp = static_cast<uint32_t>((x >> 52) & 0x7ffu);
  const uint64_t mant = x & ((1ull << 52) - 1);
  if (exp == 0x7ff) {
    return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  }
  if (exp == 0) return sign;  // double subnormals are far below half's range
  return RoundToHalf(sign, mant | (1ull << 52), static_cast<int>(exp) - 1075,
                     52, HalfRounding::kNearestEven);
}

}  // namespace warpsim
