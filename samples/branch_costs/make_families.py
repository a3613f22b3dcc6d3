#!/usr/bin/env python3
"""Writes the AmberScript scenes of samples/branch_costs/ (README.md).

A family is one scene whose fragment shader is written several ways, picked
by the preprocessor define VARIANT (`warpsim compare FILE -D VARIANT=0,1,...`
compiles it once per value). Every scene draws one full-screen rectangle of
SIZE x SIZE pixels. The loop length is the define TRIPS (the two recorded
lengths are in LOOP_LENGTHS); the trip count is TRIPS times a 1 read from a
uniform buffer, so that no compiler can fold or fully unroll the loops.

The glmark2_* scenes port the conditionals, loop and function scenes of
glmark2 (Debian's glmark2-data, /usr/share/glmark2/shaders; GPL-3+,
Copyright 2010-2012 Linaro Limited): the same per-pixel value d, the same
steps, as a Vulkan GLSL fragment shader on a full-screen draw.

    samples/branch_costs/make_families.py           # rewrite the scenes
    samples/branch_costs/make_families.py --check   # exit 1 if stale
    samples/branch_costs/make_families.py --list    # family, variants, note
"""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZE = 512
LOOP_LENGTHS = (16, 64)

COMMON = """#version 450
#ifndef VARIANT
#define VARIANT 0
#endif
#ifndef TRIPS
#define TRIPS 16
#endif
layout(location = 0) out vec4 color;
// u.one is 1: the trip count is a run-time value (no unrolling, no folding).
layout(set = 0, binding = 0) uniform Params { int one; } u;

// n dependent multiply-adds: one side's work.
float Work(float x, float a, int n) {
  for (int i = 0; i < n; ++i) x = x * a + 0.0003;
  return x;
}
"""

