# E25 on the GPU machine (vulkan_ref/experiments/e25_chase_warps.py): the
# scene samples/h200/e25_chase_warps/e25.amber with `warpsim-vkref run
# --repeat 15` (each draw's GPU time, the median of 15), after a warm-up
# run, with provenance.txt and the SM clock after the runs, into
# $OUT/e25-chase-warps/. Needs build/warpsim-vkref and Debian's Vulkan
# loader in .gl/ (vulkan_ref/README.md, "On the GPU machine").
# WARPSIM_COMMIT names the commit the binary was built from.
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=$OUT/e25-chase-warps; rm -rf $R; mkdir -p $R
S=samples/h200/e25_chase_warps/e25.amber
{ date -u +%Y-%m-%dT%H:%M:%SZ; echo "commit ${WARPSIM_COMMIT:-$(git rev-parse --short=12 HEAD)}"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ./build/warpsim-vkref devices; } > $R/provenance.txt 2>&1
timeout 120 ./build/warpsim-vkref run $S --device nvidia --repeat 5 --shader-cache off --quiet > /dev/null 2>&1
timeout 300 ./build/warpsim-vkref run $S --device nvidia --repeat 15 --shader-cache off --json $R/e25.json > $R/e25.log 2>&1
echo "exit $?" >> $R/provenance.txt
{ nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%M:%SZ; echo "command: warpsim-vkref run $S --device nvidia --repeat 15 --shader-cache off --json e25.json (after a warm-up run, --repeat 5)"; } >> $R/provenance.txt
cat $R/provenance.txt
