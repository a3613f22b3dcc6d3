// Images, texel buffers and samplers (exec_image.cpp, runner/image_binding).
// Every case runs a real compute shader through the whole stack.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "scene/amber_parser.h"

using warpsim::runner::RunStatus;
using warpsim::testing::Describe;
using warpsim::testing::RunAmberText;

namespace {

void ExpectPass(const std::string& amber) {
  const auto report = RunAmberText(amber);
  INFO(Describe(report));
  CHECK(report.status == RunStatus::kPass);
}

}  // namespace

TEST_CASE("storage image 2D store and load with format conversion",
          "[simt][image]") {
  ExpectPass(R"(#!amber
SHADER compute write GLSL
#version 450
layout(local_size_x = 4, local_size_y = 2) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D ids;
layout(set = 0, binding = 1, rgba8) uniform image2D colors;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  imageStore(ids, p, uvec4(uint(p.x * 10 + p.y)));
  imageStore(colors, p, vec4(0.5, 1.0, -1.0, 2.0));
  // Out of bounds: dropped.
  imageStore(ids, p + ivec2(100, 0), uvec4(77u));
}
END
SHADER compute read GLSL
#version 450
layout(local_size_x = 4, local_size_y = 2) in;
layout(set = 0, binding = 0, r32ui) uniform readonly uimage2D ids;
layout(set = 0, binding = 1, rgba8) uniform readonly image2D colors;
layout(set = 0, binding = 2) buffer B { vec4 c[8]; float oob; } b;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  uint i = gl_LocalInvocationIndex;
  b.c[i] = imageLoad(colors, p) * 255.0 + vec4(imageLoad(ids, p).x);
  if (i == 0u) b.oob = float(imageLoad(ids, ivec2(-1, 0)).x + 5u);
}
END
IMAGE ids DATA_TYPE uint32 DIM_2D WIDTH 4 HEIGHT 2 FILL 9
IMAGE colors FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 4 HEIGHT 2 FILL 0
BUFFER out DATA_TYPE float SIZE 33 FILL 0
PIPELINE compute w
  ATTACH write
  BIND BUFFER ids AS storage_image DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER colors AS storage_image DESCRIPTOR_SET 0 BINDING 1
END
PIPELINE compute r
  ATTACH read
  BIND BUFFER ids AS storage_image DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER colors AS storage_image DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 2
END
RUN w 1 1 1
RUN r 1 1 1
EXPECT ids IDX 0 EQ 0 10 20 30 1 11 21 31
EXPECT colors IDX 0 0 SIZE 4 2 EQ_RGBA 128 255 0 255
EXPECT out IDX 0 EQ 128 255 0 255
EXPECT out IDX 16 EQ 138 265 10 265
EXPECT out IDX 112 EQ 159 286 31 286
EXPECT out IDX 128 EQ 5
)");
}

TEST_CASE("3D storage image written, then fetched through a sampler",
          "[simt][image]") {
  ExpectPass(R"(#!amber
SHADER compute write GLSL
#version 450
layout(set = 0, binding = 0, rgba32i) uniform iimage3D im;
void main() {
  ivec3 p = ivec3(gl_GlobalInvocationID);
  imageStore(im, p, ivec4(p + 1, -7));
}
END
SHADER compute read GLSL
#version 450
layout(set = 0, binding = 0) uniform itexture3D im;
layout(set = 0, binding = 1) uniform sampler s;
layout(set = 0, binding = 2) buffer B { ivec4 v[]; } b;
void main() {
  ivec3 p = ivec3(gl_GlobalInvocationID);
  uint i = 4u * gl_GlobalInvocationID.z + 2u * gl_GlobalInvocationID.y +
           gl_GlobalInvocationID.x;
  b.v[i] = texelFetch(isampler3D(im, s), p, 0);
  b.v[8 + i] = ivec4(textureSize(isampler3D(im, s), 0), 0);
}
END
IMAGE im DATA_TYPE vec4<int32> DIM_3D WIDTH 2 HEIGHT 2 DEPTH 2 FILL 0
SAMPLER smp
BUFFER out DATA_TYPE vec4<int32> SIZE 16 FILL 0
PIPELINE compute w
  ATTACH write
  BIND BUFFER im AS storage_image DESCRIPTOR_SET 0 BINDING 0
END
PIPELINE compute r
  ATTACH read
  BIND BUFFER im AS sampled_image DESCRIPTOR_SET 0 BINDING 0
  BIND SAMPLER smp DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 2
END
RUN w 2 2 2
RUN r 2 2 2
EXPECT out IDX 0 EQ 1 1 1 -7 2 1 1 -7 1 2 1 -7 2 2 1 -7
EXPECT out IDX 64 EQ 1 1 2 -7 2 1 2 -7 1 2 2 -7 2 2 2 -7
EXPECT out IDX 128 EQ 2 2 2 0
)");
}

