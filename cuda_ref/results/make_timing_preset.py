#!/usr/bin/env python3
"""The h200 preset's timing values (sm::TimingConfig), from the recorded runs.

  cuda_ref/results/make_timing_preset.py RUN_DIR [--vulkan-findings DIR] \\
      [-o OUT.json] [--check]

RUN_DIR is a cuda_ref run (what cuda_ref/run_h200.sh wrote: provenance.txt,
e0_fingerprint.json, e2_latency.json, e3_instructions.json, e4_smsp.json,
e5_hiding.json); DIR is vulkan_ref's H200 results (default:
vulkan_ref/results/h200), whose observe-*/e7_sm_sets.summary.json gives the
SMs that ran graphics. Writes OUT.json (or prints it without -o); with
--check, writes nothing and exits 1 when OUT.json differs from what the
results give (the ctest h200_timing_preset runs this).

The output's "timing" object is what runner::GpuConfig's "timing" key takes
(runner/gpu_config.h); "sources" says for every field of sm::TimingConfig
where its value comes from: a result file and the rule applied to it, a
cited document, or "not measured: default of sm/timing_config.h" for the
fields the runs do not measure, which "timing" leaves out so that the
struct's default applies. Every measured number is computed here from the
result files; the rules are those of summarize.py (imported), which makes
the headline tables of cuda_ref/results/h200/README.md.

Standard library only.
"""
import argparse
import glob
import gzip
import importlib
import importlib.util
import json
import math
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))  # the repository
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import summarize  # noqa: E402  (load, level, breakpoint, knee)

DEFAULT = "not measured: default of sm/timing_config.h"
# E45's fit of fragment_warp_cycles (e45_divergent_paths.py launch-fit).
# The SASS record's scene whose loops set loop_unroll_max_body_loads.
LOADS_SCENE = "microbench__e5_loads"
LAUNCH_FIT = os.path.join(ROOT, "samples", "h200", "e45_divergent_paths",
                          "launch-fit.json")
# Sub-partitions (SMSPs) per SM: REFERENCE §1.2 ("Per SM: 4 processing
# blocks (SMSPs)"); E4 is checked to agree below. Converts the per-SM
# throughput to a per-SMSP issue interval.
SMSPS = 4
SMSPS_SOURCE = ("4 sub-partitions per SM (REFERENCE §1.2; "
                "E4 confirms: %s)")
# REFERENCE §1.5: "L1: 128-B lines, 32-B sectors; L2: 32-B sectors"
# (CUDA Programming Guide, coalesced global memory access).
LINE_BYTES, SECTOR_BYTES = 128, 32
REF_LINES = ("REFERENCE §1.5: \"L1: 128-B lines, 32-B "
             "sectors; L2: 32-B sectors\" (CUDA Programming Guide, "
             "coalesced global memory access)")


def nearest(x):
    """Nearest integer, halves up (not Python's round-half-even)."""
    return int(math.floor(x + 0.5))


def num(x):
    """A float written with at most 4 significant decimals, stable."""
    return float(f"{x:.4g}") if abs(x) < 1000 else float(f"{x:.0f}")


def rel(path):
    return os.path.relpath(os.path.abspath(path), ROOT)


def fail(message):
    raise SystemExit("make_timing_preset.py: " + message)


def need(run, name):
    d = summarize.load(run, name)
    if d is None:
        fail(f"{os.path.join(rel(run), name)}.json is missing")
    return d


def clock(run, files, t, src):
    """clock_mhz: the SM clock nvidia-smi read after each experiment."""
    path = os.path.join(run, "provenance.txt")
    if not os.path.exists(path):
        fail(f"{rel(path)} is missing")
    after, before = {}, {}
    pat = re.compile(r"^(\S+) clocks (before|after) \(sm, mem\): (\d+) MHz")
    for line in open(path).read().splitlines():
        m = pat.match(line)
        if m:
            (after if m.group(2) == "after" else before)[m.group(1)] = \
                int(m.group(3))
    if not after:
        fail(f"{rel(path)} has no 'clocks after' lines")
    mhz = statistics.median_low(sorted(after.values()))
    measured = sorted(x for d in files.values()
                      for x in (d["clock_before"]["sm_mhz_measured"],
                                d["clock_after"]["sm_mhz_measured"]))
    agree = all(v == mhz for v in after.values())
    t["clock_mhz"] = mhz
    src["clock_mhz"] = (
        f"{rel(path)}: the nvidia-smi SM clock after each experiment, "
        + (f"{mhz} MHz after all {len(after)}" if agree else
           f"median {mhz} MHz of {sorted(after.values())}")
        + f" (the 'before' lines, {min(before.values())}.."
        f"{max(before.values())} MHz, include idle clocks read before the "
        "warm-up, so they are not the clock the experiments ran at); the "
        "SM clock measured in a kernel (clock64 against globaltimer, "
        "clock_before/clock_after.sm_mhz_measured of "
        + ", ".join(f"{n}.json" for n in sorted(files))
        + f") is {measured[0]:.1f}..{measured[-1]:.1f} MHz, the same within "
        f"{100 * (mhz - measured[0]) / mhz:.1f} %; e0's "
        "cudaDevAttrClockRate "
        f"({files['e0_fingerprint']['device']['clock_rate_khz'] // 1000} "
        "MHz) is the maximum clock, not a reading")


def sm_counts(e0, vk_dir, t, src, run):
    p = e0["results"]["properties"]
    t["sms"] = p["multiProcessorCount"]
    src["sms"] = (f"{rel(run)}/e0_fingerprint.json: results.properties."
                  "multiProcessorCount")
    found = sorted(glob.glob(os.path.join(vk_dir, "observe-*",
                                          "e7_sm_sets.summary.json")))
    if not found:
        fail(f"no observe-*/e7_sm_sets.summary.json under {rel(vk_dir)}")
    path = found[-1]  # the latest run
    e7 = json.load(open(path))
    ids = sorted({i for d in e7["draws"]
                  for i in d["sm_ids"].get("fragment", [])})
    t["graphics_sms"] = len(ids)
    src["graphics_sms"] = (
        f"{rel(path)}: distinct fragment SM ids (gl_SMIDNV) over its "
        f"{len(e7['draws'])} draws: {', '.join(map(str, ids))} "
        "(the data of FINDINGS.md Q1, written by "
        "vulkan_ref/results/h200_findings.py)")


