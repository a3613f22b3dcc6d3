// The fragment stage of a draw: rasterization into 2x2 quads, packing of
// quads into fragment warps, the fragment inputs each lane is given, and
// the output merge of a finished fragment warp.
//
// Quads are visited in screen tiles of GraphicsConfig::tile_size pixels,
// tiles in raster order. A fragment warp takes up to width / 4 queued
// quads, packed as GraphicsConfig::quad_packing says (graphics.h): quads of
// one triangle only, consecutive triangles' quads, or per-tile open warps
// that collect successive triangles' quads in one tile. Lane layout: quad
// q occupies lanes 4q..4q+3,
//
//   lane = 4q + (x & 1) + 2 (y & 1)        quad q:  0 1
//                                                   2 3
//
// Early fragment tests run when a triangle is rasterized, in API order;
// late tests, blending and colour writes run when a fragment warp retires,
// which the warp queue does in API order too.
#ifndef WARPSIM_PIPELINE_FRAGMENT_STAGE_H_
#define WARPSIM_PIPELINE_FRAGMENT_STAGE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "base/diagnostic.h"
#include "pipeline/graphics.h"
#include "pipeline/graphics_internal.h"
#include "pipeline/warp_queue.h"

namespace warpsim::pipeline::internal {

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

// A rasterized triangle's interpolation set-up, kept alive by the quads
// that need it. It owns copies of its vertices' varyings, so the vertices
// it was made from (clipped temporaries, a later instance) may go away.
// Aligned to a cache line: the shared_ptr control block that make_shared
// puts in front of it takes reference counts on the producing thread while
// the threads that run fragment warps read the setup; apart, they do not
// contend for one line.
struct alignas(64) TriangleSetup {
  Triangle tri;
  double a[3], b[3], c[3];  // edge functions per API-order vertex
  double area = 0;
  double bias = 0;  // depth bias added to every fragment's depth
  std::vector<uint32_t> varyings[3];
  std::vector<uint64_t> depends_on;  // vertex batches of its vertices
};

struct PendingQuad {
  Quad quad;
  std::shared_ptr<const TriangleSetup> triangle;
};

// A fragment warp as a work item.
class FragmentStage;

struct FragmentWork : WorkItem {
  std::vector<PendingQuad> quads;  // quad k in lanes 4k..4k+3
  uint32_t launch = 0;             // lanes that exist
  uint32_t helpers = 0;            // helper lanes (uncovered pixels)
  const FragmentStage* stage = nullptr;
  bool reset_warp = false;  // a pooled warp, reset by Prepare()
  void Quads(size_t warp, std::vector<QuadFootprint>* out) const override;
  uint32_t RasterQuads() const override {
    return static_cast<uint32_t>(quads.size());
  }
  // Resets a pooled warp and writes every lane's fragment inputs
  // (interpolated varyings, built-ins) and the helper mask.
  Status Prepare() override;
  // What the output merge needs of each lane, taken from the finished warp
  // (FragmentStage::FinishOutputs): the lanes that reach it, their depth for
  // the late tests, each attachment's colour, and, where the attachment's
  // texel does not depend on what it holds (no blending, every bit
  // written), the texel already encoded.
  Status Finish() override;
  bool outputs_ready = false;  // Finish() ran
  uint32_t merged = 0;         // lanes that reach the output merge
  float late_z[32] = {};
  std::vector<simt::Texel> colors;  // [lane * attachments + a]
  std::vector<uint8_t> encoded;     // [lane * encoded_stride + offset of a]
};

class FragmentStage {
 public:
  FragmentStage(const GraphicsState& state,
                const std::vector<VaryingLink>& links);

  // Vertex batches the next rasterized triangles' vertices came from.
  void set_depends_on(std::vector<uint64_t> batches) {
    depends_on_ = std::move(batches);
  }

  // Rasterizes a triangle into quads (running early fragment tests) and
  // queues them for fragment warps.
  Status RasterizeTriangle(const Triangle& tri);

  // Ends the current group of queued quads: the next warp ends with them
  // even when it is not full (end of a draw).
  void EndGroup();

  // Whether a fragment warp can be made from the queued quads now, and how
  // many quads it would take.
  size_t NextWarpQuads() const;
  size_t queued_quads() const { return pending_.size() - head_ + open_quads_; }

  // Makes the next fragment warp (NextWarpQuads() > 0), inputs written.
  Result<std::unique_ptr<FragmentWork>> MakeWarp();

  // Counts a finished fragment warp into `stats` and merges its covered,
  // surviving lanes into the attachments (late tests, blending).
  void Retire(FragmentWork& work, DrawStats* stats);

  // The output merge's work (MergeFragment, DepthStencil) since the last
  // call.
  OutputWork TakeOutputWork() {
    OutputWork w = output_work_;
    output_work_ = {};
    return w;
  }

