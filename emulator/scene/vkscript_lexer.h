// VkScript lexing: splits a file into [sections] and a section's text into
// logical lines of words.
//
// A VkScript file (Amber's older format, docs/vk_script.md there) is a list
// of sections. A line whose first character is '[' opens one; the name runs
// to the last ']' on the line. Before the first section only blank lines and
// '#' comments may appear. Shader sections keep their text verbatim; the
// other sections are read as logical lines:
//
//   - '#' starts a comment that runs to the end of the physical line;
//   - a '\' at the end of a line joins the next line to it;
//   - words are separated by blanks; '(', ')' and ',' are words of their own
//     ("(0.5, 1)" is "(", "0.5", ",", "1", ")").
#ifndef WARPSIM_SCENE_VKSCRIPT_LEXER_H_
#define WARPSIM_SCENE_VKSCRIPT_LEXER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostic.h"
#include "scene/scene.h"

namespace warpsim::scene::vkscript {

enum class SectionKind {
  kRequire,
  kShader,
  kVertexData,
  kIndices,
  kTest,
  kComment,
};

struct Section {
  SectionKind kind = SectionKind::kComment;
  std::string header;  // the text between '[' and ']'
  int header_line = 0;
  // Shader sections only.
  ShaderStage stage = ShaderStage::kVertex;
  ShaderFormat format = ShaderFormat::kGlsl;
  bool passthrough = false;
  // The lines after the header, up to the next header; lines[i] is line
  // header_line + 1 + i of the file.
  std::vector<std::string> lines;
};

// Splits `text` into sections. Errors are InvalidInput at file:line.
Result<std::vector<Section>> SplitSections(std::string_view text,
                                           const std::string& file);

// One logical line: its words and the file line it starts on.
struct WordLine {
  int line = 0;
  std::vector<std::string> words;
};

// Logical lines of a non-shader section (blank and comment-only lines are
// dropped).
std::vector<WordLine> SectionWordLines(const Section& section);

// Shader source: the section's lines joined, trailing blank lines dropped.
std::string SectionText(const Section& section);

// True when the first line that is neither blank nor a '#' comment starts
// with '[' (after leading blanks).
bool LooksLikeVkScript(std::string_view text);

// Number words. Integers: decimal with optional sign, or 0x hex.
std::optional<int64_t> ParseIntWord(const std::string& w);
// Any integer or decimal/scientific float word ("1", "-0.5", "1e3", "inf"
// is not accepted).
std::optional<double> ParseFloatWord(const std::string& w);

}  // namespace warpsim::scene::vkscript

#endif  // WARPSIM_SCENE_VKSCRIPT_LEXER_H_
