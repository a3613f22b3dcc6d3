// E30: the waits around a branch, timed apart (ours; REFERENCE §6 lists
// E0-E14). E29's one-warp loops time a compare's predicate and the branch
// after it only together; these loops take them apart.
//
// What it measures (one warp per SM, a loop of `trips` trips, every chain
// dependent, the loop's own counter and exit compare independent of it)
//   lop8, lop16: 8 and 16 dependent LOP3 (xor.b32 by a kernel argument)
//     per trip, then the loop's branch back. lop16 - lop8 is 8 LOP3
//     latencies; lop8 - 8 of them is what the branch back adds to a trip
//     whose next instruction waits only for the last LOP3.
//   sel8: 8 steps per trip of x = (x == k) ? x ^ a : x ^ b (setp.eq then
//     selp in PTX: ISETP writing a predicate, SEL reading it; the SASS says
//     what ptxas made of it). sel8 - lop8 over 8: what a step through a
//     predicate takes beyond a LOP3.
//   skip8: lop8, then if (x == never) around 24 dependent IMADs (never
//     taken: ptxas branches around them with BSSY and BSYNC, as E29's
//     never_b24). skip8 - lop8: the compare, the branch around and BSYNC.
// Each kernel: one block of 32 threads per SM (padded with shared memory
// so that each SM gets one, E18's padding); lane 0 records clock64 before
// and after the loop; 4 launches (1 warm-up, 3 measured), the median of
// the SMs' mean cycles per trip.
//
// Results: "loops": [{"name", "cycles_per_trip", "reps", "placement_ok"}].
#include <algorithm>
#include <utility>
#include <vector>

#include "common.h"

using cuda_ref::Json;

namespace {

constexpr int kMeasuredReps = 3;
constexpr uint32_t kTrips = 8192;

using WarpRec = cuda_ref::WarpSpan;

__device__ __forceinline__ void Lop(uint32_t& x, uint32_t a) {
  asm volatile("xor.b32 %0, %0, %1;" : "+r"(x) : "r"(a));
}
__device__ __forceinline__ void Sel(uint32_t& x, uint32_t k, uint32_t a,
                                    uint32_t b) {
  asm volatile(
      "{\n .reg .pred p;\n .reg .b32 t, u;\n setp.eq.u32 p, %0, %1;\n"
      " xor.b32 t, %0, %2;\n xor.b32 u, %0, %3;\n selp.b32 %0, t, u, p;\n}"
      : "+r"(x)
      : "r"(k), "r"(a), "r"(b));
}
template <int kK>
__device__ __forceinline__ void Mad(uint32_t& acc, uint32_t x) {
  asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(acc) : "r"(x), "n"(kK));
}
template <int... kI>
__device__ __forceinline__ void Mads(uint32_t& acc, uint32_t x,
                                     std::integer_sequence<int, kI...>) {
  (Mad<kI + 1>(acc, x), ...);
}

// kKind: 0 lop8, 1 lop16, 2 sel8, 3 skip8.
template <int kKind>
__global__ void __launch_bounds__(32, 1)
    WaitKernel(uint32_t a, uint32_t b, uint32_t never, uint32_t trips,
               uint32_t* out, WarpRec* recs) {
  uint32_t x = threadIdx.x * 2654435761u;
  uint32_t acc = 1;
  __syncwarp();
  const uint64_t c0 = cuda_ref::Clock64();
#pragma unroll 1
  for (uint32_t t = 0; t < trips; ++t) {
    if constexpr (kKind == 2) {
#pragma unroll
      for (int i = 0; i < 8; ++i) Sel(x, never, a, b);
    } else {
#pragma unroll
      for (int i = 0; i < (kKind == 1 ? 16 : 8); ++i) Lop(x, a);
    }
    if constexpr (kKind == 3) {
      if (x == never) Mads(acc, x, std::make_integer_sequence<int, 24>{});
    }
  }
  const uint64_t c1 = cuda_ref::Clock64();
  const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  out[g] = x ^ acc;
  if ((threadIdx.x & 31) == 0) {
    WarpRec r;
    r.smid = cuda_ref::SmId();
    r.pad = 0;
    r.c0 = c0;
    r.c1 = c1;
    recs[g / 32] = r;
  }
}

using WaitFn = void (*)(uint32_t, uint32_t, uint32_t, uint32_t, uint32_t*,
                        WarpRec*);

struct Loop {
  const char* name;
  WaitFn fn;
};
const Loop kLoops[] = {{"lop8", WaitKernel<0>},
                       {"lop16", WaitKernel<1>},
                       {"sel8", WaitKernel<2>},
                       {"skip8", WaitKernel<3>}};

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E30");
  const int sms = cuda_ref::Attribute(cudaDevAttrMultiProcessorCount);
  const int pad = cuda_ref::OneBlockPerSmBytes();
  for (const Loop& l : kLoops) {
    cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(l.fn), pad);
  }
  uint32_t* out = nullptr;
  WarpRec* recs = nullptr;
  CUDA_CHECK(cudaMalloc(&out, size_t(sms) * 32 * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&recs, size_t(sms) * sizeof(WarpRec)));
  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();
  Json loops = Json::Array();
  bool all_ok = true;
  const uint32_t trips = opt.quick ? 256 : kTrips;
  for (const Loop& l : kLoops) {
    std::vector<double> values;
    bool ok = true;
    for (int rep = 0; rep <= kMeasuredReps; ++rep) {
      CUDA_CHECK(cudaMemset(recs, 0xff, size_t(sms) * sizeof(WarpRec)));
      l.fn<<<sms, 32, pad>>>(0x9e3779b9u, 0x7f4a7c15u, 0xffffffffu, trips, out,
                             recs);
      CUDA_CHECK_LAUNCH();
      if (rep == 0) continue;  // the warm-up launch
      std::vector<WarpRec> host(sms);
      CUDA_CHECK(cudaMemcpy(host.data(), recs, host.size() * sizeof(WarpRec),
                            cudaMemcpyDeviceToHost));
      bool placed = true;
      values.push_back(cuda_ref::MeanSmSpan(host, 1, sms, &placed) / trips);
      ok &= placed;
    }
    const double median = cuda_ref::Median(values);
    all_ok &= ok;
    Json r = Json::Object();
    r["name"] = l.name;
    r["cycles_per_trip"] = median;
    r["reps"] = cuda_ref::ArrayOf(values);
    r["placement_ok"] = ok;
    std::printf("E30 %-6s %8.2f cycles per trip%s\n", l.name, median,
                ok ? "" : " PLACEMENT FAILED");
    loops.push_back(std::move(r));
  }
  Json params = Json::Object();
  params["trips"] = static_cast<int>(trips);
  params["measured_launches"] = kMeasuredReps;
  params["dynamic_shared_bytes"] = pad;
  Json results = Json::Object();
  results["loops"] = std::move(loops);
  cuda_ref::WriteResult(opt, "E30", before, std::move(params),
                        std::move(results));
  CUDA_CHECK(cudaFree(out));
  CUDA_CHECK(cudaFree(recs));
  if (!all_ok) {
    std::printf("PLACEMENT FAILED\n");
    return 4;
  }
  return 0;
}
