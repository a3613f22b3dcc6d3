#!/usr/bin/env python3
"""E44, texture reads E43 did not time, to check the timing model's
texture path (fitted to E43) on draws it was not fitted to.

  vulkan_ref/experiments/e44_texture_check.py scene OUT_DIR
  vulkan_ref/experiments/e44_texture_check.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e44_texture_check.py table RECORD_DIR
      [--update README.md | --check README.md]
  vulkan_ref/experiments/e44_texture_check.py model --warpsim BIN
      [-o samples/h200/e44_texture_check/timing-vs-h200.json]
  vulkan_ref/experiments/e44_texture_check.py model-table RECORD
      [MODEL.json] [--update README.md | --check README.md]

`scene` writes an AmberScript scene a variant into OUT_DIR (NAME.amber),
E43's fragment draws (e43_texture_path.py: a loop of n = 32 and 256
trips, a texture read a trip, 64 x 64 texels, repeat addressing) with
other reads. On a 256x256 rectangle (512 fragment warps per graphics
SM):

  none              the loop alone (the baseline);
  nearest_rgba16f   texture() of 8-byte texels (R16G16B16A16_SFLOAT),
                    nearest filtering;
  linear_rgba16f    the same, linear filtering;
  linear_r8         linear filtering of 1-byte texels (R8_UNORM);
  fetch_rgba32f     texelFetch of the pixel's 16-byte texel;
  quad_scattered    textureLod, linear, each quad at a hashed place (its
                    4 lanes on neighbouring texels);
  blur9             9 texture() reads a trip, linear, the texel's 3x3
                    neighbourhood (a blur's reads);
  trilinear         textureLod at level 1.5 of a texture of 7 levels,
                    linear filtering and mipmap mode (two levels blended).

On a 64x64 rectangle (about 32 fragment warps per graphics SM, which
leave the texture units idle part of the time):

  none_few          the loop alone;
  linear_few        texture(), linear, as E43's linear.

`summary` gives per variant the SM cycles per step, (time at 256 - time
at 32) / 224 at the SM clock sampled through the run, and per warp and
trip: that over the warps each SM gets, less its rectangle's `none`'s.
`model` runs the scenes in timing mode with the h200 preset;
`model-table` puts the model's cycles beside the GPU's.

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
import e43_texture_path as e43  # noqa: E402

STEP = e43.STEP
D = 1.0 / e43.TEXELS
BLUR = " + ".join("texture(tex, uv + %s + vec2(%r, %r))" % (STEP, dx * D,
                                                            dy * D)
                  for dy in (-1, 0, 1) for dx in (-1, 0, 1))
# name: (E43's spec: format, filter, read; the rectangle's side; levels)
VARIANTS = {
    "none": (("R8G8B8A8_UNORM", "nearest", None), 256, 1),
    "nearest_rgba16f": (("R16G16B16A16_SFLOAT", "nearest",
                         "texture(tex, uv + %s)" % STEP), 256, 1),
    "linear_rgba16f": (("R16G16B16A16_SFLOAT", "linear",
                        "texture(tex, uv + %s)" % STEP), 256, 1),
    "linear_r8": (("R8_UNORM", "linear", "texture(tex, uv + %s)" % STEP),
                  256, 1),
    "fetch_rgba32f": (("R32G32B32A32_SFLOAT", "nearest",
                       "texelFetch(tex, (p + ivec2(i, 0)) & %d, 0)" %
                       (e43.TEXELS - 1)), 256, 1),
    "quad_scattered": (("R8G8B8A8_UNORM", "linear",
                        "textureLod(tex, qv + %s, 0.0)" % STEP), 256, 1),
    "blur9": (("R8G8B8A8_UNORM", "linear", "(%s)" % BLUR), 256, 1),
    "trilinear": (("R8G8B8A8_UNORM", "linear",
                   "textureLod(tex, uv + %s, 1.5)" % STEP), 256, 7),
    "none_few": (("R8G8B8A8_UNORM", "nearest", None), 64, 1),
    "linear_few": (("R8G8B8A8_UNORM", "linear",
                    "texture(tex, uv + %s)" % STEP), 64, 1),
}
NAMES = ["f_" + v for v in VARIANTS]
STEPS = e43.FRAGMENT_STEPS


def warps_per_sm(variant):
    side = VARIANTS[variant][1]
    return side * side / 32 / e43.GRAPHICS_SMS


def scene():
    out = {}
    for v, (spec, draw, mips) in VARIANTS.items():
        out["f_" + v] = e43.fragment_scene(
            v, spec, e43.TEXELS, draw, mips, "e44_texture_check.py",
            "texture reads E43 did not time")
    return out


def rows_of(times, scale):
    """Per variant: SM cycles per step and per warp and trip (less its
    rectangle's none's); SCALE (a number, or one per scene) turns TIMES
    into cycles."""
    rows = []
    for side in (256, 64):
        names = ["f_" + v for v, x in VARIANTS.items() if x[1] == side]
        base = names[0]
        rows += access_steps.rows_of(times, scale, names, STEPS,
                                     warps_per_sm(names[0][2:]),
                                     lambda v, b=base: b)
    order = {n: i for i, n in enumerate(NAMES)}
    return sorted(rows, key=lambda r: order[r["variant"]])


def summary(record):
    s = device_clocks.scene_runs(record, NAMES, rows_of,
                                 "e44_texture_check.py")
    s["record"] = os.path.relpath(record, ROOT)
    return s


def describe(name):
    (fmt, filt, read), draw, mips = VARIANTS[name[2:]]
    return ("%dx%d" % (draw, draw), fmt if read else "-",
            filt if read else "-", str(mips))


def table(s):
    return access_steps.table(
        s, STEPS, "each scene",
        "per warp load: per warp and trip, that over the warps each SM gets "
        "(512 on 256x256, 32 on 64x64), less its rectangle's none's.",
        ("rectangle", "texture", "filter", "levels"), describe)


SCENES = os.path.join(ROOT, "samples", "h200", "e44_texture_check")
MODEL_JSON = os.path.join(SCENES, "timing-vs-h200.json")


def model(warpsim, out):
    return access_steps.model(warpsim, SCENES, NAMES, out,
                              "e44_texture_check.py", ROOT)


def model_table(record, model_json):
    return access_steps.model_table(
        summary(record), model_json, ROOT, lambda c: rows_of(c, 1.0),
        "SM cycles per warp and trip")


def main():
    return experiment_main(__doc__, scene, summary, table, "e44",
                           "e44_texture_check.py", MODEL_JSON, model,
                           model_table)


if __name__ == "__main__":
    sys.exit(main())
