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

// Copies src[l] to dst[l] for the lanes l in `lanes` of a full-width warp
// (register columns of kMaxWarpWidth words), four lanes per vector
// operation: each group of four lanes selects with a mask from a table.
// Per group of four lanes: the lanes of bits 0..3 as all-ones words.
inline constexpr uint32_t kNibbleLanes[16][4] = {
    {0, 0, 0, 0},        {~0u, 0, 0, 0},     {0, ~0u, 0, 0},
    {~0u, ~0u, 0, 0},    {0, 0, ~0u, 0},     {~0u, 0, ~0u, 0},
    {0, ~0u, ~0u, 0},    {~0u, ~0u, ~0u, 0}, {0, 0, 0, ~0u},
    {~0u, 0, 0, ~0u},    {0, ~0u, 0, ~0u},   {~0u, ~0u, 0, ~0u},
    {0, 0, ~0u, ~0u},    {~0u, 0, ~0u, ~0u}, {0, ~0u, ~0u, ~0u},
    {~0u, ~0u, ~0u, ~0u}};

[[gnu::always_inline]] inline void BlendLanes(uint32_t* dst,
                                              const uint32_t* src,
                                              uint32_t lanes) {
  using V4u = uint32_t __attribute__((vector_size(16)));
  for (uint32_t l = 0; l < kMaxWarpWidth; l += 4) {
    V4u m, d, s;
    std::memcpy(&m, kNibbleLanes[(lanes >> l) & 0xfu], sizeof(m));
    std::memcpy(&d, dst + l, sizeof(d));
    std::memcpy(&s, src + l, sizeof(s));
    d = (s & m) | (d & ~m);
    std::memcpy(dst + l, &d, sizeof(d));
  }
}

// Whether col[l] != 0 for some lane l in `lanes` of a full-width warp.
inline bool AnyLaneNonzero(const uint32_t* col, uint32_t lanes) {
  using V4u = uint32_t __attribute__((vector_size(16)));
  V4u any = {0, 0, 0, 0};
  for (uint32_t l = 0; l < kMaxWarpWidth; l += 4) {
    V4u m, v;
    std::memcpy(&m, kNibbleLanes[(lanes >> l) & 0xfu], sizeof(m));
    std::memcpy(&v, col + l, sizeof(v));
    any |= v & m;
  }
  return (any[0] | any[1] | any[2] | any[3]) != 0;
}

// The result columns t (one, or two for a 64-bit R) of a full-width warp
// into d: copied when every lane is active, blended otherwise.
template <typename R>
[[gnu::always_inline]] inline void StoreColumns(uint32_t* d, const uint32_t* t,
                                                uint32_t active) {
  constexpr uint32_t kW = kMaxWarpWidth;
  constexpr uint32_t kColumns = sizeof(R) == 8 ? 2 : 1;
  if (active == ~0u) {
    std::memcpy(d, t, kColumns * kW * sizeof(uint32_t));
    return;
  }
  BlendLanes(d, t, active);
  if constexpr (kColumns == 2) BlendLanes(d + kW, t + kW, active);
}

// With at least this many lanes active, computing the whole warp in vectors
// and blending beats visiting the active lanes one by one (measured: a
// sparse mask, as in a switch's cases, is cheaper lane by lane).
inline constexpr uint32_t kWholeWarpMinLanes = 12;

// Tells GCC that a loop's iterations do not depend on one another (see
// ExecUnary). Clang (the fuzz build) needs no such hint to vectorise these
// loops, and its own would warn wherever a loop still does not vectorise.
#if defined(__GNUC__) && !defined(__clang__)
#define WARPSIM_IVDEP _Pragma("GCC ivdep")
#else
#define WARPSIM_IVDEP
#endif

// Whether a handler computes every lane of the warp (see ExecUnary).
inline bool ComputeWholeWarp(const Warp& w, bool cheap) {
  return w.width() == kMaxWarpWidth &&
         (w.active() == ~0u ||
          (cheap && w.active_count() >= kWholeWarpMinLanes));
}

// Runs F over the active lanes: d = F(a). On a full-width warp the loop
// runs over every lane into a local scratch column, with a constant trip
// count, no mask test and no possible aliasing of d with an operand, so the
// compiler vectorises it; the column is then copied into d, or with some
// lanes inactive blended into it (F is pure and defined for any input, so
// the inactive lanes' stale values are harmless). That is the default
// (kWholeWarp) when enough lanes are active; an expensive F (libm calls)
// visits only the active lanes of a partly active warp.
template <typename R, typename A, R (*F)(A), bool kWholeWarp = true>
void ExecUnary(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t* a = w.Reg(in.src[0]);
  uint32_t* d = w.Dst(in.dst);
  if (ComputeWholeWarp(w, kWholeWarp)) {
    constexpr uint32_t kW = kMaxWarpWidth;
    uint32_t t[2 * kW];
    // (Into the local column t: no iteration depends on another, which
    // GCC cannot prove when an operand may be a constant of the program's
    // rather than a register of the warp's.)
    WARPSIM_IVDEP
    for (uint32_t l = 0; l < kW; ++l) {
      StoreLane<R>(t, kW, l, F(LoadLane<A>(a, kW, l)));
    }
    StoreColumns<R>(d, t, w.active());
    return;
  }
  for (uint32_t m = w.active(); m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    StoreLane<R>(d, W, l, F(LoadLane<A>(a, W, l)));
  }
}

template <typename R, typename A, typename B, R (*F)(A, B),
          bool kWholeWarp = true>
void ExecBinary(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t* a = w.Reg(in.src[0]);
  const uint32_t* b = w.Reg(in.src[1]);
  uint32_t* d = w.Dst(in.dst);
  if (ComputeWholeWarp(w, kWholeWarp)) {
    constexpr uint32_t kW = kMaxWarpWidth;
    uint32_t t[2 * kW];
    // (As in ExecUnary.)
    WARPSIM_IVDEP
    for (uint32_t l = 0; l < kW; ++l) {
      StoreLane<R>(t, kW, l, F(LoadLane<A>(a, kW, l), LoadLane<B>(b, kW, l)));
    }
    StoreColumns<R>(d, t, w.active());
    return;
  }
  for (uint32_t m = w.active(); m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    StoreLane<R>(d, W, l, F(LoadLane<A>(a, W, l), LoadLane<B>(b, W, l)));
  }
}

template <typename R, typename A, typename B, typename C, R (*F)(A, B, C),
          bool kWholeWarp = true>
void ExecTernary(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t* a = w.Reg(in.src[0]);
  const uint32_t* b = w.Reg(in.src[1]);
  const uint32_t* c = w.Reg(in.src[2]);
  uint32_t* d = w.Dst(in.dst);
  if (ComputeWholeWarp(w, kWholeWarp)) {
    constexpr uint32_t kW = kMaxWarpWidth;
    uint32_t t[2 * kW];
    // (As in ExecUnary.)
    WARPSIM_IVDEP
    for (uint32_t l = 0; l < kW; ++l) {
      StoreLane<R>(t, kW, l,
                   F(LoadLane<A>(a, kW, l), LoadLane<B>(b, kW, l),
                     LoadLane<C>(c, kW, l)));
    }
    StoreColumns<R>(d, t, w.active());
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
