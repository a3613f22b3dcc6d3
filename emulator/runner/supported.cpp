#include "runner/supported.h"

namespace warpsim::runner {

// Device features warpsim's executor provides (Amber's DEVICE_FEATURE
// names). Anything else is reported as unsupported by name.
const std::set<std::string>& SupportedFeatures() {
  static const std::set<std::string> kFeatures = {
      "robustBufferAccess",
      "fillModeNonSolid",
      "depthClamp",
      "depthBiasClamp",
      "DepthClampZeroOneFeatures.depthClampZeroOne",
      "SubgroupSupportedOperations.basic",
      "SubgroupSupportedOperations.vote",
      "SubgroupSupportedOperations.arithmetic",
      "SubgroupSupportedOperations.ballot",
      "SubgroupSupportedOperations.shuffle",
      "SubgroupSupportedOperations.shuffleRelative",
      "SubgroupSupportedOperations.clustered",
      "SubgroupSupportedOperations.quad",
      "SubgroupSupportedStages.vertex",
      "SubgroupSupportedStages.fragment",
      "SubgroupSupportedStages.compute",
      "IndexTypeUint8Features.indexTypeUint8",
      "shaderStorageImageMultisample",
      "shaderImageInt64Atomics",
      "ShaderImageAtomicInt64Features.shaderImageInt64Atomics",
      "shaderFloat64",
      "shaderInt64",
      "shaderInt16",
      "fragmentStoresAndAtomics",
      "vertexPipelineStoresAndAtomics",
      "Float16Int8Features.shaderFloat16",
      "Float16Int8Features.shaderInt8",
      "Storage16BitFeatures.storageBuffer16BitAccess",
      "Storage16BitFeatures.uniformAndStorageBuffer16BitAccess",
      "Storage16BitFeatures.storagePushConstant16",
      "Storage8BitFeatures.storageBuffer8BitAccess",
      "Storage8BitFeatures.uniformAndStorageBuffer8BitAccess",
      "Storage8BitFeatures.storagePushConstant8",
      "VariablePointerFeatures.variablePointers",
      "VariablePointerFeatures.variablePointersStorageBuffer",
      "VulkanMemoryModelFeatures.vulkanMemoryModel",
      "VulkanMemoryModelFeatures.vulkanMemoryModelDeviceScope",
      "ZeroInitializeWorkgroupMemoryFeatures."
      "shaderZeroInitializeWorkgroupMemory",
      "SubgroupSizeControl.subgroupSizeControl",
      "SubgroupSizeControl.computeFullSubgroups",
      "ShaderTerminateInvocationFeatures.shaderTerminateInvocation",
      "ShaderDemoteToHelperInvocationFeatures.shaderDemoteToHelperInvocation",
      "WorkgroupMemoryExplicitLayoutFeatures.workgroupMemoryExplicitLayout",
      "WorkgroupMemoryExplicitLayoutFeatures."
      "workgroupMemoryExplicitLayoutScalarBlockLayout",
      "WorkgroupMemoryExplicitLayoutFeatures."
      "workgroupMemoryExplicitLayout8BitAccess",
      "WorkgroupMemoryExplicitLayoutFeatures."
      "workgroupMemoryExplicitLayout16BitAccess",
      "ShaderSubgroupExtendedTypesFeatures.shaderSubgroupExtendedTypes",
      "ShaderAtomicInt64Features.shaderBufferInt64Atomics",
      "ShaderAtomicInt64Features.shaderSharedInt64Atomics",
      "ScalarBlockLayoutFeatures.scalarBlockLayout",
      "UniformBufferStandardLayoutFeatures.uniformBufferStandardLayout",
  };
  return kFeatures;
}

const std::set<std::string>& SupportedExtensions() {
  static const std::set<std::string> kExtensions = {
      "VK_KHR_storage_buffer_storage_class",
      "VK_KHR_variable_pointers",
      "VK_KHR_16bit_storage",
      "VK_KHR_8bit_storage",
      "VK_KHR_shader_float16_int8",
      "VK_KHR_spirv_1_4",
      "VK_KHR_shader_float_controls",
      "VK_KHR_shader_terminate_invocation",
      "VK_EXT_shader_demote_to_helper_invocation",
      "VK_KHR_workgroup_memory_explicit_layout",
      "VK_KHR_vulkan_memory_model",
      "VK_KHR_zero_initialize_workgroup_memory",
      "VK_KHR_relaxed_block_layout",
      "VK_EXT_scalar_block_layout",
      "VK_KHR_uniform_buffer_standard_layout",
      "VK_KHR_shader_subgroup_extended_types",
      "VK_EXT_subgroup_size_control",
      "VK_KHR_shader_clock",
      "VK_KHR_shader_non_semantic_info",
      "VK_GOOGLE_hlsl_functionality1",
      "VK_GOOGLE_user_type",
      "VK_KHR_shader_atomic_int64",
      "VK_KHR_maintenance1",
      "VK_KHR_maintenance2",
      "VK_KHR_maintenance3",
      "VK_KHR_maintenance4",
      "VK_KHR_get_physical_device_properties2",
      "VK_KHR_shader_draw_parameters",
      "VK_EXT_descriptor_indexing",
      "VK_EXT_index_type_uint8",
      "VK_EXT_primitive_topology_list_restart",
      "VK_EXT_depth_range_unrestricted",
      "VK_EXT_depth_clamp_zero_one",
      // EarlyAndLateFragmentTestsAMD runs the tests late only: an early
      // test may only reject fragments the late test would reject too.
      "VK_AMD_shader_early_and_late_fragment_tests",
  };
  return kExtensions;
}

}  // namespace warpsim::runner
