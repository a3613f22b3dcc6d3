#include "pipeline/output_merge.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace warpsim::pipeline {
namespace {

// ---------------------------------------------------------------------------
// Names, in enum order.

constexpr std::array<std::string_view, 8> kCompareOpNames = {"never",
                                                             "less",
                                                             "equal",
                                                             "less_or_equal",
                                                             "greater",
                                                             "not_equal",
                                                             "greater_or_equal",
                                                             "always"};

constexpr std::array<std::string_view, 8> kStencilOpNames = {
    "keep",
    "zero",
    "replace",
    "increment_and_clamp",
    "decrement_and_clamp",
    "invert",
    "increment_and_wrap",
    "decrement_and_wrap"};

constexpr std::array<std::string_view, 19> kBlendFactorNames = {
    "zero",
    "one",
    "src_color",
    "one_minus_src_color",
    "dst_color",
    "one_minus_dst_color",
    "src_alpha",
    "one_minus_src_alpha",
    "dst_alpha",
    "one_minus_dst_alpha",
    "constant_color",
    "one_minus_constant_color",
    "constant_alpha",
    "one_minus_constant_alpha",
    "src_alpha_saturate",
    "src1_color",
    "one_minus_src1_color",
    "src1_alpha",
    "one_minus_src1_alpha"};

constexpr std::array<std::string_view, 5> kBlendOpNames = {
    "add", "subtract", "reverse_subtract", "min", "max"};

// VK_EXT_blend_operation_advanced ops as AmberScript spells them: known, not
// implemented.
constexpr std::array<std::string_view, 46> kAdvancedBlendOpNames = {
    "zero",
    "src",
    "dst",
    "src_over",
    "dst_over",
    "src_in",
    "dst_in",
    "src_out",
    "dst_out",
    "src_atop",
    "dst_atop",
    "xor",
    "multiply",
    "screen",
    "overlay",
    "darken",
    "lighten",
    "color_dodge",
    "color_burn",
    "hard_light",
    "soft_light",
    "difference",
    "exclusion",
    "invert",
    "invert_rgb",
    "linear_dodge",
    "linear_burn",
    "vivid_light",
    "linear_light",
    "pin_light",
    "hard_mix",
    "hsl_hue",
    "hsl_saturation",
    "hsl_color",
    "hsl_luminosity",
    "plus",
    "plus_clamped",
    "plus_clamped_alpha",
    "plus_darker",
    "minus",
    "minus_clamped",
    "contrast",
    "invert_ovg",
    "red",
    "green",
    "blue"};

template <typename Enum, size_t N>
Result<Enum> ParseName(const std::array<std::string_view, N>& names,
                       std::string_view name, const char* what) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<Enum>(i);
  }
  std::string expected;
  for (size_t i = 0; i < N; ++i) {
    if (i) expected += i + 1 == N ? " or " : ", ";
    expected += names[i];
  }
  return InvalidInput("unknown " + std::string(what) + " '" +
                      std::string(name) + "'; expected " + expected);
}

// ---------------------------------------------------------------------------
// Bit fields of a texel (little-endian, from the texel's first byte).

uint64_t LoadBits(const uint8_t* texel, uint32_t bit_offset, uint32_t bits) {
  uint64_t v = 0;
  for (uint32_t b = 0; b < bits; ++b) {
    const uint32_t at = bit_offset + b;
    v |= static_cast<uint64_t>((texel[at / 8] >> (at % 8)) & 1u) << b;
  }
  return v;
}

void StoreBits(uint8_t* texel, uint32_t bit_offset, uint32_t bits, uint64_t v) {
  for (uint32_t b = 0; b < bits; ++b) {
    const uint32_t at = bit_offset + b;
    const uint8_t bit = static_cast<uint8_t>(1u << (at % 8));
    if ((v >> b) & 1u) {
      texel[at / 8] |= bit;
    } else {
      texel[at / 8] &= static_cast<uint8_t>(~bit);
    }
  }
}

