// Lowering: spirv::Module entry point -> simt::Program.
//
// The Lowerer walks the entry function's blocks in structured order, gives
// every SSA value a list of scalar virtual registers (one per flattened
// component), and emits scalar instructions. Opcode families live in their
// own files (exec_*.cpp); each provides a `Lower<Family>` function that
// handles its opcodes through the Lowerer API below and returns false for
// opcodes it does not own. What no family owns is reported as unsupported
// by name.
#ifndef WARPSIM_SIMT_LOWER_H_
#define WARPSIM_SIMT_LOWER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "simt/program.h"
#include "spirv/module.h"

namespace warpsim::simt {

// Values for specialization constants, by SpecId: the raw bits (low word
// first for 64-bit constants).
using SpecValues = std::map<uint32_t, uint64_t>;

struct LowerOptions {
  std::string entry_point = "main";
  std::optional<spv::ExecutionModel> model;  // when several share a name
  SpecValues spec_values;
  uint32_t warp_width = 32;  // SubgroupSize as the program sees it
  // Plain OpDPdx/OpDPdy/OpFwidth: fine or coarse (default coarse, like
  // SwiftShader and RenderDoc; NVIDIA's choice is to be measured, E8).
  bool derivatives_fine = false;
  // OpKill: terminate the invocation (true) or demote it to a helper
  // (false). Both are allowed by the Vulkan spec (REFERENCE §8.5).
  bool kill_terminates = true;
  // Reorder each block's instructions as NVIDIA's compiler schedules them
  // (schedule.h); the results are the same either way. The register-count
  // model (Program::model_regs) counts on the order the lowering wrote.
  bool schedule = true;
};

// Memory one invocation may use for Input, Output, Private and Function
// variables: 512 KiB, CUDA's local-memory limit per thread (CUDA C++
// Programming Guide, "Technical Specifications per Compute Capability").
// Larger programs are unsupported (a diagnostic naming the variable), not an
// allocation that exhausts the host.
inline constexpr uint64_t kMaxLanePrivateBytes = 512 * 1024;
// Workgroup memory of one workgroup: far above any GPU's shared memory
// (H200: 228 KiB per SM), low enough that offsets never wrap.
inline constexpr uint64_t kMaxWorkgroupBytes = 16 * 1024 * 1024;
// The scalars one value (a constant, an SSA result) may hold, as many as
// fill kMaxLanePrivateBytes with 32-bit words: a type larger than that is
// unsupported as a value (a diagnostic naming it), not a host allocation
// of its size.
inline constexpr uint64_t kMaxValueScalars = kMaxLanePrivateBytes / 4;
// Register-count model (regalloc_model.cpp): an SSA value of an aggregate type
// with an array in it and more than this many 32-bit components is held in
// local memory by NVIDIA's compiler, not in registers.
inline constexpr uint32_t kMaxRegisterAggregateWords = 64;
// Register-count model (regalloc_model.cpp): the largest lane-private variable,
// in 32-bit words, that NVIDIA's compiler holds in registers.
inline constexpr uint32_t kMaxRegisterVariableWords = 48;

// Whether variables of this storage class have an explicit (Offset,
// ArrayStride) layout: buffers and push constants.
inline bool IsExplicitLayoutStorage(spv::StorageClass sc) {
  switch (sc) {
    case spv::StorageClass::Uniform:
    case spv::StorageClass::StorageBuffer:
    case spv::StorageClass::PushConstant:
    case spv::StorageClass::PhysicalStorageBuffer:
    case spv::StorageClass::ShaderRecordBufferKHR:
      return true;
    default:
      return false;
  }
}

inline uint32_t AlignUp(uint32_t v, uint32_t a) {
  return a <= 1 ? v : (v + a - 1) / a * a;
}

// Sets Program::layout_free (program.h).
void MarkLayoutFreeBranches(Program* p);

// Sets Program::unrolled_loops and loop_control (program.h, unroll.cpp).
void MarkUnrolledLoops(Program* p);

// Sets Program::redundant (program.h).
void MarkRedundant(Program* p);

// Sets Program::folded (program.h), after Program::redundant.
void MarkFoldedChains(Program* p);

// Sets Program::predicated_selections, predicated and selection_branches
// (program.h), after the marks above and register_private.
void MarkPredicated(Program* p);

// Lowers and register-allocates one entry point.
Result<Program> LowerProgram(const spirv::Module& module,
                             const LowerOptions& options);

// ---------------------------------------------------------------------------
// Lowering internals shared with the opcode-family files.

// One flattened scalar component of an SSA value's type.
struct ScalarType {
  ScalarKind kind = ScalarKind::kUint;
  uint8_t width = 32;  // 1-bit bools are stored as 32-bit 0/1
  bool is_pointer = false;
  bool wide() const { return width == 64; }
  bool is_float() const { return kind == ScalarKind::kFloat; }
};

// Static facts about a pointer value (which layout its pointee uses).
struct PointerInfo {
  uint32_t pointee_type = 0;
  spv::StorageClass storage = spv::StorageClass::Max;
  bool explicit_layout = false;  // offsets from decorations
  // Set when the pointee is (part of) a matrix inside an explicit layout.
  uint32_t matrix_stride = 0;
  bool row_major = false;
  // Pointee is a column of a row-major matrix: its components are this far
  // apart (0 = natural).
  uint32_t component_stride = 0;
  // Pointer into an array of descriptors (index selects the region).
  uint32_t descriptor_array = 0;
  // Register-count model: the lane-private variable the pointer points
  // into (1 + its index in Lowerer::private_roots(); 0 for none or not
  // known) and, when every index on the way was a constant, the byte
  // offset within it.
  uint32_t root = 0;
  bool root_known = true;
  uint32_t root_offset = 0;
  // Into a uniform block (Uniform storage, decorated Block) or push
  // constants: what NVIDIA keeps in a constant bank. A load through such a
  // pointer whose indices were all constants (root_known, no run-time
  // descriptor index) is an operand of the instruction that uses it there
  // (c[bank][offset]), not a load (Lowerer::constant_loads()).
  bool constant_bank = false;
  // A run-time index has already stepped it from its storage buffer's base
  // (an access chain's first such step is the one NVIDIA's code computes
  // the 64-bit address with: simt::kBufferAddressExt).
  bool addressed = false;
  // The variable, or a block member on the way, is decorated Coherent or
  // Volatile: NVIDIA's code reads such a buffer past the L1
  // (LDG.E.STRONG.GPU; Lowerer::coherent_loads()).
  bool coherent = false;
};

// Register-count model (regalloc_model.cpp): a lane-private variable that
// NVIDIA's compiler may hold in registers (Function and Private storage,
// a fragment shader's outputs), and one load or store of it.
struct PrivateRoot {
  spv::StorageClass storage = spv::StorageClass::Function;
  uint32_t offset = 0;  // in lane-private memory
  uint32_t bytes = 0;
  bool opaque = false;  // accessed where the model cannot tell which words
};
struct PrivateAccess {
  uint32_t instr = 0;  // index in Program::code (a load or a store)
  uint32_t root = 0;   // index in Lowerer::private_roots()
  bool store = false;
  bool known = false;  // the offset within the root is a constant
  uint32_t offset = 0;
  bool constant_data = false;  // a store of constants only
};

// An SSA value: one register per flattened scalar component (the low
// register for 64-bit components). Pointers have one 64-bit component
// (offset in the low word, region in the high word).
struct Val {
  std::vector<uint32_t> regs;
  uint32_t type_id = 0;
  std::shared_ptr<PointerInfo> ptr;  // pointers only
};

// A scalar leaf of a memory layout, in flattening order.
struct Leaf {
  uint32_t offset;
  uint8_t bytes;
  bool is_bool;
};

class Lowerer {
 public:
  Lowerer(const spirv::Module& module, const LowerOptions& options,
          Program* program);

