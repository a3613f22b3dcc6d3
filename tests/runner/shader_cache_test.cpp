// The compiled-shader cache (runner/shader_cache.cpp) and its use by shader
// building and the runner (runner/shader_build.cpp, runner/runner.cpp).
// Every test uses its own temporary directory, never the user's cache.
#include "runner/shader_cache.h"

#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/temp_dir.h"
#include "runner/runner.h"
#include "runner/shader_build.h"
#include "scene/amber_parser.h"
#include "simt/disasm.h"

namespace warpsim::runner {
namespace {

namespace fs = std::filesystem;

// A fresh directory for one test, removed at scope end.
class TempDir : public warpsim::testing::TempDir {
 public:
  TempDir() : warpsim::testing::TempDir("warpsim_shader_cache_test") {}
};

// Files directly in `dir` (0 when it does not exist).
int FileCount(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return 0;
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.is_regular_file();
  return n;
}

const char kComputeGlsl[] = R"(#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
uint Twice(uint x) { return 2u * x; }
void main() { b.v[gl_LocalInvocationID.x] = Twice(gl_LocalInvocationID.x); }
)";

simt::LowerOptions ComputeLowering() {
  simt::LowerOptions lower;
  lower.entry_point = "main";
  lower.model = spv::ExecutionModel::GLCompute;
  return lower;
}

struct Built {
  std::vector<uint32_t> words;  // after compile
  std::vector<uint32_t> legal;  // after validate + legalize
  std::string program;          // the lowered Program's listing
  uint32_t num_regs = 0;
};

// Compiles, legalizes and lowers kComputeGlsl (or `source`) through `cache`.
Built BuildCompute(ShaderCache* cache, const std::string& source = kComputeGlsl,
                   const BuildSettings& settings = {}) {
  Built out;
  auto words = CachedCompileGlsl(cache, source, spirv::ShaderStage::kCompute,
                                 spirv::TargetEnv::kVulkan1_3, "test.comp");
  REQUIRE(words.ok());
  out.words = *words;
  auto legal = LegalizedWords(cache, *words, spirv::TargetEnv::kVulkan1_3,
                              "test.comp", settings);
  REQUIRE(legal.ok());
  out.legal = *legal;
  auto built = BuildProgram(*words, spirv::TargetEnv::kVulkan1_3, "test.comp",
                            ComputeLowering(), settings, cache);
  REQUIRE(built.ok());
  out.program = simt::DisassembleProgram(built->program);
  out.num_regs = built->program.num_regs;
  return out;
}

ShaderCacheKey SampleKey(std::string_view source = "source") {
  ShaderCacheKey key("test-step");
  key.Add("source", source);
  return key;
}

const std::vector<uint32_t> kSampleWords = {0x07230203u, 0x00010000u, 7u, 42u};

ShaderCache::Compute Counting(int* calls,
                              std::vector<uint32_t> words = kSampleWords) {
  return [calls, words]() -> Result<std::vector<uint32_t>> {
    ++*calls;
    return words;
  };
}

TEST_CASE("a hit after a miss gives identical words and Program",
          "[runner][shader_cache]") {
  TempDir dir;
  const Built uncached = BuildCompute(nullptr);

  ShaderCache cold(dir.str());
  const Built first = BuildCompute(&cold);
  // Compile, legalize and optimize (for the register-count model) once
  // each; BuildProgram's legalize then hits.
  CHECK(cold.misses() == 3);
  CHECK(cold.hits() == 1);
  CHECK(FileCount(dir.str()) == 3);

  ShaderCache warm(dir.str());  // a second run of the same scene
  const Built second = BuildCompute(&warm);
  CHECK(warm.misses() == 0);
  CHECK(warm.hits() == 4);

  for (const Built* b : {&first, &second}) {
    CHECK(b->words == uncached.words);
    CHECK(b->legal == uncached.legal);
    CHECK(b->program == uncached.program);
    CHECK(b->num_regs == uncached.num_regs);
  }
}

TEST_CASE("a changed source, option, stage, target or version misses",
          "[runner][shader_cache]") {
  TempDir dir;
  const std::string source = kComputeGlsl;
  auto compile = [&](ShaderCache* cache, const std::string& text,
                     spirv::ShaderStage stage, spirv::TargetEnv env,
                     std::vector<std::string> options) {
    return CachedCompileGlsl(cache, text, stage, env, "t.comp", options).ok();
  };
  {
    ShaderCache cache(dir.str());
    REQUIRE(compile(&cache, source, spirv::ShaderStage::kCompute,
                    spirv::TargetEnv::kVulkan1_3, {}));
    REQUIRE(compile(&cache, source, spirv::ShaderStage::kCompute,
                    spirv::TargetEnv::kVulkan1_3, {}));
    REQUIRE(cache.misses() == 1);
    REQUIRE(cache.hits() == 1);
  }
  SECTION("source") {
    ShaderCache cache(dir.str());
    CHECK(compile(&cache, source + "\n// changed\n",
                  spirv::ShaderStage::kCompute, spirv::TargetEnv::kVulkan1_3,
                  {}));
    CHECK(cache.misses() == 1);
  }
  SECTION("compile option") {
    ShaderCache cache(dir.str());
    CHECK(compile(&cache, source, spirv::ShaderStage::kCompute,
                  spirv::TargetEnv::kVulkan1_3, {"-DUNUSED=1"}));
    CHECK(cache.misses() == 1);
  }
  SECTION("target environment") {
    ShaderCache cache(dir.str());
    CHECK(compile(&cache, source, spirv::ShaderStage::kCompute,
                  spirv::TargetEnv::kVulkan1_1, {}));
    CHECK(cache.misses() == 1);
  }
  SECTION("stage") {
    // The same key fields except the stage: the compile fails (a compute
    // layout in a vertex shader), so it is a miss and nothing is stored.
    ShaderCache cache(dir.str());
    CHECK_FALSE(compile(&cache, source, spirv::ShaderStage::kVertex,
                        spirv::TargetEnv::kVulkan1_3, {}));
    CHECK(cache.misses() == 1);
    CHECK(FileCount(dir.str()) == 1);
  }
  SECTION("tool version string") {
    ShaderCache cache(dir.str(), ShaderCache::DefaultVersions() + " (newer)");
    CHECK(compile(&cache, source, spirv::ShaderStage::kCompute,
                  spirv::TargetEnv::kVulkan1_3, {}));
    CHECK(cache.misses() == 1);
    CHECK(cache.hits() == 0);
  }
  CHECK(ShaderCache::DefaultVersions().find("glslang") != std::string::npos);
  CHECK(ShaderCache::DefaultVersions().find("SPIRV-Tools") !=
        std::string::npos);
}

TEST_CASE("a changed validation option, optimization or recipe misses",
          "[runner][shader_cache]") {
  TempDir dir;
  auto words = spirv::CompileGlsl(kComputeGlsl, spirv::ShaderStage::kCompute,
                                  spirv::TargetEnv::kVulkan1_3, "t.comp");
  REQUIRE(words.ok());
  auto legalize = [&](const BuildSettings& settings) {
    ShaderCache cache(dir.str());
    auto legal = LegalizedWords(&cache, *words, spirv::TargetEnv::kVulkan1_3,
                                "t.comp", settings);
    REQUIRE(legal.ok());
    return cache.misses();
  };
  const BuildSettings base;
  REQUIRE(legalize(base) == 1);
  REQUIRE(legalize(base) == 0);  // warm
  BuildSettings scalar = base;
  scalar.validate.scalar_block_layout = true;
  CHECK(legalize(scalar) == 1);
  BuildSettings relaxed = base;
  relaxed.validate.relax_block_layout = true;
  CHECK(legalize(relaxed) == 1);
  BuildSettings optimized = base;
  optimized.optimizations = {"--inline-entry-points-exhaustive"};
  CHECK(legalize(optimized) == 1);
  CHECK(legalize(optimized) == 0);
  CHECK(spirv::LegalizationRecipe().find("merge-return") != std::string::npos);
}

TEST_CASE("keys with the same bytes split differently differ",
          "[runner][shader_cache]") {
  ShaderCache cache("/nonexistent");
  ShaderCacheKey a("s");
  a.Add("x", "ab").Add("y", "c");
  ShaderCacheKey b("s");
  b.Add("x", "a").Add("y", "bc");
  CHECK(cache.EntryPath(a) != cache.EntryPath(b));
  ShaderCacheKey c("s");
  c.Add("x", "ab").Add("y", "c");
  CHECK(cache.EntryPath(a) == cache.EntryPath(c));
}

TEST_CASE("corrupt or truncated entries are ignored and recompiled",
          "[runner][shader_cache]") {
  // What happens to the entry file, and a name for the failure message.
  struct Damage {
    const char* name;
    void (*apply)(std::string* bytes);
  };
  const Damage damages[] = {
      {"empty", [](std::string* b) { b->clear(); }},
      {"truncated header", [](std::string* b) { b->resize(20); }},
      {"truncated payload", [](std::string* b) { b->resize(b->size() - 4); }},
      {"extra bytes", [](std::string* b) { b->append("\0\0\0\0", 4); }},
      {"bad magic", [](std::string* b) { (*b)[0] = 'X'; }},
      {"other format version", [](std::string* b) { (*b)[8] ^= 0x40; }},
      {"word count", [](std::string* b) { (*b)[16] ^= 1; }},
      {"key digest", [](std::string* b) { (*b)[30] ^= 1; }},
      {"checksum", [](std::string* b) { (*b)[60] ^= 1; }},
      {"payload bit flip", [](std::string* b) { b->back() ^= 1; }},
  };
  for (const Damage& damage : damages) {
    CAPTURE(damage.name);
    TempDir dir;
    int calls = 0;
    {
      ShaderCache cache(dir.str());
      REQUIRE(cache.GetOrCompute(SampleKey(), Counting(&calls)).ok());
    }
    const std::string path = ShaderCache(dir.str()).EntryPath(SampleKey());
    std::string bytes;
    {
      std::ifstream in(path, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    REQUIRE(bytes.size() == 88 + 4 * kSampleWords.size());
    damage.apply(&bytes);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;

    ShaderCache cache(dir.str());
    auto words = cache.GetOrCompute(SampleKey(), Counting(&calls));
    REQUIRE(words.ok());
    CHECK(*words == kSampleWords);
    CHECK(calls == 2);  // recomputed, not read
    CHECK(cache.misses() == 1);
    // The recomputed entry replaced the damaged one.
    auto again = cache.GetOrCompute(SampleKey(), Counting(&calls));
    CHECK(again.ok());
    CHECK(calls == 2);
    CHECK(cache.hits() == 1);
  }
}

TEST_CASE("a corrupt legalized entry still gives the right Program",
          "[runner][shader_cache]") {
  TempDir dir;
  const Built uncached = BuildCompute(nullptr);
  {
    ShaderCache cache(dir.str());
    BuildCompute(&cache);
  }
  // Damage the payload of every entry (the compile, legalize and optimize
  // ones).
  for (const auto& e : fs::directory_iterator(dir.str())) {
    std::fstream f(e.path(), std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(100);
    f.put('\x5a');
  }
  ShaderCache cache(dir.str());
  const Built rebuilt = BuildCompute(&cache);
  CHECK(cache.misses() == 3);
  CHECK(rebuilt.legal == uncached.legal);
  CHECK(rebuilt.program == uncached.program);
}

TEST_CASE("failed compiles are not cached", "[runner][shader_cache]") {
  TempDir dir;
  ShaderCache cache(dir.str());
  const std::string bad = "#version 450\nvoid main() { undeclared = 1; }\n";
  auto compile = [&] {
    return CachedCompileGlsl(&cache, bad, spirv::ShaderStage::kCompute,
                             spirv::TargetEnv::kVulkan1_3, "bad.comp");
  };
  auto first = compile();
  auto second = compile();
  REQUIRE_FALSE(first.ok());
  REQUIRE_FALSE(second.ok());
  CHECK(first.error().ToString() == second.error().ToString());
  CHECK(first.error().pos.line == 2);
  CHECK(cache.misses() == 2);
  CHECK(FileCount(dir.str()) == 0);
}

TEST_CASE("a scene whose shader fails reports the same error warm or cold",
          "[runner][shader_cache]") {
  TempDir dir;
  auto scene = scene::ParseAmberScript(R"(#!amber
SHADER compute cs GLSL
#version 450
void main() { undeclared = 1; }
END
PIPELINE compute p
  ATTACH cs
END
RUN p 1 1 1
)",
                                       "fails.amber");
  REQUIRE(scene.ok());
  RunOptions options;
  options.shader_cache_dir = dir.str();
  const RunReport first = RunScene(*scene, options);
  const RunReport second = RunScene(*scene, options);
  const RunReport uncached = RunScene(*scene, RunOptions{});
  REQUIRE(first.diagnostic.has_value());
  REQUIRE(second.diagnostic.has_value());
  REQUIRE(uncached.diagnostic.has_value());
  CHECK(first.status == RunStatus::kInvalid);
  CHECK(second.diagnostic->ToString() == first.diagnostic->ToString());
  CHECK(uncached.diagnostic->ToString() == first.diagnostic->ToString());
  CHECK(second.stats.shader_cache_misses == 1);
  CHECK(second.stats.shader_cache_hits == 0);
  CHECK(FileCount(dir.str()) == 0);
}

TEST_CASE("off means no files are read or written", "[runner][shader_cache]") {
  TempDir dir;
  ShaderCache off("");
  CHECK_FALSE(off.enabled());
  const Built built = BuildCompute(&off);
  CHECK(off.hits() == 0);
  CHECK(off.misses() == 0);
  CHECK_FALSE(built.program.empty());

  // A run with no cache directory writes nothing, even where the
  // environment names one (the library only uses RunOptions).
  ::setenv("WARPSIM_SHADER_CACHE", dir.str().c_str(), 1);
  auto scene = scene::ParseAmberScript(std::string(R"(#!amber
SHADER compute cs GLSL
)") + kComputeGlsl + R"(END
BUFFER buf DATA_TYPE uint32 SIZE 4 FILL 7
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
EXPECT buf IDX 0 EQ 0 2 4 6
)",
                                       "off.amber");
  ::setenv("WARPSIM_SHADER_CACHE", "off", 1);
  REQUIRE(scene.ok());
  const RunReport report = RunScene(*scene, RunOptions{});
  CHECK(report.status == RunStatus::kPass);
  CHECK(report.stats.shader_cache_hits == 0);
  CHECK(report.stats.shader_cache_misses == 0);
  CHECK(FileCount(dir.str()) == 0);
}

TEST_CASE("a scene run twice hits on the second run",
          "[runner][shader_cache]") {
  TempDir dir;
  auto scene = scene::ParseAmberScript(R"(#!amber
SHADER vertex vs GLSL
#version 450
layout(location = 0) in vec4 pos;
void main() { gl_Position = pos; }
END
SHADER fragment fs GLSL
#version 450
layout(location = 0) out vec4 color;
void main() { color = vec4(0.0, 1.0, 0.0, 1.0); }
END
BUFFER fb FORMAT B8G8R8A8_UNORM
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 8 8
  BIND BUFFER fb AS color LOCATION 0
END
RUN p DRAW_RECT POS 0 0 SIZE 8 8
EXPECT fb IDX 0 0 SIZE 8 8 EQ_RGBA 0 255 0 255
)",
                                       "twice.amber");
  REQUIRE(scene.ok());
  RunOptions options;
  options.shader_cache_dir = dir.str();
  const RunReport cold = RunScene(*scene, options);
  const RunReport warm = RunScene(*scene, options);
  CHECK(cold.status == RunStatus::kPass);
  CHECK(warm.status == RunStatus::kPass);
  CHECK(cold.stats.shader_cache_hits == 0);
  // 2 shaders x (compile, legalize, optimize for the register-count model)
  CHECK(cold.stats.shader_cache_misses == 6);
  CHECK(warm.stats.shader_cache_hits == 6);
  CHECK(warm.stats.shader_cache_misses == 0);
  CHECK(warm.stats.warp_instructions == cold.stats.warp_instructions);
  REQUIRE(warm.images.size() == cold.images.size());
  for (size_t i = 0; i < warm.images.size(); ++i) {
    CHECK(warm.images[i].bytes == cold.images[i].bytes);
  }
  const auto json = nlohmann::json::parse(ReportToJson(warm));
  CHECK(json["stats"]["shader_cache_hits"] == 6);
  CHECK(json["stats"]["shader_cache_misses"] == 0);
}

TEST_CASE("an unwritable cache directory is a warning, not a failure",
          "[runner][shader_cache]") {
  TempDir dir;
  // A directory below a regular file can never be created (even by root).
  std::ofstream(dir.Sub("file")) << "x";
  ShaderCache cache(dir.Sub("file") + "/cache");
  std::vector<std::string> warnings;
  cache.set_warning_sink([&](const std::string& w) { warnings.push_back(w); });
  int calls = 0;
  auto a = cache.GetOrCompute(SampleKey("a"), Counting(&calls));
  auto b = cache.GetOrCompute(SampleKey("b"), Counting(&calls));
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(*a == kSampleWords);
  CHECK(calls == 2);
  REQUIRE(warnings.size() == 1);  // once, not per shader
  CHECK(warnings[0].find(dir.Sub("file")) != std::string::npos);
}

TEST_CASE("concurrent writers of one key leave one valid entry",
          "[runner][shader_cache]") {
  TempDir dir;
  std::vector<uint32_t> big(20000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint32_t>(i);
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < 10; ++round) {
        ShaderCache cache(dir.str());  // one per "process"
        auto words = cache.GetOrCompute(
            SampleKey("shared"),
            [&]() -> Result<std::vector<uint32_t>> { return big; });
        if (words.ok() && *words == big) ++ok;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(ok == 80);
  CHECK(FileCount(dir.str()) == 1);  // no temporary files left behind
  ShaderCache cache(dir.str());
  int calls = 0;
  auto words = cache.GetOrCompute(SampleKey("shared"), Counting(&calls));
  CHECK(calls == 0);
  REQUIRE(words.ok());
  CHECK(*words == big);
}

TEST_CASE("the default cache directory follows the environment",
          "[runner][shader_cache]") {
  struct Env {
    const char* shader_cache;  // nullptr: unset
    const char* xdg;
    const char* home;
    std::string expected;
  };
  const Env cases[] = {
      {"off", "/xdg", "/home/u", ""},
      {"", "/xdg", "/home/u", ""},
      {"/tmp/c", "/xdg", "/home/u", "/tmp/c"},
      {nullptr, "/xdg", "/home/u", "/xdg/warpsim"},
      {nullptr, "relative", "/home/u", "/home/u/.cache/warpsim"},
      {nullptr, nullptr, "/home/u", "/home/u/.cache/warpsim"},
      {nullptr, nullptr, nullptr, ""},
  };
  const char* saved_home = std::getenv("HOME");
  const std::string home = saved_home ? saved_home : "";
  const char* saved_xdg = std::getenv("XDG_CACHE_HOME");
  const std::string xdg = saved_xdg ? saved_xdg : "";
  auto set = [](const char* name, const char* value) {
    if (value) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  };
  for (const Env& c : cases) {
    set("WARPSIM_SHADER_CACHE", c.shader_cache);
    set("XDG_CACHE_HOME", c.xdg);
    set("HOME", c.home);
    CAPTURE(c.shader_cache ? c.shader_cache : "(unset)");
    CHECK(DefaultShaderCacheDir() == c.expected);
  }
  set("HOME", saved_home ? home.c_str() : nullptr);
  set("XDG_CACHE_HOME", saved_xdg ? xdg.c_str() : nullptr);
  set("WARPSIM_SHADER_CACHE", "off");  // as catch_main.cpp left it
}

}  // namespace
}  // namespace warpsim::runner
