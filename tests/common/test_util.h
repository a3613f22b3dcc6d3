// Helpers for simt tests: run a small AmberScript through the whole stack
// and report the outcome with enough detail to debug a failure.
#ifndef WARPSIM_TESTS_COMMON_TEST_UTIL_H_
#define WARPSIM_TESTS_COMMON_TEST_UTIL_H_

#include <string>

#include "runner/runner.h"
#include "simt/program.h"

namespace warpsim::testing {

// Parses and runs `amber` (an inline AmberScript). The returned report's
// status is kPass when every EXPECT held.
runner::RunReport RunAmberText(const std::string& amber,
                               uint32_t warp_width = 32);

// Compiles `source`, a GLSL compute shader, for Vulkan 1.3 and builds it
// as the runner does (legalized, lowered, registers allocated).
Result<simt::Program> BuildComputeGlsl(const std::string& source);
// The same for a fragment shader.
Result<simt::Program> BuildFragmentGlsl(const std::string& source);

// A one-line description of a report (status, diagnostic, failed EXPECTs),
// for INFO()/CAPTURE in tests.
std::string Describe(const runner::RunReport& report);

// A shell command's exit code (-1 when it did not exit) and its stdout and
// stderr together.
struct CommandResult {
  int exit_code = -1;
  std::string output;
};
CommandResult RunCommand(const std::string& command);

}  // namespace warpsim::testing

#endif  // WARPSIM_TESTS_COMMON_TEST_UTIL_H_
