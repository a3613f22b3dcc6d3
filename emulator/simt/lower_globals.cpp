// Lowering, part two: the module's global variables (lower.cpp has the
// rest). Every global variable gets its memory and its pointer value:
// inputs and outputs become InputSlots by location and lane-private memory,
// Private variables lane-private memory, Workgroup variables workgroup
// memory, buffers, push constants, images and samplers their regions,
// within the size limits of lower.h.
#include <algorithm>
#include <string>

#include "simt/lower.h"

namespace warpsim::simt {

using spirv::TypeKind;

uint32_t Lowerer::LocationsOf(uint32_t type_id) {
  const spirv::Type& t = module_.type(type_id);
  switch (t.kind) {
    case TypeKind::kArray:
      return std::max(t.count, 1u) * LocationsOf(t.element);
    case TypeKind::kMatrix:
      return t.count * LocationsOf(t.element);
    case TypeKind::kStruct: {
      uint32_t n = 0;
      for (uint32_t m : t.members) n += LocationsOf(m);
      return n;
    }
    case TypeKind::kVector: {
      // 64-bit three- and four-component vectors take two locations.
      const spirv::Type& e = module_.type(t.element);
      return e.width == 64 && t.count > 2 ? 2 : 1;
    }
    default:
      return 1;
  }
}

void Lowerer::AddInterfaceSlots(uint32_t type_id, uint32_t offset,
                                uint32_t* location,
                                const InterfaceContext& ctx) {
  auto has = [&](spv::Decoration d) {
    for (const auto* list : {ctx.decorations, ctx.member_decorations}) {
      if (list == nullptr) continue;
      for (const auto& dec : *list) {
        if (dec.kind == d) return true;
      }
    }
    return false;
  };
  auto value = [&](spv::Decoration d) -> std::optional<uint32_t> {
    for (const auto* list : {ctx.member_decorations, ctx.decorations}) {
      if (list == nullptr) continue;
      for (const auto& dec : *list) {
        if (dec.kind == d && !dec.operands.empty()) return dec.operands[0];
      }
    }
    return std::nullopt;
  };
  const spirv::Type& t = module_.type(type_id);
  PointerInfo natural;
  InputSlot slot;
  slot.offset = offset;
  slot.bytes = SizeOf(type_id, natural);
  slot.type_id = type_id;
  if (auto b = value(spv::Decoration::BuiltIn)) {
    slot.builtin = static_cast<spv::BuiltIn>(*b);
    slot.components = static_cast<uint32_t>(Flat(type_id).size());
    ctx.slots->push_back(slot);
    return;
  }
  if (t.kind == TypeKind::kStruct) {
    // Members follow the natural layout of Leaves()/SizeOf().
    uint32_t size = 0;
    for (uint32_t m = 0; m < t.members.size(); ++m) {
      const uint32_t off = AlignUp(size, 4);
      InterfaceContext member = ctx;
      member.member_decorations = &module_.member_decorations(type_id, m);
      if (auto loc = module_.MemberDecorationValue(type_id, m,
                                                   spv::Decoration::Location)) {
        *location = *loc;
      }
      AddInterfaceSlots(t.members[m], offset + off, location, member);
      size = off + SizeOf(t.members[m], natural);
    }
    return;
  }
  if (t.kind == TypeKind::kArray || t.kind == TypeKind::kMatrix) {
    const uint32_t stride = AlignUp(SizeOf(t.element, natural), 4);
    for (uint32_t k = 0; k < t.count; ++k) {
      AddInterfaceSlots(t.element, offset + k * stride, location, ctx);
    }
    return;
  }
  // A scalar or vector at one location.
  const ScalarType s = Flat(type_id).empty() ? ScalarType{} : Flat(type_id)[0];
  slot.location = *location;
  slot.component = value(spv::Decoration::Component).value_or(0);
  slot.components = static_cast<uint32_t>(Flat(type_id).size());
  slot.scalar_bits = s.width;
  slot.kind = s.kind;
  if (has(spv::Decoration::Flat)) {
    slot.interpolation = Interpolation::kFlat;
  } else if (has(spv::Decoration::NoPerspective)) {
    slot.interpolation = Interpolation::kNoPerspective;
  }
  ctx.slots->push_back(slot);
  if (*location != 0xffffffffu) *location += LocationsOf(type_id);
}

uint64_t Lowerer::BoundedSize(uint32_t type_id) {
  // Over this the answer is only "too large"; capping keeps every product
  // below 2^64.
  constexpr uint64_t kCap = uint64_t{1} << 40;
  auto times = [&](uint64_t count, uint64_t size) {
    return size != 0 && count > kCap / size ? kCap : count * size;
  };
  const spirv::Type& t = module_.type(type_id);
  switch (t.kind) {
    case TypeKind::kBool:
      return 4;
    case TypeKind::kInt:
    case TypeKind::kFloat:
      return std::max<uint32_t>(t.width / 8, 1);
    case TypeKind::kPointer:
      return 8;
    case TypeKind::kVector:
    case TypeKind::kMatrix:
      return times(t.count, BoundedSize(t.element));
    case TypeKind::kArray: {
      uint64_t count = t.count;
      if (count == 0 && t.length_id != 0) {
        count = ConstantValue(t.length_id).value_or(0);
      }
      // Elements are at least 4-byte aligned, as in SizeOf().
      return times(count, (BoundedSize(t.element) + 3) / 4 * 4);
    }
    case TypeKind::kStruct: {
      uint64_t size = 0;
      for (uint32_t member : t.members) {
        // 8 bytes per member cover any alignment padding.
        size = std::min(kCap, size + BoundedSize(member) + 8);
      }
      return size;
    }
    default:
      return 0;
  }
}

Status Lowerer::CheckVariableSize(uint32_t id, uint32_t pointee,
                                  spv::StorageClass storage,
                                  uint32_t word_offset) {
  const bool workgroup = storage == spv::StorageClass::Workgroup;
  uint64_t& total = workgroup ? workgroup_total_ : private_total_;
  const uint64_t limit = workgroup ? kMaxWorkgroupBytes : kMaxLanePrivateBytes;
  total += BoundedSize(pointee);
  if (total <= limit) return {};
  const std::string name = module_.Name(id);
  return Unsupported(
      "variable %" + std::to_string(id) +
          (name.empty() ? "" : " (" + name + ")") + " brings the " +
          (workgroup ? "workgroup" : "per-invocation") + " memory to " +
          std::to_string(total) + " bytes, over warpsim's limit of " +
          std::to_string(limit) + " bytes",
      SourcePos{module_.file(), 0, word_offset, "OpVariable"});
}

uint32_t Lowerer::AllocPrivate(uint32_t bytes, uint32_t align) {
  uint32_t off = AlignUp(program_->private_bytes, std::max(align, 4u));
  program_->private_bytes = off + AlignUp(bytes, 4);
  return off;
}

Status Lowerer::CollectGlobals() {
  // Workgroup Block variables with an explicit layout alias each other from
  // offset 0 (SPV_KHR_workgroup_memory_explicit_layout); other workgroup
  // variables are placed after the largest of them.
  uint32_t workgroup_block_bytes = 0;
  for (const spirv::Variable& v : module_.globals()) {
    if (v.storage != spv::StorageClass::Workgroup) continue;
    const uint32_t pointee = module_.type(v.type).pointee;
    if (module_.HasDecoration(pointee, spv::Decoration::Block)) {
      PointerInfo info{pointee, v.storage, true};
      workgroup_block_bytes =
          std::max(workgroup_block_bytes, SizeOf(pointee, info));
    }
  }
  program_->workgroup_bytes = AlignUp(workgroup_block_bytes, 16);

  for (const spirv::Variable& v : module_.globals()) {
    const uint32_t pointee = module_.type(v.type).pointee;
    if (v.storage == spv::StorageClass::Input ||
        v.storage == spv::StorageClass::Output ||
        v.storage == spv::StorageClass::Private ||
        v.storage == spv::StorageClass::Workgroup) {
      if (Status s = CheckVariableSize(v.id, pointee, v.storage, v.word_offset);
          !s.ok()) {
        return s;
      }
    }
    auto info = std::make_shared<PointerInfo>();
    info->pointee_type = pointee;
    info->storage = v.storage;
    info->explicit_layout = IsExplicitLayoutStorage(v.storage);
    info->coherent = module_.HasDecoration(v.id, spv::Decoration::Coherent) ||
                     module_.HasDecoration(v.id, spv::Decoration::Volatile);
    Val val;
    val.type_id = v.type;
    val.ptr = info;
    uint32_t region = kRegionPrivate;
    uint32_t offset = 0;
    switch (v.storage) {
      case spv::StorageClass::Input:
      case spv::StorageClass::Output:
      case spv::StorageClass::Private: {
        const uint32_t bytes = SizeOf(pointee, *info);
        offset = AllocPrivate(bytes, 8);
        if (v.storage != spv::StorageClass::Input) {
          info->root = AddPrivateRoot(v.storage, offset, bytes);
        }
        if (v.storage != spv::StorageClass::Private) {
          InterfaceContext ctx;
          ctx.slots = v.storage == spv::StorageClass::Input
                          ? &program_->inputs
                          : &program_->outputs;
          ctx.decorations = &module_.decorations(v.id);
          uint32_t location =
              module_.DecorationValue(v.id, spv::Decoration::Location)
                  .value_or(0xffffffffu);
          AddInterfaceSlots(pointee, offset, &location, ctx);
        }
        break;
      }
      case spv::StorageClass::Workgroup: {
        region = kRegionWorkgroup;
        if (module_.HasDecoration(pointee, spv::Decoration::Block)) {
          info->explicit_layout = true;
          offset = 0;
        } else {
          const uint32_t bytes = SizeOf(pointee, *info);
          offset = AlignUp(program_->workgroup_bytes, 8);
          // Initializers (OpConstantNull, zero-initialize-workgroup-memory)
          // need nothing: the dispatcher zeroes every workgroup's memory.
          program_->workgroup_bytes = offset + AlignUp(bytes, 4);
        }
        break;
      }
      case spv::StorageClass::Uniform:
      case spv::StorageClass::StorageBuffer:
      case spv::StorageClass::PushConstant: {
        ResourceSlot res;
        res.storage = v.storage;
        res.variable_id = v.id;
        res.is_push_constant = v.storage == spv::StorageClass::PushConstant;
        res.set = module_.DecorationValue(v.id, spv::Decoration::DescriptorSet)
                      .value_or(0);
        res.binding =
            module_.DecorationValue(v.id, spv::Decoration::Binding).value_or(0);
        uint32_t block_type = pointee;
        const spirv::Type& pt = module_.type(pointee);
        if (pt.kind == TypeKind::kArray || pt.kind == TypeKind::kRuntimeArray) {
          // An array of descriptors: each element is its own region.
          uint32_t count = pt.count;
          if (count == 0 && pt.length_id != 0) {
            count =
                static_cast<uint32_t>(ConstantValue(pt.length_id).value_or(1));
          }
          if (pt.kind == TypeKind::kRuntimeArray) {
            return Unsupported("runtime-sized arrays of descriptors");
          }
          res.array_size = std::max(count, 1u);
          block_type = pt.element;
          info->descriptor_array = res.array_size;
        }
        res.type_id = block_type;
        info->constant_bank =
            v.storage == spv::StorageClass::PushConstant ||
            (v.storage == spv::StorageClass::Uniform &&
             module_.HasDecoration(block_type, spv::Decoration::Block) &&
             !module_.HasDecoration(block_type, spv::Decoration::BufferBlock));
        res.region = program_->num_regions;
        program_->num_regions += res.array_size;
        program_->resources.push_back(res);
        region = res.region;
        break;
      }
      case spv::StorageClass::UniformConstant: {
        // Images, samplers and sampled images: one region per descriptor
        // (its index selects the image in ExecContext::images).
        ResourceSlot res;
        res.storage = v.storage;
        res.variable_id = v.id;
        res.is_image = true;
        res.set = module_.DecorationValue(v.id, spv::Decoration::DescriptorSet)
                      .value_or(0);
        res.binding =
            module_.DecorationValue(v.id, spv::Decoration::Binding).value_or(0);
        uint32_t handle_type = pointee;
        const spirv::Type& pt = module_.type(pointee);
        if (pt.kind == TypeKind::kArray) {
          uint32_t count = pt.count;
          if (count == 0 && pt.length_id != 0) {
            count =
                static_cast<uint32_t>(ConstantValue(pt.length_id).value_or(1));
          }
          res.array_size = std::max(count, 1u);
          handle_type = pt.element;
          info->descriptor_array = res.array_size;
        } else if (pt.kind == TypeKind::kRuntimeArray) {
          return Unsupported("runtime-sized arrays of descriptors");
        }
        res.type_id = handle_type;
        res.region = program_->num_regions;
        program_->num_regions += res.array_size;
        program_->resources.push_back(res);
        region = res.region;
        break;
      }
      default:
        // Other storage classes are reported when the program touches them.
        continue;
    }
    val.regs.push_back(
        ConstReg((static_cast<uint64_t>(region) << 32) | offset, true));
    values_[v.id] = std::move(val);
  }
  return {};
}

}  // namespace warpsim::simt
