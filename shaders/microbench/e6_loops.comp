// E6 per-lane loop trip counts: mirrors E6PerLaneLoop of
// cuda_ref/src/e6_divergence.cu.
//
// One warp, one loop: lane i runs trips[i] trips (from a buffer) of 8 dependent
// x = fma(x, a, 1.0); the warp keeps issuing until its slowest lane is done.
// With a = 1 from the buffer, lane i (starting at x = i) ends with x = i + 8
// trips[i] exactly.
//
// Lowered (`warpsim disasm`): the loop body block holds exactly 8
// `OpExtInst.Fma [fma]` in one dependent chain of 8, then the OpBranch to the
// loop's continue block (which holds the trip counter's OpIAdd); the loop's
// header compares the counter with the lane's own trip count (a divergent
// exit).
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
  float c_a;  // 1
  uint trips[32];  // per lane
};
layout(std430, set = 0, binding = 1) writeonly buffer Out { float result[]; };

#define R8(s) s s s s s s s s

void main() {
  uint lane = gl_LocalInvocationIndex;  // CUDA: threadIdx.x
  float a = c_a;
  uint n = trips[lane];
  float x = float(lane);
  [[dont_unroll]] for (uint t = 0u; t < n; ++t) {
    R8(x = fma(x, a, 1.0);)
  }
  result[gl_GlobalInvocationID.x] = x;
}
