#include "runner/runner.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "pipeline/compute.h"
#include "pipeline/graphics.h"
#include "pipeline/output_merge.h"
#include "runner/image_binding.h"
#include "runner/shader_build.h"
#include "runner/supported.h"
#include "scene/amber_parser.h"
#include "scene/expectations.h"
#include "simt/opcode_info.h"

namespace warpsim::runner {
namespace {

bool HasAtomics(const simt::Program& program) {
  return std::any_of(
      program.code.begin(), program.code.end(),
      [](const simt::Instr& instr) { return simt::IsAtomic(instr.op); });
}

// Executes one scene (see runner.h).
class SceneRunner {
 public:
  SceneRunner(const scene::Scene& scene, const RunOptions& options,
              RunReport* report)
      : scene_(scene),
        options_(options),
        report_(report),
        cache_(options.shader_cache_dir) {
    if (options.timing_mode) {
      trace_ = std::make_shared<trace::Trace>();
      trace_->detail = options.trace_detail;
      trace_->max_instruction_events = options.trace_max_events;
      timing_ = std::make_unique<sm::TimingModel>(
          options.timing, options.sm, options.min_registers_per_thread,
          trace_.get());
      timing_->set_observer(options.trace_observer);
    }
    if (options.profile_branches) {
      profile_ = std::make_unique<profile::BranchProfile>();
    }
  }

  // The timing model's summary and trace (timing mode).
  void CollectTiming(RunReport* report) const {
    if (!timing_) return;
    TimingReport t;
    t.clock_mhz = timing_->config().clock_mhz;
    t.cycles = timing_->cycles();
    t.scheduler = sm::SchedulerName(timing_->config().scheduler);
    t.context_switch = sm::ContextSwitchName(timing_->config().context_switch);
    const std::vector<sm::SmTiming> sms = timing_->sms();
    for (uint32_t i = 0; i < sms.size(); ++i) {
      if (sms[i].busy_cycles == 0) continue;
      t.sms.push_back(sms[i]);
      t.sm_ids.push_back(i);
    }
    report->timing = std::move(t);
    report->trace = trace_;
  }

  Status Run() {
    for (const std::string& f : scene_.device_features) {
      if (!SupportedFeatures().count(f))
        return Unsupported("device feature " + f);
    }
    for (const std::string& e : scene_.device_extensions) {
      if (!SupportedExtensions().count(e))
        return Unsupported("device extension " + e);
      if (e == "VK_EXT_scalar_block_layout") {
        settings_.validate.scalar_block_layout = true;
      }
      if (e == "VK_KHR_uniform_buffer_standard_layout") {
        settings_.validate.uniform_buffer_standard_layout = true;
      }
      if (e == "VK_KHR_workgroup_memory_explicit_layout") {
        settings_.validate.workgroup_scalar_block_layout = true;
      }
    }
    settings_.validate.relax_block_layout = true;
    for (const scene::Buffer& b : scene_.buffers) {
      // Images get room for every mip level and sample up front, so binding
      // never reallocates a buffer another binding already points into.
      std::vector<uint8_t>& bytes = buffers_[b.name] = b.bytes;
      if (b.dim != scene::ImageDim::kNone || b.mip_levels > 1 ||
          b.samples > 1) {
        bytes.resize(std::max<uint64_t>(bytes.size(), ImageStorageBytes(b)));
      }
    }
    return RunCommands(scene_.commands);
  }

 private:
  // Worker threads for the pipeline's parallel driver.
  // Timing mode: the registers per thread RunOptions sets for pipeline
  // `name`'s stages.
  sm::StageRegisters RegistersFor(const std::string& name) const {
    const uint32_t all = options_.regs_per_thread;
    sm::StageRegisters r{all, all, all};
    if (auto it = options_.pipeline_registers.find(name);
        it != options_.pipeline_registers.end()) {
      if (it->second.vertex != 0) r.vertex = it->second.vertex;
      if (it->second.fragment != 0) r.fragment = it->second.fragment;
      if (it->second.compute != 0) r.compute = it->second.compute;
    }
    return r;
  }

  uint32_t Threads() const {
    if (options_.threads != 0) return options_.threads;
    return std::max(1u, std::thread::hardware_concurrency());
  }

  Status RunCommands(const std::vector<scene::Command>& commands) {
    for (const scene::Command& cmd : commands) {
      Status s = std::visit([&](const auto& c) { return Execute(c, cmd.line); },
                            cmd.data);
      if (!s.ok()) {
        if (s.error().pos.file.empty()) s.error().pos.file = scene_.file_path;
        if (s.error().pos.line == 0 && s.error().pos.word < 0)
          s.error().pos.line = cmd.line;
        return s;
      }
    }
    return {};
  }

