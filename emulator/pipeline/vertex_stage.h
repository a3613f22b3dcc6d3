// The vertex stage of a draw: how the draw's vertices are cut into vertex
// batches (one warp each), what a batch's lanes are given as inputs, and
// how the shaded vertices are read back for primitive assembly.
//
// Vertex batching, as measured on the H200 (vulkan_ref/results/h200/
// FINDINGS.md, Q3): a batch (one VS warp) takes whole primitives in order
// while it has at most GraphicsConfig::vertex_batch_primitives of them and
// its lanes fit in a warp. A primitive's vertex takes no new lane when the
// same vertex index is among the batch's last vertex_reuse_window indices
// (an index is one vertex of one primitive, in primitive order); otherwise
// it is shaded again, in a new lane. Vertices are reused only inside a
// batch. A batch may take primitives of consecutive instances (a vertex of
// one instance is another vertex than the same index of the next).
#ifndef WARPSIM_PIPELINE_VERTEX_STAGE_H_
#define WARPSIM_PIPELINE_VERTEX_STAGE_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "base/diagnostic.h"
#include "pipeline/graphics.h"
#include "pipeline/graphics_internal.h"
#include "pipeline/warp_queue.h"

namespace warpsim::pipeline::internal {

// A vertex batch as a work item.
struct VertexBatchWork : WorkItem {
  // The draw's primitives [first, end) it shades: primitive g is primitive
  // g % P of instance g / P (P primitives per instance).
  uint64_t first_primitive = 0;
  uint64_t end_primitive = 0;
  uint32_t vertices = 0;  // lanes
  uint64_t ordinal = 0;   // of the batch in the draw (set by the draw)
  // The lane of each vertex of each of its primitives, in order.
  std::vector<std::array<uint8_t, 3>> primitive_lanes;
};

class VertexStage {
 public:
  VertexStage(const GraphicsState& state, const DrawCall& call,
              const std::vector<VaryingLink>& links);

  // The vertex index for position p of the draw.
  Result<uint32_t> VertexIndex(uint32_t p) const;

  // Builds the batch that starts at primitive *next of the draw (the
  // primitives of `instances` instances of `primitives`, instance-major),
  // with its warp's inputs written, and advances *next past it.
  Result<std::unique_ptr<VertexBatchWork>> MakeBatch(
      const std::vector<Primitive>& primitives, uint32_t instances,
      uint64_t* next) const;

  // Reads the vertices a finished batch shaded, one per lane.
  void Collect(VertexBatchWork& batch, std::vector<ShadedVertex>* lanes) const;

 private:
  const InputSlot* FindOutput(uint32_t key) const;
  Status WriteVertexInput(const InputSlot& slot, uint32_t vertex, uint32_t lane,
                          uint32_t instance, uint8_t* mem) const;

  const GraphicsState& state_;
  const DrawCall& call_;
  const std::vector<VaryingLink>& links_;
  simt::ExecContext context_;  // regions and images every batch starts with
  uint32_t varying_words_ = 0;
  const InputSlot* position_ = nullptr;
  const InputSlot* point_size_ = nullptr;
  const InputSlot* clip_distance_ = nullptr;
  std::map<uint32_t, const InputSlot*> outputs_by_location_;
};

}  // namespace warpsim::pipeline::internal

#endif  // WARPSIM_PIPELINE_VERTEX_STAGE_H_
