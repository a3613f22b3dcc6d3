// GPU configuration presets and JSON files (runner/gpu_config.cpp).
#include "runner/gpu_config.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

std::string WriteConfig(const std::string& text) {
  static int n = 0;
  const auto path = std::filesystem::temp_directory_path() /
                    ("warpsim_gpu_config_" + std::to_string(::getpid()) + "_" +
                     std::to_string(n++) + ".json");
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("GPU presets", "[runner][config]") {
  auto h200 = warpsim::runner::GpuConfigPreset("h200");
  REQUIRE(h200.ok());
  CHECK(h200->warp_width == 32);
  CHECK(h200->vertex_batch_primitives == 32);
  CHECK(h200->vertex_reuse_window == 42);
  // Measured on the H200 (vulkan_ref/results/h200/FINDINGS.md).
  CHECK(h200->derivatives_fine);
  CHECK(h200->quad_packing == warpsim::pipeline::QuadPacking::kTiles);
  CHECK(h200->tile_size == 16);
  CHECK(h200->kill_terminates);
  auto teaching = warpsim::runner::GpuConfigPreset("teaching");
  REQUIRE(teaching.ok());
  CHECK(teaching->warp_width == 8);
  CHECK(teaching->quad_packing ==
        warpsim::pipeline::QuadPacking::kPerPrimitive);
  CHECK_FALSE(teaching->derivatives_fine);
  CHECK_FALSE(warpsim::runner::GpuConfigPreset("gtx480").ok());
}

TEST_CASE("GPU config files", "[runner][config]") {
  auto c = warpsim::runner::LoadGpuConfig(WriteConfig(
      R"({"preset": "teaching", "warp_width": 16, "tile_size": 32,
          "quad_packing": "mixed", "derivatives": "fine", "kill": "demote",
          "open_tiles": 4})"));
  REQUIRE(c.ok());
  CHECK(c->warp_width == 16);
  CHECK(c->vertex_batch_primitives == 8);  // from the preset
  CHECK(c->tile_size == 32);
  CHECK(c->quad_packing == warpsim::pipeline::QuadPacking::kMixed);
  CHECK(c->open_tiles == 4);
  CHECK(c->derivatives_fine);
  CHECK_FALSE(c->kill_terminates);
}

TEST_CASE("bad GPU config files name the problem", "[runner][config]") {
  const std::pair<const char*, const char*> cases[] = {
      {"{", "malformed JSON"},
      {"[1, 2]", "expected a JSON object"},
      {R"({"warp_width": 64})", "\"warp_width\" must be an integer in 4..32"},
      {R"({"warp_width": 6})", "multiple of 4"},
      {R"({"derivatives": "medium"})",
       "unknown or malformed key \"derivatives\""},
      {R"({"frobs": 1})", "unknown or malformed key \"frobs\""},
      {R"({"preset": "nope"})", "unknown GPU preset"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    auto c = warpsim::runner::LoadGpuConfig(WriteConfig(text));
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().message.find(message) != std::string::npos);
  }
  CHECK_FALSE(warpsim::runner::LoadGpuConfig("/nonexistent/gpu.json").ok());
}

// Inputs the gpu_config fuzz target (fuzz/) found crashing, reduced; each is
// now a diagnostic with the line.
TEST_CASE("GPU config inputs found by fuzzing are diagnosed",
          "[runner][config][fuzz]") {
  const std::pair<const char*, const char*> cases[] = {
      // A number too large for a double: nlohmann threw out_of_range, which
      // escaped ParseGpuConfig and terminated the process.
      {"[1, 2.5, 22222222222E222222222{\"warp_width\": 26}]",
       "f.json:1: error: number out of range in JSON"},
      {"{\n\"tile_size\":\n 1e999}", "f.json:3: error: number out of range"},
      {"{\n\"tile_size\": -1e999}", "f.json:2: error: number out of range"},
      // Bad syntax carries the line where the parser stopped.
      {"{\n\"tile_size\": 8,\n]", "f.json:3: error: malformed JSON"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    auto c = warpsim::runner::ParseGpuConfig(text, "f.json");
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().kind == warpsim::ErrorKind::kInvalidInput);
    CHECK_THAT(c.error().ToString(), Catch::Contains(message));
  }
}

TEST_CASE("ParseGpuConfig reads JSON text and names it in diagnostics",
          "[runner][config]") {
  auto c = warpsim::runner::ParseGpuConfig(R"({"warp_width": 8})", "m.json");
  REQUIRE(c.ok());
  CHECK(c->warp_width == 8);
  auto bad = warpsim::runner::ParseGpuConfig("{\"tile_size\": 1}", "m.json");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().ToString(),
             Catch::Contains("m.json: error: \"tile_size\" must be"));
}

TEST_CASE("the sm object sets the SM limits by name", "[runner][config]") {
  auto c = warpsim::runner::ParseGpuConfig(
      R"({"preset": "h200", "sm": {"registers_per_sm": 32768,
          "shared_memory_carveouts_kib": [0, 64, 128]}})",
      "sm.json");
  REQUIRE(c.ok());
  CHECK(c->sm.registers_per_sm == 32768);
  CHECK(c->sm.shared_memory_carveouts_kib == std::vector<uint32_t>{0, 64, 128});
  CHECK(c->sm.max_warps_per_sm == 64);  // the preset's, untouched
  auto unknown =
      warpsim::runner::ParseGpuConfig(R"({"sm": {"regs": 1}})", "sm.json");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.find("sm.regs") != std::string::npos);
  auto zero = warpsim::runner::ParseGpuConfig(
      R"({"sm": {"sub_partitions": 0}})", "sm.json");
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().message.find("sm.sub_partitions") != std::string::npos);
  auto unsorted = warpsim::runner::ParseGpuConfig(
      R"({"sm": {"shared_memory_carveouts_kib": [64, 8]}})", "sm.json");
  REQUIRE_FALSE(unsorted.ok());
  CHECK(unsorted.error().message.find("ascending") != std::string::npos);
}
