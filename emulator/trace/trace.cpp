// The names of stages, stall reasons and detail levels, and the Chrome
// trace-event writer.
//
// The writer streams: each event is formatted into a buffer that goes to the
// file in blocks of about a megabyte, so a trace of millions of instruction
// events never exists as one document in memory. The output is a function of
// the Trace alone (events in the order of its vectors, metadata sorted by
// SM and thread, numbers by std::to_chars), so identical traces give
// byte-identical files.
#include "trace/trace.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <system_error>
#include <tuple>
#include <utility>

namespace warpsim::trace {
namespace {

constexpr std::array<std::string_view, 3> kStageNames = {"vertex", "fragment",
                                                         "compute"};
constexpr std::array<std::string_view, kStallReasons> kStallReasonNames = {
    "selected",
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
constexpr std::array<std::string_view, 3> kDetailNames = {"summary", "warps",
                                                          "instructions"};

// Appends `s` as a JSON string literal. Labels and run names are bytes from
// the input: control characters are escaped, and each maximal ill-formed
// UTF-8 subsequence (Unicode §3.9, "U+FFFD substitution of maximal
// subparts") becomes one U+FFFD, so the file is always valid UTF-8 JSON.
void AppendJsonString(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<uint8_t>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out->append("\\\"");
          break;
        case '\\':
          out->append("\\\\");
          break;
        case '\b':
          out->append("\\b");
          break;
        case '\f':
          out->append("\\f");
          break;
        case '\n':
          out->append("\\n");
          break;
        case '\r':
          out->append("\\r");
          break;
        case '\t':
          out->append("\\t");
          break;
        default:
          if (c < 0x20) {
            out->append("\\u00");
            out->push_back(kHex[c >> 4]);
            out->push_back(kHex[c & 0xf]);
          } else {
            out->push_back(static_cast<char>(c));
          }
      }
      ++i;
      continue;
    }
    // Unicode Table 3-7: the lead byte fixes the sequence's length and the
    // range of its second byte (which excludes overlong forms, surrogates
    // and code points past U+10FFFF); later bytes are 80..BF.
    size_t len = 0;
    uint8_t lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c == 0xE0) {
      len = 3, lo = 0xA0;
    } else if (c == 0xED) {
      len = 3, hi = 0x9F;
    } else if (c >= 0xE1 && c <= 0xEF) {
      len = 3;
    } else if (c == 0xF0) {
      len = 4, lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) {
      len = 4;
    } else if (c == 0xF4) {
      len = 4, hi = 0x8F;
    }
    size_t n = 1;  // bytes of the sequence that are well-formed so far
    while (len != 0 && n < len && i + n < s.size()) {
      const auto b = static_cast<uint8_t>(s[i + n]);
      if (n == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) break;
      ++n;
    }
    if (len != 0 && n == len) {
      out->append(s.substr(i, len));
    } else {
      out->append(kReplacement);
    }
    i += n;
  }
  out->push_back('"');
}

// Formats JSON text into a buffer and hands it to `file` in large blocks.
// The first failed write is remembered (with its errno); later output is
// dropped, and Finish() reports it.
class JsonWriter {
 public:
  explicit JsonWriter(std::FILE* file) : file_(file) {
    buf_.reserve(kBlock + 4096);
  }

  JsonWriter& Raw(std::string_view s) {
    buf_.append(s);
    return *this;
  }
  JsonWriter& Str(std::string_view s) {
    AppendJsonString(&buf_, s);
    return *this;
  }
  JsonWriter& Uint(uint64_t v) {
    char tmp[24];
    const auto r = std::to_chars(tmp, tmp + sizeof(tmp), v);
    buf_.append(tmp, r.ptr);
    return *this;
  }
  JsonWriter& Int(int64_t v) {
    char tmp[24];
    const auto r = std::to_chars(tmp, tmp + sizeof(tmp), v);
    buf_.append(tmp, r.ptr);
    return *this;
  }
  // Shortest text that reads back as the same double, without locale;
  // JSON has no NaN or infinity, so those are null.
  JsonWriter& Double(double v) {
    if (!std::isfinite(v)) return Raw("null");
    char tmp[32];
    const auto r = std::to_chars(tmp, tmp + sizeof(tmp), v);
    buf_.append(tmp, r.ptr);
    return *this;
  }

