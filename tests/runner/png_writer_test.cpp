// PNG output (runner/png_writer.cpp): format conversion to RGBA8, a round
// trip through a real file for the attachment formats the samples use, and
// the ".partial" rule for errors.
#include "runner/png_writer.h"

#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "runner/image_binding.h"
#include "scene/format.h"

namespace {

namespace fs = std::filesystem;
using warpsim::ErrorKind;
using warpsim::simt::TexelFormat;
namespace rn = warpsim::runner;

TexelFormat Fmt(const std::string& name) {
  auto f = warpsim::scene::ParseVulkanFormat(name);
  REQUIRE(f.has_value());
  return rn::TexelFormatOf(*f);
}

// A fresh directory under the system temp dir, removed at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "png_writer_XXXXXX");
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    REQUIRE(mkdtemp(buf.data()) != nullptr);
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return path_ / name; }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Writes `data` as `format`, reads it back and returns RGBA8.
std::vector<uint8_t> RoundTrip(const TempDir& dir, const std::string& format,
                               uint32_t w, uint32_t h, const void* data,
                               uint32_t row_pitch) {
  const std::string path = dir.File(format + ".png");
  const warpsim::Status s = rn::WritePng(
      path, Fmt(format), w, h, static_cast<const uint8_t*>(data), row_pitch);
  INFO((s.ok() ? std::string() : s.error().ToString()));
  REQUIRE(s.ok());
  CHECK(fs::exists(path));
  CHECK_FALSE(fs::exists(path + ".partial"));
  uint32_t rw = 0, rh = 0;
  auto rgba = rn::ReadPngRgba8(path, &rw, &rh);
  REQUIRE(rgba.ok());
  CHECK(rw == w);
  CHECK(rh == h);
  REQUIRE(rgba->size() == size_t{w} * h * 4);
  return *rgba;
}

}  // namespace

TEST_CASE("R8G8B8A8_UNORM round trip keeps every byte, rows top to bottom",
          "[runner][png]") {
  TempDir dir;
  // 3x2 texels with a padded row pitch of 16 bytes.
  std::vector<uint8_t> data(32, 0xee);
  const uint8_t rows[2][12] = {
      {255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0},
      {1, 2, 3, 4, 127, 128, 129, 130, 250, 251, 252, 253}};
  std::memcpy(data.data(), rows[0], 12);
  std::memcpy(data.data() + 16, rows[1], 12);
  const auto rgba = RoundTrip(dir, "R8G8B8A8_UNORM", 3, 2, data.data(), 16);
  CHECK(std::vector<uint8_t>(rgba.begin(), rgba.begin() + 12) ==
        std::vector<uint8_t>(rows[0], rows[0] + 12));
  CHECK(std::vector<uint8_t>(rgba.begin() + 12, rgba.end()) ==
        std::vector<uint8_t>(rows[1], rows[1] + 12));
}

TEST_CASE("B8G8R8A8_UNORM is written in RGBA order", "[runner][png]") {
  TempDir dir;
  const uint8_t bgra[8] = {10, 20, 30, 40, 200, 150, 100, 255};
  const auto rgba = RoundTrip(dir, "B8G8R8A8_UNORM", 2, 1, bgra, 8);
  CHECK(rgba == std::vector<uint8_t>{30, 20, 10, 40, 100, 150, 200, 255});
}

TEST_CASE("R32G32B32A32_SFLOAT clamps to [0, 1] and rounds", "[runner][png]") {
  TempDir dir;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float texels[8] = {-1.0f, 0.0f, 0.5f, 1.0f,    // -> 0, 0, 128, 255
                           2.0f,  nan,  0.2f, 0.25f};  // -> 255, 0, 51, 64
  const auto rgba =
      RoundTrip(dir, "R32G32B32A32_SFLOAT", 2, 1, texels, sizeof(texels));
  CHECK(rgba == std::vector<uint8_t>{0, 0, 128, 255, 255, 0, 51, 64});
}

TEST_CASE("R8_UNORM is written as grey with opaque alpha", "[runner][png]") {
  TempDir dir;
  const uint8_t texels[4] = {0, 77, 200, 255};
  const auto rgba = RoundTrip(dir, "R8_UNORM", 2, 2, texels, 2);
  CHECK(rgba == std::vector<uint8_t>{0, 0, 0, 255, 77, 77, 77, 255, 200, 200,
                                     200, 255, 255, 255, 255, 255});
}

