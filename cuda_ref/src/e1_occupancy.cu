// E1: the occupancy matrix, the residency probe and launches at the limits.
//
// One kernel template, OccKernel<R>, is compiled once per register budget R
// with __maxnreg__(R); its body keeps 256 floats live, so ptxas uses all R
// registers (spilling the rest), and cudaFuncGetAttributes gives the count
// actually allocated (numRegs), which is what the rules take.
//
// Matrix: for every R, block size, dynamic shared memory size and carveout
// preference, cudaOccupancyMaxActiveBlocksPerMultiprocessor after raising
// the function's dynamic shared memory limit to that size
// (cudaFuncAttributeMaxDynamicSharedMemorySize) and setting the carveout
// (cudaFuncAttributePreferredSharedMemoryCarveout; -1 = the default). A cell
// the runtime refuses records the error's name instead of a count.
//
// Residency probe (REFERENCE §2.3): the same kernels launched for real with
// twice as many blocks as the predicted residency fills every SM; thread 0
// of each block reads %smid, increments a per-SM live counter, records its
// maximum, spins 200 us on %globaltimer and decrements. The largest maximum
// over SMs is the number of blocks the hardware really keeps resident.
//
// Limits: launches the hardware must refuse (too many registers for the
// block, too much shared memory, too many threads), with the error names.
//
// JSON: results.functions[] {R, numRegs, maxThreadsPerBlock, localSizeBytes};
// results.cells[] {R, regs, block, dyn_smem, carveout, blocks_per_sm | error};
// results.probe[] {R, regs, block, dyn_smem, carveout, predicted, measured,
// sms_used, grid}; results.limits[] {what, R, regs, block, dyn_smem,
// set_attribute, launch}.
// Full run: ~6000 API cells (< 5 s) and 24 probe launches (< 1 s).
#include <algorithm>
#include <vector>

#include "common.h"

using cuda_ref::Json;

namespace {

struct ProbeState {
  unsigned int live[256];
  unsigned int max_live[256];
  unsigned int blocks[256];
};

constexpr int kValues = 256;

// mode 0: the register-hungry body (never launched for timing; it is what
// fixes numRegs). mode 1: the residency probe.
template <int R>
__global__ void __maxnreg__(R)
    OccKernel(int mode, const float* in, float* out, ProbeState* probe,
              unsigned long long spin_ns) {
  extern __shared__ float dyn[];
  if (mode == 1) {
    __shared__ unsigned int sm;
    if (threadIdx.x == 0) {
      sm = cuda_ref::SmId();
      const unsigned int now = atomicAdd(&probe->live[sm], 1u) + 1u;
      atomicMax(&probe->max_live[sm], now);
      atomicAdd(&probe->blocks[sm], 1u);
      const unsigned long long t0 = cuda_ref::GlobalTimer();
      while (cuda_ref::GlobalTimer() - t0 < spin_ns) {
      }
      atomicSub(&probe->live[sm], 1u);
    }
    __syncthreads();
    return;
  }
  float v[kValues];
#pragma unroll
  for (int i = 0; i < kValues; ++i) v[i] = in[i * blockDim.x + threadIdx.x];
  float s = 0;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
#pragma unroll
    for (int i = 0; i < kValues; ++i)
      s += v[i] * v[(i * 7 + r) & (kValues - 1)];
  }
  if (blockDim.x > 0) dyn[threadIdx.x] = s;
  out[threadIdx.x] = s + dyn[(threadIdx.x + 1) % blockDim.x];
}

using KernelPtr = void (*)(int, const float*, float*, ProbeState*,
                           unsigned long long);

struct Fn {
  int r;
  KernelPtr k;
};

const Fn kFunctions[] = {
    {24, OccKernel<24>},   {28, OccKernel<28>},   {32, OccKernel<32>},
    {40, OccKernel<40>},   {48, OccKernel<48>},   {56, OccKernel<56>},
    {64, OccKernel<64>},   {72, OccKernel<72>},   {80, OccKernel<80>},
    {96, OccKernel<96>},   {112, OccKernel<112>}, {128, OccKernel<128>},
    {168, OccKernel<168>}, {200, OccKernel<200>}, {255, OccKernel<255>},
};

