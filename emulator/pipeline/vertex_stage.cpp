#include "pipeline/vertex_stage.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "pipeline/compute.h"

namespace warpsim::pipeline::internal {

using simt::Program;
using simt::Warp;

VertexStage::VertexStage(const GraphicsState& state, const DrawCall& call,
                         const std::vector<VaryingLink>& links)
    : state_(state), call_(call), links_(links) {
  context_.regions = state.vs_regions;
  context_.images = state.vs_images;
  context_.regions.resize(
      std::max<size_t>(context_.regions.size(), state.vs->num_regions));
  context_.images.resize(context_.regions.size());
  for (const VaryingLink& l : links) varying_words_ += l.words;
  for (const InputSlot& s : state.vs->outputs) {
    if (s.builtin == spv::BuiltIn::Position) position_ = &s;
    if (s.builtin == spv::BuiltIn::PointSize) point_size_ = &s;
    if (s.builtin == spv::BuiltIn::ClipDistance) clip_distance_ = &s;
    if (s.builtin == spv::BuiltIn::Max && s.location != 0xffffffffu) {
      outputs_by_location_.emplace(s.location * 4 + s.component, &s);
    }
  }
}

Result<uint32_t> VertexStage::VertexIndex(uint32_t p) const {
  if (!call_.indexed) return call_.first + p;
  const uint64_t at =
      (static_cast<uint64_t>(call_.first) + p) * call_.index_bytes;
  if (at + call_.index_bytes > call_.indices_size) {
    return InvalidInput("index " + std::to_string(call_.first + p) +
                        " is past the end of the index buffer");
  }
  uint32_t v = 0;
  std::memcpy(&v, call_.indices + at, call_.index_bytes);
  return static_cast<uint32_t>(static_cast<int64_t>(v) + call_.vertex_offset);
}

Result<std::unique_ptr<VertexBatchWork>> VertexStage::MakeBatch(
    const std::vector<Primitive>& primitives, uint32_t instances,
    uint64_t* next) const {
  const uint32_t width = state_.config.warp_width;
  const uint32_t max_primitives =
      std::max(1u, state_.config.vertex_batch_primitives);
  const size_t window = state_.config.vertex_reuse_window;
  const uint64_t per_instance = primitives.size();
  const uint64_t total = per_instance * instances;
  auto batch = std::make_unique<VertexBatchWork>();
  batch->kind = WorkKind::kVertexBatch;
  batch->first_primitive = *next;
  // A vertex of one instance: instance << 32 | vertex index.
  std::vector<uint64_t> lane_vertex;  // per lane
  // (vertex, lane) of every index of the batch so far, in order.
  std::vector<std::pair<uint64_t, uint32_t>> recent;
  uint64_t g = *next;
  for (; g < total; ++g) {
    const Primitive& p = primitives[g % per_instance];
    const uint64_t instance = g / per_instance;
    std::array<uint8_t, 3> lanes = {0, 0, 0};
    uint64_t vertex[3] = {0, 0, 0};
    uint32_t added = 0;
    for (uint8_t k = 0; k < p.count; ++k) {
      auto v = VertexIndex(p.v[k]);
      if (!v.ok()) return v.error();
      vertex[k] = instance << 32 | *v;
      // A lane for it: the same vertex among the last `window` indices,
      // or earlier in this primitive, or a new one.
      int64_t lane = -1;
      for (size_t r = recent.size(); r > 0 && recent.size() - r < window; --r) {
        if (recent[r - 1].first == vertex[k]) {
          lane = recent[r - 1].second;
          break;
        }
      }
      for (uint8_t j = 0; j < k && lane < 0; ++j) {
        if (vertex[j] == vertex[k]) lane = lanes[j];
      }
      if (lane < 0) lane = static_cast<int64_t>(lane_vertex.size() + added++);
      lanes[k] = static_cast<uint8_t>(lane);
    }
    const uint64_t count = g - batch->first_primitive;
    if (count > 0 &&
        (lane_vertex.size() + added > width || count + 1 > max_primitives)) {
      break;
    }
    for (uint8_t k = 0; k < p.count; ++k) {
      if (lanes[k] == lane_vertex.size()) lane_vertex.push_back(vertex[k]);
      recent.emplace_back(vertex[k], lanes[k]);
    }
    batch->primitive_lanes.push_back(lanes);
  }
  *next = g;
  batch->end_primitive = g;
  const uint32_t n = static_cast<uint32_t>(lane_vertex.size());
  batch->vertices = n;
  batch->context.regions = context_.regions;
  batch->context.images = context_.images;
  const Program& vs = *state_.vs;
  auto warp =
      std::make_unique<Warp>(vs, width, simt::LowLanes(n), &batch->context);
  for (uint32_t l = 0; l < n; ++l) {
    uint8_t* mem = warp->PrivateMemory(l);
    const uint32_t vertex = static_cast<uint32_t>(lane_vertex[l]);
    const uint32_t instance = static_cast<uint32_t>(lane_vertex[l] >> 32);
    for (const InputSlot& slot : vs.inputs) {
      if (Status s = WriteVertexInput(slot, vertex, l, instance, mem);
          !s.ok()) {
        return s.error();
      }
    }
  }
  batch->warps.push_back(std::move(warp));
  return batch;
}

void VertexStage::Collect(VertexBatchWork& batch,
                          std::vector<ShadedVertex>* out) const {
  Warp& warp = *batch.warps[0];
  std::vector<ShadedVertex>& lanes = *out;
  lanes.assign(batch.vertices, ShadedVertex{});
  for (uint32_t l = 0; l < batch.vertices; ++l) {
    const uint8_t* mem = warp.PrivateMemory(l);
    ShadedVertex& v = lanes[l];
    if (position_ != nullptr) {
      for (int c = 0; c < 4; ++c)
        v.clip[c] = BitsFloat(Load32(mem, *position_, c));
    }
    if (point_size_ != nullptr)
      v.point_size = BitsFloat(Load32(mem, *point_size_, 0));
    if (clip_distance_ != nullptr) {
      v.clip_distances.resize(clip_distance_->components);
      for (uint32_t k = 0; k < clip_distance_->components; ++k) {
        v.clip_distances[k] = BitsFloat(Load32(mem, *clip_distance_, k));
      }
    }
    v.varyings.assign(varying_words_, 0);
    for (const VaryingLink& link : links_) {
      for (uint32_t k = 0; k < link.words; ++k) {
        // The VS output holding this location/component.
        const uint32_t key =
            link.fs_slot->location * 4 + link.fs_slot->component + k;
        const InputSlot* src = FindOutput(key);
        if (src == nullptr) continue;  // not written: undefined, reads 0
        const uint32_t index = key - (src->location * 4 + src->component);
        v.varyings[link.first_word + k] = Load32(mem, *src, index);
      }
    }
  }
}

const InputSlot* VertexStage::FindOutput(uint32_t key) const {
  // The slot whose location/component range contains `key`.
  auto it = outputs_by_location_.upper_bound(key);
  if (it == outputs_by_location_.begin()) return nullptr;
  --it;
  const InputSlot* s = it->second;
  return key < it->first + s->components ? s : nullptr;
}

Status VertexStage::WriteVertexInput(const InputSlot& slot, uint32_t vertex,
                                     uint32_t lane, uint32_t instance,
                                     uint8_t* mem) const {
  using spv::BuiltIn;
  switch (slot.builtin) {
    case BuiltIn::VertexIndex:
      Store32(mem, slot, 0, vertex);
      return {};
    case BuiltIn::InstanceIndex:
      Store32(mem, slot, 0, instance + call_.first_instance);
      return {};
    case BuiltIn::BaseVertex:
      Store32(mem, slot, 0, call_.indexed ? call_.vertex_offset : call_.first);
      return {};
    case BuiltIn::BaseInstance:
      Store32(mem, slot, 0, call_.first_instance);
      return {};
    case BuiltIn::DrawIndex:
      Store32(mem, slot, 0, 0);
      return {};
    case BuiltIn::Max:
      break;
    default:
      if (WriteSubgroupBuiltin(mem, slot, lane, state_.config.warp_width))
        return {};
      return Unsupported("vertex shader input built-in " +
                         std::to_string(static_cast<uint32_t>(slot.builtin)));
  }
  const VertexInput* in = nullptr;
  for (const VertexInput& v : state_.vertex_inputs) {
    if (v.location == slot.location) in = &v;
  }
  if (in == nullptr) return {};  // no VERTEX_DATA: the input reads 0
  if (slot.scalar_bits != 32) {
    return Unsupported("vertex inputs of " + std::to_string(slot.scalar_bits) +
                       "-bit components");
  }
  const uint64_t element = in->per_instance ? instance : vertex;
  const uint64_t at = in->offset + element * in->stride;
  if (at + in->format.bytes > in->size) return {};  // out of range: zeros
  const simt::Texel t = simt::DecodeTexel(in->format, in->data + at);
  for (uint32_t c = 0; c < slot.components && slot.component + c < 4; ++c) {
    const uint32_t k = slot.component + c;
    const uint32_t word =
        slot.kind == simt::ScalarKind::kFloat
            ? (in->format.IsInteger()
                   ? FloatBits(static_cast<float>(static_cast<int64_t>(t.i[k])))
                   : FloatBits(t.f[k]))
            : (in->format.IsInteger() ? static_cast<uint32_t>(t.i[k])
                                      : static_cast<uint32_t>(t.f[k]));
    Store32(mem, slot, c, word);
  }
  return {};
}

}  // namespace warpsim::pipeline::internal
