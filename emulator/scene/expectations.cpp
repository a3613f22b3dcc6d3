#include "scene/expectations.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "scene/buffer_data.h"

namespace warpsim::scene {
namespace {

constexpr double kEpsilonPercent = 0.000001;  // Amber's kEpsilon, a percent
constexpr double kDefaultTexelTolerance = 0.002;

ExpectationResult Fail(std::string msg) { return {false, std::move(msg)}; }

bool WithinTolerance(double actual, double expected, double tol, bool percent) {
  double diff = std::fabs(actual - expected);
  if (percent) return diff <= tol / 100.0 * std::fabs(expected);
  return diff <= tol;
}

std::string Num(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

std::string NumberText(const Number& n) {
  return n.is_float ? Num(n.f) : std::to_string(n.i);
}

// Expected value converted to the component's type, as a double (floats)
// or as a bit pattern (integers).
double ExpectedAsFloat(const Number& n, const Component& c) {
  double d = n.is_float ? n.f : static_cast<double>(n.i);
  if (c.bits == 32) return static_cast<double>(static_cast<float>(d));
  if (c.bits == 16) return HalfToFloat(FloatToHalf(static_cast<float>(d)));
  return d;
}

// Integer expected value: a float token is truncated toward zero (Amber
// casts it to the type).
int64_t ExpectedAsInt(const Number& n) {
  if (!n.is_float) return n.i;
  if (!std::isfinite(n.f)) return 0;
  return static_cast<int64_t>(std::trunc(n.f));
}

uint64_t Mask(uint32_t bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

// Sign-extends a `bits`-wide pattern.
int64_t SignExtend(uint64_t v, uint32_t bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  v &= Mask(bits);
  if ((v >> (bits - 1)) & 1) v |= ~Mask(bits);
  return static_cast<int64_t>(v);
}

Channel ChannelOf(const ElementFormat& f, size_t i) {
  const Component& c = f.components[i];
  if (c.channel != Channel::kNone) return c.channel;
  static const Channel kOrder[4] = {Channel::kR, Channel::kG, Channel::kB,
                                    Channel::kA};
  return i < 4 ? kOrder[i] : Channel::kNone;
}

bool SameLayout(const ElementFormat& a, const ElementFormat& b) {
  if (a.stride != b.stride || a.pack_bits != b.pack_bits ||
      a.components.size() != b.components.size()) {
    return false;
  }
  for (size_t i = 0; i < a.components.size(); ++i) {
    const Component& x = a.components[i];
    const Component& y = b.components[i];
    if (x.kind != y.kind || x.bits != y.bits ||
        x.byte_offset != y.byte_offset || x.bit_offset != y.bit_offset) {
      return false;
    }
  }
  return true;
}

ExpectationResult CheckCompatible(const ElementFormat& fa,
                                  std::span<const uint8_t> a,
                                  const ElementFormat& fb,
                                  std::span<const uint8_t> b) {
  if (!SameLayout(fa, fb)) {
    return Fail("buffers have different formats: " + fa.name + " vs " +
                fb.name);
  }
  if (a.size() != b.size()) {
    return Fail("buffers have different sizes: " + std::to_string(a.size()) +
                " vs " + std::to_string(b.size()) + " bytes");
  }
  return {};
}

}  // namespace

ExpectationResult CheckValues(const ExpectCommand& cmd,
                              const ElementFormat& format,
                              std::span<const uint8_t> bytes) {
  if (format.stride == 0) return Fail("buffer format has no elements");
  if (cmd.x % format.stride != 0) {
    return Fail("IDX " + std::to_string(cmd.x) +
                " is not a multiple of the element size (" +
                std::to_string(format.stride) + " bytes)");
  }
  uint32_t per = format.ValuesPerElement();
  uint64_t elements = (cmd.values.size() + per - 1) / per;
  uint64_t end = cmd.x + elements * format.stride;
  if (end > bytes.size()) {
    return Fail("EXPECT reads bytes " + std::to_string(cmd.x) + ".." +
                std::to_string(end) + " but the buffer has " +
                std::to_string(bytes.size()) + " bytes");
  }
  Component packed = PackedWordComponent(format);
  for (size_t i = 0; i < cmd.values.size(); ++i) {
    size_t k = i % per;
    uint64_t elem_offset = cmd.x + (i / per) * format.stride;
    std::span<const uint8_t> element =
        bytes.subspan(elem_offset, format.stride);
    const Component& c = format.pack_bits ? packed : format.components[k];
    const Number& want = cmd.values[i];
    bool ok = true;
    std::string op = ComparatorName(cmd.comparator);
    if (c.is_float()) {
      double actual = ReadComponent(element, c);
      double expected = ExpectedAsFloat(want, c);
      bool eq;
      if (!cmd.tolerances.empty()) {
        const Tolerance* t = cmd.tolerances.size() == 1  ? &cmd.tolerances[0]
                             : k < cmd.tolerances.size() ? &cmd.tolerances[k]
                                                         : nullptr;
        eq = t ? WithinTolerance(actual, expected, t->value, t->percent)
               : WithinTolerance(actual, expected, kEpsilonPercent, true);
      } else {
        eq = WithinTolerance(actual, expected, kEpsilonPercent, true);
      }
      switch (cmd.comparator) {
        case Comparator::kEq:
          ok = eq;
          break;
        case Comparator::kNe:
          ok = !eq;
          break;
        case Comparator::kLt:
          ok = actual < expected;
          break;
        case Comparator::kLe:
          ok = actual <= expected;
          break;
        case Comparator::kGt:
          ok = actual > expected;
          break;
        case Comparator::kGe:
          ok = actual >= expected;
          break;
        default:
          return Fail("not a value comparator: " + op);
      }
    } else {
      uint64_t raw =
          static_cast<uint64_t>(ReadComponentInt(element, c)) & Mask(c.bits);
      uint64_t exp = static_cast<uint64_t>(ExpectedAsInt(want)) & Mask(c.bits);
      bool eq = raw == exp;
      if (!cmd.tolerances.empty() && cmd.comparator == Comparator::kEq) {
        const Tolerance* t = cmd.tolerances.size() == 1  ? &cmd.tolerances[0]
                             : k < cmd.tolerances.size() ? &cmd.tolerances[k]
                                                         : nullptr;
        double a = c.is_signed() ? static_cast<double>(SignExtend(raw, c.bits))
                                 : static_cast<double>(raw);
        double e = c.is_signed() ? static_cast<double>(SignExtend(exp, c.bits))
                                 : static_cast<double>(exp);
        eq = t ? WithinTolerance(a, e, t->value, t->percent) : raw == exp;
      }
      int cmp;  // -1, 0, 1 of actual vs expected in the component's type
      if (c.is_signed()) {
        int64_t a = SignExtend(raw, c.bits), e = SignExtend(exp, c.bits);
        cmp = a < e ? -1 : a > e ? 1 : 0;
      } else {
        cmp = raw < exp ? -1 : raw > exp ? 1 : 0;
      }
      switch (cmd.comparator) {
        case Comparator::kEq:
          ok = eq;
          break;
        case Comparator::kNe:
          ok = !eq;
          break;
        case Comparator::kLt:
          ok = cmp < 0;
          break;
        case Comparator::kLe:
          ok = cmp <= 0;
          break;
        case Comparator::kGt:
          ok = cmp > 0;
          break;
        case Comparator::kGe:
          ok = cmp >= 0;
          break;
        default:
          return Fail("not a value comparator: " + op);
      }
    }
    if (!ok) {
      std::string type = format.pack_bits ? format.name : format.name;
      return Fail("value " + std::to_string(i) + " (element " +
                  std::to_string(elem_offset / format.stride) + ", component " +
                  std::to_string(k) + ", byte " +
                  std::to_string(elem_offset + c.byte_offset) + ", " + type +
                  "): expected " + op + " " + NumberText(want) + ", got " +
                  FormatComponent(element, c));
    }
  }
  return {};
}

ExpectationResult CheckColor(const ExpectCommand& cmd,
                             const ElementFormat& format, uint32_t width,
                             uint32_t height, std::span<const uint8_t> bytes,
                             uint32_t row_stride) {
  bool rgba = cmd.comparator == Comparator::kEqRgba;
  if (cmd.values.size() < (rgba ? 4u : 3u)) {
    return Fail("EQ_RGB(A) needs 3 or 4 values");
  }
  if (format.pack_bits == 0 && format.components.empty()) {
    return Fail("image format has no components");
  }
  if (row_stride == 0) row_stride = width * format.stride;
  if (cmd.x + cmd.width > width || cmd.y + cmd.height > height) {
    return Fail("probe region " + std::to_string(cmd.x) + "," +
                std::to_string(cmd.y) + " size " + std::to_string(cmd.width) +
                "x" + std::to_string(cmd.height) + " is outside the " +
                std::to_string(width) + "x" + std::to_string(height) +
                " image");
  }
  if (uint64_t{row_stride} * height > bytes.size()) {
    return Fail("image data (" + std::to_string(bytes.size()) +
                " bytes) is smaller than " + std::to_string(width) + "x" +
                std::to_string(height) + " texels of " +
                std::to_string(format.stride) + " bytes");
  }
  // Normalized formats compare in 0..255 units (the script's units);
  // other formats compare the raw channel value against value / 255.
  bool normalized = format.IsNormalized();
  double scale = normalized ? 255.0 : 1.0;
  double expected[4];
  Tolerance tol[4];
  for (int i = 0; i < 4; ++i) {
    double v =
        i < static_cast<int>(cmd.values.size())
            ? (cmd.values[i].is_float ? cmd.values[i].f
                                      : static_cast<double>(cmd.values[i].i))
            : 0.0;
    expected[i] = normalized ? v : v / 255.0;
    if (cmd.tolerances.empty()) {
      tol[i] = Tolerance{kDefaultTexelTolerance * scale, false};
    } else {
      tol[i] =
          cmd.tolerances.size() == 4 ? cmd.tolerances[i] : cmd.tolerances[0];
    }
  }
  uint64_t bad = 0;
  uint64_t first_x = 0, first_y = 0;
  double first_actual[4] = {0, 0, 0, 0};
  for (uint64_t j = 0; j < cmd.height; ++j) {
    for (uint64_t i = 0; i < cmd.width; ++i) {
      uint64_t off = (cmd.y + j) * row_stride + (cmd.x + i) * format.stride;
      std::span<const uint8_t> texel = bytes.subspan(off, format.stride);
      double actual[4] = {0, 0, 0, 0};
      bool ok = true;
      for (size_t ci = 0; ci < format.components.size(); ++ci) {
        Channel ch = ChannelOf(format, ci);
        int idx = ch == Channel::kR   ? 0
                  : ch == Channel::kG ? 1
                  : ch == Channel::kB ? 2
                  : ch == Channel::kA ? 3
                                      : -1;
        if (idx < 0) continue;
        const Component& c = format.components[ci];
        actual[idx] = NormalizeComponent(ReadComponent(texel, c), c) * scale;
        if (idx == 3 && !rgba) continue;
        if (!WithinTolerance(actual[idx], expected[idx], tol[idx].value,
                             tol[idx].percent)) {
          ok = false;
        }
      }
      if (!ok) {
        if (bad == 0) {
          first_x = cmd.x + i;
          first_y = cmd.y + j;
          std::copy(actual, actual + 4, first_actual);
        }
        ++bad;
      }
    }
  }
  if (bad == 0) return {};
  int n = rgba ? 4 : 3;
  std::string exp_s, act_s;
  for (int i = 0; i < n; ++i) {
    if (i) {
      exp_s += ", ";
      act_s += ", ";
    }
    exp_s += Num(expected[i]);
    act_s += Num(static_cast<double>(static_cast<float>(first_actual[i])));
  }
  return Fail("probe failed at pixel (" + std::to_string(first_x) + ", " +
              std::to_string(first_y) + "): expected " +
              (rgba ? "RGBA " : "RGB ") + exp_s + ", got " + act_s + " (" +
              format.name + "); " + std::to_string(bad) + " of " +
              std::to_string(uint64_t{cmd.width} * cmd.height) +
              " pixels differ");
}

ExpectationResult CheckBuffersEqual(const ElementFormat& fa,
                                    std::span<const uint8_t> a,
                                    const ElementFormat& fb,
                                    std::span<const uint8_t> b) {
  ExpectationResult r = CheckCompatible(fa, a, fb, b);
  if (!r.passed) return r;
  uint64_t differing = 0;
  size_t first = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) {
      if (differing == 0) first = i;
      ++differing;
    }
  }
  if (differing == 0) return {};
  size_t e = first / fa.stride;
  std::span<const uint8_t> ea = a.subspan(e * fa.stride, fa.stride);
  std::span<const uint8_t> eb = b.subspan(e * fa.stride, fa.stride);
  std::string va, vb;
  Component packed = PackedWordComponent(fa);
  size_t n = fa.pack_bits ? 1 : fa.components.size();
  for (size_t i = 0; i < n; ++i) {
    const Component& c = fa.pack_bits ? packed : fa.components[i];
    if (i) {
      va += " ";
      vb += " ";
    }
    va += FormatComponent(ea, c);
    vb += FormatComponent(eb, c);
  }
  return Fail("buffers differ in " + std::to_string(differing) +
              " bytes; first at byte " + std::to_string(first) + " (element " +
              std::to_string(e) + ", " + fa.name + "): " + va + " != " + vb);
}

ExpectationResult CheckRmse(const ElementFormat& fa, std::span<const uint8_t> a,
                            const ElementFormat& fb, std::span<const uint8_t> b,
                            double tolerance) {
  ExpectationResult r = CheckCompatible(fa, a, fb, b);
  if (!r.passed) return r;
  Component packed = PackedWordComponent(fa);
  size_t n = fa.pack_bits ? 1 : fa.components.size();
  double sum = 0;
  uint64_t count = 0;
  for (size_t off = 0; off + fa.stride <= a.size(); off += fa.stride) {
    for (size_t i = 0; i < n; ++i) {
      const Component& c = fa.pack_bits ? packed : fa.components[i];
      double d = ReadComponent(a.subspan(off, fa.stride), c) -
                 ReadComponent(b.subspan(off, fa.stride), c);
      sum += d * d;
      ++count;
    }
  }
  double rmse = count ? std::sqrt(sum / static_cast<double>(count)) : 0.0;
  if (rmse > tolerance) {
    return Fail("root mean square error " + Num(rmse) +
                " is greater than the tolerance " + Num(tolerance));
  }
  return {};
}

ExpectationResult CheckHistogramEmd(const ElementFormat& fa,
                                    std::span<const uint8_t> a,
                                    const ElementFormat& fb,
                                    std::span<const uint8_t> b,
                                    double tolerance) {
  ExpectationResult r = CheckCompatible(fa, a, fb, b);
  if (!r.passed) return r;
  bool ok = fa.pack_bits == 0 && fa.components.size() == 4;
  for (const Component& c : fa.components) {
    if (c.bits != 8 || c.is_float() || c.is_signed()) ok = false;
  }
  if (!ok) {
    return Fail(
        "EQ_HISTOGRAM_EMD_BUFFER needs a format of four unsigned "
        "8-bit channels, got " +
        fa.name);
  }
  constexpr int kBins = 256;
  uint64_t elements = a.size() / fa.stride;
  if (elements == 0) return {};
  double max_emd = 0;
  for (size_t ch = 0; ch < 4; ++ch) {
    std::vector<uint64_t> ha(kBins, 0), hb(kBins, 0);
    const Component& c = fa.components[ch];
    for (uint64_t e = 0; e < elements; ++e) {
      ++ha[static_cast<size_t>(
          ReadComponentInt(a.subspan(e * fa.stride, fa.stride), c))];
      ++hb[static_cast<size_t>(
          ReadComponentInt(b.subspan(e * fa.stride, fa.stride), c))];
    }
    // Earth mover's distance between two 1-D histograms of equal mass: the
    // sum of the absolute cumulative differences.
    double accum = 0, total = 0;
    for (int i = 0; i < kBins; ++i) {
      accum += static_cast<double>(ha[i]) / static_cast<double>(elements) -
               static_cast<double>(hb[i]) / static_cast<double>(elements);
      total += std::fabs(accum);
    }
    max_emd = std::max(max_emd, total / kBins);
  }
  if (max_emd > tolerance) {
    return Fail("histogram EMD " + Num(max_emd) +
                " is greater than the tolerance " + Num(tolerance));
  }
  return {};
}

ExpectationResult EvaluateExpect(const ExpectCommand& cmd, const Buffer& buffer,
                                 std::span<const uint8_t> bytes,
                                 const Buffer* other,
                                 std::span<const uint8_t> other_bytes) {
  switch (cmd.comparator) {
    case Comparator::kEq:
    case Comparator::kNe:
    case Comparator::kLt:
    case Comparator::kLe:
    case Comparator::kGt:
    case Comparator::kGe:
      return CheckValues(cmd, buffer.format, bytes);
    case Comparator::kEqRgb:
    case Comparator::kEqRgba:
      return CheckColor(cmd, buffer.format, buffer.width,
                        std::max(buffer.height, 1u), bytes);
    case Comparator::kEqBuffer:
    case Comparator::kRmseBuffer:
    case Comparator::kEqHistogramEmdBuffer:
      if (!other)
        return Fail("no second buffer given for " +
                    std::string(ComparatorName(cmd.comparator)));
      if (cmd.comparator == Comparator::kEqBuffer) {
        return CheckBuffersEqual(buffer.format, bytes, other->format,
                                 other_bytes);
      }
      if (cmd.comparator == Comparator::kRmseBuffer) {
        return CheckRmse(buffer.format, bytes, other->format, other_bytes,
                         cmd.buffer_tolerance);
      }
      return CheckHistogramEmd(buffer.format, bytes, other->format, other_bytes,
                               cmd.buffer_tolerance);
  }
  return Fail("unknown comparator");
}

}  // namespace warpsim::scene
