#include "vulkan_ref/features.h"

#include <cstring>
#include <map>

#include "vulkan_ref/vk_feature_members.inc"

namespace warpsim::vkref {
namespace {

// Which structure of a FeatureChain an Amber "Struct." prefix names.
enum class Which {
  kV11,
  kV12,
  kV13,
  kIndexUint8,
  kWorkgroup,
  kImageAtomic64,
  kDepthClampZeroOne
};

const std::map<std::string, Which>& Prefixes() {
  // Amber spells these after the Vulkan structure without
  // "VkPhysicalDevice"; several have older aliases.
  static const std::map<std::string, Which> kPrefixes = {
      {"VariablePointerFeatures", Which::kV11},
      {"VariablePointersFeatures", Which::kV11},
      {"Storage16BitFeatures", Which::kV11},
      {"16BitStorageFeatures", Which::kV11},
      {"ShaderDrawParametersFeatures", Which::kV11},
      {"MultiviewFeatures", Which::kV11},
      {"Vulkan11Features", Which::kV11},
      {"Float16Int8Features", Which::kV12},
      {"ShaderFloat16Int8Features", Which::kV12},
      {"Storage8BitFeatures", Which::kV12},
      {"8BitStorageFeatures", Which::kV12},
      {"VulkanMemoryModelFeatures", Which::kV12},
      {"ShaderSubgroupExtendedTypesFeatures", Which::kV12},
      {"ShaderAtomicInt64Features", Which::kV12},
      {"ScalarBlockLayoutFeatures", Which::kV12},
      {"UniformBufferStandardLayoutFeatures", Which::kV12},
      {"DescriptorIndexingFeatures", Which::kV12},
      {"BufferDeviceAddressFeatures", Which::kV12},
      {"HostQueryResetFeatures", Which::kV12},
      {"TimelineSemaphoreFeatures", Which::kV12},
      {"Vulkan12Features", Which::kV12},
      {"ZeroInitializeWorkgroupMemoryFeatures", Which::kV13},
      {"SubgroupSizeControl", Which::kV13},
      {"SubgroupSizeControlFeatures", Which::kV13},
      {"ShaderTerminateInvocationFeatures", Which::kV13},
      {"ShaderDemoteToHelperInvocationFeatures", Which::kV13},
      {"ShaderIntegerDotProductFeatures", Which::kV13},
      {"Synchronization2Features", Which::kV13},
      {"Maintenance4Features", Which::kV13},
      {"Vulkan13Features", Which::kV13},
      {"IndexTypeUint8Features", Which::kIndexUint8},
      {"WorkgroupMemoryExplicitLayoutFeatures", Which::kWorkgroup},
      {"ShaderImageAtomicInt64Features", Which::kImageAtomic64},
      {"DepthClampZeroOneFeatures", Which::kDepthClampZeroOne},
  };
  return kPrefixes;
}

#define WARPSIM_MEMBER(m) \
  if (member == #m) return &s->m;

VkBool32* CoreMember(VkPhysicalDeviceFeatures* s, const std::string& member) {
  WARPSIM_VK_CORE_FEATURES(WARPSIM_MEMBER)
  return nullptr;
}
VkBool32* V11Member(VkPhysicalDeviceVulkan11Features* s,
                    const std::string& member) {
  WARPSIM_VK_11_FEATURES(WARPSIM_MEMBER)
  return nullptr;
}
VkBool32* V12Member(VkPhysicalDeviceVulkan12Features* s,
                    const std::string& member) {
  WARPSIM_VK_12_FEATURES(WARPSIM_MEMBER)
  return nullptr;
}
VkBool32* V13Member(VkPhysicalDeviceVulkan13Features* s,
                    const std::string& member) {
  WARPSIM_VK_13_FEATURES(WARPSIM_MEMBER)
  return nullptr;
}
#undef WARPSIM_MEMBER

template <typename T>
void Append(void*** tail, T* s) {
  **tail = s;
  *tail = &s->pNext;
}

}  // namespace

VkPhysicalDeviceFeatures2* FeatureChain::Link(
    uint32_t api_version, const std::set<std::string>& extensions) {
  core.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
  index_uint8.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_INDEX_TYPE_UINT8_FEATURES_EXT;
  workgroup_layout.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_WORKGROUP_MEMORY_EXPLICIT_LAYOUT_FEATURES_KHR;
  image_atomic64.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_IMAGE_ATOMIC_INT64_FEATURES_EXT;
  depth_clamp_zero_one.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEPTH_CLAMP_ZERO_ONE_FEATURES_EXT;
  executable.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
  sm_builtins.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV;
  clock.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR;
  void** tail = &core.pNext;
  *tail = nullptr;
  if (api_version >= VK_API_VERSION_1_2) {
    Append(&tail, &v11);
    Append(&tail, &v12);
  }
  if (api_version >= VK_API_VERSION_1_3) Append(&tail, &v13);
  auto has = [&](const char* e) { return extensions.count(e) != 0; };
  if (has(VK_EXT_INDEX_TYPE_UINT8_EXTENSION_NAME)) Append(&tail, &index_uint8);
  if (has(VK_KHR_WORKGROUP_MEMORY_EXPLICIT_LAYOUT_EXTENSION_NAME))
    Append(&tail, &workgroup_layout);
  if (has(VK_EXT_SHADER_IMAGE_ATOMIC_INT64_EXTENSION_NAME))
    Append(&tail, &image_atomic64);
  if (has(VK_EXT_DEPTH_CLAMP_ZERO_ONE_EXTENSION_NAME))
    Append(&tail, &depth_clamp_zero_one);
  if (has(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME))
    Append(&tail, &executable);
  if (has(VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME)) Append(&tail, &sm_builtins);
  if (has(VK_KHR_SHADER_CLOCK_EXTENSION_NAME)) Append(&tail, &clock);
  *tail = nullptr;
  return &core;
}

FeatureRef FindFeature(FeatureChain* c, const std::string& name) {
  const size_t dot = name.find('.');
  if (dot == std::string::npos) {
    return {CoreMember(&c->core.features, name), "", VK_API_VERSION_1_0};
  }
  const std::string prefix = name.substr(0, dot);
  const std::string member = name.substr(dot + 1);
  auto it = Prefixes().find(prefix);
  if (it == Prefixes().end()) return {};
  switch (it->second) {
    case Which::kV11:
      return {V11Member(&c->v11, member), "", VK_API_VERSION_1_2};
    case Which::kV12:
      return {V12Member(&c->v12, member), "", VK_API_VERSION_1_2};
    case Which::kV13:
      return {V13Member(&c->v13, member), "", VK_API_VERSION_1_3};
    case Which::kIndexUint8:
      if (member != "indexTypeUint8") return {};
      return {&c->index_uint8.indexTypeUint8,
              VK_EXT_INDEX_TYPE_UINT8_EXTENSION_NAME};
    case Which::kWorkgroup: {
      auto& s = c->workgroup_layout;
      VkBool32* f = nullptr;
      if (member == "workgroupMemoryExplicitLayout")
        f = &s.workgroupMemoryExplicitLayout;
      if (member == "workgroupMemoryExplicitLayoutScalarBlockLayout")
        f = &s.workgroupMemoryExplicitLayoutScalarBlockLayout;
      if (member == "workgroupMemoryExplicitLayout8BitAccess")
        f = &s.workgroupMemoryExplicitLayout8BitAccess;
      if (member == "workgroupMemoryExplicitLayout16BitAccess")
        f = &s.workgroupMemoryExplicitLayout16BitAccess;
      return {f, VK_KHR_WORKGROUP_MEMORY_EXPLICIT_LAYOUT_EXTENSION_NAME};
    }
    case Which::kImageAtomic64:
      if (member != "shaderImageInt64Atomics") return {};
      return {&c->image_atomic64.shaderImageInt64Atomics,
              VK_EXT_SHADER_IMAGE_ATOMIC_INT64_EXTENSION_NAME};
    case Which::kDepthClampZeroOne:
      if (member != "depthClampZeroOne") return {};
      return {&c->depth_clamp_zero_one.depthClampZeroOne,
              VK_EXT_DEPTH_CLAMP_ZERO_ONE_EXTENSION_NAME};
  }
  return {};
}

bool SubgroupRequirementMet(const VkPhysicalDeviceSubgroupProperties& props,
                            const std::string& name, bool* known) {
  static const std::map<std::string, VkSubgroupFeatureFlagBits> kOps = {
      {"basic", VK_SUBGROUP_FEATURE_BASIC_BIT},
      {"vote", VK_SUBGROUP_FEATURE_VOTE_BIT},
      {"arithmetic", VK_SUBGROUP_FEATURE_ARITHMETIC_BIT},
      {"ballot", VK_SUBGROUP_FEATURE_BALLOT_BIT},
      {"shuffle", VK_SUBGROUP_FEATURE_SHUFFLE_BIT},
      {"shuffleRelative", VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT},
      {"clustered", VK_SUBGROUP_FEATURE_CLUSTERED_BIT},
      {"quad", VK_SUBGROUP_FEATURE_QUAD_BIT},
  };
  static const std::map<std::string, VkShaderStageFlagBits> kStages = {
      {"vertex", VK_SHADER_STAGE_VERTEX_BIT},
      {"tessellationControl", VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT},
      {"tessellationEvaluation", VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT},
      {"geometry", VK_SHADER_STAGE_GEOMETRY_BIT},
      {"fragment", VK_SHADER_STAGE_FRAGMENT_BIT},
      {"compute", VK_SHADER_STAGE_COMPUTE_BIT},
  };
  *known = false;
  const size_t dot = name.find('.');
  if (dot == std::string::npos) return false;
  const std::string prefix = name.substr(0, dot);
  const std::string member = name.substr(dot + 1);
  if (prefix == "SubgroupSupportedOperations") {
    auto it = kOps.find(member);
    if (it == kOps.end()) return false;
    *known = true;
    return (props.supportedOperations & it->second) != 0;
  }
  if (prefix == "SubgroupSupportedStages") {
    auto it = kStages.find(member);
    if (it == kStages.end()) return false;
    *known = true;
    return (props.supportedStages & it->second) != 0;
  }
  return false;
}

bool PropertyMet(const VkPhysicalDeviceVulkan12Properties& props,
                 const std::string& name, bool* known) {
  *known = false;
  const std::string prefix = "FloatControlsProperties.";
  if (name.rfind(prefix, 0) != 0) return false;
  const std::string member = name.substr(prefix.size());
  const auto* s = &props;
#define WARPSIM_PROPERTY(m) \
  if (member == #m) {       \
    *known = true;          \
    return s->m == VK_TRUE; \
  }
  WARPSIM_VK_FLOAT_CONTROLS_PROPERTIES(WARPSIM_PROPERTY)
#undef WARPSIM_PROPERTY
  return false;
}

uint32_t PromotedToCore(const std::string& name) {
  static const std::map<std::string, uint32_t> kPromoted = {
      {"VK_KHR_storage_buffer_storage_class", VK_API_VERSION_1_1},
      {"VK_KHR_variable_pointers", VK_API_VERSION_1_1},
      {"VK_KHR_16bit_storage", VK_API_VERSION_1_1},
      {"VK_KHR_relaxed_block_layout", VK_API_VERSION_1_1},
      {"VK_KHR_maintenance1", VK_API_VERSION_1_1},
      {"VK_KHR_maintenance2", VK_API_VERSION_1_1},
      {"VK_KHR_maintenance3", VK_API_VERSION_1_1},
      {"VK_KHR_shader_draw_parameters", VK_API_VERSION_1_1},
      {"VK_KHR_get_physical_device_properties2", VK_API_VERSION_1_1},
      {"VK_KHR_8bit_storage", VK_API_VERSION_1_2},
      {"VK_KHR_shader_float16_int8", VK_API_VERSION_1_2},
      {"VK_KHR_spirv_1_4", VK_API_VERSION_1_2},
      {"VK_KHR_shader_float_controls", VK_API_VERSION_1_2},
      {"VK_KHR_vulkan_memory_model", VK_API_VERSION_1_2},
      {"VK_EXT_scalar_block_layout", VK_API_VERSION_1_2},
      {"VK_KHR_uniform_buffer_standard_layout", VK_API_VERSION_1_2},
      {"VK_KHR_shader_subgroup_extended_types", VK_API_VERSION_1_2},
      {"VK_KHR_shader_atomic_int64", VK_API_VERSION_1_2},
      {"VK_EXT_descriptor_indexing", VK_API_VERSION_1_2},
      {"VK_KHR_shader_terminate_invocation", VK_API_VERSION_1_3},
      {"VK_EXT_shader_demote_to_helper_invocation", VK_API_VERSION_1_3},
      {"VK_KHR_zero_initialize_workgroup_memory", VK_API_VERSION_1_3},
      {"VK_EXT_subgroup_size_control", VK_API_VERSION_1_3},
      {"VK_KHR_maintenance4", VK_API_VERSION_1_3},
      {"VK_KHR_shader_non_semantic_info", VK_API_VERSION_1_3},
      {"VK_KHR_shader_integer_dot_product", VK_API_VERSION_1_3},
  };
  auto it = kPromoted.find(name);
  return it == kPromoted.end() ? 0 : it->second;
}

}  // namespace warpsim::vkref
