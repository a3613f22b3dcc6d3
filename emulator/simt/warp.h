// A Warp executes a Program for up to `width` lanes in lockstep, one warp
// instruction per Step(), the way an NVIDIA SM sub-partition issues it.
//
// Registers are stored structure-of-arrays: register r of lane l is
// regs_[r * width + l], so a warp instruction is a loop over lanes that the
// compiler vectorises, with the active mask selecting which lanes write.
//
// Reconvergence (the algorithm, in prose)
// ---------------------------------------
// Every lane that is still alive has a position: the index of the block it
// will execute next. The active lanes are those whose position is the
// *smallest*; they run that block together, and its terminator gives each of
// them a new position. Then the warp again picks the smallest position.
//
// Blocks are numbered in structured order (program.h): inside a selection or
// loop construct every block comes after the header and before the merge
// block; a loop's continue target comes after the loop body. Lanes only move
// to a smaller position along a loop back edge (to the loop header). Hence:
//   - lanes that leave an if/else early (or take the shorter side) wait at
//     the merge block, whose position is larger than any block inside the
//     construct, until every other lane of the construct has arrived;
//   - in a loop, lanes that `break` wait at the merge block while the others
//     iterate; lanes that `continue` wait at the continue target until the
//     rest of the body has run, so lanes from different iterations never run
//     together (the tangle rule of SPV_KHR_maximal_reconvergence);
//   - `return`, OpTerminateInvocation and OpKill (terminate policy) retire
//     lanes for good; OpKill under the demote policy, like
//     OpDemoteToHelperInvocation, turns them into helpers that keep running
//     (exec_control_flow.cpp).
// This is the "thread frontier" scheme applied to SPIR-V's structured CFG;
// it needs no explicit reconvergence stack and handles break, continue,
// switch fall-through and early return uniformly.
//
// Bookkeeping: instead of a position per lane, the warp keeps per block the
// mask of lanes waiting there, and a bitset of the blocks that have waiting
// lanes. A terminator ORs its lanes into the target's mask; picking the next
// group is a find-first-set over the bitset (no scan over lanes), and a
// uniform branch costs one OR and one bit scan.
#ifndef WARPSIM_SIMT_WARP_H_
#define WARPSIM_SIMT_WARP_H_

#include <bit>
#include <cassert>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/bits.h"
#include "base/diagnostic.h"
#include "simt/image.h"
#include "simt/program.h"