  Status Execute(const scene::RunCommand& run, int line) {
    const scene::Pipeline* p = scene_.FindPipeline(run.pipeline);
    if (p == nullptr) return InvalidInput("unknown pipeline " + run.pipeline);
    if (!std::holds_alternative<scene::RunCompute>(run.draw)) {
      if (p->type != scene::PipelineType::kGraphics) {
        return InvalidInput("RUN " + run.pipeline +
                            " DRAW_* needs a graphics pipeline");
      }
      return ExecuteDraw(*p, run);
    }
    if (p->type != scene::PipelineType::kCompute) {
      return InvalidInput("RUN with workgroup counts needs a compute pipeline");
    }
    auto program = GetProgram(*p);
    if (!program.ok()) return program.error();
    const auto& rc = std::get<scene::RunCompute>(run.draw);
    const uint32_t groups[3] = {rc.x, rc.y, rc.z};
    const uint64_t total = static_cast<uint64_t>(rc.x) * rc.y * rc.z;
    if (total > (1ull << 31)) {
      return InvalidInput("dispatch of " + std::to_string(total) +
                          " workgroups exceeds the limit of 2^31");
    }
    std::vector<simt::MemRegion> regions;
    std::vector<simt::ImageDesc> images;
    if (Status s = BindResources(*p, **program, &regions, &images); !s.ok()) {
      return s;
    }
    pipeline::ComputeLimits limits;
    limits.warp_width = options_.warp_width;
    limits.max_warp_instructions = options_.max_warp_instructions;
    limits.threads = Threads();
    limits.step_observer = profile_.get();
    if (timing_) {
      timing_->BeginRun(
          "dispatch " + std::to_string(report_->dispatches.size()) +
              " (pipeline " + p->name + ", line " + std::to_string(line) + ")",
          RegistersFor(p->name));
      limits.driver = timing_.get();
    }
    auto stats = pipeline::DispatchCompute((*program)->program, groups,
                                           std::move(regions),
                                           std::move(images), limits);
    if (!stats.ok()) {
      CountStoppedWork(stats.error());
      return stats.error();
    }
    report_->dispatches.push_back({p->name, *stats, {}});
    if (timing_) report_->dispatches.back().timing = timing_->runs().back();
    report_->stats.warp_instructions += stats->warp_instructions;
    report_->stats.lane_instructions += stats->lane_instructions;
    report_->stats.helper_lane_instructions += stats->helper_lane_instructions;
    report_->stats.workgroups += stats->workgroups;
    report_->stats.warps += stats->warps;
    report_->stats.dispatches += 1;
    return {};
  }

  // A dispatch or draw stopped by the instruction limit: its work up to the
  // stop counts in the run's totals.
  void CountStoppedWork(const Diagnostic& d) {
    if (d.kind != ErrorKind::kLimitExceeded) return;
    report_->stats.warp_instructions += d.warp_instructions;
    report_->stats.lane_instructions += d.lane_instructions;
  }

  Status Execute(const scene::ClearColorCommand& c, int) {
    ClearValues& v = clears_[c.pipeline];
    v.color[0] = c.r;
    v.color[1] = c.g;
    v.color[2] = c.b;
    v.color[3] = c.a;
    return {};
  }
  Status Execute(const scene::ClearDepthCommand& c, int) {
    clears_[c.pipeline].depth = c.value;
    return {};
  }
  Status Execute(const scene::ClearStencilCommand& c, int) {
    clears_[c.pipeline].stencil = c.value;
    return {};
  }
  // CLEAR: colour attachments to CLEAR_COLOR, depth/stencil attachments to
  // CLEAR_DEPTH / CLEAR_STENCIL.
  Status Execute(const scene::ClearCommand& c, int) {
    const scene::Pipeline* p = scene_.FindPipeline(c.pipeline);
    if (p == nullptr) return InvalidInput("unknown pipeline " + c.pipeline);
    const ClearValues& v = clears_[c.pipeline];
    for (const scene::Binding& b : p->bindings) {
      if (b.kind != scene::BindingKind::kColor &&
          b.kind != scene::BindingKind::kDepthStencil) {
        continue;
      }
      for (const std::string& name : b.buffers) {
        const scene::Buffer* buf = scene_.FindBuffer(name);
        std::vector<uint8_t>& bytes = buffers_[name];
        const simt::TexelFormat f = TexelFormatOf(buf->format);
        if (f.bytes == 0) continue;
        std::vector<uint8_t> texel(f.bytes, 0);
        if (b.kind == scene::BindingKind::kColor) {
          simt::Texel t;
          for (int k = 0; k < 4; ++k) {
            t.f[k] = v.color[k];
            t.i[k] = static_cast<uint64_t>(static_cast<int64_t>(v.color[k]));
          }
          simt::EncodeTexel(f, t, texel.data());
        } else {
          if (pipeline::HasDepth(f))
            pipeline::WriteDepth(f, v.depth, texel.data());
          if (pipeline::HasStencil(f)) {
            pipeline::WriteStencil(f, static_cast<uint8_t>(v.stencil),
                                   texel.data());
          }
        }
        // Only the bound mip level (BASE_MIP_LEVEL) is cleared.
        const uint64_t begin = ImageLevelOffset(*buf, b.base_mip_level);
        const uint64_t end = std::min<uint64_t>(
            bytes.size(), ImageLevelOffset(*buf, b.base_mip_level + 1));
        for (uint64_t at = begin; at + f.bytes <= end; at += f.bytes) {
          std::memcpy(bytes.data() + at, texel.data(), f.bytes);
        }
      }
    }
    return {};
  }

