// E6: branch divergence cost, one warp (REFERENCE §2.3 "Branch divergence
// with clock64", §6 row E6; Wong et al., ISPASS 2010).
//
// WHAT: how long one warp takes when its lanes take different paths: two-way
// if/else, P-way selection, nested ifs, and a loop whose trip count differs
// per lane. The expectation (Volta+ independent thread scheduling with
// BSSY/BSYNC reconvergence): the paths run one after the other, so
// T = sum over executed paths + a reconvergence overhead, and a divergent loop
// costs its maximum trip count.
//
// HOW: one block of 32 threads (one warp). Every path is a loop of dependent
// FFMA (inline PTX fma.rn.f32 -> SASS FFMA; 8 per loop trip in one asm block)
// whose trip count is a kernel argument, so the compiler can neither unroll it
// away nor predicate (if-convert) the branch; every path's asm carries its own
// path number (an "n" operand printed into a PTX comment) and its own
// constants, so no two paths can be merged into one body with selected
// operands. All lanes read clock64 right before the branch and after
// __syncwarp() (which follows the reconvergence point); lane 0's values are
// stored. Each variant: one untimed warm-up launch, then `repeats` launches;
// cycles_median is the median. The PTX keeps every branch as setp + @p bra
// (checked with nvcc -ptx; SASS adds BSSY/BSYNC around each region).
//   two_way: lanes with lane < k run path A (n_a FFMAs), the rest path B
//     (n_b); k in {0,1,8,16,31,32}; (n_a, n_b) in {(0,0), (64,64),
//     (256,256), (64,256)}; k = 32 gives T_A (uniform A), k = 0 gives T_B
//     (uniform B); overhead = T(k) - T_A - T_B for 0 < k < 32.
//   paths: sel = lane % P, then P sequential `if (sel == p) path_p` blocks
//     (not a switch, not else-if): a switch may become a jump table (BRX) or a
//     compare tree, and an else-if chain nests P-deep; sequential ifs give P
//     separate branch regions of equal shape, each reconverging before the
//     next, so the cost should grow by one region per path. `sel` is passed
//     through an opaque asm mov before each compare so the compiler cannot
//     prove the conditions exclusive and rewrite the chain. P in
//     {1,2,4,8,16,32}, every path n FFMAs, n in {64,256}.
//   nested: 2- and 3-level if/else on lane bits (bit 1 then 0; bit 2, 1, 0):
//     4 and 8 leaves, each n FFMAs.
//   loops: one loop, lane i runs trips[i] trips of 8 FFMAs; patterns:
//     uniform t = 8 and t = 32, lane i -> i + 1, one lane 32 / others 1,
//     random 1..32 (LCG, seed recorded). Expect cost ~ max trip.
//   fit: least squares cycles = overhead + ffma_cycles x serialized_ffma over
//     all two_way and paths variants (serialized_ffma = sum of the FFMAs of
//     the paths that at least one lane takes). fit_regions adds a per-region
//     term: cycles = base + per_region x regions + ffma_cycles x ffma.
//     loop_fit: cycles = base + per_trip x max_trip over the loop patterns.
//
// SASS (cuobjdump -sass e6_divergence): kernels E6TwoWay, E6Paths<P>,
// E6Nested<depth>, E6PerLaneLoop; each path is a loop of 8 FFMA +
// IADD/ISETP/BRA (ptxas may unroll it further).
//
// JSON (results): "ffma_per_trip": 8,
//   "two_way": [{"k", "n_a", "n_b", "serialized_ffma", "regions",
//     "cycles": [repeats], "cycles_median", "overhead_cycles" (0<k<32 only)}]
//   "paths": [{"p", "n", "serialized_ffma", "regions", "cycles",
//     "cycles_median"}]
//   "nested": [{"depth", "leaves", "n", "serialized_ffma", "cycles",
//     "cycles_median"}]
//   "loops": [{"pattern", "trip_counts": [32], "max_trip", "sum_trip",
//     "cycles", "cycles_median"}], "random_seed"
//   "fit": {"overhead_cycles", "ffma_cycles", "points", "rms_residual"},
//   "fit_regions": {"base_cycles", "per_region_cycles", "ffma_cycles"},
//   "loop_fit": {"base_cycles", "per_trip_cycles"}
//
// Run time: ~50 variants x 6 launches, each < 10 us of GPU (the longest,
// 32 paths x 256 FFMAs ~ 33 K cycles ~ 17 us): well under 1 s of GPU, ~2 s in
// all with start-up, warm-up and clock readings; --quick (3 repeats) the same.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common.h"

