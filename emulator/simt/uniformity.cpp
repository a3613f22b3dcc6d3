// The uniformity analysis (uniformity.h).
//
// A fixed point over the function: each sweep evaluates every instruction
// from what is known of its operands, marks the lane-private variables that
// divergent stores reach, and takes in each conditional branch whose
// condition turned out divergent: the blocks reachable from it before its
// immediate post-dominator run under divergent control (their stores make
// variables divergent), the blocks that two of its successors reach are
// joins (their phis are divergent), and when the branch lies on a cycle
// inside that region (a loop lanes leave on different trips) the values
// computed there are divergent where they are used outside it. Facts only
// ever go from uniform to divergent, so the sweeps end.
#include "simt/uniformity.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "simt/opcode_info.h"

namespace warpsim::simt {
namespace {

using spv::Op;

// Built-ins every invocation of one warp shares.
bool UniformBuiltIn(spv::BuiltIn b) {
  switch (b) {
    case spv::BuiltIn::WorkgroupId:
    case spv::BuiltIn::NumWorkgroups:
    case spv::BuiltIn::WorkgroupSize:
    case spv::BuiltIn::SubgroupId:
    case spv::BuiltIn::SubgroupSize:
    case spv::BuiltIn::NumSubgroups:
    case spv::BuiltIn::DrawIndex:
    case spv::BuiltIn::BaseVertex:
    case spv::BuiltIn::BaseInstance:
    case spv::BuiltIn::ViewIndex:
    case spv::BuiltIn::DeviceIndex:
      return true;
    default:
      return false;
  }
}

bool LanePrivate(spv::StorageClass sc) {
  return sc == spv::StorageClass::Function ||
         sc == spv::StorageClass::Private || sc == spv::StorageClass::Output;
}

// Operations whose result every active lane of the warp shares, whatever
// their operands.
bool SharedResult(const spirv::Inst& inst) {
  switch (inst.opcode) {
    case Op::OpGroupNonUniformAll:
    case Op::OpGroupNonUniformAny:
    case Op::OpGroupNonUniformAllEqual:
    case Op::OpGroupNonUniformBroadcast:
    case Op::OpGroupNonUniformBroadcastFirst:
    case Op::OpGroupNonUniformBallot:
    case Op::OpSubgroupBallotKHR:
    case Op::OpSubgroupFirstInvocationKHR:
    case Op::OpSubgroupReadInvocationKHR:
    case Op::OpSubgroupAllKHR:
    case Op::OpSubgroupAnyKHR:
    case Op::OpSubgroupAllEqualKHR:
      return true;
    default:
      return false;
  }
}

// Operations with a GroupOperation operand (operands[1]): a reduction's
// result every active lane shares; a scan's or a clustered reduction's
// differs by lane.
bool HasGroupOperation(Op op) {
  return (op >= Op::OpGroupNonUniformIAdd &&
          op <= Op::OpGroupNonUniformLogicalXor) ||
         op == Op::OpGroupNonUniformBallotBitCount;
}

// Results that differ by lane whatever the operands (an atomic's too).
bool LaneSource(Op op) {
  if (IsAtomic(op)) return true;
  switch (op) {
    case Op::OpAtomicCompareExchangeWeak:  // (no IsAtomic of its own)
    case Op::OpGroupNonUniformElect:
    case Op::OpGroupNonUniformInverseBallot:
    case Op::OpIsHelperInvocationEXT:
    case Op::OpReadClockKHR:
    case Op::OpFunctionCall:
      return true;
    default:
      return false;
  }
}

// The operands of `inst` that are ids of values, as [first, last) indices
// into inst.operands; literals before or after them are left out where the
// instruction has them (an id that is not a value reads as uniform, so
// counting a literal as an id is only ever conservative).
std::pair<size_t, size_t> ValueOperands(const spirv::Inst& inst) {
  const size_t n = inst.operands.size();
  switch (inst.opcode) {
    case Op::OpCompositeExtract:
      return {0, std::min<size_t>(n, 1)};
    case Op::OpCompositeInsert:
    case Op::OpVectorShuffle:
      return {0, std::min<size_t>(n, 2)};
    case Op::OpExtInst:
      return {std::min<size_t>(n, 2), n};  // set id, instruction number
    case Op::OpLoad:
      return {0, std::min<size_t>(n, 1)};  // the memory operands after it
    default:
      return {0, n};
  }
}

class Analysis {
 public:
  Analysis(const spirv::Module& module, const spirv::Function& fn)
      : module_(module), fn_(fn), divergent_(module.bound(), 0) {}

