// Subgroup instructions: OpGroupNonUniform* (SPIR-V 1.3), OpGroupNonUniform-
// RotateKHR, and the older SPV_KHR_shader_ballot / SPV_KHR_subgroup_vote
// opcodes (OpSubgroupBallotKHR, ...). The subgroup is the warp: its size is
// Warp::width() (configurable, at most 32) and SubgroupLocalInvocationId is
// the lane index.
//
// Who takes part
// --------------
// A subgroup operation combines the values of the *active* lanes only
// (Warp::active(): the lanes executing the current block). Lanes that
// diverged away, retired, or were never launched (the partial last warp of a
// workgroup) are invisible: votes, ballots and reductions ignore them, and a
// broadcast or shuffle that names one of them returns 0 (the spec leaves the
// value undefined; warpsim makes it deterministic and never reads the stale
// register of a lane that is not running).
//
// Quad operations (QuadBroadcast, QuadSwap) are the exception the spec makes:
// they read the quad members' registers whatever the active mask, like
// derivatives do. Quads are four consecutive lanes:
//
//   lane = 4*q + (x & 1) + 2*(y & 1)      quad q:  0 1     QuadSwap direction
//                                                  2 3     0: lane ^ 1
//                                                  (horizontal)
//                                                          1: lane ^ 2
//                                                          (vertical) 2: lane ^
//                                                          3 (diagonal)
//
// Helper invocations: the spec allows helpers to be inactive for non-quad
// group operations; warpsim's choice is that helpers participate like any
// other active lane (they are in Warp::active() and contribute their values),
// which is also what maximal reconvergence requires.
//
// Ordering: reductions and scans fold the active lanes in increasing lane
// order (a sequential chain, not a tree), so float results are deterministic
// and equal a left-to-right evaluation.
//
// Cross-lane handlers gather every result into a local buffer before writing
// the destination: register allocation may give the destination the same
// register as an operand whose last use is this instruction.
#include <algorithm>
#include <bit>
#include <iterator>
#include <limits>
#include <string>
#include <type_traits>

#include "simt/exec_common.h"
#include "spirv/grammar.h"

