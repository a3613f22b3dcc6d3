#!/usr/bin/env python3
"""Makes the fuzz-run tables of fuzz/README.md from recorded runs.

A recorded run is a JSON-lines file written by `fuzz/run.sh -r FILE` (one
object per target run: target, commit, start and end, executions, coverage,
peak memory, exit status and the reproducers it wrote). Usage:

  tools/fuzz_table.py fuzz/results/NAME.jsonl          print the table
  tools/fuzz_table.py --update fuzz/README.md fuzz/results/NAME.jsonl
      replace the text between "<!-- fuzz table NAME -->" and
      "<!-- end fuzz table NAME -->" in the README with the table
"""
import datetime
import json
import os
import sys

from readme_section import replace_section


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def hhmm(stamp):
    # 2026-11-30T12:41:05Z -> 12:41
    return stamp[11:16] if len(stamp) >= 16 else stamp


def table(path):
    runs = load(path)
    lines = ["Recorded by `fuzz/run.sh -r %s`; %s. Times are UTC; `cov` is "
             "libFuzzer's count of covered edges in all instrumented code at "
             "the run's start and end."
             % (os.path.relpath(path),
                ", ".join(sorted({"commit %s" % r.get("commit", "?")
                                  for r in runs}))), "",
             "| target | run (UTC) | minutes | executions | cov start → end "
             "| peak RSS MB | load avg at end | exit | found |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        elapsed = r.get("elapsed_s")
        if elapsed is None:  # a run that crashed prints no final "Done"
            try:
                span = (datetime.datetime.fromisoformat(r["ended"][:19]) -
                        datetime.datetime.fromisoformat(r["started"][:19]))
                elapsed = span.total_seconds()
            except (KeyError, ValueError):
                pass
        minutes = "%.1f" % (elapsed / 60.0) if elapsed is not None else "?"
        found = ", ".join("`%s`" % f for f in r.get("found", [])) or "nothing"
        lines.append("| `%s` | %s %s–%s | %s | %s | %s → %s | %s | %s | %s | %s |"
                     % (r["target"], r.get("started", "?")[:10],
                        hhmm(r.get("started", "?")), hhmm(r.get("ended", "?")),
                        minutes, "{:,}".format(r["executions"])
                        if r.get("executions") is not None else "?",
                        r.get("cov_start", "?"), r.get("cov", "?"),
                        r.get("peak_rss_mb", "?"), r.get("load_avg", "?"),
                        r.get("rc", "?"), found))
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) == 2 and argv[1] not in ("-h", "--help"):
        sys.stdout.write(table(argv[1]))
        return 0
    if len(argv) == 4 and argv[1] == "--update":
        readme, path = argv[2], argv[3]
        name = os.path.splitext(os.path.basename(path))[0]
        start = "<!-- fuzz table %s -->" % name
        end = "<!-- end fuzz table %s -->" % name
        return replace_section(readme, start, end, table(path), "fuzz_table.py")
    sys.stderr.write(__doc__)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
