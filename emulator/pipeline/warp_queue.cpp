#include "pipeline/warp_queue.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "simt/opcode_info.h"

namespace warpsim::pipeline {

const char* WorkKindName(WorkKind kind) {
  switch (kind) {
    case WorkKind::kVertexBatch:
      return "vertex";
    case WorkKind::kFragment:
      return "fragment";
    case WorkKind::kComputeWorkgroup:
      return "compute";
  }
  return "?";
}

bool WorkItem::done() const {
  for (const auto& w : warps) {
    if (!w->done()) return false;
  }
  return true;
}

Diagnostic WorkItem::WarpError(size_t warp) const {
  Diagnostic d = *warps[warp]->error();
  const std::string where = Where(warp);
  if (!where.empty()) d.message = where + ": " + d.message;
  return d;
}

Diagnostic InstructionLimitExceeded(const DrainLimits& limits,
                                    uint64_t warp_instructions,
                                    uint64_t lane_instructions) {
  return LimitExceeded(
      "the " + limits.what + " executed more than " +
          std::to_string(limits.max_warp_instructions) +
          " warp instructions without finishing (stopped after " +
          std::to_string(warp_instructions) + "; a shader may not terminate)",
      warp_instructions, lane_instructions);
}

Status RetireInOrder::Finish(std::unique_ptr<WorkItem> item) {
  const uint64_t id = item->id;
  if (id < next_id_ || held_.count(id) != 0) {
    return InternalError("work item " + std::to_string(id) + " finished twice");
  }
  held_.emplace(id, std::move(item));
  // Retire the contiguous run of finished items that starts at next_id_.
  for (auto it = held_.begin(); it != held_.end() && it->first == next_id_;
       it = held_.erase(it)) {
    if (Status s = source_->Retire(*it->second); !s.ok()) return s;
    if (on_retire_) on_retire_(*it->second);
    ++next_id_;
  }
  return {};
}

namespace {

// Appends the words of writable resources that an instruction's lanes
// accessed (`op`, `active` lanes, their addresses and access size, as in
// simt::InstrRecord) to the item's logs.
void LogAccesses(WorkItem& item, spv::Op op, uint32_t active,
                 const uint64_t* addresses, uint32_t access_bytes) {
  const simt::ExecContext& c = item.context;
  std::vector<uint64_t>& log =
      simt::OnlyReadsMemory(op) ? item.words_read : item.words_written;
  const uint32_t bytes = std::max(access_bytes, 1u);
  for (uint32_t m = active; m != 0; m &= m - 1) {
    const uint32_t l = static_cast<uint32_t>(std::countr_zero(m));
    const uint64_t address = addresses[l];
    const uint32_t region = static_cast<uint32_t>(address >> 32);
    const uint32_t offset = static_cast<uint32_t>(address);
    if (region < simt::kRegionFirstResource || offset == 0xffffffffu) continue;
    const bool buffer = region < c.regions.size() &&
                        c.regions[region].data != nullptr &&
                        c.regions[region].writable;
    const bool image = region < c.images.size() && c.images[region].bound &&
                       c.images[region].writable;
    if (!buffer && !image) continue;  // read-only memory cannot conflict
    const uint64_t first = offset / 4;
    const uint64_t last = (uint64_t{offset} + bytes - 1) / 4;
    for (uint64_t word = first; word <= last; ++word) {
      log.push_back((uint64_t{region} << 32) | word);
    }
  }
}

// Runs `warp` as Warp::Run(limits.time_slice) would, one Step() at a time,
// handing each record to limits.step_observer (and logging accesses when
// asked).
void StepObserved(WorkItem& item, simt::Warp& warp, const DrainLimits& limits) {
  for (uint32_t n = 0; n < limits.time_slice; ++n) {
    const simt::InstrRecord rec = warp.Step();
    limits.step_observer->OnStep(warp, rec, 0);
    if (limits.track_accesses && rec.addresses != nullptr) {
      LogAccesses(item, rec.op, rec.active, rec.addresses, rec.access_bytes);
    }
    if (rec.blocking != simt::Blocking::kNone) break;
  }
}

}  // namespace

namespace {

Diagnostic Cancelled(const WorkItem& item) {
  return InternalError("work item " + std::to_string(item.id) +
                       " was cancelled: an earlier item failed");
}

}  // namespace

Status RunToCompletion(WorkItem& item, const Executed& before,
                       const DrainLimits& limits,
                       std::vector<Checkpoint>* checkpoints,
                       const std::atomic<uint64_t>* cancel_from) {
  auto cancelled = [&] {
    return cancel_from != nullptr &&
           item.id >= cancel_from->load(std::memory_order_relaxed);
  };
  if (cancelled()) return Cancelled(item);
  if (Status s = item.Prepare(); !s.ok()) return s;
  simt::ExecContext& context = item.context;
  for (;;) {
    bool any_running = false;
    for (auto& w : item.warps) {
      if (w->done() || w->at_barrier()) continue;
      if (cancelled()) return Cancelled(item);
      any_running = true;
      if (limits.step_observer != nullptr) {
        StepObserved(item, *w, limits);
      } else if (!limits.track_accesses) {
        w->Run(limits.time_slice);  // no records: nothing reads them
      } else {
        w->RunLogging(limits.time_slice,
                      [&item](spv::Op op, uint32_t active,
                              const uint64_t* addresses, uint32_t bytes) {
                        LogAccesses(item, op, active, addresses, bytes);
                      });
      }
      if (checkpoints != nullptr) {
        checkpoints->push_back({context.warp_instructions,
                                context.lane_instructions,
                                w->error() != nullptr});
      }
      if (w->error() != nullptr) return item.WarpError(&w - &item.warps[0]);
      const uint64_t executed =
          before.warp_instructions + context.warp_instructions;
      if (limits.max_warp_instructions != 0 &&
          executed > limits.max_warp_instructions) {
        return InstructionLimitExceeded(
            limits, executed,
            before.lane_instructions + context.lane_instructions);
      }
    }
    if (any_running) continue;
    // Every warp left waits at a barrier (or is done): open it.
    bool waiting = false;
    for (auto& w : item.warps) {
      if (!w->done() && w->at_barrier()) {
        w->ReleaseBarrier();
        waiting = true;
      }
    }
    if (!waiting) return item.Finish();  // every warp finished
  }
}

Status DrainInOrder(WarpSource& source, const DrainLimits& limits) {
  RetireInOrder merge(&source);
  Executed executed;
  for (;;) {
    auto item = source.Next();
    if (!item.ok()) return item.error();
    if (*item == nullptr) {
      // In order, every produced item has retired: a source that still
      // produces nothing is finished.
      if (source.done()) return {};
      return InternalError(
          "a work source produced nothing although every earlier item "
          "retired");
    }
    if (Status s = RunToCompletion(**item, executed, limits); !s.ok()) {
      return s;
    }
    executed.Add((*item)->context);
    if (Status s = merge.Finish(std::move(*item)); !s.ok()) return s;
  }
}

bool ItemsIndependent(const std::vector<simt::MemRegion>& regions,
                      const std::vector<simt::ImageDesc>& images) {
  for (size_t r = simt::kRegionFirstResource; r < regions.size(); ++r) {
    if (regions[r].data != nullptr && regions[r].writable) return false;
  }
  for (const simt::ImageDesc& image : images) {
    if (image.bound && image.writable) return false;
  }
  return true;
}

namespace {

// Host threads kept for the parallel drains of the process, so that a draw
// or dispatch does not start and join threads of its own (a noticeable part
// of a dispatch of a few ms). Tasks run in the order
// they were posted. A process made by fork() (regress::RunInChildren forks
// without exec) has none of its parent's threads: it makes a pool of its
// own and leaves the parent's alone, never destroying it (one of its locks
// may have been held when the process forked). The pools are never
// destroyed: their threads wait for work until the process exits.
class WorkerPool {
 public:
  // The pool of this process, with at least `threads` threads.
  static WorkerPool& Get(uint32_t threads) {
    static std::mutex get_mutex;
    static WorkerPool* pool = nullptr;
    std::lock_guard<std::mutex> lock(get_mutex);
    if (pool == nullptr || pool->pid_ != getpid()) pool = new WorkerPool();
    pool->Grow(threads);
    return *pool;
  }

