// The warp queue: how the pipeline hands work to whoever runs it.
//
// The pipeline does not run warps itself. A draw or a dispatch is a
// WarpSource: asked for work, it *produces* the next WorkItem in API order
// (a vertex batch, a fragment warp, or the warps of one compute workgroup,
// each with its inputs written), and it *consumes* finished items through
// Retire(), which turns their outputs into shaded vertices, pixels or
// counters. A driver sits between the two and decides when each item runs:
//
//            Next()                       run the warps            Retire()
//   source ─────────► item (id, deps) ─────────────────► done ──► RetireInOrder
//   ─► source
//      ▲                                  (any order)              (id order)
//      └─ produces more once earlier items have retired (vertex batch →
//      primitives
//         → rasterizer → fragment warps)
//
// Three drivers drain the same sources: the functional driver below runs
// each item to completion as soon as it is produced; a parallel driver runs
// several at once; the SM timing model steps them cycle by cycle. Whatever
// order items finish in, RetireInOrder hands them to the source in id
// order, so depth, stencil, blending and every counter see API order, and
// all drivers give the same images, buffers and statistics.
//
// Dependencies. A fragment warp is built from the shaded vertices of its
// primitives, so the source produces it only after the vertex batches that
// shaded them have retired; `depends_on` records which batches those were
// (for traces and the timing model). A source that cannot produce anything
// until more items retire returns no item from Next() while not done().
#ifndef WARPSIM_PIPELINE_WARP_QUEUE_H_
#define WARPSIM_PIPELINE_WARP_QUEUE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "simt/warp.h"

namespace warpsim::pipeline {

enum class WorkKind : uint8_t {
  kVertexBatch,       // one warp of vertex shader invocations
  kFragment,          // one warp of 2x2 quads (with helper lanes)
  kComputeWorkgroup,  // every warp of one compute workgroup
};

const char* WorkKindName(WorkKind kind);

// A 2x2 quad a fragment warp shades (WorkItem::Quads).
struct QuadFootprint {
  int32_t x = 0, y = 0;  // top-left pixel (even coordinates)
  uint8_t coverage = 0;  // bit i: pixel (x + (i & 1), y + (i >> 1)) covered
  uint32_t primitive = 0;
};

// One unit of work: warps that become resident together (a compute
// workgroup's warps share workgroup memory and barriers), ready to run.
// Sources derive from it to keep what Retire() needs (which quads, which
// vertices).
struct WorkItem {
  virtual ~WorkItem() = default;
  uint64_t id = 0;  // 0, 1, 2, ... in the order the source produced them
  WorkKind kind = WorkKind::kVertexBatch;
  // Ids of the items whose results this item was built from.
  std::vector<uint64_t> depends_on;
  // The item's own context: memory regions (the workgroup region points at
  // `workgroup_memory`), images and the item's instruction counters.
  simt::ExecContext context;
  std::vector<uint8_t> workgroup_memory;
  std::vector<std::unique_ptr<simt::Warp>> warps;
  // With DrainLimits::track_accesses: the words of writable resources
  // (buffers, storage images) the item's warps read and wrote, as
  // region << 32 | byte offset / 4, in the order of access (duplicates
  // kept). The item's context must record addresses (ExecContext::
  // record_addresses, set before its warps are made).
  std::vector<uint64_t> words_read, words_written;