TEST_CASE("2D array storage image: layers and imageSize", "[simt][image]") {
  ExpectPass(R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 2, local_size_y = 2, local_size_z = 3) in;
layout(set = 0, binding = 0, r32i) uniform iimage2DArray im;
layout(set = 0, binding = 1) buffer B { ivec4 size; } b;
void main() {
  ivec3 p = ivec3(gl_LocalInvocationID);
  imageStore(im, p, ivec4(p.z * 100 + p.y * 10 + p.x));
  if (gl_LocalInvocationIndex == 0u) b.size = ivec4(imageSize(im), 0);
}
END
IMAGE im DATA_TYPE int32 DIM_2D WIDTH 2 HEIGHT 2 DEPTH 3 FILL -1
BUFFER out DATA_TYPE vec4<int32> SIZE 1 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER im AS storage_image DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 1 1 1
EXPECT im IDX 0 EQ 0 1 10 11 100 101 110 111 200 201 210 211
EXPECT out IDX 0 EQ 2 2 3 0
)");
}

TEST_CASE("uniform and storage texel buffers", "[simt][image]") {
  ExpectPass(R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform samplerBuffer src;
layout(set = 0, binding = 1, r32ui) uniform uimageBuffer dst;
layout(set = 0, binding = 2) buffer B { int sizes[2]; } b;
void main() {
  int i = int(gl_GlobalInvocationID.x);
  vec4 c = texelFetch(src, i);
  imageStore(dst, i, uvec4(uint(c.r * 255.0 + 0.5) + uint(c.a * 1000.0)));
  if (i == 0) {
    b.sizes[0] = textureSize(src);
    b.sizes[1] = imageSize(dst);
  }
}
END
BUFFER src DATA_TYPE R8G8B8A8_UNORM DATA
1 0 0 255
2 0 0 0
3 0 0 255
4 0 0 0
END
BUFFER dst DATA_TYPE uint32 SIZE 4 FILL 0
BUFFER out DATA_TYPE int32 SIZE 2 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER src AS uniform_texel_buffer DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER dst AS storage_texel_buffer DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 2
END
RUN p 1 1 1
EXPECT dst IDX 0 EQ 1001 2 1003 4
EXPECT out IDX 0 EQ 4 4
)");
}