  // A draw: RUN pipeline DRAW_RECT / DRAW_GRID / DRAW_ARRAY.
  Status ExecuteDraw(const scene::Pipeline& p, const scene::RunCommand& run) {
    auto programs = GetGraphicsPrograms(p);
    if (!programs.ok()) return programs.error();
    pipeline::GraphicsState state;
    state.vs = &(*programs)->vs.program;
    state.fs = &(*programs)->fs.program;
    if (Status s = BindResources(p, (*programs)->vs, &state.vs_regions,
                                 &state.vs_images);
        !s.ok()) {
      return s;
    }
    if (Status s = BindResources(p, (*programs)->fs, &state.fs_regions,
                                 &state.fs_images);
        !s.ok()) {
      return s;
    }
    state.config.warp_width = options_.warp_width;
    state.config.max_warp_instructions = options_.max_warp_instructions;
    state.config.threads = Threads();
    state.config.step_observer = profile_.get();
    state.config.vertex_batch_primitives = options_.vertex_batch_primitives;
    state.config.vertex_reuse_window = options_.vertex_reuse_window;
    state.config.tile_size = options_.tile_size;
    state.config.quad_packing = options_.quad_packing;
    state.config.open_tiles = options_.open_tiles;
    state.framebuffer_width = p.framebuffer_width;
    state.framebuffer_height = p.framebuffer_height;
    if (p.viewport) {
      state.viewport = {p.viewport->x,         p.viewport->y,
                        p.viewport->width,     p.viewport->height,
                        p.viewport->min_depth, p.viewport->max_depth};
    } else {
      state.viewport = {0,
                        0,
                        static_cast<float>(p.framebuffer_width),
                        static_cast<float>(p.framebuffer_height),
                        0,
                        1};
    }
    if (Status s = SetFixedFunctionState(p, &state); !s.ok()) return s;
    // Attachments.
    for (const scene::Binding& b : p.bindings) {
      if (b.kind != scene::BindingKind::kColor &&
          b.kind != scene::BindingKind::kDepthStencil) {
        continue;
      }
      const scene::Buffer* buf = scene_.FindBuffer(b.buffers.at(0));
      std::vector<uint8_t>& bytes = buffers_[buf->name];
      // The attachment is the bound mip level (BASE_MIP_LEVEL).
      const uint32_t level = b.base_mip_level;
      const uint64_t begin =
          std::min<uint64_t>(bytes.size(), ImageLevelOffset(*buf, level));
      pipeline::Attachment att;
      att.location = b.location;
      att.data = bytes.data() + begin;
      att.size =
          std::min<uint64_t>(bytes.size(), ImageLevelOffset(*buf, level + 1)) -
          begin;
      att.format = TexelFormatOf(buf->format);
      att.width = std::max(1u, buf->width >> level);
      att.height = std::max(1u, buf->height >> level);
      if (buf->samples > 1) {
        return Unsupported("multisampled attachments",
                           SourcePos{scene_.file_path, b.line});
      }
      if (b.kind == scene::BindingKind::kColor) {
        state.colors.push_back(att);
        NoteImageOutput(*buf);
      } else {
        state.depth_stencil = att;
      }
    }
    // Vertex data and the draw call.
    pipeline::DrawCall call;
    std::vector<float> generated;  // DRAW_RECT / DRAW_GRID positions
    if (const auto* rect = std::get_if<scene::RunDrawRect>(&run.draw)) {
      const float fw = static_cast<float>(p.framebuffer_width);
      const float fh = static_cast<float>(p.framebuffer_height);
      // Pixels → NDC, unless the rectangle is given in NDC already.
      const float x = rect->ndc ? rect->x : rect->x / fw * 2.0f - 1.0f,
                  y = rect->ndc ? rect->y : rect->y / fh * 2.0f - 1.0f;
      const float w = rect->ndc ? rect->width : rect->width / fw * 2.0f,
                  h = rect->ndc ? rect->height : rect->height / fh * 2.0f;
      // Amber's rectangle: a 4-vertex triangle strip.
      generated = {x, y + h, x, y, x + w, y + h, x + w, y};
      state.topology = pipeline::Topology::kTriangleStrip;
      call.count = 4;
    } else if (const auto* grid = std::get_if<scene::RunDrawGrid>(&run.draw)) {
      const float fw = static_cast<float>(p.framebuffer_width);
      const float fh = static_cast<float>(p.framebuffer_height);
      const float x = grid->x / fw * 2.0f - 1.0f,
                  y = grid->y / fh * 2.0f - 1.0f;
      const float cw =
          grid->width / fw * 2.0f / static_cast<float>(grid->columns);
      const float ch =
          grid->height / fh * 2.0f / static_cast<float>(grid->rows);
      if (static_cast<uint64_t>(grid->columns) * grid->rows > (1u << 22)) {
        return InvalidInput("DRAW_GRID of more than 2^22 cells");
      }
      // Two triangles per cell, row by row (Amber's order).
      for (uint32_t r = 0; r < grid->rows; ++r) {
        for (uint32_t c = 0; c < grid->columns; ++c) {
          const float x0 = x + cw * static_cast<float>(c);
          const float y0 = y + ch * static_cast<float>(r);
          const float x1 = x + cw * static_cast<float>(c + 1);
          const float y1 = y + ch * static_cast<float>(r + 1);
          const float cell[12] = {x1, y1, x0, y1, x0, y0,
                                  x1, y1, x0, y0, x1, y0};
          generated.insert(generated.end(), cell, cell + 12);
        }
      }
      state.topology = pipeline::Topology::kTriangleList;
      call.count = static_cast<uint32_t>(generated.size() / 2);
    } else {
      const auto& arr = std::get<scene::RunDrawArray>(run.draw);
      auto topology = ParseTopology(arr.topology);
      if (!topology.ok()) return topology.error();
      state.topology = *topology;
      if (Status s = AddVertexData(p, &state); !s.ok()) return s;
      call.first = arr.start_index;
      call.first_instance = arr.start_instance;
      call.instance_count = arr.instance_count;
      if (arr.indexed) {
        if (p.index_data.empty()) {
          return InvalidInput("DRAW_ARRAY INDEXED without INDEX_DATA");
        }
        const scene::Buffer* ib = scene_.FindBuffer(p.index_data);
        const std::vector<uint8_t>& bytes = buffers_[ib->name];
        call.indexed = true;
        call.vertex_offset = arr.vertex_offset;
        call.indices = bytes.data();
        call.indices_size = bytes.size();
        call.index_bytes = std::max<uint32_t>(1, ib->format.stride);
        if (call.index_bytes != 1 && call.index_bytes != 2 &&
            call.index_bytes != 4) {
          return InvalidInput("index buffer elements must be 8, 16 or 32 bits");
        }
        const uint64_t total = bytes.size() / call.index_bytes;
        call.count = arr.count.value_or(static_cast<uint32_t>(
            total > arr.start_index ? total - arr.start_index : 0));
      } else {
        uint64_t total = 0;
        for (const auto& in : state.vertex_inputs) {
          if (in.per_instance || in.stride == 0) continue;
          const uint64_t n =
              in.size > in.offset ? (in.size - in.offset) / in.stride : 0;
          total = total == 0 ? n : std::min(total, n);
        }
        call.count = arr.count.value_or(static_cast<uint32_t>(
            total > arr.start_index ? total - arr.start_index : 0));
      }
    }
    if (!generated.empty()) {
      pipeline::VertexInput in;
      in.location = 0;
      in.data = reinterpret_cast<const uint8_t*>(generated.data());
      in.size = generated.size() * sizeof(float);
      in.format = TexelFormatOf(*scene::ParseVulkanFormat("R32G32_SFLOAT"));
      in.stride = 8;
      state.vertex_inputs.push_back(in);
    }
    if (timing_) {
      timing_->BeginRun("draw " + std::to_string(report_->draws.size()) +
                            " (pipeline " + p.name + ")",
                        RegistersFor(p.name));
      state.config.driver = timing_.get();
    }
    auto stats = pipeline::Draw(state, call);
    if (!stats.ok()) {
      CountStoppedWork(stats.error());
      return stats.error();
    }
    report_->draws.push_back({p.name, *stats, {}});
    if (timing_) report_->draws.back().timing = timing_->runs().back();
    report_->stats.warp_instructions += stats->warp_instructions;
    report_->stats.lane_instructions += stats->lane_instructions;
    report_->stats.helper_lane_instructions += stats->helper_lane_instructions;
    report_->stats.warps += stats->vertex_warps + stats->fragment_warps;
    return {};
  }

