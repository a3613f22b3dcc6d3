// sm/memory_model: device addresses for host memory, lines and sectors,
// cache hits and misses, hand-computed.
#include "sm/memory_model.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

namespace {

using warpsim::sm::MemoryModel;
using warpsim::sm::MemoryTiming;
using warpsim::sm::TextureRead;

MemoryTiming Small() {
  MemoryTiming t;
  t.l1_latency = 30;
  t.l2_latency = 200;
  t.dram_latency = 500;
  t.line_bytes = 128;
  t.sector_bytes = 32;
  return t;
}

// Small() without bandwidth limits: latencies and line rates alone.
MemoryTiming Unlimited() {
  MemoryTiming t = Small();
  t.l2_bytes_per_cycle_per_sm = 0;
  t.dram_bytes_per_cycle_per_sm = 0;
  return t;
}

}  // namespace

TEST_CASE("device addresses: aligned, in order of first use, not host's") {
  MemoryModel m(Small(), 1, 1);
  std::vector<uint8_t> a(1000), b(40);
  const uint64_t da = m.DeviceAddress(a.data() + 3, 997);
  const uint64_t db = m.DeviceAddress(b.data(), b.size());
  CHECK(da % MemoryModel::kDeviceAlignment == 0);
  CHECK(db % MemoryModel::kDeviceAlignment == 0);
  // b's range follows a's, rounded up to the alignment.
  CHECK(db == da + 1024);
  // A part of a block seen before is the same memory, at its offset.
  CHECK(m.DeviceAddress(a.data() + 103, 50) == da + 100);
  CHECK(m.DeviceAddress(a.data() + 3, 997) == da);
  // A block that sticks out of one seen before gets its own range.
  const uint64_t dc = m.DeviceAddress(a.data() + 900, 200);
  CHECK(dc == db + 512);
}

TEST_CASE("a warp's loads: one line per 128 bytes, the second time an L1 hit") {
  MemoryModel m(Small(), 1, 1);
  std::vector<uint8_t> buf(4096);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t addr[32];
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4 * l;  // 128 bytes
  const uint32_t miss = m.Access(0, 0, addr, ~0u, 4, false);
  CHECK(miss >= 500);  // DRAM
  CHECK(m.counters().sectors == 4);
  CHECK(m.counters().l1_misses == 1);
  CHECK(m.Access(0, 1000, addr, ~0u, 4, false) == 30);
  CHECK(m.counters().l1_hits == 1);
  // Strided by 128 bytes: 32 lines, 32 sectors.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 128 * (l % 32) % 4096;
  m.Access(0, 2000, addr, ~0u, 4, false);
  CHECK(m.counters().sectors == 4 + 4 + 32);
  // Line 0 hit the L1, the other 31 missed both levels.
  CHECK(m.counters().l1_hits == 2);
  CHECK(m.counters().l1_misses == 1 + 31);
  CHECK(m.counters().l2_misses == 1 + 31);
  // A store to line 0 goes to the L2 (a hit there), not to the L1.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4 * l;
  m.Access(0, 3000, addr, ~0u, 4, true);
  CHECK(m.counters().requests == 4);
  CHECK(m.counters().l1_hits == 2);
  CHECK(m.counters().l1_misses == 32);
  CHECK(m.counters().l2_hits == 1);
}

TEST_CASE("the L1 is sectored: a miss brings in only the sectors asked for") {
  for (const bool sectored : {true, false}) {
    MemoryTiming t = Unlimited();
    t.l1_sector_fills = sectored;
    MemoryModel m(t, 1, 1);
    std::vector<uint8_t> buf(4096);
    const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
    uint64_t addr[32];
    for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4 * (l % 8);
    m.Access(0, 0, addr, ~0u, 4, false);  // sector 0: a miss
    CHECK(m.counters().l1_misses == 1);
    // Sector 1 of the same line: sectored, a miss again (one sector from
    // the L2); whole lines, a hit.
    for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 32 + 4 * (l % 8);
    const uint32_t second = m.Access(0, 1000, addr, ~0u, 4, false);
    CHECK(second == (sectored ? 200u : 30u));
    CHECK(m.counters().l1_misses == (sectored ? 2u : 1u));
    // Sectors 0 and 1 again: hits either way.
    for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4 * (l % 16);
    CHECK(m.Access(0, 2000, addr, ~0u, 4, false) == 30);
    // Sectors 1 to 3: sectored, a miss for 2 and 3 only (2 sectors sent).
    for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 32 + 4 * (l % 24);
    const uint64_t before = m.counters().l1_misses;
    CHECK(m.Access(0, 3000, addr, ~0u, 4, false) == (sectored ? 200u : 30u));
    CHECK(m.counters().l1_misses - before == (sectored ? 1u : 0u));
  }
}

TEST_CASE(
    "lines that miss the L1 leave the SM one per l1_miss_cycles_per_line") {
  MemoryTiming t = Unlimited();
  t.l1_miss_cycles_per_line = 2;
  MemoryModel m(t, 2, 2);
  std::vector<uint8_t> buf(16384);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t addr[32];
  // One word in each of 32 lines: the first time all from DRAM, the last
  // line leaving 31 x 2 cycles after the first.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 128 * l;
  CHECK(m.Access(0, 0, addr, ~0u, 4, false) == 500 + 31 * 2);
  // Again on the other SM: L2 hits, its own requests (none waiting).
  CHECK(m.Access(1, 0, addr, ~0u, 4, false) == 200 + 31 * 2);
  // On the first SM while the lines are still on their way: hits that wait
  // for the first load's fills (the last arrives at 500 + 31 x 2).
  CHECK(m.Access(0, 100, addr, ~0u, 4, false) == 500 + 31 * 2 - 100);
  CHECK(m.counters().l1_hits == 32);
  // Once they have come: L1 hits, nothing sent.
  CHECK(m.Access(0, 600, addr, ~0u, 4, false) == 30);
  // 32 lanes in one line: one request.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4096 + 4 * l;
  CHECK(m.Access(1, 1000, addr, ~0u, 4, false) == 500);
  // A second request while the first's lines still leave: it waits.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4096 + 128 + 128 * l;
  const uint32_t first = m.Access(0, 2000, addr, ~0u, 4, false);
  CHECK(first == 500 + 31 * 2);
  for (uint32_t l = 0; l < 4; ++l) addr[l] = base + 12800 + 128 * l;
  CHECK(m.Access(0, 2001, addr, 0xfu, 4, false) ==
        (2000 + 32 * 2 + 3 * 2 + 500) - 2001);
}

