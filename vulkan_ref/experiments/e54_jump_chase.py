#!/usr/bin/env python3
"""E54, what a load of a line the runner has just written costs by how far
it lies from the load before: one warp walking K chains through a 16 MB
buffer with jumps of 640 B to 2 MB a step, in a compute shader and in a
fragment shader; and E48's 32x32 fragment passes with trips 256 KB and
32 KB apart.

  vulkan_ref/experiments/e54_jump_chase.py scene OUT_DIR
  vulkan_ref/experiments/e54_jump_chase.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e54_jump_chase.py table RECORD_DIR
      [--update README.md | --check README.md]
  vulkan_ref/experiments/e54_jump_chase.py model --warpsim BIN
      [-o samples/h200/e54_jump_chase/timing-vs-h200.json]
  vulkan_ref/experiments/e54_jump_chase.py model-table RECORD
      [MODEL.json] [--update README.md | --check README.md]

Why: E48's 32x32 fragment passes, whose trips read lines 256 KB apart,
take the GPU longer than one upload latency a load, and twice that for a
pass of four loads in flight, while E50's, E52's and E53's compute chases,
whose steps stay within 512 KB, take one upload latency a load and a few
per cent more for four. Either fragment warps' loads differ or loads far
from the last ones do (a translation of a page not at hand: the loads of
E48's `uniform` and `rolled_l1` variants, which stay in one page, come out
at the model's time). This separates the two.

`scene` writes one scene a variant (NAME.amber):

  c_jJ_kK, f_jJ_kK   a compute workgroup of one warp (c), or a fragment
      shader drawn on one pixel (f: one quad), walking K chains in step,
      every lane the same word; chain c starts at line 8 c and steps J
      lines (odd: no line twice in the 2048 steps), each load's address
      the word the load before read (d[i] = i + 32 J, masked to the
      buffer); n = 0, 1024 and 2048 steps;
  pass_256k, pass_32k, rolled_256k, rolled_32k   E48's coalesced_32 and
      rolled_32 (a 32x32 draw, 8 warps an SM, each warp its own line a
      trip, the loop unrolled four times or rolled) with a trip's lines
      256 KB (as E48) or 32 KB after the trip before's; n = 0, 16 and 48
      trips.

`summary` gives per variant the SM cycles a step (a trip) over the first
interval of n and over the second ((time at n1 - time at n0) / (n1 - n0),
at the SM clock sampled while the scene ran); `model` runs the scenes in
timing mode with the h200 preset; `model-table` puts the model's figures
beside the GPU's.

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
from readme_section import experiment_main, record_model_run  # noqa: E402

WORDS = 4 << 20  # 16 MB: kept in the L2 whole (E52)
MASK = WORDS - 1
LINE_WORDS = 32
CHASE_STEPS = (0, 1024, 2048)
PASS_TRIPS = (0, 16, 48)
PASS_SIDE = 32
PASS_WARPS_PER_SM = 8  # 32x32 pixels, 32 a warp, on the H100's 4 graphics SMs
# (stage, jump in lines, chains[, "line": every lane its word of the line,
# compute only, after the third run showed one warp's passes of whole
# lines far apart as long as 32 warps')]
CHASES = [(s, j, 1) for s in "cf" for j in (5, 33, 513, 2049, 16385)] + \
    [(s, j, 4) for s in "cf" for j in (5, 2049)] + \
    [("c", j, k, "line") for k in (1, 4) for j in (5, 2049)]
# name: (words between a trip's lines and the trip before's, loop bound,
# stage: "f" a 32x32 draw, or ("c", workgroups, warps a workgroup, the
# block warp w reads, the word of the line lane `lane` reads)). After the first run (e54-jump-chase-2026-12-07)
# showed the 256 KB passes twice as long as the 32 KB ones: the gaps
# between and the same passes in a compute shader (cpass_*, 4 workgroups
# of 8 warps, each warp the block the fragment pass's warp reads); after
# the second (e54-jump-chase-2026-12-07b) showed those as long: compute
# passes of 1 to 32 warps on 1 to 16 SMs, warp w reading block w.
TILE = "(w / 8u) * 64u + w % 8u"
PASSES = {"pass_256k": (65536, "u.n", "f"), "pass_32k": (8192, "u.n", "f"),
          "rolled_256k": (65536, "u.n / 2", "f"),
          "rolled_32k": (8192, "u.n / 2", "f"),
          "pass_64k": (16384, "u.n", "f"), "pass_128k": (32768, "u.n", "f"),
          "rolled_128k": (32768, "u.n / 2", "f"),
          "cpass_256k": (65536, "u.n", ("c", 4, 8, TILE, "lane")),
          "cpass_32k": (8192, "u.n", ("c", 4, 8, TILE, "lane")),
          "crolled_256k": (65536, "u.n / 2", ("c", 4, 8, TILE, "lane"))}
for _g, _w in ((1, 8), (4, 1), (4, 8), (4, 32), (16, 8)):
    for _gap in (8192, 65536):
        PASSES["c_g%dw%d_%dk" % (_g, _w, _gap // 256)] = (
            _gap, "u.n", ("c", _g, _w, "w", "lane"))
# After the third: one warp an SM whose lanes all read word 0 of the line,
# and one warp an SM with gaps between and beyond, powers of two and not.
for _gap in (8192, 65536):
    PASSES["c_g4w1_%dk_word" % (_gap // 256)] = (
        _gap, "u.n", ("c", 4, 1, "w", "0u"))
for _kb in (16, 48, 96, 192, 260, 288, 320):
    PASSES["c_g4w1_%dk" % _kb] = (_kb * 256, "u.n",
                                  ("c", 4, 1, "w", "lane"))


def chase_name(stage, jump, k, line=""):
    return "%s_j%d_k%d%s" % (stage, jump, k, "_" + line if line else "")


NAMES = [chase_name(*c) for c in CHASES] + list(PASSES)


def per_trip(name):
    """A pass's uniform n over its trips (2 where the bound is u.n / 2)."""
    return 2 if PASSES[name][1].endswith("/ 2") else 1


