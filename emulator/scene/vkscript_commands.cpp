// VkScript [test] commands → Scene commands (see vkscript_parser.h).
//
//   draw rect [ortho] [patch] x y w h    RunDrawRect: NDC without `ortho`,
//                                        pixels with it
//   draw arrays [indexed] [instanced] TOPOLOGY first count [instances]
//                                        (indexed: `first` is the vertex
//                                        offset added to every index)
//   compute x y z                        RunCompute
//   clear | clear color r g b a | clear depth d | clear stencil s
//   ssbo B size | ssbo B subdata TYPE off values...   (std430)
//   uniform ubo B TYPE off values...                  (std140)
//   uniform TYPE off values...                        (push constants, std430)
//   probe ssbo TYPE B off OP values...   EXPECT buf IDX off OP values;
//                                        OP is == != < <= > >= or ~= (equal
//                                        within `tolerance`)
//   [relative] probe [rect] rgb|rgba (x, y[, w, h]) (r, g, b[, a])
//   probe all rgb|rgba r g b [a]         EXPECT framebuffer EQ_RGB(A)
//   tolerance t | tolerance t0 t1 t2 t3  (each "n" or "n%")
//   <stage> entrypoint NAME              entry point for later runs
//   depthTestEnable true, cullMode VK_CULL_MODE_BACK_BIT, ...   pipeline
//                                        state for later draws
//
// B is `binding` (set 0) or `set:binding`. Probe colours are 0..1 for
// normalized framebuffer formats and raw channel values otherwise; pixel
// coordinates are truncated to integers (relative ones after scaling by the
// framebuffer size), as Amber does.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "scene/buffer_data.h"
#include "scene/state_names.h"
#include "scene/vkscript_builder.h"

