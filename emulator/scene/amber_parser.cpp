#include "scene/amber_parser.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "scene/buffer_data.h"
#include "scene/png_loader.h"
#include "scene/state_names.h"
#include "scene/vkscript_lexer.h"
#include "scene/vkscript_parser.h"

namespace warpsim::scene {
namespace {

// ---- Tokenizer -------------------------------------------------------------

struct Token {
  enum Kind { kWord, kEol, kEos };
  Kind kind = kEos;
  std::string text;
  int line = 0;
  bool is_word() const { return kind == kWord; }
  bool is_end() const { return kind != kWord; }
  std::string Describe() const {
    if (kind == kEol) return "end of line";
    if (kind == kEos) return "end of file";
    return "'" + text + "'";
  }
};

// Splits AmberScript into words and ends of line. '#' starts a comment at
// the start of a word; a '\' followed by a line break joins two lines;
// "quoted words" lose their quotes. Shader and VIRTUAL_FILE bodies are read
// raw with ExtractBlock().
class Tokenizer {
 public:
  explicit Tokenizer(std::string_view text) : text_(text) {}

  Token Next() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
        ++pos_;
        continue;
      }
      if (c == '\\' && IsLineContinuation()) continue;
      if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
        continue;
      }
      if (c == '\n') {
        ++pos_;
        return Token{Token::kEol, "", line_++};
      }
      size_t start = pos_;
      if (c == '"') {
        size_t close = text_.find('"', pos_ + 1);
        size_t nl = text_.find('\n', pos_ + 1);
        if (close != std::string_view::npos && close < nl) {
          pos_ = close + 1;
          return Token{Token::kWord,
                       std::string(text_.substr(start + 1, close - start - 1)),
                       line_};
        }
      }
      while (pos_ < text_.size() && !IsSpace(text_[pos_])) ++pos_;
      return Token{Token::kWord, std::string(text_.substr(start, pos_ - start)),
                   line_};
    }
    return Token{Token::kEos, "", line_};
  }

  Token Peek() {
    size_t pos = pos_;
    int line = line_;
    Token t = Next();
    pos_ = pos;
    line_ = line;
    return t;
  }

  // Reads raw lines from the current position (the start of a line) up to
  // a line whose first word is END; leaves the position after that END.
  // Returns false at end of text without END.
  bool ExtractBlock(std::string* out, int* first_line) {
    *first_line = line_;
    out->clear();
    while (pos_ < text_.size()) {
      size_t eol = text_.find('\n', pos_);
      if (eol == std::string_view::npos) eol = text_.size();
      std::string_view ln = text_.substr(pos_, eol - pos_);
      size_t b = ln.find_first_not_of(" \t\r");
      if (b != std::string_view::npos && ln.compare(b, 3, "END") == 0 &&
          (b + 3 == ln.size() || IsSpace(ln[b + 3]) || ln[b + 3] == '#')) {
        pos_ += b + 3;
        return true;
      }
      out->append(ln);
      out->push_back('\n');
      pos_ = eol < text_.size() ? eol + 1 : eol;
      ++line_;
    }
    return false;
  }

  int line() const { return line_; }

 private:
  static bool IsSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
           c == '\f';
  }
  bool IsLineContinuation() {
    size_t p = pos_ + 1;
    while (p < text_.size() &&
           (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\r')) {
      ++p;
    }
    if (p < text_.size() && text_[p] == '\n') {
      pos_ = p + 1;
      ++line_;
      return true;
    }
    return false;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
};

// ---- Numbers ---------------------------------------------------------------

std::optional<Number> ParseNumber(const std::string& s) {
  if (s.empty()) return std::nullopt;
  bool neg = s[0] == '-';
  size_t b = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (b == s.size()) return std::nullopt;
  if (s.size() > b + 2 && s[b] == '0' && (s[b + 1] == 'x' || s[b + 1] == 'X')) {
    uint64_t v = 0;
    auto r = std::from_chars(s.data() + b + 2, s.data() + s.size(), v, 16);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size())
      return std::nullopt;
    return Number::Int(neg ? static_cast<int64_t>(0 - v)
                           : static_cast<int64_t>(v));
  }
  bool all_digits =
      std::all_of(s.begin() + static_cast<std::ptrdiff_t>(b), s.end(),
                  [](char c) { return c >= '0' && c <= '9'; });
  if (all_digits) {
    uint64_t v = 0;
    auto r = std::from_chars(s.data() + b, s.data() + s.size(), v, 10);
    if (r.ec != std::errc()) return std::nullopt;  // out of range
    if (neg && v > uint64_t{1} << 63) return std::nullopt;
    return Number::Int(neg ? static_cast<int64_t>(0 - v)
                           : static_cast<int64_t>(v));
  }
  std::string low = s.substr(b);
  std::transform(low.begin(), low.end(), low.begin(), ::tolower);
  if (low == "inf" || low == "infinity") {
    return Number::Float(neg ? -INFINITY : INFINITY);
  }
  if (low == "nan") return Number::Float(neg ? -NAN : NAN);
  // Decimal float: digits, optional '.', optional exponent.
  bool digit = false;
  for (char c : low) {
    if (c >= '0' && c <= '9')
      digit = true;
    else if (c != '.' && c != 'e' && c != '-' && c != '+')
      return std::nullopt;
  }
  if (!digit) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return Number::Float(d);
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), ::tolower);
  return s;
}

bool ParseOnOff(const std::string& s, bool* v) {
  if (s == "on") {
    *v = true;
    return true;
  }
  if (s == "off") {
    *v = false;
    return true;
  }
  return false;
}

std::optional<ShaderStage> ParseStage(const std::string& s) {
  if (s == "vertex") return ShaderStage::kVertex;
  if (s == "fragment") return ShaderStage::kFragment;
  if (s == "compute") return ShaderStage::kCompute;
  if (s == "geometry") return ShaderStage::kGeometry;
  if (s == "tessellation_control") return ShaderStage::kTessControl;
  if (s == "tessellation_evaluation") return ShaderStage::kTessEvaluation;
  if (s == "multi") return ShaderStage::kMulti;
  return std::nullopt;
}

std::optional<ShaderFormat> ParseShaderFormat(const std::string& s) {
  if (s == "GLSL") return ShaderFormat::kGlsl;
  if (s == "HLSL") return ShaderFormat::kHlsl;
  if (s == "SPIRV-ASM") return ShaderFormat::kSpirvAsm;
  if (s == "SPIRV-HEX") return ShaderFormat::kSpirvHex;
  if (s == "SPIRV-BIN") return ShaderFormat::kSpirvBin;
  if (s == "OPENCL-C") return ShaderFormat::kOpenClC;
  return std::nullopt;
}

std::optional<BindingKind> ParseBindingKind(const std::string& s) {
  static const std::map<std::string, BindingKind> kKinds = {
      {"storage", BindingKind::kStorage},
      {"uniform", BindingKind::kUniform},
      {"storage_dynamic", BindingKind::kStorageDynamic},
      {"uniform_dynamic", BindingKind::kUniformDynamic},
      {"storage_texel_buffer", BindingKind::kStorageTexelBuffer},
      {"uniform_texel_buffer", BindingKind::kUniformTexelBuffer},
      {"sampled_image", BindingKind::kSampled},
      {"sampled", BindingKind::kSampled},
      {"storage_image", BindingKind::kStorageImage},
      {"combined_image_sampler", BindingKind::kCombinedImageSampler},
      {"color", BindingKind::kColor},
      {"depth_stencil", BindingKind::kDepthStencil},
      {"resolve", BindingKind::kResolve},
      {"push_constant", BindingKind::kPushConstant},
  };
  auto it = kKinds.find(s);
  if (it == kKinds.end()) return std::nullopt;
  return it->second;
}

const std::set<std::string>& Topologies() {
  static const std::set<std::string> kTopologies = {
      "point_list",
      "line_list",
      "line_list_with_adjacency",
      "line_strip",
      "line_strip_with_adjacency",
      "triangle_list",
      "triangle_list_with_adjacency",
      "triangle_strip",
      "triangle_strip_with_adjacency",
      "triangle_fan",
      "patch_list"};
  return kTopologies;
}

std::string Join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) {
    if (!out.empty()) out += ", ";
    out += x;
  }
  return out;
}

// Reports keywords we know but do not implement.
const std::set<std::string>& RayTracingKeywords() {
  static const std::set<std::string> kWords = {
      "ACCELERATION_STRUCTURE", "SHADER_GROUP", "SHADER_BINDING_TABLE",
      "RAY_TRACING"};
  return kWords;
}

// ---- Parser ----------------------------------------------------------------

// Recursive-descent parser over Tokenizer; one method per command.
class Parser {
 public:
  Parser(std::string_view text, std::string file)
      : tok_(text), text_(text), file_(std::move(file)) {
    dir_ = std::filesystem::path(file_).parent_path().string();
    scene_.file_path = file_;
  }

  Result<Scene> Parse();

 private:
  SourcePos Pos(int line) const { return SourcePos{file_, line, -1, ""}; }
  Diagnostic Error(int line, std::string msg) const {
    return InvalidInput(std::move(msg), Pos(line));
  }
  Diagnostic Unsup(int line, std::string msg) const {
    return Unsupported(std::move(msg), Pos(line));
  }

  // Token helpers. `what` describes what was expected.
  Result<Token> Word(const std::string& what) {
    Token t = tok_.Next();
    if (!t.is_word()) {
      return Error(t.line, "expected " + what + ", got " + t.Describe());
    }
    return t;
  }
  Result<Number> Num(const std::string& what) {
    Token t = tok_.Next();
    std::optional<Number> n;
    if (t.is_word()) n = ParseNumber(t.text);
    if (!n) return Error(t.line, "expected " + what + ", got " + t.Describe());
    return *n;
  }
  Result<uint64_t> Uint(const std::string& what, uint64_t max) {
    Token t = tok_.Next();
    std::optional<Number> n;
    if (t.is_word()) n = ParseNumber(t.text);
    if (!n || n->is_float || n->i < 0 || static_cast<uint64_t>(n->i) > max) {
      return Error(t.line, "expected " + what + " (an integer 0.." +
                               std::to_string(max) + "), got " + t.Describe());
    }
    return static_cast<uint64_t>(n->i);
  }
  Result<uint32_t> U32(const std::string& what) {
    auto v = Uint(what, 0xffffffffu);
    if (!v.ok()) return v.error();
    return static_cast<uint32_t>(*v);
  }
  Result<double> Float(const std::string& what) {
    auto n = Num(what);
    if (!n.ok()) return n.error();
    return n->f;
  }
  Status Eol(const std::string& after) {
    Token t = tok_.Next();
    if (t.is_end()) return {};
    return Error(t.line, "unexpected " + t.Describe() + " after " + after +
                             "; expected end of line");
  }
  Result<std::string> OneOf(const std::string& what,
                            const std::set<std::string>& allowed,
                            bool lower = false) {
    auto w = Word(what);
    if (!w.ok()) return w.error();
    std::string v = lower ? Lower(w->text) : w->text;
    if (!allowed.count(v)) {
      return Error(w->line, "expected " + what + " (one of " + Join(allowed) +
                                "), got '" + w->text + "'");
    }
    return v;
  }

  std::string ResolvePath(const std::string& p) const {
    std::filesystem::path path(p);
    if (path.is_absolute() || dir_.empty()) return p;
    return (std::filesystem::path(dir_) / path).string();
  }
  Result<std::string> ReadFile(const std::string& p, int line, bool binary);