TEST_CASE(
    "fragment warps' lines leave at graphics_l1_miss_cycles_per_line when it "
    "is set") {
  MemoryTiming t = Unlimited();
  t.l1_miss_cycles_per_line = 2;
  t.graphics_l1_miss_cycles_per_line = 1;
  MemoryModel m(t, 2, 2);
  std::vector<uint8_t> buf(16384);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t addr[32];
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 128 * l;
  // A graphics load: 31 x 1 cycle between the first and last line.
  CHECK(m.Access(0, 0, addr, ~0u, 4, false, true) == 500 + 31 * 1);
  // A compute load of other lines on the other SM: 31 x 2.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 8192 + 128 * l;
  CHECK(m.Access(1, 0, addr, ~0u, 4, false, false) == 500 + 31 * 2);
  // Unset (0): graphics loads use l1_miss_cycles_per_line.
  t.graphics_l1_miss_cycles_per_line = 0;
  MemoryModel plain(t, 2, 2);
  const uint64_t pbase = plain.DeviceAddress(buf.data(), buf.size());
  for (uint32_t l = 0; l < 32; ++l) addr[l] = pbase + 128 * l;
  CHECK(plain.Access(0, 0, addr, ~0u, 4, false, true) == 500 + 31 * 2);
}

TEST_CASE(
    "a hit on a line still on its way waits for its fill and is sent like a "
    "miss") {
  MemoryTiming t = Unlimited();
  t.l1_miss_cycles_per_line = 2;
  MemoryModel m(t, 1, 1);
  std::vector<uint8_t> buf(16384);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t addr[32];
  // 8 lines from DRAM at cycle 0: the last leaves at 7 x 2, arrives at 514.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 128 * (l % 8);
  CHECK(m.Access(0, 0, addr, ~0u, 4, false) == 500 + 7 * 2);
  // The same 8 lines at cycle 10: L1 hits, but the data is not there yet;
  // the 8 requests queue behind the first load's (free at 16) and the load
  // is done when the first load's last fill comes.
  CHECK(m.Access(0, 10, addr, ~0u, 4, false) == 514 - 10);
  CHECK(m.counters().l1_hits == 8);
  CHECK(m.counters().l1_misses == 8);
  // A miss at cycle 11 queues behind both: 8 + 8 lines sent before it, so
  // it leaves at 16 x 2 = 32 and its data comes 500 cycles later.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 8192;
  CHECK(m.Access(0, 11, addr, ~0u, 4, false) == 32 + 500 - 11);
}

TEST_CASE("the L2 bandwidth is the GPU's: SMs running alone share all of it") {
  MemoryTiming t = Small();
  t.l2_bytes_per_cycle_per_sm = 32;  // x 4 SMs: 128 bytes a cycle
  t.dram_bytes_per_cycle_per_sm = 0;
  MemoryModel m(t, 2, 4);
  std::vector<uint8_t> buf(65536);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t addr[32];
  auto lines = [&](uint32_t first) {
    for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 128 * (first + l);
  };
  // Lines 0..63 into the L2 (stores do not allocate in the L1).
  lines(0);
  m.Access(0, 0, addr, ~0u, 4, true);
  lines(32);
  m.Access(0, 100000, addr, ~0u, 4, true);
  // One SM alone: 32 lines of one sector each from the L2, 1024 bytes at
  // the GPU's 128 a cycle: the last sector comes 7.75 cycles after the
  // first (at one SM's 32 bytes a cycle it would be 31).
  lines(0);
  CHECK(m.Access(1, 200000, addr, ~0u, 4, false) == 200 + 8);
  // Both SMs in one cycle: the second's sectors wait for the first's.
  lines(32);
  CHECK(m.Access(0, 300000, addr, ~0u, 4, false) == 200 + 8);
  CHECK(m.Access(1, 300000, addr, ~0u, 4, false) == 200 + 16);
}

TEST_CASE(
    "a request at an earlier cycle than the queue's latest waits for its "
    "backlog only") {
  // An unrolled loop's load issued ahead (at the cycle its group's first
  // load went out) after other requests at later cycles.
  MemoryTiming t = Unlimited();
  t.l1_miss_cycles_per_line = 2;
  MemoryModel m(t, 1, 1);
  std::vector<uint8_t> buf(65536);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t addr[32];
  auto lines = [&](uint32_t first, uint32_t n) {
    for (uint32_t l = 0; l < n; ++l) addr[l] = base + 128 * (first + l);
  };
  // Lines 0..127 into the L2 (stores do not allocate in the L1).
  for (uint32_t g = 0; g < 4; ++g) {
    lines(32 * g, 32);
    m.Access(0, 10000 * g, addr, ~0u, 4, true);
  }
  // 4 lines at 100000: free from 100008.
  lines(0, 4);
  CHECK(m.Access(0, 100000, addr, 0xfu, 4, false) == 200 + 3 * 2);
  // 4 lines at 99000: they wait the 8 cycles of backlog the queue had at
  // its latest request (100000), then leave one per 2 cycles; counted
  // from 99000. (Behind the later request's lines, as an absolute queue
  // would have them, it would be 100008 + 3 * 2 + 200 - 99000 = 1214.)
  lines(4, 4);
  CHECK(m.Access(0, 99000, addr, 0xfu, 4, false) == 8 + 3 * 2 + 200);
  // A request at a later cycle again: behind both (free from 100016).
  lines(8, 4);
  CHECK(m.Access(0, 100010, addr, 0xfu, 4, false) ==
        (100016 - 100010) + 3 * 2 + 200);
}