  std::vector<uint8_t> Run() {
    Index();
    PostDominators();
    bool changed = true;
    while (changed) {
      changed = false;
      for (uint32_t b = 0; b < blocks(); ++b) {
        for (const spirv::Inst& inst : fn_.blocks[b].insts) {
          changed |= Evaluate(inst, b);
        }
      }
      for (uint32_t b = 0; b < blocks(); ++b) {
        const spirv::Inst& t = fn_.blocks[b].terminator;
        const bool conditional =
            t.opcode == Op::OpBranchConditional || t.opcode == Op::OpSwitch;
        if (conditional && !t.operands.empty() && !taken_[b] &&
            Divergent(t.operands[0], b)) {
          taken_[b] = 1;
          TakeDivergentBranch(b);
          changed = true;
        }
      }
    }
    return std::move(divergent_);
  }

 private:
  uint32_t blocks() const { return static_cast<uint32_t>(fn_.blocks.size()); }

  void Index() {
    const uint32_t n = blocks();
    std::unordered_map<uint32_t, uint32_t>& by_label = by_label_;
    for (uint32_t b = 0; b < n; ++b) by_label[fn_.blocks[b].label] = b;
    for (const spirv::Variable& g : module_.globals()) roots_[g.id] = g.id;
    for (const spirv::Inst& v : fn_.variables)
      roots_[v.result_id] = v.result_id;
    for (const spirv::Block& block : fn_.blocks) {
      for (const spirv::Inst& inst : block.insts) {
        if (inst.result_id != 0 && inst.result_type != 0) {
          result_types_[inst.result_id] = inst.result_type;
        }
      }
    }
    succ_.assign(n, {});
    pred_.assign(n, {});
    returns_.assign(n, 0);
    auto edge = [&](uint32_t from, uint32_t label) {
      auto it = by_label.find(label);
      if (it == by_label.end()) return;
      if (std::find(succ_[from].begin(), succ_[from].end(), it->second) ==
          succ_[from].end()) {
        succ_[from].push_back(it->second);
        pred_[it->second].push_back(from);
      }
    };
    for (uint32_t b = 0; b < n; ++b) {
      const spirv::Inst& t = fn_.blocks[b].terminator;
      switch (t.opcode) {
        case Op::OpBranch:
          if (!t.operands.empty()) edge(b, t.operands[0]);
          break;
        case Op::OpBranchConditional:
          for (size_t k = 1; k < 3 && k < t.operands.size(); ++k) {
            edge(b, t.operands[k]);
          }
          break;
        case Op::OpSwitch: {
          if (t.operands.size() >= 2) edge(b, t.operands[1]);
          // Case literals are one or two words, each pair ends in a label:
          // a selector of 64 bits has two-word literals.
          const uint32_t sel_type =
              ResultType(t.operands.empty() ? 0 : t.operands[0]);
          const size_t lit =
              sel_type != 0 && module_.type(sel_type).width == 64 ? 2 : 1;
          for (size_t i = 2 + lit; i < t.operands.size(); i += lit + 1) {
            edge(b, t.operands[i]);
          }
          break;
        }
        case Op::OpReturn:
        case Op::OpReturnValue:
          returns_[b] = 1;
          break;
        default:
          break;  // kill, terminate, unreachable: the lanes leave for good
      }
    }
    def_block_.assign(module_.bound(), kNone);
    for (uint32_t b = 0; b < n; ++b) {
      for (const spirv::Inst& inst : fn_.blocks[b].insts) {
        if (inst.result_id != 0 && inst.result_id < def_block_.size()) {
          def_block_[inst.result_id] = b;
        }
      }
    }
    taken_.assign(n, 0);
    divergent_control_.assign(n, 0);
    join_.assign(n, 0);
    block_regions_.assign(n, {});
  }

  uint32_t ResultType(uint32_t id) const {
    auto it = result_types_.find(id);
    if (it != result_types_.end()) return it->second;
    return 0;
  }

