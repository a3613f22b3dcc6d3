#!/usr/bin/env python3
"""E26, register_pressure's K = 1 draw taken apart: its chain of loads,
with and without the rest of its shader, on 128x128 and 256x256 pixels,
at 0, 64 and 1024 steps.

  vulkan_ref/experiments/e26_chase_draw.py scene OUT_DIR
  vulkan_ref/experiments/e26_chase_draw.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e26_chase_draw.py table RECORD_DIR
      [--update README.md | --check README.md]
  vulkan_ref/experiments/e26_chase_draw.py model --warpsim BIN
      [-o samples/h200/e26_chase_draw/timing-vs-h200.json]
  vulkan_ref/experiments/e26_chase_draw.py model-table RECORD
      [MODEL.json] [--update README.md | --check README.md]

Why: samples/timing_families' register_pressure draw at K = 1 (a
full-screen 256x256 draw, 64 fragment warps resident on each of 4
graphics SMs, each walking 64 steps of a chain of loads through
consecutive words) takes the H200 about 3.5 SM cycles per warp load on
one SM once E15's cost of an empty draw is taken off, while E25 found 64
warps walking the same chain for 1024 steps cost an SM 1.3 to 1.5. The
model, which hides the chain's latency behind the other warps, draws it
at 0.74 of the H200's time. E26 separates the draw's steps from what it
pays per warp and per draw.

`scene` writes one AmberScript scene per variant (OUT_DIR/NAME.amber),
of fragment shaders that all start at word `y >> 3` (y the pixel row) of
a 4096-word storage buffer:
  ring         idx = d[idx], d[i] = (i + 1) % 4096 (E24's)
  ring_branch  ring and `if (idx == u.never) hit += 1.0` (E24's)
  and_after    idx = d[idx] & 4095u, d[i] = i + 1 (E24's)
  held0        register_pressure's loop without its held values:
               next = d[idx]; if (next == u.never) hit += 1.0;
               idx = next & 4095u
  held1        register_pressure's fs_held1 (its vec4 loaded from a
               second buffer before the loop, added to in the never-taken
               branch, used after it), on its own buffers
each drawn on squares of 128 and 256 pixels a side (512 and 2048 warps of
4x8 pixels on the H200's 4 graphics SMs, FINDINGS.md Q1 and Q2) at 0, 64
and 1024 steps (a uniform block), each draw run twice (the second
counts). On the GPU machine run_e26_h200.sh runs each scene twice
(run_scenes_h200.sh: run1/, run2/), sampling the SM clock through the
runs. `summary` gives per run, variant and square the three draws' times,
the cycles per step (the 1024- and 64-step draws' difference over 960
steps), that per warp load on one SM, and what the 64-step draw took
beyond the 0-step draw and 64 such steps. `model` runs the scene in
timing mode with the h200 preset; `model-table` puts the model's times
and steps beside the H200's.

Standard library only.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)
from readme_section import (  # noqa: E402
    experiment_main, record_model_run, model_caption)
import device_clocks  # noqa: E402
import e24_chase_steps as e24  # noqa: E402

SIDES = (128, 256)
STEPS = (0, 64, 1024)
GRAPHICS_SMS = 4
HELD0_LOOP = ("  for (int i = 0; i < u.n; ++i) {\n"
              "    uint next = data.d[idx];\n"
              "    if (next == u.never) hit += 1.0;\n"
              "    idx = next & 4095u;\n  }\n")
# register_pressure.amber's fs_held1 (samples/timing_families/
# make_families.py), on this scene's bindings.
HELD1 = ("#version 450\nlayout(location = 0) out vec4 color;\n" + e24.PARAMS +
         "layout(set = 0, binding = 2) readonly buffer Vecs { vec4 v[]; } "
         "vecs;\n"
         "void main() {\n"
         "  ivec2 p = ivec2(gl_FragCoord.xy);\n"
         "  vec4 held[1];\n"
         "  for (int k = 0; k < 1; ++k) held[k] = vecs.v[(p.x + k * 5) & 63];\n"
         "  uint idx = uint(p.y >> 3) & 4095u;\n"
         "  for (int i = 0; i < u.n; ++i) {\n"
         "    uint next = data.d[idx];\n"
         "    if (next == u.never) {\n"
         "      for (int k = 0; k < 1; ++k) held[k] += 1.0;\n"
         "    }\n"
         "    idx = next & 4095u;\n"
         "  }\n"
         "  vec4 s = vec4(float(idx));\n"
         "  for (int k = 0; k < 1; ++k) s = s * 0.5 + held[k];\n"
         "  color = fract(s * 0.001);\n}\n")
# name: (shader source, data buffer)
VARIANTS = {
    "ring": (e24.shader("fragment", e24.VARIANTS["ring"][2]), "ring1"),
    "ring_branch": (e24.shader("fragment", e24.VARIANTS["ring_branch"][2]),
                    "ring1"),
    "and_after": (e24.shader("fragment", e24.VARIANTS["and_after"][2]),
                  "series"),
    "held0": (e24.shader("fragment", HELD0_LOOP), "series"),
    "held1": (HELD1, "series"),
}


def warps(side):
    return side * side // 32


def pipe_name(name, side, n):
    return "%s_s%d_%d" % (name, side, n)


def scene():
    """One scene per variant (its six draws), so that each runs in a
    process of about a second: a run of all 30 draws in one scene had the
    driver lower the SM clock part way (the record's README)."""
    side_max = max(SIDES)
    scenes = {}
    for name, (src, data) in VARIANTS.items():
        lines = ["#!amber",
                 "# GENERATED by vulkan_ref/experiments/e26_chase_draw.py "
                 "scene:",
                 "# register_pressure's K = 1 draw taken apart (its "
                 "docstring): variant %s." % name,
                 "SHADER vertex vs PASSTHROUGH",
                 "SHADER fragment s_%s GLSL\n%sEND" % (name, src)]
        for n in STEPS:
            lines.append("BUFFER n%d DATA_TYPE uint32 DATA %d 4294967295 END"
                         % (n, n))
        if data == "series":
            lines.append("BUFFER series DATA_TYPE uint32 SIZE %d SERIES_FROM "
                         "1 INC_BY 1" % e24.WORDS)
        else:
            lines.append(e24.data_lines(data, 1))
        lines.append("BUFFER vecs DATA_TYPE vec4<float> SIZE 64 SERIES_FROM "
                     "0.25 INC_BY 0.125")
        lines.append("IMAGE frame FORMAT B8G8R8A8_UNORM DIM_2D WIDTH %d "
                     "HEIGHT %d" % (side_max, side_max))
        runs = []
        for side in SIDES:
            for n in STEPS:
                pipe = pipe_name(name, side, n)
                lines.append(
                    "PIPELINE graphics %s\n  ATTACH vs\n  ATTACH s_%s\n"
                    "  FRAMEBUFFER_SIZE %d %d\n"
                    "  BIND BUFFER frame AS color LOCATION 0\n"
                    "  BIND BUFFER n%d AS uniform DESCRIPTOR_SET 0 BINDING 0\n"
                    "  BIND BUFFER %s AS storage DESCRIPTOR_SET 0 BINDING 1\n"
                    "  BIND BUFFER vecs AS storage DESCRIPTOR_SET 0 BINDING 2\n"
                    "END" % (pipe, name, side_max, side_max, n, data))
                runs += ["RUN %s DRAW_RECT POS 0 0 SIZE %d %d" % (
                    pipe, side, side)] * 2
        scenes[name] = "\n".join(lines + runs) + "\n"
    return scenes


def rows_of(times, scale):
    """Per variant and square: the three draws' times (in the unit of
    TIMES), the cycles per step between the 64- and 1024-step draws, and
    the 64-step draw's cycles beyond the 0-step draw and 64 steps; SCALE
    (a number, or one per variant) turns TIMES into cycles."""
    rows = []
    lo, mid, hi = STEPS
    for name in VARIANTS:
        k = scale[name] if isinstance(scale, dict) else scale
        for side in SIDES:
            t = [times[pipe_name(name, side, n)] for n in STEPS]
            step = (t[2] - t[1]) * k / (hi - mid)
            rows.append({
                "variant": name, "side": side, "warps": warps(side),
                "times": t, "cycles": [x * k for x in t],
                "cycles_per_step": round(step, 2),
                "cycles_per_warp_load_per_sm": round(
                    step / (warps(side) / GRAPHICS_SMS), 3),
                "excess_cycles_64": round(
                    (t[1] - t[0]) * k - (mid - lo) * step, 1),
            })
    return rows


def summary(record):
    """RECORD: what run_scenes_h200.sh wrote (run1/, run2/: each variant's
    report; the clock samples and run times beside them)."""
    s = device_clocks.scene_runs(record, VARIANTS, rows_of, "e26_chase_draw.py")
    s["record"] = os.path.relpath(record, ROOT)
    return s


def table(s):
    run1, run2 = s["runs"]["run1"], s["runs"]["run2"]
    out = ["Device: %s, driver %s; `%s`, run1 (run2 beside it). Times in SM "
           "cycles at the SM clock sampled while each scene ran (every 20 "
           "ms, the median; %s). Cycles per step: (time at 1024 steps - "
           "time at 64) / 960; per warp load on one SM: that over the warps "
           "each of the %d graphics SMs gets; excess at 64: the 64-step "
           "draw's cycles beyond the 0-step draw's and 64 steps.\n" %
           (s["device"].get("name", "?"), s["device"].get("driver_info", "?"),
            s["record"], device_clocks.note(s["runs"]), GRAPHICS_SMS),
           "| variant | square | warps | ns at 0 | ns at 64 | ns at 1024 | "
           "cycles per step | run2 | per warp load on one SM | excess at 64 "
           "|", "|---|---|---|---|---|---|---|---|---|---|"]
    for r, r2 in zip(run1["rows"], run2["rows"]):
        out.append("| %s | %dx%d | %d | %.0f | %.0f | %.0f | %.1f | %.1f | "
                   "%.2f | %.0f |" % (
                       (r["variant"], r["side"], r["side"], r["warps"]) +
                       tuple(r["times"]) +
                       (r["cycles_per_step"], r2["cycles_per_step"],
                        r["cycles_per_warp_load_per_sm"],
                        r["excess_cycles_64"])))
    return "\n".join(out) + "\n"


SCENES = os.path.join(ROOT, "samples", "h200", "e26_chase_draw")
MODEL_JSON = os.path.join(ROOT, "samples", "h200", "e26_chase_draw",
                          "timing-vs-h200.json")


def model(warpsim, out):
    return record_model_run(
        warpsim, [os.path.join(SCENES, name + ".amber") for name in VARIANTS],
        out, "e26_chase_draw.py", ROOT)


def model_table(record, model_json):
    s = summary(record)
    m, caption = model_caption(model_json, ROOT)
    mrows = {(r["variant"], r["side"]): r for r in rows_of(m["cycles"], 1.0)}
    out = ["%s; H200: `%s`. Cycles per step "
           "and excess at 64 as above; draw at 64: the 64-step draw's "
           "cycles, model over H200.\n" %
           (caption, s["record"]),
           "| variant | square | H200 cycles per step | model cycles per step "
           "| model / H200 | H200 excess at 64 | model excess at 64 | draw at "
           "64, model / H200 |", "|---|---|---|---|---|---|---|---|"]
    for r in s["runs"]["run1"]["rows"]:
        e = mrows[(r["variant"], r["side"])]
        out.append("| %s | %dx%d | %.1f | %.1f | %.2f | %.0f | %.0f | %.2f |"
                   % (r["variant"], r["side"], r["side"], r["cycles_per_step"],
                      e["cycles_per_step"],
                      e["cycles_per_step"] / r["cycles_per_step"],
                      r["excess_cycles_64"], e["excess_cycles_64"],
                      e["cycles"][1] / r["cycles"][1]))
    return "\n".join(out) + "\n"


def main():
    return experiment_main(__doc__, scene, summary, table, "e26",
                           "e26_chase_draw.py", MODEL_JSON, model,
                           model_table)


if __name__ == "__main__":
    sys.exit(main())
