// Atomic instructions: OpAtomicLoad/Store/Exchange/CompareExchange(Weak),
// increment/decrement, integer add/sub/min/max/and/or/xor on 32- and 64-bit
// integers, and the SPV_EXT_shader_atomic_float_add / _float_min_max
// operations on 16-, 32- and 64-bit floats.
//
// The functional model is sequentially consistent: a warp instruction
// performs its lanes' read-modify-writes one after another in increasing lane
// order (lane 0 first), each one complete before the next, so the values
// returned to the lanes are deterministic (lane k sees the updates of lanes
// 0..k-1 of the same instruction). Memory semantics and scope operands are
// accepted and need no action: every access goes straight to the one copy of
// memory (no caches in the functional model).
//
// Helper invocations never modify memory through an atomic and receive 0
// (the spec leaves their result undefined). An out-of-bounds address reads
// 0 and drops the write, as for plain loads and stores.
//
// Register operands: src[0] the pointer (offset, region), src[1] the value,
// src[2] the comparator (compare-exchange); dst the result (kNoReg for
// OpAtomicStore).
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "simt/exec_common.h"
#include "spirv/grammar.h"

namespace warpsim::simt {
namespace {

enum AtomicOp : uint8_t {
  kLoad,
  kStore,
  kExchange,
  kCompareExchange,
  kIncrement,
  kDecrement,
  kAdd,  // integer or float, by T
  kSub,
  kMin,  // signed, unsigned or float, by T
  kMax,
  kAnd,
  kOr,
  kXor,
};

template <typename T, typename F>
T FloatOp(T a, T b, F f) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{FloatToHalf(f(HalfToFloat(a.bits), HalfToFloat(b.bits)))};
  } else {
    return f(a, b);
  }
}

// The value written back by one read-modify-write.
template <typename T, AtomicOp kOp>
T Combine(T old, T value) {
  constexpr bool kFloat =
      std::is_floating_point_v<T> || std::is_same_v<T, Half>;
  if constexpr (kOp == kExchange || kOp == kStore) {
    return value;
  } else if constexpr (kFloat) {
    // Float atomics: add, min, max. fmin/fmax pick the non-NaN operand.
    if constexpr (kOp == kAdd) {
      return FloatOp(old, value, [](auto x, auto y) { return x + y; });
    } else if constexpr (kOp == kMin) {
      return FloatOp(old, value,
                     [](auto x, auto y) { return std::fmin(x, y); });
    } else {
      static_assert(kOp == kMax);
      return FloatOp(old, value,
                     [](auto x, auto y) { return std::fmax(x, y); });
    }
  } else {
    // Integers wrap: compute in the unsigned type.
    using U = std::make_unsigned_t<T>;
    const U a = static_cast<U>(old);
    const U b = static_cast<U>(value);
    switch (kOp) {
      case kIncrement:
        return static_cast<T>(a + 1);
      case kDecrement:
        return static_cast<T>(a - 1);
      case kAdd:
        return static_cast<T>(a + b);
      case kSub:
        return static_cast<T>(a - b);
      case kMin:
        return std::min(old, value);  // T carries the signedness
      case kMax:
        return std::max(old, value);
      case kAnd:
        return static_cast<T>(a & b);
      case kOr:
        return static_cast<T>(a | b);
      case kXor:
        return static_cast<T>(a ^ b);
      default:
        return old;
    }
  }
}

template <typename T, AtomicOp kOp>
void ExecAtomic(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t* ptr = w.Reg(in.src[0]);
  const uint32_t* value = in.src[1] == kNoReg ? nullptr : w.Reg(in.src[1]);
  const uint32_t* cmp = in.src[2] == kNoReg ? nullptr : w.Reg(in.src[2]);
  uint32_t* d = in.dst == kNoReg ? nullptr : w.Dst(in.dst);
  const bool record = w.record_addresses();
  if (record) w.set_access_bytes(sizeof(T));
  const uint32_t helper = w.helper();
  // Lane order: lane 0's update happens first.
  for (uint32_t m = w.active(); m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    const uint32_t region = ptr[W + l];
    const uint32_t offset = ptr[l];
    if (record) {
      w.address_buffer()[l] = (static_cast<uint64_t>(region) << 32) | offset;
    }
    T result{};
    uint8_t* p = ((helper >> l) & 1u) ? nullptr
                                      : w.Resolve(l, region, offset, sizeof(T));
    if (p != nullptr) {
      T old;
      std::memcpy(&old, p, sizeof(T));
      result = old;
      if constexpr (kOp == kCompareExchange) {
        // Compare bits: the comparator and memory are integers here.
        const T c = LoadLane<T>(cmp, W, l);
        if (std::memcmp(&old, &c, sizeof(T)) == 0) {
          const T v = LoadLane<T>(value, W, l);
          std::memcpy(p, &v, sizeof(T));
        }
      } else if constexpr (kOp != kLoad) {
        const T v = value != nullptr ? LoadLane<T>(value, W, l) : T{};
        const T n = Combine<T, kOp>(old, v);
        std::memcpy(p, &n, sizeof(T));
      }
    }
    if (d != nullptr) StoreLane<T>(d, W, l, result);
  }
}

