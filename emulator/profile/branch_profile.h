// BranchProfile: what each branch of a shader cost, measured on the scene
// that ran it (`warpsim compare`, `warpsim run --branches`).
//
// It watches every instruction the drivers issue (simt::StepObserver) and
// keeps, per program, one row per construct of its structured control
// flow:
//   - an if (an OpBranchConditional with an OpSelectionMerge): its sides
//     are the then and else blocks up to the merge block;
//   - a switch (OpSwitch): one side per target block, the default first;
//   - a loop (a block with an OpLoopMerge): one side, the loop's blocks
//     from its header to its merge block;
//   - a conditional branch outside any construct header: to a loop's
//     merge block a "loop_exit" (the test of a for or while loop, or a
//     break chosen per lane), to a loop's continue target a "continue",
//     else a "conditional"; executions and taken lanes, no sides.
//
// Lines. glslang's OpLine gives a branch the line of the condition's last
// instruction, not the `if`'s own; where the program has its source text,
// a row takes the nearest line at or above its first side's (a loop: its
// header's) that holds the construct's keyword (if, switch, for, while,
// do), else the branch's own line or that of the nearest instruction
// before it.
//
// Attribution, in prose. Blocks are laid out in structured order
// (simt/program.h): every instruction of a construct lies between its
// header's branch and its merge block, and each side's blocks follow its
// target block. Each warp keeps a stack of the constructs it is inside,
// each with the lanes that entered it. An issued instruction belongs to
// every construct on the stack (nested costs count in the outer side too)
// and, in each, to the side whose target block is the last one laid out at
// or before it. "Idle lanes" of a side are lanes that entered the
// construct but do not run the instruction: for the innermost construct
// the entering lanes minus the active ones, for an outer one its entering
// lanes minus those of the construct inside it, so that every idle lane
// slot is charged to the one construct whose divergence idled it. A warp
// leaves a construct when it issues an instruction outside its blocks
// (its lanes reconverged at the merge block).
//
// Warp-cycles (timing mode) are the cycles each warp waited before each
// instruction issued (from its previous issue to this one), summed over
// the warps: a side's share of them is its share of the time warps spent.
#ifndef WARPSIM_PROFILE_BRANCH_PROFILE_H_
#define WARPSIM_PROFILE_BRANCH_PROFILE_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "simt/program.h"
#include "simt/warp.h"

namespace warpsim::profile {

enum class BranchKind : uint8_t {
  kIf,
  kSwitch,
  kLoop,
  kLoopExit,
  kContinue,
  kConditional
};
// "if", "switch", "loop", "loop_exit", "continue", "conditional".
const char* BranchKindName(BranchKind kind);

// The instructions issued inside one side of a construct.
struct SideCost {
  std::string name;   // "then", "else", "default", "case 3", "body"
  uint32_t line = 0;  // source line of the side's first instruction (0: none)
  uint64_t warp_instructions = 0;
  uint64_t lane_instructions = 0;         // active lanes, helpers included
  uint64_t helper_lane_instructions = 0;  // of them, helper lanes
  uint64_t idle_lanes = 0;  // lane slots idled by this construct's divergence
  uint64_t cycles = 0;      // warp-cycles (timing mode)
  // Warps that entered the construct and ran this side.
  uint64_t warps = 0;
};

struct BranchCost {
  BranchKind kind = BranchKind::kIf;
  uint32_t pc = 0;     // the branch (a loop: its header's first instruction)
  uint32_t line = 0;   // its source line (GLSL compiled with -g), 0: none
  std::string source;  // that line's text, trimmed (empty: none)
  // Times a warp executed the branch (a loop: entered it), and the lanes
  // it executed with.
  uint64_t warp_executions = 0;
  uint64_t lane_executions = 0;
  uint64_t helper_lane_executions = 0;
  // Lanes that took the first target (if: the then side; switch: a case
  // rather than the default; a loop's header branch: stayed in the loop).
  uint64_t taken_lanes = 0;
  // Executions in which the lanes split: both sides ran (a loop: its lanes
  // ran different numbers of trips).
  uint64_t divergent_executions = 0;
  // Loops: back edges taken (a for or while loop of n iterations takes n),
  // by the warp and by its lanes.
  uint64_t warp_trips = 0;
  uint64_t lane_trips = 0;
  std::vector<SideCost> sides;

  uint64_t warp_instructions() const;  // summed over the sides
  uint64_t cycles() const;
  uint64_t idle_lanes() const;
};

// The rows of one program, in code order, and its totals.
struct ProgramProfile {
  uint64_t warp_instructions = 0;
  uint64_t lane_instructions = 0;
  uint64_t cycles = 0;
  std::vector<BranchCost> branches;
};

class BranchProfile : public simt::StepObserver {
 public:
  void OnStep(const simt::Warp& warp, const simt::InstrRecord& record,
              uint64_t cycle) override;
  // What `program` cost; empty rows when it never ran.
  ProgramProfile Of(const simt::Program& program) const;

 private:
  // A construct of a program, found from its blocks.
  struct Construct {
    BranchKind kind = BranchKind::kIf;
    uint32_t header = 0;                // block
    uint32_t lo = 0, hi = 0;            // instructions [lo, hi) inside it
    std::vector<uint32_t> side_starts;  // first instruction of each side
    size_t row = 0;                     // index into Program::rows
  };
  struct PerProgram {
    std::vector<uint32_t> block_starts;  // first instruction of each block
    std::vector<int32_t> construct_of_header;  // per block: -1 or index
    std::vector<int32_t> row_of_branch_pc;     // per pc: -1 or row
    std::vector<Construct> constructs;
    ProgramProfile profile;
  };
  struct Frame {
    uint32_t construct = 0;
    uint32_t lanes = 0;      // that entered it
    uint32_t entered = 0;    // the lanes at its last trip (loops)
    bool split = false;      // loops: lanes ran different numbers of trips
    uint32_t ran_sides = 0;  // bit s: side s ran (sides beyond 31 share 31)
  };
  struct WarpState {
    const simt::Program* program = nullptr;
    uint64_t last_cycle = 0;
    std::vector<Frame> frames;
  };

  PerProgram& Analyze(const simt::Program& program);
  void Leave(PerProgram& p, WarpState& ws, uint32_t pc);
  void CountBranch(PerProgram& p, WarpState& ws, uint32_t block,
                   BranchCost& row, const simt::InstrRecord& rec);
  static uint32_t SideOf(const Construct& c, uint32_t pc);

  std::map<const simt::Program*, PerProgram> programs_;
  std::unordered_map<const simt::Warp*, WarpState> warps_;
};

// JSON of a program's rows: [{kind, pc, line, source, warp_executions,
// lane_executions, helper_lane_executions, taken_share, divergent_share,
// warp_trips, lane_trips (loops), warp_instructions, idle_lanes,
// warp_cycles, sides: [{name, line, warps, warp_instructions,
// lane_instructions, helper_lane_instructions, idle_lanes, warp_cycles}]}].
// Rows never executed are left out.
nlohmann::json BranchesJson(const ProgramProfile& profile);

}  // namespace warpsim::profile

#endif  // WARPSIM_PROFILE_BRANCH_PROFILE_H_
