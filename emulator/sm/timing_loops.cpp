// The SM timing model, part 3: what NVIDIA's code does to loops
// (timing_impl.h): the next trip's test computed a trip ahead, the loads of
// unrolled code issued ahead, and a rotated loop's control run in idle
// cycles.
#include <algorithm>

#include "sm/timing_impl.h"

namespace warpsim::sm {

using namespace internal;  // NOLINT: the model's own internals

void TimingModel::Impl::AfterLoopTest(WarpState& w, uint32_t pc, bool issued) {
  if (w.loop_tests == nullptr || pc >= w.loop_tests_size ||
      w.loop_tests[pc] == 0) {
    return;
  }
  const simt::Program& p = w.warp->program();
  if (p.code[pc].op != spv::Op::OpBranchConditional) return;
  const uint32_t k = w.loop_tests[pc] - 1;
  const simt::LoopRange& loop = p.loops[k];
  const uint32_t next = w.warp->next_pc();
  w.trip_memory_static = 0;  // a trip begins, or the loop ends
  if (w.warp->done() || next < loop.begin || next >= loop.end) {
    w.loop_top[k] = 0;  // left the loop: its next entry starts afresh
  } else if (issued) {
    w.loop_top[k] = now;
    if (!w.loop_top_fills.empty()) {
      const SubPartition& sp = sms[w.sm].sp[w.sp];
      w.loop_top_issues[k] = sp.issues;
      w.loop_top_fills[k] = sp.fills;
      w.loop_top_held[k] = sp.held;
    }
  }
}

bool TimingModel::Impl::FillsBubble(WarpState& w, SubPartition& sp,
                                    uint32_t pc) {
  if (w.loop_top_fills.empty()) return false;
  const std::vector<uint32_t>& fills = w.warp->program().loop_fills;
  if (pc >= fills.size() || fills[pc] == 0) return false;
  const uint32_t k = fills[pc] - 1;
  const uint64_t top = w.loop_top[k];
  if (top == 0) return false;  // its first trip
  // The sub-partition's cycles without an issue since the trip began, not
  // held (HoldIssue), less those loop control (of any warp) took since.
  const uint64_t span = now - top;
  const uint64_t busy =
      (sp.issues - w.loop_top_issues[k]) + (sp.held - w.loop_top_held[k]);
  const uint64_t idle = span - std::min(span, busy);
  if (idle <= sp.fills - w.loop_top_fills[k]) return false;
  sp.fills += 1;
  return true;
}

// When a load issued ahead in NVIDIA's unrolled code would have gone out
// (timing_impl.h).
uint64_t TimingModel::Impl::AheadAt(WarpState& w,
                                    const simt::InstrRecord& rec) {
  const simt::Program& p = w.warp->program();
  if (config.loop_unroll <= 1 || rec.pc >= p.ahead_loads.size() ||
      p.ahead_loads[rec.pc] == 0 || w.ahead_at.empty()) {
    return now;
  }
  const uint32_t tag = p.ahead_loads[rec.pc];
  const simt::UnrolledLoop& loop = p.unrolled_loops[tag - 1];
  if (!Unrolls(config, loop)) return now;  // rolled: no group of trips
  // The trip it is on: the exit branch's executions since the warp entered
  // the loop, less the one of this trip when the branch comes first.
  const uint32_t branches = w.loop_counts[2 * (tag - 1)];
  const uint32_t trip =
      loop.exit_branch < rec.pc && branches > 0 ? branches - 1 : branches;
  const uint32_t group = trip / config.loop_unroll + 1;
  if (trip % config.loop_unroll == 0) {
    if (w.ahead_group[tag - 1] != group) {
      w.ahead_group[tag - 1] = group;
      w.ahead_at[tag - 1] = now;
    }
    return now;
  }
  return w.ahead_group[tag - 1] == group ? std::min(now, w.ahead_at[tag - 1])
                                         : now;
}

}  // namespace warpsim::sm
