#!/usr/bin/env python3
"""Compares NVIDIA's register counts with the emulator's registers per thread.

Two steps:

  vulkan_ref/results/compare_registers.py collect WARPSIM RUN_DIR CORPUS_ROOT
          OUT_DIR [--jobs N]
      runs `WARPSIM run FILE --json` (--shader-cache off, --threads 1, a
      120 s limit per file) over every file of RUN_DIR's
      corpus_reports.jsonl.gz (samples/... from this repository,
      conformance/... from CORPUS_ROOT), N files at a time (default 2), and
      writes OUT_DIR/emulator-registers-COMMIT.jsonl.gz: a first line with the
      commit, the command and the date, then one line per shader of the
      emulator's report: file, pipeline, stage, registers
      (registers_per_thread), instructions, and the file's exit code.

  vulkan_ref/results/compare_registers.py RUN_DIR EMULATOR.jsonl.gz
      prints the comparison tables (markdown);
  vulkan_ref/results/compare_registers.py --update README.md RUN_DIR
          EMULATOR.jsonl.gz
      replaces the text between "<!-- registers -->" and
      "<!-- end registers -->" in README.md with them.

A pair is one vertex, fragment or compute shader with both an H200
"Register Count" (pipelines[].executable_statistics) and an emulator count,
matched by file, pipeline name and stage (when one file has several entries
with the same key, the k-th of one side is paired with the k-th of the
other).
"""
import collections
import concurrent.futures
import datetime
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile

STAGES = ("vertex", "fragment", "compute")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BEGIN, END = "<!-- registers -->", "<!-- end registers -->"


def load_run(run_dir):
    with gzip.open(os.path.join(run_dir, "corpus_reports.jsonl.gz"), "rt") as f:
        return [json.loads(line) for line in f]


def source_path(rel, corpus_root):
    head, _, rest = rel.partition("/")
    if head == "samples":
        return os.path.join(REPO, "samples", rest)
    return os.path.join(corpus_root, rest)


