// `warpsim run --timing` (emulator/cli/main.cpp, runner's timing mode):
// the same images and report as functional mode plus the timing fields,
// the same output twice, the trace file, and the options' errors.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/temp_dir.h"
#include "common/test_util.h"

namespace {

namespace fs = std::filesystem;
using warpsim::testing::RunCommand;

// One directory for the file's outputs, removed at exit.
std::string TempDir() {
  static const warpsim::testing::TempDir dir("warpsim_timing_cli_test");
  return dir.str();
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

warpsim::testing::CommandResult Warpsim(const std::string& args) {
  return RunCommand(std::string(WARPSIM_BINARY) + " " + args +
                    " --shader-cache off");
}

std::vector<std::string> Samples() {
  std::vector<std::string> files;
  for (const char* dir : {"samples/graphics", "samples/compute"}) {
    for (const auto& e :
         fs::directory_iterator(fs::path(WARPSIM_SOURCE_DIR) / dir)) {
      if (e.path().extension() == ".amber") files.push_back(e.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Every key of the functional entry, with its value, except the run's
// host time.
void CheckSameFields(const nlohmann::json& functional,
                     const nlohmann::json& timed) {
  for (const auto& [key, value] : functional.items()) {
    if (key == "host_seconds") continue;
    INFO(key);
    REQUIRE(timed.contains(key));
    CHECK(timed[key] == value);
  }
}

}  // namespace

TEST_CASE(
    "timing mode gives functional mode's images and report, plus "
    "cycles",
    "[runner][cli][timing]") {
  for (const std::string& file : Samples()) {
    INFO(file);
    const std::string name = fs::path(file).stem().string();
    const std::string f_dir = TempDir() + "/f_" + name;
    const std::string t_dir = TempDir() + "/t_" + name;
    const auto f = Warpsim("run " + file + " --out " + f_dir);
    const auto t = Warpsim("run " + file + " --timing --out " + t_dir);
    INFO(t.output);
    REQUIRE(f.exit_code == 0);
    REQUIRE(t.exit_code == 0);
    for (const auto& e : fs::directory_iterator(f_dir)) {
      if (e.path().extension() != ".png") continue;
      const std::string png = e.path().filename().string();
      INFO(png);
      CHECK(Slurp(f_dir + "/" + png) == Slurp(t_dir + "/" + png));
    }
    const auto fr = nlohmann::json::parse(Slurp(f_dir + "/report.json"));
    const auto tr = nlohmann::json::parse(Slurp(t_dir + "/report.json"));
    CHECK(!fr.contains("timing"));
    REQUIRE(tr.contains("timing"));
    CHECK(tr["timing"]["cycles"].get<uint64_t>() > 0);
    // The h200 preset's scheduler (set from cuda_ref's E18 record).
    CHECK(tr["timing"]["scheduler"] == "lrr");
    CHECK(!tr["timing"]["sms"].empty());
    CheckSameFields(fr["stats"], tr["stats"]);
    for (const char* list : {"draws", "dispatches"}) {
      REQUIRE(fr[list].size() == tr[list].size());
      for (size_t i = 0; i < fr[list].size(); ++i) {
        CheckSameFields(fr[list][i], tr[list][i]);
        const auto& d = tr[list][i];
        CHECK(d["cycles"].get<uint64_t>() > 0);
        CHECK(d["ipc"].get<double>() > 0);
        CHECK(d["achieved_occupancy"].get<double>() > 0);
        CHECK(d["achieved_occupancy"].get<double>() <=
              d["theoretical_occupancy"].get<double>() + 1e-9);
        // Every warp-cycle is in one state; the selected ones are the
        // issued instructions (a fused pair issues once) and the
        // predicated-off ones.
        CHECK(d["stall_cycles"]["selected"].get<uint64_t>() -
                  d["predicated_off_instructions"].get<uint64_t>() -
                  d["reconvergence_instructions"].get<uint64_t>() -
                  d["loop_entry_instructions"].get<uint64_t>() -
                  d["selection_move_instructions"].get<uint64_t>() +
                  d["predicated_branches"].get<uint64_t>() +
                  d["fused_instructions"].get<uint64_t>() +
                  d["layout_branches"].get<uint64_t>() +
                  d["unrolled_loop_instructions"].get<uint64_t>() +
                  d["bubble_instructions"].get<uint64_t>() +
                  d["redundant_instructions"].get<uint64_t>() +
                  d["register_moves"].get<uint64_t>() ==
              d["warp_instructions"].get<uint64_t>());
      }
    }
  }
}

TEST_CASE("timing mode writes the same report and trace twice",
          "[runner][cli][timing]") {
  const std::string file = std::string(WARPSIM_SOURCE_DIR) +
                           "/samples/graphics/divergent_branches.amber";
  std::string reports[2], traces[2];
  for (int k = 0; k < 2; ++k) {
    const std::string dir = TempDir() + "/twice" + std::to_string(k);
    const auto r = Warpsim("run " + file + " --timing --trace " + dir +
                           "/trace.json --trace-detail instructions --json " +
                           dir + "/report.json");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    auto report = nlohmann::json::parse(Slurp(dir + "/report.json"));
    report["stats"].erase("host_seconds");
    reports[k] = report.dump();
    traces[k] = Slurp(dir + "/trace.json");
  }
  CHECK(reports[0] == reports[1]);
  CHECK(traces[0] == traces[1]);
  // The trace has a slice per resident warp and per issued instruction.
  const auto trace = nlohmann::json::parse(traces[0]);
  const auto report = nlohmann::json::parse(reports[0]);
  size_t warp_slices = 0, instruction_slices = 0;
  std::map<std::string, uint64_t> first_cycle;  // run name -> its start
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e.contains("args") &&
        !e["args"].contains("registers") && !e["args"].contains("pc")) {
      first_cycle[e["name"]] = e["ts"];
    }
  }
  REQUIRE(first_cycle.size() == 2);
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || !e.contains("args")) continue;
    if (e["args"].contains("registers")) {
      ++warp_slices;
      // The draw the warp belongs to (the sample has two).
      const std::string run = e["args"]["run"];
      CHECK(run.rfind("draw ", 0) == 0);
      CHECK(e["ts"].get<uint64_t>() >= first_cycle.at(run));
    }
    if (e["args"].contains("pc")) ++instruction_slices;
  }
  CHECK(warp_slices == report["stats"]["warps"].get<size_t>());
  CHECK(instruction_slices ==
        report["stats"]["warp_instructions"].get<size_t>());
}

TEST_CASE("timing does not depend on where the host allocated the memory",
          "[runner][cli][timing]") {
  // Writing a trace and images changes the host's allocations; the
  // memory model sees device addresses, so the cycles stay the same.
  const std::string file =
      std::string(WARPSIM_SOURCE_DIR) + "/samples/compute/prefix_sum.amber";
  nlohmann::json timing[2];
  for (int k = 0; k < 2; ++k) {
    const std::string dir = TempDir() + "/host" + std::to_string(k);
    const std::string extra =
        k == 0 ? "" : " --trace " + dir + "/trace.json --out " + dir;
    const auto r = Warpsim("run " + file + " --timing --json " + dir +
                           "/report.json" + extra);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto report = nlohmann::json::parse(Slurp(dir + "/report.json"));
    timing[k] = {report["timing"], report["dispatches"]};
  }
  CHECK(timing[0] == timing[1]);
}

TEST_CASE("swap context switches cost more than free ones",
          "[runner][cli][timing]") {
  const std::string file =
      std::string(WARPSIM_SOURCE_DIR) + "/samples/microbench/e5_loads.amber";
  uint64_t cycles[2] = {0, 0};
  const char* modes[2] = {"free", "swap"};
  for (int k = 0; k < 2; ++k) {
    const std::string json = TempDir() + "/switch_" + modes[k] + ".json";
    const auto r = Warpsim("run " + file + " --timing --context-switch " +
                           modes[k] + " --json " + json);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto report = nlohmann::json::parse(Slurp(json));
    CHECK(report["timing"]["context_switch"] == modes[k]);
    cycles[k] = report["timing"]["cycles"].get<uint64_t>();
  }
  CHECK(cycles[1] > cycles[0]);
}

TEST_CASE("timing options are checked", "[runner][cli][timing]") {
  const std::string file =
      std::string(WARPSIM_SOURCE_DIR) + "/samples/compute/divergence.amber";
  struct Case {
    const char* args;
    const char* message;
  };
  const Case cases[] = {
      {"--timing --scheduler fifo", "--scheduler needs gto, lrr"},
      {"--timing --context-switch later", "--context-switch needs free or"},
      {"--timing --trace-detail all", "--trace-detail needs summary"},
      {"--timing --trace-max-events many", "--trace-max-events needs a"},
      {"--trace /tmp/x.json", "need --timing"},
      {"--scheduler lrr", "need --timing"},
      {"--csv /tmp/x", "need --timing"},
      {"--regs-per-thread 64", "need --timing"},
      {"--registers-from r.json", "need --timing"},
      {"--timing --regs-per-thread 0", "--regs-per-thread needs a number"},
      {"--timing --regs-per-thread 256", "sm.max_registers_per_thread (255)"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    const auto r = Warpsim("run " + file + " " + c.args);
    CHECK(r.exit_code == 64);
    CHECK(r.output.find(c.message) != std::string::npos);
  }
  for (const char* s : {"gto", "lrr", "oldest", "two_level"}) {
    const auto r = Warpsim("run " + file + " --timing --scheduler " + s);
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find(std::string("scheduler ") + s) != std::string::npos);
  }
}

TEST_CASE("registers per thread: --regs-per-thread and --registers-from",
          "[runner][cli][timing]") {
  const std::string file =
      std::string(WARPSIM_SOURCE_DIR) + "/samples/compute/divergence.amber";
  const std::string json = TempDir() + "/regs.json";
  // 200 registers: roundUp(200 x 32, 256) = 6400 per warp, two warps per
  // 16K-register sub-partition, 8 per SM of 64 slots.
  auto r =
      Warpsim("run " + file + " --timing --regs-per-thread 200 --json " + json);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto report = nlohmann::json::parse(Slurp(json));
  for (const auto& d : report["dispatches"]) {
    CHECK(d["registers_per_thread"] == 200);
    CHECK(d["peak_warps_per_sm"].get<uint32_t>() <= 8);
  }
  // A report naming the file's pipeline: its compute stage's count.
  nlohmann::json vk;
  vk["pipelines"] = nlohmann::json::array();
  for (const auto& p : report["pipelines"]) {
    vk["pipelines"].push_back(
        {{"name", p["name"]},
         {"stage", "compute"},
         {"executable_statistics", {{"Register Count", 96}}}});
  }
  const std::string regs = TempDir() + "/vk_report.json";
  std::ofstream(regs) << vk.dump();
  r = Warpsim("run " + file + " --timing --registers-from " + regs +
              " --json " + json);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  report = nlohmann::json::parse(Slurp(json));
  for (const auto& d : report["dispatches"]) {
    CHECK(d["registers_per_thread"] == 96);
  }
  // Bad files: invalid input (exit 2) naming the file, and the line.
  const std::string bad = TempDir() + "/bad_report.json";
  std::ofstream(bad) << "{\n\"pipelines\": [\n}";
  r = Warpsim("run " + file + " --timing --registers-from " + bad);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(bad + ":3:") != std::string::npos);
  r = Warpsim("run " + file + " --timing --registers-from " + TempDir() +
              "/missing.json");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("cannot read the registers report") != std::string::npos);
  std::ofstream(bad) << R"({"pipelines": [{"name": "x", "stage": "fragment",
      "executable_statistics": {"Binary Size": 3}}]})";
  r = Warpsim("run " + file + " --timing --registers-from " + bad);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("no pipeline in the report") != std::string::npos);
}