// Byte-aligned fields (every stencil and most colour components) copy
// whole bytes; others go bit by bit.
void CopyField(const uint8_t* from, uint8_t* to, uint32_t bit_offset,
               uint32_t bits) {
  if (bit_offset % 8 == 0 && bits % 8 == 0) {
    std::memcpy(to + bit_offset / 8, from + bit_offset / 8, bits / 8);
  } else {
    StoreBits(to, bit_offset, bits, LoadBits(from, bit_offset, bits));
  }
}

const simt::TexelComponent* StencilComponent(const simt::TexelFormat& f) {
  for (uint32_t k = 0; k < f.count; ++k) {
    const simt::TexelComponent& c = f.comps[k];
    if (c.channel == simt::kChannelIgnored &&
        c.kind == simt::TexelKind::kUInt) {
      return &c;
    }
  }
  return nullptr;
}

const simt::TexelComponent* DepthComponent(const simt::TexelFormat& f) {
  if (!f.is_depth) return nullptr;
  for (uint32_t k = 0; k < f.count; ++k) {
    if (f.comps[k].channel == 0) return &f.comps[k];
  }
  return nullptr;
}

// The range a fixed-point attachment clamps blend inputs to; float
// attachments do not clamp.
struct BlendRange {
  bool clamp = false;
  float lo = 0.0f, hi = 1.0f;
};

BlendRange RangeOf(const simt::TexelFormat& format) {
  for (uint32_t k = 0; k < format.count; ++k) {
    const simt::TexelComponent& c = format.comps[k];
    if (c.channel > 3) continue;
    switch (c.kind) {
      case simt::TexelKind::kUNorm:
      case simt::TexelKind::kSrgb:
        return {true, 0.0f, 1.0f};
      case simt::TexelKind::kSNorm:
        return {true, -1.0f, 1.0f};
      default:
        return {};
    }
  }
  return {};
}

// The value of `factor` for component k (0..2 colour, 3 alpha).
float FactorValue(BlendFactor factor, int k, const float* s, const float* d,
                  const float* c, const float* s1) {
  switch (factor) {
    case BlendFactor::kZero:
      return 0.0f;
    case BlendFactor::kOne:
      return 1.0f;
    case BlendFactor::kSrcColor:
      return s[k];
    case BlendFactor::kOneMinusSrcColor:
      return 1.0f - s[k];
    case BlendFactor::kDstColor:
      return d[k];
    case BlendFactor::kOneMinusDstColor:
      return 1.0f - d[k];
    case BlendFactor::kSrcAlpha:
      return s[3];
    case BlendFactor::kOneMinusSrcAlpha:
      return 1.0f - s[3];
    case BlendFactor::kDstAlpha:
      return d[3];
    case BlendFactor::kOneMinusDstAlpha:
      return 1.0f - d[3];
    case BlendFactor::kConstantColor:
      return c[k];
    case BlendFactor::kOneMinusConstantColor:
      return 1.0f - c[k];
    case BlendFactor::kConstantAlpha:
      return c[3];
    case BlendFactor::kOneMinusConstantAlpha:
      return 1.0f - c[3];
    case BlendFactor::kSrcAlphaSaturate:
      // (f, f, f, 1) with f = min(As, 1 - Ad).
      return k == 3 ? 1.0f : std::min(s[3], 1.0f - d[3]);
    case BlendFactor::kSrc1Color:
      return s1[k];
    case BlendFactor::kOneMinusSrc1Color:
      return 1.0f - s1[k];
    case BlendFactor::kSrc1Alpha:
      return s1[3];
    case BlendFactor::kOneMinusSrc1Alpha:
      return 1.0f - s1[3];
  }
  return 0.0f;
}

float ApplyBlendOp(BlendOp op, float s, float sf, float d, float df) {
  switch (op) {
    case BlendOp::kAdd:
      return s * sf + d * df;
    case BlendOp::kSubtract:
      return s * sf - d * df;
    case BlendOp::kReverseSubtract:
      return d * df - s * sf;
    case BlendOp::kMin:  // factors are not used by min and max
      return std::min(s, d);
    case BlendOp::kMax:
      return std::max(s, d);
  }
  return s;
}

