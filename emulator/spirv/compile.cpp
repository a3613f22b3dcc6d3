#include "spirv/compile.h"

#include <glslang/MachineIndependent/localintermediate.h>
#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <array>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <utility>

#include "spirv-tools/libspirv.hpp"
#include "spirv-tools/optimizer.hpp"
#include "spirv/binary.h"
#include "spirv/grammar.h"

namespace warpsim::spirv {
namespace {

SourcePos FilePos(const std::string& file, int line = 0) {
  SourcePos pos;
  pos.file = file;
  pos.line = line;
  return pos;
}

struct TargetEnvEntry {
  TargetEnv env;
  std::string_view name;
  spv_target_env spv_env;
  uint32_t max_version;  // header encoding
  glslang::EShTargetClientVersion vulkan;
  glslang::EShTargetLanguageVersion spirv;
};

constexpr uint32_t Version(uint32_t minor) { return (1u << 16) | minor << 8; }

// SPIR-V-only environments compile GLSL for the oldest Vulkan that accepts
// that SPIR-V version (SPIR-V 1.4 needs Vulkan 1.2 in glslang's rules).
constexpr std::array<TargetEnvEntry, 12> kTargetEnvs = {{
    {TargetEnv::kSpv1_0, "spv1.0", SPV_ENV_UNIVERSAL_1_0, Version(0),
     glslang::EShTargetVulkan_1_0, glslang::EShTargetSpv_1_0},
    {TargetEnv::kSpv1_1, "spv1.1", SPV_ENV_UNIVERSAL_1_1, Version(1),
     glslang::EShTargetVulkan_1_1, glslang::EShTargetSpv_1_1},
    {TargetEnv::kSpv1_2, "spv1.2", SPV_ENV_UNIVERSAL_1_2, Version(2),
     glslang::EShTargetVulkan_1_1, glslang::EShTargetSpv_1_2},
    {TargetEnv::kSpv1_3, "spv1.3", SPV_ENV_UNIVERSAL_1_3, Version(3),
     glslang::EShTargetVulkan_1_1, glslang::EShTargetSpv_1_3},
    {TargetEnv::kSpv1_4, "spv1.4", SPV_ENV_UNIVERSAL_1_4, Version(4),
     glslang::EShTargetVulkan_1_2, glslang::EShTargetSpv_1_4},
    {TargetEnv::kSpv1_5, "spv1.5", SPV_ENV_UNIVERSAL_1_5, Version(5),
     glslang::EShTargetVulkan_1_2, glslang::EShTargetSpv_1_5},
    {TargetEnv::kSpv1_6, "spv1.6", SPV_ENV_UNIVERSAL_1_6, Version(6),
     glslang::EShTargetVulkan_1_3, glslang::EShTargetSpv_1_6},
    {TargetEnv::kVulkan1_0, "vulkan1.0", SPV_ENV_VULKAN_1_0, Version(0),
     glslang::EShTargetVulkan_1_0, glslang::EShTargetSpv_1_0},
    {TargetEnv::kVulkan1_1, "vulkan1.1", SPV_ENV_VULKAN_1_1, Version(3),
     glslang::EShTargetVulkan_1_1, glslang::EShTargetSpv_1_3},
    {TargetEnv::kVulkan1_1Spv1_4, "vulkan1.1spv1.4",
     SPV_ENV_VULKAN_1_1_SPIRV_1_4, Version(4), glslang::EShTargetVulkan_1_1,
     glslang::EShTargetSpv_1_4},
    {TargetEnv::kVulkan1_2, "vulkan1.2", SPV_ENV_VULKAN_1_2, Version(5),
     glslang::EShTargetVulkan_1_2, glslang::EShTargetSpv_1_5},
    {TargetEnv::kVulkan1_3, "vulkan1.3", SPV_ENV_VULKAN_1_3, Version(6),
     glslang::EShTargetVulkan_1_3, glslang::EShTargetSpv_1_6},
}};

const TargetEnvEntry& Entry(TargetEnv env) {
  for (const TargetEnvEntry& e : kTargetEnvs) {
    if (e.env == env) return e;
  }
  return kTargetEnvs.back();  // unreachable: every enumerator is listed
}

// Collects SPIRV-Tools messages; only the first error is kept as the
// diagnostic (later ones are usually consequences of it).
struct ToolMessages {
  bool have_error = false;
  spv_position_t position{};
  std::string message;
  int error_count = 0;