  static Result<pipeline::Topology> ParseTopology(const std::string& name) {
    static const std::map<std::string, pipeline::Topology> kTopologies = {
        {"point_list", pipeline::Topology::kPointList},
        {"line_list", pipeline::Topology::kLineList},
        {"line_strip", pipeline::Topology::kLineStrip},
        {"triangle_list", pipeline::Topology::kTriangleList},
        {"triangle_strip", pipeline::Topology::kTriangleStrip},
        {"triangle_fan", pipeline::Topology::kTriangleFan},
    };
    auto it = kTopologies.find(name);
    if (it != kTopologies.end()) return it->second;
    if (name == "patch_list")
      return Unsupported("tessellation (topology patch_list)");
    if (name.find("adjacency") != std::string::npos) {
      return Unsupported("topology " + name + " (geometry shaders)");
    }
    return InvalidInput("unknown topology " + name);
  }

  Status AddVertexData(const scene::Pipeline& p,
                       pipeline::GraphicsState* state) {
    for (const scene::VertexData& vd : p.vertex_data) {
      const scene::Buffer* buf = scene_.FindBuffer(vd.buffer);
      const std::vector<uint8_t>& bytes = buffers_[buf->name];
      pipeline::VertexInput in;
      in.location = vd.location;
      in.data = bytes.data();
      in.size = bytes.size();
      const scene::ElementFormat& f = vd.format ? *vd.format : buf->format;
      in.format = TexelFormatOf(f);
      in.offset = vd.offset;
      in.stride = vd.stride.value_or(buf->format.stride);
      in.per_instance = vd.per_instance;
      state->vertex_inputs.push_back(in);
    }
    return {};
  }

