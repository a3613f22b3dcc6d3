// The timeline model: see timeline.h.
#include "model/timeline.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace warpsim::viz {

void SegmentLod::Build(std::vector<Segment> level0, uint64_t base) {
  base_ = std::max<uint64_t>(1, base);
  levels_.clear();
  max_len_.clear();
  std::sort(
      level0.begin(), level0.end(),
      [](const Segment& a, const Segment& b) { return a.begin < b.begin; });
  uint64_t last = 0, longest = 0;
  for (const Segment& s : level0) {
    last = std::max(last, s.end);
    longest = std::max(longest, s.end - s.begin);
  }
  levels_.push_back(std::move(level0));
  max_len_.push_back(longest);
  std::vector<std::pair<uint32_t, double>> weight;  // key -> covered cycles
  for (uint32_t k = 1; k < 63 && levels_.back().size() > 1; ++k) {
    const uint64_t bucket = base_ << k;
    const std::vector<Segment>& prev = levels_.back();
    std::vector<Segment> next;
    longest = 0;
    for (size_t i = 0; i < prev.size();) {
      const uint64_t b = prev[i].begin / bucket;
      Segment m = prev[i];
      double covered = 0;
      weight.clear();
      size_t j = i;
      for (; j < prev.size() && prev[j].begin / bucket == b; ++j) {
        const Segment& s = prev[j];
        m.end = std::max(m.end, s.end);
        const double c = static_cast<double>(s.end - s.begin) * s.fill;
        covered += c;
        auto it = std::find_if(weight.begin(), weight.end(),
                               [&](const auto& w) { return w.first == s.key; });
        if (it == weight.end()) {
          weight.push_back({s.key, c});
        } else {
          it->second += c;
        }
      }
      m.key = std::max_element(weight.begin(), weight.end(),
                               [](const auto& x, const auto& y) {
                                 return x.second < y.second;
                               })
                  ->first;
      const double extent = static_cast<double>(m.end - m.begin);
      m.fill = extent > 0 ? static_cast<float>(std::min(1.0, covered / extent))
                          : 1.0f;
      longest = std::max(longest, m.end - m.begin);
      next.push_back(m);
      i = j;
    }
    levels_.push_back(std::move(next));
    max_len_.push_back(longest);
    if (bucket > last) break;
  }
}

size_t SegmentLod::LevelFor(double cycles_per_pixel) const {
  size_t k = 0;
  while (k + 1 < levels_.size() &&
         static_cast<double>(base_ << (k + 1)) <= cycles_per_pixel) {
    ++k;
  }
  return k;
}

void WarpStates(uint64_t begin, uint64_t end,
                const std::vector<const trace::InstructionEvent*>& events,
                std::vector<Segment>* out) {
  using trace::StallReason;
  auto add = [&](uint64_t a, uint64_t b, StallReason r) {
    if (b <= a) return;
    const auto key = static_cast<uint32_t>(r);
    if (!out->empty() && out->back().end == a && out->back().key == key) {
      out->back().end = b;  // one segment for a run of one state
      return;
    }
    out->push_back({a, b, key, 1.0f});
  };
  uint64_t t = begin;
  for (const trace::InstructionEvent* e : events) {
    if (e->cycle < t) continue;  // a second instruction of the same issue
    const uint64_t ready = std::clamp(e->ready, t, e->cycle);
    add(t, ready, e->waited);
    add(ready, e->cycle, StallReason::kNotSelected);
    add(e->cycle, e->cycle + 1, StallReason::kSelected);
    t = e->cycle + 1;
  }
  add(t, end, StallReason::kWait);
}

Timeline::Timeline(const trace::Trace& t, uint64_t now) {
  end_ = now;
  for (const trace::RunInfo& r : t.runs) end_ = std::max(end_, r.end);
  // Spans by lane (SM, sub-partition, slot), each lane's in launch order.
  std::vector<uint32_t> order(t.warps.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  auto lane_of = [&](uint32_t i) {
    const trace::WarpSpan& w = t.warps[i];
    return std::make_tuple(w.sm, w.sub_partition, w.slot);
  };
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return lane_of(a) < lane_of(b);
  });
  // Instruction events per warp, in cycle order: a counting sort over the
  // warp numbers (dense: warps are numbered in launch order).
  has_states_ = !t.instructions.empty();
  uint64_t max_warp = 0;
  for (const trace::WarpSpan& w : t.warps)
    max_warp = std::max(max_warp, w.warp);
  for (const trace::InstructionEvent& e : t.instructions) {
    max_warp = std::max(max_warp, e.warp);
    states_until_ = std::max(states_until_, e.cycle + 1);
  }
  if (!t.instructions_truncated) states_until_ = end_;
  std::vector<uint32_t> first;  // per warp: its events' start in `events`
  std::vector<const trace::InstructionEvent*> events;
  if (has_states_ && max_warp < (uint64_t{1} << 32)) {
    first.assign(max_warp + 2, 0);
    for (const trace::InstructionEvent& e : t.instructions)
      first[e.warp + 1] += 1;
    for (size_t w = 1; w < first.size(); ++w) first[w] += first[w - 1];
    events.resize(t.instructions.size());
    std::vector<uint32_t> at(first.begin(), first.end() - 1);
    for (const trace::InstructionEvent& e : t.instructions)
      events[at[e.warp]++] = &e;
  }
  std::vector<const trace::InstructionEvent*> of_warp;
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j < order.size() && lane_of(order[j]) == lane_of(order[i])) ++j;
    Lane lane;
    std::tie(lane.sm, lane.sub_partition, lane.slot) = lane_of(order[i]);
    std::vector<Segment> segs;
    std::vector<Segment> states;
    for (size_t k = i; k < j; ++k) {
      const trace::WarpSpan& w = t.warps[order[k]];
      const uint64_t e = w.end == trace::kStillResident ? now : w.end;
      end_ = std::max(end_, e);
      segs.push_back({w.begin, std::max(e, w.begin), order[k], 1.0f});
      if (!first.empty() && w.warp + 1 < first.size()) {
        of_warp.assign(events.begin() + first[w.warp],
                       events.begin() + first[w.warp + 1]);
        if (!of_warp.empty()) {
          WarpStates(w.begin, std::min(std::max(e, w.begin), states_until_),
                     of_warp, &states);
        }
      }
    }
    if (has_states_) lane.states.Build(std::move(states));
    lane.warps.Build(std::move(segs));
    lanes_.push_back(std::move(lane));
    i = j;
  }
}

std::pair<size_t, size_t> Timeline::LanesOf(uint32_t sm) const {
  auto lo =
      std::lower_bound(lanes_.begin(), lanes_.end(), sm,
                       [](const Lane& l, uint32_t s) { return l.sm < s; });
  auto hi =
      std::upper_bound(lanes_.begin(), lanes_.end(), sm,
                       [](uint32_t s, const Lane& l) { return s < l.sm; });
  return {static_cast<size_t>(lo - lanes_.begin()),
          static_cast<size_t>(hi - lanes_.begin())};
}

std::vector<uint32_t> Timeline::Sms() const {
  std::vector<uint32_t> out;
  for (const Lane& l : lanes_) {
    if (out.empty() || out.back() != l.sm) out.push_back(l.sm);
  }
  return out;
}

}  // namespace warpsim::viz
