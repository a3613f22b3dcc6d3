// Uniformity analysis: which SPIR-V values of a function may differ between
// the invocations of one warp.
//
// NVIDIA's compiler keeps a value it can prove the same in every lane of a
// warp in a uniform register and branches on such a condition without a
// reconvergence barrier: no BSSY before the branch, no BSYNC at the merge
// (cuda_ref's E32: a branch on a loaded word and the loop counter, both the
// same in every lane, has none; E29's branch on a word each lane loads from
// its own address has both). The timing model issues the barrier only
// where a branch's condition may diverge (Program::selection_branches).
//
// The analysis is conservative: a value is *divergent* unless it is proved
// the same in every active lane of a warp. What makes a value divergent:
//   - the lane's own inputs: an Input variable's load (vertex attributes,
//     gl_FragCoord, gl_LocalInvocationID, gl_GlobalInvocationID, ...),
//     except the built-ins one warp shares (gl_WorkGroupID,
//     gl_NumWorkGroups, gl_WorkGroupSize, gl_SubgroupID, gl_SubgroupSize,
//     gl_NumSubgroups, gl_DrawID, gl_BaseVertex, gl_BaseInstance,
//     gl_ViewIndex, gl_DeviceIndex);
//   - an atomic's result, subgroupElect, an inclusive or exclusive scan or
//     a clustered reduction, helperInvocationEXT, a clock read;
//   - an operand that is divergent (a load through a divergent address
//     included); a subgroup operation whose result every active lane shares
//     (all, any, allEqual, ballot, a broadcast, a reduction) is uniform
//     whatever its operand;
//   - a phi where paths that split at a divergent branch join (the
//     branch's sync dependence), and a value computed in a loop that lanes
//     leave on different trips, where it is used after the loop (temporal
//     divergence);
//   - a lane-private variable's load (Function, Private, Output storage)
//     when any store to that variable stores a divergent value, stores
//     through a divergent address, or runs under divergent control (in a
//     block some lanes of a warp may skip).
// Loads from memory the lanes share (buffers, push constants, workgroup
// memory, images) at an address every lane shares are uniform: one warp
// instruction reads one value for all of its lanes.
#ifndef WARPSIM_SIMT_UNIFORMITY_H_
#define WARPSIM_SIMT_UNIFORMITY_H_

#include <cstdint>
#include <vector>

#include "spirv/module.h"

namespace warpsim::simt {

// Per result id (size module.bound()): 1 when the value may differ between
// the invocations of one warp, 0 when it is the same in every active lane.
// Ids no instruction of `fn` defines (constants, globals, types) are 0.
std::vector<uint8_t> DivergentValues(const spirv::Module& module,
                                     const spirv::Function& fn);

}  // namespace warpsim::simt

#endif  // WARPSIM_SIMT_UNIFORMITY_H_
