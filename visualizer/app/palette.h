// Colours of the views, chosen to stay apart for colour-blind readers:
// Okabe and Ito's eight-colour set for categories (stages, warp states),
// Paul Tol's muted set for cycling through many items (warps, draws, SMs),
// and viridis for quantities.
#ifndef WARPSIM_VISUALIZER_APP_PALETTE_H_
#define WARPSIM_VISUALIZER_APP_PALETTE_H_

#include <imgui.h>

#include <cstdint>

#include "trace/trace.h"

namespace warpsim::viz {

ImU32 StageColor(trace::Stage s);
ImU32 StateColor(trace::StallReason r);
ImU32 CycleColor(uint64_t index);  // the index-th of a repeating set
// Viridis at t in [0, 1].
ImU32 Viridis(double t);
// A colour with its alpha scaled by `a` (0..1).
ImU32 WithAlpha(ImU32 c, float a);
// Black or white, whichever reads better on `background`.
ImU32 TextOn(ImU32 background);

}  // namespace warpsim::viz

#endif  // WARPSIM_VISUALIZER_APP_PALETTE_H_
