#include "spirv/disassemble.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

namespace warpsim::spirv {
namespace {

// What the printer needs to know about a numeric type.
struct NumericType {
  bool is_float = false;
  bool is_signed = false;
  uint32_t width = 32;
};

// Prints instructions of one module; collects names and types first so that
// every operand can be printed in a single pass afterwards.
class Printer {
 public:
  explicit Printer(bool use_names) : use_names_(use_names) {}

  // First pass: names, types and extended instruction set imports.
  void Collect(const std::vector<Instruction>& insts) {
    std::set<std::string> taken;
    for (const Instruction& inst : insts) {
      const OpcodeInfo* info = inst.info();
      if (info != nullptr && info->has_result_type && info->has_result_id &&
          inst.word_count() >= 3) {
        value_type_[inst.words[2]] = inst.words[1];
      }
      switch (static_cast<Op>(inst.opcode)) {
        case Op::kTypeInt:
          if (inst.word_count() >= 4) {
            types_[inst.words[1]] = {false, inst.words[3] != 0, inst.words[2]};
          }
          break;
        case Op::kTypeFloat:
          if (inst.word_count() >= 3) {
            types_[inst.words[1]] = {true, true, inst.words[2]};
          }
          break;
        case Op::kExtInstImport:
          if (inst.word_count() >= 3) {
            ext_sets_[inst.words[1]] = LiteralStringAt(inst, 2);
          }
          break;
        case Op::kName:
          if (use_names_ && inst.word_count() >= 3 &&
              names_.count(inst.words[1]) == 0) {
            std::string name = Sanitize(LiteralStringAt(inst, 2));
            if (name.empty()) break;
            std::string unique = name;
            for (int n = 1; taken.count(unique) != 0; ++n) {
              unique = name + "_" + std::to_string(n);
            }
            taken.insert(unique);
            names_[inst.words[1]] = unique;
          }
          break;
        default:
          break;
      }
    }
  }

  std::string Id(uint32_t id) const {
    auto it = names_.find(id);
    if (it != names_.end()) return "%" + it->second;
    return "%" + std::to_string(id);
  }

  // Prints one instruction (no trailing newline) or an error comment.
  std::string Print(const Instruction& inst) const {
    uint32_t switch_words = 1;
    if (inst.opcode == static_cast<uint32_t>(Op::kSwitch) &&
        inst.word_count() >= 2) {
      switch_words = TypeOfValue(inst.words[1]).width > 32 ? 2 : 1;
    }
    Result<std::vector<Operand>> operands =
        DecodeOperands(inst, "", switch_words);
    if (!operands) {
      std::string raw;
      for (uint32_t w : inst.words) raw += " " + Hex(w);
      return "; error: " + operands.error().message + ":" + raw;
    }
    const OpcodeInfo* info = inst.info();
    std::string result;
    std::string text(info->name);
    uint32_t ext_set = 0;
    for (const Operand& op : *operands) {
      std::span<const uint32_t> w =
          inst.words.subspan(op.first_word, op.word_count);
      if (op.kind == OperandKind::kIdResult) {
        result = Id(w[0]) + " = ";
        continue;
      }
      text += " ";
      switch (op.kind) {
        case OperandKind::kLiteralExtInstInteger:
          text += ExtInstName(ext_set, w[0]);
          continue;
        case OperandKind::kLiteralSpecConstantOpInteger: {
          std::string_view name = OpcodeName(w[0]);
          text +=
              name.empty() ? std::to_string(w[0]) : std::string(name.substr(2));
          continue;
        }
        case OperandKind::kLiteralContextDependentNumber:
          text += Number(inst.word_count() >= 2 ? inst.words[1] : 0, w);
          continue;
        default:
          break;
      }
      // Remember the set of an OpExtInst (its third operand word).
      if (inst.opcode == static_cast<uint32_t>(Op::kExtInst) &&
          op.first_word == 3) {
        ext_set = w[0];
      }
      text += Generic(op.kind, w);
    }
    return result + text;
  }

 private:
  static std::string Hex(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "0x%08x", v);
    return buf;
  }

  // OpName strings become identifiers: [A-Za-z0-9_] only.
  static std::string Sanitize(const std::string& name) {
    std::string out;
    for (char c : name) {
      out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    }
    return out;
  }

  static std::string Quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  }

  NumericType TypeOfValue(uint32_t id) const {
    auto it = value_type_.find(id);
    if (it == value_type_.end()) return {};
    auto t = types_.find(it->second);
    return t == types_.end() ? NumericType{} : t->second;
  }

