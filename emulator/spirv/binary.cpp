#include "spirv/binary.h"

#include <cctype>
#include <fstream>
#include <iterator>

namespace warpsim::spirv {
namespace {

SourcePos FilePos(const std::string& file, int line = 0) {
  SourcePos pos;
  pos.file = file;
  pos.line = line;
  return pos;
}

uint32_t ByteSwap(uint32_t w) {
  return (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) | (w << 24);
}

std::string Hex(uint32_t v) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) {
    out += kDigits[(v >> shift) & 0xf];
  }
  return out;
}

SourcePos WordPos(const std::string& file, uint32_t word, uint32_t opcode) {
  SourcePos pos;
  pos.file = file;
  pos.word = word;
  std::string_view name = OpcodeName(opcode);
  pos.opcode =
      name.empty() ? "opcode " + std::to_string(opcode) : std::string(name);
  return pos;
}

// Operand decoding state for one instruction.
class OperandDecoder {
 public:
  OperandDecoder(const Instruction& inst, const std::string& file,
                 uint32_t switch_literal_words)
      : inst_(inst),
        file_(file),
        switch_literal_words_(switch_literal_words),
        pos_(1) {}

  Status DecodeList(std::span<const OperandInfo> list) {
    for (const OperandInfo& operand : list) {
      switch (operand.quantifier) {
        case Quantifier::kOne:
          if (!HasMore()) {
            return Error("missing operand " + Describe(operand));
          }
          if (Status s = DecodeOne(operand.kind); !s) return s;
          break;
        case Quantifier::kOptional:
          if (HasMore()) {
            if (Status s = DecodeOne(operand.kind); !s) return s;
          }
          break;
        case Quantifier::kVariadic:
          while (HasMore()) {
            if (Status s = DecodeOne(operand.kind); !s) return s;
          }
          break;
      }
    }
    return {};
  }

  bool HasMore() const { return pos_ < inst_.word_count(); }
  std::vector<Operand>& operands() { return operands_; }

  Diagnostic Error(const std::string& message) const {
    return InvalidInput(message,
                        WordPos(file_, inst_.word_offset, inst_.opcode));
  }

 private:
  static std::string Describe(const OperandInfo& operand) {
    std::string out(OperandKindName(operand.kind));
    if (!operand.name.empty()) out += " " + std::string(operand.name);
    return out;
  }

  Status Take(OperandKind kind, uint32_t words) {
    if (words == 0 || pos_ + words > inst_.word_count()) {
      return Error("operand " + std::string(OperandKindName(kind)) +
                   " runs past the end of the instruction (word count " +
                   std::to_string(inst_.word_count()) + ")");
    }
    operands_.push_back(Operand{kind, pos_, words});
    pos_ += words;
    return {};
  }

  Status DecodeOne(OperandKind kind) {
    const OperandKindInfo& info = GetOperandKindInfo(kind);
    switch (info.category) {
      case OperandCategory::kId:
        return Take(kind, 1);
      case OperandCategory::kLiteral:
        return DecodeLiteral(kind);
      case OperandCategory::kComposite:
        for (OperandKind base : info.bases) {
          // OpSwitch's (literal, label) pairs: the literal is as wide as
          // the selector.
          if (kind == OperandKind::kPairLiteralIntegerIdRef &&
              base == OperandKind::kLiteralInteger) {
            if (Status s = Take(base, switch_literal_words_); !s) return s;
            continue;
          }
          if (Status s = DecodeOne(base); !s) return s;
        }
        return {};
      case OperandCategory::kValueEnum: {
        const uint32_t value = inst_.words[pos_];
        if (Status s = Take(kind, 1); !s) return s;
        const EnumerantInfo* e = FindEnumerant(kind, value);
        if (e == nullptr) return {};  // the validator names unknown values
        return DecodeList(e->parameters);
      }
      case OperandCategory::kBitEnum: {
        const uint32_t mask = inst_.words[pos_];
        if (Status s = Take(kind, 1); !s) return s;
        // Parameters follow in the order of the mask bits, lowest first.
        for (int bit = 0; bit < 32; ++bit) {
          if ((mask & (1u << bit)) == 0) continue;
          const EnumerantInfo* e = FindEnumerant(kind, 1u << bit);
          if (e == nullptr) continue;
          if (Status s = DecodeList(e->parameters); !s) return s;
        }
        return {};
      }
    }
    return {};
  }

