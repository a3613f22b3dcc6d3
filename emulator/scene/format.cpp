#include "scene/format.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace warpsim::scene {
namespace {

uint32_t RoundUp(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

// A laid-out (sub)type: components relative to its start.
struct Laid {
  uint32_t size = 0;
  uint32_t align = 1;
  std::vector<Component> comps;
  uint32_t rows = 1;
  uint32_t columns = 1;
};

constexpr int kMaxStructDepth = 16;

Result<Laid> LayType(const std::string& name, Layout layout,
                     const StructTable& structs,
                     std::optional<uint32_t> matrix_stride, int depth);

Result<ScalarType> InnerScalar(const std::string& name, size_t open) {
  if (name.back() != '>') {
    return InvalidInput("expected '<type>' after '" + name.substr(0, open) +
                        "' in data type '" + name + "'");
  }
  std::string inner = name.substr(open + 1, name.size() - open - 2);
  auto s = ParseScalarTypeName(inner);
  if (!s) {
    return InvalidInput(
        "expected a scalar type (int8..uint64, float16, "
        "float, double) inside '" +
        name + "', got '" + inner + "'");
  }
  return *s;
}

Result<Laid> LayType(const std::string& name, Layout layout,
                     const StructTable& structs,
                     std::optional<uint32_t> matrix_stride, int depth) {
  if (auto s = ParseScalarTypeName(name)) {
    Laid l;
    uint32_t b = s->bits / 8;
    l.size = l.align = b;
    l.comps.push_back(Component{Channel::kNone, s->kind, s->bits, 0, 0});
    return l;
  }
  if (name.size() > 5 && name.compare(0, 3, "vec") == 0 && name[4] == '<') {
    uint32_t n = static_cast<uint32_t>(name[3] - '0');
    if (n < 2 || n > 4) {
      return InvalidInput("vector size must be 2, 3 or 4 in '" + name + "'");
    }
    auto s = InnerScalar(name, 4);
    if (!s.ok()) return s.error();
    uint32_t b = s->bits / 8;
    Laid l;
    l.rows = n;
    for (uint32_t i = 0; i < n; ++i) {
      l.comps.push_back(Component{Channel::kNone, s->kind, s->bits, i * b, 0});
    }
    l.size = n * b;
    l.align = (n == 2 ? 2 : 4) * b;
    return l;
  }
  if (name.size() > 7 && name.compare(0, 3, "mat") == 0 && name[4] == 'x' &&
      name[6] == '<') {
    uint32_t cols = static_cast<uint32_t>(name[3] - '0');
    uint32_t rows = static_cast<uint32_t>(name[5] - '0');
    if (cols < 2 || cols > 4 || rows < 2 || rows > 4) {
      return InvalidInput("matrix columns and rows must be 2, 3 or 4 in '" +
                          name + "'");
    }
    auto s = InnerScalar(name, 6);
    if (!s.ok()) return s.error();
    uint32_t b = s->bits / 8;
    uint32_t col_align = (rows == 2 ? 2 : 4) * b;
    uint32_t col_stride = RoundUp(rows * b, col_align);
    if (layout == Layout::kStd140) {
      col_stride = RoundUp(col_stride, 16);
      col_align = RoundUp(col_align, 16);
    }
    if (matrix_stride) col_stride = *matrix_stride;
    Laid l;
    l.rows = rows;
    l.columns = cols;
    for (uint32_t c = 0; c < cols; ++c) {
      for (uint32_t r = 0; r < rows; ++r) {
        l.comps.push_back(Component{Channel::kNone, s->kind, s->bits,
                                    c * col_stride + r * b, 0});
      }
    }
    l.size = cols * col_stride;
    l.align = col_align;
    return l;
  }
  auto it = structs.find(name);
  if (it == structs.end()) {
    return InvalidInput("unknown data type '" + name +
                        "' (expected int8..uint64, float16, float, double, "
                        "vecN<T>, matCxR<T>, a STRUCT name or a Vulkan "
                        "format)");
  }
  if (depth > kMaxStructDepth) {
    return InvalidInput("STRUCT '" + name + "' nests too deeply (limit " +
                        std::to_string(kMaxStructDepth) + ")");
  }
  const StructDef& def = it->second;
  Laid l;
  uint32_t cur = 0;
  for (const StructMember& m : def.members) {
    auto sub =
        LayType(m.type_name, layout, structs, m.matrix_stride, depth + 1);
    if (!sub.ok()) return sub.error();
    uint32_t off = m.offset ? *m.offset : RoundUp(cur, sub->align);
    if (m.offset && *m.offset < cur) {
      return InvalidInput("OFFSET " + std::to_string(*m.offset) +
                          " of member '" + m.name + "' of STRUCT '" + name +
                          "' overlaps the previous member (which ends at " +
                          std::to_string(cur) + ")");
    }
    for (Component c : sub->comps) {
      c.byte_offset += off;
      l.comps.push_back(c);
    }
    cur = off + sub->size;
    l.align = std::max(l.align, sub->align);
  }
  if (layout == Layout::kStd140) l.align = RoundUp(l.align, 16);
  l.size = RoundUp(cur, l.align);
  if (def.stride) {
    if (*def.stride < cur) {
      return InvalidInput("STRIDE " + std::to_string(*def.stride) +
                          " of STRUCT '" + name + "' is smaller than its " +
                          std::to_string(cur) + " bytes of members");
    }
    l.size = *def.stride;
  }
  return l;
}

std::optional<NumericKind> ParseKind(const std::string& s) {
  if (s == "UNORM") return NumericKind::kUNorm;
  if (s == "SNORM") return NumericKind::kSNorm;
  if (s == "UINT") return NumericKind::kUInt;
  if (s == "SINT") return NumericKind::kSInt;
  if (s == "UFLOAT") return NumericKind::kUFloat;
  if (s == "SFLOAT") return NumericKind::kSFloat;
  if (s == "SRGB") return NumericKind::kSRgb;
  if (s == "USCALED") return NumericKind::kUScaled;
  if (s == "SSCALED") return NumericKind::kSScaled;
  return std::nullopt;
}

std::optional<Channel> ParseChannel(char c) {
  switch (c) {
    case 'R':
      return Channel::kR;
    case 'G':
      return Channel::kG;
    case 'B':
      return Channel::kB;
    case 'A':
      return Channel::kA;
    case 'D':
      return Channel::kD;
    case 'S':
      return Channel::kS;
    case 'X':
      return Channel::kX;
    default:
      return std::nullopt;
  }
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string::npos ? p : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

uint64_t LoadBits(std::span<const uint8_t> element, const Component& c) {
  uint64_t v = 0;
  uint32_t total = c.bit_offset + c.bits;
  uint32_t nbytes = (total + 7) / 8;
  for (uint32_t i = 0; i < nbytes && i < 8; ++i) {
    size_t at = c.byte_offset + i;
    if (at < element.size()) v |= static_cast<uint64_t>(element[at]) << (8 * i);
  }
  v >>= c.bit_offset;
  if (c.bits < 64) v &= (uint64_t{1} << c.bits) - 1;
  return v;
}

}  // namespace

bool ElementFormat::IsNormalized() const {
  return !components.empty() &&
         std::all_of(components.begin(), components.end(),
                     [](const Component& c) {
                       return c.is_normalized() || c.channel == Channel::kX;
                     });
}

bool ElementFormat::HasChannel(Channel ch) const {
  for (const auto& c : components) {
    if (c.channel == ch) return true;
  }
  return false;
}

std::optional<ScalarType> ParseScalarTypeName(const std::string& n) {
  if (n == "int8") return ScalarType{NumericKind::kSInt, 8};
  if (n == "int16") return ScalarType{NumericKind::kSInt, 16};
  if (n == "int32") return ScalarType{NumericKind::kSInt, 32};
  if (n == "int64") return ScalarType{NumericKind::kSInt, 64};
  if (n == "uint8") return ScalarType{NumericKind::kUInt, 8};
  if (n == "uint16") return ScalarType{NumericKind::kUInt, 16};
  if (n == "uint32") return ScalarType{NumericKind::kUInt, 32};
  if (n == "uint64") return ScalarType{NumericKind::kUInt, 64};
  if (n == "float16") return ScalarType{NumericKind::kSFloat, 16};
  if (n == "float") return ScalarType{NumericKind::kSFloat, 32};
  if (n == "double") return ScalarType{NumericKind::kSFloat, 64};
  return std::nullopt;
}

std::string ScalarTypeName(const ScalarType& t) {
  switch (t.kind) {
    case NumericKind::kSFloat:
      return t.bits == 16 ? "float16" : t.bits == 32 ? "float" : "double";
    case NumericKind::kSInt:
      return "int" + std::to_string(t.bits);
    default:
      return "uint" + std::to_string(t.bits);
  }
}

std::optional<ElementFormat> ParseVulkanFormat(const std::string& name) {
  std::vector<std::string> parts = Split(name, '_');
  if (parts.size() < 2) return std::nullopt;
  uint32_t pack_bits = 0;
  if (parts.back().compare(0, 4, "PACK") == 0) {
    pack_bits = static_cast<uint32_t>(std::atoi(parts.back().c_str() + 4));
    if (pack_bits != 8 && pack_bits != 16 && pack_bits != 32) {
      return std::nullopt;
    }
    parts.pop_back();
  }
  // Groups of "<channels><bits>..." followed by a numeric kind; a channel
  // group without a kind (X8 in X8_D24_UNORM_PACK32) takes the next kind.
  struct Pending {
    Channel ch;
    uint32_t bits;
  };
  std::vector<Pending> pending;
  std::vector<Component> comps;
  for (const std::string& p : parts) {
    if (auto kind = ParseKind(p)) {
      if (pending.empty()) return std::nullopt;
      for (const Pending& q : pending) {
        Component c;
        c.channel = q.ch;
        c.kind = *kind;
        c.bits = q.bits;
        comps.push_back(c);
      }
      pending.clear();
      continue;
    }
    size_t i = 0;
    if (p.empty()) return std::nullopt;
    while (i < p.size()) {
      auto ch = ParseChannel(p[i]);
      if (!ch) return std::nullopt;
      ++i;
      size_t start = i;
      while (i < p.size() && std::isdigit(static_cast<unsigned char>(p[i]))) {
        ++i;
      }
      if (start == i) return std::nullopt;
      uint32_t bits = static_cast<uint32_t>(std::atoi(p.substr(start).c_str()));
      if (bits == 0 || bits > 64) return std::nullopt;
      pending.push_back(Pending{*ch, bits});
    }
  }
  if (!pending.empty() || comps.empty()) return std::nullopt;
  uint32_t total = 0;
  for (const auto& c : comps) total += c.bits;
  if (pack_bits && total != pack_bits) return std::nullopt;
  ElementFormat f;
  f.name = name;
  f.is_vulkan_format = true;
  f.pack_bits = pack_bits;
  uint32_t pos = pack_bits ? pack_bits : 0;
  uint32_t cum = 0;
  for (auto& c : comps) {
    uint32_t bit_pos;
    if (pack_bits) {
      pos -= c.bits;  // first-named component in the most significant bits
      bit_pos = pos;
    } else {
      bit_pos = cum;
      cum += c.bits;
    }
    c.byte_offset = bit_pos / 8;
    c.bit_offset = bit_pos % 8;
  }
  f.components = comps;
  f.stride = (total + 7) / 8;
  f.alignment = 1;
  f.rows = static_cast<uint32_t>(comps.size());
  return f;
}

Result<ElementFormat> LayoutDataType(const std::string& type_name,
                                     Layout layout,
                                     const StructTable& structs) {
  std::string base = type_name;
  bool is_array = false;
  if (base.size() > 2 && base.compare(base.size() - 2, 2, "[]") == 0) {
    is_array = true;
    base = base.substr(0, base.size() - 2);
  }
  if (auto vf = ParseVulkanFormat(base)) {
    vf->name = type_name;
    vf->layout = layout;
    return *vf;
  }
  auto laid = LayType(base, layout, structs, std::nullopt, 0);
  if (!laid.ok()) return laid.error();
  ElementFormat f;
  f.name = type_name;
  f.layout = layout;
  f.components = laid->comps;
  f.alignment = laid->align;
  f.rows = laid->rows;
  f.columns = laid->columns;
  f.stride = RoundUp(laid->size, laid->align);
  if (is_array && layout == Layout::kStd140) f.stride = RoundUp(f.stride, 16);
  if (f.stride == 0)
    return InvalidInput("data type '" + type_name + "' is empty");
  return f;
}

int64_t ReadComponentInt(std::span<const uint8_t> element, const Component& c) {
  uint64_t v = LoadBits(element, c);
  if (c.is_signed() && c.bits < 64 && (v >> (c.bits - 1)) & 1) {
    v |= ~uint64_t{0} << c.bits;  // sign-extend
  }
  return static_cast<int64_t>(v);
}

double ReadComponent(std::span<const uint8_t> element, const Component& c) {
  uint64_t v = LoadBits(element, c);
  if (c.is_float()) {
    if (c.bits == 32) return std::bit_cast<float>(static_cast<uint32_t>(v));
    if (c.bits == 64) return std::bit_cast<double>(v);
    if (c.bits == 16) return HalfToFloat(static_cast<uint16_t>(v));
    if (c.bits == 11) return SmallUFloatToFloat(static_cast<uint32_t>(v), 6);
    if (c.bits == 10) return SmallUFloatToFloat(static_cast<uint32_t>(v), 5);
    return 0.0;
  }
  if (c.is_signed()) return static_cast<double>(ReadComponentInt(element, c));
  return static_cast<double>(v);
}

void WriteComponentBits(std::span<uint8_t> element, const Component& c,
                        uint64_t bits) {
  uint64_t mask = c.bits < 64 ? (uint64_t{1} << c.bits) - 1 : ~uint64_t{0};
  bits &= mask;
  uint32_t total = c.bit_offset + c.bits;
  uint32_t nbytes = (total + 7) / 8;
  for (uint32_t i = 0; i < nbytes && i < 8; ++i) {
    size_t at = c.byte_offset + i;
    if (at >= element.size()) break;
    // Bits of this byte covered by the field.
    uint64_t field_mask_shifted = (mask << c.bit_offset) >> (8 * i);
    uint64_t val_shifted = (bits << c.bit_offset) >> (8 * i);
    uint8_t m = static_cast<uint8_t>(field_mask_shifted & 0xff);
    element[at] = static_cast<uint8_t>((element[at] & ~m) | (val_shifted & m));
  }
}

double NormalizeComponent(double raw, const Component& c) {
  switch (c.kind) {
    case NumericKind::kUNorm:
      return raw / static_cast<double>((uint64_t{1} << c.bits) - 1);
    case NumericKind::kSNorm:
      return raw / static_cast<double>((uint64_t{1} << (c.bits - 1)) - 1);
    case NumericKind::kSRgb: {
      double v = raw / static_cast<double>((uint64_t{1} << c.bits) - 1);
      if (c.channel == Channel::kA) return v;
      return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    }
    default:
      return raw;
  }
}

float SmallUFloatToFloat(uint32_t bits, uint32_t mantissa_bits) {
  uint32_t exp = bits >> mantissa_bits;
  uint32_t mant = bits & ((1u << mantissa_bits) - 1);
  if (exp == 0) {
    return std::ldexp(static_cast<float>(mant),
                      -14 - static_cast<int>(mantissa_bits));
  }
  if (exp == 0x1f) {
    return mant ? std::nanf("") : INFINITY;
  }
  return std::ldexp(
      1.0f + static_cast<float>(mant) / static_cast<float>(1u << mantissa_bits),
      static_cast<int>(exp) - 15);
}

}  // namespace warpsim::scene
