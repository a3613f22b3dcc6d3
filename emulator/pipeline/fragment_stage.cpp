#include "pipeline/fragment_stage.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "base/bits.h"
#include "pipeline/clipping.h"
#include "pipeline/compute.h"
#include "pipeline/output_merge.h"

namespace warpsim::pipeline::internal {

using simt::Program;
using simt::Warp;

FragmentStage::FragmentStage(const GraphicsState& state,
                             const std::vector<VaryingLink>& links)
    : state_(state), links_(links) {
  context_.regions = state.fs_regions;
  context_.images = state.fs_images;
  context_.regions.resize(
      std::max<size_t>(context_.regions.size(), state.fs->num_regions));
  context_.images.resize(context_.regions.size());
  for (const InputSlot& s : state.fs->outputs) {
    if (s.builtin == spv::BuiltIn::FragDepth) frag_depth_ = &s;
    if (s.builtin == spv::BuiltIn::SampleMask) sample_mask_ = &s;
  }
  for (const VaryingLink& link : links_) {
    if (!link.flat() &&
        link.fs_slot->interpolation != simt::Interpolation::kNoPerspective) {
      perspective_varyings_ = true;
    }
  }
  // Without a depth/stencil attachment the late tests pass whatever z is.
  late_tests_ = !state.fs->early_fragment_tests && state.depth_stencil;
  for (const Attachment& att : state.colors) {
    const InputSlot* out = nullptr;
    for (const InputSlot& s : state.fs->outputs) {
      if (s.builtin == spv::BuiltIn::Max && s.location == att.location) {
        out = &s;
      }
    }
    att_output_.push_back(out);
    uint32_t bits = 0;
    uint8_t channels = 0;
    for (uint32_t k = 0; k < att.format.count; ++k) {
      const simt::TexelComponent& c = att.format.comps[k];
      if (c.channel <= 3) {
        bits += c.bits;
        channels |= static_cast<uint8_t>(1u << c.channel);
      }
    }
    const bool direct = out != nullptr && bits == 8 * att.format.bytes &&
                        (state.blend.color_write_mask & channels) == channels &&
                        (!state.blend.enable || att.format.IsInteger());
    att_direct_.push_back(direct);
    att_offset_.push_back(encoded_stride_);
    if (direct) encoded_stride_ += att.format.bytes;
  }
}

Status FragmentStage::RasterizeTriangle(const Triangle& tri) {
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
  const int64_t x0 = std::max<int64_t>(0, min_x >> kSubPixelBits) & ~int64_t{1};
  const int64_t y0 = std::max<int64_t>(0, min_y >> kSubPixelBits) & ~int64_t{1};
  const int64_t x1 = std::min<int64_t>(fb_w - 1, max_x >> kSubPixelBits);
  const int64_t y1 = std::min<int64_t>(fb_h - 1, max_y >> kSubPixelBits);
  if (x1 < x0 || y1 < y0) return {};
  // Quads in tile order: tiles in raster order; within a tile, raster
  // order, or (kTiles) bands of `band` pixel rows walked column by column.
  const int64_t tile = std::max<uint32_t>(2, state_.config.tile_size & ~1u);
  const bool tiles = state_.config.quad_packing == QuadPacking::kTiles;
  const int64_t band =
      tiles ? std::max<int64_t>(2, 2 * (state_.config.warp_width / 8)) : 2;
  std::vector<Quad> quads;
  auto visit = [&](int64_t qx, int64_t qy) {
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
  };
  for (int64_t ty = y0 - y0 % tile; ty <= y1; ty += tile) {
    for (int64_t tx = x0 - x0 % tile; tx <= x1; tx += tile) {
      const int64_t qx0 = std::max(tx, x0), qy0 = std::max(ty, y0);
      const int64_t qx1 = std::min(tx + tile - 1, x1);
      const int64_t qy1 = std::min(ty + tile - 1, y1);
      if (!tiles) {
        for (int64_t qy = qy0; qy <= qy1; qy += 2) {
          for (int64_t qx = qx0; qx <= qx1; qx += 2) visit(qx, qy);
        }
        continue;
      }
      for (int64_t by = ty; by <= qy1; by += band) {
        for (int64_t qx = qx0; qx <= qx1; qx += 2) {
          for (int64_t qy = std::max(by, qy0); qy < by + band && qy <= qy1;
               qy += 2) {
            visit(qx, qy);
          }
        }
      }
    }
  }
  if (quads.empty()) return {};
  // Barycentric weights of API-order vertex j at a pixel centre: the edge
  // function opposite it over the total (helpers extrapolate).
  // Barycentric weights of API-order vertex j at a pixel centre: the edge
  // function opposite it over the total (helpers extrapolate).
  auto t = std::make_shared<TriangleSetup>();
  t->tri = tri;
  for (int i = 0; i < 3; ++i) {
    t->a[order[i]] = static_cast<double>(a[i]);
    t->b[order[i]] = static_cast<double>(b[i]);
    t->c[order[i]] = static_cast<double>(c[i]);
  }
  t->area = static_cast<double>(s);
  t->bias = DepthBias(*t);
  for (int j = 0; j < 3; ++j) {
    if (tri.v[j].varyings != nullptr) t->varyings[j] = *tri.v[j].varyings;
    t->tri.v[j].varyings = &t->varyings[j];
    t->tri.v[j].own.clear();
  }
  t->depends_on = depends_on_;
  // Early fragment tests run here, before shading, in API order. With
  // mixed packing, quads still queued from earlier primitives end their
  // warp first.
  if (state_.fs->early_fragment_tests) {
    if (state_.config.quad_packing == QuadPacking::kMixed) EndGroup();
    for (Quad& q : quads) {
      for (int i = 0; i < 4; ++i) {
        if (!((q.coverage >> i) & 1)) continue;
        const int px = q.x + (i & 1), py = q.y + (i >> 1);
        const double z = InterpolatedDepth(*t, px, py);
        if (!DepthStencil(px, py, static_cast<float>(z), tri.front_facing)) {
          q.coverage &= static_cast<uint8_t>(~(1u << i));
        }
      }
    }
  }
  if (tiles) {
    for (const Quad& q : quads) {
      if (q.coverage != 0) PackIntoTile({q, t});
    }
    return {};
  }
  const size_t before = pending_.size();
  for (const Quad& q : quads) {
    if (q.coverage != 0) pending_.push_back({q, t});
  }
  // Unless warps may mix primitives, a triangle's last warp may be partial.
  if (state_.config.quad_packing == QuadPacking::kPerPrimitive &&
      pending_.size() > before) {
    EndGroup();
  }
  return {};
}

void FragmentStage::PackIntoTile(const PendingQuad& q) {
  const int32_t tile =
      static_cast<int32_t>(std::max<uint32_t>(2, state_.config.tile_size));
  const int32_t tx = q.quad.x / tile, ty = q.quad.y / tile;
  OpenTile* open = nullptr;
  for (OpenTile& o : open_tiles_) {
    if (o.tx == tx && o.ty == ty) open = &o;
  }
  if (open == nullptr) {
    if (open_tiles_.size() >= std::max(1u, state_.config.open_tiles)) {
      auto lru = std::min_element(open_tiles_.begin(), open_tiles_.end(),
                                  [](const OpenTile& a, const OpenTile& b) {
                                    return a.last_use < b.last_use;
                                  });
      LaunchOpenTile(&*lru);
      open_tiles_.erase(lru);
    }
    open_tiles_.push_back({tx, ty, {}, 0});
    open = &open_tiles_.back();
  }
  open->last_use = ++use_clock_;
  open->quads.push_back(q);
  ++open_quads_;
  if (open->quads.size() >= std::max(1u, state_.config.warp_width / 4)) {
    LaunchOpenTile(open);
  }
}

void FragmentStage::LaunchOpenTile(OpenTile* tile) {
  if (tile->quads.empty()) return;
  open_quads_ -= tile->quads.size();
  pending_.insert(pending_.end(), std::make_move_iterator(tile->quads.begin()),
                  std::make_move_iterator(tile->quads.end()));
  tile->quads.clear();
  MarkGroupEnd();
}

double FragmentStage::DepthBias(const TriangleSetup& setup) const {
  const Triangle& tri = setup.tri;
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
      for (int j = 0; j < 3; ++j) max_z = std::max(max_z, std::abs(tri.v[j].z));
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
void FragmentStage::EndGroup() {
  // The end of a draw launches every open tile warp, least recently used
  // first (LaunchOpenTile ends its own group).
  if (!open_tiles_.empty()) {
    std::sort(open_tiles_.begin(), open_tiles_.end(),
              [](const OpenTile& a, const OpenTile& b) {
                return a.last_use < b.last_use;
              });
    std::vector<OpenTile> open = std::move(open_tiles_);
    open_tiles_.clear();
    for (OpenTile& o : open) LaunchOpenTile(&o);
  }
  MarkGroupEnd();
}

void FragmentStage::MarkGroupEnd() {
  if (pending_.size() > head_ &&
      (breaks_.empty() || breaks_.back() != pending_.size())) {
    breaks_.push_back(pending_.size());
  }
}

size_t FragmentStage::NextWarpQuads() const {
  const size_t quads_per_warp = std::max(1u, state_.config.warp_width / 4);
  const size_t queued = pending_.size() - head_;
  if (queued == 0) return 0;
  size_t b = next_break_;
  while (b < breaks_.size() && breaks_[b] <= head_) ++b;
  // A group that ends within the next warp's reach ends the warp.
  if (b < breaks_.size() && breaks_[b] - head_ <= quads_per_warp) {
    return breaks_[b] - head_;
  }
  return queued >= quads_per_warp ? quads_per_warp : 0;
}

Result<std::unique_ptr<FragmentWork>> FragmentStage::MakeWarp() {
  const size_t n = NextWarpQuads();
  if (n == 0) return InternalError("no fragment warp to make");
  const Program& fs = *state_.fs;
  auto work = std::make_unique<FragmentWork>();
  work->kind = WorkKind::kFragment;
  if (!free_buffers_.empty()) {
    Buffers& b = free_buffers_.back();
    work->quads = std::move(b.quads);
    work->depends_on = std::move(b.depends_on);
    work->context.regions = std::move(b.regions);
    work->context.images = std::move(b.images);
    work->colors = std::move(b.colors);
    work->encoded = std::move(b.encoded);
    work->warps = std::move(b.warps);
    free_buffers_.pop_back();
  }
  // Sized here, on the producing thread: Finish() only writes them.
  work->colors.resize(32 * state_.colors.size());
  work->encoded.resize(32 * size_t{encoded_stride_});
  work->quads.assign(pending_.begin() + static_cast<std::ptrdiff_t>(head_),
                     pending_.begin() + static_cast<std::ptrdiff_t>(head_ + n));
  // Consumed quads stay until every queued quad is in a warp: erasing from
  // the front would make shading quadratic in a primitive's quads.
  head_ += n;
  while (next_break_ < breaks_.size() && breaks_[next_break_] <= head_) {
    ++next_break_;
  }
  if (head_ == pending_.size()) {
    pending_.clear();
    breaks_.clear();
    head_ = next_break_ = 0;
  }
  // Dependencies: the vertex batches of every triangle in the warp.
  for (const PendingQuad& q : work->quads) {
    for (uint64_t id : q.triangle->depends_on) {
      if (std::find(work->depends_on.begin(), work->depends_on.end(), id) ==
          work->depends_on.end()) {
        work->depends_on.push_back(id);
      }
    }
  }
  work->launch = simt::LowLanes(static_cast<uint32_t>(n * 4));
  for (size_t k = 0; k < n; ++k) {
    const uint32_t uncovered = ~work->quads[k].quad.coverage & 0xfu;
    work->helpers |= uncovered << (4 * k);
  }
  work->context.regions = context_.regions;
  work->context.images = context_.images;
  std::unique_ptr<Warp> warp;
  if (!free_warps_.empty()) {
    warp = std::move(free_warps_.back());
    free_warps_.pop_back();
    work->reset_warp = true;  // by Prepare(), on the thread that runs it
  } else {
    warp = std::make_unique<Warp>(fs, state_.config.warp_width, work->launch,
                                  &work->context);
  }
  work->stage = this;  // the inputs are written by Prepare()
  work->warps.push_back(std::move(warp));
  return work;
}

void FragmentWork::Quads(size_t warp, std::vector<QuadFootprint>* out) const {
  if (warp != 0) return;  // a fragment item is one warp
  for (const PendingQuad& q : quads) {
    out->push_back(
        {q.quad.x, q.quad.y, q.quad.coverage, q.triangle->tri.primitive_id});
  }
}

Status FragmentWork::Prepare() {
  Warp& warp = *warps[0];
  if (reset_warp) warp.Reset(launch, &context);
  warp.set_helper(helpers);
  for (size_t k = 0; k < quads.size(); ++k) {
    const Quad& q = quads[k].quad;
    for (int i = 0; i < 4; ++i) {
      const uint32_t lane = static_cast<uint32_t>(4 * k + i);
      if (Status st = stage->WriteFragmentInputs(warp, lane, *quads[k].triangle,
                                                 q.x + (i & 1), q.y + (i >> 1),
                                                 (helpers >> lane) & 1);
          !st.ok()) {
        return st;
      }
    }
  }
  return {};
}

void FragmentStage::Retire(FragmentWork& work, DrawStats* stats) {
  // A driver that ran the warps without RunToCompletion: finish here.
  if (!work.outputs_ready) FinishOutputs(work);
  stats->fragment_warps += 1;
  stats->quads += work.quads.size();
  uint32_t ids[32];
  uint32_t primitives = 0;
  for (const PendingQuad& q : work.quads) {
    const uint32_t id = q.triangle->tri.primitive_id;
    if (std::find(ids, ids + primitives, id) == ids + primitives) {
      ids[primitives++] = id;
    }
  }
  stats->primitives_per_fragment_warp[primitives] += 1;
  stats->helper_lanes += PopCount32(work.helpers);
  stats->fs_invocations += PopCount32(work.launch & ~work.helpers);
  for (size_t k = 0; k < work.quads.size(); ++k) {
    const Quad& q = work.quads[k].quad;
    for (int i = 0; i < 4; ++i) {
      const uint32_t lane = static_cast<uint32_t>(4 * k + i);
      if (((work.merged >> lane) & 1) == 0) continue;
      MergeFragment(work, lane, *work.quads[k].triangle, q.x + (i & 1),
                    q.y + (i >> 1));
    }
  }
  // The warp's storage, and the item's buffers, serve a later fragment warp
  // of this draw.
  free_warps_.push_back(std::move(work.warps[0]));
  work.warps.clear();
  Buffers b;
  b.quads = std::move(work.quads);
  b.quads.clear();
  b.depends_on = std::move(work.depends_on);
  b.depends_on.clear();
  b.regions = std::move(work.context.regions);
  b.images = std::move(work.context.images);
  b.colors = std::move(work.colors);
  b.encoded = std::move(work.encoded);
  b.warps = std::move(work.warps);
  free_buffers_.push_back(std::move(b));
}

FragmentStage::Interp FragmentStage::Interpolated(const TriangleSetup& setup,
                                                  int px, int py,
                                                  bool weights) const {
  const Triangle& tri = setup.tri;
  Interp r;
  const double cx = px * static_cast<double>(kSubPixel) + kSubPixel / 2.0;
  const double cy = py * static_cast<double>(kSubPixel) + kSubPixel / 2.0;
  for (int j = 0; j < 3; ++j) {
    r.lin[j] = (setup.a[j] * cx + setup.b[j] * cy + setup.c[j]) / setup.area;
  }
  r.z = 0;
  r.inv_w = 0;
  for (int j = 0; j < 3; ++j) {
    r.z += r.lin[j] * tri.v[j].z;  // (bias added below)
    r.inv_w += r.lin[j] * tri.v[j].inv_w;
  }
  r.z += setup.bias;
  if (weights) {
    double sum_p = 0;
    for (int j = 0; j < 3; ++j) {
      r.b[j] = r.lin[j] * tri.v[j].inv_w;
      sum_p += r.b[j];
    }
    for (int j = 0; j < 3; ++j) {
      r.b[j] = sum_p != 0 ? r.b[j] / sum_p : r.lin[j];
    }
  }
  return r;
}

double FragmentStage::InterpolatedDepth(const TriangleSetup& setup, int px,
                                        int py) const {
  // The same operations as Interpolated()'s z.
  const Triangle& tri = setup.tri;
  const double cx = px * static_cast<double>(kSubPixel) + kSubPixel / 2.0;
  const double cy = py * static_cast<double>(kSubPixel) + kSubPixel / 2.0;
  double z = 0;
  for (int j = 0; j < 3; ++j) {
    const double lin =
        (setup.a[j] * cx + setup.b[j] * cy + setup.c[j]) / setup.area;
    z += lin * tri.v[j].z;
  }
  return z + setup.bias;
}

Status FragmentStage::WriteFragmentInputs(simt::Warp& warp, uint32_t lane,
                                          const TriangleSetup& setup, int px,
                                          int py, bool helper) const {
  const Triangle& tri = setup.tri;
  using spv::BuiltIn;
  // Perspective weights only when a varying uses them.
  const Interp in = Interpolated(setup, px, py, perspective_varyings_);
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
        return Unsupported("fragment shader input built-in " +
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
bool FragmentStage::DepthStencil(int px, int py, float z, bool front_facing) {
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
  if (state_.depth.test || state_.stencil.test) {
    (r.pass ? output_work_.tested : output_work_.rejected) += 1;
  }
  if (r.depth_written || r.stencil_written) {
    output_work_.bytes += ds.format.bytes;
  }
  return r.pass;
}

void FragmentStage::FinishOutputs(FragmentWork& work) const {
  Warp& warp = *work.warps[0];
  const size_t natt = state_.colors.size();
  work.colors.resize(32 * natt);  // (MakeWarp sized them already)
  work.encoded.resize(32 * size_t{encoded_stride_});
  work.merged = 0;
  work.outputs_ready = true;
  for (size_t k = 0; k < work.quads.size(); ++k) {
    const Quad& q = work.quads[k].quad;
    const TriangleSetup& setup = *work.quads[k].triangle;
    for (int i = 0; i < 4; ++i) {
      const uint32_t lane = static_cast<uint32_t>(4 * k + i);
      if ((work.helpers >> lane) & 1) continue;
      if (((warp.discarded() | warp.demoted()) >> lane) & 1) continue;
      const uint8_t* mem = warp.PrivateMemory(lane);
      if (sample_mask_ != nullptr &&
          (Load32(mem, *sample_mask_, 0) & 1u) == 0) {
        continue;
      }
      work.merged |= 1u << lane;
      if (late_tests_) {
        work.late_z[lane] = frag_depth_ != nullptr
                                ? BitsFloat(Load32(mem, *frag_depth_, 0))
                                : static_cast<float>(InterpolatedDepth(
                                      setup, q.x + (i & 1), q.y + (i >> 1)));
      }
      for (size_t a = 0; a < natt; ++a) {
        const InputSlot* out = att_output_[a];
        if (out == nullptr) continue;
        simt::Texel& src = work.colors[lane * natt + a];
        for (uint32_t c = 0; c < 4; ++c) {
          const uint32_t word =
              c < out->components ? Load32(mem, *out, c) : (c == 3 ? 1 : 0);
          if (out->kind == simt::ScalarKind::kFloat) {
            src.f[c] =
                c < out->components ? BitsFloat(word) : (c == 3 ? 1.0f : 0.0f);
            src.i[c] = static_cast<uint64_t>(static_cast<int64_t>(src.f[c]));
          } else {
            src.i[c] = out->kind == simt::ScalarKind::kInt
                           ? static_cast<uint64_t>(static_cast<int64_t>(
                                 static_cast<int32_t>(word)))
                           : word;
            src.f[c] = static_cast<float>(static_cast<int32_t>(word));
          }
        }
        if (att_direct_[a]) {
          simt::EncodeTexel(
              state_.colors[a].format, src,
              work.encoded.data() + lane * encoded_stride_ + att_offset_[a]);
        }
      }
    }
  }
}

Status FragmentWork::Finish() {
  stage->FinishOutputs(*this);
  return {};
}

void FragmentStage::MergeFragment(const FragmentWork& work, uint32_t lane,
                                  const TriangleSetup& setup, int px, int py) {
  if (late_tests_ &&
      !DepthStencil(px, py, work.late_z[lane], setup.tri.front_facing)) {
    return;
  }
  const size_t natt = state_.colors.size();
  for (size_t a = 0; a < natt; ++a) {
    const Attachment& att = state_.colors[a];
    if (att_output_[a] == nullptr) continue;  // no output: unchanged
    if (static_cast<uint32_t>(px) >= att.width ||
        static_cast<uint32_t>(py) >= att.height) {
      continue;
    }
    uint8_t* texel = att.data + (static_cast<uint64_t>(py) * att.width + px) *
                                    att.format.bytes;
    if (texel + att.format.bytes > att.data + att.size) continue;
    output_work_.bytes += att.format.bytes;
    if (state_.blend.enable && !att.format.IsInteger()) {
      const bool float32 =
          att.format.comps[0].kind == simt::TexelKind::kSFloat &&
          att.format.comps[0].bits == 32;
      (float32 ? output_work_.float_blended : output_work_.blended) += 1;
    }
    if (att_direct_[a]) {
      std::memcpy(texel,
                  work.encoded.data() + lane * encoded_stride_ + att_offset_[a],
                  att.format.bytes);
      continue;
    }
    WriteColor(att.format, state_.blend, state_.blend_constants,
               work.colors[lane * natt + a], texel);
  }
}

// rectangle) as two triangles that share a diagonal; the top-left rule keeps
// pixels on the diagonal from being covered twice.
Status RasterizeRectangle(WindowVertex corners[4], uint32_t primitive_id,
                          FragmentStage* fragment, DrawStats* stats,
                          const Triangle& shape) {
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

}  // namespace warpsim::pipeline::internal
