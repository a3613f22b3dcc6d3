// E19: how fast a sub-partition fetches instructions when a loop's code does
// not fit its instruction cache (ours; REFERENCE §6 lists E0-E14).
//
// What it measures
//   E3's FFMA, FADD and IADD3 chains at ILP 8 issue at 1.14 cycles per
//   instruction where ILP 4 issues at 1.04, although both have enough
//   independent work for one instruction per cycle; their loop bodies are
//   about 34 KB and 18 KB of machine code, and the half-rate IMAD and LOP3
//   chains of the same sizes lose nothing. This experiment sweeps the size
//   of a loop body of independent instructions to find the code size at
//   which issue slows down (the capacity of the sub-partition's L0
//   instruction cache) and the rate at which instructions then arrive.
//
// How
//   One block of W warps per SM (grid = SM count; dynamic shared memory pads
//   each block so that one fits per SM and two do not, as E18; W = 4, 8, 16:
//   1, 2, 4 warps per sub-partition). Each thread runs a loop whose body is
//   N instructions (N from 256 to 8192, 4 to 128 KB of SASS at 16 bytes an
//   instruction), 8 independent chains interleaved so that no instruction
//   waits for another:
//     ffma: fma.rn.f32 x_k, x_k, a, 0.5 (FFMA, one per cycle per
//       sub-partition);
//     imad: mad.lo.u32 i_k, i_k, b, 7 (IMAD, one per two cycles).
//   The loop runs about 2^16 / N times (at least 8), so every thread issues
//   about 65536 instructions of the body. Lane 0 of every warp records
//   clock64 after a __syncthreads() at the start and after storing its
//   result at the end. Every configuration is launched 4 times (1 warm-up,
//   3 measured); the measured launch with the median cycles is reported.
//
// Results, per series ("ffma", "imad") and W, one row per N:
//   body_instructions (N), iterations, sass_bytes_per_body (N x 16),
//   cycles_per_instruction_per_subpartition: over SMs, the mean of the
//     SM's span (last warp end minus first warp start) x 4 / (W x N x
//     iterations): the cycles between two issues of a sub-partition
//     (1.0 for FFMA and 2.0 for IMAD when nothing else limits them);
//   reps: the three measured launches' values.
//   The SASS dump next to the result gives the real size of each kernel's
//   loop (the loop's own branch and counter add a few instructions).
//
// Run time (H200): 2 series x 3 W x 13 N x 4 launches of < 0.2 ms each;
//   a few seconds, most of it the warm-up.
#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <vector>

#include "common.h"

using cuda_ref::Json;

