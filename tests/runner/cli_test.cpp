// The warpsim CLI: exit codes (0 pass, 1 expectation failed, 2 invalid
// input, 3 unsupported, 64 bad command line), diagnostics with positions on
// stderr, and the JSON report.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

struct CliResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

std::string TempDir() {
  static const std::string dir = [] {
    auto p = std::filesystem::temp_directory_path() /
             ("warpsim_cli_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    return p.string();
  }();
  return dir;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Runs `warpsim ARGS` through the shell; `shell_prefix` runs first in the
// same shell (e.g. a ulimit).
CliResult RunCli(const std::string& args,
                 const std::string& shell_prefix = "") {
  CliResult r;
  const std::string cmd =
      shell_prefix + std::string(WARPSIM_BINARY) + " " + args + " 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0)
    r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

const char kPassing[] = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() { b.v[gl_LocalInvocationID.x] = gl_LocalInvocationID.x * 3u; }
END
BUFFER buf DATA_TYPE uint32 SIZE 4 FILL 7
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
EXPECT buf IDX 0 EQ 0 3 6 9
)";

// A draw whose vertex shader is Amber's PASSTHROUGH shader.
const char kPassthroughDraw[] = R"(#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 430
layout(location = 0) out vec4 color;
void main() { color = vec4(1.0, 0.0, 0.0, 1.0); }
END
BUFFER fb FORMAT B8G8R8A8_UNORM
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 8 8
  BIND BUFFER fb AS color LOCATION 0
END
RUN p DRAW_RECT POS 0 0 SIZE 8 8
EXPECT fb IDX 0 0 SIZE 8 8 EQ_RGBA 255 0 0 255
)";

}  // namespace

TEST_CASE("a passing script exits 0 and writes the JSON report",
          "[runner][cli]") {
  const std::string file = WriteTemp("pass.amber", kPassing);
  const std::string json = TempDir() + "/pass_report.json";
  const CliResult r = RunCli("run " + file + " --json " + json + " --out " +
                             TempDir() + "/out");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  std::ifstream in(json);
  REQUIRE(in.good());
  const auto j = nlohmann::json::parse(in);
  CHECK(j["result"] == "pass");
  REQUIRE(j["expectations"].size() == 1);
  CHECK(j["expectations"][0]["line"] == 14);
  CHECK(j["expectations"][0]["passed"] == true);
  // 4 lanes of one warp: every warp instruction ran on 4 lanes.
  CHECK(j["stats"]["warp_instructions"].get<uint64_t>() > 0);
  CHECK(j["stats"]["lane_instructions"].get<uint64_t>() ==
        4 * j["stats"]["warp_instructions"].get<uint64_t>());
  CHECK(j["stats"]["host_seconds"].get<double>() >= 0.0);
  CHECK(std::filesystem::exists(TempDir() + "/out/report.json"));
}

TEST_CASE("CLI exit codes and diagnostics", "[runner][cli]") {
  struct Case {
    const char* name;
    std::string script;  // empty: no file is written
    std::string args;    // appended after the file
    int exit_code;
    std::string message;  // must appear in the output
  };
  std::string failing = kPassing;
  failing.replace(failing.find("EQ 0 3 6 9"), 10, "EQ 0 3 6 10");
  std::string bad_glsl = kPassing;
  bad_glsl.replace(bad_glsl.find("gl_LocalInvocationID.x * 3u"), 27,
                   "undeclared_name");
  const Case cases[] = {
      {"expectation failure", failing, "", 1, "expected EQ 10, got 9"},
      {"unknown command", "#!amber\nFROBNICATE x\n", "", 2, ":2:"},
      {"GLSL compile error", bad_glsl, "", 2, "undeclared_name"},
      {"absurd buffer",
       "#!amber\nBUFFER b DATA_TYPE uint32 SIZE 100000000000000 FILL 0\n", "",
       2, "exceeds the limit"},
      {"OpenCL C is unsupported",
       "#!amber\nSHADER compute k OPENCL-C\nkernel void f() {}\nEND\n"
       "BUFFER b DATA_TYPE uint32 SIZE 1 FILL 0\n"
       "PIPELINE compute p\n  ATTACH k ENTRY_POINT f\nEND\nRUN p 1 1 1\n",
       "", 3, "OpenCL C"},
      {"VkScript feature the runner lacks is unsupported",
       "[compute shader]\n#version 430\nvoid main() {}\n[test]\n"
       "patch parameter vertices 3\n",
       "", 3, "patch parameter vertices"},
      {"bad option", kPassing, "--no-such-option", 64, "unknown option"},
      {"unknown GPU preset", kPassing, "--gpu-config gtx480", 64,
       "unknown GPU preset \"gtx480\" (presets: h200, teaching"},
      {"missing GPU config file", kPassing, "--gpu-config /nonexistent/g.json",
       2, "cannot open GPU config"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      const std::string file = WriteTemp("case.amber", c.script);
      const CliResult r = RunCli("run " + file + " " + c.args);
      INFO(r.output);
      CHECK(r.exit_code == c.exit_code);
      CHECK(r.output.find(c.message) != std::string::npos);
    }
  }
}

