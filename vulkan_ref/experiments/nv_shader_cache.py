#!/usr/bin/env python3
"""The machine code NVIDIA's Vulkan driver made of a scene's shaders, read
from the driver's shader disk cache and disassembled with the CUDA
toolkit's nvdisasm.

  nv_shader_cache.py extract CACHE_DIR OUT_DIR
      Unpacks every object of every *.toc / *.bin pair under CACHE_DIR
      (the driver writes them under __GL_SHADER_DISK_CACHE_PATH) into
      OUT_DIR: objectNNN.nvuc (a microcode object), objectNNN.bin (another
      kind), and for an NVuc object its sections, objectNNN.sK_TTTT.bin
      (K its index, TTTT its type in hex). Prints one line an object.
  nv_shader_cache.py disasm OUT_DIR [--arch SM90]
      Runs `nvdisasm --binary ARCH` on every code section (type 0x0001)
      in OUT_DIR and keeps what disassembles, as objectNNN.sK_0001.sass
      (and with the encodings, objectNNN.sK_0001.hex.sass).
  nv_shader_cache.py record RUN_DIR RECORD_DIR
      From run_sass_h200.sh's folder (one folder a scene: report.json,
      objects/; provenance.txt), the record to commit:
      RECORD_DIR/index.json (the run's GPU, driver, date, commit and
      command; per scene its file, and per pipeline and stage the driver's
      binary size and register count and the SASS that is its code) and
      RECORD_DIR/sass.jsonl.gz, each distinct SASS listing once (its sha,
      nvdisasm -hex's text).
      The driver's objects come in the order it compiled them (per
      pipeline its fragment or compute shader, then its vertex shader; a
      shader compiled before, not again): each stage takes the next object
      whose code length fits its "Binary Size" (less the 128-byte program
      header of a graphics stage) and stage (AST, attribute stores: vertex).
  nv_shader_cache.py loops RECORD_DIR [--scene TAG] [--stage fragment]
      Each loop of each pipeline's SASS (a branch back to an earlier
      address): its instructions, the counter's step (trips a pass of an
      unrolled loop make) and the instructions per trip, by opcode.
  nv_shader_cache.py check RECORD_DIR
      Every stage of every scene has its listing, each reads as SASS, and
      in each every reader of a load waits on the load's barrier (the
      encodings' control bits, as cuda_ref/results/sass_control.py reads
      them).
  nv_shader_cache.py unroll-check RECORD_DIR --warpsim BIN
      Whether the timing model (the h200 preset) unrolls each loop of each
      recorded scene's fragment and compute shaders as the driver's code
      does (`warpsim disasm`'s annotations beside the SASS's loops).
  nv_shader_cache.py table RECORD_DIR [--update README | --check README]
      The loops of the timing families' and branch_costs' fragment shaders
      (the section sass-loops of vulkan_ref/results/h100/README.md).

Why: the timing model issues what simt lowers from SPIR-V and places the
instructions NVIDIA's compiler adds or removes from measurements (loop
unrolling, predication, folded chains); the driver shows no SASS through
Vulkan (its pipeline statistics give a register count and a binary size).
The driver keeps what it compiles in a disk cache; the CUDA toolkit's
nvdisasm reads the code in it. What is read here is a data file the driver
writes into a folder the caller names; nothing of the driver is changed.

The cache's layout, as the file's own structure shows it (little-endian):
  FILE.toc  a 32-byte header ("CDVN" first), then entries of 24 bytes:
            16 bytes that repeat the section header's bytes 4-19, the
            section's offset in FILE.bin, its size;
  FILE.bin  a 32-byte header, then sections: a 36-byte header (the word
            0x9846A19D; 24 bytes of hashes and versions; the section's size,
            as the entry gives it; its unpacked size) and the packed object
            (size - 4 bytes): a zstd frame, an older run-length code
            ("\\x05NVuc" first) or the object itself;
  object    "NVuc" first (a Vulkan pipeline's: "NVDANVVM" before it,
            dropped here); the count of sections in the low 16 bits of its
            third word; from its ninth word on, 32 bytes a section: type,
            length, offset (bytes from the object's start), five more words.
            Type 0x0001 is the code (its length and the 128 bytes of type
            0x002D, the program header, make the pipeline statistic
            "Binary Size").

Needs the `zstd` program for zstd frames. Standard library only.
"""
import argparse
import collections
import fnmatch
import glob
import gzip
import hashlib
import json
import os
import re
import struct
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SECTION_MAGIC = 0x9846A19D
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def unpack_runs(data, size):
    """The older drivers' run-length code: a control byte, its low 6 bits a
    count n, its top 2 bits what follows: 0, n literal bytes; 1, one byte
    repeated n times; 2, n bytes 0xFF; 3, n zero bytes."""
    out = bytearray()
    i = 0
    while i < len(data):
        c = data[i]
        i += 1
        n, kind = c & 0x3F, c >> 6
        if n == 0:
            raise ValueError("not run-length coded (a run of 0)")
        if kind == 0:
            if i + n > len(data):
                raise ValueError("run-length code truncated")
            out += data[i:i + n]
            i += n
        elif kind == 1:
            if i >= len(data):
                raise ValueError("run-length code truncated")
            out += bytes([data[i]]) * n
            i += 1
        else:
            out += (b"\xff" if kind == 2 else b"\x00") * n
    if len(out) != size:
        raise ValueError(f"unpacked {len(out)} bytes, header says {size}")
    return bytes(out)


