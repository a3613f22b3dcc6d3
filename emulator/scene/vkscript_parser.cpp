// VkScript sections → Scene (see vkscript_parser.h); the [test] commands are
// in vkscript_commands.cpp.
#include "scene/vkscript_parser.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>

#include "scene/buffer_data.h"
#include "scene/vkscript_builder.h"
#include "scene/vkscript_lexer.h"

namespace warpsim::scene {
namespace vkscript {
namespace {

// Vulkan 1.0 feature names [require] accepts without a structure prefix
// (VkPhysicalDeviceFeatures members).
const std::set<std::string>& CoreFeatureNames() {
  static const std::set<std::string> kNames = {
      "robustBufferAccess",
      "fullDrawIndexUint32",
      "imageCubeArray",
      "independentBlend",
      "geometryShader",
      "tessellationShader",
      "sampleRateShading",
      "dualSrcBlend",
      "logicOp",
      "multiDrawIndirect",
      "drawIndirectFirstInstance",
      "depthClamp",
      "depthBiasClamp",
      "fillModeNonSolid",
      "depthBounds",
      "wideLines",
      "largePoints",
      "alphaToOne",
      "multiViewport",
      "samplerAnisotropy",
      "textureCompressionETC2",
      "textureCompressionASTC_LDR",
      "textureCompressionBC",
      "occlusionQueryPrecise",
      "pipelineStatisticsQuery",
      "vertexPipelineStoresAndAtomics",
      "fragmentStoresAndAtomics",
      "shaderTessellationAndGeometryPointSize",
      "shaderImageGatherExtended",
      "shaderStorageImageExtendedFormats",
      "shaderStorageImageMultisample",
      "shaderStorageImageReadWithoutFormat",
      "shaderStorageImageWriteWithoutFormat",
      "shaderUniformBufferArrayDynamicIndexing",
      "shaderSampledImageArrayDynamicIndexing",
      "shaderStorageBufferArrayDynamicIndexing",
      "shaderStorageImageArrayDynamicIndexing",
      "shaderClipDistance",
      "shaderCullDistance",
      "shaderFloat64",
      "shaderInt64",
      "shaderInt16",
      "shaderResourceResidency",
      "shaderResourceMinLod",
      "sparseBinding",
      "sparseResidencyBuffer",
      "sparseResidencyImage2D",
      "sparseResidencyImage3D",
      "sparseResidency2Samples",
      "sparseResidency4Samples",
      "sparseResidency8Samples",
      "sparseResidency16Samples",
      "sparseResidencyAliased",
      "variableMultisampleRate",
      "inheritedQueries",
  };
  return kNames;
}

// A fragment shader without outputs, for graphics pipelines that have none.
constexpr char kEmptyFragmentShader[] = "#version 430\nvoid main() {}\n";

}  // namespace

bool PipelineState::operator==(const PipelineState& o) const {
  auto depth_tuple = [](const DepthState& d) {
    return std::tie(d.test, d.write, d.clamp, d.compare_op, d.bounds_test,
                    d.bounds_min, d.bounds_max, d.bias, d.bias_constant,
                    d.bias_clamp, d.bias_slope);
  };
  auto face_tuple = [](const StencilFace& f) {
    return std::tie(f.fail_op, f.pass_op, f.depth_fail_op, f.compare_op,
                    f.compare_mask, f.write_mask, f.reference);
  };
  auto blend_tuple = [](const BlendState& b) {
    return std::tie(b.enabled, b.src_color_factor, b.dst_color_factor,
                    b.color_op, b.src_alpha_factor, b.dst_alpha_factor,
                    b.alpha_op);
  };
  return depth_tuple(depth) == depth_tuple(o.depth) &&
         stencil.test == o.stencil.test &&
         face_tuple(stencil.front) == face_tuple(o.stencil.front) &&
         face_tuple(stencil.back) == face_tuple(o.stencil.back) &&
         blend_tuple(blend) == blend_tuple(o.blend) &&
         cull_mode == o.cull_mode && front_face == o.front_face &&
         polygon_mode == o.polygon_mode && entry_points == o.entry_points;
}

Builder::Builder(std::string file) : file_(std::move(file)) {
  color_format_ = *ParseVulkanFormat("B8G8R8A8_UNORM");
}

Diagnostic Builder::Error(int line, const std::string& msg) const {
  return InvalidInput(msg, SourcePos{file_, line});
}

Diagnostic Builder::Unsup(int line, const std::string& msg) const {
  return Unsupported(msg, SourcePos{file_, line});
}

Result<Scene> Builder::Build(std::string_view text) {
  scene_.file_path = file_;
  auto sections = SplitSections(text, file_);
  if (!sections.ok()) return sections.error();
  for (const Section& sec : *sections) {
    if (sec.kind == SectionKind::kShader) {
      if (sec.stage == ShaderStage::kCompute) {
        has_compute_shader_ = true;
      } else {
        graphics_ = true;
      }
    }
  }
  // Sections that describe resources first, then the commands, so that a
  // command sees the framebuffer format and size whatever the order.
  for (const Section& sec : *sections) {
    Status s;
    switch (sec.kind) {
      case SectionKind::kShader:
        s = AddShader(sec);
        break;
      case SectionKind::kRequire:
        s = ParseRequire(sec);
        break;
      case SectionKind::kVertexData:
        s = ParseVertexData(sec);
        break;
      case SectionKind::kIndices:
        s = ParseIndices(sec);
        break;
      case SectionKind::kTest:
      case SectionKind::kComment:
        break;
    }
    if (!s.ok()) return s.error();
  }
  if (graphics_ && has_compute_shader_) {
    for (const Section& sec : *sections) {
      if (sec.kind == SectionKind::kShader &&
          sec.stage == ShaderStage::kCompute) {
        return Error(sec.header_line,
                     "a compute shader cannot be combined with graphics "
                     "shaders in one VkScript file");
      }
    }
  }
  for (const Section& sec : *sections) {
    if (sec.kind != SectionKind::kTest) continue;
    if (Status s = ParseTest(sec); !s.ok()) return s.error();
  }
  if (Status s = Finish(); !s.ok()) return s.error();
  return std::move(scene_);
}

Status Builder::AddShader(const Section& sec) {
  for (const ShaderAttachment& a : attachments_) {
    if (a.stage == sec.stage) {
      return Error(sec.header_line,
                   std::string("a second ") + ShaderStageName(sec.stage) +
                       " shader section; VkScript allows one per stage");
    }
  }
  Shader sh;
  sh.name = "vk_shader_" + std::to_string(scene_.shaders.size());
  sh.stage = sec.stage;
  sh.format = sec.format;
  sh.passthrough = sec.passthrough;
  sh.line = sec.header_line;
  sh.source_line = sec.header_line + 1;
  if (!sec.passthrough) sh.source = SectionText(sec);
  ShaderAttachment att;
  att.shader = sh.name;
  att.stage = sh.stage;
  att.line = sec.header_line;
  attachments_.push_back(std::move(att));
  scene_.shaders.push_back(std::move(sh));
  return {};
}

Status Builder::ParseRequire(const Section& sec) {
  for (const WordLine& wl : SectionWordLines(sec)) {
    const std::string& w = wl.words[0];
    size_t want = 1;
    if (w == "framebuffer" || w == "depthstencil") {
      want = 2;
      if (wl.words.size() < 2)
        return Error(wl.line, "expected a format after " + w);
      auto f = ParseVulkanFormat(wl.words[1]);
      if (!f) {
        return Error(wl.line, "unknown " + w + " format '" + wl.words[1] + "'");
      }
      if (w == "framebuffer") {
        color_format_ = *f;
      } else {
        if (depth_format_) {
          return Error(wl.line, "only one depthstencil line is allowed");
        }
        depth_format_ = *f;
        depth_line_ = wl.line;
      }
    } else if (w == "fbsize") {
      want = 3;
      if (wl.words.size() < 3)
        return Error(wl.line, "expected a width and a height after fbsize");
      for (int k = 1; k <= 2; ++k) {
        auto v = ParseIntWord(wl.words[k]);
        if (!v || *v <= 0 || *v > 16384) {
          return Error(wl.line, std::string("expected a framebuffer ") +
                                    (k == 1 ? "width" : "height") +
                                    " in 1..16384 after fbsize, got '" +
                                    wl.words[k] + "'");
        }
        (k == 1 ? fb_width_ : fb_height_) = static_cast<uint32_t>(*v);
      }
    } else if (w == "fence_timeout") {
      want = 2;
      auto v = wl.words.size() > 1 ? ParseIntWord(wl.words[1]) : std::nullopt;
      if (!v || *v < 0 || *v > UINT32_MAX) {
        return Error(wl.line, "expected milliseconds after fence_timeout");
      }
      scene_.engine_data["fence_timeout_ms"] = static_cast<uint64_t>(*v);
    } else if (CoreFeatureNames().count(w) ||
               w.find('.') != std::string::npos) {
      // Core features, and Struct.member features of newer structures.
      size_t dot = w.find('.');
      if (dot != std::string::npos &&
          (dot == 0 || dot + 1 == w.size() ||
           w.find('.', dot + 1) != std::string::npos)) {
        return Error(wl.line, "malformed feature name '" + w +
                                  "'; expected Structure.member");
      }
      scene_.device_features.push_back(w);
    } else {
      for (char c : w) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') {
          return Error(wl.line, "unknown feature or extension '" + w + "'");
        }
      }
      scene_.device_extensions.push_back(w);
    }
    if (wl.words.size() > want) {
      return Error(wl.line, "unexpected '" + wl.words[want] + "' after " + w);
    }
  }
  return {};
}

