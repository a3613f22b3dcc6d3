#include "cli/compare_command.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "regress/scene_stats.h"
#include "regress/table.h"
#include "regress/variants.h"
#include "runner/runner.h"
#include "runner/shader_build.h"

namespace warpsim::cli {
namespace {

const char kCompareHelp[] =
    "usage: warpsim compare A.amber B.amber [C.amber ...] [options]\n"
    "       warpsim compare FILE.amber -D NAME=V1,V2,... [options]\n"
    "\n"
    "Runs each variant of a scene and shows what it cost next to the\n"
    "baseline (the first variant unless --baseline names another): warp\n"
    "and lane instructions, SIMD efficiency, helper lanes, registers,\n"
    "occupancy (and with --timing cycles and stall reasons), then per\n"
    "variant its branches, widest cost first: every if, switch, loop and\n"
    "per-lane conditional branch of its shaders, with its GLSL line, how\n"
    "often it ran, how its lanes split, and what each side cost.\n"
    "The one-file form compiles every GLSL shader of FILE once per value,\n"
    "with NAME defined to it (#define NAME V); other -D's, with one value\n"
    "each, are defined for every variant (and in the several-file form,\n"
    "for every file).\n"
    "\n"
    "  -D NAME=V1,V2,...          the one-file form's values (also --define)\n"
    "  -D NAME=V                  defined for every variant\n"
    "  --timing                   run the SM timing model too: cycles, stall\n"
    "                             reasons, achieved occupancy, cycles per\n"
    "                             branch side\n"
    "  --scheduler NAME           with --timing: gto, lrr, oldest, two_level\n"
    "  --context-switch free|swap with --timing\n"
    "  --gpu-config PRESET|FILE   the GPU (default h200)\n"
    "  --baseline NAME            the variant the others are compared with: a\n"
    "                             file as given, or a value of -D\n"
    "  --fail-above PCT           exit 1 when a variant costs more than PCT %\n"
    "                             more than the baseline (cycles with\n"
    "                             --timing, else warp instructions)\n"
    "  --json FILE                write the comparison as JSON\n"
    "                             (schema_version 1)\n"
    "  --branches N               branches shown per variant (default 8; 0:\n"
    "                             none; the JSON has them all)\n"
    "  --max-warp-instructions N  stop a draw or dispatch after N\n"
    "  --shader-cache DIR|off     compiled-shader cache (as warpsim run)\n"
    "Exit codes: 0 compared, 1 a variant above --fail-above, 2 invalid\n"
    "input, 3 unsupported feature, 4 warp instruction limit reached,\n"
    "64 bad command line.\n";

constexpr int kSchemaVersion = 1;

struct Variant {
  regress::VariantSpec spec;
  runner::RunReport report;
  regress::SceneStats stats;
};

std::string Percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * share);
  return buf;
}

double Share(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0
                    : static_cast<double>(part) / static_cast<double>(whole);
}

// One branch of a variant with where it came from.
struct BranchRow {
  const runner::PipelineReport* pipeline;
  const profile::BranchCost* branch;
};

// The variant's executed branches, widest cost first (cycles with
// timing, else warp instructions spent inside; conditional branches
// without sides by executions).
std::vector<BranchRow> SortedBranches(const runner::RunReport& report,
                                      bool by_cycles) {
  std::vector<BranchRow> rows;
  for (const runner::PipelineReport& p : report.pipelines) {
    if (!p.profile) continue;
    for (const profile::BranchCost& b : p.profile->branches) {
      if (b.warp_executions > 0) rows.push_back({&p, &b});
    }
  }
  auto cost = [by_cycles](const BranchRow& r) {
    const uint64_t inside =
        by_cycles ? r.branch->cycles() : r.branch->warp_instructions();
    return std::pair{inside, r.branch->warp_executions};
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const BranchRow& a, const BranchRow& b) {
                     return cost(a) > cost(b);
                   });
  return rows;
}

// "pipeline/shader:line" (or "pc N" without lines).
std::string Where(const runner::PipelineReport& p,
                  const profile::BranchCost& b) {
  std::string s = p.name + "/" + p.shader;
  s += b.line != 0 ? ":" + std::to_string(b.line)
                   : " pc " + std::to_string(b.pc);
  return s;
}

std::string Shorten(const std::string& s, size_t n) {
  return s.size() <= n ? s : s.substr(0, n - 3) + "...";
}