namespace warpsim::simt {
namespace {

constexpr uint32_t kScopeSubgroup = 3;  // spv::Scope::Subgroup

// Lanes [0, width) as a mask.
uint32_t WidthMask(uint32_t width) { return LowLanes(width); }

template <typename F>
void ForEachLane(uint32_t mask, F f) {
  for (uint32_t m = mask; m != 0; m &= m - 1) f(std::countr_zero(m));
}

// ---------------------------------------------------------------------------
// Votes and ballots.

// OpGroupNonUniformElect: true in the lowest-numbered active lane.
void ExecElect(Warp& w, const Instr& in) {
  const uint32_t act = w.active();
  const uint32_t first = std::countr_zero(act);
  uint32_t* d = w.Dst(in.dst);
  ForEachLane(act, [&](uint32_t l) { d[l] = l == first ? 1u : 0u; });
}

// The active lanes whose bool register src[0] is true.
uint32_t PredicateMask(const Warp& w, const Instr& in) {
  const uint32_t* p = w.Reg(in.src[0]);
  uint32_t mask = 0;
  ForEachLane(w.active(), [&](uint32_t l) {
    if (p[l] != 0) mask |= 1u << l;
  });
  return mask;
}

// ext: 0 = All, 1 = Any.
void ExecVote(Warp& w, const Instr& in) {
  const uint32_t act = w.active();
  const uint32_t yes = PredicateMask(w, in);
  const uint32_t r = in.ext == 0 ? (yes == act ? 1u : 0u) : (yes ? 1u : 0u);
  uint32_t* d = w.Dst(in.dst);
  ForEachLane(act, [&](uint32_t l) { d[l] = r; });
}

// Value equality for AllEqual: floats compare as numbers (so -0 == +0 and a
// NaN is never equal), everything else by bits.
template <typename T>
bool SameValue(T a, T b) {
  if constexpr (std::is_same_v<T, Half>) {
    return HalfToFloat(a.bits) == HalfToFloat(b.bits);
  } else {
    return a == b;
  }
}

// OpGroupNonUniformAllEqual on one component.
template <typename T>
void ExecAllEqual(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const uint32_t* v = w.Reg(in.src[0]);
  const T ref = LoadLane<T>(v, W, std::countr_zero(act));
  bool eq = true;
  ForEachLane(act, [&](uint32_t l) {
    eq = eq && SameValue(LoadLane<T>(v, W, l), ref);
  });
  uint32_t* d = w.Dst(in.dst);
  ForEachLane(act, [&](uint32_t l) { d[l] = eq ? 1u : 0u; });
}

bool LogicalAndFn(bool a, bool b) { return a && b; }

// OpGroupNonUniformBallot: the first uvec4 component (lanes 0..31).
void ExecBallot(Warp& w, const Instr& in) {
  const uint32_t r = PredicateMask(w, in);
  uint32_t* d = w.Dst(in.dst);
  ForEachLane(w.active(), [&](uint32_t l) { d[l] = r; });
}

// The first SubgroupSize bits of a ballot value (its first component).
uint32_t BallotBits(const Warp& w, const uint32_t* v, uint32_t l) {
  return v[l] & WidthMask(w.width());
}

void ExecInverseBallot(Warp& w, const Instr& in) {
  const uint32_t* v = w.Reg(in.src[0]);
  uint32_t* d = w.Dst(in.dst);
  ForEachLane(w.active(), [&](uint32_t l) { d[l] = (v[l] >> l) & 1u; });
}

// src[0] = index; the four ballot components are Program::extra[aux..+3].
void ExecBallotBitExtract(Warp& w, const Instr& in) {
  const uint32_t* idx = w.Reg(in.src[0]);
  const uint32_t* comp[4];
  for (uint32_t k = 0; k < 4; ++k)
    comp[k] = w.Reg(w.program().extra[in.aux + k]);
  uint32_t* d = w.Dst(in.dst);
  ForEachLane(w.active(), [&](uint32_t l) {
    const uint32_t i = idx[l];
    d[l] = i < 128 ? (comp[i / 32][l] >> (i % 32)) & 1u : 0u;
  });
}

// ext = GroupOperation (Reduce, InclusiveScan, ExclusiveScan).
void ExecBallotBitCount(Warp& w, const Instr& in) {
  const uint32_t* v = w.Reg(in.src[0]);
  uint32_t* d = w.Dst(in.dst);
  const auto op = static_cast<spv::GroupOperation>(in.ext);
  ForEachLane(w.active(), [&](uint32_t l) {
    uint64_t bits = BallotBits(w, v, l);
    if (op == spv::GroupOperation::InclusiveScan) {
      bits &= (2ull << l) - 1;
    } else if (op == spv::GroupOperation::ExclusiveScan) {
      bits &= (1ull << l) - 1;
    }
    d[l] = static_cast<uint32_t>(std::popcount(bits));
  });
}

// ext: 0 = FindLSB, 1 = FindMSB. No bit set: undefined; warpsim gives
// 0xffffffff (GLSL's findLSB(0)).
void ExecBallotFind(Warp& w, const Instr& in) {
  const uint32_t* v = w.Reg(in.src[0]);
  uint32_t* d = w.Dst(in.dst);
  ForEachLane(w.active(), [&](uint32_t l) {
    const uint32_t bits = BallotBits(w, v, l);
    if (bits == 0) {
      d[l] = 0xffffffffu;
    } else {
      d[l] = in.ext == 0 ? std::countr_zero(bits) : 31 - std::countl_zero(bits);
    }
  });
}

// ---------------------------------------------------------------------------
// Data movement: broadcasts, shuffles, quad operations, rotate. They move raw
// register bits, so one handler per register width serves every type.

enum Move : uint16_t {
  kBroadcast,       // src[1] (from the first active lane) names the lane
  kBroadcastFirst,  // the lowest active lane
  kShuffle,         // src[1] per lane names the lane
  kShuffleXor,      // lane ^ src[1]
  kShuffleUp,       // lane - src[1]
  kShuffleDown,     // lane + src[1]
  kQuadBroadcast,   // 4*(lane/4) + src[1]
  kQuadSwap,        // lane ^ (direction + 1); direction in aux
  kRotate,          // within clusters of aux lanes (0: the subgroup)
};

template <bool kWide, Move kMode>
void ExecLaneMove(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const uint32_t* v = w.Reg(in.src[0]);
  const uint32_t* arg = in.src[1] == kNoReg ? nullptr : w.Reg(in.src[1]);
  const uint32_t first = std::countr_zero(act);
  uint32_t lo[kMaxWarpWidth];
  uint32_t hi[kMaxWarpWidth];
  ForEachLane(act, [&](uint32_t l) {
    uint64_t src = W;  // out of range: no source lane
    bool quad = false;
    switch (kMode) {
      case kBroadcast:
        src = arg[first];
        break;
      case kBroadcastFirst:
        src = first;
        break;
      case kShuffle:
        src = arg[l];
        break;
      case kShuffleXor:
        src = l ^ arg[l];
        break;
      case kShuffleUp:
        src = arg[l] <= l ? l - arg[l] : W;
        break;
      case kShuffleDown:
        src = static_cast<uint64_t>(l) + arg[l];
        break;
      case kQuadBroadcast:
        src = (l & ~3u) + (arg[l] & 3u);
        quad = true;
        break;
      case kQuadSwap:
        src = l ^ (in.aux + 1);
        quad = true;
        break;
      case kRotate: {
        const uint32_t size = in.aux == 0 ? W : in.aux;
        const uint32_t local = l % size;
        src = (l - local) + (local + static_cast<uint64_t>(arg[l])) % size;
        break;
      }
    }
    const bool readable = src < W && (quad || ((act >> src) & 1u));
    lo[l] = readable ? v[src] : 0u;
    if (kWide) hi[l] = readable ? v[W + src] : 0u;
  });
  uint32_t* d = w.Dst(in.dst);
  ForEachLane(act, [&](uint32_t l) {
    d[l] = lo[l];
    if (kWide) d[W + l] = hi[l];
  });
}

template <Move kMode>
ExecFn MoveFn(bool wide) {
  return wide ? &ExecLaneMove<true, kMode> : &ExecLaneMove<false, kMode>;
}

// ---------------------------------------------------------------------------
// Arithmetic reductions and scans.
//
// Each operation is a struct with Identity() and Apply(a, b) over the lane
// storage type T (Half for 16-bit floats, computed in float and rounded once
// per step). Integers compute in the unsigned type so overflow wraps.

template <typename T>
using Unsigned = std::make_unsigned_t<T>;

template <typename T, typename F>
T FloatOp(T a, T b, F f) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{FloatToHalf(f(HalfToFloat(a.bits), HalfToFloat(b.bits)))};
  } else {
    return f(a, b);
  }
}

