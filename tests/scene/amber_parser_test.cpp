// AmberScript parsing: a full scene, then tables of bad inputs.
#include "scene/amber_parser.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace warpsim::scene;
using warpsim::ErrorKind;

namespace {

const char kScene[] = R"(#!amber
# A compute and a graphics pipeline.
DEVICE_FEATURE shaderInt16
DEVICE_EXTENSION VK_KHR_16bit_storage
INSTANCE_EXTENSION VK_KHR_get_physical_device_properties2
SET ENGINE_DATA fence_timeout_ms 5000

SHADER compute comp GLSL TARGET_ENV spv1.3
#version 450
layout(local_size_x = 4) in;
void main() {}
END

SHADER vertex vert PASSTHROUGH
SHADER fragment frag SPIRV-ASM
OpCapability Shader
END

BUFFER data DATA_TYPE int32 SIZE 8 SERIES_FROM 1 INC_BY 2
BUFFER ubo DATA_TYPE vec4<float> STD140 DATA
  0.5 -1 0x10 2e1
END
BUFFER fb FORMAT R8G8B8A8_UNORM
BUFFER depth FORMAT D32_SFLOAT
IMAGE tex FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 4 HEIGHT 2 FILL 7
SAMPLER smp MAG_FILTER linear ADDRESS_MODE_U clamp_to_border \
    BORDER_COLOR float_opaque_white MAX_LOD 4.0

PIPELINE compute cp
  ATTACH comp SPECIALIZE 1 AS uint32 4 SPECIALIZE 2 AS float 1.5
  BIND BUFFER data AS storage DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER ubo AS uniform_dynamic DESCRIPTOR_SET 1 BINDING 0 OFFSET 256
END

PIPELINE graphics gp
  ATTACH vert
  ATTACH frag ENTRY_POINT main
  FRAMEBUFFER_SIZE 32 16
  BIND BUFFER fb AS color LOCATION 0
  BIND BUFFER depth AS depth_stencil
  BIND BUFFER tex AS combined_image_sampler SAMPLER smp DESCRIPTOR_SET 0 BINDING 2
  VERTEX_DATA data LOCATION 0 RATE instance
  DEPTH
    TEST on
    WRITE on
    COMPARE_OP less
    BIAS constant 0.5 clamp 0.0 slope 1.0
  END
  CULL_MODE back
  VIEWPORT 0 0 SIZE 32 16 MIN_DEPTH 0.1 MAX_DEPTH 0.9
END
DERIVE_PIPELINE gp2 FROM gp
  POLYGON_MODE line
END

RUN cp 2 1 1
CLEAR_COLOR gp 255 0 0 255
CLEAR gp
RUN gp DRAW_RECT POS 0 0 SIZE 32 16
RUN gp2 DRAW_ARRAY AS TRIANGLE_LIST START_IDX 0 COUNT 3
REPEAT 3
  RUN cp 1 1 1
END
EXPECT data IDX 4 EQ 3 5
EXPECT data IDX 0 TOLERANCE 1 2% EQ 1
EXPECT fb IDX 0 0 SIZE 32 16 EQ_RGBA 255 0 0 255 TOLERANCE 1
EXPECT fb EQ_BUFFER fb
EXPECT fb RMSE_BUFFER fb TOLERANCE 0.5
)";

}  // namespace

