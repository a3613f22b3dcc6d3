#include "common/test_util.h"

#include <sys/wait.h>

#include <cstdio>

#include "runner/shader_build.h"
#include "scene/amber_parser.h"
#include "spirv/compile.h"

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

namespace {
Result<simt::Program> BuildGlsl(const std::string& source,
                                spirv::ShaderStage stage,
                                const std::string& name) {
  constexpr spirv::TargetEnv kEnv = spirv::TargetEnv::kVulkan1_3;
  auto words = spirv::CompileGlsl(source, stage, kEnv, name);
  if (!words.ok()) return words.error();
  auto built = runner::BuildProgram(*words, kEnv, name, {}, {});
  if (!built.ok()) return built.error();
  return std::move(built->program);
}
}  // namespace

Result<simt::Program> BuildComputeGlsl(const std::string& source) {
  return BuildGlsl(source, spirv::ShaderStage::kCompute, "t.comp");
}

Result<simt::Program> BuildFragmentGlsl(const std::string& source) {
  return BuildGlsl(source, spirv::ShaderStage::kFragment, "t.frag");
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
