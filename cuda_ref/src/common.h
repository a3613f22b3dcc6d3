// What every cuda_ref experiment shares: error checks, special registers,
// the clock measurement, warm-up, command-line options and the result file.
//
// Every experiment is one program that writes one JSON file:
//   {"experiment": "E3", "schema_version": 1, "command": ..., "date": ...,
//    "device": {...}, "clock_before": {...}, "clock_after": {...},
//    "parameters": {...}, "results": ...}
// clock_before/after: the SM clock measured in a kernel (clock64 cycles over
// %globaltimer nanoseconds on one SM, a 2 ms spin) and, when nvidia-smi
// answers, its clocks.sm / clocks.mem readings. Clocks are never changed;
// the GPU is warmed up (a 300 ms busy kernel on every SM) before measuring.
#ifndef WARPSIM_CUDA_REF_COMMON_H_
#define WARPSIM_CUDA_REF_COMMON_H_

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "json.h"

#define CUDA_CHECK(expr)                                                      \
  do {                                                                        \
    cudaError_t err_ = (expr);                                                \
    if (err_ != cudaSuccess) {                                                \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, \
                   #expr, cudaGetErrorName(err_), cudaGetErrorString(err_));  \
      std::exit(3);                                                           \
    }                                                                         \
  } while (0)

// After a launch: the launch error, then the kernel's own.
#define CUDA_CHECK_LAUNCH()              \
  do {                                   \
    CUDA_CHECK(cudaGetLastError());      \
    CUDA_CHECK(cudaDeviceSynchronize()); \
  } while (0)

namespace cuda_ref {

// Special registers (PTX ISA "Special Registers").
__device__ __forceinline__ uint32_t SmId() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ uint32_t WarpId() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ uint32_t LaneId() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ uint64_t Clock64() {
  uint64_t r;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(r));
  return r;
}
// %clock64 after every earlier memory access of the thread (a "memory"
// clobber: the compiler keeps loads and stores before it before it).
__device__ __forceinline__ uint64_t ClockAfterMemory() {
  uint64_t r;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(r)::"memory");
  return r;
}
// One ld.global.ca of a word, kept in order with the thread's other
// memory accesses (a "memory" clobber).
__device__ __forceinline__ uint32_t LoadCa(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
// One ld.global.cg of a word (the L2's: the L1 bypassed), kept in order
// like LoadCa.
__device__ __forceinline__ uint32_t LoadCg(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
// x = x * a + b, one FFMA the compiler neither merges nor drops.
__device__ __forceinline__ void Ffma(float& x, float a, float b) {
  asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b));
}
// K FFMA over 4 independent chains.
template <int kK>
__device__ __forceinline__ void Ffmas(float (&x)[4], float a, float b) {
#pragma unroll
  for (int i = 0; i < kK; ++i) Ffma(x[i & 3], a, b);
}
__device__ __forceinline__ uint64_t GlobalTimer() {
  uint64_t r;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r));
  return r;
}

struct Options {
  std::string out;     // --out FILE (required)
  bool quick = false;  // --quick: a small sweep, to check the program runs
  std::string command;
};
// Parses --out FILE and --quick; exits 64 with a usage line otherwise.
Options ParseOptions(int argc, char** argv, const char* experiment);

// Runs a busy kernel on every SM for about `ms` milliseconds.
void WarmUp(int ms = 300);

// The SM clock now: {"sm_mhz_measured": clock64 cycles per microsecond of
// %globaltimer over a 2 ms spin on one SM, "nvidia_smi": "clocks.sm,
// clocks.mem" or null}.
Json ClockReading();

// Device name, SM count, compute capability, driver and runtime versions.
Json DeviceSummary();

// Writes the result file (see above) and prints where it went.
void WriteResult(const Options& opt, const char* experiment,
                 const Json& clock_before, Json parameters, Json results);

// "2026-11-30T19:00:00Z"
std::string UtcNow();

// The current device's attribute.
int Attribute(cudaDeviceAttr attr);

// Dynamic shared memory that lets one block, and not two, reside on an SM
// (more than half of an SM's), and lets `kernel` take that much with the
// largest shared-memory carveout: a grid of one block per SM puts exactly
// one on every SM.
int OneBlockPerSmBytes();
void AllowOneBlockPerSm(const void* kernel, int bytes);

// What lane 0 of a warp records: its SM and clock64 at its start and end.
struct WarpSpan {
  uint32_t smid, pad;
  uint64_t c0, c1;
};
static_assert(sizeof(WarpSpan) == 24, "WarpSpan layout");
// Over the SMs the records name: the mean of each SM's span (its last warp
// end minus its first warp start), in cycles. *ok: every one of `sms` SMs
// ran exactly `warps` warps (one block per SM, as launched).
double MeanSmSpan(const std::vector<WarpSpan>& recs, int warps, int sms,
                  bool* ok);
// The median of `v` (the mean of the middle two for an even count; v not
// empty).
double Median(std::vector<double> v);

// A JSON array of the values.
Json ArrayOf(const std::vector<double>& v);

// One configuration of a loop experiment with W warps per SM (E31, E32):
// W <= 32 is one block of W warps per SM, padded with `pad` bytes of
// shared memory (OneBlockPerSmBytes); W = 64 two blocks of 1024 threads
// per SM (kernels limited to 32 registers a thread).
struct TripGrid {
  int blocks = 0, threads = 0, shared = 0;
  size_t warps = 0;  // the grid's
};
TripGrid TripGridFor(int w, int sms, int pad);

// What MeasureTrips found: per measured launch the SMs' mean span over the
// trips, their median, and whether every launch put W warps on every SM.
struct TripMeasure {
  std::vector<double> values;
  double median = 0;
  bool placed = true;
};

// Launches `launch(grid)` once to warm up and `reps` times more, each
// after filling `recs` with 0xff, and reads the warps' records back.
template <class Launch>
TripMeasure MeasureTrips(int w, int sms, int pad, int reps, uint32_t trips,
                         WarpSpan* recs, Launch&& launch) {
  const TripGrid g = TripGridFor(w, sms, pad);
  TripMeasure m;
  for (int rep = 0; rep <= reps; ++rep) {
    CUDA_CHECK(cudaMemset(recs, 0xff, g.warps * sizeof(WarpSpan)));
    launch(g);
    CUDA_CHECK_LAUNCH();
    if (rep == 0) continue;  // the warm-up launch
    std::vector<WarpSpan> host(g.warps);
    CUDA_CHECK(cudaMemcpy(host.data(), recs, g.warps * sizeof(WarpSpan),
                          cudaMemcpyDeviceToHost));
    bool placed = true;
    m.values.push_back(MeanSmSpan(host, w, sms, &placed) / trips);
    m.placed &= placed;
  }
  m.median = Median(m.values);
  return m;
}

// {"warps_per_sm", "cycles_per_trip" (the median), "slots_per_warp_trip"
// (that x 4 sub-partitions / W), "reps", "placement_ok"}.
Json TripRow(int w, const TripMeasure& m);

}  // namespace cuda_ref

#endif  // WARPSIM_CUDA_REF_COMMON_H_