def steps_of(name):
    """The step counts a variant's three pipelines are named by."""
    return PASS_TRIPS if name in PASSES else CHASE_STEPS


def chase_result(jump, k, n):
    """The sum of the chains' word offsets after N steps."""
    return sum((8 * c * LINE_WORDS + n * jump * LINE_WORDS) & MASK
               for c in range(k)) & 0xFFFFFFFF


def chase_body(jump, k, line=False):
    """K chains; with LINE every lane reads its word of the line (`lane`
    declared before), else every lane the same word."""
    body = ["  uint p%d = %du;" % (c, 8 * c * LINE_WORDS) for c in range(k)]
    body.append("  for (uint i = 0u; i < uint(u.n); ++i) {")
    body += ["    uint v%d = data.d[p%d%s];" % (c, c, " + lane" if line else "")
             for c in range(k)]
    body += [("    p%d = (v%d - lane) & %du;" if line else
              "    p%d = v%d & %du;") % (c, c, MASK) for c in range(k)]
    body += ["  }", "  uint s = %s;" % " + ".join(
        "p%d" % c for c in range(k))]
    return body


def header(text):
    return ["Generated by vulkan_ref/experiments/e54_jump_chase.py scene: "
            "do not edit.", text,
            "Runs with warpsim run --timing and warpsim-vkref run; "
            "vulkan_ref/results/h100/README.md, E54."]


def data_buffer(jump):
    return "BUFFER data DATA_TYPE uint32 SIZE %d SERIES_FROM %d INC_BY 1" % (
        WORDS, jump * LINE_WORDS)


