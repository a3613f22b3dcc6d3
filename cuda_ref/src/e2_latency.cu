// E2: the latency ladder (REFERENCE §2.1, §2.3, §6 row E2).
//
// What it measures
//   The load-to-use latency of one thread's dependent loads at every level of
//   the memory hierarchy: shared memory, L1 (ld.global.ca), L2
//   (ld.global.cg), HBM, and the TLB effect on HBM; the capacity breakpoints
//   of the latency-vs-footprint curve; and the distribution of single L2 hits
//   (near / far L2 partition).
//
// How (and why it is right)
//   One block of one thread runs a pointer chase p = *p over 64-bit device
//   pointers (the loaded value is the next address, so every load depends on
//   the previous one and nothing else sits on the critical path: no index
//   arithmetic). Each load is an `asm volatile` ld.global.ca.u64 /
//   ld.global.cg.u64 / ld.shared.u32, in a loop unrolled 16 times; the loop
//   counter and branch are independent of the chain and issue while a load is
//   in flight. Chain elements are 128 B apart (one element per cache line).
//   The kernel first walks `warmup_steps` steps, stores the pointer it reached
//   to global memory (the store cannot issue before that load returned), then
//   reads %globaltimer and %clock64, walks `steps` more steps CONTINUING from
//   where the warm-up stopped, stores the final pointer (again: only after the
//   last load returned), then reads %clock64 and %globaltimer. The host checks
//   both stored pointers against the chain it built (so the walk really
//   happened, over the right elements), and records %smid.
//   cycles_per_step = cycles / steps; ns_per_step = ns / steps. The loop
//   overhead is off the critical path and the two clock reads add a few cycles
//   per 2^15 steps (< 0.01 %).
//   Before every chase an L2 flush reads a scratch buffer of max(4 x L2, 256
//   MB) with ld.cg, so no run sees lines left in L2 by the previous run.
//   Warm-up: min(chain length, 2^20) steps. For chains of at most 2^20
//   elements (footprint <= 128 MB) the warm-up walks the whole chain once and
//   ends back at the start, so the timed walk re-touches every line in the
//   order it was loaded (capacity test: it hits if the footprint fits). For
//   longer chains the timed walk continues into elements the warm-up never
//   reached: lines not touched since the flush, i.e. cold in L2 (128 MB of
//   lines were touched in between, more than the L2 holds), while the TLB has
//   seen the pages around them.
//   In SASS (cuobjdump on sm_90, CUDA 13.0) ld.global.ca.u64 becomes
//   LDG.E.64.STRONG.SM and ld.global.cg.u64 LDG.E.64.STRONG.GPU, 16 per loop
//   iteration, each addressed by the previous one's destination register.
//   The chase kernels prefer the maximum L1 (cudaFuncAttributePreferred-
//   SharedMemoryCarveout = 0, recorded as
//   parameters.l1_carveout_percent_shared).
//
// Parts
//   sweep: footprints 1 KB .. 2 GB at 128 B stride, at powers of two and the
//     1.5x points between them (1K, 1.5K, 2K, 3K, ...), each with ld.ca and
//     ld.cg. Element k points to element k+1 (+128 B), the last to the first.
//   shared: the chain (32-bit shared-window addresses) in dynamic shared
//     memory, 4 KB / 32 KB / 128 KB at 128 B stride, ld.shared.u32.
//   l2_histogram: an 8 MB sequential chain (ld.cg), warmed by one full walk;
//     then 4096 dependent loads timed one by one: clock64; ld.cg; st.shared of
//     the loaded value (cannot issue before the value arrived); clock64 (all in
//     one asm block). The difference is stored in shared memory and copied out
//     at the end. The cost of two back-to-back clock64 reads is measured in
//     the same kernel (min of 64) and subtracted.
//   hbm_random: chains over 1 GB and 4 GB of 128-B-spaced elements, ld.cg:
//     "random": one random cycle over all elements (Sattolo's algorithm, fixed
//     seed, built on the host); "page_random": random order inside each 2 MB
//     page, pages visited in address order (each page's last element links to
//     the next page's first), so a timed walk of 2^15 steps stays inside two
//     pages (2 TLB misses) while every load is a DRAM access to a random line:
//     random minus page_random is the TLB-miss cost.
//
// JSON results
//   sweep[]: footprint_bytes, stride_bytes (128), load ("ca"|"cg"), elements
//     (footprint / stride), warmup_steps, steps, cycles (clock64 over the timed
//     walk), ns (%globaltimer over the same walk, enclosing the cycle window),
//     cycles_per_step, ns_per_step, smid (SM of the measuring thread).
//   shared[]: the same fields, load "shared".
//   l2_histogram: footprint_bytes, load, samples, warmup_steps,
//     clock_read_overhead_cycles (min of two back-to-back clock64 reads),
//     clock_read_overhead_with_sts_cycles (clock64; st.shared; clock64, min),
//     bucket_cycles (4), buckets [{lo, count}] of (raw - overhead) for the
//     nonzero buckets, min/median/p90/max/mean of raw - overhead, raw_min,
//     raw_max, samples_raw_cycles (all 4096 raw differences, in walk order),
//     smid.
//   hbm_random[]: pattern ("random"|"page_random"), footprint_bytes,
//     page_bytes, stride_bytes, load "cg", elements, start_element,
//     warmup_steps, steps, cycles, ns, cycles_per_step, ns_per_step, smid.
//   clock_read_overhead_cycles: as in l2_histogram.
//
// Run time (H200 at 1.98 GHz; L2 ~140 ns, DRAM ~345 ns per step): full:
//   sweep ~8 s (the 22 runs with >= 64 MB footprint walk ~1.05 M steps at
//   DRAM latency), hbm_random ~1.5 s on the GPU plus ~2 s of host shuffling
//   (32 M + 8 M element Sattolo), allocation and chain building < 1 s:
//   estimated ~15 s; measured 12.0 s on an H200 (well under 90 s).
//   --quick: 2^12 timed steps, warm-up cap 2^16, footprints up to 256 MB,
//   hbm_random over 256 MB: measured 1.0 s including context start and the
//   300 ms warm-up.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "common.h"

