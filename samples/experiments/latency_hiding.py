"""Latency hiding on one SM, as cuda_ref's E5 measures it on the H200
(cuda_ref/src/e5_hiding.cu, results e5_hiding.json), for experiments 05
and 07: the same kernels as SPIR-V (shaders/microbench/e5_loads.comp,
e5_ffma_chain.comp) run in timing mode on a GPU configuration of one SM
(the h200 preset otherwise), workgroups of 2 warps (so that up to 64 warps
fit the SM's 32 block slots), and the H200's curves from the record.
"""
import json
import os
import tempfile

import common

SHADERS = os.path.join(common.ROOT, "shaders", "microbench")
LOAD_ITERATIONS = 256  # per warp: even 2 warps read 256 KB > L1 (128 KB)
RING_WORDS = 1 << 22   # 16 MB, as E5's L2-resident ring
# From HBM: a 64 MB ring, more than the L2 holds, read from its start (at
# most 8 MB: 64 warps x 256 iterations x 512 bytes). A buffer the host
# uploads leaves its last L2-sized part in the L2 and the rest in DRAM
# (memory.l2_holds_uploads), so every load of the run misses the L2, as
# E5's loads of a 4 GB buffer do.
HBM_RING_WORDS = 1 << 24
FFMA_LOOPS = 16        # x 256: 4096 dependent FFMA per thread, as E5
# One SM; its data uploaded once, as cuda_ref's programs copy theirs once
# before their launches (the h200 preset uploads a run's buffers before
# each run, as vulkan_ref's runner does: memory.uploads_per_run), so that
# the first of two identical dispatches leaves the second its lines.
ONE_SM = {"preset": "h200",
          "timing": {"sms": 1, "graphics_sms": 1,
                     "memory": {"uploads_per_run": False,
                                "translation_per_run": False}}}


def _pipeline(name, attach, buffers):
    lines = ["PIPELINE compute %s" % name, "  ATTACH %s" % attach]
    lines += ["  BIND BUFFER %s AS storage DESCRIPTOR_SET 0 BINDING %d"
              % (b, i) for i, b in enumerate(buffers)]
    return lines + ["END"]


def loads_scene(groups, l2_resident):
    """Each warp LOAD_ITERATIONS dependent iterations of one 16-byte load
    per lane. L2-resident: the same dispatch twice, the second timed (the
    first fills L2); otherwise once, from the start of HBM_RING_WORDS,
    every load missing to HBM."""
    ring_words = RING_WORDS if l2_resident else HBM_RING_WORDS
    elements = ring_words // 4
    lines = ["#!amber",
             "# samples/experiments/latency_hiding.py: %d workgroups of 2 "
             "warps, each warp %d dependent iterations of one 16-byte load "
             "per lane (%s)." % (groups, LOAD_ITERATIONS,
                                 "L2-resident" if l2_resident else "from HBM"),
             "SHADER compute e5_loads GLSL FILE %s/e5_loads.comp" % SHADERS,
             "BUFFER params DATA_TYPE uint32 DATA %d 0 %d END" % (
                 LOAD_ITERATIONS, elements - 1),
             "BUFFER ring DATA_TYPE uint32 SIZE %d SERIES_FROM 0 INC_BY 1"
             % ring_words,
             "BUFFER out DATA_TYPE uint32 SIZE %d FILL 0" % (groups * 64)]
    names = ["fill_l2", "timed"] if l2_resident else ["timed"]
    for name in names:
        lines += _pipeline(name, "e5_loads SPECIALIZE 0 AS uint32 64 "
                           "SPECIALIZE 1 AS uint32 1 SPECIALIZE 2 AS uint32 1",
                           ["params", "ring", "ring", "out"])
    lines += ["RUN %s %d 1 1" % (n, groups) for n in names]
    return "\n".join(lines) + "\n"


def ffma_scene(groups):
    """Each thread a dependent chain of FFMA_LOOPS x 256 FFMA; the same
    dispatch twice, the second timed (its parameters cached)."""
    lines = ["#!amber",
             "# samples/experiments/latency_hiding.py: %d workgroups of 2 "
             "warps, each thread %d dependent FFMA." % (groups, FFMA_LOOPS * 256),
             "SHADER compute e5_ffma_chain GLSL FILE %s/e5_ffma_chain.comp"
             % SHADERS,
             "BUFFER params DATA_TYPE uint32 DATA 0x3f7fbe77 0x3f000000 %d END"
             % FFMA_LOOPS,
             "BUFFER out DATA_TYPE uint32 SIZE %d FILL 0" % (groups * 64)]
    for name in ("warm", "timed"):
        lines += _pipeline(name, "e5_ffma_chain SPECIALIZE 0 AS uint32 64 "
                           "SPECIALIZE 1 AS uint32 0", ["params", "out"])
    lines += ["RUN warm %d 1 1" % groups, "RUN timed %d 1 1" % groups]
    return "\n".join(lines) + "\n"