  // Top-level commands.
  Status ParseShader(int line);
  Status ParseBufferOrImage(int line, bool is_image);
  Status ParseSampler(int line);
  Status ParseStruct(int line);
  Status ParseVirtualFile(int line);
  Status ParsePipeline(int line, bool derive);
  Status ParsePipelineBody(Pipeline* p, const std::string& cmd);
  Status ParseAttach(Pipeline* p, int line);
  Status ParseBind(Pipeline* p, int line);
  Status ParseVertexData(Pipeline* p, int line);
  Status ParseShaderList(Pipeline* p, const std::string& cmd, int line);
  Status ParseSubgroup(Pipeline* p, int line);
  Status ParseDepth(Pipeline* p);
  Status ParseStencil(Pipeline* p);
  Status ParseBlend(Pipeline* p);
  Status ParseKernelSet(Pipeline* p, int line);
  Status ParseSet(int line);
  Status ParseCommand(const Token& t, std::vector<Command>* out);
  Status ParseRun(int line, std::vector<Command>* out);
  Status ParseExpect(int line, std::vector<Command>* out);
  Status ParseRepeat(int line, std::vector<Command>* out);
  Status ParseTolerances(std::vector<Tolerance>* out, Token* next);
  Status FinishScene();

  Result<const Pipeline*> FindPipelineOr(const std::string& name, int line,
                                         const std::string& cmd) {
    const Pipeline* p = scene_.FindPipeline(name);
    if (!p) {
      return Error(line, "unknown pipeline '" + name + "' in " + cmd);
    }
    return p;
  }
  Result<std::string> BufferName(const std::string& what) {
    auto w = Word(what);
    if (!w.ok()) return w.error();
    if (!scene_.FindBuffer(w->text)) {
      return Error(w->line, "unknown buffer '" + w->text + "' in " + what);
    }
    return w->text;
  }

  Tokenizer tok_;
  std::string_view text_;
  std::string file_;
  std::string dir_;
  Scene scene_;
};

