// The SM timing model, part 1: residency (placing items on SMs, register
// ranges), the cycle loop, retiring, counters (timing_impl.h).
#include <algorithm>
#include <bit>
#include <cmath>
#include <deque>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/bits.h"
#include "simt/disasm.h"
#include "sm/timing_impl.h"

namespace warpsim::sm {

using namespace internal;  // NOLINT: the model's own internals

TimingModel::Impl::Impl(const TimingConfig& c, const SmLimits& l,
                        uint32_t min_registers, trace::Trace* t)
    : config(c),
      limits(l),
      min_regs(min_registers),
      trace(t),
      memory(c.memory, std::max({1u, c.sms, c.graphics_sms}),
             std::max(c.sms, c.graphics_sms)) {
  const uint32_t n = std::max({1u, c.sms, c.graphics_sms});
  const uint32_t parts = std::max(1u, l.sub_partitions);
  slots_per_sp = std::max(1u, l.max_warps_per_sm / parts);
  regs_per_sp = l.registers_per_sm / parts;
  pipe_timing.fill(&config.alu);  // (kNone and kAlu)
  pipe_timing[static_cast<size_t>(simt::Pipe::kFma)] = &config.fma;
  pipe_timing[static_cast<size_t>(simt::Pipe::kFp64)] = &config.fp64;
  pipe_timing[static_cast<size_t>(simt::Pipe::kSfu)] = &config.sfu;
  pipe_timing[static_cast<size_t>(simt::Pipe::kLsu)] = &config.lsu;
  pipe_timing[static_cast<size_t>(simt::Pipe::kTex)] = &config.tex;
  pipe_timing[static_cast<size_t>(simt::Pipe::kBranch)] = &config.branch;
  pipe_timing[static_cast<size_t>(simt::Pipe::kSync)] = &config.sync;
  sms.resize(n);
  for (Sm& sm : sms) {
    sm.sp.resize(parts);
    sm.empty_sps = parts;
    for (SubPartition& sp : sm.sp) {
      sp.states.resize(slots_per_sp);
      sp.slots.assign(slots_per_sp, nullptr);
      sp.slot_ptr = sp.slots.data();
      sp.free = {{0u, regs_per_sp}};
      if (c.icache_bytes > 0) {
        sp.icache = std::make_unique<InstructionCache>();
        const uint64_t lines =
            std::max<uint64_t>(1, c.icache_bytes / c.icache_line_bytes);
        // (Sets: a power of two, the most that fit.)
        const uint64_t sets =
            std::bit_floor(std::max<uint64_t>(1, lines / c.icache_ways));
        sp.icache->set_mask = sets - 1;
        sp.icache->tags.assign(sets * c.icache_ways, ~uint64_t{0});
        sp.icache->stamps.assign(sets * c.icache_ways, 0);
      }
    }
  }
  if (trace != nullptr) {
    trace->clock_mhz = c.clock_mhz;
    trace->sms = n;
    trace->sub_partitions = parts;
    trace->slots_per_sub_partition = slots_per_sp;
    trace->registers_per_sub_partition = regs_per_sp;
  }
}

void TimingModel::Impl::UpdateActive() {
  active_sms.clear();
  for (uint32_t s = 0; s < sms.size(); ++s) {
    if (sms[s].warps != 0) active_sms.push_back(s);
  }
}

uint32_t TimingModel::Impl::RegsPerThread(
    const pipeline::WorkItem& item) const {
  uint32_t set = 0;
  switch (item.kind) {
    case pipeline::WorkKind::kVertexBatch:
      set = registers.vertex;
      break;
    case pipeline::WorkKind::kFragment:
      set = registers.fragment;
      break;
    case pipeline::WorkKind::kComputeWorkgroup:
      set = registers.compute;
      break;
  }
  if (set != 0) return set;
  if (item.warps.empty()) return min_regs;
  // The register model's estimate of NVIDIA's count (the report's
  // registers_per_thread), not the emulator's own allocation.
  const simt::Program& p = item.warps[0]->program();
  return std::max(min_regs, p.model_regs != 0 ? p.model_regs : p.num_regs);
}

// Places every warp of `item` on SM `s`, or nothing; false when it does
// not fit.
bool TimingModel::Impl::Place(ItemState& st, uint32_t s) {
  Sm& sm = sms[s];
  const pipeline::WorkItem& item = *st.item;
  const uint32_t nwarps = static_cast<uint32_t>(item.warps.size());
  if (sm.warps + nwarps > limits.max_warps_per_sm) return false;
  if (st.block && sm.blocks + 1 > limits.max_blocks_per_sm) return false;
  if (st.shared_bytes != 0 &&
      sm.shared + st.shared_bytes > limits.shared_memory_per_sm) {
    return false;
  }
  const uint32_t regs = RegsPerThread(item);
  const uint32_t per_warp =
      RoundUp(regs * limits.warp_size, limits.register_allocation_unit);
  // Try the allocation on copies: all or nothing.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> free;
  std::vector<uint32_t> slots_free;
  for (const SubPartition& sp : sm.sp) {
    free.push_back(sp.free);
    slots_free.push_back(slots_per_sp - sp.resident);
  }
  struct Spot {
    uint32_t sp, first;
  };
  std::vector<Spot> spots;
  for (uint32_t w = 0; w < nwarps; ++w) {
    // The sub-partition with the most free slots that has the registers
    // (ties: the lowest), so that a block's warps spread over all four.
    int best = -1;
    for (uint32_t p = 0; p < sm.sp.size(); ++p) {
      if (slots_free[p] == 0) continue;
      uint32_t largest = 0;
      for (const auto& r : free[p]) largest = std::max(largest, r.second);
      if (largest < per_warp) continue;
      if (best < 0 || slots_free[p] > slots_free[best]) {
        best = static_cast<int>(p);
      }
    }
    if (best < 0) return false;
    const uint32_t first = Allocate(free[best], per_warp);
    --slots_free[best];
    spots.push_back({static_cast<uint32_t>(best), first});
  }
  // Commit.
  st.sm = s;
  st.warps_left = nwarps;
  st.warps.resize(nwarps);
  sm.warps += nwarps;
  if (item.kind == pipeline::WorkKind::kFragment) sm.fragment_warps += nwarps;
  if (st.block) sm.blocks += 1;
  sm.shared += st.shared_bytes;
  for (uint32_t w = 0; w < nwarps; ++w) {
    SubPartition& sp = sm.sp[spots[w].sp];
    sp.free = free[spots[w].sp];
    uint32_t slot = 0;
    while (sp.slots[slot] != nullptr) ++slot;
    WarpState& ws = sp.states[slot];
    {
      // A fresh state; the scoreboard's and loop counts' storage is reused.
      std::vector<uint64_t> ready = std::move(ws.ready);
      std::vector<uint32_t> loop_counts = std::move(ws.loop_counts);
      ws = WarpState{};
      ws.ready = std::move(ready);
      ws.loop_counts = std::move(loop_counts);
    }
    st.warps[w] = &ws;
    ws.warp = item.warps[w].get();
    ws.item = &st;
    ws.index = w;
    ws.sm = s;
    ws.sp = spots[w].sp;
    ws.slot = slot;
    ws.id = next_warp_id++;
    sp.age[sp.resident] = static_cast<uint8_t>(slot);  // the youngest
    ws.reg_first = spots[w].first;
    ws.reg_count = per_warp;
    ws.regs_per_thread = regs;
    const simt::Program& prog = ws.warp->program();
    ws.info = &Info(prog);
    ws.ready.assign(prog.num_regs + prog.const_values.size(),
                    ReadyWord(0, StallReason::kWait));
    ws.loop_counts.assign(2 * prog.unrolled_loops.size(), 0);
    ws.private_ready.clear();
    ws.private_latest = 0;
    if (!prog.ahead_loads.empty()) {
      ws.ahead_at.assign(prog.unrolled_loops.size(), 0);
      ws.ahead_group.assign(prog.unrolled_loops.size(), 0);
    }
    if (config.predicate_latency > 0 && !prog.loop_tests.empty()) {
      ws.loop_tests = prog.loop_tests.data();
      ws.loop_tests_size = static_cast<uint32_t>(prog.loop_tests.size());
      ws.loop_top.assign(prog.loops.size(), 0);
      if (config.loop_control_in_bubbles) {
        ws.loop_top_issues.assign(prog.loops.size(), 0);
        ws.loop_top_fills.assign(prog.loops.size(), 0);
        ws.loop_top_held.assign(prog.loops.size(), 0);
      }
    }
    if (!prog.unrolled_loops.empty()) {
      ws.loop_control = prog.loop_control.data();
      ws.loop_control_size = static_cast<uint32_t>(prog.loop_control.size());
    }
    if (sp.icache != nullptr) {
      const CodeLayout& code = Code(prog, *ws.info);
      ws.code_base = code.base;
      ws.code_end = code.end;
      ws.code_offset = code.offset.data();
    }
    ws.next_issue = now;
    if (config.fragment_warp_cycles > 0 &&
        item.kind == pipeline::WorkKind::kFragment) {
      // The SM's work to start a fragment warp (and to finish it) takes
      // its sub-partition for these cycles: no warp there issues, and the
      // new one starts after them.
      sp.launch_busy =
          std::max(sp.launch_busy, now) + config.fragment_warp_cycles;
      sp.HoldIssue(sp.launch_busy, config.fragment_warp_cycles);
      ws.next_issue = sp.launch_busy;
      ws.next_issue_reason = StallReason::kNoInstruction;
    }
    ws.begin = now;
    ws.since = now;
    ws.done = ws.warp->done();
    sp.slots[slot] = &ws;
    sp.list.insert(std::lower_bound(sp.list.begin(), sp.list.end(), &ws,
                                    [](const WarpState* a, const WarpState* b) {
                                      return a->slot < b->slot;
                                    }),
                   &ws);
    if (sp.resident == 0) sm.empty_sps -= 1;
    sp.resident += 1;
    sp.wake = 0;
    sm.registers += per_warp;
    sm.stats.peak_registers = std::max(sm.stats.peak_registers, sm.registers);
    sm.stats.peak_warps = std::max(sm.stats.peak_warps, sm.warps);
    // (Two-level: RefillPool() admits it.)
    ws.in_pool = config.scheduler != SchedulerPolicy::kTwoLevel;
    if (ws.in_pool) sp.pool |= uint64_t{1} << slot;
    Refresh(ws);
    if (trace != nullptr && trace->detail != trace::Detail::kSummary) {
      trace->registers.push_back(
          {now, s, ws.sp, ws.id, ws.reg_first, ws.reg_count, true});
      trace::WarpSpan span;
      span.sm = s;
      span.sub_partition = ws.sp;
      span.slot = slot;
      span.warp = ws.id;
      span.begin = now;
      span.end = trace::kStillResident;
      span.stage = StageOf(item.kind);
      span.run = static_cast<uint32_t>(trace->runs.size() - 1);  // Drain's
      span.label = item.Where(w);
      if (span.label.empty()) {
        span.label = std::string(pipeline::WorkKindName(item.kind)) + " item " +
                     std::to_string(item.id);
      }
      span.registers = regs;
      ws.shader = ShaderOf(ws);
      span.shader = ws.shader;
      ws.span = trace->warps.size();
      trace->warps.push_back(std::move(span));
      const size_t first_quad = quad_scratch.size();
      item.Quads(w, &quad_scratch);
      for (size_t q = first_quad; q < quad_scratch.size(); ++q) {
        const pipeline::QuadFootprint& f = quad_scratch[q];
        trace->quads.push_back({ws.id, f.x, f.y, f.coverage, f.primitive});
      }
      quad_scratch.clear();
    }
  }
  sm.used_in_run = true;
  return true;
}

uint32_t TimingModel::Impl::ShaderOf(const WarpState& w) {
  const simt::Program* program = &w.warp->program();
  for (const auto& [p, index] : shaders) {
    if (p == program) return index;
  }
  trace::ShaderInfo info;
  info.stage = StageOf(w.item->item->kind);
  info.name =
      (trace->runs.empty() ? std::string("run") : trace->runs.back().name) +
      " " + std::string(trace::StageName(info.stage));
  info.lines.reserve(program->code.size());
  for (uint32_t i = 0; i < program->code.size(); ++i) {
    info.lines.push_back(simt::InstructionText(*program, i));
  }
  if (!program->source_text.empty()) {
    info.source = program->source_text;
    info.source_lines = program->source_lines;
  }
  const auto index = static_cast<uint32_t>(trace->shaders.size());
  trace->shaders.push_back(std::move(info));
  shaders.push_back({program, index});
  return index;
}

// Two-level scheduling: the active pool takes the oldest warps outside
// it while it has fewer than two_level_active.
void TimingModel::Impl::RefillPool(SubPartition& sp) {
  uint32_t n = 0;
  for (const WarpState* w : sp.slots) {
    if (w != nullptr && !w->done && w->in_pool) ++n;
  }
  while (n < std::max(1u, config.two_level_active)) {
    WarpState* oldest = nullptr;
    for (WarpState* w : sp.slots) {
      if (w != nullptr && !w->done && !w->in_pool &&
          (oldest == nullptr || w->id < oldest->id)) {
        oldest = w;
      }
    }
    if (oldest == nullptr) return;
    oldest->in_pool = true;
    sp.pool |= uint64_t{1} << oldest->slot;
    ++n;
  }
}

// Tries to make `st` resident: compute workgroups on the next SM in
// round-robin order that has room, graphics warps on the graphics SM
// with the fewest resident warps that has room (not in `skip`), a
// fragment warp of a tile with resident warps on the tile's SM.
bool TimingModel::Impl::TryLaunch(ItemState& st,
                                  const std::vector<char>* skip) {
  const bool graphics = st.item->kind != pipeline::WorkKind::kComputeWorkgroup;
  if (graphics) {
    if (st.tile != internal::kNoTile) {
      if (const auto home = tile_home.find(st.tile); home != tile_home.end()) {
        if (skip != nullptr && (*skip)[home->second.sm] != 0) return false;
        if (!Place(st, home->second.sm)) return false;
        home->second.warps += static_cast<uint32_t>(st.warps.size());
        return true;
      }
    }
    const uint32_t n =
        std::max(1u, std::min<uint32_t>(config.graphics_sms,
                                        static_cast<uint32_t>(sms.size())));
    std::vector<uint32_t> order;
    order.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      if (skip == nullptr || (*skip)[i] == 0) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return sms[a].warps < sms[b].warps;
    });
    for (uint32_t s : order) {
      if (Place(st, s)) {
        if (st.tile != internal::kNoTile) {
          tile_home[st.tile] = {s, static_cast<uint32_t>(st.warps.size())};
        }
        return true;
      }
    }
    return false;
  }
  const uint32_t n = std::max(
      1u, std::min<uint32_t>(config.sms, static_cast<uint32_t>(sms.size())));
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t s = (next_compute_sm + i) % n;
    if (Place(st, s)) {
      next_compute_sm = (s + 1) % n;
      return true;
    }
  }
  return false;
}

