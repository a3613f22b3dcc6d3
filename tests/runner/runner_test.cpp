// The runner's execution of scene commands: specialization constants, push
// constants, COPY, REPEAT, descriptor offsets, and the report (pipelines,
// lane use, bytes that are not UTF-8, where a shader's diagnostic points,
// which shaders have atomics).
#include "runner/runner.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "common/test_util.h"
#include "scene/amber_parser.h"

namespace {

using warpsim::runner::ReportToJson;
using warpsim::testing::Describe;

warpsim::runner::RunReport Run(
    const std::string& amber, const warpsim::runner::RunOptions& options = {}) {
  auto scene = warpsim::scene::ParseAmberScript(amber, "runner_test.amber");
  REQUIRE(scene.ok());
  return warpsim::runner::RunScene(*scene, options);
}

constexpr const char* kRect = R"(#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 450
layout(location = 0) out vec4 c;
void main() { c = vec4(0.0, 1.0, 0.0, 1.0); }
END
BUFFER fb FORMAT R8G8B8A8_UNORM
PIPELINE graphics g
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 16 16
  BIND BUFFER fb AS color LOCATION 0
END
CLEAR_COLOR g 255 0 0 255
CLEAR g
RUN g DRAW_RECT POS 2 2 SIZE 10 10
EXPECT fb IDX 2 2 SIZE 10 10 EQ_RGBA 0 255 0 255
EXPECT fb IDX 0 0 SIZE 16 2 EQ_RGBA 255 0 0 255
EXPECT fb IDX 12 0 SIZE 4 16 EQ_RGBA 255 0 0 255
)";

}  // namespace

TEST_CASE("specialization constants and workgroup size", "[runner]") {
  const auto r = Run(R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x_id = 3) in;
layout(constant_id = 7) const int kScale = 1;
layout(set = 0, binding = 0) buffer B { int v[]; } b;
void main() { b.v[gl_GlobalInvocationID.x] = int(gl_GlobalInvocationID.x) * kScale; }
END
BUFFER buf DATA_TYPE int32 SIZE 8 FILL -1
PIPELINE compute p
  ATTACH cs SPECIALIZE 3 AS uint32 4 SPECIALIZE 7 AS int32 -5
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 2 1 1
EXPECT buf IDX 0 EQ 0 -5 -10 -15 -20 -25 -30 -35
)");
  INFO(Describe(r));
  CHECK(r.status == warpsim::runner::RunStatus::kPass);
  CHECK(r.stats.workgroups == 2);
  CHECK(r.stats.warps == 2);
}

TEST_CASE("push constants, uniform buffers, COPY and REPEAT", "[runner]") {
  const auto r = Run(R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 4) in;
layout(push_constant) uniform PC { uint add; } pc;
layout(set = 0, binding = 1) uniform U { uint mul; } u;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() { uint i = gl_LocalInvocationID.x; b.v[i] = b.v[i] * u.mul + pc.add; }
END
BUFFER buf DATA_TYPE uint32 DATA 1 2 3 4 END
BUFFER mul DATA_TYPE uint32 DATA 2 END
BUFFER add DATA_TYPE uint32 DATA 1 END
BUFFER saved DATA_TYPE uint32 SIZE 4 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER mul AS uniform DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER add AS push_constant
END
REPEAT 3
RUN p 1 1 1
END
COPY buf TO saved
EXPECT saved IDX 0 EQ 15 23 31 39
)");
  INFO(Describe(r));
  CHECK(r.status == warpsim::runner::RunStatus::kPass);
  CHECK(r.stats.dispatches == 3);
  REQUIRE(r.pipelines.size() == 1);
  CHECK(r.pipelines[0].registers_per_thread > 0);
}

