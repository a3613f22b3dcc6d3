#include "simt/opcode_info.h"

#include <spirv/unified1/GLSL.std.450.h>

namespace warpsim::simt {

std::string_view PipeName(Pipe pipe) {
  switch (pipe) {
    case Pipe::kNone:
      return "none";
    case Pipe::kFma:
      return "fma";
    case Pipe::kAlu:
      return "alu";
    case Pipe::kFp64:
      return "fp64";
    case Pipe::kSfu:
      return "sfu";
    case Pipe::kLsu:
      return "lsu";
    case Pipe::kTex:
      return "tex";
    case Pipe::kBranch:
      return "branch";
    case Pipe::kSync:
      return "sync";
  }
  return "?";
}

namespace {

// GLSL.std.450 instructions that the hardware runs on the MUFU unit (one
// transcendental approximation per lane).
bool IsSfuExt(uint32_t ext) {
  switch (ext) {
    case GLSLstd450Sin:
    case GLSLstd450Cos:
    case GLSLstd450Tan:
    case GLSLstd450Asin:
    case GLSLstd450Acos:
    case GLSLstd450Atan:
    case GLSLstd450Atan2:
    case GLSLstd450Sinh:
    case GLSLstd450Cosh:
    case GLSLstd450Tanh:
    case GLSLstd450Asinh:
    case GLSLstd450Acosh:
    case GLSLstd450Atanh:
    case GLSLstd450Pow:
    case GLSLstd450Exp:
    case GLSLstd450Log:
    case GLSLstd450Exp2:
    case GLSLstd450Log2:
    case GLSLstd450Sqrt:
    case GLSLstd450InverseSqrt:
      return true;
    default:
      return false;
  }
}

// Rounding a float to an integral value (FRND on NVIDIA; GLSL fract is a
// FRND and a subtract): the MUFU rate (cuda_ref E3's FRND: the timing
// model's `cvt` figures).
bool IsCvtExt(uint32_t ext) {
  switch (ext) {
    case GLSLstd450Floor:
    case GLSLstd450Ceil:
    case GLSLstd450Trunc:
    case GLSLstd450Round:
    case GLSLstd450RoundEven:
    case GLSLstd450Fract:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool IsIntegerDivision(spv::Op op) {
  return op == spv::Op::OpUDiv || op == spv::Op::OpSDiv ||
         op == spv::Op::OpUMod || op == spv::Op::OpSMod ||
         op == spv::Op::OpSRem;
}

bool IsAtomic(spv::Op op) {
  switch (op) {
    case spv::Op::OpAtomicLoad:
    case spv::Op::OpAtomicStore:
    case spv::Op::OpAtomicExchange:
    case spv::Op::OpAtomicCompareExchange:
    case spv::Op::OpAtomicIIncrement:
    case spv::Op::OpAtomicIDecrement:
    case spv::Op::OpAtomicIAdd:
    case spv::Op::OpAtomicISub:
    case spv::Op::OpAtomicSMin:
    case spv::Op::OpAtomicUMin:
    case spv::Op::OpAtomicSMax:
    case spv::Op::OpAtomicUMax:
    case spv::Op::OpAtomicAnd:
    case spv::Op::OpAtomicOr:
    case spv::Op::OpAtomicXor:
    case spv::Op::OpAtomicFAddEXT:
    case spv::Op::OpAtomicFMinEXT:
    case spv::Op::OpAtomicFMaxEXT:
      return true;
    default:
      return false;
  }
}

Pipe ConstantDivisionPipe(spv::Op op, uint64_t divisor, uint32_t width) {
  const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  uint64_t d = divisor & mask;
  if (op != spv::Op::OpUDiv && op != spv::Op::OpUMod && width > 0 &&
      ((d >> (width - 1)) & 1) != 0) {
    d = (~d + 1) & mask;  // a negative signed divisor: its magnitude
  }
  return d != 0 && (d & (d - 1)) == 0 ? Pipe::kAlu : Pipe::kFma;
}

bool IsConversion(spv::Op op, uint32_t ext) {
  return op == spv::Op::OpConvertFToS || op == spv::Op::OpConvertFToU ||
         (op == spv::Op::OpExtInst && IsCvtExt(ext));
}

OpcodeTiming TimingOf(spv::Op op, uint32_t ext, uint32_t width, bool is_float) {
  using spv::Op;
  const OpcodeTiming fixed_alu{Pipe::kAlu, LatencyClass::kFixed};
  const OpcodeTiming fma{Pipe::kFma, LatencyClass::kFixed};
  const OpcodeTiming fp64{Pipe::kFp64, LatencyClass::kFixed};
  const OpcodeTiming sfu{Pipe::kSfu, LatencyClass::kVariable};
  const OpcodeTiming lsu{Pipe::kLsu, LatencyClass::kVariable};
  const OpcodeTiming branch{Pipe::kBranch, LatencyClass::kFixed};
  const OpcodeTiming sync{Pipe::kSync, LatencyClass::kVariable};
  const OpcodeTiming none{Pipe::kNone, LatencyClass::kFixed};
  // FRND and F2I run at the MUFU rate (cuda_ref E3): the SFU pipe, with the
  // timing model's `cvt` figures.
  if (IsConversion(op, ext)) {
    return op == Op::OpExtInst && width == 64 ? fp64 : sfu;
  }
  switch (op) {
    case Op::OpFAdd:
    case Op::OpFSub:
    case Op::OpFMul:
    case Op::OpFNegate:
    case Op::OpVectorTimesScalar:
    case Op::OpMatrixTimesScalar:
    case Op::OpVectorTimesMatrix:
    case Op::OpMatrixTimesVector:
    case Op::OpMatrixTimesMatrix:
    case Op::OpOuterProduct:
    case Op::OpDot:
      return width == 64 ? fp64 : fma;
    case Op::OpFDiv:
    case Op::OpFRem:
    case Op::OpFMod:
      // A reciprocal on MUFU followed by Newton steps on the FMA pipe.
      return width == 64 ? fp64 : sfu;
    case Op::OpIMul:
    case Op::OpUMulExtended:
    case Op::OpSMulExtended:
      return fma;  // IMAD
    case Op::OpUDiv:
    case Op::OpSDiv:
    case Op::OpUMod:
    case Op::OpSMod:
    case Op::OpSRem:
      return sfu;  // integer division expands to a MUFU.RCP sequence
    case Op::OpExtInst:
      if (IsSfuExt(ext)) return width == 64 ? fp64 : sfu;
      return is_float ? (width == 64 ? fp64 : fma) : fixed_alu;
    case Op::OpLoad:
    case Op::OpStore:
    case Op::OpCopyMemory:
    case Op::OpCopyMemorySized:
    case Op::OpArrayLength:
    case Op::OpAtomicLoad:
    case Op::OpAtomicStore:
    case Op::OpAtomicExchange:
    case Op::OpAtomicCompareExchange:
    case Op::OpAtomicIIncrement:
    case Op::OpAtomicIDecrement:
    case Op::OpAtomicIAdd:
    case Op::OpAtomicISub:
    case Op::OpAtomicSMin:
    case Op::OpAtomicUMin:
    case Op::OpAtomicSMax:
    case Op::OpAtomicUMax:
    case Op::OpAtomicAnd:
    case Op::OpAtomicOr:
    case Op::OpAtomicXor:
    case Op::OpAtomicFAddEXT:
    case Op::OpAtomicFMinEXT:
    case Op::OpAtomicFMaxEXT:
      return lsu;
    case Op::OpImageFetch:
    case Op::OpImageRead:
    case Op::OpImageWrite:
    case Op::OpImageSampleImplicitLod:
    case Op::OpImageSampleExplicitLod:
    case Op::OpImageSampleDrefImplicitLod:
    case Op::OpImageSampleDrefExplicitLod:
    case Op::OpImageGather:
    case Op::OpImageDrefGather:
    case Op::OpImageQuerySize:
    case Op::OpImageQuerySizeLod:
    case Op::OpImageQueryLevels:
    case Op::OpImageQuerySamples:
    case Op::OpImageQueryLod:
      return {Pipe::kTex, LatencyClass::kVariable};
    case Op::OpBranch:
    case Op::OpBranchConditional:
    case Op::OpSwitch:
    case Op::OpReturn:
    case Op::OpReturnValue:
    case Op::OpKill:
    case Op::OpTerminateInvocation:
    case Op::OpUnreachable:
    case Op::OpDemoteToHelperInvocation:
      return branch;
    case Op::OpControlBarrier:
    case Op::OpMemoryBarrier:
      return sync;
    // NVIDIA computes derivatives with quad shuffles (SHFL.BFLY, or FSWZADD:
    // a quad swizzle fused with the add), so they issue as shuffle-class
    // instructions on the sync pipe, not as FMA-pipe subtractions.
    case Op::OpDPdx:
    case Op::OpDPdy:
    case Op::OpFwidth:
    case Op::OpDPdxFine:
    case Op::OpDPdyFine:
    case Op::OpFwidthFine:
    case Op::OpDPdxCoarse:
    case Op::OpDPdyCoarse:
    case Op::OpFwidthCoarse:
      return {Pipe::kSync, LatencyClass::kFixed};
    case Op::OpCopyObject:
    case Op::OpCopyLogical:
    case Op::OpCompositeConstruct:
    case Op::OpCompositeExtract:
    case Op::OpCompositeInsert:
    case Op::OpVectorShuffle:
      return none;
    default:
      break;
  }
  const uint32_t code = static_cast<uint32_t>(op);
  // Subgroup (non-uniform group) operations: shuffles and votes.
  if (code >= static_cast<uint32_t>(Op::OpGroupNonUniformElect) &&
      code <= static_cast<uint32_t>(Op::OpGroupNonUniformQuadSwap)) {
    return sync;
  }
  if (width == 64) return is_float ? fp64 : fixed_alu;
  return is_float ? fma : fixed_alu;
}

}  // namespace warpsim::simt