void TimingModel::Impl::RetireWarp(WarpState& w) {
  Sm& sm = sms[w.sm];
  SubPartition& sp = sm.sp[w.sp];
  sp.slots[w.slot] = nullptr;
  auto* end = sp.age.begin() + sp.resident;
  (void)std::remove(sp.age.begin(), end, static_cast<uint8_t>(w.slot));
  sp.SetReadyAt(w.slot, kNever, now);
  sp.pool &= ~(uint64_t{1} << w.slot);
  sp.on_pipe[static_cast<size_t>(sp.pipe_of[w.slot])] &=
      ~(uint64_t{1} << w.slot);
  sp.list.erase(std::find(sp.list.begin(), sp.list.end(), &w));
  sp.resident -= 1;
  if (sp.resident == 0) {
    sm.empty_sps += 1;
    // (Retiring ends its last cycle; nothing is throttled after it.)
    Settle(sp, sm, now + 1);
    sp.throttled = {};
  }
  sp.wake = 0;
  if (sp.last == &w) sp.last = nullptr;
  Release(sp.free, w.reg_first, w.reg_count);
  sm.registers -= w.reg_count;
  sm.warps -= 1;
  warps_retired = true;
  if (w.item->item->kind == pipeline::WorkKind::kFragment) {
    sm.fragment_warps -= 1;
    if (w.item->tile != internal::kNoTile) {
      const auto home = tile_home.find(w.item->tile);
      if (home != tile_home.end() && --home->second.warps == 0) {
        tile_home.erase(home);
      }
    }
  }
  if (trace != nullptr && trace->detail != trace::Detail::kSummary) {
    trace->registers.push_back(
        {now + 1, w.sm, w.sp, w.id, w.reg_first, w.reg_count, false});
    if (w.span < trace->warps.size()) {
      trace::WarpSpan& span = trace->warps[w.span];
      span.end = now + 1;
      span.instructions = w.issued;
    }
  }
}

