// E5: latency hiding (REFERENCE §5, §6 row E5).
//
// What it measures
//   How throughput per SM grows with the number of resident warps per SM (W):
//   (a) for a dependent FFMA chain (arithmetic latency hiding: expected IPC
//   rising linearly to ~4 at 16 warps/SM, 4 SMSPs x 1 FFMA/cycle with a
//   4-cycle latency, then flat); (b) for coalesced global loads, k
//   independent loads per warp per iteration, 4 B or 16 B per lane, from
//   L2-resident or HBM-resident data (expected: bytes/cycle rising with
//   W x k x bytes then a plateau; the knee gives the bytes in flight needed
//   to hide the latency, Little's law).
//
// How (and why it is right)
//   Exact warps per SM, all SMs alike, all in one wave: W <= 32 launches one
//   block of W warps per SM (grid = SM count); W in 33..64 launches two blocks
//   of W/2 warps per SM (grid = 2 x SM count). Placement is forced with
//   dynamic shared memory padding: each block asks for ceil(S/(b+1)) bytes
//   (S = shared memory per SM, b = blocks wanted per SM; rounded up to 1 KB),
//   so b blocks fit on an SM and b+1 do not; the kernels prefer the maximum
//   shared carveout and cudaFuncAttributeMaxDynamicSharedMemorySize is raised.
//   cudaOccupancyMaxActiveBlocksPerMultiprocessor must answer b. Since the
//   grid equals the SMs' total capacity, every SM gets exactly b blocks, and
//   that is VERIFIED: thread 0 of every block records %smid, %globaltimer and
//   clock64 after a __syncthreads() at the start and after one at the end;
//   the host counts blocks per distinct %smid (must be b on every one of the
//   SM-count SMs) and records whether all blocks overlap in time (latest
//   start < earliest end; recorded, not required: per-SM figures use each
//   SM's own span, only the global ns spans would suffer). Any point whose
//   check fails is marked ok:false in placement_check; the program writes the
//   JSON, prints PLACEMENT FAILED and exits 4. Every configuration is launched
//   4 times: a warm-up launch (instruction cache, TLB, L2 for the L2 placement)
//   and 3 measured launches; the point reports the measured launch with the
//   median of its main figure (ipc_mean or bytes_per_cycle_per_sm) and lists
//   all three (..._reps): a first H200 run showed one-off outliers of ~7 %.
//   Outputs and records are poisoned (0xff) before each launch and every
//   element read back is checked to have been written. Per SM, the cycle span
//   is max(end clock64) - min(start clock64) over the blocks on that SM
//   (clock64 is per SM, so the two blocks of a W > 32 point share one clock);
//   ns spans use %globaltimer over all blocks (first start to last end). (a)
//   FFMA: each thread runs `ffma_per_warp` = 4096 dependent FFMAs
//     (asm volatile, ILP 1; a loop of 16 iterations of 256 unrolled FFMAs:
//     3 loop-control instructions per 256 FFMAs, ~1.2 % extra issue slots,
//     not counted as FFMA). IPC(SM) = blocks(SM) x warps/block x 4096 /
//     span(SM), in FFMA warp-instructions per cycle. Two series:
//     "ffma": `fma.rn.f32 x, x, a, 0f3F000000` -> SASS FFMA Rx, Rx, Ra, 0.5,
//       two register operands (ptxas can put them in different banks): the
//       issue limit, the curve REFERENCE §5 expects (~4 at 16 warps/SM).
//     "ffma_3reg": `fma.rn.f32 x, x, a, b` -> FFMA Rx, Rx, Ra, Rb: three
//       register operands cannot sit in three different banks (two banks on
//       Volta+), and with many warps interleaved the operand reuse cache does
//       not help. A first run on an H200 saturated at IPC ~2.0 with this
//       form (a register-bank-conflict limit, not a latency-hiding one): kept
//       as its own series because the emulator must know it.
//   (b) Loads: warp g of G (G = all warps in the grid) reads, in iteration i,
//     the chunk c = i x G + g of k x 32 x B bytes (B = 4 or 16 bytes per lane;
//     k consecutive 128 B or 512 B pieces, each one coalesced warp load
//     ld.global.cg.u32 / ld.global.cg.v4.u32), all k loads in ONE asm volatile
//     block so all are issued before any is used; then acc ^= every loaded
//     word, and the next iteration's address adds (acc & zero) where `zero` is
//     a kernel argument equal to 0 at run time: the compiler cannot drop the
//     dependence, so the iterations of one warp are serialised while its k
//     loads overlap. cycles_per_iteration therefore = loaded memory latency +
//     a short ALU tail (xor of the k words, address arithmetic, ~20-60 cycles).
//     Placement "l2": a 16 MB ring (offset = (c x chunk) mod 16 MB), touched
//     once with ld.cg before the warm-up launch; warps do not own disjoint
//     regions (with G x chunk > 16 MB several warps read the same line in one
//     iteration): the ring is the whole footprint and it stays in L2.
//     Placement "hbm": a 4 GB buffer filled with random words, offset =
//     (cursor + c x chunk) mod 4 GB, where the cursor advances by the bytes of
//     each launch: a launch reads at most 2 GB, so no line is read twice in a
//     launch and a line is re-read only after >= 2 GB of other reads (far
//     more than the L2 holds).
//     iterations = clamp(bytes_target / (G x chunk), 16, 4096) with
//     bytes_target = 2 GB: a launch takes ~0.2-5 ms.
//     16 B x k = 8 needs more than 32 registers per thread, which 64 warps/SM
//     do not allow (65536 / 2048): it is run only for W <= 32 (compiled with
//     __launch_bounds__(1024, 1)); its W > 32 points are listed with
//     "skipped". All other variants use __launch_bounds__(1024, 2) for every W
//     (same code at every W).
//
// JSON results
//   placement_check[]: one per point (the reported launch): kernel,
//     warps_per_sm,
//     blocks_per_sm (wanted), blocks, threads_per_block, dynamic_smem_bytes,
//     occupancy_api_blocks_per_sm, sms_seen (distinct %smid),
//     blocks_per_sm_min/max (counted), all_blocks_overlap, start_spread_ns
//     (latest minus earliest block start), measured_launches, ok (every
//     measured launch of the point placed as wanted).
//   ffma[] and ffma_3reg[] (same fields): warps_per_sm, blocks_per_sm,
//   threads_per_block, ffma_per_warp,
//     ipc_mean/min/max (over SMs), cycles_mean/min/max (per-SM spans), ns
//     (global span), ffma_per_s (thread FFMAs per second over the global
//     span), sm_mhz_from_blocks (mean over blocks of cycles/ns x 1000),
//     ipc_mean_reps (ipc_mean of each measured launch).
//   loads[]: placement ("l2"|"hbm"), footprint_bytes, bytes_per_lane (4|16),
//     k, warps_per_sm, blocks_per_sm, threads_per_block, iterations,
//     bytes (read by the launch), cycles_mean (mean per-SM span), ns (global
//     span), bytes_per_cycle_per_sm (mean over SMs of bytes read on the SM /
//     its span) and _min/_max, gb_per_s (bytes / global ns span),
//     cycles_per_iteration (mean over blocks of block cycles / iterations),
//     bytes_per_iteration_per_sm (W x k x 32 x B: bytes one round of all warps
//     has in flight), bytes_in_flight_per_sm (Little's law:
//     bytes_per_cycle_per_sm x cycles_per_iteration), sm_mhz_from_blocks,
//     bytes_per_cycle_per_sm_reps;
//     or {placement, bytes_per_lane, k, warps_per_sm, skipped: reason}.
//   registers: numRegs of every kernel variant (cudaFuncGetAttributes).
//
// Run time (H200): FFMA 112 launches of < 0.1 ms; loads 216 points x 4
//   launches of ~0.25-1.8 ms plus ~1 MB of read-back each; 4 GB fill and
//   allocation < 1 s; warm-up 0.3 s. Estimated ~3 s; measured 1.5 s in all
//   on an H200 (well under 90 s).
//   --quick: W in {1, 8, 32, 64}, k in {1, 8}, HBM ring 1 GB, bytes_target
//   128 MB, iterations <= 512: measured 0.7 s.
#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "common.h"