TEST_CASE("conversion rules for other formats", "[runner][png]") {
  SECTION("sRGB bytes pass through unchanged") {
    const uint8_t t[4] = {188, 55, 3, 128};
    auto rgba = rn::ConvertToRgba8(Fmt("R8G8B8A8_SRGB"), 1, 1, t, 4);
    REQUIRE(rgba.ok());
    CHECK(*rgba == std::vector<uint8_t>{188, 55, 3, 128});
  }
  SECTION("UINT clamps to 255, SINT to 0..255") {
    const uint16_t u[4] = {7, 255, 256, 65535};
    auto a = rn::ConvertToRgba8(Fmt("R16G16B16A16_UINT"), 1, 1,
                                reinterpret_cast<const uint8_t*>(u), 8);
    REQUIRE(a.ok());
    CHECK(*a == std::vector<uint8_t>{7, 255, 255, 255});
    const int8_t s[4] = {-5, 0, 100, 127};
    auto b = rn::ConvertToRgba8(Fmt("R8G8B8A8_SINT"), 1, 1,
                                reinterpret_cast<const uint8_t*>(s), 4);
    REQUIRE(b.ok());
    CHECK(*b == std::vector<uint8_t>{0, 0, 100, 127});
  }
  SECTION("two channels: B = 0, A = 255") {
    const uint8_t t[2] = {9, 99};
    auto rgba = rn::ConvertToRgba8(Fmt("R8G8_UNORM"), 1, 1, t, 2);
    REQUIRE(rgba.ok());
    CHECK(*rgba == std::vector<uint8_t>{9, 99, 0, 255});
  }
  SECTION("packed and wide UNORM rescale their bits") {
    // R5G6B5: R = 31, G = 0, B = 16 -> 255, 0, 132 (16 * 255 / 31 = 131.6).
    const uint16_t p = static_cast<uint16_t>(31 << 11 | 16);
    auto a = rn::ConvertToRgba8(Fmt("R5G6B5_UNORM_PACK16"), 1, 1,
                                reinterpret_cast<const uint8_t*>(&p), 2);
    REQUIRE(a.ok());
    CHECK(*a == std::vector<uint8_t>{255, 0, 132, 255});
    const uint16_t w[4] = {0, 65535, 32896, 257};  // 32896 = 128 * 257
    auto b = rn::ConvertToRgba8(Fmt("R16G16B16A16_UNORM"), 1, 1,
                                reinterpret_cast<const uint8_t*>(w), 8);
    REQUIRE(b.ok());
    CHECK(*b == std::vector<uint8_t>{0, 255, 128, 1});
  }
  SECTION("depth formats as grey") {
    const float z[2] = {0.0f, 1.0f};
    auto a = rn::ConvertToRgba8(Fmt("D32_SFLOAT"), 2, 1,
                                reinterpret_cast<const uint8_t*>(z), 8);
    REQUIRE(a.ok());
    CHECK(*a == std::vector<uint8_t>{0, 0, 0, 255, 255, 255, 255, 255});
  }
  SECTION("stencil-only formats are unsupported") {
    const uint8_t s[1] = {3};
    auto a = rn::ConvertToRgba8(Fmt("S8_UINT"), 1, 1, s, 1);
    REQUIRE_FALSE(a.ok());
    CHECK(a.error().kind == ErrorKind::kUnsupported);
  }
}

TEST_CASE("write errors name the path and leave no file behind",
          "[runner][png]") {
  TempDir dir;
  const uint8_t t[4] = {1, 2, 3, 4};
  const TexelFormat f = Fmt("R8G8B8A8_UNORM");
  SECTION("missing directory") {
    const std::string path = dir.File("no/such/dir/out.png");
    const warpsim::Status s = rn::WritePng(path, f, 1, 1, t, 4);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message.find(path) != std::string::npos);
    CHECK(fs::is_empty(dir.path()));
  }
  SECTION("the target is a directory: the rename fails, .partial removed") {
    const std::string path = dir.File("taken.png");
    fs::create_directory(path);
    fs::create_directory(path + "/inside");  // non-empty: rename must fail
    const warpsim::Status s = rn::WritePng(path, f, 1, 1, t, 4);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message.find(path) != std::string::npos);
    CHECK_FALSE(fs::exists(path + ".partial"));
  }
  SECTION("empty image") {
    const std::string path = dir.File("empty.png");
    const warpsim::Status s = rn::WritePng(path, f, 0, 4, t, 4);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().kind == ErrorKind::kInvalidInput);
    CHECK(s.error().message.find(path) != std::string::npos);
    CHECK_FALSE(fs::exists(path));
  }
  SECTION("an existing file is replaced whole") {
    const std::string path = dir.File("old.png");
    std::ofstream(path) << "not a png";
    REQUIRE(rn::WritePng(path, f, 1, 1, t, 4).ok());
    uint32_t w = 0, h = 0;
    auto rgba = rn::ReadPngRgba8(path, &w, &h);
    REQUIRE(rgba.ok());
    CHECK(*rgba == std::vector<uint8_t>{1, 2, 3, 4});
  }
}

TEST_CASE("reading a missing or corrupt PNG names the file", "[runner][png]") {
  TempDir dir;
  uint32_t w = 0, h = 0;
  const std::string missing = dir.File("missing.png");
  auto a = rn::ReadPngRgba8(missing, &w, &h);
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().kind == ErrorKind::kInvalidInput);
  CHECK(a.error().message.find(missing) != std::string::npos);
  const std::string corrupt = dir.File("corrupt.png");
  std::ofstream(corrupt) << "\x89PNG but not really";
  auto b = rn::ReadPngRgba8(corrupt, &w, &h);
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().message.find(corrupt) != std::string::npos);
}