template <typename T>
T FloatConst(float v) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{FloatToHalf(v)};
  } else {
    return static_cast<T>(v);
  }
}

struct IAddOp {
  template <typename T>
  static T Identity() {
    return T(0);
  }
  template <typename T>
  static T Apply(T a, T b) {
    return static_cast<T>(static_cast<Unsigned<T>>(a) +
                          static_cast<Unsigned<T>>(b));
  }
};
struct IMulOp {
  template <typename T>
  static T Identity() {
    return T(1);
  }
  template <typename T>
  static T Apply(T a, T b) {
    // Widen 8/16-bit operands so the product cannot overflow an int.
    using W = std::conditional_t<(sizeof(T) < 4), uint32_t, Unsigned<T>>;
    return static_cast<T>(static_cast<W>(static_cast<Unsigned<T>>(a)) *
                          static_cast<W>(static_cast<Unsigned<T>>(b)));
  }
};
struct MinOp {  // SMin / UMin: T carries the signedness
  template <typename T>
  static T Identity() {
    return std::numeric_limits<T>::max();
  }
  template <typename T>
  static T Apply(T a, T b) {
    return std::min(a, b);
  }
};
struct MaxOp {
  template <typename T>
  static T Identity() {
    return std::numeric_limits<T>::lowest();
  }
  template <typename T>
  static T Apply(T a, T b) {
    return std::max(a, b);
  }
};
struct AndOp {
  template <typename T>
  static T Identity() {
    return static_cast<T>(~Unsigned<T>(0));
  }
  template <typename T>
  static T Apply(T a, T b) {
    return static_cast<T>(a & b);
  }
};
struct OrOp {
  template <typename T>
  static T Identity() {
    return T(0);
  }
  template <typename T>
  static T Apply(T a, T b) {
    return static_cast<T>(a | b);
  }
};
struct XorOp {
  template <typename T>
  static T Identity() {
    return T(0);
  }
  template <typename T>
  static T Apply(T a, T b) {
    return static_cast<T>(a ^ b);
  }
};
struct LogicalAndOp {
  template <typename T>
  static T Identity() {
    return true;
  }
  template <typename T>
  static T Apply(T a, T b) {
    return a && b;
  }
};
struct LogicalOrOp {
  template <typename T>
  static T Identity() {
    return false;
  }
  template <typename T>
  static T Apply(T a, T b) {
    return a || b;
  }
};
struct LogicalXorOp {
  template <typename T>
  static T Identity() {
    return false;
  }
  template <typename T>
  static T Apply(T a, T b) {
    return a != b;
  }
};
struct FAddOp {
  template <typename T>
  static T Identity() {
    return FloatConst<T>(0.0f);
  }
  template <typename T>
  static T Apply(T a, T b) {
    return FloatOp(a, b, [](auto x, auto y) { return x + y; });
  }
};
struct FMulOp {
  template <typename T>
  static T Identity() {
    return FloatConst<T>(1.0f);
  }
  template <typename T>
  static T Apply(T a, T b) {
    return FloatOp(a, b, [](auto x, auto y) { return x * y; });
  }
};
// FMin/FMax: "if for any two Values one of them is a NaN, the other is
// chosen" — exactly fmin/fmax.
struct FMinOp {
  template <typename T>
  static T Identity() {
    return FloatConst<T>(std::numeric_limits<float>::infinity());
  }
  template <typename T>
  static T Apply(T a, T b) {
    return FloatOp(a, b, [](auto x, auto y) { return std::fmin(x, y); });
  }
};
struct FMaxOp {
  template <typename T>
  static T Identity() {
    return FloatConst<T>(-std::numeric_limits<float>::infinity());
  }
  template <typename T>
  static T Apply(T a, T b) {
    return FloatOp(a, b, [](auto x, auto y) { return std::fmax(x, y); });
  }
};

