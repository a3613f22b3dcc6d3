// The graphics pipeline: which vertex and fragment warps a draw creates, and
// in what order their results become pixels.
//
//   vertex fetch -> vertex batches -> VS warps -> primitive assembly ->
//   clip (near/far, x/y guard band) -> perspective divide -> viewport ->
//   snap to 1/256 pixel -> cull -> rasterize (integer edge functions,
//   top-left rule) -> 2x2 quads (helper lanes for uncovered pixels) ->
//   fragment warps of up to width/4 quads -> FS -> depth/stencil -> blend.
//
// A draw produces work items into the warp queue (warp_queue.h); their
// results are merged in API order whatever order they run in, so depth,
// stencil and blending give the API-order result. How vertices are batched into
// warps and how quads are packed into warps are parameters (GraphicsConfig),
// documented there, to be matched against hardware measurements.
#ifndef WARPSIM_PIPELINE_GRAPHICS_H_
#define WARPSIM_PIPELINE_GRAPHICS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "base/diagnostic.h"
#include "pipeline/output_merge.h"
#include "pipeline/warp_queue.h"
#include "simt/image.h"
#include "simt/program.h"
#include "simt/warp.h"

namespace warpsim::pipeline {

enum class Topology {
  kPointList,
  kLineList,
  kLineStrip,
  kTriangleList,
  kTriangleStrip,
  kTriangleFan,
};

// How rasterized quads are packed into fragment warps of warp_width / 4
// quads (a 2x2 quad itself never mixes primitives):
//   kPerPrimitive  a warp holds quads of one primitive (its last warp may
//                  be partial);
//   kMixed         consecutive primitives' quads share warps, in order;
//   kTiles         each screen tile has its own open warp that collects the
//                  quads of successive primitives in that tile; a warp is
//                  launched when full, when its tile is the least recently
//                  used of open_tiles open ones and another is needed, or at
//                  the end of the draw. A warp never spans two tiles.
enum class QuadPacking { kPerPrimitive, kMixed, kTiles };

// How a draw's work is cut into warps.
struct GraphicsConfig {
  uint32_t warp_width = 32;
  // Vertex batching (vertex_stage.h): a batch (one VS warp) takes whole
  // primitives while it has at most vertex_batch_primitives of them and
  // its lanes fit in a warp; a vertex index among the batch's last
  // vertex_reuse_window indices is reused, others are shaded (again).
  uint32_t vertex_batch_primitives = 32;
  uint32_t vertex_reuse_window = 42;
  // Quads are visited in screen tiles of tile_size x tile_size pixels,
  // tiles in raster order. Within a tile, quads are in raster order, except
  // with QuadPacking::kTiles: there the tile is cut into bands of
  // warp_width / 8 quad rows and each band is walked column by column, top
  // to bottom, so that a full warp is 2 quads wide (4x8 pixels at 32 lanes).
  uint32_t tile_size = 16;
  // How quads become fragment warps (see fragment_stage.h).
  QuadPacking quad_packing = QuadPacking::kPerPrimitive;
  // kTiles: open warps (one per tile) at most; the least recently used one
  // is launched, partial, to make room.
  uint32_t open_tiles = 16;
  uint64_t max_warp_instructions = 4'000'000'000ull;
  // Host threads that shade warps (DrainParallel); 1 = in order on the
  // calling thread. Draws whose shaders can write memory run in order.
  uint32_t threads = 1;
  // When set, this driver runs the draw's warps (the SM timing model) and
  // `threads` is ignored.
  WarpDriver* driver = nullptr;
  // Sees every issued instruction (DrainLimits::step_observer); with one,
  // the draw or dispatch runs on one host thread.
  simt::StepObserver* step_observer = nullptr;
};

// One vertex attribute stream (VERTEX_DATA).
struct VertexInput {
  uint32_t location = 0;
  const uint8_t* data = nullptr;
  uint64_t size = 0;
  simt::TexelFormat format;
  uint64_t offset = 0;
  uint32_t stride = 0;
  bool per_instance = false;
};

// A colour or depth/stencil attachment: a width x height image in memory.
struct Attachment {
  uint32_t location = 0;
  uint8_t* data = nullptr;
  uint64_t size = 0;
  simt::TexelFormat format;
  uint32_t width = 0, height = 0;
};

struct Viewport {
  float x = 0, y = 0, width = 0, height = 0;
  float min_depth = 0, max_depth = 1;
};

enum class CullMode { kNone, kFront, kBack, kFrontAndBack };
enum class PolygonMode { kFill, kLine, kPoint };

struct GraphicsState {
  const simt::Program* vs = nullptr;
  const simt::Program* fs = nullptr;
  // Memory regions and images of each stage's resources (indexed like
  // Program::resources[i].region).
  std::vector<simt::MemRegion> vs_regions, fs_regions;
  std::vector<simt::ImageDesc> vs_images, fs_images;
  std::vector<VertexInput> vertex_inputs;
  Topology topology = Topology::kTriangleList;
  uint32_t framebuffer_width = 0, framebuffer_height = 0;
  Viewport viewport;
  std::vector<Attachment> colors;
  std::optional<Attachment> depth_stencil;
  CullMode cull = CullMode::kNone;
  PolygonMode polygon_mode = PolygonMode::kFill;
  bool front_face_ccw = true;
  DepthState depth;
  // Depth bias (VkPipelineRasterizationStateCreateInfo::depthBias*).
  struct DepthBias {
    bool enable = false;
    float constant = 0, slope = 0, clamp = 0;
  } depth_bias;
  StencilState stencil;
  BlendState blend;
  float blend_constants[4] = {0, 0, 0, 0};
  GraphicsConfig config;
};

struct DrawCall {
  bool indexed = false;
  const uint8_t* indices = nullptr;  // index buffer bytes
  uint64_t indices_size = 0;
  uint32_t index_bytes = 4;  // 1, 2 or 4
  uint32_t first = 0;        // first vertex / first index
  uint32_t count = 0;        // vertices / indices
  int32_t vertex_offset = 0;
  uint32_t first_instance = 0;
  uint32_t instance_count = 1;
};

// Per-draw statistics (the report's "draws" entries).
struct DrawStats {
  uint64_t vs_invocations = 0;  // lanes of vertex warps
  uint64_t vertex_warps = 0;
  uint64_t primitives_in = 0;   // primitives assembled
  uint64_t primitives_out = 0;  // triangles reaching the rasterizer
  uint64_t fs_invocations = 0;  // non-helper fragment lanes launched
  uint64_t helper_lanes = 0;    // helper lanes launched
  uint64_t quads = 0;
  uint64_t fragment_warps = 0;
  // Fragment warps by how many primitives (distinct PrimitiveIds) their
  // quads belong to: count -> warps.
  std::map<uint32_t, uint64_t> primitives_per_fragment_warp;
  uint64_t warp_instructions = 0;
  uint64_t lane_instructions = 0;         // active lanes, helpers included
  uint64_t helper_lane_instructions = 0;  // active helper lanes
  // fs_invocations / fragment_warps: non-helper invocations a fragment warp
  // starts with (not how many lanes are active per instruction).
  double InvocationsPerFragmentWarp() const {
    return fragment_warps == 0 ? 0.0
                               : static_cast<double>(fs_invocations) /
                                     static_cast<double>(fragment_warps);
  }
};

// A draw as a source of work items (warp_queue.h): vertex batches, and the
// fragment warps of each primitive once the batches that shaded its
// vertices have retired. `state` and `call` must outlive it.
class GraphicsDraw : public WarpSource {
 public:
  static Result<std::unique_ptr<GraphicsDraw>> Create(
      const GraphicsState& state, const DrawCall& call);
  ~GraphicsDraw() override;

  Result<std::unique_ptr<WorkItem>> Next() override;
  Status Retire(WorkItem& item) override;
  bool done() const override;
  OutputWork TakeOutputWork() override;
  uint64_t TakeRasterPrimitives() override;
  // Counters of the retired items (and of primitive assembly so far).
  const DrawStats& stats() const;

 private:
  struct Impl;
  explicit GraphicsDraw(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Runs a draw in functional mode: every work item to completion, in API
// order, or on config.threads threads with results merged in API order.
Result<DrawStats> Draw(const GraphicsState& state, const DrawCall& call);

}  // namespace warpsim::pipeline

#endif  // WARPSIM_PIPELINE_GRAPHICS_H_
