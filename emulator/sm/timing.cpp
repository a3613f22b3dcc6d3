#include "sm/timing.h"

#include <spirv/unified1/GLSL.std.450.h>

#include <algorithm>
#include <array>
#include <bit>
#include <deque>
#include <limits>
#include <utility>

#include "base/bits.h"
#include "sm/memory_model.h"
#include "spirv/grammar.h"

namespace warpsim::sm {

namespace {

using trace::StallReason;
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr size_t kPipes = static_cast<size_t>(simt::Pipe::kSync) + 1;
// Items produced ahead of those resident (they wait for room in order).
constexpr size_t kMaxPending = 64;
// Cycles between two counter samples of an SM in the trace.
constexpr uint64_t kSampleInterval = 256;

size_t R(StallReason r) { return static_cast<size_t>(r); }

struct ItemState;

// A resident warp: where it lives, its scoreboard, what it waits for.
struct WarpState {
  // What the scheduler reads every cycle, first (one cache line).
  uint64_t next_issue = 0;
  uint64_t deps_ready = 0;  // the next instruction's operands are ready
  uint64_t ready_at = 0;    // this cycle's evaluation: when it can issue
  uint64_t id = 0;          // launch order, run-wide
  simt::Pipe pipe = simt::Pipe::kNone;  // the next instruction's pipe
  StallReason next_issue_reason = StallReason::kWait;
  StallReason deps_reason = StallReason::kWait;
  StallReason state = StallReason::kWait;  // this cycle's
  bool in_pool = true;                     // two-level scheduler's active pool
  bool done = false;
  bool at_barrier = false;  // (the warp's, kept here)
  uint32_t slot = 0;
  // The rest.
  simt::Warp* warp = nullptr;
  ItemState* item = nullptr;
  uint32_t index = 0;  // within its item
  uint32_t sm = 0, sp = 0;
  uint32_t reg_first = 0, reg_count = 0, regs_per_thread = 0;
  // Per register: the cycle its pending write is ready, and what kind of
  // result it waits for.
  std::vector<uint64_t> ready;
  std::vector<StallReason> ready_reason;
  uint64_t issued = 0;
  uint64_t begin = 0;
};

struct ItemState {
  std::unique_ptr<pipeline::WorkItem> item;
  uint32_t sm = 0;
  uint32_t warps_left = 0;
  uint32_t shared_bytes = 0;
  bool block = false;             // counts against max_blocks_per_sm
  std::vector<WarpState*> warps;  // in their sub-partitions' `states`
};

struct SubPartition {
  // Per warp slot: the state of the warp that holds it (kept here, side by
  // side, so that the scheduler's scan over them stays in the cache).
  std::vector<WarpState> states;
  std::vector<WarpState*> slots;  // nullptr: free
  std::vector<WarpState*> list;   // the resident warps, by slot
  // Free ranges of the register file (first, count), by first register.
  std::vector<std::pair<uint32_t, uint32_t>> free;
  uint64_t pipe_free[kPipes] = {};
  WarpState* last = nullptr;  // the warp issued last
  uint32_t rr = 0;            // loose round robin: the slot after the last
  uint32_t resident = 0;
  // The cycle it must look at its warps again (0: now), and how many of
  // them were in each state when it last did.
  uint64_t wake = 0;
  std::array<uint32_t, trace::kStallReasons> counts{};
};

struct Sm {
  std::vector<SubPartition> sp;
  uint32_t warps = 0, blocks = 0, shared = 0, registers = 0;
  SmTiming stats;
  double resident_warp_cycles = 0;
  bool used_in_run = false;
  double run_resident_warp_cycles = 0;
  uint64_t run_issued = 0;
  // Since the last trace sample.
  uint64_t sample_issued = 0;
  trace::StallCounts sample_stalls{};
};

uint32_t RoundUp(uint32_t v, uint32_t unit) {
  return unit == 0 ? v : (v + unit - 1) / unit * unit;
}

// First fit in a sorted free list; returns the first register or ~0u.
uint32_t Allocate(std::vector<std::pair<uint32_t, uint32_t>>& free,
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

void Release(std::vector<std::pair<uint32_t, uint32_t>>& free, uint32_t first,
             uint32_t count) {
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

trace::Stage StageOf(pipeline::WorkKind k) {
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

bool IsAtomic(spv::Op op) {
  switch (op) {
    case spv::Op::OpAtomicLoad:
    case spv::Op::OpAtomicStore:
    case spv::Op::OpAtomicExchange:
    case spv::Op::OpAtomicCompareExchange:
    case spv::Op::OpAtomicIIncrement:
    case spv::Op::OpAtomicIDecrement:
    case spv::Op::OpAtomicIAdd:
    case spv::Op::OpAtomicISub:
    case spv::Op::OpAtomicSMin:
    case spv::Op::OpAtomicUMin:
    case spv::Op::OpAtomicSMax:
    case spv::Op::OpAtomicUMax:
    case spv::Op::OpAtomicAnd:
    case spv::Op::OpAtomicOr:
    case spv::Op::OpAtomicXor:
    case spv::Op::OpAtomicFAddEXT:
      return true;
    default:
      return false;
  }
}

bool IsBitwise(spv::Op op) {
  return op == spv::Op::OpBitwiseAnd || op == spv::Op::OpBitwiseOr ||
         op == spv::Op::OpBitwiseXor || op == spv::Op::OpNot;
}

// Whether NVIDIA's compiler turns instruction `a` followed by `b`, which
// reads `a`'s result, into one SASS instruction: a multiply and an add
// into IMAD or FFMA (FFMA: floating-point contraction, which GLSL allows
// unless the result is `precise`), two bitwise operations into LOP3, and a
// negation into the consumer's operand modifier. The timing model issues
// such a pair as one instruction (TimingConfig::fuse_pairs).
bool Fusible(spv::Op a, spv::Op b) {
  switch (a) {
    case spv::Op::OpIMul:
      return b == spv::Op::OpIAdd || b == spv::Op::OpISub;
    case spv::Op::OpFMul:
      return b == spv::Op::OpFAdd || b == spv::Op::OpFSub;
    case spv::Op::OpFNegate:
      return b == spv::Op::OpFAdd || b == spv::Op::OpFSub ||
             b == spv::Op::OpFMul || b == spv::Op::OpExtInst;
    case spv::Op::OpSNegate:
      return b == spv::Op::OpIAdd || b == spv::Op::OpISub;
    default:
      return IsBitwise(a) && IsBitwise(b);
  }
}

}  // namespace

struct TimingModel::Impl {
  TimingConfig config;
  SmLimits limits;
  uint32_t min_regs;
  trace::Trace* trace;
  MemoryModel memory;
  std::vector<Sm> sms;
  std::vector<uint32_t> active_sms;  // SMs with resident warps
  uint32_t slots_per_sp;
  uint32_t regs_per_sp;
  uint64_t now = 0;
  uint64_t next_warp_id = 0;
  uint32_t next_compute_sm = 0;
  uint64_t next_sample = kSampleInterval;
  uint64_t last_sample = 0;
  std::vector<RunTiming> runs;
  std::string next_name;

  Impl(const TimingConfig& c, const SmLimits& l, uint32_t min_registers,
       trace::Trace* t)
      : config(c),
        limits(l),
        min_regs(min_registers),
        trace(t),
        memory(c.memory, std::max({1u, c.sms, c.graphics_sms})) {
    const uint32_t n = std::max({1u, c.sms, c.graphics_sms});
    const uint32_t parts = std::max(1u, l.sub_partitions);
    slots_per_sp = std::max(1u, l.max_warps_per_sm / parts);
    regs_per_sp = l.registers_per_sm / parts;
    sms.resize(n);
    for (Sm& sm : sms) {
      sm.sp.resize(parts);
      for (SubPartition& sp : sm.sp) {
        sp.states.resize(slots_per_sp);
        sp.slots.assign(slots_per_sp, nullptr);
        sp.free = {{0u, regs_per_sp}};
      }
    }
    if (trace != nullptr) {
      trace->clock_mhz = c.clock_mhz;
      trace->sms = n;
      trace->sub_partitions = parts;
      trace->slots_per_sub_partition = slots_per_sp;
      trace->registers_per_sub_partition = regs_per_sp;
    }
  }

  void UpdateActive() {
    active_sms.clear();
    for (uint32_t s = 0; s < sms.size(); ++s) {
      if (sms[s].warps != 0) active_sms.push_back(s);
    }
  }

  const PipeTiming& Pipe(simt::Pipe p) const {
    switch (p) {
      case simt::Pipe::kFma:
        return config.fma;
      case simt::Pipe::kFp64:
        return config.fp64;
      case simt::Pipe::kSfu:
        return config.sfu;
      case simt::Pipe::kLsu:
        return config.lsu;
      case simt::Pipe::kTex:
        return config.tex;
      case simt::Pipe::kBranch:
        return config.branch;
      case simt::Pipe::kSync:
        return config.sync;
      case simt::Pipe::kNone:
      case simt::Pipe::kAlu:
        break;
    }
    return config.alu;
  }

  // The figures of one instruction: its pipe's, except integer multiply
  // and sine / cosine, which have their own (on the pipe they issue to).
  const PipeTiming& TimingOf(const simt::InstrRecord& rec) const {
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
      default:
        break;
    }
    return Pipe(rec.pipe);
  }

  uint32_t RegsPerThread(const pipeline::WorkItem& item) const {
    if (item.warps.empty()) return min_regs;
    return std::max(min_regs, item.warps[0]->program().num_regs);
  }

  // Places every warp of `item` on SM `s`, or nothing; false when it does
  // not fit.
  bool Place(ItemState& st, uint32_t s) {
    Sm& sm = sms[s];
    const pipeline::WorkItem& item = *st.item;
    const uint32_t nwarps = static_cast<uint32_t>(item.warps.size());
    if (sm.warps + nwarps > limits.max_warps_per_sm) return false;
    if (st.block && sm.blocks + 1 > limits.max_blocks_per_sm) return false;
    if (st.shared_bytes != 0 &&
        sm.shared + st.shared_bytes > limits.shared_memory_per_sm) {
      return false;
    }
    const uint32_t regs = RegsPerThread(item);
    const uint32_t per_warp =
        RoundUp(regs * limits.warp_size, limits.register_allocation_unit);
    // Try the allocation on copies: all or nothing.
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> free;
    std::vector<uint32_t> slots_free;
    for (const SubPartition& sp : sm.sp) {
      free.push_back(sp.free);
      slots_free.push_back(slots_per_sp - sp.resident);
    }
    struct Spot {
      uint32_t sp, first;
    };
    std::vector<Spot> spots;
    for (uint32_t w = 0; w < nwarps; ++w) {
      // The sub-partition with the most free slots that has the registers
      // (ties: the lowest), so that a block's warps spread over all four.
      int best = -1;
      for (uint32_t p = 0; p < sm.sp.size(); ++p) {
        if (slots_free[p] == 0) continue;
        uint32_t largest = 0;
        for (const auto& r : free[p]) largest = std::max(largest, r.second);
        if (largest < per_warp) continue;
        if (best < 0 || slots_free[p] > slots_free[best]) {
          best = static_cast<int>(p);
        }
      }
      if (best < 0) return false;
      const uint32_t first = Allocate(free[best], per_warp);
      --slots_free[best];
      spots.push_back({static_cast<uint32_t>(best), first});
    }
    // Commit.
    st.sm = s;
    st.warps_left = nwarps;
    st.warps.resize(nwarps);
    sm.warps += nwarps;
    if (st.block) sm.blocks += 1;
    sm.shared += st.shared_bytes;
    for (uint32_t w = 0; w < nwarps; ++w) {
      SubPartition& sp = sm.sp[spots[w].sp];
      sp.free = free[spots[w].sp];
      uint32_t slot = 0;
      while (sp.slots[slot] != nullptr) ++slot;
      WarpState& ws = sp.states[slot];
      {
        // A fresh state; the scoreboard's storage is reused.
        std::vector<uint64_t> ready = std::move(ws.ready);
        std::vector<StallReason> reasons = std::move(ws.ready_reason);
        ws = WarpState{};
        ws.ready = std::move(ready);
        ws.ready_reason = std::move(reasons);
      }
      st.warps[w] = &ws;
      ws.warp = item.warps[w].get();
      ws.item = &st;
      ws.index = w;
      ws.sm = s;
      ws.sp = spots[w].sp;
      ws.slot = slot;
      ws.id = next_warp_id++;
      ws.reg_first = spots[w].first;
      ws.reg_count = per_warp;
      ws.regs_per_thread = regs;
      const simt::Program& prog = ws.warp->program();
      ws.ready.assign(prog.num_regs + prog.const_values.size(), 0);
      ws.ready_reason.assign(ws.ready.size(), StallReason::kWait);
      ws.next_issue = now;
      ws.begin = now;
      ws.done = ws.warp->done();
      sp.slots[slot] = &ws;
      sp.list.insert(
          std::lower_bound(sp.list.begin(), sp.list.end(), &ws,
                           [](const WarpState* a, const WarpState* b) {
                             return a->slot < b->slot;
                           }),
          &ws);
      sp.resident += 1;
      sp.wake = 0;
      sm.registers += per_warp;
      sm.stats.peak_registers = std::max(sm.stats.peak_registers, sm.registers);
      // (Two-level: RefillPool() admits it.)
      ws.in_pool = config.scheduler != SchedulerPolicy::kTwoLevel;
      Refresh(ws);
      if (trace != nullptr && trace->detail != trace::Detail::kSummary) {
        trace->registers.push_back(
            {now, s, ws.sp, ws.id, ws.reg_first, ws.reg_count, true});
      }
    }
    sm.used_in_run = true;
    return true;
  }

  // Two-level scheduling: the active pool takes the oldest warps outside
  // it while it has fewer than two_level_active.
  void RefillPool(SubPartition& sp) {
    uint32_t n = 0;
    for (const WarpState* w : sp.slots) {
      if (w != nullptr && !w->done && w->in_pool) ++n;
    }
    while (n < std::max(1u, config.two_level_active)) {
      WarpState* oldest = nullptr;
      for (WarpState* w : sp.slots) {
        if (w != nullptr && !w->done && !w->in_pool &&
            (oldest == nullptr || w->id < oldest->id)) {
          oldest = w;
        }
      }
      if (oldest == nullptr) return;
      oldest->in_pool = true;
      ++n;
    }
  }

  // Tries to make `st` resident: compute workgroups on the next SM in
  // round-robin order that has room, graphics warps on the graphics SM
  // with the fewest resident warps that has room.
  bool TryLaunch(ItemState& st) {
    const bool graphics =
        st.item->kind != pipeline::WorkKind::kComputeWorkgroup;
    if (graphics) {
      const uint32_t n =
          std::max(1u, std::min<uint32_t>(config.graphics_sms,
                                          static_cast<uint32_t>(sms.size())));
      std::vector<uint32_t> order(n);
      for (uint32_t i = 0; i < n; ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return sms[a].warps < sms[b].warps;
      });
      for (uint32_t s : order) {
        if (Place(st, s)) return true;
      }
      return false;
    }
    const uint32_t n = std::max(
        1u, std::min<uint32_t>(config.sms, static_cast<uint32_t>(sms.size())));
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t s = (next_compute_sm + i) % n;
      if (Place(st, s)) {
        next_compute_sm = (s + 1) % n;
        return true;
      }
    }
    return false;
  }

