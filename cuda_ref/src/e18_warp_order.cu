// E18: in what order the SM's schedulers let resident warps finish
// (ours; REFERENCE §6 lists E0-E14).
//
// What it measures
//   When more warps are resident on a sub-partition than a dependent chain's
//   latency needs, which of them does the scheduler issue? A strict
//   greedy-then-oldest scheduler keeps issuing the oldest ready warps and
//   lets the youngest wait until those finish: with 5 warps of 4-cycle FFMA
//   chains per sub-partition, 4 warps would finish at half the span and the
//   fifth would run alone afterwards (IPC 2.5 per SM instead of 4). A
//   scheduler that rotates among ready warps lets them all finish together.
//   E5 saw IPC ~3.8 at 20 warps per SM; this experiment records, per warp,
//   when it started and finished, so the emulator's scheduler can be chosen
//   on the order itself, not only on the throughput.
//
// How
//   One block of W warps per SM (grid = SM count; dynamic shared memory pads
//   each block so that one fits per SM and two do not, verified from %smid:
//   exactly one block on every SM). Each thread runs a dependent FFMA chain
//   (asm volatile fma.rn.f32 x, x, a, 0.5: 16 iterations of 256 unrolled,
//   4096 FFMA, as E5's), or with kIlp = 2 two independent chains of 2048
//   each, interleaved. Lane 0 of every warp records %smid, %warpid and
//   clock64 after a __syncthreads() at the start and after storing its
//   result (the store waits for the chain's last FFMA) at the end, before
//   the block's closing __syncthreads(). Every configuration is launched 4
//   times (1 warm-up, 3 measured); the measured launch with the median IPC
//   is reported, with all three IPCs.
//
// Results, per series ("ffma", "ffma_ilp2") and W in 1..32:
//   ipc_mean: mean over SMs of W x 4096 / span (span: the SM's last warp
//     end minus its first warp start, clock64 cycles), FFMA warp
//     instructions per cycle;
//   first_end_mean, median_end_mean: over SMs, the earliest and the median
//     warp end as a fraction of the span (1.0: every warp finished at the
//     end; 0.5: some finished halfway);
//   end_order_vs_warpid_mean: over SMs, the Spearman correlation of the warps'
//     end times with their %warpid (near 1: the lower warp slots finish
//     first, as an oldest-first scheduler would make them);
//   sm0: SM 0's warps (warpid, start, end: cycles from its first start).
//
// Run time (H200): 22 points x 4 launches of < 0.1 ms; about 1 s with the
//   warm-up.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <vector>

#include "common.h"

using cuda_ref::Json;

namespace {

constexpr uint32_t kUnroll = 256;
constexpr uint32_t kIterations = 16;  // x 256 = 4096 FFMA per thread
constexpr int kMeasuredReps = 3;

struct WarpRec {
  uint32_t smid, warpid;
  uint64_t c0, c1;
};
static_assert(sizeof(WarpRec) == 24, "WarpRec layout");

template <int kIlp>
__global__ void __launch_bounds__(1024, 1)
    ChainKernel(float a, uint32_t iterations, float* out, WarpRec* recs) {
  float x = __uint_as_float(0x3f800000u + threadIdx.x);
  float y = x + 1.0f;
  __syncthreads();
  const uint64_t c0 = cuda_ref::ClockAfterMemory();
#pragma unroll 1
  for (uint32_t it = 0; it < iterations; ++it) {
#pragma unroll
    for (uint32_t s = 0; s < kUnroll / kIlp; ++s) {
      asm volatile("fma.rn.f32 %0, %0, %1, 0f3F000000;" : "+f"(x) : "f"(a));
      if constexpr (kIlp == 2) {
        asm volatile("fma.rn.f32 %0, %0, %1, 0f3F000000;" : "+f"(y) : "f"(a));
      }
    }
  }
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = kIlp == 2 ? x + y : x;
  const uint64_t c1 = cuda_ref::ClockAfterMemory();
  if ((threadIdx.x & 31) == 0) {
    WarpRec r;
    r.smid = cuda_ref::SmId();
    r.warpid = cuda_ref::WarpId();
    r.c0 = c0;
    r.c1 = c1;
    recs[t / 32] = r;
  }
  __syncthreads();
}

using ChainFn = void (*)(float, uint32_t, float*, WarpRec*);

double Spearman(const std::vector<double>& a, const std::vector<double>& b) {
  auto ranks = [](const std::vector<double>& v) {
    std::vector<size_t> idx(v.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(),
              [&](size_t x, size_t y) { return v[x] < v[y]; });
    std::vector<double> r(v.size());
    for (size_t i = 0; i < idx.size();) {
      size_t j = i;
      while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
      for (size_t k = i; k <= j; ++k) r[idx[k]] = (i + j) / 2.0;
      i = j + 1;
    }
    return r;
  };
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n;
  const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double num = 0, da = 0, db = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    num += (ra[i] - ma) * (rb[i] - mb);
    da += (ra[i] - ma) * (ra[i] - ma);
    db += (rb[i] - mb) * (rb[i] - mb);
  }
  return da > 0 && db > 0 ? num / std::sqrt(da * db) : 0.0;
}

struct Launch {
  bool ok = true;  // one block on every SM
  double ipc_mean = 0, first_end_mean = 0, median_end_mean = 0, order_mean = 0;
  Json sm0 = Json::Array();
};

