// Register allocation: virtual registers -> physical registers per thread.
//
// The algorithm, in prose:
//  1. Liveness. Per-thread liveness is exact for SIMT execution because every
//     register write is masked by the active mask: a lane's register is only
//     ever written by that lane. So the classic backward dataflow over the
//     CFG applies. Phi copies happen on the edges: just before a terminator
//     the live set along edge k is
//         (live_in(S_k) - phi_dsts(k)) + phi_srcs(k),
//     and the phi destinations are defined at the terminator.
//  2. Interference. A register defined by an instruction interferes with
//     every register live after it. Instructions that define several
//     registers or read side tables also keep their defs apart from their
//     uses (their handlers may read operands after writing results).
//  3. Colouring. Greedy in definition order; a 64-bit register takes an
//     aligned pair of colours, as 64-bit operands do on NVIDIA GPUs.
// The number of colours is the registers per thread the program needs
// (before any spilling, which warpsim does not model): Program::num_regs,
// the size of the register file the warp executes with.
//
// The register-count model (Program::model_regs) is the same colouring
// restricted to what NVIDIA's compiler keeps in registers: see
// regalloc_model.cpp.
// Registers are only renumbered for the count: the executor's program and
// results do not change.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "simt/regalloc_internal.h"

namespace warpsim::simt {

using regalloc_internal::Bits;
using regalloc_internal::Entities;
using regalloc_internal::IsVirtual;

namespace {

// Instructions that read their operands in other lanes of the warp.
bool ReadsOtherLanes(spv::Op op) {
  using spv::Op;
  switch (op) {
    case Op::OpDPdx:
    case Op::OpDPdy:
    case Op::OpFwidth:
    case Op::OpDPdxFine:
    case Op::OpDPdyFine:
    case Op::OpFwidthFine:
    case Op::OpDPdxCoarse:
    case Op::OpDPdyCoarse:
    case Op::OpFwidthCoarse:
    case Op::OpImageSampleImplicitLod:
    case Op::OpImageSampleDrefImplicitLod:
    case Op::OpImageSampleProjImplicitLod:
    case Op::OpImageSampleProjDrefImplicitLod:
    case Op::OpImageQueryLod:
    case Op::OpGroupNonUniformQuadBroadcast:
    case Op::OpGroupNonUniformQuadSwap:
    case Op::OpGroupNonUniformShuffle:
    case Op::OpGroupNonUniformShuffleXor:
    case Op::OpGroupNonUniformShuffleUp:
    case Op::OpGroupNonUniformShuffleDown:
    case Op::OpGroupNonUniformBroadcast:
    case Op::OpGroupNonUniformBroadcastFirst:
      return true;
    default:
      return false;
  }
}

// Orders the parallel copies copies[first..] so that running them one after
// the other gives the same result: a copy runs only after every copy that
// reads its destination. Returns true when that is impossible (the copies
// form a cycle, e.g. a swap); the order is then left to the caller, which
// reads every source first.
bool SequentializeCopies(std::vector<EdgeCopy>* copies, size_t first) {
  std::vector<EdgeCopy> pending(copies->begin() + first, copies->end());
  std::vector<EdgeCopy> ordered;
  ordered.reserve(pending.size());
  while (!pending.empty()) {
    bool progress = false;
    for (size_t i = 0; i < pending.size(); ++i) {
      bool read_later = false;
      for (size_t j = 0; j < pending.size(); ++j) {
        if (j != i && pending[j].src == pending[i].dst) read_later = true;
      }
      if (read_later) continue;
      ordered.push_back(pending[i]);
      pending.erase(pending.begin() + i);
      progress = true;
      break;
    }
    if (!progress) return true;  // a cycle: keep the original order
  }
  std::copy(ordered.begin(), ordered.end(), copies->begin() + first);
  return false;
}

}  // namespace

namespace regalloc_internal {

// Liveness, interference and greedy colouring (steps 1 to 3 above).
// Returns each entity's colour (kNoReg for none) and sets *num_colors.
std::vector<uint32_t> Colour(const Program* program, const Entities& ent,
                             uint32_t* num_colors_out) {
  const uint32_t n = ent.count;
  const auto& wide = ent.wide;
  const size_t nblocks = program->blocks.size();
  auto defs_uses = ent.defs_uses;
  auto IsEntity = ent.is_entity;
  auto ent_conservative = ent.conservative;

  auto block_end = [&](size_t b) {
    return b + 1 < nblocks ? program->blocks[b + 1].first_instr
                           : static_cast<uint32_t>(program->code.size());
  };

  // Live set just before the terminator's copies along edge k of block b,
  // given the successors' live-in sets.
  std::vector<Bits> live_in(nblocks, Bits(n));
  auto live_out_of = [&](size_t b) {
    Bits out(n);
    const Instr& term = program->code[block_end(b) - 1];
    if (term.exec == ExecBranch || term.exec == ExecBranchConditional ||
        term.exec == ExecSwitch) {
      const BranchInfo& bi = program->branches[term.aux];
      for (size_t k = 0; k < bi.targets.size(); ++k) {
        Bits edge = live_in[bi.targets[k]];
        const auto [first, count] = bi.copies[k];
        for (uint32_t c = first; c < first + count; ++c) {
          if (IsEntity(program->edge_copies[c].dst)) {
            edge.Clear(program->edge_copies[c].dst);
          }
        }
        for (uint32_t c = first; c < first + count; ++c) {
          if (IsEntity(program->edge_copies[c].src)) {
            edge.Set(program->edge_copies[c].src);
          }
        }
        out.OrWith(edge);
      }
    }
    return out;
  };
  // 1. Liveness to a fixed point (blocks backwards: loops converge fast).
  std::vector<uint32_t> defs, uses;
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t b = nblocks; b-- > 0;) {
      Bits live = live_out_of(b);
      for (uint32_t i = block_end(b); i-- > program->blocks[b].first_instr;) {
        defs_uses(i, defs, uses);
        for (uint32_t d : defs) live.Clear(d);
        for (uint32_t u : uses) live.Set(u);
      }
      if (!(live == live_in[b])) {
        live_in[b] = std::move(live);
        changed = true;
      }
    }
  }

