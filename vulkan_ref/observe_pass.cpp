#include "vulkan_ref/observe_pass.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <map>
#include <set>
#include <spirv/unified1/spirv.hpp11>
#include <string_view>

#include "spirv/binary.h"

// How: the module is split into instructions once; the new capabilities,
// extensions, decorations, types, constants and variables are built first
// (reusing the module's own scalar and vector types and built-in variables,
// which SPIR-V forbids declaring twice), then the words are streamed out
// with each addition at the end of its logical section. The entry
// function's first block keeps its OpVariables under a new label; the
// instrumentation follows and branches to the block's original label,
// which now starts the rest of the shader's first block (the first block
// has no predecessors, so no branch or OpPhi elsewhere changes).

namespace warpsim::vkref {
namespace {

using Words = std::vector<uint32_t>;
using spv::Op;

uint32_t U(auto e) { return static_cast<uint32_t>(e); }

void Emit(Words* out, Op op, std::initializer_list<uint32_t> operands) {
  out->push_back(static_cast<uint32_t>(operands.size() + 1) << 16 | U(op));
  out->insert(out->end(), operands);
}

void EmitWithString(Words* out, Op op, std::string_view s) {
  Words str((s.size() + 4) / 4, 0);
  for (size_t i = 0; i < s.size(); ++i) {
    str[i / 4] |= static_cast<uint32_t>(static_cast<uint8_t>(s[i]))
                  << (8 * (i % 4));
  }
  out->push_back(static_cast<uint32_t>(str.size() + 1) << 16 | U(op));
  out->insert(out->end(), str.begin(), str.end());
}

// Opcodes of the sections before types, constants and variables.
bool IsPreamble(Op op) {
  switch (op) {
    case Op::OpCapability:
    case Op::OpExtension:
    case Op::OpExtInstImport:
    case Op::OpMemoryModel:
    case Op::OpEntryPoint:
    case Op::OpExecutionMode:
    case Op::OpExecutionModeId:
    case Op::OpString:
    case Op::OpSourceExtension:
    case Op::OpSource:
    case Op::OpSourceContinued:
    case Op::OpName:
    case Op::OpMemberName:
    case Op::OpModuleProcessed:
    case Op::OpDecorate:
    case Op::OpMemberDecorate:
    case Op::OpDecorationGroup:
    case Op::OpGroupDecorate:
    case Op::OpGroupMemberDecorate:
    case Op::OpDecorateId:
    case Op::OpDecorateString:
    case Op::OpMemberDecorateString:
      return true;
    default:
      return false;
  }
}

class Pass {
 public:
  Pass(const spirv::SplitModule& m, const ObservePassOptions& o)
      : module_(m), options_(o), bound_(m.header.bound) {}

  Result<Words> Run() {
    if (Status s = Analyze(); !s.ok()) return s.error();
    Build();
    return Stream();
  }

 private:
  struct BuiltinVar {
    uint32_t var = 0;
    uint32_t pointee = 0;  // type id
  };

  uint32_t NewId() { return bound_++; }
  bool fragment() const { return options_.stage == ObservedStage::kFragment; }
  bool compute() const { return options_.stage == ObservedStage::kCompute; }

  // ---- Reading the module. ----

