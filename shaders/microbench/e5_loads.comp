// E5 (b) load latency hiding: mirrors LoadKernel<B, K> of
// cuda_ref/src/e5_hiding.cu (K independent coalesced warp loads of B = 4 or 16
// bytes per lane, all issued before any is used; ld.global.cg.u32 /
// ld.global.cg.v4.u32 -> SASS LDG.E.STRONG.GPU / LDG.E.128.STRONG.GPU).
//
// Warp g of G (all warps of the dispatch), in iteration i, reads chunk c = i x
// G + g: K consecutive pieces of 32 x B bytes, lane l reading element l of each
// piece, from a ring buffer (its size in elements a power of two; offsets
// wrap). Then acc += every loaded word, and the next iteration's offset adds
// (acc & zero), `zero` being 0 from a buffer: no compiler can drop the
// dependence, so the iterations of one warp are serialised while its K loads
// overlap. Iterations, zero and the ring mask come from a buffer; K (1, 2, 4,
// 8) and B (VEC4 = 0: 4 bytes, 1: 16 bytes) are specialization constants 1 and
// 2, the workgroup size constant 0. CUDA xors the words; a ring holding 0, 1,
// 2, ... would xor to 0 per uvec4, so here they are added (the same ALU tail:
// one op per word).
//
// Lowered (`warpsim disasm`): the loop body of the (K, B) variant holds K
// `OpLoad [lsu]` (uint, or uvec4 for B = 16), none depending on another (each
// address from the iteration's base offset), then the adds of the K (or 4K)
// words into acc, the offset arithmetic and OpBranch.
#version 450

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint K = 1u;
layout(constant_id = 2) const uint VEC4 = 0u;

layout(std430, set = 0, binding = 0) readonly buffer Params {
  uint iterations;
  uint zero;       // 0
  uint ring_mask;  // ring elements - 1 (elements of B bytes)
};
// The ring, as 4-byte and as 16-byte elements (the same buffer bound twice).
layout(std430, set = 0, binding = 1) readonly buffer Ring32 { uint ring32[]; };
layout(std430, set = 0, binding = 2) readonly buffer Ring128 {
  uvec4 ring128[];
};
// result[global invocation] = acc
layout(std430, set = 0, binding = 3) writeonly buffer Out { uint result[]; };

#define WORD32(v) v
#define WORD128(v) v.x + v.y + v.z + v.w
// Piece j of the chunk: lane l reads element base + 32 j (l is in base). A
// chunk starts at a multiple of K x 32 elements and the ring holds a
// multiple of that, so a chunk never wraps: one mask per iteration.
#define LD(T, RING, j) T v##j = RING[base + j * 32u];
#define LOADS1(T, R) LD(T, R, 0)
#define LOADS2(T, R) LOADS1(T, R) LD(T, R, 1)
#define LOADS4(T, R) LOADS2(T, R) LD(T, R, 2) LD(T, R, 3)
#define LOADS8(T, R) \
  LOADS4(T, R) LD(T, R, 4) LD(T, R, 5) LD(T, R, 6) LD(T, R, 7)
#define SUM1(W) acc += W(v0);
#define SUM2(W) SUM1(W) acc += W(v1);
#define SUM4(W) SUM2(W) acc += W(v2); acc += W(v3);
#define SUM8(W) \
  SUM4(W) acc += W(v4); acc += W(v5); acc += W(v6); acc += W(v7);
#define LOOP(N, T, R, W)                                        \
  for (uint i = 0u; i < n; ++i) {                               \
    uint base = (chunk * (N * 32u) + lane + (acc & z)) & mask;  \
    LOADS##N(T, R)                                              \
    SUM##N(W)                                                   \
    chunk += warps;                                             \
  }
#define VARIANTS(T, R, W) \
  if (K == 1u) {          \
    LOOP(1, T, R, W)      \
  } else if (K == 2u) {   \
    LOOP(2, T, R, W)      \
  } else if (K == 4u) {   \
    LOOP(4, T, R, W)      \
  } else {                \
    LOOP(8, T, R, W)      \
  }

void main() {
  uint n = iterations;
  uint z = zero;
  uint mask = ring_mask;
  // Warps of 32 lanes as in CUDA (and on the H200), whatever the device's
  // subgroup size (lavapipe's is 8), so that the results are the same.
  uint warps_per_group = gl_WorkGroupSize.x / 32u;
  uint warps = gl_NumWorkGroups.x * warps_per_group;
  uint warp =
      gl_WorkGroupID.x * warps_per_group + gl_LocalInvocationIndex / 32u;
  uint lane = gl_LocalInvocationIndex % 32u;
  uint acc = 0u;
  uint chunk = warp;  // c = i x G + g
  if (VEC4 == 0u) {
    VARIANTS(uint, ring32, WORD32)
  } else {
    VARIANTS(uvec4, ring128, WORD128)
  }
  result[gl_GlobalInvocationID.x] = acc;
}
