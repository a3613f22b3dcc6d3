// Reconvergence and divergent control flow (exec_control_flow.cpp, warp.h).
#include <catch2/catch.hpp>

#include "common/test_util.h"

using warpsim::runner::RunStatus;
using warpsim::testing::Describe;
using warpsim::testing::RunAmberText;

TEST_CASE("divergent if/else and per-lane loop trip counts", "[simt]") {
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint acc = 0u;
  if ((i & 1u) == 0u) {
    acc = 100u;
  } else {
    acc = 200u;
  }
  for (uint k = 0u; k < i % 7u; ++k) {
    if (k == 3u) continue;
    if (k == 5u) break;
    acc += k;
  }
  b.v[i] = acc;
}
END
BUFFER buf DATA_TYPE uint32 SIZE 64 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
EXPECT buf IDX 0 EQ 100 200 101 203 103 207 107 200 100 201 103 203 107 207
)";
  const auto report = RunAmberText(amber);
  INFO(Describe(report));
  CHECK(report.status == RunStatus::kPass);
}

TEST_CASE("switch with fall-through and early return", "[simt]") {
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer B { int v[]; } b;
void main() {
  int i = int(gl_LocalInvocationID.x);
  int r = 0;
  switch (i) {
    case 0: r += 1;
    case 1: r += 10; break;
    case 2: r += 100;
    default: r += 1000;
  }
  if (i == 7) { b.v[i] = -1; return; }
  b.v[i] = r;
}
END
BUFFER buf DATA_TYPE int32 SIZE 8 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
EXPECT buf IDX 0 EQ 11 10 1100 1000 1000 1000 1000 -1
)";
  const auto report = RunAmberText(amber);
  INFO(Describe(report));
  CHECK(report.status == RunStatus::kPass);
}

TEST_CASE("reaching OpUnreachable is a runtime error naming the lanes",
          "[simt]") {
  // Invocations 5..7 of the workgroup take the branch the module declares
  // unreachable: the run fails as invalid input, with the instruction's
  // word offset and opcode and the lanes that reached it. (The store keeps
  // legalization from deleting the branch as dead code.)
  const std::string amber = R"(#!amber
SHADER compute cs SPIRV-ASM
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 8 1 1
               OpDecorate %gid BuiltIn LocalInvocationId
               OpDecorate %S BufferBlock
               OpMemberDecorate %S 0 Offset 0
               OpDecorate %arr ArrayStride 4
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
      %v3int = OpTypeVector %uint 3
     %ptr_in = OpTypePointer Input %v3int
        %gid = OpVariable %ptr_in Input
      %uint8 = OpConstant %uint 8
        %arr = OpTypeArray %uint %uint8
          %S = OpTypeStruct %arr
      %ptr_S = OpTypePointer Uniform %S
      %ptr_u = OpTypePointer Uniform %uint
        %buf = OpVariable %ptr_S Uniform
         %c0 = OpConstant %uint 0
         %c1 = OpConstant %uint 1
         %c5 = OpConstant %uint 5
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %id = OpLoad %v3int %gid
          %x = OpCompositeExtract %uint %id 0
        %bad = OpUGreaterThanEqual %bool %x %c5
               OpSelectionMerge %merge None
               OpBranchConditional %bad %never %merge
      %never = OpLabel
         %pn = OpAccessChain %ptr_u %buf %c0 %x
               OpStore %pn %c5
               OpUnreachable
      %merge = OpLabel
          %p = OpAccessChain %ptr_u %buf %c0 %x
               OpStore %p %c1
               OpReturn
               OpFunctionEnd
END
BUFFER buf DATA_TYPE uint32 SIZE 8 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
)";
  const auto report = RunAmberText(amber);
  INFO(Describe(report));
  CHECK(report.status == RunStatus::kInvalid);
  REQUIRE(report.diagnostic.has_value());
  const warpsim::Diagnostic& d = *report.diagnostic;
  CHECK(d.kind == warpsim::ErrorKind::kInvalidInput);
  CHECK(d.pos.opcode == "OpUnreachable");
  CHECK(d.pos.word > 0);
  CHECK(d.message.find("lanes 5-7 ") != std::string::npos);
  CHECK(d.message.find("workgroup (0, 0, 0), subgroup 0") != std::string::npos);
}
