#include "pipeline/graphics.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "pipeline/compute.h"

namespace warpsim::pipeline {
namespace {

using simt::InputSlot;
using simt::Program;
using simt::Warp;

// Sub-pixel precision: window coordinates snap to 1/256 pixel (8 bits, as
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
void CopyFlatVaryings(const std::vector<uint32_t>& from,
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
Status RunWarp(Warp& warp, simt::ExecContext& ctx,
               const GraphicsConfig& config) {
  while (!warp.done()) {
    for (int i = 0; i < 4096 && !warp.done(); ++i) {
      const simt::InstrRecord rec = warp.Step();
      if (rec.blocking == simt::Blocking::kBarrier) warp.ReleaseBarrier();
    }
    if (config.max_warp_instructions != 0 &&
        ctx.warp_instructions > config.max_warp_instructions) {
      return LimitExceeded("a stage of the draw executed more than " +
                               std::to_string(config.max_warp_instructions) +
                               " warp instructions (stopped after " +
                               std::to_string(ctx.warp_instructions) +
                               "; a shader may not terminate)",
                           ctx.warp_instructions, ctx.lane_instructions);
    }
  }
  return {};
}

void Store32(uint8_t* mem, const InputSlot& slot, uint32_t index,
             uint32_t word) {
  const uint32_t off = index * 4;
  if (off + 4 <= slot.bytes) std::memcpy(mem + slot.offset + off, &word, 4);
}

uint32_t Load32(const uint8_t* mem, const InputSlot& slot, uint32_t index) {
  uint32_t w = 0;
  const uint32_t off = index * 4;
  if (off + 4 <= slot.bytes) std::memcpy(&w, mem + slot.offset + off, 4);
  return w;
}

uint32_t FloatBits(float f) { return std::bit_cast<uint32_t>(f); }
float BitsFloat(uint32_t w) { return std::bit_cast<float>(w); }

// ---------------------------------------------------------------------------
// Vertex stage

class VertexStage {
 public:
  VertexStage(const GraphicsState& state, const DrawCall& call,
              const std::vector<VaryingLink>& links, DrawStats* stats)
      : state_(state), call_(call), links_(links), stats_(stats) {
    ctx_.regions = state.vs_regions;
    ctx_.images = state.vs_images;
    ctx_.regions.resize(
        std::max<size_t>(ctx_.regions.size(), state.vs->num_regions));
    ctx_.images.resize(ctx_.regions.size());
    for (const VaryingLink& l : links) varying_words_ += l.words;
    for (const InputSlot& s : state.vs->outputs) {
      if (s.builtin == spv::BuiltIn::Position) position_ = &s;
      if (s.builtin == spv::BuiltIn::PointSize) point_size_ = &s;
      if (s.builtin == spv::BuiltIn::ClipDistance) clip_distance_ = &s;
      if (s.builtin == spv::BuiltIn::Max && s.location != 0xffffffffu) {
        outputs_by_location_.emplace(s.location * 4 + s.component, &s);
      }
    }
  }

  // The vertex index for position p of the draw.
  Result<uint32_t> VertexIndex(uint32_t p) const {
    if (!call_.indexed) return call_.first + p;
    const uint64_t at =
        (static_cast<uint64_t>(call_.first) + p) * call_.index_bytes;
    if (at + call_.index_bytes > call_.indices_size) {
      return InvalidInput("index " + std::to_string(call_.first + p) +
                          " is past the end of the index buffer");
    }
    uint32_t v = 0;
    std::memcpy(&v, call_.indices + at, call_.index_bytes);
    return static_cast<uint32_t>(static_cast<int64_t>(v) + call_.vertex_offset);
  }

  // Shades the vertices of one instance; out[p] is the vertex at position p.
  Status ShadeInstance(uint32_t instance, std::vector<ShadedVertex>* out) {
    const uint32_t width = state_.config.warp_width;
    out->assign(call_.count, ShadedVertex{});
    uint32_t p = 0;
    while (p < call_.count) {
      // Collect one batch: up to vertex_batch_indices positions, at most one
      // warp of unique vertices.
      std::vector<uint32_t> lane_vertex;  // vertex index per lane
      std::map<uint32_t, uint32_t> lane_of;
      std::vector<std::pair<uint32_t, uint32_t>> positions;  // (p, lane)
      const uint32_t batch_start = p;
      while (p < call_.count &&
             p - batch_start < state_.config.vertex_batch_indices) {
        auto v = VertexIndex(p);
        if (!v.ok()) return v.error();
        auto it = lane_of.find(*v);
        if (it == lane_of.end()) {
          if (lane_vertex.size() == width) break;
          it = lane_of.emplace(*v, static_cast<uint32_t>(lane_vertex.size()))
                   .first;
          lane_vertex.push_back(*v);
        }
        positions.emplace_back(p, it->second);
        ++p;
      }
      std::vector<ShadedVertex> lanes;
      if (Status s = ShadeBatch(lane_vertex, instance, &lanes); !s.ok())
        return s;
      for (const auto& [pos, lane] : positions) (*out)[pos] = lanes[lane];
    }
    return {};
  }

  uint64_t warp_instructions() const { return ctx_.warp_instructions; }
  uint64_t lane_instructions() const { return ctx_.lane_instructions; }
  uint64_t helper_lane_instructions() const {
    return ctx_.helper_lane_instructions;
  }

 private:
  Status ShadeBatch(const std::vector<uint32_t>& vertices, uint32_t instance,
                    std::vector<ShadedVertex>* out) {
    const Program& vs = *state_.vs;
    const uint32_t n = static_cast<uint32_t>(vertices.size());
    const uint32_t mask = simt::LowLanes(n);
    Warp warp(vs, state_.config.warp_width, mask, &ctx_);
    for (uint32_t l = 0; l < n; ++l) {
      uint8_t* mem = warp.PrivateMemory(l);
      for (const InputSlot& slot : vs.inputs) {
        if (Status s = WriteVertexInput(slot, vertices[l], l, instance, mem);
            !s.ok()) {
          return s;
        }
      }
    }
    if (Status s = RunWarp(warp, ctx_, state_.config); !s.ok()) return s;
    stats_->vertex_warps += 1;
    stats_->vs_invocations += n;
    out->assign(n, ShadedVertex{});
    for (uint32_t l = 0; l < n; ++l) {
      const uint8_t* mem = warp.PrivateMemory(l);
      ShadedVertex& v = (*out)[l];
      if (position_ != nullptr) {
        for (int c = 0; c < 4; ++c)
          v.clip[c] = BitsFloat(Load32(mem, *position_, c));
      }
      if (point_size_ != nullptr)
        v.point_size = BitsFloat(Load32(mem, *point_size_, 0));
      if (clip_distance_ != nullptr) {
        v.clip_distances.resize(clip_distance_->components);
        for (uint32_t k = 0; k < clip_distance_->components; ++k) {
          v.clip_distances[k] = BitsFloat(Load32(mem, *clip_distance_, k));
        }
      }
      v.varyings.assign(varying_words_, 0);
      for (const VaryingLink& link : links_) {
        for (uint32_t k = 0; k < link.words; ++k) {
          // The VS output holding this location/component.
          const uint32_t key =
              link.fs_slot->location * 4 + link.fs_slot->component + k;
          const InputSlot* src = FindOutput(key);
          if (src == nullptr) continue;  // not written: undefined, reads 0
          const uint32_t index = key - (src->location * 4 + src->component);
          v.varyings[link.first_word + k] = Load32(mem, *src, index);
        }
      }
    }
    return {};
  }

  const InputSlot* FindOutput(uint32_t key) const {
    // The slot whose location/component range contains `key`.
    auto it = outputs_by_location_.upper_bound(key);
    if (it == outputs_by_location_.begin()) return nullptr;
    --it;
    const InputSlot* s = it->second;
    return key < it->first + s->components ? s : nullptr;
  }

  Status WriteVertexInput(const InputSlot& slot, uint32_t vertex, uint32_t lane,
                          uint32_t instance, uint8_t* mem) {
    using spv::BuiltIn;
    switch (slot.builtin) {
      case BuiltIn::VertexIndex:
        Store32(mem, slot, 0, vertex);
        return {};
      case BuiltIn::InstanceIndex:
        Store32(mem, slot, 0, instance + call_.first_instance);
        return {};
      case BuiltIn::BaseVertex:
        Store32(mem, slot, 0,
                call_.indexed ? call_.vertex_offset : call_.first);
        return {};
      case BuiltIn::BaseInstance:
        Store32(mem, slot, 0, call_.first_instance);
        return {};
      case BuiltIn::DrawIndex:
        Store32(mem, slot, 0, 0);
        return {};
      case BuiltIn::Max:
        break;
      default:
        if (WriteSubgroupBuiltin(mem, slot, lane, state_.config.warp_width))
          return {};
        return Unsupported("vertex shader input built-in " +
                           std::to_string(static_cast<uint32_t>(slot.builtin)));
    }
    const VertexInput* in = nullptr;
    for (const VertexInput& v : state_.vertex_inputs) {
      if (v.location == slot.location) in = &v;
    }
    if (in == nullptr) return {};  // no VERTEX_DATA: the input reads 0
    if (slot.scalar_bits != 32) {
      return Unsupported("vertex inputs of " +
                         std::to_string(slot.scalar_bits) + "-bit components");
    }
    const uint64_t element = in->per_instance ? instance : vertex;
    const uint64_t at = in->offset + element * in->stride;
    if (at + in->format.bytes > in->size) return {};  // out of range: zeros
    const simt::Texel t = simt::DecodeTexel(in->format, in->data + at);
    for (uint32_t c = 0; c < slot.components && slot.component + c < 4; ++c) {
      const uint32_t k = slot.component + c;
      const uint32_t word =
          slot.kind == simt::ScalarKind::kFloat
              ? (in->format.IsInteger() ? FloatBits(static_cast<float>(
                                              static_cast<int64_t>(t.i[k])))
                                        : FloatBits(t.f[k]))
              : (in->format.IsInteger() ? static_cast<uint32_t>(t.i[k])
                                        : static_cast<uint32_t>(t.f[k]));
      Store32(mem, slot, c, word);
    }
    return {};
  }

  const GraphicsState& state_;
  const DrawCall& call_;
  const std::vector<VaryingLink>& links_;
  DrawStats* stats_;
  simt::ExecContext ctx_;
  uint32_t varying_words_ = 0;
  const InputSlot* position_ = nullptr;
  const InputSlot* point_size_ = nullptr;
  const InputSlot* clip_distance_ = nullptr;
  std::map<uint32_t, const InputSlot*> outputs_by_location_;
};

// ---------------------------------------------------------------------------
// Clipping in homogeneous space (Sutherland-Hodgman). Attributes are
// interpolated linearly in clip space, which is exact for perspective-
// correct interpolation afterwards.

struct ClipVertex {
  double c[4];
  std::vector<uint32_t> varyings;
  std::vector<float> clip_distances;  // gl_ClipDistance: inside when >= 0
};

// The fixed clip planes (near, far, 4 guard-band planes, w > 0); user clip
// distances follow as planes kFixedPlanes + i.
constexpr int kFixedPlanes = 7;

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

// ---------------------------------------------------------------------------
// Rasterization and fragment shading

// One 2x2 quad of a primitive, ready to be packed into a fragment warp.
struct Quad {
  int32_t x = 0, y = 0;  // top-left pixel (even coordinates)
  uint8_t coverage = 0;  // bit i: quad pixel i covered (i = (x&1) + 2(y&1))
};

struct Triangle {
  WindowVertex v[3];  // v[0] is the provoking vertex (API order)
  bool front_facing = true;
  uint32_t primitive_id = 0;
  // Points: the square's top-left corner and size in pixels, for PointCoord.
  bool is_point = false;
  double point_x = 0, point_y = 0, point_size = 1;
};

class FragmentStage {
 public:
  FragmentStage(const GraphicsState& state,
                const std::vector<VaryingLink>& links, DrawStats* stats)
      : state_(state), links_(links), stats_(stats) {
    ctx_.regions = state.fs_regions;
    ctx_.images = state.fs_images;
    ctx_.regions.resize(
        std::max<size_t>(ctx_.regions.size(), state.fs->num_regions));
    ctx_.images.resize(ctx_.regions.size());
    for (const InputSlot& s : state.fs->outputs) {
      if (s.builtin == spv::BuiltIn::FragDepth) frag_depth_ = &s;
      if (s.builtin == spv::BuiltIn::SampleMask) sample_mask_ = &s;
    }
  }

  uint64_t warp_instructions() const { return ctx_.warp_instructions; }
  uint64_t lane_instructions() const { return ctx_.lane_instructions; }
  uint64_t helper_lane_instructions() const {
    return ctx_.helper_lane_instructions;
  }

  Status RasterizeTriangle(Triangle tri) {
    // Orientation: edge functions below are positive inside when the
    // signed area S > 0; otherwise swap v1 and v2 for the edge setup.
    int order[3] = {0, 1, 2};
    const WindowVertex* v[3] = {&tri.v[0], &tri.v[1], &tri.v[2]};
    int64_t s = (v[1]->x - v[0]->x) * (v[2]->y - v[0]->y) -
                (v[2]->x - v[0]->x) * (v[1]->y - v[0]->y);
    if (s == 0) return {};  // zero area: no fragments
    if (s < 0) {
      std::swap(order[1], order[2]);
      std::swap(v[1], v[2]);
      s = -s;
    }
    // Edge i is opposite vertex i: from v[(i+1)%3] to v[(i+2)%3].
    int64_t a[3], b[3], c[3];
    bool top_left[3];
    for (int i = 0; i < 3; ++i) {
      const WindowVertex* p = v[(i + 1) % 3];
      const WindowVertex* q = v[(i + 2) % 3];
      // E(x, y) = (q.x - p.x) * (y - p.y) - (q.y - p.y) * (x - p.x)
      a[i] = -(q->y - p->y);
      b[i] = q->x - p->x;
      c[i] = -(a[i] * p->x + b[i] * p->y);
      const int64_t dy = q->y - p->y, dx = q->x - p->x;
      // Top-left rule in the y-down framebuffer: a sample on an edge belongs
      // to the triangle whose edge is a "top" (horizontal, interior below)
      // or "left" edge.
      top_left[i] = dy < 0 || (dy == 0 && dx > 0);
    }
    auto edge = [&](int i, int64_t px, int64_t py) {
      return a[i] * px + b[i] * py + c[i];
    };
    auto covered = [&](int64_t px, int64_t py) {
      for (int i = 0; i < 3; ++i) {
        const int64_t e = edge(i, px, py);
        if (e < 0 || (e == 0 && !top_left[i])) return false;
      }
      return true;
    };
    // Bounding box in pixels, clipped to the framebuffer (the scissor).
    const int64_t min_x = std::min({v[0]->x, v[1]->x, v[2]->x});
    const int64_t max_x = std::max({v[0]->x, v[1]->x, v[2]->x});
    const int64_t min_y = std::min({v[0]->y, v[1]->y, v[2]->y});
    const int64_t max_y = std::max({v[0]->y, v[1]->y, v[2]->y});
    const int64_t fb_w = state_.framebuffer_width,
                  fb_h = state_.framebuffer_height;
    const int64_t x0 =
        std::max<int64_t>(0, min_x >> kSubPixelBits) & ~int64_t{1};
    const int64_t y0 =
        std::max<int64_t>(0, min_y >> kSubPixelBits) & ~int64_t{1};
    const int64_t x1 = std::min<int64_t>(fb_w - 1, max_x >> kSubPixelBits);
    const int64_t y1 = std::min<int64_t>(fb_h - 1, max_y >> kSubPixelBits);
    if (x1 < x0 || y1 < y0) return {};
    // Quads in tile order: tiles in raster order, quads in raster order
    // within a tile.
    const int64_t tile = std::max<uint32_t>(2, state_.config.tile_size & ~1u);
    std::vector<Quad> quads;
    for (int64_t ty = y0 - y0 % tile; ty <= y1; ty += tile) {
      for (int64_t tx = x0 - x0 % tile; tx <= x1; tx += tile) {
        for (int64_t qy = std::max(ty, y0); qy < ty + tile && qy <= y1;
             qy += 2) {
          for (int64_t qx = std::max(tx, x0); qx < tx + tile && qx <= x1;
               qx += 2) {
            uint8_t mask = 0;
            for (int i = 0; i < 4; ++i) {
              const int64_t px = qx + (i & 1), py = qy + (i >> 1);
              if (px >= fb_w || py >= fb_h) continue;
              const int64_t cx = px * kSubPixel + kSubPixel / 2;
              const int64_t cy = py * kSubPixel + kSubPixel / 2;
              if (covered(cx, cy)) mask |= static_cast<uint8_t>(1u << i);
            }
            if (mask != 0) {
              quads.push_back(
                  {static_cast<int32_t>(qx), static_cast<int32_t>(qy), mask});
            }
          }
        }
      }
    }
    if (quads.empty()) return {};
    // Barycentric weights of API-order vertex j at a pixel centre: the edge
    // function opposite it over the total (helpers extrapolate).
    Setup setup;
    for (int i = 0; i < 3; ++i) {
      setup.a[order[i]] = static_cast<double>(a[i]);
      setup.b[order[i]] = static_cast<double>(b[i]);
      setup.c[order[i]] = static_cast<double>(c[i]);
    }
    setup.area = static_cast<double>(s);
    setup.bias = DepthBias(tri, setup);
    return ShadeQuads(tri, setup, quads);
  }

 private:
  struct Setup {
    double a[3], b[3], c[3];  // per API-order vertex
    double area;
    double bias = 0;  // depth bias added to every fragment's depth
  };

  // Vulkan's depth bias: o = m * slope + r * constant (clamped), with m the
  // larger depth slope in x or y and r the attachment's minimum resolvable
  // difference: 2^-n for n-bit UNORM depth, 2^(e - 23) for float depth with
  // e the largest exponent of the primitive's depths.
  double DepthBias(const Triangle& tri, const Setup& setup) const {
    const auto& b = state_.depth_bias;
    if (!b.enable) return 0;
    double dzdx = 0, dzdy = 0;
    for (int j = 0; j < 3; ++j) {
      dzdx += tri.v[j].z * setup.a[j] * kSubPixel / setup.area;
      dzdy += tri.v[j].z * setup.b[j] * kSubPixel / setup.area;
    }
    const double m = std::max(std::abs(dzdx), std::abs(dzdy));
    double r = std::ldexp(1.0, -24);
    if (state_.depth_stencil && HasDepth(state_.depth_stencil->format)) {
      const simt::TexelFormat& f = state_.depth_stencil->format;
      uint32_t bits = 32;
      bool is_float = false;
      for (uint32_t k = 0; k < f.count; ++k) {
        if (f.comps[k].channel == 0) {
          bits = f.comps[k].bits;
          is_float = f.comps[k].kind == simt::TexelKind::kSFloat;
        }
      }
      if (is_float) {
        double max_z = 0;
        for (int j = 0; j < 3; ++j)
          max_z = std::max(max_z, std::abs(tri.v[j].z));
        int e = 0;
        std::frexp(max_z, &e);  // max_z = f * 2^e, f in [0.5, 1)
        r = max_z > 0 ? std::ldexp(1.0, e - 1 - 23) : std::ldexp(1.0, -149);
      } else {
        r = std::ldexp(1.0, -static_cast<int>(bits));
      }
    }
    double o = m * b.slope + r * b.constant;
    if (b.clamp > 0) o = std::min(o, static_cast<double>(b.clamp));
    if (b.clamp < 0) o = std::max(o, static_cast<double>(b.clamp));
    return o;
  }

  // Queues a primitive's quads for fragment warps. Early fragment tests
  // run here, before shading; with mixed packing, quads still queued from
  // earlier primitives are shaded and merged first so the tests see their
  // depth and stencil results (API order).
  Status ShadeQuads(const Triangle& tri, const Setup& setup,
                    std::vector<Quad>& quads) {
    const Program& fs = *state_.fs;
    const bool mixed = state_.config.mix_primitives_in_warps;
    if (fs.early_fragment_tests) {
      if (mixed) {
        if (Status st = Flush(); !st.ok()) return st;
      }
      for (Quad& q : quads) {
        for (int i = 0; i < 4; ++i) {
          if (!((q.coverage >> i) & 1)) continue;
          const int px = q.x + (i & 1), py = q.y + (i >> 1);
          const double z = Interpolated(setup, tri, px, py).z;
          if (!DepthStencil(px, py, static_cast<float>(z), tri.front_facing)) {
            q.coverage &= static_cast<uint8_t>(~(1u << i));
          }
        }
      }
    }
    const uint32_t index = static_cast<uint32_t>(tris_.size());
    tris_.push_back({tri, setup});
    for (const Quad& q : quads) {
      if (q.coverage != 0) pending_.push_back({q, index});
    }
    const size_t quads_per_warp = std::max(1u, state_.config.warp_width / 4);
    if (!mixed) return Flush();  // a primitive's last warp may be partial
    while (pending_.size() >= quads_per_warp) {
      if (Status st = ShadeWarp(quads_per_warp); !st.ok()) return st;
    }
    return {};
  }

 public:
  // Shades every queued quad (at the end of a draw, or of a primitive when
  // quads do not mix primitives).
  Status Flush() {
    const size_t quads_per_warp = std::max(1u, state_.config.warp_width / 4);
    while (!pending_.empty()) {
      if (Status st = ShadeWarp(std::min(quads_per_warp, pending_.size()));
          !st.ok()) {
        return st;
      }
    }
    tris_.clear();
    return {};
  }

 private:
  struct TriangleSetup {
    Triangle tri;
    Setup setup;
  };
  struct PendingQuad {
    Quad quad;
    uint32_t triangle;  // index into tris_
  };

  // Runs one fragment warp over the first `n` queued quads and merges its
  // results in quad order (API order).
  Status ShadeWarp(size_t n) {
    const Program& fs = *state_.fs;
    const uint32_t width = state_.config.warp_width;
    // Lane layout: quad q occupies lanes 4q..4q+3, lane 4q + (x&1) + 2(y&1).
    const uint32_t lanes = static_cast<uint32_t>(n * 4);
    const uint32_t launch = simt::LowLanes(lanes);
    uint32_t helpers = 0;
    for (size_t k = 0; k < n; ++k) {
      const uint32_t uncovered = ~pending_[k].quad.coverage & 0xfu;
      helpers |= uncovered << (4 * k);
    }
    Warp warp(fs, width, launch, &ctx_);
    warp.set_helper(helpers);
    for (size_t k = 0; k < n; ++k) {
      const Quad& q = pending_[k].quad;
      const TriangleSetup& t = tris_[pending_[k].triangle];
      for (int i = 0; i < 4; ++i) {
        const uint32_t lane = static_cast<uint32_t>(4 * k + i);
        if (Status st =
                WriteFragmentInputs(warp, lane, t.tri, t.setup, q.x + (i & 1),
                                    q.y + (i >> 1), (helpers >> lane) & 1);
            !st.ok()) {
          return st;
        }
      }
    }
    if (Status st = RunWarp(warp, ctx_, state_.config); !st.ok()) return st;
    stats_->fragment_warps += 1;
    stats_->quads += n;
    stats_->helper_lanes += std::popcount(helpers);
    stats_->fs_invocations += std::popcount(launch & ~helpers);
    for (size_t k = 0; k < n; ++k) {
      const Quad& q = pending_[k].quad;
      const TriangleSetup& t = tris_[pending_[k].triangle];
      for (int i = 0; i < 4; ++i) {
        const uint32_t lane = static_cast<uint32_t>(4 * k + i);
        if ((helpers >> lane) & 1) continue;
        if (((warp.discarded() | warp.demoted()) >> lane) & 1) continue;
        MergeFragment(warp, lane, t.tri, t.setup, q.x + (i & 1),
                      q.y + (i >> 1));
      }
    }
    pending_.erase(pending_.begin(),
                   pending_.begin() + static_cast<std::ptrdiff_t>(n));
    return {};
  }

  std::vector<TriangleSetup> tris_;
  std::vector<PendingQuad> pending_;

  struct Interp {
    double b[3];  // perspective-correct weights of the API-order vertices
    double lin[3];
    double z;
    double inv_w;
  };

  Interp Interpolated(const Setup& setup, const Triangle& tri, int px,
                      int py) const {
    Interp r;
    const double cx = px * static_cast<double>(kSubPixel) + kSubPixel / 2.0;
    const double cy = py * static_cast<double>(kSubPixel) + kSubPixel / 2.0;
    double sum_p = 0;
    for (int j = 0; j < 3; ++j) {
      r.lin[j] = (setup.a[j] * cx + setup.b[j] * cy + setup.c[j]) / setup.area;
    }
    r.z = 0;
    r.inv_w = 0;
    for (int j = 0; j < 3; ++j) {
      r.z += r.lin[j] * tri.v[j].z;  // (bias added below)
      r.inv_w += r.lin[j] * tri.v[j].inv_w;
      r.b[j] = r.lin[j] * tri.v[j].inv_w;
      sum_p += r.b[j];
    }
    for (int j = 0; j < 3; ++j) r.b[j] = sum_p != 0 ? r.b[j] / sum_p : r.lin[j];
    r.z += setup.bias;
    return r;
  }

  Status WriteFragmentInputs(Warp& warp, uint32_t lane, const Triangle& tri,
                             const Setup& setup, int px, int py, bool helper) {
    using spv::BuiltIn;
    const Interp in = Interpolated(setup, tri, px, py);
    uint8_t* mem = warp.PrivateMemory(lane);
    for (const InputSlot& slot : state_.fs->inputs) {
      switch (slot.builtin) {
        case BuiltIn::FragCoord:
          Store32(mem, slot, 0, FloatBits(static_cast<float>(px + 0.5)));
          Store32(mem, slot, 1, FloatBits(static_cast<float>(py + 0.5)));
          Store32(mem, slot, 2, FloatBits(static_cast<float>(in.z)));
          Store32(mem, slot, 3, FloatBits(static_cast<float>(in.inv_w)));
          continue;
        case BuiltIn::FrontFacing:
          Store32(mem, slot, 0, tri.front_facing ? 1 : 0);
          continue;
        case BuiltIn::PrimitiveId:
          Store32(mem, slot, 0, tri.primitive_id);
          continue;
        case BuiltIn::HelperInvocation:
          Store32(mem, slot, 0, helper ? 1 : 0);
          continue;
        case BuiltIn::SampleId:
        case BuiltIn::Layer:
        case BuiltIn::ViewportIndex:
        case BuiltIn::ViewIndex:
          Store32(mem, slot, 0, 0);
          continue;
        case BuiltIn::SampleMask:
          Store32(mem, slot, 0, helper ? 0 : 1);
          continue;
        case BuiltIn::SamplePosition:  // the single sample is at the centre
          Store32(mem, slot, 0, FloatBits(0.5f));
          Store32(mem, slot, 1, FloatBits(0.5f));
          continue;
        case BuiltIn::PointCoord: {
          // Where the fragment centre lies in the point's square, 0..1
          // (Vulkan: (x_f - x_p + size/2) / size); 0.5 for other primitives.
          float s = 0.5f, t = 0.5f;
          if (tri.is_point) {
            s = static_cast<float>((px + 0.5 - tri.point_x) / tri.point_size);
            t = static_cast<float>((py + 0.5 - tri.point_y) / tri.point_size);
          }
          Store32(mem, slot, 0, FloatBits(s));
          Store32(mem, slot, 1, FloatBits(t));
          continue;
        }
        case BuiltIn::Max:
          break;
        default:
          if (WriteSubgroupBuiltin(mem, slot, lane, state_.config.warp_width)) {
            continue;
          }
          return Unsupported(
              "fragment shader input built-in " +
              std::to_string(static_cast<uint32_t>(slot.builtin)));
      }
    }
    for (const VaryingLink& link : links_) {
      const InputSlot& slot = *link.fs_slot;
      for (uint32_t k = 0; k < link.words; ++k) {
        const uint32_t i = link.first_word + k;
        uint32_t word;
        if (link.flat()) {
          word = (*tri.v[0].varyings)[i];  // provoking vertex
        } else {
          const double* w =
              slot.interpolation == simt::Interpolation::kNoPerspective ? in.lin
                                                                        : in.b;
          double f = 0;
          for (int j = 0; j < 3; ++j)
            f += w[j] * BitsFloat((*tri.v[j].varyings)[i]);
          word = FloatBits(static_cast<float>(f));
        }
        Store32(mem, slot, k, word);
      }
    }
    return {};
  }

  // Depth bounds, stencil and depth tests for one pixel; updates the
  // depth/stencil attachment. True when the fragment survives.
  bool DepthStencil(int px, int py, float z, bool front_facing) {
    if (!state_.depth_stencil) return true;
    const Attachment& ds = *state_.depth_stencil;
    if (static_cast<uint32_t>(px) >= ds.width ||
        static_cast<uint32_t>(py) >= ds.height) {
      return true;
    }
    uint8_t* texel =
        ds.data + (static_cast<uint64_t>(py) * ds.width + px) * ds.format.bytes;
    if (texel + ds.format.bytes > ds.data + ds.size) return true;
    const bool has_depth = HasDepth(ds.format),
               has_stencil = HasStencil(ds.format);
    float depth = has_depth ? ReadDepth(ds.format, texel) : 0.0f;
    uint8_t stencil = has_stencil ? ReadStencil(ds.format, texel) : 0;
    const float zq = QuantizeFragmentDepth(state_.depth, ds.format, z,
                                           state_.viewport.min_depth,
                                           state_.viewport.max_depth);
    const DepthStencilResult r = TestDepthStencil(
        state_.depth, state_.stencil, front_facing, zq,
        has_depth ? &depth : nullptr, has_stencil ? &stencil : nullptr);
    if (r.depth_written) WriteDepth(ds.format, depth, texel);
    if (r.stencil_written) WriteStencil(ds.format, stencil, texel);
    return r.pass;
  }

  void MergeFragment(Warp& warp, uint32_t lane, const Triangle& tri,
                     const Setup& setup, int px, int py) {
    const uint8_t* mem = warp.PrivateMemory(lane);
    if (sample_mask_ != nullptr && (Load32(mem, *sample_mask_, 0) & 1u) == 0)
      return;
    if (!state_.fs->early_fragment_tests) {
      float z = static_cast<float>(Interpolated(setup, tri, px, py).z);
      if (frag_depth_ != nullptr) z = BitsFloat(Load32(mem, *frag_depth_, 0));
      if (!DepthStencil(px, py, z, tri.front_facing)) return;
    }
    for (const Attachment& att : state_.colors) {
      const InputSlot* out = nullptr;
      for (const InputSlot& s : state_.fs->outputs) {
        if (s.builtin == spv::BuiltIn::Max && s.location == att.location)
          out = &s;
      }
      if (out == nullptr) continue;  // no output for this location: unchanged
      if (static_cast<uint32_t>(px) >= att.width ||
          static_cast<uint32_t>(py) >= att.height) {
        continue;
      }
      uint8_t* texel = att.data + (static_cast<uint64_t>(py) * att.width + px) *
                                      att.format.bytes;
      if (texel + att.format.bytes > att.data + att.size) continue;
      simt::Texel src;
      for (uint32_t c = 0; c < 4; ++c) {
        const uint32_t word =
            c < out->components ? Load32(mem, *out, c) : (c == 3 ? 1 : 0);
        if (out->kind == simt::ScalarKind::kFloat) {
          src.f[c] =
              c < out->components ? BitsFloat(word) : (c == 3 ? 1.0f : 0.0f);
          src.i[c] = static_cast<uint64_t>(static_cast<int64_t>(src.f[c]));
        } else {
          src.i[c] = out->kind == simt::ScalarKind::kInt
                         ? static_cast<uint64_t>(
                               static_cast<int64_t>(static_cast<int32_t>(word)))
                         : word;
          src.f[c] = static_cast<float>(static_cast<int32_t>(word));
        }
      }
      WriteColor(att.format, state_.blend, state_.blend_constants, src, texel);
    }
  }

  const GraphicsState& state_;
  const std::vector<VaryingLink>& links_;
  DrawStats* stats_;
  simt::ExecContext ctx_;
  const InputSlot* frag_depth_ = nullptr;
  const InputSlot* sample_mask_ = nullptr;
};

// Window-space vertex from a clip-space one.
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

// Draws a window-space rectangle given by four corners (in order around the
// rectangle) as two triangles that share a diagonal; the top-left rule keeps
// pixels on the diagonal from being covered twice.
Status RasterizeRectangle(WindowVertex corners[4], uint32_t primitive_id,
                          FragmentStage* fragment, DrawStats* stats,
                          const Triangle& shape = Triangle{}) {
  for (int t = 0; t < 2; ++t) {
    Triangle tri = shape;
    tri.v[0] = corners[0];
    tri.v[1] = corners[1 + t];
    tri.v[2] = corners[2 + t];
    tri.front_facing = true;  // points and lines are always front-facing
    tri.primitive_id = primitive_id;
    if (Status s = fragment->RasterizeTriangle(tri); !s.ok()) return s;
  }
  stats->primitives_out += 1;
  return {};
}

bool InsideDepthAndW(const ShadedVertex& v, bool depth_clamp) {
  const double z = v.clip[2], w = v.clip[3];
  return w > 0 && (depth_clamp || (z >= 0 && z <= w));
}

// A point: a square of PointSize pixels centred on the vertex (points whose
// vertex lies outside the clip volume are discarded, as in Vulkan).
Status RasterizePoint(const GraphicsState& state, const ShadedVertex& v,
                      uint32_t primitive_id, FragmentStage* fragment,
                      DrawStats* stats) {
  if (!InsideDepthAndW(v, state.depth.clamp)) return {};
  const WindowVertex c = ToWindow(v.clip, state.viewport, &v.varyings);
  const int64_t h =
      std::llround(std::max(1.0f, v.point_size) * kSubPixel / 2.0);
  WindowVertex corners[4] = {c, c, c, c};
  const int64_t dx[4] = {-h, h, h, -h}, dy[4] = {-h, -h, h, h};
  for (int i = 0; i < 4; ++i) {
    corners[i].x += dx[i];
    corners[i].y += dy[i];
  }
  Triangle shape;
  shape.is_point = true;
  shape.point_size = 2.0 * static_cast<double>(h) / kSubPixel;
  shape.point_x = static_cast<double>(c.x - h) / kSubPixel;
  shape.point_y = static_cast<double>(c.y - h) / kSubPixel;
  return RasterizeRectangle(corners, primitive_id, fragment, stats, shape);
}

// A line: the rectangle of width 1 centred on the segment (Vulkan's
// rectangular lines), after clipping the segment to the clip volume.
Status RasterizeLine(const GraphicsState& state, const ShadedVertex& a,
                     const ShadedVertex& b,
                     const std::vector<VaryingLink>& links,
                     uint32_t primitive_id, FragmentStage* fragment,
                     DrawStats* stats) {
  ClipVertex p0, p1;
  std::copy(a.clip, a.clip + 4, p0.c);
  std::copy(b.clip, b.clip + 4, p1.c);
  p0.varyings = a.varyings;
  p1.varyings = b.varyings;
  p0.clip_distances = a.clip_distances;
  p1.clip_distances = b.clip_distances;
  double t0 = 0, t1 = 1;
  const int planes = kFixedPlanes + static_cast<int>(p0.clip_distances.size());
  for (int plane = 0; plane < planes; ++plane) {
    const double d0 = PlaneDistance(p0, plane, state.depth.clamp);
    const double d1 = PlaneDistance(p1, plane, state.depth.clamp);
    if (d0 < 0 && d1 < 0) return {};
    if (d0 < 0) t0 = std::max(t0, d0 / (d0 - d1));
    if (d1 < 0) t1 = std::min(t1, d0 / (d0 - d1));
  }
  if (t0 > t1) return {};
  ClipVertex q0 = Lerp(p0, p1, t0, links), q1 = Lerp(p0, p1, t1, links);
  // Flat inputs come from the provoking (first) vertex.
  CopyFlatVaryings(a.varyings, links, &q0.varyings);
  CopyFlatVaryings(a.varyings, links, &q1.varyings);
  const WindowVertex w0 = ToWindow(q0.c, state.viewport, &q0.varyings);
  const WindowVertex w1 = ToWindow(q1.c, state.viewport, &q1.varyings);
  const double dx = static_cast<double>(w1.x - w0.x);
  const double dy = static_cast<double>(w1.y - w0.y);
  const double len = std::sqrt(dx * dx + dy * dy);
  if (len == 0) return {};
  // Half the line width (1 pixel) along the normal, in sub-pixel units.
  const int64_t nx = std::llround(-dy / len * kSubPixel / 2.0);
  const int64_t ny = std::llround(dx / len * kSubPixel / 2.0);
  WindowVertex corners[4] = {w0, w1, w1, w0};
  corners[0].x += nx;
  corners[0].y += ny;
  corners[1].x += nx;
  corners[1].y += ny;
  corners[2].x -= nx;
  corners[2].y -= ny;
  corners[3].x -= nx;
  corners[3].y -= ny;
  return RasterizeRectangle(corners, primitive_id, fragment, stats);
}

}  // namespace

Result<DrawStats> Draw(const GraphicsState& state, const DrawCall& call) {
  DrawStats stats;
  if (state.vs == nullptr || state.fs == nullptr) {
    return InvalidInput(
        "a graphics pipeline needs a vertex and a fragment shader");
  }
  if (state.config.warp_width % 4 != 0) {
    return Unsupported(
        "fragment shading with a warp width that is not a multiple of 4");
  }
  // Link FS user inputs to VS outputs by location.
  std::vector<VaryingLink> links;
  uint32_t words = 0;
  for (const InputSlot& s : state.fs->inputs) {
    if (s.builtin != spv::BuiltIn::Max || s.location == 0xffffffffu) continue;
    if (s.scalar_bits != 32) {
      return Unsupported("fragment inputs with " +
                         std::to_string(s.scalar_bits) + "-bit components");
    }
    links.push_back({&s, words, s.components});
    words += s.components;
  }
  VertexStage vertex(state, call, links, &stats);
  FragmentStage fragment(state, links, &stats);
  const bool depth_clamp = state.depth.clamp;
  std::vector<ShadedVertex> shaded;
  for (uint32_t instance = 0; instance < call.instance_count; ++instance) {
    if (Status s = vertex.ShadeInstance(instance, &shaded); !s.ok())
      return s.error();
    // Points and lines: assembled, clipped and rasterized as small
    // rectangles (PointsAndLines below).
    const uint32_t n = call.count;
    if (state.topology == Topology::kPointList ||
        state.topology == Topology::kLineList ||
        state.topology == Topology::kLineStrip) {
      std::vector<std::array<uint32_t, 2>> prims;
      if (state.topology == Topology::kPointList) {
        for (uint32_t i = 0; i < n; ++i) prims.push_back({i, i});
      } else if (state.topology == Topology::kLineList) {
        for (uint32_t i = 0; i + 1 < n; i += 2) prims.push_back({i, i + 1});
      } else {
        for (uint32_t i = 0; i + 1 < n; ++i) prims.push_back({i, i + 1});
      }
      uint32_t primitive_id = 0;
      for (const auto& pr : prims) {
        stats.primitives_in += 1;
        Status s = state.topology == Topology::kPointList
                       ? RasterizePoint(state, shaded[pr[0]], primitive_id,
                                        &fragment, &stats)
                       : RasterizeLine(state, shaded[pr[0]], shaded[pr[1]],
                                       links, primitive_id, &fragment, &stats);
        if (!s.ok()) return s.error();
        ++primitive_id;
      }
      continue;
    }
    // Primitive assembly (Vulkan's vertex order per topology; the first
    // vertex listed is the provoking vertex).
    std::vector<std::array<uint32_t, 3>> tris;
    switch (state.topology) {
      case Topology::kTriangleList:
        for (uint32_t i = 0; i + 2 < n; i += 3)
          tris.push_back({i, i + 1, i + 2});
        break;
      case Topology::kTriangleStrip:
        for (uint32_t i = 0; i + 2 < n; ++i) {
          if (i % 2 == 0) {
            tris.push_back({i, i + 1, i + 2});
          } else {
            tris.push_back({i, i + 2, i + 1});
          }
        }
        break;
      case Topology::kTriangleFan:
        for (uint32_t i = 0; i + 2 < n; ++i) tris.push_back({i + 1, i + 2, 0});
        break;
      default:
        break;
    }
    uint32_t primitive_id = 0;
    for (const auto& t : tris) {
      stats.primitives_in += 1;
      const ShadedVertex* v[3] = {&shaded[t[0]], &shaded[t[1]], &shaded[t[2]]};
      std::vector<std::vector<WindowVertex>> polys;
      std::vector<ClipVertex> clipped;
      std::vector<WindowVertex> window;
      if (NeedsClipping(v, depth_clamp)) {
        std::vector<ClipVertex> poly(3);
        for (int i = 0; i < 3; ++i) {
          std::copy(v[i]->clip, v[i]->clip + 4, poly[i].c);
          poly[i].varyings = v[i]->varyings;
          poly[i].clip_distances = v[i]->clip_distances;
        }
        clipped = ClipPolygon(std::move(poly), depth_clamp, links);
        if (clipped.size() < 3) {
          ++primitive_id;
          continue;
        }
        for (const ClipVertex& cv : clipped) {
          window.push_back(ToWindow(cv.c, state.viewport, &cv.varyings));
        }
        // Flat inputs use the original provoking vertex.
        for (ClipVertex& cv : clipped) {
          CopyFlatVaryings(v[0]->varyings, links, &cv.varyings);
        }
      } else {
        for (int i = 0; i < 3; ++i) {
          window.push_back(
              ToWindow(v[i]->clip, state.viewport, &v[i]->varyings));
        }
      }
      // Facing from the whole (clipped) polygon's signed area
      // a = -1/2 sum(x_i y_i+1 - x_i+1 y_i) in the y-down framebuffer.
      double sum = 0;
      for (size_t i = 0; i < window.size(); ++i) {
        const WindowVertex& p = window[i];
        const WindowVertex& q = window[(i + 1) % window.size()];
        sum += static_cast<double>(p.x) * static_cast<double>(q.y) -
               static_cast<double>(q.x) * static_cast<double>(p.y);
      }
      const double area = -0.5 * sum;
      const bool front = state.front_face_ccw ? area > 0 : area < 0;
      const bool culled = (state.cull == CullMode::kFrontAndBack) ||
                          (state.cull == CullMode::kFront && front) ||
                          (state.cull == CullMode::kBack && !front);
      if (area == 0 || culled) {
        ++primitive_id;
        continue;
      }
      if (state.polygon_mode == PolygonMode::kPoint ||
          state.polygon_mode == PolygonMode::kLine) {
        // Non-solid fill: the triangle's vertices or edges (unclipped
        // triangles only: clipping would add edges that are not the
        // triangle's).
        for (int i = 0; i < 3; ++i) {
          Status st = state.polygon_mode == PolygonMode::kPoint
                          ? RasterizePoint(state, *v[i], primitive_id,
                                           &fragment, &stats)
                          : RasterizeLine(state, *v[i], *v[(i + 1) % 3], links,
                                          primitive_id, &fragment, &stats);
          if (!st.ok()) return st.error();
        }
        ++primitive_id;
        continue;
      }
      // Fan-triangulate the polygon; each piece keeps the primitive's id,
      // facing and provoking vertex.
      for (size_t i = 1; i + 1 < window.size(); ++i) {
        Triangle tri;
        tri.v[0] = window[0];
        tri.v[1] = window[i];
        tri.v[2] = window[i + 1];
        tri.front_facing = front;
        tri.primitive_id = primitive_id;
        stats.primitives_out += 1;
        if (Status s = fragment.RasterizeTriangle(tri); !s.ok())
          return s.error();
      }
      ++primitive_id;
    }
  }
  if (Status s = fragment.Flush(); !s.ok()) return s.error();
  stats.warp_instructions =
      vertex.warp_instructions() + fragment.warp_instructions();
  stats.lane_instructions =
      vertex.lane_instructions() + fragment.lane_instructions();
  stats.helper_lane_instructions =
      vertex.helper_lane_instructions() + fragment.helper_lane_instructions();
  return stats;
}

}  // namespace warpsim::pipeline
