// The register-file model: see register_map.h.
#include "model/register_map.h"

#include <algorithm>
#include <tuple>

namespace warpsim::viz {

RegisterMap::RegisterMap(const trace::Trace& t, uint64_t now) {
  // The span of each warp, to name the stage and run of an allocation.
  std::map<uint64_t, uint32_t> span_of;
  for (size_t i = 0; i < t.warps.size(); ++i) {
    span_of.emplace(t.warps[i].warp, static_cast<uint32_t>(i));
  }
  // Pair each allocation with the release of the same range.
  std::map<std::tuple<uint32_t, uint32_t, uint64_t, uint32_t>, Allocation> open;
  uint64_t last = now;
  auto add = [&](uint32_t sm, uint32_t sp, const Allocation& a) {
    files_[{sm, sp}].all.push_back(a);
    last = std::max(last, a.end);
  };
  for (const trace::RegisterEvent& e : t.registers) {
    const auto key = std::make_tuple(e.sm, e.sub_partition, e.warp, e.first);
    if (e.allocate) {
      Allocation a;
      a.begin = e.cycle;
      a.end = trace::kStillResident;
      a.first = e.first;
      a.count = e.count;
      a.warp = e.warp;
      auto s = span_of.find(e.warp);
      if (s != span_of.end()) a.span = s->second;
      open[key] = a;
      continue;
    }
    auto it = open.find(key);
    if (it == open.end()) continue;  // a release without its allocation
    it->second.end = std::max(e.cycle, it->second.begin);
    add(e.sm, e.sub_partition, it->second);
    open.erase(it);
  }
  for (auto& [key, a] : open) {
    a.end = std::max(now, a.begin);
    add(std::get<0>(key), std::get<1>(key), a);
  }
  // Bucket index: about 4096 buckets over the run.
  for (auto& [where, f] : files_) {
    std::sort(f.all.begin(), f.all.end(),
              [](const Allocation& a, const Allocation& b) {
                return std::tie(a.begin, a.first) < std::tie(b.begin, b.first);
              });
    f.bucket = std::max<uint64_t>(1, last / 4096 + 1);
    f.index.assign(last / f.bucket + 2, {});
    for (size_t i = 0; i < f.all.size(); ++i) {
      const Allocation& a = f.all[i];
      const uint64_t lo = a.begin / f.bucket;
      const uint64_t hi =
          std::max(a.begin, a.end - (a.end > a.begin)) / f.bucket;
      for (uint64_t b = lo; b <= hi && b < f.index.size(); ++b) {
        f.index[b].push_back(static_cast<uint32_t>(i));
      }
    }
  }
}

std::vector<Allocation> RegisterMap::At(uint32_t sm, uint32_t sub_partition,
                                        uint64_t cycle) const {
  std::vector<Allocation> out;
  auto it = files_.find({sm, sub_partition});
  if (it == files_.end()) return out;
  const File& f = it->second;
  const uint64_t b = cycle / f.bucket;
  if (b >= f.index.size()) return out;
  for (uint32_t i : f.index[b]) {
    const Allocation& a = f.all[i];
    if (a.begin <= cycle && cycle < a.end) out.push_back(a);
  }
  std::sort(out.begin(), out.end(),
            [](const Allocation& a, const Allocation& b) {
              return a.first < b.first;
            });
  return out;
}

const std::vector<Allocation>& RegisterMap::All(uint32_t sm,
                                                uint32_t sub_partition) const {
  static const std::vector<Allocation> kNone;
  auto it = files_.find({sm, sub_partition});
  return it == files_.end() ? kNone : it->second.all;
}

FreeSpace RegisterMap::Measure(const std::vector<Allocation>& live,
                               uint32_t size) {
  std::vector<std::pair<uint32_t, uint32_t>> used;
  for (const Allocation& a : live) used.push_back({a.first, a.first + a.count});
  std::sort(used.begin(), used.end());
  FreeSpace f;
  uint32_t at = 0;
  auto hole = [&](uint32_t a, uint32_t b) {
    if (b <= a) return;
    f.free += b - a;
    f.holes += 1;
    f.largest_hole = std::max(f.largest_hole, b - a);
  };
  for (const auto& [a, b] : used) {
    hole(at, std::min(a, size));
    at = std::max(at, b);
  }
  hole(at, size);
  return f;
}

std::vector<std::pair<uint32_t, uint32_t>> RegisterMap::Files() const {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const auto& [where, f] : files_) out.push_back(where);
  return out;
}

}  // namespace warpsim::viz