  bool done() const;
  // Names warp `warp` of the item in a runtime error ("workgroup (1, 0,
  // 0), subgroup 2: ..."); empty when the item has nothing to add.
  virtual std::string Where(size_t warp) const { return {}; }
  // The quads warp `warp` shades, quad k in lanes 4k..4k+3 (fragment
  // warps; nothing for the others).
  virtual void Quads(size_t warp, std::vector<QuadFootprint>* out) const {}
  // For the timing model's rasterizer: the quads the rasterizer produced
  // for this item (fragment warps; 0 for the others).
  virtual uint32_t RasterQuads() const { return 0; }
  // Warp `warp`'s runtime error (Warp::error(), which must be set), named
  // by Where().
  Diagnostic WarpError(size_t warp) const;
  // Per-lane set-up that reads nothing another item writes (a fragment
  // warp's interpolated inputs), done by the thread that runs the item
  // (RunToCompletion calls it first) so that drivers running items in
  // parallel do it in parallel too.
  virtual Status Prepare() { return {}; }
  // Per-lane work after every warp of the item finished that reads nothing
  // another item writes (a fragment warp's colours converted to its
  // attachments' formats), done by the thread that ran the item
  // (RunToCompletion calls it last), so that it runs in parallel too and
  // Retire() only does what must happen in API order.
  virtual Status Finish() { return {}; }
};

// What the output merge did with the pixels of the items retired so far,
// for the timing model's output merge unit (TimingConfig's output rates).
struct OutputWork {
  uint64_t bytes = 0;          // colour, depth and stencil bytes written
  uint64_t tested = 0;         // pixels the depth/stencil tests passed
  uint64_t rejected = 0;       // pixels the depth/stencil tests rejected
  uint64_t blended = 0;        // blended colour texels, but those below
  uint64_t float_blended = 0;  // blended texels of 32-bit float formats
};

// A draw or a dispatch, seen as a producer of work items.
class WarpSource {
 public:
  virtual ~WarpSource() = default;
  // The next item in API order, or nullptr when nothing can be produced
  // until earlier items retire (or the source is done()). The sequence of
  // items (their ids and contents) must not depend on when earlier items
  // retire, only on which: then every driver sees the same items.
  virtual Result<std::unique_ptr<WorkItem>> Next() = 0;
  // Consumes a finished item. Called once per item, in id order.
  virtual Status Retire(WorkItem& item) = 0;
  // True when every item has been produced.
  virtual bool done() const = 0;
  // The output merge's work since the last call (in Retire(), and for
  // early tests in Next()); nothing for sources without one.
  virtual OutputWork TakeOutputWork() { return {}; }
  // The primitives the rasterizer set up since the last call (in Next(),
  // empty ones included); 0 for sources without a rasterizer.
  virtual uint64_t TakeRasterPrimitives() { return 0; }
};

// Hands finished items to their source in id order, whatever order they
// finish in (the reorder buffer in front of the output merge).
class RetireInOrder {
 public:
  explicit RetireInOrder(WarpSource* source) : source_(source) {}
  // Takes a finished item; retires it and every held item that follows it.
  Status Finish(std::unique_ptr<WorkItem> item);
  // Called after each item's Retire(), in id order (the timing model takes
  // the output merge's work of that item there).
  void set_on_retire(std::function<void(const WorkItem&)> f) {
    on_retire_ = std::move(f);
  }
  uint64_t retired() const { return next_id_; }  // items retired so far
  size_t held() const { return held_.size(); }

