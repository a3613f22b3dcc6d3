// Fuzz target: VkScript text -> scene::ParseVkScript.
// Seeds: the conformance corpus's .vkscript files.
// Links: warpsim_scene
#include "fuzz_input.h"
#include "scene/vkscript_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A path inside a folder that does not exist: file references resolve
  // against it and fail instead of reading the machine's files.
  auto scene = warpsim::scene::ParseVkScript(
      warpsim::fuzz::AsText(data, size), "/nonexistent-fuzz-dir/fuzz.vkscript");
  warpsim::fuzz::CheckResult(scene);
  return 0;
}
