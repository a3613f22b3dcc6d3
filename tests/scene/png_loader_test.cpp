// PNG decoding (scene/png_loader.cpp): a valid image, then a table of
// corrupt ones, each a diagnostic naming the file, never a crash.
#include "scene/png_loader.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

using namespace warpsim::scene;
using warpsim::ErrorKind;

namespace {

// A 2x1 RGBA8 PNG: one opaque red pixel, one half-transparent green one.
const std::vector<uint8_t> kTinyPng = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d,
    0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01,
    0x08, 0x06, 0x00, 0x00, 0x00, 0xf4, 0x22, 0x7f, 0x8a, 0x00, 0x00, 0x00,
    0x0f, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x08, 0x1b, 0x00, 0x10, 0x79, 0x03, 0x7e, 0x7d, 0x63, 0xce, 0xd7,
    0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

}  // namespace

TEST_CASE("DecodePng decodes PNG bytes to RGBA8", "[scene][png]") {
  auto img = DecodePng(kTinyPng, "tiny.png");
  REQUIRE(img.ok());
  CHECK(img->width == 2);
  CHECK(img->height == 1);
  CHECK(img->rgba == std::vector<uint8_t>{255, 0, 0, 255, 0, 255, 0, 128});
  auto format = ParseVulkanFormat("B8G8R8A8_UNORM");
  REQUIRE(format);
  auto bytes = ConvertRgba8(*img, *format);
  REQUIRE(bytes.ok());
  CHECK(*bytes == std::vector<uint8_t>{0, 0, 255, 255, 0, 255, 0, 128});
}

TEST_CASE("corrupt PNG bytes are InvalidInput naming the file",
          "[scene][png]") {
  struct BadPng {
    std::vector<uint8_t> bytes;
    const char* message;  // substring of Diagnostic::ToString()
  };
  std::vector<uint8_t> truncated(kTinyPng.begin(), kTinyPng.begin() + 40);
  std::vector<uint8_t> bad_signature = kTinyPng;
  bad_signature[1] = 'Q';
  const BadPng kCases[] = {
      {{}, "cannot read PNG file 'bad.png'"},
      {bad_signature, "cannot read PNG file 'bad.png'"},
      {truncated, "cannot read PNG file 'bad.png'"},
  };
  for (const BadPng& c : kCases) {
    INFO(c.message);
    auto r = DecodePng(c.bytes, "bad.png");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == ErrorKind::kInvalidInput);
    CHECK_THAT(r.error().ToString(), Catch::Contains(c.message));
  }
  auto missing = LoadPng("/nonexistent/dir/x.png");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().ToString(),
             Catch::Contains("cannot read PNG file '/nonexistent/dir/x.png'"));
}

TEST_CASE("a PNG header larger than kMaxPngPixels is refused before decoding",
          "[scene][png]") {
  // The tiny image's IHDR with its width and height set to 16384 x 16384:
  // stb_image would allocate the decoded size (1 GiB) up front (the decoder
  // does not check the chunk CRC, so the header stays readable).
  std::vector<uint8_t> huge = kTinyPng;
  for (size_t i : {16, 17, 19, 20, 21, 23}) huge[i] = 0;
  for (size_t i : {18, 22}) huge[i] = 0x40;
  auto r = DecodePng(huge, "huge.png");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == ErrorKind::kInvalidInput);
  CHECK_THAT(r.error().ToString(),
             Catch::Contains("PNG file 'huge.png' is 16384x16384 pixels, more "
                             "than the 67108864 (8192x8192) warpsim loads"));
  // 8192 x 8192 exactly is within the limit: the header passes and the
  // (missing) pixel data is what fails.
  for (size_t i : {18, 22}) huge[i] = 0x20;
  for (size_t i : {19, 23}) huge[i] = 0x00;
  auto at_limit = DecodePng(huge, "limit.png");
  REQUIRE_FALSE(at_limit.ok());
  CHECK_THAT(at_limit.error().ToString(), !Catch::Contains("more than the"));
}

TEST_CASE("a PNG chunk longer than the file is refused before decoding",
          "[scene][png]") {
  // Found by the png fuzz target: an IDAT chunk declaring about 2 GB made
  // stb_image grow its compressed-data buffer to that size before reading.
  std::vector<uint8_t> huge = kTinyPng;
  // The tiny image's IDAT chunk starts at byte 33 (signature 8, IHDR 25).
  REQUIRE(huge[37] == 'I');
  REQUIRE(huge[38] == 'D');
  huge[33] = 0x7f;
  huge[34] = huge[35] = huge[36] = 0xff;
  auto r = DecodePng(huge, "big.png");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == ErrorKind::kInvalidInput);
  CHECK_THAT(r.error().ToString(),
             Catch::Contains("PNG file 'big.png': chunk 'IDAT' at byte 33 "
                             "declares 2147483647 bytes of data, but only 31 "
                             "bytes follow"));
}
