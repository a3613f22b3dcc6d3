// The loops NVIDIA's compiler unrolls when their trip count is only known at
// run time (Program::unrolled_loops), found on the lowered program so that
// the timing model can issue their control the way the unrolled code does.
//
// vulkan_ref's E16 (vulkan_ref/results/h200/e16-loop-unroll-2026-12-02)
// measured the driver's code size for loops that differ in one thing: a
// loop `for (i = a; i < n; ++i)` (also `<=`, and counting down) holds the
// same number of copies of its body whatever the body's length, up to the
// 16 steps measured and with an if/else in it (U in the unrolled main loop,
// U - 1 for the remainder; TimingConfig::loop_unroll is U); the same loop
// with a `break`, a `while` loop on a computed value and a loop that holds
// another loop are not unrolled (nor was its loop stepping by 2, whose
// bound `2 * n` the header computes: E21 found such a bound keeps a loop
// rolled by itself; loops stepped by 2 to 1024 against a plain bound are
// unrolled in vulkan_ref/results/h100/sass-2026-12-07b and -07d). A loop
// is taken as unrolled when
//   - it holds no other loop;
//   - it leaves only through one conditional branch to its merge block (no
//     break, return, kill or terminate inside);
//   - that branch's condition is an integer comparison of a counter with a
//     bound that is the same on every trip: a constant, a register the loop
//     never writes, or what the loop loads from memory it does not write
//     (glslang reads a uniform bound in the loop's header; a uniform
//     block's word even where the loop stores, as the shader cannot write
//     it: vulkan_ref/results/h100/sass-2026-12-07b, E41's store loops,
//     unrolled), but not what the loop computes from such values with
//     arithmetic: E21
//     (vulkan_ref/results/h200/e21-loop-bounds-2026-12-03) found `i < u.n`
//     unrolled and `i < u.n / 2`, `u.n >> 1`, `u.n * 2`, `u.n - 1` in the
//     header not (the same division before the loop: unrolled);
//   - the counter is stepped once per trip by a constant, up or down (an
//     IAdd or ISub with a constant: 1, or any but 0 when the comparison is
//     an ordered one), directly or through the back edge's phi copy,
//     also where the allocator moved the counter to another register for
//     part of the trip (Carries: register_pressure's held1, which the
//     driver's code unrolls, vulkan_ref/results/h100/sass-2026-12-07).
//   - unless its trip count is a constant, it samples no image with
//     implicit derivatives (GLSL's texture() in a fragment shader: E43's
//     and E44's such loops are rolled in
//     vulkan_ref/results/h100/sass-2026-12-07b, the same reads through
//     textureLod and texelFetch in compute shaders unrolled).
// Such a loop is listed with its body's length (UnrolledLoop::body),
// whether it loads from memory and stores none (UnrolledLoop::loads: the
// driver unrolls such loops with longer bodies, loop_unroll_max_body_loads)
// and whether its OpLoopMerge asks DontUnroll (GLSL's [[dont_unroll]]), for the
// timing model to decide: vulkan_ref's E34 found NVIDIA's Vulkan driver
// unrolling bodies up to a length, whatever the loop control asks, and
// longer ones not (TimingConfig::loop_unroll_max_body,
// honour_dont_unroll; nvcc keeps a `#pragma unroll 1` loop rolled). A
// DontUnroll loop is never unrolled completely (E34 measured only run-time
// trip counts).
// What the loop recomputes its bound from on every trip (glslang loads a
// uniform bound in the loop's header) is hoisted out of it, as a compiler
// does: those instructions never issue in an unrolled loop.
//
// It also lists every loop, innermost or not (Program::loops), for the
// register-count model: the compiler unrolls those whose trip count is a
// constant completely, a nest of them whole (H200 record
// stage-batching-2026-12-03: the loads of two nested constant loops are
// issued ahead as those of one loop with as many trips).
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "simt/lower.h"
#include "simt/opcode_info.h"

namespace warpsim::simt {
namespace {

bool IsImplicitLodSample(spv::Op op) {
  switch (op) {
    case spv::Op::OpImageSampleImplicitLod:
    case spv::Op::OpImageSampleProjImplicitLod:
    case spv::Op::OpImageSampleDrefImplicitLod:
    case spv::Op::OpImageSampleProjDrefImplicitLod:
    case spv::Op::OpImageSparseSampleImplicitLod:
    case spv::Op::OpImageSparseSampleDrefImplicitLod:
      return true;
    default:
      return false;
  }
}

bool IsIntegerCompare(spv::Op op) {
  switch (op) {
    case spv::Op::OpSLessThan:
    case spv::Op::OpSLessThanEqual:
    case spv::Op::OpSGreaterThan:
    case spv::Op::OpSGreaterThanEqual:
    case spv::Op::OpULessThan:
    case spv::Op::OpULessThanEqual:
    case spv::Op::OpUGreaterThan:
    case spv::Op::OpUGreaterThanEqual:
    case spv::Op::OpINotEqual:
    case spv::Op::OpIEqual:
      return true;
    default:
      return false;
  }
}

bool IsBranch(const Program& p, const Instr& in) {
  return (in.op == spv::Op::OpBranch || in.op == spv::Op::OpBranchConditional ||
          in.op == spv::Op::OpSwitch) &&
         in.aux < p.branches.size();
}

class LoopFinder {
 public:
  explicit LoopFinder(Program* p) : p_(*p) {}

