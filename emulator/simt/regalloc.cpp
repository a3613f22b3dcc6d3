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
// The register-count model (Program::model_regs, the report's
// registers_per_thread) is the same colouring restricted to what NVIDIA's
// compiler keeps in registers. The executor holds every SSA value in
// registers, but the real compiler does not:
//  - Large aggregates live in local memory. An aggregate with an array in
//    it and more than kMaxRegisterAggregateWords (64) 32-bit components
//    that the shader keeps in a variable (legalization's SSA rewrite turns
//    such a Function/Private variable into phis, piecewise-built composites
//    and whole loads; Lowerer::MarkLargeAggregate) is held in local memory
//    and read element by element, so its components take no registers in
//    the count. Evidence (H200, conformance corpus): the graphicsfuzz
//    shaders that carry 256-element arrays this way report 16 to 38
//    registers where colouring the arrays gave 259 to 267. An aggregate
//    loaded from a buffer and stored again (the SPIR-V 1.4 OpCopyLogical
//    tests) is not marked: NVIDIA copies it through registers, the loads
//    issued together, and reports 255 for a 256-float copy. The threshold
//    lies between the largest such values seen in registers and the
//    smallest seen in memory; 64 is a quarter of the 255-register limit.
//  - Small lane-private variables live in registers. The executor keeps
//    a Function or Private variable that legalization could not turn into
//    SSA values (an array indexed at run time, say) in lane-private
//    memory; NVIDIA's compiler holds one of up to kMaxRegisterVariableWords
//    (48) words in registers (H200 record array-registers-2026-12-01: an
//    array of 48 floats indexed at run time uses no local memory, one of 64
//    does). The model gives each word of such a variable a colour of its
//    own: a load reads the words it covers (every word when an index is
//    known only at run time), a store writes them. A store at a run-time
//    index, or of part of a word, only may write each word: it neither
//    ends nor starts the word's live range, so a word that nothing reads
//    afterwards takes no register there (nor does a dead store). A loaded or
//    stored register and the word it copies may share a colour, as a compiler's
//    copy coalescing lets them. A variable only ever given constants is a table
//    read from constant memory and takes none. A fragment shader's outputs stay
//    in registers from their store to the end of the shader, where each word
//    has a register of its own (NVIDIA's compiler writes a fragment's outputs
//    to fixed registers when it ends: 4 vec4 outputs hold 16). A word that
//    holds a constant wherever it is read takes its register only there, at
//    the end (ConstantOutputWords): H200, conformance corpus, the
//    frexpstruct/modfstruct fragment tests, which put vec4(0, 0, 0, 1) in 4
//    outputs before their values, report 18 to 22 registers, where holding
//    the constants from their store gave 28 to 32.
//  - Loads issued ahead. In a loop it unrolls completely, NVIDIA's compiler
//    issues the buffer and image loads of every trip before their values
//    are used, each holding its result, as far as about 64 registers
//    (BatchedLoads, kLoadBatchRegisterLimit; H200 record
//    load-batching-2026-12-03). The model gives such a load's result one
//    colour per trip, and counts the colouring with those copies up to
//    the limit (never below the count without them).
//  - The count is taken on the module spirv-opt's -O recipe makes (the
//    runner's BuildProgram; constant propagation, dead-code elimination,
//    if-conversion, redundancy elimination, as NVIDIA's compiler applies
//    them), where that recipe and the lowering succeed.
// Registers are only renumbered for the count: the executor's program and
// results do not change.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "simt/lower.h"