  // Starts an event: `{"name":NAME,"ph":"PH"`, after a separator.
  JsonWriter& BeginEvent(std::string_view name, std::string_view ph) {
    Raw(events_ == 0 ? "\n" : ",\n");
    ++events_;
    return Raw("{\"name\":").Str(name).Raw(",\"ph\":\"").Raw(ph).Raw("\"");
  }
  // Ends an event, and writes the buffer out once it holds a block.
  void EndEvent() {
    buf_.push_back('}');
    FlushBlock();
  }
  // Writes the buffer out once it holds a block.
  void FlushBlock() {
    if (buf_.size() >= kBlock) Flush();
  }

  // Writes out what is buffered; false (with error() set) on failure.
  bool Flush() {
    if (error_ == 0 && !buf_.empty()) {
      errno = 0;
      if (std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) {
        error_ = errno != 0 ? errno : EIO;
      }
    }
    buf_.clear();
    return error_ == 0;
  }
  int error() const { return error_; }

 private:
  static constexpr size_t kBlock = size_t{1} << 20;
  std::FILE* file_;
  std::string buf_;
  uint64_t events_ = 0;
  int error_ = 0;
};

// The thread of an SM process that shows a warp slot.
uint64_t Tid(const Trace& t, uint32_t sub_partition, uint32_t slot) {
  return uint64_t{sub_partition} * t.slots_per_sub_partition + slot;
}

// Where a warp stayed, to put its register events on its slot's thread
// (RegisterEvent does not carry the slot). Sorted by (sm, sub-partition,
// warp, begin); a lookup takes the span that contains the event's cycle,
// else the first span of that warp there.
struct SpanKey {
  uint32_t sm, sub_partition;
  uint64_t warp, begin, end;
  uint32_t slot;
};

auto Group(const SpanKey& k) { return std::tie(k.sm, k.sub_partition, k.warp); }
auto Order(const SpanKey& k) {
  return std::tie(k.sm, k.sub_partition, k.warp, k.begin, k.end, k.slot);
}

class SlotIndex {
 public:
  explicit SlotIndex(const std::vector<WarpSpan>& warps) {
    keys_.reserve(warps.size());
    for (const WarpSpan& w : warps) {
      keys_.push_back({w.sm, w.sub_partition, w.warp, w.begin, w.end, w.slot});
    }
    std::sort(keys_.begin(), keys_.end(),
              [](const auto& a, const auto& b) { return Order(a) < Order(b); });
  }
  // False when no span of the event's warp was on its sub-partition.
  bool Find(const RegisterEvent& e, uint32_t* slot) const {
    const SpanKey probe{e.sm, e.sub_partition, e.warp, 0, 0, 0};
    auto it = std::lower_bound(
        keys_.begin(), keys_.end(), probe,
        [](const auto& a, const auto& b) { return Group(a) < Group(b); });
    if (it == keys_.end() || Group(*it) != Group(probe)) return false;
    *slot = it->slot;
    for (; it != keys_.end() && Group(*it) == Group(probe); ++it) {
      if (it->begin <= e.cycle && e.cycle <= it->end) {
        *slot = it->slot;
        break;
      }
    }
    return true;
  }

 private:
  std::vector<SpanKey> keys_;
};

// The SMs that appear in the trace, in order.
std::set<uint32_t> SmsOf(const Trace& t) {
  std::set<uint32_t> sms;
  for (const WarpSpan& s : t.warps) sms.insert(s.sm);
  for (const RegisterEvent& e : t.registers) sms.insert(e.sm);
  for (const CounterSample& c : t.counters) sms.insert(c.sm);
  for (const InstructionEvent& e : t.instructions) sms.insert(e.sm);
  return sms;
}

