#include "pipeline/clipping.h"

#include <cmath>
#include <utility>

namespace warpsim::pipeline::internal {

// Signed distance to the plane `plane` (inside when >= 0).
double PlaneDistance(const ClipVertex& v, int plane, bool depth_clamp) {
  const double x = v.c[0], y = v.c[1], z = v.c[2], w = v.c[3];
  if (plane >= kFixedPlanes) return v.clip_distances[plane - kFixedPlanes];
  switch (plane) {
    case 0:
      return depth_clamp ? w : z;  // near: z >= 0 (Vulkan depth range)
    case 1:
      return depth_clamp ? w : w - z;  // far: z <= w
    case 2:
      return x + kGuardBand * w;
    case 3:
      return kGuardBand * w - x;
    case 4:
      return y + kGuardBand * w;
    case 5:
      return kGuardBand * w - y;
    default:
      return w - 1e-30;  // w > 0
  }
}

ClipVertex Lerp(const ClipVertex& a, const ClipVertex& b, double t,
                const std::vector<VaryingLink>& links) {
  ClipVertex r;
  for (int i = 0; i < 4; ++i) r.c[i] = a.c[i] + (b.c[i] - a.c[i]) * t;
  r.clip_distances = a.clip_distances;
  for (size_t i = 0; i < r.clip_distances.size(); ++i) {
    r.clip_distances[i] +=
        (b.clip_distances[i] - a.clip_distances[i]) * static_cast<float>(t);
  }
  r.varyings = a.varyings;
  for (const VaryingLink& link : links) {
    if (link.flat()) continue;  // keeps the first vertex's bits
    for (uint32_t k = 0; k < link.words; ++k) {
      const uint32_t i = link.first_word + k;
      const double fa = BitsFloat(a.varyings[i]), fb = BitsFloat(b.varyings[i]);
      r.varyings[i] = FloatBits(static_cast<float>(fa + (fb - fa) * t));
    }
  }
  return r;
}

std::vector<ClipVertex> ClipPolygon(std::vector<ClipVertex> poly,
                                    bool depth_clamp,
                                    const std::vector<VaryingLink>& links) {
  const int planes =
      kFixedPlanes +
      (poly.empty() ? 0 : static_cast<int>(poly[0].clip_distances.size()));
  for (int plane = 0; plane < planes && !poly.empty(); ++plane) {
    std::vector<ClipVertex> out;
    for (size_t i = 0; i < poly.size(); ++i) {
      const ClipVertex& a = poly[i];
      const ClipVertex& b = poly[(i + 1) % poly.size()];
      const double da = PlaneDistance(a, plane, depth_clamp);
      const double db = PlaneDistance(b, plane, depth_clamp);
      if (da >= 0) out.push_back(a);
      if ((da >= 0) != (db >= 0))
        out.push_back(Lerp(a, b, da / (da - db), links));
    }
    poly = std::move(out);
  }
  return poly;
}

bool NeedsClipping(const ShadedVertex* v[3], bool depth_clamp) {
  for (int i = 0; i < 3; ++i) {
    for (float d : v[i]->clip_distances) {
      if (!(d >= 0)) return true;
    }
    const double x = v[i]->clip[0], y = v[i]->clip[1], z = v[i]->clip[2],
                 w = v[i]->clip[3];
    if (!(w > 0) || std::abs(x) > kGuardBand * w ||
        std::abs(y) > kGuardBand * w) {
      return true;
    }
    if (!depth_clamp && (z < 0 || z > w)) return true;
  }
  return false;
}

WindowVertex ToWindow(const double c[4], const Viewport& vp,
                      const std::vector<uint32_t>* varyings) {
  WindowVertex w;
  const double inv_w = 1.0 / c[3];
  const double xd = c[0] * inv_w, yd = c[1] * inv_w, zd = c[2] * inv_w;
  const double xf = vp.x + vp.width / 2.0 * (xd + 1.0);
  const double yf = vp.y + vp.height / 2.0 * (yd + 1.0);
  w.x = std::llround(xf * kSubPixel);
  w.y = std::llround(yf * kSubPixel);
  w.z = vp.min_depth + (vp.max_depth - vp.min_depth) * zd;
  w.inv_w = inv_w;
  w.varyings = varyings;
  return w;
}

}  // namespace warpsim::pipeline::internal
