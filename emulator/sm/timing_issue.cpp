// The SM timing model, part 2: evaluating a sub-partition's warps, picking
// one by the scheduling policy, and issuing it (timing_impl.h).
#include <bit>

#include "base/bits.h"
#include "sm/timing_impl.h"
#include "spirv/grammar.h"

namespace warpsim::sm {

using namespace internal;  // NOLINT: the model's own internals

void TimingModel::Impl::AfterPredicatedBranch(WarpState& w,
                                              const simt::InstrRecord& rec) {
  if (rec.op != spv::Op::OpBranchConditional) return;
  const simt::PredicatedSelection* sel = w.info->predicated[rec.pc];
  if (sel == nullptr || rec.active == 0) return;
  // The moves of a side holding a loop, on the trip of each pass that
  // issues the loop's control (LoopControlIssues).
  if (!w.info->selection_loop.empty() && w.info->selection_loop[rec.pc] != 0) {
    const uint32_t tag = w.info->selection_loop[rec.pc];
    const simt::UnrolledLoop& loop = w.warp->program().unrolled_loops[tag - 1];
    const uint32_t trip = w.loop_counts[2 * (tag - 1)];
    if (Unrolls(config, loop) &&
        trip % config.loop_unroll == 1 % config.loop_unroll) {
      w.move_slots =
          static_cast<uint16_t>(config.selection_loop_moves * sel->written);
    }
  }
  // (Lanes split between the sides: the executor runs both.)
  const int skipped = rec.taken == 0 ? 0 : rec.taken == rec.active ? 1 : -1;
  if (skipped < 0 || sel->side[skipped].empty()) return;
  w.ghost = &sel->side[skipped];
  w.ghost_next = 0;
}

void TimingModel::Impl::IssueGhost(WarpState& w, SubPartition& sp,
                                   RunTiming& run) {
  const simt::Program& prog = w.warp->program();
  const uint32_t at = (*w.ghost)[w.ghost_next];
  const simt::Instr& in = prog.code[at];
  ++w.ghost_next;
  // The second of a fused pair goes with it.
  if (config.fuse_pairs && w.ghost_next < w.ghost->size() &&
      FusesWithPrevious(prog, *w.ghost, w.ghost_next)) {
    ++w.ghost_next;
  }
  if (w.ghost_next == w.ghost->size()) w.ghost = nullptr;
  const PipeTiming& timing = *w.info->timing[at];
  sp.pipe_free[static_cast<size_t>(in.pipe)] =
      now + std::max(1u, timing.interval);
  sp.busy_pipes |= 1u << static_cast<uint32_t>(in.pipe);
  if (sp.last != &w) run.warp_switches += 1;
  sp.last = &w;
  run.predicated_off_instructions += 1;
  w.next_issue = now + 1;
  w.next_issue_reason = StallReason::kWait;
  Refresh(w);
}

// One issue slot of `w` on `pipe` that runs no warp instruction (a
// reconvergence, loop-entry or selection move instruction of NVIDIA's
// code).
void TimingModel::Impl::EmptySlot(WarpState& w, SubPartition& sp,
                                  RunTiming& run, simt::Pipe pipe,
                                  const PipeTiming& timing) {
  sp.pipe_free[static_cast<size_t>(pipe)] = now + std::max(1u, timing.interval);
  sp.busy_pipes |= 1u << static_cast<uint32_t>(pipe);
  if (sp.last != &w) run.warp_switches += 1;
  sp.last = &w;
}

void TimingModel::Impl::IssueSync(WarpState& w, SubPartition& sp,
                                  RunTiming& run) {
  EmptySlot(w, sp, run, simt::Pipe::kBranch, config.branch);
  run.reconvergence_instructions += 1;
  --w.sync_slots;
  // The last one (BSYNC) holds the warp's next instruction.
  w.next_issue =
      now +
      (w.sync_slots == 0 ? std::max(1u, config.selection_sync_latency) : 1);
  w.next_issue_reason = StallReason::kWait;
  Refresh(w);
}

void TimingModel::Impl::IssueMove(WarpState& w, SubPartition& sp,
                                  RunTiming& run) {
  EmptySlot(w, sp, run, simt::Pipe::kFma, config.fma);
  run.selection_move_instructions += 1;
  --w.move_slots;
  if (w.next_issue <= now) {
    w.next_issue = now + 1;
    w.next_issue_reason = StallReason::kWait;
  }
  Refresh(w);
}

void TimingModel::Impl::IssueEntry(WarpState& w, SubPartition& sp,
                                   RunTiming& run) {
  EmptySlot(w, sp, run, simt::Pipe::kBranch, config.branch);
  run.loop_entry_instructions += 1;
  --w.entry_slots;
  w.entry_at = now + 1;
  // The warp's next instruction keeps its own wait, at least this cycle.
  if (w.next_issue <= now) {
    w.next_issue = now + 1;
    w.next_issue_reason = StallReason::kWait;
  }
  Refresh(w);
}

// A move through a variable held in registers (RegisterMove), a
// constant-bank operand (its value there at once), or an
// access chain only such moves use. *moved: when its result is ready
// (ReadyWord), the latest of the registers it reads (an index, a
// pointer) and, for a load, of the words its lanes read; a store records
// the latest of its registers (the value, the pointer) for the words its
// lanes write in w.private_ready, and in w.private_latest. Lanes whose
// offset lies outside the program's lane-private memory are left out (the
// executor reads 0 there and drops the store).
void TimingModel::Impl::MoveThroughRegisters(WarpState& w,
                                             const simt::InstrRecord& rec,
                                             uint64_t* moved) {
  uint64_t operands = 0;
  for (uint32_t r : rec.reads) {
    if (r < w.ready.size()) operands = std::max(operands, w.ready[r]);
  }
  *moved = operands;
  // A constant-bank operand: no lane-private words.
  if (rec.addresses == nullptr ||
      w.warp->program().register_private[rec.pc] == 3) {
    return;
  }
  const bool store = rec.writes.empty();
  if (store) w.private_latest = std::max(w.private_latest, operands);
  const uint64_t size = w.warp->program().private_bytes;
  const uint64_t bytes = std::max(1u, rec.access_bytes);
  const uint32_t width = std::min(32u, w.warp->width());
  for (uint32_t m = rec.active & simt::LowLanes(width); m != 0; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(std::countr_zero(m));
    const uint64_t offset = static_cast<uint32_t>(rec.addresses[l]);
    if (offset + bytes > size) continue;
    const size_t first = offset / 4, last = (offset + bytes - 1) / 4;
    if (store) {
      if (w.private_ready.size() <= last) w.private_ready.resize(last + 1, 0);
      for (size_t k = first; k <= last; ++k) {
        w.private_ready[k] = std::max(w.private_ready[k], operands);
      }
    } else {
      for (size_t k = first; k <= last && k < w.private_ready.size(); ++k) {
        *moved = std::max(*moved, w.private_ready[k]);
      }
    }
  }
}

// Reads the next instruction's operands: when they are ready, and so
// when the warp can issue (ready_at) and what it waits for until then.
void TimingModel::Impl::Refresh(WarpState& w) {
  SubPartition& sp = sms[w.sm].sp[w.sp];
  w.done = w.warp->done();
  w.at_barrier = w.warp->at_barrier();
  if (w.done || w.at_barrier) {
    w.ready_at = kNever;
    w.why = StallReason::kBarrier;
    sp.SetReadyAt(w.slot, kNever, now);
    return;
  }
  const uint64_t bit = uint64_t{1} << w.slot;
  if (w.ghost != nullptr || w.sync_slots != 0 || w.entry_slots != 0 ||
      w.move_slots != 0) {
    // A predicated-off, reconvergence, loop-entry or selection move
    // instruction: its pipe, no operands to wait for (an entry's, not even
    // the wait of the warp's next instruction).
    const simt::Pipe pipe =
        w.ghost != nullptr
            ? w.warp->program().code[(*w.ghost)[w.ghost_next]].pipe
        : w.sync_slots != 0 || w.entry_slots != 0 ? simt::Pipe::kBranch
                                                  : simt::Pipe::kFma;
    sp.on_pipe[static_cast<size_t>(sp.pipe_of[w.slot])] &= ~bit;
    sp.on_pipe[static_cast<size_t>(pipe)] |= bit;
    sp.pipe_of[w.slot] = pipe;
    sp.either_pipe &= ~bit;
    const bool entry =
        w.ghost == nullptr && w.sync_slots == 0 && w.entry_slots != 0;
    w.ready_at = entry ? w.entry_at : w.next_issue;
    w.why = entry ? StallReason::kWait : w.next_issue_reason;
    sp.SetReadyAt(w.slot, w.ready_at, now);
    return;
  }
  const simt::InstrPeek p = w.warp->Peek();
  sp.on_pipe[static_cast<size_t>(sp.pipe_of[w.slot])] &= ~bit;
  sp.on_pipe[static_cast<size_t>(p.pipe)] |= bit;
  sp.pipe_of[w.slot] = p.pipe;
  if (config.split_int_adds && p.pipe == simt::Pipe::kAlu && IsSplitAdd(p.op)) {
    sp.either_pipe |= bit;
  } else {
    sp.either_pipe &= ~bit;
  }
  // When the operands are ready, and what the last of them waits for.
  uint64_t deps_ready = 0;
  StallReason deps_reason = StallReason::kWait;
  auto take = [&](uint64_t word) {
    if ((word >> 4) > deps_ready) {
      deps_ready = word >> 4;
      deps_reason = static_cast<StallReason>(word & 15);
    }
  };
  auto check = [&](uint32_t r) {
    if (r < w.ready.size()) take(w.ready[r]);
  };
  // A move of a variable held in registers waits for nothing: the ready
  // cycle of what it moves goes with it (Issue, MoveThroughRegisters).
  if ((w.info->kind[p.pc] & kRegisterMove) == 0) {
    const uint64_t hoisted =
        w.loop_tests != nullptr && (w.info->kind[p.pc] & kWritesPredicate) != 0
            ? HoistedTest(w, p.pc)
            : 0;
    if (hoisted == 0) {
      for (uint32_t r : p.reads) check(r);
    } else {
      // A loop's test computed at the top of the previous trip: what the
      // arithmetic of that trip gives it was there then (the counter's
      // step, hoisted with it); a load's result was not.
      take(HoistedOperands(w, p.reads, hoisted));
    }
  }
  if (!config.rename_registers) {
    for (uint32_t r : p.writes) check(r);
  }
  // A warp ends when the values stored in its variables held in
  // registers are there (a fragment shader's outputs among them).
  if (p.op == spv::Op::OpReturn) take(w.private_latest);
  // (Its pipe being busy is the scheduler's to see: Pick.)
  uint64_t t = w.next_issue;
  StallReason why = w.next_issue_reason;
  if (deps_ready > t) {
    t = deps_ready;
    why = deps_reason;
  }
  if (sp.icache != nullptr) {
    // Its next instruction's line must be at hand.
    const uint64_t line = w.NextLine();
    if (line != w.line) {
      const uint64_t at = LineAtHand(sp, line);
      if (at > now && at > t) {
        t = at;
        why = StallReason::kNoInstruction;
      }
    }
  }
  w.ready_at = t;
  w.why = why;
  sp.SetReadyAt(w.slot, t, now);
}

namespace {

// The way of `line` in its set of `ic`, or -1.
int FindWay(const InstructionCache& ic, uint32_t ways, uint64_t line) {
  const size_t set = line & ic.set_mask;
  for (uint32_t k = 0; k < ways; ++k) {
    if (ic.tags[set * ways + k] == line) return static_cast<int>(k);
  }
  return -1;
}

// Puts `line` in its set of `ic` (or marks it used), the least recently
// used line out.
void Install(InstructionCache& ic, uint32_t ways, uint64_t line) {
  const size_t set = line & ic.set_mask;
  const size_t base = set * ways;
  size_t at = base;
  for (size_t k = base; k < base + ways; ++k) {
    if (ic.tags[k] == line) {
      at = k;
      break;
    }
    if (ic.stamps[k] < ic.stamps[at]) at = k;
  }
  if (ic.tags[at] != line) {
    if (ic.tags[at] != ~uint64_t{0}) ic.evicted = true;
    ic.tags[at] = line;
    ic.SetHeld(line);
  }
  ic.stamps[at] = ++ic.clock;
}

}  // namespace

uint64_t TimingModel::Impl::LineAtHand(SubPartition& sp, uint64_t line) {
  InstructionCache& ic = *sp.icache;
  const uint32_t ways = config.icache_ways;
  // (Until a line is evicted, every line once held is there.)
  if (!ic.evicted && ic.Held(line)) return now;
  if (FindWay(ic, ways, line) >= 0) return now;
  if (auto it = ic.arriving.find(line); it != ic.arriving.end()) {
    if (it->second > now) return it->second;
    ic.arriving.erase(it);
    Install(ic, ways, line);
    return now;
  }
  if (!ic.Held(line)) {
    Install(ic, ways, line);  // its first use: at no cost
    return now;
  }
  const uint64_t arrives =
      std::max(now, ic.fill_free) + config.icache_fill_cycles;
  ic.fill_free = arrives;
  ic.arriving.emplace(line, arrives);
  return arrives;
}

void TimingModel::Impl::UseLine(SubPartition& sp, WarpState& w, uint64_t line) {
  InstructionCache& ic = *sp.icache;
  const uint32_t ways = config.icache_ways;
  if (!ic.arriving.empty()) ic.arriving.erase(line);
  Install(ic, ways, line);
  w.line = line;
  // The next line, ahead of need (a line never held needs no fetch; until
  // a line is evicted, one held is there).
  const uint64_t next = line + 1;
  if (ic.evicted && next < w.code_end && ic.Held(next) &&
      FindWay(ic, ways, next) < 0 && !ic.arriving.contains(next)) {
    LineAtHand(sp, next);
  }
}

// The throttled warps' cycles since the last settling: counted under
// their pipe's reason instead of not_selected (Account() counted them
// eligible).
void TimingModel::Impl::Settle(SubPartition& sp, Sm& sm, uint64_t t) {
  static_assert(std::size(kThrottleReasons) == 3);
  if (t > sp.throttled_since &&
      (sp.throttled[0] | sp.throttled[1] | sp.throttled[2]) != 0) {
    const uint64_t d = t - sp.throttled_since;
    trace::StallCounts& c = sm.stats.stall_cycles;
    for (size_t r = 0; r < sp.throttled.size(); ++r) {
      // (Unsigned: not_selected may dip below zero until the warps'
      // own cycles are added; the sums are exact once both are.)
      c[R(kThrottleReasons[r])] += sp.throttled[r] * d;
      c[R(StallReason::kNotSelected)] -= sp.throttled[r] * d;
    }
  }
  sp.throttled_since = t;
}

// The warp the scheduler issues now, or nullptr; `earliest`: the first
// cycle a warp could issue when none can now.
WarpState* TimingModel::Impl::Pick(SubPartition& sp, Sm& sm,
                                   uint64_t* earliest) {
  sp.Advance(now);
  Settle(sp, sm, now);
  // Ready warps whose pipe is busy are throttled this cycle.
  uint64_t busy = 0;
  uint64_t pipe_wake = kNever;
  sp.throttled = {};
  constexpr uint32_t kAluPipe = static_cast<uint32_t>(simt::Pipe::kAlu);
  const bool fma_free =
      sp.pipe_free[static_cast<size_t>(simt::Pipe::kFma)] <= now;
  for (uint32_t m = sp.busy_pipes; m != 0; m &= m - 1) {
    const uint32_t p = static_cast<uint32_t>(std::countr_zero(m));
    if (sp.pipe_free[p] <= now) {
      sp.busy_pipes &= ~(1u << p);
      continue;
    }
    uint64_t blocked = sp.on_pipe[p];
    // (An integer add waits only when the FMA pipe is busy too.)
    if (p == kAluPipe && fma_free) blocked &= ~sp.either_pipe;
    busy |= blocked;
    if (const uint64_t waiting = sp.ready & blocked; waiting != 0) {
      sp.throttled[ThrottleIndex(static_cast<simt::Pipe>(p))] +=
          PopCount64(waiting);
      pipe_wake = std::min(pipe_wake, sp.pipe_free[p]);
    }
  }
  const uint64_t eligible = sp.ready & sp.pool & ~busy;
  if (eligible == 0) {
    // (A ready warp outside the two-level pool: look again next cycle.)
    *earliest =
        (sp.ready & ~busy) != 0 ? now + 1 : std::min(sp.NextReady(), pipe_wake);
    return nullptr;
  }
  *earliest = now + 1;
  if (config.scheduler == SchedulerPolicy::kGto && sp.last != nullptr &&
      (eligible >> sp.last->slot & 1) != 0) {
    return sp.last;  // greedy: the warp issued last, while it can
  }
  auto oldest = [&]() {
    if ((eligible & (eligible - 1)) == 0) {
      return sp.slot_ptr[std::countr_zero(eligible)];  // the only one
    }
    for (uint32_t k = 0;; ++k) {  // (eligible != 0: one is in `age`)
      if ((eligible >> sp.age[k] & 1) != 0) return sp.slot_ptr[sp.age[k]];
    }
  };
  switch (config.scheduler) {
    case SchedulerPolicy::kGto:  // (the greedy case is above)
    case SchedulerPolicy::kOldest:
      return oldest();
    case SchedulerPolicy::kLrr:
    case SchedulerPolicy::kTwoLevel:
      break;
  }
  const uint64_t after = sp.rr >= 64 ? 0 : eligible & (~uint64_t{0} << sp.rr);
  // (The slot is the bit's index: no need to read the warp's state here.)
  const uint32_t slot =
      static_cast<uint32_t>(std::countr_zero(after != 0 ? after : eligible));
  sp.rr = slot + 1 < slots_per_sp ? slot + 1 : 0;
  return sp.slot_ptr[slot];
}

// The cycles from `at` until a memory instruction's result is ready.
uint32_t TimingModel::Impl::MemoryLatency(WarpState& w,
                                          const simt::InstrRecord& rec,
                                          StallReason* reason, bool store,
                                          uint64_t at) {
  *reason = StallReason::kLongScoreboard;
  if (rec.addresses == nullptr || rec.active == 0) {
    return config.memory.l1_latency;
  }
  const uint32_t first = static_cast<uint32_t>(std::countr_zero(rec.active));
  const uint32_t region = static_cast<uint32_t>(rec.addresses[first] >> 32);
  switch (simt::SpaceOfRegion(region)) {
    case simt::MemorySpace::kWorkgroup:
      *reason = StallReason::kShortScoreboard;
      return memory.SharedAccess(
          w.sm, at, rec.addresses,
          rec.active & simt::LowLanes(std::min(32u, w.warp->width())),
          rec.access_bytes);
    case simt::MemorySpace::kPrivate:
      return config.memory.l1_latency;
    case simt::MemorySpace::kGlobal:
      break;
  }
  // Device addresses (one buffer bound twice is one memory).
  ItemState& st = *w.item;
  const simt::ExecContext& c = st.item->context;
  uint64_t device[32];
  const uint32_t width = std::min(32u, w.warp->width());
  // Image instructions name the image (context.images), not a region.
  const bool image = rec.pipe == simt::Pipe::kTex;
  const uint32_t r0 = region;  // the first active lane's image
  std::vector<uint64_t>& bases = image ? st.image_base : st.device_base;
  for (uint32_t m = rec.active & simt::LowLanes(width); m != 0; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(std::countr_zero(m));
    const uint32_t r = static_cast<uint32_t>(rec.addresses[l] >> 32);
    uint64_t off = static_cast<uint32_t>(rec.addresses[l]);
    if (r >= bases.size()) bases.resize(r + 1, 0);
    uint64_t& base = bases[r];
    const bool known =
        image ? r < c.images.size() && c.images[r].data != nullptr
              : r < c.regions.size() && c.regions[r].data != nullptr;
    if (base == 0) {
      if (!known) {
        // Unknown: its own space.
        base = (uint64_t{r} << 48) | (image ? uint64_t{1} << 47 : 0);
      } else if (image) {
        base = memory.DeviceAddress(c.images[r].data, c.images[r].size);
      } else {
        base = memory.DeviceAddress(c.regions[r].data, c.regions[r].size);
      }
    }
    if (image && known) off = TiledTexelOffset(c.images[r], off);
    device[l] = base + off;
  }
  TextureRead texture;
  texture.fetch = rec.op == spv::Op::OpImageFetch ||
                  rec.op == spv::Op::OpImageRead ||
                  rec.op == spv::Op::OpImageSparseFetch ||
                  rec.op == spv::Op::OpImageSparseRead;
  texture.filtered = rec.filtered;
  if (image && r0 < c.images.size()) {
    const simt::TexelFormat& f = c.images[r0].format;
    for (uint32_t k = 0; k < f.count && k < 4; ++k) {
      texture.component_bits =
          std::max<uint32_t>(texture.component_bits, f.comps[k].bits);
    }
  }
  const auto& bypass = w.warp->program().l1_bypass;
  const bool past_l1 = config.memory.coherent_bypasses_l1 && !store &&
                       rec.pc < bypass.size() && bypass[rec.pc] != 0;
  uint32_t lat = memory.Access(
      w.sm, at, device, rec.active & simt::LowLanes(width), rec.access_bytes,
      store, st.item->kind != pipeline::WorkKind::kComputeWorkgroup,
      rec.pipe == simt::Pipe::kTex && !store ? &texture : nullptr, past_l1);
  if (store) store_throttle = memory.StoreThrottle();
  if (simt::IsAtomic(rec.op)) lat = std::max(lat, config.memory.l2_latency);
  return lat;
}

// The cycles beyond its own slot a load/store-pipe instruction of a
// compute warp holds its sub-partition's issue
// (MemoryTiming::*_issue_cycles), by its kind and the memory its first
// active lane addresses.
uint32_t TimingModel::Impl::IssueHold(const WarpState& w,
                                      const simt::InstrRecord& rec,
                                      bool store) const {
  const MemoryTiming& m = config.memory;
  if (rec.addresses == nullptr || rec.active == 0 ||
      w.item->item->kind != pipeline::WorkKind::kComputeWorkgroup) {
    return 0;
  }
  const uint32_t first = static_cast<uint32_t>(std::countr_zero(rec.active));
  switch (
      simt::SpaceOfRegion(static_cast<uint32_t>(rec.addresses[first] >> 32))) {
    case simt::MemorySpace::kWorkgroup:
      if (simt::IsAtomic(rec.op)) return 0;
      return store ? m.shared_store_issue_cycles : m.shared_load_issue_cycles;
    case simt::MemorySpace::kGlobal:
      if (simt::IsAtomic(rec.op)) return m.global_atomic_issue_cycles;
      return store ? m.global_store_issue_cycles : m.global_load_issue_cycles;
    case simt::MemorySpace::kPrivate:
      break;
  }
  return 0;
}

// An instruction event for the trace (--trace-detail instructions), and
// the record for the step observer. Called once per Step().
void TimingModel::Impl::LogInstructionTo(const WarpState& w,
                                         const simt::InstrRecord& rec,
                                         uint32_t latency, uint64_t ready,
                                         StallReason waited) {
  if (step_observer != nullptr) step_observer->OnStep(*w.warp, rec, now);
  if (trace == nullptr || trace->detail != trace::Detail::kInstructions) {
    return;
  }
  if (trace->instructions.size() < trace->max_instruction_events) {
    trace::InstructionEvent e;
    e.cycle = now;
    e.sm = w.sm;
    e.sub_partition = w.sp;
    e.slot = w.slot;
    e.warp = w.id;
    e.pc = rec.pc;
    e.op = spirv::OpcodeName(static_cast<uint32_t>(rec.op));
    e.active = rec.active;
    e.helpers = rec.active & rec.helper;
    e.taken = rec.taken;
    e.latency = latency;
    e.shader = w.shader;
    e.ready = ready;
    e.waited = waited;
    trace->instructions.push_back(e);
  } else {
    trace->instructions_truncated = true;
  }
}

namespace {

// Sets the ready cycle of register `r`, written by an instruction on the
// lanes `active`, to `word` (a ReadyWord): a write by fewer than the
// warp's alive lanes keeps the later of that and the pending one
// (TimingConfig::rename_registers).
inline void SetReady(WarpState& w, uint32_t r, uint32_t active, uint64_t word) {
  if (r >= w.ready.size()) return;
  const uint32_t alive = w.warp->alive();
  uint64_t& ready = w.ready[r];
  ready = (active & alive) == alive ? word : std::max(ready, word);
}

}  // namespace

// Issues `w`'s next instruction at `now`.
Status TimingModel::Impl::Issue(WarpState& w, SubPartition& sp, Sm& sm,
                                RunTiming& run) {
  // What it waited for (the trace's instruction events).
  const bool after_barrier = w.barrier_end != 0;
  const uint64_t ready =
      after_barrier ? w.barrier_end : std::min(w.ready_at, now);
  const StallReason waited = after_barrier ? StallReason::kBarrier : w.why;
  w.barrier_end = 0;
  sp.issues += 1;
  // Its state until now; now it is selected.
  Account(w, now);
  w.static_clock += 1;
  sm.stats.stall_cycles[R(StallReason::kSelected)] += 1;
  w.since = now + 1;
  if (w.ghost != nullptr) {
    IssueGhost(w, sp, run);
    return {};
  }
  if (w.sync_slots != 0) {
    IssueSync(w, sp, run);
    return {};
  }
  if (w.entry_slots != 0) {
    IssueEntry(w, sp, run);
    return {};
  }
  if (w.move_slots != 0) {
    IssueMove(w, sp, run);
    return {};
  }
  if (sp.icache != nullptr) {
    const uint64_t line = w.NextLine();
    if (line != w.line) UseLine(sp, w, line);
  }
  const simt::InstrRecord rec = w.warp->Step();
  CountLoopControl(w, rec.pc, config, now);
  AfterPredicatedBranch(w, rec);
  if (w.loop_tests != nullptr) AfterLoopTest(w, rec.pc, true);
  run.warp_instructions += 1;
  w.issued += 1;
  sm.stats.issued += 1;
  sm.run_issued += 1;
  sm.sample_issued += 1;
  if (sp.last != &w) run.warp_switches += 1;
  sp.last = &w;
  // The pipe it issues to: its own, or the FMA pipe for an integer add
  // (Refresh marked it in either_pipe) whose ALU pipe is busy (Pick let it
  // issue only when the FMA pipe is free).
  simt::Pipe issue_pipe = rec.pipe;
  const PipeTiming* timing = w.info->timing[rec.pc];
  if ((sp.either_pipe >> w.slot & 1) != 0 &&
      sp.pipe_free[static_cast<size_t>(simt::Pipe::kAlu)] > now) {
    issue_pipe = simt::Pipe::kFma;
    timing = &config.imul;
    run.fma_pipe_adds += 1;
  }
  const PipeTiming& pipe = *timing;
  sp.pipe_free[static_cast<size_t>(issue_pipe)] =
      now + std::max(1u, pipe.interval);
  uint32_t latency = pipe.latency;
  StallReason reason = rec.pipe == simt::Pipe::kSfu
                           ? StallReason::kShortScoreboard
                           : StallReason::kWait;
  bool long_wait = false;
  // A load or store of a variable NVIDIA's code holds in registers: a
  // move (on the ALU pipe, simt::Program::register_private). A store
  // leaves its value's ready cycle with the words it writes, a load takes
  // the latest of its words'.
  uint64_t moved = 0;  // a ReadyWord
  const bool move = (w.info->kind[rec.pc] & kRegisterMove) != 0;
  if (move) {
    MoveThroughRegisters(w, rec, &moved);
  } else if (rec.pipe == simt::Pipe::kLsu || rec.pipe == simt::Pipe::kTex ||
             rec.addresses != nullptr) {
    const bool store = rec.writes.empty() && !simt::IsAtomic(rec.op);
    const uint64_t at = store ? now : AheadAt(w, rec);
    store_throttle = 0;
    latency = MemoryLatency(w, rec, &reason, store, at);
    if (store_throttle > 0) {
      // Its SM's store path is full: no load or store of this
      // sub-partition issues until it has room.
      uint64_t& lsu = sp.pipe_free[static_cast<size_t>(simt::Pipe::kLsu)];
      lsu = std::max(lsu, now + store_throttle);
      sp.busy_pipes |= 1u << static_cast<uint32_t>(simt::Pipe::kLsu);
      run.store_throttle_cycles += store_throttle;
    }
    if (at < now) {
      // Issued ahead: the data may be here already.
      latency =
          at + latency > now ? static_cast<uint32_t>(at + latency - now) : 1;
    }
    long_wait = reason == StallReason::kLongScoreboard && !rec.writes.empty();
    if ((store || (reason != StallReason::kWait && !rec.writes.empty())) &&
        w.trip_memory_static == 0) {
      w.trip_memory_static = w.static_clock;
    }
    if (rec.pipe == simt::Pipe::kLsu) {
      if (const uint32_t hold = IssueHold(w, rec, store); hold > 0) {
        run.memory_issue_hold_cycles +=
            sp.Owe(now, hold, config.memory.issue_hold_slack_cycles);
      }
    }
  }
  if (config.buffer_address_issue_cycles > 0 &&
      config.buffer_address.latency > 0 &&
      simt::IsBufferAddress(rec.op, rec.ext)) {
    run.memory_issue_hold_cycles +=
        sp.Owe(now, config.buffer_address_issue_cycles,
               config.memory.issue_hold_slack_cycles);
  }
  const uint16_t kind = w.info->kind[rec.pc];
  if (config.predicate_latency > 0 && (kind & kWritesPredicate) != 0) {
    // A predicate: ready predicate_latency after NVIDIA's code computes
    // it, which for a loop's test is at the top of the previous trip.
    latency = config.predicate_latency;
    if (const uint64_t hoisted = HoistedTest(w, rec.pc); hoisted != 0) {
      uint64_t at =
          std::max(hoisted, HoistedOperands(w, rec.reads, hoisted) >> 4) +
          config.predicate_latency;
      if (config.static_loop_test && w.trip_memory_static != 0) {
        // In the compiler's count from the trip's first memory instruction.
        const uint64_t counted = w.static_clock - w.trip_memory_static;
        if (counted < config.predicate_latency) {
          at = std::max(at, now + config.predicate_latency - counted);
        }
      }
      latency = at > now ? static_cast<uint32_t>(at - now) : 1;
    }
  }
  latency = std::max(1u, latency);
  for (uint32_t r : rec.writes) {
    SetReady(w, r, rec.active,
             std::max(ReadyWord(now + latency, reason), moved));
  }
  bool logged = false;  // in the trace
  // The condition of a predicated selection's branch issued with this
  // instruction (a ReadyWord; 0: none).
  uint64_t hold = 0;
  if (config.fuse_pairs && (kind & kBeginsPair) != 0 &&
      rec.addresses == nullptr && rec.writes.size() == 1 &&
      rec.blocking == simt::Blocking::kNone) {
    // The compiler's fused pair: the next instruction, which reads this
    // one's result, runs as part of this issue (functionally it is its
    // own instruction; its result is ready when the longer of the two
    // latencies has passed).
    const simt::InstrPeek next = w.warp->Peek();
    if (next.active == rec.active && Fusible(rec.op, next.op) &&
        std::find(next.reads.begin(), next.reads.end(), rec.writes[0]) !=
            next.reads.end() &&
        next.writes.size() == 1) {
      LogInstruction(w, rec, latency, ready, waited);
      const simt::InstrRecord fused = w.warp->Step();
      CountLoopControl(w, fused.pc, config, now);
      run.warp_instructions += 1;
      run.fused_instructions += 1;
      const PipeTiming& second = *w.info->timing[fused.pc];
      const uint32_t both = std::max(latency, second.latency);
      uint64_t& busy = sp.pipe_free[static_cast<size_t>(issue_pipe)];
      busy = std::max(busy, now + std::max(1u, second.interval));
      for (uint32_t r : fused.writes) {
        SetReady(w, r, fused.active, ReadyWord(now + both, reason));
      }
      LogInstruction(w, fused, both, now, StallReason::kSelected);
      logged = true;
      if (fused.blocking == simt::Blocking::kError) {
        return w.item->item->WarpError(w.index);
      }
    }
  }
  if ((config.free_layout_branches || config.loop_unroll > 1 || config.cse ||
       config.fold_constant_chains || config.free_register_moves ||
       config.predicate_max_instructions > 0 ||
       config.loop_control_in_bubbles || config.hoist_invariants) &&
      rec.blocking == simt::Blocking::kNone) {
    // Branches the compiler's block layout removes, the control of an
    // unrolled loop on the trips its code has none for, repeats of a
    // computation the compiler does once (in a block or, hoisted, before a
    // loop), the links of a chain by constants it folds and moves through
    // variables it holds in registers run with this issue.
    for (;;) {
      const uint32_t pc = w.warp->next_pc();
      if (w.warp->done()) break;
      const uint16_t next = w.info->kind[pc];
      // (Most instructions are none of these: they issue on their own.)
      if ((next & kMayIssueWithPrevious) == 0) break;
      const bool layout = (next & kLayoutFree) != 0;
      const bool repeat = !layout && (next & kRedundant) != 0;
      const bool renamed = !layout && !repeat && (next & kRenamed) != 0;
      const bool predicated =
          !layout && !repeat && !renamed && (next & kPredicatedBranch) != 0;
      // (FillsBubble is in another file: no call on every issue.)
      const bool bubble = !layout && !repeat && !renamed && !predicated &&
                          (next & kLoopFill) != 0 && FillsBubble(w, sp, pc);
      if (!layout && !repeat && !renamed && !predicated && !bubble &&
          LoopControlIssues(w, pc, config)) {
        break;
      }
      if (!logged) LogInstruction(w, rec, latency, ready, waited);
      logged = true;
      const simt::InstrRecord extra = w.warp->Step();
      CountLoopControl(w, extra.pc, config, now);
      if (w.loop_tests != nullptr) AfterLoopTest(w, extra.pc, false);
      run.warp_instructions += 1;
      if (predicated) {
        run.predicated_branches += 1;
        AfterPredicatedBranch(w, extra);
        // Its sides are predicated on its condition: with
        // predicate_latency, the warp's next instruction waits for it.
        if (config.predicate_latency > 0) {
          hold = std::max(hold, HoistedOperands(w, extra.reads, kNever));
        }
      } else if (renamed) {
        // Its value is ready when the stored one was (or now).
        uint64_t value = 0;
        MoveThroughRegisters(w, extra, &value);
        for (uint32_t r : extra.writes) {
          SetReady(w, r, extra.active,
                   std::max(ReadyWord(now, StallReason::kWait), value));
        }
        run.register_moves += 1;
      } else if (layout) {
        run.layout_branches += 1;
      } else if (bubble) {
        // In NVIDIA's code it issued earlier in the trip: its result is
        // there now (a test's predicate as its hoisted compare's).
        run.bubble_instructions += 1;
        uint64_t at = now + Pipe(extra.pipe).latency;
        if ((w.info->kind[extra.pc] & kWritesPredicate) != 0 &&
            config.predicate_latency > 0) {
          const uint64_t hoisted = HoistedTest(w, extra.pc);
          at = hoisted != 0
                   ? std::max(hoisted,
                              HoistedOperands(w, extra.reads, hoisted) >> 4) +
                         config.predicate_latency
                   : now + config.predicate_latency;
        }
        for (uint32_t r : extra.writes) {
          SetReady(w, r, extra.active, ReadyWord(at, StallReason::kWait));
        }
      } else if (repeat) {
        run.redundant_instructions += 1;
      } else {
        run.unrolled_loop_instructions += 1;
      }
      LogInstruction(w, extra, 0, now, StallReason::kSelected);
      if (extra.blocking == simt::Blocking::kError) {
        return w.item->item->WarpError(w.index);
      }
      if (extra.blocking != simt::Blocking::kNone) break;
    }
  }
  w.next_issue = now + 1;
  w.next_issue_reason = StallReason::kWait;
  if ((hold >> 4) > w.next_issue) {
    w.next_issue = hold >> 4;
    w.next_issue_reason = static_cast<StallReason>(hold & 15);
  }
  if (rec.pipe == simt::Pipe::kBranch) {
    const simt::Program& prog = w.warp->program();
    const bool conditional = rec.op == spv::Op::OpBranchConditional;
    // A predicated selection's branch is no branch in NVIDIA's code.
    if (!conditional || w.info->predicated[rec.pc] == nullptr) {
      w.next_issue = now + std::max(1u, config.branch.latency);
      w.next_issue_reason = StallReason::kWait;
      if (conditional && rec.pc < prog.selection_branches.size() &&
          prog.selection_branches[rec.pc] != 0) {
        w.sync_slots = config.selection_sync_slots;
      }
    }
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
    sp.pool &= ~(uint64_t{1} << w.slot);
  }
  if (!logged) LogInstruction(w, rec, latency, ready, waited);
  if (rec.blocking == simt::Blocking::kError) {
    return w.item->item->WarpError(w.index);
  }
  sp.busy_pipes |= 1u << static_cast<uint32_t>(issue_pipe);
  if (long_wait && config.context_switch == ContextSwitch::kSwap) {
    sp.busy_pipes |= 1u << static_cast<uint32_t>(simt::Pipe::kLsu);
  }
  Refresh(w);
  return {};
}

}  // namespace warpsim::sm
