// Shader building: from an AmberScript SHADER (or a file on disk) to SPIR-V
// words, validated and legalized, to a Module and a lowered Program.
#ifndef WARPSIM_RUNNER_SHADER_BUILD_H_
#define WARPSIM_RUNNER_SHADER_BUILD_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "runner/shader_cache.h"
#include "scene/scene.h"
#include "simt/lower.h"
#include "simt/program.h"
#include "spirv/compile.h"
#include "spirv/module.h"

namespace warpsim::runner {

// Device extensions whose SPIR-V layout rules change validation.
struct BuildSettings {
  spirv::ValidateOptions validate;
  // spirv-opt flags from SHADER_OPTIMIZATION, run before legalization.
  std::vector<std::string> optimizations;
};

// SPIR-V words of a scene shader (compiling GLSL, assembling SPIRV-ASM,
// decoding SPIRV-HEX / SPIRV-BIN; a PASSTHROUGH vertex shader is Amber's
// pass-through shader compiled from GLSL). HLSL and OpenCL C are
// unsupported.
// With a `cache`, compiles and assemblies are looked up there first.
// `debug_info`: GLSL is compiled with -g (the source text and its lines in
// the module, for viewers; the program is the same). `glsl_defines`:
// "NAME" or "NAME=VALUE", defined for every GLSL shader (as -D).
Result<std::vector<uint32_t>> ShaderWords(
    const scene::Shader& shader, const scene::Scene& scene,
    ShaderCache* cache = nullptr, bool debug_info = false,
    const std::vector<std::string>& glsl_defines = {});

// CompileGlsl / AssembleSpirv through `cache` (nullptr: no cache).
Result<std::vector<uint32_t>> CachedCompileGlsl(
    ShaderCache* cache, std::string_view source, spirv::ShaderStage stage,
    spirv::TargetEnv env, const std::string& file,
    const std::vector<std::string>& compile_options = {});
Result<std::vector<uint32_t>> CachedAssembleSpirv(ShaderCache* cache,
                                                  std::string_view text,
                                                  spirv::TargetEnv env,
                                                  const std::string& file);

// Validation, SHADER_OPTIMIZATION passes and legalization of `words`
// (the steps BuildProgram runs before building the Module), through
// `cache` (nullptr: no cache).
Result<std::vector<uint32_t>> LegalizedWords(ShaderCache* cache,
                                             const std::vector<uint32_t>& words,
                                             spirv::TargetEnv env,
                                             const std::string& file,
                                             const BuildSettings& settings);

// The shader's target environment (TARGET_ENV, or the default per format).
Result<spirv::TargetEnv> ShaderTargetEnv(const scene::Shader& shader,
                                         const scene::Scene* scene = nullptr);

struct BuiltProgram {
  std::shared_ptr<spirv::Module> module;
  simt::Program program;
};

// Validates, legalizes (LegalizedWords), builds the Module and lowers
// `entry`.
Result<BuiltProgram> BuildProgram(const std::vector<uint32_t>& words,
                                  spirv::TargetEnv env, const std::string& file,
                                  const simt::LowerOptions& lower,
                                  const BuildSettings& settings,
                                  ShaderCache* cache = nullptr);

// Words from a file given on the command line: .spv (binary), .spvasm
// (assembly), .comp/.vert/.frag (GLSL by extension).
Result<std::vector<uint32_t>> WordsFromFile(const std::string& path,
                                            spirv::ShaderStage* stage);

}  // namespace warpsim::runner

#endif  // WARPSIM_RUNNER_SHADER_BUILD_H_
