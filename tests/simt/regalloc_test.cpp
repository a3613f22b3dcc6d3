// Tests of emulator/simt/regalloc.cpp: registers per thread on shaders whose
// register pressure is known, aligned pairs for 64-bit values, register
// sharing, and correct results when values live across divergent code.
#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "pipeline/compute.h"
#include "runner/shader_build.h"
#include "simt/lower.h"
#include "spirv/compile.h"

namespace warpsim::simt {
namespace {

constexpr spirv::TargetEnv kEnv = spirv::TargetEnv::kVulkan1_3;

runner::BuiltProgram BuildGlsl(const std::string& source,
                               uint32_t warp_width = 32) {
  auto words =
      spirv::CompileGlsl(source, spirv::ShaderStage::kCompute, kEnv, "r.comp");
  INFO((words.ok() ? "" : words.error().ToString()));
  REQUIRE(words.ok());
  LowerOptions options;
  options.warp_width = warp_width;
  options.schedule = false;  // the allocator on the order the text gives
  auto built = runner::BuildProgram(*words, kEnv, "r.comp", options, {});
  INFO((built.ok() ? "" : built.error().ToString()));
  REQUIRE(built.ok());
  return std::move(*built);
}

// A vertex or fragment shader built as the runner builds it.
runner::BuiltProgram BuildStage(const std::string& source,
                                spirv::ShaderStage stage,
                                spv::ExecutionModel model,
                                const std::string& name) {
  auto words = spirv::CompileGlsl(source, stage, kEnv, name);
  INFO((words.ok() ? "" : words.error().ToString()));
  REQUIRE(words.ok());
  LowerOptions options;
  options.model = model;
  options.schedule = false;  // the allocator on the order the text gives
  auto built = runner::BuildProgram(*words, kEnv, name, options, {});
  INFO((built.ok() ? "" : built.error().ToString()));
  REQUIRE(built.ok());
  return std::move(*built);
}

runner::BuiltProgram BuildFragment(const std::string& source) {
  return BuildStage(source, spirv::ShaderStage::kFragment,
                    spv::ExecutionModel::Fragment, "r.frag");
}

runner::BuiltProgram BuildVertex(const std::string& source) {
  return BuildStage(source, spirv::ShaderStage::kVertex,
                    spv::ExecutionModel::Vertex, "r.vert");
}

// Runs `groups_x` workgroups with `buffers[b]` bound at binding b.
void Run(const Program& program,
         std::map<uint32_t, std::vector<uint32_t>>& buffers, uint32_t groups_x,
         uint32_t width = 32) {
  std::vector<MemRegion> regions(program.num_regions);
  for (const ResourceSlot& res : program.resources) {
    auto it = buffers.find(res.binding);
    REQUIRE(it != buffers.end());
    regions[res.region] = {reinterpret_cast<uint8_t*>(it->second.data()),
                           it->second.size() * sizeof(uint32_t), true};
  }
  pipeline::ComputeLimits limits;
  limits.warp_width = width;
  const uint32_t groups[3] = {groups_x, 1, 1};
  auto stats = pipeline::DispatchCompute(program, groups, regions, {}, limits);
  INFO((stats.ok() ? "" : stats.error().ToString()));
  REQUIRE(stats.ok());
}

TEST_CASE("N simultaneously live floats need about N registers",
          "[simt][regalloc]") {
  // All N loads happen before the first use, so N floats are live at once;
  // the weighted sum then consumes them one by one.
  for (uint32_t n : {4u, 16u, 40u}) {
    INFO("N = " << n);
    std::string source = R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer In { float x[]; } inb;
layout(set = 0, binding = 1) buffer Out { float y[]; } outb;
void main() {
  uint i = gl_GlobalInvocationID.x;
)";
    for (uint32_t k = 0; k < n; ++k) {
      source += "  float a" + std::to_string(k) + " = inb.x[i * " +
                std::to_string(n) + "u + " + std::to_string(k) + "u];\n";
    }
    source += "  outb.y[i] = 0.0";
    for (uint32_t k = 0; k < n; ++k) {
      source +=
          " + a" + std::to_string(k) + " * " + std::to_string(k + 1) + ".0";
    }
    source += ";\n}\n";
    const runner::BuiltProgram built = BuildGlsl(source);
    const Program& p = built.program;
    INFO("registers per thread: " << p.num_regs
                                  << ", virtual: " << p.virtual_regs);
    CHECK(p.num_regs >= n);
    CHECK(p.num_regs <= n + 8);  // the index, an address pair, a temporary

    // The values still arrive intact.
    const uint32_t invocations = 64;
    std::vector<uint32_t> in(invocations * n);
    for (uint32_t i = 0; i < invocations; ++i) {
      for (uint32_t k = 0; k < n; ++k) {
        const float v = static_cast<float>(i + k);
        std::memcpy(&in[i * n + k], &v, 4);
      }
    }
    std::map<uint32_t, std::vector<uint32_t>> buffers{
        {0, in}, {1, std::vector<uint32_t>(invocations, 0)}};
    Run(p, buffers, 2);
    for (uint32_t i = 0; i < invocations; ++i) {
      float expected = 0;  // integer-valued and small: exact in any order
      for (uint32_t k = 0; k < n; ++k) {
        expected += static_cast<float>((i + k) * (k + 1));
      }
      float got;
      std::memcpy(&got, &buffers[1][i], 4);
      INFO("invocation " << i);
      CHECK(got == expected);
    }
  }
}

TEST_CASE("values with disjoint lifetimes share registers",
          "[simt][regalloc]") {
  // A chain of 300 temporaries, each dead once the next is computed.
  const uint32_t kSteps = 300;
  std::string source = R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint y[]; } outb;
void main() {
  uint v = gl_GlobalInvocationID.x;
)";
  for (uint32_t k = 0; k < kSteps; ++k) {
    source += "  v = (v * " + std::to_string(2 * k + 3) + "u) ^ " +
              std::to_string(k * 7919u) + "u;\n";
  }
  source += "  outb.y[gl_GlobalInvocationID.x] = v;\n}\n";
  const runner::BuiltProgram built = BuildGlsl(source);
  const Program& p = built.program;
  INFO("registers per thread: " << p.num_regs
                                << ", virtual: " << p.virtual_regs);
  CHECK(p.virtual_regs >= 2 * kSteps);
  CHECK(p.num_regs <= 6);