TEST_CASE("timing CSV files: one row per SM and per run (--csv)",
          "[runner][cli][timing]") {
  const std::string file =
      std::string(WARPSIM_SOURCE_DIR) + "/samples/compute/prefix_sum.amber";
  const std::string dir = TempDir() + "/csv";
  const auto r = Warpsim("run " + file + " --timing --csv " + dir + " --json " +
                         dir + "/report.json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto report = nlohmann::json::parse(Slurp(dir + "/report.json"));
  auto lines = [](const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      std::vector<std::string> cells;
      std::istringstream cs(line);
      for (std::string c; std::getline(cs, c, ',');) cells.push_back(c);
      rows.push_back(cells);
    }
    return rows;
  };
  const auto sms = lines(Slurp(dir + "/sms.csv"));
  REQUIRE(sms.size() == report["timing"]["sms"].size() + 1);
  for (size_t i = 1; i < sms.size(); ++i) {
    const auto& j = report["timing"]["sms"][i - 1];
    CHECK(sms[i].size() == sms[0].size());
    CHECK(sms[i][0] == std::to_string(j["sm"].get<uint32_t>()));
    CHECK(sms[i][2] == std::to_string(j["instructions"].get<uint64_t>()));
  }
  const auto runs = lines(Slurp(dir + "/runs.csv"));
  REQUIRE(runs.size() == report["dispatches"].size() + 1);
  CHECK(runs[0][4] == "cycles");
  CHECK(runs[1][4] ==
        std::to_string(report["dispatches"][0]["cycles"].get<uint64_t>()));
  CHECK(runs[0][13] == "peak_warps_per_sm");
  CHECK(runs[1][13] ==
        std::to_string(
            report["dispatches"][0]["peak_warps_per_sm"].get<uint32_t>()));
  CHECK(runs[0][25] == "bubble_instructions");
  CHECK(runs[1][25] ==
        std::to_string(
            report["dispatches"][0]["bubble_instructions"].get<uint64_t>()));
  CHECK(runs[0][26] == "loop_entry_instructions");
  CHECK(
      runs[1][26] ==
      std::to_string(
          report["dispatches"][0]["loop_entry_instructions"].get<uint64_t>()));
  CHECK(runs[0][27] == "selection_move_instructions");
  CHECK(runs[1][27] ==
        std::to_string(report["dispatches"][0]["selection_move_instructions"]
                           .get<uint64_t>()));
  // After the 28 fixed columns, one per stall state, "selected" first.
  CHECK(runs[0][28] == "stall_selected");
  CHECK(
      runs[1][28] ==
      std::to_string(
          report["dispatches"][0]["stall_cycles"]["selected"].get<uint64_t>()));
  CHECK(runs[1][16] ==
        std::to_string(
            report["dispatches"][0]["fused_instructions"].get<uint64_t>()));
  CHECK(runs[0][17] == "layout_branches");
  CHECK(runs[1][17] ==
        std::to_string(
            report["dispatches"][0]["layout_branches"].get<uint64_t>()));
  CHECK(runs[0][18] == "unrolled_loop_instructions");
  CHECK(runs[1][18] ==
        std::to_string(report["dispatches"][0]["unrolled_loop_instructions"]
                           .get<uint64_t>()));
  CHECK(runs[0][19] == "redundant_instructions");
  CHECK(runs[1][19] ==
        std::to_string(
            report["dispatches"][0]["redundant_instructions"].get<uint64_t>()));
  CHECK(runs[0][20] == "register_moves");
  CHECK(runs[1][20] ==
        std::to_string(
            report["dispatches"][0]["register_moves"].get<uint64_t>()));
  CHECK(runs[0][21] == "fma_pipe_adds");
  CHECK(
      runs[1][21] ==
      std::to_string(report["dispatches"][0]["fma_pipe_adds"].get<uint64_t>()));
  // The memory counters come last.
  const size_t last = runs[0].size() - 1;
  CHECK(runs[0][last - 9] == "memory_requests");
  CHECK(runs[0][last - 4] == "l2_misses");
  CHECK(runs[0][last - 1] == "shared_wavefronts");
  CHECK(runs[0][last] == "translation_misses");
  for (size_t i = 1; i < runs.size(); ++i) {
    const auto& m = report["dispatches"][i - 1]["memory"];
    CHECK(runs[i][last - 9] == std::to_string(m["requests"].get<uint64_t>()));
    CHECK(runs[i][last - 8] == std::to_string(m["sectors"].get<uint64_t>()));
    CHECK(runs[i][last - 4] == std::to_string(m["l2_misses"].get<uint64_t>()));
    CHECK(runs[i][last - 3] == std::to_string(m["wavefronts"].get<uint64_t>()));
    CHECK(runs[i][last - 1] ==
          std::to_string(m["shared_wavefronts"].get<uint64_t>()));
    CHECK(runs[i][last] ==
          std::to_string(m["translation_misses"].get<uint64_t>()));
  }
}

