#!/usr/bin/env python3
"""The timing model against the H200 on the shader families of this folder.

For each family (one scene, one draw per variant) it runs the scene with
`warpsim run --timing` and reads the H200's per-draw GPU times recorded by
`warpsim-vkref run --repeat 15` (results/h200-*/FAMILY.h200.json, medians
of the repeats). Both sides are put as ratios to the family's first
variant: the emulated cycles ratio against the H200's time ratio.

    samples/timing_families/compare.py RESULTS_DIR [--warpsim build/warpsim]
        [--json OUT.json] [--update README.md] [--check]

--check exits 1 unless the orders the families are built to show hold on
both sides (ORDERS below): the checks the `timing_families` test runs.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from readme_section import results_table_main  # noqa: E402

FAMILIES = ["branch_granularity", "loop_trips"]

# What each family is built to show, as chains of "slower than" over
# groups of variants: every variant of a group must be slower (more time,
# more cycles) than every variant of the next group by more than
# MARGIN, on the H200 and in the model alike.
MARGIN = 0.03
ORDERS = {
    "branch_granularity": [
        # Cells smaller than a warp's 4x8 pixels diverge: both sides run.
        (["g0", "g1", "g2"], ["g3", "g4", "g5"]),
    ],
    "loop_trips": [
        (["uniform64"], ["uniform32"]),
        (["uniform32"], ["uniform16"]),
        # The same mean trip count, with divergence at coarser grain.
        (["pixel0to64"], ["cell4x4_0to64"]),
        (["cell4x4_0to64"], ["cell16x16_0to64"]),
    ],
}


def emulate(warpsim, family):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        r = subprocess.run([warpsim, "run", str(HERE / (family + ".amber")),
                            "--timing", "--quiet", "--shader-cache", "off",
                            "--json", report], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("%s: warpsim run failed (%d): %s%s" % (
                family, r.returncode, r.stdout, r.stderr))
        with open(report) as f:
            return {d["pipeline"]: d["cycles"] for d in json.load(f)["draws"]}


def measure(results, warpsim):
    out = {"h200_results": os.path.relpath(results, ROOT), "families": {}}
    for family in FAMILIES:
        with open(os.path.join(results, family + ".h200.json")) as f:
            h200 = json.load(f)
        times = [(d["pipeline"], d["gpu_time_ns"]) for d in h200["draws"]]
        cycles = emulate(warpsim, family)
        base_t, base_c = times[0][1], cycles[times[0][0]]
        rows = []
        for name, t in times:
            rows.append({"variant": name, "h200_ns": t,
                         "h200_ratio": t / base_t,
                         "cycles": cycles[name],
                         "emulated_ratio": cycles[name] / base_c})
        out["families"][family] = rows
    return out


def orders_hold(data):
    """The ORDERS checks: (family, text, h200 ok, emulated ok) per check."""
    checks = []
    for family, chains in ORDERS.items():
        rows = {r["variant"]: r for r in data["families"][family]}
        for slow, fast in chains:
            h = min(rows[v]["h200_ns"] for v in slow) > \
                (1 + MARGIN) * max(rows[v]["h200_ns"] for v in fast)
            e = min(rows[v]["cycles"] for v in slow) > \
                (1 + MARGIN) * max(rows[v]["cycles"] for v in fast)
            checks.append((family, "%s slower than %s" % (
                ", ".join(slow), ", ".join(fast)), h, e))
    return checks


def table(data):
    lines = ["H200 times: `%s` (warpsim-vkref run --repeat 15, median); "
             "emulated: warpsim run --timing, h200 preset." % data["h200_results"],
             "",
             "| family | variant | H200 ns | H200 ratio | emulated cycles "
             "| emulated ratio | emulated / H200 ratio |",
             "|---|---|---|---|---|---|---|"]
    for family, rows in data["families"].items():
        for r in rows:
            lines.append("| %s | %s | %.0f | %.3f | %d | %.3f | %.2f |" % (
                family, r["variant"], r["h200_ns"], r["h200_ratio"],
                r["cycles"], r["emulated_ratio"],
                r["emulated_ratio"] / r["h200_ratio"]))
    loops = {r["variant"]: r for r in data["families"]["loop_trips"]}
    if "uniform16" in loops and "uniform64" in loops:
        # A line through the uniform loops: time = fixed + per_trip x trips.
        for key, unit, scale in (("h200_ns", "ns", 1), ("cycles", "cycles", 1)):
            per_trip = (loops["uniform64"][key] - loops["uniform16"][key]) / 48
            fixed = loops["uniform16"][key] - 16 * per_trip
            lines.append("")
            lines.append("%s, a line through uniform16 and uniform64: %.0f %s "
                         "per draw + %.0f %s per trip." % (
                             "H200" if key == "h200_ns" else "Emulated",
                             fixed * scale, unit, per_trip * scale, unit))
    lines += ["", "| family | order | H200 | emulated |", "|---|---|---|---|"]
    for family, text, h, e in orders_hold(data):
        lines.append("| %s | %s | %s | %s |" % (
            family, text, "holds" if h else "does not hold",
            "holds" if e else "does not hold"))
    return "\n".join(lines) + "\n"


def failures(data):
    """The orders that do not hold on both sides."""
    return ["%s: %s" % (f, t) for f, t, h, e in orders_hold(data)
            if not (h and e)]


if __name__ == "__main__":
    sys.exit(results_table_main(
        __doc__.split("\n")[0], str(ROOT / "build" / "warpsim"), measure,
        table, failures, "timing-families"))
