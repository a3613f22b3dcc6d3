#include "regress/child_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace warpsim::regress {

namespace {

using Clock = std::chrono::steady_clock;

// The parent keeps this much of a child's stdout/stderr (its tail).
constexpr size_t kMaxCapturedOutput = 8192;
// And at most this much of its result.
constexpr size_t kMaxResult = 64u << 20;

void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Body of a child: run the job, write its result, exit.
[[noreturn]] void RunChild(size_t index,
                           const std::function<std::string(size_t)>& body,
                           const PoolOptions& opts, pid_t parent, int result_fd,
                           int output_fd) {
  dup2(output_fd, STDOUT_FILENO);
  dup2(output_fd, STDERR_FILENO);
  close(output_fd);
  // Die with the parent (e.g. when ctest kills it at its TIMEOUT).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);  // the parent died before prctl
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // crashes are expected; no core files
  if (opts.mem_limit_mb > 0) {
    const rlim_t bytes = static_cast<rlim_t>(opts.mem_limit_mb) << 20;
    rlimit mem{bytes, bytes};
    setrlimit(RLIMIT_AS, &mem);
  }
  const std::string result = body(index);
  WriteAll(result_fd, result);
  std::fflush(nullptr);
  _exit(0);
}

struct Child {
  size_t index = 0;
  pid_t pid = -1;
  int result_fd = -1;
  int output_fd = -1;
  std::string result;
  std::string output;
  Clock::time_point start;
  Clock::time_point deadline;
};

// Reads what is available on *fd into *buf; closes the fd at EOF or error.
void Drain(int* fd, std::string* buf, size_t keep, bool keep_tail) {
  char chunk[65536];
  const ssize_t n = read(*fd, chunk, sizeof chunk);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    close(*fd);
    *fd = -1;
    return;
  }
  buf->append(chunk, static_cast<size_t>(n));
  if (buf->size() > keep) {
    if (keep_tail) {
      buf->erase(0, buf->size() - keep);
    } else {
      buf->resize(keep);
    }
  }
}

// A reaped child's outcome from its wait status and pipes.
ChildOutcome Finish(const Child& child, int wait_status) {
  ChildOutcome r;
  r.output_tail = child.output;
  std::string last = LastLines(child.output, 2);
  while (!last.empty() && last.back() == '\n') last.pop_back();
  for (char& c : last) c = c == '\n' ? ' ' : c;
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    r.message =
        "crashed (signal " + std::to_string(sig) + ", " + strsignal(sig) + ")";
    if (!last.empty()) r.message += ": " + last;
    return r;
  }
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
    r.message =
        "crashed (exit status " +
        std::to_string(WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1) +
        " without a result)";
    if (!last.empty()) r.message += ": " + last;
    return r;
  }
  r.ended = ChildOutcome::Ended::kResult;
  r.result = child.result;
  return r;
}

void DrawProgress(size_t done, size_t total, const std::string& name) {
  constexpr size_t kBar = 30;
  const size_t filled = total == 0 ? kBar : done * kBar / total;
  std::string bar(filled, '#');
  bar += std::string(kBar - filled, '.');
  std::string shown =
      name.size() > 40 ? "..." + name.substr(name.size() - 37) : name;
  std::fprintf(stderr, "\r\033[K[%s] %zu/%zu %s", bar.c_str(), done, total,
               shown.c_str());
  std::fflush(stderr);
}

}  // namespace

std::string LastLines(const std::string& output, size_t count) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") != line.npos) lines.push_back(line);
  }
  std::string out;
  for (size_t i = lines.size() - std::min(count, lines.size());
       i < lines.size(); ++i) {
    out += lines[i] + "\n";
  }
  return out;
}

