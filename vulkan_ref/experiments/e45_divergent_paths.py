#!/usr/bin/env python3
"""E45, what entering a loop and running a divergent path cost a fragment
warp: the fixed cost of each path a warp runs, apart from the work in it.

  vulkan_ref/experiments/e45_divergent_paths.py scene OUT_DIR
  vulkan_ref/experiments/e45_divergent_paths.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e45_divergent_paths.py table RECORD_DIR
      [--update README.md | --check README.md]
  vulkan_ref/experiments/e45_divergent_paths.py model --warpsim BIN
      [-o samples/h200/e45_divergent_paths/timing-vs-h200.json]
  vulkan_ref/experiments/e45_divergent_paths.py model-table RECORD
      [MODEL.json] [--update README.md | --check README.md]
  vulkan_ref/experiments/e45_divergent_paths.py launch-fit RECORD
      BRANCH_COSTS_RECORD --warpsim BIN --raster PIXELS_PER_CYCLE --entry SLOTS
      [-o samples/h200/e45_divergent_paths/launch-fit.json]

Why: samples/branch_costs/ found the H200 charging a draw about 6 us a
path a warp runs one after another (its granularity and nested
families, 512x512 pixels, 16 and 64 multiply-adds a path), four times
what the timing model charged, while the multiply-adds themselves cost
both alike. This takes that apart.

`scene` writes an AmberScript scene a variant into OUT_DIR (NAME.amber):
two pipelines whose fragment shaders differ only in n (a uniform block:
n = 16 and 48), each drawn twice (the second counts). A path's work is
Work(x, a, n): a loop of n dependent multiply-adds, whose trip count the
driver knows only at run time (it unrolls the loop: vulkan_ref's E16).

On a 256x256 rectangle (2048 fragment warps, 512 on each of the 4
graphics SMs, up to 64 resident: every scheduler has warps to issue):

  seqK      K = 1, 2, 4: K loops one after the other, every lane alike;
  divK      K = 2, 4, 8: log2(K) nested if/else on bits of the pixel's
            position (x & 1, y & 1, x & 2): every warp runs all K paths,
            a loop in each;
  tileK     divK's code on the bits of the pixel's 16x16 tile (the
            position over 16): each warp one path (a warp covers 4x8
            pixels of one tile);
  in_none   one loop of n trips, 16 multiply-adds a trip, no branch;
  in_tileS, in_divS
            one loop of n trips, an if/else a trip whose sides each run S
            multiply-adds (S = 4, 16) on bit 0 of x + i (the pixel's
            place, every warp both sides every trip) or of the tile's
            x + i (each warp one side a trip).

On a 32x32 rectangle (32 warps: 8 on each graphics SM, 2 a scheduler,
whose dependent multiply-adds leave it idle between them):

  seq1_few, div4_few, tile4_few   as above.

`summary` gives per variant the SM cycles per step (time at 48 - time at
16, over 32, at the SM clock sampled through the run) and, per warp (that
over the warps each SM gets): a step's cycles and the cycles at n = 0
(the time at 16 less 16 steps), and what the variant adds at n = 0 over
its base (seq1 for seqK, tileK for divK, in_tileS for in_divS), per path
more. `model` runs the scenes in timing mode with the h200 preset;
`model-table` puts the model's figures beside the GPU's. `entry_fit`
(make_timing_preset.py's loop_entry_slots) takes seq4's cycles at n = 0
over seq2's, per loop; `launch-fit` finds the fragment_warp_cycles with
which the model, its rasterizer rate beside the shading, comes closest to
the GPU on the 256x256 loop draws and on samples/branch_costs' H200
record (the preset's).

Standard library only.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)
from readme_section import experiment_main  # noqa: E402
import access_steps  # noqa: E402
import device_clocks  # noqa: E402

STEPS = (16, 48)
GRAPHICS_SMS = 4
# The leaves' constants: (added to x, multiplier), one pair a path.
LEAVES = [(0.0, 1.0001), (0.1, 1.0002), (0.2, 1.0003), (0.3, 1.0004),
          (0.4, 0.9999), (0.5, 0.9998), (0.6, 0.9997), (0.7, 0.9996)]
BITS = ["(q.x & 1) != 0", "(q.y & 1) != 0", "(q.x & 2) != 0"]

HEAD = """#version 450
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform Steps { int n; } u;

