// conformance_runner runs every .amber and .vkscript file of the shared
// conformance corpus through warpsim (or a Vulkan device, run_file.h), each
// in its own child process, and judges the outcomes against a checked-in
// list of known failures (known_failures.txt).
//
// Process model. The parent walks the corpus, then runs the files with
// regress::RunInChildren (emulator/regress/child_pool.h, shared with
// `warpsim test`): up to --jobs forked children at once, each running one
// file and writing one line "<warpsim status>\t<message>\n". A child that
// dies from a signal is "crashed (signal N)" with the last words of its
// output, one that outlives --timeout is killed and reported "timeout".
// Nothing a single file does can stop the run.
//
// Classification of one file (the "outcome"):
//   passed       every EXPECT held (*expect_fail* files: fail or invalid);
//   failed       an EXPECT did not hold (expect_fail files: warpsim passed);
//   invalid      warpsim rejected the input as malformed;
//   unsupported  valid input using a feature warpsim does not implement;
//   crashed      the child died from a signal or exited without a result;
//   timeout      the child ran longer than --timeout seconds.
//
// Scope of a file, decided by scanning its text (no parsing):
//   vkscript     a .vkscript file, or an .amber file whose first line that is
//                neither blank nor a '#' comment opens a "[section]" (the
//                older VkScript format);
//   graphics     an AmberScript file with a line whose first two words are
//                "PIPELINE graphics";
//   compute      every other AmberScript file.
//
// Judgement: a file that does not pass is accepted only when
// known_failures.txt lists it with exactly the observed outcome. The run
// fails (exit 1) when a file outside the list does not pass, when a listed
// file's outcome differs from the listed one (a listed file that now passes:
// "remove it"), or when a listed file is not in the corpus. The closing line
// "N passed, M failed" counts in M every non-passing file not accepted by
// the list.

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/run_file.h"
#include "regress/child_pool.h"
#include "runner/runner.h"

namespace warpsim::conformance {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Sanitizer runtimes reserve terabytes of address space, so the default
// memory limit (RLIMIT_AS) is off in sanitizer builds.
#if defined(__SANITIZE_ADDRESS__)
constexpr uint64_t kDefaultMemLimitMb = 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr uint64_t kDefaultMemLimitMb = 0;
#else
constexpr uint64_t kDefaultMemLimitMb = 4096;
#endif
#else
constexpr uint64_t kDefaultMemLimitMb = 4096;
#endif

// Messages (report lines and known-failure reasons) are cut to this length.
constexpr size_t kMaxMessage = 240;
// Exit status of a skipped run (ctest's SKIP_RETURN_CODE).
constexpr int kExitSkipped = 77;

constexpr const char* kUsage =
    "usage: conformance_runner --root DIR [options]\n"
    "\n"
    "Runs every .amber and .vkscript file below DIR through warpsim, each\n"
    "in a forked "
    "child, and checks the outcomes against a list of known failures.\n"
    "\n"
    "  --root DIR          corpus root (../shared/conformance)\n"
    "  --known FILE        known failures: 'path  status  reason' per line\n"
    "  --jobs N            files run at once (default 2)\n"
    "  --timeout SEC       per-file time limit (default 60)\n"
    "  --filter SUBSTR     only files whose relative path contains SUBSTR\n"
    "  --scope S           compute | graphics | vkscript | all (default all)\n"
    "  --every N           only every Nth selected file (a short sample)\n"
    "  --list-failures     print every non-passing file, known ones too\n"
    "  --write-known FILE  write the non-passing files in the --known format\n"
    "  --threads N         host threads per file (default 1)\n"
    "  --mem-limit MB      address-space limit per child, 0 = none\n"
    "                      (default 4096; none in sanitizer builds)\n"
    "  --skip-if-missing   a missing --root is a skip (exit 77) unless\n"
    "                      CI=true, where it stays an error\n"
    "\n"
    "Exit status: 0 all as expected, 1 a file outside the known list did not\n"
    "pass / a listed file changed outcome or is missing, 2 usage error or\n"
    "missing corpus, 77 skipped (--skip-if-missing).\n";

// ---------------------------------------------------------------------------
// Outcomes and scopes.

enum class Outcome {
  kPassed,
  kFailed,
  kInvalid,
  kUnsupported,
  kCrashed,
  kTimeout
};
constexpr std::array<Outcome, 6> kAllOutcomes = {
    Outcome::kPassed,      Outcome::kFailed,  Outcome::kInvalid,
    Outcome::kUnsupported, Outcome::kCrashed, Outcome::kTimeout};

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kPassed:
      return "passed";
    case Outcome::kFailed:
      return "failed";
    case Outcome::kInvalid:
      return "invalid";
    case Outcome::kUnsupported:
      return "unsupported";
    case Outcome::kCrashed:
      return "crashed";
    case Outcome::kTimeout:
      return "timeout";
  }
  return "?";
}

