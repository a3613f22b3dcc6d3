// E49: whether an L2 hit's latency depends on which SM read the line
// before (ours; REFERENCE §6 lists E0-E14).
//
// What it measures
//   cuda_ref's E2 found one thread's ld.global.cg chain at l2_latency (280
//   cycles on the H200) while its footprint stays under 24 MB and at
//   l2_far_latency (477) beyond, of a 60 MB L2: the L2 is split in two
//   parts, and an SM sees its own part's copies of lines at the shorter
//   latency. vulkan_ref's E48 found a fragment warp's L2 hit on a line
//   that the draw before read once (by whichever SM drew that pixel) near
//   the longer latency, while lines read many times (E24's chases, E39's
//   shared lines) come at the shorter one. This experiment asks the L2
//   directly: after SM b has read (or written) a set of lines, how long
//   does SM a's chain through those lines take a step?
//
// How
//   A region of kLines 128-byte lines holds one random cycle through them
//   (word 0 of each line holds the next line's word index). Before each
//   measurement every line is evicted (a memset of three times the L2's
//   size). Then:
//     dram        SM a chases the cycle (its lines come from DRAM);
//     upload      a cudaMemcpy from the host rewrites the region, then SM a
//                 chases it (what vkref does with a scene's buffers);
//     lap2        SM a chases the cycle twice in one kernel; the second lap
//                 is timed (E2's measurement);
//     read[b]     a kernel in which the block on SM b reads every line
//                 (ld.global.cg, 256 threads), then a kernel in which SM a
//                 chases them: for every SM b;
//     write[b]    the same with the block on SM b storing every line's word
//                 (the same value) instead of reading it;
//     same[b]     one kernel: the block on SM b reads every line, then sets
//                 a flag; the block on SM a waits for it and chases.
//     ordered     1024 lines `stride` bytes apart (128 B to 8 KB) walked
//                 in address order by SM a (the first reader) after the
//                 host's copy (upload), after every line was evicted
//                 (dram), after an SM of the other side read them
//                 (other; the SM whose reads the sweep found slowest) and
//                 after SM a read them (own): whether a side takes in more
//                 than the line a read asks for.
//   Each for the readers a in kReaders (those below the SM count). One
//   thread chases: kLines dependent ld.global.cg loads, clock64 before and
//   after; cycles_per_step = that span / kLines. Grids of one block per SM
//   (padded with shared memory as in E18): the block whose %smid is the
//   SM named does the work, the others return.
//
// Results, per reader a: dram, upload, lap2 (cycles per step), and per
//   SM b the read, write and same figures; per stride the ordered walks'
//   figures.
//
// Run time (H200): 5 readers x 132 SMs x 3 sweeps, each about 1.5 ms.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "common.h"

using cuda_ref::Json;
using cuda_ref::LoadCg;

