// Rasterizer tests through inline AmberScript: the fill rule (every pixel
// of a fan and of a grid of triangles sharing edges covered exactly once,
// counted with additive blending into a float attachment), sub-pixel
// snapping, near/far clipping and w < 0, face culling, quad and helper-lane
// counts, fine and coarse derivatives, and varying interpolation.
//
// Unless a test says otherwise the framebuffer is 16x16, and positions are
// given in pixel coordinates and converted to NDC (x_ndc = x / 8 - 1), so
// that a value such as 4.5 (a pixel centre) or 4.5 + 1/1024 is exact in
// float both in NDC and after the viewport transform.
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "runner/runner.h"
#include "scene/amber_parser.h"

namespace {

using warpsim::testing::Describe;

using warpsim::runner::RunReport;
using warpsim::runner::RunStatus;

constexpr int kSize = 16;

RunReport Run(const std::string& amber) {
  auto scene = warpsim::scene::ParseAmberScript(amber, "raster_test.amber");
  if (!scene.ok()) FAIL(scene.error().ToString());
  return warpsim::runner::RunScene(*scene, {});
}

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

double Ndc(double pixel) { return pixel / (kSize / 2.0) - 1.0; }

// A clip-space vertex (x, y, z, w).
using Clip = std::array<double, 4>;

// A vertex at pixel (x, y) with depth z and w = 1.
Clip Px(double x, double y, double z = 0.5) { return {Ndc(x), Ndc(y), z, 1}; }

std::string PositionBuffer(const std::vector<Clip>& v) {
  std::string s = "BUFFER pos DATA_TYPE vec4<float> DATA\n";
  for (const Clip& c : v) {
    s += Num(c[0]) + " " + Num(c[1]) + " " + Num(c[2]) + " " + Num(c[3]) + "\n";
  }
  return s + "END\n";
}

// Writes 1.0 to every covered pixel.
const char* const kOneFs = R"(#version 450
layout(location = 0) out vec4 c;
void main() { c = vec4(1.0); }
)";

const char* const kAdditiveBlend = R"(
  BLEND
    SRC_COLOR_FACTOR one
    DST_COLOR_FACTOR one
    COLOR_OP add
    SRC_ALPHA_FACTOR one
    DST_ALPHA_FACTOR one
    ALPHA_OP add
  END
)";

struct Draw {
  std::vector<Clip> vertices;
  std::string topology = "TRIANGLE_LIST";
  std::string pipeline_extra;  // lines inside the PIPELINE block
  std::string fs = kOneFs;     // fragment shader (GLSL)
  std::string format = "R32_SFLOAT";
};

// One draw of `d.vertices` through a passthrough vertex shader into a
// cleared (0) 16x16 image `fb`.
RunReport RunDraw(const Draw& d) {
  const std::string amber = "#!amber\nSHADER vertex vs PASSTHROUGH\n" +
                            std::string("SHADER fragment fs GLSL\n") + d.fs +
                            "END\n" + PositionBuffer(d.vertices) +
                            "IMAGE fb FORMAT " + d.format +
                            " DIM_2D WIDTH 16 HEIGHT 16\n"
                            "PIPELINE graphics p\n"
                            "  ATTACH vs\n  ATTACH fs\n"
                            "  VERTEX_DATA pos LOCATION 0\n"
                            "  FRAMEBUFFER_SIZE 16 16\n"
                            "  BIND BUFFER fb AS color LOCATION 0\n" +
                            d.pipeline_extra +
                            "END\n"
                            "CLEAR_COLOR p 0 0 0 0\nCLEAR p\n"
                            "RUN p DRAW_ARRAY AS " +
                            d.topology + " START_IDX 0 COUNT " +
                            std::to_string(d.vertices.size()) + "\n";
  return Run(amber);
}

// The float components of image `name` (R32_SFLOAT: one per pixel,
// R32G32B32A32_SFLOAT: four).
std::vector<float> Floats(const RunReport& r, const std::string& name = "fb") {
  for (const auto& image : r.images) {
    if (image.name != name) continue;
    std::vector<float> f(image.bytes.size() / 4);
    std::memcpy(f.data(), image.bytes.data(), f.size() * 4);
    return f;
  }
  FAIL("no image " << name);
  return {};
}

// Every pixel's value, as a printable 16x16 table (for failure messages).
std::string Table(const std::vector<float>& f, int components = 1) {
  std::string s;
  for (int y = 0; y < kSize; ++y) {
    for (int x = 0; x < kSize; ++x) {
      s += Num(f[(y * kSize + x) * components]) + " ";
    }
    s += "\n";
  }
  return s;
}

int CountEqual(const std::vector<float>& f, float v) {
  int n = 0;
  for (float x : f) n += x == v;
  return n;
}

}  // namespace

// ---------------------------------------------------------------------------
// Fill rule

