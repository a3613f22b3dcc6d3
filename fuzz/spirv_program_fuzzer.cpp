// Fuzz target: SPIR-V binary -> runner::BuildProgram: validation (SPIRV-Tools)
// -> legalization (spirv-opt) -> spirv::Module -> lowering -> register
// allocation. Seeds: the corpus's shaders compiled or assembled to .spv
// (make_seeds.sh).
#include "fuzz_input.h"
#include "runner/shader_build.h"
#include "spirv/binary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto words = warpsim::spirv::WordsFromBytes(
      warpsim::fuzz::AsBytes(data, size), "fuzz.spv");
  warpsim::fuzz::CheckResult(words);
  if (!words.ok()) return 0;
  // Universal SPIR-V 1.6 accepts every version up to 1.6, so seeds made for
  // any of the corpus's environments get past the version check.
  warpsim::simt::LowerOptions lower;  // entry point "main", 32-lane warps
  warpsim::runner::BuildSettings settings;
  auto built = warpsim::runner::BuildProgram(
      *words, warpsim::spirv::TargetEnv::kSpv1_6, "fuzz.spv", lower, settings);
  warpsim::fuzz::CheckResult(built);
  return 0;
}
