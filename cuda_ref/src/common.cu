#include <algorithm>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>

#include "common.h"

namespace cuda_ref {

Options ParseOptions(int argc, char** argv, const char* experiment) {
  Options opt;
  for (int i = 0; i < argc; ++i) {
    if (i) opt.command += ' ';
    opt.command += argv[i];
  }
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) {
      opt.out = argv[++i];
    } else if (a == "--quick") {
      opt.quick = true;
    } else {
      std::fprintf(stderr, "%s: unknown argument '%s'\n", argv[0], a.c_str());
      opt.out.clear();
      break;
    }
  }
  if (opt.out.empty()) {
    std::fprintf(stderr, "usage: %s --out RESULT.json [--quick]  (%s)\n",
                 argv[0], experiment);
    std::exit(64);
  }
  int n = 0;
  CUDA_CHECK(cudaGetDeviceCount(&n));
  if (n < 1) {
    std::fprintf(stderr, "%s: no CUDA device\n", argv[0]);
    std::exit(3);
  }
  CUDA_CHECK(cudaSetDevice(0));
  return opt;
}

int Attribute(cudaDeviceAttr attr) {
  int v = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&v, attr, 0));
  return v;
}

int OneBlockPerSmBytes() {
  const int per_sm = Attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
  const int optin = Attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
  return std::min(optin, (per_sm / 2 + 1024) / 1024 * 1024);
}

void AllowOneBlockPerSm(const void* kernel, int bytes) {
  CUDA_CHECK(cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  CUDA_CHECK(cudaFuncSetAttribute(
      kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
      static_cast<int>(cudaSharedmemCarveoutMaxShared)));
}

namespace {

__global__ void BusyKernel(uint64_t ns, float* sink) {
  const uint64_t t0 = GlobalTimer();
  float x = threadIdx.x;
  while (GlobalTimer() - t0 < ns) {
#pragma unroll 16
    for (int k = 0; k < 64; ++k) x = fmaf(x, 0.999f, 0.5f);
  }
  if (x == 12345.f) *sink = x;  // keeps the loop
}

__global__ void ClockKernel(uint64_t ns, uint64_t* out) {
  const uint64_t t0 = GlobalTimer();
  const uint64_t c0 = Clock64();
  uint64_t t1 = t0;
  while ((t1 = GlobalTimer()) - t0 < ns) {
  }
  const uint64_t c1 = Clock64();
  out[0] = c1 - c0;
  out[1] = t1 - t0;
}

std::string NvidiaSmiClocks() {
  std::unique_ptr<FILE, int (*)(FILE*)> p(
      popen("nvidia-smi --query-gpu=clocks.sm,clocks.mem "
            "--format=csv,noheader 2>/dev/null",
            "r"),
      pclose);
  if (!p) return {};
  char buf[256];
  std::string s;
  while (std::fgets(buf, sizeof buf, p.get())) s += buf;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace

void WarmUp(int ms) {
  float* sink = nullptr;
  CUDA_CHECK(cudaMalloc(&sink, sizeof(float)));
  const int sms = Attribute(cudaDevAttrMultiProcessorCount);
  BusyKernel<<<sms * 4, 256>>>(static_cast<uint64_t>(ms) * 1000000ull, sink);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaFree(sink));
}

Json ClockReading() {
  uint64_t* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, 2 * sizeof(uint64_t)));
  ClockKernel<<<1, 1>>>(2000000ull, d);
  CUDA_CHECK_LAUNCH();
  uint64_t h[2];
  CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d));
  Json j = Json::Object();
  j["sm_mhz_measured"] =
      h[1] ? 1000.0 * static_cast<double>(h[0]) / static_cast<double>(h[1])
           : 0.0;
  const std::string smi = NvidiaSmiClocks();
  j["nvidia_smi"] = smi.empty() ? Json() : Json(smi);
  return j;
}

Json DeviceSummary() {
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  int driver = 0, runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  Json j = Json::Object();
  j["name"] = p.name;
  j["compute_capability"] =
      std::to_string(p.major) + "." + std::to_string(p.minor);
  j["multiprocessors"] = p.multiProcessorCount;
  j["cuda_driver_version"] = driver;
  j["cuda_runtime_version"] = runtime;
  j["clock_rate_khz"] = Attribute(cudaDevAttrClockRate);
  return j;
}

std::string UtcNow() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

void WriteResult(const Options& opt, const char* experiment,
                 const Json& clock_before, Json parameters, Json results) {
  Json j = Json::Object();
  j["experiment"] = experiment;
  j["schema_version"] = 1;
  j["command"] = opt.command;
  j["date"] = UtcNow();
  j["quick"] = opt.quick;
  j["device"] = DeviceSummary();
  j["clock_before"] = clock_before;
  j["clock_after"] = ClockReading();
  j["parameters"] = std::move(parameters);
  j["results"] = std::move(results);
  std::ofstream f(opt.out);
  f << j.Dump(1);
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", opt.out.c_str());
    std::exit(3);
  }
  std::printf("%s: wrote %s\n", experiment, opt.out.c_str());
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Json ArrayOf(const std::vector<double>& v) {
  Json a = Json::Array();
  for (double x : v) a.push_back(x);
  return a;
}

TripGrid TripGridFor(int w, int sms, int pad) {
  TripGrid g;
  g.blocks = w <= 32 ? sms : 2 * sms;
  g.threads = w <= 32 ? 32 * w : 1024;
  g.shared = w <= 32 ? pad : 0;
  g.warps = size_t(g.blocks) * g.threads / 32;
  return g;
}

Json TripRow(int w, const TripMeasure& m) {
  Json r = Json::Object();
  r["warps_per_sm"] = w;
  r["cycles_per_trip"] = m.median;
  r["slots_per_warp_trip"] = m.median * 4.0 / w;
  r["reps"] = ArrayOf(m.values);
  r["placement_ok"] = m.placed;
  return r;
}

double MeanSmSpan(const std::vector<WarpSpan>& recs, int warps, int sms,
                  bool* ok) {
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> span;  // first, last
  std::map<uint32_t, int> count;
  for (const WarpSpan& r : recs) {
    auto it = span.find(r.smid);
    if (it == span.end()) {
      span[r.smid] = {r.c0, r.c1};
    } else {
      it->second.first = std::min(it->second.first, r.c0);
      it->second.second = std::max(it->second.second, r.c1);
    }
    ++count[r.smid];
  }
  *ok = static_cast<int>(span.size()) == sms;
  double sum = 0;
  for (const auto& [sm, s] : span) {
    *ok &= count[sm] == warps;
    sum += static_cast<double>(s.second - s.first);
  }
  return span.empty() ? 0.0 : sum / static_cast<double>(span.size());
}

}  // namespace cuda_ref
