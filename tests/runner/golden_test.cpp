// Golden tests of the graphics samples: each sample in samples/graphics is
// run through the runner, and every colour attachment it produces is
// compared exactly (as 8-bit RGBA, the form `warpsim run --out` writes)
// with tests/golden/<sample>/<attachment>.png, and its per-draw statistics
// with tests/golden/<sample>/stats.json.
//
// Regenerating the goldens after an intended change (see
// tests/golden/README.md):
//
//   WARPSIM_UPDATE_GOLDEN=1 build/runner_tests "[golden]"
//
// writes the files instead of comparing, and then fails with "golden files
// updated", so an update run never passes silently. Look at the new PNGs and
// the stats diff before committing them.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "runner/png_writer.h"
#include "runner/runner.h"

namespace {

using warpsim::testing::Describe;

namespace fs = std::filesystem;
using warpsim::runner::RunReport;

const char* const kSamples[] = {
    "lit_textured_mesh",
    "divergent_branches",
    "big_vs_tiny_triangles",
    "live_frame_256",
};

bool UpdateGoldens() {
  const char* v = std::getenv("WARPSIM_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

// The draw statistics as the golden stats.json holds them.
nlohmann::json StatsJson(const RunReport& r) {
  nlohmann::json draws = nlohmann::json::array();
  for (const auto& d : r.draws) {
    const auto& s = d.stats;
    draws.push_back(
        {{"pipeline", d.pipeline},
         {"vs_invocations", s.vs_invocations},
         {"vertex_warps", s.vertex_warps},
         {"primitives_in", s.primitives_in},
         {"primitives_out", s.primitives_out},
         {"fs_invocations", s.fs_invocations},
         {"helper_lanes", s.helper_lanes},
         {"quads", s.quads},
         {"fragment_warps", s.fragment_warps},
         {"fs_invocations_per_fragment_warp", s.InvocationsPerFragmentWarp()},
         {"warp_instructions", s.warp_instructions},
         {"lane_instructions", s.lane_instructions},
         {"helper_lane_instructions", s.helper_lane_instructions}});
  }
  return {{"draws", draws}};
}

std::vector<uint8_t> ToRgba8(const warpsim::runner::ImageOutput& image) {
  auto rgba = warpsim::runner::ConvertToRgba8(image.format, image.width,
                                              image.height, image.bytes.data(),
                                              image.width * image.format.bytes);
  INFO("converting " << image.name);
  REQUIRE(rgba.ok());
  return *rgba;
}

// Empty when equal; otherwise the first differing pixel (row-major order)
// and how many pixels differ.
std::string CompareRgba8(const std::vector<uint8_t>& got,
                         const std::vector<uint8_t>& want, uint32_t width) {
  size_t first = got.size();
  size_t differing = 0;
  for (size_t i = 0; i < got.size(); i += 4) {
    if (got[i] != want[i] || got[i + 1] != want[i + 1] ||
        got[i + 2] != want[i + 2] || got[i + 3] != want[i + 3]) {
      if (first == got.size()) first = i;
      ++differing;
    }
  }
  if (differing == 0) return "";
  const size_t pixel = first / 4;
  std::ostringstream s;
  s << differing << " pixel(s) differ; first at (" << pixel % width << ", "
    << pixel / width << "): got RGBA (" << int{got[first]} << ", "
    << int{got[first + 1]} << ", " << int{got[first + 2]} << ", "
    << int{got[first + 3]} << "), golden (" << int{want[first]} << ", "
    << int{want[first + 1]} << ", " << int{want[first + 2]} << ", "
    << int{want[first + 3]} << ")";
  return s.str();
}

void WriteGoldens(const RunReport& r, const fs::path& dir) {
  fs::create_directories(dir);
  for (const auto& image : r.images) {
    const auto s = warpsim::runner::WritePng(
        (dir / (image.name + ".png")).string(), image.format, image.width,
        image.height, image.bytes.data(), image.width * image.format.bytes);
    INFO("writing " << image.name);
    REQUIRE(s.ok());
  }
  std::ofstream out(dir / "stats.json");
  out << StatsJson(r).dump(2) << "\n";
  REQUIRE(out.good());
}

void CompareWithGoldens(const RunReport& r, const fs::path& dir) {
  // Every colour attachment against its PNG.
  std::set<std::string> pngs_seen;
  for (const auto& image : r.images) {
    const std::string png = (dir / (image.name + ".png")).string();
    pngs_seen.insert(image.name + ".png");
    INFO("attachment " << image.name << " vs " << png);
    uint32_t w = 0, h = 0;
    const auto want = warpsim::runner::ReadPngRgba8(png, &w, &h);
    if (!want.ok()) FAIL(want.error().ToString());
    REQUIRE(w == image.width);
    REQUIRE(h == image.height);
    const std::vector<uint8_t> got = ToRgba8(image);
    REQUIRE(got.size() == want->size());
    const std::string diff = CompareRgba8(got, *want, w);
    if (!diff.empty()) FAIL(diff);
  }
  // No golden PNG without an attachment (a renamed or vanished output).
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".png") {
      INFO("golden " << name << " has no attachment in the run");
      CHECK(pngs_seen.count(name) == 1);
    }
  }
  // The draw statistics.
  std::ifstream in(dir / "stats.json");
  INFO("reading " << (dir / "stats.json").string());
  REQUIRE(in.good());
  const nlohmann::json want = nlohmann::json::parse(in);
  const nlohmann::json got = StatsJson(r);
  INFO("golden stats: " << want.dump(2) << "\nrun stats: " << got.dump(2));
  CHECK(got == want);
}

}  // namespace

TEST_CASE("graphics samples match their golden images and statistics",
          "[runner][golden]") {
  const fs::path source(WARPSIM_SOURCE_DIR);
  const bool update = UpdateGoldens();
  for (const char* sample : kSamples) {
    DYNAMIC_SECTION(sample) {
      const fs::path amber =
          source / "samples" / "graphics" / (std::string(sample) + ".amber");
      const fs::path golden = source / "tests" / "golden" / sample;
      const RunReport r = warpsim::runner::RunAmberFile(amber.string(), {});
      INFO(amber.string() << ": " << Describe(r));
      REQUIRE(r.status == warpsim::runner::RunStatus::kPass);
      REQUIRE(!r.images.empty());
      if (update) {
        WriteGoldens(r, golden);
      } else {
        CompareWithGoldens(r, golden);
      }
    }
  }
  // An update run never passes: its output has to be looked at first.
  if (update) FAIL("golden files updated");
}