using cuda_ref::Json;

namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;
constexpr uint32_t kFfmaUnroll = 256;
constexpr uint32_t kFfmaPerWarp = 4096;
constexpr uint32_t kPoison32 = 0xffffffffu;
constexpr int kMeasuredReps =
    3;  // measured launches per point (after 1 warm-up)

struct BlockRec {
  uint64_t smid, c0, c1, t0, t1;
};
static_assert(sizeof(BlockRec) == 40, "BlockRec layout");

__device__ __forceinline__ void BlockBegin(uint64_t* t0, uint64_t* c0) {
  __syncthreads();
  if (threadIdx.x == 0) {
    *t0 = cuda_ref::GlobalTimer();
    *c0 = cuda_ref::Clock64();
  }
}

__device__ __forceinline__ void BlockEnd(uint64_t t0, uint64_t c0,
                                         BlockRec* recs) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint64_t c1 = cuda_ref::Clock64();
    const uint64_t t1 = cuda_ref::GlobalTimer();
    BlockRec r;
    r.smid = cuda_ref::SmId();
    r.c0 = c0;
    r.c1 = c1;
    r.t0 = t0;
    r.t1 = t1;
    recs[blockIdx.x] = r;
  }
}

// (a) Dependent FFMA chain, kFfmaPerWarp per thread. kThreeRegs = false:
// x = x * a + 0.5 (SASS FFMA Rx, Rx, Ra, 0.5: two register operands);
// true: x = x * a + b (FFMA Rx, Rx, Ra, Rb: three register operands, which
// cannot all sit in different register banks).
template <bool kThreeRegs>
__global__ void __launch_bounds__(1024, 2)
    FfmaKernel(float a, float b, uint32_t loop_iters, uint32_t* out,
               BlockRec* recs) {
  float x = __uint_as_float(0x3f800000u + threadIdx.x);
  uint64_t t0 = 0, c0 = 0;
  BlockBegin(&t0, &c0);
#pragma unroll 1
  for (uint32_t it = 0; it < loop_iters; ++it) {
#pragma unroll
    for (uint32_t s = 0; s < kFfmaUnroll; ++s) {
      if constexpr (kThreeRegs) {
        asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b));
      } else {
        asm volatile("fma.rn.f32 %0, %0, %1, 0f3F000000;" : "+f"(x) : "f"(a));
      }
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = __float_as_uint(x);
  BlockEnd(t0, c0, recs);
}

// (b) k independent coalesced loads of B bytes per lane, all issued in one
// asm block, returned xor-ed together. p = this lane's address in piece 0;
// piece j is at p + j x 32 x B.
template <int kBytes, int kK>
struct Loads;

