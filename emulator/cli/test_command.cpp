// `warpsim test`: regression runs. Every scene file under the given paths
// runs in its own child process (regress/child_pool.h), a few at a time;
// the summary counts outcomes per folder and names the slowest scenes;
// each scene's statistics are compared with a saved baseline
// (regress/scene_stats.h, the figures `warpsim compare` shows), and the
// results can be written as JUnit XML.
#include "cli/test_command.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_util.h"
#include "regress/child_pool.h"
#include "regress/junit.h"
#include "regress/scene_stats.h"
#include "regress/table.h"
#include "runner/runner.h"
#include "runner/shader_build.h"

namespace warpsim::cli {
namespace {

namespace fs = std::filesystem;

const char kTestHelp[] =
    "usage: warpsim test PATH... [--jobs N] [--timing] [--junit OUT.xml]\n"
    "                    [--baseline BASE.json | --save-baseline BASE.json]\n"
    "                    [--fail-above PCT] [--timeout SEC]\n"
    "                    [--gpu-config PRESET|FILE] [--json OUT.json]\n"
    "                    [--slowest N] [--quiet]\n"
    "\n"
    "Runs every .amber and .vkscript file under the PATHs (files or\n"
    "folders, searched recursively, in sorted order), each in its own\n"
    "process, N at a time, with a progress bar on a terminal. Prints the\n"
    "outcomes per folder and the slowest scenes. A scene passes when every\n"
    "EXPECT holds; an unsupported feature is skipped (named), anything else\n"
    "fails.\n"
    "  --jobs N                scenes at once (default: every core)\n"
    "  --timing                run the SM timing model too (cycles are\n"
    "                          compared with the baseline)\n"
    "  --junit FILE            write JUnit XML (a suite per folder)\n"
    "  --save-baseline FILE    write every scene's statistics to FILE\n"
    "  --baseline FILE         compare each scene's statistics with FILE's:\n"
    "                          a figure worse by more than --fail-above PCT\n"
    "                          (default 0: any) fails the scene\n"
    "  --fail-above PCT        the tolerance of --baseline, in percent\n"
    "  --timeout SEC           per scene (default 600); past it the scene is\n"
    "                          killed and fails\n"
    "  --gpu-config PRESET|FILE  the GPU (default h200)\n"
    "  --json FILE             every scene's outcome and statistics as JSON\n"
    "  --slowest N             slowest scenes listed (default 5)\n"
    "  --quiet                 print only failures and the closing line\n"
    "Scenes are named by their path as found (PATH/...): compare with a\n"
    "baseline saved from the same working directory.\n"
    "Exit codes: 0 every scene passed (or was unsupported) with no\n"
    "regression, 1 a scene failed or regressed, 2 a baseline that does not\n"
    "load, 64 bad command line.\n";

constexpr int kSchemaVersion = 1;

struct SceneResult {
  std::string path;
  std::string folder;
  // pass, fail, invalid, unsupported, limit_exceeded, crashed, timeout
  std::string outcome;
  std::string message;
  std::optional<regress::SceneStats> stats;
  double seconds = 0;
  std::vector<regress::Regression> regressions;
  bool new_scene = false;  // not in the baseline
};

bool IsSceneFile(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".amber" || ext == ".vkscript";
}

// The files under `paths`, sorted, each once; a path that does not exist
// is reported.
bool CollectScenes(const std::vector<std::string>& paths,
                   std::vector<std::string>* out) {
  bool ok = true;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      out->push_back(p);
      continue;
    }
    if (!fs::is_directory(p, ec)) {
      std::cerr << "warpsim: " << p << ": no such file or folder\n";
      ok = false;
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(
             p, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && IsSceneFile(it->path())) {
        found.push_back(it->path().generic_string());
      }
    }
    std::sort(found.begin(), found.end());
    out->insert(out->end(), found.begin(), found.end());
  }
  std::vector<std::string> unique;
  for (const std::string& f : *out) {
    if (std::find(unique.begin(), unique.end(), f) == unique.end()) {
      unique.push_back(f);
    }
  }
  *out = std::move(unique);
  return ok;
}

std::string OneLine(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '\n' || c == '\r' ? ' ' : c;
  if (out.size() > 300) out = out.substr(0, 297) + "...";
  return out;
}

std::string MessageOf(const runner::RunReport& report) {
  for (const auto& e : report.expectations) {
    if (!e.passed) {
      return "line " + std::to_string(e.line) + ": " + e.message;
    }
  }
  return report.diagnostic ? report.diagnostic->ToString() : "";
}

