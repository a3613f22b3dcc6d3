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
`model-table` puts the model's figures beside the GPU's.

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
    rows = []
    for v in NAMES:
        k = scale[v] if isinstance(scale, dict) else scale
        a = times["%s_%d" % (v, STEPS[0])] * k
        c = times["%s_%d" % (v, STEPS[1])] * k
        step = (c - a) / (STEPS[1] - STEPS[0])
        w = warps_per_sm(v)
        rows.append({"variant": v, "cycles_per_step": round(step, 2),
                     "warp_step": round(step / w, 4),
                     "warp_fixed": round((a - STEPS[0] * step) / w, 3)})
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


SCENES = os.path.join(ROOT, "samples", "h200", "e45_divergent_paths")
MODEL_JSON = os.path.join(SCENES, "timing-vs-h200.json")


def model(warpsim, out):
    return access_steps.model(warpsim, SCENES, NAMES, out,
                              "e45_divergent_paths.py", ROOT)


def model_table(record, model_json):
    s = summary(record)
    m, caption = access_steps.model_caption(model_json, ROOT)
    mrows = {r["variant"]: r for r in rows_of(m["cycles"], 1.0)}
    out = ["%s; GPU: `%s` (%s), run1. SM cycles as above, on each side.\n"
           % (caption, s["record"], s["device"].get("name", "?")),
           "| variant | GPU per warp step | model | model / GPU | GPU at n = "
           "0 per warp | model | GPU per path more | model |",
           "|---|---|---|---|---|---|---|---|"]
    for r in s["runs"]["run1"]["rows"]:
        e = mrows[r["variant"]]
        out.append("| %s | %.3f | %.3f | %.2f | %.1f | %.1f | %s | %s |" % (
            r["variant"], r["warp_step"], e["warp_step"],
            e["warp_step"] / r["warp_step"], r["warp_fixed"],
            e["warp_fixed"], _cell(r["per_path_more"]),
            _cell(e["per_path_more"])))
    return "\n".join(out) + "\n"


def main():
    return experiment_main(__doc__, scene, summary, table, "e45",
                           "e45_divergent_paths.py", MODEL_JSON, model,
                           model_table)


if __name__ == "__main__":
    sys.exit(main())