// Metrics as rows, variants as columns: the baseline's value, and each
// other variant's "before -> after (+x %)".
void PrintVariants(const std::vector<Variant>& variants, size_t base,
                   bool timing) {
  std::vector<std::string> header = {"metric"};
  for (size_t v = 0; v < variants.size(); ++v) {
    header.push_back(variants[v].spec.label + (v == base ? " (baseline)" : ""));
  }
  regress::TextTable table(header);
  std::vector<std::string> status = {"status"};
  for (const Variant& v : variants) status.push_back(v.stats.status);
  table.AddRow(status);
  for (const regress::Metric& m : regress::ComparedMetrics()) {
    const std::string_view n = m.name;
    if (!timing && (n == "cycles" || n == "achieved_occupancy")) continue;
    const bool integer = n == "warp_instructions" || n == "lane_instructions" ||
                         n == "registers_per_thread" || n == "cycles";
    std::vector<std::string> row = {m.name};
    const auto before = regress::MetricValue(variants[base].stats, m);
    for (size_t v = 0; v < variants.size(); ++v) {
      const auto now = regress::MetricValue(variants[v].stats, m);
      if (!now) {
        row.push_back("-");
      } else if (v == base || !before) {
        row.push_back(regress::FormatValue(*now, integer));
      } else {
        row.push_back(regress::FormatChange(*before, *now, integer));
      }
    }
    table.AddRow(std::move(row));
  }
  std::cout << table.Render();
  if (!timing) return;
  // Where the warps' cycles went.
  std::cout << "\nwarp-cycles by state (share of each variant's):\n";
  std::vector<std::string> reasons;
  for (const Variant& v : variants) {
    for (const auto& [r, _] : v.stats.stall_cycles) {
      if (std::find(reasons.begin(), reasons.end(), r) == reasons.end()) {
        reasons.push_back(r);
      }
    }
  }
  std::vector<std::string> h = {"variant"};
  h.insert(h.end(), reasons.begin(), reasons.end());
  regress::TextTable stalls(h);
  for (const Variant& v : variants) {
    uint64_t total = 0;
    for (const auto& [_, c] : v.stats.stall_cycles) total += c;
    std::vector<std::string> row = {v.spec.label};
    for (const std::string& r : reasons) {
      auto it = v.stats.stall_cycles.find(r);
      row.push_back(Percent(
          Share(it == v.stats.stall_cycles.end() ? 0 : it->second, total)));
    }
    stalls.AddRow(std::move(row));
  }
  std::cout << stalls.Render();
}

void PrintBranches(const Variant& v, bool timing, size_t limit) {
  const std::vector<BranchRow> rows = SortedBranches(v.report, timing);
  if (rows.empty() || limit == 0) return;
  std::cout << "\nbranches of " << v.spec.label << " (" << rows.size()
            << " executed; widest first):\n";
  std::vector<std::string> header = {
      "where", "kind",  "source",     "warp exec",  "taken",       "divergent",
      "side",  "warps", "warp instr", "idle lanes", "helper lanes"};
  if (timing) header.push_back("warp-cycles");
  regress::TextTable table(header);
  // Shares of the variant's profiled warp instructions and cycles.
  uint64_t total_instructions = 0, total_cycles = 0;
  for (const runner::PipelineReport& p : v.report.pipelines) {
    if (!p.profile) continue;
    total_instructions += p.profile->warp_instructions;
    total_cycles += p.profile->cycles;
  }
  for (size_t i = 0; i < rows.size() && i < limit; ++i) {
    const profile::BranchCost& b = *rows[i].branch;
    std::string exec = std::to_string(b.warp_executions);
    char trips[32];
    std::snprintf(trips, sizeof trips, "%.1f trips",
                  Share(b.warp_trips, b.warp_executions));
    std::string taken = b.kind == profile::BranchKind::kLoop
                            ? std::string(trips)
                            : Percent(Share(b.taken_lanes, b.lane_executions));
    std::vector<std::string> first = {
        Where(*rows[i].pipeline, b),
        profile::BranchKindName(b.kind),
        Shorten(b.source, 36),
        exec,
        taken,
        Percent(Share(b.divergent_executions, b.warp_executions))};
    if (b.sides.empty()) {
      first.resize(header.size(), "");
      table.AddRow(first);
      continue;
    }
    for (size_t s = 0; s < b.sides.size(); ++s) {
      const profile::SideCost& side = b.sides[s];
      std::vector<std::string> row =
          s == 0 ? first : std::vector<std::string>(6, "");
      row.push_back(side.name);
      row.push_back(std::to_string(side.warps));
      row.push_back(std::to_string(side.warp_instructions) + " (" +
                    Percent(Share(side.warp_instructions, total_instructions)) +
                    ")");
      row.push_back(std::to_string(side.idle_lanes));
      row.push_back(std::to_string(side.helper_lane_instructions));
      if (timing) {
        row.push_back(std::to_string(side.cycles) + " (" +
                      Percent(Share(side.cycles, total_cycles)) + ")");
      }
      table.AddRow(std::move(row));
    }
  }
  std::cout << table.Render();
  if (rows.size() > limit) {
    std::cout << "(" << rows.size() - limit
              << " more; --branches N or --json shows them)\n";
  }
}

