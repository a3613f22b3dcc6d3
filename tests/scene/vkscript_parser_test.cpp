// VkScript parsing: each section and command kind into Scene contents, then
// tables of bad and unsupported inputs.
#include "scene/vkscript_parser.h"

#include <catch2/catch.hpp>
#include <cstring>

#include "scene/amber_parser.h"

using namespace warpsim::scene;
using warpsim::ErrorKind;

namespace {

const char kGraphics[] = R"(# A graphics scene.
[require]
framebuffer R32G32B32A32_SFLOAT
depthstencil D32_SFLOAT_S8_UINT
fbsize 64 32
fence_timeout 2000
vertexPipelineStoresAndAtomics
VariablePointerFeatures.variablePointers
VK_KHR_spirv_1_4

[vertex shader passthrough]
[fragment shader]
#version 430
layout(location = 0) out vec4 c;
void main() { c = vec4(1); }

[vertex data]
0/R32G32_SFLOAT
-1 -1   # comment
 1 -1

[indices]
0 1 \
1

[test]
clear color 1 0.5 0.25 0
clear
draw rect -1 -1 2 2
draw rect ortho 0 0 32 16
draw arrays indexed TRIANGLE_LIST 1 3
draw arrays instanced GL_TRIANGLES 0 2 4
depthTestEnable true
depthCompareOp VK_COMPARE_OP_LESS
cullMode VK_CULL_MODE_FRONT_BIT | VK_CULL_MODE_BACK_BIT
draw arrays TRIANGLE_STRIP 0 2
tolerance 0.1 0.2 0.3 0.4
relative probe rect rgba (0.5, 0.25, 0.5, 0.5) (1, 0.5, 0, 1)
probe rgb 3 4 (0.1, 0.2, 0.3)
probe all rgba 1 1 1 1
)";

const char kCompute[] = R"([compute shader spirv]
OpCapability Shader
[test]
ssbo 0 16
ssbo 1:2 subdata vec3 16 1.5 2.5 3.5
uniform ubo 0:1 mat2 0 1 2 3 4
uniform int 4 7
compute entrypoint other
compute 2 3 4
ssbo 1:2 subdata vec3 0 9 9 9
tolerance 1%
probe ssbo vec3 1:2 16 ~= 1.5 2.5 3.5
probe ssbo vec3 1:2 0 == 9 9 9
probe ssbo int8_t 0 0 >= -1
)";

template <typename T>
const T& CommandAt(const Scene& s, size_t i) {
  REQUIRE(i < s.commands.size());
  const T* c = std::get_if<T>(&s.commands[i].data);
  REQUIRE(c != nullptr);
  return *c;
}

float FloatAt(const Buffer& b, size_t offset) {
  float f;
  std::memcpy(&f, b.bytes.data() + offset, 4);
  return f;
}

}  // namespace