  void Consume(spv_message_level_t level, const spv_position_t& pos,
               const char* text) {
    if (level != SPV_MSG_FATAL && level != SPV_MSG_INTERNAL_ERROR &&
        level != SPV_MSG_ERROR) {
      return;
    }
    ++error_count;
    if (have_error) return;
    have_error = true;
    position = pos;
    message = text ? text : "";
  }
  spvtools::MessageConsumer Consumer() {
    return [this](spv_message_level_t level, const char*,
                  const spv_position_t& pos,
                  const char* text) { Consume(level, pos, text); };
  }
};

std::string Trim(std::string_view s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\n')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\n'))
    --e;
  return std::string(s.substr(b, e - b));
}

// The validator appends the disassembled offending instruction on its own
// line ("  %7 = OpFAdd %float %5 %6"); fold the lines into one.
std::string OneLine(std::string_view text) {
  std::string out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::string t = Trim(line);
    if (t.empty()) continue;
    if (!out.empty()) out += " | ";
    out += t;
  }
  return out;
}

// Where a validator message points. SPIRV-Tools reports structural (binary
// parse) errors at a word offset but semantic errors at the 1-based ordinal
// of the instruction; the message's disassembly line tells us which: it names
// the opcode, and we pick the reading whose instruction has that opcode.
SourcePos ValidatorPos(std::span<const uint32_t> words,
                       const spv_position_t& position,
                       const std::string& message, const std::string& file) {
  SourcePos pos;
  pos.file = file;
  Result<SplitModule> split = SplitInstructions(words, file);
  if (!split) {
    pos.word = static_cast<int64_t>(position.index);
    return pos;
  }
  const std::vector<Instruction>& insts = split->instructions;
  const size_t index = position.index;
  if (index == 0) return pos;  // module-level rule: no instruction to name
  const Instruction* by_word = nullptr;
  for (const Instruction& inst : insts) {
    if (inst.word_offset <= index &&
        index < inst.word_offset + inst.word_count()) {
      by_word = &inst;
      break;
    }
  }
  const Instruction* by_ordinal =
      (index >= 1 && index <= insts.size()) ? &insts[index - 1] : nullptr;
  auto mentions = [&message](const Instruction* inst) {
    if (inst == nullptr) return false;
    const std::string name(OpcodeName(inst->opcode));
    const size_t at = message.find(name);
    // Whole-word match so that "OpLoad" does not match "OpLoadFoo".
    return at != std::string::npos && (at + name.size() == message.size() ||
                                       !std::isalnum(static_cast<unsigned char>(
                                           message[at + name.size()])));
  };
  const Instruction* chosen = nullptr;
  if (mentions(by_ordinal)) {
    chosen = by_ordinal;
  } else if (mentions(by_word)) {
    chosen = by_word;
  } else if (by_ordinal != nullptr && message.find("\n") != std::string::npos) {
    chosen = by_ordinal;  // a message with a disassembly line is semantic
  } else {
    chosen = by_word;
  }
  if (chosen != nullptr) {
    pos.word = chosen->word_offset;
    pos.opcode = std::string(OpcodeName(chosen->opcode));
  } else {
    pos.word = static_cast<int64_t>(position.index);
  }
  return pos;
}

spvtools::ValidatorOptions ToSpvOptions(const ValidateOptions& options) {
  spvtools::ValidatorOptions out;
  out.SetRelaxBlockLayout(options.relax_block_layout);
  out.SetScalarBlockLayout(options.scalar_block_layout);
  out.SetUniformBufferStandardLayout(options.uniform_buffer_standard_layout);
  out.SetWorkgroupScalarBlockLayout(options.workgroup_scalar_block_layout);
  return out;
}

EShLanguage GlslangStage(ShaderStage stage) {
  switch (stage) {
    case ShaderStage::kVertex:
      return EShLangVertex;
    case ShaderStage::kFragment:
      return EShLangFragment;
    case ShaderStage::kCompute:
      return EShLangCompute;
    case ShaderStage::kGeometry:
      return EShLangGeometry;
    case ShaderStage::kTessControl:
      return EShLangTessControl;
    case ShaderStage::kTessEval:
      return EShLangTessEvaluation;
  }
  return EShLangVertex;
}

// glslang keeps process-wide state; initialise it once and never finalise
// (other threads may still compile).
void InitGlslangOnce() {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
}

