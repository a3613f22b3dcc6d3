// The runner executes a parsed Scene, command by command, the way Amber's
// executor drives a Vulkan device: it compiles each pipeline's shaders,
// binds buffers to their descriptors, dispatches work through pipeline/,
// and checks every EXPECT. It produces a RunReport (and its JSON form).
#ifndef WARPSIM_RUNNER_RUNNER_H_
#define WARPSIM_RUNNER_RUNNER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "pipeline/compute.h"
#include "pipeline/graphics.h"
#include "profile/branch_profile.h"
#include "runner/gpu_config.h"
#include "scene/scene.h"
#include "simt/image.h"
#include "sm/timing.h"
#include "trace/trace.h"

namespace warpsim::runner {

enum class RunStatus {
  kPass,           // every expectation passed
  kFail,           // an expectation failed
  kInvalid,        // invalid input (diagnostic has the position)
  kUnsupported,    // valid input using a feature warpsim does not implement
  kLimitExceeded,  // stopped by --max-warp-instructions (may not terminate)
};

// "pass", "fail", "invalid", "unsupported", "limit_exceeded".
const char* RunStatusName(RunStatus s);

// The status a run ends with when it stops on a diagnostic of this kind.
RunStatus RunStatusFor(ErrorKind kind);

struct ExpectationReport {
  int line = 0;
  bool passed = false;
  std::string message;
};

// How issued warp instructions used their lanes. Of the lane slots they
// offered (warp instructions x warp width), the share that ran non-helper
// invocations (SIMD efficiency) and the share that ran helper lanes; the
// rest idled (lanes inactive after divergence, or absent from a partial
// warp).
struct LaneUse {
  double simd_efficiency = 0;
  double helper_lane_share = 0;
};
LaneUse LaneUseOf(uint64_t warp_instructions, uint64_t lane_instructions,
                  uint64_t helper_lane_instructions, uint32_t warp_width);

struct RunStats {
  uint64_t warp_instructions = 0;
  uint64_t lane_instructions = 0;         // active lanes, helpers included
  uint64_t helper_lane_instructions = 0;  // active helper lanes
  uint64_t dispatches = 0;
  uint64_t workgroups = 0;
  uint64_t warps = 0;
  double host_seconds = 0;
  // Compiled-shader cache lookups (shader_cache.h): one per GLSL compile or
  // SPIR-V assembly, and one per validate + legalize, of each shader built.
  // Both stay 0 when the cache is off.
  uint64_t shader_cache_hits = 0;
  uint64_t shader_cache_misses = 0;
};

// One shader of a pipeline (a graphics pipeline has one entry per stage).
struct PipelineReport {
  std::string name;
  std::string stage;   // "vertex", "fragment" or "compute"
  std::string shader;  // the SHADER's name
  std::string entry_point;
  // What a thread is given: the register-count model's estimate of what
  // NVIDIA's compiler uses (Program::model_regs, regalloc_model.cpp), at least
  // the GPU's min_registers_per_thread (gpu_config.h).
  uint32_t registers_per_thread = 0;
  // The allocator's count: the register file the executor runs with.
  uint32_t registers_allocated = 0;
  uint32_t instructions = 0;
  // The shader has atomic instructions (simt::IsAtomic): the order in which
  // its warps reach them is the schedule's, so what depends on that order
  // (a counter's values, a loop over a shared stack) may differ between
  // functional and timing mode, or between schedulers, as between GPUs.
  bool atomics = false;
  // RunOptions::profile_branches: what each branch of the shader cost.
  std::optional<profile::ProgramProfile> profile;
};

struct DrawReport {
  std::string pipeline;
  pipeline::DrawStats stats;
  std::optional<sm::RunTiming> timing;  // in timing mode
};

struct DispatchReport {
  std::string pipeline;
  pipeline::DispatchStats stats;
  std::optional<sm::RunTiming> timing;  // in timing mode
};

// The SM timing model's view of the whole run (RunOptions::timing_mode).
struct TimingReport {
  double clock_mhz = 0;
  uint64_t cycles = 0;  // every draw and dispatch, one after another
  std::string scheduler;
  std::string context_switch;
  std::vector<sm::SmTiming> sms;  // the SMs that ran warps, by index
  std::vector<uint32_t> sm_ids;   // their indices
};

// A colour attachment's final contents.
struct ImageOutput {
  std::string name;
  simt::TexelFormat format;
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> bytes;
};

// A buffer's (or image's) final contents and shape, kept when
// RunOptions::keep_buffers asks (`warpsim-vkref crosscheck` compares them
// with a device's).
struct BufferOutput {
  scene::Buffer shape;  // the current shape (a COPY may change it), no bytes
  std::vector<uint8_t> bytes;
};

struct RunReport {
  std::string file;
  RunStatus status = RunStatus::kPass;
  // For kInvalid / kUnsupported / kLimitExceeded.
  std::optional<Diagnostic> diagnostic;
  std::vector<ExpectationReport> expectations;
  std::vector<PipelineReport> pipelines;
  std::vector<DrawReport> draws;
  std::vector<DispatchReport> dispatches;
  std::vector<ImageOutput> images;
  std::vector<BufferOutput> buffers;  // every buffer, when keep_buffers
  RunStats stats;
  uint32_t warp_width = 0;  // of the GPU configuration the run used
  std::optional<TimingReport> timing;
  // What the timing model recorded (RunOptions::trace_detail), for
  // trace::WriteChromeTrace and the visualizer; null unless timing.
  std::shared_ptr<const trace::Trace> trace;
};

// A run is configured by the GPU description (gpu_config.h), and where it
// caches compiled shaders.
struct RunOptions : GpuConfig {
  // Directory of the compiled-shader cache (shader_cache.h); empty: no
  // cache. The CLI defaults it to DefaultShaderCacheDir().
  std::string shader_cache_dir;
  // Host threads that shade warps (pipeline/warp_queue.h, DrainParallel);
  // 0 = every core. Results are identical for any value.
  uint32_t threads = 1;
  // Fill RunReport::buffers at the end of the run (off: no copies).
  bool keep_buffers = false;
  // Timing mode: the SM timing model (sm/timing.h) runs every draw and
  // dispatch with GpuConfig::timing; the same images, buffers and
  // statistics, plus cycles (RunReport::timing, DrawReport::timing).
  bool timing_mode = false;
  // In timing mode: what RunReport::trace records.
  trace::Detail trace_detail = trace::Detail::kWarps;
  uint64_t trace_max_events = 1'000'000;
  // Compile GLSL with debug information (spirv::CompileGlsl's -g): the
  // programs keep their source text and each instruction's line, which
  // the trace's shader listings carry. Results are the same.
  bool shader_debug_info = false;
  // In timing mode: watches the trace as the model fills it, on the
  // thread that runs the scene (the visualizer's live mode); not owned.
  trace::Observer* trace_observer = nullptr;
  // In timing mode: registers per thread for every stage instead of the
  // register model's estimate (0: the estimate), and per pipeline name
  // and stage (e.g. a driver's counts from a warpsim-vkref report), which
  // win over it.
  uint32_t regs_per_thread = 0;
  std::map<std::string, sm::StageRegisters> pipeline_registers;
  // Profile every branch (PipelineReport::profile): the drivers step warps
  // one instruction at a time on one host thread. Results are the same.
  bool profile_branches = false;
  // Preprocessor definitions ("NAME" or "NAME=VALUE") for every GLSL
  // shader of the scene (`warpsim compare -D`).
  std::vector<std::string> glsl_defines;
};

RunReport RunScene(const scene::Scene& scene, const RunOptions& options);
// Parses and runs a file; a parse error gives kInvalid / kUnsupported.
RunReport RunAmberFile(const std::string& path, const RunOptions& options);

// JSON report: result, expectations[{line, passed, message}], stats{...},
// pipelines[...], draws[...], dispatches[...], diagnostic.
std::string ReportToJson(const RunReport& report);

// Timing mode's figures as CSV (a header line, then one row per SM that
// ran warps / per draw and dispatch in API order); the columns are the
// report's fields, stall cycles one column per state.
std::string TimingSmsCsv(const RunReport& report);
std::string TimingRunsCsv(const RunReport& report);

// CLI exit code: 0 pass, 1 expectation failed, 2 invalid input, 3
// unsupported, 4 warp instruction limit reached.
int ExitCodeFor(RunStatus status);

}  // namespace warpsim::runner

#endif  // WARPSIM_RUNNER_RUNNER_H_
