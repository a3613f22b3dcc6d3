// The trace names and the Chrome trace-event writer (trace/trace.cpp): a
// small hand-built trace of two SMs is written, parsed back and checked
// event by event.
#include "trace/trace.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/temp_dir.h"

namespace warpsim::trace {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A fresh directory for one test, removed at scope end.
class TempDir : public warpsim::testing::TempDir {
 public:
  TempDir() : warpsim::testing::TempDir("warpsim_trace_test") {}
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Two SMs of four sub-partitions of 16 slots: a fragment warp on SM 0
// (SMSP 1 slot 4) and later another warp in the same slot, a compute warp
// on SM 1 whose label is not clean text, registers, counters and
// instructions.
Trace SmallTrace() {
  Trace t;
  t.clock_mhz = 1755;
  t.sms = 2;
  t.sub_partitions = 4;
  t.slots_per_sub_partition = 16;
  t.registers_per_sub_partition = 16384;
  t.detail = Detail::kInstructions;
  t.runs = {{"draw 0 (pipeline 'gfx')", 0, 500}, {"dispatch 1", 500, 900}};
  t.warps = {
      {.sm = 0,
       .sub_partition = 1,
       .slot = 4,
       .warp = 7,
       .begin = 10,
       .end = 110,
       .stage = Stage::kFragment,
       .run = 0,
       .label = "primitives 3-5",
       .registers = 32,
       .instructions = 20},
      {.sm = 1,
       .sub_partition = 0,
       .slot = 0,
       .warp = 8,
       .begin = 520,
       .end = 520,
       .stage = Stage::kCompute,
       .run = 1,
       .label = "bad\x01label\xff end",
       .registers = 64,
       .instructions = 0},
      {.sm = 0,
       .sub_partition = 1,
       .slot = 4,
       .warp = 9,
       .begin = 200,
       .end = 300,
       .stage = Stage::kVertex,
       .run = 0,
       .label = "",
       .registers = 32,
       .instructions = 3},
  };
  t.registers = {
      {.cycle = 10,
       .sm = 0,
       .sub_partition = 1,
       .warp = 7,
       .first = 256,
       .count = 256,
       .allocate = true},
      {.cycle = 110,
       .sm = 0,
       .sub_partition = 1,
       .warp = 7,
       .first = 256,
       .count = 256,
       .allocate = false},
      // A warp with no span: on the SM's process track.
      {.cycle = 5,
       .sm = 1,
       .sub_partition = 2,
       .warp = 99,
       .first = 0,
       .count = 8,
       .allocate = true},
  };
  CounterSample c0{.cycle = 100,
                   .sm = 0,
                   .resident_warps = 2,
                   .registers_allocated = 512,
                   .issued = 200,
                   .interval = 100};
  for (size_t r = 0; r < kStallReasons; ++r) c0.stalls[r] = 10 * r + 1;
  CounterSample c1{.cycle = 600,
                   .sm = 1,
                   .resident_warps = 1,
                   .registers_allocated = 256,
                   .issued = 1,
                   .interval = 100};
  t.counters = {c0, c1};
  t.instructions = {
      {.cycle = 12,
       .sm = 0,
       .sub_partition = 1,
       .slot = 4,
       .warp = 7,
       .pc = 3,
       .op = "OpFAdd",
       .active = 0xffff,
       .helpers = 0xf000,
       .latency = 4,
       .shader = 0,
       .ready = 10,
       .waited = StallReason::kLongScoreboard},
      {.cycle = 13,
       .sm = 0,
       .sub_partition = 1,
       .slot = 4,
       .warp = 7,
       .pc = 4,
       .op = "OpLoad",
       .active = 0xdeadbeef,
       .latency = 400},
  };
  t.max_instruction_events = 2;
  t.instructions_truncated = true;
  t.quads = {{.warp = 7, .x = 4, .y = 6, .coverage = 0xb, .primitive = 2},
             {.warp = 7, .x = -2, .y = 0, .coverage = 1, .primitive = 3}};
  t.shaders = {{.name = "draw 0 fragment",
                .stage = Stage::kFragment,
                .lines = {"OpLoad [lsu]", "OpFAdd [fma] r2 = r0, r1"},
                .source = {"#version 450", "void main() {}"},
                .source_lines = {0, 2}}};
  return t;
}

json WriteAndParse(const Trace& t, const TempDir& dir) {
  const std::string path = dir.Sub("trace.json");
  const Status s = WriteChromeTrace(t, path);
  INFO((s.ok() ? "" : s.error().ToString()));
  REQUIRE(s.ok());
  return json::parse(ReadFile(path));
}

// The events with this phase and name.
std::vector<json> Events(const json& doc, const std::string& ph,
                         const std::string& name) {
  std::vector<json> out;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == ph && e["name"] == name) out.push_back(e);
  }
  return out;
}

