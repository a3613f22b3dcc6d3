// E51: how many of one warp's loads of L2 lines wait together (ours;
// REFERENCE §6 lists E0-E14).
//
// What it measures
//   vulkan_ref's E48 found a fragment warp's pass of four independent
//   loads, each of a whole line (32 lanes, 4 sectors) that the host had
//   just written, taking about two L2 latencies with 8 and with 32 warps
//   on an SM, where the same pass reading one word of each line (every
//   lane the same, 1 sector) took about one; the SASS issues the four
//   loads back to back. Does a warp, or an SM, hold only so many of them
//   in flight? This experiment asks with CUDA: W warps of one block on
//   one SM, each walking K chains in step (K independent loads issued
//   back to back a step, each step's address from the step before), the
//   loads reading S sectors of their line.
//
// How
//   Chain c (warp w's chain j is c = w * K + j) walks a random cycle
//   through its own kSlice lines (every word of a line holds the next
//   line's word index, so that each lane finds the next address in the
//   word it reads); lane l reads word l mod (8 S) of the line: S = 1, 2 or
//   4 sectors. Before each walk the lines are placed:
//     near    every line evicted (a memset of three times the L2), then a
//             kernel on the same SM reads each once (ld.global.cg): the
//             SM's L2 side holds them (cuda_ref's E49);
//     upload  every line evicted, then a cudaMemcpy from the host writes
//             the chains' lines (E49: in the L2, on no side);
//     dram    every line evicted.
//   The loads are ld.global.cg (the L2's figures; L1 bypassed) or
//   ld.global.ca (through the L1, as a shader's storage-buffer loads go;
//   each line is read once a walk, so the L1 misses). Each warp's lane 0
//   records clock64 around n steps; a configuration runs with n = kSteps / 2
//   and with n = kSteps (the lines placed again before each), and its
//   cycles a step are the difference over kSteps / 2 steps: what the
//   first step's wait for the chains' start and the last's unconsumed
//   loads add cancels. Per configuration: the median, least and most over
//   the block's warps.
//
// Results: per (cache, place, warps W, chains K, sectors S): cycles per
//   step (median, min, max over the warps) and cycles per step over the
//   K = 1 walk's of the same cache, place, W and S.
//
// Run time (H100): 2 x 3 x 4 x 6 x 3 configurations, two walks each, a
// few hundred microseconds a walk with its placement.
#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "common.h"

using cuda_ref::Json;