  void Run() {
    p_.loop_control.assign(p_.code.size(), 0);
    p_.ahead_loads.clear();
    p_.hoisted.clear();
    p_.unrolled_loops.clear();
    p_.loops.clear();
    std::vector<uint32_t> headers;
    for (uint32_t h = 0; h < p_.blocks.size(); ++h) {
      const uint32_t m = p_.blocks[h].merge_block;
      if (p_.blocks[h].continue_block == kNoBlock || m == kNoBlock || m <= h) {
        continue;
      }
      p_.loops.push_back({First(h), First(m)});
      headers.push_back(h);
    }
    // Inner loops first (a loop's inner loops have later headers): whether
    // a loop holds only loops the compiler unrolls completely depends on
    // them. (Try() marks a loop constant when it finds its trip count.)
    for (size_t k = headers.size(); k-- > 0;) Try(headers[k], k);
    p_.loop_tests.clear();
    p_.loop_fills.clear();
    for (size_t k = 0; k < headers.size(); ++k) MarkTest(headers[k], k);
    // A constant loop is unrolled with what it holds when every loop inside
    // it is constant too.
    for (LoopRange& l : p_.loops) {
      l.whole = l.constant && std::all_of(p_.loops.begin(), p_.loops.end(),
                                          [&](const LoopRange& o) {
                                            return o.begin <= l.begin ||
                                                   o.end > l.end || o.constant;
                                          });
    }
  }

 private:
  uint32_t First(uint32_t block) const {
    return block < p_.blocks.size() ? p_.blocks[block].first_instr
                                    : static_cast<uint32_t>(p_.code.size());
  }
  bool IsConstant(uint32_t r) const { return r != kNoReg && r >= p_.num_regs; }
  // The constant's value, for a constant operand.
  uint32_t Constant(uint32_t r) const {
    const uint32_t slot = r - p_.num_regs;
    return slot < p_.const_values.size() ? p_.const_values[slot] : 0;
  }
  // Registers instruction i writes (phi copies of a branch included).
  std::pair<const uint32_t*, const uint32_t*> Writes(uint32_t i) const {
    if (i >= p_.operands.size()) return {nullptr, nullptr};
    const InstrOperands& o = p_.operands[i];
    const uint32_t* w = p_.reg_lists.data() + o.first + o.reads;
    return {w, w + o.writes};
  }

  // Marks the test of loop `range` (header block h) in p_.loop_tests when
  // the loop is tested at its top (Program::loop_tests): the first branch
  // from the header on, past unconditional ones, is a conditional branch
  // with one target the merge block and the other inside the loop (not
  // the header: a back edge), and a
  // compare before it in the loop writes its condition.
  void MarkTest(uint32_t h, size_t range) {
    const uint32_t m = p_.blocks[h].merge_block;
    const uint32_t begin = First(h), end = First(m);
    for (uint32_t i = begin; i < end; ++i) {
      const Instr& in = p_.code[i];
      if (EndsInvocation(in.op)) return;
      if (!IsBranch(p_, in)) continue;
      if (in.op == spv::Op::OpBranch) continue;
      if (in.op != spv::Op::OpBranchConditional) return;
      const auto& t = p_.branches[in.aux].targets;
      const bool leaves = t[0] == m || t[1] == m;
      const uint32_t other = t[0] == m ? t[1] : t[0];
      // (The other target the header: a back edge, the loop tested at its
      // bottom, as a do-while.)
      if (!leaves || other == m || other <= h || other >= m) return;
      const uint32_t cond = in.src[0];
      for (uint32_t c = i; c-- > begin;) {
        if (p_.code[c].dst != cond) continue;
        if (!WritesPredicate(p_.code[c].op)) {
          return;  // not a compare: no predicate of its own
        }
        if (p_.loop_tests.empty()) p_.loop_tests.assign(p_.code.size(), 0);
        p_.loop_tests[c] = p_.loop_tests[i] = static_cast<uint32_t>(range + 1);
        MarkFills(h, c, range);
        return;
      }
      return;
    }
  }

  // Marks loop `range`'s test compare `c` and its counter's step in
  // p_.loop_fills (Program::loop_fills).
  void MarkFills(uint32_t h, uint32_t c, size_t range) {
    if (p_.loop_fills.empty()) p_.loop_fills.assign(p_.code.size(), 0);
    const uint32_t tag = static_cast<uint32_t>(range + 1);
    p_.loop_fills[c] = tag;
    const uint32_t cont = p_.blocks[h].continue_block;
    if (cont == kNoBlock || cont <= h) return;
    for (uint32_t i = First(cont); i < First(cont + 1); ++i) {
      const Instr& in = p_.code[i];
      if ((in.op == spv::Op::OpIAdd || in.op == spv::Op::OpISub) &&
          (IsConstant(in.src[0]) || IsConstant(in.src[1]))) {
        p_.loop_fills[i] = tag;
      }
    }
  }

