// Fuzz target: AmberScript text -> scene::ParseAmberScript.
// Seeds: the conformance corpus's .amber files; dictionary: amber_script.dict.
// Links: warpsim_scene
#include "fuzz_input.h"
#include "scene/amber_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A path inside a folder that does not exist: FILE references in the
  // script resolve against it and fail instead of reading the machine's files.
  auto scene = warpsim::scene::ParseAmberScript(
      warpsim::fuzz::AsText(data, size), "/nonexistent-fuzz-dir/fuzz.amber");
  warpsim::fuzz::CheckResult(scene);
  return 0;
}
