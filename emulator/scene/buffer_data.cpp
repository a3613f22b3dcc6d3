#include "scene/buffer_data.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace warpsim::scene {
namespace {

std::string KindName(const Component& c) {
  switch (c.kind) {
    case NumericKind::kSInt:
      return "int" + std::to_string(c.bits);
    case NumericKind::kUInt:
      return "uint" + std::to_string(c.bits);
    case NumericKind::kSFloat:
      return c.bits == 16 ? "float16" : c.bits == 64 ? "double" : "float";
    case NumericKind::kUFloat:
      return "ufloat" + std::to_string(c.bits);
    case NumericKind::kUNorm:
      return "unorm" + std::to_string(c.bits);
    case NumericKind::kSNorm:
      return "snorm" + std::to_string(c.bits);
    case NumericKind::kSRgb:
      return "srgb" + std::to_string(c.bits);
    case NumericKind::kUScaled:
      return "uscaled" + std::to_string(c.bits);
    case NumericKind::kSScaled:
      return "sscaled" + std::to_string(c.bits);
  }
  return "?";
}

template <typename T>
std::string ShortestFloat(T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

}  // namespace

Component PackedWordComponent(const ElementFormat& format) {
  Component c;
  c.kind = NumericKind::kUInt;
  c.bits = format.pack_bits;
  return c;
}

namespace {

// R, G, B, A first (in that order), then everything else.
int ChannelRank(Channel c) {
  switch (c) {
    case Channel::kR:
      return 0;
    case Channel::kG:
      return 1;
    case Channel::kB:
      return 2;
    case Channel::kA:
      return 3;
    default:
      return 4;
  }
}

}  // namespace

Status EncodeNumber(const Number& v, const Component& c,
                    std::span<uint8_t> element) {
  if (c.is_float()) {
    double d = v.is_float ? v.f : static_cast<double>(v.i);
    uint64_t bits = 0;
    if (c.bits == 16) {
      // Amber writes float16 data by truncating the float's mantissa
      // (src/float16_helper.cc), and test expectations depend on it.
      bits = FloatToHalf(static_cast<float>(d), HalfRounding::kTowardZero);
    } else if (c.bits == 32) {
      bits = std::bit_cast<uint32_t>(static_cast<float>(d));
    } else if (c.bits == 64) {
      bits = std::bit_cast<uint64_t>(d);
    } else {
      return Unsupported("writing a " + KindName(c) +
                         " component from a number (give the packed word)");
    }
    WriteComponentBits(element, c, bits);
    return {};
  }
  int64_t i = v.i;
  if (v.is_float) {
    // Like Amber, a float given for an integer component is converted
    // (truncated toward zero); only non-finite or out-of-range values fail.
    if (!std::isfinite(v.f) || std::fabs(v.f) >= 9.2e18) {
      return InvalidInput("expected an integer for a " + KindName(c) +
                          " component, got " + ShortestFloat(v.f));
    }
    i = static_cast<int64_t>(std::trunc(v.f));
  }
  WriteComponentBits(element, c, static_cast<uint64_t>(i));
  return {};
}

Result<uint64_t> CheckedBufferBytes(const ElementFormat& format,
                                    uint64_t count) {
  uint64_t stride = format.stride;
  if (stride != 0 && count > kMaxBufferBytes / stride) {
    // Report the size without overflowing: use long double for the text.
    long double bytes = static_cast<long double>(count) * stride;
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.0Lf", bytes);
    return InvalidInput("buffer of " + std::string(buf) +
                        " bytes exceeds the limit of " +
                        std::to_string(kMaxBufferBytes) + " bytes (1 GiB)");
  }
  return count * stride;
}

Result<std::vector<uint8_t>> PackValues(const ElementFormat& format,
                                        const std::vector<Number>& values) {
  uint32_t per = format.ValuesPerElement();
  if (per == 0) return InvalidInput("format '" + format.name + "' is empty");
  uint64_t count = (values.size() + per - 1) / per;
  auto bytes = CheckedBufferBytes(format, count);
  if (!bytes.ok()) return bytes.error();
  std::vector<uint8_t> out(*bytes, 0);
  Component packed = PackedWordComponent(format);
  // Amber gives the values of a Vulkan-format element in R, G, B, A order,
  // whatever the memory order (B8G8R8_SNORM data lists R first, like
  // R8G8B8_SNORM); other components keep their listed order.
  std::vector<size_t> order(format.components.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  if (format.is_vulkan_format) {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return ChannelRank(format.components[a].channel) <
             ChannelRank(format.components[b].channel);
    });
  }
  for (size_t i = 0; i < values.size(); ++i) {
    size_t e = i / per;
    std::span<uint8_t> element(out.data() + e * format.stride, format.stride);
    const Component& c =
        format.pack_bits ? packed : format.components[order[i % per]];
    Status s = EncodeNumber(values[i], c, element);
    if (!s.ok()) {
      s.error().message =
          "value " + std::to_string(i) + ": " + s.error().message;
      return s.error();
    }
  }
  return out;
}

