#!/usr/bin/env python3
"""REFERENCE §6 E7, E8, E9, E11, E12 and E14 as AmberScript files that
`warpsim-vkref run --observe` runs on the H200 (and `warpsim run` on the
emulator). The shaders are plain; --observe instruments them.

  e7_sm_sets.amber      which SMs run vertex, fragment and compute work:
                        a full-screen rectangle at 1024x1024 (also E8 a,
                        E9, E11), a 128x128-cell grid over the same screen
                        (98,304 vertices: vertex and fragment warps at
                        once), a dispatch of 132x64 workgroups of 64
  e8_fragment_warps.amber  fragment warp composition and FS invocation
                        counting: (b) 64x64 cells of 2x2 pixels, two
                        triangles each; (c) one small triangle; (d) a line
                        of 1-pixel triangles; (e) 12 overlapping
                        full-screen triangles
  e8b_packing.amber     how fragment quads are packed into warps and tiles
                        are given to SMs, at sizes whose raw records are
                        small (all on a 256x256 image): a full rectangle,
                        an unaligned rectangle, one triangle, grids of 8,
                        4, 2 and 3-pixel cells, 3 overlapping full-screen
                        triangles, 300 random small triangles, and the
                        full rectangle again on R8 and RGBA32F images (E9)
  e8c_derivatives.amber what plain dFdx/dFdy are on the device (fine or
                        coarse) and which quad members the coarse ones use:
                        f = x * y at pixel centres of a 4x4 image, the four
                        derivatives written to a buffer, one EXPECT per
                        hypothesis (only the true ones pass)
  e12_occupancy.amber   fragment warps alive at once per SM against
                        registers (K vec4 accumulators in a spin loop) and
                        against varyings (V vec4 inputs), 512x512 each
  e14_clock.amber       one fragment warp spinning N iterations, two N:
                        SM clock cycles (observe end - start) against the
                        draw's timestamp nanoseconds

Usage: observe_scenes.py OUT_DIR
"""
import os
import sys

PASS_FS = """SHADER fragment {name} GLSL
#version 450
layout(location = 0) out vec4 color;
void main() {{
  color = vec4(fract(gl_FragCoord.xy / 64.0), float(gl_PrimitiveID & 7) / 7.0,
               1.0);
}}
END
"""


def e7():
    return f"""#!amber
# E7: which SMs run graphics and compute (warpsim-vkref --observe).
SHADER vertex vs PASSTHROUGH
{PASS_FS.format(name="fs")}
SHADER compute cs GLSL
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B {{ uint v[]; }} b;
void main() {{ b.v[gl_GlobalInvocationID.x] = gl_WorkGroupID.x; }}
END

IMAGE frame FORMAT B8G8R8A8_UNORM DIM_2D WIDTH 1024 HEIGHT 1024
BUFFER out DATA_TYPE uint32 SIZE 540672 FILL 0

PIPELINE graphics rect
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 1024 1024
  BIND BUFFER frame AS color LOCATION 0
END
DERIVE_PIPELINE grid FROM rect
END
PIPELINE compute dispatch
  ATTACH cs
  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 0
END

CLEAR_COLOR rect 0 0 0 255
CLEAR rect
RUN rect DRAW_RECT POS 0 0 SIZE 1024 1024
RUN grid DRAW_GRID POS 0 0 SIZE 1024 1024 CELLS 128 128
RUN dispatch 8448 1 1
EXPECT out IDX 4 EQ 0
"""


