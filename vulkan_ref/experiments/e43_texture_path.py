#!/usr/bin/env python3
"""E43, the texture path: how long a texel a shader reads through it
takes to come back (REFERENCE's E2b: a chain of dependent texelFetch
against the same chain through a storage buffer), and what a fragment
warp's texture instruction costs its SM when 512 warps per SM sample
(E39's draw).

  vulkan_ref/experiments/e43_texture_path.py scene OUT_DIR
  vulkan_ref/experiments/e43_texture_path.py summary RECORD_DIR [-o OUT.json]
  vulkan_ref/experiments/e43_texture_path.py table RECORD_DIR
      [--update README.md | --check README.md]
  vulkan_ref/experiments/e43_texture_path.py model --warpsim BIN
      [-o samples/h200/e43_texture_path/timing-vs-h200.json]
  vulkan_ref/experiments/e43_texture_path.py model-table RECORD
      [MODEL.json] [--update README.md | --check README.md]

Why: the timing model sends an image read through the memory model as a
load (the L1's latency on a hit, the L2's on a miss) and issues it on
the texture pipe every `tex.interval` cycles, and neither figure was
measured: REFERENCE §2.1 found no trustworthy Hopper texture latency and
names the experiment (E2b).

`scene` writes an AmberScript scene a variant into OUT_DIR (NAME.amber).

The chases (`c_KIND_LEVEL`): one compute invocation walks a chain of
words, idx = word[idx] & (N - 1), n times (a uniform block; two
pipelines, n = STEPS[LEVEL]), and writes where it ended. The words are
i + S (a series), so the walk steps S words at a time. LEVEL:

  l1   N = 4096 words (16 KB, 64 x 64 texels), S = 33: after its first
       lap the whole chain is in the L1;
  l2   N = 2^20 words (4 MB, 1024 x 1024 texels), S = 648055 (about N
       times the golden ratio, odd): thousands of steps before a line
       comes back, so every step misses the L1 and finds the L2.

KIND, how a step reads its word:

  ssbo     a storage buffer, data.d[idx] (E2's chase through Vulkan);
  fetch    texelFetch of an R32_UINT 2D image, (idx mod W, idx / W),
           level 0 (SASS TLD);
  texbuf   texelFetch of an R32_UINT uniform texel buffer at idx;
  sample   textureLod of the 2D image at the texel's centre, normalized
           coordinates, nearest filtering (SASS TEX).

The fragment draws (`f_VARIANT`): two pipelines drawing a 256x256
rectangle (2048 fragment warps, 512 on each of the 4 graphics SMs, at
most 64 resident) whose fragment shaders loop n = 32 and 256 times, each
drawn twice (the second counts). A trip steps a sum (s = 3 s + 1) and
adds one texture read to a vec4; both colour the pixel after the loop.
The texture is 64 x 64 texels (R8G8B8A8_UNORM: 16 KB; R32G32B32A32_SFLOAT:
64 KB), repeat addressing, so it stays in the L1, but for
linear_scattered_big's (1024 x 1024 R8G8B8A8_UNORM, 4 MB). VARIANT:

  none              the sum alone, no texture read (the baseline);
  fetch_same        texelFetch of one texel for every lane, moving a
                    texel a trip;
  fetch_pixel       texelFetch of the pixel's own texel, moved a texel a
                    trip (a warp's 4x8 pixels read 4x8 texels);
  nearest           texture() at the pixel's place (a texel a pixel),
                    nearest filtering, moved a texel a trip;
  linear            the same with linear filtering, a quarter texel off
                    the centres (4 texels a lane, weights not 0 or 1);
  linear_lod        linear with textureLod at level 0 (no derivatives);
  gather            textureGather of the red component where linear
                    reads (the same 4 texels a lane, unfiltered);
  nearest_f32       nearest of the R32G32B32A32_SFLOAT texture (16-byte
                    texels);
  linear_f32        linear of the R32G32B32A32_SFLOAT texture;
  linear_scattered  linear with textureLod at a hashed place a lane;
  linear_scattered_big  the same in the 4 MB texture (most reads miss
                    the L1).

`summary` gives per chase the SM cycles per step, (time at the longer
walk - time at the shorter) / the steps between, at the SM clock sampled
through the run, and per fragment variant the SM cycles per step as
E39 does, (time at 256 - time at 32) / 224, and per warp texture read:
that over the 512 warps each SM gets, less `none`'s. `model` runs the
scenes in timing mode with the h200 preset; `model-table` puts the
model's cycles beside the GPU's.

Standard library only.
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)
from readme_section import experiment_main  # noqa: E402
import access_steps  # noqa: E402
import device_clocks  # noqa: E402

# The chases' levels: (words, side of the square image, stride, steps).
LEVELS = {
    "l1": (4096, 64, 33, (8192, 16384)),
    "l2": (1 << 20, 1024, 648055, (4096, 16384)),
}
KINDS = ("ssbo", "fetch", "texbuf", "sample")
CHASES = ["c_%s_%s" % (k, lv) for lv in LEVELS for k in KINDS]

FRAGMENT_STEPS = (32, 256)
SIDE = 256
GRAPHICS_SMS = 4
WARPS_PER_SM = SIDE * SIDE // 32 // GRAPHICS_SMS
TEXELS = 64  # the fragment draws' texture: TEXELS x TEXELS
BIG = 1024  # linear_scattered_big's texture: BIG x BIG texels (4 MB)
# name: (texture format, sampler filter, the trip's read: GLSL of tex, i
# (the trip), p (the pixel), uv (its place), hv (a hashed place); None:
# no read)
STEP = "vec2(float(i) * %r, 0.0)" % (1.0 / TEXELS)
FRAGMENT = {
    "none": ("R8G8B8A8_UNORM", "nearest", None),
    "fetch_same": ("R8G8B8A8_UNORM", "nearest",
                   "texelFetch(tex, ivec2(i & %d, 0), 0)" % (TEXELS - 1)),
    "fetch_pixel": ("R8G8B8A8_UNORM", "nearest",
                    "texelFetch(tex, (p + ivec2(i, 0)) & %d, 0)" %
                    (TEXELS - 1)),
    "nearest": ("R8G8B8A8_UNORM", "nearest", "texture(tex, uv + %s)" % STEP),
    "linear": ("R8G8B8A8_UNORM", "linear", "texture(tex, uv + %s)" % STEP),
    "linear_lod": ("R8G8B8A8_UNORM", "linear",
                   "textureLod(tex, uv + %s, 0.0)" % STEP),
    "gather": ("R8G8B8A8_UNORM", "linear",
               "textureGather(tex, uv + %s, 0)" % STEP),
    "nearest_f32": ("R32G32B32A32_SFLOAT", "nearest",
                    "texture(tex, uv + %s)" % STEP),
    "linear_f32": ("R32G32B32A32_SFLOAT", "linear",
                   "texture(tex, uv + %s)" % STEP),
    "linear_scattered": ("R8G8B8A8_UNORM", "linear",
                         "textureLod(tex, hv + %s, 0.0)" % STEP),
    "linear_scattered_big": ("R8G8B8A8_UNORM", "linear",
                             "textureLod(tex, hv + %s, 0.0)" % STEP),
}
FRAGMENTS = ["f_" + v for v in FRAGMENT]
NAMES = CHASES + FRAGMENTS


def chase_step(kind, level):
    words, side, _, _ = LEVELS[level]
    mask = words - 1
    shift = side.bit_length() - 1
    if kind == "ssbo":
        return "data.d[idx] & %du" % mask
    if kind == "texbuf":
        return "texelFetch(texbuf, int(idx)).r & %du" % mask
    xy = "ivec2(int(idx & %du), int(idx >> %du))" % (side - 1, shift)
    if kind == "fetch":
        return "texelFetch(tex, %s, 0).r & %du" % (xy, mask)
    return ("textureLod(tex, (vec2(%s) + 0.5) * %r, 0.0).r & %du" %
            (xy, 1.0 / side, mask))


def chase_shader(kind, level):
    decl = {
        "ssbo": "layout(set = 0, binding = 2) readonly buffer Data "
                "{ uint d[]; } data;\n",
        "texbuf": "layout(set = 0, binding = 2) uniform usamplerBuffer "
                  "texbuf;\n",
    }.get(kind, "layout(set = 0, binding = 2) uniform usampler2D tex;\n")
    return ("#version 450\n"
            "layout(local_size_x = 1) in;\n"
            "layout(set = 0, binding = 0) uniform Params { int n; } u;\n"
            "layout(set = 0, binding = 1) buffer Out { uint o[]; } outb;\n" +
            decl +
            "void main() {\n"
            "  uint idx = 0u;\n"
            "  for (int i = 0; i < u.n; ++i) {\n"
            "    idx = %s;\n" % chase_step(kind, level) +
            "  }\n"
            "  outb.o[0] = idx;\n"
            "}\n")


def chase_scene(kind, level):
    words, side, stride, steps = LEVELS[level]
    name = "c_%s_%s" % (kind, level)
    lines = ["#!amber",
             "# GENERATED by vulkan_ref/experiments/e43_texture_path.py "
             "scene:",
             "# a chain of dependent reads through the texture path or a "
             "storage buffer (its docstring).",
             "SHADER compute s_%s GLSL\n%sEND" % (name,
                                                 chase_shader(kind, level))]
    for n in steps:
        lines.append("BUFFER n%d DATA_TYPE int32 DATA %d END" % (n, n))
    lines.append("BUFFER out DATA_TYPE uint32 SIZE 1 FILL 0")
    series = "SERIES_FROM %d INC_BY 1" % stride
    if kind == "ssbo":
        lines.append("BUFFER chain DATA_TYPE uint32 SIZE %d %s" % (words,
                                                                   series))
        bind = "BIND BUFFER chain AS storage DESCRIPTOR_SET 0 BINDING 2"
    elif kind == "texbuf":
        lines.append("BUFFER chain FORMAT R32_UINT SIZE %d %s" % (words,
                                                                  series))
        bind = ("BIND BUFFER chain AS uniform_texel_buffer DESCRIPTOR_SET 0 "
                "BINDING 2")
    else:
        lines.append("IMAGE chain FORMAT R32_UINT DIM_2D WIDTH %d HEIGHT %d "
                     "%s" % (side, side, series))
        lines.append("SAMPLER point MAG_FILTER nearest MIN_FILTER nearest "
                     "ADDRESS_MODE_U clamp_to_edge ADDRESS_MODE_V "
                     "clamp_to_edge")
        bind = ("BIND BUFFER chain AS combined_image_sampler SAMPLER point "
                "DESCRIPTOR_SET 0 BINDING 2")
    runs = []
    for n in steps:
        pipe = "%s_%d" % (name, n)
        lines.append(
            "PIPELINE compute %s\n  ATTACH s_%s\n"
            "  BIND BUFFER n%d AS uniform DESCRIPTOR_SET 0 BINDING 0\n"
            "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 1\n"
            "  %s\nEND" % (pipe, name, n, bind))
        runs += ["RUN %s 1 1 1" % pipe] * 2
    # Where the walk ends: a check that it ran (n S mod N).
    expect = ["EXPECT out IDX 0 EQ %d" % (steps[-1] * stride % words)]
    return "\n".join(lines + runs + expect) + "\n"


def texels(variant):
    """The side of VARIANT's texture."""
    return BIG if variant.endswith("_big") else TEXELS


