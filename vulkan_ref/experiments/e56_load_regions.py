#!/usr/bin/env python3
"""E56, which layout of a warp's loads in flight makes them cost more: how
many distinct regions they read, how far apart, whether the lines were
read before, and how many warps share them.

  vulkan_ref/experiments/e56_load_regions.py scene OUT_DIR
  vulkan_ref/experiments/e56_load_regions.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e56_load_regions.py table RECORD_DIR
      [--update README.md | --check README.md]
  vulkan_ref/experiments/e56_load_regions.py model --warpsim BIN
      [-o samples/h200/e56_load_regions/timing-vs-h200.json]
  vulkan_ref/experiments/e56_load_regions.py model-table RECORD
      [MODEL.json] [--update README.md | --check README.md]

Why: E54 found that one warp an SM whose four loads in flight lie G bytes
apart in a buffer the runner has just written pays a trip 115 cycles at
G = 16 KB and 220-235 at 256 KB and beyond, while four loads within 4 KB
pay 1.1 of one load whatever the jump between steps; cuda_ref's E55 found
no such rise for lines already on the SM's L2 side. This asks which of the
loads' layout matters: the span of the loads in flight or the number of
far regions among them; whether lines read once before (by the same
workgroups) still pay it; how it grows with the loads in flight (2, 4, 8);
and whether warps reading the same lines pay it once.

`scene` writes one scene a variant (NAME.amber): G compute workgroups
(one an SM) of W warps; the loop is written unrolled U times, so a warp
has U loads in flight, trip i (of n = 0, 16 and 48) reading the line of
block b at word offset (i / U) * S + R[i % U]; block b is warp w's own
(`blk w`) or its workgroup's (`blk g`, every warp of a workgroup the same
lines); `warm` variants first read the 48 trips' lines in a loop of their
own in the same dispatch (warpsim-vkref uploads a scene's buffers again
before every dispatch, so a pipeline run before would not do): the timed
loop then reads lines its own warp has read (the first loop's time, the
same in the three pipelines, drops out of the intervals).

`summary` gives per variant the SM cycles a trip over the first interval
of n and over the second, at the SM clock sampled while the scene ran;
`model` runs the scenes in timing mode with the h200 preset;
`model-table` puts the model's figures beside the GPU's;
`regions-table RECORD... [--update README | --check README]` and
`regions-model-table RECORD... [--model MODEL.json] [--update | --check]`
write the tables of the region-size runs (sections e56-regions and
e56-regions-model).

Standard library only.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)
import access_steps  # noqa: E402
import device_clocks  # noqa: E402
from readme_section import (experiment_main, record_model_run,  # noqa: E402
                            table_section_main)

WORDS = 4 << 20  # 16 MB, as E54's: kept in the L2 whole (E52)
MASK = WORDS - 1
TRIPS = (0, 16, 48)
KB = 256  # words
MB = 1024 * KB

# name: (workgroups, warps a workgroup, block ("w" or "g"), in-pass word
# offsets R (U = len(R) loads in flight), pass stride S in words, flags:
# "warm" a first loop reads the lines, "dep" each pass's addresses depend
# on the pass before's loads, "coh" the buffer is coherent).
VARIANTS = {
    # E54's c_g4w1_32k and c_g4w1_256k written unrolled (the same lines in
    # the same order): the anchors.
    "span32k_s128k": (4, 1, "w", [0, 32 * KB, 64 * KB, 96 * KB], 128 * KB,
                      ""),
    "span256k": (4, 1, "w", [0, 256 * KB, 512 * KB, 768 * KB], MB, ""),
    # The same spans with passes 1 MB apart (the run's footprint as the
    # 256 KB one's, 12 MB).
    "span32k": (4, 1, "w", [0, 32 * KB, 64 * KB, 96 * KB], MB, ""),
    "near4": (4, 1, "w", [0, 1 * KB, 2 * KB, 3 * KB], MB, ""),
    # Regions: two pairs 256 KB or 768 KB apart; three near and one far.
    "pairs256k": (4, 1, "w", [0, 1 * KB, 256 * KB, 257 * KB], MB, ""),
    "pairs768k": (4, 1, "w", [0, 1 * KB, 768 * KB, 769 * KB], MB, ""),
    "onefar256k": (4, 1, "w", [0, 1 * KB, 2 * KB, 256 * KB], MB, ""),
    # Loads in flight: 2 and 8.
    "two256k": (4, 1, "w", [0, 256 * KB], 512 * KB, ""),
    "two1k": (4, 1, "w", [0, 1 * KB], MB, ""),
    "eight256k": (4, 1, "w", [k * 256 * KB for k in range(8)], 2 * MB,
                  ""),
    "eight32k": (4, 1, "w", [k * 32 * KB for k in range(8)], MB, ""),
    # Lines read once before by the same workgroups.
    "span256k_warm": (4, 1, "w", [0, 256 * KB, 512 * KB, 768 * KB], MB,
                      "warm"),
    "span32k_warm": (4, 1, "w", [0, 32 * KB, 64 * KB, 96 * KB], MB, "warm"),
    "near4_warm": (4, 1, "w", [0, 1 * KB, 2 * KB, 3 * KB], MB, "warm"),
    # Eight warps an SM, each its own lines or all the workgroup's.
    "span256k_w8": (4, 8, "w", [0, 256 * KB, 512 * KB, 768 * KB], MB,
                    ""),
    "span256k_w8same": (4, 8, "g", [0, 256 * KB, 512 * KB, 768 * KB], MB,
                        ""),
}
# After the first run (e56-load-regions-2026-12-07): the driver unrolls
# such loops four passes a pass of its own (loops that load, up to 30
# instructions a trip: loop_unroll_max_body_loads), so a warp had 16 (8
# for the two-load loops) loads in flight, not U. The "d" variants make
# each pass's addresses depend on the loads of the pass before (s & z, z
# = 0 from the uniform buffer), so a warp has exactly U loads in flight
# however the driver unrolls, and a trip times U is one pass's latency.
for _name, _r, _s in (
        ("d1", [0], MB), ("d2_1k", [0, KB], MB),
        ("d2_256k", [0, 256 * KB], MB),
        ("d4_near", [0, KB, 2 * KB, 3 * KB], MB),
        ("d4_16k", [0, 16 * KB, 32 * KB, 48 * KB], MB),
        ("d4_32k", [0, 32 * KB, 64 * KB, 96 * KB], MB),
        ("d4_64k", [0, 64 * KB, 128 * KB, 192 * KB], MB),
        ("d4_128k", [0, 128 * KB, 256 * KB, 384 * KB], MB),
        ("d4_256k", [0, 256 * KB, 512 * KB, 768 * KB], MB),
        ("d4_384k", [0, 384 * KB, 768 * KB, 1152 * KB], 1280 * KB),
        ("d4_pairs256k", [0, KB, 256 * KB, 257 * KB], MB),
        ("d4_onefar256k", [0, KB, 2 * KB, 256 * KB], MB),
        ("d8_1k", [k * KB for k in range(8)], MB),
        ("d8_32k", [k * 32 * KB for k in range(8)], MB),
        ("d8_128k", [k * 128 * KB for k in range(8)], MB)):
    VARIANTS[_name] = (4, 1, "w", _r, _s, "dep")
for _w, _b in ((8, "w"), (8, "g"), (32, "w")):
    VARIANTS["d4_256k_w%d%s" % (_w, "same" if _b == "g" else "")] = (
        4, _w, _b, [0, 256 * KB, 512 * KB, 768 * KB], MB, "dep")
# Coherent loads (not kept in the L1), of lines read once before or not.
for _name, _r in (("d1", [0]), ("d4_near", [0, KB, 2 * KB, 3 * KB]),
                  ("d4_256k", [0, 256 * KB, 512 * KB, 768 * KB])):
    for _f in ("dep coh", "dep coh warm"):
        VARIANTS[_name + _f[3:].replace(" ", "_")] = (4, 1, "w", _r, MB, _f)
# After the second run (e56-load-regions-2026-12-07b) found a pass paying
# about a second latency when it enters a part of the buffer the warp has
# not touched: one load a pass, passes 64 KB to 1 MB apart; and a first
# loop that reads one word every 64 KB or every 2 MB of the buffer (lines
# the timed loop does not read: 2 KB past its block's), touching every
# such region before the timed loop (`touch=W`, W words apart).
for _kb in (64, 256, 512):
    VARIANTS["d1_s%dk" % _kb] = (4, 1, "w", [0], _kb * KB, "dep")
for _name, _r in (("d1", [0]), ("d4_256k", [0, 256 * KB, 512 * KB,
                                            768 * KB])):
    for _t, _w in (("2m", 2 * MB), ("64k", 64 * KB)):
        VARIANTS["%s_touch%s" % (_name, _t)] = (
            4, 1, "w", _r, MB, "dep touch=%d" % _w)
# After the third (e56-load-regions-2026-12-07c) found a word touched
# every 64 KB taking the whole cost away and one every 2 MB half of it,
# and the cost growing with the passes' distance up to 1 MB: passes 128 KB
# and 2 MB apart, and a word touched every 512 KB and 1 MB.
for _kb in (128, 2048):
    VARIANTS["d1_s%dk" % _kb] = (4, 1, "w", [0], _kb * KB, "dep")
for _t, _w in (("1m", MB), ("512k", 512 * KB)):
    VARIANTS["d1_touch%s" % _t] = (4, 1, "w", [0], MB, "dep touch=%d" % _w)
# After the fourth (e56-load-regions-2026-12-07d) found 1 MB regions, each
# SM keeping the 16 it touched: how many it keeps. A buffer of B MB
# (`buf=WORDS`) whose every MB a first loop touches in order, then the
# passes 1 MB apart through its first 16 MB (touched first): if the SM
# keeps fewer than B regions, the passes' are gone again.
for _mb in (32, 64, 128):
    VARIANTS["d1_touch1m_buf%dm" % _mb] = (
        4, 1, "w", [0], MB, "dep touch=%d buf=%d" % (MB, _mb * MB))
NAMES = list(VARIANTS)
TOUCH_AT = 512  # words past the block's line: a line the passes skip


def buffer_words(flags):
    """WORDS of a `buf=WORDS` flag (the buffer's size), else WORDS."""
    for f in flags.split():
        if f.startswith("buf="):
            return int(f[4:])
    return WORDS


def touch_words(flags):
    """W of a `touch=W` flag, else 0."""
    for f in flags.split():
        if f.startswith("touch="):
            return int(f[6:])
    return 0


def offset(name, i):
    """Trip i's word offset of block 0's line."""
    _, _, _, r, s, _ = VARIANTS[name]
    return (i // len(r)) * s + r[i % len(r)]


def scene_text(name):
    groups, warps, blk, r, s, flags = VARIANTS[name]
    warm, dep, coh = ("warm" in flags.split(), "dep" in flags.split(),
                      "coh" in flags.split())
    u = len(r)
    what = ("E56 variant %s: %d compute workgroup(s) of %d warp(s), %s, "
            "%d loads a pass at word offsets %s, passes %d words apart"
            "%s; n = %s trips." % (
                name, groups, warps,
                "warp w reading block w" if blk == "w" else
                "every warp of workgroup g reading block g", u,
                ", ".join(str(x) for x in r), s,
                "".join(x for x, on in (
                    (", each pass's addresses after the pass before's loads",
                     dep), (", a coherent buffer", coh),
                    (", after a loop reading the %d trips' lines" % TRIPS[-1],
                     warm),
                    (", after a loop reading a word every %d words of the "
                     "buffer" % touch_words(flags), touch_words(flags)))
                    if on),
                ", ".join(str(t) for t in TRIPS)))
    lines = ["#!amber",
             "# Generated by vulkan_ref/experiments/e56_load_regions.py "
             "scene: do not edit.", "# " + what,
             "# Runs with warpsim run --timing and warpsim-vkref run; "
             "vulkan_ref/results/h100/README.md, E56.",
             "SHADER compute pass GLSL", "#version 450",
             "layout(local_size_x = %d) in;" % (32 * warps),
             "layout(set = 0, binding = 0) uniform Steps { int n;%s%s } u;"
             % (" int w;" if warm or touch_words(flags) else "",
                " uint z;" if dep else ""),
             "layout(set = 0, binding = 1) %sreadonly buffer Data "
             "{ uint d[]; } data;" % ("coherent " if coh else ""),
             "layout(set = 0, binding = 2) buffer O { uint o[]; } result;",
             "void main() {",
             "  uint lane = gl_LocalInvocationID.x % 32u;",
             "  uint w = gl_WorkGroupID.x * %du + gl_LocalInvocationID.x / "
             "32u;" % warps,
             "  uint blk = %s;" % ("w" if blk == "w" else "gl_WorkGroupID.x"),
             "  uint base = blk * 32u + lane;",
             "  uint s = 0u;"]
    touch = touch_words(flags)
    if touch:
        lines += ["  for (int i = 0; i < u.w; ++i) {",
                  "    s += data.d[(base + %du + uint(i) * %du) & %du];" % (
                      TOUCH_AT, touch, buffer_words(flags) - 1), "  }"]
    for bound in (["u.w"] if warm else []) + ["u.n"]:
        lines += ["  for (int i = 0; i < %s; i += %d) {" % (bound, u),
                  "    uint at = base + uint(i / %d) * %du%s;" % (
                      u, s, " + (s & u.z)" if dep and bound == "u.n"
                      else "")]
        lines += ["    uint v%d = data.d[(at + %du) & %du];" % (
            k, r[k], MASK) for k in range(u)]
        lines += ["    s += %s;" % " + ".join("v%d" % k for k in range(u)),
                  "  }"]
    lines += ["  result.o[gl_GlobalInvocationID.x] = s;", "}", "END",
              "BUFFER data DATA_TYPE uint32 SIZE %d SERIES_FROM 0 INC_BY 1"
              % buffer_words(flags),
              "BUFFER out DATA_TYPE uint32 SIZE %d FILL 7" % (
                  groups * warps * 32)]
    touches = buffer_words(flags) // touch if touch else 0
    lines += ["BUFFER n%d DATA_TYPE int32 DATA %d%s%s END" % (
        t, t, " %d" % TRIPS[-1] if warm else
        " %d" % touches if touch else "", " 0" if dep else "")
        for t in TRIPS]
    for t in TRIPS:
        lines += ["PIPELINE compute %s_t%d" % (name, t), "  ATTACH pass",
                  "  BIND BUFFER n%d AS uniform DESCRIPTOR_SET 0 BINDING 0"
                  % t,
                  "  BIND BUFFER data AS storage DESCRIPTOR_SET 0 BINDING 1",
                  "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 2",
                  "END"]
    lines += ["RUN %s_t%d %d 1 1" % (name, t, groups) for t in TRIPS]
    # Invocation 0 (block 0, lane 0) summed the word offsets it read
    # (twice where a first loop read them before).
    last = (sum(offset(name, i) & MASK for i in range(TRIPS[-1])) *
            (2 if warm else 1) +
            sum((TOUCH_AT + i * touch) & (buffer_words(flags) - 1)
                for i in range(touches))) \
        & 0xFFFFFFFF
    lines += ["EXPECT out IDX 0 EQ %d" % last, ""]
    return "\n".join(lines)


def scene():
    return {n: scene_text(n) for n in NAMES}


def rows_of(times, scale, names=NAMES):
    """Per variant the SM cycles a trip over the first and second interval
    of TRIPS; TIMES by pipeline, SCALE (a number, or one per variant) turns
    them into cycles."""
    rows = []
    for n in names:
        k = scale[n] if isinstance(scale, dict) else scale
        t = [times["%s_t%d" % (n, x)] * k for x in TRIPS]
        rows.append({"variant": n,
                     "step1": (t[1] - t[0]) / (TRIPS[1] - TRIPS[0]),
                     "step2": (t[2] - t[1]) / (TRIPS[2] - TRIPS[1])})
    return rows


def recorded(record):
    return [n for n in NAMES
            if os.path.exists(os.path.join(record, "run1", n + ".json"))]


def summary(record):
    names = recorded(record)
    s = device_clocks.scene_runs(
        record, names, lambda t, k: rows_of(t, k, names),
        "e56_load_regions.py")
    s["record"] = os.path.relpath(record, ROOT)
    s["variants"] = names
    return s


def kb(words):
    return "%g KB" % (words / KB) if words < MB else "%g MB" % (words / MB)


def describe(name):
    """(warps, the loads in flight: their offsets from the first, passes'
    stride, lines read before)."""
    groups, warps, blk, r, s, flags = VARIANTS[name]
    return ("%d x %d%s" % (groups, warps, ", one block a workgroup"
                           if blk == "g" else ""),
            "%d: %s" % (len(r), ", ".join(kb(x) if x else "0" for x in r)),
            kb(s), "yes" if "warm" in flags.split() else
            "a word every %s%s" % (
                kb(touch_words(flags)),
                " of %s" % kb(buffer_words(flags))
                if buffer_words(flags) != WORDS else "")
            if touch_words(flags) else "no",
            "yes" if "dep" in flags else "no",
            "yes" if "coh" in flags else "no")


def table(s):
    runs = s["runs"]
    by = {r: {row["variant"]: row for row in runs[r]["rows"]} for r in runs}
    out = ["Device: %s, driver %s; `%s`. SM cycles a trip (one load a warp) "
           "at the SM clock sampled while the scene ran (%s); run1 / run2; "
           "trips %d-%d and %d-%d.\n" % (
               s["device"].get("name", "?"),
               s["device"].get("driver_info", "?"), s["record"],
               device_clocks.note(runs), TRIPS[0], TRIPS[1], TRIPS[1],
               TRIPS[2]),
           "| variant | workgroups x warps | a pass's loads | passes apart "
           "| read before | passes in turn | coherent | first interval | "
           "second interval | a pass, first / second (mean) |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    mean = {k: device_clocks.run_mean(s, k) for k in ("step1", "step2")}
    for n in s["variants"]:
        cells = [" / ".join("%.1f" % by[r][n][key] for r in sorted(by))
                 for key in ("step1", "step2")]
        u = len(VARIANTS[n][3])
        cells.append("%.0f / %.0f" % (mean["step1"][n] * u,
                                      mean["step2"][n] * u))
        out.append("| %s | %s | %s |" % (n, " | ".join(describe(n)),
                                         " | ".join(cells)))
    return "\n".join(out) + "\n"


SCENES = os.path.join(ROOT, "samples", "h200", "e56_load_regions")
MODEL_JSON = os.path.join(SCENES, "timing-vs-h200.json")


def model(warpsim, out):
    return record_model_run(
        warpsim, [os.path.join(SCENES, n + ".amber") for n in NAMES], out,
        "e56_load_regions.py", ROOT)


def model_table(record, model_json):
    return access_steps.interval_model_table(
        summary(record), model_json, ROOT, rows_of, "trip", "loads in flight",
        lambda n: describe(n)[1])


def main():
    # The third run's record and later ones (the region-size variants):
    # tables of their own, sections e56-regions (the GPU's) and
    # e56-regions-model (the model's beside them), one after the other per
    # record.
    if len(sys.argv) >= 2 and sys.argv[1] in ("regions-table",
                                              "regions-model-table"):
        import argparse
        ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
        ap.add_argument("cmd")
        ap.add_argument("records", nargs="+")
        ap.add_argument("--model", default=MODEL_JSON)
        ap.add_argument("--update")
        ap.add_argument("--check")
        args = ap.parse_args()
        if args.cmd == "regions-table":
            text = "\n".join(table(summary(r)) for r in args.records)
            section = "e56-regions"
        else:
            text = "\n".join(model_table(r, args.model)
                             for r in args.records)
            section = "e56-regions-model"
        return table_section_main(text, section, "e56_load_regions.py",
                                  args.check, args.update)
    return experiment_main(__doc__, scene, summary, table, "e56",
                           "e56_load_regions.py", MODEL_JSON, model,
                           model_table)


if __name__ == "__main__":
    sys.exit(main())
