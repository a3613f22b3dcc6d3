#include "runner/gpu_config.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

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

}  // namespace

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
              "max_warp_instructions, sm: {...})",
          SourcePos{path});
    }
  }
  return c;
}

}  // namespace warpsim::runner