def unpack(packed, size):
    if packed[:4] == ZSTD_MAGIC:
        r = subprocess.run(["zstd", "-d", "-c", "-q"], input=packed,
                           capture_output=True, check=False)
        if r.returncode != 0:
            raise ValueError("zstd: " + r.stderr.decode(errors="replace"))
        return r.stdout, "zstd"
    if packed[:5] == b"\x05NVuc":
        return unpack_runs(packed, size), "runs"
    return packed, "raw"


def objects(toc_path):
    """(index, packing, object bytes or an error) for each entry."""
    bin_path = toc_path[:-4] + ".bin"
    with open(toc_path, "rb") as f:
        toc = f.read()
    with open(bin_path, "rb") as f:
        data = f.read()
    if toc[:4] != b"CDVN" or (len(toc) - 32) % 24:
        raise ValueError(f"{toc_path}: not a cache index (magic or size)")
    for k in range((len(toc) - 32) // 24):
        off, size = struct.unpack_from("<II", toc, 32 + 24 * k + 16)
        if off + 36 > len(data):
            yield k, None, f"offset {off} past the end of {bin_path}"
            continue
        head = struct.unpack_from("<9I", data, off)
        if head[0] != SECTION_MAGIC or head[7] != size or size < 4:
            yield k, None, f"section at {off}: bad magic or size"
            continue
        packed = data[off + 36:off + 36 + size - 4]
        try:
            obj, how = unpack(packed, head[8])
        except ValueError as e:
            yield k, None, f"section at {off}: {e}"
            continue
        yield k, how, obj


def nvuc_sections(obj):
    count = struct.unpack_from("<I", obj, 8)[0] & 0xFFFF
    for s in range(count):
        at = 32 + 32 * s
        if at + 12 > len(obj):
            break
        kind, length, off = struct.unpack_from("<III", obj, at)
        if off + length <= len(obj):
            yield s, kind, obj[off:off + length]


def extract(cache_dir, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    n = 0
    for root, _, files in sorted(os.walk(cache_dir)):
        for name in sorted(files):
            if not name.endswith(".toc"):
                continue
            for k, how, obj in objects(os.path.join(root, name)):
                tag = f"object{n:03d}"
                n += 1
                if how is None:
                    print(f"{tag} {name}#{k}: {obj}")
                    continue
                # Vulkan's objects put "NVDANVVM" before the "NVuc".
                at = obj.find(b"NVuc", 0, 16)
                nvuc = at >= 0
                if nvuc:
                    obj = obj[at:]
                with open(os.path.join(out_dir, tag + (".nvuc" if nvuc else
                                                       ".bin")), "wb") as f:
                    f.write(obj)
                line = f"{tag} {name}#{k}: {how}, {len(obj)} bytes"
                if nvuc:
                    secs = list(nvuc_sections(obj))
                    for s, kind, body in secs:
                        with open(os.path.join(
                                out_dir, f"{tag}.s{s}_{kind:04X}.bin"),
                                "wb") as f:
                            f.write(body)
                    line += ", sections " + " ".join(
                        f"{s}:{kind:04X}:{len(b)}" for s, kind, b in secs)
                print(line)
    return 0 if n else 1


def disasm(out_dir, arch):
    found = 0
    for name in sorted(os.listdir(out_dir)):
        if not (name.startswith("object") and name.endswith("_0001.bin")):
            continue
        path = os.path.join(out_dir, name)
        if os.path.getsize(path) == 0 or os.path.getsize(path) % 16:
            continue
        r = subprocess.run(["nvdisasm", "--binary", arch, path],
                           capture_output=True, text=True, check=False)
        if r.returncode == 0 and r.stdout.strip():
            with open(path[:-4] + ".sass", "w") as f:
                f.write(r.stdout)
            found += 1
            print(f"{name}: {r.stdout.count(';')} instructions")
            # The encodings too (-hex), for sass_control.py's reading of
            # each instruction's stall count and barriers.
            r = subprocess.run(["nvdisasm", "--binary", arch, "-hex", path],
                               capture_output=True, text=True, check=False)
            if r.returncode == 0:
                with open(path[:-4] + ".hex.sass", "w") as f:
                    f.write(r.stdout)
    return 0 if found else 1


def stage_of(sass):
    return "vertex" if re.search(r"\bAST\b", sass) else "fragment"


def match_pipelines(report, codes):
    """Each pipeline stage's code among the cache's objects (in the order
    the driver compiled them: per pipeline its fragment or compute shader,
    then its vertex shader, a shader the driver compiled before for an
    earlier pipeline not again, nor one it compiled alike for another
    pipeline before: that one's code, by shader and size). The code of a
    graphics stage is its
    "Binary Size" less the 128-byte program header; a compute shader's is
    all of it. Returns per report pipeline entry its SASS (or None)."""
    by_name = collections.defaultdict(list)
    for k, p in enumerate(report.get("pipelines", [])):
        by_name[p.get("name")].append(k)
    order = []
    for ks in by_name.values():
        order += sorted(ks, key=lambda k: report["pipelines"][k].get(
            "stage") == "vertex")
    out = [None] * len(report.get("pipelines", []))
    seen = {}
    at = 0
    for k in order:
        p = report["pipelines"][k]
        size = p.get("executable_statistics", {}).get("Binary Size")
        stage = p.get("stage")
        if size is None:
            continue
        want = size if stage == "compute" else size - 128
        kind = "vertex" if stage == "vertex" else "fragment"

        def fits(c):
            return c[0] == want and c[1] == kind
        if at < len(codes) and fits(codes[at]):
            out[k] = codes[at][2]
            at += 1
        elif any(fits(c) for c in seen.get((p.get("shader"), kind), [])):
            # The driver compiled this shader so before (the same
            # specialization for another pipeline: no new object).
            out[k] = next(c for c in reversed(seen[(p.get("shader"), kind)])
                          if fits(c))[2]
        else:
            j = next((j for j in range(at, len(codes)) if fits(codes[j])),
                     None)
            if j is None:
                continue
            out[k] = codes[j][2]
            at = j + 1
        if out[k] is not None:
            seen.setdefault((p.get("shader"), kind), []).append(
                (want, kind, out[k]))
    return out


def record(run_dir, record_dir):
    os.makedirs(record_dir, exist_ok=True)
    listings = {}  # sha: SASS text
    index = {}
    for tag in sorted(os.listdir(run_dir)):
        rep = os.path.join(run_dir, tag, "report.json")
        objs = os.path.join(run_dir, tag, "objects")
        if not os.path.isfile(rep):
            continue
        with open(rep) as f:
            report = json.load(f)
        codes = []  # (code bytes, stage, sha), in the cache's order
        names = sorted(os.listdir(objs)) if os.path.isdir(objs) else []
        for name in names:
            if not name.endswith("_0001.hex.sass"):
                continue
            with open(os.path.join(objs, name)) as f:
                text = f.read()
            sha = hashlib.sha256(text.encode()).hexdigest()[:16]
            listings[sha] = text
            size = os.path.getsize(os.path.join(
                objs, name.replace(".hex.sass", ".bin")))
            codes.append((size, stage_of(text), sha))
        shas = match_pipelines(report, codes)
        pipes = []
        for p, sha in zip(report.get("pipelines", []), shas):
            st = p.get("executable_statistics", {})
            pipes.append({"name": p.get("name"), "stage": p.get("stage"),
                          "shader": p.get("shader"),
                          "binary_size": st.get("Binary Size"),
                          "registers": st.get("Register Count"),
                          "sass": sha})
        index[tag] = {"file": report.get("file"),
                      "exit_code": report.get("exit_code"),
                      "pipelines": pipes}
    with gzip.GzipFile(os.path.join(record_dir, SASS_FILE), "wb",
                       mtime=0) as g:
        for sha in sorted(listings):
            g.write((json.dumps({"sha": sha, "sass": listings[sha]}) +
                     "\n").encode())
    prov = os.path.join(run_dir, "provenance.txt")
    with open(prov) as f:
        head = f.read().splitlines()
    device = next((ln.replace(", ", ", driver ", 1) for ln in head
                   if ln.startswith("NVIDIA")), "?")
    index = {"provenance": {
        "device_and_driver": device, "started": head[0] if head else "?",
        "commit": next((ln[7:] for ln in head if ln.startswith("commit ")),
                       "?"),
        "nvdisasm": next((ln for ln in head if ln.startswith("Cuda ")), "?"),
        "command": next((ln[9:] for ln in head if ln.startswith("command: ")),
                        "?"),
        "listings": SASS_FILE + ": a JSON line a distinct listing (sha, "
                    "sass: nvdisasm -hex of the code section)"},
        "scenes": index}
    with open(os.path.join(record_dir, "index.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0 if index["scenes"] else 1


SASS_FILE = "sass.jsonl.gz"
_LISTINGS = {}


def listing(record_dir, sha):
    """The SASS text of listing SHA in a record."""
    if record_dir not in _LISTINGS:
        with gzip.open(os.path.join(record_dir, SASS_FILE), "rt") as g:
            _LISTINGS[record_dir] = {d["sha"]: d["sass"] for d in
                                     map(json.loads, g)}
    return _LISTINGS[record_dir][sha]


INSTR = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);")


def parse(text):
    """[(address, guard, opcode, operands)] of a listing."""
    out = []
    for line in text.splitlines():
        m = INSTR.search(line)
        if m:
            out.append((int(m.group(1), 16), (m.group(2) or "").strip(),
                        m.group(3), m.group(4).strip()))
    return out


def loops_of(code):
    """Per backward branch: (first, last) indices of the loop, the step of
    the register the branch's compare tests (None if not found)."""
    at = {a: k for k, (a, _, _, _) in enumerate(code)}
    found = []
    for k, (a, guard, op, args) in enumerate(code):
        if not op.startswith("BRA"):
            continue
        m = re.match(r"(?:`\()?(?:\.L_x_\d+\)?)?\s*0x([0-9a-f]+)", args)
        if not m:
            continue
        target = int(m.group(1), 16)
        if target >= a or target not in at:
            continue
        first = at[target]
        step = None
        pred = guard.lstrip("@!")
        if not pred:
            # An unconditional back edge: the loop leaves through the
            # last guarded branch or call before it (the driver ends some
            # unrolled loops with `@P1 CALL.REL.NOINC` past the edge).
            for j in range(k - 1, first - 1, -1):
                if code[j][1] and code[j][2].startswith(("BRA", "CALL")):
                    pred = code[j][1].lstrip("@!")
                    break
        for j in range(k - 1, first - 1, -1):
            op2, args2 = code[j][2], code[j][3]
            if op2.startswith("ISETP") and args2.startswith(pred + ","):
                # The counter: an operand the loop steps by a constant.
                for r in re.findall(r"\bU?R\d+\b", args2):
                    for i in range(first, k):
                        o3, a3 = code[i][2], code[i][3]
                        mm = re.match(r"(U?R\d+), (U?R\d+), "
                                      r"(-?0x[0-9a-f]+|-?\d+)(?:, U?RZ)?$", a3)
                        if (o3 in ("VIADD", "IADD3", "UIADD3") and mm and
                                mm.group(1) == r and mm.group(2) == r):
                            v = int(mm.group(3), 0) & 0xFFFFFFFF
                            step = abs(v - (1 << 32) if v >> 31 else v)
                    if step:
                        break
                break
        found.append((first, k, step))
    return sorted(found)


def path_when_jumping(code, first, last):
    """The indices of code[first..last] a warp issues, in order, on one
    pass when every forward branch inside them jumps: a guarded branch
    around a body lands past it (or on the other side of an if-else,
    whose instructions it issues), an unguarded one past the other side."""
    at = {a: k for k, (a, _, _, _) in enumerate(code)}
    k, path = first, []
    while first <= k <= last:
        path.append(k)
        _, _, op, args = code[k]
        m = re.match(r"0x([0-9a-f]+)", args)
        t = at.get(int(m.group(1), 16)) if op.startswith("BRA") and m \
            else None
        k = t if t is not None and k < t <= last + 1 else k + 1
    return path


def pipeline_loops(record_dir, tag, pipeline, stage=None):
    """The loops of one pipeline's SASS in a record (index.json's TAG and
    pipeline name; its fragment or compute stage unless STAGE): per loop
    {"first", "last" (addresses), "instructions", "step" (None if not
    found), "issued" (on the path where every branch inside jumps), "ops"
    (opcode: count)}."""
    with open(os.path.join(record_dir, "index.json")) as f:
        entry = json.load(f)["scenes"][tag]
    for p in entry["pipelines"]:
        if p["name"] != pipeline or not p["sass"]:
            continue
        if p["stage"] != stage if stage else p["stage"] == "vertex":
            continue
        code = parse(listing(record_dir, p["sass"]))
        out = []
        for first, last, step in loops_of(code):
            body = code[first:last + 1]
            out.append({
                "first": body[0][0], "last": body[-1][0],
                "instructions": len(body), "step": step,
                "issued": len(path_when_jumping(code, first, last)),
                "ops": collections.Counter(o.split(".")[0]
                                           for _, _, o, _ in body)})
        return out
    raise KeyError(f"{tag}: no pipeline {pipeline} with SASS")


def loops(record_dir, scene, stage):
    with open(os.path.join(record_dir, "index.json")) as f:
        index = json.load(f)["scenes"]
    for tag, entry in sorted(index.items()):
        if scene and tag != scene and not tag.endswith("__" + scene):
            continue
        seen = set()
        for p in entry["pipelines"]:
            if (stage and p["stage"] != stage) or not p["sass"] or \
                    p["sass"] in seen:
                continue
            seen.add(p["sass"])
            for lp in pipeline_loops(record_dir, tag, p["name"], p["stage"]):
                n, step = lp["instructions"], lp["step"]
                per = (f"{n / step:.2f} a trip, {lp['issued'] / step:.2f} "
                       f"issued" if step else "-")
                mix = " ".join(f"{o} {c}" for o, c in lp["ops"].most_common())
                print(f"{tag} {p['name']} {p['stage']} {p['sass']} "
                      f"0x{lp['first']:04x}-0x{lp['last']:04x}: {n} "
                      f"instructions ({lp['issued']} issued when the "
                      f"branches inside jump), step {step or '-'}, {per}; "
                      f"{mix}")
    return 0


TABLE_SCENES = ("timing_families__", "branch_costs__")


def table(record_dir):
    """The loops of the timing families' and branch_costs' fragment
    shaders (TABLE_SCENES) as the driver compiled them."""
    with open(os.path.join(record_dir, "index.json")) as f:
        data = json.load(f)
    pv = data["provenance"]
    out = ["Device: %s (`%s`, started %s, warpsim %s; nvdisasm: %s). Per "
           "fragment shader (the pipelines that share its code), each loop "
           "of its SASS: a branch back; trips a pass: the step of the "
           "counter its exit compare tests, or the last guarded branch's "
           "when the branch back is unconditional (4: unrolled four times; "
           "- : none found); issued: the instructions a pass issues when "
           "every branch inside the loop jumps (past a side no lane takes, "
           "or to the other side of an if-else).\n" % (
               pv["device_and_driver"], os.path.relpath(record_dir, ROOT),
               pv["started"], pv["commit"], pv["nvdisasm"]),
           "| scene | pipelines | registers | loop | instructions | issued "
           "| trips a pass | issued a trip | opcodes |",
           "|---|---|---|---|---|---|---|---|---|"]
    for tag, entry in sorted(data["scenes"].items()):
        if not tag.startswith(TABLE_SCENES):
            continue
        shas = collections.OrderedDict()
        for p in entry["pipelines"]:
            if p["stage"] == "fragment" and p["sass"]:
                shas.setdefault(p["sass"], []).append(p)
        for sha, pipes in shas.items():
            for lp in pipeline_loops(record_dir, tag, pipes[0]["name"]):
                step = lp["step"]
                mix = ", ".join("%s %d" % (o, c) for o, c in sorted(
                    lp["ops"].items(), key=lambda kv: (-kv[1], kv[0])))
                out.append("| %s | %s | %s | 0x%04x-0x%04x | %d | %d | %s "
                           "| %s | %s |" % (
                               tag.split("__", 1)[1] + " (" +
                               tag.split("__", 1)[0] + ")",
                               ", ".join(p["name"] for p in pipes),
                               pipes[0]["registers"], lp["first"],
                               lp["last"], lp["instructions"], lp["issued"],
                               step or "-",
                               "%.2f" % (lp["issued"] / step) if step
                               else "-", mix))
    return "\n".join(out) + "\n"


def check(record_dir):
    """Every stage of every scene has its listing, every listing reads as
    SASS (its instructions 16 bytes each), and in each every reader of a
    load waits on the load's barrier (cuda_ref's sass_control.py check:
    the encodings' control bits read right)."""
    sys.path.insert(0, os.path.join(ROOT, "cuda_ref", "results"))
    import sass_control
    with open(os.path.join(record_dir, "index.json")) as f:
        scenes = json.load(f)["scenes"]
    stages = 0
    for tag, entry in sorted(scenes.items()):
        for p in entry["pipelines"]:
            if not p["sass"]:
                print(f"nv_shader_cache.py: {tag} {p['name']} {p['stage']}: "
                      "no listing", file=sys.stderr)
                return 1
            stages += 1
    with gzip.open(os.path.join(record_dir, SASS_FILE), "rt") as g:
        listings = [json.loads(line) for line in g]
    for d in listings:
        funcs = sass_control.parse("Function : %s\n%s" % (d["sha"],
                                                          d["sass"]))
        insts = funcs[0][1] if funcs else []
        if not insts or len(insts) != len(parse(d["sass"])):
            print(f"nv_shader_cache.py: listing {d['sha']}: not read as "
                  "SASS", file=sys.stderr)
            return 1
        bad = sass_control.check(funcs)
        if bad:
            name, inst, load = bad
            print("nv_shader_cache.py: %s: %04x %s reads what %04x %s "
                  "writes without waiting on its barrier" % (
                      name, inst["addr"], inst["text"], load["addr"],
                      load["text"]), file=sys.stderr)
            return 1
    print(f"{len(scenes)} scenes, {stages} stages, {len(listings)} listings:"
          " every stage has its listing; every reader of a load waits on "
          "its barrier")
    return 0


def latest_with_scene(results_dir, tag):
    """The latest sass-* record under RESULTS_DIR whose index has scene TAG,
    or None."""
    for d in sorted(glob.glob(os.path.join(results_dir, "sass-*")),
                    reverse=True):
        with open(os.path.join(d, "index.json")) as f:
            if tag in json.load(f)["scenes"]:
                return d
    return None


def record_device(record_dir):
    """The record's GPU and driver (its provenance)."""
    with open(os.path.join(record_dir, "index.json")) as f:
        prov = json.load(f)["provenance"]
    return prov.get("device_and_driver", "?")


def trip_sizes(record_dir, tag):
    """Per pipeline of scene TAG with one loop in its compute or fragment
    shader's SASS: (the loop's instructions a trip: its instructions over
    the counter's step, unrolled: whether the step is 4 or more)."""
    with open(os.path.join(record_dir, "index.json")) as f:
        entry = json.load(f)["scenes"][tag]
    out = {}
    for p in entry["pipelines"]:
        if p["stage"] == "vertex" or not p["sass"]:
            continue
        lps = pipeline_loops(record_dir, tag, p["name"], p["stage"])
        if len(lps) != 1:
            continue
        step = lps[0]["step"] or 1
        out[p["name"]] = (lps[0]["instructions"] / step, step >= 4)
    return out


def model_loops(warpsim, path, timing):
    """Per shader of scene PATH (`warpsim disasm`'s warp programs), per
    loop in order (a block header with a continue block) how the timing
    model with the h200 preset's figures (TIMING) issues it: "full"
    (unrolled completely), "unrolled" (loop_unroll trips a pass) or
    "rolled", from the annotation on its exit branch (the loop's body as
    sm's Unrolls weighs it), with what a trip adds to its counter (1 where
    the annotation names no step)."""
    out = subprocess.run([warpsim, "disasm", path], capture_output=True,
                         text=True, check=False).stdout
    shaders, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"==== shader (\S+) \(warp program\) ====", line)
        if m or line.startswith("===="):
            cur = m.group(1) if m else None
            if cur:
                shaders[cur] = []
            continue
        if cur is None:
            continue
        m = re.match(r"block\d+ .*merge=block(\d+) continue=block\d+", line)
        if m:
            shaders[cur].append({"merge": int(m.group(1)), "how": "rolled",
                                 "step": 1, "open": True})
        head = re.match(r"block(\d+) ", line)
        for lp in shaders[cur]:
            if not lp["open"]:
                continue
            if head and int(head.group(1)) == lp["merge"]:
                lp["open"] = False
            elif ("OpBranchConditional" in line and
                  "block%d" % lp["merge"] in line and lp["how"] == "rolled"):
                a = re.search(r"unrolled loop \d+ \(([^)]*)\)", line)
                if not a:
                    continue
                if a.group(1).startswith("completely"):
                    lp["how"] = "full"
                    continue
                b = re.match(r"body (\d+)(?:, (\d+) in selections)?"
                             r"(, loads)?", a.group(1))
                body, skipped = int(b.group(1)), int(b.group(2) or 0)
                st = re.search(r"step (-?\d+)", a.group(1))
                lp["step"] = abs(int(st.group(1))) if st else 1
                weighed = body - skipped + \
                    timing["loop_unroll_skipped_weight"] * skipped
                limit = timing["loop_unroll_max_body"]
                if b.group(3) and timing.get("loop_unroll_max_body_loads"):
                    limit = timing["loop_unroll_max_body_loads"]
                lp["how"] = "unrolled" if weighed <= limit else "rolled"
    return {k: [(lp["how"], lp["step"]) for lp in v]
            for k, v in shaders.items()}


# Scenes (fnmatch patterns of a record's tags) whose loops the model
# issues otherwise than the driver's code, and why; `unroll-check` fails
# when one of them agrees (its entry is then to go).
KNOWN_UNROLL = {
    "microbench__e2_shared_chase": (
        "the chase through workgroup memory (16 steps written out a trip, "
        "`i += 16u`) and the one through a buffer weigh alike in the model "
        "(a body of 32, over loop_unroll_max_body_loads: both rolled); the "
        "driver's code of the buffer chase holds a compare a load (52 "
        "instructions a trip: rolled), that of the workgroup one 32.75 a "
        "trip, unrolled four times, longer than any loop of e5_loads "
        "unrolled (the preset's limit)"),
    "e47_held_moves__scalar_k8": (
        "the driver keeps this loop (32 floats loaded one by one, then "
        "added to in a branch nobody takes) rolled, with its counter in a "
        "uniform register, and unrolls the same loop over 8 loaded vec4 "
        "(load_k8); the model's body weighs both alike"),
}


def specialized(path, pipeline):
    """Whether PIPELINE of AmberScript PATH attaches a shader with
    SPECIALIZE: `warpsim disasm` lists a shader unspecialized, so its loops
    are not the pipeline's."""
    with open(path) as f:
        text = f.read()
    m = re.search(r"^PIPELINE \w+ %s\b(.*?)^END" % re.escape(pipeline), text,
                  re.M | re.S)
    return bool(m and "SPECIALIZE" in m.group(1))


def unroll_check(record_dir, warpsim):
    """Whether the timing model unrolls each loop of each scene's fragment
    and compute shaders as the driver's code does: a loop of the SASS is
    unrolled when its counter steps by 4 (the model's loop_unroll, 4 in the
    h200 preset) times the source's step or more a pass, the model's loops
    unrolled completely leave none. Exits 1 naming the shaders that
    differ."""
    with open(os.path.join(ROOT, "emulator", "runner", "presets",
                           "h200_timing.json")) as f:
        preset = json.load(f)
    timing = preset.get("timing", preset)
    with open(os.path.join(record_dir, "index.json")) as f:
        scenes = json.load(f)["scenes"]
    shaders, differ, skipped = 0, [], 0
    known = {k: [] for k in KNOWN_UNROLL}
    for tag, entry in sorted(scenes.items()):
        path = os.path.join(ROOT, entry["file"] or "")
        if not os.path.isfile(path):
            continue
        model = model_loops(warpsim, path, timing)
        seen = set()
        for p in entry["pipelines"]:
            key = (p["shader"], p["sass"])
            if p["stage"] == "vertex" or not p["sass"] or key in seen:
                continue
            seen.add(key)
            if specialized(path, p["name"]):
                skipped += 1
                continue
            shaders += 1
            listed = [lp for lp in model.get(p["shader"], [])
                      if lp[0] != "full"]
            mine = [how for how, _ in listed]
            # A trip of the source adds `step` to the counter (the model's
            # annotation; 1 for a loop it does not list): unrolled, a pass
            # of the driver's code adds loop_unroll times that.
            sass = ["unrolled"
                    if (lp["step"] or 0) >= timing["loop_unroll"] * (
                        listed[k][1] if k < len(listed) else 1)
                    else "rolled"
                    for k, lp in enumerate(
                        pipeline_loops(record_dir, tag, p["name"]))]
            pattern = next((k for k in KNOWN_UNROLL
                            if fnmatch.fnmatchcase(tag, k)), None)
            if pattern is not None:
                known[pattern].append(mine != sass)
            elif mine != sass:
                differ.append(f"{tag} {p['name']} ({p['shader']}): model "
                              f"{mine}, the driver's code {sass}")
    for k, results in known.items():
        if results and not any(results):
            differ.append(f"{k}: a known difference (KNOWN_UNROLL) that no "
                          "longer differs in any shader")
    for d in differ:
        print("nv_shader_cache.py: " + d, file=sys.stderr)
    ok = sum(len(v) for v in known.values())
    print(f"{shaders} shaders: the model unrolls their loops as the "
          f"driver's code does in {shaders - len(differ) - ok}; "
          f"{ok} differ as KNOWN_UNROLL says; {skipped} of specialized "
          "pipelines not compared (warpsim disasm lists a shader "
          "unspecialized)")
    return 1 if differ or not shaders else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("cache_dir")
    e.add_argument("out_dir")
    d = sub.add_parser("disasm")
    d.add_argument("out_dir")
    d.add_argument("--arch", default="SM90")
    r = sub.add_parser("record")
    r.add_argument("run_dir")
    r.add_argument("record_dir")
    t = sub.add_parser("table")
    t.add_argument("record_dir")
    t.add_argument("--update")
    t.add_argument("--check")
    c = sub.add_parser("check")
    c.add_argument("record_dir")
    u = sub.add_parser("unroll-check")
    u.add_argument("record_dir")
    u.add_argument("--warpsim", required=True)
    lp = sub.add_parser("loops")
    lp.add_argument("record_dir")
    lp.add_argument("--scene")
    lp.add_argument("--stage")
    a = ap.parse_args()
    if a.cmd == "extract":
        return extract(a.cache_dir, a.out_dir)
    if a.cmd == "disasm":
        return disasm(a.out_dir, a.arch)
    if a.cmd == "record":
        return record(a.run_dir, a.record_dir)
    if a.cmd == "check":
        return check(a.record_dir)
    if a.cmd == "unroll-check":
        return unroll_check(a.record_dir, a.warpsim)
    if a.cmd == "table":
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        from readme_section import table_section_main
        return table_section_main(table(a.record_dir), "sass-loops",
                                  "nv_shader_cache.py", a.check, a.update)
    return loops(a.record_dir, a.scene, a.stage)


if __name__ == "__main__":
    sys.exit(main())