  Status Run();

  // ---- API for the family files ----
  const spirv::Module& module() const { return module_; }
  Program& program() { return *program_; }
  const LowerOptions& options() const { return options_; }

  // The value of an operand id (SSA value or constant). Records an error and
  // returns an empty value when unknown.
  const Val& Get(uint32_t id);
  // Creates the value `id` of `type_id` with fresh registers.
  Val& Define(uint32_t id, uint32_t type_id);
  // Makes `id` an alias of existing registers (no instruction).
  void Alias(uint32_t id, Val value);
  // (Empty, and the lowering failed, for a type of more than
  // kMaxValueScalars scalars: FlatTooLarge.)
  const std::vector<ScalarType>& Flat(uint32_t type_id);
  void FlatTooLarge(uint32_t type_id, uint64_t scalars);
  // Where a composite index path (literal indices, as in
  // OpCompositeExtract) lands in the flattened components of `type_id`:
  // {first component, type there}.
  std::pair<uint32_t, uint32_t> FlatPath(uint32_t type_id,
                                         const uint32_t* indices, size_t count);
  // Static layout facts implied by a pointer type alone (nullptr when
  // `pointer_type` is not a pointer).
  std::shared_ptr<PointerInfo> PointerInfoOf(uint32_t pointer_type);
  uint32_t NewReg(bool wide);
  // A constant operand holding `bits` (64-bit when `wide`).
  uint32_t ConstReg(uint64_t bits, bool wide = false);
  // Appends an instruction; returns it for the caller to fill.
  Instr& Emit(ExecFn fn, spv::Op op, const ScalarType& type,
              uint32_t spirv_word);
  // Registers the last emitted instruction defines or reads through side
  // tables (memory leaves, Program::extra), for liveness.
  void AddDefs(const std::vector<uint32_t>& regs);
  void AddUses(const std::vector<uint32_t>& regs);
  // Register-count model: `value` is an aggregate the shader keeps in a
  // variable (a phi, a composite built or changed piece by piece, a load
  // of a Function or Private variable); when it has an array in it and more
  // than kMaxRegisterAggregateWords components, its registers are marked as
  // held in local memory.
  void MarkLargeAggregate(const Val& value);
  // Register-count model: a pointer to lane-private memory `info` was made
  // for a new variable (returns its PointerInfo::root), or the last
  // emitted instruction loads or stores through it; an access the model
  // cannot follow (an atomic, a pointer of unknown root) makes the
  // variables it may touch opaque.
  uint32_t AddPrivateRoot(spv::StorageClass storage, uint32_t offset,
                          uint32_t bytes);
  void NotePrivateAccess(const PointerInfo& info, bool store,
                         const std::vector<uint32_t>& stored = {});
  void NoteOpaqueAccess(const PointerInfo& info);
  void Fail(Diagnostic diag);
  bool failed() const { return !status_.ok(); }
  Diagnostic UnsupportedAt(const spirv::Inst& inst, const std::string& what);
  Diagnostic InvalidAt(const spirv::Inst& inst, const std::string& what);