TEST_CASE("registers per thread are at least the GPU's minimum", "[runner]") {
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() { b.v[gl_LocalInvocationID.x] = 1u; }
END
BUFFER buf DATA_TYPE uint32 SIZE 4 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
)";
  auto scene = warpsim::scene::ParseAmberScript(amber, "regs.amber");
  REQUIRE(scene.ok());
  warpsim::runner::RunOptions h200;  // minimum 16 (measured on the H200)
  auto teaching = warpsim::runner::GpuConfigPreset("teaching");
  REQUIRE(teaching.ok());
  warpsim::runner::RunOptions small;
  static_cast<warpsim::runner::GpuConfig&>(small) = *teaching;
  const auto a = warpsim::runner::RunScene(*scene, h200);
  const auto b = warpsim::runner::RunScene(*scene, small);
  REQUIRE(a.pipelines.size() == 1);
  REQUIRE(b.pipelines.size() == 1);
  // A shader this small needs few registers; the H200 gives it 16.
  CHECK(a.pipelines[0].registers_allocated < 16);
  CHECK(a.pipelines[0].registers_per_thread == 16);
  CHECK(b.pipelines[0].registers_per_thread ==
        b.pipelines[0].registers_allocated);
}

TEST_CASE("descriptor offset selects part of a buffer", "[runner]") {
  const auto r = Run(R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() { b.v[0] = 42u; }
END
BUFFER buf DATA_TYPE uint32 SIZE 64 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0 DESCRIPTOR_OFFSET 128 DESCRIPTOR_RANGE 16
END
RUN p 1 1 1
EXPECT buf IDX 124 EQ 0 42 0
)");
  INFO(Describe(r));
  CHECK(r.status == warpsim::runner::RunStatus::kPass);
}

TEST_CASE("a draw fills exactly the rectangle and reports its warps",
          "[runner][graphics]") {
  // A 10x10 rectangle (two triangles sharing a diagonal) in a 16x16
  // framebuffer: the top-left rule gives each pixel to exactly one triangle,
  // so 100 fragment invocations; quads on the diagonal are shaded by both
  // triangles, with helper lanes for the pixels the other triangle owns.
  const auto r = Run(kRect);
  INFO(Describe(r));
  CHECK(r.status == warpsim::runner::RunStatus::kPass);
  REQUIRE(r.draws.size() == 1);
  const auto& d = r.draws[0].stats;
  CHECK(d.vs_invocations == 4);
  CHECK(d.vertex_warps == 1);
  CHECK(d.primitives_in == 2);
  CHECK(d.primitives_out == 2);
  CHECK(d.fs_invocations == 100);
  CHECK(d.helper_lanes > 0);
  CHECK(d.quads * 4 == d.fs_invocations + d.helper_lanes);
  REQUIRE(r.images.size() == 1);
  CHECK(r.images[0].width == 16);
}

TEST_CASE("the timing trace lists each fragment warp's quads and the shaders",
          "[runner][graphics][timing]") {
  warpsim::runner::RunOptions options;
  options.timing_mode = true;
  const auto r = Run(kRect, options);
  INFO(Describe(r));
  CHECK(r.status == warpsim::runner::RunStatus::kPass);
  REQUIRE(r.draws.size() == 1);
  REQUIRE(r.trace != nullptr);
  const auto& t = *r.trace;
  const auto& d = r.draws[0].stats;
  // Every quad of every fragment warp, once, with the lanes it covered.
  CHECK(t.quads.size() == d.quads);
  uint64_t covered = 0;
  for (const auto& q : t.quads) {
    covered += static_cast<uint64_t>(__builtin_popcount(q.coverage));
    CHECK(q.x % 2 == 0);
    CHECK(q.y % 2 == 0);
    CHECK(q.x >= 2);
    CHECK(q.x < 12);
    CHECK(q.primitive < 2);
  }
  CHECK(covered == d.fs_invocations);
  CHECK(t.quads.size() * 4 - covered == d.helper_lanes);
  // Each quad's warp is a fragment warp of the trace; every warp names
  // its program, listed line by line.
  for (const auto& q : t.quads) {
    bool found = false;
    for (const auto& w : t.warps) {
      if (w.warp == q.warp) {
        found = w.stage == warpsim::trace::Stage::kFragment;
      }
    }
    CHECK(found);
  }
  REQUIRE(t.shaders.size() == 2);  // the vertex and the fragment shader
  for (const auto& w : t.warps) {
    REQUIRE(w.shader < t.shaders.size());
    CHECK(t.shaders[w.shader].stage == w.stage);
    CHECK(w.end != warpsim::trace::kStillResident);
    CHECK(w.end > w.begin);
  }
  CHECK(t.shaders[1].lines.size() > 1);
  CHECK(t.shaders[1].lines.back().rfind("OpReturn", 0) == 0);
}

