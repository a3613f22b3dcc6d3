#include "cli/cli_util.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace warpsim::cli {
namespace {

// Whether a --gpu-config argument is meant as a file rather than a preset
// name: it exists, or has a directory part or a .json suffix.
bool LooksLikeFile(const std::string& arg) {
  std::error_code ec;
  return std::filesystem::exists(arg, ec) ||
         arg.find('/') != std::string::npos ||
         (arg.size() > 5 && arg.substr(arg.size() - 5) == ".json");
}

}  // namespace

bool ParseUint(const char* s, uint64_t* out) {
  if (s == nullptr || *s == 0) return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (errno != 0 || *end != 0 || s[0] == '-') return false;
  *out = v;
  return true;
}

int Usage(const std::string& message, const char* help) {
  std::cerr << "warpsim: " << message << "\n\n" << help;
  return kExitUsage;
}

int LoadGpuConfigArg(const char* arg, const char* help,
                     runner::GpuConfig* config) {
  auto preset = runner::GpuConfigPreset(arg);
  if (!preset.ok() && !LooksLikeFile(arg)) {
    return Usage("unknown GPU preset \"" + std::string(arg) + "\" (presets: " +
                     runner::GpuConfigPresetList() + "; or a JSON file)",
                 help);
  }
  auto loaded = preset.ok() ? preset : runner::LoadGpuConfig(arg);
  if (!loaded.ok()) {
    std::cerr << loaded.error().ToString() << "\n";
    return 2;
  }
  *config = *loaded;
  return 0;
}

bool WriteFileAtomically(const std::string& path, const std::string& data) {
  std::error_code ec;
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  const std::string tmp = path + ".partial";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return false;
    out << data;
    if (!out) return false;
  }
  std::filesystem::rename(tmp, path, ec);
  return !ec;
}

}  // namespace warpsim::cli