// ext = GroupOperation; aux = cluster size for ClusteredReduce. A reduction
// starts from the first contributing lane's value (not from the identity),
// so e.g. an FAdd reduce of a single -0.0 stays -0.0; only an exclusive scan
// with no earlier lane yields the identity.
template <typename T, typename Op>
void ExecGroupArith(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const uint32_t* v = w.Reg(in.src[0]);
  T out[kMaxWarpWidth];
  // Folds the active lanes of `lanes` in order; writes each lane's result.
  auto fold = [&](uint32_t lanes, spv::GroupOperation op) {
    T acc = Op::template Identity<T>();
    bool any = false;
    ForEachLane(lanes, [&](uint32_t l) {
      const T x = LoadLane<T>(v, W, l);
      if (op == spv::GroupOperation::ExclusiveScan) out[l] = acc;
      acc = any ? Op::template Apply<T>(acc, x) : x;
      any = true;
      if (op == spv::GroupOperation::InclusiveScan) out[l] = acc;
    });
    if (op == spv::GroupOperation::Reduce) {
      ForEachLane(lanes, [&](uint32_t l) { out[l] = acc; });
    }
  };
  const auto op = static_cast<spv::GroupOperation>(in.ext);
  if (op == spv::GroupOperation::ClusteredReduce) {
    const uint32_t size = std::max(in.aux, 1u);
    for (uint32_t base = 0; base < W; base += size) {
      const uint32_t cluster =
          size >= 32 ? 0xffffffffu : ((1u << size) - 1) << base;
      fold(act & cluster, spv::GroupOperation::Reduce);
    }
  } else {
    fold(act, op);
  }
  uint32_t* d = w.Dst(in.dst);
  ForEachLane(act, [&](uint32_t l) { StoreLane<T>(d, W, l, out[l]); });
}

// Handler sets: integer ops with signedness fixed by the opcode (`S*` types
// for every integer handler), float ops, and bool ops.
template <typename Op, typename S8, typename S16, typename S32, typename S64>
HandlerSet IntArith() {
  return HandlerSet{.i8 = &ExecGroupArith<S8, Op>,
                    .i16 = &ExecGroupArith<S16, Op>,
                    .i32 = &ExecGroupArith<S32, Op>,
                    .i64 = &ExecGroupArith<S64, Op>,
                    .u8 = &ExecGroupArith<S8, Op>,
                    .u16 = &ExecGroupArith<S16, Op>,
                    .u32 = &ExecGroupArith<S32, Op>,
                    .u64 = &ExecGroupArith<S64, Op>};
}
template <typename Op>
HandlerSet UintArith() {
  return IntArith<Op, uint8_t, uint16_t, uint32_t, uint64_t>();
}
template <typename Op>
HandlerSet SintArith() {
  return IntArith<Op, int8_t, int16_t, int32_t, int64_t>();
}
template <typename Op>
HandlerSet FloatArith() {
  return HandlerSet{.f16 = &ExecGroupArith<Half, Op>,
                    .f32 = &ExecGroupArith<float, Op>,
                    .f64 = &ExecGroupArith<double, Op>};
}
template <typename Op>
HandlerSet BoolArith() {
  return HandlerSet{.b = &ExecGroupArith<bool, Op>};
}

HandlerSet AllEqualSet() {
  return HandlerSet{.f16 = &ExecAllEqual<Half>,
                    .f32 = &ExecAllEqual<float>,
                    .f64 = &ExecAllEqual<double>,
                    .i8 = &ExecAllEqual<uint32_t>,
                    .i16 = &ExecAllEqual<uint32_t>,
                    .i32 = &ExecAllEqual<uint32_t>,
                    .i64 = &ExecAllEqual<uint64_t>,
                    .u8 = &ExecAllEqual<uint32_t>,
                    .u16 = &ExecAllEqual<uint32_t>,
                    .u32 = &ExecAllEqual<uint32_t>,
                    .u64 = &ExecAllEqual<uint64_t>,
                    .b = &ExecAllEqual<uint32_t>};
}

