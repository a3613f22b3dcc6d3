#include "simt/disasm.h"

#include <cstdio>
#include <string>

#include "spirv/grammar.h"

namespace warpsim::simt {
namespace {

std::string RegName(const Program& p, uint32_t r) {
  if (r == kNoReg) return "";
  if (r >= p.num_regs) {
    const uint32_t slot = r - p.num_regs;
    char buf[48];
    std::snprintf(buf, sizeof(buf), "c[0x%x]",
                  slot < p.const_values.size() ? p.const_values[slot] : 0u);
    return buf;
  }
  return "r" + std::to_string(r);
}

}  // namespace

std::string InstructionText(const Program& p, uint32_t i) {
  const Instr& in = p.code[i];
  std::string line(spirv::OpcodeName(static_cast<uint32_t>(in.op)));
  if (in.op == spv::Op::OpExtInst) {
    line += "." + std::string(spirv::GlslStd450Name(in.ext));
  }
  if (in.width != 32 && in.width != 0) line += "." + std::to_string(in.width);
  line += " [" + std::string(PipeName(in.pipe)) + "]";
  if (in.dst != kNoReg) line += " " + RegName(p, in.dst) + " =";
  bool first = true;
  for (uint32_t s : in.src) {
    if (s == kNoReg) continue;
    line += first ? " " : ", ";
    line += RegName(p, s);
    first = false;
  }
  // Loads and stores: the registers of each scalar leaf and its byte
  // offset from the pointer.
  if ((in.op == spv::Op::OpLoad || in.op == spv::Op::OpStore) &&
      in.aux < p.mem_accesses.size()) {
    const MemAccess& acc = p.mem_accesses[in.aux];
    line += in.op == spv::Op::OpLoad ? " ->" : " <-";
    for (uint32_t k = 0; k < acc.leaf_count; ++k) {
      const MemLeaf& leaf = p.mem_leaves[acc.first_leaf + k];
      line += (k == 0 ? " " : ", ") + RegName(p, leaf.reg) + "@+" +
              std::to_string(leaf.offset);
    }
  }
  if (in.pipe == Pipe::kBranch && in.aux < p.branches.size() &&
      (in.op == spv::Op::OpBranch || in.op == spv::Op::OpBranchConditional ||
       in.op == spv::Op::OpSwitch)) {
    line += " ->";
    for (uint32_t t : p.branches[in.aux].targets)
      line += " block" + std::to_string(t);
  }
  return line;
}

std::string DisassembleProgram(const Program& p) {
  std::string out;
  out += "; entry point \"" + p.entry_name + "\"\n";
  out += "; registers per thread: " + std::to_string(p.num_regs) +
         " (executor), " + std::to_string(p.model_regs) +
         " (NVIDIA model, before the GPU's minimum)\n";
  out += "; instructions: " + std::to_string(p.code.size()) +
         ", blocks: " + std::to_string(p.blocks.size()) +
         ", constants: " + std::to_string(p.const_values.size()) + " words\n";
  out += "; lane-private bytes: " + std::to_string(p.private_bytes) +
         ", workgroup bytes: " + std::to_string(p.workgroup_bytes) + "\n";
  if (p.model == spv::ExecutionModel::GLCompute) {
    out += "; local size: " + std::to_string(p.local_size[0]) + " x " +
           std::to_string(p.local_size[1]) + " x " +
           std::to_string(p.local_size[2]) + "\n";
  }
  for (size_t b = 0; b < p.blocks.size(); ++b) {
    const BlockInfo& bi = p.blocks[b];
    out += "block" + std::to_string(b) + " (%" + std::to_string(bi.label) + ")";
    if (bi.merge_block != 0xffffffffu)
      out += " merge=block" + std::to_string(bi.merge_block);
    if (bi.continue_block != 0xffffffffu) {
      out += " continue=block" + std::to_string(bi.continue_block);
    }
    out += ":\n";
    const uint32_t end = b + 1 < p.blocks.size()
                             ? p.blocks[b + 1].first_instr
                             : static_cast<uint32_t>(p.code.size());
    for (uint32_t i = bi.first_instr; i < end; ++i) {
      char head[32];
      std::snprintf(head, sizeof(head), "  %5u  ", i);
      out += head + InstructionText(p, i);
      if (i < p.redundant.size() && p.redundant[i] != 0) {
        out += "  ; repeats an earlier instruction";
      }
      if (i < p.folded.size() && p.folded[i] != 0) {
        out += "  ; folded into its chain's first multiply-add";
      }
      if (i < p.hoisted.size() && p.hoisted[i] != 0) {
        out += "  ; the same every trip: hoisted out of its loop";
      }
      if (i < p.register_private.size() && p.register_private[i] != 0) {
        out += p.register_private[i] == 1   ? "  ; a variable held in registers"
               : p.register_private[i] == 3 ? "  ; a constant-bank operand"
                                            : "  ; an address no code computes";
      }
      if (i < p.uniform_branches.size() && p.uniform_branches[i] != 0) {
        out += "  ; a condition every lane of a warp shares";
      }
      if (i < p.predicated.size() && p.predicated[i] != 0) {
        const PredicatedSelection& sel =
            p.predicated_selections[p.predicated[i] - 1];
        out += "  ; sides of " + std::to_string(sel.size()) +
               " instructions writing " + std::to_string(sel.written) +
               " registers" + (sel.holds_loop ? ", holding a loop" : "") +
               ": predicated up to the GPU config's limits";
      }
      // Control of a loop the timing model may issue as unrolled.
      if (i < p.loop_control.size() && p.loop_control[i] != 0) {
        const uint32_t loop = p.loop_control[i] - 1;
        out += "  ; unrolled loop " + std::to_string(loop);
        if (loop < p.unrolled_loops.size()) {
          const UnrolledLoop& l = p.unrolled_loops[loop];
          const uint32_t trips = l.trips;
          out += l.full
                     ? (trips != 0 ? " (completely, " + std::to_string(trips) +
                                         " trips)"
                                   : std::string(" (completely)"))
                     : " (body " + std::to_string(l.body) +
                           (l.skipped != 0 ? ", " + std::to_string(l.skipped) +
                                                 " in selections"
                                           : std::string()) +
                           (l.loads ? ", loads" : "") +
                           (l.dont_unroll ? ", DontUnroll" : "") +
                           (l.stride != 1 && l.stride != -1
                                ? ", step " + std::to_string(l.stride) + ")"
                                : std::string(")"));
        }
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace warpsim::simt
