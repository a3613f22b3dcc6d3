#!/usr/bin/env python3
"""The timing model against the H200: the microbenchmark scenes of this
folder run with `warpsim run --timing`, measured the way cuda_ref measured
the H200, side by side with cuda_ref's recorded values.

CUDA times a region inside the kernel (clock64 around the timed loop); a
warpsim report gives a dispatch's cycles from first warp launch to last
retire, which also holds the warm-up and the set-up. So every emulated
figure here is a difference: the same scene generated (by make_scenes.py's
own functions) with two lengths of the timed part, and the cycles of the
longer minus those of the shorter, divided by the steps or operations
added. That is what CUDA's in-kernel figure is: cycles per step of the
timed part.

    samples/microbench/timing_vs_h200.py [--warpsim build/warpsim]
        [--out samples/microbench/results/timing-vs-h200.json]
    samples/microbench/timing_vs_h200.py --update samples/microbench/README.md \\
        samples/microbench/results/timing-vs-h200.json

The first form runs the scenes (about a minute) and writes the JSON (with
the warpsim commit, the date and the command); the second writes the
table between "<!-- table timing-vs-h200 -->" and its end marker.
"""

import argparse
import datetime
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tools"))
import chase_vulkan  # noqa: E402
import loops_vulkan  # noqa: E402
import make_scenes  # noqa: E402
from readme_section import replace_section  # noqa: E402

RUN = "cuda_ref/results/h200/2026-11-30"
# The same SPIR-V chases timed on the H200 through Vulkan (chase_vulkan.py).
VK_CHASE = "vulkan_ref/results/h200/e2-chase-2026-12-03"
# E31's and E32's loops timed the same way (loops_vulkan.py).
VK_LOOPS = "vulkan_ref/results/h200/loops-2026-12-05"


def same_spirv_loops(experiment, pipeline):
    """The fields of a row timed on the H200 through Vulkan with the same
    SPIR-V (loops_vulkan.py's table of VK_LOOPS), or none."""
    rows, mhz = loops_vulkan.table(ROOT / VK_LOOPS)
    cycles = rows.get((experiment, pipeline))
    if cycles is None:
        return {}
    return {"h200_same_spirv": cycles,
            "h200_same_spirv_source": "%s (loops_vulkan.py table, %s %s, SM "
                                      "clock %d MHz)" % (
                                          VK_LOOPS, experiment, pipeline, mhz)}


def cuda(name):
    with open(ROOT / RUN / name) as f:
        return json.load(f)["results"]


def sass_count(name, function, mnemonic):
    """How many instructions of `mnemonic` (e.g. "LDC") the function whose
    mangled name contains `function` holds in the run's SASS listing
    `name` (cuobjdump -sass, gzipped)."""
    count, inside = 0, False
    with gzip.open(ROOT / RUN / name, "rt") as f:
        for line in f:
            if "Function :" in line:
                inside = function in line
            elif inside and re.search(r"\*/\s+(@!?U?P\w+\s+)?%s\b"
                                      % re.escape(mnemonic), line):
                count += 1
    return count


# The scenes mirror CUDA kernels, whose `#pragma unroll 1` loops nvcc keeps
# rolled: their [[dont_unroll]] loops run rolled (the h200 preset, which is
# NVIDIA's Vulkan driver's, unrolls short ones whatever they ask: E34).
# cuda_ref's programs copy their data to the GPU once, before a warm-up
# launch on every SM, which leaves its lines on every side of the L2;
# vulkan_ref's runner writes a draw's or dispatch's buffers before each one,
# and their first reads find them on no side (the preset's
# memory.uploads_per_run and l2_uploads_far: cuda_ref's E49) and each SM
# translating their addresses anew (memory.translation_per_run: vulkan_ref's
# E56); a CUDA program's warm-up launch leaves its SMs the translations.
CUDA_TIMING = {"honour_dont_unroll": True,
               "memory": {"uploads_per_run": False,
                          "translation_per_run": False,
                          "l2_uploads_far": False}}


# The E31-E33 kernels address their words as `data + index`, which ptxas
# computes with one IMAD.WIDE ahead of the load, where NVIDIA's Vulkan
# compiler takes longer for a storage buffer's access chain (the preset's
# buffer_address, from E2's SPIR-V chase): those scenes run with the
# latency ptxas wrote into that IMAD.WIDE (cuda_address_latency()).
E31_SASS = "cuda_ref/results/h200/2026-12-05-e31-chase-branch/" \
    "e31_chase_branch.sass.gz"


