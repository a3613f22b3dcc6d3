// Internals shared by the register allocator (regalloc.cpp) and its
// register-count model (regalloc_model.cpp).
#ifndef WARPSIM_SIMT_REGALLOC_INTERNAL_H_
#define WARPSIM_SIMT_REGALLOC_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "simt/lower.h"

namespace warpsim::simt::regalloc_internal {

// A simple dynamic bitset over virtual registers.
class Bits {
 public:
  explicit Bits(size_t n = 0) : w_((n + 63) / 64, 0) {}
  void Set(uint32_t i) { w_[i >> 6] |= 1ull << (i & 63); }
  void Clear(uint32_t i) { w_[i >> 6] &= ~(1ull << (i & 63)); }
  bool Get(uint32_t i) const { return (w_[i >> 6] >> (i & 63)) & 1; }
  bool OrWith(const Bits& o) {
    bool changed = false;
    for (size_t k = 0; k < w_.size(); ++k) {
      const uint64_t n = w_[k] | o.w_[k];
      changed |= n != w_[k];
      w_[k] = n;
    }
    return changed;
  }
  template <typename F>
  void ForEach(F f) const {
    for (size_t k = 0; k < w_.size(); ++k) {
      for (uint64_t m = w_[k]; m != 0; m &= m - 1) {
        f(static_cast<uint32_t>(k * 64 + __builtin_ctzll(m)));
      }
    }
  }
  bool operator==(const Bits& o) const { return w_ == o.w_; }

 private:
  std::vector<uint64_t> w_;
};
inline bool IsVirtual(uint32_t r) {
  return r != kNoReg && (r & kConstTag) == 0;
}

// What a colouring runs over: `count` entities (virtual registers, and for
// the register-count model also promoted memory words), which register
// operands are entities, and each instruction's defs and uses of them.
struct Entities {
  uint32_t count = 0;
  std::function<bool(uint32_t)> is_entity;
  std::function<void(uint32_t, std::vector<uint32_t>&, std::vector<uint32_t>&)>
      defs_uses;
  // Instructions whose defs also stay apart from their uses (step 2), given
  // the number of entities the instruction defines.
  std::function<bool(uint32_t, size_t)> conservative;
  std::vector<uint8_t> wide;  // per entity: takes an aligned pair
  // Optional, per entity: it takes this many times its colours (copies of
  // it live at once: the loads of a loop's later trips, issued before
  // this trip's value is used). Empty: once each.
  std::vector<uint8_t> copies_live;
  // Optional: def `d` of instruction `i` is a copy of entity `v`, so the two
  // need not differ there (Chaitin's rule for moves).
  std::function<bool(uint32_t i, uint32_t d, uint32_t v)> copy;
  // Optional, per entity: entities whose colour it takes when it can.
  std::vector<std::vector<uint32_t>> hints;
  // Optional: the entities instruction `i` may or may not write (a store
  // at an index known only at run time). Such a write neither ends nor
  // starts a live range: an entity live after it was live before it.
  std::function<void(uint32_t i, std::vector<uint32_t>&)> may_defs;
  // Optional: entities whose writes are dropped where nothing reads them
  // afterwards (dead stores to a variable), so they interfere with nothing
  // there.
  std::function<bool(uint32_t)> dead_def_free;
};
// Liveness, interference and greedy colouring (regalloc.cpp's steps 1 to
// 3). Returns each entity's colour (kNoReg for none) and sets *num_colors.
std::vector<uint32_t> Colour(const Program* program, const Entities& ent,
                             uint32_t* num_colors_out);

// The register-count model (regalloc_model.cpp): Program::model_regs of
// `program` (its virtual registers, `physical` the allocator's entities
// over them), given the loops MarkUnrolledLoops found (Program::loops).
// Sets *register_private (Program::register_private) per instruction.
uint32_t ModelRegisterCount(Lowerer& lowerer, const Program& program,
                            const Entities& physical,
                            const std::vector<LoopRange>& loops,
                            std::vector<uint8_t>* register_private);

}  // namespace warpsim::simt::regalloc_internal

#endif  // WARPSIM_SIMT_REGALLOC_INTERNAL_H_
