// Vulkan pipeline objects for scene pipelines: fixed-function state from
// the scene's names, samplers, and the driver's executable statistics.
#ifndef WARPSIM_VULKAN_REF_PIPELINES_H_
#define WARPSIM_VULKAN_REF_PIPELINES_H_

#include <vulkan/vulkan.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/diagnostic.h"
#include "runner/shader_cache.h"
#include "scene/scene.h"
#include "vulkan_ref/device.h"
#include "vulkan_ref/shaders.h"
#include "vulkan_ref/vk_runner.h"

namespace warpsim::vkref {

// Scene names (lower case, as the parsers store them) -> Vulkan enums.
// Unknown names are InvalidInput; names Vulkan has but warpsim-vkref does
// not drive (advanced blend ops, adjacency and patch topologies) are
// Unsupported.
Result<VkPrimitiveTopology> TopologyOf(const std::string& name);
Result<VkCompareOp> CompareOpOf(const std::string& name);
Result<VkStencilOp> StencilOpOf(const std::string& name);
Result<VkBlendFactor> BlendFactorOf(const std::string& name);
Result<VkBlendOp> BlendOpOf(const std::string& name);
Result<VkPolygonMode> PolygonModeOf(const std::string& name);
Result<VkCullModeFlags> CullModeOf(const std::string& name);
Result<VkFrontFace> FrontFaceOf(const std::string& name);

// A VkSampler for a scene SAMPLER.
Result<VkSampler> CreateSampler(const Device& device,
                                const scene::Sampler& sampler);

// The scene's depth/stencil, blend, raster and viewport state.
struct FixedFunction {
  VkPipelineRasterizationStateCreateInfo raster{
      VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  VkPipelineDepthStencilStateCreateInfo depth{
      VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  VkPipelineColorBlendAttachmentState blend{};
  VkViewport viewport{};
  VkRect2D scissor{};
};
Result<FixedFunction> FixedFunctionOf(const scene::Pipeline& p);

// Statistics of every executable of `pipeline` (created with
// VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR) attached to the entries of
// `reports` whose stage the executable covers.
Status CollectExecutableStatistics(const Device& device, VkPipeline pipeline,
                                   std::vector<DevicePipelineReport*> reports);

// How a pipeline is drawn: a graphics pipeline's topology and vertex source
// are baked into the Vulkan pipeline, so each combination gets its own.
struct DrawShape {
  bool compute = false;
  VkPrimitiveTopology topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  bool generated = false;  // DRAW_RECT / DRAW_GRID: positions at location 0
  std::string Key() const {
    return compute ? "compute"
                   : std::to_string(static_cast<int>(topology)) +
                         (generated ? "g" : "v");
  }
};

// The Vulkan objects of one scene pipeline (for one DrawShape).
struct PipelineObjects {
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  std::vector<VkDescriptorSetLayout> set_layouts;  // index = set number
  // Every descriptor of every stage, with the scene's dynamic kinds.
  std::map<std::pair<uint32_t, uint32_t>, DescriptorSlot> slots;
  VkShaderStageFlags stages = 0;
  uint32_t push_size = 0;  // 0: no push constant range
  // --observe: the set whose binding 0 is the observation buffer; -1 when
  // the shaders are not instrumented.
  int64_t observe_set = -1;
  VkRenderPass render_pass = VK_NULL_HANDLE;
  std::vector<const scene::Binding*> colors;  // by location; gaps are null
  const scene::Binding* depth = nullptr;
  std::vector<VkShaderModule> modules;
  void Destroy(VkDevice device);
};

// Builds shaders, layouts, render pass and pipeline for `p`. With
// `reports`, fills one entry per stage (with executable statistics).
// `glsl_defines` ("NAME=VALUE") are defined for every GLSL shader.
Result<PipelineObjects> BuildPipeline(
    const Device& device, const scene::Scene& scene, const scene::Pipeline& p,
    const DrawShape& shape, runner::ShaderCache* cache,
    const std::vector<std::string>& glsl_defines,
    std::vector<DevicePipelineReport>* reports);

// The VkShaderStageFlagBits of a scene stage name ("vertex", ...).
VkShaderStageFlagBits StageBit(scene::ShaderStage stage);

}  // namespace warpsim::vkref

#endif  // WARPSIM_VULKAN_REF_PIPELINES_H_
