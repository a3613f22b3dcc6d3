// GPU configuration presets and JSON files (runner/gpu_config.cpp).
#include "runner/gpu_config.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace {

std::string WriteConfig(const std::string& text) {
  static int n = 0;
  const auto path = std::filesystem::temp_directory_path() /
                    ("warpsim_gpu_config_" + std::to_string(::getpid()) + "_" +
                     std::to_string(n++) + ".json");
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("GPU presets", "[runner][config]") {
  auto h200 = warpsim::runner::GpuConfigPreset("h200");
  REQUIRE(h200.ok());
  CHECK(h200->warp_width == 32);
  CHECK(h200->vertex_batch_primitives == 32);
  CHECK(h200->vertex_reuse_window == 42);
  // Measured on the H200 (vulkan_ref/results/h200/FINDINGS.md).
  CHECK(h200->derivatives_fine);
  CHECK(h200->quad_packing == warpsim::pipeline::QuadPacking::kTiles);
  CHECK(h200->tile_size == 16);
  CHECK(h200->kill_terminates);
  auto teaching = warpsim::runner::GpuConfigPreset("teaching");
  REQUIRE(teaching.ok());
  CHECK(teaching->warp_width == 8);
  CHECK(teaching->quad_packing ==
        warpsim::pipeline::QuadPacking::kPerPrimitive);
  CHECK_FALSE(teaching->derivatives_fine);
  CHECK_FALSE(warpsim::runner::GpuConfigPreset("gtx480").ok());
}

TEST_CASE("GPU config files", "[runner][config]") {
  auto c = warpsim::runner::LoadGpuConfig(WriteConfig(
      R"({"preset": "teaching", "warp_width": 16, "tile_size": 32,
          "quad_packing": "mixed", "derivatives": "fine", "kill": "demote",
          "open_tiles": 4})"));
  REQUIRE(c.ok());
  CHECK(c->warp_width == 16);
  CHECK(c->vertex_batch_primitives == 8);  // from the preset
  CHECK(c->tile_size == 32);
  CHECK(c->quad_packing == warpsim::pipeline::QuadPacking::kMixed);
  CHECK(c->open_tiles == 4);
  CHECK(c->derivatives_fine);
  CHECK_FALSE(c->kill_terminates);
}

TEST_CASE("bad GPU config files name the problem", "[runner][config]") {
  const std::pair<const char*, const char*> cases[] = {
      {"{", "malformed JSON"},
      {"[1, 2]", "expected a JSON object"},
      {R"({"warp_width": 64})", "\"warp_width\" must be an integer in 4..32"},
      {R"({"warp_width": 6})", "multiple of 4"},
      {R"({"derivatives": "medium"})",
       "unknown or malformed key \"derivatives\""},
      {R"({"frobs": 1})", "unknown or malformed key \"frobs\""},
      {R"({"preset": "nope"})", "unknown GPU preset"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    auto c = warpsim::runner::LoadGpuConfig(WriteConfig(text));
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().message.find(message) != std::string::npos);
  }
  CHECK_FALSE(warpsim::runner::LoadGpuConfig("/nonexistent/gpu.json").ok());
}

// Inputs the gpu_config fuzz target (fuzz/) found crashing, reduced; each is
// now a diagnostic with the line.
TEST_CASE("GPU config inputs found by fuzzing are diagnosed",
          "[runner][config][fuzz]") {
  const std::pair<const char*, const char*> cases[] = {
      // A number too large for a double: nlohmann threw out_of_range, which
      // escaped ParseGpuConfig and terminated the process.
      {"[1, 2.5, 22222222222E222222222{\"warp_width\": 26}]",
       "f.json:1: error: number out of range in JSON"},
      {"{\n\"tile_size\":\n 1e999}", "f.json:3: error: number out of range"},
      {"{\n\"tile_size\": -1e999}", "f.json:2: error: number out of range"},
      // Bad syntax carries the line where the parser stopped.
      {"{\n\"tile_size\": 8,\n]", "f.json:3: error: malformed JSON"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    auto c = warpsim::runner::ParseGpuConfig(text, "f.json");
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().kind == warpsim::ErrorKind::kInvalidInput);
    CHECK_THAT(c.error().ToString(), Catch::Contains(message));
  }
}

TEST_CASE("ParseGpuConfig reads JSON text and names it in diagnostics",
          "[runner][config]") {
  auto c = warpsim::runner::ParseGpuConfig(R"({"warp_width": 8})", "m.json");
  REQUIRE(c.ok());
  CHECK(c->warp_width == 8);
  auto bad = warpsim::runner::ParseGpuConfig("{\"tile_size\": 1}", "m.json");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().ToString(),
             Catch::Contains("m.json: error: \"tile_size\" must be"));
}