// The single event with this phase and name.
json Event(const json& doc, const std::string& ph, const std::string& name) {
  const std::vector<json> events = Events(doc, ph, name);
  INFO(ph << " " << name);
  REQUIRE(events.size() == 1);
  return events[0];
}

TEST_CASE("names of stages, stall reasons and detail levels", "[trace]") {
  CHECK(StageName(Stage::kVertex) == "vertex");
  CHECK(StageName(Stage::kFragment) == "fragment");
  CHECK(StageName(Stage::kCompute) == "compute");
  const std::vector<std::string_view> reasons = {"selected",
                                                 "long_scoreboard",
                                                 "short_scoreboard",
                                                 "wait",
                                                 "barrier",
                                                 "math_pipe_throttle",
                                                 "lg_throttle",
                                                 "tex_throttle",
                                                 "no_instruction",
                                                 "not_selected",
                                                 "idle"};
  REQUIRE(reasons.size() == kStallReasons);
  for (size_t r = 0; r < kStallReasons; ++r) {
    CHECK(StallReasonName(static_cast<StallReason>(r)) == reasons[r]);
  }
  for (Detail d : {Detail::kSummary, Detail::kWarps, Detail::kInstructions}) {
    Detail parsed = Detail::kSummary;
    REQUIRE(ParseDetail(DetailName(d), &parsed));
    CHECK(parsed == d);
  }
  CHECK(DetailName(Detail::kSummary) == "summary");
  CHECK(DetailName(Detail::kWarps) == "warps");
  CHECK(DetailName(Detail::kInstructions) == "instructions");
  Detail unchanged = Detail::kWarps;
  CHECK_FALSE(ParseDetail("warp", &unchanged));
  CHECK_FALSE(ParseDetail("", &unchanged));
  CHECK_FALSE(ParseDetail("Summary", &unchanged));
  CHECK(unchanged == Detail::kWarps);
}

TEST_CASE("SMs are processes and warp slots threads", "[trace]") {
  TempDir dir;
  const json doc = WriteAndParse(SmallTrace(), dir);
  CHECK_FALSE(doc.contains("displayTimeUnit"));

  std::vector<std::pair<int, std::string>> processes;
  for (const json& e : Events(doc, "M", "process_name")) {
    processes.emplace_back(e["pid"].get<int>(),
                           e["args"]["name"].get<std::string>());
  }
  CHECK(processes == std::vector<std::pair<int, std::string>>{
                         {0, "SM 0"}, {1, "SM 1"}, {2, "runs"}});
  std::vector<std::pair<int, int>> sort_index;
  for (const json& e : Events(doc, "M", "process_sort_index")) {
    sort_index.emplace_back(e["pid"].get<int>(),
                            e["args"]["sort_index"].get<int>());
  }
  CHECK(sort_index == std::vector<std::pair<int, int>>{{0, 0}, {1, 1}, {2, 2}});

  // tid = sub_partition * 16 + slot; only the slots in the trace.
  std::vector<std::tuple<int, int, std::string>> threads;
  for (const json& e : Events(doc, "M", "thread_name")) {
    threads.emplace_back(e["pid"].get<int>(), e["tid"].get<int>(),
                         e["args"]["name"].get<std::string>());
  }
  CHECK(threads == std::vector<std::tuple<int, int, std::string>>{
                       {0, 20, "SMSP 1 slot 4"},
                       {1, 0, "SMSP 0 slot 0"},
                       {2, 0, "draws and dispatches"}});
}

TEST_CASE("a run is a slice of the runs process", "[trace]") {
  TempDir dir;
  const json doc = WriteAndParse(SmallTrace(), dir);
  const json draw = Event(doc, "X", "draw 0 (pipeline 'gfx')");
  CHECK(draw["pid"] == 2);
  CHECK(draw["tid"] == 0);
  CHECK(draw["ts"] == 0);
  CHECK(draw["dur"] == 500);
  CHECK(draw["args"]["run"] == 0);
  const json dispatch = Event(doc, "X", "dispatch 1");
  CHECK(dispatch["ts"] == 500);
  CHECK(dispatch["dur"] == 400);
  CHECK(dispatch["args"]["run"] == 1);
}

