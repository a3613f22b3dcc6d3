// Tests of emulator/simt/lower.cpp: structured block order, phi copies,
// constants and specialization, memory layouts, and diagnostics.
#include "simt/lower.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "pipeline/compute.h"
#include "runner/shader_build.h"
#include "spirv/compile.h"
#include "spirv/grammar.h"
#include "spirv/module.h"

namespace warpsim::simt {
namespace {

constexpr spirv::TargetEnv kEnv = spirv::TargetEnv::kVulkan1_3;

std::vector<uint32_t> Assemble(const std::string& text) {
  auto words = spirv::AssembleSpirv(text, kEnv, "l.spvasm");
  INFO((words.ok() ? "" : words.error().ToString()));
  REQUIRE(words.ok());
  return *words;
}

// Assembles and validates `text` and builds its Module, without
// legalization (hand-written SSA form lowers as it is).
spirv::Module BuildModule(const std::string& text, bool validate = true) {
  const std::vector<uint32_t> words = Assemble(text);
  if (validate) {
    Status s = spirv::ValidateSpirv(words, kEnv, "l.spvasm");
    INFO((s.ok() ? "" : s.error().ToString()));
    REQUIRE(s.ok());
  }
  auto m = spirv::Module::Build(words, "l.spvasm");
  INFO((m.ok() ? "" : m.error().ToString()));
  REQUIRE(m.ok());
  return std::move(*m);
}

Program LowerOk(const spirv::Module& m, const LowerOptions& options = {}) {
  auto p = LowerProgram(m, options);
  INFO((p.ok() ? "" : p.error().ToString()));
  REQUIRE(p.ok());
  return std::move(*p);
}

// GLSL -> validate -> legalize -> Module -> Program.
Program BuildGlsl(const std::string& source, const LowerOptions& options = {}) {
  auto words =
      spirv::CompileGlsl(source, spirv::ShaderStage::kCompute, kEnv, "l.comp");
  INFO((words.ok() ? "" : words.error().ToString()));
  REQUIRE(words.ok());
  auto built = runner::BuildProgram(*words, kEnv, "l.comp", options, {});
  INFO((built.ok() ? "" : built.error().ToString()));
  REQUIRE(built.ok());
  return std::move(built->program);
}

uint32_t IdOf(const spirv::Module& m, const std::string& name) {
  for (uint32_t id = 1; id < m.bound(); ++id) {
    if (m.Name(id) == name) return id;
  }
  FAIL("no OpName \"" << name << "\"");
  return 0;
}

// Position of the block labelled `name` in the program's structured order.
uint32_t Pos(const spirv::Module& m, const Program& p,
             const std::string& name) {
  const uint32_t label = IdOf(m, name);
  for (uint32_t i = 0; i < p.blocks.size(); ++i) {
    if (p.blocks[i].label == label) return i;
  }
  FAIL("block " << name << " not in the program");
  return 0;
}

// The structured order as block names, for failure messages.
std::string OrderOf(const spirv::Module& m, const Program& p) {
  std::string s;
  for (const BlockInfo& b : p.blocks) s += m.Name(b.label) + " ";
  return s;
}

// Runs one workgroup per `groups_x` with `buffers[b]` bound at binding b.
void Run(const Program& program,
         std::map<uint32_t, std::vector<uint32_t>>& buffers,
         uint32_t groups_x = 1, uint32_t width = 32) {
  std::vector<MemRegion> regions(program.num_regions);
  for (const ResourceSlot& res : program.resources) {
    auto it = buffers.find(res.binding);
    REQUIRE(it != buffers.end());
    regions[res.region] = {reinterpret_cast<uint8_t*>(it->second.data()),
                           it->second.size() * sizeof(uint32_t), true};
  }
  pipeline::ComputeLimits limits;
  limits.warp_width = width;
  const uint32_t groups[3] = {groups_x, 1, 1};
  auto stats = pipeline::DispatchCompute(program, groups, regions, {}, limits);
  INFO((stats.ok() ? "" : stats.error().ToString()));
  REQUIRE(stats.ok());
}

// A compute module "main" with LocalSize 32, a storage buffer v[] at
// binding 0 and the LocalInvocationId; `names` go in the debug section and
// `body` follows `%x` (the lane's x id) and `%out` (a pointer to v[x]).
std::string ComputeModule(const std::string& names, const std::string& body) {
  return R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %buf %lid
               OpExecutionMode %main LocalSize 32 1 1
               OpName %entry "entry"
)" + names +
         R"(
               OpDecorate %lid BuiltIn LocalInvocationId
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %S 0 Offset 0
               OpDecorate %S Block
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 0
       %void = OpTypeVoid
     %fnvoid = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
        %rta = OpTypeRuntimeArray %uint
          %S = OpTypeStruct %rta
   %ptr_sb_S = OpTypePointer StorageBuffer %S
%ptr_sb_uint = OpTypePointer StorageBuffer %uint
  %ptr_in_v3 = OpTypePointer Input %v3uint
         %c0 = OpConstant %uint 0
         %c1 = OpConstant %uint 1
         %c2 = OpConstant %uint 2
         %c3 = OpConstant %uint 3
        %c10 = OpConstant %uint 10
       %c100 = OpConstant %uint 100
        %buf = OpVariable %ptr_sb_S StorageBuffer
        %lid = OpVariable %ptr_in_v3 Input
       %main = OpFunction %void None %fnvoid
      %entry = OpLabel
       %lidv = OpLoad %v3uint %lid
          %x = OpCompositeExtract %uint %lidv 0
        %out = OpAccessChain %ptr_sb_uint %buf %c0 %x
)" + body +
         R"(
               OpFunctionEnd
)";
}

