// features.cpp: Amber's feature and property names on Vulkan structures.
#include "vulkan_ref/features.h"

#include <catch2/catch.hpp>

namespace warpsim::vkref {
namespace {

TEST_CASE("FindFeature: core, promoted and extension features", "[vkref]") {
  FeatureChain c;
  CHECK(FindFeature(&c, "shaderInt64").flag == &c.core.features.shaderInt64);
  FeatureRef f16 = FindFeature(&c, "Float16Int8Features.shaderFloat16");
  CHECK(f16.flag == &c.v12.shaderFloat16);
  CHECK(f16.min_api == VK_API_VERSION_1_2);
  CHECK(FindFeature(&c, "VariablePointerFeatures.variablePointers").flag ==
        &c.v11.variablePointers);
  CHECK(FindFeature(&c, "SubgroupSizeControl.computeFullSubgroups").flag ==
        &c.v13.computeFullSubgroups);
  FeatureRef u8 = FindFeature(&c, "IndexTypeUint8Features.indexTypeUint8");
  CHECK(u8.flag == &c.index_uint8.indexTypeUint8);
  CHECK(u8.extension == "VK_EXT_index_type_uint8");
  CHECK(FindFeature(&c, "noSuchFeature").flag == nullptr);
  CHECK(FindFeature(&c, "Float16Int8Features.noSuchMember").flag == nullptr);
}

TEST_CASE("FeatureChain::Link chains only what the device can take",
          "[vkref]") {
  FeatureChain c;
  VkPhysicalDeviceFeatures2* head = c.Link(VK_API_VERSION_1_1, {});
  CHECK(head->pNext == nullptr);
  head = c.Link(VK_API_VERSION_1_3, {"VK_EXT_index_type_uint8"});
  CHECK(head->pNext == &c.v11);
  CHECK(c.v12.pNext == &c.v13);
  CHECK(c.v13.pNext == &c.index_uint8);
  CHECK(c.index_uint8.pNext == nullptr);
}

TEST_CASE("Subgroup requirements and float-control properties", "[vkref]") {
  VkPhysicalDeviceSubgroupProperties sg{};
  sg.supportedOperations = VK_SUBGROUP_FEATURE_BALLOT_BIT;
  sg.supportedStages = VK_SHADER_STAGE_COMPUTE_BIT;
  bool known = false;
  CHECK(
      SubgroupRequirementMet(sg, "SubgroupSupportedOperations.ballot", &known));
  CHECK(known);
  CHECK_FALSE(
      SubgroupRequirementMet(sg, "SubgroupSupportedStages.fragment", &known));
  CHECK(known);
  SubgroupRequirementMet(sg, "shaderInt64", &known);
  CHECK_FALSE(known);
  VkPhysicalDeviceVulkan12Properties p{};
  p.shaderSignedZeroInfNanPreserveFloat32 = VK_TRUE;
  CHECK(PropertyMet(
      p, "FloatControlsProperties.shaderSignedZeroInfNanPreserveFloat32",
      &known));
  CHECK(known);
  PropertyMet(p, "Other.thing", &known);
  CHECK_FALSE(known);
}

TEST_CASE("PromotedToCore", "[vkref]") {
  CHECK(PromotedToCore("VK_KHR_spirv_1_4") == VK_API_VERSION_1_2);
  CHECK(PromotedToCore("VK_KHR_shader_terminate_invocation") ==
        VK_API_VERSION_1_3);
  CHECK(PromotedToCore("VK_EXT_index_type_uint8") == 0);
}

}  // namespace
}  // namespace warpsim::vkref
