// The SPIR-V binary form: header, instruction boundaries, operands, and the
// ways SPIR-V words arrive (.spv files, Amber's SPIRV-HEX text).
//
// Everything here checks structure only (magic, version, word counts, operand
// shapes from the generated grammar); semantic rules are left to the
// validator (compile.h). Diagnostics point at a SPIR-V word offset and the
// opcode found there.
#ifndef WARPSIM_SPIRV_BINARY_H_
#define WARPSIM_SPIRV_BINARY_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostic.h"
#include "spirv/grammar.h"

namespace warpsim::spirv {

inline constexpr uint32_t kSpirvMagic = 0x07230203u;
inline constexpr size_t kHeaderWords = 5;

// The five header words.
struct Header {
  uint32_t magic = kSpirvMagic;
  uint32_t version = 0;    // 0x00MMmm00: major MM, minor mm
  uint32_t generator = 0;  // tool id << 16 | tool version
  uint32_t bound = 0;      // every <id> is < bound
  uint32_t schema = 0;
  int major() const { return static_cast<int>((version >> 16) & 0xff); }
  int minor() const { return static_cast<int>((version >> 8) & 0xff); }
};

// One instruction of a module. `words` views the caller's word array (the
// whole instruction, first word included) and lives as long as that array.
struct Instruction {
  uint32_t opcode = 0;
  uint32_t word_offset = 0;  // offset of the first word in the module
  std::span<const uint32_t> words;

  uint32_t word_count() const { return static_cast<uint32_t>(words.size()); }
  // Grammar entry, nullptr for an opcode the grammar does not know.
  const OpcodeInfo* info() const { return FindOpcode(opcode); }
};

// A split module: its header and its instructions in order.
struct SplitModule {
  Header header;
  std::vector<Instruction> instructions;
};

// Reverses the byte order of every word when the module's magic number
// appears byte-swapped; returns true if it swapped. Loaders call this so that
// the rest of warpsim sees host-order words only.
bool NormalizeByteOrder(std::vector<uint32_t>* words);

// Checks the header (magic, version 1.0..1.6, non-zero bound) of host-order
// words.
Result<Header> ParseHeader(std::span<const uint32_t> words,
                           const std::string& file);

// Splits host-order words into instructions, checking the header, zero word
// counts, truncated instructions and unknown opcodes. A byte-swapped module
// is reported (call NormalizeByteOrder first).
Result<SplitModule> SplitInstructions(std::span<const uint32_t> words,
                                      const std::string& file);

// One decoded operand: its kind (after expanding composites and enumerant
// parameters) and the words it occupies inside the instruction.
struct Operand {
  OperandKind kind;
  uint32_t first_word = 0;  // index into Instruction::words
  uint32_t word_count = 0;
};

// Walks `inst`'s operands following the grammar: optional and variadic
// operands, literal strings, parameters of enumerants (Decoration Offset 16,
// ImageOperands Bias|Lod), and composite pairs. `switch_literal_words` is the
// width in words of OpSwitch case literals (1 for 32-bit selectors, 2 for
// 64-bit); a LiteralContextDependentNumber of OpConstant/OpSpecConstant takes
// all remaining words. Fails on operands that overrun the instruction or on
// words left over.
Result<std::vector<Operand>> DecodeOperands(const Instruction& inst,
                                            const std::string& file,
                                            uint32_t switch_literal_words = 1);

// Decodes a nul-terminated, zero-padded literal string starting at words[0];
// sets *word_count to the words it occupies. Fails if no nul byte is found.
Result<std::string> DecodeLiteralString(std::span<const uint32_t> words,
                                        uint32_t* word_count);

// The string of an instruction operand: convenience for DecodeLiteralString
// on inst.words.subspan(first_word). Returns "" on malformed input.
std::string LiteralStringAt(const Instruction& inst, uint32_t first_word);

// Packs bytes (little-endian words, as in a .spv file) into words, fixing
// the byte order; fails unless the size is a multiple of 4.
Result<std::vector<uint32_t>> WordsFromBytes(std::span<const uint8_t> bytes,
                                             const std::string& file);

// Reads a binary .spv file into host-order words.
Result<std::vector<uint32_t>> ReadSpvFile(const std::string& path);

// Parses Amber's SPIRV-HEX text: whitespace-separated hex bytes (optionally
// "0x"-prefixed), four per word, least significant byte first, as in a .spv
// file. '#' starts a comment to the end of the line. `first_line` is the
// line of `text` within `file` (for diagnostics).
Result<std::vector<uint32_t>> ParseSpirvHex(std::string_view text,
                                            const std::string& file,
                                            int first_line = 1);

}  // namespace warpsim::spirv

#endif  // WARPSIM_SPIRV_BINARY_H_
