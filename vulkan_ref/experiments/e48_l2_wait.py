#!/usr/bin/env python3
"""E48, what a fragment warp's loads from the L2 cost it by how many warps
share its SM: memory_loads' coalesced loop at 512, 32 and 8 warps an SM.

  vulkan_ref/experiments/e48_l2_wait.py scene OUT_DIR
  vulkan_ref/experiments/e48_l2_wait.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e48_l2_wait.py table RECORD_DIR
      [--update README.md | --check README.md]
  vulkan_ref/experiments/e48_l2_wait.py model --warpsim BIN
      [-o samples/h200/e48_l2_wait/timing-vs-h200.json]
  vulkan_ref/experiments/e48_l2_wait.py model-table RECORD
      [MODEL.json] [--update README.md | --check README.md]

Why: samples/timing_families' memory_loads draws its variants that read
whole lines from the L2 (`coalesced`, 16 loads a pixel, and `coalesced8`,
8 in a loop the driver keeps rolled) at 0.88 and 0.82 of the H200's
time, while the one that reads a word every lane shares (`uniform`, L1
hits) is at 0.98: over uniform's time, the H200 spends about three times
what the model spends on those loads. E39 found the model's cost of such
a load when the issue bounds the warps (a long loop, 512 warps an SM)
within 2 % of the GPU's; this times the same loads where their latency
shows: fewer warps an SM, and the short loop of the family.

`scene` writes an AmberScript scene a variant into OUT_DIR (NAME.amber):
two pipelines whose fragment shaders differ only in n (a uniform block),
each drawn twice (the second counts), over a 16 MB buffer d[i] = i
(SERIES_FROM 0). The loop adds one word a trip: in `coalesced` the 32
lanes of a warp (8 rows of 4 pixels) read the 32 words of one 128-byte
line, each warp its own line, a trip the next 256 KB (all the warps of a
256x256 draw read 256 KB a trip), so that no line is read twice in a
draw (48 trips: 12 MB, within the part of the L2 an SM sees at its
latency, memory.l2_bytes of the h200 preset); the draw before it (the
same pipeline) leaves those lines in the L2. In `uniform` every lane
reads the same word, 32 words on a trip, as memory_loads' uniform (L1
hits). The loop's bound is u.n (unrolled four times by the driver) or,
in `rolled`, u.n / 2 with n twice the trips (kept rolled, memory_loads'
coalesced8; vulkan_ref/results/h200 E21). Trips 16 and 48 (n = 32 and
96 for rolled):

  uniform_256, coalesced_256, rolled_256  256x256, 512 warps an SM
      (64 resident at a time): the family's draw;
  uniform_64, coalesced_64                64x64, 32 warps an SM, all
      resident at once;
  uniform_32, coalesced_32, rolled_32     32x32, 8 warps an SM, 2 a
      scheduler: the latency of a trip;

and, after a first run showed the 32x32 coalesced loop taking twice the
uniform loop's time a pass of four trips and the rolled loop about
l2_far_latency a trip:

  rolled_l1_256, rolled_l1_32   the rolled loop reading the same line on
      every trip (L1 hits from the second; the counter times u.n >> 16,
      0, in its address): the trip without the L2;
  spread_256, spread_32         coalesced with a trip's lines 256 KB and
      one line on from the trip before's (65568 words), not 256 KB: the
      four lines a warp reads in a pass fall in different L2 sets.

`summary` gives per variant the SM cycles per trip (time at 48 - time at
16, over 32, at the SM clock sampled through the run), per warp (that
over the warps each SM gets) and the cycles per warp at no trip (the
time at 16 less 16 trips); `model` runs the scenes in timing mode with
the h200 preset; `model-table` puts the model's figures beside the GPU's.

Standard library only.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)
import access_steps  # noqa: E402
import device_clocks  # noqa: E402
from readme_section import experiment_main, record_model_run  # noqa: E402

TRIPS = (16, 48)
GRAPHICS_SMS = 4
WORDS = 4 << 20  # 16 MB
MASK = WORDS - 1

HEAD = """#version 450
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform Steps { int n; } u;
layout(set = 0, binding = 1) readonly buffer Data { uint d[]; } data;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  uint lane = uint((p.y & 7) * 4 + (p.x & 3));
  uint blk = uint((p.y >> 3) * 64 + (p.x >> 2));
  uint s = 0u;
  for (int i = 0; i < %s; ++i) {
    s += data.d[%s];
  }
  color = vec4(float(s & 255u) / 255.0, 0.0, 0.0, 1.0);
}
"""

LINE = "(blk * 32u + lane + uint(i) * 65536u) & %du" % MASK
WORD = "(uint(i) * 32u) & %du" % MASK
# A trip's lines 256 KB and one line on from the trip before's.
SPREAD = "(blk * 32u + lane + uint(i) * 65568u) & %du" % MASK
# The same line on every trip (L1 hits from the second): u.n >> 16 is 0,
# which the compiler cannot know, so the load stays in the loop with
# LINE's address arithmetic (a multiply-add of the counter).
SAME = "(blk * 32u + lane + uint(i) * (uint(u.n) >> 16)) & %du" % MASK

# name: (rectangle side, loop bound, index)
VARIANTS = {
    "uniform_256": (256, "u.n", WORD),
    "coalesced_256": (256, "u.n", LINE),
    "rolled_256": (256, "u.n / 2", LINE),
    "rolled_l1_256": (256, "u.n / 2", SAME),
    "spread_256": (256, "u.n", SPREAD),
    "uniform_64": (64, "u.n", WORD),
    "coalesced_64": (64, "u.n", LINE),
    "uniform_32": (32, "u.n", WORD),
    "coalesced_32": (32, "u.n", LINE),
    "rolled_32": (32, "u.n / 2", LINE),
    "rolled_l1_32": (32, "u.n / 2", SAME),
    "spread_32": (32, "u.n", SPREAD),
}
NAMES = list(VARIANTS)


def per_trip(variant):
    """The uniform n over the trips (2 where the bound is u.n / 2)."""
    return 2 if VARIANTS[variant][1].endswith("/ 2") else 1


def warps_per_sm(variant):
    side = VARIANTS[variant][0]
    return side * side / 32 / GRAPHICS_SMS


def shader(variant):
    _, bound, index = VARIANTS[variant]
    return HEAD % (bound, index)


BUFFERS = "BUFFER data DATA_TYPE uint32 SIZE %d SERIES_FROM 0 INC_BY 1" % WORDS


def scene():
    out = {}
    for v in NAMES:
        side, bound, _ = VARIANTS[v]
        ns = tuple(t * per_trip(v) for t in TRIPS)
        header = [
            "Generated by vulkan_ref/experiments/e48_l2_wait.py scene: "
            "do not edit.",
            "E48 variant %s: what a fragment warp's loads from the L2 cost "
            "it by the warps sharing its SM (%dx%d rectangle, loop bound "
            "%s, n = %s)." % (v, side, side, bound,
                              " and ".join(str(n) for n in ns)),
            "Runs with warpsim run --timing and warpsim-vkref run; "
            "vulkan_ref/results/h100/README.md, E48."]
        out[v] = access_steps.fragment_scene(
            header, v, shader(v), ns, side, BUFFERS, "data", 1)
    return out


def rows_of(times, scale, names=NAMES):
    """Per variant of NAMES: SM cycles per trip, per warp trip and per warp
    at no trip; TIMES by pipeline (VARIANT_N), SCALE (a number, or one per
    variant) turns them into cycles."""
    by_trips = {}
    for v in names:
        for t in TRIPS:
            by_trips["%s_%d" % (v, t)] = times["%s_%d" % (v, t * per_trip(v))]
    return access_steps.warp_rows(by_trips, scale, names, TRIPS,
                                  warps_per_sm)


def recorded(record):
    """The variants RECORD's runs hold (its first run had the first eight)."""
    return [v for v in NAMES
            if os.path.exists(os.path.join(record, "run1", v + ".json"))]


