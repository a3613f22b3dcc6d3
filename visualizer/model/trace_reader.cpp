// Reading warpsim's Chrome trace back: see trace_reader.h, and
// emulator/trace/README.md for the layout it inverts.
#include "model/trace_reader.h"

#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

namespace warpsim::viz {
namespace {

using nlohmann::json;

// Instruction events keep their opcode as a string_view to a static string;
// names read from a file are kept here for the life of the program.
std::string_view Intern(const std::string& name) {
  static std::mutex mu;
  static std::set<std::string, std::less<>> names;
  std::lock_guard<std::mutex> lock(mu);
  return *names.insert(name).first;
}

bool ParseStage(const std::string& name, trace::Stage* out) {
  for (auto s : {trace::Stage::kVertex, trace::Stage::kFragment,
                 trace::Stage::kCompute}) {
    if (trace::StageName(s) == name) {
      *out = s;
      return true;
    }
  }
  return false;
}

bool ParseReason(const std::string& name, trace::StallReason* out) {
  for (size_t r = 0; r < trace::kStallReasons; ++r) {
    if (trace::StallReasonName(static_cast<trace::StallReason>(r)) == name) {
      *out = static_cast<trace::StallReason>(r);
      return true;
    }
  }
  return false;
}

class Reader {
 public:
  Reader(const std::string& path, trace::Trace* out) : path_(path), t_(*out) {}

  Status Read(const json& doc) {
    if (!doc.is_object() || !doc.contains("traceEvents") ||
        !doc["traceEvents"].is_array()) {
      return Fail("no \"traceEvents\" array: not a trace warpsim wrote");
    }
    if (Status s = ReadOtherData(doc); !s.ok()) return s;
    const json& events = doc["traceEvents"];
    // Runs first: warp slices name their run.
    for (size_t i = 0; i < events.size(); ++i) {
      const json& e = events[i];
      if (Str(e, "ph") == "X" && e.contains("args") &&
          e["args"].contains("run") && !e["args"].contains("warp")) {
        if (Status s = ReadRun(e, i); !s.ok()) return s;
      }
    }
    for (size_t i = 0; i < events.size(); ++i) {
      if (Status s = ReadEvent(events[i], i); !s.ok()) return s;
    }
    FinishCounters();
    if (doc.contains("warpsim")) return ReadWarpsim(doc["warpsim"]);
    return {};
  }

 private:
  Status Fail(const std::string& message) const {
    return InvalidInput("trace '" + path_ + "': " + message);
  }
  Status Bad(size_t i, const std::string& what) const {
    return Fail("event " + std::to_string(i) + ": " + what);
  }
  static std::string Str(const json& e, const char* key) {
    auto it = e.find(key);
    return it != e.end() && it->is_string() ? it->get<std::string>() : "";
  }
  // An unsigned field, or false.
  static bool U(const json& e, const char* key, uint64_t* out) {
    auto it = e.find(key);
    if (it == e.end() || !it->is_number_unsigned()) return false;
    *out = it->get<uint64_t>();
    return true;
  }

  Status ReadOtherData(const json& doc) {
    if (!doc.contains("otherData")) return {};
    const json& o = doc["otherData"];
    if (!o.is_object()) return Fail("\"otherData\" is not an object");
    if (o.contains("clock_mhz") && o["clock_mhz"].is_number()) {
      t_.clock_mhz = o["clock_mhz"].get<double>();
    }
    uint64_t v = 0;
    if (U(o, "sms", &v)) t_.sms = static_cast<uint32_t>(v);
    if (U(o, "sub_partitions", &v))
      t_.sub_partitions = static_cast<uint32_t>(v);
    if (U(o, "slots_per_sub_partition", &v)) {
      t_.slots_per_sub_partition = static_cast<uint32_t>(v);
    }
    if (U(o, "registers_per_sub_partition", &v)) {
      t_.registers_per_sub_partition = static_cast<uint32_t>(v);
    }
    trace::Detail d;
    if (trace::ParseDetail(Str(o, "detail"), &d)) t_.detail = d;
    if (o.contains("instructions_truncated") &&
        o["instructions_truncated"].is_boolean()) {
      t_.instructions_truncated = o["instructions_truncated"].get<bool>();
    }
    return {};
  }

  Status ReadRun(const json& e, size_t i) {
    uint64_t ts = 0, dur = 0;
    if (!U(e, "ts", &ts) || !U(e, "dur", &dur))
      return Bad(i, "a run without ts/dur");
    run_index_[Str(e, "name")] = static_cast<uint32_t>(t_.runs.size());
    t_.runs.push_back({Str(e, "name"), ts, ts + dur});
    return {};
  }

