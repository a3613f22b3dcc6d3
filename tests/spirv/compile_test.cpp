#include "spirv/compile.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "spirv/binary.h"
#include "spirv/disassemble.h"
#include "spirv/grammar.h"
#include "spirv/module.h"

namespace warpsim::spirv {
namespace {

// Counts instructions with `op` in a valid module.
int Count(const std::vector<uint32_t>& words, Op op) {
  Result<SplitModule> split = SplitInstructions(words, "");
  REQUIRE(split.ok());
  int n = 0;
  for (const Instruction& inst : split->instructions) {
    if (inst.opcode == static_cast<uint32_t>(op)) ++n;
  }
  return n;
}

std::vector<uint32_t> Assemble(const std::string& text,
                               TargetEnv env = TargetEnv::kVulkan1_3) {
  Result<std::vector<uint32_t>> words = AssembleSpirv(text, env, "t.spvasm");
  INFO((words.ok() ? "" : words.error().ToString()));
  REQUIRE(words.ok());
  return *words;
}

std::vector<uint32_t> Glsl(const std::string& source, ShaderStage stage,
                           TargetEnv env = TargetEnv::kVulkan1_3) {
  Result<std::vector<uint32_t>> words =
      CompileGlsl(source, stage, env, "t.glsl");
  INFO((words.ok() ? "" : words.error().ToString()));
  REQUIRE(words.ok());
  return *words;
}

TEST_CASE("target environments parse like Amber's TARGET_ENV",
          "[spirv][compile]") {
  struct Case {
    const char* name;
    TargetEnv env;
    uint32_t max_version;
  };
  const std::vector<Case> cases = {
      {"spv1.0", TargetEnv::kSpv1_0, 0x10000},
      {"spv1.3", TargetEnv::kSpv1_3, 0x10300},
      {"spv1.6", TargetEnv::kSpv1_6, 0x10600},
      {"vulkan1.0", TargetEnv::kVulkan1_0, 0x10000},
      {"vulkan1.1", TargetEnv::kVulkan1_1, 0x10300},
      {"vulkan1.1spv1.4", TargetEnv::kVulkan1_1Spv1_4, 0x10400},
      {"vulkan1.2", TargetEnv::kVulkan1_2, 0x10500},
      {"vulkan1.3", TargetEnv::kVulkan1_3, 0x10600},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    Result<TargetEnv> env = ParseTargetEnv(c.name);
    REQUIRE(env.ok());
    CHECK(*env == c.env);
    CHECK(TargetEnvName(*env) == c.name);
    CHECK(MaxSpirvVersion(*env) == c.max_version);
  }
  for (const char* bad : {"", "vulkan", "spv2.0", "vulkan1.4", "opengl4.5"}) {
    INFO(bad);
    Result<TargetEnv> env = ParseTargetEnv(bad);
    REQUIRE_FALSE(env.ok());
    CHECK_THAT(env.error().message,
               Catch::Contains("unknown target environment"));
  }
}

constexpr char kComputeAsm[] = R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
       %main = OpFunction %void None %3
          %5 = OpLabel
               OpReturn
               OpFunctionEnd
)";

TEST_CASE("assembly errors name the line", "[spirv][compile]") {
  std::vector<uint32_t> words = Assemble(kComputeAsm);
  CHECK(words[0] == kSpirvMagic);
  CHECK(ValidateSpirv(words, TargetEnv::kVulkan1_3, "t.spvasm").ok());

  struct Case {
    const char* text;
    int line;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpFoo %1\n", 3,
       "Invalid Opcode name 'OpFoo'"},
      {"OpCapability NotACapability\n", 1, "Invalid capability"},
      {"OpCapability Shader\nOpMemoryModel Logical NoSuchModel\nOpNop\n", 2,
       "NoSuchModel"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    Result<std::vector<uint32_t>> r =
        AssembleSpirv(c.text, TargetEnv::kVulkan1_3, "bad.spvasm");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == ErrorKind::kInvalidInput);
    CHECK(r.error().pos.file == "bad.spvasm");
    CHECK(r.error().pos.line == c.line);
    CHECK_THAT(r.error().message, Catch::Contains(c.message));
  }
}

