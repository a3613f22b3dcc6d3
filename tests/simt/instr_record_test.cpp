// Tests of the InstrRecord (emulator/simt/warp.h, README "InstrRecord"):
// for each opcode family, the registers read and written, the latency
// class, memory access sizes, spaces and addresses, branch taken masks and
// the helper mask; and Warp::Peek() agreeing with the next Step().
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runner/shader_build.h"
#include "simt/lower.h"
#include "simt/warp.h"
#include "spirv/compile.h"

namespace warpsim::simt {
namespace {

constexpr spirv::TargetEnv kEnv = spirv::TargetEnv::kVulkan1_3;

Program Build(const std::string& source,
              spirv::ShaderStage stage = spirv::ShaderStage::kCompute) {
  auto words = spirv::CompileGlsl(source, stage, kEnv, "r.glsl");
  INFO((words.ok() ? "" : words.error().ToString()));
  REQUIRE(words.ok());
  LowerOptions options;
  if (stage == spirv::ShaderStage::kFragment) {
    options.model = spv::ExecutionModel::Fragment;
  }
  auto built = runner::BuildProgram(*words, kEnv, "r.glsl", options, {});
  INFO((built.ok() ? "" : built.error().ToString()));
  REQUIRE(built.ok());
  return std::move(built->program);
}

// A record with its spans and addresses copied out.
struct Rec {
  InstrRecord rec;
  std::vector<uint32_t> reads, writes;
  std::vector<uint64_t> addresses;
  bool Reads(uint32_t r) const {
    return std::find(reads.begin(), reads.end(), r) != reads.end();
  }
  bool Writes(uint32_t r) const {
    return std::find(writes.begin(), writes.end(), r) != writes.end();
  }
};

// Runs a 32-lane warp over a storage buffer at binding 0 (and a 8x4 r32ui
// storage image at binding 1 when the program has one), with every lane's
// index in its compute built-ins, recording every step. Checks on the way
// that Peek() announces what the next Step() runs.
class Recorder {
 public:
  explicit Recorder(const Program& program, uint32_t helper = 0)
      : buffer(64, 0), texels(32, 0) {
    context_.regions.resize(program.num_regions);
    context_.images.resize(program.num_regions);
    workgroup_.assign(program.workgroup_bytes, 0);
    context_.regions[kRegionWorkgroup] = {workgroup_.data(), workgroup_.size(),
                                          true};
    for (const ResourceSlot& res : program.resources) {
      if (res.binding == 0) {
        context_.regions[res.region] = {
            reinterpret_cast<uint8_t*>(buffer.data()), buffer.size() * 4, true};
        buffer_region = res.region;
      } else if (res.binding == 1 && res.is_image) {
        ImageDesc& img = context_.images[res.region];
        img.bound = true;
        img.data = reinterpret_cast<uint8_t*>(texels.data());
        img.size = texels.size() * 4;
        img.format.bytes = 4;
        img.format.count = 1;
        img.format.comps[0] = {0, TexelKind::kUInt, 32, 0};
        img.width = 8;
        img.height = 4;
        image_region = res.region;
      }
    }
    context_.record_addresses = true;
    warp_ = std::make_unique<Warp>(program, 32, ~0u, &context_);
    warp_->set_helper(helper);
    for (uint32_t lane = 0; lane < 32; ++lane) {
      for (const InputSlot& slot : program.inputs) {
        if (slot.builtin == spv::BuiltIn::FragCoord) continue;  // zeros
        std::memcpy(warp_->PrivateMemory(lane) + slot.offset, &lane, 4);
      }
    }
    num_regs = program.num_regs;
    while (!warp_->done() && steps.size() < 10000) {
      const InstrPeek peek = warp_->Peek();
      Rec r;
      r.rec = warp_->Step();
      CHECK(peek.pc == r.rec.pc);
      CHECK(peek.op == r.rec.op);
      CHECK(peek.active == r.rec.active);
      CHECK(peek.latency == r.rec.latency);
      CHECK(peek.reads.data() == r.rec.reads.data());
      CHECK(peek.writes.size() == r.rec.writes.size());
      r.reads.assign(r.rec.reads.begin(), r.rec.reads.end());
      r.writes.assign(r.rec.writes.begin(), r.rec.writes.end());
      if (r.rec.addresses != nullptr) {
        r.addresses.assign(r.rec.addresses, r.rec.addresses + 32);
      }
      if (r.rec.blocking == Blocking::kBarrier) warp_->ReleaseBarrier();
      steps.push_back(std::move(r));
    }
    CHECK(warp_->done());
    CHECK(warp_->Peek().active == 0);
  }

