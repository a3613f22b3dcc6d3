#include "scene/vkscript_lexer.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace warpsim::scene::vkscript {
namespace {

std::string_view StripCr(std::string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

bool IsBlank(std::string_view s) {
  return s.find_first_not_of(" \t\r") == std::string_view::npos;
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Fills the kind, stage and format of `sec` from its header name.
Status ClassifyHeader(Section* sec, const std::string& file) {
  auto bad = [&](const std::string& msg) {
    return InvalidInput(msg, SourcePos{file, sec->header_line});
  };
  std::string name = sec->header;
  bool has_format = false;
  if (EndsWith(name, " spirv hex")) {
    sec->format = ShaderFormat::kSpirvHex;
    name.resize(name.size() - 10);
    has_format = true;
  } else if (EndsWith(name, " spirv")) {
    sec->format = ShaderFormat::kSpirvAsm;
    name.resize(name.size() - 6);
    has_format = true;
  } else if (EndsWith(name, " passthrough")) {
    sec->format = ShaderFormat::kSpirvAsm;
    sec->passthrough = true;
    name.resize(name.size() - 12);
    has_format = true;
  }
  struct Stage {
    const char* name;
    ShaderStage stage;
  };
  static const Stage kStages[] = {
      {"vertex shader", ShaderStage::kVertex},
      {"fragment shader", ShaderStage::kFragment},
      {"compute shader", ShaderStage::kCompute},
      {"geometry shader", ShaderStage::kGeometry},
      {"tessellation control shader", ShaderStage::kTessControl},
      {"tessellation evaluation shader", ShaderStage::kTessEvaluation},
  };
  for (const Stage& s : kStages) {
    if (name == s.name) {
      sec->kind = SectionKind::kShader;
      sec->stage = s.stage;
      if (sec->passthrough && s.stage != ShaderStage::kVertex) {
        return bad("only a vertex shader can be 'passthrough': [" +
                   sec->header + "]");
      }
      return {};
    }
  }
  if (name == "require") {
    sec->kind = SectionKind::kRequire;
  } else if (name == "vertex data") {
    sec->kind = SectionKind::kVertexData;
  } else if (name == "indices") {
    sec->kind = SectionKind::kIndices;
  } else if (name == "test") {
    sec->kind = SectionKind::kTest;
  } else if (name == "comment") {
    sec->kind = SectionKind::kComment;
  } else {
    return bad("unknown section [" + sec->header +
               "]; expected require, vertex data, indices, test, comment or "
               "a '<stage> shader [spirv|spirv hex|passthrough]' section");
  }
  if (has_format) {
    return bad("a shader format is only allowed on shader sections: [" +
               sec->header + "]");
  }
  return {};
}

}  // namespace

bool LooksLikeVkScript(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view ln = text.substr(pos, end - pos);
    pos = end + 1;
    size_t b = ln.find_first_not_of(" \t\r");
    if (b == std::string_view::npos || ln[b] == '#') continue;
    return ln[b] == '[';
  }
  return false;
}

Result<std::vector<Section>> SplitSections(std::string_view text,
                                           const std::string& file) {
  std::vector<Section> sections;
  size_t pos = 0;
  int line = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view ln = StripCr(text.substr(pos, end - pos));
    pos = end + 1;
    ++line;
    if (!ln.empty() && ln[0] == '[') {
      size_t close = ln.rfind(']');
      if (close == std::string_view::npos) {
        return InvalidInput("section header without a closing ']'",
                            SourcePos{file, line});
      }
      if (!IsBlank(ln.substr(close + 1))) {
        return InvalidInput("unexpected text after the section header ']'",
                            SourcePos{file, line});
      }
      Section sec;
      sec.header = std::string(ln.substr(1, close - 1));
      sec.header_line = line;
      if (Status s = ClassifyHeader(&sec, file); !s.ok()) return s.error();
      sections.push_back(std::move(sec));
      continue;
    }
    if (sections.empty()) {
      size_t b = ln.find_first_not_of(" \t");
      if (b == std::string_view::npos || ln[b] == '#') continue;
      return InvalidInput(
          "expected a [section] header before any other text in a VkScript "
          "file",
          SourcePos{file, line});
    }
    sections.back().lines.emplace_back(ln);
  }
  return sections;
}

std::vector<WordLine> SectionWordLines(const Section& section) {
  std::vector<WordLine> out;
  WordLine cur;
  bool continuing = false;
  for (size_t i = 0; i < section.lines.size(); ++i) {
    const int line = section.header_line + 1 + static_cast<int>(i);
    std::string_view ln = section.lines[i];
    if (size_t hash = ln.find('#'); hash != std::string_view::npos) {
      ln = ln.substr(0, hash);
    }
    size_t last = ln.find_last_not_of(" \t");
    bool joins = last != std::string_view::npos && ln[last] == '\\';
    if (joins) ln = ln.substr(0, last);
    if (!continuing) cur = WordLine{line, {}};
    std::string word;
    auto flush = [&] {
      if (!word.empty()) cur.words.push_back(std::move(word));
      word.clear();
    };
    for (char c : ln) {
      if (c == ' ' || c == '\t') {
        flush();
      } else if (c == '(' || c == ')' || c == ',') {
        flush();
        cur.words.emplace_back(1, c);
      } else {
        word.push_back(c);
      }
    }
    flush();
    continuing = joins;
    if (!continuing && !cur.words.empty()) out.push_back(std::move(cur));
  }
  if (continuing && !cur.words.empty()) out.push_back(std::move(cur));
  return out;
}

std::string SectionText(const Section& section) {
  size_t n = section.lines.size();
  while (n > 0 && IsBlank(section.lines[n - 1])) --n;
  std::string text;
  for (size_t i = 0; i < n; ++i) {
    text += section.lines[i];
    text += '\n';
  }
  return text;
}

std::optional<int64_t> ParseIntWord(const std::string& w) {
  if (w.empty()) return std::nullopt;
  size_t i = 0;
  bool neg = false;
  if (w[0] == '-' || w[0] == '+') {
    neg = w[0] == '-';
    i = 1;
  }
  int base = 10;
  if (w.size() > i + 2 && w[i] == '0' && (w[i + 1] == 'x' || w[i + 1] == 'X')) {
    base = 16;
    i += 2;
  }
  if (i >= w.size()) return std::nullopt;
  uint64_t v = 0;
  for (; i < w.size(); ++i) {
    char c = w[i];
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return std::nullopt;
    }
    if (v >
        (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base))
      return std::nullopt;  // does not fit 64 bits
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  if (neg) {
    if (v > uint64_t{1} << 63) return std::nullopt;
    return static_cast<int64_t>(0 - v);
  }
  return static_cast<int64_t>(v);  // two's complement bits for v >= 2^63
}

std::optional<double> ParseFloatWord(const std::string& w) {
  if (w.empty()) return std::nullopt;
  if (auto i = ParseIntWord(w)) {
    // Hex words are bit patterns of integers; as a float they are values.
    return static_cast<double>(*i);
  }
  for (char c : w) {
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' ||
          c == 'e' || c == 'E')) {
      return std::nullopt;
    }
  }
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(w.c_str(), &end);
  if (end != w.c_str() + w.size() || errno == ERANGE || !std::isfinite(v))
    return std::nullopt;
  return v;
}

}  // namespace warpsim::scene::vkscript
