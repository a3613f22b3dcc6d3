#!/usr/bin/env python3
"""E16, how NVIDIA's compiler unrolls loops: fragment shaders that differ
only in one loop, and the size of the code the driver made for each.

  vulkan_ref/experiments/e16_loop_unroll.py scene OUT.amber
  vulkan_ref/experiments/e16_loop_unroll.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e16_loop_unroll.py table RECORD_DIR
      [--update README.md | --check README.md]

`scene` writes one AmberScript scene of graphics pipelines, each drawing a
16x16 rectangle with its own fragment shader:

  straight_K   K dependent multiply-adds x = x * x + c, no loop (K = 8 ..
               64): what one multiply-add adds to the code;
  affine_64, affine_loop_8
               64 (8 in a loop's body) steps x = x * a + b with constants:
               does the driver fold them into one;
  loop_K       for (i = 0; i < n; ++i) with K dependent multiply-adds in the
               body, n a run-time value (a uniform): a countable loop whose
               trip count no compiler knows;
  step2_1, le_1, down_1
               the same loop counting by 2, with <=, and downwards;
  break_1      the loop with a data-dependent break: not countable;
  while_1      while (x < limit): not countable;
  if_1         a countable loop whose body has an if/else;
  nested_1     a countable loop inside another;
  const_N      for (i = 0; i < N; ++i), N a constant (4 .. 256): where the
               compiler stops unrolling a loop completely.

On the H200 (run_e16_h200.sh, into RECORD_DIR), `warpsim-vkref run
OUT.amber --device nvidia --json e16.json` records each pipeline's
executable statistics, among them the driver's "Binary Size" of the
fragment shader, and `warpsim-vkref compare` times the uniform loop of
samples/branch_costs/loop_trips.amber at 0..32 trips (tripsF.json).
`summary` fits the bytes per multiply-add from the straight_K shaders
(code bytes per instruction) and, from the loop_K shaders, how many copies
of the loop body the code holds: U in the unrolled loop and U - 1 for the
remainder, U being the unroll factor of a countable loop with a run-time
trip count (the timing model's TimingConfig::loop_unroll); and it lists
the trip counts at which the sweep's time steps up (every U trips when the
unrolled loop is what costs). `table` writes the Markdown table of a record
between <!-- table e16 --> and <!-- end table e16 -->.

REFERENCE §6 lists E0-E14; this one is ours: the branch-cost families
(samples/branch_costs/README.md) took the H200 about 1.5 warp
instructions per trip of a one-multiply-add loop where the emulator issued
four (compare, branch, multiply-add, increment).

Standard library only.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from readme_section import scene_summary_table_main  # noqa: E402
sys.path.insert(0, HERE)
from e15_draw_cost import fit  # noqa: E402  (least squares y = a + b x)

STRAIGHT = [8, 16, 32, 64]
LOOP_BODIES = [1, 2, 3, 4, 6, 8, 12, 16]
CONST_TRIPS = [4, 8, 16, 32, 64, 128, 256]
# A rise of the sweep's draw time this large (ns) counts as a step.
STEP_NS = 1000

HEADER = """#version 450
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform Params { int one; int limit; } u;
void main() {
  float x = gl_FragCoord.x * 0.001;
  int n = 16 * u.one;
"""
FOOTER = """  color = vec4(x, 0.0, 0.0, 1.0);
}
"""


def fma(k):
    # x * x + c: one multiply-add that no reassociation folds into the next
    # (the driver folds a chain of x * a + b with constants a and b into one
    # multiply-add: the affine_* shaders).
    return "x = x * x + %.6f;" % (0.0001 * (k + 1))


def affine(k):
    return "x = x * %.6f + %.6f;" % (1.0 + 0.0001 * (k + 1), 0.0003 * (k + 1))


def body(k, indent="    ", step=fma):
    return "".join(indent + step(j) + "\n" for j in range(k))


def shaders():
    out = [("empty", "")]
    for k in STRAIGHT:
        out.append(("straight_%d" % k, body(k, "  ")))
    for k in LOOP_BODIES:
        out.append(("loop_%d" % k, "  for (int i = 0; i < n; ++i) {\n" +
                    body(k) + "  }\n"))
    out.append(("step2_1", "  for (int i = 0; i < 2 * n; i += 2) {\n" +
                body(1) + "  }\n"))
    out.append(("le_1", "  for (int i = 1; i <= n; ++i) {\n" + body(1) +
                "  }\n"))
    out.append(("down_1", "  for (int i = n; i > 0; --i) {\n" + body(1) +
                "  }\n"))
    out.append(("break_1", "  for (int i = 0; i < n; ++i) {\n" + body(1) +
                "    if (x > float(u.limit)) break;\n  }\n"))
    # x * x + 1 grows past the limit within a few trips: the loop ends.
    out.append(("while_1", "  while (x < float(u.limit)) {\n"
                "    x = x * x + 1.0;\n  }\n"))
    out.append(("if_1", "  for (int i = 0; i < n; ++i) {\n"
                "    if ((i & 1) == 0) {\n  " + body(1) + "    } else {\n"
                "      x = x * 0.9999 + 0.0007;\n    }\n  }\n"))
    out.append(("nested_1", "  for (int j = 0; j < n; ++j) {\n"
                "    for (int i = 0; i < n; ++i) {\n  " + body(1) +
                "    }\n  }\n"))
    out.append(("affine_64", body(64, "  ", affine)))
    out.append(("affine_loop_8", "  for (int i = 0; i < n; ++i) {\n" +
                body(8, step=affine) + "  }\n"))
    for t in CONST_TRIPS:
        out.append(("const_%d" % t, "  for (int i = 0; i < %d; ++i) {\n" % t
                    + body(1) + "  }\n"))
    return out


def scene():
    lines = [
        "#!amber",
        "# GENERATED by vulkan_ref/experiments/e16_loop_unroll.py scene: one",
        "# pipeline per loop shape, for the driver's code size (its",
        "# docstring).",
        "SHADER vertex vs PASSTHROUGH",
    ]
    for name, text in shaders():
        lines.append("SHADER fragment %s GLSL\n%s%s%sEND" %
                     (name, HEADER, text, FOOTER))
    lines += [
        "BUFFER params DATA_TYPE int32 DATA 1 1000000 END",
        "BUFFER fb FORMAT B8G8R8A8_UNORM",
    ]
    for name, _ in shaders():
        lines.append(
            "PIPELINE graphics p_%s\n  ATTACH vs\n  ATTACH %s\n"
            "  BIND BUFFER params AS uniform DESCRIPTOR_SET 0 BINDING 0\n"
            "  BIND BUFFER fb AS color LOCATION 0\n"
            "  FRAMEBUFFER_SIZE 16 16\nEND" % (name, name))
    for name, _ in shaders():
        lines.append("RUN p_%s DRAW_RECT POS 0 0 SIZE 16 16" % name)
    return "\n".join(lines) + "\n"


def sweep(record):
    """(trips, H200 ns, emulated cycles) of the trip sweep's compares
    (record/trips*.json), by trips."""
    rows = []
    for name in sorted(os.listdir(record)):
        if not (name.startswith("trips") and name.endswith(".json")):
            continue
        with open(os.path.join(record, name)) as f:
            for v in json.load(f)["variants"]:
                trips = int(v["define"]["value"]) if v["define"]["name"] == \
                    "TRIPS" else None
                for d in v.get("defines", []):
                    if d.startswith("TRIPS="):
                        trips = int(d[len("TRIPS="):])
                rows.append((trips, v["gpu_ns"], v["cycles"]))
    return sorted(rows)


def summary(record):
    report_path = os.path.join(record, "e16.json")
    with open(report_path) as f:
        report = json.load(f)
    sizes = {}
    registers = {}
    for p in report.get("pipelines", []):
        if p.get("stage") != "fragment":
            continue
        stats = p.get("executable_statistics", {})
        if "Binary Size" not in stats:
            continue
        name = p["name"][len("p_"):] if p["name"].startswith("p_") \
            else p["name"]
        sizes[name] = stats["Binary Size"]
        registers[name] = stats.get("Register Count")
    if not sizes:
        raise SystemExit("e16_loop_unroll.py: %s has no fragment pipeline "
                         "with a Binary Size" % report_path)
    _, per_fma = fit([(k, sizes["straight_%d" % k]) for k in STRAIGHT])
    _, per_body_fma = fit([(k, sizes["loop_%d" % k])
                                for k in LOOP_BODIES])
    copies = per_body_fma / per_fma
    rows = sweep(record)
    # Where the draw's time rises by more than STEP_NS over one more trip.
    steps = [t for (t, ns, _), (_, before, _) in zip(rows[1:], rows)
             if ns - before > STEP_NS]
    return {
        "device": report.get("device", {}),
        "record": os.path.relpath(record, os.path.join(HERE, "..", "..")),
        "binary_size": sizes,
        "register_count": registers,
        "bytes_per_multiply_add": round(per_fma, 3),
        "bytes_per_loop_body_multiply_add": round(per_body_fma, 3),
        # Copies of the body in the code of a countable loop with a run-time
        # trip count: the main loop's and the remainder's together.
        "body_copies": round(copies, 2),
        # U copies in the unrolled main loop, U - 1 for the remainder.
        "unroll": round((copies + 1) / 2),
        "sweep": [{"trips": t, "gpu_ns": ns, "emulated_cycles": c}
                  for t, ns, c in rows],
        "sweep_steps_at": steps,
    }


def table(s):
    rows = ["Device: %s, driver %s; `%s`. Bytes per multiply-add (straight "
            "code): %.1f; per multiply-add of a countable loop's body: %.1f; "
            "copies of the body: **%.2f**, read as %d in the unrolled loop "
            "and %d for the remainder (unroll factor %d).\n" %
            (s["device"].get("name", "?"), s["device"].get("driver_info", "?"),
             s["record"], s["bytes_per_multiply_add"],
             s["bytes_per_loop_body_multiply_add"], s["body_copies"],
             s["unroll"], s["unroll"] - 1, s["unroll"]),
            "| shader | Binary Size (bytes) | registers |",
            "|---|---|---|"]
    for name, _ in shaders():
        if name in s["binary_size"]:
            rows.append("| %s | %d | %s |" % (name, s["binary_size"][name],
                                              s["register_count"].get(name)))
    rows += ["",
             "The trip sweep (`samples/branch_costs/loop_trips.amber`, "
             "VARIANT=0; median of 15 draws; the emulated cycles are the "
             "recording's, before the model unrolled loops). The H200's time "
             "rises by more than %d ns at %s trips.\n" %
             (STEP_NS, ", ".join(str(t) for t in s["sweep_steps_at"])),
             "| trips | H200 ns | emulated cycles then |",
             "|---|---|---|"]
    for r in s["sweep"]:
        rows.append("| %d | %.0f | %d |" % (r["trips"], r["gpu_ns"],
                                             r["emulated_cycles"]))
    return "\n".join(rows) + "\n"


def main():
    return scene_summary_table_main(__doc__, scene, summary, table, "e16",
                                    "e16_loop_unroll.py")


if __name__ == "__main__":
    sys.exit(main())