// Names the tracks: a process per SM that appears, a thread per warp slot
// that appears, and the "runs" process.
void WriteMetadata(const Trace& t, const std::set<uint32_t>& sms,
                   uint32_t runs_pid, JsonWriter& w) {
  std::set<std::pair<uint32_t, std::pair<uint32_t, uint32_t>>> threads;
  for (const WarpSpan& s : t.warps) {
    threads.insert({s.sm, {s.sub_partition, s.slot}});
  }
  for (const InstructionEvent& e : t.instructions) {
    threads.insert({e.sm, {e.sub_partition, e.slot}});
  }

  for (uint32_t sm : sms) {
    w.BeginEvent("process_name", "M").Raw(",\"pid\":").Uint(sm);
    w.Raw(",\"tid\":0,\"args\":{\"name\":")
        .Str("SM " + std::to_string(sm))
        .Raw("}");
    w.EndEvent();
    w.BeginEvent("process_sort_index", "M").Raw(",\"pid\":").Uint(sm);
    w.Raw(",\"tid\":0,\"args\":{\"sort_index\":").Uint(sm).Raw("}");
    w.EndEvent();
  }
  for (const auto& [sm, where] : threads) {
    const auto [sub_partition, slot] = where;
    const uint64_t tid = Tid(t, sub_partition, slot);
    w.BeginEvent("thread_name", "M").Raw(",\"pid\":").Uint(sm);
    w.Raw(",\"tid\":").Uint(tid).Raw(",\"args\":{\"name\":");
    w.Str("SMSP " + std::to_string(sub_partition) + " slot " +
          std::to_string(slot))
        .Raw("}");
    w.EndEvent();
    w.BeginEvent("thread_sort_index", "M").Raw(",\"pid\":").Uint(sm);
    w.Raw(",\"tid\":").Uint(tid).Raw(",\"args\":{\"sort_index\":");
    w.Uint(tid).Raw("}");
    w.EndEvent();
  }
  if (t.runs.empty() && !t.instructions_truncated) return;
  w.BeginEvent("process_name", "M").Raw(",\"pid\":").Uint(runs_pid);
  w.Raw(",\"tid\":0,\"args\":{\"name\":\"runs\"}");
  w.EndEvent();
  w.BeginEvent("process_sort_index", "M").Raw(",\"pid\":").Uint(runs_pid);
  w.Raw(",\"tid\":0,\"args\":{\"sort_index\":").Uint(runs_pid).Raw("}");
  w.EndEvent();
  w.BeginEvent("thread_name", "M").Raw(",\"pid\":").Uint(runs_pid);
  w.Raw(",\"tid\":0,\"args\":{\"name\":\"draws and dispatches\"}");
  w.EndEvent();
}

// ,"ts":TS,"dur":DUR,"pid":PID,"tid":TID (a complete event's placement).
void Place(JsonWriter& w, uint64_t ts, uint64_t dur, uint64_t pid,
           uint64_t tid) {
  w.Raw(",\"ts\":").Uint(ts).Raw(",\"dur\":").Uint(dur);
  w.Raw(",\"pid\":").Uint(pid).Raw(",\"tid\":").Uint(tid);
}

void WriteRuns(const Trace& t, uint32_t runs_pid, JsonWriter& w) {
  for (size_t i = 0; i < t.runs.size(); ++i) {
    const RunInfo& r = t.runs[i];
    w.BeginEvent(r.name, "X");
    Place(w, r.begin, r.end >= r.begin ? r.end - r.begin : 0, runs_pid, 0);
    w.Raw(",\"args\":{\"run\":").Uint(i).Raw("}");
    w.EndEvent();
  }
}