def fragment_shader(variant, spec=None, side=None):
    """VARIANT's fragment shader: SPEC (FRAGMENT[VARIANT] by default)
    gives its read; SIDE its texture's (texels(VARIANT) by default). A read
    may use qv, a hashed place a quad (its lanes a texel apart)."""
    fmt, _, read = spec or FRAGMENT[variant]
    sampler = "sampler2D"
    side = side or texels(variant)
    body = "    acc += %s;\n" % read if read else ""
    quad = ("  uint hq = uint((p.x >> 1) * 64 + (p.y >> 1)) * 2654435761u;\n"
            "  vec2 qv = (vec2(float((hq >> 4) & %du), float((hq >> 16) & "
            "%du)) + vec2(p & 1)) * %r;\n" % (side - 1, side - 1, 1.0 / side)
            if read and "qv" in read else "")
    return ("#version 450\n"
            "layout(location = 0) out vec4 color;\n"
            "layout(set = 0, binding = 0) uniform Params { int n; } u;\n"
            "layout(set = 0, binding = 1) uniform %s tex;\n" % sampler +
            "void main() {\n"
            "  ivec2 p = ivec2(gl_FragCoord.xy);\n"
            "  uint s = uint(p.x + p.y);\n"
            "  vec2 uv = (gl_FragCoord.xy + 0.25) * %r;\n" % (1.0 / TEXELS) +
            "  uint h = uint(p.x * 64 + p.y) * 2654435761u;\n"
            "  vec2 hv = vec2(float((h >> 4) & %du), float((h >> 16) & %du))"
            " * %r;\n" % (side - 1, side - 1, 1.0 / side) + quad +
            "  vec4 acc = vec4(0.0);\n"
            "  for (int i = 0; i < u.n; ++i) {\n"
            "    s = s * 3u + 1u;\n" + body +
            "  }\n"
            "  color = vec4(float(s & 255u) / 255.0, 0.0, 0.0, 1.0) + "
            "fract(acc * 0.01);\n"
            "}\n")


