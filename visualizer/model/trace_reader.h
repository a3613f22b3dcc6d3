// Reads a trace file that warpsim wrote (trace::WriteChromeTrace) back into
// a trace::Trace, for the visualizer's file mode (`warpsim-viz --open`).
#ifndef WARPSIM_VISUALIZER_MODEL_TRACE_READER_H_
#define WARPSIM_VISUALIZER_MODEL_TRACE_READER_H_

#include <string>

#include "base/diagnostic.h"
#include "trace/trace.h"

namespace warpsim::viz {

// Parses `text` (the file's contents; `path` names it in errors). Reads what
// WriteChromeTrace writes: warp slices, register events, counter samples,
// instruction slices, runs, the machine's shape ("otherData") and the
// quads and shader listings ("warpsim"). Events of other kinds are
// skipped. A document that is not JSON, or whose events lack the fields
// warpsim writes, is InvalidInput naming the event.
Status ParseTrace(const std::string& text, const std::string& path,
                  trace::Trace* out);

// Reads and parses the file at `path`.
Status ReadTrace(const std::string& path, trace::Trace* out);

}  // namespace warpsim::viz

#endif  // WARPSIM_VISUALIZER_MODEL_TRACE_READER_H_
