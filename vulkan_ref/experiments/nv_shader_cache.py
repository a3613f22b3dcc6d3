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
import os
import struct
import subprocess
import sys

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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("cache_dir")
    e.add_argument("out_dir")
    d = sub.add_parser("disasm")
    d.add_argument("out_dir")
    d.add_argument("--arch", default="SM90")
    a = ap.parse_args()
    if a.cmd == "extract":
        return extract(a.cache_dir, a.out_dir)
    return disasm(a.out_dir, a.arch)


if __name__ == "__main__":
    sys.exit(main())