TEST_CASE("the sm object sets the SM limits by name", "[runner][config]") {
  auto c = warpsim::runner::ParseGpuConfig(
      R"({"preset": "h200", "sm": {"registers_per_sm": 32768,
          "shared_memory_carveouts_kib": [0, 64, 128]}})",
      "sm.json");
  REQUIRE(c.ok());
  CHECK(c->sm.registers_per_sm == 32768);
  CHECK(c->sm.shared_memory_carveouts_kib == std::vector<uint32_t>{0, 64, 128});
  CHECK(c->sm.max_warps_per_sm == 64);  // the preset's, untouched
  auto unknown =
      warpsim::runner::ParseGpuConfig(R"({"sm": {"regs": 1}})", "sm.json");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.find("sm.regs") != std::string::npos);
  auto zero = warpsim::runner::ParseGpuConfig(
      R"({"sm": {"sub_partitions": 0}})", "sm.json");
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().message.find("sm.sub_partitions") != std::string::npos);
  auto unsorted = warpsim::runner::ParseGpuConfig(
      R"({"sm": {"shared_memory_carveouts_kib": [64, 8]}})", "sm.json");
  REQUIRE_FALSE(unsorted.ok());
  CHECK(unsorted.error().message.find("ascending") != std::string::npos);
}