namespace warpsim::simt {

// The active mask is a 32-bit word, which bounds the configurable warp width.
inline constexpr uint32_t kMaxWarpWidth = 32;

// The mask of lanes 0..n-1 (n <= kMaxWarpWidth).
inline constexpr uint32_t LowLanes(uint32_t n) {
  return n >= kMaxWarpWidth ? ~0u : ((1u << n) - 1);
}

// A block of memory a pointer register can name (program.h, regions).
struct MemRegion {
  uint8_t* data = nullptr;
  uint64_t size = 0;
  bool writable = true;
};

// What the warps of one dispatch share: memory regions and counters.
struct ExecContext {
  std::vector<MemRegion> regions;  // [kRegionWorkgroup] is set per workgroup
  // Image descriptors, indexed like regions (for image resources).
  std::vector<ImageDesc> images;
  // Counters summed over all warps of the dispatch.
  uint64_t warp_instructions = 0;
  uint64_t lane_instructions = 0;         // active lanes, helper lanes included
  uint64_t helper_lane_instructions = 0;  // active helper lanes
  // When true, memory instructions record per-lane addresses in the record.
  bool record_addresses = false;
};

enum class Blocking : uint8_t {
  kNone,     // the warp can issue again
  kBarrier,  // waiting at OpControlBarrier for the rest of the workgroup
  kDone,     // every lane has finished
  kError,    // the warp stopped on a runtime error (Warp::error())
};

// The kind of memory a region is (program.h numbers the regions).
enum class MemorySpace : uint8_t {
  kPrivate,    // lane-private (Function, Private, Input, Output): "local"
  kWorkgroup,  // the workgroup's shared memory
  kGlobal,     // a bound buffer, texel buffer or image
};
inline constexpr MemorySpace SpaceOfRegion(uint32_t region) {
  return region == kRegionPrivate     ? MemorySpace::kPrivate
         : region == kRegionWorkgroup ? MemorySpace::kWorkgroup
                                      : MemorySpace::kGlobal;
}

// What one Step() did: the input of timing models and traces (see
// emulator/simt/README.md, "InstrRecord").
struct InstrRecord {
  uint32_t pc = 0;  // instruction index in Program::code
  spv::Op op = spv::Op::OpNop;
  uint16_t ext = 0;
  Pipe pipe = Pipe::kNone;
  LatencyClass latency = LatencyClass::kFixed;
  uint32_t active = 0;  // lanes that executed
  uint32_t helper = 0;  // helper lanes of the warp when it issued
  // Branches: the active lanes that took the first target (conditional:
  // the true side; unconditional: all; switch: lanes that matched a case
  // rather than the default). 0 for other instructions.
  uint32_t taken = 0;
  uint32_t dst = kNoReg;
  uint32_t src[4] = {kNoReg, kNoReg, kNoReg, kNoReg};
  // Every register read and written (Program::operands), side tables and
  // phi copies included.
  std::span<const uint32_t> reads;
  std::span<const uint32_t> writes;
  Blocking blocking = Blocking::kNone;
  // Memory, atomic and image instructions with
  // ExecContext::record_addresses: per-lane addresses as (region << 32 |
  // byte offset), valid for lanes in `active`, each access `access_bytes`
  // bytes long; SpaceOfRegion(address >> 32) is the lane's memory space.
  const uint64_t* addresses = nullptr;
  uint32_t access_bytes = 0;
  // Image sampling: a linear filter blended some lane's texels.
  bool filtered = false;
};

// What the next Step() will issue, seen before issuing it (Warp::Peek).
struct InstrPeek {
  uint32_t pc = 0;
  spv::Op op = spv::Op::OpNop;
  Pipe pipe = Pipe::kNone;
  LatencyClass latency = LatencyClass::kFixed;
  uint32_t active = 0;  // the lanes that would run it; 0: the warp is done
  std::span<const uint32_t> reads;
  std::span<const uint32_t> writes;
};

class alignas(64) Warp {
 public:
  // `launch_mask`: the lanes that exist (a partial last warp of a workgroup
  // has fewer). Registers start at zero; constants are loaded.
  Warp(const Program& program, uint32_t width, uint32_t launch_mask,
       ExecContext* context);

  // Reinitializes the warp for a new launch of the same program (registers
  // zero, constants loaded, private memory zero, no lane retired) without
  // allocating: a warp slot can be reused for the next batch of lanes.
  void Reset(uint32_t launch_mask);
  // The same for a launch that counts into another context (a pooled warp
  // handed to the next work item).
  void Reset(uint32_t launch_mask, ExecContext* context);

  // Executes one warp instruction for the active lanes. Defined inline so
  // that a caller that ignores parts of the record does not pay for them.
  InstrRecord Step();
  // Executes up to `max_steps` instructions, exactly as that many Step()
  // calls would (the same counters), without making records: for an owner
  // that reads none (the functional drivers). Stops after an instruction
  // that finishes the warp, stops it on an error or makes it wait at a
  // barrier. Returns the number of instructions executed.
  uint32_t Run(uint32_t max_steps);
  // Run() that also reports each memory access (with
  // ExecContext::record_addresses): on_access(op, active lanes, per-lane
  // addresses as in InstrRecord::addresses, access bytes) after every
  // instruction that accessed memory. For drivers that log accesses without
  // paying for a full InstrRecord per instruction.
  template <typename OnAccess>
  uint32_t RunLogging(uint32_t max_steps, OnAccess on_access);
  // The next instruction's operands without issuing it (a scoreboard checks
  // its reads and writes before letting the warp issue).
  InstrPeek Peek() const;

  bool done() const { return alive_ == 0; }
  // The next instruction the active lanes run (Peek()'s pc, without the
  // rest of Peek()).
  uint32_t next_pc() const { return pc_; }
  // The runtime error that stopped the warp (a lane reached OpUnreachable),
  // naming the SPIR-V instruction and the lanes; nullptr while there is
  // none.
  const Diagnostic* error() const { return error_ ? &*error_ : nullptr; }
  bool at_barrier() const { return at_barrier_; }
  void ReleaseBarrier() { at_barrier_ = false; }

