#!/usr/bin/env python3
"""The headline tables of a cuda_ref run, from its result files alone.

  cuda_ref/results/summarize.py RUN_DIR                 prints the markdown
  cuda_ref/results/summarize.py --update README RUN_DIR replaces the text
      between "<!-- summary -->" and "<!-- end summary -->" in README
  cuda_ref/results/summarize.py --e29 RUN_DIR [--update README | --check
      README] E29's table (a run of e29_branch_bodies alone), in README's
      "<!-- table e29 -->" section; --e30, --e31, --e32, --e33, --e49,
      --e51 and --e55 the same for E30, E31, E32, E33, E49, E51 and E55

RUN_DIR holds what cuda_ref/run_h200.sh wrote (e0_fingerprint.json ...
e6_divergence.json, provenance.txt). Every number below is computed here
from those files by the rule its table states; none is typed by hand.
"""
import collections
import gzip
import json
import os
import re
import statistics
import sys

BEGIN, END = "<!-- summary -->", "<!-- end summary -->"


def load(run, name):
    path = os.path.join(run, name + ".json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def fmt(x, digits=3):
    if x is None:
        return "—"
    if isinstance(x, int):
        return str(x)
    if abs(x) >= 1000:
        return f"{x:.0f}"
    return f"{x:.{digits}g}"


def size(b):
    for unit, n in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if b >= n:
            v = b / n
            return f"{v:g} {unit}"
    return f"{b} B"


def table(out, header, rows):
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "---|" * len(header))
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    out.append("")


def provenance(run, out):
    path = os.path.join(run, "provenance.txt")
    lines = open(path).read().splitlines() if os.path.exists(path) else []
    keep = [l for l in lines if l.split(":")[0] in
            ("command", "commit", "date", "gpu", "nvcc", "host")]
    out.append("Run: `" + os.path.relpath(run, os.path.dirname(os.path.dirname(run)))
               + "` — " + "; ".join(keep) + ".")
    out.append("")


def e0(d, out):
    p, a = d["results"]["properties"], d["results"]["attributes"]
    out.append("### E0: fingerprint\n")
    rows = [
        ("SMs", p["multiProcessorCount"]),
        ("registers per SM / per block", f"{p['regsPerMultiprocessor']} / {p['regsPerBlock']}"),
        ("threads per SM / per block", f"{p['maxThreadsPerMultiProcessor']} / {p['maxThreadsPerBlock']}"),
        ("blocks per SM", p["maxBlocksPerMultiProcessor"]),
        ("shared memory per SM / per block / opt-in / reserved per block",
         f"{p['sharedMemPerMultiprocessor']} / {p['sharedMemPerBlock']} / "
         f"{p['sharedMemPerBlockOptin']} / {p['reservedSharedMemPerBlock']} B"),
        ("L2", size(p["l2CacheSize"])),
        ("memory", size(p["totalGlobalMem"])),
        ("SM clock (attribute) / measured before, after",
         f"{a['cudaDevAttrClockRate'] / 1000:g} MHz / "
         f"{d['clock_before']['sm_mhz_measured']:.0f}, {d['clock_after']['sm_mhz_measured']:.0f} MHz"),
    ]
    table(out, ["property", "value"], rows)


def e1(d, out):
    r = d["results"]
    cells = r["cells"]
    out.append("### E1: occupancy\n")
    zero = sum(1 for c in cells if c.get("blocks_per_sm") == 0)
    errs = sum(1 for c in cells if "error" in c)
    agree = sum(1 for p in r["probe"] if p["predicted"] == p["measured"])
    out.append(
        f"{len(cells)} cells (registers {sorted({c['regs'] for c in cells})}, "
        f"{len(d['parameters']['blocks'])} block sizes, "
        f"{len(d['parameters']['dyn_smem'])} dynamic shared memory sizes, "
        f"carveouts {d['parameters']['carveouts']}): {zero} cells give 0 blocks, "
        f"{errs} were refused by the API. Residency probe: the blocks seen "
        f"resident equal cudaOccupancyMaxActiveBlocksPerMultiprocessor in "
        f"{agree} of {len(r['probe'])} launches. `warpsim occupancy` "
        "(emulator/sm/occupancy.h) is tested against every cell.\n")
    table(out, ["launch at the limit", "registers", "threads", "launch result"],
          [(l["what"], l["regs"], l["block"], l["launch"]) for l in r["limits"]])


def level(points, lo, hi):
    v = [p["cycles_per_step"] for p in points if lo <= p["footprint_bytes"] <= hi]
    return statistics.median(v) if v else None


def breakpoint(points, low_level):
    """The last footprint within 10 % of low_level and the next one."""
    pts = sorted(points, key=lambda p: p["footprint_bytes"])
    for a, b in zip(pts, pts[1:]):
        if (abs(a["cycles_per_step"] - low_level) <= 0.1 * low_level and
                b["cycles_per_step"] > 1.1 * low_level):
            return a["footprint_bytes"], b["footprint_bytes"]
    return None, None


