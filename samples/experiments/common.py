"""What the experiments of samples/experiments/ share: running warpsim on a
generated scene, reading the H200 records, writing a result file with its
provenance, the figures (python3-matplotlib, installed by tools/setup.sh),
and the generated tables of the READMEs.

Standard library only, but for the figures.
"""
import datetime
import json
import os
import shutil
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


def check_run(cmd, cwd=None):
    """Runs `cmd`; exits saying what failed unless it exits 0."""
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if r.returncode != 0:
        raise SystemExit("%s failed (exit %d): %s%s" % (
            " ".join(cmd), r.returncode, r.stdout, r.stderr))


def run_scene(warpsim, text, extra_args, name="scene"):
    """Runs AmberScript `text` with `warpsim run --timing` (and
    `extra_args`); returns its JSON report. The scene must pass."""
    with tempfile.TemporaryDirectory() as tmp:
        scene = os.path.join(tmp, name + ".amber")
        report = os.path.join(tmp, "report.json")
        with open(scene, "w") as f:
            f.write(text)
        check_run([warpsim, "run", scene, "--timing", "--quiet",
                   "--shader-cache", "off", "--json", report] + extra_args)
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


def experiment_main(argv, here, doc, measure, failures, table, figures,
                    summary, screenshots=None):
    """The command line every experiment's run.py has:

      run.py [--warpsim BIN]          measure, write results.json (with
                                      provenance), figures/ and the tables
                                      of README.md and README.zh.md
      run.py --check [--warpsim BIN]  measure without figures; exit 1 when
                                      failures(data) names any or a README
                                      table is not what results.json gives

    measure(warpsim) -> data; failures(data) -> [messages]; table(data,
    "en" | "zh") -> the README table; figures(data) writes the PNGs;
    screenshots(warpsim) writes the visualizer's (screenshot()); summary(data)
    -> the headline line --check prints. The README tables
    sit between <!-- table eNN --> and its end marker, NN the folder's."""
    import argparse
    name = os.path.basename(here)
    section = "e" + name.split("_")[0]
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--warpsim")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv[1:])
    data = measure(warpsim_binary(args.warpsim))
    bad = failures(data)
    for msg in bad:
        print("%s: outside the stated agreement: %s" % (name, msg))
    result = os.path.join(here, "results.json")
    readmes = (("en", "README.md"), ("zh", "README.zh.md"))
    if args.check:
        with open(result) as f:
            recorded = json.load(f)
        for lang, readme in readmes:
            if not readme_is_current(os.path.join(here, readme), section,
                                     table(recorded, lang)):
                print("%s: the table of %s is stale; rerun run.py"
                      % (name, readme))
                bad.append(readme)
        print("%s: %s" % (name, summary(data)))
        return 1 if bad else 0
    write_result(result, data, rel(os.path.join(here, "run.py")))
    with open(result) as f:
        data = json.load(f)
    figures(data)
    if screenshots is not None:
        screenshots(warpsim_binary(args.warpsim))
    for lang, readme in readmes:
        update_readme(os.path.join(here, readme), section, table(data, lang),
                      name + "/run.py")
    return 1 if bad else 0


def recorded_line(data, here, lang, sources):
    """The last line of an experiment's README table: where its numbers
    are recorded (results.json, the warpsim commit and date) and the H200
    records (`sources`, already formatted)."""
    p = data["provenance"]
    result = rel(os.path.join(here, "results.json"))
    if lang == "zh":
        return "记录：`%s`（warpsim %s，%s）；H200：%s。" % (
            result, p["warpsim_commit"], p["date"], sources)
    return "Recorded: `%s` (warpsim %s, %s); H200: %s." % (
        result, p["warpsim_commit"], p["date"], sources)


def table_text(lines, data, here, lang):
    """An experiment's README table: `lines`, then the recorded line with
    data["h200_source"] as the H200 record."""
    return "\n".join(lines + ["", recorded_line(
        data, here, lang, "`%s`" % data["h200_source"])]) + "\n"


def new_figure(here, size=(7, 4.2), columns=1):
    """pyplot, a figure and its axes, and the experiment's figures/ folder
    (made)."""
    plt = pyplot()
    out = os.path.join(here, "figures")
    os.makedirs(out, exist_ok=True)
    fig, axes = plt.subplots(1, columns, figsize=size)
    return plt, fig, axes, out


