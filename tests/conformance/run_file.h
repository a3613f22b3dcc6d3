// What conformance_runner runs for one corpus file: the emulator
// (run_file_emulator.cpp, the `conformance` test) or a Vulkan device
// (tests/vulkan_ref/run_file_vkref.cpp, `vkref_conformance`). The rest of
// the runner (children, timeouts, known failures, counts) is shared.
#ifndef WARPSIM_TESTS_CONFORMANCE_RUN_FILE_H_
#define WARPSIM_TESTS_CONFORMANCE_RUN_FILE_H_

#include <cstdint>
#include <string>

#include "runner/runner.h"

namespace warpsim::conformance {

// `threads`: host threads the run may use (the emulator's RunOptions::
// threads; a device ignores it).
runner::RunReport RunCorpusFile(const std::string& path, uint32_t threads);

}  // namespace warpsim::conformance

#endif  // WARPSIM_TESTS_CONFORMANCE_RUN_FILE_H_
