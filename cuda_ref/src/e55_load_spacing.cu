// E55: what a warp's four loads in flight cost by how far apart their lines
// lie (ours; REFERENCE §6 lists E0-E14).
//
// What it measures
//   vulkan_ref's E54 found one warp an SM taking a pass of four whole-line
//   loads of a buffer the runner had just written (an unrolled loop, each
//   trip's line G bytes after the trip before's) 1.5 L2 latencies at G = 32
//   KB and 2.4 at 256 KB, where four loads of lines within 1 KB of each
//   other take 1.1 and one load alone costs the same whatever its distance
//   from the one before. Is that the memory Vulkan gives the buffer, or any
//   memory? This asks with CUDA's (cudaMalloc): one warp on one SM, each
//   step four loads of whole lines G bytes apart (every lane its word), the
//   next step's lines 4 G further, the step's address from all four loaded
//   values (so that a step waits for every load of the step before and no
//   more).
//
// How
//   A 16 MB buffer holds d[i] = i; step s's loads read p + j G + lane for j
//   = 0..3, and the next p is (v0 + v1 + v2 + v3 - 4 lane - 6 G) / 4 + 4 G,
//   which is p + 4 G when the values are right (the host checks the last
//   p). Before each walk the lines are placed:
//     upload  every line evicted (a memset of three times the L2), then a
//             cudaMemcpy from the host writes the buffer (E49, E51: in the
//             L2 on no side, a share in DRAM);
//     near    the same, then a kernel on the walking SM reads every word
//             of every line once (ld.global.cg): the SM's L2 side holds
//             them whole (E49; E51: a read of one word brings in 64 bytes);
//     other   the same, read by SM kOther, on the other L2 side (E49's
//             side map): every line in the L2 at the other side's
//             latency, as the runner's uploads come to vulkan_ref (E50).
//   The loads are ld.global.ca (through the L1, as a shader's storage-buffer
//   loads go; each line is read once a walk). Lane 0 records clock64 around
//   n steps; a walk runs with n = kSteps / 4 and with n = kSteps (the lines
//   placed again before each), and its cycles a step are the difference
//   over 3 kSteps / 4 steps. Each configuration: the median of kRepeats.
//
// Results: per (place, gap G bytes): cycles per step and per step over the
//   1 KB gap's.
#include <algorithm>
#include <vector>

#include "common.h"

using cuda_ref::Json;
using cuda_ref::LoadCa;
using cuda_ref::LoadCg;
using cuda_ref::Median;

