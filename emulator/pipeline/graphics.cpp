#include "pipeline/graphics.h"

#include <algorithm>
#include <array>
#include <deque>
#include <string>
#include <utility>

#include "pipeline/clipping.h"
#include "pipeline/fragment_stage.h"
#include "pipeline/graphics_internal.h"
#include "pipeline/vertex_stage.h"

namespace warpsim::pipeline {

using internal::ClipPolygon;
using internal::ClipVertex;
using internal::CopyFlatVaryings;
using internal::FragmentStage;
using internal::FragmentWork;
using internal::NeedsClipping;
using internal::ShadedVertex;
using internal::ToWindow;
using internal::Triangle;
using internal::VaryingLink;
using internal::VertexBatchWork;
using internal::VertexStage;
using internal::WindowVertex;
using simt::InputSlot;

// How a draw becomes work items, in API order:
//   - the primitives of every instance, in order (instance-major), are cut
//     into vertex batches (VertexStage), produced one after the other; a
//     batch may hold primitives of consecutive instances, as on the H200;
//   - a primitive is assembled once its batch has retired (batches retire
//     in order, so "every primitive below shaded_end_"), then clipped,
//     culled and rasterized into quads;
//   - queued quads become fragment warps (FragmentStage), produced before
//     any further vertex batch, so few warps wait at a time;
//   - vertex batches run ahead of rasterization: up to kBatchesAhead
//     batches are made after the one whose primitive is rasterized next,
//     before that one has retired (the vertex warps of a draw overlap, as
//     on a GPU). The rule counts batches made, not batches retired, so the
//     items and their order are the same whichever driver runs them and
//     however long each takes.
struct GraphicsDraw::Impl {
  using Primitive = internal::Primitive;
  // Vertex batches made ahead of the one rasterization waits for: enough to
  // keep two threads or the timing model's SMs busy with vertex warps while
  // the first batch runs (the timing model keeps up to 64 items pending).
  static constexpr uint64_t kBatchesAhead = 63;
  // The batch that shaded a primitive's vertices, and their lanes there.
  struct PrimitiveBatch {
    uint64_t id = 0;       // the batch's work item id
    uint64_t ordinal = 0;  // the batch's place in the draw
    std::array<uint8_t, 3> lanes = {0, 0, 0};
  };

  Impl(const GraphicsState& state, const DrawCall& call,
       std::vector<VaryingLink> links)
      : state_(state),
        links_(std::move(links)),
        vertex_(state, call, links_),
        fragment_(state, links_),
        call_(call) {}

  Result<std::unique_ptr<WorkItem>> Next();
  Status Retire(WorkItem& item);

  void AssemblePrimitives(uint32_t n);
  // Primitive g of the draw: primitive g % P of instance g / P, P being
  // primitives_.size().
  Status RasterizePrimitive(uint64_t g);
  Status RasterizeTriangle(const Primitive& p, uint32_t id, uint64_t g);