TEST_CASE("lowering puts an if/else merge block after both sides", "[simt]") {
  // The merge block comes first in module order; lowering must move it.
  const spirv::Module m = BuildModule(ComputeModule(
      R"(OpName %then "then"
         OpName %else "else"
         OpName %merge "merge")",
      R"(
        %odd = OpBitwiseAnd %uint %x %c1
       %cond = OpIEqual %bool %odd %c1
               OpSelectionMerge %merge None
               OpBranchConditional %cond %then %else
      %merge = OpLabel
          %r = OpPhi %uint %a %then %b %else
               OpStore %out %r
               OpReturn
       %else = OpLabel
          %b = OpIAdd %uint %x %c100
               OpBranch %merge
       %then = OpLabel
          %a = OpIMul %uint %x %c3
               OpBranch %merge)"));
  const Program p = LowerOk(m);
  INFO("structured order: " << OrderOf(m, p));
  REQUIRE(p.blocks.size() == 4);
  CHECK(Pos(m, p, "entry") == 0);
  CHECK(Pos(m, p, "then") < Pos(m, p, "merge"));
  CHECK(Pos(m, p, "else") < Pos(m, p, "merge"));
  CHECK(Pos(m, p, "then") < Pos(m, p, "else"));  // true target first
  CHECK(p.blocks[0].merge_block == Pos(m, p, "merge"));
  CHECK(p.blocks[0].continue_block == 0xffffffffu);
  // Blocks are laid out contiguously in that order.
  for (size_t i = 1; i < p.blocks.size(); ++i) {
    CHECK(p.blocks[i].first_instr > p.blocks[i - 1].first_instr);
  }
  // The phi became one copy on each incoming edge.
  size_t copies = 0;
  for (const BranchInfo& b : p.branches) {
    for (const auto& c : b.copies) copies += c.second;
  }
  CHECK(copies == 2);

  std::map<uint32_t, std::vector<uint32_t>> buffers{
      {0, std::vector<uint32_t>(32, 0)}};
  Run(p, buffers);
  for (uint32_t x = 0; x < 32; ++x) {
    INFO("x = " << x);
    CHECK(buffers[0][x] == ((x & 1) ? x * 3 : x + 100));
  }
}

