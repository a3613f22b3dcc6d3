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
