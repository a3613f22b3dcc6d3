// Throughput of the functional executor: warp instructions per second on
// one core for an ALU-heavy and a branch-heavy compute shader. Shaders are
// compiled and lowered once, outside the timed loop; each iteration is one
// full dispatch (warps created, built-ins written, run to completion).
//
// Run: build/bench/warpsim_bench  (reports items_per_second = warp
// instructions/s, lane instructions/s and, for the frame, pixels/s).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "pipeline/compute.h"
#include "pipeline/graphics.h"
#include "runner/gpu_config.h"
#include "runner/png_writer.h"
#include "runner/shader_build.h"
#include "sm/timing.h"

namespace {

using warpsim::runner::BuildProgram;
using warpsim::runner::BuiltProgram;

// 64 invocations per workgroup; each runs a long chain of float FMAs and
// integer ops with no divergence.
const char kAluShader[] = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { float v[]; } b;
void main() {
  uint i = gl_GlobalInvocationID.x;
  float x = float(i) * 0.001;
  float y = 1.0;
  uint h = i;
  for (int k = 0; k < 256; ++k) {
    x = x * 1.0001 + 0.5;
    y = y * x - 0.25;
    h = h * 1664525u + 1013904223u;
    x = x - float(h & 7u) * 0.01;
  }
  b.v[i] = x + y;
}
)";

// Divergent control flow: per-lane trip counts, if/else on lane parity,
// a switch and an early exit.
const char kBranchShader[] = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { float v[]; } b;
void main() {
  uint i = gl_GlobalInvocationID.x;
  float x = float(i);
  for (uint k = 0u; k < 64u + (i % 32u); ++k) {
    if (((i + k) & 1u) == 0u) {
      x = x * 0.5 + 1.0;
    } else if (((i + k) & 2u) == 0u) {
      x = x + float(k);
    } else {
      switch ((i ^ k) & 3u) {
        case 0u: x -= 1.0; break;
        case 1u: x += 2.0; break;
        default: x *= 0.75; break;
      }
    }
    if (x > 1.0e6) break;
  }
  b.v[i] = x;
}
)";

BuiltProgram Build(const char* source) {
  auto words = warpsim::spirv::CompileGlsl(
      source, warpsim::spirv::ShaderStage::kCompute,
      warpsim::spirv::kDefaultGlslTargetEnv, "bench.comp");
  if (!words.ok()) {
    std::fprintf(stderr, "%s\n", words.error().ToString().c_str());
    std::abort();
  }
  warpsim::simt::LowerOptions lower;
  warpsim::runner::BuildSettings settings;
  auto built = BuildProgram(*words, warpsim::spirv::kDefaultGlslTargetEnv,
                            "bench.comp", lower, settings);
  if (!built.ok()) {
    std::fprintf(stderr, "%s\n", built.error().ToString().c_str());
    std::abort();
  }
  return std::move(*built);
}

// Dispatches state.range(0) workgroups of `source` on `threads` host
// threads. The shaders write their buffer, so with threads > 1 the dispatch
// runs optimistically (workgroups in parallel, accesses checked).
void RunDispatch(benchmark::State& state, const char* source,
                 uint32_t threads = 1) {
  const BuiltProgram built = Build(source);
  const uint32_t groups[3] = {static_cast<uint32_t>(state.range(0)), 1, 1};
  std::vector<uint8_t> buffer(groups[0] * 64 * sizeof(float));
  uint64_t warp_instructions = 0, lane_instructions = 0;
  for (auto _ : state) {
    std::vector<warpsim::simt::MemRegion> regions(built.program.num_regions);
    regions[built.program.resources[0].region] = {buffer.data(), buffer.size(),
                                                  true};
    warpsim::pipeline::ComputeLimits limits;
    limits.threads = threads;
    auto stats = warpsim::pipeline::DispatchCompute(
        built.program, groups, std::move(regions), {}, limits);
    if (!stats.ok()) {
      state.SkipWithError(stats.error().ToString().c_str());
      return;
    }
    warp_instructions += stats->warp_instructions;
    lane_instructions += stats->lane_instructions;
    if (stats->rerun_in_order) {
      state.SkipWithError("the workgroups shared memory: ran in order");
      return;
    }
    benchmark::DoNotOptimize(buffer.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(warp_instructions));
  state.counters["lane_instr_per_s"] = benchmark::Counter(
      static_cast<double>(lane_instructions), benchmark::Counter::kIsRate);
  state.counters["registers_per_thread"] = built.program.num_regs;
}

// A 256x256 frame in the style of the GraphicsFuzz tests: a full-screen
// rectangle whose fragment shader runs data-dependent loops on FragCoord.
const char kPassthroughVs[] = R"(#version 450
layout(location = 0) in vec4 position;
void main() { gl_Position = position; }
)";

