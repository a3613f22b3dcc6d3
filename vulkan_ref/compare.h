// Element-by-element comparison of one buffer or image as two runners left
// it (`warpsim-vkref crosscheck`).
//
// The rule depends on how a component is stored (README.md, "Comparison
// rules"):
//   - integer storage (UINT, SINT, UNORM, SNORM, sRGB, USCALED, SSCALED,
//     depth UNORM, stencil): the stored bits must be equal;
//   - 32- and 64-bit floats: at most 3 ULP apart. From identical inputs one
//     correctly rounded operation (add, mul, conversions, ...) gives
//     identical results; the loosest core operation of REFERENCE §8.7 is
//     OpFDiv at 2.5 ULP, so one side at 2.5 ULP and the other correctly
//     rounded (0.5 ULP) differ by at most 3 ULP. Longer chains and the
//     "inherited" or absolute-error functions are not bounded by this rule:
//     a file whose values differ more is a listed difference, never a
//     wider tolerance;
//   - 16-bit and unsigned 11/10-bit floats: at most 1 ULP of the stored
//     format, as the conversion into it may round a 32-bit value either way
//     and inputs 3 f32-ULP apart can straddle a rounding boundary;
//   - floats: denormals equal zero (Vulkan lets a device flush them unless
//     the shader asks for DenormPreserve), +0 equals -0, NaN equals any NaN,
//     an infinity only the same infinity.
// Padding bytes between components are not compared.
#ifndef WARPSIM_VULKAN_REF_COMPARE_H_
#define WARPSIM_VULKAN_REF_COMPARE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "scene/scene.h"

namespace warpsim::vkref {

// ULPs two values of component `c` may be apart; 0 for integer storage.
uint32_t AllowedUlps(const scene::Component& c);

// How the format is compared, in words ("exact", "float32 <= 3 ULP", ...).
std::string DescribeRule(const scene::ElementFormat& format);

// Distance in ULPs of two raw float patterns of component `c` (after the
// denormal/zero rule); nullopt when they are never equal (NaN vs number,
// infinities of other sign, infinity vs finite).
std::optional<uint64_t> UlpDistance(uint64_t a, uint64_t b,
                                    const scene::Component& c);

// The stored bits of component `c` of one element.
uint64_t RawComponentBits(std::span<const uint8_t> element,
                          const scene::Component& c, uint32_t pack_bits);

struct ElementDifference {
  uint64_t element = 0;  // index in the buffer (texel: y * width + x)
  uint32_t x = 0, y = 0, level = 0;  // for images
  uint32_t component = 0;
  double device = 0, emulator = 0;  // the component values
};

struct BufferComparison {
  std::string name;
  std::string kind;  // "image" or "buffer"
  std::string format;
  uint32_t width = 0, height = 0;  // images
  uint64_t elements = 0;
  uint64_t device_bytes = 0, emulator_bytes = 0;
  std::string rule;  // DescribeRule
  bool agree = true;
  uint64_t differing_elements = 0;
  double max_difference = 0;  // largest |device - emulator| of a component
  uint64_t max_ulps = 0;      // largest float distance (agreeing or not)
  std::optional<ElementDifference> first;
  std::string note;  // why the sizes could not be compared, ...
  // One flag per element of the first level (images), for the difference
  // image.
  std::vector<bool> differs;
};

// Compares the bytes two runners left in buffer `shape` (its current
// shape). Sizes that differ are a difference (note says so).
BufferComparison CompareBuffer(const scene::Buffer& shape,
                               std::span<const uint8_t> device,
                               std::span<const uint8_t> emulator);

}  // namespace warpsim::vkref

#endif  // WARPSIM_VULKAN_REF_COMPARE_H_
