// E32: what a loop's trip takes of the issue when many warps share an SM
// (ours; REFERENCE §6 lists E0-E14).
//
// What it measures
//   cuda_ref's E29 and E31 found that with 32 and 64 warps per SM a loop's
//   trip takes more issue slots per warp (cycles per trip x 4
//   sub-partitions / warps) than the loop has instructions in its SASS. The
//   timing model issues one instruction a slot. This experiment finds what
//   takes the other slots: loops of K independent FFMA (4 chains; the FMA
//   pipe issues one a cycle, E3), with and without one more instruction of
//   a kind per trip, at 1, 32 and 64 warps per SM:
//     ffma_kK        K FFMA, the counter's add, the exit compare, the branch
//                    back (K = 8, 16, 32, 64): the slope over K is an FFMA's
//                    slots, the rest the loop's own (3 instructions and
//                    whatever the taken branch takes beyond its slot);
//     ldg_k16        ffma_k16 and one load (ld.global.ca, every lane one
//                    word, an L1 hit) whose value the next trip's FFMA add;
//     imadw_k16      ffma_k16 and one IMAD.WIDE (mul.wide.u32) whose value
//                    the next trip uses;
//     lop_k16        ffma_k16 and one LOP3 (xor.b32);
//     bra_k16        ffma_k16 split in two by a branch always taken over a
//                    block nobody runs (if (x == never) around 24 IMADs,
//                    as E29's: BSSY, BRA, BSYNC).
//   The SASS (cuobjdump, beside the result) gives each loop's instructions.
// How
//   W warps per SM: 1 and 32 (one block per SM, padded with shared memory
//   as in E18) and 64 (two blocks of 1024 threads, 32 registers a thread).
//   Lane 0 of each warp records clock64 before and after the loop; each
//   configuration is launched 4 times (1 warm-up, 3 measured), the median
//   reported.
// Results, per variant and W: cycles_per_trip (the SMs' mean span over the
//   trips), slots_per_warp_trip (that x 4 / W), reps, placement_ok.
//
// Run time (H200): 8 variants x 3 W x 4 launches, each under 20 ms.
#include <algorithm>
#include <utility>
#include <vector>

#include "common.h"

using cuda_ref::Json;

namespace {

using cuda_ref::Ffma;
using cuda_ref::Ffmas;
using cuda_ref::LoadCa;

constexpr int kMeasuredReps = 3;
constexpr uint32_t kTrips = 2048;

using WarpRec = cuda_ref::WarpSpan;

template <int kK>
__device__ __forceinline__ void Mad(uint32_t& acc, uint32_t v) {
  asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(acc) : "r"(v), "n"(kK));
}
template <int... kI>
__device__ __forceinline__ void Mads(uint32_t& acc, uint32_t v,
                                     std::integer_sequence<int, kI...>) {
  (Mad<kI + 1>(acc, v), ...);
}

enum Kind { kFfma, kLdg, kImadWide, kLop, kBra };

