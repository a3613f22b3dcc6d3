#include "simt/warp.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>
#include <string>

#include "spirv/grammar.h"

namespace warpsim::simt {

Warp::Warp(const Program& program, uint32_t width, uint32_t launch_mask,
           ExecContext* context)
    : program_(&program),
      context_(context),
      width_(width),
      launch_mask_(launch_mask) {
  assert(width >= 1 && width <= kMaxWarpWidth);
  const size_t nconst = program.const_values.size();
  regs_.assign((program.num_regs + nconst) * static_cast<size_t>(width), 0);
  // Constants are broadcast into their registers once.
  for (size_t c = 0; c < nconst; ++c) {
    uint32_t* r = Reg(program.num_regs + static_cast<uint32_t>(c));
    std::fill(r, r + width, program.const_values[c]);
  }
  private_.assign(static_cast<size_t>(program.private_bytes) * width, 0);
  next_block_.assign(width, 0);
  size_t max_copies = 1;
  for (const auto& b : program.branches) {
    for (const auto& c : b.copies)
      max_copies = std::max<size_t>(max_copies, c.second);
  }
  scratch_.assign(max_copies * width, 0);
  addresses_.assign(width, 0);
  alive_ = launch_mask;
  active_ = launch_mask;
  pc_ = program.blocks.empty() ? 0 : program.blocks[0].first_instr;
  record_addresses_ = context != nullptr && context->record_addresses;
}

uint8_t* Warp::Resolve(uint32_t lane, uint32_t region, uint64_t offset,
                       uint32_t bytes) {
  if (region == kRegionPrivate) {
    if (offset + bytes > program_->private_bytes) return nullptr;
    return PrivateMemory(lane) + offset;
  }
  if (context_ == nullptr || region >= context_->regions.size()) return nullptr;
  const MemRegion& r = context_->regions[region];
  if (r.data == nullptr || offset + bytes > r.size) return nullptr;
  return r.data + offset;
}

InstrRecord Warp::Step() {
  InstrRecord rec;
  if (alive_ == 0) {
    rec.blocking = Blocking::kDone;
    return rec;
  }
  const Instr& in = program_->code[pc_];
  rec.pc = pc_;
  rec.op = in.op;
  rec.ext = in.ext;
  rec.pipe = in.pipe;
  rec.active = active_;
  const uint32_t helpers = active_ & helper_;  // before a demote changes it
  rec.dst = in.dst;
  std::copy(std::begin(in.src), std::end(in.src), rec.src);
  ++pc_;  // terminators overwrite pc_ through Reconverge()
  in.exec(*this, in);
  if (context_ != nullptr) {
    context_->warp_instructions += 1;
    context_->lane_instructions += std::popcount(rec.active);
    context_->helper_lane_instructions += std::popcount(helpers);
  }
  if (record_addresses_ && in.pipe == Pipe::kLsu) {
    rec.addresses = addresses_.data();
  }
  if (error_) {
    rec.blocking = Blocking::kError;
  } else if (alive_ == 0) {
    rec.blocking = Blocking::kDone;
  } else if (at_barrier_) {
    rec.blocking = Blocking::kBarrier;
  }
  return rec;
}

void Warp::SendLanes(uint32_t lanes, uint32_t block,
                     std::pair<uint32_t, uint32_t> copies) {
  if (lanes == 0) return;
  for (uint32_t m = lanes; m != 0; m &= m - 1) {
    next_block_[std::countr_zero(m)] = block;
  }
  if (copies.second == 0) return;
  // Phi copies are parallel: read every source before writing any target.
  const EdgeCopy* c = &program_->edge_copies[copies.first];
  const uint32_t n = copies.second;
  for (uint32_t i = 0; i < n; ++i) {
    std::memcpy(&scratch_[static_cast<size_t>(i) * width_], Reg(c[i].src),
                width_ * sizeof(uint32_t));
  }
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t* d = Reg(c[i].dst);
    const uint32_t* s = &scratch_[static_cast<size_t>(i) * width_];
    for (uint32_t l = 0; l < width_; ++l) {
      d[l] = ((lanes >> l) & 1u) ? s[l] : d[l];
    }
  }
}

void Warp::RetireLanes(uint32_t lanes, bool discarded) {
  alive_ &= ~lanes;
  if (discarded) discarded_ |= lanes;
}

void Warp::Trap(uint32_t lanes, const Instr& in, const std::string& what) {
  // Lane list with runs collapsed: "lanes 0-3, 9".
  std::string list;
  for (uint32_t m = lanes; m != 0;) {
    const uint32_t first = std::countr_zero(m);
    const uint32_t run = std::countr_one(m >> first);
    if (!list.empty()) list += ", ";
    list += std::to_string(first);
    if (run > 1) list += "-" + std::to_string(first + run - 1);
    m &= run >= 32 ? 0u : ~(((1u << run) - 1) << first);
  }
  const std::string name(spirv::OpcodeName(static_cast<uint32_t>(in.op)));
  error_ = InvalidInput((std::popcount(lanes) == 1 ? "lane " : "lanes ") +
                            list + " of the warp reached " + name + ": " + what,
                        SourcePos{program_->source, 0, in.spirv_word, name});
  alive_ = 0;
  active_ = 0;
}

void Warp::Reconverge() {
  // The lanes at the smallest block position run next (see warp.h).
  const uint32_t waiting = alive_;
  if (waiting == 0) {
    active_ = 0;
    return;
  }
  uint32_t best = 0xffffffffu;
  for (uint32_t m = waiting; m != 0; m &= m - 1) {
    best = std::min(best, next_block_[std::countr_zero(m)]);
  }
  uint32_t group = 0;
  for (uint32_t m = waiting; m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    if (next_block_[l] == best) group |= 1u << l;
  }
  active_ = group;
  pc_ = program_->blocks[best].first_instr;
}

}  // namespace warpsim::simt
