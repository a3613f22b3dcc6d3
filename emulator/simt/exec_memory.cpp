// Memory instructions: access chains, loads, stores, copies, OpArrayLength
// and pointer comparisons.
//
// A pointer is a 64-bit register pair: the byte offset in the low word and
// the memory region in the high word (program.h: lane-private memory, the
// workgroup's memory, or a bound buffer). Access chains become pointer
// arithmetic (one instruction per dynamic index, like an IMAD per index on
// hardware); constant indices fold into a static offset. The byte layout of
// what a pointer points to is known statically (PointerInfo), so a load or
// store is one instruction moving all scalar leaves of the value.
#include <algorithm>
#include <string>

#include "simt/exec_common.h"

namespace warpsim::simt {
namespace {

using spirv::TypeKind;

// Literals for ExecPtrAdd: [stride, static offset].
// ext bit 0: index is 64-bit; bit 1: index selects the region (descriptor
// arrays); bit 2: index is signed.
void ExecPtrAdd(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const Program& p = w.program();
  const uint64_t stride = p.literals[in.aux];
  const uint64_t offset = p.literals[in.aux + 1];
  const uint32_t* ptr = w.Reg(in.src[0]);
  const uint32_t* idx = in.src[1] == kNoReg ? nullptr : w.Reg(in.src[1]);
  const bool wide_index = in.ext & 1u;
  const bool region_index = in.ext & 2u;
  const bool signed_index = in.ext & 4u;
  uint32_t* d = w.Dst(in.dst);
  if (idx == nullptr && !region_index) {
    // A constant offset (a struct member, a constant index): no per-lane
    // index to read.
    const uint32_t add = static_cast<uint32_t>(offset);
    if (act == LowLanes(W)) {
      for (uint32_t l = 0; l < W; ++l) {
        d[l] = ptr[l] + add;
        d[W + l] = ptr[W + l];
      }
      return;
    }
    for (uint32_t m = act; m != 0; m &= m - 1) {
      const uint32_t l = std::countr_zero(m);
      d[l] = ptr[l] + add;
      d[W + l] = ptr[W + l];
    }
    return;
  }
  for (uint32_t l = 0; l < W; ++l) {
    if (!((act >> l) & 1u)) continue;
    int64_t i = 0;
    if (idx != nullptr) {
      if (wide_index) {
        i = static_cast<int64_t>(static_cast<uint64_t>(idx[l]) |
                                 (static_cast<uint64_t>(idx[W + l]) << 32));
      } else {
        i = signed_index ? static_cast<int64_t>(static_cast<int32_t>(idx[l]))
                         : static_cast<int64_t>(idx[l]);
      }
    }
    uint32_t lo = ptr[l];
    uint32_t hi = ptr[W + l];
    if (region_index) {
      hi = static_cast<uint32_t>(hi + i);
      lo = static_cast<uint32_t>(lo + offset);
    } else {
      lo = static_cast<uint32_t>(lo + offset +
                                 static_cast<uint64_t>(i) * stride);
    }
    d[l] = lo;
    d[W + l] = hi;
  }
}

// Lane-private memory of one lane, resolved once per lane instead of once
// per leaf; same bounds rule as Warp::Resolve (an access past the end reads
// 0 and writes nothing). Other regions go through Warp::Resolve.
struct PrivateLane {
  uint8_t* data = nullptr;
  uint64_t size = 0;
  uint8_t* At(uint64_t offset, uint32_t bytes) const {
    return offset + bytes <= size ? data + offset : nullptr;
  }
};

uint8_t* LeafAddress(Warp& w, uint32_t lane, uint32_t region,
                     const PrivateLane& priv, uint64_t offset, uint32_t bytes) {
  return region == kRegionPrivate ? priv.At(offset, bytes)
                                  : w.Resolve(lane, region, offset, bytes);
}

// Bytes one lane's access of `acc` moves (the leaves that name a register).
uint32_t AccessBytes(const Program& p, const MemAccess& acc) {
  uint32_t bytes = 0;
  for (uint32_t k = 0; k < acc.leaf_count; ++k) {
    const MemLeaf& leaf = p.mem_leaves[acc.first_leaf + k];
    if (leaf.reg != kNoReg) bytes += leaf.bytes;
  }
  return bytes;
}

uint64_t LoadBytes(const uint8_t* src, uint32_t bytes) {
  if (bytes == 4) {
    uint32_t v;
    std::memcpy(&v, src, 4);
    return v;
  }
  uint64_t v = 0;
  std::memcpy(&v, src, bytes);
  return v;
}

// The record of a load whose active lanes all read private memory: each
// lane's offset in region 0 (kRegionPrivate), as the general path records.
void RecordPrivateAddresses(Warp& w, const MemAccess& acc, const uint32_t* ptr,
                            uint32_t act) {
  static_assert(kRegionPrivate == 0);
  w.set_access_bytes(AccessBytes(w.program(), acc));
  uint64_t* out = w.address_buffer();
  for (uint32_t m = act; m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    out[l] = ptr[l];
  }
}

void ExecLoad(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  const Program& p = w.program();
  const MemAccess& acc = p.mem_accesses[in.aux];
  const MemLeaf* leaves = p.mem_leaves.data() + acc.first_leaf;
  const uint32_t* ptr = w.Reg(acc.ptr_reg);
  const bool record = w.record_addresses();
  // Whether every active lane reads the same offset of private memory.
  const uint32_t first = ptr[std::countr_zero(act | (1u << (W - 1)))];
  bool same_private = true;
  if (W == kMaxWarpWidth) {
    uint32_t other[kMaxWarpWidth];  // nonzero: another offset or region
    for (uint32_t l = 0; l < kMaxWarpWidth; ++l) {
      static_assert(kRegionPrivate == 0);
      other[l] = (ptr[l] ^ first) | ptr[kMaxWarpWidth + l];
    }
    same_private = !AnyLaneNonzero(other, act);
  } else {
    for (uint32_t m = act; m != 0; m &= m - 1) {
      const uint32_t l = std::countr_zero(m);
      if (ptr[l] != first || ptr[W + l] != kRegionPrivate) same_private = false;
    }
  }
  if (same_private) {
    // Every lane reads the same place of its own private memory (a
    // built-in input, a variable): the bounds are checked once per leaf,
    // and lane l's word is private_bytes * l further on.
    if (record) RecordPrivateAddresses(w, acc, ptr, act);
    const uint32_t stride = p.private_bytes;
    for (uint32_t k = 0; k < acc.leaf_count; ++k) {
      const MemLeaf& leaf = leaves[k];
      if (leaf.reg == kNoReg) continue;
      uint32_t* r = w.Dst(leaf.reg);
      const uint64_t offset = static_cast<uint64_t>(first) + leaf.offset;
      const bool inside = offset + leaf.bytes <= stride;
      const uint8_t* src = w.PrivateMemory(0) + (inside ? offset : 0);
      if (inside && leaf.bytes == 4 && !leaf.is_bool && W == kMaxWarpWidth) {
        // Every lane's word (private memory exists for each), then the
        // active lanes' words into the register.
        uint32_t words[kMaxWarpWidth];
        for (uint32_t l = 0; l < kMaxWarpWidth; ++l) {
          std::memcpy(&words[l], src + static_cast<size_t>(l) * stride, 4);
        }
        BlendLanes(r, words, act);
        continue;
      }
      for (uint32_t m = act; m != 0; m &= m - 1) {
        const uint32_t l = std::countr_zero(m);
        uint64_t v = inside ? LoadBytes(src + static_cast<size_t>(l) * stride,
                                        leaf.bytes)
                            : 0;
        if (leaf.is_bool) v = v != 0 ? 1 : 0;
        r[l] = static_cast<uint32_t>(v);
        if (leaf.bytes == 8) r[W + l] = static_cast<uint32_t>(v >> 32);
      }
    }
    return;
  }
  uint32_t non_private = 0;
  for (uint32_t m = act; m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    if (ptr[W + l] != kRegionPrivate) non_private |= 1u << l;
  }
  if (non_private == 0) {
    // Every lane reads its own private memory (inputs, function variables):
    // one pass over the lanes per leaf.
    if (record) RecordPrivateAddresses(w, acc, ptr, act);
    for (uint32_t k = 0; k < acc.leaf_count; ++k) {
      const MemLeaf& leaf = leaves[k];
      if (leaf.reg == kNoReg) continue;
      uint32_t* r = w.Dst(leaf.reg);
      for (uint32_t m = act; m != 0; m &= m - 1) {
        const uint32_t l = std::countr_zero(m);
        const PrivateLane priv{w.PrivateMemory(l), p.private_bytes};
        const uint8_t* src =
            priv.At(static_cast<uint64_t>(ptr[l]) + leaf.offset, leaf.bytes);
        uint64_t v = src != nullptr ? LoadBytes(src, leaf.bytes) : 0;
        if (leaf.is_bool) v = v != 0 ? 1 : 0;
        r[l] = static_cast<uint32_t>(v);
        if (leaf.bytes == 8) r[W + l] = static_cast<uint32_t>(v >> 32);
      }
    }
    return;
  }
  if (record) w.set_access_bytes(AccessBytes(p, acc));
  for (uint32_t m = act; m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    const uint32_t region = ptr[W + l];
    const uint32_t base = ptr[l];
    if (record) {
      w.address_buffer()[l] = (static_cast<uint64_t>(region) << 32) | base;
    }
    const PrivateLane priv{w.PrivateMemory(l), p.private_bytes};
    for (uint32_t k = 0; k < acc.leaf_count; ++k) {
      const MemLeaf& leaf = leaves[k];
      if (leaf.reg == kNoReg) continue;
      const uint8_t* src =
          LeafAddress(w, l, region, priv,
                      static_cast<uint64_t>(base) + leaf.offset, leaf.bytes);
      uint64_t v = src != nullptr ? LoadBytes(src, leaf.bytes) : 0;
      uint32_t* r = w.Dst(leaf.reg);
      if (leaf.is_bool) v = v != 0 ? 1 : 0;
      r[l] = static_cast<uint32_t>(v);
      if (leaf.bytes == 8) r[W + l] = static_cast<uint32_t>(v >> 32);
    }
  }
}

void ExecStore(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const Program& p = w.program();
  const MemAccess& acc = p.mem_accesses[in.aux];
  const MemLeaf* leaves = p.mem_leaves.data() + acc.first_leaf;
  const uint32_t* ptr = w.Reg(acc.ptr_reg);
  const bool record = w.record_addresses();
  if (record) w.set_access_bytes(AccessBytes(p, acc));
  for (uint32_t m = w.active(); m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    const uint32_t region = ptr[W + l];
    const uint32_t base = ptr[l];
    if (record) {
      w.address_buffer()[l] = (static_cast<uint64_t>(region) << 32) | base;
    }
    // Helper invocations never write memory outside their own lane.
    if (((w.helper() >> l) & 1u) && region != kRegionPrivate) continue;
    const PrivateLane priv{w.PrivateMemory(l), p.private_bytes};
    for (uint32_t k = 0; k < acc.leaf_count; ++k) {
      const MemLeaf& leaf = leaves[k];
      if (leaf.reg == kNoReg) continue;
      uint8_t* dst =
          LeafAddress(w, l, region, priv,
                      static_cast<uint64_t>(base) + leaf.offset, leaf.bytes);
      if (dst == nullptr) continue;  // out of bounds: dropped
      const uint32_t* r = w.Reg(leaf.reg);
      if (leaf.bytes == 4 && !leaf.is_bool) {
        std::memcpy(dst, &r[l], 4);
        continue;
      }
      uint64_t v = r[l];
      if (leaf.bytes == 8) v |= static_cast<uint64_t>(r[W + l]) << 32;
      if (leaf.is_bool) v = v != 0 ? 1 : 0;
      std::memcpy(dst, &v, leaf.bytes);
    }
  }
}

// Literals: [member offset, element stride]. Result: 32-bit element count.
void ExecArrayLength(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const Program& p = w.program();
  const uint32_t offset = p.literals[in.aux];
  const uint32_t stride = std::max(p.literals[in.aux + 1], 1u);
  const uint32_t* ptr = w.Reg(in.src[0]);
  uint32_t* d = w.Dst(in.dst);
  for (uint32_t m = w.active(); m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    const uint32_t region = ptr[W + l];
    uint64_t size = 0;
    if (region < w.context().regions.size())
      size = w.context().regions[region].size;
    const uint64_t start = static_cast<uint64_t>(ptr[l]) + offset;
    d[l] = size > start ? static_cast<uint32_t>((size - start) / stride) : 0;
  }
}

bool PtrEq(uint64_t a, uint64_t b) { return a == b; }
bool PtrNe(uint64_t a, uint64_t b) { return a != b; }

// OpPtrDiff: (a - b) / stride as a signed element count; literal = stride.
template <typename R>
void ExecPtrDiff(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const int64_t stride = std::max<int64_t>(w.program().literals[in.aux], 1);
  const uint32_t* a = w.Reg(in.src[0]);
  const uint32_t* b = w.Reg(in.src[1]);
  uint32_t* d = w.Dst(in.dst);
  for (uint32_t m = w.active(); m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    const int64_t diff =
        static_cast<int64_t>(a[l]) - static_cast<int64_t>(b[l]);
    StoreLane<R>(d, W, l, static_cast<R>(diff / stride));
  }
}

// Size in bytes between consecutive elements of `type_id` for pointer
// arithmetic (OpPtrAccessChain, OpPtrDiff).
uint32_t ElementStride(Lowerer& l, uint32_t ptr_type, const PointerInfo& info) {
  if (auto s =
          l.module().DecorationValue(ptr_type, spv::Decoration::ArrayStride)) {
    return *s;
  }
  const uint32_t size = l.SizeOf(info.pointee_type, info);
  return std::max(size, 1u);
}

// Whether a run-time index into `info` is the first step from a storage
// buffer's base (simt::kBufferAddressExt): a storage buffer (StorageBuffer,
// or Uniform without a constant bank: BufferBlock), not yet stepped.
bool IntoBuffer(const PointerInfo& info) {
  return !info.addressed &&
         (info.storage == spv::StorageClass::StorageBuffer ||
          (info.storage == spv::StorageClass::Uniform && !info.constant_bank));
}

uint32_t EmitPtrAdd(Lowerer& l, const spirv::Inst& inst, uint32_t ptr,
                    uint32_t index, const ScalarType& index_type,
                    uint64_t stride, uint64_t offset, bool region_index,
                    bool buffer = false) {
  const uint32_t dst = l.NewReg(true);
  const ScalarType t{ScalarKind::kUint, 64, true};
  Instr& in = l.Emit(ExecPtrAdd, inst.opcode, t, inst.word_offset);
  in.pipe = Pipe::kAlu;
  in.dst = dst;
  in.src[0] = ptr;
  in.src[1] = index;
  in.ext = static_cast<uint16_t>((index_type.wide() ? 1 : 0) |
                                 (region_index ? 2 : 0) |
                                 (index_type.kind == ScalarKind::kInt ? 4 : 0) |
                                 (buffer ? kBufferAddressExt : 0));
  in.aux = static_cast<uint32_t>(l.program().literals.size());
  l.program().literals.push_back(static_cast<uint32_t>(stride));
  l.program().literals.push_back(static_cast<uint32_t>(offset));
  return dst;
}

bool LowerAccessChain(Lowerer& l, const spirv::Inst& inst, bool has_element) {
  const Val base = l.Get(inst.operands[0]);
  if (l.failed()) return true;
  if (!base.ptr) {
    l.Fail(
        l.UnsupportedAt(inst, "access chain on a pointer of unknown layout"));
    return true;
  }
  const spirv::Module& m = l.module();
  PointerInfo info = *base.ptr;
  uint32_t ptr = base.regs[0];
  uint64_t offset = 0;
  // Within the lane-private variable (the register-count model's view).
  bool root_known = info.root_known;
  uint64_t root_offset = info.root_offset;
  size_t first_index = 1;
  if (has_element) {
    // OpPtrAccessChain: the Element operand steps over whole pointees.
    const uint32_t stride = ElementStride(l, base.type_id, info);
    const uint32_t id = inst.operands[1];
    if (auto c = l.ConstantValue(id)) {
      offset += *c * stride;
      root_offset += *c * stride;
    } else {
      root_known = false;
      const Val& idx = l.Get(id);
      ptr = EmitPtrAdd(l, inst, ptr, idx.regs[0], ScalarOf(l, idx.type_id),
                       stride, offset, false, IntoBuffer(info));
      info.addressed = true;
      offset = 0;
    }
    first_index = 2;
  }
  uint32_t type = info.pointee_type;
  for (size_t i = first_index; i < inst.operands.size(); ++i) {
    const uint32_t id = inst.operands[i];
    const std::optional<uint64_t> cidx = l.ConstantValue(id);
    const spirv::Type& t = m.type(type);
    // Descriptor arrays: the first index picks the region.
    if (info.descriptor_array != 0 && i == first_index) {
      if (cidx) {
        ptr = EmitPtrAdd(l, inst, ptr, l.ConstReg(*cidx), ScalarType{}, 0, 0,
                         true);
      } else {
        const Val& idx = l.Get(id);
        ptr = EmitPtrAdd(l, inst, ptr, idx.regs[0], ScalarOf(l, idx.type_id), 0,
                         0, true);
        info.constant_bank = false;  // which bank: known at run time
      }
      info.descriptor_array = 0;
      type = t.element;
      continue;
    }
    uint64_t stride = 0;
    uint64_t member_offset = 0;
    uint32_t next = 0;
    PointerInfo next_info = info;
    next_info.component_stride = 0;
    switch (t.kind) {
      case TypeKind::kStruct: {
        if (!cidx || *cidx >= t.members.size()) {
          l.Fail(l.InvalidAt(inst, "struct index must be a constant in range"));
          return true;
        }
        const uint32_t mi = static_cast<uint32_t>(*cidx);
        next = t.members[mi];
        next_info = l.MemberInfo(type, mi, info);
        // Natural layout: after the members before it, 4-byte aligned.
        uint32_t end = 0;
        for (uint32_t k = 0; k < mi && !info.explicit_layout; ++k) {
          end = l.MemberOffset(type, k, info, end) +
                l.SizeOf(t.members[k], l.MemberInfo(type, k, info));
        }
        member_offset = l.MemberOffset(type, mi, info, end);
        break;
      }
      case TypeKind::kArray:
      case TypeKind::kRuntimeArray: {
        next = t.element;
        if (info.explicit_layout) {
          stride =
              m.DecorationValue(type, spv::Decoration::ArrayStride).value_or(0);
        }
        if (stride == 0) {
          PointerInfo ei = info;
          ei.component_stride = 0;
          stride = (l.SizeOf(t.element, ei) + 3) / 4 * 4;
        }
        next_info.matrix_stride = info.matrix_stride;
        next_info.row_major = info.row_major;
        break;
      }
      case TypeKind::kMatrix: {
        next = t.element;
        const uint32_t es = l.SizeOf(m.type(t.element).element, info);
        if (info.explicit_layout && info.matrix_stride != 0) {
          if (info.row_major) {
            stride = es;
            next_info.component_stride = info.matrix_stride;
          } else {
            stride = info.matrix_stride;
          }
        } else {
          stride = static_cast<uint64_t>(es) * m.type(t.element).count;
        }
        next_info.matrix_stride = 0;
        break;
      }
      case TypeKind::kVector: {
        next = t.element;
        stride = info.component_stride ? info.component_stride
                                       : l.SizeOf(t.element, info);
        break;
      }
      default:
        l.Fail(l.InvalidAt(inst, "access chain indexes a scalar"));
        return true;
    }
    if (t.kind == TypeKind::kStruct) {
      offset += member_offset;
      root_offset += member_offset;
    } else if (cidx) {
      offset += *cidx * stride;
      root_offset += *cidx * stride;
    } else {
      root_known = false;
      const Val& idx = l.Get(id);
      ptr = EmitPtrAdd(l, inst, ptr, idx.regs[0], ScalarOf(l, idx.type_id),
                       stride, offset, false, IntoBuffer(info));
      next_info.addressed = true;
      offset = 0;
    }
    type = next;
    next_info.pointee_type = next;
    info = next_info;
  }
  if (offset != 0)
    ptr = EmitPtrAdd(l, inst, ptr, kNoReg, ScalarType{}, 0, offset, false);
  info.pointee_type = m.type(inst.result_type).pointee;
  info.root_known = root_known && root_offset <= 0xffffffffu;
  info.root_offset = info.root_known ? static_cast<uint32_t>(root_offset) : 0;
  Val res;
  res.type_id = inst.result_type;
  res.regs = {ptr};
  res.ptr = std::make_shared<PointerInfo>(info);
  l.Alias(inst.result_id, std::move(res));
  return true;
}

// Emits a load of `type_id` through `ptr`; returns the registers.
std::vector<uint32_t> EmitLoad(Lowerer& l, const spirv::Inst& inst,
                               const Val& ptr, uint32_t type_id) {
  std::vector<uint32_t> regs;
  for (const ScalarType& s : l.Flat(type_id))
    regs.push_back(l.NewReg(s.wide()));
  const auto leaves = l.Leaves(type_id, *ptr.ptr);
  const uint32_t acc = l.AddMemAccess(regs, leaves, ptr.regs[0]);
  Instr& in = l.Emit(ExecLoad, spv::Op::OpLoad, ScalarType{}, inst.word_offset);
  in.pipe = Pipe::kLsu;
  in.aux = acc;
  in.src[0] = ptr.regs[0];
  l.AddDefs(regs);
  l.NoteMemoryClass(ptr.ptr->storage);
  l.NotePrivateAccess(*ptr.ptr, false);
  l.NoteBufferLoad(*ptr.ptr);
  return regs;
}

void EmitStore(Lowerer& l, const spirv::Inst& inst, const Val& ptr,
               const std::vector<uint32_t>& regs, uint32_t type_id) {
  const auto leaves = l.Leaves(type_id, *ptr.ptr);
  const uint32_t acc = l.AddMemAccess(regs, leaves, ptr.regs[0]);
  Instr& in =
      l.Emit(ExecStore, spv::Op::OpStore, ScalarType{}, inst.word_offset);
  in.pipe = Pipe::kLsu;
  in.aux = acc;
  in.src[0] = ptr.regs[0];
  l.AddUses(regs);
  l.NoteMemoryClass(ptr.ptr->storage);
  l.NotePrivateAccess(*ptr.ptr, true, regs);
}

bool CheckMemoryType(Lowerer& l, const spirv::Inst& inst, const Val& ptr) {
  if (!ptr.ptr) {
    l.Fail(l.UnsupportedAt(
        inst, "memory access through a pointer of unknown layout"));
    return false;
  }
  const spirv::Type& t = l.module().type(ptr.ptr->pointee_type);
  if (t.kind == TypeKind::kImage || t.kind == TypeKind::kSampler ||
      t.kind == TypeKind::kSampledImage) {
    return true;  // handled by the image family
  }
  switch (ptr.ptr->storage) {
    case spv::StorageClass::PhysicalStorageBuffer:
      l.Fail(l.UnsupportedAt(inst, "PhysicalStorageBuffer pointers"));
      return false;
    default:
      return true;
  }
}

}  // namespace

bool LowerMemory(Lowerer& l, const spirv::Inst& inst) {
  using spv::Op;
  switch (inst.opcode) {
    case Op::OpAccessChain:
    case Op::OpInBoundsAccessChain:
      return LowerAccessChain(l, inst, false);
    case Op::OpPtrAccessChain:
    case Op::OpInBoundsPtrAccessChain:
      return LowerAccessChain(l, inst, true);
    case Op::OpLoad: {
      // HelperInvocation can change during the invocation (demote), so it
      // is read from the warp's helper mask, not from the input variable.
      if (l.module().global(inst.operands[0]) != nullptr &&
          l.module().DecorationValue(inst.operands[0],
                                     spv::Decoration::BuiltIn) ==
              static_cast<uint32_t>(spv::BuiltIn::HelperInvocation)) {
        spirv::Inst is_helper = inst;
        is_helper.opcode = Op::OpIsHelperInvocationEXT;
        is_helper.operands.clear();
        return LowerMisc(l, is_helper);
      }
      const Val ptr = l.Get(inst.operands[0]);
      if (l.failed() || !CheckMemoryType(l, inst, ptr)) return true;
      const spirv::Type& pt = l.module().type(ptr.ptr->pointee_type);
      if (pt.kind == TypeKind::kImage || pt.kind == TypeKind::kSampler ||
          pt.kind == TypeKind::kSampledImage) {
        return false;  // images: another family (or unsupported)
      }
      Val res;
      res.type_id = inst.result_type;
      res.regs = EmitLoad(l, inst, ptr, inst.result_type);
      res.ptr = l.PointerInfoOf(inst.result_type);
      if (ptr.ptr->storage == spv::StorageClass::Function ||
          ptr.ptr->storage == spv::StorageClass::Private) {
        l.MarkLargeAggregate(res);
      }
      l.Alias(inst.result_id, std::move(res));
      return true;
    }
    case Op::OpStore: {
      const Val ptr = l.Get(inst.operands[0]);
      const Val obj = l.Get(inst.operands[1]);
      if (l.failed() || !CheckMemoryType(l, inst, ptr)) return true;
      EmitStore(l, inst, ptr, obj.regs, ptr.ptr->pointee_type);
      return true;
    }
    case Op::OpCopyMemory: {
      const Val dst = l.Get(inst.operands[0]);
      const Val src = l.Get(inst.operands[1]);
      if (l.failed() || !CheckMemoryType(l, inst, dst) ||
          !CheckMemoryType(l, inst, src)) {
        return true;
      }
      const auto regs = EmitLoad(l, inst, src, src.ptr->pointee_type);
      EmitStore(l, inst, dst, regs, dst.ptr->pointee_type);
      return true;
    }
    case Op::OpArrayLength: {
      const Val ptr = l.Get(inst.operands[0]);
      if (l.failed() || !CheckMemoryType(l, inst, ptr)) return true;
      const uint32_t member = inst.operands[1];
      const uint32_t st = ptr.ptr->pointee_type;
      const spirv::Type& t = l.module().type(st);
      if (t.kind != TypeKind::kStruct || member >= t.members.size()) {
        l.Fail(l.InvalidAt(
            inst, "OpArrayLength needs a struct with a runtime array"));
        return true;
      }
      const uint32_t offset =
          l.module()
              .MemberDecorationValue(st, member, spv::Decoration::Offset)
              .value_or(0);
      const uint32_t stride =
          l.module()
              .DecorationValue(t.members[member], spv::Decoration::ArrayStride)
              .value_or(4);
      const uint32_t dst = l.Define(inst.result_id, inst.result_type).regs[0];
      Instr& in =
          l.Emit(ExecArrayLength, inst.opcode, ScalarType{}, inst.word_offset);
      in.pipe = Pipe::kAlu;
      in.dst = dst;
      in.src[0] = ptr.regs[0];
      in.aux = static_cast<uint32_t>(l.program().literals.size());
      l.program().literals.push_back(offset);
      l.program().literals.push_back(stride);
      return true;
    }
    case Op::OpPtrEqual:
    case Op::OpPtrNotEqual: {
      const HandlerSet set{
          .u64 = inst.opcode == Op::OpPtrEqual
                     ? &ExecBinary<bool, uint64_t, uint64_t, &PtrEq>
                     : &ExecBinary<bool, uint64_t, uint64_t, &PtrNe>};
      const Val a = l.Get(inst.operands[0]);
      const Val b = l.Get(inst.operands[1]);
      if (l.failed()) return true;
      const uint32_t dst = l.Define(inst.result_id, inst.result_type).regs[0];
      Instr& in =
          l.Emit(set.u64, inst.opcode, ScalarType{ScalarKind::kUint, 64, true},
                 inst.word_offset);
      in.dst = dst;
      in.src[0] = a.regs[0];
      in.src[1] = b.regs[0];
      return true;
    }
    case Op::OpPtrDiff: {
      const Val a = l.Get(inst.operands[0]);
      const Val b = l.Get(inst.operands[1]);
      if (l.failed() || !a.ptr) return true;
      const ScalarType rt = ScalarOf(l, inst.result_type);
      const uint32_t dst = l.Define(inst.result_id, inst.result_type).regs[0];
      Instr& in = l.Emit(rt.wide()        ? &ExecPtrDiff<int64_t>
                         : rt.width == 16 ? &ExecPtrDiff<int16_t>
                                          : &ExecPtrDiff<int32_t>,
                         inst.opcode, rt, inst.word_offset);
      in.dst = dst;
      in.src[0] = a.regs[0];
      in.src[1] = b.regs[0];
      in.aux = static_cast<uint32_t>(l.program().literals.size());
      l.program().literals.push_back(ElementStride(l, a.type_id, *a.ptr));
      return true;
    }
    default:
      return false;
  }
}

}  // namespace warpsim::simt