TEST_CASE("a run's memory counters: requests, sectors, L1 and L2 lines",
          "[runner][cli][timing]") {
  // One workgroup of 64 threads (2 warps): each thread loads one word of
  // `in` and stores one word of `out`. Per warp: a load of 128 bytes (one
  // line, 4 sectors) and a store of the same. Under the h200 preset
  // (memory.l2_holds_uploads, l1_invalidated_per_run: vulkan_ref's E36)
  // each dispatch finds the L1 empty and both buffers in the L2.
  const std::string scene = TempDir() + "/memory_counters.amber";
  {
    std::ofstream out(scene);
    out << "#!amber\n"
           "SHADER compute cs GLSL\n#version 450\n"
           "layout(local_size_x = 64) in;\n"
           "layout(set = 0, binding = 0) readonly buffer In { uint d[]; } "
           "src;\n"
           "layout(set = 0, binding = 1) buffer Out { uint d[]; } dst;\n"
           "void main() { uint i = gl_GlobalInvocationID.x; "
           "dst.d[i] = src.d[i] + 1u; }\nEND\n"
           "BUFFER in DATA_TYPE uint32 SIZE 64 SERIES_FROM 0 INC_BY 1\n"
           "BUFFER out DATA_TYPE uint32 SIZE 64 FILL 0\n"
           "PIPELINE compute p\n  ATTACH cs\n"
           "  BIND BUFFER in AS storage DESCRIPTOR_SET 0 BINDING 0\n"
           "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1\nEND\n"
           "RUN p 1 1 1\nRUN p 1 1 1\n"
           "EXPECT out IDX 0 EQ 1 2 3 4\n";
  }
  const std::string json = TempDir() + "/memory_counters.json";
  const auto r = Warpsim("run " + scene + " --timing --json " + json);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto report = nlohmann::json::parse(Slurp(json));
  REQUIRE(report["dispatches"].size() == 2);
  const auto& first = report["dispatches"][0]["memory"];
  CHECK(first["requests"] == 4);
  CHECK(first["sectors"] == 16);
  CHECK(first["l1_hits"] == 0);
  CHECK(first["l1_misses"] == 2);  // stores do not look in the L1
  CHECK(first["l2_hits"] == 4);
  CHECK(first["l2_misses"] == 0);
  // Each warp's load: one line, a bank a word, one wavefront.
  CHECK(first["wavefronts"] == 2);
  CHECK(first["shared_requests"] == 0);
  CHECK(first["shared_wavefronts"] == 0);
  const auto& second = report["dispatches"][1]["memory"];
  CHECK(second == first);
}

