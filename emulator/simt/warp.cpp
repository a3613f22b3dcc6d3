#include "simt/warp.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>
#include <string>

#include "simt/exec_common.h"
#include "spirv/grammar.h"

namespace warpsim::simt {

Warp::Warp(const Program& program, uint32_t width, uint32_t launch_mask,
           ExecContext* context)
    : program_(&program),
      context_(context),
      width_(width),
      num_regs_(program.num_regs) {
  assert(width >= 1 && width <= kMaxWarpWidth);
  static_assert(kConstColumnWidth == kMaxWarpWidth);
  const size_t nconst = program.const_values.size();
  const bool shared = width == kConstColumnWidth &&
                      program.const_columns.size() == nconst * width;
  regs_.own.assign(
      (program.num_regs + (shared ? 0 : nconst)) * static_cast<size_t>(width),
      0);
  regs_.shared = shared;
  // (The program does not change its constants: Warp reads them through
  // a non-const pointer only because Reg() serves writes too, and no
  // instruction writes a constant.)
  regs_.constants =
      shared ? const_cast<uint32_t*>(program.const_columns.data())
             : regs_.own.data() + static_cast<size_t>(program.num_regs) * width;
  private_.assign(static_cast<size_t>(program.private_bytes) * width, 0);
  waiting_.assign(program.blocks.size(), 0);
  pending_.assign((program.blocks.size() + 63) / 64, 0);
  size_t max_copies = 1;
  for (const auto& b : program.branches) {
    for (const auto& c : b.copies)
      max_copies = std::max<size_t>(max_copies, c.second);
  }
  scratch_.assign(max_copies * width, 0);
  addresses_.assign(width, 0);
  record_addresses_ = context != nullptr && context->record_addresses;
  if (!shared) LoadConstants();
  Launch(launch_mask);
}

void Warp::Reset(uint32_t launch_mask) {
  // The constants after the registers (or in the program) are never
  // written: only the registers are cleared.
  std::fill(
      regs_.own.begin(),
      regs_.own.begin() + static_cast<std::ptrdiff_t>(
                              static_cast<size_t>(program_->num_regs) * width_),
      0u);
  std::fill(private_.begin(), private_.end(), uint8_t{0});
  std::fill(waiting_.begin(), waiting_.end(), 0u);
  std::fill(pending_.begin(), pending_.end(), uint64_t{0});
  Launch(launch_mask);
}

void Warp::Reset(uint32_t launch_mask, ExecContext* context) {
  context_ = context;
  record_addresses_ = context != nullptr && context->record_addresses;
  Reset(launch_mask);
}

void Warp::LoadConstants() {
  // Constants are broadcast into their registers after the warp's own.
  const Program& program = *program_;
  for (size_t c = 0; c < program.const_values.size(); ++c) {
    uint32_t* r = Reg(program.num_regs + static_cast<uint32_t>(c));
    std::fill(r, r + width_, program.const_values[c]);
  }
}

void Warp::Launch(uint32_t launch_mask) {
  launch_mask_ = launch_mask;
  alive_ = launch_mask;
  helper_ = 0;
  discarded_ = 0;
  demoted_ = 0;
  at_barrier_ = false;
  error_.reset();
  SetActive(launch_mask);
  pc_ = program_->blocks.empty() ? 0 : program_->blocks[0].first_instr;
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

void Warp::CopyEdge(uint32_t lanes, std::pair<uint32_t, uint32_t> copies) {
  const uint32_t n = copies.second;
  // Phi copies are parallel. Register allocation ordered each edge's copies
  // so that running them one after the other is equivalent, unless they
  // form a cycle (Program::edge_copy_cyclic); only then go through scratch.
  const EdgeCopy* c = &program_->edge_copies[copies.first];
  const bool cyclic = copies.first >= program_->edge_copy_cyclic.size() ||
                      program_->edge_copy_cyclic[copies.first] != 0;
  const bool all = lanes == LowLanes(width_);
  if (!cyclic) {
    for (uint32_t i = 0; i < n; ++i)
      CopyLanes(lanes, all, c[i].dst, Reg(c[i].src));
    return;
  }
  for (uint32_t i = 0; i < n; ++i) {
    std::memcpy(&scratch_[static_cast<size_t>(i) * width_], Reg(c[i].src),
                width_ * sizeof(uint32_t));
  }
  for (uint32_t i = 0; i < n; ++i) {
    CopyLanes(lanes, all, c[i].dst, &scratch_[static_cast<size_t>(i) * width_]);
  }
}

void Warp::CopyLanes(uint32_t lanes, bool all, uint32_t dst,
                     const uint32_t* src) {
  uint32_t* d = Dst(dst);
  if (all) {
    std::memcpy(d, src, width_ * sizeof(uint32_t));
    return;
  }
  if (width_ == kMaxWarpWidth && PopCount32(lanes) >= kWholeWarpMinLanes) {
    BlendLanes(d, src, lanes);
    return;
  }
  for (uint32_t m = lanes; m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    d[l] = src[l];
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

}  // namespace warpsim::simt