TEST_CASE("lowering orders nested loops: body, continue target, merge",
          "[simt]") {
  // Module order puts every merge and continue block before the loop body.
  const spirv::Module m = BuildModule(ComputeModule(
      R"(OpName %oh "oh"
         OpName %ob "ob"
         OpName %oc "oc"
         OpName %om "om"
         OpName %ih "ih"
         OpName %ib "ib"
         OpName %ic "ic"
         OpName %im "im")",
      R"(
          %n = OpBitwiseAnd %uint %x %c3
               OpBranch %oh
         %oh = OpLabel
          %i = OpPhi %uint %c0 %entry %inext %oc
        %acc = OpPhi %uint %c0 %entry %acco %oc
      %ocond = OpULessThan %bool %i %c3
               OpLoopMerge %om %oc None
               OpBranchConditional %ocond %ob %om
         %om = OpLabel
               OpStore %out %acc
               OpReturn
         %ob = OpLabel
               OpBranch %ih
         %ih = OpLabel
          %j = OpPhi %uint %c0 %ob %jnext %ic
       %acc2 = OpPhi %uint %acc %ob %acc3 %ic
      %icond = OpULessThan %bool %j %n
               OpLoopMerge %im %ic None
               OpBranchConditional %icond %ib %im
         %im = OpLabel
               OpBranch %oc
         %oc = OpLabel
      %inext = OpIAdd %uint %i %c1
       %acco = OpIAdd %uint %acc2 %c10
               OpBranch %oh
         %ib = OpLabel
       %acc3 = OpIAdd %uint %acc2 %j
               OpBranch %ic
         %ic = OpLabel
      %jnext = OpIAdd %uint %j %c1
               OpBranch %ih)"));
  const Program p = LowerOk(m);
  INFO("structured order: " << OrderOf(m, p));
  REQUIRE(p.blocks.size() == 9);
  // Inner loop: header, body, continue target, merge.
  CHECK(Pos(m, p, "ih") < Pos(m, p, "ib"));
  CHECK(Pos(m, p, "ib") < Pos(m, p, "ic"));
  CHECK(Pos(m, p, "ic") < Pos(m, p, "im"));
  // Outer loop: every block of the inner loop inside its body, then the
  // continue target, then the merge.
  CHECK(Pos(m, p, "oh") < Pos(m, p, "ob"));
  CHECK(Pos(m, p, "ob") < Pos(m, p, "ih"));
  CHECK(Pos(m, p, "im") < Pos(m, p, "oc"));
  CHECK(Pos(m, p, "oc") < Pos(m, p, "om"));
  CHECK(Pos(m, p, "om") == p.blocks.size() - 1);
  const BlockInfo& oh = p.blocks[Pos(m, p, "oh")];
  CHECK(oh.merge_block == Pos(m, p, "om"));
  CHECK(oh.continue_block == Pos(m, p, "oc"));
  const BlockInfo& ih = p.blocks[Pos(m, p, "ih")];
  CHECK(ih.merge_block == Pos(m, p, "im"));
  CHECK(ih.continue_block == Pos(m, p, "ic"));

  std::map<uint32_t, std::vector<uint32_t>> buffers{
      {0, std::vector<uint32_t>(32, 0)}};
  Run(p, buffers);
  for (uint32_t x = 0; x < 32; ++x) {
    INFO("x = " << x);
    const uint32_t n = x & 3;
    CHECK(buffers[0][x] == 3 * (n * (n - 1) / 2 + 10));
  }
}