def fragment_scene(variant, spec=None, side=None, draw=SIDE, mips=1,
                   tool="e43_texture_path.py",
                   what="a fragment warp's texture read at 512 warps per "
                        "graphics SM"):
    """VARIANT's scene (SPEC, SIDE: as fragment_shader's): a DRAW x DRAW
    rectangle; the texture has MIPS levels (more than 1: the sampler
    blends two, MIPMAP_MODE linear); TOOL and WHAT: its header's words."""
    spec = spec or FRAGMENT[variant]
    fmt, filt, _ = spec
    side = side or texels(variant)
    name = "f_" + variant
    return access_steps.fragment_scene(
        ["GENERATED by vulkan_ref/experiments/%s scene:" % tool,
         "%s (its docstring)." % what], name,
        fragment_shader(variant, spec, side), FRAGMENT_STEPS, draw,
        "IMAGE tex FORMAT %s DIM_2D WIDTH %d HEIGHT %d %sSERIES_FROM 0 "
        "INC_BY 1\n"
        "SAMPLER smp MAG_FILTER %s MIN_FILTER %s %sADDRESS_MODE_U repeat "
        "ADDRESS_MODE_V repeat" % (
            fmt, side, side, "MIP_LEVELS %d " % mips if mips > 1 else "",
            filt, filt, "MIPMAP_MODE linear " if mips > 1 else ""),
        "tex", 1, bind="BIND BUFFER tex AS combined_image_sampler SAMPLER "
                       "smp DESCRIPTOR_SET 0 BINDING 1")


