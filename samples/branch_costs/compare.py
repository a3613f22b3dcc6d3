#!/usr/bin/env python3
"""What the shader variants of samples/branch_costs/ cost, emulated and on
the H200.

For each family and loop length it runs `warpsim compare FAMILY.amber -D
VARIANT=... -D TRIPS=T --timing --json` (the emulator, now) and reads the
H200's GPU times that `warpsim-vkref compare` recorded (RESULTS_DIR/
FAMILY.tripsT.json, run_h200.sh: the median of 15 runs of the draw). Both
sides are put as ratios to the family's first variant, with the Spearman
rank correlation of the two over the family's variants.

    samples/branch_costs/compare.py RESULTS_DIR [--warpsim build/warpsim]
        [--json OUT.json] [--update README.md] [--check]

--check exits 1 unless every order a family is built to show (ORDERS) holds
on both sides, or fails exactly as KNOWN says (with its reason): the
`branch_costs_h200` test.
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
sys.path.insert(0, str(HERE))
from readme_section import results_table_main  # noqa: E402
import make_families  # noqa: E402

# What each family is built to show, as "slower than" over groups of
# variants: every variant of the first group must take more time (more
# cycles) than every variant of the second by more than MARGIN.
MARGIN = 0.03
ORDERS = {
    "granularity": [([0, 1, 2], [3, 4, 5])],
    "loop_trips": [([1], [2]), ([2], [3]), ([1], [0])],
    "select_vs_branch": [([0], [2]), ([3], [2]), ([1], [2])],
    "discard": [([0], [2]), ([1], [2]), ([3], [2])],
    "nested": [([3], [2]), ([2], [1]), ([1], [0])],
    "early_return": [([0], [2]), ([1], [2]), ([3], [2])],
    "glmark2_conditionals": [([2], [1]), ([1], [0])],
    "glmark2_loop": [([2], [0])],
    "glmark2_function": [([2], [0]), ([3], [1])],
}

# Orders that do not hold on one side, with the reason: (family, trips,
# order index) -> (holds on the H200, holds emulated, reason). --check
# fails when one of them changes, so the list stays true.
KNOWN = {
    ("early_return", 16, 0): (
        False, False,
        "at 16 trips the draw's time is the output merge's, writing the "
        "512x512 pixels (glmark2_conditionals VARIANT=0, which writes them "
        "and does no work, takes nearly as long): a pixel that returns early "
        "is still written, so nothing is saved; on both sides"),
    ("early_return", 16, 1): (False, False, "the same"),
    ("early_return", 16, 2): (False, False, "the same"),
    ("glmark2_loop", 16, 0): (
        False, False,
        "the driver keeps this loop rolled: its bound, TRIPS * u.one, is "
        "computed in the loop's header (E21, vulkan_ref/results/h200/"
        "e21-loop-bounds-2026-12-03, bound one16); its compare, branch and "
        "step hide behind the fract chain, and it draws in the written-out "
        "steps' time, on both sides"),
    ("glmark2_loop", 64, 0): (False, False, "the same"),
}


def families():
    return [(f, v) for f, v, _, _ in make_families.families()]


def emulate(warpsim, family, variants, trips):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "compare.json")
        cmd = [warpsim, "compare", str(HERE / (family + ".amber")),
               "-D", "VARIANT=" + ",".join(map(str, variants)),
               "-D", "TRIPS=%d" % trips, "--timing", "--branches", "0",
               "--shader-cache", "off", "--json", out]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("%s: warpsim compare failed (%d): %s%s" % (
                " ".join(cmd), r.returncode, r.stdout, r.stderr))
        with open(out) as f:
            data = json.load(f)
    return {int(v["define"]["value"]): v["cycles"] for v in data["variants"]}


def spearman(a, b):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return r
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    mean = (n + 1) / 2
    cov = sum((x - mean) * (y - mean) for x, y in zip(ra, rb))
    va = sum((x - mean) ** 2 for x in ra)
    vb = sum((y - mean) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5 if va and vb else 0.0


def measure(results, warpsim):
    out = {"h200_results": os.path.relpath(results, ROOT), "families": []}
    for family, variants in families():
        for trips in make_families.LOOP_LENGTHS:
            with open(os.path.join(results, "%s.trips%d.json"
                                   % (family, trips))) as f:
                h200 = json.load(f)
            ns = {int(v["define"]["value"]): v["gpu_ns"]
                  for v in h200["variants"]}
            cycles = emulate(warpsim, family, variants, trips)
            base = variants[0]
            rows = [{"variant": v, "h200_ns": ns[v],
                     "h200_ratio": ns[v] / ns[base], "cycles": cycles[v],
                     "emulated_ratio": cycles[v] / cycles[base]}
                    for v in variants]
            out["families"].append({
                "family": family, "trips": trips, "rows": rows,
                "device": h200["device"]["name"] + ", driver " +
                h200["device"]["driver_version"],
                "spearman": spearman([r["h200_ns"] for r in rows],
                                     [r["cycles"] for r in rows]),
                "mean_abs_ratio_error": sum(
                    abs(r["emulated_ratio"] / r["h200_ratio"] - 1)
                    for r in rows[1:]) / max(1, len(rows) - 1)})
    return out


def orders(data):
    """(family, trips, index, text, holds on the H200, holds emulated)."""
    checks = []
    for fam in data["families"]:
        rows = {r["variant"]: r for r in fam["rows"]}
        for i, (slow, fast) in enumerate(ORDERS[fam["family"]]):
            h = min(rows[v]["h200_ns"] for v in slow) > \
                (1 + MARGIN) * max(rows[v]["h200_ns"] for v in fast)
            e = min(rows[v]["cycles"] for v in slow) > \
                (1 + MARGIN) * max(rows[v]["cycles"] for v in fast)
            text = "%s slower than %s" % (
                ", ".join(map(str, slow)), ", ".join(map(str, fast)))
            checks.append((fam["family"], fam["trips"], i, text, h, e))
    return checks


def table(data):
    lines = ["H200 times: `%s` (warpsim-vkref compare --repeat 15, the "
             "median per draw; %s); emulated: warpsim compare --timing, h200 "
             "preset, run now." % (data["h200_results"],
                                   data["families"][0]["device"]),
             "",
             "| family | TRIPS | VARIANT | H200 ns | H200 ratio | emulated "
             "cycles | emulated ratio | emulated / H200 ratio |",
             "|---|---|---|---|---|---|---|---|"]
    for fam in data["families"]:
        for r in fam["rows"]:
            lines.append("| %s | %d | %d | %.0f | %.3f | %d | %.3f | %.2f |" % (
                fam["family"], fam["trips"], r["variant"], r["h200_ns"],
                r["h200_ratio"], r["cycles"], r["emulated_ratio"],
                r["emulated_ratio"] / r["h200_ratio"]))
    lines += ["", "| family | TRIPS | Spearman rank correlation | mean "
              "\\|emulated / H200 ratio - 1\\| |", "|---|---|---|---|"]
    for fam in data["families"]:
        lines.append("| %s | %d | %.2f | %.1f %% |" % (
            fam["family"], fam["trips"], fam["spearman"],
            100 * fam["mean_abs_ratio_error"]))
    lines += ["", "| family | TRIPS | order (VARIANT) | H200 | emulated | "
              "known difference |", "|---|---|---|---|---|---|"]
    for family, trips, i, text, h, e in orders(data):
        known = KNOWN.get((family, trips, i))
        lines.append("| %s | %d | %s | %s | %s | %s |" % (
            family, trips, text, "holds" if h else "does not hold",
            "holds" if e else "does not hold", known[2] if known else ""))
    return "\n".join(lines) + "\n"


def failures(data):
    """The orders that do not hold as they should (KNOWN says where one
    side is expected to fail)."""
    bad = []
    for family, trips, i, text, h, e in orders(data):
        want = KNOWN.get((family, trips, i), (True, True, ""))[:2]
        if (h, e) != want:
            bad.append("%s TRIPS=%d %s: H200 %s, emulated %s (expected "
                       "%s, %s)" % (family, trips, text, h, e, *want))
    return bad


if __name__ == "__main__":
    sys.exit(results_table_main(
        __doc__.split("\n")[0], str(ROOT / "build" / "warpsim"), measure,
        table, failures, "branch-costs"))
