// E3 SIN: mirrors E3Chain<OpSIN, ILP> of cuda_ref/src/e3_instructions.cu
// (sin.approx.ftz.f32 x, x -> SASS FMUL.RZ + MUFU.SIN).
//
// ILP independent chains of x = sin(x) (x decays slowly and stays normal). 256
// steps of every chain are written out by the preprocessor (warpsim unrolls no
// loops), interleaved step by step, and a loop runs them `reps` times (a count
// read from a buffer). The start values come from a buffer.
//
// A step is one SPIR-V instruction, GLSL.std.450 Sin (SASS: two, the range
// reduction FMUL.RZ and MUFU.SIN). Lowered (`warpsim disasm`): the loop body
// block of the ILP-N variant holds exactly 256 x N `OpExtInst.Sin`, each
// reading the register written by the previous Sin of its own chain (ILP 1: 256
// dependent Sin in a row), then the OpBranch to the loop's continue block
// (which holds the counter's OpIAdd). Checked for N = 1, 2, 4 and 8.
#version 450

// ILP: 1, 2, 4 or 8 (Amber: ATTACH ... SPECIALIZE 0 AS uint32 N). Every
// variant is in the program; the branch on ILP runs once, before the loop.
layout(constant_id = 0) const uint ILP = 1u;

layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer Params { uint reps; };
layout(std430, set = 0, binding = 1) readonly buffer Consts {
  float c_init[8];  // chain j starts at c_init[j]
};
// result[invocation * 8 + j] = chain j (chains j >= ILP keep their start).
layout(std430, set = 0, binding = 2) writeonly buffer Out { float result[]; };

#define R4(s) s s s s
#define R16(s) R4(R4(s))
#define R256(s) R16(R16(s))
// S applied to each chain of the ILP-N variant, in chain order.
#define CHAINS1(S) S(x0)
#define CHAINS2(S) S(x0) S(x1)
#define CHAINS4(S) CHAINS2(S) S(x2) S(x3)
#define CHAINS8(S) CHAINS4(S) S(x4) S(x5) S(x6) S(x7)

#define STEP(x) x = sin(x);
#define BODY(N) R256(CHAINS##N(STEP))
#define TIMED_LOOP(N) \
  for (uint r = 0u; r < n; ++r) { BODY(N) }

void main() {
  float x0 = c_init[0], x1 = c_init[1], x2 = c_init[2], x3 = c_init[3];
  float x4 = c_init[4], x5 = c_init[5], x6 = c_init[6], x7 = c_init[7];
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
