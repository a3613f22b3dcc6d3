#!/usr/bin/env python3
"""Experiment 08: why does a block (a workgroup) run on one SM?

A compute shader whose workgroup shares memory and meets at a barrier
(shaders/experiments/block_shared.comp), run in timing mode:

  resident: for each configuration cuda_ref's E1 probed on the H200
      (registers per thread, threads per block, shared memory per block;
      the driver's default carveout), the most blocks the timing model
      kept resident on one SM at once (its report's peak warps per SM over
      the warps per block), beside the blocks the H200 ran at once
      (e1_occupancy.json results.probe "measured");
  whole: a trace of 64 workgroups of 256 threads on the h200 preset's 132
      SMs: every workgroup's warps on one SM, all made resident in the
      same cycle;
  limits: E1's launches the H200 refused or ran (results.limits) against
      `warpsim occupancy` (exit 2: the launch fails).
Shared memory is E1's per launch: its dynamic bytes plus its kernel's
static ones (results.functions sharedSizeBytes).

  samples/experiments/08_block_on_one_sm/run.py [--warpsim BIN] [--check]
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import common  # noqa: E402
import latency_hiding as lh  # noqa: E402

SHADER = os.path.join(common.ROOT, "shaders", "experiments", "block_shared.comp")
# CUDA-only: the dynamic shared-memory opt-in of the runtime API, which a
# Vulkan workgroup does not have (its shared memory is declared, static).
NOT_COMPARED = "without raising the limit"


def scene(threads, shared_bytes, groups):
    words = max(1, shared_bytes // 4)
    return "\n".join([
        "#!amber",
        "# samples/experiments/08_block_on_one_sm/run.py: %d workgroups of "
        "%d threads sharing %d bytes." % (groups, threads, 4 * words),
        "SHADER compute block_shared GLSL FILE %s" % SHADER,
        "BUFFER out DATA_TYPE uint32 SIZE %d FILL 0" % (groups * threads),
        "PIPELINE compute p",
        "  ATTACH block_shared SPECIALIZE 0 AS uint32 %d SPECIALIZE 1 AS "
        "uint32 %d" % (threads, words),
        "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 0",
        "END",
        "RUN p %d 1 1" % groups]) + "\n"


def static_shared(e1, registers):
    """The static shared memory of E1's kernel for `registers` (its
    "functions"), which CUDA adds to a launch's dynamic shared memory."""
    return next(f["sharedSizeBytes"] for f in e1["functions"]
                if f["R"] == registers)


def resident(warpsim):
    rows = []
    e1 = common.cuda_record("e1_occupancy.json")["results"]
    with lh.OneSm() as config:
        for p in e1["probe"]:
            if p["carveout"] != -1:
                continue  # (the carveout is the driver's default here)
            warps_per_block = (p["block"] + 31) // 32
            groups = min(4 * p["measured"] + 4, 256)
            shared = p["dyn_smem"] + static_shared(e1, p["R"])
            rep = common.run_scene(
                warpsim, scene(p["block"], shared, groups),
                ["--gpu-config", config, "--regs-per-thread", str(p["R"])],
                "e08")
            d = rep["dispatches"][0]
            rows.append({"registers": p["R"], "threads": p["block"],
                         "shared_bytes": shared,
                         "emulated": d["peak_warps_per_sm"] // warps_per_block,
                         "limiter": d["limiter"],
                         "h200": p["measured"]})
    return rows


def whole(warpsim):
    """Workgroups split over SMs, and workgroups whose warps were made
    resident in different cycles, in a trace of 64 workgroups."""
    events = common.trace_events(warpsim, scene(256, 4096, 64))
    groups = {}
    for e in events:
        name = e.get("name", "")
        if e.get("ph") == "X" and name.startswith("compute workgroup"):
            groups.setdefault(name.split(", subgroup")[0], []).append(e)
    return {"workgroups": len(groups),
            "warps": sum(len(g) for g in groups.values()),
            "split_over_sms": sum(len({e["pid"] for e in g}) > 1
                                  for g in groups.values()),
            "launched_apart": sum(len({e["ts"] for e in g}) > 1
                                  for g in groups.values()),
            "sms_used": len({e["pid"] for g in groups.values() for e in g})}


def limits(warpsim):
    rows = []
    e1 = common.cuda_record("e1_occupancy.json")["results"]
    for lim in e1["limits"]:
        shared = lim["dyn_smem"] + static_shared(e1, lim["R"])
        r = subprocess.run([warpsim, "occupancy", "--regs", str(lim["R"]),
                            "--threads", str(lim["block"]), "--smem",
                            str(shared)], capture_output=True, text=True)
        rows.append({"what": lim["what"], "shared_bytes": shared,
                     "h200": lim["launch"],
                     "h200_runs": lim["launch"] == "cudaSuccess",
                     "emulated_runs": r.returncode == 0,
                     "compared": NOT_COMPARED not in lim["what"],
                     "emulated_message": (r.stdout + r.stderr).strip()
                     .split("\n")[0]})
    return rows