def compute_scene(jump, k, line=""):
    n = chase_name("c", jump, k, line)
    lines = ["#!amber"] + ["# " + h for h in header(
        "E54 variant %s: one warp of a compute workgroup walking %d "
        "chain(s) %d lines a step%s; n = %s steps." % (
            n, k, jump, ", every lane its word of the line" if line else "",
            ", ".join(str(s) for s in CHASE_STEPS)))]
    lines += ["SHADER compute chase GLSL", "#version 450",
              "layout(local_size_x = 32) in;",
              "layout(set = 0, binding = 0) uniform U { int n; } u;",
              "layout(set = 0, binding = 1) readonly buffer D { uint d[]; } "
              "data;",
              "layout(set = 0, binding = 2) buffer O { uint o[]; } result;",
              "void main() {"] + (
                  ["  uint lane = gl_LocalInvocationID.x;"] if line else []) + \
        chase_body(jump, k, bool(line)) + [
        "  result.o[gl_LocalInvocationID.x] = s;", "}", "END",
        data_buffer(jump), "BUFFER out DATA_TYPE uint32 SIZE 32 FILL 7"]
    lines += ["BUFFER n%d DATA_TYPE int32 DATA %d END" % (s, s)
              for s in CHASE_STEPS]
    for s in CHASE_STEPS:
        lines += ["PIPELINE compute %s_%d" % (n, s), "  ATTACH chase",
                  "  BIND BUFFER n%d AS uniform DESCRIPTOR_SET 0 BINDING 0" % s,
                  "  BIND BUFFER data AS storage DESCRIPTOR_SET 0 BINDING 1",
                  "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 2",
                  "END"]
    lines += ["RUN %s_%d 1 1 1" % (n, s) for s in CHASE_STEPS]
    lines += ["EXPECT out IDX 0 EQ %d" % chase_result(
        jump, k, CHASE_STEPS[-1]), ""]
    return "\n".join(lines)


FRAGMENT_HEAD = """#version 450
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform Steps { int n; } u;
layout(set = 0, binding = 1) readonly buffer Data { uint d[]; } data;

void main() {
"""


def fragment_scene(jump, k):
    n = chase_name("f", jump, k)
    shader = FRAGMENT_HEAD + "\n".join(chase_body(jump, k)) + (
        "\n  color = vec4(float((s >> 5u) & 255u) / 255.0, 0.0, 0.0, 1.0);"
        "\n}\n")
    text = access_steps.fragment_scene(
        header("E54 variant %s: a fragment shader drawn on one pixel walking "
               "%d chain(s) %d lines a step; n = %s steps." % (
                   n, k, jump, ", ".join(str(s) for s in CHASE_STEPS))),
        n, shader, CHASE_STEPS, 1, data_buffer(jump), "data", 1)
    red = (chase_result(jump, k, CHASE_STEPS[-1]) >> 5) & 255
    return text + "EXPECT frame IDX 0 0 SIZE 1 1 EQ_RGBA %d 0 0 255\n" % red


PASS_INDEX = "(blk * 32u + %s + uint(i) * %du) & %du"


def pass_loop(gap, bound, lane):
    return ("  uint s = 0u;\n"
            "  for (int i = 0; i < %s; ++i) {\n"
            "    s += data.d[%s];\n"
            "  }\n" % (bound, PASS_INDEX % (lane, gap, MASK)))


def pass_header(name):
    gap, _, stage = PASSES[name]
    per = per_trip(name)
    loop = "rolled" if per == 2 else "coalesced"
    if stage == "f":
        what = "E48's %s_32" % loop
    else:
        what = "%d compute workgroup(s) of %d warp(s), warp w reading %s " \
            "of block %s as E48's %s_32's" % (
                stage[1], stage[2],
                "word 0 of the lines" if stage[4] == "0u" else "the lines",
                stage[3], loop)
    return header("E54 variant %s: %s with a trip's lines %d KB after the "
                  "trip before's (n = %s)." % (
                      name, what, gap * 4 // 1024,
                      ", ".join(str(t * per) for t in PASS_TRIPS)))


def trips_named(text, name, per):
    """Names a pass scene's pipelines by trips, not by n."""
    for t in PASS_TRIPS:
        text = text.replace("%s_%d\n" % (name, t * per),
                            "%s_t%d\n" % (name, t))
        text = text.replace("RUN %s_%d " % (name, t * per),
                            "RUN %s_t%d " % (name, t))
    return text


