#include "simt/lower.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "simt/scalar_ops.h"
#include "simt/schedule.h"
#include "simt/uniformity.h"
#include "simt/warp.h"
#include "spirv/grammar.h"

namespace warpsim::simt {

using spirv::TypeKind;

namespace {

const Val kEmptyVal;

uint64_t MaskForWidth(uint32_t width) {
  return width >= 64 ? ~0ull : ((1ull << width) - 1);
}

int64_t SignExtend(uint64_t v, uint32_t width) {
  if (width >= 64) return static_cast<int64_t>(v);
  const uint64_t sign = 1ull << (width - 1);
  v &= MaskForWidth(width);
  return static_cast<int64_t>((v ^ sign) - sign);
}

}  // namespace

Result<Program> LowerProgram(const spirv::Module& module,
                             const LowerOptions& options) {
  Program program;
  Lowerer lowerer(module, options, &program);
  Status s = lowerer.Run();
  if (!s.ok()) return s.error();
  std::optional<uint32_t> model_regs;
  if (options.schedule) {
    if (Status sc = ScheduleProgram(lowerer, &program, &model_regs); !sc.ok()) {
      return sc.error();
    }
  }
  Status ra = AllocateRegisters(lowerer, &program);
  if (!ra.ok()) return ra.error();
  if (model_regs) program.model_regs = *model_regs;
  // (AllocateRegisters marked the unrolled loops: the register-count
  // model needs them.)
  MarkLayoutFreeBranches(&program);
  MarkRedundant(&program);
  MarkFoldedChains(&program);
  MarkPredicated(&program);
  BroadcastConstants(&program);
  program.source_lines.resize(program.code.size(), 0);
  if (!program.uniform_branches.empty()) {
    program.uniform_branches.resize(program.code.size(), 0);
  }
  return program;
}

Lowerer::Lowerer(const spirv::Module& module, const LowerOptions& options,
                 Program* program)
    : module_(module), options_(options), program_(program) {}

void Lowerer::AddDefs(const std::vector<uint32_t>& regs) {
  auto& d = extra_defs_.back();
  d.insert(d.end(), regs.begin(), regs.end());
}

void Lowerer::AddUses(const std::vector<uint32_t>& regs) {
  auto& u = extra_uses_.back();
  u.insert(u.end(), regs.begin(), regs.end());
}

void Lowerer::Fail(Diagnostic diag) {
  if (status_.ok()) status_ = Status(std::move(diag));
}

Diagnostic Lowerer::UnsupportedAt(const spirv::Inst& inst,
                                  const std::string& what) {
  return Unsupported(what, SourcePos{module_.file(), 0, inst.word_offset,
                                     std::string(spirv::OpcodeName(
                                         static_cast<uint32_t>(inst.opcode)))});
}

Diagnostic Lowerer::InvalidAt(const spirv::Inst& inst,
                              const std::string& what) {
  return InvalidInput(
      what,
      SourcePos{
          module_.file(), 0, inst.word_offset,
          std::string(spirv::OpcodeName(static_cast<uint32_t>(inst.opcode)))});
}

uint32_t Lowerer::NewReg(bool wide) {
  vreg_wide_.push_back(wide ? 1 : 0);
  return static_cast<uint32_t>(vreg_wide_.size() - 1);
}

uint32_t Lowerer::ConstReg(uint64_t bits, bool wide) {
  auto& consts = program_->const_values;
  if (!wide) {
    bits &= 0xffffffffull;
    auto it = const_slots_.find(bits);
    if (it != const_slots_.end()) return kConstTag | it->second;
    const uint32_t slot = static_cast<uint32_t>(consts.size());
    consts.push_back(static_cast<uint32_t>(bits));
    const_slots_[bits] = slot;
    return kConstTag | slot;
  }
  auto key = std::make_pair(bits, 64);
  auto it = const_slots64_.find(key);
  if (it != const_slots64_.end()) return kConstTag | it->second;
  const uint32_t slot = static_cast<uint32_t>(consts.size());
  consts.push_back(static_cast<uint32_t>(bits));
  consts.push_back(static_cast<uint32_t>(bits >> 32));
  const_slots64_[key] = slot;
  return kConstTag | slot;
}

Val& Lowerer::Define(uint32_t id, uint32_t type_id) {
  Val v;
  v.type_id = type_id;
  // A pointer made by an instruction (phi, select, load, ...) has the
  // layout its type implies.
  v.ptr = PointerInfoOf(type_id);
  for (const ScalarType& s : Flat(type_id)) v.regs.push_back(NewReg(s.wide()));
  return values_[id] = std::move(v);
}

void Lowerer::Alias(uint32_t id, Val value) { values_[id] = std::move(value); }

const Val& Lowerer::Get(uint32_t id) {
  auto it = values_.find(id);
  if (it != values_.end()) return it->second;
  auto cw = const_words_.find(id);
  if (cw != const_words_.end()) {
    const spirv::Constant* c = module_.constant(id);
    Val v;
    v.type_id = c->type;
    const auto& flat = Flat(c->type);
    for (size_t i = 0; i < flat.size() && i < cw->second.size(); ++i) {
      v.regs.push_back(ConstReg(cw->second[i], flat[i].wide()));
    }
    v.ptr = PointerInfoOf(c->type);
    return values_[id] = std::move(v);
  }
  Fail(InvalidInput("use of undefined id %" + std::to_string(id),
                    SourcePos{module_.file(), 0, -1, ""}));
  return kEmptyVal;
}

std::optional<uint64_t> Lowerer::ConstantValue(uint32_t id) {
  auto cw = const_words_.find(id);
  if (cw != const_words_.end() && !cw->second.empty()) return cw->second[0];
  return std::nullopt;
}

const std::vector<uint64_t>* Lowerer::ConstantWords(uint32_t id) const {
  auto cw = const_words_.find(id);
  return cw == const_words_.end() ? nullptr : &cw->second;
}

Instr& Lowerer::Emit(ExecFn fn, spv::Op op, const ScalarType& type,
                     uint32_t spirv_word) {
  Instr in;
  in.exec = fn;
  in.op = op;
  in.kind = type.kind;
  in.width = type.width;
  in.spirv_word = spirv_word;
  in.pipe = TimingOf(op, 0, type.width, type.is_float()).pipe;
  program_->code.push_back(in);
  extra_defs_.emplace_back();
  extra_uses_.emplace_back();
  mem_class_.push_back(kMemUnknown);
  return program_->code.back();
}

uint32_t Lowerer::BlockIndex(uint32_t label) const {
  auto it = block_index_.find(label);
  return it == block_index_.end() ? 0xffffffffu : it->second;
}

// ---------------------------------------------------------------------------
// Constants and specialization

Status Lowerer::FoldConstant(uint32_t id, const spirv::Constant& c) {
  const auto& flat = Flat(c.type);
  if (failed()) return status_;
  std::vector<uint64_t> words;
  if (c.is_null) {
    words.assign(flat.size(), 0);
    // A null pointer names no memory region: every access through it is
    // out of bounds (reads 0, writes dropped).
    for (size_t i = 0; i < flat.size(); ++i) {
      if (flat[i].is_pointer) words[i] = uint64_t{0xffffffffu} << 32;
    }
  } else if (!c.constituents.empty()) {
    for (uint32_t part : c.constituents) {
      auto it = const_words_.find(part);
      if (it == const_words_.end()) {
        return InvalidInput("constant composite uses unknown id %" +
                            std::to_string(part));
      }
      words.insert(words.end(), it->second.begin(), it->second.end());
    }
  } else if (c.spec_op == spv::Op::OpNop) {
    uint64_t v = 0;
    if (!c.words.empty()) v = c.words[0];
    if (c.words.size() > 1) v |= static_cast<uint64_t>(c.words[1]) << 32;
    if (c.is_spec) {
      if (auto spec = module_.DecorationValue(id, spv::Decoration::SpecId)) {
        auto it = options_.spec_values.find(*spec);
        if (it != options_.spec_values.end()) {
          v = it->second;
          if (c.opcode == spv::Op::OpSpecConstantTrue ||
              c.opcode == spv::Op::OpSpecConstantFalse) {
            v = v != 0 ? 1 : 0;
          }
        }
      }
    }
    if (!flat.empty()) v &= MaskForWidth(flat[0].width);
    words.push_back(v);
  } else {
    // OpSpecConstantOp: fold component-wise on integers and booleans, with
    // the executor's scalar functions.
    const auto& ops = c.spec_operands;
    auto vals = [&](uint32_t cid) -> std::vector<uint64_t> {
      auto it = const_words_.find(cid);
      return it == const_words_.end() ? std::vector<uint64_t>{} : it->second;
    };
    auto width_of = [&](uint32_t cid) -> uint32_t {
      const spirv::Constant* k = module_.constant(cid);
      if (!k) return 32;
      const auto& f = Flat(k->type);
      return f.empty() ? 32 : f[0].width;
    };
    const spv::Op op = c.spec_op;
    const uint32_t rw = flat.empty() ? 32 : flat[0].width;
    const uint64_t rmask = MaskForWidth(rw);
    switch (op) {
      case spv::Op::OpCompositeExtract: {
        // Walk the index path through the flattened composite.
        const spirv::Constant* base = module_.constant(ops[0]);
        if (!base) return InvalidInput("bad OpSpecConstantOp operand");
        const uint32_t start =
            FlatPath(base->type, ops.data() + 1, ops.size() - 1).first;
        auto all = vals(ops[0]);
        for (size_t i = 0; i < flat.size(); ++i)
          words.push_back(all[start + i]);
        break;
      }
      case spv::Op::OpCompositeInsert: {
        const spirv::Constant* base = module_.constant(ops[1]);
        if (!base) return InvalidInput("bad OpSpecConstantOp operand");
        const uint32_t start =
            FlatPath(base->type, ops.data() + 2, ops.size() - 2).first;
        words = vals(ops[1]);
        auto obj = vals(ops[0]);
        for (size_t i = 0; i < obj.size(); ++i) words[start + i] = obj[i];
        break;
      }
      case spv::Op::OpVectorShuffle: {
        auto a = vals(ops[0]);
        auto b = vals(ops[1]);
        for (size_t i = 2; i < ops.size(); ++i) {
          uint32_t k = ops[i];
          words.push_back(
              k < a.size() ? a[k] : (k == 0xffffffffu ? 0 : b[k - a.size()]));
        }
        break;
      }
      case spv::Op::OpSelect: {
        auto cond = vals(ops[0]);
        auto a = vals(ops[1]);
        auto b = vals(ops[2]);
        for (size_t i = 0; i < a.size(); ++i) {
          uint64_t cv = cond.size() == 1 ? cond[0] : cond[i];
          words.push_back(cv ? a[i] : b[i]);
        }
        break;
      }
      default: {
        auto a = vals(ops[0]);
        std::vector<uint64_t> b = ops.size() > 1 ? vals(ops[1]) : a;
        const uint32_t aw = width_of(ops[0]);
        for (size_t i = 0; i < a.size(); ++i) {
          const uint64_t x = a[i];
          const uint64_t y = i < b.size() ? b[i] : 0;
          const int64_t sx = SignExtend(x, aw);
          uint64_t r = 0;
          if (op == spv::Op::OpSConvert) {
            r = static_cast<uint64_t>(sx);
          } else if (op == spv::Op::OpUConvert) {
            r = x;
          } else if (auto folded = scalar::FoldIntegerOp(op, aw, x, y)) {
            // The executor's own scalar function (scalar_ops.h).
            r = *folded;
          } else {
            return Unsupported(
                "OpSpecConstantOp with " +
                std::string(spirv::OpcodeName(static_cast<uint32_t>(op))));
          }
          words.push_back(r & rmask);
        }
        break;
      }
    }
  }
  const_words_[id] = std::move(words);
  return {};
}

Status Lowerer::CollectConstants() {
  for (uint32_t id : module_.constant_order()) {
    const spirv::Constant* c = module_.constant(id);
    Status s = FoldConstant(id, *c);
    if (!s.ok()) return s;
  }
  return {};
}

// ---------------------------------------------------------------------------
// Structured block order: a reverse post-order of the CFG in which, at every
// header, the merge block and then the continue target are explored before
// the branch targets. Post-order finishes them first, so in the reversed
// order they come after every block of their construct.

uint32_t Lowerer::SwitchLiteralWords(uint32_t selector) {
  uint32_t type = 0;
  if (const spirv::Constant* c = module_.constant(selector)) type = c->type;
  auto it = id_types_.find(selector);
  if (it != id_types_.end()) type = it->second;
  const auto& flat = Flat(type);
  return !flat.empty() && flat[0].width == 64 ? 2 : 1;
}

Status Lowerer::ComputeBlockOrder(const spirv::Function& fn) {
  std::map<uint32_t, const spirv::Block*> by_label;
  for (const auto& b : fn.blocks) by_label[b.label] = &b;
  auto successors = [&](const spirv::Block* b) {
    std::vector<uint32_t> s;
    if (b->merge_kind != spv::Op::OpNop) {
      s.push_back(b->merge_block);
      if (b->continue_target) s.push_back(b->continue_target);
    }
    const spirv::Inst& t = b->terminator;
    std::vector<uint32_t> targets;
    switch (t.opcode) {
      case spv::Op::OpBranch:
        targets.push_back(t.operands[0]);
        break;
      case spv::Op::OpBranchConditional:
        targets.push_back(t.operands[1]);
        targets.push_back(t.operands[2]);
        break;
      case spv::Op::OpSwitch: {
        targets.push_back(t.operands[1]);
        const uint32_t lit_words = SwitchLiteralWords(t.operands[0]);
        for (size_t i = 2 + lit_words; i < t.operands.size();
             i += lit_words + 1) {
          targets.push_back(t.operands[i]);
        }
        break;
      }
      default:
        break;
    }
    // Reverse so that the first target ends up first in the final order.
    for (auto it = targets.rbegin(); it != targets.rend(); ++it)
      s.push_back(*it);
    return s;
  };
  std::vector<const spirv::Block*> post;
  std::map<uint32_t, bool> visited;
  struct Frame {
    const spirv::Block* block;
    std::vector<uint32_t> succ;
    size_t next;
  };
  std::vector<Frame> stack;
  const spirv::Block* entry = &fn.blocks[0];
  visited[entry->label] = true;
  stack.push_back({entry, successors(entry), 0});
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next < f.succ.size()) {
      const uint32_t s = f.succ[f.next++];
      auto it = by_label.find(s);
      if (it == by_label.end() || visited[s]) continue;
      visited[s] = true;
      stack.push_back({it->second, successors(it->second), 0});
    } else {
      post.push_back(f.block);
      stack.pop_back();
    }
  }
  order_.assign(post.rbegin(), post.rend());
  for (uint32_t i = 0; i < order_.size(); ++i)
    block_index_[order_[i]->label] = i;
  return {};
}

