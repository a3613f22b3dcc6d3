// The SM timing model: decides *when* each warp issues, and why it waited.
//
// It is a driver of the warp queue (pipeline/warp_queue.h): it takes the
// items a draw or dispatch produces (vertex batches, fragment warps,
// compute workgroups), makes them resident on SMs when the SM has room
// (warp slots, block slots, shared memory, and registers in the register
// file of the sub-partition each warp is assigned to), and then, cycle by
// cycle, lets every sub-partition's scheduler issue one warp instruction of
// one of its eligible warps. Issuing calls Warp::Step(): the InstrRecord it
// returns (pipe, registers read and written, per-lane addresses) is all the
// model knows of the instruction.
//
//   item produced ─► waits for room ─► resident on SM s: each warp gets a
//   slot and registers on sub-partition (slot mod 4) ─► issues when its
//   operands are ready, its pipe is free and the scheduler picks it ─►
//   retires: registers and slots freed ─► RetireInOrder (API order)
//
// A warp is eligible in a cycle when it is not at a barrier, every register
// its next instruction reads or writes is ready (a scoreboard: each write
// sets the register's ready cycle to issue + latency, the pipe's latency
// for arithmetic and the memory model's for loads), and its pipe can take
// another instruction on this sub-partition (the pipe's issue interval).
// A warp that waits on memory simply is not eligible: the scheduler issues
// another one, at no cost, because every resident warp's registers already
// live in the register file (the "free" context switch). The `swap` mode
// charges what a CPU-style switch would: the registers written out and
// read back.
//
// Memory: the lanes' addresses are grouped into 128-byte lines and 32-byte
// sectors; each line is looked up in the SM's L1 (loads allocate; stores
// write through), then in the GPU's L2, then DRAM; a warp's load is ready
// when its slowest line is, and the sectors that miss queue on the SM's
// share of the L2 and DRAM bandwidth; its data leaves the L1 in
// wavefronts, one a cycle per SM, as many as its lanes' words pile up in
// one bank (MemoryTiming::l1_wavefront_cycles); a store's sectors and
// lines take its SM's store path, which when full holds the load/store
// pipe (store_sector_cycles). Workgroup memory costs the
// shared latency and the same wavefronts (bank conflicts,
// shared_wavefront_cycles), lane-private memory an L1 hit.
//
// Stall reasons: every resident warp is in exactly one state each cycle
// (trace::StallReason, named as Nsight Compute names them); the model
// counts warp-cycles per state, per SM and per draw or dispatch.
//
// Simplifications (said so in the reports' documentation): SPIR-V carries
// no compiler-set stall counts or dependency barriers, so a scoreboard with
// per-pipe latencies stands in for them; no operand collector or
// register banks; runs (draws and dispatches) do not overlap each other.
#ifndef WARPSIM_SM_TIMING_H_
#define WARPSIM_SM_TIMING_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "pipeline/warp_queue.h"
#include "sm/memory_model.h"
#include "sm/occupancy.h"
#include "sm/timing_config.h"
#include "trace/trace.h"

