// Image and sampler instructions: image handles, storage image and texel
// buffer loads/stores, texel fetches, sampling (explicit and implicit LOD,
// gradients, depth compare, gather), image queries and texel pointers.
//
// Handles
// -------
// An image, sampler or sampled-image variable lives in UniformConstant
// storage; lowering gives each descriptor its own region index, and the
// runner puts its ImageDesc at ExecContext::images[region]. Loading such a
// variable yields a *handle*: one 32-bit register holding that region index
// (the high word of the pointer, so descriptor arrays indexed per lane just
// work). A sampled image is two handles, (image, sampler); a combined image
// sampler descriptor carries both, so its load yields (h, h). OpSampledImage
// and OpImage only rename registers.
//
// Operands
// --------
// Image instructions have many operands, so each one gets a fixed table of
// register slots in Program::extra (kSlot* below; kNoReg where absent) and
// a literal record in Program::literals (OpInfo). One handler, ExecImage,
// runs every image operation lane by lane on the texture pipe.
//
// Sampling follows the Vulkan spec's "Texel Filtering" chapter: LOD from an
// explicit Lod, from gradients (rho = max of the lengths of the scaled
// derivative vectors, lambda = log2 rho), or, for ImplicitLod, from the
// quad: in a fragment warp lane = 4q + (x & 1) + 2(y & 1), so
//     dP/dx = P[lane | 1] - P[lane & ~1],   dP/dy = P[lane | 2] - P[lane & ~2]
// (fine derivatives, read from all four quad lanes whatever the active mask;
// in compute shaders the same grouping of four consecutive lanes is used, as
// for DerivativeGroupLinearNV). Then bias, [minLod, maxLod] clamping, mag vs.
// min filter by the sign of lambda, nearest/linear mip selection, per-level
// texel coordinates u = s * width (+ offset), nearest i = floor(u) or linear
// i0 = floor(u - 0.5) with weights snapped to 1/256, address modes applied
// per texel, border colours, and depth compare applied per texel before
// filtering. Cube maps pick the face by the major axis and filter inside
// that face with clamp-to-edge (no seamless filtering across faces). The
// handler gathers each lane's request here; the filtering is in
// image_sample.cpp, the texel format conversion in texel_format.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "simt/exec_common.h"
#include "simt/image_sample.h"