Launch Analyse(const std::vector<WarpRec>& recs, int warps, int sms) {
  std::map<uint32_t, std::vector<WarpRec>> per_sm;
  for (const WarpRec& r : recs) per_sm[r.smid].push_back(r);
  Launch l;
  l.ok = static_cast<int>(per_sm.size()) == sms;
  for (const auto& [sm, ws] : per_sm) {
    l.ok &= static_cast<int>(ws.size()) == warps;
    uint64_t first = std::numeric_limits<uint64_t>::max(), last = 0;
    for (const WarpRec& w : ws) {
      first = std::min(first, w.c0);
      last = std::max(last, w.c1);
    }
    const double span = static_cast<double>(last - first);
    std::vector<double> ends, ids;
    for (const WarpRec& w : ws) {
      ends.push_back(static_cast<double>(w.c1 - first) / span);
      ids.push_back(w.warpid);
    }
    std::vector<double> sorted = ends;
    std::sort(sorted.begin(), sorted.end());
    l.ipc_mean += warps * double(kUnroll * kIterations) / span;
    l.first_end_mean += sorted.front();
    l.median_end_mean += sorted[(sorted.size() - 1) / 2];
    l.order_mean += Spearman(ends, ids);
    if (sm == 0) {
      for (const WarpRec& w : ws) {
        Json j = Json::Object();
        j["warpid"] = static_cast<int>(w.warpid);
        j["start"] = static_cast<double>(w.c0 - first);
        j["end"] = static_cast<double>(w.c1 - first);
        l.sm0.push_back(std::move(j));
      }
    }
  }
  const double n = static_cast<double>(per_sm.size());
  l.ipc_mean /= n;
  l.first_end_mean /= n;
  l.median_end_mean /= n;
  l.order_mean /= n;
  return l;
}

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E18");
  const int sms = cuda_ref::Attribute(cudaDevAttrMultiProcessorCount);
  const int pad = cuda_ref::OneBlockPerSmBytes();
  const std::vector<int> warps =
      opt.quick ? std::vector<int>{4, 20}
                : std::vector<int>{1, 2, 4, 6, 8, 12, 16, 20, 24, 28, 32};
  const std::vector<std::pair<const char*, ChainFn>> series = {
      {"ffma", ChainKernel<1>}, {"ffma_ilp2", ChainKernel<2>}};
  for (const auto& s : series) {
    cuda_ref::AllowOneBlockPerSm(reinterpret_cast<const void*>(s.second), pad);
  }
  float* out = nullptr;
  WarpRec* recs = nullptr;
  CUDA_CHECK(cudaMalloc(&out, size_t(sms) * 1024 * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&recs, size_t(sms) * 32 * sizeof(WarpRec)));

  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();
  Json results = Json::Object();
  bool all_ok = true;
  for (const auto& [name, fn] : series) {
    Json rows = Json::Array();
    for (const int w : warps) {
      std::vector<Launch> launches;
      for (int rep = 0; rep <= kMeasuredReps; ++rep) {
        CUDA_CHECK(cudaMemset(recs, 0xff, size_t(sms) * 32 * sizeof(WarpRec)));
        fn<<<sms, 32 * w, pad>>>(0.999f, kIterations, out, recs);
        CUDA_CHECK_LAUNCH();
        if (rep == 0) continue;  // the warm-up launch
        std::vector<WarpRec> host(size_t(sms) * w);
        CUDA_CHECK(cudaMemcpy(host.data(), recs, host.size() * sizeof(WarpRec),
                              cudaMemcpyDeviceToHost));
        launches.push_back(Analyse(host, w, sms));
      }
      std::vector<size_t> idx(launches.size());
      std::iota(idx.begin(), idx.end(), 0);
      std::sort(idx.begin(), idx.end(), [&](size_t x, size_t y) {
        return launches[x].ipc_mean < launches[y].ipc_mean;
      });
      Launch& m = launches[idx[idx.size() / 2]];
      bool ok = true;
      Json reps = Json::Array();
      for (const Launch& l : launches) {
        ok &= l.ok;
        reps.push_back(l.ipc_mean);
      }
      all_ok &= ok;
      Json r = Json::Object();
      r["warps_per_sm"] = w;
      r["placement_ok"] = ok;
      r["ipc_mean"] = m.ipc_mean;
      r["ipc_mean_reps"] = std::move(reps);
      r["first_end_mean"] = m.first_end_mean;
      r["median_end_mean"] = m.median_end_mean;
      r["end_order_vs_warpid_mean"] = m.order_mean;
      r["sm0"] = std::move(m.sm0);
      std::printf(
          "E18 %s W=%2d: IPC %.3f, first end %.3f, median end %.3f, "
          "order %.2f%s\n",
          name, w, m.ipc_mean, m.first_end_mean, m.median_end_mean,
          m.order_mean, ok ? "" : " PLACEMENT FAILED");
      rows.push_back(std::move(r));
    }
    results[name] = std::move(rows);
  }
  Json params = Json::Object();
  params["ffma_per_thread"] = static_cast<int>(kUnroll * kIterations);
  params["blocks"] = sms;
  params["dynamic_shared_bytes"] = pad;
  params["measured_launches"] = kMeasuredReps;
  cuda_ref::WriteResult(opt, "E18", before, std::move(params),
                        std::move(results));
  CUDA_CHECK(cudaFree(out));
  CUDA_CHECK(cudaFree(recs));
  if (!all_ok) {
    std::printf("PLACEMENT FAILED\n");
    return 4;
  }
  return 0;
}