def commit_of_repo():
    try:
        return subprocess.run(
            ["git", "-C", REPO, "describe", "--always", "--abbrev=12", "--dirty"],
            capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def last_emulator_commit():
    """The last commit that changed the emulator's sources (what the
    counts depend on), as opposed to HEAD, which may only add results."""
    try:
        return subprocess.run(
            ["git", "-C", REPO, "log", "-1", "--format=%h", "--abbrev=12", "--",
             "emulator", "CMakeLists.txt", "tools/build.sh"],
            capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def reference_device(run_dir):
    """The GPU and driver of RUN_DIR's counts (its devices.txt), which the
    emulator's counts are compared with."""
    try:
        with open(os.path.join(run_dir, "devices.txt")) as f:
            line = f.readline().strip()
    except OSError:
        return "unknown (no devices.txt in %s)" % os.path.relpath(run_dir, REPO)
    return "%s: %s" % (os.path.relpath(run_dir, REPO), line.partition(": ")[2])


def collect(warpsim, run_dir, corpus_root, out_dir, jobs):
    files = [e["file"] for e in load_run(run_dir)]
    warpsim = os.path.abspath(warpsim)
    commit = commit_of_repo()
    tmp = tempfile.mkdtemp(prefix="compare_registers.")

    def run_one(i_rel):
        i, rel = i_rel
        out = os.path.join(tmp, "%d.json" % i)
        cmd = ["timeout", "120", warpsim, "run", source_path(rel, corpus_root),
               "--json", out, "--quiet", "--shader-cache", "off",
               "--threads", "1"]
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode
        rows = []
        try:
            with open(out) as f:
                report = json.load(f)
            os.remove(out)
        except (OSError, ValueError):
            report = {}
        for p in report.get("pipelines", []):
            rows.append({"file": rel, "pipeline": p.get("name"),
                         "stage": p.get("stage"),
                         "registers": p.get("registers_per_thread"),
                         "instructions": p.get("instructions"),
                         "exit_code": rc})
        if not rows:
            rows.append({"file": rel, "exit_code": rc})
        return i, rows

    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for n, (i, rows) in enumerate(pool.map(run_one, enumerate(files)), 1):
            results[i] = rows
            if n % 100 == 0:
                print("collect: %d of %d files" % (n, len(files)), file=sys.stderr)
    os.rmdir(tmp)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "emulator-registers-%s.jsonl.gz" % commit)
    with gzip.open(path, "wt") as f:
        head = {"commit": commit,
                "emulator_sources_commit": last_emulator_commit(),
                "warpsim_built": datetime.datetime.fromtimestamp(
                    os.path.getmtime(warpsim), datetime.timezone.utc)
                .strftime("%Y-%m-%dT%H:%M:%SZ"),
                "date": datetime.datetime.now(datetime.timezone.utc)
                .strftime("%Y-%m-%dT%H:%M:%SZ"),
                "command": "%s run FILE --json REPORT --quiet --shader-cache off"
                           " --threads 1 (timeout 120 s)"
                           % os.path.relpath(warpsim, REPO),
                "files": len(files), "run_dir": os.path.relpath(run_dir, REPO),
                "gpu": "none: the emulator's counts (warpsim, h200 preset), "
                       "made on the development machine",
                "driver": "none: no GPU driver ran (the emulator); the "
                          "NVIDIA driver of the counts compared with is in "
                          "compared_with",
                "compared_with": reference_device(run_dir)}
        f.write(json.dumps(head, sort_keys=True) + "\n")
        for i in range(len(files)):
            for row in results[i]:
                f.write(json.dumps(row, sort_keys=True) + "\n")
    print("collect: wrote %s" % path, file=sys.stderr)
    return path


def load_emulator(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        head = json.loads(f.readline())
        rows = [json.loads(line) for line in f if line.strip()]
    return head, rows


def pair_up(entries, emu_rows):
    nv = collections.defaultdict(list)
    for e in entries:
        for p in (e.get("report") or {}).get("pipelines", []):
            stats = p.get("executable_statistics") or {}
            if p.get("stage") in STAGES and "Register Count" in stats:
                nv[(e["file"], p.get("name"), p["stage"])].append(stats["Register Count"])
    em = collections.defaultdict(list)
    for r in emu_rows:
        if r.get("stage") in STAGES and r.get("registers") is not None:
            em[(r["file"], r["pipeline"], r["stage"])].append(r)
    pairs, nv_only, em_only = [], collections.Counter(), collections.Counter()
    exit_of = {r["file"]: r.get("exit_code") for r in emu_rows}
    vk_exit = {e["file"]: e.get("exit_code") for e in entries}
    for key in sorted(set(nv) | set(em)):
        a, b = nv.get(key, []), em.get(key, [])
        for k in range(min(len(a), len(b))):
            pairs.append({"file": key[0], "pipeline": key[1], "stage": key[2],
                          "nv": a[k], "emu": b[k]["registers"],
                          "instructions": b[k].get("instructions")})
        if len(a) > len(b):
            nv_only[exit_of.get(key[0])] += len(a) - len(b)
        if len(b) > len(a):
            em_only[vk_exit.get(key[0])] += len(b) - len(a)
    return pairs, nv_only, em_only


def row(cells):
    return "| " + " | ".join(str(c) for c in cells) + " |"


def fmt(x):
    if isinstance(x, int) or x == int(x):
        return "%d" % x
    return "%.2f" % x


def pct(x):
    return "%+.0f %%" % (100 * x)


BUCKETS = ((None, -32), (-31, -16), (-15, -8), (-7, -1), (0, 0), (1, 7),
           (8, 15), (16, 31), (32, None))


def bucket_name(lo, hi):
    if lo is None:
        return "≤ %d" % hi
    if hi is None:
        return "≥ %d" % lo
    return "%d" % lo if lo == hi else "%d … %d" % (lo, hi)


def in_bucket(d, lo, hi):
    return (lo is None or d >= lo) and (hi is None or d <= hi)


def render(run_dir, emu_path):
    from_run = load_run(run_dir)
    head, emu_rows = load_emulator(emu_path)
    pairs, nv_only, em_only = pair_up(from_run, emu_rows)
    floor = min(p["nv"] for p in pairs)
    emu_floor = min(p["emu"] for p in pairs)
    values = sorted({p["nv"] for p in pairs})
    emu_bad = {r["file"] for r in emu_rows if r.get("exit_code") not in (0, None)}

    def by_exit(c):
        return "%d%s" % (sum(c.values()), " (by that file's exit code on the other "
                         "side: %s)" % ", ".join("%s: %d" % (k, n) for k, n in
                                                 sorted(c.items(), key=str))
                         if c else "")
    subsets = [("all pairs", pairs)] + [
        (s, [p for p in pairs if p["stage"] == s]) for s in STAGES] + [
        ("NVIDIA > %d" % floor, [p for p in pairs if p["nv"] > floor])]
    L = ["<!-- generated by vulkan_ref/results/compare_registers.py; do not edit -->",
         "",
         "Emulator counts: `%s` (commit %s, last change to the emulator's "
         "sources %s; %s; `%s`). NVIDIA counts: `%s`."
         % (os.path.relpath(emu_path, REPO), head.get("commit"),
            head.get("emulator_sources_commit", "?"), head.get("date"),
            head.get("command"), os.path.relpath(run_dir, REPO)),
         "",
         "- Pairs (same file, pipeline name and stage): **%d**; NVIDIA counts "
         "without an emulator count: %s; emulator counts without an NVIDIA "
         "count: %s. Files the emulator did not finish with exit 0: %d (the "
         "shaders it compiled before stopping are paired; 124 is the 120 s "
         "limit)." % (len(pairs), by_exit(nv_only), by_exit(em_only), len(emu_bad)),
         "- NVIDIA's lowest count is %d; values seen in the pairs: %s. The "
         "emulator's lowest count is %d; its counts above NVIDIA's highest "
         "(%d): %d." % (
             floor, ", ".join(str(v) for v in values), emu_floor, max(values),
             sum(1 for p in pairs if p["emu"] > max(values))),
         "",
         "#### Error: emulator − NVIDIA (registers per thread)",
         "",
         row(["subset", "pairs", "min", "median", "max", "exact",
              "relative error min", "median", "max",
              "mean abs. relative error"]),
         "|---" * 10 + "|"]
    for name, ps in subsets:
        if not ps:
            continue
        d = [p["emu"] - p["nv"] for p in ps]
        r = [(p["emu"] - p["nv"]) / p["nv"] for p in ps]
        L.append(row([name, len(ps), fmt(min(d)), fmt(statistics.median(d)),
                      fmt(max(d)), sum(1 for x in d if x == 0), pct(min(r)),
                      pct(statistics.median(r)), pct(max(r)),
                      "%.1f %%" % (100 * statistics.mean(abs(x) for x in r))]))
    L += ["", "Histogram of emulator − NVIDIA:", "",
          row(["difference"] + [n for n, _ in subsets]),
          "|---" * (len(subsets) + 1) + "|"]
    for lo, hi in BUCKETS:
        L.append(row([bucket_name(lo, hi)] + [
            sum(1 for p in ps if in_bucket(p["emu"] - p["nv"], lo, hi))
            for _, ps in subsets]))
    big = [p for p in pairs if p["nv"] > floor]
    at = [p for p in pairs if p["nv"] == floor]
    L += ["", "#### At NVIDIA's floor (%d registers)" % floor, "",
          "- Pairs where NVIDIA reports %d: %d. The emulator's count there: "
          "equal to %d in %d, below in %d, above in %d; at the emulator's own "
          "lowest count (%d) in %d."
          % (floor, len(at), floor, sum(1 for p in at if p["emu"] == floor),
             sum(1 for p in at if p["emu"] < floor),
             sum(1 for p in at if p["emu"] > floor), emu_floor,
             sum(1 for p in at if p["emu"] == emu_floor)),
          "- Emulator counts in those pairs: " + ", ".join(
              "%d (%d)" % (v, n) for v, n in sorted(
                  collections.Counter(p["emu"] for p in at).items())) + "."]
    if big:
        r = [abs(p["emu"] - p["nv"]) / p["nv"] for p in big]
        clamped = [abs(max(p["emu"], floor) - p["nv"]) / p["nv"] for p in big]
        over = [p for p in pairs if p["emu"] > floor]
        if emu_floor >= floor:
            L += ["- The emulator's counts already have NVIDIA's minimum "
                  "(the h200 preset's min_registers_per_thread): the mean "
                  "absolute relative error on the %d pairs where NVIDIA uses "
                  "more than %d is %.1f %%. Pairs where the emulator exceeds "
                  "%d: %d, NVIDIA at the floor in %d of them."
                  % (len(big), floor, 100 * statistics.mean(r), floor,
                     len(over), sum(1 for p in over if p["nv"] == floor))]
        else:
            L += ["- For comparison only: with the emulator's count raised "
                  "to at least %d, %d of the %d floor pairs would be exact, "
                  "and the mean absolute relative error on the %d pairs "
                  "where NVIDIA uses more than %d would be %.1f %% (it is "
                  "%.1f %%). Pairs where the emulator itself exceeds %d: %d, "
                  "NVIDIA at the floor in %d of them."
                  % (floor,
                     sum(1 for p in at if max(p["emu"], floor) == p["nv"]),
                     len(at), len(big), floor, 100 * statistics.mean(clamped),
                     100 * statistics.mean(r), floor, len(over),
                     sum(1 for p in over if p["nv"] == floor))]
        if len(big) > 2 and len({p["emu"] for p in big}) > 1:
            L += ["- Where NVIDIA uses more than %d: Pearson correlation of the "
                  "two counts %.2f; median ratio NVIDIA / emulator %.2f."
                  % (floor, statistics.correlation([p["emu"] for p in big],
                                                   [p["nv"] for p in big]),
                     statistics.median(p["nv"] / max(p["emu"], 1) for p in big))]
    L += ["", "#### The 10 largest misses (by |emulator − NVIDIA|)", "",
          "| file | pipeline | stage | NVIDIA | emulator | emulator instructions |",
          "|---|---|---|---|---|---|"]
    worst = sorted(pairs, key=lambda p: (-abs(p["emu"] - p["nv"]), p["file"],
                                         p["pipeline"], p["stage"]))[:10]
    for p in worst:
        L.append(row(["`%s`" % p["file"], p["pipeline"], p["stage"], p["nv"],
                      p["emu"], p["instructions"]]))
    top = max(values)
    high = [p for p in pairs if p["emu"] >= top or p["nv"] >= top]
    if high:
        L += ["", "#### Pairs at or above NVIDIA's highest count (%d) on either side"
              % top, "",
              "| file | pipeline | stage | NVIDIA | emulator | emulator instructions |",
              "|---|---|---|---|---|---|"]
        for p in sorted(high, key=lambda p: (p["file"], p["pipeline"], p["stage"])):
            L.append(row(["`%s`" % p["file"], p["pipeline"], p["stage"], p["nv"],
                          p["emu"], p["instructions"]]))
    return "\n".join(L) + "\n"


def update(readme, text):
    with open(readme) as f:
        content = f.read()
    start, end = content.find(BEGIN), content.find(END)
    if start < 0 or end < start:
        sys.exit("compare_registers.py: %s has no %s ... %s" % (readme, BEGIN, END))
    content = content[:start + len(BEGIN)] + "\n" + text + content[end:]
    with open(readme, "w") as f:
        f.write(content)


def main(argv):
    if len(argv) >= 6 and argv[1] == "collect":
        jobs = 2
        if "--jobs" in argv:
            k = argv.index("--jobs")
            jobs = int(argv[k + 1])
            argv = argv[:k] + argv[k + 2:]
        collect(argv[2], argv[3], argv[4], argv[5], jobs)
        return 0
    if len(argv) == 5 and argv[1] == "--update":
        update(argv[2], render(argv[3], argv[4]))
        return 0
    if len(argv) == 3:
        sys.stdout.write(render(argv[1], argv[2]))
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
