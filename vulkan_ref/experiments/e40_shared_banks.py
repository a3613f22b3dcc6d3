#!/usr/bin/env python3
"""E40, what a warp's load of workgroup (shared) memory costs by how its
lanes' words fall in the 32 banks: compute shaders of 1024 invocations,
two workgroups on each SM (64 warps), whose loops differ only in the
words each lane reads.

  vulkan_ref/experiments/e40_shared_banks.py scene OUT_DIR
  vulkan_ref/experiments/e40_shared_banks.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e40_shared_banks.py table RECORD_DIR
      [--update README.md | --check README.md]
  vulkan_ref/experiments/e40_shared_banks.py model --warpsim BIN
      [-o samples/h200/e40_shared_banks/timing-vs-h200.json]
  vulkan_ref/experiments/e40_shared_banks.py model-table RECORD
      [MODEL.json] [--update README.md | --check README.md]

Why: shared memory has 32 banks of 4 bytes (REFERENCE §1.3), and lanes
that read different words of one bank wait for each other, a classic
cost of GPU code; the timing model charged a shared load its latency
whatever its lanes read. E39 (vulkan_ref/results/h100/README.md) found
the L1, which is the same array, delivering a global load's data one
wavefront a cycle per SM, as many as its words pile up in one bank.
E40 times the same for shared memory.

`scene` writes an AmberScript scene a variant into OUT_DIR (NAME.amber):
two compute pipelines whose shader loops n = 32 and 256 times (a uniform
block), each dispatched as 264 workgroups of 1024 invocations (2 on each of
the 132 SMs; 32 KB of shared memory each). The shader
fills its 8192 shared words, waits at a barrier, and then adds one
shared word a trip to a sum it writes out at the end (`none`: the trip's
number instead, no load). The word a lane reads: a block of 1024 words
chosen by the trip ((5 i) mod 8), in it the lane's offset (lane: the
invocation's index mod 32) times the variant's stride:

  uniform   0: every lane one word (a broadcast);
  s1        1: 32 consecutive words, a bank each;
  s2 s4 s8 s16 s32   2 .. 32: 2 .. 32 words in each bank used;
  s33       33: every lane its own bank, words 33 apart;
  st_s1 st_s8 st_s32 st_s33   a store of the sum a trip at stride 1, 8,
            32, 33, the sum stepped (s = 3 s + 1) after it (st_none: the
            step alone), then a barrier and a load of the invocation's
            own word after the loop, which keep the stores.

`summary` gives per variant the SM cycles per step, (time at 256 - time
at 32) / 224 at the SM clock sampled through the run, and the SM cycles
per warp load: that over the 64 warps of each SM, less `none`'s (the
loop's own; the stores less `st_none`'s). `model` runs the scenes in timing mode with the h200
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

STEPS = (32, 256)
SMS = 132
GROUPS = 2 * SMS
INVOCATIONS = 1024
WARPS_PER_SM = GROUPS * INVOCATIONS // 32 // SMS
WORDS = 8192
BLOCK = 1024
# name: (stride, words in the fullest bank)
STRIDES = {"uniform": (0, 1), "s1": (1, 1), "s2": (2, 2), "s4": (4, 4),
           "s8": (8, 8), "s16": (16, 16), "s32": (32, 32), "s33": (33, 1)}
# Stores: the same strides, each trip storing the sum and stepping it
# (st_none: the step alone).
STORES = ("s1", "s8", "s32", "s33")
VARIANTS = (["none"] + list(STRIDES) + ["st_none"] +
            ["st_" + v for v in STORES])


def shader(variant):
    after = ""
    if variant == "none":
        body, stride = "s += uint(i);", 0
    elif variant.startswith("st_"):
        # (The barrier and the load after the loop keep the stores.)
        body = "s = s * 3u + 1u;"
        stride = 0
        if variant != "st_none":
            stride = STRIDES[variant[3:]][0]
            body = ("sh[((uint(i) * 5u) & 7u) * %du + off] = s;\n    " %
                    BLOCK + body)
        after = "  barrier();\n  s += sh[t];\n"
    else:
        body = "s += sh[((uint(i) * 5u) & 7u) * %du + off];" % BLOCK
        stride = STRIDES[variant][0]
    return ("#version 450\n"
            "layout(local_size_x = %d) in;\n" % INVOCATIONS +
            "layout(set = 0, binding = 0) uniform Params { int n; } u;\n"
            "layout(set = 0, binding = 1) buffer Out { uint o[]; } outb;\n"
            "shared uint sh[%d];\n" % WORDS +
            "void main() {\n"
            "  uint t = gl_LocalInvocationIndex;\n"
            "  for (uint k = t; k < %du; k += %du) sh[k] = k;\n" % (
                WORDS, INVOCATIONS) +
            "  barrier();\n"
            "  uint off = (t & 31u) * %du;\n" % stride +
            "  uint s = t + off;\n"
            "  for (int i = 0; i < u.n; ++i) {\n"
            "    %s\n  }\n" % body + after +
            "  outb.o[gl_GlobalInvocationID.x] = s;\n}\n")


def scene():
    """One scene a variant (few pipelines to build before its dispatches:
    vulkan_ref/experiments/device_clocks.py)."""
    out = {}
    for name in VARIANTS:
        lines = ["#!amber",
                 "# GENERATED by vulkan_ref/experiments/e40_shared_banks.py "
                 "scene:",
                 "# a warp's shared load by the banks its lanes read (its "
                 "docstring).",
                 "SHADER compute s_%s GLSL\n%sEND" % (name, shader(name))]
        for n in STEPS:
            lines.append("BUFFER n%d DATA_TYPE int32 DATA %d END" % (n, n))
        lines.append("BUFFER out DATA_TYPE uint32 SIZE %d FILL 0" % (
            GROUPS * INVOCATIONS))
        runs = []
        for n in STEPS:
            pipe = "%s_%d" % (name, n)
            lines.append(
                "PIPELINE compute %s\n  ATTACH s_%s\n"
                "  BIND BUFFER n%d AS uniform DESCRIPTOR_SET 0 BINDING 0\n"
                "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1\n"
                "END" % (pipe, name, n))
            runs.append("RUN %s %d 1 1" % (pipe, GROUPS))
        out[name] = "\n".join(lines + runs) + "\n"
    return out


def pattern(variant):
    """A load's or store's variant's STRIDES entry."""
    return variant[3:] if variant.startswith("st_") else variant


