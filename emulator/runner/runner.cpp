#include "runner/runner.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "pipeline/compute.h"
#include "runner/image_binding.h"
#include "runner/shader_build.h"
#include "scene/amber_parser.h"
#include "scene/expectations.h"

namespace warpsim::runner {
namespace {

// Device features warpsim's executor provides (Amber's DEVICE_FEATURE
// names). Anything else is reported as unsupported by name.
const std::set<std::string>& SupportedFeatures() {
  static const std::set<std::string> kFeatures = {
      "robustBufferAccess",
      "shaderStorageImageMultisample",
      "shaderImageInt64Atomics",
      "ShaderImageAtomicInt64Features.shaderImageInt64Atomics",
      "shaderFloat64",
      "shaderInt64",
      "shaderInt16",
      "fragmentStoresAndAtomics",
      "vertexPipelineStoresAndAtomics",
      "Float16Int8Features.shaderFloat16",
      "Float16Int8Features.shaderInt8",
      "Storage16BitFeatures.storageBuffer16BitAccess",
      "Storage16BitFeatures.uniformAndStorageBuffer16BitAccess",
      "Storage16BitFeatures.storagePushConstant16",
      "Storage8BitFeatures.storageBuffer8BitAccess",
      "Storage8BitFeatures.uniformAndStorageBuffer8BitAccess",
      "Storage8BitFeatures.storagePushConstant8",
      "VariablePointerFeatures.variablePointers",
      "VariablePointerFeatures.variablePointersStorageBuffer",
      "VulkanMemoryModelFeatures.vulkanMemoryModel",
      "VulkanMemoryModelFeatures.vulkanMemoryModelDeviceScope",
      "ZeroInitializeWorkgroupMemoryFeatures."
      "shaderZeroInitializeWorkgroupMemory",
      "SubgroupSizeControl.subgroupSizeControl",
      "SubgroupSizeControl.computeFullSubgroups",
      "ShaderTerminateInvocationFeatures.shaderTerminateInvocation",
      "ShaderDemoteToHelperInvocationFeatures.shaderDemoteToHelperInvocation",
      "WorkgroupMemoryExplicitLayoutFeatures.workgroupMemoryExplicitLayout",
      "WorkgroupMemoryExplicitLayoutFeatures."
      "workgroupMemoryExplicitLayoutScalarBlockLayout",
      "WorkgroupMemoryExplicitLayoutFeatures."
      "workgroupMemoryExplicitLayout8BitAccess",
      "WorkgroupMemoryExplicitLayoutFeatures."
      "workgroupMemoryExplicitLayout16BitAccess",
      "ShaderSubgroupExtendedTypesFeatures.shaderSubgroupExtendedTypes",
      "ShaderAtomicInt64Features.shaderBufferInt64Atomics",
      "ShaderAtomicInt64Features.shaderSharedInt64Atomics",
      "ScalarBlockLayoutFeatures.scalarBlockLayout",
      "UniformBufferStandardLayoutFeatures.uniformBufferStandardLayout",
  };
  return kFeatures;
}

const std::set<std::string>& SupportedExtensions() {
  static const std::set<std::string> kExtensions = {
      "VK_KHR_storage_buffer_storage_class",
      "VK_KHR_variable_pointers",
      "VK_KHR_16bit_storage",
      "VK_KHR_8bit_storage",
      "VK_KHR_shader_float16_int8",
      "VK_KHR_spirv_1_4",
      "VK_KHR_shader_float_controls",
      "VK_KHR_shader_terminate_invocation",
      "VK_EXT_shader_demote_to_helper_invocation",
      "VK_KHR_workgroup_memory_explicit_layout",
      "VK_KHR_vulkan_memory_model",
      "VK_KHR_zero_initialize_workgroup_memory",
      "VK_KHR_relaxed_block_layout",
      "VK_EXT_scalar_block_layout",
      "VK_KHR_uniform_buffer_standard_layout",
      "VK_KHR_shader_subgroup_extended_types",
      "VK_EXT_subgroup_size_control",
      "VK_KHR_shader_clock",
      "VK_KHR_shader_non_semantic_info",
      "VK_GOOGLE_hlsl_functionality1",
      "VK_GOOGLE_user_type",
      "VK_KHR_shader_atomic_int64",
      "VK_KHR_maintenance1",
      "VK_KHR_maintenance2",
      "VK_KHR_maintenance3",
      "VK_KHR_maintenance4",
      "VK_KHR_get_physical_device_properties2",
      "VK_KHR_shader_draw_parameters",
      "VK_EXT_descriptor_indexing",
  };
  return kExtensions;
}

// Executes one scene (see runner.h).
class SceneRunner {
 public:
  SceneRunner(const scene::Scene& scene, const RunOptions& options,
              RunReport* report)
      : scene_(scene), options_(options), report_(report) {}

