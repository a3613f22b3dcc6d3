// Expectation semantics (Amber's verifier rules, see expectations.h).
#include "scene/expectations.h"

#include <catch2/catch.hpp>

#include "scene/amber_parser.h"
#include "scene/buffer_data.h"

using namespace warpsim::scene;

namespace {

ElementFormat Type(const std::string& t) {
  auto f = LayoutDataType(t, Layout::kStd430, {});
  REQUIRE(f.ok());
  return *f;
}

ExpectCommand Values(Comparator c, uint64_t offset, std::vector<Number> v,
                     std::vector<Tolerance> tol = {}) {
  ExpectCommand e;
  e.comparator = c;
  e.x = offset;
  e.values = std::move(v);
  e.tolerances = std::move(tol);
  return e;
}

std::vector<uint8_t> Pack(const ElementFormat& f, std::vector<Number> v) {
  auto b = PackValues(f, v);
  REQUIRE(b.ok());
  return *b;
}

bool Contains(const std::string& s, const std::string& sub) {
  return s.find(sub) != std::string::npos;
}

}  // namespace

TEST_CASE("EQ on integers uses byte offsets and names the mismatch",
          "[scene]") {
  ElementFormat f = Type("int32");
  auto bytes = Pack(f, {Number::Int(1), Number::Int(-2), Number::Int(3)});
  CHECK(
      CheckValues(Values(Comparator::kEq, 4, {Number::Int(-2), Number::Int(3)}),
                  f, bytes)
          .passed);
  auto r = CheckValues(
      Values(Comparator::kEq, 0, {Number::Int(1), Number::Int(5)}), f, bytes);
  REQUIRE_FALSE(r.passed);
  CHECK(Contains(r.message, "value 1"));
  CHECK(Contains(r.message, "expected EQ 5, got -2"));
  auto misaligned =
      CheckValues(Values(Comparator::kEq, 2, {Number::Int(1)}), f, bytes);
  CHECK_FALSE(misaligned.passed);
  CHECK(Contains(misaligned.message, "not a multiple"));
  auto outside = CheckValues(
      Values(Comparator::kEq, 8, {Number::Int(3), Number::Int(0)}), f, bytes);
  CHECK_FALSE(outside.passed);
  CHECK(Contains(outside.message, "buffer has 12 bytes"));
}

TEST_CASE("ordering comparators respect signedness", "[scene]") {
  ElementFormat s = Type("int8");
  ElementFormat u = Type("uint8");
  auto sb = Pack(s, {Number::Int(-1)});
  auto ub = Pack(u, {Number::Int(255)});
  CHECK(
      CheckValues(Values(Comparator::kLt, 0, {Number::Int(0)}), s, sb).passed);
  CHECK(
      CheckValues(Values(Comparator::kGt, 0, {Number::Int(0)}), u, ub).passed);
  CHECK(CheckValues(Values(Comparator::kGe, 0, {Number::Int(255)}), u, ub)
            .passed);
  CHECK(
      CheckValues(Values(Comparator::kNe, 0, {Number::Int(3)}), u, ub).passed);
  CHECK_FALSE(
      CheckValues(Values(Comparator::kLe, 0, {Number::Int(-2)}), s, sb).passed);
}

TEST_CASE("float EQ, epsilon and TOLERANCE", "[scene]") {
  ElementFormat f = Type("vec2<float>");
  auto bytes = Pack(f, {Number::Float(1.0), Number::Float(100.0)});
  CHECK(CheckValues(
            Values(Comparator::kEq, 0, {Number::Float(1.0), Number::Int(100)}),
            f, bytes)
            .passed);
  CHECK_FALSE(CheckValues(Values(Comparator::kEq, 0,
                                 {Number::Float(1.001), Number::Float(100)}),
                          f, bytes)
                  .passed);
  CHECK(CheckValues(Values(Comparator::kEq, 0,
                           {Number::Float(1.001), Number::Float(100)},
                           {Tolerance{0.01, false}}),
                    f, bytes)
            .passed);
  // Per-component: 0 absolute on x, 2% on y.
  CHECK(CheckValues(Values(Comparator::kEq, 0,
                           {Number::Float(1.0), Number::Float(101.5)},
                           {Tolerance{0, false}, Tolerance{2, true}}),
                    f, bytes)
            .passed);
  auto r = CheckValues(
      Values(Comparator::kEq, 0, {Number::Float(1.0), Number::Float(103)},
             {Tolerance{0, false}, Tolerance{2, true}}),
      f, bytes);
  REQUIRE_FALSE(r.passed);
  CHECK(Contains(r.message, "got 100"));
  CHECK(Contains(r.message, "vec2<float>"));
}