TEST_CASE("lowering orders switch cases before the merge, fall-through first",
          "[simt]") {
  const spirv::Module m = BuildModule(ComputeModule(
      R"(OpName %sm "sm"
         OpName %default "default"
         OpName %case0 "case0"
         OpName %case1 "case1"
         OpName %case2 "case2")",
      R"(
        %sel = OpBitwiseAnd %uint %x %c3
               OpSelectionMerge %sm None
               OpSwitch %sel %default 0 %case0 1 %case1 2 %case2
         %sm = OpLabel
          %r = OpPhi %uint %r1 %case1 %c2 %case2 %c3 %default
               OpStore %out %r
               OpReturn
    %default = OpLabel
               OpBranch %sm
      %case2 = OpLabel
               OpBranch %sm
      %case0 = OpLabel
               OpBranch %case1
      %case1 = OpLabel
          %p = OpPhi %uint %c10 %entry %c100 %case0
         %r1 = OpIAdd %uint %p %x
               OpBranch %sm)"));
  const Program p = LowerOk(m);
  INFO("structured order: " << OrderOf(m, p));
  REQUIRE(p.blocks.size() == 6);
  for (const char* c : {"default", "case0", "case1", "case2"}) {
    INFO(c);
    CHECK(Pos(m, p, c) < Pos(m, p, "sm"));
  }
  // Lanes falling through from case 0 must wait for the case-1 lanes.
  CHECK(Pos(m, p, "case0") < Pos(m, p, "case1"));
  CHECK(p.blocks[0].merge_block == Pos(m, p, "sm"));
  const BranchInfo& sw = p.branches[p.code[p.blocks[1].first_instr - 1].aux];
  CHECK(sw.case_values == std::vector<uint64_t>{0, 1, 2});
  CHECK(sw.targets ==
        std::vector<uint32_t>{Pos(m, p, "default"), Pos(m, p, "case0"),
                              Pos(m, p, "case1"), Pos(m, p, "case2")});

  std::map<uint32_t, std::vector<uint32_t>> buffers{
      {0, std::vector<uint32_t>(32, 0)}};
  Run(p, buffers);
  const uint32_t expected[4] = {100, 10, 2, 3};
  for (uint32_t x = 0; x < 32; ++x) {
    INFO("x = " << x);
    const uint32_t sel = x & 3;
    CHECK(buffers[0][x] == expected[sel] + (sel < 2 ? x : 0));
  }
}

// LocalSizeId operands fold specialization constants, so program.local_size
// shows the folded values without running anything.
const char* const kSpecModule = R"(
               OpCapability Shader
               OpCapability Int64
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionModeId %main LocalSizeId %sx %sy %sz
               OpDecorate %sx SpecId 0
               OpDecorate %sb SpecId 1
               OpDecorate %sl SpecId 2
       %void = OpTypeVoid
     %fnvoid = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
     %v3uint = OpTypeVector %uint 3
         %c1 = OpConstant %uint 1
         %c3 = OpConstant %uint 3
         %c7 = OpConstant %uint 7
         %sx = OpSpecConstant %uint 4
         %sb = OpSpecConstantTrue %bool
         %sl = OpSpecConstant %ulong 4294967301
        %vec = OpSpecConstantComposite %v3uint %c7 %sx %c3
        %ext = OpSpecConstantOp %uint CompositeExtract %vec 1
        %sum = OpSpecConstantOp %uint IAdd %ext %c1
         %sy = OpSpecConstantOp %uint Select %sb %sum %c3
         %sz = OpSpecConstantOp %uint UConvert %sl
       %main = OpFunction %void None %fnvoid
          %l = OpLabel
               OpReturn
               OpFunctionEnd
)";