Result<std::string> Parser::ReadFile(const std::string& p, int line,
                                     bool binary) {
  std::string path = ResolvePath(p);
  for (const auto& vf : scene_.virtual_files) {
    if (vf.path == p) return vf.content;
  }
  std::ifstream in(path, binary ? std::ios::binary : std::ios::in);
  if (!in) return Error(line, "cannot open file '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<Scene> Parser::Parse() {
  // VkScript files open with a [section] header (after comments).
  {
    std::istringstream lines{std::string(text_)};
    std::string ln;
    int n = 0;
    while (std::getline(lines, ln)) {
      ++n;
      size_t b = ln.find_first_not_of(" \t\r");
      if (b == std::string::npos || ln[b] == '#') continue;
      if (ln[b] == '[') {
        return Unsup(n, "VkScript format (only AmberScript is supported)");
      }
      break;
    }
  }
  for (Token t = tok_.Next(); t.kind != Token::kEos; t = tok_.Next()) {
    if (t.kind == Token::kEol) continue;
    const std::string& w = t.text;
    Status s;
    if (w == "SHADER") {
      s = ParseShader(t.line);
    } else if (w == "BUFFER") {
      s = ParseBufferOrImage(t.line, false);
    } else if (w == "IMAGE") {
      s = ParseBufferOrImage(t.line, true);
    } else if (w == "SAMPLER") {
      s = ParseSampler(t.line);
    } else if (w == "STRUCT") {
      s = ParseStruct(t.line);
    } else if (w == "VIRTUAL_FILE") {
      s = ParseVirtualFile(t.line);
    } else if (w == "PIPELINE") {
      s = ParsePipeline(t.line, false);
    } else if (w == "DERIVE_PIPELINE") {
      s = ParsePipeline(t.line, true);
    } else if (w == "DEVICE_FEATURE" || w == "DEVICE_EXTENSION" ||
               w == "INSTANCE_EXTENSION" || w == "DEVICE_PROPERTY") {
      auto name = Word("a name after " + w);
      if (!name.ok()) return name.error();
      auto& list = w == "DEVICE_FEATURE"       ? scene_.device_features
                   : w == "DEVICE_EXTENSION"   ? scene_.device_extensions
                   : w == "INSTANCE_EXTENSION" ? scene_.instance_extensions
                                               : scene_.device_properties;
      list.push_back(name->text);
      s = Eol(w);
    } else if (w == "SET") {
      s = ParseSet(t.line);
    } else if (w == "DEBUG") {
      return Unsup(t.line, "DEBUG blocks (shader debugging)");
    } else if (RayTracingKeywords().count(w)) {
      return Unsup(t.line, "ray tracing (" + w + ")");
    } else {
      s = ParseCommand(t, &scene_.commands);
    }
    if (!s.ok()) return s.error();
  }
  Status s = FinishScene();
  if (!s.ok()) return s.error();
  return std::move(scene_);
}

Status Parser::ParseShader(int line) {
  auto stage_w = Word("a shader type after SHADER");
  if (!stage_w.ok()) return stage_w.error();
  auto stage = ParseStage(stage_w->text);
  if (!stage) {
    return Error(line,
                 "expected a shader type (vertex, fragment, compute, "
                 "geometry, tessellation_control, "
                 "tessellation_evaluation, multi), got '" +
                     stage_w->text + "'");
  }
  auto name = Word("a shader name");
  if (!name.ok()) return name.error();
  if (scene_.FindShader(name->text)) {
    return Error(line, "duplicate shader name '" + name->text + "'");
  }
  Shader sh;
  sh.name = name->text;
  sh.stage = *stage;
  sh.line = line;
  auto fmt_w = Word(
      "a shader format (GLSL, HLSL, SPIRV-ASM, SPIRV-HEX, "
      "SPIRV-BIN, OPENCL-C) or PASSTHROUGH");
  if (!fmt_w.ok()) return fmt_w.error();
  if (fmt_w->text == "PASSTHROUGH") {
    if (sh.stage != ShaderStage::kVertex) {
      return Error(line, "PASSTHROUGH is only allowed for vertex shaders");
    }
    sh.passthrough = true;
    sh.format = ShaderFormat::kSpirvAsm;
    scene_.shaders.push_back(std::move(sh));
    return Eol("SHADER PASSTHROUGH");
  }
  auto fmt = ParseShaderFormat(fmt_w->text);
  if (!fmt) {
    return Error(line,
                 "expected a shader format (GLSL, HLSL, SPIRV-ASM, "
                 "SPIRV-HEX, SPIRV-BIN, OPENCL-C) or PASSTHROUGH, got '" +
                     fmt_w->text + "'");
  }
  sh.format = *fmt;
  bool from_file = false;
  for (Token t = tok_.Next(); !t.is_end(); t = tok_.Next()) {
    if (t.text == "TARGET_ENV") {
      auto env = Word("a target environment after TARGET_ENV");
      if (!env.ok()) return env.error();
      sh.target_env = env->text;
    } else if (t.text == "VIRTUAL_FILE") {
      auto p = Word("a path after VIRTUAL_FILE");
      if (!p.ok()) return p.error();
      // The source is a VIRTUAL_FILE declared earlier.
      const VirtualFile* vf = nullptr;
      for (const auto& f : scene_.virtual_files) {
        if (f.path == p->text) vf = &f;
      }
      if (!vf) {
        return Error(p->line, "unknown VIRTUAL_FILE '" + p->text +
                                  "' (declare it with VIRTUAL_FILE ... END "
                                  "before the SHADER)");
      }
      sh.source = vf->content;
      sh.source_line = vf->line + 1;
      sh.file_path = p->text;
      from_file = true;
    } else if (t.text == "FILE") {
      auto p = Word("a path after FILE");
      if (!p.ok()) return p.error();
      std::string path = p->text;
      if (path == "TEXT" || path == "BINARY") {
        auto p2 = Word("a path after FILE " + path);
        if (!p2.ok()) return p2.error();
        path = p2->text;
      }
      bool binary = sh.format == ShaderFormat::kSpirvBin;
      auto data = ReadFile(path, t.line, binary);
      if (!data.ok()) return data.error();
      if (binary) {
        sh.binary.assign(data->begin(), data->end());
      } else {
        sh.source = *data;
      }
      sh.file_path = ResolvePath(path);
      from_file = true;
    } else {
      return Error(t.line, "unexpected '" + t.text +
                               "' after SHADER; expected TARGET_ENV, "
                               "VIRTUAL_FILE, FILE or end of line");
    }
  }
  if (!from_file) {
    if (sh.format == ShaderFormat::kSpirvBin) {
      return Error(line, "SPIRV-BIN shaders need FILE <path>");
    }
    int first = 0;
    if (!tok_.ExtractBlock(&sh.source, &first)) {
      return Error(line, "SHADER '" + sh.name + "' is missing its END");
    }
    sh.source_line = first;
    if (sh.source.find_first_not_of(" \t\r\n") == std::string::npos) {
      return Error(line, "SHADER '" + sh.name + "' must not be empty");
    }
    Status s = Eol("END of SHADER");
    if (!s.ok()) return s;
  }
  scene_.shaders.push_back(std::move(sh));
  return {};
}

Status Parser::ParseVirtualFile(int line) {
  auto p = Word("a path after VIRTUAL_FILE");
  if (!p.ok()) return p.error();
  Status s = Eol("VIRTUAL_FILE path");
  if (!s.ok()) return s;
  VirtualFile vf;
  vf.path = p->text;
  vf.line = line;
  int first = 0;
  if (!tok_.ExtractBlock(&vf.content, &first)) {
    return Error(line, "VIRTUAL_FILE '" + vf.path + "' is missing its END");
  }
  scene_.virtual_files.push_back(std::move(vf));
  return Eol("END of VIRTUAL_FILE");
}

Status Parser::ParseStruct(int line) {
  auto name = Word("a struct name after STRUCT");
  if (!name.ok()) return name.error();
  if (scene_.structs.count(name->text)) {
    return Error(line, "duplicate STRUCT name '" + name->text + "'");
  }
  StructDef def;
  def.name = name->text;
  def.line = line;
  for (Token t = tok_.Next(); !t.is_end(); t = tok_.Next()) {
    if (t.text != "STRIDE") {
      return Error(t.line, "unexpected '" + t.text +
                               "' after STRUCT name; expected STRIDE");
    }
    auto v = U32("a stride after STRIDE");
    if (!v.ok()) return v.error();
    def.stride = *v;
  }
  while (true) {
    Token t = tok_.Next();
    if (t.kind == Token::kEol) continue;
    if (t.kind == Token::kEos) {
      return Error(line, "STRUCT '" + def.name + "' is missing its END");
    }
    if (t.text == "END") break;
    StructMember m;
    m.type_name = t.text;
    if (m.type_name == def.name) {
      return Error(t.line, "STRUCT '" + def.name + "' cannot contain itself");
    }
    auto mname = Word("a member name after type '" + t.text + "'");
    if (!mname.ok()) return mname.error();
    m.name = mname->text;
    for (Token o = tok_.Next(); !o.is_end(); o = tok_.Next()) {
      std::optional<uint32_t>* target =
          o.text == "OFFSET"          ? &m.offset
          : o.text == "ARRAY_STRIDE"  ? &m.array_stride
          : o.text == "MATRIX_STRIDE" ? &m.matrix_stride
                                      : nullptr;
      if (!target) {
        return Error(o.line, "unexpected '" + o.text + "' after member '" +
                                 m.name +
                                 "'; expected OFFSET, ARRAY_STRIDE or "
                                 "MATRIX_STRIDE");
      }
      auto v = U32("a value after " + o.text);
      if (!v.ok()) return v.error();
      *target = *v;
    }
    // Validate the member type now so errors point at this line.
    StructTable tmp = scene_.structs;
    auto laid = LayoutDataType(m.type_name, Layout::kStd430, tmp);
    if (!laid.ok()) return Error(t.line, laid.error().message);
    def.members.push_back(std::move(m));
  }
  if (def.members.empty()) {
    return Error(line, "STRUCT '" + def.name + "' has no members");
  }
  scene_.structs[def.name] = std::move(def);
  return Eol("END of STRUCT");
}

Status Parser::ParseBufferOrImage(int line, bool is_image) {
  const std::string cmd = is_image ? "IMAGE" : "BUFFER";
  auto name = Word("a name after " + cmd);
  if (!name.ok()) return name.error();
  if (scene_.FindBuffer(name->text)) {
    return Error(line, "duplicate buffer name '" + name->text + "'");
  }
  Buffer buf;
  buf.name = name->text;
  buf.line = line;
  std::optional<std::string> type_name;
  std::optional<std::string> format_name;
  Layout layout = Layout::kStd430;
  std::optional<uint64_t> size;
  enum class Init { kNone, kFill, kSeries, kData, kFile } init = Init::kNone;
  Number fill, inc;
  std::vector<Number> data;
  std::string file_kind, file_path;
  int init_line = line;
  std::optional<Token> data_token;

  for (Token t = tok_.Next(); !t.is_end(); t = tok_.Next()) {
    const std::string& w = t.text;
    if (w == "DATA_TYPE") {
      auto v = Word("a data type after DATA_TYPE");
      if (!v.ok()) return v.error();
      type_name = v->text;
    } else if (w == "FORMAT") {
      auto v = Word("a Vulkan format name after FORMAT");
      if (!v.ok()) return v.error();
      format_name = v->text;
    } else if (w == "STD140" || w == "STD430") {
      layout = w == "STD140" ? Layout::kStd140 : Layout::kStd430;
    } else if (w == "SIZE") {
      auto v = Uint("an element count after SIZE", UINT64_MAX >> 1);
      if (!v.ok()) return v.error();
      size = *v;
    } else if (w == "WIDTH" || w == "HEIGHT" || w == "DEPTH") {
      auto v = U32("a value after " + w);
      if (!v.ok()) return v.error();
      if (*v == 0) return Error(t.line, w + " must be at least 1");
      (w == "WIDTH" ? buf.width : w == "HEIGHT" ? buf.height : buf.depth) = *v;
    } else if (w == "MIP_LEVELS") {
      auto v = U32("a level count after MIP_LEVELS");
      if (!v.ok()) return v.error();
      if (*v == 0 || *v > 32) {
        return Error(t.line,
                     "MIP_LEVELS must be 1..32, got " + std::to_string(*v));
      }
      buf.mip_levels = *v;
    } else if (w == "SAMPLES") {
      auto v = U32("a sample count after SAMPLES");
      if (!v.ok()) return v.error();
      if (*v == 0 || *v > 64 || (*v & (*v - 1))) {
        return Error(t.line, "SAMPLES must be 1, 2, 4, 8, 16, 32 or 64");
      }
      buf.samples = *v;
    } else if (is_image && (w == "DIM_1D" || w == "DIM_2D" || w == "DIM_3D")) {
      buf.dim = w == "DIM_1D"   ? ImageDim::k1D
                : w == "DIM_2D" ? ImageDim::k2D
                                : ImageDim::k3D;
    } else if (w == "FILL") {
      auto v = Num("a value after FILL");
      if (!v.ok()) return v.error();
      fill = *v;
      init = Init::kFill;
      init_line = t.line;
    } else if (w == "SERIES_FROM") {
      auto v = Num("a start value after SERIES_FROM");
      if (!v.ok()) return v.error();
      auto kw = Word("INC_BY");
      if (!kw.ok()) return kw.error();
      if (kw->text != "INC_BY") {
        return Error(
            kw->line,
            "expected INC_BY after SERIES_FROM value, got '" + kw->text + "'");
      }
      auto i = Num("an increment after INC_BY");
      if (!i.ok()) return i.error();
      fill = *v;
      inc = *i;
      init = Init::kSeries;
      init_line = t.line;
    } else if (w == "DATA") {
      init = Init::kData;
      init_line = t.line;
      bool ended = false;
      for (Token d = tok_.Next(); d.kind != Token::kEos; d = tok_.Next()) {
        if (d.kind == Token::kEol) continue;
        if (d.text == "END") {
          ended = true;
          break;
        }
        auto n = ParseNumber(d.text);
        if (!n) {
          return Error(d.line, "expected a number or END in " + cmd +
                                   " DATA, got '" + d.text + "'");
        }
        data.push_back(*n);
      }
      if (!ended) {
        return Error(line, cmd + " '" + buf.name + "' DATA is missing its END");
      }
    } else if (w == "FILE") {
      auto k = Word("TEXT, BINARY, PNG or a path after FILE");
      if (!k.ok()) return k.error();
      file_kind = k->text;
      if (file_kind == "TEXT" || file_kind == "BINARY" || file_kind == "PNG") {
        auto p = Word("a path after FILE " + file_kind);
        if (!p.ok()) return p.error();
        file_path = p->text;
      } else {
        file_path = file_kind;
        file_kind = "PNG";  // Amber's default for FILE without a kind
      }
      init = Init::kFile;
      init_line = t.line;
    } else {
      return Error(t.line, "unexpected '" + w + "' in " + cmd +
                               "; expected DATA_TYPE, FORMAT, STD140, STD430, "
                               "SIZE, WIDTH, HEIGHT, DEPTH, MIP_LEVELS, "
                               "SAMPLES, FILL, SERIES_FROM, DATA or FILE" +
                               (is_image ? ", DIM_1D/2D/3D" : ""));
    }
  }

  // Element format.
  if (type_name && format_name) {
    return Error(line, cmd + " '" + buf.name +
                           "' has both DATA_TYPE and FORMAT; give one");
  }
  if (format_name) {
    auto f = ParseVulkanFormat(*format_name);
    if (!f) {
      if (format_name->find("_BLOCK") != std::string::npos) {
        return Unsup(line, "compressed format " + *format_name);
      }
      return Error(line, "unknown format '" + *format_name +
                             "' (expected a Vulkan format name such as "
                             "R8G8B8A8_UNORM)");
    }
    buf.format = *f;
    buf.from_format_keyword = true;
  } else if (type_name) {
    if (type_name->find("_BLOCK") != std::string::npos) {
      return Unsup(line, "compressed format " + *type_name);
    }
    auto f = LayoutDataType(*type_name, layout, scene_.structs);
    if (!f.ok()) return Error(line, f.error().message);
    buf.format = *f;
  } else {
    return Error(line, cmd + " '" + buf.name +
                           "' needs DATA_TYPE <type> or FORMAT <format>");
  }
  if (is_image) {
    if (buf.dim == ImageDim::kNone) {
      return Error(line, "IMAGE '" + buf.name +
                             "' needs DIM_1D, DIM_2D or "
                             "DIM_3D");
    }
    if (buf.width == 0) {
      return Error(line, "IMAGE '" + buf.name + "' needs WIDTH");
    }
    if (buf.dim != ImageDim::k1D && buf.height == 0) {
      return Error(line, "IMAGE '" + buf.name + "' needs HEIGHT");
    }
    if (buf.dim == ImageDim::k3D && buf.depth == 0) {
      return Error(line, "IMAGE '" + buf.name + "' needs DEPTH");
    }
  }
  // Element count: SIZE, or WIDTH x HEIGHT x DEPTH, or the data itself.
  if (buf.width || buf.height) {
    uint64_t n = uint64_t{std::max(buf.width, 1u)} * std::max(buf.height, 1u) *
                 std::max(buf.depth, 1u);
    if (!size) size = n;
  }
  if (init == Init::kFile) {
    if (file_kind == "PNG") {
      auto png = LoadPng(ResolvePath(file_path));
      if (!png.ok()) {
        auto d = png.error();
        d.pos = Pos(init_line);
        return d;
      }
      auto bytes = ConvertRgba8(*png, buf.format);
      if (!bytes.ok()) {
        auto d = bytes.error();
        d.pos = Pos(init_line);
        return d;
      }
      buf.width = png->width;
      buf.height = png->height;
      buf.element_count = uint64_t{png->width} * png->height;
      buf.bytes = std::move(*bytes);
    } else if (file_kind == "BINARY") {
      auto raw = ReadFile(file_path, init_line, true);
      if (!raw.ok()) return raw.error();
      buf.bytes.assign(raw->begin(), raw->end());
      uint64_t n = buf.bytes.size() / buf.format.stride;
      if (size && *size > n) n = *size;
      auto b = CheckedBufferBytes(buf.format, n);
      if (!b.ok()) return Error(line, b.error().message);
      buf.bytes.resize(*b, 0);
      buf.element_count = n;
    } else {  // TEXT
      auto raw = ReadFile(file_path, init_line, false);
      if (!raw.ok()) return raw.error();
      std::istringstream lines(*raw);
      std::string text_line, word;
      while (std::getline(lines, text_line)) {
        // '#' starts a comment in data files too.
        std::istringstream ss(text_line.substr(0, text_line.find('#')));
        while (ss >> word) {
          auto n = ParseNumber(word);
          if (!n) {
            return Error(init_line, "expected numbers in FILE TEXT '" +
                                        file_path + "', got '" + word + "'");
          }
          data.push_back(*n);
        }
      }
      init = Init::kData;
    }
    buf.file_path = ResolvePath(file_path);
  }
  if (init == Init::kData) {
    auto bytes = PackValues(buf.format, data);
    if (!bytes.ok()) return Error(init_line, bytes.error().message);
    uint64_t n = bytes->size() / buf.format.stride;
    if (size && *size > n) {
      auto b = CheckedBufferBytes(buf.format, *size);
      if (!b.ok()) return Error(line, b.error().message);
      bytes->resize(*b, 0);
      n = *size;
    }
    buf.element_count = n;
    buf.bytes = std::move(*bytes);
  } else if (init == Init::kFill || init == Init::kSeries ||
             init == Init::kNone) {
    if (!size) {
      if (init != Init::kNone) {
        return Error(init_line,
                     cmd + " '" + buf.name +
                         "' needs SIZE (or WIDTH/HEIGHT) before " +
                         (init == Init::kFill ? "FILL" : "SERIES_FROM"));
      }
      // A FORMAT buffer without a size: sized by the framebuffer later.
      buf.size_from_framebuffer = buf.from_format_keyword;
    } else {
      auto bytes = init == Init::kSeries
                       ? SeriesElements(buf.format, *size, fill, inc)
                   : init == Init::kFill
                       ? FillElements(buf.format, *size, fill)
                       : FillElements(buf.format, *size, Number::Int(0));
      if (!bytes.ok()) {
        bool unsupported = bytes.error().kind == ErrorKind::kUnsupported;
        return unsupported ? Unsup(init_line, bytes.error().message)
                           : Error(init_line, bytes.error().message);
      }
      buf.element_count = *size;
      buf.bytes = std::move(*bytes);
    }
  }
  scene_.buffers.push_back(std::move(buf));
  return {};
}

Status Parser::ParseSampler(int line) {
  auto name = Word("a name after SAMPLER");
  if (!name.ok()) return name.error();
  if (scene_.FindSampler(name->text)) {
    return Error(line, "duplicate sampler name '" + name->text + "'");
  }
  Sampler s;
  s.name = name->text;
  s.line = line;
  static const std::set<std::string> kFilters = {"nearest", "linear"};
  static const std::set<std::string> kAddress = {
      "repeat", "mirrored_repeat", "clamp_to_edge", "clamp_to_border",
      "mirror_clamp_to_edge"};
  static const std::set<std::string> kBorders = {
      "float_transparent_black", "int_transparent_black", "float_opaque_black",
      "int_opaque_black",        "float_opaque_white",    "int_opaque_white"};
  for (Token t = tok_.Next(); !t.is_end(); t = tok_.Next()) {
    const std::string& w = t.text;
    Result<std::string> v = std::string();
    if (w == "MAG_FILTER") {
      v = OneOf("a filter after MAG_FILTER", kFilters);
      if (v.ok()) s.mag_filter = *v;
    } else if (w == "MIN_FILTER") {
      v = OneOf("a filter after MIN_FILTER", kFilters);
      if (v.ok()) s.min_filter = *v;
    } else if (w == "MIPMAP_MODE") {
      v = OneOf("a mode after MIPMAP_MODE", kFilters);
      if (v.ok()) s.mipmap_mode = *v;
    } else if (w == "ADDRESS_MODE_U" || w == "ADDRESS_MODE_V" ||
               w == "ADDRESS_MODE_W") {
      v = OneOf("an address mode after " + w, kAddress);
      if (v.ok()) {
        (w == "ADDRESS_MODE_U"   ? s.address_mode_u
         : w == "ADDRESS_MODE_V" ? s.address_mode_v
                                 : s.address_mode_w) = *v;
      }
    } else if (w == "BORDER_COLOR") {
      v = OneOf("a border color after BORDER_COLOR", kBorders);
      if (v.ok()) s.border_color = *v;
    } else if (w == "MIN_LOD" || w == "MAX_LOD") {
      auto f = Float("a level of detail after " + w);
      if (!f.ok()) return f.error();
      (w == "MIN_LOD" ? s.min_lod : s.max_lod) = static_cast<float>(*f);
    } else if (w == "NORMALIZED_COORDS") {
      s.normalized_coords = true;
    } else if (w == "UNNORMALIZED_COORDS") {
      s.normalized_coords = false;
    } else if (w == "COMPARE") {
      auto o = Word("on or off after COMPARE");
      if (!o.ok()) return o.error();
      if (!ParseOnOff(o->text, &s.compare_enable)) {
        return Error(o->line,
                     "expected on or off after COMPARE, got '" + o->text + "'");
      }
    } else if (w == "COMPARE_OP") {
      v = OneOf("a compare op after COMPARE_OP", CompareOps());
      if (v.ok()) s.compare_op = *v;
    } else {
      return Error(t.line, "unexpected '" + w +
                               "' in SAMPLER; expected MAG_FILTER, MIN_FILTER, "
                               "MIPMAP_MODE, ADDRESS_MODE_U/V/W, "
                               "BORDER_COLOR, MIN_LOD, MAX_LOD, "
                               "NORMALIZED_COORDS, UNNORMALIZED_COORDS, "
                               "COMPARE or COMPARE_OP");
    }
    if (!v.ok()) return v.error();
  }
  if (s.max_lod < s.min_lod) {
    return Error(line, "SAMPLER '" + s.name + "' has MAX_LOD below MIN_LOD");
  }
  scene_.samplers.push_back(std::move(s));
  return {};
}

Status Parser::ParsePipeline(int line, bool derive) {
  Pipeline p;
  if (derive) {
    auto name = Word("a pipeline name after DERIVE_PIPELINE");
    if (!name.ok()) return name.error();
    auto from = Word("FROM");
    if (!from.ok()) return from.error();
    if (from->text != "FROM") {
      return Error(
          from->line,
          "expected FROM after DERIVE_PIPELINE name, got '" + from->text + "'");
    }
    auto parent = Word("a parent pipeline name after FROM");
    if (!parent.ok()) return parent.error();
    const Pipeline* pp = scene_.FindPipeline(parent->text);
    if (!pp) {
      return Error(parent->line,
                   "unknown parent pipeline '" + parent->text + "'");
    }
    p = *pp;
    p.name = name->text;
    p.derived_from = parent->text;
  } else {
    auto type = Word("a pipeline type (compute or graphics) after PIPELINE");
    if (!type.ok()) return type.error();
    if (type->text == "compute") {
      p.type = PipelineType::kCompute;
    } else if (type->text == "graphics") {
      p.type = PipelineType::kGraphics;
    } else if (type->text == "raytracing") {
      return Unsup(line, "ray tracing pipelines");
    } else {
      return Error(type->line,
                   "expected a pipeline type (compute or "
                   "graphics), got '" +
                       type->text + "'");
    }
    auto name = Word("a pipeline name");
    if (!name.ok()) return name.error();
    p.name = name->text;
  }
  p.line = line;
  if (scene_.FindPipeline(p.name)) {
    return Error(line, "duplicate pipeline name '" + p.name + "'");
  }
  const std::string cmd = derive ? "DERIVE_PIPELINE" : "PIPELINE";
  Status s = Eol(cmd + " " + p.name);
  if (!s.ok()) return s;
  s = ParsePipelineBody(&p, cmd);
  if (!s.ok()) return s;
  if (p.shaders.empty()) {
    return Error(line, "pipeline '" + p.name + "' has no ATTACHed shader");
  }
  for (const auto& a : p.shaders) {
    bool compute = a.stage == ShaderStage::kCompute;
    if (compute != (p.type == PipelineType::kCompute)) {
      return Error(
          a.line,
          std::string("a ") + (compute ? "compute" : "graphics") +
              " shader cannot be attached to a " +
              (p.type == PipelineType::kCompute ? "compute" : "graphics") +
              " pipeline");
    }
  }
  scene_.pipelines.push_back(std::move(p));
  return {};
}

Status Parser::ParsePipelineBody(Pipeline* p, const std::string& cmd) {
  while (true) {
    Token t = tok_.Next();
    if (t.kind == Token::kEol) continue;
    if (t.kind == Token::kEos) {
      return Error(p->line, cmd + " '" + p->name + "' is missing its END");
    }
    const std::string& w = t.text;
    Status s;
    if (w == "END") {
      return Eol("END of " + cmd);
    } else if (w == "ATTACH") {
      s = ParseAttach(p, t.line);
    } else if (w == "BIND") {
      s = ParseBind(p, t.line);
    } else if (w == "SHADER_OPTIMIZATION" || w == "COMPILE_OPTIONS") {
      s = ParseShaderList(p, w, t.line);
    } else if (w == "SUBGROUP") {
      s = ParseSubgroup(p, t.line);
    } else if (w == "FRAMEBUFFER_SIZE") {
      auto x = U32("a width after FRAMEBUFFER_SIZE");
      if (!x.ok()) return x.error();
      auto y = U32("a height after FRAMEBUFFER_SIZE width");
      if (!y.ok()) return y.error();
      if (*x == 0 || *y == 0 || *x > 16384 || *y > 16384) {
        return Error(t.line,
                     "FRAMEBUFFER_SIZE must be 1..16384 in each "
                     "dimension, got " +
                         std::to_string(*x) + "x" + std::to_string(*y));
      }
      p->framebuffer_width = *x;
      p->framebuffer_height = *y;
      s = Eol("FRAMEBUFFER_SIZE");
    } else if (w == "VERTEX_DATA") {
      s = ParseVertexData(p, t.line);
    } else if (w == "INDEX_DATA") {
      auto b = BufferName("INDEX_DATA");
      if (!b.ok()) return b.error();
      p->index_data = *b;
      s = Eol("INDEX_DATA");
    } else if (w == "SET") {
      s = ParseKernelSet(p, t.line);
    } else if (w == "DEPTH") {
      s = ParseDepth(p);
    } else if (w == "STENCIL") {
      s = ParseStencil(p);
    } else if (w == "BLEND") {
      s = ParseBlend(p);
    } else if (w == "VIEWPORT") {
      Viewport v;
      auto x = Float("a viewport x after VIEWPORT");
      if (!x.ok()) return x.error();
      auto y = Float("a viewport y");
      if (!y.ok()) return y.error();
      auto kw = Word("SIZE");
      if (!kw.ok()) return kw.error();
      if (kw->text != "SIZE") {
        return Error(kw->line, "expected SIZE after VIEWPORT x y, got '" +
                                   kw->text + "'");
      }
      auto vw = Float("a viewport width");
      if (!vw.ok()) return vw.error();
      auto vh = Float("a viewport height");
      if (!vh.ok()) return vh.error();
      v.x = static_cast<float>(*x);
      v.y = static_cast<float>(*y);
      v.width = static_cast<float>(*vw);
      v.height = static_cast<float>(*vh);
      for (Token o = tok_.Next(); !o.is_end(); o = tok_.Next()) {
        if (o.text != "MIN_DEPTH" && o.text != "MAX_DEPTH") {
          return Error(o.line, "unexpected '" + o.text +
                                   "' after VIEWPORT; expected MIN_DEPTH or "
                                   "MAX_DEPTH");
        }
        auto d = Float("a depth after " + o.text);
        if (!d.ok()) return d.error();
        (o.text == "MIN_DEPTH" ? v.min_depth : v.max_depth) =
            static_cast<float>(*d);
      }
      p->viewport = v;
    } else if (w == "CULL_MODE") {
      auto v = OneOf("a cull mode after CULL_MODE",
                     {"none", "front", "back", "front_and_back"});
      if (!v.ok()) return v.error();
      p->cull_mode = *v;
      s = Eol("CULL_MODE");
    } else if (w == "FRONT_FACE") {
      auto v = OneOf("a winding after FRONT_FACE",
                     {"counter_clockwise", "clockwise"});
      if (!v.ok()) return v.error();
      p->front_face = *v;
      s = Eol("FRONT_FACE");
    } else if (w == "POLYGON_MODE") {
      auto v =
          OneOf("a polygon mode after POLYGON_MODE", {"fill", "line", "point"});
      if (!v.ok()) return v.error();
      p->polygon_mode = *v;
      s = Eol("POLYGON_MODE");
    } else if (w == "PATCH_CONTROL_POINTS") {
      auto v = U32("a control point count after PATCH_CONTROL_POINTS");
      if (!v.ok()) return v.error();
      p->patch_control_points = *v;
      s = Eol("PATCH_CONTROL_POINTS");
    } else if (RayTracingKeywords().count(w) || w == "SHADER_GROUP" ||
               w == "MAX_RAY_PAYLOAD_SIZE" ||
               w == "MAX_RAY_HIT_ATTRIBUTE_SIZE" ||
               w == "MAX_RAY_RECURSION_DEPTH" || w == "FLAGS" ||
               w == "USE_LIBRARY") {
      return Unsup(t.line, "ray tracing (" + w + ")");
    } else {
      return Error(t.line, "unexpected '" + w + "' in " + cmd +
                               "; expected ATTACH, BIND, VERTEX_DATA, "
                               "INDEX_DATA, FRAMEBUFFER_SIZE, VIEWPORT, "
                               "DEPTH, STENCIL, BLEND, CULL_MODE, FRONT_FACE, "
                               "POLYGON_MODE, PATCH_CONTROL_POINTS, "
                               "SHADER_OPTIMIZATION, COMPILE_OPTIONS, "
                               "SUBGROUP, SET or END");
    }
    if (!s.ok()) return s;
  }
}

Status Parser::ParseAttach(Pipeline* p, int line) {
  auto name = Word("a shader name after ATTACH");
  if (!name.ok()) return name.error();
  const Shader* sh = scene_.FindShader(name->text);
  if (!sh) {
    return Error(name->line, "unknown shader '" + name->text + "' in ATTACH");
  }
  ShaderAttachment a;
  a.shader = sh->name;
  a.stage = sh->stage;
  a.line = line;
  bool typed = false;
  for (Token t = tok_.Next(); !t.is_end(); t = tok_.Next()) {
    if (t.text == "TYPE") {
      auto st = Word("a shader type after TYPE");
      if (!st.ok()) return st.error();
      auto stage = ParseStage(st->text);
      if (!stage || *stage == ShaderStage::kMulti) {
        return Error(st->line, "expected a shader type after TYPE, got '" +
                                   st->text + "'");
      }
      a.stage = *stage;
      typed = true;
    } else if (t.text == "ENTRY_POINT") {
      auto ep = Word("an entry point name after ENTRY_POINT");
      if (!ep.ok()) return ep.error();
      a.entry_point = ep->text;
    } else if (t.text == "SPECIALIZE") {
      SpecializationConstant sc;
      auto id = U32("a specialization id after SPECIALIZE");
      if (!id.ok()) return id.error();
      sc.id = *id;
      auto as = Word("AS");
      if (!as.ok()) return as.error();
      if (as->text != "AS") {
        return Error(as->line,
                     "expected AS after SPECIALIZE id, got '" + as->text + "'");
      }
      auto ty = OneOf("a 32-bit type after AS (uint32, int32, float)",
                      {"uint32", "int32", "float"});
      if (!ty.ok()) return ty.error();
      sc.type = *ty;
      auto v = Num("a value for SPECIALIZE " + std::to_string(sc.id));
      if (!v.ok()) return v.error();
      if (sc.type == "float") {
        sc.bits = std::bit_cast<uint32_t>(static_cast<float>(v->f));
      } else {
        if (v->is_float) {
          return Error(t.line, "expected an integer value for SPECIALIZE " +
                                   std::to_string(sc.id) + " AS " + sc.type);
        }
        sc.bits = static_cast<uint32_t>(v->i);
      }
      a.specializations.push_back(sc);
    } else {
      return Error(t.line, "unexpected '" + t.text +
                               "' after ATTACH; expected TYPE, ENTRY_POINT or "
                               "SPECIALIZE");
    }
  }
  if (sh->stage == ShaderStage::kMulti && !typed) {
    return Error(
        line, "ATTACH of multi shader '" + sh->name + "' needs TYPE <stage>");
  }
  // A shader attached again (e.g. in a derived pipeline) replaces the stage.
  for (auto& existing : p->shaders) {
    if (existing.stage == a.stage) {
      existing = a;
      return {};
    }
  }
  p->shaders.push_back(std::move(a));
  return {};
}

Status Parser::ParseShaderList(Pipeline* p, const std::string& cmd, int line) {
  auto name = Word("a shader name after " + cmd);
  if (!name.ok()) return name.error();
  ShaderAttachment* att = nullptr;
  for (auto& a : p->shaders) {
    if (a.shader == name->text) att = &a;
  }
  if (!att) {
    return Error(line, cmd + " names shader '" + name->text +
                           "', which is not ATTACHed to pipeline '" + p->name +
                           "'");
  }
  Status s = Eol(cmd + " " + name->text);
  if (!s.ok()) return s;
  std::vector<std::string>& list =
      cmd == "COMPILE_OPTIONS" ? att->compile_options : att->optimizations;
  while (true) {
    Token t = tok_.Next();
    if (t.kind == Token::kEol) continue;
    if (t.kind == Token::kEos) {
      return Error(line, cmd + " is missing its END");
    }
    if (t.text == "END") return Eol("END of " + cmd);
    list.push_back(t.text);
  }
}

Status Parser::ParseSubgroup(Pipeline* p, int line) {
  auto name = Word("a shader name after SUBGROUP");
  if (!name.ok()) return name.error();
  ShaderAttachment* att = nullptr;
  for (auto& a : p->shaders) {
    if (a.shader == name->text) att = &a;
  }
  if (!att) {
    return Error(line, "SUBGROUP names shader '" + name->text +
                           "', which is not ATTACHed to pipeline '" + p->name +
                           "'");
  }
  SubgroupSettings sg;
  while (true) {
    Token t = tok_.Next();
    if (t.kind == Token::kEol) continue;
    if (t.kind == Token::kEos)
      return Error(line, "SUBGROUP is missing its END");
    if (t.text == "END") break;
    if (t.text == "FULLY_POPULATED" || t.text == "VARYING_SIZE") {
      auto o = Word("on or off after " + t.text);
      if (!o.ok()) return o.error();
      bool* target =
          t.text == "FULLY_POPULATED" ? &sg.fully_populated : &sg.varying_size;
      if (!ParseOnOff(o->text, target)) {
        return Error(o->line, "expected on or off after " + t.text + ", got '" +
                                  o->text + "'");
      }
    } else if (t.text == "REQUIRED_SIZE") {
      auto v = Word("a size, MIN or MAX after REQUIRED_SIZE");
      if (!v.ok()) return v.error();
      if (v->text == "MIN" || v->text == "MAX") {
        return Unsup(v->line, "SUBGROUP REQUIRED_SIZE " + v->text);
      }
      auto n = ParseNumber(v->text);
      if (!n || n->is_float || n->i <= 0 || n->i > 128 || (n->i & (n->i - 1))) {
        return Error(v->line,
                     "expected a power-of-two subgroup size 1..128 "
                     "after REQUIRED_SIZE, got '" +
                         v->text + "'");
      }
      sg.required_size = static_cast<uint32_t>(n->i);
    } else {
      return Error(t.line, "unexpected '" + t.text +
                               "' in SUBGROUP; expected FULLY_POPULATED, "
                               "VARYING_SIZE, REQUIRED_SIZE or END");
    }
  }
  att->subgroup = sg;
  return Eol("END of SUBGROUP");
}

Status Parser::ParseBind(Pipeline* p, int line) {
  auto what = Word("BUFFER, BUFFER_ARRAY, SAMPLER or SAMPLER_ARRAY after BIND");
  if (!what.ok()) return what.error();
  Binding b;
  b.line = line;
  const std::string& w = what->text;
  bool is_sampler = w == "SAMPLER" || w == "SAMPLER_ARRAY";
  bool is_array = w == "BUFFER_ARRAY" || w == "SAMPLER_ARRAY";
  if (w != "BUFFER" && !is_sampler && w != "BUFFER_ARRAY") {
    return Error(what->line,
                 "expected BUFFER, BUFFER_ARRAY, SAMPLER or "
                 "SAMPLER_ARRAY after BIND, got '" +
                     w + "'");
  }
  // Names up to the first keyword.
  Token t = tok_.Next();
  while (t.is_word() && t.text != "AS" && t.text != "DESCRIPTOR_SET" &&
         t.text != "KERNEL") {
    if (is_sampler) {
      if (!scene_.FindSampler(t.text)) {
        return Error(t.line, "unknown sampler '" + t.text + "' in BIND");
      }
      b.samplers.push_back(t.text);
    } else {
      if (!scene_.FindBuffer(t.text)) {
        return Error(t.line, "unknown buffer '" + t.text + "' in BIND");
      }
      b.buffers.push_back(t.text);
    }
    t = tok_.Next();
    if (!is_array) break;
  }
  if (b.buffers.empty() && b.samplers.empty()) {
    return Error(t.line, "expected a " +
                             std::string(is_sampler ? "sampler" : "buffer") +
                             " name after BIND " + w + ", got " + t.Describe());
  }
  if (is_array && b.buffers.size() + b.samplers.size() < 2) {
    return Error(line, "BIND " + w + " needs at least two names");
  }
  b.kind = is_sampler ? BindingKind::kSampler : BindingKind::kStorage;
  bool has_kind = is_sampler;
  if (t.is_word() && t.text == "AS") {
    if (is_sampler) {
      return Error(t.line, "BIND " + w + " does not take AS");
    }
    auto k = Word("a binding kind after AS");
    if (!k.ok()) return k.error();
    auto kind = ParseBindingKind(k->text);
    if (!kind) {
      return Error(k->line,
                   "expected a binding kind after AS (storage, uniform, "
                   "storage_dynamic, uniform_dynamic, storage_texel_buffer, "
                   "uniform_texel_buffer, sampled_image, storage_image, "
                   "combined_image_sampler, color, depth_stencil, resolve, "
                   "push_constant), got '" +
                       k->text + "'");
    }
    b.kind = *kind;
    has_kind = true;
    t = tok_.Next();
  }
  if (!has_kind && !(t.is_word() && t.text == "KERNEL")) {
    return Error(t.line, "expected AS <kind> after BIND BUFFER name, got " +
                             t.Describe());
  }
  // Kind-specific leading parts.
  if (b.kind == BindingKind::kColor || b.kind == BindingKind::kResolve ||
      b.kind == BindingKind::kDepthStencil ||
      b.kind == BindingKind::kPushConstant) {
    if (p->type != PipelineType::kGraphics &&
        b.kind != BindingKind::kPushConstant) {
      return Error(line, std::string(BindingKindName(b.kind)) +
                             " attachments need a graphics pipeline");
    }
    if (b.kind == BindingKind::kColor) {
      if (!(t.is_word() && t.text == "LOCATION")) {
        return Error(t.line,
                     "expected LOCATION after AS color, got " + t.Describe());
      }
      auto loc = U32("a location after LOCATION");
      if (!loc.ok()) return loc.error();
      b.location = *loc;
      t = tok_.Next();
    }
  } else if (b.kind == BindingKind::kCombinedImageSampler) {
    if (!(t.is_word() && t.text == "SAMPLER")) {
      return Error(t.line,
                   "expected SAMPLER <name> after AS "
                   "combined_image_sampler, got " +
                       t.Describe());
    }
    t = tok_.Next();
    while (t.is_word() && t.text != "DESCRIPTOR_SET" && t.text != "KERNEL") {
      if (!scene_.FindSampler(t.text)) {
        return Error(t.line, "unknown sampler '" + t.text + "' in BIND");
      }
      b.samplers.push_back(t.text);
      t = tok_.Next();
    }
    if (b.samplers.empty()) {
      return Error(t.line, "expected a sampler name after SAMPLER");
    }
  }
  // Options.
  for (; !t.is_end(); t = tok_.Next()) {
    if (t.text == "DESCRIPTOR_SET") {
      auto ds = U32("a set number after DESCRIPTOR_SET");
      if (!ds.ok()) return ds.error();
      auto kw = Word("BINDING");
      if (!kw.ok()) return kw.error();
      if (kw->text != "BINDING") {
        return Error(
            kw->line,
            "expected BINDING after DESCRIPTOR_SET n, got '" + kw->text + "'");
      }
      auto bi = U32("a binding number after BINDING");
      if (!bi.ok()) return bi.error();
      b.descriptor_set = *ds;
      b.binding = *bi;
      b.has_descriptor = true;
    } else if (t.text == "KERNEL") {
      auto kw = Word("ARG_NAME or ARG_NUMBER after KERNEL");
      if (!kw.ok()) return kw.error();
      if (kw->text == "ARG_NAME") {
        auto n = Word("an argument name after ARG_NAME");
        if (!n.ok()) return n.error();
        b.kernel_arg_name = n->text;
      } else if (kw->text == "ARG_NUMBER") {
        auto n = U32("an argument number after ARG_NUMBER");
        if (!n.ok()) return n.error();
        b.kernel_arg_number = *n;
      } else {
        return Error(kw->line,
                     "expected ARG_NAME or ARG_NUMBER after KERNEL, "
                     "got '" +
                         kw->text + "'");
      }
      if (has_kind && !is_sampler) b.kernel_arg_kind = b.kind;
      if (!is_sampler) b.kind = BindingKind::kKernelArg;
    } else if (t.text == "BASE_MIP_LEVEL") {
      auto v = U32("a level after BASE_MIP_LEVEL");
      if (!v.ok()) return v.error();
      b.base_mip_level = *v;
    } else if (t.text == "OFFSET" || t.text == "DESCRIPTOR_OFFSET" ||
               t.text == "DESCRIPTOR_RANGE") {
      std::vector<uint64_t>& list = t.text == "OFFSET" ? b.dynamic_offsets
                                    : t.text == "DESCRIPTOR_OFFSET"
                                        ? b.descriptor_offsets
                                        : b.descriptor_ranges;
      size_t want = std::max<size_t>(1, b.buffers.size());
      for (size_t i = 0; i < want; ++i) {
        auto v = Uint("a value after " + t.text, UINT64_MAX >> 1);
        if (!v.ok()) return v.error();
        list.push_back(*v);
      }
    } else {
      return Error(t.line, "unexpected '" + t.text +
                               "' in BIND; expected DESCRIPTOR_SET, KERNEL, "
                               "BASE_MIP_LEVEL, OFFSET, DESCRIPTOR_OFFSET or "
                               "DESCRIPTOR_RANGE");
    }
  }
  bool needs_descriptor = b.kind != BindingKind::kColor &&
                          b.kind != BindingKind::kResolve &&
                          b.kind != BindingKind::kDepthStencil &&
                          b.kind != BindingKind::kPushConstant &&
                          b.kind != BindingKind::kKernelArg &&
                          !b.kernel_arg_number && b.kernel_arg_name.empty();
  if (needs_descriptor && !b.has_descriptor) {
    return Error(line, "BIND needs DESCRIPTOR_SET <n> BINDING <m>");
  }
  if ((b.kind == BindingKind::kStorageDynamic ||
       b.kind == BindingKind::kUniformDynamic) &&
      b.dynamic_offsets.empty()) {
    return Error(line, std::string("AS ") + BindingKindName(b.kind) +
                           " needs OFFSET <bytes>");
  }
  p->bindings.push_back(std::move(b));
  return {};
}

Status Parser::ParseVertexData(Pipeline* p, int line) {
  VertexData v;
  v.line = line;
  auto b = BufferName("VERTEX_DATA");
  if (!b.ok()) return b.error();
  v.buffer = *b;
  auto kw = Word("LOCATION");
  if (!kw.ok()) return kw.error();
  if (kw->text != "LOCATION") {
    return Error(kw->line, "expected LOCATION after VERTEX_DATA buffer, got '" +
                               kw->text + "'");
  }
  auto loc = U32("a location after LOCATION");
  if (!loc.ok()) return loc.error();
  v.location = *loc;
  for (Token t = tok_.Next(); !t.is_end(); t = tok_.Next()) {
    if (t.text == "RATE") {
      auto r = OneOf("vertex or instance after RATE", {"vertex", "instance"});
      if (!r.ok()) return r.error();
      v.per_instance = *r == "instance";
    } else if (t.text == "FORMAT") {
      auto f = Word("a format after FORMAT");
      if (!f.ok()) return f.error();
      auto fmt = ParseVulkanFormat(f->text);
      if (!fmt) {
        return Error(f->line, "unknown format '" + f->text + "'");
      }
      v.format = *fmt;
    } else if (t.text == "OFFSET") {
      auto o = U32("a byte offset after OFFSET");
      if (!o.ok()) return o.error();
      v.offset = *o;
    } else if (t.text == "STRIDE") {
      auto s = U32("a byte stride after STRIDE");
      if (!s.ok()) return s.error();
      if (*s == 0) return Error(t.line, "STRIDE must be positive");
      v.stride = *s;
    } else {
      return Error(t.line, "unexpected '" + t.text +
                               "' after VERTEX_DATA; expected RATE, FORMAT, "
                               "OFFSET or STRIDE");
    }
  }
  p->vertex_data.push_back(std::move(v));
  return {};
}

Status Parser::ParseKernelSet(Pipeline* p, int line) {
  auto kw = Word("KERNEL after SET");
  if (!kw.ok()) return kw.error();
  if (kw->text != "KERNEL") {
    return Error(kw->line, "expected KERNEL after SET in a pipeline, got '" +
                               kw->text + "'");
  }
  KernelArgValue a;
  a.line = line;
  auto which = Word("ARG_NAME or ARG_NUMBER");
  if (!which.ok()) return which.error();
  if (which->text == "ARG_NAME") {
    auto n = Word("an argument name after ARG_NAME");
    if (!n.ok()) return n.error();
    a.arg_name = n->text;
  } else if (which->text == "ARG_NUMBER") {
    auto n = U32("an argument number after ARG_NUMBER");
    if (!n.ok()) return n.error();
    a.arg_number = *n;
  } else {
    return Error(which->line,
                 "expected ARG_NAME or ARG_NUMBER, got '" + which->text + "'");
  }
  auto as = Word("AS");
  if (!as.ok()) return as.error();
  if (as->text != "AS") {
    return Error(as->line, "expected AS, got '" + as->text + "'");
  }
  auto ty = Word("a data type after AS");
  if (!ty.ok()) return ty.error();
  if (!ParseScalarTypeName(ty->text)) {
    return Error(ty->line,
                 "expected a scalar type after AS, got '" + ty->text + "'");
  }
  a.type = ty->text;
  auto v = Num("a value");
  if (!v.ok()) return v.error();
  a.value = *v;
  p->kernel_args.push_back(std::move(a));
  return Eol("SET KERNEL");
}

Status Parser::ParseDepth(Pipeline* p) {
  Status s = Eol("DEPTH");
  if (!s.ok()) return s;
  DepthState& d = p->depth;
  while (true) {
    Token t = tok_.Next();
    if (t.kind == Token::kEol) continue;
    if (t.kind == Token::kEos) return Error(t.line, "DEPTH is missing its END");
    const std::string& w = t.text;
    if (w == "END") return Eol("END of DEPTH");
    if (w == "TEST" || w == "WRITE" || w == "CLAMP") {
      auto o = Word("on or off after " + w);
      if (!o.ok()) return o.error();
      bool* target = w == "TEST" ? &d.test : w == "WRITE" ? &d.write : &d.clamp;
      if (!ParseOnOff(o->text, target)) {
        return Error(o->line, "expected on or off after " + w + ", got '" +
                                  o->text + "'");
      }
    } else if (w == "COMPARE_OP") {
      auto v = OneOf("a compare op after COMPARE_OP", CompareOps());
      if (!v.ok()) return v.error();
      d.compare_op = *v;
    } else if (w == "BOUNDS") {
      // BOUNDS min <f> max <f>
      for (const char* key : {"min", "max"}) {
        auto k = Word(std::string(key));
        if (!k.ok()) return k.error();
        if (k->text != key) {
          return Error(k->line, std::string("expected '") + key +
                                    "' in DEPTH BOUNDS, got '" + k->text + "'");
        }
        auto f = Float(std::string("a value after ") + key);
        if (!f.ok()) return f.error();
        (std::string(key) == "min" ? d.bounds_min : d.bounds_max) =
            static_cast<float>(*f);
      }
      d.bounds_test = true;
    } else if (w == "BIAS") {
      for (const char* key : {"constant", "clamp", "slope"}) {
        auto k = Word(std::string(key));
        if (!k.ok()) return k.error();
        if (k->text != key) {
          return Error(k->line, std::string("expected '") + key +
                                    "' in DEPTH BIAS, got '" + k->text + "'");
        }
        auto f = Float(std::string("a value after ") + key);
        if (!f.ok()) return f.error();
        float v = static_cast<float>(*f);
        std::string sk = key;
        (sk == "constant" ? d.bias_constant
         : sk == "clamp"  ? d.bias_clamp
                          : d.bias_slope) = v;
      }
      d.bias = true;
    } else {
      return Error(t.line, "unexpected '" + w +
                               "' in DEPTH; expected TEST, WRITE, CLAMP, "
                               "COMPARE_OP, BOUNDS, BIAS or END");
    }
    s = Eol("DEPTH " + w);
    if (!s.ok()) return s;
  }
}

Status Parser::ParseStencil(Pipeline* p) {
  auto face = OneOf("a face after STENCIL (front, back, front_and_back)",
                    {"front", "back", "front_and_back"});
  if (!face.ok()) return face.error();
  Status s = Eol("STENCIL " + *face);
  if (!s.ok()) return s;
  StencilFace f = *face == "back" ? p->stencil.back : p->stencil.front;
  while (true) {
    Token t = tok_.Next();
    if (t.kind == Token::kEol) continue;
    if (t.kind == Token::kEos) {
      return Error(t.line, "STENCIL is missing its END");
    }
    const std::string& w = t.text;
    if (w == "END") break;
    if (w == "TEST") {
      auto o = Word("on or off after TEST");
      if (!o.ok()) return o.error();
      if (!ParseOnOff(o->text, &p->stencil.test)) {
        return Error(o->line,
                     "expected on or off after TEST, got '" + o->text + "'");
      }
    } else if (w == "FAIL_OP" || w == "PASS_OP" || w == "DEPTH_FAIL_OP") {
      auto v = OneOf("a stencil op after " + w, StencilOps());
      if (!v.ok()) return v.error();
      (w == "FAIL_OP"   ? f.fail_op
       : w == "PASS_OP" ? f.pass_op
                        : f.depth_fail_op) = *v;
    } else if (w == "COMPARE_OP") {
      auto v = OneOf("a compare op after COMPARE_OP", CompareOps());
      if (!v.ok()) return v.error();
      f.compare_op = *v;
    } else if (w == "COMPARE_MASK" || w == "WRITE_MASK" || w == "REFERENCE") {
      auto v = U32("a value after " + w);
      if (!v.ok()) return v.error();
      (w == "COMPARE_MASK" ? f.compare_mask
       : w == "WRITE_MASK" ? f.write_mask
                           : f.reference) = *v;
    } else {
      return Error(t.line, "unexpected '" + w +
                               "' in STENCIL; expected TEST, FAIL_OP, PASS_OP, "
                               "DEPTH_FAIL_OP, COMPARE_OP, COMPARE_MASK, "
                               "WRITE_MASK, REFERENCE or END");
    }
    s = Eol("STENCIL " + w);
    if (!s.ok()) return s;
  }
  if (*face != "back") p->stencil.front = f;
  if (*face != "front") p->stencil.back = f;
  return Eol("END of STENCIL");
}

Status Parser::ParseBlend(Pipeline* p) {
  Status s = Eol("BLEND");
  if (!s.ok()) return s;
  BlendState& b = p->blend;
  b.enabled = true;
  while (true) {
    Token t = tok_.Next();
    if (t.kind == Token::kEol) continue;
    if (t.kind == Token::kEos) return Error(t.line, "BLEND is missing its END");
    const std::string& w = t.text;
    if (w == "END") return Eol("END of BLEND");
    std::string* target = w == "SRC_COLOR_FACTOR"   ? &b.src_color_factor
                          : w == "DST_COLOR_FACTOR" ? &b.dst_color_factor
                          : w == "SRC_ALPHA_FACTOR" ? &b.src_alpha_factor
                          : w == "DST_ALPHA_FACTOR" ? &b.dst_alpha_factor
                          : w == "COLOR_OP"         ? &b.color_op
                          : w == "ALPHA_OP"         ? &b.alpha_op
                                                    : nullptr;
    if (!target) {
      return Error(t.line, "unexpected '" + w +
                               "' in BLEND; expected SRC_COLOR_FACTOR, "
                               "DST_COLOR_FACTOR, COLOR_OP, SRC_ALPHA_FACTOR, "
                               "DST_ALPHA_FACTOR, ALPHA_OP or END");
    }
    bool is_op = w == "COLOR_OP" || w == "ALPHA_OP";
    auto v = OneOf((is_op ? "a blend op after " : "a blend factor after ") + w,
                   is_op ? BlendOps() : BlendFactors());
    if (!v.ok()) return v.error();
    *target = *v;
    s = Eol("BLEND " + w);
    if (!s.ok()) return s;
  }
}

Status Parser::ParseSet(int line) {
  auto kw = Word("ENGINE_DATA after SET");
  if (!kw.ok()) return kw.error();
  if (kw->text != "ENGINE_DATA") {
    return Error(kw->line,
                 "expected ENGINE_DATA after SET, got '" + kw->text + "'");
  }
  auto var = Word("an engine data variable after SET ENGINE_DATA");
  if (!var.ok()) return var.error();
  if (var->text != "fence_timeout_ms") {
    return Error(var->line, "unknown ENGINE_DATA variable '" + var->text +
                                "' (expected fence_timeout_ms)");
  }
  auto v = U32("a uint32 value for fence_timeout_ms");
  if (!v.ok()) return v.error();
  scene_.engine_data[var->text] = *v;
  return Eol("SET ENGINE_DATA");
}

Status Parser::ParseCommand(const Token& t, std::vector<Command>* out) {
  const std::string& w = t.text;
  if (w == "RUN") return ParseRun(t.line, out);
  if (w == "EXPECT") return ParseExpect(t.line, out);
  if (w == "REPEAT") return ParseRepeat(t.line, out);
  if (w == "COPY") {
    auto from = BufferName("COPY");
    if (!from.ok()) return from.error();
    auto to_kw = Word("TO");
    if (!to_kw.ok()) return to_kw.error();
    if (to_kw->text != "TO") {
      return Error(to_kw->line,
                   "expected TO after COPY buffer, got '" + to_kw->text + "'");
    }
    auto to = BufferName("COPY ... TO");
    if (!to.ok()) return to.error();
    if (*from == *to) {
      return Error(t.line, "COPY source and destination are the same buffer");
    }
    Buffer* dst = scene_.FindBuffer(*to);
    const Buffer* src = scene_.FindBuffer(*from);
    // Like Amber: an uninitialised destination mirrors the source.
    if (dst->bytes.empty() && !dst->size_from_framebuffer) {
      dst->width = src->width;
      dst->height = src->height;
    }
    out->push_back(Command{t.line, CopyCommand{*from, *to}});
    return Eol("COPY");
  }
  if (w == "CLEAR" || w == "CLEAR_COLOR" || w == "CLEAR_DEPTH" ||
      w == "CLEAR_STENCIL") {
    auto name = Word("a pipeline name after " + w);
    if (!name.ok()) return name.error();
    auto p = FindPipelineOr(name->text, t.line, w);
    if (!p.ok()) return p.error();
    if ((*p)->type != PipelineType::kGraphics) {
      return Error(t.line, w + " needs a graphics pipeline; '" + name->text +
                               "' is compute");
    }
    if (w == "CLEAR") {
      out->push_back(Command{t.line, ClearCommand{name->text}});
    } else if (w == "CLEAR_COLOR") {
      ClearColorCommand c;
      c.pipeline = name->text;
      float* dst[4] = {&c.r, &c.g, &c.b, &c.a};
      const char* names[4] = {"R", "G", "B", "A"};
      for (int i = 0; i < 4; ++i) {
        auto v =
            Uint(std::string("a ") + names[i] + " value for CLEAR_COLOR", 255);
        if (!v.ok()) return v.error();
        *dst[i] = static_cast<float>(*v) / 255.0f;
      }
      out->push_back(Command{t.line, c});
    } else if (w == "CLEAR_DEPTH") {
      auto v = Float("a depth value for CLEAR_DEPTH");
      if (!v.ok()) return v.error();
      out->push_back(Command{
          t.line, ClearDepthCommand{name->text, static_cast<float>(*v)}});
    } else {
      auto v = Uint("a stencil value for CLEAR_STENCIL", 255);
      if (!v.ok()) return v.error();
      out->push_back(Command{
          t.line, ClearStencilCommand{name->text, static_cast<uint32_t>(*v)}});
    }
    return Eol(w);
  }
  return Error(t.line, "unknown command '" + w +
                           "'; expected SHADER, BUFFER, IMAGE, SAMPLER, "
                           "STRUCT, PIPELINE, DERIVE_PIPELINE, RUN, CLEAR, "
                           "CLEAR_COLOR, CLEAR_DEPTH, CLEAR_STENCIL, COPY, "
                           "EXPECT, REPEAT, DEVICE_FEATURE, DEVICE_EXTENSION, "
                           "INSTANCE_EXTENSION, DEVICE_PROPERTY, SET or "
                           "VIRTUAL_FILE");
}

Status Parser::ParseRun(int line, std::vector<Command>* out) {
  RunCommand run;
  auto name = Word("a pipeline name after RUN");
  if (!name.ok()) return name.error();
  if (name->text == "TIMED_EXECUTION") {
    run.timed_execution = true;
    name = Word("a pipeline name after RUN TIMED_EXECUTION");
    if (!name.ok()) return name.error();
  }
  auto p = FindPipelineOr(name->text, line, "RUN");
  if (!p.ok()) return p.error();
  run.pipeline = name->text;
  bool graphics = (*p)->type == PipelineType::kGraphics;
  Token t = tok_.Next();
  if (t.is_word() && ParseNumber(t.text)) {
    if (graphics) {
      return Error(line, "RUN " + name->text +
                             " with workgroup counts needs a compute "
                             "pipeline; use DRAW_RECT, DRAW_GRID or "
                             "DRAW_ARRAY for graphics");
    }
    RunCompute c;
    uint32_t* dims[3] = {&c.x, &c.y, &c.z};
    for (int i = 0; i < 3; ++i) {
      std::optional<Number> n;
      if (i > 0) t = tok_.Next();
      if (t.is_word()) n = ParseNumber(t.text);
      const char* axis = i == 0 ? "X" : i == 1 ? "Y" : "Z";
      if (!n || n->is_float || n->i < 0 || n->i > 0xffffffffll) {
        return Error(t.line, std::string("expected an integer workgroup "
                                         "count ") +
                                 axis + " after RUN " + name->text + ", got " +
                                 t.Describe());
      }
      *dims[i] = static_cast<uint32_t>(n->i);
    }
    run.draw = c;
    out->push_back(Command{line, std::move(run)});
    return Eol("RUN");
  }
  if (!t.is_word()) {
    return Error(t.line,
                 "expected workgroup counts, DRAW_RECT, DRAW_GRID or "
                 "DRAW_ARRAY after RUN " +
                     name->text + ", got " + t.Describe());
  }
  if (!graphics) {
    return Error(line, "RUN " + name->text + " " + t.text +
                           " needs a graphics pipeline; '" + name->text +
                           "' is compute");
  }
  if (t.text == "DRAW_RECT" || t.text == "DRAW_GRID") {
    bool grid = t.text == "DRAW_GRID";
    float v[4];
    const char* kws[2] = {"POS", "SIZE"};
    for (int k = 0; k < 2; ++k) {
      auto kw = Word(kws[k]);
      if (!kw.ok()) return kw.error();
      if (kw->text != kws[k]) {
        return Error(kw->line, std::string("expected ") + kws[k] + " in " +
                                   t.text + ", got '" + kw->text + "'");
      }
      for (int i = 0; i < 2; ++i) {
        auto f = Float(std::string("a number after ") + kws[k]);
        if (!f.ok()) return f.error();
        v[k * 2 + i] = static_cast<float>(*f);
      }
    }
    if (grid) {
      RunDrawGrid g{v[0], v[1], v[2], v[3], 0, 0};
      auto kw = Word("CELLS");
      if (!kw.ok()) return kw.error();
      if (kw->text != "CELLS") {
        return Error(kw->line,
                     "expected CELLS in DRAW_GRID, got '" + kw->text + "'");
      }
      auto c = U32("a column count after CELLS");
      if (!c.ok()) return c.error();
      auto r = U32("a row count after CELLS columns");
      if (!r.ok()) return r.error();
      if (*c == 0 || *r == 0) {
        return Error(line, "DRAW_GRID CELLS must be at least 1x1");
      }
      g.columns = *c;
      g.rows = *r;
      run.draw = g;
    } else {
      run.draw = RunDrawRect{v[0], v[1], v[2], v[3]};
    }
    out->push_back(Command{line, std::move(run)});
    return Eol(t.text);
  }
  if (t.text == "DRAW_ARRAY") {
    RunDrawArray d;
    bool have_topology = false;
    for (Token o = tok_.Next(); !o.is_end(); o = tok_.Next()) {
      if (o.text == "AS") {
        auto topo = OneOf("a topology after AS", Topologies(), true);
        if (!topo.ok()) return topo.error();
        d.topology = *topo;
        have_topology = true;
      } else if (o.text == "INDEXED") {
        d.indexed = true;
      } else if (o.text == "START_IDX" || o.text == "COUNT" ||
                 o.text == "START_INSTANCE" || o.text == "INSTANCE_COUNT") {
        auto v = U32("a value after " + o.text);
        if (!v.ok()) return v.error();
        if (o.text == "START_IDX")
          d.start_index = *v;
        else if (o.text == "COUNT")
          d.count = *v;
        else if (o.text == "START_INSTANCE")
          d.start_instance = *v;
        else
          d.instance_count = *v;
      } else {
        return Error(o.line, "unexpected '" + o.text +
                                 "' in DRAW_ARRAY; expected AS, INDEXED, "
                                 "START_IDX, COUNT, START_INSTANCE or "
                                 "INSTANCE_COUNT");
      }
    }
    if (!have_topology) {
      return Error(line, "DRAW_ARRAY needs AS <topology>");
    }
    if (d.indexed && (*p)->index_data.empty()) {
      return Error(line, "DRAW_ARRAY INDEXED needs INDEX_DATA in pipeline '" +
                             name->text + "'");
    }
    run.draw = d;
    out->push_back(Command{line, std::move(run)});
    return {};
  }
  return Error(t.line,
               "expected workgroup counts, DRAW_RECT, DRAW_GRID or "
               "DRAW_ARRAY after RUN " +
                   name->text + ", got '" + t.text + "'");
}

// Reads TOLERANCE values ("0.1", "5%", "5 %") until a non-number; leaves the
// first token after them in *next.
Status Parser::ParseTolerances(std::vector<Tolerance>* out, Token* next) {
  Token t = tok_.Next();
  while (t.is_word()) {
    std::string s = t.text;
    bool percent = false;
    if (!s.empty() && s.back() == '%') {
      percent = true;
      s.pop_back();
    }
    auto n = ParseNumber(s);
    if (!n) break;
    if (n->f < 0) {
      return Error(t.line, "TOLERANCE values must not be negative, got '" +
                               t.text + "'");
    }
    Token after = tok_.Next();
    if (!percent && after.is_word() && after.text == "%") {
      percent = true;
      after = tok_.Next();
    }
    out->push_back(Tolerance{n->f, percent});
    t = after;
  }
  if (out->empty()) {
    return Error(t.line, "expected tolerance values after TOLERANCE, got " +
                             t.Describe());
  }
  if (out->size() > 4) {
    return Error(t.line, "TOLERANCE takes at most 4 values, got " +
                             std::to_string(out->size()));
  }
  *next = t;
  return {};
}

Status Parser::ParseExpect(int line, std::vector<Command>* out) {
  ExpectCommand e;
  auto name = Word("a buffer name after EXPECT");
  if (!name.ok()) return name.error();
  if (name->text == "IDX") {
    return Error(line, "expected a buffer name between EXPECT and IDX");
  }
  const Buffer* buf = scene_.FindBuffer(name->text);
  if (!buf) {
    return Error(line, "unknown buffer '" + name->text + "' in EXPECT");
  }
  e.buffer = name->text;
  auto kw = Word("IDX, EQ_BUFFER, RMSE_BUFFER or EQ_HISTOGRAM_EMD_BUFFER");
  if (!kw.ok()) return kw.error();
  if (kw->text == "EQ_BUFFER" || kw->text == "RMSE_BUFFER" ||
      kw->text == "EQ_HISTOGRAM_EMD_BUFFER") {
    e.comparator = kw->text == "EQ_BUFFER" ? Comparator::kEqBuffer
                   : kw->text == "RMSE_BUFFER"
                       ? Comparator::kRmseBuffer
                       : Comparator::kEqHistogramEmdBuffer;
    auto other = BufferName("EXPECT " + kw->text);
    if (!other.ok()) return other.error();
    e.other_buffer = *other;
    if (e.comparator != Comparator::kEqBuffer) {
      auto tk = Word("TOLERANCE");
      if (!tk.ok()) return tk.error();
      if (tk->text != "TOLERANCE") {
        return Error(tk->line, "expected TOLERANCE after EXPECT " + kw->text +
                                   " buffer, got '" + tk->text + "'");
      }
      auto tol = Float("a tolerance value");
      if (!tol.ok()) return tol.error();
      e.buffer_tolerance = *tol;
    }
    out->push_back(Command{line, std::move(e)});
    return Eol("EXPECT " + kw->text);
  }
  if (kw->text != "IDX") {
    return Error(kw->line,
                 "expected IDX, EQ_BUFFER, RMSE_BUFFER or "
                 "EQ_HISTOGRAM_EMD_BUFFER after EXPECT buffer, "
                 "got '" +
                     kw->text + "'");
  }
  auto x = Uint("an X value after IDX", UINT64_MAX >> 1);
  if (!x.ok()) return x.error();
  e.x = *x;
  Token t = tok_.Next();
  if (t.is_word()) {
    if (auto n = ParseNumber(t.text)) {
      if (n->is_float || n->i < 0) {
        return Error(t.line, "expected a Y value (integer) after IDX x, got '" +
                                 t.text + "'");
      }
      e.y = static_cast<uint64_t>(n->i);
      e.has_y = true;
      t = tok_.Next();
    }
  }
  if (t.is_word() && t.text == "SIZE") {
    if (!e.has_y) {
      return Error(t.line, "EXPECT IDX x y SIZE needs a Y value before SIZE");
    }
    auto w = U32("a width after SIZE");
    if (!w.ok()) return w.error();
    auto h = U32("a height after SIZE width");
    if (!h.ok()) return h.error();
    if (*w == 0 || *h == 0) {
      return Error(line, "EXPECT SIZE must be at least 1x1");
    }
    e.width = *w;
    e.height = *h;
    auto cmp = Word("EQ_RGB or EQ_RGBA");
    if (!cmp.ok()) return cmp.error();
    if (cmp->text != "EQ_RGB" && cmp->text != "EQ_RGBA") {
      return Error(cmp->line,
                   "expected EQ_RGB or EQ_RGBA after EXPECT ... "
                   "SIZE w h, got '" +
                       cmp->text + "'");
    }
    bool rgba = cmp->text == "EQ_RGBA";
    e.comparator = rgba ? Comparator::kEqRgba : Comparator::kEqRgb;
    const char* names[4] = {"R", "G", "B", "A"};
    for (int i = 0; i < (rgba ? 4 : 3); ++i) {
      auto v =
          Uint(std::string("a ") + names[i] + " value for " + cmp->text, 255);
      if (!v.ok()) return v.error();
      e.values.push_back(Number::Int(static_cast<int64_t>(*v)));
    }
    Token n = tok_.Next();
    if (n.is_word() && n.text == "TOLERANCE") {
      Status s = ParseTolerances(&e.tolerances, &n);
      if (!s.ok()) return s;
    }
    if (!n.is_end()) {
      return Error(n.line, "unexpected " + n.Describe() + " after EXPECT " +
                               cmp->text +
                               "; expected TOLERANCE or end of "
                               "line");
    }
    out->push_back(Command{line, std::move(e)});
    return {};
  }
  if (t.is_word() && t.text == "TOLERANCE") {
    Status s = ParseTolerances(&e.tolerances, &t);
    if (!s.ok()) return s;
  }
  static const std::map<std::string, Comparator> kCmp = {
      {"EQ", Comparator::kEq}, {"NE", Comparator::kNe},
      {"LT", Comparator::kLt}, {"LE", Comparator::kLe},
      {"GT", Comparator::kGt}, {"GE", Comparator::kGe}};
  auto it = t.is_word() ? kCmp.find(t.text) : kCmp.end();
  if (it == kCmp.end()) {
    return Error(t.line,
                 "expected a comparator (EQ, NE, LT, LE, GT, GE) in "
                 "EXPECT, got " +
                     t.Describe());
  }
  if (e.has_y) {
    return Error(t.line, "EXPECT " + t.text +
                             " takes one IDX value (a byte offset), not x y");
  }
  e.comparator = it->second;
  if (!e.tolerances.empty() && e.comparator != Comparator::kEq) {
    return Error(t.line, "TOLERANCE is only allowed with EQ");
  }
  for (Token v = tok_.Next(); !v.is_end(); v = tok_.Next()) {
    auto n = ParseNumber(v.text);
    if (!n) {
      return Error(v.line,
                   "expected a number in EXPECT values, got '" + v.text + "'");
    }
    e.values.push_back(*n);
  }
  if (e.values.empty()) {
    return Error(line, "EXPECT " + std::string(ComparatorName(e.comparator)) +
                           " needs at least one value");
  }
  out->push_back(Command{line, std::move(e)});
  return {};
}

Status Parser::ParseRepeat(int line, std::vector<Command>* out) {
  auto n = U32("a repeat count after REPEAT");
  if (!n.ok()) return n.error();
  if (*n == 0) return Error(line, "REPEAT count must be at least 1");
  Status s = Eol("REPEAT count");
  if (!s.ok()) return s;
  RepeatCommand r;
  r.count = *n;
  while (true) {
    Token t = tok_.Next();
    if (t.kind == Token::kEol) continue;
    if (t.kind == Token::kEos) return Error(line, "REPEAT is missing its END");
    if (t.text == "END") break;
    static const std::set<std::string> kRepeatable = {
        "RUN",         "EXPECT",        "CLEAR", "CLEAR_COLOR",
        "CLEAR_DEPTH", "CLEAR_STENCIL", "COPY",  "REPEAT"};
    if (!kRepeatable.count(t.text)) {
      return Error(t.line, "'" + t.text +
                               "' is not allowed inside REPEAT; expected RUN, "
                               "EXPECT, CLEAR, CLEAR_COLOR, CLEAR_DEPTH, "
                               "CLEAR_STENCIL, COPY or END");
    }
    s = ParseCommand(t, &r.commands);
    if (!s.ok()) return s;
  }
  out->push_back(Command{line, std::move(r)});
  return Eol("END of REPEAT");
}

Status Parser::FinishScene() {
  const std::string kDefaultColor = "framebuffer";
  for (Pipeline& p : scene_.pipelines) {
    if (p.type != PipelineType::kGraphics) continue;
    bool has_color = false;
    for (const Binding& b : p.bindings) {
      if (b.kind == BindingKind::kColor) has_color = true;
    }
    if (!has_color) {
      if (!scene_.FindBuffer(kDefaultColor)) {
        Buffer fb;
        fb.name = kDefaultColor;
        fb.line = p.line;
        fb.format = *ParseVulkanFormat("B8G8R8A8_UNORM");
        fb.from_format_keyword = true;
        fb.size_from_framebuffer = true;
        scene_.buffers.push_back(std::move(fb));
      }
      Binding b;
      b.kind = BindingKind::kColor;
      b.buffers.push_back(kDefaultColor);
      b.line = p.line;
      p.bindings.push_back(std::move(b));
    }
    for (const Binding& b : p.bindings) {
      if (b.kind != BindingKind::kColor &&
          b.kind != BindingKind::kDepthStencil &&
          b.kind != BindingKind::kResolve) {
        continue;
      }
      for (const std::string& name : b.buffers) {
        Buffer* buf = scene_.FindBuffer(name);
        if (!buf->size_from_framebuffer || buf->width) continue;
        uint32_t w = p.framebuffer_width >> b.base_mip_level;
        uint32_t h = p.framebuffer_height >> b.base_mip_level;
        buf->width = std::max(w, 1u);
        buf->height = std::max(h, 1u);
        buf->element_count = uint64_t{buf->width} * buf->height;
        auto bytes = CheckedBufferBytes(buf->format, buf->element_count);
        if (!bytes.ok()) return Error(buf->line, bytes.error().message);
        buf->bytes.assign(*bytes, 0);
      }
    }
  }
  return {};
}

}  // namespace