// Turns glslang's info log into a diagnostic. Error lines look like
//   "ERROR: 0:12: 'foo' : undeclared identifier"
// where 0 is the source string index and 12 the line.
Diagnostic GlslangDiagnostic(const std::string& log, const std::string& file,
                             const std::string& fallback) {
  std::istringstream in(log);
  std::string line;
  std::string first_message;
  int first_line = 0;
  std::string unlocated;
  while (std::getline(in, line)) {
    const std::string_view kError = "ERROR: ";
    if (line.rfind(kError, 0) != 0) continue;
    std::string rest = line.substr(kError.size());
    int line_number = 0;
    // "<string>:<line>: message"
    const size_t colon1 = rest.find(':');
    const size_t colon2 =
        colon1 == std::string::npos ? colon1 : rest.find(':', colon1 + 1);
    if (colon2 != std::string::npos) {
      const std::string num = rest.substr(colon1 + 1, colon2 - colon1 - 1);
      char* end = nullptr;
      const long v = std::strtol(num.c_str(), &end, 10);
      if (!num.empty() && end && *end == '\0' && v > 0) {
        line_number = static_cast<int>(v);
        rest = Trim(rest.substr(colon2 + 1));
      }
    }
    if (line_number == 0) {
      if (unlocated.empty()) unlocated = Trim(rest);
      continue;
    }
    if (first_line == 0) {
      first_line = line_number;
      first_message = rest;
    }
  }
  // The first error heads the message and glslang's whole log follows it,
  // so that no error (nor a note explaining one) is cut.
  auto with_log = [&log](const std::string& headline) {
    const std::string whole = Trim(log);
    if (whole.empty() || whole == headline) return headline;
    std::string out = headline + "\nglslang log:";
    std::istringstream lines(whole);
    for (std::string l; std::getline(lines, l);) out += "\n  " + l;
    return out;
  };
  if (first_line == 0) {
    return InvalidInput(with_log(unlocated.empty() ? fallback : unlocated),
                        FilePos(file));
  }
  // A GLSL extension that Debian's glslang does not know is valid input
  // warpsim cannot compile: unsupported, naming the extension.
  const std::string_view kNoExtension = "extension not supported:";
  if (const size_t at = first_message.find(kNoExtension);
      at != std::string::npos) {
    std::string name = Trim(first_message.substr(at + kNoExtension.size()));
    name = name.substr(0, name.find(' '));
    return Unsupported("GLSL extension " + name +
                           " (not supported by the glslang compiler warpsim "
                           "uses)",
                       FilePos(file, first_line));
  }
  return InvalidInput(with_log(first_message), FilePos(file, first_line));
}

}  // namespace

Result<TargetEnv> ParseTargetEnv(std::string_view name) {
  for (const TargetEnvEntry& e : kTargetEnvs) {
    if (e.name == name) return e.env;
  }
  return InvalidInput("unknown target environment '" + std::string(name) +
                      "' (expected spv1.0..spv1.6, vulkan1.0..vulkan1.3 or "
                      "vulkan1.1spv1.4)");
}

std::string_view TargetEnvName(TargetEnv env) { return Entry(env).name; }

uint32_t MaxSpirvVersion(TargetEnv env) { return Entry(env).max_version; }

std::string_view ShaderStageName(ShaderStage stage) {
  switch (stage) {
    case ShaderStage::kVertex:
      return "vertex";
    case ShaderStage::kFragment:
      return "fragment";
    case ShaderStage::kCompute:
      return "compute";
    case ShaderStage::kGeometry:
      return "geometry";
    case ShaderStage::kTessControl:
      return "tessellation control";
    case ShaderStage::kTessEval:
      return "tessellation evaluation";
  }
  return "unknown";
}

Result<std::vector<uint32_t>> AssembleSpirv(std::string_view text,
                                            TargetEnv env,
                                            const std::string& file) {
  spvtools::SpirvTools tools(Entry(env).spv_env);
  ToolMessages messages;
  tools.SetMessageConsumer(messages.Consumer());
  std::vector<uint32_t> words;
  if (!tools.Assemble(text.data(), text.size(), &words,
                      SPV_TEXT_TO_BINARY_OPTION_PRESERVE_NUMERIC_IDS)) {
    SourcePos pos = FilePos(file);
    // The assembler's positions are 0-based lines.
    if (messages.have_error)
      pos.line = static_cast<int>(messages.position.line) + 1;
    return InvalidInput(
        "SPIR-V assembly: " + (messages.message.empty()
                                   ? std::string("assembly failed")
                                   : OneLine(messages.message)),
        pos);
  }
  return words;
}

