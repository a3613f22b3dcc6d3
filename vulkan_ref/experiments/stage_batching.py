#!/usr/bin/env python3
"""Whether NVIDIA's compiler keeps as many loads in flight in vertex and
fragment shaders as in compute shaders, for loads of a private array (local
memory) and in loops nested in loops: the same loop bodies as compute,
fragment and vertex shaders, so that the driver's "Register Count"
(warpsim-vkref's pipelines[].executable_statistics) of each stage can be
set side by side. load_batching.py measured compute shaders with one loop
of storage-buffer loads; the maze shaders of the corpus (maze_registers.py)
load a private array in two nested loops, and their fragment versions
report half the registers of their compute versions.

Each invocation i (the local invocation, the pixel column or the vertex
index) folds N loaded values into one result, addresses depending only on
i and the loop counters:

  sum1_N     one loop of N trips, s += b.w[i + 32 k] (storage buffer);
  sum4_N     one loop, uvec4 from a storage buffer, s += x.x ^ x.y ^ x.z ^ x.w;
  local_N    a private array of 64 uints, filled by a loop (a[k] = k * i + 1)
             and written once at a run-time index (so that it lives in local
             memory), then one loop of N trips, s += a[k];
  nested_N   sum1's N loads in two nested loops: 8 trips outside, N / 8
             inside;
  lnested_N  local's N loads in two nested loops, 8 outside, N / 8 inside,
             with the maze search's test (if (a[...] == 0u) remember the
             counters);

N = 8, 16, 32, 64; each family as a compute, a fragment and a vertex
shader (the fragment one draws a 32x2 rectangle, the vertex one six
vertices; the other stage of those pipelines is trivial). For the
register-count model (issue 7). Usage:

  stage_batching.py scene OUT.amber
  (on the H200) warpsim-vkref run OUT.amber --device nvidia --json REPORT.json
  stage_batching.py table REPORT.json [EMULATOR_REPORT.json]
      [--update README.md | --check README.md]

`table` prints the driver's register count per family, N and stage, and
with a `warpsim run --json` report of the same scene the emulator's
registers_per_thread beside it; --update writes it between
<!-- table stage-batching --> and <!-- end table stage-batching --> of a
README, --check exits 1 when that table is stale. Standard library only.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
from readme_section import scene_table_main  # noqa: E402

TRIPS = [8, 16, 32, 64]
FAMILIES = ["sum1", "sum4", "local", "nested", "lnested"]
STAGES = ["compute", "fragment", "vertex"]
WIDTH = 32

BUFFERS = """layout(std430, set = 0, binding = 0) readonly buffer W {{ uint w[]; }} b;
layout(std430, set = 0, binding = 1) readonly buffer V {{ uvec4 v[]; }} b4;
"""

LOCAL_FILL = """  uint a[64];
  for (int k = 0; k < 64; ++k) a[k] = uint(k) * i + 1u;
  a[i % 64u] = 0u;
"""

BODIES = {
    "sum1": """  uint s = 0u;
  for (int k = 0; k < {n}; ++k) s += b.w[i + 32u * uint(k)];
""",
    "sum4": """  uint s = 0u;
  for (int k = 0; k < {n}; ++k) {{
    uvec4 x = b4.v[i + 32u * uint(k)];
    s += x.x ^ x.y ^ x.z ^ x.w;
  }}
""",
    "local": LOCAL_FILL + """  uint s = 0u;
  for (int k = 0; k < {n}; ++k) s += a[k];
""",
    "nested": """  uint s = 0u;
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < {inner}; ++x)
      s += b.w[i + 32u * uint(y * {inner} + x)];
""",
    "lnested": LOCAL_FILL + """  uint s = 0u;
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < {inner}; ++x)
      if (a[y * 8 + x] == 0u) s = uint(x + 8 * y);