  Status SetFixedFunctionState(const scene::Pipeline& p,
                               pipeline::GraphicsState* s) {
    if (p.polygon_mode == "fill") {
      s->polygon_mode = pipeline::PolygonMode::kFill;
    } else if (p.polygon_mode == "line") {
      s->polygon_mode = pipeline::PolygonMode::kLine;
    } else if (p.polygon_mode == "point") {
      s->polygon_mode = pipeline::PolygonMode::kPoint;
    } else {
      return InvalidInput("unknown POLYGON_MODE " + p.polygon_mode);
    }
    if (p.cull_mode == "none") {
      s->cull = pipeline::CullMode::kNone;
    } else if (p.cull_mode == "front") {
      s->cull = pipeline::CullMode::kFront;
    } else if (p.cull_mode == "back") {
      s->cull = pipeline::CullMode::kBack;
    } else if (p.cull_mode == "front_and_back") {
      s->cull = pipeline::CullMode::kFrontAndBack;
    } else {
      return InvalidInput("unknown CULL_MODE " + p.cull_mode);
    }
    if (p.front_face == "counter_clockwise") {
      s->front_face_ccw = true;
    } else if (p.front_face == "clockwise") {
      s->front_face_ccw = false;
    } else {
      return InvalidInput("unknown FRONT_FACE " + p.front_face);
    }
    s->depth.test = p.depth.test;
    s->depth.write = p.depth.write;
    s->depth.clamp = p.depth.clamp;
    s->depth.bounds_test = p.depth.bounds_test;
    s->depth.min_bounds = p.depth.bounds_min;
    s->depth.max_bounds = p.depth.bounds_max;
    auto op = pipeline::ParseCompareOp(p.depth.compare_op);
    if (!op.ok()) return op.error();
    s->depth.compare_op = *op;
    for (const std::string& e : scene_.device_extensions) {
      if (e == "VK_EXT_depth_range_unrestricted")
        s->depth.range_unrestricted = true;
    }
    s->depth_bias.enable = p.depth.bias;
    s->depth_bias.constant = p.depth.bias_constant;
    s->depth_bias.slope = p.depth.bias_slope;
    s->depth_bias.clamp = p.depth.bias_clamp;
    s->stencil.test = p.stencil.test;
    for (int f = 0; f < 2; ++f) {
      const scene::StencilFace& in = f == 0 ? p.stencil.front : p.stencil.back;
      pipeline::StencilFaceState& out =
          f == 0 ? s->stencil.front : s->stencil.back;
      auto fail = pipeline::ParseStencilOp(in.fail_op);
      auto pass = pipeline::ParseStencilOp(in.pass_op);
      auto depth_fail = pipeline::ParseStencilOp(in.depth_fail_op);
      auto cmp = pipeline::ParseCompareOp(in.compare_op);
      for (const Status& st :
           {fail.ok() ? Status() : Status(fail.error()),
            pass.ok() ? Status() : Status(pass.error()),
            depth_fail.ok() ? Status() : Status(depth_fail.error()),
            cmp.ok() ? Status() : Status(cmp.error())}) {
        if (!st.ok()) return st;
      }
      out.fail_op = *fail;
      out.pass_op = *pass;
      out.depth_fail_op = *depth_fail;
      out.compare_op = *cmp;
      out.compare_mask = static_cast<uint8_t>(in.compare_mask);
      out.write_mask = static_cast<uint8_t>(in.write_mask);
      out.reference = static_cast<uint8_t>(in.reference);
    }
    s->blend.enable = p.blend.enabled;
    auto sc = pipeline::ParseBlendFactor(p.blend.src_color_factor);
    auto dc = pipeline::ParseBlendFactor(p.blend.dst_color_factor);
    auto co = pipeline::ParseBlendOp(p.blend.color_op);
    auto sa = pipeline::ParseBlendFactor(p.blend.src_alpha_factor);
    auto da = pipeline::ParseBlendFactor(p.blend.dst_alpha_factor);
    auto ao = pipeline::ParseBlendOp(p.blend.alpha_op);
    for (const Status& st : {sc.ok() ? Status() : Status(sc.error()),
                             dc.ok() ? Status() : Status(dc.error()),
                             co.ok() ? Status() : Status(co.error()),
                             sa.ok() ? Status() : Status(sa.error()),
                             da.ok() ? Status() : Status(da.error()),
                             ao.ok() ? Status() : Status(ao.error())}) {
      if (!st.ok()) return st;
    }
    s->blend.src_color_factor = *sc;
    s->blend.dst_color_factor = *dc;
    s->blend.color_op = *co;
    s->blend.src_alpha_factor = *sa;
    s->blend.dst_alpha_factor = *da;
    s->blend.alpha_op = *ao;
    if (s->blend.enable && pipeline::UsesDualSource(s->blend)) {
      return Unsupported("dual-source blending");
    }
    if (p.patch_control_points != 0)
      return Unsupported("tessellation (PATCH_CONTROL_POINTS)");
    return {};
  }

  void NoteImageOutput(const scene::Buffer& buf) {
    for (const std::string& n : image_outputs_) {
      if (n == buf.name) return;
    }
    image_outputs_.push_back(buf.name);
  }

