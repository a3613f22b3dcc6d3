#include "spirv/disassemble.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "spirv/compile.h"

namespace warpsim::spirv {
namespace {

TEST_CASE("disassembly uses names, enumerants and literals",
          "[spirv][disassemble]") {
  const char* text = R"(
               OpCapability Shader
               OpCapability Float64
          %1 = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 8 4 1
               OpName %main "main"
               OpName %gid "gl_GlobalInvocationID"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpMemberDecorate %S 0 Offset 16
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
     %double = OpTypeFloat 64
        %int = OpTypeInt 32 1
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
          %S = OpTypeStruct %float
        %ptr = OpTypePointer Input %v3uint
        %gid = OpVariable %ptr Input
    %float_h = OpConstant %float 0.5
    %double_1 = OpConstant %double -2.25
      %int_m = OpConstant %int -7
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %x = OpExtInst %float %1 FMix %float_h %float_h %float_h
               OpSelectionMerge %merge None
               OpSwitch %int_m %merge 3 %case
       %case = OpLabel
               OpBranch %merge
      %merge = OpLabel
               OpReturn
               OpFunctionEnd
)";
  Result<std::vector<uint32_t>> words =
      AssembleSpirv(text, TargetEnv::kVulkan1_3, "t.spvasm");
  REQUIRE(words.ok());
  const std::string dis = Disassemble(*words);
  INFO(dis);
  CHECK_THAT(dis, Catch::Contains("; Version: 1.6"));
  CHECK_THAT(dis, Catch::Contains("OpCapability Float64"));
  CHECK_THAT(dis, Catch::Contains("OpExtInstImport \"GLSL.std.450\""));
  CHECK_THAT(dis, Catch::Contains("OpEntryPoint GLCompute %main \"main\" "
                                  "%gl_GlobalInvocationID"));
  CHECK_THAT(dis, Catch::Contains("OpExecutionMode %main LocalSize 8 4 1"));
  CHECK_THAT(dis, Catch::Contains("OpDecorate %gl_GlobalInvocationID BuiltIn "
                                  "GlobalInvocationId"));
  CHECK_THAT(dis, Catch::Contains("Offset 16"));
  CHECK_THAT(dis, Catch::Contains("OpTypePointer Input"));
  CHECK_THAT(dis, Catch::Contains("OpConstant %7 0.5"));
  CHECK_THAT(dis, Catch::Contains("-2.25"));
  CHECK_THAT(dis, Catch::Contains("-7"));
  CHECK_THAT(dis, Catch::Contains("FMix"));
  CHECK_THAT(dis, Catch::Contains("OpFunction %5 None %6"));
  CHECK_THAT(dis, Catch::Contains("OpSelectionMerge"));
  CHECK_THAT(dis, Catch::Contains("OpSwitch %15 %18 3 %19"));
  CHECK_THAT(dis,
             Catch::Contains("%gl_GlobalInvocationID = OpVariable %12 Input"));
}

TEST_CASE("disassembly of malformed words reports, never crashes",
          "[spirv][disassemble]") {
  CHECK_THAT(Disassemble(std::vector<uint32_t>{1, 2, 3}),
             Catch::Contains("; error:"));
  std::vector<uint32_t> words = {kSpirvMagic,     0x00010600, 0, 5, 0,
                                 (3u << 16) | 17, 1,          2};  // extra word
  CHECK_THAT(Disassemble(words), Catch::Contains("; error: instruction has "
                                                 "words left over"));
}

}  // namespace
}  // namespace warpsim::spirv
