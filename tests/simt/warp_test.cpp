// Tests of emulator/simt/warp.cpp: a Warp driven directly, one Step() at a
// time, checking the InstrRecords (active masks, reconvergence, pipes,
// addresses, blocking) rather than only the final memory.
#include "simt/warp.h"

#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runner/shader_build.h"
#include "simt/lower.h"
#include "spirv/compile.h"
#include "spirv/module.h"

namespace warpsim::simt {
namespace {

constexpr spirv::TargetEnv kEnv = spirv::TargetEnv::kVulkan1_3;

Program BuildGlsl(const std::string& source, uint32_t warp_width = 32) {
  auto words =
      spirv::CompileGlsl(source, spirv::ShaderStage::kCompute, kEnv, "w.comp");
  INFO((words.ok() ? "" : words.error().ToString()));
  REQUIRE(words.ok());
  LowerOptions options;
  options.warp_width = warp_width;
  auto built = runner::BuildProgram(*words, kEnv, "w.comp", options, {});
  INFO((built.ok() ? "" : built.error().ToString()));
  REQUIRE(built.ok());
  return std::move(built->program);
}

// One Step()'s record, with the per-lane addresses copied out (the warp
// reuses its address buffer).
struct Step {
  InstrRecord rec;
  std::vector<uint64_t> addresses;
};

// A warp over one storage buffer (binding 0, 32-bit words) and
// `workgroup_bytes` of workgroup memory, with the lane's index written into
// every LocalInvocationId / LocalInvocationIndex / GlobalInvocationId /
// SubgroupLocalInvocationId input.
class WarpFixture {
 public:
  WarpFixture(const Program& program, uint32_t width, uint32_t launch_mask,
              size_t buffer_words, bool record_addresses = false)
      : buffer(buffer_words, 0xdeadbeefu) {
    workgroup_.assign(program.workgroup_bytes, 0);
    context_.regions.resize(program.num_regions);
    context_.regions[kRegionWorkgroup] = {workgroup_.data(), workgroup_.size(),
                                          true};
    for (const ResourceSlot& res : program.resources) {
      if (res.binding == 0) {
        context_.regions[res.region] = {
            reinterpret_cast<uint8_t*>(buffer.data()),
            buffer.size() * sizeof(uint32_t), true};
        buffer_region = res.region;
      }
    }
    context_.images.resize(context_.regions.size());
    context_.record_addresses = record_addresses;
    warp_ = std::make_unique<Warp>(program, width, launch_mask, &context_);
    for (uint32_t lane = 0; lane < width; ++lane) {
      uint8_t* mem = warp_->PrivateMemory(lane);
      for (const InputSlot& slot : program.inputs) {
        switch (slot.builtin) {
          case spv::BuiltIn::LocalInvocationId:
          case spv::BuiltIn::LocalInvocationIndex:
          case spv::BuiltIn::GlobalInvocationId:
          case spv::BuiltIn::SubgroupLocalInvocationId:
            std::memcpy(mem + slot.offset, &lane, 4);  // x = lane, y = z = 0
            break;
          default:
            FAIL("test fixture does not provide built-in "
                 << static_cast<int>(slot.builtin));
        }
      }
    }
  }

  // Steps until the warp is done (releasing barriers as a lone warp's
  // workgroup would), at most `limit` times.
  void RunToEnd(size_t limit = 100000) {
    while (!warp_->done() && steps.size() < limit) {
      Step s;
      s.rec = warp_->Step();
      if (s.rec.addresses != nullptr) {
        s.addresses.assign(s.rec.addresses, s.rec.addresses + warp_->width());
      }
      steps.push_back(s);
      if (s.rec.blocking == Blocking::kBarrier) {
        CHECK(warp_->at_barrier());
        ++barriers;
        warp_->ReleaseBarrier();
      }
    }
  }

  // The active masks in order, one run of equal masks per entry, e.g.
  // "ffffffff x5, aaaaaaaa x3, ..." for INFO() on failure.
  std::string MaskTrace() const {
    std::string s;
    for (size_t i = 0; i < steps.size();) {
      size_t j = i;
      while (j < steps.size() && steps[j].rec.active == steps[i].rec.active)
        ++j;
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%08x x%zu, ", steps[i].rec.active,
                    j - i);
      s += buf;
      i = j;
    }
    return s;
  }