TEST_CASE("missing input file is invalid input with the path",
          "[runner][cli]") {
  const CliResult r = RunCli("run /nonexistent/dir/x.amber");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("/nonexistent/dir/x.amber") != std::string::npos);
}

TEST_CASE("malformed SPIR-V names the word offset and opcode",
          "[runner][cli]") {
  // OpTypeInt with a width operand missing: the assembler accepts nothing
  // invalid, so use SPIRV-HEX words: header, then OpCapability Shader with a
  // word count of 0.
  const std::string script =
      "#!amber\nSHADER compute cs SPIRV-HEX\n"
      "03 02 23 07 00 00 01 00 00 00 00 00 10 00 00 00 00 00 00 00\n"
      "11 00 00 00 01 00 00 00\nEND\n"
      "BUFFER b DATA_TYPE uint32 SIZE 1 FILL 0\n"
      "PIPELINE compute p\n  ATTACH cs\nEND\nRUN p 1 1 1\n";
  const std::string file = WriteTemp("hex.amber", script);
  const CliResult r = RunCli("run " + file);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("word 5") != std::string::npos);
}

TEST_CASE("help on every subcommand", "[runner][cli]") {
  for (const char* args : {"--help", "run --help", "disasm --help"}) {
    const CliResult r = RunCli(args);
    INFO(args << "\n" << r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("usage") != std::string::npos);
  }
}

TEST_CASE("disasm shows registers per thread", "[runner][cli]") {
  const std::string file = WriteTemp("disasm.amber", kPassing);
  const CliResult r = RunCli("disasm " + file);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("OpEntryPoint") != std::string::npos);
  CHECK(r.output.find("registers per thread:") != std::string::npos);
}

TEST_CASE("disasm shows PASSTHROUGH vertex shaders as run compiles them",
          "[runner][cli]") {
  const std::string file = WriteTemp("passthrough.amber", kPassthroughDraw);
  const CliResult run = RunCli("run " + file);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const CliResult r = RunCli("disasm " + file);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("==== shader vs (SPIR-V)") != std::string::npos);
  CHECK(r.output.find("OpEntryPoint Vertex") != std::string::npos);
  CHECK(r.output.find("==== shader vs (warp program)") != std::string::npos);
  CHECK(r.output.find("==== shader fs (warp program)") != std::string::npos);
}

TEST_CASE("pipelines in the report and the summary name each shader's stage",
          "[runner][cli]") {
  struct Case {
    const char* name;
    const char* script;
    std::vector<std::pair<std::string, std::string>> stages;  // stage, shader
  };
  const Case cases[] = {
      {"compute", kPassing, {{"compute", "cs"}}},
      {"graphics", kPassthroughDraw, {{"vertex", "vs"}, {"fragment", "fs"}}},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      const std::string file = WriteTemp("stages.amber", c.script);
      const std::string json = TempDir() + "/stages.json";
      const CliResult r = RunCli("run " + file + " --json " + json);
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
      std::ifstream in(json);
      const auto j = nlohmann::json::parse(in);
      REQUIRE(j["pipelines"].size() == c.stages.size());
      for (size_t i = 0; i < c.stages.size(); ++i) {
        const auto& [stage, shader] = c.stages[i];
        CHECK(j["pipelines"][i]["name"] == "p");
        CHECK(j["pipelines"][i]["stage"] == stage);
        CHECK(j["pipelines"][i]["shader"] == shader);
        CHECK(r.output.find("pipeline p " + stage + " shader " + shader +
                            ":") != std::string::npos);
      }
    }
  }
}