std::string OutcomeLabel(Outcome o) {
  std::string s = OutcomeName(o);
  for (char& c : s) c = static_cast<char>(std::toupper(c));
  return s;
}

std::optional<Outcome> ParseOutcome(std::string_view s) {
  for (Outcome o : kAllOutcomes) {
    if (s == OutcomeName(o)) return o;
  }
  return std::nullopt;
}

enum class Scope { kCompute, kGraphics, kVkScript };
constexpr std::array<Scope, 3> kAllScopes = {Scope::kCompute, Scope::kGraphics,
                                             Scope::kVkScript};

const char* ScopeName(Scope s) {
  switch (s) {
    case Scope::kCompute:
      return "compute";
    case Scope::kGraphics:
      return "graphics";
    case Scope::kVkScript:
      return "vkscript";
  }
  return "?";
}

// The scanning rule described at the top of the file.
Scope DetectScope(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  bool seen_content = false;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first, second;
    if (!(words >> first) || first[0] == '#') continue;
    if (!seen_content && first[0] == '[') return Scope::kVkScript;
    seen_content = true;
    if (first == "PIPELINE" && (words >> second) && second == "graphics") {
      return Scope::kGraphics;
    }
  }
  return Scope::kCompute;
}

// ---------------------------------------------------------------------------
// Options.

struct Options {
  fs::path root;
  std::string known_path;
  int jobs = 2;
  double timeout_s = 60;
  std::string filter;
  std::optional<Scope> scope;  // nullopt = all
  int every = 1;               // keep files 0, N, 2N, ... of the selection
  bool list_failures = false;
  bool skip_if_missing = false;  // a missing root skips unless CI=true
  std::string write_known_path;
  uint64_t mem_limit_mb = kDefaultMemLimitMb;
  uint32_t threads = 1;  // RunOptions::threads of every file
};

