// Atomic instructions (exec_atomic.cpp): every operation on storage buffers
// and workgroup memory, 32- and 64-bit integers and 32-bit floats, lane-order
// determinism, divergence and cross-warp atomics with barriers.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "simt/lower.h"
#include "simt/warp.h"
#include "spirv/compile.h"
#include "spirv/module.h"

using warpsim::runner::RunStatus;
using warpsim::testing::Describe;
using warpsim::testing::RunAmberText;

namespace {

void CheckPasses(const std::string& amber, uint32_t width = 32) {
  const auto report = RunAmberText(amber, width);
  INFO("warp width " << width << ": " << Describe(report));
  CHECK(report.status == RunStatus::kPass);
}

}  // namespace

TEST_CASE("atomic add hands out tickets in lane order", "[simt][atomic]") {
  // Three workgroups of 40 invocations; only invocations with i % 5 != 3
  // take a ticket. Within a warp the lanes update memory one after another,
  // lane 0 first, so a lane's ticket minus the warp's first ticket is its
  // rank among the active lanes. Every ticket 0..95 is handed out once.
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) buffer C { uint counter; uint seen[96]; } c;
layout(set = 0, binding = 1) buffer E { uint err[]; } e;
void main() {
  uint i = gl_LocalInvocationID.x;
  uint g = gl_GlobalInvocationID.x;
  uint err = 0u;
  if (i % 5u != 3u) {
    uint t = atomicAdd(c.counter, 1u);
    uint first = subgroupBroadcastFirst(t);
    uint rank = subgroupBallotExclusiveBitCount(subgroupBallot(true));
    if (t - first != rank) err = 1u;
    if (t < 96u) atomicAdd(c.seen[t], 1u);
  }
  e.err[g] = err;
}
END
BUFFER cbuf DATA_TYPE uint32 SIZE 97 FILL 0
BUFFER ebuf DATA_TYPE uint32 SIZE 120 FILL 7
PIPELINE compute p
  ATTACH cs
  BIND BUFFER cbuf AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER ebuf AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 3 1 1
EXPECT cbuf IDX 0 EQ 96
EXPECT cbuf IDX 4 EQ 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
EXPECT ebuf IDX 0 EQ 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
)";
  CheckPasses(amber, 32);
  CheckPasses(amber, 8);
}

TEST_CASE("32-bit integer atomics on a storage buffer", "[simt][atomic]") {
  // One warp of 32 lanes, each lane's operations applied in lane order.
  //  [0] add i          -> 496        [1] sub i     -> 1000 - 496 = 504
  //  [2] smin i - 20    -> -20        [3] smax i-20 -> 11
  //  [4] umin           -> 5          [5] umax      -> 0x8000001f
  //  [6] and ~(1 << i)  -> 0          [7] or 1 << i -> 0xffffffff
  //  [8] xor i          -> 0 (xor of 0..31)
  //  [9] exchange i     -> 31; lane i gets i - 1 (lane 0 gets 77)
  // [10] compare-exchange(i -> i + 1): succeeds in lane order -> 32
  // [11] compare-exchange(0 -> 100 + i): only lane 0 succeeds -> 100
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer M { int m[12]; } m;
layout(set = 0, binding = 1) buffer U { uint u[12]; } u;
layout(set = 0, binding = 2) buffer R { uint r[]; } r;
void main() {
  uint i = gl_LocalInvocationID.x;
  int s = int(i) - 20;
  atomicAdd(u.u[0], i);
  atomicAdd(u.u[1], uint(-int(i)));
  atomicMin(m.m[2], s);
  atomicMax(m.m[3], s);
  atomicMin(u.u[4], 5u + i);
  atomicMax(u.u[5], 0x80000000u + i);
  atomicAnd(u.u[6], ~(1u << i));
  atomicOr(u.u[7], 1u << i);
  atomicXor(u.u[8], i);
  uint prev = atomicExchange(u.u[9], i);
  uint cs = atomicCompSwap(u.u[10], i, i + 1u);
  uint c0 = atomicCompSwap(u.u[11], 0u, 100u + i);
  r.r[i] = prev;
  r.r[32u + i] = cs;
  r.r[64u + i] = c0;
}
END
BUFFER mb DATA_TYPE int32 DATA 0 0 0 0 0 0 0 0 0 0 0 0 END
BUFFER ub DATA_TYPE uint32 DATA 0 1000 0 0 4000000000 0 4294967295 0 0 77 0 0 END
BUFFER rb DATA_TYPE uint32 SIZE 96 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER mb AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER ub AS storage DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER rb AS storage DESCRIPTOR_SET 0 BINDING 2
END
RUN p 1 1 1
EXPECT mb IDX 8 EQ -20 11
EXPECT ub IDX 0 EQ 496 504
EXPECT ub IDX 16 EQ 5 2147483679 0 4294967295 0 31 32 100
EXPECT rb IDX 0 EQ 77 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30
EXPECT rb IDX 128 EQ 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
EXPECT rb IDX 256 EQ 0 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100 100
)";
  CheckPasses(amber);
}