TEST_CASE("textureLod with linear filtering at known coordinates",
          "[simt][image]") {
  // texel(x, y) = x + 4y on a 4x2 image.
  ExpectPass(R"(#!amber
SHADER compute cs GLSL
#version 450
layout(set = 0, binding = 0) uniform sampler2D t;
layout(set = 0, binding = 1) buffer B { float v[5]; vec4 g; } b;
void main() {
  b.v[0] = textureLod(t, vec2(0.5, 0.5), 0.0).r;
  b.v[1] = textureLod(t, vec2(0.125, 0.25), 0.0).r;
  b.v[2] = textureLod(t, vec2(0.3, 0.5), 0.0).r;
  b.v[3] = textureLod(t, vec2(1.0, 0.0), 0.0).r;
  b.v[4] = textureLodOffset(t, vec2(0.125, 0.25), 0.0, ivec2(1, 1)).r;
  b.g = textureGather(t, vec2(0.5, 0.5));
}
END
IMAGE img FORMAT R32_SFLOAT DIM_2D WIDTH 4 HEIGHT 2 DATA
0 1 2 3
4 5 6 7
END
SAMPLER lin MAG_FILTER linear MIN_FILTER linear ADDRESS_MODE_U clamp_to_edge ADDRESS_MODE_V clamp_to_edge
BUFFER out DATA_TYPE float SIZE 12 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER img AS combined_image_sampler SAMPLER lin DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 1 1 1
EXPECT out IDX 0 TOLERANCE 0.005 EQ 3.5 0 2.7 3 5
EXPECT out IDX 32 EQ 5 6 2 1
)");
}

TEST_CASE("address modes and border colours", "[simt][image]") {
  // Nearest sampling of a 4x1 image (10 11 12 13) at texel columns -1, 4
  // and -2 under each address mode.
  ExpectPass(R"(#!amber
SHADER compute cs GLSL
#version 450
layout(set = 0, binding = 0) uniform sampler2D t[5];
layout(set = 0, binding = 1) buffer B { float v[15]; } b;
void main() {
  for (int m = 0; m < 5; ++m) {
    b.v[3 * m + 0] = textureLod(t[m], vec2(-0.125, 0.5), 0.0).r;
    b.v[3 * m + 1] = textureLod(t[m], vec2(1.125, 0.5), 0.0).r;
    b.v[3 * m + 2] = textureLod(t[m], vec2(-0.375, 0.5), 0.0).r;
  }
}
END
IMAGE img FORMAT R32_SFLOAT DIM_2D WIDTH 4 HEIGHT 1 DATA
10 11 12 13
END
SAMPLER rep ADDRESS_MODE_U repeat
SAMPLER mir ADDRESS_MODE_U mirrored_repeat
SAMPLER edge ADDRESS_MODE_U clamp_to_edge
SAMPLER border ADDRESS_MODE_U clamp_to_border BORDER_COLOR float_opaque_white
SAMPLER mce ADDRESS_MODE_U mirror_clamp_to_edge
BUFFER out DATA_TYPE float SIZE 15 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER_ARRAY img img img img img AS combined_image_sampler SAMPLER rep mir edge border mce DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 1 1 1
EXPECT out IDX 0 EQ 13 10 12  10 13 11  10 13 10  1 1 1  10 13 11
)");
}

TEST_CASE("unnormalized coordinates", "[simt][image]") {
  ExpectPass(R"(#!amber
SHADER compute cs GLSL
#version 450
layout(set = 0, binding = 0) uniform sampler2D near;
layout(set = 0, binding = 1) uniform sampler2D lin;
layout(set = 0, binding = 2) buffer B { float v[3]; } b;
void main() {
  b.v[0] = textureLod(near, vec2(2.5, 0.5), 0.0).r;
  b.v[1] = textureLod(lin, vec2(1.0, 0.5), 0.0).r;
  b.v[2] = textureLod(lin, vec2(9.0, 0.5), 0.0).r;
}
END
IMAGE img FORMAT R32_SFLOAT DIM_2D WIDTH 4 HEIGHT 1 DATA
10 11 12 13
END
SAMPLER n UNNORMALIZED_COORDS ADDRESS_MODE_U clamp_to_edge ADDRESS_MODE_V clamp_to_edge MAX_LOD 0
SAMPLER l UNNORMALIZED_COORDS MAG_FILTER linear MIN_FILTER linear ADDRESS_MODE_U clamp_to_edge ADDRESS_MODE_V clamp_to_edge MAX_LOD 0
BUFFER out DATA_TYPE float SIZE 3 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER img AS combined_image_sampler SAMPLER n DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER img AS combined_image_sampler SAMPLER l DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 2
END
RUN p 1 1 1
EXPECT out IDX 0 EQ 12 10.5 13
)");
}