TEST_CASE("GLSL debug information changes nothing but the trace's source lines",
          "[runner][timing]") {
  for (const char* sample : {"lit_textured_mesh", "divergent_branches"}) {
    INFO(sample);
    const std::string path = std::string(WARPSIM_SOURCE_DIR) +
                             "/samples/graphics/" + sample + ".amber";
    warpsim::runner::RunOptions plain;
    plain.timing_mode = true;
    warpsim::runner::RunOptions debug = plain;
    debug.shader_debug_info = true;
    auto a = nlohmann::json::parse(
        ReportToJson(warpsim::runner::RunAmberFile(path, plain)));
    auto b = nlohmann::json::parse(
        ReportToJson(warpsim::runner::RunAmberFile(path, debug)));
    CHECK(a["result"] == "pass");
    a["stats"].erase("host_seconds");
    b["stats"].erase("host_seconds");
    CHECK(a == b);
  }
  // lit_textured_mesh's cube shaders keep their GLSL and lines.
  warpsim::runner::RunOptions debug;
  debug.timing_mode = true;
  debug.shader_debug_info = true;
  const auto r = warpsim::runner::RunAmberFile(
      std::string(WARPSIM_SOURCE_DIR) +
          "/samples/graphics/lit_textured_mesh.amber",
      debug);
  REQUIRE(r.trace != nullptr);
  bool any = false;
  for (const auto& sh : r.trace->shaders) {
    if (sh.source.empty()) continue;
    any = true;
    CHECK(sh.source.front().rfind("#version", 0) == 0);
    REQUIRE(sh.source_lines.size() == sh.lines.size());
    for (uint32_t line : sh.source_lines) CHECK(line <= sh.source.size());
  }
  CHECK(any);
}

TEST_CASE("a VkScript draw rect in NDC fills the framebuffer it probes",
          "[runner][graphics][vkscript]") {
  // The left half in NDC (-1..0), then probes in pixels and relative units.
  const std::string kScript = R"([require]
fbsize 16 8
[vertex shader passthrough]
[fragment shader]
#version 430
layout(location = 0) out vec4 c;
void main() { c = vec4(0.0, 1.0, 0.0, 1.0); }
[test]
clear color 1 0 0 1
clear
draw rect -1 -1 1 2
probe rect rgba (0, 0, 8, 8) (0, 1, 0, 1)
relative probe rect rgb (0.5, 0.0, 0.5, 1.0) (1, 0, 0)
probe rgba (15, 7) (1, 0, 0, 1)
)";
  auto scene = warpsim::scene::ParseSceneText(kScript, "rect.vkscript");
  REQUIRE(scene.ok());
  const auto r = warpsim::runner::RunScene(*scene, {});
  INFO(Describe(r));
  CHECK(r.status == warpsim::runner::RunStatus::kPass);
  REQUIRE(r.expectations.size() == 3);
  REQUIRE(r.draws.size() == 1);
  CHECK(r.draws[0].stats.fs_invocations == 64);

  // The same scene probing green on the right half fails there.
  std::string wrong = kScript;
  wrong.replace(wrong.find("(1, 0, 0)\n"), 10, "(0, 1, 0)\n");
  auto bad = warpsim::scene::ParseSceneText(wrong, "rect.vkscript");
  REQUIRE(bad.ok());
  const auto f = warpsim::runner::RunScene(*bad, {});
  CHECK(f.status == warpsim::runner::RunStatus::kFail);
}