  Status DecodeLiteral(OperandKind kind) {
    if (kind == OperandKind::kLiteralString) {
      uint32_t count = 0;
      Result<std::string> str =
          DecodeLiteralString(inst_.words.subspan(pos_), &count);
      if (!str) return Error(str.error().message);
      return Take(kind, count);
    }
    if (kind == OperandKind::kLiteralContextDependentNumber) {
      // Only OpConstant / OpSpecConstant use it, as their last operand: the
      // value's width is that of the result type.
      return Take(kind, inst_.word_count() - pos_);
    }
    return Take(kind, 1);
  }

  const Instruction& inst_;
  const std::string& file_;
  uint32_t switch_literal_words_;
  uint32_t pos_;
  std::vector<Operand> operands_;
};

}  // namespace

bool NormalizeByteOrder(std::vector<uint32_t>* words) {
  if (words->empty() || (*words)[0] != ByteSwap(kSpirvMagic)) return false;
  for (uint32_t& w : *words) w = ByteSwap(w);
  return true;
}

Result<Header> ParseHeader(std::span<const uint32_t> words,
                           const std::string& file) {
  SourcePos pos = FilePos(file);
  pos.word = 0;
  if (words.size() < kHeaderWords) {
    return InvalidInput("module has " + std::to_string(words.size()) +
                            " words, fewer than the 5-word header",
                        pos);
  }
  Header h{words[0], words[1], words[2], words[3], words[4]};
  if (h.magic == ByteSwap(kSpirvMagic)) {
    return InvalidInput("module is byte-swapped (magic " + Hex(h.magic) +
                            "); the loader must normalize the byte order first",
                        pos);
  }
  if (h.magic != kSpirvMagic) {
    return InvalidInput(
        "bad magic number " + Hex(h.magic) + ", expected " + Hex(kSpirvMagic),
        pos);
  }
  pos.word = 1;
  if ((h.version & 0xff0000ffu) != 0 || h.major() != 1 || h.minor() > 6) {
    return InvalidInput("unsupported SPIR-V version word " + Hex(h.version) +
                            " (expected 1.0 to 1.6)",
                        pos);
  }
  pos.word = 3;
  if (h.bound == 0) {
    return InvalidInput("id bound is 0; every module needs a bound > 0", pos);
  }
  return h;
}

Result<SplitModule> SplitInstructions(std::span<const uint32_t> words,
                                      const std::string& file) {
  Result<Header> header = ParseHeader(words, file);
  if (!header) return header.error();
  SplitModule out;
  out.header = *header;
  size_t offset = kHeaderWords;
  while (offset < words.size()) {
    const uint32_t first = words[offset];
    const uint32_t opcode = first & 0xffffu;
    const uint32_t count = first >> 16;
    const uint32_t at = static_cast<uint32_t>(offset);
    if (count == 0) {
      return InvalidInput("instruction word count is 0",
                          WordPos(file, at, opcode));
    }
    if (offset + count > words.size()) {
      return InvalidInput("truncated instruction: word count " +
                              std::to_string(count) + " but only " +
                              std::to_string(words.size() - offset) +
                              " words remain in the module",
                          WordPos(file, at, opcode));
    }
    const OpcodeInfo* info = FindOpcode(opcode);
    if (info == nullptr) {
      return InvalidInput("unknown opcode " + std::to_string(opcode),
                          WordPos(file, at, opcode));
    }
    out.instructions.push_back(
        Instruction{opcode, at, words.subspan(offset, count)});
    offset += count;
  }
  return out;
}