  Status Analyze() {
    const uint32_t model = fragment()  ? U(spv::ExecutionModel::Fragment)
                           : compute() ? U(spv::ExecutionModel::GLCompute)
                                       : U(spv::ExecutionModel::Vertex);
    std::map<uint32_t, std::string> imports;
    for (size_t i = 0; i < module_.instructions.size(); ++i) {
      const spirv::Instruction& in = module_.instructions[i];
      const auto w = in.words;
      switch (static_cast<Op>(in.opcode)) {
        case Op::OpCapability:
          capabilities_.insert(w[1]);
          break;
        case Op::OpExtension:
          extensions_.insert(spirv::LiteralStringAt(in, 1));
          break;
        case Op::OpExtInstImport:
          imports[w[1]] = spirv::LiteralStringAt(in, 2);
          break;
        case Op::OpMemoryModel:
          vulkan_memory_model_ = w[2] == U(spv::MemoryModel::Vulkan);
          break;
        case Op::OpEntryPoint: {
          if (w[1] != model ||
              spirv::LiteralStringAt(in, 3) != options_.entry_point) {
            break;
          }
          uint32_t name_words = 0;
          if (!spirv::DecodeLiteralString(w.subspan(3), &name_words).ok()) {
            return InvalidInput("malformed OpEntryPoint");
          }
          entry_index_ = i;
          entry_function_ = w[2];
          interface_start_ = 3 + name_words;
          for (size_t k = interface_start_; k < w.size(); ++k)
            interface_.insert(w[k]);
          break;
        }
        case Op::OpDecorate:
          if (w.size() >= 4 && w[2] == U(spv::Decoration::BuiltIn))
            builtin_of_[w[1]] = w[3];
          break;
        case Op::OpTypeBool:
        case Op::OpTypeInt:
        case Op::OpTypeFloat:
        case Op::OpTypeVector: {
          Words key(w.begin() + 2, w.end());
          key.insert(key.begin(), in.opcode);
          types_.emplace(key, w[1]);
          if (static_cast<Op>(in.opcode) == Op::OpTypeInt && w[3] == 1)
            signed_ints_.insert(w[1]);
          break;
        }
        case Op::OpTypePointer:
          pointee_[w[1]] = w[3];
          break;
        case Op::OpVariable:
          if (w.size() >= 4 && w[3] == U(spv::StorageClass::Input))
            input_vars_[w[2]] = w[1];
          break;
        case Op::OpExtInst:
          if (imports[w[3]].starts_with("NonSemantic.")) nonsemantic_.insert(i);
          break;
        case Op::OpFunction:
          if (w[2] == entry_function_ && entry_function_ != 0)
            function_index_ = i;
          break;
        default:
          break;
      }
    }
    if (entry_index_ == 0 && entry_function_ == 0) {
      return InvalidInput(std::string("no ") +
                          (fragment()  ? "fragment"
                           : compute() ? "compute"
                                       : "vertex") +
                          " entry point named '" + options_.entry_point + "'");
    }
    for (size_t i = function_index_ + 1; i < module_.instructions.size(); ++i) {
      if (static_cast<Op>(module_.instructions[i].opcode) == Op::OpLabel) {
        first_label_ = module_.instructions[i].words[1];
        label_index_ = i;
        break;
      }
    }
    if (function_index_ == 0 || first_label_ == 0)
      return InvalidInput("the entry point's function has no body");
    for (size_t i = label_index_; i < module_.instructions.size(); ++i) {
      const Op op = static_cast<Op>(module_.instructions[i].opcode);
      if (op == Op::OpFunctionEnd) break;
      if (op == Op::OpReturn) returns_[i];
    }
    for (const auto& [var, builtin] : builtin_of_) {
      auto it = input_vars_.find(var);
      if (it == input_vars_.end()) continue;
      builtins_[builtin] = {var, pointee_[it->second]};
    }
    return {};
  }

  // ---- Declarations. ----

  uint32_t Type(Op op, std::initializer_list<uint32_t> operands) {
    Words key(operands);
    key.insert(key.begin(), U(op));
    auto it = types_.find(key);
    if (it != types_.end()) return it->second;
    const uint32_t id = NewId();
    globals_.push_back(static_cast<uint32_t>(key.size() + 1) << 16 | U(op));
    globals_.push_back(id);
    globals_.insert(globals_.end(), key.begin() + 1, key.end());
    types_.emplace(key, id);
    return id;
  }
  uint32_t Uint() { return Type(Op::OpTypeInt, {32, 0}); }
  uint32_t Bool() { return Type(Op::OpTypeBool, {}); }
  uint32_t Float() { return Type(Op::OpTypeFloat, {32}); }
  uint32_t UVec(uint32_t n) { return Type(Op::OpTypeVector, {Uint(), n}); }

