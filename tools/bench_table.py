#!/usr/bin/env python3
"""Makes the benchmark tables of bench/README.md from recorded runs.

A recorded run is a pair of Google Benchmark JSON files written with
--benchmark_out (bench/results/NAME.base.json and NAME.new.json: the same
bench binary source built at two commits, run back to back on one machine;
bench/run_ab.sh records them). For every benchmark in both files the table
gives the median warp instructions per second (items_per_second of the
*_median aggregate) of each and their ratio, plus each file's context (date,
host CPU count, load). A single run (bench/results/NAME.json) gives each
benchmark's wall time and its speed-up over the first of its family (thread
counts). When the files hold interleaved rounds (bench/run_ab.sh runs the
two binaries in turns, round by round, so that a machine whose speed drifts
slows both alike), the table adds the lowest and highest per-round ratio.
Usage:

  tools/bench_table.py bench/results/NAME            print the table
  tools/bench_table.py --merge OUT.json ROUND.json...
      merge single-repetition runs (one file per round) into OUT.json: the
      rounds' entries, and per benchmark a "median" aggregate over them
  tools/bench_table.py --update bench/README.md bench/results/NAME
      replace the text between "<!-- table NAME -->" and
      "<!-- end table NAME -->" in the README with the table
"""
import json
import os
import statistics
import sys

from readme_section import replace_section


def load(path):
    with open(path) as f:
        data = json.load(f)
    medians = {}
    for b in data.get("benchmarks", []):
        if b.get("aggregate_name") != "median":
            continue
        name = b["run_name"]
        medians[name] = b
    return data.get("context", {}), medians


def rate(b, key):
    v = b.get(key)
    return None if v is None else float(v)


def merge(out, rounds):
    """Writes OUT with the first round's context, every round's entries
    (each with its round number) and a median aggregate per benchmark."""
    context, entries = None, []
    for i, path in enumerate(rounds):
        with open(path) as f:
            data = json.load(f)
        if context is None:
            context = data.get("context", {})
        for b in data.get("benchmarks", []):
            if b.get("run_type", "iteration") != "iteration":
                continue
            b = dict(b)
            b["round"] = i
            entries.append(b)
    by_name = {}
    for b in entries:
        by_name.setdefault(b["run_name"], []).append(b)
    aggregates = []
    for name, runs in by_name.items():
        med = dict(runs[0])
        del med["round"]
        med.update(run_type="aggregate", aggregate_name="median",
                   repetitions=len(runs), name=name + "_median")
        for key in ("real_time", "cpu_time", "items_per_second"):
            values = [r[key] for r in runs if key in r]
            if values:
                med[key] = statistics.median(values)
        aggregates.append(med)
    context = dict(context or {})
    context["rounds"] = len(rounds)
    with open(out, "w") as f:
        json.dump({"context": context, "benchmarks": entries + aggregates},
                  f, indent=1)
        f.write("\n")


def round_ratios(path_base, path_new):
    """Per benchmark: (lowest, highest) ratio of new to base
    items_per_second over rounds run in turns, or nothing."""
    def per_round(path):
        with open(path) as f:
            data = json.load(f)
        out = {}
        for b in data.get("benchmarks", []):
            if "round" in b and "items_per_second" in b:
                out.setdefault(b["run_name"], {})[b["round"]] = float(
                    b["items_per_second"])
        return out
    base, new = per_round(path_base), per_round(path_new)
    ranges = {}
    for name in set(base) & set(new):
        ratios = [new[name][r] / base[name][r]
                  for r in set(base[name]) & set(new[name])]
        if ratios:
            ranges[name] = (min(ratios), max(ratios), len(ratios))
    return ranges