TEST_CASE("GLSL compiles and errors name the line", "[spirv][compile]") {
  std::vector<uint32_t> words = Glsl(R"(#version 450
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer B { uint data[]; };
void main() { data[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x; }
)",
                                     ShaderStage::kCompute);
  CHECK(ValidateSpirv(words, TargetEnv::kVulkan1_3, "t.glsl").ok());
  Result<SplitModule> split = SplitInstructions(words, "t.glsl");
  REQUIRE(split.ok());
  CHECK(split->header.version == 0x00010600);

  // Older environments produce older SPIR-V.
  std::vector<uint32_t> old =
      Glsl("#version 450\nvoid main() { gl_Position = vec4(0.0); }\n",
           ShaderStage::kVertex, TargetEnv::kVulkan1_0);
  CHECK(old[1] == 0x00010000);
  CHECK(ValidateSpirv(old, TargetEnv::kVulkan1_0, "t.glsl").ok());

  struct Case {
    ShaderStage stage;
    const char* source;
    int line;
    const char* message;
  };
  const std::vector<Case> cases = {
      {ShaderStage::kFragment,
       "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() {\n"
       "  c = vec4(undeclared_x);\n}\n",
       4, "undeclared_x"},
      {ShaderStage::kCompute,
       "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {\n"
       "  int a = 1\n  int b = 2;\n}\n",
       5, "syntax error"},
      {ShaderStage::kVertex,
       "#version 450\nvoid main() {\n  float f = vec3(1.0);\n}\n", 3,
       "cannot convert"},
  };
  for (const Case& c : cases) {
    INFO(c.source);
    Result<std::vector<uint32_t>> r =
        CompileGlsl(c.source, c.stage, TargetEnv::kVulkan1_3, "bad.frag");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == ErrorKind::kInvalidInput);
    CHECK(r.error().pos.file == "bad.frag");
    CHECK(r.error().pos.line == c.line);
    CHECK_THAT(r.error().message, Catch::Contains(c.message));
  }
}

TEST_CASE("GLSL errors carry glslang's whole log", "[spirv][compile]") {
  // The first error heads the message; the rest of the log (warnings,
  // further lines) follows it instead of being cut.
  struct Case {
    const char* source;
    int line;  // of the first error
    std::vector<const char*> messages;
  };
  const std::vector<Case> cases = {
      {"#version 450\n#extension GL_EXT_no_such_extension : warn\n"
       "layout(location = 0) out vec4 c;\nvoid main() {\n"
       "  c = vec4(first_undeclared);\n}\n",
       5,
       {"first_undeclared", "GL_EXT_no_such_extension"}},
      // The undeclared name's follow-on error was cut before.
      {"#version 450\nlayout(location = 0) out vec4 c;\nvoid main() {\n"
       "  uint u = first_undeclared;\n  c = vec4(u);\n}\n",
       4,
       {"first_undeclared", "cannot convert"}},
  };
  for (const Case& c : cases) {
    INFO(c.source);
    Result<std::vector<uint32_t>> r = CompileGlsl(
        c.source, ShaderStage::kFragment, TargetEnv::kVulkan1_3, "bad.frag");
    REQUIRE_FALSE(r.ok());
    INFO(r.error().message);
    CHECK(r.error().pos.line == c.line);
    for (const char* m : c.messages) {
      CHECK_THAT(r.error().message, Catch::Contains(m));
    }
  }
}

