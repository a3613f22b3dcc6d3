#!/bin/bash
# Builds cuda_ref and runs the experiments on the GPU machine, in one call:
#   cuda_ref/run_h200.sh OUT_DIR [--quick] [EXPERIMENT...]
# (default: every experiment, E0 to E6). Writes into OUT_DIR, for each
# experiment NAME: NAME.json (the result, see each program's comment),
# NAME.log (its output) and NAME.sass.gz (cuobjdump -sass of the program:
# the machine code the numbers come from), NAME.provenance.txt (the GPU,
# driver, date and command of that experiment); and provenance.txt (GPU, driver,
# CUDA, date, the command, the commit given as $WARPSIM_COMMIT, the clocks
# from nvidia-smi before and after each experiment), nvidia-smi-q.txt and
# build.log. Never changes clocks; each program warms the GPU up itself.
# Exit code: 0 when every experiment wrote its result, else 1.
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 OUT_DIR [--quick] [EXPERIMENT...]" >&2
  exit 64
fi
out=$1
shift
quick=""
if [ "${1:-}" = "--quick" ]; then
  quick="--quick"
  shift
fi
exps=("$@")
if [ ${#exps[@]} -eq 0 ]; then
  exps=(e0_fingerprint e1_occupancy e2_latency e3_instructions e4_smsp
        e5_hiding e6_divergence)
fi
here=$(cd "$(dirname "$0")" && pwd)
build=${CUDA_REF_BUILD:-/tmp/cuda_ref_build}
mkdir -p "$out"
prov="$out/provenance.txt"
{
  echo "command: $0 $out $quick ${exps[*]}"
  echo "commit: ${WARPSIM_COMMIT:-unknown}"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,pci.bus_id,uuid --format=csv,noheader 2>&1)"
  echo "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>&1 | head -n 1)"
  echo "nvcc: $(nvcc --version | tail -1)"
  echo "host: $(uname -srm)"
} > "$prov"
nvidia-smi -q > "$out/nvidia-smi-q.txt" 2>&1

# The header's lines (command to host), copied into each provenance file.
header=7
{ head -n $header "$prov"
  echo "covers: build.log"
  echo "build: cmake -S cuda_ref -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build $build --verbose --target ${exps[*]} (log: build.log)"
} > "$out/build.provenance.txt"
if ! { cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release &&
       cmake --build "$build" --verbose --target "${exps[@]}"; } > "$out/build.log" 2>&1; then
  echo "cuda_ref: the build failed (log: $out/build.log)" >&2
  tail -40 "$out/build.log" >&2
  exit 1
fi

status=0
for e in "${exps[@]}"; do
  bin="$build/$e"
  if [ ! -x "$bin" ]; then
    echo "$e: not built" | tee -a "$prov"
    status=1
    continue
  fi
  echo "$e clocks before (sm, mem): $(nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv,noheader 2>&1)" >> "$prov"
  start=$(date +%s.%N)
  timeout 300 "$bin" --out "$out/$e.json" $quick > "$out/$e.log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  echo "$e clocks after (sm, mem): $(nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv,noheader 2>&1)" >> "$prov"
  printf '%s: exit %d, %.1f s\n' "$e" "$rc" "$(awk -v a="$start" -v b="$end" 'BEGIN{print b-a}')" | tee -a "$prov"
  # NAME.provenance.txt: the run's header and this experiment's own lines,
  # beside its .json, .log and .sass.gz.
  { head -n $header "$prov"
    echo "covers: $e.json $e.log $e.sass.gz"
    echo "experiment command: $bin --out $out/$e.json $quick"
    grep "^$e" "$prov"; } > "$out/$e.provenance.txt"
  if [ $rc -ne 0 ] || [ ! -s "$out/$e.json" ]; then
    status=1
    tail -20 "$out/$e.log"
  fi
  if command -v cuobjdump > /dev/null; then
    cuobjdump -sass "$bin" 2>&1 | gzip -9 > "$out/$e.sass.gz"
  fi
done
exit $status
