// The JSON report and the summary of a device run.
//
// The shape is `warpsim run --json`'s (runner::ReportToJson): file, result,
// exit_code, expectations[], pipelines[], draws[], dispatches[], stats{},
// diagnostic, with the same keys where they mean the same thing, plus what
// a device has and the emulator has not:
//   device{index, name, type, vendor_id, device_id, driver_id, driver_name,
//          driver_info, driver_version, api_version};
//   pipelines[]: name, stage, shader, entry_point, spirv ("legalized" or
//          "as_written"), and with VK_KHR_pipeline_executable_properties
//          executable, subgroup_size, executable_statistics{NAME: value}
//          with the driver's names;
//   draws[]: pipeline, line, the pipeline statistics the device counted
//          (vs_invocations, fs_invocations, primitives_in = input assembly
//          primitives, primitives_out = clipping primitives,
//          input_assembly_vertices, clipping_invocations), gpu_time_ns
//          (median over --repeat) and gpu_times_ns (every repeat);
//   dispatches[]: pipeline, line, workgroups, cs_invocations, gpu_time_ns,
//          gpu_times_ns;
//   stats{}: dispatches, workgroups, host_seconds, shader_cache_hits,
//          shader_cache_misses, repeat.
// With --observe every draws[] entry has observe{records, taken, truncated,
// vertex{...}, fragment{...}}: the StageObservation figures of observe.h
// under the same names (histograms as {"value": count}), each only when
// the device could record what it needs.
// Statistics the device does not count are absent, never 0.
#ifndef WARPSIM_VULKAN_REF_REPORT_H_
#define WARPSIM_VULKAN_REF_REPORT_H_

#include <string>

#include "vulkan_ref/vk_runner.h"

namespace warpsim::vkref {

std::string DeviceReportToJson(const DeviceRunReport& report);

// "NAME (driver DRIVER_INFO, version V, Vulkan A)".
std::string DeviceLine(const DeviceInfo& info);

}  // namespace warpsim::vkref

#endif  // WARPSIM_VULKAN_REF_REPORT_H_
