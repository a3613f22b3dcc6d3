// E33: what a memory instruction takes of the issue when many warps share
// an SM (ours; REFERENCE §6 lists E0-E14).
//
// What it measures
//   cuda_ref's E32 found that with 32 and 64 warps per SM a loop of K
//   independent FFMA takes one issue slot per SASS instruction, but that one
//   global load per trip (LDG, every lane the same word) takes about 2.85
//   slots per warp and trip beyond its loop's instructions. This experiment
//   tells which memory instructions do so, and by how much: loops of 16
//   independent FFMA (4 chains, E32's ffma_k16) with one memory instruction
//   of a kind per trip (inline PTX, so that ptxas neither drops nor merges
//   it), at 1, 32 and 64 warps per SM:
//     ffma_k16   nothing more (E32's ffma_k16);
//     ldg_word   ld.global.ca.u32, every lane the same word, its value
//                (0) in the next trip's address and added to an FFMA chain
//                (E32's ldg_k16);
//     ldg_lanes  the same, each lane its own word (one 128-byte line a
//                warp);
//     ldg_v4     ld.global.ca.v4.u32, every lane the same 16 bytes (the
//                four words xor-ed into the next address);
//     ldg_two    two independent ld.global.ca.u32 (2 KB apart, every lane
//                the same words), both feeding the next address: whether
//                the cost adds per load;
//     stg_lanes  st.global.u32 of the trip's counter, each lane its own word
//                (a separate buffer; each trip the other of the warp's two
//                lines, so the address changes every trip);
//     lds_word   ld.shared.u32, every lane the same word of a 1 KB static
//                shared array (zeros), its value in the next address;
//     sts_lanes  st.shared.u32, each lane its own word (the other of two
//                128-byte rows every trip);
//     red_lanes  red.global.add.u32 (an atomic without return) of the
//                trip's counter, each lane its own word, addressed as
//                stg_lanes;
//     ldg_uniform ld.global.ca.u32, every lane the same word, its address
//                from the kernel's parameter and the trip counter only (no
//                loaded value): one the compiler can know is uniform
//                (vulkan_ref's memory_loads family reads such words).
//   Besides, every trip has the counter's add, the exit compare and the
//   branch back, and each memory instruction its address arithmetic. The
//   SASS (cuobjdump, beside the result) gives each loop's instructions. The
//   stores and reductions send 128 bytes a warp and trip to L2 (all warps
//   of all SMs, different lines): where they take more than their slots at
//   64 warps, the L2's write bandwidth may be what bounds them.
// How
//   W warps per SM: 1 and 32 (one block per SM, padded with shared memory
//   as in E18; the shared-memory kernels' 1 KB static array comes on top
//   of the padding, which still leaves room for one block and not two) and
//   64 (two blocks of 1024 threads, 32 registers a thread). Before
//   measuring, the occupancy API's blocks per SM for every launch is
//   checked (1, or 2 at W = 64). Lane 0 of each warp records clock64
//   before and after the loop; each configuration is launched 4 times (1
//   warm-up, 3 measured), the median reported.
// Results, per variant: registers and static_shared_bytes
//   (cudaFuncGetAttributes) and per W: cycles_per_trip (the SMs' mean span
//   over the trips), slots_per_warp_trip (that x 4 / W), reps,
//   placement_ok, blocks_per_sm_api.
//
// Run time (H200): 10 variants x 3 W x 4 launches, each under 20 ms.
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
constexpr int kFfmaPerTrip = 16;
// The shared-memory kernels' static array: 256 words (1 KB).
constexpr uint32_t kSharedWords = 256;

using WarpRec = cuda_ref::WarpSpan;