namespace warpsim::simt {
namespace {

// A simple dynamic bitset over virtual registers.
class Bits {
 public:
  explicit Bits(size_t n = 0) : w_((n + 63) / 64, 0) {}
  void Set(uint32_t i) { w_[i >> 6] |= 1ull << (i & 63); }
  void Clear(uint32_t i) { w_[i >> 6] &= ~(1ull << (i & 63)); }
  bool Get(uint32_t i) const { return (w_[i >> 6] >> (i & 63)) & 1; }
  bool OrWith(const Bits& o) {
    bool changed = false;
    for (size_t k = 0; k < w_.size(); ++k) {
      const uint64_t n = w_[k] | o.w_[k];
      changed |= n != w_[k];
      w_[k] = n;
    }
    return changed;
  }
  template <typename F>
  void ForEach(F f) const {
    for (size_t k = 0; k < w_.size(); ++k) {
      for (uint64_t m = w_[k]; m != 0; m &= m - 1) {
        f(static_cast<uint32_t>(k * 64 + __builtin_ctzll(m)));
      }
    }
  }
  bool operator==(const Bits& o) const { return w_ == o.w_; }

 private:
  std::vector<uint64_t> w_;
};

bool IsVirtual(uint32_t r) { return r != kNoReg && (r & kConstTag) == 0; }

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

// What a colouring runs over: `count` entities (virtual registers, and for
// the register-count model also promoted memory words), which register
// operands are entities, and each instruction's defs and uses of them.
struct Entities {
  uint32_t count = 0;
  std::function<bool(uint32_t)> is_entity;
  std::function<void(uint32_t, std::vector<uint32_t>&, std::vector<uint32_t>&)>
      defs_uses;
  // Instructions whose defs also stay apart from their uses (step 2), given
  // the number of entities the instruction defines.
  std::function<bool(uint32_t, size_t)> conservative;
  std::vector<uint8_t> wide;  // per entity: takes an aligned pair
  // Optional, per entity: it takes this many times its colours (copies of
  // it live at once: the loads of a loop's later trips, issued before
  // this trip's value is used). Empty: once each.
  std::vector<uint8_t> copies_live;
  // Optional: def `d` of instruction `i` is a copy of entity `v`, so the two
  // need not differ there (Chaitin's rule for moves).
  std::function<bool(uint32_t i, uint32_t d, uint32_t v)> copy;
  // Optional, per entity: entities whose colour it takes when it can.
  std::vector<std::vector<uint32_t>> hints;
  // Optional: the entities instruction `i` may or may not write (a store
  // at an index known only at run time). Such a write neither ends nor
  // starts a live range: an entity live after it was live before it.
  std::function<void(uint32_t i, std::vector<uint32_t>&)> may_defs;
  // Optional: entities whose writes are dropped where nothing reads them
  // afterwards (dead stores to a variable), so they interfere with nothing
  // there.
  std::function<bool(uint32_t)> dead_def_free;
};

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

// Calls f(word, whole, leaf) for each 32-bit word of its variable that the
// private access `a` (at a known offset) covers, word < `words`: `whole`
// when the leaf covers the word entirely.
template <typename F>
void ForEachLeafWord(const Program& program, const PrivateAccess& a,
                     uint32_t words, F f) {
  const MemAccess& acc = program.mem_accesses[program.code[a.instr].aux];
  for (uint32_t k = 0; k < acc.leaf_count; ++k) {
    const MemLeaf& leaf = program.mem_leaves[acc.first_leaf + k];
    const uint64_t off = uint64_t{a.offset} + leaf.offset;
    const uint64_t first = off / 4;
    const uint64_t last = (off + std::max<uint32_t>(leaf.bytes, 1) - 1) / 4;
    const bool whole = off % 4 == 0 && leaf.bytes % 4 == 0;
    for (uint64_t w = first; w <= last && w < words; ++w) {
      f(static_cast<uint32_t>(w), whole, leaf);
    }
  }
}

// Which reads of a fragment shader's output words the register-count model
// leaves out because the word holds a constant there. NVIDIA's compiler
// writes a fragment's outputs into fixed registers when the shader ends; an
// output given a constant is set there, not held from its store on. Forward
// dataflow over the blocks finds, per output word, whether a value that is
// not a constant may have reached it (an unwritten word holds none). Where
// none has, a load of the word gives a constant and the return reads no
// register for it: both reads are left out, and the constant's store, which
// nothing then reads, is a dead store (it takes no register).
struct ConstantOutputs {
  // (instruction, word entity) pairs of the reads left out, sorted.
  std::vector<std::pair<uint32_t, uint32_t>> drop;
  bool dropped(uint32_t instr, uint32_t word) const {
    return std::binary_search(drop.begin(), drop.end(),
                              std::pair<uint32_t, uint32_t>{instr, word});
  }
};

ConstantOutputs ConstantOutputWords(Lowerer& lowerer, const Program& program,
                                    const std::vector<uint32_t>& first_word,
                                    const std::vector<uint32_t>& words_of) {
  const auto& roots = lowerer.private_roots();
  // The output words get local indices 0..m-1.
  std::vector<uint32_t> local_first(roots.size(), kNoReg);
  std::vector<uint32_t> entity_of;
  for (size_t r = 0; r < roots.size(); ++r) {
    if (first_word[r] == kNoReg ||
        roots[r].storage != spv::StorageClass::Output) {
      continue;
    }
    local_first[r] = static_cast<uint32_t>(entity_of.size());
    for (uint32_t w = 0; w < words_of[r]; ++w) {
      entity_of.push_back(first_word[r] + w);
    }
  }
  ConstantOutputs out;
  const uint32_t m = static_cast<uint32_t>(entity_of.size());
  if (m == 0) return out;
  // What each instruction does to the output words: a whole-word store of a
  // constant at a known place (kConstant: the word holds a constant after
  // it), a store that may leave a value (kValue), a read (kLoad). A
  // constant stored at a run-time index changes nothing here.
  enum Kind : uint8_t { kConstant, kValue, kLoad };
  struct Effect {
    uint32_t word;  // local index
    Kind kind;
  };
  const size_t ninstr = program.code.size();
  std::vector<std::vector<Effect>> effects(ninstr);
  for (const PrivateAccess& a : lowerer.private_accesses()) {
    if (local_first[a.root] == kNoReg) continue;
    auto& eff = effects[a.instr];
    const uint32_t base = local_first[a.root];
    if (!a.known) {
      if (a.store && a.constant_data) continue;
      for (uint32_t w = 0; w < words_of[a.root]; ++w) {
        eff.push_back({base + w, a.store ? kValue : kLoad});
      }
      continue;
    }
    ForEachLeafWord(program, a, words_of[a.root],
                    [&](uint32_t w, bool whole, const MemLeaf& leaf) {
                      const uint32_t word = base + w;
                      if (!a.store) {
                        eff.push_back({word, kLoad});
                      } else if ((leaf.reg & kConstTag) != 0) {
                        // Part of a word keeps the rest of it: no change.
                        if (whole) eff.push_back({word, kConstant});
                      } else {
                        eff.push_back({word, kValue});
                      }
                    });
  }
  const size_t nblocks = program.blocks.size();
  auto block_end = [&](size_t b) {
    return b + 1 < nblocks ? program.blocks[b + 1].first_instr
                           : static_cast<uint32_t>(ninstr);
  };
  // Runs block b from the words `valued` on entry; `at` sees the state
  // before each instruction.
  auto run_block = [&](size_t b, Bits valued, auto&& at) {
    for (uint32_t i = program.blocks[b].first_instr; i < block_end(b); ++i) {
      at(i, valued);
      for (const Effect& e : effects[i]) {
        if (e.kind == kValue) valued.Set(e.word);
        if (e.kind == kConstant) valued.Clear(e.word);
      }
    }
    return valued;
  };
  auto successors = [&](size_t b) -> const std::vector<uint32_t>* {
    const Instr& term = program.code[block_end(b) - 1];
    if (term.exec == ExecBranch || term.exec == ExecBranchConditional ||
        term.exec == ExecSwitch) {
      return &program.branches[term.aux].targets;
    }
    return nullptr;
  };
  std::vector<Bits> valued_in(nblocks, Bits(m));
  std::vector<uint8_t> reached(nblocks, 0);
  if (nblocks > 0) reached[0] = 1;
  const auto nothing = [](uint32_t, const Bits&) {};
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 0; b < nblocks; ++b) {
      if (!reached[b]) continue;
      const Bits after = run_block(b, valued_in[b], nothing);
      if (const auto* succ = successors(b)) {
        for (uint32_t t : *succ) {
          const bool first = !reached[t];
          reached[t] = 1;
          if (valued_in[t].OrWith(after) || first) changed = true;
        }
      }
    }
  }
  for (size_t b = 0; b < nblocks; ++b) {
    run_block(b, valued_in[b], [&](uint32_t i, const Bits& valued) {
      const bool ret = program.code[i].op == spv::Op::OpReturn;
      for (uint32_t w = 0; w < m; ++w) {
        if (valued.Get(w)) continue;
        bool read = ret;
        for (const Effect& e : effects[i])
          read |= e.word == w && e.kind == kLoad;
        if (read) out.drop.push_back({i, entity_of[w]});
      }
    });
  }
  std::sort(out.drop.begin(), out.drop.end());
  return out;
}