// n dependent multiply-adds: a path's work.
float Work(float x, float a, int n) {
  for (int i = 0; i < n; ++i) x = x * a + 0.0003;
  return x;
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  ivec2 q = %s;
  float x = gl_FragCoord.x * 0.001;
  int n = u.n;
%s
  color = vec4(fract(x), 0.0, 0.0, 1.0);
}
"""


def _leaf(k):
    c, a = LEAVES[k]
    return "x = Work(x + %r, %r, n);" % (c, a)


def _nest(levels, first, indent):
    """LEVELS nested if/else on BITS, leaves FIRST .. FIRST + 2^LEVELS."""
    pad = "  " * indent
    if levels == 0:
        return pad + _leaf(first) + "\n"
    half = 1 << (levels - 1)
    return (pad + "if (%s) {\n" % BITS[len(BITS) - levels] +
            _nest(levels - 1, first, indent + 1) + pad + "} else {\n" +
            _nest(levels - 1, first + half, indent + 1) + pad + "}\n")


def _fmas(s, a, indent):
    return "".join("%sx = x * %r + 0.0003;\n" % ("  " * indent, a)
                   for _ in range(s))


def _in_loop(sides):
    """A loop of n trips; SIDES None: 16 multiply-adds a trip; else an
    if/else on bit 0 of q.x + i, SIDES multiply-adds a side."""
    if sides is None:
        body = _fmas(16, 1.0001, 2)
    else:
        body = ("    if (((q.x + i) & 1) != 0) {\n" + _fmas(sides, 1.0001, 3) +
                "    } else {\n" + _fmas(sides, 0.9999, 3) + "    }\n")
    return "  for (int i = 0; i < n; ++i) {\n" + body + "  }"


def _levels(k):
    return {2: 1, 4: 2, 8: 3}[k]


# name: (rectangle side, q, body, paths a warp runs, base variant)
VARIANTS = {}
for _k in (1, 2, 4):
    VARIANTS["seq%d" % _k] = (256, "p", "\n".join(
        "  " + _leaf(i) for i in range(_k)), _k, "seq1")
for _k in (2, 4, 8):
    VARIANTS["div%d" % _k] = (256, "p", _nest(_levels(_k), 0, 1).rstrip(),
                              _k, "tile%d" % _k)
    VARIANTS["tile%d" % _k] = (256, "p >> 4", _nest(_levels(_k), 0,
                                                    1).rstrip(), 1,
                               "tile%d" % _k)
VARIANTS["in_none"] = (256, "p", _in_loop(None), 1, "in_none")
for _s in (4, 16):
    VARIANTS["in_tile%d" % _s] = (256, "p >> 4", _in_loop(_s), 1,
                                  "in_tile%d" % _s)
    VARIANTS["in_div%d" % _s] = (256, "p", _in_loop(_s), 2, "in_tile%d" % _s)
VARIANTS["seq1_few"] = (32, "p", "  " + _leaf(0), 1, "seq1_few")
VARIANTS["div4_few"] = (32, "p", _nest(2, 0, 1).rstrip(), 4, "tile4_few")
VARIANTS["tile4_few"] = (32, "p >> 4", _nest(2, 0, 1).rstrip(), 1,
                         "tile4_few")
NAMES = list(VARIANTS)


def warps_per_sm(variant):
    side = VARIANTS[variant][0]
    return side * side / 32 / GRAPHICS_SMS


def scene():
    out = {}
    for v, (side, q, body, paths, base) in VARIANTS.items():
        header = [
            "Generated by vulkan_ref/experiments/e45_divergent_paths.py "
            "scene: do not edit.",
            "E45 variant %s: what entering a loop and a divergent path "
            "cost a fragment warp (%dx%d rectangle, n = %s)." % (
                v, side, side, " and ".join(str(n) for n in STEPS)),
            "Runs with warpsim run --timing and warpsim-vkref run; "
            "vulkan_ref/results/h100/README.md, E45."]
        out[v] = access_steps.fragment_scene(
            header, v, HEAD % (q, body), STEPS, side, "", None, None,
            bind="")
    return out


def rows_of(times, scale):
    """Per variant: SM cycles per step; per warp: a step's cycles, the
    cycles at n = 0, what they add over the base variant's and that per
    path more. SCALE (a number, or one per scene) turns TIMES into
    cycles."""
    rows = access_steps.warp_rows(times, scale, NAMES, STEPS, warps_per_sm)
    fixed = {r["variant"]: r["warp_fixed"] for r in rows}
    for r in rows:
        _, _, _, paths, base = VARIANTS[r["variant"]]
        more = fixed[r["variant"]] - fixed[base]
        r["fixed_over_base"] = round(more, 3)
        bpaths = VARIANTS[base][3]
        r["per_path_more"] = (round(more / (paths - bpaths), 3)
                              if paths != bpaths else None)
    return rows


def summary(record):
    s = device_clocks.scene_runs(record, NAMES, rows_of,
                                 "e45_divergent_paths.py")
    s["record"] = os.path.relpath(record, ROOT)
    return s


def _cell(x):
    return "-" if x is None else "%.1f" % x


def table(s):
    run1, run2 = s["runs"]["run1"], s["runs"]["run2"]
    out = ["Device: %s, driver %s; `%s`, run1 (run2 beside it). SM cycles "
           "at the SM clock sampled while each scene ran (every 20 ms, the "
           "median; %s). Cycles per step: (time at n = %d - time at %d) / "
           "%d; per warp: that over the warps each SM gets (512 on 256x256, "
           "8 on 32x32); at n = 0: the time at n = %d less %d steps, per "
           "warp; over base: that less the base variant's; per path more: "
           "that over the paths a warp runs beyond the base's.\n" % (
               s["device"].get("name", "?"),
               s["device"].get("driver_info", "?"), s["record"],
               device_clocks.note(s["runs"]), STEPS[1], STEPS[0],
               STEPS[1] - STEPS[0], STEPS[0], STEPS[0]),
           "| variant | rectangle | paths a warp runs | base | cycles per "
           "step | run2 | per warp step | at n = 0 per warp | over base | "
           "per path more | run2 |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r, r2 in zip(run1["rows"], run2["rows"]):
        side, _, _, paths, base = VARIANTS[r["variant"]]
        out.append("| %s | %dx%d | %d | %s | %.1f | %.1f | %.3f | %.1f | %s "
                   "| %s | %s |" % (
                       r["variant"], side, side, paths, base,
                       r["cycles_per_step"], r2["cycles_per_step"],
                       r["warp_step"], r["warp_fixed"],
                       _cell(r["fixed_over_base"]),
                       _cell(r["per_path_more"]), _cell(r2["per_path_more"])))
    return "\n".join(out) + "\n"


# The issue slots the timing model already gives a loop's entry besides
# its trips: with loop_unroll 4 and n a multiple of 4 it issues the exit
# compare and branch once more than once in 4 trips (the test that ends
# the loop).
MODEL_EXIT_SLOTS = 2
SUB_PARTITIONS = 4


def entry_fit(s):
    """The issue slots a warp's entry to an unrolled loop takes on the GPU
    besides its trips, from summary S (the mean over its runs): seq4's
    cycles at n = 0 per warp over seq2's, per loop more, times the SM's
    sub-partitions (each issues one instruction a cycle, and at 512 warps
    an SM every cycle). {"gpu_slots", "slots": that less
    MODEL_EXIT_SLOTS, rounded, "seq2", "seq4": their cycles at n = 0}."""
    fixed = device_clocks.run_mean(s, "warp_fixed")
    per_loop = (fixed["seq4"] - fixed["seq2"]) / 2 * SUB_PARTITIONS
    return {"gpu_slots": round(per_loop, 2),
            "slots": max(0, round(per_loop - MODEL_EXIT_SLOTS)),
            "seq2": round(fixed["seq2"], 2), "seq4": round(fixed["seq4"], 2)}


# in_none's trip (16 multiply-adds by constants) over seq1's (one) below
# which the driver's code is taken to fold the chain: halfway between one
# multiply-add's time and two's.
FOLD_BOUND = 1.5


def chain_fold(s):
    """Whether the driver folds a chain of multiply-adds by constants into
    one (make_timing_preset.py's fold_constant_chains), from summary S
    (the mean over its runs): in_none's per warp step against seq1's.
    {"folded", "in_none", "seq1": their SM cycles a warp and trip}."""
    step = device_clocks.run_mean(s, "warp_step")
    return {"folded": step["in_none"] < FOLD_BOUND * step["seq1"],
            "in_none": round(step["in_none"], 4),
            "seq1": round(step["seq1"], 4)}


SCENES = os.path.join(ROOT, "samples", "h200", "e45_divergent_paths")
MODEL_JSON = os.path.join(SCENES, "timing-vs-h200.json")
LAUNCH_FIT = os.path.join(SCENES, "launch-fit.json")
# The variants the launch fit compares: the 256x256 draws of loops
# (in_* are left out: NVIDIA's compiler folds their chains of constant
# multiply-adds, which the model issues as written).
FIT_VARIANTS = [v for v in NAMES if not v.startswith("in_") and
                VARIANTS[v][0] == 256]
FIT_CYCLES = range(0, 17, 2)


def gpu_cycles(record):
    """{pipeline: the GPU's SM cycles, the mean over the record's runs}."""
    def cycles(times, scale):
        return {p: t * scale[p.rsplit("_", 1)[0]] for p, t in times.items()}
    s = device_clocks.scene_runs(record, NAMES, cycles,
                                 "e45_divergent_paths.py")
    runs = [r["rows"] for r in s["runs"].values()]
    return {p: sum(r[p] for r in runs) / len(runs) for p in runs[0]}


BRANCH_COSTS = os.path.join(ROOT, "samples", "branch_costs")


def _log_errors(warpsim, cfg, record, branch_record, clock_mhz):
    """|log(model / GPU)| of every E45 fit draw and every variant of the
    branch_costs record, with the GPU config CFG: two lists."""
    import json
    import math
    import subprocess
    import tempfile
    gpu = gpu_cycles(record)
    e45, costs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        rep = os.path.join(tmp, "r.json")
        for v in FIT_VARIANTS:
            p = subprocess.run(
                [warpsim, "run", os.path.join(SCENES, v + ".amber"),
                 "--timing", "--gpu-config", cfg, "--quiet", "--json", rep],
                capture_output=True, text=True)
            if p.returncode != 0:
                raise SystemExit("e45_divergent_paths.py: warpsim exited %d "
                                 "on %s: %s" % (p.returncode, v,
                                                p.stderr.strip()))
            with open(rep) as fh:
                for d in json.load(fh)["draws"]:
                    e45.append(abs(math.log(d["cycles"] /
                                            gpu[d["pipeline"]])))
        for name in sorted(os.listdir(branch_record)):
            if not name.endswith(".json"):
                continue
            with open(os.path.join(branch_record, name)) as fh:
                rec = json.load(fh)
            family, trips = name[:-len(".json")].split(".trips")
            ns = {int(v["define"]["value"]): v["gpu_ns"]
                  for v in rec["variants"]}
            p = subprocess.run(
                [warpsim, "compare",
                 os.path.join(BRANCH_COSTS, family + ".amber"),
                 "-D", "VARIANT=" + ",".join(str(k) for k in sorted(ns)),
                 "-D", "TRIPS=" + trips, "--timing", "--branches", "0",
                 "--gpu-config", cfg, "--json", rep],
                capture_output=True, text=True)
            if p.returncode != 0:
                raise SystemExit("e45_divergent_paths.py: warpsim compare "
                                 "exited %d on %s: %s" % (
                                     p.returncode, name, p.stderr.strip()))
            with open(rep) as fh:
                for v in json.load(fh)["variants"]:
                    k = int(v["define"]["value"])
                    costs.append(abs(math.log(
                        v["cycles"] / (ns[k] * clock_mhz / 1000))))
    return e45, costs


def launch_fit(warpsim, record, branch_record, raster, entry, out):
    """What a fragment warp takes its sub-partition besides its
    instructions once the rasterizer's rate runs beside the shading: the
    model with the h200 preset, raster_pixels_per_cycle RASTER and
    loop_entry_slots ENTRY, at each fragment_warp_cycles of FIT_CYCLES,
    on E45's FIT_VARIANTS (RECORD, the GPU's cycles at its sampled clock)
    and on every variant of samples/branch_costs' H200 record
    BRANCH_RECORD (its times at the preset's clock); the one whose mean
    |log(model / GPU)| (the mean of the two records' means) is least,
    recorded in OUT with every candidate's errors."""
    import json
    import tempfile
    from readme_section import source_commit, write_json
    with open(os.path.join(ROOT, "emulator", "runner", "presets",
                           "h200_timing.json")) as fh:
        clock_mhz = json.load(fh)["timing"]["clock_mhz"]
    errors = {}
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "gpu.json")
        for f in FIT_CYCLES:
            with open(cfg, "w") as fh:
                json.dump({"preset": "h200", "timing": {
                    "raster_pixels_per_cycle": raster,
                    "loop_entry_slots": entry,
                    "fragment_warp_cycles": f}}, fh)
            e45, costs = _log_errors(warpsim, cfg, record, branch_record,
                                     clock_mhz)
            m45, mcosts = sum(e45) / len(e45), sum(costs) / len(costs)
            errors[f] = {"e45": round(m45, 5), "branch_costs": round(mcosts, 5),
                         "mean": round((m45 + mcosts) / 2, 5)}
    best = min(errors, key=lambda f: (errors[f]["mean"], f))
    commit = source_commit(ROOT)
    write_json({
        "generated_by": "vulkan_ref/experiments/e45_divergent_paths.py "
                        "launch-fit",
        "record": os.path.relpath(record, ROOT),
        "branch_costs_record": os.path.relpath(branch_record, ROOT),
        "warpsim_commit": commit,
        "variants": FIT_VARIANTS,
        "raster_pixels_per_cycle": raster,
        "loop_entry_slots": entry,
        "mean_abs_log_error": {str(f): e for f, e in errors.items()},
        "fragment_warp_cycles": best}, out)
    return 0


def model(warpsim, out):
    return access_steps.model(warpsim, SCENES, NAMES, out,
                              "e45_divergent_paths.py", ROOT)


def model_table(record, model_json):
    s = summary(record)
    gpu = gpu_cycles(record)
    m, caption = access_steps.model_caption(model_json, ROOT)
    mrows = {r["variant"]: r for r in rows_of(m["cycles"], 1.0)}
    grows = {r["variant"]: r for r in s["runs"]["run1"]["rows"]}
    lo, hi = STEPS
    out = ["%s; GPU: `%s` (%s), SM cycles at the sampled clock, the mean "
           "of the runs (per path more: run1's, as above).\n" % (
               caption, s["record"], s["device"].get("name", "?")),
           "| variant | GPU cycles, n = %d | model / GPU | GPU cycles, n = %d "
           "| model / GPU | GPU per path more | model |" % (lo, hi),
           "|---|---|---|---|---|---|---|"]
    for v in NAMES:
        a, b = "%s_%d" % (v, lo), "%s_%d" % (v, hi)
        out.append("| %s | %.0f | %.2f | %.0f | %.2f | %s | %s |" % (
            v, gpu[a], m["cycles"][a] / gpu[a], gpu[b],
            m["cycles"][b] / gpu[b], _cell(grows[v]["per_path_more"]),
            _cell(mrows[v]["per_path_more"])))
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "launch-fit":
        import argparse
        ap = argparse.ArgumentParser(prog="e45_divergent_paths.py launch-fit")
        ap.add_argument("record")
        ap.add_argument("branch_record")
        ap.add_argument("--warpsim", required=True)
        ap.add_argument("--raster", type=float, required=True)
        ap.add_argument("--entry", type=int, required=True)
        ap.add_argument("-o", "--out", default=LAUNCH_FIT)
        a = ap.parse_args(sys.argv[2:])
        return launch_fit(a.warpsim, a.record, a.branch_record, a.raster,
                          a.entry, a.out)
    return experiment_main(__doc__, scene, summary, table, "e45",
                           "e45_divergent_paths.py", MODEL_JSON, model,
                           model_table)


if __name__ == "__main__":
    sys.exit(main())