TEST_CASE("a triangle fan around a pixel centre covers every pixel once",
          "[pipeline][raster]") {
  // Centre on the pixel centre (8.5, 8.5); 16 rim vertices at centre +
  // 20 * (dx, dy) with integer (dx, dy), so every spoke passes through pixel
  // centres, and the centre itself is shared by all 16 triangles. The rim
  // is far outside the framebuffer (guard band).
  const int dirs[16][2] = {{1, 0},  {2, 1},   {1, 1},   {1, 2},
                           {0, 1},  {-1, 2},  {-1, 1},  {-2, 1},
                           {-1, 0}, {-2, -1}, {-1, -1}, {-1, -2},
                           {0, -1}, {1, -2},  {1, -1},  {2, -1}};
  Draw d;
  d.topology = "TRIANGLE_FAN";
  d.pipeline_extra = kAdditiveBlend;
  d.vertices.push_back(Px(8.5, 8.5));
  for (int i = 0; i <= 16; ++i) {
    const int* dir = dirs[i % 16];
    d.vertices.push_back(Px(8.5 + 20 * dir[0], 8.5 + 20 * dir[1]));
  }
  const RunReport r = RunDraw(d);
  INFO(Describe(r));
  REQUIRE(r.status == RunStatus::kPass);
  const std::vector<float> f = Floats(r);
  INFO(Table(f));
  CHECK(CountEqual(f, 1.0f) == kSize * kSize);
  REQUIRE(r.draws.size() == 1);
  CHECK(r.draws[0].stats.primitives_in == 16);
  CHECK(r.draws[0].stats.fs_invocations == kSize * kSize);
}

TEST_CASE(
    "a grid of triangles with edges through pixel centres covers every "
    "pixel once",
    "[pipeline][raster]") {
  // 7x7 cells of 3x3 pixels with corners on pixel centres (-2.5 + 3i), each
  // split along one diagonal (alternating), so horizontal, vertical and
  // both diagonal shared edges run through pixel centres, and vertices sit
  // on pixel centres. Half of the triangles are wound the other way.
  Draw d;
  d.pipeline_extra = kAdditiveBlend;
  for (int j = 0; j < 7; ++j) {
    for (int i = 0; i < 7; ++i) {
      const double x0 = -2.5 + 3 * i, y0 = -2.5 + 3 * j;
      const double x1 = x0 + 3, y1 = y0 + 3;
      const Clip a = Px(x0, y0), b = Px(x1, y0), c = Px(x1, y1), e = Px(x0, y1);
      if ((i + j) % 2 == 0) {  // diagonal a-c
        d.vertices.insert(d.vertices.end(), {a, b, c, a, e, c});
      } else {  // diagonal b-e
        d.vertices.insert(d.vertices.end(), {a, b, e, b, c, e});
      }
    }
  }
  const RunReport r = RunDraw(d);
  INFO(Describe(r));
  REQUIRE(r.status == RunStatus::kPass);
  const std::vector<float> f = Floats(r);
  INFO(Table(f));
  CHECK(CountEqual(f, 1.0f) == kSize * kSize);
  REQUIRE(r.draws.size() == 1);
  CHECK(r.draws[0].stats.primitives_in == 98);
  CHECK(r.draws[0].stats.fs_invocations == kSize * kSize);
}

TEST_CASE("edges through pixel centres: top and left edges own them",
          "[pipeline][raster]") {
  // A rectangle with corners on pixel centres (2.5, 2.5) - (12.5, 10.5):
  // centres on its top and left edges are inside, on its bottom and right
  // edges outside, so it covers x in 2..11 and y in 2..9 (80 pixels).
  Draw d;
  d.pipeline_extra = kAdditiveBlend;
  d.vertices = {Px(2.5, 2.5), Px(12.5, 2.5),  Px(12.5, 10.5),
                Px(2.5, 2.5), Px(12.5, 10.5), Px(2.5, 10.5)};
  const RunReport r = RunDraw(d);
  INFO(Describe(r));
  REQUIRE(r.status == RunStatus::kPass);
  const std::vector<float> f = Floats(r);
  INFO(Table(f));
  for (int y = 0; y < kSize; ++y) {
    for (int x = 0; x < kSize; ++x) {
      const bool inside = x >= 2 && x <= 11 && y >= 2 && y <= 9;
      INFO("pixel " << x << ", " << y);
      CHECK(f[y * kSize + x] == (inside ? 1.0f : 0.0f));
    }
  }
  CHECK(r.draws[0].stats.fs_invocations == 80);
}

// ---------------------------------------------------------------------------
// Sub-pixel snapping