def fragment_tiles(vk_dir, t, src):
    """fragment_tile_pixels: the tile side FINDINGS.md Q2 finds every
    fragment warp inside (h200_findings.TILE), given that the fragments of
    one primitive in one such tile ran on one SM in nearly every case of
    E8b's observed draws."""
    found = sorted(glob.glob(os.path.join(vk_dir, "observe-*",
                                          "e8b_packing.observe.bin.gz")))
    if not found:
        fail(f"no observe-*/e8b_packing.observe.bin.gz under {rel(vk_dir)}")
    path = found[-1]  # the latest run
    sys.path.insert(0, os.path.dirname(os.path.abspath(vk_dir)))
    findings = importlib.import_module("h200_findings")
    side = findings.TILE
    one = several = 0
    for _, records in findings.read_records(path):
        sms = {}
        for f in findings.fragments(records):
            key = (f["prim"], f["x"] // side, f["y"] // side)
            sms.setdefault(key, set()).add(f["sm"])
        one += sum(len(s) == 1 for s in sms.values())
        several += sum(len(s) > 1 for s in sms.values())
    if one < 0.95 * (one + several):
        fail(f"{rel(path)}: only {one} of {one + several} (primitive, "
             f"{side}x{side} tile) pairs ran on one SM")
    t["fragment_tile_pixels"] = side
    src["fragment_tile_pixels"] = (
        f"{rel(path)}: every fragment warp lies inside one aligned "
        f"{side}x{side}-pixel tile (FINDINGS.md Q2, "
        "vulkan_ref/results/h200_findings.py TILE), and of the "
        f"{one + several} (primitive, tile) pairs of its draws {one} "
        f"({100 * one / (one + several):.1f} %) ran on one SM (gl_SMIDNV); "
        "the same tile of another draw went to another SM (FINDINGS.md Q2), "
        "so an SM takes a tile while it has warps of it resident")


def e3_figures(r, name):
    """latency(op) and interval(op) of an E3 result's `results` r."""
    def latency(op):
        x = [x for x in r["latency"] if x["op"] == op and x["ilp"] == 1]
        if len(x) != 1:
            fail(f"{name}: no single ILP-1 latency of {op}")
        return x[0]["cycles_per_op"]

    def peak(op):
        thr = [x for x in r["throughput"] if x["op"] == op]
        if not thr:
            fail(f"{name}: no throughput of {op}")
        return max(thr, key=lambda x:
                   x["warp_instructions_per_cycle_per_sm_mean"])

    def interval(op):
        best = peak(op)
        v = best["warp_instructions_per_cycle_per_sm_mean"]
        return SMSPS / v, (f"{v:.3f} warp instructions/cycle/SM at "
                           f"{best['warps_per_sm']} warps per SM, ILP "
                           f"{best['ilp']}")
    return latency, interval


def conversions(run, t, src):
    """The cvt figures (float rounding and float-to-integer conversions)
    from the E3 run that added FRND and F2I + I2F, the latest
    *-e3-conversions directory beside RUN_DIR."""
    found = sorted(glob.glob(os.path.join(os.path.dirname(
        os.path.abspath(run)), "*-e3-conversions")))
    if not found:
        fail(f"no *-e3-conversions run beside {rel(run)}")
    name = f"{rel(found[-1])}/e3_instructions.json"
    latency, interval = e3_figures(json.load(open(
        os.path.join(found[-1], "e3_instructions.json")))["results"], name)
    lat, (cyc, at) = latency("FRND"), interval("FRND")
    pair, (pair_cyc, pair_at) = latency("F2I+I2F"), interval("F2I+I2F")
    t["cvt"] = {"latency": nearest(lat), "interval": nearest(cyc)}
    src["cvt.latency"] = (
        f"{name}: FRND {lat:.2f} cycles; results.latency[op, ilp 1]."
        "cycles_per_op (one warp, a dependent chain of FRND.FLOOR), rounded "
        f"to the nearest integer (F2I + I2F.U32, two dependent instructions "
        f"a step: {pair:.2f})")
    src["cvt.interval"] = (
        f"{name}: FRND {at}: {cyc:.2f} cycles per warp instruction per "
        f"SMSP; results.throughput: 4 sub-partitions per SM / the largest "
        "warp_instructions_per_cycle_per_sm_mean, rounded (F2I + I2F.U32 "
        f"{pair_at}: {pair_cyc:.2f} cycles per step); the MUFU rate, so "
        "the model issues these on the SFU pipe")


def pipes(run, e3, e4, t, src):
    r = e3["results"]
    name = f"{rel(run)}/e3_instructions.json"
    confirm = "no e4_smsp.json"
    if e4 is not None:
        hyp = [c["hypotheses"]["warpid_mod_4"] for c in
               e4["results"]["configs"]]
        if not all(h["correct"] == h["of"] for h in hyp):
            fail("e4_smsp.json does not confirm 4 sub-partitions per SM")
        confirm = ("'SMSP = %warpid mod 4' right in "
                   f"{sum(h['correct'] for h in hyp)} of "
                   f"{sum(h['of'] for h in hyp)} warp pairs of "
                   "e4_smsp.json")
    smsps = SMSPS_SOURCE % confirm

    latency, interval = e3_figures(r, name)

    lat_rule = ("results.latency[op, ilp 1].cycles_per_op (one warp, a "
                "dependent chain), rounded to the nearest integer")
    int_rule = ("results.throughput: %s / the largest "
                "warp_instructions_per_cycle_per_sm_mean over warps per SM "
                "and ILP (summarize.py's peak), rounded")

    def one(pipe, op, lat_note="", int_note=""):
        lat = latency(op)
        cyc, at = interval(op)
        t[pipe] = {"latency": nearest(lat), "interval": nearest(cyc)}
        src[pipe + ".latency"] = (f"{name}: {op} {lat:.2f} cycles; "
                                  + lat_rule + lat_note)
        src[pipe + ".interval"] = (f"{name}: {op} {at}: {cyc:.2f} cycles per "
                                   "warp instruction per SMSP; "
                                   + int_rule % smsps + int_note)

    def brief(op):
        cyc, _ = interval(op)
        return f"{op} latency {latency(op):.2f}, interval {cyc:.2f}"

    one("fma", "FFMA", lat_note=f" ({brief('FADD')})")
    one("imul", "IMAD",
        lat_note=" (OpIMul: integer multiply, which issues at half the "
        "FFMA rate)")
    one("alu", "LOP3",
        lat_note=" (LOP3.LUT, a pure INT32-pipe instruction; IADD3 is not "
        "used: ptxas mixed it ~1:1 with IMAD.IADD, which runs on the FMA "
        f"pipe, so its figures mix two pipes: {brief('IADD3')})")
    # Integer adds on two pipes: the IADD3 rows' SASS (the record's "sass"
    # field) mixes IADD3 with IMAD.IADD, and their issue interval is the
    # FMA pipe's, half LOP3's (INT32 pipe alone) and IMAD's.
    iadd_sass = next(x["sass"] for x in r["throughput"] if x["op"] == "IADD3")
    iadd, _ = interval("IADD3")
    lop, _ = interval("LOP3")
    imad, _ = interval("IMAD")
    t["split_int_adds"] = "IMAD.IADD" in iadd_sass and iadd < 0.75 * min(
        lop, imad)
    src["split_int_adds"] = (
        f"{name}: the IADD3 rows' SASS is '{iadd_sass}', and they issue "
        f"every {iadd:.2f} cycles per SMSP against LOP3's {lop:.2f} (INT32 "
        f"pipe) and IMAD's {imad:.2f} (FMA pipe): the adds share both pipes "
        "(true when the SASS names IMAD.IADD and the interval is under 3/4 "
        "of both)")
    one("fp64", "DFMA")
    rcp, ex2 = latency("MUFU.RCP"), latency("MUFU.EX2")
    (rcp_c, rcp_at), (ex2_c, ex2_at) = interval("MUFU.RCP"), \
        interval("MUFU.EX2")
    t["sfu"] = {"latency": nearest((rcp + ex2) / 2),
                "interval": nearest((rcp_c + ex2_c) / 2)}
    sin = "; MUFU.SIN is sfu_trig's"
    src["sfu.latency"] = (f"{name}: MUFU.RCP {rcp:.2f}, MUFU.EX2 {ex2:.2f} "
                          "cycles, their mean; " + lat_rule + sin)
    src["sfu.interval"] = (f"{name}: MUFU.RCP {rcp_at}: {rcp_c:.2f}, "
                           f"MUFU.EX2 {ex2_at}: {ex2_c:.2f} cycles per warp "
                           "instruction per SMSP, their mean; "
                           + int_rule % smsps + sin)
    one("sfu_trig", "MUFU.SIN",
        lat_note=" (GLSL sin and cos: ptxas emits FMUL.RZ, the range "
        "reduction, then MUFU.SIN, two dependent instructions per step)")
    src["branch.interval"] = DEFAULT
    for pipe in ("sync",):
        src[pipe + ".latency"] = DEFAULT
        src[pipe + ".interval"] = DEFAULT
    for pipe in ("lsu", "tex"):
        src[pipe + ".latency"] = (DEFAULT + " (the pipe's latency is the "
                                  "memory model's, not a pipe figure)")
        src[pipe + ".interval"] = DEFAULT


def memory(run, e0, e2, e5, t, src):
    m = {}
    name2 = f"{rel(run)}/e2_latency.json"
    r = e2["results"]
    ca = [p for p in r["sweep"] if p["load"] == "ca"]
    cg = [p for p in r["sweep"] if p["load"] == "cg"]
    smem = statistics.median(p["cycles_per_step"] for p in r["shared"])
    l1 = summarize.level(ca, 0, 16 << 10)
    l2 = summarize.level(cg, 1 << 20, 8 << 20)
    hbm = summarize.level(cg, 512 << 20, 1 << 40)
    table = ("; as the E2 table of cuda_ref/results/h200/README.md "
             "(summarize.py), rounded to the nearest integer")
    for key, v, rule in (
            ("shared_latency", smem, "median cycles_per_step of "
             "results.shared (ld.shared chains)"),
            ("l1_latency", l1, "median cycles_per_step of the ld.global.ca "
             "footprints <= 16 KB of results.sweep"),
            ("l2_latency", l2, "median cycles_per_step of the ld.global.cg "
             "footprints 1-8 MB of results.sweep"),
            ("dram_latency", hbm, "median cycles_per_step of the "
             "ld.global.cg footprints >= 512 MB of results.sweep")):
        if v is None:
            fail(f"{name2}: no points for {key}")
        m[key] = nearest(v)
        src["memory." + key] = f"{name2}: {v:.2f} cycles, {rule}" + table
    m["line_bytes"], m["sector_bytes"] = LINE_BYTES, SECTOR_BYTES
    src["memory.line_bytes"] = REF_LINES
    src["memory.sector_bytes"] = REF_LINES
    l1_lo, l1_hi = summarize.breakpoint(ca, l1)
    l2_lo, l2_hi = summarize.breakpoint(cg, l2)
    if l1_lo is None or l2_lo is None:
        fail(f"{name2}: no L1 or L2 capacity break")
    m["l1_bytes"], m["l2_bytes"] = l1_lo, l2_lo
    brk = ("summarize.breakpoint: the largest footprint still within 10 % "
           "of the level, the next one above it by > 10 %")
    src["memory.l1_bytes"] = (
        f"{name2}: the ld.global.ca chain (L1 carveout: "
        f"{e2['parameters']['l1_carveout_percent_shared']} % shared) still "
        f"hits L1 at {summarize.size(l1_lo)} and misses at "
        f"{summarize.size(l1_hi)}; the largest footprint that still hit "
        f"({brk})")
    src["memory.l2_bytes"] = (
        f"{name2}: the ld.global.cg chain of one thread still hits L2 at "
        f"{summarize.size(l2_lo)} and misses at {summarize.size(l2_hi)}; "
        f"the largest footprint that still hit ({brk}); e0_fingerprint.json"
        f" reports l2CacheSize {summarize.size(e0['results']['properties']['l2CacheSize'])}"
        ", of which one SM sees this much at L2 latency")
    # The rest of the L2: past the footprint that still hit at L2 latency
    # the chain is slower than L2 and faster than DRAM while the footprint
    # fits in the whole L2 (e0's l2CacheSize); the first footprint past
    # it gives the latency (in the model the part one SM sees first, LRU,
    # then holds none of the chain; on the H200 the larger footprints
    # below l2CacheSize are slower still, part of their steps from DRAM,
    # which the model's two LRU parts do not reproduce).
    l2_size = e0["results"]["properties"]["l2CacheSize"]
    far = [p for p in cg if p["footprint_bytes"] == l2_hi]
    if not far or l2_hi >= l2_size:
        fail(f"{name2}: no footprint between the L2 break and "
             f"l2CacheSize {summarize.size(l2_size)}")
    far_cycles = statistics.median(p["cycles_per_step"] for p in far)
    if not l2 < far_cycles < hbm:
        fail(f"{name2}: the chain at {summarize.size(l2_hi)} "
             f"({far_cycles:.2f} cycles) is not between L2 and DRAM")
    m["l2_far_bytes"] = l2_size
    m["l2_far_latency"] = nearest(far_cycles)
    src["memory.l2_far_bytes"] = (
        f"{rel(run)}/e0_fingerprint.json: results.properties.l2CacheSize "
        f"({summarize.size(l2_size)}), the whole L2, of which one SM sees "
        f"l2_bytes at L2 latency")
    src["memory.l2_far_latency"] = (
        f"{name2}: {far_cycles:.2f} cycles, cycles_per_step of the "
        f"ld.global.cg footprint {summarize.size(l2_hi)}, the first past "
        f"l2_bytes (slower than L2, faster than DRAM, within l2CacheSize)")
    for key in ("l1_ways", "l2_ways"):
        src["memory." + key] = (
            DEFAULT + " (REFERENCE §1.5 gives no associativity measured "
            "on Hopper)")
    name5 = f"{rel(run)}/e5_hiding.json"
    for key, placement in (("l2_bytes_per_cycle_per_sm", "l2"),
                           ("dram_bytes_per_cycle_per_sm", "hbm")):
        def plateaus(width):
            out = []
            for k in sorted({p["k"] for p in e5["results"]["loads"]}):
                pts = [p for p in e5["results"]["loads"]
                       if p["placement"] == placement and
                       p["bytes_per_lane"] == width and p["k"] == k and
                       not p.get("skipped")]
                if pts:
                    out.append((k, summarize.knee(
                        pts, "bytes_per_cycle_per_sm")[1]))
            return out

        wide, narrow = plateaus(16), plateaus(4)
        if not wide:
            fail(f"{name5}: no 16-B loads from {placement}")
        v = statistics.median(x for _, x in wide)
        m[key] = num(v)
        src["memory." + key] = (
            f"{name5}: the median over k (loads per warp in flight) of the "
            f"plateau bytes_per_cycle_per_sm of the 16-B-per-lane "
            f"ld.global.cg loads from {placement.upper()} (each k's largest "
            "over warps per SM, summarize.knee, as in the E5 table): "
            + ", ".join(f"k={k} {x:.2f}" for k, x in wide)
            + f" -> {v:.2f} (the 4-B-per-lane loads, which need more loads "
            "in flight to saturate: "
            + ", ".join(f"k={k} {x:.2f}" for k, x in narrow) + ")")
    t["memory"] = m


def latest_fits(vk_dir, prefix, module, clock_mhz):
    """The latest record PREFIX-* under vk_dir, the name of its runs for a
    source note, and the `fits` of vulkan_ref/experiments/MODULE.py's
    summary of each run at clock_mhz."""
    found = sorted(glob.glob(os.path.join(vk_dir, prefix + "-*")))
    if not found:
        fail(f"no {prefix}-* under {rel(vk_dir)}")
    d = found[-1]
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    summary = importlib.import_module(module).summary
    runs = sorted(r for r in os.listdir(d) if re.fullmatch(r"run\d+", r))
    if not runs:
        fail(f"no run*/ under {rel(d)}")
    fits = [summary(os.path.join(d, r), clock_mhz)["fits"] for r in runs]
    return d, f"{rel(d)}/{{{','.join(runs)}}}", fits


def graphics_units(vk_dir, t, src):
    """The rasterizer's and the output merge's rates and a draw's fixed
    cost, from E15 (vulkan_ref/experiments/e15_draw_cost.py): the fits of
    its runs, averaged, at the preset's clock."""
    d, where, fits = latest_fits(vk_dir, "e15-draw-cost", "e15_draw_cost",
                                 t["clock_mhz"])
    # The SM clock nvidia-smi read after the runs (provenance.txt's last
    # "clocks.sm, clocks.max.sm" line).
    with open(os.path.join(d, "provenance.txt")) as f:
        read = re.findall(r"^(\d+) MHz, \d+ MHz$", f.read(), re.M)
    if not read:
        fail(f"{rel(d)}/provenance.txt has no nvidia-smi clock line")
    clock_note = (f"at the preset's clock_mhz ({num(t['clock_mhz'])} MHz; "
                  f"nvidia-smi read {read[-1]} MHz after the runs, "
                  "provenance.txt)")
    unorm = [f["B8G8R8A8_UNORM"] for f in fits]
    rgba32 = [f["R32G32B32A32_SFLOAT"] for f in fits]
    out = statistics.mean(4 * f["pixels_per_cycle"] for f in unorm)
    t["output_bytes_per_cycle"] = round(out, 2)
    src["output_bytes_per_cycle"] = (
        f"{where}: 4 bytes per B8G8R8A8_UNORM pixel x the pixels per cycle "
        "of e15_draw_cost.py summary's least-squares line through the "
        "written draws w8..w2048 ("
        + ", ".join(f"{f['pixels_per_cycle']:.3f}" for f in unorm)
        + f" pixels/cycle), {clock_note}; the R32G32B32A32_SFLOAT draws "
        "give the same bytes per cycle (16 x "
        + ", ".join(f"{f['pixels_per_cycle']:.3f}" for f in rgba32)
        + "): the rate is in bytes, not pixels")
    disc = [f["discarded"] for f in fits]
    rate = statistics.mean(f["pixels_per_cycle"] for f in disc)
    smsps = 4 * t["graphics_sms"]
    per_warp = 32 * smsps / rate
    t["raster_pixels_per_cycle"] = round(rate, 3)
    src["raster_pixels_per_cycle"] = (
        f"{where}: the draws whose fragments are all discarded, d256..d2048, "
        "are rasterized and shaded at "
        + ", ".join(f"{f['pixels_per_cycle']:.3f}" for f in disc)
        + f" pixels per cycle (the least-squares lines), {clock_note}: "
        f"{per_warp:.2f} cycles per full warp of 32 pixels on each of the "
        f"{smsps} sub-partitions of the graphics_sms SMs, far more than "
        "their shader's few instructions; read as the rate at which the "
        "rasterizer gives the SMs fragment warps, beside the shading: with "
        "it and loop_entry_slots, a warp's own cost on its sub-partition "
        "(fragment_warp_cycles) comes out at a few cycles from E45's loop "
        "draws")
    fit = launch_fit(t)
    t["fragment_warp_cycles"] = fit["fragment_warp_cycles"]
    errors = fit["mean_abs_log_error"]
    best = errors[str(fit["fragment_warp_cycles"])]
    src["fragment_warp_cycles"] = (
        f"{rel(LAUNCH_FIT)} (e45_divergent_paths.py launch-fit, warpsim "
        f"{fit['warpsim_commit'][:12]}): the h200 preset with "
        "raster_pixels_per_cycle and loop_entry_slots as here, run on E45's "
        f"256x256 draws of loops ({fit['record']}: "
        + ", ".join(fit["variants"]) + ") and on samples/branch_costs' "
        f"families ({fit['branch_costs_record']}) at fragment_warp_cycles "
        + ", ".join(sorted(errors, key=int)) + ": the mean |log(model / "
        "GPU)| (the two records' means, averaged) is least at "
        f"{fit['fragment_warp_cycles']} ({best['mean']:.4f}: E45 "
        f"{best['e45']:.4f}, branch_costs {best['branch_costs']:.4f}; at 0: "
        f"{errors['0']['mean']:.4f}). Before E45 the whole of E15's "
        f"{per_warp:.2f} cycles a warp was taken as the sub-partition's, "
        "added to the shading: E16's trip sweep took about that many more "
        "cycles a warp than the model's instructions, which E45 found to be "
        "mostly what a warp's entry to its unrolled loop costs "
        "(loop_entry_slots)")
    fixed = statistics.mean(f["fixed_cycles"] for f in disc)
    t["draw_fixed_cycles"] = nearest(fixed)
    src["draw_fixed_cycles"] = (
        f"{where}: the intercept of the discarded draws' line ("
        + ", ".join(f"{f['fixed_cycles']:.0f}" for f in disc)
        + f" cycles), {clock_note}; the GPU time of one draw from "
        "timestamps before and after it, so it holds the front end's "
        "latency and the end of the draw")
    written = statistics.mean(f["fixed_cycles"] for f in unorm)
    t["output_flush_cycles"] = nearest(written - fixed)
    src["output_flush_cycles"] = (
        f"{where}: the intercept of the B8G8R8A8_UNORM line of the written "
        "draws w8..w2048 ("
        + ", ".join(f"{f['fixed_cycles']:.0f}" for f in unorm)
        + f" cycles), {clock_note}, less draw_fixed_cycles (the discarded "
        "draws' intercept): what a draw whose pixels reach the output merge "
        "takes at its end besides the fixed cost of one whose fragments are "
        "all discarded")


def launch_fit(t):
    """E45's launch fit (LAUNCH_FIT), checked against the preset's
    raster_pixels_per_cycle and loop_entry_slots it was run with."""
    if not os.path.exists(LAUNCH_FIT):
        fail(f"no {rel(LAUNCH_FIT)}: run vulkan_ref/experiments/"
             "e45_divergent_paths.py launch-fit")
    with open(LAUNCH_FIT) as f:
        fit = json.load(f)
    want = (t["raster_pixels_per_cycle"], t["loop_entry_slots"])
    if (fit["raster_pixels_per_cycle"], fit["loop_entry_slots"]) != want:
        fail(f"{rel(LAUNCH_FIT)} was fitted with raster_pixels_per_cycle "
             f"{fit['raster_pixels_per_cycle']} and loop_entry_slots "
             f"{fit['loop_entry_slots']}, the preset's are {want[0]} and "
             f"{want[1]}: run e45_divergent_paths.py launch-fit --raster "
             f"{want[0]} --entry {want[1]} again")
    return fit


def output_merge(vk_dir, t, src):
    """What blending and the depth/stencil tests cost the output merge
    besides the bytes it writes, from E17 (vulkan_ref/experiments/
    e17_output_merge.py): per-pixel times of its least-squares lines,
    averaged over its runs, at the preset's clock."""
    _, where, fits = latest_fits(vk_dir, "e17-output-merge",
                                 "e17_output_merge", t["clock_mhz"])

    def cycles(variant):
        """Cycles per pixel of a variant's line, averaged over the runs."""
        return statistics.mean(1 / f[variant]["pixels_per_cycle"]
                               for f in fits)

    w, f32 = cycles("w"), cycles("f")
    rule = (f"{where}: cycles per pixel of e17_output_merge.py summary's "
            f"least-squares lines (at the preset's clock_mhz, "
            f"{num(t['clock_mhz'])} MHz), averaged over the runs: ")
    t["depth_test_cycles"] = round(cycles("dr") - w, 4)
    src["depth_test_cycles"] = (
        rule + f"dr (a depth test that passes, depth not written) "
        f"{cycles('dr'):.4f} - w (written, no test) {w:.4f}")
    t["depth_reject_cycles"] = round(cycles("dk"), 4)
    src["depth_reject_cycles"] = (
        rule + f"dk (every fragment rejected by the depth test, nothing "
        f"written) {cycles('dk'):.4f}")
    t["blend_cycles"] = round(cycles("b") - w, 4)
    src["blend_cycles"] = (
        rule + f"b (B8G8R8A8_UNORM, alpha-blended) {cycles('b'):.4f} - w "
        f"{w:.4f}")
    t["float_blend_cycles"] = round(cycles("fb") - f32, 4)
    src["float_blend_cycles"] = (
        rule + f"fb (R32G32B32A32_SFLOAT, alpha-blended) "
        f"{cycles('fb'):.4f} - f (the same, written) {f32:.4f}")
    # The depth-tested draws' lines start higher than the written draws'.
    depth = ("dw", "dr", "dk", "bdw")
    clock = t["clock_mhz"] / 1000

    def fixed(variant):
        """Cycles at 0 pixels of a variant's line, averaged over the runs."""
        return statistics.mean(f[variant]["fixed_ns"] * clock for f in fits)

    t["depth_flush_cycles"] = nearest(
        statistics.mean(fixed(v) for v in depth) - fixed("w"))
    src["depth_flush_cycles"] = (
        f"{where}: the intercepts (cycles at 0 pixels) of e17_output_merge.py "
        "summary's least-squares lines, averaged over the runs, at the "
        f"preset's clock_mhz ({num(t['clock_mhz'])} MHz): the depth-tested "
        "draws' "
        + ", ".join(f"{v} {fixed(v):.0f}" for v in depth)
        + f", their mean less w's (written, no test) {fixed('w'):.0f}")
    # The draws no value was taken from, against the model's sum.
    depth_write = 4 / t["output_bytes_per_cycle"]
    dw = w + t["depth_test_cycles"] + depth_write
    bdw = dw + t["blend_cycles"]
    src["depth_test_cycles"] += (
        f"; checks: dw (depth written) {cycles('dw'):.4f} against the "
        f"model's {dw:.4f} (w + this + 4 depth bytes at "
        f"output_bytes_per_cycle), bdw (blended, depth written) "
        f"{cycles('bdw'):.4f} against {bdw:.4f}")


def front_end(vk_dir, t, src):
    """The primitive set-up rate, from experiment 04's H200 record
    (samples/experiments/04_triangle_count: the same 1024x1024 pixels as
    grids of ever more triangles, one draw per scene): the slope of the
    draw time against the triangle count between its two finest grids,
    where the triangles, not the pixels, decide the time."""
    # The experiment's own reader of the record (the latest under vk_dir).
    path = os.path.join(ROOT, "samples", "experiments", "04_triangle_count",
                        "run.py")
    spec = importlib.util.spec_from_file_location("experiment_04", path)
    e04 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(e04)
    e04.RECORDS = vk_dir
    d, runs, times = e04.h200_times()
    size = e04.SIZE
    (c1, t1), (c2, t2) = [(c, times[c]) for c in (1, 2)]
    n1, n2 = 2 * (size // c1) ** 2, 2 * (size // c2) ** 2
    ns_per_primitive = (t1 - t2) / (n1 - n2)
    cycles = ns_per_primitive * t["clock_mhz"] / 1000
    t["primitives_per_cycle"] = round(1 / cycles, 4)
    src["primitives_per_cycle"] = (
        f"{d}/{{{','.join(runs)}}}/cell_{{{c1},{c2}}}.json: the same "
        f"{size}x{size} pixels as {n1} and {n2} triangles take {t1:.0f} and "
        f"{t2:.0f} ns (the median of the runs' medians, warpsim-vkref run "
        f"--repeat 15): {ns_per_primitive:.3f} ns, {cycles:.2f} cycles at the "
        f"preset's clock_mhz ({num(t['clock_mhz'])} MHz) per more triangle, "
        "half of which cover no pixel: the front end's set-up rate, which "
        "the coarser grids of the record approach from above")


def loops(vk_dir, t, src):
    """The unroll factor of a loop with a run-time trip count, from E16
    (vulkan_ref/experiments/e16_loop_unroll.py): the driver's code size for
    loops that differ in the length of their body."""
    found = sorted(glob.glob(os.path.join(vk_dir, "e16-loop-unroll-*")))
    if not found:
        fail(f"no e16-loop-unroll-* under {rel(vk_dir)}")
    d = found[-1]  # the latest record
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    import e16_loop_unroll  # noqa: E402
    s = e16_loop_unroll.summary(d)
    t["loop_unroll"] = s["unroll"]
    steps = s["sweep_steps_at"]
    src["loop_unroll"] = (
        f"{rel(d)}/e16.json: the fragment shaders' Binary Size grows by "
        f"{s['bytes_per_loop_body_multiply_add']:.0f} bytes per multiply-add "
        "in the body of a loop with a run-time trip count against "
        f"{s['bytes_per_multiply_add']:.0f} in straight code: "
        f"{s['body_copies']:.2f} copies of the body, read as "
        f"{s['unroll']} in the unrolled loop and {s['unroll'] - 1} for the "
        "remainder (e16_loop_unroll.py summary); the trip sweep of the same "
        "record (trips*.json) steps up at "
        + ", ".join(str(x) for x in steps)
        + " trips once the shading, not the output merge, is what the draw "
        "waits for")
    unroll_limit(vk_dir, t, src)


def latest_record(vk_dir, prefix, needs=()):
    """The latest PREFIX-* record under vk_dir, else beside it in h100
    (vulkan_ref/results/h100: records an H100 took, the same sm_90 target
    and driver, whose code sizes are the compiler's); with NEEDS, the
    latest that timed each of those variants (run1/NAME.json)."""
    def fits(d):
        return all(os.path.exists(os.path.join(d, "run1", n + ".json"))
                   for n in needs)
    found = [d for d in sorted(glob.glob(os.path.join(vk_dir, prefix + "-*")))
             if fits(d)]
    if not found:
        found = [d for d in sorted(glob.glob(os.path.join(
            os.path.dirname(os.path.abspath(vk_dir)), "h100",
            prefix + "-*"))) if fits(d)]
    if not found:
        fail(f"no {prefix}-* under {rel(vk_dir)} or beside it in h100"
             + (" with " + ", ".join(needs) if needs else ""))
    return found[-1]


def unroll_limit(vk_dir, t, src):
    """The longest body of a loop with a run-time trip count the driver
    unrolls, and whether [[dont_unroll]] keeps a loop rolled, from E34
    (vulkan_ref/experiments/e34_unroll_limit.py): the latest record beside
    the H200's, else one an H100 took (vulkan_ref/results/h100: the same
    sm_90 target and driver, whose code sizes are the compiler's)."""
    d = latest_record(vk_dir, "e34-unroll-limit")
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    import e34_unroll_limit  # noqa: E402
    s = e34_unroll_limit.summary(d)
    device = s["device"].get("name", "?")
    t["loop_unroll_max_body"] = s["longest_unrolled_body"]
    src["loop_unroll_max_body"] = (
        f"{rel(d)} ({device}, driver {s['device'].get('driver_info', '?')}): "
        "the driver's Binary Size of one-warp compute shaders whose loops "
        "(trip count from a buffer) hold K FFMA or K IMAD: every loop of up "
        f"to {s['longest_unrolled_body']} instructions a trip adds at least "
        f"{e34_unroll_limit.UNROLLED_COPIES:g} copies of its body to the "
        f"code, every one of {s['shortest_rolled_body']} or more under one "
        "(e34_unroll_limit.py summary)")
    # Loops that load: the SASS of microbench's e5_loads, whose loops
    # (trip count from a buffer) load 1 to 8 words a trip.
    import nv_shader_cache  # noqa: E402
    sass = nv_shader_cache.latest_with_scene(
        os.path.join(os.path.dirname(os.path.abspath(vk_dir)), "h100"),
        LOADS_SCENE)
    if sass is None:
        fail(f"no SASS record with {LOADS_SCENE} in vulkan_ref/results/h100")
    loads = nv_shader_cache.trip_sizes(sass, LOADS_SCENE)
    unrolled = [n for n, u in loads.values() if u]
    rolled = [n for n, u in loads.values() if not u]
    if not unrolled or not rolled or max(unrolled) >= min(rolled):
        fail(f"{rel(sass)}: {LOADS_SCENE}'s loops do not part by their "
             "length")
    t["loop_unroll_max_body_loads"] = int(max(unrolled))
    src["loop_unroll_max_body_loads"] = (
        f"{rel(sass)} ({nv_shader_cache.record_device(sass)}): the SASS of "
        f"{LOADS_SCENE} (samples/microbench/e5_loads.amber: a compute "
        "shader whose loop, trip count from a buffer, loads K words a trip, "
        "K = 1 to 8, specialized per pipeline), `nv_shader_cache.py "
        "loops`: unrolled four times up to "
        f"{max(unrolled):.2f} instructions a trip, rolled from "
        f"{min(rolled):.2f}; the longest unrolled, rounded down, for loops "
        "that load and hold no selection (E34's limit, "
        "loop_unroll_max_body, holds for loops without loads, and E35's "
        "loops, which load the word their branch tests, part at it)")
    # E35: loops whose trips skip a block behind a branch (and load the
    # word they test; with a selection, a loop that loads parts at E34's
    # limit, loop_unroll_max_body).
    d35 = latest_record(vk_dir, "e35-branch-unroll")
    import e35_branch_unroll  # noqa: E402
    s35 = e35_branch_unroll.summary(d35)
    limit = s["longest_unrolled_body"]
    loads_limit = t["loop_unroll_max_body_loads"]
    straight = {r["size"]: r["unrolled"] for r in s35["rows"]
                if r["kind"] == "straight"}
    if any(ok != (k <= limit) for k, ok in straight.items()):
        fail(f"{rel(d35)}: its straight loops part elsewhere than E34's "
             f"({limit} instructions)")
    weight, lo, hi = e35_branch_unroll.skipped_weight(s35, limit)
    t["loop_unroll_skipped_weight"] = weight
    src["loop_unroll_skipped_weight"] = (
        f"{rel(d35)} ({s35['device'].get('name', '?')}, driver "
        f"{s35['device'].get('driver_info', '?')}): the driver's Binary Size "
        "of one-warp compute shaders whose loops (trip count from a buffer) "
        "load a word and branch around B IMAD no lane runs: unrolled with B "
        f"up to {s35['largest_unrolled_block']}, rolled from "
        f"{s35['smallest_rolled_block']}; the model counts "
        f"{e35_branch_unroll.MODEL_MAIN} instructions of such a trip outside "
        f"the block, so a skipped instruction counts for between {lo:.3f} "
        f"and {hi:.3f} against loop_unroll_max_body ({limit}; these loops "
        "load the word they test, and part at this limit, not at "
        f"loop_unroll_max_body_loads, {loads_limit}, which holds for loops "
        "without a selection): the middle "
        "(e35_branch_unroll.py summary, skipped_weight; its `model` command "
        "checks every loop of the record)")
    t["hoist_invariants"] = True
    src["hoist_invariants"] = (
        f"{rel(d35)} ({s35['device'].get('name', '?')}): the driver's "
        "Binary Size of E35's loops: with the value every trip loads alike "
        "(`never`) and its address left out of a trip's count "
        f"({e35_branch_unroll.MODEL_MAIN} instructions besides the block), "
        "one weight of the skipped block's instructions parts the loops the "
        "driver unrolled from those it left rolled, every one (the ctest "
        "e35_model): the driver's code computes such values once, before "
        "the loop")
    t["honour_dont_unroll"] = s["dont_unroll_honoured"]
    src["honour_dont_unroll"] = (
        f"{rel(d)}: [[dont_unroll]] on the same loops "
        + ("kept some that the driver unrolls without it rolled"
           if s["dont_unroll_honoured"] else
           "left the code as large as without it (unrolled) up to "
           f"{s['longest_unrolled_body']} instructions a trip")
        + " (e34_unroll_limit.py summary)")


def loop_entry(vk_dir, t, src):
    """The issue slots a warp's entry to a loop the driver unrolls takes
    besides its trips, from E45 (vulkan_ref/experiments/
    e45_divergent_paths.py entry_fit): the latest record beside the
    H200's, else one an H100 took (the same sm_90 compiler)."""
    d = latest_record(vk_dir, "e45-divergent-paths")
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    import e45_divergent_paths  # noqa: E402
    s = e45_divergent_paths.summary(d)
    fit = e45_divergent_paths.entry_fit(s)
    t["loop_entry_slots"] = fit["slots"]
    src["loop_entry_slots"] = (
        f"{rel(d)} ({s['device'].get('name', '?')}, driver "
        f"{s['device'].get('driver_info', '?')}; E45): fragment draws of 512 "
        "warps per graphics SM running K loops of n multiply-adds one after "
        "another (n from a uniform block, 16 and 48): per warp at n = 0, "
        f"seq4 {fit['seq4']:.2f} SM cycles, seq2 {fit['seq2']:.2f}, so "
        f"{fit['gpu_slots']:.2f} issue slots a loop more (4 sub-partitions "
        "issuing every cycle), less the "
        f"{e45_divergent_paths.MODEL_EXIT_SLOTS} the model issues for the "
        "test that ends the loop (e45_divergent_paths.py entry_fit)")
    chains = e45_divergent_paths.chain_fold(s)
    t["fold_constant_chains"] = chains["folded"]
    src["fold_constant_chains"] = (
        f"{rel(d)} ({s['device'].get('name', '?')}; E45): in_none's loop, "
        f"16 multiply-adds by constants a trip, {chains['in_none']:.3f} SM "
        "cycles a warp and trip at 512 warps per SM against seq1's loop of "
        f"one, {chains['seq1']:.3f}: "
        + ("the driver's code folds the chain into one multiply-add"
           if chains["folded"] else "the chain is not folded")
        + " (e45_divergent_paths.py chain_fold: folded when in_none's trip "
        f"takes less than {e45_divergent_paths.FOLD_BOUND} of seq1's)")


def latest_beside(run, suffix):
    """The latest *-SUFFIX run directory beside RUN_DIR (the experiments
    recorded after it, each in a directory of its own)."""
    found = sorted(glob.glob(os.path.join(os.path.dirname(
        os.path.abspath(run)), "*-" + suffix)))
    if not found:
        fail(f"no *-{suffix} run beside {rel(run)}")
    return found[-1]


def scheduler(run, t, src):
    """The scheduler policy from E18 (cuda_ref/src/e18_warp_order.cu), the
    latest *-e18-warp-order directory beside RUN_DIR: with more warps of
    dependent FFMA chains per sub-partition than their latency needs, a
    strict oldest-first scheduler (gto, oldest) issues the oldest warps and
    leaves the youngest until those finish, so the first warps end about
    halfway through the block's span; a scheduler that rotates among ready
    warps (lrr) lets them all end together. The H200's earliest warp end,
    as a fraction of the span, decides: above 0.75 at every such point,
    lrr."""
    found = latest_beside(run, "e18-warp-order")
    name = f"{rel(found)}/e18_warp_order.json"
    rows = json.load(open(os.path.join(found, "e18_warp_order.json")))[
        "results"]["ffma"]
    # FFMA's latency is 4 cycles: more than 4 warps per sub-partition is
    # more than a dependent chain needs.
    crowded = [r for r in rows if r["warps_per_sm"] > 16]
    if not crowded:
        fail(f"{name}: no point with more than 16 warps per SM")
    first = [r["first_end_mean"] for r in crowded]
    rotates = min(first) > 0.75
    t["scheduler"] = "lrr" if rotates else "gto"
    src["scheduler"] = (
        f"{name}: results.ffma first_end_mean (the earliest warp end, as a "
        "fraction of the block's span, mean over SMs) at "
        + ", ".join(f"{r['warps_per_sm']} warps {r['first_end_mean']:.3f}"
                    for r in crowded)
        + (": every warp ends near the end, so the schedulers rotate among "
           "ready warps (a strict oldest-first one would end the first "
           "warps about halfway): lrr" if rotates else
           ": some warps end early, as under oldest-first: gto"))


def l1_miss_lines(run, t, src):
    """The cycles an SM needs per line a load sends to the L2, from E20
    (cuda_ref/src/e20_l1_lines.cu), the latest *-e20-l1-lines directory
    beside RUN_DIR: 32 warps per SM on 4 SMs issue ld.global.cg loads
    whose lanes touch k lines of an L2-resident ring (one sector per line
    from k = 4 on): the least-squares slope of cycles per load per SM over
    k = 2 .. 32 (k = 1 moves only 128 bytes a load and is bound by the
    bytes, not the lines). The same loads hitting the L1 (its "packed"
    series) cost nothing per line, so the model charges only lines that
    miss the L1."""
    found = latest_beside(run, "e20-l1-lines")
    name = f"{rel(found)}/e20_l1_lines.json"
    res = json.load(open(os.path.join(found, "e20_l1_lines.json")))["results"]
    four = [g for g in res["l2_packed"] if g["blocks"] == 4]
    if not four:
        fail(f"{name}: no l2_packed rows on 4 SMs")
    pts = [(r["lines"], r["cycles_per_load_per_sm"]) for r in four[0]["rows"]
           if r["lines"] >= 2 and r.get("placement_ok", True)]
    if len(pts) < 2:
        fail(f"{name}: fewer than two l2_packed rows with k >= 2")
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    slope = (sum((x - mx) * (y - my) for x, y in pts) /
             sum((x - mx) ** 2 for x, _ in pts))
    t.setdefault("memory", {})["l1_miss_cycles_per_line"] = num(slope)
    hits = [r for g in res["packed"] if g["warps_per_sm"] == 32
            for r in g["rows"]]
    src["memory.l1_miss_cycles_per_line"] = (
        f"{name}: results.l2_packed, 4 blocks of 32 warps: cycles per load "
        "per SM at k lines per load "
        + ", ".join(f"k={x} {y:.2f}" for x, y in
                    [(r["lines"], r["cycles_per_load_per_sm"])
                     for r in four[0]["rows"]])
        + f"; the least-squares slope over k >= 2: {slope:.3f} cycles per "
        "line (the same loads as L1 hits, results.packed at 32 warps: "
        + ", ".join(f"k={r['lines']} {r['cycles_per_load_per_sm']:.2f}"
                    for r in hits)
        + ": no cost per line; the same misses through the L1, "
        "results.l2ca_packed on 4 SMs: "
        + ", ".join(f"k={r['lines']} {r['cycles_per_load_per_sm']:.2f}"
                    for g in res.get("l2ca_packed", []) if g["blocks"] == 4
                    for r in g["rows"])
        + ")")


def latest_vk_summary(vk_dir, prefix, module):
    """The latest PREFIX-* record under vk_dir and its summary by
    vulkan_ref/experiments/MODULE.py: (record, summary)."""
    found = sorted(glob.glob(os.path.join(vk_dir, prefix + "-*")))
    if not found:
        fail(f"no {prefix}-* under {rel(vk_dir)}")
    record = found[-1]
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    return record, importlib.import_module(module).summary(record)


def graphics_l1_miss_lines(vk_dir, t, src):
    """The same cost for the loads of fragment warps, from E22
    (vulkan_ref/experiments/e22_fragment_lines.py), the latest
    e22-fragment-lines-* record: full-screen draws whose warp loads touch
    K hashed lines of an L2-resident buffer, one sector each; the
    least-squares slope, over K >= 2, of the draw's cycles over the
    one-word draw against the lines per graphics SM (its summary)."""
    record, s = latest_vk_summary(vk_dir, "e22-fragment-lines",
                                  "e22_fragment_lines")
    fit = s["cycles_per_line_fit"]
    if "s1" not in fit:
        fail(f"{rel(record)}: no s1 series")
    t.setdefault("memory", {})["graphics_l1_miss_cycles_per_line"] = \
        num(fit["s1"])
    rows = [r for r in s["rows"] if r["variant"].startswith("s1_")]
    src["memory.graphics_l1_miss_cycles_per_line"] = (
        f"{rel(record)}/e22.json (E22, e22_fragment_lines.py summary): "
        f"256x256 draws of 16 loads per pixel touching K hashed lines per "
        f"warp load, one sector each, cycles over the one-word draw "
        f"({s['none_ns']:.0f} ns) at {s['sm_mhz']:.0f} MHz per line on one "
        f"of {s['graphics_sms']} graphics SMs: "
        + ", ".join(f"K={r['lines_per_load']} {r['cycles_per_line']:.3f}"
                    for r in rows)
        + f"; the least-squares slope over K >= 2: {fit['s1']:.3f} cycles "
        "per line (consecutive lines, series p1: "
        f"{fit.get('p1', float('nan')):.3f}; four sectors per line, s4: "
        f"{fit.get('s4', float('nan')):.3f})")


def l1_wavefronts(vk_dir, t, src):
    """The L1's data stage (MemoryTiming::l1_wavefront_cycles, l1_banks,
    l1_bank_bytes, l1_lines_per_wavefront) from vulkan_ref's E39 (the
    latest e39-load-patterns-* record under vk_dir or beside it in h100):
    fragment warps at high occupancy loading one word a lane and trip from
    the L1, the lanes' words piled up in one bank or spread over all, in
    one line or many (e39_load_patterns.py wavefront_fit); the banks are
    REFERENCE §1.3's shared memory banks (the L1 and shared memory are one
    array there: "unified L1 / tex / smem")."""
    d = latest_record(vk_dir, "e39-load-patterns")
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    import e39_load_patterns  # noqa: E402
    s = e39_load_patterns.summary(d)
    fit = e39_load_patterns.wavefront_fit(s)
    m = t.setdefault("memory", {})
    m["l1_wavefront_cycles"] = num(fit["cycles"])
    m["l1_lines_per_wavefront"] = fit["lines_per_wavefront"]
    m["l1_banks"] = 32
    m["l1_bank_bytes"] = 4
    head = (f"{rel(d)} ({s['device'].get('name', '?')}, driver "
            f"{s['device'].get('driver_info', '?')}, E39, "
            "e39_load_patterns.py wavefront_fit): 512 fragment warps per "
            "graphics SM, a loop loading a word a lane and trip from the L1, "
            "SM cycles per warp and trip (the mean of the runs)")
    src["memory.l1_wavefront_cycles"] = (
        head + ", where the lanes' words pile up in one bank: "
        + ", ".join(f"{v} ({w} words) {c:.3f}" for v, w, c in fit["bound"])
        + f"; the least-squares slope through 0 against the words: "
        f"{fit['cycles']:.4f} cycles a wavefront")
    name, lines, cycles = fit["lines"]
    src["memory.l1_lines_per_wavefront"] = (
        head + f": {name}, {lines} lines with every word in its own bank, "
        f"{cycles:.3f}, {cycles / fit['cycles']:.2f} wavefronts: "
        f"{lines / (cycles / fit['cycles']):.2f} lines a wavefront, rounded")
    src["memory.l1_banks"] = src["memory.l1_bank_bytes"] = (
        "REFERENCE §1.3: shared memory banks 32 x 4 B, in the unified "
        "L1 / tex / smem array of 256 KB an SM; vulkan_ref's E39 ("
        + rel(d) + ") agrees: words 8 or 32 apart (4 B words) pile up "
        "8 or 32 in a bank and take 8 or 32 wavefronts, 9 or 33 apart one")


def shared_wavefronts(vk_dir, t, src):
    """MemoryTiming::shared_wavefront_cycles from vulkan_ref's E40 (the
    latest e40-shared-banks-* record under vk_dir or beside it in h100):
    compute shaders of 64 warps an SM loading or storing a shared word a
    lane and trip, the lanes' words piled up in one bank or spread over
    all (e40_shared_banks.py wavefront_fit)."""
    d = latest_record(vk_dir, "e40-shared-banks")
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    import e40_shared_banks  # noqa: E402
    s = e40_shared_banks.summary(d)
    fit = e40_shared_banks.wavefront_fit(s)
    t.setdefault("memory", {})["shared_wavefront_cycles"] = num(fit["cycles"])
    src["memory.shared_wavefront_cycles"] = (
        f"{rel(d)} ({s['device'].get('name', '?')}, driver "
        f"{s['device'].get('driver_info', '?')}, E40, e40_shared_banks.py "
        "wavefront_fit): 2 workgroups of 1024 invocations an SM, a loop "
        "loading (st_: storing) a shared word a lane and trip, SM cycles "
        "per warp and trip (the mean of the runs) where the lanes' words "
        "pile up in one bank: "
        + ", ".join(f"{v} ({w} words) {c:.3f}" for v, w, c in fit["bound"])
        + f"; the least-squares slope through 0 against the words: "
        f"{fit['cycles']:.4f} cycles a wavefront")


def store_path(vk_dir, t, src):
    """A global store's SM store path (MemoryTiming::store_sector_cycles,
    store_line_cycles, store_partial_line_cycles, store_queue_cycles) from
    vulkan_ref's E41 (the
    latest e41-store-patterns-* record under vk_dir or beside it in h100):
    fragment warps at high occupancy storing one word a lane and trip, a
    block of their own each trip, the lanes' words in 1 to 32 sectors and
    lines (e41_store_patterns.py store_fit)."""
    d = latest_record(vk_dir, "e41-store-patterns")
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    import e41_store_patterns  # noqa: E402
    s = e41_store_patterns.summary(d)
    fit = e41_store_patterns.store_fit(s)
    m = t.setdefault("memory", {})
    m["store_sector_cycles"] = num(fit["sector"])
    m["store_line_cycles"] = num(fit["line"])
    m["store_partial_line_cycles"] = num(fit["partial_line"])
    m["store_queue_cycles"] = 0
    text = (
        f"{rel(d)} ({s['device'].get('name', '?')}, driver "
        f"{s['device'].get('driver_info', '?')}, E41, e41_store_patterns.py "
        "store_fit): 512 fragment warps per graphics SM, a loop storing a "
        "word a lane and trip into a block of the warp's own, SM cycles per "
        "warp and trip (the mean of the runs) of the variants of at least 4 "
        "sectors: " + ", ".join(
            f"{v} ({x} sectors, {y} lines, {z} with a sector written in "
            f"part) {c:.3f} (fitted {f:.3f})"
            for v, x, y, z, c, f in fit["rows"])
        + f"; least squares through 0: {fit['sector']:.4f} cycles a sector, "
        f"{fit['line']:.4f} a line, {fit['partial_line']:.4f} more a line "
        "with a sector written in part")
    src["memory.store_sector_cycles"] = src["memory.store_line_cycles"] = \
        src["memory.store_partial_line_cycles"] = text
    src["memory.store_queue_cycles"] = (
        "not measured: E41 times stores at high occupancy, where the path's "
        "rate, not its depth, bounds them; 0, the path holds no work beyond "
        "the store being sent")


def texture_path(vk_dir, t, src):
    """The texture path (MemoryTiming::texture_*) from vulkan_ref's E43
    (the latest e43-texture-path-* record under vk_dir or beside it in
    h100; e43_texture_path.py texture_fit): one invocation's chain of
    texel-buffer fetches against the same chain through a storage buffer,
    in the L1 and in the L2 (the latency the path adds), and fragment
    warps at 512 per graphics SM reading a texel a trip by kind, filter and
    format (the texture units' time). Needs buffer_address.latency (the
    storage buffer chase's address, which the texel buffer's has not)."""
    d = latest_record(vk_dir, "e43-texture-path")
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    import e43_texture_path  # noqa: E402
    s = e43_texture_path.summary(d)
    address = t["buffer_address"]["latency"]
    d44 = latest_record(vk_dir, "e44-texture-check")
    import e44_texture_check  # noqa: E402
    fit = e43_texture_path.texture_fit(s, address,
                                       e44_texture_check.summary(d44))
    c = fit["rows"]
    m = t.setdefault("memory", {})
    m["texture_hit_cycles"] = max(0, nearest(fit["hit"]))
    m["texture_miss_cycles"] = max(0, nearest(fit["miss"]))
    m["texture_quad_cycles"] = num(fit["quad"])
    m["texture_fetch_quad_cycles"] = num(fit["fetch_quad"])
    m["texture_full_rate_bytes"] = fit["full_rate_bytes"]
    m["texture_filtered_full_rate_bits"] = fit["filtered_full_rate_bits"]
    m["texture_line_cycles"] = num(fit["line"])
    m["texture_miss_line_cycles"] = num(fit["miss_line"])
    head = (f"{rel(d)} ({s['device'].get('name', '?')}, driver "
            f"{s['device'].get('driver_info', '?')}, E43, e43_texture_path.py "
            "texture_fit; SM cycles, the mean of the runs)")
    chase = (f"{head}: a chase step through a texel buffer, "
             "{tb:.2f} cycles, against one through a storage buffer, "
             "{sb:.2f}, in the {lv}, plus the storage buffer's address "
             f"(buffer_address.latency, {address}) which the texel buffer's "
             "step has not: {v:.2f}, rounded")
    src["memory.texture_hit_cycles"] = chase.format(
        tb=c["c_texbuf_l1"], sb=c["c_ssbo_l1"], lv="L1", v=fit["hit"])
    src["memory.texture_miss_cycles"] = chase.format(
        tb=c["c_texbuf_l2"], sb=c["c_ssbo_l2"], lv="L2", v=fit["miss"])
    per_warp = (f"{head}: 512 fragment warps per graphics SM, a texture read "
                "a trip, bound by the texture units; SM cycles per warp and "
                "trip")
    src["memory.texture_quad_cycles"] = (
        per_warp + ": texture() nearest {:.3f}, linear {:.3f}, textureLod "
        "linear {:.3f}, textureGather {:.3f} (4-byte texels): their mean "
        "over a warp's 8 quads".format(
            c["f_nearest"], c["f_linear"], c["f_linear_lod"], c["f_gather"]))
    src["memory.texture_fetch_quad_cycles"] = (
        per_warp + ": texelFetch of one texel {:.3f}, of a texel a pixel "
        "{:.3f}: their mean over a warp's 8 quads".format(
            c["f_fetch_same"], c["f_fetch_pixel"]))
    src["memory.texture_full_rate_bytes"] = (
        per_warp + ": nearest of 16-byte texels {:.3f} against 4-byte ones "
        "{:.3f}: 16 bytes over that ratio, the nearest power of 2".format(
            c["f_nearest_f32"], c["f_nearest"]))
    src["memory.texture_filtered_full_rate_bits"] = (
        per_warp + ", and {} (E44, e44_texture_check.py): linear over "
        "nearest by the format's component bits, {}: the widest under 1.5 "
        "(a wider component's filter takes twice the texel's time)".format(
            rel(d44), ", ".join("%d bits %.2f" % (b, r) for b, r in
                                sorted(fit["filter_ratios"].items()))))
    src["memory.texture_line_cycles"] = (
        per_warp + ": textureLod linear at a hashed place a lane, {:.3f}, "
        "over the {:.2f} distinct lines a warp's read touches as the model "
        "counts them (e43_texture_path.py scattered_lines)".format(
            c["f_linear_scattered"], fit["lines"]))
    src["memory.texture_miss_line_cycles"] = (
        per_warp + ": the same in a 4 MB texture, whose lines miss the L1, "
        "{:.3f} for {:.2f} lines: what a line costs beyond "
        "texture_line_cycles".format(c["f_linear_scattered_big"],
                                     fit["big_lines"]))


def l1_per_run(run, vk_dir, t, src):
    """Whether every draw or dispatch starts with an empty L1 and its
    buffers in the L2 (MemoryTiming::l1_invalidated_per_run,
    l2_holds_uploads), from vulkan_ref's E36 (the latest e36-chase-ring-*
    record under vk_dir or beside it in h100): one warp walks the next word
    of a ring, 7 steps in 8 within a sector, every lane the same word. A
    ring of 1024 words walked for 1024 more steps (its second lap in the
    dispatch) against one of 4096 words (the dispatch's first reads of
    those words; the same dispatch, repeated before it, read them): the
    first costs the L1's latency a step; the second, when the L1 kept
    nothing from the dispatch before, a miss a sector, (miss - L1) / 8 more
    a step; that miss is the L2's when the words were in the L2 (uploaded
    or read before), DRAM's otherwise. Each flag holds when the extra per
    step is nearer that figure than the one without it. cuda_ref's E31
    (the same walks in a kernel, the latest *-e31-chase-branch beside RUN)
    is named beside it."""
    d = latest_record(vk_dir, "e36-chase-ring")
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    import e36_chase_ring  # noqa: E402
    s = e36_chase_ring.summary(d)
    steps = {r["variant"]: r["cycles_per_step"] for r in s["rows"]}
    m = t["memory"]
    words = m["sector_bytes"] // 4
    extra = steps["next_4096"] - steps["next_1024"]
    l2 = (m["l2_latency"] - m["l1_latency"]) / words
    dram = (m["dram_latency"] - m["l1_latency"]) / words
    m["l1_invalidated_per_run"] = abs(extra - l2) < abs(extra) or \
        abs(extra - dram) < abs(extra)
    m["l2_holds_uploads"] = abs(extra - l2) < abs(extra - dram)
    e31 = latest_beside(run, "e31-chase-branch")
    cyc = e31_cycles(e31)
    same, nxt, line = (cyc[(w, "none")][1] for w in ("same", "next", "line"))
    head = (f"{rel(d)} ({s['device'].get('name', '?')}, driver "
            f"{s['device'].get('driver_info', '?')}, E36): one warp's walk "
            "through the next word of a ring, every lane the same word, "
            f"cycles per step: 1024 words (a second lap) "
            f"{steps['next_1024']:.1f}, 4096 words (first reads in the "
            f"dispatch) {steps['next_4096']:.1f}: {extra:.1f} more a step, "
            f"against (miss - L1) / {words} = {l2:.1f} for an L2 hit and "
            f"{dram:.1f} for DRAM (the preset's latencies)")
    tail = (f"; cuda_ref's {rel(e31)}/e31_chase_branch.json (E31, 4096 "
            f"words, 4096 steps from an empty L1): next word {nxt:.2f}, same "
            f"word {same:.2f} ({nxt - same:.1f} more a step), next line "
            f"{line:.2f} (128 lines, 32 laps: {line - same:.1f} more)")
    src["memory.l1_invalidated_per_run"] = (
        head + ": the L1 kept nothing from the dispatch before" + tail)
    src["memory.l2_holds_uploads"] = (
        head + ": the words were in the L2 (vkref uploads a dispatch's "
        "buffers before it)" + tail)


def l1_sets(vk_dir, t, src):
    """Whether the L1's set of a line mixes in its higher bits
    (MemoryTiming::l1_hashed_sets), from vulkan_ref's E56 (the latest
    e56-load-regions-* record): one warp an SM reads 48 lines after a loop
    of its own has read them, four a pass, the lines of a pass 1 KB
    (near4_warm), 32 KB (span32k_warm) or 256 KB (span256k_warm) apart and
    passes 1 MB apart. Were the set the line modulo the set count, the
    lines 32 KB or 256 KB apart (multiples of 256 lines) would share three
    of the L1's sets and most would miss; the flag holds when those rows'
    trips (the second interval, the mean of both) cost nearer the 1 KB
    row's than the same lines read without the first loop (span256k: the
    L2's)."""
    d = latest_record(vk_dir, "e56-load-regions",
                      ("near4_warm", "span256k", "span32k_warm",
                       "span256k_warm"))
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    import device_clocks  # noqa: E402
    import e56_load_regions  # noqa: E402
    s = e56_load_regions.summary(d)
    trip = device_clocks.run_mean(s, "step2")
    near, cold = trip["near4_warm"], trip["span256k"]
    far = [trip[n] for n in ("span32k_warm", "span256k_warm")]
    m = t["memory"]
    ways = m.get("l1_ways", 4)  # sm/timing_config.h's default
    sets = m["l1_bytes"] // m["line_bytes"] // ways
    shared = sorted({sets // math.gcd(kb * 1024 // m["line_bytes"], sets)
                     for kb in (32, 256)})
    m["l1_hashed_sets"] = all(
        abs(f - near) < abs(f - cold) for f in far)
    src["memory.l1_hashed_sets"] = (
        f"{rel(d)} ({s['device'].get('name', '?')}, driver "
        f"{s['device'].get('driver_info', '?')}, E56): one warp an SM "
        "reading 48 lines a loop of its own read before, cycles a trip "
        f"(trips 16-48, the runs' mean): lines of a pass 1 KB apart "
        f"{near:.1f}, 32 KB apart {far[0]:.1f}, 256 KB apart {far[1]:.1f}; "
        f"the 256 KB lines without the first loop {cold:.1f}: lines "
        "32 or 256 KB apart stay in the L1 as lines 1 KB apart do, where "
        f"the line modulo the L1's {sets} sets would give them "
        f"{' or '.join(str(x) for x in shared)} sets of {ways} ways")


def coherent_loads(vk_dir, t, src):
    """Whether a load of a Coherent or Volatile buffer passes the L1 by
    (MemoryTiming::coherent_bypasses_l1), from vulkan_ref's E56 (the latest
    e56-load-regions-* record): one warp an SM, one load a pass, each pass
    waiting on the one before, passes 1 MB apart, so that the 48 trips' last
    32 re-read the first 16's lines (the 16 MB buffer wraps): over a plain
    buffer (d1) those re-reads are L1 hits; the flag holds when over a
    coherent buffer (d1_coh) they cost nearer what lines read before cost
    from the L2 (d1_coh_warm: a loop of the warp's own read them first)
    than the plain buffer's L1 hits. The record's SASS
    (sass-2026-12-07d) has the coherent loads as LDG.E.STRONG.GPU."""
    d = latest_record(vk_dir, "e56-load-regions",
                      ("d1", "d1_coh", "d1_coh_warm"))
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    import device_clocks  # noqa: E402
    import e56_load_regions  # noqa: E402
    s = e56_load_regions.summary(d)
    trip = device_clocks.run_mean(s, "step2")
    plain, coh, l2 = trip["d1"], trip["d1_coh"], trip["d1_coh_warm"]
    t["memory"]["coherent_bypasses_l1"] = abs(coh - l2) < abs(coh - plain)
    src["memory.coherent_bypasses_l1"] = (
        f"{rel(d)} ({s['device'].get('name', '?')}, driver "
        f"{s['device'].get('driver_info', '?')}, E56): one warp an SM "
        "re-reading lines it read earlier in the dispatch, one load a pass "
        f"(trips 16-48, the runs' mean): a plain buffer {plain:.1f} cycles a "
        f"trip (L1 hits), a coherent one {coh:.1f}, against {l2:.1f} for "
        "the coherent buffer's lines read before from the L2: the coherent "
        "loads do not find them in the L1 (the record's SASS, "
        "vulkan_ref/results/h100/sass-2026-12-07d, reads a coherent buffer "
        "with LDG.E.STRONG.GPU and a plain one with LDG.E.CONSTANT)")


def translation(vk_dir, t, src):
    """Address translation (MemoryTiming::translation_region_bytes,
    translation_miss_cycles, translation_per_run) from vulkan_ref's E56
    (the latest e56-load-regions-* record with its region variants): one
    warp an SM, one load a pass, each pass waiting on the one before,
    passes 1 MB apart through a 16 MB buffer the runner had just written
    (d1), the same after a first loop that reads one word every W of the
    buffer (d1_touchW: 64 KB, 512 KB, 1 MB, 2 MB), in lines the passes do
    not read; the first interval (trips 0-16, every pass a new MB). The
    miss: d1's pass less d1_touch64k's. The region: the largest W whose
    touches took 90 % of the miss away or more (a larger W reaches only
    part of the regions: one in W / region). Per run: each of E56's
    dispatches (every repeat) pays it anew, the runner's buffers bound
    anew (memory.uploads_per_run)."""
    touches = (("64k", 64 << 10), ("512k", 512 << 10), ("1m", 1 << 20),
               ("2m", 2 << 20))
    names = ["d1"] + ["d1_touch" + k for k, _ in touches]
    d = latest_record(vk_dir, "e56-load-regions", names)
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    import device_clocks  # noqa: E402
    import e56_load_regions  # noqa: E402
    s = e56_load_regions.summary(d)
    trip = device_clocks.run_mean(s, "step1")
    cold, touched = trip["d1"], trip["d1_touch64k"]
    miss = cold - touched
    if miss <= 0:
        fail(f"{rel(d)}: d1 ({cold:.1f}) costs no more a pass than "
             f"d1_touch64k ({touched:.1f})")
    share = {k: (cold - trip["d1_touch" + k]) / miss for k, _ in touches}
    region = max((w for k, w in touches if share[k] >= 0.9), default=0)
    if region == 0 or region == touches[-1][1]:
        fail(f"{rel(d)}: no touch spacing, or the largest, took the miss "
             "away: the region is not within the record's spacings")
    m = t["memory"]
    m["translation_region_bytes"] = region
    m["translation_miss_cycles"] = nearest(miss)
    m["translation_per_run"] = True
    where = (f"{rel(d)} ({s['device'].get('name', '?')}, driver "
             f"{s['device'].get('driver_info', '?')}, E56; the table in "
             "vulkan_ref/results/h100/README.md): one warp an SM, one load a "
             "pass waiting on the pass before, passes 1 MB apart through a "
             "16 MB buffer the runner had just written, trips 0-16, the "
             f"runs' mean: {cold:.1f} cycles a pass (d1), after a first loop "
             "read one word every 64 KB, 512 KB, 1 MB or 2 MB of the buffer "
             + ", ".join("%.1f" % trip["d1_touch" + k] for k, _ in touches))
    src["memory.translation_miss_cycles"] = (
        f"{where}: the 64 KB touches' pass {miss:.1f} cycles less")
    src["memory.translation_region_bytes"] = (
        f"{where}: the touches took "
        + ", ".join("%.2f" % share[k] for k, _ in touches)
        + f" of the miss away: {region} bytes, the largest spacing that "
        "took 0.9 or more (every region touched)")
    src["memory.translation_per_run"] = (
        f"{where}: every dispatch of the scene (each of its repeats, whose "
        "buffers the runner binds anew, memory.uploads_per_run) pays the "
        "misses again")


def latest_any_device(run, suffix):
    """The latest *-SUFFIX run directory beside RUN_DIR (its device's), or
    when there is none the latest of any device's (beside RUN_DIR's device
    directory: h100), by name (its date first)."""
    own = glob.glob(os.path.join(os.path.dirname(os.path.abspath(run)),
                                 "*-" + suffix))
    found = own or glob.glob(os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(run))), "*", "*-" + suffix))
    if not found:
        fail(f"no *-{suffix} run in cuda_ref's results")
    return max(found, key=os.path.basename)


