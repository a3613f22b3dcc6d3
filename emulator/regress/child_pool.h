// Runs many independent jobs (one scene file each), each in its own forked
// child process, a few at a time: nothing one job does (a crash, an
// endless loop, memory running out) can stop the others or the caller.
// `warpsim test` and tests/conformance's runner use it.
//
// Process model. The caller must be single-threaded when it calls
// RunInChildren (fork copies only the calling thread). Each child runs
// body(index), writes the string it returns to a result pipe and
// _exit(0)s; its stdout and stderr go to a second pipe whose tail the
// parent keeps, so a crashing child's last words reach the caller. The
// parent poll()s every pipe: a child that dies from a signal, or exits
// without a result, has "crashed"; one still running at its deadline is
// killed (SIGKILL) and "timed out". Children die with the parent
// (PR_SET_PDEATHSIG), write no core files, and may be given an
// address-space limit.
#ifndef WARPSIM_REGRESS_CHILD_POOL_H_
#define WARPSIM_REGRESS_CHILD_POOL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace warpsim::regress {

struct PoolOptions {
  int jobs = 1;               // children at once
  double timeout_s = 0;       // per child; 0: none
  uint64_t mem_limit_mb = 0;  // RLIMIT_AS per child; 0: none
  // On a terminal, a progress bar on stderr ("[####....] 12/40 NAME"),
  // erased at the end; name_of(index) names the job (may be empty).
  bool progress = false;
  std::function<std::string(size_t)> name_of;
};

struct ChildOutcome {
  enum class Ended { kResult, kCrashed, kTimeout };
  Ended ended = Ended::kCrashed;
  std::string result;       // what body() returned (kResult)
  std::string output_tail;  // the last bytes of its stdout and stderr
  // kCrashed: "crashed (signal 11, Segmentation fault)", "crashed (exit
  // status 1 without a result)"; kTimeout: "timeout (over N s)".
  std::string message;
  double seconds = 0;
};

// Runs body(0) ... body(count - 1), each in a child, at most opts.jobs at
// once; on_finished (optional, in the parent) sees each outcome as it
// ends. Returns the outcomes indexed like the jobs.
std::vector<ChildOutcome> RunInChildren(
    size_t count, const std::function<std::string(size_t)>& body,
    const PoolOptions& opts,
    const std::function<void(size_t, const ChildOutcome&)>& on_finished = {});

// The last `count` non-blank lines of captured output.
std::string LastLines(const std::string& output, size_t count);

}  // namespace warpsim::regress

#endif  // WARPSIM_REGRESS_CHILD_POOL_H_
