// Experiment 08 (samples/experiments/08_block_on_one_sm/run.py): a
// workgroup that shares memory and meets at a barrier. Each invocation
// writes a word of the workgroup's shared array, waits for the whole
// workgroup, and reads the word its neighbour wrote: only correct if every
// warp of the workgroup runs against the same shared memory, past the same
// barrier. The workgroup size (constant 0) and the shared array's words
// (constant 1: its bytes / 4) are specialization constants.
#version 450

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint WORDS = 1u;
layout(std430, set = 0, binding = 0) writeonly buffer Out { uint result[]; };

shared uint words[WORDS];

void main() {
  uint i = gl_LocalInvocationIndex;
  uint n = gl_WorkGroupSize.x;
  words[i % WORDS] = i;
  barrier();
  result[gl_GlobalInvocationID.x] = words[(i + 1u) % n % WORDS];
}
