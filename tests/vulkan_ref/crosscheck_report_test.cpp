// crosscheck_report.cpp: crosscheck.json, the table and the difference
// image of a report built by hand (no device needed).
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "runner/image_binding.h"
#include "runner/png_writer.h"
#include "vulkan_ref/crosscheck.h"

namespace warpsim::vkref {
namespace {

CrosscheckReport Differing() {
  CrosscheckReport r;
  r.file = "x.amber";
  r.verdict = Verdict::kDiffer;
  runner::ImageOutput image;
  image.name = "frame";
  image.format = runner::TexelFormatOf(*scene::ParseVulkanFormat("R8_UNORM"));
  image.width = 2;
  image.height = 1;
  image.bytes = {10, 20};
  r.device.run.images.push_back(image);
  image.bytes = {10, 21};
  r.emulator.images.push_back(image);
  BufferComparison b;
  b.name = "frame";
  b.kind = "image";
  b.format = "R8_UNORM";
  b.width = 2;
  b.height = 1;
  b.rule = "exact";
  b.agree = false;
  b.elements = 2;
  b.differing_elements = 1;
  b.max_difference = 1;
  b.first = ElementDifference{1, 1, 0, 0, 0, 20, 21};
  b.differs = {false, true};
  r.buffers.push_back(b);
  StatisticRow s;
  s.command = "draw";
  s.line = 9;
  s.name = "fs_invocations";
  s.device = 8;
  s.emulator = 2;
  s.note = "not judged";
  r.statistics.push_back(s);
  ExpectationRow e;
  e.line = 12;
  e.device = runner::ExpectationReport{12, true, ""};
  e.emulator = runner::ExpectationReport{12, false, "wrong"};
  r.expectations.push_back(e);
  return r;
}

TEST_CASE("crosscheck.json has the versioned shape", "[crosscheck_report]") {
  const nlohmann::json j = nlohmann::json::parse(CrosscheckToJson(Differing()));
  CHECK(j["schema_version"] == kCrosscheckSchemaVersion);
  CHECK(j["result"] == "differ");
  CHECK(j["exit_code"] == 1);
  CHECK(j["device"].is_null());
  const nlohmann::json& b = j["buffers"][0];
  CHECK(b["name"] == "frame");
  CHECK(b["format"] == "R8_UNORM");
  CHECK(b["width"] == 2);
  CHECK(b["compared_how"] == "exact");
  CHECK(b["agree"] == false);
  CHECK(b["differing_elements"] == 1);
  CHECK(b["max_difference"] == 1.0);
  CHECK(b["first_difference"]["x"] == 1);
  CHECK(b["first_difference"]["device"] == 20.0);
  CHECK(b["first_difference"]["emulator"] == 21.0);
  CHECK(j["statistics"][0]["compared"] == false);
  CHECK(j["statistics"][0]["device"] == 8);
  CHECK(j["expectations"][0]["agree"] == false);
  CHECK(j["expectations"][0]["emulator"]["message"] == "wrong");
}

TEST_CASE("the table says what differs", "[crosscheck_report]") {
  const std::string t = CrosscheckTable(Differing());
  CHECK_THAT(t, Catch::Contains("image frame 2x1"));
  CHECK_THAT(t, Catch::Contains("NO"));
  CHECK_THAT(t, Catch::Contains("first (1,0) c0: device 20 emulator 21"));
  CHECK_THAT(t, Catch::Contains("reported only"));
  CHECK_THAT(t, Catch::Contains("line 12: device pass, emulator fail"));
  CHECK_THAT(t, Catch::Contains("result: differ"));
}

TEST_CASE("PNGs of both sides and a difference image", "[crosscheck_report]") {
  const auto dir =
      std::filesystem::temp_directory_path() / "vkref_crosscheck_report";
  std::filesystem::remove_all(dir);
  auto written = WriteCrosscheckImages(Differing(), dir.string());
  REQUIRE(written.ok());
  CHECK(written->size() == 3);
  uint32_t w = 0, h = 0;
  auto diff = runner::ReadPngRgba8((dir / "frame.diff.png").string(), &w, &h);
  REQUIRE(diff.ok());
  CHECK(w == 2);
  // Pixel 0 agrees: the device's grey at a quarter; pixel 1 is red.
  CHECK((*diff)[0] == 10 / 4);
  CHECK((*diff)[4] == 255);
  CHECK((*diff)[5] == 0);
  CHECK(std::filesystem::exists(dir / "frame.device.png"));
  CHECK(std::filesystem::exists(dir / "frame.emulator.png"));
}

}  // namespace
}  // namespace warpsim::vkref
