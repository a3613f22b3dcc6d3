#include "spirv/grammar.h"

#include <catch2/catch.hpp>

namespace warpsim::spirv {
namespace {

TEST_CASE("opcode lookups come from the grammar", "[spirv][grammar]") {
  const OpcodeInfo* fadd = FindOpcode(Op::kFAdd);
  REQUIRE(fadd != nullptr);
  CHECK(fadd->opcode == 129);
  CHECK(fadd->name == "OpFAdd");
  CHECK(fadd->op_class == "Arithmetic");
  CHECK(fadd->has_result_type);
  CHECK(fadd->has_result_id);
  REQUIRE(fadd->operands.size() == 4);
  CHECK(fadd->operands[0].kind == OperandKind::kIdResultType);
  CHECK(fadd->operands[1].kind == OperandKind::kIdResult);
  CHECK(fadd->operands[2].kind == OperandKind::kIdRef);

  CHECK(OpcodeName(static_cast<uint32_t>(Op::kStore)) == "OpStore");
  const OpcodeInfo* store = FindOpcode(Op::kStore);
  REQUIRE(store != nullptr);
  CHECK_FALSE(store->has_result_type);
  CHECK_FALSE(store->has_result_id);
  REQUIRE(store->operands.size() == 3);
  CHECK(store->operands[2].kind == OperandKind::kMemoryAccess);
  CHECK(store->operands[2].quantifier == Quantifier::kOptional);

  const OpcodeInfo* phi = FindOpcodeByName("OpPhi");
  REQUIRE(phi != nullptr);
  CHECK(phi->operands.back().kind == OperandKind::kPairIdRefIdRef);
  CHECK(phi->operands.back().quantifier == Quantifier::kVariadic);

  CHECK(static_cast<uint32_t>(Op::kTerminateInvocation) == 4416);
  CHECK(OpcodeName(4416) == "OpTerminateInvocation");
  CHECK(OpcodeName(static_cast<uint32_t>(Op::kDemoteToHelperInvocation)) ==
        "OpDemoteToHelperInvocation");
  CHECK(FindOpcode(0xfffe) == nullptr);
  CHECK(OpcodeName(0xfffe).empty());
}

TEST_CASE("opcode table is sorted and complete", "[spirv][grammar]") {
  std::span<const OpcodeInfo> all = AllOpcodes();
  REQUIRE(all.size() > 300);
  for (size_t i = 1; i < all.size(); ++i) {
    REQUIRE(all[i - 1].opcode < all[i].opcode);
  }
  for (const OpcodeInfo& info : all) {
    REQUIRE(FindOpcode(info.opcode) == &info);
  }
  CHECK(GrammarVersion() >= 10600);
}

TEST_CASE("enumerant names and parameters", "[spirv][grammar]") {
  CHECK(EnumerantName(OperandKind::kDecoration, 35) == "Offset");
  const EnumerantInfo* offset = FindEnumerant(OperandKind::kDecoration, 35);
  REQUIRE(offset != nullptr);
  REQUIRE(offset->parameters.size() == 1);
  CHECK(offset->parameters[0].kind == OperandKind::kLiteralInteger);
  CHECK(
      FindEnumerant(OperandKind::kDecoration, 2)->parameters.empty());  // Block

  CHECK(EnumerantName(OperandKind::kBuiltIn, 15) == "FragCoord");
  CHECK(EnumerantName(OperandKind::kStorageClass, 12) == "StorageBuffer");
  CHECK(EnumerantName(OperandKind::kCapability, 1) == "Shader");
  CHECK(EnumerantName(OperandKind::kExecutionModel, 4) == "Fragment");
  CHECK(EnumerantName(OperandKind::kExecutionMode, 17) == "LocalSize");
  CHECK(FindEnumerant(OperandKind::kExecutionMode, 17)->parameters.size() == 3);
  CHECK(EnumerantName(OperandKind::kDim, 1) == "2D");
  CHECK(EnumerantName(OperandKind::kImageFormat, 1) == "Rgba32f");
  CHECK(EnumerantName(OperandKind::kDecoration, 0xfffffu).empty());

  CHECK(EnumerantValue(OperandKind::kBuiltIn, "GlobalInvocationId") == 28u);
  CHECK_FALSE(EnumerantValue(OperandKind::kBuiltIn, "NoSuchBuiltIn"));

  // Bit masks.
  CHECK(MaskToString(OperandKind::kSelectionControl, 0) == "None");
  CHECK(MaskToString(OperandKind::kLoopControl, 3) == "Unroll|DontUnroll");
  CHECK(MaskToString(OperandKind::kMemoryAccess, 2 | 0x80000000u) ==
        "Aligned|0x80000000");
  const EnumerantInfo* lod = FindEnumerant(OperandKind::kImageOperands, 2);
  REQUIRE(lod != nullptr);
  CHECK(lod->name == "Lod");
  CHECK(lod->parameters.size() == 1);
  CHECK(lod->parameters[0].kind == OperandKind::kIdRef);
}

TEST_CASE("operand kind metadata", "[spirv][grammar]") {
  CHECK(OperandKindName(OperandKind::kIdRef) == "IdRef");
  CHECK(GetOperandKindInfo(OperandKind::kIdRef).category ==
        OperandCategory::kId);
  CHECK(GetOperandKindInfo(OperandKind::kFunctionControl).category ==
        OperandCategory::kBitEnum);
  CHECK(GetOperandKindInfo(OperandKind::kDecoration).category ==
        OperandCategory::kValueEnum);
  const OperandKindInfo& pair =
      GetOperandKindInfo(OperandKind::kPairLiteralIntegerIdRef);
  CHECK(pair.category == OperandCategory::kComposite);
  REQUIRE(pair.bases.size() == 2);
  CHECK(pair.bases[0] == OperandKind::kLiteralInteger);
  CHECK(pair.bases[1] == OperandKind::kIdRef);
}

TEST_CASE("GLSL.std.450 names", "[spirv][grammar]") {
  CHECK(GlslStd450Name(1) == "Round");
  CHECK(GlslStd450Name(static_cast<uint32_t>(GlslStd450::kFma)) == "Fma");
  CHECK(static_cast<uint32_t>(GlslStd450::kFMix) == 46);
  CHECK(GlslStd450Name(static_cast<uint32_t>(GlslStd450::kInverseSqrt)) ==
        "InverseSqrt");
  REQUIRE(FindGlslStd450(46) != nullptr);
  CHECK(FindGlslStd450(46)->operands.size() == 3);
  CHECK(GlslStd450Name(9999).empty());
}

}  // namespace
}  // namespace warpsim::spirv
