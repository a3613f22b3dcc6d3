#include "cli/occupancy_command.h"

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "cli/cli_util.h"
#include "sm/occupancy.h"

namespace warpsim::cli {
namespace {

const char kOccupancyHelp[] =
    "usage: warpsim occupancy --regs R --threads T [--smem BYTES]\n"
    "                         [--carveout PCT] [--gpu-config PRESET|FILE]\n"
    "                         [--json]\n"
    "       warpsim occupancy --stage fragment|vertex --regs R\n"
    "                         [--gpu-config PRESET|FILE] [--json]\n"
    "\n"
    "Blocks and warps that fit on one SM, the occupancy (warps / the SM's\n"
    "maximum) and the resource that limits it, by CUDA's occupancy rules\n"
    "with the GPU config's SM limits (default preset h200).\n"
    "  --regs R          registers per thread\n"
    "  --threads T       threads per block (workgroup)\n"
    "  --smem BYTES      shared memory per block, static plus dynamic\n"
    "                    (default 0; the dynamic limit taken as raised)\n"
    "  --carveout PCT    preferred shared-memory carveout, 0..100 (default:\n"
    "                    the driver's default)\n"
    "  --stage S         fragment or vertex: warps of one graphics shader\n"
    "                    (no blocks; registers and warp slots only)\n"
    "  --json            print {\"blocks_per_sm\", \"warps_per_sm\",\n"
    "                    \"occupancy\", \"limiter\"} (and the details)\n"
    "Exit codes: 0 the answer, 2 a launch the hardware refuses (the reason\n"
    "on stderr) or a GPU config that does not load, 64 bad command line.\n";

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string Json(const sm::Occupancy& o, bool graphics) {
  std::ostringstream s;
  s << "{\"blocks_per_sm\": " << o.blocks_per_sm
    << ", \"warps_per_sm\": " << o.warps_per_sm
    << ", \"occupancy\": " << Number(o.occupancy) << ", \"limiter\": \""
    << sm::LimiterName(o.limiter) << "\"";
  s << ", \"registers_per_warp\": " << o.registers_per_warp;
  if (graphics) {
    s << ", \"limit_registers_warps\": " << o.limit_registers
      << ", \"limit_warps\": " << o.limit_warps;
  } else {
    s << ", \"warps_per_block\": " << o.warps_per_block
      << ", \"shared_memory_per_block\": " << o.shared_memory_per_block
      << ", \"shared_memory_per_sm\": " << o.shared_memory_per_sm
      << ", \"limits\": {\"registers\": " << o.limit_registers
      << ", \"shared_memory\": " << o.limit_shared_memory
      << ", \"warps\": " << o.limit_warps << ", \"blocks\": " << o.limit_blocks
      << "}";
  }
  s << "}\n";
  return s.str();
}

}  // namespace

int OccupancyCommand(int argc, char** argv) {
  uint64_t regs = 0, threads = 0, smem = 0, carveout = 0;
  bool have_regs = false, have_threads = false, have_carveout = false;
  bool json = false;
  std::string stage;
  runner::GpuConfig config;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--help" || a == "-h") {
      std::cout << kOccupancyHelp;
      return 0;
    } else if (a == "--regs") {
      if (!ParseUint(v, &regs) || regs == 0 || regs > 65536) {
        return Usage("--regs needs a number of registers per thread",
                     kOccupancyHelp);
      }
      have_regs = true;
      ++i;
    } else if (a == "--threads") {
      if (!ParseUint(v, &threads) || threads > (1u << 20)) {
        return Usage("--threads needs a number of threads per block",
                     kOccupancyHelp);
      }
      have_threads = true;
      ++i;
    } else if (a == "--smem") {
      if (!ParseUint(v, &smem) || smem > (1ull << 31)) {
        return Usage("--smem needs a number of bytes", kOccupancyHelp);
      }
      ++i;
    } else if (a == "--carveout") {
      if (!ParseUint(v, &carveout) || carveout > 100) {
        return Usage("--carveout needs a percentage, 0..100", kOccupancyHelp);
      }
      have_carveout = true;
      ++i;
    } else if (a == "--stage") {
      if (v == nullptr ||
          (std::string(v) != "fragment" && std::string(v) != "vertex")) {
        return Usage("--stage needs fragment or vertex", kOccupancyHelp);
      }
      stage = v;
      ++i;
    } else if (a == "--gpu-config") {
      if (v == nullptr) {
        return Usage("--gpu-config needs a preset name or a JSON file",
                     kOccupancyHelp);
      }
      if (int rc = LoadGpuConfigArg(v, kOccupancyHelp, &config); rc != 0) {
        return rc;
      }
      ++i;
    } else if (a == "--json") {
      json = true;
    } else {
      return Usage("unknown argument " + a, kOccupancyHelp);
    }
  }
  if (!have_regs) return Usage("occupancy needs --regs", kOccupancyHelp);
  const sm::SmLimits& limits = config.sm;

  sm::Occupancy o;
  if (!stage.empty()) {
    if (have_threads || smem != 0 || have_carveout) {
      return Usage("--stage takes only --regs (graphics warps have no blocks)",
                   kOccupancyHelp);
    }
    o = sm::GraphicsWarpsPerSm(limits, static_cast<uint32_t>(regs));
  } else {
    if (!have_threads || threads == 0) {
      return Usage("occupancy needs --threads (or --stage)", kOccupancyHelp);
    }
    sm::Launch launch;
    launch.registers_per_thread = static_cast<uint32_t>(regs);
    launch.threads_per_block = static_cast<uint32_t>(threads);
    launch.static_shared_memory = static_cast<uint32_t>(smem);
    launch.carveout_percent = have_carveout ? static_cast<int>(carveout) : -1;
    o = sm::ComputeOccupancy(limits, launch);
  }
  if (!o.refused.empty()) {
    std::cerr << "warpsim: the launch fails (CUDA: " << o.cuda_error
              << "): " << o.refused << "\n";
    return 2;
  }
  if (json) {
    std::cout << Json(o, !stage.empty());
    return 0;
  }
  if (!stage.empty()) {
    std::cout << stage << " shader, " << regs << " registers/thread ("
              << o.registers_per_warp << " per warp): " << o.warps_per_sm
              << " warps per SM, occupancy " << Number(100 * o.occupancy)
              << " %, limited by " << sm::LimiterName(o.limiter) << "\n";
    if (stage == "vertex") {
      std::cout << "  (the H200's E12 records measured fragment warps; "
                   "vertex warps are taken to follow the same register "
                   "rule)\n";
    }
    return 0;
  }
  std::cout << threads << " threads x " << regs << " registers, " << smem
            << " B shared memory: " << o.blocks_per_sm << " blocks ("
            << o.warps_per_sm << " warps) per SM, occupancy "
            << Number(100 * o.occupancy) << " %, limited by "
            << sm::LimiterName(o.limiter) << "\n"
            << "  limits in blocks: registers " << o.limit_registers
            << ", shared memory " << o.limit_shared_memory << ", warps "
            << o.limit_warps << ", blocks " << o.limit_blocks << "\n";
  return 0;
}

}  // namespace warpsim::cli
