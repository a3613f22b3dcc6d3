// The vertex stage of a draw: how the draw's vertices are cut into vertex
// batches (one warp each), what a batch's lanes are given as inputs, and
// how the shaded vertices are read back for primitive assembly.
//
// Vertex batching (REFERENCE §4.2, Kerbl et al. 2018): a batch collects up
// to GraphicsConfig::vertex_batch_indices consecutive index positions and
// at most one warp of unique vertices; vertices are reused only inside a
// batch, and batches never mix instances.
#ifndef WARPSIM_PIPELINE_VERTEX_STAGE_H_
#define WARPSIM_PIPELINE_VERTEX_STAGE_H_

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
  uint32_t instance = 0;
  uint32_t first_position = 0;  // draw positions [first, end) it covers
  uint32_t end_position = 0;
  uint32_t vertices = 0;  // unique vertices = lanes
  // (position, lane) for every position of the batch.
  std::vector<std::pair<uint32_t, uint32_t>> positions;
};

class VertexStage {
 public:
  VertexStage(const GraphicsState& state, const DrawCall& call,
              const std::vector<VaryingLink>& links);

  // The vertex index for position p of the draw.
  Result<uint32_t> VertexIndex(uint32_t p) const;

  // Builds the batch of `instance` that starts at draw position *position,
  // with its warp's inputs written, and advances *position past it.
  Result<std::unique_ptr<VertexBatchWork>> MakeBatch(uint32_t instance,
                                                     uint32_t* position) const;

  // Reads the vertices a finished batch shaded into (*shaded)[position].
  void Collect(VertexBatchWork& batch, std::vector<ShadedVertex>* shaded) const;

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