TEST_CASE("a full scene parses into plain data", "[scene]") {
  auto r = ParseAmberScript(kScene, "/tmp/x/scene.amber");
  REQUIRE(r.ok());
  const Scene& s = *r;
  CHECK(s.device_features == std::vector<std::string>{"shaderInt16"});
  CHECK(s.engine_data.at("fence_timeout_ms") == 5000);
  REQUIRE(s.shaders.size() == 3);
  CHECK(s.shaders[0].target_env == "spv1.3");
  CHECK(s.shaders[0].line == 8);
  CHECK(s.shaders[0].source_line == 9);
  CHECK(s.shaders[0].source.rfind("#version 450\n", 0) == 0);
  CHECK(s.shaders[1].passthrough);
  CHECK(s.shaders[2].format == ShaderFormat::kSpirvAsm);

  const Buffer* data = s.FindBuffer("data");
  REQUIRE(data);
  CHECK(data->element_count == 8);
  CHECK(data->bytes[4] == 3);
  const Buffer* ubo = s.FindBuffer("ubo");
  CHECK(ubo->bytes.size() == 16);
  const Buffer* fb = s.FindBuffer("fb");
  CHECK(fb->width == 32);  // sized by FRAMEBUFFER_SIZE
  CHECK(fb->height == 16);
  CHECK(fb->bytes.size() == 32 * 16 * 4);
  const Buffer* tex = s.FindBuffer("tex");
  CHECK(tex->dim == ImageDim::k2D);
  CHECK(tex->bytes.size() == 32);
  CHECK(tex->bytes[31] == 7);
  REQUIRE(s.samplers.size() == 1);
  CHECK(s.samplers[0].border_color == "float_opaque_white");
  CHECK(s.samplers[0].max_lod == 4.0f);

  const Pipeline* cp = s.FindPipeline("cp");
  REQUIRE(cp);
  REQUIRE(cp->shaders[0].specializations.size() == 2);
  CHECK(cp->shaders[0].specializations[1].bits == 0x3fc00000u);
  CHECK(cp->bindings[1].kind == BindingKind::kUniformDynamic);
  CHECK(cp->bindings[1].dynamic_offsets == std::vector<uint64_t>{256});
  const Pipeline* gp = s.FindPipeline("gp");
  CHECK(gp->depth.test);
  CHECK(gp->depth.compare_op == "less");
  CHECK(gp->depth.bias_slope == 1.0f);
  CHECK(gp->viewport->max_depth == Approx(0.9f));
  CHECK(gp->vertex_data[0].per_instance);
  const Pipeline* gp2 = s.FindPipeline("gp2");
  CHECK(gp2->derived_from == "gp");
  CHECK(gp2->polygon_mode == "line");
  CHECK(gp2->cull_mode == "back");

  REQUIRE(s.commands.size() == 11);
  CHECK(std::get<RunCommand>(s.commands[0].data).pipeline == "cp");
  CHECK(std::get<RunCompute>(std::get<RunCommand>(s.commands[0].data).draw).x ==
        2);
  CHECK(std::get<ClearColorCommand>(s.commands[1].data).r == 1.0f);
  auto draw =
      std::get<RunDrawArray>(std::get<RunCommand>(s.commands[4].data).draw);
  CHECK(draw.topology == "triangle_list");
  CHECK(draw.count == 3u);
  const auto& rep = std::get<RepeatCommand>(s.commands[5].data);
  CHECK(rep.count == 3);
  CHECK(rep.commands.size() == 1);
  const auto& tol = std::get<ExpectCommand>(s.commands[7].data);
  REQUIRE(tol.tolerances.size() == 2);
  CHECK(tol.tolerances[1].percent);
  const auto& rgba = std::get<ExpectCommand>(s.commands[8].data);
  CHECK(rgba.comparator == Comparator::kEqRgba);
  CHECK(rgba.width == 32);
  CHECK(s.commands[10].line == 68);
}

TEST_CASE("a graphics pipeline without color gets the default framebuffer",
          "[scene]") {
  auto r = ParseAmberScript(R"(SHADER vertex v PASSTHROUGH
SHADER fragment f GLSL
void main() {}
END
PIPELINE graphics p
  ATTACH v
  ATTACH f
END
EXPECT framebuffer IDX 0 0 SIZE 1 1 EQ_RGB 0 0 0
)",
                            "d.amber");
  // Like Amber, EXPECT cannot name the generated buffer before it exists.
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("unknown buffer 'framebuffer'") !=
        std::string::npos);
}

