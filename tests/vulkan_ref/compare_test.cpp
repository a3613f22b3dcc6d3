// compare.cpp: the per-format comparison rule (no device needed).
#include "vulkan_ref/compare.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

namespace warpsim::vkref {
namespace {

scene::Buffer BufferOf(const std::string& format, uint32_t width = 0,
                       uint32_t height = 0) {
  scene::Buffer b;
  // Named after its format (assigning a short literal here trips GCC 12's
  // -Wstringop-overflow false positive, an error with CI=true).
  b.name = format;
  b.format = *scene::ParseVulkanFormat(format);
  b.width = width;
  b.height = height;
  return b;
}

std::vector<uint8_t> Floats(std::vector<float> v) {
  std::vector<uint8_t> bytes(v.size() * 4);
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

float Next(float f, int ulps) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += ulps;
  std::memcpy(&f, &bits, 4);
  return f;
}

TEST_CASE("integer storage is compared exactly", "[compare]") {
  const scene::Buffer b = BufferOf("R8G8B8A8_UNORM", 2, 1);
  const std::vector<uint8_t> dev = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<uint8_t> emu = dev;
  CHECK(CompareBuffer(b, dev, emu).agree);
  emu[6] = 8;  // pixel (1,0), blue, one step off
  const BufferComparison c = CompareBuffer(b, dev, emu);
  CHECK_FALSE(c.agree);
  CHECK(c.differing_elements == 1);
  REQUIRE(c.first);
  CHECK(c.first->x == 1);
  CHECK(c.first->y == 0);
  CHECK(c.first->component == 2);
  CHECK(c.max_difference == 1);
  CHECK(c.rule == "exact");
  CHECK(c.kind == "image");
  CHECK(c.differs == std::vector<bool>{false, true});
}

TEST_CASE("32-bit floats agree within 3 ULP", "[compare]") {
  const scene::Buffer b = BufferOf("R32_SFLOAT");
  CHECK(CompareBuffer(b, Floats({1.0f}), Floats({Next(1.0f, 3)})).agree);
  const BufferComparison c =
      CompareBuffer(b, Floats({1.0f}), Floats({Next(1.0f, 4)}));
  CHECK_FALSE(c.agree);
  CHECK(c.max_ulps == 4);
  CHECK(c.rule == "float32 <= 3 ULP");
  CHECK(c.kind == "buffer");
}

TEST_CASE("float special values", "[compare]") {
  const scene::Buffer b = BufferOf("R32_SFLOAT");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float denorm = std::numeric_limits<float>::denorm_min();
  CHECK(CompareBuffer(b, Floats({nan}), Floats({-nan})).agree);
  CHECK(CompareBuffer(b, Floats({0.0f}), Floats({-0.0f})).agree);
  // Flushing denormals is allowed.
  CHECK(CompareBuffer(b, Floats({denorm * 5}), Floats({0.0f})).agree);
  CHECK(CompareBuffer(b, Floats({inf}), Floats({inf})).agree);
  CHECK_FALSE(CompareBuffer(b, Floats({inf}), Floats({-inf})).agree);
  CHECK_FALSE(CompareBuffer(b, Floats({inf}),
                            Floats({std::numeric_limits<float>::max()}))
                  .agree);
  CHECK_FALSE(CompareBuffer(b, Floats({nan}), Floats({1.0f})).agree);
  // Across zero: the ULPs of both sides add up.
  const float tiny = std::numeric_limits<float>::min();
  CHECK_FALSE(
      CompareBuffer(b, Floats({Next(tiny, 2)}), Floats({-Next(tiny, 2)}))
          .agree);
}

TEST_CASE("half floats agree within 1 ULP", "[compare]") {
  const scene::Buffer b = BufferOf("R16_SFLOAT");
  const std::vector<uint8_t> one = {0x00, 0x3c};  // 1.0
  CHECK(CompareBuffer(b, one, std::vector<uint8_t>{0x01, 0x3c}).agree);
  CHECK_FALSE(CompareBuffer(b, one, std::vector<uint8_t>{0x02, 0x3c}).agree);
  CHECK(DescribeRule(b.format) == "float16 <= 1 ULP");
}

TEST_CASE("packed unsigned small floats", "[compare]") {
  const scene::Buffer b = BufferOf("B10G11R11_UFLOAT_PACK32");
  CHECK(DescribeRule(b.format) == "ufloat10 <= 1 ULP, ufloat11 <= 1 ULP");
  std::vector<uint8_t> dev = {0x40, 0x00, 0x00, 0x00};  // R = 64 (bits)
  std::vector<uint8_t> emu = {0x41, 0x00, 0x00, 0x00};
  CHECK(CompareBuffer(b, dev, emu).agree);
  emu[0] = 0x42;
  CHECK_FALSE(CompareBuffer(b, dev, emu).agree);
}

TEST_CASE("sizes that differ are a difference", "[compare]") {
  const scene::Buffer b = BufferOf("R32_UINT");
  const BufferComparison c =
      CompareBuffer(b, std::vector<uint8_t>(8), std::vector<uint8_t>(4));
  CHECK_FALSE(c.agree);
  CHECK(c.note.find("sizes differ") != std::string::npos);
}

TEST_CASE("UlpDistance", "[compare]") {
  scene::Component f32;
  f32.kind = scene::NumericKind::kSFloat;
  f32.bits = 32;
  CHECK(UlpDistance(0x3f800000, 0x3f800002, f32) == 2u);
  CHECK(UlpDistance(0x00000001, 0x80000000, f32) == 0u);
  CHECK_FALSE(UlpDistance(0x7f800000, 0x7f7fffff, f32));
}

}  // namespace
}  // namespace warpsim::vkref
