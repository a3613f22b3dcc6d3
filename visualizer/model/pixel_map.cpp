// The pixel map: see pixel_map.h.
#include "model/pixel_map.h"

#include <algorithm>
#include <array>
#include <map>

namespace warpsim::viz {
namespace {
constexpr std::array<std::string_view, static_cast<size_t>(Overlay::kCount)>
    kOverlayNames = {"none",    "sm",           "warp",   "quad_coverage",
                     "helpers", "instructions", "cycles", "overdraw"};
}  // namespace

std::string_view OverlayName(Overlay o) {
  const auto i = static_cast<size_t>(o);
  return i < kOverlayNames.size() ? kOverlayNames[i] : "unknown";
}

bool ParseOverlay(std::string_view name, Overlay* out) {
  for (size_t i = 0; i < kOverlayNames.size(); ++i) {
    if (kOverlayNames[i] == name) {
      *out = static_cast<Overlay>(i);
      return true;
    }
  }
  return false;
}

PixelMap::PixelMap(const trace::Trace& t, uint32_t run, uint32_t width,
                   uint32_t height)
    : t_(&t) {
  std::map<uint64_t, uint32_t> span_of;
  for (size_t i = 0; i < t.warps.size(); ++i) {
    span_of.emplace(t.warps[i].warp, static_cast<uint32_t>(i));
  }
  quad_span_.assign(t.quads.size(), ~0u);
  warp_covered_.assign(t.warps.size(), 0);
  int32_t max_x = 0, max_y = 0;
  for (size_t q = 0; q < t.quads.size(); ++q) {
    auto it = span_of.find(t.quads[q].warp);
    if (it != span_of.end()) quad_span_[q] = it->second;
    max_x = std::max(max_x, t.quads[q].x + 2);
    max_y = std::max(max_y, t.quads[q].y + 2);
  }
  width_ = width != 0 ? width : static_cast<uint32_t>(max_x);
  height_ = height != 0 ? height : static_cast<uint32_t>(max_y);
  pixels_.assign(size_t{width_} * height_, {});
  for (size_t q = 0; q < t.quads.size(); ++q) {
    const trace::QuadRecord& quad = t.quads[q];
    const uint32_t span = quad_span_[q];
    if (run != kAllRuns && (span == ~0u || t.warps[span].run != run)) continue;
    for (uint32_t i = 0; i < 4; ++i) {
      const int32_t x = quad.x + static_cast<int32_t>(i & 1);
      const int32_t y = quad.y + static_cast<int32_t>(i >> 1);
      const bool covered = (quad.coverage >> i) & 1;
      if (covered && span != ~0u) warp_covered_[span] += 1;
      if (x < 0 || y < 0 || x >= static_cast<int32_t>(width_) ||
          y >= static_cast<int32_t>(height_)) {
        continue;
      }
      PixelInfo& p = pixels_[static_cast<size_t>(y) * width_ + x];
      if (covered) {
        p.quad = static_cast<uint32_t>(q);
        p.covered += 1;
      } else {
        p.helper += 1;
      }
    }
  }
}

uint32_t PixelMap::SpanOf(uint32_t quad) const {
  return quad < quad_span_.size() ? quad_span_[quad] : ~0u;
}

std::vector<uint32_t> PixelMap::QuadsOfWarp(uint64_t warp) const {
  std::vector<uint32_t> out;
  for (size_t q = 0; q < t_->quads.size(); ++q) {
    if (t_->quads[q].warp == warp) out.push_back(static_cast<uint32_t>(q));
  }
  return out;
}

std::optional<double> PixelMap::Value(Overlay o, uint32_t x, uint32_t y) const {
  if (x >= width_ || y >= height_) return std::nullopt;
  const PixelInfo& p = at(x, y);
  if (o == Overlay::kHelpers) {
    if (p.helper == 0 && p.covered == 0) return std::nullopt;
    return p.helper;
  }
  if (o == Overlay::kOverdraw) {
    if (p.covered == 0) return std::nullopt;
    return p.covered;
  }
  if (p.quad == PixelInfo::kNone) return std::nullopt;
  const uint32_t span = SpanOf(p.quad);
  switch (o) {
    case Overlay::kQuadCoverage:
      return __builtin_popcount(t_->quads[p.quad].coverage);
    case Overlay::kSm:
      if (span == ~0u) return std::nullopt;
      return t_->warps[span].sm;
    case Overlay::kWarp:
      if (span == ~0u) return std::nullopt;
      return static_cast<double>(t_->warps[span].warp);
    case Overlay::kInstructions:
    case Overlay::kCycles: {
      if (span == ~0u || warp_covered_[span] == 0) return std::nullopt;
      const trace::WarpSpan& w = t_->warps[span];
      const double total =
          o == Overlay::kInstructions
              ? static_cast<double>(w.instructions)
              : static_cast<double>(
                    w.end == trace::kStillResident ? 0 : w.end - w.begin);
      return total / warp_covered_[span];
    }
    default:
      return std::nullopt;
  }
}

double PixelMap::Max(Overlay o) const {
  double m = 0;
  for (uint32_t y = 0; y < height_; ++y) {
    for (uint32_t x = 0; x < width_; ++x) {
      if (auto v = Value(o, x, y)) m = std::max(m, *v);
    }
  }
  return m;
}

}  // namespace warpsim::viz