  // Memory layout of `type_id` under `info`'s rules: scalar leaves in
  // flattening order, and the total size / array stride.
  std::vector<Leaf> Leaves(uint32_t type_id, const PointerInfo& info);
  uint32_t SizeOf(uint32_t type_id, const PointerInfo& info);
  // Member m of struct `type_id` under `info`: its layout facts (its
  // MatrixStride and RowMajor, Coherent or Volatile on it or on the way;
  // no component stride) and its byte offset, the Offset decoration in an
  // explicit layout, else `natural_end` (where the members before it end)
  // 4-byte aligned; `natural_end` also stands for a missing Offset.
  PointerInfo MemberInfo(uint32_t type_id, uint32_t m,
                         const PointerInfo& info) const;
  uint32_t MemberOffset(uint32_t type_id, uint32_t m, const PointerInfo& info,
                        uint32_t natural_end) const;
  // Adds leaves for a load/store of `regs` to the program tables.
  uint32_t AddMemAccess(const std::vector<uint32_t>& regs,
                        const std::vector<Leaf>& leaves, uint32_t ptr_reg);
  // Constant value of an id as 64-bit integer (for literal-like operands).
  std::optional<uint64_t> ConstantValue(uint32_t id);
  // Every scalar word of a constant (a composite's flattened), or nullptr
  // when `id` is not a constant.
  const std::vector<uint64_t>* ConstantWords(uint32_t id) const;
  uint32_t BlockIndex(uint32_t label) const;

