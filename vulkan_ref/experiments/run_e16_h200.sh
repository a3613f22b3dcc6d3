# E16 on the GPU machine (vulkan_ref/experiments/e16_loop_unroll.py): the
# scene samples/h200/e16_loop_unroll/e16.amber with `warpsim-vkref run`,
# whose report holds each pipeline's executable statistics (the driver's
# code size), and a sweep of a loop's trip count timed on the device, with
# provenance.txt, packed into $OUT/e16.tgz. Needs
# build/warpsim-vkref and Debian's Vulkan loader in .gl/
# (vulkan_ref/README.md, "On the GPU machine"). WARPSIM_COMMIT names the
# commit the binary was built from.
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=/tmp/e16-loop-unroll; rm -rf $R; mkdir -p $R
{ date -u +%Y-%m-%dT%H:%M:%SZ; echo "commit ${WARPSIM_COMMIT:-$(git rev-parse --short=12 HEAD)}"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ./build/warpsim-vkref devices; } > $R/provenance.txt 2>&1
timeout 120 ./build/warpsim-vkref run samples/h200/e16_loop_unroll/e16.amber --device nvidia --shader-cache off --json $R/e16.json > $R/e16.log 2>&1
echo "exit $?" >> $R/provenance.txt
# The trip sweep: samples/branch_costs/loop_trips.amber's uniform loop (one
# multiply-add a trip, a run-time trip count) at 0..32 trips, the median
# GPU time of 15 draws each: the period of the unrolled code's cost.
./build/warpsim-vkref compare samples/branch_costs/loop_trips.amber -D VARIANT=0 -D TRIPS=8 --device nvidia --repeat 15 --shader-cache off > /dev/null 2>&1
# In groups of 8 values: one compare of 33 failed at its 30th variant
# (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER).
for first in 0 8 16 24; do
  last=$((first + 7)); [ $first = 24 ] && last=32
  timeout 150 ./build/warpsim-vkref compare samples/branch_costs/loop_trips.amber -D VARIANT=0 -D TRIPS=$(seq -s, $first $last) --device nvidia --repeat 15 --shader-cache off --json $R/trips$first.json > $R/trips$first.log 2>&1
  echo "trips $first..$last exit $?" >> $R/provenance.txt
done
{ date -u +%Y-%m-%dT%H:%M:%SZ; echo "command: warpsim-vkref run samples/h200/e16_loop_unroll/e16.amber --device nvidia --shader-cache off --json e16.json; warpsim-vkref compare samples/branch_costs/loop_trips.amber -D VARIANT=0 -D TRIPS=F,...,L --device nvidia --repeat 15 --shader-cache off --json tripsF.json for F..L in 0..7, 8..15, 16..23, 24..32 (after a warm-up compare at TRIPS=8)"; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv; } >> $R/provenance.txt
tar czf $OUT/e16.tgz -C /tmp e16-loop-unroll
cat $R/provenance.txt
