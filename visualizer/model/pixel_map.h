// The framebuffer view's model: for each pixel, the fragment warps and
// quads that shaded it (covered, or as a helper lane), and the per-pixel
// figures the overlays colour by.
#ifndef WARPSIM_VISUALIZER_MODEL_PIXEL_MAP_H_
#define WARPSIM_VISUALIZER_MODEL_PIXEL_MAP_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "trace/trace.h"

namespace warpsim::viz {

enum class Overlay : uint8_t {
  kNone,          // the image alone
  kSm,            // the SM that shaded the pixel (last covering quad)
  kWarp,          // the warp that shaded it
  kQuadCoverage,  // covered lanes of 4 in that quad
  kHelpers,       // times the pixel ran as a helper lane
  kInstructions,  // warp instructions of its warp per covered lane
  kCycles,        // cycles its warp was resident, per covered lane
  kOverdraw,      // times the pixel was covered
  kCount
};
std::string_view OverlayName(Overlay o);  // "sm", "warp", ...
bool ParseOverlay(std::string_view name, Overlay* out);

struct PixelInfo {
  uint32_t quad = kNone;  // the last quad (Trace::quads) that covered it
  uint16_t covered = 0;   // quads that covered it
  uint16_t helper = 0;    // quads that ran it as a helper lane
  static constexpr uint32_t kNone = ~0u;
};

class PixelMap {
 public:
  PixelMap() = default;
  // The pixels of runs `run` (an index into Trace::runs; every run when
  // kAllRuns) in a `width` x `height` framebuffer (0: as far as the quads
  // reach).
  static constexpr uint32_t kAllRuns = ~0u;
  PixelMap(const trace::Trace& t, uint32_t run, uint32_t width = 0,
           uint32_t height = 0);
  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }
  const PixelInfo& at(uint32_t x, uint32_t y) const {
    return pixels_[size_t{y} * width_ + x];
  }
  // The overlay's value at a pixel; nullopt where nothing shaded it.
  std::optional<double> Value(Overlay o, uint32_t x, uint32_t y) const;
  // The largest value of the overlay over the map (for its colour scale).
  double Max(Overlay o) const;
  // The span (Trace::warps) of a quad's warp, or ~0u.
  uint32_t SpanOf(uint32_t quad) const;
  // The quads of a warp (indices into Trace::quads), lane order.
  std::vector<uint32_t> QuadsOfWarp(uint64_t warp) const;
  const trace::Trace* trace() const { return t_; }

 private:
  const trace::Trace* t_ = nullptr;
  uint32_t width_ = 0, height_ = 0;
  std::vector<PixelInfo> pixels_;
  std::vector<uint32_t> quad_span_;     // per quad
  std::vector<uint32_t> warp_covered_;  // per span: covered lanes
};

}  // namespace warpsim::viz

#endif  // WARPSIM_VISUALIZER_MODEL_PIXEL_MAP_H_