TEST_CASE("64-bit integer atomics", "[simt][atomic]") {
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) buffer U { uint64_t u[6]; } u;
layout(set = 0, binding = 1) buffer S { int64_t s[2]; } s;
layout(set = 0, binding = 2) buffer R { uint64_t r[]; } r;
void main() {
  uint i = gl_LocalInvocationID.x;
  uint64_t big = uint64_t(i) << 33;
  atomicAdd(u.u[0], big + 1ul);
  atomicMax(u.u[1], big | 0x8000000000000000ul);
  atomicOr(u.u[2], 1ul << (i + 20u));
  atomicAnd(u.u[3], ~(1ul << i));
  r.r[i] = atomicExchange(u.u[4], big);
  atomicCompSwap(u.u[5], uint64_t(i) << 40, uint64_t(i + 1u) << 40);
  atomicMin(s.s[0], -int64_t(big));
  atomicMax(s.s[1], int64_t(i) - 10l);
}
END
BUFFER ub DATA_TYPE uint64 DATA 0 0 0 18446744073709551615 5 0 END
BUFFER sb DATA_TYPE int64 DATA 0 -100 END
BUFFER rb DATA_TYPE uint64 SIZE 40 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER ub AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER sb AS storage DESCRIPTOR_SET 0 BINDING 1
  BIND BUFFER rb AS storage DESCRIPTOR_SET 0 BINDING 2
END
RUN p 1 1 1
EXPECT ub IDX 0 EQ 6700148981800 9223372371862224896 1152921504605798400 18446742974197923840 335007449088 43980465111040
EXPECT sb IDX 0 EQ -335007449088 29
EXPECT rb IDX 0 EQ 5 0 8589934592 17179869184
EXPECT rb IDX 256 EQ 266287972352 274877906944
)";
  CheckPasses(amber);
}

TEST_CASE("float atomics add, exchange, min and max", "[simt][atomic]") {
  // Values are multiples of 0.25, so every order of additions is exact.
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
#extension GL_EXT_shader_atomic_float : require
#extension GL_EXT_shader_atomic_float2 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer F { float f[4]; } f;
shared float sh;
void main() {
  uint i = gl_LocalInvocationID.x;
  if (i == 0u) sh = 0.0;
  barrier();
  float x = float(i) * 0.25 - 4.0;
  atomicAdd(f.f[0], x);
  atomicAdd(sh, 0.5);
  atomicMin(f.f[1], x);
  atomicMax(f.f[2], x);
  barrier();
  if (i == 0u) f.f[3] = sh + atomicExchange(f.f[3], 1.0);
}
END
BUFFER fb DATA_TYPE float DATA 1.5 0.0 0.0 2.0 END
PIPELINE compute p
  ATTACH cs
  BIND BUFFER fb AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
EXPECT fb IDX 0 EQ 249.5 -4.0 11.75 34.0
)";
  CheckPasses(amber);
  CheckPasses(amber, 8);
}