TEST_CASE("vertices snap to 1/256 pixel", "[pipeline][raster]") {
  // A triangle whose vertical left edge x = 4.5 runs through pixel centres
  // (a left edge: those centres are covered). Moving both vertices of that
  // edge by +-1/1024 or +-3/2048 pixel (less than half a 1/256 step)
  // snaps back to 4.5: the same pixels. Moving them
  // by one sub-pixel step (+1/256) leaves column 4 uncovered.
  auto coverage = [](double dx) {
    Draw d;
    d.vertices = {Px(4.5 + dx, 2.5), Px(4.5 + dx, 12.5), Px(13.0, 2.5)};
    const RunReport r = RunDraw(d);
    INFO(Describe(r));
    REQUIRE(r.status == RunStatus::kPass);
    return std::make_pair(Floats(r), r.draws.at(0).stats.fs_invocations);
  };
  const auto [exact, exact_n] = coverage(0);
  INFO("exact:\n" << Table(exact));
  int column4 = 0;
  for (int y = 0; y < kSize; ++y) column4 += exact[y * kSize + 4] == 1.0f;
  CHECK(column4 >= 10);  // rows 2..11 at least
  CHECK(exact[2 * kSize + 4] == 1.0f);
  CHECK(exact[2 * kSize + 3] == 0.0f);

  for (double dx : {1.0 / 1024, -1.0 / 1024, 3.0 / 2048, -3.0 / 2048}) {
    INFO("offset " << dx);
    const auto [moved, moved_n] = coverage(dx);
    CHECK(moved == exact);
    CHECK(moved_n == exact_n);
  }
  const auto [step, step_n] = coverage(1.0 / 256);
  INFO("offset 1/256:\n" << Table(step));
  std::vector<float> expected = exact;
  for (int y = 0; y < kSize; ++y) expected[y * kSize + 4] = 0.0f;
  CHECK(step == expected);
  CHECK(step_n == exact_n - static_cast<uint64_t>(column4));
}

// ---------------------------------------------------------------------------
// Clipping

TEST_CASE("triangles are clipped at the near and far planes",
          "[pipeline][raster]") {
  // A triangle covering the whole framebuffer with z = x_ndc + 0.5 (w = 1):
  // only 0 <= z <= 1, i.e. -0.5 <= x_ndc <= 0.5, survives clipping, which
  // is pixel columns 4..11 (no depth attachment: clipping does not depend
  // on a depth test).
  Draw d;
  d.vertices = {{-1, -1, -0.5, 1}, {3, -1, 3.5, 1}, {-1, 3, -0.5, 1}};
  const RunReport r = RunDraw(d);
  INFO(Describe(r));
  REQUIRE(r.status == RunStatus::kPass);
  const std::vector<float> f = Floats(r);
  INFO(Table(f));
  for (int y = 0; y < kSize; ++y) {
    for (int x = 0; x < kSize; ++x) {
      INFO("pixel " << x << ", " << y);
      CHECK(f[y * kSize + x] == (x >= 4 && x <= 11 ? 1.0f : 0.0f));
    }
  }
  CHECK(r.draws[0].stats.fs_invocations == 8 * kSize);
}

TEST_CASE(
    "a triangle partly behind the camera (w < 0) is clipped before "
    "the divide",
    "[pipeline][raster]") {
  // A floor plane y = 0.25 seen in perspective (x_c = x, y_c = 0.25,
  // z_c = 0.5 w): two vertices in front (w = 1) at x = -1, 1 and one
  // behind the camera (w = -1) at x = 0. Clipped at w = 0 (z_c >= 0), the
  // visible part is y_ndc >= 0.25 with |x_ndc| <= 2 y_ndc + 0.5, which is
  // all of pixel rows 10..15. Dividing by the negative w instead would
  // draw a small triangle pointing up from row 10.
  Draw d;
  d.vertices = {{-1, 0.25, 0.5, 1}, {1, 0.25, 0.5, 1}, {0, 0.25, -0.5, -1}};
  const RunReport r = RunDraw(d);
  INFO(Describe(r));
  REQUIRE(r.status == RunStatus::kPass);
  const std::vector<float> f = Floats(r);
  INFO(Table(f));
  for (int y = 0; y < kSize; ++y) {
    for (int x = 0; x < kSize; ++x) {
      INFO("pixel " << x << ", " << y);
      CHECK(f[y * kSize + x] == (y >= 10 ? 1.0f : 0.0f));
    }
  }
  CHECK(r.draws[0].stats.fs_invocations == 6 * kSize);
}

TEST_CASE("a triangle entirely behind the camera draws nothing",
          "[pipeline][raster]") {
  Draw d;
  d.vertices = {{-1, -1, -0.5, -1}, {1, -1, -0.5, -1}, {0, 1, -0.5, -1}};
  const RunReport r = RunDraw(d);
  INFO(Describe(r));
  REQUIRE(r.status == RunStatus::kPass);
  CHECK(CountEqual(Floats(r), 0.0f) == kSize * kSize);
  CHECK(r.draws[0].stats.fs_invocations == 0);
  CHECK(r.draws[0].stats.primitives_out == 0);
}

// ---------------------------------------------------------------------------
// Culling