TEST_CASE("VkScript sections become shaders, buffers and a pipeline",
          "[scene][vkscript]") {
  auto r = ParseVkScript(kGraphics, "g.vkscript");
  REQUIRE(r.ok());
  const Scene& s = *r;
  CHECK(s.device_features ==
        std::vector<std::string>{"vertexPipelineStoresAndAtomics",
                                 "VariablePointerFeatures.variablePointers"});
  CHECK(s.device_extensions == std::vector<std::string>{"VK_KHR_spirv_1_4"});
  CHECK(s.engine_data.at("fence_timeout_ms") == 2000);
  REQUIRE(s.shaders.size() == 2);
  CHECK(s.shaders[0].name == "vk_shader_0");
  CHECK(s.shaders[0].passthrough);
  CHECK(s.shaders[1].stage == ShaderStage::kFragment);
  CHECK(s.shaders[1].format == ShaderFormat::kGlsl);
  CHECK(s.shaders[1].source_line == 13);
  CHECK_THAT(s.shaders[1].source, Catch::StartsWith("#version 430\n"));

  const Buffer* fb = s.FindBuffer("framebuffer");
  REQUIRE(fb != nullptr);
  CHECK(fb->format.name == "R32G32B32A32_SFLOAT");
  CHECK(fb->width == 64);
  CHECK(fb->height == 32);
  CHECK(fb->bytes.size() == 64u * 32u * 16u);
  REQUIRE(s.FindBuffer("depthstencil") != nullptr);
  const Buffer* v0 = s.FindBuffer("Vertices0");
  REQUIRE(v0 != nullptr);
  CHECK(v0->element_count == 2);
  CHECK(FloatAt(*v0, 8) == 1.0f);
  const Buffer* idx = s.FindBuffer("indices");
  REQUIRE(idx != nullptr);
  CHECK(idx->element_count == 3);  // "0 1 \" continues onto "1"

  // The state commands before the last draw make a second pipeline.
  REQUIRE(s.pipelines.size() == 2);
  const Pipeline& p = s.pipelines[0];
  CHECK(p.name == "vk_pipeline");
  CHECK(p.type == PipelineType::kGraphics);
  CHECK(p.framebuffer_width == 64);
  CHECK(p.vertex_data.size() == 1);
  CHECK(p.index_data == "indices");
  CHECK_FALSE(p.depth.test);
  const Pipeline& p2 = s.pipelines[1];
  CHECK(p2.name == "vk_pipeline_1");
  CHECK(p2.depth.test);
  CHECK(p2.depth.compare_op == "less");
  CHECK(p2.cull_mode == "front_and_back");
  CHECK(p2.bindings.size() == p.bindings.size());
}

TEST_CASE("VkScript [test] commands become Scene commands",
          "[scene][vkscript]") {
  auto r = ParseVkScript(kGraphics, "g.vkscript");
  REQUIRE(r.ok());
  const Scene& s = *r;
  const auto& cc = CommandAt<ClearColorCommand>(s, 0);
  CHECK(cc.pipeline == "vk_pipeline");
  CHECK(cc.g == 0.5f);
  CommandAt<ClearCommand>(s, 1);
  const auto& ndc = std::get<RunDrawRect>(CommandAt<RunCommand>(s, 2).draw);
  CHECK(ndc.ndc);
  CHECK(ndc.width == 2.0f);
  const auto& ortho = std::get<RunDrawRect>(CommandAt<RunCommand>(s, 3).draw);
  CHECK_FALSE(ortho.ndc);
  CHECK(ortho.width == 32.0f);
  const auto& indexed =
      std::get<RunDrawArray>(CommandAt<RunCommand>(s, 4).draw);
  CHECK(indexed.indexed);
  CHECK(indexed.vertex_offset == 1);
  CHECK(indexed.start_index == 0);
  CHECK(indexed.count == 3u);
  const auto& inst = std::get<RunDrawArray>(CommandAt<RunCommand>(s, 5).draw);
  CHECK(inst.topology == "triangle_list");
  CHECK(inst.instance_count == 4);
  // The second pipeline inherits the clear colour, then draws.
  CHECK(CommandAt<ClearColorCommand>(s, 6).pipeline == "vk_pipeline_1");
  CHECK(CommandAt<RunCommand>(s, 7).pipeline == "vk_pipeline_1");

  const auto& rel = CommandAt<ExpectCommand>(s, 8);
  CHECK(rel.buffer == "framebuffer");
  CHECK(rel.comparator == Comparator::kEqRgba);
  CHECK(rel.x == 32);
  CHECK(rel.y == 8);
  CHECK(rel.width == 32);
  CHECK(rel.height == 16);
  REQUIRE(rel.values.size() == 4);
  CHECK(rel.values[1].f == 0.5 * 255.0);
  // A float framebuffer is not normalized: tolerances stay as given.
  REQUIRE(rel.tolerances.size() == 4);
  CHECK(rel.tolerances[3].value == 0.4);
  const auto& point = CommandAt<ExpectCommand>(s, 9);
  CHECK(point.comparator == Comparator::kEqRgb);
  CHECK(point.x == 3);
  CHECK(point.width == 1);
  const auto& all = CommandAt<ExpectCommand>(s, 10);
  CHECK(all.width == 64);
  CHECK(all.height == 32);
}

