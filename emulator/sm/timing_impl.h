// Internals of the SM timing model (timing.h), shared by timing.cpp
// (residency, the cycle loop), timing_issue.cpp (evaluating warps, picking
// one, issuing it), timing_loops.cpp (what NVIDIA's code does to loops)
// and timing_program.cpp (what it knows of a program before issuing it).
// Not for other modules.
#ifndef WARPSIM_SM_TIMING_IMPL_H_
#define WARPSIM_SM_TIMING_IMPL_H_

#include <spirv/unified1/GLSL.std.450.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pipeline/warp_queue.h"
#include "simt/opcode_info.h"
#include "simt/warp.h"
#include "sm/memory_model.h"
#include "sm/timing.h"
#include "trace/trace.h"

namespace warpsim::sm {
namespace internal {

using trace::StallReason;
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kNoTile = kNever;  // ItemState::tile: none
constexpr size_t kPipes = static_cast<size_t>(simt::Pipe::kSync) + 1;
// Items produced ahead of those resident (they wait for room in order).
constexpr size_t kMaxPending = 64;
// Cycles between two counter samples of an SM in the trace.
constexpr uint64_t kSampleInterval = 256;

inline size_t R(StallReason r) { return static_cast<size_t>(r); }

// WarpState::ready's words.
static_assert(trace::kStallReasons <= 16);
inline uint64_t ReadyWord(uint64_t cycle, StallReason why) {
  return cycle << 4 | static_cast<uint64_t>(why);
}

struct ItemState;

// How the model issues each instruction of a program, under the run's
// TimingConfig (Impl::Info): bits, per instruction, of what Issue() would
// otherwise look up in the program's tables at every issue.
enum InstrKind : uint16_t {
  kLayoutFree = 1,         // free_layout_branches and Program::layout_free
  kRedundant = 2,          // cse and Program::redundant
  kRegisterMove = 4,       // Program::register_private (RegisterMove)
  kPredicatedBranch = 8,   // its selection is predicated (Predicated())
  kLoopFill = 16,          // loop_control_in_bubbles and Program::loop_fills
  kLoopControl = 32,       // Program::loop_control (LoopTag)
  kRenamed = 64,           // free_register_moves and kRegisterMove
  kWritesPredicate = 128,  // simt::WritesPredicate
  kBeginsPair = 256,       // simt::BeginsPair
};
// The kinds Issue() runs with the instruction before them, or may.
constexpr uint16_t kMayIssueWithPrevious = kLayoutFree | kRedundant |
                                           kPredicatedBranch | kLoopFill |
                                           kLoopControl | kRenamed;
struct ProgramInfo {
  std::vector<uint16_t> kind;  // per instruction (and one past the last)
  // Per instruction: the predicated selection its branch begins, or
  // nullptr (Predicated()); its pipe's figures (Impl::TimingOf).
  std::vector<const simt::PredicatedSelection*> predicated;
  std::vector<const PipeTiming*> timing;
  // Per instruction: for a predicated selection's branch whose side holds
  // a loop, the unrolled loop (simt::Program::unrolled_loops index + 1)
  // it lies in, whose passes issue its moves (TimingConfig::
  // selection_loop_moves); else 0. Empty when there are none.
  std::vector<uint32_t> selection_loop;
};

// A resident warp: where it lives, its scoreboard, what it waits for.
//
// Its stall state is kept lazily: from cycle `since` on, the warp waits
// for `why` until `ready_at` and is eligible from then on (not_selected
// unless it issues), or waits at a barrier; the cycles are added to the
// counters (Account()) only when something changes that state.
struct alignas(64) WarpState {
  // What every issue reads or writes (Pick, Issue, Refresh, Account) lies
  // in its first three cache lines, the rest after them: a warp's issue
  // misses the host's cache on its state three times, not once per field.
  //
  // -- line 0 --
  uint64_t next_issue = 0;
  uint64_t ready_at = 0;  // when it can issue (kNever: barrier or done)
  uint64_t since = 0;     // cycles before it are in the counters
  simt::Warp* warp = nullptr;
  const ProgramInfo* info = nullptr;  // its program's (Impl::Info)
  // Per register: the cycle its pending write is ready, and what kind of
  // result it waits for, in one word (one cache miss, not two):
  // cycle << 4 | reason (ReadyWord).
  std::vector<uint64_t> ready;
  // -- line 1 --
  // Its program's code (TimingConfig::icache_bytes): the first line, each
  // instruction's line from the first (Impl::Code), and the line of the
  // instruction it last issued (~0: none); code_end below.
  uint64_t code_base = 0;
  const uint32_t* code_offset = nullptr;
  uint64_t line = ~uint64_t{0};
  // Its issues and the cycles it waited on fixed latencies (kWait), ever:
  // the cycles the stall counts in NVIDIA's code give it; and that count
  // when the first memory instruction of its loop's trip issued (0: none yet;
  // TimingConfig::static_loop_test).
  uint64_t static_clock = 0;
  uint64_t trip_memory_static = 0;
  // The side of a predicated selection that none of its lanes took
  // (TimingConfig::predicate_max_instructions), still to issue from
  // ghost_next on: one issue slot each, writing nothing. nullptr: none.
  const std::vector<uint32_t>* ghost = nullptr;
  // Its program's loop_control when the program has unrolled loops, else
  // nullptr (the per-issue check is one compare then).
  const uint32_t* loop_control = nullptr;
  // Its program's loop_tests when TimingConfig::predicate_latency is set
  // and the program has loops tested at their top, else nullptr (see
  // loop_top).
  const uint32_t* loop_tests = nullptr;
  // -- line 2 --
  uint64_t issued = 0;
  // A barrier released it at this cycle since its last issue (0: none).
  uint64_t barrier_end = 0;
  uint64_t private_latest = 0;  // the latest of private_ready (ReadyWord)
  uint32_t loop_control_size = 0;
  uint32_t loop_tests_size = 0;
  uint32_t slot = 0;
  uint32_t sm = 0, sp = 0;
  uint32_t ghost_next = 0;
  // The reconvergence instructions still to issue after a selection's
  // branch (TimingConfig::selection_sync_slots): one issue slot each on
  // the branch pipe, writing nothing.
  uint32_t sync_slots = 0;
  StallReason next_issue_reason = StallReason::kWait;
  StallReason why = StallReason::kWait;  // the wait until ready_at
  bool done = false;
  bool at_barrier = false;  // (the warp's, kept here)
  // The issue slots of an unrolled loop's entry still to issue
  // (TimingConfig::loop_entry_slots), the next one at entry_at at the
  // earliest, before its next instruction (whose own wait, next_issue,
  // runs meanwhile).
  uint16_t entry_slots = 0;
  // The moves of a predicated selection's results still to issue
  // (TimingConfig::selection_loop_moves): one issue slot each on the FMA
  // pipe, writing nothing, before its next instruction.
  uint16_t move_slots = 0;
  // -- the rest --
  bool in_pool = true;  // two-level scheduler's active pool
  ItemState* item = nullptr;
  uint64_t id = 0;     // launch order, run-wide
  uint32_t index = 0;  // within its item
  uint32_t reg_first = 0, reg_count = 0, regs_per_thread = 0;
  uint64_t code_end = 0;  // its program's last line + 1
  // The line of its next instruction (code_offset set).
  uint64_t NextLine() const { return code_base + code_offset[warp->next_pc()]; }
  uint64_t begin = 0;
  uint64_t entry_at = 0;  // (entry_slots)
  // Per 32-bit word of lane-private memory that a variable held in
  // registers occupies (simt::Program::register_private), as far as one
  // was written: when the value last stored there is ready, as `ready`.
  std::vector<uint64_t> private_ready;
  // Per unrolled loop of its program (simt::Program::unrolled_loops), two
  // counts since the warp entered it: exit-branch executions and counter
  // steps (LoopControlIssues).
  std::vector<uint32_t> loop_counts;
  // Per unrolled loop: the cycle the first load of the current group of
  // loop_unroll trips issued, and that group's number + 1 (AheadAt).
  std::vector<uint64_t> ahead_at;
  std::vector<uint32_t> ahead_group;
  // Per loop of the program (simt::Program::loops), with loop_tests: the
  // cycle its test's branch last issued while the warp stays in the loop
  // (0: not in it, or on its first trip): the next trip's test, hoisted
  // into this trip's body by the compiler, is computed from then on
  // (Impl::HoistedTest).
  std::vector<uint64_t> loop_top;
  // Per loop, with loop_top (TimingConfig::loop_control_in_bubbles): its
  // sub-partition's issues and idle cycles filled (SubPartition::issues,
  // fills) when the trip began.
  std::vector<uint64_t> loop_top_issues;
  std::vector<uint64_t> loop_top_fills;
  std::vector<uint64_t> loop_top_held;
  size_t span = ~size_t{0};            // its Trace::warps entry
  uint32_t shader = trace::kNoShader;  // its Trace::shaders entry
};
static_assert(offsetof(WarpState, issued) == 128 &&
              offsetof(WarpState, in_pool) <= 192);

struct ItemState {
  std::unique_ptr<pipeline::WorkItem> item;
  uint32_t sm = 0;
  uint32_t warps_left = 0;
  uint64_t seq = 0;       // launch order (Drain)
  size_t live_index = 0;  // its place in Drain's resident items
  uint32_t shared_bytes = 0;
  bool block = false;         // counts against max_blocks_per_sm
  uint64_t raster_ready = 0;  // when the rasterizer has its quads
  // A fragment warp's screen tile (TimingConfig::fragment_tile_pixels):
  // its row << 32 | column; kNoTile: none.
  uint64_t tile = kNoTile;
  std::vector<WarpState*> warps;  // in their sub-partitions' `states`
  // Per region (context.regions) and per image (context.images, whose
  // records name them by their own index): its device address
  // (MemoryModel::DeviceAddress), 0 until first used.
  std::vector<uint64_t> device_base;
  std::vector<uint64_t> image_base;
};

// Warp slots per sub-partition the timing model handles (bit masks).
constexpr uint32_t kMaxSlotsPerSubPartition = 64;

// A sub-partition's L0 instruction cache (TimingConfig::icache_bytes).
struct InstructionCache {
  uint64_t set_mask = 0;         // sets - 1 (a power of two)
  std::vector<uint64_t> tags;    // per set, its ways' lines (~0: empty)
  std::vector<uint64_t> stamps;  // when each was last used (LRU)
  uint64_t clock = 0;
  std::vector<uint64_t> held;  // bit per line: every line it ever held
  bool Held(uint64_t line) const {
    return line / 64 < held.size() && (held[line / 64] >> (line % 64) & 1);
  }
  void SetHeld(uint64_t line) {
    if (line / 64 >= held.size()) held.resize(line / 64 + 1, 0);
    held[line / 64] |= uint64_t{1} << (line % 64);
  }
  // Lines on their way: the cycle each arrives.
  std::unordered_map<uint64_t, uint64_t> arriving;
  uint64_t fill_free = 0;  // when its fill port takes the next line
  bool evicted = false;    // a line was evicted (else every held one is in)
};

struct alignas(64) SubPartition {
  // What the cycle loop and the scheduler read every cycle, first (two
  // cache lines).
  //
  // The cycle it must pick again (0: now): after an issue, an arrival, a
  // departure or an opened barrier, else when its first warp is ready.
  uint64_t wake = 0;
  // Instructions issued, and idle cycles loop control took, ever
  // (TimingConfig::loop_control_in_bubbles).
  uint64_t issues = 0;
  uint64_t fills = 0;
  uint64_t held = 0;  // cycles HoldIssue kept every warp from issuing, ever
  uint32_t resident = 0;
  uint32_t rr = 0;                 // loose round robin: the slot after the last
  WarpState* last = nullptr;       // the warp issued last
  WarpState** slot_ptr = nullptr;  // slots.data()
  // Which warps are ready, kept as their ready cycles change (a timing
  // wheel) so that the scheduler need not look at every warp each cycle:
  // `ready` holds the slots whose ready_at has come (by cycle `time`),
  // wheel[t % 64] those ready at t in (time, time + 64), `far` the later
  // ones (not kNever).
  uint64_t time = 0;
  uint64_t ready = 0;
  uint64_t wheel_used = 0;  // bit k: wheel[k] != 0
  uint64_t far = 0;
  uint64_t far_min = kNever;
  uint64_t pool = 0;  // slots whose warps are in the active pool
  uint64_t pipe_free[kPipes] = {};
  uint32_t busy_pipes = 0;  // bit p: pipe_free[p] may be in the future
  // Ready warps whose pipe was busy when the scheduler last looked, by
  // ThrottleIndex(), since throttled_since (Settle()).
  std::array<uint32_t, 3> throttled{};
  uint64_t throttled_since = 0;
  // Per pipe: the slots whose warps' next instruction goes to it.
  uint64_t on_pipe[kPipes] = {};
  // The slots in on_pipe[ALU] whose next instruction may go to the FMA
  // pipe instead (IsSplitAdd, TimingConfig::split_int_adds).
  uint64_t either_pipe = 0;
  // No warp issues before `until`: every pipe counts busy till then (the
  // ready warps count as throttled by their pipes).
  // `cycles`: how many more cycles that holds it (the count `held` keeps).
  void HoldIssue(uint64_t until, uint64_t cycles) {
    held += cycles;
    for (uint64_t& free : pipe_free) free = std::max(free, until);
    busy_pipes = (1u << kPipes) - 1;
  }
  // The rest.
  // Hold cycles it owes (MemoryTiming::issue_hold_slack_cycles), counted
  // up to owed_since, when `issues` was owed_issues.
  uint64_t owed = 0;
  uint64_t owed_since = 0;
  uint64_t owed_issues = 0;
  // An instruction issued at `now` (counted in `issues`) holds the issue
  // `hold` cycles: the cycles since the last hold in which nothing issued
  // pay what it owed, and what it owes beyond `slack` stops the issue.
  // Returns the cycles stopped.
  uint64_t Owe(uint64_t now, uint64_t hold, uint64_t slack) {
    const uint64_t span = now - std::min(now, owed_since);
    const uint64_t busy = issues - 1 - owed_issues;
    const uint64_t idle = span > busy ? span - busy : 0;
    owed = (owed > idle ? owed - idle : 0) + hold;
    const uint64_t stop = owed > slack ? owed - slack : 0;
    if (stop > 0) {
      HoldIssue(now + 1 + stop, stop);
      owed = slack;
    }
    owed_since = now + 1 + stop;
    owed_issues = issues;
    return stop;
  }
  // Until when the launches of fragment warps occupy it
  // (TimingConfig::fragment_warp_cycles).
  uint64_t launch_busy = 0;
  std::array<uint64_t, 64> wheel{};
  // Per slot: the warp's ready_at (kNever: free, done or at a barrier)
  // and its next instruction's pipe.
  std::array<uint64_t, kMaxSlotsPerSubPartition> ready_at;
  std::array<simt::Pipe, kMaxSlotsPerSubPartition> pipe_of{};
  // The occupied slots, oldest warp first (by WarpState::id).
  std::array<uint8_t, kMaxSlotsPerSubPartition> age{};
  // Per warp slot: the state of the warp that holds it.
  std::vector<WarpState> states;
  std::vector<WarpState*> slots;  // nullptr: free
  std::vector<WarpState*> list;   // the resident warps, by slot
  // Free ranges of the register file (first, count), by first register.
  std::vector<std::pair<uint32_t, uint32_t>> free;
  std::unique_ptr<InstructionCache> icache;  // null: no model