// The register-count model: the same colouring over the virtual registers
// NVIDIA's compiler would keep in registers, and the words of the
// lane-private variables it would keep there too (see the top of the file).
// The register count NVIDIA's compiler keeps for the loads it hoists
// (BatchedLoads): it issues the loads of a completely unrolled loop's trips
// together, each holding its result in registers until used, as far as
// the count stays within about this many. H200 record
// vulkan_ref/results/h200/load-batching-2026-12-03 (loops of N independent
// loads, a constant trip count): the count grows with the loaded words
// (N buffer words: 16, 16, 16, 19, 26, 42 for N = 1 .. 32) and flattens
// once they reach about 64 (one word per trip: 64 at N = 64; uvec4s: 67,
// 64, 65 at N = 16, 32, 64; rgba8 texels: 68, 72, 72), where nothing
// else in the shaders needs more than 16. With a trip count known only at
// run time the count stays at 16 (no loads hoisted across trips).
constexpr uint32_t kLoadBatchRegisterLimit = 64;
// The most trips whose loads the model issues together (a copy count per
// value; the limit above bounds the registers anyway).
constexpr uint32_t kMaxBatchedTrips = 64;

// Per virtual register of `program`: how many copies of it are live at
// once because it is the result of a load the compiler hoists across the
// trips of a completely unrolled loop (1: none). A load qualifies when it
// reads a storage buffer (`buffer_load`) or a storage image (OpImageRead;
// texture sampling was not measured): not lane-private
// memory (whose words the model holds in registers; inputs, which the
// GPU interpolates; tables of constants) nor a uniform buffer (read from
// the constant banks),
// its address does not come from another load of the same loop (a chase
// cannot be issued ahead) but changes from trip to trip (a load of the
// same address each trip is hoisted out of the loop, once), and the loop
// writes no memory. H200, conformance
// corpus: the determinant and inverse tests, whose loops of 10 trips load a
// matrix from a buffer and store its result to another, report 20 to 38
// registers, their loads not hoisted across the stores.
std::vector<uint8_t> BatchedLoads(const Program& program,
                                  const Entities& physical,
                                  const std::vector<uint8_t>& private_access,
                                  const std::vector<uint8_t>& buffer_load,
                                  const std::vector<UnrolledLoop>& loops) {
  std::vector<uint8_t> out(physical.count, 1);
  std::vector<uint32_t> defs, uses;
  Bits loaded(physical.count);  // values that come from a load of the loop
  for (const UnrolledLoop& loop : loops) {
    if (!loop.full || loop.trips < 2) continue;
    const uint8_t copies =
        static_cast<uint8_t>(std::min(loop.trips, kMaxBatchedTrips));
    loaded = Bits(physical.count);
    const uint32_t end = std::min<uint32_t>(loop.merge_pc, program.code.size());
    // A loop that writes memory (other than lane-private words), or waits
    // at a barrier, keeps its loads in their trips: a later trip's load
    // may read what an earlier trip wrote.
    bool writes = false;
    for (uint32_t i = loop.begin; i < end; ++i) {
      const Instr& in = program.code[i];
      if ((in.pipe == Pipe::kLsu && in.op != spv::Op::OpLoad &&
           !private_access[i]) ||
          in.pipe == Pipe::kSync || in.op == spv::Op::OpImageWrite) {
        writes = true;
      }
    }
    if (writes) continue;
    // What changes from trip to trip: the values the back edge carries
    // (phi copies) and what is computed from them. A load at an address
    // that does not change is the same load every trip: the compiler
    // hoists it out of the loop once.
    Bits varying(physical.count);
    for (uint32_t i = loop.begin; i < end; ++i) {
      const Instr& in = program.code[i];
      if (in.exec != ExecBranch && in.exec != ExecBranchConditional &&
          in.exec != ExecSwitch) {
        continue;
      }
      for (const auto& [first, n] : program.branches[in.aux].copies) {
        for (uint32_t c = first; c < first + n; ++c) {
          const uint32_t d = program.edge_copies[c].dst;
          if (IsVirtual(d) && d < physical.count) varying.Set(d);
        }
      }
    }
    for (int pass = 0; pass < 2; ++pass) {
      for (uint32_t i = loop.begin; i < end; ++i) {
        physical.defs_uses(i, defs, uses);
        const bool varies = std::any_of(
            uses.begin(), uses.end(),
            [&](uint32_t u) { return u < physical.count && varying.Get(u); });
        if (!varies) continue;
        for (uint32_t d : defs) {
          if (d < physical.count) varying.Set(d);
        }
      }
    }
    // What comes from a load of the loop, also through the back edge (two
    // passes); then which loads qualify.
    for (int pass = 0; pass < 3; ++pass) {
      for (uint32_t i = loop.begin; i < end; ++i) {
        const Instr& in = program.code[i];
        if (in.exec == ExecBranch || in.exec == ExecBranchConditional ||
            in.exec == ExecSwitch) {
          for (const auto& [first, n] : program.branches[in.aux].copies) {
            for (uint32_t c = first; c < first + n; ++c) {
              const EdgeCopy& e = program.edge_copies[c];
              if (IsVirtual(e.src) && e.src < physical.count &&
                  loaded.Get(e.src) && IsVirtual(e.dst) &&
                  e.dst < physical.count) {
                loaded.Set(e.dst);
              }
            }
          }
          continue;
        }
        physical.defs_uses(i, defs, uses);
        const bool moves = std::any_of(
            uses.begin(), uses.end(),
            [&](uint32_t u) { return u < physical.count && varying.Get(u); });
        const bool from_load = std::any_of(
            uses.begin(), uses.end(),
            [&](uint32_t u) { return u < physical.count && loaded.Get(u); });
        const bool load = (in.op == spv::Op::OpLoad && buffer_load[i]) ||
                          (in.op == spv::Op::OpImageRead && !defs.empty());
        for (uint32_t d : defs) {
          if (d >= physical.count) continue;
          if (load || from_load) loaded.Set(d);
          if (pass == 2 && load && moves && !from_load) {
            out[d] = std::max(out[d], copies);
          }
        }
      }
    }
  }
  return out;
}