Status Builder::ParseVertexData(const Section& sec) {
  std::vector<WordLine> lines = SectionWordLines(sec);
  if (lines.empty()) return {};
  if (!vertex_data_.empty()) {
    return Error(sec.header_line, "a second [vertex data] section");
  }
  struct Column {
    uint32_t location;
    ElementFormat format;
    std::vector<Number> values;
  };
  std::vector<Column> columns;
  const WordLine& header = lines[0];
  for (const std::string& cell : header.words) {
    size_t slash = cell.find('/');
    auto loc = slash == std::string::npos ? std::nullopt
                                          : ParseIntWord(cell.substr(0, slash));
    if (!loc || *loc < 0 || *loc > 255) {
      return Error(header.line, "vertex data header cell '" + cell +
                                    "' is not location/FORMAT");
    }
    std::string fmt = cell.substr(slash + 1);
    if (fmt.find('/') != std::string::npos) {
      return Unsup(header.line,
                   "VkScript vertex data header in the gl_type/glsl_type form "
                   "('" +
                       cell + "')");
    }
    auto f = ParseVulkanFormat(fmt);
    if (!f) {
      return Error(header.line,
                   "unknown format '" + fmt + "' in the vertex data header");
    }
    for (const Column& c : columns) {
      if (c.location == static_cast<uint32_t>(*loc)) {
        return Error(header.line, "vertex data location " +
                                      std::to_string(*loc) + " given twice");
      }
    }
    columns.push_back({static_cast<uint32_t>(*loc), *f, {}});
  }
  size_t row_cells = 0;
  for (const Column& c : columns) row_cells += c.format.ValuesPerElement();
  for (size_t li = 1; li < lines.size(); ++li) {
    const WordLine& wl = lines[li];
    if (wl.words.size() % row_cells != 0) {
      return Error(wl.line, "vertex data row has " +
                                std::to_string(wl.words.size()) +
                                " values; the header needs " +
                                std::to_string(row_cells) + " per row");
    }
    size_t at = 0;
    while (at < wl.words.size()) {
      for (Column& c : columns) {
        for (uint32_t k = 0; k < c.format.ValuesPerElement(); ++k) {
          const std::string& w = wl.words[at++];
          bool is_float =
              !c.format.pack_bits && c.format.components[k].is_float();
          if (is_float) {
            auto v = ParseFloatWord(w);
            if (!v) return Error(wl.line, "expected a number, got '" + w + "'");
            c.values.push_back(Number::Float(*v));
          } else {
            auto v = ParseIntWord(w);
            if (!v) {
              return Error(wl.line, "expected an integer for " + c.format.name +
                                        ", got '" + w + "'");
            }
            c.values.push_back(Number::Int(*v));
          }
        }
      }
    }
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    Column& c = columns[i];
    Buffer b;
    b.name = "Vertices" + std::to_string(i);
    b.line = header.line;
    b.format = c.format;
    b.from_format_keyword = true;
    b.element_count = c.values.size() / c.format.ValuesPerElement();
    auto bytes = PackValues(c.format, c.values);
    if (!bytes.ok()) return Error(header.line, bytes.error().message);
    b.bytes = std::move(*bytes);
    VertexData vd;
    vd.buffer = b.name;
    vd.location = c.location;
    vd.line = header.line;
    vertex_data_.push_back(vd);
    scene_.buffers.push_back(std::move(b));
  }
  return {};
}

