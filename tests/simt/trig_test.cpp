// simt/trig: SinFloat and CosFloat equal float(std::sin(double(x))) and
// float(std::cos(double(x))) bit for bit. The default cases sweep every
// binade and the special values; "[.exhaustive]" (not run by default:
// simt_tests "[.exhaustive]", a few minutes) checks all 2^32 floats.
#include "simt/trig.h"

#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>
#include <vector>

using warpsim::simt::CosFloat;
using warpsim::simt::CosFloats;
using warpsim::simt::SinFloat;
using warpsim::simt::SinFloats;
using warpsim::simt::TrigIsa;
using warpsim::simt::TrigIsaSupported;

constexpr TrigIsa kIsas[] = {TrigIsa::kBaseline, TrigIsa::kAvx2,
                             TrigIsa::kAvx512};

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

// The same for SinFloats/CosFloats on 32 lanes at a time: the number of
// lanes whose result differs from float(libm(double(x))), or that were
// written although not in the lane mask.
uint64_t BatchMismatches(TrigIsa isa, uint64_t first, uint64_t last,
                         uint32_t lanes) {
  uint64_t bad = 0;
  for (uint64_t b = first; b <= last; b += 32) {
    const uint32_t n =
        static_cast<uint32_t>(std::min<uint64_t>(32, last - b + 1));
    float x[32], s[32], c[32];
    for (uint32_t i = 0; i < n; ++i) {
      x[i] = std::bit_cast<float>(static_cast<uint32_t>(b + i));
      s[i] = c[i] = 42.0f;
    }
    const uint32_t mask = n == 32 ? lanes : lanes & ((1u << n) - 1);
    SinFloats(isa, x, s, n, mask);
    CosFloats(isa, x, c, n, mask);
    for (uint32_t i = 0; i < n; ++i) {
      float want_s = 42.0f, want_c = 42.0f;
      if ((mask >> i) & 1u) {
        want_s = static_cast<float>(std::sin(static_cast<double>(x[i])));
        want_c = static_cast<float>(std::cos(static_cast<double>(x[i])));
      }
      if (Bits(s[i]) != Bits(want_s)) ++bad;
      if (Bits(c[i]) != Bits(want_c)) ++bad;
    }
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

TEST_CASE("SinFloats and CosFloats round like the double libm functions",
          "[simt][trig]") {
  // In place, as the executor calls them (the result overwrites x).
  float v[32];
  for (uint32_t i = 0; i < 32; ++i) v[i] = 0.37f * static_cast<float>(i) - 3;
  float want[32];
  for (uint32_t i = 0; i < 32; ++i) {
    want[i] = static_cast<float>(std::sin(static_cast<double>(v[i])));
  }
  SinFloats(v, v, 32, ~0u);
  for (uint32_t i = 0; i < 32; ++i) CHECK(Bits(v[i]) == Bits(want[i]));
  // Runs of 32 consecutive floats from every 4001st float in [2^-30, 2^20]
  // and from both ends of the range, with all lanes, alternate lanes and a
  // partial width, on every instruction set this CPU runs.
  const uint32_t lo = Bits(0x1p-30f), hi = Bits(0x1p20f);
  uint64_t bad = 0;
  for (TrigIsa isa : kIsas) {
    if (!TrigIsaSupported(isa)) continue;
    INFO("instruction set " << static_cast<int>(isa));
    for (uint32_t sign : {0u, 0x80000000u}) {
      for (uint32_t b = lo; b <= hi; b += 4001) {
        bad += BatchMismatches(isa, sign | b, sign | b + 31, ~0u);
      }
      for (uint32_t b : {Bits(0x1p-20f) - 16, Bits(0x1p17f) - 16}) {
        bad += BatchMismatches(isa, sign | b, sign | b + 31, ~0u);
        bad += BatchMismatches(isa, sign | b, sign | b + 31, 0x5555aaaau);
        bad += BatchMismatches(isa, sign | b, sign | b + 22, 0xfff0ffffu);
      }
    }
    bad += BatchMismatches(isa, 0x7f800000u, 0x7f800000u + 31, ~0u);
    bad += BatchMismatches(isa, 0, 31, ~0u);  // zero, subnormals
    CHECK(bad == 0);
  }
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
      for (TrigIsa isa : kIsas) {
        if (TrigIsaSupported(isa)) {
          bad[t] += BatchMismatches(isa, first, last, ~0u);
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  uint64_t sum = 0;
  for (uint64_t b : bad) sum += b;
  CHECK(sum == 0);
}
