#!/usr/bin/env python3
"""Experiment 01: can the vertex shader and the pixel shader run on the
same processing unit?

The scene vulkan_ref's E7 ran on the H200 (samples/h200/e7_sm_sets.amber:
a 1024x1024 rectangle of two triangles, then the same area as a grid of
32768 triangles), in timing mode with a trace of every warp: which SMs
ran vertex warps, which ran fragment warps, which ran both, and on which
a vertex warp and a fragment warp were resident at the same time. The
H200's answers are E7's --observe records (gl_SMIDNV and clocks per
warp, vulkan_ref/results/h200/observe-2026-11-30/e7_sm_sets.summary.json).

  samples/experiments/01_unified_shaders/run.py [--warpsim BIN] [--check]
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import common  # noqa: E402

SCENE = os.path.join(common.ROOT, "samples", "h200", "e7_sm_sets.amber")
H200 = os.path.join(common.ROOT, "vulkan_ref", "results", "h200",
                    "observe-2026-11-30", "e7_sm_sets.summary.json")
DRAWS = ["rect", "grid"]


def overlapping(a, b):
    """Whether any interval of `a` overlaps one of `b` ((start, end))."""
    a, b = sorted(a), sorted(b)
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][0] < b[j][1] and b[j][0] < a[i][1]:
            return True
        if a[i][1] <= b[j][1]:
            i += 1
        else:
            j += 1
    return False


def trace_events(warpsim):
    return [e for e in common.trace_events(warpsim, SCENE)
            if e.get("ph") == "X" and e.get("args", {}).get("stage") in
            ("vertex", "fragment")]


def emulated(events):
    out = {}
    for draw in DRAWS:
        per_sm = {}
        for e in events:
            if "(pipeline %s)" % draw not in e["args"]["run"]:
                continue
            per_sm.setdefault(e["pid"], {"vertex": [], "fragment": []})[
                e["args"]["stage"]].append((e["ts"], e["ts"] + e["dur"]))
        out[draw] = {
            "vertex_sms": sum(bool(s["vertex"]) for s in per_sm.values()),
            "fragment_sms": sum(bool(s["fragment"]) for s in per_sm.values()),
            "sms_with_both_stages": sum(bool(s["vertex"] and s["fragment"])
                                        for s in per_sm.values()),
            "sms_with_overlapping_stages": sum(
                overlapping(s["vertex"], s["fragment"])
                for s in per_sm.values()),
            "vertex_warps": sum(len(s["vertex"]) for s in per_sm.values())}
    return out


def h200():
    with open(H200) as f:
        summary = json.load(f)
    out = {}
    for d in summary["draws"]:
        o = d["observe"]
        out[d["pipeline"]] = {
            "vertex_sms": o["vertex"]["sms"],
            "fragment_sms": o["fragment"]["sms"],
            "sms_with_both_stages": o["sms_with_both_stages"],
            "sms_with_overlapping_stages": o["sms_with_overlapping_stages"]}
    return out


def timeline(events):
    """Resident vertex and fragment warps over time on the grid draw's SM
    with the most vertex warps."""
    grid = [e for e in events if "(pipeline grid)" in e["args"]["run"]]
    counts = {}
    for e in grid:
        if e["args"]["stage"] == "vertex":
            counts[e["pid"]] = counts.get(e["pid"], 0) + 1
    sm = max(counts, key=counts.get)
    steps = []
    for e in grid:
        if e["pid"] == sm:
            steps.append((e["ts"], e["args"]["stage"], 1))
            steps.append((e["ts"] + e["dur"], e["args"]["stage"], -1))
    steps.sort()
    live = {"vertex": 0, "fragment": 0}
    points = []
    for t, stage, d in steps:
        live[stage] += d
        points.append([t, live["vertex"], live["fragment"]])
    return {"sm": sm, "points": points[::max(1, len(points) // 2000)]}


def measure(warpsim):
    events = trace_events(warpsim)
    return {"emulated": emulated(events), "h200": h200(),
            "timeline": timeline(events),
            "h200_source": common.rel(H200) + " (observe: gl_SMIDNV and "
                           "clocks of every warp)"}


KEYS = ["vertex_sms", "fragment_sms", "sms_with_both_stages",
        "sms_with_overlapping_stages"]


def failures(data):
    return ["%s: %s %d, the H200 %d" % (d, k, data["emulated"][d][k],
                                        data["h200"][d][k])
            for d in DRAWS for k in KEYS
            if data["emulated"][d][k] != data["h200"][d][k]]


def table(data, lang):
    zh = lang == "zh"
    names = (["运行顶点 warp 的 SM", "运行片元 warp 的 SM", "两种都运行的 SM",
              "两种 warp 同时驻留的 SM"] if zh else
             ["SMs that ran vertex warps", "SMs that ran fragment warps",
              "SMs that ran both", "SMs where both were resident at once"])
    lines = (["| 绘制 | 量 | 模拟器 | H200 |"] if zh else
             ["| draw | figure | emulated | H200 |"])
    lines.append("|---|---|---|---|")
    for d in DRAWS:
        for k, n in zip(KEYS, names):
            lines.append("| %s | %s | %d | %d |" % (
                d, n, data["emulated"][d][k], data["h200"][d][k]))
    return common.table_text(lines, data, HERE, lang)


def figures(data):
    _, fig, ax, out = common.new_figure(HERE, (8, 4))
    pts = data["timeline"]["points"]
    ax.step([p[0] for p in pts], [p[2] for p in pts], where="post",
            label="fragment warps")
    ax.step([p[0] for p in pts], [p[1] for p in pts], where="post",
            label="vertex warps")
    ax.set_xlabel("cycle")
    ax.set_ylabel("resident warps")
    ax.set_title("SM %d during the grid draw (warpsim, h200 preset): both "
                 "stages at once" % data["timeline"]["sm"])
    ax.grid(alpha=0.3)
    ax.legend()
    common.save_figure(fig, out, "sm_timeline.png")


def screenshots(warpsim):
    # SM 0's register files as the grid draw starts: vertex warps (orange)
    # and fragment warps (blue) hold registers in the same files at once.
    common.screenshot(warpsim, HERE, "viz_registers_sm0", SCENE, "registers",
                      ["--range", "161800:165000", "--cycle", "163000",
                       "--sm", "0"])
    # The grid draw on the SM timeline, coloured by stage.
    common.screenshot(warpsim, HERE, "viz_timeline_stages", SCENE, "timeline",
                      ["--range", "162000:167000", "--colour-by", "stage"])


def summary(data):
    return "; ".join("%s: %s" % (d, ", ".join(
        "%s %d (H200 %d)" % (k, data["emulated"][d][k], data["h200"][d][k])
        for k in KEYS)) for d in DRAWS)


if __name__ == "__main__":
    sys.exit(common.experiment_main(sys.argv, HERE, __doc__, measure,
                                    failures, table, figures, summary,
                                    screenshots))