  uint32_t Const(uint32_t value) {
    auto it = constants_.find(value);
    if (it != constants_.end()) return it->second;
    const uint32_t type = Uint();
    const uint32_t id = NewId();
    Emit(&globals_, Op::OpConstant, {type, id, value});
    return constants_[value] = id;
  }
  uint32_t True() {
    if (true_ == 0) {
      const uint32_t type = Bool();
      true_ = NewId();
      Emit(&globals_, Op::OpConstantTrue, {type, true_});
    }
    return true_;
  }
  uint32_t Pointer(spv::StorageClass sc, uint32_t pointee) {
    const auto key = std::make_pair(U(sc), pointee);
    auto it = pointers_.find(key);
    if (it != pointers_.end()) return it->second;
    const uint32_t id = NewId();
    Emit(&globals_, Op::OpTypePointer, {id, U(sc), pointee});
    return pointers_[key] = id;
  }
  void Capability(spv::Capability c) {
    if (capabilities_.insert(U(c)).second)
      Emit(&new_capabilities_, Op::OpCapability, {U(c)});
  }
  void Extension(std::string_view name) {
    if (extensions_.insert(std::string(name)).second)
      EmitWithString(&new_extensions_, Op::OpExtension, name);
  }
  void UseInInterface(uint32_t var) {
    if (interface_.insert(var).second) interface_added_.push_back(var);
  }

  enum class Want { kUint, kBool, kVec4, kUVec3 };

  // Loads built-in `b` (the module's own variable when it has one) into
  // code_, as a uint (bit-cast from int), a bool or a vec4.
  uint32_t LoadBuiltin(spv::BuiltIn b, Want want) {
    BuiltinVar v;
    auto it = builtins_.find(U(b));
    if (it != builtins_.end()) {
      v = it->second;
    } else {
      v.pointee = want == Want::kUint    ? Uint()
                  : want == Want::kBool  ? Bool()
                  : want == Want::kUVec3 ? UVec(3)
                                         : Type(Op::OpTypeVector, {Float(), 4});
      const uint32_t ptr = Pointer(spv::StorageClass::Input, v.pointee);
      v.var = NewId();
      Emit(&globals_, Op::OpVariable,
           {ptr, v.var, U(spv::StorageClass::Input)});
      Emit(&annotations_, Op::OpDecorate,
           {v.var, U(spv::Decoration::BuiltIn), U(b)});
      if (fragment() && want == Want::kUint)
        Emit(&annotations_, Op::OpDecorate, {v.var, U(spv::Decoration::Flat)});
      if (b == spv::BuiltIn::HelperInvocation && version_ >= 0x10600) {
        Emit(&annotations_, Op::OpDecorate,
             {v.var, U(spv::Decoration::Volatile)});
      }
      builtins_[U(b)] = v;
    }
    UseInInterface(v.var);
    uint32_t value = NewId();
    Emit(cur_, Op::OpLoad, {v.pointee, value, v.var});
    if (want == Want::kUint && v.pointee != Uint()) {
      const uint32_t cast = NewId();
      Emit(cur_, Op::OpBitcast, {Uint(), cast, value});
      value = cast;
    }
    return value;
  }

  uint32_t Op2(Op op, uint32_t type, std::initializer_list<uint32_t> args) {
    const uint32_t id = NewId();
    Words w = {type, id};
    w.insert(w.end(), args);
    cur_->push_back(static_cast<uint32_t>(w.size() + 1) << 16 | U(op));
    cur_->insert(cur_->end(), w.begin(), w.end());
    return id;
  }

  // ---- The instrumentation. ----

