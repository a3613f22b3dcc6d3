// E20: how many cycles a warp's global load occupies the SM's L1 when its
// lanes' addresses fall in k different 128-byte lines (ours; REFERENCE §6
// lists E0-E14).
//
// What it measures
//   E5 gives the L2 and HBM bandwidth of coalesced loads, E2 the latency of
//   one lane's chain. Neither says what a load costs whose 32 lanes read
//   words scattered over many lines, all of them L1 hits: whether the L1
//   answers such a load at once, or one line (or one 32-byte sector) per
//   cycle. Fragment shaders that read buffers at per-pixel addresses
//   (samples/timing_families/memory_loads.amber) issue such loads.
//
// How
//   One block of W warps per SM (grid = SM count; dynamic shared memory pads
//   each block so that one fits per SM and two do not, as E18; W = 8, 16,
//   32). Every thread runs a loop of 8 independent loads
//   (ld.global.ca.u32, asm volatile: none is merged, hoisted or dropped)
//   whose addresses it computed before the loop, xoring the words into 8
//   accumulators, iterations times. The words are in a 4 KB array (32
//   lines), read once before the timed loop, so every load hits the L1.
//   Lane l of load j reads line (l mod k + j) mod 32 of the array, k = 1,
//   2, 4, 8, 16, 32: a warp load touches k lines, 32 / k lanes in each:
//     packed: those lanes read consecutive words (the line's first 128 / k
//       bytes: ceil(4 / k) sectors per line, 1 from k = 4 on);
//     spread: they read words 128 / (32 / k) bytes apart (min(4, 32 / k)
//       sectors per line: at k = 8, 32 sectors in 8 lines).
//   Lane 0 of every warp records clock64 after a __syncthreads() at the
//   start and after its last load's value is used. Every configuration is
//   launched 4 times (1 warm-up, 3 measured); the measured launch with the
//   median figure is reported.
//
//   The L2 series ("l2_packed", "l2_spread") time the same loads when they
//   miss the L1: ld.global.cg (not cached in L1) from a 16 MB ring held in
//   the L2, each warp load a group of 32 lines of its own (lane l reads
//   line l mod k of it, packed or spread as above), 32 warps per SM, on 4
//   SMs (blocks = 4, as many as run a draw's fragment shaders on the H200:
//   vulkan_ref FINDINGS Q1) and on every SM: whether the SM sends the L2
//   one request per line, and how fast. "l2ca_*" are the same with
//   ld.global.ca (cached in L1, missing it), "l2nc_packed" with
//   ld.global.nc (the read-only path); the "*_hashed_packed" series put
//   each of a load's k lines at a multiplicative hash of its group line
//   anywhere in the ring instead of in the group's 4 KB (scattered reads).
//
// Results, per series ("packed", "spread") and W, one row per k:
//   lines (k), sectors_per_load, cycles_per_load_per_sm: over SMs, the mean
//   of the SM's span (last warp end minus first warp start) / (W x loads
//   per warp): the cycles between two warp loads of one SM when W warps
//   keep it busy; reps: the three measured launches' values.
//
//   L2 series: per series and blocks (4, SM count), the same rows.
//
// Run time (H200): 4 series x 3 W or 2 grids x 6 k x 4 launches of a few
// ms at most; seconds.
#include <algorithm>
#include <functional>
#include <vector>

#include "common.h"

using cuda_ref::Json;