// ---------------------------------------------------------------------------
// Lowering.

std::string OpName(const spirv::Inst& inst) {
  return std::string(spirv::OpcodeName(static_cast<uint32_t>(inst.opcode)));
}

std::string ScopeName(uint64_t scope) {
  static const char* const kNames[] = {
      "CrossDevice", "Device",      "Workgroup",    "Subgroup",
      "Invocation",  "QueueFamily", "ShaderCallKHR"};
  return scope < std::size(kNames) ? kNames[scope]
                                   : "scope " + std::to_string(scope);
}

// The Execution scope operand must be the constant Subgroup.
bool CheckScope(Lowerer& l, const spirv::Inst& inst) {
  if (inst.operands.empty()) {
    l.Fail(l.InvalidAt(inst, "missing Execution scope operand"));
    return false;
  }
  const std::optional<uint64_t> scope = l.ConstantValue(inst.operands[0]);
  if (!scope) {
    l.Fail(l.InvalidAt(inst, "Execution scope must be a constant"));
    return false;
  }
  if (*scope != kScopeSubgroup) {
    l.Fail(l.UnsupportedAt(inst, OpName(inst) + " with " + ScopeName(*scope) +
                                     " scope (only Subgroup is supported)"));
    return false;
  }
  return true;
}

bool CheckOperands(Lowerer& l, const spirv::Inst& inst, size_t n) {
  if (inst.operands.size() < n) {
    l.Fail(l.InvalidAt(inst, "expected " + std::to_string(n) + " operands"));
    return false;
  }
  return true;
}

Instr& EmitSync(Lowerer& l, const spirv::Inst& inst, ExecFn fn,
                const ScalarType& type) {
  Instr& in = l.Emit(fn, inst.opcode, type, inst.word_offset);
  in.pipe = Pipe::kSync;
  return in;
}

// A one-register result from one-register operands.
bool LowerScalar(Lowerer& l, const spirv::Inst& inst, ExecFn fn,
                 uint32_t src_id, uint16_t ext = 0) {
  const Val src = src_id != 0 ? l.Get(src_id) : Val{};
  if (l.failed()) return true;
  const uint32_t dst = l.Define(inst.result_id, inst.result_type).regs[0];
  Instr& in = EmitSync(l, inst, fn, ScalarOf(l, inst.result_type));
  in.dst = dst;
  if (!src.regs.empty()) in.src[0] = src.regs[0];
  in.ext = ext;
  return true;
}

// Ballot (OpGroupNonUniformBallot / OpSubgroupBallotKHR): component 0 holds
// the lanes; components 1..3 are the constant 0 (a warp has at most 32
// lanes), so they cost no instruction.
bool LowerBallot(Lowerer& l, const spirv::Inst& inst, uint32_t pred_id) {
  const Val pred = l.Get(pred_id);
  if (l.failed()) return true;
  const size_t n = l.Flat(inst.result_type).size();
  Val res;
  res.type_id = inst.result_type;
  res.regs.push_back(l.NewReg(false));
  while (res.regs.size() < n) res.regs.push_back(l.ConstReg(0));
  Instr& in = EmitSync(l, inst, ExecBallot, ScalarOf(l, inst.result_type));
  in.dst = res.regs[0];
  in.src[0] = pred.regs[0];
  l.Alias(inst.result_id, std::move(res));
  return true;
}

// Data movement, component-wise over the value (any type); `arg_id` is the
// lane/delta/mask operand (0: none); `aux` a literal for the handler.
bool LowerMove(Lowerer& l, const spirv::Inst& inst, ExecFn (*pick)(bool),
               uint32_t value_id, uint32_t arg_id, uint32_t aux = 0) {
  const Val value = l.Get(value_id);
  const Val arg = arg_id != 0 ? l.Get(arg_id) : Val{};
  if (l.failed()) return true;
  const std::vector<ScalarType> flat = l.Flat(inst.result_type);
  const std::vector<uint32_t> dst =
      l.Define(inst.result_id, inst.result_type).regs;
  for (size_t c = 0; c < dst.size() && c < value.regs.size(); ++c) {
    Instr& in = EmitSync(l, inst, pick(flat[c].wide()), flat[c]);
    in.dst = dst[c];
    in.src[0] = value.regs[c];
    if (!arg.regs.empty()) in.src[1] = arg.regs[0];
    in.aux = aux;
  }
  return true;
}

