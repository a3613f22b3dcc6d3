// A Program is one entry point of a Module lowered for fast warp execution.
//
// Lowering (lower.h) turns SPIR-V's typed SSA values into scalar 32-bit
// *virtual registers*: a vec4 becomes four registers, a 64-bit scalar two
// consecutive ones (low word first), a struct the concatenation of its
// members. Composite extract/insert/shuffle/construct therefore cost nothing:
// they only rename registers, as in a real GPU compiler. Component-wise
// operations become one scalar instruction per component (NVIDIA's ISA is
// scalar per lane too). OpPhi becomes parallel copies on the CFG edges.
//
// After register allocation (regalloc.h) every register operand names a
// physical register; constants live after the last physical register in the
// same per-warp register file, so a handler reads any operand the same way.
//
// Blocks are laid out in *structured order* (see lower.cpp): every block of a
// selection or loop construct comes after its header and before its merge
// block, and a loop's continue target after the loop body. The warp's
// reconvergence rule (warp.h) relies on this order.
#ifndef WARPSIM_SIMT_PROGRAM_H_
#define WARPSIM_SIMT_PROGRAM_H_

#include <cstdint>
#include <spirv/unified1/spirv.hpp11>
#include <string>
#include <vector>

#include "simt/opcode_info.h"

namespace warpsim::simt {

class Warp;
struct Instr;

// Executes one instruction for all active lanes of a warp.
using ExecFn = void (*)(Warp& warp, const Instr& instr);

inline constexpr uint32_t kNoReg = 0xffffffffu;
// A block index that names no block (no merge, no continue target).
inline constexpr uint32_t kNoBlock = 0xffffffffu;
// Before allocation, constant operands are tagged with this bit.
inline constexpr uint32_t kConstTag = 0x80000000u;

// Scalar kinds a handler is specialised for.
enum class ScalarKind : uint8_t { kBool, kInt, kUint, kFloat };

struct Instr {
  ExecFn exec = nullptr;
  spv::Op op = spv::Op::OpNop;  // SPIR-V opcode this came from
  uint16_t ext = 0;             // extended-instruction number, sub-op, ...
  ScalarKind kind = ScalarKind::kUint;
  uint8_t width = 32;      // scalar width in bits of the operation
  Pipe pipe = Pipe::kAlu;  // from opcode_info.h
  // Latency class from opcode_info.h (set by register allocation).
  LatencyClass latency = LatencyClass::kFixed;
  uint32_t dst = kNoReg;  // first destination register
  uint32_t src[4] = {kNoReg, kNoReg, kNoReg, kNoReg};
  uint32_t aux = 0;         // index into a Program side table
  uint32_t spirv_word = 0;  // word offset of the SPIR-V instruction
};

// Whether `b`, right after `a`, reads a's result and NVIDIA's compiler
// makes one SASS instruction of the two (simt::Fusible).
inline bool FusedPair(const Instr& a, const Instr& b) {
  if (a.dst == kNoReg || !BeginsPair(a.op) || !Fusible(a.op, b.op)) {
    return false;
  }
  for (uint32_t s : b.src) {
    if (s == a.dst) return true;
  }
  return false;
}

// One scalar piece of a memory access: register <-> bytes at ptr + offset.
struct MemLeaf {
  uint32_t reg;     // first register of the scalar (kNoReg: none)
  uint32_t offset;  // byte offset from the pointer
  uint8_t bytes;    // 1, 2, 4 or 8
  uint8_t is_bool;  // booleans are 32-bit words in memory
};

// Side-table entry for loads, stores, atomics and copies.
struct MemAccess {
  uint32_t first_leaf = 0;
  uint32_t leaf_count = 0;
  uint32_t ptr_reg = kNoReg;  // pointer: offset register; region = +1
  uint32_t stride = 0;        // access chains: element stride
  uint32_t extra = 0;         // atomics: memory semantics etc.
};

// The registers one instruction reads and writes, for timing models
// (InstrRecord::reads/writes): physical registers after allocation,
// constants left out, a 64-bit value as both of its registers. It includes
// registers named only in side tables (memory leaves, Program::extra) and,
// for a branch, the phi copies of all its edges (sources read, targets
// written). [first, first + reads) in Program::reg_lists are the reads, the
// next `writes` entries the writes.
struct InstrOperands {
  uint32_t first = 0;
  uint16_t reads = 0;
  uint16_t writes = 0;
};

// Parallel copy executed on a CFG edge (from OpPhi).
struct EdgeCopy {
  uint32_t dst;
  uint32_t src;
};

// Side-table entry for a terminator.
struct BranchInfo {
  // Successor block indices. Conditional: [true, false]. Switch: [default,
  // case0, case1, ...].
  std::vector<uint32_t> targets;
  std::vector<uint64_t> case_values;  // switch literals
  // Copies per successor: [first, count) into Program::edge_copies.
  std::vector<std::pair<uint32_t, uint32_t>> copies;
};

// A loop NVIDIA's compiler may unroll (Program::unrolled_loops); the timing
// model issues it unrolled as its TimingConfig says (sm/timing_impl.h
// Unrolls: the body's length, DontUnroll).
struct UnrolledLoop {
  uint32_t exit_branch = 0;  // its conditional branch to the merge block
  uint32_t compare = 0;      // the comparison the branch tests
  uint32_t step = 0;         // the instruction that steps its counter
  int32_t stride = 1;        // what that instruction adds to the counter
  uint32_t merge_pc = 0;     // the first instruction after the loop
  // Its trip count is a constant (a constant bound, a constant start): the
  // compiler unrolls it completely, and none of its control issues.
  bool full = false;
  // A full loop's trip count (counted from its start, step and bound; 0
  // when it would run more than kMaxCountedTrips times or forever).
  uint32_t trips = 0;
  static constexpr uint32_t kMaxCountedTrips = 1u << 16;
  // The instructions a trip issues apart from the loop's control (its
  // compare, exit branch, counter step, what it computes its bound from)
  // and its other branches, a pair NVIDIA's compiler fuses (Fusible) one,
  // an operand from a constant bank or an access chain to a register
  // none (Program::register_private 2 and 3), what a compiler hoists out
  // of the loop (a value every trip computes alike outside the selections'
  // sides: a load of memory the loop does not write from an address that
  // does not change) none. NVIDIA's compiler leaves a
  // loop with a run-time trip count rolled when its body is longer than
  // it unrolls (TimingConfig::loop_unroll_max_body, vulkan_ref's E34).
  uint32_t body = 0;
  // Of `body`, the instructions in the sides of a selection of the loop
  // (blocks a trip may skip). NVIDIA's compiler counts those for less than
  // straight ones against its limit (TimingConfig::loop_unroll_skipped_weight,
  // vulkan_ref's E35).
  uint32_t skipped = 0;
  // Its OpLoopMerge asks DontUnroll (GLSL's [[dont_unroll]]): never `full`;
  // whether it is unrolled is the timing model's
  // (TimingConfig::honour_dont_unroll).
  bool dont_unroll = false;
  // It loads from a buffer or workgroup memory, stores nothing and holds
  // no selection (`skipped` 0): NVIDIA's compiler unrolls such loops with
  // longer bodies than others (TimingConfig::loop_unroll_max_body_loads,
  // from microbench's e5_loads; E35's loops, which load the word their
  // branch tests, part at loop_unroll_max_body; not a loop that loads from
  // a Coherent or Volatile buffer, Program::l1_bypass: E56's such loops
  // part at loop_unroll_max_body).
  bool loads = false;
};

// A structured loop, nested in others or holding others (Program::loops),
// for the register-count model: whether NVIDIA's compiler unrolls it
// completely, alone or with the loops it holds.
struct LoopRange {
  uint32_t begin = 0;  // its first instruction (its header's)
  uint32_t end = 0;    // the first instruction after it (its merge block's)
  // Its trip count is a constant (as UnrolledLoop::full, whether innermost
  // or not): the compiler unrolls it completely.
  bool constant = false;
  uint32_t trips = 0;  // as UnrolledLoop::trips
  // Constant, and so is every loop inside it: the compiler unrolls the
  // whole nest.
  bool whole = false;
};

// A selection NVIDIA's compiler may turn into predicated code
// (Program::predicated): the instructions its code has on each side, in
// order, those of a loop it unrolls completely once per trip.
struct PredicatedSelection {
  uint32_t branch = 0;  // the header's conditional branch
  // Per side (the branch's true and false targets): the instructions that
  // issue when the warp runs it; empty where the target is the merge.
  std::vector<uint32_t> side[2];
  // The registers the sides write: those their instructions write, or the
  // words of variables held in registers they store where those are more,
  // each counted once (a store through a computed address each time).
  uint32_t written = 0;
  // A side holds a loop (one the compiler unrolls completely, or the
  // selection would not be listed): in a loop NVIDIA's compiler unrolls
  // with a run-time trip count, its code for such a side writes the last
  // copy's results to other registers and moves them back once a pass
  // (vulkan_ref/results/h100/sass-2026-12-07: register_pressure's held1,
  // E46's chase_if4 and load_if4; TimingConfig::selection_loop_moves).
  bool holds_loop = false;
  uint32_t size() const {
    return static_cast<uint32_t>(side[0].size() + side[1].size());
  }
  // The most instructions a selection may have to be listed.
  static constexpr uint32_t kMaxInstructions = 64;
};

struct BlockInfo {
  uint32_t first_instr = 0;            // index into Program::code
  uint32_t label = 0;                  // SPIR-V label id
  uint32_t merge_block = kNoBlock;     // structured merge (block index)
  uint32_t continue_block = kNoBlock;  // loops
  // A loop whose OpLoopMerge asks DontUnroll (GLSL [[dont_unroll]]):
  // UnrolledLoop::dont_unroll.
  bool dont_unroll = false;
};

// Where a shader interface variable or built-in lives in lane-private memory.
// Interface variables are split into one slot per built-in and per
// location (arrays and matrices take consecutive locations; block members
// their own), so stages can be matched location by location.
enum class Interpolation : uint8_t { kSmooth, kFlat, kNoPerspective };

struct InputSlot {
  spv::BuiltIn builtin = spv::BuiltIn::Max;  // Max: a user input (location)
  uint32_t location = 0xffffffffu;
  uint32_t component = 0;   // first component within the location
  uint32_t offset = 0;      // byte offset in lane-private memory
  uint32_t bytes = 0;       // size in bytes
  uint32_t components = 0;  // scalar components
  uint32_t scalar_bits = 32;
  ScalarKind kind = ScalarKind::kFloat;
  Interpolation interpolation = Interpolation::kSmooth;
  uint32_t type_id = 0;
};

// A descriptor-bound resource the program reads or writes.
struct ResourceSlot {
  uint32_t set = 0;
  uint32_t binding = 0;
  uint32_t array_size = 1;  // arrays of descriptors
  spv::StorageClass storage = spv::StorageClass::Max;
  uint32_t variable_id = 0;
  uint32_t type_id = 0;  // pointee type (block struct)
  uint32_t region = 0;   // first memory region index
  bool is_push_constant = false;
  bool is_image = false;
};

// The memory region numbering used by pointer registers (pointer = region
// register + byte offset register).
inline constexpr uint32_t kRegionPrivate = 0;    // lane-private memory
inline constexpr uint32_t kRegionWorkgroup = 1;  // the workgroup's memory
inline constexpr uint32_t kRegionFirstResource = 2;

struct Program {
  std::string source;  // the module's file, for runtime diagnostics
  std::string entry_name;
  spv::ExecutionModel model = spv::ExecutionModel::Max;
  std::vector<Instr> code;
  std::vector<BlockInfo> blocks;  // structured order; blocks[0] = entry
  std::vector<BranchInfo> branches;
  std::vector<EdgeCopy> edge_copies;
  // Indexed by the first copy of an edge: 1 when the edge's copies form a
  // cycle (a swap) and must read every source before writing; 0 when they
  // are ordered so that running them one after the other is the same.
  // Missing entries count as cyclic. Set by register allocation.
  std::vector<uint8_t> edge_copy_cyclic;
  std::vector<MemAccess> mem_accesses;
  std::vector<MemLeaf> mem_leaves;
  // Register lists used by instructions with many operands (Instr::aux
  // points here). Holds registers only: register allocation rewrites it.
  std::vector<uint32_t> extra;
  // Literal tables (shuffle selectors, ...): never rewritten.
  std::vector<uint32_t> literals;
  // Per instruction: its register operands (set by register allocation;
  // empty before).
  std::vector<InstrOperands> operands;
  std::vector<uint32_t> reg_lists;