  std::map<uint32_t, std::vector<uint32_t>> buffers{
      {0, std::vector<uint32_t>(64, 0)}};
  Run(p, buffers, 2);
  for (uint32_t i = 0; i < 64; ++i) {
    uint32_t v = i;
    for (uint32_t k = 0; k < kSteps; ++k) v = (v * (2 * k + 3)) ^ (k * 7919u);
    INFO("invocation " << i);
    CHECK(buffers[0][i] == v);
  }
}

TEST_CASE("a 64-bit value occupies an aligned register pair",
          "[simt][regalloc]") {
  // 32-bit values (f, k) stay live across the 64-bit arithmetic, so odd
  // registers are in use when the doubles and int64s get theirs.
  const std::string source = R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer In { double d[]; } inb;
layout(set = 0, binding = 1) buffer Out { double r[]; } outb;
layout(set = 0, binding = 2) buffer Out64 { uint64_t q[]; } outq;
void main() {
  uint i = gl_GlobalInvocationID.x;
  float f = float(i) * 0.5;
  uint k = i + 7u;
  double a = inb.d[i];
  uint64_t big = uint64_t(i) * 0x100000001ul;
  double b = a * double(f) + 1.0lf;
  uint k2 = k * 3u;
  double c = b * b;
  uint64_t big2 = big + uint64_t(k2);
  outb.r[i] = c + double(k) + double(f);
  outq.q[i] = big2 ^ uint64_t(k);
}
)";
  const runner::BuiltProgram built = BuildGlsl(source);

  // Lower again, keeping the virtual registers, to know which instruction
  // results are 64-bit; then allocate and look at the same instructions.
  Program p;
  Lowerer lowerer(*built.module, LowerOptions{}, &p);
  Status lowered = lowerer.Run();
  INFO((lowered.ok() ? "" : lowered.error().ToString()));
  REQUIRE(lowered.ok());
  const std::vector<Instr> virtual_code = p.code;
  const std::vector<uint8_t> wide = lowerer.vreg_wide();
  const std::vector<MemLeaf> virtual_leaves = p.mem_leaves;
  Status allocated = AllocateRegisters(lowerer, &p);
  REQUIRE(allocated.ok());
  INFO("registers per thread: " << p.num_regs);
  CHECK(p.num_regs == built.program.num_regs);

  uint32_t wide_defs = 0;
  for (size_t i = 0; i < virtual_code.size(); ++i) {
    const uint32_t v = virtual_code[i].dst;
    if (v == kNoReg || (v & kConstTag) != 0 || !wide[v]) continue;
    ++wide_defs;
    INFO("instruction " << i << " (SPIR-V word " << p.code[i].spirv_word
                        << ") defines 64-bit v" << v << " in r"
                        << p.code[i].dst);
    CHECK(p.code[i].dst % 2 == 0);
    CHECK(p.code[i].dst + 1 < p.num_regs);
  }
  // Loads of doubles write their pair through memory leaves.
  for (size_t i = 0; i < virtual_leaves.size(); ++i) {
    const uint32_t v = virtual_leaves[i].reg;
    if (v == kNoReg || (v & kConstTag) != 0 || !wide[v]) continue;
    ++wide_defs;
    INFO("memory leaf " << i << " of 64-bit v" << v << " in r"
                        << p.mem_leaves[i].reg);
    CHECK(p.mem_leaves[i].reg % 2 == 0);
  }
  CHECK(wide_defs >= 6);