TEST_CASE("VkScript ssbo writes between dispatches reach the next dispatch",
          "[runner][vkscript]") {
  auto scene = warpsim::scene::ParseSceneText(R"([compute shader]
#version 430
layout(local_size_x = 4) in;
layout(set = 0, binding = 1) buffer B { int v[]; } b;
layout(push_constant) uniform PC { int add; } pc;
void main() { b.v[gl_LocalInvocationID.x] += pc.add; }
[test]
ssbo 0:1 subdata int 0 1 2 3 4
uniform int 0 10
compute 1 1 1
probe ssbo int 0:1 0 == 11 12 13 14
ssbo 0:1 subdata int 4 100
uniform int 0 1
compute 1 1 1
probe ssbo int 0:1 0 == 12 101 14 15
)",
                                              "ssbo.vkscript");
  REQUIRE(scene.ok());
  const auto r = warpsim::runner::RunScene(*scene, {});
  INFO(Describe(r));
  CHECK(r.status == warpsim::runner::RunStatus::kPass);
  REQUIRE(r.expectations.size() == 2);
  CHECK(r.stats.dispatches == 2);
}

TEST_CASE("the report's SIMD efficiency counts helper lanes apart",
          "[runner][graphics]") {
  // Per draw and per dispatch, and for the whole run: the share of the lane
  // slots of issued warp instructions that ran invocations, and that ran
  // helper lanes.
  auto run = Run(R"(#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 450
layout(location = 0) out vec4 c;
void main() { c = vec4(0.0, 1.0, 0.0, 1.0); }
END
SHADER compute cs GLSL
#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() { b.v[gl_LocalInvocationID.x] = gl_LocalInvocationID.x; }
END
BUFFER fb FORMAT R8G8B8A8_UNORM
BUFFER buf DATA_TYPE uint32 SIZE 4 FILL 0
PIPELINE graphics g
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 16 16
  BIND BUFFER fb AS color LOCATION 0
END
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN g DRAW_RECT POS 2 2 SIZE 10 10
RUN p 1 1 1
)");
  INFO(Describe(run));
  REQUIRE(run.status == warpsim::runner::RunStatus::kPass);
  REQUIRE(run.draws.size() == 1);
  REQUIRE(run.dispatches.size() == 1);
  const auto& d = run.draws[0].stats;
  // The diagonal's quads carry helper lanes, and every fragment warp
  // instruction runs them.
  CHECK(d.helper_lanes > 0);
  CHECK(d.helper_lane_instructions >= d.helper_lanes);
  CHECK(d.helper_lane_instructions < d.lane_instructions);
  const nlohmann::json j = nlohmann::json::parse(ReportToJson(run));
  const double width = run.warp_width;
  REQUIRE(width == 32);
  const auto& draw = j["draws"][0];
  const double slots = static_cast<double>(d.warp_instructions) * width;
  CHECK(draw["helper_lane_instructions"] == d.helper_lane_instructions);
  CHECK(draw["simd_efficiency"].get<double>() ==
        static_cast<double>(d.lane_instructions - d.helper_lane_instructions) /
            slots);
  CHECK(draw["helper_lane_share"].get<double>() ==
        static_cast<double>(d.helper_lane_instructions) / slots);
  CHECK(draw["fs_invocations_per_fragment_warp"].get<double>() ==
        static_cast<double>(d.fs_invocations) /
            static_cast<double>(d.fragment_warps));
  // A 4-invocation workgroup in a 32-lane warp, without divergence: every
  // instruction runs 4 of 32 lanes, none of them helpers.
  const auto& dispatch = j["dispatches"][0];
  CHECK(dispatch["pipeline"] == "p");
  CHECK(dispatch["simd_efficiency"].get<double>() == 4.0 / width);
  CHECK(dispatch["helper_lane_share"].get<double>() == 0.0);
  // The whole run: both together.
  const auto& s = run.stats;
  CHECK(s.helper_lane_instructions == d.helper_lane_instructions);
  const double run_slots = static_cast<double>(s.warp_instructions) * width;
  CHECK(j["stats"]["simd_efficiency"].get<double>() ==
        static_cast<double>(s.lane_instructions - s.helper_lane_instructions) /
            run_slots);
  CHECK(j["stats"]["helper_lane_share"].get<double>() ==
        static_cast<double>(s.helper_lane_instructions) / run_slots);
  CHECK(j["stats"]["warp_width"] == 32);
}

