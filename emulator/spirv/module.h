// The typed, in-memory form of one validated SPIR-V module.
//
// A Module is built once from words that SPIRV-Tools has validated (and, for
// the executor, legalized: see compile.h). It keeps every id's meaning: types,
// constants (including specialization constants), decorations, global
// variables, entry points with their execution modes, and functions split into
// blocks with their structured merge information. It executes nothing; the
// simt/ module lowers it into a Program.
#ifndef WARPSIM_SPIRV_MODULE_H_
#define WARPSIM_SPIRV_MODULE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <spirv/unified1/spirv.hpp11>
#include <string>
#include <vector>

#include "base/diagnostic.h"

namespace warpsim::spirv {

enum class TypeKind : uint8_t {
  kNone,  // id is not a type
  kVoid,
  kBool,
  kInt,
  kFloat,
  kVector,
  kMatrix,
  kArray,
  kRuntimeArray,
  kStruct,
  kPointer,
  kFunction,
  kImage,
  kSampler,
  kSampledImage,
  kOther,  // a type warpsim does not execute (named by `opcode`)
};

struct Type {
  TypeKind kind = TypeKind::kNone;
  spv::Op opcode = spv::Op::OpNop;
  uint32_t width = 0;      // kInt / kFloat: bits
  bool is_signed = false;  // kInt
  uint32_t element = 0;    // vector/matrix/array: element (column) type id
  uint32_t count = 0;      // vector/matrix: components/columns; array: length
  uint32_t length_id = 0;  // kArray: id of the length constant
  std::vector<uint32_t> members;  // kStruct: member type ids
  spv::StorageClass storage = spv::StorageClass::Max;  // kPointer
  uint32_t pointee = 0;                                // kPointer
  // kImage
  uint32_t sampled_type = 0;
  spv::Dim dim = spv::Dim::Max;
  uint32_t depth = 0, arrayed = 0, ms = 0, sampled = 0;
  spv::ImageFormat image_format = spv::ImageFormat::Max;
  uint32_t image_type = 0;  // kSampledImage: the image type id
};

// Decorations of one id or one struct member, in source order.
struct Decoration {
  spv::Decoration kind;
  std::vector<uint32_t> operands;  // literal operands (or ids for OpDecorateId)
};

struct Constant {
  uint32_t type = 0;
  spv::Op opcode = spv::Op::OpNop;     // OpConstant, OpSpecConstantTrue, ...
  std::vector<uint32_t> words;         // scalar literal words (1 or 2)
  std::vector<uint32_t> constituents;  // composite constituents (ids)
  bool is_spec = false;
  bool is_null = false;
  bool is_undef = false;  // OpUndef at module scope
  // OpSpecConstantOp: the operation and its id operands / literals.
  spv::Op spec_op = spv::Op::OpNop;
  std::vector<uint32_t> spec_operands;
};

struct Variable {
  uint32_t id = 0;
  uint32_t type = 0;  // pointer type
  spv::StorageClass storage = spv::StorageClass::Max;
  uint32_t initializer = 0;  // 0 = none
  uint32_t word_offset = 0;  // the OpVariable's position, for diagnostics
};

// One instruction inside a function body.
struct Inst {
  spv::Op opcode = spv::Op::OpNop;
  uint32_t result_type = 0;
  uint32_t result_id = 0;
  std::vector<uint32_t> operands;  // words after result type / result id
  uint32_t word_offset = 0;        // position in the module, for diagnostics
  uint32_t line = 0;  // source line of the OpLine in effect (0: none)
};

struct Block {
  uint32_t label = 0;
  std::vector<Inst> insts;  // body, including OpPhi, excluding merge/terminator
  // Structured merge information (OpSelectionMerge / OpLoopMerge).
  spv::Op merge_kind = spv::Op::OpNop;  // OpNop when the block is no header
  uint32_t merge_block = 0;
  uint32_t continue_target = 0;  // loops only
  uint32_t loop_control = 0;     // loops only: OpLoopMerge's Loop Control
  Inst terminator;
};

struct Function {
  uint32_t id = 0;
  uint32_t result_type = 0;
  uint32_t function_type = 0;
  std::vector<uint32_t> params;  // OpFunctionParameter result ids
  std::vector<uint32_t> param_types;
  std::vector<Inst> variables;  // OpVariable (Function storage) at the top
  std::vector<Block> blocks;    // in module order; blocks[0] is the entry
  uint32_t word_offset = 0;
};

struct ExecutionMode {
  spv::ExecutionMode mode;
  std::vector<uint32_t> operands;  // literals, or ids for OpExecutionModeId
  bool operands_are_ids = false;
};

struct EntryPoint {
  spv::ExecutionModel model;
  uint32_t function = 0;
  std::string name;
  std::vector<uint32_t> interface;
  std::vector<ExecutionMode> modes;
};

class Module {
 public:
  // Builds a Module from validated SPIR-V words. Fails with InvalidInput for
  // structural problems the validator does not catch (it should catch all),
  // and with Unsupported for constructs warpsim does not model.
  static Result<Module> Build(std::span<const uint32_t> words,
                              const std::string& file);