// Parses argv; on error prints a message and returns nullopt.
std::optional<Options> ParseArgs(int argc, char** argv, bool* help) {
  Options opts;
  bool have_root = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline_value = false;
    if (size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != arg.npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline_value = true;
    }
    auto take_value = [&]() -> bool {
      if (has_inline_value) return true;
      if (i + 1 >= argc) {
        std::cerr << "conformance_runner: " << arg << " needs a value\n";
        return false;
      }
      value = argv[++i];
      return true;
    };
    auto parse_number = [&](double lo, double* out) -> bool {
      char* end = nullptr;
      double v = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(v >= lo)) {
        std::cerr << "conformance_runner: " << arg
                  << ": expected a number >= " << lo << ", got '" << value
                  << "'\n";
        return false;
      }
      *out = v;
      return true;
    };
    double number = 0;
    if (arg == "--help" || arg == "-h") {
      *help = true;
      return std::nullopt;
    } else if (arg == "--list-failures") {
      opts.list_failures = true;
    } else if (arg == "--skip-if-missing") {
      opts.skip_if_missing = true;
    } else if (arg == "--root") {
      if (!take_value()) return std::nullopt;
      opts.root = value;
      have_root = true;
    } else if (arg == "--known") {
      if (!take_value()) return std::nullopt;
      opts.known_path = value;
    } else if (arg == "--write-known") {
      if (!take_value()) return std::nullopt;
      opts.write_known_path = value;
    } else if (arg == "--filter") {
      if (!take_value()) return std::nullopt;
      opts.filter = value;
    } else if (arg == "--jobs") {
      if (!take_value() || !parse_number(1, &number)) return std::nullopt;
      opts.jobs = static_cast<int>(std::min(number, 1024.0));
    } else if (arg == "--every") {
      if (!take_value() || !parse_number(1, &number)) return std::nullopt;
      opts.every = static_cast<int>(std::min(number, 1e6));
    } else if (arg == "--timeout") {
      if (!take_value() || !parse_number(0.001, &number)) return std::nullopt;
      opts.timeout_s = number;
    } else if (arg == "--threads") {
      if (!take_value() || !parse_number(1, &number)) return std::nullopt;
      opts.threads = static_cast<uint32_t>(std::min(number, 256.0));
    } else if (arg == "--mem-limit") {
      if (!take_value() || !parse_number(0, &number)) return std::nullopt;
      opts.mem_limit_mb = static_cast<uint64_t>(number);
    } else if (arg == "--scope") {
      if (!take_value()) return std::nullopt;
      if (value == "all") {
        opts.scope.reset();
      } else {
        bool found = false;
        for (Scope s : kAllScopes) {
          if (value == ScopeName(s)) {
            opts.scope = s;
            found = true;
          }
        }
        if (!found) {
          std::cerr << "conformance_runner: --scope: expected compute, "
                       "graphics, vkscript or all, got '"
                    << value << "'\n";
          return std::nullopt;
        }
      }
    } else {
      std::cerr << "conformance_runner: unknown argument '" << arg << "'\n";
      return std::nullopt;
    }
  }
  if (!have_root) {
    std::cerr << "conformance_runner: --root DIR is required\n";
    return std::nullopt;
  }
  return opts;
}

// ---------------------------------------------------------------------------
// Strings.

// Collapses whitespace runs (newlines included) into single spaces, trims,
// and cuts to kMaxMessage characters.
std::string OneLine(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  if (out.size() > kMaxMessage) out = out.substr(0, kMaxMessage - 3) + "...";
  return out;
}

void ReplaceAll(std::string* s, std::string_view from, std::string_view to) {
  if (from.empty()) return;
  for (size_t pos = s->find(from); pos != s->npos;
       pos = s->find(from, pos + to.size())) {
    s->replace(pos, from.size(), to);
  }
}

// ---------------------------------------------------------------------------
// The corpus.

struct TestFile {
  std::string rel;     // path relative to the root, '/'-separated
  std::string abs;     // path the child opens
  std::string folder;  // first two directory levels of rel
  Scope scope = Scope::kCompute;
  bool expect_fail = false;
};

std::string FolderOf(const std::string& rel) {
  size_t first = rel.find('/');
  if (first == rel.npos) return ".";
  size_t second = rel.find('/', first + 1);
  if (second == rel.npos) return rel.substr(0, first);
  return rel.substr(0, second);
}

// Every *.amber and *.vkscript file below root, sorted by relative path.
std::vector<TestFile> WalkCorpus(const fs::path& root) {
  std::vector<TestFile> files;
  for (const auto& entry : fs::recursive_directory_iterator(
           root, fs::directory_options::follow_directory_symlink)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".amber" && ext != ".vkscript")) {
      continue;
    }
    TestFile f;
    f.abs = entry.path().string();
    f.rel = entry.path().lexically_relative(root).generic_string();
    f.folder = FolderOf(f.rel);
    f.expect_fail = entry.path().filename().string().find("expect_fail") !=
                    std::string::npos;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    f.scope = ext == ".vkscript" ? Scope::kVkScript : DetectScope(text.str());
    files.push_back(std::move(f));
  }
  std::sort(files.begin(), files.end(),
            [](const TestFile& a, const TestFile& b) { return a.rel < b.rel; });
  return files;
}

