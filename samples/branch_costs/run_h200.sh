# Runs every family of samples/branch_costs/ at both loop lengths on the GPU
# machine with `warpsim-vkref compare` (median GPU time of 15 runs per draw,
# beside the emulator's cycles): one JSON and log per family and length, and
# provenance.txt, packed into $OUT/branch_costs.tgz. Needs build/warpsim-vkref
# and Debian's Vulkan loader in .gl/ (vulkan_ref/README.md, "On the GPU
# machine"). WARPSIM_COMMIT names the commit the binary was built from (the
# machine's copy of the tree may not carry the newest .git).
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=/tmp/branch_costs; rm -rf $R; mkdir -p $R
{ date -u +%Y-%m-%dT%H:%M:%SZ; echo "commit ${WARPSIM_COMMIT:-$(git rev-parse --short=12 HEAD)}"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ./build/warpsim-vkref devices; } > $R/provenance.txt 2>&1
# Warm-up: the first draws after the device wakes run slower.
./build/warpsim-vkref compare samples/branch_costs/granularity.amber -D VARIANT=0,1 -D TRIPS=64 --device nvidia --repeat 15 --shader-cache off > /dev/null 2>&1
python3 samples/branch_costs/make_families.py --list | while IFS=$'\t' read fam values desc; do
  for trips in 16 64; do
    ./build/warpsim-vkref compare samples/branch_costs/$fam.amber -D VARIANT=$values -D TRIPS=$trips --device nvidia --repeat 15 --shader-cache off --json $R/$fam.trips$trips.json > $R/$fam.trips$trips.log 2>&1
    echo "$fam TRIPS=$trips exit $?" >> $R/provenance.txt
  done
done
{ nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%M:%SZ; echo "command: for each family F and TRIPS T in 16 64: warpsim-vkref compare samples/branch_costs/F.amber -D VARIANT=<make_families.py --list> -D TRIPS=T --device nvidia --repeat 15 --shader-cache off --json F.tripsT.json (after a warm-up compare of granularity)"; } >> $R/provenance.txt
tar czf $OUT/branch_costs.tgz -C /tmp branch_costs
cat $R/provenance.txt