TEST_CASE("a partitioned L2: lines past the near part come from the rest") {
  MemoryTiming t = Unlimited();
  t.l1_bytes = 128;  // one line
  t.l1_ways = 1;
  t.l2_bytes = 16 * 128;  // one set of 16 ways
  t.l2_ways = 16;
  t.l2_far_latency = 300;
  std::vector<uint8_t> buf(32 * 128);
  uint64_t addr[32] = {};
  // One lane walks 32 lines twice: the near part (16 lines, LRU) never
  // holds the next one; the whole L2 (64 lines) holds all of them.
  auto walk = [&](MemoryModel& m, uint64_t base, uint64_t now) {
    std::vector<uint32_t> out;
    for (uint32_t l = 0; l < 32; ++l) {
      addr[0] = base + 128 * l;
      out.push_back(m.Access(0, now + 1000 * l, addr, 1u, 4, false));
    }
    return out;
  };
  t.l2_far_bytes = 64 * 128;
  MemoryModel far(t, 1, 1);
  const uint64_t base = far.DeviceAddress(buf.data(), buf.size());
  for (uint32_t lat : walk(far, base, 0)) CHECK(lat == 500);
  for (uint32_t lat : walk(far, base, 100000)) CHECK(lat == 300);
  CHECK(far.counters().l2_hits == 32);
  CHECK(far.counters().l2_misses == 32);
  // Without the rest (l2_far_bytes 0) every step goes to DRAM.
  t.l2_far_bytes = 0;
  MemoryModel near(t, 1, 1);
  const uint64_t b2 = near.DeviceAddress(buf.data(), buf.size());
  for (uint32_t lat : walk(near, b2, 100000)) CHECK(lat == 500);
  for (uint32_t lat : walk(near, b2, 200000)) CHECK(lat == 500);
}

TEST_CASE("InvalidateL1 empties every SM's L1 and keeps the L2") {
  MemoryModel m(Unlimited(), 2, 2);
  std::vector<uint8_t> buf(4096);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t addr[32];
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4 * l;  // one line
  CHECK(m.Access(0, 0, addr, ~0u, 4, false) == 500);         // DRAM
  CHECK(m.Access(1, 0, addr, ~0u, 4, false) == 200);         // SM 1: the L2's
  CHECK(m.Access(0, 1000, addr, ~0u, 4, false) == 30);
  m.InvalidateL1();
  // Both SMs miss their L1 again, and find the line in the L2.
  CHECK(m.Access(0, 2000, addr, ~0u, 4, false) == 200);
  CHECK(m.Access(1, 2000, addr, ~0u, 4, false) == 200);
  CHECK(m.counters().l1_misses == 4);
  CHECK(m.counters().l2_misses == 1);
}

TEST_CASE("l2_holds_uploads: a block is in the L2 when first seen") {
  MemoryTiming t = Unlimited();
  t.l2_holds_uploads = true;
  t.l2_bytes = 4 * 128;  // 4 lines
  MemoryModel m(t, 1, 1);
  // 6 lines: the last 4 are in the L2, the first 2 are not.
  std::vector<uint8_t> buf(6 * 128);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t addr[32];
  auto line = [&](uint32_t k) {
    for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 128 * k + 4 * l;
    return m.Access(0, 0, addr, ~0u, 4, false);
  };
  CHECK(line(5) == 200);
  CHECK(line(2) == 200);
  CHECK(line(1) == 500);
  CHECK(m.counters().l2_hits == 2);
  CHECK(m.counters().l2_misses == 1);
}

TEST_CASE("the L1's data stage: a wavefront a bank's word, one per 4 lines") {
  MemoryTiming t = Unlimited();
  t.l1_wavefront_cycles = 1;  // l1_banks 32 of 4 bytes, 4 lines a wavefront
  MemoryModel m(t, 1, 1);
  std::vector<uint8_t> buf(64 * 1024);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t addr[32];
  // Lane l reads word `stride` * l; the first access brings the lines in,
  // the second, long after, hits: its latency is the L1's plus one cycle
  // for each wavefront after the first.
  auto hit = [&](uint32_t stride, uint64_t at) {
    for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4ull * stride * l;
    m.Access(0, at, addr, ~0u, 4, false);
    return m.Access(0, at + 1000, addr, ~0u, 4, false);
  };
  CHECK(hit(0, 0) == 30);       // one word for all lanes
  CHECK(hit(1, 2000) == 30);    // one line: every word in its own bank
  CHECK(hit(2, 4000) == 31);    // 2 lines, 2 words in each bank used
  CHECK(hit(8, 6000) == 37);    // 8 lines, 8 words a bank (banks 0, 8, ...)
  CHECK(hit(9, 8000) == 32);    // 9 lines (288 words), a bank each: 3
  CHECK(hit(32, 10000) == 61);  // 32 lines, all in bank 0: 32
  CHECK(hit(33, 12000) == 37);  // 32 lines, a bank each: 8 lookups
  // Two loads of 8 wavefronts at once: the second's wait for the first's
  // adds to it.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4ull * 8 * l;
  CHECK(m.Access(0, 20000, addr, ~0u, 4, false) == 37);
  CHECK(m.Access(0, 20000, addr, ~0u, 4, false) == 45);
  // A lane's 16 bytes are 4 banks' words: 32 lanes' 512 consecutive bytes
  // (4 lines) fill every bank 4 times.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 16ull * l;
  m.Access(0, 30000, addr, ~0u, 16, false);
  CHECK(m.Access(0, 31000, addr, ~0u, 16, false) == 33);
  // Stores take none: a load of lines in the L1 right after a store of
  // 32 wavefronts' words waits for no wavefront of it.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4ull * 32 * l;
  m.Access(0, 40000, addr, ~0u, 4, true);
  CHECK(m.Access(0, 40000, addr, ~0u, 4, false) == 61);
  // Nor do image reads through the texture path: the L1's latency, and
  // the next load waits for none of theirs.
  const TextureRead tex;
  CHECK(m.Access(0, 50000, addr, ~0u, 4, false, true, &tex) == 30);
  CHECK(m.Access(0, 50000, addr, ~0u, 4, false, true, &tex) == 30);
  CHECK(m.Access(0, 50000, addr, ~0u, 4, false) == 61);
}

