// Shaders for the device: the SPIR-V the emulator runs, and what its
// descriptors look like.
//
// Words come from runner/shader_build.h exactly as `warpsim run` builds
// them (glslang or the assembler, through the same compiled-shader cache,
// then validation, SHADER_OPTIMIZATION passes and the emulator's
// legalization), so the device and the emulator execute the same module.
// Only a module the legalization cannot handle (reported unsupported by the
// emulator, e.g. a call it cannot inline) goes to the device as written,
// and the report says so (spirv: "as_written").
#ifndef WARPSIM_VULKAN_REF_SHADERS_H_
#define WARPSIM_VULKAN_REF_SHADERS_H_

#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/diagnostic.h"
#include "runner/shader_build.h"
#include "scene/scene.h"

namespace warpsim::vkref {

// One descriptor a shader declares.
struct DescriptorSlot {
  VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  uint32_t count = 1;  // array length (1 for runtime arrays)
  VkImageViewType view_type = VK_IMAGE_VIEW_TYPE_2D;  // image descriptors
  bool is_image = false;
  // A storage buffer every stage declares NonWritable (GLSL `readonly`):
  // nothing to read back after a draw or dispatch.
  bool read_only = false;
};

struct ShaderBinary {
  std::vector<uint32_t> words;
  bool legalized = true;  // false: as written (see above)
  // (set, binding) -> descriptor, from the module's decorations.
  std::map<std::pair<uint32_t, uint32_t>, DescriptorSlot> descriptors;
  bool uses_push_constants = false;
};

// Builds the words of `att` (of pipeline `p`) and reflects its descriptors.
// `glsl_defines` ("NAME=VALUE") are defined for a GLSL shader.
Result<ShaderBinary> BuildShaderBinary(
    const scene::Scene& scene, const scene::ShaderAttachment& att,
    runner::ShaderCache* cache,
    const std::vector<std::string>& glsl_defines = {});

}  // namespace warpsim::vkref

#endif  // WARPSIM_VULKAN_REF_SHADERS_H_
