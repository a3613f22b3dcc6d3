#include "vulkan_ref/submission.h"

#include <algorithm>
#include <cstring>

#include "runner/image_binding.h"
#include "vulkan_ref/formats.h"
#include "vulkan_ref/observe.h"
#include "vulkan_ref/observe_pass.h"

namespace warpsim::vkref {
namespace {

// Report names of the pipeline statistics, in the bit order Vulkan writes
// the query results.
struct StatisticName {
  VkQueryPipelineStatisticFlagBits bit;
  const char* name;
};
constexpr StatisticName kStatisticNames[] = {
    {VK_QUERY_PIPELINE_STATISTIC_INPUT_ASSEMBLY_VERTICES_BIT,
     "input_assembly_vertices"},
    {VK_QUERY_PIPELINE_STATISTIC_INPUT_ASSEMBLY_PRIMITIVES_BIT,
     "primitives_in"},
    {VK_QUERY_PIPELINE_STATISTIC_VERTEX_SHADER_INVOCATIONS_BIT,
     "vs_invocations"},
    {VK_QUERY_PIPELINE_STATISTIC_GEOMETRY_SHADER_INVOCATIONS_BIT,
     "gs_invocations"},
    {VK_QUERY_PIPELINE_STATISTIC_GEOMETRY_SHADER_PRIMITIVES_BIT,
     "gs_primitives"},
    {VK_QUERY_PIPELINE_STATISTIC_CLIPPING_INVOCATIONS_BIT,
     "clipping_invocations"},
    {VK_QUERY_PIPELINE_STATISTIC_CLIPPING_PRIMITIVES_BIT, "primitives_out"},
    {VK_QUERY_PIPELINE_STATISTIC_FRAGMENT_SHADER_INVOCATIONS_BIT,
     "fs_invocations"},
    {VK_QUERY_PIPELINE_STATISTIC_TESSELLATION_CONTROL_SHADER_PATCHES_BIT,
     "tcs_patches"},
    {VK_QUERY_PIPELINE_STATISTIC_TESSELLATION_EVALUATION_SHADER_INVOCATIONS_BIT,
     "tes_invocations"},
    {VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT,
     "cs_invocations"},
};

bool IsBufferDescriptor(VkDescriptorType t) {
  return t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER ||
         t == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER ||
         t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC ||
         t == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
}

bool Writes(VkDescriptorType t) {
  return t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER ||
         t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC ||
         t == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER ||
         t == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
}

}  // namespace

Work::Work(const Device* device, Resources* resources)
    : device_(device), resources_(resources) {}

Work::~Work() {
  VkDevice dev = device_->device();
  vkDeviceWaitIdle(dev);
  for (VkDescriptorPool p : descriptor_pools_)
    vkDestroyDescriptorPool(dev, p, nullptr);
  for (VkBufferView v : buffer_views_) vkDestroyBufferView(dev, v, nullptr);
  for (VkFramebuffer f : framebuffers_) vkDestroyFramebuffer(dev, f, nullptr);
  if (stats_pool_) vkDestroyQueryPool(dev, stats_pool_, nullptr);
  if (time_pool_) vkDestroyQueryPool(dev, time_pool_, nullptr);
  if (fence_) vkDestroyFence(dev, fence_, nullptr);
  if (cmd_) vkFreeCommandBuffers(dev, device_->command_pool(), 1, &cmd_);
}

Result<VkCommandBuffer> Work::Begin() {
  VkDevice dev = device_->device();
  if (cmd_ == VK_NULL_HANDLE) {
    VkCommandBufferAllocateInfo ai{
        VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = device_->command_pool();
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    if (VkResult r = vkAllocateCommandBuffers(dev, &ai, &cmd_);
        r != VK_SUCCESS) {
      return VkError(r, "vkAllocateCommandBuffers");
    }
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (VkResult r = vkCreateFence(dev, &fi, nullptr, &fence_);
        r != VK_SUCCESS) {
      return VkError(r, "vkCreateFence");
    }
  }
  vkResetCommandBuffer(cmd_, 0);
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (VkResult r = vkBeginCommandBuffer(cmd_, &bi); r != VK_SUCCESS)
    return VkError(r, "vkBeginCommandBuffer");
  return cmd_;
}

Status Work::SubmitAndWait() {
  VkDevice dev = device_->device();
  Status result;
  if (VkResult r = vkEndCommandBuffer(cmd_); r != VK_SUCCESS) {
    result = VkError(r, "vkEndCommandBuffer");
  } else {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd_;
    vkResetFences(dev, 1, &fence_);
    if (VkResult r = vkQueueSubmit(device_->queue(), 1, &si, fence_);
        r != VK_SUCCESS) {
      result = VkError(r, "vkQueueSubmit");
    } else if (VkResult w =
                   vkWaitForFences(dev, 1, &fence_, VK_TRUE, UINT64_MAX);
               w != VK_SUCCESS) {
      result = VkError(w, "vkWaitForFences");
    }
  }
  if (result.ok()) {
    resources_->FinishDownloads();
    for (const ReadBack& rb : read_backs_) {
      if (rb.image) continue;
      const DeviceBuffer* from = rb.staging != nullptr ? rb.staging : rb.buffer;
      const size_t n = std::min<size_t>(rb.target->size(), from->size);
      std::memcpy(rb.target->data(), from->mapped, n);
    }
    if (observe_buffer_ != nullptr) {
      const auto* words = static_cast<const uint32_t*>(observe_buffer_->mapped);
      const size_t total = observe_buffer_->size / sizeof(uint32_t);
      const size_t used = std::min<size_t>(
          total, kObserveHeaderWords +
                     size_t{std::min(words[kObserveInvocationCounter],
                                     observe_capacity_)} *
                         kObserveRecordWords);
      observe_words_.assign(words, words + used);
    }
  }
  observe_buffer_ = nullptr;
  read_backs_.clear();
  uploaded_.clear();
  for (VkDescriptorPool p : descriptor_pools_)
    vkDestroyDescriptorPool(dev, p, nullptr);
  descriptor_pools_.clear();
  for (VkBufferView v : buffer_views_) vkDestroyBufferView(dev, v, nullptr);
  buffer_views_.clear();
  for (VkFramebuffer f : framebuffers_) vkDestroyFramebuffer(dev, f, nullptr);
  framebuffers_.clear();
  resources_->ReleaseTransient();
  return result;
}

void Work::Abandon() {
  // The error that stopped the recording is the one reported; submitting
  // what was recorded only ends it and frees what it used.
  static_cast<void>(SubmitAndWait());
}

Result<DeviceBuffer*> Work::HostBuffer(SceneState& state,
                                       const std::string& name) {
  std::vector<uint8_t>& bytes = state.Bytes(name);
  auto buf = resources_->Buffer(name, bytes.size());
  if (!buf.ok()) return buf.error();
  std::memcpy((*buf)->mapped, bytes.data(), bytes.size());
  return *buf;
}

Status Work::BindObserveBuffer(VkDescriptorSet set) {
  const VkDeviceSize bytes =
      (VkDeviceSize{kObserveHeaderWords} +
       VkDeviceSize{observe_capacity_} * kObserveRecordWords) *
      sizeof(uint32_t);
  auto buf = resources_->Transient(bytes, /*prefer_device_local=*/true);
  if (!buf.ok()) return buf.error();
  auto* words = static_cast<uint32_t*>((*buf)->mapped);
  std::fill(words, words + kObserveHeaderWords, 0u);
  words[kObserveCapacity] = observe_capacity_;
  observe_buffer_ = *buf;
  VkDescriptorBufferInfo info{(*buf)->buffer, 0, VK_WHOLE_SIZE};
  VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  w.dstSet = set;
  w.dstBinding = 0;
  w.descriptorCount = 1;
  w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  w.pBufferInfo = &info;
  vkUpdateDescriptorSets(device_->device(), 1, &w, 0, nullptr);
  return {};
}

Status Work::BindDescriptors(SceneState& state, const scene::Pipeline& p,
                             const PipelineObjects& po,
                             VkPipelineBindPoint point) {
  if (po.set_layouts.empty()) return {};
  VkDevice dev = device_->device();
  const scene::Scene& sc = state.scene();
  std::map<VkDescriptorType, uint32_t> counts;
  for (const auto& [key, slot] : po.slots) counts[slot.type] += slot.count;
  std::vector<VkDescriptorPoolSize> sizes;
  for (const auto& [type, n] : counts) sizes.push_back({type, n});
  VkDescriptorPoolCreateInfo pci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pci.maxSets = static_cast<uint32_t>(po.set_layouts.size());
  pci.poolSizeCount = static_cast<uint32_t>(sizes.size());
  pci.pPoolSizes = sizes.data();
  VkDescriptorPool pool = VK_NULL_HANDLE;
  if (VkResult r = vkCreateDescriptorPool(dev, &pci, nullptr, &pool);
      r != VK_SUCCESS) {
    return VkError(r, "vkCreateDescriptorPool");
  }
  descriptor_pools_.push_back(pool);
  std::vector<VkDescriptorSet> sets(po.set_layouts.size());
  VkDescriptorSetAllocateInfo ai{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = pool;
  ai.descriptorSetCount = static_cast<uint32_t>(sets.size());
  ai.pSetLayouts = po.set_layouts.data();
  if (VkResult r = vkAllocateDescriptorSets(dev, &ai, sets.data());
      r != VK_SUCCESS) {
    return VkError(r, "vkAllocateDescriptorSets");
  }
  std::vector<uint32_t> dynamic_offsets;
  std::set<std::string>& read_back_names = uploaded_;
  for (const auto& [key, slot] : po.slots) {
    if (static_cast<int64_t>(key.first) == po.observe_set && key.second == 0) {
      if (Status s = BindObserveBuffer(sets[key.first]); !s.ok()) return s;
      continue;
    }
    const scene::Binding* bound = nullptr;
    for (const scene::Binding& b : p.bindings) {
      if (b.has_descriptor && b.descriptor_set == key.first &&
          b.binding == key.second) {
        bound = &b;
      }
    }
    std::vector<VkDescriptorBufferInfo> buffer_infos(slot.count);
    std::vector<VkDescriptorImageInfo> image_infos(slot.count);
    std::vector<VkBufferView> views(slot.count);
    for (uint32_t k = 0; k < slot.count; ++k) {
      const std::string name =
          bound == nullptr || bound->buffers.empty()
              ? ""
              : bound->buffers[std::min<size_t>(k, bound->buffers.size() - 1)];
      const SourcePos pos{sc.file_path, bound ? bound->line : 0};
      if (IsBufferDescriptor(slot.type)) {
        // Unbound buffers read zeros (as in the emulator).
        DeviceBuffer* buf = nullptr;
        if (name.empty()) {
          auto t = resources_->Transient(4096);
          if (!t.ok()) return t.error();
          buf = *t;
        } else {
          auto h = HostBuffer(state, name);
          if (!h.ok()) return h.error();
          buf = *h;
          if (Writes(slot.type) && !slot.read_only &&
              read_back_names.insert(name).second) {
            read_backs_.push_back({name, false, {}, buf, &state.Bytes(name)});
          }
        }
        uint64_t offset = 0, range = VK_WHOLE_SIZE;
        if (bound && k < bound->descriptor_offsets.size())
          offset = bound->descriptor_offsets[k];
        if (bound && k < bound->descriptor_ranges.size() &&
            bound->descriptor_ranges[k] != ~0ull)
          range = bound->descriptor_ranges[k];
        buffer_infos[k] = {buf->buffer, offset, range};
        if (slot.type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC ||
            slot.type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC) {
          dynamic_offsets.push_back(
              bound && k < bound->dynamic_offsets.size()
                  ? static_cast<uint32_t>(bound->dynamic_offsets[k])
                  : 0);
        }
        continue;
      }
      if (name.empty() && slot.type != VK_DESCRIPTOR_TYPE_SAMPLER) {
        return Unsupported("descriptor set " + std::to_string(key.first) +
                               " binding " + std::to_string(key.second) +
                               " that the scene does not bind (an image)",
                           pos);
      }
      if (slot.type == VK_DESCRIPTOR_TYPE_SAMPLER ||
          slot.type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER) {
        const std::vector<std::string>& samplers =
            bound ? bound->samplers : std::vector<std::string>{};
        if (samplers.empty()) {
          return InvalidInput(
              "binding " + std::to_string(key.second) + " needs a SAMPLER",
              pos);
        }
        auto s =
            state.Sampler(samplers[std::min<size_t>(k, samplers.size() - 1)]);
        if (!s.ok()) return s.error();
        image_infos[k].sampler = *s;
        if (slot.type == VK_DESCRIPTOR_TYPE_SAMPLER) continue;
      }
      const scene::Buffer* decl = sc.FindBuffer(name);
      const scene::Buffer shape = state.ShapeOf(*decl);
      if (slot.type == VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER ||
          slot.type == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER) {
        auto h = HostBuffer(state, name);
        if (!h.ok()) return h.error();
        auto format = VkFormatOf(shape.format);
        if (!format.ok()) return format.error();
        VkBufferViewCreateInfo vci{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
        vci.buffer = (*h)->buffer;
        vci.format = *format;
        vci.offset = bound && k < bound->descriptor_offsets.size()
                         ? bound->descriptor_offsets[k]
                         : 0;
        vci.range = bound && k < bound->descriptor_ranges.size() &&
                            bound->descriptor_ranges[k] != ~0ull
                        ? bound->descriptor_ranges[k]
                        : VK_WHOLE_SIZE;
        if (VkResult r = vkCreateBufferView(dev, &vci, nullptr, &views[k]);
            r != VK_SUCCESS) {
          return VkError(r, "vkCreateBufferView of " + name + " (" +
                                shape.format.name + ")");
        }
        buffer_views_.push_back(views[k]);
        if (Writes(slot.type) && read_back_names.insert(name).second) {
          read_backs_.push_back({name, false, {}, *h, &state.Bytes(name)});
        }
        continue;
      }
      // Images.
      auto img = resources_->Image(shape);
      if (!img.ok()) return img.error();
      const bool storage = slot.type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
      const VkFormatFeatureFlags need =
          storage ? VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT
                  : VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
      if (!((*img)->features & need)) {
        return Unsupported("format " + shape.format.name + " as a " +
                               (storage ? "storage" : "sampled") +
                               " image on " + device_->info().name,
                           pos);
      }
      if (read_back_names.insert(name).second) {
        if (Status s =
                resources_->RecordUpload(cmd_, **img, shape, state.Bytes(name));
            !s.ok()) {
          return s;
        }
        if (storage) {
          read_backs_.push_back(
              {name, true, shape, nullptr, &state.Bytes(name)});
        }
      }
      const uint32_t base = bound ? bound->base_mip_level : 0;
      if (base >= (*img)->levels) {
        return InvalidInput("BASE_MIP_LEVEL " + std::to_string(base) +
                                " of a " + std::to_string((*img)->levels) +
                                "-level image",
                            pos);
      }
      VkImageAspectFlags aspect = (*img)->aspects;
      if (aspect & VK_IMAGE_ASPECT_DEPTH_BIT)
        aspect = VK_IMAGE_ASPECT_DEPTH_BIT;
      auto view = resources_->View(**img, slot.view_type, base,
                                   storage ? 1 : (*img)->levels - base, aspect);
      if (!view.ok()) return view.error();
      image_infos[k].imageView = *view;
      image_infos[k].imageLayout = VK_IMAGE_LAYOUT_GENERAL;
    }
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = sets[key.first];
    w.dstBinding = key.second;
    w.descriptorCount = slot.count;
    w.descriptorType = slot.type;
    w.pBufferInfo = buffer_infos.data();
    w.pImageInfo = image_infos.data();
    w.pTexelBufferView = views.data();
    vkUpdateDescriptorSets(dev, 1, &w, 0, nullptr);
  }
  vkCmdBindDescriptorSets(cmd_, point, po.layout, 0,
                          static_cast<uint32_t>(sets.size()), sets.data(),
                          static_cast<uint32_t>(dynamic_offsets.size()),
                          dynamic_offsets.data());
  return {};
}

Status Work::BindPushConstants(SceneState& state, const scene::Pipeline& p,
                               const PipelineObjects& po) {
  if (po.push_size == 0) return {};
  std::vector<uint8_t> data(po.push_size, 0);
  for (const scene::Binding& b : p.bindings) {
    if (b.kind != scene::BindingKind::kPushConstant) continue;
    const std::vector<uint8_t>& bytes = state.Bytes(b.buffers.at(0));
    std::memcpy(data.data(), bytes.data(),
                std::min<size_t>(bytes.size(), data.size()));
  }
  vkCmdPushConstants(cmd_, po.layout, po.stages, 0, po.push_size, data.data());
  return {};
}

Status Work::RecordReadBacks() {
  // Device-local buffers the work may write: copied on the GPU into host
  // memory the CPU reads fast (after the work's timestamps).
  bool copies = false;
  for (ReadBack& rb : read_backs_) {
    if (rb.image || !rb.buffer->device_local) continue;
    auto staging = resources_->ReadBackStaging(rb.buffer->size);
    if (!staging.ok()) return staging.error();
    if (!copies) Resources::FullBarrier(cmd_);
    copies = true;
    rb.staging = *staging;
    const VkBufferCopy region{0, 0, rb.buffer->size};
    vkCmdCopyBuffer(cmd_, rb.buffer->buffer, rb.staging->buffer, 1, &region);
  }
  for (const ReadBack& rb : read_backs_) {
    if (!rb.image) continue;
    auto img = resources_->Image(rb.shape);
    if (!img.ok()) return img.error();
    if (Status s = resources_->RecordDownload(cmd_, **img, rb.shape, rb.target);
        !s.ok()) {
      return s;
    }
  }
  Resources::FullBarrier(cmd_);
  return {};
}

void Work::BeginQueries(VkQueryPipelineStatisticFlags flags) {
  VkDevice dev = device_->device();
  if (flags != 0 && (stats_pool_ == VK_NULL_HANDLE || pool_flags_ != flags)) {
    if (stats_pool_) vkDestroyQueryPool(dev, stats_pool_, nullptr);
    VkQueryPoolCreateInfo ci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    ci.queryType = VK_QUERY_TYPE_PIPELINE_STATISTICS;
    ci.queryCount = 1;
    ci.pipelineStatistics = flags;
    if (vkCreateQueryPool(dev, &ci, nullptr, &stats_pool_) != VK_SUCCESS)
      stats_pool_ = VK_NULL_HANDLE;
    pool_flags_ = flags;
  }
  if (device_->timestamp_valid_bits() != 0 && time_pool_ == VK_NULL_HANDLE) {
    VkQueryPoolCreateInfo ci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    ci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    ci.queryCount = 2;
    if (vkCreateQueryPool(dev, &ci, nullptr, &time_pool_) != VK_SUCCESS)
      time_pool_ = VK_NULL_HANDLE;
  }
  if (time_pool_) vkCmdResetQueryPool(cmd_, time_pool_, 0, 2);
  if (stats_pool_ && flags) vkCmdResetQueryPool(cmd_, stats_pool_, 0, 1);
  Resources::FullBarrier(cmd_);
  if (time_pool_) {
    vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, time_pool_, 0);
  }
  if (stats_pool_ && flags) vkCmdBeginQuery(cmd_, stats_pool_, 0, 0);
}

void Work::EndQueries() {
  if (stats_pool_ && pool_flags_) vkCmdEndQuery(cmd_, stats_pool_, 0);
  if (time_pool_) {
    vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, time_pool_,
                        1);
  }
}

void Work::ReadQueries(VkQueryPipelineStatisticFlags flags,
                       DeviceDrawReport* rep) {
  VkDevice dev = device_->device();
  if (stats_pool_ && flags) {
    uint64_t values[16] = {};
    if (vkGetQueryPoolResults(
            dev, stats_pool_, 0, 1, sizeof values, values, sizeof values,
            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS) {
      int i = 0;
      rep->statistics.clear();
      for (const StatisticName& s : kStatisticNames) {
        if (flags & s.bit) rep->statistics[s.name] = values[i++];
      }
    }
  }
  if (time_pool_) {
    uint64_t t[2] = {};
    if (vkGetQueryPoolResults(
            dev, time_pool_, 0, 2, sizeof t, t, sizeof(uint64_t),
            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS) {
      const uint32_t bits = device_->timestamp_valid_bits();
      const uint64_t mask = bits >= 64 ? ~0ull : (uint64_t{1} << bits) - 1;
      const uint64_t ticks = ((t[1] & mask) - (t[0] & mask)) & mask;
      rep->gpu_ns.push_back(static_cast<double>(ticks) *
                            device_->properties().limits.timestampPeriod);
    }
  }
}

Status Work::Dispatch(SceneState& state, const scene::Pipeline& p,
                      const scene::RunCommand& run, DeviceDrawReport* rep) {
  DrawShape shape;
  shape.compute = true;
  auto po = state.GetPipeline(p, shape);
  if (!po.ok()) return po.error();
  const auto& rc = std::get<scene::RunCompute>(run.draw);
  const auto& limits = device_->properties().limits;
  if (rc.x > limits.maxComputeWorkGroupCount[0] ||
      rc.y > limits.maxComputeWorkGroupCount[1] ||
      rc.z > limits.maxComputeWorkGroupCount[2]) {
    return Unsupported("dispatch of " + std::to_string(rc.x) + " x " +
                       std::to_string(rc.y) + " x " + std::to_string(rc.z) +
                       " workgroups (more than " + device_->info().name +
                       " allows)");
  }
  auto cmd = Begin();
  if (!cmd.ok()) return cmd.error();
  vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, (*po)->pipeline);
  if (Status s =
          BindDescriptors(state, p, **po, VK_PIPELINE_BIND_POINT_COMPUTE);
      !s.ok()) {
    Abandon();
    return s;
  }
  if (Status s = BindPushConstants(state, p, **po); !s.ok()) return s;
  const VkQueryPipelineStatisticFlags flags =
      device_->statistic_flags() &
      VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT;
  BeginQueries(flags);
  vkCmdDispatch(cmd_, rc.x, rc.y, rc.z);
  EndQueries();
  if (Status s = RecordReadBacks(); !s.ok()) {
    Abandon();
    return s;
  }
  observe_words_.clear();
  if (Status s = SubmitAndWait(); !s.ok()) return s;
  ReadQueries(flags, rep);
  if ((*po)->observe_set >= 0)
    rep->observation = ObserveFromBuffer(observe_words_);
  return {};
}

}  // namespace warpsim::vkref

namespace warpsim::vkref {

Status Work::Draw(SceneState& state, const scene::Pipeline& p,
                  const scene::RunCommand& run, DeviceDrawReport* rep) {
  const scene::Scene& sc = state.scene();
  DrawShape shape;
  // DRAW_RECT and DRAW_GRID positions, generated exactly as the emulator's
  // runner does (the same floats reach both).
  std::vector<float> generated;
  uint32_t count = 0, first = 0, instances = 1, first_instance = 0;
  int32_t vertex_offset = 0;
  bool indexed = false;
  const float fw = static_cast<float>(p.framebuffer_width);
  const float fh = static_cast<float>(p.framebuffer_height);
  if (const auto* rect = std::get_if<scene::RunDrawRect>(&run.draw)) {
    const float x = rect->ndc ? rect->x : rect->x / fw * 2.0f - 1.0f,
                y = rect->ndc ? rect->y : rect->y / fh * 2.0f - 1.0f;
    const float w = rect->ndc ? rect->width : rect->width / fw * 2.0f,
                h = rect->ndc ? rect->height : rect->height / fh * 2.0f;
    generated = {x, y + h, x, y, x + w, y + h, x + w, y};
    shape.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
    count = 4;
  } else if (const auto* grid = std::get_if<scene::RunDrawGrid>(&run.draw)) {
    const float x = grid->x / fw * 2.0f - 1.0f, y = grid->y / fh * 2.0f - 1.0f;
    const float cw =
        grid->width / fw * 2.0f / static_cast<float>(grid->columns);
    const float ch = grid->height / fh * 2.0f / static_cast<float>(grid->rows);
    if (static_cast<uint64_t>(grid->columns) * grid->rows > (1u << 22)) {
      return InvalidInput("DRAW_GRID of more than 2^22 cells");
    }
    for (uint32_t r = 0; r < grid->rows; ++r) {
      for (uint32_t c = 0; c < grid->columns; ++c) {
        const float x0 = x + cw * static_cast<float>(c);
        const float y0 = y + ch * static_cast<float>(r);
        const float x1 = x + cw * static_cast<float>(c + 1);
        const float y1 = y + ch * static_cast<float>(r + 1);
        const float cell[12] = {x1, y1, x0, y1, x0, y0, x1, y1, x0, y0, x1, y0};
        generated.insert(generated.end(), cell, cell + 12);
      }
    }
    shape.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    count = static_cast<uint32_t>(generated.size() / 2);
  } else {
    const auto& arr = std::get<scene::RunDrawArray>(run.draw);
    auto topology = TopologyOf(arr.topology);
    if (!topology.ok()) return topology.error();
    shape.topology = *topology;
    first = arr.start_index;
    first_instance = arr.start_instance;
    instances = arr.instance_count;
    indexed = arr.indexed;
    vertex_offset = arr.vertex_offset;
    uint64_t total = 0;
    if (indexed) {
      if (p.index_data.empty()) {
        return InvalidInput("DRAW_ARRAY INDEXED without INDEX_DATA");
      }
      const scene::Buffer* ib = sc.FindBuffer(p.index_data);
      total = state.Bytes(ib->name).size() / std::max(1u, ib->format.stride);
    } else {
      for (const scene::VertexData& vd : p.vertex_data) {
        const scene::Buffer* buf = sc.FindBuffer(vd.buffer);
        const uint64_t stride = vd.stride.value_or(buf->format.stride);
        const uint64_t size = state.Bytes(buf->name).size();
        if (vd.per_instance || stride == 0) continue;
        const uint64_t n = size > vd.offset ? (size - vd.offset) / stride : 0;
        total = total == 0 ? n : std::min(total, n);
      }
    }
    count = arr.count.value_or(
        static_cast<uint32_t>(total > first ? total - first : 0));
  }
  shape.generated = !generated.empty();
  auto po = state.GetPipeline(p, shape);
  if (!po.ok()) return po.error();
  auto cmd = Begin();
  if (!cmd.ok()) return cmd.error();
  auto fail = [&](const Status& s) {
    Abandon();
    return s;
  };

  // Attachments: uploaded, viewed at their bound level, read back after.
  std::vector<VkImageView> views;
  uint32_t width = ~0u, height = ~0u;
  std::vector<const scene::Binding*> atts;
  for (const scene::Binding* b : (*po)->colors) {
    if (b != nullptr) atts.push_back(b);
  }
  if ((*po)->depth) atts.push_back((*po)->depth);
  for (const scene::Binding* b : atts) {
    const scene::Buffer att = state.ShapeOf(*sc.FindBuffer(b->buffers.at(0)));
    auto img = resources_->Image(att);
    if (!img.ok()) return fail(img.error());
    std::vector<uint8_t>& bytes = state.Bytes(att.name);
    if (uploaded_.insert(att.name).second) {
      if (Status s = resources_->RecordUpload(cmd_, **img, att, bytes);
          !s.ok()) {
        return fail(s);
      }
      read_backs_.push_back({att.name, true, att, nullptr, &bytes});
    }
    const uint32_t level = b->base_mip_level;
    if (level >= (*img)->levels) {
      return fail(InvalidInput("BASE_MIP_LEVEL " + std::to_string(level) +
                               " of a " + std::to_string((*img)->levels) +
                               "-level attachment"));
    }
    auto view = resources_->View(**img, VK_IMAGE_VIEW_TYPE_2D, level, 1,
                                 (*img)->aspects);
    if (!view.ok()) return fail(view.error());
    views.push_back(*view);
    width = std::min(width, std::max(1u, (*img)->width >> level));
    height = std::min(height, std::max(1u, (*img)->height >> level));
    if (b->kind == scene::BindingKind::kColor) state.NoteImageOutput(att.name);
  }
  if (atts.empty()) width = p.framebuffer_width, height = p.framebuffer_height;
  VkFramebufferCreateInfo fci{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  fci.renderPass = (*po)->render_pass;
  fci.attachmentCount = static_cast<uint32_t>(views.size());
  fci.pAttachments = views.data();
  fci.width = width;
  fci.height = height;
  fci.layers = 1;
  VkFramebuffer fb = VK_NULL_HANDLE;
  if (VkResult r = vkCreateFramebuffer(device_->device(), &fci, nullptr, &fb);
      r != VK_SUCCESS) {
    return fail(VkError(r, "vkCreateFramebuffer"));
  }
  framebuffers_.push_back(fb);
  if (Status s =
          BindDescriptors(state, p, **po, VK_PIPELINE_BIND_POINT_GRAPHICS);
      !s.ok()) {
    return fail(s);
  }

  // Vertex and index data.
  if (shape.generated) {
    auto t = resources_->Transient(generated.size() * sizeof(float));
    if (!t.ok()) return fail(t.error());
    std::memcpy((*t)->mapped, generated.data(),
                generated.size() * sizeof(float));
    const VkDeviceSize zero = 0;
    vkCmdBindVertexBuffers(cmd_, 0, 1, &(*t)->buffer, &zero);
  } else {
    for (uint32_t i = 0; i < p.vertex_data.size(); ++i) {
      auto h = HostBuffer(state, p.vertex_data[i].buffer);
      if (!h.ok()) return fail(h.error());
      const VkDeviceSize zero = 0;
      vkCmdBindVertexBuffers(cmd_, i, 1, &(*h)->buffer, &zero);
    }
  }
  if (indexed) {
    const scene::Buffer* ib = sc.FindBuffer(p.index_data);
    auto h = HostBuffer(state, ib->name);
    if (!h.ok()) return fail(h.error());
    VkIndexType type = VK_INDEX_TYPE_UINT32;
    switch (std::max(1u, ib->format.stride)) {
      case 1:
        if (!device_->index_type_uint8()) {
          return fail(Unsupported(
              "8-bit indices (IndexTypeUint8Features.indexTypeUint8)"));
        }
        type = VK_INDEX_TYPE_UINT8_EXT;
        break;
      case 2:
        type = VK_INDEX_TYPE_UINT16;
        break;
      case 4:
        break;
      default:
        return fail(
            InvalidInput("index buffer elements must be 8, 16 or 32 bits"));
    }
    vkCmdBindIndexBuffer(cmd_, (*h)->buffer, 0, type);
  }
  vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_GRAPHICS, (*po)->pipeline);
  if (Status s = BindPushConstants(state, p, **po); !s.ok()) return fail(s);

  const VkQueryPipelineStatisticFlags flags =
      device_->statistic_flags() &
      ~VkQueryPipelineStatisticFlags{
          VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT};
  BeginQueries(flags);
  VkRenderPassBeginInfo rbi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  rbi.renderPass = (*po)->render_pass;
  rbi.framebuffer = fb;
  rbi.renderArea = {{0, 0}, {width, height}};
  vkCmdBeginRenderPass(cmd_, &rbi, VK_SUBPASS_CONTENTS_INLINE);
  if (indexed) {
    vkCmdDrawIndexed(cmd_, count, instances, first, vertex_offset,
                     first_instance);
  } else {
    vkCmdDraw(cmd_, count, instances, first, first_instance);
  }
  vkCmdEndRenderPass(cmd_);
  EndQueries();
  if (Status s = RecordReadBacks(); !s.ok()) return fail(s);
  observe_words_.clear();
  if (Status s = SubmitAndWait(); !s.ok()) return s;
  ReadQueries(flags, rep);
  if ((*po)->observe_set >= 0)
    rep->observation = ObserveFromBuffer(observe_words_);
  return {};
}

}  // namespace warpsim::vkref