TEST_CASE("the JSON report carries bytes that are not UTF-8", "[runner]") {
  // Names and messages come from the input; the report replaces invalid
  // sequences instead of failing.
  const std::pair<const char*, const char*> cases[] = {
      {"lone continuation byte", "p\x80"},
      {"truncated sequence", "p\xc3"},
      {"encoded surrogate", "p\xed\xa0\x80"},
      {"byte 0xff", "\xff"},
  };
  for (const auto& [name, bytes] : cases) {
    INFO(name);
    warpsim::runner::RunReport report;
    report.file = std::string("dir/") + bytes + ".amber";
    report.status = warpsim::runner::RunStatus::kInvalid;
    report.diagnostic =
        warpsim::InvalidInput(std::string("unknown pipeline ") + bytes,
                              warpsim::SourcePos{report.file, 3});
    report.pipelines.push_back({bytes, "compute", bytes, "main", 1, 1});
    const nlohmann::json j =
        nlohmann::json::parse(ReportToJson(report), nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    CHECK(j["diagnostic"]["message"].get<std::string>().rfind(
              "unknown pipeline ", 0) == 0);
    CHECK(j["pipelines"][0]["stage"] == "compute");
  }
}

TEST_CASE("a shader error names the SHADER FILE and its own line", "[runner]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "warpsim_runner_file_test";
  fs::create_directories(dir);
  std::ofstream(dir / "bad.comp")
      << "#version 450\nlayout(local_size_x = 1) in;\n\nvoid main() {\n"
         "  int x = undeclared_name;\n}\n";
  const std::string script =
      "#!amber\n# one\n# two\n# three\n# four\n# five\n"
      "SHADER compute cs GLSL FILE bad.comp\n"
      "PIPELINE compute p\n  ATTACH cs\nEND\nRUN p 1 1 1\n";
  auto scene =
      warpsim::scene::ParseAmberScript(script, (dir / "main.amber").string());
  REQUIRE(scene.ok());
  const auto r = warpsim::runner::RunScene(*scene, {});
  INFO(Describe(r));
  REQUIRE(r.diagnostic.has_value());
  CHECK(r.diagnostic->kind == warpsim::ErrorKind::kInvalidInput);
  // bad.comp line 5, not main.amber line 5 (nor line 7 + 4).
  CHECK(fs::path(r.diagnostic->pos.file).filename() == "bad.comp");
  CHECK(r.diagnostic->pos.line == 5);
  CHECK(r.diagnostic->message.find("undeclared_name") != std::string::npos);
}

TEST_CASE("the report says which shaders have atomics", "[runner]") {
  const auto r = Run(R"(#!amber
SHADER compute counted GLSL
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint n; uint slot[]; } b;
void main() { b.slot[gl_LocalInvocationID.x] = atomicAdd(b.n, 1u); }
END
SHADER compute plain GLSL
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint n; uint slot[]; } b;
void main() { b.slot[gl_LocalInvocationID.x] = gl_LocalInvocationID.x; }
END
BUFFER buf DATA_TYPE uint32 SIZE 33 FILL 0
PIPELINE compute a
  ATTACH counted
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
PIPELINE compute p
  ATTACH plain
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN a 1 1 1
RUN p 1 1 1
EXPECT buf IDX 0 EQ 32 0 1 2 3
)");
  INFO(Describe(r));
  CHECK(r.status == warpsim::runner::RunStatus::kPass);
  REQUIRE(r.pipelines.size() == 2);
  CHECK(r.pipelines[0].name == "a");
  CHECK(r.pipelines[0].atomics);
  CHECK(r.pipelines[1].name == "p");
  CHECK_FALSE(r.pipelines[1].atomics);
}