TEST_CASE("a run's shared memory counters: requests and bank wavefronts",
          "[runner][cli][timing]") {
  // One warp stores a word of workgroup memory a lane, STRIDE words
  // apart, and loads it back: with 32 apart every word is in bank 0 (32
  // wavefronts an access under the h200 preset, vulkan_ref's E40), with
  // 33 apart each in its own bank (one).
  for (const uint32_t stride : {32u, 33u}) {
    const std::string name =
        TempDir() + "/shared_banks" + std::to_string(stride);
    {
      std::ofstream out(name + ".amber");
      out << "#!amber\n"
             "SHADER compute cs GLSL\n#version 450\n"
             "layout(local_size_x = 32) in;\n"
             "layout(set = 0, binding = 0) buffer Out { uint d[]; } dst;\n"
             "shared uint sh[1056];\n"
             "void main() { uint i = gl_LocalInvocationIndex; sh[i * "
          << stride << "u] = i + 1u; barrier(); dst.d[i] = sh[i * " << stride
          << "u]; }\nEND\n"
             "BUFFER out DATA_TYPE uint32 SIZE 32 FILL 0\n"
             "PIPELINE compute p\n  ATTACH cs\n"
             "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n"
             "RUN p 1 1 1\n"
             "EXPECT out IDX 0 EQ 1 2 3 4\n";
    }
    const auto r =
        Warpsim("run " + name + ".amber --timing --json " + name + ".json");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto report = nlohmann::json::parse(Slurp(name + ".json"));
    const auto& m = report["dispatches"][0]["memory"];
    CHECK(m["shared_requests"] == 2);
    CHECK(m["shared_wavefronts"] == (stride == 32 ? 64 : 2));
  }
}

