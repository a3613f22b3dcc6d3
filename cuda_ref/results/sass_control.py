#!/usr/bin/env python3
"""The scheduling control of each SASS instruction in a recorded
`cuobjdump -sass` listing (a record's *.sass.gz): the stall count, the
yield flag and the dependency barriers ptxas wrote into the instruction.

  cuda_ref/results/sass_control.py SASS[.gz] [--function NAME]
      [--from ADDR] [--to ADDR]
  cuda_ref/results/sass_control.py SASS[.gz] --check

Why: the timing model's waits are dynamic (an operand is there some cycles
after its producer issued), where NVIDIA's fixed-latency waits are static:
ptxas stalls the warp a set number of cycles after an instruction, counted
from that instruction's issue, and a variable-latency result (a load, a
shared-memory access, MUFU) is waited for on one of six dependency barriers
(scoreboards). Reading the two side by side tells where a loop's cycles go
on the GPU: for cuda_ref's E31 the fixed wait for a branch's predicate sits
after the wait for the chase's load, so it is paid in full on every trip.

Each instruction of sm_70 and later is 128 bits, listed as two 64-bit
words; the control is in bits 41 to 62 of the second word (the layout
public SASS assemblers and disassemblers decode, e.g. CuAssembler and
MaxAs for Maxwell's equivalent):

  bits 41-44  stall: cycles before the warp's next instruction may issue
  bit  45     yield: the scheduler may switch to another warp
  bits 46-48  write barrier set when the result is written (7: none)
  bits 49-51  read barrier set when the operands are read (7: none)
  bits 52-57  wait mask: the barriers to wait for before issuing
  bits 58-61  operand reuse cache flags

`--check` tests the decoding on the listing itself: every instruction
that reads the destination register of a load (LDG, LDS, LDC with a write
barrier, LD, ATOM, S2R, ...) before another instruction writes it waits on
that load's write barrier, as it must on the GPU. It exits 1 naming the
first instruction that does not.

Standard library only.
"""
import argparse
import gzip
import re
import sys

LINE = re.compile(r"^\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]+) \*/")
WORD = re.compile(r"^\s+/\* (0x[0-9a-f]+) \*/\s*$")
FUNCTION = re.compile(r"Function : (\S+)")
REGISTER = re.compile(r"\bR(\d+)\b")


def control(word):
    """The control fields of an instruction's second 64-bit word."""
    return {
        "stall": (word >> 41) & 0xF,
        "yield": (word >> 45) & 1,
        "write_barrier": None if ((word >> 46) & 7) == 7 else (word >> 46) & 7,
        "read_barrier": None if ((word >> 49) & 7) == 7 else (word >> 49) & 7,
        "wait_mask": (word >> 52) & 0x3F,
        "reuse": (word >> 58) & 0xF,
    }


def parse(text):
    """[(function, [instruction])] of a cuobjdump -sass listing; each
    instruction {"addr", "text", "opcode", "predicate", and the control}."""
    out = []
    lines = text.split("\n")
    current = None
    for i, line in enumerate(lines):
        m = FUNCTION.search(line)
        if m:
            current = (m.group(1), [])
            out.append(current)
            continue
        m = LINE.match(line)
        if not m or current is None or i + 1 >= len(lines):
            continue
        w = WORD.match(lines[i + 1])
        if not w:
            continue
        body = m.group(2)
        predicate = ""
        if body.startswith("@"):
            predicate, body = body.split(None, 1)
        opcode = body.split(None, 1)[0] if body else ""
        inst = {"addr": int(m.group(1), 16), "text": m.group(2),
                "opcode": opcode, "predicate": predicate, "operands": body}
        inst.update(control(int(w.group(1), 16)))
        current[1].append(inst)
    return out


def registers(operands):
    """Destination and source registers of an instruction's operand text
    (the first operand is the destination for the instructions --check
    looks at; a 64-bit pair R4.64 names R4 and R5)."""
    parts = operands.split(None, 1)
    if len(parts) < 2:
        return [], []
    ops = [o.strip() for o in parts[1].split(",")]
    def regs(o):
        found = []
        for m in REGISTER.finditer(o):
            r = int(m.group(1))
            found.append(r)
            if ".64" in o[m.end():m.end() + 3]:
                found.append(r + 1)
        return found
    dst = regs(ops[0]) if ops else []
    src = [r for o in ops[1:] for r in regs(o)]
    return dst, src


