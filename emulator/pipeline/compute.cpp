#include "pipeline/compute.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

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

Result<std::unique_ptr<ComputeDispatch>> ComputeDispatch::Create(
    const Program& program, const uint32_t groups[3],
    std::vector<simt::MemRegion> regions, std::vector<simt::ImageDesc> images,
    uint32_t warp_width) {
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
  auto d = std::unique_ptr<ComputeDispatch>(new ComputeDispatch(program));
  d->width_ = warp_width;
  d->local_count_ = static_cast<uint32_t>(local_count);
  for (int i = 0; i < 3; ++i) d->groups_[i] = groups[i];
  d->total_groups_ = static_cast<uint64_t>(groups[0]) * groups[1] * groups[2];
  regions.resize(std::max<size_t>(regions.size(), program.num_regions));
  d->regions_ = std::move(regions);
  d->images_ = std::move(images);
  d->images_.resize(d->regions_.size());
  return d;
}

Result<std::unique_ptr<WorkItem>> ComputeDispatch::Next() {
  if (done()) return std::unique_ptr<WorkItem>();
  const Program& program = program_;
  const uint32_t width = width_;
  const uint64_t g = next_group_++;
  const uint32_t gx = static_cast<uint32_t>(g % groups_[0]);
  const uint32_t gy = static_cast<uint32_t>((g / groups_[0]) % groups_[1]);
  const uint32_t gz = static_cast<uint32_t>(g / groups_[0] / groups_[1]);
  auto item = std::make_unique<WorkgroupWork>();
  item->id = g;
  item->context.record_addresses = track_;  // before the warps are made
  item->group[0] = gx;
  item->group[1] = gy;
  item->group[2] = gz;
  item->kind = WorkKind::kComputeWorkgroup;
  item->workgroup_memory.assign(program.workgroup_bytes, 0);
  item->context.regions = regions_;
  item->context.images = images_;
  item->context.regions[simt::kRegionWorkgroup] = {
      item->workgroup_memory.data(), item->workgroup_memory.size(), true};
  const uint32_t warps_per_group = (local_count_ + width - 1) / width;
  for (uint32_t wi = 0; wi < warps_per_group; ++wi) {
    const uint32_t first = wi * width;
    const uint32_t lanes = std::min(width, local_count_ - first);
    auto warp = std::make_unique<Warp>(program, width, simt::LowLanes(lanes),
                                       &item->context);
    for (uint32_t l = 0; l < lanes; ++l) {
      const uint32_t index = first + l;
      InvocationIds id{};
      id.local_index = index;
      id.local[0] = index % program.local_size[0];
      id.local[1] = (index / program.local_size[0]) % program.local_size[1];
      id.local[2] = index / (program.local_size[0] * program.local_size[1]);
      id.group[0] = gx;
      id.group[1] = gy;
      id.group[2] = gz;
      for (int i = 0; i < 3; ++i) {
        id.num_groups[i] = groups_[i];
        id.local_size[i] = program.local_size[i];
      }
      id.subgroup_id = wi;
      id.num_subgroups = warps_per_group;
      id.lane = l;
      id.width = width;
      uint8_t* mem = warp->PrivateMemory(l);
      for (const InputSlot& slot : program.inputs) {
        if (Status s = WriteBuiltin(mem, slot, id); !s.ok()) return s.error();
      }
    }
    item->warps.push_back(std::move(warp));
  }
  return std::unique_ptr<WorkItem>(std::move(item));
}

std::string WorkgroupWork::Where(size_t warp) const {
  return "workgroup (" + std::to_string(group[0]) + ", " +
         std::to_string(group[1]) + ", " + std::to_string(group[2]) +
         "), subgroup " + std::to_string(warp);
}

Status WorkgroupWork::Finish() {
  auto distinct = [](std::vector<uint64_t>& words) {
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
  };
  distinct(words_written);
  distinct(words_read);
  return {};
}

Status ComputeDispatch::Retire(WorkItem& item) {
  stats_.workgroups += 1;
  stats_.warps += item.warps.size();
  stats_.warp_instructions += item.context.warp_instructions;
  stats_.lane_instructions += item.context.lane_instructions;
  stats_.helper_lane_instructions += item.context.helper_lane_instructions;
  if (track_) {
    // (WorkgroupWork::Finish() made the logs distinct.)
    for (uint64_t word : item.words_written)
      writes_.emplace_back(word, item.id);
    for (uint64_t word : item.words_read) reads_.emplace_back(word, item.id);
  }
  return {};
}

