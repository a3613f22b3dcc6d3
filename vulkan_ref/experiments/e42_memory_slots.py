#!/usr/bin/env python3
"""E42, what a compute warp's memory instruction takes of the issue when
64 warps share an SM, through Vulkan: cuda_ref's E33 loops (16
independent FMAs a trip in 4 chains, and one memory access a trip)
written as compute shaders, whose code NVIDIA's Vulkan driver compiles.

  vulkan_ref/experiments/e42_memory_slots.py scene OUT_DIR
  vulkan_ref/experiments/e42_memory_slots.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e42_memory_slots.py table RECORD_DIR
      [--update README.md | --check README.md]
  vulkan_ref/experiments/e42_memory_slots.py model --warpsim BIN
      [-o samples/h200/e42_memory_slots/timing-vs-h200.json]
  vulkan_ref/experiments/e42_memory_slots.py model-table RECORD
      [MODEL.json] [--update README.md | --check README.md]

Why: cuda_ref's E33 found that with 64 warps on an SM a kernel's memory
instructions take issue slots beyond their own (a shared store about 2,
a global store about 9, a global load about 3), and the timing model
holds a compute warp's issue that long (`memory.*_issue_cycles` in the
h200 preset). vulkan_ref's E40 timed shared stores in a Vulkan compute
loop of integer arithmetic and saw none of the shared store's hold: the
model took 1.31-1.37 of the GPU's time there. E42 times E33's own loops
through Vulkan, so that the two APIs' figures for one kind of loop sit
side by side.

`scene` writes an AmberScript scene a variant into OUT_DIR (NAME.amber):
two compute pipelines whose shader loops n = 32 and 256 times (a uniform
block), each dispatched as 264 workgroups of 1024 invocations (2 on each
of the 132 SMs: 64 warps an SM). A trip runs 16 FMAs on four floats (4
chains of 4, each x = x x - 1/4) and, by variant:

  ffma16   nothing more (E33's ffma_k16);
  lds      a load of workgroup memory, every lane the same word (zeros),
           its value in the next trip's address and added to a chain
           (E33's lds_word);
  sts      a store of the trip's number into workgroup memory, each lane
           its own word, the other of two 128-byte rows each trip
           (E33's sts_lanes);
  ldg      a load of a storage buffer word (zeros), every lane the same,
           its value in the next trip's address and added to a chain
           (E33's ldg_word);
  stg      a store of the trip's number into a storage buffer, each lane
           its own word, the other of the warp's two 128-byte lines each
           trip (E33's stg_lanes).

Whether the floats left [-1, 1], the loaded word and a workgroup word
read after a barrier (which keeps the workgroup stores) are written out
after the loop.

`summary` gives per variant the SM cycles per step, (time at 256 - time
at 32) / 224 at the SM clock sampled through the run, and the SM cycles
per warp access: that over the 64 warps of each SM, less ffma16's (the
loop without an access); times 4 (the sub-partitions), the issue slots a
warp's access and its address arithmetic take. `model` runs the scenes
in timing mode with the h200 preset; `model-table` puts the model's
cycles beside the GPU's.

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

STEPS = (32, 256)
SMS = 132
GROUPS = 2 * SMS
INVOCATIONS = 1024
WARPS_PER_SM = GROUPS * INVOCATIONS // 32 // SMS
SHARED_WORDS = 256  # 1 KB, as E33's
DATA_WORDS = 1024
# name: (E33's variant, the trip's access)
VARIANTS = {
    "ffma16": ("ffma_k16", ""),
    "lds": ("lds_word",
            "w = sh[w & %du];\n    x0 += uintBitsToFloat(w);\n" %
            (SHARED_WORDS - 1)),
    "sts": ("sts_lanes",
            "sh[(uint(i) & 1u) * 32u + lane] = uint(i);\n"),
    "ldg": ("ldg_word",
            "w = data.d[w & %du];\n    x0 += uintBitsToFloat(w);\n" %
            (DATA_WORDS - 1)),
    "stg": ("stg_lanes",
            "outb.o[warp * 64u + (uint(i) & 1u) * 32u + lane] = uint(i);\n"),
}
NAMES = list(VARIANTS)


def shader(variant):
    access = VARIANTS[variant][1]
    # (x x - 1/4, not x a + b: the driver folds a chain of the latter
    # into one FMA with the constants multiplied out; the floats stay in
    # [-1/4, 1/4], and only whether they left it is written out, the same
    # in the emulator and any driver whatever its rounding.)
    fmas = "".join("    x%d = x%d * x%d - 0.25;\n" % (c, c, c)
                   for _ in range(4) for c in range(4))
    return ("#version 450\n"
            "layout(local_size_x = %d) in;\n" % INVOCATIONS +
            "layout(set = 0, binding = 0) uniform Params { int n; } u;\n"
            "layout(set = 0, binding = 1) buffer Out { uint o[]; } outb;\n"
            "layout(set = 0, binding = 2) readonly buffer Data { uint d[]; } "
            "data;\n"
            "shared uint sh[%d];\n" % SHARED_WORDS +
            "void main() {\n"
            "  uint t = gl_LocalInvocationIndex;\n"
            "  uint g = gl_GlobalInvocationID.x;\n"
            "  uint lane = t & 31u;\n"
            "  uint warp = g >> 5;\n"
            "  if (t < %du) sh[t] = 0u;\n" % SHARED_WORDS +
            "  barrier();\n"
            "  float x0 = float(g & 7u) * 0.03125, x1 = 0.0625, x2 = 0.125, "
            "x3 = 0.1875;\n"
            "  uint w = data.d[0];\n"
            "  for (int i = 0; i < u.n; ++i) {\n" + fmas +
            ("    " + access if access else "") +
            "  }\n"
            "  barrier();\n"
            "  w += sh[lane];\n"
            "  outb.o[%du + g] = (abs(x0 + x1 + x2 + x3) > 1.0 ? 1u : 0u) + "
            "w;\n"
            "}\n" % (GROUPS * INVOCATIONS * 2))


def scene():
    """One scene a variant (few pipelines to build before its dispatches:
    vulkan_ref/experiments/device_clocks.py)."""
    out = {}
    for name in NAMES:
        lines = ["#!amber",
                 "# GENERATED by vulkan_ref/experiments/e42_memory_slots.py "
                 "scene:",
                 "# cuda_ref E33's loop with one memory access a trip, "
                 "through Vulkan (its docstring).",
                 "SHADER compute s_%s GLSL\n%sEND" % (name, shader(name))]
        for n in STEPS:
            lines.append("BUFFER n%d DATA_TYPE int32 DATA %d END" % (n, n))
        lines.append("BUFFER out DATA_TYPE uint32 SIZE %d FILL 0" % (
            GROUPS * INVOCATIONS * 3))
        lines.append("BUFFER data DATA_TYPE uint32 SIZE %d FILL 0" %
                     DATA_WORDS)
        runs = []
        for n in STEPS:
            pipe = "%s_%d" % (name, n)
            lines.append(
                "PIPELINE compute %s\n  ATTACH s_%s\n"
                "  BIND BUFFER n%d AS uniform DESCRIPTOR_SET 0 BINDING 0\n"
                "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1\n"
                "  BIND BUFFER data AS storage DESCRIPTOR_SET 0 BINDING 2\n"
                "END" % (pipe, name, n))
            runs.append("RUN %s %d 1 1" % (pipe, GROUPS))
        out[name] = "\n".join(lines + runs) + "\n"
    return out


def rows_of(times, scale):
    """Per variant: SM cycles per step and per warp access (less
    ffma16's); SCALE (a number, or one per scene) turns TIMES into
    cycles."""
    return access_steps.rows_of(times, scale, NAMES, STEPS, WARPS_PER_SM,
                                lambda v: "ffma16")


def summary(record):
    """RECORD: what run_scenes_h200.sh wrote (run1/, run2/: each scene's
    report; the clock samples and run times beside them)."""
    s = device_clocks.scene_runs(record, NAMES, rows_of,
                                 "e42_memory_slots.py")
    s["record"] = os.path.relpath(record, ROOT)
    return s


def describe(name):
    return (VARIANTS[name][0],)


def table(s):
    return access_steps.table(
        s, STEPS, "each scene",
        "per warp access: that over the %d warps of each SM, less ffma16's "
        "(the loop without an access)." % WARPS_PER_SM,
        ("cuda_ref E33's",), describe)


SCENES = os.path.join(ROOT, "samples", "h200", "e42_memory_slots")
MODEL_JSON = os.path.join(SCENES, "timing-vs-h200.json")


def model(warpsim, out):
    return access_steps.model(warpsim, SCENES, NAMES, out,
                              "e42_memory_slots.py", ROOT)


def model_table(record, model_json):
    return access_steps.model_table(
        summary(record), model_json, ROOT, lambda c: rows_of(c, 1.0),
        "SM cycles per warp access")


def main():
    return experiment_main(__doc__, scene, summary, table, "e42",
                           "e42_memory_slots.py", MODEL_JSON, model,
                           model_table)


if __name__ == "__main__":
    sys.exit(main())