TEST_CASE("a long full-screen draw fills every graphics SM's warp slots",
          "[runner][cli][timing]") {
  // 2048 fragment warps of 16-register threads on the h200 preset's 4
  // graphics SMs: the warp slots (64 per SM) are the limit, and each SM
  // reaches it.
  const std::string file = std::string(WARPSIM_SOURCE_DIR) +
                           "/samples/timing_families/loop_trips.amber";
  const std::string json = TempDir() + "/fill.json";
  const auto r = Warpsim("run " + file + " --timing --json " + json);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto report = nlohmann::json::parse(Slurp(json));
  REQUIRE(report["timing"]["sms"].size() == 4);
  for (const auto& sm : report["timing"]["sms"]) {
    CHECK(sm["peak_warps"] == 64);
    CHECK(sm["peak_registers"].get<uint32_t>() <= 65536);
  }
  for (const auto& d : report["draws"]) {
    CHECK(d["limiter"] == "warp_slots");
    CHECK(d["theoretical_occupancy"] == 1.0);
  }
}

namespace {

// The first draw's cycles of `scene` run in timing mode on the teaching
// machine with `timing` (JSON members) added to its timing figures.
int64_t TeachingDrawCycles(const std::string& scene,
                           const std::string& timing) {
  const std::string config = TempDir() + "/teaching_timing_config.json";
  {
    std::ofstream out(config);
    out << R"({"preset": "teaching", "timing": {)" << timing << "}}";
  }
  const std::string report = TempDir() + "/teaching_timing.json";
  auto r = Warpsim("run " + scene + " --timing --quiet --gpu-config " + config +
                   " --json " + report);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(Slurp(report))["draws"][0]["cycles"]
      .get<int64_t>();
}

// Writes TempDir()/NAME.amber: one 64x64 rectangle on a B8G8R8A8_UNORM
// framebuffer, of a fragment shader whose `color` output `fs_main` (its
// main function) writes, then `tail`; returns the path.
std::string RectScene(const std::string& name, const std::string& fs_main,
                      const std::string& tail = "") {
  const std::string path = TempDir() + "/" + name + ".amber";
  std::ofstream out(path);
  out << "#!amber\nSHADER vertex vs PASSTHROUGH\n"
         "SHADER fragment fs GLSL\n#version 450\n"
         "layout(location = 0) out vec4 color;\n"
      << fs_main
      << "\nEND\n"
         "BUFFER fb FORMAT B8G8R8A8_UNORM\n"
         "PIPELINE graphics p\n  ATTACH vs\n  ATTACH fs\n"
         "  FRAMEBUFFER_SIZE 64 64\n  BIND BUFFER fb AS color LOCATION 0\n"
         "END\nRUN p DRAW_RECT POS 0 0 SIZE 64 64\n"
      << tail;
  return path;
}

}  // namespace