  // The records of steps running `op`.
  std::vector<const Rec*> Of(spv::Op op) const {
    std::vector<const Rec*> out;
    for (const Rec& r : steps) {
      if (r.rec.op == op) out.push_back(&r);
    }
    return out;
  }

  std::vector<uint32_t> buffer;
  std::vector<uint32_t> texels;
  uint32_t buffer_region = 0;
  uint32_t image_region = 0;
  uint32_t num_regs = 0;
  std::vector<Rec> steps;

 private:
  std::vector<uint8_t> workgroup_;
  ExecContext context_;
  std::unique_ptr<Warp> warp_;
};

// Every register operand in dst/src[] (constants excluded) appears in the
// record's lists.
void CheckListsCoverOperands(const Recorder& r) {
  for (const Rec& s : r.steps) {
    INFO("pc " << s.rec.pc << " op " << static_cast<int>(s.rec.op));
    for (uint32_t src : s.rec.src) {
      if (src != kNoReg && src < r.num_regs) CHECK(s.Reads(src));
    }
    if (s.rec.dst != kNoReg && s.rec.dst < r.num_regs)
      CHECK(s.Writes(s.rec.dst));
    for (uint32_t reg : s.reads) CHECK(reg < r.num_regs);
    for (uint32_t reg : s.writes) CHECK(reg < r.num_regs);
  }
}

TEST_CASE("arithmetic records list their registers and latency class",
          "[simt][record]") {
  const Program p = Build(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { float v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  float x = float(i) * 1.5 + 2.0;
  b.v[i] = sqrt(x);
}
)");
  Recorder r(p);
  CheckListsCoverOperands(r);
  const auto muls = r.Of(spv::Op::OpFMul);
  REQUIRE_FALSE(muls.empty());
  CHECK(muls[0]->rec.latency == LatencyClass::kFixed);
  CHECK(muls[0]->writes.size() == 1);
  CHECK(muls[0]->reads.size() >= 1);  // the constant operand is not listed
  CHECK(muls[0]->rec.taken == 0);
  CHECK(muls[0]->rec.addresses == nullptr);
  const auto sqrts = r.Of(spv::Op::OpExtInst);
  REQUIRE_FALSE(sqrts.empty());
  CHECK(sqrts[0]->rec.pipe == Pipe::kSfu);
  CHECK(sqrts[0]->rec.latency == LatencyClass::kVariable);
}

TEST_CASE(
    "integer division by a constant is ALU or IMAD work, by a run-time value "
    "MUFU work",
    "[simt][record]") {
  const Program p = Build(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  int s = int(i) - 16;
  uint d = b.v[i] + 1u;
  b.v[i] = i / 8u + i % 3u + uint(s / -4) + uint(s % 5) + i / d;
}
)");
  Recorder r(p);
  CheckListsCoverOperands(r);
  auto one = [&](spv::Op op) -> const Rec* {
    const auto all = r.Of(op);
    REQUIRE(all.size() == 1);
    return all[0];
  };
  // i / d, a divisor known at run time only, and i / 8u.
  const auto udivs = r.Of(spv::Op::OpUDiv);
  REQUIRE(udivs.size() == 2);
  int alu = 0, sfu = 0;
  for (const Rec* u : udivs) {
    if (u->rec.pipe == Pipe::kAlu) {
      ++alu;
      CHECK(u->rec.latency == LatencyClass::kFixed);
    } else if (u->rec.pipe == Pipe::kSfu) {
      ++sfu;
      CHECK(u->rec.latency == LatencyClass::kVariable);
    }
  }
  CHECK(alu == 1);  // by 8: a shift
  CHECK(sfu == 1);  // by d: the MUFU.RCP sequence
  // By 3 and by 5: a multiply-high (IMAD).
  CHECK(one(spv::Op::OpUMod)->rec.pipe == Pipe::kFma);
  CHECK(one(spv::Op::OpUMod)->rec.latency == LatencyClass::kFixed);
  CHECK(one(spv::Op::OpSMod)->rec.pipe == Pipe::kFma);
  // By -4: a power of two's magnitude, shifts.
  CHECK(one(spv::Op::OpSDiv)->rec.pipe == Pipe::kAlu);
}

TEST_CASE("loads and stores list the registers they move and their accesses",
          "[simt][record]") {
  const Program p = Build(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uvec2 v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  uvec2 x = b.v[i];
  b.v[16u + (i & 15u)] = x + uvec2(1u, 2u);
}
)");
  Recorder r(p);
  CheckListsCoverOperands(r);
  const auto loads = r.Of(spv::Op::OpLoad);
  const auto stores = r.Of(spv::Op::OpStore);
  const Rec* buffer_load = nullptr;
  for (const Rec* s : loads) {
    if (!s->addresses.empty() && (s->addresses[0] >> 32) == r.buffer_region)
      buffer_load = s;
  }
  REQUIRE(buffer_load != nullptr);
  CHECK(buffer_load->rec.pipe == Pipe::kLsu);
  CHECK(buffer_load->rec.latency == LatencyClass::kVariable);
  CHECK(buffer_load->rec.access_bytes == 8);
  CHECK(buffer_load->writes.size() == 2);  // both components
  CHECK(buffer_load->reads.size() == 2);   // the pointer's two words
  for (uint32_t l = 0; l < 32; ++l) {
    INFO("lane " << l);
    CHECK(SpaceOfRegion(buffer_load->addresses[l] >> 32) ==
          MemorySpace::kGlobal);
    CHECK(static_cast<uint32_t>(buffer_load->addresses[l]) == 8 * l);
  }
  REQUIRE_FALSE(stores.empty());
  const Rec* st = stores.back();
  CHECK(st->rec.access_bytes == 8);
  CHECK(st->writes.empty());
  CHECK(st->reads.size() == 4);  // pointer (2) and value (2)
  CHECK(static_cast<uint32_t>(st->addresses[3]) == 8 * (16 + 3));
}

