// Human-readable listing of a lowered Program (`warpsim disasm`).
#ifndef WARPSIM_SIMT_DISASM_H_
#define WARPSIM_SIMT_DISASM_H_

#include <string>

#include "simt/program.h"

namespace warpsim::simt {

// One line per instruction, grouped by block, with physical registers
// (r0.., constants as c0..) and a header with registers per thread.
std::string DisassembleProgram(const Program& program);

// Instruction `i` of `program` as DisassembleProgram lists it, without the
// index: "OpFAdd [fma] r2 = r0, r1".
std::string InstructionText(const Program& program, uint32_t i);

}  // namespace warpsim::simt

#endif  // WARPSIM_SIMT_DISASM_H_
