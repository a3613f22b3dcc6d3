// Run directories and trace mirrors: see run_data.h.
#include "model/run_data.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/trace_reader.h"
#include "runner/png_writer.h"

namespace warpsim::viz {

namespace fs = std::filesystem;

Status LoadRunDir(const std::string& dir, RunData* out) {
  *out = RunData{};
  out->source = dir;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return InvalidInput("'" + dir +
                        "' is not a directory (warpsim-viz --open "
                        "takes the --out directory of a timing run)");
  }
  const fs::path trace_path = fs::path(dir) / "trace.json";
  if (!fs::exists(trace_path, ec)) {
    return InvalidInput("'" + trace_path.string() +
                        "' is missing: run warpsim run FILE --timing --out " +
                        dir + " --json " +
                        (fs::path(dir) / "report.json").string() + " --trace " +
                        trace_path.string());
  }
  if (Status s = ReadTrace(trace_path.string(), &out->trace); !s.ok()) return s;
  const fs::path report_path = fs::path(dir) / "report.json";
  if (fs::exists(report_path, ec)) {
    std::ifstream in(report_path);
    std::ostringstream text;
    text << in.rdbuf();
    try {
      out->report = nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::parse_error& e) {
      return InvalidInput("report '" + report_path.string() +
                          "': not JSON: " + e.what());
    }
  }
  std::vector<fs::path> pngs;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".png") pngs.push_back(entry.path());
  }
  std::sort(pngs.begin(), pngs.end());
  for (const fs::path& p : pngs) {
    Image image;
    image.name = p.stem().string();
    auto rgba = runner::ReadPngRgba8(p.string(), &image.width, &image.height);
    if (!rgba.ok()) return rgba.error();
    image.rgba = std::move(*rgba);
    out->images.push_back(std::move(image));
  }
  out->now = 0;
  for (const trace::RunInfo& r : out->trace.runs) {
    out->now = std::max(out->now, r.end);
  }
  out->finished = true;
  return {};
}

namespace {
template <typename T>
void AppendTail(const std::vector<T>& src, std::vector<T>* dst) {
  if (dst->size() > src.size()) dst->clear();  // a different trace
  dst->insert(dst->end(),
              src.begin() + static_cast<std::ptrdiff_t>(dst->size()),
              src.end());
}
}  // namespace

void TraceMirror::Sync(const trace::Trace& src, trace::Trace* dst) {
  dst->clock_mhz = src.clock_mhz;
  dst->sms = src.sms;
  dst->sub_partitions = src.sub_partitions;
  dst->slots_per_sub_partition = src.slots_per_sub_partition;
  dst->registers_per_sub_partition = src.registers_per_sub_partition;
  dst->detail = src.detail;
  dst->max_instruction_events = src.max_instruction_events;
  dst->instructions_truncated = src.instructions_truncated;
  dst->runs = src.runs;  // few, and their ends change
  if (dst->warps.size() > src.warps.size()) {
    dst->warps.clear();
    open_.clear();
  }
  // Spans that were resident: their ends and instruction counts.
  std::erase_if(open_, [&](size_t i) {
    (*dst).warps[i].end = src.warps[i].end;
    (*dst).warps[i].instructions = src.warps[i].instructions;
    return src.warps[i].end != trace::kStillResident;
  });
  for (size_t i = dst->warps.size(); i < src.warps.size(); ++i) {
    dst->warps.push_back(src.warps[i]);
    if (src.warps[i].end == trace::kStillResident) open_.push_back(i);
  }
  AppendTail(src.registers, &dst->registers);
  AppendTail(src.counters, &dst->counters);
  AppendTail(src.instructions, &dst->instructions);
  AppendTail(src.quads, &dst->quads);
  AppendTail(src.shaders, &dst->shaders);
}

}  // namespace warpsim::viz
