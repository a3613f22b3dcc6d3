#include "vulkan_ref/device.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "vulkan_ref/features.h"

namespace warpsim::vkref {
namespace {

const char* DeviceTypeName(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated_gpu";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete_gpu";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual_gpu";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "other";
  }
}

std::string ApiVersionString(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." +
         std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

Result<VkInstance> CreateInstance(const std::vector<std::string>& wanted) {
  uint32_t count = 0;
  vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> offered(count);
  vkEnumerateInstanceExtensionProperties(nullptr, &count, offered.data());
  std::vector<const char*> names;
  for (const std::string& e : wanted) {
    bool found = false;
    for (const auto& o : offered) found |= e == o.extensionName;
    if (found) {
      names.push_back(e.c_str());
    } else if (PromotedToCore(e) == 0) {
      return Unsupported("instance extension " + e +
                         " (not offered by the Vulkan loader)");
    }
  }
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "warpsim-vkref";
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  ci.enabledExtensionCount = static_cast<uint32_t>(names.size());
  ci.ppEnabledExtensionNames = names.data();
  VkInstance instance = VK_NULL_HANDLE;
  if (VkResult r = vkCreateInstance(&ci, nullptr, &instance); r != VK_SUCCESS)
    return VkError(r, "vkCreateInstance");
  return instance;
}

std::vector<VkPhysicalDevice> PhysicalDevices(VkInstance instance) {
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(instance, &count, devices.data());
  devices.resize(count);
  return devices;
}

std::set<std::string> DeviceExtensions(VkPhysicalDevice pd);

DeviceInfo InfoOf(VkPhysicalDevice pd, uint32_t index) {
  VkPhysicalDeviceDriverProperties driver{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 props{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceProperties base{};
  vkGetPhysicalDeviceProperties(pd, &base);
  // The driver properties are core from 1.2; older devices do not fill them.
  if (base.apiVersion >= VK_API_VERSION_1_2) props.pNext = &driver;
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  if (DeviceExtensions(pd).count(VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME)) {
    sm.pNext = props.pNext;
    props.pNext = &sm;
  }
  vkGetPhysicalDeviceProperties2(pd, &props);
  DeviceInfo info;
  info.index = index;
  info.name = props.properties.deviceName;
  info.type = DeviceTypeName(props.properties.deviceType);
  info.vendor_id = props.properties.vendorID;
  info.device_id = props.properties.deviceID;
  info.driver_id = driver.driverID;
  info.driver_name = driver.driverName;
  info.driver_info = driver.driverInfo;
  info.driver_version = DriverVersionString(props.properties.vendorID,
                                            props.properties.driverVersion);
  info.api_version = ApiVersionString(props.properties.apiVersion);
  info.is_cpu = props.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ||
                driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
  info.shader_sm_count = sm.shaderSMCount;
  info.shader_warps_per_sm = sm.shaderWarpsPerSM;
  return info;
}

VkPhysicalDeviceSubgroupProperties SubgroupProperties(VkPhysicalDevice pd) {
  VkPhysicalDeviceSubgroupProperties sub{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 p2{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  p2.pNext = &sub;
  vkGetPhysicalDeviceProperties2(pd, &p2);
  return sub;
}

std::set<std::string> DeviceExtensions(VkPhysicalDevice pd) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> props(count);
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &count, props.data());
  std::set<std::string> names;
  for (const auto& p : props) names.insert(p.extensionName);
  return names;
}

}  // namespace

const char* VkResultName(VkResult r) {
  switch (r) {
#define WARPSIM_CASE(x) \
  case x:               \
    return #x;
    WARPSIM_CASE(VK_SUCCESS)
    WARPSIM_CASE(VK_NOT_READY)
    WARPSIM_CASE(VK_TIMEOUT)
    WARPSIM_CASE(VK_INCOMPLETE)
    WARPSIM_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    WARPSIM_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    WARPSIM_CASE(VK_ERROR_INITIALIZATION_FAILED)
    WARPSIM_CASE(VK_ERROR_DEVICE_LOST)
    WARPSIM_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    WARPSIM_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    WARPSIM_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    WARPSIM_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    WARPSIM_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    WARPSIM_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    WARPSIM_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    WARPSIM_CASE(VK_ERROR_FRAGMENTED_POOL)
    WARPSIM_CASE(VK_ERROR_UNKNOWN)
    WARPSIM_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    WARPSIM_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef WARPSIM_CASE
    default:
      return "VkResult";
  }
}

Diagnostic VkError(VkResult r, const std::string& call) {
  std::string msg = call + " failed: " + VkResultName(r) + " (" +
                    std::to_string(static_cast<int>(r)) + ")";
  if (r == VK_ERROR_FEATURE_NOT_PRESENT ||
      r == VK_ERROR_EXTENSION_NOT_PRESENT ||
      r == VK_ERROR_FORMAT_NOT_SUPPORTED || r == VK_ERROR_LAYER_NOT_PRESENT ||
      r == VK_ERROR_INCOMPATIBLE_DRIVER) {
    return Unsupported(msg);
  }
  return InternalError("Vulkan: " + msg);
}

std::string DriverVersionString(uint32_t vendor_id, uint32_t v) {
  if (vendor_id == 0x10DE) {
    return std::to_string(v >> 22) + "." + std::to_string((v >> 14) & 0xff) +
           "." + std::to_string((v >> 6) & 0xff) + "." +
           std::to_string(v & 0x3f);
  }
  return std::to_string(v >> 22) + "." + std::to_string((v >> 12) & 0x3ff) +
         "." + std::to_string(v & 0xfff);
}

Result<uint32_t> SelectDevice(const std::vector<DeviceInfo>& devices,
                              const std::string& spec) {
  std::string listing;
  for (const DeviceInfo& d : devices) {
    listing += (listing.empty() ? "" : ", ") + std::to_string(d.index) + ": " +
               d.name + " (" + d.type + ")";
  }
  if (listing.empty()) listing = "none";
  if (devices.empty()) {
    return Unsupported(
        "a Vulkan device (the loader found no device; "
        "install mesa-vulkan-drivers for lavapipe)");
  }
  if (spec.empty()) {
    for (const DeviceInfo& d : devices) {
      if (d.type == "discrete_gpu") return d.index;
    }
    return devices.front().index;
  }
  if (spec == "lavapipe") {
    for (const DeviceInfo& d : devices) {
      if (d.is_cpu) return d.index;
    }
    return Unsupported(
        "Vulkan device lavapipe (no CPU device; devices: " + listing + ")");
  }
  if (spec == "nvidia") {
    for (const DeviceInfo& d : devices) {
      if (d.vendor_id == 0x10DE) return d.index;
    }
    return Unsupported(
        "Vulkan device nvidia (no device of vendor 0x10DE; "
        "devices: " +
        listing + ")");
  }
  if (spec.find_first_not_of("0123456789") == std::string::npos &&
      spec.size() < 6) {
    const uint32_t index = static_cast<uint32_t>(std::stoul(spec));
    if (index < devices.size()) return index;
    return Unsupported("Vulkan device " + spec + " (devices: " + listing + ")");
  }
  return InvalidInput("--device takes lavapipe, nvidia or an index, got '" +
                      spec + "'");
}

Result<std::vector<DeviceInfo>> ListDevices() {
  auto instance = CreateInstance({});
  if (!instance.ok()) {
    // No driver at all makes instance creation fail on some loaders.
    if (instance.error().message.find("VK_ERROR_INCOMPATIBLE_DRIVER") !=
        std::string::npos) {
      return std::vector<DeviceInfo>{};
    }
    return instance.error();
  }
  std::vector<DeviceInfo> out;
  const auto devices = PhysicalDevices(*instance);
  for (uint32_t i = 0; i < devices.size(); ++i)
    out.push_back(InfoOf(devices[i], i));
  vkDestroyInstance(*instance, nullptr);
  return out;
}

Device::~Device() {
  if (device_ != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device_);
    if (pool_ != VK_NULL_HANDLE) vkDestroyCommandPool(device_, pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
}

Result<std::unique_ptr<Device>> Device::Create(const std::string& spec,
                                               const scene::Scene& scene,
                                               bool observe) {
  std::unique_ptr<Device> d(new Device());
  if (Status s = d->Init(spec, scene, observe); !s.ok()) return s.error();
  return d;
}

Result<uint32_t> Device::MemoryType(uint32_t type_bits,
                                    VkMemoryPropertyFlags flags) const {
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    if ((type_bits & (1u << i)) &&
        (memory_.memoryTypes[i].propertyFlags & flags) == flags) {
      return i;
    }
  }
  return Unsupported("a memory type with property flags " +
                     std::to_string(flags) + " on " + info_.name);
}

Status Device::EnableObserve(const FeatureChain& have,
                             const std::set<std::string>& offered,
                             FeatureChain* want,
                             std::set<std::string>* enable) {
  const std::string on = " (not offered by " + info_.name + ")";
  const VkPhysicalDeviceFeatures& core = have.core.features;
  if (!core.vertexPipelineStoresAndAtomics || !core.fragmentStoresAndAtomics) {
    return Unsupported(
        "--observe: stores and atomics in vertex and fragment shaders "
        "(vertexPipelineStoresAndAtomics, fragmentStoresAndAtomics)" +
        on);
  }
  want->core.features.vertexPipelineStoresAndAtomics = VK_TRUE;
  want->core.features.fragmentStoresAndAtomics = VK_TRUE;
  observe_.enabled = true;
  if (core.geometryShader) {
    want->core.features.geometryShader = VK_TRUE;
    observe_.primitive_id = true;
  }
  if (offered.count(VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME) &&
      have.sm_builtins.shaderSMBuiltins) {
    enable->insert(VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
    want->sm_builtins.shaderSMBuiltins = VK_TRUE;
    observe_.sm_builtins = true;
  }
  if (offered.count(VK_KHR_SHADER_CLOCK_EXTENSION_NAME) &&
      have.clock.shaderSubgroupClock) {
    enable->insert(VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
    want->clock.shaderSubgroupClock = VK_TRUE;
    observe_.clock = true;
  }
  const VkPhysicalDeviceSubgroupProperties sub = SubgroupProperties(physical_);
  const VkSubgroupFeatureFlags ops = VK_SUBGROUP_FEATURE_BASIC_BIT |
                                     VK_SUBGROUP_FEATURE_BALLOT_BIT |
                                     VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
  const bool has_ops = (sub.supportedOperations & ops) == ops;
  // Mesa's llvmpipe (lavapipe 22.3) turns a HelperInvocation load in these
  // shaders into an is_helper_invocation intrinsic it cannot compile
  // ("Unsupported intrinsic", then a crash). Without it the lowest lane
  // of a warp may be a helper, so the warp number (and the quad mask) is
  // left out too: on lavapipe fragment records carry no warp, lane, ballot
  // or quad fields, and helper lanes write nothing because Vulkan discards
  // their stores.
  const bool llvmpipe = info_.driver_id == VK_DRIVER_ID_MESA_LLVMPIPE;
  observe_.helper_invocation = !llvmpipe;
  observe_.vertex_subgroup =
      has_ops && (sub.supportedStages & VK_SHADER_STAGE_VERTEX_BIT);
  observe_.fragment_subgroup =
      has_ops && !llvmpipe &&
      (sub.supportedStages & VK_SHADER_STAGE_FRAGMENT_BIT);
  observe_.compute_subgroup =
      has_ops && (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT);
  observe_.fragment_quad =
      observe_.fragment_subgroup &&
      (sub.supportedOperations & VK_SUBGROUP_FEATURE_QUAD_BIT);
  return {};
}

Status Device::Init(const std::string& spec, const scene::Scene& scene,
                    bool observe) {
  auto instance = CreateInstance(scene.instance_extensions);
  if (!instance.ok()) return instance.error();
  instance_ = *instance;
  const auto physicals = PhysicalDevices(instance_);
  std::vector<DeviceInfo> infos;
  for (uint32_t i = 0; i < physicals.size(); ++i)
    infos.push_back(InfoOf(physicals[i], i));
  auto index = SelectDevice(infos, spec);
  if (!index.ok()) return index.error();
  physical_ = physicals[*index];
  info_ = infos[*index];
  vkGetPhysicalDeviceProperties(physical_, &props_);
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
  const std::string on = " (not offered by " + info_.name + ")";
  const uint32_t api = props_.apiVersion;
  if (api < VK_API_VERSION_1_1) {
    return Unsupported("Vulkan 1.1 (" + info_.name + " offers " +
                       info_.api_version + ")");
  }

  // Extensions: the scene's, those its features live in, and the ones
  // warpsim-vkref uses for statistics when offered.
  const std::set<std::string> offered = DeviceExtensions(physical_);
  std::set<std::string> enable;
  for (const std::string& e : scene.device_extensions) {
    if (offered.count(e)) {
      enable.insert(e);
    } else if (PromotedToCore(e) == 0 || PromotedToCore(e) > api) {
      return Unsupported("device extension " + e + on);
    }
  }
  FeatureChain have;
  vkGetPhysicalDeviceFeatures2(physical_, have.Link(api, offered));
  FeatureChain want;
  for (const std::string& f : scene.device_features) {
    bool known = false;
    if (bool met =
            SubgroupRequirementMet(SubgroupProperties(physical_), f, &known);
        known) {
      if (!met) return Unsupported("device feature " + f + on);
      continue;
    }
    const FeatureRef has = FindFeature(&have, f);
    const FeatureRef set = FindFeature(&want, f);
    if (has.flag == nullptr) {
      return Unsupported("device feature " + f +
                         " (a name warpsim-vkref does not know)");
    }
    if (api < has.min_api ||
        (!has.extension.empty() && !offered.count(has.extension)) ||
        *has.flag != VK_TRUE) {
      return Unsupported("device feature " + f + on);
    }
    *set.flag = VK_TRUE;
    if (!has.extension.empty()) enable.insert(has.extension);
  }
  if (!scene.device_properties.empty()) {
    VkPhysicalDeviceVulkan12Properties v12{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
    VkPhysicalDeviceProperties2 p2{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    if (api >= VK_API_VERSION_1_2) p2.pNext = &v12;
    vkGetPhysicalDeviceProperties2(physical_, &p2);
    for (const std::string& p : scene.device_properties) {
      bool known = false;
      const bool met = PropertyMet(v12, p, &known);
      if (!known) {
        return Unsupported("device property " + p +
                           " (a name warpsim-vkref cannot check)");
      }
      if (!met) return Unsupported("device property " + p + on);
    }
  }
  // Statistics need pipelineStatisticsQuery; without it draws report only
  // their GPU time.
  if (have.core.features.pipelineStatisticsQuery) {
    want.core.features.pipelineStatisticsQuery = VK_TRUE;
    statistic_flags_ =
        VK_QUERY_PIPELINE_STATISTIC_INPUT_ASSEMBLY_VERTICES_BIT |
        VK_QUERY_PIPELINE_STATISTIC_INPUT_ASSEMBLY_PRIMITIVES_BIT |
        VK_QUERY_PIPELINE_STATISTIC_VERTEX_SHADER_INVOCATIONS_BIT |
        VK_QUERY_PIPELINE_STATISTIC_CLIPPING_INVOCATIONS_BIT |
        VK_QUERY_PIPELINE_STATISTIC_CLIPPING_PRIMITIVES_BIT |
        VK_QUERY_PIPELINE_STATISTIC_FRAGMENT_SHADER_INVOCATIONS_BIT |
        VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT;
  }
  const char* kExecutable =
      VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
  if (offered.count(kExecutable) && have.executable.pipelineExecutableInfo) {
    enable.insert(kExecutable);
    want.executable.pipelineExecutableInfo = VK_TRUE;
    executable_properties_ = true;
  }
  index_type_uint8_ = want.index_uint8.indexTypeUint8 == VK_TRUE;
  if (observe) {
    if (Status s = EnableObserve(have, offered, &want, &enable); !s.ok())
      return s;
  }

  // One queue family with graphics, compute and timestamps.
  uint32_t qcount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &qcount, nullptr);
  std::vector<VkQueueFamilyProperties> families(qcount);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &qcount, families.data());
  bool found = false;
  for (uint32_t i = 0; i < qcount && !found; ++i) {
    const VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    if ((families[i].queueFlags & need) == need) {
      queue_family_ = i;
      timestamp_bits_ = families[i].timestampValidBits;
      found = true;
    }
  }
  if (!found) {
    return Unsupported("a queue with graphics and compute" + on);
  }
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = queue_family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  std::vector<const char*> names;
  for (const std::string& e : enable) names.push_back(e.c_str());
  VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  ci.pNext = want.Link(api, enable);
  ci.queueCreateInfoCount = 1;
  ci.pQueueCreateInfos = &qci;
  ci.enabledExtensionCount = static_cast<uint32_t>(names.size());
  ci.ppEnabledExtensionNames = names.data();
  if (VkResult r = vkCreateDevice(physical_, &ci, nullptr, &device_);
      r != VK_SUCCESS) {
    device_ = VK_NULL_HANDLE;
    return VkError(r, "vkCreateDevice on " + info_.name);
  }
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = queue_family_;
  if (VkResult r = vkCreateCommandPool(device_, &pci, nullptr, &pool_);
      r != VK_SUCCESS) {
    return VkError(r, "vkCreateCommandPool");
  }
  return {};
}

}  // namespace warpsim::vkref
