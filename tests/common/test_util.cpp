#include "common/test_util.h"

#include <sys/wait.h>

#include <cstdio>

#include "scene/amber_parser.h"

namespace warpsim::testing {

runner::RunReport RunAmberText(const std::string& amber, uint32_t warp_width) {
  auto scene = scene::ParseAmberScript(amber, "test.amber");
  if (!scene.ok()) {
    runner::RunReport report;
    report.status = scene.error().kind == ErrorKind::kUnsupported
                        ? runner::RunStatus::kUnsupported
                        : runner::RunStatus::kInvalid;
    report.diagnostic = scene.error();
    return report;
  }
  runner::RunOptions options;
  options.warp_width = warp_width;
  return runner::RunScene(*scene, options);
}

std::string Describe(const runner::RunReport& report) {
  std::string s = runner::RunStatusName(report.status);
  if (report.diagnostic) s += ": " + report.diagnostic->ToString();
  for (const auto& e : report.expectations) {
    if (!e.passed) s += "\n  line " + std::to_string(e.line) + ": " + e.message;
  }
  return s;
}

CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0)
    r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace warpsim::testing
