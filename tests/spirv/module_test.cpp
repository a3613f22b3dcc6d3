// Tests of emulator/spirv/module.cpp: Module::Build from validated SPIR-V.
#include "spirv/module.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "spirv/compile.h"

namespace warpsim::spirv {
namespace {

std::vector<uint32_t> Assemble(const std::string& text,
                               TargetEnv env = TargetEnv::kVulkan1_3) {
  Result<std::vector<uint32_t>> words = AssembleSpirv(text, env, "m.spvasm");
  INFO((words.ok() ? "" : words.error().ToString()));
  REQUIRE(words.ok());
  return *words;
}

// Assembles, validates and builds `text`.
Module BuildValid(const std::string& text,
                  TargetEnv env = TargetEnv::kVulkan1_3) {
  const std::vector<uint32_t> words = Assemble(text, env);
  Status valid = ValidateSpirv(words, env, "m.spvasm");
  INFO((valid.ok() ? "" : valid.error().ToString()));
  REQUIRE(valid.ok());
  Result<Module> m = Module::Build(words, "m.spvasm");
  INFO((m.ok() ? "" : m.error().ToString()));
  REQUIRE(m.ok());
  return std::move(*m);
}

// The id that OpName calls `name` (0 when none does).
uint32_t IdOf(const Module& m, const std::string& name) {
  for (uint32_t id = 1; id < m.bound(); ++id) {
    if (m.Name(id) == name) return id;
  }
  FAIL("no OpName \"" << name << "\"");
  return 0;
}

const Block* FindBlock(const Function& fn, uint32_t label) {
  for (const Block& b : fn.blocks) {
    if (b.label == label) return &b;
  }
  return nullptr;
}

// One compute module exercising most of what Module records. Every id the
// test looks at has an OpName.
const char* const kModule = R"(
               OpCapability Shader
               OpCapability Float64
               OpExtension "SPV_KHR_storage_buffer_storage_class"
       %glsl = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid %buf
               OpEntryPoint GLCompute %other "second"
               OpExecutionMode %main LocalSize 5 3 2
               OpExecutionModeId %other LocalSizeId %c4 %sc %scop
               OpName %main "main"
               OpName %other "other"
               OpName %gid "gid"
               OpName %buf "buf"
               OpName %S "S"
               OpName %rta "rta"
               OpName %arr "arr"
               OpName %void "void"
               OpName %bool "bool"
               OpName %int "int"
               OpName %uint "uint"
               OpName %float "float"
               OpName %double "double"
               OpName %v3uint "v3uint"
               OpName %v4float "v4float"
               OpName %mat2 "mat2"
               OpName %ptr_sb_S "ptr_sb_S"
               OpName %fn_uint_uint "fn_uint_uint"
               OpName %c0 "c0"
               OpName %c1 "c1"
               OpName %c4 "c4"
               OpName %f1_5 "f1_5"
               OpName %d2_25 "d2_25"
               OpName %true "true"
               OpName %vc "vc"
               OpName %null "null"
               OpName %sc "sc"
               OpName %sct "sct"
               OpName %scop "scop"
               OpName %sccomp "sccomp"
               OpName %entry "entry"
               OpName %then "then"
               OpName %merge "merge"
               OpName %header "header"
               OpName %body "body"
               OpName %cont "cont"
               OpName %exit "exit"
               OpName %i "i"
               OpName %inext "inext"
               OpName %var "var"
               OpName %helper "helper"
               OpName %param "param"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %S 0 Offset 0
               OpMemberDecorate %S 1 Offset 16
               OpMemberDecorate %S 1 NonWritable
               OpDecorate %S Block
               OpDecorate %buf DescriptorSet 2
               OpDecorate %buf Binding 7
               OpDecorate %sc SpecId 5
               OpDecorate %sct SpecId 6
       %void = OpTypeVoid
     %fnvoid = OpTypeFunction %void
       %bool = OpTypeBool
        %int = OpTypeInt 32 1
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
     %double = OpTypeFloat 64
     %v3uint = OpTypeVector %uint 3
    %v4float = OpTypeVector %float 4
    %v2float = OpTypeVector %float 2
       %mat2 = OpTypeMatrix %v2float 2
         %c0 = OpConstant %uint 0
         %c1 = OpConstant %uint 1
         %c4 = OpConstant %uint 4
        %arr = OpTypeArray %float %c4
        %rta = OpTypeRuntimeArray %uint
          %S = OpTypeStruct %v4float %rta
   %ptr_sb_S = OpTypePointer StorageBuffer %S
  %ptr_in_v3 = OpTypePointer Input %v3uint
 %ptr_fn_uint = OpTypePointer Function %uint
%fn_uint_uint = OpTypeFunction %uint %uint
       %f1_5 = OpConstant %float 1.5
      %d2_25 = OpConstant %double 2.25
       %true = OpConstantTrue %bool
         %vc = OpConstantComposite %v4float %f1_5 %f1_5 %f1_5 %f1_5
       %null = OpConstantNull %v3uint
         %sc = OpSpecConstant %uint 8
        %sct = OpSpecConstantTrue %bool
       %scop = OpSpecConstantOp %uint IAdd %sc %c4
     %sccomp = OpSpecConstantComposite %v3uint %sc %c4 %scop
        %gid = OpVariable %ptr_in_v3 Input
        %buf = OpVariable %ptr_sb_S StorageBuffer
     %helper = OpFunction %uint None %fn_uint_uint
      %param = OpFunctionParameter %uint
         %hl = OpLabel
         %hr = OpIAdd %uint %param %c1
               OpReturnValue %hr
               OpFunctionEnd
       %main = OpFunction %void None %fnvoid
      %entry = OpLabel
        %var = OpVariable %ptr_fn_uint Function %c0
          %g = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g 0
        %odd = OpBitwiseAnd %uint %x %c1
       %cond = OpIEqual %bool %odd %c1
               OpSelectionMerge %merge None
               OpBranchConditional %cond %then %merge
       %then = OpLabel
               OpBranch %merge
      %merge = OpLabel
               OpBranch %header
     %header = OpLabel
          %i = OpPhi %uint %c0 %merge %inext %cont
               OpLoopMerge %exit %cont None
               OpBranch %body
       %body = OpLabel
         %lt = OpULessThan %bool %i %c4
               OpBranchConditional %lt %cont %exit
       %cont = OpLabel
      %inext = OpIAdd %uint %i %c1
               OpBranch %header
       %exit = OpLabel
               OpStore %var %i
               OpReturn
               OpFunctionEnd
      %other = OpFunction %void None %fnvoid
         %ol = OpLabel
               OpReturn
               OpFunctionEnd
)";

TEST_CASE("module header, capabilities, extensions and names", "[spirv]") {
  const Module m = BuildValid(kModule);
  CHECK(m.file() == "m.spvasm");
  CHECK(m.bound() > IdOf(m, "exit"));
  CHECK(m.capabilities() ==
        std::vector<spv::Capability>{spv::Capability::Shader,
                                     spv::Capability::Float64});
  CHECK(m.extensions() ==
        std::vector<std::string>{"SPV_KHR_storage_buffer_storage_class"});
  // The import is the only id without a name that is an ext-inst set.
  uint32_t glsl = 0;
  for (uint32_t id = 1; id < m.bound(); ++id) {
    if (m.IsGlslStd450(id)) glsl = id;
  }
  CHECK(glsl != 0);
  CHECK(m.ExtInstSetName(glsl) == "GLSL.std.450");
  CHECK(m.ExtInstSetName(IdOf(m, "main")).empty());
  CHECK(m.Name(IdOf(m, "param")) == "param");
  CHECK(m.Name(m.bound() + 5).empty());
}

TEST_CASE("module types", "[spirv]") {
  const Module m = BuildValid(kModule);
  CHECK(m.type(IdOf(m, "void")).kind == TypeKind::kVoid);
  CHECK(m.type(IdOf(m, "bool")).kind == TypeKind::kBool);

  const Type& i = m.type(IdOf(m, "int"));
  CHECK(i.kind == TypeKind::kInt);
  CHECK(i.width == 32);
  CHECK(i.is_signed);
  const Type& u = m.type(IdOf(m, "uint"));
  CHECK(u.kind == TypeKind::kInt);
  CHECK_FALSE(u.is_signed);
  const Type& d = m.type(IdOf(m, "double"));
  CHECK(d.kind == TypeKind::kFloat);
  CHECK(d.width == 64);
  CHECK(d.opcode == spv::Op::OpTypeFloat);

  const Type& v4 = m.type(IdOf(m, "v4float"));
  CHECK(v4.kind == TypeKind::kVector);
  CHECK(v4.element == IdOf(m, "float"));
  CHECK(v4.count == 4);
  const Type& mat = m.type(IdOf(m, "mat2"));
  CHECK(mat.kind == TypeKind::kMatrix);
  CHECK(mat.count == 2);
  CHECK(m.type(mat.element).kind == TypeKind::kVector);
  CHECK(m.type(mat.element).count == 2);

  const Type& arr = m.type(IdOf(m, "arr"));
  CHECK(arr.kind == TypeKind::kArray);
  CHECK(arr.element == IdOf(m, "float"));
  CHECK(arr.length_id == IdOf(m, "c4"));
  CHECK(arr.count == 4);  // resolved from the plain constant
  const Type& rta = m.type(IdOf(m, "rta"));
  CHECK(rta.kind == TypeKind::kRuntimeArray);
  CHECK(rta.element == IdOf(m, "uint"));

  const Type& s = m.type(IdOf(m, "S"));
  CHECK(s.kind == TypeKind::kStruct);
  CHECK(s.members == std::vector<uint32_t>{IdOf(m, "v4float"), IdOf(m, "rta")});
  const Type& p = m.type(IdOf(m, "ptr_sb_S"));
  CHECK(p.kind == TypeKind::kPointer);
  CHECK(p.storage == spv::StorageClass::StorageBuffer);
  CHECK(p.pointee == IdOf(m, "S"));
  const Type& fn = m.type(IdOf(m, "fn_uint_uint"));
  CHECK(fn.kind == TypeKind::kFunction);
  CHECK(fn.element == IdOf(m, "uint"));  // return type
  CHECK(fn.members == std::vector<uint32_t>{IdOf(m, "uint")});

  // Ids that are not types, and ids past the bound.
  CHECK(m.type(IdOf(m, "c4")).kind == TypeKind::kNone);
  CHECK(m.type(m.bound() + 100).kind == TypeKind::kNone);

  CHECK(m.ComponentCount(IdOf(m, "v4float")) == 4);
  CHECK(m.ComponentCount(IdOf(m, "mat2")) == 4);
  CHECK(m.ComponentCount(IdOf(m, "arr")) == 4);
  CHECK(m.ComponentCount(IdOf(m, "double")) == 1);
  CHECK(m.ComponentCount(IdOf(m, "v3uint")) == 3);
  CHECK(m.ComponentCount(IdOf(m, "void")) == 0);
}

TEST_CASE("module constants, including specialization constants", "[spirv]") {
  const Module m = BuildValid(kModule);
  const uint32_t uint_t = IdOf(m, "uint");

  const Constant* c4 = m.constant(IdOf(m, "c4"));
  REQUIRE(c4 != nullptr);
  CHECK(c4->type == uint_t);
  CHECK(c4->opcode == spv::Op::OpConstant);
  CHECK(c4->words == std::vector<uint32_t>{4});
  CHECK_FALSE(c4->is_spec);

  const Constant* f = m.constant(IdOf(m, "f1_5"));
  REQUIRE(f != nullptr);
  CHECK(f->words == std::vector<uint32_t>{0x3fc00000u});
  const Constant* d = m.constant(IdOf(m, "d2_25"));
  REQUIRE(d != nullptr);
  CHECK(d->words == std::vector<uint32_t>{0u, 0x40020000u});  // low first

  const Constant* t = m.constant(IdOf(m, "true"));
  REQUIRE(t != nullptr);
  CHECK(t->opcode == spv::Op::OpConstantTrue);
  CHECK(t->words == std::vector<uint32_t>{1});

  const Constant* vc = m.constant(IdOf(m, "vc"));
  REQUIRE(vc != nullptr);
  CHECK(vc->constituents == std::vector<uint32_t>(4, IdOf(m, "f1_5")));
  CHECK_FALSE(vc->is_spec);
  const Constant* null = m.constant(IdOf(m, "null"));
  REQUIRE(null != nullptr);
  CHECK(null->is_null);
  CHECK(null->type == IdOf(m, "v3uint"));

  // Specialization constants keep their default value and are marked.
  const Constant* sc = m.constant(IdOf(m, "sc"));
  REQUIRE(sc != nullptr);
  CHECK(sc->is_spec);
  CHECK(sc->opcode == spv::Op::OpSpecConstant);
  CHECK(sc->words == std::vector<uint32_t>{8});
  const Constant* sct = m.constant(IdOf(m, "sct"));
  REQUIRE(sct != nullptr);
  CHECK(sct->is_spec);
  CHECK(sct->opcode == spv::Op::OpSpecConstantTrue);
  CHECK(sct->words == std::vector<uint32_t>{1});
  const Constant* op = m.constant(IdOf(m, "scop"));
  REQUIRE(op != nullptr);
  CHECK(op->is_spec);
  CHECK(op->opcode == spv::Op::OpSpecConstantOp);
  CHECK(op->spec_op == spv::Op::OpIAdd);
  CHECK(op->spec_operands ==
        std::vector<uint32_t>{IdOf(m, "sc"), IdOf(m, "c4")});
  const Constant* comp = m.constant(IdOf(m, "sccomp"));
  REQUIRE(comp != nullptr);
  CHECK(comp->is_spec);
  CHECK(comp->opcode == spv::Op::OpSpecConstantComposite);
  CHECK(comp->constituents ==
        std::vector<uint32_t>{IdOf(m, "sc"), IdOf(m, "c4"), IdOf(m, "scop")});

  CHECK(m.constant(IdOf(m, "uint")) == nullptr);
  // Definition order, which lowering folds in.
  const std::vector<uint32_t> expected_order = {
      IdOf(m, "c0"),    IdOf(m, "c1"),   IdOf(m, "c4"),   IdOf(m, "f1_5"),
      IdOf(m, "d2_25"), IdOf(m, "true"), IdOf(m, "vc"),   IdOf(m, "null"),
      IdOf(m, "sc"),    IdOf(m, "sct"),  IdOf(m, "scop"), IdOf(m, "sccomp")};
  CHECK(m.constant_order() == expected_order);
}

TEST_CASE("module decorations and member decorations", "[spirv]") {
  const Module m = BuildValid(kModule);
  const uint32_t buf = IdOf(m, "buf");
  const uint32_t s = IdOf(m, "S");
  CHECK(m.DecorationValue(buf, spv::Decoration::DescriptorSet) == 2u);
  CHECK(m.DecorationValue(buf, spv::Decoration::Binding) == 7u);
  CHECK(m.decorations(buf).size() == 2);
  CHECK(m.DecorationValue(IdOf(m, "gid"), spv::Decoration::BuiltIn) ==
        static_cast<uint32_t>(spv::BuiltIn::GlobalInvocationId));
  CHECK(m.DecorationValue(IdOf(m, "sc"), spv::Decoration::SpecId) == 5u);
  CHECK(m.DecorationValue(IdOf(m, "rta"), spv::Decoration::ArrayStride) == 4u);
  // A decoration without operands reads as 0 but is present.
  CHECK(m.HasDecoration(s, spv::Decoration::Block));
  CHECK(m.DecorationValue(s, spv::Decoration::Block) == 0u);
  CHECK_FALSE(m.HasDecoration(s, spv::Decoration::BufferBlock));
  CHECK_FALSE(m.DecorationValue(buf, spv::Decoration::Location).has_value());
  CHECK(m.decorations(IdOf(m, "c4")).empty());

  CHECK(m.MemberDecorationValue(s, 0, spv::Decoration::Offset) == 0u);
  CHECK(m.MemberDecorationValue(s, 1, spv::Decoration::Offset) == 16u);
  CHECK(m.HasMemberDecoration(s, 1, spv::Decoration::NonWritable));
  CHECK_FALSE(m.HasMemberDecoration(s, 0, spv::Decoration::NonWritable));
  REQUIRE(m.member_decorations(s, 1).size() == 2);
  CHECK(m.member_decorations(s, 1)[0].kind == spv::Decoration::Offset);
  CHECK(m.member_decorations(s, 1)[0].operands == std::vector<uint32_t>{16});
  CHECK(m.member_decorations(s, 1)[1].kind == spv::Decoration::NonWritable);
  CHECK(m.member_decorations(s, 2).empty());
}

TEST_CASE("module entry points and execution modes", "[spirv]") {
  const Module m = BuildValid(kModule);
  REQUIRE(m.entry_points().size() == 2);

  const EntryPoint* main_ep = m.FindEntryPoint("main");
  REQUIRE(main_ep != nullptr);
  CHECK(main_ep->model == spv::ExecutionModel::GLCompute);
  CHECK(main_ep->function == IdOf(m, "main"));
  CHECK(main_ep->interface ==
        std::vector<uint32_t>{IdOf(m, "gid"), IdOf(m, "buf")});
  REQUIRE(main_ep->modes.size() == 1);
  CHECK(main_ep->modes[0].mode == spv::ExecutionMode::LocalSize);
  CHECK(main_ep->modes[0].operands == std::vector<uint32_t>{5, 3, 2});
  CHECK_FALSE(main_ep->modes[0].operands_are_ids);

  const EntryPoint* second =
      m.FindEntryPoint("second", spv::ExecutionModel::GLCompute);
  REQUIRE(second != nullptr);
  CHECK(second->function == IdOf(m, "other"));
  CHECK(second->interface.empty());
  REQUIRE(second->modes.size() == 1);
  CHECK(second->modes[0].mode == spv::ExecutionMode::LocalSizeId);
  CHECK(second->modes[0].operands_are_ids);
  CHECK(second->modes[0].operands ==
        std::vector<uint32_t>{IdOf(m, "c4"), IdOf(m, "sc"), IdOf(m, "scop")});

  CHECK(m.FindEntryPoint("second", spv::ExecutionModel::Fragment) == nullptr);
  CHECK(m.FindEntryPoint("nope") == nullptr);
}

TEST_CASE("module globals", "[spirv]") {
  const Module m = BuildValid(kModule);
  REQUIRE(m.globals().size() == 2);
  const Variable* gid = m.global(IdOf(m, "gid"));
  REQUIRE(gid != nullptr);
  CHECK(gid->storage == spv::StorageClass::Input);
  CHECK(m.type(gid->type).pointee == IdOf(m, "v3uint"));
  CHECK(gid->initializer == 0);
  const Variable* buf = m.global(IdOf(m, "buf"));
  REQUIRE(buf != nullptr);
  CHECK(buf->storage == spv::StorageClass::StorageBuffer);
  CHECK(buf->type == IdOf(m, "ptr_sb_S"));
  // Function-scope variables are not globals.
  CHECK(m.global(IdOf(m, "var")) == nullptr);
}

TEST_CASE("module functions, blocks and structured merge information",
          "[spirv]") {
  const std::vector<uint32_t> words = Assemble(kModule);
  const Module m = BuildValid(kModule);
  REQUIRE(m.functions().size() == 3);

  const Function* helper = m.function(IdOf(m, "helper"));
  REQUIRE(helper != nullptr);
  CHECK(helper->result_type == IdOf(m, "uint"));
  CHECK(helper->function_type == IdOf(m, "fn_uint_uint"));
  CHECK(helper->params == std::vector<uint32_t>{IdOf(m, "param")});
  CHECK(helper->param_types == std::vector<uint32_t>{IdOf(m, "uint")});
  REQUIRE(helper->blocks.size() == 1);
  CHECK(helper->blocks[0].terminator.opcode == spv::Op::OpReturnValue);
  CHECK((words[helper->word_offset] & 0xffff) ==
        static_cast<uint32_t>(spv::Op::OpFunction));

  const Function* fn = m.function(IdOf(m, "main"));
  REQUIRE(fn != nullptr);
  CHECK(fn->params.empty());
  REQUIRE(fn->variables.size() == 1);
  CHECK(fn->variables[0].result_id == IdOf(m, "var"));
  CHECK(fn->variables[0].opcode == spv::Op::OpVariable);
  // Storage class, then the initializer.
  CHECK(fn->variables[0].operands ==
        std::vector<uint32_t>{
            static_cast<uint32_t>(spv::StorageClass::Function), IdOf(m, "c0")});

  // Blocks in module order, the entry first.
  REQUIRE(fn->blocks.size() == 7);
  const std::vector<std::string> order = {"entry", "then", "merge", "header",
                                          "body",  "cont", "exit"};
  for (size_t i = 0; i < order.size(); ++i) {
    INFO("block " << i);
    CHECK(fn->blocks[i].label == IdOf(m, order[i]));
  }

  const Block* entry = FindBlock(*fn, IdOf(m, "entry"));
  REQUIRE(entry != nullptr);
  CHECK(entry->merge_kind == spv::Op::OpSelectionMerge);
  CHECK(entry->merge_block == IdOf(m, "merge"));
  CHECK(entry->continue_target == 0);
  CHECK(entry->terminator.opcode == spv::Op::OpBranchConditional);
  CHECK(entry->terminator.operands.size() == 3);
  CHECK(entry->terminator.operands[1] == IdOf(m, "then"));
  CHECK(entry->terminator.operands[2] == IdOf(m, "merge"));
  // The body excludes the merge instruction and the terminator; variables
  // are kept apart.
  REQUIRE(entry->insts.size() == 4);
  CHECK(entry->insts[0].opcode == spv::Op::OpLoad);
  CHECK(entry->insts[1].opcode == spv::Op::OpCompositeExtract);
  CHECK(entry->insts[1].operands.back() == 0);  // the literal index
  CHECK(entry->insts[3].opcode == spv::Op::OpIEqual);
  CHECK(entry->insts[3].result_type == IdOf(m, "bool"));
  for (const Inst& inst : entry->insts) {
    INFO("word " << inst.word_offset);
    CHECK((words[inst.word_offset] & 0xffff) ==
          static_cast<uint32_t>(inst.opcode));
  }
  CHECK((words[entry->terminator.word_offset] & 0xffff) ==
        static_cast<uint32_t>(spv::Op::OpBranchConditional));

  const Block* then = FindBlock(*fn, IdOf(m, "then"));
  REQUIRE(then != nullptr);
  CHECK(then->merge_kind == spv::Op::OpNop);
  CHECK(then->insts.empty());
  CHECK(then->terminator.opcode == spv::Op::OpBranch);

  const Block* header = FindBlock(*fn, IdOf(m, "header"));
  REQUIRE(header != nullptr);
  CHECK(header->merge_kind == spv::Op::OpLoopMerge);
  CHECK(header->merge_block == IdOf(m, "exit"));
  CHECK(header->continue_target == IdOf(m, "cont"));
  REQUIRE(header->insts.size() == 1);
  const Inst& phi = header->insts[0];
  CHECK(phi.opcode == spv::Op::OpPhi);
  CHECK(phi.result_id == IdOf(m, "i"));
  CHECK(phi.result_type == IdOf(m, "uint"));
  CHECK(phi.operands == std::vector<uint32_t>{IdOf(m, "c0"), IdOf(m, "merge"),
                                              IdOf(m, "inext"),
                                              IdOf(m, "cont")});

  const Block* cont = FindBlock(*fn, IdOf(m, "cont"));
  REQUIRE(cont != nullptr);
  REQUIRE(cont->insts.size() == 1);
  CHECK(cont->insts[0].opcode == spv::Op::OpIAdd);
  CHECK(cont->insts[0].result_id == IdOf(m, "inext"));
  CHECK(cont->insts[0].operands ==
        std::vector<uint32_t>{IdOf(m, "i"), IdOf(m, "c1")});

  const Block* exit = FindBlock(*fn, IdOf(m, "exit"));
  REQUIRE(exit != nullptr);
  REQUIRE(exit->insts.size() == 1);
  CHECK(exit->insts[0].opcode == spv::Op::OpStore);
  CHECK(exit->insts[0].result_id == 0);  // no result: operands start at once
  CHECK(exit->insts[0].operands ==
        std::vector<uint32_t>{IdOf(m, "var"), IdOf(m, "i")});
  CHECK(exit->terminator.opcode == spv::Op::OpReturn);

  CHECK(m.function(IdOf(m, "c0")) == nullptr);
}

TEST_CASE("module-scope OpUndef reads as a null constant", "[spirv]") {
  const Module m = BuildValid(R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpName %u "u"
       %void = OpTypeVoid
     %fnvoid = OpTypeFunction %void
       %uint = OpTypeInt 32 0
          %u = OpUndef %uint
       %main = OpFunction %void None %fnvoid
          %l = OpLabel
               OpReturn
               OpFunctionEnd
)");
  const Constant* u = m.constant(IdOf(m, "u"));
  REQUIRE(u != nullptr);
  CHECK(u->is_undef);
  CHECK(u->is_null);
}

TEST_CASE("an array sized by a specialization constant is left to lowering",
          "[spirv]") {
  // module.h: kArray count is the length; module.cpp resolves it "when it
  // is a plain constant; a specialization constant length is resolved by
  // the lowering" (which only does so when count is 0).
  const Module m = BuildValid(R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpName %n "n"
               OpName %arr "arr"
               OpDecorate %n SpecId 0
       %void = OpTypeVoid
     %fnvoid = OpTypeFunction %void
       %uint = OpTypeInt 32 0
          %n = OpSpecConstant %uint 2
        %arr = OpTypeArray %uint %n
       %main = OpFunction %void None %fnvoid
          %l = OpLabel
               OpReturn
               OpFunctionEnd
)");
  const Type& arr = m.type(IdOf(m, "arr"));
  CHECK(arr.kind == TypeKind::kArray);
  CHECK(arr.length_id == IdOf(m, "n"));
  CHECK(arr.count == 0);  // not the default value 2
}

// Words of a module header with `bound`, then `body`.
std::vector<uint32_t> Header(std::vector<uint32_t> body, uint32_t bound = 10) {
  std::vector<uint32_t> words = {0x07230203u, 0x00010600u, 0, bound, 0};
  words.insert(words.end(), body.begin(), body.end());
  return words;
}

TEST_CASE("module rejects what it cannot build", "[spirv]") {
  // Unvalidated words: Module::Build must not crash on them and must say
  // what is wrong and where.
  struct Case {
    const char* name;
    std::vector<uint32_t> words;  // used when `text` is null
    const char* text;
    ErrorKind kind;
    const char* message;
    int64_t word;  // -2: the word of the first instruction with `opcode`
    spv::Op opcode;
  };
  const uint32_t kNop1 = 1u << 16;  // OpNop, one word
  const std::vector<Case> cases = {
      {"empty",
       {},
       nullptr,
       ErrorKind::kInvalidInput,
       "not a SPIR-V module",
       0,
       spv::Op::OpNop},
      {"bad magic",
       {0xdeadbeefu, 0x00010600u, 0, 10, 0},
       nullptr,
       ErrorKind::kInvalidInput,
       "bad magic number",
       0,
       spv::Op::OpNop},
      {"zero word count", Header({kNop1, 0u}), nullptr,
       ErrorKind::kInvalidInput, "instruction with bad word count", 6,
       spv::Op::OpNop},
      {"word count past the end", Header({kNop1, (4u << 16) | 17u, 1}), nullptr,
       ErrorKind::kInvalidInput, "instruction with bad word count", 6,
       spv::Op::OpNop},
      {"label outside a function",
       {},
       R"(OpCapability Shader
          OpMemoryModel Logical GLSL450
          %l = OpLabel)",
       ErrorKind::kInvalidInput,
       "OpLabel outside a function",
       -2,
       spv::Op::OpLabel},
      {"decoration group",
       {},
       R"(OpCapability Shader
          OpMemoryModel Logical GLSL450
          OpDecorate %g Restrict
          %g = OpDecorationGroup)",
       ErrorKind::kUnsupported,
       "decoration groups (OpDecorationGroup)",
       -2,
       spv::Op::OpDecorationGroup},
      {"constant sampler",
       {},
       R"(OpCapability Kernel
          OpCapability LiteralSampler
          OpMemoryModel Logical OpenCL
          %s = OpTypeSampler
          %c = OpConstantSampler %s None 0 Nearest)",
       ErrorKind::kUnsupported,
       "OpConstantSampler",
       -2,
       spv::Op::OpConstantSampler},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    std::vector<uint32_t> words =
        c.text ? Assemble(c.text, TargetEnv::kSpv1_6) : c.words;
    int64_t expected_word = c.word;
    if (expected_word == -2) {
      for (size_t i = 5; i < words.size(); i += words[i] >> 16) {
        if ((words[i] & 0xffff) == static_cast<uint32_t>(c.opcode)) {
          expected_word = static_cast<int64_t>(i);
          break;
        }
      }
    }
    Result<Module> m = Module::Build(words, "bad.spv");
    REQUIRE_FALSE(m.ok());
    INFO(m.error().ToString());
    CHECK(m.error().kind == c.kind);
    CHECK_THAT(m.error().message, Catch::Contains(c.message));
    CHECK(m.error().pos.file == "bad.spv");
    CHECK(m.error().pos.word == expected_word);
  }
}

}  // namespace
}  // namespace warpsim::spirv
