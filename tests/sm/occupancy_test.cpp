// sm::ComputeOccupancy against every answer the H200 gave: the CUDA
// runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor in each of E1's
// cells, the blocks the residency probe saw resident, the launches that
// failed; and sm::GraphicsWarpsPerSm against the fragment warps E12 saw
// alive per SM.
#include "sm/occupancy.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace warpsim::sm {
namespace {

const char kE1[] =
    WARPSIM_SOURCE_DIR "/cuda_ref/results/h200/2026-11-30/e1_occupancy.json";
const char kE12[] = WARPSIM_SOURCE_DIR
    "/vulkan_ref/results/h200/observe-2026-11-30/e12_occupancy.summary.json";

nlohmann::json Load(const char* path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

// Static shared memory of each E1 kernel (its R) as cudaFuncGetAttributes
// reported it.
std::map<int, uint32_t> StaticSmem(const nlohmann::json& e1) {
  std::map<int, uint32_t> m;
  for (const auto& f : e1["results"]["functions"]) {
    m[f["R"].get<int>()] = f["sharedSizeBytes"].get<uint32_t>();
  }
  return m;
}

Launch LaunchOf(const nlohmann::json& row, const std::map<int, uint32_t>& st) {
  Launch l;
  l.registers_per_thread = row["regs"].get<uint32_t>();
  l.threads_per_block = row["block"].get<uint32_t>();
  l.static_shared_memory = st.at(row["R"].get<int>());
  l.dynamic_shared_memory = row["dyn_smem"].get<uint32_t>();
  l.carveout_percent = row.value("carveout", -1);
  return l;
}

TEST_CASE("every E1 cell: the runtime's blocks per SM") {
  const auto e1 = Load(kE1);
  REQUIRE(e1["experiment"] == "E1");
  REQUIRE_FALSE(e1["quick"].get<bool>());
  const auto st = StaticSmem(e1);
  const SmLimits limits;  // the h200 defaults
  size_t cells = 0, differences = 0, zero = 0;
  std::ostringstream first;
  for (const auto& c : e1["results"]["cells"]) {
    REQUIRE(c.contains("blocks_per_sm"));  // no cell was refused by the API
    const uint32_t recorded = c["blocks_per_sm"].get<uint32_t>();
    const Occupancy o = ComputeOccupancy(limits, LaunchOf(c, st));
    ++cells;
    zero += recorded == 0;
    if (o.blocks_per_sm != recorded) {
      if (differences++ < 10) {
        first << c.dump() << " -> " << o.blocks_per_sm << "\n";
      }
    }
  }
  INFO(first.str());
  CHECK(cells >= 1000);
  CHECK(zero > 0);  // the matrix reaches launches that cannot run
  CHECK(differences == 0);
}

TEST_CASE("E1 residency probe: the blocks really resident per SM") {
  const auto e1 = Load(kE1);
  const auto st = StaticSmem(e1);
  const SmLimits limits;
  size_t n = 0;
  for (const auto& p : e1["results"]["probe"]) {
    INFO(p.dump());
    CHECK(ComputeOccupancy(limits, LaunchOf(p, st)).blocks_per_sm ==
          p["measured"].get<uint32_t>());
    ++n;
  }
  CHECK(n >= 20);
}

TEST_CASE("E1 launches at the limits: refused exactly when CUDA refused") {
  const auto e1 = Load(kE1);
  const auto st = StaticSmem(e1);
  const SmLimits limits;
  for (const auto& l : e1["results"]["limits"]) {
    INFO(l.dump());
    Launch launch = LaunchOf(l, st);
    // The row that did not raise the dynamic limit.
    launch.shared_memory_opt_in = l["what"].get<std::string>().find(
                                      "without raising") == std::string::npos;
    const bool refused_by_cuda = l["launch"] != "cudaSuccess";
    const Occupancy o = ComputeOccupancy(limits, launch);
    CHECK(!o.refused.empty() == refused_by_cuda);
    if (refused_by_cuda) {
      CHECK(o.blocks_per_sm == 0);
      CHECK(o.cuda_error == l["launch"].get<std::string>());
    }
  }
}

TEST_CASE("E12: fragment warps alive per SM follow the register rule") {
  const auto e12 = Load(kE12);
  std::map<std::string, uint32_t> regs;
  for (const auto& p : e12["pipelines"]) {
    if (p["stage"] == "fragment" && p.contains("executable_statistics") &&
        p["executable_statistics"].contains("Register Count")) {
      regs[p["name"]] = p["executable_statistics"]["Register Count"];
    }
  }
  size_t n = 0;
  for (const auto& d : e12["draws"]) {
    INFO(d["pipeline"]);
    REQUIRE(regs.count(d["pipeline"]));
    const uint32_t alive =
        d["observe"]["fragment"]["max_live_warps_per_sm"].get<uint32_t>();
    CHECK(GraphicsWarpsPerSm(SmLimits{}, regs[d["pipeline"]]).warps_per_sm ==
          alive);
    ++n;
  }
  CHECK(n >= 6);
}

// CUDA's rules written out (REFERENCE §1.6), independent of any recording:
// the per-sub-partition rounding and the hardware's register check.
TEST_CASE("the register rule rounds per sub-partition") {
  const SmLimits l;
  auto blocks = [&](uint32_t threads, uint32_t regs) {
    Launch x;
    x.threads_per_block = threads;
    x.registers_per_thread = regs;
    return ComputeOccupancy(l, x);
  };
  // 96 threads x 40 registers: 64K / (40 x 32 x 3) would give 17; 12 warps
  // per sub-partition give 48 warps, 16 blocks of 3.
  CHECK(blocks(96, 40).blocks_per_sm == 16);
  CHECK(blocks(96, 40).limiter == Limiter::kRegisters);
  CHECK(blocks(256, 72).blocks_per_sm == 3);
  CHECK(blocks(1024, 64).blocks_per_sm == 1);
  CHECK(blocks(1024, 65).blocks_per_sm == 0);
  CHECK_FALSE(blocks(1024, 65).refused.empty());
  CHECK(blocks(32, 32).limiter == Limiter::kBlocks);
  CHECK(blocks(32, 32).warps_per_sm == 32);
  CHECK(blocks(64, 32).occupancy == 1.0);
  CHECK(blocks(128, 256).blocks_per_sm == 0);  // over 255 per thread
}

TEST_CASE("shared memory: reserved bytes, granularity and the carveout") {
  const SmLimits l;
  Launch x;
  x.threads_per_block = 128;
  x.registers_per_thread = 32;
  x.dynamic_shared_memory = 16 << 10;
  Occupancy o = ComputeOccupancy(l, x);
  CHECK(o.shared_memory_per_block == (16 << 10) + 1024);
  CHECK(o.blocks_per_sm == 13);
  CHECK(o.limiter == Limiter::kSharedMemory);
  // A carveout too small for one block grows to the smallest that holds it.
  x.dynamic_shared_memory = 8 << 10;
  x.carveout_percent = 0;
  o = ComputeOccupancy(l, x);
  CHECK(o.shared_memory_per_sm == 16 << 10);
  CHECK(o.blocks_per_sm == 1);
  // Over the opt-in limit: refused.
  x.dynamic_shared_memory = l.shared_memory_per_block_optin + 1;
  CHECK_FALSE(ComputeOccupancy(l, x).refused.empty());
}

TEST_CASE("graphics warps: registers or warp slots") {
  const SmLimits l;
  CHECK(GraphicsWarpsPerSm(l, 16).warps_per_sm == 64);
  CHECK(GraphicsWarpsPerSm(l, 16).limiter == Limiter::kWarps);
  CHECK(GraphicsWarpsPerSm(l, 73).warps_per_sm == 24);
  CHECK(GraphicsWarpsPerSm(l, 73).limiter == Limiter::kRegisters);
  CHECK_FALSE(GraphicsWarpsPerSm(l, 300).refused.empty());
}

}  // namespace
}  // namespace warpsim::sm