TEST_CASE("shared memory: a wavefront a bank's word, in the L1's queue") {
  MemoryTiming t = Unlimited();
  t.shared_latency = 20;
  MemoryModel none(t, 1, 1);
  uint64_t addr[32];
  for (uint32_t l = 0; l < 32; ++l) addr[l] = 4ull * 32 * l;  // all bank 0
  // Without shared_wavefront_cycles, the latency whatever the banks.
  CHECK(none.SharedAccess(0, 0, addr, ~0u, 4) == 20);
  t.shared_wavefront_cycles = 1;
  t.l1_wavefront_cycles = 1;
  MemoryModel m(t, 1, 1);
  auto at = [&](uint32_t stride, uint64_t now, uint32_t bytes = 4) {
    for (uint32_t l = 0; l < 32; ++l) addr[l] = 4ull * stride * l;
    return m.SharedAccess(0, now, addr, ~0u, bytes);
  };
  CHECK(at(0, 0) == 20);     // one word: a broadcast
  CHECK(at(1, 100) == 20);   // a bank each
  CHECK(at(2, 200) == 21);   // 2 words a bank
  CHECK(at(8, 300) == 27);   // 8
  CHECK(at(32, 400) == 51);  // 32
  CHECK(at(33, 500) == 20);  // a bank each, 33 words apart
  // 8 bytes a lane, consecutive: 64 words, 2 in each bank.
  CHECK(at(2, 600, 8) == 21);
  // Two accesses of 8 wavefronts at once: the second waits for the
  // first's; a global load of the L1 right after them waits for both.
  CHECK(at(8, 1000) == 27);
  CHECK(at(8, 1000) == 35);
  std::vector<uint8_t> buf(4096);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4 * l;
  m.Access(0, 2000, addr, ~0u, 4, false);  // brings the line in
  at(8, 3000);
  at(8, 3000);
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4 * l;
  CHECK(m.Access(0, 3000, addr, ~0u, 4, false) == 30 + 16);
}

TEST_CASE("stores: the SM's store path, its cost by sectors and lines") {
  MemoryTiming t = Unlimited();
  t.store_sector_cycles = 1;
  t.store_line_cycles = 2;
  t.store_queue_cycles = 10;
  MemoryModel m(t, 2, 2);
  std::vector<uint8_t> buf(64 * 1024);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t addr[32];
  auto store = [&](uint32_t sm, uint32_t stride, uint64_t at) {
    for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4ull * stride * l;
    m.Access(sm, at, addr, ~0u, 4, true);
    return m.StoreThrottle();
  };
  // One line of 4 sectors: 4 + 2 = 6 cycles queued, within the 10.
  CHECK(store(0, 1, 0) == 0);
  // Right after it, 8 lines of 32 sectors (32 + 16 = 48): 54 queued, 44
  // beyond the 10.
  CHECK(store(0, 8, 0) == 44);
  // Another SM's path is its own.
  CHECK(store(1, 1, 0) == 0);
  // Long after, the path is empty again: 32 lines, 32 sectors: 96.
  CHECK(store(0, 32, 1000) == 86);
  // A load leaves the throttle at 0 and queues nothing there.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4ull * l;
  m.Access(0, 5000, addr, ~0u, 4, false);
  CHECK(m.StoreThrottle() == 0);
  CHECK(store(0, 1, 5000) == 0);
  // With no cost configured, stores queue nothing.
  MemoryModel off(Unlimited(), 1, 1);
  const uint64_t b2 = off.DeviceAddress(buf.data(), buf.size());
  for (uint32_t l = 0; l < 32; ++l) addr[l] = b2 + 4ull * 32 * l;
  for (int k = 0; k < 10; ++k) off.Access(0, 0, addr, ~0u, 4, true);
  CHECK(off.StoreThrottle() == 0);
}