  SubPartition() { ready_at.fill(kNever); }

  // Brings `ready` up to cycle `now`.
  void Advance(uint64_t now) {
    if (now <= time) return;
    if (wheel_used != 0) {
      // The wheel's positions for (time, now], oldest first.
      uint64_t span =
          now - time >= 64 ? ~uint64_t{0} : ((uint64_t{1} << (now - time)) - 1);
      const uint32_t from = static_cast<uint32_t>((time + 1) % 64);
      span = std::rotl(span, static_cast<int>(from));
      for (uint64_t m = span & wheel_used; m != 0; m &= m - 1) {
        const uint32_t k = static_cast<uint32_t>(std::countr_zero(m));
        ready |= wheel[k];
        wheel[k] = 0;
      }
      wheel_used &= ~span;
    }
    time = now;
    if (far != 0 && far_min < time + 64) {
      const uint64_t moving = far;
      far = 0;
      far_min = kNever;
      for (uint64_t m = moving; m != 0; m &= m - 1) {
        Place(static_cast<uint32_t>(std::countr_zero(m)));
      }
    }
  }
  // Files slot `i` by its ready_at (relative to `time`).
  void Place(uint32_t i) {
    const uint64_t bit = uint64_t{1} << i;
    const uint64_t t = ready_at[i];
    if (t == kNever) return;
    if (t <= time) {
      ready |= bit;
    } else if (t < time + 64) {
      wheel[t % 64] |= bit;
      wheel_used |= uint64_t{1} << (t % 64);
    } else {
      far |= bit;
      far_min = std::min(far_min, t);
    }
  }
  // Slot `i`'s warp is ready at `t` from now on (kNever: never).
  void SetReadyAt(uint32_t i, uint64_t t, uint64_t now) {
    Advance(now);
    const uint64_t bit = uint64_t{1} << i;
    const uint64_t old = ready_at[i];
    if ((ready & bit) != 0) {
      ready &= ~bit;
    } else if ((far & bit) != 0) {
      far &= ~bit;  // (far_min may stay below the rest: harmless)
    } else if (old != kNever) {
      uint64_t& w = wheel[old % 64];
      w &= ~bit;
      if (w == 0) wheel_used &= ~(uint64_t{1} << (old % 64));
    }
    ready_at[i] = t;
    Place(i);
  }
  // The first cycle after `time` a warp becomes ready (kNever: none).
  uint64_t NextReady() const {
    if (wheel_used != 0) {
      const uint32_t from = static_cast<uint32_t>((time + 1) % 64);
      const uint64_t m = std::rotr(wheel_used, static_cast<int>(from));
      return time + 1 + static_cast<uint64_t>(std::countr_zero(m));
    }
    return far != 0 ? far_min : kNever;
  }
};

struct Sm {
  std::vector<SubPartition> sp;
  uint32_t warps = 0, blocks = 0, shared = 0, registers = 0;
  uint32_t fragment_warps = 0;
  uint32_t empty_sps = 0;  // sub-partitions without a resident warp
  SmTiming stats;
  double resident_warp_cycles = 0;
  bool used_in_run = false;
  double run_resident_warp_cycles = 0;
  uint64_t run_issued = 0;
  // Since the last trace sample: instructions issued; stall_cycles then.
  uint64_t sample_issued = 0;
  trace::StallCounts sample_base{};
  trace::StallCounts run_base{};  // stall_cycles when the run began
};

// The stall reason of a warp whose pipe is busy, by ThrottleIndex().
constexpr StallReason kThrottleReasons[3] = {StallReason::kMathPipeThrottle,
                                             StallReason::kLgThrottle,
                                             StallReason::kTexThrottle};
inline size_t ThrottleIndex(simt::Pipe p) {
  return p == simt::Pipe::kLsu ? 1 : p == simt::Pipe::kTex ? 2 : 0;
}

inline uint32_t RoundUp(uint32_t v, uint32_t unit) {
  return unit == 0 ? v : (v + unit - 1) / unit * unit;
}

// First fit in a sorted free list; returns the first register or ~0u.
inline uint32_t Allocate(std::vector<std::pair<uint32_t, uint32_t>>& free,
                         uint32_t count) {
  for (size_t i = 0; i < free.size(); ++i) {
    if (free[i].second < count) continue;
    const uint32_t first = free[i].first;
    free[i].first += count;
    free[i].second -= count;
    if (free[i].second == 0) free.erase(free.begin() + i);
    return first;
  }
  return ~0u;
}

inline void Release(std::vector<std::pair<uint32_t, uint32_t>>& free,
                    uint32_t first, uint32_t count) {
  auto it =
      std::lower_bound(free.begin(), free.end(), std::make_pair(first, 0u));
  it = free.insert(it, {first, count});
  // Merge with the neighbours.
  if (it + 1 != free.end() && it->first + it->second == (it + 1)->first) {
    it->second += (it + 1)->second;
    free.erase(it + 1);
  }
  if (it != free.begin() && (it - 1)->first + (it - 1)->second == it->first) {
    (it - 1)->second += it->second;
    free.erase(it);
  }
}

inline trace::Stage StageOf(pipeline::WorkKind k) {
  switch (k) {
    case pipeline::WorkKind::kVertexBatch:
      return trace::Stage::kVertex;
    case pipeline::WorkKind::kFragment:
      return trace::Stage::kFragment;
    case pipeline::WorkKind::kComputeWorkgroup:
      return trace::Stage::kCompute;
  }
  return trace::Stage::kCompute;
}

// An integer add or subtract: IADD3, or IMAD.IADD on the FMA pipe
// (TimingConfig::split_int_adds).
inline bool IsSplitAdd(spv::Op op) {
  return op == spv::Op::OpIAdd || op == spv::Op::OpISub;
}

// A register's ReadyWord as a loop's test hoisted to cycle `hoisted` sees
// it (Impl::HoistedTest): an arithmetic result (kWait) no later than then.
inline uint64_t HoistedWord(uint64_t word, uint64_t hoisted) {
  if (static_cast<StallReason>(word & 15) != StallReason::kWait ||
      (word >> 4) <= hoisted) {
    return word;
  }
  return hoisted << 4 | (word & 15);
}

// The latest of `reads`' ReadyWords in `w` as a loop's test hoisted to
// cycle `hoisted` sees them (HoistedWord; kNever: as they are), 0 when
// none.
inline uint64_t HoistedOperands(const WarpState& w,
                                std::span<const uint32_t> reads,
                                uint64_t hoisted) {
  uint64_t latest = 0;
  for (uint32_t r : reads) {
    if (r < w.ready.size()) {
      latest = std::max(latest, HoistedWord(w.ready[r], hoisted));
    }
  }
  return latest;
}

// The loop-control tag of `pc` (simt::Program::loop_control), 0 for none.
inline uint32_t LoopTag(const WarpState& w, uint32_t pc) {
  return pc < w.loop_control_size ? w.loop_control[pc] : 0;
}

// Whether NVIDIA's compiler unrolls `loop` under `config`: completely when
// its trip count is a constant; with a run-time trip count in groups of
// loop_unroll trips, unless its body (its selections' sides counted at
// loop_unroll_skipped_weight) is longer than loop_unroll_max_body or it asks
// DontUnroll and honour_dont_unroll holds.
inline bool Unrolls(const TimingConfig& config,
                    const simt::UnrolledLoop& loop) {
  if (config.loop_unroll <= 1) return false;
  if (loop.full) return true;
  if (loop.dont_unroll && config.honour_dont_unroll) return false;
  if (config.loop_unroll_max_body == 0) return true;
  const double length =
      static_cast<double>(loop.body - loop.skipped) +
      config.loop_unroll_skipped_weight * static_cast<double>(loop.skipped);
  const uint32_t limit = loop.loads && config.loop_unroll_max_body_loads != 0
                             ? config.loop_unroll_max_body_loads
                             : config.loop_unroll_max_body;
  return length <= static_cast<double>(limit);
}

// Whether the loop-control instruction at `pc` issues on the warp's current
// trip: in a loop the compiler unrolls (Unrolls), once in
// config.loop_unroll trips (the exit compare and branch on the first of
// each group, the counter's step likewise), never in a loop unrolled
// completely, and never when it computes the loop's bound (hoisted). Every
// other instruction issues, and every one of a loop left rolled.
inline bool LoopControlIssues(const WarpState& w, uint32_t pc,
                              const TimingConfig& config) {
  const uint32_t tag = LoopTag(w, pc);
  if (tag == 0 || config.loop_unroll <= 1) return true;
  const simt::UnrolledLoop& loop = w.warp->program().unrolled_loops[tag - 1];
  if (!Unrolls(config, loop)) return true;
  if (loop.full) return false;
  const uint32_t unroll = config.loop_unroll;
  if (pc != loop.step && pc != loop.exit_branch && pc != loop.compare) {
    return false;  // hoisted out of the loop
  }
  const uint32_t count = w.loop_counts[2 * (tag - 1) + (pc == loop.step)];
  return count % unroll == 0;
}

// Counts an executed loop-control instruction at `pc`: the exit branch's
// executions and the counter's steps since the warp entered the loop, both
// back to 0 once every lane has left it. The exit branch's first execution
// since the warp entered a loop the compiler unrolls with a run-time trip
// count gives the warp config.loop_entry_slots to issue (`now` on).
inline void CountLoopControl(WarpState& w, uint32_t pc,
                             const TimingConfig& config, uint64_t now) {
  const uint32_t tag = LoopTag(w, pc);
  if (tag == 0) [[likely]] {
    return;
  }
  const simt::UnrolledLoop& loop = w.warp->program().unrolled_loops[tag - 1];
  uint32_t* counts = &w.loop_counts[2 * (tag - 1)];
  if (pc == loop.step) {
    counts[1] += 1;
  } else if (pc == loop.exit_branch) {
    if (counts[0] == 0 && counts[1] == 0 && config.loop_entry_slots != 0 &&
        !loop.full && Unrolls(config, loop)) {
      w.entry_slots = static_cast<uint16_t>(config.loop_entry_slots);
      w.entry_at = now + 1;
    }
    counts[0] += 1;
    if (w.warp->done() || w.warp->next_pc() == loop.merge_pc) {
      counts[0] = counts[1] = 0;
      // (The next entry's first group starts afresh: AheadAt.)
      if (!w.ahead_group.empty()) w.ahead_group[tag - 1] = 0;
    }
  }
}

// The pairs NVIDIA's compiler makes one SASS instruction of: simt's
// (opcode_info.h), which the lowering's block scheduling keeps together.
using simt::BeginsPair;
using simt::Fusible;

// Whether instruction side[i] of a predicated side issues with side[i - 1]
// (not itself the second of a pair) as one (TimingConfig::fuse_pairs).
inline bool FusesWithPrevious(const simt::Program& p,
                              const std::vector<uint32_t>& side, size_t i) {
  if (i == 0 || side[i] != side[i - 1] + 1) return false;
  return simt::FusedPair(p.code[side[i - 1]], p.code[side[i]]);
}

}  // namespace internal

using trace::StallReason;

struct TimingModel::Impl {
  using ItemState = internal::ItemState;
  using WarpState = internal::WarpState;
  using SubPartition = internal::SubPartition;
  using Sm = internal::Sm;
  TimingConfig config;
  SmLimits limits;
  uint32_t min_regs;
  trace::Trace* trace;
  // The current Drain()'s DrainLimits::step_observer (may be null).
  simt::StepObserver* step_observer = nullptr;
  MemoryModel memory;
  std::vector<Sm> sms;
  std::vector<uint32_t> active_sms;  // SMs with resident warps
  uint32_t slots_per_sp;
  uint32_t regs_per_sp;
  uint64_t now = 0;
  uint64_t next_warp_id = 0;
  uint32_t next_compute_sm = 0;
  // Per screen tile (ItemState::tile) with resident fragment warps: its
  // SM and how many (TimingConfig::fragment_tile_pixels).
  struct TileHome {
    uint32_t sm = 0, warps = 0;
  };
  std::unordered_map<uint64_t, TileHome> tile_home;
  // A warp retired since the launch loop last ran: resources it may wait
  // for are free (Drain tries the pending items again only then, when new
  // items came, or when the front item's quads are rasterized).
  bool warps_retired = false;
  uint64_t next_sample = internal::kSampleInterval;
  // The instruction caches' code addresses, per program: its first line,
  // its last + 1, and per instruction its line from the first.
  struct CodeLayout {
    uint64_t base = 0, end = 0;
    std::vector<uint32_t> offset;
  };
  std::unordered_map<const simt::Program*, CodeLayout> code_layout;
  // The run's programs' ProgramInfo (Drain clears it: no warp of one run
  // outlives it, and a program may not outlive the run).
  std::unordered_map<const simt::Program*, internal::ProgramInfo> program_info;
  const internal::ProgramInfo& Info(const simt::Program& p);
  uint64_t next_code_line = 0;
  uint64_t last_sample = 0;
  std::vector<RunTiming> runs;
  // The live viewer (set_observer) and when it wants to hear next.
  trace::Observer* observer = nullptr;
  uint64_t notify_at = 0;
  uint64_t issued_before = 0;  // warp instructions of the finished runs
  // This run's programs and their Trace::shaders entries.
  std::vector<std::pair<const simt::Program*, uint32_t>> shaders;
  std::vector<pipeline::QuadFootprint> quad_scratch;
  std::string next_name;
  StageRegisters next_registers;
  StageRegisters registers;  // this run's (Drain's)