def e8():
    tri = "-0.700 -0.700  -0.675 -0.700  -0.700 -0.670"
    big = []
    for i in range(12):
        a = [(-1.0, -1.0), (3.0, -1.0), (-1.0, 3.0)]
        if i % 2:
            a = [a[0], a[2], a[1]]
        big.append("  ".join(f"{x:.1f} {y:.1f}" for x, y in a))
    big_text = "\n".join(big)
    return f"""#!amber
# E8 / E11: fragment warp composition and FS invocation counting.
SHADER vertex vs PASSTHROUGH
{PASS_FS.format(name="fs")}
BUFFER small_tri DATA_TYPE vec2<float> DATA
{tri}
END
BUFFER overlap DATA_TYPE vec2<float> DATA
{big_text}
END
IMAGE frame FORMAT B8G8R8A8_UNORM DIM_2D WIDTH 256 HEIGHT 256

PIPELINE graphics grid_2x2
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 256 256
  BIND BUFFER frame AS color LOCATION 0
END
DERIVE_PIPELINE line_1px FROM grid_2x2
END
DERIVE_PIPELINE small FROM grid_2x2
  VERTEX_DATA small_tri LOCATION 0
END
DERIVE_PIPELINE overlapping FROM grid_2x2
  VERTEX_DATA overlap LOCATION 0
END

CLEAR_COLOR grid_2x2 0 0 0 255
CLEAR grid_2x2
RUN grid_2x2 DRAW_GRID POS 0 0 SIZE 128 128 CELLS 64 64
RUN small DRAW_ARRAY AS TRIANGLE_LIST START_IDX 0 COUNT 3
RUN line_1px DRAW_GRID POS 0 200 SIZE 64 1 CELLS 64 1
RUN overlapping DRAW_ARRAY AS TRIANGLE_LIST START_IDX 0 COUNT 36
"""


def e8b():
    import random
    rng = random.Random(20261130)
    tris = []
    for _ in range(300):
        cx, cy = rng.uniform(-0.95, 0.95), rng.uniform(-0.95, 0.95)
        size = rng.uniform(3, 12) / 128.0  # 3..12 pixels at 256x256
        for _ in range(3):
            tris.append(f"{cx + rng.uniform(-size, size):.5f} "
                        f"{cy + rng.uniform(-size, size):.5f}")
    random_text = "\n".join(tris)
    full = "\n".join(["-1.0 -1.0  3.0 -1.0  -1.0 3.0",
                      "3.0 3.0  -1.0 3.0  3.0 -1.0",
                      "-1.0 -1.0  -1.0 3.0  3.0 -1.0"])
    one = "-0.9 -0.8  0.7 -0.3  -0.2 0.9"
    out = [f"""#!amber
# E8/E9 at small sizes: quad packing into warps, tiles and SMs.
SHADER vertex vs PASSTHROUGH
{PASS_FS.format(name="fs")}
BUFFER random DATA_TYPE vec2<float> DATA
{random_text}
END
BUFFER full DATA_TYPE vec2<float> DATA
{full}
END
BUFFER one DATA_TYPE vec2<float> DATA
{one}
END
IMAGE frame FORMAT B8G8R8A8_UNORM DIM_2D WIDTH 256 HEIGHT 256
IMAGE frame_r8 FORMAT R8_UNORM DIM_2D WIDTH 256 HEIGHT 256
IMAGE frame_f32 FORMAT R32G32B32A32_SFLOAT DIM_2D WIDTH 256 HEIGHT 256
PIPELINE graphics base
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 256 256
  BIND BUFFER frame AS color LOCATION 0
END
PIPELINE graphics r8
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 256 256
  BIND BUFFER frame_r8 AS color LOCATION 0
END
PIPELINE graphics f32
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 256 256
  BIND BUFFER frame_f32 AS color LOCATION 0
END
DERIVE_PIPELINE random_tris FROM base
  VERTEX_DATA random LOCATION 0
END
DERIVE_PIPELINE overlap3 FROM base
  VERTEX_DATA full LOCATION 0
END
DERIVE_PIPELINE one_tri FROM base
  VERTEX_DATA one LOCATION 0
END
RUN base DRAW_RECT POS 0 0 SIZE 256 256
RUN base DRAW_RECT POS 3 5 SIZE 150 100
RUN one_tri DRAW_ARRAY AS TRIANGLE_LIST START_IDX 0 COUNT 3
RUN base DRAW_GRID POS 0 0 SIZE 256 256 CELLS 32 32
RUN base DRAW_GRID POS 0 0 SIZE 256 256 CELLS 64 64
RUN base DRAW_GRID POS 0 0 SIZE 128 128 CELLS 64 64
RUN base DRAW_GRID POS 1 1 SIZE 150 150 CELLS 50 50
RUN overlap3 DRAW_ARRAY AS TRIANGLE_LIST START_IDX 0 COUNT 9
RUN random_tris DRAW_ARRAY AS TRIANGLE_LIST START_IDX 0 COUNT 900
RUN r8 DRAW_RECT POS 0 0 SIZE 256 256
RUN f32 DRAW_RECT POS 0 0 SIZE 256 256
"""]
    return "".join(out)


