// E32 issue slots: mirrors SlotKernel<Kind, K> of
// cuda_ref/src/e32_issue_slots.cu.
//
// Each invocation runs `trips` trips of a loop of K independent FFMA over 4
// chains (x = fma(x, a, b)), and per VARIANT (specialization constant 1)
// one more instruction of a kind per trip: 0 none (K = 8, 16, 32 or 64:
// specialization constant 2), 1 a load (data[u & 1023], every lane word 0:
// an L1 hit) added into the first chain, 2 an integer multiply's high word
// (umulExtended), 3 a xor, 4 a branch around 24 multiply-adds that no trip
// takes, between the two halves of the FFMA (K = 16 for 1 to 4). a, b, never and trips come
// from a buffer; the workgroup size is specialization constant 0 (W warps
// of 32).
//
// Lowered (`warpsim disasm`): the selection on VARIANT outside the loops,
// then one rolled loop per variant holding its OpExtInst.Fma chain steps,
// the extra instruction's ops, the counter's OpIAdd, the exit compare and
// the branches.
#version 450
// The loops stay rolled, as CUDA's `#pragma unroll 1` keeps E32's.
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint VARIANT = 0u;
layout(constant_id = 2) const uint K = 16u;

layout(std430, set = 0, binding = 0) readonly buffer Params {
  float a;
  float b;
  uint never;
  uint trips;
};
layout(std430, set = 0, binding = 1) readonly buffer Data { uint data[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { float result[]; };

#define F4 \
  x0 = fma(x0, fa, fb); x1 = fma(x1, fa, fb); x2 = fma(x2, fa, fb); \
  x3 = fma(x3, fa, fb);
#define F8 F4 F4
#define F16 F8 F8
#define F32 F16 F16
#define F64 F32 F32
#define MAD(k) acc = acc * u + uint(k);
#define MAD4(p, q, r, s) MAD(p) MAD(q) MAD(r) MAD(s)
#define NONE
#define LDG                 \
  u = data[u & 1023u];      \
  x0 += uintBitsToFloat(u);
#define IMADW                 \
  {                           \
    uint hi, lo;              \
    umulExtended(u, acc, hi, lo); \
    u = hi;                   \
  }
#define LOP u ^= acc;
#define LOOP(BODY, EXTRA)                             \
  [[dont_unroll]] for (uint t = 0u; t < n; ++t) {     \
    BODY                                              \
    EXTRA                                             \
  }
#define AROUND                                                      \
  if (u + t == nv) {                                                \
    MAD4(1, 2, 3, 4) MAD4(5, 6, 7, 8) MAD4(9, 10, 11, 12)           \
    MAD4(13, 14, 15, 16) MAD4(17, 18, 19, 20) MAD4(21, 22, 23, 24) \
  }

void main() {
  uint n = trips;
  uint nv = never;
  float fa = a;
  float fb = b;
  float x0 = 1.0 + float(gl_GlobalInvocationID.x);
  float x1 = 2.0, x2 = 3.0, x3 = 4.0;
  uint u = data[0];  // 0
  uint acc = 1u;
  // The variant is chosen once, outside the loop (as CUDA's template is).
  if (VARIANT == 0u) {
    if (K == 8u) {
      LOOP(F8, NONE)
    } else if (K == 16u) {
      LOOP(F16, NONE)
    } else if (K == 32u) {
      LOOP(F32, NONE)
    } else {
      LOOP(F64, NONE)
    }
  } else if (VARIANT == 1u) {
    LOOP(F16, LDG)
  } else if (VARIANT == 2u) {
    LOOP(F16, IMADW)
  } else if (VARIANT == 3u) {
    LOOP(F16, LOP)
  } else {
    LOOP(F8 AROUND F8, NONE)
  }
  result[gl_GlobalInvocationID.x] =
      x0 + x1 + x2 + x3 + uintBitsToFloat(u ^ acc);
}