// AllEqual: one vote per component, ANDed together for vectors.
bool LowerAllEqual(Lowerer& l, const spirv::Inst& inst, uint32_t value_id) {
  const Val value = l.Get(value_id);
  if (l.failed()) return true;
  const std::vector<ScalarType> flat = l.Flat(value.type_id);
  const HandlerSet set = AllEqualSet();
  const ScalarType bool_type{ScalarKind::kBool, 32, false};
  uint32_t acc = kNoReg;
  for (size_t c = 0; c < value.regs.size() && c < flat.size(); ++c) {
    ExecFn fn = set.Pick(flat[c]);
    if (fn == nullptr) {
      l.Fail(l.UnsupportedAt(inst, OpName(inst) + " on " +
                                       std::to_string(flat[c].width) +
                                       "-bit operands"));
      return true;
    }
    const uint32_t r = l.NewReg(false);
    Instr& in = EmitSync(l, inst, fn, flat[c]);
    in.dst = r;
    in.src[0] = value.regs[c];
    if (acc != kNoReg) {
      const uint32_t both = l.NewReg(false);
      Instr& a = l.Emit(&ExecBinary<bool, bool, bool, &LogicalAndFn>,
                        inst.opcode, bool_type, inst.word_offset);
      a.pipe = Pipe::kAlu;
      a.dst = both;
      a.src[0] = acc;
      a.src[1] = r;
      acc = both;
    } else {
      acc = r;
    }
  }
  if (acc == kNoReg) {
    l.Fail(l.InvalidAt(inst, "AllEqual of a value without components"));
    return true;
  }
  Val res;
  res.type_id = inst.result_type;
  res.regs = {acc};
  l.Alias(inst.result_id, std::move(res));
  return true;
}

// Arithmetic: operands [scope, GroupOperation, value, cluster size?].
bool LowerArith(Lowerer& l, const spirv::Inst& inst, const HandlerSet& set) {
  if (!CheckScope(l, inst) || !CheckOperands(l, inst, 3)) return true;
  const uint32_t group_op = inst.operands[1];
  uint32_t cluster = 0;
  switch (static_cast<spv::GroupOperation>(group_op)) {
    case spv::GroupOperation::Reduce:
    case spv::GroupOperation::InclusiveScan:
    case spv::GroupOperation::ExclusiveScan:
      break;
    case spv::GroupOperation::ClusteredReduce: {
      if (!CheckOperands(l, inst, 4)) return true;
      const std::optional<uint64_t> size = l.ConstantValue(inst.operands[3]);
      if (!size || *size == 0 || !std::has_single_bit(*size)) {
        l.Fail(
            l.InvalidAt(inst, "ClusterSize must be a constant power of two"));
        return true;
      }
      cluster = static_cast<uint32_t>(std::min<uint64_t>(*size, 64));
      break;
    }
    default:
      l.Fail(l.UnsupportedAt(inst, OpName(inst) + " with GroupOperation " +
                                       std::to_string(group_op)));
      return true;
  }
  const Val value = l.Get(inst.operands[2]);
  if (l.failed()) return true;
  const std::vector<ScalarType> flat = l.Flat(inst.result_type);
  const std::vector<uint32_t> dst =
      l.Define(inst.result_id, inst.result_type).regs;
  for (size_t c = 0; c < dst.size() && c < value.regs.size(); ++c) {
    ExecFn fn = set.Pick(flat[c]);
    if (fn == nullptr) {
      l.Fail(l.UnsupportedAt(inst, OpName(inst) + " on " +
                                       std::to_string(flat[c].width) +
                                       "-bit operands"));
      return true;
    }
    Instr& in = EmitSync(l, inst, fn, flat[c]);
    in.dst = dst[c];
    in.src[0] = value.regs[c];
    in.ext = static_cast<uint16_t>(group_op);
    in.aux = cluster;
  }
  return true;
}

// A literal-like operand that must be a constant (QuadSwap direction, Rotate
// cluster size).
std::optional<uint32_t> ConstantOperand(Lowerer& l, const spirv::Inst& inst,
                                        size_t index, const char* what) {
  const std::optional<uint64_t> v = l.ConstantValue(inst.operands[index]);
  if (!v) {
    l.Fail(l.InvalidAt(inst, std::string(what) + " must be a constant"));
    return std::nullopt;
  }
  return static_cast<uint32_t>(*v);
}

}  // namespace

