// Tests of emulator/pipeline/warp_queue.cpp: RetireInOrder hands items to
// their source in id order whatever order they finish in; a draw and a
// dispatch drained by a driver that finishes items out of order, or by the
// parallel driver, give byte-identical images, buffers and counters to the
// in-order driver; fragment warps name the vertex batches they came from.
#include "pipeline/warp_queue.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/compute.h"
#include "pipeline/graphics.h"
#include "runner/shader_build.h"
#include "simt/lower.h"
#include "spirv/compile.h"

namespace warpsim::pipeline {
namespace {

constexpr spirv::TargetEnv kEnv = spirv::TargetEnv::kVulkan1_3;

simt::Program Build(const std::string& source, spirv::ShaderStage stage,
                    spv::ExecutionModel model) {
  auto words = spirv::CompileGlsl(source, stage, kEnv, "q.glsl");
  INFO((words.ok() ? "" : words.error().ToString()));
  REQUIRE(words.ok());
  simt::LowerOptions options;
  options.model = model;
  auto built = runner::BuildProgram(*words, kEnv, "q.glsl", options, {});
  INFO((built.ok() ? "" : built.error().ToString()));
  REQUIRE(built.ok());
  return std::move(built->program);
}

// A source of `n` empty items that records the order of Retire() calls.
class CountingSource : public WarpSource {
 public:
  explicit CountingSource(uint64_t n) : n_(n) {}
  Result<std::unique_ptr<WorkItem>> Next() override {
    if (made_ == n_) return std::unique_ptr<WorkItem>();
    auto item = std::make_unique<WorkItem>();
    item->id = made_++;
    return item;
  }
  Status Retire(WorkItem& item) override {
    retired.push_back(item.id);
    return {};
  }
  bool done() const override { return made_ == n_; }
  std::vector<uint64_t> retired;

 private:
  uint64_t n_, made_ = 0;
};

TEST_CASE("RetireInOrder retires in id order whatever order items finish in",
          "[pipeline][warp_queue]") {
  CountingSource source(5);
  std::vector<std::unique_ptr<WorkItem>> items;
  for (int i = 0; i < 5; ++i) items.push_back(std::move(*source.Next()));
  RetireInOrder merge(&source);
  // Finish 3, 1, 4 first: nothing can retire before item 0.
  for (int i : {3, 1, 4}) REQUIRE(merge.Finish(std::move(items[i])).ok());
  CHECK(source.retired.empty());
  CHECK(merge.held() == 3);
  REQUIRE(merge.Finish(std::move(items[0])).ok());
  CHECK(source.retired == std::vector<uint64_t>{0, 1});
  REQUIRE(merge.Finish(std::move(items[2])).ok());
  CHECK(source.retired == std::vector<uint64_t>{0, 1, 2, 3, 4});
  CHECK(merge.held() == 0);
  CHECK(merge.retired() == 5);
  // An item finished twice is a bug, reported as such.
  auto again = std::make_unique<WorkItem>();
  again->id = 2;
  const Status s = merge.Finish(std::move(again));
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().kind == ErrorKind::kInternal);
}

// Each triangle takes a flat colour from its index, and later triangles
// overwrite earlier ones, so the image depends on merge order.
const char kVs[] = R"(#version 450
layout(location = 0) in vec4 pos;
layout(location = 0) flat out vec4 col;
void main() {
  gl_Position = pos;
  uint t = uint(gl_VertexIndex) / 3u;
  col = vec4(float(t % 7u) / 7.0, float(t % 5u) / 5.0, float(t % 3u) / 3.0, 1);
}
)";
const char kFs[] = R"(#version 450
layout(location = 0) flat in vec4 col;
layout(location = 0) out vec4 c;
void main() {
  vec4 v = col;
  if ((int(gl_FragCoord.x) & 3) == 1) v.b = 1.0 - v.b;  // diverge a little
  c = v;
}
)";

