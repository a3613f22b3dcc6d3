#!/usr/bin/env python3
"""Makes the tables of vulkan_ref/results/h200/README.md from one run of
vulkan_ref/results/run_corpus.sh (a directory with fingerprint.txt,
devices.txt and corpus_reports.jsonl.gz). Python 3 standard library only.

  vulkan_ref/results/summarize.py RUN_DIR [--corpus DIR]
      print the tables (markdown)
  vulkan_ref/results/summarize.py --update README.md RUN_DIR [--corpus DIR]
      replace the text between "<!-- summary -->" and "<!-- end summary -->"
      in README.md with them

--corpus: the conformance corpus the run used (default: the first of
$WARPSIM_CONFORMANCE, REPO/../shared/conformance, /work/shared/conformance
that exists). It is read only to find the rectangle each DRAW_RECT /
DRAW_GRID command covers (for the fs_invocations check); samples/ come from
this repository.
"""
import collections
import gzip
import json
import math
import os
import re
import statistics
import sys

STAGES = ("vertex", "fragment", "compute")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BEGIN, END = "<!-- summary -->", "<!-- end summary -->"
EXIT_NAMES = {0: "passed", 1: "failed", 2: "invalid/error", 3: "unsupported"}


def load_run(run_dir):
    with gzip.open(os.path.join(run_dir, "corpus_reports.jsonl.gz"), "rt") as f:
        return [json.loads(line) for line in f]


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def folder_of(rel):
    parts = rel.split("/")
    if parts[0] == "samples":
        return "samples"
    return "/".join(parts[:min(3, len(parts) - 1)])


def median(values):
    m = statistics.median(values)
    return ("%d" % m) if m == int(m) else ("%.1f" % m)


def row(cells):
    return "| " + " | ".join(str(c) for c in cells) + " |"


def provenance(run_dir, entries):
    lines = ["### Provenance", "",
             "Run directory `%s`: %d files."
             % (os.path.relpath(run_dir, REPO), len(entries)), ""]
    fp = read_text(os.path.join(run_dir, "fingerprint.txt")).splitlines()
    lines += ["| item | value |", "|---|---|"]
    csv_head = None
    for line in fp:
        if csv_head is not None:
            for k, v in zip(csv_head, line.split(", ")):
                lines.append(row(["nvidia-smi " + k.strip(), v.strip()]))
            csv_head = None
        elif line.startswith("name, driver_version"):
            csv_head = line.split(", ")
        elif ": " in line:
            k, v = line.split(": ", 1)
            lines.append(row([k, "`%s`" % v if k == "command" else v]))
    for line in read_text(os.path.join(run_dir, "devices.txt")).splitlines():
        lines.append(row(["warpsim-vkref devices", line]))
    return lines


def outcomes(entries):
    by_folder = collections.OrderedDict()
    for e in sorted(entries, key=lambda e: (folder_of(e["file"]) != "samples",
                                            folder_of(e["file"]))):
        by_folder.setdefault(folder_of(e["file"]), []).append(e)
    head = ["folder", "files", "passed (0)", "failed (1)",
            "of which *.expect_fail.*", "invalid/error (2)",
            "unsupported (3)", "other"]
    lines = ["### Outcome per folder", "",
             "Exit codes of `warpsim-vkref run`; a folder is `samples` or the "
             "first two path components under `conformance/`. Files named "
             "`*.expect_fail.*` are meant to fail an EXPECT.", "",
             row(head), "|---" * len(head) + "|"]
    total = collections.Counter()

    def counts(es):
        c = collections.Counter()
        for e in es:
            rc = e.get("exit_code")
            c["files"] += 1
            c[rc if rc in EXIT_NAMES else "other"] += 1
            if rc == 1 and ".expect_fail." in e["file"]:
                c["xf"] += 1
        return c
    for folder, es in by_folder.items():
        c = counts(es)
        total.update(c)
        lines.append(row([folder, c["files"], c[0], c[1], c["xf"], c[2], c[3],
                          c["other"]]))
    lines.append(row(["**all**", total["files"], total[0], total[1],
                      total["xf"], total[2], total[3], total["other"]]))
    lines += ["", "Files that failed or were invalid:", "",
              "| file | exit | first failed EXPECT line / diagnostic |",
              "|---|---|---|"]
    for e in entries:
        rc = e.get("exit_code")
        if rc in (1, 2) or rc not in EXIT_NAMES:
            rep = e.get("report") or {}
            failed = [x for x in rep.get("expectations", []) if not x.get("passed")]
            what = ""
            if failed:
                what = "%d of %d EXPECTs fail, first at line %s" % (
                    len(failed), len(rep.get("expectations", [])), failed[0].get("line"))
            elif rep.get("diagnostic"):
                what = rep["diagnostic"].get("message", "")
            elif "log_tail" in e:
                what = "no report"
            lines.append(row(["`%s`" % e["file"], rc, what.replace("|", "\\|")]))
    return lines