  std::vector<uint32_t> in(2 * 64);
  for (uint32_t i = 0; i < 64; ++i) {
    const double d = 0.25 * i - 3.0;
    std::memcpy(&in[2 * i], &d, 8);
  }
  std::map<uint32_t, std::vector<uint32_t>> buffers{
      {0, in},
      {1, std::vector<uint32_t>(2 * 64, 0)},
      {2, std::vector<uint32_t>(2 * 64, 0)}};
  Run(p, buffers, 2);
  for (uint32_t i = 0; i < 64; ++i) {
    INFO("invocation " << i);
    const float f = static_cast<float>(i) * 0.5f;
    const uint32_t k = i + 7;
    const double a = 0.25 * i - 3.0;
    const double b = a * static_cast<double>(f) + 1.0;
    const double expected = b * b + static_cast<double>(k) + f;
    double got;
    std::memcpy(&got, &buffers[1][2 * i], 8);
    CHECK(got == expected);
    const uint64_t big2 = uint64_t{i} * 0x100000001ull + k * 3u;
    uint64_t got_q;
    std::memcpy(&got_q, &buffers[2][2 * i], 8);
    CHECK(got_q == (big2 ^ k));
  }
}

// The same computation on the CPU as the divergence shader below.
uint32_t DivergentReference(uint32_t i) {
  const uint32_t a = i * 7u + 1u;
  const uint32_t b = i ^ 0x55u;
  const float f = static_cast<float>(i) * 0.25f;
  uint32_t r;
  if ((i & 1u) == 0u) {
    const uint32_t t0 = a * 3u;
    const uint32_t t1 = t0 + b;
    const uint32_t t2 = t1 * t1;
    const uint32_t t3 = t2 ^ (t0 >> 3);
    r = t3 + a;
  } else {
    const uint32_t s0 = b * 5u;
    const uint32_t s1 = s0 - a;
    r = (s1 << 2) - b;
  }
  uint32_t acc = 0u;
  for (uint32_t k = 0u; k < (i % 5u); ++k) {
    const uint32_t tmp = a + k;
    acc += tmp * b;
    if (acc > 1000u && (i & 2u) != 0u) break;
  }
  uint32_t tail = 0u;
  switch (i % 3u) {
    case 0:
      tail = a;
      [[fallthrough]];
    case 1:
      tail += b;
      break;
    default:
      tail = r ^ acc;
  }
  return r + acc + a + b + static_cast<uint32_t>(f) + tail;
}

TEST_CASE("values live across divergent branches and loops stay intact",
          "[simt][regalloc]") {
  // a, b and f are defined before the branches and read after them, while
  // each side (and each loop trip) defines temporaries of its own.
  const std::string source = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint y[]; } outb;
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint a = i * 7u + 1u;
  uint b = i ^ 0x55u;
  float f = float(i) * 0.25;
  uint r;
  if ((i & 1u) == 0u) {
    uint t0 = a * 3u;
    uint t1 = t0 + b;
    uint t2 = t1 * t1;
    uint t3 = t2 ^ (t0 >> 3);
    r = t3 + a;
  } else {
    uint s0 = b * 5u;
    uint s1 = s0 - a;
    r = (s1 << 2) - b;
  }
  uint acc = 0u;
  for (uint k = 0u; k < (i % 5u); ++k) {
    uint tmp = a + k;
    acc += tmp * b;
    if (acc > 1000u && (i & 2u) != 0u) break;
  }
  uint tail = 0u;
  switch (i % 3u) {
    case 0: tail = a;
    case 1: tail += b; break;
    default: tail = r ^ acc;
  }
  outb.y[i] = r + acc + a + b + uint(f) + tail;
}
)";
  for (uint32_t width : {32u, 8u, 4u}) {
    INFO("warp width " << width);
    const runner::BuiltProgram built = BuildGlsl(source, width);
    const Program& p = built.program;
    INFO("registers per thread: " << p.num_regs);
    CHECK(p.num_regs <= 16);
    std::map<uint32_t, std::vector<uint32_t>> buffers{
        {0, std::vector<uint32_t>(128, 0)}};
    Run(p, buffers, 2, width);
    for (uint32_t i = 0; i < 128; ++i) {
      INFO("invocation " << i);
      CHECK(buffers[0][i] == DivergentReference(i));
    }
  }
}

TEST_CASE("phi copies on a loop back edge swap values in parallel",
          "[simt][regalloc]") {
  // (x, y) = (y, x + y): the back edge's copies read both sources before
  // writing either destination.
  const std::string source = R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint y[]; } outb;
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint x = 0u;
  uint y = 1u;
  for (uint k = 0u; k < i; ++k) {
    uint t = x + y;
    x = y;
    y = t;
  }
  outb.y[i] = x;
}
)";
  const runner::BuiltProgram built = BuildGlsl(source);
  std::map<uint32_t, std::vector<uint32_t>> buffers{
      {0, std::vector<uint32_t>(32, 0)}};
  Run(built.program, buffers, 1);
  uint32_t x = 0, y = 1;
  for (uint32_t i = 0; i < 32; ++i) {
    INFO("invocation " << i);
    CHECK(buffers[0][i] == x);
    const uint32_t t = x + y;
    x = y;
    y = t;
  }
}