  // Reads the next instruction's operands: when they are ready.
  void Refresh(WarpState& w) {
    w.done = w.warp->done();
    w.at_barrier = w.warp->at_barrier();
    if (w.done) return;
    const simt::InstrPeek p = w.warp->Peek();
    w.pipe = p.pipe;
    w.deps_ready = 0;
    w.deps_reason = StallReason::kWait;
    auto check = [&](uint32_t r) {
      if (r < w.ready.size() && w.ready[r] > w.deps_ready) {
        w.deps_ready = w.ready[r];
        w.deps_reason = w.ready_reason[r];
      }
    };
    for (uint32_t r : p.reads) check(r);
    for (uint32_t r : p.writes) check(r);
  }

  // This cycle's state of a warp and the cycle it can issue at.
  void Evaluate(WarpState& w, const SubPartition& sp) {
    if (w.at_barrier) {
      w.state = StallReason::kBarrier;
      w.ready_at = kNever;
      return;
    }
    uint64_t t = w.next_issue;
    StallReason why = w.next_issue_reason;
    if (w.deps_ready > t) {
      t = w.deps_ready;
      why = w.deps_reason;
    }
    const uint64_t pipe_free = sp.pipe_free[static_cast<size_t>(w.pipe)];
    if (pipe_free > t) {
      t = pipe_free;
      why = w.pipe == simt::Pipe::kLsu   ? StallReason::kLgThrottle
            : w.pipe == simt::Pipe::kTex ? StallReason::kTexThrottle
                                         : StallReason::kMathPipeThrottle;
    }
    if (!w.in_pool && t <= now) {
      // Two-level: ready, but outside the active pool.
      w.state = StallReason::kNotSelected;
      w.ready_at = now + 1;
      return;
    }
    w.ready_at = t;
    w.state = t <= now ? StallReason::kNotSelected : why;
  }

