#!/usr/bin/env python3
"""What E39 and E40 (e39_load_patterns.py, e40_shared_banks.py) share:
scenes a variant whose loops run STEPS trips, one access a trip; per
variant the SM cycles per step and per warp access (less a baseline
variant's, the loop without the access), the mean over a record's runs,
the model's table beside the GPU's and the least-squares cycles of one
wavefront.

Standard library only.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from readme_section import record_model_run, model_caption  # noqa: E402
import device_clocks  # noqa: E402


def fragment_scene(header, name, shader, steps, side, buffer, data,
                   binding, bind=None):
    """E39's, E41's and E43's scene of variant NAME: HEADER's comment
    lines, a full-screen (SIDE x SIDE) draw of fragment SHADER twice for
    each trip count of STEPS (a uniform block n at binding 0), BUFFER's
    declaration (AmberScript) for the storage buffer DATA at BINDING (or
    BIND, a pipeline's BIND line, for DATA; "": none, BUFFER "" too)."""
    lines = ["#!amber"] + ["# " + h for h in header] + [
        "SHADER vertex vs PASSTHROUGH",
        "SHADER fragment s_%s GLSL\n%sEND" % (name, shader)]
    for n in steps:
        lines.append("BUFFER n%d DATA_TYPE int32 DATA %d END" % (n, n))
    if buffer:
        lines.append(buffer)
    lines.append("IMAGE frame FORMAT B8G8R8A8_UNORM DIM_2D WIDTH %d "
                 "HEIGHT %d" % (side, side))
    runs = []
    for n in steps:
        pipe = "%s_%d" % (name, n)
        if bind is None:
            bind = "BIND BUFFER %s AS storage DESCRIPTOR_SET 0 BINDING %d" % (
                data, binding)
        lines.append(
            "PIPELINE graphics %s\n  ATTACH vs\n  ATTACH s_%s\n"
            "  FRAMEBUFFER_SIZE %d %d\n"
            "  BIND BUFFER frame AS color LOCATION 0\n"
            "  BIND BUFFER n%d AS uniform DESCRIPTOR_SET 0 BINDING 0\n"
            "%sEND" % (pipe, name, side, side, n,
                       "  %s\n" % bind if bind else ""))
        runs += ["RUN %s DRAW_RECT POS 0 0 SIZE %d %d" % (
            pipe, side, side)] * 2
    return "\n".join(lines + runs) + "\n"


def rows_of(times, scale, variants, steps, warps_per_sm, base_of):
    """Per variant: SM cycles per step, per warp step, and per warp access
    (less the cycles per warp step of base_of(variant)); TIMES: GPU times
    (or cycles) by pipeline VARIANT_STEPS; SCALE (a number, or one per
    variant's scene) turns them into cycles."""
    rows = []
    for name in variants:
        k = scale[name] if isinstance(scale, dict) else scale
        a = times["%s_%d" % (name, steps[0])]
        c = times["%s_%d" % (name, steps[1])]
        step = (c - a) * k / (steps[1] - steps[0])
        rows.append({"variant": name, "cycles_per_step": round(step, 2),
                     "cycles_per_warp_step": round(step / warps_per_sm, 4)})
    per_warp = {r["variant"]: r["cycles_per_warp_step"] for r in rows}
    for r in rows:
        r["load_cycles"] = round(
            r["cycles_per_warp_step"] - per_warp[base_of(r["variant"])], 4)
    return rows


def warp_rows(times, scale, variants, steps, warps_per_sm):
    """E45's and E46's rows: per variant SM cycles per step, and per warp
    (over warps_per_sm(variant)) a step's cycles and the cycles at n = 0
    (the time at steps[0] less that many steps); TIMES by pipeline
    VARIANT_STEPS, SCALE (a number, or one per variant) into cycles."""
    rows = []
    for v in variants:
        k = scale[v] if isinstance(scale, dict) else scale
        a = times["%s_%d" % (v, steps[0])] * k
        c = times["%s_%d" % (v, steps[1])] * k
        step = (c - a) / (steps[1] - steps[0])
        w = warps_per_sm(v)
        rows.append({"variant": v, "cycles_per_step": round(step, 2),
                     "warp_step": round(step / w, 4),
                     "warp_fixed": round((a - steps[0] * step) / w, 3)})
    return rows


def table(s, steps, scenes, per_warp, columns, describe):
    """Summary S's table, run1 with run2 beside it: per variant its
    DESCRIBE(variant) cells (headed COLUMNS), cycles per step and per warp
    access. SCENES: how the caption says the clock was sampled ("the
    scene", "each scene"); PER_WARP: its sentence on the per-warp figure."""
    run1, run2 = s["runs"]["run1"], s["runs"]["run2"]
    cols = len(columns)
    out = ["Device: %s, driver %s; `%s`, run1 (run2 beside it). SM cycles at "
           "the SM clock sampled while %s ran (every 20 ms, the median; %s). "
           "Cycles per step: (time at %d steps - time at %d) / %d; %s\n" %
           (s["device"].get("name", "?"), s["device"].get("driver_info", "?"),
            s["record"], scenes, device_clocks.note(s["runs"]), steps[1],
            steps[0], steps[1] - steps[0], per_warp),
           "| variant | " + " | ".join(columns) + " | cycles per step | run2 "
           "| SM cycles per warp load | run2 |",
           "|---|" + "---|" * (cols + 4)]
    for r, r2 in zip(run1["rows"], run2["rows"]):
        out.append(("| %s |" + " %s |" * cols + " %.1f | %.1f | %.2f | %.2f |")
                   % ((r["variant"],) + tuple(describe(r["variant"])) +
                      (r["cycles_per_step"], r2["cycles_per_step"],
                       r["load_cycles"], r2["load_cycles"])))
    return "\n".join(out) + "\n"


def model(warpsim, scenes, variants, out, tool, root):
    """The timing model on every variant's scene (SCENES/VARIANT.amber),
    recorded in OUT (record_model_run)."""
    return record_model_run(
        warpsim, [os.path.join(scenes, v + ".amber") for v in variants], out,
        tool, root)


def model_table(s, model_json, root, rows_of_model, what):
    """The model's SM cycles per warp access beside the GPU's of summary
    S (run1), and the two's cycles per step; ROWS_OF_MODEL(cycles): the
    model's rows; WHAT: the caption's words for the figures."""
    m, caption = model_caption(model_json, root)
    mrows = {r["variant"]: r for r in rows_of_model(m["cycles"])}
    out = ["%s; GPU: `%s` (%s). %s as above, on each side.\n" % (
               caption, s["record"], s["device"].get("name", "?"), what),
           "| variant | GPU per warp load | model per warp load | model / "
           "GPU (cycles per step) |", "|---|---|---|---|"]
    for r in s["runs"]["run1"]["rows"]:
        e = mrows[r["variant"]]
        out.append("| %s | %.2f | %.2f | %.2f |" % (
            r["variant"], r["load_cycles"], e["load_cycles"],
            e["cycles_per_step"] / r["cycles_per_step"]))
    return "\n".join(out) + "\n"


def interval_model_table(s, model_json, root, rows_of, what, heading,
                         cell):
    """The model's SM cycles a step over a record's two intervals beside
    the GPU's (summary S, the mean of its runs), a row a variant of S:
    ROWS_OF(cycles, 1.0, variants) gives the model's rows (`step1`,
    `step2`); WHAT names a step in the caption ("step", "trip"); HEADING
    and CELL(variant) the second column (E54, E56)."""
    m, caption = model_caption(model_json, root)
    mine = {r["variant"]: r
            for r in rows_of(m["cycles"], 1.0, s["variants"])}
    gpu = {k: device_clocks.run_mean(s, k) for k in ("step1", "step2")}
    out = ["%s; GPU: `%s` (%s), SM cycles a %s at the sampled clock, the "
           "mean of the runs.\n" % (caption, s["record"],
                                    s["device"].get("name", "?"), what),
           "| variant | %s | GPU first interval | model | model / GPU | "
           "GPU second interval | model | model / GPU |" % heading,
           "|---|---|---|---|---|---|---|---|"]
    for n in s["variants"]:
        cells = []
        for key in ("step1", "step2"):
            g, mm = gpu[key][n], mine[n][key]
            cells.append("%.1f | %.1f | %.2f" % (g, mm, mm / g))
        out.append("| %s | %s | %s |" % (n, cell(n), " | ".join(cells)))
    return "\n".join(out) + "\n"


def slope_fit(s, bound):
    """The least-squares slope through 0 of the SM cycles per warp step
    (the mean over the runs of summary S) against the wavefronts, over
    BOUND: [(variant, wavefronts)]. (slope, [(variant, wavefronts,
    cycles)])."""
    mean = device_clocks.run_mean(s, "cycles_per_warp_step")
    rows = [(v, w, mean[v]) for v, w in bound]
    slope = sum(w * c for _, w, c in rows) / sum(w * w for _, w, _ in rows)
    return slope, rows
