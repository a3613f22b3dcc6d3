// E3 DFMA: mirrors E3Chain<OpDFMA, ILP> of cuda_ref/src/e3_instructions.cu
// (fma.rn.f64 x, x, a, b -> SASS DFMA). Needs shaderFloat64 (warpsim has it;
// the H200 too).
//
// ILP independent chains of x = fma(x, a, b) in double precision. The body, 256
// steps of every chain, is written out by the preprocessor (warpsim unrolls no
// loops), and a loop runs it `reps` times (a count read from a buffer). a = 0.5
// and b = 0.5 are read from a buffer into locals, so no compiler can fold or
// hoist a step; the chains converge to 1. (CUDA uses 0.9999 and 0.0001; with a
// power of two x * a is exact, so a device whose fma is not fused, as Vulkan
// allows and lavapipe does, computes the same values.)
//
// Lowered (`warpsim disasm`): the loop body block of the ILP-N variant holds
// exactly 256 x N `OpExtInst.Fma.64 [fp64]`, each reading the register written
// by the previous Fma of its own chain (ILP 1: 256 dependent Fma in a row),
// then the OpBranch to the loop's continue block (which holds the counter's
// OpIAdd). Checked for N = 1, 2, 4 and 8.
#version 450

// ILP: 1, 2, 4 or 8 (Amber: ATTACH ... SPECIALIZE 0 AS uint32 N). Every
// variant is in the program; the branch on ILP runs once, before the loop.
layout(constant_id = 0) const uint ILP = 1u;

layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer Params { uint reps; };
layout(std430, set = 0, binding = 1) readonly buffer Consts {
  double c_a;
  double c_b;
  double c_init[8];  // chain j starts at c_init[j]
};
// result[invocation * 8 + j] = chain j (chains j >= ILP keep their start).
layout(std430, set = 0, binding = 2) writeonly buffer Out { double result[]; };

#define R4(s) s s s s
#define R16(s) R4(R4(s))
#define R256(s) R16(R16(s))
// S applied to each chain of the ILP-N variant, in chain order.
#define CHAINS1(S) S(x0)
#define CHAINS2(S) S(x0) S(x1)
#define CHAINS4(S) CHAINS2(S) S(x2) S(x3)
#define CHAINS8(S) CHAINS4(S) S(x4) S(x5) S(x6) S(x7)

#define STEP(x) x = fma(x, a, b);
#define BODY(N) R256(CHAINS##N(STEP))
#define TIMED_LOOP(N) \
  for (uint r = 0u; r < n; ++r) { BODY(N) }

void main() {
  double a = c_a;
  double b = c_b;
  double x0 = c_init[0], x1 = c_init[1], x2 = c_init[2], x3 = c_init[3];
  double x4 = c_init[4], x5 = c_init[5], x6 = c_init[6], x7 = c_init[7];
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