  // The distinct runs of active masks in order.
  std::vector<uint32_t> MaskRuns() const {
    std::vector<uint32_t> runs;
    for (const Step& s : steps) {
      if (runs.empty() || runs.back() != s.rec.active)
        runs.push_back(s.rec.active);
    }
    return runs;
  }

  Warp& warp() { return *warp_; }
  ExecContext& context() { return context_; }

  std::vector<uint32_t> buffer;
  uint32_t buffer_region = 0;
  std::vector<Step> steps;
  int barriers = 0;

 private:
  std::vector<uint8_t> workgroup_;
  ExecContext context_;
  std::unique_ptr<Warp> warp_;
};

const char* const kIfElse = R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  if ((i & 1u) != 0u) {
    b.v[i] = i * 3u;
  } else {
    b.v[i] = i + 100u;
  }
  b.v[32u + i] = 7u;
}
)";

TEST_CASE(
    "a divergent if/else runs each side with its lanes, then "
    "reconverges",
    "[simt][warp]") {
  const Program p = BuildGlsl(kIfElse);
  WarpFixture f(p, 32, 0xffffffffu, 64);
  f.RunToEnd();
  INFO("active masks: " << f.MaskTrace());
  // Full warp, then the odd lanes (the true side comes first in structured
  // order), then the even lanes, then the full warp again after the merge.
  CHECK(f.MaskRuns() == std::vector<uint32_t>{0xffffffffu, 0xaaaaaaaau,
                                              0x55555555u, 0xffffffffu});
  CHECK(f.steps.back().rec.blocking == Blocking::kDone);
  CHECK(f.steps.back().rec.op == spv::Op::OpReturn);
  for (size_t i = 0; i + 1 < f.steps.size(); ++i) {
    INFO("step " << i);
    CHECK(f.steps[i].rec.blocking == Blocking::kNone);
  }
  for (uint32_t i = 0; i < 32; ++i) {
    INFO("lane " << i);
    CHECK(f.buffer[i] == ((i & 1) ? i * 3 : i + 100));
    CHECK(f.buffer[32 + i] == 7u);
  }
  // The dispatch counters add up the steps and their active lanes.
  uint64_t lanes = 0;
  for (const Step& s : f.steps) lanes += std::popcount(s.rec.active);
  CHECK(f.context().warp_instructions == f.steps.size());
  CHECK(f.context().lane_instructions == lanes);
  // A finished warp keeps answering kDone with no lanes.
  const InstrRecord after = f.warp().Step();
  CHECK(after.blocking == Blocking::kDone);
  CHECK(after.active == 0);
  CHECK(f.warp().done());
}

TEST_CASE("lanes of a loop with per-lane trip counts wait at the merge",
          "[simt][warp]") {
  const Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  uint acc = 0u;
  for (uint k = 0u; k < (i & 3u); ++k) {
    acc += k + 1u;
  }
  b.v[i] = acc;
}
)");
  WarpFixture f(p, 32, 0xffffffffu, 32);
  f.RunToEnd();
  INFO("active masks: " << f.MaskTrace());
  // While iterating, the active set only shrinks (lanes with more trips
  // remain); after the loop the whole warp runs again.
  const uint32_t more_than[4] = {0xeeeeeeeeu, 0xccccccccu, 0x88888888u, 0};
  bool saw[3] = {false, false, false};
  for (const Step& s : f.steps) {
    for (int t = 0; t < 3; ++t) saw[t] |= s.rec.active == more_than[t];
    CHECK((s.rec.active == 0xffffffffu || s.rec.active == more_than[0] ||
           s.rec.active == more_than[1] || s.rec.active == more_than[2]));
  }
  CHECK(saw[0]);
  CHECK(saw[1]);
  CHECK(saw[2]);
  CHECK(f.steps.back().rec.active == 0xffffffffu);
  CHECK(f.steps.back().rec.blocking == Blocking::kDone);
  for (uint32_t i = 0; i < 32; ++i) {
    const uint32_t n = i & 3;
    INFO("lane " << i);
    CHECK(f.buffer[i] == n * (n + 1) / 2);
  }
}

