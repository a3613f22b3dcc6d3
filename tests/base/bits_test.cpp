// base/bits.h: PopCount32 agrees with std::popcount on edge masks and a
// sweep of pseudo-random ones (whichever implementation the target gets).
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
