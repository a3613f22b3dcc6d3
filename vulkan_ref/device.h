// The Vulkan device a scene runs on: instance, physical device selection
// (--device), and a logical device created with exactly the features and
// extensions the scene asks for (DEVICE_FEATURE / DEVICE_EXTENSION /
// INSTANCE_EXTENSION / DEVICE_PROPERTY), plus what warpsim-vkref needs for
// its statistics (pipeline statistics queries, pipeline executable
// properties) when the device offers them.
//
// A requirement the device does not meet is Unsupported, naming what is
// missing and the device, so a file is never skipped silently.
#ifndef WARPSIM_VULKAN_REF_DEVICE_H_
#define WARPSIM_VULKAN_REF_DEVICE_H_

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "scene/scene.h"
#include "vulkan_ref/features.h"

namespace warpsim::vkref {

// What the report and the summary line say about the device that ran.
struct DeviceInfo {
  uint32_t index = 0;  // in vkEnumeratePhysicalDevices order
  std::string name;
  std::string type;  // "discrete_gpu", "integrated_gpu", "cpu", ...
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint32_t driver_id = 0;      // VkDriverId (0 when the device does not say)
  std::string driver_name;     // VkPhysicalDeviceDriverProperties
  std::string driver_info;     // e.g. "Mesa 22.3.6 (LLVM 15.0.6)"
  std::string driver_version;  // decoded the vendor's way
  std::string api_version;     // "1.3.230"
  bool is_cpu = false;         // lavapipe and other CPU devices
  // VK_NV_shader_sm_builtins' properties (gl_SMCountNV, gl_WarpsPerSMNV):
  // 0 when the device does not offer the extension.
  uint32_t shader_sm_count = 0;
  uint32_t shader_warps_per_sm = 0;
};

// What `--observe` can record on the device (observe_pass.h): the
// instrumentation needs stores and atomics in the vertex and fragment
// stages; the rest is used where offered.
struct ObserveSupport {
  bool enabled = false;
  bool sm_builtins = false;        // VK_NV_shader_sm_builtins
  bool clock = false;              // VK_KHR_shader_clock, subgroup scope
  bool vertex_subgroup = false;    // ballot + shuffle in vertex shaders
  bool fragment_subgroup = false;  // ballot + shuffle in fragment shaders
  bool compute_subgroup = false;   // ballot + shuffle in compute shaders
  bool fragment_quad = false;      // quad operations in fragment shaders
  bool primitive_id = false;       // PrimitiveId in fragment shaders
  bool helper_invocation = true;   // HelperInvocation in fragment shaders
};

// Results of Vulkan calls become diagnostics naming the call and the
// VkResult. Missing features, extensions and formats are Unsupported;
// every other error is an internal error (exit 2, like invalid input).
Diagnostic VkError(VkResult r, const std::string& call);
const char* VkResultName(VkResult r);

// Decodes VkPhysicalDeviceProperties::driverVersion: NVIDIA packs
// 10.8.8.6 bits, everyone else uses VK_MAKE_API_VERSION's 3.10.12 split.
std::string DriverVersionString(uint32_t vendor_id, uint32_t version);

// Picks a device for `spec` (see --device): "" = the first discrete GPU,
// else the first device; "lavapipe" = the first CPU device (device type CPU
// or driver MESA_LLVMPIPE); "nvidia" = the first device with vendor 0x10DE;
// a decimal number = that enumeration index. Unsupported when none fits
// (the message lists the devices there are); InvalidInput for a spec that
// is none of these.
Result<uint32_t> SelectDevice(const std::vector<DeviceInfo>& devices,
                              const std::string& spec);

// Every physical device the loader offers (creates and destroys its own
// instance). An empty list when there is no loader driver at all.
Result<std::vector<DeviceInfo>> ListDevices();

// The device warpsim-vkref runs a scene on. Owns the instance, the device,
// one queue with graphics + compute, and a command pool.
class Device {
 public:
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // Creates instance and device for `scene` on the device `spec` selects;
  // with `observe`, also what --observe needs (Unsupported without stores
  // and atomics in vertex and fragment shaders).
  static Result<std::unique_ptr<Device>> Create(const std::string& spec,
                                                const scene::Scene& scene,
                                                bool observe = false);

  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical() const { return physical_; }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  VkCommandPool command_pool() const { return pool_; }
  const DeviceInfo& info() const { return info_; }
  const VkPhysicalDeviceProperties& properties() const { return props_; }
  uint32_t timestamp_valid_bits() const { return timestamp_bits_; }
  // VK_QUERY_PIPELINE_STATISTIC_* bits this device can count (0 without
  // the pipelineStatisticsQuery feature).
  VkQueryPipelineStatisticFlags statistic_flags() const {
    return statistic_flags_;
  }
  bool executable_properties() const { return executable_properties_; }
  bool index_type_uint8() const { return index_type_uint8_; }
  const ObserveSupport& observe() const { return observe_; }

  // A memory type index among `type_bits` with `flags`.
  Result<uint32_t> MemoryType(uint32_t type_bits,
                              VkMemoryPropertyFlags flags) const;
  VkMemoryPropertyFlags MemoryFlags(uint32_t type) const {
    return memory_.memoryTypes[type].propertyFlags;
  }

  // Device-level function (extension entry points).
  PFN_vkVoidFunction Proc(const char* name) const {
    return vkGetDeviceProcAddr(device_, name);
  }

 private:
  Device() = default;
  Status Init(const std::string& spec, const scene::Scene& scene, bool observe);
  Status EnableObserve(const FeatureChain& have,
                       const std::set<std::string>& offered, FeatureChain* want,
                       std::set<std::string>* enable);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  uint32_t timestamp_bits_ = 0;
  DeviceInfo info_;
  VkPhysicalDeviceProperties props_{};
  VkPhysicalDeviceMemoryProperties memory_{};
  VkQueryPipelineStatisticFlags statistic_flags_ = 0;
  bool executable_properties_ = false;
  bool index_type_uint8_ = false;
  ObserveSupport observe_;
};

}  // namespace warpsim::vkref

#endif  // WARPSIM_VULKAN_REF_DEVICE_H_