TEST_CASE("stores: a line with a sector written in part costs more") {
  MemoryTiming t = Unlimited();
  t.store_partial_line_cycles = 4;  // nothing a sector or a line
  MemoryModel m(t, 1, 1);
  std::vector<uint8_t> buf(64 * 1024);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t addr[32];
  // Each store long after the one before: its own cost beyond the empty
  // path is the throttle.
  uint64_t at = 0;
  auto store = [&](auto word, uint32_t lanes = ~0u, uint32_t bytes = 4) {
    for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4ull * word(l);
    at += 10000;
    m.Access(0, at, addr, lanes, bytes, true);
    return m.StoreThrottle();
  };
  // 32 consecutive words: 4 whole sectors in one line.
  CHECK(store([](uint32_t l) { return l; }) == 0);
  // 16 words in each of 2 lines, 8 in each of 4: whole sectors.
  CHECK(store([](uint32_t l) { return (l >> 4) * 32 + (l & 15); }) == 0);
  CHECK(store([](uint32_t l) { return (l >> 3) * 32 + (l & 7); }) == 0);
  // Every other word: 8 half-written sectors in 2 lines.
  CHECK(store([](uint32_t l) { return 2 * l; }) == 8);
  // One word for every lane: a part of a sector.
  CHECK(store([](uint32_t) { return 0u; }) == 4);
  // 31 lanes: the last sector lacks a word.
  CHECK(store([](uint32_t l) { return l; }, 0x7fffffffu) == 4);
  // 8-byte lanes 8 bytes apart (each lane's second word the next lane's
  // first): whole; 16 apart: 16 sectors in 4 lines, half each.
  CHECK(store([](uint32_t l) { return 2 * l; }, ~0u, 8) == 0);
  CHECK(store([](uint32_t l) { return 4 * l; }, ~0u, 8) == 16);
}

TEST_CASE("the texture path: its latency, quads, texel widths and lines") {
  MemoryTiming t = Unlimited();
  t.texture_hit_cycles = 60;
  t.texture_miss_cycles = 45;
  t.texture_quad_cycles = 1;
  t.texture_fetch_quad_cycles = 0.5;
  t.texture_full_rate_bytes = 8;
  t.texture_filtered_full_rate_bits = 16;
  t.texture_line_cycles = 0.75;
  t.texture_miss_line_cycles = 0.25;
  MemoryModel m(t, 1, 1);
  std::vector<uint8_t> buf(64 * 1024);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t addr[32];
  // 32 lanes reading 4-byte texels of one line: 8 quads, 4 sectors.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4ull * l;
  const TextureRead sample;
  // A miss (of the L2 too): DRAM's latency and the path's miss cycles;
  // the units' 8 cycles are its own (in the latency).
  CHECK(m.Access(0, 0, addr, ~0u, 4, false, true, &sample) == 500 + 45);
  // A hit long after: the L1's and the path's hit cycles.
  CHECK(m.Access(0, 1000, addr, ~0u, 4, false, true, &sample) == 30 + 60);
  // A second read at the same cycle waits for the first's 8 cycles.
  CHECK(m.Access(0, 1000, addr, ~0u, 4, false, true, &sample) == 90 + 8);
  // A fetch's quads take half as long: 4 cycles, after the 2 reads' 16.
  TextureRead fetch;
  fetch.fetch = true;
  CHECK(m.Access(0, 1000, addr, ~0u, 4, false, true, &fetch) == 90 + 16);
  // 16-byte texels (8 lanes' in the line, each 4 times): twice a quad's
  // cycles (8 full-rate bytes), 4 times when filtered with 32-bit
  // components (above 16 bits: half rate), twice with 16-bit ones.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 16ull * (l & 7);
  CHECK(m.Access(0, 2000, addr, ~0u, 16, false, true, &sample) == 90);
  CHECK(m.Access(0, 2000, addr, ~0u, 16, false, true, &sample) == 90 + 16);
  TextureRead filtered;
  filtered.filtered = true;
  filtered.component_bits = 32;
  CHECK(m.Access(0, 3000, addr, ~0u, 16, false, true, &filtered) == 90);
  CHECK(m.Access(0, 3000, addr, ~0u, 16, false, true, &filtered) == 90 + 32);
  filtered.component_bits = 16;
  CHECK(m.Access(0, 3500, addr, ~0u, 16, false, true, &filtered) == 90);
  CHECK(m.Access(0, 3500, addr, ~0u, 16, false, true, &filtered) == 90 + 16);
  // 2 lanes of 2 quads (lanes 0 and 5): 2 cycles.
  CHECK(m.Access(0, 4000, addr, 0x21u, 4, false, true, &sample) == 90);
  CHECK(m.Access(0, 4000, addr, 0x21u, 4, false, true, &sample) == 90 + 2);
  // 32 lanes in 32 lines: 24 cycles, more than 8 quads'.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 128ull * l;
  m.Access(0, 5000, addr, ~0u, 4, false, true, &sample);  // brings them in
  CHECK(m.Access(0, 6000, addr, ~0u, 4, false, true, &sample) == 90);
  CHECK(m.Access(0, 6000, addr, ~0u, 4, false, true, &sample) == 90 + 24);
  // A buffer load of the same lines waits for no texture read.
  CHECK(m.Access(0, 6000, addr, ~0u, 4, false) == 30);
  // Lines the L1 misses cost a quarter cycle more each: two reads of 32
  // lines missed at once, the second behind the first's 32 cycles.
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 128ull * (32 + l);
  CHECK(m.Access(0, 7000, addr, ~0u, 4, false, true, &sample) == 500 + 45);
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 128ull * (64 + l);
  CHECK(m.Access(0, 7000, addr, ~0u, 4, false, true, &sample) == 500 + 45 + 32);
}

