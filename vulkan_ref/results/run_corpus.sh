#!/usr/bin/env bash
# Runs warpsim-vkref over the samples and a conformance corpus on one Vulkan
# device and collects every file's report (exit code, result, pipeline
# statistics, the driver's executable statistics such as register counts)
# into one gzipped JSON-lines file, plus the device's fingerprint.
#
# Usage: vulkan_ref/results/run_corpus.sh VKREF CORPUS_ROOT OUT_DIR DEVICE [JOBS]
#   VKREF        the warpsim-vkref binary
#   CORPUS_ROOT  e.g. ../shared/conformance (a copy of it on the GPU machine)
#   OUT_DIR      receives devices.txt, fingerprint.txt (nvidia-smi, when
#                present), corpus_reports.jsonl.gz and summary.txt
#   DEVICE       --device of warpsim-vkref: nvidia, lavapipe or an index
#   JOBS         files run at once (default: the number of cores)
# Files are the samples (samples/**/*.amber) and every .amber / .vkscript
# file under CORPUS_ROOT, in sorted order; each runs with a 120 s limit.
# vulkan_ref/results/summarize.py makes the tables from the output.
set -uo pipefail
if [[ $# -lt 4 ]]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 64
fi
vkref=$(realpath "$1") corpus=$(realpath "$2") out=$3 device=$4
jobs=${5:-$(nproc)}
repo=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "command: $0 $*"
  # WARPSIM_COMMIT: where the tree travelled without its .git.
  echo "commit: ${WARPSIM_COMMIT:-$(git -C "$repo" describe --always --abbrev=12 --dirty 2>/dev/null || echo '?')}"
  echo "host: $(uname -srm), $(nproc) cores"
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit --format=csv
  fi
} >"$out/fingerprint.txt" 2>&1
"$vkref" devices >"$out/devices.txt" 2>&1

{
  (cd "$repo" && find samples -name '*.amber' | sort | sed "s|^|$repo/|")
  (cd "$corpus" && find . \( -name '*.amber' -o -name '*.vkscript' \) | sort |
    sed "s|^\./|$corpus/|")
} >"$work/files.txt"
total=$(wc -l <"$work/files.txt")
echo "run_corpus.sh: $total files on device '$device', $jobs at a time" >&2

export vkref device work
run_one() {
  local idx=$1 file=$2 rc=0
  timeout 120 "$vkref" run "$file" --device "$device" --quiet \
    --shader-cache off --json "$work/$idx.json" >"$work/$idx.log" 2>&1 || rc=$?
  echo "$idx $rc" >"$work/$idx.rc"
}
export -f run_one
nl -ba -w1 -s' ' "$work/files.txt" | xargs -P "$jobs" -L 1 bash -c 'run_one "$0" "$1"'

python3 - "$work" "$repo" "$corpus" "$out" <<'PY'
import gzip, json, os, sys
work, repo, corpus, out = sys.argv[1:5]
files = [l.rstrip("\n") for l in open(os.path.join(work, "files.txt"))]
codes = {}
with gzip.open(os.path.join(out, "corpus_reports.jsonl.gz"), "wt") as f:
    for idx, path in enumerate(files, 1):
        rel = (os.path.join("samples", os.path.relpath(path, os.path.join(repo, "samples")))
               if path.startswith(os.path.join(repo, "samples"))
               else os.path.join("conformance", os.path.relpath(path, corpus)))
        rc_path = os.path.join(work, "%d.rc" % idx)
        rc = int(open(rc_path).read().split()[1]) if os.path.exists(rc_path) else None
        entry = {"file": rel, "exit_code": rc}
        try:
            entry["report"] = json.load(open(os.path.join(work, "%d.json" % idx)))
        except (OSError, ValueError):
            log = os.path.join(work, "%d.log" % idx)
            entry["log_tail"] = open(log, errors="replace").read()[-600:] if os.path.exists(log) else ""
        codes[rc] = codes.get(rc, 0) + 1
        f.write(json.dumps(entry, sort_keys=True) + "\n")
with open(os.path.join(out, "summary.txt"), "w") as s:
    s.write("files: %d\n" % len(files))
    for rc in sorted(codes, key=lambda c: (c is None, c)):
        s.write("exit %s: %d\n" % (rc, codes[rc]))
PY
cat "$out/summary.txt" >&2