template <Kind kKind, int kK>
__global__ void __launch_bounds__(1024, 2)
    SlotKernel(const uint32_t* data, uint32_t never, float a, float b,
               uint32_t trips, float* out, WarpRec* recs) {
  const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  float x[4] = {1.0f + g, 2.0f, 3.0f, 4.0f};
  uint32_t u = data[0];  // 0: the word every load reads
  uint32_t acc = 1;
  __syncwarp();
  const uint64_t c0 = cuda_ref::ClockAfterMemory();
#pragma unroll 1
  for (uint32_t t = 0; t < trips; ++t) {
    if constexpr (kKind == kBra) {
      Ffmas<kK / 2>(x, a, b);
      if (u + t == never) {
        Mads(acc, u, std::make_integer_sequence<int, 24>{});
      }
      Ffmas<kK / 2>(x, a, b);
    } else {
      Ffmas<kK>(x, a, b);
    }
    if constexpr (kKind == kLdg) {
      u = LoadCa(data + (u & 1023));
      x[0] += __uint_as_float(u);
    } else if constexpr (kKind == kImadWide) {
      uint64_t w;
      asm volatile("mul.wide.u32 %0, %1, %2;" : "=l"(w) : "r"(u), "r"(acc));
      u = static_cast<uint32_t>(w >> 32);
    } else if constexpr (kKind == kLop) {
      asm volatile("xor.b32 %0, %0, %1;" : "+r"(u) : "r"(acc));
    }
  }
  out[g] = x[0] + x[1] + x[2] + x[3] + __uint_as_float(u ^ acc);
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

using SlotFn = void (*)(const uint32_t*, uint32_t, float, float, uint32_t,
                        float*, WarpRec*);

struct Variant {
  const char* name;
  const char* extra;  // the instruction added per trip, or "-"
  int ffma;           // FFMA per trip
  SlotFn fn;
};
const Variant kVariants[] = {
    {"ffma_k8", "-", 8, SlotKernel<kFfma, 8>},
    {"ffma_k16", "-", 16, SlotKernel<kFfma, 16>},
    {"ffma_k32", "-", 32, SlotKernel<kFfma, 32>},
    {"ffma_k64", "-", 64, SlotKernel<kFfma, 64>},
    {"ldg_k16", "LDG", 16, SlotKernel<kLdg, 16>},
    {"imadw_k16", "IMAD.WIDE", 16, SlotKernel<kImadWide, 16>},
    {"lop_k16", "LOP3", 16, SlotKernel<kLop, 16>},
    {"bra_k16", "branch around", 16, SlotKernel<kBra, 16>},
};

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E32");
  const int sms = cuda_ref::Attribute(cudaDevAttrMultiProcessorCount);
  const int pad = cuda_ref::OneBlockPerSmBytes();
  const std::vector<int> warps =
      opt.quick ? std::vector<int>{1} : std::vector<int>{1, 32, 64};
  for (const Variant& v : kVariants) {
    cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(v.fn), pad);
  }
  constexpr uint32_t kWords = 1024;
  std::vector<uint32_t> host_data(kWords, 0);  // every load reads word 0
  uint32_t* data = nullptr;
  float* out = nullptr;
  WarpRec* recs = nullptr;
  const size_t max_threads = size_t(sms) * 2048;
  CUDA_CHECK(cudaMalloc(&data, kWords * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemcpy(data, host_data.data(), kWords * sizeof(uint32_t),
                        cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMalloc(&out, max_threads * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&recs, max_threads / 32 * sizeof(WarpRec)));

  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();
  Json results = Json::Array();
  bool all_ok = true;
  for (const Variant& v : kVariants) {
    Json per_w = Json::Array();
    for (const int w : warps) {
      const cuda_ref::TripMeasure m = cuda_ref::MeasureTrips(
          w, sms, pad, kMeasuredReps, kTrips, recs,
          [&](const cuda_ref::TripGrid& g) {
            v.fn<<<g.blocks, g.threads, g.shared>>>(data, 0xffffffffu, 0.999f,
                                                    0.5f, kTrips, out, recs);
          });
      all_ok &= m.placed;
      std::printf(
          "E32 %-13s W=%2d: %8.2f cycles per trip, %6.2f slots per warp "
          "trip%s\n",
          v.name, w, m.median, m.median * 4.0 / w,
          m.placed ? "" : " PLACEMENT FAILED");
      per_w.push_back(cuda_ref::TripRow(w, m));
    }
    Json entry = Json::Object();
    entry["variant"] = v.name;
    entry["extra"] = v.extra;
    entry["ffma"] = v.ffma;
    entry["rows"] = std::move(per_w);
    results.push_back(std::move(entry));
  }
  Json params = Json::Object();
  params["trips"] = static_cast<int>(kTrips);
  params["measured_launches"] = kMeasuredReps;
  params["dynamic_shared_bytes"] = pad;
  Json series = Json::Object();
  series["variants"] = std::move(results);
  cuda_ref::WriteResult(opt, "E32", before, std::move(params),
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