def scene():
    """One scene a variant (few pipelines to build before its runs:
    vulkan_ref/experiments/device_clocks.py)."""
    out = {}
    for level in LEVELS:
        for kind in KINDS:
            out["c_%s_%s" % (kind, level)] = chase_scene(kind, level)
    for v in FRAGMENT:
        out["f_" + v] = fragment_scene(v)
    return out


def rows_of(times, scale):
    """Per chase: SM cycles per step (and, as `load_cycles`, the same:
    one invocation, nothing to share); per fragment variant: SM cycles per
    step and per warp texture read (less f_none's). SCALE (a number, or
    one per scene) turns TIMES into cycles."""
    rows = []
    for name in CHASES:
        k = scale[name] if isinstance(scale, dict) else scale
        steps = LEVELS[name.rsplit("_", 1)[1]][3]
        a = times["%s_%d" % (name, steps[0])]
        c = times["%s_%d" % (name, steps[1])]
        step = (c - a) * k / (steps[1] - steps[0])
        rows.append({"variant": name, "cycles_per_step": round(step, 2),
                     "cycles_per_warp_step": round(step, 2),
                     "load_cycles": round(step, 2)})
    return rows + access_steps.rows_of(times, scale, FRAGMENTS,
                                       FRAGMENT_STEPS, WARPS_PER_SM,
                                       lambda v: "f_none")


