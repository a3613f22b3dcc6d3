#include "vulkan_ref/observe.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <set>
#include <tuple>
#include <utility>

namespace warpsim::vkref {
namespace {

using Record = std::span<const uint32_t>;

int32_t PixelOf(uint32_t float_bits) {
  float f;
  std::memcpy(&f, &float_bits, 4);
  return std::isfinite(f) ? static_cast<int32_t>(std::floor(f)) : 0;
}

uint32_t BallotLanes(Record r) {
  uint32_t n = 0;
  for (uint32_t k = 0; k < 4; ++k) n += std::popcount(r[kObsBallot + k]);
  return n;
}

uint64_t Clock(Record r, uint32_t lo) {
  return uint64_t{r[lo]} | uint64_t{r[lo + 1]} << 32;
}

bool HasEnd(Record r) {
  return r[kObsEndClockLo] != kObserveAbsent ||
         r[kObsEndClockHi] != kObserveAbsent;
}

// The most intervals alive at once per SM (ends are exclusive).
uint32_t MaxLive(const std::vector<WarpInterval>& warps) {
  std::map<uint32_t, std::vector<std::pair<uint64_t, int>>> events;
  for (const WarpInterval& w : warps) {
    events[w.sm].push_back({w.start, 1});
    events[w.sm].push_back({w.end, -1});
  }
  uint32_t best = 0;
  for (auto& [sm, ev] : events) {
    std::sort(ev.begin(), ev.end());  // at equal times, ends (-1) first
    int live = 0;
    for (const auto& [t, d] : ev) {
      live += d;
      best = std::max(best, static_cast<uint32_t>(std::max(live, 0)));
    }
  }
  return best;
}

struct WarpAcc {
  uint32_t ballot_lanes = 0;
  uint32_t sm = 0;
  uint64_t start = 0, end = 0;
  bool ended = false;
  uint32_t writers = 0;
  // (x / 2, y / 2, primitive) -> helper mask: two primitives may each have
  // a quad at one place in a warp.
  std::map<std::tuple<int32_t, int32_t, uint32_t>, uint32_t> quads;
  std::set<uint32_t> primitives;
  int32_t x0 = INT32_MAX, y0 = INT32_MAX, x1 = INT32_MIN, y1 = INT32_MIN;
};

void Summarize(const std::vector<Record>& recs, uint32_t stage,
               StageObservation* s, std::vector<WarpInterval>* intervals) {
  const bool fragment = stage == kObsFlagFragment;
  s->invocations = recs.size();
  std::map<uint32_t, WarpAcc> warps;
  std::set<uint32_t> sms;
  std::set<std::pair<uint32_t, uint32_t>> slots, vertices;
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> groups;
  std::map<std::pair<int32_t, int32_t>, std::set<uint32_t>> pixel_sms;
  for (Record r : recs) {
    const uint32_t flags = r[kObsFlags];
    s->flags |= flags;
    if (flags & kObsFlagSm) {
      sms.insert(r[kObsSm]);
      slots.insert({r[kObsSm], r[kObsSlot]});
      s->max_warp_slot = std::max(s->max_warp_slot, r[kObsSlot]);
    }
    if (stage == kObsFlagVertex) {
      vertices.insert({r[kObsVertexIndex], r[kObsInstanceIndex]});
    } else if (stage == kObsFlagCompute) {
      groups.insert(
          {r[kObsWorkgroup], r[kObsWorkgroup + 1], r[kObsWorkgroup + 2]});
    } else {
      const int32_t x = PixelOf(r[kObsFragX]), y = PixelOf(r[kObsFragY]);
      if (flags & kObsFlagSm) pixel_sms[{x, y}].insert(r[kObsSm]);
      if ((flags & kObsFlagSubgroup) &&
          r[kObsLane] % 4 == static_cast<uint32_t>((x & 1) + 2 * (y & 1))) {
        ++s->quad_lane_layout_matches;
      }
    }
    if (!(flags & kObsFlagSubgroup)) continue;
    WarpAcc& w = warps[r[kObsWarp]];
    w.ballot_lanes = BallotLanes(r);
    ++w.writers;
    w.sm = r[kObsSm];
    w.start = Clock(r, kObsClockLo);
    if ((flags & kObsFlagClock) && HasEnd(r)) {
      w.end = std::max(w.end, Clock(r, kObsEndClockLo));
      w.ended = true;
    }
    if (!fragment) continue;
    const int32_t x = PixelOf(r[kObsFragX]), y = PixelOf(r[kObsFragY]);
    const uint32_t primitive =
        (flags & kObsFlagPrimitive) ? r[kObsPrimitive] : 0;
    w.quads[{x >> 1, y >> 1, primitive}] =
        (flags & kObsFlagQuad) ? r[kObsQuadHelpers] & 0xfu : 0u;
    if (flags & kObsFlagPrimitive) w.primitives.insert(r[kObsPrimitive]);
    w.x0 = std::min(w.x0, x), w.y0 = std::min(w.y0, y);
    w.x1 = std::max(w.x1, x), w.y1 = std::max(w.y1, y);
  }
  s->warps = warps.size();
  s->sms = sms.size();
  s->sm_warp_slots = slots.size();
  s->distinct_vertices = vertices.size();
  s->workgroups = groups.size();
  double fw = 0, fh = 0, cycles = 0;
  std::vector<WarpInterval> lives;
  for (const auto& [id, w] : warps) {
    ++s->ballot_lanes_histogram[w.ballot_lanes];
    if (w.ended && (s->flags & kObsFlagSm) && w.end >= w.start) {
      lives.push_back({w.sm, w.start, w.end, stage});
      cycles += static_cast<double>(w.end - w.start);
    }
    if (!fragment) continue;
    uint32_t helpers = 0;
    for (const auto& [q, mask] : w.quads) helpers += std::popcount(mask);
    s->quads += w.quads.size();
    s->helper_lanes += helpers;
    ++s->quads_per_warp_histogram[static_cast<uint32_t>(w.quads.size())];
    if (s->flags & kObsFlagPrimitive) {
      ++s->primitives_per_warp_histogram[static_cast<uint32_t>(
          w.primitives.size())];
    }
    if (w.ballot_lanes == w.writers) ++s->ballot_without_helpers;
    if (helpers != 0 && w.ballot_lanes == w.writers + helpers)
      ++s->ballot_with_helpers;
    const uint32_t width = static_cast<uint32_t>(w.x1 - w.x0 + 1);
    const uint32_t height = static_cast<uint32_t>(w.y1 - w.y0 + 1);
    fw += width, fh += height;
    s->max_footprint_width = std::max(s->max_footprint_width, width);
    s->max_footprint_height = std::max(s->max_footprint_height, height);
  }
  s->timed_warps = lives.size();
  if (!lives.empty()) {
    s->mean_warp_cycles = cycles / static_cast<double>(lives.size());
    s->max_live_warps_per_sm = MaxLive(lives);
  }
  intervals->insert(intervals->end(), lives.begin(), lives.end());
  if (fragment && !warps.empty()) {
    s->mean_footprint_width = fw / static_cast<double>(warps.size());
    s->mean_footprint_height = fh / static_cast<double>(warps.size());
  }
  if (pixel_sms.empty()) return;
  for (uint32_t side = 2; side <= 512; side *= 2) {
    std::map<std::pair<int32_t, int32_t>, std::set<uint32_t>> tiles;
    const int shift = std::countr_zero(side);
    for (const auto& [p, ids] : pixel_sms) {
      tiles[{p.first >> shift, p.second >> shift}].insert(ids.begin(),
                                                          ids.end());
    }
    uint64_t single = 0;
    for (const auto& [t, ids] : tiles) single += ids.size() == 1;
    s->tile_single_sm_share[side] =
        static_cast<double>(single) / static_cast<double>(tiles.size());
  }
}

void AppendWord(std::string* out, uint32_t w) {
  for (int k = 0; k < 4; ++k) out->push_back(static_cast<char>(w >> (8 * k)));
}

}  // namespace

DrawObservation ObserveFromBuffer(std::span<const uint32_t> words) {
  DrawObservation o;
  if (words.size() < kObserveHeaderWords) return o;
  o.taken = words[kObserveInvocationCounter];
  o.capacity = words[kObserveCapacity];
  const size_t available =
      (words.size() - kObserveHeaderWords) / kObserveRecordWords;
  const size_t n =
      std::min<size_t>({static_cast<size_t>(o.taken),
                        static_cast<size_t>(o.capacity), available});
  o.records.assign(
      words.begin() + kObserveHeaderWords,
      words.begin() + kObserveHeaderWords + n * kObserveRecordWords);
  std::vector<Record> vertex, fragment, compute;
  for (size_t i = 0; i < n; ++i) {
    Record r(o.records.data() + i * kObserveRecordWords, kObserveRecordWords);
    const uint32_t flags = r[kObsFlags];
    (flags & kObsFlagFragment  ? fragment
     : flags & kObsFlagCompute ? compute
                               : vertex)
        .push_back(r);
  }
  std::vector<WarpInterval> lives;
  Summarize(vertex, kObsFlagVertex, &o.vertex, &lives);
  Summarize(fragment, kObsFlagFragment, &o.fragment, &lives);
  Summarize(compute, kObsFlagCompute, &o.compute, &lives);
  o.max_live_warps_per_sm = MaxLive(lives);
  std::map<uint32_t, std::vector<const WarpInterval*>> by_sm;
  for (const WarpInterval& w : lives) by_sm[w.sm].push_back(&w);
  for (const auto& [sm, ws] : by_sm) {
    bool vs = false, fs = false, overlap = false;
    for (const WarpInterval* a : ws) {
      vs |= a->stage == kObsFlagVertex;
      fs |= a->stage == kObsFlagFragment;
      if (a->stage != kObsFlagVertex) continue;
      for (const WarpInterval* b : ws) {
        overlap |= b->stage == kObsFlagFragment && a->start < b->end &&
                   b->start < a->end;
        if (overlap) break;
      }
    }
    o.sms_with_both_stages += vs && fs;
    o.sms_with_overlapping_stages += overlap;
  }
  return o;
}

std::string ObservationFileBytes(
    const std::vector<std::pair<int, const DrawObservation*>>& draws) {
  std::string out = "WSOBSV01";
  for (const auto& [index, o] : draws) {
    AppendWord(&out, static_cast<uint32_t>(index));
    AppendWord(&out, o->taken);
    AppendWord(&out, o->capacity);
    AppendWord(&out,
               static_cast<uint32_t>(o->records.size() / kObserveRecordWords));
    for (uint32_t w : o->records) AppendWord(&out, w);
  }
  return out;
}

}  // namespace warpsim::vkref
