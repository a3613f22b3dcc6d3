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

CliResult RunCli(const std::string& args) {
  CliResult r;
  const std::string cmd = std::string(WARPSIM_BINARY) + " " + args + " 2>&1";
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
      {"VkScript is unsupported",
       "[compute shader]\n#version 430\nvoid main() {}\n", "", 3, "VkScript"},
      {"bad option", kPassing, "--no-such-option", 64, "unknown option"},
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
  CHECK(ReadJson(json)["stats"]["shader_cache_misses"] == 2);
  CHECK(ReadJson(json)["stats"]["shader_cache_hits"] == 0);
  CHECK(CountFiles(cache) == 2);
  const CliResult warm =
      RunCli("run " + file + " --shader-cache " + cache + " --json " + json);
  INFO(warm.output);
  CHECK(warm.exit_code == 0);
  CHECK(ReadJson(json)["stats"]["shader_cache_misses"] == 0);
  CHECK(ReadJson(json)["stats"]["shader_cache_hits"] == 2);
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
  CHECK(CountFiles(xdg + "/warpsim") == 2);
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
