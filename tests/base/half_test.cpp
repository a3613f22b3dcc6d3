// Half-precision conversions (base/half.cpp).
#include "base/half.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

using warpsim::DoubleToHalf;
using warpsim::FloatToHalf;
using warpsim::HalfRounding;
using warpsim::HalfToFloat;

TEST_CASE("every half round-trips through float", "[base][half]") {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = HalfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    CHECK(FloatToHalf(f) == h);
    CHECK(FloatToHalf(f, HalfRounding::kTowardZero) == h);
    CHECK(DoubleToHalf(f) == h);
  }
}

TEST_CASE("rounding modes", "[base][half]") {
  struct Case {
    float in;
    uint16_t nearest, toward_zero;
  };
  const Case cases[] = {
      {1.0f, 0x3c00, 0x3c00},
      {1.0f + 1.0f / 2048, 0x3c00, 0x3c00},  // tie -> even
      {1.0f + 3.0f / 2048, 0x3c02, 0x3c01},  // tie -> even (up)
      {1.0f + 1.5f / 1024, 0x3c02, 0x3c01},  // above halfway
      {-2.0009765625f, 0xc000, 0xc000},      // 2 + 1/1024 ties to even
      {65504.0f, 0x7bff, 0x7bff},            // largest finite
      {65520.0f, 0x7c00, 0x7bff},            // rounds to inf / max
      {1e10f, 0x7c00, 0x7bff},
      {5.9604645e-08f, 0x0001, 0x0001},  // smallest subnormal
      {2.9802322e-08f, 0x0000, 0x0000},  // half of it: tie to 0
      {4.0e-08f, 0x0001, 0x0000},
      {6.097555e-05f, 0x03ff, 0x03ff},   // largest subnormal
      {6.1035156e-05f, 0x0400, 0x0400},  // smallest normal
      {-0.0f, 0x8000, 0x8000},
  };
  for (const Case& c : cases) {
    INFO(c.in);
    CHECK(FloatToHalf(c.in) == c.nearest);
    CHECK(FloatToHalf(c.in, HalfRounding::kTowardZero) == c.toward_zero);
  }
  CHECK(FloatToHalf(std::numeric_limits<float>::infinity()) == 0x7c00);
  CHECK((FloatToHalf(std::nanf("")) & 0x7e00) == 0x7e00);
}

TEST_CASE("double rounds once", "[base][half]") {
  // Just above the halfway point between 1 and its successor: a float
  // rounding first would land on the tie and round to even (down).
  const double d = 1.0 + 1.0 / 2048 + 1.0 / (1ull << 40);
  CHECK(DoubleToHalf(d) == 0x3c01);
  CHECK(DoubleToHalf(-65504.0) == 0xfbff);
}
