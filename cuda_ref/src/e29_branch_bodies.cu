// E29: what a branch around a body costs, in SASS one can read (ours;
// REFERENCE §6 lists E0-E14). The CUDA side of vulkan_ref's E27 and E28.
//
// What it measures
//   vulkan_ref's E27 and E28 (fragment shaders on the H200) found that a
//   never-taken `if` whose body the driver's compiler branches around (24
//   or more dependent multiply-adds) costs a trip of a lone warp about 31
//   cycles and, with 64 warps per SM, several issue slots per trip, while
//   a body of 8 or fewer is predicated and issued on every trip. The
//   driver's machine code is not visible there. This experiment runs the
//   same loop as a CUDA kernel, whose SASS (cuobjdump, beside the result)
//   shows what the branch compiles to, and measures it on one warp and on
//   many.
//
// How
//   Each thread walks a chain of dependent loads (ld.global.ca, every
//   lane the same word: data[i] = i, an L1 hit each step) for `trips`
//   trips; after each load, `if (idx == never)` (never taken: `never` is
//   a kernel argument no word equals) or `if (idx != never)` (always
//   taken) runs a body of B dependent multiply-adds
//   `acc = acc * idx + k` (inline PTX mad.lo.u32, SASS IMAD), B = 1, 2,
//   4, 8, 16, 24, 32; `none` has no branch. The condition depends on the
//   loaded word, so the compiler cannot prove it uniform; ptxas decides
//   whether to predicate the body or branch around it (the SASS says).
//   W warps per SM: W = 1 (one block of 32 threads per SM: the trip's
//   latency), 32 (one block of 1024) and 64 (two blocks of 1024, the
//   kernel limited to 32 registers a thread). Blocks of W <= 32 take more
//   than half the SM's shared memory so that each SM gets one (E18's
//   padding). Lane 0 of each warp records clock64 before and after the
//   loop; every configuration is launched 4 times (1 warm-up, 3 measured),
//   the median reported.
//
// Results, per variant ("none", "never_b1" ... "always_b32") and W:
//   cycles_per_trip: the SMs' mean span (last warp end minus first warp
//     start) over `trips`;
//   slots_per_warp_trip: cycles_per_trip x 4 sub-partitions / W (the
//     issue slots a warp's trip takes when the SM's issue is the limit);
//   reps, placement_ok (each SM ran W warps).
//
// Run time (H200): 12 variants x 3 W x 4 launches, each under 10 ms.
#include <algorithm>
#include <utility>
#include <vector>

#include "common.h"

using cuda_ref::Json;

namespace {

using cuda_ref::LoadCa;

constexpr int kMeasuredReps = 3;
constexpr uint32_t kTrips = 4096;
constexpr uint32_t kWords = 64;

using WarpRec = cuda_ref::WarpSpan;

template <int kK>
__device__ __forceinline__ void Mad(uint32_t& acc, uint32_t idx) {
  asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(acc) : "r"(idx), "n"(kK));
}
template <int... kI>
__device__ __forceinline__ void BodyOf(uint32_t& acc, uint32_t idx,
                                       std::integer_sequence<int, kI...>) {
  (Mad<kI + 1>(acc, idx), ...);
}
// kB dependent multiply-adds, acc = acc * idx + k for k = 1..kB.
template <int kB>
__device__ __forceinline__ void Body(uint32_t& acc, uint32_t idx) {
  BodyOf(acc, idx, std::make_integer_sequence<int, kB>{});
}

