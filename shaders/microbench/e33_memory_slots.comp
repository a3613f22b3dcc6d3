// E33 memory slots: mirrors MemSlotKernel<Kind> of
// cuda_ref/src/e33_memory_slots.cu.
//
// Each invocation runs `trips` trips of a loop of 16 independent FFMA over 4
// chains (x = fma(x, a, b)) and, per VARIANT (specialization constant 1),
// one memory instruction of a kind per trip:
//   0 ffma_k16     nothing more;
//   1 ldg_word     u = data[u & 1023] (every lane word 0: an L1 hit), added
//                  into the first chain;
//   2 ldg_lanes    the same, each lane its own word (u & 992 keeps the warp
//                  on one 128-byte line);
//   3 ldg_v4       16 bytes, every lane the same (data4: the same buffer as
//                  uvec4), the four words xor-ed into u;
//   4 ldg_two      two independent words 2 KB apart, xor-ed into u;
//   5 stg_lanes    the trip counter stored, each lane its own word of the
//                  other of its warp's two 128-byte lines of `sink` each trip;
//   6 lds_word     u = words[u & 255] of a 1 KB workgroup array of zeros;
//   7 sts_lanes    the trip counter stored, each lane its own word of the
//                  other of two 128-byte rows of `words` each trip;
//   8 red_lanes    atomicAdd of the trip counter (its result unused), each
//                  lane its own word, addressed as stg_lanes;
//   9 ldg_uniform  u ^= data[(t << 5) & 1023]: an address every lane shares,
//                  from the trip counter only.
// Every word of `data` is 0, so u stays 0 and the loads add 0.0. a, b and
// trips come from a buffer; the workgroup size is specialization constant
// 0 (W warps of 32).
#version 450
// The loop stays rolled, as CUDA's `#pragma unroll 1` keeps E33's.
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint VARIANT = 0u;

layout(std430, set = 0, binding = 0) readonly buffer Params {
  float a;
  float b;
  uint trips;
};
layout(std430, set = 0, binding = 1) readonly buffer Data { uint data[]; };
layout(std430, set = 0, binding = 2) readonly buffer Data4 { uvec4 data4[]; };
layout(std430, set = 0, binding = 3) buffer Sink { uint sink[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Out { float result[]; };

shared uint words[256];

#define F4 \
  x0 = fma(x0, fa, fb); x1 = fma(x1, fa, fb); x2 = fma(x2, fa, fb); \
  x3 = fma(x3, fa, fb);
#define F16 F4 F4 F4 F4
#define LOOP(EXTRA)                               \
  [[dont_unroll]] for (uint t = 0u; t < n; ++t) { \
    F16                                           \
    EXTRA                                         \
  }
#define NONE
#define LDG_WORD            \
  u = data[u & 1023u];      \
  x0 += uintBitsToFloat(u);
#define LDG_LANES                   \
  u = data[lane + (u & 992u)];      \
  x0 += uintBitsToFloat(u);
#define LDG_V4                              \
  {                                         \
    uvec4 v = data4[(u & 1020u) >> 2];      \
    u = v.x ^ v.y ^ v.z ^ v.w;              \
  }                                         \
  x0 += uintBitsToFloat(u);
#define LDG_TWO                             \
  {                                         \
    uint p = u & 511u;                      \
    u = data[p] ^ data[p + 512u];           \
  }                                         \
  x0 += uintBitsToFloat(u);
#define STG_LANES   \
  mine ^= 32u;      \
  sink[mine] = t;
#define LDS_WORD            \
  u = words[u & 255u];      \
  x0 += uintBitsToFloat(u);
#define STS_LANES   \
  row ^= 32u;       \
  words[row] = t;
#define RED_LANES   \
  mine ^= 32u;      \
  atomicAdd(sink[mine], t);
#define LDG_UNIFORM                   \
  u ^= data[(t << 5) & 1023u];        \
  x0 += uintBitsToFloat(u);

void main() {
  uint n = trips;
  float fa = a;
  float fb = b;
  uint g = gl_GlobalInvocationID.x;
  uint lane = gl_LocalInvocationID.x & 31u;
  float x0 = 1.0 + float(g);
  float x1 = 2.0, x2 = 3.0, x3 = 4.0;
  uint u = data[0];  // 0
  uint mine = (g >> 5) * 64u + lane;
  uint row = lane;
  if (VARIANT == 6u || VARIANT == 7u) {
    for (uint i = gl_LocalInvocationID.x; i < 256u;
         i += gl_WorkGroupSize.x) {
      words[i] = 0u;
    }
    barrier();
  }
  // The variant is chosen once, outside the loop (as CUDA's template is).
  if (VARIANT == 0u) {
    LOOP(NONE)
  } else if (VARIANT == 1u) {
    LOOP(LDG_WORD)
  } else if (VARIANT == 2u) {
    LOOP(LDG_LANES)
  } else if (VARIANT == 3u) {
    LOOP(LDG_V4)
  } else if (VARIANT == 4u) {
    LOOP(LDG_TWO)
  } else if (VARIANT == 5u) {
    LOOP(STG_LANES)
  } else if (VARIANT == 6u) {
    LOOP(LDS_WORD)
  } else if (VARIANT == 7u) {
    LOOP(STS_LANES)
  } else if (VARIANT == 8u) {
    LOOP(RED_LANES)
  } else {
    LOOP(LDG_UNIFORM)
  }
  result[g] = x0 + x1 + x2 + x3 + uintBitsToFloat(u);
}