 private:
  WarpSource* source_;
  std::function<void(const WorkItem&)> on_retire_;
  uint64_t next_id_ = 0;
  std::map<uint64_t, std::unique_ptr<WorkItem>> held_;
};

// Limits a driver enforces while it runs a source's items.
struct DrainLimits {
  // Stop when the source's items together executed more warp instructions
  // than this (a shader that never terminates); 0 = no limit.
  uint64_t max_warp_instructions = 0;
  // Warp instructions one warp of an item runs before the next warp of the
  // same item gets a turn (spin-waits on other warps make progress).
  uint32_t time_slice = 4096;
  // Names the work in the limit message ("draw", "dispatch").
  std::string what = "draw";
  // Log each item's accesses to writable resources (WorkItem::words_read,
  // words_written), so that a source can tell afterwards whether its items
  // touched each other's memory.
  bool track_accesses = false;
  // Hands every issued instruction to this observer (not owned). Drivers
  // then step warps one instruction at a time, on one thread.
  simt::StepObserver* step_observer = nullptr;
};

// The diagnostic of a source whose items executed `warp_instructions`,
// more than limits.max_warp_instructions (a shader that may not terminate).
Diagnostic InstructionLimitExceeded(const DrainLimits& limits,
                                    uint64_t warp_instructions,
                                    uint64_t lane_instructions);

// Instructions executed by a source's items.
struct Executed {
  uint64_t warp_instructions = 0;
  uint64_t lane_instructions = 0;
  uint64_t helper_lane_instructions = 0;
  void Add(const simt::ExecContext& c) {
    warp_instructions += c.warp_instructions;
    lane_instructions += c.lane_instructions;
    helper_lane_instructions += c.helper_lane_instructions;
  }
};

// Runs the warps of `item` until all of them finished: round robin over
// its warps, each until it blocks, finishes or spends its time slice; a
// barrier opens when every unfinished warp waits at it. A warp's runtime
// error (Warp::error()) ends the item with that error. `before`: what the
// source's earlier items executed, for the instruction limit (whose
// LimitExceeded diagnostic carries the totals up to the stop).
//
// `checkpoints` (optional): the item's own counts at every instruction-limit
// check (after each turn of a warp), the turn that ended in a runtime error
// marked. A driver that ran the item before knowing what every earlier item
// executed replays them to find where DrainInOrder would have stopped.
// `cancel_from` (optional): the item stops, with an error, as soon as its id
// is at least this value (a driver knows by then that an earlier item
// fails).
struct Checkpoint {
  uint64_t warp_instructions = 0;
  uint64_t lane_instructions = 0;
  bool error = false;
};
Status RunToCompletion(WorkItem& item, const Executed& before,
                       const DrainLimits& limits,
                       std::vector<Checkpoint>* checkpoints = nullptr,
                       const std::atomic<uint64_t>* cancel_from = nullptr);

// The functional driver: produces, runs and retires one item at a time,
// in API order.
Status DrainInOrder(WarpSource& source, const DrainLimits& limits);

// The parallel functional driver: `threads` threads run items: threads - 1
// workers, and this thread, which also produces and retires them (Next()
// and Retire() are only ever called from here) and runs queued items while
// none has finished; at most `window` items in flight (default 16 x
// threads: every item in flight holds a warp and its buffers, and a small
// window keeps them in the caches; 128 x threads ran a 256x256 frame about
// 10 % slower on two threads). Items may finish in any order; RetireInOrder
// restores API order, so images, buffers and counters are byte-identical to
// DrainInOrder's. So is an error: each item runs under the instruction limit
// less what the items retired when it was produced had executed, and records
// its checkpoints; at retirement, in id order, they are replayed against what
// every earlier item executed, so the error (and the counts it carries) is
// the one DrainInOrder gives. Once an item fails, items after it are
// cancelled. Only for sources whose items cannot see each other's writes (see
// ItemsIndependent), and whose order of production does not depend on when
// items retire: otherwise the result would depend on timing. threads <= 1 is
// DrainInOrder.
Status DrainParallel(WarpSource& source, const DrainLimits& limits,
                     uint32_t threads, uint32_t window = 0);

// A driver that decides itself when items run: the SM timing model
// (sm/timing.h) steps their warps cycle by cycle. Drain() must produce,
// run and retire every item of `source` (retiring in id order, through
// RetireInOrder), honour limits.max_warp_instructions, and call each item's
// Prepare() before its warps first issue and Finish() after they all
// finished, as RunToCompletion does: then images, buffers and statistics
// are the same as DrainInOrder's.
class WarpDriver {
 public:
  virtual ~WarpDriver() = default;
  virtual Status Drain(WarpSource& source, const DrainLimits& limits) = 0;
};

// True when no item of a program bound to these regions and images can
// write memory another item reads: every resource region and image is
// read-only. (Workgroup and lane-private memory belong to one item.)
bool ItemsIndependent(const std::vector<simt::MemRegion>& regions,
                      const std::vector<simt::ImageDesc>& images);

}  // namespace warpsim::pipeline

#endif  // WARPSIM_PIPELINE_WARP_QUEUE_H_
