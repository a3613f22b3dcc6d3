// shaders.cpp: the emulator's legalized words, and descriptor reflection.
#include "vulkan_ref/shaders.h"

#include <catch2/catch.hpp>

#include "scene/amber_parser.h"

namespace warpsim::vkref {
namespace {

TEST_CASE("BuildShaderBinary reflects descriptors and push constants",
          "[vkref]") {
  auto scene = scene::ParseSceneText(R"(#!amber
SHADER compute cs GLSL
#version 430
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
layout(set = 1, binding = 2) uniform U { uint x; } u;
layout(set = 0, binding = 3) uniform sampler2DArray tex[2];
layout(set = 0, binding = 4, rgba8) uniform writeonly image3D img;
layout(push_constant) uniform P { uint k; } pc;
void main() {
  b.v[0] = u.x + pc.k + uint(texture(tex[1], vec3(0)).x);
  imageStore(img, ivec3(0), vec4(1));
}
END
PIPELINE compute p
  ATTACH cs
END
)",
                                     "x.amber");
  REQUIRE(scene.ok());
  auto bin = BuildShaderBinary(*scene, scene->pipelines[0].shaders[0], nullptr);
  REQUIRE(bin.ok());
  CHECK(bin->legalized);
  CHECK(bin->uses_push_constants);
  const auto& d = bin->descriptors;
  REQUIRE(d.size() == 4);
  CHECK(d.at({0, 0}).type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
  CHECK(d.at({1, 2}).type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER);
  CHECK(d.at({0, 3}).type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER);
  CHECK(d.at({0, 3}).count == 2);
  CHECK(d.at({0, 3}).view_type == VK_IMAGE_VIEW_TYPE_2D_ARRAY);
  CHECK(d.at({0, 4}).type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE);
  CHECK(d.at({0, 4}).view_type == VK_IMAGE_VIEW_TYPE_3D);
}

TEST_CASE("BuildShaderBinary marks storage buffers declared readonly",
          "[vkref]") {
  auto scene = scene::ParseSceneText(R"(#!amber
SHADER compute cs GLSL
#version 430
layout(set = 0, binding = 0) readonly buffer R { uint v[]; } r;
layout(set = 0, binding = 1) buffer W { uint v[]; } w;
layout(set = 0, binding = 2) buffer M { readonly uint a; uint b; } m;
void main() { w.v[0] = r.v[1] + m.a; m.b = 1u; }
END
PIPELINE compute p
  ATTACH cs
END
)",
                                     "x.amber");
  REQUIRE(scene.ok());
  auto bin = BuildShaderBinary(*scene, scene->pipelines[0].shaders[0], nullptr);
  REQUIRE(bin.ok());
  const auto& d = bin->descriptors;
  REQUIRE(d.size() == 3);
  CHECK(d.at({0, 0}).read_only);
  CHECK_FALSE(d.at({0, 1}).read_only);
  // One member written: the buffer is read back.
  CHECK_FALSE(d.at({0, 2}).read_only);
}

}  // namespace
}  // namespace warpsim::vkref
