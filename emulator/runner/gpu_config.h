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

namespace warpsim::runner {

struct GpuConfig {
  std::string name = "h200";
  // Lanes per warp (subgroup size). H200: 32 (CUDA Programming Guide,
  // compute capability 9.0 table; Vulkan subgroupSize 32, REFERENCE §3.1).
  uint32_t warp_width = 32;
  // Vertex batch: at most this many indices per vertex warp, reuse only
  // inside a batch. 96 is Kerbl et al. 2018 (GTX 1080 Ti, REFERENCE §4.2);
  // unverified on the H200 (experiment E10).
  uint32_t vertex_batch_indices = 96;
  // Screen tile (pixels) in which quads are visited, in raster order. 16 is
  // the press figure for NVIDIA tiled rasterization (REFERENCE §4.3);
  // unverified on the H200 (experiment E9).
  uint32_t tile_size = 16;
  // Whether a fragment warp may take quads of several primitives
  // ("quad_packing": "per_primitive" | "mixed"). Unknown on NVIDIA
  // (REFERENCE §4.4, experiment E8); default per primitive.
  bool mix_primitives_in_warps = false;
  // Plain OpDPdx/OpDPdy: fine or coarse. Default coarse (SwiftShader,
  // RenderDoc); NVIDIA's choice is to be measured (REFERENCE §8.4).
  bool derivatives_fine = false;
  // OpKill: terminate the invocation, or demote it to a helper
  // (REFERENCE §8.5). Either way the invocation's outputs are discarded;
  // a demoted lane is counted as a helper.
  bool kill_terminates = true;
  // A dispatch or draw stops after this many warp instructions.
  uint64_t max_warp_instructions = 4'000'000'000ull;
};

// "h200" (the default) or "teaching" (8-lane warps, 8-pixel tiles: small
// enough to follow by hand).
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