// ---------------------------------------------------------------------------
// Known failures.

struct KnownEntry {
  Outcome outcome = Outcome::kFailed;
  std::string reason;
};

// Reads 'path  status  reason' lines ('#' comments and blank lines skipped).
// Returns false (with a message on stderr) on a malformed file.
bool LoadKnown(const std::string& path,
               std::map<std::string, KnownEntry>* known) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << "conformance_runner: cannot read known failures '" << path
              << "'\n";
    return false;
  }
  std::string line;
  int line_no = 0;
  bool ok = true;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream words(line);
    std::string file, status;
    if (!(words >> file) || file[0] == '#') continue;
    std::optional<Outcome> outcome;
    if (words >> status) outcome = ParseOutcome(status);
    if (!outcome || *outcome == Outcome::kPassed) {
      std::cerr << path << ":" << line_no
                << ": error: expected 'path status reason' with status one of "
                   "failed, invalid, unsupported, crashed, timeout\n";
      ok = false;
      continue;
    }
    std::string reason;
    std::getline(words, reason);
    if (known->count(file) != 0) {
      std::cerr << path << ":" << line_no << ": error: '" << file
                << "' is listed twice\n";
      ok = false;
      continue;
    }
    (*known)[file] = KnownEntry{*outcome, OneLine(reason)};
  }
  return ok;
}

// ---------------------------------------------------------------------------
// Running files in children.

struct FileResult {
  Outcome outcome = Outcome::kCrashed;
  std::string message;
  double seconds = 0;
};

// The one-line message of a report: the first failed expectation, or the
// diagnostic. The file's own path is shortened to "line N" / dropped.
std::string ReportMessage(const runner::RunReport& report,
                          const TestFile& file) {
  std::string msg;
  if (report.status == runner::RunStatus::kFail) {
    for (const auto& e : report.expectations) {
      if (!e.passed) {
        msg = "line " + std::to_string(e.line) + ": " + e.message;
        break;
      }
    }
  }
  if (msg.empty() && report.diagnostic) msg = report.diagnostic->ToString();
  if (msg.empty() && report.status != runner::RunStatus::kPass) {
    msg = std::string("warpsim reported '") +
          runner::RunStatusName(report.status) + "' without a message";
  }
  // The file's own name is already on the report line: drop it.
  //   "<abs>/x.amber:12: error: ..."      -> "line 12: error: ..."
  //   "<abs>/x.amber (shader cs): word 7" -> "(shader cs): word 7"
  const std::string name = fs::path(file.abs).filename().string();
  ReplaceAll(&msg, file.abs, name);
  if (msg.rfind(name + ":", 0) == 0) {
    msg = msg.substr(name.size() + 1);
    if (!msg.empty() && std::isdigit(static_cast<unsigned char>(msg[0]))) {
      msg = "line " + msg;
    }
  } else if (msg.rfind(name + " ", 0) == 0) {
    msg = msg.substr(name.size() + 1);
  }
  return OneLine(msg);
}

// Maps warpsim's status for a file to its outcome (expect_fail inverts).
FileResult Classify(const TestFile& file, std::string_view status,
                    std::string message) {
  FileResult r;
  if (status == "unsupported") {
    r.outcome = Outcome::kUnsupported;
    r.message = std::move(message);
  } else if (file.expect_fail) {
    if (status == "pass") {
      r.outcome = Outcome::kFailed;
      r.message = "expected to fail (expect_fail file), but passed";
    } else {
      r.outcome = Outcome::kPassed;
      r.message =
          "failed as expected (" + std::string(status) + "): " + message;
    }
  } else if (status == "pass") {
    r.outcome = Outcome::kPassed;
  } else if (status == "fail") {
    r.outcome = Outcome::kFailed;
    r.message = std::move(message);
  } else if (status == "invalid") {
    r.outcome = Outcome::kInvalid;
    r.message = std::move(message);
  } else if (status == "limit_exceeded") {
    // The warp instruction limit stopped it: it did not finish in time.
    r.outcome = Outcome::kTimeout;
    r.message = std::move(message);
  } else {
    r.outcome = Outcome::kCrashed;
    r.message = "child reported unknown status '" + std::string(status) + "'";
  }
  return r;
}

