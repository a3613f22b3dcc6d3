// Clipping in homogeneous space (Sutherland-Hodgman) and the viewport
// transform. Attributes are interpolated linearly in clip space, which is
// exact for perspective-correct interpolation afterwards.
#ifndef WARPSIM_PIPELINE_CLIPPING_H_
#define WARPSIM_PIPELINE_CLIPPING_H_

#include <cstdint>
#include <vector>

#include "pipeline/graphics.h"
#include "pipeline/graphics_internal.h"

namespace warpsim::pipeline::internal {

struct ClipVertex {
  double c[4];
  std::vector<uint32_t> varyings;
  std::vector<float> clip_distances;  // gl_ClipDistance: inside when >= 0
};

// The fixed clip planes (near, far, 4 guard-band planes, w > 0); user clip
// distances follow as planes kFixedPlanes + i.
constexpr int kFixedPlanes = 7;

// Signed distance to the plane `plane` (inside when >= 0).
double PlaneDistance(const ClipVertex& v, int plane, bool depth_clamp);

// The point at t along a -> b (smooth varyings interpolated, flat ones
// kept from a).
ClipVertex Lerp(const ClipVertex& a, const ClipVertex& b, double t,
                const std::vector<VaryingLink>& links);

// Clips a polygon against the fixed planes and the user clip distances.
std::vector<ClipVertex> ClipPolygon(std::vector<ClipVertex> poly,
                                    bool depth_clamp,
                                    const std::vector<VaryingLink>& links);

// True when a triangle crosses a clip plane (or the guard band).
bool NeedsClipping(const ShadedVertex* v[3], bool depth_clamp);

// Window-space vertex from a clip-space one.
WindowVertex ToWindow(const double c[4], const Viewport& vp,
                      const std::vector<uint32_t>* varyings);

}  // namespace warpsim::pipeline::internal

#endif  // WARPSIM_PIPELINE_CLIPPING_H_
