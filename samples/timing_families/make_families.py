#!/usr/bin/env python3
"""Writes the AmberScript scenes of samples/timing_families/ (README.md).

A family is one scene: the same full-screen draw (256x256 pixels) once per
variant of a fragment shader, each variant its own pipeline and RUN, so
that a device's per-draw GPU time (warpsim-vkref run --repeat N) and the
timing model's per-draw cycles (warpsim run --timing) can be compared
variant against variant. Loop trip counts come from a uniform buffer, so
no compiler can unroll or fold the loops.

    samples/timing_families/make_families.py           # rewrite the scenes
    samples/timing_families/make_families.py --check   # exit 1 if stale
"""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZE = 256

COMMON = """#version 450
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform Params { int n; } u;
"""

# The register_pressure and memory_loads families read storage buffers and
# one more uniform, `never` (0xFFFFFFFF: no table word equals it).
COMMON_DATA = """#version 450
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform Params { int n; uint never; } u;
layout(set = 0, binding = 1) readonly buffer Data { uint d[]; } data;
layout(set = 0, binding = 2) readonly buffer Vecs { vec4 v[]; } vecs;
"""

# Per pixel: the side of a branch and the trip counts, in GLSL.
BRANCH_BODY = """void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  float x = gl_FragCoord.x * 0.001, y = gl_FragCoord.y * 0.001;
  if ((((p.x >> %(g)d) ^ (p.y >> %(g)d)) & 1) == 0) {
    for (int i = 0; i < u.n; ++i) x = x * 1.0001 + 0.0003;
  } else {
    for (int i = 0; i < u.n; ++i) y = y * 0.9999 + 0.0007;
  }
  color = vec4(fract(x), fract(y), 0.0, 1.0);
}
"""

LOOP_BODY = """void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  uint h = uint(%(cell)s) * 2654435761u;
  int trips = %(trips)s;
  float x = gl_FragCoord.x * 0.001;
  for (int i = 0; i < trips; ++i) x = x * 1.0001 + 0.0003;
  color = vec4(fract(x), 0.0, 0.0, 1.0);
}
"""

# K vec4 values loaded before a loop and used after it, so that they hold
# 4 K registers through it; the loop is a chain of dependent loads (each
# load's address is the word the one before it loaded) that every lane of
# a warp walks together (one 32-byte sector per load, an L1 hit): its
# latency is hidden only by other warps, and the registers decide how many
# are resident. The branch nobody takes (no word equals u.never) writes
# every held value, so no compiler can load them after the loop instead.
PRESSURE_BODY = """void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec4 held[%(k)d];
  for (int k = 0; k < %(k)d; ++k) held[k] = vecs.v[(p.x + k * 5) & 63];
  uint idx = uint(p.y >> 3) & 4095u;
  for (int i = 0; i < u.n; ++i) {
    uint next = data.d[idx];
    if (next == u.never) {
      for (int k = 0; k < %(k)d; ++k) held[k] += 1.0;
    }
    idx = next & 4095u;
  }
  vec4 s = vec4(float(idx));
  for (int k = 0; k < %(k)d; ++k) s = s * 0.5 + held[k];
  color = fract(s * 0.001);
}
"""

# u.n loads per pixel, summed; the word each lane reads (ADDR) sets how
# many 32-byte sectors and 128-byte lines a warp's load touches. Inside a
# warp's 4x8-pixel block (vulkan_ref/results/h200/FINDINGS.md Q2), `lane`
# numbers the pixels 0..31 and `blk` the blocks; the buffer holds 2^20
# words (4 MB: past the L1s, within the L2 on both sides).
LOADS_BODY = """void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  uint lane = uint((p.y & 7) * 4 + (p.x & 3));
  uint blk = uint((p.y >> 3) * 64 + (p.x >> 2));
  uint s = 0u;
  for (int i = 0; i < %(trips)s; ++i) {
    s += data.d[(%(addr)s) & 1048575u];
  }
  color = vec4(float(s & 255u) / 255.0, 0.0, 0.0, 1.0);
}
"""

LOADS = {
    # Every lane of every warp the same word: one sector, an L1 hit.
    "uniform": "uint(i) * 32u",
    # A warp's 32 lanes 32 consecutive words: one line, 4 sectors.
    "coalesced": "blk * 32u + lane + uint(i) * 65536u",
    # Row-major words: 8 rows of 4 words, 8 lines and sectors.
    "rows": "uint(p.y * 256 + p.x) + uint(i) * 65536u",
    # Each lane its own sector 32 bytes apart: 32 sectors in 8 lines (9
    # on the trips whose start the 12-byte step of i * 262147 words moves
    # off a line boundary).
    "strided": "(blk * 32u + lane) * 8u + uint(i) * 262147u",
    # Hashed words over the 4 MB: 32 lines and sectors.
    "scattered": "(blk * 32u + lane + uint(i) * 65536u) * 2654435761u >> 12",
}