TEST_CASE("face culling by CULL_MODE and FRONT_FACE", "[pipeline][raster]") {
  // Left: (1,1) (7,1) (1,7) is clockwise in framebuffer coordinates (signed
  // area a = -18 with Vulkan's y-down formula); right: (9,9) (9,15) (15,9)
  // is counter-clockwise (a = +18).
  struct Case {
    const char* cull;
    const char* front;
    bool cw_drawn, ccw_drawn;
  };
  const Case cases[] = {
      {"none", "counter_clockwise", true, true},
      {"back", "counter_clockwise", false, true},
      {"back", "clockwise", true, false},
      {"front", "counter_clockwise", true, false},
      {"front", "clockwise", false, true},
      {"front_and_back", "counter_clockwise", false, false},
  };
  for (const Case& c : cases) {
    INFO("CULL_MODE " << c.cull << ", FRONT_FACE " << c.front);
    Draw d;
    d.pipeline_extra = std::string("  CULL_MODE ") + c.cull +
                       "\n  FRONT_FACE " + c.front + "\n";
    d.vertices = {Px(1, 1), Px(7, 1), Px(1, 7), Px(9, 9), Px(9, 15), Px(15, 9)};
    const RunReport r = RunDraw(d);
    INFO(Describe(r));
    REQUIRE(r.status == RunStatus::kPass);
    const std::vector<float> f = Floats(r);
    CHECK(f[3 * kSize + 2] == (c.cw_drawn ? 1.0f : 0.0f));
    CHECK(f[11 * kSize + 10] == (c.ccw_drawn ? 1.0f : 0.0f));
    // Each triangle covers 15 pixel centres (u, v >= 0, u + v <= 4 from
    // its right-angle corner; its hypotenuse's centres are bottom-right).
    CHECK(r.draws[0].stats.fs_invocations == 15u * (c.cw_drawn + c.ccw_drawn));
    CHECK(r.draws[0].stats.primitives_in == 2);
  }
}

// ---------------------------------------------------------------------------
// Quads and helper lanes

namespace {

warpsim::pipeline::DrawStats DrawStatsOf(const std::vector<Clip>& v) {
  Draw d;
  d.vertices = v;
  const RunReport r = RunDraw(d);
  INFO(Describe(r));
  REQUIRE(r.status == RunStatus::kPass);
  REQUIRE(r.draws.size() == 1);
  return r.draws[0].stats;
}

}  // namespace

TEST_CASE("helper lanes and quads of tiny triangles", "[pipeline][raster]") {
  SECTION("a one-pixel triangle: 1 quad, 3 helpers, 1 warp") {
    const auto s = DrawStatsOf({Px(5.2, 5.2), Px(6.0, 5.2), Px(5.2, 6.0)});
    CHECK(s.fs_invocations == 1);
    CHECK(s.helper_lanes == 3);
    CHECK(s.quads == 1);
    CHECK(s.fragment_warps == 1);
  }
  SECTION("a triangle covering exactly one 2x2 quad: no helpers") {
    // Covers the centres of pixels (4..5, 4..5) and no others.
    const auto s = DrawStatsOf({Px(3.8, 3.8), Px(6.4, 4.8), Px(4.8, 6.4)});
    CHECK(s.fs_invocations == 4);
    CHECK(s.helper_lanes == 0);
    CHECK(s.quads == 1);
    CHECK(s.fragment_warps == 1);
  }
  SECTION("two pixels in two quads: 2 quads, 6 helpers, one warp") {
    // Pixels (5, 4) and (6, 4): quads (4, 4) and (6, 4).
    const auto s = DrawStatsOf({Px(5.2, 4.2), Px(8.0, 4.2), Px(5.2, 4.9)});
    CHECK(s.fs_invocations == 2);
    CHECK(s.helper_lanes == 6);
    CHECK(s.quads == 2);
    CHECK(s.fragment_warps == 1);
  }
  SECTION("two one-pixel triangles in one quad: quads never mix primitives") {
    // Pixels (4, 4) and (5, 5), both in quad (4, 4), of different triangles:
    // two quads, which the h200 packing (tiles) puts in one warp, as the
    // H200 does (FINDINGS.md, Q2: 2x2-pixel cells of two triangles).
    const auto s = DrawStatsOf({Px(4.2, 4.2), Px(4.9, 4.2), Px(4.2, 4.9),
                                Px(5.2, 5.2), Px(5.9, 5.2), Px(5.2, 5.9)});
    CHECK(s.fs_invocations == 2);
    CHECK(s.helper_lanes == 6);
    CHECK(s.quads == 2);
    CHECK(s.fragment_warps == 1);
  }
  SECTION(
      "a full-screen rectangle: the 8 quads on its diagonal are shaded "
      "by both triangles") {
    // Two triangles sharing the diagonal of the 16x16 framebuffer: each of
    // the 8 quads on it is shaded twice, 4 of its 8 lanes helpers.
    const auto s = DrawStatsOf(
        {Px(0, 0), Px(16, 0), Px(16, 16), Px(0, 0), Px(16, 16), Px(0, 16)});
    CHECK(s.fs_invocations == 256);
    CHECK(s.quads == 64 + 8);
    CHECK(s.helper_lanes == 4 * 8);
  }
}

