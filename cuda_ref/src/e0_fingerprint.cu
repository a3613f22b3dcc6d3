// E0: the device fingerprint. Every cudaDeviceProp field the occupancy rules
// and the timing model use, every cudaDeviceGetAttribute value listed below
// (by its CUDA name), the driver's L2 and memory facts. The runner adds
// `nvidia-smi -q` beside it. The emulator's h200 preset cites this file.
#include "common.h"

using cuda_ref::Json;

namespace {

struct Attr {
  const char* name;
  cudaDeviceAttr attr;
};

#define ATTR(x) \
  { #x, x }
const Attr kAttributes[] = {
    ATTR(cudaDevAttrMultiProcessorCount),
    ATTR(cudaDevAttrMaxThreadsPerBlock),
    ATTR(cudaDevAttrMaxThreadsPerMultiProcessor),
    ATTR(cudaDevAttrMaxBlocksPerMultiprocessor),
    ATTR(cudaDevAttrWarpSize),
    ATTR(cudaDevAttrMaxRegistersPerBlock),
    ATTR(cudaDevAttrMaxRegistersPerMultiprocessor),
    ATTR(cudaDevAttrMaxSharedMemoryPerBlock),
    ATTR(cudaDevAttrMaxSharedMemoryPerBlockOptin),
    ATTR(cudaDevAttrMaxSharedMemoryPerMultiprocessor),
    ATTR(cudaDevAttrReservedSharedMemoryPerBlock),
    ATTR(cudaDevAttrTotalConstantMemory),
    ATTR(cudaDevAttrL2CacheSize),
    ATTR(cudaDevAttrMaxPersistingL2CacheSize),
    ATTR(cudaDevAttrGlobalL1CacheSupported),
    ATTR(cudaDevAttrLocalL1CacheSupported),
    ATTR(cudaDevAttrClockRate),
    ATTR(cudaDevAttrMemoryClockRate),
    ATTR(cudaDevAttrGlobalMemoryBusWidth),
    ATTR(cudaDevAttrComputeCapabilityMajor),
    ATTR(cudaDevAttrComputeCapabilityMinor),
    ATTR(cudaDevAttrConcurrentKernels),
    ATTR(cudaDevAttrAsyncEngineCount),
    ATTR(cudaDevAttrEccEnabled),
    ATTR(cudaDevAttrSingleToDoublePrecisionPerfRatio),
    ATTR(cudaDevAttrCooperativeLaunch),
    ATTR(cudaDevAttrClusterLaunch),
    ATTR(cudaDevAttrMaxBlockDimX),
    ATTR(cudaDevAttrMaxGridDimX),
    ATTR(cudaDevAttrPciBusId),
    ATTR(cudaDevAttrPciDeviceId),
};
#undef ATTR

}  // namespace

int main(int argc, char** argv) {
  const cuda_ref::Options opt = cuda_ref::ParseOptions(argc, argv, "E0");
  cuda_ref::WarmUp();
  const Json before = cuda_ref::ClockReading();

  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  Json props = Json::Object();
  props["name"] = p.name;
  props["totalGlobalMem"] = static_cast<unsigned long long>(p.totalGlobalMem);
  props["sharedMemPerBlock"] =
      static_cast<unsigned long long>(p.sharedMemPerBlock);
  props["sharedMemPerBlockOptin"] =
      static_cast<unsigned long long>(p.sharedMemPerBlockOptin);
  props["sharedMemPerMultiprocessor"] =
      static_cast<unsigned long long>(p.sharedMemPerMultiprocessor);
  props["reservedSharedMemPerBlock"] =
      static_cast<unsigned long long>(p.reservedSharedMemPerBlock);
  props["regsPerBlock"] = p.regsPerBlock;
  props["regsPerMultiprocessor"] = p.regsPerMultiprocessor;
  props["warpSize"] = p.warpSize;
  props["maxThreadsPerBlock"] = p.maxThreadsPerBlock;
  props["maxThreadsPerMultiProcessor"] = p.maxThreadsPerMultiProcessor;
  props["maxBlocksPerMultiProcessor"] = p.maxBlocksPerMultiProcessor;
  props["multiProcessorCount"] = p.multiProcessorCount;
  props["l2CacheSize"] = p.l2CacheSize;
  props["persistingL2CacheMaxSize"] = p.persistingL2CacheMaxSize;
  props["totalConstMem"] = static_cast<unsigned long long>(p.totalConstMem);
  props["memoryBusWidth"] = p.memoryBusWidth;
  props["major"] = p.major;
  props["minor"] = p.minor;
  props["pciBusID"] = p.pciBusID;
  props["pciDeviceID"] = p.pciDeviceID;
  props["uuid"] = [&] {
    std::string s;
    char b[4];
    for (int k = 0; k < 16; ++k) {
      std::snprintf(b, sizeof b, "%02x",
                    static_cast<unsigned char>(p.uuid.bytes[k]));
      s += b;
    }
    return s;
  }();

  Json attrs = Json::Object();
  for (const Attr& a : kAttributes) {
    int v = 0;
    const cudaError_t e = cudaDeviceGetAttribute(&v, a.attr, 0);
    attrs[a.name] = e == cudaSuccess ? Json(v) : Json(cudaGetErrorName(e));
  }
  (void)cudaGetLastError();

  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  Json mem = Json::Object();
  mem["free_bytes"] = static_cast<unsigned long long>(free_b);
  mem["total_bytes"] = static_cast<unsigned long long>(total_b);

  Json results = Json::Object();
  results["properties"] = std::move(props);
  results["attributes"] = std::move(attrs);
  results["memory"] = std::move(mem);
  cuda_ref::WriteResult(opt, "E0", before, Json::Object(), std::move(results));
  return 0;
}
