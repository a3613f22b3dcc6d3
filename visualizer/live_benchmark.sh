#!/usr/bin/env bash
# Measures warpsim-viz's live mode (visualizer/README.md): for each view,
# samples/graphics/live_frame_256.amber run again and again for SECONDS
# while the UI draws, under Xvfb with Mesa's software OpenGL at 1280x800;
# prints one JSON document (the machine, the date, the command and per view
# the simulated and UI frames per second).
#   visualizer/live_benchmark.sh [SECONDS] [BUILD_DIR] > bench/results/NAME.json
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-15}
build=${2:-build}
scene=samples/graphics/live_frame_256.amber
echo "{"
echo "  \"command\": \"visualizer/live_benchmark.sh $seconds: xvfb-run env LIBGL_ALWAYS_SOFTWARE=1 $build/warpsim-viz $scene --benchmark $seconds --size 1280x800 --view VIEW\","
echo "  \"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\","
echo "  \"commit\": \"$(git rev-parse --short=12 HEAD)\","
echo "  \"machine\": \"$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg); OpenGL: Mesa llvmpipe under Xvfb\","
echo "  \"views\": {"
first=1
for view in timeline registers framebuffer shader compare stats; do
  line=$(xvfb-run -a -s "-screen 0 1280x800x24" env LIBGL_ALWAYS_SOFTWARE=1 \
    "$build/warpsim-viz" "$scene" --benchmark "$seconds" --size 1280x800 \
    --view "$view")
  [[ $first -eq 1 ]] || echo ","
  first=0
  printf '    "%s": %s' "$view" "$line"
done
echo ""
echo "  }"
echo "}"
