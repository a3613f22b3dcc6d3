// E31: a chain of dependent loads with a branch in its loop, walked the way
// samples/timing_families' register_pressure walks it (ours; REFERENCE §6
// lists E0-E14). The CUDA side of that family's loop.
//
// What it measures
//   register_pressure's fragment loop loads the next word of a buffer
//   (data[i] = i + 1, every lane of a warp the same word), then tests the
//   loaded word against a value nobody holds and branches around a body.
//   vulkan_ref's E24 found a step to the next word of the same sector
//   slower than a step to the next line; cuda_ref's E30 timed a compare's
//   predicate, a branch and BSYNC on loops without loads. Whether those
//   waits add to the load's in such a loop, or overlap it, no experiment
//   has timed; the timing model adds them, and its register_pressure draws
//   come out slower than the H200's when it does. This experiment times
//   the loop itself, on one warp and on more, with its SASS beside it.
//
// How
//   Each thread walks `trips` steps idx = data[idx] (ld.global.ca, an L1
//   hit each step; every lane of a warp the same address: idx starts at
//   the warp's number, loaded). Walks: `same` (data[i] = i: the same word
//   every step), `next` (data[i] = i + 1: the next word, a new sector
//   every 8 steps), `line` (data[i] = i + 32: the next 128-byte line).
//   Bodies after each load: `none`; `never_b1`: if (idx == never) one
//   multiply-add (ptxas predicates it, E29); `never_b24`: the same test
//   around 24 dependent multiply-adds (ptxas branches around it, with
//   BSSY/BSYNC, E29). `never` is a kernel argument no word equals.
//   W warps per SM: 1, 16 and 32 (one block per SM, padded with shared memory
//   as in E18) and 64 (two blocks of 1024 threads, 32 registers a thread).
//   Lane 0 of each warp records clock64 before and after the loop; each
//   configuration is launched 4 times (1 warm-up, 3 measured), the median
//   reported.
//
// Results, per walk and body, per W:
//   cycles_per_trip: the SMs' mean span (last warp end minus first warp
//     start) over `trips`; slots_per_warp_trip: that x 4 / W; reps,
//     placement_ok (each SM ran W warps).
//
// Run time (H200): 9 variants x 4 W x 4 launches, each under 20 ms.
#include <algorithm>
#include <utility>
#include <vector>

#include "common.h"

using cuda_ref::Json;