def e2(d, out):
    r = d["results"]
    ca = [p for p in r["sweep"] if p["load"] == "ca"]
    cg = [p for p in r["sweep"] if p["load"] == "cg"]
    smem = statistics.median(p["cycles_per_step"] for p in r["shared"])
    l1 = level(ca, 0, 16 << 10)
    l2 = level(cg, 1 << 20, 8 << 20)
    hbm = level(cg, 512 << 20, 1 << 40)
    l1_lo, l1_hi = breakpoint(ca, l1)
    l2_lo, l2_hi = breakpoint(cg, l2)
    mhz = d["clock_before"]["sm_mhz_measured"]
    out.append("### E2: latency (one thread, dependent loads, 128-B stride)\n")
    rows = [
        ("shared memory (ld.shared)", fmt(smem), fmt(smem / mhz * 1000), "median over the shared-memory chains"),
        ("L1 (ld.global.ca)", fmt(l1), fmt(l1 / mhz * 1000), "median of ca footprints ≤ 16 KB"),
        ("L2 (ld.global.cg)", fmt(l2), fmt(l2 / mhz * 1000), "median of cg footprints 1–8 MB"),
        ("HBM (ld.global.cg, sequential)", fmt(hbm), fmt(hbm / mhz * 1000), "median of cg footprints ≥ 512 MB"),
    ]
    for p in r["hbm_random"]:
        rows.append((f"HBM, {p['pattern']} chain over {size(p['footprint_bytes'])}",
                     fmt(p["cycles_per_step"]), fmt(p["ns_per_step"]), "one run"))
    table(out, ["level", "cycles", "ns", "rule"], rows)
    h = r["l2_histogram"]
    out.append(
        f"Capacity breakpoints (last footprint at the level, first above it by "
        f"> 10 %): L1 between {size(l1_lo) if l1_lo else '?'} and "
        f"{size(l1_hi) if l1_hi else '?'}; L2 as one thread sees it between "
        f"{size(l2_lo) if l2_lo else '?'} and {size(l2_hi) if l2_hi else '?'} "
        f"(the device reports {size(load_l2(d))} of L2). L2 per-access "
        f"latency over {h['samples']} loads of an {size(h['footprint_bytes'])} "
        f"chain: min {h['min']}, median {h['median']}, p90 {h['p90']}, max "
        f"{h['max']} cycles.\n")


def load_l2(d):
    return d.get("_l2", 0)


def e3(d, out):
    r = d["results"]
    out.append("### E3: instruction latency and throughput (one warp, then many)\n")
    ops = []
    for x in r["latency"]:
        if x["op"] not in ops:
            ops.append(x["op"])
    rows = []
    for op in ops:
        lat = [x for x in r["latency"] if x["op"] == op]
        ilp1 = next(x for x in lat if x["ilp"] == 1)
        interval = min(x["cycles_per_op"] for x in lat)
        thr = [x for x in r["throughput"] if x["op"] == op]
        best = max(thr, key=lambda x: x["warp_instructions_per_cycle_per_sm_mean"])
        rows.append((op, ilp1.get("sass", op), fmt(ilp1["cycles_per_op"]),
                     fmt(interval), fmt(best["warp_instructions_per_cycle_per_sm_mean"]),
                     f"{best['warps_per_sm']} warps, ILP {best['ilp']}"))
    table(out, ["op", "SASS", "latency (cycles, ILP 1)",
                "issue interval (cycles per op, best ILP, one warp)",
                "peak warp instructions / cycle / SM", "at"], rows)


def e4(d, out):
    out.append("### E4: which warps share a sub-partition (SMSP)\n")
    rows = []
    for c in d["results"]["configs"]:
        shared = [p for p in c["pairs"] if p["shared"]]
        h = c["hypotheses"]
        rows.append((c["warps_per_block"], len(c["pairs"]),
                     ", ".join(f"{p['i']}+{p['j']} ({p['warpid_i']}+{p['warpid_j']})"
                               for p in shared),
                     f"{h['warpid_mod_4']['correct']}/{h['warpid_mod_4']['of']}",
                     fmt(min(p["ratio"] for p in shared)) if shared else "—",
                     fmt(max(p["ratio"] for p in c["pairs"] if not p["shared"]))))
    table(out, ["warps in the block", "pairs",
                "pairs that slow each other: warp index (%warpid)",
                "'SMSP = %warpid mod 4' right", "smallest shared ratio",
                "largest unshared ratio"], rows)


def knee(points, key, x="warps_per_sm", frac=0.9):
    top = max(p[key] for p in points)
    for p in sorted(points, key=lambda p: p[x]):
        if p[key] >= frac * top:
            return p[x], top
    return None, top


