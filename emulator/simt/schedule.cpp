// The block scheduling of schedule.h.
#include "simt/schedule.h"

#include <algorithm>
#include <unordered_map>

#include "simt/lower.h"
#include "simt/opcode_info.h"

namespace warpsim::simt {
namespace {

bool IsVirtualReg(uint32_t r) { return r != kNoReg && (r & kConstTag) == 0; }

// What an instruction is to the scheduler.
enum class Kind : uint8_t {
  kPure,   // registers in, registers out
  kLoad,   // reads memory
  kStore,  // writes memory (stores, atomics, image writes)
  kFence,  // anything else with an effect outside its registers
};

Kind KindOf(const Instr& in, bool writes_registers) {
  const spv::Op op = in.op;
  if (IsAtomic(op)) return Kind::kStore;
  if (OnlyReadsMemory(op)) return Kind::kLoad;
  switch (op) {
    case spv::Op::OpStore:
    case spv::Op::OpCopyMemory:
    case spv::Op::OpCopyMemorySized:
    case spv::Op::OpImageWrite:
      return Kind::kStore;
    case spv::Op::OpReadClockKHR:
    case spv::Op::OpDemoteToHelperInvocation:
    case spv::Op::OpControlBarrier:
    case spv::Op::OpMemoryBarrier:
    case spv::Op::OpBeginInvocationInterlockEXT:
    case spv::Op::OpEndInvocationInterlockEXT:
      return Kind::kFence;
    default:
      break;
  }
  switch (in.pipe) {
    case Pipe::kLsu:
    case Pipe::kTex:
      return writes_registers ? Kind::kLoad : Kind::kStore;
    case Pipe::kBranch:
    case Pipe::kSync:
      return Kind::kFence;
    case Pipe::kNone:
      return Kind::kPure;
    default:
      // An instruction that writes no register has some other effect.
      return writes_registers ? Kind::kPure : Kind::kFence;
  }
}

// The cycles the scheduler expects a result to take, as a compiler knows
// them from published figures, not from this project's measurements (the
// GPU config's are the timing model's): REFERENCE §0 fact 4, the Hopper
// latency ladder (dependent FFMA 4, shared memory about 29, an L1 hit
// about 40), and §2.2, Accel-Sim's tuned H100 model (DP 8, SFU 23, TEX
// 200). A lane-private variable's load is a register's (regalloc_model.cpp
// holds small ones in registers).
constexpr uint32_t kArithmeticLatency = 4;
constexpr uint32_t kFp64Latency = 8;
constexpr uint32_t kSfuLatency = 23;
constexpr uint32_t kSharedLatency = 29;
constexpr uint32_t kL1Latency = 40;
constexpr uint32_t kTextureLatency = 200;

uint32_t LatencyOf(const Instr& in, Kind kind, uint8_t mem_class) {
  if (kind == Kind::kLoad) {
    if (in.pipe == Pipe::kTex) return kTextureLatency;
    switch (mem_class) {
      case Lowerer::kMemPrivate:
        return kArithmeticLatency;
      case Lowerer::kMemWorkgroup:
        return kSharedLatency;
      default:
        return kL1Latency;
    }
  }
  switch (in.pipe) {
    case Pipe::kNone:
      return 0;
    case Pipe::kSfu:
      return kSfuLatency;
    case Pipe::kFp64:
      return kFp64Latency;
    default:
      return kArithmeticLatency;
  }
}

struct Edge {
  uint32_t from;
  bool raw;  // reads the result (else: only ordered after it)
};

// The scheduled order of the instructions [first, last) of one block
// (its terminator excluded), as indices in Program::code.
std::vector<uint32_t> ScheduleBlock(const Lowerer& l, const Program& p,
                                    uint32_t first, uint32_t last) {
  const uint32_t n = last - first;
  std::vector<uint32_t> out(n);
  for (uint32_t k = 0; k < n; ++k) out[k] = first + k;
  if (n < 2 || n > kMaxScheduledBlock) return out;

  std::vector<std::vector<uint32_t>> reads(n), writes(n);
  std::vector<Kind> kind(n);
  std::vector<uint32_t> lat(n);
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t i = first + k;
    const Instr& in = p.code[i];
    if (IsVirtualReg(in.dst)) writes[k].push_back(in.dst);
    for (uint32_t d : l.extra_defs()[i]) {
      if (IsVirtualReg(d)) writes[k].push_back(d);
    }
    for (uint32_t s : in.src) {
      if (IsVirtualReg(s)) reads[k].push_back(s);
    }
    for (uint32_t u : l.extra_uses()[i]) {
      if (IsVirtualReg(u)) reads[k].push_back(u);
    }
    kind[k] = KindOf(in, !writes[k].empty());
    lat[k] = LatencyOf(in, kind[k], l.mem_class()[i]);
  }

