// E2 pointer chase in shared memory: mirrors the "shared" chase of
// cuda_ref/src/e2_latency.cu (one thread, ld.shared.u32 -> SASS LDS, 16 loads
// per loop trip, a warm-up walk, then a timed walk).
//
// The workgroup (one warp) first copies the chain from a storage buffer into
// workgroup (shared) memory and waits at a barrier; then invocation 0 alone
// walks it. Element k sits 128 bytes after element k-1 and holds the uint index
// of the next element's word (32 (k + 1)); the last points back to the first.
// The walk starts at element 0, runs warmup_steps steps, stores where it is,
// runs steps more and stores where it ends (counts from a buffer, multiples of
// 16). The chain may use at most 32 KB of the 32 KB array.
//
// Lowered (`warpsim disasm`): each of the two walk loop bodies holds 16 steps,
// i.e. 16 `OpAccessChain.64 [alu]` + 16 `OpLoad [lsu]` (workgroup memory) in
// one dependent chain of 32, then the OpBranch to the loop's continue block
// (which holds the counter's OpIAdd).
#version 450

layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer Chain { uint next[]; };
layout(std430, set = 0, binding = 1) readonly buffer Params {
  uint warmup_steps;
  uint steps;
  uint chain_words;  // words of the chain to copy (elements x 32)
};
layout(std430, set = 0, binding = 2) writeonly buffer Out {
  uint after_warmup;  // the element index (word / 32) reached by the warm-up
  uint after_steps;   // ... and by the timed walk
};

shared uint s_next[8192];  // 32 KB

#define R4(s) s s s s
#define R16(s) R4(R4(s))
#define STEP p = s_next[p];

void main() {
  uint words = chain_words;
  for (uint w = gl_LocalInvocationIndex; w < words; w += 32u) {
    s_next[w] = next[w];
  }
  barrier();
  if (gl_LocalInvocationIndex != 0u) return;
  uint warmup = warmup_steps;
  uint timed = steps;
  uint p = 0u;
  for (uint i = 0u; i < warmup; i += 16u) {
    R16(STEP)
  }
  after_warmup = p / 32u;
  for (uint i = 0u; i < timed; i += 16u) {
    R16(STEP)
  }
  after_steps = p / 32u;
}