// ---------------------------------------------------------------------------
// Derivatives

namespace {

// A 16x16 R32G32B32A32_SFLOAT draw of the whole framebuffer (or of the
// given vertices) with fragment shader `fs`.
std::vector<float> RunFloat4(const std::string& fs,
                             std::vector<Clip> vertices = {}) {
  Draw d;
  d.fs = fs;
  d.format = "R32G32B32A32_SFLOAT";
  d.vertices = vertices.empty()
                   ? std::vector<Clip>{Px(0, 0), Px(16, 0),  Px(16, 16),
                                       Px(0, 0), Px(16, 16), Px(0, 16)}
                   : vertices;
  const RunReport r = RunDraw(d);
  INFO(Describe(r));
  REQUIRE(r.status == RunStatus::kPass);
  return Floats(r);
}

// p = x * x * y at pixel (px, py)'s centre: exact in float on 16x16.
double P(int px, int py) {
  const double x = px + 0.5, y = py + 0.5;
  return x * x * y;
}

}  // namespace

TEST_CASE("fine and coarse derivatives of x * x * y", "[pipeline][raster]") {
  // Fine: the difference within the pixel's own row (dFdx) or column
  // (dFdy) of its quad; coarse: the quad's top row / left column for all
  // four pixels (REFERENCE §8.4).
  const std::vector<float> f = RunFloat4(R"(#version 450
layout(location = 0) out vec4 c;
void main() {
  float p = gl_FragCoord.x * gl_FragCoord.x * gl_FragCoord.y;
  c = vec4(dFdxFine(p), dFdyFine(p), dFdxCoarse(p), dFdyCoarse(p));
}
)");
  for (int y = 0; y < kSize; ++y) {
    for (int x = 0; x < kSize; ++x) {
      const int x0 = x & ~1, y0 = y & ~1;
      const float* got = &f[(y * kSize + x) * 4];
      INFO("pixel " << x << ", " << y);
      CHECK(got[0] == static_cast<float>(P(x0 + 1, y) - P(x0, y)));
      CHECK(got[1] == static_cast<float>(P(x, y0 + 1) - P(x, y0)));
      CHECK(got[2] == static_cast<float>(P(x0 + 1, y0) - P(x0, y0)));
      CHECK(got[3] == static_cast<float>(P(x0, y0 + 1) - P(x0, y0)));
    }
  }
}

TEST_CASE("plain dFdx, dFdy and fwidth are fine with the h200 preset",
          "[pipeline][raster]") {
  // Measured on the H200 (vulkan_ref/results/h200/FINDINGS.md, E8c); the
  // "derivatives" key of a GPU config chooses coarse (simt tests).
  const std::vector<float> f = RunFloat4(R"(#version 450
layout(location = 0) out vec4 c;
void main() {
  float p = gl_FragCoord.x * gl_FragCoord.x * gl_FragCoord.y;
  c = vec4(dFdx(p) - dFdxFine(p), dFdy(p) - dFdyFine(p),
           fwidth(p) - fwidthFine(p), fwidth(p));
}
)");
  for (int y = 0; y < kSize; ++y) {
    for (int x = 0; x < kSize; ++x) {
      const int x0 = x & ~1, y0 = y & ~1;
      const float* got = &f[(y * kSize + x) * 4];
      INFO("pixel " << x << ", " << y);
      CHECK(got[0] == 0.0f);
      CHECK(got[1] == 0.0f);
      CHECK(got[2] == 0.0f);
      CHECK(got[3] == static_cast<float>(P(x0 + 1, y) - P(x0, y) +
                                         P(x, y0 + 1) - P(x, y0)));
    }
  }
}

TEST_CASE("derivatives in quad-uniform and divergent control flow",
          "[pipeline][raster]") {
  // p is computed before the branches. In the quad-uniform branch (x < 8
  // takes whole quads) all four lanes are active; in the divergent one
  // (odd columns only) the derivative still reads its quad neighbours'
  // values of p (warpsim computes derivatives across the quad whatever the
  // active mask; Vulkan leaves this undefined).
  const std::vector<float> f = RunFloat4(R"(#version 450
layout(location = 0) out vec4 c;
void main() {
  float p = gl_FragCoord.x * gl_FragCoord.x * gl_FragCoord.y;
  c = vec4(-1.0);
  if (gl_FragCoord.x < 8.0) {
    c.x = dFdxFine(p);
    c.y = dFdyFine(p);
  }
  if ((int(gl_FragCoord.x) & 1) == 1) {
    c.z = dFdxFine(p);
    c.w = dFdyFine(p);
  }
}
)");
  for (int y = 0; y < kSize; ++y) {
    for (int x = 0; x < kSize; ++x) {
      const int x0 = x & ~1, y0 = y & ~1;
      const float* got = &f[(y * kSize + x) * 4];
      const float dx = static_cast<float>(P(x0 + 1, y) - P(x0, y));
      const float dy = static_cast<float>(P(x, y0 + 1) - P(x, y0));
      INFO("pixel " << x << ", " << y);
      CHECK(got[0] == (x < 8 ? dx : -1.0f));
      CHECK(got[1] == (x < 8 ? dy : -1.0f));
      CHECK(got[2] == ((x & 1) ? dx : -1.0f));
      CHECK(got[3] == ((x & 1) ? dy : -1.0f));
    }
  }
}

