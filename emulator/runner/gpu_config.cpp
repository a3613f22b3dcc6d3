#include "runner/gpu_config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runner/h200_timing_json.h"  // generated: kH200TimingJson

namespace warpsim::runner {

const std::vector<std::string_view>& GpuConfigPresetNames() {
  static const std::vector<std::string_view> kNames = {"h200", "teaching"};
  return kNames;
}

std::string GpuConfigPresetList() {
  std::string list;
  for (std::string_view name : GpuConfigPresetNames()) {
    if (!list.empty()) list += ", ";
    list += name;
  }
  return list;
}

Result<GpuConfig> GpuConfigPreset(std::string_view name) {
  GpuConfig c;
  if (name == "h200") return c;
  if (name == "teaching") {
    c.name = "teaching";
    c.timing = sm::TimingConfig{};
    c.warp_width = 8;
    c.vertex_batch_primitives = 8;
    c.vertex_reuse_window = 24;
    c.tile_size = 8;
    c.quad_packing = pipeline::QuadPacking::kPerPrimitive;
    c.derivatives_fine = false;
    c.min_registers_per_thread = 0;
    return c;
  }
  return InvalidInput("unknown GPU preset \"" + std::string(name) +
                      "\" (presets: " + GpuConfigPresetList() + ")");
}

Result<GpuConfig> LoadGpuConfig(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidInput("cannot open GPU config", SourcePos{path});
  std::stringstream text;
  text << in.rdbuf();
  return ParseGpuConfig(text.str(), path);
}

namespace {

// 1-based line of byte `offset` in `text`.
int LineAt(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(
                 std::count(text.begin(), text.begin() + offset, '\n'));
}

// The "sm" object: any of SmLimits' fields by name.
Status ParseSmLimits(const nlohmann::json& j, const std::string& path,
                     sm::SmLimits* l) {
  struct Field {
    const char* name;
    uint32_t* value;
    uint32_t lo, hi;
  };
  const Field fields[] = {
      {"warp_size", &l->warp_size, 1, 64},
      {"max_warps_per_sm", &l->max_warps_per_sm, 1, 4096},
      {"max_blocks_per_sm", &l->max_blocks_per_sm, 1, 4096},
      {"max_threads_per_block", &l->max_threads_per_block, 1, 1u << 16},
      {"registers_per_sm", &l->registers_per_sm, 1, 1u << 24},
      {"registers_per_block", &l->registers_per_block, 1, 1u << 24},
      {"max_registers_per_thread", &l->max_registers_per_thread, 1, 4096},
      {"register_allocation_unit", &l->register_allocation_unit, 1, 1u << 16},
      {"sub_partitions", &l->sub_partitions, 1, 64},
      {"shared_memory_per_sm", &l->shared_memory_per_sm, 0, 1u << 30},
      {"shared_memory_per_block", &l->shared_memory_per_block, 0, 1u << 30},
      {"shared_memory_per_block_optin", &l->shared_memory_per_block_optin, 0,
       1u << 30},
      {"reserved_shared_memory_per_block", &l->reserved_shared_memory_per_block,
       0, 1u << 30},
      {"shared_memory_allocation_unit", &l->shared_memory_allocation_unit, 1,
       1u << 20},
  };
  for (const auto& [key, value] : j.items()) {
    if (key == "shared_memory_carveouts_kib") {
      std::vector<uint32_t> kib;
      bool good = value.is_array() && !value.empty();
      for (const auto& v : value) {
        good = good && v.is_number_unsigned() &&
               v.get<uint64_t>() <= (1u << 20) &&
               (kib.empty() || v.get<uint64_t>() > kib.back());
        if (good) kib.push_back(v.get<uint32_t>());
      }
      if (!good) {
        return InvalidInput(
            "\"sm.shared_memory_carveouts_kib\" must be a non-empty "
            "ascending array of integers (KiB)",
            SourcePos{path});
      }
      l->shared_memory_carveouts_kib = std::move(kib);
      continue;
    }
    const Field* f = nullptr;
    for (const Field& x : fields) {
      if (key == x.name) f = &x;
    }
    if (f == nullptr) {
      std::string names;
      for (const Field& x : fields) names += std::string(x.name) + ", ";
      return InvalidInput("unknown key \"sm." + key + "\" (expected " + names +
                              "shared_memory_carveouts_kib)",
                          SourcePos{path});
    }
    if (!value.is_number_unsigned() || value.get<uint64_t>() < f->lo ||
        value.get<uint64_t>() > f->hi) {
      return InvalidInput("\"sm." + key + "\" must be an integer in " +
                              std::to_string(f->lo) + ".." +
                              std::to_string(f->hi),
                          SourcePos{path});
    }
    *f->value = value.get<uint32_t>();
  }
  return {};
}

// A numeric field of a JSON object: an unsigned integer in lo..hi (u32 or
// u64 set), or a finite number above lo (real set; at lo too when
// lo_closed; with share, a number in 0..1); or a true/false one (flag set).
struct NumField {
  const char* name;
  uint32_t* u32 = nullptr;
  uint64_t* u64 = nullptr;
  double* real = nullptr;
  bool* flag = nullptr;  // true or false instead of a number
  uint64_t lo = 0, hi = 0;
  bool lo_closed = false;
  bool share = false;
};

std::string FieldNames(const std::vector<NumField>& fields,
                       std::string_view more = {}) {
  std::string names;
  for (const NumField& f : fields) {
    if (!names.empty()) names += ", ";
    names += f.name;
  }
  if (!more.empty()) names += ", " + std::string(more);
  return names;
}

// Sets `key` (named "prefix + key" in messages) from `value` if it is one
// of `fields`; false, with *status unchanged, when it is none of them.
bool SetNumField(const std::vector<NumField>& fields, const std::string& key,
                 const nlohmann::json& value, const std::string& prefix,
                 const std::string& path, Status* status) {
  const NumField* f = nullptr;
  for (const NumField& x : fields) {
    if (key == x.name) f = &x;
  }
  if (f == nullptr) return false;
  const std::string name = "\"" + prefix + key + "\"";
  if (f->flag != nullptr) {
    if (!value.is_boolean()) {
      *status = InvalidInput(name + " must be true or false", SourcePos{path});
      return true;
    }
    *f->flag = value.get<bool>();
    return true;
  }
  if (f->real != nullptr && f->share) {
    if (!value.is_number() || !(value.get<double>() >= 0) ||
        !(value.get<double>() <= 1)) {
      *status =
          InvalidInput(name + " must be a number in 0..1", SourcePos{path});
      return true;
    }
    *f->real = value.get<double>();
    return true;
  }
  if (f->real != nullptr) {
    const double lo = static_cast<double>(f->lo);
    if (!value.is_number() || !std::isfinite(value.get<double>()) ||
        value.get<double>() < lo ||
        (!f->lo_closed && value.get<double>() == lo)) {
      *status = InvalidInput(name + " must be a number " +
                                 (f->lo_closed ? ">= " : "> ") +
                                 std::to_string(f->lo),
                             SourcePos{path});
      return true;
    }
    *f->real = value.get<double>();
    return true;
  }
  if (!value.is_number_unsigned() || value.get<uint64_t>() < f->lo ||
      value.get<uint64_t>() > f->hi) {
    *status =
        InvalidInput(name + " must be an integer in " + std::to_string(f->lo) +
                         ".." + std::to_string(f->hi),
                     SourcePos{path});
    return true;
  }
  if (f->u32 != nullptr) *f->u32 = value.get<uint32_t>();
  if (f->u64 != nullptr) *f->u64 = value.get<uint64_t>();
  return true;
}

// Sets `fields` from every key of the object `j`; a key none of them has
// is invalid input naming it (with `prefix`) and the keys there are.
Status SetNumFields(const std::vector<NumField>& fields,
                    const nlohmann::json& j, const std::string& prefix,
                    const std::string& path) {
  for (const auto& [key, value] : j.items()) {
    Status s;
    if (!SetNumField(fields, key, value, prefix, path, &s)) {
      return InvalidInput("unknown key \"" + prefix + key + "\" (expected " +
                              FieldNames(fields) + ")",
                          SourcePos{path});
    }
    if (!s.ok()) return s;
  }
  return {};
}

// A pipe object: {"latency": N, "interval": N}, either or both.
Status ParsePipe(const nlohmann::json& j, const std::string& prefix,
                 const std::string& path, sm::PipeTiming* p) {
  const std::vector<NumField> fields = {
      {.name = "latency", .u32 = &p->latency, .lo = 0, .hi = 1u << 20},
      {.name = "interval", .u32 = &p->interval, .lo = 1, .hi = 1u << 16},
  };
  return SetNumFields(fields, j, prefix, path);
}

// The "timing.memory" object: any of MemoryTiming's fields by name.
Status ParseMemoryTiming(const nlohmann::json& j, const std::string& path,
                         sm::MemoryTiming* m) {
  const std::string prefix = "timing.memory.";
  const std::vector<NumField> fields = {
      {.name = "shared_latency", .u32 = &m->shared_latency, .hi = 1u << 20},
      {.name = "l1_latency", .u32 = &m->l1_latency, .hi = 1u << 20},
      {.name = "l2_latency", .u32 = &m->l2_latency, .hi = 1u << 20},
      {.name = "dram_latency", .u32 = &m->dram_latency, .hi = 1u << 20},
      {.name = "line_bytes", .u32 = &m->line_bytes, .lo = 1, .hi = 1u << 16},
      {.name = "sector_bytes",
       .u32 = &m->sector_bytes,
       .lo = 1,
       .hi = 1u << 16},
      {.name = "l1_bytes", .u64 = &m->l1_bytes, .lo = 1, .hi = 1ull << 32},
      {.name = "l1_ways", .u32 = &m->l1_ways, .lo = 1, .hi = 1u << 16},
      {.name = "l2_bytes", .u64 = &m->l2_bytes, .lo = 1, .hi = 1ull << 40},
      {.name = "l2_ways", .u32 = &m->l2_ways, .lo = 1, .hi = 1u << 16},
      {.name = "l2_far_bytes", .u64 = &m->l2_far_bytes, .hi = 1ull << 40},
      {.name = "l2_far_latency", .u32 = &m->l2_far_latency, .hi = 1u << 20},
      {.name = "l2_sides", .u32 = &m->l2_sides, .lo = 1, .hi = 64},
      {.name = "l2_cross_latency", .u32 = &m->l2_cross_latency, .hi = 1u << 20},
      {.name = "l2_upload_latency",
       .u32 = &m->l2_upload_latency,
       .hi = 1u << 20},
      {.name = "upload_dram_share",
       .real = &m->upload_dram_share,
       .share = true},
      {.name = "l2_bytes_per_cycle_per_sm",
       .real = &m->l2_bytes_per_cycle_per_sm},
      {.name = "dram_bytes_per_cycle_per_sm",
       .real = &m->dram_bytes_per_cycle_per_sm},
      {.name = "l1_miss_cycles_per_line",
       .real = &m->l1_miss_cycles_per_line,
       .lo_closed = true},
      {.name = "graphics_l1_miss_cycles_per_line",
       .real = &m->graphics_l1_miss_cycles_per_line,
       .lo_closed = true},
      {.name = "l1_wavefront_cycles",
       .real = &m->l1_wavefront_cycles,
       .lo_closed = true},
      {.name = "shared_wavefront_cycles",
       .real = &m->shared_wavefront_cycles,
       .lo_closed = true},
      {.name = "store_sector_cycles",
       .real = &m->store_sector_cycles,
       .lo_closed = true},
      {.name = "store_line_cycles",
       .real = &m->store_line_cycles,
       .lo_closed = true},
      {.name = "store_partial_line_cycles",
       .real = &m->store_partial_line_cycles,
       .lo_closed = true},
      {.name = "store_queue_cycles",
       .real = &m->store_queue_cycles,
       .lo_closed = true},
      {.name = "texture_hit_cycles",
       .u32 = &m->texture_hit_cycles,
       .hi = 1u << 20},
      {.name = "texture_miss_cycles",
       .u32 = &m->texture_miss_cycles,
       .hi = 1u << 20},
      {.name = "texture_quad_cycles",
       .real = &m->texture_quad_cycles,
       .lo_closed = true},
      {.name = "texture_fetch_quad_cycles",
       .real = &m->texture_fetch_quad_cycles,
       .lo_closed = true},
      {.name = "texture_full_rate_bytes",
       .u32 = &m->texture_full_rate_bytes,
       .hi = 1u << 10},
      {.name = "texture_filtered_full_rate_bits",
       .u32 = &m->texture_filtered_full_rate_bits,
       .hi = 1u << 10},
      {.name = "texture_line_cycles",
       .real = &m->texture_line_cycles,
       .lo_closed = true},
      {.name = "texture_miss_line_cycles",
       .real = &m->texture_miss_line_cycles,
       .lo_closed = true},
      {.name = "l1_banks", .u32 = &m->l1_banks, .lo = 1, .hi = 1u << 10},
      {.name = "l1_bank_bytes",
       .u32 = &m->l1_bank_bytes,
       .lo = 1,
       .hi = 1u << 10},
      {.name = "l1_lines_per_wavefront",
       .u32 = &m->l1_lines_per_wavefront,
       .lo = 1,
       .hi = 1u << 10},
      {.name = "l1_sector_fills", .flag = &m->l1_sector_fills},
      {.name = "l1_invalidated_per_run", .flag = &m->l1_invalidated_per_run},
      {.name = "l1_hashed_sets", .flag = &m->l1_hashed_sets},
      {.name = "coherent_bypasses_l1", .flag = &m->coherent_bypasses_l1},
      {.name = "translation_region_bytes",
       .u32 = &m->translation_region_bytes,
       .hi = 1u << 30},
      {.name = "translation_miss_cycles",
       .u32 = &m->translation_miss_cycles,
       .hi = 1u << 20},
      {.name = "translation_per_run", .flag = &m->translation_per_run},
      {.name = "l2_holds_uploads", .flag = &m->l2_holds_uploads},
      {.name = "l2_uploads_far", .flag = &m->l2_uploads_far},
      {.name = "uploads_per_run", .flag = &m->uploads_per_run},
      {.name = "global_load_issue_cycles",
       .u32 = &m->global_load_issue_cycles,
       .hi = 1u << 10},
      {.name = "global_store_issue_cycles",
       .u32 = &m->global_store_issue_cycles,
       .hi = 1u << 10},
      {.name = "global_atomic_issue_cycles",
       .u32 = &m->global_atomic_issue_cycles,
       .hi = 1u << 10},
      {.name = "shared_load_issue_cycles",
       .u32 = &m->shared_load_issue_cycles,
       .hi = 1u << 10},
      {.name = "shared_store_issue_cycles",
       .u32 = &m->shared_store_issue_cycles,
       .hi = 1u << 10},
      {.name = "issue_hold_slack_cycles",
       .u32 = &m->issue_hold_slack_cycles,
       .hi = 1u << 16},
  };
  for (const auto& [key, value] : j.items()) {
    if (key == "l2_side_of_sm") {
      // Per SM its side: checked against l2_sides below, whatever the
      // keys' order.
      std::vector<uint32_t> sides;
      bool good = value.is_array();
      for (const auto& v : value) {
        good = good && v.is_number_unsigned() && v.get<uint64_t>() < 64;
        if (good) sides.push_back(v.get<uint32_t>());
      }
      if (!good) {
        return InvalidInput(
            "\"" + prefix + key + "\" must be an array of integers (sides)",
            SourcePos{path});
      }
      m->l2_side_of_sm = std::move(sides);
      continue;
    }
    Status s;
    if (!SetNumField(fields, key, value, prefix, path, &s)) {
      return InvalidInput("unknown key \"" + prefix + key + "\" (expected " +
                              FieldNames(fields, "l2_side_of_sm") + ")",
                          SourcePos{path});
    }
    if (!s.ok()) return s;
  }
  for (uint32_t side : m->l2_side_of_sm) {
    if (side >= m->l2_sides) {
      return InvalidInput("\"" + prefix +
                              "l2_side_of_sm\" names a side past l2_sides (" +
                              std::to_string(m->l2_sides) + ")",
                          SourcePos{path});
    }
  }
  if (m->l2_far_bytes != 0 &&
      (m->l2_far_bytes <= m->l2_bytes || m->l2_far_latency < m->l2_latency)) {
    return InvalidInput(
        "\"timing.memory.l2_far_bytes\" must be 0 (none) or more than "
        "l2_bytes, with l2_far_latency at least l2_latency",
        SourcePos{path});
  }
  return {};
}

// The "timing" object: any of TimingConfig's fields by name, the pipes and
// "memory" as objects of their fields.
Status ParseTiming(const nlohmann::json& j, const std::string& path,
                   sm::TimingConfig* t) {
  const std::vector<NumField> fields = {
      {.name = "clock_mhz", .real = &t->clock_mhz},
      {.name = "sms", .u32 = &t->sms, .lo = 1, .hi = 1u << 16},
      {.name = "graphics_sms",
       .u32 = &t->graphics_sms,
       .lo = 1,
       .hi = 1u << 16},
      {.name = "two_level_active",
       .u32 = &t->two_level_active,
       .lo = 1,
       .hi = 1u << 16},
      {.name = "swap_cycles_per_register",
       .real = &t->swap_cycles_per_register,
       .lo_closed = true},
      {.name = "raster_pixels_per_cycle",
       .real = &t->raster_pixels_per_cycle,
       .lo_closed = true},
      {.name = "primitives_per_cycle",
       .real = &t->primitives_per_cycle,
       .lo_closed = true},
      {.name = "output_bytes_per_cycle",
       .real = &t->output_bytes_per_cycle,
       .lo_closed = true},
      {.name = "depth_test_cycles",
       .real = &t->depth_test_cycles,
       .lo_closed = true},
      {.name = "depth_reject_cycles",
       .real = &t->depth_reject_cycles,
       .lo_closed = true},
      {.name = "blend_cycles", .real = &t->blend_cycles, .lo_closed = true},
      {.name = "float_blend_cycles",
       .real = &t->float_blend_cycles,
       .lo_closed = true},
      {.name = "draw_fixed_cycles",
       .u32 = &t->draw_fixed_cycles,
       .hi = 1u << 30},
      {.name = "output_flush_cycles",
       .u32 = &t->output_flush_cycles,
       .hi = 1u << 30},
      {.name = "depth_flush_cycles",
       .u32 = &t->depth_flush_cycles,
       .hi = 1u << 30},
      {.name = "loop_unroll", .u32 = &t->loop_unroll, .lo = 1, .hi = 64},
      {.name = "loop_unroll_max_body",
       .u32 = &t->loop_unroll_max_body,
       .hi = 1u << 20},
      {.name = "loop_unroll_max_body_loads",
       .u32 = &t->loop_unroll_max_body_loads,
       .hi = 1u << 20},
      {.name = "buffer_address_issue_cycles",
       .u32 = &t->buffer_address_issue_cycles,
       .hi = 64},
      {.name = "loop_entry_slots", .u32 = &t->loop_entry_slots, .hi = 1u << 10},
      {.name = "loop_unroll_skipped_weight",
       .real = &t->loop_unroll_skipped_weight,
       .lo_closed = true},
      {.name = "predicate_max_instructions",
       .u32 = &t->predicate_max_instructions,
       .hi = simt::PredicatedSelection::kMaxInstructions},
      {.name = "predicate_max_written",
       .u32 = &t->predicate_max_written,
       .hi = simt::PredicatedSelection::kMaxInstructions},
      {.name = "selection_loop_moves",
       .u32 = &t->selection_loop_moves,
       .hi = 16},
      {.name = "selection_sync_slots",
       .u32 = &t->selection_sync_slots,
       .hi = 16},
      {.name = "selection_sync_latency",
       .u32 = &t->selection_sync_latency,
       .hi = 1u << 16},
      {.name = "predicate_latency",
       .u32 = &t->predicate_latency,
       .hi = 1u << 16},
      {.name = "icache_bytes", .u64 = &t->icache_bytes, .hi = 1ull << 32},
      {.name = "icache_line_bytes",
       .u32 = &t->icache_line_bytes,
       .lo = 1,
       .hi = 1u << 16},
      {.name = "icache_ways", .u32 = &t->icache_ways, .lo = 1, .hi = 1u << 16},
      {.name = "instruction_bytes",
       .u32 = &t->instruction_bytes,
       .lo = 1,
       .hi = 1u << 10},
      {.name = "icache_fill_cycles",
       .u32 = &t->icache_fill_cycles,
       .hi = 1u << 20},
      {.name = "fragment_tile_pixels",
       .u32 = &t->fragment_tile_pixels,
       .hi = 1u << 16},
      {.name = "fragment_warp_cycles",
       .u32 = &t->fragment_warp_cycles,
       .hi = 1u << 20},
      {.name = "cse", .flag = &t->cse},
      {.name = "fold_constant_chains", .flag = &t->fold_constant_chains},
      {.name = "hoist_invariants", .flag = &t->hoist_invariants},
      {.name = "honour_dont_unroll", .flag = &t->honour_dont_unroll},
      {.name = "fuse_pairs", .flag = &t->fuse_pairs},
      {.name = "split_int_adds", .flag = &t->split_int_adds},
      {.name = "free_layout_branches", .flag = &t->free_layout_branches},
      {.name = "loop_control_in_bubbles", .flag = &t->loop_control_in_bubbles},
      {.name = "static_loop_test", .flag = &t->static_loop_test},
      {.name = "free_register_moves", .flag = &t->free_register_moves},
      {.name = "rename_registers", .flag = &t->rename_registers},
  };
  const std::pair<const char*, sm::PipeTiming*> pipes[] = {
      {"fma", &t->fma},       {"alu", &t->alu},
      {"fp64", &t->fp64},     {"sfu", &t->sfu},
      {"branch", &t->branch}, {"sync", &t->sync},
      {"imul", &t->imul},     {"sfu_trig", &t->sfu_trig},
      {"lsu", &t->lsu},       {"tex", &t->tex},
      {"cvt", &t->cvt},       {"buffer_address", &t->buffer_address},
  };
  std::string pipe_names;
  for (const auto& [name, pipe] : pipes) pipe_names += std::string(name) + ", ";
  for (const auto& [key, value] : j.items()) {
    Status s;
    if (SetNumField(fields, key, value, "timing.", path, &s)) {
      if (!s.ok()) return s;
      continue;
    }
    sm::PipeTiming* pipe = nullptr;
    for (const auto& [name, p] : pipes) {
      if (key == name) pipe = p;
    }
    if (pipe != nullptr) {
      if (!value.is_object()) {
        return InvalidInput(
            "\"timing." + key + "\" must be an object with latency, interval",
            SourcePos{path});
      }
      if (Status ps = ParsePipe(value, "timing." + key + ".", path, pipe);
          !ps.ok()) {
        return ps;
      }
    } else if (key == "memory") {
      if (!value.is_object()) {
        return InvalidInput("\"timing.memory\" must be an object",
                            SourcePos{path});
      }
      if (Status ms = ParseMemoryTiming(value, path, &t->memory); !ms.ok()) {
        return ms;
      }
    } else if (key == "scheduler") {
      if (!value.is_string() ||
          !sm::ParseScheduler(value.get<std::string>(), &t->scheduler)) {
        return InvalidInput(
            "\"timing.scheduler\" must be one of lrr, gto, oldest, two_level",
            SourcePos{path});
      }
    } else if (key == "context_switch") {
      if (!value.is_string() ||
          !sm::ParseContextSwitch(value.get<std::string>(),
                                  &t->context_switch)) {
        return InvalidInput(
            "\"timing.context_switch\" must be one of free, swap",
            SourcePos{path});
      }
    } else {
      return InvalidInput(
          "unknown key \"timing." + key + "\" (expected " +
              FieldNames(fields, pipe_names + "memory, scheduler: "
                                              "lrr|gto|oldest|two_level, "
                                              "context_switch: free|swap") +
              ")",
          SourcePos{path});
    }
  }
  // Rules between fields, on the result (a preset's values included).
  if (t->graphics_sms > t->sms) {
    return InvalidInput(
        "\"timing.graphics_sms\" (" + std::to_string(t->graphics_sms) +
            ") must be at most \"timing.sms\" (" + std::to_string(t->sms) + ")",
        SourcePos{path});
  }
  if (t->memory.line_bytes % t->memory.sector_bytes != 0) {
    return InvalidInput("\"timing.memory.sector_bytes\" (" +
                            std::to_string(t->memory.sector_bytes) +
                            ") must divide \"timing.memory.line_bytes\" (" +
                            std::to_string(t->memory.line_bytes) + ")",
                        SourcePos{path});
  }
  return {};
}

}  // namespace

const sm::TimingConfig& H200Timing() {
  // Parsed once from the copy compiled in. The file is generated and
  // checked by the tests, so a failure here is a build defect: it is
  // reported and the process stops rather than running with other values.
  static const sm::TimingConfig kTiming = [] {
    const std::string path =
        "emulator/runner/presets/h200_timing.json (compiled in)";
    sm::TimingConfig t;
    Status s;
    try {
      const nlohmann::json doc = nlohmann::json::parse(kH200TimingJson);
      if (!doc.contains("timing") || !doc["timing"].is_object()) {
        s = InvalidInput("no \"timing\" object", SourcePos{path});
      } else {
        s = ParseTiming(doc["timing"], path, &t);
      }
    } catch (const nlohmann::json::exception& e) {
      s = InvalidInput(std::string("malformed JSON: ") + e.what(),
                       SourcePos{path});
    }
    if (!s.ok()) {
      std::fprintf(stderr, "warpsim: internal error: %s\n",
                   s.error().ToString().c_str());
      std::abort();
    }
    return t;
  }();
  return kTiming;
}

Result<GpuConfig> ParseGpuConfig(std::string_view text,
                                 const std::string& path) {
  nlohmann::json j;
  // nlohmann throws parse_error for bad syntax (with its byte offset) and
  // out_of_range for a number too large for a double (naming the number, so
  // its first occurrence gives the line); any other json exception is
  // reported as malformed JSON too, never let through.
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return InvalidInput(std::string("malformed JSON: ") + e.what(),
                        SourcePos{path, LineAt(text, e.byte)});
  } catch (const nlohmann::json::out_of_range& e) {
    std::string what = e.what();
    int line = 0;
    size_t open = what.find('\'');
    size_t close = what.rfind('\'');
    if (open != std::string::npos && close > open + 1) {
      size_t at = text.find(what.substr(open + 1, close - open - 1));
      if (at != std::string_view::npos) line = LineAt(text, at);
    }
    return InvalidInput("number out of range in JSON: " + what,
                        SourcePos{path, line});
  } catch (const nlohmann::json::exception& e) {
    return InvalidInput(std::string("malformed JSON: ") + e.what(),
                        SourcePos{path});
  }
  if (!j.is_object())
    return InvalidInput("expected a JSON object", SourcePos{path});
  GpuConfig c;
  if (j.contains("preset")) {
    if (!j["preset"].is_string()) {
      return InvalidInput("\"preset\" must be a string", SourcePos{path});
    }
    auto p = GpuConfigPreset(j["preset"].get<std::string>());
    if (!p.ok()) return InvalidInput(p.error().message, SourcePos{path});
    c = *p;
  }
  auto uint_field = [&](const std::string& key, uint64_t lo, uint64_t hi,
                        uint64_t* out) -> Status {
    const auto& v = j[key];
    if (!v.is_number_unsigned() || v.get<uint64_t>() < lo ||
        v.get<uint64_t>() > hi) {
      return InvalidInput("\"" + key + "\" must be an integer in " +
                              std::to_string(lo) + ".." + std::to_string(hi),
                          SourcePos{path});
    }
    *out = v.get<uint64_t>();
    return {};
  };
  for (const auto& [key, value] : j.items()) {
    uint64_t u = 0;
    if (key == "preset") continue;
    if (key == "name" && value.is_string()) {
      c.name = value.get<std::string>();
    } else if (key == "warp_width") {
      if (Status s = uint_field(key, 4, 32, &u); !s.ok()) return s.error();
      if (u % 4 != 0) {
        return InvalidInput(
            "\"warp_width\" must be a multiple of 4 (whole quads)",
            SourcePos{path});
      }
      c.warp_width = static_cast<uint32_t>(u);
    } else if (key == "vertex_batch_primitives") {
      if (Status s = uint_field(key, 1, 1u << 20, &u); !s.ok())
        return s.error();
      c.vertex_batch_primitives = static_cast<uint32_t>(u);
    } else if (key == "vertex_reuse_window") {
      if (Status s = uint_field(key, 0, 1u << 20, &u); !s.ok())
        return s.error();
      c.vertex_reuse_window = static_cast<uint32_t>(u);
    } else if (key == "tile_size") {
      if (Status s = uint_field(key, 2, 4096, &u); !s.ok()) return s.error();
      c.tile_size = static_cast<uint32_t>(u);
    } else if (key == "quad_packing" && value.is_string() &&
               (value == "per_primitive" || value == "mixed" ||
                value == "tiles")) {
      c.quad_packing = value == "mixed" ? pipeline::QuadPacking::kMixed
                       : value == "tiles"
                           ? pipeline::QuadPacking::kTiles
                           : pipeline::QuadPacking::kPerPrimitive;
    } else if (key == "open_tiles") {
      if (Status s = uint_field(key, 1, 4096, &u); !s.ok()) return s.error();
      c.open_tiles = static_cast<uint32_t>(u);
    } else if (key == "min_registers_per_thread") {
      if (Status s = uint_field(key, 0, 255, &u); !s.ok()) return s.error();
      c.min_registers_per_thread = static_cast<uint32_t>(u);
    } else if (key == "derivatives" && value.is_string() &&
               (value == "fine" || value == "coarse")) {
      c.derivatives_fine = value == "fine";
    } else if (key == "kill" && value.is_string() &&
               (value == "terminate" || value == "demote")) {
      c.kill_terminates = value == "terminate";
    } else if (key == "sm" && value.is_object()) {
      if (Status s = ParseSmLimits(value, path, &c.sm); !s.ok()) {
        return s.error();
      }
    } else if (key == "timing" && value.is_object()) {
      if (Status s = ParseTiming(value, path, &c.timing); !s.ok()) {
        return s.error();
      }
    } else if (key == "max_warp_instructions") {
      if (Status s = uint_field(key, 1, ~0ull, &u); !s.ok()) return s.error();
      c.max_warp_instructions = u;
    } else {
      return InvalidInput(
          "unknown or malformed key \"" + key +
              "\" (expected preset, name, warp_width, "
              "vertex_batch_primitives, vertex_reuse_window, "
              "tile_size, min_registers_per_thread, quad_packing: "
              "per_primitive|mixed|tiles, open_tiles, "
              "derivatives: "
              "fine|coarse, kill: terminate|demote, "
              "max_warp_instructions, sm: {...}, timing: {...})",
          SourcePos{path});
    }
  }
  return c;
}

}  // namespace warpsim::runner
