// warpsim-viz: the interactive warp-occupancy explorer (visualizer/README.md).
//
//   warpsim-viz FILE.amber [options]     live: runs the scene in timing mode
//   warpsim-viz --open RUN_DIR [options] a finished run (report + trace)
//
// Option parsing is hand-written like the warpsim CLI's (cli/cli_util.h):
// few options, each with its own exit code.
#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <cfloat>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "app/viewer.h"
#include "cli/cli_util.h"
#include "runner/png_writer.h"
#include "runner/shader_cache.h"
#include "sm/timing_config.h"

namespace {

using warpsim::viz::View;

constexpr const char* kHelp =
    "usage: warpsim-viz FILE.amber [options]       run the scene live\n"
    "       warpsim-viz --open RUN_DIR [options]   show a finished run\n"
    "\n"
    "Live mode runs FILE.amber in timing mode on a worker thread and shows it\n"
    "as it runs. RUN_DIR is what\n"
    "  warpsim run FILE --timing --out DIR --json DIR/report.json \\\n"
    "      --trace DIR/trace.json [--trace-detail instructions]\n"
    "writes.\n"
    "\n"
    "options:\n"
    "  --gpu-config NAME|FILE   GPU preset or JSON file (live; default h200)\n"
    "  --scheduler S            gto, lrr, two_level or oldest (live)\n"
    "  --context-switch M       free or swap (live)\n"
    "  --paused                 start paused at the first cycle (live)\n"
    "  --trace-max-events N     instruction events kept (live; default "
    "4000000)\n"
    "  --compare RUN_DIR        a second run for the Compare view\n"
    "  --screenshot OUT.png     render one frame of a view to PNG and exit\n"
    "                           (live: after the run finished)\n"
    "  --view V                 timeline, registers, framebuffer, shader,\n"
    "                           compare or stats (default timeline)\n"
    "  --cycle N                the cursor cycle (default: the end)\n"
    "  --range A:B              the cycles the timeline shows (default: all)\n"
    "  --colour-by C            the timeline's colours: state, stage or draw\n"
    "                           (default state)\n"
    "  --overlay O              the framebuffer's overlay: none, sm, warp,\n"
    "                           quad_coverage, helpers, instructions, cycles\n"
    "                           or overdraw (default sm)\n"
    "  --opacity F              the overlay's opacity, 0 to 1 (default 0.6)\n"
    "  --sm N                   the SM whose register files show (default:\n"
    "                           the first with any)\n"
    "  --by-warp                the register files coloured by warp, not\n"
    "                           by stage\n"
    "  --size WxH               window size (default 1600x1000)\n"
    "  --benchmark SECONDS      live: run the scene again and again for that\n"
    "                           long while the UI draws, then print the\n"
    "                           simulated frames and UI frames per second\n"
    "\n"
    "keys: Space play/pause, Right one cycle, Shift+Right one warp\n"
    "instruction, Ctrl+Right to the end of the draw, Left cursor back one\n"
    "cycle, Home fit the timeline, R rerun, 1-6 views.\n"
    "\n"
    "exit codes: 0 done, 2 invalid input (a run directory or trace that does\n"
    "not load), 3 no window (no display or OpenGL 3.3), 64 bad command line\n";

constexpr int kExitInvalid = 2;
constexpr int kExitNoWindow = 3;

int Usage(const std::string& message) {
  return warpsim::cli::Usage(message, kHelp);
}

// Reads the window's pixels (bottom-up in GL) and writes them as PNG.
warpsim::Status Screenshot(int w, int h, const std::string& path) {
  std::vector<uint8_t> pixels(static_cast<size_t>(w) * h * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  std::vector<uint8_t> flipped(pixels.size());
  const size_t row = static_cast<size_t>(w) * 4;
  for (int y = 0; y < h; ++y) {
    std::memcpy(&flipped[static_cast<size_t>(y) * row],
                &pixels[static_cast<size_t>(h - 1 - y) * row], row);
  }
  for (size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;
  return warpsim::runner::WritePng(
      path, warpsim::runner::Rgba8Format(), static_cast<uint32_t>(w),
      static_cast<uint32_t>(h), flipped.data(), static_cast<uint32_t>(row));
}

}  // namespace

int main(int argc, char** argv) {
  warpsim::viz::ViewerOptions options;
  options.run.trace_detail = warpsim::trace::Detail::kInstructions;
  options.run.trace_max_events = 4'000'000;
  std::string screenshot;
  View view = View::kTimeline;
  uint64_t cycle = 0;
  bool cycle_set = false;
  uint64_t range_begin = 0, range_end = 0;
  std::optional<warpsim::viz::ColorBy> color_by;
  std::optional<warpsim::viz::Overlay> overlay;
  std::optional<uint64_t> sm;
  std::optional<float> opacity;
  bool by_warp = false;
  int width = 1600, height = 1000;
  double benchmark = 0;
  bool gpu_config_set = false;
  std::string scheduler, context_switch;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* what) -> const char* {
      if (i + 1 >= argc) return nullptr;
      (void)what;
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::cout << kHelp;
      return 0;
    } else if (a == "--open") {
      const char* v = value("--open");
      if (v == nullptr) return Usage("--open needs a run directory");
      options.open_dir = v;
    } else if (a == "--compare") {
      const char* v = value("--compare");
      if (v == nullptr) return Usage("--compare needs a run directory");
      options.compare_dir = v;
    } else if (a == "--gpu-config") {
      const char* v = value("--gpu-config");
      if (v == nullptr) return Usage("--gpu-config needs a preset or a file");
      warpsim::runner::GpuConfig config;
      if (int rc = warpsim::cli::LoadGpuConfigArg(v, kHelp, &config); rc != 0) {
        return rc;
      }
      static_cast<warpsim::runner::GpuConfig&>(options.run) = config;
      gpu_config_set = true;
    } else if (a == "--scheduler") {
      const char* v = value("--scheduler");
      if (v == nullptr) return Usage("--scheduler needs a name");
      scheduler = v;
    } else if (a == "--context-switch") {
      const char* v = value("--context-switch");
      if (v == nullptr) return Usage("--context-switch needs free or swap");
      context_switch = v;
    } else if (a == "--paused") {
      options.start_paused = true;
    } else if (a == "--trace-max-events") {
      const char* v = value("--trace-max-events");
      uint64_t n = 0;
      if (v == nullptr || !warpsim::cli::ParseUint(v, &n)) {
        return Usage("--trace-max-events needs a number");
      }
      options.run.trace_max_events = n;
    } else if (a == "--screenshot") {
      const char* v = value("--screenshot");
      if (v == nullptr) return Usage("--screenshot needs a PNG path");
      screenshot = v;
    } else if (a == "--view") {
      const char* v = value("--view");
      if (v == nullptr || !warpsim::viz::ParseView(v, &view)) {
        return Usage(std::string("--view needs one of timeline, registers, "
                                 "framebuffer, shader, compare, stats") +
                     (v != nullptr ? std::string(" (got '") + v + "')" : ""));
      }
    } else if (a == "--cycle") {
      const char* v = value("--cycle");
      if (v == nullptr || !warpsim::cli::ParseUint(v, &cycle)) {
        return Usage("--cycle needs a number");
      }
      cycle_set = true;
    } else if (a == "--range") {
      const char* v = value("--range");
      const std::string r = v != nullptr ? v : "";
      const size_t colon = r.find(':');
      if (colon == std::string::npos ||
          !warpsim::cli::ParseUint(r.substr(0, colon).c_str(), &range_begin) ||
          !warpsim::cli::ParseUint(r.substr(colon + 1).c_str(), &range_end) ||
          range_end <= range_begin) {
        return Usage("--range needs A:B, cycles with A < B");
      }
    } else if (a == "--colour-by" || a == "--color-by") {
      const char* v = value("--colour-by");
      warpsim::viz::ColorBy c{};
      if (v == nullptr || !warpsim::viz::ParseColorBy(v, &c)) {
        return Usage("--colour-by needs state, stage or draw");
      }
      color_by = c;
    } else if (a == "--overlay") {
      const char* v = value("--overlay");
      warpsim::viz::Overlay o{};
      if (v == nullptr || !warpsim::viz::ParseOverlay(v, &o)) {
        return Usage(
            "--overlay needs none, sm, warp, quad_coverage, helpers, "
            "instructions, cycles or overdraw");
      }
      overlay = o;
    } else if (a == "--opacity") {
      const char* v = value("--opacity");
      char* end = nullptr;
      const float f = v != nullptr ? std::strtof(v, &end) : -1.0f;
      if (v == nullptr || end == v || *end != '\0' || !(f >= 0.0f) ||
          f > 1.0f) {
        return Usage("--opacity needs a number from 0 to 1");
      }
      opacity = f;
    } else if (a == "--by-warp") {
      by_warp = true;
    } else if (a == "--sm") {
      const char* v = value("--sm");
      uint64_t n = 0;
      if (v == nullptr || !warpsim::cli::ParseUint(v, &n) || n > 1u << 20) {
        return Usage("--sm needs an SM number");
      }
      sm = n;
    } else if (a == "--benchmark") {
      const char* v = value("--benchmark");
      uint64_t n = 0;
      if (v == nullptr || !warpsim::cli::ParseUint(v, &n) || n == 0 ||
          n > 3600) {
        return Usage("--benchmark needs seconds (1 to 3600)");
      }
      benchmark = static_cast<double>(n);
    } else if (a == "--size") {
      const char* v = value("--size");
      if (v == nullptr || std::sscanf(v, "%dx%d", &width, &height) != 2 ||
          width < 320 || height < 240 || width > 8192 || height > 8192) {
        return Usage("--size needs WxH, from 320x240 to 8192x8192");
      }
    } else if (!a.empty() && a[0] == '-') {
      return Usage("unknown option '" + a + "'");
    } else if (options.file.empty()) {
      options.file = a;
    } else {
      return Usage("more than one scene file ('" + options.file + "', '" + a +
                   "')");
    }
  }
  if (options.file.empty() == options.open_dir.empty()) {
    return Usage(options.file.empty()
                     ? "give a scene file or --open RUN_DIR"
                     : "give a scene file or --open RUN_DIR, not both");
  }
  if (!options.open_dir.empty() &&
      (gpu_config_set || !scheduler.empty() || !context_switch.empty() ||
       options.start_paused)) {
    return Usage(
        "--gpu-config, --scheduler, --context-switch and --paused are for "
        "live mode (a scene file), not --open");
  }
  if (!gpu_config_set) {
    auto h200 = warpsim::runner::GpuConfigPreset("h200");
    if (h200.ok()) {
      static_cast<warpsim::runner::GpuConfig&>(options.run) = *h200;
    }
  }
  if (!scheduler.empty() &&
      !warpsim::sm::ParseScheduler(scheduler, &options.run.timing.scheduler)) {
    return Usage("unknown scheduler '" + scheduler +
                 "' (gto, lrr, two_level, oldest)");
  }
  if (!context_switch.empty() &&
      !warpsim::sm::ParseContextSwitch(context_switch,
                                       &options.run.timing.context_switch)) {
    return Usage("unknown context switch '" + context_switch +
                 "' (free, swap)");
  }
  if (benchmark > 0 &&
      (options.file.empty() || !screenshot.empty() || options.start_paused)) {
    return Usage(
        "--benchmark runs a scene file live, without --screenshot "
        "or --paused");
  }
  if (!screenshot.empty() && options.start_paused) {
    return Usage("--screenshot waits for the run to finish; not with --paused");
  }
  // One core simulates; compiled shaders come from the cache warpsim run
  // uses, so a rerun does not compile them again.
  options.run.threads = 1;
  options.run.shader_cache_dir = warpsim::runner::DefaultShaderCacheDir();
  // GLSL source lines for the shader view.
  options.run.shader_debug_info = true;