namespace {

constexpr int kMeasuredReps = 3;
constexpr uint32_t kInstructionsPerThread = 65536;

using WarpRec = cuda_ref::WarpSpan;

#define E19_FFMA(x) \
  asm volatile("fma.rn.f32 %0, %0, %1, 0f3F000000;" : "+f"(x) : "f"(a))
#define E19_IMAD(x) asm volatile("mad.lo.u32 %0, %0, %1, 7;" : "+r"(x) : "r"(b))

template <bool kImad, uint32_t kBody>
__global__ void __launch_bounds__(1024, 1)
    FetchKernel(float a, uint32_t b, uint32_t iterations, uint32_t* out,
                WarpRec* recs) {
  const uint32_t seed = threadIdx.x;
  float x0 = __uint_as_float(0x3f800000u + seed), x1 = x0 + 1, x2 = x0 + 2,
        x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;
  uint32_t i0 = seed, i1 = seed + 1, i2 = seed + 2, i3 = seed + 3,
           i4 = seed + 4, i5 = seed + 5, i6 = seed + 6, i7 = seed + 7;
  __syncthreads();
  const uint64_t c0 = cuda_ref::ClockAfterMemory();
#pragma unroll 1
  for (uint32_t it = 0; it < iterations; ++it) {
#pragma unroll
    for (uint32_t s = 0; s < kBody / 8; ++s) {
      if constexpr (kImad) {
        E19_IMAD(i0);
        E19_IMAD(i1);
        E19_IMAD(i2);
        E19_IMAD(i3);
        E19_IMAD(i4);
        E19_IMAD(i5);
        E19_IMAD(i6);
        E19_IMAD(i7);
      } else {
        E19_FFMA(x0);
        E19_FFMA(x1);
        E19_FFMA(x2);
        E19_FFMA(x3);
        E19_FFMA(x4);
        E19_FFMA(x5);
        E19_FFMA(x6);
        E19_FFMA(x7);
      }
    }
  }
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = kImad ? i0 ^ i1 ^ i2 ^ i3 ^ i4 ^ i5 ^ i6 ^ i7
                 : __float_as_uint(x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7);
  const uint64_t c1 = cuda_ref::ClockAfterMemory();
  if ((threadIdx.x & 31) == 0) {
    WarpRec r;
    r.smid = cuda_ref::SmId();
    r.pad = 0;
    r.c0 = c0;
    r.c1 = c1;
    recs[t / 32] = r;
  }
  __syncthreads();
}

using FetchFn = void (*)(float, uint32_t, uint32_t, uint32_t*, WarpRec*);

struct Size {
  uint32_t body;
  FetchFn ffma, imad;
};

#define E19_SIZE(n) \
  { n, FetchKernel<false, n>, FetchKernel<true, n> }
const Size kSizes[] = {E19_SIZE(256),  E19_SIZE(512),  E19_SIZE(768),
                       E19_SIZE(1024), E19_SIZE(1280), E19_SIZE(1536),
                       E19_SIZE(1792), E19_SIZE(2048), E19_SIZE(2560),
                       E19_SIZE(3072), E19_SIZE(4096), E19_SIZE(6144),
                       E19_SIZE(8192)};

// Mean over SMs of the SM's span x 4 / (warps x instructions); false in
// *ok when a block did not get an SM of its own.
double CyclesPerInstruction(const std::vector<WarpRec>& recs, int warps,
                            int sms, double instructions_per_warp, bool* ok) {
  return cuda_ref::MeanSmSpan(recs, warps, sms, ok) * 4.0 /
         (warps * instructions_per_warp);
}

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E19");
  const int sms = cuda_ref::Attribute(cudaDevAttrMultiProcessorCount);
  const int pad = cuda_ref::OneBlockPerSmBytes();
  const std::vector<int> warps =
      opt.quick ? std::vector<int>{4} : std::vector<int>{4, 8, 16};
  for (const Size& s : kSizes) {
    for (FetchFn fn : {s.ffma, s.imad}) {
      cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(fn), pad);
    }
  }
  uint32_t* out = nullptr;
  WarpRec* recs = nullptr;
  CUDA_CHECK(cudaMalloc(&out, size_t(sms) * 1024 * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&recs, size_t(sms) * 32 * sizeof(WarpRec)));

  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();
  Json results = Json::Object();
  bool all_ok = true;
  for (const char* series : {"ffma", "imad"}) {
    const bool imad = std::string(series) == "imad";
    Json per_w = Json::Array();
    for (const int w : warps) {
      Json rows = Json::Array();
      for (const Size& s : kSizes) {
        const uint32_t iterations =
            std::max<uint32_t>(8, kInstructionsPerThread / s.body);
        const FetchFn fn = imad ? s.imad : s.ffma;
        std::vector<double> values;
        bool ok = true;
        for (int rep = 0; rep <= kMeasuredReps; ++rep) {
          CUDA_CHECK(
              cudaMemset(recs, 0xff, size_t(sms) * 32 * sizeof(WarpRec)));
          fn<<<sms, 32 * w, pad>>>(0.999f, 3u, iterations, out, recs);
          CUDA_CHECK_LAUNCH();
          if (rep == 0) continue;  // the warm-up launch
          std::vector<WarpRec> host(size_t(sms) * w);
          CUDA_CHECK(cudaMemcpy(host.data(), recs,
                                host.size() * sizeof(WarpRec),
                                cudaMemcpyDeviceToHost));
          bool placed = true;
          values.push_back(CyclesPerInstruction(
              host, w, sms, double(s.body) * iterations, &placed));
          ok &= placed;
        }
        std::vector<double> sorted = values;
        std::sort(sorted.begin(), sorted.end());
        const double median = sorted[sorted.size() / 2];
        all_ok &= ok;
        Json r = Json::Object();
        r["body_instructions"] = static_cast<int>(s.body);
        r["iterations"] = static_cast<int>(iterations);
        r["sass_bytes_per_body"] = static_cast<int>(s.body * 16);
        r["cycles_per_instruction_per_subpartition"] = median;
        Json reps = Json::Array();
        for (double v : values) reps.push_back(v);
        r["reps"] = std::move(reps);
        r["placement_ok"] = ok;
        std::printf("E19 %s W=%2d N=%5u (%3u KB): %.3f cycles/instruction%s\n",
                    series, w, s.body, s.body * 16 / 1024, median,
                    ok ? "" : " PLACEMENT FAILED");
        rows.push_back(std::move(r));
      }
      Json entry = Json::Object();
      entry["warps_per_sm"] = w;
      entry["rows"] = std::move(rows);
      per_w.push_back(std::move(entry));
    }
    results[series] = std::move(per_w);
  }
  Json params = Json::Object();
  params["instructions_per_thread_target"] =
      static_cast<int>(kInstructionsPerThread);
  params["blocks"] = sms;
  params["dynamic_shared_bytes"] = pad;
  params["measured_launches"] = kMeasuredReps;
  params["chains_per_thread"] = 8;
  cuda_ref::WriteResult(opt, "E19", before, std::move(params),
                        std::move(results));
  CUDA_CHECK(cudaFree(out));
  CUDA_CHECK(cudaFree(recs));
  if (!all_ok) {
    std::printf("PLACEMENT FAILED\n");
    return 4;
  }
  return 0;
}