const char kFuzzFs[] = R"(#version 450
layout(location = 0) out vec4 color;
void main() {
  vec2 uv = fract(gl_FragCoord.xy / 256.0);  // the same work per 256x256 tile
  float acc = 0.0;
  int n = 8 + int(uv.x * 24.0);
  for (int i = 0; i < n; ++i) {
    acc += sin(float(i) * uv.y) * 0.5;
    if (acc > 2.0) {
      acc -= 1.5;
    } else if (int(gl_FragCoord.y) % 3 == 0) {
      acc *= 0.9;
    }
  }
  for (int j = 0; j < 4; ++j) {
    if (j == int(uv.y * 4.0)) continue;
    acc += float(j) * 0.01;
  }
  color = vec4(fract(acc), uv, 1.0);
}
)";

BuiltProgram BuildStage(const char* source, warpsim::spirv::ShaderStage stage,
                        spv::ExecutionModel model) {
  auto words = warpsim::spirv::CompileGlsl(
      source, stage, warpsim::spirv::kDefaultGlslTargetEnv, "bench.glsl");
  if (!words.ok()) {
    std::fprintf(stderr, "%s\n", words.error().ToString().c_str());
    std::abort();
  }
  warpsim::simt::LowerOptions lower;
  lower.model = model;
  auto built = BuildProgram(*words, warpsim::spirv::kDefaultGlslTargetEnv,
                            "bench.glsl", lower, {});
  if (!built.ok()) {
    std::fprintf(stderr, "%s\n", built.error().ToString().c_str());
    std::abort();
  }
  return std::move(*built);
}

// Branch-divergent full-screen shading: neighbouring pixels take different
// sides of nested branches and run loops of different trip counts, so most
// fragment warps diverge (the "divergent branches" sample, full screen).
const char kDivergentFs[] = R"(#version 450
layout(location = 0) out vec4 color;
void main() {
  uvec2 p = uvec2(gl_FragCoord.xy);
  uint h = (p.x * 73856093u) ^ (p.y * 19349663u);
  h ^= h >> 13;
  float acc = 0.0;
  if ((h & 1u) == 0u) {
    for (uint i = 0u; i < 4u + (h & 15u); ++i) acc += float(i) * 0.125;
  } else if ((h & 6u) == 2u) {
    acc = sqrt(float(h & 255u));
  } else {
    switch ((h >> 3) & 3u) {
      case 0u: acc = 0.25; break;
      case 1u: acc = exp2(float(h & 7u) * 0.1); break;
      default: acc = fract(float(h) * 1.0e-5); break;
    }
  }
  color = vec4(fract(acc), float(p.x & 255u) / 255.0, float(h & 1u), 1.0);
}
)";