def e5(d, out):
    r = d["results"]
    out.append("### E5: latency hiding (warps per SM against throughput)\n")
    w, top = knee(r["ffma"], "ipc_mean")
    out.append(f"Dependent FFMA chains (one per warp): IPC per SM reaches 90 % of "
               f"its plateau {fmt(top)} at {w} warps per SM "
               f"(IPC at 1 warp: {fmt(r['ffma'][0]['ipc_mean'])}).\n")
    rows = []
    for placement in ("l2", "hbm"):
        for width in (4, 16):
            for k in (1, 2, 4, 8):
                pts = [p for p in r["loads"] if p["placement"] == placement and
                       p["bytes_per_lane"] == width and p["k"] == k and
                       not p.get("skipped")]
                if not pts:
                    continue
                w, top = knee(pts, "bytes_per_cycle_per_sm")
                at = next(p for p in pts if p["warps_per_sm"] == w)
                rows.append((placement.upper(), width, k, fmt(top),
                             fmt(max(p["gb_per_s"] for p in pts)), w,
                             fmt(at["bytes_in_flight_per_sm"]),
                             fmt(pts[0]["cycles_per_iteration"])))
    table(out, ["data in", "bytes per lane", "loads per warp in flight (k)",
                "plateau bytes / cycle / SM", "peak GB/s (all SMs)",
                "knee: warps per SM at 90 % of plateau",
                "bytes in flight per SM at the knee",
                "cycles per iteration at 1 warp"], rows)


def e6(d, out):
    r = d["results"]
    f, fr, lf = r["fit"], r["fit_regions"], r["loop_fit"]
    out.append("### E6: divergence cost (one warp)\n")
    out.append(
        f"Least squares over {f['points']} two-way and P-path variants: "
        f"cycles ≈ {fmt(f['overhead_cycles'])} + {fmt(f['ffma_cycles'])} × "
        f"(FFMAs summed over the paths that ran); with a term per branch region: "
        f"{fmt(fr['base_cycles'])} + {fmt(fr['per_region_cycles'])} × regions + "
        f"{fmt(fr['ffma_cycles'])} × FFMAs. Loops with per-lane trip counts: "
        f"cycles ≈ {fmt(lf['base_cycles'])} + {fmt(lf['per_trip_cycles'])} × "
        f"(the largest trip count) — the warp runs until its last lane is done.\n")
    rows = [(f"lane < {x['k']}", x["n_a"], x["n_b"], x["serialized_ffma"],
             x["cycles_median"]) for x in r["two_way"] if x["n_a"] == x["n_b"] == 256]
    rows += [(f"{x['p']} paths (lane % {x['p']})", x["n"], "", x["serialized_ffma"],
              x["cycles_median"]) for x in r["paths"] if x["n"] == 256]
    rows += [(f"nested depth {x['depth']} ({x['leaves']} leaves)", x["n"], "",
              x["serialized_ffma"], x["cycles_median"]) for x in r["nested"]]
    rows += [(f"loop {x['pattern']} (max trip {x['max_trip']})", "", "", "",
              x["cycles_median"]) for x in r["loops"]]
    table(out, ["variant", "FFMAs on path A / each path", "path B",
                "FFMAs serialized", "cycles (median)"], rows)


# One instruction line of a cuobjdump -sass listing: its address, guard
# predicate, mnemonic with modifiers (LDG.E.STRONG.SM) and operands.
SASS_LINE = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P[T0-9]+\s+)?"
                       r"([A-Z][A-Z0-9.]*)([^;]*);")


def sass_functions(path, pattern):
    """The functions of a cuobjdump -sass listing (gzipped; none when the
    file is missing) whose mangled name matches the regex `pattern`: per
    function the match's groups as ints and its instructions, in order, as
    (address, mnemonic with modifiers, operands)."""
    if not os.path.exists(path):
        return
    with gzip.open(path, "rt") as f:
        text = f.read()
    for part in re.split(r"\n\s*Function : ", text)[1:]:
        m = re.search(pattern, part.split("\n")[0])
        if not m:
            continue
        ins = []
        for line in part.split("\n"):
            x = SASS_LINE.match(line)
            if x:
                ins.append((int(x.group(1), 16), x.group(3), x.group(4)))
        yield tuple(int(g) for g in m.groups()), ins


def sass_counts(path, pattern):
    """Per function of the listing whose name matches `pattern` (keyed by
    its groups as ints): its instructions' mnemonics, without modifiers,
    counted."""
    return {key: collections.Counter(op.split(".")[0] for _, op, _ in ins)
            for key, ins in sass_functions(path, pattern)}


def e29_sass(run):
    """Per kernel BranchKernel<test, B> of E29's SASS dump
    (e29_branch_bodies.sass.gz in RUN): its instructions' mnemonics
    counted, keyed by (test, B); test 0 none, 1 never, 2 always."""
    return sass_counts(os.path.join(run, "e29_branch_bodies.sass.gz"),
                       r"BranchKernelILi(\d)ELi(\d+)E")


E29_TEST = {"-": 0, "never": 1, "always": 2}


