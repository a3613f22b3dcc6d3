// simt/texel_format.cpp: DecodeTexel and EncodeTexel on hand-built formats
// (the bit fields a format name gives), values computed by hand.
#include <catch2/catch.hpp>
#include <cstdint>

#include "simt/image.h"

namespace {

using warpsim::simt::DecodeTexel;
using warpsim::simt::EncodeTexel;
using warpsim::simt::Texel;
using warpsim::simt::TexelComponent;
using warpsim::simt::TexelFormat;
using warpsim::simt::TexelKind;

// `count` components of `bits` bits each, of one kind, packed in order.
TexelFormat Uniform(TexelKind kind, uint32_t count, uint8_t bits) {
  TexelFormat f;
  f.count = count;
  f.bytes = count * bits / 8;
  for (uint32_t k = 0; k < count; ++k) {
    f.comps[k] = TexelComponent{static_cast<uint8_t>(k), kind, bits,
                                static_cast<uint16_t>(k * bits)};
  }
  return f;
}

}  // namespace

TEST_CASE("texel formats: UNORM, SNORM and sRGB bytes") {
  const TexelFormat unorm = Uniform(TexelKind::kUNorm, 4, 8);
  const uint8_t bytes[4] = {0, 51, 255, 128};
  Texel t = DecodeTexel(unorm, bytes);
  CHECK(t.f[0] == 0.0f);
  CHECK(t.f[1] == Approx(0.2f));  // 51 / 255
  CHECK(t.f[2] == 1.0f);
  CHECK(t.f[3] == Approx(128.0f / 255.0f));
  // Encoding rounds to the nearest code and clamps.
  Texel v;
  v.f[0] = 0.5f;   // 127.5: 128
  v.f[1] = -1.0f;  // clamped to 0
  v.f[2] = 2.0f;   // clamped to 255
  v.f[3] = 0.1f;   // 25.5: 26
  uint8_t out[4] = {};
  EncodeTexel(unorm, v, out);
  CHECK(out[0] == 128);
  CHECK(out[1] == 0);
  CHECK(out[2] == 255);
  CHECK(out[3] == 26);
  // SNORM: -128 and -127 are both -1.
  const TexelFormat snorm = Uniform(TexelKind::kSNorm, 2, 8);
  const uint8_t s[2] = {0x80, 0x81};
  t = DecodeTexel(snorm, s);
  CHECK(t.f[0] == -1.0f);
  CHECK(t.f[1] == -1.0f);
  // sRGB: code 188 is about 0.5 linear ((188/255 + 0.055) / 1.055)^2.4.
  const TexelFormat srgb = Uniform(TexelKind::kSrgb, 1, 8);
  const uint8_t g[1] = {188};
  CHECK(DecodeTexel(srgb, g).f[0] == Approx(0.5029).epsilon(1e-3));
}

TEST_CASE("texel formats: every 8-bit UNORM code, byte-aligned or not") {
  // Byte-aligned (R8G8B8A8) and at an odd bit offset (a 4-bit pad first):
  // both give v / 255 rounded once to float, and the code as the integer.
  const TexelFormat aligned = Uniform(TexelKind::kUNorm, 4, 8);
  TexelFormat shifted;
  shifted.count = 1;
  shifted.bytes = 2;
  shifted.comps[0] = TexelComponent{0, TexelKind::kUNorm, 8, 4};
  for (uint32_t v = 0; v < 256; ++v) {
    const float want = static_cast<float>(static_cast<double>(v) / 255.0);
    const uint8_t bytes[4] = {static_cast<uint8_t>(v), 0, 0,
                              static_cast<uint8_t>(255 - v)};
    const Texel t = DecodeTexel(aligned, bytes);
    CHECK(t.f[0] == want);
    CHECK(t.i[0] == v);
    CHECK(t.f[3] == static_cast<float>(static_cast<double>(255 - v) / 255.0));
    const uint8_t odd[2] = {static_cast<uint8_t>(v << 4),
                            static_cast<uint8_t>(v >> 4)};
    CHECK(DecodeTexel(shifted, odd).f[0] == want);
  }
}

TEST_CASE("texel formats: missing components and integers") {
  // One 16-bit UINT component: green and blue read 0, alpha 1.
  const TexelFormat r16 = Uniform(TexelKind::kUInt, 1, 16);
  const uint8_t b[2] = {0x34, 0x12};
  const Texel t = DecodeTexel(r16, b);
  CHECK(t.i[0] == 0x1234);
  CHECK(t.i[1] == 0);
  CHECK(t.i[3] == 1);
  // SINT sign-extends.
  const TexelFormat s8 = Uniform(TexelKind::kSInt, 1, 8);
  const uint8_t m[1] = {0xFE};
  CHECK(static_cast<int64_t>(DecodeTexel(s8, m).i[0]) == -2);
}

TEST_CASE("texel formats: 16-bit floats") {
  const TexelFormat h = Uniform(TexelKind::kSFloat, 2, 16);
  const uint8_t b[4] = {0x00, 0x3C, 0x00, 0xC0};  // 1.0, -2.0
  const Texel t = DecodeTexel(h, b);
  CHECK(t.f[0] == 1.0f);
  CHECK(t.f[1] == -2.0f);
  Texel v;
  v.f[0] = 0.5f;      // 0x3800
  v.f[1] = 65504.0f;  // the largest half: 0x7BFF
  uint8_t out[4] = {};
  EncodeTexel(h, v, out);
  CHECK(out[0] == 0x00);
  CHECK(out[1] == 0x38);
  CHECK(out[2] == 0xFF);
  CHECK(out[3] == 0x7B);
}
