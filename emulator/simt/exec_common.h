// Shared helpers for the instruction-family files (exec_*.cpp): typed access
// to a lane's value in a register column, half-precision conversion, and
// handler templates that run one scalar function over the active lanes.
//
// Register representation of a scalar, per lane:
//   32-bit: one register;   64-bit: two consecutive registers (low first);
//   8/16-bit integers: the low bits of one register, upper bits zero;
//   16-bit floats: the IEEE half bits in the low 16 bits;
//   bool: 0 or 1.
#ifndef WARPSIM_SIMT_EXEC_COMMON_H_
#define WARPSIM_SIMT_EXEC_COMMON_H_

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "base/half.h"
#include "simt/lower.h"
#include "simt/warp.h"

namespace warpsim::simt {

// IEEE binary16 stored as bits; arithmetic is done in float and rounded.
struct Half {
  uint16_t bits = 0;
};

template <typename T>
inline T LoadLane(const uint32_t* r, uint32_t width, uint32_t l) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{static_cast<uint16_t>(r[l])};
  } else if constexpr (sizeof(T) == 8) {
    const uint64_t v = static_cast<uint64_t>(r[l]) |
                       (static_cast<uint64_t>(r[width + l]) << 32);
    return std::bit_cast<T>(v);
  } else if constexpr (sizeof(T) == 4) {
    return std::bit_cast<T>(r[l]);
  } else if constexpr (sizeof(T) == 2) {
    return std::bit_cast<T>(static_cast<uint16_t>(r[l]));
  } else if constexpr (std::is_same_v<T, bool>) {
    return r[l] != 0;
  } else {
    return std::bit_cast<T>(static_cast<uint8_t>(r[l]));
  }
}

template <typename T>
inline void StoreLane(uint32_t* r, uint32_t width, uint32_t l, T v) {
  if constexpr (std::is_same_v<T, Half>) {
    r[l] = v.bits;
  } else if constexpr (sizeof(T) == 8) {
    const uint64_t b = std::bit_cast<uint64_t>(v);
    r[l] = static_cast<uint32_t>(b);
    r[width + l] = static_cast<uint32_t>(b >> 32);
  } else if constexpr (sizeof(T) == 4) {
    r[l] = std::bit_cast<uint32_t>(v);
  } else if constexpr (sizeof(T) == 2) {
    r[l] = std::bit_cast<uint16_t>(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    r[l] = v ? 1u : 0u;
  } else {
    r[l] = std::bit_cast<uint8_t>(v);
  }
}

// Runs F over the active lanes: d = F(a). When a full-width warp has every
// lane active (the common case) the loop has a constant trip count and no
// mask test, so the compiler unrolls and vectorises it; otherwise only the
// active lanes are visited.
template <typename R, typename A, R (*F)(A)>
void ExecUnary(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t* a = w.Reg(in.src[0]);
  uint32_t* d = w.Reg(in.dst);
  if (w.active() == ~0u && W == kMaxWarpWidth) {
    constexpr uint32_t kW = kMaxWarpWidth;
    for (uint32_t l = 0; l < kW; ++l) {
      StoreLane<R>(d, kW, l, F(LoadLane<A>(a, kW, l)));
    }
    return;
  }
  for (uint32_t m = w.active(); m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    StoreLane<R>(d, W, l, F(LoadLane<A>(a, W, l)));
  }
}

template <typename R, typename A, typename B, R (*F)(A, B)>
void ExecBinary(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t* a = w.Reg(in.src[0]);
  const uint32_t* b = w.Reg(in.src[1]);
  uint32_t* d = w.Reg(in.dst);
  if (w.active() == ~0u && W == kMaxWarpWidth) {
    constexpr uint32_t kW = kMaxWarpWidth;
    for (uint32_t l = 0; l < kW; ++l) {
      StoreLane<R>(d, kW, l, F(LoadLane<A>(a, kW, l), LoadLane<B>(b, kW, l)));
    }
    return;
  }
  for (uint32_t m = w.active(); m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    StoreLane<R>(d, W, l, F(LoadLane<A>(a, W, l), LoadLane<B>(b, W, l)));
  }
}

template <typename R, typename A, typename B, typename C, R (*F)(A, B, C)>
void ExecTernary(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t* a = w.Reg(in.src[0]);
  const uint32_t* b = w.Reg(in.src[1]);
  const uint32_t* c = w.Reg(in.src[2]);
  uint32_t* d = w.Reg(in.dst);
  if (w.active() == ~0u && W == kMaxWarpWidth) {
    constexpr uint32_t kW = kMaxWarpWidth;
    for (uint32_t l = 0; l < kW; ++l) {
      StoreLane<R>(d, kW, l,
                   F(LoadLane<A>(a, kW, l), LoadLane<B>(b, kW, l),
                     LoadLane<C>(c, kW, l)));
    }
    return;
  }
  for (uint32_t m = w.active(); m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    StoreLane<R>(
        d, W, l,
        F(LoadLane<A>(a, W, l), LoadLane<B>(b, W, l), LoadLane<C>(c, W, l)));
  }
}

// Copies a register (both halves for 64-bit) for the active lanes.
void ExecMove(Warp& w, const Instr& in);
void ExecMove64(Warp& w, const Instr& in);

// Lowering helper: emits `fn` once per component of the result of `inst`
// with operands taken from `operand_ids` (a scalar operand is broadcast to
// every component). Defines the result value.
void EmitComponentwise(Lowerer& l, const spirv::Inst& inst, ExecFn fn,
                       const std::vector<uint32_t>& operand_ids);

// The scalar type of the first flattened component of a type.
ScalarType ScalarOf(Lowerer& l, uint32_t type_id);

// Picks a handler by scalar type: returns nullptr when the width is not
// provided.
struct HandlerSet {
  ExecFn f16 = nullptr, f32 = nullptr, f64 = nullptr;
  ExecFn i8 = nullptr, i16 = nullptr, i32 = nullptr, i64 = nullptr;
  ExecFn u8 = nullptr, u16 = nullptr, u32 = nullptr, u64 = nullptr;
  ExecFn b = nullptr;
  ExecFn Pick(const ScalarType& t) const;
};

// Lowers `inst` component-wise with the handler for its operand type
// (`type_from` selects whose type picks the handler: the result type by
// default, or the first operand's for comparisons and conversions).
// Reports unsupported when no handler exists for that width.
bool LowerWith(Lowerer& l, const spirv::Inst& inst, const HandlerSet& set,
               bool type_from_operand = false);

}  // namespace warpsim::simt

#endif  // WARPSIM_SIMT_EXEC_COMMON_H_
