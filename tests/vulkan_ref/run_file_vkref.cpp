// RunCorpusFile for vkref_conformance_runner: the file on the Vulkan device
// $WARPSIM_VKREF_DEVICE names (default lavapipe), without a shader cache.
#include <cstdlib>

#include "conformance/run_file.h"
#include "vulkan_ref/vk_runner.h"

namespace warpsim::conformance {

runner::RunReport RunCorpusFile(const std::string& path,
                                uint32_t /*threads: the device's own*/) {
  vkref::VkRunOptions options;
  const char* device = std::getenv("WARPSIM_VKREF_DEVICE");
  options.device = device != nullptr ? device : "lavapipe";
  return vkref::RunFileOnDevice(path, options).run;
}

}  // namespace warpsim::conformance