TEST_CASE("derivatives of a one-pixel triangle use its helper lanes",
          "[pipeline][raster]") {
  // Only pixel (5, 5) is covered; its quad neighbours (4, 4), (5, 4) and
  // (4, 5) run as helpers and supply p.
  const std::vector<float> f =
      RunFloat4(R"(#version 450
layout(location = 0) out vec4 c;
void main() {
  float p = gl_FragCoord.x * gl_FragCoord.x * gl_FragCoord.y;
  c = vec4(dFdxFine(p), dFdyFine(p), dFdxCoarse(p), dFdyCoarse(p));
}
)",
                {Px(5.2, 5.2), Px(6.0, 5.2), Px(5.2, 6.0)});
  const float* got = &f[(5 * kSize + 5) * 4];
  CHECK(got[0] == static_cast<float>(P(5, 5) - P(4, 5)));
  CHECK(got[1] == static_cast<float>(P(5, 5) - P(5, 4)));
  CHECK(got[2] == static_cast<float>(P(5, 4) - P(4, 4)));
  CHECK(got[3] == static_cast<float>(P(4, 5) - P(4, 4)));
  // Helpers write nothing.
  CHECK(f[(4 * kSize + 4) * 4] == 0.0f);
  CHECK(f[(4 * kSize + 5) * 4] == 0.0f);
  CHECK(f[(5 * kSize + 4) * 4] == 0.0f);
}

// ---------------------------------------------------------------------------
// Interpolation

TEST_CASE("perspective-correct, noperspective and flat varyings",
          "[pipeline][raster]") {
  // One triangle at framebuffer corners (0,0), (16,0), (0,16) with clip w
  // 1, 2, 4 (clip xyz = NDC * w). Screen-space barycentrics at a pixel
  // centre (x, y) are b1 = x/16, b2 = y/16, b0 = 1 - b1 - b2; then
  //   noperspective: sum b_i a_i,
  //   smooth:        sum (b_i a_i / w_i) / sum (b_i / w_i),
  //   flat:          the provoking (first) vertex's value,
  //   FragCoord.w:   sum b_i / w_i.
  const std::string amber = R"(#!amber
SHADER vertex vs GLSL
#version 450
layout(location = 0) in vec4 pos;
layout(location = 1) in float a;
layout(location = 0) out float smooth_a;
layout(location = 1) noperspective out float linear_a;
layout(location = 2) flat out float flat_a;
void main() {
  gl_Position = pos;
  smooth_a = a;
  linear_a = a;
  flat_a = a;
}
END
SHADER fragment fs GLSL
#version 450
layout(location = 0) in float smooth_a;
layout(location = 1) noperspective in float linear_a;
layout(location = 2) flat in float flat_a;
layout(location = 0) out vec4 c;
void main() { c = vec4(smooth_a, linear_a, flat_a, gl_FragCoord.w); }
END
BUFFER pos DATA_TYPE vec4<float> DATA
-1 -1 0.5 1
 2 -2 1.0 2
-4  4 2.0 4
END
BUFFER attr DATA_TYPE float DATA 10 20 40 END
IMAGE fb FORMAT R32G32B32A32_SFLOAT DIM_2D WIDTH 16 HEIGHT 16
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  VERTEX_DATA pos LOCATION 0
  VERTEX_DATA attr LOCATION 1
  FRAMEBUFFER_SIZE 16 16
  BIND BUFFER fb AS color LOCATION 0
END
CLEAR_COLOR p 0 0 0 0
CLEAR p
RUN p DRAW_ARRAY AS TRIANGLE_LIST START_IDX 0 COUNT 3
)";
  const RunReport r = Run(amber);
  INFO(Describe(r));
  REQUIRE(r.status == RunStatus::kPass);
  const std::vector<float> f = Floats(r);
  const double a[3] = {10, 20, 40}, w[3] = {1, 2, 4};
  // Float evaluation of these few operations is good to a few ulps of the
  // largest magnitude involved (40); allow 2^-16 relative to it.
  const double tol = 40.0 * std::ldexp(1.0, -16);
  int checked = 0;
  for (int y = 0; y < kSize; ++y) {
    for (int x = 0; x < kSize; ++x) {
      const double b1 = (x + 0.5) / 16, b2 = (y + 0.5) / 16;
      const double b[3] = {1 - b1 - b2, b1, b2};
      if (b[0] <= 0) continue;  // outside (or on the excluded hypotenuse)
      double lin = 0, num = 0, den = 0;
      for (int i = 0; i < 3; ++i) {
        lin += b[i] * a[i];
        num += b[i] * a[i] / w[i];
        den += b[i] / w[i];
      }
      const float* got = &f[(y * kSize + x) * 4];
      INFO("pixel " << x << ", " << y);
      CHECK(std::abs(got[0] - num / den) <= tol);
      CHECK(std::abs(got[1] - lin) <= tol);
      CHECK(got[2] == 10.0f);
      CHECK(std::abs(got[3] - den) <= std::ldexp(1.0, -20));
      ++checked;
    }
  }
  CHECK(checked == 120);  // x + y < 15 (pixel centres: x + y + 1 < 16)
  // The perspective-correct and linear values differ clearly in between.
  const float* mid = &f[(4 * kSize + 4) * 4];
  CHECK(std::abs(mid[0] - mid[1]) > 1.0f);
}