TEST_CASE("loads of private memory record their lanes' offsets",
          "[simt][record]") {
  // A built-in input (every lane the same offset of its own private
  // memory) and a function array indexed per lane: both fast paths of the
  // load record what the general one does.
  const Program p = Build(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  uint a[4] = uint[4](b.v[0], b.v[1], b.v[2], b.v[3]);
  b.v[32u + i] = a[i & 3u];
}
)");
  Recorder r(p);
  std::vector<const Rec*> private_loads;
  for (const Rec* s : r.Of(spv::Op::OpLoad)) {
    REQUIRE(s->addresses.size() == 32);
    if (SpaceOfRegion(s->addresses[0] >> 32) == MemorySpace::kPrivate) {
      private_loads.push_back(s);
    }
  }
  REQUIRE(private_loads.size() >= 2);
  bool same = false, per_lane = false;
  for (const Rec* s : private_loads) {
    CHECK(s->rec.access_bytes >= 4);
    bool all_same = true;
    for (uint32_t l = 0; l < 32; ++l) {
      CHECK(SpaceOfRegion(s->addresses[l] >> 32) == MemorySpace::kPrivate);
      all_same &= s->addresses[l] == s->addresses[0];
    }
    if (all_same) {
      same = true;
    } else {
      per_lane = true;
      // a[i & 3]: four offsets, one element apart, in turn.
      for (uint32_t l = 0; l < 32; ++l) {
        CHECK(s->addresses[l] == s->addresses[l & 3u]);
      }
      CHECK(s->addresses[1] - s->addresses[0] == 4);
    }
  }
  CHECK(same);
  CHECK(per_lane);
}

TEST_CASE("atomics record their access and the registers of the result",
          "[simt][record]") {
  const Program p = Build(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  b.v[32u + i] = atomicAdd(b.v[i & 3u], 1u);
}
)");
  Recorder r(p);
  CheckListsCoverOperands(r);
  const auto atomics = r.Of(spv::Op::OpAtomicIAdd);
  REQUIRE(atomics.size() == 1);
  const Rec& a = *atomics[0];
  CHECK(a.rec.pipe == Pipe::kLsu);
  CHECK(a.rec.access_bytes == 4);
  CHECK(a.writes.size() == 1);
  CHECK(a.Writes(a.rec.dst));
  for (uint32_t l = 0; l < 32; ++l) {
    CHECK(static_cast<uint32_t>(a.addresses[l]) == 4 * (l & 3u));
  }
  CHECK(r.buffer[0] == 8u);
}

TEST_CASE("image loads and stores record texel addresses", "[simt][record]") {
  const Program p = Build(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
layout(set = 0, binding = 1, r32ui) uniform uimage2D img;
void main() {
  uint i = gl_LocalInvocationID.x;
  ivec2 c = ivec2(i & 7u, i >> 3u);
  imageStore(img, c, uvec4(i * 10u));
  b.v[i] = imageLoad(img, ivec2(7, 3) - c).x;
}
)");
  Recorder r(p);
  CheckListsCoverOperands(r);
  const auto writes = r.Of(spv::Op::OpImageWrite);
  const auto reads = r.Of(spv::Op::OpImageRead);
  REQUIRE(writes.size() == 1);
  REQUIRE(reads.size() == 1);
  CHECK(writes[0]->rec.access_bytes == 4);
  CHECK(reads[0]->rec.access_bytes == 4);
  CHECK(reads[0]->rec.pipe == Pipe::kTex);
  CHECK(writes[0]->writes.empty());
  CHECK_FALSE(reads[0]->writes.empty());
  for (uint32_t l = 0; l < 32; ++l) {
    INFO("lane " << l);
    CHECK((writes[0]->addresses[l] >> 32) == r.image_region);
    CHECK(static_cast<uint32_t>(writes[0]->addresses[l]) == 4 * l);
    CHECK(static_cast<uint32_t>(reads[0]->addresses[l]) == 4 * (31 - l));
    CHECK(r.buffer[l] == (31 - l) * 10u);
  }
}

