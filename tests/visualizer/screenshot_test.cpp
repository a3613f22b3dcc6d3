// warpsim-viz's headless mode under Xvfb (Mesa's software OpenGL): a
// screenshot of each view of a sample run, which must show something (not
// only text) and differ from the other views, from a live run and from a
// run directory.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "runner/png_writer.h"

namespace {

namespace fs = std::filesystem;

const std::string kScene = std::string(WARPSIM_SOURCE_DIR) +
                           "/samples/graphics/divergent_branches.amber";
constexpr int kWidth = 1280, kHeight = 800;
// The toolbar, the cursor slider and the tab bar end above this row.
constexpr uint32_t kContentTop = 100;

// Runs `command` under Xvfb; its exit code, and what it printed in *log.
int Run(const std::string& command, std::string* log) {
  const fs::path out = fs::temp_directory_path() /
                       ("viz_screenshot_log_" + std::to_string(::getpid()));
  const std::string full =
      "xvfb-run -a -s '-screen 0 " + std::to_string(kWidth) + "x" +
      std::to_string(kHeight) + "x24' env LIBGL_ALWAYS_SOFTWARE=1 " + command +
      " > " + out.string() + " 2>&1";
  const int status = std::system(full.c_str());
  std::ifstream in(out);
  std::ostringstream text;
  text << in.rdbuf();
  *log = command + "\n" + text.str();
  std::error_code ec;
  fs::remove(out, ec);
  return WEXITSTATUS(status);
}

// Per pixel of the content area: whether it is coloured (text and frames
// are grey; the views' data is drawn in colour).
std::vector<bool> Coloured(const std::string& png) {
  uint32_t w = 0, h = 0;
  auto rgba = warpsim::runner::ReadPngRgba8(png, &w, &h);
  INFO(png);
  REQUIRE(rgba.ok());
  REQUIRE(w == static_cast<uint32_t>(kWidth));
  REQUIRE(h == static_cast<uint32_t>(kHeight));
  std::vector<bool> out;
  for (uint32_t y = kContentTop; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      const uint8_t* p = &(*rgba)[(size_t{y} * w + x) * 4];
      const int hi = std::max({p[0], p[1], p[2]});
      const int lo = std::min({p[0], p[1], p[2]});
      out.push_back(hi - lo > 40);
    }
  }
  return out;
}

// The share of the content area's pixels whose colour differs between two
// screenshots.
double PixelsDiffer(const std::string& a, const std::string& b) {
  uint32_t wa = 0, ha = 0, wb = 0, hb = 0;
  auto pa = warpsim::runner::ReadPngRgba8(a, &wa, &ha);
  auto pb = warpsim::runner::ReadPngRgba8(b, &wb, &hb);
  REQUIRE(pa.ok());
  REQUIRE(pb.ok());
  REQUIRE(wa == wb);
  REQUIRE(ha == hb);
  size_t n = 0;
  for (size_t i = size_t{kContentTop} * wa * 4; i < pa->size(); i += 4) {
    n += std::memcmp(&(*pa)[i], &(*pb)[i], 3) != 0;
  }
  return static_cast<double>(n) /
         (static_cast<double>(wa) * (ha - kContentTop));
}

double Share(const std::vector<bool>& v) {
  size_t n = 0;
  for (bool b : v) n += b;
  return static_cast<double>(n) / static_cast<double>(v.size());
}

double Differ(const std::vector<bool>& a, const std::vector<bool>& b) {
  size_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return static_cast<double>(n) / static_cast<double>(a.size());
}

