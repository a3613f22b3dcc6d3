// E3 IADD3: mirrors E3Chain<OpIADD3, ILP> of cuda_ref/src/e3_instructions.cu
// (add.s32 on a two-register Fibonacci chain -> SASS IADD3, and about half
// IMAD.IADD: see that file's header).
//
// ILP independent chains, each a Fibonacci pair (u, v): u = u + v, then v = v +
// u, alternating (32-bit, wrapping); every sum is used twice, so no two adds
// fold into one 3-input add. 256 steps of every chain (128 pairs) are written
// out by the preprocessor (warpsim unrolls no loops), interleaved step by step,
// and a loop runs them `reps` times (a count read from a buffer). The start
// values come from a buffer.
//
// Lowered (`warpsim disasm`): the loop body block of the ILP-N variant holds
// 256 x N `OpIAdd` of the chains, each reading the sum before it in its own
// chain (ILP 1: a dependent chain of 256), then the OpBranch to the loop's
// continue block (checked for N = 1, 2, 4, 8).
#version 450

// ILP: 1, 2, 4 or 8 (Amber: ATTACH ... SPECIALIZE 0 AS uint32 N). Every
// variant is in the program; the branch on ILP runs once, before the loop.
layout(constant_id = 0) const uint ILP = 1u;

layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer Params { uint reps; };
layout(std430, set = 0, binding = 1) readonly buffer Consts {
  uint c_init[16];  // chain j starts at (u, v) = (c_init[2j], c_init[2j+1])
};
// result[invocation * 8 + j] = v of chain j (chains j >= ILP keep their
// start).
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint result[]; };

#define R2(s) s s
#define R4(s) s s s s
#define R16(s) R4(R4(s))
#define R128(s) R2(R4(R16(s)))
// S applied to each chain of the ILP-N variant, in chain order.
#define CHAINS1(S) S(u0, v0)
#define CHAINS2(S) S(u0, v0) S(u1, v1)
#define CHAINS4(S) CHAINS2(S) S(u2, v2) S(u3, v3)
#define CHAINS8(S) CHAINS4(S) S(u4, v4) S(u5, v5) S(u6, v6) S(u7, v7)

#define STEP_U(u, v) u = u + v;
#define STEP_V(u, v) v = v + u;
#define BODY(N) R128(CHAINS##N(STEP_U) CHAINS##N(STEP_V))
#define TIMED_LOOP(N) \
  for (uint r = 0u; r < n; ++r) { BODY(N) }

void main() {
  uint u0 = c_init[0], v0 = c_init[1], u1 = c_init[2], v1 = c_init[3];
  uint u2 = c_init[4], v2 = c_init[5], u3 = c_init[6], v3 = c_init[7];
  uint u4 = c_init[8], v4 = c_init[9], u5 = c_init[10], v5 = c_init[11];
  uint u6 = c_init[12], v6 = c_init[13], u7 = c_init[14], v7 = c_init[15];
  uint n = reps;
  if (ILP == 1u) {
    TIMED_LOOP(1)
  } else if (ILP == 2u) {
    TIMED_LOOP(2)
  } else if (ILP == 4u) {
    TIMED_LOOP(4)
  } else {
    TIMED_LOOP(8)
  }
  uint o = gl_LocalInvocationIndex * 8u;
  result[o + 0u] = v0;
  result[o + 1u] = v1;
  result[o + 2u] = v2;
  result[o + 3u] = v3;
  result[o + 4u] = v4;
  result[o + 5u] = v5;
  result[o + 6u] = v6;
  result[o + 7u] = v7;
}