uint32_t ModelRegisterCount(Lowerer& lowerer, const Program& program,
                            const Entities& physical,
                            const std::vector<UnrolledLoop>& loops) {
  const auto& in_memory = lowerer.vreg_in_memory();
  const auto& roots = lowerer.private_roots();
  const bool fragment = program.model == spv::ExecutionModel::Fragment;
  // The variables held in registers get entities physical.count on, one
  // per 32-bit word.
  std::vector<uint32_t> first_word(roots.size(), kNoReg);
  std::vector<uint32_t> words_of(roots.size(), 0);
  // A variable only ever given constants is a table of constants, read
  // from constant memory.
  std::vector<uint8_t> variable_data(roots.size(), 0);
  for (const PrivateAccess& a : lowerer.private_accesses()) {
    if (a.store && !a.constant_data) variable_data[a.root] = 1;
  }
  uint32_t count = physical.count;
  for (size_t r = 0; r < roots.size(); ++r) {
    const PrivateRoot& root = roots[r];
    const uint32_t words = (root.bytes + 3) / 4;
    if (root.opaque || words == 0 || words > kMaxRegisterVariableWords ||
        (root.storage == spv::StorageClass::Output && !fragment) ||
        (root.storage != spv::StorageClass::Output && !variable_data[r])) {
      continue;
    }
    first_word[r] = count;
    words_of[r] = words;
    count += words;
  }

  const bool any_in_memory =
      std::find(in_memory.begin(), in_memory.end(), 1) != in_memory.end();
  std::vector<uint8_t> private_access(program.code.size(), 0);
  for (const PrivateAccess& a : lowerer.private_accesses()) {
    if (a.instr < private_access.size()) private_access[a.instr] = 1;
  }
  std::vector<uint8_t> buffer_load(program.code.size(), 0);
  for (uint32_t i : lowerer.buffer_loads()) {
    if (i < buffer_load.size()) buffer_load[i] = 1;
  }
  std::vector<uint8_t> batched =
      BatchedLoads(program, physical, private_access, buffer_load, loops);
  for (uint32_t v = 0; v < batched.size(); ++v) {
    if (in_memory[v]) batched[v] = 1;
  }
  const bool any_batched = std::any_of(batched.begin(), batched.end(),
                                       [](uint8_t k) { return k > 1; });
  if (!any_in_memory && count == physical.count && !any_batched) {
    return program.num_regs;
  }

  // Per instruction: the words it writes and reads, and which loaded or
  // stored register is a copy of which word.
  const size_t ninstr = program.code.size();
  std::vector<std::vector<uint32_t>> wdefs(ninstr), wuses(ninstr),
      wmaydefs(ninstr);
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> copies(ninstr);
  std::vector<std::vector<uint32_t>> hints(count);
  auto all_words = [&](uint32_t r, std::vector<uint32_t>& out) {
    for (uint32_t w = 0; w < words_of[r]; ++w) out.push_back(first_word[r] + w);
  };
  // Fragment outputs whose value is a constant wherever they are read (by a
  // load, or at the return) take no register until the end: see
  // ConstantOutputWords.
  const ConstantOutputs constant_outputs =
      fragment ? ConstantOutputWords(lowerer, program, first_word, words_of)
               : ConstantOutputs{};
  for (const PrivateAccess& a : lowerer.private_accesses()) {
    if (first_word[a.root] == kNoReg) continue;
    const uint32_t i = a.instr;
    if (!a.known) {
      // An index known only at run time: any word of the variable.
      all_words(a.root, a.store ? wmaydefs[i] : wuses[i]);
      continue;
    }
    ForEachLeafWord(program, a, words_of[a.root],
                    [&](uint32_t w, bool whole, const MemLeaf& leaf) {
                      const uint32_t e = first_word[a.root] + w;
                      if (constant_outputs.dropped(i, e)) return;
                      if (a.store) {
                        // A store of part of a word keeps the rest of it.
                        (whole ? wdefs[i] : wmaydefs[i]).push_back(e);
                      } else {
                        wuses[i].push_back(e);
                      }
                      if (whole && leaf.bytes == 4 && IsVirtual(leaf.reg) &&
                          !in_memory[leaf.reg]) {
                        copies[i].push_back({leaf.reg, e});
                        hints[e].push_back(leaf.reg);
                      }
                    });
  }
  // A fragment shader's outputs are read when it returns.
  std::vector<uint32_t> output_words;
  for (size_t r = 0; r < roots.size(); ++r) {
    if (first_word[r] != kNoReg &&
        roots[r].storage == spv::StorageClass::Output) {
      all_words(static_cast<uint32_t>(r), output_words);
    }
  }
  if (!output_words.empty()) {
    for (size_t i = 0; i < ninstr; ++i) {
      if (program.code[i].op == spv::Op::OpReturn) {
        for (uint32_t e : output_words) {
          if (!constant_outputs.dropped(static_cast<uint32_t>(i), e)) {
            wuses[i].push_back(e);
          }
        }
      }
    }
  }

  Entities ent = physical;
  ent.count = count;
  ent.is_entity = [&](uint32_t r) {
    return r < physical.count && IsVirtual(r) && !in_memory[r];
  };
  auto physical_part = [&](uint32_t i, std::vector<uint32_t>& defs,
                           std::vector<uint32_t>& uses) {
    physical.defs_uses(i, defs, uses);
    std::erase_if(defs, [&](uint32_t r) { return in_memory[r] != 0; });
    std::erase_if(uses, [&](uint32_t r) { return in_memory[r] != 0; });
  };
  ent.defs_uses = [&](uint32_t i, std::vector<uint32_t>& defs,
                      std::vector<uint32_t>& uses) {
    physical_part(i, defs, uses);
    defs.insert(defs.end(), wdefs[i].begin(), wdefs[i].end());
    uses.insert(uses.end(), wuses[i].begin(), wuses[i].end());
  };
  ent.conservative = [&](uint32_t i, size_t num_defs) {
    return physical.conservative(i, num_defs - wdefs[i].size());
  };
  ent.copy = [&](uint32_t i, uint32_t d, uint32_t v) {
    for (const auto& [reg, word] : copies[i]) {
      if ((d == reg && v == word) || (d == word && v == reg)) return true;
    }
    return false;
  };
  ent.may_defs = [&](uint32_t i, std::vector<uint32_t>& out) {
    out.insert(out.end(), wmaydefs[i].begin(), wmaydefs[i].end());
  };
  ent.dead_def_free = [&](uint32_t e) { return e >= physical.count; };
  ent.wide.resize(count, 0);
  ent.hints = std::move(hints);
  // Registers in local memory interfere with nothing; they must not widen
  // the count by taking a colour of their own either.
  auto colours_used = [&]() {
    uint32_t num_colors = 0;
    const std::vector<uint32_t> color = Colour(&program, ent, &num_colors);
    uint32_t used = 0;
    for (uint32_t v = 0; v < ent.count; ++v) {
      if (v < physical.count && in_memory[v]) continue;
      if (color[v] == kNoReg) continue;
      const uint32_t k = ent.copies_live.empty() ? 1u : ent.copies_live[v];
      used = std::max(used, color[v] + (ent.wide[v] ? 2u : 1u) * k);
    }
    return used;
  };
  uint32_t used = colours_used();
  if (any_batched) {
    // The hoisted loads' results on top, as far as the compiler's limit.
    ent.copies_live.assign(count, 1);
    std::copy(batched.begin(), batched.end(), ent.copies_live.begin());
    used = std::max(used, std::min(colours_used(), kLoadBatchRegisterLimit));
  }
  // At the return every output word is in its own register, constants too.
  return std::max(used, static_cast<uint32_t>(output_words.size()));
}

}  // namespace

Status AllocateRegisters(Lowerer& lowerer, Program* program) {
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

  MarkUnrolledLoops(program);
  Entities virtual_ent = ent;
  virtual_ent.defs_uses = [&](uint32_t i, std::vector<uint32_t>& defs,
                              std::vector<uint32_t>& uses) {
    defs_uses_in(virtual_program.code, i, defs, uses);
  };
  program->model_regs = ModelRegisterCount(
      lowerer, virtual_program, virtual_ent, program->unrolled_loops);
  return {};
}

}  // namespace warpsim::simt
