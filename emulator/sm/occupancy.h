// Occupancy: how many blocks (workgroups) and warps of one kind fit on an SM
// at once, and which resource stops more.
//
// The rules are CUDA's (cudaOccupancyMaxActiveBlocksPerMultiprocessor, as
// REFERENCE §1.6 writes them out for compute capability 9.0), with every
// constant taken from SmLimits, i.e. from the GPU config:
//  * registers are allocated per warp, in units of register_allocation_unit
//    (256): a warp of R-register threads takes roundUp(32 R, 256); each of
//    the sub_partitions (4) register files holds
//    floor((registers_per_sm / 4) / that) warps, and blocks take whole
//    warps from the four together. A block whose warps cannot get their
//    registers at all (more than registers_per_block, counted with the
//    warps rounded up to a multiple of 4 as the hardware does, or more than
//    max_registers_per_thread per thread) cannot launch;
//  * at most max_warps_per_sm warps and max_blocks_per_sm blocks;
//  * shared memory: a block takes roundUp(static + dynamic +
//    reserved_shared_memory_per_block, 128); the SM's shared memory is the
//    carveout the preference asks for (default: all of
//    shared_memory_per_sm; else percent x shared_memory_per_sm / 100,
//    rounded up to the next carveout size), grown to the smallest carveout
//    that holds one block when it holds none; a block over
//    shared_memory_per_block_optin (static + dynamic) cannot launch.
// The E1 experiment (cuda_ref/results/h200/) recorded the CUDA runtime's
// answer for each combination of its matrix on an H200;
// tests/sm/occupancy_test.cpp checks this function against every one.
//
// Graphics: fragment and vertex warps are placed one warp at a time (no
// blocks), so only the register and warp-slot limits apply
// (GraphicsWarpsPerSm).
#ifndef WARPSIM_SM_OCCUPANCY_H_
#define WARPSIM_SM_OCCUPANCY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpsim::sm {

// Per-SM resources. Defaults: H200 (compute capability 9.0); each value's
// source is in the GPU config (runner/gpu_config.h).
struct SmLimits {
  uint32_t warp_size = 32;
  uint32_t max_warps_per_sm = 64;
  uint32_t max_blocks_per_sm = 32;
  uint32_t max_threads_per_block = 1024;
  uint32_t registers_per_sm = 65536;
  uint32_t registers_per_block = 65536;
  uint32_t max_registers_per_thread = 255;
  uint32_t register_allocation_unit = 256;  // registers, per warp
  uint32_t sub_partitions = 4;
  uint32_t shared_memory_per_sm = 233472;
  uint32_t shared_memory_per_block = 49152;  // without opting in
  uint32_t shared_memory_per_block_optin = 232448;
  uint32_t reserved_shared_memory_per_block = 1024;
  uint32_t shared_memory_allocation_unit = 128;
  // The carveout sizes the SM can be set to, in KiB, ascending.
  std::vector<uint32_t> shared_memory_carveouts_kib = {0,   8,   16,  32,  64,
                                                       100, 132, 164, 196, 228};
};

struct Launch {
  uint32_t registers_per_thread = 0;
  uint32_t threads_per_block = 0;
  uint32_t static_shared_memory = 0;   // bytes
  uint32_t dynamic_shared_memory = 0;  // bytes
  // The function's preferred shared-memory carveout in percent, or -1 for
  // the default (cudaFuncAttributePreferredSharedMemoryCarveout).
  int carveout_percent = -1;
  // Whether the dynamic shared-memory limit was raised
  // (cudaFuncAttributeMaxDynamicSharedMemorySize); without it a block has
  // at most shared_memory_per_block.
  bool shared_memory_opt_in = true;
};

enum class Limiter { kRegisters, kSharedMemory, kWarps, kBlocks };
std::string_view LimiterName(Limiter l);  // "registers", "shared_memory", ...

struct Occupancy {
  // 0 when the block cannot launch at all (`refused` says why).
  uint32_t blocks_per_sm = 0;
  uint32_t warps_per_sm = 0;
  double occupancy = 0;  // warps_per_sm / max_warps_per_sm
  // The resource with the smallest limit; on a tie the first of registers,
  // shared_memory, warps, blocks.
  Limiter limiter = Limiter::kRegisters;
  // Each resource's own limit in blocks per SM.
  uint32_t limit_registers = 0;
  uint32_t limit_shared_memory = 0;
  uint32_t limit_warps = 0;
  uint32_t limit_blocks = 0;
  uint32_t warps_per_block = 0;
  uint32_t registers_per_warp = 0;       // allocated, after rounding
  uint32_t shared_memory_per_block = 0;  // allocated, after rounding
  uint32_t shared_memory_per_sm = 0;     // the carveout used
  std::string refused;  // why the launch fails, empty when it does not
  // The error CUDA's launch gives then (E1 recorded them):
  // cudaErrorLaunchOutOfResources for registers, cudaErrorInvalidValue for
  // shared memory and threads.
  std::string_view cuda_error;
};

Occupancy ComputeOccupancy(const SmLimits& limits, const Launch& launch);

// Warps of one graphics stage resident on an SM, R registers per thread:
// min(max_warps_per_sm, sub_partitions x warps per sub-partition's register
// file). blocks_per_sm is left 0; limiter is registers or warps.
Occupancy GraphicsWarpsPerSm(const SmLimits& limits,
                             uint32_t registers_per_thread);

}  // namespace warpsim::sm

#endif  // WARPSIM_SM_OCCUPANCY_H_
