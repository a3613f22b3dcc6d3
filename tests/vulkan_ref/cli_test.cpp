// main.cpp, run as the real warpsim-vkref binary: the CLI contract of
// `warpsim run` (exit codes, --out PNGs and report.json, --json).
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "vulkan_ref/vk_test_util.h"

namespace {

namespace fs = std::filesystem;

int Run(const std::string& args, std::string* out = nullptr) {
  const std::string cmd = std::string(WARPSIM_VKREF_BINARY) + " " + args +
                          " --shader-cache off 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string text;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) text.append(buf, n);
  const int status = pclose(p);
  if (out) *out = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

fs::path TempDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("vkref_cli_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string WriteScene(const fs::path& dir, const std::string& text) {
  const fs::path f = dir / "scene.amber";
  std::ofstream(f) << text;
  return f.string();
}

constexpr char kScene[] = R"(#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 430
layout(location = 0) out vec4 color;
void main() { color = vec4(0.0, 1.0, 0.0, 1.0); }
END
BUFFER frame FORMAT B8G8R8A8_UNORM
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  BIND BUFFER frame AS color LOCATION 0
  FRAMEBUFFER_SIZE 16 16
END
RUN p DRAW_RECT POS 0 0 SIZE 16 16
EXPECT frame IDX 0 0 SIZE 16 16 EQ_RGBA 0 255 0 255
)";

TEST_CASE("cli: usage errors exit 64", "[vkref]") {
  CHECK(Run("") == 64);
  CHECK(Run("run") == 64);
  CHECK(Run("run a.amber --device amd") == 64);
  CHECK(Run("run a.amber --repeat 0") == 64);
  CHECK(Run("run a.amber --bogus") == 64);
  CHECK(Run("frobnicate") == 64);
  CHECK(Run("--help") == 0);
}

TEST_CASE("cli: a missing file is invalid input (2)", "[vkref]") {
  std::string out;
  CHECK(Run("run /nonexistent/x.amber --device lavapipe", &out) == 2);
}

TEST_CASE("cli: pass writes PNG and report, fail exits 1", "[vkref]") {
  if (!warpsim::vkref::testing::HaveLavapipe()) return;
  const fs::path dir = TempDir("pass");
  const std::string file = WriteScene(dir, kScene);
  std::string out;
  REQUIRE(Run("run " + file + " --device lavapipe --repeat 2 --out " +
                  (dir / "out").string() + " --json " +
                  (dir / "r.json").string(),
              &out) == 0);
  CHECK_THAT(out, Catch::Contains("device"));
  CHECK(fs::exists(dir / "out" / "frame.png"));
  std::ifstream in(dir / "out" / "report.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  CHECK(j["result"] == "pass");
  CHECK(j["exit_code"] == 0);
  CHECK(j["device"]["type"] == "cpu");
  REQUIRE(j["draws"].size() == 1);
  CHECK(j["draws"][0]["vs_invocations"] == 4);
  CHECK(j["draws"][0]["gpu_times_ns"].size() == 2);
  CHECK(j["stats"]["repeat"] == 2);
  CHECK(j["pipelines"].size() == 2);
  CHECK(fs::exists(dir / "r.json"));

  std::string failing = kScene;
  failing.replace(failing.find("EQ_RGBA 0 255"), 13, "EQ_RGBA 9 255");
  const std::string bad = WriteScene(TempDir("fail"), failing);
  CHECK(Run("run " + bad + " --device lavapipe", &out) == 1);
  CHECK_THAT(out, Catch::Contains("expectation failed"));
}

TEST_CASE("cli: unsupported exits 3 and names what is missing", "[vkref]") {
  if (!warpsim::vkref::testing::HaveLavapipe()) return;
  const std::string file = WriteScene(
      TempDir("unsupported"),
      std::string("#!amber\nDEVICE_FEATURE sparseResidencyAliased\n") +
          (kScene + 8));
  std::string out;
  CHECK(Run("run " + file + " --device lavapipe", &out) == 3);
  CHECK_THAT(out, Catch::Contains("sparseResidencyAliased"));
}

}  // namespace
