// Barriers, helper-invocation control and clocks.
#include "simt/exec_common.h"

namespace warpsim::simt {
namespace {

// OpControlBarrier: the warp waits until every warp of its workgroup has
// arrived (the dispatcher releases it). Memory is coherent in warpsim's
// functional model, so memory barriers need no action.
void ExecControlBarrier(Warp& w, const Instr& in) { w.EnterBarrier(); }
void ExecNop(Warp& w, const Instr& in) {}

void ExecDemote(Warp& w, const Instr& in) { w.DemoteLanes(w.active()); }

void ExecIsHelper(Warp& w, const Instr& in) {
  uint32_t* d = w.Dst(in.dst);
  for (uint32_t m = w.active(); m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    d[l] = (w.helper() >> l) & 1u;
  }
}

// OpReadClockKHR: warpsim has no cycle clock in functional mode; it returns
// the dispatch's warp-instruction count so far, which increases
// monotonically like a clock.
void ExecReadClock(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint64_t now = w.context().warp_instructions;
  uint32_t* d = w.Dst(in.dst);
  for (uint32_t m = w.active(); m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    if (in.width == 64) {
      StoreLane<uint64_t>(d, W, l, now);
    } else {
      // uvec2 result: low word here, high word in the next component.
      d[l] = static_cast<uint32_t>(now);
    }
  }
}

}  // namespace

bool LowerMisc(Lowerer& l, const spirv::Inst& inst) {
  using spv::Op;
  switch (inst.opcode) {
    case Op::OpControlBarrier: {
      // A barrier with Subgroup (or Invocation) execution scope needs no
      // waiting: a warp's lanes already run in lockstep and warpsim's memory
      // is coherent. Only Workgroup scope makes warps wait for each other.
      const auto scope = l.ConstantValue(inst.operands[0]);
      if (scope && (*scope == static_cast<uint32_t>(spv::Scope::Subgroup) ||
                    *scope == static_cast<uint32_t>(spv::Scope::Invocation))) {
        Instr& in =
            l.Emit(ExecNop, inst.opcode, ScalarType{}, inst.word_offset);
        in.pipe = Pipe::kSync;
        return true;
      }
      l.program().uses_barrier = true;
      Instr& in = l.Emit(ExecControlBarrier, inst.opcode, ScalarType{},
                         inst.word_offset);
      in.pipe = Pipe::kSync;
      return true;
    }
    case Op::OpMemoryBarrier: {
      Instr& in = l.Emit(ExecNop, inst.opcode, ScalarType{}, inst.word_offset);
      in.pipe = Pipe::kSync;
      return true;
    }
    case Op::OpDemoteToHelperInvocation: {
      Instr& in =
          l.Emit(ExecDemote, inst.opcode, ScalarType{}, inst.word_offset);
      in.pipe = Pipe::kBranch;
      return true;
    }
    case Op::OpIsHelperInvocationEXT: {
      const uint32_t dst = l.Define(inst.result_id, inst.result_type).regs[0];
      Instr& in =
          l.Emit(ExecIsHelper, inst.opcode, ScalarType{}, inst.word_offset);
      in.dst = dst;
      return true;
    }
    case Op::OpReadClockKHR: {
      const std::vector<uint32_t> dst =
          l.Define(inst.result_id, inst.result_type).regs;
      const ScalarType t = ScalarOf(l, inst.result_type);
      Instr& in = l.Emit(ExecReadClock, inst.opcode, t, inst.word_offset);
      in.dst = dst[0];
      if (dst.size() > 1) {
        // uvec2: the high word is written as 0 by a move of constant 0.
        Instr& hi =
            l.Emit(ExecMove, inst.opcode, ScalarType{}, inst.word_offset);
        hi.dst = dst[1];
        hi.src[0] = l.ConstReg(0);
      }
      return true;
    }
    default:
      return false;
  }
}

}  // namespace warpsim::simt