  // Immediate post-dominators (Cooper, Harvey and Kennedy's iteration over
  // the reversed graph, whose root is a virtual exit that every returning
  // block reaches). Blocks that never return (they kill, or loop forever)
  // have none: kNone.
  void PostDominators() {
    const uint32_t n = blocks();
    const uint32_t exit = n;
    // Postorder of the reversed graph from the exit.
    std::vector<uint32_t> order;
    std::vector<uint8_t> seen(n + 1, 0);
    std::vector<std::pair<uint32_t, size_t>> stack;
    std::vector<uint32_t> roots;
    for (uint32_t b = 0; b < n; ++b) {
      if (returns_[b]) roots.push_back(b);
    }
    seen[exit] = 1;
    for (uint32_t r : roots) {
      if (seen[r]) continue;
      seen[r] = 1;
      stack.push_back({r, 0});
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        if (next < pred_[node].size()) {
          const uint32_t p = pred_[node][next++];
          if (!seen[p]) {
            seen[p] = 1;
            stack.push_back({p, 0});
          }
        } else {
          order.push_back(node);
          stack.pop_back();
        }
      }
    }
    order.push_back(exit);
    std::vector<uint32_t> number(n + 1, kNone);
    for (uint32_t i = 0; i < order.size(); ++i) number[order[i]] = i;
    std::vector<uint32_t> idom(n + 1, kNone);
    idom[exit] = exit;
    auto intersect = [&](uint32_t a, uint32_t b) {
      while (a != b) {
        while (number[a] < number[b]) a = idom[a];
        while (number[b] < number[a]) b = idom[b];
      }
      return a;
    };
    bool changed = true;
    while (changed) {
      changed = false;
      // Reverse postorder, the exit (last) first and skipped.
      for (size_t i = order.size() - 1; i-- > 0;) {
        const uint32_t b = order[i];
        uint32_t pick = kNone;
        if (returns_[b]) pick = exit;
        for (uint32_t s : succ_[b]) {
          if (idom[s] == kNone) continue;
          pick = pick == kNone ? s : intersect(s, pick);
        }
        if (pick != kNone && idom[b] != pick) {
          idom[b] = pick;
          changed = true;
        }
      }
    }
    ipdom_.assign(n, kNone);
    for (uint32_t b = 0; b < n; ++b) {
      ipdom_[b] = idom[b] == exit ? kExit : idom[b];
    }
  }

  // Whether `id`, used in block `use`, may differ between lanes: it is
  // divergent, or computed in a region a divergent loop exit leaves that
  // `use` is outside of.
  bool Divergent(uint32_t id, uint32_t use) const {
    if (id >= divergent_.size()) return false;
    if (divergent_[id]) return true;
    const uint32_t d = def_block_[id];
    if (d == kNone) return false;
    for (uint32_t r : block_regions_[d]) {
      if (!regions_[r][use]) return true;
    }
    return false;
  }

  // The variable a pointer points into (0: not known, as for a pointer a
  // phi, a select or a load made).
  uint32_t Root(uint32_t pointer) const {
    auto it = roots_.find(pointer);
    return it == roots_.end() ? 0 : it->second;
  }

  bool Mark(uint32_t id) {
    if (id == 0 || id >= divergent_.size() || divergent_[id]) return false;
    divergent_[id] = 1;
    return true;
  }

  bool MarkVariable(uint32_t root) {
    if (root == 0) {
      if (all_private_divergent_) return false;
      all_private_divergent_ = true;
      return true;
    }
    return private_divergent_.insert(root).second;
  }

  spv::StorageClass PointerStorage(uint32_t pointer) const {
    if (const spirv::Variable* g = module_.global(pointer)) return g->storage;
    const uint32_t type = ResultType(pointer);
    if (type == 0) return spv::StorageClass::Max;
    const spirv::Type& t = module_.type(type);
    return t.kind == spirv::TypeKind::kPointer ? t.storage
                                               : spv::StorageClass::Max;
  }

  // A load's value: the address's, the lane's input's, or the variable's.
  bool LoadDivergent(uint32_t pointer, uint32_t block) const {
    if (Divergent(pointer, block)) return true;
    const uint32_t root = Root(pointer);
    const uint32_t base = root != 0 ? root : pointer;
    const spv::StorageClass sc = PointerStorage(base);
    if (sc == spv::StorageClass::Input) {
      const auto b = module_.DecorationValue(base, spv::Decoration::BuiltIn);
      return !(b && UniformBuiltIn(static_cast<spv::BuiltIn>(*b)));
    }
    if (LanePrivate(sc) || sc == spv::StorageClass::Max) {
      return all_private_divergent_ || root == 0 ||
             private_divergent_.count(root) != 0;
    }
    return false;  // memory the lanes share, at an address they share
  }

  // Evaluates one instruction of block `b`; true when something changed.
  bool Evaluate(const spirv::Inst& inst, uint32_t b) {
    const std::vector<uint32_t>& ops = inst.operands;
    bool changed = false;
    switch (inst.opcode) {
      case Op::OpAccessChain:
      case Op::OpInBoundsAccessChain:
      case Op::OpPtrAccessChain:
      case Op::OpInBoundsPtrAccessChain:
      case Op::OpCopyObject:
        if (!ops.empty() && roots_.count(inst.result_id) == 0) {
          if (const uint32_t root = Root(ops[0]); root != 0) {
            roots_[inst.result_id] = root;
            changed = true;
          }
        }
        break;
      case Op::OpStore:
      case Op::OpCopyMemory:
      case Op::OpCopyMemorySized: {
        if (ops.size() < 2) return false;
        const uint32_t target = ops[0];
        const spv::StorageClass sc = PointerStorage(RootOrSelf(target));
        if (!LanePrivate(sc) && sc != spv::StorageClass::Max) return false;
        const bool value = inst.opcode == Op::OpStore
                               ? Divergent(ops[1], b)
                               : LoadDivergent(ops[1], b);
        if (value || divergent_control_[b] || Divergent(target, b)) {
          return MarkVariable(Root(target));
        }
        return false;
      }
      default:
        break;
    }
    if (inst.result_id == 0 || divergent_[inst.result_id]) return changed;
    return (Decide(inst, b) && Mark(inst.result_id)) || changed;
  }