using cuda_ref::Json;

namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;
constexpr uint64_t kGiB = 1024 * kMiB;
constexpr uint64_t kStride = 128;  // bytes between chain elements
constexpr uint64_t kWordsPerElem = kStride / sizeof(uint64_t);
constexpr uint64_t kPageBytes = 2 * kMiB;
constexpr uint32_t kHistSamples = 4096;
constexpr uint32_t kHistBucket = 4;
constexpr int kOverheadReps = 64;
constexpr uint64_t kSeed = 0x5eed0e2ull;

enum : int { kLoadCa = 0, kLoadCg = 1 };

template <int kKind>
__device__ __forceinline__ uint64_t LoadNext(uint64_t p) {
  uint64_t r;
  if constexpr (kKind == kLoadCa) {
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  } else {
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
  }
  return r;
}

// A global store of v: it cannot issue before v has arrived, so a clock read
// placed after it (in-order issue) is later than the load that produced v.
__device__ __forceinline__ void StoreAfter(uint64_t* dst, uint64_t v) {
  asm volatile("st.global.u64 [%0], %1;" ::"l"(dst), "l"(v) : "memory");
}

// out (uint64): [0] pointer after warm-up, [1] pointer after the timed walk,
// [2] cycles, [3] ns, [4] smid.
constexpr int kOutWords = 5;

template <int kKind>
__global__ void ChaseKernel(uint64_t start, uint32_t warm_steps, uint32_t steps,
                            uint64_t* out) {
  uint64_t p = start;
#pragma unroll 16
  for (uint32_t i = 0; i < warm_steps; ++i) p = LoadNext<kKind>(p);
  StoreAfter(&out[0], p);
  const uint64_t t0 = cuda_ref::GlobalTimer();
  const uint64_t c0 = cuda_ref::Clock64();
#pragma unroll 16
  for (uint32_t i = 0; i < steps; ++i) p = LoadNext<kKind>(p);
  StoreAfter(&out[1], p);
  const uint64_t c1 = cuda_ref::Clock64();
  const uint64_t t1 = cuda_ref::GlobalTimer();
  out[2] = c1 - c0;
  out[3] = t1 - t0;
  out[4] = cuda_ref::SmId();
}