// A loop of `trips` trips over `body` (a constant trip count unless
// `runtime`), in a compute shader with a read-only buffer w, a buffer o
// and the loop's result s stored after it.
Program LoadLoop(const std::string& body, uint32_t trips,
                 bool runtime = false) {
  const std::string bound =
      runtime ? std::string("o.n") : std::to_string(trips);
  return BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer W { uint w[]; } b;
layout(set = 0, binding = 1) buffer O { uint n; uint o[]; } o;
void main() {
  uint i = gl_LocalInvocationID.x;
  uint s = 0u;
  for (int k = 0; k < )" +
                   bound + R"(; ++k) {
)" + body + R"(  }
  o.o[i] = s;
}
)")
      .program;
}

TEST_CASE("the loads of a completely unrolled loop are in flight together",
          "[simt][regalloc][model]") {
  // One buffer word per trip, at an address that changes with the trip:
  // NVIDIA's compiler issues every trip's load before the first sum (H200
  // record load-batching-2026-12-03: 16, 26, 42 registers for 8, 16, 32
  // trips, one more per trip), so each trip adds a register.
  const std::string body = "    s += b.w[i + 32u * uint(k)];\n";
  const Program p4 = LoadLoop(body, 4);
  const Program p8 = LoadLoop(body, 8);
  const Program p16 = LoadLoop(body, 16);
  INFO("model_regs " << p4.model_regs << ", " << p8.model_regs << ", "
                     << p16.model_regs << "; num_regs " << p8.num_regs);
  CHECK(p8.num_regs == p16.num_regs);  // the executor's count: one copy
  CHECK(p8.model_regs - p4.model_regs == 4);
  CHECK(p16.model_regs - p8.model_regs == 8);
  // As far as kLoadBatchRegisterLimit (64): 64 trips would need more.
  const Program p64 = LoadLoop(body, 64);
  CHECK(p64.model_regs == 64);
}

TEST_CASE("the loads of a nest of constant loops are in flight together",
          "[simt][regalloc][model]") {
  // 8 trips of 2 or 4: the compiler unrolls the nest whole and issues its
  // 16 or 32 loads as those of one loop (H200 record
  // stage-batching-2026-12-03: the nested family's counts are the single
  // loop's, 26 and 42 registers for 16 and 32 loads).
  auto nest = [](uint32_t inner) {
    const std::string n = std::to_string(inner);
    return BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer W { uint w[]; } b;
layout(set = 0, binding = 1) buffer O { uint o[]; } o;
void main() {
  uint i = gl_LocalInvocationID.x;
  uint s = 0u;
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < )" +
                     n + R"(; ++x)
      s += b.w[i + 32u * uint(y * )" +
                     n + R"( + x)];
  o.o[i] = s;
}
)")
        .program;
  };
  const std::string body = "    s += b.w[i + 32u * uint(k)];\n";
  const Program n16 = nest(2), n32 = nest(4);
  const Program l16 = LoadLoop(body, 16), l32 = LoadLoop(body, 32);
  INFO("nests " << n16.model_regs << ", " << n32.model_regs << "; loops "
                << l16.model_regs << ", " << l32.model_regs);
  CHECK(n16.model_regs == l16.model_regs);
  CHECK(n32.model_regs == l32.model_regs);
  CHECK(n32.model_regs - n16.model_regs == 16);
}

TEST_CASE("the limit on loads in flight depends on the stage",
          "[simt][regalloc][model]") {
  // 64 trips of one buffer word (H200 record stage-batching-2026-12-03:
  // 64 registers as a compute shader, 34 as a fragment shader, 69 as a
  // vertex shader).
  auto shader = [](const std::string& head, const std::string& index,
                   const std::string& tail) {
    return "#version 450\n" + head +
           "layout(set = 0, binding = 0) readonly buffer W { uint w[]; } b;\n"
           "void main() {\n  uint i = " +
           index +
           ";\n  uint s = 0u;\n"
           "  for (int k = 0; k < 64; ++k) s += b.w[i + 32u * uint(k)];\n" +
           tail + "}\n";
  };
  const Program vertex =
      BuildVertex(shader("layout(location = 0) flat out uint r;\n",
                         "uint(gl_VertexIndex)",
                         "  r = s;\n  gl_Position = vec4(0.0);\n"))
          .program;
  const Program fragment =
      BuildFragment(shader("layout(location = 0) out vec4 c;\n",
                           "uint(gl_FragCoord.x)", "  c = vec4(float(s));\n"))
          .program;
  const Program compute = LoadLoop("    s += b.w[i + 32u * uint(k)];\n", 64);
  INFO("compute " << compute.model_regs << ", fragment " << fragment.model_regs
                  << ", vertex " << vertex.model_regs);
  CHECK(compute.model_regs == 64);
  CHECK(fragment.model_regs == 32);
  CHECK(vertex.model_regs > 64);
}