uint32_t Lowerer::KillContinuation(uint32_t block) const {
  // Constructs are nested intervals [header, merge) of the structured order
  // (program.h), so the innermost one holding `block` is the one with the
  // latest header. Headers before `block` are already lowered.
  for (uint32_t h = block; h-- > 0;) {
    const uint32_t merge = program_->blocks[h].merge_block;
    if (merge != kNoBlock && merge > block) return merge;
  }
  return kNoBlock;
}

// ---------------------------------------------------------------------------

std::pair<uint32_t, uint32_t> Lowerer::EdgeCopies(uint32_t from_label,
                                                  uint32_t to_label) {
  const uint32_t first = static_cast<uint32_t>(program_->edge_copies.size());
  const uint32_t to = BlockIndex(to_label);
  if (to == 0xffffffffu) return {first, 0};
  for (const spirv::Inst& inst : order_[to]->insts) {
    if (inst.opcode != spv::Op::OpPhi) continue;
    const Val& dst = values_[inst.result_id];
    for (size_t i = 0; i + 1 < inst.operands.size(); i += 2) {
      if (inst.operands[i + 1] != from_label) continue;
      const Val& src = Get(inst.operands[i]);
      for (size_t c = 0; c < dst.regs.size() && c < src.regs.size(); ++c) {
        program_->edge_copies.push_back({dst.regs[c], src.regs[c]});
      }
      break;
    }
  }
  return {first, static_cast<uint32_t>(program_->edge_copies.size()) - first};
}

