// The SM timing model, part 4: what it knows of a program before it
// issues any of it (timing_impl.h): per instruction how the run's
// configuration issues it (ProgramInfo: the kind, the predicated selection
// a branch begins, its pipe's figures), and where its code lies for the
// instruction cache.
#include <algorithm>
#include <vector>

#include "sm/timing_impl.h"

namespace warpsim::sm {

using namespace internal;  // NOLINT: the model's own internals

namespace {

// Whether instruction `pc` of `p` is a load or store of a variable held in
// registers, or an access chain only those use
// (simt::Program::register_private).
bool RegisterMove(const simt::Program& p, uint32_t pc) {
  return pc < p.register_private.size() && p.register_private[pc] != 0;
}

// The issue slots of a predicated side: its instructions, less the
// second of each fused pair with `fuse`.
uint32_t SideSlots(const simt::Program& p, const std::vector<uint32_t>& side,
                   bool fuse) {
  uint32_t n = 0;
  for (size_t i = 0; i < side.size(); ++i) {
    n += 1;
    // (The pair's second goes with it, as IssueGhost issues them.)
    if (fuse && i + 1 < side.size() && FusesWithPrevious(p, side, i + 1)) {
      ++i;
    }
  }
  return n;
}

// The selection whose conditional branch is instruction `pc` of `p`, when
// the model predicates it (at most `max` issue slots and, unless 0,
// `max_written` registers written), else nullptr.
const simt::PredicatedSelection* Predicated(const simt::Program& p, uint32_t pc,
                                            uint32_t max, uint32_t max_written,
                                            bool fuse) {
  if (max == 0 || pc >= p.predicated.size() || p.predicated[pc] == 0) {
    return nullptr;
  }
  const simt::PredicatedSelection& s =
      p.predicated_selections[p.predicated[pc] - 1];
  if (max_written != 0 && s.written > max_written) return nullptr;
  if (s.size() <= max) return &s;
  if (!fuse) return nullptr;
  return SideSlots(p, s.side[0], fuse) + SideSlots(p, s.side[1], fuse) <= max
             ? &s
             : nullptr;
}

// The innermost loop around instruction `pc` that NVIDIA's compiler may
// unroll with a run-time trip count (simt::Program::unrolled_loops, not
// unrolled completely): its index + 1, else 0.
uint32_t UnrolledLoopAround(const simt::Program& p, uint32_t pc) {
  uint32_t best = 0, size = ~0u;
  for (uint32_t t = 0; t < p.unrolled_loops.size(); ++t) {
    const simt::UnrolledLoop& l = p.unrolled_loops[t];
    if (l.full) continue;
    for (const simt::LoopRange& r : p.loops) {
      if (r.end == l.merge_pc && r.begin <= pc && pc < r.end &&
          r.end - r.begin < size) {
        best = t + 1;
        size = r.end - r.begin;
      }
    }
  }
  return best;
}

}  // namespace

// `p`'s instructions as the run's configuration issues them: what
// Issue() and Refresh() would otherwise look up in its tables each time.
const ProgramInfo& TimingModel::Impl::Info(const simt::Program& p) {
  auto [it, added] = program_info.try_emplace(&p);
  ProgramInfo& info = it->second;
  if (!added) return info;
  const size_t n = p.code.size();
  info.kind.assign(n + 1, 0);
  info.predicated.assign(n + 1, nullptr);
  info.timing.assign(n + 1, &config.alu);
  for (uint32_t i = 0; i < n; ++i) {
    const simt::Instr& in = p.code[i];
    simt::InstrRecord rec;  // (what TimingOf reads)
    rec.op = in.op;
    rec.ext = in.ext;
    rec.pipe = in.pipe;
    info.timing[i] = &TimingOf(rec);
    uint16_t k = 0;
    if (simt::WritesPredicate(in.op)) k |= kWritesPredicate;
    if (BeginsPair(in.op)) k |= kBeginsPair;
    if (config.free_layout_branches && i < p.layout_free.size() &&
        p.layout_free[i] != 0) {
      k |= kLayoutFree;
    }
    if (config.cse && i < p.redundant.size() && p.redundant[i] != 0) {
      k |= kRedundant;
    }
    if (config.hoist_invariants && i < p.hoisted.size() && p.hoisted[i] != 0) {
      k |= kRedundant;
    }
    if (config.fold_constant_chains && i < p.folded.size() &&
        p.folded[i] != 0) {
      k |= kRedundant;
    }
    if (RegisterMove(p, i)) {
      k |= kRegisterMove;
      if (config.free_register_moves) k |= kRenamed;
    }
    info.predicated[i] =
        Predicated(p, i, config.predicate_max_instructions,
                   config.predicate_max_written, config.fuse_pairs);
    if (info.predicated[i] != nullptr) {
      k |= kPredicatedBranch;
      if (config.selection_loop_moves != 0 && info.predicated[i]->holds_loop) {
        if (const uint32_t tag = UnrolledLoopAround(p, i); tag != 0) {
          if (info.selection_loop.empty()) info.selection_loop.assign(n + 1, 0);
          info.selection_loop[i] = tag;
        }
      }
    }
    if (config.loop_control_in_bubbles && i < p.loop_fills.size() &&
        p.loop_fills[i] != 0) {
      k |= kLoopFill;
    }
    if (i < p.loop_control.size() && p.loop_control[i] != 0) {
      k |= kLoopControl;
    }
    info.kind[i] = k;
  }
  return info;
}

// Where `p`'s code lies: its instructions in order, but those NVIDIA's
// code has no instruction of its own for take no place (the second of a
// fused pair, a branch the block layout removes, a repeated computation:
// the model issues them with the instruction before them), so that the
// code's size is the machine code's, not the SPIR-V's. Programs share no
// line.
const TimingModel::Impl::CodeLayout& TimingModel::Impl::Code(
    const simt::Program& p, const ProgramInfo& info) {
  auto [it, added] = code_layout.try_emplace(&p);
  CodeLayout& code = it->second;
  const size_t n = p.code.size();
  // (A layout of another program once at the same address is made anew.)
  if (!added && code.offset.size() == n + 1) return code;
  code.offset.resize(n + 1);
  uint32_t at = 0;
  bool second = false;  // p.code[i - 1] was the second of a pair
  for (size_t i = 0; i < n; ++i) {
    const simt::Instr& in = p.code[i];
    bool takes = true;
    if (config.fuse_pairs && i > 0 && !second &&
        simt::FusedPair(p.code[i - 1], in)) {
      takes = false;
    }
    second = !takes;
    // (Issue() runs these with the instruction before them.)
    constexpr uint16_t kNoSlot =
        kLayoutFree | kRedundant | kRenamed | kPredicatedBranch;
    if ((info.kind[i] & kNoSlot) != 0) takes = false;
    code.offset[i] = static_cast<uint32_t>(
        uint64_t{at} * config.instruction_bytes / config.icache_line_bytes);
    at += takes ? 1 : 0;
  }
  code.offset[n] = static_cast<uint32_t>(
      uint64_t{at} * config.instruction_bytes / config.icache_line_bytes);
  const uint64_t lines =
      (uint64_t{at} * config.instruction_bytes + config.icache_line_bytes - 1) /
      config.icache_line_bytes;
  code.base = next_code_line;
  code.end = code.base + lines;
  next_code_line = code.end + 1;
  return code;
}

}  // namespace warpsim::sm