Result<std::vector<uint32_t>> CompileGlsl(
    std::string_view source, ShaderStage stage, TargetEnv env,
    const std::string& file, const std::vector<std::string>& compile_options) {
  std::string preamble;
  bool debug_info = false;
  for (const std::string& option : compile_options) {
    if (option == "-g") {
      debug_info = true;
      continue;
    }
    if (option.rfind("-D", 0) == 0 && option.size() > 2) {
      std::string define = option.substr(2);
      const size_t eq = define.find('=');
      if (eq != std::string::npos) define[eq] = ' ';
      preamble += "#define " + define + "\n";
      continue;
    }
    return Unsupported("GLSL compile option '" + option +
                           "' (only -DNAME[=VALUE] and -g are supported)",
                       FilePos(file));
  }

  InitGlslangOnce();
  const TargetEnvEntry& target = Entry(env);
  const EShLanguage lang = GlslangStage(stage);
  glslang::TShader shader(lang);
  const std::string text(source);
  const char* strings[] = {text.c_str()};
  const int lengths[] = {static_cast<int>(text.size())};
  shader.setStringsWithLengths(strings, lengths, 1);
  if (!preamble.empty()) shader.setPreamble(preamble.c_str());
  shader.setEntryPoint("main");
  shader.setEnvInput(glslang::EShSourceGlsl, lang, glslang::EShClientVulkan,
                     100);
  shader.setEnvClient(glslang::EShClientVulkan, target.vulkan);
  shader.setEnvTarget(glslang::EShTargetSpv, target.spirv);
  const EShMessages rules =
      static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  if (!shader.parse(GetDefaultResources(), /*defaultVersion=*/100,
                    /*forwardCompatible=*/false, rules)) {
    return GlslangDiagnostic(shader.getInfoLog(), file,
                             "GLSL compilation failed");
  }
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(rules)) {
    return GlslangDiagnostic(program.getInfoLog(), file, "GLSL link failed");
  }
  if (debug_info) {
    // The text OpSource carries after glslang's own header lines (what
    // glslangValidator -g adds).
    glslang::TIntermediate* intermediate = program.getIntermediate(lang);
    intermediate->setSourceFile(file.c_str());
    intermediate->addSourceText(text.data(), text.size());
  }
  std::vector<unsigned int> spirv;
  spv::SpvBuildLogger logger;
  glslang::SpvOptions spv_options;
  spv_options.disableOptimizer = true;  // legalization is ours
  spv_options.validate = false;         // validated by ValidateSpirv
  spv_options.generateDebugInfo = debug_info;
  glslang::GlslangToSpv(*program.getIntermediate(lang), spirv, &logger,
                        &spv_options);
  const std::string messages = logger.getAllMessages();
  if (spirv.empty()) {
    return InternalError("glslang produced no SPIR-V: " + OneLine(messages),
                         FilePos(file));
  }
  return std::vector<uint32_t>(spirv.begin(), spirv.end());
}

Status ValidateSpirv(std::span<const uint32_t> words, TargetEnv env,
                     const std::string& file, const ValidateOptions& options) {
  // Structural errors first: our messages name the word and opcode.
  if (Result<SplitModule> split = SplitInstructions(words, file); !split) {
    return split.error();
  }
  spvtools::SpirvTools tools(Entry(env).spv_env);
  ToolMessages messages;
  tools.SetMessageConsumer(messages.Consumer());
  if (tools.Validate(words.data(), words.size(), ToSpvOptions(options))) {
    return {};
  }
  return InvalidInput(
      "SPIR-V validation (" + std::string(TargetEnvName(env)) +
          "): " + OneLine(messages.message),
      ValidatorPos(words, messages.position, messages.message, file));
}

