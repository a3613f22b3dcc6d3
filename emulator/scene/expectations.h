// Expectation checking: evaluates each EXPECT form against the final bytes
// of a buffer, with Amber's semantics.
//
//   EXPECT buf IDX off OP values   (CheckValues)
//     `off` is a BYTE offset and must be a multiple of the element stride.
//     Values map to the buffer's non-padding components in data order,
//     element after element (a packed format compares whole words).
//     Integers compare exactly in the component's type (the expected value
//     converted to that type, i.e. modulo 2^bits). Floats: EQ passes when
//     |actual - expected| <= 1e-6 % of |expected| (Amber's epsilon is a
//     percentage), NE is its negation; LT/LE/GT/GE compare in the type.
//     With TOLERANCE (EQ only): component k of an element uses tolerance k;
//     a single tolerance applies to every component; components past the
//     given tolerances use the epsilon above. "t" is absolute, "t%" is
//     relative to |expected|.
//   EXPECT img IDX x y SIZE w h EQ_RGB r g b / EQ_RGBA r g b a  (CheckColor)
//     r,g,b,a are 0..255 (integers from AmberScript; VkScript probes give
//     0..1 values, stored as fractional v*255) and become r/255 etc. Each
//     pixel's channels are read by channel name (data types: components 0..3
//     are R, G, B, A), normalized (UNORM /(2^n-1), SNORM /(2^(n-1)-1), SRGB
//     decoded to linear except alpha; ints and floats unchanged) and compared
//     with tolerance: default 0.002 absolute; TOLERANCE gives 1 value (all
//     channels) or 4 (R, G, B, A). Absolute tolerances are in 0..255 units
//     for normalized formats (divided by 255 before comparing) and in the
//     channel's own units otherwise; "t%" is relative to the expected value.
//     The message names the first failing pixel and the failing count.
//   EXPECT a EQ_BUFFER b            (CheckBuffersEqual): same format and
//     size, then byte-for-byte; the message names the first differing
//     element and its values in the buffer's type.
//   EXPECT a RMSE_BUFFER b TOLERANCE t  (CheckRmse): sqrt(mean(diff^2)) over
//     every non-padding component's raw value (not normalized) <= t.
//   EXPECT a EQ_HISTOGRAM_EMD_BUFFER b TOLERANCE t  (CheckHistogramEmd):
//     formats must have four 8-bit integer components; per channel a
//     256-bin histogram normalized by the element count; EMD = sum over
//     bins of |cumulative difference| / 256; the maximum over channels must
//     be <= t.
#ifndef WARPSIM_SCENE_EXPECTATIONS_H_
#define WARPSIM_SCENE_EXPECTATIONS_H_

#include <cstdint>
#include <span>
#include <string>

#include "scene/format.h"
#include "scene/scene.h"

namespace warpsim::scene {

struct ExpectationResult {
  bool passed = true;
  std::string message;  // empty when passed
};

ExpectationResult CheckValues(const ExpectCommand& cmd,
                              const ElementFormat& format,
                              std::span<const uint8_t> bytes);

// `row_stride` 0 means width * format.stride.
ExpectationResult CheckColor(const ExpectCommand& cmd,
                             const ElementFormat& format, uint32_t width,
                             uint32_t height, std::span<const uint8_t> bytes,
                             uint32_t row_stride = 0);

ExpectationResult CheckBuffersEqual(const ElementFormat& format_a,
                                    std::span<const uint8_t> a,
                                    const ElementFormat& format_b,
                                    std::span<const uint8_t> b);

ExpectationResult CheckRmse(const ElementFormat& format_a,
                            std::span<const uint8_t> a,
                            const ElementFormat& format_b,
                            std::span<const uint8_t> b, double tolerance);

ExpectationResult CheckHistogramEmd(const ElementFormat& format_a,
                                    std::span<const uint8_t> a,
                                    const ElementFormat& format_b,
                                    std::span<const uint8_t> b,
                                    double tolerance);

// Dispatches on cmd.comparator. `other`/`other_bytes` are used only by the
// *_BUFFER forms. Image size comes from `buffer.width/height`.
ExpectationResult EvaluateExpect(const ExpectCommand& cmd, const Buffer& buffer,
                                 std::span<const uint8_t> bytes,
                                 const Buffer* other = nullptr,
                                 std::span<const uint8_t> other_bytes = {});

}  // namespace warpsim::scene

#endif  // WARPSIM_SCENE_EXPECTATIONS_H_
