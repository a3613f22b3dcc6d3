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
  std::vector<uint32_t> height(n, 0);
  for (uint32_t k = n; k-- > 0;) {
    uint32_t h = lat[k];
    for (const Edge& e : succs[k]) {
      h = std::max(h, e.raw ? lat[k] + height[e.from] : height[e.from]);
    }
    height[k] = h;
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

void ApplyBlockOrder(Lowerer& lowerer, Program* program,
                     const std::vector<uint32_t>& order) {
  const size_t n = program->code.size();
  if (order.size() != n) return;
  std::vector<uint32_t> at(n);  // old index -> new
  for (uint32_t k = 0; k < n; ++k) at[order[k]] = k;
  auto permute = [&](auto& v) {
    if (v.size() < n) return;
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
  std::sort(lowerer.buffer_loads_.begin(), lowerer.buffer_loads_.end());
  std::sort(lowerer.constant_loads_.begin(), lowerer.constant_loads_.end());
}

}  // namespace warpsim::simt