  uint32_t RootOrSelf(uint32_t pointer) const {
    const uint32_t root = Root(pointer);
    return root != 0 ? root : pointer;
  }

  // Whether the result of `inst` (in block `b`) is divergent.
  bool Decide(const spirv::Inst& inst, uint32_t b) const {
    const std::vector<uint32_t>& ops = inst.operands;
    if (LaneSource(inst.opcode)) return true;
    if (SharedResult(inst)) return false;
    if (HasGroupOperation(inst.opcode)) {
      return ops.size() < 2 || static_cast<spv::GroupOperation>(ops[1]) !=
                                   spv::GroupOperation::Reduce;
    }
    switch (inst.opcode) {
      case Op::OpPhi: {
        if (join_[b]) return true;
        for (size_t k = 0; k + 1 < ops.size(); k += 2) {
          // The value is used at the end of its incoming block.
          const uint32_t from = DefBlockOfLabel(ops[k + 1]);
          if (Divergent(ops[k], from == kNone ? b : from)) return true;
        }
        return false;
      }
      case Op::OpLoad:
        return ops.empty() || LoadDivergent(ops[0], b);
      case Op::OpUndef:
        return false;
      default:
        break;
    }
    const auto [first, last] = ValueOperands(inst);
    for (size_t k = first; k < last; ++k) {
      if (Divergent(ops[k], b)) return true;
    }
    return false;
  }

  uint32_t DefBlockOfLabel(uint32_t label) const {
    auto it = by_label_.find(label);
    return it == by_label_.end() ? kNone : it->second;
  }

  // A divergent conditional branch at block `h`.
  void TakeDivergentBranch(uint32_t h) {
    const uint32_t n = blocks();
    const uint32_t stop = ipdom_[h];  // kNone / kExit: no block stops it
    // The region: blocks reachable from h's successors before `stop`.
    std::vector<uint8_t> region(n, 0);
    std::vector<uint8_t> reached_by(n, 0);  // how many successors reach it
    for (uint32_t s : succ_[h]) {
      std::vector<uint8_t> seen(n, 0);
      std::vector<uint32_t> work{s};
      seen[s] = 1;
      while (!work.empty()) {
        const uint32_t x = work.back();
        work.pop_back();
        if (reached_by[x] < 2) ++reached_by[x];
        if (x == stop) continue;
        region[x] = 1;
        for (uint32_t y : succ_[x]) {
          if (!seen[y]) {
            seen[y] = 1;
            work.push_back(y);
          }
        }
      }
    }
    for (uint32_t x = 0; x < n; ++x) {
      if (region[x]) divergent_control_[x] = 1;
      if (reached_by[x] >= 2) join_[x] = 1;
    }
    // On a cycle inside its region: a loop lanes leave on different trips.
    if (region[h]) {
      const uint32_t r = static_cast<uint32_t>(regions_.size());
      regions_.push_back(region);
      for (uint32_t x = 0; x < n; ++x) {
        if (region[x]) block_regions_[x].push_back(r);
      }
    }
  }

  static constexpr uint32_t kNone = 0xffffffffu;
  static constexpr uint32_t kExit = 0xfffffffeu;

  const spirv::Module& module_;
  const spirv::Function& fn_;
  std::vector<uint8_t> divergent_;
  std::vector<std::vector<uint32_t>> succ_, pred_;
  std::vector<uint8_t> returns_;
  std::vector<uint32_t> ipdom_;
  std::vector<uint32_t> def_block_;
  std::vector<uint8_t> taken_;
  std::vector<uint8_t> divergent_control_;
  std::vector<uint8_t> join_;
  std::vector<std::vector<uint8_t>> regions_;
  std::vector<std::vector<uint32_t>> block_regions_;
  std::unordered_map<uint32_t, uint32_t> by_label_;
  std::unordered_map<uint32_t, uint32_t> roots_;
  std::unordered_map<uint32_t, uint32_t> result_types_;
  std::unordered_set<uint32_t> private_divergent_;
  bool all_private_divergent_ = false;
};

}  // namespace

std::vector<uint8_t> DivergentValues(const spirv::Module& module,
                                     const spirv::Function& fn) {
  return Analysis(module, fn).Run();
}

}  // namespace warpsim::simt
