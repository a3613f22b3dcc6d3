#include "vulkan_ref/formats.h"

#include <map>

namespace warpsim::vkref {
namespace {

const std::map<std::string, VkFormat>& Table() {
  static const std::map<std::string, VkFormat> kTable = {
#define X(name) {#name, VK_FORMAT_##name},
#include "vulkan_ref/vk_formats.inc"
#undef X
  };
  return kTable;
}

}  // namespace

std::optional<VkFormat> VkFormatByName(const std::string& name) {
  auto it = Table().find(name);
  if (it == Table().end()) return std::nullopt;
  return it->second;
}

std::string VkFormatName(VkFormat format) {
  for (const auto& [name, f] : Table()) {
    if (f == format) return name;
  }
  return "VK_FORMAT(" + std::to_string(static_cast<int>(format)) + ")";
}

Result<VkFormat> VkFormatOf(const scene::ElementFormat& format) {
  if (format.is_vulkan_format) {
    if (auto f = VkFormatByName(format.name)) return *f;
    return Unsupported("format " + format.name + " in warpsim-vkref");
  }
  // A data type: all components of one kind and width, at most four,
  // packed one after the other.
  const auto& c = format.components;
  if (c.empty() || c.size() > 4 || format.columns != 1) {
    return Unsupported("data type " + format.name + " as a Vulkan format");
  }
  std::string name;
  const char* channels = "RGBA";
  for (size_t i = 0; i < c.size(); ++i) {
    if (c[i].kind != c[0].kind || c[i].bits != c[0].bits ||
        c[i].byte_offset != i * (c[0].bits / 8)) {
      return Unsupported("data type " + format.name + " as a Vulkan format");
    }
    name += channels[i] + std::to_string(c[i].bits);
  }
  switch (c[0].kind) {
    case scene::NumericKind::kSFloat:
      name += "_SFLOAT";
      break;
    case scene::NumericKind::kSInt:
      name += "_SINT";
      break;
    case scene::NumericKind::kUInt:
      name += "_UINT";
      break;
    default:
      return Unsupported("data type " + format.name + " as a Vulkan format");
  }
  if (auto f = VkFormatByName(name)) return *f;
  return Unsupported("data type " + format.name + " as a Vulkan format");
}

VkImageAspectFlags DepthStencilAspects(VkFormat format) {
  switch (format) {
    case VK_FORMAT_D16_UNORM:
    case VK_FORMAT_X8_D24_UNORM_PACK32:
    case VK_FORMAT_D32_SFLOAT:
      return VK_IMAGE_ASPECT_DEPTH_BIT;
    case VK_FORMAT_S8_UINT:
      return VK_IMAGE_ASPECT_STENCIL_BIT;
    case VK_FORMAT_D16_UNORM_S8_UINT:
    case VK_FORMAT_D24_UNORM_S8_UINT:
    case VK_FORMAT_D32_SFLOAT_S8_UINT:
      return VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
    default:
      return 0;
  }
}

uint32_t DepthCopyBytes(VkFormat format) {
  switch (format) {
    case VK_FORMAT_D16_UNORM:
    case VK_FORMAT_D16_UNORM_S8_UINT:
      return 2;
    case VK_FORMAT_X8_D24_UNORM_PACK32:
    case VK_FORMAT_D24_UNORM_S8_UINT:
    case VK_FORMAT_D32_SFLOAT:
    case VK_FORMAT_D32_SFLOAT_S8_UINT:
      return 4;
    default:
      return 0;
  }
}

}  // namespace warpsim::vkref