def save_figure(fig, out, name):
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=110)


def viz_binary(warpsim):
    """warpsim-viz beside the warpsim binary used."""
    return os.path.join(os.path.dirname(os.path.abspath(warpsim)),
                        "warpsim-viz")


def load_trace(path):
    """The events of a trace warpsim wrote (Chrome trace-event JSON)."""
    with open(path) as f:
        t = json.load(f)
    return t["traceEvents"] if isinstance(t, dict) else t


def _scene_file(scene, tmp):
    """`scene`'s path: the path itself, or for AmberScript text a file
    written into the directory `tmp`."""
    if not scene.startswith("#!amber"):
        return scene
    path = os.path.join(tmp, "scene.amber")
    with open(path, "w") as f:
        f.write(scene)
    return path


def trace_events(warpsim, scene):
    """Runs `scene` (a path, or AmberScript text) in timing mode with a
    trace of every warp (--trace-detail warps); returns the trace's
    events."""
    with tempfile.TemporaryDirectory() as tmp:
        scene = _scene_file(scene, tmp)
        trace = os.path.join(tmp, "trace.json")
        check_run([warpsim, "run", scene, "--timing", "--quiet",
                   "--shader-cache", "off", "--trace", trace,
                   "--trace-detail", "warps"])
        return load_trace(trace)


def _runs(trace_path):
    """The (start, end) cycles of each draw and dispatch of a trace, in
    order."""
    events = load_trace(trace_path)
    return sorted((e["ts"], e["ts"] + e["dur"]) for e in events
                  if e.get("ph") == "X" and "run" in e.get("args", {}) and
                  e.get("name", "").startswith(("draw ", "dispatch ")))


def screenshot(warpsim, here, name, scene, view, viz_args=(),
               run_args=(), size=(1280, 780), focus=None):
    """A screenshot of warpsim-viz (figures/NAME.png): `scene` (a path, or
    AmberScript text) run by `warpsim run --timing` with `run_args` and a
    trace of every instruction, then opened in warpsim-viz's `view` with
    `viz_args` (--range, --cycle, --colour-by, --overlay, --opacity, --sm,
    --by-warp), under
    Xvfb and Mesa's software OpenGL (tools/setup.sh installs both).
    focus=(N, F[, W]): the views show draw or dispatch N of the run (-1:
    the last), the cursor at fraction F of it; W: only that fraction of it,
    around the cursor."""
    viz = viz_binary(warpsim)
    if not os.path.exists(viz):
        raise SystemExit("the screenshots need warpsim-viz beside %s "
                         "(tools/build.sh builds it)" % warpsim)
    if shutil.which("xvfb-run") is None:
        raise SystemExit("the screenshots need xvfb-run: Debian's xvfb "
                         "(tools/setup.sh installs it)")
    out = os.path.join(here, "figures")
    os.makedirs(out, exist_ok=True)
    png = os.path.join(out, name + ".png")
    with tempfile.TemporaryDirectory() as tmp:
        scene = _scene_file(scene, tmp)
        # Run from `tmp` with a relative run directory: the viewer's title
        # names the screenshot, not a temporary path.
        run = name
        os.makedirs(os.path.join(tmp, run))
        check_run([os.path.abspath(warpsim), "run", os.path.abspath(scene),
                   "--timing", "--quiet", "--shader-cache", "off",
                   "--out", run, "--json", os.path.join(run, "report.json"),
                   "--trace", os.path.join(run, "trace.json"),
                   "--trace-detail", "instructions"] + list(run_args), tmp)
        if focus is not None:
            begin, end = _runs(os.path.join(tmp, run, "trace.json"))[focus[0]]
            cursor = begin + focus[1] * (end - begin)
            half = (focus[2] if len(focus) > 2 else 1) * (end - begin) / 2
            begin, end = max(begin, cursor - half), min(end, cursor + half)
            viz_args = ["--range", "%d:%d" % (begin, end), "--cycle",
                        str(int(cursor))] + list(viz_args)
        check_run(["xvfb-run", "-a", "-s", "-screen 0 %dx%dx24" % size,
                   "env", "LIBGL_ALWAYS_SOFTWARE=1", viz, "--open", run,
                   "--view", view, "--size", "%dx%d" % size,
                   "--screenshot", png] + list(viz_args), tmp)
    print("wrote %s" % rel(png))
    return png