  // `range`: the loop's p_.loops entry.
  void Try(uint32_t h, size_t range) {
    const uint32_t m = p_.blocks[h].merge_block;
    if (m == kNoBlock || m <= h) return;
    const bool dont_unroll = p_.blocks[h].dont_unroll;
    const uint32_t begin = First(h), end = First(m);
    // Innermost: no other loop inside but loops with a counted constant
    // trip count (unrolled completely, they leave straight code; an
    // assumption: E16 measured loops holding loops with run-time trip
    // counts). A loop that holds another is not unrolled when its trip
    // count is known only at run time (E16); with a constant one it is
    // (LoopRange::whole), with the loops it holds.
    bool innermost = true;
    for (size_t k = range + 1; k < p_.loops.size(); ++k) {
      const LoopRange& inner = p_.loops[k];
      if (inner.begin >= end) break;
      if (!inner.constant || inner.trips == 0) innermost = false;
    }
    // One exit, a conditional branch to the merge block.
    uint32_t exit = kNoReg;
    for (uint32_t i = begin; i < end; ++i) {
      const Instr& in = p_.code[i];
      if (EndsInvocation(in.op)) return;
      if (!IsBranch(p_, in)) continue;
      for (uint32_t t : p_.branches[in.aux].targets) {
        if (t >= h && t < m) continue;  // inside (structured order)
        if (t != m || in.op != spv::Op::OpBranchConditional || exit != kNoReg) {
          return;
        }
        exit = i;
      }
    }
    if (exit == kNoReg) return;
    // What the loop writes, by register.
    std::vector<uint32_t> writes;
    std::vector<uint32_t> writer;  // the last instruction writing each
    auto note = [&](uint32_t r, uint32_t i) {
      if (r >= writes.size()) {
        writes.resize(r + 1, 0);
        writer.resize(r + 1, kNoReg);
      }
      writes[r] += 1;
      writer[r] = i;
    };
    for (uint32_t i = begin; i < end; ++i) {
      const Instr& in = p_.code[i];
      if (IsBranch(p_, in)) {
        // Phi copies; a register copied to itself is not written.
        for (const auto& [first, count] : p_.branches[in.aux].copies) {
          for (uint32_t c = first; c < first + count; ++c) {
            const EdgeCopy& e = p_.edge_copies[c];
            if (e.dst != e.src) note(e.dst, i);
          }
        }
        continue;
      }
      auto [w, w_end] = Writes(i);
      for (; w != w_end; ++w) note(*w, i);
    }
    auto written = [&](uint32_t r) {
      return r < writes.size() ? writes[r] : 0u;
    };
    // The loop writes memory or waits at a barrier. (A lane's own words,
    // registers or local memory on the GPU, alias no buffer: their stores
    // do not count.)
    bool stores = false;
    bool private_stores = false;
    bool implicit_lod = false;  // an image sample with implicit derivatives
    for (uint32_t i = begin; i < end; ++i) {
      const Instr& in = p_.code[i];
      if (in.pipe == Pipe::kLsu && in.op != spv::Op::OpLoad) {
        (PrivateAccess(i) ? private_stores : stores) = true;
      }
      // (Atomics issue on the LSU pipe, so the line above has them.)
      if (in.pipe == Pipe::kSync || in.op == spv::Op::OpImageWrite) {
        stores = true;
      }
      implicit_lod = implicit_lod || IsImplicitLodSample(in.op);
    }
    // The value register r holds when instruction `at` reads it is the same
    // on every trip: a constant, a register the loop never writes, or what
    // an instruction earlier in the same block computes from such values (a
    // compiler hoists it out of the loop); a load only when the loop writes
    // no memory. For the bound itself (`value`), only a load or a copy of
    // such a value: a bound the loop computes from one with arithmetic
    // (u.n / 2, u.n * 2, u.n - 1 in the loop's header) leaves the loop
    // rolled (E21); the load's address may be computed.
    std::vector<uint32_t> hoisted;  // the loop's instructions it relies on
    auto invariant = [&](auto& self, uint32_t r, uint32_t at, int depth,
                         bool value) -> bool {
      if (r == kNoReg || IsConstant(r)) return true;
      if (depth > 8) return false;
      for (uint32_t i = at; i-- > begin;) {
        const Instr& in = p_.code[i];
        if (IsBranch(p_, in)) break;  // the block's start
        auto [w, w_end] = Writes(i);
        if (std::find(w, w_end, r) == w_end) continue;
        // A uniform block's word (a constant-bank operand: read-only to
        // the shader, so no store of the loop changes it) is the same on
        // every trip whatever the loop writes.
        const bool constant_bank =
            i < p_.register_private.size() && p_.register_private[i] == 3;
        if (in.pipe == Pipe::kBranch || in.pipe == Pipe::kSync ||
            (in.pipe == Pipe::kLsu && !constant_bank &&
             (in.op != spv::Op::OpLoad || stores ||
              (private_stores && PrivateAccess(i)))) ||
            in.pipe == Pipe::kTex) {
          return false;
        }
        const bool load = in.op == spv::Op::OpLoad;
        const bool copy =
            in.op == spv::Op::OpCopyObject || in.op == spv::Op::OpBitcast;
        if (value && !load && !copy) return false;
        const InstrOperands& o = p_.operands[i];
        for (uint32_t k = 0; k < o.reads; ++k) {
          if (!self(self, p_.reg_lists[o.first + k], i, depth + 1,
                    value && copy)) {
            return false;
          }
        }
        hoisted.push_back(i);
        return true;
      }
      return written(r) == 0;
    };
    // The exit's condition: an integer comparison in the same block (the
    // last instruction before the branch that writes the condition's
    // register, which the allocator may reuse elsewhere in the loop).
    const uint32_t compare = LastWriteInBlock(p_.code[exit].src[0], exit);
    if (compare == kNoReg) return;  // not in the branch's block
    const Instr& cmp = p_.code[compare];
    if (!IsIntegerCompare(cmp.op) || cmp.width != 32) return;
    // One operand is the bound (not written in the loop), the other the
    // counter (or the counter after its step).
    for (int k = 0; k < 2; ++k) {
      const uint32_t bound = cmp.src[1 - k], counter = cmp.src[k];
      if (counter == kNoReg || IsConstant(counter) || bound == kNoReg) continue;
      hoisted.clear();
      if (!invariant(invariant, bound, compare, 0, true)) continue;
      uint32_t phi = counter;
      const uint32_t update =
          Step(counter, written, writer, &phi, begin, end, compare);
      if (update == kNoReg) continue;
      uint32_t start = 0;
      const bool full = !dont_unroll && IsConstant(bound) &&
                        EntersWithConstant(h, begin, end, phi, &start);
      const uint32_t trips = full ? Trips(cmp, k == 0, Constant(bound), start,
                                          StepOf(p_.code[update]),
                                          phi != counter, ExitsWhen(exit, m))
                                  : 0;
      p_.loops[range].constant = full;
      p_.loops[range].trips = trips;
      if (!innermost) return;
      // A loop that samples an image with implicit derivatives (GLSL's
      // texture() in a fragment shader) and a run-time trip count stays
      // rolled in NVIDIA's code: every such loop of
      // vulkan_ref/results/h100/sass-2026-12-07b (E43's and E44's fragment
      // draws, 8 of 8), where the same loops reading through textureLod
      // or texelFetch in compute shaders are unrolled.
      if (implicit_lod && !full) return;
      const uint32_t index = static_cast<uint32_t>(p_.unrolled_loops.size());
      UnrolledLoop loop;
      loop.exit_branch = exit;
      loop.compare = compare;
      loop.step = update;
      loop.stride = StepOf(p_.code[update]);
      loop.merge_pc = end;
      loop.full = full;
      loop.trips = trips;
      p_.unrolled_loops.push_back(loop);
      for (uint32_t pc : {compare, exit, update}) {
        p_.loop_control[pc] = index + 1;
      }
      // What the loop computes its bound from each trip (a uniform's load,
      // a multiply) the compiler hoists out of it.
      for (uint32_t pc : hoisted) p_.loop_control[pc] = index + 1;
      // What else every trip computes alike outside its selections' sides
      // (a load of a word the loop does not write) the compiler hoists
      // too: it does not count in the body.
      std::vector<uint8_t> in_side = SelectionSides(begin, end);
      std::vector<uint8_t> same(end - begin, 0);
      for (uint32_t i = begin; i < end; ++i) {
        if (in_side[i - begin] != 0 || p_.loop_control[i] != 0) continue;
        auto [w, w_end] = Writes(i);
        if (w == w_end || IsBranch(p_, p_.code[i])) continue;
        // (Asking for the first register it writes, read just after it,
        // asks for this instruction: what it reads, what it is.)
        hoisted.clear();
        if (invariant(invariant, *w, i + 1, 0, false)) same[i - begin] = 1;
      }
      for (uint32_t i = begin; i < end; ++i) {
        if (same[i - begin] == 0) continue;
        if (p_.hoisted.empty()) p_.hoisted.assign(p_.code.size(), 0);
        p_.hoisted[i] = 1;
      }
      const auto [body, skipped] = BodyLength(begin, end, in_side, same);
      // A load of a buffer or of workgroup memory a trip issues (a
      // uniform block's word, a lane's own variable, and what every trip
      // loads alike, hoisted, are none), in a loop without a selection
      // (E35's loops, which load the word their branch tests, part at the
      // limit of loops without loads: UnrolledLoop::loads).
      // A load of a Coherent or Volatile buffer (Program::l1_bypass) makes
      // none: E56's loop of four such loads a trip (24 instructions) is
      // rolled in vulkan_ref/results/h100/sass-2026-12-07d where the same
      // loop over a plain buffer is unrolled four times, and its loop of
      // one such load (9) unrolled: at the limit of loops without loads.
      bool loads = false;
      bool coherent = false;
      for (uint32_t i = begin; i < end && !stores && skipped == 0; ++i) {
        const Instr& in = p_.code[i];
        if (in.pipe == Pipe::kLsu && in.op == spv::Op::OpLoad &&
            same[i - begin] == 0 && p_.loop_control[i] == 0 &&
            !PrivateAccess(i) &&
            !(i < p_.register_private.size() && p_.register_private[i] != 0)) {
          loads = true;
          coherent =
              coherent || (i < p_.l1_bypass.size() && p_.l1_bypass[i] != 0);
        }
      }
      loads = loads && !coherent;
      p_.unrolled_loops.back().body = body;
      p_.unrolled_loops.back().skipped = skipped;
      p_.unrolled_loops.back().dont_unroll = dont_unroll;
      p_.unrolled_loops.back().loads = loads;
      if (!full && !stores) {
        MarkAheadLoads(begin, end, index + 1, private_stores);
      }
      return;
    }
  }

