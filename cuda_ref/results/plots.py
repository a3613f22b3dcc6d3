#!/usr/bin/env python3
"""The plots of a cuda_ref run, as PNG, from its result files alone.

  cuda_ref/results/plots.py RUN_DIR [OUT_DIR]   (default OUT_DIR: RUN_DIR)

Needs matplotlib (Debian: python3-matplotlib; the GPU machine's image has
it). Writes e2_latency.png, e3_throughput.png, e5_hiding.png and
e6_divergence.png, each with NAME.provenance.txt (the result file it is
drawn from: GPU, driver, date, command; and when it was plotted).
"""
import datetime
import json
import os
import sys

plt = None  # matplotlib.pyplot, imported by main()

# Each plot and the result file it is drawn from.
PLOTS = {
    "e2_latency": "e2_latency",
    "e3_throughput": "e3_instructions",
    "e5_hiding": "e5_hiding",
    "e6_divergence": "e6_divergence",
}


def load(run, name):
    with open(os.path.join(run, name + ".json")) as f:
        return json.load(f)["results"]


def e2(r, out):
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for load_kind, label in (("ca", "ld.global.ca (L1)"), ("cg", "ld.global.cg (L2)")):
        pts = sorted((p["footprint_bytes"], p["cycles_per_step"])
                     for p in r["sweep"] if p["load"] == load_kind)
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker=".", label=label)
    for p in r["shared"]:
        ax.plot(p["footprint_bytes"], p["cycles_per_step"], "k^")
    ax.plot([], [], "k^", label="ld.shared")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("footprint (bytes, 128-B stride)")
    ax.set_ylabel("cycles per dependent load")
    ax.set_title("E2: H200 load latency against footprint (one thread)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "e2_latency.png"), dpi=110)


def e3(r, out):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    ops = []
    for x in r["throughput"]:
        if x["op"] not in ops:
            ops.append(x["op"])
    for ax, ilp in zip(axes, (1, 4)):
        for op in ops:
            pts = sorted((x["warps_per_sm"], x["warp_instructions_per_cycle_per_sm_mean"])
                         for x in r["throughput"] if x["op"] == op and x["ilp"] == ilp)
            ax.plot([a for a, _ in pts], [b for _, b in pts], marker=".", label=op)
        ax.set_title(f"E3: ILP {ilp}")
        ax.set_xlabel("warps per SM")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("warp instructions per cycle per SM")
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "e3_throughput.png"), dpi=110)


def e5(r, out):
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    pts = sorted((p["warps_per_sm"], p["ipc_mean"]) for p in r["ffma"])
    axes[0].plot([a for a, _ in pts], [b for _, b in pts], marker=".", label="FFMA, 1 chain per warp")
    if r.get("ffma_3reg"):
        pts = sorted((p["warps_per_sm"], p["ipc_mean"]) for p in r["ffma_3reg"])
        axes[0].plot([a for a, _ in pts], [b for _, b in pts], marker=".", label="FFMA, 3 register operands")
    axes[0].set_title("E5a: dependent FFMA")
    axes[0].set_xlabel("warps per SM")
    axes[0].set_ylabel("IPC per SM")
    axes[0].legend(fontsize=8)
    for ax, placement in zip(axes[1:], ("l2", "hbm")):
        for width in (4, 16):
            for k in (1, 2, 4, 8):
                pts = sorted((p["warps_per_sm"], p["bytes_per_cycle_per_sm"])
                             for p in r["loads"] if p["placement"] == placement and
                             p["bytes_per_lane"] == width and p["k"] == k and
                             not p.get("skipped"))
                if pts:
                    ax.plot([a for a, _ in pts], [b for _, b in pts], marker=".",
                            linestyle="-" if width == 16 else "--",
                            label=f"{width} B/lane, k={k}")
        ax.set_title(f"E5b: loads from {placement.upper()}")
        ax.set_xlabel("warps per SM")
        ax.set_ylabel("bytes per cycle per SM")
        ax.legend(fontsize=7)
    for ax in axes:
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "e5_hiding.png"), dpi=110)


def e6(r, out):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for key, label, marker in (("two_way", "two-way", "o"), ("paths", "P paths", "s"),
                               ("nested", "nested", "^")):
        xs = [x["serialized_ffma"] for x in r[key]]
        ys = [x["cycles_median"] for x in r[key]]
        axes[0].plot(xs, ys, marker, label=label)
    f = r["fit"]
    top = max(x["serialized_ffma"] for x in r["paths"])
    axes[0].plot([0, top], [f["overhead_cycles"], f["overhead_cycles"] + f["ffma_cycles"] * top],
                 "k-", alpha=0.5, label="fit")
    axes[0].set_xlabel("FFMAs summed over the paths that ran")
    axes[0].set_ylabel("cycles")
    axes[0].set_title("E6: divergent paths run one after another")
    axes[0].legend()
    xs = [x["max_trip"] for x in r["loops"]]
    ys = [x["cycles_median"] for x in r["loops"]]
    axes[1].plot(xs, ys, "o")
    for x in r["loops"]:
        axes[1].annotate(x["pattern"], (x["max_trip"], x["cycles_median"]), fontsize=7)
    axes[1].set_xlabel("largest per-lane trip count")
    axes[1].set_ylabel("cycles")
    axes[1].set_title("E6: loops cost the longest lane")
    for ax in axes:
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "e6_divergence.png"), dpi=110)


def write_provenance(run, out, plot, date=None, where=None):
    """Records in OUT/PLOT.provenance.txt how the plot was made and what it
    is drawn from. When the file exists (the experiment's own provenance,
    written by run_h200.sh, for a plot named like its experiment) the plot's
    lines replace any earlier plot lines in it; otherwise it also gets the
    GPU (from RUN_DIR/provenance.txt), date and command of the result file."""
    with open(os.path.join(run, PLOTS[plot] + ".json")) as f:
        d = json.load(f)
    plotted = date or datetime.datetime.now(
        datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = [
        f"plot: {plot}.png, drawn by cuda_ref/results/plots.py from "
        f"{PLOTS[plot]}.json",
        f"plotted: {plotted}" + (f" ({where})" if where else ""),
    ]
    path = os.path.join(out, plot + ".provenance.txt")
    if os.path.exists(path):
        with open(path) as f:
            kept = [l for l in f.read().splitlines()
                    if not l.startswith(("plot: ", "plotted: "))]
    else:
        # A plot drawn from another experiment's file: the GPU and driver
        # of the run, and the date and command of that result file.
        gpu = []
        run_prov = os.path.join(run, "provenance.txt")
        if os.path.exists(run_prov):
            with open(run_prov) as f:
                gpu = [l for l in f.read().splitlines() if l.startswith("gpu: ")]
        driver = [f"driver: {g.split(', ')[1]}" for g in gpu[:1]
                  if len(g.split(", ")) > 1]
        kept = gpu + driver + [f"date: {d['date']} (the result file's)",
                               f"command: {d['command']}"]
    with open(path, "w") as f:
        f.write("\n".join(kept + lines) + "\n")


def main(argv):
    global plt
    if not argv or len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 64
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot
    plt = matplotlib.pyplot
    run = argv[0]
    out = argv[1] if len(argv) > 1 else run
    os.makedirs(out, exist_ok=True)
    e2(load(run, "e2_latency"), out)
    e3(load(run, "e3_instructions"), out)
    e5(load(run, "e5_hiding"), out)
    e6(load(run, "e6_divergence"), out)
    for plot in PLOTS:
        write_provenance(run, out, plot)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