TEST_CASE("GLSL compile options", "[spirv][compile]") {
  const char* source =
      "#version 450\nlayout(local_size_x = SIZE) in;\nvoid main() {}\n";
  Result<std::vector<uint32_t>> r = CompileGlsl(
      source, ShaderStage::kCompute, TargetEnv::kVulkan1_3, "t", {"-DSIZE=4"});
  REQUIRE(r.ok());
  // glslang emits LocalSizeId with constants for SPIR-V 1.6.
  CHECK_THAT(Disassemble(*r), Catch::Contains("LocalSizeId"));
  CHECK_THAT(Disassemble(*r), Catch::Contains("OpConstant %6 4\n"));
  Result<std::vector<uint32_t>> missing =
      CompileGlsl(source, ShaderStage::kCompute, TargetEnv::kVulkan1_3, "t");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().pos.line == 2);
  Result<std::vector<uint32_t>> bad = CompileGlsl(
      source, ShaderStage::kCompute, TargetEnv::kVulkan1_3, "t", {"-O"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind == ErrorKind::kUnsupported);
  CHECK_THAT(bad.error().message, Catch::Contains("'-O'"));
}

TEST_CASE("compile option -g keeps the GLSL source and each instruction's line",
          "[spirv][compile]") {
  const char* source =
      "#version 450\n"
      "layout(location = 0) out vec4 c;\n"
      "void main() {\n"
      "  float x = gl_FragCoord.x;\n"
      "  if (x > 3.0)\n"
      "    x = x * 2.0;\n"
      "  c = vec4(x);\n"
      "}\n";
  Result<std::vector<uint32_t>> r = CompileGlsl(
      source, ShaderStage::kFragment, TargetEnv::kVulkan1_0, "t.frag", {"-g"});
  REQUIRE(r.ok());
  CHECK_THAT(Disassemble(*r), Catch::Contains("OpLine"));
  auto m = Module::Build(*r, "t.frag");
  REQUIRE(m.ok());
  CHECK_THAT(m->source_text(), Catch::Contains("x = x * 2.0;"));
  // Line by line from the shader's own line 1, glslang's header dropped.
  const std::vector<std::string> lines = m->SourceLines();
  REQUIRE(lines.size() >= 8);
  CHECK(lines[0] == "#version 450");
  CHECK(lines[5] == "    x = x * 2.0;");
  // The multiply comes from line 6, the comparison from line 5.
  bool mul6 = false, cmp5 = false;
  for (const Function& f : m->functions()) {
    for (const Block& b : f.blocks) {
      for (const Inst& i : b.insts) {
        mul6 |= i.opcode == spv::Op::OpFMul && i.line == 6;
        cmp5 |= i.opcode == spv::Op::OpFOrdGreaterThan && i.line == 5;
      }
    }
  }
  CHECK(mul6);
  CHECK(cmp5);
  // Without -g: no source, no lines.
  Result<std::vector<uint32_t>> plain =
      CompileGlsl(source, ShaderStage::kFragment, TargetEnv::kVulkan1_0, "t");
  REQUIRE(plain.ok());
  auto pm = Module::Build(*plain, "t");
  REQUIRE(pm.ok());
  CHECK(pm->source_text().empty());
}

// A compute shader skeleton; $BODY goes inside main's first block and
// $DECLS after the types.
std::string ComputeWith(const std::string& decls, const std::string& body) {
  return R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
        %int = OpTypeInt 32 1
    %float_1 = OpConstant %float 1
      %int_1 = OpConstant %int 1
)" + decls +
         R"(
       %main = OpFunction %void None %fn
      %entry = OpLabel
)" + body +
         R"(
               OpReturn
               OpFunctionEnd
)";
}