namespace {

constexpr int kMeasuredReps = 3;
constexpr uint32_t kTrips = 4096;
// Words in the buffer: every walk stays inside it (index & kMask), and the
// whole buffer (16 KB) fits the L1 after the warm-up launch, even beside
// the largest shared-memory carve-out (the padded launches ask for more
// than half the SM's shared memory, which leaves the L1 about 28 KB).
constexpr uint32_t kWords = 4096;
constexpr uint32_t kMask = kWords - 1;

using WarpRec = cuda_ref::WarpSpan;

__device__ __forceinline__ uint32_t LoadCa(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

template <int kK>
__device__ __forceinline__ void Mad(uint32_t& acc, uint32_t idx) {
  asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(acc) : "r"(idx), "n"(kK));
}
template <int... kI>
__device__ __forceinline__ void BodyOf(uint32_t& acc, uint32_t idx,
                                       std::integer_sequence<int, kI...>) {
  (Mad<kI + 1>(acc, idx), ...);
}

// kB == 0: no test; else if (idx == never) kB dependent multiply-adds.
template <int kB>
__global__ void __launch_bounds__(1024, 2)
    ChaseKernel(const uint32_t* data, uint32_t never, uint32_t trips,
                uint32_t* out, WarpRec* recs) {
  const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  // The warp's number, through memory: every lane the same index, which
  // the compiler cannot prove uniform.
  uint32_t idx = LoadCa(data + ((g / 32) & 63)) & kMask;
  uint32_t acc = 1;
  __syncwarp();
  const uint64_t c0 = cuda_ref::ClockAfterMemory();
#pragma unroll 1
  for (uint32_t t = 0; t < trips; ++t) {
    const uint32_t next = LoadCa(data + idx);
    if constexpr (kB > 0) {
      if (next == never) {
        BodyOf(acc, next, std::make_integer_sequence<int, kB>{});
      }
    }
    idx = next & kMask;
  }
  out[g] = idx ^ acc;
  const uint64_t c1 = cuda_ref::ClockAfterMemory();
  if ((threadIdx.x & 31) == 0) {
    WarpRec r;
    r.smid = cuda_ref::SmId();
    r.pad = 0;
    r.c0 = c0;
    r.c1 = c1;
    recs[g / 32] = r;
  }
}

using ChaseFn = void (*)(const uint32_t*, uint32_t, uint32_t, uint32_t*,
                         WarpRec*);

struct Walk {
  const char* name;
  uint32_t step;  // data[i] = (i + step) & kMask
};
const Walk kWalks[] = {{"same", 0}, {"next", 1}, {"line", 32}};

struct Body {
  const char* name;
  int multiply_adds;
  ChaseFn fn;
};
const Body kBodies[] = {{"none", 0, ChaseKernel<0>},
                        {"never_b1", 1, ChaseKernel<1>},
                        {"never_b24", 24, ChaseKernel<24>}};

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E31");
  const int sms = cuda_ref::Attribute(cudaDevAttrMultiProcessorCount);
  const int pad = cuda_ref::OneBlockPerSmBytes();
  const std::vector<int> warps =
      opt.quick ? std::vector<int>{1} : std::vector<int>{1, 16, 32, 64};
  for (const Body& b : kBodies) {
    cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(b.fn), pad);
  }
  uint32_t* data = nullptr;
  uint32_t* out = nullptr;
  WarpRec* recs = nullptr;
  const size_t max_threads = size_t(sms) * 2048;
  CUDA_CHECK(cudaMalloc(&data, kWords * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&out, max_threads * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&recs, max_threads / 32 * sizeof(WarpRec)));

  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();
  Json results = Json::Array();
  bool all_ok = true;
  std::vector<uint32_t> host_data(kWords);
  for (const Walk& walk : kWalks) {
    for (uint32_t i = 0; i < kWords; ++i) {
      host_data[i] = (i + walk.step) & kMask;
    }
    CUDA_CHECK(cudaMemcpy(data, host_data.data(), kWords * sizeof(uint32_t),
                          cudaMemcpyHostToDevice));
    for (const Body& b : kBodies) {
      Json per_w = Json::Array();
      for (const int w : warps) {
        const cuda_ref::TripMeasure m =
            cuda_ref::MeasureTrips(w, sms, pad, kMeasuredReps, kTrips, recs,
                                   [&](const cuda_ref::TripGrid& g) {
                                     b.fn<<<g.blocks, g.threads, g.shared>>>(
                                         data, 0xffffffffu, kTrips, out, recs);
                                   });
        all_ok &= m.placed;
        std::printf(
            "E31 %-4s %-9s W=%2d: %8.2f cycles per trip, %6.2f slots per "
            "warp trip%s\n",
            walk.name, b.name, w, m.median, m.median * 4.0 / w,
            m.placed ? "" : " PLACEMENT FAILED");
        per_w.push_back(cuda_ref::TripRow(w, m));
      }
      Json entry = Json::Object();
      entry["walk"] = walk.name;
      entry["step_words"] = static_cast<int>(walk.step);
      entry["body"] = b.name;
      entry["multiply_adds"] = b.multiply_adds;
      entry["rows"] = std::move(per_w);
      results.push_back(std::move(entry));
    }
  }
  Json params = Json::Object();
  params["trips"] = static_cast<int>(kTrips);
  params["words"] = static_cast<int>(kWords);
  params["measured_launches"] = kMeasuredReps;
  params["dynamic_shared_bytes"] = pad;
  Json series = Json::Object();
  series["variants"] = std::move(results);
  cuda_ref::WriteResult(opt, "E31", before, std::move(params),
                        std::move(series));
  CUDA_CHECK(cudaFree(data));
  CUDA_CHECK(cudaFree(out));
  CUDA_CHECK(cudaFree(recs));
  if (!all_ok) {
    std::printf("PLACEMENT FAILED\n");
    return 4;
  }
  return 0;
}
