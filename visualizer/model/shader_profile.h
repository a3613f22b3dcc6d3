// The shader view's model: per program and instruction, what the trace's
// instruction events say it cost (executions, active and helper lanes,
// the cycles warps waited before issuing it, by reason).
#ifndef WARPSIM_VISUALIZER_MODEL_SHADER_PROFILE_H_
#define WARPSIM_VISUALIZER_MODEL_SHADER_PROFILE_H_

#include <cstdint>
#include <vector>

#include "trace/trace.h"

namespace warpsim::viz {

struct InstructionCost {
  uint64_t executions = 0;    // warp instructions issued
  uint64_t active_lanes = 0;  // summed over executions, helpers included
  uint64_t helper_lanes = 0;
  // Conditional branches and switches: executions whose active lanes went
  // both ways (some took the branch, some did not).
  uint64_t divergent = 0;
  bool branch = false;  // a conditional branch or switch
  // Cycles warps waited before issuing it (since their previous issue or
  // launch), by reason; the issue cycles are executions.
  trace::StallCounts stalls{};
  uint64_t stall_cycles() const;
  double mean_active() const {
    return executions ? static_cast<double>(active_lanes) / executions : 0.0;
  }
};

struct ShaderProfile {
  // Per Trace::shaders entry, per instruction (its pc).
  std::vector<std::vector<InstructionCost>> shaders;
  uint64_t events = 0;  // instruction events counted
};

// Counts the instruction events of `t` (with trace detail "instructions";
// empty otherwise). A warp's wait before an instruction runs from its
// previous issue (or launch) to the issue: the event's `waited` reason up to
// `ready`, not_selected after.
ShaderProfile ProfileShaders(const trace::Trace& t);

}  // namespace warpsim::viz

#endif  // WARPSIM_VISUALIZER_MODEL_SHADER_PROFILE_H_
