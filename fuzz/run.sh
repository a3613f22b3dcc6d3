#!/usr/bin/env bash
# Runs the fuzz targets built in BUILD_DIR (default build-fuzz) on their
# seeds, at most JOBS at a time, each for SECONDS, at the lowest CPU
# priority, and prints each target's executions and coverage. Exits 1 if
# any target crashed (or timed out, ran out of memory, or leaked).
#
# Usage: fuzz/run.sh [-t SECONDS] [-j JOBS] [-T SECONDS] [-r FILE] [TARGET...]
#   TARGET is a name like amber_script (default: every built target).
#   -t SECONDS   fuzzing time per target (default 60)
#   -j JOBS      targets run at once (default 2)
#   -T SECONDS   one input slower than this is a failure (default 30; raise
#                it on a loaded machine, where nice 19 starves the run)
#   -r FILE      append each target's record (one JSON object per line) to
#                FILE, e.g. fuzz/results/DATE.jsonl for the README's tables
# Per target NAME, under BUILD_DIR:
#   seeds/NAME          read-only seeds (fuzz/make_seeds.sh makes them)
#   fuzz-corpus/NAME    inputs the run found (kept between runs)
#   fuzz-artifacts/NAME crash-*, timeout-*, oom-*, leak-* reproducers
#   fuzz-logs/NAME.log  libFuzzer's output (summary.txt: the lines printed,
#                       NAME.json: the run's record, as -r appends it)
# fuzz/NAME.dict, when present, is passed as the dictionary.
# Reproduce a crash: BUILD_DIR/fuzz/warpsim_fuzz_NAME ARTIFACT
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$repo" && cd "${BUILD_DIR:-build-fuzz}" && pwd) || exit 2
seconds=60
jobs=2
timeout=30
record=""
while getopts "t:j:T:r:h" opt; do
  case $opt in
    t) seconds=$OPTARG ;;
    j) jobs=$OPTARG ;;
    T) timeout=$OPTARG ;;
    r) record=$(realpath -m "$OPTARG") ;;
    *) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for bin in "$build"/fuzz/warpsim_fuzz_*; do
    [[ -x "$bin" ]] && targets+=("${bin##*/warpsim_fuzz_}")
  done