def summary(record):
    names = recorded(record)
    s = device_clocks.scene_runs(
        record, names, lambda t, k: rows_of(t, k, names), "e48_l2_wait.py")
    s["record"] = os.path.relpath(record, ROOT)
    return s


READS = {LINE: "a line, 256 KB on", SPREAD: "a line, 256 KB + 128 B on",
         SAME: "the same line", WORD: "one word"}


def describe(v):
    side, bound, index = VARIANTS[v]
    return "%dx%d | %d | %s | %s" % (
        side, side, warps_per_sm(v), READS[index],
        "rolled" if bound != "u.n" else "unrolled")


def table(s):
    run1, run2 = s["runs"]["run1"], s["runs"]["run2"]
    out = ["Device: %s, driver %s; `%s`, run1 (run2 beside it). SM cycles "
           "at the SM clock sampled while each scene ran (every 20 ms, the "
           "median; %s). Cycles per trip: (time at %d trips - time at %d) "
           "/ %d; per warp: that over the warps each SM gets; at no trip: "
           "the time at %d trips less %d trips, per warp.\n" % (
               s["device"].get("name", "?"),
               s["device"].get("driver_info", "?"), s["record"],
               device_clocks.note(s["runs"]), TRIPS[1], TRIPS[0],
               TRIPS[1] - TRIPS[0], TRIPS[0], TRIPS[0]),
           "| variant | rectangle | warps an SM | a warp reads | loop | "
           "cycles per trip | run2 | per warp trip | run2 | at no trip "
           "per warp |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r, r2 in zip(run1["rows"], run2["rows"]):
        out.append("| %s | %s | %.1f | %.1f | %.3f | %.3f | %.1f |" % (
            r["variant"], describe(r["variant"]), r["cycles_per_step"],
            r2["cycles_per_step"], r["warp_step"], r2["warp_step"],
            r["warp_fixed"]))
    return "\n".join(out) + "\n"


SCENES = os.path.join(ROOT, "samples", "h200", "e48_l2_wait")
MODEL_JSON = os.path.join(SCENES, "timing-vs-h200.json")


def model(warpsim, out):
    return record_model_run(
        warpsim, [os.path.join(SCENES, v + ".amber") for v in NAMES], out,
        "e48_l2_wait.py", ROOT)


def model_table(record, model_json):
    s = summary(record)
    step = device_clocks.run_mean(s, "warp_step")
    fixed = device_clocks.run_mean(s, "warp_fixed")
    m, caption = access_steps.model_caption(model_json, ROOT)
    mrows = {r["variant"]: r for r in rows_of(m["cycles"], 1.0)}
    out = ["%s; GPU: `%s` (%s), SM cycles at the sampled clock, the mean "
           "of the runs.\n" % (caption, s["record"],
                               s["device"].get("name", "?")),
           "| variant | warps an SM | GPU per warp trip | model | model / "
           "GPU | GPU at no trip per warp | model | model / GPU |",
           "|---|---|---|---|---|---|---|---|"]
    for v in recorded(record):
        e = mrows[v]
        out.append("| %s | %d | %.3f | %.3f | %.2f | %.1f | %.1f | %.2f |"
                   % (v, warps_per_sm(v), step[v], e["warp_step"],
                      e["warp_step"] / step[v], fixed[v], e["warp_fixed"],
                      e["warp_fixed"] / fixed[v]))
    return "\n".join(out) + "\n"


def main():
    return experiment_main(__doc__, scene, summary, table, "e48",
                           "e48_l2_wait.py", MODEL_JSON, model, model_table)


if __name__ == "__main__":
    sys.exit(main())
