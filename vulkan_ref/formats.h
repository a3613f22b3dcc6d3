// Scene element formats as Vulkan formats.
//
// A FORMAT buffer's ElementFormat carries the Vulkan name it was written
// with; a DATA_TYPE buffer (vec4<float>, int8, ...) used as vertex data or
// an image gets the format whose components match it one to one:
// R32G32B32A32_SFLOAT for vec4<float>, R8_SINT for int8 (the padding of a
// std430 vec3 stays outside the format: it is in the stride).
#ifndef WARPSIM_VULKAN_REF_FORMATS_H_
#define WARPSIM_VULKAN_REF_FORMATS_H_

#include <vulkan/vulkan.h>

#include <optional>
#include <string>

#include "base/diagnostic.h"
#include "scene/format.h"

namespace warpsim::vkref {

// "R8G8B8A8_UNORM" -> VK_FORMAT_R8G8B8A8_UNORM (core non-compressed formats).
std::optional<VkFormat> VkFormatByName(const std::string& name);
// The inverse; "VK_FORMAT(n)" for formats outside the table.
std::string VkFormatName(VkFormat format);

// The Vulkan format of a scene element format; Unsupported naming the
// format when there is none (mixed component types, matrices, structs).
Result<VkFormat> VkFormatOf(const scene::ElementFormat& format);

// Depth and stencil aspects of a format (0 for colour formats).
VkImageAspectFlags DepthStencilAspects(VkFormat format);

// Bytes per texel of the depth aspect in a buffer<->image copy (2 for D16,
// 4 for the D24 and D32 variants); 0 for formats without depth.
uint32_t DepthCopyBytes(VkFormat format);

}  // namespace warpsim::vkref

#endif  // WARPSIM_VULKAN_REF_FORMATS_H_