def measure(warpsim):
    return {"resident": resident(warpsim), "whole": whole(warpsim),
            "limits": limits(warpsim),
            "h200_source": "%s/e1_occupancy.json results.probe (measured) "
                           "and results.limits" % common.rel(common.CUDA_RUN)}


def failures(data):
    out = ["%d registers, %d threads, %d bytes: %d blocks, the H200 %d" % (
        r["registers"], r["threads"], r["shared_bytes"], r["emulated"],
        r["h200"]) for r in data["resident"] if r["emulated"] != r["h200"]]
    w = data["whole"]
    if w["split_over_sms"] or w["launched_apart"] or w["workgroups"] != 64:
        out.append("workgroups split or launched apart: %s" % w)
    out += ["%s: the emulator %s, the H200 %s" % (
        lim["what"], "runs it" if lim["emulated_runs"] else "refuses it",
        lim["h200"]) for lim in data["limits"]
        if lim["compared"] and lim["emulated_runs"] != lim["h200_runs"]]
    return out


def table(data, lang):
    zh = lang == "zh"
    lines = (["| 每线程寄存器 | 每 block 线程 | 每 block 共享内存（字节） | "
              "驻留 block：模拟器 | 驻留 block：H200 实测 | 模拟器的限制因素 |"]
             if zh else
             ["| registers per thread | threads per block | shared memory "
              "per block (bytes) | resident blocks, emulated | resident "
              "blocks, H200 measured | emulator's limiter |"])
    lines.append("|---|---|---|---|---|---|")
    for r in data["resident"]:
        lines.append("| %d | %d | %d | %d | %d | %s |" % (
            r["registers"], r["threads"], r["shared_bytes"], r["emulated"],
            r["h200"], r["limiter"]))
    w = data["whole"]
    lines += ["", ("| 启动 | 模拟器 | H200 |" if zh else
                   "| launch | emulator | H200 |"), "|---|---|---|"]
    for lim in data["limits"]:
        emu = ("运行" if lim["emulated_runs"] else "拒绝") if zh else \
            ("runs" if lim["emulated_runs"] else "refuses")
        note = "" if lim["compared"] else (
            "（CUDA API 的选项，不比较）" if zh else
            " (a CUDA API opt-in: not compared)")
        lines.append("| %s%s | %s | %s |" % (lim["what"], note, emu,
                                             lim["h200"]))
    lines += ["", ("跟踪中的 %d 个 workgroup（%d 个 warp，分布在 %d 个 SM 上）："
                   "分散到多个 SM 的 %d 个，各 warp 不在同一周期驻留的 %d 个。"
                   if zh else
                   "The trace's %d workgroups (%d warps, on %d SMs): %d split "
                   "over SMs, %d whose warps became resident in different "
                   "cycles.") % (w["workgroups"], w["warps"], w["sms_used"],
                                 w["split_over_sms"], w["launched_apart"])]
    return common.table_text(lines, data, HERE, lang)


def figures(data):
    _, fig, ax, out = common.new_figure(HERE)
    rows = [r for r in data["resident"]
            if r["registers"] == 32 and r["threads"] == 128]
    rows.sort(key=lambda r: r["shared_bytes"])
    x = [r["shared_bytes"] / 1024 for r in rows]
    ax.plot(x, [r["h200"] for r in rows], "o-", label="H200 (cuda_ref E1, measured)")
    ax.plot(x, [r["emulated"] for r in rows], "s--",
            label="warpsim (timing model, one SM)")
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("shared memory per block (KB)")
    ax.set_ylabel("blocks resident on one SM")
    ax.set_title("128-thread blocks, 32 registers: shared memory decides")
    ax.grid(alpha=0.3)
    ax.legend()
    common.save_figure(fig, out, "blocks_vs_shared_memory.png")


def screenshots(warpsim):
    # One SM, 8 workgroups of 256 threads at 128 registers a thread and
    # 16 KB of shared memory each: the register files hold two workgroups
    # at once, so they come in waves, each workgroup's 8 warps taking
    # registers in all four sub-partitions in the same cycle (two warps in
    # each) and its shared memory with them.
    with lh.OneSm() as config:
        common.screenshot(warpsim, HERE, "viz_registers_workgroups",
                          scene(256, 16 * 1024, 8), "registers",
                          ["--sm", "0", "--by-warp"],
                          ["--gpu-config", config, "--regs-per-thread",
                           "128"], focus=(-1, 0.3))


def summary(data):
    ok = sum(r["emulated"] == r["h200"] for r in data["resident"])
    w = data["whole"]
    same = sum(lim["emulated_runs"] == lim["h200_runs"]
               for lim in data["limits"] if lim["compared"])
    return ("resident blocks equal to the H200's in %d of %d probes; %d "
            "workgroups split: %d; limits agreeing: %d of %d" % (
                ok, len(data["resident"]), w["workgroups"],
                w["split_over_sms"], same,
                sum(lim["compared"] for lim in data["limits"])))


if __name__ == "__main__":
    sys.exit(common.experiment_main(sys.argv, HERE, __doc__, measure,
                                    failures, table, figures, summary,
                                    screenshots))
