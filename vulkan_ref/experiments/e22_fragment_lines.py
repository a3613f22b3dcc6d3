#!/usr/bin/env python3
"""E22, what a fragment warp's load costs per line it misses in the L1:
full-screen draws whose loads touch k lines per warp load, timed.

  vulkan_ref/experiments/e22_fragment_lines.py scene OUT.amber
  vulkan_ref/experiments/e22_fragment_lines.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e22_fragment_lines.py table RECORD_DIR
      [--update README.md | --check README.md]

Why: cuda_ref's E20 measured what an SM takes per line its loads miss in
the L1 (about 1.5 cycles per line, 1.7-2.0 for hashed lines), and the
timing model charges that (l1_miss_cycles_per_line). Fragment shaders on
the H200's graphics SMs pay less: samples/timing_families' memory_loads
draws cost 0.8-0.9 cycles per missing line over their `uniform` draw. E22
measures the fragment path's cost by itself, as a sweep.

`scene` writes one AmberScript scene: a 256x256 draw per variant (2048
fragment warps of 4x8 pixels, vulkan_ref/results/h200/FINDINGS.md Q2),
each pixel summing 16 loads (`i < u.n`, unrolled by the driver, E16) from
a 4 MB storage buffer, after a first draw (`warmup`) that reads the whole
buffer so that every line is in the L2. Per warp load:

  none          every lane the same word (one sector, L1 hits);
  s1_kK         K = 1, 2, 4, 8, 16, 32 hashed lines, one sector of each
                (lanes 32/K to a line, on its first 8 words);
  s4_kK         K = 1, 2, 4, 8 hashed lines, all four sectors of each
                (lanes 32/K to a line, spread over its sectors).
  p1_kK         K = 2, 8, 32 consecutive lines, one sector of each
                (each warp load the next K lines of the buffer).

Lines are hashed over the buffer's 32768 lines per warp, load and lane
group, so that a line a warp asks for is seldom in its SM's L1 (192 KB of
the 4 MB).

On the H200 (run_e22_h200.sh, into RECORD_DIR) `warpsim-vkref run
OUT.amber --device nvidia --repeat 15 --json e22.json` records each draw's
GPU time (the median of 15). `summary` takes each variant's time over
`none` and, per series, the least-squares slope over K >= 2 of those
extra cycles (at the SM clock nvidia-smi read after the runs,
provenance.txt) against the lines the draw's warp loads touch, as cycles
per line on one of the graphics SMs (the lines spread evenly over
`graphics_sms` SMs, the 4 of FINDINGS.md Q1); `table` writes the Markdown
table between <!-- table e22 --> and <!-- end table e22 -->.

  vulkan_ref/experiments/e22_fragment_lines.py model --warpsim BIN
      [-o samples/h200/e22_fragment_lines/timing-vs-h200.json]
  vulkan_ref/experiments/e22_fragment_lines.py model-table RECORD
      [MODEL.json] [--update README.md | --check README.md]

`model` runs the scene in timing mode with the h200 preset and records each
draw's cycles (with the warpsim commit, date and command); `model-table`
puts them beside the record's, between <!-- table e22-model --> and its end
marker.

Standard library only.
"""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)
from readme_section import (  # noqa: E402
    experiment_main, record_model_run, model_caption)
import device_clocks  # noqa: E402