template <>
struct Loads<4, 1> {
  static __device__ __forceinline__ uint32_t Run(const void* p) {
    uint32_t v0;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v0) : "l"(p));
    return v0;
  }
};
template <>
struct Loads<4, 2> {
  static __device__ __forceinline__ uint32_t Run(const void* p) {
    uint32_t v0, v1;
    asm volatile(
        "ld.global.cg.u32 %0, [%2];\n\t"
        "ld.global.cg.u32 %1, [%2+128];"
        : "=r"(v0), "=r"(v1)
        : "l"(p));
    return v0 ^ v1;
  }
};
template <>
struct Loads<4, 4> {
  static __device__ __forceinline__ uint32_t Run(const void* p) {
    uint32_t v0, v1, v2, v3;
    asm volatile(
        "ld.global.cg.u32 %0, [%4];\n\t"
        "ld.global.cg.u32 %1, [%4+128];\n\t"
        "ld.global.cg.u32 %2, [%4+256];\n\t"
        "ld.global.cg.u32 %3, [%4+384];"
        : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)
        : "l"(p));
    return v0 ^ v1 ^ v2 ^ v3;
  }
};
template <>
struct Loads<4, 8> {
  static __device__ __forceinline__ uint32_t Run(const void* p) {
    uint32_t v0, v1, v2, v3, v4, v5, v6, v7;
    asm volatile(
        "ld.global.cg.u32 %0, [%8];\n\t"
        "ld.global.cg.u32 %1, [%8+128];\n\t"
        "ld.global.cg.u32 %2, [%8+256];\n\t"
        "ld.global.cg.u32 %3, [%8+384];\n\t"
        "ld.global.cg.u32 %4, [%8+512];\n\t"
        "ld.global.cg.u32 %5, [%8+640];\n\t"
        "ld.global.cg.u32 %6, [%8+768];\n\t"
        "ld.global.cg.u32 %7, [%8+896];"
        : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3), "=r"(v4), "=r"(v5), "=r"(v6),
          "=r"(v7)
        : "l"(p));
    return v0 ^ v1 ^ v2 ^ v3 ^ v4 ^ v5 ^ v6 ^ v7;
  }
};
template <>
struct Loads<16, 1> {
  static __device__ __forceinline__ uint32_t Run(const void* p) {
    uint32_t a0, a1, a2, a3;
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "l"(p));
    return a0 ^ a1 ^ a2 ^ a3;
  }
};
template <>
struct Loads<16, 2> {
  static __device__ __forceinline__ uint32_t Run(const void* p) {
    uint32_t a0, a1, a2, a3, b0, b1, b2, b3;
    asm volatile(
        "ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%8];\n\t"
        "ld.global.cg.v4.u32 {%4,%5,%6,%7}, [%8+512];"
        : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3), "=r"(b0), "=r"(b1), "=r"(b2),
          "=r"(b3)
        : "l"(p));
    return a0 ^ a1 ^ a2 ^ a3 ^ b0 ^ b1 ^ b2 ^ b3;
  }
};
template <>
struct Loads<16, 4> {
  static __device__ __forceinline__ uint32_t Run(const void* p) {
    uint32_t v[16];
    asm volatile(
        "ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%16];\n\t"
        "ld.global.cg.v4.u32 {%4,%5,%6,%7}, [%16+512];\n\t"
        "ld.global.cg.v4.u32 {%8,%9,%10,%11}, [%16+1024];\n\t"
        "ld.global.cg.v4.u32 {%12,%13,%14,%15}, [%16+1536];"
        : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]),
          "=r"(v[5]), "=r"(v[6]), "=r"(v[7]), "=r"(v[8]), "=r"(v[9]),
          "=r"(v[10]), "=r"(v[11]), "=r"(v[12]), "=r"(v[13]), "=r"(v[14]),
          "=r"(v[15])
        : "l"(p));
    uint32_t r = 0;
#pragma unroll
    for (int i = 0; i < 16; ++i) r ^= v[i];
    return r;
  }
};
template <>
struct Loads<16, 8> {
  static __device__ __forceinline__ uint32_t Run(const void* p) {
    uint32_t v[32];
    asm volatile(
        "ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%32];\n\t"
        "ld.global.cg.v4.u32 {%4,%5,%6,%7}, [%32+512];\n\t"
        "ld.global.cg.v4.u32 {%8,%9,%10,%11}, [%32+1024];\n\t"
        "ld.global.cg.v4.u32 {%12,%13,%14,%15}, [%32+1536];\n\t"
        "ld.global.cg.v4.u32 {%16,%17,%18,%19}, [%32+2048];\n\t"
        "ld.global.cg.v4.u32 {%20,%21,%22,%23}, [%32+2560];\n\t"
        "ld.global.cg.v4.u32 {%24,%25,%26,%27}, [%32+3072];\n\t"
        "ld.global.cg.v4.u32 {%28,%29,%30,%31}, [%32+3584];"
        : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]),
          "=r"(v[5]), "=r"(v[6]), "=r"(v[7]), "=r"(v[8]), "=r"(v[9]),
          "=r"(v[10]), "=r"(v[11]), "=r"(v[12]), "=r"(v[13]), "=r"(v[14]),
          "=r"(v[15]), "=r"(v[16]), "=r"(v[17]), "=r"(v[18]), "=r"(v[19]),
          "=r"(v[20]), "=r"(v[21]), "=r"(v[22]), "=r"(v[23]), "=r"(v[24]),
          "=r"(v[25]), "=r"(v[26]), "=r"(v[27]), "=r"(v[28]), "=r"(v[29]),
          "=r"(v[30]), "=r"(v[31])
        : "l"(p));
    uint32_t r = 0;
