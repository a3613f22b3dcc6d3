#!/usr/bin/env python3
"""Summarises a `warpsim-vkref run --observe --out DIR` run: reads
DIR/observe.bin (records, see vulkan_ref/observe.h) and DIR/report.json and
writes one small JSON object with, per draw and dispatch, what REFERENCE
§6 E7, E8, E9, E11, E12 and E14 ask for and the report's derived
statistics do not already hold:

  sm_ids            the SM ids each stage ran on (E7)
  lane_layout       fragment lanes where lane % 4 != (x & 1) + 2 (y & 1),
                    and quads whose lanes are not one aligned group of 4 (E8)
  footprints        the commonest warp bounding boxes (W x H) and, for warps
                    of 8 quads, the commonest quad patterns (E8)
  tiles             per tile side: share of tiles shaded by one SM; for the
                    largest side where (nearly) all are, the tile -> SM map
                    and the rank correlation of the tiles' first record
                    (shading order) with row-major and Morton order (E9)
  counts            fs_invocations (statistic), non-helper invocations
                    (records) and helper lanes (quad masks) (E11)
  warps_per_sm      fragment warps alive at once per SM and warp slots seen
                    (E12, with the report's max_live_warps_per_sm)
  clock             per draw the longest warp in SM cycles and the draw's
                    GPU time in ns (E14)

Pure Python (the GPU machine has no numpy). Usage:
  observe_summary.py DIR > summary.json
"""
import array
import collections
import gzip
import json
import math
import os
import struct
import sys

W = 20  # words per record (kObserveRecordWords)
ABSENT = 0xFFFFFFFF
F_VERTEX, F_FRAGMENT, F_SUBGROUP, F_QUAD, F_SM, F_CLOCK, F_PRIM, F_COMPUTE = (
    1, 2, 4, 8, 16, 32, 64, 128)
DISPATCH = 0x80000000


def read_observations(path):
    """[(index, taken, capacity, words)] of an observe.bin (or .bin.gz)."""
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        data = f.read()
    if data[:8] != b"WSOBSV01":
        raise SystemExit(f"{path}: not an observe.bin file")
    pos, out = 8, []
    while pos < len(data):
        index, taken, capacity, n = struct.unpack_from("<4I", data, pos)
        pos += 16
        words = array.array("I")
        words.frombytes(data[pos:pos + n * W * 4])
        if sys.byteorder != "little":
            words.byteswap()
        pos += n * W * 4
        out.append((index, taken, capacity, words))
    return out


def pixel(bits):
    f = struct.unpack("<f", struct.pack("<I", bits))[0]
    return int(math.floor(f)) if math.isfinite(f) else 0


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0] * len(values)
    for k, i in enumerate(order):
        r[i] = k
    return r


def correlation(a, b):
    n = len(a)
    if n < 2:
        return None
    ma, mb = sum(a) / n, sum(b) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    va = sum((x - ma) ** 2 for x in a)
    vb = sum((y - mb) ** 2 for y in b)
    return cov / math.sqrt(va * vb) if va and vb else None


def morton(x, y):
    k = 0
    for b in range(16):
        k |= ((x >> b) & 1) << (2 * b) | ((y >> b) & 1) << (2 * b + 1)
    return k


