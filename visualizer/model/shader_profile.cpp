// The shader profile: see shader_profile.h.
#include "model/shader_profile.h"

#include <algorithm>
#include <unordered_map>

namespace warpsim::viz {

uint64_t InstructionCost::stall_cycles() const {
  uint64_t n = 0;
  for (size_t r = 0; r < stalls.size(); ++r) {
    if (r != static_cast<size_t>(trace::StallReason::kSelected)) n += stalls[r];
  }
  return n;
}

ShaderProfile ProfileShaders(const trace::Trace& t) {
  ShaderProfile p;
  p.shaders.resize(t.shaders.size());
  for (size_t s = 0; s < t.shaders.size(); ++s) {
    p.shaders[s].resize(t.shaders[s].lines.size());
  }
  // Where each warp was last: its launch, then one past each issue.
  std::unordered_map<uint64_t, uint64_t> since;
  for (const trace::WarpSpan& w : t.warps) since[w.warp] = w.begin;
  for (const trace::InstructionEvent& e : t.instructions) {
    if (e.shader >= p.shaders.size() || e.pc >= p.shaders[e.shader].size()) {
      continue;
    }
    InstructionCost& c = p.shaders[e.shader][e.pc];
    c.executions += 1;
    c.active_lanes += static_cast<uint64_t>(__builtin_popcount(e.active));
    c.helper_lanes += static_cast<uint64_t>(__builtin_popcount(e.helpers));
    p.events += 1;
    if (e.op == "OpBranchConditional" || e.op == "OpSwitch") {
      c.branch = true;
      const uint32_t taken = e.taken & e.active;
      if (taken != 0 && taken != e.active) c.divergent += 1;
    }
    auto it = since.find(e.warp);
    const uint64_t from = it != since.end() ? it->second : e.cycle;
    if (e.cycle >= from) {
      const uint64_t ready = std::clamp(e.ready, from, e.cycle);
      c.stalls[static_cast<size_t>(e.waited)] += ready - from;
      c.stalls[static_cast<size_t>(trace::StallReason::kNotSelected)] +=
          e.cycle - ready;
      c.stalls[static_cast<size_t>(trace::StallReason::kSelected)] += 1;
    }
    since[e.warp] = std::max(from, e.cycle + 1);
  }
  return p;
}

}  // namespace warpsim::viz