nlohmann::json CompareJson(const std::vector<Variant>& variants, size_t base,
                           bool timing, std::optional<double> fail_above,
                           const std::vector<std::string>& exceeded) {
  nlohmann::json j;
  j["schema_version"] = kSchemaVersion;
  j["tool"] = "warpsim compare";
  j["timing"] = timing;
  j["cost_metric"] = timing ? "cycles" : "warp_instructions";
  j["baseline"] = variants[base].spec.name;
  j["fail_above_percent"] =
      fail_above ? nlohmann::json(*fail_above) : nlohmann::json(nullptr);
  j["exceeded"] = exceeded;
  nlohmann::json vs = nlohmann::json::array();
  for (const Variant& v : variants) {
    nlohmann::json e = regress::StatsJson(v.stats);
    e["name"] = v.spec.name;
    e["file"] = v.spec.file;
    if (v.spec.varying) {
      e["define"] = {{"name", v.spec.varying->first},
                     {"value", v.spec.varying->second}};
    }
    e["defines"] = v.spec.defines;
    nlohmann::json ratio = nlohmann::json::object();
    for (const regress::Metric& m : regress::ComparedMetrics()) {
      const auto now = regress::MetricValue(v.stats, m);
      const auto before = regress::MetricValue(variants[base].stats, m);
      if (now && before && *before != 0) ratio[m.name] = *now / *before;
    }
    e["ratio_to_baseline"] = ratio;
    if (v.report.diagnostic) e["diagnostic"] = v.report.diagnostic->ToString();
    nlohmann::json pipes = nlohmann::json::array();
    nlohmann::json branches = nlohmann::json::array();
    for (const runner::PipelineReport& p : v.report.pipelines) {
      pipes.push_back({{"name", p.name},
                       {"stage", p.stage},
                       {"shader", p.shader},
                       {"registers_per_thread", p.registers_per_thread}});
      if (!p.profile) continue;
      for (nlohmann::json b : profile::BranchesJson(*p.profile)) {
        b["pipeline"] = p.name;
        b["stage"] = p.stage;
        b["shader"] = p.shader;
        branches.push_back(std::move(b));
      }
    }
    e["pipelines"] = std::move(pipes);
    e["branches"] = std::move(branches);
    vs.push_back(std::move(e));
  }
  j["variants"] = std::move(vs);
  return j;
}

}  // namespace

