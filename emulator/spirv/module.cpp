#include "spirv/module.h"

#include <string>
#include <string_view>

#include "spirv/grammar.h"

namespace warpsim::spirv {
namespace {

// Decodes a literal string starting at words[i]; returns it and advances i
// past the words it occupies.
std::string ReadString(std::span<const uint32_t> words, size_t& i) {
  std::string s;
  for (; i < words.size(); ++i) {
    uint32_t w = words[i];
    for (int b = 0; b < 4; ++b) {
      char c = static_cast<char>((w >> (8 * b)) & 0xff);
      if (c == 0) {
        ++i;
        return s;
      }
      s.push_back(c);
    }
  }
  return s;
}

const std::vector<Decoration> kNoDecorations;
const Type kNoType;

}  // namespace

Result<Module> Module::Build(std::span<const uint32_t> words,
                             const std::string& file) {
  Module m;
  m.file_ = file;
  if (words.size() < 5 || words[0] != 0x07230203u) {
    return InvalidInput("not a SPIR-V module (bad magic number or header)",
                        SourcePos{file, 0, 0, ""});
  }
  m.bound_ = words[3];
  m.types_.resize(m.bound_);
  Function* current = nullptr;
  Block* block = nullptr;
  uint32_t line = 0;  // the OpLine in effect
  size_t pos = 5;
  while (pos < words.size()) {
    uint32_t first = words[pos];
    uint32_t count = first >> 16;
    auto op = static_cast<spv::Op>(first & 0xffff);
    if (count == 0 || pos + count > words.size()) {
      return InvalidInput("instruction with bad word count",
                          SourcePos{file, 0, static_cast<int64_t>(pos), ""});
    }
    std::span<const uint32_t> w = words.subspan(pos, count);
    const uint32_t offset = static_cast<uint32_t>(pos);
    pos += count;
    auto bad_id = [&](uint32_t id) { return id >= m.bound_; };
    switch (op) {
      case spv::Op::OpCapability:
        m.capabilities_.push_back(static_cast<spv::Capability>(w[1]));
        break;
      case spv::Op::OpExtension: {
        size_t i = 1;
        m.extensions_.push_back(ReadString(w, i));
        break;
      }
      case spv::Op::OpExtInstImport: {
        size_t i = 2;
        m.ext_inst_sets_[w[1]] = ReadString(w, i);
        break;
      }
      case spv::Op::OpName: {
        size_t i = 2;
        m.names_[w[1]] = ReadString(w, i);
        break;
      }
      case spv::Op::OpEntryPoint: {
        EntryPoint ep;
        ep.model = static_cast<spv::ExecutionModel>(w[1]);
        ep.function = w[2];
        size_t i = 3;
        ep.name = ReadString(w, i);
        for (; i < w.size(); ++i) ep.interface.push_back(w[i]);
        m.entry_points_.push_back(std::move(ep));
        break;
      }
      case spv::Op::OpExecutionMode:
      case spv::Op::OpExecutionModeId: {
        for (auto& ep : m.entry_points_) {
          if (ep.function != w[1]) continue;
          ExecutionMode mode{static_cast<spv::ExecutionMode>(w[2]),
                             {w.begin() + 3, w.end()},
                             op == spv::Op::OpExecutionModeId};
          ep.modes.push_back(mode);
        }
        break;
      }
      case spv::Op::OpDecorate:
      case spv::Op::OpDecorateId:
      case spv::Op::OpDecorateString:
        if (bad_id(w[1])) break;
        m.decorations_[w[1]].push_back(Decoration{
            static_cast<spv::Decoration>(w[2]), {w.begin() + 3, w.end()}});
        break;
      case spv::Op::OpMemberDecorate:
      case spv::Op::OpMemberDecorateString:
        m.member_decorations_[{w[1], w[2]}].push_back(Decoration{
            static_cast<spv::Decoration>(w[3]), {w.begin() + 4, w.end()}});
        break;
      case spv::Op::OpDecorationGroup:
      case spv::Op::OpGroupDecorate:
      case spv::Op::OpGroupMemberDecorate:
        return Unsupported("decoration groups (" +
                               std::string(op == spv::Op::OpDecorationGroup
                                               ? "OpDecorationGroup"
                                               : "OpGroupDecorate") +
                               ")",
                           SourcePos{file, 0, offset, ""});
      // ---- types ----
      case spv::Op::OpTypeVoid:
        m.types_[w[1]] = Type{.kind = TypeKind::kVoid, .opcode = op};
        break;
      case spv::Op::OpTypeBool:
        m.types_[w[1]] = Type{.kind = TypeKind::kBool, .opcode = op};
        break;
      case spv::Op::OpTypeInt:
        m.types_[w[1]] = Type{.kind = TypeKind::kInt,
                              .opcode = op,
                              .width = w[2],
                              .is_signed = w[3] != 0};
        break;
      case spv::Op::OpTypeFloat:
        m.types_[w[1]] =
            Type{.kind = TypeKind::kFloat, .opcode = op, .width = w[2]};
        break;
      case spv::Op::OpTypeVector:
        m.types_[w[1]] = Type{.kind = TypeKind::kVector,
                              .opcode = op,
                              .element = w[2],
                              .count = w[3]};
        break;
      case spv::Op::OpTypeMatrix:
        m.types_[w[1]] = Type{.kind = TypeKind::kMatrix,
                              .opcode = op,
                              .element = w[2],
                              .count = w[3]};
        break;
      case spv::Op::OpTypeArray: {
        Type t{.kind = TypeKind::kArray, .opcode = op, .element = w[2]};
        t.length_id = w[3];
        // The length is resolved now when it is a plain constant; a
        // specialization constant length is resolved by the lowering.
        auto it = m.constants_.find(w[3]);
        if (it != m.constants_.end() && !it->second.words.empty() &&
            !it->second.is_spec) {
          t.count = it->second.words[0];
        }
        m.types_[w[1]] = t;
        break;
      }
      case spv::Op::OpTypeRuntimeArray:
        m.types_[w[1]] = Type{
            .kind = TypeKind::kRuntimeArray, .opcode = op, .element = w[2]};
        break;
      case spv::Op::OpTypeStruct: {
        Type t{.kind = TypeKind::kStruct, .opcode = op};
        t.members.assign(w.begin() + 2, w.end());
        m.types_[w[1]] = t;
        break;
      }
      case spv::Op::OpTypePointer:
        m.types_[w[1]] = Type{.kind = TypeKind::kPointer,
                              .opcode = op,
                              .storage = static_cast<spv::StorageClass>(w[2]),
                              .pointee = w[3]};
        break;
      case spv::Op::OpTypeForwardPointer:
        break;  // the OpTypePointer that follows defines it
      case spv::Op::OpTypeFunction: {
        Type t{.kind = TypeKind::kFunction, .opcode = op, .element = w[2]};
        t.members.assign(w.begin() + 3, w.end());
        m.types_[w[1]] = t;
        break;
      }
      case spv::Op::OpTypeImage: {
        Type t{.kind = TypeKind::kImage, .opcode = op};
        t.sampled_type = w[2];
        t.dim = static_cast<spv::Dim>(w[3]);
        t.depth = w[4];
        t.arrayed = w[5];
        t.ms = w[6];
        t.sampled = w[7];
        t.image_format = static_cast<spv::ImageFormat>(w[8]);
        m.types_[w[1]] = t;
        break;
      }
      case spv::Op::OpTypeSampler:
        m.types_[w[1]] = Type{.kind = TypeKind::kSampler, .opcode = op};
        break;
      case spv::Op::OpTypeSampledImage: {
        Type t{.kind = TypeKind::kSampledImage, .opcode = op};
        t.image_type = w[2];
        m.types_[w[1]] = t;
        break;
      }
      case spv::Op::OpTypeOpaque:
      case spv::Op::OpTypeEvent:
      case spv::Op::OpTypeDeviceEvent:
      case spv::Op::OpTypeReserveId:
      case spv::Op::OpTypeQueue:
      case spv::Op::OpTypePipe:
      case spv::Op::OpTypeAccelerationStructureKHR:
      case spv::Op::OpTypeRayQueryKHR:
        m.types_[w[1]] = Type{.kind = TypeKind::kOther, .opcode = op};
        break;
      // ---- constants ----
      case spv::Op::OpConstantTrue:
      case spv::Op::OpConstantFalse:
      case spv::Op::OpSpecConstantTrue:
      case spv::Op::OpSpecConstantFalse: {
        Constant c;
        c.type = w[1];
        c.opcode = op;
        bool v =
            op == spv::Op::OpConstantTrue || op == spv::Op::OpSpecConstantTrue;
        c.words = {v ? 1u : 0u};
        c.is_spec = op == spv::Op::OpSpecConstantTrue ||
                    op == spv::Op::OpSpecConstantFalse;
        m.constants_[w[2]] = c;
        m.constant_order_.push_back(w[2]);
        break;
      }
      case spv::Op::OpConstant:
      case spv::Op::OpSpecConstant: {
        Constant c;
        c.type = w[1];
        c.opcode = op;
        c.words.assign(w.begin() + 3, w.end());
        c.is_spec = op == spv::Op::OpSpecConstant;
        m.constants_[w[2]] = c;
        m.constant_order_.push_back(w[2]);
        break;
      }
      case spv::Op::OpConstantComposite:
      case spv::Op::OpSpecConstantComposite: {
        Constant c;
        c.type = w[1];
        c.opcode = op;
        c.constituents.assign(w.begin() + 3, w.end());
        c.is_spec = op == spv::Op::OpSpecConstantComposite;
        m.constants_[w[2]] = c;
        m.constant_order_.push_back(w[2]);
        break;
      }
      case spv::Op::OpConstantNull: {
        Constant c;
        c.type = w[1];
        c.opcode = op;
        c.is_null = true;
        m.constants_[w[2]] = c;
        m.constant_order_.push_back(w[2]);
        break;
      }
      case spv::Op::OpSpecConstantOp: {
        Constant c;
        c.type = w[1];
        c.opcode = op;
        c.is_spec = true;
        c.spec_op = static_cast<spv::Op>(w[3]);
        c.spec_operands.assign(w.begin() + 4, w.end());
        m.constants_[w[2]] = c;
        m.constant_order_.push_back(w[2]);
        break;
      }
      case spv::Op::OpConstantSampler:
        return Unsupported("OpConstantSampler", SourcePos{file, 0, offset, ""});
      case spv::Op::OpUndef:
        if (current == nullptr) {
          Constant c;
          c.type = w[1];
          c.opcode = op;
          c.is_undef = true;
          c.is_null = true;  // warpsim reads undefined values as zero
          m.constants_[w[2]] = c;
          m.constant_order_.push_back(w[2]);
        } else if (block != nullptr) {
          Inst inst{op, w[1], w[2], {}, offset};
          block->insts.push_back(std::move(inst));
        }
        break;
      // ---- variables and functions ----
      case spv::Op::OpVariable:
        if (current == nullptr) {
          Variable v{w[2], w[1], static_cast<spv::StorageClass>(w[3]),
                     w.size() > 4 ? w[4] : 0, offset};
          m.global_index_[v.id] = m.globals_.size();
          m.globals_.push_back(v);
        } else {
          Inst inst{op, w[1], w[2], {w.begin() + 3, w.end()}, offset};
          current->variables.push_back(std::move(inst));
        }
        break;
      case spv::Op::OpFunction: {
        m.function_index_[w[2]] = m.functions_.size();
        m.functions_.push_back(Function{});
        current = &m.functions_.back();
        current->id = w[2];
        current->result_type = w[1];
        current->function_type = w[4];
        current->word_offset = offset;
        block = nullptr;
        break;
      }
      case spv::Op::OpFunctionParameter:
        if (current) {
          current->params.push_back(w[2]);
          current->param_types.push_back(w[1]);
        }
        break;
      case spv::Op::OpFunctionEnd:
        current = nullptr;
        block = nullptr;
        break;
      case spv::Op::OpLabel:
        if (current == nullptr) {
          return InvalidInput("OpLabel outside a function",
                              SourcePos{file, 0, offset, "OpLabel"});
        }
        current->blocks.push_back(Block{});
        block = &current->blocks.back();
        block->label = w[1];
        break;
      case spv::Op::OpSelectionMerge:
        if (block) {
          block->merge_kind = op;
          block->merge_block = w[1];
        }
        break;
      case spv::Op::OpLoopMerge:
        if (block) {
          block->merge_kind = op;
          block->merge_block = w[1];
          block->continue_target = w[2];
          block->loop_control = w.size() > 3 ? w[3] : 0;
        }
        break;
      // Source text and lines, for viewers (Module::source_text,
      // Inst::line): OpSource [lang, version, file, text], continued by
      // OpSourceContinued; OpLine [file, line, column] applies to the
      // instructions after it up to OpNoLine or the end of the block.
      case spv::Op::OpSource:
        if (w.size() > 4) {
          size_t i = 4;
          m.source_text_ += ReadString(w, i);
        }
        break;
      case spv::Op::OpSourceContinued: {
        size_t i = 1;
        m.source_text_ += ReadString(w, i);
        break;
      }
      case spv::Op::OpLine:
        line = w.size() > 2 ? w[2] : 0;
        break;
      case spv::Op::OpNoLine:
        line = 0;
        break;
      // Debug and annotation instructions that carry nothing warpsim uses.
      case spv::Op::OpNop:
      case spv::Op::OpSourceExtension:
      case spv::Op::OpString:
      case spv::Op::OpMemberName:
      case spv::Op::OpModuleProcessed:
      case spv::Op::OpMemoryModel:
        break;
      default: {
        if (block == nullptr) {
          if (current == nullptr) {
            // Unknown module-level instruction (e.g. a newer type): keep
            // going; the lowering reports it if the program uses it.
            break;
          }
          return InvalidInput("instruction outside a block",
                              SourcePos{file, 0, offset, ""});
        }
        // Whether this instruction has a result type / result id comes
        // from the tables generated from the Khronos grammar.
        const OpcodeInfo* info = FindOpcode(static_cast<uint32_t>(op));
        if (info == nullptr) {
          return InvalidInput(
              "unknown opcode " + std::to_string(static_cast<uint32_t>(op)),
              SourcePos{file, 0, offset, ""});
        }
        const bool has_result = info->has_result_id;
        const bool has_type = info->has_result_type;
        Inst inst;
        inst.opcode = op;
        inst.word_offset = offset;
        inst.line = line;
        size_t i = 1;
        if (has_type) inst.result_type = w[i++];
        if (has_result) inst.result_id = w[i++];
        inst.operands.assign(w.begin() + i, w.end());
        bool terminator = false;
        switch (op) {
          case spv::Op::OpBranch:
          case spv::Op::OpBranchConditional:
          case spv::Op::OpSwitch:
          case spv::Op::OpReturn:
          case spv::Op::OpReturnValue:
          case spv::Op::OpKill:
          case spv::Op::OpTerminateInvocation:
          case spv::Op::OpUnreachable:
          case spv::Op::OpIgnoreIntersectionKHR:
          case spv::Op::OpTerminateRayKHR:
            terminator = true;
            break;
          default:
            break;
        }
        if (terminator) {
          block->terminator = std::move(inst);
          block = nullptr;
          line = 0;  // an OpLine's scope ends with its block
        } else {
          block->insts.push_back(std::move(inst));
        }
        break;
      }
    }
  }
  return m;
}

std::vector<std::string> Module::SourceLines() const {
  std::string_view text = source_text_;
  constexpr std::string_view kFirstLine = "#line 1\n";
  if (const size_t at = text.find(kFirstLine); at != std::string_view::npos) {
    text.remove_prefix(at + kFirstLine.size());
  }
  std::vector<std::string> lines;
  for (size_t b = 0; b < text.size();) {
    size_t e = text.find('\n', b);
    if (e == std::string_view::npos) e = text.size();
    lines.emplace_back(text.substr(b, e - b));
    b = e + 1;
  }
  return lines;
}

const Type& Module::type(uint32_t id) const {
  return id < types_.size() ? types_[id] : kNoType;
}

const Constant* Module::constant(uint32_t id) const {
  auto it = constants_.find(id);
  return it == constants_.end() ? nullptr : &it->second;
}

const Variable* Module::global(uint32_t id) const {
  auto it = global_index_.find(id);
  return it == global_index_.end() ? nullptr : &globals_[it->second];
}

const Function* Module::function(uint32_t id) const {
  auto it = function_index_.find(id);
  return it == function_index_.end() ? nullptr : &functions_[it->second];
}

const std::vector<Decoration>& Module::decorations(uint32_t id) const {
  auto it = decorations_.find(id);
  return it == decorations_.end() ? kNoDecorations : it->second;
}

const std::vector<Decoration>& Module::member_decorations(
    uint32_t struct_id, uint32_t member) const {
  auto it = member_decorations_.find({struct_id, member});
  return it == member_decorations_.end() ? kNoDecorations : it->second;
}

std::optional<uint32_t> Module::DecorationValue(uint32_t id,
                                                spv::Decoration kind) const {
  for (const auto& d : decorations(id)) {
    if (d.kind == kind) return d.operands.empty() ? 0u : d.operands[0];
  }
  return std::nullopt;
}

std::optional<uint32_t> Module::MemberDecorationValue(
    uint32_t struct_id, uint32_t member, spv::Decoration kind) const {
  for (const auto& d : member_decorations(struct_id, member)) {
    if (d.kind == kind) return d.operands.empty() ? 0u : d.operands[0];
  }
  return std::nullopt;
}

std::string Module::Name(uint32_t id) const {
  auto it = names_.find(id);
  return it == names_.end() ? std::string() : it->second;
}

bool Module::IsGlslStd450(uint32_t set_id) const {
  return ExtInstSetName(set_id) == "GLSL.std.450";
}

std::string Module::ExtInstSetName(uint32_t set_id) const {
  auto it = ext_inst_sets_.find(set_id);
  return it == ext_inst_sets_.end() ? std::string() : it->second;
}

const EntryPoint* Module::FindEntryPoint(
    const std::string& name, std::optional<spv::ExecutionModel> model) const {
  for (const auto& ep : entry_points_) {
    if (ep.name == name && (!model || ep.model == *model)) return &ep;
  }
  return nullptr;
}

uint32_t Module::ComponentCount(uint32_t type_id) const {
  const Type& t = type(type_id);
  switch (t.kind) {
    case TypeKind::kBool:
    case TypeKind::kInt:
    case TypeKind::kFloat:
      return 1;
    case TypeKind::kVector:
    case TypeKind::kMatrix:
    case TypeKind::kArray:
      return t.count * ComponentCount(t.element);
    case TypeKind::kStruct: {
      uint32_t n = 0;
      for (uint32_t mem : t.members) n += ComponentCount(mem);
      return n;
    }
    case TypeKind::kPointer:
      return 1;
    default:
      return 0;
  }
}

}  // namespace warpsim::spirv