  // Registers. Before allocation: virtual_regs virtual registers. After:
  // num_regs physical registers, constants from num_regs on.
  uint32_t virtual_regs = 0;
  uint32_t num_regs = 0;  // registers per thread after allocation
  // The register-count model's estimate of what NVIDIA's compiler uses
  // (regalloc.cpp); the report's registers_per_thread.
  uint32_t model_regs = 0;
  // Per instruction: 1 for an unconditional branch that NVIDIA's code has
  // no instruction for: one to the block laid out right after it (a fall
  // through) or a loop's back edge to its header (the compiler rotates a
  // loop, testing its condition at the bottom, so the jump back is the
  // header's conditional branch). The timing model issues it with the
  // instruction before it (TimingConfig::free_layout_branches).
  std::vector<uint8_t> layout_free;
  // The loops NVIDIA's compiler unrolls when their trip count is known only
  // at run time (unroll.cpp, from vulkan_ref's E16; up to a body length and
  // whatever their loop control asks, E34: UnrolledLoop), and per
  // instruction 0
  // or 1 + the index of the loop whose control it is: the exit comparison,
  // the exit branch and the counter's step, which the timing model issues
  // once per TimingConfig::loop_unroll trips, as the unrolled code does;
  // and what the loop computes its bound from on every trip, hoisted out of
  // the loop (never issued).
  std::vector<UnrolledLoop> unrolled_loops;
  std::vector<uint32_t> loop_control;
  // Per instruction (empty when none): for a load in a loop with a
  // run-time trip count (an unrolled_loops entry, its index + 1) whose
  // address comes from no load of the loop, and the loop writes no memory,
  // that index; else 0. NVIDIA's code issues such a load's copies in a
  // group of unrolled trips together, ahead of their uses; the timing
  // model starts the group's later copies when it issued the first.
  std::vector<uint32_t> ahead_loads;
  // Per instruction (empty when none): 1 for a load or store of a
  // lane-private variable the register-count model holds in registers
  // (regalloc_model.cpp), 3 for a load of a uniform block's or push
  // constants' word at an offset known at compile time (an operand from a
  // constant bank in NVIDIA's code: Lowerer::constant_loads()), 2 for an
  // access chain whose pointer only such loads and stores use: NVIDIA's
  // code has registers where the executor has lane-private memory, and the
  // timing model issues a load or store as a move between registers, not
  // a memory access, a constant-bank load as no instruction whose value is
  // there at once, and the access chain as no instruction
  // (TimingConfig::free_register_moves).
  std::vector<uint8_t> register_private;
  // Per instruction (empty when none): 1 for a load of a buffer through a
  // pointer decorated Coherent or Volatile (on its variable or a block
  // member on the way), which NVIDIA's code reads past the L1
  // (LDG.E.STRONG.GPU: vulkan_ref's sass-2026-12-07d); the timing model
  // neither looks it up in the L1 nor keeps its lines there
  // (MemoryTiming::coherent_bypasses_l1).
  std::vector<uint8_t> l1_bypass;
  // Every structured loop, innermost or not (unroll.cpp), in header order.
  std::vector<LoopRange> loops;
  // Per instruction: 1 when it repeats an earlier arithmetic instruction of
  // its block on the same operands (no write to them in between), which
  // NVIDIA's compiler computes once (common subexpressions: glslang writes
  // `fract(3.0 * d) * fract(3.0 * d)` as two of each). The timing model
  // issues it with the instruction before it (TimingConfig::cse).
  std::vector<uint8_t> redundant;
  // Per instruction: 1 when it continues a chain of float multiplies,
  // adds and subtracts by constants on one value in its block (x = x * a +
  // c, written out k times): an affine map of the chain's first input,
  // which NVIDIA's compiler folds into the chain's first multiply-add
  // (vulkan_ref's E45: in_none's 16 a trip take one's time). The chain's
  // first instruction (and the add fused with it) is not marked. The
  // timing model issues a marked one with the instruction before it
  // (TimingConfig::fold_constant_chains).
  std::vector<uint8_t> folded;
  // Per instruction (empty when none): 1 when it lies in a loop with a
  // run-time trip count (an unrolled_loops entry) outside the sides of the
  // loop's selections and computes alike on every trip (from constants,
  // values the loop does not write and such instructions; a load only when
  // the loop writes no memory): NVIDIA's compiler computes it once, before
  // the loop. Not in UnrolledLoop::body; the timing model issues it with
  // the instruction before it (TimingConfig::hoist_invariants).
  std::vector<uint8_t> hoisted;
  // Selections whose sides hold only arithmetic, moves through variables
  // held in registers, discards and loops unrolled completely, at most
  // PredicatedSelection::kMaxInstructions of them (lower_model.cpp), and
  // per instruction 0 or 1 + the index of the one whose conditional branch
  // it is. NVIDIA's compiler predicates such a selection when it is small
  // (vulkan_ref's E27): no branch, and the warp issues both sides whichever
  // its lanes take. The timing model does so up to
  // TimingConfig::predicate_max_instructions.
  std::vector<PredicatedSelection> predicated_selections;
  std::vector<uint32_t> predicated;
  // Per instruction (empty when none): 1 for the conditional branch of a
  // selection header (OpSelectionMerge) whose sides both come back to its
  // merge (no return, discard, break or continue), whether or not it is
  // listed above. NVIDIA's compiler brackets such a branch, where it branches,
  // with a reconvergence barrier (BSSY before it, BSYNC at the merge:
  // cuda_ref's E29); the timing model issues them
  // (TimingConfig::selection_sync_slots). Not a branch in uniform_branches:
  // the compiler needs no barrier where no warp's lanes can part (E32).
  std::vector<uint8_t> selection_branches;
  // Per instruction (empty when none): 1 for a conditional branch whose
  // condition is the same in every active lane of a warp (uniformity.h).
  std::vector<uint8_t> uniform_branches;
  // Per instruction (empty when none): 1 + the index in `loops` of the loop
  // whose test it is, for a loop tested at its top (glslang's `for` and
  // `while`): the first conditional branch of the loop, in its header or
  // the block the header goes to, that leaves it for its merge block, and
  // the compare that writes the branch's condition in those blocks. NVIDIA's
  // compiler rotates such a loop and computes the next trip's test among the
  // body's first instructions (cuda_ref's E6 SASS: the counter's UIADD3 and
  // the ISETP between the first two of 8 dependent FFMA), so the test waits
  // out its predicate's latency while the body runs
  // (TimingConfig::predicate_latency).
  std::vector<uint32_t> loop_tests;
  // Per instruction (empty when none): 1 + the index in `loops` of the
  // loop whose control NVIDIA's compiler places in the body of a rotated
  // loop tested at its top: the test's compare (loop_tests) and the
  // counter's step (an integer add or subtract of a constant in the loop's
  // continue block). cuda_ref's E6 SASS has the step and the compare
  // between the body's dependent FFMA, where they take issue cycles the
  // chain leaves idle (TimingConfig::loop_control_in_bubbles).
  std::vector<uint32_t> loop_fills;
  // Per instruction: the source line it came from (the module's OpLine:
  // GLSL compiled with -g), 0 where none; and the module's source text by
  // line (spirv::Module::SourceLines), empty when it has none. For viewers
  // only.
  std::vector<uint32_t> source_lines;
  std::vector<std::string> source_text;
  std::vector<uint32_t> const_values;  // one 32-bit word per constant slot
  // const_values, each repeated kConstColumnWidth times: the constants'
  // register columns, which the warps of that width read here instead of
  // each keeping a copy of its own (a timing run has hundreds of warps
  // resident, and their copies would crowd the host's caches). Filled by
  // BroadcastConstants(); empty or stale-sized: every warp copies.
  std::vector<uint32_t> const_columns;

