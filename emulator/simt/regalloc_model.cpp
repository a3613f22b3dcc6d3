// The register-count model: Program::model_regs, the report's
// registers_per_thread (regalloc_internal.h; AllocateRegisters in
// regalloc.cpp calls it).
//
// It is the same colouring restricted to what NVIDIA's
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
//    does), and one of any size up to 255 words when every index known only
//    at run time is in a nest of loops it unrolls completely (the indices
//    are constants in the unrolled code: E12's vec4 acc[K], H200 record
//    observe-2026-11-30); but not one of 8 words or more indexed by values
//    loaded from memory (DataIndexedRoots: a walk, a sort's stack; H200
//    record array-stages-2026-12-03). The model gives each word of such a
//    variable a colour of its own: a load reads the words it covers (every word
//    when an index is known only at run time), a store writes them. A store at
//    a run-time index, or of part of a word, only may write each word: it
//    neither ends nor starts the word's live range, so a word that nothing
//    reads afterwards takes no register there (nor does a dead store). A loaded
//    or stored register and the word it copies may share a colour, as a
//    compiler's copy coalescing lets them. A variable only ever given constants
//    is a table read from constant memory and takes none. A fragment shader's
//    outputs stay in registers from their store to the end of the shader, where
//    each word has a register of its own (NVIDIA's compiler writes a fragment's
//    outputs to fixed registers when it ends: 4 vec4 outputs hold 16). A word
//    that holds a constant wherever it is read takes its register only there,
//    at the end (ConstantOutputWords): H200, conformance corpus, the
//    frexpstruct/modfstruct fragment tests, which put vec4(0, 0, 0, 1) in 4
//    outputs before their values, report 18 to 22 registers, where holding
//    the constants from their store gave 28 to 32.
//  - Loads issued ahead. In a loop it unrolls completely (a nest of loops
//    with constant trip counts whole), NVIDIA's compiler issues the buffer
//    and image loads of every trip before their values are used, each
//    holding its result, as far as about 64 registers in a compute shader,
//    32 in a fragment shader and without a limit in a vertex shader
//    (BatchedLoads, LoadBatchRegisterLimit; H200 records
//    load-batching-2026-12-03, stage-batching-2026-12-03). The model gives
//    such a load's result one colour per trip, and counts the colouring
//    with those copies up to the limit (never below the count without
//    them).
//  - The count is taken on the module spirv-opt's -O recipe makes (the
//    runner's BuildProgram; constant propagation, dead-code elimination,
//    if-conversion, redundancy elimination, as NVIDIA's compiler applies
//    them), where that recipe and the lowering succeed.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "simt/regalloc_internal.h"