TEST_CASE("workgroup-memory atomics across warps with barriers",
          "[simt][atomic]") {
  // 128 invocations = 4 warps of 32 (16 warps of 8); three workgroups, each
  // with its own shared memory. Invocation 0 of each workgroup writes the
  // totals after the barrier.
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) buffer O { uint o[]; } o;
shared uint total;
shared uint hist[8];
shared int lowest;
void main() {
  uint i = gl_LocalInvocationID.x;
  uint w = gl_WorkGroupID.x;
  if (i == 0u) { total = 0u; lowest = 0; }
  if (i < 8u) hist[i] = 0u;
  barrier();
  atomicAdd(total, i + w);
  if (i % 3u != 0u) atomicAdd(hist[i % 8u], 1u);
  atomicMin(lowest, -int(i * (w + 1u)));
  barrier();
  if (i < 8u) o.o[w * 10u + 2u + i] = hist[i];
  if (i == 0u) { o.o[w * 10u] = total; o.o[w * 10u + 1u] = uint(lowest); }
}
END
BUFFER ob DATA_TYPE uint32 SIZE 30 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER ob AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 3 1 1
EXPECT ob IDX 0 EQ 8128 4294967169 10 11 11 10 11 11 10 11
EXPECT ob IDX 40 EQ 8256 4294967042 10 11 11 10 11 11 10 11
EXPECT ob IDX 80 EQ 8384 4294966915 10 11 11 10 11 11 10 11
)";
  CheckPasses(amber, 32);
  CheckPasses(amber, 8);
}

TEST_CASE("atomic load, store, increment and decrement", "[simt][atomic]") {
  // SPIR-V assembly for the opcodes GLSL does not emit directly:
  // buf[0] += 1 (OpAtomicIIncrement) and buf[1] -= 1 (OpAtomicIDecrement)
  // by each of 8 invocations; lane i receives the value before its update;
  // then OpAtomicLoad of buf[0] and OpAtomicStore of it into buf[2 + i];
  // buf[26] -= i (OpAtomicISub).
  const std::string amber = R"(#!amber
SHADER compute cs SPIRV-ASM TARGET_ENV spv1.3
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %lid
               OpExecutionMode %main LocalSize 8 1 1
               OpDecorate %lid BuiltIn LocalInvocationId
               OpDecorate %rt ArrayStride 4
               OpMemberDecorate %blk 0 Offset 0
               OpDecorate %blk Block
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
     %ptr_in = OpTypePointer Input %v3uint
        %lid = OpVariable %ptr_in Input
         %rt = OpTypeRuntimeArray %uint
        %blk = OpTypeStruct %rt
    %ptr_blk = OpTypePointer StorageBuffer %blk
        %buf = OpVariable %ptr_blk StorageBuffer
   %ptr_uint = OpTypePointer StorageBuffer %uint
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
    %uint_10 = OpConstant %uint 10
    %uint_18 = OpConstant %uint 18
    %uint_26 = OpConstant %uint 26
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %id = OpLoad %v3uint %lid
          %x = OpCompositeExtract %uint %id 0
         %p0 = OpAccessChain %ptr_uint %buf %uint_0 %uint_0
         %p1 = OpAccessChain %ptr_uint %buf %uint_0 %uint_1
        %inc = OpAtomicIIncrement %uint %p0 %uint_1 %uint_0
        %dec = OpAtomicIDecrement %uint %p1 %uint_1 %uint_0
         %i2 = OpIAdd %uint %x %uint_2
         %pi = OpAccessChain %ptr_uint %buf %uint_0 %i2
         %ld = OpAtomicLoad %uint %p0 %uint_1 %uint_0
               OpAtomicStore %pi %uint_1 %uint_0 %ld
        %i10 = OpIAdd %uint %x %uint_10
        %pa = OpAccessChain %ptr_uint %buf %uint_0 %i10
               OpStore %pa %inc
        %i18 = OpIAdd %uint %x %uint_18
         %pb = OpAccessChain %ptr_uint %buf %uint_0 %i18
               OpStore %pb %dec
        %p26 = OpAccessChain %ptr_uint %buf %uint_0 %uint_26
        %sub = OpAtomicISub %uint %p26 %uint_1 %uint_0 %x
               OpReturn
               OpFunctionEnd
END
BUFFER big DATA_TYPE uint32 SIZE 27 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER big AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p 1 1 1
EXPECT big IDX 0 EQ 8 4294967288 8 8 8 8 8 8 8 8
EXPECT big IDX 40 EQ 0 1 2 3 4 5 6 7
EXPECT big IDX 72 EQ 0 4294967295 4294967294 4294967293 4294967292 4294967291 4294967290 4294967289 4294967268
)";
  CheckPasses(amber);
}

