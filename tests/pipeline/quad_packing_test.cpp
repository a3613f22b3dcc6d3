// How rasterized quads become fragment warps (fragment_stage.h,
// GraphicsConfig::quad_packing): per primitive, mixed, and per 16x16 tile
// as the h200 preset does (an open warp per tile, least recently used
// launched; within a tile, bands of 4 quad rows walked column by column).
#include <catch2/catch.hpp>
#include <string>

#include "common/test_util.h"
#include "runner/runner.h"
#include "scene/amber_parser.h"

namespace {

using warpsim::runner::RunStatus;
using warpsim::testing::Describe;
using warpsim::testing::RunAmberText;

TEST_CASE("quad packing: per primitive, mixed or tiles",
          "[pipeline][packing]") {
  // A 16x16 DRAW_GRID of 8x8 cells gives 128 small triangles. Per primitive
  // every triangle gets its own fragment warp; mixed packing fills warps
  // with 8 quads from consecutive triangles; tiles packing (the h200
  // preset) does the same here, the whole grid being one 16x16 tile. The
  // image is the same every way.
  const std::string amber = R"(#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 450
layout(location = 0) out vec4 c;
void main() { c = vec4(gl_FragCoord.xy / 16.0, 0.0, 1.0); }
END
BUFFER fb FORMAT R8G8B8A8_UNORM
PIPELINE graphics g
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 16 16
  BIND BUFFER fb AS color LOCATION 0
END
RUN g DRAW_GRID POS 0 0 SIZE 16 16 CELLS 8 8
)";
  auto scene = warpsim::scene::ParseAmberScript(amber, "packing.amber");
  REQUIRE(scene.ok());
  warpsim::runner::RunOptions per_primitive, mixed, tiles;
  per_primitive.quad_packing = warpsim::pipeline::QuadPacking::kPerPrimitive;
  mixed.quad_packing = warpsim::pipeline::QuadPacking::kMixed;
  CHECK(tiles.quad_packing == warpsim::pipeline::QuadPacking::kTiles);
  const auto a = warpsim::runner::RunScene(*scene, per_primitive);
  const auto b = warpsim::runner::RunScene(*scene, mixed);
  const auto c = warpsim::runner::RunScene(*scene, tiles);
  INFO(Describe(a) << "\n" << Describe(b) << "\n" << Describe(c));
  REQUIRE(a.status == RunStatus::kPass);
  REQUIRE(b.status == RunStatus::kPass);
  REQUIRE(c.status == RunStatus::kPass);
  REQUIRE(a.draws.size() == 1);
  REQUIRE(b.draws.size() == 1);
  REQUIRE(c.draws.size() == 1);
  CHECK(a.draws[0].stats.fs_invocations == 256);
  CHECK(b.draws[0].stats.fs_invocations == 256);
  CHECK(c.draws[0].stats.fs_invocations == 256);
  CHECK(a.draws[0].stats.quads == b.draws[0].stats.quads);
  CHECK(a.draws[0].stats.quads == c.draws[0].stats.quads);
  CHECK(a.draws[0].stats.fragment_warps == 128);
  CHECK(b.draws[0].stats.fragment_warps == (b.draws[0].stats.quads + 7) / 8);
  CHECK(c.draws[0].stats.fragment_warps == b.draws[0].stats.fragment_warps);
  REQUIRE(a.images.size() == 1);
  REQUIRE(b.images.size() == 1);
  REQUIRE(c.images.size() == 1);
  CHECK(a.images[0].bytes == b.images[0].bytes);
  CHECK(a.images[0].bytes == c.images[0].bytes);
}