def e29_table(run):
    """E29's table: per variant the cycles per trip of one warp, the issue
    slots per warp and trip with 32 and 64 warps per SM, and what its
    SASS holds (cuda_ref/src/e29_branch_bodies.cu)."""
    d = load(run, "e29_branch_bodies")
    sass = e29_sass(run)
    out = ["Run: `%s` (E29, `cuda_ref/src/e29_branch_bodies.cu`); %s "
           "trips. One warp: cycles per trip; 32 and 64 warps per SM: issue "
           "slots per warp and trip (cycles per trip x 4 / warps); SASS: "
           "the kernel's BSSY, BSYNC and BRA (BRA: its loop's, the zero-trip "
           "guard's and the closing self-branch, and one around the body "
           "where there is one).\n" % (os.path.relpath(os.path.abspath(run), os.path.join(
               os.path.dirname(os.path.abspath(__file__)), "..", "..")),
               d["parameters"]["trips"])]
    rows = []
    for v in d["results"]["variants"]:
        by_w = {r["warps_per_sm"]: r for r in v["rows"]}
        ops = sass.get((E29_TEST[v["branch"]], v["body"]), {})
        rows.append([v["variant"], v["branch"], v["body"],
                     "%.2f" % by_w[1]["cycles_per_trip"],
                     "%.2f" % by_w[32]["slots_per_warp_trip"],
                     "%.2f" % by_w[64]["slots_per_warp_trip"],
                     "%d, %d, %d" % (ops.get("BSSY", 0), ops.get("BSYNC", 0),
                                     ops.get("BRA", 0))])
    table(out, ["variant", "branch", "body (IMAD)", "one warp: cycles per "
                "trip", "32 warps: slots", "64 warps: slots",
                "SASS: BSSY, BSYNC, BRA"], rows)
    return "\n".join(out)


def e30_waits(d, alu):
    """E30's loops (d: e30_branch_waits.json) and the waits they give with
    an ALU latency of `alu` cycles: (cycles per trip by loop, compare's
    predicate + branch, predicate, branch, BSYNC)."""
    c = {r["name"]: r["cycles_per_trip"] for r in d["results"]["loops"]}
    # lop8: add (alu) + compare's predicate (P) + branch (L) per trip;
    # sel8: 8 x (P + alu) + (L + 1 - alu): the branch back holds the next
    # trip's first compare past the last LOP3's result.
    pl = c["lop8"] - alu
    p = (c["sel8"] - 8 * alu - pl - 1 + alu) / 7
    branch = pl - p
    sync = c["skip8"] - alu - p - 2 * branch
    return c, pl, p, branch, sync


def e30_table(run):
    """E30's table: one warp's cycles per trip of each loop, and the waits
    they give by the rules below (cuda_ref/src/e30_branch_waits.cu; the
    rules follow the run's SASS: ptxas folded each loop's even number of
    xors by one value into one LOP3, so lop8 and lop16 are both a loop of
    one LOP3, the counter's add (VIADD), the exit compare and the branch
    back; sel8 is 8 steps of ISETP then a predicated LOP3)."""
    d = load(run, "e30_branch_waits")
    # The h200 preset's alu.latency (E3's LOP3 chain, make_timing_preset.py).
    preset = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                          "..", "emulator", "runner", "presets",
                          "h200_timing.json")
    with open(preset) as f:
        alu = json.load(f)["timing"]["alu"]["latency"]
    c, pl, p, branch, sync = e30_waits(d, alu)
    out = ["Run: `%s` (E30, `cuda_ref/src/e30_branch_waits.cu`); one warp, "
           "%s trips. In the SASS (`e30_branch_waits.sass.gz`) ptxas folded "
           "each loop's even number of xors by one value into one LOP3: lop8 "
           "and lop16 are both a loop of one LOP3, the counter's add, the "
           "exit compare and the branch back. The add and the LOP3 are taken "
           "to wait the h200 preset's ALU latency, %d cycles (E3).\n" % (
               os.path.relpath(os.path.abspath(run), os.path.join(
                   os.path.dirname(os.path.abspath(__file__)), "..", "..")),
               d["parameters"]["trips"], alu)]
    table(out, ["loop", "cycles per trip"],
          [[k, "%.2f" % v] for k, v in c.items()])
    table(out, ["what", "rule", "cycles"], [
        ["compare's predicate + branch back", "lop8 - ALU", "%.2f" % pl],
        ["compare's predicate (ISETP to a predicated LOP3)",
         "(sel8 - 8 ALU - (predicate + branch) - 1 + ALU) / 7", "%.2f" % p],
        ["branch (to the next instruction)", "(predicate + branch) - "
         "predicate", "%.2f" % branch],
        ["BSYNC", "skip8 - ALU - predicate - 2 branches", "%.2f" % sync]])
    return "\n".join(out)


