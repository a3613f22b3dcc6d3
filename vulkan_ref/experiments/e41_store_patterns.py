#!/usr/bin/env python3
"""E41, what a fragment warp's global store costs by where its lanes
write: how many 32-byte sectors and 128-byte lines one warp store
touches, into a small buffer every warp writes alike and into a large
one a warp's own, at high occupancy (E39's draw: 512 fragment warps per
graphics SM).

  vulkan_ref/experiments/e41_store_patterns.py scene OUT_DIR
  vulkan_ref/experiments/e41_store_patterns.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e41_store_patterns.py table RECORD_DIR
      [--update README.md | --check README.md]
  vulkan_ref/experiments/e41_store_patterns.py model --warpsim BIN
      [-o samples/h200/e41_store_patterns/timing-vs-h200.json]
  vulkan_ref/experiments/e41_store_patterns.py model-table RECORD
      [MODEL.json] [--update README.md | --check README.md]

Why: E39 timed a load by its sectors, lines and banks and the timing
model now charges a load's data wavefronts from it; a store it charges
as it charged a load that missed the L1 before E39 (per line it sends
to the L2, per sector the L2 takes), with no wavefront and nothing that
depends on its banks, and no measurement said whether that holds. A
store writes through the L1 to the L2 (REFERENCE §1.3): E41 times the
same patterns as E39 with a store a trip in place of the load.

`scene` writes an AmberScript scene a variant into OUT_DIR (NAME.amber):
two pipelines drawing a 256x256 rectangle (2048 fragment warps,
512 on each of the 4 graphics SMs, at most 64 resident) whose fragment
shaders loop n = 32 and 256 times (a uniform block), each drawn twice
(the second counts). A trip stores a word and steps a sum (s = 3 s +
1; `none`: the step alone, no store); the sum colours the pixel after
the loop. The value stored is the word's index, so that warps writing
one word write the same value (the buffer's contents do not depend on
the order warps run in: vkref_crosscheck_samples compares them with the
emulator's). The word a lane writes: a block of 1024 words chosen by the trip
(and, in the large buffer, by the warp), and in it the lane's offset by
the pattern, the lane numbered across the warp's 4x8 pixels
(vulkan_ref/results/h200/FINDINGS.md Q2):

  uniform      0: every lane one word (1 sector, 1 line);
  coalesced    lane: 32 consecutive words (4 sectors, 1 line);
  strided2     2 lane: 8 sectors, 2 lines, 2 words a bank;
  strided4     4 lane: 16 sectors, 4 lines, 4 words a bank;
  strided      8 lane: a word a sector, 32 sectors in 8 lines, 8 words
               a bank;
  strided9     9 lane: 32 sectors in 9 or 10 lines, every lane its own
               bank;
  rows         64 row + column: 8 rows of 16 bytes, 8 sectors in 8
               lines, 8 words a bank;
  lines        32 lane: 32 lines, a word each, all 32 in bank 0;
  lines33      33 lane: 32 lines, every lane its own bank;
  halves       16 consecutive words in each of 2 lines (4 whole
               sectors);
  quarters     8 consecutive words in each of 4 lines (4 whole
               sectors, a sector a line).

Each pattern twice: `small_*` into a buffer of 8 blocks (32 KB, which
every warp of every SM writes alike), and `large_*` into one of 1024
blocks (4 MB, a block per warp and trip).

`summary` gives per variant the SM cycles per step, (time at 256 - time
at 32) / 224 at the SM clock sampled through the run, and the SM cycles
per warp store: that over the 512 warps each SM gets (less `none`'s:
the loop's own). `model` runs the scene in timing mode with the h200
preset; `model-table` puts the model's cycles beside the GPU's.

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
import e39_load_patterns  # noqa: E402

STEPS = (32, 256)
SIDE = 256
GRAPHICS_SMS = 4
WARPS_PER_SM = SIDE * SIDE // 32 // GRAPHICS_SMS
BLOCK = 1024  # words
SMALL_BLOCKS = 8
LARGE_BLOCKS = 1024

# E39's patterns (name: the lane's word in its block, sectors, lines,
# words in the fullest bank) but rows68, whose banks a store does not use.
PATTERNS = {k: v for k, v in e39_load_patterns.PATTERNS.items()
            if k != "rows68"}
# And whole sectors in more lines than coalesced's one.
PATTERNS["halves"] = ("(lane >> 4u) * 32u + (lane & 15u)", 4, 2, 1)
PATTERNS["quarters"] = ("(lane >> 3u) * 32u + (lane & 7u)", 4, 4, 4)
# Where a trip's block lies: the same for every warp (8 blocks), or the
# warp's own (1024 blocks; blk numbers the warp's 4x8 pixels).
LEVELS = {
    "small": "((uint(i) * 5u) & %du)" % (SMALL_BLOCKS - 1),
    "large": "((blk * 97u + uint(i) * 5u) & %du)" % (LARGE_BLOCKS - 1),
}
VARIANTS = ["none"] + ["%s_%s" % (lv, p) for lv in LEVELS for p in PATTERNS]

PARAMS = ("layout(set = 0, binding = 0) uniform Params { int n; } u;\n"
          "layout(set = 0, binding = %d) writeonly buffer Data { uint d[]; } "
          "data;\n")


def shader(variant):
    # (The lane's offset before the loop: each trip computes only its
    # block's.)
    if variant == "none":
        store, off, binding = "", "0u", 1
    else:
        level, pattern = variant.split("_", 1)
        store = ("    uint a = %s * %du + off;\n    data.d[a] = a;\n" %
                 (LEVELS[level], BLOCK))
        off = PATTERNS[pattern][0]
        binding = 1 if level == "small" else 2
    return ("#version 450\nlayout(location = 0) out vec4 color;\n" +
            PARAMS % binding +
            "void main() {\n"
            "  ivec2 p = ivec2(gl_FragCoord.xy);\n"
            "  uint lane = uint((p.y & 7) * 4 + (p.x & 3));\n"
            "  uint blk = uint((p.y >> 3) * 64 + (p.x >> 2));\n"
            "  uint off = %s;\n"
            "  uint s = lane + blk + off;\n" % off +
            "  for (int i = 0; i < u.n; ++i) {\n" + store +
            "    s = s * 3u + 1u;\n  }\n"
            "  color = vec4(float(s & 255u) / 255.0, 0.0, 0.0, 1.0);\n}\n")


def scene():
    """One scene a variant: few pipelines to make before its draws (the
    driver lowers the SM clock while the GPU waits for a long build of
    many, vulkan_ref/experiments/device_clocks.py)."""
    out = {}
    for name in VARIANTS:
        data, binding, blocks = (
            ("large", 2, LARGE_BLOCKS) if name.startswith("large_") else
            ("small", 1, SMALL_BLOCKS))
        out[name] = access_steps.fragment_scene(
            ["GENERATED by vulkan_ref/experiments/e41_store_patterns.py "
             "scene:",
             "a fragment warp's store by the sectors and lines its lanes "
             "write (its docstring)."],
            name, shader(name), STEPS, SIDE,
            "BUFFER %s DATA_TYPE uint32 SIZE %d FILL 0" % (
                data, blocks * BLOCK), data, binding)
    return out


def rows_of(times, scale):
    """Per variant: SM cycles per step and per warp store (less none's);
    SCALE (a number, or one per scene) turns TIMES into cycles."""
    return access_steps.rows_of(times, scale, VARIANTS, STEPS, WARPS_PER_SM,
                                lambda v: "none")


def summary(record):
    """RECORD: what run_scenes_h200.sh wrote (run1/, run2/: the scene's
    report; the clock samples and run times beside them)."""
    s = device_clocks.scene_runs(record, VARIANTS, rows_of,
                                 "e41_store_patterns.py")
    s["record"] = os.path.relpath(record, ROOT)
    return s


def whole_sectors(pattern):
    """Whether a warp store of PATTERN writes every sector it touches
    whole (the 32 lanes' word offsets from its expression)."""
    expr = PATTERNS[pattern][0].replace("u", "")
    words = {eval(expr, {"lane": lane}) for lane in range(32)}  # noqa: S307
    return all(all(w // 8 * 8 + k in words for k in range(8)) for w in words)


def store_fit(s):
    """The SM's store path from a summary S (the mean of its runs): the
    least-squares cycles (through 0) a sector, a line and a line with a
    sector written in part, of the large buffer's variants of at least 4
    sectors whose lines are whole numbers (their stores, not the loop's
    issue, bound the draw), against the SM cycles per warp trip (loop
    included). {"sector", "line", "partial_line", "rows": [(variant,
    sectors, lines, partial lines, cycles, fitted)]}."""
    mean = device_clocks.run_mean(s, "cycles_per_warp_step")
    pts = [("large_" + p, (v[1], v[2], 0 if whole_sectors(p) else v[2]),
            mean["large_" + p])
           for p, v in PATTERNS.items()
           if v[1] >= 4 and isinstance(v[2], int)]
    # The normal equations of c = x . (sector, line, partial line), solved
    # by Gaussian elimination.
    n = 3
    a = [[sum(x[i] * x[j] for _, x, _ in pts) for j in range(n)] +
         [sum(x[i] * c for _, x, c in pts)] for i in range(n)]
    for k in range(n):
        piv = max(range(k, n), key=lambda r: abs(a[r][k]))
        a[k], a[piv] = a[piv], a[k]
        for r in range(n):
            if r != k:
                f = a[r][k] / a[k][k]
                a[r] = [a[r][q] - f * a[k][q] for q in range(n + 1)]
    coef = [a[k][n] / a[k][k] for k in range(n)]
    return {"sector": coef[0], "line": coef[1], "partial_line": coef[2],
            "rows": [(v,) + x + (c, sum(p * q for p, q in zip(coef, x)))
                     for v, x, c in pts]}


def describe(name):
    """The pattern's buffer, sectors, lines and words a bank, for a
    table."""
    if name == "none":
        return "-", "-", "-", "-"
    level, pattern = name.split("_", 1)
    _, sectors, lines, bank = PATTERNS[pattern]
    return level, str(sectors), str(lines), str(bank)


def table(s):
    return access_steps.table(
        s, STEPS, "the scene",
        "per warp store: that over the %d warps each SM gets, less none's "
        "(the loop without a store)." % WARPS_PER_SM,
        ("buffer", "sectors", "lines", "words a bank"), describe)


SCENES = os.path.join(ROOT, "samples", "h200", "e41_store_patterns")
MODEL_JSON = os.path.join(SCENES, "timing-vs-h200.json")


def model(warpsim, out):
    return access_steps.model(warpsim, SCENES, VARIANTS, out,
                              "e41_store_patterns.py", ROOT)


def model_table(record, model_json):
    return access_steps.model_table(
        summary(record), model_json, ROOT, lambda c: rows_of(c, 1.0),
        "SM cycles per step and per warp store")


def main():
    return experiment_main(__doc__, scene, summary, table, "e41",
                           "e41_store_patterns.py", MODEL_JSON, model,
                           model_table)


if __name__ == "__main__":
    sys.exit(main())
