#include "runner/png_writer.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <system_error>
#include <utility>

#include "scene/png_loader.h"

// The one definition of stb_image_write in the program (PNG decoding uses
// stb_image through scene::LoadPng). Only the callback writer is used: the
// file is written here, so that errors can name the path and the
// ".partial" rename is ours.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#define STBI_WRITE_NO_STDIO
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

namespace warpsim::runner {
namespace {

uint64_t LoadBits(const uint8_t* texel, uint32_t bit_offset, uint32_t bits) {
  uint64_t v = 0;
  for (uint32_t b = 0; b < bits; ++b) {
    const uint32_t at = bit_offset + b;
    v |= static_cast<uint64_t>((texel[at / 8] >> (at % 8)) & 1u) << b;
  }
  return v;
}

uint8_t FloatTo8(float f) {
  if (std::isnan(f)) return 0;
  return static_cast<uint8_t>(
      std::floor(std::clamp(f, 0.0f, 1.0f) * 255.0f + 0.5f));
}

// One component of a texel as 8 bits (see the header for the rules).
uint8_t ComponentTo8(const simt::TexelComponent& c, const simt::Texel& t,
                     const uint8_t* texel) {
  switch (c.kind) {
    case simt::TexelKind::kUNorm:
    case simt::TexelKind::kSrgb: {
      // Rescale the stored bits: exact for 8 bits, no sRGB decode+encode.
      const uint64_t max =
          c.bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << c.bits) - 1;
      const uint64_t v = LoadBits(texel, c.bit_offset, c.bits);
      if (c.bits == 8) return static_cast<uint8_t>(v);
      if (c.bits > 32) return FloatTo8(t.f[c.channel]);
      return static_cast<uint8_t>((v * 510 + max) / (2 * max));
    }
    case simt::TexelKind::kUInt:
      return static_cast<uint8_t>(std::min<uint64_t>(t.i[c.channel], 255));
    case simt::TexelKind::kSInt:
      return static_cast<uint8_t>(
          std::clamp<int64_t>(static_cast<int64_t>(t.i[c.channel]), 0, 255));
    default:
      return FloatTo8(t.f[c.channel]);
  }
}

void AppendBytes(void* context, void* data, int size) {
  auto* out = static_cast<std::vector<uint8_t>*>(context);
  const auto* bytes = static_cast<const uint8_t*>(data);
  out->insert(out->end(), bytes, bytes + size);
}

}  // namespace

Result<std::vector<uint8_t>> ConvertToRgba8(const simt::TexelFormat& format,
                                            uint32_t width, uint32_t height,
                                            const uint8_t* data,
                                            uint32_t row_pitch) {
  uint32_t channels = 0;  // bit c: the format has channel c
  for (uint32_t k = 0; k < format.count; ++k) {
    if (format.comps[k].channel <= 3) channels |= 1u << format.comps[k].channel;
  }
  if (channels == 0) {
    return Unsupported(
        "PNG output of a format without colour or depth "
        "channels (stencil-only or padding)");
  }
  if (data == nullptr && width != 0 && height != 0) {
    return InternalError("PNG conversion of an image without data");
  }
  if (uint64_t{row_pitch} < uint64_t{width} * format.bytes) {
    return InternalError("PNG conversion: row pitch " +
                         std::to_string(row_pitch) + " is less than " +
                         std::to_string(width) + " texels of " +
                         std::to_string(format.bytes) + " bytes");
  }
  const bool grey = channels == 1;
  std::vector<uint8_t> rgba(uint64_t{width} * height * 4);
  for (uint32_t y = 0; y < height; ++y) {
    const uint8_t* row = data + uint64_t{y} * row_pitch;
    uint8_t* out = rgba.data() + uint64_t{y} * width * 4;
    for (uint32_t x = 0; x < width; ++x, out += 4) {
      const uint8_t* texel = row + uint64_t{x} * format.bytes;
      const simt::Texel t = simt::DecodeTexel(format, texel);
      uint8_t px[4] = {0, 0, 0, 255};
      for (uint32_t k = 0; k < format.count; ++k) {
        const simt::TexelComponent& c = format.comps[k];
        if (c.channel <= 3) px[c.channel] = ComponentTo8(c, t, texel);
      }
      if (grey) px[1] = px[2] = px[0];
      std::memcpy(out, px, 4);
    }
  }
  return rgba;
}

simt::TexelFormat Rgba8Format() {
  simt::TexelFormat f;
  f.bytes = 4;
  f.count = 4;
  for (uint8_t c = 0; c < 4; ++c) {
    f.comps[c] = {c, simt::TexelKind::kUNorm, 8, static_cast<uint16_t>(8 * c)};
  }
  return f;
}

Status WritePng(const std::string& path, const simt::TexelFormat& format,
                uint32_t width, uint32_t height, const uint8_t* data,
                uint32_t row_pitch) {
  const std::string what = "cannot write PNG '" + path + "': ";
  constexpr uint32_t kMaxSide = std::numeric_limits<int>::max() / 4;
  if (width == 0 || height == 0 || width > kMaxSide || height > kMaxSide) {
    return InvalidInput(what + "bad image size " + std::to_string(width) + "x" +
                        std::to_string(height));
  }
  auto rgba = ConvertToRgba8(format, width, height, data, row_pitch);
  if (!rgba.ok()) {
    Diagnostic d = rgba.error();
    d.message = what + d.message;
    return d;
  }
  std::vector<uint8_t> png;
  if (!stbi_write_png_to_func(AppendBytes, &png, static_cast<int>(width),
                              static_cast<int>(height), 4, rgba->data(),
                              static_cast<int>(width * 4))) {
    return InternalError(what + "PNG encoding failed");
  }

  const std::string partial = path + ".partial";
  std::FILE* f = std::fopen(partial.c_str(), "wb");
  if (f == nullptr) {
    return InvalidInput(what + "cannot create '" + partial +
                        "': " + std::strerror(errno));
  }
  const bool written = std::fwrite(png.data(), 1, png.size(), f) == png.size();
  const int write_errno = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed) {
    const int err = !written ? write_errno : errno;
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    return InvalidInput(what + "writing '" + partial +
                        "' failed: " + std::strerror(err));
  }
  std::error_code ec;
  std::filesystem::rename(partial, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    return InvalidInput(what + "renaming '" + partial +
                        "' failed: " + ec.message());
  }
  return {};
}

Result<std::vector<uint8_t>> ReadPngRgba8(const std::string& path,
                                          uint32_t* width, uint32_t* height) {
  auto image = scene::LoadPng(path);
  if (!image.ok()) return image.error();
  if (width != nullptr) *width = image->width;
  if (height != nullptr) *height = image->height;
  return std::move(image->rgba);
}

}  // namespace warpsim::runner
