#include "scene/png_loader.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include "scene/buffer_data.h"

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_PNG
#define STBI_NO_STDIO
#define STBI_NO_STDIO_WARNINGS
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

namespace warpsim::scene {

Result<Rgba8Image> LoadPng(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidInput("cannot read PNG file '" + path + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad()) return InvalidInput("cannot read PNG file '" + path + "'");
  return DecodePng(bytes, path);
}

namespace {

// Walks the chunks of a PNG file and refuses one whose declared length runs
// past the end of the file: stb_image grows its buffer of compressed data
// by each IDAT chunk's declared length before reading it, so a few bytes
// claiming a 2 GB chunk would ask for 2 GB. Files without the PNG
// signature are left to the decoder's own message.
Status CheckChunks(std::span<const uint8_t> bytes, const std::string& name) {
  static constexpr uint8_t kSignature[8] = {0x89, 'P',  'N',  'G',
                                            '\r', '\n', 0x1a, '\n'};
  if (bytes.size() < 8 || !std::equal(kSignature, kSignature + 8, bytes.data()))
    return {};
  size_t pos = 8;
  while (bytes.size() - pos >= 8) {
    const uint8_t* c = bytes.data() + pos;
    const uint64_t length = (uint64_t{c[0]} << 24) | (uint64_t{c[1]} << 16) |
                            (uint64_t{c[2]} << 8) | uint64_t{c[3]};
    std::string type;
    for (int i = 4; i < 8; ++i) {
      type += std::isalpha(c[i]) ? static_cast<char>(c[i]) : '?';
    }
    const uint64_t left = bytes.size() - pos - 8;
    if (length > left) {
      return InvalidInput("PNG file '" + name + "': chunk '" + type +
                          "' at byte " + std::to_string(pos) + " declares " +
                          std::to_string(length) + " bytes of data, but only " +
                          std::to_string(left) + " bytes follow");
    }
    if (type == "IEND") break;
    pos += 12 + length;  // length, type, data, CRC
    if (pos > bytes.size()) break;
  }
  return {};
}

}  // namespace

Result<Rgba8Image> DecodePng(std::span<const uint8_t> bytes,
                             const std::string& name) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return InvalidInput("PNG file '" + name + "' is too large");
  }
  if (Status s = CheckChunks(bytes, name); !s.ok()) return s.error();
  int w = 0, h = 0, n = 0;
  if (stbi_info_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w,
                            &h, &n) &&
      uint64_t(w) * uint64_t(h) > kMaxPngPixels) {
    return InvalidInput("PNG file '" + name + "' is " + std::to_string(w) +
                        "x" + std::to_string(h) + " pixels, more than the " +
                        std::to_string(kMaxPngPixels) +
                        " (8192x8192) warpsim loads");
  }
  unsigned char* data = stbi_load_from_memory(
      bytes.data(), static_cast<int>(bytes.size()), &w, &h, &n, 4);
  if (!data) {
    return InvalidInput("cannot read PNG file '" + name +
                        "': " + stbi_failure_reason());
  }
  Rgba8Image img;
  img.width = static_cast<uint32_t>(w);
  img.height = static_cast<uint32_t>(h);
  img.rgba.assign(data, data + static_cast<size_t>(w) * h * 4);
  stbi_image_free(data);
  return img;
}

Result<std::vector<uint8_t>> ConvertRgba8(const Rgba8Image& image,
                                          const ElementFormat& format) {
  if (format.pack_bits) {
    return Unsupported("FILE PNG into packed format " + format.name);
  }
  uint64_t count = uint64_t{image.width} * image.height;
  auto bytes = CheckedBufferBytes(format, count);
  if (!bytes.ok()) return bytes.error();
  std::vector<uint8_t> out(*bytes, 0);
  for (size_t ci = 0; ci < format.components.size(); ++ci) {
    const Component& c = format.components[ci];
    if (c.bits != 8 || c.is_float()) {
      return Unsupported("FILE PNG into format " + format.name +
                         " (only 8-bit integer components)");
    }
  }
  for (uint64_t i = 0; i < count; ++i) {
    std::span<uint8_t> element(out.data() + i * format.stride, format.stride);
    for (size_t ci = 0; ci < format.components.size(); ++ci) {
      const Component& c = format.components[ci];
      int ch = c.channel == Channel::kR                ? 0
               : c.channel == Channel::kG              ? 1
               : c.channel == Channel::kB              ? 2
               : c.channel == Channel::kA              ? 3
               : c.channel == Channel::kNone && ci < 4 ? static_cast<int>(ci)
                                                       : -1;
      if (ch < 0) continue;
      WriteComponentBits(element, c, image.rgba[i * 4 + ch]);
    }
  }
  return out;
}

}  // namespace warpsim::scene
