// PNG output of colour attachments (`warpsim run --out`) and PNG input for
// golden-image tests.
//
// Every format is converted to 8-bit RGBA, rows top to bottom:
//   - UNORM and sRGB components: their stored bits rescaled to 8 bits (exact
//     for 8-bit formats; sRGB stays sRGB-encoded, which is what PNG viewers
//     expect);
//   - SNORM, float and scaled components: the value clamped to [0, 1]
//     (NaN -> 0) times 255, rounded to nearest;
//   - UINT/SINT components: the integer clamped to 0..255;
//   - formats whose only colour channel is R (R8_UNORM, R32_SFLOAT, depth
//     formats as R) are written as grey (R, R, R, 255);
//   - otherwise missing G and B are 0 and a missing alpha is 255; an alpha
//     channel is written as stored (a transparent pixel stays transparent).
#ifndef WARPSIM_RUNNER_PNG_WRITER_H_
#define WARPSIM_RUNNER_PNG_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "simt/image.h"

namespace warpsim::runner {

// Converts width x height texels of `format` (rows `row_pitch` bytes apart)
// to RGBA8 as described above.
Result<std::vector<uint8_t>> ConvertToRgba8(const simt::TexelFormat& format,
                                            uint32_t width, uint32_t height,
                                            const uint8_t* data,
                                            uint32_t row_pitch);

// R8G8B8A8_UNORM: the texel format of ConvertToRgba8's output.
simt::TexelFormat Rgba8Format();

// Writes the image as PNG at `path`. The bytes go to `path + ".partial"`
// first and are renamed into place, so an interrupted run never leaves a
// complete-looking file. Errors name the path.
Status WritePng(const std::string& path, const simt::TexelFormat& format,
                uint32_t width, uint32_t height, const uint8_t* data,
                uint32_t row_pitch);

// Reads a PNG as 8-bit RGBA (width * height * 4 bytes, rows top to bottom);
// a missing or corrupt file is InvalidInput naming it.
Result<std::vector<uint8_t>> ReadPngRgba8(const std::string& path,
                                          uint32_t* width, uint32_t* height);

}  // namespace warpsim::runner

#endif  // WARPSIM_RUNNER_PNG_WRITER_H_