# (family, description, variants: (name, shader body, n))
FAMILIES = [
    ("branch_granularity",
     "an if/else whose sides each run u.n FMAs; the side is a checkerboard "
     "of 2^g x 2^g-pixel cells: g = 0 diverges in every quad, g = 4 in no "
     "warp (a warp covers 4x8 pixels on the H200)",
     [("g%d" % g, BRANCH_BODY % {"g": g}, 32) for g in (0, 1, 2, 3, 4, 5)]),
    ("loop_trips",
     "one loop of FMAs per pixel: the same trip count everywhere (16, 32, "
     "64), or a hashed trip count of 0..64 (mean 32) per pixel, per 4x4 "
     "and per 16x16 cell (divergence within warps, then none)",
     [("uniform16", LOOP_BODY % {"cell": "0", "trips": "u.n / 4"}, 64),
      ("uniform32", LOOP_BODY % {"cell": "0", "trips": "u.n / 2"}, 64),
      ("uniform64", LOOP_BODY % {"cell": "0", "trips": "u.n"}, 64),
      ("pixel0to64", LOOP_BODY % {
          "cell": "p.y * 4096 + p.x", "trips": "int((h >> 16) % 65u)"}, 64),
      ("cell4x4_0to64", LOOP_BODY % {
          "cell": "(p.y >> 2) * 4096 + (p.x >> 2)",
          "trips": "int((h >> 16) % 65u)"}, 64),
      ("cell16x16_0to64", LOOP_BODY % {
          "cell": "(p.y >> 4) * 4096 + (p.x >> 4)",
          "trips": "int((h >> 16) % 65u)"}, 64)]),
    ("register_pressure",
     "K vec4 values held in registers through a loop of 64 dependent loads "
     "(L1 hits, one sector per warp load), K = 1 .. 48: the more registers "
     "a pixel holds, the fewer warps an SM keeps resident to hide the "
     "loads' latency",
     [("held%d" % k, PRESSURE_BODY % {"k": k}, 64)
      for k in (1, 8, 16, 24, 32, 48)],
     {"data_words": 4096, "data": "SERIES_FROM 1 INC_BY 1"}),
    ("memory_loads",
     "16 loads per pixel from a 4 MB buffer, summed; where the lanes of a "
     "warp read sets how many sectors and lines each warp load touches: "
     "one word for all (uniform), 32 consecutive words (coalesced, and "
     "coalesced8 with 8 loads), row-major words (rows), one word per "
     "32-byte sector (strided), hashed words (scattered). A first draw "
     "(warmup, the coalesced shader) reads the whole buffer once, so every "
     "variant finds it in the L2 as the device's repeated draws do",
     [("uniform", LOADS_BODY % {"trips": "u.n", "addr": LOADS["uniform"]}, 16),
      ("coalesced8", LOADS_BODY % {"trips": "u.n / 2",
                                   "addr": LOADS["coalesced"]}, 16)] +
     [(name, LOADS_BODY % {"trips": "u.n", "addr": LOADS[name]}, 16)
      for name in ("coalesced", "rows", "strided", "scattered")],
     {"data_words": 1 << 20, "data": "SERIES_FROM 0 INC_BY 1",
      "warmup": "coalesced"}),
]


def scene(family, description, variants, data=None):
    """The family's scene; `data` (the register_pressure and memory_loads
    families): the storage buffers' size and contents, and the variant a
    first draw named warmup runs before the others."""
    lines = ["#!amber",
             "# Generated by samples/timing_families/make_families.py: do "
             "not edit.",
             "# Family %s: %s." % (family, description),
             "# One full-screen %dx%d draw per variant; compare the draws' "
             "cycles (warpsim run --timing)" % (SIZE, SIZE),
             "# with their GPU time on a device (warpsim-vkref run --repeat "
             "N): samples/timing_families/README.md.",
             "",
             "SHADER vertex vs PASSTHROUGH", ""]
    common = COMMON_DATA if data else COMMON
    for name, body, _ in variants:
        lines += ["SHADER fragment fs_%s GLSL" % name, common + body + "END", ""]
    # The trip count u.n, from a buffer so that no compiler folds it.
    n = variants[0][2]
    binds = ["  BIND BUFFER params AS uniform DESCRIPTOR_SET 0 BINDING 0"]
    if data:
        lines += ["BUFFER params DATA_TYPE uint32 DATA %d 4294967295 END" % n,
                  "BUFFER data DATA_TYPE uint32 SIZE %d %s"
                  % (data["data_words"], data["data"]),
                  "BUFFER vecs DATA_TYPE vec4<float> SIZE 64 SERIES_FROM 0.25 "
                  "INC_BY 0.125", ""]
        binds += ["  BIND BUFFER data AS storage DESCRIPTOR_SET 0 BINDING 1",
                  "  BIND BUFFER vecs AS storage DESCRIPTOR_SET 0 BINDING 2"]
    else:
        lines += ["BUFFER params DATA_TYPE int32 DATA %d END" % n, ""]
    lines += ["IMAGE frame FORMAT B8G8R8A8_UNORM DIM_2D WIDTH %d HEIGHT %d"
              % (SIZE, SIZE), ""]
    pipelines = [(name, name) for name, _, _ in variants]
    if data and "warmup" in data:
        pipelines.insert(0, ("warmup", data["warmup"]))
    for name, shader in pipelines:
        lines += ["PIPELINE graphics %s" % name, "  ATTACH vs",
                  "  ATTACH fs_%s" % shader,
                  "  FRAMEBUFFER_SIZE %d %d" % (SIZE, SIZE),
                  "  BIND BUFFER frame AS color LOCATION 0"] + binds + \
                 ["END", ""]
    for name, _ in pipelines:
        lines.append("RUN %s DRAW_RECT POS 0 0 SIZE %d %d" % (name, SIZE, SIZE))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    stale = []
    for family, description, variants, *data in FAMILIES:
        path = HERE / ("%s.amber" % family)
        text = scene(family, description, variants, *data)
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(path.name)
        elif not path.exists() or path.read_text() != text:
            path.write_text(text)
            print("wrote %s" % path.relative_to(HERE.parent.parent))
    if stale:
        print("stale (run samples/timing_families/make_families.py): "
              + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