bool IsSrc1(BlendFactor f) {
  return f == BlendFactor::kSrc1Color || f == BlendFactor::kOneMinusSrc1Color ||
         f == BlendFactor::kSrc1Alpha || f == BlendFactor::kOneMinusSrc1Alpha;
}

template <typename T>
bool Compare(CompareOp op, T a, T b) {
  switch (op) {
    case CompareOp::kNever:
      return false;
    case CompareOp::kLess:
      return a < b;
    case CompareOp::kEqual:
      return a == b;
    case CompareOp::kLessOrEqual:
      return a <= b;
    case CompareOp::kGreater:
      return a > b;
    case CompareOp::kNotEqual:
      return a != b;
    case CompareOp::kGreaterOrEqual:
      return a >= b;
    case CompareOp::kAlways:
      return true;
  }
  return false;
}

// A scratch texel big enough for every Vulkan format (R64G64B64A64 is 32
// bytes); larger data-type texels fall back to the heap.
class ScratchTexel {
 public:
  explicit ScratchTexel(const uint8_t* init, uint32_t bytes) {
    if (bytes > kInline) {
      heap_.assign(init, init + bytes);
      data_ = heap_.data();
    } else {
      std::memcpy(inline_, init, bytes);
      data_ = inline_;
    }
  }
  uint8_t* data() { return data_; }

 private:
  static constexpr uint32_t kInline = 64;
  uint8_t inline_[kInline];
  std::vector<uint8_t> heap_;
  uint8_t* data_;
};

}  // namespace

// ---------------------------------------------------------------------------
// Parsing

Result<CompareOp> ParseCompareOp(std::string_view name) {
  return ParseName<CompareOp>(kCompareOpNames, name, "compare op");
}

Result<StencilOp> ParseStencilOp(std::string_view name) {
  return ParseName<StencilOp>(kStencilOpNames, name, "stencil op");
}

Result<BlendFactor> ParseBlendFactor(std::string_view name) {
  return ParseName<BlendFactor>(kBlendFactorNames, name, "blend factor");
}

Result<BlendOp> ParseBlendOp(std::string_view name) {
  for (size_t i = 0; i < kBlendOpNames.size(); ++i) {
    if (kBlendOpNames[i] == name) return static_cast<BlendOp>(i);
  }
  for (std::string_view adv : kAdvancedBlendOpNames) {
    if (adv == name) {
      return Unsupported("advanced blend op '" + std::string(name) +
                         "' (VK_EXT_blend_operation_advanced)");
    }
  }
  return ParseName<BlendOp>(kBlendOpNames, name, "blend op");
}

std::string_view CompareOpName(CompareOp op) {
  return kCompareOpNames[static_cast<size_t>(op)];
}
std::string_view StencilOpName(StencilOp op) {
  return kStencilOpNames[static_cast<size_t>(op)];
}
std::string_view BlendFactorName(BlendFactor factor) {
  return kBlendFactorNames[static_cast<size_t>(factor)];
}
std::string_view BlendOpName(BlendOp op) {
  return kBlendOpNames[static_cast<size_t>(op)];
}

bool UsesDualSource(const BlendState& state) {
  return state.enable &&
         (IsSrc1(state.src_color_factor) || IsSrc1(state.dst_color_factor) ||
          IsSrc1(state.src_alpha_factor) || IsSrc1(state.dst_alpha_factor));
}

// ---------------------------------------------------------------------------
// Tests

bool CompareDepth(CompareOp op, float fragment, float stored) {
  return Compare(op, fragment, stored);
}

bool CompareStencil(CompareOp op, uint8_t reference, uint8_t stored) {
  return Compare(op, reference, stored);
}

uint8_t ApplyStencilOp(StencilOp op, uint8_t value, uint8_t reference) {
  switch (op) {
    case StencilOp::kKeep:
      return value;
    case StencilOp::kZero:
      return 0;
    case StencilOp::kReplace:
      return reference;
    case StencilOp::kIncrementAndClamp:
      return value == 0xff ? value : static_cast<uint8_t>(value + 1);
    case StencilOp::kDecrementAndClamp:
      return value == 0 ? value : static_cast<uint8_t>(value - 1);
    case StencilOp::kInvert:
      return static_cast<uint8_t>(~value);
    case StencilOp::kIncrementAndWrap:
      return static_cast<uint8_t>(value + 1);  // modulo 2^8
    case StencilOp::kDecrementAndWrap:
      return static_cast<uint8_t>(value - 1);
  }
  return value;
}

