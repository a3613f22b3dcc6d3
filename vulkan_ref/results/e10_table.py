#!/usr/bin/env python3
"""Makes the E10 (vertex batching) table of a results README from a run
directory: e10.manifest.json (the generator's list of draws, in order),
e10_h200_run*.json (warpsim-vkref reports of the device) and, when present,
e10_emulator.json (warpsim run's report of the same file). Draws are paired
by their order in the file (every report lists draws in file order).

For every pattern, runs of consecutive parameters with the same
VERTEX_SHADER_INVOCATIONS are folded into one row, so batch boundaries show
as row breaks. Usage:

  vulkan_ref/results/e10_table.py RUN_DIR                 print the table
  vulkan_ref/results/e10_table.py --update README RUN_DIR
      replace the text between "<!-- e10 NAME -->" and "<!-- end e10 NAME -->"
      (NAME: the run directory's name)
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
from readme_section import replace_section  # noqa: E402


def load(run_dir):
    manifest = json.load(open(os.path.join(run_dir, "e10.manifest.json")))
    draws = manifest["draws"]
    device_runs = [json.load(open(p)) for p in
                   sorted(glob.glob(os.path.join(run_dir, "e10_h200_run*.json")))]
    emu_path = os.path.join(run_dir, "e10_emulator.json")
    emulator = json.load(open(emu_path)) if os.path.exists(emu_path) else None
    return draws, device_runs, emulator


def table(run_dir):
    draws, device_runs, emulator = load(run_dir)
    lines = []
    counts = [len(r.get("draws", [])) for r in device_runs]
    lines.append("`%s`: %d draws in the file; device runs: %s draws each; "
                 "emulator: %s."
                 % (os.path.relpath(run_dir), len(draws),
                    ", ".join(str(c) for c in counts),
                    "%d draws" % len(emulator.get("draws", []))
                    if emulator else "not run"))
    same = all(
        [d["vs_invocations"] for d in r["draws"]] ==
        [d["vs_invocations"] for d in device_runs[0]["draws"]]
        for r in device_runs)
    lines.append("The device's counts are %s in every run." %
                 ("identical" if same else "NOT identical"))
    lines.append("")
    lines.append("| pattern | parameter | distinct vertices | device "
                 "vs_invocations | emulator vs_invocations |")
    lines.append("|---|---|---|---|---|")
    dev = device_runs[0]["draws"]
    emu = emulator["draws"] if emulator else [{}] * len(draws)
    rows = []
    for m, d, e in zip(draws, dev, emu):
        rows.append((m["pattern"], m["param"], m["distinct_vertices"],
                     d.get("vs_invocations"), e.get("vs_invocations")))
    def span(a, b):
        return str(a) if a == b else "%s-%s" % (a, b)

    def extra(v, distinct):
        return None if v is None else v - distinct

    i = 0
    exact = total = 0
    while i < len(rows):
        # Fold a run of one pattern in which the device's and the emulator's
        # counts stay the same, or stay the same amount above the distinct
        # vertices (then shown as "distinct + k"): batch boundaries are where
        # rows break.
        j = i
        while j + 1 < len(rows) and rows[j + 1][0] == rows[i][0]:
            a, b = rows[j + 1], rows[i]
            same = a[3] == b[3] and a[4] == b[4]
            offset = (extra(a[3], a[2]) == extra(b[3], b[2]) and
                      extra(a[4], a[2]) == extra(b[4], b[2]))
            if not (same or offset):
                break
            j += 1

        def cell(k):
            first, last = rows[i][k], rows[j][k]
            if first is None:
                return "-"
            if first == last:
                return str(first)
            return "%s (distinct + %d)" % (span(first, last),
                                           first - rows[i][2])

        lines.append("| %s | %s | %s | %s | %s |"
                     % (rows[i][0], span(rows[i][1], rows[j][1]),
                        span(rows[i][2], rows[j][2]), cell(3), cell(4)))
        i = j + 1
    for r in rows:
        if r[4] is not None:
            total += 1
            exact += r[3] == r[4]
    lines.append("")
    if total:
        lines.append("The emulator's count equals the device's in %d of %d "
                     "draws." % (exact, total))
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) == 2 and argv[1] not in ("-h", "--help"):
        sys.stdout.write(table(argv[1]))
        return 0
    if len(argv) == 4 and argv[1] == "--update":
        readme, run_dir = argv[2], argv[3]
        name = os.path.basename(os.path.normpath(run_dir))
        start, end = "<!-- e10 %s -->" % name, "<!-- end e10 %s -->" % name
        return replace_section(readme, start, end, table(run_dir), "e10_table.py")
    sys.stderr.write(__doc__)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
