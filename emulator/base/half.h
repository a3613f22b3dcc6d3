// IEEE 754 binary16 conversions shared by the scene (buffer data) and the
// executor (16-bit float arithmetic).
#ifndef WARPSIM_BASE_HALF_H_
#define WARPSIM_BASE_HALF_H_

#include <cstdint>

namespace warpsim {

// Exact: every half is a float.
float HalfToFloat(uint16_t h);

enum class HalfRounding {
  kNearestEven,  // IEEE default; what shader arithmetic does
  kTowardZero,   // truncate the mantissa (Amber's float16 buffer data)
};

// Rounds a float to half precision; overflow gives infinity (with
// kTowardZero: the largest finite half), NaN stays a quiet NaN.
uint16_t FloatToHalf(float f,
                     HalfRounding rounding = HalfRounding::kNearestEven);

// Rounds a double to half precision once (no double rounding through
// float), to nearest even.
uint16_t DoubleToHalf(double d);

}  // namespace warpsim

#endif  // WARPSIM_BASE_HALF_H_