TEST_CASE("tiles packing: an open warp per 16x16 tile", "[pipeline][packing]") {
  // Two 16x16 tiles side by side; 8 triangles (legs of 8 and 4 pixels,
  // 6 quads each) alternate between the left and the right tile. With 2
  // open tiles each tile's warp collects quads of successive triangles
  // (24 quads per tile: 3 full warps each); with 1 open tile every change
  // of tile launches the open warp, so each triangle gets its own.
  std::string amber = R"(#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 450
layout(location = 0) out vec4 c;
void main() { c = vec4(1.0); }
END
BUFFER fb FORMAT R8G8B8A8_UNORM
PIPELINE graphics g
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 32 16
  BIND BUFFER fb AS color LOCATION 0
END
BUFFER pos DATA_TYPE vec2<float> DATA
)";
  // Triangle i: in the left tile for even i, the right for odd i.
  for (int i = 0; i < 8; ++i) {
    const float x0 = (i % 2 == 0 ? 0.0f : 16.0f) + 4.0f * (i / 2 % 2);
    const float y0 = 2.0f * (i / 4);
    const float ndc_x = x0 / 16.0f - 1.0f, ndc_y = y0 / 8.0f - 1.0f;
    amber += std::to_string(ndc_x) + " " + std::to_string(ndc_y) + " " +
             std::to_string(ndc_x + 8.0f / 16.0f) + " " +
             std::to_string(ndc_y) + " " + std::to_string(ndc_x) + " " +
             std::to_string(ndc_y + 4.0f / 8.0f) + "\n";
  }
  amber += R"(END
DERIVE_PIPELINE t FROM g
  VERTEX_DATA pos LOCATION 0
END
RUN t DRAW_ARRAY AS TRIANGLE_LIST START_IDX 0 COUNT 24
)";
  auto scene = warpsim::scene::ParseAmberScript(amber, "tiles.amber");
  REQUIRE(scene.ok());
  warpsim::runner::RunOptions two, one;
  two.open_tiles = 2;
  one.open_tiles = 1;
  const auto a = warpsim::runner::RunScene(*scene, two);
  const auto b = warpsim::runner::RunScene(*scene, one);
  INFO(Describe(a) << "\n" << Describe(b));
  REQUIRE(a.status == RunStatus::kPass);
  REQUIRE(b.status == RunStatus::kPass);
  const auto& sa = a.draws[0].stats;
  const auto& sb = b.draws[0].stats;
  CHECK(sa.quads == sb.quads);
  CHECK(sa.fs_invocations == sb.fs_invocations);
  CHECK(sa.quads == 48);
  CHECK(sa.fragment_warps == 6);
  CHECK(sb.fragment_warps == 8);
}

TEST_CASE("tiles packing: a full warp is 2 quads wide and 4 tall",
          "[pipeline][packing]") {
  // One triangle covering the 16x16 framebuffer (one tile); each pixel
  // writes its subgroup lane. In a tile, bands of 4 quad rows are walked
  // column by column, top to bottom, so lane = 4 q + (x & 1) + 2 (y & 1)
  // with q = 4 (quad column % 2) + (quad row % 4), as on the H200
  // (FINDINGS.md, Q2).
  const auto r = RunAmberText(R"(#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout(location = 0) out vec4 c;
void main() { c = vec4(float(gl_SubgroupInvocationID) / 255.0, 0, 0, 1); }
END
BUFFER fb FORMAT R8G8B8A8_UNORM
BUFFER tri DATA_TYPE vec2<float> DATA
-1 -1  3 -1  -1 3
END
PIPELINE graphics g
  ATTACH vs
  ATTACH fs
  VERTEX_DATA tri LOCATION 0
  FRAMEBUFFER_SIZE 16 16
  BIND BUFFER fb AS color LOCATION 0
END
RUN g DRAW_ARRAY AS TRIANGLE_LIST START_IDX 0 COUNT 3
)");
  INFO(Describe(r));
  REQUIRE(r.status == RunStatus::kPass);
  REQUIRE(r.images.size() == 1);
  CHECK(r.draws[0].stats.fragment_warps == 8);
  for (int y = 0; y < 16; ++y) {
    for (int x = 0; x < 16; ++x) {
      const int q = 4 * ((x / 2) % 2) + (y / 2) % 4;
      const int lane = 4 * q + (x & 1) + 2 * (y & 1);
      INFO("pixel " << x << ", " << y);
      CHECK(r.images[0].bytes[(y * 16 + x) * 4] == lane);
    }
  }
}

}  // namespace