TEST_CASE("mip levels: storage writes to a level, LOD selection, queries",
          "[simt][image]") {
  // Level 1 of an 8x4 image is written through a BASE_MIP_LEVEL 1 storage
  // view; level 2 stays zero (the scene only supplies level 0).
  ExpectPass(R"(#!amber
SHADER compute fill GLSL
#version 450
layout(local_size_x = 4, local_size_y = 2) in;
layout(set = 0, binding = 0, r32f) uniform image2D level1;
void main() {
  imageStore(level1, ivec2(gl_LocalInvocationID.xy), vec4(50.0));
}
END
SHADER compute cs GLSL
#version 450
layout(set = 0, binding = 0) uniform sampler2D t;
layout(set = 0, binding = 1) buffer B { float v[8]; vec4 sizes; } b;
void main() {
  vec2 uv = vec2(0.3, 0.3);
  b.v[0] = textureLod(t, uv, 0.0).r;
  b.v[1] = textureLod(t, uv, 1.0).r;
  b.v[2] = textureLod(t, uv, 2.0).r;
  b.v[3] = textureLod(t, uv, 0.4).r;   // nearest mip: level 0
  b.v[4] = textureLod(t, uv, 0.6).r;   // nearest mip: level 1
  b.v[5] = textureGrad(t, uv, vec2(0.1649, 0.0), vec2(0.0)).r;  // lod 0.4
  b.v[6] = textureGrad(t, uv, vec2(0.1895, 0.0), vec2(0.0)).r;  // lod 0.6
  b.v[7] = texelFetch(t, ivec2(9, 0), 0).r;  // out of bounds
  b.sizes = vec4(textureSize(t, 1), textureSize(t, 2).x, textureQueryLevels(t));
}
END
IMAGE img FORMAT R32_SFLOAT DIM_2D WIDTH 8 HEIGHT 4 MIP_LEVELS 3 FILL 7
SAMPLER s MAX_LOD 4
BUFFER out DATA_TYPE float SIZE 12 FILL -1
PIPELINE compute f
  ATTACH fill
  BIND BUFFER img AS storage_image DESCRIPTOR_SET 0 BINDING 0 BASE_MIP_LEVEL 1
END
PIPELINE compute p
  ATTACH cs
  BIND BUFFER img AS combined_image_sampler SAMPLER s DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN f 1 1 1
RUN p 1 1 1
EXPECT out IDX 0 EQ 7 50 0 7 50 7 50 0
EXPECT out IDX 32 EQ 4 2 2 3
)");
}

TEST_CASE("multisample storage image: samples, imageSamples, imageSize",
          "[simt][image]") {
  ExpectPass(R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 4, local_size_y = 2) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2DMS ms;
layout(set = 0, binding = 1) buffer B { uint v[8]; ivec4 info; } b;
void main() {
  ivec2 p = ivec2(gl_LocalInvocationID.xy);
  uint i = gl_LocalInvocationIndex;
  for (int s = 0; s < 4; ++s) imageStore(ms, p, s, uvec4(i * 10u + uint(s)));
  imageStore(ms, p, 4, uvec4(999u));  // invalid sample: dropped
  memoryBarrierImage();
  barrier();
  b.v[i] = imageLoad(ms, p, 3).x + 1000u * imageLoad(ms, p, 1).x;
  if (i == 0u) b.info = ivec4(imageSize(ms), imageSamples(ms), 0);
}
END
IMAGE ms DATA_TYPE uint32 DIM_2D WIDTH 4 HEIGHT 2 SAMPLES 4 FILL 0
BUFFER out DATA_TYPE uint32 SIZE 12 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER ms AS storage_image DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 1 1 1
EXPECT out IDX 0 EQ 1003 11013 21023 31033 41043 51053 61063 71073
EXPECT out IDX 32 EQ 4 2 4 0
EXPECT ms IDX 0 EQ 0 10 20 30 40 50 60 70
)");
}

