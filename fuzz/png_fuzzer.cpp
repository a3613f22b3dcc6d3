// Fuzz target: PNG bytes -> scene::DecodePng -> ConvertRgba8 (the path of
// BUFFER ... FILE PNG). Seeds: PNGs from tests/golden and the corpus.
// Links: warpsim_scene
#include <array>

#include "fuzz_input.h"
#include "scene/format.h"
#include "scene/png_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto image =
      warpsim::scene::DecodePng(warpsim::fuzz::AsBytes(data, size), "fuzz.png");
  warpsim::fuzz::CheckResult(image);
  if (!image.ok()) return 0;
  // The buffer format varies with the input (its size), so that one seed
  // reaches both the supported and the unsupported conversions.
  static constexpr std::array<const char*, 4> kFormats = {
      "R8G8B8A8_UNORM", "B8G8R8A8_UNORM", "R8_UINT", "R32_SFLOAT"};
  auto format = warpsim::scene::ParseVulkanFormat(kFormats[size % 4]);
  if (!format) std::abort();  // fixed, valid names
  warpsim::fuzz::CheckResult(warpsim::scene::ConvertRgba8(*image, *format));
  return 0;
}