TEST_CASE("VkScript ssbo, uniform and probe ssbo address buffers by binding",
          "[scene][vkscript]") {
  auto r = ParseVkScript(kCompute, "c.vkscript");
  REQUIRE(r.ok());
  const Scene& s = *r;
  REQUIRE(s.pipelines.size() == 1);
  const Pipeline& p = s.pipelines[0];
  CHECK(p.type == PipelineType::kCompute);
  REQUIRE(p.shaders.size() == 1);
  CHECK(p.shaders[0].entry_point == "other");
  REQUIRE(p.bindings.size() == 4);
  CHECK(p.bindings[0].buffers[0] == "ssbo_0_0");
  CHECK(p.bindings[1].kind == BindingKind::kStorage);
  CHECK(p.bindings[1].descriptor_set == 1);
  CHECK(p.bindings[1].binding == 2);
  CHECK(p.bindings[2].kind == BindingKind::kUniform);
  CHECK(p.bindings[3].kind == BindingKind::kPushConstant);

  // `ssbo 0 16` counts elements of the type a later probe gives (int8_t).
  const Buffer* sized = s.FindBuffer("ssbo_0_0");
  REQUIRE(sized != nullptr);
  CHECK(sized->bytes.size() == 16);
  // vec3 in std430 takes 16 bytes; the write at 16 made it 32 bytes long.
  const Buffer* v = s.FindBuffer("ssbo_1_2");
  REQUIRE(v != nullptr);
  CHECK(v->format.stride == 16);
  REQUIRE(v->bytes.size() == 32);
  CHECK(FloatAt(*v, 16) == 1.5f);
  CHECK(FloatAt(*v, 24) == 3.5f);
  CHECK(FloatAt(*v, 0) == 0.0f);  // written later, by a command
  // mat2 in std140: columns 16 bytes apart.
  const Buffer* ubo = s.FindBuffer("ubo_0_1");
  REQUIRE(ubo != nullptr);
  REQUIRE(ubo->bytes.size() == 32);
  CHECK(FloatAt(*ubo, 4) == 2.0f);
  CHECK(FloatAt(*ubo, 16) == 3.0f);
  const Buffer* pc = s.FindBuffer("push_constants");
  REQUIRE(pc != nullptr);
  REQUIRE(pc->bytes.size() == 8);
  CHECK(pc->bytes[4] == 7);

  const auto& run = CommandAt<RunCommand>(s, 0);
  const auto& groups = std::get<RunCompute>(run.draw);
  CHECK(groups.y == 3);
  const auto& write = CommandAt<BufferWriteCommand>(s, 1);
  CHECK(write.buffer == "ssbo_1_2");
  CHECK(write.offset == 0);
  CHECK(write.bytes.size() == 12);  // only the given components
  const auto& fuzzy = CommandAt<ExpectCommand>(s, 2);
  CHECK(fuzzy.buffer == "ssbo_1_2");
  CHECK(fuzzy.comparator == Comparator::kEq);
  CHECK(fuzzy.x == 16);
  REQUIRE(fuzzy.tolerances.size() == 1);
  CHECK(fuzzy.tolerances[0].percent);
  CHECK(CommandAt<ExpectCommand>(s, 3).tolerances.empty());
  const auto& ge = CommandAt<ExpectCommand>(s, 4);
  CHECK(ge.comparator == Comparator::kGe);
  CHECK(ge.values[0].i == -1);
}