def loop(insts):
    """The instructions of a function's loop (sass_control.parse's list):
    from the target of its first predicated backward branch to that
    branch, both included; [] when it has none."""
    for k, inst in enumerate(insts):
        target = re.search(r"BRA (0x[0-9a-f]+)", inst["text"])
        if inst["predicate"] and target and \
                int(target.group(1), 16) < inst["addr"]:
            lo = int(target.group(1), 16)
            return [i for i in insts[:k + 1] if i["addr"] >= lo]
    return []


def check(functions):
    """The first (function, consumer, load) whose consumer reads the load's
    destination without waiting on its write barrier, or None."""
    for name, insts in functions:
        pending = {}  # register -> (load, barrier, order)
        order = 0
        for inst in insts:
            dst, src = registers(inst["operands"])
            for r in src:
                if r in pending:
                    load, barrier, _ = pending[r]
                    if not inst["wait_mask"] >> barrier & 1:
                        return name, inst, load
            waited = inst["wait_mask"]
            for r in list(pending):
                if waited >> pending[r][1] & 1:
                    del pending[r]
            # DEPBAR.LE SBn, k: every instruction counted on barrier n but
            # the last k has written its registers (a barrier counts its
            # instructions and they complete in order: texture reads).
            m = re.search(r"\bSB(\d+), (0x[0-9a-f]+|\d+)", inst["operands"])
            if inst["opcode"].startswith("DEPBAR") and m:
                n, k = int(m.group(1)), int(m.group(2), 0)
                on = sorted({e[2] for e in pending.values() if e[1] == n})
                done = set(on[:max(0, len(on) - k)])
                for r in list(pending):
                    if pending[r][1] == n and pending[r][2] in done:
                        del pending[r]
            # A branch or a jump target ends what a straight-line reading
            # can follow.
            if inst["opcode"] in ("BRA", "EXIT", "RET", "CALL", "BSYNC",
                                  "WARPSYNC", "BAR"):
                pending.clear()
                continue
            if inst["write_barrier"] is not None and dst:
                order += 1
                for r in dst:
                    pending[r] = (inst, inst["write_barrier"], order)
            else:
                for r in dst:
                    pending.pop(r, None)
    return None


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sass")
    ap.add_argument("--function", default="",
                    help="only functions whose mangled name contains this")
    ap.add_argument("--from", dest="lo", default="0")
    ap.add_argument("--to", dest="hi", default="ffffffff")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args(argv)
    opener = gzip.open if a.sass.endswith(".gz") else open
    with opener(a.sass, "rt") as f:
        functions = parse(f.read())
    if not functions or not any(insts for _, insts in functions):
        print("sass_control.py: %s holds no SASS listing" % a.sass,
              file=sys.stderr)
        return 2
    if a.check:
        bad = check(functions)
        if bad:
            name, inst, load = bad
            print("sass_control.py: %s: %04x %s reads what %04x %s writes "
                  "without waiting on its barrier" % (
                      name, inst["addr"], inst["text"], load["addr"],
                      load["text"]), file=sys.stderr)
            return 1
        count = sum(len(i) for _, i in functions)
        print("%d instructions of %d functions: every reader of a load "
              "waits on its barrier" % (count, len(functions)))
        return 0
    lo, hi = int(a.lo, 16), int(a.hi, 16)
    for name, insts in functions:
        if a.function not in name:
            continue
        print(name)
        for inst in insts:
            if not lo <= inst["addr"] <= hi:
                continue
            waits = [str(b) for b in range(6) if inst["wait_mask"] >> b & 1]
            print("  %04x  %-48s stall %2d%s  wb %s  rb %s  wait %s" % (
                inst["addr"], inst["text"][:48], inst["stall"],
                " yield" if inst["yield"] else "      ",
                "-" if inst["write_barrier"] is None else inst["write_barrier"],
                "-" if inst["read_barrier"] is None else inst["read_barrier"],
                ",".join(waits) or "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