TEST_CASE("specialization constants: SpecId overrides and folding", "[simt]") {
  const spirv::Module m = BuildModule(kSpecModule);
  struct Case {
    const char* name;
    SpecValues spec;
    uint32_t local[3];
  };
  const std::vector<Case> cases = {
      {"defaults", {}, {4, 5, 5}},
      {"x overridden", {{0, 6}}, {6, 7, 5}},
      {"bool overridden false", {{0, 6}, {1, 0}}, {6, 3, 5}},
      {"bool overridden by any non-zero", {{1, 2}}, {4, 5, 5}},
      {"64-bit value, low word first", {{2, 0x700000009ull}}, {4, 5, 9}},
      {"unused SpecId ignored", {{9, 123}}, {4, 5, 5}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    LowerOptions options;
    options.spec_values = c.spec;
    const Program p = LowerOk(m, options);
    CHECK(p.local_size[0] == c.local[0]);
    CHECK(p.local_size[1] == c.local[1]);
    CHECK(p.local_size[2] == c.local[2]);
  }
}

TEST_CASE("specialization constants reach the code and WorkgroupSize",
          "[simt]") {
  // glslang turns local_size_x_id into a WorkgroupSize spec composite and
  // the const expressions into OpSpecConstantOp (incl. CompositeExtract).
  const std::string source = R"(#version 450
layout(local_size_x_id = 4) in;
layout(constant_id = 3) const uint K = 5u;
layout(constant_id = 5) const bool FLAG = false;
const uint K2 = K * 2u + 1u;
const uvec3 V = uvec3(K, 20u, 30u);
const uint E = V.x + V.z;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  if (i == 0u) {
    b.v[0] = K;
    b.v[1] = K2;
    b.v[2] = E;
    b.v[3] = gl_WorkGroupSize.x;
    b.v[4] = FLAG ? 1u : 2u;
  }
  b.v[8u + i] = i;
}
)";
  struct Case {
    const char* name;
    SpecValues spec;
    uint32_t size;
    std::vector<uint32_t> head;
  };
  const std::vector<Case> cases = {
      {"defaults", {}, 1, {5, 11, 35, 1, 2}},
      {"overridden", {{3, 10}, {4, 16}, {5, 1}}, 16, {10, 21, 40, 16, 1}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    LowerOptions options;
    options.spec_values = c.spec;
    const Program p = BuildGlsl(source, options);
    CHECK(p.local_size[0] == c.size);
    CHECK(p.local_size[1] == 1);
    CHECK(p.local_size[2] == 1);
    std::map<uint32_t, std::vector<uint32_t>> buffers{
        {0, std::vector<uint32_t>(32, 0xdeadbeef)}};
    Run(p, buffers);
    for (size_t k = 0; k < c.head.size(); ++k) {
      INFO("v[" << k << "]");
      CHECK(buffers[0][k] == c.head[k]);
    }
    for (uint32_t i = 0; i < 16; ++i) {
      INFO("v[" << 8 + i << "]");
      CHECK(buffers[0][8 + i] == (i < c.size ? i : 0xdeadbeefu));
    }
  }
}

TEST_CASE("arrays sized by a specialization constant use its value", "[simt]") {
  // A workgroup array and a function-scope array of N elements; the
  // override must size both (and the loops over them).
  const std::string source = R"(#version 450
layout(constant_id = 0) const uint N = 2u;
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
shared uint s[N];
void main() {
  uint i = gl_LocalInvocationIndex;
  uint a[N];
  for (uint k = 0u; k < N; ++k) a[k] = k * 10u + i;
  if (i < N) s[i] = i + 1u;
  barrier();
  uint sum = 0u;
  for (uint k = 0u; k < N; ++k) sum += s[k] + a[k];
  b.v[i] = sum;
}
)";
  for (uint32_t n : {2u, 8u}) {
    INFO("N = " << n);
    LowerOptions options;
    if (n != 2) options.spec_values[0] = n;
    const Program p = BuildGlsl(source, options);
    INFO("workgroup bytes " << p.workgroup_bytes << ", private bytes "
                            << p.private_bytes);
    CHECK(p.workgroup_bytes >= 4 * n);
    std::map<uint32_t, std::vector<uint32_t>> buffers{
        {0, std::vector<uint32_t>(8, 0)}};
    Run(p, buffers);
    for (uint32_t i = 0; i < 8; ++i) {
      INFO("invocation " << i);
      CHECK(buffers[0][i] == n * (n + 1) / 2 + 10 * n * (n - 1) / 2 + n * i);
    }
  }
}

