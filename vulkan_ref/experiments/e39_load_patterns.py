#!/usr/bin/env python3
"""E39, what a fragment warp's global load costs by where its lanes read:
how many 32-byte sectors and 128-byte lines one warp load touches, and
whether its lanes' words fall in the same banks of the L1's data, with
the data in the L1 and in the L2, at high occupancy (E27's draw: 512
fragment warps per graphics SM).

  vulkan_ref/experiments/e39_load_patterns.py scene OUT_DIR
  vulkan_ref/experiments/e39_load_patterns.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e39_load_patterns.py table RECORD_DIR
      [--update README.md | --check README.md]
  vulkan_ref/experiments/e39_load_patterns.py model --warpsim BIN
      [-o samples/h200/e39_load_patterns/timing-vs-h200.json]
  vulkan_ref/experiments/e39_load_patterns.py model-table RECORD
      [MODEL.json] [--update README.md | --check README.md]
  vulkan_ref/experiments/e39_load_patterns.py families RECORD
      [--update README.md | --check README.md]

Why: the timing family memory_loads (samples/timing_families/) draws 16
loads a pixel from the L2 where a warp's lanes read one word, a line,
8 rows of 16 bytes (8 sectors in 8 lines), one word per sector (32
sectors in 8 lines) or hashed words (32 lines). The model matched the
H200's time within a few percent for all but one word per sector, which
the model drew faster than the H200 and even faster than the rows (the
H200: slower than the rows). The model charged a load that misses
the L1 per line it sends to the L2 and per sector the L2 returns, and a
load that hits nothing beyond the L1's latency, whatever it touched. E39
times the patterns apart, in the L1 and in the L2, and with the lanes'
words spread over the L1's 32 banks of 4 bytes or piled into few.

`scene` writes an AmberScript scene a variant into OUT_DIR (NAME.amber):
two pipelines drawing a 256x256 rectangle (2048 fragment warps,
512 on each of the 4 graphics SMs, at most 64 resident) whose fragment
shaders loop n = 32 and 256 times (a uniform block), each drawn twice
(the second counts). A trip adds one loaded word to a sum (`none`: the
trip's number instead, no load). The word a lane reads: a block of 1024
words chosen by the trip (and, from the L2, by the warp), and in it the
lane's offset by the pattern, the lane numbered across the warp's 4x8
pixels (vulkan_ref/results/h200/FINDINGS.md Q2):

  uniform      0: every lane one word (1 sector, 1 line, 1 word);
  coalesced    lane: 32 consecutive words (4 sectors, 1 line);
  strided2     2 lane: 8 sectors, 2 lines, 2 words a bank;
  strided4     4 lane: 16 sectors, 4 lines, 4 words a bank;
  strided      8 lane: a word a sector, 32 sectors in 8 lines, 8 words
               a bank;
  strided9     9 lane: 32 sectors in 9 or 10 lines, every lane its own
               bank;
  rows         64 row + column: 8 rows of 16 bytes, 8 sectors in 8
               lines, 8 words a bank (memory_loads' rows);
  rows68       68 row + column: the same with the rows 4 banks apart,
               every lane its own bank;
  lines        32 lane: 32 lines, a word each, all 32 in bank 0;
  lines33      33 lane: 32 lines, every lane its own bank.

Each pattern twice: `l1_*` from a buffer of 8 blocks (32 KB, which
every warp of an SM reads alike: L1 hits after the first reads), and
`l2_*` from one of 1024 blocks (4 MB, a block per warp and trip: L1
misses, L2 hits once the first draw read it).

`summary` gives per variant the SM cycles per step, (time at 256 - time
at 32) / 224 at the SM clock sampled through the run, and the SM cycles
per warp load: that over the 512 warps each SM gets (less `none`'s: the
loop's own). `model` runs the scene in timing mode with the h200 preset;
`model-table` puts the model's cycles beside the GPU's. `families`
sets the timing families, which run_e39_h200.sh runs on the same machine
after E39 (RECORD/families/), beside the H200's record of them.

Standard library only.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)
from readme_section import (  # noqa: E402
    experiment_main, table_section_main)
import access_steps  # noqa: E402
import device_clocks  # noqa: E402

STEPS = (32, 256)
SIDE = 256
GRAPHICS_SMS = 4
WARPS_PER_SM = SIDE * SIDE // 32 // GRAPHICS_SMS
BLOCK = 1024  # words
L1_BLOCKS = 8
L2_BLOCKS = 1024

# name: (the lane's word in its block, sectors, lines, words in the
# fullest of the 32 four-byte banks: word w in bank w mod 32)
PATTERNS = {
    "uniform": ("0u", 1, 1, 1),
    "coalesced": ("lane", 4, 1, 1),
    "strided2": ("lane * 2u", 8, 2, 2),
    "strided4": ("lane * 4u", 16, 4, 4),
    "strided": ("lane * 8u", 32, 8, 8),
    "strided9": ("lane * 9u", 32, "9-10", 1),
    "rows": ("(lane >> 2) * 64u + (lane & 3u)", 8, 8, 8),
    "rows68": ("(lane >> 2) * 68u + (lane & 3u)", 8, 8, 1),
    "lines": ("lane * 32u", 32, 32, 32),
    "lines33": ("lane * 33u", 32, 32, 1),
}
# Where a trip's block lies: the same for every warp (8 blocks), or the
# warp's own (1024 blocks; blk numbers the warp's 4x8 pixels).
LEVELS = {
    "l1": "((uint(i) * 5u) & %du)" % (L1_BLOCKS - 1),
    "l2": "((blk * 97u + uint(i) * 5u) & %du)" % (L2_BLOCKS - 1),
}
VARIANTS = ["none"] + ["%s_%s" % (lv, p) for lv in LEVELS for p in PATTERNS]

PARAMS = ("layout(set = 0, binding = 0) uniform Params { int n; } u;\n"
          "layout(set = 0, binding = %d) readonly buffer Data { uint d[]; } "
          "data;\n")


def shader(variant):
    # (The lane's offset before the loop: each trip computes only its
    # block's, as the driver's code does with a loop-invariant offset.)
    if variant == "none":
        add, off, binding = "uint(i)", "0u", 1
    else:
        level, pattern = variant.split("_", 1)
        add = "data.d[%s * %du + off]" % (LEVELS[level], BLOCK)
        off = PATTERNS[pattern][0]
        binding = 1 if level == "l1" else 2
    return ("#version 450\nlayout(location = 0) out vec4 color;\n" +
            PARAMS % binding +
            "void main() {\n"
            "  ivec2 p = ivec2(gl_FragCoord.xy);\n"
            "  uint lane = uint((p.y & 7) * 4 + (p.x & 3));\n"
            "  uint blk = uint((p.y >> 3) * 64 + (p.x >> 2));\n"
            "  uint off = %s;\n"
            "  uint s = lane + blk + off;\n" % off +
            "  for (int i = 0; i < u.n; ++i) {\n"
            "    s += %s;\n  }\n" % add +
            "  color = vec4(float(s & 255u) / 255.0, 0.0, 0.0, 1.0);\n}\n")


def scene():
    """One scene a variant: few pipelines to make before its draws (the
    driver lowers the SM clock while the GPU waits for a long build of
    many, vulkan_ref/experiments/device_clocks.py)."""
    out = {}
    for name in VARIANTS:
        data, binding, blocks = (
            ("large", 2, L2_BLOCKS) if name.startswith("l2_") else
            ("small", 1, L1_BLOCKS))
        out[name] = access_steps.fragment_scene(
            ["GENERATED by vulkan_ref/experiments/e39_load_patterns.py "
             "scene:",
             "a fragment warp's load by the sectors, lines and banks its "
             "lanes read (its docstring)."],
            name, shader(name), STEPS, SIDE,
            "BUFFER %s DATA_TYPE uint32 SIZE %d SERIES_FROM 0 INC_BY 1" % (
                data, blocks * BLOCK), data, binding)
    return out


def rows_of(times, scale):
    """Per variant: SM cycles per step and per warp load (less none's);
    SCALE (a number, or one per scene) turns TIMES into cycles."""
    return access_steps.rows_of(times, scale, VARIANTS, STEPS, WARPS_PER_SM,
                                lambda v: "none")


def summary(record):
    """RECORD: what run_scenes_h200.sh wrote (run1/, run2/: the scene's
    report; the clock samples and run times beside them)."""
    s = device_clocks.scene_runs(record, VARIANTS, rows_of,
                                 "e39_load_patterns.py")
    s["record"] = os.path.relpath(record, ROOT)
    return s


def wavefront_fit(s):
    """The L1's data stage from a summary S (the mean of its runs): the SM
    cycles of a wavefront, the least-squares slope through 0 of the L1
    variants' SM cycles per warp trip (loop included) against the words
    in their fullest bank, over those with at least 4 there (whose loads,
    not the loop's issue, bound the draw); and the lines one wavefront
    looks up, the conflict-free variant with the most lines' lines over its
    wavefronts (its cycles over that slope), to the nearest whole number.
    {"cycles", "lines_per_wavefront", "bound": [(variant, words, cycles)],
    "lines": (variant, lines, cycles)}."""
    slope, bound = access_steps.slope_fit(
        s, [("l1_" + p, v[3]) for p, v in PATTERNS.items() if v[3] >= 4])
    mean = device_clocks.run_mean(s, "cycles_per_warp_step")
    free = [(p, v[2]) for p, v in PATTERNS.items()
            if v[3] == 1 and isinstance(v[2], int)]
    name, lines = max(free, key=lambda x: x[1])
    cycles = mean["l1_" + name]
    return {"cycles": slope,
            "lines_per_wavefront": max(1, round(lines / (cycles / slope))),
            "bound": bound, "lines": ("l1_" + name, lines, cycles)}


def describe(name):
    """The pattern's sectors, lines and words a bank, for a table."""
    if name == "none":
        return "-", "-", "-", "-"
    level, pattern = name.split("_", 1)
    _, sectors, lines, bank = PATTERNS[pattern]
    return level.upper(), str(sectors), str(lines), str(bank)


def table(s):
    return access_steps.table(
        s, STEPS, "the scene",
        "per warp load: that over the %d warps each SM gets, less none's "
        "(the loop without a load)." % WARPS_PER_SM,
        ("from", "sectors", "lines", "words a bank"), describe)


SCENES = os.path.join(ROOT, "samples", "h200", "e39_load_patterns")
MODEL_JSON = os.path.join(SCENES, "timing-vs-h200.json")


def model(warpsim, out):
    return access_steps.model(warpsim, SCENES, VARIANTS, out,
                              "e39_load_patterns.py", ROOT)


def model_table(record, model_json):
    return access_steps.model_table(
        summary(record), model_json, ROOT, lambda c: rows_of(c, 1.0),
        "SM cycles per step and per warp load")


FAMILIES = ("branch_granularity", "loop_trips", "register_pressure",
            "memory_loads")
H200_FAMILIES = os.path.join(ROOT, "samples", "timing_families", "results",
                             "h200-2026-12-03")


def families_table(record):
    """The timing families (samples/timing_families/) as run_e39_h200.sh
    ran them beside E39 (RECORD/families/runN/FAMILY.json) against the
    H200's record of them (H200_FAMILIES/FAMILY.h200.json): each draw's
    GPU time on both machines."""
    fam = os.path.join(record, "families")
    clocks = device_clocks.run_clocks(fam)
    runs = {}
    device = {}
    for run in ("run1", "run2"):
        for f in FAMILIES:
            with open(os.path.join(fam, run, f + ".json")) as fh:
                rep = json.load(fh)
            device = rep.get("device", device)
            runs[(run, f)] = {d["pipeline"]: d["gpu_time_ns"]
                              for d in rep["draws"]}
    lows = sorted("%s %.0f" % (k, c["min_mhz"]) for k, c in clocks.items()
                  if c["min_mhz"] < c["max_sm_mhz"])
    out = ["Device: %s, driver %s; `%s` (run1, run2) against the H200's "
           "`%s` (NVIDIA H200): each draw's GPU time (ns, the median of 15 "
           "repeats); %s.\n" % (
               device.get("name", "?"), device.get("driver_info", "?"),
               os.path.relpath(fam, ROOT), os.path.relpath(H200_FAMILIES,
                                                           ROOT),
               "SM clock samples below the highest: " + ", ".join(lows)
               if lows else "every SM clock sample at the highest clock"),
           "| family | variant | H200 ns | this GPU ns | run2 | this GPU / "
           "H200 |", "|---|---|---|---|---|---|"]
    worst = 0.0
    for f in FAMILIES:
        with open(os.path.join(H200_FAMILIES, f + ".h200.json")) as fh:
            h200 = [(d["pipeline"], d["gpu_time_ns"])
                    for d in json.load(fh)["draws"]]
        for name, t in h200:
            a, b = runs[("run1", f)][name], runs[("run2", f)][name]
            worst = max(worst, abs(a / t - 1))
            out.append("| %s | %s | %.0f | %.0f | %.0f | %.3f |" % (
                f, name, t, a, b, a / t))
    out.append("\nThe largest difference: %.1f %%." % (100 * worst))
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "families":
        ap = argparse.ArgumentParser(description="the timing families "
                                     "beside E39 against the H200's")
        ap.add_argument("cmd")
        ap.add_argument("record")
        ap.add_argument("--update")
        ap.add_argument("--check")
        args = ap.parse_args()
        return table_section_main(families_table(args.record),
                                  "e39-families", "e39_load_patterns.py",
                                  args.check, args.update)
    return experiment_main(__doc__, scene, summary, table, "e39",
                           "e39_load_patterns.py", MODEL_JSON, model,
                           model_table)


if __name__ == "__main__":
    sys.exit(main())