def l2_sides(run, t, src):
    """The L2's sides (MemoryTiming::l2_sides, l2_side_of_sm,
    l2_cross_latency, l2_uploads_far, uploads_per_run) from cuda_ref's E49
    (the latest *-e49-l2-sides record of any device; summarize.e49_sides):
    the groups of SMs whose reads leave lines at each other's near latency,
    the median over readers of their chains through lines only the other
    side read, and whether a chain's first read of lines the host copied is
    nearer the preset's l2_far_latency than its l2_latency and
    dram_latency."""
    d = latest_any_device(run, "e49-l2-sides")
    try:
        s = summarize.e49_sides(d)
    except ValueError as e:
        fail(f"{rel(d)}: {e}")
    m = t["memory"]
    rows = s["rows"]
    cross = statistics.median(r["read_other"] for r in rows)
    own = statistics.median(r["read_own"] for r in rows)
    upload = statistics.median(r["upload"] for r in rows)
    m["l2_sides"] = s["sides"]
    m["l2_side_of_sm"] = s["side_of_sm"]
    m["l2_cross_latency"] = nearest(cross)
    gaps = {k: abs(upload - m[k]) for k in
            ("l2_far_latency", "l2_latency", "dram_latency")}
    m["l2_uploads_far"] = min(gaps, key=gaps.get) == "l2_far_latency"
    m["uploads_per_run"] = True
    name = (f"{rel(d)}/e49_l2_sides.json ({s['device'].get('name', '?')}, "
            "E49; the table in cuda_ref/results/h100/README.md)")
    counts = " and ".join(str(s["side_of_sm"].count(k))
                          for k in range(s["sides"]))
    src["memory.l2_sides"] = (
        f"{name}: after SM b read a region's lines, one thread's chain "
        f"through them on SM a took the second lap's latency for the b of "
        f"one group and more for the others; the readers' groups part the "
        f"SMs in {s['sides']} ({counts} SMs)")
    src["memory.l2_side_of_sm"] = (
        f"{name}: each SM's group (summarize.e49_sides: the SMs whose reads "
        "left the lines below the midpoint of reader SM a's least and most "
        "chain, for every reader a; groups numbered by their least SM)")
    src["memory.l2_cross_latency"] = (
        f"{name}: {cross:.2f} cycles, the median over readers of each "
        f"one's median step through lines an SM of the other side read "
        f"(own side {own:.2f}; per reader: " + ", ".join(
            f"SM {r['reader_sm']} {r['read_other']:.1f}" for r in rows) +
        ")" + ("" if "H200" in s["device"].get("name", "") else
               ". Measured on the " + s["device"].get("name", "?") +
               ": no H200 record has it"))
    src["memory.l2_uploads_far"] = (
        f"{name}: the first chain through lines a cudaMemcpy from the host "
        f"wrote took {upload:.2f} cycles a step (median over readers), "
        "nearest l2_far_latency of " + ", ".join(
            f"{k} {m[k]}" for k in gaps) + " (upload's lines are in the L2 "
        "but on no side)")
    src["memory.uploads_per_run"] = (
        "vulkan_ref/vk_runner.cpp: every draw and dispatch, and each of its "
        "--repeat runs, starts from the scene's inputs (Work::HostBuffer "
        "copies each buffer it binds into the device's memory before it is "
        "recorded), so that the H200's and H100's timed draws read lines "
        "the host has just written")


