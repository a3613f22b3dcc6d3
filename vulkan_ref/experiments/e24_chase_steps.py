#!/usr/bin/env python3
"""E24, what one step of a dependent chain of loads costs a fragment warp,
taken apart: the same walk written several ways, each timed at 1024 and
2048 steps.

  vulkan_ref/experiments/e24_chase_steps.py scene OUT.amber
  vulkan_ref/experiments/e24_chase_steps.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e24_chase_steps.py table RECORD_DIR
      [--update README.md | --check README.md]
  vulkan_ref/experiments/e24_chase_steps.py model --warpsim BIN
      [-o samples/h200/e24_chase_steps/timing-vs-h200.json]
  vulkan_ref/experiments/e24_chase_steps.py model-table RECORD
      [MODEL.json] [--update README.md | --check README.md]

Why: fragment-chase-2026-12-03 found a step of `idx = d[idx] & 4095u` in
a fragment shader (one sector, an L1 hit) about twice what the timing
model gives it, and more than E2's Vulkan chase (`p = next[p]`, 16 steps
written out per trip) although the walk adds only a mask. The
register_pressure family of samples/timing_families walks that chain.

`scene` writes one AmberScript scene: per variant two draws of an 8x8
rectangle (2 fragment warps, too few to hide anything) whose every pixel
walks the chain from the same start, n = 1024 and 2048 steps (a uniform
block), each run twice (the second counts: its lines are in the L1, as
the device's repeats of a draw find them); the step's cycles are the
difference of the two draws' times over 1024 steps. Variants (d: a 4096-word storage buffer):

  and_after    idx = d[idx] & 4095u; d[i] = i + 1 (fragment_chase's)
  and_before   idx = d[idx & 4095u]; d[i] = i + 1
  ring         idx = d[idx]; d[i] = (i + 1) % 4096 (no arithmetic)
  ring_line    idx = d[idx]; d[i] = (i + 32) % 4096 (each step a new line)
  ring_sector  idx = d[idx]; d[i] = (i + 8) % 4096 (each step a new sector,
               4 steps in a line)
  ring_self    idx = d[idx]; d[i] = i (each step the same word)
  ring_r16     ring, 16 steps written out per trip of the loop
  ring_branch  ring, and `if (idx == u.never) ...` after each load, never
               taken (register_pressure's loop)
  ring_cs      ring in a compute shader of one warp

On the H200 (run_e24_h200.sh, into RECORD_DIR) `warpsim-vkref run
OUT.amber --device nvidia --repeat 15 --json e24.json` records each draw's
GPU time (the median of 15); `summary` turns each pair into cycles per
step at the SM clock nvidia-smi read after the runs. `model` runs the
scene in timing mode with the h200 preset; `model-table` puts the model's
steps beside the H200's.

Standard library only.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)
from readme_section import (  # noqa: E402
    experiment_main, record_model_run, model_caption)
import device_clocks  # noqa: E402

WORDS = 4096
STEPS = (1024, 2048)
PARAMS = ("layout(set = 0, binding = 0) uniform Params { int n; uint never; } "
          "u;\nlayout(set = 0, binding = 1) readonly buffer Data { uint d[]; } "
          "data;\n")
R16 = "".join("    idx = data.d[idx];\n" for _ in range(16))
# name: (stage, data, loop)
VARIANTS = {
    "and_after": ("fragment", "series",
                  "  for (int i = 0; i < u.n; ++i) "
                  "idx = data.d[idx] & 4095u;\n"),
    "and_before": ("fragment", "series",
                   "  for (int i = 0; i < u.n; ++i) "
                   "idx = data.d[idx & 4095u];\n"),
    "ring": ("fragment", "ring1",
             "  for (int i = 0; i < u.n; ++i) idx = data.d[idx];\n"),
    "ring_line": ("fragment", "ring32",
                  "  for (int i = 0; i < u.n; ++i) idx = data.d[idx];\n"),
    "ring_sector": ("fragment", "ring8",
                    "  for (int i = 0; i < u.n; ++i) idx = data.d[idx];\n"),
    "ring_self": ("fragment", "ring0",
                  "  for (int i = 0; i < u.n; ++i) idx = data.d[idx];\n"),
    "ring_r16": ("fragment", "ring1",
                 "  for (int i = 0; i < u.n; i += 16) {\n" + R16 + "  }\n"),
    "ring_branch": ("fragment", "ring1",
                    "  for (int i = 0; i < u.n; ++i) {\n"
                    "    idx = data.d[idx];\n"
                    "    if (idx == u.never) hit += 1.0;\n  }\n"),
    "ring_cs": ("compute", "ring1",
                "  for (int i = 0; i < u.n; ++i) idx = data.d[idx];\n"),
}


def shader(stage, loop):
    if stage == "fragment":
        return ("#version 450\nlayout(location = 0) out vec4 color;\n" + PARAMS +
                "void main() {\n  float hit = 0.0;\n"
                "  uint idx = uint(gl_FragCoord.y) >> 3;\n" + loop +
                "  color = vec4(float(idx & 255u) / 255.0, hit, 0.0, 1.0);\n}\n")
    return ("#version 450\nlayout(local_size_x = 32) in;\n" + PARAMS +
            "layout(set = 0, binding = 2) buffer Out { uint o[]; } result;\n"
            "void main() {\n  float hit = 0.0;\n"
            "  uint idx = gl_LocalInvocationIndex >> 5;\n" + loop +
            "  result.o[gl_LocalInvocationIndex] = idx + uint(hit);\n}\n")


def data_lines(name, step):
    words = [(i + step) % WORDS for i in range(WORDS)]
    rows = [" ".join(str(w) for w in words[i:i + 16])
            for i in range(0, WORDS, 16)]
    return "BUFFER %s DATA_TYPE uint32 DATA\n%s\nEND" % (name, "\n".join(rows))


def scene():
    lines = ["#!amber",
             "# GENERATED by vulkan_ref/experiments/e24_chase_steps.py scene:",
             "# one dependent chain of loads written several ways (its "
             "docstring), 1024 and 2048 steps each.",
             "SHADER vertex vs PASSTHROUGH"]
    for name, (stage, _, loop) in VARIANTS.items():
        lines.append("SHADER %s s_%s GLSL\n%sEND" % (stage, name,
                                                      shader(stage, loop)))
    for n in STEPS:
        lines.append("BUFFER n%d DATA_TYPE uint32 DATA %d 4294967295 END" % (
            n, n))
    lines.append("BUFFER series DATA_TYPE uint32 SIZE %d SERIES_FROM 1 "
                 "INC_BY 1" % WORDS)
    lines.append(data_lines("ring1", 1))
    lines.append(data_lines("ring32", 32))
    lines.append(data_lines("ring8", 8))
    lines.append(data_lines("ring0", 0))
    lines.append("BUFFER out DATA_TYPE uint32 SIZE 32 FILL 0")
    lines.append("IMAGE frame FORMAT B8G8R8A8_UNORM DIM_2D WIDTH 8 HEIGHT 8")
    runs = []
    for name, (stage, data, _) in VARIANTS.items():
        for n in STEPS:
            pipe = "%s_%d" % (name, n)
            if stage == "fragment":
                lines.append(
                    "PIPELINE graphics %s\n  ATTACH vs\n  ATTACH s_%s\n"
                    "  FRAMEBUFFER_SIZE 8 8\n"
                    "  BIND BUFFER frame AS color LOCATION 0\n"
                    "  BIND BUFFER n%d AS uniform DESCRIPTOR_SET 0 BINDING 0\n"
                    "  BIND BUFFER %s AS storage DESCRIPTOR_SET 0 BINDING 1\nEND"
                    % (pipe, name, n, data))
                runs += ["RUN %s DRAW_RECT POS 0 0 SIZE 8 8" % pipe] * 2
            else:
                lines.append(
                    "PIPELINE compute %s\n  ATTACH s_%s\n"
                    "  BIND BUFFER n%d AS uniform DESCRIPTOR_SET 0 BINDING 0\n"
                    "  BIND BUFFER %s AS storage DESCRIPTOR_SET 0 BINDING 1\n"
                    "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 2\n"
                    "END" % (pipe, name, n, data))
                runs += ["RUN %s 1 1 1" % pipe] * 2
    return "\n".join(lines + runs) + "\n"


def steps_of(times, scale):
    """Cycles per step of each variant: the difference of its two runs
    over the steps between them, times `scale` (cycles per time unit)."""
    out = {}
    for name in VARIANTS:
        a, b = times["%s_%d" % (name, STEPS[0])], times["%s_%d" % (name,
                                                                  STEPS[1])]
        out[name] = round((b - a) * scale / (STEPS[1] - STEPS[0]), 2)
    return out


def summary(record):
    report, mhz = device_clocks.record_report(record, "e24", "e24_chase_steps.py")
    # The last of a pipeline's runs (the second).
    times = {d["pipeline"]: d["gpu_time_ns"]
             for d in report["draws"] + report.get("dispatches", [])}
    return {"device": report.get("device", {}),
            "record": os.path.relpath(record, ROOT), "sm_mhz": mhz,
            "times_ns": times, "cycles_per_step": steps_of(times, mhz / 1000)}


def table(s):
    out = ["Device: %s, driver %s; `%s`; SM clock %.0f MHz (nvidia-smi after "
           "the runs). Cycles per step: (time at 2048 steps - time at 1024) "
           "/ 1024, in SM cycles.\n" %
           (s["device"].get("name", "?"), s["device"].get("driver_info", "?"),
            s["record"], s["sm_mhz"]),
           "| variant | stage | ns at 1024 | ns at 2048 | cycles per step |",
           "|---|---|---|---|---|"]
    for name, (stage, _, _) in VARIANTS.items():
        out.append("| %s | %s | %.0f | %.0f | %.1f |" % (
            name, stage, s["times_ns"]["%s_%d" % (name, STEPS[0])],
            s["times_ns"]["%s_%d" % (name, STEPS[1])],
            s["cycles_per_step"][name]))
    return "\n".join(out) + "\n"


SCENE = os.path.join(ROOT, "samples", "h200", "e24_chase_steps", "e24.amber")
MODEL_JSON = os.path.join(ROOT, "samples", "h200", "e24_chase_steps",
                          "timing-vs-h200.json")


def model(warpsim, out, scene=SCENE, tool="e24_chase_steps.py"):
    """Runs SCENE in timing mode (the h200 preset) and records each run's
    cycles in OUT, with the warpsim commit, the date and the command."""
    return record_model_run(warpsim, scene, out, tool, ROOT)


def model_table(record, model_json):
    s = summary(record)
    m, caption = model_caption(model_json, ROOT)
    model_steps = steps_of(m["cycles"], 1.0)
    out = ["%s; H200: `%s`. Cycles per step, "
           "as above, on each side.\n" %
           (caption, s["record"]),
           "| variant | stage | H200 cycles per step | model cycles per step "
           "| model / H200 |", "|---|---|---|---|---|"]
    for name, (stage, _, _) in VARIANTS.items():
        h, e = s["cycles_per_step"][name], model_steps[name]
        out.append("| %s | %s | %.1f | %.1f | %.2f |" % (name, stage, h, e,
                                                          e / h))
    return "\n".join(out) + "\n"


def main():
    return experiment_main(__doc__, scene, summary, table, "e24",
                           "e24_chase_steps.py", MODEL_JSON, model,
                           model_table)


if __name__ == "__main__":
    sys.exit(main())