  // Evaluates every warp of `sp` (their states, counted in sp.counts) and
  // returns the one the scheduler issues, or nullptr; `earliest`: the
  // first cycle another warp could issue.
  WarpState* EvaluateAndPick(SubPartition& sp, uint64_t* earliest) {
    sp.counts.fill(0);
    WarpState* oldest = nullptr;    // the oldest eligible
    WarpState* after_rr = nullptr;  // the first eligible at slot >= rr
    WarpState* first = nullptr;     // the first eligible
    bool last_eligible = false;
    uint64_t soonest = kNever;
    for (WarpState* w : sp.list) {
      if (w->done) continue;
      Evaluate(*w, sp);
      sp.counts[R(w->state)] += 1;
      if (w->ready_at > now || !w->in_pool) {
        soonest = std::min(soonest, w->ready_at);
        continue;
      }
      if (oldest == nullptr || w->id < oldest->id) oldest = w;
      if (first == nullptr) first = w;
      if (after_rr == nullptr && w->slot >= sp.rr) after_rr = w;
      if (w == sp.last) last_eligible = true;
    }
    WarpState* pick = nullptr;
    switch (config.scheduler) {
      case SchedulerPolicy::kGto:
        pick = last_eligible ? sp.last : oldest;
        break;
      case SchedulerPolicy::kOldest:
        pick = oldest;
        break;
      case SchedulerPolicy::kLrr:
      case SchedulerPolicy::kTwoLevel:
        pick = after_rr != nullptr ? after_rr : first;
        if (pick != nullptr) {
          sp.rr = pick->slot + 1 < slots_per_sp ? pick->slot + 1 : 0;
        }
        break;
    }
    if (pick != nullptr) {
      sp.counts[R(pick->state)] -= 1;
      sp.counts[R(StallReason::kSelected)] += 1;
      pick->state = StallReason::kSelected;
      // The other eligible warps could issue next cycle.
      if (oldest != pick || first != pick) soonest = std::min(soonest, now + 1);
    }
    *earliest = soonest;
    return pick;
  }