// Runs every file, at most opts.jobs at once, each in a child
// (regress/child_pool.h); results are indexed like files.
std::vector<FileResult> RunAll(const std::vector<TestFile>& files,
                               const Options& opts) {
  regress::PoolOptions pool;
  pool.jobs = opts.jobs;
  pool.timeout_s = opts.timeout_s;
  pool.mem_limit_mb = opts.mem_limit_mb;
  pool.progress = true;
  pool.name_of = [&files](size_t i) { return files[i].rel; };
  const std::vector<regress::ChildOutcome> outcomes = regress::RunInChildren(
      files.size(),
      [&](size_t i) {
        // In the child: "<warpsim status>\t<message>\n".
        const runner::RunReport report =
            RunCorpusFile(files[i].abs, opts.threads);
        return std::string(runner::RunStatusName(report.status)) + "\t" +
               ReportMessage(report, files[i]) + "\n";
      },
      pool);
  std::vector<FileResult> results(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const regress::ChildOutcome& o = outcomes[i];
    FileResult& r = results[i];
    const size_t tab = o.result.find('\t');
    const size_t nl = o.result.find('\n');
    if (o.ended == regress::ChildOutcome::Ended::kTimeout) {
      r.outcome = Outcome::kTimeout;
      r.message = o.message;
    } else if (o.ended == regress::ChildOutcome::Ended::kCrashed) {
      r.outcome = Outcome::kCrashed;
      r.message = OneLine(o.message);
    } else if (tab == o.result.npos || nl == o.result.npos) {
      r.outcome = Outcome::kCrashed;
      r.message = "crashed (exit status 0 without a result)";
    } else {
      r = Classify(files[i], std::string_view(o.result).substr(0, tab),
                   o.result.substr(tab + 1, nl - tab - 1));
    }
    r.seconds = o.seconds;
  }
  return results;
}

// ---------------------------------------------------------------------------
// Reporting.

struct Counts {
  std::array<int, kAllOutcomes.size()> by_outcome{};
  int total = 0;
  void Add(Outcome o) {
    ++by_outcome[static_cast<size_t>(o)];
    ++total;
  }
  int passed() const { return by_outcome[0]; }
};

void PrintCountsHeader(const char* first_column, int width) {
  std::printf("%-*s %6s", width, first_column, "files");
  for (Outcome o : kAllOutcomes) std::printf(" %11s", OutcomeName(o));
  std::printf(" %9s\n", "pass rate");
}

void PrintCountsRow(const std::string& name, const Counts& c, int width) {
  std::printf("%-*s %6d", width, name.c_str(), c.total);
  for (int n : c.by_outcome) std::printf(" %11d", n);
  double rate = c.total == 0 ? 0 : 100.0 * c.passed() / c.total;
  std::printf(" %8.1f%%\n", rate);
}

