// Human-readable text for SPIR-V words, driven by the generated grammar
// tables (used by `warpsim disasm` and by diagnostics and test failures).
#ifndef WARPSIM_SPIRV_DISASSEMBLE_H_
#define WARPSIM_SPIRV_DISASSEMBLE_H_

#include <cstdint>
#include <span>
#include <string>

#include "spirv/binary.h"

namespace warpsim::spirv {

// Prints a header comment and one instruction per line in the style of
// spirv-dis: "%name = OpFAdd %float %a %b". Ids print as %N, or as their
// OpName (made unique) when one exists; enum operands print by name, masks
// as "A|B", literal numbers by their type (OpConstant of a float prints a
// float), strings quoted, GLSL.std.450 instructions by name. Malformed input
// yields text ending in an "; error: ..." line, never a crash.
std::string Disassemble(std::span<const uint32_t> words);

// One instruction without id names (for diagnostics): "%7 = OpFAdd %5 %6 %4"
// style, result type first as in the binary.
std::string DisassembleInstruction(const Instruction& inst);

}  // namespace warpsim::spirv

#endif  // WARPSIM_SPIRV_DISASSEMBLE_H_