  // The cycles until a memory instruction's result is ready.
  uint32_t MemoryLatency(const WarpState& w, const simt::InstrRecord& rec,
                         StallReason* reason, bool store) {
    *reason = StallReason::kLongScoreboard;
    if (rec.addresses == nullptr || rec.active == 0) {
      return config.memory.l1_latency;
    }
    const uint32_t first = static_cast<uint32_t>(std::countr_zero(rec.active));
    const uint32_t region = static_cast<uint32_t>(rec.addresses[first] >> 32);
    switch (simt::SpaceOfRegion(region)) {
      case simt::MemorySpace::kWorkgroup:
        *reason = StallReason::kShortScoreboard;
        return config.memory.shared_latency;
      case simt::MemorySpace::kPrivate:
        return config.memory.l1_latency;
      case simt::MemorySpace::kGlobal:
        break;
    }
    // Host addresses: one buffer bound twice is one memory.
    const simt::ExecContext& c = w.item->item->context;
    uint64_t host[32];
    const uint32_t width = std::min(32u, w.warp->width());
    for (uint32_t m = rec.active & simt::LowLanes(width); m != 0; m &= m - 1) {
      const uint32_t l = static_cast<uint32_t>(std::countr_zero(m));
      const uint32_t r = static_cast<uint32_t>(rec.addresses[l] >> 32);
      const uint64_t off = static_cast<uint32_t>(rec.addresses[l]);
      uint64_t base = uint64_t{r} << 40;  // unknown region: its own space
      if (r < c.regions.size() && c.regions[r].data != nullptr) {
        base = reinterpret_cast<uintptr_t>(c.regions[r].data);
      } else if (r < c.images.size() && c.images[r].data != nullptr) {
        base = reinterpret_cast<uintptr_t>(c.images[r].data);
      }
      host[l] = base + off;
    }
    uint32_t lat =
        memory.Access(w.sm, now, host, rec.active & simt::LowLanes(width),
                      rec.access_bytes, store);
    if (IsAtomic(rec.op)) lat = std::max(lat, config.memory.l2_latency);
    return lat;
  }