  // Dependences, each from an earlier instruction.
  std::vector<std::vector<Edge>> preds(n);
  std::unordered_map<uint32_t, uint32_t> last_writer;
  std::unordered_map<uint32_t, std::vector<uint32_t>> readers;
  constexpr int kClasses = 3;  // private, workgroup, global
  int last_store[kClasses] = {-1, -1, -1};
  std::vector<uint32_t> loads_since[kClasses];
  int last_fence = -1;
  std::vector<uint32_t> since_fence;
  for (uint32_t k = 0; k < n; ++k) {
    auto& pk = preds[k];
    for (uint32_t r : reads[k]) {
      if (auto it = last_writer.find(r); it != last_writer.end()) {
        pk.push_back({it->second, true});
      }
      readers[r].push_back(k);
    }
    for (uint32_t r : writes[k]) {
      if (auto it = last_writer.find(r); it != last_writer.end()) {
        pk.push_back({it->second, false});
      }
      auto& rs = readers[r];
      for (uint32_t q : rs) {
        if (q != k) pk.push_back({q, false});
      }
      rs.clear();
      last_writer[r] = k;
    }
    if (kind[k] == Kind::kLoad || kind[k] == Kind::kStore) {
      const uint8_t mc = l.mem_class()[first + k];
      int lo = 0, hi = kClasses;  // unknown memory: every class
      if (mc != Lowerer::kMemUnknown) {
        lo = mc - Lowerer::kMemPrivate;
        hi = lo + 1;
      }
      for (int c = lo; c < hi; ++c) {
        if (last_store[c] >= 0) {
          pk.push_back({static_cast<uint32_t>(last_store[c]), false});
        }
        if (kind[k] == Kind::kLoad) {
          loads_since[c].push_back(k);
        } else {
          for (uint32_t q : loads_since[c]) pk.push_back({q, false});
          loads_since[c].clear();
          last_store[c] = static_cast<int>(k);
        }
      }
    }
    if (kind[k] == Kind::kFence) {
      for (uint32_t q : since_fence) pk.push_back({q, false});
      since_fence.clear();
      if (last_fence >= 0)
        pk.push_back({static_cast<uint32_t>(last_fence), false});
      last_fence = static_cast<int>(k);
    } else {
      if (last_fence >= 0)
        pk.push_back({static_cast<uint32_t>(last_fence), false});
      since_fence.push_back(k);
    }
  }

  // Pairs the timing model fuses stay together: instruction k with k - 1
  // when k - 1 begins such a pair and k reads its only result.
  std::vector<uint8_t> glued(n, 0);
  for (uint32_t k = 1; k < n; ++k) {
    const Instr& a = p.code[first + k - 1];
    const Instr& b = p.code[first + k];
    if (glued[k - 1] || !BeginsPair(a.op) || !Fusible(a.op, b.op) ||
        writes[k - 1].size() != 1 || writes[k].size() != 1 ||
        kind[k - 1] != Kind::kPure || kind[k] != Kind::kPure) {
      continue;
    }
    if (std::find(reads[k].begin(), reads[k].end(), writes[k - 1][0]) !=
        reads[k].end()) {
      glued[k] = 1;
    }
  }