// Chain of n elements, kStride bytes apart, in dynamic shared memory; values
// are 32-bit shared-window addresses. Outputs as ChaseKernel, pointers as
// byte offsets from the chain's start.
__global__ void SharedChaseKernel(uint32_t n, uint32_t warm_steps,
                                  uint32_t steps, uint64_t* out) {
  extern __shared__ __align__(16) uint32_t chain[];
  constexpr uint32_t kWords = kStride / sizeof(uint32_t);
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(chain));
  for (uint32_t k = 0; k < n; ++k) {
    chain[k * kWords] = base + (k + 1 == n ? 0u : (k + 1) * kStride);
  }
  __syncthreads();
  uint32_t p = base;
#pragma unroll 16
  for (uint32_t i = 0; i < warm_steps; ++i) {
    asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
  }
  StoreAfter(&out[0], p - base);
  const uint64_t t0 = cuda_ref::GlobalTimer();
  const uint64_t c0 = cuda_ref::Clock64();
#pragma unroll 16
  for (uint32_t i = 0; i < steps; ++i) {
    asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
  }
  StoreAfter(&out[1], p - base);
  const uint64_t c1 = cuda_ref::Clock64();
  const uint64_t t1 = cuda_ref::GlobalTimer();
  out[2] = c1 - c0;
  out[3] = t1 - t0;
  out[4] = cuda_ref::SmId();
}

// Per-access L2 latency. out: [0] pointer after warm-up, [1] pointer after the
// samples, [2] min back-to-back clock64 cost, [3] min clock64;st.shared;clock64
// cost, [4] smid. dt[i]: raw cycles of sample i.
__global__ void HistogramKernel(uint64_t start, uint32_t warm_steps,
                                uint32_t samples, uint64_t* out, uint32_t* dt) {
  // 64-bit, so that ptxas keeps both clock reads as full 64-bit CS2R (with a
  // 32-bit store it turned the first read into S2UR SR_CLOCKLO, a different
  // instruction from the one the overhead measurement times).
  __shared__ uint64_t sdt[kHistSamples];
  __shared__ uint64_t ssink;
  const uint32_t sink = static_cast<uint32_t>(__cvta_generic_to_shared(&ssink));
  uint64_t p = start;
#pragma unroll 16
  for (uint32_t i = 0; i < warm_steps; ++i) p = LoadNext<kLoadCg>(p);
  StoreAfter(&out[0], p);

  uint64_t ovh = ~0ull, ovh_sts = ~0ull;
#pragma unroll 1
  for (int r = 0; r < kOverheadReps; ++r) {
    uint64_t d, e;
    asm volatile(
        "{\n\t.reg .u64 a, b;\n\t"
        "mov.u64 a, %%clock64;\n\t"
        "mov.u64 b, %%clock64;\n\t"
        "sub.u64 %0, b, a;\n\t}"
        : "=l"(d)
        :
        : "memory");
    asm volatile(
        "{\n\t.reg .u64 a, b;\n\t"
        "mov.u64 a, %%clock64;\n\t"
        "st.shared.u64 [%1], %2;\n\t"
        "mov.u64 b, %%clock64;\n\t"
        "sub.u64 %0, b, a;\n\t}"
        : "=l"(e)
        : "r"(sink), "l"(p)
        : "memory");
    ovh = d < ovh ? d : ovh;
    ovh_sts = e < ovh_sts ? e : ovh_sts;
  }

#pragma unroll 1
  for (uint32_t i = 0; i < samples; ++i) {
    uint64_t d;
    asm volatile(
        "{\n\t.reg .u64 a, b;\n\t"
        "mov.u64 a, %%clock64;\n\t"
        "ld.global.cg.u64 %0, [%0];\n\t"
        "st.shared.u64 [%2], %0;\n\t"
        "mov.u64 b, %%clock64;\n\t"
        "sub.u64 %1, b, a;\n\t}"
        : "+l"(p), "=l"(d)
        : "r"(sink)
        : "memory");
    sdt[i] = d;
  }
  StoreAfter(&out[1], p);
  out[2] = ovh;
  out[3] = ovh_sts;
  out[4] = cuda_ref::SmId();
  __syncthreads();
  for (uint32_t i = 0; i < samples; ++i) dt[i] = static_cast<uint32_t>(sdt[i]);
}

// Sequential chain: element k -> element k+1, the last -> the first.
__global__ void BuildSeqKernel(uint64_t* buf, uint64_t n) {
  for (uint64_t k = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; k < n;
       k += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t next = k + 1 == n ? 0 : k + 1;
    buf[k * kWordsPerElem] =
        reinterpret_cast<uint64_t>(buf + next * kWordsPerElem);
  }
}

