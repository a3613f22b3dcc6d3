// Device copies of scene buffers and images.
//
// The host keeps every scene buffer's bytes (in the emulator's layout, see
// simt/image.h: levels after each other, tightly packed texels), and those
// bytes are the truth between commands: before a command the resources it
// uses are uploaded, after it the ones it may write are read back. That
// costs copies, but makes COPY, EXPECT, buffer writes and --repeat (every
// repeat starts from the same inputs) exactly what the emulator does, and
// the timed region holds only the draw or dispatch.
//
// Buffers live in host-visible coherent memory (written and read with
// memcpy). Images are optimal-tiling, device-local when possible, always in
// VK_IMAGE_LAYOUT_GENERAL (valid for every use here), filled and read
// through staging buffers. Depth/stencil images copy each aspect on its own
// and merge it into the host texel's bit fields.
#ifndef WARPSIM_VULKAN_REF_RESOURCES_H_
#define WARPSIM_VULKAN_REF_RESOURCES_H_

#include <vulkan/vulkan.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "scene/scene.h"
#include "vulkan_ref/device.h"

namespace warpsim::vkref {

struct DeviceBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  VkDeviceSize size = 0;
  bool device_local = false;  // in the device's own memory, not the host's
};

struct DeviceImage {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkImageType type = VK_IMAGE_TYPE_2D;
  uint32_t width = 1, height = 1, depth = 1, layers = 1, levels = 1;
  VkImageAspectFlags aspects = VK_IMAGE_ASPECT_COLOR_BIT;
  VkFormatFeatureFlags features = 0;  // optimal tiling features
  bool cube_compatible = false;
};

class Resources {
 public:
  explicit Resources(const Device* device) : device_(device) {}
  ~Resources();
  Resources(const Resources&) = delete;
  Resources& operator=(const Resources&) = delete;

  // A buffer holding at least `size` bytes for scene buffer `name`
  // (recreated when it must grow; callers rewrite descriptors per command).
  // Host-visible, and in device-local memory where the device has such a
  // type with room, as an application's buffers would be: a shader's loads
  // from host memory cross the bus, which a timing measurement must not
  // mix with the GPU's own memory system.
  Result<DeviceBuffer*> Buffer(const std::string& name, VkDeviceSize size);
  // How many of the scene's buffers are in device-local and in host memory.
  uint32_t device_local_buffers() const;
  uint32_t host_buffers() const;
  // A temporary host-visible buffer, freed by ReleaseTransient(); in
  // device-local memory when asked and the device has host-visible
  // device-local memory (shader atomics then stay on the device).
  Result<DeviceBuffer*> Transient(VkDeviceSize size,
                                  bool prefer_device_local = false);
  // A temporary buffer to copy a device-local buffer into for reading it
  // back, freed by ReleaseTransient(): in host memory the CPU caches where
  // the device has such a type (reading device-local memory through its
  // mapping crosses the bus uncached, tens of MB/s: a long idle gap
  // between a measurement's repeats, in which the GPU lowers its clock).
  Result<DeviceBuffer*> ReadBackStaging(VkDeviceSize size);

  // The image of scene buffer `shape.name` with `shape`'s format and extent
  // (recreated when the shape changed, e.g. after a COPY).
  Result<DeviceImage*> Image(const scene::Buffer& shape);

  // A view of `image`, freed by ReleaseTransient().
  Result<VkImageView> View(const DeviceImage& image, VkImageViewType type,
                           uint32_t base_level, uint32_t level_count,
                           VkImageAspectFlags aspects);

  // Records copies of `bytes` (host layout of `shape`) into every level of
  // the image.
  Status RecordUpload(VkCommandBuffer cmd, const DeviceImage& image,
                      const scene::Buffer& shape,
                      const std::vector<uint8_t>& bytes);
  // Records copies of the image into staging memory; FinishDownloads()
  // writes them into *target (host layout of `shape`) once the commands
  // completed. `level` < 0: every level.
  Status RecordDownload(VkCommandBuffer cmd, const DeviceImage& image,
                        const scene::Buffer& shape,
                        std::vector<uint8_t>* target, int level = -1);
  void FinishDownloads();

  // Frees transient buffers, views and pending downloads.
  void ReleaseTransient();

  // A memory barrier between everything before and everything after.
  static void FullBarrier(VkCommandBuffer cmd);

 private:
  struct Pending {
    DeviceBuffer* staging;
    VkDeviceSize offset;  // into staging
    uint64_t host_offset;
    uint32_t texels;
    uint32_t texel_bytes;  // host texel
    uint32_t copy_bytes;   // staged texel
    bool merge = false;    // depth/stencil: write into `component`'s bits
    scene::Component component;
    std::vector<uint8_t>* target;
  };
  // prefer_host_cached: host memory the CPU caches, where there is such a
  // type (and it is not device-local).
  Result<DeviceBuffer> NewBuffer(VkDeviceSize size, VkBufferUsageFlags usage,
                                 bool prefer_device_local = false,
                                 bool prefer_host_cached = false);
  void Free(DeviceBuffer* b);
  // Regions of one aspect for every level; fills staging offsets.
  Status CopyRegions(const DeviceImage& image, const scene::Buffer& shape,
                     VkImageAspectFlags aspect, int level,
                     std::vector<VkBufferImageCopy>* regions,
                     std::vector<Pending>* parts, VkDeviceSize* total);

  const Device* device_;
  std::map<std::string, DeviceBuffer> buffers_;
  std::map<std::string, DeviceImage> images_;
  std::vector<std::unique_ptr<DeviceBuffer>> transient_;
  std::vector<VkImageView> views_;
  std::vector<Pending> pending_;
};

// The image extent the emulator gives a scene buffer (runner/
// image_binding.cpp): 1D images take their layers from HEIGHT, 2D images
// from DEPTH, plain buffers are 1D images of their elements.
void ImageExtent(const scene::Buffer& b, uint32_t* width, uint32_t* height,
                 uint32_t* depth, uint32_t* layers, VkImageType* type);

}  // namespace warpsim::vkref

#endif  // WARPSIM_VULKAN_REF_RESOURCES_H_