  // Per instruction of the loop [begin, end), whether it lies in a side of
  // one of the loop's selections: after a selection header's block and
  // before its merge block (blocks are in structured order).
  std::vector<uint8_t> SelectionSides(uint32_t begin, uint32_t end) const {
    std::vector<uint8_t> in_side(end - begin, 0);
    for (size_t b = 0; b + 1 < p_.blocks.size(); ++b) {
      const BlockInfo& header = p_.blocks[b];
      if (header.merge_block == kNoBlock || header.continue_block != kNoBlock ||
          header.merge_block >= p_.blocks.size() ||
          header.first_instr < begin || header.first_instr >= end) {
        continue;  // (not a selection header of this loop)
      }
      const uint32_t from = std::max(begin, p_.blocks[b + 1].first_instr);
      const uint32_t to =
          std::min(end, p_.blocks[header.merge_block].first_instr);
      for (uint32_t i = from; i < to; ++i) in_side[i - begin] = 1;
    }
    return in_side;
  }

  // UnrolledLoop::body and ::skipped of the loop [begin, end), its control
  // marked in p_.loop_control, `in_side` from SelectionSides, `same` the
  // instructions the compiler hoists. An instruction of a loop inside it,
  // which it holds only when that one's trip count is a constant (unrolled
  // completely), counts as many times as that loop runs.
  std::pair<uint32_t, uint32_t> BodyLength(
      uint32_t begin, uint32_t end, const std::vector<uint8_t>& in_side,
      const std::vector<uint8_t>& same) const {
    // Per instruction, the copies of it the loops inside make.
    std::vector<uint64_t> copies(end - begin, 1);
    for (const LoopRange& inner : p_.loops) {
      if (inner.begin <= begin || inner.end > end) continue;
      for (uint32_t i = inner.begin; i < inner.end; ++i) {
        uint64_t& c = copies[i - begin];
        c = std::min<uint64_t>(c * std::max<uint32_t>(inner.trips, 1),
                               UINT32_MAX);
      }
    }
    uint64_t n = 0, skipped = 0;
    const Instr* prev = nullptr;  // the last one counted, if just before
    for (uint32_t i = begin; i < end; ++i) {
      const Instr& in = p_.code[i];
      const bool free =
          IsBranch(p_, in) || p_.loop_control[i] != 0 || same[i - begin] != 0 ||
          (i < p_.register_private.size() && p_.register_private[i] != 0);
      if (free || (prev != nullptr && FusedPair(*prev, in))) {
        prev = nullptr;  // (the second of a fused pair: none of its own)
        continue;
      }
      n = std::min<uint64_t>(n + copies[i - begin], UINT32_MAX);
      if (in_side[i - begin] != 0) {
        skipped = std::min<uint64_t>(skipped + copies[i - begin], UINT32_MAX);
      }
      prev = &in;
    }
    return {static_cast<uint32_t>(n), static_cast<uint32_t>(skipped)};
  }

