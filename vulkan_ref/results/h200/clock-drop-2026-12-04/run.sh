set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=$OUT/x; mkdir -p $R
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 20 > $R/nvidia-smi-clocks.txt 2>&1 &
CLK=$!
run() { echo "$(date -u +%H:%M:%S.%N) start $1" >> $R/times.txt; timeout 200 ./build/warpsim-vkref run $2 --device nvidia --repeat 15 --shader-cache off --json $R/$1.json > $R/$1.log 2>&1; echo "$(date -u +%H:%M:%S.%N) end $1 rc=$?" >> $R/times.txt; }
./build/warpsim-vkref run samples/timing_families/branch_granularity.amber --device nvidia --repeat 5 --shader-cache off --quiet > /dev/null 2>&1
run rp1 samples/timing_families/register_pressure.amber
run held1a tmp_e26/held1_only.amber
run e26 samples/h200/e26_chase_draw/e26.amber
run rp2 samples/timing_families/register_pressure.amber
run held1b tmp_e26/held1_only.amber
kill $CLK
cat $R/times.txt