std::vector<ChildOutcome> RunInChildren(
    size_t count, const std::function<std::string(size_t)>& body,
    const PoolOptions& opts,
    const std::function<void(size_t, const ChildOutcome&)>& on_finished) {
  std::vector<ChildOutcome> results(count);
  std::vector<Child> running;
  size_t next = 0, done = 0;
  const bool progress = opts.progress && isatty(STDERR_FILENO);
  const auto timeout = opts.timeout_s > 0
                           ? std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(opts.timeout_s))
                           : std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::hours(24 * 365));
  const size_t jobs = static_cast<size_t>(std::max(1, opts.jobs));
  auto finished = [&](size_t index, ChildOutcome r) {
    results[index] = std::move(r);
    ++done;
    if (on_finished) on_finished(index, results[index]);
    if (progress) {
      DrawProgress(done, count, opts.name_of ? opts.name_of(index) : "");
    }
  };
  auto failed_to_start = [&](size_t index, const char* what) {
    ChildOutcome r;
    r.message = std::string(what) + " failed: " + strerror(errno);
    finished(index, std::move(r));
  };

  auto start_child = [&](size_t index) {
    int result_pipe[2], output_pipe[2];
    if (pipe(result_pipe) != 0) return failed_to_start(index, "pipe");
    if (pipe(output_pipe) != 0) {
      close(result_pipe[0]);
      close(result_pipe[1]);
      return failed_to_start(index, "pipe");
    }
    std::fflush(nullptr);  // nothing buffered may be written twice
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
      close(result_pipe[0]);
      close(output_pipe[0]);
      for (const Child& c : running) {  // siblings' pipes are not ours
        if (c.result_fd >= 0) close(c.result_fd);
        if (c.output_fd >= 0) close(c.output_fd);
      }
      RunChild(index, body, opts, parent, result_pipe[1], output_pipe[1]);
    }
    close(result_pipe[1]);
    close(output_pipe[1]);
    if (pid < 0) {
      close(result_pipe[0]);
      close(output_pipe[0]);
      return failed_to_start(index, "fork");
    }
    Child c;
    c.index = index;
    c.pid = pid;
    c.result_fd = result_pipe[0];
    c.output_fd = output_pipe[0];
    c.start = Clock::now();
    c.deadline = c.start + timeout;
    running.push_back(std::move(c));
  };

  if (progress) DrawProgress(0, count, "");
  while (next < count || !running.empty()) {
    while (running.size() < jobs && next < count) start_child(next++);
    if (running.empty()) continue;

    // Wait for output or the nearest deadline.
    std::vector<pollfd> fds;
    Clock::time_point nearest = running.front().deadline;
    for (const Child& c : running) {
      nearest = std::min(nearest, c.deadline);
      if (c.result_fd >= 0) fds.push_back({c.result_fd, POLLIN, 0});
      if (c.output_fd >= 0) fds.push_back({c.output_fd, POLLIN, 0});
    }
    const auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             nearest - Clock::now())
                             .count();
    const int ready =
        poll(fds.data(), fds.size(),
             static_cast<int>(std::clamp<int64_t>(wait_ms + 1, 0, 60'000)));
    if (ready < 0 && errno != EINTR) {
      std::perror("poll");
      std::exit(2);
    }
    for (Child& c : running) {
      for (const pollfd& p : fds) {
        if (p.revents == 0) continue;
        if (p.fd == c.result_fd) {
          Drain(&c.result_fd, &c.result, kMaxResult, false);
        }
        if (p.fd == c.output_fd) {
          Drain(&c.output_fd, &c.output, kMaxCapturedOutput, true);
        }
      }
    }

    // Reap children whose pipes closed; kill those past their deadline.
    const Clock::time_point now = Clock::now();
    for (size_t i = 0; i < running.size();) {
      Child& c = running[i];
      const bool closed = c.result_fd < 0 && c.output_fd < 0;
      const bool late = !closed && now >= c.deadline;
      if (!closed && !late) {
        ++i;
        continue;
      }
      if (late) kill(c.pid, SIGKILL);
      int wait_status = 0;
      while (waitpid(c.pid, &wait_status, 0) < 0 && errno == EINTR) {
      }
      ChildOutcome r;
      if (late) {
        r.ended = ChildOutcome::Ended::kTimeout;
        std::ostringstream msg;
        msg << "timeout (over " << opts.timeout_s << " s)";
        r.message = msg.str();
        r.output_tail = c.output;
      } else {
        r = Finish(c, wait_status);
      }
      r.seconds = std::chrono::duration<double>(now - c.start).count();
      if (c.result_fd >= 0) close(c.result_fd);
      if (c.output_fd >= 0) close(c.output_fd);
      const size_t index = c.index;
      running.erase(running.begin() + static_cast<ptrdiff_t>(i));
      finished(index, std::move(r));
    }
  }
  if (progress) std::fprintf(stderr, "\r\033[K");
  return results;
}

}  // namespace warpsim::regress
