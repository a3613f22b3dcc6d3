#!/usr/bin/env python3
"""Counts the host instructions one frame takes in each mode, under callgrind.

This machine's wall times move by a third from one run to the next (its
neighbours share the cache and the memory), too much to see a change of a
few per cent in the timing model's cost. The host instructions executed
inside pipeline::Draw() are the same on every run of one binary: this
script counts them for the functional and the timing frame of
bench/warpsim_bench.cpp (valgrind's callgrind, collecting only inside
Draw(), so that building the shaders and the preset is left out), and for
the timing frame the simulated first-level data-cache read misses, the
misses of a 1 MB last level (reads and writes: the size of this
machine's second level, which the timing model's resident warps
overflow; callgrind's default last level is the 32 MB third) and
mispredicted conditional branches (callgrind's cache and branch models,
not this CPU's). They say what the host executes, not how long it waits:
the issue's bound is on wall time (bench/README.md's timing sections);
these figures show where a change moved the work.

Usage:
  bench/instructions.py --bench build/bench/warpsim_bench -o OUT.json
      [--commit REV]  (the binary's commit, when not this checkout's)
  bench/instructions.py --update bench/README.md bench/results/NAME.json
      replace the text between "<!-- table NAME -->" and
      "<!-- end table NAME -->" with the table of the recorded file
Needs valgrind (Debian package valgrind).
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from readme_section import replace_section  # noqa: E402

BENCHMARKS = ["BM_FrameGraphicsFuzz/256", "BM_FrameGraphicsFuzzTiming/256"]
EVENTS = ["Ir", "D1mr", "DLmr", "DLmw", "Bcm"]
# The simulated last level: size, associativity, line bytes.
LAST_LEVEL = "1048576,16,64"


def run_one(bench, name, tmp):
    out = os.path.join(tmp, "cg.out")
    js = os.path.join(tmp, "bench.json")
    cmd = [
        "valgrind", "--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes",
        "--LL=" + LAST_LEVEL,
        "--toggle-collect=warpsim::pipeline::Draw(*",
        "--callgrind-out-file=" + out, bench,
        "--benchmark_filter=^" + re.escape(name) + "$",
        "--benchmark_min_time=0.000001",
        "--benchmark_out=" + js, "--benchmark_out_format=json"
    ]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    events = totals = None
    with open(out) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("totals:") or line.startswith("summary:"):
                totals = [int(x) for x in line.split()[1:]]
    if events is None or totals is None:
        sys.exit(f"instructions.py: no totals in callgrind's output for {name}")
    with open(js) as f:
        runs = [b for b in json.load(f)["benchmarks"]
                if b.get("run_type") == "iteration"]
    if len(runs) != 1:
        sys.exit(f"instructions.py: {name}: expected one run, got {len(runs)}")
    iterations = runs[0]["iterations"]
    counts = dict(zip(events, totals))
    return {
        "iterations": iterations,
        **{e: counts.get(e, 0) / iterations for e in EVENTS},
        **({"cycles": runs[0]["cycles"]} if "cycles" in runs[0] else {}),
    }


def record(args):
    version = subprocess.run(["valgrind", "--version"], capture_output=True,
                             text=True, check=True).stdout.strip()
    commit = args.commit
    if commit is None:
        commit = subprocess.run(
            ["git", "describe", "--always", "--dirty"], capture_output=True,
            text=True, cwd=os.path.dirname(os.path.abspath(__file__)),
            check=True).stdout.strip()
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"),
        "commit": commit,
        "valgrind": version,
        "last_level": LAST_LEVEL,
        "command": " ".join(sys.argv),
        "benchmarks": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name in BENCHMARKS:
            result["benchmarks"][name] = run_one(args.bench, name, tmp)
    with open(args.output, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(table(result, args.output))


def LastLevel(b):
    return b["DLmr"] + b["DLmw"]


def table(r, path):
    f, t = (r["benchmarks"][b] for b in BENCHMARKS)
    # (Records made before the last level was simulated have no column.)
    ll = "last_level" in r
    lines = [
        f"Recorded {r['date']} at {r['commit']} with {r['valgrind']}; "
        f"`{os.path.relpath(path)}`. Per frame (one Draw()); the ratio is "
        "the timing frame's over the functional frame's" +
        (f"; last level simulated as {r['last_level']} (bytes, ways, "
         "line bytes)." if ll else "."),
        "",
        "| benchmark | host instructions (M) | D1 read misses (M) "
        + ("| 1 MB last-level misses (M) " if ll else "") +
        "| mispredicted branches (M) | GPU cycles |",
        "|---|---|---|---|---|" + ("---|" if ll else ""),
    ]
    for name in BENCHMARKS:
        b = r["benchmarks"][name]
        cycles = f"{b['cycles']:.0f}" if "cycles" in b else "-"
        lines.append(f"| {name} | {b['Ir'] / 1e6:.1f} | {b['D1mr'] / 1e6:.2f} "
                     + (f"| {LastLevel(b) / 1e6:.2f} " if ll else "") +
                     f"| {b['Bcm'] / 1e6:.2f} | {cycles} |")
    lines.append(f"| ratio | {t['Ir'] / f['Ir']:.2f} | "
                 f"{t['D1mr'] / max(1, f['D1mr']):.2f} | " +
                 (f"{LastLevel(t) / max(1, LastLevel(f)):.2f} | " if ll else "")
                 + f"{t['Bcm'] / max(1, f['Bcm']):.2f} | |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bench", help="the warpsim_bench binary")
    p.add_argument("-o", "--output", help="the result JSON to write")
    p.add_argument("--commit", help="the commit the binary was built at "
                   "(default: this checkout's, git describe --dirty)")
    p.add_argument("--update", nargs=2, metavar=("README", "RESULT"))
    args = p.parse_args()
    if args.update:
        readme, path = args.update
        with open(path) as f:
            r = json.load(f)
        name = os.path.splitext(os.path.basename(path))[0]
        sys.exit(replace_section(readme, "<!-- table %s -->" % name,
                                 "<!-- end table %s -->" % name,
                                 table(r, path) + "\n", "instructions.py"))
    if not args.bench or not args.output:
        p.error("--bench and -o, or --update")
    record(args)


if __name__ == "__main__":
    main()