// Legalization passes, in order, and why each one is there:
//
//   MergeReturn  Gives every function a single return at its end (wrapping
//                the body in a breakable single-case OpSwitch construct when
//                it returns early). The inliner cannot inline a callee with
//                an early return from inside structured control flow
//                without it.
//   InlineExhaustive
//                Inlines every OpFunctionCall, so each entry point is one
//                function: the executor has no call stack. OpKill,
//                OpTerminateInvocation and OpDemoteToHelperInvocation move
//                into the caller unchanged.
//   EliminateDeadFunctions
//                Drops the now-uncalled helpers.
//   PrivateToLocal
//                A Private variable used by one function only becomes a
//                Function variable, so the SSA passes below can promote it.
//   ScalarReplacement
//                Splits local structs and constant-indexed arrays into one
//                variable per member (what a GPU compiler keeps in
//                registers); dynamically indexed arrays stay in memory.
//   LocalAccessChainConvert
//                Turns loads/stores through constant access chains into
//                whole-variable loads/stores plus composite extract/insert,
//                which the store-elimination passes understand.
//   LocalSingleBlockLoadStoreElim, LocalSingleStoreElim
//                Cheap forwarding of stores to loads, which leaves less work
//                for the general SSA rewrite.
//   SSARewrite   Promotes the remaining function-local variables to SSA
//                values with OpPhi at the merge points.
//   AggressiveDCE(preserve_interface)
//                Removes the loads, stores and variables the passes above
//                left dead, keeping every interface variable so that the
//                pipeline's view of inputs/outputs does not change.
//   ScalarReplacement, LocalAccessChainConvert, SSARewrite, AggressiveDCE
//                A second round: the variables ScalarReplacement created in
//                the first round (a struct member that is itself a vector)
//                are only promotable once their access chains are converted.
//
// Deliberately absent:
//   WrapOpKill   It moves OpKill into a new function reached by
//                OpFunctionCall, the opposite of what we want; we keep
//                OpKill where the shader wrote it.
//   Loop unrolling, loop peeling, merge-block/CFG simplification, dead
//   branch elimination, if-conversion, constant folding/propagation: they
//   change the control flow the executor models (reconvergence points,
//   per-iteration divergence) and the instruction counts a GPU would see.
//   FoldSpecConstantOpAndComposite, FreezeSpecConstantValue, SetSpecConstant
//   DefaultValue: specialization happens later, in the executor, with the
//   pipeline's values; OpSpecConstant* must survive.
namespace {

// The passes above, in order. The names only identify the recipe (they are
// part of the compiled-shader cache key, LegalizationRecipe()); any change to
// this table or to a pass's arguments must change a name.
struct LegalizationPass {
  std::string_view name;
  spvtools::Optimizer::PassToken (*create)();
};
const LegalizationPass kLegalizationPasses[] = {
    {"merge-return", [] { return spvtools::CreateMergeReturnPass(); }},
    {"inline-exhaustive",
     [] { return spvtools::CreateInlineExhaustivePass(); }},
    {"eliminate-dead-functions",
     [] { return spvtools::CreateEliminateDeadFunctionsPass(); }},
    {"private-to-local", [] { return spvtools::CreatePrivateToLocalPass(); }},
    {"scalar-replacement",
     [] { return spvtools::CreateScalarReplacementPass(); }},
    {"local-access-chain-convert",
     [] { return spvtools::CreateLocalAccessChainConvertPass(); }},
    {"local-single-block-load-store-elim",
     [] { return spvtools::CreateLocalSingleBlockLoadStoreElimPass(); }},
    {"local-single-store-elim",
     [] { return spvtools::CreateLocalSingleStoreElimPass(); }},
    {"ssa-rewrite", [] { return spvtools::CreateSSARewritePass(); }},
    {"aggressive-dce(preserve_interface)",
     [] {
       return spvtools::CreateAggressiveDCEPass(/*preserve_interface=*/true);
     }},
    {"scalar-replacement",
     [] { return spvtools::CreateScalarReplacementPass(); }},
    {"local-access-chain-convert",
     [] { return spvtools::CreateLocalAccessChainConvertPass(); }},
    {"ssa-rewrite", [] { return spvtools::CreateSSARewritePass(); }},
    {"aggressive-dce(preserve_interface)",
     [] {
       return spvtools::CreateAggressiveDCEPass(/*preserve_interface=*/true);
     }},
};

}  // namespace

std::string LegalizationRecipe() {
  // The retry with DeadBranchElim first (see LegalizeSpirv) is part of the
  // recipe too, as is the validation of the result.
  std::string recipe =
      "[dead-branch-elim first on unreachable blocks or an invalid result] ";
  for (const LegalizationPass& pass : kLegalizationPasses) {
    recipe += pass.name;
    recipe += ' ';
  }
  return recipe + "validate";
}

std::string ToolVersions() {
  const glslang::Version g = glslang::GetVersion();
  return "glslang " + std::to_string(g.major) + "." + std::to_string(g.minor) +
         "." + std::to_string(g.patch) + (g.flavor ? g.flavor : "") + "; " +
         spvSoftwareVersionDetailsString();
}

