// PNG loading for BUFFER ... FILE PNG: decodes to RGBA8 and converts to a
// buffer's element format.
#ifndef WARPSIM_SCENE_PNG_LOADER_H_
#define WARPSIM_SCENE_PNG_LOADER_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "scene/format.h"

namespace warpsim::scene {

// An image decoded to 8-bit RGBA, rows top to bottom.
struct Rgba8Image {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<uint8_t> rgba;  // width * height * 4
};

// The most pixels a PNG may hold (8192 x 8192). The decoder allocates its
// buffers from the header's width and height before it reads any pixel data,
// so a larger header is refused before decoding: a 60-byte file claiming
// 65535 x 65535 pixels would otherwise ask for tens of gigabytes.
inline constexpr uint64_t kMaxPngPixels = uint64_t{1} << 26;

// Decodes a PNG file; a missing or corrupt file, or one with more than
// kMaxPngPixels pixels, is InvalidInput.
Result<Rgba8Image> LoadPng(const std::string& path);

// Decodes PNG bytes already in memory; `name` is the file named in
// diagnostics. Corrupt data is InvalidInput.
Result<Rgba8Image> DecodePng(std::span<const uint8_t> bytes,
                             const std::string& name);

// Lays the image out in `format`: each 8-bit channel goes to the component
// holding that channel (R, G, B, A, or components 0..3 of a data type).
// Only 8-bit integer-storage components are supported (UNORM, UINT, SRGB...);
// other formats are Unsupported.
Result<std::vector<uint8_t>> ConvertRgba8(const Rgba8Image& image,
                                          const ElementFormat& format);

}  // namespace warpsim::scene

#endif  // WARPSIM_SCENE_PNG_LOADER_H_