TEST_CASE("SHADER FILE and BUFFER FILE resolve next to the script", "[scene]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "warpsim_scene_test";
  fs::create_directories(dir);
  std::ofstream(dir / "s.comp") << "#version 450\nvoid main() {}\n";
  std::ofstream(dir / "v.txt") << "# comment\n1 2\n3\n";
  std::ofstream(dir / "v.bin", std::ios::binary) << std::string("\x01\x02", 2);
  std::string script = R"(#!amber
SHADER compute s GLSL FILE s.comp
BUFFER t DATA_TYPE int32 SIZE 4 FILE TEXT v.txt
BUFFER b DATA_TYPE uint8 SIZE 2 FILE BINARY v.bin
)";
  auto r = ParseAmberScript(script, (dir / "main.amber").string());
  REQUIRE(r.ok());
  CHECK(r->shaders[0].source.find("void main") != std::string::npos);
  CHECK(r->FindBuffer("t")->bytes.size() == 16);
  CHECK(r->FindBuffer("t")->bytes[8] == 3);
  CHECK(r->FindBuffer("b")->bytes[1] == 2);
  auto missing = ParseAmberScript("SHADER compute s GLSL FILE nope.comp\n",
                                  (dir / "main.amber").string());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().kind == ErrorKind::kInvalidInput);
  CHECK(missing.error().ToString().find("main.amber:1:") != std::string::npos);
  CHECK(missing.error().message.find("nope.comp") != std::string::npos);
}

struct BadInput {
  const char* input;
  const char* message;  // substring of Diagnostic::ToString()
};

TEST_CASE("bad inputs are InvalidInput with a line and what was expected",
          "[scene]") {
  const BadInput kCases[] = {
      {"BUFFER b DATA_TYPE int32 SIZE 100000000000000 FILL 0\n",
       "t.amber:1: error: buffer of 400000000000000 bytes exceeds the limit"},
      {"IMAGE i FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 1000000 HEIGHT 1000000\n",
       "t.amber:1: error: buffer of 4000000000000 bytes exceeds the limit"},
      {"\nBUFFER b DATA_TYPE vec5<float> SIZE 1 FILL 0\n",
       "t.amber:2: error: vector size must be 2, 3 or 4"},
      {"BUFFER b DATA_TYPE banana SIZE 1 FILL 0\n",
       "t.amber:1: error: unknown data type 'banana'"},
      {"BUFFER b FORMAT R8G8B8A8_BANANA\n", "t.amber:1: error: unknown format"},
      {"BUFFER b DATA_TYPE int32 DATA 1 2 x END\n",
       "t.amber:1: error: expected a number or END in BUFFER DATA, got 'x'"},
      {"BUFFER b DATA_TYPE int32 DATA\n1 2\n", "DATA is missing its END"},
      {"BUFFER b DATA_TYPE int32 FILL 1\n", "needs SIZE"},
      {"BUFFER b DATA_TYPE int32 SIZE 1 FILL 0\nBUFFER b DATA_TYPE int32 SIZE "
       "1 FILL 0\n",
       "t.amber:2: error: duplicate buffer name 'b'"},
      {"SHADER compute s GLSL\nvoid main() {}\n",
       "t.amber:1: error: SHADER 's' is missing its END"},
      {"SHADER compute s GLSL\n\nEND\n", "must not be empty"},
      {"SHADER pixel s GLSL\nx\nEND\n", "expected a shader type"},
      {"SHADER fragment s PASSTHROUGH\n", "only allowed for vertex"},
      {"PIPELINE compute p\n  ATTACH nope\nEND\n",
       "t.amber:2: error: unknown shader 'nope' in ATTACH"},
      {"SHADER compute s GLSL\nx\nEND\nPIPELINE compute p\n  ATTACH s\n  BIND "
       "BUFFER q AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n",
       "t.amber:6: error: unknown buffer 'q' in BIND"},
      {"SHADER compute s GLSL\nx\nEND\nBUFFER b DATA_TYPE int32 SIZE 1 FILL "
       "0\nPIPELINE compute p\n  ATTACH s\n  BIND BUFFER b AS storage\nEND\n",
       "t.amber:7: error: BIND needs DESCRIPTOR_SET"},
      {"SHADER compute s GLSL\nx\nEND\nPIPELINE compute p\n  ATTACH s\nEND\n"
       "RUN p 1 a 1\n",
       "t.amber:7: error: expected an integer workgroup count Y after RUN p, "
       "got 'a'"},
      {"SHADER compute s GLSL\nx\nEND\nPIPELINE compute p\n  ATTACH s\nEND\n"
       "RUN p DRAW_RECT POS 0 0 SIZE 1 1\n",
       "t.amber:7: error: RUN p DRAW_RECT needs a graphics pipeline"},
      {"SHADER compute s GLSL\nx\nEND\nPIPELINE compute p\n  ATTACH s\n"
       "  FRAMEBUFFER_SIZE 0 4\nEND\n",
       "t.amber:6: error: FRAMEBUFFER_SIZE must be 1..16384"},
      {"SHADER compute s GLSL\nx\nEND\nPIPELINE compute p\n  ATTACH s\n",
       "t.amber:4: error: PIPELINE 'p' is missing its END"},
      {"RUN nope 1 1 1\n", "t.amber:1: error: unknown pipeline 'nope' in RUN"},
      {"BUFFER b DATA_TYPE int32 SIZE 4 FILL 0\nEXPECT b IDX 0 EQ\n",
       "t.amber:2: error: EXPECT EQ needs at least one value"},
      {"BUFFER b DATA_TYPE int32 SIZE 4 FILL 0\nEXPECT b IDX 0 ROUGHLY 1\n",
       "t.amber:2: error: expected a comparator (EQ, NE, LT, LE, GT, GE)"},
      {"BUFFER b DATA_TYPE int32 SIZE 4 FILL 0\nEXPECT b IDX 0 TOLERANCE 1 LT "
       "1\n",
       "t.amber:2: error: TOLERANCE is only allowed with EQ"},
      {"BUFFER b FORMAT R8G8B8A8_UNORM WIDTH 2 HEIGHT 2 FILL 0\nEXPECT b IDX 0 "
       "0 SIZE 1 1 EQ_RGBA 1 2 300 4\n",
       "t.amber:2: error: expected a B value for EQ_RGBA (an integer 0..255)"},
      {"EXPECT nope IDX 0 EQ 1\n", "t.amber:1: error: unknown buffer 'nope'"},
      {"REPEAT 0\nEND\n", "REPEAT count must be at least 1"},
      {"REPEAT 2\nBUFFER b DATA_TYPE int32 SIZE 1 FILL 0\nEND\n",
       "t.amber:2: error: 'BUFFER' is not allowed inside REPEAT"},
      {"FROBNICATE\n", "t.amber:1: error: unknown command 'FROBNICATE'"},
      {"STRUCT s\nEND\n", "STRUCT 's' has no members"},
      {"STRUCT s\n  float a OFFSET 8\n  int32 b OFFSET 4\nEND\nBUFFER x "
       "DATA_TYPE s SIZE 1 FILL 0\n",
       "overlaps the previous member"},
      {"SAMPLER s MAG_FILTER cubic\n",
       "t.amber:1: error: expected a filter after MAG_FILTER (one of linear, "
       "nearest), got 'cubic'"},
      {"SET ENGINE_DATA colour 3\n", "unknown ENGINE_DATA variable 'colour'"},
      {"DEVICE_FEATURE\n",
       "t.amber:1: error: expected a name after "
       "DEVICE_FEATURE, got end of line"},
  };
  for (const BadInput& c : kCases) {
    INFO(c.input);
    auto r = ParseAmberScript(c.input, "t.amber");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == ErrorKind::kInvalidInput);
    CHECK_THAT(r.error().ToString(), Catch::Contains(c.message));
  }
}

