#include "simt/exec_common.h"

#include <string>

#include "spirv/grammar.h"

namespace warpsim::simt {

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {
      // Subnormal half: normalise into a float.
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      mant &= 0x3ffu;
      bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | (mant << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(bits);
}

uint16_t FloatToHalf(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t exp = (x >> 23) & 0xff;
  const uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) {
    // Inf stays inf; NaN stays a (quiet) NaN.
    return static_cast<uint16_t>(sign | 0x7c00u |
                                 (mant ? 0x200u | (mant >> 13) : 0));
  }
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow
  if (e <= 0) {
    // Subnormal or zero in half precision.
    if (e < -10) return sign;
    const uint32_t m = mant | 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half_m = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_m & 1u))) ++half_m;
    return static_cast<uint16_t>(sign | half_m);
  }
  uint32_t h = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry to inf
  return static_cast<uint16_t>(sign | h);
}

uint16_t DoubleToHalf(double d) {
  // Round directly from double to avoid double rounding through float.
  if (std::isnan(d)) return 0x7e00;
  const float f = static_cast<float>(d);
  if (static_cast<double>(f) == d) return FloatToHalf(f);
  // Nudge the float towards d by one ulp in the direction of the error so a
  // tie in half precision is never created by the float rounding.
  float toward = std::nextafter(
      f, d > static_cast<double>(f) ? std::numeric_limits<float>::infinity()
                                    : -std::numeric_limits<float>::infinity());
  uint32_t bits = std::bit_cast<uint32_t>(f);
  if ((bits & 0x1fffu) == 0x1000u) return FloatToHalf(toward);
  return FloatToHalf(f);
}

void ExecMove(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const uint32_t* a = w.Reg(in.src[0]);
  uint32_t* d = w.Reg(in.dst);
  for (uint32_t l = 0; l < W; ++l) d[l] = ((act >> l) & 1u) ? a[l] : d[l];
}

void ExecMove64(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const uint32_t* a = w.Reg(in.src[0]);
  uint32_t* d = w.Reg(in.dst);
  for (uint32_t l = 0; l < 2 * W; ++l) {
    d[l] = ((act >> (l % W)) & 1u) ? a[l] : d[l];
  }
}

ScalarType ScalarOf(Lowerer& l, uint32_t type_id) {
  const auto& flat = l.Flat(type_id);
  return flat.empty() ? ScalarType{} : flat[0];
}

void EmitComponentwise(Lowerer& l, const spirv::Inst& inst, ExecFn fn,
                       const std::vector<uint32_t>& operand_ids) {
  std::vector<Val> ops;
  for (uint32_t id : operand_ids) ops.push_back(l.Get(id));
  if (l.failed()) return;
  const ScalarType type = ScalarOf(l, inst.result_type);
  Val& res = l.Define(inst.result_id, inst.result_type);
  const std::vector<uint32_t> dst = res.regs;  // Define may rehash values
  for (size_t c = 0; c < dst.size(); ++c) {
    Instr& in = l.Emit(fn, inst.opcode, type, inst.word_offset);
    in.dst = dst[c];
    for (size_t k = 0; k < ops.size() && k < 4; ++k) {
      const auto& regs = ops[k].regs;
      if (regs.empty()) continue;
      in.src[k] = regs.size() == 1 ? regs[0] : regs[c];
    }
  }
}

ExecFn HandlerSet::Pick(const ScalarType& t) const {
  switch (t.kind) {
    case ScalarKind::kFloat:
      return t.width == 16   ? f16
             : t.width == 64 ? f64
             : t.width == 32 ? f32
                             : nullptr;
    case ScalarKind::kInt:
      return t.width == 8    ? i8
             : t.width == 16 ? i16
             : t.width == 64 ? i64
                             : i32;
    case ScalarKind::kUint:
      return t.width == 8    ? u8
             : t.width == 16 ? u16
             : t.width == 64 ? u64
                             : u32;
    case ScalarKind::kBool:
      return b;
  }
  return nullptr;
}

bool LowerWith(Lowerer& l, const spirv::Inst& inst, const HandlerSet& set,
               bool type_from_operand) {
  uint32_t type_id = inst.result_type;
  if (type_from_operand) {
    const Val& v = l.Get(inst.operands[0]);
    type_id = v.type_id;
  }
  const ScalarType t = ScalarOf(l, type_id);
  ExecFn fn = set.Pick(t);
  if (fn == nullptr) {
    l.Fail(l.UnsupportedAt(
        inst,
        std::string(spirv::OpcodeName(static_cast<uint32_t>(inst.opcode))) +
            " on " + std::to_string(t.width) + "-bit operands"));
    return true;
  }
  EmitComponentwise(l, inst, fn, inst.operands);
  // Pipe by the operand type, not the (bool) result type.
  for (size_t i = l.program().code.size(), n = l.Flat(inst.result_type).size();
       n > 0; --n) {
    Instr& in = l.program().code[--i];
    in.pipe = TimingOf(inst.opcode, 0, t.width, t.is_float()).pipe;
    in.kind = t.kind;
    in.width = t.width;
  }
  return true;
}

}  // namespace warpsim::simt