  // The loads of the loop [begin, end) whose address comes from no load of
  // the loop (the trip's counter, values from outside): in the code the
  // compiler unrolls, the copies of such a load in a group of trips are
  // issued together, ahead of the uses (Program::ahead_loads). A load
  // whose address another load of the loop gave (a chase) waits for it.
  void MarkAheadLoads(uint32_t begin, uint32_t end, uint32_t tag,
                      bool private_stores) {
    // (A constant-bank operand, Program::register_private 3, is none.)
    auto is_load = [&](const Instr& in) {
      const size_t i = static_cast<size_t>(&in - p_.code.data());
      if (i < p_.register_private.size() && p_.register_private[i] == 3) {
        return false;
      }
      return (in.pipe == Pipe::kLsu && in.op == spv::Op::OpLoad) ||
             in.op == spv::Op::OpImageRead || in.pipe == Pipe::kTex;
    };
    std::vector<uint8_t> from_load(p_.num_regs, 0);
    auto tainted = [&](uint32_t r) {
      return r < from_load.size() && from_load[r] != 0;
    };
    // Per load: its address came from a load of the loop on some pass.
    std::vector<uint8_t> chased(end - begin, 0);
    // Until nothing changes (at most a few passes): what the back edge
    // carries round to the next trip. A phi copy adds its source's taint
    // (the copies of every edge run here one after the other: a merge
    // keeps what any edge brings); an instruction's write sets it from its
    // operands, clearing it when they hold no loaded value (the allocator
    // reuses registers).
    for (int pass = 0, changed = 1; changed && pass < 8; ++pass) {
      changed = 0;
      auto set = [&](uint32_t r, bool t) {
        if (r >= from_load.size() || from_load[r] == t) return;
        from_load[r] = t;
        changed = 1;
      };
      for (uint32_t i = begin; i < end; ++i) {
        const Instr& in = p_.code[i];
        if (IsBranch(p_, in)) {
          for (const auto& [first, count] : p_.branches[in.aux].copies) {
            for (uint32_t c = first; c < first + count; ++c) {
              const EdgeCopy& e = p_.edge_copies[c];
              if (tainted(e.src)) set(e.dst, true);
            }
          }
          continue;
        }
        // (A load the compiler hoists out of the loop, the bound's, is
        // not one of the loop's.)
        const InstrOperands& o = p_.operands[i];
        bool from_reads = false;
        for (uint32_t k = 0; k < o.reads; ++k) {
          from_reads |= tainted(p_.reg_lists[o.first + k]);
        }
        if (from_reads && is_load(in)) chased[i - begin] = 1;
        const bool taint =
            from_reads || (is_load(in) && p_.loop_control[i] == 0);
        auto [w, w_end] = Writes(i);
        for (; w != w_end; ++w) set(*w, taint);
      }
    }
    for (uint32_t i = begin; i < end; ++i) {
      const Instr& in = p_.code[i];
      if (in.pipe != Pipe::kLsu || in.op != spv::Op::OpLoad || !is_load(in)) {
        continue;
      }
      if (chased[i - begin] || p_.loop_control[i] != 0) continue;
      // A lane's own words that the loop also writes: the load may read
      // what the trip stored.
      if (private_stores && PrivateAccess(i)) continue;
      if (p_.ahead_loads.empty()) p_.ahead_loads.assign(p_.code.size(), 0);
      p_.ahead_loads[i] = tag;
    }
  }