TEST_CASE("each [vertex data] header cell becomes a buffer at its location",
          "[scene][vkscript]") {
  auto r = ParseVkScript(
      "[vertex shader passthrough]\n[fragment shader]\nvoid main() {}\n"
      "[vertex data]\n0/R8G8_SNORM 3/R8G8B8A8_UNORM\n"
      "-128 127  255 0 0 255  0 0  0 255 0 255\n",
      "t.vkscript");
  REQUIRE(r.ok());
  const Buffer* pos = r->FindBuffer("Vertices0");
  const Buffer* color = r->FindBuffer("Vertices1");
  REQUIRE(pos != nullptr);
  REQUIRE(color != nullptr);
  CHECK(pos->element_count == 2);  // two rows on one line
  CHECK(pos->bytes[0] == 0x80);
  CHECK(color->bytes[5] == 255);  // second row, G
  REQUIRE(r->pipelines.at(0).vertex_data.size() == 2);
  CHECK(r->pipelines[0].vertex_data[1].location == 3);
  auto rect = ParseVkScript(
      "[vertex shader passthrough]\n[fragment shader]\nvoid main() {}\n"
      "[vertex data]\n0/R8G8_SNORM 3/R8G8B8A8_UNORM\n[test]\n"
      "draw rect 0 0 1 1\n",
      "t.vkscript");
  REQUIRE_FALSE(rect.ok());
  CHECK_THAT(rect.error().ToString(),
             Catch::Contains("t.vkscript:7: error: draw rect cannot be used"));
}

TEST_CASE(
    "a vertex-only graphics pipeline gets a fragment shader without "
    "outputs",
    "[scene][vkscript]") {
  auto r = ParseVkScript("[vertex shader]\nvoid main() {}\n[test]\nclear\n",
                         "v.vkscript");
  REQUIRE(r.ok());
  REQUIRE(r->shaders.size() == 2);
  CHECK(r->shaders[1].stage == ShaderStage::kFragment);
  CHECK_THAT(r->shaders[1].source, !Catch::Contains("out "));
  REQUIRE(r->pipelines.size() == 1);
  CHECK(r->pipelines[0].shaders.size() == 2);
}

TEST_CASE("ParseSceneText picks the parser by the file's first line",
          "[scene][vkscript]") {
  auto vk =
      ParseSceneText("# c\n\n[compute shader]\nvoid main() {}\n", "a.amber");
  REQUIRE(vk.ok());
  CHECK(vk->pipelines.at(0).name == "vk_pipeline");
  auto amber =
      ParseSceneText("SHADER compute c GLSL\nvoid main() {}\nEND\n", "a.amber");
  REQUIRE(amber.ok());
  CHECK(amber->shaders.at(0).name == "c");
}

struct BadInput {
  const char* input;
  const char* message;
};