bool StencilTest(const StencilFaceState& face, uint8_t stored) {
  return CompareStencil(
      face.compare_op, static_cast<uint8_t>(face.reference & face.compare_mask),
      static_cast<uint8_t>(stored & face.compare_mask));
}

uint8_t MaskedStencilWrite(const StencilFaceState& face, uint8_t stored,
                           uint8_t value) {
  return static_cast<uint8_t>((stored & ~face.write_mask) |
                              (value & face.write_mask));
}

DepthStencilResult TestDepthStencil(const DepthState& depth,
                                    const StencilState& stencil,
                                    bool front_facing, float frag_depth,
                                    float* stored_depth,
                                    uint8_t* stored_stencil) {
  DepthStencilResult r;
  const StencilFaceState& face = stencil.Face(front_facing);
  const bool stencil_on = stencil.test && stored_stencil != nullptr;
  // Applies `op` through the write mask; records whether the value changed.
  auto update_stencil = [&](StencilOp op) {
    if (!stencil_on) return;
    const uint8_t old = *stored_stencil;
    *stored_stencil =
        MaskedStencilWrite(face, old, ApplyStencilOp(op, old, face.reference));
    r.stencil_written = *stored_stencil != old;
  };
  auto discard = [&](FragmentTestOutcome why) {
    r.outcome = why;
    r.pass = false;
    return r;
  };

  // 1. Depth bounds: the *stored* depth must lie in [min, max]; a failing
  // sample is dropped before the stencil test, so nothing is updated.
  if (depth.bounds_test && stored_depth != nullptr) {
    const float zs = *stored_depth;
    if (!(zs >= depth.min_bounds && zs <= depth.max_bounds)) {
      return discard(FragmentTestOutcome::kDepthBoundsFail);
    }
  }
  // 2. Stencil test.
  if (stencil_on && !StencilTest(face, *stored_stencil)) {
    update_stencil(face.fail_op);
    return discard(FragmentTestOutcome::kStencilFail);
  }
  // 3. Depth test (disabled = passes, and then never writes).
  if (depth.test && stored_depth != nullptr &&
      !CompareDepth(depth.compare_op, frag_depth, *stored_depth)) {
    update_stencil(face.depth_fail_op);
    return discard(FragmentTestOutcome::kDepthFail);
  }
  // 4. Both passed.
  update_stencil(face.pass_op);
  if (depth.test && depth.write && stored_depth != nullptr) {
    *stored_depth = frag_depth;
    r.depth_written = true;
  }
  return r;
}

// ---------------------------------------------------------------------------
// Depth/stencil texels

bool HasDepth(const simt::TexelFormat& format) {
  return DepthComponent(format) != nullptr;
}

bool HasStencil(const simt::TexelFormat& format) {
  return StencilComponent(format) != nullptr;
}

float ReadDepth(const simt::TexelFormat& format, const uint8_t* texel) {
  if (!HasDepth(format)) return 0.0f;
  // The same conversion sampling uses, so a depth texture reads back what
  // the depth test compared against.
  return simt::DecodeTexel(format, texel).f[0];
}

uint8_t ReadStencil(const simt::TexelFormat& format, const uint8_t* texel) {
  const simt::TexelComponent* c = StencilComponent(format);
  if (c == nullptr) return 0;
  return static_cast<uint8_t>(LoadBits(texel, c->bit_offset, c->bits));
}

void WriteDepth(const simt::TexelFormat& format, float depth, uint8_t* texel) {
  if (!HasDepth(format)) return;
  simt::Texel t;
  t.f[0] = depth;
  // EncodeTexel writes channels 0..3 only: the stencil and X bits stay.
  simt::EncodeTexel(format, t, texel);
}

void WriteStencil(const simt::TexelFormat& format, uint8_t stencil,
                  uint8_t* texel) {
  const simt::TexelComponent* c = StencilComponent(format);
  if (c == nullptr) return;
  StoreBits(texel, c->bit_offset, c->bits, stencil);
}