fi
if [[ ${#targets[@]} -eq 0 ]]; then
  echo "run.sh: no fuzz targets in $build/fuzz (build warpsim_fuzzers)" >&2
  exit 2
fi

# run_one NAME: one libFuzzer run; its exit status is libFuzzer's.
run_one() {
  local name=$1
  local bin=$build/fuzz/warpsim_fuzz_$name
  local corpus=$build/fuzz-corpus/$name artifacts=$build/fuzz-artifacts/$name
  mkdir -p "$corpus" "$artifacts" "$build/fuzz-logs"
  local args=(-max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048
              -print_final_stats=1 -artifact_prefix="$artifacts/")
  [[ -f "$repo/fuzz/$name.dict" ]] && args+=(-dict="$repo/fuzz/$name.dict")
  local dirs=("$corpus")
  [[ -d "$build/seeds/$name" ]] && dirs+=("$build/seeds/$name")
  date -u +%Y-%m-%dT%H:%M:%SZ >"$build/fuzz-logs/$name.start"
  nice -n 19 "$bin" "${args[@]}" "${dirs[@]}" >"$build/fuzz-logs/$name.log" 2>&1
}

# summary NAME RC: one line from the log's final stats.
summary() {
  local log=$build/fuzz-logs/$1.log
  local execs cov ft
  execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  cov=$(grep -oE ' cov: [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  ft=$(grep -oE ' ft: [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  printf 'run.sh: %-14s rc=%-3s executions=%-10s cov=%-6s ft=%-6s\n' \
    "$1" "$2" "${execs:-?}" "${cov:-?}" "${ft:-?}" |
    tee -a "$build/fuzz-logs/summary.txt"
  write_record "$1" "$2"
}

# write_record NAME RC: the run's record as one line of JSON in
# fuzz-logs/NAME.json, appended to the -r file too. Numbers come from
# libFuzzer's log; "found" names the reproducers the run wrote.
write_record() {
  local name=$1 rc=$2 log=$build/fuzz-logs/$1.log
  local start ended elapsed execs cov0 cov ft rss found=()
  start=$(cat "$build/fuzz-logs/$name.start" 2>/dev/null || echo "?")
  ended=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  elapsed=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$log" | grep -oE '[0-9]+ second' | grep -oE '[0-9]+' | tail -1)
  execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  cov0=$(grep -E 'INITED' "$log" | grep -oE ' cov: [0-9]+' | grep -oE '[0-9]+$' | head -1)
  cov=$(grep -oE ' cov: [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  ft=$(grep -oE ' ft: [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  rss=$(grep -oE 'stat::peak_rss_mb: +[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  local artifacts=$build/fuzz-artifacts/$name
  if [[ -f "$build/fuzz-logs/$name.start" ]]; then
    while IFS= read -r f; do found+=("\"${f##*/}\""); done < <(
      find "$artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'oom-*' \
        -o -name 'timeout-*' -o -name 'leak-*' \) -newer "$build/fuzz-logs/$name.start" | sort)
  fi
  local json
  json=$(printf '{"target": "%s", "commit": "%s", "started": "%s", "ended": "%s", "seconds": %s, "elapsed_s": %s, "rc": %s, "executions": %s, "cov_start": %s, "cov": %s, "ft": %s, "peak_rss_mb": %s, "found": [%s], "jobs": %s, "timeout_s": %s, "cpus": %s, "load_avg": "%s"}' \
    "$name" "$commit" "$start" "$ended" "$seconds" "${elapsed:-null}" "$rc" \
    "${execs:-null}" "${cov0:-null}" "${cov:-null}" "${ft:-null}" "${rss:-null}" \
    "$(IFS=,; echo "${found[*]}")" "$jobs" "$timeout" "$(nproc)" \
    "$(cut -d' ' -f1-3 /proc/loadavg)")
  echo "$json" >"$build/fuzz-logs/$name.json"
  if [[ -n "$record" ]]; then
    mkdir -p "$(dirname "$record")"
    echo "$json" >>"$record"
  fi
}

# The commit checked out when the run starts (the targets' source when they
# were built from it; "-dirty" when the work tree had changes).
commit=$(git -C "$repo" describe --always --abbrev=12 --dirty 2>/dev/null || echo "?")
mkdir -p "$build/fuzz-logs"
: >"$build/fuzz-logs/summary.txt"
failed=0
pids=()
names=()
for name in "${targets[@]}"; do
  if [[ ! -x "$build/fuzz/warpsim_fuzz_$name" ]]; then
    echo "run.sh: no target $name" >&2
    failed=1
    continue
  fi
  # At most $jobs at once: wait for the oldest before starting another.
  if [[ ${#pids[@]} -ge $jobs ]]; then
    rc=0; wait "${pids[0]}" || rc=$?
    summary "${names[0]}" "$rc"; [[ $rc -ne 0 ]] && failed=1
    pids=("${pids[@]:1}"); names=("${names[@]:1}")
  fi
  echo "run.sh: fuzzing $name for ${seconds}s (log: $build/fuzz-logs/$name.log)"
  run_one "$name" &
  pids+=($!); names+=("$name")
done
for i in "${!pids[@]}"; do
  rc=0; wait "${pids[$i]}" || rc=$?
  summary "${names[$i]}" "$rc"; [[ $rc -ne 0 ]] && failed=1
done
if [[ $failed -ne 0 ]]; then
  echo "run.sh: FAILED; reproducers under $build/fuzz-artifacts, logs under $build/fuzz-logs"
  grep -hE '^==[0-9]+==ERROR|SUMMARY:|runtime error' "$build"/fuzz-logs/*.log | head -20
fi
exit $failed
