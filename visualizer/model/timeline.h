// The SM timeline's model: per warp slot ("lane": SM, sub-partition, slot),
// the warps resident in it over cycles and, where the trace has
// instruction events, each warp's state cycle by cycle (issuing, or
// stalled and why); both at levels of detail, so that a view of any width
// draws a bounded number of segments whether it shows ten cycles or ten
// million.
#ifndef WARPSIM_VISUALIZER_MODEL_TIMELINE_H_
#define WARPSIM_VISUALIZER_MODEL_TIMELINE_H_

#include <cstdint>
#include <vector>

#include "trace/trace.h"

namespace warpsim::viz {

// Cycles [begin, end) of a lane with a key: an index into Trace::warps
// (resident warps) or a trace::StallReason (states). `fill`: the share of
// [begin, end) that segments of the finer level cover (1 at level 0).
struct Segment {
  uint64_t begin = 0, end = 0;
  uint32_t key = 0;
  float fill = 1.0f;
};

// Segments at levels of detail. Level 0 holds the segments as given
// (sorted by begin, not overlapping). Level k > 0 merges the segments of
// level k - 1 that start in one bucket of `base` << k cycles into one
// segment from the first begin to the last end, keyed by the key that
// covers the most cycles. Each level has at most as many segments as the
// one below, and at most (cycles / bucket) + 1.
class SegmentLod {
 public:
  void Build(std::vector<Segment> level0, uint64_t base = 4);
  size_t levels() const { return levels_.size(); }
  const std::vector<Segment>& level(size_t k) const { return levels_[k]; }
  // The coarsest level whose buckets are at most `cycles_per_pixel` wide
  // (level 0 when a pixel shows fewer than `base` cycles).
  size_t LevelFor(double cycles_per_pixel) const;
  // Calls f(segment) for the segments of level `k` that overlap
  // [a, b), in order of begin.
  template <typename F>
  void Visit(size_t k, uint64_t a, uint64_t b, F f) const {
    if (k >= levels_.size()) return;
    const std::vector<Segment>& l = levels_[k];
    // Segments begin in order; none is longer than max_len_[k].
    const uint64_t from = a > max_len_[k] ? a - max_len_[k] : 0;
    size_t lo = 0, hi = l.size();
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (l[mid].begin < from) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    for (size_t i = lo; i < l.size() && l[i].begin < b; ++i) {
      if (l[i].end > a) f(l[i]);
    }
  }
  size_t size() const { return levels_.empty() ? 0 : levels_[0].size(); }

 private:
  uint64_t base_ = 4;
  std::vector<std::vector<Segment>> levels_;
  std::vector<uint64_t> max_len_;
};

struct Lane {
  uint32_t sm = 0, sub_partition = 0, slot = 0;
  SegmentLod warps;   // keys: indices into Trace::warps
  SegmentLod states;  // keys: trace::StallReason (instruction detail)
};

// What the timeline shows of a trace. `now`: the end of resident warps
// still running (a live trace); the end of the trace otherwise.
class Timeline {
 public:
  Timeline() = default;
  Timeline(const trace::Trace& t, uint64_t now);
  const std::vector<Lane>& lanes() const { return lanes_; }
  // Lanes of SM `sm`: [first, last) into lanes(), sorted by sub-partition
  // and slot; empty when the SM ran nothing.
  std::pair<size_t, size_t> LanesOf(uint32_t sm) const;
  std::vector<uint32_t> Sms() const;  // the SMs that ran warps, in order
  uint64_t end_cycle() const { return end_; }
  // Whether the trace had instruction events for the states (and up to
  // which cycle, when they were truncated).
  bool has_states() const { return has_states_; }
  uint64_t states_until() const { return states_until_; }

 private:
  std::vector<Lane> lanes_;
  uint64_t end_ = 0;
  bool has_states_ = false;
  uint64_t states_until_ = 0;
};

// The state segments of one warp from its instruction events (in cycle
// order): before each issue it waited for the event's `waited` reason
// until `ready`, then was eligible but not selected; the issue cycle is
// "selected"; after its last issue until `end` it waits (kWait) for its
// last results. Appended to `out`.
void WarpStates(uint64_t begin, uint64_t end,
                const std::vector<const trace::InstructionEvent*>& events,
                std::vector<Segment>* out);

}  // namespace warpsim::viz

#endif  // WARPSIM_VISUALIZER_MODEL_TIMELINE_H_