  struct GraphicsPrograms {
    BuiltProgram vs, fs;
  };

  // Compiles, validates, legalizes and lowers one attached shader.
  Result<BuiltProgram> BuildStage(const scene::Pipeline& p,
                                  const scene::ShaderAttachment& att,
                                  spv::ExecutionModel model) {
    const scene::Shader* shader = scene_.FindShader(att.shader);
    if (shader == nullptr) return InvalidInput("unknown shader " + att.shader);
    Result<std::vector<uint32_t>> words =
        ShaderWords(*shader, scene_, &cache_, options_.shader_debug_info,
                    options_.glsl_defines);
    if (!words.ok()) return words.error();
    auto e = ShaderTargetEnv(*shader, &scene_);
    if (!e.ok()) return e.error();
    const spirv::TargetEnv env = *e;
    simt::LowerOptions lower;
    lower.entry_point = att.entry_point;
    lower.model = model;
    lower.warp_width = options_.warp_width;
    lower.derivatives_fine = options_.derivatives_fine;
    lower.kill_terminates = options_.kill_terminates;
    for (const auto& spec : att.specializations)
      lower.spec_values[spec.id] = spec.bits;
    BuildSettings settings = settings_;
    settings.optimizations = att.optimizations;
    const std::string file =
        scene_.file_path + " (shader " + shader->name + ")";
    auto built = BuildProgram(*words, env, file, lower, settings, &cache_);
    if (!built.ok() && options_.shader_debug_info &&
        shader->format == scene::ShaderFormat::kGlsl) {
      // Debug information is for viewers only: a module that does not
      // build with it is built as it would be without.
      auto plain =
          ShaderWords(*shader, scene_, &cache_, false, options_.glsl_defines);
      if (!plain.ok()) return plain.error();
      built = BuildProgram(*plain, env, file, lower, settings, &cache_);
    }
    // Assembly without TARGET_ENV is SPIR-V 1.0 (Amber's default); the
    // Vulkan CTS runs such files at the SPIR-V version their instructions
    // need. When validation asks for a newer version, assemble for it.
    const std::string_view kNeeds = "requires SPIR-V version 1.";
    if (!built.ok() && shader->format == scene::ShaderFormat::kSpirvAsm &&
        shader->target_env.empty()) {
      const std::string& msg = built.error().message;
      const size_t at = msg.find(kNeeds);
      if (at != std::string::npos && at + kNeeds.size() < msg.size()) {
        const char minor = msg[at + kNeeds.size()];
        if (minor >= '1' && minor <= '6') {
          auto newer = spirv::ParseTargetEnv(std::string("spv1.") + minor);
          auto words2 =
              newer.ok()
                  ? CachedAssembleSpirv(&cache_, shader->source, *newer, file)
                  : Result<std::vector<uint32_t>>(newer.error());
          if (words2.ok()) {
            built =
                BuildProgram(*words2, *newer, file, lower, settings, &cache_);
          }
        }
      }
    }
    return built;
  }

  Result<const GraphicsPrograms*> GetGraphicsPrograms(
      const scene::Pipeline& p) {
    auto it = graphics_.find(p.name);
    if (it != graphics_.end()) return &it->second;
    const scene::ShaderAttachment* vs = nullptr;
    const scene::ShaderAttachment* fs = nullptr;
    for (const auto& att : p.shaders) {
      switch (att.stage) {
        case scene::ShaderStage::kVertex:
          vs = &att;
          break;
        case scene::ShaderStage::kFragment:
          fs = &att;
          break;
        case scene::ShaderStage::kGeometry:
          return Unsupported("geometry shaders");
        case scene::ShaderStage::kTessControl:
        case scene::ShaderStage::kTessEvaluation:
          return Unsupported("tessellation shaders");
        default:
          return InvalidInput("a graphics pipeline cannot take a " +
                              std::string(scene::ShaderStageName(att.stage)) +
                              " shader");
      }
    }
    if (vs == nullptr || fs == nullptr) {
      return InvalidInput("graphics pipeline " + p.name +
                          " needs a vertex and a fragment shader");
    }
    GraphicsPrograms programs;
    auto v = BuildStage(p, *vs, spv::ExecutionModel::Vertex);
    if (!v.ok()) return v.error();
    auto f = BuildStage(p, *fs, spv::ExecutionModel::Fragment);
    if (!f.ok()) return f.error();
    programs.vs = std::move(*v);
    programs.fs = std::move(*f);
    for (const auto& [att, b] :
         {std::pair{vs, &programs.vs}, std::pair{fs, &programs.fs}}) {
      PipelineReport pr;
      pr.name = p.name;
      pr.stage = scene::ShaderStageName(att->stage);
      pr.shader = att->shader;
      pr.entry_point = b->program.entry_name;
      pr.registers_allocated = b->program.num_regs;
      pr.registers_per_thread =
          std::max(b->program.model_regs, options_.min_registers_per_thread);
      pr.instructions = static_cast<uint32_t>(b->program.code.size());
      pr.atomics = HasAtomics(b->program);
      report_->pipelines.push_back(pr);
    }
    auto [pos, _] = graphics_.emplace(p.name, std::move(programs));
    return &pos->second;
  }
  Status Execute(const scene::CopyCommand& copy, int) {
    auto from = buffers_.find(copy.from);
    if (from == buffers_.end())
      return InvalidInput("unknown buffer " + copy.from);
    buffers_[copy.to] = from->second;
    // The destination takes the source's shape (an image stays an image).
    if (const scene::Buffer* src = scene_.FindBuffer(copy.from)) {
      shape_of_[copy.to] = ShapeOf(*src);
    }
    return {};
  }
  Status Execute(const scene::BufferWriteCommand& w, int) {
    std::vector<uint8_t>& bytes = buffers_[w.buffer];
    if (w.offset > bytes.size() || w.bytes.size() > bytes.size() - w.offset) {
      return InvalidInput("write of " + std::to_string(w.bytes.size()) +
                          " bytes at offset " + std::to_string(w.offset) +
                          " is outside buffer " + w.buffer);
    }
    std::copy(w.bytes.begin(), w.bytes.end(), bytes.begin() + w.offset);
    return {};
  }
  Status Execute(const scene::RepeatCommand& repeat, int) {
    for (uint32_t i = 0; i < repeat.count; ++i) {
      if (Status s = RunCommands(repeat.commands); !s.ok()) return s;
    }
    return {};
  }
  Status Execute(const scene::ExpectCommand& expect, int line) {
    const scene::Buffer* buf = scene_.FindBuffer(expect.buffer);
    if (buf == nullptr) return InvalidInput("unknown buffer " + expect.buffer);
    const scene::Buffer* other = expect.other_buffer.empty()
                                     ? nullptr
                                     : scene_.FindBuffer(expect.other_buffer);
    std::span<const uint8_t> other_bytes;
    if (other != nullptr) other_bytes = buffers_[other->name];
    const scene::Buffer shaped = ShapeOf(*buf);
    const scene::ExpectationResult r = scene::EvaluateExpect(
        expect, shaped, buffers_[buf->name], other, other_bytes);
    report_->expectations.push_back({line, r.passed, r.message});
    return {};
  }

