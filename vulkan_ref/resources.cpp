#include "vulkan_ref/resources.h"

#include <algorithm>
#include <cstring>

#include "runner/image_binding.h"
#include "vulkan_ref/formats.h"

namespace warpsim::vkref {
namespace {

// Bits of component `c` of a host texel (little-endian, as stored).
uint64_t ComponentBits(const uint8_t* texel, uint32_t texel_bytes,
                       const scene::Component& c) {
  uint64_t word = 0;
  const uint32_t n = std::min<uint32_t>(8, texel_bytes - c.byte_offset);
  std::memcpy(&word, texel + c.byte_offset, n);
  word >>= c.bit_offset;
  return c.bits >= 64 ? word : word & ((uint64_t{1} << c.bits) - 1);
}

const scene::Component* FindChannel(const scene::ElementFormat& f,
                                    scene::Channel ch) {
  for (const auto& c : f.components) {
    if (c.channel == ch) return &c;
  }
  return nullptr;
}

uint64_t LevelTexels(const DeviceImage& img, uint32_t level) {
  const uint64_t w = std::max(1u, img.width >> level);
  const uint64_t h = std::max(1u, img.height >> level);
  const uint64_t d = std::max(1u, img.depth >> level);
  return w * h * d * img.layers;
}

}  // namespace

void ImageExtent(const scene::Buffer& b, uint32_t* width, uint32_t* height,
                 uint32_t* depth, uint32_t* layers, VkImageType* type) {
  *height = *depth = *layers = 1;
  if (b.width == 0) {
    *width = static_cast<uint32_t>(std::max<uint64_t>(
        1, b.element_count ? b.element_count
                           : b.bytes.size() / std::max(b.format.stride, 1u)));
    *type = VK_IMAGE_TYPE_1D;
    return;
  }
  *width = b.width;
  switch (b.dim) {
    case scene::ImageDim::k1D:
      *type = VK_IMAGE_TYPE_1D;
      *layers = std::max(b.height, 1u);
      break;
    case scene::ImageDim::k3D:
      *type = VK_IMAGE_TYPE_3D;
      *height = std::max(b.height, 1u);
      *depth = std::max(b.depth, 1u);
      break;
    default:
      *type = VK_IMAGE_TYPE_2D;
      *height = std::max(b.height, 1u);
      *layers = std::max(b.depth, 1u);
      break;
  }
}

Resources::~Resources() {
  ReleaseTransient();
  VkDevice dev = device_->device();
  for (auto& [name, b] : buffers_) Free(&b);
  for (auto& [name, img] : images_) {
    vkDestroyImage(dev, img.image, nullptr);
    vkFreeMemory(dev, img.memory, nullptr);
  }
}

void Resources::Free(DeviceBuffer* b) {
  VkDevice dev = device_->device();
  if (b->buffer != VK_NULL_HANDLE) vkDestroyBuffer(dev, b->buffer, nullptr);
  if (b->memory != VK_NULL_HANDLE) vkFreeMemory(dev, b->memory, nullptr);
  *b = DeviceBuffer{};
}

Result<DeviceBuffer> Resources::NewBuffer(VkDeviceSize size,
                                          VkBufferUsageFlags usage,
                                          bool prefer_device_local,
                                          bool prefer_host_cached) {
  VkDevice dev = device_->device();
  DeviceBuffer b;
  b.size = std::max<VkDeviceSize>(size, 16);
  VkBufferCreateInfo ci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  ci.size = b.size;
  ci.usage = usage;
  ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (VkResult r = vkCreateBuffer(dev, &ci, nullptr, &b.buffer);
      r != VK_SUCCESS)
    return VkError(r, "vkCreateBuffer of " + std::to_string(size) + " bytes");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev, b.buffer, &req);
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  VkResult allocated = VK_ERROR_OUT_OF_DEVICE_MEMORY;
  if (prefer_device_local) {
    // Host-visible device-local memory may be a small window (a 256 MB BAR
    // without resizable BAR): host memory when it is full.
    auto local = device_->MemoryType(
        req.memoryTypeBits, host | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (local.ok()) {
      ai.memoryTypeIndex = *local;
      allocated = vkAllocateMemory(dev, &ai, nullptr, &b.memory);
    }
  }
  if (prefer_host_cached) {
    const VkMemoryPropertyFlags cached =
        host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    for (uint32_t i = 0; i < VK_MAX_MEMORY_TYPES; ++i) {
      if ((req.memoryTypeBits & (1u << i)) == 0) continue;
      const VkMemoryPropertyFlags f = device_->MemoryFlags(i);
      if ((f & cached) != cached ||
          (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0) {
        continue;
      }
      ai.memoryTypeIndex = i;
      allocated = vkAllocateMemory(dev, &ai, nullptr, &b.memory);
      if (allocated == VK_SUCCESS) break;
      b.memory = VK_NULL_HANDLE;
    }
  }
  if (allocated != VK_SUCCESS) {
    auto type = device_->MemoryType(req.memoryTypeBits, host);
    if (!type.ok()) {
      Free(&b);
      return type.error();
    }
    ai.memoryTypeIndex = *type;
    b.memory = VK_NULL_HANDLE;
    if (VkResult r = vkAllocateMemory(dev, &ai, nullptr, &b.memory);
        r != VK_SUCCESS) {
      Free(&b);
      return VkError(
          r, "vkAllocateMemory of " + std::to_string(req.size) + " bytes");
    }
  }
  b.device_local = (device_->MemoryFlags(ai.memoryTypeIndex) &
                    VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
  vkBindBufferMemory(dev, b.buffer, b.memory, 0);
  if (VkResult r = vkMapMemory(dev, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped);
      r != VK_SUCCESS) {
    Free(&b);
    return VkError(r, "vkMapMemory");
  }
  std::memset(b.mapped, 0, b.size);
  return b;
}

Result<DeviceBuffer*> Resources::Buffer(const std::string& name,
                                        VkDeviceSize size) {
  auto it = buffers_.find(name);
  if (it != buffers_.end() && it->second.size >= size) return &it->second;
  if (it != buffers_.end()) {
    // The old buffer may still be referenced by a finished command only.
    vkDeviceWaitIdle(device_->device());
    Free(&it->second);
  }
  // Every use a scene buffer can have: descriptors of each kind, vertex and
  // index data, copies.
  auto b = NewBuffer(
      size,
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
          VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT |
          VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
          VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT |
          VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      /*prefer_device_local=*/true);
  if (!b.ok()) return b.error();
  buffers_[name] = *b;
  return &buffers_[name];
}

uint32_t Resources::device_local_buffers() const {
  return static_cast<uint32_t>(
      std::count_if(buffers_.begin(), buffers_.end(),
                    [](const auto& b) { return b.second.device_local; }));
}

uint32_t Resources::host_buffers() const {
  return static_cast<uint32_t>(buffers_.size()) - device_local_buffers();
}

Result<DeviceBuffer*> Resources::Transient(VkDeviceSize size,
                                           bool prefer_device_local) {
  auto b = NewBuffer(size,
                     VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                         VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                         VK_BUFFER_USAGE_VERTEX_BUFFER_BIT |
                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                         VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                     prefer_device_local);
  if (!b.ok()) return b.error();
  transient_.push_back(std::make_unique<DeviceBuffer>(*b));
  return transient_.back().get();
}

Result<DeviceBuffer*> Resources::ReadBackStaging(VkDeviceSize size) {
  auto b = NewBuffer(size, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                     /*prefer_device_local=*/false,
                     /*prefer_host_cached=*/true);
  if (!b.ok()) return b.error();
  transient_.push_back(std::make_unique<DeviceBuffer>(*b));
  return transient_.back().get();
}

Result<DeviceImage*> Resources::Image(const scene::Buffer& shape) {
  auto format = VkFormatOf(shape.format);
  if (!format.ok()) return format.error();
  DeviceImage want;
  want.format = *format;
  ImageExtent(shape, &want.width, &want.height, &want.depth, &want.layers,
              &want.type);
  want.levels = std::max(shape.mip_levels, 1u);
  if (shape.samples > 1) {
    return Unsupported("multisampled images (" + shape.name + ")");
  }
  auto it = images_.find(shape.name);
  if (it != images_.end()) {
    const DeviceImage& h = it->second;
    if (h.format == want.format && h.width == want.width &&
        h.height == want.height && h.depth == want.depth &&
        h.layers == want.layers && h.levels == want.levels &&
        h.type == want.type) {
      return &it->second;
    }
    vkDeviceWaitIdle(device_->device());
    vkDestroyImage(device_->device(), h.image, nullptr);
    vkFreeMemory(device_->device(), h.memory, nullptr);
    images_.erase(it);
  }
  VkFormatProperties fp;
  vkGetPhysicalDeviceFormatProperties(device_->physical(), want.format, &fp);
  want.features = fp.optimalTilingFeatures;
  const VkImageAspectFlags ds = DepthStencilAspects(want.format);
  want.aspects = ds != 0 ? ds : VkImageAspectFlags{VK_IMAGE_ASPECT_COLOR_BIT};
  // Every usage the format allows, so one image serves all bindings.
  VkImageUsageFlags usage = 0;
  if (want.features & VK_FORMAT_FEATURE_TRANSFER_SRC_BIT)
    usage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  if (want.features & VK_FORMAT_FEATURE_TRANSFER_DST_BIT)
    usage |= VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  if (want.features & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)
    usage |= VK_IMAGE_USAGE_SAMPLED_BIT;
  if (want.features & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)
    usage |= VK_IMAGE_USAGE_STORAGE_BIT;
  if (want.type == VK_IMAGE_TYPE_2D &&
      (want.features & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT))
    usage |= VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  if (want.type == VK_IMAGE_TYPE_2D &&
      (want.features & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT))
    usage |= VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
  const VkImageUsageFlags copy =
      VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  if ((usage & copy) != copy) {
    return Unsupported("format " + shape.format.name + " as an image on " +
                       device_->info().name + " (no transfer support)");
  }
  VkImageCreateInfo ci{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  want.cube_compatible = want.type == VK_IMAGE_TYPE_2D && want.layers >= 6 &&
                         want.width == want.height;
  if (want.cube_compatible) ci.flags |= VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT;
  if (want.type == VK_IMAGE_TYPE_3D)
    ci.flags |= VK_IMAGE_CREATE_2D_ARRAY_COMPATIBLE_BIT;
  ci.imageType = want.type;
  ci.format = want.format;
  ci.extent = {want.width, want.height, want.depth};
  ci.mipLevels = want.levels;
  ci.arrayLayers = want.layers;
  ci.samples = VK_SAMPLE_COUNT_1_BIT;
  ci.tiling = VK_IMAGE_TILING_OPTIMAL;
  ci.usage = usage;
  ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VkDevice dev = device_->device();
  if (VkResult r = vkCreateImage(dev, &ci, nullptr, &want.image);
      r != VK_SUCCESS) {
    return VkError(
        r, "vkCreateImage " + shape.name + " (" + shape.format.name + ")");
  }
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(dev, want.image, &req);
  auto type = device_->MemoryType(req.memoryTypeBits,
                                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (!type.ok()) type = device_->MemoryType(req.memoryTypeBits, 0);
  if (!type.ok()) {
    vkDestroyImage(dev, want.image, nullptr);
    return type.error();
  }
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = *type;
  if (VkResult r = vkAllocateMemory(dev, &ai, nullptr, &want.memory);
      r != VK_SUCCESS) {
    vkDestroyImage(dev, want.image, nullptr);
    return VkError(r, "vkAllocateMemory for image " + shape.name);
  }
  vkBindImageMemory(dev, want.image, want.memory, 0);
  images_[shape.name] = want;
  return &images_[shape.name];
}

Result<VkImageView> Resources::View(const DeviceImage& image,
                                    VkImageViewType type, uint32_t base_level,
                                    uint32_t level_count,
                                    VkImageAspectFlags aspects) {
  VkImageViewCreateInfo ci{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  ci.image = image.image;
  ci.viewType = type;
  ci.format = image.format;
  ci.subresourceRange.aspectMask = aspects;
  ci.subresourceRange.baseMipLevel = base_level;
  ci.subresourceRange.levelCount = level_count;
  ci.subresourceRange.baseArrayLayer = 0;
  const bool arrayed = type == VK_IMAGE_VIEW_TYPE_1D_ARRAY ||
                       type == VK_IMAGE_VIEW_TYPE_2D_ARRAY ||
                       type == VK_IMAGE_VIEW_TYPE_CUBE_ARRAY;
  ci.subresourceRange.layerCount = type == VK_IMAGE_VIEW_TYPE_CUBE ? 6
                                   : arrayed ? image.layers
                                             : 1;
  if ((type == VK_IMAGE_VIEW_TYPE_CUBE ||
       type == VK_IMAGE_VIEW_TYPE_CUBE_ARRAY) &&
      !image.cube_compatible) {
    return Unsupported("a cube view of an image that is not 6 square layers");
  }
  VkImageView view = VK_NULL_HANDLE;
  if (VkResult r = vkCreateImageView(device_->device(), &ci, nullptr, &view);
      r != VK_SUCCESS) {
    return VkError(r, "vkCreateImageView");
  }
  views_.push_back(view);
  return view;
}

Status Resources::CopyRegions(const DeviceImage& image,
                              const scene::Buffer& shape,
                              VkImageAspectFlags aspect, int level,
                              std::vector<VkBufferImageCopy>* regions,
                              std::vector<Pending>* parts,
                              VkDeviceSize* total) {
  const uint32_t texel_bytes = shape.format.stride;
  const scene::Component* comp = nullptr;
  uint32_t copy_bytes = texel_bytes;
  if (aspect == VK_IMAGE_ASPECT_DEPTH_BIT) {
    comp = FindChannel(shape.format, scene::Channel::kD);
    copy_bytes = DepthCopyBytes(image.format);
  } else if (aspect == VK_IMAGE_ASPECT_STENCIL_BIT) {
    comp = FindChannel(shape.format, scene::Channel::kS);
    copy_bytes = 1;
  }
  if (aspect != VK_IMAGE_ASPECT_COLOR_BIT && comp == nullptr) {
    return InternalError("depth/stencil format " + shape.format.name +
                         " without its channel");
  }
  for (uint32_t l = 0; l < image.levels; ++l) {
    if (level >= 0 && l != static_cast<uint32_t>(level)) continue;
    const uint64_t texels = LevelTexels(image, l);
    VkBufferImageCopy r{};
    r.bufferOffset = *total;
    r.imageSubresource = {aspect, l, 0, image.layers};
    r.imageExtent = {std::max(1u, image.width >> l),
                     std::max(1u, image.height >> l),
                     std::max(1u, image.depth >> l)};
    regions->push_back(r);
    Pending p{};
    p.offset = *total;
    p.host_offset = runner::ImageLevelOffset(shape, l);
    p.texels = static_cast<uint32_t>(texels);
    p.texel_bytes = texel_bytes;
    p.copy_bytes = copy_bytes;
    p.merge = comp != nullptr;
    if (comp) p.component = *comp;
    parts->push_back(p);
    // Offsets of depth/stencil copies must be multiples of 4.
    *total += (texels * copy_bytes + 15) & ~VkDeviceSize{15};
  }
  return {};
}

Status Resources::RecordUpload(VkCommandBuffer cmd, const DeviceImage& image,
                               const scene::Buffer& shape,
                               const std::vector<uint8_t>& bytes) {
  // UNDEFINED -> GENERAL (contents are replaced anyway).
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  b.newLayout = VK_IMAGE_LAYOUT_GENERAL;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image.image;
  b.subresourceRange = {image.aspects, 0, image.levels, 0, image.layers};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                       VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr, 0,
                       nullptr, 1, &b);
  for (VkImageAspectFlags aspect :
       {VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_ASPECT_DEPTH_BIT,
        VK_IMAGE_ASPECT_STENCIL_BIT}) {
    if (!(image.aspects & aspect)) continue;
    std::vector<VkBufferImageCopy> regions;
    std::vector<Pending> parts;
    VkDeviceSize total = 0;
    if (Status s =
            CopyRegions(image, shape, aspect, -1, &regions, &parts, &total);
        !s.ok()) {
      return s;
    }
    auto staging = Transient(total);
    if (!staging.ok()) return staging.error();
    auto* dst = static_cast<uint8_t*>((*staging)->mapped);
    for (const Pending& p : parts) {
      for (uint32_t t = 0; t < p.texels; ++t) {
        const uint64_t at = p.host_offset + uint64_t{t} * p.texel_bytes;
        if (at + p.texel_bytes > bytes.size()) break;  // short buffer: zeros
        uint8_t* out = dst + p.offset + uint64_t{t} * p.copy_bytes;
        if (!p.merge) {
          std::memcpy(out, bytes.data() + at, p.texel_bytes);
        } else {
          const uint64_t v =
              ComponentBits(bytes.data() + at, p.texel_bytes, p.component);
          std::memcpy(out, &v, p.copy_bytes);
        }
      }
    }
    vkCmdCopyBufferToImage(
        cmd, (*staging)->buffer, image.image, VK_IMAGE_LAYOUT_GENERAL,
        static_cast<uint32_t>(regions.size()), regions.data());
  }
  FullBarrier(cmd);
  return {};
}

Status Resources::RecordDownload(VkCommandBuffer cmd, const DeviceImage& image,
                                 const scene::Buffer& shape,
                                 std::vector<uint8_t>* target, int level) {
  FullBarrier(cmd);
  for (VkImageAspectFlags aspect :
       {VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_ASPECT_DEPTH_BIT,
        VK_IMAGE_ASPECT_STENCIL_BIT}) {
    if (!(image.aspects & aspect)) continue;
    std::vector<VkBufferImageCopy> regions;
    std::vector<Pending> parts;
    VkDeviceSize total = 0;
    if (Status s =
            CopyRegions(image, shape, aspect, level, &regions, &parts, &total);
        !s.ok()) {
      return s;
    }
    auto staging = Transient(total);
    if (!staging.ok()) return staging.error();
    vkCmdCopyImageToBuffer(
        cmd, image.image, VK_IMAGE_LAYOUT_GENERAL, (*staging)->buffer,
        static_cast<uint32_t>(regions.size()), regions.data());
    for (Pending& p : parts) {
      p.staging = *staging;
      p.target = target;
      pending_.push_back(p);
    }
  }
  return {};
}

void Resources::FinishDownloads() {
  for (const Pending& p : pending_) {
    const auto* src = static_cast<const uint8_t*>(p.staging->mapped);
    std::vector<uint8_t>& bytes = *p.target;
    for (uint32_t t = 0; t < p.texels; ++t) {
      const uint64_t at = p.host_offset + uint64_t{t} * p.texel_bytes;
      if (at + p.texel_bytes > bytes.size()) break;
      const uint8_t* in = src + p.offset + uint64_t{t} * p.copy_bytes;
      if (!p.merge) {
        std::memcpy(bytes.data() + at, in, p.texel_bytes);
      } else {
        uint64_t v = 0;
        std::memcpy(&v, in, p.copy_bytes);
        if (p.component.bits < 64) v &= (uint64_t{1} << p.component.bits) - 1;
        scene::WriteComponentBits(
            std::span<uint8_t>(bytes.data() + at, p.texel_bytes), p.component,
            v);
      }
    }
  }
  pending_.clear();
}

void Resources::ReleaseTransient() {
  VkDevice dev = device_->device();
  for (VkImageView v : views_) vkDestroyImageView(dev, v, nullptr);
  views_.clear();
  for (auto& b : transient_) Free(b.get());
  transient_.clear();
  pending_.clear();
}

void Resources::FullBarrier(VkCommandBuffer cmd) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                       VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &b, 0, nullptr,
                       0, nullptr);
}

}  // namespace warpsim::vkref