  // 2. Interference.
  std::vector<std::vector<uint32_t>> adj(n);
  auto interfere = [&](uint32_t a, uint32_t b) {
    if (a == b) return;
    adj[a].push_back(b);
    adj[b].push_back(a);
  };
  for (size_t b = 0; b < nblocks; ++b) {
    const uint32_t end = block_end(b);
    // Phi destinations are written at the terminator.
    const Instr& term = program->code[end - 1];
    if (term.exec == ExecBranch || term.exec == ExecBranchConditional ||
        term.exec == ExecSwitch) {
      const BranchInfo& bi = program->branches[term.aux];
      for (size_t k = 0; k < bi.targets.size(); ++k) {
        const auto [first, count] = bi.copies[k];
        for (uint32_t c = first; c < first + count; ++c) {
          const uint32_t d = program->edge_copies[c].dst;
          if (!IsEntity(d)) continue;
          live_in[bi.targets[k]].ForEach([&](uint32_t v) { interfere(d, v); });
          // Parallel copies: destinations also stay apart from the sources
          // of the same edge that are still live afterwards.
        }
      }
    }
    Bits live = live_out_of(b);
    std::vector<uint32_t> maybe;
    for (uint32_t i = end; i-- > program->blocks[b].first_instr;) {
      defs_uses(i, defs, uses);
      const bool conservative = ent_conservative(i, defs.size());
      if (ent.may_defs) {
        maybe.clear();
        ent.may_defs(i, maybe);
        for (uint32_t d : maybe) {
          if (!live.Get(d)) continue;
          live.ForEach([&](uint32_t v) { interfere(d, v); });
          for (uint32_t u : uses) interfere(d, u);
        }
      }
      for (uint32_t d : defs) {
        if (ent.dead_def_free && ent.dead_def_free(d) && !live.Get(d)) {
          continue;
        }
        if (ent.copy) {
          live.ForEach([&](uint32_t v) {
            if (!ent.copy(i, d, v)) interfere(d, v);
          });
        } else {
          live.ForEach([&](uint32_t v) { interfere(d, v); });
        }
        for (uint32_t d2 : defs) interfere(d, d2);
        if (conservative) {
          for (uint32_t u : uses) interfere(d, u);
        }
      }
      for (uint32_t d : defs) live.Clear(d);
      for (uint32_t u : uses) live.Set(u);
    }
  }

