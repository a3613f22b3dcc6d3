#!/usr/bin/env python3
"""E35, whether NVIDIA's compiler unrolls a loop whose body is mostly a
block behind a branch, and up to what block size: compute shaders of one
warp whose loops differ only in the length of a block their trips skip,
with the driver's code size and the cycles a trip takes.

  vulkan_ref/experiments/e35_branch_unroll.py scene OUT_DIR
  vulkan_ref/experiments/e35_branch_unroll.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e35_branch_unroll.py table RECORD_DIR
      [--update README.md | --check README.md]
  vulkan_ref/experiments/e35_branch_unroll.py model RECORD_DIR
      --warpsim build/warpsim [--update README.md | --check README.md]

Why: E34 (vulkan_ref/results/h100) found loops with a run-time trip count
unrolled up to 18 instructions a trip and rolled from 19 on, for bodies of
straight multiply-adds; the timing preset's loop_unroll_max_body applies
that limit to every loop. But E27's and E28's fragment loops, a load and
a branch around B integer multiply-adds that no lane takes, came out of
the driver with about 7 to 9 instructions of code per multiply-add at
every B from 1 to 32 (their Binary Size: the body copied as in E16's
unrolled loops), where the model rolls them from about B = 11 on; and
samples/timing_families' register_pressure loops, the same kind of loop
around 96 to 192 additions, with about one copy. E35 asks the driver
directly, in the stage E34 measured, where a skipped block stops a loop
from being unrolled.

`scene` writes two AmberScript scenes into OUT_DIR, trips1024.amber and
trips2048.amber, the same pipelines with the loops running 1024 and 2048
trips (a buffer's word). Each pipeline is one workgroup of 32 invocations
(one warp) with its own compute shader:

  branch_B   a trip loads the next index of a 64-word ring (every lane the
             same word: an L1 hit) and, when the word equals a value no
             word has, runs B dependent integer multiply-adds,
             acc = acc * m + k (never: the block is skipped on every trip);
  straight_K the loop of E34's imad bodies: K integer multiply-adds over 4
             chains, no branch (E34's limit, in this run);

each as NAME_once (the trip's code without a loop) and NAME (the loop
`for (uint t = 0; t < n; ++t)`, n from the buffer), B = 0 (the load
alone), 1, 4, 8, 12, 16, 20, 24, 32, 40, 48, 64, 96, 128 and K = 16, 18,
19, 24.

On the GPU machine (run_e35_h200.sh, into RECORD_DIR) `warpsim-vkref run
SCENE --device nvidia --repeat 9 --json` records each pipeline's
executable statistics ("Binary Size", a multiple of 128 bytes) and each
dispatch's GPU time (the median of 9). `summary` gives per loop the bytes
it adds to its code without a loop, those bytes in copies of the trip's
code (B + 3 instructions for branch_B: the block, the load, its index and
the compare; K for straight_K; 16 bytes an instruction), the cycles per
trip (the difference of the two scenes' times over 1024 trips, at the SM
clock runs.txt read after the runs) and which loops the driver unrolled
(at least 2 copies); `table` writes the Markdown table between
<!-- table e35 --> and <!-- end table e35 -->.

The timing preset's loop_unroll_skipped_weight comes from the same
summary (skipped_weight: the middle of the weights with which the model's
count of each trip parts the loops where the driver did); `model` runs
the committed scenes in timing mode with the h200 preset, exits 1 unless
the model unrolls exactly the loops the driver unrolled, and writes the
model's cycles per trip beside the record's (<!-- table e35-model -->).

Standard library only.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from readme_section import scene_summary_table_main  # noqa: E402
import e34_unroll_limit as e34  # noqa: E402  (its record readers)

BLOCKS = [0, 1, 4, 8, 12, 16, 20, 24, 32, 40, 48, 64, 96, 128]
STRAIGHT = [16, 18, 19, 24]
TRIPS = (1024, 2048)
# Instructions of a branch_B trip besides its block: the load, the index
# mask and the compare (the branch itself and the loop's control are the
# loop's, as in E34).
BRANCH_MAIN = 3
# What the timing model (simt::UnrolledLoop::body) counts of a branch_B
# trip besides its block: the ring word's address, its load, the index
# mask and the compare (the load of `never`, the same word on every trip,
# is hoisted out of the loop as a compiler does; the branch and the loop's
# control are free). `model` checks it.
MODEL_MAIN = 4
# A loop is unrolled when it adds at least this many copies of its trip's
# code (a rolled loop adds its control only: well under one copy); E34's.
UNROLLED_COPIES = 2.0

HEADER = """#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer Params {
  uint trips;
  uint never;
  uint m;
};
layout(std430, set = 0, binding = 1) readonly buffer Ring { uint ring[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint result[]; };
void main() {
  uint n = trips;
  uint mm = m;
  uint g = gl_GlobalInvocationID.x;
  uint idx = 0u;
  uint acc = 1u;
  uint v0 = g, v1 = 2u, v2 = 3u, v3 = 4u;
"""
FOOTER = """  result[g] = idx ^ acc ^ v0 ^ v1 ^ v2 ^ v3;
}
"""


def branch_trip(b):
    out = ["idx = ring[idx] & 63u;"]
    if b > 0:
        out.append("if (idx == never) {")
        out += ["  acc = acc * mm + %du;" % (i + 1) for i in range(b)]
        out.append("}")
    return "".join("    " + s + "\n" for s in out)


def straight_trip(k):
    return "".join("    v%d = v%d * mm + %du;\n" % (i % 4, i % 4, i + 1)
                   for i in range(k))


def shaders():
    """[(name, kind, size, loop, GLSL)] for every pipeline: kind branch
    or straight, size B or K, loop once or loop."""
    out = []
    for kind, sizes, trip in (("branch", BLOCKS, branch_trip),
                              ("straight", STRAIGHT, straight_trip)):
        for n in sizes:
            text = trip(n)
            name = "%s_%d" % (kind, n)
            out.append((name + "_once", kind, n, "once",
                        HEADER + text + FOOTER))
            out.append((name, kind, n, "loop",
                        HEADER + "  for (uint t = 0u; t < n; ++t) {\n" +
                        text + "  }\n" + FOOTER))
    return out


def scene_text(trips):
    lines = [
        "#!amber",
        "# GENERATED by vulkan_ref/experiments/e35_branch_unroll.py scene: "
        "one",
        "# compute pipeline of one warp per loop, %d trips (its docstring)."
        % trips,
    ]
    for name, _, _, _, text in shaders():
        lines.append("SHADER compute %s GLSL\n%sEND" % (name, text))
    # never = 0xffffffff (no ring word); m = 1.
    lines.append("BUFFER params DATA_TYPE uint32 DATA %d 4294967295 1 END"
                 % trips)
    lines.append("BUFFER ring DATA_TYPE uint32 DATA " +
                 " ".join(str((i + 1) % 64) for i in range(64)) + " END")
    for name, _, _, _, _ in shaders():
        lines.append("BUFFER out_%s DATA_TYPE uint32 SIZE 32 FILL 0" % name)
        lines.append(
            "PIPELINE compute p_%s\n  ATTACH %s\n"
            "  BIND BUFFER params AS storage DESCRIPTOR_SET 0 BINDING 0\n"
            "  BIND BUFFER ring AS storage DESCRIPTOR_SET 0 BINDING 1\n"
            "  BIND BUFFER out_%s AS storage DESCRIPTOR_SET 0 BINDING 2\n"
            "END" % (name, name, name))
    for name, _, _, _, _ in shaders():
        lines.append("RUN p_%s 1 1 1" % name)
    return "\n".join(lines) + "\n"


def scene():
    return {"trips%d" % t: scene_text(t) for t in TRIPS}


TOOL = "e35_branch_unroll.py"


def trip_instructions(kind, n):
    return n + BRANCH_MAIN if kind == "branch" else n


def summary(record):
    mhz = e34.clock_mhz(record, TOOL)
    report, sizes, short = e34.load(record, TRIPS[0], TOOL)
    _, _, long_ = e34.load(record, TRIPS[1], TOOL)
    missing = [s[0] for s in shaders()
               if s[0] not in sizes or s[0] not in short or s[0] not in long_]
    if missing:
        raise SystemExit("e35_branch_unroll.py: %s lacks %s" %
                         (record, ", ".join(missing)))
    rows = []
    for name, kind, n, loop, _ in shaders():
        if loop == "once":
            continue
        once = sizes[name + "_once"][0]
        size, regs = sizes[name]
        ns = (long_[name] - short[name]) / (TRIPS[1] - TRIPS[0])
        copies = (size - once) / (16.0 * trip_instructions(kind, n))
        rows.append({
            "kind": kind, "size": n, "binary_size": size,
            "registers": regs, "bytes_over_once": size - once,
            "copies": copies, "unrolled": copies >= UNROLLED_COPIES,
            "cycles_per_trip": ns * mhz / 1000.0,
        })
    unrolled = [r["size"] for r in rows
                if r["kind"] == "branch" and r["unrolled"]]
    rolled = [r["size"] for r in rows
              if r["kind"] == "branch" and not r["unrolled"]]
    return {
        "device": report.get("device", {}),
        "record": os.path.relpath(record, os.path.join(HERE, "..", "..")),
        "sm_clock_mhz": mhz,
        "rows": rows,
        # The largest skipped block of a loop the driver unrolled, and the
        # smallest of one it left rolled (None: none).
        "largest_unrolled_block": max(unrolled) if unrolled else None,
        "smallest_rolled_block": min(rolled) if rolled else None,
    }


def table(s):
    def size(v):
        return "none" if v is None else str(v)

    out = ["Device: %s, driver %s; `%s`; SM clock %d MHz. Bytes: the "
           "driver's Binary Size of the compute shader; over no loop: what "
           "the loop adds to the same trip's code without a loop; copies: "
           "that in copies of a trip (branch_B: B + %d instructions, "
           "straight_K: K; 16 bytes an instruction), unrolled from %g; "
           "cycles per trip: one warp, (time at %d trips - time at %d) / "
           "%d.\n" % (
               s["device"].get("name", "?"),
               s["device"].get("driver_info", "?"), s["record"],
               s["sm_clock_mhz"], BRANCH_MAIN, UNROLLED_COPIES, TRIPS[1],
               TRIPS[0], TRIPS[1] - TRIPS[0]),
           "Loops around a skipped block: the largest block in a loop the "
           "driver unrolled %s, the smallest in one it left rolled %s.\n" %
           (size(s["largest_unrolled_block"]),
            size(s["smallest_rolled_block"])),
           "| loop | B or K | bytes | over no loop | copies | unrolled "
           "| registers | cycles per trip |",
           "|---|---|---|---|---|---|---|---|"]
    for r in s["rows"]:
        out.append("| %s | %d | %d | %d | %.1f | %s | %s | %.2f |" % (
            r["kind"], r["size"], r["binary_size"], r["bytes_over_once"],
            r["copies"], "yes" if r["unrolled"] else "no", r["registers"],
            r["cycles_per_trip"]))
    return "\n".join(out) + "\n"


def skipped_weight(s, limit):
    """What an instruction of a skipped block counts for against the
    straight-body limit LIMIT (E34's longest unrolled body) so that the
    timing model parts E35's loops where the driver did: the model's
    length of a branch_B trip is MODEL_MAIN + weight * B, within LIMIT up
    to the largest unrolled block and over it from the smallest rolled one,
    so weight lies in ((LIMIT - MODEL_MAIN) / smallest rolled,
    (LIMIT - MODEL_MAIN) / largest unrolled]; the middle of that interval,
    with the interval."""
    big, small = s["largest_unrolled_block"], s["smallest_rolled_block"]
    if big is None or small is None or big >= small or limit <= MODEL_MAIN:
        raise SystemExit("e35_branch_unroll.py: %s: no block size parts the "
                         "unrolled loops from the rolled ones" % s["record"])
    lo, hi = (limit - MODEL_MAIN) / small, (limit - MODEL_MAIN) / big
    return round((lo + hi) / 2, 3), lo, hi


def model_runs(warpsim):
    """{trips: {pipeline: dispatch}} of the committed scenes
    (samples/h200/e35_branch_unroll) in timing mode with the h200 preset."""
    from readme_section import timing_report
    scenes = os.path.join(HERE, "..", "..", "samples", "h200",
                          "e35_branch_unroll")
    return {t: {d["pipeline"]: d for d in timing_report(
        warpsim, os.path.join(scenes, "trips%d.amber" % t), TOOL)[
            "dispatches"]} for t in TRIPS}


def model_check(warpsim, record, update=None, check=None):
    """Runs the scenes in timing mode with the h200 preset and compares,
    loop by loop, whether the model issued the loop unrolled
    (unrolled_loop_instructions above 0) with whether the driver unrolled
    it in RECORD, and the cycles per trip; the table goes between
    <!-- table e35-model --> and <!-- end table e35-model --> (UPDATE,
    CHECK as `table`'s). Returns the exit status: 1 when a loop parts
    otherwise than the driver's or the table is stale."""
    runs = model_runs(warpsim)
    s = summary(record)
    bad = 0
    out = ["The timing model (`warpsim run samples/h200/e35_branch_unroll/"
           "tripsN.amber --timing --gpu-config h200`) beside `%s` (%s): "
           "unrolled as above (the model: its loop control issued once "
           "every `loop_unroll` trips); cycles per trip as above.\n" %
           (s["record"], s["device"].get("name", "?")),
           "| loop | B or K | driver | model | GPU cycles per trip | model "
           "| model / GPU |", "|---|---|---|---|---|---|---|"]
    for r in s["rows"]:
        name = "p_%s_%d" % (r["kind"], r["size"])
        if any(name not in runs[t] for t in TRIPS):
            raise SystemExit("e35_branch_unroll.py: no dispatch %s" % name)
        short, long_ = (runs[t][name] for t in TRIPS)
        model = short.get("unrolled_loop_instructions", 0) > 0
        bad += model != r["unrolled"]
        cycles = (long_["cycles"] - short["cycles"]) / (TRIPS[1] - TRIPS[0])
        out.append("| %s | %d | %s | %s | %.1f | %.1f | %.2f |" % (
            r["kind"], r["size"], "unrolled" if r["unrolled"] else "rolled",
            "unrolled" if model else "rolled", r["cycles_per_trip"], cycles,
            cycles / r["cycles_per_trip"]))
    text = "\n".join(out) + "\n"
    if bad:
        sys.stderr.write(text + "e35_branch_unroll.py model: %d loops part "
                         "otherwise than the driver's\n" % bad)
        return 1
    from readme_section import table_section_main
    return table_section_main(text, "e35-model", TOOL, check=check,
                              update=update)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "model":
        import argparse
        ap = argparse.ArgumentParser(
            prog="e35_branch_unroll.py model",
            description="whether the timing model (h200 preset) unrolls "
            "each of E35's loops as the driver did in RECORD_DIR")
        ap.add_argument("record")
        ap.add_argument("--warpsim", required=True)
        ap.add_argument("--update")
        ap.add_argument("--check")
        args = ap.parse_args(sys.argv[2:])
        return model_check(args.warpsim, args.record, args.update,
                           args.check)
    return scene_summary_table_main(__doc__, scene, summary, table, "e35",
                                    "e35_branch_unroll.py")


if __name__ == "__main__":
    sys.exit(main())