namespace {

constexpr uint32_t kLineWords = 32;
constexpr uint32_t kSlice = 256;  // lines per chain: one cycle through them
constexpr uint32_t kSteps = 256;  // the longer walk: the whole cycle
const int kWarps[] = {1, 4, 8, 16};
const int kChains[] = {1, 2, 3, 4, 6, 8};
const int kSectors[] = {1, 2, 4};
constexpr int kMaxChains = 16 * 8;
constexpr int kSm = 0;  // the SM that walks

template <bool kCa>
__device__ __forceinline__ uint32_t Load(const uint32_t* p) {
  uint32_t v;
  if (kCa) {
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  } else {
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  }
  return v;
}

struct WalkRec {
  uint32_t ran;  // 1: the warp ran on kSm
  uint32_t end;  // the chains' last indices, summed (kept live)
  uint64_t span;
};

// Warp w walks chains w * K .. w * K + K - 1 from starts[], n steps.
template <int K, bool kCa>
__global__ void WalkKernel(const uint32_t* data, const uint32_t* starts,
                           uint32_t lane_words, uint32_t n, WalkRec* rec) {
  if (cuda_ref::SmId() != static_cast<uint32_t>(kSm)) return;
  const uint32_t w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t word = lane % lane_words;
  uint32_t p[K];
#pragma unroll
  for (int j = 0; j < K; ++j) p[j] = starts[w * K + j];
  const uint64_t c0 = cuda_ref::ClockAfterMemory();
#pragma unroll 1
  for (uint32_t s = 0; s < n; ++s) {
    uint32_t v[K];
#pragma unroll
    for (int j = 0; j < K; ++j) v[j] = Load<kCa>(data + p[j] + word);
#pragma unroll
    for (int j = 0; j < K; ++j) p[j] = v[j];
  }
  const uint64_t c1 = cuda_ref::ClockAfterMemory();
  uint32_t sum = 0;
#pragma unroll
  for (int j = 0; j < K; ++j) sum += p[j];
  if (lane == 0) {
    rec[w].ran = 1;
    rec[w].end = sum;
    rec[w].span = c1 - c0;
  }
}

// Reads word 0 of each of `lines` lines (ld.global.cg) on kSm.
__global__ void TouchKernel(const uint32_t* data, uint32_t lines,
                            uint32_t* sink) {
  if (cuda_ref::SmId() != static_cast<uint32_t>(kSm)) return;
  uint32_t acc = 0;
  for (uint32_t l = threadIdx.x; l < lines; l += blockDim.x) {
    acc += Load<false>(data + l * kLineWords);
  }
  if (acc == 0xffffffffu) sink[threadIdx.x] = acc;
}

using Walk = void (*)(const uint32_t*, const uint32_t*, uint32_t, uint32_t,
                      WalkRec*);

template <bool kCa>
Walk Pick(int k) {
  switch (k) {
    case 1:
      return WalkKernel<1, kCa>;
    case 2:
      return WalkKernel<2, kCa>;
    case 3:
      return WalkKernel<3, kCa>;
    case 4:
      return WalkKernel<4, kCa>;
    case 6:
      return WalkKernel<6, kCa>;
    default:
      return WalkKernel<8, kCa>;
  }
}

struct Ctx {
  int sms = 0, pad = 0;
  uint32_t* data = nullptr;
  uint32_t* starts = nullptr;
  uint8_t* flush = nullptr;
  size_t flush_bytes = 0;
  uint32_t* sink = nullptr;
  WalkRec* rec = nullptr;
  std::vector<uint32_t> host;
};

void Flush(const Ctx& c) {
  CUDA_CHECK(cudaMemset(c.flush, 0x5a, c.flush_bytes));
  CUDA_CHECK(cudaDeviceSynchronize());
}

// Places the first `chains` slices' lines (0 near, 1 upload, 2 dram) and
// walks them n steps; returns each warp's span (empty when a warp did not
// run on kSm).
std::vector<double> WalkOnce(const Ctx& c, Walk walk, int place, int warps,
                             int chains, uint32_t lane_words, uint32_t n) {
  const uint32_t lines = static_cast<uint32_t>(chains) * kSlice;
  Flush(c);
  if (place == 0) {
    TouchKernel<<<c.sms, 256, c.pad>>>(c.data, lines, c.sink);
    CUDA_CHECK_LAUNCH();
  } else if (place == 1) {
    CUDA_CHECK(cudaMemcpy(c.data, c.host.data(),
                          size_t{lines} * kLineWords * sizeof(uint32_t),
                          cudaMemcpyHostToDevice));
  }
  CUDA_CHECK(cudaMemset(c.rec, 0, sizeof(WalkRec) * 16));
  walk<<<c.sms, warps * 32, c.pad>>>(c.data, c.starts, lane_words, n, c.rec);
  CUDA_CHECK_LAUNCH();
  std::vector<WalkRec> r(warps);
  CUDA_CHECK(cudaMemcpy(r.data(), c.rec, sizeof(WalkRec) * warps,
                        cudaMemcpyDeviceToHost));
  std::vector<double> spans;
  for (const WalkRec& x : r) {
    if (x.ran != 1) return {};
    spans.push_back(static_cast<double>(x.span));
  }
  return spans;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E51");
  Ctx c;
  c.sms = cuda_ref::Attribute(cudaDevAttrMultiProcessorCount);
  c.pad = cuda_ref::OneBlockPerSmBytes();
  const int l2 = cuda_ref::Attribute(cudaDevAttrL2CacheSize);
  c.flush_bytes = size_t(3) * static_cast<size_t>(l2);
  cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(TouchKernel),
                               c.pad);
  for (const int k : kChains) {
    cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(Pick<true>(k)),
                                 c.pad);
    cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(Pick<false>(k)),
                                 c.pad);
  }
  const size_t words = size_t{kMaxChains} * kSlice * kLineWords;
  CUDA_CHECK(cudaMalloc(&c.data, words * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&c.starts, kMaxChains * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&c.flush, c.flush_bytes));
  CUDA_CHECK(cudaMalloc(&c.sink, 256 * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&c.rec, 16 * sizeof(WalkRec)));

  // Each chain's slice: one random cycle (Sattolo's shuffle, fixed seed)
  // through its lines, every word of a line holding the next line's first
  // word's index.
  c.host.assign(words, 0);
  std::vector<uint32_t> starts(kMaxChains);
  std::mt19937 rng(51);
  for (int ch = 0; ch < kMaxChains; ++ch) {
    std::vector<uint32_t> order(kSlice);
    std::iota(order.begin(), order.end(), 0u);
    for (uint32_t i = kSlice - 1; i > 0; --i) {
      std::uniform_int_distribution<uint32_t> pick(0, i - 1);
      std::swap(order[i], order[pick(rng)]);
    }
    const uint32_t base = static_cast<uint32_t>(ch) * kSlice;
    for (uint32_t i = 0; i < kSlice; ++i) {
      const uint32_t next = (base + order[(i + 1) % kSlice]) * kLineWords;
      for (uint32_t w = 0; w < kLineWords; ++w) {
        c.host[size_t{base + order[i]} * kLineWords + w] = next;
      }
    }
    starts[ch] = (base + order[0]) * kLineWords;
  }
  CUDA_CHECK(cudaMemcpy(c.data, c.host.data(), words * sizeof(uint32_t),
                        cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(c.starts, starts.data(), kMaxChains * sizeof(uint32_t),
                        cudaMemcpyHostToDevice));

  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();
  const char* places[] = {"near", "upload", "dram"};
  const char* caches[] = {"cg", "ca"};
  bool all_ok = true;
  Json results = Json::Array();
  for (int ca = 0; ca < 2; ++ca) {
    for (int place = 0; place < 3; ++place) {
      for (const int warps : kWarps) {
        if (opt.quick && warps > 4) continue;
        for (const int sectors : kSectors) {
          double one = 0;  // K = 1's median step
          for (const int k : kChains) {
            const Walk walk = ca ? Pick<true>(k) : Pick<false>(k);
            const uint32_t lane_words = 8u * static_cast<uint32_t>(sectors);
            const auto half = WalkOnce(c, walk, place, warps, warps * k,
                                       lane_words, kSteps / 2);
            const auto full =
                WalkOnce(c, walk, place, warps, warps * k, lane_words, kSteps);
            if (half.empty() || full.empty()) {
              all_ok = false;
              continue;
            }
            std::vector<double> step(warps);
            for (int w = 0; w < warps; ++w) {
              step[w] = (full[w] - half[w]) / (kSteps / 2);
            }
            const double med = Median(step);
            if (k == 1) one = med;
            const auto [lo, hi] = std::minmax_element(step.begin(), step.end());
            Json row = Json::Object();
            row["cache"] = caches[ca];
            row["place"] = places[place];
            row["warps"] = warps;
            row["chains"] = k;
            row["sectors"] = sectors;
            row["cycles_per_step"] = med;
            row["min"] = *lo;
            row["max"] = *hi;
            row["over_one_chain"] = one > 0 ? med / one : 0.0;
            std::printf(
                "E51 %s %-6s W=%2d S=%d K=%d: %7.1f cycles a step (%.1f-%.1f), "
                "%.2f of K=1\n",
                caches[ca], places[place], warps, sectors, k, med, *lo, *hi,
                one > 0 ? med / one : 0.0);
            results.push_back(std::move(row));
          }
        }
      }
    }
  }
  Json params = Json::Object();
  params["sm"] = kSm;
  params["slice_lines"] = static_cast<int>(kSlice);
  params["steps"] = static_cast<int>(kSteps);
  params["line_bytes"] = static_cast<int>(kLineWords * 4);
  params["flush_bytes"] = static_cast<unsigned long long>(c.flush_bytes);
  params["dynamic_shared_bytes"] = c.pad;
  Json series = Json::Object();
  series["walks"] = std::move(results);
  cuda_ref::WriteResult(opt, "E51", before, std::move(params),
                        std::move(series));
  CUDA_CHECK(cudaFree(c.data));
  CUDA_CHECK(cudaFree(c.starts));
  CUDA_CHECK(cudaFree(c.flush));
  CUDA_CHECK(cudaFree(c.sink));
  CUDA_CHECK(cudaFree(c.rec));
  if (!all_ok) {
    std::printf("PLACEMENT FAILED (a walk did not run on SM %d)\n", kSm);
    return 4;
  }
  return 0;
}