def upload_latency(vk_dir, t, src):
    """The first read of a line vulkan_ref's runner has just written
    (MemoryTiming::l2_upload_latency) from E50 (vulkan_ref/experiments/
    e50_upload_chase.py; the latest record beside the H200's, else one an
    H100 took): one thread's chain through a buffer the runner wrote,
    its first lap against its second (whose lines the first left on the
    SM's side, at l2_latency): l2_latency plus what the first lap takes
    more a step, the median over the record's runs. Only with
    l2_uploads_far (lines no side holds)."""
    m = t["memory"]
    if not m.get("l2_uploads_far"):
        return
    d = latest_record(vk_dir, "e50-upload-chase")
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    import e50_upload_chase  # noqa: E402
    s = e50_upload_chase.summary(d)
    gaps = []
    for name in sorted(s["runs"]):
        laps = {r["variant"]: r["cycles_per_step"]
                for r in s["runs"][name]["rows"]}
        gaps.append((name, laps["lap1"], laps["lap2"]))
    more = statistics.median(a - b for _, a, b in gaps)
    m["l2_upload_latency"] = nearest(m["l2_latency"] + more)
    src["memory.l2_upload_latency"] = (
        f"{rel(d)} ({s['device'].get('name', '?')}, driver "
        f"{s['device'].get('driver_info', '?')}; E50, the table in "
        f"{rel(os.path.dirname(d))}/README.md): one thread's chain through "
        "a 512 KB buffer the runner had just written, first lap against "
        "second in SM cycles a step (" + ", ".join(
            f"{n} {a:.1f} and {b:.1f}" for n, a, b in gaps) +
        f"): the first takes {more:.1f} more (median), on top of "
        f"l2_latency {m['l2_latency']}" +
        ("" if "H200" in s["device"].get("name", "") else
         ". Measured on the " + s["device"].get("name", "?") +
         ": no H200 record has it"))