  void Build() {
    version_ = std::max(module_.header.version, 0x10300u);
    Capability(spv::Capability::Shader);
    const uint32_t u = Uint(), b = Bool();
    const uint32_t absent = Const(kObserveAbsent);
    const uint32_t sg = Const(U(spv::Scope::Subgroup));
    const uint32_t mem_scope = Const(
        U(vulkan_memory_model_ ? spv::Scope::QueueFamily : spv::Scope::Device));
    const uint32_t relaxed = Const(0);
    // The record index of this invocation, for the end clock.
    uint32_t record_var = 0;
    if (options_.clock) {
      record_var = NewId();
      Emit(cur_, Op::OpVariable,
           {Pointer(spv::StorageClass::Function, u), record_var,
            U(spv::StorageClass::Function), absent});
    }

    // The buffer: struct { uint words[]; }.
    const uint32_t array = NewId();
    Emit(&globals_, Op::OpTypeRuntimeArray, {array, u});
    const uint32_t block = NewId();
    Emit(&globals_, Op::OpTypeStruct, {block, array});
    const uint32_t block_ptr = NewId();
    Emit(&globals_, Op::OpTypePointer,
         {block_ptr, U(spv::StorageClass::StorageBuffer), block});
    const uint32_t word_ptr = Pointer(spv::StorageClass::StorageBuffer, u);
    const uint32_t buffer = NewId();
    Emit(&globals_, Op::OpVariable,
         {block_ptr, buffer, U(spv::StorageClass::StorageBuffer)});
    Emit(&annotations_, Op::OpDecorate,
         {array, U(spv::Decoration::ArrayStride), 4});
    Emit(&annotations_, Op::OpMemberDecorate,
         {block, 0, U(spv::Decoration::Offset), 0});
    Emit(&annotations_, Op::OpDecorate, {block, U(spv::Decoration::Block)});
    Emit(&annotations_, Op::OpDecorate,
         {buffer, U(spv::Decoration::DescriptorSet), options_.descriptor_set});
    Emit(&annotations_, Op::OpDecorate,
         {buffer, U(spv::Decoration::Binding), options_.binding});
    if (version_ >= 0x10400) UseInInterface(buffer);
    auto word = [&](uint32_t index) {
      return Op2(Op::OpAccessChain, word_ptr, {buffer, Const(0), index});
    };

    std::array<uint32_t, kObserveRecordWords> f;
    f.fill(absent);
    uint32_t flags = fragment()  ? kObsFlagFragment
                     : compute() ? kObsFlagCompute
                                 : kObsFlagVertex;
    const bool helpers = !fragment() || options_.helper_invocation;
    const bool subgroup = options_.subgroup && helpers;
    const bool quad = fragment() && subgroup && options_.quad;
    if (subgroup) {
      flags |= kObsFlagSubgroup;
      Capability(spv::Capability::GroupNonUniform);
      Capability(spv::Capability::GroupNonUniformBallot);
      Capability(spv::Capability::GroupNonUniformShuffle);
      f[kObsLane] =
          LoadBuiltin(spv::BuiltIn::SubgroupLocalInvocationId, Want::kUint);
      f[kObsSubgroupSize] =
          LoadBuiltin(spv::BuiltIn::SubgroupSize, Want::kUint);
      const uint32_t ballot =
          Op2(Op::OpGroupNonUniformBallot, UVec(4), {sg, True()});
      for (uint32_t k = 0; k < 4; ++k)
        f[kObsBallot + k] = Op2(Op::OpCompositeExtract, u, {ballot, k});
    }
    if (options_.sm_builtins) {
      flags |= kObsFlagSm;
      Capability(spv::Capability::ShaderSMBuiltinsNV);
      Extension("SPV_NV_shader_sm_builtins");
      f[kObsSm] = LoadBuiltin(spv::BuiltIn::SMIDNV, Want::kUint);
      f[kObsSlot] = LoadBuiltin(spv::BuiltIn::WarpIDNV, Want::kUint);
    }
    if (options_.clock) {
      flags |= kObsFlagClock;
      Capability(spv::Capability::ShaderClockKHR);
      Extension("SPV_KHR_shader_clock");
      const uint32_t clock = Op2(Op::OpReadClockKHR, UVec(2), {sg});
      f[kObsClockLo] = Op2(Op::OpCompositeExtract, u, {clock, 0});
      f[kObsClockHi] = Op2(Op::OpCompositeExtract, u, {clock, 1});
    }
    uint32_t writes = True();  // invocations that write a record
    if (fragment()) {
      const uint32_t helper =
          helpers ? LoadBuiltin(spv::BuiltIn::HelperInvocation, Want::kBool)
                  : 0;
      if (helpers) writes = Op2(Op::OpLogicalNot, b, {helper});
      if (quad) {
        flags |= kObsFlagQuad;
        Capability(spv::Capability::GroupNonUniformQuad);
        uint32_t mask = 0;
        for (uint32_t i = 0; i < 4; ++i) {
          const uint32_t h = Op2(Op::OpGroupNonUniformQuadBroadcast, b,
                                 {sg, helper, Const(i)});
          const uint32_t bit =
              Op2(Op::OpSelect, u, {h, Const(1u << i), Const(0)});
          mask = i == 0 ? bit : Op2(Op::OpBitwiseOr, u, {mask, bit});
        }
        f[kObsQuadHelpers] = mask;
      }
      const uint32_t coord = LoadBuiltin(spv::BuiltIn::FragCoord, Want::kVec4);
      for (uint32_t k = 0; k < 2; ++k) {
        const uint32_t c = Op2(Op::OpCompositeExtract, Float(), {coord, k});
        f[kObsFragX + k] = Op2(Op::OpBitcast, u, {c});
      }
      if (options_.primitive_id) {
        flags |= kObsFlagPrimitive;
        if (!capabilities_.count(U(spv::Capability::Tessellation)) &&
            !capabilities_.count(U(spv::Capability::MeshShadingNV)) &&
            !capabilities_.count(U(spv::Capability::MeshShadingEXT))) {
          Capability(spv::Capability::Geometry);
        }
        f[kObsPrimitive] = LoadBuiltin(spv::BuiltIn::PrimitiveId, Want::kUint);
      }
    } else if (compute()) {
      f[kObsLocalIndex] =
          LoadBuiltin(spv::BuiltIn::LocalInvocationIndex, Want::kUint);
      const uint32_t group =
          LoadBuiltin(spv::BuiltIn::WorkgroupId, Want::kUVec3);
      for (uint32_t k = 0; k < 3; ++k)
        f[kObsWorkgroup + k] = Op2(Op::OpCompositeExtract, u, {group, k});
    } else {
      f[kObsVertexIndex] = LoadBuiltin(spv::BuiltIn::VertexIndex, Want::kUint);
      f[kObsInstanceIndex] =
          LoadBuiltin(spv::BuiltIn::InstanceIndex, Want::kUint);
    }
    f[kObsFlags] = Const(flags);

    // The warp number: the lowest writing lane counts, the others read it.
    const uint32_t entry = NewId();
    entry_label_ = entry;
    if (subgroup) {
      const uint32_t writers =
          Op2(Op::OpGroupNonUniformBallot, UVec(4), {sg, writes});
      const uint32_t first =
          Op2(Op::OpGroupNonUniformBallotFindLSB, u, {sg, writers});
      const uint32_t lead = Op2(Op::OpIEqual, b, {f[kObsLane], first});
      const uint32_t count_block = NewId(), joined = NewId();
      Emit(cur_, Op::OpSelectionMerge, {joined, 0});
      Emit(cur_, Op::OpBranchConditional, {lead, count_block, joined});
      Emit(cur_, Op::OpLabel, {count_block});
      const uint32_t taken =
          Op2(Op::OpAtomicIAdd, u,
              {word(Const(kObserveWarpCounter)), mem_scope, relaxed, Const(1)});
      Emit(cur_, Op::OpBranch, {joined});
      Emit(cur_, Op::OpLabel, {joined});
      const uint32_t value =
          Op2(Op::OpPhi, u, {taken, count_block, Const(0), entry});
      f[kObsWarp] = Op2(Op::OpGroupNonUniformShuffle, u, {sg, value, first});
    }

    // The record.
    const uint32_t write_block = NewId(), done = NewId();
    const uint32_t store_block = NewId(), stored = NewId();
    Emit(cur_, Op::OpSelectionMerge, {done, 0});
    Emit(cur_, Op::OpBranchConditional, {writes, write_block, done});
    Emit(cur_, Op::OpLabel, {write_block});
    const uint32_t index = Op2(
        Op::OpAtomicIAdd, u,
        {word(Const(kObserveInvocationCounter)), mem_scope, relaxed, Const(1)});
    const uint32_t capacity =
        Op2(Op::OpLoad, u, {word(Const(kObserveCapacity))});
    const uint32_t fits = Op2(Op::OpULessThan, b, {index, capacity});
    Emit(cur_, Op::OpSelectionMerge, {stored, 0});
    Emit(cur_, Op::OpBranchConditional, {fits, store_block, stored});
    Emit(cur_, Op::OpLabel, {store_block});
    auto record_base = [&](uint32_t record) {
      const uint32_t scaled =
          Op2(Op::OpIMul, u, {record, Const(kObserveRecordWords)});
      return Op2(Op::OpIAdd, u, {scaled, Const(kObserveHeaderWords)});
    };
    const uint32_t base = record_base(index);
    for (uint32_t k = 0; k < kObserveRecordWords; ++k) {
      const uint32_t at = k == 0 ? base : Op2(Op::OpIAdd, u, {base, Const(k)});
      Emit(cur_, Op::OpStore, {word(at), f[k]});
    }
    if (record_var != 0) Emit(cur_, Op::OpStore, {record_var, index});
    Emit(cur_, Op::OpBranch, {stored});
    Emit(cur_, Op::OpLabel, {stored});
    Emit(cur_, Op::OpBranch, {done});
    Emit(cur_, Op::OpLabel, {done});
    Emit(cur_, Op::OpBranch, {first_label_});

    // The end clock, before every return.
    if (record_var == 0) return;
    for (auto& [at, words] : returns_) {
      cur_ = &words;
      const uint32_t record = Op2(Op::OpLoad, u, {record_var});
      const uint32_t kept = Op2(Op::OpINotEqual, b, {record, absent});
      const uint32_t clock = Op2(Op::OpReadClockKHR, UVec(2), {sg});
      const uint32_t store = NewId(), merge = NewId();
      Emit(cur_, Op::OpSelectionMerge, {merge, 0});
      Emit(cur_, Op::OpBranchConditional, {kept, store, merge});
      Emit(cur_, Op::OpLabel, {store});
      const uint32_t base_at = record_base(record);
      for (uint32_t k = 0; k < 2; ++k) {
        const uint32_t part = Op2(Op::OpCompositeExtract, u, {clock, k});
        const uint32_t slot =
            Op2(Op::OpIAdd, u, {base_at, Const(kObsEndClockLo + k)});
        Emit(cur_, Op::OpStore, {word(slot), part});
      }
      Emit(cur_, Op::OpBranch, {merge});
      Emit(cur_, Op::OpLabel, {merge});
    }
    cur_ = &code_;
  }