  // Heights: the longest chain of latencies from each instruction to the
  // end of the block (the scheduler's priority).
  std::vector<std::vector<Edge>> succs(n);
  for (uint32_t k = 0; k < n; ++k) {
    for (const Edge& e : preds[k]) succs[e.from].push_back({k, e.raw});
  }
  // The block's conditional branch (at `last`) comes first: what computes
  // its condition outranks every other chain, as cuda_ref's SASS has the
  // compare of a loop's or an `if`'s branch at the top of the block (E31,
  // E32), where the wait for its predicate overlaps the rest.
  std::vector<uint8_t> feeds_branch(n, 0);
  if (last < p.code.size() && p.code[last].op == spv::Op::OpBranchConditional) {
    const uint32_t cond = p.code[last].src[0];
    for (uint32_t k = n; k-- > 0;) {
      if (IsVirtualReg(cond) && std::find(writes[k].begin(), writes[k].end(),
                                          cond) != writes[k].end()) {
        feeds_branch[k] = 1;
        break;
      }
    }
  }
  uint32_t longest = 0;
  std::vector<uint32_t> height(n, 0);
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t k = n; k-- > 0;) {
      uint32_t h = lat[k] + (pass == 1 && feeds_branch[k] ? longest : 0);
      for (const Edge& e : succs[k]) {
        h = std::max(h, e.raw ? lat[k] + height[e.from] : height[e.from]);
      }
      height[k] = h;
      longest = std::max(longest, h);
    }
    if (std::find(feeds_branch.begin(), feeds_branch.end(), 1) ==
        feeds_branch.end()) {
      break;
    }
  }

  // Groups: an instruction with the one glued to it. The group of k is its
  // first instruction's index.
  std::vector<uint32_t> group(n);
  for (uint32_t k = 0; k < n; ++k) group[k] = glued[k] ? group[k - 1] : k;
  std::vector<uint32_t> waiting(n, 0);  // unscheduled preds, per group
  for (uint32_t k = 0; k < n; ++k) {
    for (const Edge& e : preds[k]) {
      if (group[e.from] != group[k]) waiting[group[k]] += 1;
    }
  }
  std::vector<uint32_t> ready;
  for (uint32_t k = 0; k < n; ++k) {
    if (group[k] == k && waiting[k] == 0) ready.push_back(k);
  }
  std::vector<uint64_t> issued(n, 0);
  auto earliest = [&](uint32_t g) {
    uint64_t t = 0;
    for (uint32_t k = g; k < n && group[k] == g; ++k) {
      for (const Edge& e : preds[k]) {
        if (group[e.from] == g) continue;
        t = std::max(t, issued[e.from] + (e.raw ? lat[e.from] : 0));
      }
    }
    return t;
  };
  auto group_height = [&](uint32_t g) {
    uint32_t h = 0;
    for (uint32_t k = g; k < n && group[k] == g; ++k)
      h = std::max(h, height[k]);
    return h;
  };
  uint64_t cycle = 0;
  uint32_t placed = 0;
  while (!ready.empty()) {
    // The ready group whose operands are there by `cycle` with the longest
    // chain after it (the first in program order among equals); when none
    // is, the one whose operands come first.
    size_t best = 0;
    uint64_t best_at = 0;
    bool best_now = false;
    uint32_t best_h = 0;
    for (size_t j = 0; j < ready.size(); ++j) {
      const uint32_t g = ready[j];
      const uint64_t at = earliest(g);
      const bool now = at <= cycle;
      const uint32_t h = group_height(g);
      bool better;
      if (j == 0) {
        better = true;
      } else if (now != best_now) {
        better = now;
      } else if (!now && at != best_at) {
        better = at < best_at;
      } else if (h != best_h) {
        better = h > best_h;
      } else {
        better = g < ready[best];
      }
      if (better) {
        best = j;
        best_at = at;
        best_now = now;
        best_h = h;
      }
    }
    const uint32_t g = ready[best];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(best));
    cycle = std::max(cycle, best_at);
    bool takes_slot = false;
    for (uint32_t k = g; k < n && group[k] == g; ++k) {
      out[placed++] = first + k;
      issued[k] = cycle;
      takes_slot = takes_slot || p.code[first + k].pipe != Pipe::kNone;
    }
    if (takes_slot) cycle += 1;
    for (uint32_t k = g; k < n && group[k] == g; ++k) {
      for (const Edge& e : succs[k]) {
        const uint32_t sg = group[e.from];
        if (sg == g) continue;
        if (--waiting[sg] == 0) ready.push_back(sg);
      }
    }
  }
  if (placed != n) {
    // (Cannot happen: every dependence points back. Keep the order.)
    for (uint32_t k = 0; k < n; ++k) out[k] = first + k;
  }
  return out;
}

}  // namespace

