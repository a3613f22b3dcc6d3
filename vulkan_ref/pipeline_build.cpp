// BuildPipeline (pipelines.h): shaders, descriptor set layouts, render pass
// and the Vulkan pipeline of one scene pipeline.
#include <algorithm>

#include "vulkan_ref/formats.h"
#include "vulkan_ref/observe_pass.h"
#include "vulkan_ref/pipelines.h"

namespace warpsim::vkref {
namespace {

VkDescriptorType DynamicOf(VkDescriptorType t, scene::BindingKind kind) {
  if (kind == scene::BindingKind::kStorageDynamic)
    return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
  if (kind == scene::BindingKind::kUniformDynamic)
    return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
  return t;
}

struct Stage {
  const scene::ShaderAttachment* att = nullptr;
  ShaderBinary binary;
  std::vector<VkSpecializationMapEntry> spec_entries;
  std::vector<uint32_t> spec_data;
  VkSpecializationInfo spec{};
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroup{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
};

Status MakeStageInfo(const Device& device, Stage* st, PipelineObjects* out,
                     VkPipelineShaderStageCreateInfo* info) {
  VkShaderModuleCreateInfo mci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mci.codeSize = st->binary.words.size() * 4;
  mci.pCode = st->binary.words.data();
  VkShaderModule module = VK_NULL_HANDLE;
  if (VkResult r =
          vkCreateShaderModule(device.device(), &mci, nullptr, &module);
      r != VK_SUCCESS) {
    return VkError(r, "vkCreateShaderModule " + st->att->shader);
  }
  out->modules.push_back(module);
  for (const auto& sc : st->att->specializations) {
    st->spec_entries.push_back(
        {sc.id, static_cast<uint32_t>(st->spec_data.size() * 4), 4});
    st->spec_data.push_back(sc.bits);
  }
  st->spec.mapEntryCount = static_cast<uint32_t>(st->spec_entries.size());
  st->spec.pMapEntries = st->spec_entries.data();
  st->spec.dataSize = st->spec_data.size() * 4;
  st->spec.pData = st->spec_data.data();
  *info = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info->stage = StageBit(st->att->stage);
  info->module = module;
  info->pName = st->att->entry_point.c_str();
  if (!st->spec_entries.empty()) info->pSpecializationInfo = &st->spec;
  if (st->att->subgroup) {
    const scene::SubgroupSettings& sg = *st->att->subgroup;
    if (sg.varying_size)
      info->flags |=
          VK_PIPELINE_SHADER_STAGE_CREATE_ALLOW_VARYING_SUBGROUP_SIZE_BIT;
    if (sg.fully_populated)
      info->flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
    if (sg.required_size != 0) {
      st->subgroup.requiredSubgroupSize = sg.required_size;
      info->pNext = &st->subgroup;
    }
  }
  return {};
}

// Set layouts for every set up to the highest one used (gaps get empty
// layouts, as Vulkan needs a layout per set number below the last).
Status MakeLayout(const Device& device, const scene::Scene& scene,
                  const scene::Pipeline& p, bool push, PipelineObjects* out) {
  VkDevice dev = device.device();
  uint32_t sets = 0;
  for (const auto& [key, slot] : out->slots)
    sets = std::max(sets, key.first + 1);
  for (uint32_t set = 0; set < sets; ++set) {
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (const auto& [key, slot] : out->slots) {
      if (key.first != set) continue;
      bindings.push_back(
          {key.second, slot.type, slot.count, out->stages, nullptr});
    }
    VkDescriptorSetLayoutCreateInfo ci{
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    ci.bindingCount = static_cast<uint32_t>(bindings.size());
    ci.pBindings = bindings.data();
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    if (VkResult r = vkCreateDescriptorSetLayout(dev, &ci, nullptr, &layout);
        r != VK_SUCCESS) {
      return VkError(r, "vkCreateDescriptorSetLayout");
    }
    out->set_layouts.push_back(layout);
  }
  // Push constants: the bound buffer's size, or the 128 bytes every device
  // offers when the shader declares a block the scene does not fill.
  for (const scene::Binding& b : p.bindings) {
    if (b.kind != scene::BindingKind::kPushConstant) continue;
    const scene::Buffer* buf = scene.FindBuffer(b.buffers.at(0));
    out->push_size = static_cast<uint32_t>(buf->bytes.size() + 3) & ~3u;
  }
  if (!push) out->push_size = 0;
  if (push && out->push_size == 0) out->push_size = 128;
  const uint32_t limit = device.properties().limits.maxPushConstantsSize;
  if (out->push_size > limit) {
    return Unsupported("push constants of " + std::to_string(out->push_size) +
                       " bytes (" + device.info().name + " offers " +
                       std::to_string(limit) + ")");
  }
  VkPushConstantRange range{out->stages, 0, out->push_size};
  VkPipelineLayoutCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  ci.setLayoutCount = static_cast<uint32_t>(out->set_layouts.size());
  ci.pSetLayouts = out->set_layouts.data();
  ci.pushConstantRangeCount = out->push_size ? 1 : 0;
  ci.pPushConstantRanges = &range;
  if (VkResult r = vkCreatePipelineLayout(dev, &ci, nullptr, &out->layout);
      r != VK_SUCCESS) {
    return VkError(r, "vkCreatePipelineLayout");
  }
  return {};
}

Status MakeRenderPass(const Device& device, const scene::Scene& scene,
                      const scene::Pipeline& p, PipelineObjects* out) {
  std::vector<VkAttachmentDescription> atts;
  std::vector<VkAttachmentReference> color_refs;
  VkAttachmentReference depth_ref{VK_ATTACHMENT_UNUSED,
                                  VK_IMAGE_LAYOUT_GENERAL};
  auto describe = [&](const scene::Binding& b, bool color) -> Status {
    const scene::Buffer* buf = scene.FindBuffer(b.buffers.at(0));
    auto format = VkFormatOf(buf->format);
    if (!format.ok()) return format.error();
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(device.physical(), *format, &fp);
    const VkFormatFeatureFlags need =
        color ? VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT
              : VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT;
    if (!(fp.optimalTilingFeatures & need)) {
      return Unsupported("format " + buf->format.name + " as a " +
                         (color ? "colour" : "depth/stencil") +
                         " attachment on " + device.info().name);
    }
    if (buf->samples > 1) return Unsupported("multisampled attachments");
    VkAttachmentDescription d{};
    d.format = *format;
    d.samples = VK_SAMPLE_COUNT_1_BIT;
    d.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
    d.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    d.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
    d.stencilStoreOp = VK_ATTACHMENT_STORE_OP_STORE;
    d.initialLayout = VK_IMAGE_LAYOUT_GENERAL;
    d.finalLayout = VK_IMAGE_LAYOUT_GENERAL;
    atts.push_back(d);
    return {};
  };
  for (const scene::Binding& b : p.bindings) {
    if (b.kind != scene::BindingKind::kColor) continue;
    if (out->colors.size() <= b.location) out->colors.resize(b.location + 1);
    out->colors[b.location] = &b;
  }
  for (const scene::Binding* b : out->colors) {
    if (b == nullptr) {
      color_refs.push_back({VK_ATTACHMENT_UNUSED, VK_IMAGE_LAYOUT_GENERAL});
      continue;
    }
    if (Status s = describe(*b, true); !s.ok()) return s;
    color_refs.push_back(
        {static_cast<uint32_t>(atts.size() - 1), VK_IMAGE_LAYOUT_GENERAL});
  }
  for (const scene::Binding& b : p.bindings) {
    if (b.kind != scene::BindingKind::kDepthStencil) continue;
    if (Status s = describe(b, false); !s.ok()) return s;
    depth_ref.attachment = static_cast<uint32_t>(atts.size() - 1);
    out->depth = &b;
  }
  VkSubpassDescription sub{};
  sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  sub.colorAttachmentCount = static_cast<uint32_t>(color_refs.size());
  sub.pColorAttachments = color_refs.data();
  if (out->depth) sub.pDepthStencilAttachment = &depth_ref;
  VkRenderPassCreateInfo ci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  ci.attachmentCount = static_cast<uint32_t>(atts.size());
  ci.pAttachments = atts.data();
  ci.subpassCount = 1;
  ci.pSubpasses = &sub;
  if (VkResult r =
          vkCreateRenderPass(device.device(), &ci, nullptr, &out->render_pass);
      r != VK_SUCCESS) {
    return VkError(r, "vkCreateRenderPass");
  }
  return {};
}

Status MakeGraphicsPipeline(const Device& device, const scene::Scene& scene,
                            const scene::Pipeline& p, const DrawShape& shape,
                            std::vector<VkPipelineShaderStageCreateInfo> infos,
                            PipelineObjects* out) {
  if (Status s = MakeRenderPass(device, scene, p, out); !s.ok()) return s;
  auto ff = FixedFunctionOf(p);
  if (!ff.ok()) return ff.error();
  std::vector<VkVertexInputBindingDescription> vbind;
  std::vector<VkVertexInputAttributeDescription> vattr;
  if (shape.generated) {
    vbind.push_back({0, 8, VK_VERTEX_INPUT_RATE_VERTEX});
    vattr.push_back({0, 0, VK_FORMAT_R32G32_SFLOAT, 0});
  } else {
    for (const scene::VertexData& vd : p.vertex_data) {
      const scene::Buffer* buf = scene.FindBuffer(vd.buffer);
      const scene::ElementFormat& ef = vd.format ? *vd.format : buf->format;
      auto format = VkFormatOf(ef);
      if (!format.ok()) return format.error();
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(device.physical(), *format, &fp);
      if (!(fp.bufferFeatures & VK_FORMAT_FEATURE_VERTEX_BUFFER_BIT)) {
        return Unsupported("format " + ef.name + " as vertex data on " +
                           device.info().name);
      }
      const uint32_t binding = static_cast<uint32_t>(vbind.size());
      vbind.push_back({binding, vd.stride.value_or(buf->format.stride),
                       vd.per_instance ? VK_VERTEX_INPUT_RATE_INSTANCE
                                       : VK_VERTEX_INPUT_RATE_VERTEX});
      vattr.push_back({vd.location, binding, *format, vd.offset});
    }
  }
  VkPipelineVertexInputStateCreateInfo vi{
      VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  vi.vertexBindingDescriptionCount = static_cast<uint32_t>(vbind.size());
  vi.pVertexBindingDescriptions = vbind.data();
  vi.vertexAttributeDescriptionCount = static_cast<uint32_t>(vattr.size());
  vi.pVertexAttributeDescriptions = vattr.data();
  VkPipelineInputAssemblyStateCreateInfo ia{
      VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  ia.topology = shape.topology;
  VkPipelineViewportStateCreateInfo vp{
      VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  vp.viewportCount = 1;
  vp.pViewports = &ff->viewport;
  vp.scissorCount = 1;
  vp.pScissors = &ff->scissor;
  VkPipelineMultisampleStateCreateInfo ms{
      VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  // Formats that cannot blend (integers) take no blending, which is what
  // Vulkan specifies for them.
  std::vector<VkPipelineColorBlendAttachmentState> blends;
  for (const scene::Binding* b : out->colors) {
    VkPipelineColorBlendAttachmentState st = ff->blend;
    if (b != nullptr) {
      auto format = VkFormatOf(scene.FindBuffer(b->buffers.at(0))->format);
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(device.physical(), *format, &fp);
      if (!(fp.optimalTilingFeatures &
            VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT)) {
        st.blendEnable = VK_FALSE;
      }
    }
    blends.push_back(st);
  }
  VkPipelineColorBlendStateCreateInfo cb{
      VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cb.attachmentCount = static_cast<uint32_t>(blends.size());
  cb.pAttachments = blends.data();
  VkGraphicsPipelineCreateInfo ci{
      VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  if (device.executable_properties())
    ci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  ci.stageCount = static_cast<uint32_t>(infos.size());
  ci.pStages = infos.data();
  ci.pVertexInputState = &vi;
  ci.pInputAssemblyState = &ia;
  ci.pViewportState = &vp;
  ci.pRasterizationState = &ff->raster;
  ci.pMultisampleState = &ms;
  ci.pDepthStencilState = &ff->depth;
  ci.pColorBlendState = &cb;
  ci.layout = out->layout;
  ci.renderPass = out->render_pass;
  if (VkResult r = vkCreateGraphicsPipelines(device.device(), VK_NULL_HANDLE, 1,
                                             &ci, nullptr, &out->pipeline);
      r != VK_SUCCESS) {
    return VkError(r, "vkCreateGraphicsPipelines " + p.name);
  }
  return {};
}

// --observe: instruments the shaders to write their records to binding 0
// of the first set after the scene's.
Status Instrument(const Device& device, std::vector<Stage>* stages,
                  PipelineObjects* out) {
  uint32_t set = 0;
  for (const auto& [key, slot] : out->slots) set = std::max(set, key.first + 1);
  if (set >= device.properties().limits.maxBoundDescriptorSets) {
    return Unsupported(
        "--observe with descriptor sets up to " + std::to_string(set) + " (" +
        device.info().name + " binds " +
        std::to_string(device.properties().limits.maxBoundDescriptorSets) +
        ")");
  }
  const ObserveSupport& support = device.observe();
  for (Stage& st : *stages) {
    ObservePassOptions o;
    o.stage = st.att->stage == scene::ShaderStage::kFragment
                  ? ObservedStage::kFragment
              : st.att->stage == scene::ShaderStage::kCompute
                  ? ObservedStage::kCompute
                  : ObservedStage::kVertex;
    o.entry_point = st.att->entry_point;
    o.descriptor_set = set;
    o.subgroup = o.stage == ObservedStage::kFragment ? support.fragment_subgroup
                 : o.stage == ObservedStage::kCompute ? support.compute_subgroup
                                                      : support.vertex_subgroup;
    o.quad = support.fragment_quad;
    o.sm_builtins = support.sm_builtins;
    o.clock = support.clock;
    o.primitive_id = support.primitive_id;
    o.helper_invocation = support.helper_invocation;
    auto words = InstrumentForObserve(st.binary.words, o);
    if (!words.ok()) {
      Diagnostic d = words.error();
      d.message =
          "--observe cannot instrument " + st.att->shader + ": " + d.message;
      return d;
    }
    st.binary.words = std::move(*words);
  }
  out->slots[{set, 0}] = DescriptorSlot{};  // a storage buffer
  out->observe_set = set;
  return {};
}

}  // namespace

void PipelineObjects::Destroy(VkDevice dev) {
  if (pipeline) vkDestroyPipeline(dev, pipeline, nullptr);
  if (layout) vkDestroyPipelineLayout(dev, layout, nullptr);
  for (VkDescriptorSetLayout l : set_layouts)
    vkDestroyDescriptorSetLayout(dev, l, nullptr);
  if (render_pass) vkDestroyRenderPass(dev, render_pass, nullptr);
  for (VkShaderModule m : modules) vkDestroyShaderModule(dev, m, nullptr);
  *this = PipelineObjects{};
}

Result<PipelineObjects> BuildPipeline(
    const Device& device, const scene::Scene& scene, const scene::Pipeline& p,
    const DrawShape& shape, runner::ShaderCache* cache,
    const std::vector<std::string>& glsl_defines,
    std::vector<DevicePipelineReport>* reports) {
  std::vector<Stage> stages;
  for (const scene::ShaderAttachment& att : p.shaders) {
    switch (att.stage) {
      case scene::ShaderStage::kVertex:
      case scene::ShaderStage::kFragment:
        if (shape.compute) {
          return InvalidInput("a compute pipeline cannot take a " +
                              std::string(scene::ShaderStageName(att.stage)) +
                              " shader");
        }
        break;
      case scene::ShaderStage::kCompute:
        if (!shape.compute) {
          return InvalidInput(
              "a graphics pipeline cannot take a compute "
              "shader");
        }
        break;
      case scene::ShaderStage::kGeometry:
        return Unsupported("geometry shaders in warpsim-vkref");
      case scene::ShaderStage::kTessControl:
      case scene::ShaderStage::kTessEvaluation:
        return Unsupported("tessellation shaders in warpsim-vkref");
      default:
        return InvalidInput("a pipeline cannot take a " +
                            std::string(scene::ShaderStageName(att.stage)) +
                            " shader");
    }
    Stage st;
    st.att = &att;
    auto binary = BuildShaderBinary(scene, att, cache, glsl_defines);
    if (!binary.ok()) return binary.error();
    st.binary = std::move(*binary);
    stages.push_back(std::move(st));
  }
  if (stages.empty())
    return InvalidInput("pipeline " + p.name + " has no shader");
  if (!shape.compute && stages.size() != 2) {
    return InvalidInput("graphics pipeline " + p.name +
                        " needs a vertex and a fragment shader");
  }
  PipelineObjects out;
  bool push = false;
  for (const Stage& st : stages) {
    out.stages |= StageBit(st.att->stage);
    push |= st.binary.uses_push_constants;
    for (const auto& [key, slot] : st.binary.descriptors) {
      DescriptorSlot s = slot;
      for (const scene::Binding& b : p.bindings) {
        if (b.has_descriptor && b.descriptor_set == key.first &&
            b.binding == key.second) {
          s.type = DynamicOf(s.type, b.kind);
        }
      }
      // Read-only only if every stage that declares it reads only.
      auto seen = out.slots.find(key);
      if (seen != out.slots.end()) s.read_only &= seen->second.read_only;
      out.slots[key] = s;
    }
  }
  if (device.observe().enabled) {
    if (Status s = Instrument(device, &stages, &out); !s.ok()) return s.error();
  }
  if (Status s = MakeLayout(device, scene, p, push, &out); !s.ok()) {
    out.Destroy(device.device());
    return s.error();
  }
  std::vector<VkPipelineShaderStageCreateInfo> infos(stages.size());
  for (size_t i = 0; i < stages.size(); ++i) {
    if (Status s = MakeStageInfo(device, &stages[i], &out, &infos[i]);
        !s.ok()) {
      out.Destroy(device.device());
      return s.error();
    }
  }
  Status made;
  if (shape.compute) {
    VkComputePipelineCreateInfo ci{
        VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    if (device.executable_properties())
      ci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    ci.stage = infos[0];
    ci.layout = out.layout;
    if (VkResult r = vkCreateComputePipelines(device.device(), VK_NULL_HANDLE,
                                              1, &ci, nullptr, &out.pipeline);
        r != VK_SUCCESS) {
      made = VkError(r, "vkCreateComputePipelines " + p.name);
    }
  } else {
    made = MakeGraphicsPipeline(device, scene, p, shape, infos, &out);
  }
  if (!made.ok()) {
    out.Destroy(device.device());
    return made.error();
  }
  if (reports != nullptr) {
    for (const Stage& st : stages) {
      DevicePipelineReport r;
      r.name = p.name;
      r.stage = scene::ShaderStageName(st.att->stage);
      r.shader = st.att->shader;
      r.entry_point = st.att->entry_point;
      r.legalized = st.binary.legalized;
      reports->push_back(std::move(r));
    }
    std::vector<DevicePipelineReport*> ptrs;
    for (auto& r : *reports) ptrs.push_back(&r);
    if (Status s = CollectExecutableStatistics(device, out.pipeline, ptrs);
        !s.ok()) {
      out.Destroy(device.device());
      return s.error();
    }
  }
  return out;
}

}  // namespace warpsim::vkref
