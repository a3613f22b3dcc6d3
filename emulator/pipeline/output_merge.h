// Per-fragment operations after the fragment shader ("output merge"): the
// depth bounds, stencil and depth tests with their attachment updates, colour
// blending, colour write masks, and reading/writing depth/stencil texels.
//
// Everything here is a pure function of its arguments (plus the bytes of the
// one texel it is handed), so the rasterizer can apply fragments in API order
// whatever order their warps finished in. The rules are the Vulkan
// specification's chapter "Fragment Operations" (fragops.adoc) and
// "Framebuffer Operations" (framebuffer.adoc):
//
//   per sample, in this order
//     1. depth bounds test  (stored depth outside [min, max] -> discard;
//                            nothing is written)
//     2. stencil test       (ref & cmask) OP (stored & cmask); fail -> fail_op,
//                            discard
//     3. depth test         frag OP stored (test disabled = pass); fail ->
//                            depth_fail_op, discard
//     4. pass               pass_op; depth written when test AND write enabled
//     5. blending           per attachment, in float: UNORM/SNORM attachments
//                            clamp source, destination and constants first;
//                            sRGB attachments blend in linear space; integer
//                            attachments never blend
//     6. write mask         channels outside the RGBA mask keep their bits
//
// Stencil values are 8-bit (every stencil format Vulkan has is S8_UINT);
// stencil write masks apply as stored = (stored & ~mask) | (new & mask).
#ifndef WARPSIM_PIPELINE_OUTPUT_MERGE_H_
#define WARPSIM_PIPELINE_OUTPUT_MERGE_H_

#include <cstdint>
#include <string_view>

#include "base/diagnostic.h"
#include "simt/image.h"