namespace {

constexpr uint32_t kWords = 4u << 20;  // 16 MB
constexpr uint32_t kSteps = 12;        // 48 lines: 12 MB at 256 KB
constexpr int kRepeats = 5;
constexpr int kSm = 0;
constexpr int kOther = 2;  // E49: SM 2 is on the other side from SM 0
const uint32_t kGapBytes[] = {1024,      16 << 10,  32 << 10,
                              64 << 10,  128 << 10, 256 << 10,
                              260 << 10, 288 << 10, 320 << 10};

struct WalkRec {
  uint32_t ran;
  uint32_t end;
  uint64_t span;
};

__global__ void WalkKernel(const uint32_t* data, uint32_t gap, uint32_t n,
                           WalkRec* rec) {
  if (cuda_ref::SmId() != static_cast<uint32_t>(kSm)) return;
  const uint32_t lane = threadIdx.x % 32;
  uint32_t p = 0;
  const uint64_t c0 = cuda_ref::ClockAfterMemory();
#pragma unroll 1
  for (uint32_t s = 0; s < n; ++s) {
    const uint32_t v0 = LoadCa(data + p + lane);
    const uint32_t v1 = LoadCa(data + p + gap + lane);
    const uint32_t v2 = LoadCa(data + p + 2 * gap + lane);
    const uint32_t v3 = LoadCa(data + p + 3 * gap + lane);
    p = (v0 + v1 + v2 + v3 - 4 * lane - 6 * gap) / 4 + 4 * gap;
  }
  const uint64_t c1 = cuda_ref::ClockAfterMemory();
  if (lane == 0) {
    rec->ran = 1;
    rec->end = p;
    rec->span = c1 - c0;
  }
}

// Reads every word of every line (ld.global.cg) on SM `sm`, a line a warp
// (all four sectors: E51 found a read of word 0 bringing in 64 bytes).
__global__ void TouchKernel(const uint32_t* data, uint32_t* sink, uint32_t sm) {
  if (cuda_ref::SmId() != sm) return;
  uint32_t acc = 0;
  const uint32_t lane = threadIdx.x % 32, warps = blockDim.x / 32;
  for (uint32_t l = threadIdx.x / 32; l < kWords / 32; l += warps) {
    acc += LoadCg(data + l * 32 + lane);
  }
  if (acc == 0xffffffffu) sink[threadIdx.x] = acc;
}

struct Ctx {
  int sms = 0, pad = 0;
  uint32_t* data = nullptr;
  uint8_t* flush = nullptr;
  size_t flush_bytes = 0;
  uint32_t* sink = nullptr;
  WalkRec* rec = nullptr;
  std::vector<uint32_t> host;
};

// Places the lines (0 upload, 1 near, 2 other) and walks n steps of gap words;
// returns the span, or -1 when the walk did not run on kSm or ended at
// the wrong word.
double WalkOnce(const Ctx& c, int place, uint32_t gap, uint32_t n) {
  CUDA_CHECK(cudaMemset(c.flush, 0x5a, c.flush_bytes));
  CUDA_CHECK(cudaMemcpy(c.data, c.host.data(), size_t{kWords} * 4,
                        cudaMemcpyHostToDevice));
  if (place != 0) {
    TouchKernel<<<c.sms, 1024, c.pad>>>(c.data, c.sink,
                                        place == 1 ? kSm : kOther);
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaMemset(c.rec, 0, sizeof(WalkRec)));
  WalkKernel<<<c.sms, 32, c.pad>>>(c.data, gap, n, c.rec);
  CUDA_CHECK_LAUNCH();
  WalkRec r;
  CUDA_CHECK(cudaMemcpy(&r, c.rec, sizeof r, cudaMemcpyDeviceToHost));
  if (r.ran != 1 || r.end != n * 4 * gap) return -1;
  return static_cast<double>(r.span);
}

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E55");
  Ctx c;
  c.sms = cuda_ref::Attribute(cudaDevAttrMultiProcessorCount);
  c.pad = cuda_ref::OneBlockPerSmBytes();
  const int l2 = cuda_ref::Attribute(cudaDevAttrL2CacheSize);
  c.flush_bytes = size_t(3) * static_cast<size_t>(l2);
  cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(WalkKernel),
                               c.pad);
  cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(TouchKernel),
                               c.pad);
  CUDA_CHECK(cudaMalloc(&c.data, size_t{kWords} * 4));
  CUDA_CHECK(cudaMalloc(&c.flush, c.flush_bytes));
  CUDA_CHECK(cudaMalloc(&c.sink, 1024 * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&c.rec, sizeof(WalkRec)));
  c.host.resize(kWords);
  for (uint32_t i = 0; i < kWords; ++i) c.host[i] = i;

  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();
  const char* places[] = {"upload", "near", "other"};
  bool all_ok = true;
  Json results = Json::Array();
  for (int place = 0; place < 3; ++place) {
    double first = 0;  // the 1 KB gap's step
    for (const uint32_t bytes : kGapBytes) {
      const uint32_t gap = bytes / 4;
      std::vector<double> steps;
      for (int r = 0; r < kRepeats; ++r) {
        const double a = WalkOnce(c, place, gap, kSteps / 4);
        const double b = WalkOnce(c, place, gap, kSteps);
        if (a < 0 || b < 0) {
          all_ok = false;
          continue;
        }
        steps.push_back((b - a) / (kSteps - kSteps / 4));
      }
      if (steps.empty()) continue;
      const double med = Median(steps);
      if (first == 0) first = med;
      const auto [lo, hi] = std::minmax_element(steps.begin(), steps.end());
      Json row = Json::Object();
      row["place"] = places[place];
      row["gap_bytes"] = static_cast<unsigned long long>(bytes);
      row["cycles_per_step"] = med;
      row["min"] = *lo;
      row["max"] = *hi;
      row["over_1k"] = med / first;
      std::printf(
          "E55 %-6s gap %6u B: %7.1f cycles a step (%.1f-%.1f), "
          "%.2f of 1 KB's\n",
          places[place], bytes, med, *lo, *hi, med / first);
      results.push_back(std::move(row));
    }
  }
  Json params = Json::Object();
  params["sm"] = kSm;
  params["other_sm"] = kOther;
  params["buffer_bytes"] = static_cast<unsigned long long>(kWords) * 4;
  params["steps"] = static_cast<int>(kSteps);
  params["loads_a_step"] = 4;
  params["repeats"] = kRepeats;
  params["flush_bytes"] = static_cast<unsigned long long>(c.flush_bytes);
  params["dynamic_shared_bytes"] = c.pad;
  Json series = Json::Object();
  series["walks"] = std::move(results);
  cuda_ref::WriteResult(opt, "E55", before, std::move(params),
                        std::move(series));
  CUDA_CHECK(cudaFree(c.data));
  CUDA_CHECK(cudaFree(c.flush));
  CUDA_CHECK(cudaFree(c.sink));
  CUDA_CHECK(cudaFree(c.rec));
  if (!all_ok) {
    std::printf("WALK FAILED (not on SM %d, or a wrong end)\n", kSm);
    return 4;
  }
  return 0;
}
