#!/usr/bin/env python3
"""Rounds of fragment warps on each SM, from a `warpsim-vkref run
--observe --out DIR` run: for every draw, per SM, its warps in the order
they started (a warp: its lanes' records, from the earliest start clock to
the latest end clock, in its SM's clock). A warp belongs to round 1 when it
started within half a first-round warp's life (the median of the SM's
first 8 warps) of the SM's first start, to round 2 within one and a half,
else to round 3 or later. Prints one markdown table: per draw the SMs, the
most warps an SM ran, and per round the warps and their median life in SM
cycles. Pure Python.

  observe_rounds.py DIR [PIPELINE...]
"""
import collections
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import observe_summary as obs  # noqa: E402


def warps_by_sm(words):
    warps = {}
    for i in range(len(words) // obs.W):
        r = words[i * obs.W:(i + 1) * obs.W]
        if not r[0] & obs.F_FRAGMENT or not r[0] & obs.F_CLOCK:
            continue
        if not r[0] & obs.F_SM or r[16] == obs.ABSENT:
            continue
        start, end = r[13] | r[14] << 32, r[16] | r[17] << 32
        sm, s0, e0 = warps.get(r[1], (r[2], start, end))
        warps[r[1]] = (sm, min(s0, start), max(e0, end))
    by_sm = collections.defaultdict(list)
    for sm, start, end in warps.values():
        by_sm[sm].append((start, end))
    return by_sm


def rounds(by_sm):
    out = [[], [], []]
    for lives in by_sm.values():
        lives.sort()
        first = lives[0][0]
        life = statistics.median(e - s for s, e in lives[:8])
        for s, e in lives:
            x = (s - first) / life
            out[0 if x < 0.5 else 1 if x < 1.5 else 2].append(e - s)
    return out


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 64
    import json
    path, want = argv[1], set(argv[2:])
    report = json.load(open(os.path.join(path, "report.json")))
    bin_path = os.path.join(path, "observe.bin")
    if not os.path.exists(bin_path):
        bin_path += ".gz"
    print("| draw | line | SMs | most warps on one SM | round 1: warps, "
          "median life | round 2 | round 3 and later |")
    print("|---|---|---|---|---|---|---|")
    for index, _, _, words in obs.read_observations(bin_path):
        if index & obs.DISPATCH:
            continue
        entry = report["draws"][index]
        if want and entry["pipeline"] not in want:
            continue
        by_sm = warps_by_sm(words)
        if not by_sm:
            continue
        cells = ["%d, %.0f" % (len(r), statistics.median(r)) if r else "-"
                 for r in rounds(by_sm)]
        print("| %s | %d | %d | %d | %s |" % (
            entry["pipeline"], entry["line"], len(by_sm),
            max(len(v) for v in by_sm.values()), " | ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
