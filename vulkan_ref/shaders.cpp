#include "vulkan_ref/shaders.h"

#include <string_view>

#include "spirv/module.h"

namespace warpsim::vkref {
namespace {

// The validation layout rules the scene's extensions allow (as the
// emulator's runner sets them).
runner::BuildSettings SettingsFor(const scene::Scene& scene,
                                  const scene::ShaderAttachment& att) {
  runner::BuildSettings s;
  s.validate.relax_block_layout = true;
  for (const std::string& e : scene.device_extensions) {
    if (e == "VK_EXT_scalar_block_layout")
      s.validate.scalar_block_layout = true;
    if (e == "VK_KHR_uniform_buffer_standard_layout")
      s.validate.uniform_buffer_standard_layout = true;
    if (e == "VK_KHR_workgroup_memory_explicit_layout")
      s.validate.workgroup_scalar_block_layout = true;
  }
  s.optimizations = att.optimizations;
  return s;
}

uint32_t ArrayLength(const spirv::Module& m, const spirv::Type& t) {
  const spirv::Constant* c = m.constant(t.length_id);
  return c != nullptr && !c->words.empty() ? c->words[0] : 1;
}

VkImageViewType ViewType(const spirv::Type& image) {
  const bool arrayed = image.arrayed != 0;
  switch (image.dim) {
    case spv::Dim::Dim1D:
      return arrayed ? VK_IMAGE_VIEW_TYPE_1D_ARRAY : VK_IMAGE_VIEW_TYPE_1D;
    case spv::Dim::Dim3D:
      return VK_IMAGE_VIEW_TYPE_3D;
    case spv::Dim::Cube:
      return arrayed ? VK_IMAGE_VIEW_TYPE_CUBE_ARRAY : VK_IMAGE_VIEW_TYPE_CUBE;
    default:
      return arrayed ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D;
  }
}

// Reads every descriptor variable's set, binding and type.
void Reflect(const spirv::Module& m, ShaderBinary* out) {
  for (const spirv::Variable& v : m.globals()) {
    if (v.storage == spv::StorageClass::PushConstant) {
      out->uses_push_constants = true;
      continue;
    }
    if (v.storage != spv::StorageClass::Uniform &&
        v.storage != spv::StorageClass::StorageBuffer &&
        v.storage != spv::StorageClass::UniformConstant) {
      continue;
    }
    auto set = m.DecorationValue(v.id, spv::Decoration::DescriptorSet);
    auto binding = m.DecorationValue(v.id, spv::Decoration::Binding);
    if (!set || !binding) continue;
    DescriptorSlot slot;
    uint32_t type_id = m.type(v.type).pointee;
    const spirv::Type* t = &m.type(type_id);
    if (t->kind == spirv::TypeKind::kArray) {
      slot.count = ArrayLength(m, *t);
      type_id = t->element;
      t = &m.type(type_id);
    } else if (t->kind == spirv::TypeKind::kRuntimeArray) {
      type_id = t->element;
      t = &m.type(type_id);
    }
    if (v.storage == spv::StorageClass::StorageBuffer) {
      slot.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    } else if (v.storage == spv::StorageClass::Uniform) {
      slot.type = m.HasDecoration(type_id, spv::Decoration::BufferBlock)
                      ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                      : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    } else if (t->kind == spirv::TypeKind::kSampler) {
      slot.type = VK_DESCRIPTOR_TYPE_SAMPLER;
    } else if (t->kind == spirv::TypeKind::kSampledImage) {
      slot.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
      slot.is_image = true;
      slot.view_type = ViewType(m.type(t->image_type));
    } else if (t->kind == spirv::TypeKind::kImage) {
      const bool storage = t->sampled == 2;
      if (t->dim == spv::Dim::Buffer) {
        slot.type = storage ? VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER
                            : VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
      } else {
        slot.type = storage ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE
                            : VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
        slot.is_image = true;
        slot.view_type = ViewType(*t);
      }
    } else {
      continue;
    }
    if (slot.type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER) {
      bool members = t->kind == spirv::TypeKind::kStruct && !t->members.empty();
      for (uint32_t k = 0; members && k < t->members.size(); ++k) {
        members =
            m.HasMemberDecoration(type_id, k, spv::Decoration::NonWritable);
      }
      slot.read_only =
          members || m.HasDecoration(v.id, spv::Decoration::NonWritable);
    }
    out->descriptors[{*set, *binding}] = slot;
  }
}

}  // namespace

Result<ShaderBinary> BuildShaderBinary(
    const scene::Scene& scene, const scene::ShaderAttachment& att,
    runner::ShaderCache* cache, const std::vector<std::string>& glsl_defines) {
  const scene::Shader* shader = scene.FindShader(att.shader);
  if (shader == nullptr) return InvalidInput("unknown shader " + att.shader);
  auto words = runner::ShaderWords(*shader, scene, cache, false, glsl_defines);
  if (!words.ok()) return words.error();
  auto e = runner::ShaderTargetEnv(*shader, &scene);
  if (!e.ok()) return e.error();
  spirv::TargetEnv env = *e;
  const std::string file = scene.file_path + " (shader " + shader->name + ")";
  const runner::BuildSettings settings = SettingsFor(scene, att);
  auto legal = runner::LegalizedWords(cache, *words, env, file, settings);
  // Assembly without TARGET_ENV is SPIR-V 1.0 (Amber's default); when the
  // validator asks for a newer version, assemble for it (as `warpsim run`).
  const std::string_view kNeeds = "requires SPIR-V version 1.";
  if (!legal.ok() && shader->format == scene::ShaderFormat::kSpirvAsm &&
      shader->target_env.empty()) {
    const std::string& msg = legal.error().message;
    const size_t at = msg.find(kNeeds);
    if (at != std::string::npos && at + kNeeds.size() < msg.size()) {
      const char minor = msg[at + kNeeds.size()];
      auto newer = spirv::ParseTargetEnv(std::string("spv1.") + minor);
      if (minor >= '1' && minor <= '6' && newer.ok()) {
        auto words2 =
            runner::CachedAssembleSpirv(cache, shader->source, *newer, file);
        if (words2.ok()) {
          words = std::move(words2);
          env = *newer;
          legal = runner::LegalizedWords(cache, *words, env, file, settings);
        }
      }
    }
  }
  ShaderBinary out;
  if (legal.ok()) {
    out.words = std::move(*legal);
  } else if (legal.error().kind == ErrorKind::kUnsupported) {
    // Valid SPIR-V the emulator cannot legalize: the device still runs it.
    if (Status s = spirv::ValidateSpirv(*words, env, file, settings.validate);
        !s.ok()) {
      return s.error();
    }
    out.words = std::move(*words);
    out.legalized = false;
  } else {
    return legal.error();
  }
  auto module = spirv::Module::Build(out.words, file);
  if (!module.ok()) {
    // Reflection needs the Module; a module it cannot build (constructs
    // the emulator does not model) is reflected as having no descriptors.
    if (module.error().kind != ErrorKind::kUnsupported) return module.error();
    return out;
  }
  Reflect(*module, &out);
  return out;
}

}  // namespace warpsim::vkref