TEST_CASE("image samples record the first texel each lane reads",
          "[simt][record]") {
  const Program p = Build(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
layout(set = 0, binding = 1) uniform usampler2D tex;
void main() {
  uint i = gl_LocalInvocationID.x;
  vec2 c = vec2(float(7u - (i & 7u)), float(i >> 3u));
  b.v[i] = textureLod(tex, (c + 0.5) / vec2(8.0, 4.0), 0.0).x;
}
)");
  Recorder r(p);
  CheckListsCoverOperands(r);
  std::vector<const Rec*> samples;
  for (const Rec& s : r.steps) {
    if (s.rec.pipe == Pipe::kTex) samples.push_back(&s);
  }
  REQUIRE(samples.size() == 1);
  REQUIRE(samples[0]->addresses.size() == 32);
  CHECK(samples[0]->rec.access_bytes == 4);
  for (uint32_t l = 0; l < 32; ++l) {
    INFO("lane " << l);
    // Nearest filtering (an integer format): the texel under the lane's
    // coordinate, row-major 8 texels of 4 bytes per row.
    const uint32_t texel = (l >> 3) * 8 + (7 - (l & 7));
    CHECK((samples[0]->addresses[l] >> 32) == r.image_region);
    CHECK(static_cast<uint32_t>(samples[0]->addresses[l]) == 4 * texel);
  }
}

TEST_CASE("branch records carry the taken mask", "[simt][record]") {
  const Program p = Build(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  uint x = 0u;
  if ((i & 1u) != 0u) x = i * 3u;
  switch (i & 3u) {
    case 0u: x += 1u; break;
    case 2u: x += 5u; break;
    default: x += 9u; break;
  }
  b.v[i] = x;
}
)");
  Recorder r(p);
  CheckListsCoverOperands(r);
  const auto conds = r.Of(spv::Op::OpBranchConditional);
  REQUIRE_FALSE(conds.empty());
  CHECK(conds[0]->rec.pipe == Pipe::kBranch);
  CHECK(conds[0]->rec.active == ~0u);
  CHECK(conds[0]->rec.taken == 0xaaaaaaaau);
  const auto switches = r.Of(spv::Op::OpSwitch);
  REQUIRE(switches.size() == 1);
  CHECK(switches[0]->rec.taken == 0x55555555u);  // lanes matching a case
  for (const Rec* s : r.Of(spv::Op::OpBranch)) {
    CHECK(s->rec.taken == s->rec.active);
  }
  for (const Rec* s : r.Of(spv::Op::OpReturn)) CHECK(s->rec.taken == 0);
}

TEST_CASE("derivative records carry the helper mask", "[simt][record]") {
  const Program p = Build(R"(#version 450
layout(location = 0) in float v;
layout(location = 0) out vec4 color;
void main() { color = vec4(dFdx(v), dFdy(v), 0.0, 1.0); }
)",
                          spirv::ShaderStage::kFragment);
  const uint32_t helpers = 0x80402010u;
  Recorder r(p, helpers);
  CheckListsCoverOperands(r);
  const auto dx = r.Of(spv::Op::OpDPdx);
  REQUIRE(dx.size() == 1);
  CHECK(dx[0]->rec.helper == helpers);
  CHECK(dx[0]->writes.size() == 1);
  CHECK(dx[0]->reads.size() == 1);
  for (const Rec& s : r.steps) CHECK(s.rec.helper == helpers);
}

TEST_CASE("subgroup records list their registers", "[simt][record]") {
  const Program p = Build(R"(#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer B { uint v[]; } b;
void main() {
  uint i = gl_LocalInvocationID.x;
  b.v[i] = subgroupAdd(i);
}
)");
  Recorder r(p);
  CheckListsCoverOperands(r);
  const auto adds = r.Of(spv::Op::OpGroupNonUniformIAdd);
  REQUIRE(adds.size() == 1);
  CHECK(adds[0]->rec.pipe == Pipe::kSync);
  CHECK(adds[0]->reads.size() == 1);
  CHECK(adds[0]->writes.size() == 1);
  CHECK(r.buffer[5] == 496u);
}

}  // namespace
}  // namespace warpsim::simt
