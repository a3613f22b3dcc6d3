// The live session: see live.h.
#include "model/live.h"

#include <malloc.h>

#include <algorithm>

#include "runner/png_writer.h"

namespace warpsim::viz {
namespace {
// While playing, the model reports every this many cycles: often enough for
// the view to move smoothly, rarely enough to cost little.
constexpr uint64_t kPlayStride = 512;
}  // namespace

void TuneAllocatorForReruns() {
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
}

LiveSession::LiveSession(std::string file, runner::RunOptions options,
                         bool start_paused)
    : file_(std::move(file)), options_(std::move(options)) {
  options_.timing_mode = true;
  options_.trace_observer = this;
  paused_ = start_paused;
  worker_ = std::thread([this] { Work(); });
}

LiveSession::~LiveSession() {
  Stop();
  if (worker_.joinable()) worker_.join();
}

void LiveSession::Work() {
  runner::RunReport report = runner::RunAmberFile(file_, options_);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(runner::ReportToJson(report));
  } catch (const nlohmann::json::exception&) {
    doc = nullptr;
  }
  std::vector<Image> images;
  for (const runner::ImageOutput& io : report.images) {
    auto rgba =
        runner::ConvertToRgba8(io.format, io.width, io.height, io.bytes.data(),
                               io.width * io.format.bytes);
    if (!rgba.ok()) continue;
    images.push_back({io.name, io.width, io.height, std::move(*rgba)});
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (report.trace != nullptr) worker_mirror_.Sync(*report.trace, &shared_);
  report_ = std::move(doc);
  images_ = std::move(images);
  if (report.diagnostic.has_value()) error_ = report.diagnostic->ToString();
  for (const trace::RunInfo& r : shared_.runs) cycle_ = std::max(cycle_, r.end);
  finished_ = true;
  changed_ = true;
  cv_.notify_all();
}

uint64_t LiveSession::OnProgress(const trace::Trace& t, uint64_t cycle,
                                 uint64_t issued) {
  std::unique_lock<std::mutex> lock(mu_);
  worker_mirror_.Sync(t, &shared_);
  cycle_ = cycle;
  issued_ = issued;
  changed_ = true;
  cv_.notify_all();
  auto reached = [&]() {
    switch (step_) {
      case Step::kCycles:
        return cycle_ >= step_target_;
      case Step::kInstructions:
        return issued_ >= step_target_;
      case Step::kRun:
        return shared_.runs.size() > step_runs_ && !shared_.runs.empty() &&
               shared_.runs.back().end == cycle_;
      case Step::kNone:
        return false;
    }
    return false;
  };
  if (step_ != Step::kNone && reached()) {
    step_ = Step::kNone;
    paused_ = true;
  }
  cv_.wait(lock, [&] { return !paused_ || stop_ || step_ != Step::kNone; });
  switch (step_) {
    case Step::kCycles:
      return std::min(step_target_, cycle_ + kPlayStride);
    case Step::kInstructions:
      return cycle_ + 1;
    default:
      return cycle_ + kPlayStride;
  }
}

bool LiveSession::StopRequested() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

void LiveSession::Play() {
  std::lock_guard<std::mutex> lock(mu_);
  paused_ = false;
  step_ = Step::kNone;
  cv_.notify_all();
}

void LiveSession::Pause() {
  std::lock_guard<std::mutex> lock(mu_);
  paused_ = true;
  step_ = Step::kNone;
}

void LiveSession::StepCycles(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  step_ = Step::kCycles;
  step_target_ = cycle_ + std::max<uint64_t>(1, n);
  cv_.notify_all();
}

void LiveSession::StepInstructions(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  step_ = Step::kInstructions;
  step_target_ = issued_ + std::max<uint64_t>(1, n);
  cv_.notify_all();
}

void LiveSession::StepRun() {
  std::lock_guard<std::mutex> lock(mu_);
  step_ = Step::kRun;
  // The current run ends the step; a run that already ended counts not.
  step_runs_ = shared_.runs.size();
  if (!shared_.runs.empty() && shared_.runs.back().end != cycle_) {
    step_runs_ -= 1;
  }
  cv_.notify_all();
}

void LiveSession::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_ = true;
  cv_.notify_all();
}

void LiveSession::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return finished_; });
}

bool LiveSession::Sync(RunData* out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!changed_) return false;
  changed_ = false;
  ui_mirror_.Sync(shared_, &out->trace);
  out->source = file_;
  out->now = cycle_;
  out->finished = finished_;
  if (finished_) {
    out->report = report_;
    out->images = images_;
    out->error = error_;
  }
  return true;
}

bool LiveSession::paused() const {
  std::lock_guard<std::mutex> lock(mu_);
  return paused_;
}

bool LiveSession::finished() const {
  std::lock_guard<std::mutex> lock(mu_);
  return finished_;
}

uint64_t LiveSession::cycle() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cycle_;
}

}  // namespace warpsim::viz