  // An instruction event for the trace (--trace-detail instructions).
  void LogInstruction(const WarpState& w, const simt::InstrRecord& rec,
                      uint32_t latency) {
    if (trace == nullptr || trace->detail != trace::Detail::kInstructions) {
      return;
    }
    if (trace->instructions.size() < trace->max_instruction_events) {
      trace->instructions.push_back(
          {now, w.sm, w.sp, w.slot, w.id, rec.pc,
           spirv::OpcodeName(static_cast<uint32_t>(rec.op)), rec.active,
           latency});
    } else {
      trace->instructions_truncated = true;
    }
  }

  // Issues `w`'s next instruction at `now`.
  Status Issue(WarpState& w, SubPartition& sp, Sm& sm, RunTiming& run,
               uint64_t& lanes) {
    const simt::InstrRecord rec = w.warp->Step();
    run.warp_instructions += 1;
    lanes += PopCount32(rec.active);
    w.issued += 1;
    sm.stats.issued += 1;
    sm.run_issued += 1;
    sm.sample_issued += 1;
    if (sp.last != &w) run.warp_switches += 1;
    sp.last = &w;
    const PipeTiming& pipe = TimingOf(rec);
    sp.pipe_free[static_cast<size_t>(rec.pipe)] =
        now + std::max(1u, pipe.interval);
    uint32_t latency = pipe.latency;
    StallReason reason = rec.pipe == simt::Pipe::kSfu
                             ? StallReason::kShortScoreboard
                             : StallReason::kWait;
    bool long_wait = false;
    if (rec.pipe == simt::Pipe::kLsu || rec.pipe == simt::Pipe::kTex ||
        rec.addresses != nullptr) {
      const bool store = rec.writes.empty() && !IsAtomic(rec.op);
      latency = MemoryLatency(w, rec, &reason, store);
      long_wait = reason == StallReason::kLongScoreboard && !rec.writes.empty();
    }
    latency = std::max(1u, latency);
    for (uint32_t r : rec.writes) {
      if (r < w.ready.size()) {
        w.ready[r] = now + latency;
        w.ready_reason[r] = reason;
      }
    }
    bool logged = false;  // in the trace
    if (config.fuse_pairs && rec.addresses == nullptr &&
        rec.writes.size() == 1 && rec.blocking == simt::Blocking::kNone) {
      // The compiler's fused pair: the next instruction, which reads this
      // one's result, runs as part of this issue (functionally it is its
      // own instruction; its result is ready when the longer of the two
      // latencies has passed).
      const simt::InstrPeek next = w.warp->Peek();
      if (next.active == rec.active && Fusible(rec.op, next.op) &&
          std::find(next.reads.begin(), next.reads.end(), rec.writes[0]) !=
              next.reads.end() &&
          next.writes.size() == 1) {
        LogInstruction(w, rec, latency);
        const simt::InstrRecord fused = w.warp->Step();
        run.warp_instructions += 1;
        run.fused_instructions += 1;
        lanes += PopCount32(fused.active);
        const PipeTiming& second = TimingOf(fused);
        const uint32_t both = std::max(latency, second.latency);
        uint64_t& busy = sp.pipe_free[static_cast<size_t>(rec.pipe)];
        busy = std::max(busy, now + std::max(1u, second.interval));
        for (uint32_t r : fused.writes) {
          if (r < w.ready.size()) {
            w.ready[r] = now + both;
            w.ready_reason[r] = reason;
          }
        }
        LogInstruction(w, fused, both);
        logged = true;
        if (fused.blocking == simt::Blocking::kError) {
          Diagnostic d = *w.warp->error();
          const std::string where = w.item->item->Where(w.index);
          if (!where.empty()) d.message = where + ": " + d.message;
          return d;
        }
      }
    }
    w.next_issue = now + 1;
    w.next_issue_reason = StallReason::kWait;
    if (rec.pipe == simt::Pipe::kBranch) {
      w.next_issue = now + std::max(1u, config.branch.latency);
      w.next_issue_reason = StallReason::kWait;
    }
    if (long_wait && config.context_switch == ContextSwitch::kSwap) {
      // A CPU-style switch: the registers go out now and come back after
      // the data; both occupy the sub-partition's load/store pipe.
      const uint64_t cost = static_cast<uint64_t>(
          config.swap_cycles_per_register * w.regs_per_thread);
      uint64_t& lsu = sp.pipe_free[static_cast<size_t>(simt::Pipe::kLsu)];
      lsu = std::max(lsu, now) + 2 * cost;
      w.next_issue = now + latency + cost;
      w.next_issue_reason = StallReason::kNoInstruction;
    }
    if (long_wait && config.scheduler == SchedulerPolicy::kTwoLevel) {
      w.in_pool = false;
    }
    if (!logged) LogInstruction(w, rec, latency);
    if (rec.blocking == simt::Blocking::kError) {
      Diagnostic d = *w.warp->error();
      const std::string where = w.item->item->Where(w.index);
      if (!where.empty()) d.message = where + ": " + d.message;
      return d;
    }
    Refresh(w);
    return {};
  }