def e8c():
    n = 4
    hyps = {  # name -> (plane, value at pixel x, y)
        "plain_dFdx_fine": (0, lambda x, y: y + 0.5),
        "plain_dFdx_coarse_top_row": (0, lambda x, y: (y & ~1) + 0.5),
        "plain_dFdx_coarse_bottom_row": (0, lambda x, y: (y | 1) + 0.5),
        "plain_dFdy_fine": (1, lambda x, y: x + 0.5),
        "plain_dFdy_coarse_left_column": (1, lambda x, y: (x & ~1) + 0.5),
        "plain_dFdy_coarse_right_column": (1, lambda x, y: (x | 1) + 0.5),
        "dFdxCoarse_top_row": (2, lambda x, y: (y & ~1) + 0.5),
        "dFdxCoarse_bottom_row": (2, lambda x, y: (y | 1) + 0.5),
        "dFdyCoarse_left_column": (3, lambda x, y: (x & ~1) + 0.5),
        "dFdyCoarse_right_column": (3, lambda x, y: (x | 1) + 0.5),
    }
    expects = []
    for name, (plane, value) in hyps.items():
        values = " ".join(f"{value(i % n, i // n):.1f}" for i in range(n * n))
        expects.append(f"# hypothesis {name}\n"
                       f"EXPECT derivs IDX {plane * n * n * 4} EQ {values}")
    return f"""#!amber
# Plain and coarse derivatives of f = x * y (pixel centres) on a 4x4 image:
# plane k of buffer derivs holds dFdx, dFdy, dFdxCoarse, dFdyCoarse. Each
# EXPECT is one hypothesis; the ones that pass say what the device does.
DEVICE_FEATURE fragmentStoresAndAtomics
SHADER vertex vs PASSTHROUGH
SHADER fragment fs GLSL
#version 450
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) buffer D {{ float v[]; }} d;
void main() {{
  const float f = gl_FragCoord.x * gl_FragCoord.y;
  const uint i = uint(gl_FragCoord.y) * {n}u + uint(gl_FragCoord.x);
  d.v[i] = dFdx(f);
  d.v[{n * n}u + i] = dFdy(f);
  d.v[{2 * n * n}u + i] = dFdxCoarse(f);
  d.v[{3 * n * n}u + i] = dFdyCoarse(f);
  color = vec4(1.0);
}}
END
BUFFER derivs DATA_TYPE float SIZE {4 * n * n} FILL 0.0
IMAGE frame FORMAT B8G8R8A8_UNORM DIM_2D WIDTH {n} HEIGHT {n}
PIPELINE graphics p
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE {n} {n}
  BIND BUFFER frame AS color LOCATION 0
  BIND BUFFER derivs AS storage DESCRIPTOR_SET 0 BINDING 0
END
RUN p DRAW_RECT POS 0 0 SIZE {n} {n}
""" + "\n".join(expects) + "\n"


