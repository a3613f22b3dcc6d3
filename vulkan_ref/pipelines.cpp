#include "vulkan_ref/pipelines.h"

#include <array>
#include <map>

namespace warpsim::vkref {
namespace {

// Index in the list = the Vulkan enum value (the lists follow the spec's
// enum order, as Amber's names do).
template <size_t N>
std::optional<int> IndexOf(const std::array<const char*, N>& names,
                           const std::string& name) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<int>(i);
  }
  return std::nullopt;
}

constexpr std::array<const char*, 8> kCompareOps = {"never",
                                                    "less",
                                                    "equal",
                                                    "less_or_equal",
                                                    "greater",
                                                    "not_equal",
                                                    "greater_or_equal",
                                                    "always"};
constexpr std::array<const char*, 8> kStencilOps = {"keep",
                                                    "zero",
                                                    "replace",
                                                    "increment_and_clamp",
                                                    "decrement_and_clamp",
                                                    "invert",
                                                    "increment_and_wrap",
                                                    "decrement_and_wrap"};
constexpr std::array<const char*, 19> kBlendFactors = {
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
constexpr std::array<const char*, 5> kBlendOps = {
    "add", "subtract", "reverse_subtract", "min", "max"};

}  // namespace

Result<VkPrimitiveTopology> TopologyOf(const std::string& name) {
  static const std::map<std::string, VkPrimitiveTopology> kTopologies = {
      {"point_list", VK_PRIMITIVE_TOPOLOGY_POINT_LIST},
      {"line_list", VK_PRIMITIVE_TOPOLOGY_LINE_LIST},
      {"line_strip", VK_PRIMITIVE_TOPOLOGY_LINE_STRIP},
      {"triangle_list", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST},
      {"triangle_strip", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP},
      {"triangle_fan", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN},
  };
  auto it = kTopologies.find(name);
  if (it != kTopologies.end()) return it->second;
  if (name == "patch_list") {
    return Unsupported("tessellation (topology patch_list) in warpsim-vkref");
  }
  if (name.find("adjacency") != std::string::npos) {
    return Unsupported("topology " + name +
                       " (geometry shaders) in "
                       "warpsim-vkref");
  }
  return InvalidInput("unknown topology " + name);
}

Result<VkCompareOp> CompareOpOf(const std::string& name) {
  if (auto i = IndexOf(kCompareOps, name)) return static_cast<VkCompareOp>(*i);
  return InvalidInput("unknown compare op " + name);
}

Result<VkStencilOp> StencilOpOf(const std::string& name) {
  if (auto i = IndexOf(kStencilOps, name)) return static_cast<VkStencilOp>(*i);
  return InvalidInput("unknown stencil op " + name);
}

Result<VkBlendFactor> BlendFactorOf(const std::string& name) {
  if (auto i = IndexOf(kBlendFactors, name)) {
    return static_cast<VkBlendFactor>(*i);
  }
  return InvalidInput("unknown blend factor " + name);
}

Result<VkBlendOp> BlendOpOf(const std::string& name) {
  if (auto i = IndexOf(kBlendOps, name)) return static_cast<VkBlendOp>(*i);
  return Unsupported("blend op " + name + " in warpsim-vkref");
}

Result<VkPolygonMode> PolygonModeOf(const std::string& name) {
  if (name == "fill") return VK_POLYGON_MODE_FILL;
  if (name == "line") return VK_POLYGON_MODE_LINE;
  if (name == "point") return VK_POLYGON_MODE_POINT;
  return InvalidInput("unknown POLYGON_MODE " + name);
}

Result<VkCullModeFlags> CullModeOf(const std::string& name) {
  if (name == "none") return VkCullModeFlags{VK_CULL_MODE_NONE};
  if (name == "front") return VkCullModeFlags{VK_CULL_MODE_FRONT_BIT};
  if (name == "back") return VkCullModeFlags{VK_CULL_MODE_BACK_BIT};
  if (name == "front_and_back")
    return VkCullModeFlags{VK_CULL_MODE_FRONT_AND_BACK};
  return InvalidInput("unknown CULL_MODE " + name);
}

Result<VkFrontFace> FrontFaceOf(const std::string& name) {
  if (name == "counter_clockwise") return VK_FRONT_FACE_COUNTER_CLOCKWISE;
  if (name == "clockwise") return VK_FRONT_FACE_CLOCKWISE;
  return InvalidInput("unknown FRONT_FACE " + name);
}

VkShaderStageFlagBits StageBit(scene::ShaderStage stage) {
  switch (stage) {
    case scene::ShaderStage::kVertex:
      return VK_SHADER_STAGE_VERTEX_BIT;
    case scene::ShaderStage::kFragment:
      return VK_SHADER_STAGE_FRAGMENT_BIT;
    case scene::ShaderStage::kGeometry:
      return VK_SHADER_STAGE_GEOMETRY_BIT;
    case scene::ShaderStage::kTessControl:
      return VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT;
    case scene::ShaderStage::kTessEvaluation:
      return VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT;
    default:
      return VK_SHADER_STAGE_COMPUTE_BIT;
  }
}