#pragma unroll
    for (int i = 0; i < 32; ++i) r ^= v[i];
    return r;
  }
};

template <int kBytes, int kK, int kMinBlocks>
__global__ void __launch_bounds__(1024, kMinBlocks)
    LoadKernel(const uint8_t* base, uint64_t mask, uint64_t start_off,
               uint32_t iters, uint32_t zero, uint32_t* out, BlockRec* recs) {
  constexpr uint64_t kChunk = uint64_t(kK) * 32 * kBytes;
  const uint32_t warps_per_block = blockDim.x >> 5;
  const uint64_t total_warps = uint64_t(gridDim.x) * warps_per_block;
  const uint64_t warp =
      uint64_t(blockIdx.x) * warps_per_block + (threadIdx.x >> 5);
  const uint32_t lane_off = (threadIdx.x & 31) * kBytes;
  uint32_t acc = 0;
  uint64_t t0 = 0, c0 = 0;
  BlockBegin(&t0, &c0);
  uint64_t chunk = warp;
#pragma unroll 1
  for (uint32_t i = 0; i < iters; ++i) {
    // (acc & zero) == 0 at run time, but the compiler must keep the
    // dependence: iteration i+1's addresses wait for iteration i's data.
    const uint64_t off = (start_off + chunk * kChunk + (acc & zero)) & mask;
    acc ^= Loads<kBytes, kK>::Run(base + off + lane_off);
    chunk += total_warps;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc & 0x7fffffffu;
  BlockEnd(t0, c0, recs);
}

// Reads the ring once through L2 (ld.cg) so it is L2-resident.
__global__ void TouchKernel(const uint4* buf, uint64_t n, uint32_t* sink) {
  uint32_t acc = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    const uint4 v = __ldcg(buf + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;  // keeps the loads
}

__host__ __device__ inline uint32_t HashWord(uint64_t i, uint32_t seed) {
  uint64_t z = i * 0x9e3779b97f4a7c15ull + seed;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<uint32_t>(z ^ (z >> 31)) | 1u;  // never zero
}

__global__ void FillKernel(uint32_t* buf, uint64_t n, uint32_t seed) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    buf[i] = HashWord(i, seed);
  }
}

// ---------------------------------------------------------------- host side

using FfmaFn = void (*)(float, float, uint32_t, uint32_t*, BlockRec*);
using LoadFn = void (*)(const uint8_t*, uint64_t, uint64_t, uint32_t, uint32_t,
                        uint32_t*, BlockRec*);

struct Variant {
  int bytes;
  int k;
  LoadFn fn;
  int max_warps_per_sm;  // 64, or 32 when the kernel needs > 32 registers
  int regs = 0;
};

struct Device {
  int sms = 0;
  int smem_per_sm = 0;
  int smem_reserved = 0;
  int smem_optin = 0;
};

// Dynamic shared memory so that exactly `b` blocks fit on one SM.
int PadBytes(const Device& d, int b) {
  int s = (d.smem_per_sm + b) / (b + 1);  // ceil(S / (b+1))
  s = (s + 1023) / 1024 * 1024;
  const int per_block = s + d.smem_reserved;
  if (s > d.smem_optin || static_cast<int64_t>(b) * per_block > d.smem_per_sm ||
      static_cast<int64_t>(b + 1) * per_block <= d.smem_per_sm) {
    std::fprintf(stderr,
                 "E5: no shared-memory padding gives %d block(s) per SM "
                 "(S=%d, reserved=%d, optin=%d)\n",
                 b, d.smem_per_sm, d.smem_reserved, d.smem_optin);
    std::exit(4);
  }
  return s;
}

template <typename Fn>
void Configure(Fn fn, int max_dyn_smem) {
  CUDA_CHECK(cudaFuncSetAttribute(
      fn, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dyn_smem));
  CUDA_CHECK(
      cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                           static_cast<int>(cudaSharedmemCarveoutMaxShared)));
}

struct Shape {
  int warps_per_sm, blocks_per_sm, blocks, threads, smem;
};

Shape ShapeFor(const Device& d, int w) {
  Shape s;
  s.warps_per_sm = w;
  s.blocks_per_sm = w <= 32 ? 1 : 2;
  if (w > 32 && w % 2 != 0) {
    std::fprintf(stderr, "E5: W=%d > 32 must be even\n", w);
    std::exit(4);
  }
  s.threads = 32 * w / s.blocks_per_sm;
  s.blocks = d.sms * s.blocks_per_sm;
  s.smem = PadBytes(d, s.blocks_per_sm);
  return s;
}

struct SmAgg {
  uint64_t cmin = std::numeric_limits<uint64_t>::max();
  uint64_t cmax = 0;
  int blocks = 0;
};

struct Analysis {
  bool ok = true;
  std::map<uint64_t, SmAgg> per_sm;
  uint64_t tmin = std::numeric_limits<uint64_t>::max(), tmax = 0;
  uint64_t start_max = 0, end_min = std::numeric_limits<uint64_t>::max();
  double block_cycles_mean = 0;
  double mhz_mean = 0;
  int bpsm_min = 0, bpsm_max = 0;
  bool overlap = false;
  Json check;
};