  // Compiles and lowers a compute pipeline's shader (cached).
  Result<const BuiltProgram*> GetProgram(const scene::Pipeline& p) {
    auto it = programs_.find(p.name);
    if (it != programs_.end()) return &it->second;
    if (p.shaders.empty())
      return InvalidInput("pipeline " + p.name + " has no shader");
    const scene::ShaderAttachment& att = p.shaders[0];
    auto built = BuildStage(p, att, spv::ExecutionModel::GLCompute);
    if (!built.ok()) return built.error();
    PipelineReport pr;
    pr.name = p.name;
    pr.stage = scene::ShaderStageName(att.stage);
    pr.shader = att.shader;
    pr.entry_point = att.entry_point;
    pr.registers_allocated = built->program.num_regs;
    pr.registers_per_thread =
        std::max(built->program.model_regs, options_.min_registers_per_thread);
    pr.instructions = static_cast<uint32_t>(built->program.code.size());
    pr.atomics = HasAtomics(built->program);
    report_->pipelines.push_back(pr);
    auto [pos, _] = programs_.emplace(p.name, std::move(*built));
    return &pos->second;
  }

  // Points each resource of the program at the buffer bound to it.
  Status BindResources(const scene::Pipeline& p, const BuiltProgram& built,
                       std::vector<simt::MemRegion>* regions,
                       std::vector<simt::ImageDesc>* images) {
    const simt::Program& program = built.program;
    regions->assign(program.num_regions, simt::MemRegion{});
    images->assign(program.num_regions, simt::ImageDesc{});
    for (const simt::ResourceSlot& res : program.resources) {
      const scene::Binding* found = nullptr;
      for (const scene::Binding& b : p.bindings) {
        if (res.is_push_constant) {
          if (b.kind == scene::BindingKind::kPushConstant) found = &b;
        } else if (b.has_descriptor && b.descriptor_set == res.set &&
                   b.binding == res.binding) {
          found = &b;
        }
      }
      if (found == nullptr) continue;  // unbound: reads give 0, writes drop
      if (res.is_image) {
        for (uint32_t k = 0; k < res.array_size; ++k) {
          Status s = BindImage(scene_, *found, k, res.type_id, *built.module,
                               &buffers_, &(*images)[res.region + k]);
          if (!s.ok()) return s;
          // Image atomics reach texels through pointers into this region.
          const simt::ImageDesc& d = (*images)[res.region + k];
          (*regions)[res.region + k] = {d.data, d.size, d.writable};
        }
        continue;
      }
      switch (found->kind) {
        case scene::BindingKind::kStorage:
        case scene::BindingKind::kUniform:
        case scene::BindingKind::kStorageDynamic:
        case scene::BindingKind::kUniformDynamic:
        case scene::BindingKind::kPushConstant:
          break;
        default:
          return Unsupported(std::string("binding kind ") +
                                 scene::BindingKindName(found->kind) +
                                 " for a buffer block",
                             SourcePos{scene_.file_path, found->line});
      }
      for (uint32_t k = 0; k < res.array_size && k < found->buffers.size();
           ++k) {
        std::vector<uint8_t>& bytes = buffers_[found->buffers[k]];
        uint64_t offset = 0;
        uint64_t size = bytes.size();
        if (k < found->descriptor_offsets.size())
          offset = found->descriptor_offsets[k];
        if (k < found->dynamic_offsets.size())
          offset += found->dynamic_offsets[k];
        offset = std::min<uint64_t>(offset, size);
        size -= offset;
        if (k < found->descriptor_ranges.size() &&
            found->descriptor_ranges[k] != ~0ull) {
          size = std::min<uint64_t>(size, found->descriptor_ranges[k]);
        }
        (*regions)[res.region + k] = {
            bytes.data() + offset, size,
            res.storage != spv::StorageClass::Uniform && !res.is_push_constant};
      }
    }
    return {};
  }

