#!/usr/bin/env python3
"""E46, what a trip of a loop that chases through a storage buffer costs
a fragment warp, at full and at low occupancy: the pieces of
samples/timing_families' register_pressure loop, one at a time.

  vulkan_ref/experiments/e46_chase_body.py scene OUT_DIR
  vulkan_ref/experiments/e46_chase_body.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e46_chase_body.py table RECORD_DIR
      [--update README.md | --check README.md]
  vulkan_ref/experiments/e46_chase_body.py model --warpsim BIN
      [-o samples/h200/e46_chase_body/timing-vs-h200.json]
  vulkan_ref/experiments/e46_chase_body.py model-table RECORD
      [MODEL.json] [--update README.md | --check README.md]
  vulkan_ref/experiments/e46_chase_body.py sass-table RECORD SASS_RECORD
      [--update README.md | --check README.md]

Why: register_pressure's held1 (a loop of 64 dependent loads, L1 hits,
and a branch nobody takes that would add 1.0 to a vec4; 64 warps
resident on each graphics SM) took the H200 about 16.7 issue cycles of
a sub-partition a warp and trip, the timing model 14.7: the model is 13 %
short on held1's time while it is within 4 % on held32 and held48,
whose warps are few and wait on the loads' latency. E39's loop without
a load (`none`, 512 warps an SM) is 22 % short the same way. This times
the loop's pieces on their own.

`scene` writes an AmberScript scene a variant into OUT_DIR (NAME.amber):
two pipelines whose fragment shaders differ only in n (a uniform block:
n = 32 and 96), each drawn twice (the second counts). Every float the
shader computes is exact or rounds alike with or without fused
multiply-adds (its images match lavapipe's exactly). The table `d` is
4096 words d[i] = i + 1 (4097 wraps to 1 through & 4095), as in
register_pressure; `never` (a second uniform block) is 0xFFFFFFFF, which
no word equals. idx starts at the pixel's row over 8, the same for the
lanes of a warp whose pixels lie in 8 aligned rows: such a load reads
one word.

On a 256x256 rectangle (2048 fragment warps, 512 on each of the 4
graphics SMs, up to 64 resident):

  count     s += i a trip (E39's `none`);
  lcg       s = s * 1664525 + 1013904223 a trip (one dependent
            multiply-add of integers);
  chase     idx = d[idx] & 4095 a trip: one load a trip, each on the
            one before;
  chase_if1, chase_if4, chase_if16
            chase, and if (d[idx] == never) a scalar, one vec4 (held1's
            body), four vec4 += 1.0;
  load      s += d[(idx + i) & 4095]: one load a trip, none on another;
  load_if4  load, and load's word == never adds 1.0 to a vec4.

On a 32x32 rectangle (32 warps: 8 on each graphics SM, 2 a scheduler;
the latency of a trip, not the issue, bounds them):

  lcg_few, chase_few, chase_if4_few   as above.

`summary` gives per variant the SM cycles per step (time at 96 - time at
32, over 64, at the SM clock sampled through the run) and per warp step
(that over the warps each SM gets; at 256x256 times 4 it is a
sub-partition's cycles a warp and trip, at 32x32 times 1/8 the latency
of a trip), and the cycles at n = 0 per warp. `model` runs the scenes in
timing mode with the h200 preset; `model-table` puts the model's figures
beside the GPU's. `sass-table` puts beside them, per variant at 512 warps
an SM, the instructions a trip of the loop NVIDIA's driver made issues
(SASS_RECORD: run_sass_h200.sh's record of the scenes' code, read by
nv_shader_cache.py) and the model's issued instructions a trip (the
model's report: IPC x cycles x SMs, per warp, between n = 32 and 96).

Standard library only.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)
from readme_section import experiment_main  # noqa: E402
import access_steps  # noqa: E402
import device_clocks  # noqa: E402
import nv_shader_cache  # noqa: E402
from readme_section import record_model_run, table_section_main  # noqa: E402

STEPS = (32, 96)
GRAPHICS_SMS = 4
WORDS = 4096

HEAD = """#version 450
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform Steps { int n; } u;
layout(set = 0, binding = 1) readonly buffer Data { uint d[]; } data;
layout(set = 0, binding = 3) uniform Never { uint never; } v;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  uint idx = uint(p.y >> 3) & 4095u;
  uint s = uint(p.x);
  vec4 held[%d];
  for (int k = 0; k < %d; ++k) held[k] = gl_FragCoord.xyxy + vec4(float(k));
  for (int i = 0; i < u.n; ++i) {
%s
  }
  vec4 r = vec4(float(idx), float(s), 0.0, 0.0) * 0.125;
  for (int k = 0; k < %d; ++k) r = r * 0.5 + held[k];
  color = fract(r);
}
"""


def _if(word, held):
    if held == 0:
        return ""
    add = ("held[0].x += 1.0;" if held == 1 else
           "for (int k = 0; k < %d; ++k) held[k] += 1.0;" % (held // 4))
    return "    if (%s == v.never) { %s }\n" % (word, add)


def _chase(held):
    return ("    uint next = data.d[idx];\n" + _if("next", held) +
            "    idx = next & 4095u;")


def _load(held):
    return ("    uint w = data.d[(idx + uint(i)) & 4095u];\n" + _if("w", held) +
            "    s += w;")


# name: (rectangle side, vec4s held, loop body)
VARIANTS = {
    "count": (256, 1, "    s += uint(i);"),
    "lcg": (256, 1, "    s = s * 1664525u + 1013904223u;"),
    "chase": (256, 1, _chase(0)),
    "chase_if1": (256, 1, _chase(1)),
    "chase_if4": (256, 1, _chase(4)),
    "chase_if16": (256, 4, _chase(16)),
    "load": (256, 1, _load(0)),
    "load_if4": (256, 1, _load(4)),
    "lcg_few": (32, 1, "    s = s * 1664525u + 1013904223u;"),
    "chase_few": (32, 1, _chase(0)),
    "chase_if4_few": (32, 1, _chase(4)),
}
NAMES = list(VARIANTS)


def warps_per_sm(variant):
    side = VARIANTS[variant][0]
    return side * side / 32 / GRAPHICS_SMS


def shader(variant):
    _, held, body = VARIANTS[variant]
    return HEAD % (held, held, body, held)


BUFFERS = ("BUFFER data DATA_TYPE uint32 SIZE %d SERIES_FROM 1 INC_BY 1\n"
           "BUFFER never DATA_TYPE uint32 DATA 4294967295 END" % WORDS)
BIND = ("BIND BUFFER data AS storage DESCRIPTOR_SET 0 BINDING 1\n"
        "  BIND BUFFER never AS uniform DESCRIPTOR_SET 0 BINDING 3")


def scene():
    out = {}
    for v in NAMES:
        side = VARIANTS[v][0]
        header = [
            "Generated by vulkan_ref/experiments/e46_chase_body.py scene: "
            "do not edit.",
            "E46 variant %s: what a trip of a chase through a storage "
            "buffer costs a fragment warp (%dx%d rectangle, n = %s)." % (
                v, side, side, " and ".join(str(n) for n in STEPS)),
            "Runs with warpsim run --timing and warpsim-vkref run; "
            "vulkan_ref/results/h100/README.md, E46."]
        out[v] = access_steps.fragment_scene(
            header, v, shader(v), STEPS, side, BUFFERS, None, None,
            bind=BIND)
    return out


def rows_of(times, scale):
    """Per variant: SM cycles per step, per warp step and per warp at
    n = 0; SCALE (a number, or one per scene) turns TIMES into cycles."""
    return access_steps.warp_rows(times, scale, NAMES, STEPS, warps_per_sm)


def summary(record):
    s = device_clocks.scene_runs(record, NAMES, rows_of, "e46_chase_body.py")
    s["record"] = os.path.relpath(record, ROOT)
    return s


def table(s):
    run1, run2 = s["runs"]["run1"], s["runs"]["run2"]
    out = ["Device: %s, driver %s; `%s`, run1 (run2 beside it). SM cycles "
           "at the SM clock sampled while each scene ran (every 20 ms, the "
           "median; %s). Cycles per step: (time at n = %d - time at %d) / "
           "%d; per warp: that over the warps each SM gets (512 on 256x256, "
           "8 on 32x32); at n = 0: the time at n = %d less %d steps, per "
           "warp.\n" % (
               s["device"].get("name", "?"),
               s["device"].get("driver_info", "?"), s["record"],
               device_clocks.note(s["runs"]), STEPS[1], STEPS[0],
               STEPS[1] - STEPS[0], STEPS[0], STEPS[0]),
           "| variant | rectangle | cycles per step | run2 | per warp step "
           "| run2 | at n = 0 per warp |",
           "|---|---|---|---|---|---|---|"]
    for r, r2 in zip(run1["rows"], run2["rows"]):
        side = VARIANTS[r["variant"]][0]
        out.append("| %s | %dx%d | %.1f | %.1f | %.3f | %.3f | %.1f |" % (
            r["variant"], side, side, r["cycles_per_step"],
            r2["cycles_per_step"], r["warp_step"], r2["warp_step"],
            r["warp_fixed"]))
    return "\n".join(out) + "\n"


# The variants whose loop adds to floats in a branch nobody takes, and the
# registers (floats) each one's body writes.
IF_WRITES = {"chase_if1": 1, "chase_if4": 4, "chase_if16": 16}
SUB_PARTITIONS = 4


def predicate_fit(s):
    """The most registers a side NVIDIA's compiler predicates writes
    (make_timing_preset.py's predicate_max_written), from summary S (the
    mean over its runs): a predicated body issues every trip, at least an
    issue slot an add, so its cost over chase's (per warp step, times the
    SM's 4 sub-partitions, issuing every cycle at 512 warps) is at least
    its adds; a branched one is not. {"slots": per IF_WRITES variant its
    issue slots over chase's, "predicated": those at or above their adds,
    "max_written": the most registers of those, None unless a variant
    writing more is branched}."""
    step = device_clocks.run_mean(s, "warp_step")
    slots = {v: round((step[v] - step["chase"]) * SUB_PARTITIONS, 3)
             for v in IF_WRITES}
    predicated = [v for v in IF_WRITES if slots[v] >= IF_WRITES[v]]
    most = max((IF_WRITES[v] for v in predicated), default=None)
    branched = [v for v in IF_WRITES if v not in predicated]
    if most is None or not any(IF_WRITES[v] > most for v in branched):
        most = None
    return {"slots": slots, "predicated": predicated, "max_written": most}


# The variants whose side holds a loop (`for (k...) held[k] += 1.0`):
# make_timing_preset.py's selection_loop_moves.
LOOP_SIDES = ("chase_if4", "load_if4")
# The registers (floats) their sides and chase_if1's write.
SIDE_WRITES = {"chase_if4": 4, "load_if4": 4, "chase_if1": 1}


def loop_moves(sass_record):
    """Per variant of LOOP_SIDES and chase_if1 (a side of one add, no loop):
    the moves (MOV, IMAD.MOV) a pass of its loop has in the SASS the
    driver made (SASS_RECORD, run_sass_h200.sh's record) per register its
    side writes, and the trips a pass makes. {variant: (moves per
    register and pass, trips a pass)}."""
    out = {}
    for v in LOOP_SIDES + ("chase_if1",):
        tag = "e46_chase_body__" + v
        with open(os.path.join(sass_record, "index.json")) as f:
            entry = json.load(f)["scenes"][tag]
        sha = next(p["sass"] for p in entry["pipelines"]
                   if p["name"] == v + "_%d" % STEPS[0] and
                   p["stage"] == "fragment")
        code = nv_shader_cache.parse(nv_shader_cache.listing(sass_record,
                                                             sha))
        loops = [lp for lp in nv_shader_cache.loops_of(code) if lp[2]]
        if len(loops) != 1:
            raise SystemExit("e46_chase_body.py: %s: %d loops with a step "
                             "in its SASS, not 1" % (v, len(loops)))
        first, last, step = loops[0]
        moves = sum(1 for _, _, op, _ in code[first:last + 1]
                    if op.startswith(("MOV", "IMAD.MOV")))
        out[v] = (moves / SIDE_WRITES[v], step)
    return out


SCENES = os.path.join(ROOT, "samples", "h200", "e46_chase_body")
MODEL_JSON = os.path.join(SCENES, "timing-vs-h200.json")


def gpu_rows(record):
    """{variant: the mean over the record's runs of its row's figures}."""
    s = summary(record)
    runs = [{r["variant"]: r for r in run["rows"]}
            for run in s["runs"].values()]
    return s, {v: {k: sum(r[v][k] for r in runs) / len(runs)
                   for k in ("warp_step", "warp_fixed")} for v in NAMES}


def model(warpsim, out):
    # The draws' IPC, SMs and warps too: the issued instructions
    # (sass_table).
    return record_model_run(
        warpsim, [os.path.join(SCENES, v + ".amber") for v in NAMES], out,
        "e46_chase_body.py", ROOT,
        draw_fields=("ipc", "sms_used", "fragment_warps"))


def issued_per_trip(m, variant):
    """The model's issued instructions per warp and trip of VARIANT (its
    draws at n = 32 and 96 in model run M)."""
    issued = {}
    for n in STEPS:
        d = m["draws"]["%s_%d" % (variant, n)]
        issued[n] = d["ipc"] * m["cycles"]["%s_%d" % (variant, n)] * \
            d["sms_used"] / d["fragment_warps"]
    return (issued[STEPS[1]] - issued[STEPS[0]]) / (STEPS[1] - STEPS[0])


def sass_table(record, sass_record, model_json=MODEL_JSON):
    s, gpu = gpu_rows(record)
    m, caption = access_steps.model_caption(model_json, ROOT)
    mrows = {r["variant"]: r for r in rows_of(m["cycles"], 1.0)}
    out = ["Issue slots a warp and trip: SM cycles per warp step x 4 "
           "sub-partitions, at 512 warps an SM (the issue bounds them). "
           "GPU: `%s` (%s), the mean of the runs. SASS: the loop of each "
           "variant's fragment shader as NVIDIA's driver compiled it "
           "(`%s`, `nv_shader_cache.py loops`): its instructions over the "
           "trips a pass makes (the counter's step), less the blocks its "
           "branches jump over (the bodies nobody takes). %s; its issued "
           "instructions a warp and trip from each draw's IPC, cycles and "
           "SMs.\n" % (s["record"], s["device"].get("name", "?"),
                         os.path.relpath(sass_record, ROOT), caption),
           "| variant | GPU slots a trip | SASS instructions a trip | GPU "
           "beyond SASS | model slots a trip | model instructions a trip | "
           "SASS a pass of the loop |",
           "|---|---|---|---|---|---|---|"]
    for v in NAMES:
        if VARIANTS[v][0] != 256:
            continue
        loops = [lp for lp in nv_shader_cache.pipeline_loops(
            sass_record, "e46_chase_body__" + v, v + "_%d" % STEPS[0])
            if lp["step"]]
        if len(loops) != 1:
            raise SystemExit("e46_chase_body.py: %s: %d loops with a step "
                             "in its SASS, not 1" % (v, len(loops)))
        lp = loops[0]
        sass = lp["issued"] / lp["step"]
        g = gpu[v]["warp_step"] * SUB_PARTITIONS
        e = mrows[v]["warp_step"] * SUB_PARTITIONS
        mix = ", ".join("%s %d" % (o, c) for o, c in sorted(
            lp["ops"].items(), key=lambda kv: (-kv[1], kv[0])))
        out.append("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %d "
                   "instructions, %d issued, %d trips: %s |" % (
                       v, g, sass, g - sass, e, issued_per_trip(m, v),
                       lp["instructions"], lp["issued"], lp["step"], mix))
    return "\n".join(out) + "\n"


def model_table(record, model_json):
    s, gpu = gpu_rows(record)
    m, caption = access_steps.model_caption(model_json, ROOT)
    mrows = {r["variant"]: r for r in rows_of(m["cycles"], 1.0)}
    out = ["%s; GPU: `%s` (%s), SM cycles at the sampled clock, the mean "
           "of the runs.\n" % (caption, s["record"],
                               s["device"].get("name", "?")),
           "| variant | GPU per warp step | model | model / GPU | GPU at "
           "n = 0 per warp | model | model / GPU |",
           "|---|---|---|---|---|---|---|"]
    for v in NAMES:
        g, e = gpu[v], mrows[v]
        out.append("| %s | %.3f | %.3f | %.2f | %.1f | %.1f | %.2f |" % (
            v, g["warp_step"], e["warp_step"], e["warp_step"] / g["warp_step"],
            g["warp_fixed"], e["warp_fixed"],
            e["warp_fixed"] / g["warp_fixed"]))
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "sass-table":
        import argparse
        ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
        ap.add_argument("cmd")
        ap.add_argument("record")
        ap.add_argument("sass_record")
        ap.add_argument("--update")
        ap.add_argument("--check")
        a = ap.parse_args()
        return table_section_main(sass_table(a.record, a.sass_record),
                                  "e46-sass", "e46_chase_body.py", a.check,
                                  a.update)
    return experiment_main(__doc__, scene, summary, table, "e46",
                           "e46_chase_body.py", MODEL_JSON, model,
                           model_table)


if __name__ == "__main__":
    sys.exit(main())
