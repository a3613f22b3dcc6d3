#!/usr/bin/env python3
"""E31's and E32's loops, the same SPIR-V on the H200 through Vulkan.

cuda_ref's E31 (a chase with a branch after each load) and E32 (what a
loop's trip takes of the issue at 1 and 32 warps per SM) time CUDA
kernels. timing_vs_h200.py runs SPIR-V scenes of the same loops
(e31_chase_branch.amber, e32_issue_slots.amber) in the timing model and
compares them with CUDA. This script times those very scenes on the H200
with warpsim-vkref, so that the model can also be compared with what
NVIDIA's Vulkan compiler makes of the same SPIR-V: whether a compute
shader's loads take issue slots beyond their own as E32's CUDA loads do
(the timing model charges them to compute warps only, `emulator/sm/
README.md`), whether a branch every lane takes alike costs what it costs
in CUDA, and what a chase step through an index costs.

    samples/microbench/loops_vulkan.py make          # writes .loops_*.amber here
    (on the H200) samples/microbench/loops_vulkan.py run OUT_DIR
    samples/microbench/loops_vulkan.py table RESULT_DIR  # cycles per trip

Each scene is one workgroup per pipeline (1, 16 or 32 warps), so each
dispatch runs on one SM. `run` runs every scene with `warpsim-vkref run
--device nvidia --repeat 9` and keeps the reports and the GPU's clocks
(nvidia-smi) beside them. A dispatch's GPU time (timestamps) holds its
launch, so the figure per trip is a difference: the scene with the long
trip count minus the one with the short, divided by the trips between
them, converted to cycles with the SM clock nvidia-smi read after the
runs. For E31 a trip is one chase step (the scene's loop walks one step a
trip), as in timing_vs_h200.py.
"""

import datetime
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import make_scenes  # noqa: E402
from chase_vulkan import clock_mhz, smi as nvidia_smi  # noqa: E402

# (experiment, make_scenes setting, scene function, short, long): the
# lengths are CUDA's (E31 4096 steps, E32 2048 trips) and twice them.
EXPERIMENTS = [
    ("e31", "E31_TRIPS", make_scenes.scene_e31, 4096, 8192),
    ("e32", "E32_TRIPS", make_scenes.scene_e32, 2048, 4096),
]


def scene_path(name, trips):
    return HERE / (".loops_%s_%d.amber" % (name, trips))


def make():
    for name, setting, fn, short, long_ in EXPERIMENTS:
        for trips in (short, long_):
            old = getattr(make_scenes, setting)
            setattr(make_scenes, setting, trips)
            try:
                text = fn().text()
            finally:
                setattr(make_scenes, setting, old)
            scene_path(name, trips).write_text(text)
            print(scene_path(name, trips).relative_to(ROOT))


def run(out, device="nvidia"):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    vkref = str(ROOT / "build" / "warpsim-vkref")

    def smi():
        if device != "nvidia":
            return "(no nvidia-smi: device %s)" % device
        return nvidia_smi()

    log = ["date: " + datetime.datetime.now(datetime.timezone.utc).isoformat(
        timespec="seconds"), "before: " + smi()]
    # A warm-up run (clocks up), not kept.
    name, _, _, short, _ = EXPERIMENTS[-1]
    subprocess.run([vkref, "run", str(scene_path(name, short)), "--device",
                    device, "--repeat", "3", "--quiet"], capture_output=True)
    failed = False
    for name, _, _, short, long_ in EXPERIMENTS:
        for trips in (short, long_):
            tag = "%s_%d" % (name, trips)
            r = subprocess.run(
                [vkref, "run", str(scene_path(name, trips)), "--device",
                 device, "--repeat", "9", "--shader-cache", "off", "--quiet",
                 "--json", str(out / (tag + ".json"))],
                capture_output=True, text=True)
            log.append("%s: exit %d" % (tag, r.returncode))
            failed |= r.returncode != 0
            if r.returncode != 0:
                log.append(r.stdout.strip()[-2000:] + r.stderr.strip()[-2000:])
    log.append("after: " + smi())
    log.append("command: warpsim-vkref run .loops_NAME_TRIPS.amber --device "
               "%s --repeat 9 --shader-cache off --quiet --json "
               "NAME_TRIPS.json (%s; after a warm-up run)" % (
                   device, ", ".join("%s %d and %d" % (n, s, l)
                                     for n, _, _, s, l in EXPERIMENTS)))
    (out / "runs.txt").write_text("\n".join(log) + "\n")
    print("\n".join(log))
    return 1 if failed else 0


def table(result, mhz=None):
    """{(experiment, pipeline): cycles per trip} from a result folder."""
    if mhz is None:
        mhz = clock_mhz(result)
    out = {}
    for name, _, _, short, long_ in EXPERIMENTS:
        times = []
        for trips in (short, long_):
            path = Path(result) / ("%s_%d.json" % (name, trips))
            with open(path) as f:
                rep = json.load(f)
            if rep.get("result") not in (None, "pass"):
                raise SystemExit("%s did not pass" % path)
            times.append({d["pipeline"]: d["gpu_time_ns"]
                          for d in rep["dispatches"]})
        for pipe in times[0]:
            ns = (times[1][pipe] - times[0][pipe]) / (long_ - short)
            out[(name, pipe)] = ns * mhz / 1000.0
    return out, mhz


def main():
    args = sys.argv[1:]
    if args[:1] == ["make"] and len(args) == 1:
        make()
    elif args[:1] == ["run"] and len(args) in (2, 4) and (
            len(args) == 2 or args[2] == "--device"):
        return run(args[1], args[3] if len(args) == 4 else "nvidia")
    elif args[:1] == ["table"] and len(args) in (2, 4) and (
            len(args) == 2 or args[2] == "--mhz"):
        rows, mhz = table(args[1], int(args[3]) if len(args) == 4 else None)
        print("SM clock %d MHz" % mhz)
        for (name, pipe), cycles in sorted(rows.items()):
            print("%-4s %-22s %9.2f cycles per trip" % (name, pipe, cycles))
    else:
        print(__doc__)
        print("run OUT_DIR [--device D]: D as warpsim-vkref's --device "
              "(lavapipe to try it here); table RESULT_DIR [--mhz F]: the "
              "clock when runs.txt has none")
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main())
