// E4: which warps share a sub-partition (SMSP) (REFERENCE §1.2, §6 row E4).
//
// WHAT: an SM has 4 SMSPs, each with one scheduler that issues one
// warp-instruction per cycle; a warp stays on one SMSP. Which SMSP a warp
// lands on is undocumented; GPGPU-Sim/Accel-Sim assume warp slot % 4. This
// program finds, for every pair of warps of one block, whether they share an
// SMSP, and tests two hypotheses against the result.
//
// HOW: one block (grid = 1, so one SM) of B warps, B = 8 and B = 16. In each
// launch only warps i and j (warp index in the block = threadIdx.x / 32) run;
// all other warps record %smid/%warpid and exit at once. A running warp does
// an ILP-4 FFMA loop (4 independent fma.rn.f32 chains, inline PTX, 256 steps
// unrolled per loop trip, `steps` steps per chain in all); one warp alone
// issues ~1 FFMA per cycle (latency 4, 4 chains), i.e. it saturates its
// scheduler. Two such warps on one SMSP must share one issue slot per cycle
// and need ~2x the cycles together; on different SMSPs they run in parallel.
// Because a scheduler may favour one warp (greedy) rather than alternate, one
// warp of a sharing pair can finish at its solo speed and the other at 2x;
// so the classification uses the pair's span: (max end - min start of the two
// warps, clock64 of the same SM) / mean of the two warps' solo cycles;
// span_ratio > 1.5 = shared. Each warp's own ratio is recorded too. Every
// warp alone (i only) is the baseline. Each configuration is run `repeats`
// times; medians are used. %warpid is read at start and end (it may change in
// principle; "warpid_stable" says whether it did).
// Hypotheses, for every pair: "warpid_mod_4" predicts shared iff
// %warpid_i % 4 == %warpid_j % 4; "warp_index_mod_4" iff i % 4 == j % 4.
// "correct" counts pairs whose prediction matches the measurement.
// "distinguishing_pairs" counts pairs where the two hypotheses disagree
// (0 when %warpid equals the warp index, as expected for a lone block).
//
// SASS (cuobjdump -sass e4_smsp): kernel E4PairFfmaIlp4; its loop body holds
// 1024 FFMA (fma.rn.f32 -> FFMA) plus IADD/ISETP/BRA.
//
// JSON (results): {"configs": [{"warps_per_block", "ilp": 4, "steps" (per
// chain), "ffma_per_warp", "alone": [{"warp", "warpid", "smid",
// "cycles": [repeats], "cycles_median"}], "pairs": [{"i", "j", "warpid_i",
// "warpid_j", "smid", "cycles_i", "cycles_j" (medians over repeats),
// "span_cycles" (median), "ratio_i", "ratio_j" (cycles / alone median),
// "ratio" (span_cycles / mean alone), "shared", "span_all": [repeats],
// "warpid_stable"}], "hypotheses": {"warpid_mod_4": {"correct", "of"},
// "warp_index_mod_4": {...}, "distinguishing_pairs"}, "shared_pairs"}]}.
//
// Run time (H200 ~1.98 GHz): alone ~262 K cycles (0.13 ms), pair <= 0.27 ms;
// (8 + 28 + 16 + 120) configurations x 6 launches ~ 0.3 s of GPU, ~2 s in all
// with start-up, warm-up and clock readings. --quick: 16 K steps, 3 repeats,
// < 2 s.
#include <algorithm>
#include <cmath>
#include <vector>

#include "common.h"

using cuda_ref::ArrayOf;
using cuda_ref::Json;
using cuda_ref::Median;