Result<VkSampler> CreateSampler(const Device& device, const scene::Sampler& s) {
  auto filter = [](const std::string& n) -> Result<VkFilter> {
    if (n == "nearest") return VK_FILTER_NEAREST;
    if (n == "linear") return VK_FILTER_LINEAR;
    return InvalidInput("unknown filter " + n);
  };
  auto address = [](const std::string& n) -> Result<VkSamplerAddressMode> {
    if (n == "repeat") return VK_SAMPLER_ADDRESS_MODE_REPEAT;
    if (n == "mirrored_repeat") return VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT;
    if (n == "clamp_to_edge") return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    if (n == "clamp_to_border") return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
    if (n == "mirror_clamp_to_edge")
      return VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE;
    return InvalidInput("unknown address mode " + n);
  };
  static const std::map<std::string, VkBorderColor> kBorders = {
      {"float_transparent_black", VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK},
      {"int_transparent_black", VK_BORDER_COLOR_INT_TRANSPARENT_BLACK},
      {"float_opaque_black", VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK},
      {"int_opaque_black", VK_BORDER_COLOR_INT_OPAQUE_BLACK},
      {"float_opaque_white", VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE},
      {"int_opaque_white", VK_BORDER_COLOR_INT_OPAQUE_WHITE},
  };
  auto mag = filter(s.mag_filter);
  auto min = filter(s.min_filter);
  auto mip = filter(s.mipmap_mode);
  auto u = address(s.address_mode_u);
  auto v = address(s.address_mode_v);
  auto w = address(s.address_mode_w);
  auto cmp = CompareOpOf(s.compare_op);
  for (const Diagnostic* d :
       {mag.ok() ? nullptr : &mag.error(), min.ok() ? nullptr : &min.error(),
        mip.ok() ? nullptr : &mip.error(), u.ok() ? nullptr : &u.error(),
        v.ok() ? nullptr : &v.error(), w.ok() ? nullptr : &w.error(),
        cmp.ok() ? nullptr : &cmp.error()}) {
    if (d != nullptr) return *d;
  }
  auto border = kBorders.find(s.border_color);
  if (border == kBorders.end()) {
    return InvalidInput("unknown border color " + s.border_color);
  }
  VkSamplerCreateInfo ci{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  ci.magFilter = *mag;
  ci.minFilter = *min;
  ci.mipmapMode = *mip == VK_FILTER_LINEAR ? VK_SAMPLER_MIPMAP_MODE_LINEAR
                                           : VK_SAMPLER_MIPMAP_MODE_NEAREST;
  ci.addressModeU = *u;
  ci.addressModeV = *v;
  ci.addressModeW = *w;
  ci.borderColor = border->second;
  ci.minLod = s.min_lod;
  ci.maxLod = s.max_lod;
  ci.unnormalizedCoordinates = s.normalized_coords ? VK_FALSE : VK_TRUE;
  ci.compareEnable = s.compare_enable ? VK_TRUE : VK_FALSE;
  ci.compareOp = *cmp;
  VkSampler sampler = VK_NULL_HANDLE;
  if (VkResult r = vkCreateSampler(device.device(), &ci, nullptr, &sampler);
      r != VK_SUCCESS) {
    return VkError(r, "vkCreateSampler " + s.name);
  }
  return sampler;
}

Result<FixedFunction> FixedFunctionOf(const scene::Pipeline& p) {
  FixedFunction f;
  auto polygon = PolygonModeOf(p.polygon_mode);
  if (!polygon.ok()) return polygon.error();
  auto cull = CullModeOf(p.cull_mode);
  if (!cull.ok()) return cull.error();
  auto front = FrontFaceOf(p.front_face);
  if (!front.ok()) return front.error();
  f.raster.polygonMode = *polygon;
  f.raster.cullMode = *cull;
  f.raster.frontFace = *front;
  f.raster.lineWidth = 1.0f;
  f.raster.depthClampEnable = p.depth.clamp ? VK_TRUE : VK_FALSE;
  f.raster.depthBiasEnable = p.depth.bias ? VK_TRUE : VK_FALSE;
  f.raster.depthBiasConstantFactor = p.depth.bias_constant;
  f.raster.depthBiasClamp = p.depth.bias_clamp;
  f.raster.depthBiasSlopeFactor = p.depth.bias_slope;

  auto depth_op = CompareOpOf(p.depth.compare_op);
  if (!depth_op.ok()) return depth_op.error();
  f.depth.depthTestEnable = p.depth.test ? VK_TRUE : VK_FALSE;
  f.depth.depthWriteEnable = p.depth.write ? VK_TRUE : VK_FALSE;
  f.depth.depthCompareOp = *depth_op;
  f.depth.depthBoundsTestEnable = p.depth.bounds_test ? VK_TRUE : VK_FALSE;
  f.depth.minDepthBounds = p.depth.bounds_min;
  f.depth.maxDepthBounds = p.depth.bounds_max;
  f.depth.stencilTestEnable = p.stencil.test ? VK_TRUE : VK_FALSE;
  for (int i = 0; i < 2; ++i) {
    const scene::StencilFace& in = i == 0 ? p.stencil.front : p.stencil.back;
    VkStencilOpState& out = i == 0 ? f.depth.front : f.depth.back;
    auto fail = StencilOpOf(in.fail_op);
    auto pass = StencilOpOf(in.pass_op);
    auto depth_fail = StencilOpOf(in.depth_fail_op);
    auto cmp = CompareOpOf(in.compare_op);
    if (!fail.ok()) return fail.error();
    if (!pass.ok()) return pass.error();
    if (!depth_fail.ok()) return depth_fail.error();
    if (!cmp.ok()) return cmp.error();
    out = {*fail,           *pass,         *depth_fail, *cmp,
           in.compare_mask, in.write_mask, in.reference};
  }

  const scene::BlendState& b = p.blend;
  auto sc = BlendFactorOf(b.src_color_factor);
  auto dc = BlendFactorOf(b.dst_color_factor);
  auto sa = BlendFactorOf(b.src_alpha_factor);
  auto da = BlendFactorOf(b.dst_alpha_factor);
  auto co = BlendOpOf(b.color_op);
  auto ao = BlendOpOf(b.alpha_op);
  for (const Diagnostic* d :
       {sc.ok() ? nullptr : &sc.error(), dc.ok() ? nullptr : &dc.error(),
        sa.ok() ? nullptr : &sa.error(), da.ok() ? nullptr : &da.error(),
        co.ok() ? nullptr : &co.error(), ao.ok() ? nullptr : &ao.error()}) {
    if (d != nullptr) return *d;
  }
  f.blend.blendEnable = b.enabled ? VK_TRUE : VK_FALSE;
  f.blend.srcColorBlendFactor = *sc;
  f.blend.dstColorBlendFactor = *dc;
  f.blend.colorBlendOp = *co;
  f.blend.srcAlphaBlendFactor = *sa;
  f.blend.dstAlphaBlendFactor = *da;
  f.blend.alphaBlendOp = *ao;
  f.blend.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                           VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;

  if (p.viewport) {
    f.viewport = {p.viewport->x,         p.viewport->y,
                  p.viewport->width,     p.viewport->height,
                  p.viewport->min_depth, p.viewport->max_depth};
  } else {
    f.viewport = {0,
                  0,
                  static_cast<float>(p.framebuffer_width),
                  static_cast<float>(p.framebuffer_height),
                  0,
                  1};
  }
  f.scissor = {{0, 0}, {p.framebuffer_width, p.framebuffer_height}};
  return f;
}

Status CollectExecutableStatistics(const Device& device, VkPipeline pipeline,
                                   std::vector<DevicePipelineReport*> reports) {
  if (!device.executable_properties()) return {};
  auto get_props = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
      device.Proc("vkGetPipelineExecutablePropertiesKHR"));
  auto get_stats = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
      device.Proc("vkGetPipelineExecutableStatisticsKHR"));
  if (get_props == nullptr || get_stats == nullptr) return {};
  VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  info.pipeline = pipeline;
  uint32_t count = 0;
  if (VkResult r = get_props(device.device(), &info, &count, nullptr);
      r != VK_SUCCESS) {
    return VkError(r, "vkGetPipelineExecutablePropertiesKHR");
  }
  std::vector<VkPipelineExecutablePropertiesKHR> props(
      count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  get_props(device.device(), &info, &count, props.data());
  for (uint32_t e = 0; e < count; ++e) {
    VkPipelineExecutableInfoKHR ei{
        VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    ei.pipeline = pipeline;
    ei.executableIndex = e;
    uint32_t n = 0;
    get_stats(device.device(), &ei, &n, nullptr);
    std::vector<VkPipelineExecutableStatisticKHR> stats(
        n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    get_stats(device.device(), &ei, &n, stats.data());
    for (DevicePipelineReport* rep : reports) {
      scene::ShaderStage st = scene::ShaderStage::kCompute;
      if (rep->stage == "vertex") st = scene::ShaderStage::kVertex;
      if (rep->stage == "fragment") st = scene::ShaderStage::kFragment;
      if (!(props[e].stages & StageBit(st))) continue;
      // A driver may split a stage into several executables: keep them
      // all, the name tells them apart.
      if (!rep->executable_name.empty()) rep->executable_name += "; ";
      rep->executable_name += props[e].name;
      rep->subgroup_size = props[e].subgroupSize;
      for (const auto& s : stats) {
        ExecutableStatistic out;
        out.name = s.name;
        out.description = s.description;
        switch (s.format) {
          case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
            out.value = s.value.b32 == VK_TRUE;
            break;
          case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
            out.value = s.value.i64;
            break;
          case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
            out.value = s.value.u64;
            break;
          default:
            out.value = s.value.f64;
            break;
        }
        rep->statistics.push_back(out);
      }
    }
  }
  return {};
}

}  // namespace warpsim::vkref