// kTest: 0 no branch, 1 never taken (idx == never), 2 always (idx != never).
template <int kTest, int kB>
__global__ void __launch_bounds__(1024, 2)
    BranchKernel(const uint32_t* data, uint32_t never, uint32_t trips,
                 uint32_t* out, WarpRec* recs) {
  uint32_t idx = LoadCa(data + (threadIdx.x & (kWords - 1)));
  uint32_t acc = 1;
  __syncwarp();
  const uint64_t c0 = cuda_ref::ClockAfterMemory();
#pragma unroll 1
  for (uint32_t t = 0; t < trips; ++t) {
    idx = LoadCa(data + idx);
    if constexpr (kTest == 1) {
      if (idx == never) Body<kB>(acc, idx);
    } else if constexpr (kTest == 2) {
      if (idx != never) Body<kB>(acc, idx);
    }
  }
  const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
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

using BranchFn = void (*)(const uint32_t*, uint32_t, uint32_t, uint32_t*,
                          WarpRec*);

struct Variant {
  const char* name;
  const char* branch;  // "-", "never", "always"
  int body;
  BranchFn fn;
};

#define E29_NEVER(b) \
  { "never_b" #b, "never", b, BranchKernel<1, b> }
#define E29_ALWAYS(b) \
  { "always_b" #b, "always", b, BranchKernel<2, b> }
const Variant kVariants[] = {{"none", "-", 0, BranchKernel<0, 0>},
                             E29_NEVER(1),
                             E29_NEVER(2),
                             E29_NEVER(4),
                             E29_NEVER(8),
                             E29_NEVER(16),
                             E29_NEVER(24),
                             E29_NEVER(32),
                             E29_ALWAYS(1),
                             E29_ALWAYS(8),
                             E29_ALWAYS(24),
                             E29_ALWAYS(32)};

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E29");
  const int sms = cuda_ref::Attribute(cudaDevAttrMultiProcessorCount);
  const int pad = cuda_ref::OneBlockPerSmBytes();
  const std::vector<int> warps =
      opt.quick ? std::vector<int>{1} : std::vector<int>{1, 32, 64};
  for (const Variant& v : kVariants) {
    cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(v.fn), pad);
  }
  std::vector<uint32_t> host_data(kWords);
  for (uint32_t i = 0; i < kWords; ++i) host_data[i] = i;
  uint32_t* data = nullptr;
  uint32_t* out = nullptr;
  WarpRec* recs = nullptr;
  const size_t max_threads = size_t(sms) * 2048;
  CUDA_CHECK(cudaMalloc(&data, kWords * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemcpy(data, host_data.data(), kWords * sizeof(uint32_t),
                        cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMalloc(&out, max_threads * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&recs, max_threads / 32 * sizeof(WarpRec)));

  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();
  Json results = Json::Array();
  bool all_ok = true;
  for (const Variant& v : kVariants) {
    Json per_w = Json::Array();
    for (const int w : warps) {
      // W <= 32: one block of W warps per SM, padded; 64: two blocks of
      // 1024 threads per SM (32 registers a thread let two fit).
      const int blocks = w <= 32 ? sms : 2 * sms;
      const int threads = w <= 32 ? 32 * w : 1024;
      const int shared = w <= 32 ? pad : 0;
      const size_t n_warps = size_t(blocks) * threads / 32;
      std::vector<double> values;
      bool ok = true;
      for (int rep = 0; rep <= kMeasuredReps; ++rep) {
        CUDA_CHECK(cudaMemset(recs, 0xff, n_warps * sizeof(WarpRec)));
        v.fn<<<blocks, threads, shared>>>(data, 0xffffffffu, kTrips, out, recs);
        CUDA_CHECK_LAUNCH();
        if (rep == 0) continue;  // the warm-up launch
        std::vector<WarpRec> host(n_warps);
        CUDA_CHECK(cudaMemcpy(host.data(), recs, n_warps * sizeof(WarpRec),
                              cudaMemcpyDeviceToHost));
        bool placed = true;
        values.push_back(cuda_ref::MeanSmSpan(host, w, sms, &placed) / kTrips);
        ok &= placed;
      }
      const double median = cuda_ref::Median(values);
      all_ok &= ok;
      Json r = Json::Object();
      r["warps_per_sm"] = w;
      r["cycles_per_trip"] = median;
      r["slots_per_warp_trip"] = median * 4.0 / w;
      r["reps"] = cuda_ref::ArrayOf(values);
      r["placement_ok"] = ok;
      std::printf(
          "E29 %-10s W=%2d: %8.2f cycles per trip, %6.2f slots per "
          "warp trip%s\n",
          v.name, w, median, median * 4.0 / w, ok ? "" : " PLACEMENT FAILED");
      per_w.push_back(std::move(r));
    }
    Json entry = Json::Object();
    entry["variant"] = v.name;
    entry["branch"] = v.branch;
    entry["body"] = v.body;
    entry["rows"] = std::move(per_w);
    results.push_back(std::move(entry));
  }
  Json params = Json::Object();
  params["trips"] = static_cast<int>(kTrips);
  params["words"] = static_cast<int>(kWords);
  params["measured_launches"] = kMeasuredReps;
  params["dynamic_shared_bytes"] = pad;
  Json series = Json::Object();
  series["variants"] = std::move(results);
  cuda_ref::WriteResult(opt, "E29", before, std::move(params),
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
