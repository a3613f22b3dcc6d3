// The machine description a run uses: warp width and the rules that cut a
// draw into warps, plus the implementation choices the Vulkan spec leaves
// open. Loaded from JSON (`warpsim run --gpu-config FILE`) or a named
// preset; every value documents where it comes from.
#ifndef WARPSIM_RUNNER_GPU_CONFIG_H_
#define WARPSIM_RUNNER_GPU_CONFIG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostic.h"
#include "pipeline/graphics.h"
#include "sm/occupancy.h"
#include "sm/timing_config.h"

namespace warpsim::runner {

// The h200 preset's timing: the "timing" object of
// emulator/runner/presets/h200_timing.json (compiled in; see GpuConfig::
// timing) over sm::TimingConfig's defaults.
const sm::TimingConfig& H200Timing();

struct GpuConfig {
  std::string name = "h200";
  // Lanes per warp (subgroup size). H200: 32 (CUDA Programming Guide,
  // compute capability 9.0 table; Vulkan subgroupSize 32, REFERENCE §3.1).
  uint32_t warp_width = 32;
  // Vertex batching (pipeline/vertex_stage.h): a batch takes whole
  // primitives, at most vertex_batch_primitives, while its lanes fit in a
  // warp; a vertex among the batch's last vertex_reuse_window indices is
  // reused; batches run on across instances. H200: 32 primitives, a
  // window of 42 indices: with them the emulator's VS invocations and
  // vertex warps equal those the H200's instrumented shaders recorded on
  // all 537 E10 draws (any window from 39 to 43 does; vulkan_ref/results/
  // h200/observe-2026-11-30/e10.summary.json.gz; FINDINGS.md, Q3).
  uint32_t vertex_batch_primitives = 32;
  uint32_t vertex_reuse_window = 42;
  // Screen tile (pixels) in which quads are visited and warps are packed.
  // H200: 16, every fragment warp of the E8b scenes lies in one aligned
  // 16x16 tile (vulkan_ref/results/h200/observe-2026-11-30/
  // e8b_packing.observe.bin.gz; FINDINGS.md, Q2).
  uint32_t tile_size = 16;
  // How quads become fragment warps ("quad_packing": "per_primitive" |
  // "mixed" | "tiles", pipeline/graphics.h). H200: "tiles" with 16 open
  // tiles; the warps of the E8b scenes mix primitives within a tile, and
  // this rule predicts their number exactly on 9 of 11 scenes and within
  // 2.3 % on the others (same files; FINDINGS.md, Q2).
  pipeline::QuadPacking quad_packing = pipeline::QuadPacking::kTiles;
  uint32_t open_tiles = 16;  // "open_tiles"
  // Plain OpDPdx/OpDPdy: fine or coarse. H200: fine (vulkan_ref/results/
  // h200/observe-2026-11-30/e8c_derivatives.report.json; FINDINGS.md).
  // Coarse derivatives use the quad's top row and left column there, as
  // the emulator does.
  bool derivatives_fine = true;
  // The fewest registers a thread is given, whatever the allocator needs:
  // the report's registers_per_thread is at least this (the allocator's own
  // count is registers_allocated). H200: 16, the lowest "Register Count"
  // the driver reported for any of the 2533 shaders of the corpus run
  // (vulkan_ref/results/h200/corpus-2026-11-30; results/h200/README.md).
  uint32_t min_registers_per_thread = 16;
  // OpKill: terminate the invocation, or demote it to a helper
  // (REFERENCE §8.5). Either way the invocation's outputs are discarded;
  // a demoted lane is counted as a helper.
  bool kill_terminates = true;
  // The SM's resources, for occupancy (sm/occupancy.h). H200: the CUDA
  // runtime's own figures, read on the H200 by E0
  // (cuda_ref/results/h200/2026-11-30/e0_fingerprint.json: warpSize,
  // maxThreadsPerMultiProcessor / 32, maxBlocksPerMultiProcessor,
  // maxThreadsPerBlock, regsPerMultiprocessor, regsPerBlock,
  // sharedMemPerMultiprocessor, sharedMemPerBlock, sharedMemPerBlockOptin,
  // reservedSharedMemPerBlock); the allocation units, the 4 register
  // sub-partitions, the 255-register ceiling and the carveout sizes are
  // CUDA's occupancy rules for compute capability 9.0 (REFERENCE §1.3,
  // §1.6), and E1 (same folder, e1_occupancy.json) confirms them: with
  // these values sm::ComputeOccupancy gives the runtime's answer in every
  // recorded cell and the residency probe's in every launch
  // (tests/sm/occupancy_test.cpp).
  sm::SmLimits sm;
  // The SM timing model's machine (sm/timing_config.h: clock, SM counts,
  // pipe latencies and issue intervals, memory latencies, capacities and
  // bandwidths, scheduler); "timing": {...} in JSON. H200: every value from
  // emulator/runner/presets/h200_timing.json, which
  // cuda_ref/results/make_timing_preset.py generates from the recorded runs
  // (cuda_ref/results/h200/2026-11-30: e0, e2, e3, e5, provenance.txt;
  // vulkan_ref/results/h200/observe-2026-11-30/e7_sm_sets.summary.json for
  // graphics_sms); its "sources" names the file, field and rule of each
  // value, and the fields the runs do not measure are left out there and
  // keep the struct's defaults. The file is compiled into the library (a
  // header CMake generates from it), and the ctest h200_timing_preset fails
  // when it is not what the results give. "teaching": the struct's
  // defaults.
  sm::TimingConfig timing = H200Timing();
  // A dispatch or draw stops after this many warp instructions.
  uint64_t max_warp_instructions = 4'000'000'000ull;
};

// "h200" (the default) or "teaching" (8-lane warps, 8-pixel tiles, quads of
// one primitive per warp, coarse derivatives: small enough to follow by
// hand).
Result<GpuConfig> GpuConfigPreset(std::string_view name);

// The names GpuConfigPreset accepts, in the order help texts list them.
const std::vector<std::string_view>& GpuConfigPresetNames();

// "h200, teaching": the preset names for messages.
std::string GpuConfigPresetList();

// A JSON object with any of the fields above ("preset" first picks the
// base). Unknown keys and bad values are invalid input naming the key.
Result<GpuConfig> LoadGpuConfig(const std::string& path);

// The same from JSON text already in memory; `path` names it in diagnostics.
Result<GpuConfig> ParseGpuConfig(std::string_view text,
                                 const std::string& path);

}  // namespace warpsim::runner

#endif  // WARPSIM_RUNNER_GPU_CONFIG_H_