namespace warpsim::simt::regalloc_internal {
namespace {

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

// When instruction i is a branch, calls f(copy) for each of its phi copies
// and returns true; else returns false.
template <typename F>
bool ForEachEdgeCopy(const Program& program, uint32_t i, F f) {
  const Instr& in = program.code[i];
  if (in.exec != ExecBranch && in.exec != ExecBranchConditional &&
      in.exec != ExecSwitch) {
    return false;
  }
  for (const auto& [first, n] : program.branches[in.aux].copies) {
    for (uint32_t c = first; c < first + n; ++c) f(program.edge_copies[c]);
  }
  return true;
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
// the count stays within a limit that depends on the stage. H200 record
// vulkan_ref/results/h200/load-batching-2026-12-03 (compute, loops of N
// independent loads, a constant trip count): the count grows with the
// loaded words (N buffer words: 16, 16, 16, 19, 26, 42 for N = 1 .. 32)
// and flattens once they reach about 64 (one word per trip: 64 at N = 64;
// uvec4s: 67, 64, 65 at N = 16, 32, 64; rgba8 texels: 68, 72, 72), where
// nothing else in the shaders needs more than 16. With a trip count known
// only at run time the count stays at 16 (no loads hoisted across trips).
// H200 record stage-batching-2026-12-03 (the same loops in each stage):
// fragment shaders level off at about 32 (one word per trip: 32 and 34 at
// N = 32 and 64; uvec4s higher, 50 and 51, which one limit does not
// capture), vertex shaders not at all (69 at N = 64; uvec4s 136 at N = 32
// and 255, the most a thread may have, at 64).
uint32_t LoadBatchRegisterLimit(spv::ExecutionModel model) {
  switch (model) {
    case spv::ExecutionModel::Fragment:
      return 32;
    case spv::ExecutionModel::Vertex:
      return 255;
    default:
      return 64;
  }
}
// The most trips whose loads the model issues together (a copy count per
// value; the limit above bounds the registers anyway).
constexpr uint32_t kMaxBatchedTrips = 64;
// The most words of a variable indexed only by the counters of unrolled
// loops that the model holds in registers: a thread's register limit.
constexpr uint32_t kMaxUnrolledVariableWords = 255;
// The most words of a variable indexed by loaded values that the model
// holds in registers (DataIndexedRoots): H200 record
// array-stages-2026-12-03, an array walked by its own values is in
// registers at 4 words, in local memory from 8.
constexpr uint32_t kMaxDataIndexedVariableWords = 7;

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
                                  const std::vector<LoopRange>& loops) {
  std::vector<uint8_t> out(physical.count, 1);
  std::vector<uint32_t> defs, uses;
  Bits loaded(physical.count);  // values that come from a load of the loop
  auto holds = [](const LoopRange& outer, const LoopRange& inner) {
    return outer.begin <= inner.begin && inner.end <= outer.end;
  };
  for (const LoopRange& loop : loops) {
    // A nest unrolled whole, from its outermost loop.
    if (!loop.whole ||
        std::any_of(loops.begin(), loops.end(), [&](const LoopRange& o) {
          return o.whole && &o != &loop && holds(o, loop);
        })) {
      continue;
    }
    // A load's copies: the product of the trip counts of the nest's loops
    // that hold it (a loop of more than kMaxCountedTrips trips, or one
    // that never ends, is not unrolled).
    auto copies_at = [&](uint32_t i) {
      uint32_t k = 1;
      for (const LoopRange& l : loops) {
        if (holds(loop, l) && l.begin <= i && i < l.end && l.trips > 1) {
          k = std::min(k * std::min(l.trips, kMaxBatchedTrips),
                       kMaxBatchedTrips);
        }
      }
      return static_cast<uint8_t>(k);
    };
    loaded = Bits(physical.count);
    const uint32_t end = std::min<uint32_t>(loop.end, program.code.size());
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
      ForEachEdgeCopy(program, i, [&](const EdgeCopy& e) {
        if (IsVirtual(e.dst) && e.dst < physical.count) varying.Set(e.dst);
      });
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
        if (ForEachEdgeCopy(program, i, [&](const EdgeCopy& e) {
              if (IsVirtual(e.src) && e.src < physical.count &&
                  loaded.Get(e.src) && IsVirtual(e.dst) &&
                  e.dst < physical.count) {
                loaded.Set(e.dst);
              }
            })) {
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
            out[d] = std::max(out[d], copies_at(i));
          }
        }
      }
    }
  }
  return out;
}

// The variables that an access at an index known only at run time reaches
// through a value loaded from memory: a lane-private variable's data or a
// storage buffer (not an input), through the arithmetic and the phis that
// make the index. NVIDIA's compiler keeps such an array in local memory
// (H200 record array-stages-2026-12-03: an array walked by the indices it
// holds is in local memory from 8 words in every stage, where one indexed
// by the invocation and a loop counter stays in registers up to 48).
std::vector<uint8_t> DataIndexedRoots(Lowerer& lowerer, const Program& program,
                                      const Entities& physical,
                                      const std::vector<uint8_t>& data_load) {
  const auto& roots = lowerer.private_roots();
  std::vector<uint8_t> out(roots.size(), 0);
  // Per virtual register: the instructions that write it, and the phi
  // copies' sources.
  std::vector<std::vector<uint32_t>> writers(physical.count),
      phi_sources(physical.count);
  std::vector<uint32_t> defs, uses;
  for (uint32_t i = 0; i < program.code.size(); ++i) {
    if (ForEachEdgeCopy(program, i, [&](const EdgeCopy& e) {
          if (IsVirtual(e.dst) && e.dst < physical.count && IsVirtual(e.src)) {
            phi_sources[e.dst].push_back(e.src);
          }
        })) {
      continue;
    }
    physical.defs_uses(i, defs, uses);
    for (uint32_t d : defs) {
      if (d < physical.count) writers[d].push_back(i);
    }
  }
  Bits seen(physical.count);
  std::vector<uint32_t> stack;
  auto from_data = [&](uint32_t address) {
    seen = Bits(physical.count);
    stack.assign(1, address);
    while (!stack.empty()) {
      const uint32_t v = stack.back();
      stack.pop_back();
      if (!IsVirtual(v) || v >= physical.count || seen.Get(v)) continue;
      seen.Set(v);
      for (uint32_t i : writers[v]) {
        if (data_load[i]) return true;
        physical.defs_uses(i, defs, uses);
        stack.insert(stack.end(), uses.begin(), uses.end());
      }
      stack.insert(stack.end(), phi_sources[v].begin(), phi_sources[v].end());
    }
    return false;
  };
  for (const PrivateAccess& a : lowerer.private_accesses()) {
    if (a.known || out[a.root] || a.instr >= program.code.size()) continue;
    if (from_data(program.code[a.instr].src[0])) out[a.root] = 1;
  }
  return out;
}

}  // namespace