  // ---- Writing the module. ----

  Result<Words> Stream() {
    const spirv::Header& h = module_.header;
    Words out = {h.magic, version_, h.generator, bound_, h.schema};
    bool caps_done = false, exts_done = false, annotations_done = false,
         globals_done = false;
    bool in_first_block = false;
    for (size_t i = 0; i < module_.instructions.size(); ++i) {
      const spirv::Instruction& in = module_.instructions[i];
      const Op op = static_cast<Op>(in.opcode);
      if (!caps_done && op != Op::OpCapability) {
        out.insert(out.end(), new_capabilities_.begin(),
                   new_capabilities_.end());
        caps_done = true;
      }
      if (!exts_done && op != Op::OpCapability && op != Op::OpExtension) {
        out.insert(out.end(), new_extensions_.begin(), new_extensions_.end());
        exts_done = true;
      }
      if (!annotations_done && !IsPreamble(op)) {
        out.insert(out.end(), annotations_.begin(), annotations_.end());
        annotations_done = true;
      }
      if (!globals_done && op == Op::OpFunction) {
        out.insert(out.end(), globals_.begin(), globals_.end());
        globals_done = true;
      }
      if (i == entry_index_) {
        const size_t at = out.size();
        out.insert(out.end(), in.words.begin(), in.words.end());
        out.insert(out.end(), interface_added_.begin(), interface_added_.end());
        out[at] = static_cast<uint32_t>(out.size() - at) << 16 | in.opcode;
        continue;
      }
      if (i == label_index_) {
        Emit(&out, Op::OpLabel, {entry_label_});
        in_first_block = true;
        continue;
      }
      if (in_first_block) {
        if (op == Op::OpVariable || op == Op::OpLine || op == Op::OpNoLine ||
            nonsemantic_.count(i)) {
          out.insert(out.end(), in.words.begin(), in.words.end());
          continue;
        }
        out.insert(out.end(), code_.begin(), code_.end());
        Emit(&out, Op::OpLabel, {first_label_});
        in_first_block = false;
      }
      if (auto it = returns_.find(i); it != returns_.end())
        out.insert(out.end(), it->second.begin(), it->second.end());
      out.insert(out.end(), in.words.begin(), in.words.end());
    }
    if (!globals_done) return InvalidInput("module without functions");
    return out;
  }

