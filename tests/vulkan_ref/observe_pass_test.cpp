// observe_pass.cpp: the --observe instrumentation is valid SPIR-V for every
// module version and shape it meets, and reuses the module's declarations.
#include "vulkan_ref/observe_pass.h"

#include <catch2/catch.hpp>
#include <optional>
#include <spirv/unified1/spirv.hpp11>

#include "spirv/binary.h"
#include "spirv/compile.h"

namespace warpsim::vkref {
namespace {

using spirv::ShaderStage;
using spirv::TargetEnv;

constexpr char kFragment[] = R"(#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 1) uniform sampler2D tex;
void main() {
  if (uv.x > 0.5) discard;
  color = texture(tex, uv) + vec4(gl_FragCoord.xy, float(gl_PrimitiveID), 1);
}
)";

constexpr char kVertex[] = R"(#version 450
layout(location = 0) in vec2 pos;
layout(location = 0) out vec2 uv;
void main() {
  uv = pos * float(gl_VertexIndex + gl_InstanceIndex);
  gl_Position = vec4(pos, 0, 1);
}
)";

std::vector<uint32_t> Compile(const char* glsl, ShaderStage stage,
                              TargetEnv env) {
  auto words = spirv::CompileGlsl(glsl, stage, env, "t.glsl");
  REQUIRE(words.ok());
  return *words;
}

constexpr char kCompute[] = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  if (gl_GlobalInvocationID.x > 100) return;
  b.v[gl_GlobalInvocationID.x] = gl_WorkGroupID.x;
}
)";

ObservePassOptions Everything(bool fragment) {
  ObservePassOptions o;
  o.stage = fragment ? ObservedStage::kFragment : ObservedStage::kVertex;
  o.entry_point = "main";
  o.descriptor_set = 1;
  o.subgroup = o.quad = o.sm_builtins = o.clock = o.primitive_id = true;
  return o;
}

// Counts instructions with `op` (and, if given, word 3 equal to `w3`: the
// storage class of an OpVariable).
size_t Count(const std::vector<uint32_t>& words, spv::Op op,
             std::optional<uint32_t> w3 = {}) {
  auto split = spirv::SplitInstructions(words, "t");
  REQUIRE(split.ok());
  size_t n = 0;
  for (const auto& in : split->instructions) {
    if (in.opcode != static_cast<uint32_t>(op)) continue;
    if (w3 && (in.words.size() < 4 || in.words[3] != *w3)) continue;
    ++n;
  }
  return n;
}

size_t CountBuiltin(const std::vector<uint32_t>& words, spv::BuiltIn b) {
  auto split = spirv::SplitInstructions(words, "t");
  REQUIRE(split.ok());
  size_t n = 0;
  for (const auto& in : split->instructions) {
    n += in.opcode == static_cast<uint32_t>(spv::Op::OpDecorate) &&
         in.words.size() == 4 &&
         in.words[2] == static_cast<uint32_t>(spv::Decoration::BuiltIn) &&
         in.words[3] == static_cast<uint32_t>(b);
  }
  return n;
}

TEST_CASE("InstrumentForObserve gives valid modules at every SPIR-V version",
          "[vkref]") {
  const TargetEnv envs[] = {TargetEnv::kVulkan1_0, TargetEnv::kVulkan1_1,
                            TargetEnv::kVulkan1_1Spv1_4, TargetEnv::kVulkan1_2,
                            TargetEnv::kVulkan1_3};
  for (TargetEnv env : envs) {
    for (bool fragment : {false, true}) {
      CAPTURE(spirv::TargetEnvName(env), fragment);
      const auto words = Compile(
          fragment ? kFragment : kVertex,
          fragment ? ShaderStage::kFragment : ShaderStage::kVertex, env);
      auto out = InstrumentForObserve(words, Everything(fragment));
      REQUIRE(out.ok());
      const TargetEnv checked =
          env == TargetEnv::kVulkan1_0 ? TargetEnv::kVulkan1_1 : env;
      const Status valid = spirv::ValidateSpirv(*out, checked, "observed");
      INFO((valid.ok() ? "" : valid.error().ToString()));
      CHECK(valid.ok());
      auto header = spirv::ParseHeader(*out, "observed");
      REQUIRE(header.ok());
      CHECK(header->version >= 0x10300u);
      // One more storage buffer variable, at set 1 binding 0.
      CHECK(Count(*out, spv::Op::OpVariable,
                  static_cast<uint32_t>(spv::StorageClass::StorageBuffer)) ==
            Count(words, spv::Op::OpVariable,
                  static_cast<uint32_t>(spv::StorageClass::StorageBuffer)) +
                1);
      // The module's own built-in variables are reused: one per built-in.
      for (spv::BuiltIn b :
           {spv::BuiltIn::FragCoord, spv::BuiltIn::PrimitiveId,
            spv::BuiltIn::VertexIndex, spv::BuiltIn::InstanceIndex,
            spv::BuiltIn::HelperInvocation, spv::BuiltIn::SMIDNV}) {
        const bool wanted = fragment ? b != spv::BuiltIn::VertexIndex &&
                                           b != spv::BuiltIn::InstanceIndex
                                     : b == spv::BuiltIn::VertexIndex ||
                                           b == spv::BuiltIn::InstanceIndex ||
                                           b == spv::BuiltIn::SMIDNV;
        CHECK(CountBuiltin(*out, b) == (wanted ? 1u : 0u));
      }
    }
  }
}