TEST_CASE("validator errors carry word offset, opcode and rule",
          "[spirv][compile]") {
  struct Case {
    const char* name;
    std::string text;
    const char* opcode;  // opcode at the reported word
    const char* message;
  };
  const std::vector<Case> cases = {
      {"type mismatch", ComputeWith("", "%x = OpFAdd %float %float_1 %int_1"),
       "OpFAdd", "Expected arithmetic operands to be of Result Type"},
      {"result type not a type",
       ComputeWith("", "%x = OpFAdd %float_1 %float_1 %float_1"), "OpFAdd",
       "is not a type"},
      {"store to constant", ComputeWith("", "OpStore %float_1 %float_1"),
       "OpStore", "is not a logical pointer"},
      {"missing OpFunctionEnd",
       R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpReturn
)",
       "", "Missing OpFunctionEnd"},  // a module-level rule: no word
      {"block without terminator", ComputeWith("", "%l2 = OpLabel"), "OpLabel",
       ""},
      {"missing capability", ComputeWith("%double = OpTypeFloat 64", ""),
       "OpTypeFloat", "Float64"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    std::vector<uint32_t> words = Assemble(c.text);
    Status s = ValidateSpirv(words, TargetEnv::kVulkan1_3, "bad.spvasm");
    REQUIRE_FALSE(s.ok());
    INFO(s.error().ToString());
    CHECK(s.error().kind == ErrorKind::kInvalidInput);
    CHECK(s.error().pos.file == "bad.spvasm");
    CHECK(s.error().pos.opcode == c.opcode);
    CHECK((s.error().pos.word >= 0) == (*c.opcode != '\0'));
    CHECK_THAT(s.error().message, Catch::Contains(c.message));
    if (*c.opcode != '\0') {
      // The word offset points at that opcode.
      Result<SplitModule> split = SplitInstructions(words, "");
      REQUIRE(split.ok());
      bool found = false;
      for (const Instruction& inst : split->instructions) {
        if (inst.word_offset == s.error().pos.word) {
          CHECK(OpcodeName(inst.opcode) == c.opcode);
          found = true;
        }
      }
      CHECK(found);
    }
  }
}

TEST_CASE("structural errors are reported before validation",
          "[spirv][compile]") {
  std::vector<uint32_t> words = Assemble(kComputeAsm);
  words.push_back(5u << 16 | static_cast<uint32_t>(Op::kTypeBool));
  Status s = ValidateSpirv(words, TargetEnv::kVulkan1_3, "cut.spv");
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.error().message, Catch::Contains("truncated instruction"));
  CHECK(s.error().pos.word == static_cast<int64_t>(words.size() - 1));
  CHECK(s.error().pos.opcode == "OpTypeBool");
}

TEST_CASE("id beyond the bound is caught", "[spirv][compile]") {
  std::vector<uint32_t> words = Assemble(kComputeAsm);
  words[3] = 4;  // bound 4, but ids up to 5 are used
  Status s = ValidateSpirv(words, TargetEnv::kVulkan1_3, "bound.spv");
  REQUIRE_FALSE(s.ok());
  INFO(s.error().ToString());
  CHECK_THAT(s.error().message, Catch::Contains("bound"));
  CHECK(s.error().pos.word >= 5);
}

TEST_CASE("legalization inlines helpers and keeps semantics",
          "[spirv][compile]") {
  const char* source = R"(#version 450
#extension GL_EXT_demote_to_helper_invocation : require
#extension GL_EXT_terminate_invocation : require
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 color;
layout(constant_id = 0) const int kCount = 4;

float Scale(float x) {
  if (x < 0.0) return 0.0;   // early return
  return x * 2.0;
}
void MaybeKill(float x) {
  if (x > 10.0) terminateInvocation;
}
void MaybeDemote(float x) {
  if (x > 5.0) demote;
}
void main() {
  float acc = 0.0;
  for (int i = 0; i < kCount; ++i) {
    acc += Scale(v[i & 3]);
  }
  MaybeKill(acc);
  MaybeDemote(acc);
  if (acc > 100.0) discard;
  color = vec4(acc);
}
)";
  std::vector<uint32_t> words = Glsl(source, ShaderStage::kFragment);
  CHECK(Count(words, Op::kFunctionCall) >= 3);
  const int loops_before = Count(words, Op::kLoopMerge);

  Result<std::vector<uint32_t>> legal =
      LegalizeSpirv(words, TargetEnv::kVulkan1_3, "t.frag");
  INFO((legal.ok() ? Disassemble(words) : legal.error().ToString()));
  REQUIRE(legal.ok());
  INFO(Disassemble(*legal));
  CHECK(Count(*legal, Op::kFunctionCall) == 0);
  CHECK(Count(*legal, Op::kFunction) == 1);
  // terminateInvocation, and discard (OpTerminateInvocation in SPIR-V 1.6).
  CHECK(Count(*legal, Op::kTerminateInvocation) == 2);
  CHECK(Count(*legal, Op::kDemoteToHelperInvocation) == 1);
  CHECK(Count(*legal, Op::kSpecConstant) == 1);
  // The for loop is still a loop (MergeReturn may add one-trip loops).
  CHECK(Count(*legal, Op::kLoopMerge) >= loops_before);
  // Locals became SSA values.
  CHECK(Count(*legal, Op::kPhi) >= 1);
  CHECK(ValidateSpirv(*legal, TargetEnv::kVulkan1_3, "t.frag").ok());
}