std::vector<uint32_t> BlockOrder(const Lowerer& lowerer,
                                 const Program& program) {
  const uint32_t total = static_cast<uint32_t>(program.code.size());
  std::vector<uint32_t> order;
  order.reserve(total);
  bool changed = false;
  for (size_t b = 0; b < program.blocks.size(); ++b) {
    const uint32_t first = program.blocks[b].first_instr;
    const uint32_t end = b + 1 < program.blocks.size()
                             ? program.blocks[b + 1].first_instr
                             : total;
    if (end <= first) continue;
    const std::vector<uint32_t> body =
        ScheduleBlock(lowerer, program, first, end - 1);
    for (uint32_t k = 0; k < body.size(); ++k) {
      changed = changed || body[k] != first + k;
      order.push_back(body[k]);
    }
    order.push_back(end - 1);  // the terminator
  }
  if (!changed || order.size() != total) return {};
  return order;
}

namespace {

// An instruction HoistOrder may move: it computes registers from registers
// and nothing else.
bool Movable(const Lowerer& l, const Program& p, uint32_t i) {
  const Instr& in = p.code[i];
  switch (in.pipe) {
    case Pipe::kNone:
    case Pipe::kFma:
    case Pipe::kAlu:
    case Pipe::kFp64:
    case Pipe::kSfu:
      break;
    default:
      return false;
  }
  if (IsIntegerDivision(in.op) || IsAtomic(in.op) || OnlyReadsMemory(in.op) ||
      in.op == spv::Op::OpIsHelperInvocationEXT) {
    return false;  // (whether a lane is a helper: a demote may change it)
  }
  // Only what computes from registers: an instruction that reads none may
  // read the invocation's state.
  bool reads = !l.extra_uses()[i].empty();
  for (uint32_t s : in.src) reads = reads || IsVirtualReg(s);
  if (!reads) return false;
  const bool writes = IsVirtualReg(in.dst) || !l.extra_defs()[i].empty();
  return writes && KindOf(in, writes) == Kind::kPure;
}

}  // namespace