  void Post(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

 private:
  WorkerPool() : pid_(getpid()) {}

  void Grow(uint32_t threads) {
    while (threads_.size() < threads) {
      threads_.emplace_back([this] { Loop(); });
      threads_.back().detach();
    }
  }

  void Loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [this] { return !tasks_.empty(); });
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
  }

  const pid_t pid_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::thread> threads_;
};

// Runs items to completion on `threads` threads of the WorkerPool and on the
// calling thread. Submit() hands items over; TakeFinished() returns those
// that finished, with their status. One mutex guards both queues; each side
// takes it once per batch where it can (a worker once per item: it hands one
// back and takes the next under the same lock), and a condition variable is
// signalled only when someone sleeps on it, so the threads do not spend
// their time in the lock. A worker is a pool task that runs queued items
// until there are none, then returns its thread to the pool; Submit() posts
// workers while fewer than `threads` are at work. An item that fails
// cancels every item after it (CancelFrom): DrainInOrder would never have
// run them.
class ItemRunner {
 public:
  struct Finished {
    std::unique_ptr<WorkItem> item;
    Executed before;
    Status status;
    std::vector<Checkpoint> checkpoints;
  };

  ItemRunner(uint32_t threads, const DrainLimits& limits)
      : limits_(limits),
        threads_(threads),
        pool_(threads > 0 ? &WorkerPool::Get(threads) : nullptr) {}
  ~ItemRunner() {
    CancelFrom(0);  // the items still running stop at their next turn
    std::unique_lock<std::mutex> lock(mutex_);
    todo_.clear();
    // The workers at work hold `this`: wait until they return.
    idle_cv_.wait(lock, [this] { return working_ == 0; });
  }