def single_table(prefix):
    """One run (NAME.json): each benchmark's wall time per iteration, its
    warp instructions per second, its speed-up over the first benchmark of
    the same family (the name before the first '/'), and its time over the
    table's first benchmark's."""
    ctx, runs = load(prefix + ".json")
    # Merged rounds (--merge): each round's time and speed-up too.
    with open(prefix + ".json") as f:
        raw = json.load(f).get("benchmarks", [])
    per_round = {}  # name -> {round: real_time}
    for b in raw:
        if "round" in b:
            per_round.setdefault(b["run_name"], {})[b["round"]] = b["real_time"]
    lines = ["Recorded %s, %s CPUs, load average %s; `%s.json`."
             % (ctx.get("date", "?"), ctx.get("num_cpus", "?"),
                ", ".join("%.1f" % x for x in ctx.get("load_avg", [])) or "?",
                os.path.relpath(prefix))]
    head = ("| benchmark | ms/iter (wall) | M warp instr/s | speed-up "
            "| time / first row's |")
    rule = "|---|---|---|---|---|"
    if per_round:
        lines[-1] += (" %s rounds of one run each: the median of the rounds, "
                      "and the lowest and highest of one round's time and "
                      "speed-up." % ctx.get("rounds", "?"))
        head += " ms/iter range | speed-up range |"
        rule += "---|---|"
    lines += ["", head, rule]
    first = {}
    first_name = {}
    first_row = None
    for name, b in runs.items():  # in the order the run wrote them
        family = name.split("/")[0]
        first.setdefault(family, b["real_time"])
        first_name.setdefault(family, name)
        if first_row is None:
            first_row = b["real_time"]
        items = rate(b, "items_per_second")
        row = ("| %s | %s | %s | %.2f | %.2f |"
               % (name,
                  "%.1f" % b["real_time"] if b["real_time"] >= 1
                  else "%.3f" % b["real_time"],
                  "%.2f" % (items * 1e-6) if items else "-",
                  first[family] / b["real_time"],
                  b["real_time"] / first_row))
        if per_round:
            mine = per_round.get(name, {})
            base = per_round.get(first_name[family], {})
            ups = [base[r] / t for r, t in mine.items() if r in base]
            times = list(mine.values())
            row += (" %.1f-%.1f | %.2f-%.2f |"
                    % (min(times), max(times), min(ups), max(ups))
                    if times and ups else " - | - |")
        lines.append(row)
    return "\n".join(lines) + "\n"


def table(prefix):
    if os.path.exists(prefix + ".json"):
        return single_table(prefix)
    base_ctx, base = load(prefix + ".base.json")
    new_ctx, new = load(prefix + ".new.json")
    ranges = round_ratios(prefix + ".base.json", prefix + ".new.json")
    lines = []
    lines.append(
        "Recorded %s (base) and %s (new), %s CPUs, load average %s; "
        "`%s.{base,new}.json`."
        % (base_ctx.get("date", "?"), new_ctx.get("date", "?"),
           new_ctx.get("num_cpus", "?"),
           ", ".join("%.1f" % x for x in new_ctx.get("load_avg", [])) or "?",
           os.path.relpath(prefix)))
    if ranges:
        lines[-1] += (" %s rounds, base and new in turns; ratio: of the "
                      "medians, and the lowest and highest of one round's."
                      % new_ctx.get("rounds", "?"))
    lines.append("")
    head = ("| benchmark | base M warp instr/s | new M warp instr/s "
            "| ratio | base ms/iter | new ms/iter |")
    rule = "|---|---|---|---|---|---|"
    if ranges:
        head += " ratio range |"
        rule += "---|"
    lines += [head, rule]
    for name in sorted(set(base) | set(new)):
        b, n = base.get(name), new.get(name)
        def fmt(x, scale=1e-6):
            return "-" if x is None else "%.1f" % (x * scale)
        br = rate(b, "items_per_second") if b else None
        nr = rate(n, "items_per_second") if n else None
        ratio = "%.2f" % (nr / br) if br and nr else "-"
        bt = "%.1f" % b["real_time"] if b else "-"
        nt = "%.1f" % n["real_time"] if n else "-"
        row = ("| %s | %s | %s | %s | %s | %s |"
               % (name, fmt(br), fmt(nr), ratio, bt, nt))
        if ranges:
            lo_hi = ranges.get(name)
            row += (" %.2f-%.2f |" % lo_hi[:2]) if lo_hi else " - |"
        lines.append(row)
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) == 2 and argv[1] not in ("-h", "--help"):
        sys.stdout.write(table(argv[1]))
        return 0
    if len(argv) >= 4 and argv[1] == "--merge":
        merge(argv[2], argv[3:])
        return 0
    if len(argv) == 4 and argv[1] == "--update":
        readme, prefix = argv[2], argv[3]
        name = os.path.basename(prefix)
        start, end = "<!-- table %s -->" % name, "<!-- end table %s -->" % name
        return replace_section(readme, start, end, table(prefix), "bench_table.py")
    sys.stderr.write(__doc__)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