TEST_CASE("a resident warp is a slice of its slot's thread", "[trace]") {
  TempDir dir;
  const json doc = WriteAndParse(SmallTrace(), dir);
  const json w = Event(doc, "X", "fragment primitives 3-5");
  CHECK(w["pid"] == 0);
  CHECK(w["tid"] == 20);
  CHECK(w["ts"] == 10);
  CHECK(w["dur"] == 100);
  CHECK(w["args"] == json{{"warp", 7},
                          {"stage", "fragment"},
                          {"run", "draw 0 (pipeline 'gfx')"},
                          {"registers", 32},
                          {"instructions", 20}});
  // No label: the stage alone.
  const json v = Event(doc, "X", "vertex");
  CHECK(v["ts"] == 200);
  CHECK(v["dur"] == 100);
  CHECK(v["args"]["warp"] == 9);
  // Control characters escaped, an invalid byte replaced; dur 0 kept.
  const json c = Event(doc, "X", "compute bad\x01label\xEF\xBF\xBD end");
  CHECK(c["pid"] == 1);
  CHECK(c["tid"] == 0);
  CHECK(c["ts"] == 520);
  CHECK(c["dur"] == 0);
  CHECK(c["args"]["run"] == "dispatch 1");
  CHECK(ReadFile(dir.Sub("trace.json"))
            .find("\"compute bad\\u0001label\xEF\xBF\xBD end\"") !=
        std::string::npos);
}

TEST_CASE("register events are instants on the warp's thread", "[trace]") {
  TempDir dir;
  const json doc = WriteAndParse(SmallTrace(), dir);
  const json alloc = Event(doc, "i", "alloc r256-r511");
  CHECK(alloc["ts"] == 10);
  CHECK(alloc["pid"] == 0);
  CHECK(alloc["tid"] == 20);
  CHECK(alloc["s"] == "t");
  CHECK(
      alloc["args"] ==
      json{{"warp", 7}, {"sub_partition", 1}, {"first", 256}, {"count", 256}});
  const json free = Event(doc, "i", "free r256-r511");
  CHECK(free["ts"] == 110);
  CHECK(free["tid"] == 20);
  CHECK(free["s"] == "t");
  // Warp 99 has no span: the SM's process track.
  const json orphan = Event(doc, "i", "alloc r0-r7");
  CHECK(orphan["pid"] == 1);
  CHECK(orphan["s"] == "p");
  CHECK(orphan["args"]["warp"] == 99);
}

TEST_CASE("counter samples are counter tracks of their SM", "[trace]") {
  TempDir dir;
  const json doc = WriteAndParse(SmallTrace(), dir);
  const std::vector<json> resident = Events(doc, "C", "resident warps");
  REQUIRE(resident.size() == 2);
  CHECK(resident[0]["pid"] == 0);
  CHECK(resident[0]["ts"] == 100);
  CHECK(resident[0]["args"] == json{{"value", 2}});
  CHECK(resident[1]["pid"] == 1);
  CHECK(resident[1]["ts"] == 600);
  CHECK(resident[1]["args"] == json{{"value", 1}});

  const std::vector<json> registers = Events(doc, "C", "registers allocated");
  REQUIRE(registers.size() == 2);
  CHECK(registers[0]["args"]["value"] == 512);
  CHECK(registers[1]["args"]["value"] == 256);

  // issued / (interval * sub-partitions), at the interval's start.
  const std::vector<json> issue = Events(doc, "C", "issue slots used");
  REQUIRE(issue.size() == 2);
  CHECK(issue[0]["ts"] == 0);
  CHECK(issue[0]["args"]["value"].get<double>() == 0.5);
  CHECK(issue[1]["ts"] == 500);
  CHECK(issue[1]["args"]["value"].get<double>() == 1.0 / 400);

  const std::vector<json> stalls = Events(doc, "C", "stalls");
  REQUIRE(stalls.size() == 2);
  CHECK(stalls[0]["pid"] == 0);
  CHECK(stalls[0]["ts"] == 0);
  REQUIRE(stalls[0]["args"].size() == kStallReasons);
  for (size_t r = 0; r < kStallReasons; ++r) {
    const std::string name(StallReasonName(static_cast<StallReason>(r)));
    CHECK(stalls[0]["args"][name] == 10 * r + 1);
    CHECK(stalls[1]["args"][name] == 0);
  }
}