Result<std::vector<uint8_t>> FillElements(const ElementFormat& format,
                                          uint64_t count, const Number& v) {
  auto bytes = CheckedBufferBytes(format, count);
  if (!bytes.ok()) return bytes.error();
  std::vector<uint8_t> out(*bytes, 0);
  if (count == 0) return out;
  // Encode one element, then replicate it.
  std::span<uint8_t> first(out.data(), format.stride);
  if (format.pack_bits) {
    Status s = EncodeNumber(v, PackedWordComponent(format), first);
    if (!s.ok()) return s.error();
  } else {
    for (const Component& c : format.components) {
      Status s = EncodeNumber(v, c, first);
      if (!s.ok()) return s.error();
    }
  }
  for (uint64_t e = 1; e < count; ++e) {
    std::copy(out.begin(), out.begin() + format.stride,
              out.begin() + static_cast<std::ptrdiff_t>(e * format.stride));
  }
  return out;
}

Result<std::vector<uint8_t>> SeriesElements(const ElementFormat& format,
                                            uint64_t count, const Number& start,
                                            const Number& inc) {
  auto bytes = CheckedBufferBytes(format, count);
  if (!bytes.ok()) return bytes.error();
  std::vector<uint8_t> out(*bytes, 0);
  uint32_t per = format.ValuesPerElement();
  Component packed = PackedWordComponent(format);
  uint64_t n = count * per;
  for (uint64_t i = 0; i < n; ++i) {
    const Component& c = format.pack_bits ? packed : format.components[i % per];
    Number v;
    if (c.is_float()) {
      double s = start.is_float ? start.f : static_cast<double>(start.i);
      double d = inc.is_float ? inc.f : static_cast<double>(inc.i);
      v = Number::Float(s + d * static_cast<double>(i));
    } else {
      if (start.is_float || inc.is_float) {
        return InvalidInput(
            "SERIES_FROM and INC_BY must be integers for integer data");
      }
      v = Number::Int(static_cast<int64_t>(static_cast<uint64_t>(start.i) +
                                           static_cast<uint64_t>(inc.i) * i));
    }
    std::span<uint8_t> element(out.data() + (i / per) * format.stride,
                               format.stride);
    Status s = EncodeNumber(v, c, element);
    if (!s.ok()) return s.error();
  }
  return out;
}

std::string FormatComponent(std::span<const uint8_t> element,
                            const Component& c) {
  if (c.is_float()) {
    double d = ReadComponent(element, c);
    if (c.bits == 64) return ShortestFloat(d);
    return ShortestFloat(static_cast<float>(d));
  }
  if (c.is_signed()) return std::to_string(ReadComponentInt(element, c));
  return std::to_string(
      static_cast<uint64_t>(ReadComponentInt(element, c)) &
      (c.bits < 64 ? (uint64_t{1} << c.bits) - 1 : ~uint64_t{0}));
}

}  // namespace warpsim::scene
