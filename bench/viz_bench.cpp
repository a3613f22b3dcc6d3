// Benchmarks of warpsim-viz's live mode (visualizer/README.md): the
// 256x256 frame of samples/graphics/live_frame_256.amber (a fragment shader
// of about 50 warp instructions) simulated through a LiveSession, as the
// live view runs it, against the same run without an observer; and the
// models the views rebuild from its trace.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>

#include "model/live.h"
#include "model/pixel_map.h"
#include "model/register_map.h"
#include "model/shader_profile.h"
#include "model/timeline.h"
#include "runner/runner.h"
#include "runner/shader_cache.h"

namespace {

const std::string kScene =
    std::string(WARPSIM_SOURCE_DIR) + "/samples/graphics/live_frame_256.amber";

warpsim::runner::RunOptions LiveOptions() {
  warpsim::runner::RunOptions o;
  auto h200 = warpsim::runner::GpuConfigPreset("h200");
  if (h200.ok()) static_cast<warpsim::runner::GpuConfig&>(o) = *h200;
  o.timing_mode = true;
  o.trace_detail = warpsim::trace::Detail::kInstructions;
  o.trace_max_events = 4'000'000;
  o.threads = 1;
  o.shader_cache_dir = warpsim::runner::DefaultShaderCacheDir();
  return o;
}

// The frame as the live view simulates it: a LiveSession playing from the
// start to the end (its worker thread runs the scene; this thread waits),
// with the allocator tuned as warpsim-viz tunes it (process-wide: run the
// viz benchmarks apart from the others, --benchmark_filter='Live|Timing
// Frame256File|VizModels|TimelineFrame').
void BM_LiveFrame256(benchmark::State& state) {
  warpsim::viz::TuneAllocatorForReruns();
  const warpsim::runner::RunOptions options = LiveOptions();
  uint64_t events = 0;
  for (auto _ : state) {
    warpsim::viz::LiveSession session(kScene, options);
    session.Wait();
    warpsim::viz::RunData data;
    session.Sync(&data);
    if (!data.error.empty()) {
      state.SkipWithError(data.error.c_str());
      return;
    }
    events += data.trace.instructions.size();
  }
  state.counters["frames_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["instruction_events"] = benchmark::Counter(
      static_cast<double>(events), benchmark::Counter::kAvgIterations);
}

// The same frame run by warpsim run --timing --trace-detail instructions
// (no observer): what the live mode adds is the difference.
void BM_TimingFrame256File(benchmark::State& state) {
  warpsim::viz::TuneAllocatorForReruns();
  const warpsim::runner::RunOptions options = LiveOptions();
  for (auto _ : state) {
    auto report = warpsim::runner::RunAmberFile(kScene, options);
    if (report.status != warpsim::runner::RunStatus::kPass) {
      state.SkipWithError("the scene did not pass");
      return;
    }
    benchmark::DoNotOptimize(report.trace.get());
  }
  state.counters["frames_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// Every view's model rebuilt from the frame's trace (what a live view
// redoes at most ten times a second, one view at a time).
void BM_VizModels256(benchmark::State& state) {
  auto report = warpsim::runner::RunAmberFile(kScene, LiveOptions());
  if (report.trace == nullptr) {
    state.SkipWithError("no trace");
    return;
  }
  const warpsim::trace::Trace& t = *report.trace;
  uint64_t now = 0;
  for (const auto& r : t.runs) now = std::max(now, r.end);
  for (auto _ : state) {
    warpsim::viz::Timeline timeline(t, now);
    warpsim::viz::RegisterMap registers(t, now);
    warpsim::viz::PixelMap pixels(t, warpsim::viz::PixelMap::kAllRuns);
    warpsim::viz::ShaderProfile profile = warpsim::viz::ProfileShaders(t);
    benchmark::DoNotOptimize(timeline.lanes().data());
    benchmark::DoNotOptimize(profile.events);
  }
  state.counters["instruction_events"] =
      static_cast<double>(t.instructions.size());
}

// The timeline of a long run: 4 SMs x 64 warp slots each running warps of
// 1000 to 1999 cycles back to back for 10 M cycles (about 2.5 M warp
// spans). One iteration is what the SM timeline asks of its model per drawn
// frame 1200 pixels wide: the segments of every lane, for the whole run
// (range(0) = 0) or for a window of range(0) cycles in its middle.
void BM_TimelineFrame10M(benchmark::State& state) {
  constexpr uint64_t kCycles = 10'000'000;
  warpsim::trace::Trace t;
  t.sms = 4;
  t.sub_partitions = 4;
  t.slots_per_sub_partition = 16;
  t.runs.push_back({"draw 0", 0, kCycles});
  uint64_t warp = 0, seed = 1;
  for (uint32_t sm = 0; sm < 4; ++sm) {
    for (uint32_t sp = 0; sp < 4; ++sp) {
      for (uint32_t slot = 0; slot < 16; ++slot) {
        for (uint64_t c = 0; c < kCycles;) {
          seed = seed * 6364136223846793005ull + 1442695040888963407ull;
          const uint64_t len = 1000 + (seed >> 33) % 1000;
          warpsim::trace::WarpSpan w;
          w.sm = sm;
          w.sub_partition = sp;
          w.slot = slot;
          w.warp = warp++;
          w.begin = c;
          w.end = std::min(kCycles, c + len);
          w.stage = warpsim::trace::Stage::kFragment;
          t.warps.push_back(w);
          c += len;
        }
      }
    }
  }
  const warpsim::viz::Timeline timeline(t, kCycles);
  const double width = 1200;
  const uint64_t window = state.range(0) == 0 ? kCycles : state.range(0);
  const uint64_t a = (kCycles - window) / 2, b = a + window;
  uint64_t segments = 0;
  for (auto _ : state) {
    for (const warpsim::viz::Lane& lane : timeline.lanes()) {
      const size_t k = lane.warps.LevelFor(static_cast<double>(window) / width);
      lane.warps.Visit(k, a, b, [&](const warpsim::viz::Segment& s) {
        segments += 1;
        benchmark::DoNotOptimize(s.key);
      });
    }
  }
  state.counters["spans"] = static_cast<double>(t.warps.size());
  state.counters["lanes"] = static_cast<double>(timeline.lanes().size());
  state.counters["segments_per_frame"] = benchmark::Counter(
      static_cast<double>(segments), benchmark::Counter::kAvgIterations);
}

}  // namespace

BENCHMARK(BM_LiveFrame256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TimingFrame256File)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_VizModels256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TimelineFrame10M)
    ->Arg(0)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);