def summary(record):
    """RECORD: what run_scenes_h200.sh wrote (run1/, run2/: each scene's
    report; the clock samples and run times beside them)."""
    s = device_clocks.scene_runs(record, NAMES, rows_of,
                                 "e43_texture_path.py")
    s["record"] = os.path.relpath(record, ROOT)
    return s


TILE = 16  # the model's texel tiles (sm/memory_model.h kTexelTile)


def tiled_line(x, y, side, texel_bytes, line_bytes=128):
    """The line of texel (x, y) of a SIDE x SIDE level-0 image in the
    timing model's tiled layout (sm::TiledTexelOffset: TILE x TILE tiles
    row by row, Z order in a tile)."""
    z = 0
    for b in range(TILE.bit_length() - 1):
        z |= ((x >> b) & 1) << (2 * b) | ((y >> b) & 1) << (2 * b + 1)
    tile = (y // TILE) * (side // TILE) + x // TILE
    return (tile * TILE * TILE + z) * texel_bytes // line_bytes


def scattered_lines(variant, trips=FRAGMENT_STEPS[1]):
    """The mean distinct lines a warp's read of VARIANT (linear_scattered
    or _big) touches, as the timing model counts them: the first texel of
    each lane's 2x2 footprint (at hv + i / 64: texel (k + i - 1, k' - 1),
    repeat addressing), each warp 4x8 pixels (lane numbering of
    vulkan_ref/results/h200/FINDINGS.md Q2), over every warp and trip."""
    side = texels(variant)
    total = 0
    count = 0
    for by in range(0, SIDE, 8):
        for bx in range(0, SIDE, 4):
            hs = []
            for y in range(by, by + 8):
                for x in range(bx, bx + 4):
                    h = ((x * 64 + y) * 2654435761) & 0xFFFFFFFF
                    hs.append(((h >> 4) & (side - 1), (h >> 16) & (side - 1)))
            for i in range(0, trips, 8):
                step = i * side // TEXELS  # the trip's move, in texels
                total += len({tiled_line((kx + step - 1) % side,
                                         (ky - 1) % side, side, 4)
                              for kx, ky in hs})
                count += 1
    return total / count


def texture_fit(s, address_latency, check=None):
    """The texture path's figures (MemoryTiming::texture_*) from summary S
    (the mean of its runs); ADDRESS_LATENCY: the model's latency of a
    storage buffer's address (buffer_address.latency), which the ssbo
    chase's step has and the texel buffer's has not. The fragment draws
    are bound by the SM's texture units (each read costs them many times
    what the loop around it issues, which other warps' reads hide): a
    read's share of the units is the whole SM cycles per warp step, the
    loop's included. CHECK: E44's summary (e44_texture_check.py), whose
    8-byte texels of 16-bit components tell which components a linear
    filter blends at full rate (E43's 8-bit ones do, its 32-bit ones not).
    Returns {"hit", "miss", "quad", "fetch_quad", "full_rate_bytes",
    "filtered_full_rate_bits", "filter_ratios": {bits: linear over
    nearest}, "line", "miss_line", "lines", "big_lines", "rows": {variant:
    SM cycles per step (chases) or per warp step (fragment variants)}}."""
    c = device_clocks.run_mean(s, "cycles_per_warp_step")
    quads = 8  # a warp of 32 lanes
    sample = sum(c["f_" + v] for v in ("nearest", "linear", "linear_lod",
                                        "gather")) / 4
    fetch = (c["f_fetch_same"] + c["f_fetch_pixel"]) / 2

    def pow2(x):
        return 2 ** round(math.log2(x))

    # A linear filter's cost over nearest's by the components' width: the
    # widest whose ratio is under 1.5 filters at full rate.
    ratios = {8: c["f_linear"] / c["f_nearest"],
              32: c["f_linear_f32"] / c["f_nearest_f32"]}
    if check is not None:
        k = device_clocks.run_mean(check, "cycles_per_warp_step")
        ratios[16] = k["f_linear_rgba16f"] / k["f_nearest_rgba16f"]
    full_bits = max(b for b, r in ratios.items() if r < 1.5)
    lines = scattered_lines("linear_scattered")
    line = c["f_linear_scattered"] / lines
    # linear_scattered_big's lines miss the L1 (4 MB of texels at hashed
    # places): what they cost beyond a hit's line.
    big = scattered_lines("linear_scattered_big")
    return {
        "hit": c["c_texbuf_l1"] - c["c_ssbo_l1"] + address_latency,
        "miss": c["c_texbuf_l2"] - c["c_ssbo_l2"] + address_latency,
        "quad": sample / quads,
        "fetch_quad": fetch / quads,
        # 16-byte texels against 4-byte ones: how many bytes go at full rate.
        "full_rate_bytes": pow2(16 / (c["f_nearest_f32"] / c["f_nearest"])),
        "filtered_full_rate_bits": full_bits,
        "filter_ratios": ratios,
        "line": line,
        "miss_line": (c["f_linear_scattered_big"] - big * line) / big,
        "lines": lines,
        "big_lines": big,
        "rows": c,
    }


def describe(name):
    if name.startswith("c_"):
        _, kind, level = name.split("_")
        return ("chase", kind, level, "-")
    fmt, filt, read = FRAGMENT[name[2:]]
    how = ("-" if read is None else "texelFetch" if "texelFetch" in read
           else "textureLod" if "textureLod" in read else "texture")
    return ("fragment", how, fmt if read else "-",
            filt if read and "texelFetch" not in read else "-")


def table(s):
    return access_steps.table(
        s, FRAGMENT_STEPS, "each scene",
        "per warp load: for a chase, the same (one invocation: each step's "
        "latency); for a fragment variant, that over the %d warps each SM "
        "gets, less f_none's (the loop without a texture read). The "
        "chases' steps: %s." % (
            WARPS_PER_SM, ", ".join("%s %d and %d" % (lv, v[3][0], v[3][1])
                                    for lv, v in LEVELS.items())),
        ("what", "read", "texture or level", "filter"), describe)


SCENES = os.path.join(ROOT, "samples", "h200", "e43_texture_path")
MODEL_JSON = os.path.join(SCENES, "timing-vs-h200.json")


def model(warpsim, out):
    return access_steps.model(warpsim, SCENES, NAMES, out,
                              "e43_texture_path.py", ROOT)


def model_table(record, model_json):
    return access_steps.model_table(
        summary(record), model_json, ROOT, lambda c: rows_of(c, 1.0),
        "SM cycles per step (chases) and per warp texture read (fragment "
        "variants)")


def main():
    return experiment_main(__doc__, scene, summary, table, "e43",
                           "e43_texture_path.py", MODEL_JSON, model,
                           model_table)


if __name__ == "__main__":
    sys.exit(main())
