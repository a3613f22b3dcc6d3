#!/usr/bin/env python3
"""Compares NVIDIA's register counts with the emulator's registers per thread.

Two steps:

  vulkan_ref/results/compare_registers.py collect WARPSIM RUN_DIR CORPUS_ROOT
          OUT_DIR [--jobs N]
      runs `WARPSIM run FILE --json` (--shader-cache off, --threads 1, a
      120 s limit per file) over every file of RUN_DIR's
      corpus_reports.jsonl.gz (samples/... from this repository,
      conformance/... from CORPUS_ROOT), N files at a time (default 2), and
      writes OUT_DIR/emulator-registers-COMMIT.jsonl: a first line with the
      commit, the command and the date, then one line per shader of the
      emulator's report: file, pipeline, stage, registers
      (registers_per_thread), instructions, and the file's exit code.

  vulkan_ref/results/compare_registers.py RUN_DIR EMULATOR.jsonl
      prints the comparison tables (markdown);
  vulkan_ref/results/compare_registers.py --update README.md RUN_DIR
          EMULATOR.jsonl
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
    path = os.path.join(out_dir, "emulator-registers-%s.jsonl" % commit)
    with open(path, "w") as f:
        head = {"commit": commit,
                "date": datetime.datetime.now(datetime.timezone.utc)
                .strftime("%Y-%m-%dT%H:%M:%SZ"),
                "command": "%s run FILE --json REPORT --quiet --shader-cache off"
                           " --threads 1 (timeout 120 s)"
                           % os.path.relpath(warpsim, REPO),
                "files": len(files), "run_dir": os.path.relpath(run_dir, REPO)}
        f.write(json.dumps(head, sort_keys=True) + "\n")
        for i in range(len(files)):
            for row in results[i]:
                f.write(json.dumps(row, sort_keys=True) + "\n")
    print("collect: wrote %s" % path, file=sys.stderr)
    return path


def main(argv):
    if len(argv) >= 6 and argv[1] == "collect":
        jobs = 2
        if "--jobs" in argv:
            k = argv.index("--jobs")
            jobs = int(argv[k + 1])
            argv = argv[:k] + argv[k + 2:]
        collect(argv[2], argv[3], argv[4], argv[5], jobs)
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