TEST_CASE("atomics in divergent code touch memory once per active lane",
          "[simt][atomic]") {
  // Lanes that skip the branch must not update memory; an out-of-bounds
  // atomic is dropped and returns 0.
  const std::string amber = R"(#!amber
SHADER compute cs GLSL
#version 450
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) buffer O { uint o[4]; } o;
layout(set = 0, binding = 1) buffer R { uint r[]; } r;
void main() {
  uint i = gl_LocalInvocationID.x;
  uint got = 99u;
  if ((i & 1u) == 1u) {
    atomicAdd(o.o[0], 1u);
    if (i > 30u) got = atomicAdd(o.o[i], 5u);  // o[31..] is out of bounds
  } else {
    atomicOr(o.o[1], 1u << (i % 32u));
  }
  r.r[i] = got;
}
END
BUFFER ob DATA_TYPE uint32 SIZE 4 FILL 0
BUFFER rb DATA_TYPE uint32 SIZE 40 FILL 0
PIPELINE compute p
  ATTACH cs
  BIND BUFFER ob AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER rb AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 1 1 1
EXPECT ob IDX 0 EQ 20 1431655765 0 0
EXPECT rb IDX 120 EQ 99 0 99 0 99 0 99 0 99 0
)";
  CheckPasses(amber);
}

TEST_CASE("helper lanes do not modify memory through atomics",
          "[simt][atomic][subgroup]") {
  // Compute pipelines have no helper invocations, so this drives one warp
  // of 8 lanes directly with lanes 1 and 4 marked as helpers. Helpers run
  // the atomic without touching memory, so the other lanes' tickets are
  // consecutive in lane order; their plain stores are masked too. In the
  // subgroup reduction helpers take part like any other active lane
  // (warpsim's choice), so the sum covers all 8 lanes.
  const std::string src = R"(#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer B { uint counter; uint sum; uint ret[8]; } b;
void main() {
  uint l = gl_SubgroupInvocationID;
  uint t = atomicAdd(b.counter, 1u);
  b.sum = subgroupAdd(l + 1u);
  b.ret[l] = t;
}
)";
  using namespace warpsim;
  const auto env = spirv::TargetEnv::kVulkan1_3;
  auto words =
      spirv::CompileGlsl(src, spirv::ShaderStage::kCompute, env, "h.comp");
  REQUIRE(words.ok());
  auto legal = spirv::LegalizeSpirv(*words, env, "h.comp");
  REQUIRE(legal.ok());
  auto module = spirv::Module::Build(*legal, "h.comp");
  REQUIRE(module.ok());
  simt::LowerOptions options;
  options.warp_width = 8;
  auto program = simt::LowerProgram(*module, options);
  REQUIRE(program.ok());
  REQUIRE(program->resources.size() == 1);

  std::vector<uint32_t> mem(10, 0xdeadu);
  mem[0] = 0;  // counter
  simt::ExecContext context;
  context.regions.resize(program->num_regions);
  context.regions[program->resources[0].region] = {
      reinterpret_cast<uint8_t*>(mem.data()), mem.size() * 4, true};
  simt::Warp warp(*program, 8, 0xffu, &context);
  for (uint32_t l = 0; l < 8; ++l) {
    for (const simt::InputSlot& slot : program->inputs) {
      if (slot.builtin == spv::BuiltIn::SubgroupLocalInvocationId) {
        std::memcpy(warp.PrivateMemory(l) + slot.offset, &l, 4);
      }
    }
  }
  warp.set_helper(0b00010010u);
  for (int steps = 0; !warp.done() && steps < 1000; ++steps) warp.Step();
  REQUIRE(warp.done());
  CHECK(mem[0] == 6);   // six non-helper lanes took a ticket
  CHECK(mem[1] == 36);  // 1 + 2 + ... + 8: helpers contribute
  const std::vector<uint32_t> ret(mem.begin() + 2, mem.end());
  CHECK(ret == std::vector<uint32_t>{0, 0xdead, 1, 2, 0xdead, 3, 4, 5});
}