int CompareCommand(int argc, char** argv) {
  std::vector<std::string> files;
  std::vector<std::string> define_args;
  std::string json_path, baseline;
  std::optional<double> fail_above;
  std::optional<sm::SchedulerPolicy> scheduler;
  std::optional<sm::ContextSwitch> context_switch;
  uint64_t branch_rows = 8;
  runner::RunOptions options;
  options.shader_cache_dir = runner::DefaultShaderCacheDir();
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
      if (!v) return Usage(a + " needs NAME=V1,V2,...", kCompareHelp);
      define_args.push_back(v);
    } else if (a.rfind("-D", 0) == 0 && a.size() > 2) {
      define_args.push_back(a.substr(2));
    } else if (a == "--timing") {
      options.timing_mode = true;
    } else if (a == "--scheduler") {
      const char* v = value();
      sm::SchedulerPolicy p;
      if (!v || !sm::ParseScheduler(v, &p)) {
        return Usage("--scheduler needs gto, lrr, oldest or two_level",
                     kCompareHelp);
      }
      scheduler = p;
    } else if (a == "--context-switch") {
      const char* v = value();
      sm::ContextSwitch c;
      if (!v || !sm::ParseContextSwitch(v, &c)) {
        return Usage("--context-switch needs free or swap", kCompareHelp);
      }
      context_switch = c;
    } else if (a == "--gpu-config") {
      const char* v = value();
      if (!v) {
        return Usage("--gpu-config needs a preset name or a JSON file",
                     kCompareHelp);
      }
      if (int rc = LoadGpuConfigArg(v, kCompareHelp, &options); rc != 0) {
        return rc;
      }
    } else if (a == "--baseline") {
      const char* v = value();
      if (!v || *v == 0)
        return Usage("--baseline needs a variant", kCompareHelp);
      baseline = v;
    } else if (a == "--fail-above") {
      const char* v = value();
      char* end = nullptr;
      const double pct = v ? std::strtod(v, &end) : -1;
      if (!v || end == v || *end != 0 || !(pct >= 0) || pct > 1e9) {
        return Usage("--fail-above needs a percentage (a number >= 0)",
                     kCompareHelp);
      }
      fail_above = pct;
    } else if (a == "--json") {
      const char* v = value();
      if (!v || *v == 0) return Usage("--json needs a file name", kCompareHelp);
      json_path = v;
    } else if (a == "--branches") {
      if (!ParseUint(value(), &branch_rows)) {
        return Usage("--branches needs a number", kCompareHelp);
      }
    } else if (a == "--max-warp-instructions") {
      uint64_t n = 0;
      if (!ParseUint(value(), &n)) {
        return Usage("--max-warp-instructions needs a number", kCompareHelp);
      }
      options.max_warp_instructions = n;
    } else if (a == "--shader-cache") {
      const char* v = value();
      if (!v || *v == 0) {
        return Usage("--shader-cache needs a directory or off", kCompareHelp);
      }
      options.shader_cache_dir = std::string(v) == "off" ? "" : v;
    } else if (!a.empty() && a[0] == '-') {
      return Usage("unknown option " + a, kCompareHelp);
    } else {
      files.push_back(a);
    }
  }
  if (!options.timing_mode && (scheduler || context_switch)) {
    return Usage("--scheduler and --context-switch need --timing",
                 kCompareHelp);
  }
  if (scheduler) options.timing.scheduler = *scheduler;
  if (context_switch) options.timing.context_switch = *context_switch;
  options.profile_branches = true;
  options.shader_debug_info = true;  // branches name their GLSL lines
  options.threads = 1;               // the profile sees one thread

  auto specs = regress::MakeVariants(files, define_args);
  if (!specs.ok()) return Usage(specs.error().message, kCompareHelp);
  size_t base = 0;
  if (!baseline.empty()) {
    const auto found = regress::FindVariant(*specs, baseline);
    if (!found) {
      return Usage("--baseline " + baseline + " names no variant",
                   kCompareHelp);
    }
    base = *found;
  }
  std::vector<Variant> variants;
  for (regress::VariantSpec& spec : *specs) {
    variants.push_back({.spec = std::move(spec)});
  }

  // Run them, one after another.
  int worst = 0;
  for (Variant& v : variants) {
    runner::RunOptions o = options;
    o.glsl_defines = v.spec.defines;
    v.report = runner::RunAmberFile(v.spec.file, o);
    v.stats = regress::StatsOf(v.report, options);
    const runner::RunStatus st = v.report.status;
    if (st == runner::RunStatus::kInvalid ||
        st == runner::RunStatus::kUnsupported ||
        st == runner::RunStatus::kLimitExceeded) {
      std::cerr << "warpsim: variant " << v.spec.name << ": "
                << runner::RunStatusName(st) << ": "
                << (v.report.diagnostic ? v.report.diagnostic->ToString()
                                        : std::string("(no message)"))
                << "\n";
      worst = std::max(worst, runner::ExitCodeFor(st));
    }
  }
  if (worst != 0) return worst;  // nothing to compare

  std::vector<std::string> exceeded;
  if (fail_above) {
    const double before =
        regress::CostOf(variants[base].stats, options.timing_mode);
    for (size_t v = 0; v < variants.size(); ++v) {
      const double now =
          regress::CostOf(variants[v].stats, options.timing_mode);
      if (v != base && regress::PercentChange(before, now) > *fail_above) {
        exceeded.push_back(variants[v].spec.name);
      }
    }
  }
  PrintVariants(variants, base, options.timing_mode);
  for (const Variant& v : variants) {
    PrintBranches(v, options.timing_mode, branch_rows);
  }
  for (const Variant& v : variants) {
    if (v.report.status == runner::RunStatus::kFail) {
      std::cout << "note: " << v.spec.name
                << " failed an EXPECT (its output differs; its costs are "
                   "still compared)\n";
    }
  }
  if (!json_path.empty()) {
    const nlohmann::json j =
        CompareJson(variants, base, options.timing_mode, fail_above, exceeded);
    if (!WriteFileAtomically(
            json_path,
            j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                "\n")) {
      std::cerr << "warpsim: cannot write " << json_path << "\n";
      return 2;
    }
  }
  if (!exceeded.empty()) {
    for (const std::string& name : exceeded) {
      std::cout << "FAIL: " << name << " costs more than " << *fail_above
                << " % more than " << variants[base].spec.name << " ("
                << (options.timing_mode ? "cycles" : "warp instructions")
                << ")\n";
    }
    return 1;
  }
  return 0;
}

}  // namespace warpsim::cli