void TimingModel::Impl::Sample(bool force) {
  if (trace == nullptr) return;
  if (!force && now < next_sample) return;
  const uint64_t interval = now - last_sample;
  if (interval == 0) return;
  for (Sm& sm : sms) {
    for (SubPartition& sp : sm.sp) {
      for (WarpState* w : sp.list) Account(*w, now);
      Settle(sp, sm, now);
    }
  }
  for (uint32_t s = 0; s < sms.size(); ++s) {
    Sm& sm = sms[s];
    trace::StallCounts stalls;
    bool any = false;
    for (size_t r = 0; r < stalls.size(); ++r) {
      stalls[r] = sm.stats.stall_cycles[r] - sm.sample_base[r];
      any |= stalls[r] != 0;
    }
    if (sm.sample_issued == 0 && sm.warps == 0 && !any) continue;
    trace::CounterSample c;
    c.cycle = now;
    c.sm = s;
    c.resident_warps = sm.warps;
    c.registers_allocated = sm.registers;
    c.shared_allocated = sm.shared;
    c.issued = sm.sample_issued;
    c.interval = interval;
    c.stalls = stalls;
    trace->counters.push_back(c);
    sm.sample_issued = 0;
    sm.sample_base = sm.stats.stall_cycles;
  }
  last_sample = now;
  next_sample = (now / kSampleInterval + 1) * kSampleInterval;
}

