// What the visualizer shows of one run: the trace, the report, the images;
// loaded from a run directory or filled by a live session.
#ifndef WARPSIM_VISUALIZER_MODEL_RUN_DATA_H_
#define WARPSIM_VISUALIZER_MODEL_RUN_DATA_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "trace/trace.h"

namespace warpsim::viz {

struct Image {
  std::string name;
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;  // rows top to bottom
};

struct RunData {
  std::string source;  // the AmberScript file, or the run directory
  trace::Trace trace;
  nlohmann::json report;  // report.json's document; null when there is none
  std::vector<Image> images;
  uint64_t now = 0;      // the model's clock (the trace's end when done)
  bool finished = true;  // false while a live run is going on
  std::string error;     // how a live run ended, when not with a result
};

// Loads a run directory made by
//   warpsim run FILE --timing --out DIR --json DIR/report.json
//       --trace DIR/trace.json
// DIR/trace.json is required (InvalidInput naming it when missing or
// malformed); DIR/report.json and the colour attachments (DIR/*.png) are
// read when present.
Status LoadRunDir(const std::string& dir, RunData* out);

// Keeps a copy of a trace that grows (a live run) up to date by copying
// only what is new: the vectors' new entries, and the ends of the spans
// that were still resident.
class TraceMirror {
 public:
  void Sync(const trace::Trace& src, trace::Trace* dst);

 private:
  std::vector<size_t> open_;  // spans of dst still resident
};

}  // namespace warpsim::viz

#endif  // WARPSIM_VISUALIZER_MODEL_RUN_DATA_H_
