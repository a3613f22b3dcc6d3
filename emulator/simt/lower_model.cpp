// What the lowering records for the models of NVIDIA's code, beside the
// program the executor runs: the register-count model's view of aggregates
// and lane-private variables (regalloc_model.cpp), and the branches NVIDIA's
// code has no instruction for (the timing model's Program::layout_free).
#include <algorithm>
#include <map>
#include <vector>

#include "simt/lower.h"

namespace warpsim::simt {

using spirv::TypeKind;

void Lowerer::MarkLargeAggregate(const Val& value) {
  if (value.regs.size() <= kMaxRegisterAggregateWords) return;
  // Only aggregates with an array in them: a large struct of scalars is
  // what scalar replacement splits into independent values.
  bool has_array = false;
  std::vector<uint32_t> work{value.type_id};
  while (!work.empty() && !has_array) {
    const spirv::Type& t = module_.type(work.back());
    work.pop_back();
    if (t.kind == TypeKind::kArray) has_array = true;
    if (t.kind == TypeKind::kStruct) {
      work.insert(work.end(), t.members.begin(), t.members.end());
    }
  }
  if (!has_array) return;
  vreg_in_memory_.resize(vreg_wide_.size(), 0);
  for (uint32_t r : value.regs) {
    if (r != kNoReg && (r & kConstTag) == 0) vreg_in_memory_[r] = 1;
  }
}

uint32_t Lowerer::AddPrivateRoot(spv::StorageClass storage, uint32_t offset,
                                 uint32_t bytes) {
  private_roots_.push_back({storage, offset, bytes, false});
  return static_cast<uint32_t>(private_roots_.size());
}

namespace {
bool HasRoots(spv::StorageClass s) {
  return s == spv::StorageClass::Function || s == spv::StorageClass::Private ||
         s == spv::StorageClass::Output;
}
}  // namespace

void Lowerer::NoteOpaqueAccess(const PointerInfo& info) {
  if (!HasRoots(info.storage)) return;
  if (info.root != 0) {
    private_roots_[info.root - 1].opaque = true;
    return;
  }
  // Not known which variable: any of that storage class.
  for (PrivateRoot& r : private_roots_) {
    if (r.storage == info.storage ||
        (info.storage != spv::StorageClass::Output &&
         r.storage != spv::StorageClass::Output)) {
      r.opaque = true;
    }
  }
}

void Lowerer::NotePrivateAccess(const PointerInfo& info, bool store,
                                const std::vector<uint32_t>& stored) {
  if (!HasRoots(info.storage)) return;
  if (info.root == 0) {
    NoteOpaqueAccess(info);
    return;
  }
  PrivateAccess a;
  a.instr = static_cast<uint32_t>(program_->code.size() - 1);
  a.root = info.root - 1;
  a.store = store;
  a.known = info.root_known;
  a.offset = info.root_offset;
  a.constant_data =
      store && std::all_of(stored.begin(), stored.end(), [](uint32_t r) {
        return r == kNoReg || (r & kConstTag) != 0;
      });
  private_accesses_.push_back(a);
}

void MarkRedundant(Program* p) {
  p->redundant.assign(p->code.size(), 0);
  // Local value numbering: per register, the number of the value it holds;
  // a computation is keyed by what it does and the numbers of the values
  // it reads, and one that repeats a computation of its block gets that
  // computation's value (so a repeat of a repeat is found too).
  const size_t nregs = p->num_regs + p->const_values.size();
  std::vector<uint64_t> value(nregs);
  for (size_t r = 0; r < nregs; ++r) value[r] = r;
  uint64_t next_value = nregs;
  std::map<std::vector<uint64_t>, uint64_t> seen;  // key -> value, per block
  size_t block = 0;
  for (uint32_t i = 0; i < p->code.size() && i < p->operands.size(); ++i) {
    while (block < p->blocks.size() && p->blocks[block].first_instr <= i) {
      seen.clear();  // a new block
      ++block;
    }
    const Instr& in = p->code[i];
    const InstrOperands& o = p->operands[i];
    const uint32_t* reads = p->reg_lists.data() + o.first;
    const uint32_t* writes = reads + o.reads;
    const bool pure = in.pipe == Pipe::kFma || in.pipe == Pipe::kAlu ||
                      in.pipe == Pipe::kSfu || in.pipe == Pipe::kFp64;
    if (pure && o.writes == 1 && writes[0] < nregs) {
      std::vector<uint64_t> key = {static_cast<uint64_t>(in.op), in.ext,
                                   static_cast<uint64_t>(in.kind), in.width,
                                   in.aux};
      for (uint32_t s : in.src) {
        key.push_back(s == kNoReg ? ~uint64_t{0}
                      : s < nregs ? value[s]
                                  : ~uint64_t{1});
      }
      for (uint32_t k = 0; k < o.reads; ++k) {
        key.push_back(reads[k] < nregs ? value[reads[k]] : ~uint64_t{1});
      }
      auto [it, inserted] = seen.emplace(std::move(key), next_value);
      if (inserted) {
        value[writes[0]] = next_value++;
      } else {
        p->redundant[i] = 1;
        value[writes[0]] = it->second;
      }
      continue;
    }
    for (uint32_t k = 0; k < o.writes; ++k) {
      if (writes[k] < nregs) value[writes[k]] = next_value++;
    }
  }
}

namespace {

// Whether `in` multiplies, adds or subtracts one float register and
// constants (no other register): a link of a constant chain.
bool ConstantChainLink(const Program& p, const Instr& in) {
  if (in.pipe != Pipe::kFma || in.kind != ScalarKind::kFloat ||
      in.width != 32 || in.dst == kNoReg ||
      (in.op != spv::Op::OpFMul && in.op != spv::Op::OpFAdd &&
       in.op != spv::Op::OpFSub)) {
    return false;
  }
  uint32_t registers = 0;
  for (uint32_t s : in.src) {
    if (s != kNoReg && s < p.num_regs) ++registers;
  }
  return registers == 1;
}

}  // namespace

void MarkFoldedChains(Program* p) {
  p->folded.assign(p->code.size(), 0);
  // Per register: the link of a chain that wrote it last, if nothing has
  // read it since (kNoReg: none).
  std::vector<uint32_t> tail(p->num_regs, kNoReg);
  size_t block = 0;
  for (uint32_t i = 0; i < p->code.size() && i < p->operands.size(); ++i) {
    while (block < p->blocks.size() && p->blocks[block].first_instr <= i) {
      std::fill(tail.begin(), tail.end(), kNoReg);  // a new block
      ++block;
    }
    const Instr& in = p->code[i];
    const InstrOperands& o = p->operands[i];
    const uint32_t* reads = p->reg_lists.data() + o.first;
    const uint32_t* writes = reads + o.reads;
    const bool repeat = i < p->redundant.size() && p->redundant[i] != 0;
    const bool link = !repeat && o.writes == 1 && ConstantChainLink(*p, in);
    if (link && o.reads == 1 && reads[0] < p->num_regs &&
        tail[reads[0]] != kNoReg && writes[0] == reads[0]) {
      // It continues the chain in place: folded, unless it is the add
      // fused with the chain's first multiply (already no slot of its own).
      const uint32_t prev = tail[reads[0]];
      const bool fused_to_first =
          prev + 1 == i && p->folded[prev] == 0 && FusedPair(p->code[prev], in);
      if (!fused_to_first) p->folded[i] = 1;
    }
    for (uint32_t k = 0; k < o.reads; ++k) {
      if (reads[k] < p->num_regs) tail[reads[k]] = kNoReg;
    }
    for (uint32_t k = 0; k < o.writes; ++k) {
      if (writes[k] < p->num_regs) tail[writes[k]] = kNoReg;
    }
    if (link && o.reads == 1 && writes[0] < p->num_regs) tail[writes[0]] = i;
  }
}

void MarkLayoutFreeBranches(Program* p) {
  p->layout_free.assign(p->code.size(), 0);
  const size_t nblocks = p->blocks.size();
  for (size_t b = 0; b < nblocks; ++b) {
    const uint32_t end = b + 1 < nblocks
                             ? p->blocks[b + 1].first_instr
                             : static_cast<uint32_t>(p->code.size());
    if (end == p->blocks[b].first_instr) continue;
    const Instr& t = p->code[end - 1];
    if (t.exec != ExecBranch || t.aux >= p->branches.size() ||
        p->branches[t.aux].targets.empty()) {
      continue;
    }
    const uint32_t target = p->branches[t.aux].targets[0];
    if (target >= nblocks) continue;
    const BlockInfo& tb = p->blocks[target];
    const bool fall_through = tb.first_instr == end;
    const bool back_edge = target <= b && tb.continue_block != kNoBlock;
    if (fall_through || back_edge) p->layout_free[end - 1] = 1;
  }
}

}  // namespace warpsim::simt

