// E3 LOP3: mirrors E3Chain<OpLOP3, ILP> of cuda_ref/src/e3_instructions.cu
// (lop3.b32 x, x, a_k, b_k, 0x6A: (x & a) ^ b -> SASS LOP3.LUT).
//
// ILP independent chains of x = (x & a_k) ^ b_k, k rotating over 4 constant
// pairs read from a buffer into locals (so no compiler can fold two steps into
// one); 256 steps of every chain (64 rotations) are written out by the
// preprocessor (warpsim unrolls no loops), interleaved step by step, and a loop
// runs them `reps` times (a count read from a buffer).
//
// SPIR-V has no 3-input logic op: one step is OpBitwiseAnd then OpBitwiseXor,
// two dependent warp instructions where SASS has one LOP3. Lowered
// (`warpsim disasm`): the loop body block of the ILP-N variant holds exactly
// 256 x N `OpBitwiseAnd` and 256 x N `OpBitwiseXor`, alternating along each
// chain (ILP 1: a dependent chain of 512), then the OpBranch to the loop's
// continue block (which holds the counter's OpIAdd). Checked for N = 1, 2, 4
// and 8.
#version 450

// ILP: 1, 2, 4 or 8 (Amber: ATTACH ... SPECIALIZE 0 AS uint32 N). Every
// variant is in the program; the branch on ILP runs once, before the loop.
layout(constant_id = 0) const uint ILP = 1u;

layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer Params { uint reps; };
layout(std430, set = 0, binding = 1) readonly buffer Consts {
  uint c_a[4];
  uint c_b[4];
  uint c_init[8];  // chain j starts at c_init[j]
};
// result[invocation * 8 + j] = chain j (chains j >= ILP keep their start).
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint result[]; };

#define R4(s) s s s s
#define R16(s) R4(R4(s))
#define R64(s) R4(R16(s))
// S applied to each chain of the ILP-N variant, in chain order.
#define CHAINS1(S) S(x0)
#define CHAINS2(S) S(x0) S(x1)
#define CHAINS4(S) CHAINS2(S) S(x2) S(x3)
#define CHAINS8(S) CHAINS4(S) S(x4) S(x5) S(x6) S(x7)

#define STEP0(x) x = (x & a0) ^ b0;
#define STEP1(x) x = (x & a1) ^ b1;
#define STEP2(x) x = (x & a2) ^ b2;
#define STEP3(x) x = (x & a3) ^ b3;
#define BODY(N)                                                           \
  R64(CHAINS##N(STEP0) CHAINS##N(STEP1) CHAINS##N(STEP2) CHAINS##N(STEP3))
#define TIMED_LOOP(N) \
  for (uint r = 0u; r < n; ++r) { BODY(N) }

void main() {
  uint a0 = c_a[0], a1 = c_a[1], a2 = c_a[2], a3 = c_a[3];
  uint b0 = c_b[0], b1 = c_b[1], b2 = c_b[2], b3 = c_b[3];
  uint x0 = c_init[0], x1 = c_init[1], x2 = c_init[2], x3 = c_init[3];
  uint x4 = c_init[4], x5 = c_init[5], x6 = c_init[6], x7 = c_init[7];
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
  result[o + 0u] = x0;
  result[o + 1u] = x1;
  result[o + 2u] = x2;
  result[o + 3u] = x3;
  result[o + 4u] = x4;
  result[o + 5u] = x5;
  result[o + 6u] = x6;
  result[o + 7u] = x7;
}