// The handler for `op` on scalars of type `t`; nullptr when unsupported.
ExecFn PickAtomic(AtomicOp op, const ScalarType& t) {
  // Raw-bit operations work on any 16/32/64-bit scalar.
  auto raw = [&]<AtomicOp kOp>() -> ExecFn {
    switch (t.width) {
      case 16:
        return &ExecAtomic<uint16_t, kOp>;
      case 32:
        return &ExecAtomic<uint32_t, kOp>;
      case 64:
        return &ExecAtomic<uint64_t, kOp>;
      default:
        return nullptr;
    }
  };
  // Integer operations on 32/64-bit integers; `kSigned` picks the
  // interpretation (min/max), not the declared type.
  auto integer = [&]<AtomicOp kOp, bool kSigned>() -> ExecFn {
    if (t.kind != ScalarKind::kInt && t.kind != ScalarKind::kUint)
      return nullptr;
    if (t.width == 32) {
      return &ExecAtomic<std::conditional_t<kSigned, int32_t, uint32_t>, kOp>;
    }
    if (t.width == 64) {
      return &ExecAtomic<std::conditional_t<kSigned, int64_t, uint64_t>, kOp>;
    }
    return nullptr;
  };
  auto floating = [&]<AtomicOp kOp>() -> ExecFn {
    if (t.kind != ScalarKind::kFloat) return nullptr;
    switch (t.width) {
      case 16:
        return &ExecAtomic<Half, kOp>;
      case 32:
        return &ExecAtomic<float, kOp>;
      case 64:
        return &ExecAtomic<double, kOp>;
      default:
        return nullptr;
    }
  };
  switch (op) {
    case kLoad:
      return raw.operator()<kLoad>();
    case kStore:
      return raw.operator()<kStore>();
    case kExchange:
      return raw.operator()<kExchange>();
    case kCompareExchange:
      return integer.operator()<kCompareExchange, false>();
    case kIncrement:
      return integer.operator()<kIncrement, false>();
    case kDecrement:
      return integer.operator()<kDecrement, false>();
    case kAdd:
      return t.is_float() ? floating.operator()<kAdd>()
                          : integer.operator()<kAdd, false>();
    case kSub:
      return integer.operator()<kSub, false>();
    case kAnd:
      return integer.operator()<kAnd, false>();
    case kOr:
      return integer.operator()<kOr, false>();
    case kXor:
      return integer.operator()<kXor, false>();
    default:
      return nullptr;  // min/max: PickMinMax
  }
}

ExecFn PickMinMax(bool is_max, bool is_signed, const ScalarType& t) {
  if (t.is_float()) {
    if (t.width == 16)
      return is_max ? &ExecAtomic<Half, kMax> : &ExecAtomic<Half, kMin>;
    if (t.width == 32)
      return is_max ? &ExecAtomic<float, kMax> : &ExecAtomic<float, kMin>;
    if (t.width == 64)
      return is_max ? &ExecAtomic<double, kMax> : &ExecAtomic<double, kMin>;
    return nullptr;
  }
  if (t.width == 32) {
    if (is_signed)
      return is_max ? &ExecAtomic<int32_t, kMax> : &ExecAtomic<int32_t, kMin>;
    return is_max ? &ExecAtomic<uint32_t, kMax> : &ExecAtomic<uint32_t, kMin>;
  }
  if (t.width == 64) {
    if (is_signed)
      return is_max ? &ExecAtomic<int64_t, kMax> : &ExecAtomic<int64_t, kMin>;
    return is_max ? &ExecAtomic<uint64_t, kMax> : &ExecAtomic<uint64_t, kMin>;
  }
  return nullptr;
}

std::string OpName(const spirv::Inst& inst) {
  return std::string(spirv::OpcodeName(static_cast<uint32_t>(inst.opcode)));
}