Status Lowerer::LowerTerminator(const spirv::Block& block) {
  const spirv::Inst& t = block.terminator;
  const ScalarType branch_type{ScalarKind::kUint, 32, false};
  BranchInfo info;
  ExecFn fn = nullptr;
  uint32_t cond = kNoReg;
  uint8_t width = 32;
  switch (t.opcode) {
    case spv::Op::OpBranch:
      fn = ExecBranch;
      info.targets.push_back(BlockIndex(t.operands[0]));
      info.copies.push_back(EdgeCopies(block.label, t.operands[0]));
      break;
    case spv::Op::OpBranchConditional:
      fn = ExecBranchConditional;
      cond = Get(t.operands[0]).regs.at(0);
      for (int k = 1; k <= 2; ++k) {
        info.targets.push_back(BlockIndex(t.operands[k]));
        info.copies.push_back(EdgeCopies(block.label, t.operands[k]));
      }
      break;
    case spv::Op::OpSwitch: {
      fn = ExecSwitch;
      const Val& sel = Get(t.operands[0]);
      cond = sel.regs.at(0);
      const auto& flat = Flat(sel.type_id);
      width = flat.empty() ? 32 : flat[0].width;
      const uint32_t lit_words = width == 64 ? 2 : 1;
      info.targets.push_back(BlockIndex(t.operands[1]));
      info.copies.push_back(EdgeCopies(block.label, t.operands[1]));
      for (size_t i = 2; i + lit_words < t.operands.size();
           i += lit_words + 1) {
        uint64_t v = t.operands[i];
        if (lit_words == 2) v |= static_cast<uint64_t>(t.operands[i + 1]) << 32;
        const uint32_t label = t.operands[i + lit_words];
        info.case_values.push_back(v & MaskForWidth(width));
        info.targets.push_back(BlockIndex(label));
        info.copies.push_back(EdgeCopies(block.label, label));
      }
      break;
    }
    case spv::Op::OpReturn:
    case spv::Op::OpReturnValue:
      fn = ExecReturn;
      break;
    case spv::Op::OpKill:
      if (options_.kill_terminates) {
        fn = ExecKill;
      } else {
        // The demoted lanes go on as helpers at the merge block of the
        // innermost construct holding this block (exec_control_flow.cpp).
        fn = ExecKillDemote;
        if (const uint32_t next = KillContinuation(current_block_);
            next != kNoBlock) {
          info.targets.push_back(next);
          info.copies.push_back(
              {static_cast<uint32_t>(program_->edge_copies.size()), 0});
        }
      }
      break;
    case spv::Op::OpTerminateInvocation:
      fn = ExecTerminateInvocation;
      break;
    case spv::Op::OpUnreachable:
      fn = ExecUnreachable;
      break;
    default:
      return UnsupportedAt(
          t, "terminator " + std::string(spirv::OpcodeName(
                                 static_cast<uint32_t>(t.opcode))));
  }
  for (uint32_t target : info.targets) {
    if (target == 0xffffffffu) {
      return InvalidAt(t, "branch to a block outside the function");
    }
  }
  if (t.opcode == spv::Op::OpBranchConditional &&
      (t.operands[0] >= divergent_.size() || divergent_[t.operands[0]] == 0)) {
    std::vector<uint8_t>& uniform = program_->uniform_branches;
    uniform.resize(program_->code.size() + 1, 0);
    uniform.back() = 1;
  }
  Instr& in = Emit(fn, t.opcode, branch_type, t.word_offset);
  in.pipe = Pipe::kBranch;
  in.src[0] = cond;
  in.width = width;
  in.aux = static_cast<uint32_t>(program_->branches.size());
  program_->branches.push_back(std::move(info));
  return {};
}