TEST_CASE("depth compare sampling", "[simt][image]") {
  ExpectPass(R"(#!amber
SHADER compute cs GLSL
#version 450
layout(set = 0, binding = 0) uniform sampler2DShadow near;
layout(set = 0, binding = 1) uniform sampler2DShadow lin;
layout(set = 0, binding = 2) buffer B { float v[4]; } b;
void main() {
  b.v[0] = textureLod(near, vec3(0.25, 0.5, 0.5), 0.0);
  b.v[1] = textureLod(near, vec3(0.75, 0.5, 0.5), 0.0);
  b.v[2] = textureLod(lin, vec3(0.5, 0.5, 0.5), 0.0);
  b.v[3] = textureLod(near, vec3(0.75, 0.5, 0.8), 0.0);
}
END
IMAGE depth FORMAT D32_SFLOAT DIM_2D WIDTH 2 HEIGHT 1 DATA
0.25 0.75
END
SAMPLER n COMPARE on COMPARE_OP less ADDRESS_MODE_U clamp_to_edge
SAMPLER l COMPARE on COMPARE_OP less MAG_FILTER linear MIN_FILTER linear ADDRESS_MODE_U clamp_to_edge
BUFFER out DATA_TYPE float SIZE 4 FILL -1
PIPELINE compute p
  ATTACH cs
  BIND BUFFER depth AS combined_image_sampler SAMPLER n DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER depth AS combined_image_sampler SAMPLER l DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 2
END
RUN p 1 1 1
EXPECT out IDX 0 EQ 0 1 0.5 0
)");
}

TEST_CASE("packed, sRGB and SNORM formats", "[simt][image]") {
  ExpectPass(R"(#!amber
SHADER compute cs GLSL
#version 450
layout(set = 0, binding = 0, r11f_g11f_b10f) uniform image2D small;
layout(set = 0, binding = 1) uniform sampler2D srgb;
layout(set = 0, binding = 2, rgba8_snorm) uniform image2D sn;
layout(set = 0, binding = 3) buffer B { vec4 v[3]; } b;
void main() {
  imageStore(small, ivec2(0), vec4(3.5, 0.25, -1.0, 0.0));
  b.v[0] = imageLoad(small, ivec2(0));
  b.v[1] = texelFetch(srgb, ivec2(0), 0);
  imageStore(sn, ivec2(0), vec4(-1.0, 0.5, -2.0, 1.0));
  b.v[2] = imageLoad(sn, ivec2(0));
}
END
IMAGE small FORMAT B10G11R11_UFLOAT_PACK32 DIM_2D WIDTH 1 HEIGHT 1 FILL 0
IMAGE srgb FORMAT R8G8B8A8_SRGB DIM_2D WIDTH 1 HEIGHT 1 DATA
188 0 255 128
END
IMAGE sn FORMAT R8G8B8A8_SNORM DIM_2D WIDTH 1 HEIGHT 1 FILL 0
SAMPLER s
BUFFER out DATA_TYPE vec4<float> SIZE 3 FILL -1
PIPELINE compute p
  ATTACH cs
  BIND BUFFER small AS storage_image DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER srgb AS combined_image_sampler SAMPLER s DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER sn AS storage_image DESCRIPTOR_SET 0 BINDING 2
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 3
END
RUN p 1 1 1
EXPECT out IDX 0 EQ 3.5 0.25 0 1
EXPECT out IDX 16 TOLERANCE 0.001 EQ 0.5029 0 1 0.50196
EXPECT out IDX 32 TOLERANCE 0.001 EQ -1 0.5039 -1 1
)");
}

