#!/usr/bin/env python3
"""Experiment 06: what is a GPU context, and what is a context switch on
a GPU?

The same L2 load loop as experiments 05 and 07 (cuda_ref's E5 kernel,
samples/experiments/latency_hiding.py) on one SM, 32 registers per
thread, with the warps switched as the GPU switches them (free: every
resident warp's registers stay in the register file, and the scheduler
issues another warp in the same cycle) and as a CPU would (--context-switch
swap: a warp that waits on memory has its registers written out and read
back after the data came). The swap's cost per register is what moving a
warp's register (32 lanes x 4 bytes) takes at the L2 bandwidth one SM
gets (the plateau of E5 on the H200), each way.

  samples/experiments/06_context_switch/run.py [--warpsim BIN] [--check]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import common  # noqa: E402
import latency_hiding as lh  # noqa: E402

WARPS = [2, 4, 8, 16, 24, 32, 48, 64]
REGISTERS = 32
# Stated agreement: the free mode's plateau against the H200's (the swap
# mode has no H200 counterpart: it is what the GPU avoids).
PLATEAU_TOLERANCE = 0.10


def swap_cycles_per_register():
    plateau = max(r for _, r in lh.h200_curve("l2"))
    return 32 * 4 / plateau


def measure(warpsim):
    per_register = swap_cycles_per_register()
    out = {"swap_cycles_per_register": per_register,
           "swap_source": "32 lanes x 4 bytes per register / the L2 plateau "
                          "of " + lh.h200_source("l2"),
           "registers_per_thread": REGISTERS}
    for mode, timing in (("free", {"context_switch": "free"}),
                         ("swap", {"context_switch": "swap",
                                   "swap_cycles_per_register": per_register})):
        with lh.OneSm(timing) as config:
            out[mode] = [{"warps": w,
                          "rate": lh.emulate(warpsim, config, "l2", w,
                                             REGISTERS)["rate"]}
                         for w in WARPS]
    out["h200"] = [{"warps": w, "rate": r} for w, r in lh.h200_curve("l2")]
    out["h200_source"] = lh.h200_source("l2")
    free = max(r["rate"] for r in out["free"])
    out["headline"] = {
        "plateau_free": free, "plateau_swap": max(r["rate"] for r in out["swap"]),
        "plateau_h200": max(r["rate"] for r in out["h200"]),
        "switch_cycles": 2 * REGISTERS * per_register}
    return out


def failures(data):
    h = data["headline"]
    out = []
    if abs(h["plateau_free"] / h["plateau_h200"] - 1) > PLATEAU_TOLERANCE:
        out.append("free plateau %.1f against the H200's %.1f" % (
            h["plateau_free"], h["plateau_h200"]))
    for f, s in zip(data["free"], data["swap"]):
        if s["rate"] >= f["rate"]:
            out.append("%d warps: swap (%.1f) not slower than free (%.1f)" % (
                f["warps"], s["rate"], f["rate"]))
    return out


def table(data, lang):
    zh = lang == "zh"
    h = data["headline"]
    lines = (["| 量 | 值 |", "|---|---|",
              "| 每线程寄存器 | %d |" % data["registers_per_thread"],
              "| 换出/换入一个寄存器的周期（每个方向） | %.2f |"
              % data["swap_cycles_per_register"],
              "| 一次 CPU 式切换（写出再读回）的周期 | %.0f |" % h["switch_cycles"],
              "| L2 吞吐平台：模拟器，免费切换（字节/周期/SM） | %.1f |"
              % h["plateau_free"],
              "| L2 吞吐平台：模拟器，换出/换入 | %.1f |" % h["plateau_swap"],
              "| L2 吞吐平台：H200（E5） | %.1f |" % h["plateau_h200"]]
             if zh else
             ["| figure | value |", "|---|---|",
              "| registers per thread | %d |" % data["registers_per_thread"],
              "| cycles to move one register out or in | %.2f |"
              % data["swap_cycles_per_register"],
              "| cycles of one CPU-style switch (out and back) | %.0f |"
              % h["switch_cycles"],
              "| L2 plateau, emulated, free switching (bytes / cycle / SM) | "
              "%.1f |" % h["plateau_free"],
              "| L2 plateau, emulated, swapping | %.1f |" % h["plateau_swap"],
              "| L2 plateau, H200 (E5) | %.1f |" % h["plateau_h200"]])
    lines += ["", ("| 驻留 warp | 免费切换 | 换出/换入 | H200 |" if zh else
                   "| resident warps | free | swap | H200 |"),
              "|---|---|---|---|"]
    h200 = dict((r["warps"], r["rate"]) for r in data["h200"])
    for f, s in zip(data["free"], data["swap"]):
        w = f["warps"]
        lines.append("| %d | %.1f | %.1f | %s |" % (
            w, f["rate"], s["rate"], "%.1f" % h200[w] if w in h200 else "-"))
    return common.table_text(lines, data, HERE, lang)


def figures(data):
    _, fig, ax, out = common.new_figure(HERE)
    ax.plot([r["warps"] for r in data["h200"]], [r["rate"] for r in data["h200"]],
            "o-", label="H200 (cuda_ref E5)")
    ax.plot([r["warps"] for r in data["free"]], [r["rate"] for r in data["free"]],
            "s--", label="warpsim, free switching (the GPU's)")
    ax.plot([r["warps"] for r in data["swap"]], [r["rate"] for r in data["swap"]],
            "^:", label="warpsim, --context-switch swap (a CPU's)")
    ax.set_xlabel("resident warps per SM")
    ax.set_ylabel("L2 load bytes per cycle per SM")
    ax.set_title("Switching warps for free, or saving their registers")
    ax.grid(alpha=0.3)
    ax.legend()
    common.save_figure(fig, out, "free_vs_swap.png")


def screenshots(warpsim):
    # The SM timeline, coloured by what each warp slot does, over a few
    # percent of the timed dispatch at 16 warps: free switching keeps the
    # issue slots busy while warps wait on L2 (long_scoreboard); swapping
    # adds the register traffic to every wait.
    per_register = swap_cycles_per_register()
    for mode, timing in (("free", {"context_switch": "free"}),
                         ("swap", {"context_switch": "swap",
                                   "swap_cycles_per_register": per_register})):
        lh.screenshot(warpsim, HERE, "viz_timeline_" + mode, 16, "timeline",
                      ["--colour-by", "state"], REGISTERS, timing,
                      focus=(-1, 0.5, 0.04))


def summary(data):
    h = data["headline"]
    return ("plateau free %.1f, swap %.1f (H200 %.1f); a CPU-style switch "
            "%.0f cycles" % (h["plateau_free"], h["plateau_swap"],
                              h["plateau_h200"], h["switch_cycles"]))


if __name__ == "__main__":
    sys.exit(common.experiment_main(sys.argv, HERE, __doc__, measure,
                                    failures, table, figures, summary,
                                    screenshots))