SPIN_FS = """SHADER fragment {name} GLSL
#version 450
layout(location = 0) out vec4 color;
layout(location = 0) in vec4 v[{v}];
layout(set = 0, binding = 0) uniform P {{ uint iterations; uint seed; }} p;
void main() {{
  const float seed = uintBitsToFloat(p.seed);
  vec4 acc[{k}];
  for (int k = 0; k < {k}; ++k) acc[k] = gl_FragCoord.xyxy * float(k + 1);
  for (uint i = 0u; i < p.iterations; ++i) {{
    for (int k = 0; k < {k}; ++k) acc[k] = acc[k] * 1.0001 + seed;
  }}
  vec4 s = vec4(0.0);
  for (int k = 0; k < {k}; ++k) s += acc[k];
  for (int i = 0; i < {v}; ++i) s += v[i];
  color = fract(s);
}}
END
"""

SPIN_VS = """SHADER vertex {name} GLSL
#version 450
layout(location = 0) in vec4 pos;
layout(location = 0) out vec4 v[{v}];
void main() {{
  gl_Position = pos;
  for (int i = 0; i < {v}; ++i) v[i] = pos * float(i + 1);
}}
END
"""

E12_VARIANTS = [(k, 1) for k in (1, 4, 8, 16, 28, 56)] + \
    [(1, v) for v in (8, 16, 28)]


def e12():
    out = ["#!amber",
           "# E12: fragment warps alive at once per SM against registers "
           "(K accumulators) and varyings (V vec4).",
           "BUFFER params DATA_TYPE uint32 DATA 2000 1065353216 END",
           "IMAGE frame FORMAT B8G8R8A8_UNORM DIM_2D WIDTH 512 HEIGHT 512"]
    runs = []
    for k, v in E12_VARIANTS:
        name = f"k{k}_v{v}"
        out.append(SPIN_VS.format(name="vs_" + name, v=v))
        out.append(SPIN_FS.format(name="fs_" + name, k=k, v=v))
        out.append(f"""PIPELINE graphics {name}
  ATTACH vs_{name}
  ATTACH fs_{name}
  FRAMEBUFFER_SIZE 512 512
  BIND BUFFER frame AS color LOCATION 0
  BIND BUFFER params AS uniform DESCRIPTOR_SET 0 BINDING 0
END""")
        runs.append(f"RUN {name} DRAW_RECT POS 0 0 SIZE 512 512")
    return "\n".join(out + runs) + "\n"


def e14():
    return f"""#!amber
# E14: SM clock against timestamps: one 8x4-pixel warp spinning N
# iterations, for two N.
{SPIN_VS.format(name="vs", v=1)}
{SPIN_FS.format(name="fs", k=1, v=1)}
BUFFER short DATA_TYPE uint32 DATA 20000 1065353216 END
BUFFER long DATA_TYPE uint32 DATA 200000 1065353216 END
IMAGE frame FORMAT B8G8R8A8_UNORM DIM_2D WIDTH 8 HEIGHT 4
PIPELINE graphics short_spin
  ATTACH vs
  ATTACH fs
  FRAMEBUFFER_SIZE 8 4
  BIND BUFFER frame AS color LOCATION 0
  BIND BUFFER short AS uniform DESCRIPTOR_SET 0 BINDING 0
END
DERIVE_PIPELINE long_spin FROM short_spin
  BIND BUFFER long AS uniform DESCRIPTOR_SET 0 BINDING 0
END
RUN short_spin DRAW_RECT POS 0 0 SIZE 8 4
RUN long_spin DRAW_RECT POS 0 0 SIZE 8 4
RUN short_spin DRAW_RECT POS 0 0 SIZE 8 4
RUN long_spin DRAW_RECT POS 0 0 SIZE 8 4
"""


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 64
    os.makedirs(argv[1], exist_ok=True)
    for name, text in (("e7_sm_sets", e7()), ("e8_fragment_warps", e8()),
                       ("e8b_packing", e8b()), ("e8c_derivatives", e8c()),
                       ("e12_occupancy", e12()), ("e14_clock", e14())):
        with open(os.path.join(argv[1], name + ".amber"), "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