struct TempDir {
  fs::path path;
  TempDir() {
    // Unique per process and per directory: tests run in parallel.
    static int count = 0;
    path = fs::temp_directory_path() /
           ("viz_screenshot_" + std::to_string(::getpid()) + "_" +
            std::to_string(count++));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

TEST_CASE("a screenshot of every view shows its own picture",
          "[viz][screenshot]") {
  REQUIRE(std::system("command -v xvfb-run > /dev/null") == 0);  // setup.sh
  TempDir dir;
  // The compare view needs a second run: the same scene, another scheduler.
  const fs::path other = dir.path / "lrr";
  fs::create_directories(other);
  REQUIRE(
      std::system((std::string(WARPSIM_CLI) + " run " + kScene +
                   " --timing --scheduler lrr --quiet --out " + other.string() +
                   " --json " + (other / "report.json").string() + " --trace " +
                   (other / "trace.json").string() + " > /dev/null")
                      .c_str()) == 0);
  std::map<std::string, std::vector<bool>> shots;
  for (const char* view :
       {"timeline", "registers", "framebuffer", "shader", "compare", "stats"}) {
    const std::string png = (dir.path / (std::string(view) + ".png")).string();
    INFO(view);
    std::string log;
    const int rc =
        Run(std::string(WARPSIM_VIZ) + " " + kScene + " --compare " +
                other.string() + " --screenshot " + png + " --view " + view +
                " --cycle 300 --size " + std::to_string(kWidth) + "x" +
                std::to_string(kHeight),
            &log);
    INFO(log);
    REQUIRE(rc == 0);
    shots[view] = Coloured(png);
    // Data, not just text: coloured pixels over a share of the area.
    CHECK(Share(shots[view]) > 0.002);
  }
  for (const auto& [a, pa] : shots) {
    for (const auto& [b, pb] : shots) {
      if (a >= b) continue;
      INFO(a << " against " << b);
      CHECK(Differ(pa, pb) > 0.002);
    }
  }
  // The timeline and the framebuffer carry most of the colour.
  CHECK(Share(shots["timeline"]) > 0.02);
  CHECK(Share(shots["framebuffer"]) > 0.05);
}

TEST_CASE("a run directory opens like a live run", "[viz][screenshot]") {
  TempDir dir;
  const fs::path run = dir.path / "run";
  fs::create_directories(run);
  REQUIRE(
      std::system((std::string(WARPSIM_CLI) + " run " + kScene +
                   " --timing --trace-detail instructions --quiet --out " +
                   run.string() + " --json " + (run / "report.json").string() +
                   " --trace " + (run / "trace.json").string() + " > /dev/null")
                      .c_str()) == 0);
  const std::string live = (dir.path / "live.png").string();
  const std::string file = (dir.path / "file.png").string();
  std::string log;
  int rc = Run(std::string(WARPSIM_VIZ) + " " + kScene + " --screenshot " +
                   live + " --view timeline --size 1280x800",
               &log);
  INFO(log);
  REQUIRE(rc == 0);
  rc = Run(std::string(WARPSIM_VIZ) + " --open " + run.string() +
               " --screenshot " + file + " --view timeline --size 1280x800",
           &log);
  INFO(log);
  REQUIRE(rc == 0);
  const std::vector<bool> a = Coloured(live), b = Coloured(file);
  CHECK(Share(b) > 0.02);
  // The same run, read back: the same picture, but for the title text.
  CHECK(Differ(a, b) < 0.01);
}

TEST_CASE("live mode reruns a scene while every view draws",
          "[viz][screenshot]") {
  // --benchmark reruns the scene as often as it can for the time given,
  // replacing the trace each time while the view draws from it.
  for (const char* view : {"timeline", "registers", "framebuffer", "shader"}) {
    INFO(view);
    std::string log;
    const int rc = Run(std::string(WARPSIM_VIZ) + " " + kScene +
                           " --benchmark 2 --size 1280x800 --view " + view,
                       &log);
    INFO(log);
    REQUIRE(rc == 0);
    const auto brace = log.find('{');
    REQUIRE(brace != std::string::npos);
    const nlohmann::json r = nlohmann::json::parse(log.substr(brace));
    CHECK(r["simulated_frames"].get<uint64_t>() >= 1);
    CHECK(r["ui_frames"].get<uint64_t>() >= 1);
  }
}

TEST_CASE("the views' settings come from the command line",
          "[viz][screenshot]") {
  // Each option changes what its view shows, as its control in the window
  // would: two screenshots of the same view, one setting apart, differ.
  TempDir dir;
  auto shot = [&](const std::string& name, const std::string& args) {
    const std::string png = (dir.path / (name + ".png")).string();
    std::string log;
    const int rc =
        Run(std::string(WARPSIM_VIZ) + " " + kScene + " --screenshot " + png +
                " --size " + std::to_string(kWidth) + "x" +
                std::to_string(kHeight) + " " + args,
            &log);
    INFO(log);
    REQUIRE(rc == 0);
    return png;
  };
  const auto state = shot("state", "--view timeline --colour-by state");
  const auto stage = shot("stage", "--view timeline --colour-by stage");
  const auto zoomed =
      shot("zoomed", "--view timeline --colour-by stage --range 0:200");
  CHECK(PixelsDiffer(state, stage) > 0.002);
  CHECK(PixelsDiffer(stage, zoomed) > 0.01);
  const auto sm_overlay = shot("sm", "--view framebuffer --overlay sm");
  const auto helpers =
      shot("helpers", "--view framebuffer --overlay helpers --opacity 1");
  const auto none = shot("none", "--view framebuffer --overlay none");
  CHECK(PixelsDiffer(sm_overlay, helpers) > 0.01);
  CHECK(PixelsDiffer(sm_overlay, none) > 0.01);
  const auto by_stage = shot("by_stage", "--view registers --cycle 300");
  const auto by_warp =
      shot("by_warp", "--view registers --cycle 300 --by-warp");
  CHECK(PixelsDiffer(by_stage, by_warp) > 0.002);
}

TEST_CASE("warpsim-viz rejects bad command lines and missing runs",
          "[viz][screenshot]") {
  const std::string viz = WARPSIM_VIZ;
  auto rc = [](const std::string& cmd) {
    const int status = std::system((cmd + " > /dev/null 2>&1").c_str());
    return WEXITSTATUS(status);
  };
  CHECK(rc(viz) == 64);
  CHECK(rc(viz + " " + kScene + " --view nonsense") == 64);
  CHECK(rc(viz + " " + kScene + " --size 10x10") == 64);
  CHECK(rc(viz + " --open /nonexistent-run --scheduler lrr") == 64);
  CHECK(rc(viz + " --open /nonexistent-run --screenshot /tmp/x.png") == 2);
  CHECK(rc(viz + " " + kScene + " --gpu-config no-such-preset") == 64);
  CHECK(rc(viz + " " + kScene + " --colour-by nonsense") == 64);
  CHECK(rc(viz + " " + kScene + " --overlay nonsense") == 64);
  CHECK(rc(viz + " " + kScene + " --opacity 2") == 64);
  CHECK(rc(viz + " " + kScene + " --range 50:10") == 64);
  CHECK(rc(viz + " " + kScene + " --range 10") == 64);
  CHECK(rc(viz + " " + kScene + " --sm x") == 64);
  CHECK(rc(viz + " --help") == 0);
}

}  // namespace
