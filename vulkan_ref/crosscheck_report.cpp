// crosscheck.json, the table and the PNGs of a CrosscheckReport.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runner/image_binding.h"
#include "runner/png_writer.h"
#include "vulkan_ref/crosscheck.h"
#include "vulkan_ref/report.h"

namespace warpsim::vkref {
namespace {

// JSON numbers cannot be NaN or infinite: those become strings.
nlohmann::json Number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

nlohmann::json SideJson(const runner::RunReport& run) {
  size_t passed = 0;
  for (const auto& e : run.expectations) passed += e.passed ? 1 : 0;
  nlohmann::json j = {{"result", runner::RunStatusName(run.status)},
                      {"expectations_passed", passed},
                      {"expectations", run.expectations.size()},
                      {"host_seconds", run.stats.host_seconds}};
  if (run.diagnostic) j["diagnostic"] = run.diagnostic->ToString();
  return j;
}

std::string Fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s += std::string(width - s.size(), ' ');
  return s;
}

std::string Optional(const std::optional<uint64_t>& v) {
  return v ? std::to_string(*v) : "-";
}

}  // namespace

std::string CrosscheckToJson(const CrosscheckReport& r) {
  nlohmann::json j;
  j["schema_version"] = kCrosscheckSchemaVersion;
  j["file"] = r.file;
  j["result"] = VerdictName(r.verdict);
  j["exit_code"] = ExitCodeFor(r.verdict);
  if (!r.reason.empty()) j["reason"] = r.reason;
  j["summary"] = r.Summary();
  nlohmann::json device = nullptr;
  if (r.device.device_known) {
    const DeviceInfo& d = r.device.device;
    device = {{"index", d.index},
              {"name", d.name},
              {"type", d.type},
              {"vendor_id", d.vendor_id},
              {"device_id", d.device_id},
              {"driver_name", d.driver_name},
              {"driver_info", d.driver_info},
              {"driver_version", d.driver_version},
              {"api_version", d.api_version}};
  }
  j["device"] = device;
  j["sides"] = {{"device", SideJson(r.device.run)},
                {"emulator", SideJson(r.emulator)}};
  nlohmann::json buffers = nlohmann::json::array();
  for (const BufferComparison& b : r.buffers) {
    nlohmann::json e = {{"name", b.name},
                        {"kind", b.kind},
                        {"format", b.format},
                        {"elements", b.elements},
                        {"device_bytes", b.device_bytes},
                        {"emulator_bytes", b.emulator_bytes},
                        {"compared_how", b.rule},
                        {"agree", b.agree},
                        {"differing_elements", b.differing_elements},
                        {"max_difference", Number(b.max_difference)},
                        {"max_ulps", b.max_ulps}};
    if (b.kind == "image") {
      e["width"] = b.width;
      e["height"] = b.height;
    }
    nlohmann::json first = nullptr;
    if (b.first) {
      first = {{"element", b.first->element},
               {"component", b.first->component},
               {"device", Number(b.first->device)},
               {"emulator", Number(b.first->emulator)}};
      if (b.kind == "image") {
        first["x"] = b.first->x;
        first["y"] = b.first->y;
        first["level"] = b.first->level;
      }
    }
    e["first_difference"] = first;
    if (!b.note.empty()) e["note"] = b.note;
    buffers.push_back(std::move(e));
  }
  j["buffers"] = buffers;
  nlohmann::json stats = nlohmann::json::array();
  for (const StatisticRow& s : r.statistics) {
    stats.push_back(
        {{"command", s.command},
         {"index", s.index},
         {"line", s.line},
         {"pipeline", s.pipeline},
         {"name", s.name},
         {"device", s.device ? nlohmann::json(*s.device) : nullptr},
         {"emulator", s.emulator ? nlohmann::json(*s.emulator) : nullptr},
         {"compared", s.compared},
         {"agree", s.agree},
         {"note", s.note}});
  }
  j["statistics"] = stats;
  nlohmann::json exps = nlohmann::json::array();
  for (const ExpectationRow& e : r.expectations) {
    auto side = [](const std::optional<runner::ExpectationReport>& x) {
      if (!x) return nlohmann::json(nullptr);
      return nlohmann::json{{"passed", x->passed}, {"message", x->message}};
    };
    exps.push_back({{"line", e.line},
                    {"device", side(e.device)},
                    {"emulator", side(e.emulator)},
                    {"agree", e.agree()}});
  }
  j["expectations"] = exps;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string CrosscheckTable(const CrosscheckReport& r) {
  std::ostringstream out;
  out << "crosscheck " << r.file << "\n";
  if (r.device.device_known) {
    out << "  device " << r.device.device.index << ": "
        << DeviceLine(r.device.device) << "\n";
  }
  auto side = [](const runner::RunReport& run) {
    size_t passed = 0;
    for (const auto& e : run.expectations) passed += e.passed ? 1 : 0;
    return std::string(runner::RunStatusName(run.status)) + " (" +
           std::to_string(passed) + "/" +
           std::to_string(run.expectations.size()) + " EXPECT)";
  };
  out << "  device: " << side(r.device.run)
      << "    emulator: " << side(r.emulator) << "\n";
  if (!r.buffers.empty()) {
    out << "\n  " << Pad("buffer", 26) << Pad("format", 22)
        << Pad("compared how", 24) << Pad("agree", 7) << "differing / max diff"
        << " / first difference\n";
  }
  for (const BufferComparison& b : r.buffers) {
    std::string what = b.kind + " " + b.name;
    if (b.kind == "image") {
      what += " " + std::to_string(b.width) + "x" + std::to_string(b.height);
    }
    out << "  " << Pad(what, 26) << Pad(b.format, 22) << Pad(b.rule, 24)
        << Pad(b.agree ? "yes" : "NO", 7) << b.differing_elements << "/"
        << b.elements;
    if (b.max_difference > 0) out << "  max " << Fixed(b.max_difference);
    if (b.max_ulps > 0) out << " (" << b.max_ulps << " ULP)";
    if (b.first) {
      const ElementDifference& f = *b.first;
      out << "  first "
          << (b.kind == "image" && f.level == 0
                  ? "(" + std::to_string(f.x) + "," + std::to_string(f.y) + ")"
                  : "element " + std::to_string(f.element))
          << " c" << f.component << ": device " << Fixed(f.device)
          << " emulator " << Fixed(f.emulator);
    }
    if (!b.note.empty()) out << "  " << b.note;
    out << "\n";
  }
  if (!r.statistics.empty()) {
    out << "\n  " << Pad("statistic", 48) << Pad("device", 10)
        << Pad("emulator", 10) << "judged\n";
  }
  for (const StatisticRow& s : r.statistics) {
    const std::string what = s.command + " " + std::to_string(s.index) +
                             " (line " + std::to_string(s.line) + ") " + s.name;
    out << "  " << Pad(what, 48) << Pad(Optional(s.device), 10)
        << Pad(Optional(s.emulator), 10)
        << (s.compared ? (s.agree ? "agree" : "DIFFER") : "reported only")
        << "\n";
  }
  size_t agreeing = 0;
  for (const ExpectationRow& e : r.expectations) agreeing += e.agree() ? 1 : 0;
  if (!r.expectations.empty()) {
    out << "\n  EXPECT outcomes: " << agreeing << " of "
        << r.expectations.size() << " the same on both sides\n";
  }
  for (const ExpectationRow& e : r.expectations) {
    if (e.agree()) continue;
    auto word = [](const std::optional<runner::ExpectationReport>& x) {
      return !x ? std::string("not reached") : x->passed ? "pass" : "fail";
    };
    out << "    line " << e.line << ": device " << word(e.device)
        << ", emulator " << word(e.emulator) << "\n";
  }
  out << "\n  result: " << VerdictName(r.verdict);
  const std::string summary = r.Summary();
  if (!summary.empty()) out << ": " << summary;
  out << "\n";
  return out.str();
}

Result<std::vector<std::string>> WriteCrosscheckImages(
    const CrosscheckReport& r, const std::string& dir) {
  std::vector<std::string> written;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return InvalidInput("cannot create " + dir + ": " + ec.message());
  auto write = [&](const runner::ImageOutput& image,
                   const std::string& suffix) -> Status {
    const std::string path =
        (std::filesystem::path(dir) / (image.name + suffix)).string();
    if (Status s = runner::WritePng(path, image.format, image.width,
                                    image.height, image.bytes.data(),
                                    image.width * image.format.bytes);
        !s.ok()) {
      return s;
    }
    written.push_back(path);
    return {};
  };
  for (const runner::ImageOutput& image : r.device.run.images) {
    if (Status s = write(image, ".device.png"); !s.ok()) return s.error();
  }
  for (const runner::ImageOutput& image : r.emulator.images) {
    if (Status s = write(image, ".emulator.png"); !s.ok()) return s.error();
  }
  // Difference images: the device's picture at a quarter brightness, with
  // every differing pixel pure red, so the pattern of differences shows.
  for (const runner::ImageOutput& image : r.device.run.images) {
    const BufferComparison* cmp = nullptr;
    for (const auto& b : r.buffers) {
      if (b.name == image.name) cmp = &b;
    }
    if (cmp == nullptr || cmp->agree) continue;
    auto rgba = runner::ConvertToRgba8(image.format, image.width, image.height,
                                       image.bytes.data(),
                                       image.width * image.format.bytes);
    if (!rgba.ok()) return rgba.error();
    std::vector<uint8_t>& px = *rgba;
    for (size_t i = 0; i * 4 < px.size(); ++i) {
      const bool differs = i < cmp->differs.size() && cmp->differs[i];
      for (int c = 0; c < 3; ++c) {
        px[i * 4 + c] = differs ? (c == 0 ? 255 : 0) : px[i * 4 + c] / 4;
      }
      px[i * 4 + 3] = 255;
    }
    runner::ImageOutput diff;
    diff.name = image.name;
    diff.format =
        runner::TexelFormatOf(*scene::ParseVulkanFormat("R8G8B8A8_UNORM"));
    diff.width = image.width;
    diff.height = image.height;
    diff.bytes = std::move(px);
    if (Status s = write(diff, ".diff.png"); !s.ok()) return s.error();
  }
  return written;
}

}  // namespace warpsim::vkref
