// Turning shader sources into valid, legalized SPIR-V words.
//
//   .spvasm text ──AssembleSpirv──┐
//   GLSL source  ──CompileGlsl────┼──► ValidateSpirv ──► LegalizeSpirv ──►
//   Module .spv / hex   ──binary.h───────┘
//
// The work is done by SPIRV-Tools (assembler, validator, optimizer) and the
// glslang library; this file picks their options, and turns their messages
// into Diagnostics that name the file and line (sources) or the SPIR-V word
// offset and opcode (binaries) and the rule that was broken.
#ifndef WARPSIM_SPIRV_COMPILE_H_
#define WARPSIM_SPIRV_COMPILE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostic.h"

namespace warpsim::spirv {

// The environment SPIR-V is assembled, compiled and validated for. Names
// follow Amber's TARGET_ENV strings (and SPIRV-Tools' --target-env).
enum class TargetEnv {
  kSpv1_0,  // "spv1.0": universal SPIR-V 1.0 (Amber's default)
  kSpv1_1,
  kSpv1_2,
  kSpv1_3,
  kSpv1_4,
  kSpv1_5,
  kSpv1_6,
  kVulkan1_0,        // "vulkan1.0": Vulkan 1.0 rules, SPIR-V 1.0
  kVulkan1_1,        // SPIR-V up to 1.3
  kVulkan1_1Spv1_4,  // "vulkan1.1spv1.4"
  kVulkan1_2,        // SPIR-V up to 1.5
  kVulkan1_3,        // SPIR-V up to 1.6
};

// GLSL compiles default to Vulkan 1.3 / SPIR-V 1.6.
inline constexpr TargetEnv kDefaultGlslTargetEnv = TargetEnv::kVulkan1_3;

// Parses "spv1.3", "vulkan1.1", "vulkan1.1spv1.4", ... (as in Amber's
// TARGET_ENV); unknown names are invalid input.
Result<TargetEnv> ParseTargetEnv(std::string_view name);
std::string_view TargetEnvName(TargetEnv env);
// The highest SPIR-V version the environment accepts, as (major << 16 |
// minor << 8), the encoding of the module header's version word.
uint32_t MaxSpirvVersion(TargetEnv env);

enum class ShaderStage {
  kVertex,
  kFragment,
  kCompute,
  kGeometry,
  kTessControl,
  kTessEval
};
std::string_view ShaderStageName(ShaderStage stage);  // "vertex", ...

// Assembles SPIR-V assembly text (the .spvasm / Amber SPIRV-ASM format).
// Errors name `file` and the 1-based line of `text`.
Result<std::vector<uint32_t>> AssembleSpirv(std::string_view text,
                                            TargetEnv env,
                                            const std::string& file);

// Compiles GLSL for Vulkan with glslang (entry point "main"). Errors name
// `file` and the line from glslang's log. `compile_options` accepts
// "-DNAME", "-DNAME=VALUE" and "-g" (debug information: the source text in
// OpSource and OpLine before the instructions of each line, which the
// executor ignores); any other option is reported as unsupported.
Result<std::vector<uint32_t>> CompileGlsl(
    std::string_view source, ShaderStage stage, TargetEnv env,
    const std::string& file,
    const std::vector<std::string>& compile_options = {});

// Layout rules to validate buffer blocks with. The defaults are what Amber
// (and Vulkan without optional features) uses; Vulkan 1.1+ environments
// relax block layout on their own (VK_KHR_relaxed_block_layout is core).
struct ValidateOptions {
  bool relax_block_layout = false;
  bool scalar_block_layout = false;             // VK_EXT_scalar_block_layout
  bool uniform_buffer_standard_layout = false;  // VK_KHR_uniform_buffer_...
  bool workgroup_scalar_block_layout = false;
};

// Validates with the SPIRV-Tools validator. The diagnostic carries the word
// offset and opcode of the offending instruction and the validator's rule
// text (with its VUID when it gives one).
Status ValidateSpirv(std::span<const uint32_t> words, TargetEnv env,
                     const std::string& file,
                     const ValidateOptions& options = {});

// Rewrites a valid module into the form the executor wants: every function
// call inlined into its entry point, function-local variables promoted to
// SSA values, structured control flow and loops kept as written, spec
// constants left unspecialized, and OpKill / OpTerminateInvocation /
// OpDemoteToHelperInvocation untouched. Validates the result. A call that
// cannot be inlined is reported as unsupported.
// Runs spirv-opt passes named by command-line flags (Amber's
// SHADER_OPTIMIZATION block, e.g. "--graphics-robust-access"), before
// legalization. Unknown flags are invalid input.
Result<std::vector<uint32_t>> OptimizeSpirv(
    std::span<const uint32_t> words, TargetEnv env,
    const std::vector<std::string>& flags, const std::string& file);

Result<std::vector<uint32_t>> LegalizeSpirv(
    std::span<const uint32_t> words, TargetEnv env, const std::string& file,
    const ValidateOptions& options = {});

// spirv-opt's optimizing recipe (-O: inlining, scalar replacement, constant
// propagation, dead-code and dead-branch elimination, if-conversion,
// redundancy elimination, ...) on a legalized module, validated. Not for the
// executor, whose control flow must stay as written: the register-count
// model (simt/regalloc_model.cpp) counts what a compiler that optimizes, as
// NVIDIA's does, keeps live.
Result<std::vector<uint32_t>> OptimizeForPerformance(
    std::span<const uint32_t> words, TargetEnv env, const std::string& file,
    const ValidateOptions& options = {});

// The versions of the libraries that compile and legalize, as they report
// them ("glslang 12.0.0; SPIRV-Tools v2023.1 ..."): part of the compiled-
// shader cache key, so a library upgrade recompiles.
std::string ToolVersions();

// The legalization passes LegalizeSpirv runs, by name, in order: part of the
// cache key, so a change to the recipe recompiles.
std::string LegalizationRecipe();

}  // namespace warpsim::spirv

#endif  // WARPSIM_SPIRV_COMPILE_H_