TEST_CASE(
    "l1_invalidated_per_run empties the L1 before each dispatch, "
    "l2_holds_uploads puts a buffer in the L2 when a run first reads it",
    "[runner][timing]") {
  // One warp walks a ring of 64 words (d[i] = i + 1), every lane the same
  // word, 16 dependent steps from word 0: words 0 to 15, the first two
  // sectors of line 0 (vulkan_ref's E36 walks). The dispatch runs twice.
  // (The loop's bound is a constant-bank operand, no load; what the
  // dispatch does after the walk waits for its last load only.)
  std::string ring;
  for (int i = 0; i < 64; ++i) ring += " " + std::to_string((i + 1) % 64);
  const std::string amber =
      "#!amber\nSHADER compute cs GLSL\n#version 450\n"
      "layout(local_size_x = 32) in;\n"
      "layout(set = 0, binding = 0) uniform U { int n; } u;\n"
      "layout(set = 0, binding = 1) readonly buffer D { uint d[]; } data;\n"
      "layout(set = 0, binding = 2) buffer O { uint o[]; } result;\n"
      "void main() {\n  uint idx = 0u;\n"
      "  for (int i = 0; i < u.n; ++i) idx = data.d[idx];\n"
      "  result.o[0] = idx;\n}\nEND\n"
      "BUFFER n DATA_TYPE int32 DATA 16 END\n"
      "BUFFER ring DATA_TYPE uint32 DATA" +
      ring +
      " END\n"
      "BUFFER out DATA_TYPE uint32 SIZE 32 FILL 0\n"
      "PIPELINE compute walk\n  ATTACH cs\n"
      "  BIND BUFFER n AS uniform DESCRIPTOR_SET 0 BINDING 0\n"
      "  BIND BUFFER ring AS storage DESCRIPTOR_SET 0 BINDING 1\n"
      "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 2\nEND\n"
      "RUN walk 1 1 1\nRUN walk 1 1 1\nEXPECT out IDX 0 EQ 16\n";
  warpsim::runner::RunOptions kept;
  kept.timing_mode = true;
  // The h200 preset's memory with neither (nor its uploads' placement on
  // no L2 side, nor again before each run): each is turned on in turn.
  kept.timing.memory.l1_invalidated_per_run = false;
  kept.timing.memory.l2_holds_uploads = false;
  kept.timing.memory.l2_uploads_far = false;
  kept.timing.memory.uploads_per_run = false;
  // One SM: both dispatches' workgroup runs on it (and its L2 side).
  kept.timing.sms = 1;
  warpsim::runner::RunOptions emptied = kept;
  emptied.timing.memory.l1_invalidated_per_run = true;
  warpsim::runner::RunOptions uploaded = emptied;
  uploaded.timing.memory.l2_holds_uploads = true;
  const auto a = Run(amber, kept);
  const auto b = Run(amber, emptied);
  const auto c = Run(amber, uploaded);
  for (const auto* r : {&a, &b, &c}) {
    INFO(Describe(*r));
    REQUIRE(r->status == warpsim::runner::RunStatus::kPass);
    REQUIRE(r->dispatches.size() == 2);
    for (const auto& d : r->dispatches) REQUIRE(d.timing);
  }
  const warpsim::sm::MemoryTiming& m = kept.timing.memory;
  // The first dispatch misses the L1 once a sector and the L2 once a
  // line (the ring's, and the result's for its store, which does not look
  // in the L1): the same whether or not the L1 was emptied before it.
  CHECK(a.dispatches[0].timing->memory.l1_misses == 2);
  CHECK(a.dispatches[0].timing->memory.l2_misses == 2);
  CHECK(b.dispatches[0].timing->cycles == a.dispatches[0].timing->cycles);
  // The second finds both sectors in the L1 it kept; emptied, it misses
  // them again, each an L2 hit: l2_latency - l1_latency more, twice.
  CHECK(a.dispatches[1].timing->memory.l1_misses == 0);
  CHECK(b.dispatches[1].timing->memory.l1_misses == 2);
  CHECK(b.dispatches[1].timing->memory.l2_hits == 3);  // and the store's
  CHECK(b.dispatches[1].timing->cycles ==
        a.dispatches[1].timing->cycles + 2 * (m.l2_latency - m.l1_latency));
  // The buffer in the L2 from its upload: the first dispatch's line miss
  // is an L2 hit, dram_latency - l2_latency sooner; the second as before.
  CHECK(c.dispatches[0].timing->memory.l2_misses == 0);  // the result too
  CHECK(c.dispatches[0].timing->cycles ==
        b.dispatches[0].timing->cycles - (m.dram_latency - m.l2_latency));
  CHECK(c.dispatches[1].timing->cycles == b.dispatches[1].timing->cycles);
}

