#include "sm/memory_model.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <new>

namespace warpsim::sm {

LineCache::LineCache(uint64_t bytes, uint32_t line_bytes, uint32_t ways,
                     bool hashed)
    : ways_(std::max(1u, ways)) {
  const uint64_t lines =
      std::max<uint64_t>(1, bytes / std::max(1u, line_bytes));
  sets_ = std::max<uint64_t>(1, lines / ways_);
  hashed_ = hashed;
}

uint64_t LineCache::SetOf(uint64_t line) const {
  if (!hashed_) return line % sets_;
  // Each aligned window of sets_ lines is turned by its own amount (the
  // window's number times 2^64 / the golden ratio, its top 24 bits): the
  // window's lines keep distinct sets, and lines a multiple of sets_ apart
  // (the same place in other windows) mostly do not share one.
  const uint64_t turn = ((line / sets_) * 0x9E3779B97F4A7C15ull) >> 40;
  return (line + turn) % sets_;
}

void LineCache::Free::operator()(uint64_t* p) const { std::free(p); }

namespace {
// MemoryModel::fills_: past this many lines per SM, the arrived ones go.
constexpr size_t kMaxFills = 4096;
constexpr int kSectorShift = 56;
constexpr uint64_t kTagMask = (uint64_t{1} << kSectorShift) - 1;
}  // namespace

bool LineCache::Access(uint64_t line, bool allocate) {
  return AccessSectors(line, 0xff, allocate) == 0xff;
}

void LineCache::Invalidate(uint64_t line) {
  if (entries_ == nullptr) return;
  uint64_t* e = entries_.get() + SetOf(line) * ways_ * 2;
  const uint64_t tag = (line + 1) & kTagMask;
  for (uint32_t w = 0; w < ways_; ++w) {
    if ((e[2 * w] & kTagMask) == tag) {
      e[2 * w] = 0;
      e[2 * w + 1] = 0;
    }
  }
}

uint32_t LineCache::AccessSectors(uint64_t line, uint32_t want, bool allocate) {
  if (entries_ == nullptr) {
    void* p = std::calloc(sets_ * ways_ * 2, sizeof(uint64_t));
    if (p == nullptr) throw std::bad_alloc();
    entries_.reset(static_cast<uint64_t*>(p));
  }
  const uint64_t set = SetOf(line);
  uint64_t* e = entries_.get() + set * ways_ * 2;
  const uint64_t tag = (line + 1) & kTagMask;
  want &= 0xff;
  ++clock_;
  uint32_t victim = 0;
  for (uint32_t w = 0; w < ways_; ++w) {
    if ((e[2 * w] & kTagMask) == tag) {
      e[2 * w + 1] = clock_;
      const uint32_t held = static_cast<uint32_t>(e[2 * w] >> kSectorShift);
      if (allocate) e[2 * w] |= uint64_t{want} << kSectorShift;
      return held & want;
    }
    if (e[2 * w + 1] < e[2 * victim + 1]) victim = w;
  }
  if (allocate) {
    e[2 * victim] = tag | uint64_t{want} << kSectorShift;
    e[2 * victim + 1] = clock_;
  }
  return 0;
}

void LineCache::InvalidateRange(uint64_t first, uint64_t last) {
  if (entries_ == nullptr || last < first) return;
  const uint64_t slots = sets_ * ways_;
  if (last - first < slots) {
    for (uint64_t l = first; l <= last; ++l) Invalidate(l);
    return;
  }
  const uint64_t lo = (first + 1) & kTagMask, hi = (last + 1) & kTagMask;
  uint64_t* e = entries_.get();
  for (uint64_t i = 0; i < slots; ++i) {
    const uint64_t tag = e[2 * i] & kTagMask;
    if (tag != 0 && tag >= lo && tag <= hi) {
      e[2 * i] = 0;
      e[2 * i + 1] = 0;
    }
  }
}

void LineCache::Clear() { entries_.reset(); }

void MemoryModel::BeginRun() {
  ++run_;
  if (t_.translation_per_run) {
    for (auto& regions : translated_) regions.clear();
  }
}

double MemoryModel::Translate(uint32_t sm, double at) {
  if (t_.translation_region_bytes == 0 || sm >= translated_.size()) return 0;
  const uint64_t line_bytes = std::max(1u, t_.line_bytes);
  const uint64_t region_bytes = t_.translation_region_bytes;
  auto& regions = translated_[sm];
  double wait = 0;
  uint64_t last = ~uint64_t{0};
  for (uint64_t line : lines_) {
    const uint64_t region = line * line_bytes / region_bytes;
    if (region == last) continue;  // lines_ is sorted
    last = region;
    auto [it, fresh] = regions.try_emplace(region, 0.0);
    if (fresh) {
      ++counters_.translation_misses;
      it->second = at + t_.translation_miss_cycles;
    }
    wait = std::max(wait, it->second - at);
  }
  return wait;
}

void MemoryModel::InvalidateL1() {
  for (LineCache& l1 : l1_) l1.Clear();
  for (auto& fills : fills_) fills.clear();
}

MemoryModel::MemoryModel(const MemoryTiming& timing, uint32_t sms,
                         uint32_t bandwidth_sms)
    : t_(timing),
      l2_far_(std::max<uint64_t>(1, timing.l2_far_bytes), timing.line_bytes,
              timing.l2_ways),
      l2_uploaded_(timing.l2_bytes, timing.line_bytes, timing.l2_ways),
      bandwidth_sms_(std::max(1u, bandwidth_sms)),
      request_queue_(sms),
      data_queue_(sms),
      store_queue_(sms),
      texture_queue_(sms),
      fills_(sms),
      translated_(sms) {
  l1_.reserve(sms);
  for (uint32_t s = 0; s < sms; ++s) {
    l1_.emplace_back(timing.l1_bytes, timing.line_bytes, timing.l1_ways,
                     timing.l1_hashed_sets);
  }
  const uint32_t sides = std::max(1u, timing.l2_sides);
  l2_.reserve(sides);
  for (uint32_t k = 0; k < sides; ++k) {
    l2_.emplace_back(timing.l2_bytes, timing.line_bytes, timing.l2_ways);
  }
  side_.resize(sms);
  for (uint32_t s = 0; s < sms; ++s) {
    side_[s] =
        (s < timing.l2_side_of_sm.size() ? timing.l2_side_of_sm[s] : s) % sides;
  }
}

bool MemoryModel::InDram(uint64_t line, double share) {
  // splitmix64's finalizer: the line's bits spread over all 64, so that
  // neighbouring lines are chosen apart.
  uint64_t z = line + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53 < share;
}

void MemoryModel::Upload(const Block& b, uint64_t host_begin) {
  const uint64_t line_bytes = std::max(1u, t_.line_bytes);
  const uint64_t first = b.device / line_bytes;
  const uint64_t last = (b.device + (b.end - host_begin) - 1) / line_bytes;
  const uint64_t lines = std::max<uint64_t>(1, t_.l2_bytes / line_bytes);
  const bool far = t_.l2_uploads_far && t_.l2_far_bytes != 0;
  const bool uploaded = far && t_.l2_upload_latency != 0;
  const uint64_t kept = last - std::min(last - first, lines - 1);
  // The host's writes leave the lines the L2 does not keep in DRAM only
  // (cuda_ref's E49: of an 8 MB copy only its end stayed in the L2), and
  // with l2_uploads_far no side a copy of any of the block's lines.
  for (LineCache& side : l2_) {
    if (far) {
      side.InvalidateRange(first, last);
    } else if (kept > first) {
      side.InvalidateRange(first, kept - 1);
    }
  }
  if (kept > first) l2_far_.InvalidateRange(first, kept - 1);
  const double share = std::clamp(t_.upload_dram_share, 0.0, 1.0);
  for (uint64_t l = kept; l <= last; ++l) {
    if (share > 0 && InDram(l, share)) {
      // Only in DRAM: no copy of it anywhere in the L2.
      for (LineCache& side : l2_) side.Invalidate(l);
      l2_far_.Invalidate(l);
      l2_uploaded_.Invalidate(l);
      continue;
    }
    if (far) {
      l2_far_.Access(l, true);
      if (uploaded) l2_uploaded_.Access(l, true);
    } else {
      for (LineCache& side : l2_) side.Access(l, true);
    }
  }
}

uint64_t MemoryModel::DeviceAddress(const void* host, uint64_t size) {
  const uint64_t begin = reinterpret_cast<uintptr_t>(host);
  const uint64_t end = begin + std::max<uint64_t>(1, size);
  // The block seen before that starts last at or before `begin`.
  auto it = blocks_.upper_bound(begin);
  if (it != blocks_.begin()) {
    auto& [first, block] = *std::prev(it);
    if (end <= block.end) {
      if (t_.l2_holds_uploads && t_.uploads_per_run && block.run != run_) {
        block.run = run_;
        Upload(block, first);
      }
      return block.device + (begin - first);
    }
  }
  const uint64_t device = next_device_;
  const Block& block = blocks_[begin] = {end, device, run_};
  if (t_.l2_holds_uploads) Upload(block, begin);
  next_device_ = (device + (end - begin) + kDeviceAlignment - 1) /
                 kDeviceAlignment * kDeviceAlignment;
  return device;
}

double MemoryModel::Queue::Take(double at, double cycles) {
  // In the latest request's time: the backlog then, this work after it.
  latest = std::max(latest, at);
  const double start = std::max(free, latest);
  free = start + cycles;
  return (start - latest) + cycles;
}

uint32_t MemoryModel::BankWords(const uint64_t* addresses, uint32_t lanes,
                                uint64_t bytes) {
  const uint64_t width = std::max(1u, t_.l1_bank_bytes);
  const uint32_t banks = std::max(1u, t_.l1_banks);
  words_.clear();
  uint64_t lo = ~uint64_t{0}, hi = 0;
  for (uint32_t m = lanes; m != 0; m &= m - 1) {
    const uint64_t a = addresses[std::countr_zero(m)];
    for (uint64_t w = a / width; w <= (a + bytes - 1) / width; ++w) {
      words_.push_back(w);
      lo = std::min(lo, w);
      hi = std::max(hi, w);
    }
  }
  // Words within `banks` of each other are each in a bank of their own
  // (a warp's consecutive words: the common case, no sort).
  if (words_.empty() || hi - lo < banks) return words_.empty() ? 0 : 1;
  std::sort(words_.begin(), words_.end());
  words_.erase(std::unique(words_.begin(), words_.end()), words_.end());
  bank_words_.assign(banks, 0);
  uint32_t n = 0;
  for (uint64_t w : words_) n = std::max(n, ++bank_words_[w % banks]);
  return n;
}

uint32_t MemoryModel::Wavefronts(const uint64_t* addresses, uint32_t lanes,
                                 uint64_t bytes) {
  const uint64_t per = std::max(1u, t_.l1_lines_per_wavefront);
  const uint64_t n = std::max<uint64_t>((lines_.size() + per - 1) / per,
                                        BankWords(addresses, lanes, bytes));
  return static_cast<uint32_t>(std::max<uint64_t>(1, n));
}

uint32_t MemoryModel::SharedAccess(uint32_t sm, uint64_t now,
                                   const uint64_t* addresses, uint32_t lanes,
                                   uint32_t bytes) {
  const double c = t_.shared_wavefront_cycles;
  if (lanes != 0) ++counters_.shared_requests;
  if (c <= 0 || lanes == 0) return t_.shared_latency;
  const double at = static_cast<double>(now);
  const uint32_t n =
      std::max(1u, BankWords(addresses, lanes, std::max<uint64_t>(1, bytes)));
  counters_.shared_wavefronts += n;
  // As a load's wavefronts from the L1 (one array): the first one's time
  // is in the latency.
  const double done = data_queue_[sm].Take(at, n * c);
  return static_cast<uint32_t>(
      std::ceil(done - c + static_cast<double>(t_.shared_latency)));
}

uint32_t MemoryModel::PartialLines(const uint64_t* addresses, uint32_t lanes,
                                   uint64_t bytes) {
  // The distinct byte ranges the lanes write, merged where they touch.
  spans_.clear();
  for (uint32_t m = lanes; m != 0; m &= m - 1) {
    const uint64_t a = addresses[std::countr_zero(m)];
    spans_.emplace_back(a, a + bytes);
  }
  std::sort(spans_.begin(), spans_.end());
  size_t n = 0;
  for (const auto& span : spans_) {
    if (n > 0 && span.first <= spans_[n - 1].second) {
      spans_[n - 1].second = std::max(spans_[n - 1].second, span.second);
    } else {
      spans_[n++] = span;
    }
  }
  spans_.resize(n);
  // A sector is written whole when one range covers it; the store's
  // sectors_ are sorted, as are the ranges.
  const uint64_t sector_bytes = std::max(1u, t_.sector_bytes);
  const uint64_t line_bytes = std::max(1u, t_.line_bytes);
  uint32_t partial = 0;
  uint64_t last = ~uint64_t{0};  // the last line counted
  size_t k = 0;
  for (uint64_t sector : sectors_) {
    const uint64_t lo = sector * sector_bytes, hi = lo + sector_bytes;
    while (k < spans_.size() && spans_[k].second <= lo) ++k;
    const bool whole =
        k < spans_.size() && spans_[k].first <= lo && spans_[k].second >= hi;
    const uint64_t line = lo / line_bytes;
    if (!whole && line != last) {
      ++partial;
      last = line;
    }
  }
  return partial;
}

uint64_t TiledTexelOffset(const simt::ImageDesc& image, uint64_t linear) {
  const uint64_t bytes = image.format.bytes;
  if (bytes == 0 || image.dim == simt::ViewDim::k1D ||
      image.dim == simt::ViewDim::kBuffer) {
    return linear;
  }
  uint32_t level = 0;
  while (level + 1 < image.mip_levels &&
         linear >= image.level_offset[level + 1]) {
    ++level;
  }
  const uint64_t w = image.LevelWidth(level), h = image.LevelHeight(level);
  if (w % kTexelTile != 0 || h % kTexelTile != 0 ||
      linear < image.level_offset[level]) {
    return linear;
  }
  const uint64_t in_level = linear - image.level_offset[level];
  const uint64_t index = in_level / bytes;
  const uint64_t x = index % w, y = index / w % h, plane = index / w / h;
  uint64_t z = 0;  // x's and y's bits in the tile, interleaved
  for (uint32_t b = 0; (1u << b) < kTexelTile; ++b) {
    z |= ((x >> b) & 1) << (2 * b);
    z |= ((y >> b) & 1) << (2 * b + 1);
  }
  const uint64_t tiles_x = w / kTexelTile, tiles_y = h / kTexelTile;
  const uint64_t tile =
      (plane * tiles_y + y / kTexelTile) * tiles_x + x / kTexelTile;
  return image.level_offset[level] +
         (tile * kTexelTile * kTexelTile + z) * bytes + in_level % bytes;
}

uint32_t MemoryModel::Access(uint32_t sm, uint64_t now,
                             const uint64_t* addresses, uint32_t lanes,
                             uint32_t bytes, bool store, bool graphics,
                             const TextureRead* texture, bool past_l1) {
  const uint64_t line_bytes = std::max(1u, t_.line_bytes);
  const uint64_t sector_bytes = std::max(1u, t_.sector_bytes);
  const uint64_t size = std::max(1u, bytes);
  // The distinct lines and sectors the lanes touch (an access may straddle
  // two sectors or lines).
  lines_.clear();
  sectors_.clear();
  for (uint32_t m = lanes; m != 0; m &= m - 1) {
    const uint64_t a = addresses[std::countr_zero(m)];
    for (uint64_t s = a / sector_bytes; s <= (a + size - 1) / sector_bytes;
         ++s) {
      sectors_.push_back(s);
    }
  }
  std::sort(sectors_.begin(), sectors_.end());
  sectors_.erase(std::unique(sectors_.begin(), sectors_.end()), sectors_.end());
  for (uint64_t s : sectors_) {
    const uint64_t line = s * sector_bytes / line_bytes;
    if (lines_.empty() || lines_.back() != line) lines_.push_back(line);
  }
  ++counters_.requests;
  counters_.sectors += sectors_.size();
  store_throttle_ = 0;
  if (store && (t_.store_sector_cycles > 0 || t_.store_line_cycles > 0 ||
                t_.store_partial_line_cycles > 0)) {
    const uint32_t partial = t_.store_partial_line_cycles > 0
                                 ? PartialLines(addresses, lanes, size)
                                 : 0;
    const double queued = store_queue_[sm].Take(
        static_cast<double>(now),
        static_cast<double>(sectors_.size()) * t_.store_sector_cycles +
            static_cast<double>(lines_.size()) * t_.store_line_cycles +
            static_cast<double>(partial) * t_.store_partial_line_cycles);
    if (queued > t_.store_queue_cycles) {
      store_throttle_ =
          static_cast<uint32_t>(std::ceil(queued - t_.store_queue_cycles));
    }
  }
  // Per line: which level has it; the sectors of lines that miss a level
  // are what that level's bandwidth carries.
  uint32_t latency = t_.l1_latency;
  uint32_t l2_level = t_.l2_latency;  // the slowest L2 part a line came from
  const uint32_t side = side_[sm];
  const uint32_t cross_latency =
      t_.l2_cross_latency != 0
          ? t_.l2_cross_latency
          : (t_.l2_far_bytes != 0 ? t_.l2_far_latency : t_.l2_latency);
  uint64_t l2_sectors = 0, dram_sectors = 0, l2_lines = 0;
  const uint64_t sectors_per_line =
      std::max<uint64_t>(1, line_bytes / sector_bytes);
  // The L1 fills only the sectors a load missed (l1_sector_fills), with
  // lines of at most 8 sectors; otherwise whole lines.
  const bool sectored = t_.l1_sector_fills && sectors_per_line <= 8;
  const double at = static_cast<double>(now);
  // The wait for the regions' translations (none once the SM has them).
  const double translate = Translate(sm, at);
  double pending = at;     // the latest fill a hit waits for
  uint64_t in_flight = 0;  // hit lines still on their way
  auto& fills = fills_[sm];
  filled_.clear();
  size_t k = 0;
  for (uint64_t line : lines_) {
    uint64_t in_line = 0;
    uint32_t want = 0;
    while (k < sectors_.size() &&
           sectors_[k] * sector_bytes / line_bytes == line) {
      ++in_line;
      want |= 1u << (sectors_[k] % sectors_per_line % 8);
      ++k;
    }
    in_line = std::min(in_line, sectors_per_line);
    if (!store && past_l1) {
      // Past the L1: no lookup, nothing kept, no fill for later hits.
      if (sectored) {
        in_line = static_cast<uint64_t>(std::popcount(want));
      }
    } else if (!store) {
      uint32_t held = 0;
      if (sectored) {
        held = l1_[sm].AccessSectors(line, want, true);
      } else {
        want = 0xff;
        held = l1_[sm].Access(line, true) ? want : 0;
      }
      if (held != 0 && !fills.empty()) {
        const auto f = fills.find(line);
        if (f != fills.end() && (f->second.sectors & held) != 0 &&
            f->second.arrives > at) {
          // A miss under a miss: the data comes with the first one's, and
          // the SM sends the request as it sends a miss's.
          pending = std::max(pending, f->second.arrives);
          ++in_flight;
        }
      }
      if (held == want) {
        ++counters_.l1_hits;
        continue;
      }
      filled_.emplace_back(line, want & ~held);
      if (sectored) {
        in_line = static_cast<uint64_t>(std::popcount(want & ~held));
      }
    }
    if (!store) ++counters_.l1_misses;  // stores do not look in the L1
    ++l2_lines;
    l2_sectors += in_line;
    const bool near = l2_[side].Access(line, true);
    bool cross = false;  // another side holds it
    for (uint32_t k = 0; k < l2_.size() && !near; ++k) {
      cross = cross || (k != side && l2_[k].Access(line, false));
    }
    if (store && l2_.size() > 1) {
      // The other sides' copies are stale now.
      for (uint32_t k = 0; k < l2_.size(); ++k) {
        if (k != side) l2_[k].Invalidate(line);
      }
    }
    // An upload's line no side held: its first reader's side holds it now
    // (Access above), whoever reads it next.
    const bool uploaded = t_.l2_upload_latency != 0 && !near && !cross &&
                          l2_uploaded_.Access(line, false);
    if (t_.l2_upload_latency != 0 && (uploaded || store)) {
      l2_uploaded_.Invalidate(line);
    }
    if (near) {
      ++counters_.l2_hits;
      latency = std::max(latency, t_.l2_latency);
      continue;
    }
    if (cross) {
      ++counters_.l2_hits;
      if (t_.l2_far_bytes != 0) l2_far_.Access(line, true);
      latency = std::max(latency, cross_latency);
      l2_level = std::max(l2_level, cross_latency);
      continue;
    }
    if (uploaded) {
      ++counters_.l2_hits;
      if (t_.l2_far_bytes != 0) l2_far_.Access(line, true);
      latency = std::max(latency, t_.l2_upload_latency);
      l2_level = std::max(l2_level, t_.l2_upload_latency);
      continue;
    }
    if (t_.l2_far_bytes != 0 && l2_far_.Access(line, true)) {
      ++counters_.l2_hits;
      latency = std::max(latency, t_.l2_far_latency);
      l2_level = std::max(l2_level, t_.l2_far_latency);
      continue;
    }
    ++counters_.l2_misses;
    dram_sectors += in_line;
    latency = std::max(latency, t_.dram_latency);
  }
  // Bandwidth: the request's sectors occupy each level's bandwidth (the
  // whole GPU's, which every SM's requests share) after what is queued
  // there; the last sector's arrival delays the data by as much as it
  // waited.
  double ready = at + latency;
  auto queue = [&](Queue& q, uint64_t n, double per_sm,
                   uint32_t level_latency) {
    if (n == 0 || per_sm <= 0) return;
    const double per_cycle = per_sm * bandwidth_sms_;
    const double one = static_cast<double>(sector_bytes) / per_cycle;
    const double done =
        q.Take(at, static_cast<double>(n * sector_bytes) / per_cycle);
    ready = std::max(ready, at + done - one + level_latency);
  };
  const double per_line = graphics && t_.graphics_l1_miss_cycles_per_line > 0
                              ? t_.graphics_l1_miss_cycles_per_line
                              : t_.l1_miss_cycles_per_line;
  if (l2_lines + in_flight != 0 && per_line > 0) {
    // The lines leave the SM one after the other; the last one's data
    // comes back a level's latency after it left.
    const double done = request_queue_[sm].Take(
        at, static_cast<double>(l2_lines + in_flight) * per_line);
    ready = std::max(ready, at + done - per_line + latency);
  }
  if (!store && !texture && t_.l1_wavefront_cycles > 0) {
    // The data leaves the L1 one wavefront after the other; the first
    // one's time is in the latency.
    const double c = t_.l1_wavefront_cycles;
    const uint32_t n = Wavefronts(addresses, lanes, size);
    counters_.wavefronts += n;
    const double done = data_queue_[sm].Take(at, n * c);
    ready = std::max(ready, at + done - c + t_.l1_latency);
  }
  queue(l2_queue_, l2_sectors, t_.l2_bytes_per_cycle_per_sm, l2_level);
  queue(dram_queue_, dram_sectors, t_.dram_bytes_per_cycle_per_sm,
        t_.dram_latency);
  // The request leaves once its addresses are translated.
  ready += translate;
  // The lines this load asked the L2 for are on their way until `ready`;
  // hits on lines still coming wait for them.
  for (const auto& [line, sectors] : filled_) {
    Fill& f = fills[line];
    if (f.arrives <= at) f.sectors = 0;
    f.arrives = std::max(f.arrives, ready);
    f.sectors |= sectors;
  }
  if (fills.size() > kMaxFills) {
    std::erase_if(fills, [&](const auto& e) { return e.second.arrives <= at; });
  }
  if (texture != nullptr) {
    ready = TexturePath(sm, at, lanes, size, *texture, l2_lines, ready);
  }
  ready = std::max(ready, pending);
  return static_cast<uint32_t>(std::ceil(ready - static_cast<double>(now)));
}

double MemoryModel::TexturePath(uint32_t sm, double at, uint32_t lanes,
                                uint64_t bytes, const TextureRead& texture,
                                uint64_t missed, double ready) {
  // The path's own latency on top of the level's.
  ready += missed == 0 ? t_.texture_hit_cycles : t_.texture_miss_cycles;
  const double per_quad =
      texture.fetch ? t_.texture_fetch_quad_cycles : t_.texture_quad_cycles;
  // Quads: groups of 4 lanes with an active one.
  uint32_t q = lanes | (lanes >> 1);
  q |= q >> 2;
  const uint32_t quads = static_cast<uint32_t>(std::popcount(q & 0x11111111u));
  const uint32_t full = t_.texture_full_rate_bytes;
  double width = full > 0 && bytes > full
                     ? static_cast<double>(bytes) / static_cast<double>(full)
                     : 1.0;
  if (texture.filtered && !texture.fetch &&
      t_.texture_filtered_full_rate_bits > 0 &&
      texture.component_bits > t_.texture_filtered_full_rate_bits) {
    width *= 2;  // a wide component filters at half rate
  }
  const double cycles =
      std::max(quads * per_quad * width,
               static_cast<double>(lines_.size()) * t_.texture_line_cycles +
                   static_cast<double>(missed) * t_.texture_miss_line_cycles);
  if (cycles <= 0) return ready;
  // The units take the reads in turn; a read's own time is in its latency.
  const double done = texture_queue_[sm].Take(at, cycles);
  return ready + std::max(0.0, done - cycles);
}

}  // namespace warpsim::sm
