#!/bin/bash
# Runs the --observe experiments (observe_scenes.py, and E10 with --observe)
# on the GPU machine and writes the summaries to OUT_DIR.
#
# Usage (on the GPU machine, from the repository root, with Debian's Vulkan
# loader unpacked as vulkan_ref/README.md says):
#   vulkan_ref/experiments/run_observe_h200.sh BIN_DIR OUT_DIR
# BIN_DIR holds warpsim-vkref and the scenes (observe_scenes.py BIN_DIR/scenes;
# e10_vertex_batching.py BIN_DIR/scenes/e10.amber ...).
set -u
bin=$1
out=$2
mkdir -p "$out"
work=$(mktemp -d)
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  echo "commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem \
    --format=csv
  "$bin/warpsim-vkref" devices
} > "$out/provenance.txt" 2>&1

# Warm the GPU up (the idle SM clock is low) with the clock scene.
"$bin/warpsim-vkref" run "$bin/scenes/e14_clock.amber" --device nvidia \
  --shader-cache off --quiet > /dev/null 2>&1

for scene in e14_clock e7_sm_sets e8_fragment_warps e12_occupancy e10; do
  start=$(date +%s.%N)
  "$bin/warpsim-vkref" run "$bin/scenes/$scene.amber" --device nvidia \
    --observe --shader-cache off --out "$work/$scene" > "$out/$scene.log" 2>&1
  echo "exit $? after $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{print b-a}') s" >> "$out/$scene.log"
  cp "$work/$scene/report.json" "$out/$scene.report.json" 2>/dev/null
  python3 vulkan_ref/experiments/observe_summary.py "$work/$scene" \
    > "$out/$scene.summary.json" 2> "$out/$scene.summary.err"
  # Raw records only where they are small.
  size=$(stat -c %s "$work/$scene/observe.bin" 2>/dev/null || echo 0)
  if [ "$size" -lt 4000000 ]; then
    gzip -c "$work/$scene/observe.bin" > "$out/$scene.observe.bin.gz"
  fi
  rm -rf "$work/$scene"
done
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv >> "$out/provenance.txt"
date -u +%Y-%m-%dT%H:%M:%SZ >> "$out/provenance.txt"
