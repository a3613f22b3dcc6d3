// E6 nested divergence: mirrors E6Nested<D> of cuda_ref/src/e6_divergence.cu.
//
// One warp: D-level if/else on the lane's bits D-1 .. 0 (D = 2: bit 1, then bit
// 0; D = 3: bits 2, 1, 0), 2^D leaves; leaf `leaf` (the lane's low D bits) is a
// loop of `trips` trips (from a buffer) of 8 dependent x = fma(x, a, leaf + 1),
// its own constant so no two leaves can merge. With a = 1 from the buffer, lane
// l (starting at x = l) ends with x = l + 8 x trips x (l % 2^D + 1) exactly. D
// (2 or 3) is specialization constant 0; both variants are in the program and
// the branch on D runs once, before the nest.
//
// Lowered (`warpsim disasm`): 2^D - 1 selection regions per variant, each an
// OpBitwiseAnd of the lane bit and OpBranchConditional; each leaf a loop whose
// body block holds exactly 8 `OpExtInst.Fma [fma]` in one dependent chain of 8,
// and the OpBranch to the loop's continue block (which holds the trip counter's
// OpIAdd) (12 such loops in all: 4 + 8).
//
// A lane is an invocation's index in its workgroup of 32 (CUDA's threadIdx.x),
// which is its subgroup lane where subgroups are 32 wide (the H200, warpsim's
// h200 preset); not gl_SubgroupInvocationID, so that the results do not depend
// on the device's subgroup size (lavapipe's is 8).
#version 450
// The loops stay rolled, as CUDA's `#pragma unroll 1` keeps E6's (FfmaLoop).
#extension GL_EXT_control_flow_attributes : require

layout(constant_id = 0) const uint DEPTH = 2u;

layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer Params {
  uint trips;
  float c_a;  // 1
};
layout(std430, set = 0, binding = 1) writeonly buffer Out { float result[]; };

#define R8(s) s s s s s s s s
#define LEAF(b)                   \
  [[dont_unroll]] for (uint t = 0u; t < n; ++t) { \
    R8(x = fma(x, a, b);)         \
  }
// if/else on lane bit `bit`: bit set -> HI, clear -> LO.
#define SPLIT(bit, HI, LO)          \
  if ((lane & (1u << bit)) != 0u) { \
    HI                              \
  } else {                          \
    LO                              \
  }

void main() {
  uint lane = gl_LocalInvocationIndex;  // CUDA: threadIdx.x
  float a = c_a;
  uint n = trips;
  float x = float(lane);
  if (DEPTH == 2u) {
    SPLIT(1u, SPLIT(0u, LEAF(4.0), LEAF(3.0)),
          SPLIT(0u, LEAF(2.0), LEAF(1.0)))
  } else {
    SPLIT(2u,
          SPLIT(1u, SPLIT(0u, LEAF(8.0), LEAF(7.0)),
                SPLIT(0u, LEAF(6.0), LEAF(5.0))),
          SPLIT(1u, SPLIT(0u, LEAF(4.0), LEAF(3.0)),
                SPLIT(0u, LEAF(2.0), LEAF(1.0))))
  }
  result[gl_GlobalInvocationID.x] = x;
}