// The h200 preset's timing is the generated presets/h200_timing.json
// (cuda_ref/results/make_timing_preset.py): every field is compared with the
// file in the source tree, a field the file leaves out with the struct's
// default. No value is typed here.
TEST_CASE("the h200 preset's timing is presets/h200_timing.json",
          "[runner][config][timing]") {
  const std::string path = std::string(WARPSIM_SOURCE_DIR) +
                           "/emulator/runner/presets/h200_timing.json";
  std::ifstream in(path);
  REQUIRE(in);
  const nlohmann::json doc = nlohmann::json::parse(in);
  const nlohmann::json& t = doc.at("timing");
  const nlohmann::json& sources = doc.at("sources");
  const warpsim::sm::TimingConfig defaults;
  auto h200 = warpsim::runner::GpuConfigPreset("h200");
  REQUIRE(h200.ok());
  const warpsim::sm::TimingConfig& got = h200->timing;
  // Every field of TimingConfig by its JSON name; `field` is the value in
  // the preset, `def` the struct's default.
  auto check = [&](const nlohmann::json& obj, const std::string& prefix,
                   const std::string& key, auto field, auto def) {
    INFO(prefix + key);
    CHECK(sources.contains(prefix + key));  // every field names a source
    if (obj.contains(key)) {
      CHECK(field == obj[key].get<decltype(field)>());
    } else {
      CHECK(field == def);
    }
  };
  check(t, "", "clock_mhz", got.clock_mhz, defaults.clock_mhz);
  check(t, "", "sms", got.sms, defaults.sms);
  check(t, "", "graphics_sms", got.graphics_sms, defaults.graphics_sms);
  check(t, "", "fragment_tile_pixels", got.fragment_tile_pixels,
        defaults.fragment_tile_pixels);
  check(t, "", "draw_fixed_cycles", got.draw_fixed_cycles,
        defaults.draw_fixed_cycles);
  check(t, "", "output_flush_cycles", got.output_flush_cycles,
        defaults.output_flush_cycles);
  check(t, "", "depth_flush_cycles", got.depth_flush_cycles,
        defaults.depth_flush_cycles);
  check(t, "", "loop_entry_slots", got.loop_entry_slots,
        defaults.loop_entry_slots);
  const std::tuple<const char*, const warpsim::sm::PipeTiming*,
                   const warpsim::sm::PipeTiming*>
      pipes[] = {
          {"fma", &got.fma, &defaults.fma},
          {"alu", &got.alu, &defaults.alu},
          {"fp64", &got.fp64, &defaults.fp64},
          {"sfu", &got.sfu, &defaults.sfu},
          {"imul", &got.imul, &defaults.imul},
          {"sfu_trig", &got.sfu_trig, &defaults.sfu_trig},
          {"branch", &got.branch, &defaults.branch},
          {"sync", &got.sync, &defaults.sync},
          {"lsu", &got.lsu, &defaults.lsu},
          {"tex", &got.tex, &defaults.tex},
          {"cvt", &got.cvt, &defaults.cvt},
      };
  for (const auto& [name, pipe, def] : pipes) {
    const nlohmann::json obj = t.value(name, nlohmann::json::object());
    const std::string prefix = std::string(name) + ".";
    check(obj, prefix, "latency", pipe->latency, def->latency);
    check(obj, prefix, "interval", pipe->interval, def->interval);
  }
  const nlohmann::json mem = t.value("memory", nlohmann::json::object());
  const auto& m = got.memory;
  const auto& dm = defaults.memory;
  check(mem, "memory.", "shared_latency", m.shared_latency, dm.shared_latency);
  check(mem, "memory.", "l1_latency", m.l1_latency, dm.l1_latency);
  check(mem, "memory.", "l2_latency", m.l2_latency, dm.l2_latency);
  check(mem, "memory.", "dram_latency", m.dram_latency, dm.dram_latency);
  check(mem, "memory.", "line_bytes", m.line_bytes, dm.line_bytes);
  check(mem, "memory.", "sector_bytes", m.sector_bytes, dm.sector_bytes);
  check(mem, "memory.", "l1_bytes", m.l1_bytes, dm.l1_bytes);
  check(mem, "memory.", "l1_ways", m.l1_ways, dm.l1_ways);
  check(mem, "memory.", "l2_bytes", m.l2_bytes, dm.l2_bytes);
  check(mem, "memory.", "l2_ways", m.l2_ways, dm.l2_ways);
  check(mem, "memory.", "l2_bytes_per_cycle_per_sm",
        m.l2_bytes_per_cycle_per_sm, dm.l2_bytes_per_cycle_per_sm);
  check(mem, "memory.", "dram_bytes_per_cycle_per_sm",
        m.dram_bytes_per_cycle_per_sm, dm.dram_bytes_per_cycle_per_sm);
  check(mem, "memory.", "l1_miss_cycles_per_line", m.l1_miss_cycles_per_line,
        dm.l1_miss_cycles_per_line);
  check(mem, "memory.", "graphics_l1_miss_cycles_per_line",
        m.graphics_l1_miss_cycles_per_line,
        dm.graphics_l1_miss_cycles_per_line);
  auto check_name = [&](const std::string& key, std::string_view name,
                        std::string_view def) {
    INFO(key);
    CHECK(sources.contains(key));
    CHECK(name ==
          (t.contains(key) ? t[key].get<std::string>() : std::string(def)));
  };
  check_name("scheduler", warpsim::sm::SchedulerName(got.scheduler),
             warpsim::sm::SchedulerName(defaults.scheduler));
  check_name("context_switch",
             warpsim::sm::ContextSwitchName(got.context_switch),
             warpsim::sm::ContextSwitchName(defaults.context_switch));
  check(t, "", "two_level_active", got.two_level_active,
        defaults.two_level_active);
  check(t, "", "swap_cycles_per_register", got.swap_cycles_per_register,
        defaults.swap_cycles_per_register);
  // The file measures at least the clock, the SM count, the FMA pipe and
  // the memory latencies (the test would pass vacuously on an empty file).
  CHECK(t.contains("clock_mhz"));
  CHECK(t.contains("sms"));
  CHECK(t.contains("fma"));
  CHECK(mem.contains("dram_latency"));
  // The default GpuConfig is the h200 preset, its timing included; the
  // teaching preset keeps the struct's defaults.
  CHECK(warpsim::runner::GpuConfig{}.timing.clock_mhz == got.clock_mhz);
  CHECK(warpsim::runner::GpuConfig{}.timing.memory.l2_bytes == m.l2_bytes);
  auto teaching = warpsim::runner::GpuConfigPreset("teaching");
  REQUIRE(teaching.ok());
  CHECK(teaching->timing.clock_mhz == defaults.clock_mhz);
  CHECK(teaching->timing.sms == defaults.sms);
  CHECK(teaching->timing.memory.dram_latency == dm.dram_latency);
}