  Status Run() {
    for (const std::string& f : scene_.device_features) {
      if (!SupportedFeatures().count(f))
        return Unsupported("device feature " + f);
    }
    for (const std::string& e : scene_.device_extensions) {
      if (!SupportedExtensions().count(e))
        return Unsupported("device extension " + e);
      if (e == "VK_EXT_scalar_block_layout") {
        settings_.validate.scalar_block_layout = true;
      }
      if (e == "VK_KHR_uniform_buffer_standard_layout") {
        settings_.validate.uniform_buffer_standard_layout = true;
      }
      if (e == "VK_KHR_workgroup_memory_explicit_layout") {
        settings_.validate.workgroup_scalar_block_layout = true;
      }
    }
    settings_.validate.relax_block_layout = true;
    for (const scene::Buffer& b : scene_.buffers) {
      // Images get room for every mip level and sample up front, so binding
      // never reallocates a buffer another binding already points into.
      std::vector<uint8_t>& bytes = buffers_[b.name] = b.bytes;
      if (b.dim != scene::ImageDim::kNone || b.mip_levels > 1 ||
          b.samples > 1) {
        bytes.resize(std::max<uint64_t>(bytes.size(), ImageStorageBytes(b)));
      }
    }
    return RunCommands(scene_.commands);
  }

 private:
  Status RunCommands(const std::vector<scene::Command>& commands) {
    for (const scene::Command& cmd : commands) {
      Status s = std::visit([&](const auto& c) { return Execute(c, cmd.line); },
                            cmd.data);
      if (!s.ok()) {
        if (s.error().pos.file.empty()) s.error().pos.file = scene_.file_path;
        if (s.error().pos.line == 0 && s.error().pos.word < 0)
          s.error().pos.line = cmd.line;
        return s;
      }
    }
    return {};
  }

  Status Execute(const scene::RunCommand& run, int line) {
    const scene::Pipeline* p = scene_.FindPipeline(run.pipeline);
    if (p == nullptr) return InvalidInput("unknown pipeline " + run.pipeline);
    if (!std::holds_alternative<scene::RunCompute>(run.draw)) {
      return Unsupported(
          "graphics pipelines (RUN " + run.pipeline +
          " DRAW_*): vertex and fragment stages are not implemented yet");
    }
    if (p->type != scene::PipelineType::kCompute) {
      return InvalidInput("RUN with workgroup counts needs a compute pipeline");
    }
    auto program = GetProgram(*p);
    if (!program.ok()) return program.error();
    const auto& rc = std::get<scene::RunCompute>(run.draw);
    const uint32_t groups[3] = {rc.x, rc.y, rc.z};
    const uint64_t total = static_cast<uint64_t>(rc.x) * rc.y * rc.z;
    if (total > (1ull << 31)) {
      return InvalidInput("dispatch of " + std::to_string(total) +
                          " workgroups exceeds the limit of 2^31");
    }
    std::vector<simt::MemRegion> regions;
    std::vector<simt::ImageDesc> images;
    if (Status s = BindResources(*p, **program, &regions, &images); !s.ok()) {
      return s;
    }
    pipeline::ComputeLimits limits;
    limits.warp_width = options_.warp_width;
    limits.max_warp_instructions = options_.max_warp_instructions;
    auto stats = pipeline::DispatchCompute((*program)->program, groups,
                                           std::move(regions),
                                           std::move(images), limits);
    if (!stats.ok()) return stats.error();
    report_->stats.warp_instructions += stats->warp_instructions;
    report_->stats.lane_instructions += stats->lane_instructions;
    report_->stats.workgroups += stats->workgroups;
    report_->stats.warps += stats->warps;
    report_->stats.dispatches += 1;
    (void)line;
    return {};
  }

