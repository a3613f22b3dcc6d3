// Terminators: they decide each active lane's next block (warp.h explains
// how lanes wait at merge blocks and reconverge).
#include <bit>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "simt/lower.h"
#include "simt/warp.h"

namespace warpsim::simt {
namespace {

// The lanes of `lanes` whose value in register column `r` is nonzero.
uint32_t NonzeroLanes(const uint32_t* r, uint32_t width, uint32_t lanes) {
#if defined(__SSE2__)
  if (width == kMaxWarpWidth) {
    // Four lanes per compare; movemask gathers one bit per lane.
    const __m128i zero = _mm_setzero_si128();
    uint32_t is_zero = 0;
    for (uint32_t l = 0; l < kMaxWarpWidth; l += 4) {
      const __m128i v =
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + l));
      const __m128 z = _mm_castsi128_ps(_mm_cmpeq_epi32(v, zero));
      is_zero |= static_cast<uint32_t>(_mm_movemask_ps(z)) << l;
    }
    return ~is_zero & lanes;
  }
#endif
  uint32_t taken = 0;
  for (uint32_t m = lanes; m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    if (r[l] != 0) taken |= 1u << l;
  }
  return taken;
}

}  // namespace

void ExecBranch(Warp& w, const Instr& in) {
  const BranchInfo& b = w.program().branches[in.aux];
  w.set_taken(w.active());
  w.SendLanes(w.active(), b.targets[0], b.copies[0]);
  w.Reconverge();
}

void ExecBranchConditional(Warp& w, const Instr& in) {
  const BranchInfo& b = w.program().branches[in.aux];
  const uint32_t* cond = w.Reg(in.src[0]);
  const uint32_t active = w.active();
  const uint32_t taken = NonzeroLanes(cond, w.width(), active);
  w.set_taken(taken);
  w.SendLanes(taken, b.targets[0], b.copies[0]);
  w.SendLanes(active & ~taken, b.targets[1], b.copies[1]);
  w.Reconverge();
}

void ExecSwitch(Warp& w, const Instr& in) {
  const BranchInfo& b = w.program().branches[in.aux];
  const uint32_t* lo = w.Reg(in.src[0]);
  const uint32_t* hi = in.width == 64 ? w.Reg(in.src[0] + 1) : nullptr;
  const uint64_t mask = in.width >= 64 ? ~0ull : ((1ull << in.width) - 1);
  uint32_t remaining = w.active();
  // Group lanes by case; lanes matching no case take the default.
  for (size_t c = 0; c < b.case_values.size() && remaining != 0; ++c) {
    uint32_t lanes = 0;
    for (uint32_t m = remaining; m != 0; m &= m - 1) {
      const uint32_t l = std::countr_zero(m);
      uint64_t v = lo[l];
      if (hi) v |= static_cast<uint64_t>(hi[l]) << 32;
      if ((v & mask) == b.case_values[c]) lanes |= 1u << l;
    }
    w.SendLanes(lanes, b.targets[c + 1], b.copies[c + 1]);
    remaining &= ~lanes;
  }
  w.set_taken(w.active() & ~remaining);
  w.SendLanes(remaining, b.targets[0], b.copies[0]);
  w.Reconverge();
}

void ExecReturn(Warp& w, const Instr& in) {
  w.RetireLanes(w.active());
  w.Reconverge();
}

// OpKill: in a compute shader (and with the "terminate" kill policy) the
// lanes end; the graphics pipeline may instead demote them (REFERENCE §8.5).
void ExecKill(Warp& w, const Instr& in) {
  w.RetireLanes(w.active(), /*discarded=*/true);
  w.Reconverge();
}

// OpKill with the "demote" policy: the lanes become helper invocations
// (REFERENCE §8.5) and keep running the shader, with stores and atomics
// masked and their outputs discarded, so that their quad neighbours'
// derivatives read freshly computed values. OpKill ends its block, so the
// lowering names where they go on: the merge block of the innermost
// construct holding the OpKill, as if the branch to it were taken (a loop's
// merge: they leave the loop). Phis there take no value from this edge. At
// the function's top level there is nothing left to run and they retire.
void ExecKillDemote(Warp& w, const Instr& in) {
  const BranchInfo& b = w.program().branches[in.aux];
  w.DemoteLanes(w.active());
  if (b.targets.empty()) {
    w.RetireLanes(w.active());
  } else {
    w.SendLanes(w.active(), b.targets[0], b.copies[0]);
  }
  w.Reconverge();
}

void ExecTerminateInvocation(Warp& w, const Instr& in) {
  w.RetireLanes(w.active(), /*discarded=*/true);
  w.Reconverge();
}

// Reaching OpUnreachable is a bug in the shader (the module promises it
// never happens): a runtime error naming the instruction and the lanes.
void ExecUnreachable(Warp& w, const Instr& in) {
  w.Trap(w.active(), in,
         "the module declares this point unreachable (a shader bug)");
}

}  // namespace warpsim::simt
