"""Replaces a generated section of a README: the text between a start and
an end marker line, shared by the scripts that write tables from recorded
results (tools/bench_table.py, tools/fuzz_table.py,
vulkan_ref/results/e10_table.py, samples/*/compare.py)."""
import argparse
import json
import os
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


def table_section_main(text, section, tool, check=None, update=None):
    """What a `table RECORD [--update README | --check README]` command
    does with a record's table `text`: --check exits 1 (with a message
    naming `tool`) when README's <!-- table SECTION --> ... <!-- end table
    SECTION --> is not `text`, --update writes it there, and without either
    it is printed. Returns the exit status."""
    start, end = "<!-- table %s -->" % section, "<!-- end table %s -->" % section
    if check:
        with open(check) as f:
            if (start + "\n" + text + end) not in f.read():
                sys.stderr.write("%s: the %s table of %s is stale; rerun "
                                 "with --update\n" % (tool, section, check))
                return 1
        return 0
    if update:
        return replace_section(update, start, end, text, tool)
    sys.stdout.write(text)
    return 0


def results_table_main(description, default_warpsim, measure, table,
                       failures, section):
    """The command line of a samples/*/compare.py: RESULTS [--warpsim BIN]
    [--json OUT] [--update README] [--check]. measure(results, warpsim)
    gives the data, table(data) its Markdown, failures(data) the messages
    of the checks that fail; the table goes between the markers
    <!-- table SECTION --> and <!-- end table SECTION -->. Returns the exit
    status."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("results")
    ap.add_argument("--warpsim", default=default_warpsim)
    ap.add_argument("--json")
    ap.add_argument("--update")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    data = measure(args.results, args.warpsim)
    text = table(data)
    print(text, end="")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
            f.write("\n")
    if args.update:
        rc = replace_section(args.update, "<!-- table %s -->" % section,
                             "<!-- end table %s -->" % section, text,
                             "compare.py")
        if rc:
            return rc
    if args.check:
        bad = failures(data)
        for b in bad:
            print("order check failed: " + b, file=sys.stderr)
        return 1 if bad else 0
    return 0


def scene_table_main(argv, scene, table, section, tool, doc):
    """The `scene OUT.amber` and `table REPORT [EMULATOR] [--update README |
    --check README]` commands of an experiment script (load_batching.py,
    stage_batching.py, array_stages.py): `scene()` gives the AmberScript
    text, `table(report, emulator_or_None)` the table. Returns the exit
    status; prints `doc` and returns 64 on a bad command line."""
    if len(argv) == 3 and argv[1] == "scene":
        with open(argv[2], "w") as f:
            f.write(scene())
        return 0
    if len(argv) >= 3 and argv[1] == "table":
        args, update, check = argv[2:], None, None
        for flag in ("--update", "--check"):
            if flag in args:
                k = args.index(flag)
                if k + 1 >= len(args):
                    break
                if flag == "--update":
                    update = args[k + 1]
                else:
                    check = args[k + 1]
                del args[k:k + 2]
        if len(args) in (1, 2):
            text = table(args[0], args[1] if len(args) == 2 else None)
            return table_section_main(text, section, tool, check, update)
    sys.stderr.write(doc)
    return 64


def write_json(data, out=None):
    """An experiment's summary as indented, key-sorted JSON: into the file
    `out`, or to stdout without one."""
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if out:
        with open(out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def scene_summary_table_main(description, scene, summary, table, section,
                             tool):
    """The command line of a vulkan_ref experiment that writes one scene
    and reads one record: `scene OUT.amber`, `summary RECORD [-o OUT.json]`,
    `table RECORD [--update README | --check README]`. scene() gives the
    scene's text (or a dict of scenes by name, written as OUT/NAME.amber), summary(record) the record's data, table(data) its
    Markdown (table_section_main with SECTION and TOOL). Returns the exit
    status."""
    ap = argparse.ArgumentParser(
        description=description,
        formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("scene")
    s.add_argument("out")
    m = sub.add_parser("summary")
    m.add_argument("record")
    m.add_argument("-o", "--out")
    t = sub.add_parser("table")
    t.add_argument("record")
    t.add_argument("--update")
    t.add_argument("--check")
    args = ap.parse_args()
    if args.cmd == "scene":
        text = scene()
        if isinstance(text, dict):
            # One scene per name: OUT is their folder.
            os.makedirs(args.out, exist_ok=True)
            for name, body in text.items():
                with open(os.path.join(args.out, name + ".amber"), "w") as f:
                    f.write(body)
            return 0
        with open(args.out, "w") as f:
            f.write(text)
        return 0
    if args.cmd == "summary":
        write_json(summary(args.record), args.out)
        return 0
    return table_section_main(table(summary(args.record)), section, tool,
                              args.check, args.update)


def timing_report(warpsim, path, tool, gpu_config="h200"):
    """The report of `warpsim run PATH --timing --gpu-config GPU_CONFIG`
    (a dict). Exits with a message naming TOOL when warpsim fails."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        rep_path = os.path.join(tmp, "report.json")
        p = subprocess.run([warpsim, "run", path, "--timing",
                            "--gpu-config", gpu_config, "--quiet", "--json",
                            rep_path], capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit("%s: warpsim exited %d on %s: %s"
                             % (tool, p.returncode, path, p.stderr.strip()))
        with open(rep_path) as f:
            return json.load(f)


def record_model_main(doc, scene, summary, table, section, tool,
                      model_table):
    """scene_summary_table_main's commands and `model RECORD --warpsim BIN
    [--update README | --check README]`: model_table(record, warpsim)
    gives the table of section SECTION-model (the model run afresh beside
    the record). Returns the exit status."""
    if len(sys.argv) > 1 and sys.argv[1] == "model":
        ap = argparse.ArgumentParser(prog="%s model" % tool)
        ap.add_argument("record")
        ap.add_argument("--warpsim", required=True)
        ap.add_argument("--update")
        ap.add_argument("--check")
        a = ap.parse_args(sys.argv[2:])
        return table_section_main(model_table(a.record, a.warpsim),
                                  section + "-model", tool, check=a.check,
                                  update=a.update)
    return scene_summary_table_main(doc, scene, summary, table, section, tool)


def source_commit(root):
    """The commit checked out under ROOT, with -dirty when tracked files
    there have uncommitted changes."""
    import subprocess
    commit = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", root, "status", "--porcelain",
                            "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return commit + ("-dirty" if dirty else "")


def record_model_run(warpsim, scene, out, tool, root, extra=None,
                     draw_fields=()):
    """`warpsim run SCENE --timing --gpu-config h200` (SCENE a path or a
    list of paths, each run on its own), recorded in OUT as JSON: each
    draw's and dispatch's cycles by pipeline (the last run of a pipeline),
    the clock, the warpsim commit (-dirty with uncommitted changes under
    ROOT), the date and the command; extra(report) adds fields, and
    DRAW_FIELDS names report fields of each draw kept by pipeline
    ("draws": {pipeline: {field: value}}). Exits with a message naming
    TOOL when warpsim fails."""
    import datetime
    scenes = [scene] if isinstance(scene, str) else list(scene)
    runs = []
    for path in scenes:
        rep = timing_report(warpsim, path, tool)
        runs += rep["draws"] + rep.get("dispatches", [])
    commit = source_commit(root)
    data = {
        "generated_by": "vulkan_ref/experiments/%s model" % tool,
        "command": "warpsim run %s --timing --gpu-config h200" %
                   " | ".join(os.path.relpath(p, root) for p in scenes),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"),
        "warpsim_commit": commit,
        "clock_mhz": rep["timing"]["clock_mhz"],
        "cycles": {d["pipeline"]: d["cycles"] for d in runs},
    }
    if draw_fields:
        data["draws"] = {d["pipeline"]: {k: d.get(k) for k in draw_fields}
                         for d in runs}
    if extra is not None:
        data.update(extra(rep))
    write_json(data, out)
    return 0


def model_caption(model_json, root):
    """The model run recorded in MODEL_JSON (record_model_run) and the
    opening of a model table's caption: "Model: `PATH` (warpsim COMMIT,
    DATE; COMMAND)", PATH relative to ROOT."""
    with open(model_json) as f:
        m = json.load(f)
    return m, "Model: `%s` (warpsim %s, %s; %s)" % (
        os.path.relpath(model_json, root), m["warpsim_commit"][:12],
        m["date"], m["command"])


def experiment_main(doc, scene, summary, table, section, tool, model_json,
                    model=None, model_table=None):
    """scene_summary_table_main's commands, and where the experiment has
    them `model --warpsim BIN [-o OUT.json]` (model(warpsim, out), OUT by
    default MODEL_JSON) and `model-table RECORD [MODEL.json] [--update
    README | --check README]` (model_table(record, model_json) gives the
    table of section SECTION-model). Returns the exit status."""
    if model is not None and len(sys.argv) >= 2 and \
            sys.argv[1] in ("model", "model-table"):
        ap = argparse.ArgumentParser(description=doc.split("\n")[0])
        ap.add_argument("cmd")
        if sys.argv[1] == "model":
            ap.add_argument("--warpsim", required=True)
            ap.add_argument("-o", "--out", default=model_json)
            args = ap.parse_args()
            return model(args.warpsim, args.out)
        ap.add_argument("record")
        ap.add_argument("model_json", nargs="?", default=model_json)
        ap.add_argument("--update")
        ap.add_argument("--check")
        args = ap.parse_args()
        return table_section_main(model_table(args.record, args.model_json),
                                  section + "-model", tool, args.check,
                                  args.update)
    return scene_summary_table_main(doc, scene, summary, table, section, tool)
