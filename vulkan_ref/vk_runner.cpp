#include "vulkan_ref/vk_runner.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <memory>
#include <set>

#include "runner/image_binding.h"
#include "runner/shader_cache.h"
#include "scene/amber_parser.h"
#include "scene/expectations.h"
#include "vulkan_ref/formats.h"
#include "vulkan_ref/pipelines.h"
#include "vulkan_ref/resources.h"
#include "vulkan_ref/shaders.h"
#include "vulkan_ref/submission.h"

namespace warpsim::vkref {

double DeviceDrawReport::median_gpu_ns() const {
  if (gpu_ns.empty()) return 0;
  std::vector<double> v = gpu_ns;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

namespace {

// --observe: the largest observation buffer (records of 80 bytes: 640 MiB).
constexpr uint32_t kMaxObserveRecords = 1u << 23;

class DeviceSceneRunner : public SceneState {
 public:
  DeviceSceneRunner(const scene::Scene& scene, const VkRunOptions& options,
                    DeviceRunReport* report)
      : scene_(scene),
        options_(options),
        report_(report),
        cache_(options.shader_cache_dir) {}

  ~DeviceSceneRunner() {
    work_.reset();
    resources_.reset();
    if (device_ == nullptr) return;
    VkDevice dev = device_->device();
    vkDeviceWaitIdle(dev);
    for (auto& [name, p] : pipelines_) p.Destroy(dev);
    for (auto& [name, s] : samplers_) vkDestroySampler(dev, s, nullptr);
  }

  Status Run() {
    auto device = Device::Create(options_.device, scene_, options_.observe);
    if (!device.ok()) return device.error();
    device_ = std::move(*device);
    report_->device = device_->info();
    report_->device_known = true;
    resources_ = std::make_unique<Resources>(device_.get());
    work_ = std::make_unique<Work>(device_.get(), resources_.get());
    for (const scene::Buffer& b : scene_.buffers) {
      // Images get room for every mip level up front, as in the emulator.
      std::vector<uint8_t>& bytes = bytes_[b.name] = b.bytes;
      if (b.dim != scene::ImageDim::kNone || b.mip_levels > 1 ||
          b.samples > 1) {
        bytes.resize(
            std::max<uint64_t>(bytes.size(), runner::ImageStorageBytes(b)));
      }
    }
    return RunCommands(scene_.commands);
  }

  void Collect() {
    report_->run.stats.shader_cache_hits = cache_.hits();
    report_->run.stats.shader_cache_misses = cache_.misses();
    if (resources_ != nullptr) {
      report_->device_local_buffers = resources_->device_local_buffers();
      report_->host_buffers = resources_->host_buffers();
    }
    for (const std::string& name : image_outputs_) {
      const scene::Buffer shape = ShapeOf(*scene_.FindBuffer(name));
      runner::ImageOutput out;
      out.name = name;
      out.format = runner::TexelFormatOf(shape.format);
      out.width = shape.width;
      out.height = shape.height;
      out.bytes = bytes_[name];
      report_->run.images.push_back(std::move(out));
    }
    if (!options_.keep_buffers) return;
    for (const scene::Buffer& b : scene_.buffers) {
      report_->run.buffers.push_back({ShapeOf(b), bytes_[b.name]});
    }
  }

 private:
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

  // ---- Commands that only touch the host copy (as in the emulator). ----

  Status Execute(const scene::ClearColorCommand& c, int) {
    clears_[c.pipeline].color = {c.r, c.g, c.b, c.a};
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
  Status Execute(const scene::CopyCommand& copy, int) {
    auto from = bytes_.find(copy.from);
    if (from == bytes_.end())
      return InvalidInput("unknown buffer " + copy.from);
    bytes_[copy.to] = from->second;
    if (const scene::Buffer* src = scene_.FindBuffer(copy.from)) {
      shape_of_[copy.to] = ShapeOf(*src);
    }
    return {};
  }
  Status Execute(const scene::BufferWriteCommand& w, int) {
    std::vector<uint8_t>& bytes = bytes_[w.buffer];
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
  // The same judgement as `warpsim run`: scene/expectations.h on the final
  // bytes.
  Status Execute(const scene::ExpectCommand& expect, int line) {
    const scene::Buffer* buf = scene_.FindBuffer(expect.buffer);
    if (buf == nullptr) return InvalidInput("unknown buffer " + expect.buffer);
    const scene::Buffer* other = expect.other_buffer.empty()
                                     ? nullptr
                                     : scene_.FindBuffer(expect.other_buffer);
    std::span<const uint8_t> other_bytes;
    if (other != nullptr) other_bytes = bytes_[other->name];
    const scene::Buffer shaped = ShapeOf(*buf);
    const scene::ExpectationResult r = scene::EvaluateExpect(
        expect, shaped, bytes_[buf->name], other, other_bytes);
    report_->run.expectations.push_back({line, r.passed, r.message});
    return {};
  }

  // ---- Commands that run on the device. ----

  // CLEAR: the device clears the pipeline's attachments (the bound level).
  Status Execute(const scene::ClearCommand& c, int) {
    const scene::Pipeline* p = scene_.FindPipeline(c.pipeline);
    if (p == nullptr) return InvalidInput("unknown pipeline " + c.pipeline);
    const ClearValues& v = clears_[c.pipeline];
    auto cmd = work_->Begin();
    if (!cmd.ok()) return cmd.error();
    for (const scene::Binding& b : p->bindings) {
      if (b.kind != scene::BindingKind::kColor &&
          b.kind != scene::BindingKind::kDepthStencil) {
        continue;
      }
      const scene::Buffer shape = ShapeOf(*scene_.FindBuffer(b.buffers.at(0)));
      auto img = resources_->Image(shape);
      if (!img.ok()) return img.error();
      std::vector<uint8_t>& bytes = bytes_[shape.name];
      if (Status s = resources_->RecordUpload(*cmd, **img, shape, bytes);
          !s.ok()) {
        return s;
      }
      const DeviceImage& image = **img;
      VkImageSubresourceRange range{image.aspects, b.base_mip_level, 1, 0,
                                    image.layers};
      if (b.kind == scene::BindingKind::kColor) {
        VkClearColorValue value{};
        const bool is_int =
            !shape.format.components.empty() &&
            (shape.format.components[0].kind == scene::NumericKind::kUInt ||
             shape.format.components[0].kind == scene::NumericKind::kSInt);
        for (int k = 0; k < 4; ++k) {
          value.float32[k] = v.color[k];
          if (is_int) {
            value.int32[k] =
                static_cast<int32_t>(static_cast<int64_t>(v.color[k]));
          }
        }
        vkCmdClearColorImage(*cmd, image.image, VK_IMAGE_LAYOUT_GENERAL, &value,
                             1, &range);
      } else {
        VkClearDepthStencilValue value{v.depth, v.stencil};
        vkCmdClearDepthStencilImage(*cmd, image.image, VK_IMAGE_LAYOUT_GENERAL,
                                    &value, 1, &range);
      }
      if (Status s = resources_->RecordDownload(
              *cmd, image, shape, &bytes, static_cast<int>(b.base_mip_level));
          !s.ok()) {
        return s;
      }
    }
    return work_->SubmitAndWait();
  }

  Status Execute(const scene::RunCommand& run, int line) {
    const scene::Pipeline* p = scene_.FindPipeline(run.pipeline);
    if (p == nullptr) return InvalidInput("unknown pipeline " + run.pipeline);
    const bool compute = std::holds_alternative<scene::RunCompute>(run.draw);
    if (!compute && p->type != scene::PipelineType::kGraphics) {
      return InvalidInput("RUN " + run.pipeline +
                          " DRAW_* needs a graphics pipeline");
    }
    if (compute && p->type != scene::PipelineType::kCompute) {
      return InvalidInput("RUN with workgroup counts needs a compute pipeline");
    }
    DeviceDrawReport rep;
    rep.pipeline = p->name;
    rep.line = line;
    const uint32_t repeats = std::max(1u, options_.repeat);
    // Every repeat starts from the inputs the first one saw.
    std::map<std::string, std::vector<uint8_t>> inputs;
    if (repeats > 1 || options_.observe) inputs = bytes_;
    bool grown = false;
    for (uint32_t i = 0; i < repeats; ++i) {
      if (i > 0) bytes_ = inputs;
      Status s = compute ? work_->Dispatch(*this, *p, run, &rep)
                         : work_->Draw(*this, *p, run, &rep);
      if (!s.ok()) return s;
      // --observe: a draw that wrote more records than the buffer held
      // runs again, from the same inputs, with room for all of them.
      if (rep.observation && rep.observation->truncated() && !grown) {
        const uint64_t want = uint64_t{rep.observation->taken} * 5 / 4 + 1024;
        work_->set_observe_capacity(static_cast<uint32_t>(
            std::min<uint64_t>(want, kMaxObserveRecords)));
        grown = true;
        rep.gpu_ns.clear();
        i = ~0u;  // the loop starts over
        bytes_ = inputs;
      }
    }
    if (compute) {
      const auto& rc = std::get<scene::RunCompute>(run.draw);
      report_->run.stats.dispatches += 1;
      report_->run.stats.workgroups += uint64_t{rc.x} * rc.y * rc.z;
      report_->dispatches.push_back(std::move(rep));
    } else {
      report_->draws.push_back(std::move(rep));
    }
    return {};
  }

 public:
  // SceneState (submission.h): what Work needs from the runner.
  const scene::Scene& scene() const override { return scene_; }
  std::vector<uint8_t>& Bytes(const std::string& name) override {
    return bytes_[name];
  }
  // A buffer's current shape (no data): the declared one unless a COPY
  // gave it another.
  scene::Buffer ShapeOf(const scene::Buffer& b) const override {
    auto it = shape_of_.find(b.name);
    scene::Buffer shape = it != shape_of_.end() ? it->second : b;
    shape.name = b.name;
    shape.bytes.clear();
    return shape;
  }
  void NoteImageOutput(const std::string& name) override {
    if (std::find(image_outputs_.begin(), image_outputs_.end(), name) ==
        image_outputs_.end()) {
      image_outputs_.push_back(name);
    }
  }
  Result<VkSampler> Sampler(const std::string& name) override {
    auto it = samplers_.find(name);
    if (it != samplers_.end()) return it->second;
    const scene::Sampler* s = scene_.FindSampler(name);
    if (s == nullptr) return InvalidInput("unknown sampler " + name);
    auto sampler = CreateSampler(*device_, *s);
    if (!sampler.ok()) return sampler.error();
    samplers_[name] = *sampler;
    return *sampler;
  }
  // The device pipeline for scene pipeline `p` drawn with `key` (topology
  // and vertex source), built once.
  Result<const PipelineObjects*> GetPipeline(const scene::Pipeline& p,
                                             const DrawShape& shape) override {
    const std::string key = p.name + "|" + shape.Key();
    auto it = pipelines_.find(key);
    if (it != pipelines_.end()) return &it->second;
    const bool first = built_names_.insert(p.name).second;
    std::vector<DevicePipelineReport> reports;
    auto built =
        BuildPipeline(*device_, scene_, p, shape, &cache_,
                      options_.glsl_defines, first ? &reports : nullptr);
    if (!built.ok()) return built.error();
    for (auto& r : reports) report_->pipelines.push_back(std::move(r));
    auto [pos, _] = pipelines_.emplace(key, std::move(*built));
    return &pos->second;
  }

 private:
  const scene::Scene& scene_;
  VkRunOptions options_;
  DeviceRunReport* report_;
  runner::ShaderCache cache_;
  std::unique_ptr<Device> device_;
  std::unique_ptr<Resources> resources_;
  std::unique_ptr<Work> work_;
  std::map<std::string, std::vector<uint8_t>> bytes_;
  std::map<std::string, scene::Buffer> shape_of_;
  std::map<std::string, PipelineObjects> pipelines_;
  std::set<std::string> built_names_;
  std::map<std::string, VkSampler> samplers_;
  std::vector<std::string> image_outputs_;
  struct ClearValues {
    std::array<float, 4> color = {0, 0, 0, 0};
    float depth = 1.0f;
    uint32_t stencil = 0;
  };
  std::map<std::string, ClearValues> clears_;
};

}  // namespace

DeviceRunReport RunSceneOnDevice(const scene::Scene& scene,
                                 const VkRunOptions& options) {
  DeviceRunReport report;
  report.run.file = scene.file_path;
  report.run.warp_width = 0;
  report.repeat = std::max(1u, options.repeat);
  const auto start = std::chrono::steady_clock::now();
  Status s;
  {
    DeviceSceneRunner runner(scene, options, &report);
    s = runner.Run();
    runner.Collect();
  }
  report.run.stats.host_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!s.ok()) {
    report.run.status = runner::RunStatusFor(s.error().kind);
    report.run.diagnostic = s.error();
    return report;
  }
  report.run.status = runner::RunStatus::kPass;
  for (const auto& e : report.run.expectations) {
    if (!e.passed) report.run.status = runner::RunStatus::kFail;
  }
  return report;
}

DeviceRunReport RunFileOnDevice(const std::string& path,
                                const VkRunOptions& options) {
  auto scene = scene::ParseAmberFile(path);
  if (!scene.ok()) {
    DeviceRunReport report;
    report.run.file = path;
    report.run.status = runner::RunStatusFor(scene.error().kind);
    report.run.diagnostic = scene.error();
    return report;
  }
  return RunSceneOnDevice(*scene, options);
}

}  // namespace warpsim::vkref