TEST_CASE("lowering lays out std140 and std430 blocks", "[simt]") {
  struct Case {
    const char* layout;
    // Word index -> expected float value; all other words stay untouched.
    std::map<uint32_t, float> words;
  };
  const std::vector<Case> cases = {
      // std140: vec3 aligned to 16, array and matrix strides rounded to 16.
      {"std140",
       {{0, 1},
        {4, 2},
        {5, 3},
        {6, 4},
        {8, 5},
        {12, 6},
        {16, 7},
        {17, 8},
        {20, 9},
        {21, 10},
        {24, 7},
        {25, 9},
        {28, 8},
        {29, 10}}},
      // std430: float array stride 4, mat2 column stride 8.
      {"std430",
       {{0, 1},
        {4, 2},
        {5, 3},
        {6, 4},
        {7, 5},
        {8, 6},
        {10, 7},
        {11, 8},
        {12, 9},
        {13, 10},
        {14, 7},
        {15, 9},
        {16, 8},
        {17, 10}}},
  };
  for (const Case& c : cases) {
    INFO(c.layout);
    const std::string source = std::string(R"(#version 450
layout(local_size_x = 1) in;
layout()") + c.layout + R"(, set = 0, binding = 0) buffer B {
  float a;
  vec3 b;
  float c[2];
  mat2 m;
  layout(row_major) mat2 r;
} o;
layout(set = 0, binding = 1) buffer R { float res[]; } res;
void main() {
  o.a = 1.0;
  o.b = vec3(2.0, 3.0, 4.0);
  o.c[0] = 5.0;
  o.c[1] = 6.0;
  o.m = mat2(7.0, 8.0, 9.0, 10.0);
  o.r = mat2(7.0, 8.0, 9.0, 10.0);
  res.res[0] = o.m[1][0];
  res.res[1] = o.r[1][0];
  res.res[2] = o.c[1];
}
)";
    const Program p = BuildGlsl(source);
    const float kUntouched = -1.0f;
    std::vector<uint32_t> init(40);
    uint32_t untouched_bits;
    std::memcpy(&untouched_bits, &kUntouched, 4);
    std::fill(init.begin(), init.end(), untouched_bits);
    std::map<uint32_t, std::vector<uint32_t>> buffers{{0, init}, {1, init}};
    Run(p, buffers);
    for (uint32_t w = 0; w < 40; ++w) {
      float f;
      std::memcpy(&f, &buffers[0][w], 4);
      auto it = c.words.find(w);
      INFO("word " << w);
      CHECK(f == (it == c.words.end() ? kUntouched : it->second));
    }
    float r[3];
    std::memcpy(r, buffers[1].data(), sizeof(r));
    CHECK(r[0] == 9.0f);
    CHECK(r[1] == 9.0f);
    CHECK(r[2] == 6.0f);
  }
}

