#include "vulkan_ref/crosscheck_cli.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "runner/shader_cache.h"
#include "vulkan_ref/crosscheck.h"

namespace warpsim::vkref {

const char kCrosscheckHelp[] =
    "usage: warpsim-vkref crosscheck FILE.amber [--device D] [--out DIR]\n"
    "                         [--json crosscheck.json] [--threads N]\n"
    "                         [--quiet] [--shader-cache DIR|off] [--observe]\n"
    "\n"
    "Runs the script on a Vulkan device and in the emulator and compares\n"
    "every buffer and image at the end (integer storage exactly, floats\n"
    "within the ULPs of vulkan_ref/README.md), the pipeline statistics both\n"
    "define the same way, and the outcome of every EXPECT.\n"
    "  --device D              lavapipe, nvidia or an index (as for run)\n"
    "  --out DIR               write crosscheck.json, NAME.device.png and\n"
    "                          NAME.emulator.png of every colour attachment\n"
    "                          and NAME.diff.png of those that differ\n"
    "  --json FILE             write crosscheck.json to FILE\n"
    "  --threads N             the emulator's host threads (default 1)\n"
    "  --quiet                 print only the result line\n"
    "  --shader-cache DIR|off  compiled-shader cache of both sides\n"
    "  --observe               instrument the device's shaders (as for run)\n"
    "                          and compare what they recorded: fragment\n"
    "                          invocations, and where the device records\n"
    "                          warps, vertex invocations, vertex and\n"
    "                          fragment warps, quads and helper lanes\n"
    "Exit codes: 0 agree, 1 differ, 2 invalid input (either side) or a\n"
    "Vulkan error, 3 unsupported by either side (named), 4 the emulator's\n"
    "instruction limit, 64 bad command line.\n";

namespace {

constexpr int kExitUsage = 64;

int Usage(const std::string& message) {
  std::cerr << "warpsim-vkref: " << message << "\n\n" << kCrosscheckHelp;
  return kExitUsage;
}

}  // namespace

int CrosscheckCommand(int argc, char** argv) {
  std::string file, out_dir, json_path;
  bool quiet = false;
  CrosscheckOptions options;
  options.shader_cache_dir = runner::DefaultShaderCacheDir();
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    if (a == "--help" || a == "-h") {
      std::cout << kCrosscheckHelp;
      return 0;
    } else if (a == "--out" || a == "--json") {
      const char* v = value();
      if (!v || *v == 0) return Usage(a + " needs a path");
      (a == "--out" ? out_dir : json_path) = v;
    } else if (a == "--device") {
      const char* v = value();
      const std::string d = v ? v : "";
      if (d != "lavapipe" && d != "nvidia" &&
          (d.empty() || d.size() > 5 ||
           d.find_first_not_of("0123456789") != std::string::npos)) {
        return Usage("--device takes lavapipe, nvidia or an index");
      }
      options.device = d;
    } else if (a == "--threads") {
      const char* v = value();
      char* end = nullptr;
      errno = 0;
      const unsigned long n = v ? std::strtoul(v, &end, 10) : 0;
      if (!v || *v == '-' || *end != 0 || errno != 0 || n > 1024) {
        return Usage("--threads needs a number from 0 to 1024");
      }
      options.threads = static_cast<uint32_t>(n);
    } else if (a == "--quiet") {
      quiet = true;
    } else if (a == "--observe") {
      options.observe = true;
    } else if (a == "--shader-cache") {
      const char* v = value();
      if (!v || *v == 0)
        return Usage("--shader-cache needs a directory or off");
      options.shader_cache_dir = std::string(v) == "off" ? "" : v;
    } else if (!a.empty() && a[0] == '-') {
      return Usage("unknown option " + a);
    } else if (file.empty()) {
      file = a;
    } else {
      return Usage("more than one input file");
    }
  }
  if (file.empty()) return Usage("crosscheck needs an .amber file");

  const CrosscheckReport report = CrosscheckFile(file, options);
  const int code = ExitCodeFor(report.verdict);
  std::vector<std::string> written;
  const std::string json = CrosscheckToJson(report);
  if (!out_dir.empty()) {
    const std::string path =
        (std::filesystem::path(out_dir) / "crosscheck.json").string();
    if (!cli::WriteFileAtomically(path, json)) {
      std::cerr << "warpsim-vkref: cannot write " << path << "\n";
      return 2;
    }
    written.push_back(path);
    auto pngs = WriteCrosscheckImages(report, out_dir);
    if (!pngs.ok()) {
      std::cerr << pngs.error().ToString() << "\n";
      return 2;
    }
    written.insert(written.end(), pngs->begin(), pngs->end());
  }
  if (!json_path.empty()) {
    if (!cli::WriteFileAtomically(json_path, json)) {
      std::cerr << "warpsim-vkref: cannot write " << json_path << "\n";
      return 2;
    }
    written.push_back(json_path);
  }
  if (quiet) {
    std::cout << file << ": " << VerdictName(report.verdict);
    const std::string summary = report.Summary();
    if (!summary.empty()) std::cout << ": " << summary;
    std::cout << "\n";
  } else {
    std::cout << CrosscheckTable(report);
    for (const auto& w : written) std::cout << "  wrote " << w << "\n";
  }
  return code;
}

}  // namespace warpsim::vkref