  const scene::Scene& scene_;
  RunOptions options_;
  RunReport* report_;
  ShaderCache cache_;  // compiled shaders on disk (off: no directory)
  // Timing mode: the SM timing model every draw and dispatch runs on, and
  // what it records.
  std::shared_ptr<trace::Trace> trace_;
  std::unique_ptr<sm::TimingModel> timing_;
  BuildSettings settings_;
  std::map<std::string, std::vector<uint8_t>> buffers_;
  std::map<std::string, BuiltProgram> programs_;
  std::map<std::string, GraphicsPrograms> graphics_;
  // RunOptions::profile_branches: sees every issued instruction.
  std::unique_ptr<profile::BranchProfile> profile_;
  struct ClearValues {
    float color[4] = {0, 0, 0, 0};
    float depth = 1.0f;
    uint32_t stencil = 0;
  };
  std::map<std::string, ClearValues> clears_;
  std::vector<std::string> image_outputs_;  // colour attachments drawn to
  // Buffers whose shape (format, extent) changed at run time (COPY).
  std::map<std::string, scene::Buffer> shape_of_;

  // A buffer's current shape (no data): the declared one unless a COPY
  // gave it another.
  scene::Buffer ShapeOf(const scene::Buffer& b) const {
    auto it = shape_of_.find(b.name);
    scene::Buffer shape = it != shape_of_.end() ? it->second : b;
    shape.name = b.name;
    shape.bytes.clear();
    return shape;
  }

 public:
  // Lookups of the compiled-shader cache, failed builds included.
  void CollectCacheStats(RunReport* report) const {
    report->stats.shader_cache_hits = cache_.hits();
    report->stats.shader_cache_misses = cache_.misses();
  }

  // What each pipeline's branches cost (RunOptions::profile_branches).
  void CollectProfiles(RunReport* report) const {
    if (!profile_) return;
    for (PipelineReport& pr : report->pipelines) {
      const simt::Program* program = nullptr;
      if (auto it = programs_.find(pr.name); it != programs_.end()) {
        program = &it->second.program;
      } else if (auto g = graphics_.find(pr.name); g != graphics_.end()) {
        program = pr.stage == "vertex" ? &g->second.vs.program
                                       : &g->second.fs.program;
      }
      if (program != nullptr) pr.profile = profile_->Of(*program);
    }
  }

  // Final contents of every buffer, in declaration order.
  void CollectBuffers(RunReport* report) {
    for (const scene::Buffer& b : scene_.buffers) {
      report->buffers.push_back({ShapeOf(b), buffers_[b.name]});
    }
  }

  // Final contents of every colour attachment (for PNG output).
  void CollectImages(RunReport* report) {
    for (const std::string& name : image_outputs_) {
      const scene::Buffer* buf = scene_.FindBuffer(name);
      ImageOutput out;
      out.name = name;
      out.format = TexelFormatOf(buf->format);
      out.width = buf->width;
      out.height = buf->height;
      out.bytes = buffers_[name];
      report->images.push_back(std::move(out));
    }
  }
};

}  // namespace

RunReport RunScene(const scene::Scene& scene, const RunOptions& options) {
  RunReport report;
  report.file = scene.file_path;
  report.warp_width = options.warp_width;
  const auto start = std::chrono::steady_clock::now();
  SceneRunner runner(scene, options, &report);
  Status s = runner.Run();
  runner.CollectImages(&report);
  if (options.keep_buffers) runner.CollectBuffers(&report);
  runner.CollectCacheStats(&report);
  runner.CollectTiming(&report);
  runner.CollectProfiles(&report);
  report.stats.host_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!s.ok()) {
    report.status = RunStatusFor(s.error().kind);
    report.diagnostic = s.error();
    return report;
  }
  report.status = RunStatus::kPass;
  for (const auto& e : report.expectations) {
    if (!e.passed) report.status = RunStatus::kFail;
  }
  return report;
}

RunReport RunAmberFile(const std::string& path, const RunOptions& options) {
  auto scene = scene::ParseAmberFile(path);
  if (!scene.ok()) {
    RunReport report;
    report.file = path;
    report.warp_width = options.warp_width;
    report.status = RunStatusFor(scene.error().kind);
    report.diagnostic = scene.error();
    return report;
  }
  return RunScene(*scene, options);
}

}  // namespace warpsim::runner