  // ---- state used by instruction handlers (exec_*.cpp) ----
  uint32_t width() const { return width_; }
  uint32_t active() const { return active_; }
  uint32_t active_count() const { return active_count_; }  // popcount
  // Whether every lane of the warp is active (the common, unmasked case).
  bool all_active() const { return active_ == LowLanes(width_); }
  uint32_t alive() const { return alive_; }
  uint32_t helper() const { return helper_; }
  uint32_t launch_mask() const { return launch_mask_; }
  const Program& program() const { return *program_; }
  ExecContext& context() { return *context_; }
  // Registers 0..num_regs-1 are the warp's own; those after them are the
  // program's constants (never written), which a warp of
  // kConstColumnWidth lanes reads from the program's shared columns
  // (Program::const_columns) and any other from a copy after its own
  // registers. (data() + offset: a program may have no registers.)
  uint32_t* Reg(uint32_t r) {
    return r < num_regs_
               ? regs_.own.data() + static_cast<size_t>(r) * width_
               : regs_.constants + static_cast<size_t>(r - num_regs_) * width_;
  }
  const uint32_t* Reg(uint32_t r) const {
    return const_cast<Warp*>(this)->Reg(r);
  }
  // A register an instruction writes: never a constant, so no choice of
  // base.
  uint32_t* Dst(uint32_t r) {
    assert(r < num_regs_);
    return regs_.own.data() + static_cast<size_t>(r) * width_;
  }
  // Lane-private memory of `lane` (Function, Private, Input, Output);
  // data() + offset: a program may have none.
  uint8_t* PrivateMemory(uint32_t lane) {
    return private_.data() +
           static_cast<size_t>(lane) * program_->private_bytes;
  }
  // Resolves (region, offset) for `lane` to host memory; nullptr when the
  // access of `bytes` bytes is out of bounds (reads then give 0, writes are
  // dropped, like robust buffer access).
  uint8_t* Resolve(uint32_t lane, uint32_t region, uint64_t offset,
                   uint32_t bytes);
  // Per-lane address buffer for InstrRecord::addresses.
  uint64_t* address_buffer() { return addresses_.data(); }
  // Size in bytes of each lane's access, for the record (handlers that
  // record addresses set it).
  void set_access_bytes(uint32_t bytes) { access_bytes_ = bytes; }
  // Image sampling handlers: a linear filter blended texels (InstrRecord).
  void set_access_filtered() { access_filtered_ = true; }
  // Branch handlers: the lanes that took the first target (InstrRecord).
  void set_taken(uint32_t lanes) { taken_ = lanes; }
  bool record_addresses() const { return record_addresses_; }
  // Records addresses from now on (or stops): for a driver that needs them
  // on warps made before it knew (the SM timing model's memory model).
  void set_record_addresses(bool on) { record_addresses_ = on; }

  // Control-flow primitives for terminator handlers.
  // Sets the next block of every lane in `lanes` to `block`, applying the
  // edge's phi copies for those lanes.
  void SendLanes(uint32_t lanes, uint32_t block,
                 std::pair<uint32_t, uint32_t> copies);
  // Retires lanes for good (return, kill, terminate). `discarded`: the
  // invocation's outputs are thrown away (OpKill, OpTerminateInvocation).
  // A retired lane's registers keep the values they held.
  void RetireLanes(uint32_t lanes, bool discarded = false);
  // Lanes whose invocation was discarded, and lanes demoted to helpers.
  uint32_t discarded() const { return discarded_; }
  uint32_t demoted() const { return demoted_; }
  // Turns lanes into helper invocations (demote).
  void DemoteLanes(uint32_t lanes) {
    helper_ |= lanes;
    demoted_ |= lanes;
  }
  // Stops the warp on a runtime error: `lanes` executed `in`, which they
  // must never reach (`what` says why). Every lane retires.
  void Trap(uint32_t lanes, const Instr& in, const std::string& what);
  // Picks the next group of lanes to run (smallest block position).
  void Reconverge();
  // The lanes waiting at `block` (tests, traces).
  uint32_t waiting_at(uint32_t block) const { return waiting_[block]; }
  // Marks the warp as waiting at a barrier.
  void EnterBarrier() { at_barrier_ = true; }
  void set_helper(uint32_t lanes) { helper_ = lanes; }

 private:
  // Run() and RunLogging(): one loop, the access reports compiled in only
  // for the latter.
  template <bool kLog, typename OnAccess>
  uint32_t RunSteps(uint32_t max_steps, OnAccess& on_access);