// A shader with an array of 64 uints in local memory, filled by a loop,
// written at a run-time index (in a loop of a run-time trip count when
// `in_loop`, else once), then `reads` words of it summed by a loop.
Program LocalArrayReads(uint32_t reads, bool in_loop) {
  const std::string store =
      in_loop ? "  for (uint t = 0u; t < o.n; ++t) {\n"
                "    j = (a[j] + j) % 64u;\n    a[j] += 1u;\n  }\n"
              : "  a[j] = 0u;\n";
  return BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer O { uint n; uint o[]; } o;
void main() {
  uint i = gl_LocalInvocationID.x;
  uint a[64];
  for (int k = 0; k < 64; ++k) a[k] = uint(k) * i + 1u;
  uint j = i % 64u;
)" + store + R"(  uint s = 0u;
  for (int k = 0; k < )" +
                   std::to_string(reads) + R"(; ++k) s += a[k];
  o.o[i] = s;
}
)")
      .program;
}

TEST_CASE("loads of local memory written in a loop are in flight together",
          "[simt][regalloc][model]") {
  // H200 record array-stages-2026-12-03 (walk family): after a loop that
  // stores at run-time indices, the sum of the array's words counts as a
  // loop of buffer loads does.
  const Program w8 = LocalArrayReads(8, true);
  const Program w32 = LocalArrayReads(32, true);
  // stage-batching-2026-12-03 (local family): after a store outside any
  // loop, 16 registers whatever the number of words read (their values
  // forwarded from the stores).
  const Program s8 = LocalArrayReads(8, false);
  const Program s32 = LocalArrayReads(32, false);
  INFO("walk " << w8.model_regs << ", " << w32.model_regs << "; store "
               << s8.model_regs << ", " << s32.model_regs);
  CHECK(w8.private_bytes >= 256);
  CHECK(w32.model_regs - w8.model_regs == 24);
  CHECK(s8.model_regs == s32.model_regs);
}

TEST_CASE("loads the compiler cannot issue ahead count once",
          "[simt][regalloc][model]") {
  // The count does not grow with the trip count (4 against 16 trips).
  auto same_count = [](const std::string& body, bool runtime = false) {
    const Program p4 = LoadLoop(body, 4, runtime);
    const Program p16 = LoadLoop(body, 16, runtime);
    INFO(body << "model_regs " << p4.model_regs << ", " << p16.model_regs);
    CHECK(p4.model_regs == p16.model_regs);
  };
  // A trip count known only at run time: the loop is not unrolled
  // completely (the H200 record's runtime loops: 16 at every N).
  same_count("    s += b.w[i + 32u * uint(k)];\n", true);
  // The same address every trip: hoisted out of the loop, once.
  same_count("    s += b.w[i] * uint(k);\n");
  // A chase: each address is the previous load's value.
  same_count("    s = b.w[s + i];\n");
  // A store in the loop: a later trip's load may read it.
  same_count(
      "    s += b.w[i + 32u * uint(k)];\n    o.o[i + 32u * uint(k)] = s;\n");
}

}  // namespace
}  // namespace warpsim::simt

namespace warpsim::simt {
namespace {

// A shader that keeps `n` uints in a constant-indexed Function array which a
// loop carries as a whole (legalization turns it into a phi of the array
// type), and sums all of them at the end.
std::string CarriedArrayShader(uint32_t n) {
  const std::string ns = std::to_string(n);
  std::string source = R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint y[]; } outb;
layout(push_constant) uniform P { uint rounds; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint a[)" + ns + "];\n";
  for (uint32_t k = 0; k < n; ++k) {
    source += "  a[" + std::to_string(k) + "] = i * " + std::to_string(k + 1) +
              "u;\n";
  }
  source += "  for (uint r = 0u; r < pc.rounds; ++r) {\n    a[0] += a[" +
            std::to_string(n - 1) + "];\n    a[1] ^= a[" +
            std::to_string(n / 2) + "];\n  }\n  uint s = 0u;\n";
  for (uint32_t k = 0; k < n; ++k) {
    source += "  s += a[" + std::to_string(k) + "];\n";
  }
  source += "  outb.y[i] = s;\n}\n";
  return source;
}

TEST_CASE("a large aggregate kept in a variable counts as local memory",
          "[simt][regalloc][model]") {
  // 128 words: over kMaxRegisterAggregateWords. The executor holds the
  // array in registers (num_regs), NVIDIA's compiler in local memory: the
  // model counts only the loop counter, the index, addresses and sums.
  const runner::BuiltProgram built = BuildGlsl(CarriedArrayShader(128));
  const Program& p = built.program;
  INFO("num_regs " << p.num_regs << ", model_regs " << p.model_regs);
  CHECK(p.num_regs >= 128);
  CHECK(p.model_regs <= 16);
}

TEST_CASE("a small aggregate kept in a variable stays in registers",
          "[simt][regalloc][model]") {
  // 32 words: at most kMaxRegisterAggregateWords, so scalar replacement
  // keeps every element in a register and the model counts them all.
  const runner::BuiltProgram built = BuildGlsl(CarriedArrayShader(32));
  const Program& p = built.program;
  INFO("num_regs " << p.num_regs << ", model_regs " << p.model_regs);
  CHECK(p.num_regs >= 32);
  CHECK(p.model_regs == p.num_regs);
}

TEST_CASE("a large aggregate copied from buffer to buffer stays in registers",
          "[simt][regalloc][model]") {
  // A whole-array load from a buffer and its store: NVIDIA copies it
  // through registers (the H200 reports 255 for the 256-float
  // OpCopyLogical tests), so the model keeps counting it.
  const runner::BuiltProgram built = BuildGlsl(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer In { float x[128]; } inb;
layout(set = 0, binding = 1) buffer Out { float y[128]; } outb;
void main() { outb.y = inb.x; }
)");
  const Program& p = built.program;
  INFO("num_regs " << p.num_regs << ", model_regs " << p.model_regs);
  CHECK(p.num_regs >= 128);
  CHECK(p.model_regs == p.num_regs);
}

// A Function array of `n` floats indexed at run time: legalization leaves
// it in lane-private memory (the executor's registers do not hold it).
std::string RunTimeIndexedArray(uint32_t n) {
  const std::string N = std::to_string(n);
  return R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { float v[]; } b;
void main() {
  uint i = gl_GlobalInvocationID.x;
  float a[)" +
         N + R"(];
  for (int k = 0; k < )" +
         N + R"(; ++k) a[k] = b.v[(i + uint(k)) & 1023u];
  a[i % )" +
         N + R"(u] += 1.0;
  float s = 0.0;
  for (int k = 0; k < )" +
         N + R"(; ++k) s += a[k] * a[(uint(k) + i) % )" + N + R"(u];
  b.v[i] = s;
}
)";
}

