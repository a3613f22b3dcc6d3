#include "vulkan_ref/crosscheck.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "scene/amber_parser.h"

namespace warpsim::vkref {

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kAgree:
      return "agree";
    case Verdict::kDiffer:
      return "differ";
    case Verdict::kInvalid:
      return "invalid";
    case Verdict::kUnsupported:
      return "unsupported";
    case Verdict::kLimit:
      return "limit_exceeded";
  }
  return "?";
}

int ExitCodeFor(Verdict v) {
  switch (v) {
    case Verdict::kAgree:
      return 0;
    case Verdict::kDiffer:
      return 1;
    case Verdict::kInvalid:
      return 2;
    case Verdict::kUnsupported:
      return 3;
    case Verdict::kLimit:
      return 4;
  }
  return 2;
}

namespace {

std::string ValueText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

std::string CrosscheckReport::Summary() const {
  if (verdict != Verdict::kAgree && verdict != Verdict::kDiffer) return reason;
  std::string s;
  auto add = [&](const std::string& part) {
    s += (s.empty() ? "" : "; ") + part;
  };
  for (const BufferComparison& b : buffers) {
    if (b.agree) continue;
    std::string part = b.kind + " " + b.name + " (" + b.format + ", " + b.rule +
                       "): " + std::to_string(b.differing_elements) + " of " +
                       std::to_string(b.elements) + " differ";
    if (b.first) {
      const ElementDifference& f = *b.first;
      part += b.kind == "image" && f.level == 0
                  ? ", first at (" + std::to_string(f.x) + "," +
                        std::to_string(f.y) + ")"
                  : ", first element " + std::to_string(f.element);
      part += " c" + std::to_string(f.component) + ": device " +
              ValueText(f.device) + ", emulator " + ValueText(f.emulator);
    }
    if (!b.note.empty()) part += " (" + b.note + ")";
    add(part);
  }
  for (const StatisticRow& r : statistics) {
    if (r.compared && !r.agree) {
      add(r.command + " line " + std::to_string(r.line) + " " + r.name +
          ": device " + (r.device ? std::to_string(*r.device) : "-") +
          ", emulator " + (r.emulator ? std::to_string(*r.emulator) : "-"));
    }
  }
  for (const ExpectationRow& e : expectations) {
    if (e.agree()) continue;
    auto side = [](const std::optional<runner::ExpectationReport>& x) {
      return !x ? std::string("not reached") : x->passed ? "pass" : "fail";
    };
    add("EXPECT line " + std::to_string(e.line) + ": device " + side(e.device) +
        ", emulator " + side(e.emulator));
  }
  return s;
}

namespace {

// Why a statistic is reported but not judged: the two sides count
// different things, each allowed by the Vulkan spec.
const std::map<std::string, std::string>& UnjudgedReasons() {
  static const std::map<std::string, std::string> kReasons = {
      {"vs_invocations",
       "not judged: Vulkan lets a device shade a vertex more than once or "
       "reuse it; the emulator counts lanes of its vertex batches"},
      {"primitives_out",
       "not judged: the device counts clipper output (a clipped triangle may "
       "become several), the emulator triangles reaching the rasterizer"},
      {"fs_invocations",
       "not judged: lavapipe counts whole 2x2 quads, helpers included; the "
       "emulator counts covered lanes (helper lanes apart)"},
      {"cs_invocations",
       "not judged: the emulator's report has no invocation count"},
  };
  return kReasons;
}

void AddStatistics(const DeviceDrawReport* dev, const char* command,
                   size_t index, const std::string& pipeline,
                   const std::map<std::string, uint64_t>& emu,
                   std::vector<StatisticRow>* rows) {
  std::vector<std::string> names = {"vs_invocations", "primitives_in",
                                    "primitives_out", "fs_invocations"};
  if (std::string(command) == "dispatch") names = {"cs_invocations"};
  for (const std::string& name : names) {
    StatisticRow r;
    r.command = command;
    r.index = index;
    r.line = dev != nullptr ? dev->line : 0;
    r.pipeline = pipeline;
    r.name = name;
    if (dev != nullptr) {
      auto it = dev->statistics.find(name);
      if (it != dev->statistics.end()) r.device = it->second;
    }
    auto it = emu.find(name);
    if (it != emu.end()) r.emulator = it->second;
    auto why = UnjudgedReasons().find(name);
    r.compared = why == UnjudgedReasons().end() && r.device && r.emulator;
    r.agree = !r.compared || *r.device == *r.emulator;
    if (why != UnjudgedReasons().end()) {
      r.note = why->second;
    } else if (!r.device || !r.emulator) {
      r.note = "not judged: counted by one side only";
    }
    rows->push_back(std::move(r));
  }
}

// The emulator's counters of draw `d` under the device's names; helper
// lanes go in the note of fs_invocations.
std::map<std::string, uint64_t> EmulatorDrawStatistics(
    const runner::DrawReport& d) {
  return {{"vs_invocations", d.stats.vs_invocations},
          {"primitives_in", d.stats.primitives_in},
          {"primitives_out", d.stats.primitives_out},
          {"fs_invocations", d.stats.fs_invocations}};
}

// --observe: what the device's instrumented shaders recorded against the
// emulator's counters, judged exactly (names prefixed "observed_").
void AddObserved(const DeviceDrawReport& dev, size_t index,
                 const runner::DrawReport& emu,
                 std::vector<StatisticRow>* rows) {
  const DrawObservation& o = *dev.observation;
  auto add = [&](const char* name, uint64_t device, uint64_t emulator,
                 const char* note) {
    StatisticRow r;
    r.command = "draw";
    r.index = index;
    r.line = dev.line;
    r.pipeline = dev.pipeline;
    r.name = std::string("observed_") + name;
    r.device = device;
    r.emulator = emulator;
    r.compared = !o.truncated();
    r.agree = !r.compared || device == emulator;
    r.note = o.truncated() ? "not judged: the observation was truncated" : note;
    rows->push_back(std::move(r));
  };
  add("fs_invocations", o.fragment.invocations, emu.stats.fs_invocations,
      "non-helper fragment invocations the device's shaders recorded");
  if (!(o.vertex.flags & kObsFlagSubgroup) &&
      !(o.fragment.flags & kObsFlagSubgroup)) {
    return;  // no warps recorded (lavapipe)
  }
  if (o.vertex.flags & kObsFlagSubgroup) {
    add("vs_invocations", o.vertex.invocations, emu.stats.vs_invocations,
        "vertex invocations the device's shaders recorded");
    add("vertex_warps", o.vertex.warps, emu.stats.vertex_warps,
        "vertex warps the device's shaders recorded");
  }
  if (o.fragment.flags & kObsFlagSubgroup) {
    add("fragment_warps", o.fragment.warps, emu.stats.fragment_warps,
        "fragment warps the device's shaders recorded");
    add("quads", o.fragment.quads, emu.stats.quads,
        "2x2 quads (per warp and primitive) the device's shaders recorded");
  }
  if (o.fragment.flags & kObsFlagQuad) {
    add("helper_lanes", o.fragment.helper_lanes, emu.stats.helper_lanes,
        "helper lanes from the device's quad masks");
  }
}

void CompareStatistics(CrosscheckReport* r) {
  const auto& dev_draws = r->device.draws;
  const auto& emu_draws = r->emulator.draws;
  for (size_t i = 0; i < std::max(dev_draws.size(), emu_draws.size()); ++i) {
    const DeviceDrawReport* dev =
        i < dev_draws.size() ? &dev_draws[i] : nullptr;
    std::map<std::string, uint64_t> emu;
    uint64_t helpers = 0;
    if (i < emu_draws.size()) {
      emu = EmulatorDrawStatistics(emu_draws[i]);
      helpers = emu_draws[i].stats.helper_lanes;
    }
    const std::string pipeline =
        dev != nullptr ? dev->pipeline : emu_draws[i].pipeline;
    const size_t first = r->statistics.size();
    AddStatistics(dev, "draw", i, pipeline, emu, &r->statistics);
    for (size_t k = first; k < r->statistics.size(); ++k) {
      if (r->statistics[k].name == "fs_invocations" && i < emu_draws.size()) {
        r->statistics[k].note +=
            " (emulator helper lanes: " + std::to_string(helpers) + ")";
      }
    }
    if (dev != nullptr && dev->observation && i < emu_draws.size()) {
      AddObserved(*dev, i, emu_draws[i], &r->statistics);
    }
  }
  const auto& dev_disp = r->device.dispatches;
  const auto& emu_disp = r->emulator.dispatches;
  for (size_t i = 0; i < std::max(dev_disp.size(), emu_disp.size()); ++i) {
    const DeviceDrawReport* dev = i < dev_disp.size() ? &dev_disp[i] : nullptr;
    const std::string pipeline =
        dev != nullptr ? dev->pipeline : emu_disp[i].pipeline;
    AddStatistics(dev, "dispatch", i, pipeline, {}, &r->statistics);
  }
}

void CompareExpectations(CrosscheckReport* r) {
  const auto& dev = r->device.run.expectations;
  const auto& emu = r->emulator.expectations;
  for (size_t i = 0; i < std::max(dev.size(), emu.size()); ++i) {
    ExpectationRow row;
    if (i < dev.size()) row.device = dev[i];
    if (i < emu.size()) row.emulator = emu[i];
    row.line = row.device ? row.device->line : row.emulator->line;
    r->expectations.push_back(std::move(row));
  }
}

void CompareBuffers(CrosscheckReport* r) {
  std::map<std::string, const runner::BufferOutput*> emu;
  for (const auto& b : r->emulator.buffers) emu[b.shape.name] = &b;
  for (const runner::BufferOutput& dev : r->device.run.buffers) {
    auto it = emu.find(dev.shape.name);
    if (it == emu.end()) continue;  // both keep every scene buffer
    // The emulator's shape: a COPY may have given the buffer another one,
    // and both runners follow the same commands.
    r->buffers.push_back(
        CompareBuffer(it->second->shape, dev.bytes, it->second->bytes));
  }
}

// The verdict when a side did not finish: unsupported wins (a file either
// side cannot run), then invalid input, then the emulator's limit.
bool SideStopped(const std::string& side, const runner::RunReport& run,
                 runner::RunStatus status, CrosscheckReport* r) {
  if (run.status != status) return false;
  r->verdict = status == runner::RunStatus::kUnsupported ? Verdict::kUnsupported
               : status == runner::RunStatus::kInvalid   ? Verdict::kInvalid
                                                         : Verdict::kLimit;
  // The diagnostic's text starts with its kind ("unsupported: ...").
  r->reason = side + ": " +
              (run.diagnostic ? run.diagnostic->ToString()
                              : runner::RunStatusName(status));
  return true;
}

}  // namespace

CrosscheckReport CrosscheckScene(const scene::Scene& scene,
                                 const CrosscheckOptions& options) {
  CrosscheckReport r;
  r.file = scene.file_path;
  runner::RunOptions emu_options;
  emu_options.threads = options.threads;
  emu_options.shader_cache_dir = options.shader_cache_dir;
  emu_options.keep_buffers = true;
  r.emulator = runner::RunScene(scene, emu_options);
  VkRunOptions dev_options;
  dev_options.device = options.device;
  dev_options.shader_cache_dir = options.shader_cache_dir;
  dev_options.keep_buffers = true;
  dev_options.observe = options.observe;
  r.device = RunSceneOnDevice(scene, dev_options);

  const std::string dev_side = r.device.device_known
                                   ? "device (" + r.device.device.name + ")"
                                   : std::string("device");
  for (runner::RunStatus status :
       {runner::RunStatus::kUnsupported, runner::RunStatus::kInvalid,
        runner::RunStatus::kLimitExceeded}) {
    if (SideStopped(dev_side, r.device.run, status, &r) ||
        SideStopped("emulator", r.emulator, status, &r)) {
      return r;
    }
  }
  CompareBuffers(&r);
  CompareStatistics(&r);
  CompareExpectations(&r);
  bool agree = true;
  for (const auto& b : r.buffers) agree = agree && b.agree;
  for (const auto& s : r.statistics) agree = agree && s.agree;
  for (const auto& e : r.expectations) agree = agree && e.agree();
  r.verdict = agree ? Verdict::kAgree : Verdict::kDiffer;
  return r;
}

CrosscheckReport CrosscheckFile(const std::string& path,
                                const CrosscheckOptions& options) {
  auto scene = scene::ParseAmberFile(path);
  if (!scene.ok()) {
    CrosscheckReport r;
    r.file = path;
    r.verdict = scene.error().kind == ErrorKind::kUnsupported
                    ? Verdict::kUnsupported
                    : Verdict::kInvalid;
    r.reason = "both sides (parser): " + scene.error().ToString();
    return r;
  }
  return CrosscheckScene(*scene, options);
}

}  // namespace warpsim::vkref