TEST_CASE("implicit LOD from quad neighbours", "[simt][image]") {
  // Lanes 4q..4q+3 form a quad (lane & 1 = x, lane & 2 = y). Quad 0 steps
  // one level-0 texel per lane (lambda 0: level 0 = 7), quad 1 two texels
  // (lambda 1: level 1 = 50, written through a BASE_MIP_LEVEL 1 view).
  ExpectPass(R"(#!amber
SHADER compute fill GLSL
#version 450
layout(local_size_x = 4, local_size_y = 2) in;
layout(set = 0, binding = 0, r32f) uniform image2D level1;
void main() {
  imageStore(level1, ivec2(gl_LocalInvocationID.xy), vec4(50.0));
}
END
SHADER compute cs GLSL
#version 450
#extension GL_NV_compute_shader_derivatives : require
layout(local_size_x = 8) in;
layout(derivative_group_linearNV) in;
layout(set = 0, binding = 0) uniform sampler2D t;
layout(set = 0, binding = 1) buffer B { float v[8]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  float step = (i < 4u) ? 1.0 / 8.0 : 2.0 / 8.0;
  vec2 uv = vec2(float(i & 1u), float((i >> 1) & 1u)) * step + 0.05;
  b.v[i] = texture(t, uv).r;
}
END
IMAGE img FORMAT R32_SFLOAT DIM_2D WIDTH 8 HEIGHT 4 MIP_LEVELS 3 FILL 7
SAMPLER s MAX_LOD 4
BUFFER out DATA_TYPE float SIZE 8 FILL -1
PIPELINE compute f
  ATTACH fill
  BIND BUFFER img AS storage_image DESCRIPTOR_SET 0 BINDING 0 BASE_MIP_LEVEL 1
END
PIPELINE compute p
  ATTACH cs
  BIND BUFFER img AS combined_image_sampler SAMPLER s DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN f 1 1 1
RUN p 1 1 1
EXPECT out IDX 0 EQ 7 7 7 7 50 50 50 50
)");
}

namespace {

// An 8x8 draw that samples with implicit LOD after some pixels discard
// (REFERENCE §8.4, §8.5). Level 0 of the texture holds 7 and level 1 holds
// 50: left of x = 4 the coordinates step one texel per pixel (lambda 0),
// right of it two (lambda 1). `uv_line` computes uv before or after the
// discard; every invocation that survives counts itself in an atomic.
// `target_env` (empty: the default, SPIR-V 1.6) decides how glslang
// compiles `discard`: OpKill before SPIR-V 1.6, OpTerminateInvocation from
// 1.6 on.
std::string DiscardThenSample(bool uv_before_discard,
                              const std::string& target_env) {
  const std::string uv = "  vec2 uv = p * s + 0.05;\n";
  return R"(#!amber
SHADER compute fill GLSL
#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, r32f) uniform image2D level1;
void main() {
  imageStore(level1, ivec2(gl_LocalInvocationID.xy), vec4(50.0));
}
END
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL)" +
         (target_env.empty() ? "" : " TARGET_ENV " + target_env) + R"(
#version 450
layout(location = 0) out vec4 c;
layout(set = 0, binding = 0) uniform sampler2D t;
layout(set = 0, binding = 1) buffer B { uint count; } b;
void main() {
  vec2 p = gl_FragCoord.xy - 0.5;
  float s = p.x < 4.0 ? 1.0 / 8.0 : 2.0 / 8.0;
)" + std::string(uv_before_discard ? uv : "") +
         R"(  int ix = int(p.x), iy = int(p.y);
  if ((ix + 2 * iy) % 5 == 0 || (ix >= 6 && iy >= 6)) discard;
)" + std::string(uv_before_discard ? "" : uv) +
         R"(  c = vec4(texture(t, uv).r, 0.0, 0.0, 1.0);
  atomicAdd(b.count, 1u);
}
END
BUFFER pos DATA_TYPE vec4<float> DATA
-1 -1 0 1   1 -1 0 1   1 1 0 1
-1 -1 0 1   1 1 0 1   -1 1 0 1
END
IMAGE img FORMAT R32_SFLOAT DIM_2D WIDTH 8 HEIGHT 8 MIP_LEVELS 3 FILL 7
SAMPLER s MAX_LOD 4
BUFFER counter DATA_TYPE uint32 SIZE 1 FILL 0
IMAGE fb FORMAT R32_SFLOAT DIM_2D WIDTH 8 HEIGHT 8
PIPELINE compute f
  ATTACH fill
  BIND BUFFER img AS storage_image DESCRIPTOR_SET 0 BINDING 0 BASE_MIP_LEVEL 1