def upload_share(vk_dir, t, src):
    """The share of an upload's lines the L2 does not hold
    (MemoryTiming::upload_dram_share) from E52 (vulkan_ref/experiments/
    e52_upload_window.py; the latest record beside the H200's, else one an
    H100 took): per scene whose 512 KB window lies in the part of its
    buffer the model keeps (its last l2_bytes), the first lap's step read
    as a mixture of the kept upload's step (the second lap's plus
    l2_upload_latency - l2_latency) and DRAM's (the second lap's plus
    dram_latency - l2_latency); the median over those scenes, within
    0..1. Only with l2_upload_latency."""
    m = t["memory"]
    if not m.get("l2_upload_latency"):
        return
    d = latest_record(vk_dir, "e52-upload-window")
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    import e52_upload_window as e52  # noqa: E402
    s = e52.summary(d)
    runs = list(s["runs"].values())
    kept_words = m["l2_bytes"] // 4
    shares = []
    for mb in e52.SIZES_MB:
        for w in e52.WINDOWS:
            words = mb * 1024 * 1024 // 4
            if e52.base_word(mb, w) < words - kept_words:
                continue
            n = e52.name(mb, w)
            rows = [next(r for r in run["rows"] if r["variant"] == n)
                    for run in runs]
            lap1 = statistics.mean(r["lap1"] for r in rows)
            lap2 = statistics.mean(r["lap2"] for r in rows)
            fast = lap2 + m["l2_upload_latency"] - m["l2_latency"]
            slow = lap2 + m["dram_latency"] - m["l2_latency"]
            shares.append((n, min(1.0, max(0.0, (lap1 - fast) /
                                           (slow - fast)))))
    if not shares:
        fail(f"{rel(d)}: no E52 window in the last l2_bytes of its buffer")
    share = statistics.median(f for _, f in shares)
    m["upload_dram_share"] = num(share)
    src["memory.upload_dram_share"] = (
        f"{rel(d)} ({s['device'].get('name', '?')}, driver "
        f"{s['device'].get('driver_info', '?')}; E52, the table in "
        f"{rel(os.path.dirname(d))}/README.md): one thread's chain through "
        "a 512 KB window of a buffer the runner had just written; per "
        "window in the buffer's last l2_bytes, (first lap - kept step) / "
        "(DRAM step - kept step), the kept step the second lap's plus "
        f"l2_upload_latency - l2_latency ({m['l2_upload_latency']} - "
        f"{m['l2_latency']}), DRAM's the second lap's plus dram_latency - "
        f"l2_latency ({m['dram_latency']} - {m['l2_latency']}): " +
        ", ".join(f"{n} {f:.2f}" for n, f in shares) +
        f"; the median {share:.3f}" +
        ("" if "H200" in s["device"].get("name", "") else
         ". Measured on the " + s["device"].get("name", "?") +
         ": no H200 record has it"))