TEST_CASE("legalization promotes local structs and vectors to SSA",
          "[spirv][compile]") {
  const char* source = R"(#version 450
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 color;
struct P { float a; vec2 b; };
void main() {
  P p;
  p.a = 1.0;
  p.b = v.xy;
  if (v.x > 0.0) p.b.y = 3.0;
  color = vec4(p.a + p.b.x + p.b.y);
}
)";
  std::vector<uint32_t> words = Glsl(source, ShaderStage::kFragment);
  Result<std::vector<uint32_t>> legal =
      LegalizeSpirv(words, TargetEnv::kVulkan1_3, "t.frag");
  REQUIRE(legal.ok());
  INFO(Disassemble(*legal));
  // Only the Input and Output interface variables are left.
  CHECK(Count(*legal, Op::kVariable) == 2);
  CHECK(Count(*legal, Op::kPhi) == 1);
  CHECK(Count(*legal, Op::kSelectionMerge) == 1);
}

TEST_CASE("legalization keeps OpKill from SPIR-V 1.0 discard",
          "[spirv][compile]") {
  const char* source = R"(#version 450
layout(location = 0) in float v;
layout(location = 0) out vec4 color;
void Check(float x) { if (x < 0.5) discard; }
void main() { Check(v); color = vec4(v); }
)";
  std::vector<uint32_t> words =
      Glsl(source, ShaderStage::kFragment, TargetEnv::kVulkan1_0);
  CHECK(Count(words, Op::kKill) == 1);
  Result<std::vector<uint32_t>> legal =
      LegalizeSpirv(words, TargetEnv::kVulkan1_0, "t.frag");
  INFO((legal.ok() ? "" : legal.error().ToString()));
  REQUIRE(legal.ok());
  CHECK(Count(*legal, Op::kFunctionCall) == 0);
  CHECK(Count(*legal, Op::kKill) == 1);
}

TEST_CASE("legalization rejects invalid input", "[spirv][compile]") {
  std::vector<uint32_t> words =
      Assemble(ComputeWith("", "%x = OpFAdd %float %float_1 %int_1"));
  Result<std::vector<uint32_t>> legal =
      LegalizeSpirv(words, TargetEnv::kVulkan1_3, "bad.spvasm");
  REQUIRE_FALSE(legal.ok());
  CHECK(legal.error().kind == ErrorKind::kInvalidInput);
  CHECK(legal.error().pos.opcode == "OpFAdd");
}