namespace warpsim::sm {

// One draw or dispatch, timed.
struct RunTiming {
  std::string name;             // as set by BeginRun()
  uint64_t begin = 0, end = 0;  // cycles: first warp launch, last retire
  uint64_t cycles = 0;          // end - begin
  uint64_t warp_instructions = 0;
  // Of them, the second instructions of pairs issued as one
  // (TimingConfig::fuse_pairs): warp instructions = issued + fused.
  uint64_t fused_instructions = 0;
  // And the branches issued with the instruction before them
  // (TimingConfig::free_layout_branches): warp instructions = issued +
  // fused + layout branches.
  uint64_t layout_branches = 0;
  // And the control instructions of unrolled loops (exit compare, exit
  // branch, counter step; TimingConfig::loop_unroll) on the trips where the
  // unrolled code has none: warp instructions = issued + fused + layout
  // branches + these.
  uint64_t unrolled_loop_instructions = 0;
  // And a rotated loop's control run in its sub-partition's idle cycles
  // (TimingConfig::loop_control_in_bubbles): warp instructions = issued +
  // fused + layout branches + unrolled loop instructions + these + ...
  uint64_t bubble_instructions = 0;
  // And the instructions the compiler computes once (TimingConfig::cse):
  // warp instructions = issued + fused + layout branches + unrolled loop
  // instructions + these.
  uint64_t redundant_instructions = 0;
  // And the loads, stores and access chains of lane-private variables
  // held in registers, and the constant-bank operands (loads of uniform
  // blocks and push constants at constant offsets;
  // TimingConfig::free_register_moves): warp
  // instructions = issued + fused + layout branches + unrolled loop
  // instructions + redundant instructions + these.
  uint64_t register_moves = 0;
  // And the conditional branches of selections the model predicates
  // (TimingConfig::predicate_max_instructions), issued with the
  // instruction before them: warp instructions = issued + fused + layout
  // branches + unrolled loop instructions + redundant instructions +
  // register moves + these.
  uint64_t predicated_branches = 0;
  // The issue slots the predicated selections' sides that no lane took
  // used (no warp instruction: they write nothing); selected cycles =
  // issued + these.
  uint64_t predicated_off_instructions = 0;
  // The cycles compute warps' loads and stores held their sub-partition's
  // issue beyond their own slots (MemoryTiming::*_issue_cycles): what
  // idle cycles and the slack (issue_hold_slack_cycles) did not pay.
  uint64_t memory_issue_hold_cycles = 0;
  // The cycles global stores kept their sub-partitions' load/store pipes
  // busy because their SM's store path held more than
  // MemoryTiming::store_queue_cycles of work (the sum over the stores).
  uint64_t store_throttle_cycles = 0;
  // The issue slots of the reconvergence instructions around selections'
  // branches (TimingConfig::selection_sync_slots; no warp instruction);
  // selected cycles = issued + predicated-off + these.
  uint64_t reconvergence_instructions = 0;
  // The issue slots of unrolled loops' entries
  // (TimingConfig::loop_entry_slots; no warp instruction); selected cycles =
  // issued + predicated-off + reconvergence + these.
  uint64_t loop_entry_instructions = 0;
  // The moves of predicated selections' results once a pass of an
  // unrolled loop (TimingConfig::selection_loop_moves; no warp
  // instruction); selected cycles = issued + predicated-off +
  // reconvergence + loop entry + these.
  uint64_t selection_move_instructions = 0;
  // Integer adds issued to the FMA pipe (TimingConfig::split_int_adds);
  // counted in the issued ones.
  uint64_t fma_pipe_adds = 0;
  uint32_t sms_used = 0;
  // Warp instructions per cycle per SM, over the SMs that ran its warps.
  double ipc = 0;
  // Resident warps per SM the occupancy rules allow for its first item's
  // shape (registers, threads, shared memory), over max_warps_per_sm; and
  // the mean resident warps per used SM over the run's cycles, over the
  // same maximum.
  double theoretical_occupancy = 0;
  double achieved_occupancy = 0;
  std::string limiter;  // "registers", "warp_slots", "block_slots", ...
  // Registers per thread the warps were given: a dispatch's, a draw's
  // fragment shader's (its vertex shader's apart), from the register
  // model or the run's override (StageRegisters).
  uint32_t registers_per_thread = 0;
  uint32_t vertex_registers_per_thread = 0;  // draws
  // The most warps resident at once on one SM: all stages, and fragment
  // warps alone (draws).
  uint32_t peak_warps_per_sm = 0;
  uint32_t peak_fragment_warps_per_sm = 0;
  trace::StallCounts stall_cycles{};  // warp-cycles by state
  uint64_t warp_switches = 0;  // issues by a warp other than the previous
  // What the run's global-memory accesses (buffers, images, atomics) did
  // in the memory model: warp instructions, sectors, lines that hit or
  // missed the L1 (loads only) and the L2, the loads' L1 wavefronts; and
  // its workgroup-memory accesses and their wavefronts.
  MemoryCounters memory{};
};

struct SmTiming {
  uint64_t busy_cycles = 0;        // cycles with at least one resident warp
  uint64_t issued = 0;             // warp instructions
  double ipc = 0;                  // issued / busy_cycles
  double mean_resident_warps = 0;  // over busy cycles
  uint32_t peak_registers = 0;     // allocated at once, all sub-partitions
  uint32_t peak_warps = 0;         // resident at once
  trace::StallCounts stall_cycles{};
};

// Registers per thread to give each stage's warps in one run instead of
// the register model's estimate (0: the estimate): what-if studies, or a
// driver's reported counts (warpsim run --regs-per-thread,
// --registers-from).
struct StageRegisters {
  uint32_t vertex = 0, fragment = 0, compute = 0;
};

class TimingModel : public pipeline::WarpDriver {
 public:
  // `min_registers_per_thread`: the fewest registers a thread is given
  // (GpuConfig). `trace`: filled as the model runs when not null.
  TimingModel(const TimingConfig& config, const SmLimits& limits,
              uint32_t min_registers_per_thread, trace::Trace* trace = nullptr);
  ~TimingModel() override;

  // Names the next Drain() in runs() and the trace ("draw 0 ..."), and
  // sets its registers per thread.
  void BeginRun(std::string name, StageRegisters registers = {});
  Status Drain(pipeline::WarpSource& source,
               const pipeline::DrainLimits& limits) override;

  const std::vector<RunTiming>& runs() const;
  uint64_t cycles() const;  // since the model was made
  std::vector<SmTiming> sms() const;
  const TimingConfig& config() const;
  // Watches the trace as the model fills it (needs a trace); nullptr
  // stops watching.
  void set_observer(trace::Observer* observer);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpsim::sm

#endif  // WARPSIM_SM_TIMING_H_