float QuantizeFragmentDepth(const DepthState& depth,
                            const simt::TexelFormat& format, float z,
                            float viewport_min_depth,
                            float viewport_max_depth) {
  const simt::TexelComponent* c = DepthComponent(format);
  if (c == nullptr) return z;
  if (depth.clamp) {
    z = std::clamp(z, std::min(viewport_min_depth, viewport_max_depth),
                   std::max(viewport_min_depth, viewport_max_depth));
  }
  // The depth test sees values in [0, 1] (fixed-point attachments cannot
  // hold anything else; for float attachments Vulkan clamps too unless
  // VK_EXT_depth_range_unrestricted is in use).
  if (c->kind == simt::TexelKind::kUNorm || !depth.range_unrestricted) {
    z = std::isnan(z) ? 0.0f : std::clamp(z, 0.0f, 1.0f);
  }
  // Depth formats are at most 8 bytes (D32_SFLOAT_S8_UINT).
  uint8_t scratch[16] = {};
  if (format.bytes > sizeof(scratch)) return z;
  WriteDepth(format, z, scratch);
  return ReadDepth(format, scratch);
}

// ---------------------------------------------------------------------------
// Colour

simt::Texel Blend(const BlendState& state, const float constants[4],
                  const simt::Texel& src, const simt::Texel& dst,
                  const simt::TexelFormat& format, const simt::Texel* src1) {
  if (!state.enable || format.IsInteger()) return src;
  const BlendRange range = RangeOf(format);
  auto in = [&](float v) {
    return range.clamp ? std::clamp(v, range.lo, range.hi) : v;
  };
  float s[4], d[4], c[4], s1[4];
  for (int k = 0; k < 4; ++k) {
    s[k] = in(src.f[k]);
    d[k] = in(dst.f[k]);
    c[k] = in(constants[k]);
    s1[k] = src1 != nullptr ? in(src1->f[k]) : 0.0f;
  }
  simt::Texel out = src;
  for (int k = 0; k < 4; ++k) {
    const bool alpha = k == 3;
    const BlendFactor sf =
        alpha ? state.src_alpha_factor : state.src_color_factor;
    const BlendFactor df =
        alpha ? state.dst_alpha_factor : state.dst_color_factor;
    const BlendOp op = alpha ? state.alpha_op : state.color_op;
    const float v = ApplyBlendOp(op, s[k], FactorValue(sf, k, s, d, c, s1),
                                 d[k], FactorValue(df, k, s, d, c, s1));
    out.f[k] = in(v);
  }
  return out;
}

void WriteColor(const simt::TexelFormat& format, const BlendState& state,
                const float constants[4], const simt::Texel& src,
                uint8_t* texel, const simt::Texel* src1) {
  const uint8_t mask = state.color_write_mask & kColorMaskAll;
  if (mask == 0) return;
  simt::Texel value = src;
  if (state.enable && !format.IsInteger()) {
    value = Blend(state, constants, src, simt::DecodeTexel(format, texel),
                  format, src1);
  }
  // Every channel of the format written: encode in place (EncodeTexel
  // writes only the components' bits, so padding keeps its bits).
  bool all_written = true;
  for (uint32_t k = 0; k < format.count; ++k) {
    const simt::TexelComponent& c = format.comps[k];
    if (c.channel <= 3 && !(mask & (1u << c.channel))) all_written = false;
  }
  if (all_written) {
    simt::EncodeTexel(format, value, texel);
    return;
  }
  // Encode into a copy, then take the channels the mask allows: masked-off
  // channels keep their exact stored bits.
  ScratchTexel scratch(texel, format.bytes);
  simt::EncodeTexel(format, value, scratch.data());
  for (uint32_t k = 0; k < format.count; ++k) {
    const simt::TexelComponent& c = format.comps[k];
    if (c.channel > 3 || !(mask & (1u << c.channel))) continue;
    CopyField(scratch.data(), texel, c.bit_offset, c.bits);
  }
}

}  // namespace warpsim::pipeline
