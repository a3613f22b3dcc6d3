#!/usr/bin/env python3
"""Writes the README's `warpsim compare` example: the command's real output
between the markers <!-- compare example --> and <!-- end compare example
-->, so that a change of the emulator updates it (and --check, the
`readme_compare_example` test, fails when the README is stale).

    tools/readme_compare_example.py [--warpsim build/warpsim] [--check]
"""
import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from readme_section import replace_section  # noqa: E402

START = "<!-- compare example -->"
END = "<!-- end compare example -->"
ARGS = ["compare", "samples/branch_costs/granularity.amber",
        "-D", "VARIANT=0,4", "-D", "TRIPS=64", "--timing", "--branches", "2"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warpsim", default=str(ROOT / "build" / "warpsim"))
    ap.add_argument("--readme", default=str(ROOT / "README.md"))
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    r = subprocess.run([args.warpsim] + ARGS + ["--shader-cache", "off"],
                       cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write("warpsim compare failed (%d): %s%s" % (
            r.returncode, r.stdout, r.stderr))
        return 1
    body = "```\n$ build/warpsim %s\n%s```\n" % (" ".join(ARGS), r.stdout)
    text = Path(args.readme).read_text()
    if args.check:
        want = START + "\n" + body + END
        if want not in text:
            sys.stderr.write("%s: the compare example is stale (run "
                             "tools/readme_compare_example.py)\n" % args.readme)
            return 1
        return 0
    return replace_section(args.readme, START, END, body,
                           "readme_compare_example.py")


if __name__ == "__main__":
    sys.exit(main())