TEST_CASE("valid but unimplemented input is Unsupported by name", "[scene]") {
  const BadInput kCases[] = {
      {"[require]\nfbsize 10 10\n", "unsupported: VkScript format"},
      {"# header\n\n[compute shader]\nvoid main() {}\n",
       "t.amber:3: unsupported: VkScript format"},
      {"DEBUG p 1 1 1\nEND\n", "t.amber:1: unsupported: DEBUG blocks"},
      {"BUFFER b FORMAT BC1_RGB_UNORM_BLOCK\n",
       "unsupported: compressed format BC1_RGB_UNORM_BLOCK"},
      {"ACCELERATION_STRUCTURE BOTTOM_LEVEL b\nEND\n",
       "unsupported: ray tracing (ACCELERATION_STRUCTURE)"},
  };
  for (const BadInput& c : kCases) {
    INFO(c.input);
    auto r = ParseAmberScript(c.input, "t.amber");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == ErrorKind::kUnsupported);
    CHECK_THAT(r.error().ToString(), Catch::Contains(c.message));
  }
}

TEST_CASE("ParseAmberFile reports a missing file", "[scene]") {
  auto r = ParseAmberFile("/nonexistent/dir/x.amber");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == ErrorKind::kInvalidInput);
  CHECK_THAT(r.error().message, Catch::Contains("cannot open"));
}