TEST_CASE("TiledTexelOffset: 16x16 tiles of texels in Z order") {
  warpsim::simt::ImageDesc img;
  img.format.bytes = 4;
  img.dim = warpsim::simt::ViewDim::k2D;
  img.width = 64;
  img.height = 64;
  img.size = 64 * 64 * 4;
  auto at = [&](uint64_t x, uint64_t y) {
    return warpsim::sm::TiledTexelOffset(img, (y * 64 + x) * 4);
  };
  CHECK(at(0, 0) == 0);
  CHECK(at(1, 0) == 4);          // x's bit 0: Z index 1
  CHECK(at(0, 1) == 8);          // y's bit 0: 2
  CHECK(at(3, 1) == 28);         // 1 + 2 + 4: the last of the first sector
  CHECK(at(4, 0) == 64);         // x's bit 2: 16, the next 2 sectors
  CHECK(at(7, 3) == 124);        // an 8x4 block is one 128-byte line
  CHECK(at(8, 0) == 256);        // x's bit 3: 64
  CHECK(at(16, 0) == 1024);      // the next tile: 256 texels on
  CHECK(at(0, 16) == 4 * 1024);  // the next row of tiles: 4 tiles on
  // A byte inside a texel stays inside it.
  CHECK(warpsim::sm::TiledTexelOffset(img, 64 * 4 + 2) == 8 + 2);
  // Not a multiple of the tile: row-major.
  img.width = 40;
  CHECK(warpsim::sm::TiledTexelOffset(img, 4 * 41) == 4 * 41);
  // A texel buffer: its offset.
  img.width = 64;
  img.dim = warpsim::simt::ViewDim::kBuffer;
  CHECK(warpsim::sm::TiledTexelOffset(img, 4 * 65) == 4 * 65);
}

// Two L2 sides (SM s on side s % 2 unless l2_side_of_sm says otherwise), a
// far level, cross-side hits at 350.
MemoryTiming TwoSides() {
  MemoryTiming t = Unlimited();
  t.l2_sides = 2;
  t.l2_cross_latency = 350;
  t.l2_far_bytes = 2 * t.l2_bytes;
  t.l2_far_latency = 450;
  return t;
}

TEST_CASE("L2 sides: a line another side read comes at l2_cross_latency") {
  MemoryModel m(TwoSides(), 3, 3);
  std::vector<uint8_t> buf(1024);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t a[32];
  for (uint32_t l = 0; l < 32; ++l) a[l] = base + 4 * l;  // one line
  CHECK(m.Access(0, 0, a, ~0u, 4, false) == 500);         // DRAM, into side 0
  CHECK(m.Access(1, 0, a, ~0u, 4, false) == 350);  // side 1: side 0's copy
  CHECK(m.Access(2, 0, a, ~0u, 4, false) == 200);  // SM 2, side 0: its own
  m.InvalidateL1();
  CHECK(m.Access(1, 1000, a, ~0u, 4, false) == 200);  // side 1 holds it now
  CHECK(m.counters().l2_hits == 3);
  CHECK(m.counters().l2_misses == 1);
  // The map puts SM 1 on side 0 beside SM 0: its first read is a near hit.
  MemoryTiming t = TwoSides();
  t.l2_side_of_sm = {0, 0, 1};
  MemoryModel mapped(t, 3, 3);
  const uint64_t b = mapped.DeviceAddress(buf.data(), buf.size());
  for (uint32_t l = 0; l < 32; ++l) a[l] = b + 4 * l;
  CHECK(mapped.Access(0, 0, a, ~0u, 4, false) == 500);
  CHECK(mapped.Access(1, 0, a, ~0u, 4, false) == 200);
  CHECK(mapped.Access(2, 0, a, ~0u, 4, false) == 350);
}

TEST_CASE("L2 sides: a store drops the other sides' copies") {
  MemoryModel m(TwoSides(), 2, 2);
  std::vector<uint8_t> buf(1024);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t a[32];
  for (uint32_t l = 0; l < 32; ++l) a[l] = base + 4 * l;
  CHECK(m.Access(0, 0, a, ~0u, 4, false) == 500);
  CHECK(m.Access(1, 0, a, ~0u, 4, false) == 350);  // both sides hold it
  m.Access(1, 100, a, ~0u, 4, true);               // SM 1 writes it
  m.InvalidateL1();
  // Side 0's copy went with the store: side 1's is the line now.
  CHECK(m.Access(0, 1000, a, ~0u, 4, false) == 350);
  CHECK(m.Access(1, 1000, a, ~0u, 4, false) == 200);
}

TEST_CASE(
    "l2_uploads_far: an upload's lines are on no side, uploads_per_run "
    "uploads them again each run") {
  MemoryTiming t = TwoSides();
  t.l2_holds_uploads = true;
  t.l2_uploads_far = true;
  t.uploads_per_run = true;
  MemoryModel m(t, 2, 2);
  std::vector<uint8_t> buf(1024);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t a[32];
  for (uint32_t l = 0; l < 32; ++l) a[l] = base + 4 * l;
  CHECK(m.Access(0, 0, a, ~0u, 4, false) == 450);  // the far level's
  CHECK(m.Access(1, 0, a, ~0u, 4, false) == 350);  // side 0 holds it now
  m.InvalidateL1();
  CHECK(m.Access(0, 1000, a, ~0u, 4, false) == 200);
  // The same run reaches the block again (a part of it): no upload.
  CHECK(m.DeviceAddress(buf.data() + 128, 64) == base + 128);
  m.InvalidateL1();
  CHECK(m.Access(0, 2000, a, ~0u, 4, false) == 200);
  // The next run: the host wrote it again, no side holds it.
  m.BeginRun();
  CHECK(m.DeviceAddress(buf.data(), buf.size()) == base);
  m.InvalidateL1();
  CHECK(m.Access(0, 3000, a, ~0u, 4, false) == 450);
  CHECK(m.Access(1, 3000, a, ~0u, 4, false) == 350);
  // Without uploads_per_run a later run finds what the earlier left.
  t.uploads_per_run = false;
  MemoryModel once(t, 2, 2);
  const uint64_t b = once.DeviceAddress(buf.data(), buf.size());
  for (uint32_t l = 0; l < 32; ++l) a[l] = b + 4 * l;
  CHECK(once.Access(0, 0, a, ~0u, 4, false) == 450);
  once.BeginRun();
  once.DeviceAddress(buf.data(), buf.size());
  once.InvalidateL1();
  CHECK(once.Access(0, 1000, a, ~0u, 4, false) == 200);
}

