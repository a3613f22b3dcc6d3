"""What the experiments of samples/experiments/ share: running warpsim on a
generated scene, reading the H200 records, writing a result file with its
provenance, the figures (python3-matplotlib, installed by tools/setup.sh),
and the generated tables of the READMEs.

Standard library only, but for the figures.
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from readme_section import replace_section  # noqa: E402

CUDA_RUN = os.path.join(ROOT, "cuda_ref", "results", "h200", "2026-11-30")


def rel(path):
    return os.path.relpath(path, ROOT)


def warpsim_binary(args_path=None):
    return args_path or os.path.join(ROOT, "build", "warpsim")


def run_scene(warpsim, text, extra_args, name="scene"):
    """Runs AmberScript `text` with `warpsim run --timing` (and
    `extra_args`); returns its JSON report. The scene must pass."""
    with tempfile.TemporaryDirectory() as tmp:
        scene = os.path.join(tmp, name + ".amber")
        report = os.path.join(tmp, "report.json")
        with open(scene, "w") as f:
            f.write(text)
        cmd = [warpsim, "run", scene, "--timing", "--quiet",
               "--shader-cache", "off", "--json", report] + extra_args
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("%s failed (exit %d): %s%s" % (
                " ".join(cmd), r.returncode, r.stdout, r.stderr))
        with open(report) as f:
            return json.load(f)


def cuda_record(name):
    with open(os.path.join(CUDA_RUN, name)) as f:
        return json.load(f)


def commit():
    def git(*a):
        return subprocess.run(["git", "-C", ROOT] + list(a),
                              capture_output=True, text=True).stdout.strip()
    c = git("rev-parse", "--short=12", "HEAD")
    return c + ("-dirty" if git("status", "--porcelain", "--",
                                "emulator", "shaders") else "")


def write_result(path, data, command):
    data = dict(data)
    data["provenance"] = {
        "warpsim_commit": commit(),
        "date": datetime.datetime.now(datetime.timezone.utc)
        .strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": command,
        "machine": "the emulator (warpsim, h200 preset) on the machine "
                   "that ran the command; the H200 values are the cited "
                   "records'",
    }
    with open(path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")


def pyplot():
    """matplotlib.pyplot with a file-only backend, or exits saying which
    Debian package provides it."""
    try:
        import matplotlib
    except ImportError:
        raise SystemExit("the figures need matplotlib: Debian's "
                         "python3-matplotlib (tools/setup.sh installs it); "
                         "--check runs without figures")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def update_readme(path, section, text, tool):
    """Writes `text` between <!-- table SECTION --> and its end marker."""
    return replace_section(path, "<!-- table %s -->" % section,
                           "<!-- end table %s -->" % section, text, tool)


def readme_is_current(path, section, text):
    with open(path) as f:
        return ("<!-- table %s -->\n%s<!-- end table %s -->"
                % (section, text, section)) in f.read()