  // 2b. Cross-lane reads. Derivatives, quad and shuffle operations and
  // implicit-LOD sampling read an operand's register in *other* lanes, which
  // may have taken another path and reached this instruction's block only
  // later (or never). Per-lane liveness does not protect the register in
  // those lanes, so such an operand is kept alive over the whole stretch of
  // code from its definition to the reading instruction in structured order
  // (extended to the end of every loop around the reader that does not also
  // contain the definition): it interferes with every register defined in
  // between, phi copies included.
  {
    std::vector<uint32_t> def_at(n, kNoReg);  // first defining instruction
    for (uint32_t i = 0; i < program->code.size(); ++i) {
      defs_uses(i, defs, uses);
      for (uint32_t d : defs) def_at[d] = std::min(def_at[d], i);
    }
    for (size_t b = 0; b < nblocks; ++b) {
      const Instr& term = program->code[block_end(b) - 1];
      if (term.exec != ExecBranch && term.exec != ExecBranchConditional &&
          term.exec != ExecSwitch) {
        continue;
      }
      const BranchInfo& bi = program->branches[term.aux];
      for (const auto& [first, count] : bi.copies) {
        for (uint32_t c = first; c < first + count; ++c) {
          const uint32_t d = program->edge_copies[c].dst;
          if (IsEntity(d)) def_at[d] = std::min(def_at[d], block_end(b) - 1);
        }
      }
    }
    auto block_of = [&](uint32_t instr) {
      size_t b = 0;
      while (b + 1 < nblocks && program->blocks[b + 1].first_instr <= instr)
        ++b;
      return b;
    };
    for (uint32_t i = 0; i < program->code.size(); ++i) {
      if (!ReadsOtherLanes(program->code[i].op)) continue;
      defs_uses(i, defs, uses);
      for (uint32_t v : uses) {
        const uint32_t from = def_at[v] == kNoReg ? 0 : def_at[v];
        uint32_t to = i;
        // Extend over loops that contain the reader but not the definition.
        const size_t def_block = block_of(from);
        for (size_t h = 0; h < nblocks; ++h) {
          const BlockInfo& hb = program->blocks[h];
          if (hb.continue_block == 0xffffffffu || hb.merge_block == 0xffffffffu)
            continue;
          const uint32_t loop_begin = hb.first_instr;
          const uint32_t loop_end = program->blocks[hb.merge_block].first_instr;
          if (loop_begin <= i && i < loop_end &&
              !(h <= def_block && from < loop_end && from >= loop_begin)) {
            to = std::max(to, loop_end - 1);
          }
        }
        std::vector<uint32_t> d2, u2;
        for (uint32_t k = from; k <= to && k < program->code.size(); ++k) {
          defs_uses(k, d2, u2);
          for (uint32_t d : d2) interfere(v, d);
          const Instr& t = program->code[k];
          if (t.exec == ExecBranch || t.exec == ExecBranchConditional ||
              t.exec == ExecSwitch) {
            const BranchInfo& bi = program->branches[t.aux];
            for (const auto& [first, count] : bi.copies) {
              for (uint32_t c = first; c < first + count; ++c) {
                const uint32_t d = program->edge_copies[c].dst;
                if (IsEntity(d)) interfere(v, d);
              }
            }
          }
        }
      }
    }
  }

