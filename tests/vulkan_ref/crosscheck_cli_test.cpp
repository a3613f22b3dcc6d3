// crosscheck_cli.cpp, run as the real binary: `warpsim-vkref crosscheck`'s
// exit codes, table, crosscheck.json and PNGs.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "vulkan_ref/vk_test_util.h"

namespace {

namespace fs = std::filesystem;

int Run(const std::string& args, std::string* out = nullptr) {
  const std::string cmd = std::string(WARPSIM_VKREF_BINARY) + " crosscheck " +
                          args + " --shader-cache off 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string text;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) text.append(buf, n);
  const int status = pclose(p);
  if (out) *out = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

fs::path TempDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("vkref_crosscheck_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
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

TEST_CASE("crosscheck cli: usage errors exit 64", "[vkref]") {
  CHECK(Run("") == 64);
  CHECK(Run("a.amber b.amber") == 64);
  CHECK(Run("a.amber --device amd") == 64);
  CHECK(Run("a.amber --threads x") == 64);
  CHECK(Run("a.amber --bogus") == 64);
  CHECK(Run("--help") == 0);
}

TEST_CASE("crosscheck cli: a missing file is invalid input (2)", "[vkref]") {
  std::string out;
  CHECK(Run("/nonexistent/x.amber --device lavapipe", &out) == 2);
  CHECK_THAT(out, Catch::Contains("invalid"));
}

TEST_CASE("crosscheck cli: agree, with table, JSON and PNGs", "[vkref]") {
  if (!warpsim::vkref::testing::HaveLavapipe()) return;
  const fs::path dir = TempDir("agree");
  const fs::path file = dir / "scene.amber";
  std::ofstream(file) << kScene;
  std::string out;
  REQUIRE(Run(file.string() + " --device lavapipe --out " +
                  (dir / "out").string() + " --json " +
                  (dir / "c.json").string(),
              &out) == 0);
  CHECK_THAT(out, Catch::Contains("image frame 16x16"));
  CHECK_THAT(out, Catch::Contains("result: agree"));
  CHECK(fs::exists(dir / "out" / "frame.device.png"));
  CHECK(fs::exists(dir / "out" / "frame.emulator.png"));
  CHECK_FALSE(fs::exists(dir / "out" / "frame.diff.png"));
  CHECK(fs::exists(dir / "out" / "crosscheck.json"));
  std::ifstream in(dir / "c.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  CHECK(j["schema_version"] == 1);
  CHECK(j["result"] == "agree");
  CHECK(j["exit_code"] == 0);
  CHECK(j["device"]["type"] == "cpu");
  REQUIRE(j["buffers"].size() == 1);
  CHECK(j["buffers"][0]["name"] == "frame");
  CHECK(j["buffers"][0]["compared_how"] == "exact");
  CHECK(j["buffers"][0]["agree"] == true);
  CHECK(j["buffers"][0]["first_difference"].is_null());
  CHECK(j["expectations"].size() == 1);
  CHECK(j["sides"]["emulator"]["result"] == "pass");

  CHECK(Run(file.string() + " --device lavapipe --quiet", &out) == 0);
  CHECK(out.find("statistic") == std::string::npos);
}

TEST_CASE("crosscheck cli: unsupported by one side exits 3", "[vkref]") {
  if (!warpsim::vkref::testing::HaveLavapipe()) return;
  const fs::path file = TempDir("unsupported") / "scene.amber";
  std::ofstream(file) << "#!amber\nDEVICE_FEATURE sparseResidencyAliased\n"
                      << (kScene + 8);
  std::string out;
  CHECK(Run(file.string() + " --device lavapipe", &out) == 3);
  CHECK_THAT(out, Catch::Contains("sparseResidencyAliased"));
}

}  // namespace
