// `warpsim-vkref crosscheck`: one scene on a Vulkan device and in the
// emulator (in process, runner/runner.h), compared.
//
// What is compared (README.md, "crosscheck"):
//   - every buffer and image as the run left it, element by element under
//     compare.h's per-format rule;
//   - pipeline statistics side by side; only those both sides define the
//     same way are judged (primitives_in: the input assembly's primitives);
//     the others are reported with the reason they are not judged;
//   - the outcome of every EXPECT on both sides;
//   - with --observe (CrosscheckOptions::observe), the structure the
//     device's instrumented shaders recorded (observe.h) against the
//     emulator's: non-helper fragment invocations always; vertex
//     invocations, vertex and fragment warps, quads and helper lanes where
//     the device could record warps (not on lavapipe).
// The verdict is "agree" when all three agree, "differ" otherwise; a file
// one side cannot run is "unsupported" (or "invalid") naming that side.
#ifndef WARPSIM_VULKAN_REF_CROSSCHECK_H_
#define WARPSIM_VULKAN_REF_CROSSCHECK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runner/runner.h"
#include "vulkan_ref/compare.h"
#include "vulkan_ref/vk_runner.h"

namespace warpsim::vkref {

// Version of crosscheck.json's shape; raise it when a key changes meaning.
inline constexpr int kCrosscheckSchemaVersion = 1;

struct CrosscheckOptions {
  std::string device;            // as --device
  std::string shader_cache_dir;  // both sides; empty: no cache
  uint32_t threads = 1;          // the emulator's host threads
  bool observe = false;          // --observe: compare the observed structure
};

enum class Verdict { kAgree, kDiffer, kInvalid, kUnsupported, kLimit };
const char* VerdictName(Verdict v);
// 0 agree, 1 differ, 2 invalid, 3 unsupported, 4 the emulator's warp
// instruction limit (as `warpsim run`).
int ExitCodeFor(Verdict v);

// One pipeline statistic of one draw or dispatch, both sides.
struct StatisticRow {
  std::string command;  // "draw" or "dispatch"
  size_t index = 0;     // among the file's draws (or dispatches)
  int line = 0;         // of the RUN command (from the device's report)
  std::string pipeline;
  std::string name;
  std::optional<uint64_t> device, emulator;  // nullopt: not counted
  bool compared = false;                     // judged, or only reported
  bool agree = true;
  std::string note;  // why it is not judged, or what the numbers mean
};

struct ExpectationRow {
  int line = 0;
  std::optional<runner::ExpectationReport> device, emulator;
  bool agree() const {
    return device && emulator && device->passed == emulator->passed;
  }
};

struct CrosscheckReport {
  std::string file;
  Verdict verdict = Verdict::kAgree;
  std::string reason;  // for invalid / unsupported / limit: side and why
  DeviceRunReport device;
  runner::RunReport emulator;
  std::vector<BufferComparison> buffers;
  std::vector<StatisticRow> statistics;
  std::vector<ExpectationRow> expectations;
  // One-line summary of what differs ("" when they agree).
  std::string Summary() const;
};

CrosscheckReport CrosscheckScene(const scene::Scene& scene,
                                 const CrosscheckOptions& options);
// Parses and crosschecks a file; a parse error gives kInvalid or
// kUnsupported for both sides.
CrosscheckReport CrosscheckFile(const std::string& path,
                                const CrosscheckOptions& options);

// crosscheck.json (schema_version kCrosscheckSchemaVersion).
std::string CrosscheckToJson(const CrosscheckReport& report);
// The table a person reads.
std::string CrosscheckTable(const CrosscheckReport& report);

// Writes NAME.device.png and NAME.emulator.png of every colour attachment,
// and NAME.diff.png for those that differ (differing pixels red, the rest
// the device's image darkened); returns the paths written.
Result<std::vector<std::string>> WriteCrosscheckImages(
    const CrosscheckReport& report, const std::string& dir);

}  // namespace warpsim::vkref

#endif  // WARPSIM_VULKAN_REF_CROSSCHECK_H_
