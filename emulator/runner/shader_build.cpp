#include "runner/shader_build.h"

#include <fstream>
#include <sstream>

#include "spirv/binary.h"

namespace warpsim::runner {
namespace {

Result<spirv::ShaderStage> ToSpirvStage(scene::ShaderStage stage) {
  switch (stage) {
    case scene::ShaderStage::kVertex:
      return spirv::ShaderStage::kVertex;
    case scene::ShaderStage::kFragment:
      return spirv::ShaderStage::kFragment;
    case scene::ShaderStage::kCompute:
      return spirv::ShaderStage::kCompute;
    case scene::ShaderStage::kGeometry:
      return spirv::ShaderStage::kGeometry;
    case scene::ShaderStage::kTessControl:
      return spirv::ShaderStage::kTessControl;
    case scene::ShaderStage::kTessEvaluation:
      return spirv::ShaderStage::kTessEval;
    case scene::ShaderStage::kMulti:
      break;
  }
  return Unsupported("GLSL shaders of type multi");
}

// Amber's pass-through vertex shader (SHADER vertex NAME PASSTHROUGH): the
// position comes from location 0 unchanged.
constexpr char kPassthroughVertexGlsl[] =
    "#version 430\nlayout(location = 0) in vec4 position;\n"
    "void main() { gl_Position = position; }\n";

}  // namespace

Result<spirv::TargetEnv> ShaderTargetEnv(const scene::Shader& shader,
                                         const scene::Scene* scene) {
  if (shader.passthrough) return spirv::kDefaultGlslTargetEnv;
  if (!shader.target_env.empty()) {
    auto env = spirv::ParseTargetEnv(shader.target_env);
    if (!env.ok()) {
      Diagnostic d = env.error();
      d.pos.file = shader.file_path.empty() ? d.pos.file : shader.file_path;
      if (d.pos.line == 0) d.pos.line = shader.line;
      return d;
    }
    return *env;
  }
  if (shader.format == scene::ShaderFormat::kGlsl)
    return spirv::kDefaultGlslTargetEnv;
  // Assembly without TARGET_ENV: SPIR-V 1.0, or 1.4 when the script asks
  // for a device with VK_KHR_spirv_1_4 (its modules may use 1.4 features).
  if (scene != nullptr) {
    for (const std::string& e : scene->device_extensions) {
      if (e == "VK_KHR_spirv_1_4") return spirv::TargetEnv::kSpv1_4;
    }
  }
  return spirv::TargetEnv::kSpv1_0;
}

Result<std::vector<uint32_t>> CachedCompileGlsl(
    ShaderCache* cache, std::string_view source, spirv::ShaderStage stage,
    spirv::TargetEnv env, const std::string& file,
    const std::vector<std::string>& compile_options) {
  auto compile = [&] {
    return spirv::CompileGlsl(source, stage, env, file, compile_options);
  };
  if (cache == nullptr) return compile();
  ShaderCacheKey key("compile-glsl");
  key.Add("source", source)
      .Add("stage", spirv::ShaderStageName(stage))
      .Add("target_env", spirv::TargetEnvName(env));
  for (const std::string& option : compile_options) key.Add("option", option);
  return cache->GetOrCompute(key, compile);
}

Result<std::vector<uint32_t>> CachedAssembleSpirv(ShaderCache* cache,
                                                  std::string_view text,
                                                  spirv::TargetEnv env,
                                                  const std::string& file) {
  auto assemble = [&] { return spirv::AssembleSpirv(text, env, file); };
  if (cache == nullptr) return assemble();
  ShaderCacheKey key("assemble-spirv");
  key.Add("source", text).Add("target_env", spirv::TargetEnvName(env));
  return cache->GetOrCompute(key, assemble);
}

Result<std::vector<uint32_t>> ShaderWords(
    const scene::Shader& shader, const scene::Scene& scene, ShaderCache* cache,
    bool debug_info, const std::vector<std::string>& glsl_defines) {
  std::vector<std::string> glsl_options;
  if (debug_info) glsl_options.push_back("-g");
  for (const std::string& d : glsl_defines) glsl_options.push_back("-D" + d);
  const std::string file = scene.file_path;
  auto env = ShaderTargetEnv(shader, &scene);
  if (!env.ok()) return env.error();
  auto relocate = [&](Diagnostic d) {
    // Shader diagnostics count lines from the shader's first source line:
    // inline and VIRTUAL_FILE sources sit in the script from source_line on;
    // a SHADER ... FILE source is its own file, whose lines they already are.
    if (d.pos.file.empty() || d.pos.file == shader.name) {
      const bool own_file =
          shader.source_line <= 0 && !shader.file_path.empty();
      d.pos.file = own_file ? shader.file_path : file;
      if (d.pos.line > 0 && shader.source_line > 0)
        d.pos.line += shader.source_line - 1;
    }
    d.message = "shader \"" + shader.name + "\": " + d.message;
    return d;
  };
  if (shader.passthrough) {
    return CachedCompileGlsl(cache, kPassthroughVertexGlsl,
                             spirv::ShaderStage::kVertex, *env,
                             "passthrough.vert");
  }
  switch (shader.format) {
    case scene::ShaderFormat::kGlsl: {
      auto stage = ToSpirvStage(shader.stage);
      if (!stage.ok()) return stage.error();
      auto words = CachedCompileGlsl(cache, shader.source, *stage, *env,
                                     shader.name, glsl_options);
      if (!words.ok()) return relocate(words.error());
      return words;
    }
    case scene::ShaderFormat::kSpirvAsm: {
      auto words = CachedAssembleSpirv(cache, shader.source, *env, shader.name);
      if (!words.ok()) return relocate(words.error());
      return words;
    }
    case scene::ShaderFormat::kSpirvHex: {
      auto words = spirv::ParseSpirvHex(
          shader.source, file, shader.source_line > 0 ? shader.source_line : 1);
      return words;
    }
    case scene::ShaderFormat::kSpirvBin:
      return spirv::WordsFromBytes(
          shader.binary, shader.file_path.empty() ? file : shader.file_path);
    case scene::ShaderFormat::kHlsl:
      return Unsupported("HLSL shaders (shader \"" + shader.name + "\")",
                         SourcePos{file, shader.line});
    case scene::ShaderFormat::kOpenClC:
      return Unsupported("OpenCL C shaders (shader \"" + shader.name + "\")",
                         SourcePos{file, shader.line});
  }
  return InternalError("unknown shader format");
}

namespace {

// The key of a cached step over `words` whose result depends on the target
// environment and the validator's layout options.
ShaderCacheKey ValidatedStepKey(std::string_view step,
                                const std::vector<uint32_t>& words,
                                spirv::TargetEnv env,
                                const BuildSettings& settings) {
  const spirv::ValidateOptions& v = settings.validate;
  ShaderCacheKey key(step);
  key.Add("words", words)
      .Add("target_env", spirv::TargetEnvName(env))
      .AddFlag("relax_block_layout", v.relax_block_layout)
      .AddFlag("scalar_block_layout", v.scalar_block_layout)
      .AddFlag("uniform_buffer_standard_layout",
               v.uniform_buffer_standard_layout)
      .AddFlag("workgroup_scalar_block_layout",
               v.workgroup_scalar_block_layout);
  return key;
}

}  // namespace

Result<std::vector<uint32_t>> LegalizedWords(ShaderCache* cache,
                                             const std::vector<uint32_t>& words,
                                             spirv::TargetEnv env,
                                             const std::string& file,
                                             const BuildSettings& settings) {
  auto legalize = [&]() -> Result<std::vector<uint32_t>> {
    std::vector<uint32_t> input = words;
    if (!settings.optimizations.empty()) {
      // Amber validates before and runs the requested passes on valid input.
      if (Status s = spirv::ValidateSpirv(words, env, file, settings.validate);
          !s.ok()) {
        return s.error();
      }
      auto opt = spirv::OptimizeSpirv(words, env, settings.optimizations, file);
      if (!opt.ok()) return opt.error();
      input = std::move(*opt);
    }
    // LegalizeSpirv validates its input first.
    return spirv::LegalizeSpirv(input, env, file, settings.validate);
  };
  if (cache == nullptr) return legalize();
  ShaderCacheKey key =
      ValidatedStepKey("validate-optimize-legalize", words, env, settings);
  for (const std::string& flag : settings.optimizations) {
    key.Add("optimization", flag);
  }
  key.Add("legalization", spirv::LegalizationRecipe());
  return cache->GetOrCompute(key, legalize);
}

namespace {

Result<std::vector<uint32_t>> OptimizedWords(ShaderCache* cache,
                                             const std::vector<uint32_t>& legal,
                                             spirv::TargetEnv env,
                                             const std::string& file,
                                             const BuildSettings& settings) {
  auto optimize = [&]() {
    return spirv::OptimizeForPerformance(legal, env, file, settings.validate);
  };
  if (cache == nullptr) return optimize();
  ShaderCacheKey key =
      ValidatedStepKey("optimize-for-register-model", legal, env, settings);
  key.Add("recipe", "spirv-opt -O (RegisterPerformancePasses), validate");
  return cache->GetOrCompute(key, optimize);
}

}  // namespace

Result<BuiltProgram> BuildProgram(const std::vector<uint32_t>& words,
                                  spirv::TargetEnv env, const std::string& file,
                                  const simt::LowerOptions& lower,
                                  const BuildSettings& settings,
                                  ShaderCache* cache) {
  auto legal = LegalizedWords(cache, words, env, file, settings);
  if (!legal.ok()) return legal.error();
  auto module = spirv::Module::Build(*legal, file);
  if (!module.ok()) return module.error();
  BuiltProgram built;
  built.module = std::make_shared<spirv::Module>(std::move(*module));
  auto program = simt::LowerProgram(*built.module, lower);
  if (!program.ok()) return program.error();
  built.program = std::move(*program);
  // The register-count model counts the registers of the optimized module
  // where spirv-opt -O and the lowering both succeed (the executor runs the
  // module as written).
  auto optimized = OptimizedWords(cache, *legal, env, file, settings);
  if (optimized.ok()) {
    auto opt_module = spirv::Module::Build(*optimized, file);
    if (opt_module.ok()) {
      simt::LowerOptions count_only = lower;
      count_only.schedule = false;  // (the count ignores the order)
      auto opt_program = simt::LowerProgram(*opt_module, count_only);
      if (opt_program.ok()) {
        built.program.model_regs = opt_program->model_regs;
      }
    }
  }
  return built;
}

Result<std::vector<uint32_t>> WordsFromFile(const std::string& path,
                                            spirv::ShaderStage* stage) {
  auto ends_with = [&](const std::string& suffix) {
    return path.size() >= suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) ==
               0;
  };
  if (ends_with(".spv")) return spirv::ReadSpvFile(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidInput("cannot open file", SourcePos{path});
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  if (ends_with(".spvasm")) {
    return spirv::AssembleSpirv(text, spirv::TargetEnv::kSpv1_6, path);
  }
  spirv::ShaderStage st = spirv::ShaderStage::kCompute;
  if (ends_with(".vert")) {
    st = spirv::ShaderStage::kVertex;
  } else if (ends_with(".frag")) {
    st = spirv::ShaderStage::kFragment;
  } else if (!ends_with(".comp")) {
    return InvalidInput(
        "unknown shader file type (expected .spv, .spvasm, .comp, .vert, .frag "
        "or .amber)",
        SourcePos{path});
  }
  if (stage) *stage = st;
  return spirv::CompileGlsl(text, st, spirv::kDefaultGlslTargetEnv, path);
}

}  // namespace warpsim::runner