bool Lowerer::LowerInst(const spirv::Inst& inst) {
  switch (inst.opcode) {
    case spv::Op::OpPhi:
      return true;  // lowered as copies on the incoming edges
    case spv::Op::OpNop:
    case spv::Op::OpLine:
    case spv::Op::OpNoLine:
    case spv::Op::OpLoopMerge:
    case spv::Op::OpSelectionMerge:
      return true;  // no run-time effect
    case spv::Op::OpUndef: {
      // Undefined values read as zero.
      Val v;
      v.type_id = inst.result_type;
      for (const ScalarType& s : Flat(inst.result_type)) {
        v.regs.push_back(ConstReg(0, s.wide()));
      }
      Alias(inst.result_id, std::move(v));
      return true;
    }
    case spv::Op::OpCopyObject:
    case spv::Op::OpCopyLogical: {
      Val v = Get(inst.operands[0]);
      v.type_id = inst.result_type;
      Alias(inst.result_id, std::move(v));
      return true;
    }
    case spv::Op::OpFunctionCall:
      Fail(UnsupportedAt(inst, "function calls left after inlining"));
      return true;
    default:
      break;
  }
  return LowerArithmetic(*this, inst) || LowerBitwise(*this, inst) ||
         LowerConversion(*this, inst) || LowerComposite(*this, inst) ||
         LowerMemory(*this, inst) || LowerGlslStd450(*this, inst) ||
         LowerSubgroup(*this, inst) || LowerAtomic(*this, inst) ||
         LowerImage(*this, inst) || LowerDerivative(*this, inst) ||
         LowerMisc(*this, inst);
}

