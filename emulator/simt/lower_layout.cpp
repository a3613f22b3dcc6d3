// Lowering, part three: types and their layout (lower.cpp has the rest):
// a type's scalars as a value holds them (Flat, within kMaxValueScalars),
// the scalar a chain of indices reaches, a pointer type's storage and
// layout, and a type's size and leaves in memory.
#include <algorithm>
#include <string>

#include "simt/lower.h"

namespace warpsim::simt {

using spirv::TypeKind;

const std::vector<ScalarType>& Lowerer::Flat(uint32_t type_id) {
  auto it = flat_cache_.find(type_id);
  if (it != flat_cache_.end()) return it->second;
  std::vector<ScalarType> out;
  const spirv::Type& t = module_.type(type_id);
  switch (t.kind) {
    case TypeKind::kBool:
      out.push_back({ScalarKind::kBool, 32, false});
      break;
    case TypeKind::kInt:
      out.push_back({t.is_signed ? ScalarKind::kInt : ScalarKind::kUint,
                     static_cast<uint8_t>(t.width), false});
      break;
    case TypeKind::kFloat:
      out.push_back({ScalarKind::kFloat, static_cast<uint8_t>(t.width), false});
      break;
    case TypeKind::kVector:
    case TypeKind::kMatrix:
    case TypeKind::kArray: {
      uint32_t count = t.count;
      if (t.kind == TypeKind::kArray && count == 0 && t.length_id != 0) {
        count = static_cast<uint32_t>(ConstantValue(t.length_id).value_or(0));
      }
      const auto elem = Flat(t.element);  // copy: recursion may rehash
      if (!elem.empty() && count > kMaxValueScalars / elem.size()) {
        FlatTooLarge(type_id, uint64_t{count} * elem.size());
        break;
      }
      for (uint32_t i = 0; i < count; ++i) {
        out.insert(out.end(), elem.begin(), elem.end());
      }
      break;
    }
    case TypeKind::kStruct:
      for (uint32_t m : t.members) {
        const auto elem = Flat(m);
        if (out.size() + elem.size() > kMaxValueScalars) {
          FlatTooLarge(type_id, out.size() + elem.size());
          out.clear();
          break;
        }
        out.insert(out.end(), elem.begin(), elem.end());
      }
      break;
    case TypeKind::kPointer:
      out.push_back({ScalarKind::kUint, 64, true});
      break;
    default:
      break;
  }
  return flat_cache_[type_id] = std::move(out);
}

void Lowerer::FlatTooLarge(uint32_t type_id, uint64_t scalars) {
  Fail(Unsupported("type %" + std::to_string(type_id) + " holds " +
                       std::to_string(scalars) +
                       " scalars or more, over warpsim's limit of " +
                       std::to_string(kMaxValueScalars) + " for one value",
                   SourcePos{module_.file(), 0, -1, ""}));
}

std::shared_ptr<PointerInfo> Lowerer::PointerInfoOf(uint32_t pointer_type) {
  const spirv::Type& t = module_.type(pointer_type);
  if (t.kind != TypeKind::kPointer) return nullptr;
  auto info = std::make_shared<PointerInfo>();
  info->pointee_type = t.pointee;
  info->storage = t.storage;
  info->explicit_layout =
      IsExplicitLayoutStorage(t.storage) ||
      (t.storage == spv::StorageClass::Workgroup &&
       module_.HasDecoration(t.pointee, spv::Decoration::Block));
  return info;
}

std::pair<uint32_t, uint32_t> Lowerer::FlatPath(uint32_t type_id,
                                                const uint32_t* indices,
                                                size_t count) {
  uint32_t first = 0;
  uint32_t type = type_id;
  for (size_t i = 0; i < count; ++i) {
    const spirv::Type& t = module_.type(type);
    if (t.kind == TypeKind::kStruct) {
      for (uint32_t k = 0; k < indices[i] && k < t.members.size(); ++k) {
        first += static_cast<uint32_t>(Flat(t.members[k]).size());
      }
      type = indices[i] < t.members.size() ? t.members[indices[i]] : 0;
    } else {
      type = t.element;
      first += indices[i] * static_cast<uint32_t>(Flat(type).size());
    }
  }
  return {first, type};
}

PointerInfo Lowerer::MemberInfo(uint32_t type_id, uint32_t m,
                                const PointerInfo& info) const {
  PointerInfo mi = info;
  mi.component_stride = 0;
  mi.matrix_stride =
      module_.MemberDecorationValue(type_id, m, spv::Decoration::MatrixStride)
          .value_or(0);
  mi.row_major =
      module_.HasMemberDecoration(type_id, m, spv::Decoration::RowMajor);
  mi.coherent =
      info.coherent ||
      module_.HasMemberDecoration(type_id, m, spv::Decoration::Coherent) ||
      module_.HasMemberDecoration(type_id, m, spv::Decoration::Volatile);
  return mi;
}

uint32_t Lowerer::MemberOffset(uint32_t type_id, uint32_t m,
                               const PointerInfo& info,
                               uint32_t natural_end) const {
  if (!info.explicit_layout) return AlignUp(natural_end, 4);
  return module_.MemberDecorationValue(type_id, m, spv::Decoration::Offset)
      .value_or(natural_end);
}

uint32_t Lowerer::SizeOf(uint32_t type_id, const PointerInfo& info) {
  const spirv::Type& t = module_.type(type_id);
  switch (t.kind) {
    case TypeKind::kBool:
      return 4;
    case TypeKind::kInt:
    case TypeKind::kFloat:
      return t.width / 8;
    case TypeKind::kPointer:
      return 8;
    case TypeKind::kVector:
      return t.count * SizeOf(t.element, info);
    case TypeKind::kMatrix: {
      if (info.explicit_layout && info.matrix_stride != 0) {
        if (info.row_major) {
          const spirv::Type& col = module_.type(t.element);
          return col.count * info.matrix_stride;
        }
        return t.count * info.matrix_stride;
      }
      return t.count * SizeOf(t.element, info);
    }
    case TypeKind::kArray:
    case TypeKind::kRuntimeArray: {
      uint32_t count = t.count;
      if (t.kind == TypeKind::kArray && count == 0 && t.length_id != 0) {
        count = static_cast<uint32_t>(ConstantValue(t.length_id).value_or(0));
      }
      if (t.kind == TypeKind::kRuntimeArray) count = 0;
      uint32_t stride = 0;
      if (info.explicit_layout) {
        stride = module_.DecorationValue(type_id, spv::Decoration::ArrayStride)
                     .value_or(0);
      }
      if (stride == 0) {
        PointerInfo elem = info;
        stride = AlignUp(SizeOf(t.element, elem), 4);
      }
      return count * stride;
    }
    case TypeKind::kStruct: {
      uint32_t size = 0;
      for (uint32_t m = 0; m < t.members.size(); ++m) {
        const uint32_t off = MemberOffset(type_id, m, info, size);
        size = std::max(
            size, off + SizeOf(t.members[m], MemberInfo(type_id, m, info)));
      }
      return size;
    }
    default:
      return 0;
  }
}

std::vector<Leaf> Lowerer::Leaves(uint32_t type_id, const PointerInfo& info) {
  std::vector<Leaf> out;
  const spirv::Type& t = module_.type(type_id);
  switch (t.kind) {
    case TypeKind::kBool:
      out.push_back({0, 4, true});
      break;
    case TypeKind::kInt:
    case TypeKind::kFloat:
      out.push_back({0, static_cast<uint8_t>(t.width / 8), false});
      break;
    case TypeKind::kPointer:
      out.push_back({0, 8, false});
      break;
    case TypeKind::kVector: {
      const uint32_t es = SizeOf(t.element, info);
      const uint32_t stride =
          info.component_stride ? info.component_stride : es;
      for (uint32_t i = 0; i < t.count; ++i) {
        out.push_back({i * stride, static_cast<uint8_t>(es),
                       module_.type(t.element).kind == TypeKind::kBool});
      }
      break;
    }
    case TypeKind::kMatrix: {
      const spirv::Type& col = module_.type(t.element);
      const uint32_t es = SizeOf(col.element, info);
      for (uint32_t c = 0; c < t.count; ++c) {
        for (uint32_t r = 0; r < col.count; ++r) {
          uint32_t off;
          if (info.explicit_layout && info.matrix_stride != 0) {
            off = info.row_major ? r * info.matrix_stride + c * es
                                 : c * info.matrix_stride + r * es;
          } else {
            off = (c * col.count + r) * es;
          }
          out.push_back({off, static_cast<uint8_t>(es), false});
        }
      }
      break;
    }
    case TypeKind::kArray: {
      uint32_t count = t.count;
      if (count == 0 && t.length_id != 0) {
        count = static_cast<uint32_t>(ConstantValue(t.length_id).value_or(0));
      }
      uint32_t stride = 0;
      if (info.explicit_layout) {
        stride = module_.DecorationValue(type_id, spv::Decoration::ArrayStride)
                     .value_or(0);
      }
      PointerInfo elem = info;
      elem.component_stride = 0;
      if (stride == 0) stride = AlignUp(SizeOf(t.element, elem), 4);
      const auto inner = Leaves(t.element, elem);
      for (uint32_t i = 0; i < count; ++i) {
        for (const Leaf& l : inner) {
          out.push_back({l.offset + i * stride, l.bytes, l.is_bool});
        }
      }
      break;
    }
    case TypeKind::kStruct: {
      uint32_t size = 0;
      for (uint32_t m = 0; m < t.members.size(); ++m) {
        const PointerInfo mi = MemberInfo(type_id, m, info);
        const uint32_t off = MemberOffset(type_id, m, info, size);
        for (const Leaf& l : Leaves(t.members[m], mi)) {
          out.push_back({l.offset + off, l.bytes, l.is_bool});
        }
        size = std::max(size, off + SizeOf(t.members[m], mi));
      }
      break;
    }
    default:
      break;
  }
  return out;
}

uint32_t Lowerer::AddMemAccess(const std::vector<uint32_t>& regs,
                               const std::vector<Leaf>& leaves,
                               uint32_t ptr_reg) {
  MemAccess acc;
  acc.first_leaf = static_cast<uint32_t>(program_->mem_leaves.size());
  acc.leaf_count = static_cast<uint32_t>(leaves.size());
  acc.ptr_reg = ptr_reg;
  for (size_t i = 0; i < leaves.size(); ++i) {
    MemLeaf ml;
    ml.reg = i < regs.size() ? regs[i] : kNoReg;
    ml.offset = leaves[i].offset;
    ml.bytes = leaves[i].bytes;
    ml.is_bool = leaves[i].is_bool ? 1 : 0;
    program_->mem_leaves.push_back(ml);
  }
  program_->mem_accesses.push_back(acc);
  return static_cast<uint32_t>(program_->mem_accesses.size() - 1);
}

}  // namespace warpsim::simt