// In the child: run the scene, return its outcome as JSON.
std::string RunOne(const std::string& path, const runner::RunOptions& o) {
  const runner::RunReport report = runner::RunAmberFile(path, o);
  nlohmann::json j = {
      {"status", runner::RunStatusName(report.status)},
      {"message", OneLine(MessageOf(report))},
      {"stats", regress::StatsJson(regress::StatsOf(report, o))}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<std::map<std::string, regress::SceneStats>> LoadBaseline(
    const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidInput("cannot read baseline " + path);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  auto bad = [&](const std::string& why) {
    Diagnostic d = InvalidInput(why);
    d.pos.file = path;
    return d;
  };
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  if (j.value("schema_version", 0) != kSchemaVersion) {
    return bad("schema_version is not " + std::to_string(kSchemaVersion));
  }
  auto scenes = j.find("scenes");
  if (scenes == j.end() || !scenes->is_object()) {
    return bad("no \"scenes\" object");
  }
  std::map<std::string, regress::SceneStats> out;
  for (const auto& [name, v] : scenes->items()) {
    auto s = regress::StatsFromJson(v);
    if (!s.ok()) return bad("scene " + name + ": " + s.error().message);
    out[name] = *s;
  }
  return out;
}

bool Failed(const SceneResult& r) {
  return (r.outcome != "pass" && r.outcome != "unsupported") ||
         !r.regressions.empty();
}

void PrintSummary(const std::vector<SceneResult>& results, size_t slowest) {
  static const char* kOutcomes[] = {"pass",    "fail",           "unsupported",
                                    "invalid", "limit_exceeded", "crashed",
                                    "timeout"};
  std::map<std::string, std::map<std::string, size_t>> per_folder;
  std::map<std::string, size_t> regressed;
  for (const SceneResult& r : results) {
    per_folder[r.folder][r.outcome] += 1;
    if (!r.regressions.empty()) regressed[r.folder] += 1;
  }
  std::vector<std::string> header = {"folder", "scenes"};
  for (const char* o : kOutcomes) header.push_back(o);
  header.push_back("regressed");
  regress::TextTable table(header);
  for (const auto& [folder, counts] : per_folder) {
    size_t n = 0;
    for (const auto& [_, c] : counts) n += c;
    std::vector<std::string> row = {folder, std::to_string(n)};
    for (const char* o : kOutcomes) {
      auto it = counts.find(o);
      row.push_back(std::to_string(it == counts.end() ? 0 : it->second));
    }
    row.push_back(std::to_string(regressed[folder]));
    table.AddRow(std::move(row));
  }
  std::cout << table.Render();
  if (slowest == 0) return;
  std::vector<const SceneResult*> by_time;
  for (const SceneResult& r : results) by_time.push_back(&r);
  std::sort(by_time.begin(), by_time.end(),
            [](const SceneResult* a, const SceneResult* b) {
              return a->seconds > b->seconds;
            });
  regress::TextTable slow({"slowest scenes", "seconds", "warp instructions"});
  for (size_t i = 0; i < by_time.size() && i < slowest; ++i) {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.2f", by_time[i]->seconds);
    slow.AddRow({by_time[i]->path, secs,
                 by_time[i]->stats
                     ? std::to_string(by_time[i]->stats->warp_instructions)
                     : "-"});
  }
  std::cout << "\n" << slow.Render();
}

std::string JUnitDetail(const SceneResult& r) {
  std::string d = r.message;
  for (const regress::Regression& g : r.regressions) {
    const bool integer = g.metric.find("instructions") != std::string::npos ||
                         g.metric == "cycles" ||
                         g.metric == "registers_per_thread";
    if (!d.empty()) d += "\n";
    d += g.metric + ": " + regress::FormatChange(g.before, g.after, integer);
  }
  return d;
}

}  // namespace

int TestCommand(int argc, char** argv) {
  std::vector<std::string> paths;
  std::string junit_path, baseline_path, save_path, json_path;
  std::optional<double> fail_above;
  uint64_t jobs = 0, slowest = 5, timeout = 600;
  bool quiet = false;
  runner::RunOptions options;
  options.shader_cache_dir = runner::DefaultShaderCacheDir();
  options.threads = 1;  // scenes run side by side instead
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    auto file_value = [&](std::string* out) {
      const char* v = value();
      if (!v || *v == 0) return false;
      *out = v;
      return true;
    };
    if (a == "--help" || a == "-h") {
      std::cout << kTestHelp;
      return 0;
    } else if (a == "--jobs") {
      if (!ParseUint(value(), &jobs) || jobs > 1024) {
        return Usage("--jobs needs a number from 0 (every core) to 1024",
                     kTestHelp);
      }
    } else if (a == "--timing") {
      options.timing_mode = true;
    } else if (a == "--junit") {
      if (!file_value(&junit_path))
        return Usage("--junit needs a file", kTestHelp);
    } else if (a == "--baseline") {
      if (!file_value(&baseline_path)) {
        return Usage("--baseline needs a file", kTestHelp);
      }
    } else if (a == "--save-baseline") {
      if (!file_value(&save_path)) {
        return Usage("--save-baseline needs a file", kTestHelp);
      }
    } else if (a == "--json") {
      if (!file_value(&json_path))
        return Usage("--json needs a file", kTestHelp);
    } else if (a == "--fail-above") {
      const char* v = value();
      char* end = nullptr;
      const double pct = v ? std::strtod(v, &end) : -1;
      if (!v || end == v || *end != 0 || !(pct >= 0) || pct > 1e9) {
        return Usage("--fail-above needs a percentage (a number >= 0)",
                     kTestHelp);
      }
      fail_above = pct;
    } else if (a == "--timeout") {
      if (!ParseUint(value(), &timeout) || timeout == 0) {
        return Usage("--timeout needs a number of seconds (> 0)", kTestHelp);
      }
    } else if (a == "--slowest") {
      if (!ParseUint(value(), &slowest)) {
        return Usage("--slowest needs a number", kTestHelp);
      }
    } else if (a == "--gpu-config") {
      const char* v = value();
      if (!v) {
        return Usage("--gpu-config needs a preset name or a JSON file",
                     kTestHelp);
      }
      if (int rc = LoadGpuConfigArg(v, kTestHelp, &options); rc != 0) {
        return rc;
      }
    } else if (a == "--quiet") {
      quiet = true;
    } else if (!a.empty() && a[0] == '-') {
      return Usage("unknown option " + a, kTestHelp);
    } else {
      paths.push_back(a);
    }
  }
  if (paths.empty()) return Usage("test needs a file or folder", kTestHelp);
  if (!baseline_path.empty() && !save_path.empty()) {
    return Usage("--baseline and --save-baseline exclude each other",
                 kTestHelp);
  }
  if (fail_above && baseline_path.empty()) {
    return Usage("--fail-above needs --baseline", kTestHelp);
  }
  std::map<std::string, regress::SceneStats> baseline;
  if (!baseline_path.empty()) {
    auto loaded = LoadBaseline(baseline_path);
    if (!loaded.ok()) {
      std::cerr << loaded.error().ToString() << "\n";
      return 2;
    }
    baseline = std::move(*loaded);
  }
  std::vector<std::string> files;
  if (!CollectScenes(paths, &files)) return Usage("missing input", kTestHelp);
  if (files.empty()) {
    std::cerr << "warpsim: no .amber or .vkscript file under the paths\n";
    return 1;
  }

  regress::PoolOptions pool;
  pool.jobs = static_cast<int>(
      jobs != 0 ? jobs : std::max(1u, std::thread::hardware_concurrency()));
  pool.timeout_s = static_cast<double>(timeout);
  pool.progress = true;
  pool.name_of = [&files](size_t i) { return files[i]; };
  const std::vector<regress::ChildOutcome> outcomes = regress::RunInChildren(
      files.size(), [&](size_t i) { return RunOne(files[i], options); }, pool);

  std::vector<SceneResult> results(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    SceneResult& r = results[i];
    const regress::ChildOutcome& o = outcomes[i];
    r.path = files[i];
    r.folder = fs::path(files[i]).parent_path().generic_string();
    if (r.folder.empty()) r.folder = ".";
    r.seconds = o.seconds;
    if (o.ended == regress::ChildOutcome::Ended::kTimeout) {
      r.outcome = "timeout";
      r.message = o.message;
      continue;
    }
    if (o.ended == regress::ChildOutcome::Ended::kCrashed) {
      r.outcome = "crashed";
      r.message = OneLine(o.message);
      continue;
    }
    const nlohmann::json j = nlohmann::json::parse(o.result, nullptr, false);
    auto stats =
        j.is_object() && j.contains("stats")
            ? regress::StatsFromJson(j["stats"])
            : Result<regress::SceneStats>(InvalidInput("no statistics"));
    if (!stats.ok() || !j["status"].is_string()) {
      r.outcome = "crashed";
      r.message = "the scene's process wrote no readable result";
      continue;
    }
    r.outcome = j["status"].get<std::string>();
    r.message = j.value("message", "");
    r.stats = *stats;
    if (!baseline_path.empty()) {
      auto b = baseline.find(r.path);
      if (b == baseline.end()) {
        r.new_scene = true;
      } else if (r.outcome == "pass" || r.outcome == "fail") {
        r.regressions = regress::RegressionsAbove(b->second, *r.stats,
                                                  fail_above.value_or(0));
        if (b->second.status == "pass" && r.outcome != "pass" &&
            r.message.empty()) {
          r.message = "passed in the baseline";
        }
      }
    }
  }

  // Failures, one line each.
  size_t failed = 0, unsupported = 0, passed = 0, regressed = 0, fresh = 0;
  for (const SceneResult& r : results) {
    if (r.outcome == "unsupported") ++unsupported;
    if (!r.regressions.empty()) ++regressed;
    if (r.new_scene) ++fresh;
    if (Failed(r)) {
      ++failed;
      std::cout << r.path << ": " << r.outcome;
      if (!r.message.empty()) std::cout << ": " << r.message;
      std::cout << "\n";
      for (const regress::Regression& g : r.regressions) {
        std::cout << "  regressed " << JUnitDetail({.regressions = {g}})
                  << "\n";
      }
    } else if (r.outcome == "pass") {
      ++passed;
    }
  }
  if (!quiet) {
    if (failed != 0) std::cout << "\n";
    PrintSummary(results, static_cast<size_t>(slowest));
    std::cout << "\n";
  }
  std::cout << results.size() << " scenes: " << passed << " passed, " << failed
            << " failed, " << unsupported << " unsupported";
  if (!baseline_path.empty()) {
    std::cout << "; against " << baseline_path << ": " << regressed
              << " regressed above " << fail_above.value_or(0) << " %, "
              << fresh << " not in the baseline";
  }
  std::cout << "\n";

  if (!junit_path.empty()) {
    std::vector<regress::JUnitCase> cases;
    for (const SceneResult& r : results) {
      regress::JUnitCase c;
      c.suite = r.folder;
      c.name = fs::path(r.path).filename().string();
      c.seconds = r.seconds;
      c.message = r.outcome;
      if (!r.regressions.empty()) c.message += ", regressed";
      if (!r.message.empty()) c.message += ": " + r.message;
      c.detail = JUnitDetail(r);
      if (r.outcome == "unsupported") {
        c.result = regress::JUnitCase::Result::kSkipped;
      } else if (r.outcome == "fail" || !r.regressions.empty()) {
        c.result = regress::JUnitCase::Result::kFailure;
      } else if (r.outcome != "pass") {
        c.result = regress::JUnitCase::Result::kError;
      }
      cases.push_back(std::move(c));
    }
    if (!WriteFileAtomically(junit_path,
                             regress::JUnitXml("warpsim test", cases))) {
      std::cerr << "warpsim: cannot write " << junit_path << "\n";
      return 2;
    }
  }
  auto scenes_json = [&](bool all_fields) {
    nlohmann::json scenes = nlohmann::json::object();
    for (const SceneResult& r : results) {
      if (!r.stats) {
        if (all_fields)
          scenes[r.path] = {{"status", r.outcome}, {"message", r.message}};
        continue;
      }
      nlohmann::json s = regress::StatsJson(*r.stats);
      s["status"] = r.outcome;
      if (all_fields) {
        s["message"] = r.message;
        s["seconds"] = r.seconds;
        nlohmann::json regs = nlohmann::json::array();
        for (const regress::Regression& g : r.regressions) {
          regs.push_back({{"metric", g.metric},
                          {"before", g.before},
                          {"after", g.after},
                          {"percent_worse", g.percent}});
        }
        s["regressions"] = regs;
      }
      scenes[r.path] = std::move(s);
    }
    return scenes;
  };
  auto write_json = [&](const std::string& path, bool all_fields) {
    nlohmann::json j = {{"schema_version", kSchemaVersion},
                        {"tool", "warpsim test"},
                        {"timing", options.timing_mode},
                        {"scenes", scenes_json(all_fields)}};
    return WriteFileAtomically(
        path,
        j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  };
  if (!save_path.empty() && !write_json(save_path, false)) {
    std::cerr << "warpsim: cannot write " << save_path << "\n";
    return 2;
  }
  if (!json_path.empty() && !write_json(json_path, true)) {
    std::cerr << "warpsim: cannot write " << json_path << "\n";
    return 2;
  }
  return failed != 0 ? 1 : 0;
}

}  // namespace warpsim::cli