const char* ShaderStageName(ShaderStage s) {
  switch (s) {
    case ShaderStage::kVertex:
      return "vertex";
    case ShaderStage::kFragment:
      return "fragment";
    case ShaderStage::kCompute:
      return "compute";
    case ShaderStage::kGeometry:
      return "geometry";
    case ShaderStage::kTessControl:
      return "tessellation_control";
    case ShaderStage::kTessEvaluation:
      return "tessellation_evaluation";
    case ShaderStage::kMulti:
      return "multi";
  }
  return "?";
}

const char* ShaderFormatName(ShaderFormat f) {
  switch (f) {
    case ShaderFormat::kGlsl:
      return "GLSL";
    case ShaderFormat::kHlsl:
      return "HLSL";
    case ShaderFormat::kSpirvAsm:
      return "SPIRV-ASM";
    case ShaderFormat::kSpirvHex:
      return "SPIRV-HEX";
    case ShaderFormat::kSpirvBin:
      return "SPIRV-BIN";
    case ShaderFormat::kOpenClC:
      return "OPENCL-C";
  }
  return "?";
}

const char* BindingKindName(BindingKind k) {
  switch (k) {
    case BindingKind::kStorage:
      return "storage";
    case BindingKind::kUniform:
      return "uniform";
    case BindingKind::kStorageDynamic:
      return "storage_dynamic";
    case BindingKind::kUniformDynamic:
      return "uniform_dynamic";
    case BindingKind::kStorageTexelBuffer:
      return "storage_texel_buffer";
    case BindingKind::kUniformTexelBuffer:
      return "uniform_texel_buffer";
    case BindingKind::kSampled:
      return "sampled_image";
    case BindingKind::kStorageImage:
      return "storage_image";
    case BindingKind::kCombinedImageSampler:
      return "combined_image_sampler";
    case BindingKind::kColor:
      return "color";
    case BindingKind::kDepthStencil:
      return "depth_stencil";
    case BindingKind::kResolve:
      return "resolve";
    case BindingKind::kPushConstant:
      return "push_constant";
    case BindingKind::kSampler:
      return "sampler";
    case BindingKind::kKernelArg:
      return "kernel_arg";
  }
  return "?";
}

