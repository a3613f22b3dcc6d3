// samples/microbench/: the SPIR-V versions of the CUDA microbenchmarks E2,
// E3, E5 and E6 (samples/microbench/README.md). Every scene must pass its
// EXPECTs (the values the chains must produce), i.e. `warpsim run` exits 0,
// and must stay small: these are meant to run in the timing model too.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "runner/runner.h"
#include "scene/amber_parser.h"

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> MicrobenchScenes() {
  std::vector<fs::path> files;
  const fs::path dir = fs::path(WARPSIM_SOURCE_DIR) / "samples" / "microbench";
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".amber") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST_CASE("every microbench scene passes its expectations",
          "[runner][microbench]") {
  const std::vector<fs::path> files = MicrobenchScenes();
  // E2 (2), E3 (9 ops), E5 (2), E6 (4), E19 (1), E31 (1), E32 (1), E33 (1).
  CHECK(files.size() == 21);
  for (const fs::path& file : files) {
    INFO(file.filename().string());
    auto scene = warpsim::scene::ParseAmberFile(file.string());
    REQUIRE(scene.ok());
    warpsim::runner::RunOptions options;
    options.threads = 2;
    const warpsim::runner::RunReport r =
        warpsim::runner::RunScene(*scene, options);
    INFO(warpsim::testing::Describe(r));
    CHECK(r.status == warpsim::runner::RunStatus::kPass);
    CHECK(!r.expectations.empty());
    // At most a few million warp instructions per scene.
    CHECK(r.stats.warp_instructions <= 2'000'000u);
  }
}

}  // namespace
