// E19 instruction fetch: mirrors FetchKernel<false, N> of
// cuda_ref/src/e19_instruction_fetch.cu (fma.rn.f32 x, x, a, 0.5 -> SASS
// FFMA).
//
// A loop whose body is N independent FFMA: 8 chains of x = fma(x, a, b),
// interleaved step by step, N / 8 steps of each, written out by the
// preprocessor. No instruction waits for another (8 chains cover FFMA's
// latency), so a sub-partition issues one per cycle as long as its
// instruction cache holds the loop: the loop's code, N instructions, is
// what the experiment varies. A loop runs the body `reps` times (a count
// read from a buffer, like CUDA's runtime count). a = b = 0.5, read from a
// buffer; the chains converge to 1.
//
// Lowered (`warpsim disasm`): the loop body block of the variant N holds
// exactly N `OpExtInst.Fma [fma]`, then the branch to the loop's continue
// block. N: 1024, 1792, 2048, 2560 or 4096.
#version 450

// N (Amber: ATTACH ... SPECIALIZE 0 AS uint32 N). Every variant is in the
// program; the branch on N runs once, before the loop.
layout(constant_id = 0) const uint N = 1024u;

layout(local_size_x = 128) in;  // 4 warps: one per sub-partition
layout(std430, set = 0, binding = 0) readonly buffer Params { uint reps; };
layout(std430, set = 0, binding = 1) readonly buffer Consts {
  float c_a;
  float c_b;
};
// result[invocation] = the sum of the 8 chains.
layout(std430, set = 0, binding = 2) writeonly buffer Out { float result[]; };

#define R2(s) s s
#define R4(s) R2(R2(s))
#define R8(s) R2(R4(s))
#define R16(s) R2(R8(s))
#define R32(s) R2(R16(s))
#define R64(s) R2(R32(s))
#define R128(s) R2(R64(s))
#define R256(s) R2(R128(s))
#define R512(s) R2(R256(s))
#define STEP8 \
  x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); \
  x3 = fma(x3, a, b); x4 = fma(x4, a, b); x5 = fma(x5, a, b); \
  x6 = fma(x6, a, b); x7 = fma(x7, a, b);
#define LOOP(STEPS) \
  for (uint r = 0u; r < n; ++r) { STEPS }

void main() {
  float a = c_a;
  float b = c_b;
  float x0 = 0.0, x1 = 0.125, x2 = 0.25, x3 = 0.375;
  float x4 = 0.5, x5 = 0.625, x6 = 0.75, x7 = 0.875;
  uint n = reps;
  if (N == 1024u) {
    LOOP(R128(STEP8))
  } else if (N == 1792u) {
    LOOP(R128(STEP8) R64(STEP8) R32(STEP8))
  } else if (N == 2048u) {
    LOOP(R256(STEP8))
  } else if (N == 2560u) {
    LOOP(R256(STEP8) R64(STEP8))
  } else {
    LOOP(R512(STEP8))
  }
  result[gl_LocalInvocationIndex] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}