  Status Execute(const scene::ClearColorCommand&, int) {
    return Unsupported("CLEAR_COLOR (graphics pipelines)");
  }
  Status Execute(const scene::ClearDepthCommand&, int) {
    return Unsupported("CLEAR_DEPTH (graphics pipelines)");
  }
  Status Execute(const scene::ClearStencilCommand&, int) {
    return Unsupported("CLEAR_STENCIL (graphics pipelines)");
  }
  Status Execute(const scene::ClearCommand&, int) {
    return Unsupported("CLEAR (graphics pipelines)");
  }
  Status Execute(const scene::CopyCommand& copy, int) {
    auto from = buffers_.find(copy.from);
    if (from == buffers_.end())
      return InvalidInput("unknown buffer " + copy.from);
    buffers_[copy.to] = from->second;
    return {};
  }
  Status Execute(const scene::RepeatCommand& repeat, int) {
    for (uint32_t i = 0; i < repeat.count; ++i) {
      if (Status s = RunCommands(repeat.commands); !s.ok()) return s;
    }
    return {};
  }
  Status Execute(const scene::ExpectCommand& expect, int line) {
    const scene::Buffer* buf = scene_.FindBuffer(expect.buffer);
    if (buf == nullptr) return InvalidInput("unknown buffer " + expect.buffer);
    const scene::Buffer* other = expect.other_buffer.empty()
                                     ? nullptr
                                     : scene_.FindBuffer(expect.other_buffer);
    std::span<const uint8_t> other_bytes;
    if (other != nullptr) other_bytes = buffers_[other->name];
    const scene::ExpectationResult r = scene::EvaluateExpect(
        expect, *buf, buffers_[buf->name], other, other_bytes);
    report_->expectations.push_back({line, r.passed, r.message});
    return {};
  }

  // Compiles and lowers a compute pipeline's shader (cached).
  Result<const BuiltProgram*> GetProgram(const scene::Pipeline& p) {
    auto it = programs_.find(p.name);
    if (it != programs_.end()) return &it->second;
    if (p.shaders.empty())
      return InvalidInput("pipeline " + p.name + " has no shader");
    const scene::ShaderAttachment& att = p.shaders[0];
    const scene::Shader* shader = scene_.FindShader(att.shader);
    if (shader == nullptr) return InvalidInput("unknown shader " + att.shader);
    auto words = ShaderWords(*shader, scene_);
    if (!words.ok()) return words.error();
    auto env = ShaderTargetEnv(*shader, &scene_);
    if (!env.ok()) return env.error();
    simt::LowerOptions lower;
    lower.entry_point = att.entry_point;
    lower.model = spv::ExecutionModel::GLCompute;
    lower.warp_width = options_.warp_width;
    for (const auto& spec : att.specializations)
      lower.spec_values[spec.id] = spec.bits;
    BuildSettings settings = settings_;
    settings.optimizations = att.optimizations;
    auto built = BuildProgram(
        *words, *env, scene_.file_path + " (shader " + shader->name + ")",
        lower, settings);
    if (!built.ok()) return built.error();
    PipelineReport pr;
    pr.name = p.name;
    pr.entry_point = att.entry_point;
    pr.registers_per_thread = built->program.num_regs;
    pr.instructions = static_cast<uint32_t>(built->program.code.size());
    report_->pipelines.push_back(pr);
    auto [pos, _] = programs_.emplace(p.name, std::move(*built));
    return &pos->second;
  }

  // Points each resource of the program at the buffer bound to it.
  Status BindResources(const scene::Pipeline& p, const BuiltProgram& built,
                       std::vector<simt::MemRegion>* regions,
                       std::vector<simt::ImageDesc>* images) {
    const simt::Program& program = built.program;
    regions->assign(program.num_regions, simt::MemRegion{});
    images->assign(program.num_regions, simt::ImageDesc{});
    for (const simt::ResourceSlot& res : program.resources) {
      const scene::Binding* found = nullptr;
      for (const scene::Binding& b : p.bindings) {
        if (res.is_push_constant) {
          if (b.kind == scene::BindingKind::kPushConstant) found = &b;
        } else if (b.has_descriptor && b.descriptor_set == res.set &&
                   b.binding == res.binding) {
          found = &b;
        }
      }
      if (found == nullptr) continue;  // unbound: reads give 0, writes drop
      if (res.is_image) {
        for (uint32_t k = 0; k < res.array_size; ++k) {
          Status s = BindImage(scene_, *found, k, res.type_id, *built.module,
                               &buffers_, &(*images)[res.region + k]);
          if (!s.ok()) return s;
          // Image atomics reach texels through pointers into this region.
          const simt::ImageDesc& d = (*images)[res.region + k];
          (*regions)[res.region + k] = {d.data, d.size, d.writable};
        }
        continue;
      }
      switch (found->kind) {
        case scene::BindingKind::kStorage:
        case scene::BindingKind::kUniform:
        case scene::BindingKind::kStorageDynamic:
        case scene::BindingKind::kUniformDynamic:
        case scene::BindingKind::kPushConstant:
          break;
        default:
          return Unsupported(std::string("binding kind ") +
                                 scene::BindingKindName(found->kind) +
                                 " for a buffer block",
                             SourcePos{scene_.file_path, found->line});
      }
      for (uint32_t k = 0; k < res.array_size && k < found->buffers.size();
           ++k) {
        std::vector<uint8_t>& bytes = buffers_[found->buffers[k]];
        uint64_t offset = 0;
        uint64_t size = bytes.size();
        if (k < found->descriptor_offsets.size())
          offset = found->descriptor_offsets[k];
        if (k < found->dynamic_offsets.size())
          offset += found->dynamic_offsets[k];
        offset = std::min<uint64_t>(offset, size);
        size -= offset;
        if (k < found->descriptor_ranges.size() &&
            found->descriptor_ranges[k] != ~0ull) {
          size = std::min<uint64_t>(size, found->descriptor_ranges[k]);
        }
        (*regions)[res.region + k] = {
            bytes.data() + offset, size,
            res.storage != spv::StorageClass::Uniform && !res.is_push_constant};
      }
    }
    return {};
  }