Status Lowerer::LowerBlock(const spirv::Block& block, uint32_t index) {
  current_block_ = index;
  BlockInfo bi;
  bi.first_instr = static_cast<uint32_t>(program_->code.size());
  bi.label = block.label;
  if (block.merge_kind != spv::Op::OpNop) {
    bi.merge_block = BlockIndex(block.merge_block);
    if (block.continue_target) {
      bi.continue_block = BlockIndex(block.continue_target);
      bi.dont_unroll =
          (block.loop_control &
           static_cast<uint32_t>(spv::LoopControlMask::DontUnroll)) != 0;
    }
  }
  program_->blocks[index] = bi;
  if (index == 0) {
    // Prologue: initialise variables that have an initializer.
    auto init = [&](uint32_t var_id, uint32_t init_id, uint32_t word) {
      spirv::Inst store;
      store.opcode = spv::Op::OpStore;
      store.operands = {var_id, init_id};
      store.word_offset = word;
      LowerMemory(*this, store);
    };
    for (const spirv::Variable& v : module_.globals()) {
      if (v.initializer != 0 && v.storage != spv::StorageClass::Workgroup &&
          values_.count(v.id)) {
        init(v.id, v.initializer, 0);
      }
    }
    for (const spirv::Inst& v : function_->variables) {
      if (v.operands.size() > 1)
        init(v.result_id, v.operands[1], v.word_offset);
    }
  }
  // Each instruction emitted for a SPIR-V instruction takes its source line.
  auto lines_to = [&](uint32_t line) {
    program_->source_lines.resize(program_->code.size(), line);
  };
  lines_to(0);
  for (const spirv::Inst& inst : block.insts) {
    if (!LowerInst(inst)) {
      return UnsupportedAt(inst, "SPIR-V instruction " +
                                     std::string(spirv::OpcodeName(
                                         static_cast<uint32_t>(inst.opcode))));
    }
    if (failed()) return status_;
    lines_to(inst.line);
  }
  const Status s = LowerTerminator(block);
  lines_to(block.terminator.line);
  return s;
}