TEST_CASE("only compute warps' loads hold the issue their *_issue_cycles",
          "[runner][timing]") {
  // The same loads of a storage buffer in a fragment shader and in a
  // compute shader: with global_load_issue_cycles, the dispatch's loads
  // hold their sub-partitions' issue, the draw's do not (its cycles are
  // those without it).
  const std::string amber = R"(#!amber
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 450
layout(location = 0) out vec4 c;
layout(set = 0, binding = 0) readonly buffer B { float v[]; } b;
void main() {
  int i = int(gl_FragCoord.x) + 16 * int(gl_FragCoord.y);
  c = vec4(b.v[i] + b.v[i + 256], 0.0, 0.0, 1.0);
}
END
SHADER compute cs GLSL
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { float v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  b.v[i + 512] = b.v[i] + b.v[i + 256];
}
END
BUFFER fb FORMAT R8G8B8A8_UNORM
BUFFER buf DATA_TYPE float SIZE 1024 FILL 0.25
PIPELINE graphics g
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 16 16
  BIND BUFFER fb AS color LOCATION 0
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
PIPELINE compute p
  ATTACH cs
  BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN g DRAW_RECT POS 0 0 SIZE 16 16
RUN p 1 1 1
EXPECT buf IDX 2048 EQ 0.5
)";
  warpsim::runner::RunOptions off;
  off.timing_mode = true;
  // No memory instruction holds the issue, but the loads of `on`.
  off.timing.memory.global_load_issue_cycles = 0;
  off.timing.memory.global_store_issue_cycles = 0;
  off.timing.memory.global_atomic_issue_cycles = 0;
  off.timing.memory.shared_load_issue_cycles = 0;
  off.timing.memory.shared_store_issue_cycles = 0;
  off.timing.memory.issue_hold_slack_cycles = 0;  // each hold stops issue
  off.timing.buffer_address_issue_cycles = 0;
  warpsim::runner::RunOptions on = off;
  on.timing.memory.global_load_issue_cycles = 3;
  const auto a = Run(amber, off);
  const auto b = Run(amber, on);
  INFO(Describe(b));
  REQUIRE(a.status == warpsim::runner::RunStatus::kPass);
  REQUIRE(b.status == warpsim::runner::RunStatus::kPass);
  REQUIRE(b.draws.size() == 1);
  REQUIRE(b.dispatches.size() == 1);
  REQUIRE(a.draws[0].timing);
  REQUIRE(b.draws[0].timing);
  REQUIRE(b.dispatches[0].timing);
  CHECK(b.draws[0].timing->memory_issue_hold_cycles == 0);
  CHECK(b.draws[0].timing->cycles == a.draws[0].timing->cycles);
  // Two warps, two loads each.
  CHECK(b.dispatches[0].timing->memory_issue_hold_cycles == 2 * 2 * 3);
}

