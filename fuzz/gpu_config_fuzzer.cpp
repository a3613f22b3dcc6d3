// Fuzz target: GPU-config JSON text -> runner::ParseGpuConfig.
// Seeds: the presets and the configs of tests/runner/gpu_config_test.cpp.
#include "fuzz_input.h"
#include "runner/gpu_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto config = warpsim::runner::ParseGpuConfig(
      warpsim::fuzz::AsText(data, size), "fuzz.json");
  warpsim::fuzz::CheckResult(config);
  return 0;
}