def buffer_address(run, e2, vk_dir, t, src):
    """The figures of an access chain's first step from a storage buffer's
    base by a run-time index (TimingConfig::buffer_address): NVIDIA's code
    computes a 64-bit address from the descriptor's base there. E2's
    pointer chase timed through Vulkan (samples/microbench/chase_vulkan.py,
    the latest e2-chase-* record under vk_dir: SPIR-V whose step is that
    access chain and a load) against cuda_ref's E2 (a load through a
    pointer) in the L1 (footprints <= 16 KB): the Vulkan step less CUDA's
    is the address's latency. Its interval is the ALU pipe's."""
    sys.path.insert(0, os.path.join(ROOT, "samples", "microbench"))
    import chase_vulkan
    found = sorted(glob.glob(os.path.join(vk_dir, "e2-chase-*")))
    if not found:
        fail(f"no e2-chase-* under {rel(vk_dir)}")
    record = found[-1]
    rows, mhz = chase_vulkan.table(record)
    l1_tags = sorted(tag for kind, tag in rows if kind == "global" and
                     tag.endswith("k") and int(tag[:-1]) <= 16)
    if not l1_tags:
        fail(f"{rel(record)}: no global chase of at most 16 KB")
    vk = statistics.median(rows[("global", tag)] for tag in l1_tags)
    ca = [p for p in e2["results"]["sweep"] if p["load"] == "ca"]
    l1 = summarize.level(ca, 0, 16 << 10)
    lat = vk - l1
    t["buffer_address"] = {"latency": max(1, nearest(lat)),
                           "interval": t["alu"]["interval"]}
    src["buffer_address.latency"] = (
        f"{rel(record)} (chase_vulkan.py table, SM clock {mhz} MHz): E2's "
        "SPIR-V chase through a storage buffer (an access chain and a load "
        "a step) in the L1, "
        + ", ".join(f"{tag} {rows[('global', tag)]:.2f}" for tag in l1_tags)
        + f" cycles a step; {rel(run)}/e2_latency.json: CUDA's load through "
        f"a pointer {l1:.2f} (the ld.global.ca footprints <= 16 KB, as "
        f"memory.l1_latency); the address's latency: {lat:.2f}, rounded")
    src["buffer_address.interval"] = "the ALU pipe's (alu.interval)"
    # E38: the driver's instructions for a chase step through an unbounded
    # index, against the model's (the load and one access chain).
    d38 = latest_record(vk_dir, "e38-chase-code")
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    import e38_chase_code  # noqa: E402
    s38 = e38_chase_code.summary(d38)
    step = {r["variant"]: r["instructions_per_step"] for r in s38["rows"]}
    model = 2  # the load and the access chain (e38_chase_code.py model)
    t["buffer_address_issue_cycles"] = max(0, round(step["nomask"]) - model)
    src["buffer_address_issue_cycles"] = (
        f"{rel(d38)} ({s38['device'].get('name', '?')}, driver "
        f"{s38['device'].get('driver_info', '?')}, E38): the driver's Binary "
        "Size of one warp's chase written out, idx = ring[idx]: "
        f"{step['nomask']:.2f} instructions a step (signed index "
        f"{step['signed']:.2f}), where the model issues {model} (the load "
        "and one access chain; e38_chase_code.py model): the 64-bit "
        "address is two instructions, one issue cycle more")