TEST_CASE("a small array indexed at run time counts as registers",
          "[simt][regalloc][model]") {
  // 16 words, at most kMaxRegisterVariableWords: NVIDIA holds such an
  // array in registers (H200 record array-registers-2026-12-01: 47
  // registers for 16 floats), so the model counts every word.
  const runner::BuiltProgram built = BuildGlsl(RunTimeIndexedArray(16));
  const Program& p = built.program;
  INFO("num_regs " << p.num_regs << ", model_regs " << p.model_regs
                   << ", private bytes " << p.private_bytes);
  CHECK(p.private_bytes >= 64);
  CHECK(p.num_regs < 16);
  CHECK(p.model_regs >= p.num_regs + 16);
}

TEST_CASE("a large array indexed at run time stays in local memory",
          "[simt][regalloc][model]") {
  // 64 and 128 words: over kMaxRegisterVariableWords (the H200 record
  // array-registers-2026-12-01 puts 64 floats and more in local memory),
  // so the model counts none of them. What it counts is the loop that
  // fills the array from a buffer, 64 and 128 trips whose loads are in
  // flight together as far as kLoadBatchRegisterLimit: the record's
  // dynamic arrays of 64 to 256 floats all report 64 registers.
  const Program p64 = BuildGlsl(RunTimeIndexedArray(64)).program;
  const Program p128 = BuildGlsl(RunTimeIndexedArray(128)).program;
  INFO("num_regs " << p64.num_regs << ", model_regs " << p64.model_regs << ", "
                   << p128.model_regs);
  CHECK(p64.private_bytes >= 256);
  CHECK(p64.model_regs == 64);
  CHECK(p128.model_regs == 64);
}

// A fragment shader with `vec4 acc[k]` written and read in loops of k
// trips inside a loop of a run-time trip count (vulkan_ref's E12 shader),
// and with `extra` after those loops.
Program AccumulatorShader(uint32_t k, const std::string& extra = "") {
  const std::string n = std::to_string(k);
  return BuildFragment(R"(#version 450
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform P { uint iterations; float seed; } p;
void main() {
  vec4 acc[)" + n + R"(];
  for (int k = 0; k < )" +
                       n +
                       R"(; ++k) acc[k] = gl_FragCoord.xyxy * float(k + 1);
  for (uint i = 0u; i < p.iterations; ++i) {
    for (int k = 0; k < )" +
                       n + R"(; ++k) acc[k] = acc[k] * 1.0001 + p.seed;
  }
)" + extra + R"(  vec4 s = vec4(0.0);
  for (int k = 0; k < )" +
                       n + R"(; ++k) s += acc[k];
  color = fract(s);
}
)")
      .program;
}

TEST_CASE("an array indexed only in unrolled loops is held in registers",
          "[simt][regalloc][model]") {
  // 16 and 28 vec4s, 64 and 112 words: more than kMaxRegisterVariableWords,
  // but every index is a counter of a loop the compiler unrolls completely,
  // so the array is registers (H200 record observe-2026-11-30, E12: 73 and
  // 120 registers).
  const Program k16 = AccumulatorShader(16);
  const Program k28 = AccumulatorShader(28);
  // One access at an index known only at run time, outside those loops:
  // local memory, as for any array of more than 48 words.
  const Program mixed =
      AccumulatorShader(16, "  acc[uint(gl_FragCoord.x) % 16u] = vec4(0.0);\n");
  INFO("model_regs " << k16.model_regs << ", " << k28.model_regs
                     << "; with a run-time index " << mixed.model_regs);
  CHECK(k16.model_regs >= 64);
  CHECK(k28.model_regs >= 112);
  CHECK(k28.model_regs < 128);
  CHECK(mixed.model_regs < 64);
}