// Writes the non-passing files as a known-failures list. Entries of the old
// list for corpus files outside this run's selection are carried over, and
// an entry whose outcome did not change keeps its (reviewed) reason.
bool WriteKnown(const std::string& path, const std::vector<TestFile>& files,
                const std::vector<FileResult>& results,
                const std::map<std::string, KnownEntry>& carried,
                const std::map<std::string, KnownEntry>& old) {
  std::map<std::string, KnownEntry> entries = carried;
  for (size_t i = 0; i < files.size(); ++i) {
    if (results[i].outcome == Outcome::kPassed) continue;
    std::string reason = results[i].message;
    if (reason.empty()) reason = "(no message)";
    auto it = old.find(files[i].rel);
    if (it != old.end() && it->second.outcome == results[i].outcome) {
      reason = it->second.reason;
    }
    entries[files[i].rel] = KnownEntry{results[i].outcome, reason};
  }
  size_t width = 0;
  for (const auto& [file, entry] : entries)
    width = std::max(width, file.size());
  std::ofstream out(path);
  out << "# Known conformance failures: files of ../shared/conformance that "
         "do\n"
         "# not pass yet. One line per file:\n"
         "#   <path relative to the corpus root>  <status>  <reason>\n"
         "# status is the outcome the runner must observe: failed, invalid,\n"
         "# unsupported, crashed or timeout (crashes and timeouts should be\n"
         "# fixed, not listed). A listed file that passes, or whose outcome\n"
         "# changes, fails the run. Regenerate with\n"
         "#   conformance_runner --root ../shared/conformance \\\n"
         "#       --known tests/conformance/known_failures.txt \\\n"
         "#       --write-known tests/conformance/known_failures.txt\n"
         "# and review the reasons (see tests/conformance/README.md).\n";
  for (const auto& [file, entry] : entries) {
    std::string status = OutcomeName(entry.outcome);
    out << file << std::string(width + 2 - file.size(), ' ') << status
        << std::string(13 - status.size(), ' ') << entry.reason << "\n";
  }
  out.close();
  if (!out) {
    std::cerr << "conformance_runner: cannot write '" << path << "'\n";
    return false;
  }
  return true;
}