  // Memory sizes.
  uint32_t private_bytes = 0;    // lane-private bytes per lane
  uint32_t workgroup_bytes = 0;  // workgroup memory per workgroup
  std::vector<InputSlot> inputs;
  std::vector<InputSlot> outputs;
  std::vector<ResourceSlot> resources;
  uint32_t num_regions = kRegionFirstResource;

  // Compute: workgroup size (after specialization).
  uint32_t local_size[3] = {1, 1, 1};
  // Fragment execution modes.
  bool early_fragment_tests = false;
  bool depth_replacing = false;
  bool origin_upper_left = true;
  bool uses_barrier = false;
};

// The warp width whose constant columns a Program keeps (Program::
// const_columns; simt/warp.h's kMaxWarpWidth, the width warps run at).
inline constexpr uint32_t kConstColumnWidth = 32;

// Fills program->const_columns from its const_values (LowerProgram does; a
// program whose constants change afterwards must call it again).
inline void BroadcastConstants(Program* program) {
  program->const_columns.clear();
  program->const_columns.reserve(program->const_values.size() *
                                 kConstColumnWidth);
  for (const uint32_t v : program->const_values) {
    program->const_columns.insert(program->const_columns.end(),
                                  kConstColumnWidth, v);
  }
}

}  // namespace warpsim::simt

#endif  // WARPSIM_SIMT_PROGRAM_H_
