# A two-scene compute experiment on the GPU machine (E34 to E36, E38:
# run_e34_h200.sh and the others name theirs): `run_trips_h200.sh RECORD
# SCENE_DIR [A B]` runs SCENE_DIR/A.amber and B.amber (default trips1024
# and trips2048) with
# `warpsim-vkref run --repeat 9` (each pipeline's executable statistics and
# each dispatch's GPU time, the median of 9) after a warm-up run, with
# runs.txt (nvidia-smi before and after, the commands), into $OUT/RECORD/.
# Needs build/warpsim-vkref and Debian's Vulkan loader in .gl/
# (vulkan_ref/README.md, "On the GPU machine"). WARPSIM_COMMIT names the
# commit the binary was built from.
set -u
name=$1 S=$2 a=${3:-trips1024} b=${4:-trips2048}
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=$OUT/$name; rm -rf $R; mkdir -p $R
smi() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; }
{ echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: ${WARPSIM_COMMIT:-$(git rev-parse --short=12 HEAD)}"
  echo "before: $(smi)"; } > $R/runs.txt 2>&1
# A warm-up run first (the clocks rise), then the two recorded ones.
timeout 120 ./build/warpsim-vkref run $S/$a.amber --device nvidia --shader-cache off --quiet > /dev/null 2>&1
for t in $a $b; do
  timeout 200 ./build/warpsim-vkref run $S/$t.amber --device nvidia --repeat 9 --shader-cache off --quiet --json $R/$t.json > $R/$t.log 2>&1
  echo "$t: exit $?" >> $R/runs.txt
done
{ echo "after: $(smi)"
  echo "command: warpsim-vkref run $S/NAME.amber --device nvidia --repeat 9 --shader-cache off --quiet --json NAME.json (NAME $a and $b; after a warm-up run)"; } >> $R/runs.txt
cat $R/runs.txt