  // Queues `items` (each with the instructions of the items retired before
  // it was made: `before`).
  void Submit(std::vector<Finished>* items) {
    if (items->empty()) return;
    uint32_t post = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (Finished& f : *items) todo_.push_back(std::move(f));
      while (working_ < threads_ && working_ < todo_.size()) {
        ++working_;
        ++post;
      }
    }
    items->clear();
    for (uint32_t i = 0; i < post; ++i) pool_->Post([this] { Work(); });
  }

  // Appends every finished item to `out` (at least one). While none has
  // finished, the calling thread runs queued items itself instead of
  // sleeping (it is one of the threads).
  void TakeFinished(std::vector<Finished>* out) {
    std::unique_lock<std::mutex> lock(mutex_);
    while (done_.empty() && !todo_.empty()) {
      Finished job = std::move(todo_.front());
      todo_.pop_front();
      lock.unlock();
      Run(job);
      lock.lock();
      done_.push_back(std::move(job));
    }
    while (done_.empty()) {
      caller_sleeping_ = true;
      done_cv_.wait(lock);
      caller_sleeping_ = false;
    }
    for (Finished& f : done_) out->push_back(std::move(f));
    done_.clear();
  }

  // Items from `id` on stop as soon as they notice.
  void CancelFrom(uint64_t id) {
    uint64_t now = cancel_from_.load();
    while (id < now && !cancel_from_.compare_exchange_weak(now, id)) {
    }
  }
  bool cancelled() const { return cancel_from_.load() != ~0ull; }

 private:
  void Run(Finished& job) {
    job.status = RunToCompletion(
        *job.item, job.before, limits_,
        limits_.max_warp_instructions != 0 ? &job.checkpoints : nullptr,
        &cancel_from_);
    if (!job.status.ok()) CancelFrom(job.item->id + 1);
  }

  // One worker: runs queued items until there are none.
  void Work() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!todo_.empty()) {
      Finished job = std::move(todo_.front());
      todo_.pop_front();
      lock.unlock();
      Run(job);
      lock.lock();
      done_.push_back(std::move(job));
      if (caller_sleeping_) done_cv_.notify_one();
    }
    --working_;
    // The destructor may be waiting (it holds the lock until it sleeps, so
    // this cannot be missed); notify under the lock: once it is released,
    // `this` may be gone.
    if (working_ == 0) idle_cv_.notify_all();
  }

  const DrainLimits limits_;
  const uint32_t threads_;
  WorkerPool* const pool_;
  std::atomic<uint64_t> cancel_from_{~0ull};
  std::mutex mutex_;
  std::condition_variable done_cv_, idle_cv_;
  std::deque<Finished> todo_;
  std::vector<Finished> done_;
  uint32_t working_ = 0;  // workers posted and not yet returned
  bool caller_sleeping_ = false;
};