uint32_t ModelRegisterCount(Lowerer& lowerer, const Program& program,
                            const Entities& physical,
                            const std::vector<LoopRange>& loops,
                            std::vector<uint8_t>* register_private) {
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
  // A variable indexed at run time only inside nests of constant loops
  // (by their counters, once the compiler unrolls them) has constant
  // indices in the unrolled code: it is held in registers whatever its
  // size, up to the most a thread may have (H200 record
  // observe-2026-11-30, E12: vec4 acc[K] written and read only in loops
  // of K trips, 27 to 238 registers for K = 1 to 56).
  std::vector<uint8_t> unrolled_index(roots.size(), 1);
  for (const PrivateAccess& a : lowerer.private_accesses()) {
    if (a.known) continue;
    const bool in_nest =
        std::any_of(loops.begin(), loops.end(), [&](const LoopRange& l) {
          return l.whole && l.trips > 0 && l.begin <= a.instr &&
                 a.instr < l.end;
        });
    if (!in_nest) unrolled_index[a.root] = 0;
  }
  std::vector<uint8_t> buffer_load(program.code.size(), 0);
  for (uint32_t i : lowerer.buffer_loads()) {
    if (i < buffer_load.size()) buffer_load[i] = 1;
  }
  // Loads of data: storage buffers and lane-private variables (not inputs).
  std::vector<uint8_t> data_load(buffer_load);
  for (const PrivateAccess& a : lowerer.private_accesses()) {
    const spv::StorageClass sc = roots[a.root].storage;
    if (!a.store && a.instr < data_load.size() &&
        (sc == spv::StorageClass::Function ||
         sc == spv::StorageClass::Private)) {
      data_load[a.instr] = 1;
    }
  }
  const std::vector<uint8_t> data_indexed =
      DataIndexedRoots(lowerer, program, physical, data_load);
  uint32_t count = physical.count;
  for (size_t r = 0; r < roots.size(); ++r) {
    const PrivateRoot& root = roots[r];
    const uint32_t words = (root.bytes + 3) / 4;
    const uint32_t most = unrolled_index[r] ? kMaxUnrolledVariableWords
                          : data_indexed[r] ? kMaxDataIndexedVariableWords
                                            : kMaxRegisterVariableWords;
    if (root.opaque || words == 0 || words > most ||
        (root.storage == spv::StorageClass::Output && !fragment) ||
        (root.storage != spv::StorageClass::Output && !variable_data[r])) {
      continue;
    }
    first_word[r] = count;
    words_of[r] = words;
    count += words;
  }
  // The loads and stores of the variables held in registers are moves
  // between registers in NVIDIA's code, not memory accesses.
  // (Constant-bank loads, 3, are marked already.)
  register_private->resize(program.code.size(), 0);
  for (const PrivateAccess& a : lowerer.private_accesses()) {
    if (first_word[a.root] != kNoReg && a.instr < register_private->size()) {
      (*register_private)[a.instr] = 1;
    }
  }

  const bool any_in_memory =
      std::find(in_memory.begin(), in_memory.end(), 1) != in_memory.end();
  std::vector<uint8_t> private_access(program.code.size(), 0);
  for (const PrivateAccess& a : lowerer.private_accesses()) {
    if (a.instr < private_access.size()) private_access[a.instr] = 1;
  }
  // Loads of a variable in local memory (too large for registers) whose
  // values the compiler cannot know where they are read, because a loop it
  // does not unroll completely writes it at an index known only at run
  // time, are issued ahead as
  // buffer loads are. H200 records stage-batching-2026-12-03 and
  // array-stages-2026-12-03: after a loop that stores at run-time indices
  // (array_stages.py's walk family) the loads of the array's words count as
  // buffer loads do; after the stores of a fill loop and one store at a
  // run-time index outside any loop (stage_batching.py's local family) the
  // count stays at 16, the loads' values forwarded from the stores.
  std::vector<uint8_t> local_data(roots.size(), 0);
  for (const PrivateAccess& a : lowerer.private_accesses()) {
    if (!a.store || a.known) continue;
    for (const LoopRange& l : loops) {
      if (!l.constant && a.instr >= l.begin && a.instr < l.end) {
        local_data[a.root] = 1;
      }
    }
  }
  for (const PrivateAccess& a : lowerer.private_accesses()) {
    const PrivateRoot& root = roots[a.root];
    if (!a.store && a.instr < buffer_load.size() &&
        first_word[a.root] == kNoReg && local_data[a.root] && !root.opaque &&
        root.storage != spv::StorageClass::Output &&
        root.storage != spv::StorageClass::Input) {
      buffer_load[a.instr] = 1;
    }
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
    used = std::max(
        used, std::min(colours_used(), LoadBatchRegisterLimit(program.model)));
  }
  // At the return every output word is in its own register, constants too.
  return std::max(used, static_cast<uint32_t>(output_words.size()));
}

}  // namespace warpsim::simt::regalloc_internal