namespace warpsim::scene::vkscript {
namespace {

bool IsFloatComponent(const ElementFormat& f, size_t k) {
  return f.pack_bits == 0 && f.components[k].is_float();
}

// VkScript type names → AmberScript data type names.
std::optional<std::string> AmberTypeName(const std::string& t) {
  static const std::map<std::string, std::string> kScalars = {
      {"int", "int32"},     {"uint", "uint32"},     {"int8_t", "int8"},
      {"uint8_t", "uint8"}, {"int16_t", "int16"},   {"uint16_t", "uint16"},
      {"int64_t", "int64"}, {"uint64_t", "uint64"}, {"float", "float"},
      {"double", "double"},
  };
  if (auto it = kScalars.find(t); it != kScalars.end()) return it->second;
  static const std::map<std::string, std::string> kVecPrefixes = {
      {"", "float"},    {"d", "double"},   {"i", "int32"},   {"u", "uint32"},
      {"i8", "int8"},   {"u8", "uint8"},   {"i16", "int16"}, {"u16", "uint16"},
      {"i64", "int64"}, {"u64", "uint64"},
  };
  auto dim = [](char c) { return c >= '2' && c <= '4'; };
  if (size_t v = t.find("vec"); v != std::string::npos) {
    auto it = kVecPrefixes.find(t.substr(0, v));
    std::string rest = t.substr(v + 3);
    if (it == kVecPrefixes.end()) return std::nullopt;
    if (rest.empty()) rest = "4";  // "vec" is a vec4
    if (rest.size() != 1 || !dim(rest[0])) return std::nullopt;
    return "vec" + rest + "<" + it->second + ">";
  }
  if (size_t m = t.find("mat"); m != std::string::npos) {
    std::string prefix = t.substr(0, m), rest = t.substr(m + 3);
    if (prefix != "" && prefix != "d") return std::nullopt;
    const std::string elem = prefix == "d" ? "double" : "float";
    if (rest.empty()) rest = "4";  // "mat" is a mat4
    if (rest.size() == 1 && dim(rest[0])) rest = rest + "x" + rest;
    if (rest.size() != 3 || !dim(rest[0]) || rest[1] != 'x' || !dim(rest[2]))
      return std::nullopt;
    return "mat" + rest + "<" + elem + ">";
  }
  return std::nullopt;
}

std::optional<std::string> TopologyName(std::string t) {
  static const std::map<std::string, std::string> kNames = {
      {"PATCH_LIST", "patch_list"},
      {"GL_PATCHES", "patch_list"},
      {"POINT_LIST", "point_list"},
      {"GL_POINTS", "point_list"},
      {"LINE_LIST", "line_list"},
      {"GL_LINES", "line_list"},
      {"LINE_STRIP", "line_strip"},
      {"GL_LINE_STRIP", "line_strip"},
      {"LINE_LIST_WITH_ADJACENCY", "line_list_with_adjacency"},
      {"GL_LINES_ADJACENCY", "line_list_with_adjacency"},
      {"LINE_STRIP_WITH_ADJACENCY", "line_strip_with_adjacency"},
      {"GL_LINE_STRIP_ADJACENCY", "line_strip_with_adjacency"},
      {"TRIANGLE_LIST", "triangle_list"},
      {"GL_TRIANGLES", "triangle_list"},
      {"TRIANGLE_STRIP", "triangle_strip"},
      {"GL_TRIANGLE_STRIP", "triangle_strip"},
      {"TRIANGLE_FAN", "triangle_fan"},
      {"GL_TRIANGLE_FAN", "triangle_fan"},
      {"TRIANGLE_LIST_WITH_ADJACENCY", "triangle_list_with_adjacency"},
      {"GL_TRIANGLES_ADJACENCY", "triangle_list_with_adjacency"},
      {"TRIANGLE_STRIP_WITH_ADJACENCY", "triangle_strip_with_adjacency"},
      {"GL_TRIANGLE_STRIP_ADJACENCY", "triangle_strip_with_adjacency"},
  };
  const std::string kPrefix = "VK_PRIMITIVE_TOPOLOGY_";
  if (t.rfind(kPrefix, 0) == 0) t = t.substr(kPrefix.size());
  auto it = kNames.find(t);
  if (it == kNames.end()) return std::nullopt;
  return it->second;
}

// "VK_COMPARE_OP_LESS_OR_EQUAL" → "less_or_equal" when the prefix matches
// and the rest is one of `allowed`.
std::optional<std::string> VkEnumName(const std::string& w,
                                      const std::string& prefix,
                                      const std::set<std::string>& allowed) {
  if (w.rfind(prefix, 0) != 0) return std::nullopt;
  std::string s = w.substr(prefix.size());
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (!allowed.count(s)) return std::nullopt;
  return s;
}

const std::set<std::string> kLogicOps = {
    "clear",         "and",         "and_reverse", "copy",
    "and_inverted",  "no_op",       "xor",         "or",
    "nor",           "equivalent",  "invert",      "or_reverse",
    "copy_inverted", "or_inverted", "nand",        "set"};

}  // namespace

void Builder::AddCommand(int line, decltype(Command::data) data) {
  scene_.commands.push_back(Command{line, std::move(data)});
}

Result<std::string> Builder::CurrentPipeline(int line) {
  for (const auto& [name, st] : variants_) {
    if (st == state_) return name;
  }
  if (attachments_.empty()) {
    return Error(line,
                 "this command needs a pipeline, but the file has no "
                 "shader section");
  }
  std::string name = variants_.empty() ? std::string(kPipelineName)
                                       : std::string(kPipelineName) + "_" +
                                             std::to_string(variants_.size());
  variants_.emplace_back(name, state_);
  // A new pipeline starts with the clear values set so far.
  if (clear_color_set_) {
    AddCommand(line, ClearColorCommand{name, clear_color_[0], clear_color_[1],
                                       clear_color_[2], clear_color_[3]});
  }
  if (clear_depth_set_) AddCommand(line, ClearDepthCommand{name, clear_depth_});
  if (clear_stencil_set_) {
    AddCommand(line, ClearStencilCommand{name, clear_stencil_});
  }
  return name;
}

Status Builder::ParseTest(const Section& sec) {
  for (const WordLine& wl : SectionWordLines(sec)) {
    if (Status s = ParseCommand(wl); !s.ok()) return s;
  }
  return {};
}

Status Builder::ParseCommand(const WordLine& wl) {
  const std::vector<std::string>& w = wl.words;
  const std::string& cmd = w[0];
  auto word = [&](size_t i) { return i < w.size() ? w[i] : std::string(); };
  if (cmd == "draw") {
    if (word(1) == "rect") return ParseDrawRect(wl);
    if (word(1) == "arrays") return ParseDrawArrays(wl);
    return Error(wl.line, "expected 'rect' or 'arrays' after draw, got '" +
                              word(1) + "'");
  }
  if (cmd == "compute") {
    if (word(1) == "entrypoint")
      return ParseEntryPoint(wl, 2, ShaderStage::kCompute);
    return ParseCompute(wl);
  }
  if (cmd == "clear") return ParseClear(wl);
  if (cmd == "ssbo") return ParseSsbo(wl);
  if (cmd == "uniform") return ParseUniform(wl);
  if (cmd == "tolerance") return ParseTolerance(wl);
  if (cmd == "probe") {
    if (word(1) == "ssbo") return ParseProbeSsbo(wl, 2);
    return ParseProbe(wl, 1, false);
  }
  if (cmd == "relative") {
    if (word(1) != "probe") {
      return Error(wl.line,
                   "expected 'probe' after relative, got '" + word(1) + "'");
    }
    return ParseProbe(wl, 2, true);
  }
  if (cmd == "patch") {
    if (word(1) != "parameter" || word(2) != "vertices" ||
        !ParseIntWord(word(3)) || w.size() != 4) {
      return Error(wl.line, "expected 'patch parameter vertices N'");
    }
    return Unsup(wl.line, "patch parameter vertices (tessellation)");
  }
  if (cmd == "vertex" || cmd == "fragment" || cmd == "geometry" ||
      cmd == "tessellation") {
    ShaderStage st = cmd == "vertex"     ? ShaderStage::kVertex
                     : cmd == "fragment" ? ShaderStage::kFragment
                                         : ShaderStage::kGeometry;
    size_t at = 1;
    if (cmd == "tessellation") {
      if (word(1) != "control" && word(1) != "evaluation") {
        return Error(wl.line,
                     "expected 'control' or 'evaluation' after "
                     "tessellation, got '" +
                         word(1) + "'");
      }
      st = word(1) == "control" ? ShaderStage::kTessControl
                                : ShaderStage::kTessEvaluation;
      at = 2;
    }
    if (word(at) != "entrypoint") {
      return Error(wl.line, "expected 'entrypoint' after '" + cmd + "'");
    }
    return ParseEntryPoint(wl, at + 1, st);
  }
  bool handled = false;
  if (Status s = ParsePipelineState(wl, &handled); !s.ok() || handled) return s;
  return Error(wl.line, "unknown VkScript command '" + cmd + "'");
}

Status Builder::ParseEntryPoint(const WordLine& wl, size_t name_at,
                                ShaderStage st) {
  if (name_at >= wl.words.size())
    return Error(wl.line, "expected an entry point name after entrypoint");
  if (wl.words.size() > name_at + 1) {
    return Error(wl.line,
                 "unexpected '" + wl.words[name_at + 1] + "' after entrypoint");
  }
  state_.entry_points[st] = wl.words[name_at];
  return {};
}

Status Builder::ParseDrawRect(const WordLine& wl) {
  if (!graphics_) {
    return Error(wl.line,
                 "draw rect needs a graphics pipeline (vertex and "
                 "fragment shader sections)");
  }
  size_t i = 2;
  bool ortho = false, patch = false;
  for (; i < wl.words.size(); ++i) {
    if (wl.words[i] == "ortho") {
      ortho = true;
    } else if (wl.words[i] == "patch") {
      patch = true;
    } else {
      break;
    }
  }
  if (wl.words.size() - i != 4) {
    return Error(wl.line,
                 "expected 'draw rect [ortho] [patch] x y width "
                 "height'");
  }
  float v[4];
  for (int k = 0; k < 4; ++k) {
    auto f = ParseFloatWord(wl.words[i + k]);
    if (!f) {
      return Error(wl.line, "expected a number in draw rect, got '" +
                                wl.words[i + k] + "'");
    }
    v[k] = static_cast<float>(*f);
  }
  if (vertex_data_.size() > 1) {
    return Error(wl.line,
                 "draw rect cannot be used when [vertex data] has "
                 "more than one attribute");
  }
  if (patch) return Unsup(wl.line, "draw rect patch (tessellation)");
  auto p = CurrentPipeline(wl.line);
  if (!p.ok()) return p.error();
  RunCommand run;
  run.pipeline = *p;
  run.draw = RunDrawRect{v[0], v[1], v[2], v[3], !ortho};
  AddCommand(wl.line, std::move(run));
  return {};
}

Status Builder::ParseDrawArrays(const WordLine& wl) {
  if (!graphics_) {
    return Error(wl.line,
                 "draw arrays needs a graphics pipeline (vertex and "
                 "fragment shader sections)");
  }
  RunDrawArray arr;
  bool instanced = false;
  size_t i = 2;
  for (; i < wl.words.size(); ++i) {
    if (wl.words[i] == "indexed") {
      arr.indexed = true;
    } else if (wl.words[i] == "instanced") {
      instanced = true;
    } else {
      break;
    }
  }
  auto topo = i < wl.words.size() ? TopologyName(wl.words[i]) : std::nullopt;
  if (!topo) {
    return Error(wl.line,
                 "expected a topology (TRIANGLE_LIST, GL_POINTS, ...) "
                 "in draw arrays");
  }
  arr.topology = *topo;
  const size_t rest = wl.words.size() - i - 1;
  if (rest != 2 && !(instanced && rest == 3)) {
    return Error(wl.line, instanced ? "expected 'first count [instances]' "
                                      "after the topology"
                                    : "expected 'first count' after the "
                                      "topology");
  }
  uint32_t n[3] = {0, 0, 1};
  for (size_t k = 0; k < rest; ++k) {
    auto v = ParseIntWord(wl.words[i + 1 + k]);
    if (!v || *v < 0 || *v > UINT32_MAX) {
      return Error(wl.line,
                   "expected a non-negative integer in draw arrays, "
                   "got '" +
                       wl.words[i + 1 + k] + "'");
    }
    n[k] = static_cast<uint32_t>(*v);
  }
  if (arr.indexed && !has_indices_) {
    return Error(wl.line, "draw arrays indexed without an [indices] section");
  }
  // Indexed: `first` offsets the vertices the indices name; the indices
  // are read from the start (Amber's vertexOffset, firstIndex 0).
  if (arr.indexed) {
    if (n[0] > INT32_MAX) {
      return Error(wl.line, "first vertex of an indexed draw must fit 31 bits");
    }
    arr.vertex_offset = static_cast<int32_t>(n[0]);
  } else {
    arr.start_index = n[0];
  }
  arr.count = n[1];
  arr.instance_count = n[2];
  auto p = CurrentPipeline(wl.line);
  if (!p.ok()) return p.error();
  RunCommand run;
  run.pipeline = *p;
  run.draw = arr;
  AddCommand(wl.line, std::move(run));
  return {};
}

Status Builder::ParseCompute(const WordLine& wl) {
  if (wl.words.size() != 4) {
    return Error(wl.line, "expected 'compute x y z'");
  }
  uint32_t n[3];
  for (int k = 0; k < 3; ++k) {
    auto v = ParseIntWord(wl.words[1 + k]);
    if (!v || *v < 0 || *v > UINT32_MAX) {
      return Error(wl.line,
                   "expected a workgroup count, got '" + wl.words[1 + k] + "'");
    }
    n[k] = static_cast<uint32_t>(*v);
  }
  if (!has_compute_shader_) {
    return Error(wl.line, "compute without a [compute shader] section");
  }
  auto p = CurrentPipeline(wl.line);
  if (!p.ok()) return p.error();
  RunCommand run;
  run.pipeline = *p;
  run.draw = RunCompute{n[0], n[1], n[2]};
  AddCommand(wl.line, std::move(run));
  return {};
}

Status Builder::ParseClear(const WordLine& wl) {
  if (!graphics_) {
    return Error(wl.line,
                 "clear needs a graphics pipeline (vertex and "
                 "fragment shader sections)");
  }
  const std::string what = wl.words.size() > 1 ? wl.words[1] : "";
  size_t want = what.empty()        ? 1
                : what == "color"   ? 6
                : what == "depth"   ? 3
                : what == "stencil" ? 3
                                    : 0;
  if (want == 0) {
    return Error(wl.line,
                 "expected clear, clear color, clear depth or clear "
                 "stencil, got 'clear " +
                     what + "'");
  }
  if (wl.words.size() != want) {
    return Error(wl.line, "expected " + std::to_string(want - 2) +
                              " value(s) after clear " + what);
  }
  auto p = CurrentPipeline(wl.line);
  if (!p.ok()) return p.error();
  if (what.empty()) {
    AddCommand(wl.line, ClearCommand{*p});
  } else if (what == "stencil") {
    auto v = ParseIntWord(wl.words[2]);
    if (!v || *v < 0 || *v > UINT32_MAX) {
      return Error(wl.line,
                   "expected a stencil value, got '" + wl.words[2] + "'");
    }
    clear_stencil_ = static_cast<uint32_t>(*v);
    clear_stencil_set_ = true;
    AddCommand(wl.line, ClearStencilCommand{*p, clear_stencil_});
  } else {
    float v[4] = {0, 0, 0, 0};
    for (size_t k = 2; k < want; ++k) {
      auto f = ParseFloatWord(wl.words[k]);
      if (!f) {
        return Error(wl.line, "expected a number after clear " + what +
                                  ", got '" + wl.words[k] + "'");
      }
      v[k - 2] = static_cast<float>(*f);
    }
    if (what == "depth") {
      clear_depth_ = v[0];
      clear_depth_set_ = true;
      AddCommand(wl.line, ClearDepthCommand{*p, v[0]});
    } else {
      std::copy(v, v + 4, clear_color_);
      clear_color_set_ = true;
      AddCommand(wl.line, ClearColorCommand{*p, v[0], v[1], v[2], v[3]});
    }
  }
  return {};
}

Result<std::pair<uint32_t, uint32_t>> Builder::ParseBinding(const WordLine& wl,
                                                            size_t at) const {
  if (at >= wl.words.size())
    return Error(wl.line, "expected a binding (B or set:B)");
  const std::string& w = wl.words[at];
  size_t colon = w.find(':');
  auto set = colon == std::string::npos ? std::optional<int64_t>(0)
                                        : ParseIntWord(w.substr(0, colon));
  auto binding =
      ParseIntWord(colon == std::string::npos ? w : w.substr(colon + 1));
  if (!set || !binding || *set < 0 || *binding < 0 || *set > UINT32_MAX ||
      *binding > UINT32_MAX) {
    return Error(wl.line, "expected a binding (B or set:B), got '" + w + "'");
  }
  return std::make_pair(static_cast<uint32_t>(*set),
                        static_cast<uint32_t>(*binding));
}

Result<ElementFormat> Builder::TypeFormat(const std::string& type,
                                          Layout layout, int line) const {
  auto name = AmberTypeName(type);
  if (!name) {
    return Error(line, "unknown VkScript data type '" + type +
                           "' (expected int, uint, float, double, "
                           "[iu][8|16|64]vecN, dvecN, matCxR, ...)");
  }
  auto f = LayoutDataType(*name, layout, scene_.structs);
  if (!f.ok()) return Error(line, f.error().message);
  f->name = type;
  return f;
}

Resource* Builder::FindResource(BindingKind kind, uint32_t set,
                                uint32_t binding) {
  for (Resource& r : resources_) {
    if (kind == BindingKind::kPushConstant) {
      if (r.kind == kind) return &r;
    } else if (r.kind != BindingKind::kPushConstant && r.set == set &&
               r.binding == binding) {
      return &r;
    }
  }
  return nullptr;
}

Resource* Builder::GetResource(BindingKind kind, uint32_t set, uint32_t binding,
                               int line) {
  if (Resource* r = FindResource(kind, set, binding)) return r;
  Resource r;
  r.kind = kind;
  r.set = set;
  r.binding = binding;
  r.line = line;
  r.buffer = kind == BindingKind::kPushConstant
                 ? kPushConstantName
                 : (kind == BindingKind::kUniform ? "ubo_" : "ssbo_") +
                       std::to_string(set) + "_" + std::to_string(binding);
  resources_.push_back(std::move(r));
  return &resources_.back();
}

Status Builder::SetResourceType(Resource* r, const std::string& type,
                                const ElementFormat& f, int line) const {
  if (!r->format) {
    r->format = f;
    r->type_name = type;
    return {};
  }
  if (r->type_name != type || r->format->layout != f.layout) {
    return Error(line, "type '" + type + "' does not match type '" +
                           r->type_name + "' used before for " + r->buffer +
                           " (a VkScript buffer has one type)");
  }
  return {};
}

Result<std::vector<Number>> Builder::ParseValues(
    const WordLine& wl, size_t first, const ElementFormat& f,
    const std::string& what) const {
  std::vector<Number> values;
  const uint32_t per = f.ValuesPerElement();
  for (size_t i = first; i < wl.words.size(); ++i) {
    const std::string& w = wl.words[i];
    const size_t k = values.size() % per;
    if (IsFloatComponent(f, k)) {
      auto v = ParseFloatWord(w);
      if (!v) {
        return Error(wl.line,
                     "expected a number for " + what + ", got '" + w + "'");
      }
      values.push_back(Number::Float(*v));
    } else {
      auto v = ParseIntWord(w);
      if (!v) {
        return Error(wl.line, "expected an integer for " + what + " of type " +
                                  f.name + ", got '" + w + "'");
      }
      values.push_back(Number::Int(*v));
    }
  }
  if (values.empty() || values.size() % f.rows != 0) {
    return Error(wl.line, what + " needs a non-zero multiple of " +
                              std::to_string(f.rows) + " values for type " +
                              f.name + ", got " +
                              std::to_string(values.size()));
  }
  return values;
}

Status Builder::WriteValues(Resource* r, const ElementFormat& f,
                            uint64_t offset, const std::vector<Number>& values,
                            int line) {
  auto packed = PackValues(f, values);
  if (!packed.ok()) return Error(line, packed.error().message);
  // Write only up to the last given value: a partial element leaves the
  // rest of the buffer as it was.
  const uint32_t per = f.ValuesPerElement();
  const size_t last = values.size() - 1;
  const Component& c =
      f.pack_bits ? PackedWordComponent(f) : f.components[last % per];
  const uint64_t used = (last / per) * f.stride + c.byte_offset +
                        (f.pack_bits ? f.pack_bits : c.bits) / 8;
  packed->resize(std::min<uint64_t>(packed->size(), used));
  const uint64_t elements = (values.size() + per - 1) / per;
  if (offset > kMaxBufferBytes || elements * f.stride > kMaxBufferBytes) {
    return Error(line, "write past the buffer size limit");
  }
  r->max_bytes = std::max(r->max_bytes, offset + elements * f.stride);
  if (scene_.commands.empty()) {
    r->initial_writes.emplace_back(offset, std::move(*packed));
  } else {
    AddCommand(line, BufferWriteCommand{r->buffer, offset, std::move(*packed)});
  }
  return {};
}

Status Builder::ParseSsbo(const WordLine& wl) {
  auto b = ParseBinding(wl, 1);
  if (!b.ok()) return b.error();
  Resource* r =
      GetResource(BindingKind::kStorage, b->first, b->second, wl.line);
  if (r->kind != BindingKind::kStorage) {
    return Error(wl.line,
                 "binding " + wl.words[1] +
                     " is a uniform buffer (uniform ubo), not an ssbo");
  }
  if (wl.words.size() > 2 && wl.words[2] == "subdata") {
    if (wl.words.size() < 6) {
      return Error(wl.line, "expected 'ssbo B subdata TYPE offset values...'");
    }
    auto f = TypeFormat(wl.words[3], Layout::kStd430, wl.line);
    if (!f.ok()) return f.error();
    if (Status s = SetResourceType(r, wl.words[3], *f, wl.line); !s.ok())
      return s;
    auto off = ParseIntWord(wl.words[4]);
    if (!off || *off < 0 || *off % f->stride != 0) {
      return Error(wl.line, "expected a byte offset that is a multiple of " +
                                std::to_string(f->stride) + " (the size of " +
                                wl.words[3] + "), got '" + wl.words[4] + "'");
    }
    auto values = ParseValues(wl, 5, *f, "ssbo subdata");
    if (!values.ok()) return values.error();
    return WriteValues(r, *f, static_cast<uint64_t>(*off), *values, wl.line);
  }
  if (wl.words.size() != 3) {
    return Error(wl.line, "expected 'ssbo B size' or 'ssbo B subdata ...'");
  }
  auto size = ParseIntWord(wl.words[2]);
  if (!size || *size < 0 || static_cast<uint64_t>(*size) > kMaxBufferBytes) {
    return Error(wl.line, "expected an element count after ssbo " +
                              wl.words[1] + ", got '" + wl.words[2] + "'");
  }
  r->size_elements = std::max(r->size_elements, static_cast<uint64_t>(*size));
  return {};
}

Status Builder::ParseUniform(const WordLine& wl) {
  const bool ubo = wl.words.size() > 1 && wl.words[1] == "ubo";
  size_t at = 1;
  Resource* r;
  if (ubo) {
    auto b = ParseBinding(wl, 2);
    if (!b.ok()) return b.error();
    r = GetResource(BindingKind::kUniform, b->first, b->second, wl.line);
    if (r->kind != BindingKind::kUniform) {
      return Error(wl.line, "binding " + wl.words[2] +
                                " is an ssbo, not a uniform buffer");
    }
    at = 3;
  } else {
    r = GetResource(BindingKind::kPushConstant, 0, 0, wl.line);
  }
  if (wl.words.size() < at + 3) {
    return Error(wl.line, ubo ? "expected 'uniform ubo B TYPE offset values...'"
                              : "expected 'uniform TYPE offset values...'");
  }
  const std::string& type = wl.words[at];
  auto f = TypeFormat(type, ubo ? Layout::kStd140 : Layout::kStd430, wl.line);
  if (!f.ok()) return f.error();
  if (Status s = SetResourceType(r, type, *f, wl.line); !s.ok()) return s;
  auto off = ParseIntWord(wl.words[at + 1]);
  if (!off || *off < 0 || *off % f->stride != 0) {
    return Error(wl.line, "expected a byte offset that is a multiple of " +
                              std::to_string(f->stride) + " (the size of " +
                              type + "), got '" + wl.words[at + 1] + "'");
  }
  auto values = ParseValues(wl, at + 2, *f, "uniform");
  if (!values.ok()) return values.error();
  return WriteValues(r, *f, static_cast<uint64_t>(*off), *values, wl.line);
}

Status Builder::ParseTolerance(const WordLine& wl) {
  std::vector<Tolerance> t;
  for (size_t i = 1; i < wl.words.size(); ++i) {
    std::string w = wl.words[i];
    if (w == ",") continue;
    if (w == "%") {
      if (t.empty() || t.back().percent) {
        return Error(wl.line, "'%' must follow a tolerance value");
      }
      t.back().percent = true;
      continue;
    }
    bool percent = !w.empty() && w.back() == '%';
    if (percent) w.pop_back();
    auto v = ParseFloatWord(w);
    if (!v || *v < 0) {
      return Error(wl.line,
                   "expected a tolerance (n or n%), got '" + wl.words[i] + "'");
    }
    t.push_back(Tolerance{*v, percent});
  }
  if (t.size() != 1 && t.size() != 4) {
    return Error(wl.line, "tolerance takes 1 or 4 values, got " +
                              std::to_string(t.size()));
  }
  tolerances_ = std::move(t);
  return {};
}

Status Builder::ParseProbeSsbo(const WordLine& wl, size_t first) {
  if (wl.words.size() < first + 5) {
    return Error(wl.line, "expected 'probe ssbo TYPE B offset OP values...'");
  }
  const std::string& type = wl.words[first];
  auto b = ParseBinding(wl, first + 1);
  if (!b.ok()) return b.error();
  Resource* r = FindResource(BindingKind::kStorage, b->first, b->second);
  if (r == nullptr) {
    return Error(wl.line, "probe ssbo of binding " + wl.words[first + 1] +
                              ", which no ssbo or uniform ubo command "
                              "declares");
  }
  auto f = TypeFormat(
      type,
      r->kind == BindingKind::kUniform ? Layout::kStd140 : Layout::kStd430,
      wl.line);
  if (!f.ok()) return f.error();
  if (Status s = SetResourceType(r, type, *f, wl.line); !s.ok()) return s;
  auto off = ParseIntWord(wl.words[first + 2]);
  if (!off || *off < 0) {
    return Error(wl.line,
                 "expected a byte offset, got '" + wl.words[first + 2] + "'");
  }
  static const std::map<std::string, Comparator> kOps = {
      {"==", Comparator::kEq}, {"~=", Comparator::kEq}, {"!=", Comparator::kNe},
      {"<", Comparator::kLt},  {"<=", Comparator::kLe}, {">", Comparator::kGt},
      {">=", Comparator::kGe}};
  const std::string& op = wl.words[first + 3];
  auto it = kOps.find(op);
  if (it == kOps.end()) {
    return Error(wl.line, "expected a comparison (== != < <= > >= ~=), got '" +
                              op + "'");
  }
  auto values = ParseValues(wl, first + 4, *f, "probe ssbo");
  if (!values.ok()) return values.error();
  ExpectCommand e;
  e.buffer = r->buffer;
  e.comparator = it->second;
  e.x = static_cast<uint64_t>(*off);
  e.values = std::move(*values);
  if (op == "~=") e.tolerances = tolerances_;
  AddCommand(wl.line, std::move(e));
  return {};
}

Status Builder::ParseProbe(const WordLine& wl, size_t first, bool relative) {
  if (!graphics_) {
    return Error(wl.line,
                 "probe of the framebuffer needs a graphics pipeline "
                 "(vertex and fragment shader sections)");
  }
  size_t i = first;
  auto word = [&](size_t k) {
    return k < wl.words.size() ? wl.words[k] : std::string();
  };
  bool rect = false, all = false;
  if (word(i) == "rect") {
    rect = true;
    ++i;
  } else if (word(i) == "all") {
    all = true;
    ++i;
  }
  if (all && relative) return Error(wl.line, "relative probe all is not valid");
  const std::string channels = word(i++);
  if (channels != "rgb" && channels != "rgba") {
    return Error(wl.line,
                 "expected rgb or rgba in probe, got '" + channels + "'");
  }
  const bool rgba = channels == "rgba";
  // n numbers, optionally in parentheses, optionally comma-separated.
  auto numbers = [&](size_t n,
                     const char* what) -> Result<std::vector<double>> {
    bool paren = word(i) == "(";
    if (paren) ++i;
    std::vector<double> out;
    while (out.size() < n) {
      if (!out.empty() && word(i) == ",") ++i;
      auto v = ParseFloatWord(word(i));
      if (!v) {
        return Error(wl.line, std::string("expected ") + std::to_string(n) +
                                  " numbers for the probe " + what + ", got '" +
                                  word(i) + "'");
      }
      out.push_back(*v);
      ++i;
    }
    if (paren) {
      if (word(i) != ")") {
        return Error(wl.line,
                     std::string("expected ')' after the probe ") + what);
      }
      ++i;
    } else if (word(i) == ")") {
      return Error(wl.line, "')' without '(' in probe");
    }
    return out;
  };
  const float fw = static_cast<float>(fb_width_);
  const float fh = static_cast<float>(fb_height_);
  ExpectCommand e;
  e.buffer = kColorBufferName;
  e.comparator = rgba ? Comparator::kEqRgba : Comparator::kEqRgb;
  e.has_y = true;
  if (all) {
    e.width = fb_width_;
    e.height = fb_height_;
  } else {
    auto pos = numbers(rect ? 4 : 2, "position");
    if (!pos.ok()) return pos.error();
    for (double v : *pos) {
      if (v < 0) {
        return Error(wl.line, "probe coordinates must not be negative");
      }
    }
    std::vector<double> p = *pos;
    if (!rect) p.insert(p.end(), {1.0, 1.0});
    // In pixels (relative: scaled by the framebuffer's size, in float as
    // the probe's coordinates are), at most 1e9 each.
    double px[4];
    for (size_t k = 0; k < 4; ++k) {
      const float v = static_cast<float>(p[k]);
      px[k] = relative ? static_cast<double>((k % 2 == 0 ? fw : fh) * v)
                       : static_cast<double>(v);
      if (!(px[k] <= 1e9)) {
        return Error(wl.line,
                     "probe coordinates must be at most 1e9 pixels (a "
                     "relative probe's times the framebuffer's size)");
      }
    }
    e.x = static_cast<uint64_t>(px[0]);
    e.y = static_cast<uint64_t>(px[1]);
    // A relative point probe is one pixel.
    e.width = rect || !relative ? static_cast<uint32_t>(px[2]) : 1;
    e.height = rect || !relative ? static_cast<uint32_t>(px[3]) : 1;
  }
  auto color = numbers(rgba ? 4 : 3, "colour");
  if (!color.ok()) return color.error();
  if (i != wl.words.size()) {
    return Error(wl.line,
                 "unexpected '" + word(i) + "' after the probe colour");
  }
  // Scene colours are in 0..255 units (see expectations.h).
  for (double c : *color) e.values.push_back(Number::Float(c * 255.0));
  const bool normalized = color_format_.IsNormalized();
  for (Tolerance t : tolerances_) {
    if (normalized && !t.percent) t.value *= 255.0;
    e.tolerances.push_back(t);
  }
  AddCommand(wl.line, std::move(e));
  return {};
}

Status Builder::ParsePipelineState(const WordLine& wl, bool* handled) {
  const std::string& cmd = wl.words[0];
  *handled = true;
  auto one = [&]() -> Result<std::string> {
    if (wl.words.size() != 2)
      return Error(wl.line, "expected one value after " + cmd);
    return wl.words[1];
  };
  auto boolean = [&]() -> Result<bool> {
    auto v = one();
    if (!v.ok()) return v.error();
    std::string s = *v;
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (s == "true") return true;
    if (s == "false") return false;
    return Error(wl.line,
                 "expected true or false after " + cmd + ", got '" + *v + "'");
  };
  auto number = [&]() -> Result<float> {
    auto v = one();
    if (!v.ok()) return v.error();
    auto f = ParseFloatWord(*v);
    if (!f) return Error(wl.line, "expected a number after " + cmd);
    return static_cast<float>(*f);
  };
  auto u32 = [&]() -> Result<uint32_t> {
    auto v = one();
    if (!v.ok()) return v.error();
    auto n = ParseIntWord(*v);
    if (!n || *n < 0 || *n > UINT32_MAX)
      return Error(wl.line, "expected an unsigned integer after " + cmd);
    return static_cast<uint32_t>(*n);
  };
  auto enumeration =
      [&](const std::string& prefix,
          const std::set<std::string>& allowed) -> Result<std::string> {
    auto v = one();
    if (!v.ok()) return v.error();
    auto e = VkEnumName(*v, prefix, allowed);
    if (!e) {
      return Error(wl.line, "unknown value '" + *v + "' for " + cmd +
                                " (expected " + prefix + "...)");
    }
    return *e;
  };
  // Booleans.
  struct BoolField {
    const char* name;
    bool* field;
  };
  const BoolField bools[] = {
      {"depthClampEnable", &state_.depth.clamp},
      {"depthBiasEnable", &state_.depth.bias},
      {"blendEnable", &state_.blend.enabled},
      {"depthTestEnable", &state_.depth.test},
      {"depthWriteEnable", &state_.depth.write},
      {"depthBoundsTestEnable", &state_.depth.bounds_test},
      {"stencilTestEnable", &state_.stencil.test},
  };
  for (const BoolField& b : bools) {
    if (cmd != b.name) continue;
    auto v = boolean();
    if (!v.ok()) return v.error();
    *b.field = *v;
    return {};
  }
  if (cmd == "primitiveRestartEnable" || cmd == "rasterizerDiscardEnable" ||
      cmd == "logicOpEnable") {
    auto v = boolean();
    if (!v.ok()) return v.error();
    if (*v) return Unsup(wl.line, cmd + " true");
    return {};
  }
  struct FloatField {
    const char* name;
    float* field;
  };
  const FloatField floats[] = {
      {"depthBiasConstantFactor", &state_.depth.bias_constant},
      {"depthBiasClamp", &state_.depth.bias_clamp},
      {"depthBiasSlopeFactor", &state_.depth.bias_slope},
      {"minDepthBounds", &state_.depth.bounds_min},
      {"maxDepthBounds", &state_.depth.bounds_max},
  };
  for (const FloatField& f : floats) {
    if (cmd != f.name) continue;
    auto v = number();
    if (!v.ok()) return v.error();
    *f.field = *v;
    return {};
  }
  if (cmd == "lineWidth") {
    auto v = number();
    if (!v.ok()) return v.error();
    if (*v != 1.0f) return Unsup(wl.line, "lineWidth other than 1.0");
    return {};
  }
  struct EnumField {
    const char* name;
    const char* prefix;
    const std::set<std::string>* allowed;
    std::string* field;
  };
  const EnumField enums[] = {
      {"depthCompareOp", "VK_COMPARE_OP_", &CompareOps(),
       &state_.depth.compare_op},
      {"front.compareOp", "VK_COMPARE_OP_", &CompareOps(),
       &state_.stencil.front.compare_op},
      {"back.compareOp", "VK_COMPARE_OP_", &CompareOps(),
       &state_.stencil.back.compare_op},
      {"front.failOp", "VK_STENCIL_OP_", &StencilOps(),
       &state_.stencil.front.fail_op},
      {"front.passOp", "VK_STENCIL_OP_", &StencilOps(),
       &state_.stencil.front.pass_op},
      {"front.depthFailOp", "VK_STENCIL_OP_", &StencilOps(),
       &state_.stencil.front.depth_fail_op},
      {"back.failOp", "VK_STENCIL_OP_", &StencilOps(),
       &state_.stencil.back.fail_op},
      {"back.passOp", "VK_STENCIL_OP_", &StencilOps(),
       &state_.stencil.back.pass_op},
      {"back.depthFailOp", "VK_STENCIL_OP_", &StencilOps(),
       &state_.stencil.back.depth_fail_op},
      {"srcColorBlendFactor", "VK_BLEND_FACTOR_", &BlendFactors(),
       &state_.blend.src_color_factor},
      {"dstColorBlendFactor", "VK_BLEND_FACTOR_", &BlendFactors(),
       &state_.blend.dst_color_factor},
      {"srcAlphaBlendFactor", "VK_BLEND_FACTOR_", &BlendFactors(),
       &state_.blend.src_alpha_factor},
      {"dstAlphaBlendFactor", "VK_BLEND_FACTOR_", &BlendFactors(),
       &state_.blend.dst_alpha_factor},
      {"colorBlendOp", "VK_BLEND_OP_", &BlendOps(), &state_.blend.color_op},
      {"alphaBlendOp", "VK_BLEND_OP_", &BlendOps(), &state_.blend.alpha_op},
  };
  for (const EnumField& f : enums) {
    if (cmd != f.name) continue;
    auto v = enumeration(f.prefix, *f.allowed);
    if (!v.ok()) return v.error();
    *f.field = *v;
    return {};
  }
  struct U32Field {
    const char* name;
    uint32_t* field;
  };
  const U32Field u32s[] = {
      {"front.reference", &state_.stencil.front.reference},
      {"back.reference", &state_.stencil.back.reference},
      {"front.compareMask", &state_.stencil.front.compare_mask},
      {"back.compareMask", &state_.stencil.back.compare_mask},
      {"front.writeMask", &state_.stencil.front.write_mask},
      {"back.writeMask", &state_.stencil.back.write_mask},
  };
  for (const U32Field& f : u32s) {
    if (cmd != f.name) continue;
    auto v = u32();
    if (!v.ok()) return v.error();
    *f.field = *v;
    return {};
  }
  if (cmd == "topology") {
    // Draw commands name their own topology (draw rect: a triangle strip),
    // as in Amber, so this only has to be valid.
    auto v = one();
    if (!v.ok()) return v.error();
    if (!TopologyName(*v)) {
      return Error(wl.line, "unknown topology '" + *v + "'");
    }
    return {};
  }
  if (cmd == "logicOp") {
    // Takes effect only with logicOpEnable true, which is unsupported.
    auto v = enumeration("VK_LOGIC_OP_", kLogicOps);
    return v.ok() ? Status() : Status(v.error());
  }
  if (cmd == "polygonMode") {
    auto v = enumeration("VK_POLYGON_MODE_", {"fill", "line", "point"});
    if (!v.ok()) return v.error();
    state_.polygon_mode = *v;
    return {};
  }
  if (cmd == "frontFace") {
    auto v = enumeration("VK_FRONT_FACE_", {"counter_clockwise", "clockwise"});
    if (!v.ok()) return v.error();
    state_.front_face = *v;
    return {};
  }
  if (cmd == "cullMode" || cmd == "colorWriteMask") {
    if (wl.words.size() < 2)
      return Error(wl.line, "expected a value after " + cmd);
    bool bits[4] = {false, false, false, false};
    for (size_t i = 1; i < wl.words.size(); ++i) {
      const std::string& w = wl.words[i];
      if (w == "|") continue;
      if (cmd == "cullMode") {
        if (w == "VK_CULL_MODE_FRONT_BIT") {
          bits[0] = true;
        } else if (w == "VK_CULL_MODE_BACK_BIT") {
          bits[1] = true;
        } else if (w == "VK_CULL_MODE_FRONT_AND_BACK") {
          bits[0] = bits[1] = true;
        } else if (w != "VK_CULL_MODE_NONE") {
          return Error(wl.line, "unknown cullMode value '" + w + "'");
        }
      } else {
        static const char* kColorBits[4] = {
            "VK_COLOR_COMPONENT_R_BIT", "VK_COLOR_COMPONENT_G_BIT",
            "VK_COLOR_COMPONENT_B_BIT", "VK_COLOR_COMPONENT_A_BIT"};
        auto at = std::find(kColorBits, kColorBits + 4, w);
        if (at == kColorBits + 4) {
          return Error(wl.line, "unknown colorWriteMask value '" + w + "'");
        }
        bits[at - kColorBits] = true;
      }
    }
    if (cmd == "cullMode") {
      state_.cull_mode = bits[0] && bits[1] ? "front_and_back"
                         : bits[0]          ? "front"
                         : bits[1]          ? "back"
                                            : "none";
    } else if (!(bits[0] && bits[1] && bits[2] && bits[3])) {
      return Unsup(wl.line, "colorWriteMask other than R|G|B|A");
    }
    return {};
  }
  *handled = false;
  return {};
}

}  // namespace warpsim::scene::vkscript
