// Composite instructions. Composites are lists of scalar registers, so
// construct / extract / insert / shuffle / transpose with constant indices
// only rename registers and emit nothing. Dynamic indexing of a vector
// (OpVectorExtractDynamic / OpVectorInsertDynamic) compares the index with
// each component and selects, as a GPU compiler would without indexable
// registers.
#include <string>

#include "simt/exec_common.h"

namespace warpsim::simt {
namespace {

using spirv::TypeKind;

// OpVectorExtractDynamic: d = v[index] (out of range reads component 0).
void ExecExtractDynamic(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const Program& p = w.program();
  const uint32_t n = in.ext & 0x7fffu;  // component count
  const uint32_t* idx = w.Reg(in.src[0]);
  const uint32_t* idx_hi = (in.ext & 0x8000u) ? w.Reg(in.src[0] + 1) : nullptr;
  const uint32_t words = in.width == 64 ? 2 : 1;
  uint32_t* d = w.Dst(in.dst);
  for (uint32_t l = 0; l < W; ++l) {
    if (!((act >> l) & 1u)) continue;
    uint64_t i = idx[l];
    if (idx_hi) i |= static_cast<uint64_t>(idx_hi[l]) << 32;
    if (i >= n) i = 0;
    const uint32_t* s = w.Reg(p.extra[in.aux + i]);
    for (uint32_t k = 0; k < words; ++k) d[k * W + l] = s[k * W + l];
  }
}

template <typename T>
bool Equal(T a, T b) {
  return a == b;
}
template <typename T>
T Choose(bool c, T a, T b) {
  return c ? a : b;
}

}  // namespace

bool LowerComposite(Lowerer& l, const spirv::Inst& inst) {
  using spv::Op;
  switch (inst.opcode) {
    case Op::OpCompositeConstruct: {
      Val res;
      res.type_id = inst.result_type;
      for (uint32_t id : inst.operands) {
        const Val& v = l.Get(id);
        res.regs.insert(res.regs.end(), v.regs.begin(), v.regs.end());
      }
      l.MarkLargeAggregate(res);
      l.Alias(inst.result_id, std::move(res));
      return true;
    }
    case Op::OpCompositeExtract: {
      const Val v = l.Get(inst.operands[0]);
      if (l.failed()) return true;
      auto [first, type] = l.FlatPath(v.type_id, inst.operands.data() + 1,
                                      inst.operands.size() - 1);
      const size_t n = l.Flat(inst.result_type).size();
      Val res;
      res.type_id = inst.result_type;
      if (first + n > v.regs.size()) {
        l.Fail(l.InvalidAt(inst, "composite index out of range"));
        return true;
      }
      res.regs.assign(v.regs.begin() + first, v.regs.begin() + first + n);
      l.Alias(inst.result_id, std::move(res));
      return true;
    }
    case Op::OpCompositeInsert: {
      const Val obj = l.Get(inst.operands[0]);
      Val res = l.Get(inst.operands[1]);
      if (l.failed()) return true;
      auto [first, type] = l.FlatPath(res.type_id, inst.operands.data() + 2,
                                      inst.operands.size() - 2);
      for (size_t k = 0; k < obj.regs.size() && first + k < res.regs.size();
           ++k) {
        res.regs[first + k] = obj.regs[k];
      }
      res.type_id = inst.result_type;
      l.MarkLargeAggregate(res);
      l.Alias(inst.result_id, std::move(res));
      return true;
    }
    case Op::OpVectorShuffle: {
      const Val a = l.Get(inst.operands[0]);
      const Val b = l.Get(inst.operands[1]);
      if (l.failed()) return true;
      Val res;
      res.type_id = inst.result_type;
      const ScalarType t = ScalarOf(l, inst.result_type);
      for (size_t i = 2; i < inst.operands.size(); ++i) {
        const uint32_t k = inst.operands[i];
        if (k == 0xffffffffu) {
          res.regs.push_back(l.ConstReg(0, t.wide()));  // undefined component
        } else if (k < a.regs.size()) {
          res.regs.push_back(a.regs[k]);
        } else if (k - a.regs.size() < b.regs.size()) {
          res.regs.push_back(b.regs[k - a.regs.size()]);
        } else {
          l.Fail(l.InvalidAt(inst, "shuffle component out of range"));
          return true;
        }
      }
      l.Alias(inst.result_id, std::move(res));
      return true;
    }
    case Op::OpTranspose: {
      const Val a = l.Get(inst.operands[0]);
      if (l.failed()) return true;
      const spirv::Type& mt = l.module().type(a.type_id);
      const uint32_t cols = mt.count;
      const uint32_t rows = l.module().type(mt.element).count;
      Val res;
      res.type_id = inst.result_type;
      for (uint32_t r = 0; r < rows; ++r) {
        for (uint32_t c = 0; c < cols; ++c)
          res.regs.push_back(a.regs[c * rows + r]);
      }
      l.Alias(inst.result_id, std::move(res));
      return true;
    }
    case Op::OpVectorExtractDynamic: {
      const Val v = l.Get(inst.operands[0]);
      const Val idx = l.Get(inst.operands[1]);
      if (l.failed()) return true;
      const ScalarType t = ScalarOf(l, inst.result_type);
      const ScalarType it = ScalarOf(l, idx.type_id);
      const uint32_t dst = l.Define(inst.result_id, inst.result_type).regs[0];
      Instr& in = l.Emit(ExecExtractDynamic, inst.opcode, t, inst.word_offset);
      in.pipe = Pipe::kAlu;
      in.dst = dst;
      in.src[0] = idx.regs[0];
      in.ext = static_cast<uint16_t>(v.regs.size() | (it.wide() ? 0x8000u : 0));
      in.aux = static_cast<uint32_t>(l.program().extra.size());
      l.program().extra.insert(l.program().extra.end(), v.regs.begin(),
                               v.regs.end());
      l.AddUses(v.regs);
      return true;
    }
    case Op::OpVectorInsertDynamic: {
      // result[k] = (index == k) ? component : vector[k]
      const Val v = l.Get(inst.operands[0]);
      const Val comp = l.Get(inst.operands[1]);
      const Val idx = l.Get(inst.operands[2]);
      if (l.failed()) return true;
      const ScalarType t = ScalarOf(l, inst.result_type);
      const ScalarType it = ScalarOf(l, idx.type_id);
      const std::vector<uint32_t> dst =
          l.Define(inst.result_id, inst.result_type).regs;
      for (size_t k = 0; k < dst.size(); ++k) {
        // cond = (index == k)
        const uint32_t cond = l.NewReg(false);
        Instr& c = l.Emit(nullptr, Op::OpIEqual, it, inst.word_offset);
        c.dst = cond;
        c.src[0] = idx.regs[0];
        c.src[1] = l.ConstReg(k, it.wide());
        c.exec = it.wide()
                     ? &ExecBinary<bool, uint64_t, uint64_t, &Equal<uint64_t>>
                     : &ExecBinary<bool, uint32_t, uint32_t, &Equal<uint32_t>>;
        Instr& s = l.Emit(nullptr, Op::OpSelect, t, inst.word_offset);
        s.dst = dst[k];
        s.src[0] = cond;
        s.src[1] = comp.regs[0];
        s.src[2] = v.regs[k];
        s.exec = t.wide() ? &ExecTernary<uint64_t, bool, uint64_t, uint64_t,
                                         &Choose<uint64_t>>
                          : &ExecTernary<uint32_t, bool, uint32_t, uint32_t,
                                         &Choose<uint32_t>>;
      }
      return true;
    }
    default:
      return false;
  }
}

}  // namespace warpsim::simt
