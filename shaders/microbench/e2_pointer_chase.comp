// E2 pointer chase in global memory: mirrors the "sweep" chase of
// cuda_ref/src/e2_latency.cu (one thread, p = *p, 16 loads per loop trip, a
// warm-up walk, then a timed walk that continues where the warm-up stopped;
// ld.global.ca -> SASS LDG.E.64.STRONG.SM).
//
// One invocation (one warp with one active lane) walks a chain in a storage
// buffer: element k sits 128 bytes after element k-1 (one element per cache
// line, as in CUDA) and holds the uint index of the next element's word (so the
// index of element k is 32 k); the last element points back to the first. The
// loaded value is the next index, so every load depends on the previous one and
// on nothing else. The walk starts at element 0, runs warmup_steps steps,
// stores where it is, runs steps more and stores where it ends (both counts
// from a buffer, multiples of 16).
//
// SPIR-V has no raw pointers here: a step is OpAccessChain (the address base +
// 4 x p) then OpLoad, where CUDA's step is one load through a 64-bit pointer.
// Lowered (`warpsim disasm`): each of the two loop bodies holds 16 steps, i.e.
// 16 `OpAccessChain.64 [alu]` + 16 `OpLoad [lsu]` in one dependent chain of 32
// (each access chain reads the previous load's result), then the OpBranch to
// the loop's continue block (which holds the counter's OpIAdd).
#version 450

layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) readonly buffer Chain { uint next[]; };
layout(std430, set = 0, binding = 1) readonly buffer Params {
  uint warmup_steps;
  uint steps;
};
layout(std430, set = 0, binding = 2) writeonly buffer Out {
  uint after_warmup;  // the element index (word / 32) reached by the warm-up
  uint after_steps;   // ... and by the timed walk
};

#define R4(s) s s s s
#define R16(s) R4(R4(s))
#define STEP p = next[p];

void main() {
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