TEST_CASE("lanes that continue wait at the continue target", "[simt][warp]") {
  const Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  uint acc = 0u;
  for (uint k = 0u; k < 4u; ++k) {
    if (((i + k) & 3u) == 0u) continue;
    acc += k * i + 1u;
  }
  b.v[i] = acc;
}
)");
  // The loop's continue target, as a range of instructions.
  uint32_t first = 0, end = 0;
  for (const BlockInfo& b : p.blocks) {
    if (b.continue_block == 0xffffffffu) continue;
    first = p.blocks[b.continue_block].first_instr;
    end = b.continue_block + 1 < p.blocks.size()
              ? p.blocks[b.continue_block + 1].first_instr
              : static_cast<uint32_t>(p.code.size());
  }
  REQUIRE(end > first);
  WarpFixture f(p, 32, 0xffffffffu, 32);
  f.RunToEnd();
  INFO("active masks: " << f.MaskTrace());
  // Every iteration some lanes skip the rest of the body; they wait at the
  // continue target, which then runs for the whole warp, so lanes of
  // different iterations never run together.
  int continue_steps = 0;
  bool saw_partial = false;
  for (const Step& s : f.steps) {
    saw_partial |= s.rec.active != 0xffffffffu;
    if (s.rec.pc >= first && s.rec.pc < end) {
      ++continue_steps;
      INFO("pc " << s.rec.pc);
      CHECK(s.rec.active == 0xffffffffu);
    }
  }
  CHECK(saw_partial);
  CHECK(continue_steps >= 4);
  for (uint32_t i = 0; i < 32; ++i) {
    uint32_t acc = 0;
    for (uint32_t k = 0; k < 4; ++k) {
      if (((i + k) & 3u) == 0u) continue;
      acc += k * i + 1u;
    }
    INFO("lane " << i);
    CHECK(f.buffer[i] == acc);
  }
}

TEST_CASE("records name the pipe of arithmetic, memory and branches",
          "[simt][warp]") {
  const Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  float x = uintBitsToFloat(b.v[i]) * 2.0;
  uint y = i + 5u;
  if (y > 20u) y = y * 3u;
  b.v[i] = floatBitsToUint(x) ^ y;
}
)");
  WarpFixture f(p, 32, 0xffffffffu, 32);
  for (uint32_t i = 0; i < 32; ++i) {
    const float v = static_cast<float>(i);
    std::memcpy(&f.buffer[i], &v, 4);
  }
  f.RunToEnd();
  INFO("active masks: " << f.MaskTrace());
  int seen_load = 0, seen_store = 0, seen_fmul = 0, seen_iadd = 0,
      seen_branch = 0;
  for (const Step& s : f.steps) {
    INFO("pc " << s.rec.pc << " op " << static_cast<int>(s.rec.op) << " pipe "
               << PipeName(s.rec.pipe));
    CHECK(s.rec.op == p.code[s.rec.pc].op);
    switch (s.rec.op) {
      case spv::Op::OpLoad:
        // Loads of the lane's built-in read lane-private memory.
        CHECK(s.rec.pipe == Pipe::kLsu);
        ++seen_load;
        break;
      case spv::Op::OpStore:
        CHECK(s.rec.pipe == Pipe::kLsu);
        ++seen_store;
        break;
      case spv::Op::OpFMul:
        CHECK(s.rec.pipe == Pipe::kFma);
        ++seen_fmul;
        break;
      case spv::Op::OpIAdd:
        CHECK(s.rec.pipe == Pipe::kAlu);
        ++seen_iadd;
        break;
      case spv::Op::OpBranch:
      case spv::Op::OpBranchConditional:
      case spv::Op::OpReturn:
        CHECK(s.rec.pipe == Pipe::kBranch);
        ++seen_branch;
        break;
      default:
        break;
    }
  }
  CHECK(seen_load >= 1);
  CHECK(seen_store == 1);
  CHECK(seen_fmul == 1);
  CHECK(seen_iadd >= 1);
  CHECK(seen_branch >= 3);
  for (uint32_t i = 0; i < 32; ++i) {
    const float x = static_cast<float>(i) * 2.0f;
    uint32_t xb;
    std::memcpy(&xb, &x, 4);
    const uint32_t y = i + 5 > 20 ? (i + 5) * 3 : i + 5;
    INFO("lane " << i);
    CHECK(f.buffer[i] == (xb ^ y));
  }
}

