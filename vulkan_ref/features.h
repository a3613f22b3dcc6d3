// AmberScript's device requirement names mapped onto Vulkan structures.
//
// DEVICE_FEATURE takes a VkPhysicalDeviceFeatures member ("shaderInt64") or
// "Struct.member" in Amber's spelling ("Float16Int8Features.shaderFloat16",
// "SubgroupSupportedOperations.ballot"). Features promoted to core are
// looked up in the Vulkan 1.1/1.2/1.3 feature structures; the others in
// their extension's structure, which is chained only when the device
// offers the extension. DEVICE_PROPERTY names (float controls) are checked
// against VkPhysicalDeviceVulkan12Properties.
#ifndef WARPSIM_VULKAN_REF_FEATURES_H_
#define WARPSIM_VULKAN_REF_FEATURES_H_

#include <vulkan/vulkan.h>

#include <set>
#include <string>

namespace warpsim::vkref {

// Every feature structure warpsim-vkref knows, chained for
// vkGetPhysicalDeviceFeatures2 / VkDeviceCreateInfo.
struct FeatureChain {
  VkPhysicalDeviceFeatures2 core{};
  VkPhysicalDeviceVulkan11Features v11{};
  VkPhysicalDeviceVulkan12Features v12{};
  VkPhysicalDeviceVulkan13Features v13{};
  VkPhysicalDeviceIndexTypeUint8FeaturesEXT index_uint8{};
  VkPhysicalDeviceWorkgroupMemoryExplicitLayoutFeaturesKHR workgroup_layout{};
  VkPhysicalDeviceShaderImageAtomicInt64FeaturesEXT image_atomic64{};
  VkPhysicalDeviceDepthClampZeroOneFeaturesEXT depth_clamp_zero_one{};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable{};
  // For --observe (observe_pass.h).
  VkPhysicalDeviceShaderSMBuiltinsFeaturesNV sm_builtins{};
  VkPhysicalDeviceShaderClockFeaturesKHR clock{};

  // Sets sTypes and links the structures the device can take: the
  // VulkanNN structures up to `api_version`, extension structures whose
  // extension is in `extensions`. Returns &core. Not copyable afterwards
  // (pNext points into this object).
  VkPhysicalDeviceFeatures2* Link(uint32_t api_version,
                                  const std::set<std::string>& extensions);
};

// Where a feature name lives.
struct FeatureRef {
  VkBool32* flag = nullptr;  // into a FeatureChain
  std::string extension;     // the extension it needs; empty for core
  uint32_t min_api = VK_API_VERSION_1_0;  // Vulkan version of its structure
};

// The flag a DEVICE_FEATURE name refers to in `chain`; flag == nullptr for
// names warpsim-vkref does not know. Subgroup* names are properties, not
// features: see SubgroupRequirementMet.
FeatureRef FindFeature(FeatureChain* chain, const std::string& name);

// "SubgroupSupportedOperations.X" / "SubgroupSupportedStages.X": whether the
// device's subgroup properties have it. False with *known = false for other
// names.
bool SubgroupRequirementMet(const VkPhysicalDeviceSubgroupProperties& props,
                            const std::string& name, bool* known);

// "FloatControlsProperties.X": whether the property is true. *known = false
// for names warpsim-vkref cannot check.
bool PropertyMet(const VkPhysicalDeviceVulkan12Properties& props,
                 const std::string& name, bool* known);

// The Vulkan version that made extension `name` core (0 if never), so that
// a device of that version meets DEVICE_EXTENSION without listing it.
uint32_t PromotedToCore(const std::string& name);

}  // namespace warpsim::vkref

#endif  // WARPSIM_VULKAN_REF_FEATURES_H_