TEST_CASE("instructions are one-cycle slices on the warp's thread", "[trace]") {
  TempDir dir;
  const json doc = WriteAndParse(SmallTrace(), dir);
  const json fadd = Event(doc, "X", "OpFAdd");
  CHECK(fadd["ts"] == 12);
  CHECK(fadd["dur"] == 1);
  CHECK(fadd["pid"] == 0);
  CHECK(fadd["tid"] == 20);
  CHECK(fadd["args"] == json{{"warp", 7},
                             {"pc", 3},
                             {"active", "0x0000ffff"},
                             {"helpers", 0xf000},
                             {"latency", 4},
                             {"shader", 0},
                             {"ready", 10},
                             {"waited", "long_scoreboard"}});
  const json load = Event(doc, "X", "OpLoad");
  CHECK(load["args"]["active"] == "0xdeadbeef");
  CHECK(load["args"]["latency"] == 400);
  CHECK_FALSE(load["args"].contains("shader"));  // kNoShader

  // Truncation is marked in the runs process where the events stop.
  const json stop =
      Event(doc, "i",
            "instruction events stop here: max_instruction_events (2) reached");
  CHECK(stop["pid"] == 2);
  CHECK(stop["ts"] == 13);
  CHECK(stop["args"]["max_instruction_events"] == 2);
  CHECK(doc["otherData"]["instructions_truncated"] == true);
  CHECK(doc["otherData"]["detail"] == "instructions");
  CHECK(doc["otherData"]["clock_mhz"] == 1755);
}

TEST_CASE("an empty trace is a valid document", "[trace]") {
  TempDir dir;
  const std::string path = dir.Sub("empty.json");
  REQUIRE(WriteChromeTrace(Trace{}, path).ok());
  CHECK(ReadFile(path) ==
        "{\"traceEvents\":[\n],\n"
        "\"otherData\":{\"time_unit\":\"1 us = 1 cycle\",\"clock_mhz\":0,"
        "\"sms\":0,\"sub_partitions\":0,\"slots_per_sub_partition\":0,"
        "\"registers_per_sub_partition\":0,\"detail\":\"warps\","
        "\"instructions_truncated\":false},\n"
        "\"warpsim\":{\"quads\":[],\n\"shaders\":[]}}\n");
  CHECK(json::parse(ReadFile(path))["traceEvents"].empty());
}

