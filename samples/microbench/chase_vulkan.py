#!/usr/bin/env python3
"""E2's pointer chases, the same SPIR-V on the H200 through Vulkan.

cuda_ref's E2 times CUDA's chase, one load through a 64-bit pointer per
step. The SPIR-V scenes of this folder chase an index (`p = next[p]`), so
each step also computes an address, on the H200 as in the emulator. This
script times the very scenes timing_vs_h200.py runs in the emulator, on
the H200 with warpsim-vkref, so that the two can be compared step for
step:

    samples/microbench/chase_vulkan.py make          # writes .chase_*.amber here
    (on the H200) samples/microbench/chase_vulkan.py run OUT_DIR
    samples/microbench/chase_vulkan.py table RESULT_DIR   # prints cycles per step

`run` runs each scene with `warpsim-vkref run --device nvidia --repeat 9`
and keeps the reports and the GPU's clocks (nvidia-smi) beside them. A
dispatch's GPU time (timestamps) holds its launch and warm-up, so the
figure per step is a difference: the scene with 2^15 timed steps minus
the one with 2^14, divided by 2^14, converted to cycles with the SM clock
nvidia-smi read after the runs.
"""

import datetime
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import make_scenes  # noqa: E402

STEPS = (1 << 14, 1 << 15)
KINDS = ("global", "shared")


def scene_path(kind, steps):
    return HERE / (".chase_%s_%d.amber" % (kind, steps))


def make():
    for kind in KINDS:
        for steps in STEPS:
            old = make_scenes.E2_STEPS
            make_scenes.E2_STEPS = steps
            try:
                text = make_scenes.scene_e2(kind).text()
            finally:
                make_scenes.E2_STEPS = old
            scene_path(kind, steps).write_text(text)
            print(scene_path(kind, steps).relative_to(ROOT))


def smi():
    """The GPU's name, driver and SM clocks, as nvidia-smi reads them."""
    return subprocess.run(
        ["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,"
         "clocks.max.sm", "--format=csv,noheader"],
        capture_output=True, text=True).stdout.strip()


def run(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    vkref = str(ROOT / "build" / "warpsim-vkref")

    log = ["date: " + datetime.datetime.now(datetime.timezone.utc).isoformat(
        timespec="seconds"), "before: " + smi()]
    # A warm-up run (clocks up, shader compiled), not kept.
    subprocess.run([vkref, "run", str(scene_path("global", STEPS[0])),
                    "--device", "nvidia", "--repeat", "5", "--quiet"],
                   capture_output=True)
    for kind in KINDS:
        for steps in STEPS:
            name = "%s_%d" % (kind, steps)
            r = subprocess.run(
                [vkref, "run", str(scene_path(kind, steps)), "--device",
                 "nvidia", "--repeat", "9", "--shader-cache", "off",
                 "--json", str(out / (name + ".json"))],
                capture_output=True, text=True)
            log.append("%s: exit %d" % (name, r.returncode))
    log.append("after: " + smi())
    log.append("command: warpsim-vkref run .chase_KIND_STEPS.amber --device "
               "nvidia --repeat 9 --shader-cache off --json KIND_STEPS.json "
               "(KIND global, shared; STEPS %d, %d; after a warm-up run)"
               % STEPS)
    (out / "runs.txt").write_text("\n".join(log) + "\n")
    print("\n".join(log))


def clock_mhz(result):
    text = (Path(result) / "runs.txt").read_text()
    m = re.search(r"^after: .*?, .*?, (\d+) MHz, \d+ MHz", text, re.M)
    if not m:
        raise SystemExit("%s/runs.txt has no 'after:' clock" % result)
    return int(m.group(1))


def table(result):
    """{(kind, footprint tag): cycles per step} from a result folder."""
    mhz = clock_mhz(result)
    out = {}
    for kind in KINDS:
        times = []
        for steps in STEPS:
            with open(Path(result) / ("%s_%d.json" % (kind, steps))) as f:
                rep = json.load(f)
            if rep.get("result") not in (None, "pass"):
                raise SystemExit("%s_%d did not pass" % (kind, steps))
            times.append({d["pipeline"]: d["gpu_time_ns"]
                          for d in rep["dispatches"]})
        for pipe in times[0]:
            ns = (times[1][pipe] - times[0][pipe]) / (STEPS[1] - STEPS[0])
            out[(kind, pipe.split("_")[-1])] = ns * mhz / 1000.0
    return out, mhz


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "make":
        make()
    elif len(sys.argv) == 3 and sys.argv[1] == "run":
        run(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "table":
        rows, mhz = table(sys.argv[2])
        print("SM clock %d MHz" % mhz)
        for (kind, tag), cycles in sorted(rows.items()):
            print("%-7s %-5s %8.2f cycles per step" % (kind, tag, cycles))
    else:
        print(__doc__)
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main())