TEST_CASE("lowering reports unsupported and invalid input", "[simt]") {
  struct Case {
    const char* name;
    std::string text;
    const char* entry;
    ErrorKind kind;
    const char* message;
    spv::Op at;  // the instruction the diagnostic points to (OpNop: none)
  };
  const std::string geometry = R"(
               OpCapability Geometry
               OpMemoryModel Logical GLSL450
               OpEntryPoint Geometry %main "main"
               OpExecutionMode %main Triangles
               OpExecutionMode %main Invocations 1
               OpExecutionMode %main OutputTriangleStrip
               OpExecutionMode %main OutputVertices 3
       %void = OpTypeVoid
     %fnvoid = OpTypeFunction %void
       %main = OpFunction %void None %fnvoid
          %l = OpLabel
               OpEmitVertex
               OpReturn
               OpFunctionEnd
)";
  const std::string call = R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
     %fnvoid = OpTypeFunction %void
          %f = OpFunction %void None %fnvoid
         %fl = OpLabel
               OpReturn
               OpFunctionEnd
       %main = OpFunction %void None %fnvoid
          %l = OpLabel
          %r = OpFunctionCall %void %f
               OpReturn
               OpFunctionEnd
)";
  const std::string quantize = R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
     %fnvoid = OpTypeFunction %void
      %float = OpTypeFloat 32
         %sf = OpSpecConstant %float 1.5
         %sq = OpSpecConstantOp %float QuantizeToF16 %sf
       %main = OpFunction %void None %fnvoid
          %l = OpLabel
               OpReturn
               OpFunctionEnd
)";
  // Found by the spirv_program fuzz target (fuzz/), reduced: an interface
  // array of 134217732 elements made lowering push one input slot per
  // element until the host ran out of memory, and the 32-bit size of such
  // variables wrapped. Variables over the per-invocation or workgroup limit
  // are now unsupported, named at their OpVariable.
  auto huge = [](const std::string& storage, const std::string& count) {
    const bool function = storage == "Function";
    const std::string var = "%v = OpVariable %ptr " + storage + "\n";
    return std::string(R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
     %fnvoid = OpTypeFunction %void
      %float = OpTypeFloat 32
    %v4float = OpTypeVector %float 4
       %uint = OpTypeInt 32 0
      %count = OpConstant %uint )") +
           count + R"(
        %arr = OpTypeArray %v4float %count
        %ptr = OpTypePointer )" +
           storage + R"( %arr
)" + (function ? "" : var) +
           R"(
       %main = OpFunction %void None %fnvoid
          %l = OpLabel
)" + (function ? var : "") +
           R"(
               OpReturn
               OpFunctionEnd
)";
  };
  const std::string huge_input = R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Vertex %main "main" %in
               OpDecorate %in Location 0
       %void = OpTypeVoid
     %fnvoid = OpTypeFunction %void
      %float = OpTypeFloat 32
    %v4float = OpTypeVector %float 4
       %uint = OpTypeInt 32 0
      %count = OpConstant %uint 134217732
        %arr = OpTypeArray %v4float %count
        %ptr = OpTypePointer Input %arr
         %in = OpVariable %ptr Input
       %main = OpFunction %void None %fnvoid
          %l = OpLabel
               OpReturn
               OpFunctionEnd
)";
  // Found by the spirv_program fuzz target: a null constant of an array
  // of 134217732 vectors made lowering flatten it to one scalar per
  // component until the host ran out of memory. A type over
  // kMaxValueScalars scalars is now unsupported as a value.
  const std::string huge_constant = R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
     %fnvoid = OpTypeFunction %void
      %float = OpTypeFloat 32
    %v4float = OpTypeVector %float 4
       %uint = OpTypeInt 32 0
      %count = OpConstant %uint 134217732
        %arr = OpTypeArray %v4float %count
       %null = OpConstantNull %arr
       %main = OpFunction %void None %fnvoid
          %l = OpLabel
               OpReturn
               OpFunctionEnd
)";
  const std::vector<Case> cases = {
      {"null constant of 134217732 vectors", huge_constant, "main",
       ErrorKind::kUnsupported,
       "holds 536870928 scalars or more, over warpsim's limit of 131072 for "
       "one value",
       spv::Op::OpNop},
      {"interface array of 134217732 elements", huge_input, "main",
       ErrorKind::kUnsupported, "variable %", spv::Op::OpVariable},
      {"Private array past 512 KiB", huge("Private", "32769"), "main",
       ErrorKind::kUnsupported,
       "per-invocation memory to 524304 bytes, over warpsim's limit of 524288",
       spv::Op::OpVariable},
      {"Private array whose 32-bit size wraps", huge("Private", "268435457"),
       "main", ErrorKind::kUnsupported, "over warpsim's limit of 524288",
       spv::Op::OpVariable},
      {"Function array past 512 KiB", huge("Function", "4000000000"), "main",
       ErrorKind::kUnsupported, "per-invocation memory", spv::Op::OpVariable},
      {"Workgroup array past 16 MiB", huge("Workgroup", "1048577"), "main",
       ErrorKind::kUnsupported,
       "workgroup memory to 16777232 bytes, over warpsim's limit of 16777216",
       spv::Op::OpVariable},
      {"geometry-only instruction", geometry, "main", ErrorKind::kUnsupported,
       "OpEmitVertex", spv::Op::OpEmitVertex},
      {"call in unlegalized input", call, "main", ErrorKind::kUnsupported,
       "function calls left after inlining", spv::Op::OpFunctionCall},
      {"unfoldable spec constant op", quantize, "main", ErrorKind::kUnsupported,
       "OpSpecConstantOp with OpQuantizeToF16", spv::Op::OpNop},
      {"entry point not found", call, "nope", ErrorKind::kInvalidInput,
       "entry point \"nope\" not found", spv::Op::OpNop},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::vector<uint32_t> words = Assemble(c.text);
    Status valid = spirv::ValidateSpirv(words, kEnv, "l.spvasm");
    INFO((valid.ok() ? "" : valid.error().ToString()));
    REQUIRE(valid.ok());
    auto m = spirv::Module::Build(words, "l.spvasm");
    REQUIRE(m.ok());
    LowerOptions options;
    options.entry_point = c.entry;
    auto p = LowerProgram(*m, options);
    REQUIRE_FALSE(p.ok());
    const Diagnostic& d = p.error();
    INFO(d.ToString());
    CHECK(d.kind == c.kind);
    CHECK_THAT(d.message, Catch::Contains(c.message));
    if (c.at != spv::Op::OpNop) {
      int64_t at = -1;
      for (size_t i = 5; i < words.size(); i += words[i] >> 16) {
        if ((words[i] & 0xffff) == static_cast<uint32_t>(c.at)) {
          at = static_cast<int64_t>(i);
          break;
        }
      }
      CHECK(d.pos.word == at);
      CHECK(d.pos.file == "l.spvasm");
      CHECK_THAT(d.ToString(), Catch::Contains(std::string(spirv::OpcodeName(
                                   static_cast<uint32_t>(c.at)))));
    }
  }
}