""",
}

COMPUTE = """#version 450
layout(local_size_x = 32) in;
""" + BUFFERS + """layout(std430, set = 0, binding = 2) buffer O {{ uint o[]; }} out_;
void main() {{
  uint i = gl_LocalInvocationID.x;
{body}  out_.o[i] = s;
}}
"""

FRAGMENT = """#version 450
""" + BUFFERS + """layout(location = 0) out vec4 color;
void main() {{
  uint i = uint(gl_FragCoord.x);
{body}  color = vec4(float(s & 255u) / 255.0, 0.0, 0.0, 1.0);
}}
"""

VERTEX = """#version 450
""" + BUFFERS + """layout(location = 0) in vec4 position;
layout(location = 0) flat out uint result;
void main() {{
  uint i = uint(gl_VertexIndex);
{body}  result = s;
  gl_Position = position;
}}
"""

# The other stage of the pipelines that measure one.
PLAIN_FRAGMENT = """#version 450
layout(location = 0) flat in uint result;
layout(location = 0) out vec4 color;
void main() { color = vec4(float(result & 255u) / 255.0, 0.0, 0.0, 1.0); }
"""


def name(family, n, stage):
    return "%s_%d_%s" % (family, n, stage[:4])


def body(family, n):
    return BODIES[family].format(n=n, inner=n // 8)


def graphics_head():
    """The scene lines every stage's pipelines share: the frame, two
    triangles over it, and the trivial shaders of the other stage."""
    return ["BUFFER frame FORMAT B8G8R8A8_UNORM",
            # Two triangles over the whole frame.
            "BUFFER corners DATA_TYPE vec4<float> DATA",
            "-1 -1 0 1  1 -1 0 1  -1 1 0 1",
            "-1 1 0 1  1 -1 0 1  1 1 0 1",
            "END",
            "SHADER vertex passthrough PASSTHROUGH",
            "SHADER fragment plain_fragment GLSL\n%sEND" % PLAIN_FRAGMENT]


def pipeline(stage, nm, binds):
    """The PIPELINE and RUN lines measuring shader `nm` of `stage` (its
    compute result in buffer o at binding 2), `binds` its BIND lines."""
    if stage == "compute":
        return ("PIPELINE compute p_%s\n  ATTACH %s\n%s"
                "  BIND BUFFER o AS storage DESCRIPTOR_SET 0 BINDING 2\nEND"
                % (nm, nm, binds), "RUN p_%s 1 1 1" % nm)
    shaders = ("  ATTACH passthrough\n  ATTACH %s\n" % nm
               if stage == "fragment" else
               "  ATTACH %s\n  ATTACH plain_fragment\n" % nm)
    vertices = ("" if stage == "fragment" else
                "  VERTEX_DATA corners LOCATION 0\n")
    text = ("PIPELINE graphics p_%s\n%s%s  FRAMEBUFFER_SIZE %d 2\n"
            "  BIND BUFFER frame AS color LOCATION 0\n%sEND"
            % (nm, shaders, binds, WIDTH, vertices))
    run = ("RUN p_%s DRAW_RECT POS 0 0 SIZE %d 2" % (nm, WIDTH)
           if stage == "fragment" else
           "RUN p_%s DRAW_ARRAY AS TRIANGLE_LIST START_IDX 0 COUNT 6" % nm)
    return text, run


def scene():
    rows = WIDTH * max(TRIPS)
    out = ["#!amber",
           "# GENERATED by vulkan_ref/experiments/stage_batching.py: loads in",
           "# flight per shader stage (its docstring).",
           "BUFFER w DATA_TYPE uint32 SIZE %d SERIES_FROM 0 INC_BY 1" % rows,
           "BUFFER v DATA_TYPE vec4<uint32> SIZE %d FILL 1" % rows,
           "BUFFER o DATA_TYPE uint32 SIZE %d FILL 0" % WIDTH] + graphics_head()
    runs = []
    binds = ("  BIND BUFFER w AS storage DESCRIPTOR_SET 0 BINDING 0\n"
             "  BIND BUFFER v AS storage DESCRIPTOR_SET 0 BINDING 1\n")
    for stage in STAGES:
        for family in FAMILIES:
            for n in TRIPS:
                nm = name(family, n, stage)
                text = {"compute": COMPUTE, "fragment": FRAGMENT,
                        "vertex": VERTEX}[stage].format(body=body(family, n))
                out.append("SHADER %s %s GLSL\n%sEND" % (stage, nm, text))
                text, run = pipeline(stage, nm, binds)
                out.append(text)
                runs.append(run)
    return "\n".join(out + runs) + "\n"


def counts(report_path):
    """{(pipeline name, stage): register count} of a vkref report (the
    driver's Register Count) or of a warpsim one (registers_per_thread)."""
    with open(report_path) as f:
        report = json.load(f)
    out = {}
    for p in report.get("pipelines", []):
        s = p.get("executable_statistics")
        out[(p["name"], p.get("stage"))] = (
            s.get("Register Count") if s is not None
            else p.get("registers_per_thread"))
    return out


def stage_table(nvidia_path, emulator_path, families, sizes, name_of):
    """The table of a scene of families x stages x sizes, each cell the
    driver's count (and the emulator's) of pipeline "p_" + name_of(family,
    n, stage)."""
    nv = counts(nvidia_path)
    emu = counts(emulator_path) if emulator_path else {}
    head = ("| family | stage | " + " | ".join("N=%d" % n for n in sizes)
            + " |")
    lines = [head, "|---|---|" + "---|" * len(sizes)]
    for family in families:
        for stage in STAGES:
            cells = []
            for n in sizes:
                key = ("p_" + name_of(family, n, stage), stage)
                cell = str(nv.get(key))
                if emu:
                    cell += " / %s" % emu.get(key)
                cells.append(cell)
            lines.append("| %s | %s | %s |" % (family, stage, " | ".join(cells)))
    note = ("Each cell: the driver's Register Count"
            + (" / the emulator's registers_per_thread" if emu else "")
            + " for the stage named.")
    return "\n".join(lines) + "\n\n" + note + "\n"


def table(nvidia_path, emulator_path=None):
    return stage_table(nvidia_path, emulator_path, FAMILIES, TRIPS, name)


def main(argv):
    return scene_table_main(argv, scene, table, "stage-batching",
                            "stage_batching.py", __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