TEST_CASE(
    "a draw waits for the rasterizer and its pixels' writes, and takes its "
    "fixed cost",
    "[runner][cli][timing]") {
  // 64x64 pixels, 4 bytes each, of a fragment shader that only writes a
  // constant: 1024 quads, 16384 bytes. With 1 byte per cycle the output
  // merge takes 16384 cycles after the first warp's pixels reach it; with
  // 1 pixel per cycle the rasterizer takes 4096 cycles after the first
  // quad is made; the teaching machine shades it all in far fewer.
  const std::string scene = RectScene(
      "draw_cost", "void main() { color = vec4(1.0, 0.0, 1.0, 1.0); }",
      "EXPECT fb IDX 0 0 SIZE 64 64 EQ_RGBA 255 0 255 255\n");
  auto cycles = [&](const std::string& timing) {
    return TeachingDrawCycles(scene, timing);
  };
  const int64_t plain = cycles("");
  REQUIRE(plain > 0);
  REQUIRE(plain < 4096);  // the rates below are what limits the draw
  CHECK(cycles(R"("draw_fixed_cycles": 1000)") == plain + 1000);
  CHECK(cycles(R"("output_flush_cycles": 500)") == plain + 500);
  // A draw that writes no pixel (every fragment discarded) does not take
  // output_flush_cycles.
  const std::string discard =
      RectScene("draw_cost_discard", "void main() { discard; }");
  const int64_t discarded = TeachingDrawCycles(discard, "");
  CHECK(TeachingDrawCycles(discard, R"("output_flush_cycles": 500)") ==
        discarded);
  CHECK(TeachingDrawCycles(discard, R"("draw_fixed_cycles": 1000)") ==
        discarded + 1000);
  // A draw whose every pixel the depth test rejects writes nothing, but
  // its pixels reached the output merge: it takes output_flush_cycles.
  const std::string rejected = std::string(WARPSIM_SOURCE_DIR) +
                               "/samples/h200/e17_output_merge/dk512.amber";
  CHECK(TeachingDrawCycles(rejected, R"("output_flush_cycles": 500)") ==
        TeachingDrawCycles(rejected, "") + 500);
  // Its pixels went through the depth test: it takes depth_flush_cycles,
  // which a draw without a depth test does not.
  CHECK(TeachingDrawCycles(rejected, R"("depth_flush_cycles": 300)") ==
        TeachingDrawCycles(rejected, "") + 300);
  CHECK(cycles(R"("depth_flush_cycles": 300)") == plain);
  const int64_t output = cycles(R"("output_bytes_per_cycle": 1)");
  CHECK(output > 16384);
  CHECK(output <= 16384 + plain);
  const int64_t raster = cycles(R"("raster_pixels_per_cycle": 1)");
  CHECK(raster > 4096);
  CHECK(raster <= 4096 + plain);
  // Both: the output merge still writes 16384 bytes, at most as late as
  // the last quad's warp ends.
  const int64_t both =
      cycles(R"("output_bytes_per_cycle": 1, "raster_pixels_per_cycle": 1,)"
             R"( "draw_fixed_cycles": 1000)");
  CHECK(both > 16384 + 1000);
  CHECK(both <= 16384 + 4096 + plain + 1000);
}

TEST_CASE(
    "the output merge takes a warp's pixels when it ends, not after every "
    "earlier warp",
    "[runner][cli][timing]") {
  // 64x64 pixels, 16384 bytes at 1 byte per cycle. The first quad's warp
  // loops for a long time; every other warp's pixels reach the output
  // merge long before it ends, and the merge writes them meanwhile (they
  // share no pixel with it). So the draw ends its own 32 pixels (128
  // bytes) after the slow warp, not the 16384 bytes of every warp after
  // it in API order.
  const std::string scene =
      RectScene("slow_first_warp",
                "void main() {\n"
                "  ivec2 p = ivec2(gl_FragCoord.xy);\n"
                "  int n = p.x < 2 && p.y < 2 ? 8000 : 0;\n"
                "  float x = gl_FragCoord.x;\n"
                "  for (int i = 0; i < n; ++i) x = x * 1.0001 + 0.0003;\n"
                "  color = vec4(fract(x), 0.0, 1.0, 1.0);\n"
                "}");
  const int64_t slow = TeachingDrawCycles(scene, "");
  // The loop outlasts the other warps' output by far.
  REQUIRE(slow > 2 * 16384);
  const int64_t limited =
      TeachingDrawCycles(scene, R"("output_bytes_per_cycle": 1)");
  CHECK(limited >= slow);
  CHECK(limited <= slow + 128 + 8);
}

