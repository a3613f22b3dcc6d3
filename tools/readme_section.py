"""Replaces a generated section of a README: the text between a start and
an end marker line, shared by the scripts that write tables from recorded
results (tools/bench_table.py, tools/fuzz_table.py,
vulkan_ref/results/e10_table.py)."""
import sys


def replace_section(readme, start, end, body, tool):
    """Writes `body` between `start` and `end` in `readme`; returns the exit
    status (1, with a message naming `tool`, when a marker is missing)."""
    with open(readme) as f:
        text = f.read()
    if start not in text or end not in text:
        sys.stderr.write("%s: %s has no %s ... %s\n" % (tool, readme, start, end))
        return 1
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    with open(readme, "w") as f:
        f.write(head + start + "\n" + body + end + tail)
    return 0