  const GraphicsState& state_;
  const std::vector<VaryingLink> links_;
  VertexStage vertex_;
  FragmentStage fragment_;
  const DrawCall& call_;
  DrawStats stats_;
  uint64_t next_id_ = 0;
  uint64_t primitives_taken_ = 0;  // stats_.primitives_in at the last
                                   // TakeRasterPrimitives()
  bool finished_ = false;
  bool assembled_ = false;
  std::vector<Primitive> primitives_;  // of one instance
  uint64_t total_ = 0;                 // primitives of all instances
  uint64_t next_primitive_ = 0;        // the next primitive to rasterize
  uint64_t next_batched_ = 0;          // first primitive not in a batch yet
  uint64_t shaded_end_ = 0;            // primitives below it are shaded
  // The batch of every primitive from next_primitive_ to next_batched_.
  std::deque<PrimitiveBatch> batch_of_;
  // The shaded vertices (by lane) and end primitive of every batch from
  // ordinal first_ordinal_ on; a batch is dropped once all its primitives
  // were rasterized.
  std::deque<std::vector<ShadedVertex>> batch_vertices_;
  std::deque<uint64_t> batch_end_;
  uint64_t first_ordinal_ = 0;
  const ShadedVertex& Shaded(uint64_t g, int k) const {
    const PrimitiveBatch& b = batch_of_[g - next_primitive_];
    return batch_vertices_[b.ordinal - first_ordinal_][b.lanes[k]];
  }
};

// The same list for every instance.
void GraphicsDraw::Impl::AssemblePrimitives(uint32_t n) {
  // Primitive assembly: Vulkan's vertex order per topology; the first
  // vertex listed is the provoking vertex.
  auto add = [&](uint32_t a, uint32_t b, uint32_t c, uint8_t count) {
    primitives_.push_back({{a, b, c}, count});
  };
  switch (state_.topology) {
    case Topology::kPointList:
      for (uint32_t i = 0; i < n; ++i) add(i, i, i, 1);
      break;
    case Topology::kLineList:
      for (uint32_t i = 0; i + 1 < n; i += 2) add(i, i + 1, i + 1, 2);
      break;
    case Topology::kLineStrip:
      for (uint32_t i = 0; i + 1 < n; ++i) add(i, i + 1, i + 1, 2);
      break;
    case Topology::kTriangleList:
      for (uint32_t i = 0; i + 2 < n; i += 3) add(i, i + 1, i + 2, 3);
      break;
    case Topology::kTriangleStrip:
      for (uint32_t i = 0; i + 2 < n; ++i) {
        if (i % 2 == 0) {
          add(i, i + 1, i + 2, 3);
        } else {
          add(i, i + 2, i + 1, 3);
        }
      }
      break;
    case Topology::kTriangleFan:
      for (uint32_t i = 0; i + 2 < n; ++i) add(i + 1, i + 2, 0, 3);
      break;
  }
}

Result<std::unique_ptr<WorkItem>> GraphicsDraw::Impl::Next() {
  for (;;) {
    // 1. Fragment warps first: they are what earlier batches were for.
    if (fragment_.NextWarpQuads() > 0) {
      auto work = fragment_.MakeWarp();
      if (!work.ok()) return work.error();
      (*work)->id = next_id_++;
      return std::unique_ptr<WorkItem>(std::move(*work));
    }
    if (finished_) return std::unique_ptr<WorkItem>();
    if (!assembled_) {
      assembled_ = true;
      if (call_.count > 0) AssemblePrimitives(call_.count);
      total_ = uint64_t{primitives_.size()} * call_.instance_count;
    }
    // 2. The next vertex batch, while fewer than kBatchesAhead batches
    // follow the one of the next primitive to rasterize. What decides is
    // what was produced, never what has retired: the order of the items is
    // the same for every driver.
    const uint64_t made = first_ordinal_ + batch_vertices_.size();
    const uint64_t current =
        next_primitive_ < next_batched_ ? batch_of_.front().ordinal : made;
    if (next_batched_ < total_ && made <= current + kBatchesAhead) {
      const uint64_t first = next_batched_;
      auto batch =
          vertex_.MakeBatch(primitives_, call_.instance_count, &next_batched_);
      if (!batch.ok()) return batch.error();
      (*batch)->id = next_id_++;
      batch_vertices_.emplace_back();
      batch_end_.push_back(next_batched_);
      (*batch)->ordinal = made;
      for (uint64_t g = first; g < next_batched_; ++g) {
        batch_of_.push_back(
            {(*batch)->id, made, (*batch)->primitive_lanes[g - first]});
      }
      return std::unique_ptr<WorkItem>(std::move(*batch));
    }
    // 3. The next primitive, once its batch has retired.
    if (next_primitive_ < shaded_end_) {
      if (Status s = RasterizePrimitive(next_primitive_); !s.ok()) {
        return s.error();
      }
      batch_of_.pop_front();
      ++next_primitive_;
      while (!batch_end_.empty() && batch_end_.front() <= next_primitive_) {
        batch_end_.pop_front();
        batch_vertices_.pop_front();
        ++first_ordinal_;
      }
      continue;
    }
    // 4. The draw is over once every primitive was rasterized.
    if (next_primitive_ < total_) {
      return std::unique_ptr<WorkItem>();  // waiting for batches to retire
    }
    finished_ = true;
    fragment_.EndGroup();  // the draw's last warps may be partial
  }
}

Status GraphicsDraw::Impl::Retire(WorkItem& item) {
  stats_.warp_instructions += item.context.warp_instructions;
  stats_.lane_instructions += item.context.lane_instructions;
  stats_.helper_lane_instructions += item.context.helper_lane_instructions;
  if (item.kind == WorkKind::kVertexBatch) {
    auto& batch = static_cast<VertexBatchWork&>(item);
    stats_.vertex_warps += 1;
    stats_.vs_invocations += batch.vertices;
    vertex_.Collect(batch, &batch_vertices_[batch.ordinal - first_ordinal_]);
    shaded_end_ = batch.end_primitive;
    return {};
  }
  fragment_.Retire(static_cast<FragmentWork&>(item), &stats_);
  return {};
}

Status GraphicsDraw::Impl::RasterizePrimitive(uint64_t g) {
  const uint32_t id = static_cast<uint32_t>(g % primitives_.size());
  const Primitive& p = primitives_[id];
  stats_.primitives_in += 1;
  fragment_.set_depends_on({batch_of_[g - next_primitive_].id});
  if (p.count == 1) {
    return RasterizePoint(state_, Shaded(g, 0), id, &fragment_, &stats_);
  }
  if (p.count == 2) {
    return RasterizeLine(state_, Shaded(g, 0), Shaded(g, 1), links_, id,
                         &fragment_, &stats_);
  }
  return RasterizeTriangle(p, id, g);
}

// Clips, culls and rasterizes one triangle primitive.
Status GraphicsDraw::Impl::RasterizeTriangle(const Primitive& p, uint32_t id,
                                             uint64_t g) {
  const bool depth_clamp = state_.depth.clamp;
  const ShadedVertex* v[3] = {&Shaded(g, 0), &Shaded(g, 1), &Shaded(g, 2)};
  std::vector<ClipVertex> clipped;
  std::vector<WindowVertex> window;
  if (NeedsClipping(v, depth_clamp)) {
    std::vector<ClipVertex> poly(3);
    for (int i = 0; i < 3; ++i) {
      std::copy(v[i]->clip, v[i]->clip + 4, poly[i].c);
      poly[i].varyings = v[i]->varyings;
      poly[i].clip_distances = v[i]->clip_distances;
    }
    clipped = ClipPolygon(std::move(poly), depth_clamp, links_);
    if (clipped.size() < 3) return {};
    for (const ClipVertex& cv : clipped) {
      window.push_back(ToWindow(cv.c, state_.viewport, &cv.varyings));
    }
    // Flat inputs use the original provoking vertex.
    for (ClipVertex& cv : clipped) {
      CopyFlatVaryings(v[0]->varyings, links_, &cv.varyings);
    }
  } else {
    for (int i = 0; i < 3; ++i) {
      window.push_back(ToWindow(v[i]->clip, state_.viewport, &v[i]->varyings));
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
  const bool front = state_.front_face_ccw ? area > 0 : area < 0;
  const bool culled = (state_.cull == CullMode::kFrontAndBack) ||
                      (state_.cull == CullMode::kFront && front) ||
                      (state_.cull == CullMode::kBack && !front);
  if (area == 0 || culled) {
    return {};
  }
  if (state_.polygon_mode == PolygonMode::kPoint ||
      state_.polygon_mode == PolygonMode::kLine) {
    // Non-solid fill: the triangle's vertices or edges (unclipped
    // triangles only: clipping would add edges that are not the
    // triangle's).
    for (int i = 0; i < 3; ++i) {
      Status st = state_.polygon_mode == PolygonMode::kPoint
                      ? RasterizePoint(state_, *v[i], id, &fragment_, &stats_)
                      : RasterizeLine(state_, *v[i], *v[(i + 1) % 3], links_,
                                      id, &fragment_, &stats_);
      if (!st.ok()) return st;
    }
    return {};
  }
  // Fan-triangulate the polygon; each piece keeps the primitive's id,
  // facing and provoking vertex.
  for (size_t i = 1; i + 1 < window.size(); ++i) {
    Triangle tri;
    tri.v[0] = window[0];
    tri.v[1] = window[i];
    tri.v[2] = window[i + 1];
    tri.front_facing = front;
    tri.primitive_id = id;
    stats_.primitives_out += 1;
    if (Status s = fragment_.RasterizeTriangle(tri); !s.ok()) return s;
  }

  return {};
}

GraphicsDraw::GraphicsDraw(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
GraphicsDraw::~GraphicsDraw() = default;

Result<std::unique_ptr<GraphicsDraw>> GraphicsDraw::Create(
    const GraphicsState& state, const DrawCall& call) {
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
  return std::unique_ptr<GraphicsDraw>(
      new GraphicsDraw(std::make_unique<Impl>(state, call, std::move(links))));
}

Result<std::unique_ptr<WorkItem>> GraphicsDraw::Next() { return impl_->Next(); }
Status GraphicsDraw::Retire(WorkItem& item) { return impl_->Retire(item); }
uint64_t GraphicsDraw::TakeRasterPrimitives() {
  const uint64_t n = impl_->stats_.primitives_in - impl_->primitives_taken_;
  impl_->primitives_taken_ = impl_->stats_.primitives_in;
  return n;
}
OutputWork GraphicsDraw::TakeOutputWork() {
  return impl_->fragment_.TakeOutputWork();
}
bool GraphicsDraw::done() const {
  return impl_->finished_ && impl_->fragment_.queued_quads() == 0;
}
const DrawStats& GraphicsDraw::stats() const { return impl_->stats_; }

Result<DrawStats> Draw(const GraphicsState& state, const DrawCall& call) {
  auto draw = GraphicsDraw::Create(state, call);
  if (!draw.ok()) return draw.error();
  DrainLimits limits;
  limits.max_warp_instructions = state.config.max_warp_instructions;
  limits.what = "draw";
  limits.step_observer = state.config.step_observer;
  const bool independent =
      ItemsIndependent(state.vs_regions, state.vs_images) &&
      ItemsIndependent(state.fs_regions, state.fs_images);
  const uint32_t threads =
      independent && limits.step_observer == nullptr ? state.config.threads : 1;
  Status s = state.config.driver != nullptr
                 ? state.config.driver->Drain(**draw, limits)
                 : DrainParallel(**draw, limits, threads);
  if (!s.ok()) return s.error();
  return (*draw)->stats();
}

}  // namespace warpsim::pipeline