  const Program* program_;
  ExecContext* context_;
  uint32_t width_;
  uint32_t num_regs_;  // program_->num_regs
  uint32_t launch_mask_;
  uint32_t alive_ = 0;   // lanes not yet retired
  uint32_t active_ = 0;  // lanes executing the current block
  uint32_t helper_ = 0;  // helper invocations (stores and atomics masked)
  uint32_t discarded_ = 0;
  uint32_t demoted_ = 0;
  uint32_t active_count_ = 0;  // popcount(active_)
  uint32_t taken_ = 0;         // see set_taken()
  uint32_t access_bytes_ = 0;  // see set_access_bytes()
  uint32_t pc_ = 0;            // next instruction for the active lanes
  bool at_barrier_ = false;
  bool record_addresses_ = false;
  bool access_filtered_ = false;  // see set_access_filtered()
  std::optional<Diagnostic> error_;
  void SetActive(uint32_t lanes) {
    active_ = lanes;
    active_count_ = PopCount32(lanes);
  }
  // SendLanes' phi copies of one edge for `lanes` (out of line: most edges
  // have none).
  void CopyEdge(uint32_t lanes, std::pair<uint32_t, uint32_t> copies);
  void LoadConstants();
  void Launch(uint32_t launch_mask);  // the per-launch state of Reset()
  // Copies register column `src` into register `dst` for `lanes` (`all`:
  // every lane of the warp).
  void CopyLanes(uint32_t lanes, bool all, uint32_t dst, const uint32_t* src);
  // The warp's registers (and its copy of the constants, unless it reads
  // the program's), and where Reg() finds the constants: a copy of a warp
  // that reads its own copy reads the copy's.
  struct Registers {
    std::vector<uint32_t> own;
    uint32_t* constants = nullptr;  // the first constant's column
    bool shared = false;            // the constants are the program's
    Registers() = default;
    Registers(const Registers& o) : own(o.own), shared(o.shared) { Rebase(o); }
    Registers& operator=(const Registers& o) {
      own = o.own;
      shared = o.shared;
      Rebase(o);
      return *this;
    }
    Registers(Registers&&) = default;  // (the buffer moves with it)
    Registers& operator=(Registers&&) = default;