std::vector<uint32_t> HoistOrder(const Lowerer& l, const Program& p,
                                 std::vector<uint32_t>* starts) {
  const uint32_t total = static_cast<uint32_t>(p.code.size());
  const uint32_t nblocks = static_cast<uint32_t>(p.blocks.size());
  auto block_end = [&](uint32_t b) {
    return b + 1 < nblocks ? p.blocks[b + 1].first_instr : total;
  };
  // Per block: its instructions but the terminator, and the terminator.
  std::vector<std::vector<uint32_t>> body(nblocks);
  std::vector<uint32_t> term(nblocks, kNoReg);
  for (uint32_t b = 0; b < nblocks; ++b) {
    const uint32_t first = p.blocks[b].first_instr, end = block_end(b);
    if (end <= first) continue;
    for (uint32_t i = first; i + 1 < end; ++i) body[b].push_back(i);
    term[b] = end - 1;
  }
  auto is_branch = [&](uint32_t i) {
    const Instr& in = p.code[i];
    return (in.op == spv::Op::OpBranch ||
            in.op == spv::Op::OpBranchConditional ||
            in.op == spv::Op::OpSwitch) &&
           in.aux < p.branches.size();
  };
  // Blocks branched to from each block (none for a return).
  std::vector<std::vector<uint32_t>> succ(nblocks);
  for (uint32_t b = 0; b < nblocks; ++b) {
    if (term[b] != kNoReg && is_branch(term[b])) {
      succ[b] = p.branches[p.code[term[b]].aux].targets;
    }
  }
  auto reads_of = [&](uint32_t i, std::vector<uint32_t>* out) {
    for (uint32_t s : p.code[i].src) {
      if (IsVirtualReg(s)) out->push_back(s);
    }
    for (uint32_t u : l.extra_uses()[i]) {
      if (IsVirtualReg(u)) out->push_back(u);
    }
  };
  auto writes_of = [&](uint32_t i, std::vector<uint32_t>* out) {
    if (IsVirtualReg(p.code[i].dst)) out->push_back(p.code[i].dst);
    for (uint32_t d : l.extra_defs()[i]) {
      if (IsVirtualReg(d)) out->push_back(d);
    }
  };
  // A branch's phi copies: what they read and write.
  auto copies_of = [&](uint32_t i, std::vector<uint32_t>* reads,
                       std::vector<uint32_t>* writes) {
    if (!is_branch(i)) return;
    for (const auto& [first, count] : p.branches[p.code[i].aux].copies) {
      for (uint32_t c = first; c < first + count; ++c) {
        const EdgeCopy& e = p.edge_copies[c];
        if (IsVirtualReg(e.src)) reads->push_back(e.src);
        if (IsVirtualReg(e.dst)) writes->push_back(e.dst);
      }
    }
  };
  bool moved = false;
  std::vector<uint32_t> r_reads, r_writes, tmp;
  std::vector<uint8_t> in_reads, in_writes;  // per virtual register
  auto mark = [](std::vector<uint8_t>& set, const std::vector<uint32_t>& rs) {
    for (uint32_t r : rs) {
      if (r >= set.size()) set.resize(r + 1, 0);
      set[r] = 1;
    }
  };
  auto has = [](const std::vector<uint8_t>& set, uint32_t r) {
    return r < set.size() && set[r] != 0;
  };
  for (uint32_t h = nblocks; h-- > 0;) {
    const BlockInfo& hb = p.blocks[h];
    const uint32_t m = hb.merge_block;
    if (hb.continue_block != kNoBlock || m == kNoBlock || m <= h ||
        m >= nblocks || term[h] == kNoReg ||
        p.code[term[h]].op != spv::Op::OpBranchConditional ||
        !is_branch(term[h]) || body[m].empty()) {
      continue;
    }
    // Its blocks (h, m) branch only among themselves and to m, end no
    // invocation, and no block outside [h, m) branches into (h, m].
    bool closed = true;
    for (uint32_t b = h + 1; b < m && closed; ++b) {
      if (term[b] == kNoReg || EndsInvocation(p.code[term[b]].op)) {
        closed = false;
      }
      for (uint32_t t : succ[b]) closed = closed && t > h && t <= m;
    }
    for (uint32_t t : succ[h]) closed = closed && t > h && t <= m;
    for (uint32_t b = 0; b < nblocks && closed; ++b) {
      if (b >= h && b < m) continue;
      for (uint32_t t : succ[b]) closed = closed && !(t > h && t <= m);
    }
    if (!closed) continue;
    // What its blocks and its branches' phi copies read and write.
    r_reads.clear();
    r_writes.clear();
    copies_of(term[h], &r_reads, &r_writes);
    reads_of(term[h], &r_reads);
    for (uint32_t b = h + 1; b < m; ++b) {
      for (uint32_t i : body[b]) {
        reads_of(i, &r_reads);
        writes_of(i, &r_writes);
      }
      reads_of(term[b], &r_reads);
      writes_of(term[b], &r_writes);
      copies_of(term[b], &r_reads, &r_writes);
    }
    in_reads.assign(in_reads.size(), 0);
    in_writes.assign(in_writes.size(), 0);
    mark(in_reads, r_reads);
    mark(in_writes, r_writes);
    // The merge block's instructions in order: one moves when it reads
    // nothing written in the selection or by an instruction that stays,
    // and writes nothing read or written there.
    std::vector<uint32_t> stay;
    for (uint32_t i : body[m]) {
      tmp.clear();
      reads_of(i, &tmp);
      bool ok = Movable(l, p, i);
      for (uint32_t r : tmp) ok = ok && !has(in_writes, r);
      std::vector<uint32_t> w;
      writes_of(i, &w);
      for (uint32_t r : w) ok = ok && !has(in_reads, r) && !has(in_writes, r);
      if (ok) {
        body[h].push_back(i);
        moved = true;
        continue;
      }
      // It stays: later ones may not pass it.
      stay.push_back(i);
      mark(in_reads, tmp);
      mark(in_writes, w);
    }
    body[m] = std::move(stay);
  }
  if (!moved) return {};
  std::vector<uint32_t> order;
  order.reserve(total);
  starts->assign(nblocks, 0);
  for (uint32_t b = 0; b < nblocks; ++b) {
    (*starts)[b] = static_cast<uint32_t>(order.size());
    order.insert(order.end(), body[b].begin(), body[b].end());
    if (term[b] != kNoReg) order.push_back(term[b]);
  }
  if (order.size() != total) return {};
  return order;
}

