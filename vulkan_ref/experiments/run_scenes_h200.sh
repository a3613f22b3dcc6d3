#!/usr/bin/env bash
# One-draw scenes on the GPU machine, as E15 and E17 run them
# (run_e15_h200.sh, run_e17_h200.sh): every scene of SCENE_DIR with
# `warpsim-vkref run --repeat 15` (median GPU time of 15 runs of its draw),
# twice, after a warm-up run of WARMUP, with provenance.txt, packed into
# $OUT/TGZ. The SM clock is sampled every 20 ms through the runs
# (nvidia-smi-clocks.txt) and each run's start and end are written beside
# it (times.txt, the same clock and format), so that a summary can tell
# the clock each scene ran at (device_clocks.py): the driver lowers the
# clock during some longer runs. Needs build/warpsim-vkref and Debian's
# Vulkan loader in .gl/ (vulkan_ref/README.md, "On the GPU machine").
# WARPSIM_COMMIT names the commit the binary was built from.
#   usage: run_scenes_h200.sh RECORD_NAME SCENE_DIR WARMUP.amber TGZ
set -u
name=$1 scenes=$2 warmup=$3 tgz=$4
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=/tmp/$name; rm -rf $R; mkdir -p $R
{ date -u +%Y-%m-%dT%H:%M:%SZ; echo "commit ${WARPSIM_COMMIT:-$(git rev-parse --short=12 HEAD)}"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ./build/warpsim-vkref devices; } > $R/provenance.txt 2>&1
# The clock file names its GPU, driver, date and command in a first line
# (device_clocks.py reads only the sample lines).
echo "# $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1); $(date -u +%Y-%m-%dT%H:%M:%SZ); nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm --format=csv -lms 20" > $R/nvidia-smi-clocks.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm --format=csv -lms 20 >> $R/nvidia-smi-clocks.txt 2>&1 &
clk=$!
stamp() { date +"%Y/%m/%d %H:%M:%S.%3N"; }
# Warm-up: the first draws after the device wakes run slower.
./build/warpsim-vkref run $scenes/$warmup --device nvidia --repeat 15 --shader-cache off > /dev/null 2>&1
for i in 1 2; do
  mkdir -p $R/run$i
  for f in $scenes/*.amber; do
    n=$(basename $f .amber)
    echo "$(stamp), start, run$i/$n" >> $R/times.txt
    ./build/warpsim-vkref run $f --device nvidia --repeat 15 --shader-cache off --json $R/run$i/$n.json > $R/run$i/$n.log 2>&1
    rc=$?
    echo "$(stamp), end, run$i/$n" >> $R/times.txt
    echo "run $i $n exit $rc" >> $R/provenance.txt
  done
done
{ nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%M:%SZ; echo "command: for N in 1 2, for each scene NAME of $scenes/: warpsim-vkref run NAME.amber --device nvidia --repeat 15 --shader-cache off --json runN/NAME.json (after a warm-up run of ${warmup%.amber})"; } >> $R/provenance.txt
kill $clk
tar czf $OUT/$tgz -C /tmp $name
cat $R/provenance.txt