  // The sub-partition and slot of a slot's thread id.
  bool Slot(uint64_t tid, uint32_t* sp, uint32_t* slot) const {
    if (t_.slots_per_sub_partition == 0) return false;
    *sp = static_cast<uint32_t>(tid / t_.slots_per_sub_partition);
    *slot = static_cast<uint32_t>(tid % t_.slots_per_sub_partition);
    return true;
  }

  Status ReadEvent(const json& e, size_t i) {
    if (!e.is_object()) return Bad(i, "not an object");
    const std::string ph = Str(e, "ph");
    if (ph == "M" || !e.contains("args")) return {};
    const json& a = e["args"];
    uint64_t pid = 0, tid = 0, ts = 0;
    if (ph == "X" && a.contains("stage")) {
      trace::WarpSpan s;
      uint64_t dur = 0, v = 0;
      if (!U(e, "pid", &pid) || !U(e, "tid", &tid) || !U(e, "ts", &ts) ||
          !U(e, "dur", &dur) || !U(a, "warp", &s.warp) ||
          !ParseStage(Str(a, "stage"), &s.stage) ||
          !Slot(tid, &s.sub_partition, &s.slot)) {
        return Bad(i, "a warp slice without pid, tid, ts, dur, warp or stage");
      }
      s.sm = static_cast<uint32_t>(pid);
      s.begin = ts;
      s.end = ts + dur;
      auto run = run_index_.find(Str(a, "run"));
      s.run = run != run_index_.end() ? run->second : 0;
      if (U(a, "registers", &v)) s.registers = static_cast<uint32_t>(v);
      U(a, "instructions", &s.instructions);
      if (U(a, "shader", &v)) s.shader = static_cast<uint32_t>(v);
      // The label: the name after the stage.
      const std::string name = Str(e, "name");
      const std::string stage(trace::StageName(s.stage));
      s.label =
          name.size() > stage.size() + 1 ? name.substr(stage.size() + 1) : "";
      t_.warps.push_back(std::move(s));
      return {};
    }
    if (ph == "X" && a.contains("pc")) {
      trace::InstructionEvent ev;
      uint64_t v = 0;
      if (!U(e, "pid", &pid) || !U(e, "tid", &tid) || !U(e, "ts", &ts) ||
          !U(a, "warp", &ev.warp) || !U(a, "pc", &v) ||
          !Slot(tid, &ev.sub_partition, &ev.slot)) {
        return Bad(i, "an instruction slice without pid, tid, ts, warp or pc");
      }
      ev.pc = static_cast<uint32_t>(v);
      ev.cycle = ts;
      ev.sm = static_cast<uint32_t>(pid);
      ev.op = Intern(Str(e, "name"));
      const std::string active = Str(a, "active");
      ev.active =
          static_cast<uint32_t>(std::strtoull(active.c_str(), nullptr, 16));
      if (U(a, "helpers", &v)) ev.helpers = static_cast<uint32_t>(v);
      if (U(a, "taken", &v)) ev.taken = static_cast<uint32_t>(v);
      if (U(a, "latency", &v)) ev.latency = static_cast<uint32_t>(v);
      if (U(a, "shader", &v)) ev.shader = static_cast<uint32_t>(v);
      if (!U(a, "ready", &ev.ready)) ev.ready = ts;
      if (!ParseReason(Str(a, "waited"), &ev.waited)) {
        ev.waited = trace::StallReason::kWait;
      }
      t_.instructions.push_back(ev);
      return {};
    }
    if (ph == "i" && a.contains("first")) {
      trace::RegisterEvent r;
      uint64_t v = 0;
      if (!U(e, "pid", &pid) || !U(e, "ts", &r.cycle) ||
          !U(a, "warp", &r.warp) || !U(a, "sub_partition", &v)) {
        return Bad(i,
                   "a register event without pid, ts, warp or sub_partition");
      }
      r.sm = static_cast<uint32_t>(pid);
      r.sub_partition = static_cast<uint32_t>(v);
      if (!U(a, "first", &v)) return Bad(i, "a register event without first");
      r.first = static_cast<uint32_t>(v);
      if (!U(a, "count", &v)) return Bad(i, "a register event without count");
      r.count = static_cast<uint32_t>(v);
      r.allocate = Str(e, "name").rfind("alloc", 0) == 0;
      t_.registers.push_back(r);
      return {};
    }
    if (ph == "C") {
      if (!U(e, "pid", &pid) || !U(e, "ts", &ts)) {
        return Bad(i, "a counter without pid or ts");
      }
      const std::string name = Str(e, "name");
      Counters& c = counters_[static_cast<uint32_t>(pid)];
      uint64_t v = 0;
      if (name == "resident warps" && U(a, "value", &v)) {
        c.gauges.push_back({ts, static_cast<uint32_t>(v), 0, 0});
      } else if (name == "registers allocated" && U(a, "value", &v)) {
        if (c.registers_seen < c.gauges.size()) {
          c.gauges[c.registers_seen++].registers = static_cast<uint32_t>(v);
        }
      } else if (name == "shared memory allocated" && U(a, "value", &v)) {
        if (c.shared_seen < c.gauges.size()) {
          c.gauges[c.shared_seen++].shared = static_cast<uint32_t>(v);
        }
      } else if (name == "issue slots used" && a.contains("value") &&
                 a["value"].is_number()) {
        c.issue.push_back(a["value"].get<double>());
      } else if (name == "stalls") {
        trace::StallCounts s{};
        for (size_t r = 0; r < trace::kStallReasons; ++r) {
          const std::string key(
              trace::StallReasonName(static_cast<trace::StallReason>(r)));
          U(a, key.c_str(), &s[r]);
        }
        c.stalls.push_back({ts, s});
      }
      return {};
    }
    return {};
  }