def summarize_fragment(recs):
    out = {}
    flags = 0
    warps = collections.defaultdict(list)
    pixel_sm, pixel_ticket = {}, {}
    bad_lane = 0
    for ticket, r in recs:
        flags |= r[0]
        x, y = pixel(r[10]), pixel(r[11])
        if r[0] & F_SM:
            pixel_sm.setdefault((x, y), set()).add(r[2])
        pixel_ticket[(x, y)] = min(ticket, pixel_ticket.get((x, y), ticket))
        if r[0] & F_SUBGROUP:
            if r[4] % 4 != (x & 1) + 2 * (y & 1):
                bad_lane += 1
            warps[r[1]].append((x, y, r[4], r[12] if r[0] & F_PRIM else 0,
                                r[9] & 15))
    if flags & F_SUBGROUP:
        bad_quad = 0
        boxes, patterns = collections.Counter(), collections.Counter()
        for w in warps.values():
            quads = collections.defaultdict(set)
            for x, y, lane, prim, _ in w:
                quads[(x >> 1, y >> 1, prim)].add(lane // 4)
            bad_quad += sum(1 for s in quads.values() if len(s) != 1)
            xs = [q[0] for q in quads]
            ys = [q[1] for q in quads]
            x0, y0 = min(xs), min(ys)
            boxes[f"{2 * (max(xs) - x0 + 1)}x{2 * (max(ys) - y0 + 1)}"] += 1
            if len(quads) == 8:
                patterns[" ".join(f"{q[0] - x0},{q[1] - y0}"
                                  for q in sorted(quads))] += 1
        out["lane_layout"] = {"lanes_off_spec_layout": bad_lane,
                              "quads_split_across_lane_groups": bad_quad}
        out["footprints"] = {
            "bounding_boxes_px": dict(boxes.most_common(8)),
            "full_warp_quad_patterns": dict(patterns.most_common(5))}
    if pixel_sm:
        out["tiles"] = summarize_tiles(pixel_sm, pixel_ticket)
    return out


def summarize_tiles(pixel_sm, pixel_ticket):
    shares, best = {}, None
    for side in (4, 8, 16, 32, 64, 128, 256):
        tiles = collections.defaultdict(set)
        for (x, y), sms in pixel_sm.items():
            tiles[(x // side, y // side)].update(sms)
        single = sum(1 for s in tiles.values() if len(s) == 1)
        shares[str(side)] = single / len(tiles)
        if single / len(tiles) >= 0.99:
            best = side
    out = {"single_sm_share": shares}
    if best is None:
        return out
    tiles, first = {}, {}
    for (x, y), sms in pixel_sm.items():
        t = (x // best, y // best)
        tiles.setdefault(t, collections.Counter()).update(sms)
        first[t] = min(first.get(t, pixel_ticket[(x, y)]),
                       pixel_ticket[(x, y)])
    keys = sorted(tiles)
    out["tile_side"] = best
    out["tiles"] = len(keys)
    out["sms"] = len({tiles[t].most_common(1)[0][0] for t in keys})
    if len(keys) <= 4096:
        tx0 = min(t[0] for t in keys)
        ty0 = min(t[1] for t in keys)
        w = max(t[0] for t in keys) - tx0 + 1
        h = max(t[1] for t in keys) - ty0 + 1
        grid = [[-1] * w for _ in range(h)]
        for t in keys:
            grid[t[1] - ty0][t[0] - tx0] = tiles[t].most_common(1)[0][0]
        out["tile_sm_map"] = grid
    order = ranks([first[t] for t in keys])
    out["order_correlation"] = {
        "row_major": correlation(order, ranks([(t[1], t[0]) for t in keys])),
        "column_major": correlation(order,
                                    ranks([(t[0], t[1]) for t in keys])),
        "morton": correlation(order, ranks([morton(*t) for t in keys])),
    }
    return out


def summarize(path):
    report = json.load(open(os.path.join(path, "report.json")))
    result = {"file": report["file"], "device": report.get("device", {}),
              "pipelines": [{k: p.get(k) for k in (
                  "name", "stage", "executable_statistics")}
                  for p in report["pipelines"]],
              "draws": [], "dispatches": []}
    for index, taken, capacity, words in read_observations(
            os.path.join(path, "observe.bin")):
        is_dispatch = bool(index & DISPATCH)
        entry_list = report["dispatches" if is_dispatch else "draws"]
        entry = entry_list[index & ~DISPATCH]
        recs = [(i, words[i * W:(i + 1) * W]) for i in range(len(words) // W)]
        by_stage = collections.defaultdict(list)
        for ticket, r in recs:
            stage = ("fragment" if r[0] & F_FRAGMENT else
                     "compute" if r[0] & F_COMPUTE else "vertex")
            by_stage[stage].append((ticket, r))
        s = {"pipeline": entry["pipeline"], "line": entry["line"],
             "taken": taken, "records": len(recs),
             "statistics": {k: v for k, v in entry.items() if k not in (
                 "observe", "gpu_times_ns", "pipeline", "line")},
             "observe": entry.get("observe"), "sm_ids": {}}
        longest = 0
        for stage, rs in by_stage.items():
            sms = sorted({r[2] for _, r in rs if r[0] & F_SM})
            if sms:
                s["sm_ids"][stage] = sms
                slots = collections.defaultdict(set)
                for _, r in rs:
                    slots[r[2]].add(r[3])
                s.setdefault("warp_slots", {})[stage] = {
                    "max_per_sm": max(len(v) for v in slots.values()),
                    "max_slot": max(max(v) for v in slots.values())}
            for _, r in rs:
                if r[0] & F_CLOCK and r[16] != ABSENT:
                    start = r[13] | r[14] << 32
                    end = r[16] | r[17] << 32
                    longest = max(longest, end - start)
        if longest:
            s["clock"] = {"longest_invocation_cycles": longest,
                          "gpu_time_ns": entry.get("gpu_time_ns")}
        if by_stage.get("fragment"):
            s.update(summarize_fragment(by_stage["fragment"]))
            obs = (entry.get("observe") or {}).get("fragment", {})
            s["counts"] = {"fs_invocations": entry.get("fs_invocations"),
                           "non_helper_invocations": len(by_stage["fragment"]),
                           "helper_lanes": obs.get("helper_lanes")}
        (result["dispatches" if is_dispatch else "draws"]).append(s)
    return result


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 64
    json.dump(summarize(argv[1]), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
