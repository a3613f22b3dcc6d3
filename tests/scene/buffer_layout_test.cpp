// Buffer layouts (std140/std430, Vulkan formats) and data packing.
#include <catch2/catch.hpp>
#include <cstring>

#include "scene/amber_parser.h"
#include "scene/buffer_data.h"
#include "scene/format.h"

using namespace warpsim::scene;

namespace {

ElementFormat Layout430(const std::string& t, const StructTable& s = {}) {
  auto f = LayoutDataType(t, Layout::kStd430, s);
  REQUIRE(f.ok());
  return *f;
}
ElementFormat Layout140(const std::string& t, const StructTable& s = {}) {
  auto f = LayoutDataType(t, Layout::kStd140, s);
  REQUIRE(f.ok());
  return *f;
}
std::vector<uint32_t> Offsets(const ElementFormat& f) {
  std::vector<uint32_t> o;
  for (const auto& c : f.components) o.push_back(c.byte_offset);
  return o;
}
float FloatAt(const std::vector<uint8_t>& b, size_t off) {
  float f;
  std::memcpy(&f, b.data() + off, 4);
  return f;
}

}  // namespace

TEST_CASE("scalar and vector strides follow Amber's rules", "[scene]") {
  CHECK(Layout430("float").stride == 4);
  CHECK(Layout140("float").stride == 4);
  CHECK(Layout140("float[]").stride == 16);
  CHECK(Layout430("float[]").stride == 4);
  CHECK(Layout140("int8[]").stride == 16);
  CHECK(Layout430("int64").stride == 8);
  CHECK(Layout430("float16").stride == 2);
  CHECK(Layout430("vec2<float>").stride == 8);
  CHECK(Layout140("vec2<float>").stride == 8);
  CHECK(Layout140("vec2<float>[]").stride == 16);
  CHECK(Layout430("vec3<float>").stride == 16);
  CHECK(Offsets(Layout430("vec3<float>")) == std::vector<uint32_t>{0, 4, 8});
  CHECK(Layout430("vec3<int8>[]").stride == 4);
  CHECK(Layout430("vec3<int16>[]").stride == 8);
  CHECK(Layout140("vec3<int16>[]").stride == 16);
  CHECK(Layout430("vec2<int8>").stride == 2);
}

TEST_CASE("matrices are column-major with std140 column padding", "[scene]") {
  ElementFormat m = Layout430("mat3x2<float>");
  CHECK(m.stride == 24);
  CHECK(Offsets(m) == std::vector<uint32_t>{0, 4, 8, 12, 16, 20});
  ElementFormat m140 = Layout140("mat3x2<float>");
  CHECK(m140.stride == 48);
  CHECK(Offsets(m140) == std::vector<uint32_t>{0, 4, 16, 20, 32, 36});
  CHECK(Layout430("mat2x3<float>").stride == 32);
  CHECK(Layout430("mat4x4<float16>").stride == 32);
  CHECK(Layout430("mat2x2<int8>").stride == 4);
  CHECK(Layout140("mat2x2<int8>").stride == 32);
}

TEST_CASE("structs align members and round their size", "[scene]") {
  StructTable s;
  s["a"] = StructDef{"a",
                     {{"int32", "w", {}, {}, {}},
                      {"vec3<float>", "x", {}, {}, {}},
                      {"float", "y", {}, {}, {}}},
                     {},
                     1};
  s["b"] = StructDef{
      "b", {{"int32", "w", {}, {}, {}}, {"float", "x", {}, {}, {}}}, {}, 1};
  s["c"] = StructDef{
      "c", {{"b", "x", {}, {}, {}}, {"float", "y", {}, {}, {}}}, {}, 1};
  s["d"] = StructDef{
      "d", {{"float", "a", 8u, {}, {}}, {"int32", "b", 16u, {}, {}}}, {}, 1};
  CHECK(Layout430("a", s).stride == 32);
  CHECK(Offsets(Layout430("a", s)) == std::vector<uint32_t>{0, 16, 20, 24, 28});
  CHECK(Layout140("b", s).stride == 16);
  CHECK(Layout430("b", s).stride == 8);
  CHECK(Layout140("c", s).stride == 32);
  CHECK(Offsets(Layout140("c", s)) == std::vector<uint32_t>{0, 4, 16});
  CHECK(Layout430("c", s).stride == 12);
  CHECK(Offsets(Layout430("d", s)) == std::vector<uint32_t>{8, 16});
  CHECK(Layout430("d", s).stride == 20);
}