TEST_CASE("bad VkScript is InvalidInput with file, line and what was wrong",
          "[scene][vkscript]") {
  const char kCs[] = "[compute shader]\nvoid main() {}\n";
  const BadInput kCases[] = {
      {"text before\n[test]\n",
       "t.vkscript:1: error: expected a [section] header"},
      {"[test\n", "t.vkscript:1: error: section header without a closing"},
      {"[pixel shader]\n",
       "t.vkscript:1: error: unknown section [pixel "
       "shader]"},
      {"[test spirv]\n", "shader format is only allowed on shader sections"},
      {"[fragment shader passthrough]\n",
       "only a vertex shader can be 'passthrough'"},
      {"[compute shader]\n[compute shader]\n",
       "t.vkscript:2: error: a second compute shader section"},
      {"[require]\nframebuffer NOT_A_FORMAT\n",
       "t.vkscript:2: error: unknown framebuffer format 'NOT_A_FORMAT'"},
      {"[require]\nfbsize 10\n", "expected a width and a height after fbsize"},
      {"[require]\nfbsize 0 10\n", "expected a framebuffer width in 1..16384"},
      {"[require]\nshaderInt16 extra\n",
       "t.vkscript:2: error: unexpected 'extra' after shaderInt16"},
      {"[require]\nVK-bad\n", "unknown feature or extension 'VK-bad'"},
      {"[vertex data]\n0:R32_SFLOAT\n", "is not location/FORMAT"},
      {"[vertex data]\n0/R32_NOPE\n", "unknown format 'R32_NOPE'"},
      {"[vertex data]\n0/R32G32_SFLOAT\n1 2 3\n",
       "t.vkscript:3: error: vertex data row has 3 values; the header needs 2"},
      {"[vertex data]\n0/R8_UINT\n1.5\n", "expected an integer for R8_UINT"},
      {"[indices]\n1 70000\n", "t.vkscript:2: error: index 70000 is larger"},
      {"[indices]\n1 x\n", "expected an index"},
      {"[test]\nfrobnicate\n",
       "t.vkscript:2: error: unknown VkScript command 'frobnicate'"},
      {"[test]\ncompute 1 1 1\n", "compute without a [compute shader]"},
      {"[test]\ndraw rect 0 0 1 1\n", "draw rect needs a graphics pipeline"},
      {"[test]\ndraw circle\n", "expected 'rect' or 'arrays' after draw"},
      {"[test]\nrelative frobnicate\n", "expected 'probe' after relative"},
      {"[test]\ntolerance 1 2\n", "tolerance takes 1 or 4 values, got 2"},
      {"[test]\ntolerance x\n", "expected a tolerance (n or n%)"},
      {"[test]\nssbo 0 subdata vec5 0 1\n",
       "unknown VkScript data type 'vec5'"},
      {"[test]\nssbo 0 subdata float 2 1\n",
       "expected a byte offset that is a multiple of 4"},
      {"[test]\nssbo 0 subdata vec3 0 1 2\n",
       "needs a non-zero multiple of 3 values"},
      {"[test]\nssbo 0 subdata int 0 1.5\n", "expected an integer for ssbo"},
      {"[test]\nssbo 0 subdata int 0 1\nssbo 0 subdata float 0 1\n",
       "t.vkscript:3: error: type 'float' does not match type 'int'"},
      {"[test]\nssbo a:b 4\n", "expected a binding (B or set:B), got 'a:b'"},
      {"[test]\nssbo 0 -4\n", "expected an element count after ssbo 0"},
      {"[test]\nuniform ubo 0 float 0 1\nssbo 0 4\n",
       "is a uniform buffer (uniform ubo), not an ssbo"},
      {"[test]\nprobe ssbo float 0 0 == 1\n",
       "which no ssbo or uniform ubo command declares"},
      {"[test]\nssbo 0 4\nprobe ssbo float 0 0 =~ 1\n",
       "expected a comparison (== != < <= > >= ~=), got '=~'"},
      {"[test]\ndepthTestEnable maybe\n",
       "expected true or false after depthTestEnable"},
      {"[test]\ndepthCompareOp LESS\n",
       "unknown value 'LESS' for depthCompareOp (expected VK_COMPARE_OP_...)"},
      {"[test]\ncullMode VK_CULL_MODE_SIDEWAYS\n",
       "unknown cullMode value 'VK_CULL_MODE_SIDEWAYS'"},
      {"[test]\ncompute entrypoint\n",
       "expected an entry point name after entrypoint"},
  };
  for (const BadInput& c : kCases) {
    INFO(c.input);
    auto r = ParseVkScript(c.input, "t.vkscript");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == ErrorKind::kInvalidInput);
    CHECK_THAT(r.error().ToString(), Catch::Contains(c.message));
  }
  // Commands that need a graphics pipeline or a shader.
  const BadInput kWithShader[] = {
      {"[test]\nclear\n", "clear needs a graphics pipeline"},
      {"[test]\nprobe rgba (0, 0) (1, 1, 1, 1)\n",
       "probe of the framebuffer needs a graphics pipeline"},
      {"[test]\ncompute 1 1\n", "expected 'compute x y z'"},
      {"[test]\ncompute 1 -1 1\n", "expected a workgroup count, got '-1'"},
  };
  for (const BadInput& c : kWithShader) {
    INFO(c.input);
    auto r = ParseVkScript(std::string(kCs) + c.input, "t.vkscript");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == ErrorKind::kInvalidInput);
    CHECK_THAT(r.error().ToString(), Catch::Contains(c.message));
  }
  const char kGfx[] =
      "[vertex shader passthrough]\n[fragment shader]\nvoid main() {}\n";
  const BadInput kGraphicsCases[] = {
      {"[test]\nprobe rgba (0, 0 (1, 1, 1, 1)\n",
       "t.vkscript:5: error: expected ')' after the probe position"},
      {"[test]\nprobe rgb (0, 0) (1, 1, 1, 1)\n",
       "expected ')' after the probe colour"},
      {"[test]\nprobe hsv (0, 0) (1, 1, 1)\n", "expected rgb or rgba in probe"},
      {"[test]\nprobe rgb (-1, 0) (1, 1, 1)\n",
       "probe coordinates must not be negative"},
      {"[test]\nprobe rgb (2000000000, 0) (1, 1, 1)\n",
       "probe coordinates must be at most 1e9 pixels"},
      // Within 1e9 as written, past it times the framebuffer's width.
      {"[test]\nrelative probe rect rgb (0, 0, 800000000, 1) (1, 1, 1)\n",
       "t.vkscript:5: error: probe coordinates must be at most 1e9 pixels"},
      {"[test]\ndraw arrays indexed TRIANGLE_LIST 0 3\n",
       "draw arrays indexed without an [indices] section"},
      {"[test]\ndraw arrays SQUARES 0 3\n", "expected a topology"},
      {"[test]\ndraw arrays TRIANGLE_LIST 0\n",
       "expected 'first count' after the topology"},
      {"[test]\nclear colour 1 1 1 1\n", "expected clear, clear color"},
      {"[test]\nclear color 1 1 1\n", "expected 4 value(s) after clear color"},
      {"[test]\ndraw rect 0 0 1\n", "expected 'draw rect [ortho] [patch]"},
  };
  for (const BadInput& c : kGraphicsCases) {
    INFO(c.input);
    auto r = ParseVkScript(std::string(kGfx) + c.input, "t.vkscript");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == ErrorKind::kInvalidInput);
    CHECK_THAT(r.error().ToString(), Catch::Contains(c.message));
  }
  auto fragment_only =
      ParseVkScript("[fragment shader]\nvoid main() {}\n", "t.vkscript");
  REQUIRE_FALSE(fragment_only.ok());
  CHECK_THAT(fragment_only.error().message,
             Catch::Contains("needs a [vertex shader] section"));
}