def slots_beyond(found, name, kinds, pattern, warps=64):
    """{variant: issue slots per warp and trip beyond its loop's SASS
    instructions at `warps` warps per SM} of an E32/E33 record (`name`:
    its result; kinds: variant -> sass_loops key; pattern: the kernels'
    mangled-name regex)."""
    doc = json.load(open(os.path.join(found, name + ".json")))
    loops = summarize.sass_loops(os.path.join(found, name + ".sass.gz"),
                                 pattern)
    out = {}
    for v in doc["results"]["variants"]:
        ops = loops.get(kinds.get(v["variant"]))
        rows = {r["warps_per_sm"]: r for r in v["rows"]}
        if ops and warps in rows:
            out[v["variant"]] = (rows[warps]["slots_per_warp_trip"]
                                 - sum(ops.values()))
    return out


def memory_issue(run, t, src):
    """The cycles a memory instruction holds its sub-partition's issue
    beyond its own slot, from cuda_ref's E33 (cuda_ref/src/
    e33_memory_slots.cu, the latest *-e33-memory-slots directory beside
    RUN_DIR): with 64 warps per SM, a loop of 16 FFMA and one memory
    instruction of a kind a trip takes more issue slots per warp and trip
    beyond its SASS instructions than the same loop without it; the
    difference is that instruction's. By kind: a global load (ldg_word,
    every lane one word: E32's ldg_k16), a global store (stg_lanes), a
    global atomic (red_lanes, a reduction without return), a shared load
    (lds_word) and a shared store (sts_lanes). A negative difference is
    none."""
    found = latest_beside(run, "e33-memory-slots")
    kinds = {name: (k,) for name, k in summarize.E33_KIND.items()}
    beyond = slots_beyond(found, "e33_memory_slots", kinds,
                          r"MemSlotKernelILNS_4KindE(\d)E")
    keys = (("global_load_issue_cycles", "ldg_word"),
            ("global_store_issue_cycles", "stg_lanes"),
            ("global_atomic_issue_cycles", "red_lanes"),
            ("shared_load_issue_cycles", "lds_word"),
            ("shared_store_issue_cycles", "sts_lanes"))
    missing = [v for v in ["ffma_k16"] + [v for _, v in keys]
               if v not in beyond]
    if missing:
        fail(f"{rel(found)}: no {', '.join(missing)} rows with their SASS")
    base = beyond["ffma_k16"]
    for key, variant in keys:
        extra = beyond[variant] - base
        t.setdefault("memory", {})[key] = max(0, round(extra))
        src["memory." + key] = (
            f"{rel(found)}/e33_memory_slots.json (E33): 64 warps per SM, "
            "issue slots per warp and trip beyond the loop's SASS "
            f"instructions (e33_memory_slots.sass.gz): {variant} "
            f"{beyond[variant]:.2f}, ffma_k16 {base:.2f}; the "
            f"instruction's: {extra:.2f}")
    memory_issue_slack(found, t, src)


def loop_stall_sum(functions, pattern):
    """{kind: the stall counts ptxas wrote into the loop of the kernel
    whose mangled name matches `pattern` (its group 1: the kind), summed
    over sass_control.loop()} of a parsed SASS listing
    (sass_control.parse)."""
    import sass_control  # noqa: E402  (beside this script)
    out = {}
    for name, code in functions:
        m = re.search(pattern, name)
        body = sass_control.loop(code) if m else []
        if body:
            out[int(m.group(1))] = sum(i["stall"] for i in body)
    return out


def memory_issue_slack(found, t, src):
    """How many hold cycles a sub-partition may owe before they stop its
    issue (memory.issue_hold_slack_cycles), from E33's one-warp rows: a
    loop's trip takes its SASS instructions' stall counts and a few
    cycles more (the branch back); if the store's and the atomic's loops
    take no more cycles beyond their stall counts than the plain FFMA
    loop does (less than half their hold more), one warp did not pay the
    holds that 64 warps pay: they were paid in the cycles the
    sub-partition had nothing to issue. The slack is then the largest of
    those holds."""
    import sass_control  # noqa: E402  (beside this script)
    with gzip.open(os.path.join(found, "e33_memory_slots.sass.gz"), "rt") as f:
        functions = sass_control.parse(f.read())
    stalls = loop_stall_sum(functions, r"MemSlotKernelILNS_4KindE(\d)E")
    doc = json.load(open(os.path.join(found, "e33_memory_slots.json")))
    one = {v["variant"]: r["cycles_per_trip"] for v in doc["results"]["variants"]
           for r in v["rows"] if r["warps_per_sm"] == 1}
    excess = {}
    for variant in ("ffma_k16", "stg_lanes", "red_lanes"):
        kind = summarize.E33_KIND[variant]
        if variant not in one or kind not in stalls:
            fail(f"{rel(found)}: no one-warp {variant} row with its SASS loop")
        excess[variant] = one[variant] - stalls[kind]
    holds = {"stg_lanes": t["memory"]["global_store_issue_cycles"],
             "red_lanes": t["memory"]["global_atomic_issue_cycles"]}
    unpaid = all(excess[v] - excess["ffma_k16"] < holds[v] / 2 for v in holds)
    t["memory"]["issue_hold_slack_cycles"] = max(holds.values()) if unpaid else 0
    src["memory.issue_hold_slack_cycles"] = (
        f"{rel(found)}/e33_memory_slots.json (E33): one warp per SM, cycles "
        "per trip beyond the loop's SASS stall counts "
        "(e33_memory_slots.sass.gz, sass_control.py): " + ", ".join(
            f"{v} {one[v]:.2f} - {stalls[summarize.E33_KIND[v]]} = "
            f"{excess[v]:.2f}" for v in excess) +
        (f"; the store and the atomic (holds {holds['stg_lanes']} and "
         f"{holds['red_lanes']}) take less than half their hold more than "
         "ffma_k16: one warp paid neither, so the slack holds the largest"
         if unpaid else "; the holds show at one warp: no slack"))


def predication(vk_dir, t, src):
    """The largest selection NVIDIA's compiler predicates, from E27
    (vulkan_ref/experiments/e27_branch_bodies.py), the latest
    e27-branch-bodies-* record: a loop of E24's walk with, after each
    load, a branch nobody takes whose body is B dependent integer
    multiply-adds. A predicated body issues on every trip, so its cost
    grows with B; a branched one costs the same whatever B. The largest B
    whose never-taken loop costs more than 1.1 times the loop with the
    largest body is the most instructions the model predicates."""
    record, s = latest_vk_summary(vk_dir, "e27-branch-bodies",
                                  "e27_branch_bodies")
    rows = [r for r in s["runs"]["run1"]["rows"]
            if r["taken"] == "never"]
    if not rows:
        fail(f"{rel(record)}: no never-taken variants")
    branched = max(rows, key=lambda r: r["body"])
    predicated = [r for r in rows
                  if r["slots_per_warp_trip"] >
                  1.1 * branched["slots_per_warp_trip"]]
    if not predicated:
        fail(f"{rel(record)}: no body costs more than the largest one's")
    most = max(r["body"] for r in predicated)
    t["predicate_max_instructions"] = most
    src["predicate_max_instructions"] = (
        f"{rel(record)} (E27, e27_branch_bodies.py summary, run1): issue "
        "slots per warp and trip of a loop whose never-taken branch holds B "
        "integer multiply-adds, 512 warps per SM: "
        + ", ".join(f"B={r['body']} {r['slots_per_warp_trip']:.2f}"
                    for r in rows)
        + f"; up to B = {most} the cost grows with the body (issued on "
        f"every trip: predicated), from the next on it is about B = "
        f"{branched['body']}'s {branched['slots_per_warp_trip']:.2f} "
        "(branched around)")
    d = latest_record(vk_dir, "e46-chase-body")
    sys.path.insert(0, os.path.join(ROOT, "vulkan_ref", "experiments"))
    import e46_chase_body  # noqa: E402
    s46 = e46_chase_body.summary(d)
    fit = e46_chase_body.predicate_fit(s46)
    if fit["max_written"] is None:
        fail(f"{rel(d)}: no side writing more registers than the predicated "
             "ones is branched (e46_chase_body.py predicate_fit)")
    t["predicate_max_written"] = fit["max_written"]
    src["predicate_max_written"] = (
        f"{rel(d)} ({s46['device'].get('name', '?')}; E46, "
        "e46_chase_body.py predicate_fit): a chase loop at 512 warps per SM "
        "with a branch nobody takes around float adds to R registers, issue "
        "slots per warp and trip over the loop without it: "
        + ", ".join(f"R={e46_chase_body.IF_WRITES[v]} {fit['slots'][v]:.2f}"
                    for v in e46_chase_body.IF_WRITES)
        + "; a predicated body issues at least a slot an add: "
        + ", ".join(f"R={e46_chase_body.IF_WRITES[v]}"
                    for v in fit["predicated"])
        + f" predicated, more branched (E27's bodies above write one "
        "register); the most registers measured predicated")
    # The moves of a predicated side that holds a loop, from the SASS the
    # driver made of E46's scenes.
    import nv_shader_cache  # noqa: E402
    sass = nv_shader_cache.latest_with_scene(
        os.path.join(os.path.dirname(os.path.abspath(vk_dir)), "h100"),
        "e46_chase_body__" + e46_chase_body.LOOP_SIDES[0])
    if sass is None:
        fail("no SASS record of E46's scenes in vulkan_ref/results/h100")
    moves = e46_chase_body.loop_moves(sass)
    per = {moves[v][0] for v in e46_chase_body.LOOP_SIDES}
    if len(per) != 1 or min(per) != int(min(per)):
        fail(f"{rel(sass)}: E46's loops whose predicated side holds a loop "
             f"disagree on their moves per register and pass: {moves}")
    t["selection_loop_moves"] = int(min(per))
    src["selection_loop_moves"] = (
        f"{rel(sass)} (the SASS NVIDIA's driver made of E46's scenes, "
        "e46_chase_body.py loop_moves; index.json names the GPU and "
        "driver): in the loop unrolled "
        f"{moves[e46_chase_body.LOOP_SIDES[0]][1]} trips a pass, moves "
        "(MOV, IMAD.MOV) per register a predicated side writes and pass: "
        + ", ".join(f"{v} {moves[v][0]:g} ({e46_chase_body.SIDE_WRITES[v]} "
                    "registers, a side holding a loop)"
                    for v in e46_chase_body.LOOP_SIDES)
        + f", chase_if1 {moves['chase_if1'][0]:g} (1 register, no loop in "
        "its side): the last copy's adds write other registers, selected "
        "and moved back")