def pass_scene(name):
    gap, bound, _ = PASSES[name]
    shader = (FRAGMENT_HEAD +
              "  ivec2 p = ivec2(gl_FragCoord.xy);\n"
              "  uint lane = uint((p.y & 7) * 4 + (p.x & 3));\n"
              "  uint blk = uint((p.y >> 3) * 64 + (p.x >> 2));\n" +
              pass_loop(gap, bound, "lane") +
              "  color = vec4(float(s & 255u) / 255.0, 0.0, 0.0, 1.0);\n"
              "}\n")
    per = per_trip(name)
    text = access_steps.fragment_scene(
        pass_header(name), name, shader, [t * per for t in PASS_TRIPS],
        PASS_SIDE,
        "BUFFER data DATA_TYPE uint32 SIZE %d SERIES_FROM 0 INC_BY 1" % WORDS,
        "data", 1)
    return trips_named(text, name, per)


def cpass_scene(name):
    """A compute pass: warp w reads the lines of block w (the stage's
    expression: TILE, the block of the fragment pass's warp w)."""
    gap, bound, (_, groups, warps, blk, lane) = PASSES[name]
    per = per_trip(name)
    lines = ["#!amber"] + ["# " + h for h in pass_header(name)]
    lines += ["SHADER compute pass GLSL", "#version 450",
              "layout(local_size_x = %d) in;" % (32 * warps),
              "layout(set = 0, binding = 0) uniform Steps { int n; } u;",
              "layout(set = 0, binding = 1) readonly buffer Data "
              "{ uint d[]; } data;",
              "layout(set = 0, binding = 2) buffer O { uint o[]; } result;",
              "void main() {",
              "  uint lane = gl_LocalInvocationID.x % 32u;",
              "  uint w = gl_WorkGroupID.x * %du + gl_LocalInvocationID.x / "
              "32u;" % warps, "  uint blk = %s;" % blk]
    lines += pass_loop(gap, bound, lane).rstrip("\n").split("\n")
    lines += ["  result.o[gl_GlobalInvocationID.x] = s;", "}", "END",
              "BUFFER data DATA_TYPE uint32 SIZE %d SERIES_FROM 0 INC_BY 1"
              % WORDS,
              "BUFFER out DATA_TYPE uint32 SIZE %d FILL 7" % (
                  groups * warps * 32)]
    lines += ["BUFFER n%d DATA_TYPE int32 DATA %d END" % (t * per, t * per)
              for t in PASS_TRIPS]
    for t in PASS_TRIPS:
        lines += ["PIPELINE compute %s_t%d" % (name, t), "  ATTACH pass",
                  "  BIND BUFFER n%d AS uniform DESCRIPTOR_SET 0 BINDING 0"
                  % (t * per),
                  "  BIND BUFFER data AS storage DESCRIPTOR_SET 0 BINDING 1",
                  "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 2",
                  "END"]
    lines += ["RUN %s_t%d %d 1 1" % (name, t, groups)
              for t in PASS_TRIPS]
    # Invocation 0 (warp 0, lane 0, block 0) summed word i * gap of trip i.
    last = sum((i * gap) & MASK for i in range(PASS_TRIPS[-1])) & 0xFFFFFFFF
    lines += ["EXPECT out IDX 0 EQ %d" % last, ""]
    return "\n".join(lines)


def scene():
    out = {}
    for c in CHASES:
        make = compute_scene if c[0] == "c" else fragment_scene
        out[chase_name(*c)] = make(*c[1:])
    for name, (_, _, stage) in PASSES.items():
        out[name] = (pass_scene if stage == "f" else cpass_scene)(name)
    return out


def pipeline(name, n):
    return "%s_t%d" % (name, n) if name in PASSES else "%s_%d" % (name, n)


