// Opcode and operand tables generated from the Khronos SPIR-V grammar.
//
// Everything here comes from spirv.core.grammar.json and
// extinst.glsl.std.450.grammar.json (Debian's spirv-headers) through
// tools/gen_spirv_grammar.cpp; nothing is typed by hand. The tables answer:
//   - for an opcode: its name, whether it has a result type / result id, and
//     its operand list (kind + quantifier);
//   - for an enum operand kind (Decoration, BuiltIn, StorageClass, ...): the
//     name of each value and the extra operands it takes (`Offset 16`);
//   - for GLSL.std.450: the extended instruction names and numbers.
#ifndef WARPSIM_SPIRV_GRAMMAR_H_
#define WARPSIM_SPIRV_GRAMMAR_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace warpsim::spirv {

// Every operand kind of the core grammar, e.g. OperandKind::kIdRef,
// OperandKind::kDecoration, OperandKind::kPairLiteralIntegerIdRef.
enum class OperandKind : uint16_t {
#include "spirv_generated/operand_kinds.inc"
};

// Every core opcode, named without the "Op" prefix: Op::kFAdd == 129.
enum class Op : uint32_t {
#include "spirv_generated/opcodes.inc"
};

// GLSL.std.450 extended instructions: GlslStd450::kFma == 50.
enum class GlslStd450 : uint32_t {
#include "spirv_generated/glsl_std_450.inc"
};

// The grammar's operand-kind categories.
enum class OperandCategory : uint8_t {
  kId,         // one word, an <id>
  kLiteral,    // literal number(s) or a string
  kComposite,  // a fixed tuple of other kinds (PairIdRefLiteralInteger)
  kValueEnum,  // one word holding one enumerant
  kBitEnum,    // one word holding a mask of enumerants
};

// How many times an operand appears.
enum class Quantifier : uint8_t { kOne, kOptional, kVariadic };

// One operand slot of an instruction or of an enumerant's parameters.
struct OperandInfo {
  OperandKind kind;
  Quantifier quantifier;
  std::string_view name;  // the grammar's descriptive name, may be empty
};

// One enumerant of an enum kind; `parameters` are the operands that follow
// it (Decoration Offset takes one LiteralInteger).
struct EnumerantInfo {
  uint32_t value;
  std::string_view name;
  std::span<const OperandInfo> parameters;
};

// One operand kind with its enumerants (enum kinds) or bases (composites).
struct OperandKindInfo {
  OperandKind kind;
  std::string_view name;
  OperandCategory category;
  std::span<const EnumerantInfo> enumerants;  // sorted by value
  std::span<const OperandKind> bases;
};

// One core opcode.
struct OpcodeInfo {
  uint32_t opcode;
  std::string_view name;      // "OpFAdd"
  std::string_view op_class;  // grammar class, e.g. "Arithmetic"
  bool has_result_type;
  bool has_result_id;
  std::span<const OperandInfo> operands;  // includes result type and id
};

// One extended instruction (GLSL.std.450).
struct ExtInstInfo {
  uint32_t number;
  std::string_view name;  // "FMix"
  std::span<const OperandInfo> operands;
};

// Opcode lookups; nullptr / "" when `opcode` is not in the grammar.
const OpcodeInfo* FindOpcode(uint32_t opcode);
const OpcodeInfo* FindOpcodeByName(std::string_view name);  // "OpFAdd"
std::string_view OpcodeName(uint32_t opcode);
inline const OpcodeInfo* FindOpcode(Op op) {
  return FindOpcode(static_cast<uint32_t>(op));
}
inline std::string_view OpcodeName(Op op) {
  return OpcodeName(static_cast<uint32_t>(op));
}
// All opcodes, sorted by value.
std::span<const OpcodeInfo> AllOpcodes();

// Operand kinds.
const OperandKindInfo& GetOperandKindInfo(OperandKind kind);
std::string_view OperandKindName(OperandKind kind);

// Enumerants: the enumerant of `kind` with `value` (for a BitEnum, `value`
// must be a single bit or 0); nullptr / "" when unknown.
const EnumerantInfo* FindEnumerant(OperandKind kind, uint32_t value);
std::string_view EnumerantName(OperandKind kind, uint32_t value);
std::optional<uint32_t> EnumerantValue(OperandKind kind, std::string_view name);
// A BitEnum mask as "Flatten|DontUnroll" ("None" for 0); unknown bits print
// as hex.
std::string MaskToString(OperandKind kind, uint32_t mask);

// GLSL.std.450.
const ExtInstInfo* FindGlslStd450(uint32_t number);
std::string_view GlslStd450Name(uint32_t number);

// The grammar version the tables were generated from, e.g. 10600 for 1.6,
// and its revision.
uint32_t GrammarVersion();
uint32_t GrammarRevision();

}  // namespace warpsim::spirv

#endif  // WARPSIM_SPIRV_GRAMMAR_H_