// Found by fuzzing (spirv_program): a valid fragment shader whose helper
// function returns from inside an infinite loop, leaving unreachable merge
// and continue blocks. The legalization passes used to turn it into a
// module that fails validation (a value not dominating its use), reported as
// an internal error; now DeadBranchElim runs first and it legalizes.
TEST_CASE("legalization handles unreachable merges after a returning loop",
          "[spirv][compile]") {
  const std::string text = R"(
               OpCapability Shader
          %1 = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %color
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %color Location 0
       %void = OpTypeVoid
         %18 = OpTypeFunction %void
      %float = OpTypeFloat 32
    %v3float = OpTypeVector %float 3
         %21 = OpTypeFunction %v3float
        %int = OpTypeInt 32 1
    %ptr_int = OpTypePointer Function %int
      %int_0 = OpConstant %int 0
    %int_100 = OpConstant %int 100
       %bool = OpTypeBool
      %int_1 = OpConstant %int 1
    %float_1 = OpConstant %float 1
    %float_0 = OpConstant %float 0
         %30 = OpConstantComposite %v3float %float_1 %float_0 %float_0
    %v4float = OpTypeVector %float 4
 %ptr_out_v4 = OpTypePointer Output %v4float
      %color = OpVariable %ptr_out_v4 Output
       %main = OpFunction %void None %18
         %34 = OpLabel
         %35 = OpFunctionCall %v3float %f
         %36 = OpCompositeExtract %float %35 0
         %37 = OpCompositeExtract %float %35 1
         %38 = OpCompositeExtract %float %35 2
         %39 = OpCompositeConstruct %v4float %36 %37 %38 %float_1
               OpStore %color %39
               OpReturn
               OpFunctionEnd
          %f = OpFunction %v3float None %21
         %40 = OpLabel
  %iteration = OpVariable %ptr_int Function
          %k = OpVariable %ptr_int Function
               OpStore %iteration %int_0
               OpStore %k %int_0
               OpBranch %41
         %41 = OpLabel
               OpLoopMerge %42 %43 None
               OpBranch %44
         %44 = OpLabel
          %7 = OpLoad %int %k
         %45 = OpSLessThan %bool %7 %int_100
               OpBranchConditional %45 %46 %42
         %46 = OpLabel
          %8 = OpLoad %int %iteration
          %9 = OpIAdd %int %8 %int_1
               OpStore %iteration %9
               OpBranch %43
         %43 = OpLabel
         %10 = OpLoad %int %k
         %11 = OpIAdd %int %10 %int_1
               OpStore %k %11
               OpBranch %41
         %42 = OpLabel
         %12 = OpLoad %int %iteration
         %47 = OpSLessThan %bool %12 %int_100
               OpSelectionMerge %48 None
               OpBranchConditional %47 %49 %50
         %49 = OpLabel
         %13 = OpLoad %int %iteration
         %14 = OpISub %int %13 %int_1
         %51 = OpConvertSToF %float %14
         %53 = OpCompositeConstruct %v3float %float_1 %51 %51
               OpReturnValue %53
         %50 = OpLabel
               OpBranch %54
         %54 = OpLabel
               OpLoopMerge %55 %56 None
               OpBranch %56
         %57 = OpLabel
               OpBranch %58
         %58 = OpLabel
               OpLoopMerge %59 %60 None
               OpBranch %61
         %61 = OpLabel
               OpReturnValue %30
         %60 = OpLabel
               OpBranch %58
         %59 = OpLabel
               OpUnreachable
         %56 = OpLabel
               OpBranch %54
         %55 = OpLabel
               OpUnreachable
         %48 = OpLabel
               OpUnreachable
               OpFunctionEnd
)";
  const std::vector<uint32_t> words = Assemble(text, TargetEnv::kVulkan1_0);
  Result<std::vector<uint32_t>> legal =
      LegalizeSpirv(words, TargetEnv::kVulkan1_0, "fuzz.spvasm");
  INFO((legal.ok() ? "" : legal.error().ToString()));
  // Never an internal error: legalized, or unsupported by name.
  if (!legal.ok()) {
    CHECK(legal.error().kind == ErrorKind::kUnsupported);
  } else {
    CHECK(Count(*legal, Op::kFunctionCall) == 0);
  }
}

}  // namespace
}  // namespace warpsim::spirv
