#!/usr/bin/env python3
"""E12 in timing mode: fragment warps resident at once per SM, the timing
model against the H200.

The H200's figure is vulkan_ref's E12 record
(vulkan_ref/results/h200/observe-2026-11-30/e12_occupancy.report.json):
per draw, the most fragment warps alive at once on one SM
(`observe.fragment.max_live_warps_per_sm`), for fragment shaders with K
vec4 accumulators (registers) and V vec4 varyings. This script runs the
same shaders (vulkan_ref/experiments/observe_scenes.py e12()) in
`warpsim run --timing` with the h200 preset, on a 128x128 framebuffer
instead of 512x512 and 2 spin iterations instead of 2000 (512 warps per
draw still fill the preset's 4 graphics SMs, and the timing run stays
short), and compares each draw's `peak_fragment_warps_per_sm`:

  - with `--registers-from` the record itself, so that each fragment
    shader gets the register count the driver reported: this checks the
    timing model's residency (register file per sub-partition, warp slots)
    against the H200. It must match exactly; the script exits 1 if not.
  - with the emulator's own register estimate (issue 7's model), shown
    beside it, not checked.

    samples/h200/e12_timing.py [--warpsim build/warpsim] [--json OUT.json]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "vulkan_ref" / "experiments"))
import observe_scenes  # noqa: E402

RECORD = "vulkan_ref/results/h200/observe-2026-11-30/e12_occupancy.report.json"


def scene():
    text = observe_scenes.e12()
    out = []
    for line in text.split("\n"):
        if line.startswith("BUFFER params"):
            line = line.replace("DATA 2000 ", "DATA 2 ")
        elif line.startswith("IMAGE frame") or "FRAMEBUFFER_SIZE" in line or \
                line.startswith("RUN "):
            line = line.replace("512", "128")
        out.append(line)
    return "\n".join(out)


def run(warpsim, path, extra):
    fd, report = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        r = subprocess.run([warpsim, "run", path, "--timing", "--quiet",
                            "--shader-cache", "off", "--json", report] + extra,
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("warpsim run %s failed (%d): %s%s" % (
                " ".join(extra), r.returncode, r.stdout, r.stderr))
        with open(report) as f:
            return json.load(f)
    finally:
        os.remove(report)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warpsim", default=str(ROOT / "build" / "warpsim"))
    ap.add_argument("--json", help="write the comparison here")
    args = ap.parse_args()
    with open(ROOT / RECORD) as f:
        record = json.load(f)
    h200 = {d["pipeline"]: d["observe"]["fragment"]["max_live_warps_per_sm"]
            for d in record["draws"]}
    driver_regs = {p["name"]: p["executable_statistics"]["Register Count"]
                   for p in record["pipelines"] if p["stage"] == "fragment"}
    with tempfile.NamedTemporaryFile("w", suffix=".amber", delete=False) as f:
        f.write(scene())
        path = f.name
    try:
        driver = run(args.warpsim, path,
                     ["--registers-from", str(ROOT / RECORD)])
        estimate = run(args.warpsim, path, [])
    finally:
        os.remove(path)
    rows = []
    for d, e in zip(driver["draws"], estimate["draws"]):
        name = d["pipeline"]
        rows.append({
            "pipeline": name,
            "h200_max_live_warps_per_sm": h200[name],
            "driver_registers": driver_regs[name],
            "timing_peak_warps_per_sm": d["peak_fragment_warps_per_sm"],
            "limiter": d["limiter"],
            "estimated_registers": e["registers_per_thread"],
            "timing_peak_with_estimate": e["peak_fragment_warps_per_sm"],
        })
    print("| pipeline | driver registers | H200 warps/SM | timing model | "
          "match | estimated registers | timing model with them |")
    print("|---|---|---|---|---|---|---|")
    bad = 0
    for r in rows:
        ok = r["timing_peak_warps_per_sm"] == r["h200_max_live_warps_per_sm"]
        bad += not ok
        print("| %s | %d | %d | %d | %s | %d | %d |" % (
            r["pipeline"], r["driver_registers"],
            r["h200_max_live_warps_per_sm"], r["timing_peak_warps_per_sm"],
            "yes" if ok else "NO", r["estimated_registers"],
            r["timing_peak_with_estimate"]))
    print("%d of %d draws: the timing model's peak fragment warps per SM "
          "equal the H200's (with the driver's register counts)."
          % (len(rows) - bad, len(rows)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"record": RECORD, "rows": rows}, f, indent=1)
            f.write("\n")
    return 1 if bad or len(rows) != len(h200) else 0


if __name__ == "__main__":
    sys.exit(main())