TEST_CASE("lowering picks the entry point by name and model", "[simt]") {
  const spirv::Module m = BuildModule(R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %a "a"
               OpEntryPoint GLCompute %b "b"
               OpExecutionMode %a LocalSize 2 1 1
               OpExecutionMode %b LocalSize 3 1 1
       %void = OpTypeVoid
     %fnvoid = OpTypeFunction %void
          %a = OpFunction %void None %fnvoid
         %al = OpLabel
               OpReturn
               OpFunctionEnd
          %b = OpFunction %void None %fnvoid
         %bl = OpLabel
               OpReturn
               OpFunctionEnd
)");
  LowerOptions options;
  options.entry_point = "b";
  Program p = LowerOk(m, options);
  CHECK(p.entry_name == "b");
  CHECK(p.model == spv::ExecutionModel::GLCompute);
  CHECK(p.local_size[0] == 3);
  options.model = spv::ExecutionModel::Fragment;
  auto wrong_model = LowerProgram(m, options);
  REQUIRE_FALSE(wrong_model.ok());
  CHECK(wrong_model.error().kind == ErrorKind::kInvalidInput);
}

}  // namespace
}  // namespace warpsim::simt

namespace warpsim::simt {
namespace {

// Program::l1_bypass: the loads of a coherent buffer, not a plain one's.
TEST_CASE("lowering marks loads of coherent buffers as past the L1", "[simt]") {
  const Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) coherent readonly buffer C { uint c[]; } co;
layout(set = 0, binding = 1) readonly buffer P { uint d[]; } pl;
layout(set = 0, binding = 2) buffer O { uint o[]; } result;
void main() {
  uint i = gl_LocalInvocationID.x;
  result.o[i] = co.c[i] + pl.d[i];
}
)");
  REQUIRE(p.l1_bypass.size() == p.code.size());
  int marked = 0, loads = 0;
  for (size_t i = 0; i < p.code.size(); ++i) {
    if (p.code[i].op != spv::Op::OpLoad) continue;
    ++loads;
    marked += p.l1_bypass[i];
  }
  CHECK(loads >= 2);  // the buffers' (and any input's)
  CHECK(marked == 1);
}

}  // namespace
}  // namespace warpsim::simt