void WriteWarps(const Trace& t, JsonWriter& w) {
  std::string name;
  for (const WarpSpan& s : t.warps) {
    name = StageName(s.stage);
    if (!s.label.empty()) name.append(" ").append(s.label);
    w.BeginEvent(name, "X");
    const bool closed = s.end != kStillResident && s.end >= s.begin;
    Place(w, s.begin, closed ? s.end - s.begin : 0, s.sm,
          Tid(t, s.sub_partition, s.slot));
    w.Raw(",\"args\":{\"warp\":").Uint(s.warp);
    w.Raw(",\"stage\":").Str(StageName(s.stage));
    w.Raw(",\"run\":").Str(s.run < t.runs.size() ? t.runs[s.run].name : "");
    w.Raw(",\"registers\":").Uint(s.registers);
    w.Raw(",\"instructions\":").Uint(s.instructions);
    if (s.shader != kNoShader) w.Raw(",\"shader\":").Uint(s.shader);
    w.Raw("}");
    w.EndEvent();
  }
}

void WriteRegisters(const Trace& t, JsonWriter& w) {
  const SlotIndex index(t.warps);
  std::string name;
  for (const RegisterEvent& e : t.registers) {
    name = e.allocate ? "alloc r" : "free r";
    name += std::to_string(e.first);
    name += "-r";
    name += std::to_string(uint64_t{e.first} + e.count - (e.count > 0));
    w.BeginEvent(name, "i").Raw(",\"ts\":").Uint(e.cycle);
    w.Raw(",\"pid\":").Uint(e.sm);
    uint32_t slot = 0;
    if (index.Find(e, &slot)) {
      w.Raw(",\"tid\":").Uint(Tid(t, e.sub_partition, slot));
      w.Raw(",\"s\":\"t\"");
    } else {
      // No span of this warp: the event goes on the SM's process track.
      w.Raw(",\"tid\":0,\"s\":\"p\"");
    }
    w.Raw(",\"args\":{\"warp\":").Uint(e.warp);
    w.Raw(",\"sub_partition\":").Uint(e.sub_partition);
    w.Raw(",\"first\":").Uint(e.first);
    w.Raw(",\"count\":").Uint(e.count).Raw("}");
    w.EndEvent();
  }
}

// A sample's gauges (resident warps, registers) hold at its cycle; its rates
// (issue slots, stalls) cover the interval before it, so they are placed at
// the interval's start and the viewer's step covers that interval.
void WriteCounters(const Trace& t, JsonWriter& w) {
  for (const CounterSample& c : t.counters) {
    const uint64_t start = c.cycle >= c.interval ? c.cycle - c.interval : 0;
    w.BeginEvent("resident warps", "C").Raw(",\"ts\":").Uint(c.cycle);
    w.Raw(",\"pid\":").Uint(c.sm).Raw(",\"tid\":0,\"args\":{\"value\":");
    w.Uint(c.resident_warps).Raw("}");
    w.EndEvent();
    w.BeginEvent("registers allocated", "C").Raw(",\"ts\":").Uint(c.cycle);
    w.Raw(",\"pid\":").Uint(c.sm).Raw(",\"tid\":0,\"args\":{\"value\":");
    w.Uint(c.registers_allocated).Raw("}");
    w.EndEvent();
    const double slots = static_cast<double>(c.interval) * t.sub_partitions;
    w.BeginEvent("shared memory allocated", "C").Raw(",\"ts\":").Uint(c.cycle);
    w.Raw(",\"pid\":").Uint(c.sm).Raw(",\"tid\":0,\"args\":{\"value\":");
    w.Uint(c.shared_allocated).Raw("}");
    w.EndEvent();
    w.BeginEvent("issue slots used", "C").Raw(",\"ts\":").Uint(start);
    w.Raw(",\"pid\":").Uint(c.sm).Raw(",\"tid\":0,\"args\":{\"value\":");
    w.Double(slots > 0 ? static_cast<double>(c.issued) / slots : 0.0);
    w.Raw("}");
    w.EndEvent();
    w.BeginEvent("stalls", "C").Raw(",\"ts\":").Uint(start);
    w.Raw(",\"pid\":").Uint(c.sm).Raw(",\"tid\":0,\"args\":{");
    for (size_t r = 0; r < kStallReasons; ++r) {
      w.Raw(r == 0 ? "" : ",").Str(kStallReasonNames[r]).Raw(":");
      w.Uint(c.stalls[r]);
    }
    w.Raw("}");
    w.EndEvent();
  }
}

