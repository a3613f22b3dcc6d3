// Bit counting for the executor's lane masks.
#ifndef WARPSIM_BASE_BITS_H_
#define WARPSIM_BASE_BITS_H_

#include <bit>
#include <cstdint>

namespace warpsim {

// Number of set bits of a 32-bit lane mask. std::popcount compiles to a call
// into libgcc (__popcountdi2) when the target lacks the POPCNT instruction,
// as Debian's baseline x86-64 does; the executor counts active lanes on
// every warp instruction, so without POPCNT this is the inline
// bit-parallel count instead of a call.
constexpr uint32_t PopCount32(uint32_t x) {
#if defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__))
  return static_cast<uint32_t>(std::popcount(x));
#else
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return (x * 0x01010101u) >> 24;
#endif
}

// The same for 64-bit masks (the timing model's warp slots).
constexpr uint32_t PopCount64(uint64_t x) {
#if defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__))
  return static_cast<uint32_t>(std::popcount(x));
#else
  x = x - ((x >> 1) & 0x5555555555555555u);
  x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
  return static_cast<uint32_t>((x * 0x0101010101010101u) >> 56);
#endif
}

}  // namespace warpsim

#endif  // WARPSIM_BASE_BITS_H_
