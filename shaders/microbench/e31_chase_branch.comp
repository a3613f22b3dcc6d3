// E31 chase with a branch: mirrors ChaseKernel<B> of
// cuda_ref/src/e31_chase_branch.cu, the loop of samples/timing_families'
// register_pressure draws as a compute shader.
//
// Each invocation walks `trips` steps idx = data[idx] (every lane of a warp
// the same address: idx starts at the warp's number, loaded, as in CUDA);
// after each load, BODY (specialization constant 1) = 0: nothing; 1: if the
// loaded word equals `never` (a value no word holds) one multiply-add
// acc = acc * word + 1; 24: the same test around 24 dependent multiply-adds
// acc = acc * word + k, k = 1..24. The walk is the buffer's contents: data[i]
// = (i + step) & mask with step 0 (same word), 1 (next word) or 32 (next
// line); trips, never and the mask come from a buffer. The workgroup size is
// specialization constant 0 (W warps of 32).
//
// Lowered (`warpsim disasm`): the selection on BODY, outside the loops, then
// three loops; each body holds the OpAccessChain and OpLoad of the step,
// then (BODY 1 and 24) an OpIEqual on the loaded word and a selection around
// the body's OpIMul/OpIAdd pairs (CUDA: one IMAD each), then the
// OpBitwiseAnd of the next index and the OpBranch to the loop's continue
// block (the counter's OpIAdd).
#version 450
// The loop stays rolled, as CUDA's `#pragma unroll 1` keeps E31's.
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BODY = 0u;

layout(std430, set = 0, binding = 0) readonly buffer Params {
  uint trips;
  uint never;
  uint mask;
};
layout(std430, set = 0, binding = 1) readonly buffer Data { uint data[]; };
// result[global invocation] = idx ^ acc
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint result[]; };

#define MAD(k) acc = acc * next + uint(k);
#define MAD4(a, b, c, d) MAD(a) MAD(b) MAD(c) MAD(d)
#define TEST0
#define TEST1 \
  if (next == nv) {  \
    MAD(1)           \
  }
#define TEST24                                                 \
  if (next == nv) {                                            \
    MAD4(1, 2, 3, 4) MAD4(5, 6, 7, 8) MAD4(9, 10, 11, 12)      \
    MAD4(13, 14, 15, 16) MAD4(17, 18, 19, 20) MAD4(21, 22, 23, 24) \
  }
// The variant is chosen once, outside the loop (as CUDA's template is).
#define LOOP(TEST)                                \
  [[dont_unroll]] for (uint t = 0u; t < n; ++t) { \
    uint next = data[idx];                        \
    TEST                                          \
    idx = next & m;                               \
  }

void main() {
  uint n = trips;
  uint nv = never;
  uint m = mask;
  uint warp = gl_LocalInvocationIndex / 32u;  // CUDA: (g / 32) & 63
  uint idx = data[warp & 63u] & m;
  uint acc = 1u;
  if (BODY == 1u) {
    LOOP(TEST1)
  } else if (BODY == 24u) {
    LOOP(TEST24)
  } else {
    LOOP(TEST0)
  }
  result[gl_GlobalInvocationID.x] = idx ^ acc;
}
