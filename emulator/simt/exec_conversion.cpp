// Conversion instructions: float <-> integer (saturating, as NVIDIA's F2I
// does for out-of-range values), integer width changes (sign or zero
// extension by opcode), float width changes, OpQuantizeToF16 and OpBitcast.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "simt/exec_common.h"
#include "spirv/grammar.h"

namespace warpsim::simt {
namespace {

template <typename T>
struct Tag {
  using type = T;
};

template <typename R, typename A>
R Cvt(A a) {
  if constexpr (std::is_same_v<A, Half>) {
    return Cvt<R, float>(HalfToFloat(a.bits));
  } else if constexpr (std::is_same_v<R, Half>) {
    if constexpr (std::is_same_v<A, double>) {
      return Half{DoubleToHalf(a)};
    } else if constexpr (std::is_integral_v<A>) {
      return Half{DoubleToHalf(static_cast<double>(a))};
    } else {
      return Half{FloatToHalf(static_cast<float>(a))};
    }
  } else if constexpr (std::is_floating_point_v<A> && std::is_integral_v<R>) {
    // Saturating float -> integer; NaN converts to 0.
    if (std::isnan(a)) return R(0);
    if (a <= static_cast<A>(std::numeric_limits<R>::min())) {
      return std::numeric_limits<R>::min();
    }
    if (a >= static_cast<A>(std::numeric_limits<R>::max())) {
      return std::numeric_limits<R>::max();
    }
    return static_cast<R>(a);
  } else {
    return static_cast<R>(a);
  }
}

// Cvt<int32_t, float> for a full-width warp, four lanes per vector
// operation (the scalar function's early returns keep GCC from vectorising
// it): the value clamped into the range where truncation is defined and NaN
// replaced by 0, truncated, and the lanes at or above 2^31 set to INT_MAX.
void ExecFloatToInt32(Warp& w, const Instr& in) {
  constexpr uint32_t kW = kMaxWarpWidth;
  if (w.width() != kW) {
    ExecUnary<int32_t, float, &Cvt<int32_t, float>>(w, in);
    return;
  }
  using V4f = float __attribute__((vector_size(16)));
  using V4i = int32_t __attribute__((vector_size(16)));
  constexpr float kTwo31 = 2147483648.0f;
  constexpr float kBelowTwo31 = 2147483520.0f;  // the float below 2^31
  const uint32_t* a = w.Reg(in.src[0]);
  uint32_t out[kW];
  for (uint32_t l = 0; l < kW; l += 4) {
    V4f v;
    std::memcpy(&v, a + l, sizeof(v));
    const V4i is_number = v == v;  // false for NaN
    V4f c = v < -kTwo31 ? -kTwo31 : v;
    c = c > kBelowTwo31 ? kBelowTwo31 : c;
    c = __builtin_bit_cast(V4f, __builtin_bit_cast(V4i, c) & is_number);
    V4i r = __builtin_convertvector(c, V4i);
    const V4i big = v >= kTwo31;
    r = (r & ~big) | (big & std::numeric_limits<int32_t>::max());
    std::memcpy(out + l, &r, sizeof(r));
  }
  StoreColumns<int32_t>(w.Dst(in.dst), out, w.active());
}

// Calls f(Tag<T>) with the C++ type for (kind, width); `as_signed` overrides
// the signedness of integers (SConvert and friends read their operand as
// signed whatever its declared type).
template <typename F>
ExecFn WithType(ScalarKind kind, uint32_t width, F f) {
  if (kind == ScalarKind::kFloat) {
    if (width == 16) return f(Tag<Half>{});
    if (width == 32) return f(Tag<float>{});
    if (width == 64) return f(Tag<double>{});
    return nullptr;
  }
  const bool s = kind == ScalarKind::kInt;
  switch (width) {
    case 8:
      return s ? f(Tag<int8_t>{}) : f(Tag<uint8_t>{});
    case 16:
      return s ? f(Tag<int16_t>{}) : f(Tag<uint16_t>{});
    case 32:
      return s ? f(Tag<int32_t>{}) : f(Tag<uint32_t>{});
    case 64:
      return s ? f(Tag<int64_t>{}) : f(Tag<uint64_t>{});
    default:
      return nullptr;
  }
}

ExecFn PickConvert(ScalarKind src_kind, uint32_t src_width, ScalarKind dst_kind,
                   uint32_t dst_width) {
  return WithType(src_kind, src_width, [&](auto s) -> ExecFn {
    return WithType(dst_kind, dst_width, [&](auto d) -> ExecFn {
      using A = typename decltype(s)::type;
      using R = typename decltype(d)::type;
      if constexpr (std::is_same_v<A, float> && std::is_same_v<R, int32_t>) {
        return &ExecFloatToInt32;
      } else {
        return &ExecUnary<R, A, &Cvt<R, A>>;
      }
    });
  });
}

float QuantizeToF16(float a) { return HalfToFloat(FloatToHalf(a)); }

// OpBitcast between types with a different component layout: the lane's
// source components are serialised little-endian into bytes and read back
// as the destination components. literals[aux..] = [nsrc, ndst, first
// register index in Program::extra, source byte sizes..., destination byte
// sizes...]; Program::extra holds the source then destination registers.
void ExecBitcast(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const Program& p = w.program();
  const uint32_t* lit = &p.literals[in.aux];
  const uint32_t nsrc = lit[0];
  const uint32_t ndst = lit[1];
  const uint32_t* regs = &p.extra[lit[2]];
  const uint32_t* src_bytes = lit + 3;
  const uint32_t* dst_bytes = lit + 3 + nsrc;
  for (uint32_t m = w.active(); m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    uint8_t buf[128] = {};
    uint32_t pos = 0;
    for (uint32_t k = 0; k < nsrc && pos + src_bytes[k] <= sizeof(buf); ++k) {
      const uint32_t* r = w.Reg(regs[k]);
      uint64_t v = r[l];
      if (src_bytes[k] == 8) v |= static_cast<uint64_t>(r[W + l]) << 32;
      std::memcpy(buf + pos, &v, src_bytes[k]);
      pos += src_bytes[k];
    }
    pos = 0;
    for (uint32_t k = 0; k < ndst && pos + dst_bytes[k] <= sizeof(buf); ++k) {
      uint64_t v = 0;
      std::memcpy(&v, buf + pos, dst_bytes[k]);
      pos += dst_bytes[k];
      uint32_t* r = w.Reg(regs[nsrc + k]);
      r[l] = static_cast<uint32_t>(v);
      if (dst_bytes[k] == 8) r[W + l] = static_cast<uint32_t>(v >> 32);
    }
  }
}

bool LowerBitcast(Lowerer& l, const spirv::Inst& inst) {
  const Val src = l.Get(inst.operands[0]);
  if (l.failed()) return true;
  const auto src_flat = l.Flat(src.type_id);
  const auto dst_flat = l.Flat(inst.result_type);
  // Same component layout: a rename, no instruction.
  bool same = src_flat.size() == dst_flat.size();
  for (size_t i = 0; same && i < src_flat.size(); ++i) {
    same = src_flat[i].width == dst_flat[i].width;
  }
  if (same) {
    Val res = src;
    res.type_id = inst.result_type;
    res.ptr = l.PointerInfoOf(inst.result_type);
    l.Alias(inst.result_id, std::move(res));
    return true;
  }
  const std::vector<uint32_t> dst =
      l.Define(inst.result_id, inst.result_type).regs;
  auto& extra = l.program().extra;
  const uint32_t first_reg = static_cast<uint32_t>(extra.size());
  extra.insert(extra.end(), src.regs.begin(), src.regs.end());
  extra.insert(extra.end(), dst.begin(), dst.end());
  auto& lits = l.program().literals;
  const uint32_t lit = static_cast<uint32_t>(lits.size());
  lits.push_back(static_cast<uint32_t>(src.regs.size()));
  lits.push_back(static_cast<uint32_t>(dst.size()));
  lits.push_back(first_reg);
  for (const auto& s : src_flat) lits.push_back(s.width / 8);
  for (const auto& s : dst_flat) lits.push_back(s.width / 8);
  Instr& in = l.Emit(ExecBitcast, inst.opcode, ScalarType{}, inst.word_offset);
  in.pipe = Pipe::kAlu;
  in.aux = lit;
  l.AddUses(src.regs);
  l.AddDefs(dst);
  return true;
}

}  // namespace

bool LowerConversion(Lowerer& l, const spirv::Inst& inst) {
  using spv::Op;
  ScalarKind src_kind, dst_kind;
  switch (inst.opcode) {
    case Op::OpConvertFToU:
      src_kind = ScalarKind::kFloat;
      dst_kind = ScalarKind::kUint;
      break;
    case Op::OpConvertFToS:
      src_kind = ScalarKind::kFloat;
      dst_kind = ScalarKind::kInt;
      break;
    case Op::OpConvertSToF:
      src_kind = ScalarKind::kInt;
      dst_kind = ScalarKind::kFloat;
      break;
    case Op::OpConvertUToF:
      src_kind = ScalarKind::kUint;
      dst_kind = ScalarKind::kFloat;
      break;
    case Op::OpUConvert:
      src_kind = ScalarKind::kUint;
      dst_kind = ScalarKind::kUint;
      break;
    case Op::OpSConvert:
      src_kind = ScalarKind::kInt;
      dst_kind = ScalarKind::kInt;
      break;
    case Op::OpFConvert:
      src_kind = ScalarKind::kFloat;
      dst_kind = ScalarKind::kFloat;
      break;
    case Op::OpQuantizeToF16:
      return LowerWith(
          l, inst, HandlerSet{.f32 = &ExecUnary<float, float, &QuantizeToF16>});
    case Op::OpBitcast:
      return LowerBitcast(l, inst);
    default:
      return false;
  }
  const Val src = l.Get(inst.operands[0]);
  if (l.failed()) return true;
  const ScalarType st = ScalarOf(l, src.type_id);
  const ScalarType dt = ScalarOf(l, inst.result_type);
  ExecFn fn = PickConvert(src_kind, st.width, dst_kind, dt.width);
  if (fn == nullptr) {
    l.Fail(l.UnsupportedAt(
        inst,
        std::string(spirv::OpcodeName(static_cast<uint32_t>(inst.opcode))) +
            " from " + std::to_string(st.width) + "-bit to " +
            std::to_string(dt.width) + "-bit"));
    return true;
  }
  EmitComponentwise(l, inst, fn, {inst.operands[0]});
  return true;
}

}  // namespace warpsim::simt