class OneSm:
    """The one-SM GPU configuration, as a file for --gpu-config; `timing`:
    more members of its "timing" object."""

    def __init__(self, timing=None):
        self.config = json.loads(json.dumps(ONE_SM))
        self.config["timing"].update(timing or {})

    def __enter__(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json",
                                         delete=False) as f:
            json.dump(self.config, f)
            self.path = f.name
        return self.path

    def __exit__(self, *exc):
        os.remove(self.path)


def emulate(warpsim, config, kind, warps, registers=32, scheduler=None):
    """`warps` warps of work (kind: "l2", "hbm" or "ffma") at `registers`
    per thread on one SM: the timed dispatch's rate (bytes per cycle for
    loads, FFMA warp instructions per cycle for ffma) and the warps the
    occupancy rules let be resident. `scheduler`: --scheduler (the
    preset's when None)."""
    groups = warps // 2
    text = ffma_scene(groups) if kind == "ffma" else \
        loads_scene(groups, kind == "l2")
    rep = common.run_scene(warpsim, text,
                           ["--gpu-config", config,
                            "--regs-per-thread", str(registers)] +
                           (["--scheduler", scheduler] if scheduler else []),
                           "%s_w%d_r%d" % (kind, warps, registers))
    d = rep["dispatches"][-1]
    if kind == "ffma":
        work = groups * 2 * FFMA_LOOPS * 256  # FFMA warp instructions
    else:
        work = groups * 64 * LOAD_ITERATIONS * 16  # bytes
    resident = round(d["theoretical_occupancy"] * 64)
    return {"warps": warps, "registers": registers,
            "resident_warps": min(resident, warps), "cycles": d["cycles"],
            "rate": work / d["cycles"]}


def screenshot(warpsim, here, name, warps, view, viz_args, registers=32,
               timing=None, focus=(-1, 0.5)):
    """A warpsim-viz screenshot (common.screenshot) of `warps` warps of L2
    loads on the one-SM configuration (`timing`: more of its "timing"
    members), the timed dispatch in view."""
    with OneSm(timing) as config:
        common.screenshot(warpsim, here, name, loads_scene(warps // 2, True),
                          view, viz_args,
                          ["--gpu-config", config, "--regs-per-thread",
                           str(registers)], focus=focus)


def h200_curve(kind):
    """[(warps per SM, rate)] of E5 on the H200: loads of 16 bytes per
    lane, k = 1 (bytes per cycle per SM), or the FFMA chains (FFMA warp
    instructions per cycle per SM)."""
    results = common.cuda_record("e5_hiding.json")["results"]
    if kind == "ffma":
        return sorted((r["warps_per_sm"], r["ipc_mean"])
                      for r in results["ffma"])
    return sorted((r["warps_per_sm"], r["bytes_per_cycle_per_sm"])
                  for r in results["loads"]
                  if r["placement"] == kind and r["bytes_per_lane"] == 16 and
                  r["k"] == 1)


def h200_source(kind):
    where = "%s/e5_hiding.json" % common.rel(common.CUDA_RUN)
    if kind == "ffma":
        return where + " results.ffma: ipc_mean"
    return (where + " results.loads (placement %s, bytes_per_lane 16, k 1): "
            "bytes_per_cycle_per_sm" % kind)


def interpolate(curve, x):
    for (x0, y0), (x1, y1) in zip(curve, curve[1:]):
        if x0 <= x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return curve[-1][1] if x > curve[-1][0] else curve[0][1]


def knee(curve):
    """The fewest warps at which the curve reaches 90 % of its highest."""
    top = max(y for _, y in curve)
    return next(x for x, y in curve if y >= 0.9 * top)


def knee_steps_apart(a, b, steps):
    """How many entries of `steps` lie between knees a and b (steps: the
    H200's warps per SM); None when either is not one of them."""
    if a not in steps or b not in steps:
        return None
    return abs(steps.index(a) - steps.index(b))
