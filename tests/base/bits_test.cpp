// base/bits.h: PopCount32 and PopCount64 agree with std::popcount on edge
// masks and a sweep of pseudo-random ones (whichever implementation the
// target gets).
#include "base/bits.h"

#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>

TEST_CASE("PopCount32 counts the set bits of a lane mask", "[base][bits]") {
  STATIC_REQUIRE(warpsim::PopCount32(0u) == 0);
  STATIC_REQUIRE(warpsim::PopCount32(~0u) == 32);
  STATIC_REQUIRE(warpsim::PopCount32(0x80000001u) == 2);
  for (uint32_t bit = 0; bit < 32; ++bit) {
    CHECK(warpsim::PopCount32(1u << bit) == 1);
    CHECK(warpsim::PopCount32(~(1u << bit)) == 31);
  }
  uint32_t x = 0x12345678u;
  for (int i = 0; i < 100000; ++i) {
    x = x * 1664525u + 1013904223u;
    REQUIRE(warpsim::PopCount32(x) == static_cast<uint32_t>(std::popcount(x)));
  }
}

TEST_CASE("PopCount64 counts the set bits of a slot mask", "[base][bits]") {
  STATIC_REQUIRE(warpsim::PopCount64(0u) == 0);
  STATIC_REQUIRE(warpsim::PopCount64(~uint64_t{0}) == 64);
  STATIC_REQUIRE(warpsim::PopCount64(0x8000000000000001u) == 2);
  for (uint32_t bit = 0; bit < 64; ++bit) {
    CHECK(warpsim::PopCount64(uint64_t{1} << bit) == 1);
    CHECK(warpsim::PopCount64(~(uint64_t{1} << bit)) == 63);
  }
  uint64_t x = 0x123456789abcdef0u;
  for (int i = 0; i < 100000; ++i) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    REQUIRE(warpsim::PopCount64(x) == static_cast<uint32_t>(std::popcount(x)));
  }
}