TEST_CASE("memory records carry per-lane addresses when asked",
          "[simt][warp]") {
  const Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  uint x = b.v[(i * 5u) % 32u];
  if ((i & 1u) != 0u) b.v[64u + i] = x;
}
)");
  for (bool record : {true, false}) {
    INFO("record_addresses " << record);
    WarpFixture f(p, 32, 0xffffffffu, 96, record);
    f.RunToEnd();
    INFO("active masks: " << f.MaskTrace());
    const uint64_t region = uint64_t{f.buffer_region} << 32;
    int buffer_loads = 0, stores = 0;
    for (const Step& s : f.steps) {
      if (s.rec.pipe != Pipe::kLsu) {
        CHECK(s.rec.addresses == nullptr);
        continue;
      }
      if (!record) {
        CHECK(s.rec.addresses == nullptr);
        continue;
      }
      REQUIRE(s.rec.addresses != nullptr);
      // Only the buffer accesses (region != private) are checked here.
      const uint32_t first = std::countr_zero(s.rec.active);
      if ((s.addresses[first] >> 32) != f.buffer_region) continue;
      if (s.rec.op == spv::Op::OpLoad) {
        ++buffer_loads;
        for (uint32_t l = 0; l < 32; ++l) {
          INFO("load, lane " << l);
          CHECK(s.addresses[l] == (region | ((l * 5u) % 32u) * 4u));
        }
      } else if (s.rec.op == spv::Op::OpStore) {
        ++stores;
        CHECK(s.rec.active == 0xaaaaaaaau);
        for (uint32_t l = 1; l < 32; l += 2) {
          INFO("store, lane " << l);
          CHECK(s.addresses[l] == (region | (64u + l) * 4u));
        }
      }
    }
    if (record) {
      CHECK(buffer_loads == 1);
      CHECK(stores == 1);
    }
  }
}

TEST_CASE("OpControlBarrier blocks the warp with kBarrier", "[simt][warp]") {
  const Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
shared uint s[32];
void main() {
  uint i = gl_LocalInvocationID.x;
  s[i] = i * 2u;
  barrier();
  b.v[i] = s[31u - i];
  barrier();
}
)");
  CHECK(p.uses_barrier);
  WarpFixture f(p, 32, 0xffffffffu, 32);
  f.RunToEnd();
  INFO("active masks: " << f.MaskTrace());
  CHECK(f.barriers == 2);
  for (const Step& s : f.steps) {
    if (s.rec.op == spv::Op::OpControlBarrier) {
      CHECK(s.rec.blocking == Blocking::kBarrier);
      CHECK(s.rec.pipe == Pipe::kSync);
    } else if (&s != &f.steps.back()) {
      CHECK(s.rec.blocking == Blocking::kNone);
    }
  }
  CHECK(f.steps.back().rec.blocking == Blocking::kDone);
  for (uint32_t i = 0; i < 32; ++i) {
    INFO("lane " << i);
    CHECK(f.buffer[i] == (31 - i) * 2);
  }
}

TEST_CASE("a partial launch mask runs only the lanes that exist",
          "[simt][warp]") {
  const Program p = BuildGlsl(kIfElse);
  const uint32_t launch = 0x00001fffu;  // 13 lanes
  WarpFixture f(p, 32, launch, 64);
  CHECK(f.warp().launch_mask() == launch);
  CHECK(f.warp().alive() == launch);
  f.RunToEnd();
  INFO("active masks: " << f.MaskTrace());
  CHECK(f.MaskRuns() == std::vector<uint32_t>{launch, 0xaaaaaaaau & launch,
                                              0x55555555u & launch, launch});
  for (uint32_t i = 0; i < 32; ++i) {
    INFO("lane " << i);
    if (i < 13) {
      CHECK(f.buffer[i] == ((i & 1) ? i * 3 : i + 100));
      CHECK(f.buffer[32 + i] == 7u);
    } else {
      CHECK(f.buffer[i] == 0xdeadbeefu);
      CHECK(f.buffer[32 + i] == 0xdeadbeefu);
    }
  }
}

TEST_CASE("a warp of width 8", "[simt][warp]") {
  const Program p = BuildGlsl(kIfElse, 8);
  WarpFixture f(p, 8, 0xffu, 64);
  CHECK(f.warp().width() == 8);
  f.RunToEnd();
  INFO("active masks: " << f.MaskTrace());
  CHECK(f.MaskRuns() == std::vector<uint32_t>{0xffu, 0xaau, 0x55u, 0xffu});
  for (const Step& s : f.steps) CHECK((s.rec.active & ~0xffu) == 0);
  for (uint32_t i = 0; i < 32; ++i) {
    INFO("lane " << i);
    if (i < 8) {
      CHECK(f.buffer[i] == ((i & 1) ? i * 3 : i + 100));
      CHECK(f.buffer[32 + i] == 7u);
    } else {
      CHECK(f.buffer[i] == 0xdeadbeefu);
    }
  }
}

