#!/usr/bin/env python3
"""Experiment 03: do `if` and `for` in a shader slow rendering down?

Three of samples/branch_costs/'s families of fragment-shader variants
(a full-screen 512x512 draw each, TRIPS = 16 and 64 multiply-adds a side):
granularity (an if/else whose side changes every 1, 2, ..., 32 pixels),
loop_trips (per-pixel trip counts, varying per pixel, per 4x4 or per
16x16 cell) and select_vs_branch (if/else against computing both and
selecting). Emulated: `warpsim compare --timing` (the h200 preset);
H200: the same variants timed with `warpsim-vkref compare` on the GPU
(samples/branch_costs/results/h200-2026-12-01, the recording of
samples/branch_costs/run_h200.sh). Each variant's time as a ratio to its
family's variant 0, on both sides.

  samples/experiments/03_branches/run.py [--warpsim BIN] [--check]
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import common  # noqa: E402

BRANCH_COSTS = os.path.join(common.ROOT, "samples", "branch_costs")
sys.path.insert(0, BRANCH_COSTS)
import compare  # noqa: E402  (samples/branch_costs/compare.py)

RESULTS = os.path.join(BRANCH_COSTS, "results", "h200-2026-12-01")
TRIPS = [16, 64]
FAMILIES = {
    "granularity": ["per pixel (every quad diverges)", "2x2 pixels",
                    "4x4 pixels", "8x8 pixels", "16x16 pixels (no warp "
                    "diverges)", "32x32 pixels"],
    "loop_trips": ["the same trip count everywhere", "a count per pixel",
                   "a count per 4x4 pixels", "a count per 16x16 pixels"],
    "select_vs_branch": ["if/else per pixel", "both sides, then select, "
                         "per pixel", "if/else per 16x16 tile",
                         "both sides, then select, per tile"],
}
FAMILIES_ZH = {
    "granularity": ["逐像素（每个 quad 都分歧）", "2x2 像素", "4x4 像素",
                    "8x8 像素", "16x16 像素（没有 warp 分歧）", "32x32 像素"],
    "loop_trips": ["处处相同的循环次数", "逐像素的循环次数", "每 4x4 像素一个次数",
                   "每 16x16 像素一个次数"],
    "select_vs_branch": ["逐像素 if/else", "逐像素两边都算再选择",
                         "每 16x16 块 if/else", "每 16x16 块两边都算再选择"],
}
# Stated agreement: every variant's emulated ratio within 20 % of the
# H200's, and the orders compare.py's ORDERS name for these families
# hold on both sides.
RATIO_TOLERANCE = 0.20


def measure(warpsim):
    rows = []
    for family, labels in FAMILIES.items():
        variants = list(range(len(labels)))
        for trips in TRIPS:
            with open(os.path.join(RESULTS, "%s.trips%d.json"
                                   % (family, trips))) as f:
                h200 = json.load(f)
            ns = {int(v["define"]["value"]): v["gpu_ns"]
                  for v in h200["variants"]}
            cycles = compare.emulate(warpsim, family, variants, trips)
            for v in variants:
                rows.append({"family": family, "trips": trips, "variant": v,
                             "h200_ns": ns[v], "h200_ratio": ns[v] / ns[0],
                             "cycles": cycles[v],
                             "emulated_ratio": cycles[v] / cycles[0]})
    return {"rows": rows, "h200_source": common.rel(RESULTS) +
            " (warpsim-vkref compare --repeat 15, the median per draw)"}


def failures(data):
    out = []
    for r in data["rows"]:
        if abs(r["emulated_ratio"] / r["h200_ratio"] - 1) > RATIO_TOLERANCE:
            out.append("%s TRIPS %d variant %d: ratio %.2f, the H200 %.2f" % (
                r["family"], r["trips"], r["variant"], r["emulated_ratio"],
                r["h200_ratio"]))
    grouped = {}
    for r in data["rows"]:
        grouped.setdefault((r["family"], r["trips"]), []).append(r)
    fams = [{"family": f, "trips": t,
             "rows": [{"variant": r["variant"], "h200_ns": r["h200_ns"],
                       "cycles": r["cycles"]} for r in rs]}
            for (f, t), rs in grouped.items()]
    for family, trips, _, text, h, e in compare.orders({"families": fams}):
        if not (h and e):
            out.append("%s TRIPS %d: '%s' holds on the H200: %s, emulated: %s"
                       % (family, trips, text, h, e))
    return out


def table(data, lang):
    zh = lang == "zh"
    labels = FAMILIES_ZH if zh else FAMILIES
    lines = (["| 变体族 | TRIPS | 变体 | 写法 | H200 时间比 | 模拟时间比 |"]
             if zh else
             ["| family | TRIPS | variant | written as | H200 time ratio | "
              "emulated time ratio |"])
    lines.append("|---|---|---|---|---|---|")
    for r in data["rows"]:
        lines.append("| %s | %d | %d | %s | %.2f | %.2f |" % (
            r["family"], r["trips"], r["variant"],
            labels[r["family"]][r["variant"]], r["h200_ratio"],
            r["emulated_ratio"]))
    return common.table_text(lines, data, HERE, lang)


def figures(data):
    _, fig, axes, out = common.new_figure(HERE, (13, 3.8), 3)
    for ax, family in zip(axes, FAMILIES):
        rows = [r for r in data["rows"]
                if r["family"] == family and r["trips"] == 64]
        x = [r["variant"] for r in rows]
        ax.bar([v - 0.2 for v in x], [r["h200_ratio"] for r in rows], 0.4,
               label="H200")
        ax.bar([v + 0.2 for v in x], [r["emulated_ratio"] for r in rows],
               0.4, label="warpsim")
        ax.set_xticks(x)
        ax.set_title("%s (TRIPS 64)" % family)
        ax.set_xlabel("variant (README)")
        ax.set_ylabel("time / variant 0's")
        ax.grid(alpha=0.3, axis="y")
    axes[0].legend()
    common.save_figure(fig, out, "branch_costs.png")


def screenshots(warpsim):
    # The shader view of the granularity family at 16 trips, drawn at
    # 128x128 pixels (so that the trace keeps every instruction): per pixel
    # (variant 0) every warp issues both sides of the if/else; per 16x16
    # pixels (variant 4) each warp issues one.
    with open(os.path.join(BRANCH_COSTS, "granularity.amber")) as f:
        text = f.read().replace("512", "128")
    for variant in (0, 4):
        common.screenshot(
            warpsim, HERE, "viz_shader_granularity%d" % variant,
            text.replace("#define VARIANT 0", "#define VARIANT %d" % variant),
            "shader")


def summary(data):
    worst = max(data["rows"],
                key=lambda r: abs(r["emulated_ratio"] / r["h200_ratio"] - 1))
    return ("%d variants; the largest ratio difference %s TRIPS %d variant "
            "%d: %.2f against the H200's %.2f" % (
                len(data["rows"]), worst["family"], worst["trips"],
                worst["variant"], worst["emulated_ratio"], worst["h200_ratio"]))


if __name__ == "__main__":
    sys.exit(common.experiment_main(sys.argv, HERE, __doc__, measure,
                                    failures, table, figures, summary,
                                    screenshots))