TEST_CASE("bytes that are not UTF-8 never crash the CLI or its report",
          "[runner][cli]") {
  // Mutations of a passing script: invalid UTF-8 (a lone continuation byte,
  // a truncated sequence, an encoded surrogate, an overlong form) in a
  // comment, in names, in shader text and in the file name.
  auto replace_all = [](std::string s, const std::string& from,
                        const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos;
         at = s.find(from, at + to.size())) {
      s.replace(at, from.size(), to);
    }
    return s;
  };
  std::string shader_text = kPassing;
  shader_text.replace(shader_text.find("void main()"), 0,
                      "// caf\xe9 \xff\xfe\n");
  std::string bad_identifier = kPassing;
  bad_identifier.replace(bad_identifier.find("gl_LocalInvocationID.x * 3u"), 27,
                         "x\xff");
  struct Case {
    const char* name;
    std::string file_name;
    std::string script;
    int exit_code;
    std::string message;  // must appear in the output
  };
  const Case cases[] = {
      {"comment", "utf8.amber",
       replace_all(kPassing, "#!amber\n", "#!amber\n# caf\xe9 \x80\xbf\n"), 0,
       "pass"},
      {"pipeline name in RUN", "utf8.amber",
       replace_all(kPassing, "RUN p ", "RUN p\xc3 "), 2, "unknown pipeline 'p"},
      {"pipeline name used consistently", "utf8.amber",
       replace_all(replace_all(kPassing, "compute p\n", "compute p\xc3\n"),
                   "RUN p ", "RUN p\xc3 "),
       0, "pass"},
      {"shader name", "utf8.amber",
       replace_all(kPassing, "cs", "c\xed\xa0\x80s"), 0, "pass"},
      {"buffer name in EXPECT", "utf8.amber",
       replace_all(kPassing, "EXPECT buf", "EXPECT b\xc0\xafuf"), 2,
       "unknown buffer"},
      {"unknown command", "utf8.amber", "#!amber\nFR\xff\xfe x\n", 2, ":2:"},
      {"shader comment", "utf8.amber", shader_text, 0, "pass"},
      {"shader identifier", "utf8.amber", bad_identifier, 2, "error"},
      {"file name", "utf8_\xff\xfe.amber", kPassing, 0, "pass"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      const std::string file = WriteTemp(c.file_name, c.script);
      const std::string json = TempDir() + "/utf8_report.json";
      std::filesystem::remove(json);
      const CliResult r = RunCli("run '" + file + "' --json " + json);
      INFO(r.output);
      CHECK(r.exit_code == c.exit_code);
      CHECK(r.output.find(c.message) != std::string::npos);
      std::ifstream in(json);
      REQUIRE(in.good());
      const auto j = nlohmann::json::parse(in, nullptr, false);
      REQUIRE_FALSE(j.is_discarded());
      CHECK(j["exit_code"] == c.exit_code);
    }
  }
}

// AddressSanitizer reserves more address space than the limit allows.
#ifndef __SANITIZE_ADDRESS__
TEST_CASE("running out of memory ends with a message and its own exit code",
          "[runner][cli]") {
  // A 1 GiB buffer (the largest the parser allows) in a process limited to
  // 700 MB of address space.
  const std::string file =
      WriteTemp("gib.amber",
                "#!amber\nBUFFER b DATA_TYPE uint32 SIZE 268435456 FILL 0\n");
  const CliResult r = RunCli("run " + file, "ulimit -v 700000; ");
  INFO(r.output);
  CHECK(r.exit_code == 5);
  CHECK(r.output.find("warpsim: out of memory") != std::string::npos);
}
#endif