// Poisoned buffers for one launch's outputs.
struct Buffers {
  uint32_t* out = nullptr;
  BlockRec* recs = nullptr;
  size_t out_words = 0;
  size_t max_blocks = 0;
};

void Poison(const Buffers& b, const Shape& s) {
  CUDA_CHECK(
      cudaMemset(b.out, 0xff, size_t(s.blocks) * s.threads * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemset(b.recs, 0xff, size_t(s.blocks) * sizeof(BlockRec)));
}

// Reads back and checks a launch's outputs; builds the placement check.
Analysis Collect(const Buffers& b, const Shape& s, const Device& d,
                 const std::string& kernel, int occupancy) {
  std::vector<uint32_t> out(size_t(s.blocks) * s.threads);
  std::vector<BlockRec> recs(s.blocks);
  CUDA_CHECK(cudaMemcpy(out.data(), b.out, out.size() * sizeof(uint32_t),
                        cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(recs.data(), b.recs, recs.size() * sizeof(BlockRec),
                        cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == kPoison32) {
      std::fprintf(stderr, "E5: %s W=%d: output %zu not written\n",
                   kernel.c_str(), s.warps_per_sm, i);
      std::exit(5);
    }
  }
  Analysis a;
  double cyc_sum = 0, mhz_sum = 0;
  for (int i = 0; i < s.blocks; ++i) {
    const BlockRec& r = recs[i];
    if (r.smid == ~0ull || r.c0 == ~0ull || r.c1 == ~0ull || r.t0 == ~0ull ||
        r.t1 == ~0ull || r.c1 <= r.c0 || r.t1 <= r.t0) {
      std::fprintf(stderr, "E5: %s W=%d: block %d record not written/bad\n",
                   kernel.c_str(), s.warps_per_sm, i);
      std::exit(5);
    }
    SmAgg& g = a.per_sm[r.smid];
    g.cmin = std::min(g.cmin, r.c0);
    g.cmax = std::max(g.cmax, r.c1);
    ++g.blocks;
    a.tmin = std::min(a.tmin, r.t0);
    a.tmax = std::max(a.tmax, r.t1);
    a.start_max = std::max(a.start_max, r.t0);
    a.end_min = std::min(a.end_min, r.t1);
    cyc_sum += static_cast<double>(r.c1 - r.c0);
    mhz_sum += 1000.0 * static_cast<double>(r.c1 - r.c0) /
               static_cast<double>(r.t1 - r.t0);
  }
  a.block_cycles_mean = cyc_sum / s.blocks;
  a.mhz_mean = mhz_sum / s.blocks;
  a.bpsm_min = std::numeric_limits<int>::max();
  a.bpsm_max = 0;
  for (const auto& kv : a.per_sm) {
    a.bpsm_min = std::min(a.bpsm_min, kv.second.blocks);
    a.bpsm_max = std::max(a.bpsm_max, kv.second.blocks);
  }
  a.overlap = a.start_max < a.end_min;
  a.ok = static_cast<int>(a.per_sm.size()) == d.sms &&
         a.bpsm_min == s.blocks_per_sm && a.bpsm_max == s.blocks_per_sm &&
         occupancy == s.blocks_per_sm;
  Json c = Json::Object();
  c["kernel"] = kernel;
  c["warps_per_sm"] = s.warps_per_sm;
  c["blocks_per_sm"] = s.blocks_per_sm;
  c["blocks"] = s.blocks;
  c["threads_per_block"] = s.threads;
  c["dynamic_smem_bytes"] = s.smem;
  c["occupancy_api_blocks_per_sm"] = occupancy;
  c["sms_seen"] = static_cast<int>(a.per_sm.size());
  c["blocks_per_sm_min"] = a.bpsm_min;
  c["blocks_per_sm_max"] = a.bpsm_max;
  c["all_blocks_overlap"] = a.overlap;
  c["start_spread_ns"] = a.start_max - a.tmin;
  c["ok"] = a.ok;
  a.check = std::move(c);
  if (!a.ok) {
    std::fprintf(stderr,
                 "E5: PLACEMENT FAILED: %s W=%d: %zu SMs seen, %d..%d "
                 "blocks/SM (want %d), occupancy API %d\n",
                 kernel.c_str(), s.warps_per_sm, a.per_sm.size(), a.bpsm_min,
                 a.bpsm_max, s.blocks_per_sm, occupancy);
  }
  return a;
}

struct FfmaStats {
  double ipc_mean = 0, ipc_min = 1e30, ipc_max = 0;
  double cyc_mean = 0, cyc_min = 1e30, cyc_max = 0;
  uint64_t ns = 0;
};

// Per SM: FFMA warp-instructions on the SM / the SM's cycle span.
FfmaStats ComputeFfma(const Analysis& a, int warps_per_block) {
  FfmaStats f;
  for (const auto& kv : a.per_sm) {
    const double span = static_cast<double>(kv.second.cmax - kv.second.cmin);
    const double ipc = static_cast<double>(kv.second.blocks) * warps_per_block *
                       kFfmaPerWarp / span;
    f.ipc_mean += ipc;
    f.ipc_min = std::min(f.ipc_min, ipc);
    f.ipc_max = std::max(f.ipc_max, ipc);
    f.cyc_mean += span;
    f.cyc_min = std::min(f.cyc_min, span);
    f.cyc_max = std::max(f.cyc_max, span);
  }
  const double nsm = static_cast<double>(a.per_sm.size());
  f.ipc_mean /= nsm;
  f.cyc_mean /= nsm;
  f.ns = a.tmax - a.tmin;
  return f;
}

struct LoadStats {
  double bpc_mean = 0, bpc_min = 1e30, bpc_max = 0;
  double cyc_mean = 0, cpi = 0;
  uint64_t ns = 0;
};

// Per SM: bytes read by the SM's warps / the SM's cycle span.
LoadStats ComputeLoads(const Analysis& a, int warps_per_block, uint32_t iters,
                       uint64_t chunk) {
  LoadStats l;
  for (const auto& kv : a.per_sm) {
    const double span = static_cast<double>(kv.second.cmax - kv.second.cmin);
    const double bytes_sm = static_cast<double>(kv.second.blocks) *
                            warps_per_block * iters *
                            static_cast<double>(chunk);
    const double bpc = bytes_sm / span;
    l.bpc_mean += bpc;
    l.bpc_min = std::min(l.bpc_min, bpc);
    l.bpc_max = std::max(l.bpc_max, bpc);
    l.cyc_mean += span;
  }
  const double nsm = static_cast<double>(a.per_sm.size());
  l.bpc_mean /= nsm;
  l.cyc_mean /= nsm;
  l.cpi = a.block_cycles_mean / iters;
  l.ns = a.tmax - a.tmin;
  return l;
}

// Index of the median of v (the lower median for an even count).
size_t MedianIndex(const std::vector<double>& v) {
  std::vector<size_t> idx(v.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(),
            [&](size_t x, size_t y) { return v[x] < v[y]; });
  return idx[(idx.size() - 1) / 2];
}

Json ToJson(const std::vector<double>& v) {
  Json a = Json::Array();
  for (const double x : v) a.push_back(x);
  return a;
}

// Appends the reported run's placement check, with ok = every measured run
// was placed right; returns that.
bool PlacementEntry(const std::vector<Analysis>& runs, size_t pick,
                    Json* placement) {
  bool ok = true;
  for (const Analysis& a : runs) ok &= a.ok;
  Json c = runs[pick].check;
  c["measured_launches"] = static_cast<int>(runs.size());
  c["ok"] = ok;
  placement->push_back(std::move(c));
  return ok;
}

template <typename Fn>
int Occupancy(Fn fn, const Shape& s) {
  int n = 0;
  CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn, s.threads, s.smem));
  return n;
}

