#include "runner/image_binding.h"

#include <algorithm>

namespace warpsim::runner {
namespace {

using scene::Channel;
using scene::NumericKind;
using simt::TexelKind;

TexelKind KindOf(NumericKind k) {
  switch (k) {
    case NumericKind::kSInt:
      return TexelKind::kSInt;
    case NumericKind::kUInt:
      return TexelKind::kUInt;
    case NumericKind::kSFloat:
      return TexelKind::kSFloat;
    case NumericKind::kUFloat:
      return TexelKind::kUFloat;
    case NumericKind::kUNorm:
      return TexelKind::kUNorm;
    case NumericKind::kSNorm:
      return TexelKind::kSNorm;
    case NumericKind::kSRgb:
      return TexelKind::kSrgb;
    case NumericKind::kUScaled:
      return TexelKind::kUScaled;
    case NumericKind::kSScaled:
      return TexelKind::kSScaled;
  }
  return TexelKind::kUNorm;
}

// Extent of a scene image: (width, height, depth, layers) before any view.
struct Extent {
  uint32_t width = 1, height = 1, depth = 1, layers = 1;
};

Extent SceneExtent(const scene::Buffer& b) {
  Extent e;
  if (b.width == 0) {
    // A plain buffer: a 1D image of its elements.
    e.width = static_cast<uint32_t>(std::min<uint64_t>(
        b.element_count ? b.element_count
                        : b.bytes.size() / std::max(b.format.stride, 1u),
        0xffffffffu));
    return e;
  }
  e.width = b.width;
  switch (b.dim) {
    case scene::ImageDim::k1D:
      e.layers = std::max(b.height, 1u);
      break;
    case scene::ImageDim::k3D:
      e.height = std::max(b.height, 1u);
      e.depth = std::max(b.depth, 1u);
      break;
    default:  // 2D (and legacy framebuffer-sized buffers)
      e.height = std::max(b.height, 1u);
      e.layers = std::max(b.depth, 1u);
      break;
  }
  return e;
}

uint64_t LevelBytes(const scene::Buffer& b, const Extent& e, uint32_t level) {
  return simt::ImageLevelBytes(std::max(b.format.stride, 1u), e.width, e.height,
                               e.depth, e.layers, std::max(b.samples, 1u),
                               level);
}

simt::AddressMode AddressOf(const std::string& s) {
  if (s == "mirrored_repeat") return simt::AddressMode::kMirroredRepeat;
  if (s == "clamp_to_edge") return simt::AddressMode::kClampToEdge;
  if (s == "clamp_to_border") return simt::AddressMode::kClampToBorder;
  if (s == "mirror_clamp_to_edge") return simt::AddressMode::kMirrorClampToEdge;
  return simt::AddressMode::kRepeat;
}

simt::BorderColor BorderOf(const std::string& s) {
  if (s == "int_transparent_black")
    return simt::BorderColor::kIntTransparentBlack;
  if (s == "float_opaque_black") return simt::BorderColor::kFloatOpaqueBlack;
  if (s == "int_opaque_black") return simt::BorderColor::kIntOpaqueBlack;
  if (s == "float_opaque_white") return simt::BorderColor::kFloatOpaqueWhite;
  if (s == "int_opaque_white") return simt::BorderColor::kIntOpaqueWhite;
  return simt::BorderColor::kFloatTransparentBlack;
}

simt::CompareOp CompareOf(const std::string& s) {
  if (s == "less") return simt::CompareOp::kLess;
  if (s == "equal") return simt::CompareOp::kEqual;
  if (s == "less_or_equal") return simt::CompareOp::kLessOrEqual;
  if (s == "greater") return simt::CompareOp::kGreater;
  if (s == "not_equal") return simt::CompareOp::kNotEqual;
  if (s == "greater_or_equal") return simt::CompareOp::kGreaterOrEqual;
  if (s == "always") return simt::CompareOp::kAlways;
  return simt::CompareOp::kNever;
}

simt::SamplerDesc SamplerOf(const scene::Sampler& s) {
  simt::SamplerDesc d;
  auto filter = [](const std::string& f) {
    return f == "linear" ? simt::Filter::kLinear : simt::Filter::kNearest;
  };
  d.mag_filter = filter(s.mag_filter);
  d.min_filter = filter(s.min_filter);
  d.mipmap_mode = filter(s.mipmap_mode);
  d.address[0] = AddressOf(s.address_mode_u);
  d.address[1] = AddressOf(s.address_mode_v);
  d.address[2] = AddressOf(s.address_mode_w);
  d.border = BorderOf(s.border_color);
  d.min_lod = s.min_lod;
  d.max_lod = s.max_lod;
  d.unnormalized = !s.normalized_coords;
  d.compare_enable = s.compare_enable;
  d.compare_op = CompareOf(s.compare_op);
  return d;
}

simt::ViewDim ViewDimOf(spv::Dim dim) {
  switch (dim) {
    case spv::Dim::Dim1D:
      return simt::ViewDim::k1D;
    case spv::Dim::Dim3D:
      return simt::ViewDim::k3D;
    case spv::Dim::Cube:
      return simt::ViewDim::kCube;
    case spv::Dim::Buffer:
      return simt::ViewDim::kBuffer;
    default:  // 2D, Rect, SubpassData
      return simt::ViewDim::k2D;
  }
}

}  // namespace

simt::TexelFormat TexelFormatOf(const scene::ElementFormat& format) {
  simt::TexelFormat f;
  f.bytes = std::max(format.stride, 1u);
  uint8_t next_channel = 0;  // DATA_TYPE components: R, G, B, A in order
  for (const scene::Component& c : format.components) {
    if (f.count == 4) break;
    simt::TexelComponent tc;
    tc.kind = KindOf(c.kind);
    tc.bits = static_cast<uint8_t>(c.bits);
    tc.bit_offset = static_cast<uint16_t>(c.byte_offset * 8 + c.bit_offset);
    switch (c.channel) {
      case Channel::kR:
        tc.channel = 0;
        break;
      case Channel::kG:
        tc.channel = 1;
        break;
      case Channel::kB:
        tc.channel = 2;
        break;
      case Channel::kA:
        tc.channel = 3;
        break;
      case Channel::kD:
        tc.channel = 0;
        f.is_depth = true;
        f.unorm_depth = c.kind == NumericKind::kUNorm;
        break;
      case Channel::kNone:
        tc.channel = next_channel < 4 ? next_channel : simt::kChannelIgnored;
        ++next_channel;
        break;
      default:  // stencil, X padding
        tc.channel = simt::kChannelIgnored;
        break;
    }
    f.comps[f.count++] = tc;
  }
  return f;
}

uint64_t ImageStorageBytes(const scene::Buffer& buffer) {
  return ImageLevelOffset(buffer, std::max(buffer.mip_levels, 1u));
}

uint64_t ImageLevelOffset(const scene::Buffer& buffer, uint32_t level) {
  const Extent e = SceneExtent(buffer);
  uint64_t offset = 0;
  for (uint32_t l = 0; l < level; ++l) offset += LevelBytes(buffer, e, l);
  return offset;
}

Status BindImage(const scene::Scene& scene, const scene::Binding& binding,
                 uint32_t index, uint32_t type_id, const spirv::Module& module,
                 std::map<std::string, std::vector<uint8_t>>* buffers,
                 simt::ImageDesc* desc) {
  const SourcePos pos{scene.file_path, binding.line};
  *desc = simt::ImageDesc{};
  const spirv::Type& type = module.type(type_id);
  uint32_t image_type_id = 0;
  if (type.kind == spirv::TypeKind::kImage) image_type_id = type_id;
  if (type.kind == spirv::TypeKind::kSampledImage)
    image_type_id = type.image_type;

  // Sampler state: BIND SAMPLER, or the SAMPLER of a combined binding.
  if (binding.kind == scene::BindingKind::kSampler ||
      binding.kind == scene::BindingKind::kCombinedImageSampler) {
    if (!binding.samplers.empty()) {
      const std::string& name =
          binding
              .samplers[std::min<size_t>(index, binding.samplers.size() - 1)];
      const scene::Sampler* s = scene.FindSampler(name);
      if (s == nullptr) return InvalidInput("unknown sampler " + name, pos);
      desc->sampler = SamplerOf(*s);
      desc->has_sampler = true;
    }
    if (binding.kind == scene::BindingKind::kSampler) return {};
  }

  switch (binding.kind) {
    case scene::BindingKind::kSampled:
    case scene::BindingKind::kStorageImage:
    case scene::BindingKind::kCombinedImageSampler:
    case scene::BindingKind::kStorageTexelBuffer:
    case scene::BindingKind::kUniformTexelBuffer:
      break;
    default:
      return InvalidInput(std::string("an image or sampler variable is bound "
                                      "AS ") +
                              scene::BindingKindName(binding.kind),
                          pos);
  }
  if (binding.buffers.empty()) return {};
  const std::string& name =
      binding.buffers[std::min<size_t>(index, binding.buffers.size() - 1)];
  const scene::Buffer* buf = scene.FindBuffer(name);
  if (buf == nullptr) return InvalidInput("unknown buffer " + name, pos);
  std::vector<uint8_t>& bytes = (*buffers)[name];
  desc->format = TexelFormatOf(buf->format);
  if (desc->format.count == 0) {
    return Unsupported("image format " + buf->format.name, pos);
  }
  desc->dim = image_type_id != 0 ? ViewDimOf(module.type(image_type_id).dim)
                                 : simt::ViewDim::k2D;
  const bool arrayed =
      image_type_id != 0 && module.type(image_type_id).arrayed != 0;
  const bool texel_buffer =
      binding.kind == scene::BindingKind::kStorageTexelBuffer ||
      binding.kind == scene::BindingKind::kUniformTexelBuffer ||
      desc->dim == simt::ViewDim::kBuffer;

  if (texel_buffer) {
    // A texel buffer: the bound range of the buffer, element after element.
    uint64_t offset = 0;
    if (index < binding.descriptor_offsets.size())
      offset = binding.descriptor_offsets[index];
    offset = std::min<uint64_t>(offset, bytes.size());
    uint64_t size = bytes.size() - offset;
    if (index < binding.descriptor_ranges.size() &&
        binding.descriptor_ranges[index] != ~0ull) {
      size = std::min<uint64_t>(size, binding.descriptor_ranges[index]);
    }
    desc->bound = true;
    desc->dim = simt::ViewDim::kBuffer;
    desc->data = bytes.data() + offset;
    desc->size = size;
    desc->width = static_cast<uint32_t>(
        std::min<uint64_t>(size / desc->format.bytes, 0xffffffffu));
    desc->writable = binding.kind != scene::BindingKind::kUniformTexelBuffer;
    return {};
  }

  const Extent e = SceneExtent(*buf);
  const uint32_t levels = std::clamp(buf->mip_levels, 1u, simt::kMaxMipLevels);
  if (binding.base_mip_level >= levels) {
    return InvalidInput("BASE_MIP_LEVEL " +
                            std::to_string(binding.base_mip_level) +
                            " is past the last level of " + name,
                        pos);
  }
  // The whole mip chain / every sample plane must exist (simt/image.h).
  const uint64_t need = ImageStorageBytes(*buf);
  if (bytes.size() < need) bytes.resize(need, 0);

  const uint32_t base = binding.base_mip_level;
  const uint64_t base_offset = ImageLevelOffset(*buf, base);
  desc->bound = true;
  desc->data = bytes.data() + base_offset;
  desc->size = bytes.size() - base_offset;
  desc->writable = binding.kind == scene::BindingKind::kStorageImage;
  desc->width = std::max(1u, e.width >> base);
  desc->samples = std::max(buf->samples, 1u);
  desc->mip_levels = levels - base;
  if (buf->dim == scene::ImageDim::k3D) {
    desc->height = std::max(1u, e.height >> base);
    desc->depth = std::max(1u, e.depth >> base);
    desc->layers = 1;
  } else if (buf->dim == scene::ImageDim::k1D) {
    desc->height = 1;
    desc->layers = e.layers;
  } else {
    desc->height = std::max(1u, e.height >> base);
    desc->layers = e.layers;
  }
  (void)arrayed;  // a non-arrayed view reads layer 0
  for (uint32_t l = 0; l < desc->mip_levels; ++l) {
    desc->level_offset[l] = ImageLevelOffset(*buf, base + l) - base_offset;
  }
  return {};
}

}  // namespace warpsim::runner