bool ComputeDispatch::WorkgroupsShareMemory() {
  // A workgroup lists each word once, so a word listed twice among the
  // writes was written by two workgroups.
  std::sort(writes_.begin(), writes_.end());
  for (size_t i = 1; i < writes_.size(); ++i) {
    if (writes_[i].first == writes_[i - 1].first) return true;
  }
  for (const auto& [word, group] : reads_) {
    auto it = std::lower_bound(writes_.begin(), writes_.end(),
                               std::pair<uint64_t, uint64_t>{word, 0});
    if (it != writes_.end() && it->first == word && it->second != group) {
      return true;
    }
  }
  return false;
}

namespace {

// Writable memory larger than this is not copied for a parallel attempt:
// such a dispatch runs in order.
constexpr uint64_t kMaxSnapshotBytes = uint64_t{256} << 20;

// Copies of the writable buffers and storage images a dispatch may change,
// to put back when a parallel attempt is discarded.
class MemorySnapshot {
 public:
  // False when the writable memory is larger than kMaxSnapshotBytes.
  bool Take(const std::vector<simt::MemRegion>& regions,
            const std::vector<simt::ImageDesc>& images) {
    uint64_t total = 0;
    auto add = [&](uint8_t* data, uint64_t size) {
      total += size;
      if (total > kMaxSnapshotBytes) return false;
      copies_.emplace_back(data, std::vector<uint8_t>(data, data + size));
      return true;
    };
    for (size_t r = simt::kRegionFirstResource; r < regions.size(); ++r) {
      const simt::MemRegion& m = regions[r];
      if (m.data != nullptr && m.writable && !add(m.data, m.size)) {
        return false;
      }
    }
    for (const simt::ImageDesc& image : images) {
      if (image.bound && image.writable && image.data != nullptr &&
          !add(image.data, image.size)) {
        return false;
      }
    }
    return true;
  }
  void Restore() const {
    for (const auto& [data, bytes] : copies_) {
      std::copy(bytes.begin(), bytes.end(), data);
    }
  }

 private:
  std::vector<std::pair<uint8_t*, std::vector<uint8_t>>> copies_;
};

}  // namespace

Result<DispatchStats> DispatchCompute(const Program& program,
                                      const uint32_t groups[3],
                                      std::vector<simt::MemRegion> regions,
                                      std::vector<simt::ImageDesc> images,
                                      const ComputeLimits& limits) {
  const bool independent = ItemsIndependent(regions, images);
  bool rerun = false;
  if (limits.driver != nullptr) {
    // The timing model runs the workgroups (in order of launch, with its
    // own interleaving of their warps).
    auto dispatch =
        ComputeDispatch::Create(program, groups, std::move(regions),
                                std::move(images), limits.warp_width);
    if (!dispatch.ok()) return dispatch.error();
    DrainLimits drain;
    drain.max_warp_instructions = limits.max_warp_instructions;
    drain.what = "dispatch";
    drain.step_observer = limits.step_observer;
    if (Status s = limits.driver->Drain(**dispatch, drain); !s.ok()) {
      return s.error();
    }
    return (*dispatch)->stats();
  }
  if (!independent && limits.threads > 1 && limits.step_observer == nullptr) {
    // Workgroups of most dispatches write disjoint words: run them in
    // parallel with their accesses logged, and keep the result only when
    // no workgroup touched a word another one wrote (then no order of the
    // workgroups gives another result). Otherwise put memory back and run
    // in order; an error also reruns in order, so that it is the in-order
    // one.
    MemorySnapshot snapshot;
    if (snapshot.Take(regions, images)) {
      auto attempt = ComputeDispatch::Create(program, groups, regions, images,
                                             limits.warp_width);
      if (!attempt.ok()) return attempt.error();
      (*attempt)->set_track_accesses(true);
      DrainLimits drain;
      drain.max_warp_instructions = limits.max_warp_instructions;
      drain.time_slice = limits.time_slice;
      drain.what = "dispatch";
      drain.track_accesses = true;
      if (DrainParallel(**attempt, drain, limits.threads).ok() &&
          !(*attempt)->WorkgroupsShareMemory()) {
        DispatchStats stats = (*attempt)->stats();
        stats.threads = limits.threads;
        return stats;
      }
      snapshot.Restore();
      rerun = true;
    }
  }
  const uint32_t threads =
      independent && limits.step_observer == nullptr ? limits.threads : 1;
  auto dispatch = ComputeDispatch::Create(program, groups, std::move(regions),
                                          std::move(images), limits.warp_width);
  if (!dispatch.ok()) return dispatch.error();
  DrainLimits drain;
  drain.max_warp_instructions = limits.max_warp_instructions;
  drain.time_slice = limits.time_slice;
  drain.what = "dispatch";
  drain.step_observer = limits.step_observer;
  if (Status s = DrainParallel(**dispatch, drain, threads); !s.ok()) {
    return s.error();
  }
  DispatchStats stats = (*dispatch)->stats();
  stats.threads = threads;
  stats.rerun_in_order = rerun;
  return stats;
}

}  // namespace warpsim::pipeline
