// `warpsim compare` (emulator/cli/compare_command.cpp): the tables, the
// JSON schema, --fail-above, and the command line's errors, run against the
// real binary.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "common/temp_dir.h"
#include "common/test_util.h"

namespace {

using warpsim::testing::RunCommand;

std::string Sample(const std::string& rel) {
  return std::string(WARPSIM_SOURCE_DIR) + "/samples/" + rel;
}

warpsim::testing::CommandResult Compare(const std::string& args) {
  return RunCommand(std::string(WARPSIM_BINARY) + " compare " + args +
                    " --shader-cache off");
}

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

TEST_CASE("compare: two files, the variant table and their branches",
          "[cli][compare]") {
  const auto r = Compare(Sample("graphics/divergent_branches.amber") + " " +
                         Sample("graphics/big_vs_tiny_triangles.amber"));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("divergent_branches.amber (baseline)"));
  CHECK_THAT(r.output, Catch::Contains("warp_instructions"));
  CHECK_THAT(r.output, Catch::Contains("simd_efficiency"));
  CHECK_THAT(r.output, Catch::Contains(" -> "));
  CHECK_THAT(r.output, Catch::Contains("branches of divergent_branches.amber"));
  CHECK_THAT(r.output, Catch::Contains("if (side_a) {"));
  CHECK_THAT(r.output, Catch::Contains("then"));
}

TEST_CASE("compare -D: one variant per value, JSON schema 1",
          "[cli][compare]") {
  warpsim::testing::TempDir dir("compare_cli");
  const std::string json = dir.Sub("c.json");
  const auto r = Compare(Sample("branch_costs/granularity.amber") +
                         " -D VARIANT=0,4 -D TRIPS=16 --timing --json " + json);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = ReadJson(json);
  CHECK(j["schema_version"] == 1);
  CHECK(j["baseline"] == "VARIANT=0");
  CHECK(j["cost_metric"] == "cycles");
  REQUIRE(j["variants"].size() == 2);
  for (const auto& v : j["variants"]) {
    INFO(v.dump());
    CHECK(v["file"].get<std::string>().find("granularity.amber") !=
          std::string::npos);
    CHECK(v["define"]["name"] == "VARIANT");
    CHECK(v["defines"].size() == 2);
    for (const char* key :
         {"warp_instructions", "lane_instructions", "simd_efficiency",
          "registers_per_thread", "cycles", "theoretical_occupancy",
          "achieved_occupancy", "helper_lane_share", "ratio_to_baseline"}) {
      CHECK(v.contains(key));
    }
    REQUIRE(v["branches"].is_array());
    REQUIRE_FALSE(v["branches"].empty());
    bool has_if = false;
    for (const auto& b : v["branches"]) {
      if (b["kind"] != "if") continue;
      has_if = true;
      CHECK(b["line"].get<int>() > 0);
      CHECK(b["sides"].size() == 2);
      CHECK(b.contains("divergent_share"));
      CHECK(b.contains("warp_cycles"));
    }
    CHECK(has_if);
  }
  // The divergent variant runs both sides: more warp instructions.
  CHECK(j["variants"][0]["warp_instructions"].get<uint64_t>() >
        j["variants"][1]["warp_instructions"].get<uint64_t>());
  CHECK(j["variants"][1]["ratio_to_baseline"]["cycles"].get<double>() < 1.0);
}

TEST_CASE("compare --fail-above: a variant slower than the baseline fails",
          "[cli][compare]") {
  const std::string base = Sample("branch_costs/granularity.amber") +
                           " -D VARIANT=4,0 -D TRIPS=16 --branches 0";
  const auto slow = Compare(base + " --fail-above 10");
  INFO(slow.output);
  CHECK(slow.exit_code == 1);
  CHECK_THAT(slow.output,
             Catch::Contains("FAIL: VARIANT=0 costs more than 10"));
  CHECK(Compare(base + " --fail-above 1000").exit_code == 0);
  // With VARIANT=0 the baseline, nothing is slower.
  CHECK(Compare(base + " --baseline 0 --fail-above 0").exit_code == 0);
}

TEST_CASE("compare: errors of the command line and of the variants",
          "[cli][compare]") {
  struct Case {
    std::string args;
    int exit_code;
    const char* message;
  };
  const std::string g = Sample("branch_costs/granularity.amber");
  const Case cases[] = {
      {"", 64, "give two or more files"},
      {g, 64, "one file needs a -D NAME=V1,V2"},
      {g + " -D VARIANT=0,1 --bogus", 64, "unknown option --bogus"},
      {g + " -D VARIANT=0,1 --baseline 7", 64, "--baseline 7 names no variant"},
      {g + " -D VARIANT=0,1 --scheduler lrr", 64, "need --timing"},
      {g + " -D VARIANT=0,1 --fail-above x", 64, "--fail-above needs"},
      {g + " /no/such/file.amber", 2, "variant /no/such/file.amber: invalid"},
      {g + " -D VARIANT=0,oops", 2, "variant VARIANT=oops: invalid"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    const auto r = Compare(c.args);
    INFO(r.output);
    CHECK(r.exit_code == c.exit_code);
    CHECK_THAT(r.output, Catch::Contains(c.message));
  }
}

}  // namespace