TEST_CASE(
    "a draw waits for its primitives' set-up (primitives_per_cycle), "
    "empty ones included",
    "[runner][cli][timing]") {
  // 64x64 pixels as a grid of 32x32 cells: 2048 triangles. At half a
  // primitive per cycle their set-up takes 4096 cycles, more than the
  // teaching machine's shading; the same pixels as two triangles do not
  // wait for it. A grid of 1-pixel cells has 8192 triangles, half of
  // which cover no pixel center: they take set-up all the same.
  auto scene = [&](int cells) {
    const std::string path =
        TempDir() + "/primitives_" + std::to_string(cells) + ".amber";
    std::ofstream out(path);
    out << "#!amber\nSHADER vertex vs PASSTHROUGH\n"
           "SHADER fragment fs GLSL\n#version 450\n"
           "layout(location = 0) out vec4 color;\n"
           "void main() { color = vec4(1.0); }\nEND\n"
           "BUFFER fb FORMAT B8G8R8A8_UNORM\n"
           "PIPELINE graphics p\n  ATTACH vs\n  ATTACH fs\n"
           "  FRAMEBUFFER_SIZE 64 64\n  BIND BUFFER fb AS color LOCATION 0\n"
           "END\nRUN p DRAW_GRID POS 0 0 SIZE 64 64 CELLS "
        << cells << " " << cells << "\n";
    return path;
  };
  const std::string two = scene(1), grid = scene(32), fine = scene(64);
  const int64_t plain = TeachingDrawCycles(grid, "");
  REQUIRE(plain < 4096);
  const std::string rate = R"("primitives_per_cycle": 0.5)";
  const int64_t set_up = TeachingDrawCycles(grid, rate);
  CHECK(set_up > 4096);
  CHECK(set_up <= 4096 + plain);
  CHECK(TeachingDrawCycles(two, rate) <= TeachingDrawCycles(two, "") + 4);
  const int64_t fine_plain = TeachingDrawCycles(fine, "");
  const int64_t fine_set_up = TeachingDrawCycles(fine, rate);
  CHECK(fine_set_up > 16384);
  CHECK(fine_set_up <= 16384 + fine_plain);
}

TEST_CASE(
    "the output merge pays for depth tests, depth writes and blending "
    "(depth_test_cycles, depth_reject_cycles, blend_cycles, "
    "float_blend_cycles)",
    "[runner][cli][timing]") {
  // 64x64 pixels of a constant colour, as above, with a D32_SFLOAT depth
  // test (less, against 1: every pixel passes; against 0: every pixel is
  // rejected) or alpha blending. Each rate alone limits the draw: 4096
  // pixels at 4 cycles (or 4096 x 4 colour bytes and 4096 x 4 depth
  // bytes at 1 byte per cycle) take more than the teaching machine's
  // shading, and at most that much more.
  auto scene = [&](const std::string& format, const std::string& depth,
                   bool blend) {
    const std::string path = TempDir() + "/output_merge.amber";
    std::ofstream out(path);
    out << "#!amber\nSHADER vertex vs PASSTHROUGH\n"
           "SHADER fragment fs GLSL\n#version 450\n"
           "layout(location = 0) out vec4 color;\n"
           "void main() { color = vec4(1.0, 0.0, 1.0, 0.5); }\nEND\n"
           "BUFFER fb FORMAT "
        << format << "\nBUFFER depth FORMAT D32_SFLOAT\n"
        << "PIPELINE graphics p\n  ATTACH vs\n  ATTACH fs\n"
           "  FRAMEBUFFER_SIZE 64 64\n  BIND BUFFER fb AS color LOCATION 0\n";
    if (!depth.empty()) {
      out << "  BIND BUFFER depth AS depth_stencil\n  DEPTH\n    TEST on\n"
             "    WRITE "
          << (depth == "write" ? "on" : "off")
          << "\n    COMPARE_OP less\n  END\n";
    }
    if (blend) {
      out << "  BLEND\n    SRC_COLOR_FACTOR src_alpha\n"
             "    DST_COLOR_FACTOR one_minus_src_alpha\n    COLOR_OP add\n"
             "  END\n";
    }
    out << "END\nCLEAR_DEPTH p " << (depth == "reject" ? "0.0" : "1.0")
        << "\nCLEAR p\nRUN p DRAW_RECT POS 0 0 SIZE 64 64\n";
    return path;
  };
  const auto& cycles = TeachingDrawCycles;
  const std::string unorm = "B8G8R8A8_UNORM";
  const std::string written = scene(unorm, "", false);
  const int64_t plain = cycles(written, "");
  REQUIRE(plain > 0);
  REQUIRE(plain < 4096);
  auto within = [&](int64_t c, int64_t cost) {
    INFO(c << " cycles against " << cost << " of output merge");
    CHECK(c > cost);
    CHECK(c <= cost + plain + 64);  // (the depth attachment's cost)
  };
  // Bytes: colour only, then colour and depth.
  within(cycles(written, R"("output_bytes_per_cycle": 1)"), 16384);
  within(cycles(scene(unorm, "write", false), R"("output_bytes_per_cycle": 1)"),
         32768);
  within(cycles(scene(unorm, "read", false), R"("output_bytes_per_cycle": 1)"),
         16384);
  // A rejected pixel writes nothing.
  CHECK(cycles(scene(unorm, "reject", false),
               R"("output_bytes_per_cycle": 1)") < plain + 64);
  within(cycles(scene(unorm, "read", false), R"("depth_test_cycles": 4)"),
         16384);
  within(cycles(scene(unorm, "reject", false), R"("depth_reject_cycles": 4)"),
         16384);
  CHECK(cycles(scene(unorm, "reject", false), R"("depth_test_cycles": 4)") <
        plain + 64);
  // Blending: by the attachment's format.
  within(cycles(scene(unorm, "", true), R"("blend_cycles": 4)"), 16384);
  CHECK(cycles(scene(unorm, "", true), R"("float_blend_cycles": 4)") <
        plain + 64);
  const std::string f32 = "R32G32B32A32_SFLOAT";
  within(cycles(scene(f32, "", true), R"("float_blend_cycles": 4)"), 16384);
  CHECK(cycles(scene(f32, "", true), R"("blend_cycles": 4)") < plain + 64);
  CHECK(cycles(written, R"("blend_cycles": 4)") < plain + 64);
}