TEST_CASE("quads and shader listings come last, under \"warpsim\"", "[trace]") {
  TempDir dir;
  const json doc = WriteAndParse(SmallTrace(), dir);
  // Last: Perfetto stops reading at the first key it does not know.
  const std::string text = ReadFile(dir.Sub("trace.json"));
  CHECK(text.find("\"warpsim\"") > text.find("\"otherData\""));
  CHECK(doc["warpsim"]["quads"] == json::parse("[[7,4,6,11,2],[7,-2,0,1,3]]"));
  REQUIRE(doc["warpsim"]["shaders"].size() == 1);
  const json& sh = doc["warpsim"]["shaders"][0];
  CHECK(sh["name"] == "draw 0 fragment");
  CHECK(sh["stage"] == "fragment");
  CHECK(sh["lines"] ==
        json::parse(R"(["OpLoad [lsu]", "OpFAdd [fma] r2 = r0, r1"])"));
  CHECK(sh["source"] == json::parse(R"(["#version 450", "void main() {}"])"));
  CHECK(sh["source_lines"] == json::parse("[0, 2]"));
}

TEST_CASE("one warp's trace, byte for byte", "[trace]") {
  Trace t;
  t.sms = 1;
  t.sub_partitions = 4;
  t.slots_per_sub_partition = 16;
  t.warps = {{.sm = 0,
              .sub_partition = 2,
              .slot = 1,
              .warp = 0,
              .begin = 3,
              .end = 9,
              .stage = Stage::kCompute,
              .label = "wg 0",
              .registers = 16,
              .instructions = 2}};
  TempDir dir;
  const std::string path = dir.Sub("one.json");
  REQUIRE(WriteChromeTrace(t, path).ok());
  const std::string text = ReadFile(path);
  const std::string events = text.substr(0, text.find("\"otherData\""));
  CHECK(events ==
        "{\"traceEvents\":[\n"
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,"
        "\"args\":{\"name\":\"SM 0\"}},\n"
        "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":0,\"tid\":0,"
        "\"args\":{\"sort_index\":0}},\n"
        "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":33,"
        "\"args\":{\"name\":\"SMSP 2 slot 1\"}},\n"
        "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,\"tid\":33,"
        "\"args\":{\"sort_index\":33}},\n"
        "{\"name\":\"compute wg 0\",\"ph\":\"X\",\"ts\":3,\"dur\":6,"
        "\"pid\":0,\"tid\":33,\"args\":{\"warp\":0,\"stage\":\"compute\","
        "\"run\":\"\",\"registers\":16,\"instructions\":2}}\n"
        "],\n");
}

TEST_CASE("labels become valid JSON text", "[trace]") {
  struct Case {
    std::string label, expected;
  };
  const std::string fffd = "\xEF\xBF\xBD";
  const std::vector<Case> cases = {
      {"quote \" backslash \\", "quote \" backslash \\"},
      {"tab\tnewline\nreturn\r", "tab\tnewline\nreturn\r"},
      {std::string("nul\0x", 5), std::string("nul\0x", 5)},
      {"\x1f\x7f", "\x1f\x7f"},
      {"euro \xE2\x82\xAC", "euro \xE2\x82\xAC"},
      {"smile \xF0\x9F\x98\x80", "smile \xF0\x9F\x98\x80"},
      // Each maximal ill-formed subsequence is one U+FFFD.
      {"lone \x80", "lone " + fffd},
      {"overlong \xC0\xAF", "overlong " + fffd + fffd},
      {"cut \xE2\x82", "cut " + fffd},
      {"cut \xE2\x82 x", "cut " + fffd + " x"},
      {"surrogate \xED\xA0\x80", "surrogate " + fffd + fffd + fffd},
      {"past max \xF4\x90\x80\x80", "past max " + fffd + fffd + fffd + fffd},
      {"\xFF\xFE", fffd + fffd},
  };
  for (const Case& c : cases) {
    INFO(c.expected);
    Trace t;
    t.warps = {{.label = c.label}};
    TempDir dir;
    const json doc = WriteAndParse(t, dir);
    const std::vector<json> slices = Events(doc, "X", "compute " + c.expected);
    CHECK(slices.size() == 1);
  }
}

TEST_CASE("identical traces give identical files", "[trace]") {
  TempDir dir;
  const Trace t = SmallTrace();
  REQUIRE(WriteChromeTrace(t, dir.Sub("a.json")).ok());
  REQUIRE(WriteChromeTrace(t, dir.Sub("b.json")).ok());
  CHECK(ReadFile(dir.Sub("a.json")) == ReadFile(dir.Sub("b.json")));
  // Writing over an earlier trace replaces it, and leaves no .tmp.
  REQUIRE(WriteChromeTrace(Trace{}, dir.Sub("a.json")).ok());
  CHECK(json::parse(ReadFile(dir.Sub("a.json")))["traceEvents"].empty());
  CHECK(dir.Files() == std::vector<std::string>{"a.json", "b.json"});
}

TEST_CASE("a trace that cannot be written is an error and no file", "[trace]") {
  TempDir dir;
  // No such directory: the temporary file cannot be created.
  const std::string missing = dir.Sub("no/such/dir/trace.json");
  const Status s = WriteChromeTrace(SmallTrace(), missing);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().kind == ErrorKind::kInvalidInput);
  CHECK(s.error().message.find("cannot write trace '" + missing + "'") == 0);
  CHECK(s.error().message.find("No such file or directory") !=
        std::string::npos);
  CHECK(dir.Files().empty());

  // The path is a directory that is not empty: the rename fails, and the
  // temporary file is removed.
  fs::create_directories(dir.Sub("taken/inner"));
  const Status r = WriteChromeTrace(SmallTrace(), dir.Sub("taken"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("renaming '" + dir.Sub("taken") + ".tmp'") !=
        std::string::npos);
  CHECK(dir.Files() == std::vector<std::string>{"taken"});
}

}  // namespace
}  // namespace warpsim::trace
