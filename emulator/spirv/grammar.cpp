#include "spirv/grammar.h"

#include <algorithm>
#include <cstdio>

namespace warpsim::spirv {
namespace {

// Generated data: kOperandKindTable (in OperandKind order), kOpcodeTable
// (sorted by opcode), kGlslStd450Table, kGrammarVersion, kGrammarRevision.
#include "spirv_generated/grammar_tables.inc"

}  // namespace

const OpcodeInfo* FindOpcode(uint32_t opcode) {
  const auto* end = std::end(kOpcodeTable);
  const auto* it = std::lower_bound(
      std::begin(kOpcodeTable), end, opcode,
      [](const OpcodeInfo& info, uint32_t v) { return info.opcode < v; });
  if (it == end || it->opcode != opcode) return nullptr;
  return it;
}

const OpcodeInfo* FindOpcodeByName(std::string_view name) {
  for (const OpcodeInfo& info : kOpcodeTable) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string_view OpcodeName(uint32_t opcode) {
  const OpcodeInfo* info = FindOpcode(opcode);
  return info ? info->name : std::string_view();
}

std::span<const OpcodeInfo> AllOpcodes() { return kOpcodeTable; }

const OperandKindInfo& GetOperandKindInfo(OperandKind kind) {
  // The table is generated in the same order as the enum.
  return kOperandKindTable[static_cast<size_t>(kind)];
}

std::string_view OperandKindName(OperandKind kind) {
  return GetOperandKindInfo(kind).name;
}

const EnumerantInfo* FindEnumerant(OperandKind kind, uint32_t value) {
  std::span<const EnumerantInfo> list = GetOperandKindInfo(kind).enumerants;
  auto it = std::lower_bound(
      list.begin(), list.end(), value,
      [](const EnumerantInfo& e, uint32_t v) { return e.value < v; });
  if (it == list.end() || it->value != value) return nullptr;
  return &*it;
}

std::string_view EnumerantName(OperandKind kind, uint32_t value) {
  const EnumerantInfo* e = FindEnumerant(kind, value);
  return e ? e->name : std::string_view();
}

std::optional<uint32_t> EnumerantValue(OperandKind kind,
                                       std::string_view name) {
  for (const EnumerantInfo& e : GetOperandKindInfo(kind).enumerants) {
    if (e.name == name) return e.value;
  }
  return std::nullopt;
}

std::string MaskToString(OperandKind kind, uint32_t mask) {
  if (mask == 0) {
    std::string_view none = EnumerantName(kind, 0);
    return std::string(none.empty() ? "None" : none);
  }
  std::string out;
  for (int bit = 0; bit < 32; ++bit) {
    const uint32_t b = 1u << bit;
    if ((mask & b) == 0) continue;
    if (!out.empty()) out += '|';
    std::string_view name = EnumerantName(kind, b);
    if (name.empty()) {
      char buf[16];
      std::snprintf(buf, sizeof(buf), "0x%x", b);
      out += buf;
    } else {
      out += name;
    }
  }
  return out;
}

const ExtInstInfo* FindGlslStd450(uint32_t number) {
  for (const ExtInstInfo& info : kGlslStd450Table) {
    if (info.number == number) return &info;
  }
  return nullptr;
}

std::string_view GlslStd450Name(uint32_t number) {
  const ExtInstInfo* info = FindGlslStd450(number);
  return info ? info->name : std::string_view();
}

uint32_t GrammarVersion() { return kGrammarVersion; }
uint32_t GrammarRevision() { return kGrammarRevision; }

}  // namespace warpsim::spirv
