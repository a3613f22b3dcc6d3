#include "profile/branch_profile.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <initializer_list>
#include <string_view>

#include "base/bits.h"

namespace warpsim::profile {

const char* BranchKindName(BranchKind kind) {
  switch (kind) {
    case BranchKind::kIf:
      return "if";
    case BranchKind::kSwitch:
      return "switch";
    case BranchKind::kLoop:
      return "loop";
    case BranchKind::kLoopExit:
      return "loop_exit";
    case BranchKind::kContinue:
      return "continue";
    case BranchKind::kConditional:
      return "conditional";
  }
  return "?";
}

uint64_t BranchCost::warp_instructions() const {
  uint64_t n = 0;
  for (const SideCost& s : sides) n += s.warp_instructions;
  return n;
}
uint64_t BranchCost::cycles() const {
  uint64_t n = 0;
  for (const SideCost& s : sides) n += s.cycles;
  return n;
}
uint64_t BranchCost::idle_lanes() const {
  uint64_t n = 0;
  for (const SideCost& s : sides) n += s.idle_lanes;
  return n;
}

namespace {

uint32_t LineAt(const simt::Program& p, uint32_t pc) {
  return pc < p.source_lines.size() ? p.source_lines[pc] : 0;
}

// Source line `line` (1-based) of the program, without surrounding blanks.
std::string LineText(const simt::Program& p, uint32_t line) {
  if (line == 0 || line > p.source_text.size()) return {};
  const std::string& t = p.source_text[line - 1];
  const size_t first = t.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  const size_t last = t.find_last_not_of(" \t\r");
  return t.substr(first, last - first + 1);
}

// Whether source line `line` holds one of `keywords` as a whole word.
bool HasKeyword(const simt::Program& p, uint32_t line,
                std::initializer_list<std::string_view> keywords) {
  if (line == 0 || line > p.source_text.size()) return false;
  const std::string& t = p.source_text[line - 1];
  auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  for (std::string_view k : keywords) {
    for (size_t at = t.find(k); at != std::string::npos;
         at = t.find(k, at + 1)) {
      const bool starts = at == 0 || !word_char(t[at - 1]);
      const bool ends =
          at + k.size() >= t.size() || !word_char(t[at + k.size()]);
      if (starts && ends) return true;
    }
  }
  return false;
}

// The line a row is shown at (see the header): the keyword's line near
// `anchor`, else the line of `pc` or of the nearest instruction before it.
uint32_t RowLine(const simt::Program& p, BranchKind kind, uint32_t pc,
                 uint32_t anchor) {
  constexpr uint32_t kSearch = 8;  // lines above the anchor
  if (anchor != 0 && kind != BranchKind::kConditional &&
      kind != BranchKind::kLoopExit && kind != BranchKind::kContinue) {
    for (uint32_t l = anchor; l > 0 && l + kSearch >= anchor; --l) {
      const bool found = kind == BranchKind::kIf ? HasKeyword(p, l, {"if"})
                         : kind == BranchKind::kSwitch
                             ? HasKeyword(p, l, {"switch"})
                             : HasKeyword(p, l, {"for", "while", "do"});
      if (found) return l;
    }
  }
  for (uint32_t k = pc + 1; k > 0; --k) {
    if (const uint32_t l = LineAt(p, k - 1); l != 0) return l;
  }
  return 0;
}

double Share(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0
                    : static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

// Finds the constructs from the block table: a block with a continue
// target heads a loop; a block with a merge block whose terminator is a
// conditional branch or a switch heads an if or a switch. Every other
// conditional branch gets a row without sides.
BranchProfile::PerProgram& BranchProfile::Analyze(
    const simt::Program& program) {
  auto [it, inserted] = programs_.try_emplace(&program);
  PerProgram& p = it->second;
  if (!inserted) return p;
  const uint32_t code_size = static_cast<uint32_t>(program.code.size());
  const size_t nblocks = program.blocks.size();
  p.block_starts.reserve(nblocks);
  for (const simt::BlockInfo& b : program.blocks) {
    p.block_starts.push_back(b.first_instr);
  }
  auto start_of = [&](uint32_t block) {
    return block < nblocks ? p.block_starts[block] : code_size;
  };
  p.construct_of_header.assign(nblocks, -1);
  p.row_of_branch_pc.assign(code_size, -1);
  std::vector<BranchCost>& rows = p.profile.branches;
  for (uint32_t b = 0; b < nblocks; ++b) {
    const simt::BlockInfo& info = program.blocks[b];
    const uint32_t end = start_of(b + 1);
    if (end == 0 || end > code_size || end <= info.first_instr) continue;
    const uint32_t term = end - 1;
    const simt::Instr& in = program.code[term];
    const bool conditional = in.op == spv::Op::OpBranchConditional;
    const bool is_switch = in.op == spv::Op::OpSwitch;
    const bool loop = info.continue_block != simt::kNoBlock;
    const bool selection = !loop && info.merge_block != simt::kNoBlock &&
                           (conditional || is_switch);
    if (loop || selection) {
      Construct c;
      c.header = b;
      c.hi = start_of(info.merge_block);
      BranchCost row;
      row.pc = loop ? info.first_instr : term;
      if (loop) {
        c.kind = BranchKind::kLoop;
        c.lo = info.first_instr;
        c.side_starts = {c.lo};
        row.sides.push_back(SideCost{.name = "body"});
      } else {
        c.kind = is_switch ? BranchKind::kSwitch : BranchKind::kIf;
        c.lo = term + 1;
        const simt::BranchInfo& br = program.branches[in.aux];
        for (size_t t = 0; t < br.targets.size(); ++t) {
          SideCost side;
          if (is_switch) {
            side.name = t == 0 ? "default"
                               : "case " + std::to_string(static_cast<int64_t>(
                                               br.case_values[t - 1]));
          } else {
            side.name = t == 0 ? "then" : "else";
          }
          c.side_starts.push_back(start_of(br.targets[t]));
          row.sides.push_back(std::move(side));
        }
      }
      c.kind = loop ? BranchKind::kLoop : c.kind;
      row.kind = c.kind;
      c.row = rows.size();
      p.construct_of_header[b] = static_cast<int32_t>(p.constructs.size());
      p.constructs.push_back(std::move(c));
      if (conditional || is_switch) {
        p.row_of_branch_pc[term] = static_cast<int32_t>(rows.size());
      }
      rows.push_back(std::move(row));
    } else if (conditional) {
      BranchCost row;
      row.kind = BranchKind::kConditional;
      const simt::BranchInfo& br = program.branches[in.aux];
      for (uint32_t t : br.targets) {
        for (uint32_t h = 0; h < nblocks; ++h) {
          const simt::BlockInfo& loop_info = program.blocks[h];
          if (loop_info.continue_block == simt::kNoBlock) continue;
          if (t == loop_info.merge_block) row.kind = BranchKind::kLoopExit;
          if (t == loop_info.continue_block &&
              row.kind != BranchKind::kLoopExit) {
            row.kind = BranchKind::kContinue;
          }
        }
      }
      row.pc = term;
      row.line = RowLine(program, row.kind, term, 0);
      row.source = LineText(program, row.line);
      p.row_of_branch_pc[term] = static_cast<int32_t>(rows.size());
      rows.push_back(std::move(row));
    }
  }
  for (const Construct& c : p.constructs) {
    BranchCost& row = rows[c.row];
    uint32_t anchor = 0;  // the first side's line (a loop: its header's)
    for (size_t s = 0; s < row.sides.size(); ++s) {
      const uint32_t first = c.side_starts[s];
      if (first >= c.lo && first < c.hi) {
        // The first line the side's own instructions carry.
        for (uint32_t k = first; k < c.hi && row.sides[s].line == 0; ++k) {
          row.sides[s].line = LineAt(program, k);
        }
        if (anchor == 0 ||
            (row.sides[s].line != 0 && row.sides[s].line < anchor)) {
          anchor = row.sides[s].line;
        }
      }
    }
    row.line = RowLine(program, row.kind, row.pc, anchor);
    row.source = LineText(program, row.line);
  }
  return p;
}

// The side of construct `c` that instruction `pc` (inside it) belongs to:
// the side whose first instruction is the last one at or before `pc`.
uint32_t BranchProfile::SideOf(const Construct& c, uint32_t pc) {
  uint32_t best = 0;
  uint32_t best_start = 0;
  bool found = false;
  for (uint32_t s = 0; s < c.side_starts.size(); ++s) {
    const uint32_t start = c.side_starts[s];
    if (start < c.lo || start >= c.hi || start > pc) continue;  // empty side
    if (!found || start > best_start) {
      best = s;
      best_start = start;
      found = true;
    }
  }
  return best;
}

// Pops the constructs `pc` is outside of, counting what they saw.
void BranchProfile::Leave(PerProgram& p, WarpState& ws, uint32_t pc) {
  while (!ws.frames.empty()) {
    const Frame& f = ws.frames.back();
    const Construct& c = p.constructs[f.construct];
    if (pc >= c.lo && pc < c.hi) break;
    BranchCost& row = p.profile.branches[c.row];
    for (uint32_t bits = f.ran_sides; bits != 0; bits &= bits - 1) {
      row.sides[static_cast<size_t>(std::countr_zero(bits))].warps += 1;
    }
    if (c.kind == BranchKind::kLoop && f.split) row.divergent_executions += 1;
    if (c.kind == BranchKind::kSwitch && std::popcount(f.ran_sides) > 1) {
      row.divergent_executions += 1;
    }
    ws.frames.pop_back();
  }
}

void BranchProfile::OnStep(const simt::Warp& warp, const simt::InstrRecord& rec,
                           uint64_t cycle) {
  if (rec.blocking == simt::Blocking::kDone && rec.active == 0) {
    warps_.erase(&warp);  // a Step() after the warp finished
    return;
  }
  const simt::Program& program = warp.program();
  PerProgram& p = Analyze(program);
  WarpState& ws = warps_[&warp];
  const uint32_t pc = rec.pc;
  const bool launch =
      !program.blocks.empty() && pc == program.blocks[0].first_instr;
  if (launch || ws.program != &program) {
    ws.program = &program;
    ws.frames.clear();
    ws.last_cycle = cycle;
  }
  // Fused and layout-free instructions issue in their partner's cycle.
  const uint64_t waited = cycle > ws.last_cycle ? cycle - ws.last_cycle : 0;
  ws.last_cycle = cycle;
  const uint32_t active = rec.active;
  const uint32_t lanes = PopCount32(active);
  const uint32_t helpers = PopCount32(active & rec.helper);
  ProgramProfile& prof = p.profile;
  prof.warp_instructions += 1;
  prof.lane_instructions += lanes;
  prof.cycles += waited;

  Leave(p, ws, pc);
  // Entering a loop, or its next trip.
  const auto block_it =
      std::upper_bound(p.block_starts.begin(), p.block_starts.end(), pc);
  const uint32_t block =
      static_cast<uint32_t>(block_it - p.block_starts.begin()) - 1;
  if (block < p.construct_of_header.size() && pc == p.block_starts[block] &&
      p.construct_of_header[block] >= 0) {
    const uint32_t ci = static_cast<uint32_t>(p.construct_of_header[block]);
    const Construct& c = p.constructs[ci];
    if (c.kind == BranchKind::kLoop) {
      BranchCost& row = prof.branches[c.row];
      if (ws.frames.empty() || ws.frames.back().construct != ci) {
        ws.frames.push_back(
            Frame{.construct = ci, .lanes = active, .entered = active});
        row.warp_executions += 1;
        row.lane_executions += lanes;
        row.helper_lane_executions += helpers;
      } else {
        // Back at the header: a back edge taken, by these lanes.
        if (active != ws.frames.back().entered) ws.frames.back().split = true;
        row.warp_trips += 1;
        row.lane_trips += lanes;
      }
    }
  }
  // This instruction, in every construct the warp is inside.
  for (size_t i = 0; i < ws.frames.size(); ++i) {
    Frame& f = ws.frames[i];
    const Construct& c = p.constructs[f.construct];
    const uint32_t s = SideOf(c, pc);
    f.ran_sides |= 1u << std::min<uint32_t>(s, 31);
    SideCost& side = prof.branches[c.row].sides[s];
    const uint32_t inner =
        i + 1 < ws.frames.size() ? ws.frames[i + 1].lanes : active;
    side.warp_instructions += 1;
    side.lane_instructions += lanes;
    side.helper_lane_instructions += helpers;
    side.idle_lanes += PopCount32(f.lanes & ~inner);
    side.cycles += waited;
  }
  const int32_t r =
      pc < p.row_of_branch_pc.size() ? p.row_of_branch_pc[pc] : -1;
  if (r >= 0)
    CountBranch(p, ws, block, prof.branches[static_cast<size_t>(r)], rec);
  if (rec.blocking == simt::Blocking::kDone) {
    Leave(p, ws, UINT32_MAX);  // every construct it was in
    warps_.erase(&warp);
  }
}

// A branch: its row, and for an if or a switch the construct it opens.
void BranchProfile::CountBranch(PerProgram& p, WarpState& ws, uint32_t block,
                                BranchCost& row, const simt::InstrRecord& rec) {
  if (row.kind == BranchKind::kLoop) return;  // the loop's own test
  const uint32_t active = rec.active;
  const uint32_t lanes = PopCount32(active);
  const uint32_t helpers = PopCount32(active & rec.helper);
  row.warp_executions += 1;
  row.lane_executions += lanes;
  row.helper_lane_executions += helpers;
  row.taken_lanes += PopCount32(rec.taken & active);
  const bool split = rec.taken != 0 && (rec.taken & active) != active;
  if (split && row.kind != BranchKind::kSwitch) row.divergent_executions += 1;
  if (row.kind == BranchKind::kIf || row.kind == BranchKind::kSwitch) {
    const uint32_t ci = static_cast<uint32_t>(p.construct_of_header[block]);
    ws.frames.push_back(Frame{.construct = ci, .lanes = active});
  }
}

ProgramProfile BranchProfile::Of(const simt::Program& program) const {
  auto it = programs_.find(&program);
  if (it != programs_.end()) return it->second.profile;
  // Never ran: the rows with zero counts.
  BranchProfile empty;
  return empty.Analyze(program).profile;
}

nlohmann::json BranchesJson(const ProgramProfile& profile) {
  nlohmann::json rows = nlohmann::json::array();
  for (const BranchCost& b : profile.branches) {
    if (b.warp_executions == 0) continue;
    nlohmann::json j = {
        {"kind", BranchKindName(b.kind)},
        {"pc", b.pc},
        {"line", b.line},
        {"source", b.source},
        {"warp_executions", b.warp_executions},
        {"lane_executions", b.lane_executions},
        {"helper_lane_executions", b.helper_lane_executions},
        {"taken_share", Share(b.taken_lanes, b.lane_executions)},
        {"divergent_share", Share(b.divergent_executions, b.warp_executions)},
        {"warp_instructions", b.warp_instructions()},
        {"idle_lanes", b.idle_lanes()},
        {"warp_cycles", b.cycles()}};
    if (b.kind == BranchKind::kLoop) {
      j["warp_trips"] = b.warp_trips;
      j["lane_trips"] = b.lane_trips;
      j.erase("taken_share");
    }
    nlohmann::json sides = nlohmann::json::array();
    for (const SideCost& s : b.sides) {
      sides.push_back({{"name", s.name},
                       {"line", s.line},
                       {"warps", s.warps},
                       {"warp_instructions", s.warp_instructions},
                       {"lane_instructions", s.lane_instructions},
                       {"helper_lane_instructions", s.helper_lane_instructions},
                       {"idle_lanes", s.idle_lanes},
                       {"warp_cycles", s.cycles}});
    }
    j["sides"] = std::move(sides);
    rows.push_back(std::move(j));
  }
  return rows;
}

}  // namespace warpsim::profile