using cuda_ref::ArrayOf;
using cuda_ref::Json;
using cuda_ref::Median;

namespace {

constexpr int kFfmaPerTrip = 8;
constexpr unsigned kMagic = 0xE6C0FFEEu;
constexpr uint32_t kSeed = 20100328u;

struct Rec {
  unsigned long long t0, t1;
  unsigned smid, magic;
};

// One path: `trips` trips of 8 dependent FFMAs; ID makes the asm unique.
template <int ID>
__device__ __forceinline__ void FfmaLoop(float& x, int trips) {
  const float a = 0.999f - static_cast<float>(ID % 97) * 1e-5f;
  const float b = 1e-3f + static_cast<float>(ID % 89) * 1e-6f;
#pragma unroll 1
  for (int t = 0; t < trips; ++t) {
    asm volatile(
        "{ // path %3\n\t"
        "fma.rn.f32 %0, %0, %1, %2;\n\t"
        "fma.rn.f32 %0, %0, %1, %2;\n\t"
        "fma.rn.f32 %0, %0, %1, %2;\n\t"
        "fma.rn.f32 %0, %0, %1, %2;\n\t"
        "fma.rn.f32 %0, %0, %1, %2;\n\t"
        "fma.rn.f32 %0, %0, %1, %2;\n\t"
        "fma.rn.f32 %0, %0, %1, %2;\n\t"
        "fma.rn.f32 %0, %0, %1, %2;\n\t"
        "}"
        : "+f"(x)
        : "f"(a), "f"(b), "n"(ID));
  }
}

__device__ __forceinline__ int Opaque(int v) {
  int r;
  asm volatile("mov.b32 %0, %1;" : "=r"(r) : "r"(v));
  return r;
}

__device__ __forceinline__ void Finish(float x, unsigned long long t0,
                                       unsigned long long t1, Rec* rec,
                                       float* vals, unsigned* flags) {
  const unsigned lane = threadIdx.x;
  vals[lane] = x;
  flags[lane] = kMagic ^ lane;
  if (lane == 0) {
    Rec r;
    r.t0 = t0;
    r.t1 = t1;
    r.smid = cuda_ref::SmId();
    r.magic = kMagic;
    *rec = r;
  }
}

// lane < k: path A (trips_a x 8 FFMA), else path B (trips_b x 8 FFMA).
__global__ void E6TwoWay(int k, int trips_a, int trips_b, Rec* rec, float* vals,
                         unsigned* flags) {
  const int lane = static_cast<int>(threadIdx.x);
  float x = 1.0f + 0.001f * lane;
  __syncwarp();
  const unsigned long long t0 = cuda_ref::Clock64();
  if (lane < k) {
    FfmaLoop<1>(x, trips_a);
  } else {
    FfmaLoop<2>(x, trips_b);
  }
  __syncwarp();
  const unsigned long long t1 = cuda_ref::Clock64();
  Finish(x, t0, t1, rec, vals, flags);
}

// P sequential `if (sel == p)` regions.
template <int P, int p>
__device__ __forceinline__ void PathChain(int sel, int trips, float& x) {
  if constexpr (p < P) {
    if (Opaque(sel) == p) FfmaLoop<100 + p>(x, trips);
    PathChain<P, p + 1>(sel, trips, x);
  }
}

template <int P>
__global__ void E6Paths(int trips, Rec* rec, float* vals, unsigned* flags) {
  const int lane = static_cast<int>(threadIdx.x);
  const int sel = lane % P;
  float x = 1.0f + 0.001f * lane;
  __syncwarp();
  const unsigned long long t0 = cuda_ref::Clock64();
  PathChain<P, 0>(sel, trips, x);
  __syncwarp();
  const unsigned long long t1 = cuda_ref::Clock64();
  Finish(x, t0, t1, rec, vals, flags);
}

// Nested if/else on lane bits D-1 .. 0; leaf IDs 2^D .. 2^(D+1)-1.
template <int D, int ID>
__device__ __forceinline__ void Nest(int lane, int trips, float& x) {
  if constexpr (D == 0) {
    FfmaLoop<200 + ID>(x, trips);
  } else {
    if ((lane >> (D - 1)) & 1) {
      Nest<D - 1, ID * 2 + 1>(lane, trips, x);
    } else {
      Nest<D - 1, ID * 2>(lane, trips, x);
    }
  }
}

template <int D>
__global__ void E6Nested(int trips, Rec* rec, float* vals, unsigned* flags) {
  const int lane = static_cast<int>(threadIdx.x);
  float x = 1.0f + 0.001f * lane;
  __syncwarp();
  const unsigned long long t0 = cuda_ref::Clock64();
  Nest<D, 1>(lane, trips, x);
  __syncwarp();
  const unsigned long long t1 = cuda_ref::Clock64();
  Finish(x, t0, t1, rec, vals, flags);
}

// One loop; lane i runs trips[i] trips.
__global__ void E6PerLaneLoop(const int* trips, Rec* rec, float* vals,
                              unsigned* flags) {
  const int lane = static_cast<int>(threadIdx.x);
  const int my_trips = trips[lane];
  float x = 1.0f + 0.001f * lane;
  __syncwarp();
  const unsigned long long t0 = cuda_ref::Clock64();
  FfmaLoop<300>(x, my_trips);
  __syncwarp();
  const unsigned long long t1 = cuda_ref::Clock64();
  Finish(x, t0, t1, rec, vals, flags);
}

struct Buffers {
  Rec* rec = nullptr;
  float* vals = nullptr;
  unsigned* flags = nullptr;
  int* trips = nullptr;
};

// Runs `launch` (which launches one warp) once untimed and `repeats` times;
// returns the cycles of each timed launch, checking every output.
template <class F>
std::vector<double> Measure(const char* what, int repeats, const Buffers& b,
                            F launch) {
  std::vector<double> cycles;
  for (int r = -1; r < repeats; ++r) {
    CUDA_CHECK(cudaMemset(b.rec, 0xFF, sizeof(Rec)));
    CUDA_CHECK(cudaMemset(b.vals, 0xFF, 32 * sizeof(float)));
    CUDA_CHECK(cudaMemset(b.flags, 0xFF, 32 * sizeof(unsigned)));
    launch();
    CUDA_CHECK_LAUNCH();
    Rec rec;
    float vals[32];
    unsigned flags[32];
    CUDA_CHECK(cudaMemcpy(&rec, b.rec, sizeof rec, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(vals, b.vals, sizeof vals, cudaMemcpyDeviceToHost));
    CUDA_CHECK(
        cudaMemcpy(flags, b.flags, sizeof flags, cudaMemcpyDeviceToHost));
    if (rec.magic != kMagic || rec.t1 < rec.t0) {
      std::fprintf(stderr, "E6 %s: record not written\n", what);
      std::exit(4);
    }
    for (unsigned l = 0; l < 32; ++l) {
      if (flags[l] != (kMagic ^ l) || !std::isfinite(vals[l])) {
        std::fprintf(stderr, "E6 %s: lane %u result not written/finite\n", what,
                     l);
        std::exit(4);
      }
    }
    if (r >= 0) cycles.push_back(static_cast<double>(rec.t1 - rec.t0));
  }
  return cycles;
}

using PathsFn = void (*)(int, Rec*, float*, unsigned*);

PathsFn PathsKernel(int p) {
  switch (p) {
    case 1:
      return &E6Paths<1>;
    case 2:
      return &E6Paths<2>;
    case 4:
      return &E6Paths<4>;
    case 8:
      return &E6Paths<8>;
    case 16:
      return &E6Paths<16>;
    default:
      return &E6Paths<32>;
  }
}

// Least squares with 2 or 3 unknowns (normal equations, Gaussian
// elimination); x rows hold the regressors (first column 1).
std::vector<double> LeastSquares(const std::vector<std::vector<double>>& x,
                                 const std::vector<double>& y) {
  const size_t m = x.empty() ? 0 : x[0].size();
  std::vector<std::vector<double>> a(m, std::vector<double>(m + 1, 0.0));
  for (size_t r = 0; r < x.size(); ++r) {
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < m; ++j) a[i][j] += x[r][i] * x[r][j];
      a[i][m] += x[r][i] * y[r];
    }
  }
  for (size_t c = 0; c < m; ++c) {
    size_t piv = c;
    for (size_t r = c + 1; r < m; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[piv][c])) piv = r;
    std::swap(a[c], a[piv]);
    if (std::fabs(a[c][c]) < 1e-12) return std::vector<double>(m, 0.0);
    for (size_t r = 0; r < m; ++r) {
      if (r == c) continue;
      const double f = a[r][c] / a[c][c];
      for (size_t j = c; j <= m; ++j) a[r][j] -= f * a[c][j];
    }
  }
  std::vector<double> sol(m);
  for (size_t i = 0; i < m; ++i) sol[i] = a[i][m] / a[i][i];
  return sol;
}

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E6");
  const int repeats = opt.quick ? 3 : 5;

  Buffers b;
  CUDA_CHECK(cudaMalloc(&b.rec, sizeof(Rec)));
  CUDA_CHECK(cudaMalloc(&b.vals, 32 * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&b.flags, 32 * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&b.trips, 32 * sizeof(int)));

  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();

  // Points for the fits: {1, regions, ffma} -> cycles.
  std::vector<std::vector<double>> fit_x;
  std::vector<double> fit_y;

  // ---- two-way ----
  const int ks[] = {0, 1, 8, 16, 31, 32};
  const int ns[][2] = {{0, 0}, {64, 64}, {256, 256}, {64, 256}};
  Json two_way = Json::Array();
  for (const auto& n : ns) {
    const int n_a = n[0], n_b = n[1];
    double t_a = 0, t_b = 0;
    std::vector<Json> rows;
    std::vector<double> meds;
    for (int k : ks) {
      const std::vector<double> cyc = Measure("two_way", repeats, b, [&] {
        E6TwoWay<<<1, 32>>>(k, n_a / kFfmaPerTrip, n_b / kFfmaPerTrip, b.rec,
                            b.vals, b.flags);
      });
      const double med = Median(cyc);
      if (k == 32) t_a = med;
      if (k == 0) t_b = med;
      const int regions = (k > 0) + (k < 32);
      const int ser = (k > 0 ? n_a : 0) + (k < 32 ? n_b : 0);
      fit_x.push_back(
          {1.0, static_cast<double>(regions), static_cast<double>(ser)});
      fit_y.push_back(med);
      Json row = Json::Object();
      row["k"] = k;
      row["n_a"] = n_a;
      row["n_b"] = n_b;
      row["serialized_ffma"] = ser;
      row["regions"] = regions;
      row["cycles"] = ArrayOf(cyc);
      row["cycles_median"] = med;
      rows.push_back(std::move(row));
      meds.push_back(med);
    }
    for (size_t r = 0; r < rows.size(); ++r) {
      const int k = ks[r];
      if (k > 0 && k < 32) rows[r]["overhead_cycles"] = meds[r] - t_a - t_b;
      std::printf("E6 two_way k=%2d n_a=%3d n_b=%3d: %.0f cycles\n", k, n_a,
                  n_b, meds[r]);
      two_way.push_back(std::move(rows[r]));
    }
  }

  // ---- P paths ----
  Json paths = Json::Array();
  for (int n : {64, 256}) {
    for (int p : {1, 2, 4, 8, 16, 32}) {
      const PathsFn fn = PathsKernel(p);
      const std::vector<double> cyc = Measure("paths", repeats, b, [&] {
        fn<<<1, 32>>>(n / kFfmaPerTrip, b.rec, b.vals, b.flags);
      });
      const double med = Median(cyc);
      fit_x.push_back(
          {1.0, static_cast<double>(p), static_cast<double>(p * n)});
      fit_y.push_back(med);
      Json row = Json::Object();
      row["p"] = p;
      row["n"] = n;
      row["serialized_ffma"] = p * n;
      row["regions"] = p;
      row["cycles"] = ArrayOf(cyc);
      row["cycles_median"] = med;
      paths.push_back(std::move(row));
      std::printf("E6 paths P=%2d n=%3d: %.0f cycles\n", p, n, med);
    }
  }

  // ---- nested ----
  Json nested = Json::Array();
  for (int n : {64, 256}) {
    for (int depth : {2, 3}) {
      const std::vector<double> cyc = Measure("nested", repeats, b, [&] {
        if (depth == 2) {
          E6Nested<2><<<1, 32>>>(n / kFfmaPerTrip, b.rec, b.vals, b.flags);
        } else {
          E6Nested<3><<<1, 32>>>(n / kFfmaPerTrip, b.rec, b.vals, b.flags);
        }
      });
      const double med = Median(cyc);
      Json row = Json::Object();
      row["depth"] = depth;
      row["leaves"] = 1 << depth;
      row["n"] = n;
      row["serialized_ffma"] = (1 << depth) * n;
      row["cycles"] = ArrayOf(cyc);
      row["cycles_median"] = med;
      nested.push_back(std::move(row));
      std::printf("E6 nested depth %d n=%3d: %.0f cycles\n", depth, n, med);
    }
  }

  // ---- loops with per-lane trip counts ----
  struct Pattern {
    const char* name;
    std::vector<int> trips;
  };
  std::vector<Pattern> patterns;
  patterns.push_back({"uniform_8", std::vector<int>(32, 8)});
  patterns.push_back({"uniform_32", std::vector<int>(32, 32)});
  {
    std::vector<int> t(32);
    for (int l = 0; l < 32; ++l) t[l] = l + 1;
    patterns.push_back({"lane_plus_one", t});
  }
  {
    std::vector<int> t(32, 1);
    t[31] = 32;
    patterns.push_back({"one_lane_32x", t});
  }
  {
    std::vector<int> t(32);
    uint32_t s = kSeed;
    for (int l = 0; l < 32; ++l) {
      s = s * 1664525u + 1013904223u;  // LCG (Numerical Recipes)
      t[l] = 1 + static_cast<int>((s >> 16) % 32u);
    }
    patterns.push_back({"random", t});
  }
  Json loops = Json::Array();
  std::vector<std::vector<double>> loop_x;
  std::vector<double> loop_y;
  for (const Pattern& pat : patterns) {
    CUDA_CHECK(cudaMemcpy(b.trips, pat.trips.data(), 32 * sizeof(int),
                          cudaMemcpyHostToDevice));
    const std::vector<double> cyc = Measure("loops", repeats, b, [&] {
      E6PerLaneLoop<<<1, 32>>>(b.trips, b.rec, b.vals, b.flags);
    });
    const double med = Median(cyc);
    const int mx = *std::max_element(pat.trips.begin(), pat.trips.end());
    int sum = 0;
    Json tc = Json::Array();
    for (int t : pat.trips) {
      sum += t;
      tc.push_back(t);
    }
    loop_x.push_back({1.0, static_cast<double>(mx)});
    loop_y.push_back(med);
    Json row = Json::Object();
    row["pattern"] = pat.name;
    row["trip_counts"] = std::move(tc);
    row["max_trip"] = mx;
    row["sum_trip"] = sum;
    row["cycles"] = ArrayOf(cyc);
    row["cycles_median"] = med;
    loops.push_back(std::move(row));
    std::printf("E6 loop %-14s max %2d: %.0f cycles\n", pat.name, mx, med);
  }

  // ---- fits ----
  std::vector<std::vector<double>> x2;
  for (const auto& r : fit_x) x2.push_back({r[0], r[2]});
  const std::vector<double> f2 = LeastSquares(x2, fit_y);
  double ss = 0;
  for (size_t r = 0; r < fit_y.size(); ++r) {
    const double e = fit_y[r] - (f2[0] + f2[1] * x2[r][1]);
    ss += e * e;
  }
  Json fit = Json::Object();
  fit["overhead_cycles"] = f2[0];
  fit["ffma_cycles"] = f2[1];
  fit["points"] = static_cast<int>(fit_y.size());
  fit["rms_residual"] = fit_y.empty() ? 0.0 : std::sqrt(ss / fit_y.size());
  const std::vector<double> f3 = LeastSquares(fit_x, fit_y);
  Json fit_regions = Json::Object();
  fit_regions["base_cycles"] = f3[0];
  fit_regions["per_region_cycles"] = f3[1];
  fit_regions["ffma_cycles"] = f3[2];
  const std::vector<double> fl = LeastSquares(loop_x, loop_y);
  Json loop_fit = Json::Object();
  loop_fit["base_cycles"] = fl[0];
  loop_fit["per_trip_cycles"] = fl[1];
  loop_fit["per_ffma_cycles"] = fl[1] / kFfmaPerTrip;
  std::printf("E6 fit: overhead %.1f cycles + %.3f cycles/FFMA\n", f2[0],
              f2[1]);

  CUDA_CHECK(cudaFree(b.rec));
  CUDA_CHECK(cudaFree(b.vals));
  CUDA_CHECK(cudaFree(b.flags));
  CUDA_CHECK(cudaFree(b.trips));

  Json params = Json::Object();
  params["repeats"] = repeats;
  params["ffma_per_trip"] = kFfmaPerTrip;
  params["random_seed"] = kSeed;

  Json results = Json::Object();
  results["ffma_per_trip"] = kFfmaPerTrip;
  results["two_way"] = std::move(two_way);
  results["paths"] = std::move(paths);
  results["nested"] = std::move(nested);
  results["loops"] = std::move(loops);
  results["random_seed"] = kSeed;
  results["fit"] = std::move(fit);
  results["fit_regions"] = std::move(fit_regions);
  results["loop_fit"] = std::move(loop_fit);
  cuda_ref::WriteResult(opt, "E6", before, std::move(params),
                        std::move(results));
  return 0;
}
