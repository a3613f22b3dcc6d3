// warpsim-vkref: runs AmberScript files on a real Vulkan device with the
// same command line, exit codes, PNGs and report shape as `warpsim run`.
//
// `crosscheck` (crosscheck_cli.h) compares a device run with the emulator's.
//
// Exit codes: 0 all expectations pass; 1 an expectation failed; 2 invalid
// input or a Vulkan error; 3 unsupported (by the device or by
// warpsim-vkref); 5 out of memory; 64 bad command line; 70 internal error.
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "runner/png_writer.h"
#include "runner/shader_cache.h"
#include "vulkan_ref/compare_cli.h"
#include "vulkan_ref/crosscheck_cli.h"
#include "vulkan_ref/device.h"
#include "vulkan_ref/observe.h"
#include "vulkan_ref/report.h"
#include "vulkan_ref/vk_runner.h"

namespace {

constexpr int kExitOutOfMemory = 5;
constexpr int kExitUsage = 64;
constexpr int kExitInternal = 70;

const char kMainHelp[] =
    "warpsim-vkref: runs AmberScript files on a Vulkan device, as warpsim\n"
    "runs them on the emulator.\n"
    "\n"
    "usage: warpsim-vkref <command> [options]\n"
    "\n"
    "commands:\n"
    "  run FILE.amber     run an AmberScript file and check its EXPECTs\n"
    "  devices            list the Vulkan devices and their indices\n"
    "  crosscheck FILE    run it on the device and in the emulator, compare\n"
    "  compare A B ...    GPU time of scene variants beside emulated cycles\n"
    "\n"
    "Exit codes: 0 pass, 1 expectation failed, 2 invalid input or Vulkan\n"
    "error, 3 unsupported, 5 out of memory, 64 bad command line, 70\n"
    "internal error.\n";

const char kRunHelp[] =
    "usage: warpsim-vkref run FILE.amber [--out DIR] [--json REPORT.json]\n"
    "                         [--device lavapipe|nvidia|INDEX] [--repeat N]\n"
    "                         [--quiet] [--shader-cache DIR|off] [--observe]\n"
    "\n"
    "Runs the script's commands on a Vulkan device and checks every EXPECT.\n"
    "  --out DIR               write report.json and every colour attachment\n"
    "                          as NAME.png into DIR\n"
    "  --json FILE             write the JSON report to FILE\n"
    "  --device D              lavapipe (the CPU device), nvidia (vendor\n"
    "                          0x10DE) or an index from `devices`; default:\n"
    "                          the first discrete GPU, else the first device\n"
    "  --repeat N              run each draw and dispatch N times from the\n"
    "                          same inputs; GPU time is the median (default "
    "1)\n"
    "  --quiet                 print only failures\n"
    "  --observe               instrument vertex, fragment and compute\n"
    "                          shaders to record SM, warp slot, lane,\n"
    "                          ballot, helpers, pixel, primitive, vertex,\n"
    "                          workgroup and clocks per invocation; draws[]\n"
    "                          and dispatches[] get observe{...} statistics,\n"
    "                          --out gets observe.bin with the records\n"
    "  --shader-cache DIR|off  compiled-shader cache, as for warpsim run\n"
    "Exit codes: 0 all expectations pass, 1 an expectation failed,\n"
    "2 invalid input or a Vulkan error (with the command's position),\n"
    "3 unsupported (names what the device or warpsim-vkref lacks),\n"
    "5 out of memory, 64 bad command line, 70 internal error.\n";

int Usage(const std::string& message, const char* help) {
  std::cerr << "warpsim-vkref: " << message << "\n\n" << help;
  return kExitUsage;
}

int DevicesCommand() {
  auto devices = warpsim::vkref::ListDevices();
  if (!devices.ok()) {
    std::cerr << devices.error().ToString() << "\n";
    return 2;
  }
  if (devices->empty()) std::cout << "no Vulkan devices\n";
  for (const auto& d : *devices) {
    std::cout << d.index << ": " << warpsim::vkref::DeviceLine(d) << " ["
              << d.type << ", vendor 0x" << std::hex << d.vendor_id << std::dec;
    if (d.shader_sm_count != 0) {
      std::cout << ", shaderSMCount " << d.shader_sm_count
                << ", shaderWarpsPerSM " << d.shader_warps_per_sm;
    }
    std::cout << "]\n";
  }
  return 0;
}

void PrintObservation(const warpsim::vkref::DrawObservation& o) {
  const auto& v = o.vertex;
  const auto& f = o.fragment;
  const auto& c = o.compute;
  if (c.invocations != 0) {
    std::cout << "    observed: " << c.invocations << " compute invocations";
    if (c.warps) std::cout << " in " << c.warps << " warps";
    if (c.sms) std::cout << " on " << c.sms << " SMs";
    std::cout << "\n";
    return;
  }
  std::cout << "    observed: " << v.invocations << " vertex invocations";
  if (v.warps) std::cout << " in " << v.warps << " warps";
  if (v.sms) std::cout << " on " << v.sms << " SMs";
  std::cout << "; " << f.invocations << " fragment invocations";
  if (f.warps) {
    std::cout << " in " << f.warps << " warps, " << f.quads << " quads";
  }
  if (f.flags & warpsim::vkref::kObsFlagQuad)
    std::cout << ", " << f.helper_lanes << " helper lanes";
  if (f.sms) std::cout << " on " << f.sms << " SMs";
  if (o.truncated()) {
    std::cout << " (truncated: " << o.taken << " records asked for, "
              << o.capacity << " kept)";
  }
  std::cout << "\n";
}

int RunCommand(int argc, char** argv) {
  std::string file, out_dir, json_path;
  bool quiet = false;
  warpsim::vkref::VkRunOptions options;
  options.shader_cache_dir = warpsim::runner::DefaultShaderCacheDir();
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    if (a == "--help" || a == "-h") {
      std::cout << kRunHelp;
      return 0;
    } else if (a == "--out") {
      const char* v = value();
      if (!v) return Usage("--out needs a directory", kRunHelp);
      out_dir = v;
    } else if (a == "--json") {
      const char* v = value();
      if (!v) return Usage("--json needs a file name", kRunHelp);
      json_path = v;
    } else if (a == "--device") {
      const char* v = value();
      if (!v)
        return Usage("--device needs lavapipe, nvidia or an index", kRunHelp);
      const std::string d = v;
      if (d != "lavapipe" && d != "nvidia" &&
          (d.empty() || d.size() > 5 ||
           d.find_first_not_of("0123456789") != std::string::npos)) {
        return Usage(
            "--device takes lavapipe, nvidia or an index, got '" + d + "'",
            kRunHelp);
      }
      options.device = d;
    } else if (a == "--repeat") {
      const char* v = value();
      char* end = nullptr;
      errno = 0;
      const unsigned long n = v ? std::strtoul(v, &end, 10) : 0;
      if (!v || *v == '-' || *end != 0 || errno != 0 || n < 1 || n > 10000) {
        return Usage("--repeat needs a number from 1 to 10000", kRunHelp);
      }
      options.repeat = static_cast<uint32_t>(n);
    } else if (a == "--quiet") {
      quiet = true;
    } else if (a == "--observe") {
      options.observe = true;
    } else if (a == "--shader-cache") {
      const char* v = value();
      if (!v || *v == 0) {
        return Usage("--shader-cache needs a directory or off", kRunHelp);
      }
      options.shader_cache_dir = std::string(v) == "off" ? "" : v;
    } else if (!a.empty() && a[0] == '-') {
      return Usage("unknown option " + a, kRunHelp);
    } else if (file.empty()) {
      file = a;
    } else {
      return Usage("more than one input file", kRunHelp);
    }
  }
  if (file.empty()) return Usage("run needs an .amber file", kRunHelp);