def rows_of(times, scale):
    """Per variant: SM cycles per step and per warp load or store (less
    none's, the stores less st_none's); SCALE (a number, or one per scene)
    turns TIMES into cycles."""
    return access_steps.rows_of(
        times, scale, VARIANTS, STEPS, WARPS_PER_SM,
        lambda v: "st_none" if v.startswith("st_") else "none")


def summary(record):
    """RECORD: what run_scenes_h200.sh wrote (run1/, run2/: each scene's
    report; the clock samples and run times beside them)."""
    s = device_clocks.scene_runs(record, VARIANTS, rows_of,
                                 "e40_shared_banks.py")
    s["record"] = os.path.relpath(record, ROOT)
    return s


def wavefront_fit(s):
    """The cycles of a shared wavefront from a summary S (the mean of its
    runs): the least-squares slope through 0 of the SM cycles per warp
    trip (loop included) against the words in the fullest bank, over the
    loads and stores with at least 4 there (whose accesses, not the
    loop's issue, bound the dispatch). {"cycles", "bound": [(variant,
    words, cycles)]}."""
    words = {v: STRIDES[pattern(v)][1] for v in VARIANTS
             if v not in ("none", "st_none")}
    slope, bound = access_steps.slope_fit(
        s, [(v, w) for v, w in words.items() if w >= 4])
    return {"cycles": slope, "bound": bound}


def describe(name):
    if name in ("none", "st_none"):
        return "-", "-"
    stride, words = STRIDES[pattern(name)]
    return str(stride), str(words)


def table(s):
    return access_steps.table(
        s, STEPS, "each scene",
        "per warp load (or store): that over the %d warps of each SM, less "
        "none's (the loop without a load; the stores less st_none's)." %
        WARPS_PER_SM, ("stride (words)", "words a bank"), describe)


SCENES = os.path.join(ROOT, "samples", "h200", "e40_shared_banks")
MODEL_JSON = os.path.join(SCENES, "timing-vs-h200.json")


def model(warpsim, out):
    return access_steps.model(warpsim, SCENES, VARIANTS, out,
                              "e40_shared_banks.py", ROOT)


def model_table(record, model_json):
    return access_steps.model_table(
        summary(record), model_json, ROOT, lambda c: rows_of(c, 1.0),
        "SM cycles per warp load")


def main():
    return experiment_main(__doc__, scene, summary, table, "e40",
                           "e40_shared_banks.py", MODEL_JSON, model,
                           model_table)


if __name__ == "__main__":
    sys.exit(main())