Status ScheduleProgram(Lowerer& lowerer, Program* program,
                       std::optional<uint32_t>* model_regs) {
  auto count_unscheduled = [&]() -> Status {
    if (model_regs->has_value()) return {};
    Program unscheduled = *program;
    Status ra = AllocateRegisters(lowerer, &unscheduled);
    if (!ra.ok()) return ra;
    *model_regs = unscheduled.model_regs;
    return {};
  };
  // Across selections first, then within each block.
  std::vector<uint32_t> starts;
  const std::vector<uint32_t> hoist = HoistOrder(lowerer, *program, &starts);
  if (!hoist.empty()) {
    if (Status c = count_unscheduled(); !c.ok()) return c;
    ApplyBlockOrder(lowerer, program, hoist, &starts);
  }
  const std::vector<uint32_t> order = BlockOrder(lowerer, *program);
  if (!order.empty()) {
    if (Status c = count_unscheduled(); !c.ok()) return c;
    ApplyBlockOrder(lowerer, program, order);
  }
  return {};
}

void ApplyBlockOrder(Lowerer& lowerer, Program* program,
                     const std::vector<uint32_t>& order,
                     const std::vector<uint32_t>* starts) {
  const size_t n = program->code.size();
  if (order.size() != n) return;
  if (starts != nullptr && starts->size() == program->blocks.size()) {
    for (size_t b = 0; b < starts->size(); ++b) {
      program->blocks[b].first_instr = (*starts)[b];
    }
  }
  std::vector<uint32_t> at(n);  // old index -> new
  for (uint32_t k = 0; k < n; ++k) at[order[k]] = k;
  // (A table of flags may stop at its last flagged instruction: the rest
  // are 0s, which move too.)
  auto permute = [&](auto& v) {
    if (v.empty()) return;
    if (v.size() < n) v.resize(n);
    auto old = v;
    for (uint32_t k = 0; k < n; ++k) v[k] = std::move(old[order[k]]);
  };
  permute(program->code);
  permute(program->source_lines);
  permute(program->uniform_branches);
  permute(lowerer.extra_defs_);
  permute(lowerer.extra_uses_);
  permute(lowerer.mem_class_);
  for (PrivateAccess& a : lowerer.private_accesses_) a.instr = at[a.instr];
  std::stable_sort(lowerer.private_accesses_.begin(),
                   lowerer.private_accesses_.end(),
                   [](const PrivateAccess& a, const PrivateAccess& b) {
                     return a.instr < b.instr;
                   });
  for (uint32_t& i : lowerer.buffer_loads_) i = at[i];
  for (uint32_t& i : lowerer.constant_loads_) i = at[i];
  for (uint32_t& i : lowerer.coherent_loads_) i = at[i];
  std::sort(lowerer.buffer_loads_.begin(), lowerer.buffer_loads_.end());
  std::sort(lowerer.constant_loads_.begin(), lowerer.constant_loads_.end());
  std::sort(lowerer.coherent_loads_.begin(), lowerer.coherent_loads_.end());
}

}  // namespace warpsim::simt