Status TimingModel::Impl::Drain(pipeline::WarpSource& source,
                                const pipeline::DrainLimits& limits_in) {
  if (slots_per_sp > kMaxSlotsPerSubPartition) {
    return Unsupported(
        "the timing model handles at most " +
        std::to_string(kMaxSlotsPerSubPartition) +
        " warp slots per sub-partition; the GPU configuration has " +
        std::to_string(slots_per_sp) + " (sm.max_warps_per_sm / " +
        "sm.sub_partitions)");
  }
  RunTiming run;
  step_observer = limits_in.step_observer;
  run.name = next_name.empty() ? limits_in.what : next_name;
  next_name.clear();
  registers = next_registers;
  next_registers = {};
  run.begin = now;
  if (config.memory.l1_invalidated_per_run) memory.InvalidateL1();
  memory.BeginRun();
  const MemoryCounters memory_base = memory.counters();
  for (Sm& sm : sms) {
    sm.used_in_run = false;
    sm.run_resident_warp_cycles = 0;
    sm.run_issued = 0;
    sm.run_base = sm.stats.stall_cycles;
  }
  if (trace != nullptr) trace->runs.push_back({run.name, now, now});
  shaders.clear();
  program_info.clear();
  tile_home.clear();
  pipeline::RetireInOrder merge(&source);
  std::deque<std::unique_ptr<ItemState>> pending;
  // The resident items (each knows its place here: live_index), and
  // those whose warps all retired this cycle.
  std::vector<std::unique_ptr<ItemState>> live;
  std::vector<ItemState*> finished;
  uint64_t next_seq = 0;
  std::vector<ItemState*> dirty;  // items a warp of finished or waits in
  // SMs a waiting fragment warp of a tile there is first in line for.
  std::vector<char> full(sms.size(), 0);
  // The launch loop's outcome holds until a warp retires, an item joins
  // `pending` or the front item's quads are rasterized (`raster_wait`):
  // Place() looks at nothing else.
  bool new_items = false;
  uint64_t raster_wait = kNever;  // the front item waits for its quads
  warps_retired = false;
  bool seen_vertex = false, seen_vertex_occupancy = false, seen_main = false;
  // Lane instructions of the run's retired items (an item's context
  // counts its warps'; only the instruction limit's message needs them).
  uint64_t retired_lanes = 0;
  // The fixed-function units (TimingConfig): the cycle the rasterizer and
  // the output merge are done with what they were given so far.
  double raster_done = static_cast<double>(now);
  double setup_done = static_cast<double>(now);  // primitives_per_cycle
  double output_done = static_cast<double>(now);
  // The output merge's work per retired item: the cycle the item finished
  // and the cycles its pixels keep the unit busy. The unit serves items in
  // the order they finish, not in API order: the order per pixel is the
  // functional merge's (RetireInOrder), and pixels of items that do not
  // overlap wait for no one, so a warp that finishes late does not hold
  // up the output of every warp after it.
  std::unordered_map<uint64_t, uint64_t> finished_at;  // item id -> cycle
  std::vector<std::pair<uint64_t, double>> output_jobs;
  bool merged_pixels = false;  // a pixel reached the output merge
  bool tested_pixels = false;  // the depth/stencil tests saw a pixel
  merge.set_on_retire([&](const pipeline::WorkItem& item) {
    const auto node = finished_at.extract(item.id);
    const uint64_t at = node ? node.mapped() : now;
    const pipeline::OutputWork work = source.TakeOutputWork();
    merged_pixels |= work.bytes != 0 || work.tested != 0 || work.rejected != 0;
    tested_pixels |= work.tested != 0 || work.rejected != 0;
    if (const double c = OutputCycles(work); c > 0) {
      output_jobs.emplace_back(at, c);
    }
  });
  bool graphics_run = false;
  auto finish_run = [&]() {
    // A draw ends when its pixels are written, and takes its fixed cost.
    // (The SMs are empty by then: these cycles count in the run's cycles,
    // not in any SM's stall reasons.)
    if (graphics_run) {
      std::stable_sort(
          output_jobs.begin(), output_jobs.end(),
          [](const auto& a, const auto& b) { return a.first < b.first; });
      for (const auto& [at, c] : output_jobs) {
        output_done = std::max(output_done, static_cast<double>(at)) + c;
      }
      now = std::max({now, static_cast<uint64_t>(std::ceil(output_done)),
                      static_cast<uint64_t>(std::ceil(setup_done))}) +
            config.draw_fixed_cycles +
            (merged_pixels ? config.output_flush_cycles : 0) +
            (tested_pixels ? config.depth_flush_cycles : 0);
    }
    for (Sm& sm : sms) {
      for (SubPartition& sp : sm.sp) Settle(sp, sm, now);
    }
    run.end = now;
    run.cycles = run.end - run.begin;
    run.memory = memory.counters() - memory_base;
    double resident = 0;
    uint64_t issued = 0;
    for (Sm& sm : sms) {
      for (size_t r = 0; r < trace::kStallReasons; ++r) {
        run.stall_cycles[r] += sm.stats.stall_cycles[r] - sm.run_base[r];
      }
      if (!sm.used_in_run) continue;
      run.sms_used += 1;
      resident += sm.run_resident_warp_cycles;
      issued += sm.run_issued;
    }
    if (run.cycles > 0 && run.sms_used > 0) {
      run.ipc = static_cast<double>(issued) /
                (static_cast<double>(run.cycles) * run.sms_used);
      run.achieved_occupancy =
          resident / (static_cast<double>(run.cycles) * run.sms_used *
                      std::max(1u, limits.max_warps_per_sm));
    }
    if (trace != nullptr) trace->runs.back().end = now;
    Sample(true);
    runs.push_back(run);
  };
  for (;;) {
    // Produce, in API order, while few items wait for room.
    while (pending.size() < kMaxPending) {
      auto next = source.Next();
      if (!next.ok()) return next.error();
      // The primitives set up to make it (empty ones too), one after
      // another in API order: a rate the draw cannot end before (the
      // latency of the first ones is in draw_fixed_cycles, measured on
      // draws of two triangles).
      if (const uint64_t prims = source.TakeRasterPrimitives();
          prims != 0 && config.primitives_per_cycle > 0) {
        setup_done = std::max(setup_done, static_cast<double>(now)) +
                     static_cast<double>(prims) / config.primitives_per_cycle;
      }
      if (*next == nullptr) break;
      auto st = std::make_unique<ItemState>();
      st->item = std::move(*next);
      pipeline::WorkItem& item = *st->item;
      st->block = item.kind == pipeline::WorkKind::kComputeWorkgroup;
      graphics_run |= !st->block;
      if (config.raster_pixels_per_cycle > 0 && item.RasterQuads() != 0) {
        // Quads are rasterized in API order, one after another.
        raster_done = std::max(raster_done, static_cast<double>(now)) +
                      4.0 * item.RasterQuads() / config.raster_pixels_per_cycle;
        st->raster_ready = static_cast<uint64_t>(std::ceil(raster_done));
      }
      if (config.fragment_tile_pixels != 0 &&
          item.kind == pipeline::WorkKind::kFragment) {
        quad_scratch.clear();
        item.Quads(0, &quad_scratch);
        if (!quad_scratch.empty()) {
          const int64_t t = config.fragment_tile_pixels;
          const auto row = static_cast<uint32_t>(quad_scratch[0].y / t);
          const auto column = static_cast<uint32_t>(quad_scratch[0].x / t);
          st->tile = uint64_t{row} << 32 | column;
        }
      }
      if (st->block) {
        st->shared_bytes =
            RoundUp(static_cast<uint32_t>(item.workgroup_memory.size()) +
                        limits.reserved_shared_memory_per_block,
                    limits.shared_memory_allocation_unit);
      }
      // The run's registers and theoretical occupancy: a dispatch's, a
      // draw's fragment shader's (its vertex shader's until a fragment
      // item comes, or for a draw without one).
      const bool vertex = item.kind == pipeline::WorkKind::kVertexBatch;
      if (vertex && !seen_vertex) {
        seen_vertex = true;
        run.vertex_registers_per_thread = RegsPerThread(item);
      }
      if (!seen_main && (!vertex || !seen_vertex_occupancy)) {
        seen_main = !vertex;
        seen_vertex_occupancy = true;
        run.registers_per_thread = RegsPerThread(item);
        Occupancy occ;
        if (st->block) {
          Launch l;
          l.registers_per_thread = run.registers_per_thread;
          l.threads_per_block =
              static_cast<uint32_t>(item.warps.size()) * limits.warp_size;
          l.static_shared_memory =
              static_cast<uint32_t>(item.workgroup_memory.size());
          occ = ComputeOccupancy(limits, l);
        } else {
          occ = GraphicsWarpsPerSm(limits, run.registers_per_thread);
        }
        run.theoretical_occupancy = occ.occupancy;
        switch (occ.limiter) {
          case Limiter::kRegisters:
            run.limiter = "registers";
            break;
          case Limiter::kSharedMemory:
            run.limiter = "shared_memory";
            break;
          case Limiter::kWarps:
            run.limiter = "warp_slots";
            break;
          case Limiter::kBlocks:
            run.limiter = "block_slots";
            break;
        }
      }
      pending.push_back(std::move(st));
      new_items = true;
    }
    // Make items resident, in order, while they fit. A fragment warp of a
    // tile with resident warps waits for its tile's SM only: the items
    // after it go on, but none to that SM (each SM takes its warps in
    // order).
    const size_t live_before = live.size();
    const bool try_launch = new_items || warps_retired || raster_wait <= now;
    if (try_launch) raster_wait = kNever;
    new_items = warps_retired = false;
    bool any_full = false;
    for (size_t i = 0; try_launch && i < pending.size();) {
      ItemState& st = *pending[i];
      if (st.raster_ready > now) {
        raster_wait = st.raster_ready;
        break;
      }
      const bool at_home = st.tile != internal::kNoTile &&
                           tile_home.find(st.tile) != tile_home.end();
      if (!TryLaunch(st, any_full ? &full : nullptr)) {
        if (!at_home) break;
        any_full = true;
        full[tile_home[st.tile].sm] = 1;
        ++i;
        continue;
      }
      st.item->context.record_addresses = true;
      if (Status s = st.item->Prepare(); !s.ok()) return s;
      for (auto& w : st.item->warps) w->set_record_addresses(true);
      for (WarpState* ws : st.warps) Refresh(*ws);
      st.seq = next_seq++;
      st.live_index = live.size();
      if (st.warps_left == 0) finished.push_back(&st);
      live.push_back(std::move(pending[i]));
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (any_full) std::fill(full.begin(), full.end(), 0);
    if (live.size() != live_before) {
      UpdateActive();
      for (uint32_t s : active_sms) {
        run.peak_warps_per_sm = std::max(run.peak_warps_per_sm, sms[s].warps);
        run.peak_fragment_warps_per_sm =
            std::max(run.peak_fragment_warps_per_sm, sms[s].fragment_warps);
      }
    }
    if (live.empty() && raster_wait == kNever) {
      if (!pending.empty()) {
        return Unsupported(
            "a " +
            std::string(pipeline::WorkKindName(pending.front()->item->kind)) +
            " item needs more warp slots, registers or shared memory than "
            "an SM of the GPU configuration has");
      }
      if (source.done()) break;
      return InternalError(
          "a work source produced nothing although every earlier item "
          "retired");
    }
    // One cycle. A sub-partition picks only when something may have
    // changed (`wake`): it issued, a warp arrived or left, a barrier
    // opened, or the earliest of its warps' ready cycles came.
    bool issued_any = false;
    uint64_t next_event = raster_wait;
    for (uint32_t s : active_sms) {
      Sm& sm = sms[s];
      for (SubPartition& sp : sm.sp) {
        if (sp.resident == 0) continue;
        if (sp.wake > now) {
          next_event = std::min(next_event, sp.wake);
          continue;
        }
        if (config.scheduler == SchedulerPolicy::kTwoLevel) RefillPool(sp);
        uint64_t earliest = kNever;
        WarpState* pick = Pick(sp, sm, &earliest);
        if (pick != nullptr) {
          if (Status st = Issue(*pick, sp, sm, run); !st.ok()) {
            return st;
          }
          issued_any = true;
          if (pick->done || pick->warp->at_barrier()) {
            dirty.push_back(pick->item);
          }
        }
        // After an issue the next cycle must look again (the issuing
        // warp, the pipe's interval); else the earliest ready warp.
        sp.wake = pick != nullptr ? now + 1 : earliest;
        next_event = std::min(next_event, sp.wake);
      }
    }
    if (limits_in.max_warp_instructions != 0 &&
        run.warp_instructions > limits_in.max_warp_instructions) {
      uint64_t lanes = retired_lanes;
      for (const auto& st : live) lanes += st->item->context.lane_instructions;
      return pipeline::InstructionLimitExceeded(limits_in,
                                                run.warp_instructions, lanes);
    }
    // Account this cycle, or the quiet cycles up to the next event (no
    // state changes in between), with the states just counted.
    uint64_t dt = 1;
    if (!issued_any && dirty.empty()) {
      if (next_event == kNever) {
        return InternalError(
            "the timing model has resident warps of which none can ever "
            "issue");
      }
      dt = std::max<uint64_t>(1, next_event - now);
    }
    for (uint32_t s : active_sms) {
      Sm& sm = sms[s];
      // (The warps' own states are counted by Account().)
      sm.stats.stall_cycles[R(StallReason::kIdle)] +=
          uint64_t{sm.empty_sps} * dt;
      sm.stats.busy_cycles += dt;
      sm.resident_warp_cycles += static_cast<double>(sm.warps) * dt;
      sm.run_resident_warp_cycles += static_cast<double>(sm.warps) * dt;
    }
    // Retire finished warps and items (in API order through `merge`);
    // open barriers every unfinished warp of an item waits at.
    bool sms_changed = false;
    for (ItemState* st : dirty) {
      if (st->warps_left == 0) continue;  // (listed twice)
      bool all_waiting = true;
      for (WarpState*& w : st->warps) {
        if (w == nullptr) continue;
        if (w->done) {
          RetireWarp(*w);
          w->warp = nullptr;
          w = nullptr;
          st->warps_left -= 1;
          continue;
        }
        if (!w->at_barrier) all_waiting = false;
      }
      if (st->warps_left != 0 && all_waiting) {
        for (WarpState* w : st->warps) {
          if (w == nullptr) continue;
          Account(*w, now + dt);
          w->warp->ReleaseBarrier();
          w->barrier_end = now + dt;
          w->next_issue = std::max(w->next_issue, now + dt);
          Refresh(*w);
          sms[w->sm].sp[w->sp].wake = 0;
        }
      }
      if (st->warps_left == 0) {
        Sm& sm = sms[st->sm];
        if (st->block) sm.blocks -= 1;
        sm.shared -= st->shared_bytes;
        sms_changed |= sm.warps == 0;
        finished.push_back(st);
      }
    }
    dirty.clear();
    // Items whose warps all retired: Finish() in launch order and retire
    // (in API order through `merge`).
    if (finished.size() > 1) {
      std::sort(finished.begin(), finished.end(),
                [](const ItemState* a, const ItemState* b) {
                  return a->seq < b->seq;
                });
    }
    for (ItemState* st : finished) {
      retired_lanes += st->item->context.lane_instructions;
      if (Status s = st->item->Finish(); !s.ok()) return s;
      finished_at[st->item->id] = now;
      if (Status s = merge.Finish(std::move(st->item)); !s.ok()) return s;
      const size_t i = st->live_index;  // (st is freed below)
      if (i + 1 != live.size()) {
        live[i] = std::move(live.back());
        live[i]->live_index = i;
      }
      live.pop_back();
    }
    finished.clear();
    if (sms_changed) UpdateActive();
    now += dt;
    if (trace != nullptr) Sample(false);
    if (observer != nullptr && now >= notify_at) {
      if (Status st = Notify(issued_before + run.warp_instructions); !st.ok()) {
        return st;
      }
    }
  }
  finish_run();
  issued_before += run.warp_instructions;
  return Notify(issued_before);
}

TimingModel::TimingModel(const TimingConfig& config, const SmLimits& limits,
                         uint32_t min_registers_per_thread, trace::Trace* trace)
    : impl_(std::make_unique<Impl>(config, limits, min_registers_per_thread,
                                   trace)) {}

TimingModel::~TimingModel() = default;

void TimingModel::BeginRun(std::string name, StageRegisters registers) {
  impl_->next_name = std::move(name);
  impl_->next_registers = registers;
}

Status TimingModel::Drain(pipeline::WarpSource& source,
                          const pipeline::DrainLimits& limits) {
  return impl_->Drain(source, limits);
}

const std::vector<RunTiming>& TimingModel::runs() const { return impl_->runs; }

uint64_t TimingModel::cycles() const { return impl_->now; }

std::vector<SmTiming> TimingModel::sms() const {
  std::vector<SmTiming> out;
  for (const Sm& sm : impl_->sms) {
    SmTiming t = sm.stats;
    if (t.busy_cycles > 0) {
      t.ipc =
          static_cast<double>(t.issued) / static_cast<double>(t.busy_cycles);
      t.mean_resident_warps =
          sm.resident_warp_cycles / static_cast<double>(t.busy_cycles);
    }
    out.push_back(t);
  }
  return out;
}

const TimingConfig& TimingModel::config() const { return impl_->config; }

void TimingModel::set_observer(trace::Observer* observer) {
  impl_->observer = observer;
  impl_->notify_at = 0;
}

}  // namespace warpsim::sm