def cuda_address_latency():
    """The stall count of the instruction that computes the address of
    the load in E31's plain chase loop (ChaseKernel<0>: IMAD.WIDE.U32
    before LDG), read with cuda_ref/results/sass_control.py: the cycles
    ptxas lets pass from the address to the load."""
    sys.path.insert(0, str(ROOT / "cuda_ref" / "results"))
    import sass_control  # noqa: E402
    with gzip.open(ROOT / E31_SASS, "rt") as f:
        functions = sass_control.parse(f.read())
    for name, code in functions:
        if "ChaseKernelILi0E" not in name:
            continue
        for k, inst in enumerate(code):
            if inst["opcode"].startswith("LDG") and k > 0:
                addr = re.search(r"\[(R\d+)\.64\]", inst["operands"])
                prev = code[k - 1]
                if addr and prev["opcode"].startswith("IMAD.WIDE") and \
                        prev["operands"].split()[1].rstrip(",") == addr.group(1):
                    return prev["stall"]
    raise RuntimeError("%s: no IMAD.WIDE before ChaseKernel<0>'s LDG" % E31_SASS)


def gpu_config(path, timing=None):
    """Writes the h200 preset with CUDA_TIMING (and `timing`) to `path`."""
    with open(path, "w") as f:
        json.dump({"preset": "h200", "timing": {**CUDA_TIMING,
                                                **(timing or {})}}, f)
    return path


