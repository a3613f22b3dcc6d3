#!/usr/bin/env bash
# Runs the experiments of samples/experiments/: each NN_name/run.py
# (emulated sweeps, results.json, figures/*.png with the visualizer's
# screenshots figures/viz_*.png, the READMEs' generated tables).
# Usage: samples/experiments/run.sh NN|all [--check] [--warpsim BIN]
#   --check   run without figures and check the stated agreement and the
#             READMEs' tables (what the ctest experiment_NN does)
# Needs the build (tools/build.sh, warpsim-viz included) and, for the
# figures, Debian's python3-matplotlib and xvfb (tools/setup.sh installs
# them).
set -euo pipefail
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$0")"
if [[ $# -lt 1 ]]; then
  sed -n '2,10p' "$self" | sed 's/^# \{0,1\}//' >&2
  exit 64
fi
which=$1
shift
dirs=()
for d in [0-9][0-9]_*/; do
  d=${d%/}
  if [[ $which == all || ${d%%_*} == "$which" ]]; then dirs+=("$d"); fi
done
if [[ ${#dirs[@]} -eq 0 ]]; then
  echo "run.sh: no experiment $which (have: $(ls -d [0-9][0-9]_* | tr '\n' ' '))" >&2
  exit 64
fi
status=0
for d in "${dirs[@]}"; do
  echo "== $d"
  python3 "$d/run.py" "$@" || status=1
done
exit $status
