#include "sm/occupancy.h"

#include <algorithm>
#include <string>

namespace warpsim::sm {
namespace {

uint64_t RoundUp(uint64_t v, uint64_t unit) {
  return unit == 0 ? v : (v + unit - 1) / unit * unit;
}

uint64_t DivOrZero(uint64_t a, uint64_t b) { return b == 0 ? 0 : a / b; }

// The carveout (bytes) at or above `bytes`, or the largest one.
uint64_t CarveoutAtLeast(const SmLimits& l, uint64_t bytes) {
  for (uint32_t kib : l.shared_memory_carveouts_kib) {
    if (uint64_t{kib} * 1024 >= bytes) return uint64_t{kib} * 1024;
  }
  return l.shared_memory_carveouts_kib.empty()
             ? l.shared_memory_per_sm
             : uint64_t{l.shared_memory_carveouts_kib.back()} * 1024;
}

// Per-warp register allocation and how many such warps the SM holds.
void RegisterLimit(const SmLimits& l, uint32_t regs, uint64_t* per_warp,
                   uint64_t* warps) {
  *per_warp = RoundUp(uint64_t{regs} * l.warp_size, l.register_allocation_unit);
  const uint64_t per_partition =
      DivOrZero(l.registers_per_sm, l.sub_partitions);
  *warps = DivOrZero(per_partition, *per_warp) * l.sub_partitions;
}

std::string TooManyRegisters(const SmLimits& l, uint32_t regs) {
  return std::to_string(regs) + " registers per thread, more than the " +
         std::to_string(l.max_registers_per_thread) + " a thread can have";
}

void PickLimiter(Occupancy* o) {
  struct Entry {
    Limiter l;
    uint32_t v;
  };
  const Entry e[] = {{Limiter::kRegisters, o->limit_registers},
                     {Limiter::kSharedMemory, o->limit_shared_memory},
                     {Limiter::kWarps, o->limit_warps},
                     {Limiter::kBlocks, o->limit_blocks}};
  const Entry* best = &e[0];
  for (const Entry& x : e) {
    if (x.v < best->v) best = &x;
  }
  o->limiter = best->l;
  o->blocks_per_sm = best->v;
}

}  // namespace

std::string_view LimiterName(Limiter l) {
  switch (l) {
    case Limiter::kRegisters:
      return "registers";
    case Limiter::kSharedMemory:
      return "shared_memory";
    case Limiter::kWarps:
      return "warps";
    case Limiter::kBlocks:
      return "blocks";
  }
  return "?";
}

Occupancy ComputeOccupancy(const SmLimits& l, const Launch& in) {
  Occupancy o;
  const uint32_t threads = in.threads_per_block;
  o.warps_per_block = static_cast<uint32_t>(
      DivOrZero(uint64_t{threads} + l.warp_size - 1, l.warp_size));
  const uint64_t warps_per_block = o.warps_per_block;

  // Registers.
  uint64_t per_warp = 0, warps_by_regs = 0;
  RegisterLimit(l, in.registers_per_thread, &per_warp, &warps_by_regs);
  o.registers_per_warp = static_cast<uint32_t>(per_warp);
  const uint64_t regs_block_hw =
      per_warp * RoundUp(warps_per_block, l.sub_partitions);
  const uint64_t regs_block_sw = per_warp * warps_per_block;
  if (in.registers_per_thread > l.max_registers_per_thread) {
    o.refused = TooManyRegisters(l, in.registers_per_thread);
  } else if (regs_block_hw > l.registers_per_block ||
             regs_block_sw > l.registers_per_block) {
    o.refused = std::to_string(threads) + " threads x " +
                std::to_string(in.registers_per_thread) + " registers need " +
                std::to_string(regs_block_hw) + " registers per block (" +
                std::to_string(per_warp) +
                " per warp, warps counted in fours), more than the " +
                std::to_string(l.registers_per_block) + " a block can have";
  } else {
    o.limit_registers =
        static_cast<uint32_t>(DivOrZero(warps_by_regs, warps_per_block));
  }

  // Warps and blocks.
  if (threads == 0 || threads > l.max_threads_per_block) {
    o.refused = std::to_string(threads) +
                " threads per block (the limit is 1 to " +
                std::to_string(l.max_threads_per_block) + ")";
  } else {
    o.limit_warps =
        static_cast<uint32_t>(DivOrZero(l.max_warps_per_sm, warps_per_block));
  }
  o.limit_blocks = l.max_blocks_per_sm;

  // Shared memory.
  const uint64_t declared =
      uint64_t{in.static_shared_memory} + in.dynamic_shared_memory;
  const uint64_t per_block =
      RoundUp(declared + l.reserved_shared_memory_per_block,
              l.shared_memory_allocation_unit);
  o.shared_memory_per_block = static_cast<uint32_t>(per_block);
  const uint64_t block_limit = in.shared_memory_opt_in
                                   ? l.shared_memory_per_block_optin
                                   : l.shared_memory_per_block;
  if (declared > block_limit) {
    o.refused = std::to_string(declared) +
                " bytes of shared memory per block, more than the " +
                std::to_string(block_limit) +
                (in.shared_memory_opt_in ? " a block can have"
                                         : " a block has without opting in");
  } else {
    uint64_t preferred = l.shared_memory_per_sm;
    if (in.carveout_percent >= 0) {
      preferred = CarveoutAtLeast(
          l, uint64_t(in.carveout_percent) * l.shared_memory_per_sm / 100);
    }
    const uint64_t sm_bytes =
        preferred >= per_block ? preferred : CarveoutAtLeast(l, per_block);
    o.shared_memory_per_sm = static_cast<uint32_t>(sm_bytes);
    o.limit_shared_memory = per_block == 0
                                ? UINT32_MAX
                                : static_cast<uint32_t>(sm_bytes / per_block);
  }

  if (!o.refused.empty()) {
    o.blocks_per_sm = 0;
    o.limiter = Limiter::kRegisters;
    o.cuda_error = "cudaErrorLaunchOutOfResources";
    if (declared > block_limit) o.limiter = Limiter::kSharedMemory;
    if (threads == 0 || threads > l.max_threads_per_block) {
      o.limiter = Limiter::kWarps;
    }
    if (o.limiter != Limiter::kRegisters)
      o.cuda_error = "cudaErrorInvalidValue";
    return o;
  }
  PickLimiter(&o);
  o.warps_per_sm = o.blocks_per_sm * o.warps_per_block;
  o.occupancy = l.max_warps_per_sm == 0
                    ? 0
                    : double(o.warps_per_sm) / double(l.max_warps_per_sm);
  return o;
}

Occupancy GraphicsWarpsPerSm(const SmLimits& l, uint32_t regs) {
  Occupancy o;
  o.warps_per_block = 1;
  uint64_t per_warp = 0, warps = 0;
  RegisterLimit(l, regs, &per_warp, &warps);
  o.registers_per_warp = static_cast<uint32_t>(per_warp);
  if (regs > l.max_registers_per_thread) {
    o.refused = TooManyRegisters(l, regs);
    o.cuda_error = "cudaErrorLaunchOutOfResources";
    return o;
  }
  o.limit_registers = static_cast<uint32_t>(warps);
  o.limit_warps = l.max_warps_per_sm;
  o.limit_blocks = UINT32_MAX;
  o.limit_shared_memory = UINT32_MAX;
  PickLimiter(&o);
  o.warps_per_sm = o.blocks_per_sm;
  o.blocks_per_sm = 0;
  o.occupancy = l.max_warps_per_sm == 0
                    ? 0
                    : double(o.warps_per_sm) / double(l.max_warps_per_sm);
  return o;
}

}  // namespace warpsim::sm
