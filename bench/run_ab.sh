#!/usr/bin/env bash
# Records an A/B run of the benchmark: two warpsim_bench binaries (the same
# bench source built at two commits) run in turns for ROUNDS rounds (base,
# new, base, new, ...: a machine whose speed drifts during the run slows
# both alike), merged into bench/results/NAME.{base,new}.json (each round's
# entries and their medians), and prints the table tools/bench_table.py
# makes from them.
#
# Usage: bench/run_ab.sh NAME BASE_BINARY NEW_BINARY [FILTER]
#   FILTER   --benchmark_filter regex (default: every benchmark)
#   ROUNDS   environment: rounds (default 5)
# Run it on an otherwise idle machine; CPU time is what the table compares.
set -euo pipefail
if [[ $# -lt 3 ]]; then
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 64
fi
cd "$(dirname "$0")/.."
name=$1 base=$2 new=$3 filter=${4:-.}
rounds=${ROUNDS:-5}
mkdir -p bench/results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((r = 0; r < rounds; ++r)); do
  for side in base new; do
    bin=$base
    [[ $side == new ]] && bin=$new
    "$bin" --benchmark_filter="$filter" \
      --benchmark_out="$tmp/$side.$r.json" \
      --benchmark_out_format=json >/dev/null
  done
done
for side in base new; do
  files=()
  for ((r = 0; r < rounds; ++r)); do files+=("$tmp/$side.$r.json"); done
  tools/bench_table.py --merge "bench/results/$name.$side.json" "${files[@]}"
done
tools/bench_table.py "bench/results/$name"
