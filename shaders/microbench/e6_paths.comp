// E6 P-way divergence: mirrors E6Paths<P> of cuda_ref/src/e6_divergence.cu.
//
// One warp: sel = lane % P, then P sequential `if (sel == p)` regions (not a
// switch, not else-if: P separate branch regions of equal shape, each
// reconverging before the next). Region p is a loop of `trips` trips (from a
// buffer) of 8 dependent x = fma(x, a, p + 1), its own constant so no two
// bodies can merge. With a = 1 from the buffer, lane l (starting at x = l) ends
// with x = l + 8 x trips x (l % P + 1) exactly. P (1, 2, 4, 8, 16 or 32) is
// specialization constant 0; every variant is in the program and the branch on
// P runs once, before the regions.
//
// Lowered (`warpsim disasm`): the P-path variant has P regions, each an
// OpIEqual and OpBranchConditional on sel, then a loop whose body block holds
// exactly 8 `OpExtInst.Fma [fma]` in one dependent chain of 8, and the OpBranch
// to the loop's continue block (which holds the trip counter's OpIAdd) (63 such
// loops in all: 1 + 2 + 4 + 8 + 16 + 32).
//
// A lane is an invocation's index in its workgroup of 32 (CUDA's threadIdx.x),
// which is its subgroup lane where subgroups are 32 wide (the H200, warpsim's
// h200 preset); not gl_SubgroupInvocationID, so that the results do not depend
// on the device's subgroup size (lavapipe's is 8).
#version 450
// The loops stay rolled, as CUDA's `#pragma unroll 1` keeps E6's (FfmaLoop).
#extension GL_EXT_control_flow_attributes : require

layout(constant_id = 0) const uint P = 1u;

layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer Params {
  uint trips;
  float c_a;  // 1
};
layout(std430, set = 0, binding = 1) writeonly buffer Out { float result[]; };

#define R8(s) s s s s s s s s
// Region p: lanes with sel == p run `trips` trips of 8 FMAs adding p + 1.
#define REGION(p, b)                \
  if (sel == p) {                   \
    [[dont_unroll]] for (uint t = 0u; t < n; ++t) { \
      R8(x = fma(x, a, b);)         \
    }                               \
  }
#define PATHS1 REGION(0u, 1.0)
#define PATHS2 PATHS1 REGION(1u, 2.0)
#define PATHS4 PATHS2 REGION(2u, 3.0) REGION(3u, 4.0)
#define PATHS8 \
  PATHS4 REGION(4u, 5.0) REGION(5u, 6.0) REGION(6u, 7.0) REGION(7u, 8.0)
#define PATHS16                                                    \
  PATHS8 REGION(8u, 9.0) REGION(9u, 10.0) REGION(10u, 11.0)        \
      REGION(11u, 12.0) REGION(12u, 13.0) REGION(13u, 14.0)        \
      REGION(14u, 15.0) REGION(15u, 16.0)
#define PATHS32                                                    \
  PATHS16 REGION(16u, 17.0) REGION(17u, 18.0) REGION(18u, 19.0)    \
      REGION(19u, 20.0) REGION(20u, 21.0) REGION(21u, 22.0)        \
      REGION(22u, 23.0) REGION(23u, 24.0) REGION(24u, 25.0)        \
      REGION(25u, 26.0) REGION(26u, 27.0) REGION(27u, 28.0)        \
      REGION(28u, 29.0) REGION(29u, 30.0) REGION(30u, 31.0)        \
      REGION(31u, 32.0)

void main() {
  uint lane = gl_LocalInvocationIndex;  // CUDA: threadIdx.x
  float a = c_a;
  uint n = trips;
  float x = float(lane);
  uint sel = lane % P;
  if (P == 1u) {
    PATHS1
  } else if (P == 2u) {
    PATHS2
  } else if (P == 4u) {
    PATHS4
  } else if (P == 8u) {
    PATHS8
  } else if (P == 16u) {
    PATHS16
  } else {
    PATHS32
  }
  result[gl_GlobalInvocationID.x] = x;
}