namespace warpsim::simt {

namespace {

// Whether every target of the branch `in` lies in the blocks first_block
// up to end_block or is `merge`: a branch that stays in a selection's side.
bool StaysInSide(const Program& p, const Instr& in, uint32_t first_block,
                 uint32_t end_block, uint32_t merge) {
  if (in.aux >= p.branches.size()) return false;
  for (uint32_t t : p.branches[in.aux].targets) {
    if (t != merge && (t < first_block || t >= end_block)) return false;
  }
  return true;
}

// What a predicated side writes besides its instructions' registers: the
// words of variables held in registers it stores, by constant address
// (pointer << 32 | offset), and how many it stores through a computed
// address (each counted).
struct SideWrites {
  std::vector<uint64_t> words;
  uint32_t loose = 0;
};

// Appends to *out the instructions of [begin, end) that NVIDIA's code
// would issue if it predicated them (each loop in it that the compiler
// unrolls completely once per trip); false when the range holds anything
// else: memory accesses, barriers, atomics, returns, nested selections,
// loops with a trip count not known at compile time, an exit from the
// range other than to `merge` (its merge block) or a discard, or more than
// PredicatedSelection::kMaxInstructions instructions. Adds to *writes
// the variables' words it stores.
bool CollectPredicated(const Program& p, uint32_t begin, uint32_t end,
                       uint32_t first_block, uint32_t end_block, uint32_t merge,
                       std::vector<uint32_t>* out, SideWrites* writes) {
  auto flag = [](const std::vector<uint8_t>& v, uint32_t pc) {
    return pc < v.size() && v[pc] != 0;
  };
  for (uint32_t pc = begin; pc < end; ++pc) {
    const Instr& in = p.code[pc];
    const uint32_t tag = pc < p.loop_control.size() ? p.loop_control[pc] : 0;
    const bool full_control = tag != 0 && tag <= p.unrolled_loops.size() &&
                              p.unrolled_loops[tag - 1].full;
    if (in.exec == ExecBranch || in.exec == ExecBranchConditional ||
        in.exec == ExecSwitch) {
      if (in.exec != ExecBranch && !full_control) return false;
      if (!StaysInSide(p, in, first_block, end_block, merge)) return false;
      continue;  // no instruction of predicated code
    }
    // A discard: NVIDIA's code predicates a KILL (or EXIT) as any other
    // instruction.
    const bool discard = in.op == spv::Op::OpKill ||
                         in.op == spv::Op::OpTerminateInvocation ||
                         in.op == spv::Op::OpDemoteToHelperInvocation;
    if (!discard && (in.pipe == Pipe::kBranch || in.pipe == Pipe::kSync ||
                     IsAtomic(in.op))) {
      return false;  // returns, barriers, calls, subgroup operations
    }
    if (in.pipe == Pipe::kNone) continue;  // no issue slot
    const bool free_move = flag(p.register_private, pc);
    if ((in.pipe == Pipe::kLsu || in.pipe == Pipe::kTex) && !free_move) {
      return false;
    }
    // Once per trip of every loop around it in the range, each unrolled
    // completely.
    uint32_t times = 1;
    for (const LoopRange& loop : p.loops) {
      if (loop.begin < begin || loop.end > end || pc < loop.begin ||
          pc >= loop.end) {
        continue;
      }
      if (!loop.constant || loop.trips == 0) return false;
      times *= loop.trips;
      if (times > PredicatedSelection::kMaxInstructions) return false;
    }
    if (free_move && in.op == spv::Op::OpStore &&
        in.aux < p.mem_accesses.size()) {
      // A variable held in registers: the words it stores are registers
      // the side writes, the same ones where its address is a constant.
      const MemAccess& a = p.mem_accesses[in.aux];
      for (uint32_t k = 0; k < a.leaf_count; ++k) {
        const MemLeaf& leaf = p.mem_leaves[a.first_leaf + k];
        if (a.ptr_reg != kNoReg && a.ptr_reg >= p.num_regs &&
            a.ptr_reg - p.num_regs < p.const_values.size()) {
          writes->words.push_back(
              uint64_t{p.const_values[a.ptr_reg - p.num_regs]} << 32 |
              leaf.offset);
        } else {
          writes->loose += times;
        }
      }
    }
    if (free_move || full_control || flag(p.layout_free, pc) ||
        flag(p.redundant, pc) || flag(p.folded, pc)) {
      continue;
    }
    if (out->size() + times > PredicatedSelection::kMaxInstructions) {
      return false;
    }
    out->insert(out->end(), times, pc);
  }
  return true;
}

// Whether every path from [begin, end) (the blocks first_block up to
// end_block) stays in the range or goes to `merge`: no return, discard
// or branch out of the construct (a loop's break or continue).
bool ReachesMerge(const Program& p, uint32_t begin, uint32_t end,
                  uint32_t first_block, uint32_t end_block, uint32_t merge) {
  for (uint32_t pc = begin; pc < end; ++pc) {
    const Instr& in = p.code[pc];
    const spv::Op op = in.op;
    if (op == spv::Op::OpReturn || op == spv::Op::OpReturnValue ||
        op == spv::Op::OpKill || op == spv::Op::OpTerminateInvocation ||
        op == spv::Op::OpUnreachable) {
      return false;
    }
    if ((in.exec == ExecBranch || in.exec == ExecBranchConditional ||
         in.exec == ExecSwitch) &&
        !StaysInSide(p, in, first_block, end_block, merge)) {
      return false;
    }
  }
  return true;
}

}  // namespace

void MarkPredicated(Program* p) {
  p->predicated_selections.clear();
  p->predicated.clear();
  p->selection_branches.clear();
  const uint32_t nblocks = static_cast<uint32_t>(p->blocks.size());
  const uint32_t ncode = static_cast<uint32_t>(p->code.size());
  auto first = [&](uint32_t b) {
    return b < nblocks ? p->blocks[b].first_instr : ncode;
  };
  for (uint32_t h = 0; h < nblocks; ++h) {
    const BlockInfo& hb = p->blocks[h];
    const uint32_t merge = hb.merge_block;
    // Selection headers (a loop header's merge is the loop's).
    if (merge == kNoBlock || hb.continue_block != kNoBlock || merge <= h ||
        merge >= nblocks) {
      continue;
    }
    const uint32_t end = first(h + 1);
    if (end == hb.first_instr) continue;
    const Instr& br = p->code[end - 1];
    if (br.exec != ExecBranchConditional || br.aux >= p->branches.size()) {
      continue;
    }
    const std::vector<uint32_t>& targets = p->branches[br.aux].targets;
    if (targets.size() != 2) continue;
    // A reconvergence barrier where both sides come back to the merge
    // (cuda_ref's E29 measured one around such a body).
    bool rejoin = true;
    for (int k = 0; k < 2 && rejoin; ++k) {
      const uint32_t t = targets[k];
      const uint32_t other = targets[1 - k];
      if (t == merge) continue;
      const uint32_t stop = other > t && other < merge ? other : merge;
      rejoin = t > h && t < merge &&
               ReachesMerge(*p, first(t), first(stop), t, stop, merge);
    }
    const bool uniform = end - 1 < p->uniform_branches.size() &&
                         p->uniform_branches[end - 1] != 0;
    if (rejoin && !uniform) {
      if (p->selection_branches.empty()) {
        p->selection_branches.assign(ncode, 0);
      }
      p->selection_branches[end - 1] = 1;
    }
    PredicatedSelection sel;
    sel.branch = end - 1;
    SideWrites stored;
    bool ok = true;
    for (int k = 0; k < 2 && ok; ++k) {
      const uint32_t t = targets[k];
      const uint32_t other = targets[1 - k];
      if (t == merge) continue;
      if (t <= h || t > merge) {
        ok = false;
        break;
      }
      // A side's blocks: from its target to the other side's or the merge.
      const uint32_t stop = other > t && other < merge ? other : merge;
      ok = CollectPredicated(*p, first(t), first(stop), t, stop, merge,
                             &sel.side[k], &stored);
    }
    if (!ok || sel.size() == 0 ||
        sel.size() > PredicatedSelection::kMaxInstructions) {
      continue;
    }
    std::vector<uint32_t> written;
    for (const std::vector<uint32_t>& side : sel.side) {
      for (uint32_t pc : side) {
        if (pc >= p->operands.size()) continue;
        const InstrOperands& o = p->operands[pc];
        const uint32_t* w = p->reg_lists.data() + o.first + o.reads;
        written.insert(written.end(), w, w + o.writes);
      }
    }
    std::sort(written.begin(), written.end());
    std::sort(stored.words.begin(), stored.words.end());
    // (Values held in variables pass through the registers of the
    // instructions that compute them: the more of the two counts.)
    sel.written = std::max(
        static_cast<uint32_t>(std::unique(written.begin(), written.end()) -
                              written.begin()),
        static_cast<uint32_t>(
            std::unique(stored.words.begin(), stored.words.end()) -
            stored.words.begin()) +
            stored.loose);
    for (uint32_t b = h + 1; b < merge && !sel.holds_loop; ++b) {
      sel.holds_loop = p->blocks[b].continue_block != kNoBlock;
    }
    if (p->predicated.empty()) p->predicated.assign(ncode, 0);
    p->predicated_selections.push_back(std::move(sel));
    p->predicated[end - 1] =
        static_cast<uint32_t>(p->predicated_selections.size());
  }
}

}  // namespace warpsim::simt
