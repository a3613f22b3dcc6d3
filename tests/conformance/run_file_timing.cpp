// RunCorpusFile for conformance_timing_runner (the `conformance_timing`
// test): the file in timing mode (the SM timing model drives every draw and
// dispatch) and in functional mode. Timing must change when warps run,
// never what they compute: the timing run must end as the functional one
// does, with the same EXPECT results, byte-identical colour attachments and
// buffers, and the same instruction counts (except where a shader's atomics
// let the order of its warps change what they execute). A difference turns
// the report into a failure that names it.
#include <algorithm>
#include <string>
#include <vector>

#include "conformance/run_file.h"

namespace warpsim::conformance {
namespace {

// Whether any shader of the pipeline named `name` has atomics.
bool HasAtomics(const std::string& name,
                const std::vector<runner::PipelineReport>& pipelines) {
  return std::any_of(pipelines.begin(), pipelines.end(),
                     [&](const runner::PipelineReport& p) {
                       return p.name == name && p.atomics;
                     });
}

// The difference between a draw's or dispatch's instruction counts in the
// two runs, or "" (also where they differ in a pipeline with atomics).
template <typename Stats>
std::string CountDifference(const char* what, size_t index, const Stats& f,
                            const Stats& t, const std::string& pipeline,
                            const std::vector<runner::PipelineReport>& all) {
  if (f.warp_instructions == t.warp_instructions &&
      f.lane_instructions == t.lane_instructions &&
      f.helper_lane_instructions == t.helper_lane_instructions) {
    return "";
  }
  if (HasAtomics(pipeline, all)) return "";
  return std::string(what) + " " + std::to_string(index + 1) + " (" + pipeline +
         "): warp instructions " + std::to_string(f.warp_instructions) +
         " in functional mode, " + std::to_string(t.warp_instructions) +
         " in timing mode";
}

// The first difference between the two runs, or "".
std::string Difference(const runner::RunReport& f, const runner::RunReport& t) {
  if (f.status != t.status) {
    return std::string("status ") + runner::RunStatusName(f.status) +
           " in functional mode, " + runner::RunStatusName(t.status) +
           " in timing mode";
  }
  if (f.expectations.size() != t.expectations.size()) {
    return "a different number of expectations";
  }
  for (size_t i = 0; i < f.expectations.size(); ++i) {
    if (f.expectations[i].passed != t.expectations[i].passed) {
      return "the expectation at line " +
             std::to_string(f.expectations[i].line) + " differs";
    }
  }
  if (f.images.size() != t.images.size()) return "a different image count";
  for (size_t i = 0; i < f.images.size(); ++i) {
    if (f.images[i].bytes != t.images[i].bytes) {
      return "image " + f.images[i].name + " differs";
    }
  }
  if (f.buffers.size() != t.buffers.size()) return "a different buffer count";
  for (size_t i = 0; i < f.buffers.size(); ++i) {
    if (f.buffers[i].bytes != t.buffers[i].bytes) {
      return "buffer " + f.buffers[i].shape.name + " differs";
    }
  }
  // Instruction counts, per draw and dispatch: equal, except in a run
  // whose shaders have atomics (PipelineReport::atomics), where the order
  // the schedule gives the warps may change what they execute.
  if (f.draws.size() != t.draws.size() ||
      f.dispatches.size() != t.dispatches.size()) {
    return "a different number of draws or dispatches";
  }
  for (size_t i = 0; i < f.draws.size(); ++i) {
    if (std::string d =
            CountDifference("draw", i, f.draws[i].stats, t.draws[i].stats,
                            t.draws[i].pipeline, t.pipelines);
        !d.empty()) {
      return d;
    }
  }
  for (size_t i = 0; i < f.dispatches.size(); ++i) {
    if (std::string d = CountDifference("dispatch", i, f.dispatches[i].stats,
                                        t.dispatches[i].stats,
                                        t.dispatches[i].pipeline, t.pipelines);
        !d.empty()) {
      return d;
    }
  }
  if (t.status != runner::RunStatus::kInvalid &&
      t.status != runner::RunStatus::kUnsupported && !t.timing) {
    return "the timing run has no timing report";
  }
  return "";
}

}  // namespace

runner::RunReport RunCorpusFile(const std::string& path, uint32_t threads) {
  runner::RunOptions options;
  options.threads = 1;
  options.keep_buffers = true;
  (void)threads;  // timing mode runs on one thread; so does the reference
  const runner::RunReport functional = runner::RunAmberFile(path, options);
  options.timing_mode = true;
  options.trace_detail = trace::Detail::kSummary;
  runner::RunReport timed = runner::RunAmberFile(path, options);
  const std::string diff = Difference(functional, timed);
  if (!diff.empty()) {
    timed.status = runner::RunStatus::kFail;
    timed.expectations.push_back(
        {0, false, "timing mode differs from functional mode: " + diff});
  }
  return timed;
}

}  // namespace warpsim::conformance
