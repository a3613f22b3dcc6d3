// Per-opcode metadata shared by the functional executor (to fill
// InstrRecords) and, later, the timing model (sm/): which execution pipe an
// instruction issues to and its latency class.
//
// Pipes follow the Hopper SM sub-partition (REFERENCE.md §1.2): FP32 FMA
// lanes, INT32/ALU lanes, FP64 lanes, the MUFU special-function unit,
// load/store, texture, branch, and barrier/sync.
#ifndef WARPSIM_SIMT_OPCODE_INFO_H_
#define WARPSIM_SIMT_OPCODE_INFO_H_

#include <cstdint>
#include <spirv/unified1/spirv.hpp11>
#include <string_view>

namespace warpsim::simt {

enum class Pipe : uint8_t {
  kNone,    // renames only (no issue slot), e.g. OpCopyObject of registers
  kFma,     // FP32 add/mul/fma, IMAD-class integer multiply
  kAlu,     // INT32 add, logic, shifts, compares, selects, conversions
  kFp64,    // double precision
  kSfu,     // MUFU: rcp, rsqrt, sqrt, lg2, ex2, sin, cos
  kLsu,     // loads, stores, atomics, shared memory
  kTex,     // texture / image sampling
  kBranch,  // control flow
  kSync,    // barriers, subgroup shuffles/votes
};

std::string_view PipeName(Pipe pipe);

// Latency class: fixed-latency arithmetic vs variable-latency (memory, MUFU)
// operations that the timing model tracks with a scoreboard.
enum class LatencyClass : uint8_t { kFixed, kVariable };

struct OpcodeTiming {
  Pipe pipe;
  LatencyClass latency;
};

// `ext` is the GLSL.std.450 instruction number for OpExtInst (else 0);
// `width` the scalar width in bits; `is_float` whether the operands are
// floating point.
OpcodeTiming TimingOf(spv::Op op, uint32_t ext, uint32_t width, bool is_float);

// OpUDiv, OpSDiv, OpUMod, OpSMod, OpSRem.
bool IsIntegerDivision(spv::Op op);

// The instructions after which an invocation runs no more: a return, a
// kill, a terminate, OpUnreachable.
inline bool EndsInvocation(spv::Op op) {
  return op == spv::Op::OpReturn || op == spv::Op::OpReturnValue ||
         op == spv::Op::OpKill || op == spv::Op::OpTerminateInvocation ||
         op == spv::Op::OpUnreachable;
}

// Whether `op` writes a bool: a compare, a logical operation, OpAny,
// OpAll, the float classifications (SPIR-V's opcodes OpAny to
// OpFUnordGreaterThanEqual but OpSelect). NVIDIA's code holds the result
// in a predicate register (ISETP, FSETP, PLOP3).
inline bool WritesPredicate(spv::Op op) {
  const auto n = static_cast<uint32_t>(op);
  return n >= static_cast<uint32_t>(spv::Op::OpAny) &&
         n <= static_cast<uint32_t>(spv::Op::OpFUnordGreaterThanEqual) &&
         op != spv::Op::OpSelect;
}

// The OpAtomic* instructions (flags excepted: warpsim does not lower
// them), float add, min and max (SPV_EXT_shader_atomic_float*) included.
bool IsAtomic(spv::Op op);

inline bool IsBitwise(spv::Op op) {
  return op == spv::Op::OpBitwiseAnd || op == spv::Op::OpBitwiseOr ||
         op == spv::Op::OpBitwiseXor || op == spv::Op::OpNot;
}

// Whether NVIDIA's compiler turns instruction `a` followed by `b`, which
// reads `a`'s result, into one SASS instruction: a multiply and an add
// into IMAD or FFMA (FFMA: floating-point contraction, which GLSL allows
// unless the result is `precise`), two bitwise operations into LOP3, and a
// negation into the consumer's operand modifier. The timing model issues
// such a pair as one instruction (sm::TimingConfig::fuse_pairs), and the
// lowering's block scheduling keeps it together (schedule.h).
inline bool Fusible(spv::Op a, spv::Op b) {
  switch (a) {
    case spv::Op::OpIMul:
      return b == spv::Op::OpIAdd || b == spv::Op::OpISub;
    case spv::Op::OpFMul:
      return b == spv::Op::OpFAdd || b == spv::Op::OpFSub;
    case spv::Op::OpFNegate:
      return b == spv::Op::OpFAdd || b == spv::Op::OpFSub ||
             b == spv::Op::OpFMul || b == spv::Op::OpExtInst;
    case spv::Op::OpSNegate:
      return b == spv::Op::OpIAdd || b == spv::Op::OpISub;
    default:
      return IsBitwise(a) && IsBitwise(b);
  }
}

// Whether `a` may begin such a pair (before looking at the next
// instruction, which costs a Peek()).
inline bool BeginsPair(spv::Op a) {
  return a == spv::Op::OpIMul || a == spv::Op::OpFMul ||
         a == spv::Op::OpFNegate || a == spv::Op::OpSNegate || IsBitwise(a);
}

// Instructions whose memory accesses only read: OpLoad and the image
// reads (sampling, fetch, gather, OpImageRead). Every other instruction
// that accesses memory (stores, atomics, copies, image writes) writes it.
inline bool OnlyReadsMemory(spv::Op op) {
  switch (op) {
    case spv::Op::OpLoad:
    case spv::Op::OpImageRead:
    case spv::Op::OpImageFetch:
    case spv::Op::OpImageSampleImplicitLod:
    case spv::Op::OpImageSampleExplicitLod:
    case spv::Op::OpImageSampleDrefImplicitLod:
    case spv::Op::OpImageSampleDrefExplicitLod:
    case spv::Op::OpImageSampleProjImplicitLod:
    case spv::Op::OpImageSampleProjExplicitLod:
    case spv::Op::OpImageSampleProjDrefImplicitLod:
    case spv::Op::OpImageSampleProjDrefExplicitLod:
    case spv::Op::OpImageGather:
    case spv::Op::OpImageDrefGather:
      return true;
    default:
      return false;
  }
}

// An access chain's Instr::ext bit (the executor's pointer add, one per
// run-time index): it steps a pointer into a storage buffer, where
// NVIDIA's code computes a 64-bit address from the descriptor's base
// (the timing model's TimingConfig::buffer_address). Bits 1, 2 and 4 are
// the executor's (exec_memory.cpp ExecPtrAdd).
inline constexpr uint16_t kBufferAddressExt = 8;

// Whether an instruction of `op` and `ext` is such an access chain.
inline bool IsBufferAddress(spv::Op op, uint32_t ext) {
  return (op == spv::Op::OpAccessChain ||
          op == spv::Op::OpInBoundsAccessChain ||
          op == spv::Op::OpPtrAccessChain ||
          op == spv::Op::OpInBoundsPtrAccessChain) &&
         (ext & kBufferAddressExt) != 0;
}

// The pipe of an integer division or remainder (IsIntegerDivision) of
// `width`-bit operands by the constant `divisor`, as NVIDIA's compiler
// emits it: by a power of two (signed: its magnitude) shifts and masks
// (ALU), by another constant a multiply-high sequence (IMAD, the FMA pipe).
// Never the MUFU.RCP sequence of a divisor known only at run time, which is
// TimingOf's. Fixed latency either way.
Pipe ConstantDivisionPipe(spv::Op op, uint64_t divisor, uint32_t width);

// Whether the instruction rounds a float to an integral value or converts
// a float to an integer (NVIDIA's FRND, F2I): OpConvertFToS, OpConvertFToU,
// GLSL.std.450 Floor, Ceil, Trunc, Round, RoundEven, Fract.
bool IsConversion(spv::Op op, uint32_t ext);

}  // namespace warpsim::simt

#endif  // WARPSIM_SIMT_OPCODE_INFO_H_
