#include "vulkan_ref/compare_cli.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "regress/table.h"
#include "regress/variants.h"
#include "runner/runner.h"
#include "runner/shader_build.h"
#include "vulkan_ref/report.h"
#include "vulkan_ref/vk_runner.h"

namespace warpsim::vkref {
namespace {

constexpr int kSchemaVersion = 1;

const char kCompareHelp[] =
    "usage: warpsim-vkref compare A.amber B.amber [C.amber ...] [options]\n"
    "       warpsim-vkref compare FILE.amber -D NAME=V1,V2,... [options]\n"
    "\n"
    "Runs each variant (as `warpsim compare` makes them) on a Vulkan device\n"
    "and in the emulator's timing mode: the device's GPU time (the sum over\n"
    "the variant's draws and dispatches of the median of --repeat runs,\n"
    "from timestamp queries) beside the emulated cycles, each as a ratio to\n"
    "the baseline, the emulated ratio over the measured one, and the\n"
    "Spearman rank correlation of the two over the variants.\n"
    "  -D NAME=V1,V2,... / -D NAME=V  as warpsim compare\n"
    "  --device D                 lavapipe, nvidia or an index (as run)\n"
    "  --repeat N                 runs per draw and dispatch (default 15)\n"
    "  --baseline NAME            the variant ratios are taken to (default:\n"
    "                             the first)\n"
    "  --gpu-config PRESET|FILE   the emulator's GPU (default h200)\n"
    "  --json FILE                write the comparison as JSON\n"
    "                             (schema_version 1)\n"
    "  --shader-cache DIR|off     compiled-shader cache (as run)\n"
    "Exit codes: 0 compared, 2 invalid input, a device without timestamps\n"
    "or an unwritable output, 3 unsupported, 4 the emulator's instruction\n"
    "limit, 64 bad command line.\n";

struct Variant {
  regress::VariantSpec spec;
  double gpu_ns = 0;
  std::vector<double> draw_ns;  // the median of each draw and dispatch
  uint64_t cycles = 0;
  uint64_t warp_instructions = 0;
  std::string device_status, emulator_status;
};

std::string Fixed(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

int Usage(const std::string& message) {
  std::cerr << "warpsim-vkref: " << message << "\n\n" << kCompareHelp;
  return 64;
}

}  // namespace

int CompareCommand(int argc, char** argv) {
  std::vector<std::string> files, define_args;
  std::string json_path, baseline;
  VkRunOptions device_options;
  device_options.repeat = 15;
  device_options.shader_cache_dir = runner::DefaultShaderCacheDir();
  runner::RunOptions emulator;
  emulator.timing_mode = true;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    if (a == "--help" || a == "-h") {
      std::cout << kCompareHelp;
      return 0;
    } else if (a == "-D" || a == "--define") {
      const char* v = value();
      if (!v) return Usage(a + " needs NAME=V1,V2,...");
      define_args.push_back(v);
    } else if (a.rfind("-D", 0) == 0 && a.size() > 2) {
      define_args.push_back(a.substr(2));
    } else if (a == "--device") {
      const char* v = value();
      if (!v || *v == 0)
        return Usage("--device needs lavapipe, nvidia or an index");
      device_options.device = v;
    } else if (a == "--repeat") {
      uint64_t n = 0;
      if (!cli::ParseUint(value(), &n) || n < 1 || n > 10000) {
        return Usage("--repeat needs a number from 1 to 10000");
      }
      device_options.repeat = static_cast<uint32_t>(n);
    } else if (a == "--baseline") {
      const char* v = value();
      if (!v || *v == 0) return Usage("--baseline needs a variant");
      baseline = v;
    } else if (a == "--gpu-config") {
      const char* v = value();
      if (!v) return Usage("--gpu-config needs a preset name or a JSON file");
      runner::RunOptions loaded = emulator;
      if (int rc = cli::LoadGpuConfigArg(v, kCompareHelp, &loaded); rc != 0) {
        return rc;
      }
      emulator = loaded;
      emulator.timing_mode = true;
    } else if (a == "--json") {
      const char* v = value();
      if (!v || *v == 0) return Usage("--json needs a file name");
      json_path = v;
    } else if (a == "--shader-cache") {
      const char* v = value();
      if (!v || *v == 0)
        return Usage("--shader-cache needs a directory or off");
      device_options.shader_cache_dir = std::string(v) == "off" ? "" : v;
    } else if (!a.empty() && a[0] == '-') {
      return Usage("unknown option " + a);
    } else {
      files.push_back(a);
    }
  }
  emulator.shader_cache_dir = device_options.shader_cache_dir;
  auto specs = regress::MakeVariants(files, define_args);
  if (!specs.ok()) return Usage(specs.error().message);
  size_t base = 0;
  if (!baseline.empty()) {
    const auto found = regress::FindVariant(*specs, baseline);
    if (!found) return Usage("--baseline " + baseline + " names no variant");
    base = *found;
  }