Result<std::vector<Operand>> DecodeOperands(const Instruction& inst,
                                            const std::string& file,
                                            uint32_t switch_literal_words) {
  OperandDecoder decoder(inst, file, switch_literal_words);
  const OpcodeInfo* info = inst.info();
  if (info == nullptr) {
    return decoder.Error("unknown opcode " + std::to_string(inst.opcode));
  }
  if (Status s = decoder.DecodeList(info->operands); !s) return s.error();
  if (decoder.HasMore()) {
    return decoder.Error(
        "instruction has words left over after its operands"
        " (word count " +
        std::to_string(inst.word_count()) + ")");
  }
  return std::move(decoder.operands());
}

Result<std::string> DecodeLiteralString(std::span<const uint32_t> words,
                                        uint32_t* word_count) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    for (int byte = 0; byte < 4; ++byte) {
      const char c = static_cast<char>((words[i] >> (8 * byte)) & 0xff);
      if (c == '\0') {
        *word_count = static_cast<uint32_t>(i + 1);
        return out;
      }
      out += c;
    }
  }
  return InvalidInput("literal string is not nul-terminated");
}

std::string LiteralStringAt(const Instruction& inst, uint32_t first_word) {
  if (first_word >= inst.word_count()) return "";
  uint32_t count = 0;
  Result<std::string> s =
      DecodeLiteralString(inst.words.subspan(first_word), &count);
  return s ? *s : "";
}

Result<std::vector<uint32_t>> WordsFromBytes(std::span<const uint8_t> bytes,
                                             const std::string& file) {
  if (bytes.size() % 4 != 0) {
    return InvalidInput("SPIR-V binary has " + std::to_string(bytes.size()) +
                            " bytes, not a multiple of 4",
                        FilePos(file));
  }
  std::vector<uint32_t> words(bytes.size() / 4);
  for (size_t i = 0; i < words.size(); ++i) {
    words[i] = uint32_t{bytes[4 * i]} | uint32_t{bytes[4 * i + 1]} << 8 |
               uint32_t{bytes[4 * i + 2]} << 16 |
               uint32_t{bytes[4 * i + 3]} << 24;
  }
  NormalizeByteOrder(&words);
  return words;
}

Result<std::vector<uint32_t>> ReadSpvFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidInput("cannot open SPIR-V file", FilePos(path));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad()) return InvalidInput("cannot read SPIR-V file", FilePos(path));
  return WordsFromBytes(bytes, path);
}

Result<std::vector<uint32_t>> ParseSpirvHex(std::string_view text,
                                            const std::string& file,
                                            int first_line) {
  std::vector<uint8_t> bytes;
  int line = first_line;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() &&
           !std::isspace(static_cast<unsigned char>(text[end])) &&
           text[end] != '#') {
      ++end;
    }
    std::string_view token = text.substr(i, end - i);
    std::string_view digits = token;
    if (digits.size() > 2 && digits[0] == '0' &&
        (digits[1] == 'x' || digits[1] == 'X')) {
      digits.remove_prefix(2);
    }
    bool valid = !digits.empty() && digits.size() <= 2;
    uint32_t value = 0;
    for (char d : digits) {
      if (!std::isxdigit(static_cast<unsigned char>(d))) {
        valid = false;
        break;
      }
      value = value * 16 +
              static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(d))
                                        ? d - '0'
                                        : std::tolower(d) - 'a' + 10);
    }
    if (!valid) {
      return InvalidInput(
          "SPIRV-HEX: '" + std::string(token) + "' is not a hex byte (00..ff)",
          FilePos(file, line));
    }
    bytes.push_back(static_cast<uint8_t>(value));
    i = end;
  }
  if (bytes.size() % 4 != 0) {
    return InvalidInput("SPIRV-HEX: " + std::to_string(bytes.size()) +
                            " bytes is not a whole number of 32-bit words",
                        FilePos(file, line));
  }
  return WordsFromBytes(bytes, file);
}

}  // namespace warpsim::spirv