TEST_CASE("the timing object overrides a preset's timing fields",
          "[runner][config][timing]") {
  auto c = warpsim::runner::ParseGpuConfig(
      R"({"preset": "teaching", "timing": {"clock_mhz": 1500.5, "sms": 8,
          "fma": {"latency": 6}, "sfu": {"latency": 20, "interval": 4},
          "memory": {"l2_latency": 250, "l1_bytes": 65536,
                     "dram_bytes_per_cycle_per_sm": 12.5,
                     "l1_sector_fills": false},
          "scheduler": "two_level", "two_level_active": 4,
          "context_switch": "swap", "swap_cycles_per_register": 0,
          "rename_registers": false, "cse": false}})",
      "timing.json");
  REQUIRE(c.ok());
  const warpsim::sm::TimingConfig defaults;
  const auto& t = c->timing;
  CHECK(t.clock_mhz == 1500.5);
  CHECK(t.sms == 8);
  CHECK(t.graphics_sms == defaults.graphics_sms);  // the preset's
  CHECK(t.fma.latency == 6);
  CHECK(t.fma.interval == defaults.fma.interval);
  CHECK(t.sfu.latency == 20);
  CHECK(t.sfu.interval == 4);
  CHECK(t.alu.latency == defaults.alu.latency);
  CHECK(t.memory.l2_latency == 250);
  CHECK(t.memory.l1_bytes == 65536);
  CHECK(t.memory.dram_bytes_per_cycle_per_sm == 12.5);
  CHECK(t.memory.l1_latency == defaults.memory.l1_latency);
  CHECK(t.scheduler == warpsim::sm::SchedulerPolicy::kTwoLevel);
  CHECK(t.two_level_active == 4);
  CHECK(t.context_switch == warpsim::sm::ContextSwitch::kSwap);
  CHECK(t.swap_cycles_per_register == 0);
  // true/false fields, set against their defaults (true).
  CHECK(defaults.rename_registers);
  CHECK_FALSE(t.rename_registers);
  CHECK_FALSE(t.cse);
  CHECK_FALSE(t.memory.l1_sector_fills);
  CHECK(t.free_register_moves == defaults.free_register_moves);
  // Without a preset the base is h200, timing included.
  auto h200 = warpsim::runner::GpuConfigPreset("h200");
  REQUIRE(h200.ok());
  auto plain = warpsim::runner::ParseGpuConfig(
      R"({"timing": {"fma": {"interval": 2}}})", "timing.json");
  REQUIRE(plain.ok());
  CHECK(plain->timing.fma.interval == 2);
  CHECK(plain->timing.fma.latency == h200->timing.fma.latency);
  CHECK(plain->timing.clock_mhz == h200->timing.clock_mhz);
  CHECK(plain->timing.memory.l2_bytes == h200->timing.memory.l2_bytes);
}