TEST_CASE("EQ_RGBA converts UNORM and float formats", "[scene]") {
  ElementFormat bgra = *ParseVulkanFormat("B8G8R8A8_UNORM");
  // 2x1 image: pixel 0 = red, pixel 1 = (R 10, G 0, B 0, A 255).
  std::vector<uint8_t> img = {0, 0, 255, 255, 0, 0, 10, 255};
  ExpectCommand e;
  e.comparator = Comparator::kEqRgba;
  e.width = 1;
  e.height = 1;
  e.values = {Number::Int(255), Number::Int(0), Number::Int(0),
              Number::Int(255)};
  CHECK(CheckColor(e, bgra, 2, 1, img).passed);
  e.x = 1;
  auto r = CheckColor(e, bgra, 2, 1, img);
  REQUIRE_FALSE(r.passed);
  CHECK(Contains(r.message, "pixel (1, 0)"));
  CHECK(Contains(r.message, "got 10, 0, 0, 255"));
  e.values[0] = Number::Int(11);
  CHECK_FALSE(CheckColor(e, bgra, 2, 1, img).passed);  // default 0.002
  e.tolerances = {Tolerance{1, false}};                // 1 in 0..255 units
  CHECK(CheckColor(e, bgra, 2, 1, img).passed);
  e.width = 2;
  auto outside = CheckColor(e, bgra, 2, 1, img);
  CHECK_FALSE(outside.passed);
  CHECK(Contains(outside.message, "outside the 2x1 image"));

  ElementFormat f32 = *ParseVulkanFormat("R32G32B32A32_SFLOAT");
  auto fb = Pack(f32, {Number::Float(1), Number::Float(0.5), Number::Float(0),
                       Number::Float(1)});
  ExpectCommand rgb;
  rgb.comparator = Comparator::kEqRgb;
  rgb.values = {Number::Int(255), Number::Int(128), Number::Int(0)};
  CHECK(CheckColor(rgb, f32, 1, 1, fb).passed);
}

TEST_CASE("EQ_BUFFER, RMSE_BUFFER and histogram EMD", "[scene]") {
  ElementFormat f = *ParseVulkanFormat("R8G8B8A8_UNORM");
  std::vector<uint8_t> a = {0, 0, 0, 0, 10, 20, 30, 40};
  std::vector<uint8_t> b = {0, 0, 0, 0, 10, 20, 34, 40};
  CHECK(CheckBuffersEqual(f, a, f, a).passed);
  auto r = CheckBuffersEqual(f, a, f, b);
  REQUIRE_FALSE(r.passed);
  CHECK(Contains(r.message, "first at byte 6"));
  CHECK(Contains(r.message, "10 20 30 40 != 10 20 34 40"));
  // One diff of 4 over 8 components: sqrt(16/8) = 1.414.
  CHECK(CheckRmse(f, a, f, b, 1.5).passed);
  auto rm = CheckRmse(f, a, f, b, 1.4);
  CHECK_FALSE(rm.passed);
  CHECK(Contains(rm.message, "1.414"));
  // Blue channel: half the mass moves 4 bins -> 4 * 0.5 / 256.
  CHECK(CheckHistogramEmd(f, a, f, b, 0.0079).passed);
  CHECK_FALSE(CheckHistogramEmd(f, a, f, b, 0.0077).passed);
  ElementFormat other = *ParseVulkanFormat("R32_SFLOAT");
  CHECK_FALSE(CheckBuffersEqual(f, a, other, a).passed);
}

TEST_CASE("EvaluateExpect runs parsed expectations", "[scene]") {
  auto scene = ParseAmberScript(R"(#!amber
BUFFER buf DATA_TYPE uint32 DATA 1 2 3 4 END
BUFFER img FORMAT R8G8B8A8_UNORM WIDTH 2 HEIGHT 2 FILL 255
EXPECT buf IDX 8 EQ 3 4
EXPECT buf IDX 0 TOLERANCE 1 EQ 2
EXPECT img IDX 0 0 SIZE 2 2 EQ_RGBA 255 255 255 255
EXPECT buf IDX 0 GT 1
)",
                                "e.amber");
  REQUIRE(scene.ok());
  const Buffer& buf = *scene->FindBuffer("buf");
  const Buffer& img = *scene->FindBuffer("img");
  auto expect = [&](size_t i) {
    return std::get<ExpectCommand>(scene->commands[i].data);
  };
  CHECK(EvaluateExpect(expect(0), buf, buf.bytes).passed);
  CHECK(EvaluateExpect(expect(1), buf, buf.bytes).passed);
  CHECK(EvaluateExpect(expect(2), img, img.bytes).passed);
  CHECK_FALSE(EvaluateExpect(expect(3), buf, buf.bytes).passed);
}
