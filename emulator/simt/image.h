// Images as the executor sees them: a descriptor per bound image (texel
// format, extent, mip levels, samples, memory) and, for sampled images,
// the sampler state. Filled by the runner from a scene binding
// (runner/image_binding.h); read by the image instruction family
// (exec_image.cpp). Nothing here knows about scenes or AmberScript.
//
// Memory layout of an image (the bytes `data` points at)
// -------------------------------------------------------
// Texels are tightly packed (`format.bytes` per texel, no row padding).
// Mip levels follow each other from the view's first level; inside a level
// the order, from the fastest-varying, is
//
//     x, y, z (3D depth slice), array layer, sample
//
// i.e. byte offset of texel (x, y, z, layer, sample) of level L is
//
//     level_offset[L] + ((((sample * layers + layer) * depth_L + z)
//                          * height_L + y) * width_L + x) * format.bytes
//
// Samples of a multisample image are *planes*: the whole level for sample
// 0, then for sample 1, ... so that the first plane is exactly what a
// single-sample reader (EXPECT on the image buffer) sees as "the image".
// Level L has extent max(1, size >> L) in x, y and (3D) z; array layers do
// not shrink. Buffers that hold fewer bytes than the layout needs read 0
// and drop writes past their end.
#ifndef WARPSIM_SIMT_IMAGE_H_
#define WARPSIM_SIMT_IMAGE_H_

#include <algorithm>
#include <cstdint>

namespace warpsim::simt {

// The most mip levels an image can have (Vulkan allows 2^15-wide images).
inline constexpr uint32_t kMaxMipLevels = 16;
// Linear-filter weights and the mip-level blend factor are snapped to
// 1/2^8: Vulkan's subTexelPrecisionBits and mipmapPrecisionBits, both 8 on
// NVIDIA (the CUDA programming guide: "9-bit fixed point format with 8 bits
// of fractional value").
inline constexpr uint32_t kSubTexelPrecisionBits = 8;
inline constexpr uint32_t kMipmapPrecisionBits = 8;

// How one texel component's bits are interpreted.
enum class TexelKind : uint8_t {
  kUNorm,
  kSNorm,
  kUInt,
  kSInt,
  kSFloat,  // 16, 32 or 64-bit IEEE
  kUFloat,  // 10/11-bit unsigned floats (B10G11R11_UFLOAT_PACK32)
  kSrgb,    // UNORM bits, sRGB transfer (alpha stays linear)
  kUScaled,
  kSScaled,
};

// One component of a texel. `channel` 0..3 = R, G, B, A; depth counts as R
// (channel 0); kChannelIgnored marks stencil / padding (X) bits.
inline constexpr uint8_t kChannelIgnored = 0xff;
struct TexelComponent {
  uint8_t channel = 0;
  TexelKind kind = TexelKind::kUNorm;
  uint8_t bits = 8;
  uint16_t bit_offset = 0;  // from the texel's first byte, little-endian
};

struct TexelFormat {
  uint32_t bytes = 4;  // texel size (stride)
  uint32_t count = 0;  // components in `comps`
  TexelComponent comps[4];
  bool is_depth = false;  // has a depth component (Dref compares it)
  bool unorm_depth = false;
  // UINT/SINT formats: texels are integers (result registers hold integer
  // bits); everything else is read as float.
  bool IsInteger() const {
    return count > 0 && (comps[0].kind == TexelKind::kUInt ||
                         comps[0].kind == TexelKind::kSInt);
  }
};

enum class Filter : uint8_t { kNearest, kLinear };
enum class AddressMode : uint8_t {
  kRepeat,
  kMirroredRepeat,
  kClampToEdge,
  kClampToBorder,
  kMirrorClampToEdge,
};
enum class BorderColor : uint8_t {
  kFloatTransparentBlack,
  kIntTransparentBlack,
  kFloatOpaqueBlack,
  kIntOpaqueBlack,
  kFloatOpaqueWhite,
  kIntOpaqueWhite,
};
// Vulkan's VkCompareOp order.
enum class CompareOp : uint8_t {
  kNever,
  kLess,
  kEqual,
  kLessOrEqual,
  kGreater,
  kNotEqual,
  kGreaterOrEqual,
  kAlways,
};

struct SamplerDesc {
  Filter mag_filter = Filter::kNearest;
  Filter min_filter = Filter::kNearest;
  Filter mipmap_mode = Filter::kNearest;
  AddressMode address[3] = {AddressMode::kRepeat, AddressMode::kRepeat,
                            AddressMode::kRepeat};
  BorderColor border = BorderColor::kFloatTransparentBlack;
  float mip_lod_bias = 0.0f;
  float min_lod = 0.0f;
  float max_lod = 1000.0f;
  bool unnormalized = false;
  bool compare_enable = false;
  CompareOp compare_op = CompareOp::kNever;
};

// What the shader's image type says about the view.
enum class ViewDim : uint8_t { k1D, k2D, k3D, kCube, kBuffer };

struct ImageDesc {
  bool bound = false;  // an image (or texel buffer) is bound
  bool has_sampler = false;
  uint8_t* data = nullptr;
  uint64_t size = 0;  // bytes at data
  bool writable = true;
  TexelFormat format;
  ViewDim dim = ViewDim::k2D;
  // Extent of the view's first level; `layers` counts array layers (cube
  // faces included: a cube has 6).
  uint32_t width = 0, height = 1, depth = 1;
  uint32_t layers = 1;
  uint32_t mip_levels = 1;
  uint32_t samples = 1;
  uint64_t level_offset[kMaxMipLevels] = {};
  SamplerDesc sampler;