 private:
  struct Interp {
    double b[3];  // perspective-correct weights of the API-order vertices
    double lin[3];
    double z;
    double inv_w;
  };

  friend struct FragmentWork;  // Prepare() writes the inputs
  double DepthBias(const TriangleSetup& setup) const;
  // The pixel centre's barycentrics, depth and 1/w; the perspective
  // weights `b` only when `weights` is true (they cost three divisions).
  Interp Interpolated(const TriangleSetup& t, int px, int py,
                      bool weights) const;
  // Interpolated(...).z alone, bit for bit (depth tests).
  double InterpolatedDepth(const TriangleSetup& t, int px, int py) const;
  Status WriteFragmentInputs(simt::Warp& warp, uint32_t lane,
                             const TriangleSetup& t, int px, int py,
                             bool helper) const;
  bool DepthStencil(int px, int py, float z, bool front_facing);
  void FinishOutputs(FragmentWork& work) const;
  void MergeFragment(const FragmentWork& work, uint32_t lane,
                     const TriangleSetup& t, int px, int py);

  const GraphicsState& state_;
  const std::vector<VaryingLink>& links_;
  simt::ExecContext context_;  // regions and images every warp starts with
  const InputSlot* frag_depth_ = nullptr;
  const InputSlot* sample_mask_ = nullptr;
  bool perspective_varyings_ = false;  // a varying needs Interp::b
  // Per colour attachment: the fragment shader's output for its location
  // (null: none, the attachment keeps its texels); whether its texel is
  // written whole from the colour alone (no blending, no masked channel, no
  // bits outside channels 0-3), so FinishOutputs encodes it; its offset in
  // FragmentWork::encoded's lane record.
  std::vector<const InputSlot*> att_output_;
  std::vector<bool> att_direct_;
  std::vector<uint32_t> att_offset_;
  uint32_t encoded_stride_ = 0;
  OutputWork output_work_;
  bool late_tests_ = false;  // depth/stencil tests after shading
  std::vector<uint64_t> depends_on_;
  // Queued quads: pending_[head_..] are not in a warp yet. A warp never
  // crosses a group end (breaks_, ascending indices into pending_).
  std::vector<PendingQuad> pending_;
  size_t head_ = 0;
  std::vector<size_t> breaks_;
  size_t next_break_ = 0;
  // QuadPacking::kTiles: the open warps, one per tile, each with its quads
  // (fewer than a warp's) and when its tile last took a quad.
  struct OpenTile {
    int32_t tx = 0, ty = 0;
    std::vector<PendingQuad> quads;
    uint64_t last_use = 0;
  };
  void PackIntoTile(const PendingQuad& q);
  void LaunchOpenTile(OpenTile* tile);  // its quads become the next warp
  void MarkGroupEnd();                  // the queued quads so far end a warp
  std::vector<OpenTile> open_tiles_;
  size_t open_quads_ = 0;
  uint64_t use_clock_ = 0;
  // Retired fragment warps, reset and reused by MakeWarp() instead of
  // allocated anew. MakeWarp() and Retire() run on the thread that drives
  // the source (warp_queue.h), so the pool needs no lock.
  std::vector<std::unique_ptr<simt::Warp>> free_warps_;
  // The buffers of retired fragment warps, cleared, for MakeWarp() to reuse:
  // no allocation per warp once a draw is under way, and none at all on the
  // threads that run warps.
  struct Buffers {
    std::vector<PendingQuad> quads;
    std::vector<uint64_t> depends_on;
    std::vector<simt::MemRegion> regions;
    std::vector<simt::ImageDesc> images;
    std::vector<simt::Texel> colors;
    std::vector<uint8_t> encoded;
    std::vector<std::unique_ptr<simt::Warp>> warps;
  };
  std::vector<Buffers> free_buffers_;
};

// Draws a window-space rectangle given by four corners (in order around the
// rectangle) as two triangles that share a diagonal; the top-left rule keeps
// pixels on the diagonal from being covered twice.
Status RasterizeRectangle(WindowVertex corners[4], uint32_t primitive_id,
                          FragmentStage* fragment, DrawStats* stats,
                          const Triangle& shape = Triangle{});

// A point: a square of PointSize pixels centred on the vertex (points whose
// vertex lies outside the clip volume are discarded, as in Vulkan).
Status RasterizePoint(const GraphicsState& state, const ShadedVertex& v,
                      uint32_t primitive_id, FragmentStage* fragment,
                      DrawStats* stats);

// A line: the rectangle of width 1 centred on the segment (Vulkan's
// rectangular lines), after clipping the segment to the clip volume.
Status RasterizeLine(const GraphicsState& state, const ShadedVertex& a,
                     const ShadedVertex& b,
                     const std::vector<VaryingLink>& links,
                     uint32_t primitive_id, FragmentStage* fragment,
                     DrawStats* stats);

}  // namespace warpsim::pipeline::internal

#endif  // WARPSIM_PIPELINE_FRAGMENT_STAGE_H_