 private:
  Status CollectConstants();
  Status CollectGlobals();
  Status ComputeBlockOrder(const spirv::Function& fn);
  Status LowerBlock(const spirv::Block& block, uint32_t index);
  Status LowerTerminator(const spirv::Block& block);
  bool LowerInst(const spirv::Inst& inst);
  std::pair<uint32_t, uint32_t> EdgeCopies(uint32_t from_label,
                                           uint32_t to_label);
  // Where lanes demoted by OpKill in `block` go on running: the merge block
  // of the innermost construct holding it (kNoBlock at the function's top
  // level).
  uint32_t KillContinuation(uint32_t block) const;
  Status FoldConstant(uint32_t id, const spirv::Constant& c);
  uint32_t AllocPrivate(uint32_t bytes, uint32_t align);
  // Size of `type_id` in its natural layout, computed in 64 bits and capped
  // (the 32-bit layout code wraps on huge arrays), to check the limits below.
  uint64_t BoundedSize(uint32_t type_id);
  // Adds a variable to the lane-private or workgroup total and fails when the
  // total passes kMaxLanePrivateBytes / kMaxWorkgroupBytes.
  Status CheckVariableSize(uint32_t id, uint32_t pointee,
                           spv::StorageClass storage, uint32_t word_offset);
  // Splits an interface variable into InputSlots (program.h).
  struct InterfaceContext {
    std::vector<InputSlot>* slots = nullptr;
    const std::vector<spirv::Decoration>* decorations = nullptr;  // variable
    const std::vector<spirv::Decoration>* member_decorations = nullptr;
  };
  void AddInterfaceSlots(uint32_t type_id, uint32_t offset, uint32_t* location,
                         const InterfaceContext& ctx);
  uint32_t LocationsOf(uint32_t type_id);
  uint32_t SwitchLiteralWords(uint32_t selector);

  const spirv::Module& module_;
  LowerOptions options_;
  Program* program_;
  Status status_;
  std::map<uint32_t, Val> values_;
  std::map<uint32_t, std::vector<uint64_t>> const_words_;  // folded constants
  std::map<uint32_t, std::vector<ScalarType>> flat_cache_;
  std::map<uint64_t, uint32_t> const_slots_;  // 32-bit constant -> slot
  std::map<std::pair<uint64_t, int>, uint32_t> const_slots64_;
  std::vector<uint8_t> vreg_wide_;
  std::vector<std::vector<uint32_t>> extra_defs_;  // per instruction
  std::vector<std::vector<uint32_t>> extra_uses_;
  // Per virtual register: 1 when it is a component of an SSA aggregate too
  // large to be kept in registers (kMaxRegisterAggregateWords,
  // regalloc_model.cpp).
  std::vector<uint8_t> vreg_in_memory_;
  std::vector<PrivateRoot> private_roots_;
  std::vector<PrivateAccess> private_accesses_;
  // Loads from a storage buffer (indices in Program::code), for the
  // register-count model's hoisted loads (BatchedLoads, regalloc_model.cpp).
  std::vector<uint32_t> buffer_loads_;
  std::vector<uint32_t> constant_loads_;
  std::vector<uint32_t> coherent_loads_;
  std::map<uint32_t, uint32_t> id_types_;  // result id -> type id
  const spirv::Function* function_ = nullptr;
  // Per SPIR-V id of function_: 1 when it may differ between the lanes of
  // a warp (uniformity.h).
  std::vector<uint8_t> divergent_;
  std::vector<const spirv::Block*> order_;  // structured order
  std::map<uint32_t, uint32_t> block_index_;
  uint32_t current_block_ = 0;
  uint64_t private_total_ = 0;  // bytes, for CheckVariableSize
  uint64_t workgroup_total_ = 0;
  // Per instruction: the memory a load or store reaches (MemoryClass), for
  // the block scheduling (schedule.h); kUnknown for everything else.
  std::vector<uint8_t> mem_class_;
  friend Status AllocateRegisters(Lowerer& lowerer, Program* program);
  friend void ApplyBlockOrder(Lowerer& lowerer, Program* program,
                              const std::vector<uint32_t>& order,
                              const std::vector<uint32_t>* starts);