TEST_CASE("bad timing keys and values name the key",
          "[runner][config][timing]") {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"timing": 3})", "unknown or malformed key \"timing\""},
      {R"({"timing": {"clock": 1}})", "unknown key \"timing.clock\""},
      {R"({"timing": {"clock_mhz": 0}})",
       "\"timing.clock_mhz\" must be a number > 0"},
      {R"({"timing": {"clock_mhz": "fast"}})",
       "\"timing.clock_mhz\" must be a number > 0"},
      {R"({"timing": {"sms": 0}})", "\"timing.sms\" must be an integer in"},
      {R"({"timing": {"sms": 2.5}})", "\"timing.sms\" must be an integer in"},
      {R"({"timing": {"sms": 2, "graphics_sms": 3}})",
       "\"timing.graphics_sms\" (3) must be at most \"timing.sms\" (2)"},
      {R"({"timing": {"fma": 4}})",
       "\"timing.fma\" must be an object with latency, interval"},
      {R"({"timing": {"fma": {"lat": 4}}})",
       "unknown key \"timing.fma.lat\" (expected latency, interval)"},
      {R"({"timing": {"sfu": {"interval": 0}}})",
       "\"timing.sfu.interval\" must be an integer in 1.."},
      {R"({"timing": {"alu": {"latency": -1}}})",
       "\"timing.alu.latency\" must be an integer in 0.."},
      {R"({"timing": {"memory": []}})", "\"timing.memory\" must be an object"},
      {R"({"timing": {"memory": {"l3_latency": 9}}})",
       "unknown key \"timing.memory.l3_latency\""},
      {R"({"timing": {"memory": {"l1_ways": 0}}})",
       "\"timing.memory.l1_ways\" must be an integer in 1.."},
      {R"({"timing": {"memory": {"l2_bytes_per_cycle_per_sm": 0}}})",
       "\"timing.memory.l2_bytes_per_cycle_per_sm\" must be a number > 0"},
      {R"({"timing": {"memory": {"upload_dram_share": 1.5}}})",
       "\"timing.memory.upload_dram_share\" must be a number in 0..1"},
      {R"({"timing": {"memory": {"upload_dram_share": -0.1}}})",
       "\"timing.memory.upload_dram_share\" must be a number in 0..1"},
      {R"({"timing": {"memory": {"line_bytes": 128, "sector_bytes": 48}}})",
       "\"timing.memory.sector_bytes\" (48) must divide"},
      {R"({"timing": {"swap_cycles_per_register": -1}})",
       "\"timing.swap_cycles_per_register\" must be a number >= 0"},
      {R"({"timing": {"two_level_active": 0}})",
       "\"timing.two_level_active\" must be an integer in 1.."},
      {R"({"timing": {"scheduler": "fifo"}})",
       "\"timing.scheduler\" must be one of lrr, gto, oldest, two_level"},
      {R"({"timing": {"scheduler": 1}})",
       "\"timing.scheduler\" must be one of"},
      {R"({"timing": {"context_switch": "spill"}})",
       "\"timing.context_switch\" must be one of free, swap"},
      {R"({"timing": {"rename_registers": 1}})",
       "\"timing.rename_registers\" must be true or false"},
      {R"({"timing": {"cse": "yes"}})", "\"timing.cse\" must be true or false"},
      {R"({"timing": {"memory": {"l1_sector_fills": 0}}})",
       "\"timing.memory.l1_sector_fills\" must be true or false"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    auto c = warpsim::runner::ParseGpuConfig(text, "t.json");
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().kind == warpsim::ErrorKind::kInvalidInput);
    CHECK_THAT(c.error().ToString(),
               Catch::Contains("t.json: error: ") && Catch::Contains(message));
  }
}

TEST_CASE("scheduler and context switch names", "[runner][config][timing]") {
  using warpsim::sm::ContextSwitch;
  using warpsim::sm::SchedulerPolicy;
  for (SchedulerPolicy p :
       {SchedulerPolicy::kLrr, SchedulerPolicy::kGto, SchedulerPolicy::kOldest,
        SchedulerPolicy::kTwoLevel}) {
    SchedulerPolicy back = p == SchedulerPolicy::kLrr ? SchedulerPolicy::kGto
                                                      : SchedulerPolicy::kLrr;
    REQUIRE(warpsim::sm::ParseScheduler(warpsim::sm::SchedulerName(p), &back));
    CHECK(back == p);
  }
  CHECK(warpsim::sm::SchedulerName(SchedulerPolicy::kTwoLevel) == "two_level");
  for (ContextSwitch c : {ContextSwitch::kFree, ContextSwitch::kSwap}) {
    ContextSwitch back =
        c == ContextSwitch::kFree ? ContextSwitch::kSwap : ContextSwitch::kFree;
    REQUIRE(warpsim::sm::ParseContextSwitch(warpsim::sm::ContextSwitchName(c),
                                            &back));
    CHECK(back == c);
  }
  // Names are exact: no case folding, no spaces, no prefixes.
  const char* bad_schedulers[] = {
      "",          "LRR",      "Gto", " gto",         "gto ",
      "two-level", "twolevel", "old", "oldest_first", "rr"};
  for (const char* name : bad_schedulers) {
    INFO(name);
    SchedulerPolicy p = SchedulerPolicy::kOldest;
    CHECK_FALSE(warpsim::sm::ParseScheduler(name, &p));
    CHECK(p == SchedulerPolicy::kOldest);  // untouched
  }
  const char* bad_switches[] = {"",    "FREE",  "Swap", "swapped",
                                "fre", " free", "none", "spill"};
  for (const char* name : bad_switches) {
    INFO(name);
    ContextSwitch c = ContextSwitch::kSwap;
    CHECK_FALSE(warpsim::sm::ParseContextSwitch(name, &c));
    CHECK(c == ContextSwitch::kSwap);
  }
}
