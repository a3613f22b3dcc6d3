# E36 on the GPU machine (vulkan_ref/experiments/e36_chase_ring.py): the
# scenes samples/h200/e36_chase_ring/trips{1024,2048}.amber with
# `warpsim-vkref run --repeat 9` (each dispatch's GPU time, the median of
# 9), with runs.txt (nvidia-smi before and after, the commands), into
# $OUT/e36-chase-ring/, and E24's scene on the same machine
# (run_e24_h200.sh) into $OUT/e36-chase-ring/e24/. Needs
# build/warpsim-vkref and Debian's Vulkan loader in .gl/
# (vulkan_ref/README.md, "On the GPU machine"). WARPSIM_COMMIT names the
# commit the binary was built from.
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=$OUT/e36-chase-ring; rm -rf $R; mkdir -p $R
smi() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; }
{ echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: ${WARPSIM_COMMIT:-$(git rev-parse --short=12 HEAD)}"
  echo "before: $(smi)"; } > $R/runs.txt 2>&1
S=samples/h200/e36_chase_ring
# A warm-up run first (the clocks rise), then the two recorded ones.
timeout 120 ./build/warpsim-vkref run $S/trips1024.amber --device nvidia --shader-cache off --quiet > /dev/null 2>&1
for t in 1024 2048; do
  timeout 200 ./build/warpsim-vkref run $S/trips$t.amber --device nvidia --repeat 9 --shader-cache off --quiet --json $R/trips$t.json > $R/trips$t.log 2>&1
  echo "trips$t: exit $?" >> $R/runs.txt
done
{ echo "after: $(smi)"
  echo "command: warpsim-vkref run samples/h200/e36_chase_ring/tripsN.amber --device nvidia --repeat 9 --shader-cache off --quiet --json tripsN.json (N 1024 and 2048; after a warm-up run)"; } >> $R/runs.txt
cat $R/runs.txt
OUT=$R bash vulkan_ref/experiments/run_scene_h200.sh e24 \
  samples/h200/e24_chase_steps/e24.amber e24
