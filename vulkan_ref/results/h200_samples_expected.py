#!/usr/bin/env python3
"""Writes samples/h200/ from the recorded H200 runs: the scenes (generated
by vulkan_ref/experiments/observe_scenes.py and e10_vertex_batching.py,
byte-identical to what ran on the H200) and expected.json, the H200's
figures per draw that tests/runner/h200_samples_test.cpp holds the emulator
to with the h200 preset:

  vs_invocations      vertex shader invocations the instrumented shaders
                      recorded (--observe; equal to the statistic except
                      for instanced draws, FINDINGS.md Q3)
  fs_invocations      FRAGMENT_SHADER_INVOCATIONS (non-helper invocations)
  helper_lanes        from the quads' helper masks
  fragment_warps      warps the fragment records name
  primitives_per_fragment_warp   {"primitives": warps}
  expectations        (e8c) which EXPECT lines passed on the H200

Usage: vulkan_ref/results/h200_samples_expected.py [REPO_ROOT]
"""
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = ["e7_sm_sets", "e8_fragment_warps", "e8b_packing",
          "e8c_derivatives", "e10"]


def load(path):
    if os.path.exists(path):
        return json.load(open(path))
    return json.load(gzip.open(path + ".gz", "rt"))


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(HERE, "..", "..")
    results = os.path.join(root, "vulkan_ref", "results", "h200",
                           "observe-2026-11-30")
    out_dir = os.path.join(root, "samples", "h200")
    os.makedirs(out_dir, exist_ok=True)
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(root, "vulkan_ref", "experiments"))
    import observe_scenes
    import e10_vertex_batching
    texts = {"e7_sm_sets": observe_scenes.e7(),
             "e8_fragment_warps": observe_scenes.e8(),
             "e8b_packing": observe_scenes.e8b(),
             "e8c_derivatives": observe_scenes.e8c()}
    for name, text in texts.items():
        with open(os.path.join(out_dir, name + ".amber"), "w") as f:
            f.write(text)
    e10_vertex_batching.main(["", os.path.join(out_dir, "e10.amber"),
                              os.path.join(out_dir, "e10.manifest.json")])
    expected = {"source": "vulkan_ref/results/h200/observe-2026-11-30",
                "generated_by": "vulkan_ref/results/h200_samples_expected.py",
                "scenes": {}}
    for name in SCENES:
        report = load(os.path.join(results, name + ".report.json"))
        scene = {"device": report["device"]["name"],
                 "driver": report["device"]["driver_version"], "draws": []}
        for d in report["draws"]:
            o = d.get("observe")
            e = {"line": d["line"], "pipeline": d["pipeline"]}
            if o:
                f = o["fragment"]
                e["vs_invocations"] = o["vertex"]["invocations"]
                e["fs_invocations"] = d.get("fs_invocations")
                if "warps" in f:
                    e["fragment_warps"] = f["warps"]
                    e["helper_lanes"] = f.get("helper_lanes", 0)
                    e["primitives_per_fragment_warp"] = \
                        f.get("primitives_per_warp_histogram", {})
            else:
                e["vs_invocations"] = d.get("vs_invocations")
                e["fs_invocations"] = d.get("fs_invocations")
            scene["draws"].append(e)
        scene["expectations"] = [
            {"line": x["line"], "passed": x["passed"]}
            for x in report["expectations"]]
        expected["scenes"][name] = scene
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