struct Scene {
  simt::Program vs, fs;
  std::vector<float> positions;  // vec4 per vertex
  std::vector<uint8_t> color;
  GraphicsState state;
  DrawCall call;
};

constexpr uint32_t kSize = 48;

// `vertices` / 3 overlapping triangles (60 by default) from a fixed
// pseudo-random sequence.
void MakeScene(Scene* s, bool mixed, int vertices = 180) {
  s->vs = Build(kVs, spirv::ShaderStage::kVertex, spv::ExecutionModel::Vertex);
  s->fs =
      Build(kFs, spirv::ShaderStage::kFragment, spv::ExecutionModel::Fragment);
  uint32_t h = 12345;
  auto next = [&h] {
    h = h * 1664525u + 1013904223u;
    return static_cast<float>((h >> 8) % 2001) / 1000.0f - 1.0f;
  };
  for (int v = 0; v < vertices; ++v) {
    s->positions.insert(s->positions.end(), {next(), next(), 0.5f, 1.0f});
  }
  s->color.assign(kSize * kSize * 4, 0);
  GraphicsState& gs = s->state;
  gs.vs = &s->vs;
  gs.fs = &s->fs;
  gs.topology = Topology::kTriangleList;
  gs.framebuffer_width = gs.framebuffer_height = kSize;
  gs.viewport = {0, 0, kSize, kSize, 0, 1};
  gs.config.quad_packing =
      mixed ? QuadPacking::kMixed : QuadPacking::kPerPrimitive;
  simt::TexelFormat rgba8;
  rgba8.bytes = 4;
  rgba8.count = 4;
  for (uint8_t c = 0; c < 4; ++c) {
    rgba8.comps[c] = {c, simt::TexelKind::kUNorm, 8,
                      static_cast<uint16_t>(8 * c)};
  }
  gs.colors.push_back(
      {0, s->color.data(), s->color.size(), rgba8, kSize, kSize});
  simt::TexelFormat rgba32f;
  rgba32f.bytes = 16;
  rgba32f.count = 4;
  for (uint8_t c = 0; c < 4; ++c) {
    rgba32f.comps[c] = {c, simt::TexelKind::kSFloat, 32,
                        static_cast<uint16_t>(32 * c)};
  }
  VertexInput in;
  in.data = reinterpret_cast<const uint8_t*>(s->positions.data());
  in.size = s->positions.size() * sizeof(float);
  in.format = rgba32f;
  in.stride = 16;
  gs.vertex_inputs.push_back(in);
  s->call.count = static_cast<uint32_t>(vertices);
}

// Drives a source the way no real driver would: takes up to `batch` items,
// runs them, and finishes them in reverse order.
// (id, depends_on) of each fragment warp, in the order they finished.
using Dependencies = std::vector<std::pair<uint64_t, std::vector<uint64_t>>>;
// (kind, depends_on) of each item, in the order they were produced.
using Produced = std::vector<std::pair<WorkKind, std::vector<uint64_t>>>;

Status DrainReversed(WarpSource& source, size_t batch,
                     Dependencies* fragments = nullptr,
                     Produced* produced = nullptr) {
  RetireInOrder merge(&source);
  for (;;) {
    std::vector<std::unique_ptr<WorkItem>> items;
    while (items.size() < batch) {
      auto item = source.Next();
      if (!item.ok()) return item.error();
      if (*item == nullptr) break;
      if (produced != nullptr) {
        REQUIRE((*item)->id == produced->size());
        produced->emplace_back((*item)->kind, (*item)->depends_on);
      }
      items.push_back(std::move(*item));
    }
    if (items.empty()) return source.done() ? Status{} : InternalError("stuck");
    for (auto& item : items) {
      if (Status s = RunToCompletion(*item, {}, DrainLimits{}); !s.ok()) {
        return s;
      }
    }
    for (auto it = items.rbegin(); it != items.rend(); ++it) {
      if (fragments != nullptr && (*it)->kind == WorkKind::kFragment) {
        fragments->emplace_back((*it)->id, (*it)->depends_on);
      }
      if (Status s = merge.Finish(std::move(*it)); !s.ok()) return s;
    }
  }
}