  uint32_t LevelWidth(uint32_t l) const { return std::max(1u, width >> l); }
  uint32_t LevelHeight(uint32_t l) const {
    return dim == ViewDim::k1D || dim == ViewDim::kBuffer
               ? 1u
               : std::max(1u, height >> l);
  }
  uint32_t LevelDepth(uint32_t l) const {
    return dim == ViewDim::k3D ? std::max(1u, depth >> l) : 1u;
  }
  // Byte offset of a texel from `data`, or nullopt-like ~0 when any
  // coordinate is out of range (reads give 0, writes are dropped).
  uint64_t TexelOffset(uint32_t level, int64_t x, int64_t y, int64_t z,
                       int64_t layer, int64_t sample) const {
    if (level >= mip_levels) return ~uint64_t{0};
    const uint64_t w = LevelWidth(level), h = LevelHeight(level),
                   d = LevelDepth(level);
    if (x < 0 || y < 0 || z < 0 || layer < 0 || sample < 0 ||
        static_cast<uint64_t>(x) >= w || static_cast<uint64_t>(y) >= h ||
        static_cast<uint64_t>(z) >= d ||
        static_cast<uint64_t>(layer) >= layers ||
        static_cast<uint64_t>(sample) >= samples) {
      return ~uint64_t{0};
    }
    const uint64_t index =
        (((static_cast<uint64_t>(sample) * layers + layer) * d + z) * h + y) *
            w +
        x;
    const uint64_t off = level_offset[level] + index * format.bytes;
    return off + format.bytes <= size ? off : ~uint64_t{0};
  }
};

// Bytes of level `level` of an image with this extent (all layers and
// samples), for laying out mip chains (the runner and graphics pipeline use
// the same rule).
inline uint64_t ImageLevelBytes(uint32_t texel_bytes, uint32_t width,
                                uint32_t height, uint32_t depth,
                                uint32_t layers, uint32_t samples,
                                uint32_t level) {
  return uint64_t{std::max(1u, width >> level)} *
         std::max(1u, height >> level) * std::max(1u, depth >> level) * layers *
         samples * texel_bytes;
}

// A decoded texel: float components for float/normalized formats, integer
// bits (sign-extended for SINT) for integer formats. Missing components are
// (0, 0, 0, 1).
struct Texel {
  float f[4] = {0, 0, 0, 1};
  uint64_t i[4] = {0, 0, 0, 1};
};

// Format conversion (exec_image.cpp), shared with whoever writes images
// outside shaders (render targets).
Texel DecodeTexel(const TexelFormat& format, const uint8_t* texel);
void EncodeTexel(const TexelFormat& format, const Texel& value, uint8_t* texel);

}  // namespace warpsim::simt

#endif  // WARPSIM_SIMT_IMAGE_H_
