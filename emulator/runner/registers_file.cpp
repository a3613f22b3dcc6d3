#include "runner/registers_file.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace warpsim::runner {

Result<std::map<std::string, sm::StageRegisters>> LoadPipelineRegisters(
    const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return InvalidInput("cannot read the registers report", SourcePos{path});
  }
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte: 1-based offset of the error.
    const std::string s = text.str();
    const size_t at = std::min<size_t>(e.byte, s.size());
    const int line =
        1 + static_cast<int>(std::count(s.begin(), s.begin() + at, '\n'));
    return InvalidInput("not JSON: " + std::string(e.what()),
                        SourcePos{path, line});
  }
  if (!j.is_object() || !j.contains("pipelines") ||
      !j["pipelines"].is_array()) {
    return InvalidInput(
        "expected a warpsim-vkref report with a \"pipelines\" array",
        SourcePos{path});
  }
  std::map<std::string, sm::StageRegisters> out;
  size_t found = 0;
  for (const auto& p : j["pipelines"]) {
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string() ||
        !p.contains("stage") || !p["stage"].is_string() ||
        !p.contains("executable_statistics") ||
        !p["executable_statistics"].is_object()) {
      continue;
    }
    const auto& stats = p["executable_statistics"];
    if (!stats.contains("Register Count")) continue;
    const auto& count = stats["Register Count"];
    if (!count.is_number_unsigned() || count.get<uint64_t>() == 0 ||
        count.get<uint64_t>() > 4096) {
      return InvalidInput("pipeline \"" + p["name"].get<std::string>() +
                              "\": \"Register Count\" must be an integer "
                              "in 1..4096",
                          SourcePos{path});
    }
    const uint32_t n = count.get<uint32_t>();
    sm::StageRegisters& r = out[p["name"].get<std::string>()];
    const std::string stage = p["stage"];
    if (stage == "vertex") {
      r.vertex = n;
    } else if (stage == "fragment") {
      r.fragment = n;
    } else if (stage == "compute") {
      r.compute = n;
    } else {
      continue;
    }
    ++found;
  }
  if (found == 0) {
    return InvalidInput(
        "no pipeline in the report has a \"Register Count\" executable "
        "statistic (the driver offers none, or the report is not "
        "warpsim-vkref's)",
        SourcePos{path});
  }
  return out;
}

}  // namespace warpsim::runner