TEST_CASE(
    "l2_upload_latency: an upload's line comes at it on its first read, "
    "then from the reader's side") {
  MemoryTiming t = TwoSides();
  t.l2_holds_uploads = true;
  t.l2_uploads_far = true;
  t.uploads_per_run = true;
  t.l2_upload_latency = 300;
  MemoryModel m(t, 2, 2);
  std::vector<uint8_t> buf(1024);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t a[32];
  for (uint32_t l = 0; l < 32; ++l) a[l] = base + 4 * l;
  CHECK(m.Access(0, 0, a, ~0u, 4, false) == 300);  // the upload's
  CHECK(m.Access(1, 0, a, ~0u, 4, false) == 350);  // side 0 holds it now
  m.InvalidateL1();
  CHECK(m.Access(0, 1000, a, ~0u, 4, false) == 200);
  // A line SM 1 writes is no upload's any more: side 1 holds it.
  uint64_t w[32];
  for (uint32_t l = 0; l < 32; ++l) w[l] = base + 128 + 4 * l;
  m.Access(1, 1000, w, ~0u, 4, true);
  m.InvalidateL1();
  CHECK(m.Access(0, 2000, w, ~0u, 4, false) == 350);
  // The next run uploads the block again.
  m.BeginRun();
  m.DeviceAddress(buf.data(), buf.size());
  m.InvalidateL1();
  CHECK(m.Access(1, 3000, a, ~0u, 4, false) == 300);
  CHECK(m.Access(1, 3000, w, ~0u, 4, false) == 300);
  // Without l2_uploads_far the upload is on every side and the latency
  // has nothing to do.
  t.l2_uploads_far = false;
  MemoryModel near(t, 2, 2);
  const uint64_t b = near.DeviceAddress(buf.data(), buf.size());
  for (uint32_t l = 0; l < 32; ++l) a[l] = b + 4 * l;
  CHECK(near.Access(1, 0, a, ~0u, 4, false) == 200);
}

TEST_CASE(
    "l2_uploads_far: an upload larger than the L2 leaves no side a copy of "
    "any of its lines") {
  MemoryTiming t = TwoSides();
  t.l2_bytes = 4 * 1024;  // 32 lines a side
  t.l2_ways = 4;
  t.l2_far_bytes = 8 * 1024;
  t.l2_holds_uploads = true;
  t.l2_uploads_far = true;
  t.uploads_per_run = true;
  MemoryModel m(t, 2, 2);
  std::vector<uint8_t> buf(16 * 1024);  // 128 lines: four times a side
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t a[32];
  for (uint32_t l = 0; l < 32; ++l) a[l] = base + 4 * l;  // its first line
  // Not among the last lines the L2 keeps: DRAM, then on side 0.
  CHECK(m.Access(0, 0, a, ~0u, 4, false) == 500);
  m.InvalidateL1();
  CHECK(m.Access(0, 1000, a, ~0u, 4, false) == 200);
  // The next run's upload writes it again: side 0's copy is stale.
  m.BeginRun();
  m.DeviceAddress(buf.data(), buf.size());
  m.InvalidateL1();
  CHECK(m.Access(0, 2000, a, ~0u, 4, false) == 500);
  // On every side (no l2_uploads_far): the same for the lines it does not
  // keep.
  t.l2_uploads_far = false;
  MemoryModel every(t, 2, 2);
  const uint64_t b = every.DeviceAddress(buf.data(), buf.size());
  for (uint32_t l = 0; l < 32; ++l) a[l] = b + 4 * l;
  CHECK(every.Access(0, 0, a, ~0u, 4, false) == 500);
  every.InvalidateL1();
  CHECK(every.Access(0, 1000, a, ~0u, 4, false) == 200);
  every.BeginRun();
  every.DeviceAddress(buf.data(), buf.size());
  every.InvalidateL1();
  CHECK(every.Access(0, 2000, a, ~0u, 4, false) == 500);
  // Its last line is the upload's, on every side.
  for (uint32_t l = 0; l < 32; ++l) a[l] = b + buf.size() - 128 + 4 * l;
  CHECK(every.Access(1, 2000, a, ~0u, 4, false) == 200);
}

TEST_CASE(
    "upload_dram_share: that share of an upload's lines is in DRAM only, "
    "the same lines every run") {
  MemoryTiming t = TwoSides();
  t.l2_holds_uploads = true;
  t.l2_uploads_far = true;
  t.uploads_per_run = true;
  t.l2_upload_latency = 300;
  t.upload_dram_share = 0.25;
  MemoryModel m(t, 2, 2);
  std::vector<uint8_t> buf(4096 * 128);  // 4096 lines
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  std::vector<uint32_t> first;
  uint32_t dram = 0;
  uint64_t a[32];
  for (uint64_t line = 0; line < 4096; ++line) {
    for (uint32_t l = 0; l < 32; ++l) a[l] = base + line * 128 + 4 * l;
    const uint32_t c = m.Access(0, line * 1000, a, ~0u, 4, false);
    CHECK((c == 300 || c == 500));  // the upload's, or DRAM's
    dram += c == 500;
    first.push_back(c);
  }
  // A quarter, within what 4096 independent draws give (sd 28 lines).
  CHECK(dram > 1024 - 120);
  CHECK(dram < 1024 + 120);
  // The next run uploads the block again: the same lines in DRAM.
  m.BeginRun();
  m.DeviceAddress(buf.data(), buf.size());
  m.InvalidateL1();
  for (uint64_t line = 0; line < 4096; line += 97) {
    for (uint32_t l = 0; l < 32; ++l) a[l] = base + line * 128 + 4 * l;
    CHECK(m.Access(1, 10000000 + line, a, ~0u, 4, false) == first[line]);
  }
}

