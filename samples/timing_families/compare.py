#!/usr/bin/env python3
"""The timing model against the H200 on the shader families of this folder.

For each family (one scene, one draw per variant) it runs the scene with
`warpsim run --timing` and reads the H200's per-draw GPU times recorded by
`warpsim-vkref run --repeat 15` (results/h200-*/FAMILY.h200.json, medians
of the repeats). The emulator runs each variant twice and the second run
counts, as the device's repeats leave the caches as that draw left them.
Both sides are put as ratios to the family's first variant: the emulated
cycles ratio against the H200's time ratio.

    samples/timing_families/compare.py RESULTS_DIR [--warpsim build/warpsim]
        [--json OUT.json] [--update README.md] [--check]

--check exits 1 unless the orders the families are built to show hold on
both sides (ORDERS below), or fail exactly as KNOWN says with its reason:
the checks the `timing_families_h200` test runs.
"""

import importlib.util
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

FAMILIES = ["branch_granularity", "loop_trips", "register_pressure",
            "memory_loads"]
# Draws that only prepare the others (memory_loads' warmup reads its buffer
# once, so that every variant finds it in the L2 as the device's repeated
# draws do): not compared.
PREPARATION = {"warmup"}

# What each family is built to show, as chains of "slower than" over
# groups of variants: every variant of a group must be slower (more time,
# more cycles) than every variant of the next group by more than
# MARGIN, on the H200 and in the model alike.
MARGIN = 0.03
# The folder of the run with warpsim-vkref --observe beside a results
# folder (observations()).
OBSERVED = "-observe"
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
    "register_pressure": [
        # More registers per pixel, fewer warps resident to hide the loads.
        (["held48"], ["held32"]),
        (["held32"], ["held24"]),
        (["held24"], ["held16"]),
        (["held16"], ["held8"]),
        (["held8"], ["held1"]),
    ],
    "memory_loads": [
        # More lines and sectors per warp load, more time.
        (["scattered"], ["strided", "rows"]),
        (["strided", "rows"], ["coalesced"]),
        (["coalesced"], ["uniform"]),
        # Half the loads, but on a bound the loop computes (u.n / 2 in its
        # header): the compiler keeps that loop rolled (E21,
        # vulkan_ref/results/h200/e21-loop-bounds-2026-12-03), so its loads
        # wait one after the other where coalesced's go four at a time.
        (["coalesced8"], ["coalesced"]),
    ],
}

# Orders that do not hold as built on one side, with the reason: the check
# then requires exactly that outcome (H200 holds, emulated holds, why).
KNOWN = {
    ("register_pressure", 3): (
        False, True,
        "NVIDIA's code for held8's loop (vulkan_ref/results/h100/"
        "sass-2026-12-07, `nv_shader_cache.py loops`) is not the other "
        "variants' loop: unrolled four times (held16's and up are rolled, "
        "as the model has them), its register allocator moves most of the "
        "held values to other registers on the side of each copy's branch "
        "that no lane leaves and back on the back edge, about as many moves "
        "as the loop has other instructions (MOV in the SASS section's "
        "register_pressure rows of vulkan_ref/results/h100/README.md); they "
        "issue on the ALU pipe, and held8 draws slower than held16; the "
        "model unrolls held8's loop as the driver does but issues no such "
        "moves"),
    ("register_pressure", 4): (
        True, False,
        "held8's loop in NVIDIA's code carries register moves the model "
        "does not issue (the order above); without them the model's held8, "
        "unrolled like held1, draws about held1's time"),
}


