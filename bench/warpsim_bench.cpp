// Throughput of the functional executor: warp instructions per second on
// one core for an ALU-heavy and a branch-heavy compute shader. Shaders are
// compiled and lowered once, outside the timed loop; each iteration is one
// full dispatch (warps created, built-ins written, run to completion).
//
// Run: build/bench/warpsim_bench  (reports items_per_second = warp
// instructions/s, and lane instructions/s as a counter).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pipeline/compute.h"
#include "runner/shader_build.h"

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

void RunDispatch(benchmark::State& state, const char* source) {
  const BuiltProgram built = Build(source);
  const uint32_t groups[3] = {static_cast<uint32_t>(state.range(0)), 1, 1};
  std::vector<uint8_t> buffer(groups[0] * 64 * sizeof(float));
  uint64_t warp_instructions = 0, lane_instructions = 0;
  for (auto _ : state) {
    std::vector<warpsim::simt::MemRegion> regions(built.program.num_regions);
    regions[built.program.resources[0].region] = {buffer.data(), buffer.size(),
                                                  true};
    auto stats = warpsim::pipeline::DispatchCompute(built.program, groups,
                                                    std::move(regions), {}, {});
    if (!stats.ok()) {
      state.SkipWithError(stats.error().ToString().c_str());
      return;
    }
    warp_instructions += stats->warp_instructions;
    lane_instructions += stats->lane_instructions;
    benchmark::DoNotOptimize(buffer.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(warp_instructions));
  state.counters["lane_instr_per_s"] = benchmark::Counter(
      static_cast<double>(lane_instructions), benchmark::Counter::kIsRate);
  state.counters["registers_per_thread"] = built.program.num_regs;
}

void BM_AluHeavy(benchmark::State& state) { RunDispatch(state, kAluShader); }
void BM_BranchHeavy(benchmark::State& state) {
  RunDispatch(state, kBranchShader);
}

BENCHMARK(BM_AluHeavy)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BranchHeavy)->Arg(16)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