TEST_CASE("lanes that return early retire, the rest reconverge",
          "[simt][warp]") {
  // Hand-written and not legalized: spirv-opt's merge-return pass would
  // turn the early OpReturn into a branch to the end.
  const std::string text = R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %buf %lid
               OpExecutionMode %main LocalSize 32 1 1
               OpDecorate %lid BuiltIn LocalInvocationId
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %S 0 Offset 0
               OpDecorate %S Block
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 0
       %void = OpTypeVoid
     %fnvoid = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
        %rta = OpTypeRuntimeArray %uint
          %S = OpTypeStruct %rta
   %ptr_sb_S = OpTypePointer StorageBuffer %S
%ptr_sb_uint = OpTypePointer StorageBuffer %uint
  %ptr_in_v3 = OpTypePointer Input %v3uint
         %c0 = OpConstant %uint 0
         %c1 = OpConstant %uint 1
         %c2 = OpConstant %uint 2
         %c3 = OpConstant %uint 3
        %c24 = OpConstant %uint 24
        %c32 = OpConstant %uint 32
        %buf = OpVariable %ptr_sb_S StorageBuffer
        %lid = OpVariable %ptr_in_v3 Input
       %main = OpFunction %void None %fnvoid
      %entry = OpLabel
       %lidv = OpLoad %v3uint %lid
          %x = OpCompositeExtract %uint %lidv 0
        %out = OpAccessChain %ptr_sb_uint %buf %c0 %x
       %late = OpUGreaterThanEqual %bool %x %c24
               OpSelectionMerge %m1 None
               OpBranchConditional %late %ret %m1
        %ret = OpLabel
               OpStore %out %c1
               OpReturn
         %m1 = OpLabel
        %odd = OpBitwiseAnd %uint %x %c1
       %even = OpIEqual %bool %odd %c0
               OpSelectionMerge %m2 None
               OpBranchConditional %even %evenb %m2
      %evenb = OpLabel
               OpStore %out %c2
               OpBranch %m2
         %m2 = OpLabel
         %x2 = OpIAdd %uint %x %c32
       %out2 = OpAccessChain %ptr_sb_uint %buf %c0 %x2
               OpStore %out2 %c3
               OpReturn
               OpFunctionEnd
)";
  auto words = spirv::AssembleSpirv(text, kEnv, "w.spvasm");
  REQUIRE(words.ok());
  REQUIRE(spirv::ValidateSpirv(*words, kEnv, "w.spvasm").ok());
  auto module = spirv::Module::Build(*words, "w.spvasm");
  REQUIRE(module.ok());
  auto p = LowerProgram(*module, LowerOptions{});
  INFO((p.ok() ? "" : p.error().ToString()));
  REQUIRE(p.ok());

  WarpFixture f(*p, 32, 0xffffffffu, 64);
  f.RunToEnd();
  INFO("active masks: " << f.MaskTrace());
  // Lanes 24..31 store and retire; lanes 0..23 go on, split on parity and
  // reconverge for the final store without the retired lanes.
  CHECK(f.MaskRuns() == std::vector<uint32_t>{0xffffffffu, 0xff000000u,
                                              0x00ffffffu, 0x00555555u,
                                              0x00ffffffu});
  CHECK(f.steps.back().rec.op == spv::Op::OpReturn);
  CHECK(f.steps.back().rec.blocking == Blocking::kDone);
  for (uint32_t i = 0; i < 32; ++i) {
    INFO("lane " << i);
    if (i >= 24) {
      CHECK(f.buffer[i] == 1u);
      CHECK(f.buffer[32 + i] == 0xdeadbeefu);
    } else {
      CHECK(f.buffer[i] == ((i & 1) ? 0xdeadbeefu : 2u));
      CHECK(f.buffer[32 + i] == 3u);
    }
  }
}