namespace warpsim::simt {
namespace {

using spirv::TypeKind;
using spv::Op;

// ---------------------------------------------------------------------------
// Instruction records

enum class OpKind : uint32_t {
  kRead,  // OpImageRead, OpImageFetch
  kWrite,
  kSample,
  kGather,
  kQuerySize,  // OpImageQuerySize / QuerySizeLod
  kQueryLevels,
  kQuerySamples,
  kQueryLod,
  kTexelPointer,
};

enum Flag : uint32_t {
  kFlagArrayed = 1u << 0,
  kFlagDref = 1u << 1,
  kFlagProj = 1u << 2,
  kFlagImplicit = 1u << 3,
  kFlagConstOffsets = 1u << 4,
  kFlagFetch = 1u << 5,  // OpImageFetch (sampled image, integer coords)
};

// Register slots in Program::extra.
enum Slot : uint32_t {
  kSlotImage = 0,
  kSlotSampler = 1,
  kSlotCoord = 2,  // 4
  kSlotDref = 6,
  kSlotLod = 7,
  kSlotBias = 8,
  kSlotDx = 9,       // 3
  kSlotDy = 12,      // 3
  kSlotOffset = 15,  // 3
  kSlotSample = 18,
  kSlotMinLod = 19,
  kSlotTexel = 20,   // 4
  kSlotResult = 24,  // 4
  kSlotCount = 28,
};

// Literal record in Program::literals.
struct OpInfo {
  uint32_t extra = 0;  // first slot in Program::extra
  OpKind kind = OpKind::kRead;
  uint32_t flags = 0;
  ViewDim dim = ViewDim::k2D;
  uint32_t ncoord = 0;   // coordinate components given
  uint32_t nresult = 0;  // result registers
  ScalarKind result_kind = ScalarKind::kFloat;
  uint32_t result_width = 32;
  uint32_t component = 0;   // gather component
  int32_t offsets[8] = {};  // ConstOffsets (gather)
};
constexpr uint32_t kOpInfoWords = 17;

void PutOpInfo(std::vector<uint32_t>& lits, const OpInfo& o) {
  lits.push_back(o.extra);
  lits.push_back(static_cast<uint32_t>(o.kind));
  lits.push_back(o.flags);
  lits.push_back(static_cast<uint32_t>(o.dim));
  lits.push_back(o.ncoord);
  lits.push_back(o.nresult);
  lits.push_back(static_cast<uint32_t>(o.result_kind));
  lits.push_back(o.result_width);
  lits.push_back(o.component);
  for (int32_t v : o.offsets) lits.push_back(static_cast<uint32_t>(v));
}

OpInfo GetOpInfo(const uint32_t* lit) {
  OpInfo o;
  o.extra = lit[0];
  o.kind = static_cast<OpKind>(lit[1]);
  o.flags = lit[2];
  o.dim = static_cast<ViewDim>(lit[3]);
  o.ncoord = lit[4];
  o.nresult = lit[5];
  o.result_kind = static_cast<ScalarKind>(lit[6]);
  o.result_width = lit[7];
  o.component = lit[8];
  for (int k = 0; k < 8; ++k) o.offsets[k] = static_cast<int32_t>(lit[9 + k]);
  return o;
}

uint32_t CoordDims(ViewDim d) {
  return d == ViewDim::kCube ? 3 : SpatialDims(d);
}

// ---------------------------------------------------------------------------
// Per-lane access to slot registers.

struct LaneRegs {
  Warp& w;
  const uint32_t* slots;
  bool Has(uint32_t s) const { return slots[s] != kNoReg; }
  uint32_t U(uint32_t s, uint32_t l) const { return w.Reg(slots[s])[l]; }
  int32_t I(uint32_t s, uint32_t l) const {
    return static_cast<int32_t>(U(s, l));
  }
  float F(uint32_t s, uint32_t l) const {
    return std::bit_cast<float>(U(s, l));
  }
};

const ImageDesc& DescOf(Warp& w, uint32_t handle) {
  static const ImageDesc kUnbound;
  const auto& images = w.context().images;
  return handle < images.size() ? images[handle] : kUnbound;
}

void WriteResult(Warp& w, const LaneRegs& r, const OpInfo& o, uint32_t l,
                 const Texel& t) {
  const uint32_t W = w.width();
  for (uint32_t k = 0; k < o.nresult && k < 4; ++k) {
    uint32_t* d = w.Reg(r.slots[kSlotResult + k]);
    if (o.result_kind == ScalarKind::kFloat) {
      if (o.result_width == 16) {
        d[l] = FloatToHalf(t.f[k]);
      } else if (o.result_width == 64) {
        StoreLane<double>(d, W, l, static_cast<double>(t.f[k]));
      } else {
        d[l] = std::bit_cast<uint32_t>(t.f[k]);
      }
    } else {
      if (o.result_width == 64) {
        StoreLane<uint64_t>(d, W, l, t.i[k]);
      } else if (o.result_width == 16) {
        d[l] = static_cast<uint32_t>(t.i[k] & 0xffff);
      } else {
        d[l] = static_cast<uint32_t>(t.i[k]);
      }
    }
  }
}

// Records lane `l`'s texel access for InstrRecord::addresses: the image's
// region and the texel's byte offset (0xffffffff when outside the image).
void RecordTexel(Warp& w, uint32_t l, uint32_t region, const ImageDesc& img,
                 uint64_t off) {
  const uint32_t offset =
      off == ~uint64_t{0} ? 0xffffffffu : static_cast<uint32_t>(off);
  w.address_buffer()[l] = (static_cast<uint64_t>(region) << 32) | offset;
  w.set_access_bytes(img.format.bytes);
}

// ---------------------------------------------------------------------------
// The handler

// Reads the integer coordinates of a read/write/fetch: x, y, z, layer.
void IntCoords(const LaneRegs& r, const OpInfo& o, uint32_t l, int64_t c[4]) {
  c[0] = c[1] = c[2] = c[3] = 0;
  const uint32_t n = CoordDims(o.dim);
  for (uint32_t k = 0; k < n && k < o.ncoord; ++k)
    c[k] = r.I(kSlotCoord + k, l);
  if (o.dim == ViewDim::kCube) {
    c[3] = c[2];  // face (+ 6 * layer for cube arrays)
    c[2] = 0;
  } else if ((o.flags & kFlagArrayed) && n < o.ncoord) {
    c[3] = r.I(kSlotCoord + n, l);
  }
}

void ExecImage(Warp& w, const Instr& in) {
  const Program& prog = w.program();
  const OpInfo o = GetOpInfo(&prog.literals[in.aux]);
  const LaneRegs r{w, &prog.extra[o.extra]};
  const uint32_t W = w.width();
  const uint32_t act = w.active();
  for (uint32_t m = act; m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    const ImageDesc& img = DescOf(w, r.U(kSlotImage, l));
    switch (o.kind) {
      case OpKind::kRead: {
        int64_t c[4];
        IntCoords(r, o, l, c);
        const uint32_t level =
            (o.flags & kFlagFetch) && r.Has(kSlotLod) ? r.U(kSlotLod, l) : 0;
        const int64_t sample = r.Has(kSlotSample) ? r.I(kSlotSample, l) : 0;
        if (r.Has(kSlotOffset)) {
          for (uint32_t a = 0; a < SpatialDims(o.dim); ++a)
            c[a] += r.I(kSlotOffset + a, l);
        }
        if (w.record_addresses()) {
          RecordTexel(w, l, r.U(kSlotImage, l), img,
                      img.TexelOffset(level, c[0], c[1], c[2], c[3], sample));
        }
        WriteResult(w, r, o, l,
                    FetchTexel(img, level, c[0], c[1], c[2], c[3], sample));
        break;
      }
      case OpKind::kWrite: {
        int64_t c[4];
        IntCoords(r, o, l, c);
        const int64_t sample = r.Has(kSlotSample) ? r.I(kSlotSample, l) : 0;
        const uint64_t off = img.TexelOffset(0, c[0], c[1], c[2], c[3], sample);
        if (w.record_addresses())
          RecordTexel(w, l, r.U(kSlotImage, l), img, off);
        if ((w.helper() >> l) & 1u) break;  // helpers never write memory
        if (!img.bound || !img.writable) break;
        if (off == ~uint64_t{0}) break;  // out of bounds: dropped
        Texel t;
        for (uint32_t k = 0; k < 4; ++k) {
          if (!r.Has(kSlotTexel + k)) continue;
          const uint32_t* reg = w.Reg(r.slots[kSlotTexel + k]);
          if (o.result_kind == ScalarKind::kFloat) {
            t.f[k] = o.result_width == 16
                         ? HalfToFloat(static_cast<uint16_t>(reg[l]))
                         : std::bit_cast<float>(reg[l]);
          } else if (o.result_width == 64) {
            t.i[k] = LoadLane<uint64_t>(reg, W, l);
          } else {
            t.i[k] = o.result_kind == ScalarKind::kInt
                         ? static_cast<uint64_t>(static_cast<int64_t>(
                               static_cast<int32_t>(reg[l])))
                         : reg[l];
          }
        }
        EncodeTexel(img.format, t, img.data + off);
        break;
      }
      case OpKind::kSample:
      case OpKind::kGather:
      case OpKind::kQueryLod: {
        const ImageDesc& smp = DescOf(w, r.U(kSlotSampler, l));
        const SamplerDesc& s = smp.has_sampler ? smp.sampler : img.sampler;
        SampleRequest q;
        const uint32_t n = CoordDims(o.dim);
        auto coords_of = [&](uint32_t lane, double out[3], double* layer) {
          double v[4] = {0, 0, 0, 0};
          for (uint32_t k = 0; k < o.ncoord && k < 4; ++k)
            v[k] = r.F(kSlotCoord + k, lane);
          double qd = 1.0;
          if (o.flags & kFlagProj) qd = v[n];
          for (uint32_t k = 0; k < 3; ++k) out[k] = k < n ? v[k] / qd : 0.0;
          *layer = (o.flags & kFlagArrayed) ? v[n] : 0.0;
          return qd;
        };
        const double qd = coords_of(l, q.coord, &q.layer);
        if (o.flags & kFlagDref) {
          q.dref = true;
          q.dref_value = static_cast<float>(r.F(kSlotDref, l) / qd);
        }
        if (r.Has(kSlotLod)) {
          q.has_lod = true;
          q.lod = r.F(kSlotLod, l);
        }
        if (r.Has(kSlotBias)) q.bias = r.F(kSlotBias, l);
        if (r.Has(kSlotMinLod)) q.min_lod = r.F(kSlotMinLod, l);
        if (r.Has(kSlotDx)) {
          q.has_grad = true;
          for (uint32_t k = 0; k < n; ++k) {
            q.dx[k] = r.F(kSlotDx + k, l);
            q.dy[k] = r.F(kSlotDy + k, l);
          }
        } else if (o.flags & kFlagImplicit) {
          // Fine derivatives from the quad (see the file comment).
          double px0[3], px1[3], py0[3], py1[3], unused;
          coords_of(l & ~1u, px0, &unused);
          coords_of(l | 1u, px1, &unused);
          coords_of(l & ~2u, py0, &unused);
          coords_of(l | 2u, py1, &unused);
          q.has_grad = true;
          for (uint32_t k = 0; k < n; ++k) {
            q.dx[k] = px1[k] - px0[k];
            q.dy[k] = py1[k] - py0[k];
          }
        }
        if (r.Has(kSlotOffset)) {
          for (uint32_t a = 0; a < SpatialDims(o.dim); ++a)
            q.offset[a] = r.I(kSlotOffset + a, l);
        }
        if (o.kind == OpKind::kQueryLod) {
          Texel t;
          if (img.bound) {
            const float raw = ComputeLambda(img, s, q, SpatialDims(img.dim));
            const float lod_min = s.min_lod,
                        lod_max = std::max(s.max_lod, lod_min);
            const float lambda = std::clamp(raw, lod_min, lod_max);
            float level = std::clamp(lambda, 0.0f,
                                     static_cast<float>(img.mip_levels - 1));
            if (s.mipmap_mode == Filter::kNearest)
              level = std::max(std::ceil(level + 0.5f) - 1.0f, 0.0f);
            t.f[0] = level;
            t.f[1] = raw;
          } else {
            t = ZeroTexel();
          }
          WriteResult(w, r, o, l, t);
          break;
        }
        const bool gather = o.kind == OpKind::kGather;
        // A sample reads a footprint of texels (up to 8 for trilinear); the
        // record carries the first one each lane reads, which locates the
        // lane's access for a memory model.
        uint64_t first = ~uint64_t{0};
        bool filtered = false;
        const Texel t =
            Sample(img, s, q, gather, o.component,
                   (o.flags & kFlagConstOffsets) ? o.offsets : nullptr,
                   w.record_addresses() ? &first : nullptr,
                   w.record_addresses() ? &filtered : nullptr);
        if (w.record_addresses()) {
          RecordTexel(w, l, r.U(kSlotImage, l), img, first);
          if (filtered) w.set_access_filtered();
        }
        WriteResult(w, r, o, l, t);
        break;
      }
      case OpKind::kQuerySize: {
        const uint32_t lod = r.Has(kSlotLod) ? r.U(kSlotLod, l) : 0;
        Texel t = ZeroTexel();
        if (img.bound && lod < img.mip_levels) {
          uint64_t v[4] = {img.LevelWidth(lod), img.LevelHeight(lod),
                           img.LevelDepth(lod), 0};
          const uint32_t n = SpatialDims(o.dim);
          const uint32_t layers =
              o.dim == ViewDim::kCube ? img.layers / 6 : img.layers;
          if (o.flags & kFlagArrayed) v[n] = layers;
          for (int k = 0; k < 4; ++k) t.i[k] = v[k];
        }
        WriteResult(w, r, o, l, t);
        break;
      }
      case OpKind::kQueryLevels:
      case OpKind::kQuerySamples: {
        Texel t = ZeroTexel();
        if (img.bound) {
          t.i[0] =
              o.kind == OpKind::kQueryLevels ? img.mip_levels : img.samples;
        }
        WriteResult(w, r, o, l, t);
        break;
      }
      case OpKind::kTexelPointer: {
        // Pointer = (image region, byte offset of the texel); out of range
        // gives an offset no region reaches, so atomics read 0 / drop.
        int64_t c[4];
        IntCoords(r, o, l, c);
        const int64_t sample = r.Has(kSlotSample) ? r.I(kSlotSample, l) : 0;
        uint64_t off = img.TexelOffset(0, c[0], c[1], c[2], c[3], sample);
        if (off > 0xffffffffull) off = 0xffffffffull;
        uint32_t* d = w.Reg(r.slots[kSlotResult]);
        d[l] = static_cast<uint32_t>(off);
        d[W + l] = r.U(kSlotImage, l);
        break;
      }
    }
  }
}

// OpLoad of an image, sampler or sampled-image variable: the handle is the
// pointer's region word.
void ExecImageHandle(Warp& w, const Instr& in) {
  const uint32_t W = w.width();
  const uint32_t* p = w.Reg(in.src[0]);
  uint32_t* d = w.Dst(in.dst);
  for (uint32_t m = w.active(); m != 0; m &= m - 1) {
    const uint32_t l = std::countr_zero(m);
    d[l] = p[W + l];
  }
}

// ---------------------------------------------------------------------------
// Lowering

bool IsHandleType(const spirv::Type& t) {
  return t.kind == TypeKind::kImage || t.kind == TypeKind::kSampler ||
         t.kind == TypeKind::kSampledImage;
}

// The image type behind a handle value's type (image or sampled image).
const spirv::Type* ImageTypeOf(Lowerer& l, uint32_t type_id) {
  const spirv::Type* t = &l.module().type(type_id);
  if (t->kind == TypeKind::kSampledImage) t = &l.module().type(t->image_type);
  return t->kind == TypeKind::kImage ? t : nullptr;
}

ViewDim ViewDimOfType(const spirv::Type& t) {
  switch (t.dim) {
    case spv::Dim::Dim1D:
      return ViewDim::k1D;
    case spv::Dim::Dim3D:
      return ViewDim::k3D;
    case spv::Dim::Cube:
      return ViewDim::kCube;
    case spv::Dim::Buffer:
      return ViewDim::kBuffer;
    default:
      return ViewDim::k2D;
  }
}

bool LowerHandleLoad(Lowerer& l, const spirv::Inst& inst) {
  const Val ptr = l.Get(inst.operands[0]);
  if (l.failed()) return true;
  const uint32_t h = l.NewReg(false);
  Instr& in =
      l.Emit(ExecImageHandle, inst.opcode, ScalarType{}, inst.word_offset);
  in.pipe = Pipe::kAlu;
  in.dst = h;
  in.src[0] = ptr.regs[0];
  Val v;
  v.type_id = inst.result_type;
  // A combined image sampler is its own sampler.
  v.regs = l.module().type(inst.result_type).kind == TypeKind::kSampledImage
               ? std::vector<uint32_t>{h, h}
               : std::vector<uint32_t>{h};
  l.Alias(inst.result_id, std::move(v));
  return true;
}

// Fills `slots` from the optional image operands starting at operand
// `first` (the mask). Returns false (after failing) on bad input.
bool ImageOperands(Lowerer& l, const spirv::Inst& inst, size_t first,
                   std::vector<uint32_t>& slots, OpInfo& o) {
  if (first >= inst.operands.size()) return true;
  const uint32_t mask = inst.operands[first];
  size_t next = first + 1;
  auto take = [&]() -> uint32_t {
    if (next >= inst.operands.size()) {
      l.Fail(l.InvalidAt(inst, "missing image operand"));
      return 0;
    }
    return inst.operands[next++];
  };
  auto put = [&](uint32_t slot, uint32_t max, uint32_t id) {
    const Val& v = l.Get(id);
    for (size_t k = 0; k < v.regs.size() && k < max; ++k)
      slots[slot + k] = v.regs[k];
  };
  using IO = spv::ImageOperandsMask;
  auto has = [&](IO bit) { return (mask & static_cast<uint32_t>(bit)) != 0; };
  if (has(IO::Bias)) put(kSlotBias, 1, take());
  if (has(IO::Lod)) put(kSlotLod, 1, take());
  if (has(IO::Grad)) {
    put(kSlotDx, 3, take());
    put(kSlotDy, 3, take());
  }
  if (has(IO::ConstOffset)) put(kSlotOffset, 3, take());
  if (has(IO::Offset)) put(kSlotOffset, 3, take());
  if (has(IO::ConstOffsets)) {
    const uint32_t id = take();
    const spirv::Constant* c = l.module().constant(id);
    if (c == nullptr || c->constituents.size() != 4) {
      l.Fail(l.InvalidAt(inst, "ConstOffsets must be a constant array of 4"));
      return false;
    }
    for (int k = 0; k < 4; ++k) {
      const spirv::Constant* v = l.module().constant(c->constituents[k]);
      for (int a = 0; a < 2 && v != nullptr; ++a) {
        const uint32_t comp = a < static_cast<int>(v->constituents.size())
                                  ? v->constituents[a]
                                  : 0;
        o.offsets[2 * k + a] =
            static_cast<int32_t>(l.ConstantValue(comp).value_or(0));
      }
    }
    o.flags |= kFlagConstOffsets;
  }
  if (has(IO::Sample)) put(kSlotSample, 1, take());
  if (has(IO::MinLod)) put(kSlotMinLod, 1, take());
  if (has(IO::MakeTexelAvailable)) take();  // scope
  if (has(IO::MakeTexelVisible)) take();    // scope
  if (has(IO::Offsets)) {
    l.Fail(l.UnsupportedAt(inst, "the Offsets image operand"));
    return false;
  }
  return !l.failed();
}

// `image_override`: the image value when operand 0 is not one (texel
// pointers name the image variable's pointer).
bool LowerImageOp(Lowerer& l, const spirv::Inst& inst, OpKind kind,
                  const Val* image_override = nullptr) {
  const Op op = inst.opcode;
  const Val image =
      image_override != nullptr ? *image_override : l.Get(inst.operands[0]);
  if (l.failed()) return true;
  const spirv::Type* it = ImageTypeOf(l, image.type_id);
  if (it == nullptr || image.regs.empty()) {
    l.Fail(l.InvalidAt(inst, "the image operand is not an image"));
    return true;
  }
  OpInfo o;
  o.kind = kind;
  o.dim = ViewDimOfType(*it);
  if (it->arrayed) o.flags |= kFlagArrayed;
  std::vector<uint32_t> slots(kSlotCount, kNoReg);
  slots[kSlotImage] = image.regs[0];
  if (image.regs.size() > 1) slots[kSlotSampler] = image.regs[1];

  size_t next = 1;  // next operand
  const bool has_coord = kind != OpKind::kQuerySize &&
                         kind != OpKind::kQueryLevels &&
                         kind != OpKind::kQuerySamples;
  if (has_coord) {
    const Val& coord = l.Get(inst.operands[next++]);
    if (l.failed()) return true;
    o.ncoord = static_cast<uint32_t>(std::min<size_t>(coord.regs.size(), 4));
    for (uint32_t k = 0; k < o.ncoord; ++k)
      slots[kSlotCoord + k] = coord.regs[k];
  }
  switch (op) {
    case Op::OpImageSampleImplicitLod:
    case Op::OpImageSampleProjImplicitLod:
    case Op::OpImageSampleDrefImplicitLod:
    case Op::OpImageSampleProjDrefImplicitLod:
    case Op::OpImageQueryLod:
      o.flags |= kFlagImplicit;
      break;
    default:
      break;
  }
  switch (op) {
    case Op::OpImageSampleProjImplicitLod:
    case Op::OpImageSampleProjExplicitLod:
    case Op::OpImageSampleProjDrefImplicitLod:
    case Op::OpImageSampleProjDrefExplicitLod:
      o.flags |= kFlagProj;
      break;
    default:
      break;
  }
  switch (op) {
    case Op::OpImageSampleDrefImplicitLod:
    case Op::OpImageSampleDrefExplicitLod:
    case Op::OpImageSampleProjDrefImplicitLod:
    case Op::OpImageSampleProjDrefExplicitLod:
    case Op::OpImageDrefGather:
      o.flags |= kFlagDref;
      slots[kSlotDref] = l.Get(inst.operands[next++]).regs.at(0);
      break;
    case Op::OpImageGather:
      o.component = static_cast<uint32_t>(
          l.ConstantValue(inst.operands[next++]).value_or(0));
      break;
    case Op::OpImageWrite: {
      const Val& texel = l.Get(inst.operands[next++]);
      for (size_t k = 0; k < texel.regs.size() && k < 4; ++k)
        slots[kSlotTexel + k] = texel.regs[k];
      const ScalarType st = ScalarOf(l, texel.type_id);
      o.result_kind = st.kind;
      o.result_width = st.width;
      break;
    }
    case Op::OpImageQuerySizeLod:
      slots[kSlotLod] = l.Get(inst.operands[next++]).regs.at(0);
      break;
    case Op::OpImageFetch:
      o.flags |= kFlagFetch;
      break;
    case Op::OpImageTexelPointer:
      slots[kSlotSample] = l.Get(inst.operands[next++]).regs.at(0);
      break;
    default:
      break;
  }
  if (l.failed()) return true;
  if (kind != OpKind::kQuerySize && kind != OpKind::kQueryLevels &&
      kind != OpKind::kQuerySamples && kind != OpKind::kQueryLod &&
      kind != OpKind::kTexelPointer) {
    if (!ImageOperands(l, inst, next, slots, o)) return true;
  }
  if (o.dim == ViewDim::kCube && kind == OpKind::kGather) {
    l.Fail(l.UnsupportedAt(inst, "gathers from cube maps"));
    return true;
  }

  std::vector<uint32_t> results;
  if (kind == OpKind::kTexelPointer) {
    const uint32_t ptr = l.NewReg(true);
    results.push_back(ptr);
    Val v;
    v.type_id = inst.result_type;
    v.regs = {ptr};
    auto info = std::make_shared<PointerInfo>();
    info->pointee_type = l.module().type(inst.result_type).pointee;
    info->storage = spv::StorageClass::Image;
    info->explicit_layout = true;
    v.ptr = info;
    l.Alias(inst.result_id, std::move(v));
    o.nresult = 0;
  } else if (kind != OpKind::kWrite) {
    results = l.Define(inst.result_id, inst.result_type).regs;
    const ScalarType st = ScalarOf(l, inst.result_type);
    o.result_kind = st.kind;
    o.result_width = st.width;
    o.nresult = static_cast<uint32_t>(std::min<size_t>(results.size(), 4));
  }
  for (size_t k = 0; k < results.size() && k < 4; ++k)
    slots[kSlotResult + k] = results[k];

  auto& extra = l.program().extra;
  o.extra = static_cast<uint32_t>(extra.size());
  extra.insert(extra.end(), slots.begin(), slots.end());
  auto& lits = l.program().literals;
  const uint32_t aux = static_cast<uint32_t>(lits.size());
  PutOpInfo(lits, o);
  static_assert(kOpInfoWords == 17);

  Instr& in = l.Emit(ExecImage, op, ScalarType{}, inst.word_offset);
  in.pipe = Pipe::kTex;
  in.aux = aux;
  if (kind == OpKind::kTexelPointer) in.pipe = Pipe::kAlu;
  std::vector<uint32_t> uses;
  for (uint32_t s = 0; s < kSlotResult; ++s) {
    if (slots[s] != kNoReg) uses.push_back(slots[s]);
  }
  l.AddUses(uses);
  l.AddDefs(results);
  return true;
}

}  // namespace

bool LowerImage(Lowerer& l, const spirv::Inst& inst) {
  switch (inst.opcode) {
    case Op::OpLoad: {
      const Val& ptr = l.Get(inst.operands[0]);
      if (l.failed()) return true;
      if (!ptr.ptr || !IsHandleType(l.module().type(ptr.ptr->pointee_type)))
        return false;
      return LowerHandleLoad(l, inst);
    }
    case Op::OpSampledImage: {
      const Val image = l.Get(inst.operands[0]);
      const Val sampler = l.Get(inst.operands[1]);
      if (l.failed()) return true;
      if (image.regs.empty() || sampler.regs.empty()) {
        l.Fail(
            l.InvalidAt(inst, "OpSampledImage needs an image and a sampler"));
        return true;
      }
      Val v;
      v.type_id = inst.result_type;
      v.regs = {image.regs[0], sampler.regs[0]};
      l.Alias(inst.result_id, std::move(v));
      return true;
    }
    case Op::OpImage: {
      const Val sampled = l.Get(inst.operands[0]);
      if (l.failed()) return true;
      Val v;
      v.type_id = inst.result_type;
      if (!sampled.regs.empty()) v.regs = {sampled.regs[0]};
      l.Alias(inst.result_id, std::move(v));
      return true;
    }
    case Op::OpImageRead:
    case Op::OpImageFetch:
      return LowerImageOp(l, inst, OpKind::kRead);
    case Op::OpImageWrite:
      return LowerImageOp(l, inst, OpKind::kWrite);
    case Op::OpImageSampleImplicitLod:
    case Op::OpImageSampleExplicitLod:
    case Op::OpImageSampleDrefImplicitLod:
    case Op::OpImageSampleDrefExplicitLod:
    case Op::OpImageSampleProjImplicitLod:
    case Op::OpImageSampleProjExplicitLod:
    case Op::OpImageSampleProjDrefImplicitLod:
    case Op::OpImageSampleProjDrefExplicitLod:
      return LowerImageOp(l, inst, OpKind::kSample);
    case Op::OpImageGather:
    case Op::OpImageDrefGather:
      return LowerImageOp(l, inst, OpKind::kGather);
    case Op::OpImageQuerySize:
    case Op::OpImageQuerySizeLod:
      return LowerImageOp(l, inst, OpKind::kQuerySize);
    case Op::OpImageQueryLevels:
      return LowerImageOp(l, inst, OpKind::kQueryLevels);
    case Op::OpImageQuerySamples:
      return LowerImageOp(l, inst, OpKind::kQuerySamples);
    case Op::OpImageQueryLod:
      return LowerImageOp(l, inst, OpKind::kQueryLod);
    case Op::OpImageTexelPointer: {
      // The image operand is a pointer to the image variable; its region
      // word is the handle.
      const Val ptr = l.Get(inst.operands[0]);
      if (l.failed()) return true;
      if (!ptr.ptr) {
        l.Fail(l.InvalidAt(inst, "OpImageTexelPointer needs an image pointer"));
        return true;
      }
      const uint32_t h = l.NewReg(false);
      Instr& in =
          l.Emit(ExecImageHandle, Op::OpLoad, ScalarType{}, inst.word_offset);
      in.pipe = Pipe::kAlu;
      in.dst = h;
      in.src[0] = ptr.regs[0];
      Val img;
      img.type_id = ptr.ptr->pointee_type;
      img.regs = {h};
      return LowerImageOp(l, inst, OpKind::kTexelPointer, &img);
    }
    default:
      return false;
  }
}

}  // namespace warpsim::simt