  // True when every branch into the loop's header from outside the loop
  // copies a constant into `phi` (the counter's value on entry).
  bool EntersWithConstant(uint32_t h, uint32_t begin, uint32_t end,
                          uint32_t phi, uint32_t* value) const {
    bool first_entry = true;
    bool any = false;
    for (uint32_t i = 0; i < p_.code.size(); ++i) {
      if (i >= begin && i < end) continue;
      const Instr& in = p_.code[i];
      if (!IsBranch(p_, in)) continue;
      const BranchInfo& b = p_.branches[in.aux];
      for (size_t t = 0; t < b.targets.size(); ++t) {
        if (b.targets[t] != h) continue;
        bool constant = false;
        if (t < b.copies.size()) {
          const auto [first, count] = b.copies[t];
          for (uint32_t c = first; c < first + count; ++c) {
            const EdgeCopy& e = p_.edge_copies[c];
            if (e.dst != phi || !IsConstant(e.src)) continue;
            // (Entries with different constants: not one trip count.)
            const uint32_t v = Constant(e.src);
            constant = first_entry || v == *value;
            *value = v;
          }
        }
        if (!constant) return false;
        first_entry = false;
        any = true;
      }
    }
    return any;
  }

  // +1 or -1: what the step instruction adds to the counter.
  int32_t StepOf(const Instr& s) const {
    for (int k = 0; k < 2; ++k) {
      if (IsConstant(s.src[k])) {
        const int32_t c = static_cast<int32_t>(Constant(s.src[k]));
        return s.op == spv::Op::OpISub ? -c : c;
      }
    }
    return 1;
  }
  // Whether the exit branch `exit` leaves (for merge block m) when its
  // condition is true.
  bool ExitsWhen(uint32_t exit, uint32_t m) const {
    const auto& t = p_.branches[p_.code[exit].aux].targets;
    return !t.empty() && t[0] == m;
  }
  // The trip count of a loop whose counter starts at `start` and steps by
  // `step`, tested by comparison `cmp` (the counter its operand
  // `counter_first` or not, the bound `bound`) before each trip on the
  // counter's value, or after the step (`after_step`), leaving when the
  // comparison gives `exit_when`. 0: more than kMaxCountedTrips.
  static uint32_t Trips(const Instr& cmp, bool counter_first, uint32_t bound,
                        uint32_t start, int32_t step, bool after_step,
                        bool exit_when) {
    auto holds = [&](uint32_t v) {
      const uint32_t a = counter_first ? v : bound;
      const uint32_t b = counter_first ? bound : v;
      const int32_t sa = static_cast<int32_t>(a), sb = static_cast<int32_t>(b);
      switch (cmp.op) {
        case spv::Op::OpSLessThan:
          return sa < sb;
        case spv::Op::OpSLessThanEqual:
          return sa <= sb;
        case spv::Op::OpSGreaterThan:
          return sa > sb;
        case spv::Op::OpSGreaterThanEqual:
          return sa >= sb;
        case spv::Op::OpULessThan:
          return a < b;
        case spv::Op::OpULessThanEqual:
          return a <= b;
        case spv::Op::OpUGreaterThan:
          return a > b;
        case spv::Op::OpUGreaterThanEqual:
          return a >= b;
        case spv::Op::OpINotEqual:
          return a != b;
        case spv::Op::OpIEqual:
          return a == b;
        default:
          return false;
      }
    };
    uint32_t v = start;
    for (uint32_t trips = 0; trips <= UnrolledLoop::kMaxCountedTrips;) {
      // A test before the trip (of the counter) or after it (of the
      // stepped counter, the trip done).
      if (!after_step && holds(v) == exit_when) return trips;
      ++trips;
      v += static_cast<uint32_t>(step);
      if (after_step && holds(v) == exit_when) return trips;
    }
    return 0;
  }