# (family, variant values, what each value means, the main function)
FAMILIES = [
    ("granularity", range(6),
     "an if/else whose sides each run TRIPS multiply-adds; the side is a "
     "checkerboard of cells of 2^VARIANT x 2^VARIANT pixels: 0 diverges in "
     "every quad, 4 and 5 in no warp (a warp covers 4x8 pixels)",
     """void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  float x = gl_FragCoord.x * 0.001;
  int n = TRIPS * u.one;
  if ((((p.x >> VARIANT) ^ (p.y >> VARIANT)) & 1) == 0) {
    x = Work(x, 1.0001, n);
  } else {
    x = Work(x + 0.5, 0.9999, n) * 0.5;
  }
  color = vec4(fract(x), 0.0, 0.0, 1.0);
}
"""),
    ("loop_trips", range(4),
     "one loop of multiply-adds: 0 TRIPS trips in every pixel; 1, 2, 3 a "
     "hashed count of 0..2*TRIPS trips (mean TRIPS) per pixel, per 4x4 and "
     "per 16x16-pixel cell (lanes of a warp wait for its longest)",
     """void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
#if VARIANT == 0
  int n = TRIPS * u.one;
#else
  const int shift = VARIANT == 1 ? 0 : VARIANT == 2 ? 2 : 4;
  uint h = uint(((p.y >> shift) << 12) + (p.x >> shift)) * 2654435761u;
  int n = int((h >> 16) % uint(2 * TRIPS + 1)) * u.one;
#endif
  float x = Work(gl_FragCoord.x * 0.001, 1.0001, n);
  color = vec4(fract(x), 0.0, 0.0, 1.0);
}
"""),
    ("select_vs_branch", range(4),
     "two ways to pick one of two results: 0 an if/else per pixel, 1 both "
     "computed and selected per pixel, 2 an if/else per 16x16-pixel tile, "
     "3 both computed and selected per tile",
     """void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  float x = gl_FragCoord.x * 0.001;
  int n = TRIPS * u.one;
#if VARIANT < 2
  bool c = ((p.x ^ p.y) & 1) == 0;
#else
  bool c = (((p.x >> 4) ^ (p.y >> 4)) & 1) == 0;
#endif
#if VARIANT == 0 || VARIANT == 2
  if (c) {
    x = Work(x, 1.0001, n);
  } else {
    x = Work(x + 0.5, 0.9999, n);
  }
#else
  float a = Work(x, 1.0001, n);
  float b = Work(x + 0.5, 0.9999, n);
  x = c ? a : b;
#endif
  color = vec4(fract(x), 0.0, 0.0, 1.0);
}
"""),
    ("discard", range(4),
     "half of the pixels discarded: 0 none (every pixel does the work), 1 "
     "per pixel before the work, 2 per 16x16-pixel tile before the work, "
     "3 per pixel after the work",
     """void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  float x = gl_FragCoord.x * 0.001;
  int n = TRIPS * u.one;
  bool pixel = ((p.x ^ p.y) & 1) == 0;
  bool tile = (((p.x >> 4) ^ (p.y >> 4)) & 1) == 0;
#if VARIANT == 1
  if (pixel) discard;
#elif VARIANT == 2
  if (tile) discard;
#endif
  x = Work(x, 1.0001, n);
#if VARIANT == 3
  if (pixel) discard;
#endif
  color = vec4(fract(x), 0.0, 0.0, 1.0);
}
"""),
    ("nested", range(4),
     "VARIANT levels of nested if/else, each level split by one bit of the "
     "pixel's position, TRIPS multiply-adds in every leaf: a warp runs up "
     "to 2^VARIANT leaves one after another",
     """void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  float x = gl_FragCoord.x * 0.001;
  int n = TRIPS * u.one;
#if VARIANT == 0
  x = Work(x, 1.0001, n);
#else
  bool b0 = (p.x & 1) != 0, b1 = (p.y & 1) != 0, b2 = (p.x & 2) != 0;
  if (b0) {
#if VARIANT >= 2
    if (b1) {
#if VARIANT >= 3
      if (b2) x = Work(x, 1.0001, n); else x = Work(x + 0.1, 1.0002, n);
#else
      x = Work(x, 1.0001, n);
#endif
    } else {
#if VARIANT >= 3
      if (b2) x = Work(x + 0.2, 1.0003, n); else x = Work(x + 0.3, 1.0004, n);
#else
      x = Work(x + 0.2, 1.0003, n);
#endif
    }
#else
    x = Work(x, 1.0001, n);
#endif
  } else {
#if VARIANT >= 2
    if (b1) {
#if VARIANT >= 3
      if (b2) x = Work(x + 0.4, 0.9999, n); else x = Work(x + 0.5, 0.9998, n);
#else
      x = Work(x + 0.4, 0.9999, n);
#endif
    } else {
#if VARIANT >= 3
      if (b2) x = Work(x + 0.6, 0.9997, n); else x = Work(x + 0.7, 0.9996, n);
#else
      x = Work(x + 0.6, 0.9997, n);
#endif
    }
#else
    x = Work(x + 0.4, 0.9999, n);
#endif
  }
#endif
  color = vec4(fract(x), 0.0, 0.0, 1.0);
}
"""),
    ("early_return", range(4),
     "pixels that leave early: 0 none, 1 half of them per pixel, 2 half "
     "per 16x16-pixel tile, 3 three quarters per pixel; the rest run "
     "TRIPS multiply-adds",
     """void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  float x = gl_FragCoord.x * 0.001;
  int n = TRIPS * u.one;
  color = vec4(0.0, 0.0, 1.0, 1.0);
#if VARIANT == 1
  if (((p.x ^ p.y) & 1) == 0) return;
#elif VARIANT == 2
  if ((((p.x >> 4) ^ (p.y >> 4)) & 1) == 0) return;
#elif VARIANT == 3
  if ((p.x & 1) == 0 || (p.y & 1) == 0) return;
#endif
  x = Work(x, 1.0001, n);
  color = vec4(fract(x), 0.0, 0.0, 1.0);
}
"""),
]