TEST_CASE("VkScript the runner cannot do is Unsupported by name",
          "[scene][vkscript]") {
  const char kGfx[] =
      "[vertex shader passthrough]\n[fragment shader]\nvoid main() {}\n";
  const BadInput kCases[] = {
      {"[vertex data]\n0/float/vec2\n",
       "unsupported: VkScript vertex data header in the gl_type/glsl_type "
       "form"},
      {"[test]\npatch parameter vertices 3\n",
       "t.vkscript:5: unsupported: patch parameter vertices (tessellation)"},
      {"[test]\ndraw rect patch 0 0 1 1\n",
       "unsupported: draw rect patch (tessellation)"},
      {"[test]\nlogicOpEnable true\n", "unsupported: logicOpEnable true"},
      {"[test]\nprimitiveRestartEnable true\n",
       "unsupported: primitiveRestartEnable true"},
      {"[test]\nrasterizerDiscardEnable true\n",
       "unsupported: rasterizerDiscardEnable true"},
      {"[test]\nlineWidth 2.0\n", "unsupported: lineWidth other than 1.0"},
      {"[test]\ncolorWriteMask VK_COLOR_COMPONENT_R_BIT\n",
       "unsupported: colorWriteMask other than R|G|B|A"},
  };
  for (const BadInput& c : kCases) {
    INFO(c.input);
    auto r = ParseVkScript(std::string(kGfx) + c.input, "t.vkscript");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == ErrorKind::kUnsupported);
    CHECK_THAT(r.error().ToString(), Catch::Contains(c.message));
  }
}