TEST_CASE("culling sees strip triangles in their Vulkan winding",
          "[pipeline][raster]") {
  // Amber's DRAW_RECT strip: bottom-left, top-left, bottom-right,
  // top-right. Triangle 0 (v0 v1 v2) and triangle 1 (Vulkan order v1 v3
  // v2) are both clockwise in framebuffer coordinates.
  for (const bool front_ccw : {true, false}) {
    INFO("FRONT_FACE " << (front_ccw ? "counter_clockwise" : "clockwise"));
    Draw d;
    d.topology = "TRIANGLE_STRIP";
    d.pipeline_extra = std::string("  CULL_MODE back\n  FRONT_FACE ") +
                       (front_ccw ? "counter_clockwise" : "clockwise") + "\n";
    d.vertices = {Px(0, 16), Px(0, 0), Px(16, 16), Px(16, 0)};
    const RunReport r = RunDraw(d);
    INFO(Describe(r));
    REQUIRE(r.status == RunStatus::kPass);
    CHECK(r.draws[0].stats.fs_invocations == (front_ccw ? 0u : 256u));
    CHECK(CountEqual(Floats(r), 1.0f) == (front_ccw ? 0 : 256));
  }
}

namespace {

// Flat varying `a` = 10, 20, 30, 40 for vertices 0..3, written to an
// R32_SFLOAT image; Vulkan's first-vertex convention: strip triangle i is
// provoked by vertex i (its vertices are i, i+1, i+2 for even i and i,
// i+2, i+1 for odd i), fan triangle i (vertices i+1, i+2, 0) by vertex i+1.
std::vector<float> RunFlat(const char* topology, const std::vector<Clip>& v) {
  const std::string amber = std::string(R"(#!amber
SHADER vertex vs GLSL
#version 450
layout(location = 0) in vec4 pos;
layout(location = 1) in float a;
layout(location = 0) flat out float flat_a;
void main() { gl_Position = pos; flat_a = a; }
END
SHADER fragment fs GLSL
#version 450
layout(location = 0) flat in float flat_a;
layout(location = 0) out vec4 c;
void main() { c = vec4(flat_a); }
END
)") + PositionBuffer(v) + R"(BUFFER attr DATA_TYPE float DATA 10 20 30 40 END
IMAGE fb FORMAT R32_SFLOAT DIM_2D WIDTH 16 HEIGHT 16
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  VERTEX_DATA pos LOCATION 0
  VERTEX_DATA attr LOCATION 1
  FRAMEBUFFER_SIZE 16 16
  BIND BUFFER fb AS color LOCATION 0
END
RUN p DRAW_ARRAY AS )" + topology +
                            " START_IDX 0 COUNT 4\n";
  const RunReport r = Run(amber);
  INFO(Describe(r));
  REQUIRE(r.status == RunStatus::kPass);
  return Floats(r);
}

}  // namespace

// Odd strip triangles are (i, i+2, i+1) in Vulkan, with provoking vertex i:
// triangle 1 below takes 20, not 30.
TEST_CASE("flat varyings take the provoking vertex of strip triangles",
          "[pipeline][raster]") {
  const auto f =
      RunFlat("TRIANGLE_STRIP", {Px(0, 16), Px(0, 0), Px(16, 16), Px(16, 0)});
  CHECK(f[14 * kSize + 1] == 10.0f);  // triangle 0 (v0 v1 v2), lower left
  CHECK(f[1 * kSize + 14] == 20.0f);  // triangle 1 (v1 v3 v2), upper right
}

TEST_CASE("flat varyings take the provoking vertex of fan triangles",
          "[pipeline][raster]") {
  const auto f =
      RunFlat("TRIANGLE_FAN", {Px(0, 0), Px(16, 0), Px(16, 16), Px(0, 16)});
  CHECK(f[1 * kSize + 14] == 20.0f);  // triangle 0 (v1 v2 v0)
  CHECK(f[14 * kSize + 1] == 30.0f);  // triangle 1 (v2 v3 v0)
}