Status Lowerer::Run() {
  std::optional<spv::ExecutionModel> model = options_.model;
  const spirv::EntryPoint* ep =
      module_.FindEntryPoint(options_.entry_point, model);
  if (ep == nullptr) {
    return InvalidInput(
        "entry point \"" + options_.entry_point + "\" not found in the module",
        SourcePos{module_.file(), 0, -1, ""});
  }
  program_->source = module_.file();
  program_->source_text = module_.SourceLines();
  program_->entry_name = ep->name;
  program_->model = ep->model;
  function_ = module_.function(ep->function);
  if (function_ == nullptr || function_->blocks.empty()) {
    return InvalidInput("entry point function has no body");
  }
  if (Status s = CollectConstants(); !s.ok()) return s;
  // Workgroup size: LocalSize / LocalSizeId, overridden by a constant
  // decorated BuiltIn WorkgroupSize.
  for (const auto& mode : ep->modes) {
    if (mode.mode == spv::ExecutionMode::EarlyFragmentTests) {
      program_->early_fragment_tests = true;
    } else if (mode.mode == spv::ExecutionMode::DepthReplacing) {
      program_->depth_replacing = true;
    } else if (mode.mode == spv::ExecutionMode::OriginLowerLeft) {
      program_->origin_upper_left = false;
    }
    if (mode.mode == spv::ExecutionMode::LocalSize &&
        mode.operands.size() >= 3) {
      for (int i = 0; i < 3; ++i) program_->local_size[i] = mode.operands[i];
    } else if (mode.mode == spv::ExecutionMode::LocalSizeId &&
               mode.operands.size() >= 3) {
      for (int i = 0; i < 3; ++i) {
        program_->local_size[i] =
            static_cast<uint32_t>(ConstantValue(mode.operands[i]).value_or(1));
      }
    }
  }
  for (uint32_t id : module_.constant_order()) {
    auto b = module_.DecorationValue(id, spv::Decoration::BuiltIn);
    if (b && static_cast<spv::BuiltIn>(*b) == spv::BuiltIn::WorkgroupSize) {
      const auto& w = const_words_[id];
      for (int i = 0; i < 3 && i < static_cast<int>(w.size()); ++i) {
        program_->local_size[i] = static_cast<uint32_t>(w[i]);
      }
    }
  }
  if (Status s = CollectGlobals(); !s.ok()) return s;
  divergent_ = DivergentValues(module_, *function_);
  // Function-scope variables live in lane-private memory.
  for (const spirv::Inst& v : function_->variables) {
    auto info = std::make_shared<PointerInfo>();
    info->pointee_type = module_.type(v.result_type).pointee;
    if (Status s =
            CheckVariableSize(v.result_id, info->pointee_type,
                              spv::StorageClass::Function, v.word_offset);
        !s.ok()) {
      return s;
    }
    info->storage = spv::StorageClass::Function;
    const uint32_t bytes = SizeOf(info->pointee_type, *info);
    const uint32_t off = AllocPrivate(bytes, 8);
    info->root = AddPrivateRoot(info->storage, off, bytes);
    Val val;
    val.type_id = v.result_type;
    val.ptr = info;
    val.regs.push_back(ConstReg(off, true));
    values_[v.result_id] = std::move(val);
  }
  for (size_t i = 0; i < function_->params.size(); ++i) {
    id_types_[function_->params[i]] = function_->param_types[i];
  }
  for (const spirv::Block& b : function_->blocks) {
    for (const spirv::Inst& inst : b.insts) {
      if (inst.result_id) id_types_[inst.result_id] = inst.result_type;
    }
  }
  if (Status s = ComputeBlockOrder(*function_); !s.ok()) return s;
  program_->blocks.resize(order_.size());
  // Phi results get their registers before any edge copies are emitted.
  for (const spirv::Block* b : order_) {
    for (const spirv::Inst& inst : b->insts) {
      if (inst.opcode == spv::Op::OpPhi)
        MarkLargeAggregate(Define(inst.result_id, inst.result_type));
    }
  }
  for (uint32_t i = 0; i < order_.size(); ++i) {
    if (Status s = LowerBlock(*order_[i], i); !s.ok()) return s;
  }
  program_->virtual_regs = static_cast<uint32_t>(vreg_wide_.size());
  vreg_in_memory_.resize(vreg_wide_.size(), 0);
  return status_;
}

}  // namespace warpsim::simt
