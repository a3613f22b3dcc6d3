// Tests of visualizer/model/: timeline levels of detail and warp states,
// register files over time, pixel -> warp lookup and overlays, shader
// costs, trace mirrors, and reading a written trace back.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "model/pixel_map.h"
#include "model/register_map.h"
#include "model/run_data.h"
#include "model/shader_profile.h"
#include "model/timeline.h"
#include "model/trace_reader.h"

namespace warpsim::viz {
namespace {

using trace::StallReason;

std::vector<Segment> Spaced(size_t n, uint64_t len, uint64_t gap) {
  std::vector<Segment> s;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t b = i * (len + gap);
    s.push_back({b, b + len, static_cast<uint32_t>(i % 3), 1.0f});
  }
  return s;
}

TEST_CASE("levels of detail bound the segments a view draws",
          "[viz][timeline]") {
  // 100000 segments of 10 cycles with gaps of 5: 1.5 M cycles.
  SegmentLod lod;
  lod.Build(Spaced(100000, 10, 5), 4);
  REQUIRE(lod.levels() > 10);
  CHECK(lod.level(0).size() == 100000);
  for (size_t k = 1; k < lod.levels(); ++k) {
    INFO("level " << k);
    CHECK(lod.level(k).size() <= lod.level(k - 1).size());
    // At most one segment per bucket of 4 << k cycles.
    CHECK(lod.level(k).size() <= 1'500'000 / (4ull << k) + 1);
  }
  // The whole run on 1000 pixels: one or two segments per pixel (the
  // buckets are at least half a pixel wide), not 100000.
  const double per_pixel = 1'500'000.0 / 1000;
  const size_t k = lod.LevelFor(per_pixel);
  CHECK((4ull << k) <= per_pixel);
  size_t drawn = 0;
  lod.Visit(k, 0, 1'500'000, [&](const Segment&) { ++drawn; });
  CHECK(drawn <= 2 * 1000 + 1);
  CHECK(drawn >= 1000 / 2);
  // Merged segments keep the share of cycles covered: 10 of every 15.
  double fill = 0;
  lod.Visit(k, 0, 1'500'000, [&](const Segment& s) { fill += s.fill; });
  CHECK(fill / drawn == Approx(10.0 / 15).margin(0.05));
  // Zoomed in to single cycles: level 0, and exactly the segments in view
  // ([990, 1000) ends where the view begins).
  CHECK(lod.LevelFor(0.5) == 0);
  std::vector<uint64_t> begins;
  lod.Visit(0, 1000, 1100,
            [&](const Segment& s) { begins.push_back(s.begin); });
  CHECK(begins ==
        std::vector<uint64_t>{1005, 1020, 1035, 1050, 1065, 1080, 1095});
}

TEST_CASE("a merged segment takes the key that covers the most cycles",
          "[viz][timeline]") {
  SegmentLod lod;
  lod.Build({{0, 2, 7, 1}, {2, 3, 8, 1}, {3, 10, 9, 1}, {10, 12, 7, 1}}, 8);
  REQUIRE(lod.levels() >= 2);
  // Level 1: buckets of 16 cycles: one segment, mostly key 9.
  REQUIRE(lod.level(1).size() == 1);
  CHECK(lod.level(1)[0].key == 9);
  CHECK(lod.level(1)[0].begin == 0);
  CHECK(lod.level(1)[0].end == 12);
}

TEST_CASE("a warp's states come from its instruction events",
          "[viz][timeline]") {
  // Launched at 10; issues at 12 (ready at 11: waited, then not selected),
  // at 20 (long scoreboard until 20), and ends at 30.
  trace::InstructionEvent a, b;
  a.cycle = 12;
  a.ready = 11;
  a.waited = StallReason::kWait;
  b.cycle = 20;
  b.ready = 20;
  b.waited = StallReason::kLongScoreboard;
  std::vector<Segment> out;
  WarpStates(10, 30, {&a, &b}, &out);
  auto key = [](StallReason r) { return static_cast<uint32_t>(r); };
  REQUIRE(out.size() == 6);
  CHECK((out[0].begin == 10 && out[0].end == 11 &&
         out[0].key == key(StallReason::kWait)));
  CHECK((out[1].begin == 11 && out[1].end == 12 &&
         out[1].key == key(StallReason::kNotSelected)));
  CHECK((out[2].begin == 12 && out[2].end == 13 &&
         out[2].key == key(StallReason::kSelected)));
  CHECK((out[3].begin == 13 && out[3].end == 20 &&
         out[3].key == key(StallReason::kLongScoreboard)));
  CHECK((out[4].begin == 20 && out[4].end == 21 &&
         out[4].key == key(StallReason::kSelected)));
  CHECK((out[5].begin == 21 && out[5].end == 30 &&
         out[5].key == key(StallReason::kWait)));
}

// Two SMs; SM 1 has two warps in one slot, one after the other, and a
// warp still resident.
trace::Trace SmallTrace() {
  trace::Trace t;
  t.sms = 2;
  t.sub_partitions = 4;
  t.slots_per_sub_partition = 16;
  t.registers_per_sub_partition = 16384;
  t.runs = {{"draw 0 (pipeline 'p')", 0, 100}};
  t.warps = {
      {.sm = 1,
       .sub_partition = 0,
       .slot = 0,
       .warp = 0,
       .begin = 0,
       .end = 40,
       .stage = trace::Stage::kVertex,
       .registers = 32,
       .instructions = 10},
      {.sm = 1,
       .sub_partition = 0,
       .slot = 0,
       .warp = 1,
       .begin = 40,
       .end = 90,
       .stage = trace::Stage::kFragment,
       .registers = 32,
       .instructions = 20},
      {.sm = 0,
       .sub_partition = 2,
       .slot = 3,
       .warp = 2,
       .begin = 5,
       .end = trace::kStillResident,
       .stage = trace::Stage::kFragment,
       .registers = 64,
       .instructions = 3},
  };
  t.registers = {
      {.cycle = 0,
       .sm = 1,
       .sub_partition = 0,
       .warp = 0,
       .first = 0,
       .count = 1024},
      {.cycle = 5,
       .sm = 0,
       .sub_partition = 2,
       .warp = 2,
       .first = 0,
       .count = 2048},
      {.cycle = 40,
       .sm = 1,
       .sub_partition = 0,
       .warp = 0,
       .first = 0,
       .count = 1024,
       .allocate = false},
      {.cycle = 40,
       .sm = 1,
       .sub_partition = 0,
       .warp = 1,
       .first = 1024,
       .count = 1024},
      {.cycle = 90,
       .sm = 1,
       .sub_partition = 0,
       .warp = 1,
       .first = 1024,
       .count = 1024,
       .allocate = false},
  };
  // Warp 1 shades two quads; warp 2 one (a helper lane at (5, 1)).
  t.quads = {{.warp = 1, .x = 0, .y = 0, .coverage = 0xf, .primitive = 0},
             {.warp = 1, .x = 2, .y = 0, .coverage = 0x1, .primitive = 1},
             {.warp = 2, .x = 4, .y = 0, .coverage = 0x7, .primitive = 2}};
  t.shaders = {{"draw 0 fragment",
                trace::Stage::kFragment,
                {"OpLoad", "OpBranchConditional", "OpReturn"},
                {"#version 450", "void main() {", "}"},
                {2, 2, 3}}};
  t.instructions = {
      {.cycle = 42,
       .sm = 1,
       .warp = 1,
       .pc = 0,
       .op = "OpLoad",
       .active = 0x1f,
       .helpers = 0x0e,
       .latency = 300,
       .shader = 0,
       .ready = 41,
       .waited = StallReason::kWait},
      {.cycle = 350,
       .sm = 1,
       .warp = 1,
       .pc = 1,
       .op = "OpBranchConditional",
       .active = 0x1f,
       .taken = 0x3,
       .shader = 0,
       .ready = 343,
       .waited = StallReason::kLongScoreboard},
  };
  return t;
}

TEST_CASE("the timeline has a lane per warp slot used, SM by SM",
          "[viz][timeline]") {
  const trace::Trace t = SmallTrace();
  const Timeline tl(t, 95);
  REQUIRE(tl.lanes().size() == 2);
  CHECK(tl.Sms() == std::vector<uint32_t>{0, 1});
  CHECK(tl.LanesOf(1) == std::pair<size_t, size_t>{1, 2});
  const Lane& l = tl.lanes()[1];
  CHECK((l.sm == 1 && l.sub_partition == 0 && l.slot == 0));
  REQUIRE(l.warps.size() == 2);
  CHECK(l.warps.level(0)[1].key == 1);
  // The resident warp runs to `now`.
  CHECK(tl.lanes()[0].warps.level(0)[0].end == 95);
  CHECK(tl.has_states());
  CHECK(tl.lanes()[1].states.size() > 0);
  CHECK(tl.end_cycle() == 100);
}

TEST_CASE("register files: who holds what at a cycle, and free space",
          "[viz][registers]") {
  const trace::Trace t = SmallTrace();
  const RegisterMap m(t, 95);
  auto at = m.At(1, 0, 20);
  REQUIRE(at.size() == 1);
  CHECK((at[0].warp == 0 && at[0].first == 0 && at[0].count == 1024));
  CHECK(at[0].span == 0);
  at = m.At(1, 0, 40);  // released and allocated at the same cycle
  REQUIRE(at.size() == 1);
  CHECK(at[0].warp == 1);
  CHECK(m.At(1, 0, 90).empty());
  // The still-resident warp holds its registers up to `now`.
  CHECK(m.At(0, 2, 94).size() == 1);
  CHECK(m.At(0, 2, 95).empty());
  const FreeSpace f = RegisterMap::Measure(m.At(1, 0, 50), 16384);
  CHECK(f.free == 16384 - 1024);
  CHECK(f.holes == 2);  // below and above r1024-r2047
  CHECK(f.largest_hole == 16384 - 2048);
  CHECK(m.Files().size() == 2);
}

TEST_CASE("pixels lead to their quads and warps, and colour the overlays",
          "[viz][pixels]") {
  const trace::Trace t = SmallTrace();
  const PixelMap p(t, PixelMap::kAllRuns);
  CHECK(p.width() == 6);
  CHECK(p.height() == 2);
  // (1, 1): covered by warp 1's first quad.
  CHECK(p.at(1, 1).quad == 0);
  CHECK(p.SpanOf(p.at(1, 1).quad) == 1);
  CHECK(*p.Value(Overlay::kSm, 1, 1) == 1);
  CHECK(*p.Value(Overlay::kWarp, 1, 1) == 1);
  CHECK(*p.Value(Overlay::kQuadCoverage, 1, 1) == 4);
  // (3, 0) is a helper lane of warp 1's second quad; (2, 0) covered.
  CHECK(p.at(3, 0).quad == PixelInfo::kNone);
  CHECK(p.at(3, 0).helper == 1);
  CHECK(*p.Value(Overlay::kHelpers, 3, 0) == 1);
  CHECK(*p.Value(Overlay::kQuadCoverage, 2, 0) == 1);
  // Warp 1: 20 instructions over 5 covered lanes; 50 cycles.
  CHECK(*p.Value(Overlay::kInstructions, 0, 0) == Approx(4.0));
  CHECK(*p.Value(Overlay::kCycles, 0, 0) == Approx(10.0));
  CHECK(*p.Value(Overlay::kOverdraw, 0, 0) == 1);
  CHECK_FALSE(p.Value(Overlay::kSm, 5, 1).has_value());  // not covered
  CHECK(p.QuadsOfWarp(1) == std::vector<uint32_t>{0, 1});
  CHECK(p.Max(Overlay::kQuadCoverage) == 4);
  // Only run 1 (none): nothing.
  const PixelMap none(t, 1);
  CHECK(none.at(0, 0).quad == PixelInfo::kNone);
}

TEST_CASE("shader costs per instruction from the instruction events",
          "[viz][shader]") {
  const trace::Trace t = SmallTrace();
  const ShaderProfile p = ProfileShaders(t);
  REQUIRE(p.shaders.size() == 1);
  REQUIRE(p.shaders[0].size() == 3);
  const InstructionCost& load = p.shaders[0][0];
  CHECK(load.executions == 1);
  CHECK(load.active_lanes == 5);
  CHECK(load.helper_lanes == 3);
  // Launched at 40: waited 40-41, not selected 41-42.
  CHECK(load.stalls[static_cast<size_t>(StallReason::kWait)] == 1);
  CHECK(load.stalls[static_cast<size_t>(StallReason::kNotSelected)] == 1);
  const InstructionCost& branch = p.shaders[0][1];
  CHECK(branch.branch);
  CHECK(branch.divergent == 1);  // lanes 0-1 took it, 2-4 did not
  CHECK(branch.stalls[static_cast<size_t>(StallReason::kLongScoreboard)] ==
        343 - 43);
  CHECK(branch.stall_cycles() == 343 - 43 + 7);
  CHECK(p.shaders[0][2].executions == 0);
}

TEST_CASE("a mirror copies only what is new and closes resident spans",
          "[viz][live]") {
  trace::Trace src = SmallTrace();
  trace::Trace dst;
  TraceMirror m;
  m.Sync(src, &dst);
  CHECK(dst.warps.size() == 3);
  CHECK(dst.warps[2].end == trace::kStillResident);
  // The model closes the span and adds a warp and a register event.
  src.warps[2].end = 99;
  src.warps[2].instructions = 7;
  src.warps.push_back(src.warps[0]);
  src.registers.push_back(src.registers[0]);
  m.Sync(src, &dst);
  CHECK(dst.warps.size() == 4);
  CHECK(dst.warps[2].end == 99);
  CHECK(dst.warps[2].instructions == 7);
  CHECK(dst.registers.size() == src.registers.size());
  CHECK(dst.quads.size() == src.quads.size());
}

TEST_CASE("a written trace reads back as it was", "[viz][reader]") {
  trace::Trace t = SmallTrace();
  t.warps[2].end = 100;  // written traces are finished
  t.detail = trace::Detail::kInstructions;
  t.clock_mhz = 1755;
  trace::CounterSample c;
  c.cycle = 64;
  c.sm = 1;
  c.resident_warps = 2;
  c.registers_allocated = 2048;
  c.shared_allocated = 4096;
  c.issued = 12;
  c.interval = 64;
  c.stalls[static_cast<size_t>(StallReason::kWait)] = 30;
  t.counters = {c};
  const std::string path =
      (std::filesystem::temp_directory_path() / "viz_model_test_trace.json")
          .string();
  REQUIRE(trace::WriteChromeTrace(t, path).ok());
  trace::Trace r;
  const Status s = ReadTrace(path, &r);
  INFO((s.ok() ? "" : s.error().ToString()));
  REQUIRE(s.ok());
  std::filesystem::remove(path);
  CHECK(r.sms == 2);
  CHECK(r.clock_mhz == 1755);
  CHECK(r.detail == trace::Detail::kInstructions);
  REQUIRE(r.runs.size() == 1);
  CHECK(r.runs[0].name == t.runs[0].name);
  REQUIRE(r.warps.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(r.warps[i].warp == t.warps[i].warp);
    CHECK(r.warps[i].sm == t.warps[i].sm);
    CHECK(r.warps[i].sub_partition == t.warps[i].sub_partition);
    CHECK(r.warps[i].slot == t.warps[i].slot);
    CHECK(r.warps[i].begin == t.warps[i].begin);
    CHECK(r.warps[i].end == t.warps[i].end);
    CHECK(r.warps[i].stage == t.warps[i].stage);
    CHECK(r.warps[i].registers == t.warps[i].registers);
    CHECK(r.warps[i].instructions == t.warps[i].instructions);
    CHECK(r.warps[i].run == 0);
  }
  REQUIRE(r.registers.size() == t.registers.size());
  CHECK(r.registers[2].allocate == false);
  CHECK(r.registers[3].first == 1024);
  REQUIRE(r.counters.size() == 1);
  CHECK(r.counters[0].cycle == 64);
  CHECK(r.counters[0].interval == 64);
  CHECK(r.counters[0].issued == 12);
  CHECK(r.counters[0].shared_allocated == 4096);
  CHECK(r.counters[0].stalls == c.stalls);
  REQUIRE(r.instructions.size() == 2);
  CHECK(r.instructions[1].op == "OpBranchConditional");
  CHECK(r.instructions[1].taken == 3);
  CHECK(r.instructions[1].ready == 343);
  CHECK(r.instructions[1].waited == StallReason::kLongScoreboard);
  CHECK(r.instructions[0].helpers == 0x0e);
  REQUIRE(r.quads.size() == 3);
  CHECK(r.quads[2].coverage == 7);
  REQUIRE(r.shaders.size() == 1);
  CHECK(r.shaders[0].lines == t.shaders[0].lines);
  CHECK(r.shaders[0].source == t.shaders[0].source);
  CHECK(r.shaders[0].source_lines == t.shaders[0].source_lines);
}

TEST_CASE("a trace that is not warpsim's is a clear error", "[viz][reader]") {
  trace::Trace r;
  Status s = ParseTrace("{\"traceEvents\": [", "t.json", &r);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("t.json") != std::string::npos);
  CHECK(s.error().message.find("not JSON") != std::string::npos);
  s = ParseTrace("[1, 2]", "t.json", &r);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("traceEvents") != std::string::npos);
  s = ParseTrace(
      R"({"traceEvents":[{"name":"x","ph":"X","args":{"stage":"vertex"}}]})",
      "t.json", &r);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("event 0") != std::string::npos);
  CHECK_FALSE(ReadTrace("/nonexistent/trace.json", &r).ok());
  RunData d;
  s = LoadRunDir("/nonexistent-run-dir", &d);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("not a directory") != std::string::npos);
}

}  // namespace
}  // namespace warpsim::viz
