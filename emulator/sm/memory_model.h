// The timing model's memory hierarchy: per-SM L1 caches, one L2, DRAM.
//
// It answers one question per warp memory instruction: in how many cycles
// is the data there? The lanes' byte addresses (device addresses that
// DeviceAddress() gives the emulator's host memory) are grouped into
// lines of line_bytes and sectors of sector_bytes. Each distinct line is looked
// up in the SM's L1 (set associative, least recently used; loads allocate,
// and with l1_sector_fills bring in only the sectors they asked for, so
// that a later load of the line's other sectors misses for those; stores
// write through without allocating), then in the L2 (the same kind
// of cache, shared by all SMs, allocating on loads and stores), then in
// the rest of a partitioned L2 (l2_far_bytes, the same again), then
// DRAM. The instruction's latency is the slowest line's hit latency; the
// lines that miss the L1 leave the SM one after the other
// (l1_miss_cycles_per_line), their sectors queue on the GPU's L2
// bandwidth, those that miss the L2 on its DRAM bandwidth (both shared
// by all SMs: the SMs that run get what the idle ones leave), and the
// queueing delay adds to the latency. A load's data leaves the L1 in
// wavefronts, one every l1_wavefront_cycles per SM, as many as its lanes'
// words pile up in one bank of the L1 or its lines fill
// l1_lines_per_wavefront lookups; the wait for the last one adds too.
// (Stores need no answer: nothing waits for them, but they use
// bandwidth.)
#ifndef WARPSIM_SM_MEMORY_MODEL_H_
#define WARPSIM_SM_MEMORY_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "simt/image.h"
#include "sm/timing_config.h"

namespace warpsim::sm {

// A set-associative cache of lines with least-recently-used replacement;
// only tags (the data lives in the emulator's memory).
class LineCache {
 public:
  // With `hashed`, a line's set mixes in its higher bits
  // (MemoryTiming::l1_hashed_sets); else it is the line modulo the sets.
  LineCache(uint64_t bytes, uint32_t line_bytes, uint32_t ways,
            bool hashed = false);
  // Looks up `line` (address / line_bytes); returns whether it hit. With
  // `allocate`, a miss brings the line in.
  bool Access(uint64_t line, bool allocate);
  // A sectored cache: looks up the sectors `want` (bit i: sector i of the
  // line, 8 at most) of `line`; returns those of them it held. With
  // `allocate`, they are brought in (the line's tag too, on a miss: its
  // other sectors stay empty until asked for).
  uint32_t AccessSectors(uint64_t line, uint32_t want, bool allocate);
  // Drops `line` if held.
  void Invalidate(uint64_t line);
  // Drops every line in [first, last] it holds (line by line, or through
  // its entries when the range is longer than the cache).
  void InvalidateRange(uint64_t first, uint64_t last);
  void Clear();