  std::string ExtInstName(uint32_t set, uint32_t number) const {
    auto it = ext_sets_.find(set);
    if (it != ext_sets_.end() && it->second == "GLSL.std.450") {
      std::string_view name = GlslStd450Name(number);
      if (!name.empty()) return std::string(name);
    }
    return std::to_string(number);
  }

  // A constant's value, printed according to its result type.
  std::string Number(uint32_t type_id, std::span<const uint32_t> w) const {
    auto it = types_.find(type_id);
    const NumericType t = it == types_.end() ? NumericType{} : it->second;
    char buf[64];
    if (t.is_float && t.width == 32 && w.size() == 1) {
      float f;
      std::memcpy(&f, &w[0], sizeof(f));
      std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(f));
      return buf;
    }
    if (t.is_float && t.width == 64 && w.size() == 2) {
      const uint64_t bits = uint64_t{w[1]} << 32 | w[0];
      double d;
      std::memcpy(&d, &bits, sizeof(d));
      std::snprintf(buf, sizeof(buf), "%.17g", d);
      return buf;
    }
    if (t.is_float) {  // 16-bit and other widths: the bits
      std::string out = "0x";
      for (size_t i = w.size(); i-- > 0;) {
        std::snprintf(buf, sizeof(buf), "%08x", w[i]);
        out += buf;
      }
      return out;
    }
    if (w.size() == 2) {
      const uint64_t v = uint64_t{w[1]} << 32 | w[0];
      return t.is_signed ? std::to_string(static_cast<int64_t>(v))
                         : std::to_string(v);
    }
    if (w.size() == 1) {
      uint32_t v = w[0];
      if (t.is_signed && t.width < 32 && t.width > 0) {
        // Narrow signed constants are sign-extended by rule; print the value.
        const uint32_t sign = 1u << (t.width - 1);
        v &= (sign << 1) - 1;
        return std::to_string(static_cast<int32_t>((v ^ sign) - sign));
      }
      return t.is_signed ? std::to_string(static_cast<int32_t>(v))
                         : std::to_string(v);
    }
    std::string out;
    for (uint32_t x : w) out += (out.empty() ? "" : " ") + Hex(x);
    return out;
  }

  std::string Generic(OperandKind kind, std::span<const uint32_t> w) const {
    const OperandKindInfo& info = GetOperandKindInfo(kind);
    switch (info.category) {
      case OperandCategory::kId:
        return Id(w[0]);
      case OperandCategory::kLiteral:
        if (kind == OperandKind::kLiteralString) {
          uint32_t count = 0;
          Result<std::string> s = DecodeLiteralString(w, &count);
          return Quote(s ? *s : "");
        }
        if (w.size() == 2) {
          return std::to_string(uint64_t{w[1]} << 32 | w[0]);
        }
        return std::to_string(w[0]);
      case OperandCategory::kValueEnum: {
        std::string_view name = EnumerantName(kind, w[0]);
        return name.empty() ? std::to_string(w[0]) : std::string(name);
      }
      case OperandCategory::kBitEnum:
        return MaskToString(kind, w[0]);
      case OperandCategory::kComposite:
        break;  // DecodeOperands splits composites into their bases
    }
    return Hex(w[0]);
  }

  bool use_names_;
  std::unordered_map<uint32_t, std::string> names_;
  std::unordered_map<uint32_t, NumericType> types_;     // type id -> type
  std::unordered_map<uint32_t, uint32_t> value_type_;   // value id -> type id
  std::unordered_map<uint32_t, std::string> ext_sets_;  // import id -> name
};

}  // namespace

std::string Disassemble(std::span<const uint32_t> words) {
  Result<SplitModule> split = SplitInstructions(words, "");
  if (!split) return "; error: " + split.error().ToString() + "\n";
  const Header& h = split->header;
  char buf[160];
  std::snprintf(buf, sizeof(buf),
                "; SPIR-V\n; Version: %d.%d\n; Generator: 0x%08x\n"
                "; Bound: %u\n; Schema: %u\n",
                h.major(), h.minor(), h.generator, h.bound, h.schema);
  std::string out = buf;
  Printer printer(/*use_names=*/true);
  printer.Collect(split->instructions);
  for (const Instruction& inst : split->instructions) {
    std::string line = printer.Print(inst);
    // Right-align "%x = " so opcodes line up, as spirv-dis does.
    const size_t eq = line.find(" = ");
    const size_t op_col = line.rfind("; error", 0) == 0               ? 0
                          : eq == std::string::npos || line[0] != '%' ? 0
                                                                      : eq + 3;
    if (op_col < 15) line.insert(0, 15 - op_col, ' ');
    out += line + "\n";
  }
  return out;
}

std::string DisassembleInstruction(const Instruction& inst) {
  Printer printer(/*use_names=*/false);
  return printer.Print(inst);
}

}  // namespace warpsim::spirv