  // Counter samples: the k-th gauge pair, issue rate and stall set of an
  // SM are one sample (WriteChromeTrace writes them together).
  void FinishCounters() {
    for (auto& [sm, c] : counters_) {
      for (size_t k = 0; k < c.gauges.size(); ++k) {
        trace::CounterSample s;
        s.cycle = c.gauges[k].cycle;
        s.sm = sm;
        s.resident_warps = c.gauges[k].warps;
        s.registers_allocated = c.gauges[k].registers;
        s.shared_allocated = c.gauges[k].shared;
        if (k < c.stalls.size()) {
          s.interval = s.cycle - std::min(s.cycle, c.stalls[k].first);
          s.stalls = c.stalls[k].second;
        }
        if (k < c.issue.size()) {
          s.issued = static_cast<uint64_t>(c.issue[k] *
                                               static_cast<double>(s.interval) *
                                               std::max(1u, t_.sub_partitions) +
                                           0.5);
        }
        t_.counters.push_back(s);
      }
    }
    std::stable_sort(
        t_.counters.begin(), t_.counters.end(),
        [](const auto& a, const auto& b) { return a.cycle < b.cycle; });
  }

  Status ReadWarpsim(const json& w) {
    if (!w.is_object()) return Fail("\"warpsim\" is not an object");
    if (w.contains("quads")) {
      for (const json& q : w["quads"]) {
        if (!q.is_array() || q.size() != 5) {
          return Fail("a quad is not [warp, x, y, coverage, primitive]");
        }
        trace::QuadRecord r;
        r.warp = q[0].get<uint64_t>();
        r.x = q[1].get<int32_t>();
        r.y = q[2].get<int32_t>();
        r.coverage = static_cast<uint8_t>(q[3].get<uint32_t>() & 0xf);
        r.primitive = q[4].get<uint32_t>();
        t_.quads.push_back(r);
      }
    }
    if (w.contains("shaders")) {
      for (const json& s : w["shaders"]) {
        trace::ShaderInfo info;
        info.name = Str(s, "name");
        ParseStage(Str(s, "stage"), &info.stage);
        if (s.contains("lines")) {
          for (const json& l : s["lines"]) {
            info.lines.push_back(l.is_string() ? l.get<std::string>() : "");
          }
        }
        if (s.contains("source")) {
          for (const json& l : s["source"]) {
            info.source.push_back(l.is_string() ? l.get<std::string>() : "");
          }
        }
        if (s.contains("source_lines")) {
          for (const json& l : s["source_lines"]) {
            info.source_lines.push_back(l.get<uint32_t>());
          }
        }
        t_.shaders.push_back(std::move(info));
      }
    }
    return {};
  }

  struct Gauge {
    uint64_t cycle;
    uint32_t warps, registers, shared;
  };
  struct Counters {
    std::vector<Gauge> gauges;
    size_t registers_seen = 0, shared_seen = 0;
    std::vector<double> issue;
    std::vector<std::pair<uint64_t, trace::StallCounts>> stalls;
  };
  std::string path_;
  trace::Trace& t_;
  std::map<std::string, uint32_t> run_index_;
  std::map<uint32_t, Counters> counters_;
};

}  // namespace

Status ParseTrace(const std::string& text, const std::string& path,
                  trace::Trace* out) {
  *out = trace::Trace{};
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return InvalidInput("trace '" + path + "': not JSON (byte " +
                        std::to_string(e.byte) + "): " + e.what());
  }
  try {
    return Reader(path, out).Read(doc);
  } catch (const json::exception& e) {
    return InvalidInput("trace '" + path +
                        "': a field of the wrong type: " + e.what());
  }
}

Status ReadTrace(const std::string& path, trace::Trace* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidInput("cannot open trace '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return ParseTrace(text.str(), path, out);
}

}  // namespace warpsim::viz