 private:
  // Per set and way: {line + 1 (0: empty) with the sectors held in the top
  // 8 bits (AccessSectors), last use (for LRU)}. Allocated
  // zeroed on first use with calloc, whose fresh pages the system maps
  // only when touched: a GPU's caches are tens of megabytes, and a run
  // that touches a few sets (or an SM that runs nothing) pays for those.
  struct Free {
    void operator()(uint64_t* p) const;
  };
  uint64_t SetOf(uint64_t line) const;
  uint32_t ways_;
  uint64_t sets_;
  bool hashed_ = false;  // MemoryTiming::l1_hashed_sets
  std::unique_ptr<uint64_t[], Free> entries_;
  uint64_t clock_ = 0;
};

// Counts of what the accesses did, for reports.
struct MemoryCounters {
  uint64_t requests = 0;  // warp instructions
  uint64_t sectors = 0;
  uint64_t l1_hits = 0, l1_misses = 0;  // lines of loads
  uint64_t l2_hits = 0, l2_misses = 0;  // lines of loads and stores
  // The L1's data wavefronts of the loads (MemoryTiming::l1_wavefront_cycles;
  // 0 without it): requests' worth, and more where their words pile up in
  // a bank or their lines are many.
  uint64_t wavefronts = 0;
  // Workgroup (shared) memory: warp instructions, and their wavefronts
  // (MemoryTiming::shared_wavefront_cycles; 0 without it): more than the
  // requests where their words pile up in a bank (bank conflicts).
  uint64_t shared_requests = 0, shared_wavefronts = 0;
  // Regions an SM translated first (MemoryTiming::translation_region_bytes).
  uint64_t translation_misses = 0;
  // What happened since `base` (an earlier copy of the same counters).
  MemoryCounters operator-(const MemoryCounters& base) const {
    MemoryCounters d;
    d.requests = requests - base.requests;
    d.sectors = sectors - base.sectors;
    d.l1_hits = l1_hits - base.l1_hits;
    d.l1_misses = l1_misses - base.l1_misses;
    d.l2_hits = l2_hits - base.l2_hits;
    d.l2_misses = l2_misses - base.l2_misses;
    d.wavefronts = wavefronts - base.wavefronts;
    d.shared_requests = shared_requests - base.shared_requests;
    d.shared_wavefronts = shared_wavefronts - base.shared_wavefronts;
    d.translation_misses = translation_misses - base.translation_misses;
    return d;
  }
};

// Where a texel lies in the GPU's memory, as the offset `linear` (an
// image's row-major layout, simt::ImageDesc::TexelOffset) moved to a tiled
// layout: each level whose width and height are multiples of
// kTexelTile is cut into kTexelTile x kTexelTile tiles, row by row, and a
// tile's texels are in Z order (x and y's bits interleaved, x's first), so
// that a 128-byte line of 4-byte texels is an 8x4 block and a 32-byte
// sector a 4x2 one (GPUs lay textures out in 2D blocks; the texture
// path's caches fetch them). Other levels, 1D images and texel buffers
// keep the row-major offset.
inline constexpr uint32_t kTexelTile = 16;
uint64_t TiledTexelOffset(const simt::ImageDesc& image, uint64_t linear);

// An image read through the texture path (MemoryModel::Access).
struct TextureRead {
  bool fetch = false;           // a texel fetch or image load: no sampler
  bool filtered = false;        // a linear filter blended the lanes' texels
  uint32_t component_bits = 0;  // the format's widest component
};

class MemoryModel {
 public:
  // `sms`: the SMs that access memory (numbered 0..sms-1);
  // `bandwidth_sms`: the GPU's SMs, whose per-SM shares of the L2 and DRAM
  // bandwidth (MemoryTiming) make up the GPU's total.
  MemoryModel(const MemoryTiming& timing, uint32_t sms, uint32_t bandwidth_sms);
  // A global-memory access by SM `sm` at cycle `now`: `addresses[l]` for
  // the lanes in `lanes`, each `bytes` long; `graphics`: by a vertex or
  // fragment warp (MemoryTiming::graphics_l1_miss_cycles_per_line);
  // `texture`: an image read through the texture path, whose data takes
  // no L1 wavefronts (MemoryTiming::l1_wavefront_cycles: measured for
  // buffer loads only) but the texture units' time and latency
  // (MemoryTiming::texture_*). Returns the cycles until a load's data is ready
  // (stores: how long the request occupies memory, which nothing waits
  // for).
  // After a store's Access: the cycles its SM's store path holds more
  // than MemoryTiming::store_queue_cycles of work (0: within it, or not a
  // store).
  uint32_t StoreThrottle() const { return store_throttle_; }
  // `past_l1`: a load that neither looks in the SM's L1 nor leaves its
  // lines there (MemoryTiming::coherent_bypasses_l1): every line is a miss.
  uint32_t Access(uint32_t sm, uint64_t now, const uint64_t* addresses,
                  uint32_t lanes, uint32_t bytes, bool store,
                  bool graphics = false, const TextureRead* texture = nullptr,
                  bool past_l1 = false);
  // A workgroup (shared) memory load or store by SM `sm` at cycle `now`:
  // `addresses[l]` (offsets in the workgroup's memory) for the lanes in
  // `lanes`, each `bytes` long. Returns the cycles until a load's data is
  // ready: shared_latency, and with shared_wavefront_cycles one more
  // wavefront for each further word in the fullest bank and the wait for
  // the SM's earlier wavefronts (the L1's, one array).
  uint32_t SharedAccess(uint32_t sm, uint64_t now, const uint64_t* addresses,
                        uint32_t lanes, uint32_t bytes);
  const MemoryCounters& counters() const { return counters_; }
  // Empties every SM's L1 and forgets its fills on their way (between
  // runs, when no warp waits for them: MemoryTiming::l1_invalidated_per_run);
  // the L2 keeps its lines.
  void InvalidateL1();
  // A draw or dispatch begins: with MemoryTiming::uploads_per_run, the
  // blocks it reaches are uploaded again (DeviceAddress).
  void BeginRun();
  // The device address of host memory [host, host + size): each block of
  // host memory first seen gets the next free device range, aligned to
  // kDeviceAlignment bytes as a driver aligns allocations, so that cache
  // sets, lines and sectors do not depend on where the host's allocator
  // put the data (which changes with unrelated options). A block inside
  // one seen before is the same memory (one buffer bound twice, or a
  // part of it), at the same offset; one that overlaps a block seen
  // before without being inside it gets a range of its own.
  // With MemoryTiming::l2_holds_uploads, a block first seen (and, with
  // uploads_per_run, one first reached in a run) is brought into the L2
  // (its last lines, as many as the L2 holds): on every side, or with
  // l2_uploads_far on none (every side's copies of all its lines dropped),
  // and with l2_upload_latency where a first read finds them at that
  // latency.
  uint64_t DeviceAddress(const void* host, uint64_t size);
  static constexpr uint64_t kDeviceAlignment = 512;