namespace warpsim::pipeline {

// ---------------------------------------------------------------------------
// State, mirroring the Vulkan pipeline structures. Defaults are Amber's (its
// PipelineData): compare ops "always", stencil masks all ones, blending off.

// VkCompareOp, shared with sampler depth compares.
using CompareOp = simt::CompareOp;

// VkStencilOp order.
enum class StencilOp : uint8_t {
  kKeep,
  kZero,
  kReplace,
  kIncrementAndClamp,
  kDecrementAndClamp,
  kInvert,
  kIncrementAndWrap,
  kDecrementAndWrap,
};

// VkStencilOpState. Only the low 8 bits of the masks and the reference
// matter (stencil attachments are 8-bit).
struct StencilFaceState {
  StencilOp fail_op = StencilOp::kKeep;
  StencilOp pass_op = StencilOp::kKeep;
  StencilOp depth_fail_op = StencilOp::kKeep;
  CompareOp compare_op = CompareOp::kAlways;
  uint8_t compare_mask = 0xff;
  uint8_t write_mask = 0xff;
  uint8_t reference = 0;
};

// stencilTestEnable + front/back of VkPipelineDepthStencilStateCreateInfo.
struct StencilState {
  bool test = false;
  StencilFaceState front;
  StencilFaceState back;
  const StencilFaceState& Face(bool front_facing) const {
    return front_facing ? front : back;
  }
};

// The depth half of VkPipelineDepthStencilStateCreateInfo plus the
// rasterizer's depthClampEnable.
struct DepthState {
  bool test = false;
  bool write = false;  // only takes effect while `test` is on (Vulkan)
  CompareOp compare_op = CompareOp::kAlways;
  bool bounds_test = false;
  float min_bounds = 0.0f;
  float max_bounds = 1.0f;
  bool clamp = false;  // depthClampEnable: clamp to the viewport depth range
  // VK_EXT_depth_range_unrestricted: float depth is not clamped to [0, 1].
  bool range_unrestricted = false;
};

// VkBlendFactor order (all 19).
enum class BlendFactor : uint8_t {
  kZero,
  kOne,
  kSrcColor,
  kOneMinusSrcColor,
  kDstColor,
  kOneMinusDstColor,
  kSrcAlpha,
  kOneMinusSrcAlpha,
  kDstAlpha,
  kOneMinusDstAlpha,
  kConstantColor,
  kOneMinusConstantColor,
  kConstantAlpha,
  kOneMinusConstantAlpha,
  kSrcAlphaSaturate,
  kSrc1Color,  // dual-source blending: the second output of location 0
  kOneMinusSrc1Color,
  kSrc1Alpha,
  kOneMinusSrc1Alpha,
};

// The core VkBlendOp values (advanced blend ops are Unsupported).
enum class BlendOp : uint8_t { kAdd, kSubtract, kReverseSubtract, kMin, kMax };

// VkColorComponentFlagBits.
inline constexpr uint8_t kColorMaskR = 1;
inline constexpr uint8_t kColorMaskG = 2;
inline constexpr uint8_t kColorMaskB = 4;
inline constexpr uint8_t kColorMaskA = 8;
inline constexpr uint8_t kColorMaskAll = 0xf;

// VkPipelineColorBlendAttachmentState. The blend constants
// (VkPipelineColorBlendStateCreateInfo::blendConstants) are passed
// separately as float[4].
struct BlendState {
  bool enable = false;
  BlendFactor src_color_factor = BlendFactor::kOne;
  BlendFactor dst_color_factor = BlendFactor::kZero;
  BlendOp color_op = BlendOp::kAdd;
  BlendFactor src_alpha_factor = BlendFactor::kOne;
  BlendFactor dst_alpha_factor = BlendFactor::kZero;
  BlendOp alpha_op = BlendOp::kAdd;
  uint8_t color_write_mask = kColorMaskAll;
};

// ---------------------------------------------------------------------------
// Parsing AmberScript's lower-case names ("less_or_equal",
// "one_minus_src_alpha", "increment_and_clamp", "reverse_subtract").
// An unknown name is InvalidInput naming it; an advanced blend op Amber knows
// ("multiply", "src_over", ...) is Unsupported naming it.

Result<CompareOp> ParseCompareOp(std::string_view name);
Result<StencilOp> ParseStencilOp(std::string_view name);
Result<BlendFactor> ParseBlendFactor(std::string_view name);
Result<BlendOp> ParseBlendOp(std::string_view name);

// The AmberScript spelling of each value (for messages and reports).
std::string_view CompareOpName(CompareOp op);
std::string_view StencilOpName(StencilOp op);
std::string_view BlendFactorName(BlendFactor factor);
std::string_view BlendOpName(BlendOp op);

// True when an enabled blend state reads the second fragment output (src1
// factors); a pipeline that cannot supply it must answer Unsupported.
bool UsesDualSource(const BlendState& state);

// ---------------------------------------------------------------------------
// Tests

// `a OP b` (Vulkan: fragment/reference on the left, stored value on the
// right). NaN compares false except for not_equal and always.
bool CompareDepth(CompareOp op, float fragment, float stored);
bool CompareStencil(CompareOp op, uint8_t reference, uint8_t stored);

// The new stencil value for `op` (clamping at 0 and 255, wrapping modulo
// 256), before the write mask.
uint8_t ApplyStencilOp(StencilOp op, uint8_t value, uint8_t reference);

// (reference & compare_mask) OP (stored & compare_mask).
bool StencilTest(const StencilFaceState& face, uint8_t stored);

// stored with the bits of `value` selected by write_mask.
uint8_t MaskedStencilWrite(const StencilFaceState& face, uint8_t stored,
                           uint8_t value);

// Which test discarded the fragment, if any.
enum class FragmentTestOutcome : uint8_t {
  kPass,
  kDepthBoundsFail,
  kStencilFail,
  kDepthFail,
};

struct DepthStencilResult {
  FragmentTestOutcome outcome = FragmentTestOutcome::kPass;
  bool pass = true;  // outcome == kPass: the fragment goes on to blending
  bool depth_written = false;
  bool stencil_written = false;  // the stored stencil value changed
};

// Runs steps 1-4 above for one sample and updates *stored_depth and
// *stored_stencil in place. A null pointer means the framebuffer has no such
// aspect: its tests pass and nothing is written to it (Vulkan). `frag_depth`
// must already be in the attachment's precision (QuantizeFragmentDepth) so
// that the comparison sees what a later read of the attachment would.
DepthStencilResult TestDepthStencil(const DepthState& depth,
                                    const StencilState& stencil,
                                    bool front_facing, float frag_depth,
                                    float* stored_depth,
                                    uint8_t* stored_stencil);

// ---------------------------------------------------------------------------
// Depth/stencil attachment texels: D16_UNORM, X8_D24_UNORM_PACK32,
// D32_SFLOAT, D16_UNORM_S8_UINT, D24_UNORM_S8_UINT, D32_SFLOAT_S8_UINT,
// S8_UINT as simt::TexelFormat lays them out (runner::TexelFormatOf).
//
// simt::TexelFormat marks the stencil component like padding (channel
// kChannelIgnored); the stencil is found as the ignored component of kind
// kUInt (X padding of depth formats is always UNORM).

bool HasDepth(const simt::TexelFormat& format);
bool HasStencil(const simt::TexelFormat& format);

// 0 when the format has no depth / stencil component.
float ReadDepth(const simt::TexelFormat& format, const uint8_t* texel);
uint8_t ReadStencil(const simt::TexelFormat& format, const uint8_t* texel);

// Write only their own bits; other components (and padding) keep theirs.
// UNORM depth is clamped to [0, 1] and rounded to nearest.
void WriteDepth(const simt::TexelFormat& format, float depth, uint8_t* texel);
void WriteStencil(const simt::TexelFormat& format, uint8_t stencil,
                  uint8_t* texel);

// The fragment depth as the depth test sees it: with depth clamp, clamped to
// [min(n, f), max(n, f)] of the viewport; UNORM attachments clamp to [0, 1];
// then rounded to the attachment's precision (what WriteDepth + ReadDepth
// would give). Formats without depth return z unchanged.
float QuantizeFragmentDepth(const DepthState& depth,
                            const simt::TexelFormat& format, float z,
                            float viewport_min_depth, float viewport_max_depth);

// ---------------------------------------------------------------------------
// Colour

// The blended colour for one attachment (step 5). `src1` is the second
// output for dual-source factors (treated as zero when null). With blending
// disabled, or for integer formats, the result is `src`. For UNORM (and
// sRGB) attachments the result is in [0, 1], SNORM [-1, 1]; `dst` is what
// DecodeTexel returned (linear for sRGB; alpha 1 when the format has none).
simt::Texel Blend(const BlendState& state, const float constants[4],
                  const simt::Texel& src, const simt::Texel& dst,
                  const simt::TexelFormat& format,
                  const simt::Texel* src1 = nullptr);

// Decode *texel, blend `src` into it, keep the channels outside the write
// mask, encode back (steps 5-6). Bits of padding components never change.
void WriteColor(const simt::TexelFormat& format, const BlendState& state,
                const float constants[4], const simt::Texel& src,
                uint8_t* texel, const simt::Texel* src1 = nullptr);

}  // namespace warpsim::pipeline

#endif  // WARPSIM_PIPELINE_OUTPUT_MERGE_H_