bool SameStats(const DrawStats& a, const DrawStats& b) {
  return a.vs_invocations == b.vs_invocations &&
         a.vertex_warps == b.vertex_warps &&
         a.primitives_in == b.primitives_in &&
         a.primitives_out == b.primitives_out &&
         a.fs_invocations == b.fs_invocations &&
         a.helper_lanes == b.helper_lanes && a.quads == b.quads &&
         a.fragment_warps == b.fragment_warps &&
         a.warp_instructions == b.warp_instructions &&
         a.lane_instructions == b.lane_instructions;
}

TEST_CASE("a draw gives the same image and counters in every driver",
          "[pipeline][warp_queue]") {
  for (bool mixed : {false, true}) {
    INFO("mixed quad packing " << mixed);
    Scene scene;
    MakeScene(&scene, mixed);
    auto in_order = Draw(scene.state, scene.call);
    REQUIRE(in_order.ok());
    const std::vector<uint8_t> reference = scene.color;
    CHECK(in_order->fragment_warps > 10);
    CHECK(in_order->vertex_warps > 3);  // 180 unique vertices: 6 batches

    SECTION("items finished in reverse order") {
      std::fill(scene.color.begin(), scene.color.end(), 0);
      auto draw = GraphicsDraw::Create(scene.state, scene.call);
      REQUIRE(draw.ok());
      REQUIRE(DrainReversed(**draw, 7).ok());
      CHECK(scene.color == reference);
      CHECK(SameStats((*draw)->stats(), *in_order));
    }
    SECTION("two and three threads") {
      for (uint32_t threads : {2u, 3u}) {
        std::fill(scene.color.begin(), scene.color.end(), 0);
        scene.state.config.threads = threads;
        auto parallel = Draw(scene.state, scene.call);
        REQUIRE(parallel.ok());
        CHECK(scene.color == reference);
        CHECK(SameStats(*parallel, *in_order));
      }
    }
  }
}

TEST_CASE("fragment warps depend on the vertex batches of their triangles",
          "[pipeline][warp_queue]") {
  // A vertex batch holds whole triangles, so with one triangle per warp
  // (per-primitive packing) every fragment warp depends on exactly one
  // batch; with mixed packing a warp that takes the last triangle of one
  // batch and the first of the next depends on both.
  for (bool mixed : {false, true}) {
    Scene scene;
    MakeScene(&scene, mixed);
    auto draw = GraphicsDraw::Create(scene.state, scene.call);
    REQUIRE(draw.ok());
    Dependencies fragments;
    REQUIRE(DrainReversed(**draw, 3, &fragments).ok());
    REQUIRE_FALSE(fragments.empty());
    size_t two = 0;
    for (const auto& [id, depends_on] : fragments) {
      REQUIRE_FALSE(depends_on.empty());
      CHECK(depends_on.size() <= 2);
      for (uint64_t d : depends_on) CHECK(d < id);
      two += depends_on.size() == 2;
    }
    INFO("mixed " << mixed);
    if (mixed) {
      CHECK(two > 0);
    } else {
      CHECK(two == 0);
    }
  }
}

TEST_CASE("a draw produces the same items whatever order they retire in",
          "[pipeline][warp_queue]") {
  // Which items a draw makes, in which order, must depend only on what it
  // has produced and retired, never on when: a driver that keeps many items
  // in flight sees the same sequence as one that retires each at once (the
  // instruction limit's count and every trace depend on it). 3000 vertices
  // are 100 vertex batches: more than the batches a draw makes ahead.
  for (int vertices : {180, 3000}) {
    Produced reference;
    for (size_t batch : {1, 7, 200}) {
      INFO(vertices << " vertices, " << batch << " items at a time");
      Scene scene;
      MakeScene(&scene, true, vertices);
      auto draw = GraphicsDraw::Create(scene.state, scene.call);
      REQUIRE(draw.ok());
      Produced produced;
      REQUIRE(DrainReversed(**draw, batch, nullptr, &produced).ok());
      if (batch == 1) {
        reference = std::move(produced);
        CHECK(reference.size() > 100);
      } else {
        CHECK(produced == reference);
      }
    }
  }
}