  const warpsim::vkref::DeviceRunReport report =
      warpsim::vkref::RunFileOnDevice(file, options);
  const warpsim::runner::RunReport& run = report.run;
  const int code = warpsim::runner::ExitCodeFor(run.status);
  for (const auto& e : run.expectations) {
    if (!e.passed) {
      std::cerr << file << ":" << e.line
                << ": expectation failed: " << e.message << "\n";
    }
  }
  if (run.diagnostic) std::cerr << run.diagnostic->ToString() << "\n";

  const std::string json = warpsim::vkref::DeviceReportToJson(report);
  std::vector<std::string> written;
  if (!out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) {
      std::cerr << "warpsim-vkref: cannot create output directory " << out_dir
                << ": " << ec.message() << "\n";
      return 2;
    }
    const std::string path =
        (std::filesystem::path(out_dir) / "report.json").string();
    if (!warpsim::cli::WriteFileAtomically(path, json)) {
      std::cerr << "warpsim-vkref: cannot write " << path << "\n";
      return 2;
    }
    written.push_back(path);
    if (options.observe) {
      std::vector<std::pair<int, const warpsim::vkref::DrawObservation*>> obs;
      for (size_t i = 0; i < report.draws.size(); ++i) {
        if (report.draws[i].observation) {
          obs.push_back({static_cast<int>(i), &*report.draws[i].observation});
        }
      }
      for (size_t i = 0; i < report.dispatches.size(); ++i) {
        if (report.dispatches[i].observation) {
          obs.push_back({static_cast<int>(i | warpsim::vkref::kObserveDispatch),
                         &*report.dispatches[i].observation});
        }
      }
      const std::string bin =
          (std::filesystem::path(out_dir) / "observe.bin").string();
      if (!warpsim::cli::WriteFileAtomically(
              bin, warpsim::vkref::ObservationFileBytes(obs))) {
        std::cerr << "warpsim-vkref: cannot write " << bin << "\n";
        return 2;
      }
      written.push_back(bin);
    }
    for (const auto& image : run.images) {
      const std::string png =
          (std::filesystem::path(out_dir) / (image.name + ".png")).string();
      const warpsim::Status s = warpsim::runner::WritePng(
          png, image.format, image.width, image.height, image.bytes.data(),
          image.width * image.format.bytes);
      if (!s.ok()) {
        std::cerr << s.error().ToString() << "\n";
        return 2;
      }
      written.push_back(png);
    }
  }
  if (!json_path.empty()) {
    if (!warpsim::cli::WriteFileAtomically(json_path, json)) {
      std::cerr << "warpsim-vkref: cannot write " << json_path << "\n";
      return 2;
    }
    written.push_back(json_path);
  }
  if (!quiet || code != 0) {
    size_t passed = 0;
    for (const auto& e : run.expectations) passed += e.passed ? 1 : 0;
    std::cout << file << ": " << warpsim::runner::RunStatusName(run.status)
              << " (" << passed << "/" << run.expectations.size()
              << " expectations passed, " << run.stats.host_seconds << " s)\n";
    if (report.device_known) {
      std::cout << "  device " << report.device.index << ": "
                << warpsim::vkref::DeviceLine(report.device) << "\n";
    }
    for (const auto& d : report.draws) {
      std::cout << "  draw " << d.pipeline << " (line " << d.line << "):";
      for (const auto& [name, v] : d.statistics)
        std::cout << " " << name << " " << v;
      if (!d.gpu_ns.empty()) std::cout << ", " << d.median_gpu_ns() << " ns";
      std::cout << "\n";
      if (d.observation) PrintObservation(*d.observation);
    }
    for (const auto& d : report.dispatches) {
      std::cout << "  dispatch " << d.pipeline << " (line " << d.line << "):";
      for (const auto& [name, v] : d.statistics)
        std::cout << " " << name << " " << v;
      if (!d.gpu_ns.empty()) std::cout << ", " << d.median_gpu_ns() << " ns";
      std::cout << "\n";
      if (d.observation) PrintObservation(*d.observation);
    }
    for (const auto& w : written) std::cout << "  wrote " << w << "\n";
  }
  return code;
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kMainHelp;
    return kExitUsage;
  }
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << kMainHelp;
    return 0;
  }
  if (cmd == "run") return RunCommand(argc - 2, argv + 2);
  if (cmd == "devices") return DevicesCommand();
  if (cmd == "compare") {
    return warpsim::vkref::CompareCommand(argc - 2, argv + 2);
  }
  if (cmd == "crosscheck") {
    return warpsim::vkref::CrosscheckCommand(argc - 2, argv + 2);
  }
  return Usage("unknown command " + cmd, kMainHelp);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "warpsim-vkref: out of memory\n";
    return kExitOutOfMemory;
  } catch (const std::exception& e) {
    std::cerr << "warpsim-vkref: internal error: unexpected exception: "
              << e.what() << "\n";
    return kExitInternal;
  } catch (...) {
    std::cerr << "warpsim-vkref: internal error: unexpected exception\n";
    return kExitInternal;
  }
}