int Main(int argc, char** argv) {
  bool help = false;
  std::optional<Options> parsed = ParseArgs(argc, argv, &help);
  if (help) {
    std::cout << kUsage;
    return 0;
  }
  if (!parsed) {
    std::cerr << "(see conformance_runner --help)\n";
    return 2;
  }
  Options opts = *parsed;
  std::error_code ec;
  opts.root = fs::weakly_canonical(opts.root, ec);
  if (ec || !fs::is_directory(opts.root)) {
    std::cerr << "conformance_runner: --root '" << opts.root.string()
              << "' is not a directory\n";
    // Locally a checkout without the corpus skips; in CI the corpus is part
    // of the setup, so its absence fails.
    const char* ci = std::getenv("CI");
    if (opts.skip_if_missing && (ci == nullptr || std::string(ci) != "true")) {
      std::cerr << "conformance_runner: skipped (no corpus; with CI=true "
                   "this fails)\n";
      return kExitSkipped;
    }
    return 2;
  }
  std::map<std::string, KnownEntry> known;
  if (!opts.known_path.empty() && !LoadKnown(opts.known_path, &known)) {
    return 2;
  }
  const std::string known_name =
      opts.known_path.empty() ? std::string("the known-failures list")
                              : fs::path(opts.known_path).filename().string();

  std::vector<TestFile> corpus = WalkCorpus(opts.root);
  std::set<std::string> corpus_paths;
  std::vector<TestFile> files;
  int selected_count = 0;
  for (const TestFile& f : corpus) {
    corpus_paths.insert(f.rel);
    if (!opts.filter.empty() && f.rel.find(opts.filter) == std::string::npos) {
      continue;
    }
    if (opts.scope && f.scope != *opts.scope) continue;
    if (selected_count++ % opts.every != 0) continue;
    files.push_back(f);
  }
  std::printf(
      "conformance: %zu of %zu .amber/.vkscript files under %s (scope %s%s%s), "
      "%d jobs, timeout %g s\n",
      files.size(), corpus.size(), opts.root.c_str(),
      opts.scope ? ScopeName(*opts.scope) : "all",
      opts.filter.empty() ? "" : ", filter ", opts.filter.c_str(), opts.jobs,
      opts.timeout_s);
  std::fflush(stdout);

  Clock::time_point t0 = Clock::now();
  std::vector<FileResult> results = RunAll(files, opts);
  double wall_s = std::chrono::duration<double>(Clock::now() - t0).count();

  // Judge every file against the known list.
  std::map<std::string, Counts> by_folder;
  std::map<Scope, Counts> by_scope;
  Counts all;
  int passed = 0, unexpected = 0, known_failures = 0, stale = 0;
  std::vector<std::string> lines;  // per-file report lines, in path order
  for (size_t i = 0; i < files.size(); ++i) {
    const TestFile& f = files[i];
    const FileResult& r = results[i];
    by_folder[f.folder].Add(r.outcome);
    by_scope[f.scope].Add(r.outcome);
    all.Add(r.outcome);
    auto it = known.find(f.rel);
    if (r.outcome == Outcome::kPassed) {
      ++passed;
      if (it != known.end()) {
        ++stale;
        lines.push_back("PASSED " + f.rel + ": listed as known failure (" +
                        OutcomeName(it->second.outcome) +
                        ") but passed: " + "remove it from " + known_name);
      }
      continue;
    }
    std::string line = OutcomeLabel(r.outcome) + " " + f.rel + ": " + r.message;
    if (it != known.end() && it->second.outcome == r.outcome) {
      ++known_failures;
      if (opts.list_failures) lines.push_back(line + " (known)");
      continue;
    }
    ++unexpected;
    if (it != known.end()) {
      line += std::string(" (listed as '") + OutcomeName(it->second.outcome) +
              "' in " + known_name + ": update the entry)";
    }
    lines.push_back(line);
  }
  int missing = 0;
  for (const auto& [file, entry] : known) {
    if (corpus_paths.count(file) == 0) {
      ++missing;
      lines.push_back("MISSING " + file + ": listed in " + known_name +
                      " but not in the corpus: remove it");
    }
  }

  if (!lines.empty()) std::printf("\n");
  for (const std::string& line : lines) std::printf("%s\n", line.c_str());

  int width = 8;
  for (const auto& [folder, c] : by_folder) {
    width = std::max(width, static_cast<int>(folder.size()));
  }
  std::printf("\n");
  PrintCountsHeader("folder", width);
  for (const auto& [folder, c] : by_folder) PrintCountsRow(folder, c, width);
  std::printf("\n");
  PrintCountsHeader("scope", width);
  for (Scope s : kAllScopes) {
    if (by_scope.count(s) != 0)
      PrintCountsRow(ScopeName(s), by_scope[s], width);
  }
  PrintCountsRow("all", all, width);

  // The slowest files show where the time budget goes.
  std::vector<size_t> order(files.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return results[a].seconds > results[b].seconds;
  });
  std::printf("\nslowest files:\n");
  for (size_t i = 0; i < std::min<size_t>(5, order.size()); ++i) {
    std::printf("  %7.2f s  %s (%s)\n", results[order[i]].seconds,
                files[order[i]].rel.c_str(),
                OutcomeName(results[order[i]].outcome));
  }
  std::printf("wall time %.1f s with %d jobs\n\n", wall_s, opts.jobs);

  if (!opts.write_known_path.empty()) {
    // Carry over entries for corpus files this run did not select.
    std::set<std::string> selected;
    for (const TestFile& f : files) selected.insert(f.rel);
    std::map<std::string, KnownEntry> carried;
    for (const auto& [file, entry] : known) {
      if (selected.count(file) == 0 && corpus_paths.count(file) != 0) {
        carried[file] = entry;
      }
    }
    if (!WriteKnown(opts.write_known_path, files, results, carried, known)) {
      return 2;
    }
    std::printf("wrote %s\n", opts.write_known_path.c_str());
  }

  std::printf("%d known failures (listed in %s, not counted below)\n",
              known_failures, known_name.c_str());
  if (stale + missing > 0) {
    std::printf("%d stale entries in %s (file passes or is missing)\n",
                stale + missing, known_name.c_str());
  }
  std::printf("%d passed, %d failed\n", passed, unexpected);
  return unexpected + stale + missing == 0 ? 0 : 1;
}

}  // namespace
}  // namespace warpsim::conformance

int main(int argc, char** argv) {
  return warpsim::conformance::Main(argc, argv);
}
