// vk_runner.cpp on lavapipe: samples and corpus files pass, EXPECTs are
// judged like the emulator's, draws and dispatches carry the device's
// statistics and GPU time.
#include "vulkan_ref/vk_runner.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "vulkan_ref/vk_test_util.h"

namespace warpsim::vkref {
namespace {

using testing::Describe;
using testing::HaveLavapipe;
using testing::RunText;

DeviceRunReport RunFile(const std::string& path) {
  VkRunOptions options;
  options.device = "lavapipe";
  return RunFileOnDevice(path, options);
}

TEST_CASE("The samples pass on lavapipe", "[vkref]") {
  if (!HaveLavapipe()) return;
  for (const char* f : {"samples/compute/prefix_sum.amber",
                        "samples/graphics/big_vs_tiny_triangles.amber",
                        "samples/graphics/lit_textured_mesh.amber"}) {
    const DeviceRunReport r =
        RunFile(std::string(WARPSIM_SOURCE_DIR) + "/" + f);
    INFO(f << ": " << Describe(r));
    CHECK(r.run.status == runner::RunStatus::kPass);
    CHECK(r.device.is_cpu);
    CHECK_FALSE(r.run.expectations.empty());
  }
}

TEST_CASE("Corpus files pass on lavapipe", "[vkref]") {
  if (!HaveLavapipe()) return;
  const std::string root = WARPSIM_CONFORMANCE_DIR;
  if (!std::filesystem::exists(root)) {
    WARN("no conformance corpus at " << root);
    return;
  }
  for (const char* f : {"amber-cases/draw_rectangles.amber",
                        "amber-cases/compute_dynamic_buffers.amber",
                        "amber-cases/draw_rectangles_depth_test.amber",
                        "amber-cases/draw_triangle_list.vkscript"}) {
    const std::string path = root + "/" + f;
    if (!std::filesystem::exists(path)) continue;
    const DeviceRunReport r = RunFile(path);
    INFO(f << ": " << Describe(r));
    CHECK(r.run.status == runner::RunStatus::kPass);
  }
}

// A rectangle covering the 32x32 framebuffer as two triangles. Lavapipe
// counts fragment invocations per 2x2 quad, helper lanes included, so the
// count is the pixel count plus the quads on the diagonal that both
// triangles touch (two per quad row), 4 invocations each.
constexpr char kFullScreen[] = R"(#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 430
layout(location = 0) out vec4 color;
void main() { color = vec4(1.0, 0.5, 0.0, 1.0); }
END
BUFFER frame FORMAT R8G8B8A8_UNORM
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  BIND BUFFER frame AS color LOCATION 0
  FRAMEBUFFER_SIZE 32 32
END
CLEAR_COLOR p 0 0 0 255
CLEAR p
RUN p DRAW_RECT POS 0 0 SIZE 32 32
EXPECT frame IDX 0 0 SIZE 32 32 EQ_RGBA 255 128 0 255
)";

TEST_CASE("A full-screen rectangle: statistics and image", "[vkref]") {
  if (!HaveLavapipe()) return;
  const DeviceRunReport r = RunText(kFullScreen, 3);
  INFO(Describe(r));
  REQUIRE(r.run.status == runner::RunStatus::kPass);
  REQUIRE(r.draws.size() == 1);
  const Statistics& s = r.draws[0].statistics;
  CHECK(s.at("fs_invocations") == 32 * 32 + 4 * 2 * 16);
  CHECK(s.at("vs_invocations") == 4);
  CHECK(s.at("primitives_in") == 2);
  CHECK(s.at("primitives_out") == 2);
  CHECK(r.draws[0].gpu_ns.size() == 3);
  REQUIRE(r.run.images.size() == 1);
  CHECK(r.run.images[0].name == "frame");
  CHECK(r.run.images[0].bytes[0] == 255);
  CHECK(r.run.images[0].bytes[1] == 128);
}

TEST_CASE("A failing EXPECT fails with the scene module's message", "[vkref]") {
  if (!HaveLavapipe()) return;
  std::string text = kFullScreen;
  text.replace(text.find("EQ_RGBA 255 128"), 15, "EQ_RGBA 0 128");
  const DeviceRunReport r = RunText(text);
  CHECK(r.run.status == runner::RunStatus::kFail);
  REQUIRE(r.run.expectations.size() == 1);
  CHECK_THAT(r.run.expectations[0].message, Catch::Contains("pixel"));
}

TEST_CASE("Compute: buffers, push constants and cs_invocations", "[vkref]") {
  if (!HaveLavapipe()) return;
  const DeviceRunReport r = RunText(R"(#!amber
SHADER compute cs GLSL
#version 430
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
layout(set = 0, binding = 1) uniform U { uint add; } u;
layout(push_constant) uniform P { uint mul; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  b.v[i] = b.v[i] * pc.mul + u.add;
}
END
BUFFER buf DATA_TYPE uint32 DATA 1 2 3 4 5 6 7 8 END
BUFFER ubo DATA_TYPE uint32 DATA 100 END
BUFFER push DATA_TYPE uint32 DATA 3 END
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER ubo AS uniform DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER push AS push_constant
END
RUN p 2 1 1
EXPECT buf IDX 0 EQ 103 106 109 112 115 118 121 124
)");
  INFO(Describe(r));
  CHECK(r.run.status == runner::RunStatus::kPass);
  REQUIRE(r.dispatches.size() == 1);
  CHECK(r.dispatches[0].statistics.at("cs_invocations") == 8);
  CHECK(r.run.stats.workgroups == 2);
  REQUIRE(r.pipelines.size() == 1);
  CHECK(r.pipelines[0].stage == "compute");
  CHECK(r.pipelines[0].legalized);
}

TEST_CASE("What the device lacks is unsupported by name", "[vkref]") {
  if (!HaveLavapipe()) return;
  const DeviceRunReport r = RunText(
      "#!amber\nDEVICE_EXTENSION VK_NV_no_such_extension\n"
      "SHADER compute cs GLSL\n#version 430\nvoid main() {}\nEND\n"
      "PIPELINE compute p\n  ATTACH cs\nEND\nRUN p 1 1 1\n");
  CHECK(r.run.status == runner::RunStatus::kUnsupported);
  REQUIRE(r.run.diagnostic.has_value());
  CHECK_THAT(r.run.diagnostic->message,
             Catch::Contains("VK_NV_no_such_extension"));
}

}  // namespace
}  // namespace warpsim::vkref