def e31_table(run):
    """E31's table: per walk and body the cycles per trip at each warps per
    SM, and what the branch and the next-word walk add to the loop
    (cuda_ref/src/e31_chase_branch.cu)."""
    d = load(run, "e31_chase_branch")
    sass = sass_counts(os.path.join(run, "e31_chase_branch.sass.gz"),
                       r"ChaseKernelILi(\d+)E")
    variants = d["results"]["variants"]
    ws = [r["warps_per_sm"] for r in variants[0]["rows"]]
    cyc = {(v["walk"], v["body"]): {r["warps_per_sm"]: r["cycles_per_trip"]
                                    for r in v["rows"]} for v in variants}
    out = ["Run: `%s` (E31, `cuda_ref/src/e31_chase_branch.cu`); %s trips, "
           "every lane of a warp one address, L1 hits. Cycles per trip at "
           "W warps per SM (the SMs' mean span over the trips); SASS: the "
           "kernel's BSSY, BSYNC and BRA.\n" % (
               os.path.relpath(os.path.abspath(run), os.path.join(
                   os.path.dirname(os.path.abspath(__file__)), "..", "..")),
               d["parameters"]["trips"])]
    rows = []
    for v in variants:
        ops = sass.get((v["multiply_adds"],), {})
        rows.append([v["walk"], v["body"]] +
                    ["%.2f" % cyc[(v["walk"], v["body"])][w] for w in ws] +
                    ["%d, %d, %d" % (ops.get("BSSY", 0), ops.get("BSYNC", 0),
                                     ops.get("BRA", 0))])
    table(out, ["walk", "body", *("W = %d" % w for w in ws),
                "SASS: BSSY, BSYNC, BRA"], rows)
    walks = sorted({v["walk"] for v in variants},
                   key=[v["walk"] for v in variants].index)
    bodies = sorted({v["body"] for v in variants},
                    key=[v["body"] for v in variants].index)
    rows = []
    for walk in walks:
        for body in bodies[1:]:
            rows.append(["%s: %s - none" % (walk, body)] + [
                "%.2f" % (cyc[(walk, body)][w] - cyc[(walk, "none")][w])
                for w in ws])
    for body in bodies:
        for walk in walks[1:]:
            rows.append(["%s: %s - same" % (body, walk)] + [
                "%.2f" % (cyc[(walk, body)][w] - cyc[("same", body)][w])
                for w in ws])
    out.append("What a body and a walk add to a trip (differences of the "
               "rows above, cycles per trip):\n")
    table(out, ["difference", *("W = %d" % w for w in ws)], rows)
    return "\n".join(out)

E32_KIND = {"ffma_k8": (0, 8), "ffma_k16": (0, 16), "ffma_k32": (0, 32),
            "ffma_k64": (0, 64), "ldg_k16": (1, 16), "imadw_k16": (2, 16),
            "lop_k16": (3, 16), "bra_k16": (4, 16)}


def sass_loops(path, pattern):
    """Per kernel whose mangled name matches `pattern` (a regex with
    groups, keyed by them as ints), the instructions one trip of its loop
    issues in a cuobjdump -sass listing (gzipped): those from the target of
    the last backward branch to that branch, less any block a forward
    branch inside the loop jumps over (a body no trip runs), NOPs left
    out; with the mnemonics counted."""
    out = {}
    for key, listing in sass_functions(path, pattern):
        ins = []
        for a, op, operands in listing:
            target = None
            if op == "BRA":
                t = re.search(r"0x([0-9a-f]+)", operands)
                target = int(t.group(1), 16) if t else None
            ins.append((a, op, target))
        back = [(a, t) for a, op, t in ins if op == "BRA" and t is not None
                and t < a]
        if not back:
            continue
        end, start = back[-1]
        skip = set()
        for a, op, t in ins:
            if op == "BRA" and t is not None and start <= a < end and a < t:
                skip.update(b for b, _, _ in ins if a < b < t)
        ops = [op.split(".")[0] for a, op, _ in ins
               if start <= a <= end and a not in skip and op != "NOP"]
        out[key] = collections.Counter(ops)
    return out