# glmark2's scenes: d from the pixel's position, then $MAIN$: its steps
# written out one after another. glmark2's default runs use 5 steps; here
# TRIPS steps, so that the shading is not lost in the draw's fixed cost.
GLMARK2 = """// TRIPS copies of a statement, written out (glmark2's $MAIN$).
#define REP4(X) X X X X
#define REP16(X) REP4(X) REP4(X) REP4(X) REP4(X)
#define REP64(X) REP16(X) REP16(X) REP16(X) REP16(X)
#if TRIPS == 16
#define STEPS(X) REP16(X)
#elif TRIPS == 64
#define STEPS(X) REP64(X)
#else
#error TRIPS must be 16 or 64
#endif
%s
void main() {
  // glmark2: should be highp since the multiplication can overflow.
  vec2 FragCoord = gl_FragCoord.xy;
  float d = fract(FragCoord.x * FragCoord.y * 0.0001);
%s
  color = vec4(d, d, d, 1.0);
}
"""
GLMARK2_FAMILIES = [
    ("glmark2_conditionals", range(3),
     "glmark2's conditionals scene with TRIPS fragment steps: 0 "
     "fragment-steps=0; 1 fragment-conditionals=false (each step "
     "d = fract(3.0 * d)); 2 fragment-conditionals=true (each step an "
     "if/else on d >= 0.5, which splits the pixels of a warp)",
     GLMARK2 % ("", """#if VARIANT == 1
  STEPS(d = fract(3.0 * d);)
#elif VARIANT == 2
  STEPS(if (d >= 0.5) d = fract(2.0 * d); else d = fract(3.0 * d);)
#endif""")),
    ("glmark2_loop", range(3),
     "glmark2's loop scene with TRIPS steps of d = fract(3.0 * d): 0 "
     "fragment-loop=false (written out); 1 fragment-loop=true with a "
     "constant trip count (fragment-uniform=false); 2 fragment-loop=true "
     "with the trip count from a uniform (fragment-uniform=true)",
     GLMARK2 % ("", """#if VARIANT == 0
  STEPS(d = fract(3.0 * d);)
#elif VARIANT == 1
  for (int i = 0; i < TRIPS; i++)
    d = fract(3.0 * d);
#else
  for (int i = 0; i < TRIPS * u.one; i++)
    d = fract(3.0 * d);
#endif""")),
    ("glmark2_function", range(4),
     "glmark2's function scene with TRIPS steps: 0 low complexity written "
     "out (fragment-function=false), 1 low complexity, each step a call of "
     "process(d), 2 medium complexity written out, 3 medium in process(d)",
     GLMARK2 % ("""float process(float d) {
#if VARIANT <= 1
  d = fract(3.0 * d);
#else
  d = fract(3.0 * d) * fract(3.0 * d);
  d = fract(sqrt(d));
#endif
  return d;
}""", """#if VARIANT == 1 || VARIANT == 3
  STEPS(d = process(d);)
#elif VARIANT == 0
  STEPS(d = fract(3.0 * d);)
#else
  STEPS(d = fract(3.0 * d) * fract(3.0 * d); d = fract(sqrt(d));)
#endif""")),
]


def families():
    """(family, variants, description, GLSL) of every scene."""
    out = [(f, list(v), d, COMMON + "\n" + body) for f, v, d, body in FAMILIES]
    out += [(f, list(v), d, COMMON + body)
            for f, v, d, body in GLMARK2_FAMILIES]
    return out


def scene(family, variants, description, glsl):
    values = ",".join(str(v) for v in variants)
    lines = ["#!amber",
             "# Generated by samples/branch_costs/make_families.py: do not "
             "edit.",
             "# Family %s: %s." % (family, description),
             "#   build/warpsim compare samples/branch_costs/%s.amber "
             "-D VARIANT=%s -D TRIPS=16 --timing" % (family, values),
             "# One full-screen %dx%d draw; samples/branch_costs/README.md."
             % (SIZE, SIZE)]
    if family.startswith("glmark2_"):
        lines.append("# Ported from glmark2 (Debian glmark2-data, "
                     "/usr/share/glmark2/shaders; GPL-3+, Copyright "
                     "2010-2012 Linaro Limited).")
    lines += ["",
              "SHADER vertex vs PASSTHROUGH", "",
              "SHADER fragment fs GLSL", glsl + "END", "",
              "BUFFER params DATA_TYPE int32 DATA 1 END", "",
              "IMAGE frame FORMAT B8G8R8A8_UNORM DIM_2D WIDTH %d HEIGHT %d"
              % (SIZE, SIZE), "",
              "PIPELINE graphics draw", "  ATTACH vs", "  ATTACH fs",
              "  FRAMEBUFFER_SIZE %d %d" % (SIZE, SIZE),
              "  BIND BUFFER frame AS color LOCATION 0",
              "  BIND BUFFER params AS uniform DESCRIPTOR_SET 0 BINDING 0",
              "END", "",
              "RUN draw DRAW_RECT POS 0 0 SIZE %d %d" % (SIZE, SIZE)]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.list:
        for family, variants, description, _ in families():
            print("%s\t%s\t%s" % (family, ",".join(map(str, variants)),
                                  description))
        return 0
    stale = []
    for family, variants, description, glsl in families():
        path = HERE / ("%s.amber" % family)
        text = scene(family, variants, description, glsl)
        if path.exists() and path.read_text() == text:
            continue
        if args.check:
            stale.append(path.name)
        else:
            path.write_text(text)
            print("wrote %s" % path.relative_to(HERE.parent.parent))
    if stale:
        print("stale (run samples/branch_costs/make_families.py): "
              + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
