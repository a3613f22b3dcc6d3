#include "simt/exec_common.h"

#include <string>

#include "spirv/grammar.h"

namespace warpsim::simt {

void ExecMove(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const uint32_t* a = w.Reg(in.src[0]);
  uint32_t* d = w.Dst(in.dst);
  for (uint32_t l = 0; l < W; ++l) d[l] = ((act >> l) & 1u) ? a[l] : d[l];
}

void ExecMove64(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const uint32_t* a = w.Reg(in.src[0]);
  uint32_t* d = w.Dst(in.dst);
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
  // An integer division by a constant: no MUFU (ConstantDivisionPipe).
  if (IsIntegerDivision(inst.opcode) && inst.operands.size() >= 2) {
    if (const std::vector<uint64_t>* words =
            l.ConstantWords(inst.operands[1])) {
      const size_t n = l.Flat(inst.result_type).size();
      const size_t end = l.program().code.size();
      if (words->size() == n && n <= end) {
        for (size_t c = 0; c < n; ++c) {
          l.program().code[end - n + c].pipe =
              ConstantDivisionPipe(inst.opcode, (*words)[c], t.width);
        }
      }
    }
  }
  return true;
}

}  // namespace warpsim::simt