const char* ComparatorName(Comparator c) {
  switch (c) {
    case Comparator::kEq:
      return "EQ";
    case Comparator::kNe:
      return "NE";
    case Comparator::kLt:
      return "LT";
    case Comparator::kLe:
      return "LE";
    case Comparator::kGt:
      return "GT";
    case Comparator::kGe:
      return "GE";
    case Comparator::kEqRgb:
      return "EQ_RGB";
    case Comparator::kEqRgba:
      return "EQ_RGBA";
    case Comparator::kEqBuffer:
      return "EQ_BUFFER";
    case Comparator::kRmseBuffer:
      return "RMSE_BUFFER";
    case Comparator::kEqHistogramEmdBuffer:
      return "EQ_HISTOGRAM_EMD_BUFFER";
  }
  return "?";
}

const Shader* Scene::FindShader(const std::string& name) const {
  for (const auto& s : shaders) {
    if (s.name == name) return &s;
  }
  return nullptr;
}
const Buffer* Scene::FindBuffer(const std::string& name) const {
  for (const auto& b : buffers) {
    if (b.name == name) return &b;
  }
  return nullptr;
}
Buffer* Scene::FindBuffer(const std::string& name) {
  for (auto& b : buffers) {
    if (b.name == name) return &b;
  }
  return nullptr;
}
const Sampler* Scene::FindSampler(const std::string& name) const {
  for (const auto& s : samplers) {
    if (s.name == name) return &s;
  }
  return nullptr;
}
const Pipeline* Scene::FindPipeline(const std::string& name) const {
  for (const auto& p : pipelines) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

Result<Scene> ParseAmberScript(std::string_view text,
                               const std::string& file_path) {
  Parser parser(text, file_path);
  return parser.Parse();
}

Result<Scene> ParseSceneText(std::string_view text,
                             const std::string& file_path) {
  if (vkscript::LooksLikeVkScript(text)) return ParseVkScript(text, file_path);
  return ParseAmberScript(text, file_path);
}

Result<Scene> ParseAmberFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return InvalidInput("cannot open AmberScript file '" + path + "'",
                        SourcePos{path, 0, -1, ""});
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  return ParseSceneText(text, path);
}

}  // namespace warpsim::scene