namespace {

constexpr uint32_t kLines = 4096;  // 512 KB: far below l2_bytes
constexpr uint32_t kLineWords = 32;
constexpr uint32_t kWords = kLines * kLineWords;
constexpr int kThreads = 256;
const int kReaders[] = {0, 1, 2, 66, 131};
constexpr long long kSpinLimit = 1ll << 26;

// What the block on the chasing SM records.
struct ChaseRec {
  uint32_t ran;   // 1: a block ran on the SM named
  uint32_t end;   // the index the chase ended on (kept live)
  uint64_t span;  // clock64 cycles of the timed lap
};

__device__ void Chase(const uint32_t* data, int laps, uint32_t steps,
                      ChaseRec* rec) {
  uint32_t idx = 0;
  uint64_t c0 = 0;
  for (int lap = 0; lap < laps; ++lap) {
    c0 = cuda_ref::ClockAfterMemory();
#pragma unroll 1
    for (uint32_t s = 0; s < steps; ++s) idx = LoadCg(data + idx);
  }
  const uint64_t c1 = cuda_ref::ClockAfterMemory();
  rec->ran = 1;
  rec->end = idx;
  rec->span = c1 - c0;
}

// Reads (or writes) word 0 of `lines` lines `stride` words apart.
__device__ void Touch(uint32_t* data, bool write, uint32_t* sink,
                      uint32_t lines, uint32_t stride) {
  uint32_t acc = 0;
  for (uint32_t l = threadIdx.x; l < lines; l += blockDim.x) {
    uint32_t* p = data + l * stride;
    if (write) {
      // The value it holds (read through the L2 first, as a store of a
      // shader that computes it would not; the store is what is asked).
      const uint32_t v = LoadCg(p);
      asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
    } else {
      acc += LoadCg(p);
    }
  }
  if (acc == 0xffffffffu) sink[threadIdx.x] = acc;
}

__global__ void ChaseKernel(const uint32_t* data, int sm, int laps,
                            uint32_t steps, ChaseRec* rec) {
  if (cuda_ref::SmId() != static_cast<uint32_t>(sm) || threadIdx.x != 0) {
    return;
  }
  Chase(data, laps, steps, rec);
}

__global__ void TouchKernel(uint32_t* data, int sm, int write, uint32_t* sink,
                            uint32_t* ran, uint32_t lines, uint32_t stride) {
  if (cuda_ref::SmId() != static_cast<uint32_t>(sm)) return;
  Touch(data, write != 0, sink, lines, stride);
  if (threadIdx.x == 0) *ran = 1;
}

// One kernel: the block on SM b reads the lines and raises *flag; the block
// on SM a waits for it, then chases (a == b: the one block does both).
__global__ void SameKernel(uint32_t* data, int a, int b, uint32_t* flag,
                           uint32_t* sink, uint32_t* ran, ChaseRec* rec) {
  const uint32_t sm = cuda_ref::SmId();
  if (sm == static_cast<uint32_t>(b)) {
    Touch(data, false, sink, kLines, kLineWords);
    __syncthreads();
    if (threadIdx.x == 0) {
      *ran = 1;
      __threadfence();
      atomicExch(flag, 1u);
    }
  }
  if (sm != static_cast<uint32_t>(a) || threadIdx.x != 0) return;
  long long spins = 0;
  while (atomicAdd(flag, 0u) == 0 && ++spins < kSpinLimit) {
  }
  if (spins >= kSpinLimit) return;  // rec->ran stays 0
  Chase(data, 1, kLines, rec);
}

struct Ctx {
  int sms = 0, pad = 0;
  uint32_t* data = nullptr;
  uint8_t* flush = nullptr;
  size_t flush_bytes = 0;
  uint32_t* flag = nullptr;
  uint32_t* sink = nullptr;
  uint32_t* ran = nullptr;
  ChaseRec* rec = nullptr;
  std::vector<uint32_t> host;  // the cycle
};

void Flush(const Ctx& c) {
  CUDA_CHECK(cudaMemset(c.flush, 0x5a, c.flush_bytes));
  CUDA_CHECK(cudaDeviceSynchronize());
}

void ResetRecords(const Ctx& c) {
  CUDA_CHECK(cudaMemset(c.rec, 0, sizeof(ChaseRec)));
  CUDA_CHECK(cudaMemset(c.ran, 0, sizeof(uint32_t)));
  CUDA_CHECK(cudaMemset(c.flag, 0, sizeof(uint32_t)));
}

// Cycles per step of the chase SM a ran (negative when it did not run,
// or when `need_ran` and the touching block did not).
double ReadChase(const Ctx& c, bool need_ran, uint32_t steps = kLines) {
  ChaseRec r{};
  uint32_t ran = 0;
  CUDA_CHECK(cudaMemcpy(&r, c.rec, sizeof r, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&ran, c.ran, sizeof ran, cudaMemcpyDeviceToHost));
  if (r.ran != 1 || (need_ran && ran != 1)) return -1;
  return static_cast<double>(r.span) / steps;
}

double RunChase(const Ctx& c, int a, int laps) {
  ChaseKernel<<<c.sms, kThreads, c.pad>>>(c.data, a, laps, kLines, c.rec);
  CUDA_CHECK_LAUNCH();
  return ReadChase(c, false);
}

// The ordered walks: kSeqSteps lines `stride` bytes apart in address
// order (the last back to the first), in c.seq.
constexpr uint32_t kSeqSteps = 1024;
constexpr uint32_t kStrides[] = {128, 256, 512, 1024, 2048, 4096, 8192};
constexpr size_t kSeqBytes = size_t{kSeqSteps} * 8192;

// Cycles per step of SM a's walk with `stride` after: 0 the host's copy
// of the walk (an upload), 1 the lines evicted (DRAM), 2 SM b's reads of
// them after the upload (a kernel before), 3 SM a's own.
double MeasureSeq(const Ctx& c, uint32_t* seq, int kind, uint32_t stride, int a,
                  int b) {
  const uint32_t words = stride / 4;
  std::vector<uint32_t> host(kSeqBytes / 4, 0);
  for (uint32_t k = 0; k < kSeqSteps; ++k) {
    host[size_t{k} * words] = (k + 1) % kSeqSteps * words;
  }
  Flush(c);  // nothing of an earlier walk on a side
  CUDA_CHECK(cudaMemcpy(seq, host.data(), kSeqBytes, cudaMemcpyHostToDevice));
  ResetRecords(c);
  if (kind == 1) Flush(c);
  if (kind >= 2) {
    TouchKernel<<<c.sms, kThreads, c.pad>>>(seq, kind == 2 ? b : a, 0, c.sink,
                                            c.ran, kSeqSteps, words);
    CUDA_CHECK_LAUNCH();
  }
  ChaseKernel<<<c.sms, kThreads, c.pad>>>(seq, a, 1, kSeqSteps, c.rec);
  CUDA_CHECK_LAUNCH();
  return ReadChase(c, kind >= 2, kSeqSteps);
}

// kind: 0 dram, 1 upload, 2 lap2, 3 read[b], 4 write[b], 5 same[b].
double Measure(const Ctx& c, int kind, int a, int b) {
  Flush(c);
  ResetRecords(c);
  switch (kind) {
    case 0:
      return RunChase(c, a, 1);
    case 1:
      CUDA_CHECK(cudaMemcpy(c.data, c.host.data(), kWords * sizeof(uint32_t),
                            cudaMemcpyHostToDevice));
      return RunChase(c, a, 1);
    case 2:
      return RunChase(c, a, 2);
    case 3:
    case 4: {
      TouchKernel<<<c.sms, kThreads, c.pad>>>(
          c.data, b, kind == 4 ? 1 : 0, c.sink, c.ran, kLines, kLineWords);
      CUDA_CHECK_LAUNCH();
      const double v = RunChase(c, a, 1);
      uint32_t ran = 0;
      CUDA_CHECK(cudaMemcpy(&ran, c.ran, sizeof ran, cudaMemcpyDeviceToHost));
      return ran == 1 ? v : -1;
    }
    default:
      SameKernel<<<c.sms, kThreads, c.pad>>>(c.data, a, b, c.flag, c.sink,
                                             c.ran, c.rec);
      CUDA_CHECK_LAUNCH();
      return ReadChase(c, true);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E49");
  Ctx c;
  c.sms = cuda_ref::Attribute(cudaDevAttrMultiProcessorCount);
  c.pad = cuda_ref::OneBlockPerSmBytes();
  const int l2 = cuda_ref::Attribute(cudaDevAttrL2CacheSize);
  c.flush_bytes = size_t(3) * static_cast<size_t>(l2);
  cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(ChaseKernel),
                               c.pad);
  cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(TouchKernel),
                               c.pad);
  cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(SameKernel),
                               c.pad);
  CUDA_CHECK(cudaMalloc(&c.data, kWords * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&c.flush, c.flush_bytes));
  CUDA_CHECK(cudaMalloc(&c.flag, sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&c.ran, sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&c.sink, kThreads * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&c.rec, sizeof(ChaseRec)));

  // One random cycle through the lines (Sattolo's shuffle), fixed seed.
  std::vector<uint32_t> order(kLines);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937 rng(49);
  for (uint32_t i = kLines - 1; i > 0; --i) {
    std::uniform_int_distribution<uint32_t> pick(0, i - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  c.host.assign(kWords, 0);
  for (uint32_t i = 0; i < kLines; ++i) {
    c.host[order[i] * kLineWords] = order[(i + 1) % kLines] * kLineWords;
  }
  CUDA_CHECK(cudaMemcpy(c.data, c.host.data(), kWords * sizeof(uint32_t),
                        cudaMemcpyHostToDevice));

  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();
  std::vector<int> readers;
  for (const int a : kReaders) {
    if (a < c.sms) readers.push_back(a);
  }
  if (opt.quick) readers.resize(1);
  const int sweep = opt.quick ? std::min(c.sms, 8) : c.sms;
  bool all_ok = true;
  Json results = Json::Array();
  for (const int a : readers) {
    Json entry = Json::Object();
    entry["reader_sm"] = a;
    const char* names[] = {"dram", "upload", "lap2"};
    for (int kind = 0; kind < 3; ++kind) {
      const double v = Measure(c, kind, a, a);
      all_ok &= v > 0;
      entry[names[kind]] = v;
      std::printf("E49 a=%3d %-6s %8.2f cycles per step\n", a, names[kind], v);
    }
    const char* sweeps[] = {"read", "write", "same"};
    for (int s = 0; s < 3; ++s) {
      std::vector<double> v(sweep);
      Json row = Json::Array();
      for (int b = 0; b < sweep; ++b) {
        v[b] = Measure(c, 3 + s, a, b);
        all_ok &= v[b] > 0;
        row.push_back(v[b]);
      }
      const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
      std::printf(
          "E49 a=%3d %-5s[b] own %8.2f, least %8.2f (b=%d), most %8.2f "
          "(b=%d)\n",
          a, sweeps[s], a < sweep ? v[a] : -1.0, *lo,
          static_cast<int>(lo - v.begin()), *hi,
          static_cast<int>(hi - v.begin()));
      entry[sweeps[s]] = std::move(row);
    }
    results.push_back(std::move(entry));
  }
  // The ordered walks, SM a = readers[0]; b: the first SM whose reads the
  // read sweep found slowest for it (the other side).
  uint32_t* seq = nullptr;
  CUDA_CHECK(cudaMalloc(&seq, kSeqBytes));
  Json ordered = Json::Array();
  const int a0 = readers[0];
  int other = -1;
  {
    double worst = 0;
    for (int b = 0; b < sweep; ++b) {
      const double v = Measure(c, 3, a0, b);
      if (v > worst * 1.1) {
        worst = v;
        other = b;
      }
    }
  }
  for (const uint32_t stride : kStrides) {
    Json row = Json::Object();
    row["stride_bytes"] = static_cast<int>(stride);
    const char* kinds[] = {"upload", "dram", "other", "own"};
    std::printf("E49 ordered a=%d b=%d stride %5u:", a0, other, stride);
    for (int k = 0; k < 4; ++k) {
      const double v = MeasureSeq(c, seq, k, stride, a0, other);
      all_ok &= v > 0;
      row[kinds[k]] = v;
      std::printf(" %s %.1f", kinds[k], v);
    }
    std::printf("\n");
    ordered.push_back(std::move(row));
  }
  CUDA_CHECK(cudaFree(seq));
  Json params = Json::Object();
  params["lines"] = static_cast<int>(kLines);
  params["ordered_steps"] = static_cast<int>(kSeqSteps);
  params["ordered_reader_sm"] = a0;
  params["ordered_other_sm"] = other;
  params["line_bytes"] = static_cast<int>(kLineWords * 4);
  params["flush_bytes"] = static_cast<unsigned long long>(c.flush_bytes);
  params["threads_per_block"] = kThreads;
  params["dynamic_shared_bytes"] = c.pad;
  params["swept_sms"] = sweep;
  Json series = Json::Object();
  series["readers"] = std::move(results);
  series["ordered"] = std::move(ordered);
  cuda_ref::WriteResult(opt, "E49", before, std::move(params),
                        std::move(series));
  CUDA_CHECK(cudaFree(c.data));
  CUDA_CHECK(cudaFree(c.flush));
  CUDA_CHECK(cudaFree(c.flag));
  CUDA_CHECK(cudaFree(c.ran));
  CUDA_CHECK(cudaFree(c.sink));
  CUDA_CHECK(cudaFree(c.rec));
  if (!all_ok) {
    std::printf("PLACEMENT FAILED (a chase or touch did not run)\n");
    return 4;
  }
  return 0;
}