  // 3. Greedy colouring in definition order.
  std::vector<uint32_t> color(n, kNoReg);
  uint32_t num_colors = 0;
  std::vector<uint8_t> taken;
  auto size_of = [&](uint32_t v) {
    const uint32_t k = ent.copies_live.empty() ? 1u : ent.copies_live[v];
    return (wide[v] ? 2u : 1u) * std::max(1u, k);
  };
  for (uint32_t v = 0; v < n; ++v) {
    const uint32_t size = size_of(v);
    taken.assign(num_colors + 2, 0);
    for (uint32_t u : adj[v]) {
      if (color[u] == kNoReg) continue;
      const uint32_t su = size_of(u);
      if (color[u] + su > taken.size()) taken.resize(color[u] + su, 0);
      for (uint32_t k = 0; k < su; ++k) taken[color[u] + k] = 1;
    }
    uint32_t c = 0;
    if (size > 2) {
      // The first run of `size` free colours (pairs aligned).
      const uint32_t step = wide[v] ? 2u : 1u;
      for (;; c += step) {
        if (c + size > taken.size()) taken.resize(c + size, 0);
        bool free = true;
        for (uint32_t k = 0; k < size && free; ++k) free = !taken[c + k];
        if (free) break;
      }
      color[v] = c;
      num_colors = std::max(num_colors, c + size);
      continue;
    }
    if (!ent.hints.empty() && size == 1) {
      bool hinted = false;
      for (uint32_t h : ent.hints[v]) {
        const uint32_t hc = color[h];
        if (hc != kNoReg && !wide[h] && hc < taken.size() && !taken[hc]) {
          color[v] = hc;
          hinted = true;
          break;
        }
      }
      if (hinted) continue;
    }
    if (size == 2) {
      // A pair (aligned) or two copies of a 32-bit value (any two).
      const uint32_t step = wide[v] ? 2u : 1u;
      while (taken[c] || taken[c + 1]) {
        c += step;
        if (c + 1 >= taken.size()) taken.resize(c + 2, 0);
      }
    } else {
      while (c < taken.size() && taken[c]) ++c;
    }
    color[v] = c;
    num_colors = std::max(num_colors, c + size);
  }
  *num_colors_out = num_colors;
  return color;
}

}  // namespace regalloc_internal

