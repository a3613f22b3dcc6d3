// warpsim-viz's window: the controls, and the views (SM timeline, register
// files, framebuffer with overlays, shader, compare, stats) over one run,
// live or loaded from a run directory. The views draw with ImDrawList;
// what they show comes from the model (model/), computed from trace types.
#ifndef WARPSIM_VISUALIZER_APP_VIEWER_H_
#define WARPSIM_VISUALIZER_APP_VIEWER_H_

#include <imgui.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostic.h"
#include "model/live.h"
#include "model/pixel_map.h"
#include "model/register_map.h"
#include "model/run_data.h"
#include "model/shader_profile.h"
#include "model/timeline.h"
#include "runner/runner.h"

namespace warpsim::viz {

enum class View : uint8_t {
  kTimeline,
  kRegisters,
  kFramebuffer,
  kShader,
  kCompare,
  kStats,
  kCount
};
std::string_view ViewName(View v);  // "timeline", "registers", ...
bool ParseView(std::string_view name, View* out);

enum class ColorBy : uint8_t { kState, kStage, kRun };
// Names: "state", "stage", "draw".
bool ParseColorBy(std::string_view name, ColorBy* out);

struct ViewerOptions {
  std::string file;         // live mode: the AmberScript file
  std::string open_dir;     // file mode: a run directory
  std::string compare_dir;  // optional: a second run for the compare view
  runner::RunOptions run;   // live mode's options (timing is forced on)
  bool start_paused = false;
};

class Viewer {
 public:
  explicit Viewer(ViewerOptions options);
  ~Viewer();
  // Loads the run directory (and the compare run) or starts the live run.
  Status Start();
  // Draws one frame of the UI filling `size` (the window's size).
  void Frame(const ImVec2& size);
  // Headless use: the view shown, the cursor cycle, waiting for a live run.
  void Focus(View v);
  void SetCursor(uint64_t cycle);
  // What the views' own controls choose, set from the command line: the
  // timeline's colouring and the cycles it shows, the framebuffer's
  // overlay, the register files' SM.
  void SetColorBy(ColorBy c) { color_by_ = c; }
  void SetRange(double begin, double end);
  void SetOverlay(Overlay o) { overlay_ = o; }
  void SetOverlayOpacity(float a) { overlay_alpha_ = a; }
  void SetSm(uint32_t sm) { selected_sm_ = sm; }
  void SetRegistersByWarp(bool on) { registers_by_warp_ = on; }
  void WaitForRun();
  bool live() const { return live_ != nullptr; }
  const RunData& data() const { return data_; }
  // Releases GL objects (before the context goes).
  void ReleaseGl();
  // Live mode: runs the scene again with the toolbar's settings; the run
  // shown so far becomes the Compare view's other side when asked and
  // finished.
  void Rerun(bool keep_for_compare);

 private:
  void Sync();
  void Rebuild();
  void EnsureTimeline();
  void EnsureRegisters();
  void EnsurePixels();
  void EnsureProfile();
  void HandleKeys();
  void DrawToolbar();
  void DrawView(View v);
  void DrawTimeline();
  void DrawRegisters();
  void DrawFramebuffer();
  void DrawShader();
  void DrawShaderSource(const trace::ShaderInfo& info);
  void DrawCompare();
  void DrawStats();
  // Shared pieces.
  void DrawRuler(ImDrawList* dl, ImVec2 origin, float width, float height);
  void HandleZoom(ImVec2 origin, float width, bool hovered);
  double CycleAt(float x, ImVec2 origin, float width) const;
  float XOf(double cycle, ImVec2 origin, float width) const;
  uint64_t EndCycle() const;
  // The counter samples of an SM (indices into Trace::counters, in cycle
  // order).
  const std::vector<uint32_t>& CountersOf(uint32_t sm) const;

  ViewerOptions options_;
  std::unique_ptr<LiveSession> live_;
  RunData data_;
  RunData compare_;
  std::string compare_label_;
  std::string status_;  // an error to show

  // Models, rebuilt when the data changes.
  Timeline timeline_;
  RegisterMap registers_;
  PixelMap pixels_;
  ShaderProfile profile_;
  std::vector<std::vector<uint32_t>> counters_by_sm_;
  std::vector<uint32_t> register_sms_;  // SMs whose register files appear
  bool dirty_ = true;
  bool stale_timeline_ = true, stale_registers_ = true, stale_pixels_ = true,
       stale_profile_ = true;
  uint64_t pixels_stamp_ = 0;  // counts PixelMap rebuilds
  double last_rebuild_ = -1;

  // UI state.
  View view_ = View::kTimeline;
  bool focus_pending_ = true;
  std::array<bool, static_cast<size_t>(View::kCount)> detached_{};
  ColorBy color_by_ = ColorBy::kState;
  double view_begin_ = 0, view_end_ = 0;  // cycles shown
  bool follow_ = true;                    // live: keep the clock in view
  uint64_t cursor_ = 0;
  bool cursor_set_ = false;
  uint32_t selected_sm_ = 0;
  bool registers_by_warp_ = false;
  size_t image_ = 0;
  Overlay overlay_ = Overlay::kSm;
  float overlay_alpha_ = 0.6f;
  uint32_t pixel_run_ = PixelMap::kAllRuns;
  int pick_x_ = -1, pick_y_ = -1;
  size_t shader_ = 0;
  bool shader_chosen_ = false;
  bool by_source_line_ = false;
  int scheduler_ = 0, context_switch_ = 0;
  int gpu_preset_ = -1;  // index into GpuConfigPresetNames(); -1: as started
  std::string gpu_label_ = "the GPU it started with";
  // The framebuffer texture (GL name) and what it holds.
  unsigned texture_ = 0;
  unsigned overlay_texture_ = 0;
  int texture_image_ = -1;
  uint64_t texture_stamp_ = ~0ull;
};

}  // namespace warpsim::viz

#endif  // WARPSIM_VISUALIZER_APP_VIEWER_H_