 private:
  struct Block {
    uint64_t end;     // host
    uint64_t device;  // the device address of the block's first byte
    uint64_t run;     // the run (BeginRun) it was last uploaded in
  };
  uint64_t run_ = 0;
  // Brings the block's lines into the L2 as an upload does.
  void Upload(const Block& b, uint64_t host_begin);
  // Whether an upload leaves `line` in DRAM only, with chance `share`
  // (MemoryTiming::upload_dram_share; the same line always the same).
  static bool InDram(uint64_t line, double share);
  std::map<uint64_t, Block> blocks_;  // by first host address
  uint64_t next_device_ = uint64_t{1} << 32;
  MemoryTiming t_;
  std::vector<LineCache> l1_;
  std::vector<LineCache> l2_;   // per side (MemoryTiming::l2_sides)
  std::vector<uint32_t> side_;  // per SM, its side
  LineCache l2_far_;            // MemoryTiming::l2_far_bytes (unused when 0)
  // The lines uploads placed on no side, while no side has read them
  // (MemoryTiming::l2_upload_latency; unused when 0).
  LineCache l2_uploaded_;
  uint32_t bandwidth_sms_;
  // A bandwidth: the cycle from which it is free again (fractional: bytes
  // per cycle need not be whole) and the latest cycle a request came at.
  // A request may come at an earlier cycle than one before it (a load the
  // timing model issues ahead, in NVIDIA's unrolled code, of where the
  // emulator runs it): it waits for the backlog there was at the latest,
  // not behind the later requests.
  struct Queue {
    double free = 0;
    double latest = 0;
    // Queues `cycles` of work coming at `at`; returns the cycle, counted
    // from `at`, at which the work is done.
    double Take(double at, double cycles);
  };
  Queue l2_queue_, dram_queue_;
  // Per SM: when it can send the L2 another line
  // (MemoryTiming::l1_miss_cycles_per_line).
  std::vector<Queue> request_queue_;
  // Per SM: when its L1's data stage can deliver the next wavefront
  // (MemoryTiming::l1_wavefront_cycles).
  std::vector<Queue> data_queue_;
  // Per SM: when its store path has sent the stores queued so far
  // (MemoryTiming::store_sector_cycles, store_line_cycles).
  std::vector<Queue> store_queue_;
  // Per SM: when its texture units can take the next read
  // (MemoryTiming::texture_quad_cycles).
  std::vector<Queue> texture_queue_;
  uint32_t store_throttle_ = 0;  // of the last store (StoreThrottle())
  // The lines of a store of `lanes` (`bytes` each at `addresses`, its
  // sectors being sectors_) with a sector it writes in part.
  uint32_t PartialLines(const uint64_t* addresses, uint32_t lanes,
                        uint64_t bytes);
  std::vector<std::pair<uint64_t, uint64_t>> spans_;  // PartialLines'
  // A texture read's (Access, whose lines_ it counts; `missed` of them
  // missed the L1): `ready` plus the path's latency (texture_hit_cycles
  // when none missed, texture_miss_cycles) and the wait behind the SM's
  // earlier reads in its texture units.
  double TexturePath(uint32_t sm, double at, uint32_t lanes, uint64_t bytes,
                     const TextureRead& texture, uint64_t missed, double ready);
  // The wavefronts a load of `lanes` (`bytes` each at `addresses`) takes
  // in the L1's data stage, its distinct lines being lines_.
  uint32_t Wavefronts(const uint64_t* addresses, uint32_t lanes,
                      uint64_t bytes);
  // The most distinct words of the access in one bank (l1_banks of
  // l1_bank_bytes).
  uint32_t BankWords(const uint64_t* addresses, uint32_t lanes, uint64_t bytes);
  // Per SM: the L1 lines whose fills are on their way, each with the
  // cycle its data arrives and the sectors coming. A load of a line the
  // L1 has asked the L2 for waits for the data, not the L1's latency.
  struct Fill {
    double arrives = 0;
    uint32_t sectors = 0;
  };
  std::vector<std::unordered_map<uint64_t, Fill>> fills_;
  // Per SM: the regions it has translated (MemoryTiming::
  // translation_region_bytes), each with the cycle its translation is
  // done.
  std::vector<std::unordered_map<uint64_t, double>> translated_;
  // The cycles from `at` until SM `sm` has translated every region of
  // lines_ (starting the translation of those it has not).
  double Translate(uint32_t sm, double at);
  MemoryCounters counters_;
  std::vector<uint64_t> lines_, sectors_, words_;      // scratch
  std::vector<uint32_t> bank_words_;                   // scratch
  std::vector<std::pair<uint64_t, uint32_t>> filled_;  // scratch
};

}  // namespace warpsim::sm

#endif  // WARPSIM_SM_MEMORY_MODEL_H_
