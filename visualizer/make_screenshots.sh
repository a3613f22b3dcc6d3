#!/usr/bin/env bash
# Makes the README's screenshots of warpsim-viz's views (visualizer/README.md)
# with its headless mode, under Xvfb and Mesa's software OpenGL:
#   visualizer/make_screenshots.sh [BUILD_DIR]      (default: build)
# The scene is samples/graphics/divergent_branches.amber, run live; the
# Compare view sets it against the same scene under the lrr scheduler.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=visualizer/screenshots
scene=samples/graphics/divergent_branches.amber
runs=out/screenshots-runs

mkdir -p "$out" "$runs/lrr"  # out/ is not tracked
"$build/warpsim" run "$scene" --timing --scheduler lrr --quiet --out "$runs/lrr" \
  --json "$runs/lrr/report.json" --trace "$runs/lrr/trace.json" > /dev/null
for view in timeline registers framebuffer shader compare stats; do
  xvfb-run -a -s "-screen 0 1400x860x24" env LIBGL_ALWAYS_SOFTWARE=1 \
    "$build/warpsim-viz" "$scene" --compare "$runs/lrr" --view "$view" \
    --cycle 300 --size 1400x860 --screenshot "$out/$view.png"
done
