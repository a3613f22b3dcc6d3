// Colours: see palette.h.
#include "app/palette.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace warpsim::viz {
namespace {

constexpr ImU32 Rgb(uint32_t hex) {
  return IM_COL32((hex >> 16) & 0xff, (hex >> 8) & 0xff, hex & 0xff, 255);
}

// Okabe & Ito.
constexpr ImU32 kOrange = Rgb(0xE69F00), kSky = Rgb(0x56B4E9),
                kGreen = Rgb(0x009E73), kYellow = Rgb(0xF0E442),
                kBlue = Rgb(0x0072B2), kVermillion = Rgb(0xD55E00),
                kPurple = Rgb(0xCC79A7), kGrey = Rgb(0x999999);

}  // namespace

ImU32 StageColor(trace::Stage s) {
  switch (s) {
    case trace::Stage::kVertex:
      return kOrange;
    case trace::Stage::kFragment:
      return kSky;
    case trace::Stage::kCompute:
      return kGreen;
  }
  return kGrey;
}

ImU32 StateColor(trace::StallReason r) {
  using trace::StallReason;
  switch (r) {
    case StallReason::kSelected:
      return kGreen;
    case StallReason::kLongScoreboard:
      return kVermillion;
    case StallReason::kShortScoreboard:
      return kOrange;
    case StallReason::kWait:
      return kYellow;
    case StallReason::kBarrier:
      return kPurple;
    case StallReason::kMathPipeThrottle:
      return kBlue;
    case StallReason::kLgThrottle:
      return kSky;
    case StallReason::kTexThrottle:
      return Rgb(0x882255);
    case StallReason::kNoInstruction:
      return kGrey;
    case StallReason::kNotSelected:
      return Rgb(0xCCCCCC);
    default:
      return Rgb(0x222222);
  }
}

ImU32 CycleColor(uint64_t index) {
  // Paul Tol's muted scheme.
  static constexpr std::array<ImU32, 9> kMuted = {
      Rgb(0x332288), Rgb(0x88CCEE), Rgb(0x44AA99), Rgb(0x117733), Rgb(0x999933),
      Rgb(0xDDCC77), Rgb(0xCC6677), Rgb(0x882255), Rgb(0xAA4499)};
  return kMuted[index % kMuted.size()];
}

ImU32 Viridis(double t) {
  // Key colours of matplotlib's viridis, interpolated linearly.
  static constexpr std::array<std::array<float, 3>, 9> kKeys = {{
      {0.267f, 0.005f, 0.329f},
      {0.283f, 0.141f, 0.458f},
      {0.254f, 0.265f, 0.530f},
      {0.207f, 0.372f, 0.553f},
      {0.164f, 0.471f, 0.558f},
      {0.128f, 0.567f, 0.551f},
      {0.135f, 0.659f, 0.518f},
      {0.478f, 0.821f, 0.318f},
      {0.993f, 0.906f, 0.144f},
  }};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
  const double x = t * (kKeys.size() - 1);
  const size_t i = std::min(kKeys.size() - 2, static_cast<size_t>(x));
  const float f = static_cast<float>(x - i);
  float c[3];
  for (int k = 0; k < 3; ++k) {
    c[k] = kKeys[i][k] * (1 - f) + kKeys[i + 1][k] * f;
  }
  return IM_COL32(static_cast<int>(c[0] * 255), static_cast<int>(c[1] * 255),
                  static_cast<int>(c[2] * 255), 255);
}

ImU32 WithAlpha(ImU32 c, float a) {
  const uint32_t alpha = (c >> IM_COL32_A_SHIFT) & 0xff;
  const auto scaled = static_cast<uint32_t>(std::clamp(a, 0.0f, 1.0f) *
                                            static_cast<float>(alpha));
  return (c & ~IM_COL32_A_MASK) | (scaled << IM_COL32_A_SHIFT);
}

ImU32 TextOn(ImU32 background) {
  const double r = (background >> IM_COL32_R_SHIFT) & 0xff;
  const double g = (background >> IM_COL32_G_SHIFT) & 0xff;
  const double b = (background >> IM_COL32_B_SHIFT) & 0xff;
  const double luma = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luma > 140 ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255);
}

}  // namespace warpsim::viz
