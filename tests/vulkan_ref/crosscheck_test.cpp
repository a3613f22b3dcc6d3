// crosscheck.cpp: the same scene on lavapipe and in the emulator.
#include "vulkan_ref/crosscheck.h"

#include <catch2/catch.hpp>

#include "scene/amber_parser.h"
#include "vulkan_ref/vk_test_util.h"

namespace warpsim::vkref {
namespace {

CrosscheckReport CrosscheckText(const std::string& amber,
                                bool observe = false) {
  auto scene = scene::ParseSceneText(amber, "inline.amber");
  REQUIRE(scene.ok());
  CrosscheckOptions options;
  options.device = "lavapipe";
  options.observe = observe;
  return CrosscheckScene(*scene, options);
}

constexpr char kDraw[] = R"(#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 430
layout(location = 0) out vec4 color;
void main() { color = vec4(gl_FragCoord.x / 16.0, 0.5, 0.0, 1.0); }
END
BUFFER frame FORMAT B8G8R8A8_UNORM
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  BIND BUFFER frame AS color LOCATION 0
  FRAMEBUFFER_SIZE 16 16
END
RUN p DRAW_RECT POS 0 0 SIZE 16 16
EXPECT frame IDX 0 0 SIZE 1 1 EQ_RGBA 8 128 0 255
EXPECT frame IDX 0 0 SIZE 1 1 EQ_RGBA 9 9 9 9
)";

TEST_CASE("crosscheck: a draw agrees, EXPECT outcomes too", "[vkref]") {
  if (!testing::HaveLavapipe()) return;
  const CrosscheckReport r = CrosscheckText(kDraw);
  INFO(CrosscheckTable(r));
  CHECK(r.verdict == Verdict::kAgree);
  REQUIRE(r.buffers.size() == 1);
  CHECK(r.buffers[0].name == "frame");
  CHECK(r.buffers[0].kind == "image");
  CHECK(r.buffers[0].rule == "exact");
  CHECK(r.buffers[0].elements == 256);
  // The second EXPECT fails on both sides: that is agreement.
  REQUIRE(r.expectations.size() == 2);
  CHECK(r.expectations[0].device->passed);
  CHECK_FALSE(r.expectations[1].emulator->passed);
  CHECK(r.expectations[1].agree());
  bool judged_primitives = false;
  for (const StatisticRow& s : r.statistics) {
    if (s.name == "primitives_in") {
      judged_primitives = s.compared && s.agree && s.device == 2u;
    }
    if (s.name == "fs_invocations") CHECK_FALSE(s.compared);
  }
  CHECK(judged_primitives);
  CHECK(r.Summary().empty());
}

TEST_CASE("crosscheck with observe judges the recorded invocations",
          "[vkref]") {
  if (!testing::HaveLavapipe()) return;
  const CrosscheckReport r = CrosscheckText(kDraw, /*observe=*/true);
  INFO(CrosscheckTable(r));
  CHECK(r.verdict == Verdict::kAgree);
  // lavapipe records pixels (no warps): the non-helper fragment
  // invocations are judged, 256 on both sides.
  bool judged = false;
  for (const StatisticRow& s : r.statistics) {
    if (s.name == "observed_fs_invocations") {
      judged = s.compared && s.agree && s.device == 256u;
    }
    CHECK(s.name != "observed_fragment_warps");
  }
  CHECK(judged);
}

TEST_CASE("crosscheck: compute buffers of floats", "[vkref]") {
  if (!testing::HaveLavapipe()) return;
  const CrosscheckReport r = CrosscheckText(R"(#!amber
SHADER compute cs GLSL
#version 430
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { float v[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  v[i] = float(i) / 7.0 + sqrt(float(i));
}
END
BUFFER buf DATA_TYPE float SIZE 128 FILL 0.0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 2 1 1
)");
  INFO(CrosscheckTable(r));
  CHECK(r.verdict == Verdict::kAgree);
  REQUIRE(r.buffers.size() == 1);
  CHECK(r.buffers[0].rule == "float32 <= 3 ULP");
  REQUIRE(r.statistics.size() == 1);
  CHECK(r.statistics[0].name == "cs_invocations");
  CHECK(r.statistics[0].device == 128u);
}

TEST_CASE("crosscheck: a side that cannot run names itself", "[vkref]") {
  if (!testing::HaveLavapipe()) return;
  std::string scene = kDraw;
  scene.insert(8, "DEVICE_FEATURE sparseResidencyAliased\n");
  const CrosscheckReport r = CrosscheckText(scene);
  CHECK(r.verdict == Verdict::kUnsupported);
  CHECK(ExitCodeFor(r.verdict) == 3);
  CHECK_THAT(r.reason, Catch::Contains("sparseResidencyAliased"));
  CHECK(r.Summary() == r.reason);
}

TEST_CASE("crosscheck: a parse error is invalid for both", "[vkref]") {
  const CrosscheckReport r =
      CrosscheckFile("/nonexistent/x.amber", CrosscheckOptions{});
  CHECK(r.verdict == Verdict::kInvalid);
  CHECK(ExitCodeFor(r.verdict) == 2);
  CHECK_THAT(r.reason, Catch::Contains("both sides"));
}

TEST_CASE("crosscheck: the summary names what differs", "[vkref]") {
  CrosscheckReport r;
  r.verdict = Verdict::kDiffer;
  BufferComparison b;
  b.name = "frame";
  b.kind = "image";
  b.format = "R8_UNORM";
  b.rule = "exact";
  b.agree = false;
  b.elements = 4;
  b.differing_elements = 1;
  b.first = ElementDifference{3, 1, 1, 0, 0, 10, 11};
  r.buffers.push_back(b);
  StatisticRow s;
  s.command = "draw";
  s.line = 7;
  s.name = "primitives_in";
  s.device = 2;
  s.emulator = 3;
  s.compared = true;
  s.agree = false;
  r.statistics.push_back(s);
  CHECK(r.Summary() ==
        "image frame (R8_UNORM, exact): 1 of 4 differ, first at (1,1) c0: "
        "device 10, emulator 11; draw line 7 primitives_in: "
        "device 2, emulator 3");
  CHECK(VerdictName(Verdict::kDiffer) == std::string("differ"));
  CHECK(ExitCodeFor(Verdict::kDiffer) == 1);
}

}  // namespace
}  // namespace warpsim::vkref