def rows_of(times, scale, names=NAMES):
    """Per variant of NAMES the SM cycles a step (a trip) over the first
    and second interval of its step counts; TIMES by pipeline, SCALE (a
    number, or one per variant) turns them into cycles."""
    rows = []
    for n in names:
        k = scale[n] if isinstance(scale, dict) else scale
        s = steps_of(n)
        t = [times[pipeline(n, x)] * k for x in s]
        rows.append({"variant": n,
                     "step1": (t[1] - t[0]) / (s[1] - s[0]),
                     "step2": (t[2] - t[1]) / (s[2] - s[1])})
    return rows


def recorded(record):
    """The variants RECORD's runs hold (its first run had the first
    eighteen)."""
    return [n for n in NAMES
            if os.path.exists(os.path.join(record, "run1", n + ".json"))]


def summary(record):
    names = recorded(record)
    s = device_clocks.scene_runs(
        record, names, lambda t, k: rows_of(t, k, names), "e54_jump_chase.py")
    s["record"] = os.path.relpath(record, ROOT)
    s["variants"] = names
    return s


def describe(name):
    """(shader, what a step is, how far a step's loads jump)."""
    if name in PASSES:
        gap, bound, stage = PASSES[name]
        return ("fragment 32x32, %d warps an SM" % PASS_WARPS_PER_SM
                if stage == "f" else
                "compute, %d workgroup(s) of %d warp(s)%s" % (
                    stage[1], stage[2],
                    ", as the fragment pass's" if stage[3] == TILE else ""),
                "a trip of the %s loop, a %s a warp" % (
                    "rolled" if bound != "u.n" else "unrolled",
                    "word" if stage != "f" and stage[4] == "0u" else "line"),
                "%d KB" % (gap * 4 // 1024))
    stage, jump, k = name.split("_")[:3]
    jump, k = int(jump[1:]), int(k[1:])
    size = jump * 128
    far = "%d B" % size if size < 4096 else "%d KB + 128 B" % (size // 1024)
    return ("%s, one warp" % ("compute" if stage == "c" else "fragment"),
            "%d load%s of a %s" % (k, "" if k == 1 else "s in flight",
                                   "line" if name.endswith("_line")
                                   else "word"), far)


def table(s):
    runs = s["runs"]
    by = {r: {row["variant"]: row for row in runs[r]["rows"]} for r in runs}
    out = ["Device: %s, driver %s; `%s`. SM cycles a step at the SM clock "
           "sampled while the scene ran (%s); run1 / run2. Chases: steps "
           "%d-%d and %d-%d; passes: trips %d-%d and %d-%d.\n" % (
               s["device"].get("name", "?"),
               s["device"].get("driver_info", "?"), s["record"],
               device_clocks.note(runs), CHASE_STEPS[0], CHASE_STEPS[1],
               CHASE_STEPS[1], CHASE_STEPS[2], PASS_TRIPS[0], PASS_TRIPS[1],
               PASS_TRIPS[1], PASS_TRIPS[2]),
           "| variant | shader | a step | jump | first interval | second "
           "interval |", "|---|---|---|---|---|---|"]
    for n in s["variants"]:
        cells = [" / ".join("%.1f" % by[r][n][key] for r in sorted(by))
                 for key in ("step1", "step2")]
        out.append("| %s | %s | %s |" % (n, " | ".join(describe(n)),
                                         " | ".join(cells)))
    return "\n".join(out) + "\n"


SCENES = os.path.join(ROOT, "samples", "h200", "e54_jump_chase")
MODEL_JSON = os.path.join(SCENES, "timing-vs-h200.json")


def model(warpsim, out):
    return record_model_run(
        warpsim, [os.path.join(SCENES, n + ".amber") for n in NAMES], out,
        "e54_jump_chase.py", ROOT)


def model_table(record, model_json):
    return access_steps.interval_model_table(
        summary(record), model_json, ROOT, rows_of, "step", "jump",
        lambda n: describe(n)[2])


def main():
    return experiment_main(__doc__, scene, summary, table, "e54",
                           "e54_jump_chase.py", MODEL_JSON, model,
                           model_table)


if __name__ == "__main__":
    sys.exit(main())