  const spirv::SplitModule& module_;
  const ObservePassOptions& options_;
  uint32_t bound_;
  uint32_t version_ = 0;
  bool vulkan_memory_model_ = false;
  size_t entry_index_ = 0, function_index_ = 0, label_index_ = 0;
  uint32_t entry_function_ = 0, first_label_ = 0, entry_label_ = 0;
  size_t interface_start_ = 0;
  std::set<uint32_t> interface_;
  Words interface_added_;
  std::set<uint32_t> capabilities_;
  std::set<std::string> extensions_;
  std::map<uint32_t, uint32_t> builtin_of_;  // variable -> BuiltIn
  std::map<uint32_t, uint32_t> input_vars_;  // variable -> pointer type
  std::map<uint32_t, uint32_t> pointee_;     // pointer type -> pointee
  std::map<uint32_t, BuiltinVar> builtins_;  // BuiltIn -> variable
  std::map<Words, uint32_t> types_;          // opcode + operands -> id
  std::set<uint32_t> signed_ints_;
  std::set<size_t> nonsemantic_;  // instruction indices
  std::map<uint32_t, uint32_t> constants_;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> pointers_;
  uint32_t true_ = 0;
  Words new_capabilities_, new_extensions_, annotations_, globals_, code_;
  Words* cur_ = &code_;  // where Op2 and Emit(cur_, ...) write
  // OpReturn instruction index -> the code before it (end clock).
  std::map<size_t, Words> returns_;
};

}  // namespace

Result<std::vector<uint32_t>> InstrumentForObserve(
    std::span<const uint32_t> words, const ObservePassOptions& options) {
  auto split = spirv::SplitInstructions(words, "<observed shader>");
  if (!split.ok()) return split.error();
  return Pass(*split, options).Run();
}

}  // namespace warpsim::vkref
