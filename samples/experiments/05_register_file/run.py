#!/usr/bin/env python3
"""Experiment 05: why is the GPU's register file so big?

One SM loads from L2 as fast as it can: every warp runs a loop whose
iteration issues one coalesced 16-byte-per-lane load and waits for it
(shaders/microbench/e5_loads.comp, the kernel of cuda_ref's E5: K = 1,
16 bytes per lane, L2-resident data). Throughput then depends only on how
many warps are resident to keep loads in flight (Little's law), and how
many can be resident depends on the registers each thread takes.

  samples/experiments/05_register_file/run.py [--warpsim BIN]
      runs the emulated sweeps (about a minute), writes results.json, the
      figures (figures/*.png) and the generated tables of README.md and
      README.zh.md
  samples/experiments/05_register_file/run.py --check [--warpsim BIN]
      runs the sweeps again without figures and exits 1 when a headline
      number is outside the stated agreement or a README table is stale

Two sweeps, on a GPU configuration of one SM (the h200 preset otherwise):
  warps: W warps (workgroups of 2 warps) with 32 registers per thread, so
         that all of them are resident; the H200 curve is cuda_ref's E5
         (e5_hiding.json "loads", l2, 16 bytes, k = 1), measured the same
         way per SM.
  registers: 64 warps of work with R registers per thread
         (--regs-per-thread): the register file decides how many are
         resident at once. The H200 curve is E5's throughput at the number
         of warps E1's occupancy rules (which `warpsim occupancy` matches
         on every E1 cell, tests/sm/occupancy_test.cpp) leave resident at
         R registers.
Each emulated figure is the second of two identical dispatches (the first
fills L2, as E5's data is L2-resident), bytes per cycle of that SM.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import common  # noqa: E402
import latency_hiding as lh  # noqa: E402

WARPS = [2, 4, 8, 12, 16, 20, 24, 32, 40, 48, 64]
REGISTERS = [24, 32, 40, 48, 64, 80, 96, 128, 168, 255]
WORK_WARPS = 64
# Stated agreement (the test holds the emulated figures to it).
PLATEAU_TOLERANCE = 0.10  # the plateau, bytes per cycle per SM
KNEE_STEPS = 1            # the knee: within one step of the warps sweep
CURVE_TOLERANCE = 0.25    # every point of the registers sweep


def measure(warpsim):
    with lh.OneSm() as config:
        warps = [lh.emulate(warpsim, config, "l2", w) for w in WARPS]
        regs = [lh.emulate(warpsim, config, "l2", WORK_WARPS, r)
                for r in REGISTERS]
    h200 = lh.h200_curve("l2")
    for r in warps + regs:
        r["bytes_per_cycle"] = r.pop("rate")
    for r in regs:
        r["h200_bytes_per_cycle"] = lh.interpolate(h200, r["resident_warps"])
    emu_curve = [(r["warps"], r["bytes_per_cycle"]) for r in warps]
    return {
        "warps_sweep": warps, "registers_sweep": regs,
        "h200_warps_sweep": [{"warps": w, "bytes_per_cycle": b}
                             for w, b in h200],
        "h200_source": lh.h200_source("l2"),
        "headline": {
            "plateau_emulated": max(y for _, y in emu_curve),
            "plateau_h200": max(y for _, y in h200),
            "knee_emulated": lh.knee(emu_curve),
            "knee_h200": lh.knee(h200),
            "at_255_registers_resident_warps": regs[-1]["resident_warps"],
            "at_255_registers_emulated": regs[-1]["bytes_per_cycle"],
            "at_255_registers_h200": regs[-1]["h200_bytes_per_cycle"],
        },
    }


def failures(data):
    h = data["headline"]
    out = []
    if abs(h["plateau_emulated"] / h["plateau_h200"] - 1) > PLATEAU_TOLERANCE:
        out.append("plateau %.1f against the H200's %.1f bytes per cycle" % (
            h["plateau_emulated"], h["plateau_h200"]))
    apart = lh.knee_steps_apart(h["knee_emulated"], h["knee_h200"],
                                [w for w, _ in lh.h200_curve("l2")])
    if apart is None or apart > KNEE_STEPS:
        out.append("knee at %d warps against the H200's %d" % (
            h["knee_emulated"], h["knee_h200"]))
    for r in data["registers_sweep"]:
        if abs(r["bytes_per_cycle"] / r["h200_bytes_per_cycle"] - 1) > \
                CURVE_TOLERANCE:
            out.append("%d registers: %.1f against the H200's %.1f" % (
                r["registers"], r["bytes_per_cycle"],
                r["h200_bytes_per_cycle"]))
    return out


def table(data, lang):
    h = data["headline"]
    if lang == "zh":
        head = ["| 量 | 模拟器 | H200 |", "|---|---|---|"]
        names = ["L2 吞吐平台（字节/周期/SM）", "达到平台 90% 所需的驻留 warp 数",
                 "每线程 255 个寄存器时的驻留 warp 数",
                 "每线程 255 个寄存器时的吞吐（字节/周期/SM）"]
        regs_head = ["", "| 每线程寄存器 | 驻留 warp | 模拟器 字节/周期 | H200 字节/周期 |",
                     "|---|---|---|---|"]
    else:
        head = ["| figure | emulated | H200 |", "|---|---|---|"]
        names = ["L2 plateau (bytes / cycle / SM)",
                 "resident warps for 90 % of the plateau",
                 "resident warps at 255 registers per thread",
                 "throughput at 255 registers per thread (bytes / cycle / SM)"]
        regs_head = ["", "| registers per thread | resident warps | emulated "
                     "bytes / cycle | H200 bytes / cycle |", "|---|---|---|---|"]
    n = h["at_255_registers_resident_warps"]
    rows = [(names[0], "%.1f" % h["plateau_emulated"], "%.1f" % h["plateau_h200"]),
            (names[1], "%d" % h["knee_emulated"], "%d" % h["knee_h200"]),
            (names[2], "%d" % n, "%d" % n),
            (names[3], "%.1f" % h["at_255_registers_emulated"],
             "%.1f" % h["at_255_registers_h200"])]
    lines = head + ["| %s | %s | %s |" % r for r in rows] + regs_head
    for r in data["registers_sweep"]:
        lines.append("| %d | %d | %.1f | %.1f |" % (
            r["registers"], r["resident_warps"], r["bytes_per_cycle"],
            r["h200_bytes_per_cycle"]))
    return common.table_text(lines, data, HERE, lang)


def figures(data):
    plt, fig, ax, out = common.new_figure(HERE)
    ax.plot([r["warps"] for r in data["h200_warps_sweep"]],
            [r["bytes_per_cycle"] for r in data["h200_warps_sweep"]],
            "o-", label="H200 (cuda_ref E5)")
    ax.plot([r["warps"] for r in data["warps_sweep"]],
            [r["bytes_per_cycle"] for r in data["warps_sweep"]],
            "s--", label="warpsim (h200 preset, one SM)")
    ax.set_xlabel("resident warps per SM")
    ax.set_ylabel("L2 load bytes per cycle per SM")
    ax.set_title("More warps in flight hide the L2 latency")
    ax.grid(alpha=0.3)
    ax.legend()
    common.save_figure(fig, out, "throughput_vs_warps.png")
    fig, ax = plt.subplots(figsize=(7, 4.2))
    regs = data["registers_sweep"]
    ax.plot([r["registers"] for r in regs],
            [r["h200_bytes_per_cycle"] for r in regs], "o-",
            label="H200 (E5 at E1's occupancy)")
    ax.plot([r["registers"] for r in regs],
            [r["bytes_per_cycle"] for r in regs], "s--",
            label="warpsim (--regs-per-thread)")
    for r in regs:
        ax.annotate("%d warps" % r["resident_warps"],
                    (r["registers"], r["bytes_per_cycle"]),
                    textcoords="offset points", xytext=(4, 6), fontsize=7)
    ax.set_xlabel("registers per thread")
    ax.set_ylabel("L2 load bytes per cycle per SM")
    ax.set_title("64K registers per SM: more per thread, fewer warps")
    ax.grid(alpha=0.3)
    ax.legend()
    common.save_figure(fig, out, "throughput_vs_registers.png")


def screenshots(warpsim):
    # The SM's register files, a colour per warp, halfway through the timed
    # dispatch of the registers sweep at 32 and 128 registers per thread:
    # 64 warps fit at 32, 16 at 128 (the rest wait in the launch queue).
    for registers in (32, 128):
        lh.screenshot(warpsim, HERE, "viz_registers_r%d" % registers,
                      WORK_WARPS, "registers", ["--sm", "0", "--by-warp"],
                      registers)


def summary(data):
    h = data["headline"]
    return ("plateau %.1f (H200 %.1f), knee %d warps (H200 %d), at 255 "
            "registers %.1f (H200 %.1f)" % (
                h["plateau_emulated"], h["plateau_h200"], h["knee_emulated"],
                h["knee_h200"], h["at_255_registers_emulated"],
                h["at_255_registers_h200"]))


if __name__ == "__main__":
    sys.exit(common.experiment_main(sys.argv, HERE, __doc__, measure,
                                    failures, table, figures, summary,
                                    screenshots))