__device__ __forceinline__ uint32_t LoadCaV4Xor(const uint32_t* p) {
  uint32_t v0, v1, v2, v3;
  asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)
               : "l"(p)
               : "memory");
  return v0 ^ v1 ^ v2 ^ v3;
}
__device__ __forceinline__ void StoreGlobal(uint32_t* p, uint32_t v) {
  asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void RedAdd(uint32_t* p, uint32_t v) {
  asm volatile("red.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
// Shared-memory accesses by a shared-window address (cvta.to.shared).
__device__ __forceinline__ uint32_t LoadShared(uint32_t addr) {
  uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ void StoreShared(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
// The other of two 128-byte lines (the base's bit 7 clear).
template <class T>
__device__ __forceinline__ T* OtherLine(T* p) {
  return reinterpret_cast<T*>(reinterpret_cast<uintptr_t>(p) ^ 128u);
}

enum Kind {
  kFfma,
  kLdgWord,
  kLdgLanes,
  kLdgV4,
  kLdgTwo,
  kStgLanes,
  kLdsWord,
  kStsLanes,
  kRedLanes,
  kLdgUniform
};

// data: 1024 words of zeros (every load reads 0, so u stays 0); sink:
// 64 words a warp (two 128-byte lines, 256-byte aligned).
template <Kind kKind>
__global__ void __launch_bounds__(1024, 2)
    MemSlotKernel(const uint32_t* data, uint32_t* sink, float a, float b,
                  uint32_t trips, float* out, WarpRec* recs) {
  constexpr bool kShared = kKind == kLdsWord || kKind == kStsLanes;
  const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t lane = threadIdx.x & 31;
  float x[4] = {1.0f + g, 2.0f, 3.0f, 4.0f};
  uint32_t u = data[0];  // 0: the word every load reads
  const uint32_t* lane_data = data + lane;
  uint32_t* mine = sink + (g >> 5) * 64 + lane;
  uint32_t saddr = 0;
  if constexpr (kShared) {
    // 256-byte aligned: saddr ^ 128 stays in the array.
    __shared__ __align__(256) uint32_t words[kSharedWords];
    for (uint32_t i = threadIdx.x; i < kSharedWords; i += blockDim.x) {
      words[i] = 0;
    }
    __syncthreads();
    saddr = static_cast<uint32_t>(__cvta_generic_to_shared(words));
    if constexpr (kKind == kStsLanes) saddr += lane * 4;
  }
  __syncwarp();
  const uint64_t c0 = cuda_ref::ClockAfterMemory();
#pragma unroll 1
  for (uint32_t t = 0; t < trips; ++t) {
    Ffmas<kFfmaPerTrip>(x, a, b);
    if constexpr (kKind == kLdgWord) {
      u = LoadCa(data + (u & 1023));
      x[0] += __uint_as_float(u);
    } else if constexpr (kKind == kLdgLanes) {
      // 992: a multiple of 32 words, so the warp reads one line.
      u = LoadCa(lane_data + (u & 992));
      x[0] += __uint_as_float(u);
    } else if constexpr (kKind == kLdgV4) {
      u = LoadCaV4Xor(data + (u & 1020));
      x[0] += __uint_as_float(u);
    } else if constexpr (kKind == kLdgTwo) {
      const uint32_t* p = data + (u & 511);
      u = LoadCa(p) ^ LoadCa(p + 512);
      x[0] += __uint_as_float(u);
    } else if constexpr (kKind == kStgLanes) {
      mine = OtherLine(mine);
      StoreGlobal(mine, t);
    } else if constexpr (kKind == kLdsWord) {
      u = LoadShared(saddr + (u & (kSharedWords - 1)) * 4);
      x[0] += __uint_as_float(u);
    } else if constexpr (kKind == kStsLanes) {
      saddr ^= 128u;
      StoreShared(saddr, t);
    } else if constexpr (kKind == kRedLanes) {
      mine = OtherLine(mine);
      RedAdd(mine, t);
    } else if constexpr (kKind == kLdgUniform) {
      // An address from the kernel's parameter and the trip counter only:
      // the compiler may know it is the warp's one address.
      u ^= LoadCa(data + ((t << 5) & 1023));
      x[0] += __uint_as_float(u);
    }
  }
  out[g] = x[0] + x[1] + x[2] + x[3] + __uint_as_float(u);
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

using SlotFn = void (*)(const uint32_t*, uint32_t*, float, float, uint32_t,
                        float*, WarpRec*);

struct Variant {
  const char* name;
  const char* extra;  // the memory instruction added per trip, or "-"
  SlotFn fn;
};
const Variant kVariants[] = {
    {"ffma_k16", "-", MemSlotKernel<kFfma>},
    {"ldg_word", "LDG, one word", MemSlotKernel<kLdgWord>},
    {"ldg_lanes", "LDG, a word a lane", MemSlotKernel<kLdgLanes>},
    {"ldg_v4", "LDG.128, one 16 B", MemSlotKernel<kLdgV4>},
    {"ldg_two", "2 LDG, one word each", MemSlotKernel<kLdgTwo>},
    {"stg_lanes", "STG, a word a lane", MemSlotKernel<kStgLanes>},
    {"lds_word", "LDS, one word", MemSlotKernel<kLdsWord>},
    {"sts_lanes", "STS, a word a lane", MemSlotKernel<kStsLanes>},
    {"red_lanes", "RED.ADD, a word a lane", MemSlotKernel<kRedLanes>},
    {"ldg_uniform", "LDG, one word at a uniform address",
     MemSlotKernel<kLdgUniform>},
};

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E33");
  const int sms = cuda_ref::Attribute(cudaDevAttrMultiProcessorCount);
  const int pad = cuda_ref::OneBlockPerSmBytes();
  const std::vector<int> warps =
      opt.quick ? std::vector<int>{1} : std::vector<int>{1, 32, 64};
  for (const Variant& v : kVariants) {
    cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(v.fn), pad);
  }
  constexpr uint32_t kWords = 1024;
  std::vector<uint32_t> host_data(kWords, 0);  // every load reads 0
  uint32_t* data = nullptr;
  uint32_t* sink = nullptr;
  float* out = nullptr;
  WarpRec* recs = nullptr;
  const size_t max_threads = size_t(sms) * 2048;
  CUDA_CHECK(cudaMalloc(&data, kWords * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemcpy(data, host_data.data(), kWords * sizeof(uint32_t),
                        cudaMemcpyHostToDevice));
  // 64 words (two lines) a warp.
  CUDA_CHECK(cudaMalloc(&sink, max_threads / 32 * 64 * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&out, max_threads * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&recs, max_threads / 32 * sizeof(WarpRec)));

  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();
  Json results = Json::Array();
  bool all_ok = true;
  for (const Variant& v : kVariants) {
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, v.fn));
    Json per_w = Json::Array();
    for (const int w : warps) {
      // What the launch should place: 1 block per SM, 2 at W = 64.
      const cuda_ref::TripGrid grid = cuda_ref::TripGridFor(w, sms, pad);
      int api_blocks = 0;
      CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &api_blocks, v.fn, grid.threads, grid.shared));
      const int want_blocks = grid.blocks / sms;
      if (api_blocks != want_blocks) {
        std::printf(
            "E33 %-10s W=%2d: the occupancy API gives %d blocks per SM, "
            "not %d\n",
            v.name, w, api_blocks, want_blocks);
        all_ok = false;
      }
      const cuda_ref::TripMeasure m = cuda_ref::MeasureTrips(
          w, sms, pad, kMeasuredReps, kTrips, recs,
          [&](const cuda_ref::TripGrid& g) {
            v.fn<<<g.blocks, g.threads, g.shared>>>(data, sink, 0.999f, 0.5f,
                                                    kTrips, out, recs);
          });
      all_ok &= m.placed;
      std::printf(
          "E33 %-10s W=%2d: %8.2f cycles per trip, %6.2f slots per warp "
          "trip%s\n",
          v.name, w, m.median, m.median * 4.0 / w,
          m.placed ? "" : " PLACEMENT FAILED");
      Json row = cuda_ref::TripRow(w, m);
      row["blocks_per_sm_api"] = api_blocks;
      per_w.push_back(std::move(row));
    }
    Json entry = Json::Object();
    entry["variant"] = v.name;
    entry["extra"] = v.extra;
    entry["ffma"] = kFfmaPerTrip;
    entry["registers"] = attr.numRegs;
    entry["static_shared_bytes"] = static_cast<int>(attr.sharedSizeBytes);
    entry["rows"] = std::move(per_w);
    results.push_back(std::move(entry));
  }
  Json params = Json::Object();
  params["trips"] = static_cast<int>(kTrips);
  params["measured_launches"] = kMeasuredReps;
  params["dynamic_shared_bytes"] = pad;
  Json series = Json::Object();
  series["variants"] = std::move(results);
  cuda_ref::WriteResult(opt, "E33", before, std::move(params),
                        std::move(series));
  CUDA_CHECK(cudaFree(data));
  CUDA_CHECK(cudaFree(sink));
  CUDA_CHECK(cudaFree(out));
  CUDA_CHECK(cudaFree(recs));
  if (!all_ok) {
    std::printf("PLACEMENT FAILED\n");
    return 4;
  }
  return 0;
}