template <typename Fn>
int Registers(Fn fn) {
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, fn));
  return attr.numRegs;
}

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E5");
  const bool quick = opt.quick;
  Device dev;
  dev.sms = cuda_ref::Attribute(cudaDevAttrMultiProcessorCount);
  dev.smem_per_sm =
      cuda_ref::Attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
  dev.smem_reserved =
      cuda_ref::Attribute(cudaDevAttrReservedSharedMemoryPerBlock);
  dev.smem_optin = cuda_ref::Attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);

  const std::vector<int> warps =
      quick
          ? std::vector<int>{1, 8, 32, 64}
          : std::vector<int>{1, 2, 3, 4, 6, 8, 12, 16, 20, 24, 32, 40, 48, 64};
  const std::vector<int> ks =
      quick ? std::vector<int>{1, 8} : std::vector<int>{1, 2, 4, 8};
  const uint64_t l2_bytes = 16 * kMiB;
  const uint64_t hbm_bytes = quick ? 1 * kGiB : 4 * kGiB;
  const uint64_t bytes_target = quick ? 128 * kMiB : 2 * kGiB;
  const uint32_t iters_min = 16;
  const uint32_t iters_max = quick ? 512 : 4096;
  const float ffma_a = 0.999f, ffma_b = 0.5f;
  const uint32_t zero = 0;
  const uint32_t seed = 0xe5u;

  std::vector<Variant> variants = {
      {4, 1, LoadKernel<4, 1, 2>, 64},   {4, 2, LoadKernel<4, 2, 2>, 64},
      {4, 4, LoadKernel<4, 4, 2>, 64},   {4, 8, LoadKernel<4, 8, 2>, 64},
      {16, 1, LoadKernel<16, 1, 2>, 64}, {16, 2, LoadKernel<16, 2, 2>, 64},
      {16, 4, LoadKernel<16, 4, 2>, 64}, {16, 8, LoadKernel<16, 8, 1>, 32},
  };
  const int max_smem = PadBytes(dev, 1);
  Configure(FfmaKernel<false>, max_smem);
  Configure(FfmaKernel<true>, max_smem);
  Json regs = Json::Object();
  regs["ffma"] = Registers(FfmaKernel<false>);
  regs["ffma_3reg"] = Registers(FfmaKernel<true>);
  for (Variant& v : variants) {
    Configure(v.fn, max_smem);
    v.regs = Registers(v.fn);
    regs["load_" + std::to_string(v.bytes) + "B_k" + std::to_string(v.k)] =
        v.regs;
  }

  // Output buffers for the largest launch: 64 warps on every SM.
  Buffers buf;
  buf.max_blocks = size_t(2) * dev.sms;
  buf.out_words = size_t(dev.sms) * 64 * 32;
  CUDA_CHECK(cudaMalloc(&buf.out, buf.out_words * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&buf.recs, buf.max_blocks * sizeof(BlockRec)));

  // Data: an L2 ring and an HBM buffer of random nonzero words.
  uint8_t* l2_buf = nullptr;
  uint8_t* hbm_buf = nullptr;
  uint32_t* sink = nullptr;
  CUDA_CHECK(cudaMalloc(&l2_buf, l2_bytes));
  CUDA_CHECK(cudaMalloc(&hbm_buf, hbm_bytes));
  CUDA_CHECK(cudaMalloc(&sink, sizeof(uint32_t)));
  for (const auto& [ptr, bytes] :
       {std::pair<uint8_t*, uint64_t>{l2_buf, l2_bytes},
        std::pair<uint8_t*, uint64_t>{hbm_buf, hbm_bytes}}) {
    const uint64_t words = bytes / sizeof(uint32_t);
    FillKernel<<<dev.sms * 8, 256>>>(reinterpret_cast<uint32_t*>(ptr), words,
                                     seed);
    CUDA_CHECK_LAUNCH();
    // Spot-check the fill (never time on zeros).
    for (int s = 0; s < 16; ++s) {
      const uint64_t idx = s == 15 ? words - 1 : (words / 15) * s + s * 7;
      uint32_t got = 0;
      CUDA_CHECK(cudaMemcpy(&got, ptr + idx * sizeof(uint32_t), sizeof got,
                            cudaMemcpyDeviceToHost));
      if (got != HashWord(idx, seed)) {
        std::fprintf(stderr, "E5: fill check failed at word %llu\n",
                     static_cast<unsigned long long>(idx));
        return 5;
      }
    }
  }

  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();

  bool all_ok = true;
  Json placement = Json::Array();
  Json results = Json::Object();

  // ---- (a) FFMA: "ffma" (two register operands) and "ffma_3reg".
  for (const bool three : {false, true}) {
    const char* series = three ? "ffma_3reg" : "ffma";
    const FfmaFn fn = three ? FfmaKernel<true> : FfmaKernel<false>;
    Json ffma = Json::Array();
    const uint32_t loop_iters = kFfmaPerWarp / kFfmaUnroll;
    for (const int w : warps) {
      const Shape s = ShapeFor(dev, w);
      const int occ = Occupancy(fn, s);
      std::vector<Analysis> runs;
      for (int rep = 0; rep <= kMeasuredReps; ++rep) {  // warm-up + measured
        Poison(buf, s);
        fn<<<s.blocks, s.threads, s.smem>>>(ffma_a, ffma_b, loop_iters, buf.out,
                                            buf.recs);
        CUDA_CHECK_LAUNCH();
        Analysis a = Collect(buf, s, dev, series, occ);
        if (rep > 0) runs.push_back(std::move(a));
      }
      std::vector<FfmaStats> st;
      std::vector<double> key;
      for (const Analysis& a : runs) {
        st.push_back(ComputeFfma(a, s.threads / 32));
        key.push_back(st.back().ipc_mean);
      }
      const size_t pick = MedianIndex(key);
      const Analysis& a = runs[pick];
      const FfmaStats& f = st[pick];
      all_ok &= PlacementEntry(runs, pick, &placement);
      Json j = Json::Object();
      j["warps_per_sm"] = w;
      j["blocks_per_sm"] = s.blocks_per_sm;
      j["threads_per_block"] = s.threads;
      j["ffma_per_warp"] = kFfmaPerWarp;
      j["ipc_mean"] = f.ipc_mean;
      j["ipc_min"] = f.ipc_min;
      j["ipc_max"] = f.ipc_max;
      j["cycles_mean"] = f.cyc_mean;
      j["cycles_min"] = f.cyc_min;
      j["cycles_max"] = f.cyc_max;
      j["ns"] = f.ns;
      j["ffma_per_s"] = static_cast<double>(s.blocks) * s.threads *
                        kFfmaPerWarp / (static_cast<double>(f.ns) * 1e-9);
      j["sm_mhz_from_blocks"] = a.mhz_mean;
      j["ipc_mean_reps"] = ToJson(key);
      ffma.push_back(std::move(j));
      std::printf("E5 %s W=%2d: IPC %.3f (%.3f..%.3f)\n", series, w, f.ipc_mean,
                  f.ipc_min, f.ipc_max);
    }
    results[series] = std::move(ffma);
  }

  // ---- (b) loads
  {
    Json loads = Json::Array();
    uint64_t cursor = 0;  // HBM: where the next launch starts
    for (const char* placement_name : {"l2", "hbm"}) {
      const bool hbm = placement_name[0] == 'h';
      const uint8_t* base = hbm ? hbm_buf : l2_buf;
      const uint64_t footprint = hbm ? hbm_bytes : l2_bytes;
      const uint64_t mask = footprint - 1;
      for (const Variant& v : variants) {
        if (std::find(ks.begin(), ks.end(), v.k) == ks.end()) continue;
        const std::string name = "load_" + std::to_string(v.bytes) + "B_k" +
                                 std::to_string(v.k) + "_" + placement_name;
        for (const int w : warps) {
          if (w > v.max_warps_per_sm) {
            Json j = Json::Object();
            j["placement"] = placement_name;
            j["bytes_per_lane"] = v.bytes;
            j["k"] = v.k;
            j["warps_per_sm"] = w;
            j["skipped"] = "kernel uses " + std::to_string(v.regs) +
                           " registers/thread; " + std::to_string(w) +
                           " warps/SM allow " +
                           std::to_string(65536 / (32 * w));
            loads.push_back(std::move(j));
            continue;
          }
          const Shape s = ShapeFor(dev, w);
          const int occ = Occupancy(v.fn, s);
          const uint64_t chunk = uint64_t(v.k) * 32 * v.bytes;
          const uint64_t total_warps = uint64_t(s.blocks) * (s.threads / 32);
          const uint64_t per_iter = total_warps * chunk;
          const uint32_t iters = static_cast<uint32_t>(std::clamp<uint64_t>(
              bytes_target / per_iter, iters_min, iters_max));
          const uint64_t launch_bytes = per_iter * iters;
          if (hbm && launch_bytes > footprint / 2) {
            std::fprintf(stderr, "E5: launch reads %llu B of a %llu B ring\n",
                         static_cast<unsigned long long>(launch_bytes),
                         static_cast<unsigned long long>(footprint));
            return 4;
          }
          if (!hbm) {
            TouchKernel<<<dev.sms * 8, 256>>>(
                reinterpret_cast<const uint4*>(l2_buf),
                l2_bytes / sizeof(uint4), sink);
            CUDA_CHECK_LAUNCH();
          }
          std::vector<Analysis> runs;
          for (int rep = 0; rep <= kMeasuredReps;
               ++rep) {  // warm-up + measured
            const uint64_t start_off = hbm ? cursor : 0;
            Poison(buf, s);
            v.fn<<<s.blocks, s.threads, s.smem>>>(base, mask, start_off, iters,
                                                  zero, buf.out, buf.recs);
            CUDA_CHECK_LAUNCH();
            Analysis a = Collect(buf, s, dev, name, occ);
            if (hbm) cursor = (cursor + launch_bytes) & mask;
            if (rep > 0) runs.push_back(std::move(a));
          }
          std::vector<LoadStats> st;
          std::vector<double> key;
          for (const Analysis& a : runs) {
            st.push_back(ComputeLoads(a, s.threads / 32, iters, chunk));
            key.push_back(st.back().bpc_mean);
          }
          const size_t pick = MedianIndex(key);
          const Analysis& a = runs[pick];
          const LoadStats& l = st[pick];
          all_ok &= PlacementEntry(runs, pick, &placement);
          Json j = Json::Object();
          j["placement"] = placement_name;
          j["footprint_bytes"] = footprint;
          j["bytes_per_lane"] = v.bytes;
          j["k"] = v.k;
          j["warps_per_sm"] = w;
          j["blocks_per_sm"] = s.blocks_per_sm;
          j["threads_per_block"] = s.threads;
          j["iterations"] = iters;
          j["bytes"] = launch_bytes;
          j["cycles_mean"] = l.cyc_mean;
          j["ns"] = l.ns;
          j["bytes_per_cycle_per_sm"] = l.bpc_mean;
          j["bytes_per_cycle_per_sm_min"] = l.bpc_min;
          j["bytes_per_cycle_per_sm_max"] = l.bpc_max;
          j["gb_per_s"] =
              static_cast<double>(launch_bytes) / static_cast<double>(l.ns);
          j["cycles_per_iteration"] = l.cpi;
          j["bytes_per_iteration_per_sm"] =
              static_cast<unsigned long long>(w) * chunk;
          j["bytes_in_flight_per_sm"] = l.bpc_mean * l.cpi;
          j["sm_mhz_from_blocks"] = a.mhz_mean;
          j["bytes_per_cycle_per_sm_reps"] = ToJson(key);
          loads.push_back(std::move(j));
          std::printf(
              "E5 %s W=%2d: %.1f B/cycle/SM, %.0f GB/s, %.0f "
              "cycles/iter\n",
              name.c_str(), w, l.bpc_mean,
              static_cast<double>(launch_bytes) / static_cast<double>(l.ns),
              l.cpi);
        }
      }
    }
    results["loads"] = std::move(loads);
  }
  results["placement_check"] = std::move(placement);
  results["registers"] = std::move(regs);

  Json params = Json::Object();
  params["warps_per_sm"] = [&] {
    Json a = Json::Array();
    for (const int w : warps) a.push_back(w);
    return a;
  }();
  params["k"] = [&] {
    Json a = Json::Array();
    for (const int k : ks) a.push_back(k);
    return a;
  }();
  params["ffma_per_warp"] = kFfmaPerWarp;
  params["ffma_unroll"] = kFfmaUnroll;
  params["l2_footprint_bytes"] = l2_bytes;
  params["hbm_footprint_bytes"] = hbm_bytes;
  params["bytes_target_per_launch"] = bytes_target;
  params["iterations_min"] = iters_min;
  params["iterations_max"] = iters_max;
  params["load"] = "ld.global.cg (u32 or v4.u32), coalesced";
  params["smem_per_sm"] = dev.smem_per_sm;
  params["smem_reserved_per_block"] = dev.smem_reserved;
  params["smem_optin_per_block"] = dev.smem_optin;
  params["pad_bytes_1_block_per_sm"] = PadBytes(dev, 1);
  params["pad_bytes_2_blocks_per_sm"] = PadBytes(dev, 2);
  params["launches_per_point"] = 1 + kMeasuredReps;
  params["reported_launch"] = "median of the measured launches' main figure";

  CUDA_CHECK(cudaFree(buf.out));
  CUDA_CHECK(cudaFree(buf.recs));
  CUDA_CHECK(cudaFree(l2_buf));
  CUDA_CHECK(cudaFree(hbm_buf));
  CUDA_CHECK(cudaFree(sink));
  cuda_ref::WriteResult(opt, "E5", before, std::move(params),
                        std::move(results));
  if (!all_ok) {
    std::fprintf(stderr,
                 "E5: PLACEMENT FAILED for at least one point (see "
                 "results.placement_check, ok:false)\n");
    return 4;
  }
  return 0;
}