// The errors a draw of `scene` stops with under the instruction limit
// `limit`, on 1, 2, ..., `threads` threads.
std::vector<Diagnostic> LimitErrors(Scene& scene, uint64_t limit,
                                    uint32_t threads) {
  scene.state.config.max_warp_instructions = limit;
  std::vector<Diagnostic> errors;
  for (uint32_t t = 1; t <= threads; ++t) {
    scene.state.config.threads = t;
    auto r = Draw(scene.state, scene.call);
    REQUIRE_FALSE(r.ok());
    errors.push_back(r.error());
  }
  return errors;
}

TEST_CASE("a draw stops at the same instruction on one and more threads",
          "[pipeline][warp_queue]") {
  // The parallel driver runs a fragment warp before the warps produced
  // ahead of it have retired: it must still stop where the in-order driver
  // stops, with the same counts, although no warp alone comes near the
  // limit.
  const char kLoopFs[] = R"(#version 450
layout(location = 0) out vec4 c;
void main() {
  float x = gl_FragCoord.x;
  for (int i = 0; i < int(gl_FragCoord.y) + 20; ++i) x = x * 0.999 + 0.5;
  c = vec4(x);
}
)";
  Scene scene;
  MakeScene(&scene, false);
  scene.fs = Build(kLoopFs, spirv::ShaderStage::kFragment,
                   spv::ExecutionModel::Fragment);
  scene.state.config.max_warp_instructions = 0;
  auto whole = Draw(scene.state, scene.call);
  REQUIRE(whole.ok());
  REQUIRE(whole->fragment_warps > 20);
  const uint64_t limit = whole->warp_instructions / 2;
  REQUIRE(whole->warp_instructions / whole->fragment_warps < limit / 10);
  const std::vector<Diagnostic> errors = LimitErrors(scene, limit, 4);
  for (size_t t = 0; t < errors.size(); ++t) {
    INFO(t + 1 << " threads");
    CHECK(errors[t].kind == ErrorKind::kLimitExceeded);
    CHECK(errors[t].message == errors[0].message);
    CHECK(errors[t].warp_instructions == errors[0].warp_instructions);
    CHECK(errors[t].lane_instructions == errors[0].lane_instructions);
  }
  CHECK(errors[0].warp_instructions > limit);
}

const char kAtomicCs[] = R"(#version 450
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) buffer B { uint counter; uint order[]; } b;
void main() {
  // The value each invocation gets depends on the order workgroups run in.
  b.order[gl_GlobalInvocationID.x] = atomicAdd(b.counter, 1u);
}
)";

TEST_CASE("a dispatch that writes memory gives the same result on threads",
          "[pipeline][warp_queue]") {
  const simt::Program cs = Build(kAtomicCs, spirv::ShaderStage::kCompute,
                                 spv::ExecutionModel::GLCompute);
  auto run = [&](uint32_t threads) {
    std::vector<uint32_t> buffer(1 + 40 * 9, 0);
    std::vector<simt::MemRegion> regions(cs.num_regions);
    regions[cs.resources[0].region] = {
        reinterpret_cast<uint8_t*>(buffer.data()), buffer.size() * 4, true};
    const uint32_t groups[3] = {9, 1, 1};
    ComputeLimits limits;
    limits.threads = threads;
    auto stats = DispatchCompute(cs, groups, regions, {}, limits);
    REQUIRE(stats.ok());
    return buffer;
  };
  const std::vector<uint32_t> reference = run(1);
  CHECK(reference[0] == 360);
  CHECK(run(2) == reference);
}

// The threads of this process (Linux: its /proc/self/task entries).
size_t HostThreads() {
  return static_cast<size_t>(
      std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                    std::filesystem::directory_iterator()));
}

