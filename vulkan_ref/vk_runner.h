// Runs a parsed Scene on a Vulkan device, command by command, the way
// `warpsim run` runs it on the emulator, and reports what the device did.
//
// The report shares the emulator's RunReport for everything both runners
// mean the same way (status, diagnostic, expectations judged by
// scene/expectations.h, colour attachments for PNG output); what only a
// device has (pipeline statistics queries, timestamps, the driver's
// pipeline executable statistics, the device) is in DeviceRunReport.
#ifndef WARPSIM_VULKAN_REF_VK_RUNNER_H_
#define WARPSIM_VULKAN_REF_VK_RUNNER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "runner/runner.h"
#include "scene/scene.h"
#include "vulkan_ref/device.h"
#include "vulkan_ref/observe.h"

namespace warpsim::vkref {

struct VkRunOptions {
  std::string device;  // --device: "", "lavapipe", "nvidia" or an index
  // Each draw and dispatch runs this many times from the same inputs; its
  // GPU time is the median, its results and statistics those of the last
  // run (identical on a deterministic device).
  uint32_t repeat = 1;
  std::string shader_cache_dir;  // empty: no cache
  // Fill run.buffers with every buffer's final bytes (crosscheck).
  bool keep_buffers = false;
  // --observe: instrument vertex and fragment shaders (observe_pass.h) and
  // fill DeviceDrawReport::observation.
  bool observe = false;
  // Preprocessor definitions ("NAME=VALUE") for every GLSL shader
  // (`warpsim-vkref compare -D`).
  std::vector<std::string> glsl_defines;
};

// Pipeline statistics of one draw or dispatch, by the names the report
// uses; only those the device counted are present.
using Statistics = std::map<std::string, uint64_t>;

struct DeviceDrawReport {
  std::string pipeline;
  int line = 0;  // of the RUN command
  Statistics statistics;
  std::vector<double> gpu_ns;  // one per repeat; empty without timestamps
  double median_gpu_ns() const;
  std::optional<DrawObservation> observation;  // --observe
};

// One executable of a pipeline (VK_KHR_pipeline_executable_properties).
struct ExecutableStatistic {
  std::string name;
  std::string description;
  std::variant<bool, int64_t, uint64_t, double> value;
};

struct DevicePipelineReport {
  std::string name;
  std::string stage;  // "vertex", "fragment", "compute" (from the scene)
  std::string shader;
  std::string entry_point;
  bool legalized = true;  // the device got the emulator's legalized SPIR-V
  // Filled when the driver offers the extension: the executable whose
  // stages include this one.
  std::string executable_name;
  uint32_t subgroup_size = 0;
  std::vector<ExecutableStatistic> statistics;
};

struct DeviceRunReport {
  // file, status, diagnostic, expectations, images, buffers (with
  // keep_buffers), stats.host_seconds and the shader cache counters;
  // draws/dispatches/pipelines stay empty.
  runner::RunReport run;
  DeviceInfo device;
  bool device_known = false;  // false when no device could be created
  uint32_t repeat = 1;
  std::vector<DevicePipelineReport> pipelines;
  std::vector<DeviceDrawReport> draws;
  std::vector<DeviceDrawReport> dispatches;
  // Where the scene's buffers were made (Resources::Buffer).
  uint32_t device_local_buffers = 0;
  uint32_t host_buffers = 0;
};

DeviceRunReport RunSceneOnDevice(const scene::Scene& scene,
                                 const VkRunOptions& options);
// Parses and runs a file; a parse error gives kInvalid / kUnsupported.
DeviceRunReport RunFileOnDevice(const std::string& path,
                                const VkRunOptions& options);

}  // namespace warpsim::vkref

#endif  // WARPSIM_VULKAN_REF_VK_RUNNER_H_