TEST_CASE("Vulkan formats are packed tightly, PACK formats are words",
          "[scene]") {
  auto rgba = ParseVulkanFormat("R8G8B8A8_UNORM");
  REQUIRE(rgba);
  CHECK(rgba->stride == 4);
  CHECK(rgba->components[2].channel == Channel::kB);
  CHECK(ParseVulkanFormat("R32G32B32_SFLOAT")->stride == 12);
  CHECK(ParseVulkanFormat("B8G8R8_UNORM")->stride == 3);
  CHECK(ParseVulkanFormat("D24_UNORM_S8_UINT")->stride == 4);
  CHECK(ParseVulkanFormat("D32_SFLOAT_S8_UINT")->stride == 5);
  auto x8 = ParseVulkanFormat("X8_D24_UNORM_PACK32");
  REQUIRE(x8);
  CHECK(x8->components[1].channel == Channel::kD);
  CHECK(x8->components[1].byte_offset == 0);
  auto pk = ParseVulkanFormat("B10G11R11_UFLOAT_PACK32");
  REQUIRE(pk);
  CHECK(pk->pack_bits == 32);
  CHECK(pk->ValuesPerElement() == 1);
  // R in bits 0..10, G in 11..21, B in 22..31.
  CHECK(pk->components[2].channel == Channel::kR);
  CHECK(pk->components[2].byte_offset * 8 + pk->components[2].bit_offset == 0);
  CHECK(pk->components[1].byte_offset * 8 + pk->components[1].bit_offset == 11);
  CHECK(pk->components[0].byte_offset * 8 + pk->components[0].bit_offset == 22);
  auto a2 = ParseVulkanFormat("A2B10G10R10_UNORM_PACK32");
  REQUIRE(a2);
  CHECK(a2->components[0].channel == Channel::kA);
  CHECK(a2->components[0].byte_offset * 8 + a2->components[0].bit_offset == 30);
  CHECK_FALSE(ParseVulkanFormat("R8G8B8A8_BANANA"));
  CHECK_FALSE(ParseVulkanFormat("BC1_RGB_UNORM_BLOCK"));
}

TEST_CASE("DATA fills non-padding components in order", "[scene]") {
  ElementFormat v3 = Layout430("vec3<float>");
  auto bytes =
      PackValues(v3, {Number::Float(1), Number::Float(2), Number::Float(3),
                      Number::Float(4), Number::Int(5), Number::Float(6)});
  REQUIRE(bytes.ok());
  REQUIRE(bytes->size() == 32);
  CHECK(FloatAt(*bytes, 0) == 1.0f);
  CHECK(FloatAt(*bytes, 12) == 0.0f);  // padding
  CHECK(FloatAt(*bytes, 16) == 4.0f);
  CHECK(FloatAt(*bytes, 20) == 5.0f);

  auto half = PackValues(Layout430("float16"), {Number::Float(1.0)});
  REQUIRE(half.ok());
  CHECK((*half)[0] == 0x00);
  CHECK((*half)[1] == 0x3c);

  auto neg = PackValues(Layout430("int16"), {Number::Int(-2)});
  REQUIRE(neg.ok());
  CHECK((*neg)[0] == 0xfe);
  CHECK((*neg)[1] == 0xff);

  auto packed = PackValues(*ParseVulkanFormat("A8B8G8R8_UNORM_PACK32"),
                           {Number::Int(0xff0000ff)});
  REQUIRE(packed.ok());
  CHECK(*packed == std::vector<uint8_t>{0xff, 0x00, 0x00, 0xff});
}

TEST_CASE("FILL and SERIES_FROM", "[scene]") {
  auto fill = FillElements(Layout430("vec2<int32>"), 3, Number::Int(7));
  REQUIRE(fill.ok());
  REQUIRE(fill->size() == 24);
  CHECK((*fill)[20] == 7);
  auto series = SeriesElements(Layout430("float"), 4, Number::Float(1.5),
                               Number::Float(0.5));
  REQUIRE(series.ok());
  CHECK(FloatAt(*series, 12) == 3.0f);
  auto iseries =
      SeriesElements(Layout430("uint8"), 3, Number::Int(250), Number::Int(3));
  REQUIRE(iseries.ok());
  CHECK(*iseries == std::vector<uint8_t>{250, 253, 0});  // wraps modulo 2^8
}

TEST_CASE("absurd sizes are InvalidInput, not allocations", "[scene]") {
  auto big = CheckedBufferBytes(Layout430("int32"), 100000000000000ull);
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().message.find("exceeds the limit of 1073741824") !=
        std::string::npos);
  CHECK(big.error().message.find("buffer of 400000000000000 bytes") !=
        std::string::npos);
}

TEST_CASE("buffers in a script get Amber's bytes", "[scene]") {
  auto scene = ParseAmberScript(R"(#!amber
STRUCT s
  int32 d OFFSET 8
  int32 e OFFSET 16
END
STRUCT my_data
  float a OFFSET 8
  int32 b OFFSET 16
  s c
END
BUFFER data DATA_TYPE my_data STD430 DATA
1 # a
64 # b
128 # c.d
220 # c.e
END
BUFFER u DATA_TYPE vec2<float> STD140 DATA 1 2 3 4 END
BUFFER ua DATA_TYPE vec2<float>[] STD140 DATA 1 2 3 4 END
)",
                                "t.amber");
  REQUIRE(scene.ok());
  const Buffer* data = scene->FindBuffer("data");
  REQUIRE(data);
  CHECK(data->format.stride == 40);
  CHECK(FloatAt(data->bytes, 8) == 1.0f);
  CHECK(data->bytes[16] == 64);
  CHECK(data->bytes[20 + 8] == 128);
  CHECK(data->bytes[20 + 16] == 220);
  CHECK(scene->FindBuffer("u")->bytes.size() == 16);
  CHECK(scene->FindBuffer("ua")->bytes.size() == 32);
  CHECK(FloatAt(scene->FindBuffer("ua")->bytes, 16) == 3.0f);
}