  void RetireWarp(WarpState& w, RunTiming& run) {
    Sm& sm = sms[w.sm];
    SubPartition& sp = sm.sp[w.sp];
    sp.slots[w.slot] = nullptr;
    sp.list.erase(std::find(sp.list.begin(), sp.list.end(), &w));
    sp.resident -= 1;
    sp.wake = 0;
    if (sp.last == &w) sp.last = nullptr;
    Release(sp.free, w.reg_first, w.reg_count);
    sm.registers -= w.reg_count;
    sm.warps -= 1;
    run.warps += 1;
    if (trace != nullptr && trace->detail != trace::Detail::kSummary) {
      trace->registers.push_back(
          {now + 1, w.sm, w.sp, w.id, w.reg_first, w.reg_count, false});
      trace::WarpSpan span;
      span.sm = w.sm;
      span.sub_partition = w.sp;
      span.slot = w.slot;
      span.warp = w.id;
      span.begin = w.begin;
      span.end = now + 1;
      span.stage = StageOf(w.item->item->kind);
      span.run = static_cast<uint32_t>(trace->runs.size());
      span.label = w.item->item->Where(w.index);
      if (span.label.empty()) {
        span.label = std::string(pipeline::WorkKindName(w.item->item->kind)) +
                     " item " + std::to_string(w.item->item->id);
      }
      span.registers = w.regs_per_thread;
      span.instructions = w.issued;
      trace->warps.push_back(std::move(span));
    }
  }

  void Sample(bool force) {
    if (trace == nullptr) return;
    if (!force && now < next_sample) return;
    const uint64_t interval = now - last_sample;
    if (interval == 0) return;
    for (uint32_t s = 0; s < sms.size(); ++s) {
      Sm& sm = sms[s];
      if (sm.sample_issued == 0 && sm.warps == 0) {
        bool any = false;
        for (uint64_t v : sm.sample_stalls) any |= v != 0;
        if (!any) continue;
      }
      trace::CounterSample c;
      c.cycle = now;
      c.sm = s;
      c.resident_warps = sm.warps;
      c.registers_allocated = sm.registers;
      c.issued = sm.sample_issued;
      c.interval = interval;
      c.stalls = sm.sample_stalls;
      trace->counters.push_back(c);
      sm.sample_issued = 0;
      sm.sample_stalls = {};
    }
    last_sample = now;
    next_sample = (now / kSampleInterval + 1) * kSampleInterval;
  }