// Chain from a successor table: element k -> element next[k].
__global__ void BuildFromNextKernel(uint64_t* buf, const uint32_t* next,
                                    uint64_t n) {
  for (uint64_t k = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; k < n;
       k += uint64_t(gridDim.x) * blockDim.x) {
    buf[k * kWordsPerElem] =
        reinterpret_cast<uint64_t>(buf + uint64_t(next[k]) * kWordsPerElem);
  }
}

// Reads the whole scratch buffer through L2 (evicting whatever was there).
__global__ void FlushKernel(const uint4* buf, uint64_t n, uint32_t* sink) {
  uint32_t acc = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const uint4 v = __ldcg(buf + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;  // keeps the loads
}

// ---------------------------------------------------------------- host side

struct Rng {
  uint64_t s;
  uint64_t Next() {  // splitmix64
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound), bound < 2^32 (Lemire's multiply-shift).
  uint32_t Below(uint32_t bound) {
    return static_cast<uint32_t>(((Next() >> 32) * bound) >> 32);
  }
};

// One random cycle through all n elements (Sattolo's algorithm).
std::vector<uint32_t> RandomCycle(uint32_t n, uint64_t seed) {
  std::vector<uint32_t> next(n);
  std::iota(next.begin(), next.end(), 0u);
  Rng rng{seed};
  for (uint32_t i = n - 1; i > 0; --i) std::swap(next[i], next[rng.Below(i)]);
  return next;
}

// Random order inside each page of `per_page` elements, pages in order; the
// last element of each page links to the first of the next (the last page's
// to the first page's). Returns the successor table; *start = first element.
std::vector<uint32_t> PageRandomCycle(uint32_t n, uint32_t per_page,
                                      uint64_t seed, uint32_t* start) {
  std::vector<uint32_t> next(n);
  const uint32_t pages = n / per_page;
  std::vector<uint32_t> first(pages), last(pages), order(per_page);
  Rng rng{seed};
  for (uint32_t pg = 0; pg < pages; ++pg) {
    std::iota(order.begin(), order.end(), pg * per_page);
    for (uint32_t i = per_page - 1; i > 0; --i) {
      std::swap(order[i], order[rng.Below(i + 1)]);  // Fisher-Yates
    }
    for (uint32_t i = 0; i + 1 < per_page; ++i) next[order[i]] = order[i + 1];
    first[pg] = order[0];
    last[pg] = order[per_page - 1];
  }
  for (uint32_t pg = 0; pg < pages; ++pg) {
    next[last[pg]] = first[(pg + 1) % pages];
  }
  *start = first[0];
  return next;
}

struct Walk {
  uint64_t warm_end = 0, end = 0, cycles = 0, ns = 0, smid = 0;
};

int g_grid = 0;  // blocks for the helper kernels (8 per SM)

class Flusher {
 public:
  explicit Flusher(uint64_t bytes) : bytes_(bytes) {
    CUDA_CHECK(cudaMalloc(&buf_, bytes_));
    CUDA_CHECK(cudaMemset(buf_, 0x5a, bytes_));
    CUDA_CHECK(cudaMalloc(&sink_, sizeof(uint32_t)));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  void Free() {
    CUDA_CHECK(cudaFree(buf_));
    CUDA_CHECK(cudaFree(sink_));
    buf_ = nullptr;
    sink_ = nullptr;
  }
  void Flush() {
    FlushKernel<<<g_grid, 256>>>(static_cast<const uint4*>(buf_),
                                 bytes_ / sizeof(uint4), sink_);
    CUDA_CHECK_LAUNCH();
  }

 private:
  uint64_t bytes_;
  void* buf_ = nullptr;
  uint32_t* sink_ = nullptr;
};

// Pointer -> element index, checked.
uint64_t ToIndex(uint64_t p, const uint64_t* base, uint64_t n,
                 const char* what) {
  const uint64_t b = reinterpret_cast<uint64_t>(base);
  if (p < b || (p - b) % kStride != 0 || (p - b) / kStride >= n) {
    std::fprintf(stderr, "E2: %s: pointer 0x%llx is not a chain element\n",
                 what, static_cast<unsigned long long>(p));
    std::exit(5);
  }
  return (p - b) / kStride;
}

void Expect(uint64_t got, uint64_t want, const char* what) {
  if (got != want) {
    std::fprintf(stderr, "E2: %s: walk ended at %llu, expected %llu\n", what,
                 static_cast<unsigned long long>(got),
                 static_cast<unsigned long long>(want));
    std::exit(5);
  }
}

// Copies the kOutWords results back and checks none is still the poison.
Walk ReadOut(const uint64_t* d_out, const char* what) {
  uint64_t h[kOutWords];
  CUDA_CHECK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
  for (int k = 0; k < kOutWords; ++k) {
    if (h[k] == ~0ull) {
      std::fprintf(stderr, "E2: %s: output word %d was not written\n", what, k);
      std::exit(5);
    }
  }
  Walk w;
  w.warm_end = h[0];
  w.end = h[1];
  w.cycles = h[2];
  w.ns = h[3];
  w.smid = h[4];
  if (w.cycles == 0 || w.ns == 0) {
    std::fprintf(stderr, "E2: %s: zero time\n", what);
    std::exit(5);
  }
  return w;
}

Walk RunChase(int kind, uint64_t* chain, uint64_t start_idx, uint32_t warm,
              uint32_t steps, uint64_t* d_out, Flusher* flusher) {
  CUDA_CHECK(cudaMemset(d_out, 0xff, kOutWords * sizeof(uint64_t)));
  flusher->Flush();
  const uint64_t start =
      reinterpret_cast<uint64_t>(chain + start_idx * kWordsPerElem);
  if (kind == kLoadCa) {
    ChaseKernel<kLoadCa><<<1, 1>>>(start, warm, steps, d_out);
  } else {
    ChaseKernel<kLoadCg><<<1, 1>>>(start, warm, steps, d_out);
  }
  CUDA_CHECK_LAUNCH();
  return ReadOut(d_out, kind == kLoadCa ? "chase ca" : "chase cg");
}

uint64_t WalkHost(const std::vector<uint32_t>& next, uint64_t start,
                  uint64_t steps) {
  uint64_t p = start;
  for (uint64_t i = 0; i < steps; ++i) p = next[p];
  return p;
}

Json Point(uint64_t footprint, const char* load, uint64_t elements,
           uint32_t warm, uint32_t steps, const Walk& w) {
  Json j = Json::Object();
  j["footprint_bytes"] = footprint;
  j["stride_bytes"] = kStride;
  j["load"] = load;
  j["elements"] = elements;
  j["warmup_steps"] = warm;
  j["steps"] = steps;
  j["cycles"] = w.cycles;
  j["ns"] = w.ns;
  j["cycles_per_step"] = static_cast<double>(w.cycles) / steps;
  j["ns_per_step"] = static_cast<double>(w.ns) / steps;
  j["smid"] = w.smid;
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E2");
  const bool quick = opt.quick;
  const int sms = cuda_ref::Attribute(cudaDevAttrMultiProcessorCount);
  const int l2_bytes = cuda_ref::Attribute(cudaDevAttrL2CacheSize);
  g_grid = sms * 8;

  const uint32_t steps = quick ? (1u << 12) : (1u << 15);
  const uint32_t warm_cap = quick ? (1u << 16) : (1u << 20);
  const uint64_t sweep_max = quick ? 256 * kMiB : 2 * kGiB;
  const std::vector<uint64_t> hbm_footprints =
      quick ? std::vector<uint64_t>{256 * kMiB}
            : std::vector<uint64_t>{1 * kGiB, 4 * kGiB};
  const std::vector<uint64_t> shared_footprints = {4 * kKiB, 32 * kKiB,
                                                   128 * kKiB};
  const uint64_t hist_footprint = 8 * kMiB;
  const uint64_t flush_bytes =
      std::max<uint64_t>(4ull * static_cast<uint64_t>(l2_bytes), 256 * kMiB);
  const int carveout = 0;  // percent of L1/shared as shared: max L1

  std::vector<uint64_t> footprints;
  if (quick) {
    footprints = {1 * kKiB, 16 * kKiB, 128 * kKiB, 1 * kMiB,
                  8 * kMiB, 64 * kMiB, 256 * kMiB};
  } else {
    for (uint64_t f = 1 * kKiB; f <= sweep_max; f *= 2) {
      footprints.push_back(f);
      if (f * 2 <= sweep_max) footprints.push_back(f + f / 2);
    }
  }

  CUDA_CHECK(cudaFuncSetAttribute(
      ChaseKernel<kLoadCa>, cudaFuncAttributePreferredSharedMemoryCarveout,
      carveout));
  CUDA_CHECK(cudaFuncSetAttribute(
      ChaseKernel<kLoadCg>, cudaFuncAttributePreferredSharedMemoryCarveout,
      carveout));
  CUDA_CHECK(cudaFuncSetAttribute(
      HistogramKernel, cudaFuncAttributePreferredSharedMemoryCarveout,
      carveout));
  const uint64_t shared_max =
      *std::max_element(shared_footprints.begin(), shared_footprints.end());
  CUDA_CHECK(cudaFuncSetAttribute(SharedChaseKernel,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(shared_max)));

  uint64_t* d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_out, kOutWords * sizeof(uint64_t)));
  Flusher flusher(flush_bytes);

  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();

  Json results = Json::Object();

  // ---- footprint sweep: one sequential chain over sweep_max, its last
  // element re-pointed to the first for each smaller footprint.
  {
    const uint64_t n_max = sweep_max / kStride;
    uint64_t* chain = nullptr;
    CUDA_CHECK(cudaMalloc(&chain, sweep_max));
    BuildSeqKernel<<<g_grid, 256>>>(chain, n_max);
    CUDA_CHECK_LAUNCH();
    Json sweep = Json::Array();
    for (const uint64_t f : footprints) {
      const uint64_t n = f / kStride;
      uint64_t* last = chain + (n - 1) * kWordsPerElem;
      const uint64_t to_first = reinterpret_cast<uint64_t>(chain);
      const uint64_t to_next =
          reinterpret_cast<uint64_t>(chain + n * kWordsPerElem);
      CUDA_CHECK(
          cudaMemcpy(last, &to_first, sizeof to_first, cudaMemcpyHostToDevice));
      const uint32_t warm =
          static_cast<uint32_t>(std::min<uint64_t>(n, warm_cap));
      for (const int kind : {kLoadCa, kLoadCg}) {
        const Walk w = RunChase(kind, chain, 0, warm, steps, d_out, &flusher);
        Expect(ToIndex(w.warm_end, chain, n, "sweep"), warm % n,
               "sweep warm-up");
        Expect(ToIndex(w.end, chain, n, "sweep"), (uint64_t(warm) + steps) % n,
               "sweep");
        sweep.push_back(
            Point(f, kind == kLoadCa ? "ca" : "cg", n, warm, steps, w));
        std::printf("E2 sweep %10llu B %s: %.1f cycles/step\n",
                    static_cast<unsigned long long>(f),
                    kind == kLoadCa ? "ca" : "cg",
                    static_cast<double>(w.cycles) / steps);
      }
      if (n < n_max) {
        CUDA_CHECK(
            cudaMemcpy(last, &to_next, sizeof to_next, cudaMemcpyHostToDevice));
      }
    }
    CUDA_CHECK(cudaFree(chain));
    results["sweep"] = std::move(sweep);
  }

  // ---- shared memory chase.
  {
    Json shared = Json::Array();
    for (const uint64_t f : shared_footprints) {
      const uint32_t n = static_cast<uint32_t>(f / kStride);
      CUDA_CHECK(cudaMemset(d_out, 0xff, kOutWords * sizeof(uint64_t)));
      SharedChaseKernel<<<1, 1, f>>>(n, n, steps, d_out);
      CUDA_CHECK_LAUNCH();
      const Walk w = ReadOut(d_out, "shared chase");
      // Byte offsets: the warm-up of n steps ends at the start (offset 0).
      Expect(w.warm_end, 0, "shared warm-up (byte offset)");
      Expect(w.end, (uint64_t(steps) % n) * kStride, "shared (byte offset)");
      shared.push_back(Point(f, "shared", n, n, steps, w));
      std::printf("E2 shared %llu B: %.1f cycles/step\n",
                  static_cast<unsigned long long>(f),
                  static_cast<double>(w.cycles) / steps);
    }
    results["shared"] = std::move(shared);
  }

  // ---- per-access L2 latency histogram.
  uint64_t clock_overhead = 0;
  {
    const uint64_t n = hist_footprint / kStride;
    uint64_t* chain = nullptr;
    uint32_t* d_dt = nullptr;
    CUDA_CHECK(cudaMalloc(&chain, hist_footprint));
    CUDA_CHECK(cudaMalloc(&d_dt, kHistSamples * sizeof(uint32_t)));
    BuildSeqKernel<<<g_grid, 256>>>(chain, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemset(d_out, 0xff, kOutWords * sizeof(uint64_t)));
    CUDA_CHECK(cudaMemset(d_dt, 0xff, kHistSamples * sizeof(uint32_t)));
    flusher.Flush();
    const uint32_t warm = static_cast<uint32_t>(n);
    HistogramKernel<<<1, 1>>>(reinterpret_cast<uint64_t>(chain), warm,
                              kHistSamples, d_out, d_dt);
    CUDA_CHECK_LAUNCH();
    uint64_t h[kOutWords];
    CUDA_CHECK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
    std::vector<uint32_t> raw(kHistSamples);
    CUDA_CHECK(cudaMemcpy(raw.data(), d_dt, kHistSamples * sizeof(uint32_t),
                          cudaMemcpyDeviceToHost));
    for (int k = 0; k < kOutWords; ++k) {
      if (h[k] == ~0ull) {
        std::fprintf(stderr, "E2: histogram output %d not written\n", k);
        return 5;
      }
    }
    for (const uint32_t v : raw) {
      if (v == ~0u || v == 0) {
        std::fprintf(stderr, "E2: histogram sample not written\n");
        return 5;
      }
    }
    Expect(ToIndex(h[0], chain, n, "histogram"), 0, "histogram warm-up");
    Expect(ToIndex(h[1], chain, n, "histogram"), kHistSamples % n, "histogram");
    clock_overhead = h[2];
    std::vector<int64_t> adj(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
      adj[i] = static_cast<int64_t>(raw[i]) - static_cast<int64_t>(h[2]);
    }
    std::vector<int64_t> sorted = adj;
    std::sort(sorted.begin(), sorted.end());
    const auto pct = [&](double q) {
      return sorted[std::min(
          sorted.size() - 1,
          static_cast<size_t>(q * (sorted.size() - 1) + 0.5))];
    };
    double mean = 0;
    for (const int64_t v : adj) mean += static_cast<double>(v);
    mean /= static_cast<double>(adj.size());
    Json buckets = Json::Array();
    {
      const auto bucket_of = [](int64_t v) {
        const int64_t b = kHistBucket;
        return (v >= 0 ? v / b : (v - b + 1) / b) * b;
      };
      size_t i = 0;
      while (i < sorted.size()) {
        const int64_t lo = bucket_of(sorted[i]);
        size_t c = 0;
        while (i < sorted.size() && bucket_of(sorted[i]) == lo) {
          ++i;
          ++c;
        }
        Json b = Json::Object();
        b["lo"] = static_cast<long long>(lo);
        b["count"] = static_cast<unsigned long long>(c);
        buckets.push_back(std::move(b));
      }
    }
    Json samples = Json::Array();
    for (const uint32_t v : raw) samples.push_back(v);
    Json hist = Json::Object();
    hist["footprint_bytes"] = hist_footprint;
    hist["stride_bytes"] = kStride;
    hist["load"] = "cg";
    hist["samples"] = kHistSamples;
    hist["warmup_steps"] = warm;
    hist["clock_read_overhead_cycles"] = h[2];
    hist["clock_read_overhead_with_sts_cycles"] = h[3];
    hist["bucket_cycles"] = kHistBucket;
    hist["buckets"] = std::move(buckets);
    hist["min"] = static_cast<long long>(sorted.front());
    hist["median"] = static_cast<long long>(pct(0.5));
    hist["p90"] = static_cast<long long>(pct(0.9));
    hist["max"] = static_cast<long long>(sorted.back());
    hist["mean"] = mean;
    hist["raw_min"] = *std::min_element(raw.begin(), raw.end());
    hist["raw_max"] = *std::max_element(raw.begin(), raw.end());
    hist["samples_raw_cycles"] = std::move(samples);
    hist["smid"] = h[4];
    results["l2_histogram"] = std::move(hist);
    std::printf("E2 L2 histogram: overhead %llu, median %lld, p90 %lld\n",
                static_cast<unsigned long long>(h[2]),
                static_cast<long long>(pct(0.5)),
                static_cast<long long>(pct(0.9)));
    CUDA_CHECK(cudaFree(chain));
    CUDA_CHECK(cudaFree(d_dt));
  }

  // ---- HBM: random and page-local random chains.
  {
    const uint64_t max_f =
        *std::max_element(hbm_footprints.begin(), hbm_footprints.end());
    uint64_t* chain = nullptr;
    uint32_t* d_next = nullptr;
    CUDA_CHECK(cudaMalloc(&chain, max_f));
    CUDA_CHECK(cudaMalloc(&d_next, (max_f / kStride) * sizeof(uint32_t)));
    Json hbm = Json::Array();
    for (const uint64_t f : hbm_footprints) {
      const uint32_t n = static_cast<uint32_t>(f / kStride);
      for (const char* pattern : {"random", "page_random"}) {
        const bool page = std::strcmp(pattern, "page_random") == 0;
        uint32_t start = 0;
        const std::vector<uint32_t> next =
            page ? PageRandomCycle(n,
                                   static_cast<uint32_t>(kPageBytes / kStride),
                                   kSeed + f + 1, &start)
                 : RandomCycle(n, kSeed + f);
        CUDA_CHECK(cudaMemcpy(d_next, next.data(), n * sizeof(uint32_t),
                              cudaMemcpyHostToDevice));
        BuildFromNextKernel<<<g_grid, 256>>>(chain, d_next, n);
        CUDA_CHECK_LAUNCH();
        const uint32_t warm =
            static_cast<uint32_t>(std::min<uint64_t>(n, warm_cap));
        const Walk w =
            RunChase(kLoadCg, chain, start, warm, steps, d_out, &flusher);
        const uint64_t want_warm = WalkHost(next, start, warm);
        Expect(ToIndex(w.warm_end, chain, n, pattern), want_warm,
               "hbm warm-up");
        Expect(ToIndex(w.end, chain, n, pattern),
               WalkHost(next, want_warm, steps), "hbm");
        Json j = Json::Object();
        j["pattern"] = pattern;
        j["footprint_bytes"] = f;
        j["page_bytes"] = page ? Json(kPageBytes) : Json();
        j["stride_bytes"] = kStride;
        j["load"] = "cg";
        j["elements"] = n;
        j["start_element"] = start;
        j["warmup_steps"] = warm;
        j["steps"] = steps;
        j["cycles"] = w.cycles;
        j["ns"] = w.ns;
        j["cycles_per_step"] = static_cast<double>(w.cycles) / steps;
        j["ns_per_step"] = static_cast<double>(w.ns) / steps;
        j["smid"] = w.smid;
        hbm.push_back(std::move(j));
        std::printf("E2 hbm %s %llu B: %.1f cycles/step, %.1f ns/step\n",
                    pattern, static_cast<unsigned long long>(f),
                    static_cast<double>(w.cycles) / steps,
                    static_cast<double>(w.ns) / steps);
      }
    }
    CUDA_CHECK(cudaFree(chain));
    CUDA_CHECK(cudaFree(d_next));
    results["hbm_random"] = std::move(hbm);
  }
  results["clock_read_overhead_cycles"] = clock_overhead;

  Json params = Json::Object();
  params["steps"] = steps;
  params["warmup_cap_steps"] = warm_cap;
  params["stride_bytes"] = kStride;
  params["chain_element"] = "64-bit device pointer (p = *p)";
  params["unroll"] = 16;
  params["threads"] = 1;
  params["l1_carveout_percent_shared"] = carveout;
  params["l2_flush_bytes"] = flush_bytes;
  params["l2_flush"] =
      "ld.cg read of a scratch buffer before every global chase";
  params["histogram_samples"] = kHistSamples;
  params["histogram_footprint_bytes"] = hist_footprint;
  params["clock_overhead_reps"] = kOverheadReps;
  params["page_bytes"] = kPageBytes;
  params["rng_seed"] = kSeed;
  params["sweep_max_bytes"] = sweep_max;

  CUDA_CHECK(cudaFree(d_out));
  flusher.Free();
  cuda_ref::WriteResult(opt, "E2", before, std::move(params),
                        std::move(results));
  return 0;
}