// Lowers one atomic. `value_index` / `cmp_index`: operand positions of the
// value and comparator (0: none).
bool LowerAtomicOp(Lowerer& l, const spirv::Inst& inst, AtomicOp op,
                   size_t value_index, size_t cmp_index,
                   bool float_only = false, bool is_signed = false) {
  const size_t needed = std::max({value_index, cmp_index, size_t{2}}) + 1;
  if (inst.operands.size() < needed) {
    l.Fail(
        l.InvalidAt(inst, "expected " + std::to_string(needed) + " operands"));
    return true;
  }
  const Val ptr = l.Get(inst.operands[0]);
  if (l.failed()) return true;
  if (!ptr.ptr) {
    l.Fail(l.UnsupportedAt(
        inst, OpName(inst) + " through a pointer of unknown layout (image "
                             "texel pointers are not supported)"));
    return true;
  }
  if (ptr.ptr->storage == spv::StorageClass::PhysicalStorageBuffer) {
    l.Fail(l.UnsupportedAt(inst, "PhysicalStorageBuffer pointers"));
    return true;
  }
  const ScalarType t = ScalarOf(l, ptr.ptr->pointee_type);
  if (l.Flat(ptr.ptr->pointee_type).size() != 1) {
    l.Fail(l.InvalidAt(inst, "atomic pointee must be a scalar"));
    return true;
  }
  // Load, store and exchange move bits of any scalar; the other operations
  // need integers (OpAtomicI*, ...) or floats (OpAtomicF*EXT).
  const bool raw = op == kLoad || op == kStore || op == kExchange;
  ExecFn fn = nullptr;
  if (raw || float_only == t.is_float()) {
    fn = op == kMin || op == kMax ? PickMinMax(op == kMax, is_signed, t)
                                  : PickAtomic(op, t);
  }
  if (fn == nullptr) {
    l.Fail(l.UnsupportedAt(inst, OpName(inst) + " on " +
                                     std::to_string(t.width) + "-bit " +
                                     (t.is_float() ? "floats" : "integers")));
    return true;
  }
  const Val value = value_index ? l.Get(inst.operands[value_index]) : Val{};
  const Val cmp = cmp_index ? l.Get(inst.operands[cmp_index]) : Val{};
  if (l.failed()) return true;
  uint32_t dst = kNoReg;
  if (inst.result_id != 0) {
    dst = l.Define(inst.result_id, inst.result_type).regs[0];
  }
  l.NoteOpaqueAccess(*ptr.ptr);
  Instr& in = l.Emit(fn, inst.opcode, t, inst.word_offset);
  in.pipe = Pipe::kLsu;
  in.dst = dst;
  in.src[0] = ptr.regs[0];
  if (!value.regs.empty()) in.src[1] = value.regs[0];
  if (!cmp.regs.empty()) in.src[2] = cmp.regs[0];
  return true;
}

}  // namespace

bool LowerAtomic(Lowerer& l, const spirv::Inst& inst) {
  using spv::Op;
  // Operands: Pointer, Memory scope, Semantics, [Unequal semantics], Value,
  // [Comparator].
  switch (inst.opcode) {
    case Op::OpAtomicLoad:
      return LowerAtomicOp(l, inst, kLoad, 0, 0);
    case Op::OpAtomicStore:
      return LowerAtomicOp(l, inst, kStore, 3, 0);
    case Op::OpAtomicExchange:
      return LowerAtomicOp(l, inst, kExchange, 3, 0);
    case Op::OpAtomicCompareExchange:
    case Op::OpAtomicCompareExchangeWeak:
      return LowerAtomicOp(l, inst, kCompareExchange, 4, 5);
    case Op::OpAtomicIIncrement:
      return LowerAtomicOp(l, inst, kIncrement, 0, 0);
    case Op::OpAtomicIDecrement:
      return LowerAtomicOp(l, inst, kDecrement, 0, 0);
    case Op::OpAtomicIAdd:
      return LowerAtomicOp(l, inst, kAdd, 3, 0);
    case Op::OpAtomicISub:
      return LowerAtomicOp(l, inst, kSub, 3, 0);
    case Op::OpAtomicSMin:
      return LowerAtomicOp(l, inst, kMin, 3, 0, false, true);
    case Op::OpAtomicUMin:
      return LowerAtomicOp(l, inst, kMin, 3, 0, false, false);
    case Op::OpAtomicSMax:
      return LowerAtomicOp(l, inst, kMax, 3, 0, false, true);
    case Op::OpAtomicUMax:
      return LowerAtomicOp(l, inst, kMax, 3, 0, false, false);
    case Op::OpAtomicAnd:
      return LowerAtomicOp(l, inst, kAnd, 3, 0);
    case Op::OpAtomicOr:
      return LowerAtomicOp(l, inst, kOr, 3, 0);
    case Op::OpAtomicXor:
      return LowerAtomicOp(l, inst, kXor, 3, 0);
    case Op::OpAtomicFAddEXT:
      return LowerAtomicOp(l, inst, kAdd, 3, 0, true);
    case Op::OpAtomicFMinEXT:
      return LowerAtomicOp(l, inst, kMin, 3, 0, true);
    case Op::OpAtomicFMaxEXT:
      return LowerAtomicOp(l, inst, kMax, 3, 0, true);
    case Op::OpAtomicFlagTestAndSet:
    case Op::OpAtomicFlagClear:
      l.Fail(l.UnsupportedAt(inst, OpName(inst) + " (Kernel capability)"));
      return true;
    default:
      return false;
  }
}

}  // namespace warpsim::simt