def branches(run, t, src):
    """The waits around a branch. E29 (cuda_ref/src/e29_branch_bodies.cu,
    the latest *-e29-branch-bodies directory beside RUN_DIR): the BSSY and
    BSYNC of a kernel whose SASS branches around its body are
    selection_sync_slots. E30 (cuda_ref/src/e30_branch_waits.cu, the latest
    *-e30-branch-waits directory) times a compare's predicate, the branch
    and BSYNC apart (summarize.e30_waits, with the ALU latency above):
    predicate_latency, branch.latency and selection_sync_latency, with the
    loop test NVIDIA's code computes a trip ahead. E31
    (cuda_ref/src/e31_chase_branch.cu) confirms that they add to a chase
    loop's load rather than overlap it."""
    found = latest_beside(run, "e29-branch-bodies")
    name = f"{rel(found)}/e29_branch_bodies.json"
    doc = json.load(open(os.path.join(found, "e29_branch_bodies.json")))
    sass = summarize.e29_sass(found)
    if not sass:
        fail(f"{rel(found)}: no e29_branch_bodies.sass.gz")
    one, slots = {}, set()
    for v in doc["results"]["variants"]:
        rows = [r for r in v["rows"] if r["warps_per_sm"] == 1]
        if rows:
            one[v["variant"]] = rows[0]["cycles_per_trip"]
        ops = sass.get((summarize.E29_TEST[v["branch"]], v["body"]), {})
        if ops.get("BSSY", 0) > 0:
            slots.add(ops["BSSY"] + ops.get("BSYNC", 0))
    if len(slots) != 1 or "none" not in one:
        fail(f"{name}: needs kernels that branch around their body, each "
             "with the same BSSY and BSYNC, and the loop without a branch")
    t["selection_sync_slots"] = slots.pop()
    src["selection_sync_slots"] = (
        f"{rel(found)}/e29_branch_bodies.sass.gz: each kernel that branches "
        "around its body holds one BSSY (before the branch) and one BSYNC "
        "(at the merge); the predicated ones none")
    e30 = latest_beside(run, "e30-branch-waits")
    e30_name = f"{rel(e30)}/e30_branch_waits.json"
    _, _, pred, branch, sync = summarize.e30_waits(
        json.load(open(os.path.join(e30, "e30_branch_waits.json"))),
        t["alu"]["latency"])
    # E31 (the latest *-e31-chase-branch directory): one warp's chase loop
    # with the never-taken branched body against the same loop without it,
    # on each walk; the body's waits add to the load's.
    e31 = latest_beside(run, "e31-chase-branch")
    cyc = e31_cycles(e31)
    adds = ", ".join(
        f"{walk} {cyc[(walk, 'never_b24')][1] - cyc[(walk, 'none')][1]:.2f}"
        for walk in ("same", "next", "line"))
    confirm = (f"; {rel(e31)}/e31_chase_branch.json (E31): one warp's "
               f"chase loop, the branched never-taken body adds per trip "
               f"{adds} cycles to the walks without it (same word, next "
               f"word, next line): these waits add to the load's")
    t.setdefault("branch", {})["latency"] = round(branch)
    t["branch"]["interval"] = 1
    t["selection_sync_latency"] = round(sync)
    t["predicate_latency"] = round(pred)
    src["branch.latency"] = (
        f"{e30_name} (E30, summarize.py --e30): the branch to the next "
        f"instruction {branch:.2f} cycles, rounded" + confirm)
    src["selection_sync_latency"] = (
        f"{e30_name} (E30, summarize.py --e30): BSYNC {sync:.2f} cycles, "
        "rounded" + confirm)
    src["predicate_latency"] = (
        f"{e30_name} (E30, summarize.py --e30): a compare's predicate, "
        f"ISETP to a predicated LOP3, {pred:.2f} cycles, rounded; the loop "
        "test the model computes a trip ahead (NVIDIA's code, E6's SASS)"
        + confirm)
    static_loop_test(e31, t, src)


def static_loop_test(e31, t, src):
    """Whether ptxas counts a loop test's predicate wait in stall counts
    that know no load's wait (static_loop_test), from E31's SASS: in the
    plain chase loop (ChaseKernel<0>) the compare of the loop's branch
    issues a few stall cycles before the instruction that waits for the
    load, and that instruction's own stall makes up the rest of
    predicate_latency before the branch: paid after the load's wait."""
    import sass_control  # noqa: E402  (beside this script)
    path = os.path.join(e31, "e31_chase_branch.sass.gz")
    with gzip.open(path, "rt") as f:
        functions = sass_control.parse(f.read())
    code = next((c for name, c in functions if "ChaseKernelILi0E" in name),
                None)
    if code is None:
        fail(f"{rel(path)}: no ChaseKernel<0>")
    found = None
    loop = sass_control.loop(code)
    if loop:
        pred = loop[-1]["predicate"].lstrip("@!")
        body = loop[:-1]
        setp = [j for j, i in enumerate(body) if i["opcode"].startswith(
            "ISETP") and re.search(r"\b%s\b" % pred, i["operands"])]
        loads = [i for i in body if i["opcode"].startswith("LDG")]
        waiter = body[-1] if body else None
        if (setp and loads and loads[0]["write_barrier"] is not None
                and (waiter["wait_mask"] >> loads[0]["write_barrier"]) & 1):
            before = sum(i["stall"] for i in body[setp[-1]:-1])
            found = (body[setp[-1]]["text"], before, waiter["text"],
                     waiter["stall"])
    if found is None:
        fail(f"{rel(path)}: ChaseKernel<0>'s loop is not a compare, a load "
             "and a wait for it before the branch")
    setp_text, before, waiter_text, stall = found
    pred = t["predicate_latency"]
    t["static_loop_test"] = before + stall >= pred - 1 and stall > 1
    src["static_loop_test"] = (
        f"{rel(path)} (E31, sass_control.py): ChaseKernel<0>'s loop test "
        f"`{setp_text}` issues {before} stall cycles before `{waiter_text}`, "
        f"which waits for the loop's load and stalls {stall} more before the "
        f"branch: {before + stall} cycles of predicate_latency ({pred}) "
        "written into the code, " + (
            "the rest of them after the load's wait"
            if t["static_loop_test"] else "not enough to show"))


def e31_cycles(found):
    """{(walk, body): {warps per SM: cycles per trip}} of an E31 record."""
    doc = json.load(open(os.path.join(found, "e31_chase_branch.json")))
    return {(v["walk"], v["body"]): {r["warps_per_sm"]: r["cycles_per_trip"]
                                     for r in v["rows"]}
            for v in doc["results"]["variants"]}


def instruction_cache(run, t, src):
    """The sub-partition's instruction cache from E19
    (cuda_ref/src/e19_instruction_fetch.cu), the latest
    *-e19-instruction-fetch directory beside RUN_DIR: one warp per
    sub-partition (4 warps per SM) runs loops of N independent FFMA. The
    largest loop that still issues at the full rate (within 10 % of the
    fastest), rounded up to a power of two, is the cache's size; the loops of
    at least twice that size stream their code from the next level, and
    their cycles per instruction, times the instructions per line, are the
    cycles per line fetched. The SASS dump gives the bytes per
    instruction."""
    found = latest_beside(run, "e19-instruction-fetch")
    name = f"{rel(found)}/e19_instruction_fetch.json"
    doc = json.load(open(os.path.join(found, "e19_instruction_fetch.json")))
    per_w = {e["warps_per_sm"]: e["rows"] for e in doc["results"]["ffma"]}
    if 4 not in per_w:
        fail(f"{name}: no ffma series with 4 warps per SM")
    rows = per_w[4]
    key = "cycles_per_instruction_per_subpartition"
    fastest = min(r[key] for r in rows)
    fits = [r for r in rows if r[key] <= 1.1 * fastest]
    largest = max(r["sass_bytes_per_body"] for r in fits)
    beyond = [r for r in rows if r["sass_bytes_per_body"] > largest]
    if not beyond:
        fail(f"{name}: every loop issued at the full rate: no size found")
    size = 1
    while size < largest:
        size *= 2
    # Bytes per SASS instruction: the step between consecutive addresses.
    addresses = []
    with gzip.open(os.path.join(found, "e19_instruction_fetch.sass.gz"),
                   "rt") as f:
        for line in f:
            m = re.match(r"\s+/\*([0-9a-f]{4})\*/", line)
            if m:
                addresses.append(int(m.group(1), 16))
            if len(addresses) >= 64:
                break
    steps = sorted({b - a for a, b in zip(addresses, addresses[1:]) if b > a})
    if not steps:
        fail(f"{rel(found)}/e19_instruction_fetch.sass.gz: no addresses")
    instruction_bytes = steps[0]
    line_bytes = 128  # sm/timing_config.h's default, not measured
    streaming = [r for r in rows if r["sass_bytes_per_body"] >= 2 * size]
    if not streaming:
        fail(f"{name}: no loop of at least twice {size} bytes")
    per_instruction = statistics.median(r[key] for r in streaming)
    per_line = per_instruction * line_bytes / instruction_bytes
    t["icache_bytes"] = size
    t["instruction_bytes"] = instruction_bytes
    t["icache_fill_cycles"] = nearest(per_line)
    t["icache_line_bytes"] = line_bytes
    t["icache_ways"] = 4
    src["icache_bytes"] = (
        f"{name}: results.ffma, 4 warps per SM (one per sub-partition): "
        "cycles per instruction " + ", ".join(
            f"{r['sass_bytes_per_body'] // 1024} KB {r[key]:.3f}"
            for r in rows)
        + f"; the largest loop body within 10 % of the fastest is {largest} "
        f"bytes of SASS (and the loop's 3 control instructions), the next "
        f"one measured is slower: {size} bytes, the power of two that holds "
        "it")
    src["instruction_bytes"] = (
        f"{rel(found)}/e19_instruction_fetch.sass.gz: consecutive "
        f"instructions' addresses differ by {instruction_bytes} bytes")
    src["icache_fill_cycles"] = (
        f"{name}: results.ffma, 4 warps per SM: the median cycles per "
        "instruction of the loops of at least twice icache_bytes ("
        + ", ".join(f"{r['sass_bytes_per_body'] // 1024} KB {r[key]:.3f}"
                    for r in streaming)
        + f") {per_instruction:.3f}, times {line_bytes // instruction_bytes} "
        f"instructions per {line_bytes}-byte line: {per_line:.2f} cycles per "
        "line fetched, one line at a time")
    src["icache_line_bytes"] = DEFAULT + " (128-byte lines)"
    src["icache_ways"] = DEFAULT + " (4 ways, the least recently used line out)"


def policy(src):
    src["two_level_active"] = DEFAULT
    src["context_switch"] = DEFAULT + " (free: resident warps keep their " \
        "registers, REFERENCE §1.2)"
    src["swap_cycles_per_register"] = DEFAULT
    src["cse"] = DEFAULT + " (true: NVIDIA's compiler computes a repeated " \
        "expression once)"
    src["fuse_pairs"] = DEFAULT + " (true: the pairs NVIDIA's compiler " \
        "emits as one SASS instruction, e.g. a multiply and its add as " \
        "IMAD or FFMA, issue as one)"
    src["loop_control_in_bubbles"] = DEFAULT + " (false: on, E6's rows " \
        "come closer and E31's chase rows move further away; " \
        "emulator/sm/README.md)"
    src["free_layout_branches"] = DEFAULT + " (true: an unconditional " \
        "branch to the next block or a loop's back edge has no SASS " \
        "instruction of its own once the compiler lays out blocks and " \
        "rotates loops; it issues with the instruction before it)"


def generate(run, vk_dir, out_path):
    files = {n: need(run, n) for n in
             ("e0_fingerprint", "e2_latency", "e3_instructions", "e5_hiding")}
    e4 = summarize.load(run, "e4_smsp")
    t, src = {}, {}
    clock(run, files, t, src)
    sm_counts(files["e0_fingerprint"], vk_dir, t, src, run)
    pipes(run, files["e3_instructions"], e4, t, src)
    conversions(run, t, src)
    memory(run, files["e0_fingerprint"], files["e2_latency"],
           files["e5_hiding"], t, src)
    loop_entry(vk_dir, t, src)
    graphics_units(vk_dir, t, src)
    fragment_tiles(vk_dir, t, src)
    loops(vk_dir, t, src)
    output_merge(vk_dir, t, src)
    front_end(vk_dir, t, src)
    scheduler(run, t, src)
    instruction_cache(run, t, src)
    l1_miss_lines(run, t, src)
    graphics_l1_miss_lines(vk_dir, t, src)
    l1_per_run(run, vk_dir, t, src)
    l1_sets(vk_dir, t, src)
    coherent_loads(vk_dir, t, src)
    translation(vk_dir, t, src)
    l2_sides(run, t, src)
    upload_latency(vk_dir, t, src)
    upload_share(vk_dir, t, src)
    l1_wavefronts(vk_dir, t, src)
    shared_wavefronts(vk_dir, t, src)
    store_path(vk_dir, t, src)
    buffer_address(run, files["e2_latency"], vk_dir, t, src)
    texture_path(vk_dir, t, src)
    memory_issue(run, t, src)
    predication(vk_dir, t, src)
    branches(run, t, src)
    policy(src)
    command = ["cuda_ref/results/make_timing_preset.py", rel(run),
               "--vulkan-findings", rel(vk_dir)]
    if out_path:
        command += ["-o", rel(out_path)]
    doc = {
        "generated_by": " ".join(command),
        "run": rel(run),
        "sources": src,
        "timing": t,
    }
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", metavar="RUN_DIR")
    ap.add_argument("--vulkan-findings", metavar="DIR",
                    default=os.path.join(ROOT, "vulkan_ref", "results",
                                         "h200"))
    ap.add_argument("-o", metavar="OUT.json", dest="out")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when OUT.json differs from what the "
                    "results give; write nothing")
    a = ap.parse_args(argv)
    if a.check and not a.out:
        ap.error("--check needs -o OUT.json")
    text = generate(a.run, a.vulkan_findings, a.out)
    if a.check:
        try:
            old = open(a.out, encoding="utf-8").read()
        except OSError as e:
            print(f"make_timing_preset.py: {e}", file=sys.stderr)
            return 1
        if old != text:
            import difflib
            sys.stderr.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True),
                rel(a.out) + " (committed)", "generated"))
            print(f"make_timing_preset.py: {rel(a.out)} is not what the "
                  "results give; regenerate it with: "
                  + json.loads(text)["generated_by"], file=sys.stderr)
            return 1
        return 0
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
