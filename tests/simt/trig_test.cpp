// simt/trig: SinFloat and CosFloat equal float(std::sin(double(x))) and
// float(std::cos(double(x))) bit for bit. The default cases sweep every
// binade and the special values; "[.exhaustive]" (not run by default:
// simt_tests "[.exhaustive]", a few minutes) checks all 2^32 floats.
#include "simt/trig.h"

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>
#include <vector>

using warpsim::simt::CosFloat;
using warpsim::simt::SinFloat;

namespace {

uint32_t Bits(float f) { return std::bit_cast<uint32_t>(f); }

// The number of floats in [first, last] (bit patterns) whose results differ.
uint64_t Mismatches(uint64_t first, uint64_t last) {
  uint64_t bad = 0;
  for (uint64_t b = first; b <= last; ++b) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(b));
    const float s = static_cast<float>(std::sin(static_cast<double>(x)));
    const float c = static_cast<float>(std::cos(static_cast<double>(x)));
    if (Bits(SinFloat(x)) != Bits(s)) ++bad;
    if (Bits(CosFloat(x)) != Bits(c)) ++bad;
  }
  return bad;
}

}  // namespace

TEST_CASE("SinFloat and CosFloat round like the double libm functions",
          "[simt][trig]") {
  const float kSpecial[] = {0.0f,
                            -0.0f,
                            1e-30f,
                            std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::max(),
                            1.5707964f,
                            3.1415927f,
                            -3.1415927f,
                            4.712389f,
                            6.2831855f,
                            131072.0f,
                            131072.02f,
                            355.0f,
                            103993.0f};
  for (float x : kSpecial) {
    INFO("x = " << x);
    const float s = static_cast<float>(std::sin(static_cast<double>(x)));
    const float c = static_cast<float>(std::cos(static_cast<double>(x)));
    if (std::isnan(s)) {
      CHECK(std::isnan(SinFloat(x)));
      CHECK(std::isnan(CosFloat(x)));
    } else {
      CHECK(Bits(SinFloat(x)) == Bits(s));
      CHECK(Bits(CosFloat(x)) == Bits(c));
    }
  }
  // Every 61st float from 2^-30 to 2^20 of both signs: every binade of the
  // fast range and past both of its ends, about 2 x 14 million inputs.
  const uint32_t lo = Bits(0x1p-30f), hi = Bits(0x1p20f);
  uint64_t bad = 0, checked = 0;
  for (uint32_t sign : {0u, 0x80000000u}) {
    for (uint32_t b = lo; b <= hi; b += 61) {
      bad += Mismatches(sign | b, sign | b);
      ++checked;
    }
  }
  INFO(checked << " inputs of each sign checked");
  CHECK(bad == 0);
}

TEST_CASE("SinFloat and CosFloat equal the double libm functions on all floats",
          "[simt][trig][.exhaustive]") {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  const uint64_t total = uint64_t{1} << 32;
  std::vector<uint64_t> bad(threads, 0);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const uint64_t first = total * t / threads;
      const uint64_t last = total * (t + 1) / threads - 1;
      bad[t] = Mismatches(first, last);
    });
  }
  for (auto& th : pool) th.join();
  uint64_t sum = 0;
  for (uint64_t b : bad) sum += b;
  CHECK(sum == 0);
}