END
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  VERTEX_DATA pos LOCATION 0
  FRAMEBUFFER_SIZE 8 8
  BIND BUFFER fb AS color LOCATION 0
  BIND BUFFER img AS combined_image_sampler SAMPLER s DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER counter AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN f 1 1 1
CLEAR_COLOR p 255 0 0 255
CLEAR p
RUN p DRAW_ARRAY AS TRIANGLE_LIST START_IDX 0 COUNT 6
)";
}

bool PixelDiscards(int x, int y) {
  return (x + 2 * y) % 5 == 0 || (x >= 6 && y >= 6);
}

}  // namespace

TEST_CASE("implicit LOD after discard: demoted lanes supply coordinates",
          "[simt][image]") {
  // OpKill with the demote policy: the demoted lanes run on and compute uv,
  // so every surviving pixel gets the LOD of its quad whether uv is
  // computed before or after the discard. Terminated lanes (OpKill with the
  // terminate policy, and OpTerminateInvocation under either policy) keep
  // the registers they had: uv computed before the discard is still there
  // for the neighbours' LOD, uv computed after is not, and Vulkan leaves
  // those quads' LOD undefined (not checked). Stores and atomics of demoted
  // lanes have no effect: the counter sees the surviving invocations only.
  int survivors = 0;
  for (int y = 0; y < 8; ++y) {
    for (int x = 0; x < 8; ++x) survivors += !PixelDiscards(x, y);
  }
  for (const std::string env : {"spv1.3", ""}) {
    for (const bool kill_terminates : {true, false}) {
      const bool terminates = kill_terminates || env.empty();
      for (const bool before : {true, false}) {
        INFO((env.empty() ? "OpTerminateInvocation" : "OpKill")
             << ", kill policy " << (kill_terminates ? "terminate" : "demote")
             << ", uv computed " << (before ? "before" : "after")
             << " the discard");
        const std::string amber = DiscardThenSample(before, env) +
                                  "EXPECT counter IDX 0 EQ " +
                                  std::to_string(survivors) + "\n";
        auto scene =
            warpsim::scene::ParseAmberScript(amber, "discard_sample.amber");
        if (!scene.ok()) FAIL(scene.error().ToString());
        warpsim::runner::RunOptions options;
        options.kill_terminates = kill_terminates;
        const auto report = warpsim::runner::RunScene(*scene, options);
        INFO(Describe(report));
        REQUIRE(report.status == RunStatus::kPass);
        std::vector<float> fb;
        for (const auto& image : report.images) {
          if (image.name != "fb") continue;
          fb.resize(image.bytes.size() / 4);
          std::memcpy(fb.data(), image.bytes.data(), fb.size() * 4);
        }
        REQUIRE(fb.size() == 64);
        int checked = 0;
        for (int y = 0; y < 8; ++y) {
          for (int x = 0; x < 8; ++x) {
            INFO("pixel " << x << ", " << y);
            const float got = fb[y * 8 + x];
            if (PixelDiscards(x, y)) {
              CHECK(got == 1.0f);  // the clear colour (255 -> 1.0)
              continue;
            }
            const int x0 = x & ~1, y0 = y & ~1;
            const bool quad_intact =
                !PixelDiscards(x0, y0) && !PixelDiscards(x0 + 1, y0) &&
                !PixelDiscards(x0, y0 + 1) && !PixelDiscards(x0 + 1, y0 + 1);
            if (terminates && !before && !quad_intact) continue;
            CHECK(got == (x < 4 ? 7.0f : 50.0f));
            ++checked;
          }
        }
        CHECK(checked > 0);
      }
    }
  }
}
