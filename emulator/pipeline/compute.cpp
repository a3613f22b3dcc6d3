#include "pipeline/compute.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

namespace warpsim::pipeline {
namespace {

using simt::InputSlot;
using simt::Program;
using simt::Warp;

// Values of the compute built-ins for one invocation.
struct InvocationIds {
  uint32_t local[3];
  uint32_t group[3];
  uint32_t num_groups[3];
  uint32_t local_size[3];
  uint32_t local_index;
  uint32_t subgroup_id;
  uint32_t num_subgroups;
  uint32_t lane;
  uint32_t width;
};

void WriteWords(uint8_t* dst, const InputSlot& slot, const uint32_t* words,
                uint32_t n) {
  std::memcpy(dst + slot.offset, words, std::min(slot.bytes, n * 4));
}

Status WriteBuiltin(uint8_t* mem, const InputSlot& slot,
                    const InvocationIds& id) {
  using spv::BuiltIn;
  uint32_t w[4] = {0, 0, 0, 0};
  switch (slot.builtin) {
    case BuiltIn::LocalInvocationId:
      WriteWords(mem, slot, id.local, 3);
      return {};
    case BuiltIn::WorkgroupId:
      WriteWords(mem, slot, id.group, 3);
      return {};
    case BuiltIn::NumWorkgroups:
      WriteWords(mem, slot, id.num_groups, 3);
      return {};
    case BuiltIn::WorkgroupSize:
      WriteWords(mem, slot, id.local_size, 3);
      return {};
    case BuiltIn::GlobalInvocationId:
      for (int i = 0; i < 3; ++i)
        w[i] = id.group[i] * id.local_size[i] + id.local[i];
      WriteWords(mem, slot, w, 3);
      return {};
    case BuiltIn::LocalInvocationIndex:
      WriteWords(mem, slot, &id.local_index, 1);
      return {};
    case BuiltIn::SubgroupId:
      WriteWords(mem, slot, &id.subgroup_id, 1);
      return {};
    case BuiltIn::NumSubgroups:
      WriteWords(mem, slot, &id.num_subgroups, 1);
      return {};
    default:
      if (WriteSubgroupBuiltin(mem, slot, id.lane, id.width)) return {};
      return Unsupported("compute shader input built-in " +
                         std::to_string(static_cast<uint32_t>(slot.builtin)) +
                         " (not a compute built-in warpsim provides)");
  }
}

}  // namespace

bool WriteSubgroupBuiltin(uint8_t* mem, const simt::InputSlot& slot,
                          uint32_t lane, uint32_t width) {
  using spv::BuiltIn;
  uint32_t w[4] = {0, 0, 0, 0};
  const uint32_t bit = 1u << lane;
  const uint32_t all = simt::LowLanes(width);
  switch (slot.builtin) {
    case BuiltIn::SubgroupSize:
      w[0] = width;
      break;
    case BuiltIn::SubgroupLocalInvocationId:
      w[0] = lane;
      break;
    // Masks over the subgroup (at most 32 lanes: only w[0] is non-zero).
    case BuiltIn::SubgroupEqMask:
      w[0] = bit;
      break;
    case BuiltIn::SubgroupGeMask:
      w[0] = all & ~(bit - 1);
      break;
    case BuiltIn::SubgroupGtMask:
      w[0] = all & ~(bit - 1) & ~bit;
      break;
    case BuiltIn::SubgroupLeMask:
      w[0] = (bit - 1) | bit;
      break;
    case BuiltIn::SubgroupLtMask:
      w[0] = bit - 1;
      break;
    default:
      return false;
  }
  std::memcpy(mem + slot.offset, w, std::min<uint32_t>(slot.bytes, sizeof(w)));
  return true;
}

Result<DispatchStats> DispatchCompute(const Program& program,
                                      const uint32_t groups[3],
                                      std::vector<simt::MemRegion> regions,
                                      std::vector<simt::ImageDesc> images,
                                      const ComputeLimits& limits) {
  DispatchStats stats;
  const uint32_t width = limits.warp_width;
  const uint64_t local_count = static_cast<uint64_t>(program.local_size[0]) *
                               program.local_size[1] * program.local_size[2];
  if (local_count == 0 || local_count > 1024) {
    return InvalidInput("workgroup size " +
                        std::to_string(program.local_size[0]) + "x" +
                        std::to_string(program.local_size[1]) + "x" +
                        std::to_string(program.local_size[2]) +
                        " is outside 1..1024 invocations");
  }
  for (const InputSlot& slot : program.inputs) {
    if (slot.builtin == spv::BuiltIn::Max) {
      return Unsupported("compute shader inputs without a built-in decoration");
    }
  }
  const uint32_t warps_per_group =
      static_cast<uint32_t>((local_count + width - 1) / width);
  regions.resize(std::max<size_t>(regions.size(), program.num_regions));
  std::vector<uint8_t> workgroup_mem(program.workgroup_bytes);
  regions[simt::kRegionWorkgroup] = {workgroup_mem.data(), workgroup_mem.size(),
                                     true};
  simt::ExecContext context;
  context.regions = std::move(regions);
  context.images = std::move(images);
  context.images.resize(context.regions.size());

  std::vector<std::unique_ptr<Warp>> warps;
  for (uint32_t gz = 0; gz < groups[2]; ++gz) {
    for (uint32_t gy = 0; gy < groups[1]; ++gy) {
      for (uint32_t gx = 0; gx < groups[0]; ++gx) {
        std::fill(workgroup_mem.begin(), workgroup_mem.end(), 0);
        warps.clear();
        for (uint32_t wi = 0; wi < warps_per_group; ++wi) {
          const uint64_t first = static_cast<uint64_t>(wi) * width;
          const uint32_t lanes = static_cast<uint32_t>(
              std::min<uint64_t>(width, local_count - first));
          const uint32_t mask = simt::LowLanes(lanes);
          auto warp = std::make_unique<Warp>(program, width, mask, &context);
          for (uint32_t l = 0; l < lanes; ++l) {
            const uint32_t index = static_cast<uint32_t>(first + l);
            InvocationIds id{};
            id.local_index = index;
            id.local[0] = index % program.local_size[0];
            id.local[1] =
                (index / program.local_size[0]) % program.local_size[1];
            id.local[2] =
                index / (program.local_size[0] * program.local_size[1]);
            id.group[0] = gx;
            id.group[1] = gy;
            id.group[2] = gz;
            for (int i = 0; i < 3; ++i) {
              id.num_groups[i] = groups[i];
              id.local_size[i] = program.local_size[i];
            }
            id.subgroup_id = wi;
            id.num_subgroups = warps_per_group;
            id.lane = l;
            id.width = width;
            uint8_t* mem = warp->PrivateMemory(l);
            for (const InputSlot& slot : program.inputs) {
              if (Status s = WriteBuiltin(mem, slot, id); !s.ok())
                return s.error();
            }
          }
          warps.push_back(std::move(warp));
        }
        ++stats.workgroups;
        stats.warps += warps.size();
        // Run the workgroup: round robin over warps, each until it blocks,
        // finishes or spends its time slice.
        for (;;) {
          bool any_running = false;
          bool progressed = false;
          for (auto& w : warps) {
            if (w->done() || w->at_barrier()) continue;
            any_running = true;
            for (uint32_t step = 0; step < limits.time_slice; ++step) {
              const simt::InstrRecord rec = w->Step();
              progressed = true;
              if (rec.blocking != simt::Blocking::kNone) break;
            }
            if (limits.max_warp_instructions != 0 &&
                context.warp_instructions > limits.max_warp_instructions) {
              return LimitExceeded(
                  "the dispatch executed more than " +
                      std::to_string(limits.max_warp_instructions) +
                      " warp instructions without finishing (stopped after " +
                      std::to_string(context.warp_instructions) +
                      "; the shader may not terminate)",
                  context.warp_instructions, context.lane_instructions);
            }
          }
          if (!any_running) {
            // Everyone left is at a barrier (or done): open it.
            bool waiting = false;
            for (auto& w : warps) {
              if (!w->done() && w->at_barrier()) {
                w->ReleaseBarrier();
                waiting = true;
              }
            }
            if (!waiting) break;  // all warps finished
          } else if (!progressed) {
            break;
          }
        }
      }
    }
  }
  stats.warp_instructions = context.warp_instructions;
  stats.lane_instructions = context.lane_instructions;
  stats.helper_lane_instructions = context.helper_lane_instructions;
  return stats;
}

}  // namespace warpsim::pipeline
