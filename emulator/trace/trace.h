// What the SM timing model recorded of a run, for traces, reports and the
// visualizer: which warp was resident where and when, the register-file
// allocations, per-SM counters over time, and (optionally) every issued
// instruction. The timing model (sm/) fills a Trace; the writers here turn
// it into files. This module depends on base/ only, so that readers (the
// visualizer, the CLI) need nothing of the emulator's internals.
#ifndef WARPSIM_TRACE_TRACE_H_
#define WARPSIM_TRACE_TRACE_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostic.h"

namespace warpsim::trace {

enum class Stage : uint8_t { kVertex, kFragment, kCompute };
std::string_view StageName(Stage s);  // "vertex", "fragment", "compute"

// Why a resident warp did not issue in a cycle, named as Nsight Compute
// names warp states (REFERENCE §9.4), plus "selected" for the cycles it
// issued. kIdle is counted per sub-partition, for cycles with no resident
// warp at all.
enum class StallReason : uint8_t {
  kSelected,          // issued this cycle
  kLongScoreboard,    // waits on a global, local or image memory result
  kShortScoreboard,   // waits on shared memory or an SFU (MUFU) result
  kWait,              // waits on a fixed-latency result (dependency)
  kBarrier,           // waits at a workgroup barrier
  kMathPipeThrottle,  // its pipe is busy with an earlier instruction
  kLgThrottle,        // the load/store pipe is busy
  kTexThrottle,       // the texture pipe is busy
  kNoInstruction,     // being switched in (swap mode) or just launched
  kNotSelected,       // eligible, but the scheduler picked another warp
  kIdle,              // (sub-partition) no resident warp
  kCount
};
inline constexpr size_t kStallReasons =
    static_cast<size_t>(StallReason::kCount);
// "selected", "long_scoreboard", ... "idle".
std::string_view StallReasonName(StallReason r);
using StallCounts = std::array<uint64_t, kStallReasons>;

// WarpSpan::end of a warp that is still resident (a trace read while the
// model runs, trace::Observer).
inline constexpr uint64_t kStillResident = ~uint64_t{0};
// WarpSpan::shader and InstructionEvent::shader when the program is not
// listed in Trace::shaders.
inline constexpr uint32_t kNoShader = ~uint32_t{0};

// One warp's stay on an SM: from becoming resident (registers allocated) to
// retiring (registers released). Listed in launch order.
struct WarpSpan {
  uint32_t sm = 0;
  uint32_t sub_partition = 0;
  uint32_t slot = 0;            // warp slot within the sub-partition
  uint64_t warp = 0;            // run-wide warp number (launch order)
  uint64_t begin = 0, end = 0;  // cycles
  Stage stage = Stage::kCompute;
  uint32_t run = 0;        // index into Trace::runs
  std::string label;       // "workgroup (1, 0, 0) subgroup 0", "primitives 3-5"
  uint32_t registers = 0;  // registers per thread
  uint64_t instructions = 0;    // warp instructions it issued
  uint32_t shader = kNoShader;  // index into Trace::shaders
};

// One 2x2 quad of a fragment warp: the pixels the warp shaded. Quad k of a
// warp runs in its lanes 4k..4k+3; lane 4k + i shades pixel
// (x + (i & 1), y + (i >> 1)).
struct QuadRecord {
  uint64_t warp = 0;       // WarpSpan::warp
  int32_t x = 0, y = 0;    // the quad's top-left pixel (even coordinates)
  uint8_t coverage = 0;    // bit i: pixel i covered; the others are helpers
  uint32_t primitive = 0;  // the primitive the quad belongs to
};

// A program the warps ran, with one line of text per instruction (its
// index, the InstructionEvent's pc).
struct ShaderInfo {
  std::string name;  // "draw 0 (pipeline 'gfx') fragment"
  Stage stage = Stage::kCompute;
  std::vector<std::string> lines;
  // Where the module carries them (GLSL compiled with debug information):
  // its source text, one entry per line, and per instruction the line it
  // came from (1-based; 0: none). Both empty otherwise.
  std::vector<std::string> source;
  std::vector<uint32_t> source_lines;
};

// A warp's registers taken from or given back to its sub-partition's file.
struct RegisterEvent {
  uint64_t cycle = 0;
  uint32_t sm = 0;
  uint32_t sub_partition = 0;
  uint64_t warp = 0;
  uint32_t first = 0;  // first register of the range in the file
  uint32_t count = 0;  // registers (a multiple of the allocation unit)
  bool allocate = true;
};

// An SM's state over the `interval` cycles that end at `cycle`.
struct CounterSample {
  uint64_t cycle = 0;
  uint32_t sm = 0;
  uint32_t resident_warps = 0;       // at `cycle`
  uint32_t registers_allocated = 0;  // at `cycle`, all sub-partitions
  uint32_t shared_allocated = 0;     // bytes of shared memory at `cycle`
  uint64_t issued = 0;               // warp instructions in the interval
  uint64_t interval = 0;             // cycles
  StallCounts stalls{};              // warp-cycles by reason in the interval
};

// One issued warp instruction (--trace-detail instructions).
struct InstructionEvent {
  uint64_t cycle = 0;
  uint32_t sm = 0;
  uint32_t sub_partition = 0;
  uint32_t slot = 0;
  uint64_t warp = 0;
  uint32_t pc = 0;              // instruction index in the program
  std::string_view op;          // "OpFAdd" (a static string)
  uint32_t active = 0;          // lanes that executed it
  uint32_t helpers = 0;         // of them, helper lanes
  uint32_t taken = 0;           // a conditional branch's lanes that took it
  uint32_t latency = 0;         // cycles until its result is ready
  uint32_t shader = kNoShader;  // index into Trace::shaders
  // Before it issued, the warp waited for `waited` (the reason of its last
  // wait: a dependency, memory, a barrier, ...) until cycle `ready`, and
  // was eligible but not selected from `ready` to `cycle`.
  uint64_t ready = 0;
  StallReason waited = StallReason::kWait;
};

// A draw or a dispatch.
struct RunInfo {
  std::string name;             // "draw 0 (pipeline 'gfx')", "dispatch 1 ..."
  uint64_t begin = 0, end = 0;  // cycles
};

enum class Detail : uint8_t { kSummary, kWarps, kInstructions };
std::string_view DetailName(Detail d);  // "summary", "warps", "instructions"
bool ParseDetail(std::string_view name, Detail* out);

struct Trace {
  double clock_mhz = 0;
  uint32_t sms = 0;
  uint32_t sub_partitions = 0;
  uint32_t slots_per_sub_partition = 0;
  uint32_t registers_per_sub_partition = 0;
  Detail detail = Detail::kWarps;
  std::vector<RunInfo> runs;
  std::vector<WarpSpan> warps;                 // kWarps and kInstructions
  std::vector<RegisterEvent> registers;        // kWarps and kInstructions
  std::vector<CounterSample> counters;         // every detail
  std::vector<InstructionEvent> instructions;  // kInstructions
  std::vector<QuadRecord> quads;               // kWarps and kInstructions
  std::vector<ShaderInfo> shaders;             // kWarps and kInstructions
  uint64_t max_instruction_events = 1'000'000;
  bool instructions_truncated = false;  // max_instruction_events reached
};

// Watches a trace as the timing model fills it (the visualizer's live
// mode). The model calls OnProgress() on the thread that runs it, between
// two cycles, once the cycle the previous call returned has come (the
// first call comes at the first cycle), and once more when each run
// (draw or dispatch) ends. Inside the call the observer may read `trace`
// (its vectors only grow, and a span's end changes from kStillResident
// once) and may block, which pauses the model.
class Observer {
 public:
  virtual ~Observer() = default;
  // `cycle`: the model's clock; `issued`: warp instructions issued so far.
  // Returns the cycle of the next call (cycle + 1 to step one cycle).
  virtual uint64_t OnProgress(const Trace& trace, uint64_t cycle,
                              uint64_t issued) = 0;
  // Asked after each OnProgress(): true ends the run there, as a limit
  // the observer set (the viewer's stop or rerun).
  virtual bool StopRequested() const { return false; }
};

// Writes `trace` as Chrome trace-event JSON (opens in Perfetto UI and
// chrome://tracing): a process per SM, a thread per sub-partition warp
// slot, an "X" slice per resident warp, "C" counter tracks per SM, register
// allocation events as instant events with their ranges, and instruction
// slices. Timestamps are cycles shown as microseconds (1 cycle = 1 us), so
// the viewer's time axis reads in cycles. To a temporary file renamed at
// the end: no partial file is left on error.
Status WriteChromeTrace(const Trace& trace, const std::string& path);

}  // namespace warpsim::trace

#endif  // WARPSIM_TRACE_TRACE_H_