def emulate(warpsim, family, options=()):
    """Per variant, the report's draw of its second run: the scene's draws
    one variant at a time (after its preparation draws), each twice, as the
    device repeats each draw (warpsim-vkref run --repeat) and reports the
    median, so that caches hold what the same draw left, not what the
    variant before it did. OPTIONS go to every `warpsim run`."""
    text = (HERE / (family + ".amber")).read_text().splitlines()
    body = [line for line in text if not line.startswith("RUN ")]
    runs = [line for line in text if line.startswith("RUN ")]
    prep = [r for r in runs if r.split()[1] in PREPARATION]
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for run in runs:
            name = run.split()[1]
            if name in PREPARATION:
                continue
            scene = os.path.join(tmp, family + "_" + name + ".amber")
            with open(scene, "w") as f:
                f.write("\n".join(body + prep + [run, run]) + "\n")
            report = os.path.join(tmp, name + ".json")
            r = subprocess.run([warpsim, "run", scene, "--timing", "--quiet",
                                "--shader-cache", "off", "--json", report,
                                *options],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit("%s: warpsim run failed (%d): %s%s" % (
                    scene, r.returncode, r.stdout, r.stderr))
            with open(report) as f:
                rep = json.load(f)
            out[name] = dict(rep["draws"][-1],
                             clock_mhz=rep["timing"]["clock_mhz"])
    return out


def measure(results, warpsim):
    out = {"h200_results": os.path.relpath(results, ROOT), "families": {}}
    for family in FAMILIES:
        with open(os.path.join(results, family + ".h200.json")) as f:
            h200 = json.load(f)
        times = [(d["pipeline"], d["gpu_time_ns"]) for d in h200["draws"]
                 if d["pipeline"] not in PREPARATION]
        regs = {p["name"]: (p.get("executable_statistics") or {}).get(
            "Register Count") for p in h200["pipelines"]
            if p.get("stage") == "fragment"}
        draws = emulate(warpsim, family)
        observed = observations(results, family)
        base_t, base_c = times[0][1], draws[times[0][0]]["cycles"]
        rows = []
        for name, t in times:
            d = draws[name]
            row = {"variant": name, "h200_ns": t,
                   "h200_ratio": t / base_t,
                   "h200_registers": regs.get(name),
                   "cycles": d["cycles"],
                   "emulated_ns": d["cycles"] * 1000.0 / d["clock_mhz"],
                   "emulated_ratio": d["cycles"] / base_c,
                   "registers": d["registers_per_thread"]}
            if name in observed:
                row["observed"] = observed[name]
                row["emulated_placement"] = {
                    "sms": d.get("sms_used"),
                    "warps": d.get("fragment_warps"),
                    "most_warps_per_sm": d.get("peak_fragment_warps_per_sm")}
            rows.append(row)
        if any(r["registers"] != r["h200_registers"] for r in rows):
            # The same draws with the driver's register counts: what the
            # timing model makes of the H200's occupancy, apart from its
            # own register estimate.
            again = emulate(warpsim, family, (
                "--registers-from",
                os.path.join(results, family + ".h200.json")))
            base = again[times[0][0]]["cycles"]
            for row in rows:
                d = again[row["variant"]]
                row["with_h200_registers"] = {
                    "cycles": d["cycles"],
                    "emulated_ratio": d["cycles"] / base,
                    "registers": d["registers_per_thread"]}
        out["families"][family] = rows
    return out


def observations(results, family):
    """Where the H200 ran each draw's fragment warps, from the run with
    warpsim-vkref --observe recorded beside RESULTS (RESULTS + OBSERVED:
    FAMILY.observe.json), when there is one: {variant: {sms, warps,
    most_warps_per_sm}}. (Its times are those of instrumented shaders and
    are not compared.)"""
    path = os.path.join(results.rstrip("/") + OBSERVED,
                        family + ".observe.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        j = json.load(f)
    out = {}
    for d in j["draws"]:
        frag = (d.get("observe") or {}).get("fragment") or {}
        if "sms" in frag:
            out[d["pipeline"]] = {
                "sms": frag["sms"], "warps": frag.get("warps"),
                "most_warps_per_sm": frag.get("max_live_warps_per_sm")}
    return out


def spearman(a, b):
    """Spearman's rank correlation (samples/branch_costs/compare.py's)."""
    spec = importlib.util.spec_from_file_location(
        "branch_costs_compare", ROOT / "samples" / "branch_costs" / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.spearman(a, b)


def orders_hold(data):
    """The ORDERS checks: (family, index, text, h200 ok, emulated ok) per
    check."""
    checks = []
    for family, chains in ORDERS.items():
        rows = {r["variant"]: r for r in data["families"][family]}
        for i, (slow, fast) in enumerate(chains):
            h = min(rows[v]["h200_ns"] for v in slow) > \
                (1 + MARGIN) * max(rows[v]["h200_ns"] for v in fast)
            e = min(rows[v]["cycles"] for v in slow) > \
                (1 + MARGIN) * max(rows[v]["cycles"] for v in fast)
            checks.append((family, i, "%s slower than %s" % (
                ", ".join(slow), ", ".join(fast)), h, e))
    return checks


def table(data):
    lines = ["H200 times: `%s` (warpsim-vkref run --repeat 15, median); "
             "emulated: warpsim run --timing, h200 preset; emulated / H200 "
             "time: the emulated cycles at the preset's clock over the "
             "H200's time." % data["h200_results"],
             "",
             "| family | variant | H200 ns | H200 ratio | emulated cycles "
             "| emulated ratio | emulated / H200 ratio | emulated / H200 "
             "time | registers H200 | registers emulated |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for family, rows in data["families"].items():
        for r in rows:
            lines.append(
                "| %s | %s | %.0f | %.3f | %d | %.3f | %.2f | %.2f | %s "
                "| %s |" % (
                    family, r["variant"], r["h200_ns"], r["h200_ratio"],
                    r["cycles"], r["emulated_ratio"],
                    r["emulated_ratio"] / r["h200_ratio"],
                    r["emulated_ns"] / r["h200_ns"],
                    r["h200_registers"], r["registers"]))
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
    lines += ["", "| family | Spearman rank correlation | mean \\|emulated "
              "/ H200 ratio - 1\\| | largest \\|emulated / H200 ratio - 1\\| |",
              "|---|---|---|---|"]
    for family, rows in data["families"].items():
        off = [abs(r["emulated_ratio"] / r["h200_ratio"] - 1) for r in rows]
        lines.append("| %s | %.2f | %.1f %% | %.1f %% |" % (
            family, spearman([r["h200_ns"] for r in rows],
                             [r["cycles"] for r in rows]),
            100 * sum(off) / len(off), 100 * max(off)))
    again = [(f, rows) for f, rows in data["families"].items()
             if all("with_h200_registers" in r for r in rows)]
    if again:
        lines += ["", "Where the register counts differ, the same draws with "
                  "the H200's (warpsim run --timing --registers-from "
                  "FAMILY.h200.json): the timing model apart from its "
                  "register estimate.", "",
                  "| family | variant | registers | emulated cycles "
                  "| emulated ratio | emulated / H200 ratio |",
                  "|---|---|---|---|---|---|"]
        for f, rows in again:
            for r in rows:
                w = r["with_h200_registers"]
                lines.append("| %s | %s | %s | %d | %.3f | %.2f |" % (
                    f, r["variant"], w["registers"], w["cycles"],
                    w["emulated_ratio"], w["emulated_ratio"] / r["h200_ratio"]))
        lines += ["", "| family | Spearman rank correlation | mean "
                  "\\|emulated / H200 ratio - 1\\| | largest \\|emulated / "
                  "H200 ratio - 1\\| |", "|---|---|---|---|"]
        for f, rows in again:
            off = [abs(r["with_h200_registers"]["emulated_ratio"] /
                       r["h200_ratio"] - 1) for r in rows]
            lines.append("| %s, H200 registers | %.2f | %.1f %% | %.1f %% |" % (
                f, spearman([r["h200_ns"] for r in rows],
                            [r["with_h200_registers"]["cycles"]
                             for r in rows]),
                100 * sum(off) / len(off), 100 * max(off)))
    placed = [(f, r) for f, rows in data["families"].items() for r in rows
              if "observed" in r]
    if placed:
        lines += ["", "Where the fragment warps ran: H200 `%s%s` "
                  "(warpsim-vkref run --observe: SM ids and clocks of every "
                  "warp), emulated as above." % (data["h200_results"], OBSERVED),
                  "", "| family | variant | SMs H200 | SMs emulated "
                  "| fragment warps H200 | emulated | most alive on one SM "
                  "H200 | emulated |", "|---|---|---|---|---|---|---|---|"]
        for f, r in placed:
            o, e = r["observed"], r["emulated_placement"]
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                f, r["variant"], o["sms"], e["sms"], o["warps"], e["warps"],
                o["most_warps_per_sm"], e["most_warps_per_sm"]))
    lines += ["", "| family | order | H200 | emulated | known difference |",
              "|---|---|---|---|---|"]
    for family, i, text, h, e in orders_hold(data):
        known = KNOWN.get((family, i))
        lines.append("| %s | %s | %s | %s | %s |" % (
            family, text, "holds" if h else "does not hold",
            "holds" if e else "does not hold", known[2] if known else ""))
    return "\n".join(lines) + "\n"


def failures(data):
    """The orders that do not hold on both sides, or not as KNOWN says."""
    out = []
    for f, i, t, h, e in orders_hold(data):
        want = KNOWN.get((f, i), (True, True, ""))[:2]
        if (h, e) != want:
            out.append("%s: %s (H200 %s, emulated %s; expected %s, %s)" % (
                f, t, h, e, *want))
    # Where observed, the draws' fragment warps and the SMs they ran on
    # are the H200's.
    for f, rows in data["families"].items():
        for r in rows:
            o, e = r.get("observed"), r.get("emulated_placement")
            if o and (o["sms"], o["warps"]) != (e["sms"], e["warps"]):
                out.append("%s %s: %s fragment warps on %s SMs, the H200 %s "
                           "on %s" % (f, r["variant"], e["warps"], e["sms"],
                                      o["warps"], o["sms"]))
    return out


if __name__ == "__main__":
    sys.exit(results_table_main(
        __doc__.split("\n")[0], str(ROOT / "build" / "warpsim"), measure,
        table, failures, "timing-families"))