  std::vector<Variant> variants;
  DeviceInfo device;
  for (regress::VariantSpec& spec : *specs) {
    Variant v;
    v.spec = std::move(spec);
    VkRunOptions d = device_options;
    d.glsl_defines = v.spec.defines;
    const DeviceRunReport on_device = RunFileOnDevice(v.spec.file, d);
    runner::RunOptions e = emulator;
    e.glsl_defines = v.spec.defines;
    const runner::RunReport emulated = runner::RunAmberFile(v.spec.file, e);
    for (const runner::RunReport* r : {&on_device.run, &emulated}) {
      const runner::RunStatus st = r->status;
      if (st == runner::RunStatus::kPass || st == runner::RunStatus::kFail) {
        continue;
      }
      std::cerr << "warpsim-vkref: variant " << v.spec.name << " ("
                << (r == &emulated ? "emulator" : "device")
                << "): " << runner::RunStatusName(st) << ": "
                << (r->diagnostic ? r->diagnostic->ToString() : "") << "\n";
      return runner::ExitCodeFor(st);
    }
    device = on_device.device;
    v.device_status = runner::RunStatusName(on_device.run.status);
    v.emulator_status = runner::RunStatusName(emulated.status);
    for (const auto* list : {&on_device.draws, &on_device.dispatches}) {
      for (const DeviceDrawReport& r : *list) {
        if (r.gpu_ns.empty()) {
          std::cerr << "warpsim-vkref: " << device.name
                    << " gives no GPU timestamps for this queue\n";
          return 2;
        }
        v.draw_ns.push_back(r.median_gpu_ns());
        v.gpu_ns += r.median_gpu_ns();
      }
    }
    v.cycles = emulated.timing ? emulated.timing->cycles : 0;
    v.warp_instructions = emulated.stats.warp_instructions;
    variants.push_back(std::move(v));
  }

  // Ratios to the baseline, and how well the emulator's follow the device's.
  const Variant& b = variants[base];
  std::vector<double> gpu, emu;
  double error_sum = 0;
  size_t errors = 0;
  regress::TextTable table({"variant", "GPU ns", "GPU ratio", "emulated cycles",
                            "emulated ratio", "emulated / GPU ratio"});
  nlohmann::json out_variants = nlohmann::json::array();
  for (size_t i = 0; i < variants.size(); ++i) {
    const Variant& v = variants[i];
    const double gr = b.gpu_ns > 0 ? v.gpu_ns / b.gpu_ns : 0;
    const double er = b.cycles > 0 ? static_cast<double>(v.cycles) /
                                         static_cast<double>(b.cycles)
                                   : 0;
    gpu.push_back(v.gpu_ns);
    emu.push_back(static_cast<double>(v.cycles));
    if (i != base && gr > 0) {
      error_sum += std::fabs(er / gr - 1);
      ++errors;
    }
    table.AddRow({v.spec.label + (i == base ? " (baseline)" : ""),
                  Fixed(v.gpu_ns, 0), Fixed(gr, 3), std::to_string(v.cycles),
                  Fixed(er, 3), gr > 0 ? Fixed(er / gr, 2) : "-"});
    nlohmann::json j = {{"name", v.spec.name},
                        {"file", v.spec.file},
                        {"defines", v.spec.defines},
                        {"gpu_ns", v.gpu_ns},
                        {"draw_gpu_ns", v.draw_ns},
                        {"gpu_ratio", gr},
                        {"cycles", v.cycles},
                        {"emulated_ratio", er},
                        {"warp_instructions", v.warp_instructions},
                        {"device_result", v.device_status},
                        {"emulator_result", v.emulator_status}};
    if (v.spec.varying) {
      j["define"] = {{"name", v.spec.varying->first},
                     {"value", v.spec.varying->second}};
    }
    out_variants.push_back(std::move(j));
  }
  const double rho = regress::SpearmanRho(gpu, emu);
  const double mean_error =
      errors ? error_sum / static_cast<double>(errors) : 0;
  std::cout << "device: " << DeviceLine(device) << ", median of "
            << device_options.repeat << " runs per draw\n"
            << table.Render() << "Spearman rank correlation " << Fixed(rho, 3)
            << "; mean |emulated / GPU ratio - 1| "
            << Fixed(100 * mean_error, 1) << " %\n";
  if (!json_path.empty()) {
    nlohmann::json j = {{"schema_version", kSchemaVersion},
                        {"tool", "warpsim-vkref compare"},
                        {"device",
                         {{"name", device.name},
                          {"driver", device.driver_name},
                          {"driver_version", device.driver_version},
                          {"driver_info", device.driver_info},
                          {"api_version", device.api_version}}},
                        {"repeat", device_options.repeat},
                        {"baseline", b.spec.name},
                        {"spearman", rho},
                        {"mean_abs_ratio_error", mean_error},
                        {"variants", out_variants}};
    if (!cli::WriteFileAtomically(
            json_path,
            j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                "\n")) {
      std::cerr << "warpsim-vkref: cannot write " << json_path << "\n";
      return 2;
    }
  }
  return 0;
}

}  // namespace warpsim::vkref
