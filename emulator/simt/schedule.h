// The order of each block's instructions as NVIDIA's compiler schedules
// them: a list scheduler over the block's dependences that issues first
// what the longest chain of latencies waits on. cuda_ref's SASS shows
// ptxas doing so (E32, E33: a loop's load and its address arithmetic at the
// top of the body, before the independent FFMA that the program text puts
// first; the load's consumer at the bottom; a branch's compare early), and
// a warp issues in that order, waiting where an operand is not there yet.
//
// The lowering reorders Program::code within each block before register
// allocation (LowerOptions::schedule); the executor runs the new order,
// which computes the same results: an instruction moves only past
// instructions it has no dependence with (registers read and written,
// memory of the same kind where one of them writes it, and never past a
// barrier, a clock read, a demote, a subgroup or derivative operation, or
// anything else with an effect outside its registers). A block's
// terminator stays last. A multiply and the add that reads it (and the
// other pairs of simt::Fusible) stay together, as the timing model fuses
// them (sm::TimingConfig::fuse_pairs).
#ifndef WARPSIM_SIMT_SCHEDULE_H_
#define WARPSIM_SIMT_SCHEDULE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "base/diagnostic.h"
#include "simt/program.h"

namespace warpsim::simt {

class Lowerer;

// The scheduled order of the lowered, not yet allocated `program`: order[k]
// is the index in Program::code of the instruction at position k. Empty
// when no block changes. Blocks of more than kMaxScheduledBlock
// instructions keep their order.
std::vector<uint32_t> BlockOrder(const Lowerer& lowerer,
                                 const Program& program);
inline constexpr uint32_t kMaxScheduledBlock = 4096;

// Puts `program`'s instructions in `order` (BlockOrder's, or HoistOrder's
// with its block starts), with every per-instruction table of the program
// and the lowerer.
void ApplyBlockOrder(Lowerer& lowerer, Program* program,
                     const std::vector<uint32_t>& order,
                     const std::vector<uint32_t>* starts = nullptr);

// NVIDIA's compiler also schedules across a selection: cuda_ref's SASS
// shows ptxas computing E31's next chase index, which the program computes
// after an `if` around one multiply-add, before the predicated
// multiply-add, and E32's bra_k16 issuing the FFMA the program puts after
// an `if` (a branch around 24 IMAD) before its branch. The order that moves
// such instructions: for each selection (a header block with
// OpSelectionMerge and a conditional branch whose blocks branch only among
// themselves and to its merge block), the merge block's instructions that
// depend on nothing its blocks compute, nor on its phis, and that only
// compute registers (no memory, no cross-lane or derivative operation, no
// division), move to the end of the header block, before its branch; from
// the innermost selection out, so that one may move up several. The lanes
// that run the header are the ones that reach the merge block (structured
// control flow, no return, kill or terminate inside), so the results are
// the same. `starts` gets each block's new first instruction. Empty when
// nothing moves.
std::vector<uint32_t> HoistOrder(const Lowerer& lowerer, const Program& program,
                                 std::vector<uint32_t>* starts);

// Reorders the lowered, not yet allocated `program`: HoistOrder's moves,
// then BlockOrder's. When anything moves, `model_regs` gets the
// register-count model's count on the order the lowering wrote (against
// which that model was measured: Program::model_regs), from an allocation
// of an unscheduled copy.
Status ScheduleProgram(Lowerer& lowerer, Program* program,
                       std::optional<uint32_t>* model_regs);

}  // namespace warpsim::simt

#endif  // WARPSIM_SIMT_SCHEDULE_H_