def unsupported(entries):
    groups = collections.OrderedDict()
    for e in entries:
        if e.get("exit_code") != 3:
            continue
        msg = ((e.get("report") or {}).get("diagnostic") or {}).get("message", "?")
        variants = re.findall(r'"[^"]*"|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b', msg)
        key = re.sub(r'"[^"]*"', '"…"', msg)
        key = re.sub(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b", "…", key)
        if key.startswith("device extension VK_") or key.startswith("device feature"):
            key, variants = msg, []
        g = groups.setdefault(key, [0, set()])
        g[0] += 1
        g[1].update(v for v in variants if not v.startswith('"'))
    lines = ["### Unsupported (exit 3), by reason", "",
             "The diagnostic's message, with shader names and format names "
             "replaced by `…` (the formats are listed).", "",
             "| reason | files | formats |", "|---|---|---|"]
    for key, (n, variants) in sorted(groups.items(), key=lambda kv: (-kv[1][0], kv[0])):
        lines.append(row([key.replace("|", "\\|"), n, ", ".join(sorted(variants))]))
    return lines


def executables(entries):
    out = []
    for e in entries:
        for p in (e.get("report") or {}).get("pipelines", []):
            if p.get("stage") in STAGES and p.get("executable_statistics"):
                out.append((e, p))
    return out


def register_tables(entries):
    exes = executables(entries)
    regs = {s: [p["executable_statistics"]["Register Count"] for _, p in exes
                if p["stage"] == s and "Register Count" in p["executable_statistics"]]
            for s in STAGES}
    every = sorted(v for s in STAGES for v in regs[s])
    lines = ["### NVIDIA register count per stage", "",
             "One count per `pipelines[]` entry with executable statistics "
             "(a shader attached to several pipelines counts once per "
             "pipeline; entries of files that later stopped as unsupported "
             "or failed count too).", "",
             row(["Register Count"] + list(STAGES) + ["all"]),
             "|---" * (len(STAGES) + 2) + "|"]
    for v in sorted(set(every)):
        lines.append(row([v] + [regs[s].count(v) or "" for s in STAGES]
                         + [every.count(v)]))
    for name, fn in (("**shaders**", len), ("**min**", min),
                     ("**median**", median), ("**max**", max)):
        lines.append(row([name] + [fn(regs[s]) if regs[s] else "" for s in STAGES]
                         + [fn(every)]))
    return lines, regs, every, exes


def other_stats(exes):
    names = sorted({k for _, p in exes for k in p["executable_statistics"]}
                   - {"Register Count"})
    lines = ["### Other executable statistics", "",
             "Range over the same entries: shaders reporting it, min, median, "
             "max, number of distinct values.", "",
             "| statistic | stage | shaders | min | median | max | distinct |",
             "|---|---|---|---|---|---|---|"]
    for name in names:
        for s in STAGES:
            vals = [p["executable_statistics"][name] for _, p in exes
                    if p["stage"] == s and name in p["executable_statistics"]]
            if vals:
                lines.append(row([name, s, len(vals), min(vals), median(vals),
                                  max(vals), len(set(vals))]))
    sub = collections.Counter((p["stage"], p.get("subgroup_size")) for _, p in exes)
    lines += ["", "Subgroup size: " + ", ".join(
        "%s %s (%d)" % (s, z, n) for (s, z), n in sorted(sub.items())) + "."]
    return lines


# --- fs_invocations against the pixels a DRAW_RECT / DRAW_GRID covers -------

def covered(pos, size, fb):
    """Pixel centres i + 0.5 with pos <= i + 0.5 < pos + size, inside 0..fb."""
    lo = max(0, math.ceil(pos - 0.5))
    hi = min(fb, math.ceil(pos + size - 0.5))
    return max(0, hi - lo)


def rect_draws(path):
    """{line: (command, pipeline, pixels)} for the RUN ... DRAW_RECT/DRAW_GRID
    lines of an AmberScript file, with the pipeline's FRAMEBUFFER_SIZE
    (Amber's default 250x250; the last PIPELINE or DERIVE_PIPELINE opened
    is the one a FRAMEBUFFER_SIZE line belongs to)."""
    fbs, current, out = {}, None, {}
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for n, line in enumerate(lines, 1):
        t = line.split()
        if not t:
            continue
        if t[0] == "PIPELINE" and len(t) >= 3:
            current = t[2]
            fbs[current] = (250, 250)
        elif t[0] == "DERIVE_PIPELINE" and len(t) >= 4:
            current = t[1]
            fbs[current] = fbs.get(t[3], (250, 250))
        elif t[0] == "FRAMEBUFFER_SIZE" and current and len(t) >= 3:
            fbs[current] = (int(t[1]), int(t[2]))
        elif (t[0] == "RUN" and len(t) >= 9 and t[2] in ("DRAW_RECT", "DRAW_GRID")
              and t[3] == "POS" and t[6] == "SIZE"):
            try:
                x, y, w, h = (float(v) for v in (t[4], t[5], t[7], t[8]))
            except ValueError:
                continue
            fw, fh = fbs.get(t[1], (250, 250))
            out[n] = (" ".join(t[2:]), t[1], covered(x, w, fw) * covered(y, h, fh))
    return out


def fs_invocation_facts(entries, corpus):
    rows_, found, missing = [], 0, 0
    for e in entries:
        rel = e["file"]
        if not rel.endswith(".amber"):
            continue
        head, _, rest = rel.partition("/")
        src = (os.path.join(REPO, "samples", rest) if head == "samples"
               else os.path.join(corpus or "", rest))
        draws = (e.get("report") or {}).get("draws", [])
        if not draws:
            continue
        rects = rect_draws(src) if (head == "samples" or corpus) else None
        if rects is None:
            missing += 1
            continue
        found += 1
        for d in draws:
            r = rects.get(d.get("line"))
            if r and "fs_invocations" in d:
                rows_.append((rel, d["line"], r[1], r[0], r[2], d["fs_invocations"],
                              d.get("primitives_in")))
    return rows_, found, missing


def facts(entries, regs, every, exes, corpus):
    lines = ["### What the data shows", ""]
    lo = min(every)
    gcd = 0
    for v in every:
        gcd = math.gcd(gcd, v - lo)
    at_floor = every.count(lo)
    lines.append(
        "- Register Count: the lowest value is %d, reported by %d of %d "
        "shaders (%s). The differences from %d have greatest common divisor "
        "%d: %s. Values seen: %s."
        % (lo, at_floor, len(every),
           ", ".join("%s %d of %d" % (s, regs[s].count(lo), len(regs[s]))
                     for s in STAGES if regs[s]),
           lo, gcd,
           "the driver reports counts in steps of one register, not rounded "
           "to a larger allocation granule" if gcd == 1 else
           "counts come in steps of %d" % gcd,
           ", ".join(str(v) for v in sorted(set(every)))))
    top = sorted(((p["executable_statistics"]["Register Count"], e["file"], p["name"],
                   p["stage"], p["executable_statistics"].get("Local Memory Size"),
                   p["executable_statistics"].get("Binary Size")) for e, p in exes
                  if "Register Count" in p["executable_statistics"]), reverse=True)
    hi = [t for t in top if t[0] == top[0][0]]
    lines.append("- The highest count, %d, belongs to: %s." % (
        top[0][0], "; ".join("`%s` (%s, %s; Local Memory Size %s, Binary Size %s)"
                             % (f, n, s, lm, b) for _, f, n, s, lm, b in hi)))
    bs = [p["executable_statistics"]["Binary Size"] for _, p in exes
          if "Binary Size" in p["executable_statistics"]]
    if bs:
        g = 0
        for v in bs:
            g = math.gcd(g, v)
        lines.append("- Binary Size is always a multiple of %d bytes." % g)
    lm = [p["executable_statistics"]["Local Memory Size"] for _, p in exes
          if "Local Memory Size" in p["executable_statistics"]]
    if lm:
        base = 1 << 36
        if min(lm) >= base:
            rest = sorted({v - base for v in lm})
            lines.append(
                "- Local Memory Size is at least 2^36 (%d) in every shader; "
                "less 2^36, the values are %s, %d of %d shaders at "
                "exactly 2^36. The raw value is not a plain byte count."
                % (base, ", ".join(str(v) for v in rest),
                   lm.count(base), len(lm)))
        else:
            lines.append("- Local Memory Size ranges from %d to %d." % (min(lm), max(lm)))
    for name in ("Stack Size", "Output Count"):
        vals = {p["executable_statistics"][name] for _, p in exes
                if name in p["executable_statistics"]}
        if len(vals) == 1:
            lines.append("- %s is %s in every shader that reports it." % (
                name, vals.pop()))
    rows_, found, missing = fs_invocation_facts(entries, corpus)
    eq = sum(1 for r in rows_ if r[5] == r[4])
    less = [r for r in rows_ if r[5] < r[4]]
    more = [r for r in rows_ if r[5] > r[4]]
    lines.append(
        "- fs_invocations against the pixels a `DRAW_RECT` / `DRAW_GRID` "
        "covers (its POS/SIZE clipped to the pipeline's FRAMEBUFFER_SIZE; "
        "%d .amber files with draws read%s): %d draws, fs_invocations equal "
        "to the pixel count in %d, below it in %d, above it in %d."
        % (found, ", %d not found" % missing if missing else "",
           len(rows_), eq, len(less), len(more)))
    lines += ["", "The samples' draws (each pixel covered once; in "
              "`big_vs_tiny_triangles`, `tiny` is 2 triangles per 2x2-pixel "
              "cell, so every triangle touches a whole quad and shading its "
              "helper lanes would give 4 invocations per triangle):", "",
              "| file | line | pipeline | command | pixels | primitives_in "
              "| fs_invocations |", "|---|---|---|---|---|---|---|"]
    for r in rows_:
        if r[0].startswith("samples/"):
            lines.append(row(["`%s`" % r[0], r[1], r[2], "`%s`" % r[3], r[4],
                              r[6], r[5]]))
    for title, rs in (("more", more), ("fewer", less)):
        if not rs:
            continue
        lines += ["", "Draws with %s invocations than pixels (first 10 of %d):"
                  % (title, len(rs)), "",
                  "| file | line | command | pixels | fs_invocations |",
                  "|---|---|---|---|---|"]
        for r in rs[:10]:
            lines.append(row(["`%s`" % r[0], r[1], "`%s`" % r[3], r[4], r[5]]))
    tiny = [r for r in rows_ if r[0] == "samples/graphics/big_vs_tiny_triangles.amber"]
    div = [r for r in rows_ if r[0] == "samples/graphics/divergent_branches.amber"]
    if div and all(r[5] == r[4] for r in div):
        lines += ["", "In `divergent_branches` every draw's fs_invocations "
                  "equals its pixel count (%s)." % ", ".join(
                      "%s: %d" % (r[2], r[5]) for r in div)]
    if tiny:
        lines += ["In `big_vs_tiny_triangles`: %s. %s" % (
            ", ".join("%s: %d primitives, %d pixels, %d invocations"
                      % (r[2], r[6] or 0, r[4], r[5]) for r in tiny),
            "Equal counts: the H200's fs_invocations does not include helper "
            "lanes." if all(r[5] == r[4] for r in tiny) else
            "Counts differ from the pixels.")]
    return lines


def default_corpus():
    for c in (os.environ.get("WARPSIM_CONFORMANCE"),
              os.path.join(REPO, "..", "shared", "conformance"),
              "/work/shared/conformance"):
        if c and os.path.isdir(c):
            return c
    return None


def render(run_dir, corpus):
    entries = load_run(run_dir)
    reg_lines, regs, every, exes = register_tables(entries)
    parts = [provenance(run_dir, entries), outcomes(entries), unsupported(entries),
             reg_lines, other_stats(exes), facts(entries, regs, every, exes, corpus)]
    text = "\n\n".join("\n".join(p) for p in parts)
    return ("<!-- generated by vulkan_ref/results/summarize.py; do not edit -->\n\n"
            + text + "\n")


def update(readme, text):
    with open(readme) as f:
        content = f.read()
    start, end = content.find(BEGIN), content.find(END)
    if start < 0 or end < start:
        sys.exit("summarize.py: %s has no %s ... %s" % (readme, BEGIN, END))
    content = content[:start + len(BEGIN)] + "\n" + text + content[end:]
    with open(readme, "w") as f:
        f.write(content)


def main(argv):
    args = argv[1:]
    corpus = None
    if "--corpus" in args:
        k = args.index("--corpus")
        corpus = args[k + 1]
        del args[k:k + 2]
    else:
        corpus = default_corpus()
    if len(args) == 3 and args[0] == "--update":
        update(args[1], render(args[2], corpus))
        return 0
    if len(args) == 1:
        sys.stdout.write(render(args[0], corpus))
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