def run_scene(warpsim, scene, preset=False, timing=None):
    """Runs a make_scenes Scene in timing mode, with CUDA_TIMING (and
    `timing`) unless `preset` (the h200 preset as it is); returns
    {pipeline: cycles} of its dispatches (the scene must pass)."""
    # The scene's shader paths are relative to this folder: write it here.
    fd, path = tempfile.mkstemp(prefix=".timing_", suffix=".amber", dir=HERE)
    report = path + ".json"
    config = path + ".config.json"
    try:
        with os.fdopen(fd, "w") as f:
            f.write(scene.text())
        gpu_config(config, timing)
        r = subprocess.run([warpsim, "run", path, "--timing", "--quiet",
                            "--shader-cache", "off", "--json", report] +
                           ([] if preset else ["--gpu-config", config]),
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("%s failed (%d): %s%s" % (
                scene.name, r.returncode, r.stdout, r.stderr))
        with open(report) as f:
            rep = json.load(f)
    finally:
        for p in (path, report, config):
            if os.path.exists(p):
                os.remove(p)
    return [(d["pipeline"], d["cycles"]) for d in rep["dispatches"]]


def with_setting(module_attr, value, make):
    old = getattr(make_scenes, module_attr)
    setattr(make_scenes, module_attr, value)
    try:
        return make()
    finally:
        setattr(make_scenes, module_attr, old)


def e2(warpsim):
    rows = []
    sweep = cuda("e2_latency.json")
    same_spirv, mhz = chase_vulkan.table(ROOT / VK_CHASE)
    for kind, label in (("global", "ca"), ("shared", "shared")):
        short = with_setting("E2_STEPS", 1 << 14,
                             lambda: run_scene(warpsim, make_scenes.scene_e2(kind)))
        long_ = with_setting("E2_STEPS", 1 << 15,
                             lambda: run_scene(warpsim, make_scenes.scene_e2(kind)))
        added = (1 << 15) - (1 << 14)
        for (name, c1), (_, c2) in zip(short, long_):
            tag = name.split("_")[-1]  # 6k, 24k, 384k
            footprint = int(tag[:-1]) * 1024
            if kind == "global":
                ref = [r for r in sweep["sweep"]
                       if r["load"] == "ca" and r["footprint_bytes"] == footprint]
                level = "L1" if footprint <= 192 * 1024 else "L2"
            else:
                ref = sweep["shared"]
                level = "shared"
            h200 = sorted(r["cycles_per_step"] for r in ref)
            h200 = h200[len(h200) // 2] if h200 else None
            rows.append({
                "experiment": "E2", "what": "pointer chase, %s, %s" % (level, tag),
                "unit": "cycles per step",
                "emulated": (c2 - c1) / added, "h200": h200,
                "h200_source": "%s/e2_latency.json %s%s" % (
                    RUN, "sweep" if kind == "global" else "shared",
                    " footprint %d load ca" % footprint if kind == "global"
                    else " (median of the footprints)"),
                "h200_same_spirv": same_spirv.get((kind, tag)),
                "h200_same_spirv_source": "%s (chase_vulkan.py table, "
                                          "SM clock %d MHz)" % (VK_CHASE, mhz),
                "note": ("a SPIR-V step is OpAccessChain into a storage "
                         "buffer (buffer_address: this chase through Vulkan "
                         "less CUDA's) + OpLoad; CUDA's is one load through "
                         "a 64-bit pointer" if kind == "global" else
                         "a SPIR-V step is OpAccessChain (alu, 4 cycles) + "
                         "OpLoad; CUDA's is one load through a pointer")})
    return rows


# What a SPIR-V step of each E3 scene is where it differs from the SASS
# step CUDA timed (the shaders' headers, shaders/microbench/e3_*.comp).
E3_NOTES = {
    "imad": "SPIR-V step: OpIMul + OpIAdd, one IMAD in SASS; the model "
            "issues the pair as one (fuse_pairs)",
    "lop3": "SPIR-V step: OpBitwiseAnd + OpBitwiseXor, one LOP3 in SASS; "
            "issued as one (fuse_pairs)",
    "ex2": "SPIR-V step: OpFNegate + Exp2; SASS folds the negation into "
           "MUFU.EX2's operand, the model too (fuse_pairs)",
    "sin": "SASS step: FMUL.RZ + MUFU.SIN (range reduction); the model "
           "gives sin and cos sfu_trig's figures, measured on this step",
    "iadd3": "the H200's IADD3 chain was compiled partly to IMAD.IADD "
             "(FMA pipe); the model issues an integer add to the FMA pipe "
             "(imul figures) while the ALU pipe is busy (split_int_adds): "
             "one add per cycle from ILP 2 on; its latency is the ALU's",
}


def hbm_scene(footprint, steps):
    """The E2 global chase over a chain too large for an inline buffer:
    Amber's SERIES_FROM 32 INC_BY 1 makes word w hold w + 32, so the walk
    from word 0 visits every 32nd word (128 bytes apart), as the sweep's
    chain does; a first dispatch points the last element back to the first
    (word 0). Then, as the sweep: a warm-up walk of the whole chain (its
    elements, at most 2^20), which ends back at element 0, and `steps`."""
    words = footprint // 4
    elements = words // 32
    warmup = min(elements, make_scenes.E2_WARMUP_CAP)
    s = make_scenes.Scene("e2_hbm", "\nE2 global chase over %d MB "
                          "(timing_vs_h200.py).\n" % (footprint >> 20))
    s.add(make_scenes.shader("e2_pointer_chase"))
    s.add("SHADER compute close_chain GLSL\n#version 450\n"
          "layout(local_size_x = 1) in;\n"
          "layout(std430, set = 0, binding = 0) buffer Chain "
          "{ uint next[]; };\n"
          "void main() { next[next.length() - 32] = 0u; }\nEND\n")
    s.add("BUFFER chain DATA_TYPE uint32 SIZE %d SERIES_FROM 32 INC_BY 1\n"
          "BUFFER params DATA_TYPE uint32 DATA %d %d END\n"
          "BUFFER out DATA_TYPE uint32 SIZE 2 FILL 0\n"
          % (words, warmup, steps))
    s.add(make_scenes.pipeline("close", "close_chain", ["chain"]))
    s.add(make_scenes.pipeline("chase_hbm", "e2_pointer_chase",
                               ["chain", "params", "out"]))
    s.add("RUN close 1 1 1\n")
    s.add("RUN chase_hbm 1 1 1\n")
    s.add("EXPECT out IDX 0 EQ %d %d" % (warmup % elements,
                                         (warmup + steps) % elements))
    return s


def e2_beyond_l2(warpsim):
    rows = []
    sweep = cuda("e2_latency.json")["sweep"]
    for mb in (32, 64):
        footprint = mb << 20
        c1 = dict(run_scene(warpsim, hbm_scene(footprint, 1 << 14)))[
            "chase_hbm"]
        c2 = dict(run_scene(warpsim, hbm_scene(footprint, 1 << 15)))[
            "chase_hbm"]
        ref = [r for r in sweep
               if r["load"] == "ca" and r["footprint_bytes"] == footprint]
        rows.append({
            "experiment": "E2", "what": "pointer chase, %d MB" % mb,
            "unit": "cycles per step",
            "emulated": (c2 - c1) / ((1 << 15) - (1 << 14)),
            "h200": ref[0]["cycles_per_step"] if ref else None,
            "h200_source": "%s/e2_latency.json sweep footprint %d load ca"
                           % (RUN, footprint),
            "note": "past the part of the L2 one SM sees at L2 latency "
                    "(l2_bytes, LRU: a longer chain misses it at every "
                    "step), within the whole L2 (l2_far_bytes)"
                    if mb == 32 else "past the whole L2: DRAM"})
    return rows


def e3(warpsim):
    rows = []
    latency = cuda("e3_instructions.json")["latency"]
    names = {"ffma": "FFMA", "fadd": "FADD", "imad": "IMAD", "iadd3": "IADD3",
             "lop3": "LOP3", "rcp": "MUFU.RCP", "ex2": "MUFU.EX2",
             "sin": "MUFU.SIN", "dfma": "DFMA"}
    for op in make_scenes.e3_ops():
        r1, r2 = 9, 17
        short = with_setting("E3_REPS", r1,
                             lambda: run_scene(warpsim, make_scenes.scene_e3(op)))
        long_ = with_setting("E3_REPS", r2,
                             lambda: run_scene(warpsim, make_scenes.scene_e3(op)))
        for (name, c1), (_, c2) in zip(short, long_):
            ilp = int(name.replace("ilp", ""))
            ops = (r2 - r1) * make_scenes.E3_BODY * ilp
            ref = [r for r in latency
                   if r["op"].upper() == names[op].split(".")[-1] or
                   r["op"].upper() == names[op]]
            ref = [r for r in ref if r["ilp"] == ilp]
            rows.append({
                "experiment": "E3", "what": "%s ILP %d" % (names[op], ilp),
                "unit": "cycles per step of one chain",
                "emulated": (c2 - c1) / ops,
                "h200": ref[0]["cycles_per_op"] if ref else None,
                "h200_source": "%s/e3_instructions.json latency op %s ilp %d"
                               % (RUN, ref[0]["op"] if ref else names[op], ilp),
                "note": E3_NOTES.get(op, "")})
    return rows


def slope(points):
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    return (sum((x - mx) * (y - my) for x, y in points) /
            sum((x - mx) ** 2 for x, _ in points))


class Warmed:
    """A make_scenes Scene whose every RUN runs twice: the second is the
    one measured, its buffers in the caches, as cuda_ref's in-kernel clock
    starts after the kernel loaded its parameters."""

    def __init__(self, scene):
        self.name = scene.name
        self._text = scene.text()

    def text(self):
        return "".join(line + line if line.startswith("RUN ") else line
                       for line in self._text.splitlines(True))


def warmed_runs(warpsim, scene):
    """{pipeline: cycles} of the second run of each (Warmed)."""
    return dict(run_scene(warpsim, Warmed(scene)))


def e6(warpsim):
    """E6 as cuda_ref measured it: cycles per serialized FFMA (the
    least-squares slope over the two-way configurations that run any), per
    path more (P paths of n FFMA each) and per leaf more (nested depth 3
    against 2). The scenes' loops are [[dont_unroll]], as CUDA's
    `#pragma unroll 1` keeps E6's."""
    rows = []
    div = cuda("e6_divergence.json")
    src = "%s/e6_divergence.json" % RUN
    emu, h200 = [], []
    two_way = warmed_runs(warpsim, make_scenes.scene_e6_two_way())
    for k, na, nb in make_scenes.E6_TWO_WAY:
        cycles = two_way["two_way_k%d_a%d_b%d" % (k, na, nb)]
        ref = [r for r in div["two_way"]
               if (r["k"], r["n_a"], r["n_b"]) == (k, na, nb)][0]
        if ref["serialized_ffma"] == 0:
            continue
        emu.append((ref["serialized_ffma"], cycles))
        h200.append((ref["serialized_ffma"], ref["cycles_median"]))
    rows.append({
        "experiment": "E6", "what": "two-way divergence: per serialized FFMA",
        "unit": "cycles", "emulated": slope(emu), "h200": slope(h200),
        "h200_source": src + " two_way cycles_median (the same fit)",
        "note": "least-squares slope over the %d two_way configurations that "
                "run FFMA, on both sides (a dispatch that runs none never "
                "waits for its loaded constant, which CUDA's in-kernel clock "
                "does not see either way); every E6 figure is of a second, "
                "warm run of its dispatch" % len(emu)})
    paths = warmed_runs(warpsim, make_scenes.scene_e6_paths())
    nested = warmed_runs(warpsim, make_scenes.scene_e6_nested())
    for n in (64, 256):
        ref = {r["p"]: r["cycles_median"] for r in div["paths"] if r["n"] == n}
        rows.append({
            "experiment": "E6", "what": "paths of %d FFMA: per path more" % n,
            "unit": "cycles",
            "emulated": (paths["paths_p32_n%d" % n] -
                         paths["paths_p2_n%d" % n]) / 30,
            "h200": (ref[32] - ref[2]) / 30,
            "h200_source": src + " paths n %d cycles_median, P 32 against 2"
                           % n,
            "note": "P 32 against P 2, per path"})
        ref = {r["depth"]: r["cycles_median"] for r in div["nested"]
               if r["n"] == n}
        rows.append({
            "experiment": "E6",
            "what": "nested leaves of %d FFMA: per leaf more" % n,
            "unit": "cycles",
            "emulated": (nested["nested_d3_n%d" % n] -
                         nested["nested_d2_n%d" % n]) / 4,
            "h200": (ref[3] - ref[2]) / 4,
            "h200_source": src + " nested n %d cycles_median, depth 3 "
                           "against 2" % n,
            "note": "depth 3 (8 leaves) against depth 2 (4), per leaf; on "
                    "the H200 a nested leaf costs more than a flat path of "
                    "the same FFMA (the rows above). The CUDA kernels differ "
                    "there from the SPIR-V, which loads the trip count once "
                    "before the nest: in the run's SASS (e6_divergence.sass"
                    ".gz) E6Nested<3> holds %d LDC (constant loads) and "
                    "E6Nested<2> %d, one more per added leaf (each leaf "
                    "reloads the trip count and waits for it), where "
                    "E6Paths<32>, with 32 paths, holds %d" % tuple(
                        sass_count("e6_divergence.sass.gz", f, "LDC")
                        for f in ("E6NestedILi3E", "E6NestedILi2E",
                                  "E6PathsILi32E"))})
    return rows


E18_RUN = "cuda_ref/results/h200/2026-12-02-e18-warp-order"
E18_WARPS = [8, 20, 32]


def e18_scene(warps):
    """One workgroup of `warps` warps, each thread a chain of 4096
    dependent FFMA (shaders/microbench/e5_ffma_chain.comp, E5's kernel as
    E18 runs it: one block per SM)."""
    return "\n".join([
        "#!amber",
        "SHADER compute e5_ffma_chain GLSL FILE %s"
        % (ROOT / "shaders" / "microbench" / "e5_ffma_chain.comp"),
        "BUFFER params DATA_TYPE uint32 DATA 0x3f7fbe77 0x3f000000 16 END",
        "BUFFER out DATA_TYPE uint32 SIZE %d FILL 0" % (warps * 32),
        "PIPELINE compute timed",
        "  ATTACH e5_ffma_chain SPECIALIZE 0 AS uint32 %d SPECIALIZE 1 AS "
        "uint32 0" % (warps * 32),
        "  BIND BUFFER params AS storage DESCRIPTOR_SET 0 BINDING 0",
        "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1",
        "END",
        "RUN timed 1 1 1"]) + "\n"


def e18(warpsim):
    """When each warp of one block finishes (E18): the timing model on one
    SM, per warp its launch and retire from the trace, as E18's clocks
    after the block's first barrier and after each warp's last store."""
    with open(ROOT / E18_RUN / "e18_warp_order.json") as f:
        ref = {r["warps_per_sm"]: r
               for r in json.load(f)["results"]["ffma"]}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        config = gpu_config(os.path.join(tmp, "one_sm.json"),
                            {"sms": 1, "graphics_sms": 1})
        for w in E18_WARPS:
            scene = os.path.join(tmp, "e18.amber")
            trace = os.path.join(tmp, "trace.json")
            with open(scene, "w") as f:
                f.write(e18_scene(w))
            r = subprocess.run([warpsim, "run", scene, "--timing", "--quiet",
                                "--shader-cache", "off", "--gpu-config",
                                config, "--trace", trace, "--trace-detail",
                                "warps"], capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError("e18 W=%d failed (%d): %s%s" % (
                    w, r.returncode, r.stdout, r.stderr))
            with open(trace) as f:
                t = json.load(f)
            events = t["traceEvents"] if isinstance(t, dict) else t
            warps = [e for e in events if e.get("ph") == "X" and
                     e.get("args", {}).get("stage") == "compute"]
            start = min(e["ts"] for e in warps)
            ends = sorted(e["ts"] + e["dur"] - start for e in warps)
            span = ends[-1]
            src = "%s/e18_warp_order.json results.ffma warps_per_sm %d" % (
                E18_RUN, w)
            what = "FFMA chains, one block of %d warps" % w
            note = ("the fraction of the block's span at which a warp ended "
                    "(a strict oldest-first scheduler leaves the youngest "
                    "warps until the others end)")
            rows += [
                {"experiment": "E18", "what": what + ": IPC",
                 "unit": "FFMA per cycle per SM",
                 "emulated": w * 4096 / span, "h200": ref[w]["ipc_mean"],
                 "h200_source": src + " ipc_mean", "note": ""},
                {"experiment": "E18", "what": what + ": first warp end",
                 "unit": "fraction of the span", "emulated": ends[0] / span,
                 "h200": ref[w]["first_end_mean"],
                 "h200_source": src + " first_end_mean", "note": note},
                {"experiment": "E18", "what": what + ": median warp end",
                 "unit": "fraction of the span",
                 "emulated": ends[(len(ends) - 1) // 2] / span,
                 "h200": ref[w]["median_end_mean"],
                 "h200_source": src + " median_end_mean", "note": note}]
    return rows


E19_RUN = "cuda_ref/results/h200/2026-12-02-e19-instruction-fetch"


def e19(warpsim):
    """Loops of N independent FFMA, one warp per sub-partition (E19): the
    cycles per instruction, from two runs of different trip counts (their
    difference leaves out the first pass over the code and the launch)."""
    with open(ROOT / E19_RUN / "e19_instruction_fetch.json") as f:
        ref = {r["body_instructions"]: r for e in
               json.load(f)["results"]["ffma"] if e["warps_per_sm"] == 4
               for r in e["rows"]}
    short = with_setting("E19_INSTRUCTIONS", 32768,
                         lambda: run_scene(warpsim, make_scenes.scene_e19()))
    long_ = with_setting("E19_INSTRUCTIONS", 65536,
                         lambda: run_scene(warpsim, make_scenes.scene_e19()))
    rows = []
    for (name, c1), (_, c2) in zip(short, long_):
        n = int(name.replace("n", ""))
        trips = (max(8, 65536 // n) - max(8, 32768 // n))
        r = ref.get(n)
        rows.append({
            "experiment": "E19",
            "what": "loop of %d independent FFMA (%d KB of code), one warp "
                    "per sub-partition" % (n, n * 16 // 1024),
            "unit": "cycles per instruction",
            "emulated": (c2 - c1) / (trips * n),
            "h200": r["cycles_per_instruction_per_subpartition"] if r else None,
            "h200_source": "%s/e19_instruction_fetch.json results.ffma "
                           "warps_per_sm 4 body_instructions %d" % (E19_RUN, n),
            "note": E19_NOTE})
    return rows


E19_NOTE = ("the sub-partition's instruction cache (icache_bytes, 4 ways, "
            "LRU) and one line fetched at a time (icache_fill_cycles)")


E31_RUN = "cuda_ref/results/h200/2026-12-05-e31-chase-branch"


def e31(warpsim):
    """register_pressure's loop as a compute chase (E31): one workgroup of
    W warps walking the same word, the next word or the next line, with no
    test, a predicated and a branched never-taken body; cycles per trip
    from two runs of different trip counts."""
    with open(ROOT / E31_RUN / "e31_chase_branch.json") as f:
        ref = {(v["walk"], v["body"], r["warps_per_sm"]): r["cycles_per_trip"]
               for v in json.load(f)["results"]["variants"] for r in v["rows"]}
    # CUDA's kernel walks one lap of the 4096-word ring (4096 trips) after
    # a warm-up launch: its words are in the L2, and its L1 starts empty
    # (vulkan_ref's E36: a kernel or dispatch does not find the L1 lines of
    # the one before). Its cycles per trip are the loop's span over the
    # lap: here the run of a lap less the run of no trip, over the lap.
    lap = make_scenes.E31_WORDS
    indexed = {"buffer_address": {"latency": cuda_address_latency()}}
    short = with_setting("E31_TRIPS", 0, lambda: run_scene(
        warpsim, make_scenes.scene_e31(), timing=indexed))
    long_ = with_setting("E31_TRIPS", lap, lambda: run_scene(
        warpsim, make_scenes.scene_e31(), timing=indexed))
    # As the Vulkan driver compiles the same SPIR-V (the preset as it is),
    # timed as loops_vulkan.py timed it (the 256 trips of a second lap
    # beyond a whole one: the record's runs were 4096 and 8192 trips, both
    # past the first lap, so their difference is L1 hits).
    short_p = with_setting("E31_TRIPS", lap, lambda: run_scene(
        warpsim, make_scenes.scene_e31(), preset=True))
    long_p = with_setting("E31_TRIPS", lap + 256, lambda: run_scene(
        warpsim, make_scenes.scene_e31(), preset=True))
    rows = []
    for (name, c1), (_, c2), (_, p1), (_, p2) in zip(short, long_, short_p,
                                                      long_p):
        walk, rest = name.split("_", 1)
        body, w = rest.rsplit("_w", 1)
        rows.append({
            "experiment": "E31",
            "what": "chase through the %s, body %s, %s warp%s" % (
                {"same": "same word", "next": "next word",
                 "line": "next line"}[walk], body, w,
                "" if w == "1" else "s"),
            "unit": "cycles per trip",
            "emulated": (c2 - c1) / lap,
            "h200": ref.get((walk, body, int(w))),
            "h200_source": "%s/e31_chase_branch.json walk %s body %s "
                           "warps_per_sm %s" % (E31_RUN, walk, body, w),
            **same_spirv_loops("e31", name),
            "emulated_preset": (p2 - p1) / 256,
            "note": E31_NOTE})
    return rows


E31_NOTE = ("register_pressure's loop: the L1 empty at the kernel's "
            "start (l1_invalidated_per_run, l2_holds_uploads), the "
            "branch waits (branch, selection_sync_*, predicate_latency, "
            "static_loop_test), global_load_issue_cycles, ptxas's address "
            "latency")


E32_RUN = "cuda_ref/results/h200/2026-12-05-e32-issue-slots"
E33_RUN = "cuda_ref/results/h200/2026-12-05-e33-memory-slots"


def slot_rows(warpsim, experiment, run, name, trips_setting, scene,
              same_spirv):
    """Loops of K FFMA with one more instruction per trip (E32, E33), one
    workgroup of W warps: cycles per trip from two runs of different trip
    counts (make_scenes' `trips_setting` 64 and 128), beside the record's
    (`run`/`name`.json); `same_spirv`: whether loops_vulkan.py timed the
    scene too."""
    with open(ROOT / run / (name + ".json")) as f:
        ref = {(v["variant"], r["warps_per_sm"]): r["cycles_per_trip"]
               for v in json.load(f)["results"]["variants"] for r in v["rows"]}
    indexed = {"buffer_address": {"latency": cuda_address_latency()}}
    short = with_setting(trips_setting, 64,
                         lambda: run_scene(warpsim, scene(), timing=indexed))
    long_ = with_setting(trips_setting, 128,
                         lambda: run_scene(warpsim, scene(), timing=indexed))
    # As the Vulkan driver compiles the same SPIR-V (the preset as it is).
    preset = [with_setting(trips_setting, n, lambda: run_scene(
        warpsim, scene(), preset=True)) for n in (64, 128)] if same_spirv \
        else [short, long_]
    rows = []
    for (pipe, c1), (_, c2), (_, p1), (_, p2) in zip(short, long_, *preset):
        variant, w = pipe.rsplit("_w", 1)
        row = {
            "experiment": experiment,
            "what": "%s, %s warp%s" % (variant, w, "" if w == "1" else "s"),
            "unit": "cycles per trip",
            "emulated": (c2 - c1) / 64,
            "h200": ref.get((variant, int(w))),
            "h200_source": "%s/%s.json variant %s warps_per_sm %s" % (
                run, name, variant, w),
        }
        if same_spirv:
            row.update(same_spirv_loops(experiment.lower(), pipe))
            row["emulated_preset"] = (p2 - p1) / 64
        row["note"] = E32_NOTE if experiment == "E32" else E33_NOTE
        rows.append(row)
    return rows


def e32(warpsim):
    """E32's loops (make_scenes.scene_e32), also timed through Vulkan."""
    return slot_rows(warpsim, "E32", E32_RUN, "e32_issue_slots", "E32_TRIPS",
                     make_scenes.scene_e32, True)


def e33(warpsim):
    """E33's loops (make_scenes.scene_e33): one memory instruction of a
    kind per trip."""
    return slot_rows(warpsim, "E33", E33_RUN, "e33_memory_slots",
                     "E33_TRIPS", make_scenes.scene_e33, False)


E32_NOTE = ("a trip's issue slots: fma, alu, lsu and branch intervals, "
            "selection_sync_slots, global_load_issue_cycles, static_loop_test")
E33_NOTE = ("a trip's issue slots: fma, alu, lsu and branch intervals, "
            "memory.*_issue_cycles and issue_hold_slack_cycles, l1_latency, "
            "shared_latency, static_loop_test")


def measure(args):
    rows = (e2(args.warpsim) + e2_beyond_l2(args.warpsim) + e3(args.warpsim) +
            e6(args.warpsim) + e18(args.warpsim) + e19(args.warpsim) +
            e31(args.warpsim) + e32(args.warpsim) + e33(args.warpsim))
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain",
                            "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    out = {
        "generated_by": "samples/microbench/timing_vs_h200.py",
        "command": " ".join(sys.argv),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"),
        "warpsim_commit": commit + ("-dirty" if dirty else ""),
        "gpu_config": "h200 preset (emulator/runner/presets/h200_timing.json) "
                      "with %s (E31-E33 also buffer_address latency %d, "
                      "ptxas's in %s); emulated_preset: the preset as it is" %
                      (", ".join("%s %s" % (k, json.dumps(v))
                                 for k, v in sorted(CUDA_TIMING.items())),
                       cuda_address_latency(), E31_SASS),
        "h200_run": RUN,
        "rows": rows,
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(table(out), end="")
    return 0


def table(data):
    lines = ["Recorded %s by warpsim %s with the %s, against %s; `%s`." % (
        data["date"], data["warpsim_commit"][:12], data["gpu_config"],
        data["h200_run"], "samples/microbench/results/timing-vs-h200.json"),
        "",
        "| experiment | what | unit | emulated | H200 | emulated / H200 | within 10 % | H200, same SPIR-V (Vulkan) | emulated, preset | emulated / that | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|"]
    within = total = same_within = same_total = 0
    for r in data["rows"]:
        ratio = r["emulated"] / r["h200"] if r["h200"] else None
        ok = ratio is not None and abs(ratio - 1) <= 0.10
        total += 1
        within += ok
        vk = r.get("h200_same_spirv")
        # The Vulkan driver's code for it: the preset as it is, where the
        # row has that run (else the same figure).
        mine = r.get("emulated_preset", r["emulated"])
        same_total += vk is not None
        same_within += vk is not None and abs(mine / vk - 1) <= 0.10
        lines.append("| %s | %s | %s | %.2f | %s | %s | %s | %s | %s | %s | %s |" % (
            r["experiment"], r["what"], r["unit"], r["emulated"],
            "%.2f" % r["h200"] if r["h200"] is not None else "-",
            "%.2f" % ratio if ratio is not None else "-",
            "yes" if ok else "no",
            "%.2f" % vk if vk is not None else "",
            "%.2f" % mine if vk is not None else "",
            "%.2f" % (mine / vk) if vk is not None else "",
            r["note"]))
    lines += ["", "%d of %d within 10 %% of the CUDA figures; of the rows "
              "also timed through Vulkan with the same SPIR-V (E2's chases, "
              "`%s`; E31's and E32's loops, `%s`), %d of %d within 10 %%." % (
                  within, total, VK_CHASE, VK_LOOPS, same_within, same_total)]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warpsim", default=str(ROOT / "build" / "warpsim"))
    ap.add_argument("--out", default=str(HERE / "results" / "timing-vs-h200.json"))
    ap.add_argument("--update", nargs=2, metavar=("README", "RESULT"))
    args = ap.parse_args()
    if args.update:
        with open(args.update[1]) as f:
            data = json.load(f)
        return replace_section(args.update[0], "<!-- table timing-vs-h200 -->",
                               "<!-- end table timing-vs-h200 -->",
                               table(data), "timing_vs_h200.py")
    return measure(args)


if __name__ == "__main__":
    sys.exit(main())
