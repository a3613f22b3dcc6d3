// E5 (a) FFMA latency hiding: mirrors FfmaKernel of cuda_ref/src/e5_hiding.cu
// (series "ffma": fma.rn.f32 x, x, a, 0.5 -> SASS FFMA Rx, Rx, Ra, 0.5; series
// "ffma_3reg": fma.rn.f32 x, x, a, b -> FFMA Rx, Rx, Ra, Rb).
//
// Every invocation runs one dependent chain of x = fma(x, a, 0.5) (or
// fma(x, a, b) with THREE_REGS = 1): a loop of `loop_iters` trips (16 in CUDA:
// 4096 FFMA per thread) over 256 steps written out by the preprocessor (warpsim
// unrolls no loops). a = 0.999 and b = 0.5 are read from a buffer into locals;
// x starts at the float whose bits are 0x3f800000 + the invocation's index in
// its workgroup, as in CUDA. The workgroup size, i.e. the warps of one block
// (CUDA: W warps per SM in one block for W <= 32), is specialization constant 0
// (local_size_x_id = 0).
//
// Lowered (`warpsim disasm`): the loop body block of each variant holds exactly
// 256 `OpExtInst.Fma [fma]` in one dependent chain of 256 (the "ffma" variant
// with the constant 0.5, the "ffma_3reg" variant with b in a register), then
// the OpBranch to the loop's continue block (which holds the counter's OpIAdd).
#version 450

layout(local_size_x_id = 0) in;
// 0: series "ffma" (a register and the constant 0.5); 1: "ffma_3reg".
layout(constant_id = 1) const uint THREE_REGS = 0u;

layout(std430, set = 0, binding = 0) readonly buffer Params {
  float c_a;  // 0.999
  float c_b;  // 0.5
  uint loop_iters;
};
// result[global invocation] = floatBitsToUint(x), as CUDA's out[].
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint result[]; };

#define R4(s) s s s s
#define R16(s) R4(R4(s))
#define R256(s) R16(R16(s))

void main() {
  float a = c_a;
  float b = c_b;
  uint n = loop_iters;
  float x = uintBitsToFloat(0x3f800000u + gl_LocalInvocationIndex);
  if (THREE_REGS == 0u) {
    for (uint it = 0u; it < n; ++it) {
      R256(x = fma(x, a, 0.5);)
    }
  } else {
    for (uint it = 0u; it < n; ++it) {
      R256(x = fma(x, a, b);)
    }
  }
  result[gl_GlobalInvocationID.x] = floatBitsToUint(x);
}
