set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=$OUT/r; mkdir -p $R
{ date -u +%Y-%m-%dT%H:%M:%SZ; echo "commit $(git rev-parse --short=12 HEAD)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ./build/warpsim-vkref devices; } > $R/provenance.txt 2>&1
./build/warpsim-vkref run samples/timing_families/branch_granularity.amber --device nvidia --repeat 5 --shader-cache off --quiet > /dev/null 2>&1
for fam in branch_granularity loop_trips register_pressure memory_loads; do
  ./build/warpsim-vkref run samples/timing_families/$fam.amber --device nvidia --repeat 15 --shader-cache off --json $R/$fam.h200.json > $R/$fam.log 2>&1
  echo "$fam exit $?" >> $R/provenance.txt
done
{ nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%M:%SZ; echo "command: for fam in branch_granularity loop_trips register_pressure memory_loads: warpsim-vkref run samples/timing_families/FAM.amber --device nvidia --repeat 15 --shader-cache off --json FAM.h200.json (after a warm-up run of branch_granularity, --repeat 5)"; } >> $R/provenance.txt
cat $R/provenance.txt; tail -3 $R/*.log
