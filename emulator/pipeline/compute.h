// Compute dispatch: which warps exist for a vkCmdDispatch and how the warps
// of one workgroup share barriers and workgroup memory.
//
// A workgroup of local size X*Y*Z invocations is cut into warps in
// LocalInvocationIndex order (lane = index % width, warp = index / width);
// the last warp of a workgroup may be partial. Functional mode runs each
// workgroup to completion: its warps take turns, each running until it
// reaches a barrier, finishes, or uses up a time slice; a barrier opens when
// every unfinished warp of the workgroup waits at it.
#ifndef WARPSIM_PIPELINE_COMPUTE_H_
#define WARPSIM_PIPELINE_COMPUTE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/diagnostic.h"
#include "pipeline/warp_queue.h"
#include "simt/program.h"
#include "simt/warp.h"

namespace warpsim::pipeline {

struct ComputeLimits {
  uint32_t warp_width = 32;
  // A dispatch that executes more warp instructions than this is stopped
  // (a shader that never terminates); 0 = no limit.
  uint64_t max_warp_instructions = 4'000'000'000ull;
  // Warp instructions a warp runs before another warp of its workgroup gets
  // a turn (lets spin-waits on other warps make progress).
  uint32_t time_slice = 4096;
  // Host threads that run workgroups (DrainParallel); 1 = in order. A
  // dispatch that can write memory runs in parallel with its accesses
  // logged, and again in order (memory restored first) when two workgroups
  // touched the same word and one of them wrote it: its result is always
  // the in-order one.
  uint32_t threads = 1;
  // When set, this driver runs the dispatch (the SM timing model) and
  // `threads` is ignored.
  WarpDriver* driver = nullptr;
  // Sees every issued instruction (DrainLimits::step_observer); with one,
  // the draw or dispatch runs on one host thread.
  simt::StepObserver* step_observer = nullptr;
};

struct DispatchStats {
  uint64_t workgroups = 0;
  uint64_t warps = 0;
  uint64_t warp_instructions = 0;
  uint64_t lane_instructions = 0;
  uint64_t helper_lane_instructions = 0;
  // How the result was made (not part of any report, which must not
  // depend on threads): host threads of the run kept, and whether a
  // parallel attempt was discarded because workgroups shared memory.
  uint32_t threads = 1;
  bool rerun_in_order = false;
};

// Writes the subgroup built-ins (SubgroupSize, SubgroupLocalInvocationId,
// Subgroup*Mask) of `lane` into lane-private memory; false for other
// built-ins. Shared by every stage.
bool WriteSubgroupBuiltin(uint8_t* mem, const simt::InputSlot& slot,
                          uint32_t lane, uint32_t width);

// A workgroup as a work item.
struct WorkgroupWork : WorkItem {
  uint32_t group[3] = {0, 0, 0};  // WorkgroupId
  std::string Where(size_t warp) const override;
  // With logged accesses: each word once, sorted (on the thread that ran
  // the workgroup, so that Retire() only merges).
  Status Finish() override;
};

// A dispatch as a source of work items, one per workgroup.
class ComputeDispatch : public WarpSource {
 public:
  // Checks the workgroup size and inputs. `regions`: as for
  // DispatchCompute; the workgroup region is set per item.
  static Result<std::unique_ptr<ComputeDispatch>> Create(
      const simt::Program& program, const uint32_t groups[3],
      std::vector<simt::MemRegion> regions, std::vector<simt::ImageDesc> images,
      uint32_t warp_width);

  Result<std::unique_ptr<WorkItem>> Next() override;
  Status Retire(WorkItem& item) override;
  bool done() const override { return next_group_ >= total_groups_; }
  // Counters of the retired workgroups.
  const DispatchStats& stats() const { return stats_; }
  // Makes workgroups record their addresses and keeps, as they retire,
  // which words of writable memory each one read and wrote (drain with
  // DrainLimits::track_accesses).
  void set_track_accesses(bool track) { track_ = track; }
  // With tracking, after every workgroup retired: true when a word written
  // by one workgroup was read or written by another, i.e. the order the
  // workgroups ran in may have changed the result.
  bool WorkgroupsShareMemory();

 private:
  explicit ComputeDispatch(const simt::Program& program) : program_(program) {}

  const simt::Program& program_;
  uint32_t width_ = 32;
  uint32_t local_count_ = 1;
  uint32_t groups_[3] = {1, 1, 1};
  uint64_t total_groups_ = 0;
  uint64_t next_group_ = 0;
  std::vector<simt::MemRegion> regions_;
  std::vector<simt::ImageDesc> images_;
  DispatchStats stats_;
  bool track_ = false;
  // (word, workgroup) of every word a workgroup wrote or read, each word
  // once per workgroup; sorted and compared once, by WorkgroupsShareMemory
  // (a vector, not a map: no allocation per word on the retiring thread).
  std::vector<std::pair<uint64_t, uint64_t>> writes_, reads_;
};

// Runs `program` over groups[0] x groups[1] x groups[2] workgroups.
// `regions` holds the memory regions the program's resources use (indexed
// like Program::resources[i].region); region 0 and 1 are filled here.
Result<DispatchStats> DispatchCompute(const simt::Program& program,
                                      const uint32_t groups[3],
                                      std::vector<simt::MemRegion> regions,
                                      std::vector<simt::ImageDesc> images,
                                      const ComputeLimits& limits);

}  // namespace warpsim::pipeline

#endif  // WARPSIM_PIPELINE_COMPUTE_H_
