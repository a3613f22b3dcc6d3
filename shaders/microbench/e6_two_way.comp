// E6 two-way divergence: mirrors E6TwoWay of cuda_ref/src/e6_divergence.cu.
//
// One warp: lanes with index < k run path A, the others path B. Each path is a
// loop of trips_a (trips_b) trips of 8 dependent x = fma(x, a, b_path); k and
// the trip counts come from a buffer, so no compiler can unroll the loops or
// if-convert the branch, and each path has its own constant b (1 for A, 2 for
// B) so the two bodies cannot merge. With a = 1 from the buffer a path adds b
// per FMA, so lane l, starting at l, ends with x = l + 8 x trips x b exactly
// (CUDA: a = 0.999.., b = 0.001.. from 1 + 0.001 l; the values do not change
// the timing).
//
// Lowered (`warpsim disasm`): an OpULessThan and OpBranchConditional on the
// lane index open the region; each path's loop body block holds exactly 8
// `OpExtInst.Fma [fma]` in one dependent chain of 8, then the OpBranch to the
// loop's continue block (which holds the trip counter's OpIAdd); both paths
// rejoin at the region's merge block.
//
// A lane is an invocation's index in its workgroup of 32 (CUDA's threadIdx.x),
// which is its subgroup lane where subgroups are 32 wide (the H200, warpsim's
// h200 preset); not gl_SubgroupInvocationID, so that the results do not depend
// on the device's subgroup size (lavapipe's is 8).
#version 450
// The loops stay rolled, as CUDA's `#pragma unroll 1` keeps E6's (FfmaLoop).
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer Params {
  uint k;
  uint trips_a;
  uint trips_b;
  float c_a;  // 1
};
layout(std430, set = 0, binding = 1) writeonly buffer Out { float result[]; };

#define R8(s) s s s s s s s s

void main() {
  uint lane = gl_LocalInvocationIndex;  // CUDA: threadIdx.x
  float a = c_a;
  uint ta = trips_a;
  uint tb = trips_b;
  float x = float(lane);
  if (lane < k) {
    [[dont_unroll]] for (uint t = 0u; t < ta; ++t) {
      R8(x = fma(x, a, 1.0);)
    }
  } else {
    [[dont_unroll]] for (uint t = 0u; t < tb; ++t) {
      R8(x = fma(x, a, 2.0);)
    }
  }
  result[gl_GlobalInvocationID.x] = x;
}