Status Builder::ParseIndices(const Section& sec) {
  std::vector<Number> values;
  int first_line = 0;
  for (const WordLine& wl : SectionWordLines(sec)) {
    if (first_line == 0) first_line = wl.line;
    for (const std::string& w : wl.words) {
      auto v = ParseIntWord(w);
      if (!v || *v < 0) {
        return Error(wl.line, "expected an index (an integer 0..65535), got '" +
                                  w + "'");
      }
      if (*v > 65535) {
        return Error(wl.line, "index " + w + " is larger than 65535");
      }
      values.push_back(Number::Int(*v));
    }
  }
  if (values.empty()) return {};
  if (has_indices_) return Error(sec.header_line, "a second [indices] section");
  has_indices_ = true;
  Buffer b;
  b.name = "indices";
  b.line = first_line;
  b.format = *ParseVulkanFormat("R32_UINT");
  b.from_format_keyword = true;
  b.element_count = values.size();
  auto bytes = PackValues(b.format, values);
  if (!bytes.ok()) return Error(first_line, bytes.error().message);
  b.bytes = std::move(*bytes);
  scene_.buffers.push_back(std::move(b));
  return {};
}

Status Builder::Finish() {
  // Buffers addressed by binding: the first explicit type, sized for every
  // command, with the writes made before the first command.
  for (Resource& r : resources_) {
    Buffer b;
    b.name = r.buffer;
    b.line = r.line;
    b.format = r.format ? *r.format : *ParseVulkanFormat("R8_SINT");
    uint64_t bytes = std::max(r.max_bytes, r.size_elements * b.format.stride);
    if (bytes > kMaxBufferBytes) {
      return Error(r.line, "buffer of " + std::to_string(bytes) +
                               " bytes exceeds the limit of " +
                               std::to_string(kMaxBufferBytes) + " bytes");
    }
    b.element_count = b.format.stride ? bytes / b.format.stride : 0;
    b.bytes.assign(bytes, 0);
    for (const auto& [offset, data] : r.initial_writes) {
      std::copy(data.begin(), data.end(), b.bytes.begin() + offset);
    }
    scene_.buffers.push_back(std::move(b));
  }
  if (graphics_) {
    Buffer fb;
    fb.name = kColorBufferName;
    fb.format = color_format_;
    fb.from_format_keyword = true;
    fb.width = fb_width_;
    fb.height = fb_height_;
    fb.dim = ImageDim::k2D;
    fb.element_count = uint64_t{fb_width_} * fb_height_;
    auto bytes = CheckedBufferBytes(fb.format, fb.element_count);
    if (!bytes.ok()) return Error(0, bytes.error().message);
    fb.bytes.assign(*bytes, 0);
    scene_.buffers.push_back(std::move(fb));
    if (depth_format_) {
      Buffer db;
      db.name = kDepthBufferName;
      db.line = depth_line_;
      db.format = *depth_format_;
      db.from_format_keyword = true;
      db.width = fb_width_;
      db.height = fb_height_;
      db.dim = ImageDim::k2D;
      db.element_count = uint64_t{fb_width_} * fb_height_;
      auto dbytes = CheckedBufferBytes(db.format, db.element_count);
      if (!dbytes.ok()) return Error(depth_line_, dbytes.error().message);
      db.bytes.assign(*dbytes, 0);
      scene_.buffers.push_back(std::move(db));
    }
    bool has_fragment = false, has_vertex = false;
    for (const ShaderAttachment& a : attachments_) {
      has_fragment |= a.stage == ShaderStage::kFragment;
      has_vertex |= a.stage == ShaderStage::kVertex;
    }
    if (!has_vertex) {
      return Error(attachments_.front().line,
                   "a graphics pipeline needs a [vertex shader] section (or "
                   "[vertex shader passthrough])");
    }
    if (!has_fragment) {
      Shader sh;
      sh.name = "vk_shader_" + std::to_string(scene_.shaders.size());
      sh.stage = ShaderStage::kFragment;
      sh.format = ShaderFormat::kGlsl;
      sh.source = kEmptyFragmentShader;
      ShaderAttachment att;
      att.shader = sh.name;
      att.stage = sh.stage;
      attachments_.push_back(std::move(att));
      scene_.shaders.push_back(std::move(sh));
    }
  }
  // Pipelines: one per distinct state the commands used (at least one when
  // there are shaders), all sharing every binding.
  if (variants_.empty() && !attachments_.empty()) {
    variants_.emplace_back(kPipelineName, state_);
  }
  for (const auto& [name, st] : variants_) {
    Pipeline p;
    p.name = name;
    p.type = graphics_ ? PipelineType::kGraphics : PipelineType::kCompute;
    p.framebuffer_width = fb_width_;
    p.framebuffer_height = fb_height_;
    p.shaders = attachments_;
    for (ShaderAttachment& a : p.shaders) {
      auto it = st.entry_points.find(a.stage);
      if (it != st.entry_points.end()) a.entry_point = it->second;
    }
    for (const Resource& r : resources_) {
      Binding b;
      b.kind = r.kind;
      b.buffers.push_back(r.buffer);
      b.line = r.line;
      if (r.kind != BindingKind::kPushConstant) {
        b.descriptor_set = r.set;
        b.binding = r.binding;
        b.has_descriptor = true;
      }
      p.bindings.push_back(std::move(b));
    }
    if (graphics_) {
      Binding color;
      color.kind = BindingKind::kColor;
      color.buffers.push_back(kColorBufferName);
      p.bindings.push_back(std::move(color));
      if (depth_format_) {
        Binding depth;
        depth.kind = BindingKind::kDepthStencil;
        depth.buffers.push_back(kDepthBufferName);
        depth.line = depth_line_;
        p.bindings.push_back(std::move(depth));
      }
      p.vertex_data = vertex_data_;
      if (has_indices_) p.index_data = "indices";
      p.depth = st.depth;
      p.stencil = st.stencil;
      p.blend = st.blend;
      p.cull_mode = st.cull_mode;
      p.front_face = st.front_face;
      p.polygon_mode = st.polygon_mode;
    }
    scene_.pipelines.push_back(std::move(p));
  }
  return {};
}

}  // namespace vkscript

Result<Scene> ParseVkScript(std::string_view text,
                            const std::string& file_path) {
  vkscript::Builder builder(file_path);
  return builder.Build(text);
}

}  // namespace warpsim::scene