TEST_CASE("varyings of a triangle clipped at w = 0 stay perspective-correct",
          "[pipeline][raster]") {
  // The floor plane of the w < 0 test above with varying a = clip w. After
  // clipping, row y (y_ndc = (y + 0.5) / 8 - 1) sees w = 0.25 / y_ndc, so a
  // must be 0.25 / y_ndc and FragCoord.w its reciprocal, wherever the
  // clipper put its new vertices.
  const std::string amber = R"(#!amber
SHADER vertex vs GLSL
#version 450
layout(location = 0) in vec4 pos;
layout(location = 0) out float a;
void main() { gl_Position = pos; a = pos.w; }
END
SHADER fragment fs GLSL
#version 450
layout(location = 0) in float a;
layout(location = 0) out vec4 c;
void main() { c = vec4(a, gl_FragCoord.w, 0.0, 1.0); }
END
BUFFER pos DATA_TYPE vec4<float> DATA
-1 0.25 0.5 1
 1 0.25 0.5 1
 0 0.25 -0.5 -1
END
IMAGE fb FORMAT R32G32B32A32_SFLOAT DIM_2D WIDTH 16 HEIGHT 16
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  VERTEX_DATA pos LOCATION 0
  FRAMEBUFFER_SIZE 16 16
  BIND BUFFER fb AS color LOCATION 0
END
RUN p DRAW_ARRAY AS TRIANGLE_LIST START_IDX 0 COUNT 3
)";
  const RunReport r = Run(amber);
  INFO(Describe(r));
  REQUIRE(r.status == RunStatus::kPass);
  const std::vector<float> f = Floats(r);
  for (int y = 10; y < kSize; ++y) {
    const double y_ndc = (y + 0.5) / 8 - 1;
    for (int x = 0; x < kSize; ++x) {
      const float* got = &f[(y * kSize + x) * 4];
      INFO("pixel " << x << ", " << y);
      CHECK(std::abs(got[0] - 0.25 / y_ndc) <= 1e-5);
      CHECK(std::abs(got[1] - y_ndc / 0.25) <= 1e-5);
    }
  }
}

TEST_CASE("user clip distances clip triangles", "[pipeline][raster]") {
  // gl_ClipDistance[0] = NDC x - 0.25: only pixels with x_ndc >= 0.25
  // (pixel centres from 10.5 on in a 16-pixel framebuffer) survive.
  const auto r = Run(R"(#!amber
SHADER vertex vs GLSL
#version 450
layout(location = 0) in vec4 position;
out float gl_ClipDistance[1];
void main() {
  gl_Position = position;
  gl_ClipDistance[0] = position.x - 0.25;
}
END
SHADER fragment fs GLSL
#version 450
layout(location = 0) out vec4 c;
void main() { c = vec4(0.0, 1.0, 0.0, 1.0); }
END
BUFFER fb FORMAT R8G8B8A8_UNORM
PIPELINE graphics g
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 16 16
  BIND BUFFER fb AS color LOCATION 0
END
CLEAR_COLOR g 255 0 0 255
CLEAR g
RUN g DRAW_RECT POS 0 0 SIZE 16 16
EXPECT fb IDX 0 0 SIZE 10 16 EQ_RGBA 255 0 0 255
EXPECT fb IDX 10 0 SIZE 6 16 EQ_RGBA 0 255 0 255
)");
  INFO(Describe(r));
  CHECK(r.status == RunStatus::kPass);
}

TEST_CASE("points cover PointSize squares and report PointCoord",
          "[pipeline][raster]") {
  // A 4-pixel point at the framebuffer centre covers pixels 6..9 in x and
  // y; PointCoord at pixel (6, 6) is (0.5 / 4, 0.5 / 4), at (9, 9) 3.5 / 4.
  const auto r = Run(R"(#!amber
SHADER vertex vs GLSL
#version 450
layout(location = 0) in vec4 position;
void main() { gl_Position = position; gl_PointSize = 4.0; }
END
SHADER fragment fs GLSL
#version 450
layout(location = 0) out vec4 c;
void main() { c = vec4(gl_PointCoord, 0.0, 1.0); }
END
BUFFER pos DATA_TYPE vec4<float> DATA 0 0 0 1 END
BUFFER fb FORMAT R32G32B32A32_SFLOAT
PIPELINE graphics g
  ATTACH vs
  ATTACH fs
  VERTEX_DATA pos LOCATION 0
  FRAMEBUFFER_SIZE 16 16
  BIND BUFFER fb AS color LOCATION 0
END
RUN g DRAW_ARRAY AS POINT_LIST START_IDX 0 COUNT 1
EXPECT fb IDX 1632 TOLERANCE 0.000001 EQ 0.125 0.125 0 1
EXPECT fb IDX 2448 TOLERANCE 0.000001 EQ 0.875 0.875 0 1
EXPECT fb IDX 1616 EQ 0 0 0 0
)");
  INFO(Describe(r));
  CHECK(r.status == RunStatus::kPass);
  REQUIRE(r.draws.size() == 1);
  CHECK(r.draws[0].stats.fs_invocations == 16);
}