  const scene::Scene& scene_;
  RunOptions options_;
  RunReport* report_;
  BuildSettings settings_;
  std::map<std::string, std::vector<uint8_t>> buffers_;
  std::map<std::string, BuiltProgram> programs_;
};

}  // namespace

const char* RunStatusName(RunStatus s) {
  switch (s) {
    case RunStatus::kPass:
      return "pass";
    case RunStatus::kFail:
      return "fail";
    case RunStatus::kInvalid:
      return "invalid";
    case RunStatus::kUnsupported:
      return "unsupported";
  }
  return "?";
}

int ExitCodeFor(RunStatus status) {
  switch (status) {
    case RunStatus::kPass:
      return 0;
    case RunStatus::kFail:
      return 1;
    case RunStatus::kInvalid:
      return 2;
    case RunStatus::kUnsupported:
      return 3;
  }
  return 2;
}

RunReport RunScene(const scene::Scene& scene, const RunOptions& options) {
  RunReport report;
  report.file = scene.file_path;
  const auto start = std::chrono::steady_clock::now();
  SceneRunner runner(scene, options, &report);
  Status s = runner.Run();
  report.stats.host_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!s.ok()) {
    report.status = s.error().kind == ErrorKind::kUnsupported
                        ? RunStatus::kUnsupported
                        : RunStatus::kInvalid;
    report.diagnostic = s.error();
    return report;
  }
  report.status = RunStatus::kPass;
  for (const auto& e : report.expectations) {
    if (!e.passed) report.status = RunStatus::kFail;
  }
  return report;
}

RunReport RunAmberFile(const std::string& path, const RunOptions& options) {
  auto scene = scene::ParseAmberFile(path);
  if (!scene.ok()) {
    RunReport report;
    report.file = path;
    report.status = scene.error().kind == ErrorKind::kUnsupported
                        ? RunStatus::kUnsupported
                        : RunStatus::kInvalid;
    report.diagnostic = scene.error();
    return report;
  }
  return RunScene(*scene, options);
}

std::string ReportToJson(const RunReport& report) {
  nlohmann::json j;
  j["file"] = report.file;
  j["result"] = RunStatusName(report.status);
  j["exit_code"] = ExitCodeFor(report.status);
  nlohmann::json exps = nlohmann::json::array();
  for (const auto& e : report.expectations) {
    exps.push_back(
        {{"line", e.line}, {"passed", e.passed}, {"message", e.message}});
  }
  j["expectations"] = exps;
  nlohmann::json pipes = nlohmann::json::array();
  for (const auto& p : report.pipelines) {
    pipes.push_back({{"name", p.name},
                     {"entry_point", p.entry_point},
                     {"registers_per_thread", p.registers_per_thread},
                     {"instructions", p.instructions}});
  }
  j["pipelines"] = pipes;
  j["stats"] = {{"warp_instructions", report.stats.warp_instructions},
                {"lane_instructions", report.stats.lane_instructions},
                {"dispatches", report.stats.dispatches},
                {"workgroups", report.stats.workgroups},
                {"warps", report.stats.warps},
                {"host_seconds", report.stats.host_seconds}};
  if (report.diagnostic) {
    j["diagnostic"] = {
        {"kind", report.status == RunStatus::kUnsupported ? "unsupported"
                                                          : "invalid_input"},
        {"file", report.diagnostic->pos.file},
        {"line", report.diagnostic->pos.line},
        {"word", report.diagnostic->pos.word},
        {"opcode", report.diagnostic->pos.opcode},
        {"message", report.diagnostic->message},
        {"text", report.diagnostic->ToString()}};
  }
  return j.dump(2) + "\n";
}

}  // namespace warpsim::runner