SIZE = 256
LOADS = 16
WARPS = (SIZE // 4) * (SIZE // 8)  # 4x8-pixel warps
LINES = 32768  # 4 MB of 128-byte lines
HEADER = """#version 450
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform Params { uint n; } u;
layout(set = 0, binding = 1) readonly buffer Data { uint w[]; } d;
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  uint lane = uint((p.y & 7) * 4 + (p.x & 3));
  uint blk = uint((p.y >> 3) * %d + (p.x >> 2));
  uint s = 0u;
  for (uint i = 0u; i < u.n; ++i) {
""" % (SIZE // 4)
FOOTER = """  }
  color = vec4(float(s & 255u) / 255.0, 0.0, 0.0, 1.0);
}
"""
# The line of a lane group g (0..K-1) of warp blk's load i: hashed.
LINE = "((((blk * %du + i) * 32u + %s) * 2654435761u) >> 17)" % (LOADS, "%s")


def variants():
    """(name, K lines per warp load or 0, sectors per line, body)."""
    out = [("none", 0, 1, "    s += d.w[i * 32u];\n")]
    for k in (1, 2, 4, 8, 16, 32):
        word = "(lane / %du) %% 8u" % k
        out.append(("s1_k%d" % k, k, 1, "    s += d.w[%s * 32u + %s];\n" %
                    (LINE % ("lane %% %du" % k), word)))
    for k in (1, 2, 4, 8):
        word = "((lane / %du) %% 4u) * 8u + (lane / %du) / 4u" % (k, k)
        out.append(("s4_k%d" % k, k, 4, "    s += d.w[%s * 32u + %s];\n" %
                    (LINE % ("lane %% %du" % k), word)))
    for k in (2, 8, 32):
        word = "(lane / %du) %% 8u" % k
        line = "(((blk * %du + i) * %du + lane %% %du) %% %du)" % (
            LOADS, k, k, LINES)
        out.append(("p1_k%d" % k, k, 1, "    s += d.w[%s * 32u + %s];\n" %
                    (line, word)))
    return out


WARMUP = ("warmup", 0, 0, "    s += d.w[blk * 32u + lane + i * %du];\n" %
          (WARPS * 32))


def scene():
    lines = [
        "#!amber",
        "# GENERATED by vulkan_ref/experiments/e22_fragment_lines.py scene:",
        "# one 256x256 draw per count of lines per warp load (its docstring).",
        "SHADER vertex vs PASSTHROUGH",
    ]
    for name, _, _, body in [WARMUP] + variants():
        lines.append("SHADER fragment fs_%s GLSL\n%s%s%sEND" %
                     (name, HEADER, body, FOOTER))
    lines += [
        "BUFFER params DATA_TYPE uint32 DATA %d END" % LOADS,
        "BUFFER data DATA_TYPE uint32 SIZE %d SERIES_FROM 0 INC_BY 1"
        % (LINES * 32),
        "IMAGE frame FORMAT B8G8R8A8_UNORM DIM_2D WIDTH %d HEIGHT %d"
        % (SIZE, SIZE),
    ]
    for name, _, _, _ in [WARMUP] + variants():
        lines.append(
            "PIPELINE graphics %s\n  ATTACH vs\n  ATTACH fs_%s\n"
            "  FRAMEBUFFER_SIZE %d %d\n"
            "  BIND BUFFER frame AS color LOCATION 0\n"
            "  BIND BUFFER params AS uniform DESCRIPTOR_SET 0 BINDING 0\n"
            "  BIND BUFFER data AS storage DESCRIPTOR_SET 0 BINDING 1\nEND"
            % (name, name, SIZE, SIZE))
    for name, _, _, _ in [WARMUP] + variants():
        lines.append("RUN %s DRAW_RECT POS 0 0 SIZE %d %d" % (name, SIZE, SIZE))
    return "\n".join(lines) + "\n"


def slope(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / \
        sum((x - mx) ** 2 for x in xs)


def summary(record):
    report, mhz = device_clocks.record_report(record, "e22", "e22_fragment_lines.py")
    times = {d["pipeline"]: d["gpu_time_ns"] for d in report["draws"]}
    missing = [v[0] for v in variants() if v[0] not in times]
    if missing:
        raise SystemExit("e22_fragment_lines.py: %s has no GPU time for %s"
                         % (report_path, ", ".join(missing)))
    sms = graphics_sms()
    base = times["none"]
    rows, series = [], {}
    for name, k, sectors, _ in variants()[1:]:
        lines_per_sm = WARPS * LOADS * k / sms
        extra = (times[name] - base) * mhz / 1000.0
        rows.append({"variant": name, "lines_per_load": k,
                     "sectors_per_line": sectors,
                     "gpu_time_ns": times[name],
                     "cycles_over_none": round(extra, 1),
                     "cycles_per_line": round(extra / lines_per_sm, 3)})
        series.setdefault(name.split("_")[0], []).append(
            (lines_per_sm, extra, k))
    fits = {}
    for s, pts in series.items():
        pts = [p for p in pts if p[2] >= 2]
        fits[s] = round(slope([p[0] for p in pts], [p[1] for p in pts]), 3)
    return {
        "device": report.get("device", {}),
        "record": os.path.relpath(record, ROOT),
        "sm_mhz": mhz,
        "graphics_sms": sms,
        "none_ns": base,
        "rows": rows,
        "cycles_per_line_fit": fits,
    }


def graphics_sms():
    """The SMs that ran fragment warps: FINDINGS.md Q1's data, the latest
    observe-*/e7_sm_sets.summary.json."""
    found = sorted(glob.glob(os.path.join(
        ROOT, "vulkan_ref", "results", "h200", "observe-*",
        "e7_sm_sets.summary.json")))
    if not found:
        raise SystemExit("e22_fragment_lines.py: no e7_sm_sets.summary.json")
    with open(found[-1]) as f:
        e7 = json.load(f)
    return len({i for d in e7["draws"]
                for i in d["sm_ids"].get("fragment", [])})


def table(s):
    out = ["Device: %s, driver %s; `%s`; SM clock %.0f MHz (nvidia-smi after "
           "the runs); `none` %.0f ns. Cycles over none: the draw's GPU time "
           "over `none`, in SM cycles; per line: those cycles over the lines "
           "the draw's warp loads touch on one of the %d graphics SMs "
           "(2048 warps x 16 loads x K lines / %d).\n" %
           (s["device"].get("name", "?"), s["device"].get("driver_info", "?"),
            s["record"], s["sm_mhz"], s["none_ns"], s["graphics_sms"],
            s["graphics_sms"]),
           "| variant | lines per load | sectors per line | GPU ns | cycles "
           "over none | cycles per line |",
           "|---|---|---|---|---|---|"]
    for r in s["rows"]:
        out.append("| %s | %d | %d | %d | %.0f | %.3f |" % (
            r["variant"], r["lines_per_load"], r["sectors_per_line"],
            r["gpu_time_ns"], r["cycles_over_none"], r["cycles_per_line"]))
    out.append("")
    out.append("Least-squares slope over K >= 2, cycles per line on one SM: "
               + ", ".join("%s %.3f" % (k, v) for k, v in
                           sorted(s["cycles_per_line_fit"].items())) + ".")
    return "\n".join(out) + "\n"


SCENE = os.path.join(ROOT, "samples", "h200", "e22_fragment_lines",
                     "e22.amber")
MODEL_JSON = os.path.join(ROOT, "samples", "h200", "e22_fragment_lines",
                          "timing-vs-h200.json")


def model(warpsim, out):
    """Runs the scene in timing mode (the h200 preset) and records each
    draw's cycles, with the warpsim commit, the date and the command."""
    return record_model_run(warpsim, SCENE, out, "e22_fragment_lines.py", ROOT)


def model_table(record, model_json):
    """The timing model's draws beside the H200's: each variant's time
    over `none`'s on both, and the cycles each takes over `none`."""
    s = summary(record)
    m, caption = model_caption(model_json, ROOT)
    cyc = m["cycles"]
    h200_none = s["none_ns"]
    out = ["%s; H200: `%s`. Time / none: the "
           "draw's time over `none`'s, on each side; cycles over none: in "
           "SM cycles (the H200's at %.0f MHz).\n" %
           (caption, s["record"], s["sm_mhz"]),
           "| variant | lines per load | H200 time / none | model time / "
           "none | model / H200 | H200 cycles over none | model cycles over "
           "none |",
           "|---|---|---|---|---|---|---|"]
    for r in s["rows"]:
        h = r["gpu_time_ns"] / h200_none
        e = cyc[r["variant"]] / cyc["none"]
        out.append("| %s | %d | %.3f | %.3f | %.2f | %.0f | %d |" % (
            r["variant"], r["lines_per_load"], h, e, e / h,
            r["cycles_over_none"], cyc[r["variant"]] - cyc["none"]))
    return "\n".join(out) + "\n"


def main():
    return experiment_main(__doc__, scene, summary, table, "e22",
                           "e22_fragment_lines.py", MODEL_JSON, model,
                           model_table)


if __name__ == "__main__":
    sys.exit(main())