   private:
    void Rebase(const Registers& o) {
      constants =
          shared ? o.constants : own.data() + (o.constants - o.own.data());
    }
  };
  Registers regs_;
  std::vector<uint8_t> private_;
  std::vector<uint32_t> waiting_;  // per block: lanes waiting to run it
  std::vector<uint64_t> pending_;  // bit b: waiting_[b] != 0
  std::vector<uint32_t> scratch_;  // cyclic parallel copies
  std::vector<uint64_t> addresses_;
};

// (Inline: a timing model peeks after every issue.)
inline InstrPeek Warp::Peek() const {
  InstrPeek p;
  if (alive_ == 0) return p;
  const Instr& in = program_->code[pc_];
  p.pc = pc_;
  p.op = in.op;
  p.pipe = in.pipe;
  p.latency = in.latency;
  p.active = active_;
  if (pc_ < program_->operands.size()) {
    const InstrOperands& o = program_->operands[pc_];
    const uint32_t* regs = program_->reg_lists.data() + o.first;
    p.reads = {regs, o.reads};
    p.writes = {regs + o.reads, o.writes};
  }
  return p;
}

inline InstrRecord Warp::Step() {
  InstrRecord rec;
  if (alive_ == 0) {
    rec.blocking = Blocking::kDone;
    return rec;
  }
  const Instr& in = program_->code[pc_];
  rec.pc = pc_;
  rec.op = in.op;
  rec.ext = in.ext;
  rec.pipe = in.pipe;
  rec.latency = in.latency;
  rec.active = active_;
  rec.helper = helper_;
  rec.dst = in.dst;
  for (int k = 0; k < 4; ++k) rec.src[k] = in.src[k];
  if (pc_ < program_->operands.size()) {
    const InstrOperands& o = program_->operands[pc_];
    const uint32_t* regs = program_->reg_lists.data() + o.first;
    rec.reads = {regs, o.reads};
    rec.writes = {regs + o.reads, o.writes};
  }
  if (context_ != nullptr) {
    context_->warp_instructions += 1;
    context_->lane_instructions += active_count_;
    // Helper lanes among them (before a demote changes the mask).
    if (helper_ != 0) {
      context_->helper_lane_instructions += PopCount32(active_ & helper_);
    }
  }
  ++pc_;  // terminators overwrite pc_ through Reconverge()
  in.exec(*this, in);
  if (in.pipe == Pipe::kBranch) {
    rec.taken = taken_;
    taken_ = 0;
  }
  if (record_addresses_ && access_bytes_ != 0) {
    rec.addresses = addresses_.data();
    rec.access_bytes = access_bytes_;
    rec.filtered = access_filtered_;
    access_bytes_ = 0;
    access_filtered_ = false;
  }
  if (error_) {
    rec.blocking = Blocking::kError;
  } else if (alive_ == 0) {
    rec.blocking = Blocking::kDone;
  } else if (at_barrier_) {
    rec.blocking = Blocking::kBarrier;
  }
  return rec;
}

// SendLanes and Reconverge run on every branch: inline, so that the
// terminator handlers (exec_control_flow.cpp) do without calls.
inline void Warp::SendLanes(uint32_t lanes, uint32_t block,
                            std::pair<uint32_t, uint32_t> copies) {
  if (lanes == 0) return;
  waiting_[block] |= lanes;
  pending_[block >> 6] |= uint64_t{1} << (block & 63);
  if (copies.second != 0) CopyEdge(lanes, copies);
}

inline void Warp::Reconverge() {
  // The lanes at the smallest block position run next (see above): the
  // first block with waiting lanes.
  uint64_t* pending = pending_.data();
  const size_t words = pending_.size();
  for (size_t w = 0; w < words; ++w) {
    while (pending[w] != 0) {
      const uint32_t block =
          static_cast<uint32_t>(w * 64 + std::countr_zero(pending[w]));
      pending[w] &= pending[w] - 1;
      const uint32_t group = waiting_[block] & alive_;
      waiting_[block] = 0;
      if (group == 0) continue;  // its lanes retired while waiting
      SetActive(group);
      pc_ = program_->blocks[block].first_instr;
      return;
    }
  }
  SetActive(0);
}

inline uint32_t Warp::Run(uint32_t max_steps) {
  auto none = [](spv::Op, uint32_t, const uint64_t*, uint32_t) {};
  return RunSteps<false>(max_steps, none);
}

template <typename OnAccess>
uint32_t Warp::RunLogging(uint32_t max_steps, OnAccess on_access) {
  return RunSteps<true>(max_steps, on_access);
}

template <bool kLog, typename OnAccess>
uint32_t Warp::RunSteps(uint32_t max_steps, OnAccess& on_access) {
  // The warp-instruction counter is kept current (OpReadClockKHR reads it);
  // the lane counters are summed here and added at the end.
  uint64_t no_context = 0;
  uint64_t* warp_instructions =
      context_ != nullptr ? &context_->warp_instructions : &no_context;
  uint64_t lanes = 0, helper_lanes = 0;
  const Instr* code = program_->code.data();
  uint32_t n = 0;
  while (n < max_steps && alive_ != 0) {
    const Instr& in = code[pc_];
    const uint32_t active = active_;
    *warp_instructions += 1;
    lanes += active_count_;
    if (helper_ != 0) helper_lanes += PopCount32(active & helper_);
    ++pc_;
    ++n;
    in.exec(*this, in);
    if constexpr (kLog) {
      if (access_bytes_ != 0) {
        if (record_addresses_) {
          on_access(in.op, active, addresses_.data(), access_bytes_);
        }
        access_bytes_ = 0;
      }
    }
    if (at_barrier_) break;  // (an error or the last lane: alive_ == 0)
  }
  taken_ = 0;
  access_bytes_ = 0;
  access_filtered_ = false;
  if (context_ != nullptr) {
    context_->lane_instructions += lanes;
    context_->helper_lane_instructions += helper_lanes;
  }
  return n;
}

// Watches every instruction a driver issues (the branch profile of
// `warpsim compare`, profile/branch_profile.h). A driver with an observer
// steps its warps one Step() at a time on one thread and hands each record
// over, with the cycle it issued at (timing mode; 0 in functional mode).
// A warp's launch is the record of its entry block's first instruction (no
// branch can reach the entry block), its end the record with
// Blocking::kDone.
class StepObserver {
 public:
  virtual ~StepObserver() = default;
  virtual void OnStep(const Warp& warp, const InstrRecord& record,
                      uint64_t cycle) = 0;
};

}  // namespace warpsim::simt

#endif  // WARPSIM_SIMT_WARP_H_