TEST_CASE("the warp instruction limit is its own outcome with the real count",
          "[runner][cli]") {
  const char kSpinningCompute[] = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() { while (b.v[0] == 0u) { atomicAdd(b.v[1], 1u); } }
END
BUFFER buf DATA_TYPE uint32 SIZE 4 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
)";
  std::string spinning_fragment = kPassthroughDraw;
  const std::string kMain = "void main() { color = vec4(1.0, 0.0, 0.0, 1.0); }";
  spinning_fragment.replace(
      spinning_fragment.find(kMain), kMain.size(),
      "layout(set = 0, binding = 0) buffer B { uint v[]; } b;\n"
      "void main() {\n  uint k = 0u;\n  while (b.v[0] == 0u) { k++; }\n"
      "  color = vec4(float(k), 0.0, 0.0, 1.0);\n}");
  spinning_fragment.replace(spinning_fragment.find("END\nRUN"), 3,
                            "  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 "
                            "BINDING 0\nEND");
  spinning_fragment.replace(spinning_fragment.find("PIPELINE"), 0,
                            "BUFFER buf DATA_TYPE uint32 SIZE 4 FILL 0\n");
  const std::pair<const char*, std::string> cases[] = {
      {"dispatch", kSpinningCompute},
      {"draw", spinning_fragment},
  };
  const uint64_t kLimit = 5000;
  for (const auto& [name, script] : cases) {
    SECTION(name) {
      const std::string file = WriteTemp("spin.amber", script);
      const std::string json = TempDir() + "/spin.json";
      const CliResult r =
          RunCli("run " + file + " --json " + json +
                 " --max-warp-instructions " + std::to_string(kLimit));
      INFO(r.output);
      CHECK(r.exit_code == 4);
      CHECK(r.output.find("limit exceeded: ") != std::string::npos);
      CHECK(r.output.find("error:") == std::string::npos);
      std::ifstream in(json);
      REQUIRE(in.good());
      const auto j = nlohmann::json::parse(in);
      CHECK(j["result"] == "limit_exceeded");
      CHECK(j["exit_code"] == 4);
      CHECK(j["diagnostic"]["kind"] == "limit_exceeded");
      // The totals hold the work done up to the stop, as does the summary.
      const uint64_t executed = j["stats"]["warp_instructions"];
      CHECK(executed > kLimit);
      CHECK(j["stats"]["lane_instructions"].get<uint64_t>() >= executed);
      CHECK(r.output.find("stopped after " + std::to_string(executed)) !=
            std::string::npos);
      CHECK(r.output.find(", " + std::to_string(executed) +
                          " warp instructions") != std::string::npos);
    }
  }
}

namespace {

// Files directly in `dir` (0 when it does not exist).
int CountFiles(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return 0;
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    n += e.is_regular_file() ? 1 : 0;
  }
  return n;
}

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("run with --shader-cache DIR: the second run hits", "[runner][cli]") {
  const std::string file = WriteTemp("cached.amber", kPassing);
  const std::string cache = TempDir() + "/shader_cache_dir";
  std::filesystem::remove_all(cache);
  const std::string json = TempDir() + "/cached.json";
  const CliResult cold =
      RunCli("run " + file + " --shader-cache " + cache + " --json " + json);
  INFO(cold.output);
  CHECK(cold.exit_code == 0);
  // Compile, legalize, optimize (for the register-count model).
  CHECK(ReadJson(json)["stats"]["shader_cache_misses"] == 3);
  CHECK(ReadJson(json)["stats"]["shader_cache_hits"] == 0);
  CHECK(CountFiles(cache) == 3);
  const CliResult warm =
      RunCli("run " + file + " --shader-cache " + cache + " --json " + json);
  INFO(warm.output);
  CHECK(warm.exit_code == 0);
  CHECK(ReadJson(json)["stats"]["shader_cache_misses"] == 0);
  CHECK(ReadJson(json)["stats"]["shader_cache_hits"] == 3);
}

TEST_CASE(
    "run with --shader-cache off writes nothing, whatever the environment says",
    "[runner][cli]") {
  const std::string file = WriteTemp("uncached.amber", kPassing);
  const std::string cache = TempDir() + "/env_cache_dir";
  std::filesystem::remove_all(cache);
  const std::string json = TempDir() + "/uncached.json";
  // The option wins over the environment variable.
  const std::string cmd = "env WARPSIM_SHADER_CACHE=" + cache + " " +
                          std::string(WARPSIM_BINARY) + " run " + file +
                          " --shader-cache off --json " + json + " 2>&1";
  CHECK(std::system(cmd.c_str()) == 0);
  CHECK(CountFiles(cache) == 0);
  CHECK(ReadJson(json)["stats"]["shader_cache_misses"] == 0);
}

TEST_CASE("without --shader-cache the cache is under $XDG_CACHE_HOME",
          "[runner][cli]") {
  const std::string file = WriteTemp("xdg.amber", kPassing);
  const std::string xdg = TempDir() + "/xdg";
  std::filesystem::remove_all(xdg);
  const std::string cmd = "env -u WARPSIM_SHADER_CACHE XDG_CACHE_HOME=" + xdg +
                          " " + std::string(WARPSIM_BINARY) + " run " + file +
                          " --quiet 2>&1";
  CHECK(std::system(cmd.c_str()) == 0);
  CHECK(CountFiles(xdg + "/warpsim") == 3);
}

TEST_CASE("an unwritable shader cache is a warning, not a failure",
          "[runner][cli]") {
  const std::string file = WriteTemp("unwritable.amber", kPassing);
  // Below a regular file no directory can be created, even by root.
  const std::string blocker = WriteTemp("not_a_dir", "x");
  const CliResult r =
      RunCli("run " + file + " --shader-cache " + blocker + "/cache");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("warning: shader cache") != std::string::npos);
}