// Draws a full-screen rectangle of state.range(0) x state.range(0) pixels
// with fragment shader `fs_source`, on `threads` host threads. CPU time
// counts the calling thread only: with threads, compare real time.
// `timing`: on the SM timing model with the h200 preset (one thread).
void RunFullScreenFrame(benchmark::State& state, const char* fs_source,
                        uint32_t threads = 1, bool timing = false) {
  const BuiltProgram vs =
      BuildStage(kPassthroughVs, warpsim::spirv::ShaderStage::kVertex,
                 spv::ExecutionModel::Vertex);
  const BuiltProgram fs =
      BuildStage(fs_source, warpsim::spirv::ShaderStage::kFragment,
                 spv::ExecutionModel::Fragment);
  const uint32_t size = static_cast<uint32_t>(state.range(0));
  std::vector<uint8_t> color(size * size * 4);
  const float quad[8] = {-1, 1, -1, -1, 1, 1, 1, -1};  // triangle strip
  warpsim::pipeline::GraphicsState gs;
  gs.vs = &vs.program;
  gs.fs = &fs.program;
  gs.topology = warpsim::pipeline::Topology::kTriangleStrip;
  gs.config.threads = threads;
  gs.framebuffer_width = gs.framebuffer_height = size;
  gs.viewport = {0, 0, static_cast<float>(size), static_cast<float>(size),
                 0, 1};
  const warpsim::simt::TexelFormat rgba8 = warpsim::runner::Rgba8Format();
  gs.colors.push_back({0, color.data(), color.size(), rgba8, size, size});
  warpsim::simt::TexelFormat rg32f;
  rg32f.bytes = 8;
  rg32f.count = 2;
  rg32f.comps[0] = {0, warpsim::simt::TexelKind::kSFloat, 32, 0};
  rg32f.comps[1] = {1, warpsim::simt::TexelKind::kSFloat, 32, 32};
  warpsim::pipeline::VertexInput in;
  in.data = reinterpret_cast<const uint8_t*>(quad);
  in.size = sizeof(quad);
  in.format = rg32f;
  in.stride = 8;
  gs.vertex_inputs.push_back(in);
  warpsim::pipeline::DrawCall call;
  call.count = 4;
  uint64_t warp_instructions = 0, pixels = 0, cycles = 0;
  const auto h200 = warpsim::runner::GpuConfigPreset("h200");
  for (auto _ : state) {
    std::unique_ptr<warpsim::sm::TimingModel> model;
    if (timing) {
      model = std::make_unique<warpsim::sm::TimingModel>(
          h200->timing, h200->sm, h200->min_registers_per_thread);
      gs.config.driver = model.get();
    }
    auto stats = warpsim::pipeline::Draw(gs, call);
    if (model) cycles += model->cycles();
    if (!stats.ok()) {
      state.SkipWithError(stats.error().ToString().c_str());
      return;
    }
    warp_instructions += stats->warp_instructions;
    pixels += stats->fs_invocations;
    benchmark::DoNotOptimize(color.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(warp_instructions));
  state.counters["pixels_per_s"] = benchmark::Counter(
      static_cast<double>(pixels), benchmark::Counter::kIsRate);
  if (timing) {
    state.counters["cycles"] = benchmark::Counter(
        static_cast<double>(cycles), benchmark::Counter::kAvgIterations);
  }
}

// A frame in the style of the GraphicsFuzz tests (loop-heavy FS).
void BM_FrameGraphicsFuzz(benchmark::State& state) {
  RunFullScreenFrame(state, kFuzzFs);
}
void BM_FrameDivergent(benchmark::State& state) {
  RunFullScreenFrame(state, kDivergentFs);
}
// range(1): host threads (DrainParallel).
void BM_FrameGraphicsFuzzThreads(benchmark::State& state) {
  RunFullScreenFrame(state, kFuzzFs, static_cast<uint32_t>(state.range(1)));
}

// The same frame on the SM timing model (issue 9: at least 2 M warp
// instructions/s, at most 5x slower than BM_FrameGraphicsFuzz/256).
void BM_FrameGraphicsFuzzTiming(benchmark::State& state) {
  RunFullScreenFrame(state, kFuzzFs, 1, true);
}

void BM_AluHeavy(benchmark::State& state) { RunDispatch(state, kAluShader); }
void BM_BranchHeavy(benchmark::State& state) {
  RunDispatch(state, kBranchShader);
}
// range(1): host threads.
void BM_BranchHeavyThreads(benchmark::State& state) {
  RunDispatch(state, kBranchShader, static_cast<uint32_t>(state.range(1)));
}

BENCHMARK(BM_AluHeavy)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BranchHeavy)->Arg(16)->Unit(benchmark::kMillisecond);
// 256: the reference frame; 2048: shading cost must stay linear in pixels
// (64x the pixels of 256 should take about 64x the time).
BENCHMARK(BM_FrameGraphicsFuzz)
    ->Arg(256)
    ->Arg(2048)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FrameDivergent)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FrameGraphicsFuzzTiming)->Arg(256)->Unit(benchmark::kMillisecond);
// The parallel functional mode (DrainParallel): one and two threads, wall
// time, in one run.
BENCHMARK(BM_FrameGraphicsFuzzThreads)
    ->Args({256, 1})
    ->Args({256, 2})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BranchHeavyThreads)
    ->Args({64, 1})
    ->Args({64, 2})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