// Stands between RetireInOrder and the source in DrainParallel: retires
// each item as DrainInOrder would have run it. The item ran knowing only
// what the items retired before it was produced had executed; its
// checkpoints, replayed against what every earlier item executed, give the
// error DrainInOrder would have stopped with, if any.
class ReplayedRetire : public WarpSource {
 public:
  ReplayedRetire(WarpSource* source, const DrainLimits& limits)
      : source_(source), limits_(limits) {}

  // Keeps what running `f` gave, for its retirement.
  void Keep(ItemRunner::Finished& f) {
    runs_.emplace(f.item->id,
                  Run{std::move(f.status), std::move(f.checkpoints)});
  }
  const Executed& executed() const { return executed_; }

  Result<std::unique_ptr<WorkItem>> Next() override { return source_->Next(); }
  bool done() const override { return source_->done(); }
  OutputWork TakeOutputWork() override { return source_->TakeOutputWork(); }
  uint64_t TakeRasterPrimitives() override {
    return source_->TakeRasterPrimitives();
  }
  Status Retire(WorkItem& item) override {
    auto it = runs_.find(item.id);
    if (it == runs_.end()) {
      return InternalError("work item " + std::to_string(item.id) +
                           " retired without having run");
    }
    Run run = std::move(it->second);
    runs_.erase(it);
    const uint64_t limit = limits_.max_warp_instructions;
    for (const Checkpoint& c : run.checkpoints) {
      if (c.error) return run.status;  // the warp's runtime error
      const uint64_t warp = executed_.warp_instructions + c.warp_instructions;
      if (limit != 0 && warp > limit) {
        return InstructionLimitExceeded(
            limits_, warp, executed_.lane_instructions + c.lane_instructions);
      }
    }
    if (!run.status.ok()) return run.status;  // Prepare() or Finish()
    executed_.Add(item.context);
    return source_->Retire(item);
  }

 private:
  struct Run {
    Status status;
    std::vector<Checkpoint> checkpoints;
  };
  WarpSource* source_;
  const DrainLimits& limits_;
  Executed executed_;  // by retired items
  std::map<uint64_t, Run> runs_;
};

}  // namespace

Status DrainParallel(WarpSource& source, const DrainLimits& limits,
                     uint32_t threads, uint32_t window) {
  if (threads <= 1) return DrainInOrder(source, limits);
  if (window == 0) window = 16 * threads;
  ReplayedRetire replayed(&source, limits);
  RetireInOrder merge(&replayed);
  // The calling thread runs items too while it waits: threads - 1 workers.
  // (Declared after the merge: destroyed first, it stops its threads before
  // the items they run are gone.)
  ItemRunner runner(threads - 1, limits);
  uint32_t in_flight = 0;
  // A failure to produce counts as the item it would have made: it is the
  // error once every earlier item retired.
  Status produce_failed;
  std::vector<ItemRunner::Finished> batch, finished;
  for (;;) {
    // Keep the workers busy: produce while there is room and nothing failed.
    while (produce_failed.ok() && !runner.cancelled() && in_flight < window) {
      auto item = source.Next();
      if (!item.ok()) {
        produce_failed = item.error();
        break;
      }
      if (*item == nullptr) break;
      batch.push_back({std::move(*item), replayed.executed(), {}, {}});
      ++in_flight;
      // While the workers are short of items (the start of a draw or
      // dispatch), hand each over at once rather than after the window.
      if (in_flight <= threads) runner.Submit(&batch);
    }
    runner.Submit(&batch);
    if (in_flight == 0) {
      if (!produce_failed.ok()) return produce_failed;
      if (source.done()) return {};
      return InternalError(
          "a work source produced nothing although every earlier item "
          "retired");
    }
    finished.clear();
    runner.TakeFinished(&finished);
    for (ItemRunner::Finished& f : finished) {
      --in_flight;
      replayed.Keep(f);
      // The first error retirement meets is DrainInOrder's.
      if (Status st = merge.Finish(std::move(f.item)); !st.ok()) return st;
    }
  }
}

}  // namespace warpsim::pipeline