TEST_CASE("an array indexed by values loaded from it is in local memory",
          "[simt][regalloc][model]") {
  // 16 ints updated at run-time indices in a loop of a run-time trip
  // count. Indexed by the invocation and the counter: registers, every
  // word counted (H200 record array-stages-2026-12-03, dyn: 40 and more
  // registers at 16 words). Indexed by the values it holds (a walk): local
  // memory from 8 words (walk: Local Memory Size 64 bytes at 16 words).
  // (Two words read at the end: no loop of loads issued ahead.)
  auto shader = [](const std::string& index) {
    return BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer O { uint n; int o[]; } o;
void main() {
  uint i = gl_LocalInvocationID.x;
  int a[16];
  for (int k = 0; k < 16; ++k) a[k] = k * int(i) + 1;
  int j = int(i % 16u);
  for (uint t = 0u; t < o.n; ++t) {
    j = )" + index + R"(;
    a[j] += 1;
  }
  o.o[i] = a[0] + a[15];
}
)")
        .program;
  };
  const Program counted = shader("int((i + t) % 16u)");
  const Program walked = shader("(a[j] + j) % 16");
  INFO("model_regs " << counted.model_regs << ", " << walked.model_regs);
  CHECK(counted.model_regs >= 16 + 4);
  CHECK(walked.model_regs < counted.model_regs - 8);
}

TEST_CASE("a table of constants indexed at run time takes no registers",
          "[simt][regalloc][model]") {
  // Only ever given constants: a compiler reads it from constant memory.
  const runner::BuiltProgram built = BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { float v[]; } b;
void main() {
  float t[16] = float[](1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12.,
                        13., 14., 15., 16.);
  uint i = gl_GlobalInvocationID.x;
  b.v[i] = t[i % 16u] * t[(i + 3u) % 16u];
}
)");
  const Program& p = built.program;
  INFO("num_regs " << p.num_regs << ", model_regs " << p.model_regs);
  CHECK(p.private_bytes >= 64);
  CHECK(p.model_regs < 16);
}

TEST_CASE(
    "words a run-time store may write but nothing reads take no registers",
    "[simt][regalloc][model]") {
  // A store at a run-time index may or may not write each word: it keeps
  // a word alive only if a later load reads it. Here only t[0] and t[15]
  // are ever read, so the other 14 words of the 16-float array need no
  // register, where the array read at run time (the test above) needs 16.
  const runner::BuiltProgram built = BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { float v[]; } b;
void main() {
  uint i = gl_GlobalInvocationID.x;
  float t[16];
  t[0] = 0.0;
  t[15] = 0.0;
  for (uint k = 0u; k < 4u; ++k) t[(i + 5u * k) & 15u] = b.v[i] * float(k);
  b.v[i] = t[0] + t[15];
}
)");
  const Program& p = built.program;
  INFO("num_regs " << p.num_regs << ", model_regs " << p.model_regs
                   << ", private bytes " << p.private_bytes);
  CHECK(p.private_bytes >= 64);
  CHECK(p.model_regs < p.num_regs + 8);
}

// Four vec4 outputs whose first two components get values computed from
// the input; `init` is put first in main().
std::string FragmentOutputs(const std::string& init) {
  return R"(#version 450
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
layout(location = 3) out vec4 o3;
void main() {
)" + init +
         R"(
  o0.xy = sin(v.xy);
  o1.xy = cos(v.zw);
  o2.xy = exp2(v.xy);
  o3.xy = log2(v.zw);
}
)";
}

TEST_CASE("a fragment output given a constant takes a register only at the end",
          "[simt][regalloc][model]") {
  // NVIDIA's compiler writes a fragment's outputs into fixed registers at
  // the end: 4 vec4 outputs hold 16 registers there, whatever else is
  // live. Constants put in the outputs first (glslang loads and stores the
  // whole vector for o0.xy = ...) are set at the end, so they cost no
  // register before: the count is the 16 output registers either way.
  const runner::BuiltProgram first = BuildFragment(
      FragmentOutputs("  o0 = vec4(0, 0, 0, 1); o1 = vec4(0, 0, 0, 1);\n"
                      "  o2 = vec4(0, 0, 0, 1); o3 = vec4(0, 0, 0, 1);"));
  const runner::BuiltProgram none = BuildFragment(FragmentOutputs(""));
  INFO("constants first: num_regs " << first.program.num_regs << ", model_regs "
                                    << first.program.model_regs);
  INFO("no constants: num_regs " << none.program.num_regs << ", model_regs "
                                 << none.program.model_regs);
  CHECK(first.program.model_regs == 16);
  CHECK(none.program.model_regs == 16);
}