TEST_CASE("LineCache: hashed sets keep lines a multiple of the sets apart") {
  using warpsim::sm::LineCache;
  // 48 lines of 128 bytes, 4 ways: 12 sets.
  constexpr uint64_t kBytes = 48 * 128;
  // Eight lines 768 apart (a multiple of the set count): modulo sets put
  // all in set 0, whose 4 ways keep the last four; hashed sets spread them
  // (over 5 sets, none holding more than 2: the windows' turns).
  std::vector<uint64_t> lines;
  for (uint64_t i = 0; i < 8; ++i) lines.push_back(i * 768);
  LineCache modulo(kBytes, 128, 4), hashed(kBytes, 128, 4, true);
  for (uint64_t l : lines) {
    CHECK_FALSE(modulo.Access(l, true));
    CHECK_FALSE(hashed.Access(l, true));
  }
  int modulo_hits = 0, hashed_hits = 0;
  for (uint64_t l : lines) {
    modulo_hits += modulo.Access(l, false);
    hashed_hits += hashed.Access(l, false);
  }
  CHECK(modulo_hits == 4);
  CHECK(hashed_hits == 8);
  // 48 neighbouring lines from a window's start (line 1200 = 100 * 12):
  // each window of 12 takes the 12 sets, so all 48 stay.
  LineCache whole(kBytes, 128, 4, true);
  for (uint64_t l = 1200; l < 1248; ++l) CHECK_FALSE(whole.Access(l, true));
  int whole_hits = 0;
  for (uint64_t l = 1200; l < 1248; ++l) whole_hits += whole.Access(l, false);
  CHECK(whole_hits == 48);
}

TEST_CASE("past_l1: a coherent load neither finds nor leaves lines in L1") {
  MemoryModel m(Unlimited(), 1, 1);
  std::vector<uint8_t> buf(4096);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  uint64_t addr[32];
  for (uint32_t l = 0; l < 32; ++l) addr[l] = base + 4 * l;  // one line
  const bool kPastL1 = true;
  CHECK(m.Access(0, 0, addr, ~0u, 4, false, false, nullptr, kPastL1) == 500);
  // Read again past the L1: the L2's line, not an L1 hit.
  CHECK(m.Access(0, 1000, addr, ~0u, 4, false, false, nullptr, kPastL1) == 200);
  // A plain load finds nothing in the L1 either (the coherent loads kept
  // nothing there), then keeps the line: the next plain load hits.
  CHECK(m.Access(0, 2000, addr, ~0u, 4, false) == 200);
  CHECK(m.Access(0, 3000, addr, ~0u, 4, false) == 30);
  // A coherent load of a line the L1 holds still goes to the L2.
  CHECK(m.Access(0, 4000, addr, ~0u, 4, false, false, nullptr, kPastL1) == 200);
  CHECK(m.counters().l1_hits == 1);
  CHECK(m.counters().l1_misses == 4);
}

TEST_CASE("translation: a region's first access on an SM waits for it") {
  MemoryTiming t = Unlimited();
  t.translation_region_bytes = 1 << 20;
  t.translation_miss_cycles = 300;
  t.translation_per_run = true;
  MemoryModel m(t, 2, 2);
  std::vector<uint8_t> buf(3 << 20);
  const uint64_t base = m.DeviceAddress(buf.data(), buf.size());
  // The region of the buffer's first line, and one 1 MB further.
  const uint64_t region = (base >> 20) << 20;
  uint64_t addr[32];
  auto at = [&](uint64_t a) {
    for (uint32_t l = 0; l < 32; ++l) addr[l] = a + 4 * l;  // one line
    return addr;
  };
  // The first access of the region: DRAM and the translation.
  CHECK(m.Access(0, 0, at(region + 1024), ~0u, 4, false) == 500 + 300);
  // Another line of it, once translated: the L2 or DRAM alone.
  CHECK(m.Access(0, 1000, at(region + 4096), ~0u, 4, false) == 500);
  // While a region's translation is on its way, its other accesses wait
  // for what is left of it.
  CHECK(m.Access(0, 2000, at(region + (1 << 20)), ~0u, 4, false) == 800);
  CHECK(m.Access(0, 2100, at(region + (1 << 20) + 512), ~0u, 4, false) ==
        500 + 200);
  // The other SM translates for itself.
  CHECK(m.Access(1, 3000, at(region + 1024), ~0u, 4, false) == 200 + 300);
  CHECK(m.counters().translation_misses == 3);
  // A new run starts with none translated.
  m.BeginRun();
  CHECK(m.Access(0, 4000, at(region + 4096), ~0u, 4, false) == 30 + 300);
  CHECK(m.counters().translation_misses == 4);
  // Without translation_per_run, the SM keeps them.
  t.translation_per_run = false;
  MemoryModel k(t, 1, 1);
  const uint64_t kb = k.DeviceAddress(buf.data(), buf.size());
  const uint64_t kr = (kb >> 20) << 20;
  CHECK(k.Access(0, 0, at(kr + 1024), ~0u, 4, false) == 800);
  k.BeginRun();
  CHECK(k.Access(0, 1000, at(kr + 4096), ~0u, 4, false) == 500);
}