Result<std::vector<uint32_t>> OptimizeSpirv(
    std::span<const uint32_t> words, TargetEnv env,
    const std::vector<std::string>& flags, const std::string& file) {
  spvtools::Optimizer optimizer(Entry(env).spv_env);
  ToolMessages messages;
  optimizer.SetMessageConsumer(messages.Consumer());
  if (!optimizer.RegisterPassesFromFlags(flags)) {
    std::string all;
    for (const std::string& f : flags) all += (all.empty() ? "" : " ") + f;
    return InvalidInput(
        "unknown spirv-opt flag in SHADER_OPTIMIZATION: " + all +
            (messages.message.empty() ? std::string()
                                      : " (" + OneLine(messages.message) + ")"),
        FilePos(file));
  }
  spvtools::OptimizerOptions opt_options;
  opt_options.set_run_validator(false);  // the caller validates
  std::vector<uint32_t> out;
  if (!optimizer.Run(words.data(), words.size(), &out, opt_options)) {
    return InvalidInput(
        "SHADER_OPTIMIZATION passes failed: " + OneLine(messages.message),
        FilePos(file));
  }
  return out;
}

Result<std::vector<uint32_t>> OptimizeForPerformance(
    std::span<const uint32_t> words, TargetEnv env, const std::string& file,
    const ValidateOptions& options) {
  spvtools::Optimizer optimizer(Entry(env).spv_env);
  ToolMessages messages;
  optimizer.SetMessageConsumer(messages.Consumer());
  optimizer.RegisterPerformancePasses();
  spvtools::OptimizerOptions opt_options;
  opt_options.set_run_validator(false);  // the result is validated below
  std::vector<uint32_t> out;
  if (!optimizer.Run(words.data(), words.size(), &out, opt_options)) {
    return InternalError("spirv-opt -O failed: " + OneLine(messages.message),
                         FilePos(file));
  }
  if (Status s = ValidateSpirv(out, env, file + " (optimized)", options);
      !s.ok()) {
    return s.error();
  }
  return out;
}

Result<std::vector<uint32_t>> LegalizeSpirv(std::span<const uint32_t> words,
                                            TargetEnv env,
                                            const std::string& file,
                                            const ValidateOptions& options) {
  if (Status s = ValidateSpirv(words, env, file, options); !s) {
    return s.error();
  }
  std::vector<uint32_t> out;
  ToolMessages messages;
  // MergeReturn refuses functions with unreachable blocks; only then does
  // DeadBranchElim run first (it folds branches on constants and drops the
  // blocks they make unreachable), so other shaders keep their CFG as is.
  for (const bool cleanup : {false, true}) {
    spvtools::Optimizer optimizer(Entry(env).spv_env);
    messages = ToolMessages();
    optimizer.SetMessageConsumer(messages.Consumer());
    if (cleanup) optimizer.RegisterPass(spvtools::CreateDeadBranchElimPass());
    for (const LegalizationPass& pass : kLegalizationPasses) {
      optimizer.RegisterPass(pass.create());
    }
    spvtools::OptimizerOptions opt_options;
    opt_options.set_run_validator(false);  // validated above and below
    out.clear();
    if (!optimizer.Run(words.data(), words.size(), &out, opt_options)) {
      if (!cleanup &&
          messages.message.find("unreachable blocks") != std::string::npos) {
        continue;
      }
      return InternalError(
          "SPIR-V legalization failed: " + (messages.message.empty()
                                                ? std::string("optimizer error")
                                                : OneLine(messages.message)),
          FilePos(file));
    }
    Status valid = ValidateSpirv(out, env, file + " (legalized)", options);
    if (valid.ok()) break;
    // The passes can break a valid module whose CFG has unreachable
    // merge and continue blocks (found by fuzzing: an infinite loop inside
    // a function that returns from within it): retry with DeadBranchElim
    // first, which removes them; if the result is still invalid, the
    // module is one the legalization cannot handle.
    if (!cleanup) continue;
    return Unsupported("a module the SPIR-V legalization passes (" +
                           std::string(spvSoftwareVersionString()) +
                           ") turn invalid: " + OneLine(valid.error().message),
                       FilePos(file));
  }
  Result<SplitModule> split = SplitInstructions(out, file + " (legalized)");
  if (!split) return split.error();
  for (const Instruction& inst : split->instructions) {
    if (inst.opcode == static_cast<uint32_t>(Op::kFunctionCall)) {
      return Unsupported(
          "function call that cannot be inlined (e.g. a callee with OpKill "
          "called from a loop's continue construct)",
          SourcePos{file + " (legalized)", 0, inst.word_offset,
                    std::string("OpFunctionCall")});
    }
  }
  return out;
}

}  // namespace warpsim::spirv
