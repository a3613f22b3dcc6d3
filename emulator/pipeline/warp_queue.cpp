#include "pipeline/warp_queue.h"

#include <utility>

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
    ++next_id_;
  }
  return {};
}

Status RunToCompletion(WorkItem& item, uint64_t executed_before,
                       const DrainLimits& limits) {
  simt::ExecContext& context = item.context;
  for (;;) {
    bool any_running = false;
    for (auto& w : item.warps) {
      if (w->done() || w->at_barrier()) continue;
      any_running = true;
      for (uint32_t step = 0; step < limits.time_slice; ++step) {
        const simt::InstrRecord rec = w->Step();
        if (rec.blocking != simt::Blocking::kNone) break;
      }
      if (limits.max_warp_instructions != 0 &&
          executed_before + context.warp_instructions >
              limits.max_warp_instructions) {
        return InvalidInput("the " + limits.what + " executed more than " +
                            std::to_string(limits.max_warp_instructions) +
                            " warp instructions without finishing (the "
                            "shader may not terminate)");
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
    if (!waiting) return {};  // every warp finished
  }
}

Status DrainInOrder(WarpSource& source, const DrainLimits& limits) {
  RetireInOrder merge(&source);
  uint64_t executed = 0;
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
    executed += (*item)->context.warp_instructions;
    if (Status s = merge.Finish(std::move(*item)); !s.ok()) return s;
  }
}

}  // namespace warpsim::pipeline
