#!/usr/bin/env bash
# Records an A/B run of the benchmark: two warpsim_bench binaries (the same
# bench source built at two commits) run back to back on this machine, each
# writing Google Benchmark JSON to bench/results/NAME.{base,new}.json, and
# prints the table tools/bench_table.py makes from them.
#
# Usage: bench/run_ab.sh NAME BASE_BINARY NEW_BINARY [FILTER]
#   FILTER   --benchmark_filter regex (default: every benchmark)
# Run it on an otherwise idle machine; CPU time is what the table compares.
set -euo pipefail
if [[ $# -lt 3 ]]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 64
fi
cd "$(dirname "$0")/.."
name=$1 base=$2 new=$3 filter=${4:-.}
mkdir -p bench/results
for side in base new; do
  bin=$base
  [[ $side == new ]] && bin=$new
  "$bin" --benchmark_filter="$filter" --benchmark_repetitions=5 \
    --benchmark_report_aggregates_only=true \
    --benchmark_out="bench/results/$name.$side.json" \
    --benchmark_out_format=json >/dev/null
done
tools/bench_table.py "bench/results/$name"