  // Whether instruction i loads from or stores to lane-private memory: its
  // pointer a constant in that region, or an access chain from one in its
  // block.
  bool PrivateAccess(uint32_t i) const {
    const Instr& in = p_.code[i];
    if ((in.op != spv::Op::OpStore && in.op != spv::Op::OpLoad) ||
        in.aux >= p_.mem_accesses.size()) {
      return false;
    }
    uint32_t base = p_.mem_accesses[in.aux].ptr_reg;
    if (!IsConstant(base)) {
      const uint32_t w = LastWriteInBlock(base, i);
      if (w == kNoReg || p_.code[w].op != spv::Op::OpAccessChain) return false;
      base = p_.code[w].src[0];
      if (!IsConstant(base)) return false;
    }
    const uint32_t region = base - p_.num_regs + 1;
    return region < p_.const_values.size() &&
           p_.const_values[region] == kRegionPrivate;
  }

  // The last instruction before `at` in its block that writes register r,
  // or kNoReg.
  uint32_t LastWriteInBlock(uint32_t r, uint32_t at) const {
    for (uint32_t i = at; i-- > 0;) {
      if (IsBranch(p_, p_.code[i])) return kNoReg;  // the block's start
      auto [w, w_end] = Writes(i);
      if (std::find(w, w_end, r) != w_end) return i;
    }
    return kNoReg;
  }

  // The block instruction i lies in.
  uint32_t BlockOf(uint32_t i) const {
    uint32_t b = 0;
    while (b + 1 < p_.blocks.size() && p_.blocks[b + 1].first_instr <= i) ++b;
    return b;
  }

  // Calls f(branch instruction, its edge's copies [first, last)) for each
  // edge of the loop [begin, end) into block b; false when there is none,
  // or one comes from at or after `at` (a way back into the block).
  template <typename F>
  bool EdgesInto(uint32_t b, uint32_t at, uint32_t begin, uint32_t end,
                 F f) const {
    bool any = false;
    for (uint32_t i = begin; i < end; ++i) {
      const Instr& in = p_.code[i];
      if (!IsBranch(p_, in)) continue;
      const BranchInfo& br = p_.branches[in.aux];
      for (size_t t = 0; t < br.targets.size(); ++t) {
        if (br.targets[t] != b) continue;
        if (i >= at) return false;
        any = true;
        const auto [first, count] = t < br.copies.size()
                                        ? br.copies[t]
                                        : std::pair<uint32_t, uint32_t>{};
        if (!f(i, first, first + count)) return false;
      }
    }
    return any;
  }

  // Whether nothing writes register r on the way from the loop's top
  // (instruction begin) to instruction `at` of it: no instruction before
  // `at`, no edge copy into a block that starts before it (blocks are in
  // structured order: a way to `at` within a trip passes only those).
  bool Keeps(uint32_t r, uint32_t at, uint32_t begin) const {
    for (uint32_t i = begin; i < at; ++i) {
      const Instr& in = p_.code[i];
      if (!IsBranch(p_, in)) {
        auto [w, w_end] = Writes(i);
        if (std::find(w, w_end, r) != w_end) return false;
        continue;
      }
      const BranchInfo& br = p_.branches[in.aux];
      for (size_t t = 0; t < br.targets.size() && t < br.copies.size(); ++t) {
        if (First(br.targets[t]) > at) continue;
        const auto [first, count] = br.copies[t];
        for (uint32_t k = first; k < first + count; ++k) {
          const EdgeCopy& e = p_.edge_copies[k];
          if (e.dst == r && e.src != r) return false;
        }
      }
    }
    return true;
  }