bool LowerSubgroup(Lowerer& l, const spirv::Inst& inst) {
  using spv::Op;
  const auto& ops = inst.operands;
  switch (inst.opcode) {
    // ---- OpGroupNonUniform* (operand 0 is the Execution scope) ----
    case Op::OpGroupNonUniformElect:
      if (!CheckScope(l, inst)) return true;
      return LowerScalar(l, inst, ExecElect, 0);
    case Op::OpGroupNonUniformAll:
    case Op::OpGroupNonUniformAny:
      if (!CheckScope(l, inst) || !CheckOperands(l, inst, 2)) return true;
      return LowerScalar(l, inst, ExecVote, ops[1],
                         inst.opcode == Op::OpGroupNonUniformAny ? 1 : 0);
    case Op::OpGroupNonUniformAllEqual:
      if (!CheckScope(l, inst) || !CheckOperands(l, inst, 2)) return true;
      return LowerAllEqual(l, inst, ops[1]);
    case Op::OpGroupNonUniformBroadcast:
      if (!CheckScope(l, inst) || !CheckOperands(l, inst, 3)) return true;
      return LowerMove(l, inst, MoveFn<kBroadcast>, ops[1], ops[2]);
    case Op::OpGroupNonUniformBroadcastFirst:
      if (!CheckScope(l, inst) || !CheckOperands(l, inst, 2)) return true;
      return LowerMove(l, inst, MoveFn<kBroadcastFirst>, ops[1], 0);
    case Op::OpGroupNonUniformBallot:
      if (!CheckScope(l, inst) || !CheckOperands(l, inst, 2)) return true;
      return LowerBallot(l, inst, ops[1]);
    case Op::OpGroupNonUniformInverseBallot:
      if (!CheckScope(l, inst) || !CheckOperands(l, inst, 2)) return true;
      return LowerScalar(l, inst, ExecInverseBallot, ops[1]);
    case Op::OpGroupNonUniformBallotBitExtract: {
      if (!CheckScope(l, inst) || !CheckOperands(l, inst, 3)) return true;
      const Val value = l.Get(ops[1]);
      const Val index = l.Get(ops[2]);
      if (l.failed()) return true;
      const uint32_t dst = l.Define(inst.result_id, inst.result_type).regs[0];
      std::vector<uint32_t> comps = value.regs;
      comps.resize(4, l.ConstReg(0));
      Instr& in = EmitSync(l, inst, ExecBallotBitExtract,
                           ScalarOf(l, inst.result_type));
      in.dst = dst;
      in.src[0] = index.regs[0];
      in.aux = static_cast<uint32_t>(l.program().extra.size());
      l.program().extra.insert(l.program().extra.end(), comps.begin(),
                               comps.end());
      l.AddUses(comps);
      return true;
    }
    case Op::OpGroupNonUniformBallotBitCount: {
      if (!CheckScope(l, inst) || !CheckOperands(l, inst, 3)) return true;
      const auto group_op = static_cast<spv::GroupOperation>(ops[1]);
      if (group_op != spv::GroupOperation::Reduce &&
          group_op != spv::GroupOperation::InclusiveScan &&
          group_op != spv::GroupOperation::ExclusiveScan) {
        l.Fail(l.InvalidAt(inst,
                           "BallotBitCount needs Reduce, InclusiveScan "
                           "or ExclusiveScan"));
        return true;
      }
      return LowerScalar(l, inst, ExecBallotBitCount, ops[2],
                         static_cast<uint16_t>(ops[1]));
    }
    case Op::OpGroupNonUniformBallotFindLSB:
    case Op::OpGroupNonUniformBallotFindMSB:
      if (!CheckScope(l, inst) || !CheckOperands(l, inst, 2)) return true;
      return LowerScalar(
          l, inst, ExecBallotFind, ops[1],
          inst.opcode == Op::OpGroupNonUniformBallotFindMSB ? 1 : 0);
    case Op::OpGroupNonUniformShuffle:
    case Op::OpGroupNonUniformShuffleXor:
    case Op::OpGroupNonUniformShuffleUp:
    case Op::OpGroupNonUniformShuffleDown: {
      if (!CheckScope(l, inst) || !CheckOperands(l, inst, 3)) return true;
      ExecFn (*pick)(bool) =
          inst.opcode == Op::OpGroupNonUniformShuffle      ? MoveFn<kShuffle>
          : inst.opcode == Op::OpGroupNonUniformShuffleXor ? MoveFn<kShuffleXor>
          : inst.opcode == Op::OpGroupNonUniformShuffleUp
              ? MoveFn<kShuffleUp>
              : MoveFn<kShuffleDown>;
      return LowerMove(l, inst, pick, ops[1], ops[2]);
    }
    case Op::OpGroupNonUniformIAdd:
      return LowerArith(l, inst, UintArith<IAddOp>());
    case Op::OpGroupNonUniformIMul:
      return LowerArith(l, inst, UintArith<IMulOp>());
    case Op::OpGroupNonUniformSMin:
      return LowerArith(l, inst, SintArith<MinOp>());
    case Op::OpGroupNonUniformUMin:
      return LowerArith(l, inst, UintArith<MinOp>());
    case Op::OpGroupNonUniformSMax:
      return LowerArith(l, inst, SintArith<MaxOp>());
    case Op::OpGroupNonUniformUMax:
      return LowerArith(l, inst, UintArith<MaxOp>());
    case Op::OpGroupNonUniformBitwiseAnd:
      return LowerArith(l, inst, UintArith<AndOp>());
    case Op::OpGroupNonUniformBitwiseOr:
      return LowerArith(l, inst, UintArith<OrOp>());
    case Op::OpGroupNonUniformBitwiseXor:
      return LowerArith(l, inst, UintArith<XorOp>());
    case Op::OpGroupNonUniformFAdd:
      return LowerArith(l, inst, FloatArith<FAddOp>());
    case Op::OpGroupNonUniformFMul:
      return LowerArith(l, inst, FloatArith<FMulOp>());
    case Op::OpGroupNonUniformFMin:
      return LowerArith(l, inst, FloatArith<FMinOp>());
    case Op::OpGroupNonUniformFMax:
      return LowerArith(l, inst, FloatArith<FMaxOp>());
    case Op::OpGroupNonUniformLogicalAnd:
      return LowerArith(l, inst, BoolArith<LogicalAndOp>());
    case Op::OpGroupNonUniformLogicalOr:
      return LowerArith(l, inst, BoolArith<LogicalOrOp>());
    case Op::OpGroupNonUniformLogicalXor:
      return LowerArith(l, inst, BoolArith<LogicalXorOp>());
    case Op::OpGroupNonUniformQuadBroadcast:
      if (!CheckScope(l, inst) || !CheckOperands(l, inst, 3)) return true;
      return LowerMove(l, inst, MoveFn<kQuadBroadcast>, ops[1], ops[2]);
    case Op::OpGroupNonUniformQuadSwap: {
      if (!CheckScope(l, inst) || !CheckOperands(l, inst, 3)) return true;
      const auto dir = ConstantOperand(l, inst, 2, "QuadSwap Direction");
      if (!dir) return true;
      if (*dir > 2) {
        l.Fail(l.InvalidAt(inst, "QuadSwap Direction must be 0, 1 or 2"));
        return true;
      }
      return LowerMove(l, inst, MoveFn<kQuadSwap>, ops[1], 0, *dir);
    }
    case Op::OpGroupNonUniformRotateKHR: {
      if (!CheckScope(l, inst) || !CheckOperands(l, inst, 3)) return true;
      uint32_t cluster = 0;
      if (ops.size() > 3) {
        const auto size = ConstantOperand(l, inst, 3, "ClusterSize");
        if (!size) return true;
        if (*size == 0 || !std::has_single_bit(*size)) {
          l.Fail(l.InvalidAt(inst, "ClusterSize must be a power of two"));
          return true;
        }
        // A cluster as large as the subgroup rotates the whole subgroup.
        cluster = *size >= l.options().warp_width ? 0 : *size;
      }
      return LowerMove(l, inst, MoveFn<kRotate>, ops[1], ops[2], cluster);
    }
    case Op::OpGroupNonUniformPartitionNV:
      l.Fail(l.UnsupportedAt(inst, OpName(inst)));
      return true;

    // ---- SPV_KHR_shader_ballot / SPV_KHR_subgroup_vote (no scope) ----
    case Op::OpSubgroupBallotKHR:
      if (!CheckOperands(l, inst, 1)) return true;
      return LowerBallot(l, inst, ops[0]);
    case Op::OpSubgroupFirstInvocationKHR:
      if (!CheckOperands(l, inst, 1)) return true;
      return LowerMove(l, inst, MoveFn<kBroadcastFirst>, ops[0], 0);
    case Op::OpSubgroupReadInvocationKHR:
      if (!CheckOperands(l, inst, 2)) return true;
      return LowerMove(l, inst, MoveFn<kBroadcast>, ops[0], ops[1]);
    case Op::OpSubgroupAllKHR:
    case Op::OpSubgroupAnyKHR:
      if (!CheckOperands(l, inst, 1)) return true;
      return LowerScalar(l, inst, ExecVote, ops[0],
                         inst.opcode == Op::OpSubgroupAnyKHR ? 1 : 0);
    case Op::OpSubgroupAllEqualKHR:
      if (!CheckOperands(l, inst, 1)) return true;
      return LowerAllEqual(l, inst, ops[0]);
    default:
      return false;
  }
}

}  // namespace warpsim::simt
