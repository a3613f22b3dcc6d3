#!/usr/bin/env python3
"""The SM clock a record's runs ran at, from what run_scenes_h200.sh
wrote beside them: nvidia-smi-clocks.txt (`nvidia-smi
--query-gpu=timestamp,clocks.sm,clocks.max.sm --format=csv -lms 20`
through the runs) and times.txt (`STAMP, start|end, RUN` for each run, in
nvidia-smi's timestamp format and clock).

  vulkan_ref/experiments/device_clocks.py RECORD_DIR

prints, per run, the samples taken while it ran and their lowest, median
and highest SM clock. Why: on the H200 the driver lowered the SM clock
from 1980 MHz to 400-600 MHz a few seconds into a run of a scene with
many draws (E26's first runs, vulkan_ref/results/h200/README.md), with
nothing in the run's own report to show it.

Standard library only.
"""
import json
import os
import re
import statistics
import sys


def _mhz(field):
    return float(field.strip().split()[0])


def samples(record):
    """(timestamp, SM MHz, max SM MHz) of every clock sample."""
    out = []
    with open(os.path.join(record, "nvidia-smi-clocks.txt")) as f:
        for line in f:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) < 3 or not parts[1].endswith("MHz"):
                continue
            out.append((parts[0], _mhz(parts[1]), _mhz(parts[2])))
    return out


def windows(record):
    """{run: (start, end)} from times.txt."""
    start, out = {}, {}
    with open(os.path.join(record, "times.txt")) as f:
        for line in f:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) != 3:
                continue
            stamp, what, run = parts
            if what == "start":
                start[run] = stamp
            elif what == "end" and run in start:
                out[run] = (start[run], stamp)
    return out


def run_clocks(record):
    """{run: {"samples", "min_mhz", "median_mhz", "max_mhz",
    "max_sm_mhz"}} of the clock samples taken while each run ran (for a
    run with none, the last before it and the first after it)."""
    all_samples = samples(record)
    out = {}
    for run, (a, b) in windows(record).items():
        # The samples inside the run; a run shorter than the sampling
        # interval gets the last one before it and the first after it.
        mhz = [m for t, m, _ in all_samples if a <= t <= b]
        if not mhz:
            before = [m for t, m, _ in all_samples if t < a]
            after = [m for t, m, _ in all_samples if t > b]
            mhz = before[-1:] + after[:1]
        if not mhz:
            continue
        out[run] = {"samples": len(mhz), "min_mhz": min(mhz),
                    "median_mhz": statistics.median(mhz),
                    "max_mhz": max(mhz),
                    "max_sm_mhz": max(x for _, _, x in all_samples)}
    return out


def record_report(record, name, tool):
    """(report, MHz) of a record that run_scene_h200.sh wrote: NAME.json
    and the SM clock nvidia-smi read after the runs (the last "N MHz, M
    MHz" line of provenance.txt). Exits with a message naming TOOL when
    there is none."""
    with open(os.path.join(record, name + ".json")) as f:
        report = json.load(f)
    path = os.path.join(record, "provenance.txt")
    with open(path) as f:
        clocks = re.findall(r"^(\d+) MHz, (\d+) MHz$", f.read(), re.M)
    if not clocks:
        raise SystemExit("%s: no SM clock in %s" % (tool, path))
    return report, float(clocks[-1][0])


def scene_runs(record, scenes, rows_of, tool, runs=("run1", "run2")):
    """What run_scenes_h200.sh recorded in RECORD (RUN/SCENE.json for each
    run and scene, the clock samples beside them), as an experiment's
    summary: {"device", "record" (RECORD), "runs": {run: {"rows":
    rows_of(times, scale), "clocks": {scene: run_clocks' entry}}}}, where
    times are each pipeline's GPU time (ns; the last of its draws or
    dispatches) and
    scale, per scene, the median SM clock while it ran in cycles per ns.
    Exits with a message naming TOOL when a run has no clock sample."""
    clocks = run_clocks(record)
    out, device = {}, {}
    for run in runs:
        times, scale, mhz = {}, {}, {}
        for scene in scenes:
            with open(os.path.join(record, run, scene + ".json")) as f:
                report = json.load(f)
            device = report.get("device", device)
            c = clocks.get("%s/%s" % (run, scene))
            if c is None:
                raise SystemExit("%s: no clock sample while %s/%s ran (%s)"
                                 % (tool, run, scene, record))
            mhz[scene] = c
            scale[scene] = c["median_mhz"] / 1000
            for d in report["draws"] + report.get("dispatches", []):
                times[d["pipeline"]] = d["gpu_time_ns"]
        out[run] = {"rows": rows_of(times, scale), "clocks": mhz}
    return {"device": device, "record": record, "runs": out}


def run_mean(s, field):
    """{variant: the mean of FIELD over the runs of summary S
    (scene_runs)}."""
    runs = list(s["runs"].values())
    out = {}
    for r in runs:
        for row in r["rows"]:
            out[row["variant"]] = out.get(row["variant"], 0) + \
                row[field] / len(runs)
    return out


def note(runs):
    """A phrase for a table's header: which of RUNS' scenes ({run:
    {"clocks": {scene: run_clocks' entry}}}) had a sample below the
    highest clock."""
    lows = ["%s/%s %.0f" % (run, sc, c["min_mhz"])
            for run, r in sorted(runs.items())
            for sc, c in sorted(r["clocks"].items())
            if c["min_mhz"] < c["max_sm_mhz"]]
    return ("samples below the highest clock: " + ", ".join(lows) + " MHz"
            if lows else "every sample at the highest clock")


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 64
    json.dump(run_clocks(sys.argv[1]), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())


def model_laps(s, model_json, rows_of, names, scenes, root):
    """A chase experiment's first and second laps (rows with "lap1" and
    "lap2" by variant) on the GPU, the mean of the runs of summary S, and
    in the model's record MODEL_JSON (record_model_run's; rows_of(cycles,
    1.0) its rows), for the variants NAMES, with a caption naming both
    and the folder SCENES the model ran: (caption, gpu, model)."""
    laps = {k: run_mean(s, k) for k in ("lap1", "lap2")}
    gpu = {n: {k: laps[k][n] for k in laps} for n in names}
    with open(model_json) as f:
        m = json.load(f)
    mine = {r["variant"]: r for r in rows_of(m["cycles"], 1.0)}
    caption = ("Model: `%s` (warpsim %s, %s; the scenes of `%s` with "
               "--timing --gpu-config h200); GPU: `%s` (%s), the mean of its "
               "runs; SM cycles a step.\n" % (
                   os.path.relpath(model_json, root),
                   m["warpsim_commit"][:12], m["date"],
                   os.path.relpath(scenes, root), s["record"],
                   s["device"].get("name", "?")))
    return caption, gpu, mine


def lap_rows(times, scale, names, steps, lap):
    """A chase experiment's rows: per variant in NAMES, the SM cycles a
    step of its first lap and its second, from TIMES by pipeline
    (NAME_lap_N for N in STEPS: no step, one lap of LAP steps, two) and
    SCALE (a number, or one per variant) that turns them into cycles."""
    rows = []
    for n in names:
        k = scale[n] if isinstance(scale, dict) else scale
        t = [times["%s_lap_%d" % (n, s)] * k for s in steps]
        rows.append({"variant": n, "lap1": (t[1] - t[0]) / lap,
                     "lap2": (t[2] - t[1]) / lap})
    return rows