TEST_CASE("a fragment output given a value holds its register to the end",
          "[simt][regalloc][model]") {
  // A value stored early stays in its output register while the rest of
  // the shader runs. The executor keeps outputs in lane-private memory, so
  // its registers are those of the code after the store; the model holds
  // the 4 output words on top of them.
  const runner::BuiltProgram built = BuildFragment(R"(#version 450
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 o0;
void main() {
  o0 = sin(v);
  vec4 a = cos(v), b = exp2(v), c = log2(v);
  o0 += a * b * c + (a + b) * (b + c);
}
)");
  INFO("num_regs " << built.program.num_regs << ", model_regs "
                   << built.program.model_regs);
  CHECK(built.program.model_regs == built.program.num_regs + 4);
}

TEST_CASE(
    "the loads and stores of an array held in registers, and their access "
    "chains, are marked as moves between registers",
    "[simt][regalloc][model]") {
  // a[4] is written and read only in loops of a constant 4 trips: held in
  // registers. Its one store and one load are moves (1); the access chain
  // of the store and both of the load's (a[k], then .y) only lead to them
  // (2). The buffer's loads and store, and the input's load, stay memory.
  const Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { vec4 v[]; } b;
void main() {
  vec4 a[4];
  for (int k = 0; k < 4; ++k) a[k] = b.v[k];
  float s = 0.0;
  for (int k = 0; k < 4; ++k) s += a[k].y;
  b.v[gl_LocalInvocationID.x].x = s;
}
)")
                        .program;
  REQUIRE(p.register_private.size() == p.code.size());
  uint32_t moves = 0, chains = 0, memory = 0;
  for (size_t i = 0; i < p.code.size(); ++i) {
    const Instr& in = p.code[i];
    const bool access = in.op == spv::Op::OpLoad || in.op == spv::Op::OpStore;
    if (p.register_private[i] == 1) {
      CHECK(access);
      CHECK(in.pipe == Pipe::kAlu);
      moves += 1;
    } else if (p.register_private[i] == 2) {
      CHECK(in.op == spv::Op::OpAccessChain);
      CHECK(in.pipe == Pipe::kAlu);
      chains += 1;
    } else if (access) {
      CHECK(in.pipe == Pipe::kLsu);
      memory += 1;
    }
  }
  CHECK(moves == 2);
  CHECK(chains == 3);
  CHECK(memory == 3);
}

TEST_CASE(
    "loads of a uniform block or push constants at offsets known at compile "
    "time are marked as constant-bank operands",
    "[simt][regalloc][model]") {
  // u.scale and pc.bias: constant offsets in a uniform block and push
  // constants (3). u.table[k] at a run-time index, and the storage
  // buffer's loads, stay memory.
  const Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { float v[]; } b;
layout(set = 0, binding = 1) uniform U { float scale; float table[8]; } u;
layout(push_constant) uniform PC { float bias; } pc;
void main() {
  uint k = gl_LocalInvocationID.x & 7u;
  b.v[k] = b.v[k] * u.scale + pc.bias + u.table[k];
}
)")
                        .program;
  REQUIRE(p.register_private.size() == p.code.size());
  uint32_t constants = 0, chains = 0, memory = 0;
  for (size_t i = 0; i < p.code.size(); ++i) {
    const Instr& in = p.code[i];
    if (p.register_private[i] == 3) {
      CHECK(in.op == spv::Op::OpLoad);
      constants += 1;
    } else if (p.register_private[i] == 2) {
      CHECK(in.op == spv::Op::OpAccessChain);
      chains += 1;
    } else if (in.op == spv::Op::OpLoad) {
      CHECK(in.pipe == Pipe::kLsu);
      memory += 1;
    }
    CHECK(p.register_private[i] != 1);
  }
  CHECK(constants == 2);
  // The constant offsets need no access chain of their own here.
  CHECK(chains == 0);
  // b.v[k], u.table[k] and gl_LocalInvocationID (an input).
  CHECK(memory == 3);
}

TEST_CASE("a storage block declared as a BufferBlock uniform is no constant",
          "[simt][regalloc][model]") {
  // SPIR-V's older storage buffers: Uniform storage, BufferBlock: writable
  // memory, never a constant bank.
  // (glslang writes those for Vulkan 1.0.)
  constexpr spirv::TargetEnv kOld = spirv::TargetEnv::kVulkan1_0;
  auto words = spirv::CompileGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { float v[]; } b;
void main() { b.v[1] = b.v[0] * 2.0; }
)",
                                  spirv::ShaderStage::kCompute, kOld, "r.comp");
  REQUIRE(words.ok());
  auto built = runner::BuildProgram(*words, kOld, "r.comp", LowerOptions{}, {});
  REQUIRE(built.ok());
  const Program& p = built->program;
  REQUIRE(p.resources.size() == 1);
  CHECK(p.resources[0].storage == spv::StorageClass::Uniform);
  uint32_t loads = 0;
  for (size_t i = 0; i < p.code.size(); ++i) {
    if (p.code[i].op != spv::Op::OpLoad) continue;
    loads += 1;
    CHECK(p.code[i].pipe == Pipe::kLsu);
    CHECK((i >= p.register_private.size() || p.register_private[i] == 0));
  }
  CHECK(loads >= 1);
}

}  // namespace
}  // namespace warpsim::simt
