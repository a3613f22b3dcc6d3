// The warpsim command-line tool: `warpsim run` executes an AmberScript file
// and checks its expectations; `warpsim disasm` shows a shader's SPIR-V and
// the lowered warp program with its registers per thread; `warpsim
// occupancy` applies the occupancy rules (cli/occupancy_command.cpp).
//
// Exit codes: 0 all expectations pass; 1 an expectation failed; 2 invalid
// input; 3 unsupported feature; 4 the warp instruction limit stopped the run;
// 5 out of memory; 64 bad command line; 70 internal error.
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "cli/compare_command.h"
#include "cli/occupancy_command.h"
#include "cli/test_command.h"
#include "runner/png_writer.h"
#include "runner/registers_file.h"
#include "runner/runner.h"
#include "runner/shader_build.h"
#include "scene/amber_parser.h"
#include "simt/disasm.h"
#include "spirv/disassemble.h"

namespace {

using warpsim::cli::kExitUsage;
using warpsim::cli::LoadGpuConfigArg;
using warpsim::cli::ParseUint;
using warpsim::cli::Usage;
using warpsim::cli::WriteFileAtomically;

constexpr int kExitOutOfMemory = 5;
constexpr int kExitInternal = 70;

const char kMainHelp[] =
    "warpsim: runs SPIR-V shaders the way a GPU does, in 32-lane warps.\n"
    "\n"
    "usage: warpsim <command> [options]\n"
    "\n"
    "commands:\n"
    "  run FILE.amber     run an AmberScript file and check its EXPECTs\n"
    "  disasm FILE        show SPIR-V and the lowered warp program\n"
    "  occupancy          blocks and warps per SM for registers, threads\n"
    "                     and shared memory (CUDA's rules, the GPU config)\n"
    "  compare A B ...    what variants of a scene cost, per branch\n"
    "  test PATH...       run every scene under PATHs in parallel, against\n"
    "                     a baseline; JUnit XML\n"
    "\n"
    "Run `warpsim <command> --help` for a command's options.\n"
    "Exit codes: 0 pass, 1 expectation failed, 2 invalid input,\n"
    "3 unsupported feature, 4 warp instruction limit reached, 5 out of\n"
    "memory, 64 bad command line, 70 internal error.\n";

const char kRunHelp[] =
    "usage: warpsim run FILE.amber [--out DIR] [--json REPORT.json]\n"
    "                   [--gpu-config PRESET|FILE.json]\n"
    "                   [--warp-width N] [--max-warp-instructions N] "
    "[--quiet]\n"
    "                   [--shader-cache DIR|off] [--threads N]\n"
    "                   [--timing [--scheduler gto|lrr|oldest|two_level]\n"
    "                    [--context-switch free|swap] [--trace TRACE.json]\n"
    "                    [--trace-detail summary|warps|instructions]\n"
    "                    [--trace-max-events N] [--csv DIR]\n"
    "                    [--regs-per-thread N] [--registers-from "
    "REPORT.json]]\n"
    "\n"
    "Runs the script's commands and checks every EXPECT.\n"
    "  --out DIR                  write outputs into DIR: report.json and\n"
    "                             every colour attachment as NAME.png\n"
    "  --json FILE                write the JSON report to FILE\n"
    "  --gpu-config PRESET|FILE   the GPU description: preset h200 (default)\n"
    "                             or teaching, or a JSON file with any of\n"
    "                             preset, warp_width,\n"
    "                             vertex_batch_primitives,\n"
    "                             vertex_reuse_window,\n"
    "                             tile_size, quad_packing\n"
    "                             (per_primitive|mixed|tiles), open_tiles,\n"
    "                             derivatives (fine|coarse),\n"
    "                             kill (terminate|demote),\n"
    "                             max_warp_instructions, sm (an object:\n"
    "                             the SM limits `warpsim occupancy` uses),\n"
    "                             timing (an object: the timing model's\n"
    "                             clock, pipes, memory and scheduler)\n"
    "  --warp-width N             lanes per warp, 1..32 (default 32)\n"
    "  --max-warp-instructions N  stop a dispatch or draw after N warp\n"
    "                             instructions (exit code 4)\n"
    "                             (default 4000000000)\n"
    "  --quiet                    print only failures\n"
    "  --shader-cache DIR|off     where compiled shaders are cached (default\n"
    "                             $WARPSIM_SHADER_CACHE, else\n"
    "                             $XDG_CACHE_HOME/warpsim, else\n"
    "                             ~/.cache/warpsim); off: compile every time\n"
    "  --threads N                host threads that shade warps (default 0:\n"
    "                             every core); the results are the same for\n"
    "                             any N\n"
    "  --timing                   timing mode: the SM timing model runs every\n"
    "                             draw and dispatch (one host thread); the\n"
    "                             same images, buffers and EXPECT results,\n"
    "                             and the report gains cycles, IPC,\n"
    "                             occupancy and stall reasons (\"timing\",\n"
    "                             and per draw and dispatch)\n"
    "  --scheduler NAME           warp scheduler: gto (greedy then oldest),\n"
    "                             lrr (loose round robin), oldest,\n"
    "                             two_level (default: the GPU config's;\n"
    "                             h200: lrr)\n"
    "  --context-switch free|swap free: a waiting warp costs nothing (its\n"
    "                             registers stay in the register file);\n"
    "                             swap: charge saving and restoring them\n"
    "  --trace FILE               write a Chrome trace-event JSON of the\n"
    "                             timing run (open it in ui.perfetto.dev or\n"
    "                             warpsim-viz --open); GLSL is compiled with\n"
    "                             debug information for its source lines\n"
    "  --trace-detail LEVEL       summary (counters), warps (default: and a\n"
    "                             slice per resident warp, register\n"
    "                             allocations), instructions (and every\n"
    "                             issued instruction)\n"
    "  --trace-max-events N       at most N instruction events (default\n"
    "                             1000000)\n"
    "  --csv DIR                  write the timing figures as CSV: "
    "DIR/sms.csv\n"
    "                             (one row per SM) and DIR/runs.csv (one row\n"
    "                             per draw and dispatch)\n"
    "  --regs-per-thread N        give every warp N registers per thread\n"
    "                             instead of the register model's estimate\n"
    "                             (what-if studies of occupancy)\n"
    "  --registers-from FILE      take each pipeline's registers per thread,\n"
    "                             per stage, from a warpsim-vkref report\n"
    "                             (the driver's \"Register Count\"); other\n"
    "                             pipelines keep the estimate\n"
    "Exit codes: 0 all expectations pass, 1 an expectation failed,\n"
    "2 invalid input (diagnostic with its position on stderr),\n"
    "3 unsupported feature (named on stderr), 4 --max-warp-instructions\n"
    "stopped a dispatch or draw (a shader may not terminate), 5 out of\n"
    "memory, 64 bad command line, 70 internal error.\n";

const char kDisasmHelp[] =
    "usage: warpsim disasm FILE [--entry NAME] [--spirv-only]\n"
    "\n"
    "FILE is .amber (every shader of the script, PASSTHROUGH vertex shaders\n"
    "as the run compiles them), .spv, .spvasm or\n"
    "GLSL (.comp/.vert/.frag). Prints the SPIR-V module, then the lowered "
    "warp\n"
    "program with its registers per thread.\n";

int RunCommand(int argc, char** argv) {
  std::string file, out_dir, json_path, trace_path, csv_dir, registers_from;
  std::optional<warpsim::sm::SchedulerPolicy> scheduler;
  std::optional<warpsim::sm::ContextSwitch> context_switch;
  bool trace_options = false;  // a --trace* option was given
  bool quiet = false;
  warpsim::runner::RunOptions options;
  options.shader_cache_dir = warpsim::runner::DefaultShaderCacheDir();
  options.threads = 0;  // every core
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) return nullptr;
      (void)name;
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::cout << kRunHelp;
      return 0;
    } else if (a == "--out") {
      const char* v = value("--out");
      if (!v) return Usage("--out needs a directory", kRunHelp);
      out_dir = v;
    } else if (a == "--json") {
      const char* v = value("--json");
      if (!v) return Usage("--json needs a file name", kRunHelp);
      json_path = v;
    } else if (a == "--gpu-config") {
      const char* v = value("--gpu-config");
      if (!v)
        return Usage("--gpu-config needs a preset name or a JSON file",
                     kRunHelp);
      if (int rc = LoadGpuConfigArg(v, kRunHelp, &options); rc != 0) {
        return rc;
      }
    } else if (a == "--warp-width") {
      uint64_t n = 0;
      if (!ParseUint(value("--warp-width"), &n) || n < 1 || n > 32) {
        return Usage("--warp-width needs a number from 1 to 32", kRunHelp);
      }
      options.warp_width = static_cast<uint32_t>(n);
    } else if (a == "--max-warp-instructions") {
      uint64_t n = 0;
      if (!ParseUint(value("--max-warp-instructions"), &n)) {
        return Usage("--max-warp-instructions needs a number", kRunHelp);
      }
      options.max_warp_instructions = n;
    } else if (a == "--threads") {
      uint64_t n = 0;
      if (!ParseUint(value("--threads"), &n) || n > 1024) {
        return Usage("--threads needs a number from 0 (every core) to 1024",
                     kRunHelp);
      }
      options.threads = static_cast<uint32_t>(n);
    } else if (a == "--timing") {
      options.timing_mode = true;
    } else if (a == "--scheduler") {
      const char* v = value("--scheduler");
      warpsim::sm::SchedulerPolicy p;
      if (!v || !warpsim::sm::ParseScheduler(v, &p)) {
        return Usage("--scheduler needs gto, lrr, oldest or two_level",
                     kRunHelp);
      }
      scheduler = p;
    } else if (a == "--context-switch") {
      const char* v = value("--context-switch");
      warpsim::sm::ContextSwitch c;
      if (!v || !warpsim::sm::ParseContextSwitch(v, &c)) {
        return Usage("--context-switch needs free or swap", kRunHelp);
      }
      context_switch = c;
    } else if (a == "--trace") {
      const char* v = value("--trace");
      if (!v || *v == 0) return Usage("--trace needs a file name", kRunHelp);
      trace_path = v;
      // The trace's shader listings carry GLSL source lines (warpsim-viz).
      options.shader_debug_info = true;
      trace_options = true;
    } else if (a == "--csv") {
      const char* v = value("--csv");
      if (!v || *v == 0) return Usage("--csv needs a directory", kRunHelp);
      csv_dir = v;
      trace_options = true;
    } else if (a == "--trace-detail") {
      const char* v = value("--trace-detail");
      if (!v || !warpsim::trace::ParseDetail(v, &options.trace_detail)) {
        return Usage("--trace-detail needs summary, warps or instructions",
                     kRunHelp);
      }
      trace_options = true;
    } else if (a == "--trace-max-events") {
      uint64_t n = 0;
      if (!ParseUint(value("--trace-max-events"), &n)) {
        return Usage("--trace-max-events needs a number", kRunHelp);
      }
      options.trace_max_events = n;
      trace_options = true;
    } else if (a == "--regs-per-thread") {
      uint64_t n = 0;
      if (!ParseUint(value("--regs-per-thread"), &n) || n < 1 || n > 4096) {
        return Usage("--regs-per-thread needs a number from 1 to 4096",
                     kRunHelp);
      }
      options.regs_per_thread = static_cast<uint32_t>(n);
      trace_options = true;
    } else if (a == "--registers-from") {
      const char* v = value("--registers-from");
      if (!v || *v == 0) {
        return Usage("--registers-from needs a report file", kRunHelp);
      }
      registers_from = v;
      trace_options = true;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (a == "--shader-cache") {
      const char* v = value("--shader-cache");
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
  if (!options.timing_mode && (trace_options || scheduler || context_switch)) {
    return Usage(
        "--scheduler, --context-switch, --trace*, --csv, --regs-per-thread "
        "and --registers-from need --timing",
        kRunHelp);
  }
  if (options.regs_per_thread > options.sm.max_registers_per_thread) {
    return Usage("--regs-per-thread " +
                     std::to_string(options.regs_per_thread) +
                     " is more than the GPU configuration's "
                     "sm.max_registers_per_thread (" +
                     std::to_string(options.sm.max_registers_per_thread) + ")",
                 kRunHelp);
  }
  if (!registers_from.empty()) {
    auto regs = warpsim::runner::LoadPipelineRegisters(registers_from);
    if (!regs.ok()) {
      std::cerr << regs.error().ToString() << "\n";
      return 2;
    }
    options.pipeline_registers = std::move(*regs);
  }
  // (After the loop: a later --gpu-config does not undo them.)
  if (scheduler) options.timing.scheduler = *scheduler;
  if (context_switch) options.timing.context_switch = *context_switch;

  const warpsim::runner::RunReport report =
      warpsim::runner::RunAmberFile(file, options);
  const int code = warpsim::runner::ExitCodeFor(report.status);
  for (const auto& e : report.expectations) {
    if (!e.passed) {
      std::cerr << file << ":" << e.line
                << ": expectation failed: " << e.message << "\n";
    }
  }
  if (report.diagnostic) std::cerr << report.diagnostic->ToString() << "\n";

  const std::string json = warpsim::runner::ReportToJson(report);
  std::vector<std::string> written;
  if (!out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) {
      std::cerr << "warpsim: cannot create output directory " << out_dir << ": "
                << ec.message() << "\n";
      return 2;
    }
    const std::string path =
        (std::filesystem::path(out_dir) / "report.json").string();
    if (!WriteFileAtomically(path, json)) {
      std::cerr << "warpsim: cannot write " << path << "\n";
      return 2;
    }
    written.push_back(path);
    // Every colour attachment the script drew into, as PNG.
    for (const auto& image : report.images) {
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
    const auto parent = std::filesystem::path(json_path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (!WriteFileAtomically(json_path, json)) {
      std::cerr << "warpsim: cannot write " << json_path << "\n";
      return 2;
    }
    written.push_back(json_path);
  }
  if (!csv_dir.empty() && report.timing) {
    std::error_code ec;
    std::filesystem::create_directories(csv_dir, ec);
    for (const auto& [name, text] :
         {std::pair{"sms.csv", warpsim::runner::TimingSmsCsv(report)},
          std::pair{"runs.csv", warpsim::runner::TimingRunsCsv(report)}}) {
      const std::string path = (std::filesystem::path(csv_dir) / name).string();
      if (!WriteFileAtomically(path, text)) {
        std::cerr << "warpsim: cannot write " << path << "\n";
        return 2;
      }
      written.push_back(path);
    }
  }
  if (!trace_path.empty() && report.trace) {
    const auto parent = std::filesystem::path(trace_path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    const warpsim::Status s =
        warpsim::trace::WriteChromeTrace(*report.trace, trace_path);
    if (!s.ok()) {
      std::cerr << s.error().ToString() << "\n";
      return 2;
    }
    written.push_back(trace_path);
  }
  if (!quiet || code != 0) {
    size_t passed = 0;
    for (const auto& e : report.expectations) passed += e.passed ? 1 : 0;
    std::cout << file << ": " << warpsim::runner::RunStatusName(report.status)
              << " (" << passed << "/" << report.expectations.size()
              << " expectations passed, " << report.stats.warp_instructions
              << " warp instructions, " << report.stats.lane_instructions
              << " lane instructions, " << report.stats.host_seconds << " s)\n";
    for (const auto& p : report.pipelines) {
      std::cout << "  pipeline " << p.name << " " << p.stage << " shader "
                << p.shader << ": " << p.registers_per_thread
                << " registers/thread, " << p.instructions << " instructions\n";
    }
    if (report.timing) {
      const warpsim::runner::TimingReport& t = *report.timing;
      std::cout << "  timing: " << t.cycles << " cycles ("
                << (t.clock_mhz > 0
                        ? static_cast<double>(t.cycles) / t.clock_mhz
                        : 0.0)
                << " us at " << t.clock_mhz << " MHz), scheduler "
                << t.scheduler << ", context switch " << t.context_switch
                << "\n";
      for (size_t i = 0; i < report.draws.size(); ++i) {
        if (!report.draws[i].timing) continue;
        const auto& d = *report.draws[i].timing;
        std::cout << "  draw " << i << ": " << d.cycles << " cycles, IPC "
                  << d.ipc << " per SM on " << d.sms_used << " SMs, occupancy "
                  << d.achieved_occupancy << " achieved of "
                  << d.theoretical_occupancy << " (" << d.limiter << ")\n";
      }
      for (size_t i = 0; i < report.dispatches.size(); ++i) {
        if (!report.dispatches[i].timing) continue;
        const auto& d = *report.dispatches[i].timing;
        std::cout << "  dispatch " << i << ": " << d.cycles << " cycles, IPC "
                  << d.ipc << " per SM on " << d.sms_used << " SMs, occupancy "
                  << d.achieved_occupancy << " achieved of "
                  << d.theoretical_occupancy << " (" << d.limiter << ")\n";
      }
    }
    for (const auto& w : written) std::cout << "  wrote " << w << "\n";
  }
  return code;
}

// The execution model a scene shader is lowered for (as `run` lowers it).
std::optional<spv::ExecutionModel> ExecutionModelOf(
    warpsim::scene::ShaderStage stage) {
  switch (stage) {
    case warpsim::scene::ShaderStage::kVertex:
      return spv::ExecutionModel::Vertex;
    case warpsim::scene::ShaderStage::kFragment:
      return spv::ExecutionModel::Fragment;
    case warpsim::scene::ShaderStage::kCompute:
      return spv::ExecutionModel::GLCompute;
    default:
      return std::nullopt;
  }
}

int DisasmCommand(int argc, char** argv) {
  std::string file, entry = "main";
  bool spirv_only = false;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << kDisasmHelp;
      return 0;
    } else if (a == "--entry") {
      if (i + 1 >= argc) return Usage("--entry needs a name", kDisasmHelp);
      entry = argv[++i];
    } else if (a == "--spirv-only") {
      spirv_only = true;
    } else if (!a.empty() && a[0] == '-') {
      return Usage("unknown option " + a, kDisasmHelp);
    } else if (file.empty()) {
      file = a;
    } else {
      return Usage("more than one input file", kDisasmHelp);
    }
  }
  if (file.empty()) return Usage("disasm needs a file", kDisasmHelp);

  struct Item {
    std::string title;
    std::vector<uint32_t> words;
    warpsim::spirv::TargetEnv env;
    std::string entry;
    std::optional<spv::ExecutionModel> model;  // unset: by entry name only
  };
  std::vector<Item> items;
  auto fail = [](const warpsim::Diagnostic& d) {
    std::cerr << d.ToString() << "\n";
    return d.kind == warpsim::ErrorKind::kUnsupported ? 3 : 2;
  };
  if (file.size() > 6 && file.substr(file.size() - 6) == ".amber") {
    auto scene = warpsim::scene::ParseAmberFile(file);
    if (!scene.ok()) return fail(scene.error());
    for (const auto& shader : scene->shaders) {
      auto words = warpsim::runner::ShaderWords(shader, *scene);
      if (!words.ok()) return fail(words.error());
      auto env = warpsim::runner::ShaderTargetEnv(shader, &*scene);
      if (!env.ok()) return fail(env.error());
      std::string shader_entry = "main";
      for (const auto& p : scene->pipelines) {
        for (const auto& att : p.shaders) {
          if (att.shader == shader.name) shader_entry = att.entry_point;
        }
      }
      items.push_back({"shader " + shader.name, *words, *env, shader_entry,
                       ExecutionModelOf(shader.stage)});
    }
  } else {
    warpsim::spirv::ShaderStage stage = warpsim::spirv::ShaderStage::kCompute;
    auto words = warpsim::runner::WordsFromFile(file, &stage);
    if (!words.ok()) return fail(words.error());
    items.push_back(
        {file, *words, warpsim::spirv::TargetEnv::kSpv1_6, entry, {}});
  }
  for (const Item& item : items) {
    std::cout << "==== " << item.title << " (SPIR-V) ====\n"
              << warpsim::spirv::Disassemble(item.words) << "\n";
    if (spirv_only) continue;
    warpsim::simt::LowerOptions lower;
    lower.entry_point = item.entry;
    lower.model = item.model;
    warpsim::runner::BuildSettings settings;
    settings.validate.relax_block_layout = true;
    auto built = warpsim::runner::BuildProgram(item.words, item.env, file,
                                               lower, settings);
    if (!built.ok()) return fail(built.error());
    std::cout << "==== " << item.title << " (warp program) ====\n"
              << warpsim::simt::DisassembleProgram(built->program) << "\n";
  }
  return 0;
}

}  // namespace

namespace {

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
  if (cmd == "disasm") return DisasmCommand(argc - 2, argv + 2);
  if (cmd == "compare") return warpsim::cli::CompareCommand(argc - 2, argv + 2);
  if (cmd == "test") return warpsim::cli::TestCommand(argc - 2, argv + 2);
  if (cmd == "occupancy") {
    return warpsim::cli::OccupancyCommand(argc - 2, argv + 2);
  }
  return Usage("unknown command " + cmd, kMainHelp);
}

}  // namespace

// No exception leaves main: the modules report errors as Results, so an
// exception here is either memory running out (an input asking for absurd
// sizes) or a bug; either way the process ends with a message and its own
// exit code instead of aborting.
int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "warpsim: out of memory (the input asks for more memory "
                 "than this machine can give)\n";
    return kExitOutOfMemory;
  } catch (const std::exception& e) {
    std::cerr << "warpsim: internal error: unexpected exception: " << e.what()
              << "\n";
    return kExitInternal;
  } catch (...) {
    std::cerr << "warpsim: internal error: unexpected exception\n";
    return kExitInternal;
  }
}
