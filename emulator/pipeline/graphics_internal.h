// Types shared by the stages of the graphics pipeline (vertex stage,
// clipping, fragment stage, and the draw that connects them). Internal to
// pipeline/: not part of its interface.
#ifndef WARPSIM_PIPELINE_GRAPHICS_INTERNAL_H_
#define WARPSIM_PIPELINE_GRAPHICS_INTERNAL_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "simt/program.h"

namespace warpsim::pipeline::internal {

using simt::InputSlot;

// lavapipe, SwiftShader and the H200 report; REFERENCE §8.1).
constexpr int kSubPixelBits = 8;
constexpr int64_t kSubPixel = int64_t{1} << kSubPixelBits;
// Guard band for x/y clipping, in multiples of w: |x|,|y| <= kGuardBand * w.
// Beyond it triangles are clipped; inside it they are rasterized exactly.
constexpr double kGuardBand = 64.0;

// A vertex after the vertex shader: clip-space position and the words of
// every varying the fragment shader reads, in FS input-slot order.
struct ShadedVertex {
  double clip[4] = {0, 0, 0, 1};
  float point_size = 1.0f;
  std::vector<float> clip_distances;
  std::vector<uint32_t> varyings;
};

// One primitive of a draw's topology: 1 (point), 2 (line) or 3 draw
// positions, the provoking vertex first.
struct Primitive {
  uint32_t v[3] = {0, 0, 0};
  uint8_t count = 3;
};

// A vertex in window space after clipping and the viewport transform.
struct WindowVertex {
  int64_t x = 0, y = 0;  // fixed point, kSubPixelBits fraction bits
  double z = 0;          // window depth
  double inv_w = 1;      // 1 / w_clip
  const std::vector<uint32_t>* varyings = nullptr;
  std::vector<uint32_t> own;  // storage for clipped vertices
};

// Where each FS user input gets its value from.
struct VaryingLink {
  const InputSlot* fs_slot = nullptr;
  uint32_t first_word = 0;  // in ShadedVertex::varyings
  uint32_t words = 0;
  // Flat (and every integer) input takes the provoking vertex's value.
  bool flat() const {
    return fs_slot->kind != simt::ScalarKind::kFloat ||
           fs_slot->interpolation == simt::Interpolation::kFlat;
  }
};

// Copies the flat varyings of the provoking vertex `from` into `to`
// (vertices made by clipping interpolate only the smooth ones).
inline void CopyFlatVaryings(const std::vector<uint32_t>& from,
                             const std::vector<VaryingLink>& links,
                             std::vector<uint32_t>* to) {
  for (const VaryingLink& link : links) {
    if (!link.flat()) continue;
    for (uint32_t k = 0; k < link.words; ++k) {
      (*to)[link.first_word + k] = from[link.first_word + k];
    }
  }
}

// Runs a warp until every lane finished; counts into `stats`.

inline void Store32(uint8_t* mem, const InputSlot& slot, uint32_t index,
                    uint32_t word) {
  const uint32_t off = index * 4;
  if (off + 4 <= slot.bytes) std::memcpy(mem + slot.offset + off, &word, 4);
}

inline uint32_t Load32(const uint8_t* mem, const InputSlot& slot,
                       uint32_t index) {
  uint32_t w = 0;
  const uint32_t off = index * 4;
  if (off + 4 <= slot.bytes) std::memcpy(&w, mem + slot.offset + off, 4);
  return w;
}

inline uint32_t FloatBits(float f) { return std::bit_cast<uint32_t>(f); }
inline float BitsFloat(uint32_t w) { return std::bit_cast<float>(w); }

}  // namespace warpsim::pipeline::internal

#endif  // WARPSIM_PIPELINE_GRAPHICS_INTERNAL_H_
