// `warpsim test` (emulator/cli/test_command.cpp): outcomes per folder,
// JUnit XML, baselines and regressions, and the command line's errors, run
// against the real binary.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "common/temp_dir.h"
#include "common/test_util.h"

namespace {

using warpsim::testing::RunCommand;

warpsim::testing::CommandResult Test(const std::string& args) {
  return RunCommand(std::string(WARPSIM_BINARY) + " test " + args +
                    " --jobs 2");
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void Write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(
      std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

const char kPassing[] = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() { b.v[gl_LocalInvocationID.x] = 7u; }
END
BUFFER buf DATA_TYPE uint32 SIZE 32 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
EXPECT buf IDX 0 EQ 7
)";

TEST_CASE("test: a folder of scenes, JUnit, baselines", "[cli][test]") {
  warpsim::testing::TempDir dir("test_cli");
  Write(dir.Sub("scenes/a/pass.amber"), kPassing);
  std::string failing = kPassing;
  failing.replace(failing.find("EQ 7"), 4, "EQ 8");
  Write(dir.Sub("scenes/a/fail.amber"), failing);
  std::string unsupported = kPassing;
  unsupported.insert(unsupported.find("SHADER"),
                     "DEVICE_EXTENSION VK_KHR_no_such_extension\n");
  Write(dir.Sub("scenes/b/unsupported.amber"), unsupported);
  Write(dir.Sub("scenes/b/notes.txt"), "not a scene");

  const std::string junit = dir.Sub("junit.xml");
  const auto r = Test(dir.Sub("scenes") + " --junit " + junit);
  INFO(r.output);
  CHECK(r.exit_code == 1);  // fail.amber
  CHECK_THAT(r.output, Catch::Contains("fail.amber: fail: line 14"));
  CHECK_THAT(r.output,
             Catch::Contains("3 scenes: 1 passed, 1 failed, 1 unsupported"));
  CHECK_THAT(r.output, Catch::Contains("slowest scenes"));
  const std::string xml = Slurp(junit);
  CHECK_THAT(xml, Catch::Contains("tests=\"3\" failures=\"1\" errors=\"0\" "
                                  "skipped=\"1\""));
  CHECK_THAT(xml, Catch::Contains("name=\"fail.amber\""));
  CHECK_THAT(xml, Catch::Contains("<skipped message=\"unsupported"));

  // Unsupported scenes alone do not fail the run; a baseline round trip.
  std::filesystem::remove(dir.Sub("scenes/a/fail.amber"));
  const std::string base = dir.Sub("base.json");
  const auto saved = Test(dir.Sub("scenes") + " --save-baseline " + base);
  INFO(saved.output);
  REQUIRE(saved.exit_code == 0);
  const nlohmann::json b = nlohmann::json::parse(Slurp(base));
  CHECK(b["schema_version"] == 1);
  const std::string key = dir.Sub("scenes/a/pass.amber");
  REQUIRE(b["scenes"].contains(key));
  CHECK(b["scenes"][key]["status"] == "pass");
  const auto same = Test(dir.Sub("scenes") + " --baseline " + base);
  INFO(same.output);
  CHECK(same.exit_code == 0);
  CHECK_THAT(same.output, Catch::Contains("0 regressed above 0 %"));

  // A baseline that ran fewer instructions: a regression.
  nlohmann::json fewer = b;
  fewer["scenes"][key]["warp_instructions"] =
      b["scenes"][key]["warp_instructions"].get<uint64_t>() - 1;
  const std::string base2 = dir.Sub("base2.json");
  Write(base2, fewer.dump());
  const auto worse =
      Test(dir.Sub("scenes") + " --baseline " + base2 + " --junit " + junit);
  INFO(worse.output);
  CHECK(worse.exit_code == 1);
  CHECK_THAT(worse.output, Catch::Contains("regressed warp_instructions"));
  CHECK_THAT(Slurp(junit),
             Catch::Contains("<failure message=\"pass, regressed"));
  // Within the tolerance.
  CHECK(Test(dir.Sub("scenes") + " --baseline " + base2 + " --fail-above 50")
            .exit_code == 0);
}

TEST_CASE("test: errors of the command line and of baselines", "[cli][test]") {
  warpsim::testing::TempDir dir("test_cli_errors");
  Write(dir.Sub("s/pass.amber"), kPassing);
  Write(dir.Sub("bad.json"), "{ not json");
  Write(dir.Sub("old.json"), R"({"schema_version": 99, "scenes": {}})");
  struct Case {
    std::string args;
    int exit_code;
    const char* message;
  };
  const std::string s = dir.Sub("s");
  const Case cases[] = {
      {"", 64, "test needs a file or folder"},
      {s + " --baseline a --save-baseline b", 64, "exclude each other"},
      {s + " --fail-above 5", 64, "--fail-above needs --baseline"},
      {s + " --jobs x", 64, "--jobs needs a number"},
      {dir.Sub("missing"), 64, "no such file or folder"},
      {s + " --baseline " + dir.Sub("bad.json"), 2, "not a JSON object"},
      {s + " --baseline " + dir.Sub("old.json"), 2, "schema_version is not 1"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    const auto r = Test(c.args);
    INFO(r.output);
    CHECK(r.exit_code == c.exit_code);
    CHECK_THAT(r.output, Catch::Contains(c.message));
  }
}

}  // namespace