Status AllocateRegisters(Lowerer& lowerer, Program* program) {
  using regalloc_internal::Colour;
  using regalloc_internal::ModelRegisterCount;
  const uint32_t n = program->virtual_regs;
  const auto& wide = lowerer.vreg_wide();
  const auto& extra_defs = lowerer.extra_defs();
  const auto& extra_uses = lowerer.extra_uses();

  // Defs and uses of instruction i of `code` (the program's, or the
  // virtual copy's once the program is rewritten).
  auto defs_uses_in = [&](const std::vector<Instr>& code, uint32_t i,
                          std::vector<uint32_t>& defs,
                          std::vector<uint32_t>& uses) {
    defs.clear();
    uses.clear();
    const Instr& in = code[i];
    if (IsVirtual(in.dst)) defs.push_back(in.dst);
    for (uint32_t s : in.src) {
      if (IsVirtual(s)) uses.push_back(s);
    }
    for (uint32_t d : extra_defs[i]) {
      if (IsVirtual(d)) defs.push_back(d);
    }
    for (uint32_t u : extra_uses[i]) {
      if (IsVirtual(u)) uses.push_back(u);
    }
  };
  auto defs_uses = [&](uint32_t i, std::vector<uint32_t>& defs,
                       std::vector<uint32_t>& uses) {
    defs_uses_in(program->code, i, defs, uses);
  };
  Entities ent;
  ent.count = n;
  ent.is_entity = IsVirtual;
  ent.defs_uses = defs_uses;
  ent.conservative = [&](uint32_t i, size_t num_defs) {
    return num_defs > 1 || !extra_defs[i].empty() || !extra_uses[i].empty();
  };
  ent.wide.assign(wide.begin(), wide.end());
  ent.wide.resize(n, 0);
  uint32_t num_colors = 0;
  const std::vector<uint32_t> color = Colour(program, ent, &num_colors);
  program->num_regs = num_colors;
  // The register-count model counts on the virtual registers, which the
  // rewrite below replaces, after the loops are found on the rewritten
  // program (MarkUnrolledLoops; instructions keep their indices).
  const Program virtual_program = *program;

  // 4. Rewrite every register reference.
  auto map = [&](uint32_t r) -> uint32_t {
    if (r == kNoReg) return r;
    if (r & kConstTag) return num_colors + (r & ~kConstTag);
    return color[r];
  };
  // Per instruction: the physical registers read and written (timing
  // models' view, InstrOperands), from the virtual operands before they
  // are rewritten.
  {
    program->operands.assign(program->code.size(), {});
    program->reg_lists.clear();
    std::vector<uint32_t> defs, uses;
    auto append = [&](const std::vector<uint32_t>& regs) {
      const size_t start = program->reg_lists.size();
      auto add = [&](uint32_t r) {
        auto& list = program->reg_lists;
        if (std::find(list.begin() + start, list.end(), r) == list.end())
          list.push_back(r);
      };
      for (uint32_t v : regs) {
        add(map(v));
        if (wide[v]) add(map(v) + 1);
      }
      return static_cast<uint16_t>(program->reg_lists.size() - start);
    };
    for (uint32_t i = 0; i < program->code.size(); ++i) {
      defs_uses(i, defs, uses);
      const Instr& in = program->code[i];
      if (in.exec == ExecBranch || in.exec == ExecBranchConditional ||
          in.exec == ExecSwitch) {
        for (const auto& [first, count] : program->branches[in.aux].copies) {
          for (uint32_t c = first; c < first + count; ++c) {
            const EdgeCopy& e = program->edge_copies[c];
            if (IsVirtual(e.src)) uses.push_back(e.src);
            if (IsVirtual(e.dst)) defs.push_back(e.dst);
          }
        }
      }
      InstrOperands& o = program->operands[i];
      o.first = static_cast<uint32_t>(program->reg_lists.size());
      o.reads = append(uses);
      o.writes = append(defs);
    }
  }
  // The latency class from the opcode table.
  for (Instr& in : program->code) {
    const uint32_t ext = in.op == spv::Op::OpExtInst ? in.ext : 0;
    in.latency =
        TimingOf(in.op, ext, in.width, in.kind == ScalarKind::kFloat).latency;
    // By a constant (ConstantDivisionPipe): fixed-latency ALU or IMAD.
    if (IsIntegerDivision(in.op) && in.pipe != Pipe::kSfu) {
      in.latency = LatencyClass::kFixed;
    }
  }
  for (Instr& in : program->code) {
    in.dst = map(in.dst);
    for (uint32_t& s : in.src) s = map(s);
  }
  for (MemLeaf& leaf : program->mem_leaves) leaf.reg = map(leaf.reg);
  for (MemAccess& acc : program->mem_accesses) {
    acc.ptr_reg = map(acc.ptr_reg);
  }
  for (uint32_t& r : program->extra) r = map(r);
  // Edge copies: 64-bit registers copy both halves.
  std::vector<EdgeCopy> copies;
  std::vector<uint8_t> cyclic;
  for (BranchInfo& bi : program->branches) {
    for (auto& range : bi.copies) {
      const uint32_t first = static_cast<uint32_t>(copies.size());
      for (uint32_t c = range.first; c < range.first + range.second; ++c) {
        const EdgeCopy& e = program->edge_copies[c];
        const bool is_wide = IsVirtual(e.dst) && wide[e.dst];
        copies.push_back({map(e.dst), map(e.src)});
        if (is_wide) copies.push_back({map(e.dst) + 1, map(e.src) + 1});
      }
      const uint32_t count = static_cast<uint32_t>(copies.size()) - first;
      cyclic.resize(copies.size(), 0);
      if (count != 0) cyclic[first] = SequentializeCopies(&copies, first);
      range = {first, count};
    }
  }
  cyclic.resize(copies.size(), 0);
  program->edge_copies = std::move(copies);
  program->edge_copy_cyclic = std::move(cyclic);

  // Loads of constant-bank words at known offsets: operands in NVIDIA's
  // code (c[bank][offset]), no instruction; marked before the loops are
  // looked at (their values come from no load of a loop).
  if (!lowerer.constant_loads().empty()) {
    program->register_private.assign(program->code.size(), 0);
    for (uint32_t i : lowerer.constant_loads()) {
      if (i < program->code.size()) program->register_private[i] = 3;
    }
  }
  // Loads of Coherent or Volatile buffers: past the L1 in NVIDIA's code.
  if (!lowerer.coherent_loads().empty()) {
    program->l1_bypass.assign(program->code.size(), 0);
    for (uint32_t i : lowerer.coherent_loads()) {
      if (i < program->code.size()) program->l1_bypass[i] = 1;
    }
  }
  MarkUnrolledLoops(program);
  Entities virtual_ent = ent;
  virtual_ent.defs_uses = [&](uint32_t i, std::vector<uint32_t>& defs,
                              std::vector<uint32_t>& uses) {
    defs_uses_in(virtual_program.code, i, defs, uses);
  };
  program->model_regs =
      ModelRegisterCount(lowerer, virtual_program, virtual_ent, program->loops,
                         &program->register_private);
  std::vector<uint8_t>& moves = program->register_private;
  if (std::any_of(moves.begin(), moves.end(),
                  [](uint8_t m) { return m == 1 || m == 3; })) {
    // An access chain whose pointer nothing but those uses (or access
    // chains marked so: a[i][j] is two) computes no address there (its
    // virtual register is defined once); to a fixed point.
    std::vector<uint32_t> defs, uses;
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<uint8_t> other_use(n, 0), move_use(n, 0);
      for (uint32_t i = 0; i < virtual_program.code.size(); ++i) {
        defs_uses_in(virtual_program.code, i, defs, uses);
        for (uint32_t u : uses) {
          if (u >= n) continue;
          (i < moves.size() && moves[i] != 0 ? move_use : other_use)[u] = 1;
        }
      }
      for (const EdgeCopy& e : virtual_program.edge_copies) {
        if (e.src < n) other_use[e.src] = 1;
      }
      for (uint32_t i = 0; i < moves.size(); ++i) {
        const spv::Op op = virtual_program.code[i].op;
        if (moves[i] != 0 || (op != spv::Op::OpAccessChain &&
                              op != spv::Op::OpInBoundsAccessChain)) {
          continue;
        }
        defs_uses_in(virtual_program.code, i, defs, uses);
        const bool only_moves =
            !defs.empty() &&
            std::all_of(defs.begin(), defs.end(), [&](uint32_t d) {
              return d < n && move_use[d] && !other_use[d];
            });
        if (only_moves) {
          moves[i] = 2;
          changed = true;
        }
      }
    }
  }
  // The loops once more, now that those are known: they are no
  // instructions in NVIDIA's code, so they do not count in the body whose
  // size decides whether a loop is unrolled (UnrolledLoop::body; the
  // register-count model above needed the loops first).
  if (std::any_of(moves.begin(), moves.end(),
                  [](uint8_t m) { return m == 1 || m == 2; })) {
    MarkUnrolledLoops(program);
  }
  // Those loads, stores and access chains are moves between registers (or
  // constant operands) in NVIDIA's code.
  for (size_t i = 0; i < moves.size(); ++i) {
    if (moves[i] != 0) program->code[i].pipe = Pipe::kAlu;
  }
  return {};
}

}  // namespace warpsim::simt