void WriteInstructions(const Trace& t, uint32_t runs_pid, JsonWriter& w) {
  static constexpr char kHex[] = "0123456789abcdef";
  uint64_t last = 0;
  for (const InstructionEvent& e : t.instructions) {
    last = std::max(last, e.cycle);
    w.BeginEvent(e.op, "X");
    Place(w, e.cycle, 1, e.sm, Tid(t, e.sub_partition, e.slot));
    w.Raw(",\"args\":{\"warp\":").Uint(e.warp);
    w.Raw(",\"pc\":").Uint(e.pc);
    char active[] = "\"0x00000000\"";
    for (int d = 0; d < 8; ++d)
      active[10 - d] = kHex[(e.active >> 4 * d) & 0xf];
    w.Raw(",\"active\":").Raw(active);
    w.Raw(",\"helpers\":").Uint(e.helpers);
    if (e.op == "OpBranchConditional" || e.op == "OpSwitch") {
      w.Raw(",\"taken\":").Uint(e.taken);
    }
    w.Raw(",\"latency\":").Uint(e.latency);
    if (e.shader != kNoShader) w.Raw(",\"shader\":").Uint(e.shader);
    w.Raw(",\"ready\":").Uint(e.ready);
    w.Raw(",\"waited\":").Str(StallReasonName(e.waited)).Raw("}");
    w.EndEvent();
  }
  if (!t.instructions_truncated) return;
  w.BeginEvent("instruction events stop here: max_instruction_events (" +
                   std::to_string(t.max_instruction_events) + ") reached",
               "i");
  w.Raw(",\"ts\":").Uint(last).Raw(",\"pid\":").Uint(runs_pid);
  w.Raw(",\"tid\":0,\"s\":\"p\",\"args\":{\"max_instruction_events\":");
  w.Uint(t.max_instruction_events).Raw("}");
  w.EndEvent();
}

// "otherData": the machine and the detail level, shown by chrome://tracing
// as the trace's metadata.
void WriteOtherData(const Trace& t, JsonWriter& w) {
  w.Raw("\"otherData\":{\"time_unit\":\"1 us = 1 cycle\",\"clock_mhz\":");
  w.Double(t.clock_mhz);
  w.Raw(",\"sms\":").Uint(t.sms);
  w.Raw(",\"sub_partitions\":").Uint(t.sub_partitions);
  w.Raw(",\"slots_per_sub_partition\":").Uint(t.slots_per_sub_partition);
  w.Raw(",\"registers_per_sub_partition\":")
      .Uint(t.registers_per_sub_partition);
  w.Raw(",\"detail\":").Str(DetailName(t.detail));
  w.Raw(",\"instructions_truncated\":")
      .Raw(t.instructions_truncated ? "true" : "false");
  w.Raw("}");
}