 public:
  const std::vector<uint8_t>& vreg_wide() const { return vreg_wide_; }
  const std::vector<std::vector<uint32_t>>& extra_defs() const {
    return extra_defs_;
  }
  const std::vector<std::vector<uint32_t>>& extra_uses() const {
    return extra_uses_;
  }
  const std::vector<uint8_t>& vreg_in_memory() const { return vreg_in_memory_; }
  const std::vector<PrivateRoot>& private_roots() const {
    return private_roots_;
  }
  const std::vector<PrivateAccess>& private_accesses() const {
    return private_accesses_;
  }
  const std::vector<uint32_t>& buffer_loads() const { return buffer_loads_; }
  // The loads of constant-bank words at offsets known at compile time
  // (PointerInfo::constant_bank), in Program::code.
  const std::vector<uint32_t>& constant_loads() const {
    return constant_loads_;
  }
  // The loads of buffers through a Coherent or Volatile pointer
  // (PointerInfo::coherent), in Program::code.
  const std::vector<uint32_t>& coherent_loads() const {
    return coherent_loads_;
  }
  // The memory a load or store reaches, by the storage class of its pointer
  // (the block scheduling's: schedule.h).
  enum MemoryClass : uint8_t {
    kMemUnknown = 0,
    kMemPrivate,    // Function, Private, Input, Output: lane-private
    kMemWorkgroup,  // workgroup (shared) memory
    kMemGlobal,     // buffers, push constants
  };
  const std::vector<uint8_t>& mem_class() const { return mem_class_; }
  // Notes the memory the load or store just emitted reaches.
  void NoteMemoryClass(spv::StorageClass storage) {
    uint8_t c = kMemGlobal;
    switch (storage) {
      case spv::StorageClass::Function:
      case spv::StorageClass::Private:
      case spv::StorageClass::Input:
      case spv::StorageClass::Output:
        c = kMemPrivate;
        break;
      case spv::StorageClass::Workgroup:
        c = kMemWorkgroup;
        break;
      default:
        break;
    }
    mem_class_.back() = c;
  }
  // Records the load just emitted when `info` points into a storage buffer,
  // or at a constant-bank word.
  void NoteBufferLoad(const PointerInfo& info) {
    const uint32_t at = static_cast<uint32_t>(program_->code.size() - 1);
    if (info.storage == spv::StorageClass::StorageBuffer ||
        info.storage == spv::StorageClass::PhysicalStorageBuffer) {
      buffer_loads_.push_back(at);
    }
    if (info.constant_bank && info.root_known) constant_loads_.push_back(at);
    if (info.coherent &&
        (info.storage == spv::StorageClass::StorageBuffer ||
         info.storage == spv::StorageClass::PhysicalStorageBuffer ||
         info.storage == spv::StorageClass::Uniform)) {
      coherent_loads_.push_back(at);
    }
  }
};

// Family lowerers (exec_*.cpp). Each returns true if it handled `inst`.
bool LowerArithmetic(Lowerer& l, const spirv::Inst& inst);
bool LowerBitwise(Lowerer& l, const spirv::Inst& inst);
bool LowerConversion(Lowerer& l, const spirv::Inst& inst);
bool LowerComposite(Lowerer& l, const spirv::Inst& inst);
bool LowerMemory(Lowerer& l, const spirv::Inst& inst);
bool LowerGlslStd450(Lowerer& l, const spirv::Inst& inst);
bool LowerSubgroup(Lowerer& l, const spirv::Inst& inst);
bool LowerAtomic(Lowerer& l, const spirv::Inst& inst);
bool LowerImage(Lowerer& l, const spirv::Inst& inst);
bool LowerMisc(Lowerer& l, const spirv::Inst& inst);
bool LowerDerivative(Lowerer& l, const spirv::Inst& inst);

// Terminator handlers (exec_control_flow.cpp).
void ExecBranch(Warp& w, const Instr& in);
void ExecBranchConditional(Warp& w, const Instr& in);
void ExecSwitch(Warp& w, const Instr& in);
void ExecReturn(Warp& w, const Instr& in);
void ExecKill(Warp& w, const Instr& in);
void ExecKillDemote(Warp& w, const Instr& in);
void ExecTerminateInvocation(Warp& w, const Instr& in);
void ExecUnreachable(Warp& w, const Instr& in);

// Register allocation (regalloc.cpp): rewrites virtual registers to physical
// ones and sets Program::num_regs; marks the unrolled loops
// (MarkUnrolledLoops) and sets Program::model_regs, the register-count
// model, which needs them.
Status AllocateRegisters(Lowerer& lowerer, Program* program);

}  // namespace warpsim::simt

#endif  // WARPSIM_SIMT_LOWER_H_