const int kBlocks[] = {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
const int kDynSmem[] = {0,        1 << 10,  8 << 10,   16 << 10,  31 << 10,
                        47 << 10, 64 << 10, 100 << 10, 200 << 10, 226 << 10};
const int kCarveouts[] = {-1, 0, 50, 100};

// Sets the function's attributes for one cell; returns the first error.
cudaError_t Configure(KernelPtr k, int dyn, int carveout) {
  cudaError_t e =
      cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn);
  if (e != cudaSuccess) return e;
  return cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
                              carveout);
}

Json Cell(const Fn& f, int regs, int block, int dyn, int carveout) {
  Json c = Json::Object();
  c["R"] = f.r;
  c["regs"] = regs;
  c["block"] = block;
  c["dyn_smem"] = dyn;
  c["carveout"] = carveout;
  cudaError_t e = Configure(f.k, dyn, carveout);
  int blocks = -1;
  if (e == cudaSuccess) {
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f.k, block,
                                                      static_cast<size_t>(dyn));
  }
  if (e == cudaSuccess) {
    c["blocks_per_sm"] = blocks;
  } else {
    c["error"] = cudaGetErrorName(e);
    (void)cudaGetLastError();
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E1");
  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();
  const int sms = cuda_ref::Attribute(cudaDevAttrMultiProcessorCount);

  Json functions = Json::Array();
  std::vector<int> regs;
  for (const Fn& f : kFunctions) {
    cudaFuncAttributes a{};
    CUDA_CHECK(cudaFuncGetAttributes(&a, f.k));
    regs.push_back(a.numRegs);
    Json j = Json::Object();
    j["R"] = f.r;
    j["numRegs"] = a.numRegs;
    j["maxThreadsPerBlock"] = a.maxThreadsPerBlock;
    j["localSizeBytes"] = static_cast<unsigned long long>(a.localSizeBytes);
    j["sharedSizeBytes"] = static_cast<unsigned long long>(a.sharedSizeBytes);
    functions.push_back(std::move(j));
  }

  // The matrix.
  Json cells = Json::Array();
  const size_t nf = opt.quick ? 3 : std::size(kFunctions);
  for (size_t fi = 0; fi < nf; ++fi) {
    for (int block : kBlocks) {
      for (int dyn : kDynSmem) {
        for (int carveout : kCarveouts) {
          cells.push_back(Cell(kFunctions[fi], regs[fi], block, dyn, carveout));
        }
      }
    }
  }
  std::printf("E1: %zu cells\n", cells.size());

  // The residency probe.
  float* in = nullptr;
  float* out = nullptr;
  ProbeState* probe = nullptr;
  CUDA_CHECK(cudaMalloc(&in, sizeof(float) * kValues * 1024));
  CUDA_CHECK(cudaMalloc(&out, sizeof(float) * 1024));
  CUDA_CHECK(cudaMalloc(&probe, sizeof(ProbeState)));
  struct ProbeCfg {
    int fi, block, dyn, carveout;
  };
  const std::vector<ProbeCfg> probes = {
      {2, 32, 0, -1},          {2, 64, 0, -1},          {4, 96, 0, -1},
      {4, 128, 0, -1},         {6, 256, 0, -1},         {7, 256, 0, -1},
      {9, 128, 0, -1},         {12, 128, 0, -1},        {14, 128, 0, -1},
      {6, 1024, 0, -1},        {8, 768, 0, -1},         {0, 32, 0, -1},
      {1, 1024, 0, -1},        {2, 128, 1 << 10, -1},   {2, 128, 16 << 10, -1},
      {2, 128, 31 << 10, -1},  {2, 128, 47 << 10, -1},  {2, 128, 64 << 10, -1},
      {2, 128, 100 << 10, -1}, {2, 128, 200 << 10, -1}, {2, 128, 8 << 10, 0},
      {2, 128, 8 << 10, 50},   {2, 128, 31 << 10, 50},  {3, 192, 16 << 10, 100},
  };
  Json probe_rows = Json::Array();
  for (size_t pi = 0; pi < (opt.quick ? 4 : probes.size()); ++pi) {
    const ProbeCfg& p = probes[pi];
    const Fn& f = kFunctions[p.fi];
    CUDA_CHECK(Configure(f.k, p.dyn, p.carveout));
    int predicted = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &predicted, f.k, p.block, static_cast<size_t>(p.dyn)));
    const int grid = std::max(1, predicted) * sms * 2;
    CUDA_CHECK(cudaMemset(probe, 0, sizeof(ProbeState)));
    f.k<<<grid, p.block, static_cast<size_t>(p.dyn)>>>(1, in, out, probe,
                                                       200000ull);
    CUDA_CHECK_LAUNCH();
    ProbeState h{};
    CUDA_CHECK(cudaMemcpy(&h, probe, sizeof h, cudaMemcpyDeviceToHost));
    unsigned int measured = 0, used = 0, total = 0;
    for (int s = 0; s < 256; ++s) {
      measured = std::max(measured, h.max_live[s]);
      used += h.blocks[s] ? 1 : 0;
      total += h.blocks[s];
    }
    Json r = Json::Object();
    r["R"] = f.r;
    r["regs"] = regs[p.fi];
    r["block"] = p.block;
    r["dyn_smem"] = p.dyn;
    r["carveout"] = p.carveout;
    r["grid"] = grid;
    r["predicted"] = predicted;
    r["measured"] = measured;
    r["sms_used"] = used;
    r["blocks_counted"] = total;
    probe_rows.push_back(std::move(r));
  }

  // Launches at the limits.
  struct LimitCfg {
    const char* what;
    int fi, block, dyn;
  };
  const LimitCfg limits[] = {
      {"1024 threads x 64 registers (exactly 64K)", 6, 1024, 0},
      {"1024 threads x 72 registers", 7, 1024, 0},
      {"768 threads x 80 registers", 8, 768, 0},
      {"256 threads x 255 registers", 14, 256, 0},
      {"512 threads x 255 registers", 14, 512, 0},
      {"dynamic shared memory 227 KB (the opt-in limit)", 2, 128, 227 << 10},
      {"dynamic shared memory 227 KB + 4 B", 2, 128, (227 << 10) + 4},
      {"dynamic shared memory 48 KB + 4 B without raising the limit", 2, 128,
       -((48 << 10) + 4)},
      {"1025 threads", 0, 1025, 0},
  };
  Json limit_rows = Json::Array();
  for (const LimitCfg& l : limits) {
    const Fn& f = kFunctions[l.fi];
    const int dyn = l.dyn < 0 ? -l.dyn : l.dyn;
    // Without raising: reset the limit to the 48 KB default.
    const int attr = l.dyn < 0 ? 0 : dyn;
    const cudaError_t se = Configure(f.k, attr, -1);
    (void)cudaGetLastError();
    CUDA_CHECK(cudaMemset(probe, 0, sizeof(ProbeState)));
    f.k<<<sms, l.block, static_cast<size_t>(dyn)>>>(1, in, out, probe, 1000ull);
    const cudaError_t le = cudaGetLastError();
    const cudaError_t se2 = cudaDeviceSynchronize();
    Json r = Json::Object();
    r["what"] = l.what;
    r["R"] = f.r;
    r["regs"] = regs[l.fi];
    r["block"] = l.block;
    r["dyn_smem"] = dyn;
    r["set_attribute"] = cudaGetErrorName(se);
    r["launch"] = cudaGetErrorName(le != cudaSuccess ? le : se2);
    limit_rows.push_back(std::move(r));
    if (se2 != cudaSuccess) {
      std::fprintf(stderr, "E1: the device failed after '%s': %s\n", l.what,
                   cudaGetErrorName(se2));
      return 3;
    }
  }
  CUDA_CHECK(cudaFree(in));
  CUDA_CHECK(cudaFree(out));
  CUDA_CHECK(cudaFree(probe));

  Json params = Json::Object();
  Json jb = Json::Array(), jd = Json::Array(), jc = Json::Array();
  for (int b : kBlocks) jb.push_back(b);
  for (int d : kDynSmem) jd.push_back(d);
  for (int c : kCarveouts) jc.push_back(c);
  params["blocks"] = std::move(jb);
  params["dyn_smem"] = std::move(jd);
  params["carveouts"] = std::move(jc);
  params["probe_spin_ns"] = 200000;

  Json results = Json::Object();
  results["functions"] = std::move(functions);
  results["cells"] = std::move(cells);
  results["probe"] = std::move(probe_rows);
  results["limits"] = std::move(limit_rows);
  cuda_ref::WriteResult(opt, "E1", before, std::move(params),
                        std::move(results));
  return 0;
}