// "warpsim": what only warpsim's own readers use (the visualizer), after
// everything a trace viewer reads: Perfetto stops reading at a key it does
// not know, chrome://tracing ignores it. The quads of the fragment warps,
// each [warp, x, y, coverage, primitive], and the programs' listings.
void WriteWarpsimData(const Trace& t, JsonWriter& w) {
  w.Raw("\"warpsim\":{\"quads\":[");
  for (size_t i = 0; i < t.quads.size(); ++i) {
    const QuadRecord& q = t.quads[i];
    w.Raw(i == 0 ? "\n[" : (i % 8 == 0 ? ",\n[" : ",["));
    w.Uint(q.warp).Raw(",").Int(q.x).Raw(",").Int(q.y).Raw(",");
    w.Uint(q.coverage).Raw(",").Uint(q.primitive).Raw("]");
    w.FlushBlock();
  }
  w.Raw("],\n\"shaders\":[");
  for (size_t i = 0; i < t.shaders.size(); ++i) {
    const ShaderInfo& sh = t.shaders[i];
    w.Raw(i == 0 ? "\n{\"name\":" : ",\n{\"name\":").Str(sh.name);
    w.Raw(",\"stage\":").Str(StageName(sh.stage)).Raw(",\"lines\":[");
    for (size_t k = 0; k < sh.lines.size(); ++k) {
      w.Raw(k == 0 ? "\n" : ",\n").Str(sh.lines[k]);
      w.FlushBlock();
    }
    w.Raw("]");
    if (!sh.source.empty()) {
      w.Raw(",\"source\":[");
      for (size_t k = 0; k < sh.source.size(); ++k) {
        w.Raw(k == 0 ? "\n" : ",\n").Str(sh.source[k]);
      }
      w.Raw("],\"source_lines\":[");
      for (size_t k = 0; k < sh.source_lines.size(); ++k) {
        w.Raw(k == 0 ? "" : ",").Uint(sh.source_lines[k]);
      }
      w.Raw("]");
    }
    w.Raw("}");
  }
  w.Raw("]}");
}

}  // namespace

std::string_view StageName(Stage s) {
  const auto i = static_cast<size_t>(s);
  return i < kStageNames.size() ? kStageNames[i] : "unknown";
}

std::string_view StallReasonName(StallReason r) {
  const auto i = static_cast<size_t>(r);
  return i < kStallReasons ? kStallReasonNames[i] : "unknown";
}

std::string_view DetailName(Detail d) {
  const auto i = static_cast<size_t>(d);
  return i < kDetailNames.size() ? kDetailNames[i] : "unknown";
}

bool ParseDetail(std::string_view name, Detail* out) {
  for (size_t i = 0; i < kDetailNames.size(); ++i) {
    if (name == kDetailNames[i]) {
      if (out != nullptr) *out = static_cast<Detail>(i);
      return true;
    }
  }
  return false;
}

Status WriteChromeTrace(const Trace& trace, const std::string& path) {
  const std::string what = "cannot write trace '" + path + "': ";
  const std::string tmp = path + ".tmp";
  auto fail = [&](std::string message) -> Status {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    return InvalidInput(what + std::move(message));
  };

  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    return InvalidInput(what + "cannot create '" + tmp +
                        "': " + std::strerror(errno));
  }
  // The "runs" process follows the SMs (pid = sms), and any SM number a
  // malformed trace carries past them.
  const std::set<uint32_t> sms = SmsOf(trace);
  uint32_t runs_pid = trace.sms;
  if (!sms.empty()) runs_pid = std::max(runs_pid, *sms.rbegin() + 1);

  JsonWriter w(f);
  w.Raw("{\"traceEvents\":[");
  WriteMetadata(trace, sms, runs_pid, w);
  WriteRuns(trace, runs_pid, w);
  WriteWarps(trace, w);
  WriteRegisters(trace, w);
  WriteCounters(trace, w);
  WriteInstructions(trace, runs_pid, w);
  w.Raw("\n],\n");
  WriteOtherData(trace, w);
  w.Raw(",\n");
  WriteWarpsimData(trace, w);
  w.Raw("}\n");
  const bool written = w.Flush();
  const int write_errno = w.error();
  errno = 0;
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed) {
    const int err = !written ? write_errno : (errno != 0 ? errno : EIO);
    return fail("writing '" + tmp + "' failed: " + std::strerror(err));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return fail("renaming '" + tmp + "' failed: " + ec.message());
  return {};
}

}  // namespace warpsim::trace