  warpsim::viz::TuneAllocatorForReruns();
  warpsim::viz::Viewer viewer(options);
  if (warpsim::Status s = viewer.Start(); !s.ok()) {
    std::cerr << "warpsim-viz: " << s.error().ToString() << "\n";
    return kExitInvalid;
  }

  glfwSetErrorCallback([](int code, const char* text) {
    std::cerr << "warpsim-viz: GLFW error " << code << ": " << text << "\n";
  });
  if (!glfwInit()) {
    std::cerr << "warpsim-viz: cannot open a window (no display? under CI "
                 "use xvfb-run)\n";
    return kExitNoWindow;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_RESIZABLE, screenshot.empty() ? GLFW_TRUE : GLFW_FALSE);
  GLFWwindow* window =
      glfwCreateWindow(width, height, "warpsim-viz", nullptr, nullptr);
  if (window == nullptr) {
    glfwTerminate();
    std::cerr << "warpsim-viz: cannot create an OpenGL 3.3 core window\n";
    return kExitNoWindow;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(screenshot.empty() && benchmark == 0 ? 1 : 0);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini beside the user's files
  // A screenshot shows the view, not what the pointer happens to hover.
  if (!screenshot.empty()) {
    ImGui::GetIO().ConfigFlags |= ImGuiConfigFlags_NoMouse;
  }
  ImGui::StyleColorsDark();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");

  viewer.Focus(view);
  if (cycle_set) viewer.SetCursor(cycle);
  if (range_end > range_begin) {
    viewer.SetRange(static_cast<double>(range_begin),
                    static_cast<double>(range_end));
  }
  if (color_by) viewer.SetColorBy(*color_by);
  if (overlay) viewer.SetOverlay(*overlay);
  if (opacity) viewer.SetOverlayOpacity(*opacity);
  if (sm) viewer.SetSm(static_cast<uint32_t>(*sm));
  viewer.SetRegistersByWarp(by_warp);
  if (!screenshot.empty()) viewer.WaitForRun();
  int frames = 0, rc = 0;
  // --benchmark: completed simulations and drawn UI frames over the time.
  const auto started = std::chrono::steady_clock::now();
  uint64_t simulated = 0, ui_frames = 0;
  while (!glfwWindowShouldClose(window)) {
    if (benchmark > 0) {
      glfwPollEvents();
      const double elapsed = std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - started)
                                 .count();
      if (viewer.data().finished && !viewer.data().trace.runs.empty()) {
        if (!viewer.data().error.empty()) {
          std::cerr << "warpsim-viz: " << viewer.data().error << "\n";
          rc = kExitInvalid;
          break;
        }
        ++simulated;
        if (elapsed < benchmark) viewer.Rerun(false);
      }
      if (elapsed >= benchmark) {
        std::printf(
            "{\"scene\": \"%s\", \"seconds\": %.3f, \"simulated_frames\": "
            "%llu, \"simulated_frames_per_s\": %.2f, \"ui_frames\": %llu, "
            "\"ui_frames_per_s\": %.1f}\n",
            options.file.c_str(), elapsed,
            static_cast<unsigned long long>(simulated), simulated / elapsed,
            static_cast<unsigned long long>(ui_frames), ui_frames / elapsed);
        break;
      }
    } else if (screenshot.empty()) {
      glfwWaitEventsTimeout(1.0 / 60.0);
    } else {
      glfwPollEvents();
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (!screenshot.empty()) {
      // No pointer in a screenshot: nothing is hovered.
      ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    }
    ImGui::NewFrame();
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(window, &fw, &fh);
    viewer.Frame(ImVec2(static_cast<float>(fw), static_cast<float>(fh)));
    ImGui::Render();
    glViewport(0, 0, fw, fh);
    glClearColor(0.08f, 0.08f, 0.09f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    // A screenshot after a few frames: the tab chosen, the layout settled.
    if (!screenshot.empty() && ++frames == 4) {
      if (warpsim::Status s = Screenshot(fw, fh, screenshot); !s.ok()) {
        std::cerr << "warpsim-viz: " << s.error().ToString() << "\n";
        rc = kExitInvalid;
      } else {
        std::cout << "warpsim-viz: wrote " << screenshot << " (" << fw << "x"
                  << fh << ", view " << warpsim::viz::ViewName(view) << ")\n";
      }
      break;
    }
    glfwSwapBuffers(window);
    ++ui_frames;
  }
  viewer.ReleaseGl();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return rc;
}