TEST_CASE(
    "a storage buffer's access chain by a run-time index holds the issue "
    "buffer_address_issue_cycles, in every stage",
    "[runner][timing]") {
  // One warp walks a buffer from the word d[9] holds (0: a load at a
  // constant index, no such chain), 8 dependent steps of idx = d[idx], in a
  // compute shader and in a fragment shader (one warp of 8x4 pixels): each
  // step an access chain from the buffer's base by the loaded index
  // (simt::IsBufferAddress) and a load. With buffer_address_issue_cycles
  // and no slack, every such chain stops the issue that many cycles (the
  // loads hold nothing: their *_issue_cycles are 0).
  const std::string walk =
      "layout(set = 0, binding = 0) readonly buffer D { uint d[]; } data;\n"
      "uint Walk() {\n  uint idx = data.d[9];\n"
      "  for (int i = 0; i < 8; ++i) idx = data.d[idx];\n  return idx;\n}\n";
  const std::string amber =
      "#!amber\nSHADER vertex vs PASSTHROUGH\n"
      "SHADER fragment fs GLSL\n#version 450\n"
      "layout(location = 0) out vec4 c;\n" +
      walk +
      "void main() { c = vec4(float(Walk()) / 8.0, 0.0, 0.0, 1.0); }\nEND\n"
      "SHADER compute cs GLSL\n#version 450\n"
      "layout(local_size_x = 32) in;\n" +
      walk +
      "layout(set = 0, binding = 1) buffer O { uint o[]; } result;\n"
      "void main() { result.o[gl_LocalInvocationID.x] = Walk(); }\nEND\n"
      "BUFFER fb FORMAT R8G8B8A8_UNORM\n"
      "BUFFER d DATA_TYPE uint32 DATA 1 2 3 4 5 6 7 8 9 0 END\n"
      "BUFFER out DATA_TYPE uint32 SIZE 32 FILL 0\n"
      "PIPELINE graphics g\n  ATTACH vs\n  ATTACH fs\n"
      "  FRAMEBUFFER_SIZE 8 4\n  BIND BUFFER fb AS color LOCATION 0\n"
      "  BIND BUFFER d AS storage DESCRIPTOR_SET 0 BINDING 0\nEND\n"
      "PIPELINE compute p\n  ATTACH cs\n"
      "  BIND BUFFER d AS storage DESCRIPTOR_SET 0 BINDING 0\n"
      "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1\nEND\n"
      "RUN g DRAW_RECT POS 0 0 SIZE 8 4\nRUN p 1 1 1\n"
      "EXPECT out IDX 0 EQ 8 8 8 8\n";
  warpsim::runner::RunOptions off;
  off.timing_mode = true;
  off.timing.buffer_address = {16, 2};
  off.timing.buffer_address_issue_cycles = 0;
  off.timing.memory.global_load_issue_cycles = 0;
  off.timing.memory.global_store_issue_cycles = 0;
  off.timing.memory.issue_hold_slack_cycles = 0;
  warpsim::runner::RunOptions one = off;
  one.timing.buffer_address_issue_cycles = 1;
  warpsim::runner::RunOptions two = off;
  two.timing.buffer_address_issue_cycles = 2;
  const auto a = Run(amber, off);
  const auto b = Run(amber, one);
  const auto c = Run(amber, two);
  INFO(Describe(c));
  for (const auto* r : {&a, &b, &c}) {
    REQUIRE(r->status == warpsim::runner::RunStatus::kPass);
    REQUIRE(r->draws.size() == 1);
    REQUIRE(r->dispatches.size() == 1);
    REQUIRE(r->draws[0].timing);
    REQUIRE(r->dispatches[0].timing);
  }
  // Nothing holds the issue without it; with it, each chain stops the
  // issue its cycles, in the draw as in the dispatch (one walk per warp:
  // at least its 8 steps' chains), twice as long at 2 as at 1.
  CHECK(a.draws[0].timing->memory_issue_hold_cycles == 0);
  CHECK(a.dispatches[0].timing->memory_issue_hold_cycles == 0);
  CHECK(b.draws[0].timing->memory_issue_hold_cycles >= 8);
  CHECK(b.dispatches[0].timing->memory_issue_hold_cycles >= 8);
  CHECK(c.draws[0].timing->memory_issue_hold_cycles ==
        2 * b.draws[0].timing->memory_issue_hold_cycles);
  CHECK(c.dispatches[0].timing->memory_issue_hold_cycles ==
        2 * b.dispatches[0].timing->memory_issue_hold_cycles);
  // One warp waits out each chain's latency (16), longer than the hold,
  // before its load: not a cycle more (E38's one-warp chase).
  CHECK(c.dispatches[0].timing->cycles == a.dispatches[0].timing->cycles);
}