def repo_path(run):
    """RUN's path from the repository's root."""
    return os.path.relpath(os.path.abspath(run), os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def slot_table(out, d, loops, key, ffma):
    """The rows of E32's and E33's tables, appended to `out`: per variant
    of the result `d` one warp's cycles per trip, the issue slots per warp
    and trip at 32 and 64 warps per SM, and the instructions one trip of
    its kernel's loop issues (loops: sass_loops' answer, keyed by
    key(variant name)); with an FFMA column when `ffma`."""
    rows = []
    for v in d["results"]["variants"]:
        by_w = {r["warps_per_sm"]: r for r in v["rows"]}
        ops = loops.get(key(v["variant"]))
        n = sum(ops.values()) if ops else None
        rows.append([v["variant"], v["extra"]] + ([v["ffma"]] if ffma else []) +
                    ["%.2f" % by_w[1]["cycles_per_trip"],
                     "%.2f" % by_w[32]["slots_per_warp_trip"],
                     "%.2f" % by_w[64]["slots_per_warp_trip"],
                     "%d" % n if n is not None else "-",
                     ", ".join("%s %d" % (k, c) for k, c in sorted(
                         ops.items()) if k != "FFMA") if ops else "-",
                     "%.2f" % (by_w[32]["slots_per_warp_trip"] - n)
                     if n is not None else "-",
                     "%.2f" % (by_w[64]["slots_per_warp_trip"] - n)
                     if n is not None else "-"])
    table(out, ["variant", "extra per trip"] + (["FFMA"] if ffma else []) +
          ["one warp: cycles per trip", "32 warps: slots", "64 warps: slots",
           "SASS: instructions per trip", "of which not FFMA",
           "32 warps: slots beyond", "64 warps: slots beyond"], rows)


def e32_table(run):
    """E32's table: per variant one warp's cycles per trip and, at 32 and
    64 warps per SM, the issue slots per warp and trip against the
    instructions one trip of the kernel's loop issues (its SASS)
    (cuda_ref/src/e32_issue_slots.cu)."""
    d = load(run, "e32_issue_slots")
    loops = sass_loops(os.path.join(run, "e32_issue_slots.sass.gz"),
                       r"SlotKernelIL.*?KindE(\d)ELi(\d+)E")
    out = ["Run: `%s` (E32, `cuda_ref/src/e32_issue_slots.cu`); %s trips. "
           "One warp: cycles per trip; 32 and 64 warps per SM: issue slots "
           "per warp and trip (cycles per trip x 4 / warps); SASS: the "
           "instructions one trip of the kernel's loop issues (from the "
           "loop branch's target to it, less the block a branch inside "
           "jumps over) and the slots beyond them at 32 and 64 warps.\n" % (
               repo_path(run), d["parameters"]["trips"])]
    slot_table(out, d, loops, lambda name: E32_KIND.get(name, (-1, -1)),
               ffma=True)
    return "\n".join(out)


# E33's variants: the Kind of their kernel MemSlotKernel<Kind>.
E33_KIND = {"ffma_k16": 0, "ldg_word": 1, "ldg_lanes": 2, "ldg_v4": 3,
            "ldg_two": 4, "stg_lanes": 5, "lds_word": 6, "sts_lanes": 7,
            "red_lanes": 8, "ldg_uniform": 9}


def e33_table(run):
    """E33's table: E32's columns (less FFMA: 16 a trip in every variant)
    for loops of 16 FFMA and one memory instruction of a kind a trip
    (cuda_ref/src/e33_memory_slots.cu)."""
    d = load(run, "e33_memory_slots")
    loops = sass_loops(os.path.join(run, "e33_memory_slots.sass.gz"),
                       r"MemSlotKernelILNS_4KindE(\d)E")
    out = ["Run: `%s` (E33, `cuda_ref/src/e33_memory_slots.cu`); %s trips "
           "of 16 FFMA and one memory instruction of a kind. One warp: "
           "cycles per trip; 32 and 64 warps per SM: issue slots per warp "
           "and trip (cycles per trip x 4 / warps); SASS: the instructions "
           "one trip of the kernel's loop issues (from the loop branch's "
           "target to it) and the slots beyond them at 32 and 64 warps.\n" % (
               repo_path(run), d["parameters"]["trips"])]
    slot_table(out, d, loops, lambda name: (E33_KIND.get(name, -1),),
               ffma=False)
    return "\n".join(out)


def e49_sides(run):
    """E49's sides (cuda_ref/src/e49_l2_sides.cu): per reader SM, the SMs
    whose reads left lines at its own latency (the read sweep below the
    midpoint of its least and most), and the figures of each group. Raises
    ValueError when the readers' groups are not one partition of the SMs
    (every reader's near set one of them)."""
    d = load(run, "e49_l2_sides")
    readers = d["results"]["readers"]
    groups = []
    rows = []
    for r in readers:
        read = r["read"]
        mid = (min(read) + max(read)) / 2
        near = frozenset(b for b, v in enumerate(read) if v < mid)
        if r["reader_sm"] not in near:
            raise ValueError("E49: SM %d's own reads are not among its "
                             "near ones" % r["reader_sm"])
        if near not in groups:
            groups.append(near)
        other = [b for b in range(len(read)) if b not in near]

        def med(key, sms):
            return statistics.median(r[key][b] for b in sms)
        rows.append({
            "reader_sm": r["reader_sm"], "near_sms": len(near),
            "dram": r["dram"], "upload": r["upload"], "lap2": r["lap2"],
            **{"%s_%s" % (k, g): med(k, sms)
               for k in ("read", "write", "same")
               for g, sms in (("own", near), ("other", other))}})
    sms = d["parameters"]["swept_sms"]
    if sorted(b for g in groups for b in g) != list(range(sms)):
        raise ValueError("E49: the readers' near sets do not part the %d "
                         "SMs into sides" % sms)
    groups.sort(key=min)
    side = [next(k for k, g in enumerate(groups) if b in g)
            for b in range(sms)]
    return {"device": d.get("device", {}), "rows": rows,
            "side_of_sm": side, "sides": len(groups)}


def e49_table(run):
    """E49's table: per reader SM the cycles per step of its chain through
    lines read before by an SM of its side and of the other, and after an
    upload, from DRAM and on a second lap."""
    s = e49_sides(run)
    out = ["Run: `%s` (E49, `cuda_ref/src/e49_l2_sides.cu`, %s); one "
           "thread's ld.global.cg chain through 4096 lines (512 KB), cycles "
           "per step; `own`/`other`: the median over the SMs b of the "
           "reader's side / of the other side of what the chain took after "
           "SM b read the lines (a kernel before), wrote them, or read them "
           "in the same kernel. Sides: %d, of %s SMs.\n" % (
               repo_path(run), s["device"].get("name", "?"), s["sides"],
               " and ".join(str(s["side_of_sm"].count(k))
                            for k in range(s["sides"])))]
    rows = [[r["reader_sm"], "%.1f" % r["dram"], "%.1f" % r["upload"],
             "%.1f" % r["lap2"]] +
            ["%.1f" % r["%s_%s" % (k, g)] for k in ("read", "write", "same")
             for g in ("own", "other")] for r in s["rows"]]
    table(out, ["reader SM", "DRAM", "upload", "second lap", "read own",
                "read other", "write own", "write other", "same kernel own",
                "same kernel other"], rows)
    out.append("SM b's side (b = 0, 1, ...): `%s`\n" %
               "".join(str(k) for k in s["side_of_sm"]))
    d = load(run, "e49_l2_sides")
    p = d["parameters"]
    out.append("Ordered walks: %d lines a stride apart, in address order, "
               "walked by SM %d; cycles per step after the host's copy of "
               "the walk (8 MB), with every line evicted, after SM %d (the "
               "other side) read them, after SM %d read them:\n" % (
                   p["ordered_steps"], p["ordered_reader_sm"],
                   p["ordered_other_sm"], p["ordered_reader_sm"]))
    table(out, ["stride", "upload", "DRAM", "other side read", "own read"],
          [["%d B" % r["stride_bytes"]] +
           ["%.1f" % r[k] for k in ("upload", "dram", "other", "own")]
           for r in d["results"]["ordered"]])
    return "\n".join(out)


def e51_table(run):
    """E51's table: per load kind, placement, warps W and sectors S, one
    warp's cycles a step while it walks K chains in step (the median over
    the block's warps)."""
    d = load(run, "e51_load_parallelism")
    p = d["parameters"]
    walks = d["results"]["walks"]
    chains = sorted({w["chains"] for w in walks})
    out = ["Run: `%s` (E51, `cuda_ref/src/e51_load_parallelism.cu`, %s); "
           "one block of W warps on SM %d, each warp walking K chains in "
           "step (K independent loads issued back to back a step), each "
           "chain a random cycle through its own %d lines; lane l reads "
           "word l mod 8S of its line (S sectors). Cycles a step: (a walk "
           "of %d steps - one of %d) / %d, the median over the warps. "
           "Placement before each walk: `near` the lines read once by the "
           "same SM (ld.global.cg, word 0) after every line was evicted; "
           "`upload` a cudaMemcpy of the chains' lines after the eviction; "
           "`dram` evicted.\n" % (
               repo_path(run), d["device"].get("name", "?"), p["sm"],
               p["slice_lines"], p["steps"], p["steps"] // 2,
               p["steps"] // 2)]
    for cache in ("cg", "ca"):
        out.append("Loads `ld.global.%s`:\n" % cache)
        rows = []
        for place in ("near", "upload", "dram"):
            for warps in sorted({w["warps"] for w in walks}):
                for sectors in sorted({w["sectors"] for w in walks}):
                    got = {w["chains"]: w["cycles_per_step"] for w in walks
                           if (w["cache"], w["place"], w["warps"],
                               w["sectors"]) == (cache, place, warps,
                                                 sectors)}
                    if not got:
                        continue
                    rows.append([place, warps, sectors] +
                                ["%.1f" % got[k] if k in got else "—"
                                 for k in chains] +
                                ["%.2f" % (got[4] / got[1])
                                 if 1 in got and 4 in got else "—"])
        table(out, ["place", "W", "S"] + ["K = %d" % k for k in chains] +
              ["K = 4 / K = 1"], rows)
    out.append(e51_mixture(walks, chains))
    return "\n".join(out)


def e51_mixture(walks, chains):
    """E51's uploads read as a mixture: a share f of a copy's lines in
    DRAM, the rest at what one warp's single chain through a copy of one
    slice takes (W = 1, K = 1: the whole copy kept); f from each W's K = 1
    step between that and DRAM's; a step of K chains waits for the slowest
    of K lines, all kept with chance (1 - f)^K: predicted (1 - f)^K fast +
    (1 - (1 - f)^K) DRAM, against the measured step."""
    g = {(w["cache"], w["place"], w["warps"], w["sectors"], w["chains"]):
         w["cycles_per_step"] for w in walks}
    out = ["Uploads as a mixture (`ld.global.cg`, S = 4): f = (upload K = 1 "
           "- fast) / (DRAM K = 1 - fast), fast the W = 1, K = 1 upload (a "
           "copy of one chain's lines); predicted K chains: fast (1 - f)^K "
           "+ DRAM K = 1 (1 - (1 - f)^K); measured / predicted:\n"]
    rows = []
    for warps in sorted({w["warps"] for w in walks}):
        if warps == 1:
            continue
        key = ("cg", "upload", warps, 4)
        fast = g.get(("cg", "upload", 1, 4, 1))
        slow = g.get(("cg", "dram", warps, 4, 1))
        one = g.get(key + (1,))
        if None in (fast, slow, one):
            continue
        f = (one - fast) / (slow - fast)
        row = [warps, "%.2f" % f]
        for k in chains:
            if k == 1 or key + (k,) not in g:
                continue
            p = (1 - f) ** k
            pred = fast * p + slow * (1 - p)
            row.append("%.1f / %.1f = %.2f" % (g[key + (k,)], pred,
                                               g[key + (k,)] / pred))
        rows.append(row)
    table(out, ["W", "f"] + ["K = %d" % k for k in chains if k != 1], rows)
    return "\n".join(out)


def e55_table(run):
    """E55's table: per placement and gap between a step's four lines, one
    warp's cycles a step (the median of the repeats) and over the 1 KB
    gap's."""
    d = load(run, "e55_load_spacing")
    p = d["parameters"]
    commit = "?"
    with open(os.path.join(run, "provenance.txt")) as f:
        for line in f:
            if line.startswith("commit:"):
                commit = line.split()[1]
    # The first run's near placement read word 0 of each line only.
    whole = not commit.startswith("deeb1d26ef2d")
    out = ["Run: `%s` (E55, `cuda_ref/src/e55_load_spacing.cu` at %s, %s); "
           "one warp on SM %d, each step four loads of whole lines G bytes "
           "apart (every lane its word), the next step's 4 G further, its "
           "address from all four values; a %d MB cudaMalloc buffer. Cycles "
           "a step: (a walk of %d steps - one of %d) / %d, the median of %d "
           "(least and most beside it). Placement before each walk: every "
           "line evicted, then `upload` a cudaMemcpy of the buffer; `near` "
           "the same, then the walking SM reads %s (ld.global.cg)%s%s.\n" % (
               repo_path(run), commit, d["device"].get("name", "?"), p["sm"],
               p["buffer_bytes"] >> 20, p["steps"], p["steps"] // 4,
               p["steps"] - p["steps"] // 4, p["repeats"],
               "every word of every line" if whole else
               "word 0 of every line",
               "" if whole else ": E51 found such a read bringing in 64 "
               "bytes, so that the other half of each line stays in DRAM",
               "; `other` the same read by SM %d, on the other L2 side (E49)"
               % p["other_sm"] if "other_sm" in p else "")]
    rows = [[w["place"], "%d KB" % (w["gap_bytes"] // 1024),
             "%.1f" % w["cycles_per_step"],
             "%.1f-%.1f" % (w["min"], w["max"]), "%.2f" % w["over_1k"]]
            for w in d["results"]["walks"]]
    table(out, ["place", "gap G", "cycles a step", "least-most",
                "over 1 KB"], rows)
    return "\n".join(out)


def render(run):
    out = []
    provenance(run, out)
    d0 = load(run, "e0_fingerprint")
    if d0:
        e0(d0, out)
    d = load(run, "e1_occupancy")
    if d:
        e1(d, out)
    d = load(run, "e2_latency")
    if d:
        d["_l2"] = d0["results"]["properties"]["l2CacheSize"] if d0 else 0
        e2(d, out)
    for name, fn in (("e3_instructions", e3), ("e4_smsp", e4),
                     ("e5_hiding", e5), ("e6_divergence", e6)):
        d = load(run, name)
        if d:
            fn(d, out)
    return "\n".join(out)


def main(argv):
    if argv and argv[0] in ("--e29", "--e30", "--e31", "--e32", "--e33",
                            "--e49", "--e51", "--e55"):
        # --e29 / --e30 / --e31 / --e32 / --e33 RUN [--update README |
        # --check README]: the experiment's table, in README's
        # <!-- table e29 --> (e30, e31, e32, e33) section.
        sys.path.insert(0, os.path.join(os.path.dirname(
            os.path.abspath(__file__)), "..", "..", "tools"))
        from readme_section import table_section_main
        opts = dict(zip(argv[2::2], argv[3::2]))
        name = argv[0][2:]
        make = {"e29": e29_table, "e30": e30_table, "e31": e31_table,
                "e32": e32_table, "e33": e33_table,
                "e49": e49_table, "e51": e51_table,
                "e55": e55_table}[name]
        return table_section_main(make(argv[1]) + "\n", name,
                                  "summarize.py", opts.get("--check"),
                                  opts.get("--update"))
    if len(argv) == 3 and argv[0] == "--update":
        readme, run = argv[1], argv[2]
        text = open(readme).read()
        a, b = text.index(BEGIN), text.index(END)
        body = ("\n<!-- generated by cuda_ref/results/summarize.py; do not "
                "edit -->\n\n" + render(run) + "\n")
        open(readme, "w").write(text[:a + len(BEGIN)] + body + text[b:])
        return 0
    if len(argv) == 1:
        print(render(argv[0]))
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
