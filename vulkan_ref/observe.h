// What `--observe` records of a draw (observe_pass.h writes the records on
// the device) and the structural statistics derived from them: fragment
// and vertex warps, quads and helper lanes, primitives per warp, the pixel
// footprint of each warp, SMs per stage, and how screen tiles map to SMs.
#ifndef WARPSIM_VULKAN_REF_OBSERVE_H_
#define WARPSIM_VULKAN_REF_OBSERVE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "vulkan_ref/observe_pass.h"

namespace warpsim::vkref {

struct StageObservation {
  uint64_t invocations = 0;  // records: non-helper invocations
  uint32_t flags = 0;        // ObserveFlag bits the records carry (union)
  // With kObsFlagSubgroup: distinct warp numbers, and per warp the lanes
  // subgroupBallot(true) saw.
  uint64_t warps = 0;
  std::map<uint32_t, uint64_t> ballot_lanes_histogram;  // lanes -> warps
  // With kObsFlagSm: distinct SM ids and (SM, warp slot) pairs.
  uint64_t sms = 0;
  uint64_t sm_warp_slots = 0;
  uint32_t max_warp_slot = 0;
  // Fragment.
  uint64_t quads = 0;         // distinct (warp, 2x2 pixel block)
  uint64_t helper_lanes = 0;  // from each quad's helper mask
  std::map<uint32_t, uint64_t> quads_per_warp_histogram;
  std::map<uint32_t, uint64_t> primitives_per_warp_histogram;
  // Warps whose ballot counted exactly their non-helper lanes, and those
  // whose ballot counted non-helper plus helper lanes.
  uint64_t ballot_without_helpers = 0;
  uint64_t ballot_with_helpers = 0;
  // Invocations whose lane % 4 is (x & 1) + 2 * (y & 1).
  uint64_t quad_lane_layout_matches = 0;
  // Pixel footprint: bounding box of each warp's pixels.
  double mean_footprint_width = 0, mean_footprint_height = 0;
  uint32_t max_footprint_width = 0, max_footprint_height = 0;
  // Aligned square tile side (2..512) -> share of the tiles with any pixel
  // whose pixels were all shaded on one SM (with kObsFlagSm).
  std::map<uint32_t, double> tile_single_sm_share;
  // Vertex: distinct (vertex index, instance index) pairs. Compute:
  // distinct workgroups.
  uint64_t distinct_vertices = 0;
  uint64_t workgroups = 0;
  // With subgroup fields, SM ids and both clocks: a warp lives from its
  // start clock to the latest end clock of its lanes (warps whose lanes
  // all ended by discard are left out). Per SM, the most warps of this
  // stage alive at once; the mean lifetime in SM clock cycles.
  uint32_t max_live_warps_per_sm = 0;
  double mean_warp_cycles = 0;
  uint64_t timed_warps = 0;
};

// A warp's life on its SM, in that SM's clock.
struct WarpInterval {
  uint32_t sm = 0;
  uint64_t start = 0, end = 0;
  uint32_t stage = 0;  // kObsFlagVertex / kObsFlagFragment / kObsFlagCompute
};

struct DrawObservation {
  uint32_t taken = 0;             // records the shaders asked for
  uint32_t capacity = 0;          // records the buffer held
  std::vector<uint32_t> records;  // min(taken, capacity) records
  StageObservation vertex, fragment, compute;
  // Vertex and fragment warps on one SM: SMs that ran warps of both
  // stages, SMs where a vertex warp's life overlapped a fragment warp's,
  // and the most warps (any stage) alive at once on one SM.
  uint64_t sms_with_both_stages = 0;
  uint64_t sms_with_overlapping_stages = 0;
  uint32_t max_live_warps_per_sm = 0;
  bool truncated() const { return taken > capacity; }
};

// Reads the observation buffer's words (header and records) and derives
// the statistics.
DrawObservation ObserveFromBuffer(std::span<const uint32_t> words);

// The file next to the report: "WSOBSV01", then per draw or dispatch its
// index in draws[] (or kObserveDispatch | its index in dispatches[]),
// taken, capacity, the record count and the records (little-endian uint32
// words, kObserveRecordWords per record).
inline constexpr uint32_t kObserveDispatch = 0x80000000u;
std::string ObservationFileBytes(
    const std::vector<std::pair<int, const DrawObservation*>>& draws);

}  // namespace warpsim::vkref

#endif  // WARPSIM_VULKAN_REF_OBSERVE_H_
