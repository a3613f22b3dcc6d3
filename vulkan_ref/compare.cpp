#include "vulkan_ref/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace warpsim::vkref {
namespace {

bool IsFloat(const scene::Component& c) {
  return c.kind == scene::NumericKind::kSFloat ||
         c.kind == scene::NumericKind::kUFloat;
}

// Bit fields of a float component: 16-bit and the unsigned 11/10-bit
// floats have 5 exponent bits, 32-bit 8, 64-bit 11.
struct FloatLayout {
  uint32_t sign_bits = 0, exponent_bits = 0, mantissa_bits = 0;
};

FloatLayout LayoutOf(const scene::Component& c) {
  FloatLayout l;
  l.sign_bits = c.kind == scene::NumericKind::kSFloat ? 1 : 0;
  l.exponent_bits = c.bits == 64 ? 11 : c.bits == 32 ? 8 : 5;
  l.mantissa_bits = c.bits - l.sign_bits - l.exponent_bits;
  return l;
}

uint64_t Mask(uint32_t bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

}  // namespace

uint32_t AllowedUlps(const scene::Component& c) {
  if (!IsFloat(c)) return 0;
  return c.bits >= 32 ? 3 : 1;
}

std::string DescribeRule(const scene::ElementFormat& format) {
  std::string rule;
  for (const scene::Component& c : format.components) {
    std::string part = "exact";
    if (IsFloat(c)) {
      part = std::string(c.kind == scene::NumericKind::kUFloat ? "ufloat"
                                                               : "float") +
             std::to_string(c.bits) + " <= " + std::to_string(AllowedUlps(c)) +
             " ULP";
    }
    if (rule.find(part) == std::string::npos) {
      rule += (rule.empty() ? "" : ", ") + part;
    }
  }
  return rule.empty() ? "exact" : rule;
}

std::optional<uint64_t> UlpDistance(uint64_t a, uint64_t b,
                                    const scene::Component& c) {
  const FloatLayout l = LayoutOf(c);
  const uint64_t exp_mask = Mask(l.exponent_bits);
  const uint64_t mant_mask = Mask(l.mantissa_bits);
  struct Decoded {
    bool negative = false, nan = false, inf = false;
    uint64_t magnitude = 0;  // exponent and mantissa bits; 0 for denormals
  };
  auto decode = [&](uint64_t v) {
    Decoded d;
    const uint64_t exp = (v >> l.mantissa_bits) & exp_mask;
    const uint64_t mant = v & mant_mask;
    d.negative = l.sign_bits != 0 &&
                 ((v >> (l.exponent_bits + l.mantissa_bits)) & 1) != 0;
    d.nan = exp == exp_mask && mant != 0;
    d.inf = exp == exp_mask && mant == 0;
    // Denormals (and zeros of either sign) count as zero.
    d.magnitude = exp == 0 ? 0 : v & Mask(l.exponent_bits + l.mantissa_bits);
    if (d.magnitude == 0) d.negative = false;
    return d;
  };
  const Decoded x = decode(a), y = decode(b);
  if (x.nan || y.nan) {
    return x.nan && y.nan ? std::optional<uint64_t>(0) : std::nullopt;
  }
  if (x.inf || y.inf) {
    return x.inf && y.inf && x.negative == y.negative
               ? std::optional<uint64_t>(0)
               : std::nullopt;
  }
  if (x.negative == y.negative) {
    return x.magnitude > y.magnitude ? x.magnitude - y.magnitude
                                     : y.magnitude - x.magnitude;
  }
  // Opposite signs: the ULPs down to zero on one side and up on the other.
  const uint64_t sum = x.magnitude + y.magnitude;
  return sum < x.magnitude ? ~uint64_t{0} : sum;
}

uint64_t RawComponentBits(std::span<const uint8_t> element,
                          const scene::Component& c, uint32_t pack_bits) {
  // A packed format is one little-endian word; others hold each component
  // in whole bytes at its offset.
  const uint32_t word_bits = pack_bits != 0 ? pack_bits : c.bits;
  const uint32_t bytes = (word_bits + 7) / 8;
  uint64_t word = 0;
  for (uint32_t i = 0; i < bytes && c.byte_offset + i < element.size(); ++i) {
    word |= uint64_t{element[c.byte_offset + i]} << (8 * i);
  }
  if (pack_bits != 0) word >>= c.bit_offset;
  return word & Mask(c.bits);
}

BufferComparison CompareBuffer(const scene::Buffer& shape,
                               std::span<const uint8_t> device,
                               std::span<const uint8_t> emulator) {
  const scene::ElementFormat& format = shape.format;
  BufferComparison r;
  r.name = shape.name;
  r.kind = shape.width > 0 && shape.height > 0 ? "image" : "buffer";
  r.format = format.name;
  r.width = shape.width;
  r.height = shape.height;
  r.device_bytes = device.size();
  r.emulator_bytes = emulator.size();
  r.rule = DescribeRule(format);
  if (device.size() != emulator.size()) {
    r.agree = false;
    r.note = "sizes differ: device " + std::to_string(device.size()) +
             " bytes, emulator " + std::to_string(emulator.size());
  }
  const uint32_t stride = std::max<uint32_t>(1, format.stride);
  r.elements = std::min(device.size(), emulator.size()) / stride;
  const uint64_t level0 =
      r.kind == "image" ? uint64_t{shape.width} * shape.height : 0;
  if (r.kind == "image") r.differs.assign(level0, false);
  for (uint64_t e = 0; e < r.elements; ++e) {
    const auto dev = device.subspan(e * stride, stride);
    const auto emu = emulator.subspan(e * stride, stride);
    bool element_differs = false;
    for (uint32_t k = 0; k < format.components.size(); ++k) {
      const scene::Component& c = format.components[k];
      const uint64_t a = RawComponentBits(dev, c, format.pack_bits);
      const uint64_t b = RawComponentBits(emu, c, format.pack_bits);
      const double va = scene::ReadComponent(dev, c);
      const double vb = scene::ReadComponent(emu, c);
      bool differs = a != b;
      if (IsFloat(c)) {
        const std::optional<uint64_t> ulps = UlpDistance(a, b, c);
        differs = !ulps || *ulps > AllowedUlps(c);
        if (ulps) r.max_ulps = std::max(r.max_ulps, *ulps);
      }
      if (!std::isnan(va) && !std::isnan(vb) && a != b) {
        const double d = std::fabs(va - vb);
        if (!std::isnan(d)) r.max_difference = std::max(r.max_difference, d);
      }
      if (!differs) continue;
      if (!element_differs && !r.first) {
        ElementDifference f;
        f.element = e;
        f.component = k;
        f.device = va;
        f.emulator = vb;
        if (r.kind == "image") {
          f.x = static_cast<uint32_t>(e % shape.width);
          f.y = static_cast<uint32_t>((e / shape.width) % shape.height);
          f.level = e < level0 ? 0 : 1;
        }
        r.first = f;
      }
      element_differs = true;
    }
    if (element_differs) {
      ++r.differing_elements;
      r.agree = false;
      if (e < level0) r.differs[e] = true;
    }
  }
  return r;
}

}  // namespace warpsim::vkref