  Impl(const TimingConfig& c, const SmLimits& l, uint32_t min_registers,
       trace::Trace* t);
  void UpdateActive();
  const PipeTiming& Pipe(simt::Pipe p) const;
  // Per pipe: its figures in `config` (the Impl's constructor).
  std::array<const PipeTiming*, internal::kPipes> pipe_timing{};
  // The figures of one instruction: its pipe's, except integer multiply
  // and sine / cosine, which have their own (on the pipe they issue to).
  const PipeTiming& TimingOf(const simt::InstrRecord& rec) const;
  // For the compare of a loop's test at `pc` (simt::Program::loop_tests)
  // on a trip after the warp's first: the cycle NVIDIA's code would issue
  // it, at the top of the previous trip's body (the test's branch, its
  // wait, the counter's step), else 0.
  uint64_t HoistedTest(const WarpState& w, uint32_t pc) const {
    if (w.loop_tests == nullptr || pc >= w.loop_tests_size ||
        w.loop_tests[pc] == 0) {
      return 0;
    }
    const uint64_t top = w.loop_top[w.loop_tests[pc] - 1];
    return top == 0 ? 0 : top + config.branch.latency + config.alu.latency;
  }
  // After the branch of a loop's test at `pc` ran (issued or not: `issued`):
  // notes the trip's top, or that the warp left the loop.
  void AfterLoopTest(WarpState& w, uint32_t pc, bool issued);
  // Whether the loop control at `pc` runs in an idle cycle of the trip
  // (TimingConfig::loop_control_in_bubbles); counts it when it does.
  bool FillsBubble(WarpState& w, SubPartition& sp, uint32_t pc);
  void MoveThroughRegisters(WarpState& w, const simt::InstrRecord& rec,
                            uint64_t* moved);
  uint32_t RegsPerThread(const pipeline::WorkItem& item) const;
  // Places every warp of `item` on SM `s`, or nothing; false when it does
  // not fit.
  bool Place(ItemState& st, uint32_t s);
  // Two-level scheduling: the active pool takes the oldest warps outside
  // it while it has fewer than two_level_active.
  void RefillPool(SubPartition& sp);
  // Tries to make `st` resident: compute workgroups on the next SM in
  // round-robin order that has room, graphics warps on the graphics SM
  // with the fewest resident warps that has room, of those not in
  // `skip` (may be null: none), a fragment warp on its tile's SM while the
  // tile has resident warps there (TimingConfig::fragment_tile_pixels).
  bool TryLaunch(ItemState& st, const std::vector<char>* skip);
  // Reads the next instruction's operands: when they are ready, and so
  // when the warp can issue (ready_at) and what it waits for until then.
  void Refresh(WarpState& w);
  // The instruction cache (TimingConfig::icache_bytes): where `p`'s code
  // lies (`info`: its Info()); when `line` is at hand in `sp`'s cache (at
  // most `now`: now), fetching it if it must be; and a warp's use of it at
  // issue, which fetches the next line of its program ahead.
  const CodeLayout& Code(const simt::Program& p,
                         const internal::ProgramInfo& info);
  uint64_t LineAtHand(SubPartition& sp, uint64_t line);
  void UseLine(SubPartition& sp, WarpState& w, uint64_t line);
  // Adds the warp's state from w.since up to cycle `t` to the counters
  // (the SM's, the run's, the trace sample's).
  void Account(WarpState& w, uint64_t t) {
    if (w.done || t <= w.since) return;
    // (Into the SM's counters only: the run's and the trace sample's are
    // differences of those.)
    trace::StallCounts& c = sms[w.sm].stats.stall_cycles;
    if (w.at_barrier) {
      c[internal::R(StallReason::kBarrier)] += t - w.since;
    } else {
      // Waiting until ready_at, eligible (not selected) from then on.
      const uint64_t stall_end = std::clamp(w.ready_at, w.since, t);
      c[internal::R(w.why)] += stall_end - w.since;
      // (Branch-free: the reason changes from one issue to the next.)
      w.static_clock += static_cast<uint64_t>(w.why == StallReason::kWait) *
                        (stall_end - w.since);
      c[internal::R(StallReason::kNotSelected)] += t - stall_end;
    }
    w.since = t;
  }
  // Adds the cycles since sp.throttled_since of the warps Pick() found
  // throttled (ready, their pipe busy) to their pipe's reason.
  void Settle(SubPartition& sp, Sm& sm, uint64_t t);
  // The warp the scheduler issues now, or nullptr; `earliest`: the first
  // cycle a warp could issue when none can now. Also counts the ready
  // warps whose pipe is busy (throttled).
  WarpState* Pick(SubPartition& sp, Sm& sm, uint64_t* earliest);
  // The cycles the output merge takes for `w` (TimingConfig's output
  // rates).
  double OutputCycles(const pipeline::OutputWork& w) const {
    double c = static_cast<double>(w.tested) * config.depth_test_cycles +
               static_cast<double>(w.rejected) * config.depth_reject_cycles +
               static_cast<double>(w.blended) * config.blend_cycles +
               static_cast<double>(w.float_blended) * config.float_blend_cycles;
    if (config.output_bytes_per_cycle > 0) {
      c += static_cast<double>(w.bytes) / config.output_bytes_per_cycle;
    }
    return c;
  }
  // The cycles from `at` (now, or earlier for a load issued ahead: AheadAt)
  // until a memory instruction's result is ready.
  // Set by MemoryLatency for a global store: MemoryModel::StoreThrottle().
  uint32_t store_throttle = 0;
  uint32_t MemoryLatency(WarpState& w, const simt::InstrRecord& rec,
                         StallReason* reason, bool store, uint64_t at);
  // The cycles beyond its own slot a compute warp's memory instruction
  // holds its sub-partition's issue (MemoryTiming::*_issue_cycles).
  uint32_t IssueHold(const WarpState& w, const simt::InstrRecord& rec,
                     bool store) const;
  // When the copy of a load in an unrolled loop that `rec` is would have
  // issued in NVIDIA's code (simt::Program::ahead_loads): with the group of
  // trips' first copy; now for any other instruction.
  uint64_t AheadAt(WarpState& w, const simt::InstrRecord& rec);
  // An instruction event for the trace (--trace-detail instructions).
  // `ready`, `waited`: what it waited for before it issued.
  // Inline: without a trace or an observer (the common case) it does
  // nothing, and is called for every instruction.
  void LogInstruction(const WarpState& w, const simt::InstrRecord& rec,
                      uint32_t latency, uint64_t ready, StallReason waited) {
    if (step_observer == nullptr && trace == nullptr) return;
    LogInstructionTo(w, rec, latency, ready, waited);
  }
  void LogInstructionTo(const WarpState& w, const simt::InstrRecord& rec,
                        uint32_t latency, uint64_t ready, StallReason waited);
  // The Trace::shaders entry of `w`'s program, listed on first use.
  uint32_t ShaderOf(const WarpState& w);
  // Calls the observer (its cycle has come, or a run ended) with the warp
  // instructions issued since the model was made; an error when it asks
  // to stop.
  Status Notify(uint64_t issued) {
    if (observer == nullptr || trace == nullptr) return {};
    notify_at = observer->OnProgress(*trace, now, issued);
    if (observer->StopRequested()) {
      return LimitExceeded(
          "the run was stopped by its observer at cycle " + std::to_string(now),
          issued, 0);
    }
    return {};
  }
  // Issues `w`'s next instruction at `now`.
  // After `rec`, the conditional branch of a selection the model
  // predicates: the side no lane takes is still to issue (w.ghost).
  void AfterPredicatedBranch(WarpState& w, const simt::InstrRecord& rec);
  // Issues one instruction of w.ghost.
  void IssueGhost(WarpState& w, SubPartition& sp, RunTiming& run);
  // Takes one issue slot of w's on `pipe` (no instruction).
  void EmptySlot(WarpState& w, SubPartition& sp, RunTiming& run,
                 simt::Pipe pipe, const PipeTiming& timing);
  // Issues one of w.sync_slots.
  void IssueSync(WarpState& w, SubPartition& sp, RunTiming& run);
  // Issues one of w.entry_slots.
  void IssueEntry(WarpState& w, SubPartition& sp, RunTiming& run);
  // Issues one of w.move_slots.
  void IssueMove(WarpState& w, SubPartition& sp, RunTiming& run);
  Status Issue(WarpState& w, SubPartition& sp, Sm& sm, RunTiming& run);
  void RetireWarp(WarpState& w);
  void Sample(bool force);
  Status Drain(pipeline::WarpSource& source,
               const pipeline::DrainLimits& limits_in);
};

// (Inline: asked at every issue.)
inline const PipeTiming& TimingModel::Impl::Pipe(simt::Pipe p) const {
  return *pipe_timing[static_cast<size_t>(p)];
}

// The figures of one instruction: its pipe's, except integer multiply,
// sine / cosine and the conversions, which have their own (on the pipe they
// issue to).
inline const PipeTiming& TimingModel::Impl::TimingOf(
    const simt::InstrRecord& rec) const {
  switch (rec.op) {
    case spv::Op::OpIMul:
    case spv::Op::OpUMulExtended:
    case spv::Op::OpSMulExtended:
      return config.imul;
    case spv::Op::OpExtInst:
      if (rec.ext == GLSLstd450Sin || rec.ext == GLSLstd450Cos) {
        return config.sfu_trig;
      }
      break;
    case spv::Op::OpAccessChain:
    case spv::Op::OpInBoundsAccessChain:
    case spv::Op::OpPtrAccessChain:
    case spv::Op::OpInBoundsPtrAccessChain:
      if (config.buffer_address.latency > 0 &&
          simt::IsBufferAddress(rec.op, rec.ext)) {
        return config.buffer_address;
      }
      break;
    default:
      break;
  }
  // (Asked last: it is a call, and only the SFU pipe has conversions.)
  if (rec.pipe == simt::Pipe::kSfu && simt::IsConversion(rec.op, rec.ext)) {
    return config.cvt;
  }
  return Pipe(rec.pipe);
}

}  // namespace warpsim::sm

#endif  // WARPSIM_SM_TIMING_IMPL_H_
