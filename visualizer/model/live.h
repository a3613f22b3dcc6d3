// The live mode: a scene run in timing mode on a worker thread, watched as
// it runs (trace::Observer), that the viewer can pause, step (a cycle, a
// warp instruction, a draw or dispatch), play and stop.
#ifndef WARPSIM_VISUALIZER_MODEL_LIVE_H_
#define WARPSIM_VISUALIZER_MODEL_LIVE_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "model/run_data.h"
#include "runner/runner.h"
#include "trace/trace.h"

namespace warpsim::viz {

// Tunes glibc's allocator for a process that runs scenes again and again
// (warpsim-viz): one arena for all threads, freed memory kept rather than
// returned to the system, and blocks up to 32 MB from the heap. Each run
// then reuses the pages the previous one touched instead of faulting in new
// ones: on a machine with slow page faults that decides how many frames a
// second the live mode simulates (bench/README.md, viz-2026-12-01).
// Process-wide; call before the first run.
void TuneAllocatorForReruns();

class LiveSession : public trace::Observer {
 public:
  // Runs `file` with `options` (timing mode and this session as the trace
  // observer are set here). Starts paused at the first cycle when
  // `start_paused`, else playing.
  LiveSession(std::string file, runner::RunOptions options,
              bool start_paused = false);
  ~LiveSession() override;  // stops the run and waits for the thread
  LiveSession(const LiveSession&) = delete;
  LiveSession& operator=(const LiveSession&) = delete;

  void Play();
  void Pause();
  // Runs on until the clock has advanced `n` cycles, or `n` more warp
  // instructions issued, or the current draw or dispatch ended; then
  // pauses.
  void StepCycles(uint64_t n = 1);
  void StepInstructions(uint64_t n = 1);
  void StepRun();
  // Ends the run at its next observation (the result is "stopped").
  void Stop();
  // Blocks until the run has finished (tests, headless screenshots).
  void Wait();

  // Copies what changed since the last call into `out`; false when nothing
  // did.
  bool Sync(RunData* out);
  bool paused() const;
  bool finished() const;
  uint64_t cycle() const;

  // trace::Observer, called by the timing model on the worker thread.
  uint64_t OnProgress(const trace::Trace& t, uint64_t cycle,
                      uint64_t issued) override;
  bool StopRequested() const override;

 private:
  void Work();
  enum class Step { kNone, kCycles, kInstructions, kRun };

  std::string file_;
  runner::RunOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  // Shared state (mu_).
  trace::Trace shared_;
  TraceMirror worker_mirror_;
  uint64_t cycle_ = 0, issued_ = 0;
  bool paused_ = false, stop_ = false, finished_ = false, changed_ = true;
  Step step_ = Step::kNone;
  uint64_t step_target_ = 0;
  size_t step_runs_ = 0;  // runs that had ended when StepRun() was asked
  // The run's result, once finished.
  nlohmann::json report_;
  std::vector<Image> images_;
  std::string error_;
  // UI side.
  TraceMirror ui_mirror_;
  std::thread worker_;
};

}  // namespace warpsim::viz

#endif  // WARPSIM_VISUALIZER_MODEL_LIVE_H_