TEST_CASE("a warp reset for a new launch runs like a new warp",
          "[simt][warp]") {
  const Program p = BuildGlsl(kIfElse);
  WarpFixture f(p, 32, 0xffffffffu, 64);
  f.RunToEnd();
  const std::vector<uint32_t> first = f.buffer;
  const std::vector<uint32_t> runs = f.MaskRuns();
  // Reuse the same warp: the private memory (inputs) is cleared by Reset,
  // so write the lane indices again, then run with half the lanes.
  std::fill(f.buffer.begin(), f.buffer.end(), 0xdeadbeefu);
  f.warp().Reset(0x0000ffffu);
  CHECK(f.warp().alive() == 0x0000ffffu);
  CHECK(f.warp().active() == 0x0000ffffu);
  CHECK_FALSE(f.warp().done());
  for (uint32_t lane = 0; lane < 32; ++lane) {
    uint8_t* mem = f.warp().PrivateMemory(lane);
    for (const InputSlot& slot : p.inputs) {
      std::memcpy(mem + slot.offset, &lane, 4);
    }
  }
  f.steps.clear();
  f.RunToEnd();
  INFO(f.MaskTrace());
  for (uint32_t i = 0; i < 32; ++i) {
    INFO("lane " << i);
    if (i < 16) {
      CHECK(f.buffer[i] == first[i]);
      CHECK(f.buffer[32 + i] == 7u);
    } else {
      CHECK(f.buffer[i] == 0xdeadbeefu);
      CHECK(f.buffer[32 + i] == 0xdeadbeefu);
    }
  }
  std::vector<uint32_t> expected;
  for (uint32_t m : runs) {
    if (expected.empty() || expected.back() != (m & 0xffffu))
      expected.push_back(m & 0xffffu);
  }
  CHECK(f.MaskRuns() == expected);
}

TEST_CASE(
    "a full-width warp reads the program's constant columns, other widths "
    "and copies read their own",
    "[simt][warp]") {
  const Program p32 = BuildGlsl(kIfElse);
  REQUIRE_FALSE(p32.const_values.empty());
  REQUIRE(p32.const_columns.size() ==
          p32.const_values.size() * kConstColumnWidth);
  ExecContext context;
  const Warp wide(p32, 32, ~0u, &context);
  for (uint32_t c = 0; c < p32.const_values.size(); ++c) {
    INFO("constant " << c);
    // The program's column itself, not a copy.
    CHECK(wide.Reg(p32.num_regs + c) ==
          p32.const_columns.data() + size_t{c} * 32);
  }
  const Program p8 = BuildGlsl(kIfElse, 8);
  auto narrow = std::make_unique<Warp>(p8, 8, 0xffu, &context);
  const Warp copy = *narrow;
  std::vector<const uint32_t*> original;
  for (uint32_t c = 0; c < p8.const_values.size(); ++c) {
    original.push_back(narrow->Reg(p8.num_regs + c));
  }
  narrow.reset();  // the copy must not read the original's buffer
  for (uint32_t c = 0; c < p8.const_values.size(); ++c) {
    INFO("constant " << c);
    const uint32_t* col = copy.Reg(p8.num_regs + c);
    CHECK(col != original[c]);
    for (uint32_t l = 0; l < 8; ++l) CHECK(col[l] == p8.const_values[c]);
  }
}

TEST_CASE("phi values swapped on a loop back edge stay parallel copies",
          "[simt][warp]") {
  // a and b swap every iteration (a cycle of phi copies on the back edge);
  // lanes run different trip counts, so the copies are masked too.
  const Program p = BuildGlsl(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  uint x = i, y = 1000u + i, z = 7u;
  for (uint k = 0u; k < (i & 3u) + 1u; ++k) {
    uint t = x;
    x = y + z;
    y = t;
    z = z * 3u;
  }
  b.v[i] = x;
  b.v[32u + i] = y;
}
)");
  WarpFixture f(p, 32, 0xffffffffu, 64);
  f.RunToEnd();
  for (uint32_t i = 0; i < 32; ++i) {
    INFO("lane " << i);
    uint32_t x = i, y = 1000u + i, z = 7u;
    for (uint32_t k = 0; k < (i & 3u) + 1u; ++k) {
      const uint32_t t = x;
      x = y + z;
      y = t;
      z = z * 3u;
    }
    CHECK(f.buffer[i] == x);
    CHECK(f.buffer[32 + i] == y);
  }
}

}  // namespace
}  // namespace warpsim::simt