  Status Drain(pipeline::WarpSource& source,
               const pipeline::DrainLimits& limits_in) {
    RunTiming run;
    run.name = next_name.empty() ? limits_in.what : next_name;
    next_name.clear();
    run.begin = now;
    for (Sm& sm : sms) {
      sm.used_in_run = false;
      sm.run_resident_warp_cycles = 0;
      sm.run_issued = 0;
    }
    if (trace != nullptr) trace->runs.push_back({run.name, now, now});
    pipeline::RetireInOrder merge(&source);
    std::deque<std::unique_ptr<ItemState>> pending;
    std::vector<std::unique_ptr<ItemState>> live;
    std::vector<ItemState*> dirty;  // items a warp of finished or waits in
    bool first_item = true;
    uint64_t lanes = 0;
    auto finish_run = [&]() {
      run.end = now;
      run.cycles = run.end - run.begin;
      double resident = 0;
      uint64_t issued = 0;
      for (Sm& sm : sms) {
        if (!sm.used_in_run) continue;
        run.sms_used += 1;
        resident += sm.run_resident_warp_cycles;
        issued += sm.run_issued;
      }
      if (run.cycles > 0 && run.sms_used > 0) {
        run.ipc = static_cast<double>(issued) /
                  (static_cast<double>(run.cycles) * run.sms_used);
        run.achieved_occupancy =
            resident / (static_cast<double>(run.cycles) * run.sms_used *
                        std::max(1u, limits.max_warps_per_sm));
      }
      if (trace != nullptr) trace->runs.back().end = now;
      Sample(true);
      runs.push_back(run);
    };
    for (;;) {
      // Produce, in API order, while few items wait for room.
      while (pending.size() < kMaxPending) {
        auto next = source.Next();
        if (!next.ok()) return next.error();
        if (*next == nullptr) break;
        auto st = std::make_unique<ItemState>();
        st->item = std::move(*next);
        pipeline::WorkItem& item = *st->item;
        st->block = item.kind == pipeline::WorkKind::kComputeWorkgroup;
        if (st->block) {
          st->shared_bytes =
              RoundUp(static_cast<uint32_t>(item.workgroup_memory.size()) +
                          limits.reserved_shared_memory_per_block,
                      limits.shared_memory_allocation_unit);
        }
        if (first_item) {
          first_item = false;
          run.graphics = !st->block;
          run.registers_per_thread = RegsPerThread(item);
          Occupancy occ;
          if (st->block) {
            Launch l;
            l.registers_per_thread = run.registers_per_thread;
            l.threads_per_block =
                static_cast<uint32_t>(item.warps.size()) * limits.warp_size;
            l.static_shared_memory =
                static_cast<uint32_t>(item.workgroup_memory.size());
            occ = ComputeOccupancy(limits, l);
          } else {
            occ = GraphicsWarpsPerSm(limits, run.registers_per_thread);
          }
          run.theoretical_occupancy = occ.occupancy;
          switch (occ.limiter) {
            case Limiter::kRegisters:
              run.limiter = "registers";
              break;
            case Limiter::kSharedMemory:
              run.limiter = "shared_memory";
              break;
            case Limiter::kWarps:
              run.limiter = "warp_slots";
              break;
            case Limiter::kBlocks:
              run.limiter = "block_slots";
              break;
          }
        }
        pending.push_back(std::move(st));
      }
      // Make items resident, in order, while they fit.
      const size_t live_before = live.size();
      while (!pending.empty() && TryLaunch(*pending.front())) {
        ItemState& st = *pending.front();
        st.item->context.record_addresses = true;
        if (Status s = st.item->Prepare(); !s.ok()) return s;
        for (auto& w : st.item->warps) w->set_record_addresses(true);
        for (WarpState* ws : st.warps) Refresh(*ws);
        live.push_back(std::move(pending.front()));
        pending.pop_front();
      }
      if (live.size() != live_before) UpdateActive();
      if (live.empty()) {
        if (!pending.empty()) {
          return Unsupported(
              "a " +
              std::string(pipeline::WorkKindName(pending.front()->item->kind)) +
              " item needs more warp slots, registers or shared memory than "
              "an SM of the GPU configuration has");
        }
        if (source.done()) break;
        return InternalError(
            "a work source produced nothing although every earlier item "
            "retired");
      }
      // One cycle. A sub-partition re-evaluates its warps only when
      // something may have changed (`wake`): it issued, a warp arrived or
      // left, a barrier opened, or the earliest of its warps' ready cycles
      // came; otherwise its warps keep their states (and counts).
      bool issued_any = false;
      uint64_t next_event = kNever;
      for (uint32_t s : active_sms) {
        Sm& sm = sms[s];
        for (SubPartition& sp : sm.sp) {
          if (sp.resident == 0) continue;
          if (sp.wake > now) {
            next_event = std::min(next_event, sp.wake);
            continue;
          }
          if (config.scheduler == SchedulerPolicy::kTwoLevel) RefillPool(sp);
          uint64_t earliest = kNever;
          WarpState* pick = EvaluateAndPick(sp, &earliest);
          if (pick != nullptr) {
            if (Status st = Issue(*pick, sp, sm, run, lanes); !st.ok()) {
              return st;
            }
            issued_any = true;
            if (pick->done || pick->warp->at_barrier()) {
              dirty.push_back(pick->item);
            }
          }
          // After an issue the next cycle must look again (the issuing
          // warp, the pipe's interval); else the earliest ready warp.
          sp.wake = pick != nullptr ? now + 1 : earliest;
          next_event = std::min(next_event, sp.wake);
        }
      }
      if (limits_in.max_warp_instructions != 0 &&
          run.warp_instructions > limits_in.max_warp_instructions) {
        return LimitExceeded(
            "the " + limits_in.what + " executed more than " +
                std::to_string(limits_in.max_warp_instructions) +
                " warp instructions without finishing (stopped after " +
                std::to_string(run.warp_instructions) +
                "; a shader may not terminate)",
            run.warp_instructions, lanes);
      }
      // Account this cycle, or the quiet cycles up to the next event (no
      // state changes in between), with the states just counted.
      uint64_t dt = 1;
      if (!issued_any && dirty.empty()) {
        if (next_event == kNever) {
          return InternalError(
              "the timing model has resident warps of which none can ever "
              "issue");
        }
        dt = std::max<uint64_t>(1, next_event - now);
      }
      for (uint32_t s : active_sms) {
        Sm& sm = sms[s];
        for (SubPartition& sp : sm.sp) {
          if (sp.resident == 0) {
            sm.stats.stall_cycles[R(StallReason::kIdle)] += dt;
            run.stall_cycles[R(StallReason::kIdle)] += dt;
            sm.sample_stalls[R(StallReason::kIdle)] += dt;
            continue;
          }
          for (size_t r = 0; r < trace::kStallReasons; ++r) {
            if (sp.counts[r] == 0) continue;
            const uint64_t v = sp.counts[r] * dt;
            sm.stats.stall_cycles[r] += v;
            run.stall_cycles[r] += v;
            sm.sample_stalls[r] += v;
          }
          // The issued warp is not selected again in skipped cycles.
          if (sp.counts[R(StallReason::kSelected)] != 0) {
            sp.counts[R(StallReason::kSelected)] = 0;
            sp.wake = 0;
          }
        }
        sm.stats.busy_cycles += dt;
        sm.resident_warp_cycles += static_cast<double>(sm.warps) * dt;
        sm.run_resident_warp_cycles += static_cast<double>(sm.warps) * dt;
      }
      // Retire finished warps and items (in API order through `merge`);
      // open barriers every unfinished warp of an item waits at.
      bool sms_changed = false, item_done = false;
      for (ItemState* st : dirty) {
        if (st->warps_left == 0) continue;  // (listed twice)
        bool all_waiting = true;
        for (WarpState*& w : st->warps) {
          if (w == nullptr) continue;
          if (w->done) {
            RetireWarp(*w, run);
            w->warp = nullptr;
            w = nullptr;
            st->warps_left -= 1;
            continue;
          }
          if (!w->at_barrier) all_waiting = false;
        }
        if (st->warps_left != 0 && all_waiting) {
          for (WarpState* w : st->warps) {
            if (w == nullptr) continue;
            w->warp->ReleaseBarrier();
            w->next_issue = std::max(w->next_issue, now + dt);
            Refresh(*w);
            sms[w->sm].sp[w->sp].wake = 0;
          }
        }
        if (st->warps_left == 0) {
          Sm& sm = sms[st->sm];
          if (st->block) sm.blocks -= 1;
          sm.shared -= st->shared_bytes;
          sms_changed |= sm.warps == 0;
          item_done = true;
        }
      }
      dirty.clear();
      // Items whose warps all retired: Finish() and retire in API order.
      for (size_t i = 0; item_done && i < live.size();) {
        if (live[i]->warps_left != 0) {
          ++i;
          continue;
        }
        if (Status st = live[i]->item->Finish(); !st.ok()) return st;
        if (Status st = merge.Finish(std::move(live[i]->item)); !st.ok()) {
          return st;
        }
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      }
      if (sms_changed) UpdateActive();
      now += dt;
      Sample(false);
    }
    finish_run();
    return {};
  }
};

TimingModel::TimingModel(const TimingConfig& config, const SmLimits& limits,
                         uint32_t min_registers_per_thread, trace::Trace* trace)
    : impl_(std::make_unique<Impl>(config, limits, min_registers_per_thread,
                                   trace)) {}

TimingModel::~TimingModel() = default;

void TimingModel::BeginRun(std::string name) {
  impl_->next_name = std::move(name);
}

Status TimingModel::Drain(pipeline::WarpSource& source,
                          const pipeline::DrainLimits& limits) {
  return impl_->Drain(source, limits);
}

const std::vector<RunTiming>& TimingModel::runs() const { return impl_->runs; }

uint64_t TimingModel::cycles() const { return impl_->now; }

std::vector<SmTiming> TimingModel::sms() const {
  std::vector<SmTiming> out;
  for (const Sm& sm : impl_->sms) {
    SmTiming t = sm.stats;
    if (t.busy_cycles > 0) {
      t.ipc =
          static_cast<double>(t.issued) / static_cast<double>(t.busy_cycles);
      t.mean_resident_warps =
          sm.resident_warp_cycles / static_cast<double>(t.busy_cycles);
    }
    out.push_back(t);
  }
  return out;
}

const TimingConfig& TimingModel::config() const { return impl_->config; }

}  // namespace warpsim::sm