TEST_CASE("InstrumentForObserve instruments compute shaders", "[vkref]") {
  for (TargetEnv env : {TargetEnv::kVulkan1_1, TargetEnv::kVulkan1_3}) {
    CAPTURE(spirv::TargetEnvName(env));
    auto words = spirv::CompileGlsl(kCompute, ShaderStage::kCompute, env, "c");
    REQUIRE(words.ok());
    auto legal = spirv::LegalizeSpirv(*words, env, "c");
    REQUIRE(legal.ok());
    ObservePassOptions o = Everything(false);
    o.stage = ObservedStage::kCompute;
    auto out = InstrumentForObserve(*legal, o);
    REQUIRE(out.ok());
    const Status valid = spirv::ValidateSpirv(*out, env, "observed");
    INFO((valid.ok() ? "" : valid.error().ToString()));
    CHECK(valid.ok());
    CHECK(CountBuiltin(*out, spv::BuiltIn::WorkgroupId) == 1);
    CHECK(CountBuiltin(*out, spv::BuiltIn::LocalInvocationIndex) == 1);
    // One clock at the start and one before each return of main.
    CHECK(Count(*out, spv::Op::OpReadClockKHR) ==
          1 + Count(*legal, spv::Op::OpReturn));
  }
}

TEST_CASE("InstrumentForObserve leaves out what the device lacks", "[vkref]") {
  const auto words =
      Compile(kFragment, ShaderStage::kFragment, TargetEnv::kVulkan1_1);
  ObservePassOptions o = Everything(true);
  o.subgroup = o.quad = o.sm_builtins = o.clock = o.primitive_id = false;
  auto out = InstrumentForObserve(words, o);
  REQUIRE(out.ok());
  const Status valid =
      spirv::ValidateSpirv(*out, TargetEnv::kVulkan1_1, "observed");
  INFO((valid.ok() ? "" : valid.error().ToString()));
  CHECK(valid.ok());
  CHECK(Count(*out, spv::Op::OpGroupNonUniformBallot) == 0);
  CHECK(Count(*out, spv::Op::OpReadClockKHR) == 0);
  CHECK(Count(*out, spv::Op::OpExtension) ==
        Count(words, spv::Op::OpExtension));
  // With everything: the SM built-ins' extension and one atomic per counter.
  auto all = InstrumentForObserve(words, Everything(true));
  REQUIRE(all.ok());
  CHECK(Count(*all, spv::Op::OpExtension) ==
        Count(words, spv::Op::OpExtension) + 2);
  CHECK(Count(*all, spv::Op::OpAtomicIAdd) == 2);
  CHECK(Count(*out, spv::Op::OpAtomicIAdd) == 1);
}

TEST_CASE("InstrumentForObserve keeps phis that name the first block",
          "[vkref]") {
  // The first block ends in a conditional branch whose merge block has a
  // phi naming it: the label must stay on the block that branches.
  const char* glsl = R"(#version 450
layout(location = 0) flat in int k;
layout(location = 0) out vec4 color;
void main() {
  float v = k > 2 ? 1.0 : 0.5;
  color = vec4(v);
}
)";
  auto words = spirv::CompileGlsl(glsl, ShaderStage::kFragment,
                                  TargetEnv::kVulkan1_1, "t.glsl");
  REQUIRE(words.ok());
  auto legal = spirv::LegalizeSpirv(*words, TargetEnv::kVulkan1_1, "t.glsl");
  REQUIRE(legal.ok());
  auto out = InstrumentForObserve(*legal, Everything(true));
  REQUIRE(out.ok());
  const Status valid =
      spirv::ValidateSpirv(*out, TargetEnv::kVulkan1_1, "observed");
  INFO((valid.ok() ? "" : valid.error().ToString()));
  CHECK(valid.ok());
}

TEST_CASE("InstrumentForObserve needs the named entry point", "[vkref]") {
  const auto words =
      Compile(kVertex, ShaderStage::kVertex, TargetEnv::kVulkan1_1);
  ObservePassOptions o = Everything(false);
  o.entry_point = "other";
  auto out = InstrumentForObserve(words, o);
  REQUIRE_FALSE(out.ok());
  CHECK_THAT(out.error().message, Catch::Contains("other"));
  o = Everything(true);  // a vertex module has no fragment entry point
  CHECK_FALSE(InstrumentForObserve(words, o).ok());
}

}  // namespace
}  // namespace warpsim::vkref
