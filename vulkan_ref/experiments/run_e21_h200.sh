# E21 on the GPU machine (vulkan_ref/experiments/e21_loop_bounds.py): the
# scene samples/h200/e21_loop_bounds/e21.amber with `warpsim-vkref run`,
# whose report holds each pipeline's executable statistics (the driver's
# code size), with provenance.txt, into $OUT/e21-loop-bounds/. Needs
# build/warpsim-vkref and Debian's Vulkan loader in .gl/
# (vulkan_ref/README.md, "On the GPU machine"). WARPSIM_COMMIT names the
# commit the binary was built from.
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=$OUT/e21-loop-bounds; rm -rf $R; mkdir -p $R
{ date -u +%Y-%m-%dT%H:%M:%SZ; echo "commit ${WARPSIM_COMMIT:-$(git rev-parse --short=12 HEAD)}"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ./build/warpsim-vkref devices; } > $R/provenance.txt 2>&1
timeout 120 ./build/warpsim-vkref run samples/h200/e21_loop_bounds/e21.amber --device nvidia --shader-cache off --json $R/e21.json > $R/e21.log 2>&1
echo "exit $?" >> $R/provenance.txt
echo "command: warpsim-vkref run samples/h200/e21_loop_bounds/e21.amber --device nvidia --shader-cache off --json e21.json" >> $R/provenance.txt
cat $R/provenance.txt
