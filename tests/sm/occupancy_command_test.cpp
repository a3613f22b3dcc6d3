// `warpsim occupancy`: the text and JSON answers, refused launches (exit 2
// with the reason), the graphics form and bad command lines (64).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "common/test_util.h"

namespace {

using warpsim::testing::CommandResult;
using warpsim::testing::RunCommand;

CommandResult Occupancy(const std::string& args) {
  return RunCommand(std::string(WARPSIM_BINARY) + " occupancy " + args);
}

TEST_CASE("occupancy --json answers blocks, warps, occupancy and limiter") {
  const CommandResult r = Occupancy("--regs 40 --threads 96 --json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.output);
  CHECK(j["blocks_per_sm"] == 16);
  CHECK(j["warps_per_sm"] == 48);
  CHECK(j["occupancy"] == 0.75);
  CHECK(j["limiter"] == "registers");
}

TEST_CASE("occupancy: shared memory and the text form") {
  const CommandResult r = Occupancy("--regs 32 --threads 128 --smem 65536");
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("3 blocks (12 warps) per SM") != std::string::npos);
  CHECK(r.output.find("limited by shared_memory") != std::string::npos);
}

TEST_CASE("occupancy: a launch CUDA refuses exits 2 with the reason") {
  CommandResult r = Occupancy("--regs 72 --threads 1024");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("73728 registers per block") != std::string::npos);
  r = Occupancy("--regs 32 --threads 128 --smem 300000");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("shared memory") != std::string::npos);
  r = Occupancy("--regs 32 --threads 2048");
  CHECK(r.exit_code == 2);
}

TEST_CASE("occupancy --stage fragment: warps of one shader") {
  const CommandResult r = Occupancy("--stage fragment --regs 73 --json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.output);
  CHECK(j["warps_per_sm"] == 24);
  CHECK(j["limiter"] == "registers");
}

TEST_CASE("occupancy: bad command lines exit 64") {
  CHECK(Occupancy("").exit_code == 64);
  CHECK(Occupancy("--regs 32").exit_code == 64);
  CHECK(Occupancy("--regs x --threads 32").exit_code == 64);
  CHECK(Occupancy("--regs 32 --threads 32 --carveout 101").exit_code == 64);
  CHECK(Occupancy("--stage pixel --regs 32").exit_code == 64);
  CHECK(Occupancy("--regs 32 --threads 32 --gpu-config nosuch").exit_code ==
        64);
  CHECK(Occupancy("--help").exit_code == 0);
}

TEST_CASE("occupancy --gpu-config FILE: the SM limits come from it") {
  const std::string path =
      std::string(WARPSIM_SOURCE_DIR) + "/tests/sm/data/half_registers.json";
  const CommandResult r =
      Occupancy("--regs 64 --threads 256 --json --gpu-config " + path);
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.output)["blocks_per_sm"] == 2);
}

}  // namespace
