// The register-file view's model: which warp holds which registers of each
// sub-partition's file at any cycle, and how fragmented the free space is.
#ifndef WARPSIM_VISUALIZER_MODEL_REGISTER_MAP_H_
#define WARPSIM_VISUALIZER_MODEL_REGISTER_MAP_H_

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "trace/trace.h"

namespace warpsim::viz {

// Registers [first, first + count) of one file held by a warp over cycles
// [begin, end).
struct Allocation {
  uint64_t begin = 0, end = 0;
  uint32_t first = 0, count = 0;
  uint64_t warp = 0;
  uint32_t span = ~0u;  // index into Trace::warps, ~0u when unknown
};

struct FreeSpace {
  uint32_t free = 0;          // registers not allocated
  uint32_t holes = 0;         // free ranges
  uint32_t largest_hole = 0;  // registers in the largest free range
};

class RegisterMap {
 public:
  RegisterMap() = default;
  // `now`: the end of allocations not yet released (a live trace).
  RegisterMap(const trace::Trace& t, uint64_t now);
  // The allocations of (sm, sub_partition) live at `cycle`, by first
  // register.
  std::vector<Allocation> At(uint32_t sm, uint32_t sub_partition,
                             uint64_t cycle) const;
  // Every allocation of the file, by begin.
  const std::vector<Allocation>& All(uint32_t sm, uint32_t sub_partition) const;
  // The free space of a file of `size` registers holding `live`.
  static FreeSpace Measure(const std::vector<Allocation>& live, uint32_t size);
  // The (sm, sub-partition) files that appear.
  std::vector<std::pair<uint32_t, uint32_t>> Files() const;

 private:
  struct File {
    std::vector<Allocation> all;  // by begin
    // Per bucket of `bucket` cycles: the allocations overlapping it.
    uint64_t bucket = 1;
    std::vector<std::vector<uint32_t>> index;
  };
  std::map<std::pair<uint32_t, uint32_t>, File> files_;
};

}  // namespace warpsim::viz

#endif  // WARPSIM_VISUALIZER_MODEL_REGISTER_MAP_H_