std::vector<uint32_t> AtomicDispatch(const simt::Program& cs,
                                     uint32_t threads) {
  std::vector<uint32_t> buffer(1 + 40 * 9, 0);
  std::vector<simt::MemRegion> regions(cs.num_regions);
  regions[cs.resources[0].region] = {reinterpret_cast<uint8_t*>(buffer.data()),
                                     buffer.size() * 4, true};
  const uint32_t groups[3] = {9, 1, 1};
  ComputeLimits limits;
  limits.threads = threads;
  auto stats = DispatchCompute(cs, groups, regions, {}, limits);
  if (!stats.ok()) buffer.clear();
  return buffer;
}

TEST_CASE("parallel drains reuse the same host threads",
          "[pipeline][warp_queue]") {
  // The workers are kept for the next draw or dispatch (a pool): after a
  // parallel dispatch on 3 threads, its 2 workers are still there (beside
  // this thread), and more such dispatches start no thread.
  const simt::Program cs = Build(kAtomicCs, spirv::ShaderStage::kCompute,
                                 spv::ExecutionModel::GLCompute);
  const std::vector<uint32_t> reference = AtomicDispatch(cs, 1);
  REQUIRE(AtomicDispatch(cs, 3) == reference);
  const size_t threads = HostThreads();
  CHECK(threads >= 3);
  for (int i = 0; i < 20; ++i) REQUIRE(AtomicDispatch(cs, 3) == reference);
  CHECK(HostThreads() == threads);
}

TEST_CASE("a process made by fork runs parallel drains on threads of its own",
          "[pipeline][warp_queue]") {
  // regress::RunInChildren forks without exec: the child has none of the
  // pool's threads, so it must make its own rather than wait for those.
  const simt::Program cs = Build(kAtomicCs, spirv::ShaderStage::kCompute,
                                 spv::ExecutionModel::GLCompute);
  const std::vector<uint32_t> reference = AtomicDispatch(cs, 1);
  REQUIRE(AtomicDispatch(cs, 2) == reference);  // the parent's pool exists
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Gives up after 60 s: a child waiting for threads it lacks fails.
    alarm(60);
    const bool same = AtomicDispatch(cs, 2) == reference &&
                      AtomicDispatch(cs, 4) == reference;
    _exit(same ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("ItemsIndependent: only read-only resources make items independent",
          "[pipeline][warp_queue]") {
  uint8_t bytes[16] = {};
  std::vector<simt::MemRegion> regions(simt::kRegionFirstResource + 1);
  regions[simt::kRegionWorkgroup] = {bytes, sizeof bytes, true};
  CHECK(ItemsIndependent(regions, {}));  // workgroup memory is per item
  regions[simt::kRegionFirstResource] = {bytes, sizeof bytes, false};
  CHECK(ItemsIndependent(regions, {}));
  regions[simt::kRegionFirstResource].writable = true;
  CHECK_FALSE(ItemsIndependent(regions, {}));
  std::vector<simt::ImageDesc> images(1);
  images[0].bound = true;
  images[0].writable = true;
  CHECK_FALSE(ItemsIndependent({}, images));
  images[0].writable = false;
  CHECK(ItemsIndependent({}, images));
}

TEST_CASE("the instruction limit gives the same error on one and two threads",
          "[pipeline][warp_queue]") {
  const char kSpinFs[] = R"(#version 450
layout(location = 0) out vec4 c;
void main() {
  float x = gl_FragCoord.x;
  while (x > -1.0) x += 1.0;  // never ends
  c = vec4(x);
}
)";
  Scene scene;
  MakeScene(&scene, false);
  scene.fs = Build(kSpinFs, spirv::ShaderStage::kFragment,
                   spv::ExecutionModel::Fragment);
  const std::vector<Diagnostic> errors = LimitErrors(scene, 200000, 2);
  CHECK(errors[0].message == errors[1].message);
  CHECK(errors[0].message.find("more than 200000") != std::string::npos);
}

}  // namespace
}  // namespace warpsim::pipeline