namespace {

constexpr int kMeasuredReps = 3;
constexpr uint32_t kArrayWords = 1024;  // 4 KB, 32 lines
constexpr uint32_t kLoadsPerThread = 8 * 1024;
constexpr uint32_t kRingLines = 131072;  // 16 MB: in the L2
constexpr uint32_t kMissLoadsPerThread = 2048;

using WarpRec = cuda_ref::WarpSpan;

__device__ __forceinline__ uint32_t LoadCa(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

// The word lane `lane` reads in load j: line (lane mod k + j) mod 32; in
// the line, word lane / k (packed) or (lane / k) x (32 / m) with m = 32 / k
// lanes per line (spread).
__device__ __forceinline__ uint32_t Word(uint32_t lane, uint32_t j, uint32_t k,
                                         bool spread) {
  const uint32_t line = (lane % k + j) % 32;
  const uint32_t m = 32 / k;
  const uint32_t word = spread ? (lane / k) * (32 / m) : lane / k;
  return line * 32 + word;
}

__global__ void __launch_bounds__(1024, 1)
    LinesKernel(const uint32_t* data, uint32_t k, uint32_t spread,
                uint32_t iterations, uint32_t* out, WarpRec* recs) {
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t* p0 = data + Word(lane, 0, k, spread);
  const uint32_t* p1 = data + Word(lane, 1, k, spread);
  const uint32_t* p2 = data + Word(lane, 2, k, spread);
  const uint32_t* p3 = data + Word(lane, 3, k, spread);
  const uint32_t* p4 = data + Word(lane, 4, k, spread);
  const uint32_t* p5 = data + Word(lane, 5, k, spread);
  const uint32_t* p6 = data + Word(lane, 6, k, spread);
  const uint32_t* p7 = data + Word(lane, 7, k, spread);
  // Bring the array into this SM's L1 (every thread a few words).
  uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
  for (uint32_t w = threadIdx.x; w < kArrayWords; w += blockDim.x) {
    a0 ^= LoadCa(data + w);
  }
  __syncthreads();
  const uint64_t c0 = cuda_ref::ClockAfterMemory();
#pragma unroll 1
  for (uint32_t it = 0; it < iterations; ++it) {
    a0 ^= LoadCa(p0);
    a1 ^= LoadCa(p1);
    a2 ^= LoadCa(p2);
    a3 ^= LoadCa(p3);
    a4 ^= LoadCa(p4);
    a5 ^= LoadCa(p5);
    a6 ^= LoadCa(p6);
    a7 ^= LoadCa(p7);
  }
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7;
  const uint64_t c1 = cuda_ref::ClockAfterMemory();
  if (lane == 0) {
    WarpRec r;
    r.smid = cuda_ref::SmId();
    r.pad = 0;
    r.c0 = c0;
    r.c1 = c1;
    recs[t / 32] = r;
  }
  __syncthreads();
}

__device__ __forceinline__ uint32_t LoadCg(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

// ld.global.nc: the read-only (texture) path, which a compiler may take
// for a buffer the shader only reads.
__device__ __forceinline__ uint32_t LoadNc(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

enum LoadKind { kCg = 0, kCa = 1, kNc = 2 };

// The ring line of group line x: x itself, or (kHashed) x's multiplicative
// hash, so that a load's 32 lines lie anywhere in the ring rather than in
// 4 KB of consecutive lines.
template <bool kHashed>
__device__ __forceinline__ uint32_t RingLine(uint32_t x, uint32_t ring_lines) {
  if (kHashed) x = (x * 2654435761u) >> 15;
  return x & (ring_lines - 1);
}

// The L2 series: each warp load reads a group of 32 lines of its own in a
// 16 MB ring (L2-resident, ld.global.cg: no L1), lane l line l mod k of
// the group, packed or spread in the line as above.
template <int kKind, bool kHashed>
__global__ void __launch_bounds__(1024, 1)
    MissKernel(const uint32_t* ring, uint32_t ring_lines, uint32_t k,
               uint32_t spread, uint32_t iterations, uint32_t* out,
               WarpRec* recs) {
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t m = 32 / k;
  const uint32_t word = spread ? (lane / k) * (32 / m) : lane / k;
  const uint32_t line = lane % k;
  const uint32_t warp = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  uint32_t group = warp * iterations * 8;
  uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
  __syncthreads();
  const uint64_t c0 = cuda_ref::ClockAfterMemory();
#define E20_AT(j) \
  (ring + RingLine<kHashed>((group + (j)) * 32 + line, ring_lines) * 32 + word)
#define E20_LOAD(j)                   \
  (kKind == kCa   ? LoadCa(E20_AT(j)) \
   : kKind == kNc ? LoadNc(E20_AT(j)) \
                  : LoadCg(E20_AT(j)))
#pragma unroll 1
  for (uint32_t it = 0; it < iterations; ++it, group += 8) {
    a0 ^= E20_LOAD(0);
    a1 ^= E20_LOAD(1);
    a2 ^= E20_LOAD(2);
    a3 ^= E20_LOAD(3);
    a4 ^= E20_LOAD(4);
    a5 ^= E20_LOAD(5);
    a6 ^= E20_LOAD(6);
    a7 ^= E20_LOAD(7);
  }
#undef E20_AT
#undef E20_LOAD
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7;
  const uint64_t c1 = cuda_ref::ClockAfterMemory();
  if (lane == 0) {
    WarpRec r;
    r.smid = cuda_ref::SmId();
    r.pad = 0;
    r.c0 = c0;
    r.c1 = c1;
    recs[t / 32] = r;
  }
  __syncthreads();
}

// Mean over SMs of the SM's span / (warps x loads); false in *ok when a
// block did not get an SM of its own.
double CyclesPerLoad(const std::vector<WarpRec>& recs, int warps, int sms,
                     double loads_per_warp, bool* ok) {
  return cuda_ref::MeanSmSpan(recs, warps, sms, ok) / (warps * loads_per_warp);
}

uint32_t SectorsPerLoad(uint32_t k, bool spread) {
  const uint32_t m = 32 / k;  // lanes per line
  const uint32_t per_line =
      spread ? std::min<uint32_t>(4, m) : (m * 4 + 31) / 32;
  return k * per_line;
}

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E20");
  const int sms = cuda_ref::Attribute(cudaDevAttrMultiProcessorCount);
  const int pad = cuda_ref::OneBlockPerSmBytes();
  const std::vector<int> warps =
      opt.quick ? std::vector<int>{8} : std::vector<int>{8, 16, 32};
  const uint32_t ks[] = {1, 2, 4, 8, 16, 32};
  cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(LinesKernel), pad);
  uint32_t* data = nullptr;
  uint32_t* out = nullptr;
  WarpRec* recs = nullptr;
  std::vector<uint32_t> words(kArrayWords);
  for (uint32_t i = 0; i < kArrayWords; ++i) words[i] = i * 2654435761u;
  CUDA_CHECK(cudaMalloc(&data, kArrayWords * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemcpy(data, words.data(), kArrayWords * sizeof(uint32_t),
                        cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMalloc(&out, size_t(sms) * 1024 * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&recs, size_t(sms) * 32 * sizeof(WarpRec)));

  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();
  Json results = Json::Object();
  bool all_ok = true;
  // One row: `launch` run 1 + kMeasuredReps times on `blocks` blocks of
  // `w` warps, each thread issuing `loads`; the median cycles per load.
  auto row = [&](const std::function<void()>& launch, int blocks, int w,
                 double loads, uint32_t k, bool spread, double* median,
                 bool* placed_ok) {
    std::vector<double> values;
    bool ok = true;
    for (int rep = 0; rep <= kMeasuredReps; ++rep) {
      CUDA_CHECK(cudaMemset(recs, 0xff, size_t(sms) * 32 * sizeof(WarpRec)));
      launch();
      CUDA_CHECK_LAUNCH();
      if (rep == 0) continue;  // the warm-up launch
      std::vector<WarpRec> host(size_t(blocks) * w);
      CUDA_CHECK(cudaMemcpy(host.data(), recs, host.size() * sizeof(WarpRec),
                            cudaMemcpyDeviceToHost));
      bool placed = true;
      values.push_back(CyclesPerLoad(host, w, blocks, loads, &placed));
      ok &= placed;
    }
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    all_ok &= ok;
    *median = sorted[sorted.size() / 2];
    *placed_ok = ok;
    Json r = Json::Object();
    r["lines"] = static_cast<int>(k);
    r["sectors_per_load"] = static_cast<int>(SectorsPerLoad(k, spread));
    r["cycles_per_load_per_sm"] = *median;
    Json reps = Json::Array();
    for (double v : values) reps.push_back(v);
    r["reps"] = std::move(reps);
    r["placement_ok"] = ok;
    return r;
  };
  const uint32_t iterations = kLoadsPerThread / 8;
  for (const char* series : {"packed", "spread"}) {
    const bool spread = std::string(series) == "spread";
    Json per_w = Json::Array();
    for (const int w : warps) {
      Json rows = Json::Array();
      for (const uint32_t k : ks) {
        double median = 0;
        bool ok = true;
        Json r = row(
            [&] {
              LinesKernel<<<sms, 32 * w, pad>>>(data, k, spread ? 1 : 0,
                                                iterations, out, recs);
            },
            sms, w, double(kLoadsPerThread), k, spread, &median, &ok);
        std::printf("E20 %s W=%2d k=%2u (%2u sectors): %.3f cycles/load/SM%s\n",
                    series, w, k, SectorsPerLoad(k, spread), median,
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
  // The L2 series: 32 warps per SM on 4 SMs (as many as run a draw's
  // fragment shaders) and on every SM.
  uint32_t* ring = nullptr;
  CUDA_CHECK(cudaMalloc(&ring, size_t(kRingLines) * 128));
  CUDA_CHECK(cudaMemset(ring, 1, size_t(kRingLines) * 128));
  const int miss_warps = 32;
  const uint32_t miss_iterations = kMissLoadsPerThread / 8;
  using Kernel = void (*)(const uint32_t*, uint32_t, uint32_t, uint32_t,
                          uint32_t, uint32_t*, WarpRec*);
  struct Series {
    const char* name;
    Kernel kernel;
  };
  const Series all_series[] = {
      {"l2_packed", MissKernel<kCg, false>},
      {"l2_spread", MissKernel<kCg, false>},
      {"l2ca_packed", MissKernel<kCa, false>},
      {"l2ca_spread", MissKernel<kCa, false>},
      // ld.global.nc, and the lines hashed over the ring (a fragment
      // shader's scattered reads of a read-only buffer).
      {"l2nc_packed", MissKernel<kNc, false>},
      {"l2_hashed_packed", MissKernel<kCg, true>},
      {"l2ca_hashed_packed", MissKernel<kCa, true>},
      {"l2nc_hashed_packed", MissKernel<kNc, true>},
  };
  for (const Series& s : all_series) {
    cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(s.kernel), pad);
  }
  for (const Series& s : all_series) {
    const char* series = s.name;
    const std::string name = series;
    const bool spread = name.find("spread") != std::string::npos;
    const Kernel kernel = s.kernel;
    Json per_g = Json::Array();
    for (const int blocks :
         opt.quick ? std::vector<int>{4} : std::vector<int>{4, sms}) {
      Json rows = Json::Array();
      for (const uint32_t k : ks) {
        double median = 0;
        bool ok = true;
        Json r = row(
            [&] {
              kernel<<<blocks, 32 * miss_warps, pad>>>(
                  ring, kRingLines, k, spread ? 1 : 0, miss_iterations, out,
                  recs);
            },
            blocks, miss_warps, double(kMissLoadsPerThread), k, spread, &median,
            &ok);
        std::printf(
            "E20 %s blocks=%3d k=%2u (%2u sectors): %.3f cycles/load/SM%s\n",
            series, blocks, k, SectorsPerLoad(k, spread), median,
            ok ? "" : " PLACEMENT FAILED");
        rows.push_back(std::move(r));
      }
      Json entry = Json::Object();
      entry["blocks"] = blocks;
      entry["warps_per_sm"] = miss_warps;
      entry["rows"] = std::move(rows);
      per_g.push_back(std::move(entry));
    }
    results[series] = std::move(per_g);
  }
  CUDA_CHECK(cudaFree(ring));
  Json params = Json::Object();
  params["ring_bytes"] = static_cast<int>(kRingLines * 128);
  params["l2_loads_per_thread"] = static_cast<int>(kMissLoadsPerThread);
  params["loads_per_thread"] = static_cast<int>(kLoadsPerThread);
  params["array_bytes"] = static_cast<int>(kArrayWords * 4);
  params["blocks"] = sms;
  params["dynamic_shared_bytes"] = pad;
  params["measured_launches"] = kMeasuredReps;
  params["independent_loads_per_iteration"] = 8;
  cuda_ref::WriteResult(opt, "E20", before, std::move(params),
                        std::move(results));
  CUDA_CHECK(cudaFree(data));
  CUDA_CHECK(cudaFree(out));
  CUDA_CHECK(cudaFree(recs));
  if (!all_ok) {
    std::printf("PLACEMENT FAILED\n");
    return 4;
  }
  return 0;
}
