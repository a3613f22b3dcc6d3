// `warpsim-vkref --observe`: the SPIR-V pass that makes a vertex, fragment
// or compute shader record, per invocation, where and how the device ran
// it.
//
// The pass adds one storage buffer (a runtime array of uint at the set and
// binding the caller picks) and, at the start of the entry point (before
// any of the shader's own code, so before any discard or divergence):
//   - a warp number: the lowest non-helper lane of each subgroup takes the
//     next value of a counter and shuffles it to the others, so every
//     invocation of one warp carries the same number, unique in the draw;
//   - per non-helper invocation, one record of kObserveRecordWords words
//     (ObserveField) taken from a second counter: SM id and warp slot
//     (SPV_NV_shader_sm_builtins), subgroup lane and size,
//     subgroupBallot(true), a subgroup-scope clock (SPV_KHR_shader_clock);
//     for fragments the quad's helper lanes (quad broadcasts of
//     HelperInvocation), FragCoord.xy and PrimitiveId; for vertices
//     VertexIndex and InstanceIndex; for compute LocalInvocationIndex and
//     WorkgroupId;
//   - and before every return of the entry point, the clock again into
//     the invocation's record (invocations that end by discard, terminate
//     or demote keep kObserveAbsent there).
// Helper invocations write nothing (their stores are discarded by Vulkan);
// the quad mask of their non-helper neighbours counts them. Parts a device
// cannot run (no SM builtins, no clock, no subgroup operations in this
// stage) are left out and their fields hold kObserveAbsent; the record's
// flags say which parts are there.
//
// The module's version is raised to SPIR-V 1.3 when lower (the
// non-uniform group operations and the StorageBuffer storage class are core
// there; Vulkan 1.1 takes it).
#ifndef WARPSIM_VULKAN_REF_OBSERVE_PASS_H_
#define WARPSIM_VULKAN_REF_OBSERVE_PASS_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/diagnostic.h"

namespace warpsim::vkref {

// Layout of the observation buffer (uint words): a header, then records.
inline constexpr uint32_t kObserveHeaderWords = 4;
inline constexpr uint32_t kObserveInvocationCounter = 0;  // records taken
inline constexpr uint32_t kObserveWarpCounter = 1;        // warps numbered
inline constexpr uint32_t kObserveCapacity = 2;  // records that fit (host)
inline constexpr uint32_t kObserveRecordWords = 20;
inline constexpr uint32_t kObserveAbsent = 0xffffffffu;

// Words of one record.
enum ObserveField : uint32_t {
  kObsFlags = 0,           // ObserveFlag bits
  kObsWarp = 1,            // warp number (unique per draw), or absent
  kObsSm = 2,              // SMIDNV
  kObsSlot = 3,            // WarpIDNV: the warp slot on its SM
  kObsLane = 4,            // SubgroupLocalInvocationId
  kObsBallot = 5,          // 4 words: subgroupBallot(true)
  kObsQuadHelpers = 9,     // fragment: bit i set = quad lane i is a helper
  kObsVertexIndex = 9,     // vertex
  kObsLocalIndex = 9,      // compute: LocalInvocationIndex
  kObsFragX = 10,          // fragment: FragCoord.x (float bits)
  kObsInstanceIndex = 10,  // vertex
  kObsWorkgroup = 10,      // compute: 3 words, WorkgroupId x, y, z
  kObsFragY = 11,          // fragment: FragCoord.y (float bits)
  kObsPrimitive = 12,      // fragment: PrimitiveId
  kObsClockLo = 13,        // subgroup clock at the start, low and high
  kObsClockHi = 14,
  kObsSubgroupSize = 15,
  kObsEndClockLo = 16,  // subgroup clock at the entry point's return; absent
  kObsEndClockHi = 17,  // after discard, terminate or demote
  kObsReserved = 18,    // 2 words, absent
};

enum ObserveFlag : uint32_t {
  kObsFlagVertex = 1u << 0,
  kObsFlagFragment = 1u << 1,
  kObsFlagSubgroup = 1u << 2,  // warp number, lane, ballot, subgroup size
  kObsFlagQuad = 1u << 3,      // quad helper mask
  kObsFlagSm = 1u << 4,
  kObsFlagClock = 1u << 5,
  kObsFlagPrimitive = 1u << 6,
  kObsFlagCompute = 1u << 7,
};

enum class ObservedStage { kVertex, kFragment, kCompute };

struct ObservePassOptions {
  ObservedStage stage = ObservedStage::kVertex;
  std::string entry_point;
  uint32_t descriptor_set = 0;
  uint32_t binding = 0;
  // What the device offers in this stage.
  bool subgroup = false;  // ballot and shuffle operations
  bool quad = false;      // quad operations (fragment)
  bool sm_builtins = false;
  bool clock = false;         // shaderSubgroupClock
  bool primitive_id = false;  // PrimitiveId in fragment shaders (Geometry)
  // Reading HelperInvocation (fragment). Without it every lane writes (a
  // helper lane's stores are discarded by Vulkan) and, as the lowest lane
  // may be a helper, there is no warp number or quad mask.
  bool helper_invocation = true;
};

// The instrumented module. InvalidInput for words that are not a module
// with an entry point of that name for the stage (the caller passes the
// validated module the device would get).
Result<std::vector<uint32_t>> InstrumentForObserve(
    std::span<const uint32_t> words, const ObservePassOptions& options);

}  // namespace warpsim::vkref

#endif  // WARPSIM_VULKAN_REF_OBSERVE_PASS_H_