  const Type& type(uint32_t id) const;
  const Constant* constant(uint32_t id) const;
  const Variable* global(uint32_t id) const;
  const Function* function(uint32_t id) const;
  const std::vector<Decoration>& decorations(uint32_t id) const;
  const std::vector<Decoration>& member_decorations(uint32_t struct_id,
                                                    uint32_t member) const;
  // The first operand of decoration `kind` on `id`, if present.
  std::optional<uint32_t> DecorationValue(uint32_t id,
                                          spv::Decoration kind) const;
  std::optional<uint32_t> MemberDecorationValue(uint32_t struct_id,
                                                uint32_t member,
                                                spv::Decoration kind) const;
  bool HasDecoration(uint32_t id, spv::Decoration kind) const {
    return DecorationValue(id, kind).has_value();
  }
  bool HasMemberDecoration(uint32_t s, uint32_t m, spv::Decoration k) const {
    return MemberDecorationValue(s, m, k).has_value();
  }

  // Name from OpName, or "" if none.
  std::string Name(uint32_t id) const;

  uint32_t bound() const { return bound_; }
  const std::vector<EntryPoint>& entry_points() const { return entry_points_; }
  const std::vector<Variable>& globals() const { return globals_; }
  const std::vector<Function>& functions() const { return functions_; }
  const std::vector<spv::Capability>& capabilities() const {
    return capabilities_;
  }
  const std::vector<std::string>& extensions() const { return extensions_; }
  // Ids of OpExtInstImport "GLSL.std.450" (usually one).
  bool IsGlslStd450(uint32_t set_id) const;
  std::string ExtInstSetName(uint32_t set_id) const;
  const std::vector<uint32_t>& constant_order() const {
    return constant_order_;
  }
  const std::string& file() const { return file_; }
  // The shader's source text from OpSource (and OpSourceContinued), when the
  // module carries it (GLSL compiled with debug information); "" otherwise.
  // Inst::line numbers its lines from 1.
  const std::string& source_text() const { return source_text_; }
  // source_text() line by line, line 1 first, without the lines glslang
  // puts before the shader's own text (its "// OpModuleProcessed ..."
  // comments and "#line 1").
  std::vector<std::string> SourceLines() const;

  // Finds an entry point by name (and model when given). nullptr if absent.
  const EntryPoint* FindEntryPoint(
      const std::string& name,
      std::optional<spv::ExecutionModel> model = std::nullopt) const;

  // Scalar component count of a type once flattened (vector 4 -> 4, mat4 ->
  // 16, struct -> sum, bool -> 1, 64-bit scalars count 1).
  uint32_t ComponentCount(uint32_t type_id) const;

 private:
  std::string file_;
  uint32_t bound_ = 0;
  std::vector<Type> types_;
  std::map<uint32_t, Constant> constants_;
  std::vector<uint32_t> constant_order_;  // definition order of constants
  std::vector<Variable> globals_;
  std::map<uint32_t, size_t> global_index_;
  std::vector<Function> functions_;
  std::map<uint32_t, size_t> function_index_;
  std::map<uint32_t, std::vector<Decoration>> decorations_;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Decoration>>
      member_decorations_;
  std::map<uint32_t, std::string> names_;
  std::string source_text_;
  std::map<uint32_t, std::string> ext_inst_sets_;
  std::vector<EntryPoint> entry_points_;
  std::vector<spv::Capability> capabilities_;
  std::vector<std::string> extensions_;
};

}  // namespace warpsim::spirv

#endif  // WARPSIM_SPIRV_MODULE_H_