  // Whether register r holds, when instruction `at` of the loop [begin,
  // end) reads it, the value the loop's top found in register c: every
  // way into at's block copies c to r on an edge (c not yet written on
  // the way there), or passes r on from a block where it holds it, and
  // nothing in the blocks on the way writes r. The register allocator may
  // move a loop's counter to another register for part of a trip (and
  // give its own register another value meanwhile).
  bool Carries(uint32_t r, uint32_t at, uint32_t c, uint32_t begin,
               uint32_t end, int depth) const {
    if (depth == 0) return false;
    const uint32_t b = BlockOf(at);
    const uint32_t start = std::max(begin, p_.blocks[b].first_instr);
    for (uint32_t i = start; i < at; ++i) {
      auto [w, w_end] = Writes(i);
      if (std::find(w, w_end, r) != w_end) return false;
    }
    if (start == begin) return r == c;
    return EdgesInto(
        b, at, begin, end, [&](uint32_t i, uint32_t c0, uint32_t c1) {
          int copied = -1;  // -1: no copy to r on the edge; 0/1: from c
          for (uint32_t k = c0; k < c1; ++k) {
            const EdgeCopy& e = p_.edge_copies[k];
            if (e.dst == r && e.src != r) copied = e.src == c ? 1 : 0;
          }
          if (copied == 1) return Keeps(c, i, begin);
          return copied < 0 && Carries(r, i, c, begin, end, depth - 1);
        });
  }

  // The instruction that steps `counter` by a constant each trip (counter =
  // counter +- c, directly or as the back edge's phi copy of such a sum; or
  // `counter` is that sum), or kNoReg.
  template <typename Written>
  uint32_t Step(uint32_t counter, const Written& written,
                const std::vector<uint32_t>& writer, uint32_t* phi,
                uint32_t begin, uint32_t end, uint32_t compare) const {
    if (written(counter) == 0) return kNoReg;
    const uint32_t w = writer[counter];
    const Instr& in = p_.code[w];
    // The counter's register written more than once on a trip: only when
    // the back edge (the last writer) copies the stepped counter into it
    // and the compare reads it before anything else on the trip writes it.
    if (written(counter) != 1 &&
        (!IsBranch(p_, in) || !Keeps(counter, compare, begin))) {
      return kNoReg;
    }
    // A step by a constant: by one (up or down) for any comparison; by
    // any other constant but 0 for an ordered one (<, <=, >, >=), whose
    // trip count a compiler can count: vulkan_ref/results/h100/sass-*
    // hold such loops stepped by 2, 4, 16 and 1024 unrolled four times
    // (E56's `i += U`, the microbench chases' `i += 16u`, E40's fill loop);
    // a test for (in)equality a larger step may jump past.
    const spv::Op test = p_.code[compare].op;
    const bool ordered =
        test != spv::Op::OpIEqual && test != spv::Op::OpINotEqual;
    auto step_by = [&](uint32_t c) {
      return c == 1u || c == 0xffffffffu || (ordered && c != 0u);
    };
    auto const_step = [&](const Instr& s, uint32_t from) {
      if (s.width != 32) return false;
      if (s.op == spv::Op::OpIAdd) {
        for (int k = 0; k < 2; ++k) {
          if (s.src[k] == from && IsConstant(s.src[1 - k])) {
            return step_by(Constant(s.src[1 - k]));
          }
        }
        return false;
      }
      return s.op == spv::Op::OpISub && s.src[0] == from &&
             IsConstant(s.src[1]) && step_by(Constant(s.src[1]));
    };
    // counter = counter +- c.
    if (in.dst == counter && const_step(in, counter)) return w;
    if (IsBranch(p_, in)) {
      // The back edge copies sum -> counter, sum = counter +- c.
      const BranchInfo& b = p_.branches[in.aux];
      for (const auto& [first, count] : b.copies) {
        for (uint32_t c = first; c < first + count; ++c) {
          const EdgeCopy& e = p_.edge_copies[c];
          if (e.dst != counter) continue;
          // The sum: the loop's only write of its register, or the last
          // one in the back edge's block (the allocator may give the
          // register other values elsewhere in the loop, an inner loop's
          // counter say).
          uint32_t s = written(e.src) == 1 ? writer[e.src] : kNoReg;
          if (s == kNoReg) s = LastWriteInBlock(e.src, w);
          if (s == kNoReg) continue;
          if (written(counter) == 1 && const_step(p_.code[s], counter)) {
            return s;
          }
          // The step reads a copy of the counter made on the trip.
          for (int k = 0; k < 2; ++k) {
            const uint32_t from = p_.code[s].src[k];
            if (from == kNoReg || IsConstant(from)) continue;
            if (const_step(p_.code[s], from) &&
                Carries(from, s, counter, begin, end, 8)) {
              return s;
            }
          }
        }
      }
      return kNoReg;
    }
    // The comparison reads the sum itself: sum = counter +- c, and the
    // counter is the back edge's copy of the sum.
    for (int k = 0; k < 2; ++k) {
      const uint32_t from = in.src[k];
      if (from == kNoReg || IsConstant(from) || written(from) != 1) continue;
      if (!const_step(in, from) || in.dst != counter) continue;
      const Instr& copier = p_.code[writer[from]];
      if (!IsBranch(p_, copier)) continue;
      for (const auto& [first, count] : p_.branches[copier.aux].copies) {
        for (uint32_t c = first; c < first + count; ++c) {
          if (p_.edge_copies[c].dst == from &&
              p_.edge_copies[c].src == counter) {
            *phi = from;
            return w;
          }
        }
      }
    }
    return kNoReg;
  }

  Program& p_;
};

}  // namespace

void MarkUnrolledLoops(Program* p) { LoopFinder(p).Run(); }

}  // namespace warpsim::simt
