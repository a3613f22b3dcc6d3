#include "common/test_util.h"

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

}  // namespace warpsim::testing