namespace {

using cuda_ref::Ffma;

constexpr int kBodySteps = 256;
constexpr int kIlp = 4;
constexpr unsigned kMagic = 0xE4C0FFEEu;

struct WarpRec {
  unsigned long long t0, t1;
  unsigned smid, warpid, warpid_end, active, magic, pad;
};

// Warps i and j run `reps` x 256 steps of 4 FFMA chains; the rest exit.
__global__ void __launch_bounds__(512)
    E4PairFfmaIlp4(int i, int j, int reps, float a, float b, WarpRec* recs,
                   float* vals, unsigned* flags) {
  const unsigned tid = threadIdx.x;
  const unsigned warp = tid / 32;
  const unsigned lane = tid & 31u;
  const bool active =
      static_cast<int>(warp) == i || static_cast<int>(warp) == j;
  if (!active) {
    if (lane == 0) {
      WarpRec w{};
      w.smid = cuda_ref::SmId();
      w.warpid = cuda_ref::WarpId();
      w.warpid_end = w.warpid;
      w.active = 0;
      w.magic = kMagic;
      recs[warp] = w;
    }
    vals[tid] = 0.0f;
    flags[tid] = kMagic ^ tid;
    return;
  }
  float x0 = 1.0f + 0.001f * lane, x1 = x0 + 0.01f, x2 = x0 + 0.02f,
        x3 = x0 + 0.03f;
  const unsigned warpid0 = cuda_ref::WarpId();
  __syncwarp();
  const unsigned long long t0 = cuda_ref::Clock64();
  for (int r = 0; r < reps; ++r) {
#pragma unroll
    for (int s = 0; s < kBodySteps; ++s) {
      Ffma(x0, a, b);
      Ffma(x1, a, b);
      Ffma(x2, a, b);
      Ffma(x3, a, b);
    }
  }
  const unsigned long long t1 = cuda_ref::Clock64();
  const unsigned warpid1 = cuda_ref::WarpId();
  vals[tid] = (x0 + x1) + (x2 + x3);
  flags[tid] = kMagic ^ tid;
  if (lane == 0) {
    WarpRec w{};
    w.t0 = t0;
    w.t1 = t1;
    w.smid = cuda_ref::SmId();
    w.warpid = warpid0;
    w.warpid_end = warpid1;
    w.active = 1;
    w.magic = kMagic;
    recs[warp] = w;
  }
}

struct Buffers {
  WarpRec* recs = nullptr;
  float* vals = nullptr;
  unsigned* flags = nullptr;
};

// One launch; returns the per-warp records after checking every one.
std::vector<WarpRec> RunOnce(int warps, int i, int j, int reps,
                             const Buffers& b) {
  const int threads = warps * 32;
  CUDA_CHECK(cudaMemset(b.recs, 0xFF, warps * sizeof(WarpRec)));
  CUDA_CHECK(cudaMemset(b.vals, 0xFF, threads * sizeof(float)));
  CUDA_CHECK(cudaMemset(b.flags, 0xFF, threads * sizeof(unsigned)));
  E4PairFfmaIlp4<<<1, threads>>>(i, j, reps, 0.9999f, 0.0001f, b.recs, b.vals,
                                 b.flags);
  CUDA_CHECK_LAUNCH();
  std::vector<WarpRec> recs(warps);
  std::vector<float> vals(threads);
  std::vector<unsigned> flags(threads);
  CUDA_CHECK(cudaMemcpy(recs.data(), b.recs, warps * sizeof(WarpRec),
                        cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(vals.data(), b.vals, threads * sizeof(float),
                        cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(flags.data(), b.flags, threads * sizeof(unsigned),
                        cudaMemcpyDeviceToHost));
  for (int w = 0; w < warps; ++w) {
    const WarpRec& r = recs[w];
    const bool want = w == i || w == j;
    if (r.magic != kMagic || (r.active != 0) != want ||
        (want && r.t1 <= r.t0) || r.smid != recs[0].smid) {
      std::fprintf(stderr, "E4: warp record %d bad (i=%d j=%d)\n", w, i, j);
      std::exit(4);
    }
  }
  for (int t = 0; t < threads; ++t) {
    if (flags[t] != (kMagic ^ static_cast<unsigned>(t)) ||
        !std::isfinite(vals[t])) {
      std::fprintf(stderr, "E4: thread %d result not written or not finite\n",
                   t);
      std::exit(4);
    }
  }
  return recs;
}

Json RunConfig(int warps, int reps, int repeats, const Buffers& b) {
  const long long steps = static_cast<long long>(kBodySteps) * reps;
  // Baseline: each warp alone.
  std::vector<double> alone_med(warps);
  std::vector<unsigned> warpid(warps);
  Json alone = Json::Array();
  for (int w = 0; w < warps; ++w) {
    (void)RunOnce(warps, w, -1, reps, b);  // warm-up
    std::vector<double> cyc;
    unsigned smid = 0;
    for (int r = 0; r < repeats; ++r) {
      const std::vector<WarpRec> recs = RunOnce(warps, w, -1, reps, b);
      cyc.push_back(static_cast<double>(recs[w].t1 - recs[w].t0));
      warpid[w] = recs[w].warpid;
      smid = recs[w].smid;
    }
    alone_med[w] = Median(cyc);
    Json row = Json::Object();
    row["warp"] = w;
    row["warpid"] = warpid[w];
    row["smid"] = smid;
    row["cycles"] = ArrayOf(cyc);
    row["cycles_median"] = alone_med[w];
    alone.push_back(std::move(row));
  }
  Json pairs = Json::Array();
  int ok_warpid = 0, ok_index = 0, of = 0, distinguishing = 0, shared_count = 0;
  for (int i = 0; i < warps; ++i) {
    for (int j = i + 1; j < warps; ++j) {
      (void)RunOnce(warps, i, j, reps, b);  // warm-up
      std::vector<double> ci, cj, span;
      unsigned wi = 0, wj = 0, smid = 0;
      bool stable = true;
      for (int r = 0; r < repeats; ++r) {
        const std::vector<WarpRec> recs = RunOnce(warps, i, j, reps, b);
        const WarpRec& a = recs[i];
        const WarpRec& c = recs[j];
        ci.push_back(static_cast<double>(a.t1 - a.t0));
        cj.push_back(static_cast<double>(c.t1 - c.t0));
        span.push_back(
            static_cast<double>(std::max(a.t1, c.t1) - std::min(a.t0, c.t0)));
        wi = a.warpid;
        wj = c.warpid;
        smid = a.smid;
        stable &= a.warpid == a.warpid_end && c.warpid == c.warpid_end;
      }
      const double mi = Median(ci), mj = Median(cj), ms = Median(span);
      const double ratio = ms / (0.5 * (alone_med[i] + alone_med[j]));
      const bool shared = ratio > 1.5;
      const bool pred_warpid = wi % 4 == wj % 4;
      const bool pred_index = i % 4 == j % 4;
      ok_warpid += pred_warpid == shared;
      ok_index += pred_index == shared;
      distinguishing += pred_warpid != pred_index;
      shared_count += shared;
      ++of;
      Json row = Json::Object();
      row["i"] = i;
      row["j"] = j;
      row["warpid_i"] = wi;
      row["warpid_j"] = wj;
      row["smid"] = smid;
      row["cycles_i"] = mi;
      row["cycles_j"] = mj;
      row["span_cycles"] = ms;
      row["ratio_i"] = mi / alone_med[i];
      row["ratio_j"] = mj / alone_med[j];
      row["ratio"] = ratio;
      row["shared"] = shared;
      row["span_all"] = ArrayOf(span);
      row["warpid_stable"] = stable;
      pairs.push_back(std::move(row));
    }
  }
  Json hyp = Json::Object();
  Json h1 = Json::Object();
  h1["correct"] = ok_warpid;
  h1["of"] = of;
  Json h2 = Json::Object();
  h2["correct"] = ok_index;
  h2["of"] = of;
  hyp["warpid_mod_4"] = std::move(h1);
  hyp["warp_index_mod_4"] = std::move(h2);
  hyp["distinguishing_pairs"] = distinguishing;

  Json cfg = Json::Object();
  cfg["warps_per_block"] = warps;
  cfg["ilp"] = kIlp;
  cfg["steps"] = steps;
  cfg["ffma_per_warp"] = steps * kIlp;
  cfg["shared_threshold"] = 1.5;
  cfg["alone"] = std::move(alone);
  cfg["pairs"] = std::move(pairs);
  cfg["hypotheses"] = std::move(hyp);
  cfg["shared_pairs"] = shared_count;
  std::printf(
      "E4 %d warps: %d/%d pairs shared; warpid%%4 %d/%d, index%%4 %d/%d\n",
      warps, shared_count, of, ok_warpid, of, ok_index, of);
  return cfg;
}

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E4");
  const int reps = opt.quick ? 64 : 256;  // x 256 steps per chain
  const int repeats = opt.quick ? 3 : 5;
  const std::vector<int> configs = {8, 16};

  Buffers b;
  CUDA_CHECK(cudaMalloc(&b.recs, 16 * sizeof(WarpRec)));
  CUDA_CHECK(cudaMalloc(&b.vals, 16 * 32 * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&b.flags, 16 * 32 * sizeof(unsigned)));

  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();

  Json cfgs = Json::Array();
  for (int w : configs) cfgs.push_back(RunConfig(w, reps, repeats, b));

  CUDA_CHECK(cudaFree(b.recs));
  CUDA_CHECK(cudaFree(b.vals));
  CUDA_CHECK(cudaFree(b.flags));

  Json params = Json::Object();
  params["warps_per_block"] = Json::Array();
  for (int w : configs) params["warps_per_block"].push_back(w);
  params["ilp"] = kIlp;
  params["body_steps"] = kBodySteps;
  params["reps"] = reps;
  params["steps_per_chain"] = static_cast<long long>(kBodySteps) * reps;
  params["repeats"] = repeats;
  params["shared_threshold"] = 1.5;

  Json results = Json::Object();
  results["configs"] = std::move(cfgs);
  cuda_ref::WriteResult(opt, "E4", before, std::move(params),
                        std::move(results));
  return 0;
}