TEST_CASE(
    "fragment warps of one screen tile share an SM with "
    "fragment_tile_pixels",
    "[runner][cli][timing]") {
  // A 64x64 rectangle (16 tiles of 16x16 pixels) of a shader with a long
  // loop on 4 graphics SMs. With fragment_tile_pixels 16, a warp goes to
  // the SM where its tile's resident warps are; without it, to the SM
  // with the fewest warps, which spreads a tile's warps.
  const std::string scene =
      RectScene("tiles",
                "void main() {\n  float v = gl_FragCoord.x;\n"
                "  for (int i = 0; i < 64; ++i) v = v * 0.999 + 0.5;\n"
                "  color = vec4(v / 1000.0, 0.0, 0.0, 1.0);\n}");
  // Per run of the scene: the pairs of warps of one tile that were
  // resident at the same time, and how many of those ran on one SM.
  struct Pairs {
    size_t overlapping = 0, same_sm = 0, warps = 0;
  };
  auto pairs = [&](uint32_t tile_pixels) {
    const std::string config = TempDir() + "/tiles_config.json";
    {
      std::ofstream out(config);
      out << R"({"preset": "teaching", "timing": {"graphics_sms": 4, )"
          << R"("fragment_tile_pixels": )" << tile_pixels << "}}";
    }
    const std::string trace = TempDir() + "/tiles_trace.json";
    const auto r = Warpsim("run " + scene + " --timing --quiet --gpu-config " +
                           config + " --trace " + trace);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto t = nlohmann::json::parse(Slurp(trace));
    struct Span {
      uint64_t sm = 0, begin = 0, end = 0;
    };
    std::map<uint64_t, Span> spans;  // by warp
    for (const auto& e : t["traceEvents"]) {
      if (e["ph"] == "X" && e.contains("args") &&
          e["args"].contains("registers")) {
        const uint64_t ts = e["ts"];
        spans[e["args"]["warp"].get<uint64_t>()] = {
            e["pid"].get<uint64_t>(), ts, ts + e["dur"].get<uint64_t>()};
      }
    }
    std::map<uint64_t, std::vector<uint64_t>> tiles;  // tile -> its warps
    for (const auto& q : t["warpsim"]["quads"]) {
      const uint64_t tile =
          q[2].get<uint64_t>() / 16 * 4 + q[1].get<uint64_t>() / 16;
      auto& w = tiles[tile];
      if (std::find(w.begin(), w.end(), q[0].get<uint64_t>()) == w.end()) {
        w.push_back(q[0]);
      }
    }
    Pairs p;
    p.warps = spans.size();
    for (const auto& [tile, warps] : tiles) {
      for (size_t i = 0; i < warps.size(); ++i) {
        for (size_t j = i + 1; j < warps.size(); ++j) {
          const Span& a = spans.at(warps[i]);
          const Span& b = spans.at(warps[j]);
          if (a.begin >= b.end || b.begin >= a.end) continue;
          ++p.overlapping;
          p.same_sm += a.sm == b.sm;
        }
      }
    }
    return p;
  };
  const Pairs tiled = pairs(16);
  CHECK(tiled.overlapping > 0);
  CHECK(tiled.same_sm == tiled.overlapping);
  const Pairs spread = pairs(0);
  CHECK(spread.warps == tiled.warps);
  CHECK(spread.same_sm < spread.overlapping);
}
