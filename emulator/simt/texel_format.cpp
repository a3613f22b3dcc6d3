// Texel format conversion: decoding a texel's bytes into float or integer
// components and encoding them back (simt/image.h DecodeTexel and
// EncodeTexel), for image instructions and for whoever writes images
// outside shaders (render targets, the runner's uploads and PNG output).
// Components are bit fields of the texel: normalized and plain integers,
// 16- and 32-bit floats, packed 10- and 11-bit floats, sRGB.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "base/half.h"
#include "simt/image.h"

namespace warpsim::simt {
namespace {

uint64_t LoadField(const uint8_t* texel, uint32_t bit_offset, uint32_t bits) {
  const uint32_t first = bit_offset / 8;
  const uint32_t shift = bit_offset % 8;
  const uint32_t nbytes = std::min((shift + bits + 7) / 8, 8u);
  uint64_t v = 0;
  for (uint32_t i = 0; i < nbytes; ++i) {
    v |= static_cast<uint64_t>(texel[first + i]) << (8 * i);
  }
  v >>= shift;
  if (bits < 64) v &= (uint64_t{1} << bits) - 1;
  return v;
}

void StoreField(uint8_t* texel, uint32_t bit_offset, uint32_t bits,
                uint64_t v) {
  const uint64_t mask = bits < 64 ? (uint64_t{1} << bits) - 1 : ~uint64_t{0};
  v &= mask;
  const uint32_t first = bit_offset / 8;
  const uint32_t shift = bit_offset % 8;
  if (shift == 0 && bits == 8) {  // the common byte channel
    texel[first] = static_cast<uint8_t>(v);
    return;
  }
  const uint32_t nbytes = std::min((shift + bits + 7) / 8, 8u);
  for (uint32_t i = 0; i < nbytes; ++i) {
    const uint64_t m = ((mask << shift) >> (8 * i)) & 0xff;
    const uint64_t b = ((v << shift) >> (8 * i)) & 0xff;
    texel[first + i] = static_cast<uint8_t>((texel[first + i] & ~m) | (b & m));
  }
}

int64_t SignExtend(uint64_t v, uint32_t bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((v ^ sign) - sign);
}

// Unsigned 10/11-bit floats: 5 exponent bits (bias 15), `m` mantissa bits.
float SmallUFloatToFloat(uint32_t v, uint32_t m) {
  const uint32_t e = v >> m;
  const uint32_t f = v & ((1u << m) - 1);
  if (e == 0)
    return std::ldexp(static_cast<float>(f), -14 - static_cast<int>(m));
  if (e == 31) {
    return f ? std::numeric_limits<float>::quiet_NaN()
             : std::numeric_limits<float>::infinity();
  }
  return std::ldexp(1.0f + static_cast<float>(f) / static_cast<float>(1u << m),
                    static_cast<int>(e) - 15);
}

// Round to nearest even; negative values and -0 become 0, values past the
// largest finite number become the largest finite number.
uint32_t FloatToSmallUFloat(float x, uint32_t m) {
  if (std::isnan(x)) return (31u << m) | 1u;
  if (!(x > 0.0f)) return 0;
  if (std::isinf(x)) return 31u << m;
  const uint32_t max_finite = (30u << m) | ((1u << m) - 1);
  int e = 0;
  std::frexp(x, &e);         // x = f * 2^e, f in [0.5, 1)
  int exp = e - 1;           // x = 1.xxx * 2^exp
  if (exp < -14) exp = -14;  // denormals share the smallest exponent
  // Mantissa units at this exponent: x / 2^(exp - m).
  const double units =
      std::nearbyint(std::ldexp(static_cast<double>(x), m - exp));
  uint64_t u = static_cast<uint64_t>(units);
  uint32_t biased = static_cast<uint32_t>(exp + 15);
  if (u < (uint64_t{1} << m)) return static_cast<uint32_t>(u);  // denormal
  if (u >= (uint64_t{2} << m)) {
    u >>= 1;
    ++biased;
  }
  if (biased >= 31) return max_finite;
  return (biased << m) | static_cast<uint32_t>(u & ((1u << m) - 1));
}

float SrgbToLinear(float v) {
  return v <= 0.04045f ? v / 12.92f
                       : static_cast<float>(std::pow((v + 0.055) / 1.055, 2.4));
}

float LinearToSrgb(float v) {
  return v <= 0.0031308f
             ? v * 12.92f
             : static_cast<float>(
                   1.055 * std::pow(static_cast<double>(v), 1.0 / 2.4) - 0.055);
}

// v / 255 for every byte v, as DecodeTexel's UNORM case computes it (in
// double, rounded to float once): the 8-bit UNORM components of sampled
// images without the division (a bilinear sample decodes four texels).
struct Unorm8Table {
  float f[256];
  Unorm8Table() {
    for (uint32_t v = 0; v < 256; ++v) {
      f[v] = static_cast<float>(static_cast<double>(v) / 255.0);
    }
  }
};
const Unorm8Table kUnorm8;

}  // namespace

Texel DecodeTexel(const TexelFormat& format, const uint8_t* texel) {
  Texel t;
  t.f[3] = 1.0f;
  t.i[3] = 1;
  for (uint32_t k = 0; k < format.count; ++k) {
    const TexelComponent& c = format.comps[k];
    if (c.channel > 3) continue;
    if (c.kind == TexelKind::kUNorm && c.bits == 8 && c.bit_offset % 8 == 0) {
      const uint8_t v = texel[c.bit_offset / 8];
      t.f[c.channel] = kUnorm8.f[v];
      t.i[c.channel] = v;
      continue;
    }
    const uint64_t v = LoadField(texel, c.bit_offset, c.bits);
    float f = 0.0f;
    uint64_t i = v;
    switch (c.kind) {
      case TexelKind::kUNorm:
        f = static_cast<float>(
            static_cast<double>(v) /
            static_cast<double>((uint64_t{1} << c.bits) - 1));
        break;
      case TexelKind::kSrgb: {
        f = static_cast<float>(
            static_cast<double>(v) /
            static_cast<double>((uint64_t{1} << c.bits) - 1));
        if (c.channel != 3) f = SrgbToLinear(f);
        break;
      }
      case TexelKind::kSNorm: {
        const double max =
            static_cast<double>((uint64_t{1} << (c.bits - 1)) - 1);
        f = static_cast<float>(
            std::max(static_cast<double>(SignExtend(v, c.bits)) / max, -1.0));
        break;
      }
      case TexelKind::kUInt:
      case TexelKind::kUScaled:
        f = static_cast<float>(v);
        break;
      case TexelKind::kSInt:
      case TexelKind::kSScaled:
        i = static_cast<uint64_t>(SignExtend(v, c.bits));
        f = static_cast<float>(SignExtend(v, c.bits));
        break;
      case TexelKind::kSFloat:
        if (c.bits == 16) {
          f = HalfToFloat(static_cast<uint16_t>(v));
        } else if (c.bits == 64) {
          f = static_cast<float>(std::bit_cast<double>(v));
        } else {
          f = std::bit_cast<float>(static_cast<uint32_t>(v));
        }
        break;
      case TexelKind::kUFloat:
        f = SmallUFloatToFloat(static_cast<uint32_t>(v), c.bits - 5);
        break;
    }
    t.f[c.channel] = f;
    t.i[c.channel] = i;
  }
  return t;
}

void EncodeTexel(const TexelFormat& format, const Texel& value,
                 uint8_t* texel) {
  for (uint32_t k = 0; k < format.count; ++k) {
    const TexelComponent& c = format.comps[k];
    if (c.channel > 3) continue;
    const float f = value.f[c.channel];
    uint64_t v = 0;
    switch (c.kind) {
      case TexelKind::kUNorm:
      case TexelKind::kSrgb: {
        float x = f;
        if (c.kind == TexelKind::kSrgb && c.channel != 3) {
          x = LinearToSrgb(std::clamp(x, 0.0f, 1.0f));
        }
        const double max = static_cast<double>((uint64_t{1} << c.bits) - 1);
        const double cl = std::isnan(x) ? 0.0 : std::clamp<double>(x, 0.0, 1.0);
        // cl * max + 0.5 >= 0, so truncation is floor (and no libm call).
        v = static_cast<uint64_t>(cl * max + 0.5);
        break;
      }
      case TexelKind::kSNorm: {
        const double max =
            static_cast<double>((uint64_t{1} << (c.bits - 1)) - 1);
        const double cl =
            std::isnan(f) ? 0.0 : std::clamp<double>(f, -1.0, 1.0);
        v = static_cast<uint64_t>(
            static_cast<int64_t>(std::nearbyint(cl * max)));
        break;
      }
      case TexelKind::kUInt:
      case TexelKind::kSInt:
        v = value.i[c.channel];
        break;
      case TexelKind::kUScaled:
        v = static_cast<uint64_t>(std::max(f, 0.0f));
        break;
      case TexelKind::kSScaled:
        v = static_cast<uint64_t>(static_cast<int64_t>(f));
        break;
      case TexelKind::kSFloat:
        if (c.bits == 16) {
          v = FloatToHalf(f);
        } else if (c.bits == 64) {
          v = std::bit_cast<uint64_t>(static_cast<double>(f));
        } else {
          v = std::bit_cast<uint32_t>(f);
        }
        break;
      case TexelKind::kUFloat:
        v = FloatToSmallUFloat(f, c.bits - 5);
        break;
    }
    StoreField(texel, c.bit_offset, c.bits, v);
  }
}

}  // namespace warpsim::simt
