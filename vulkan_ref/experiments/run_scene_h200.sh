# One experiment scene on the GPU machine: `run_scene_h200.sh RECORD SCENE
# NAME` runs SCENE with `warpsim-vkref run --repeat 15` (each draw's GPU
# time, the median of 15) after a warm-up run (--repeat 5), into
# $OUT/RECORD/NAME.json with NAME.log and provenance.txt (the GPU, its
# driver, the SM clock before and after the runs, the dates, the command),
# nvidia-smi-clocks.txt (the SM clock every 20 ms through the runs) and
# times.txt (the timed run's start and end, for device_clocks.py).
# Needs build/warpsim-vkref and Debian's Vulkan loader in .gl/
# (vulkan_ref/README.md, "On the GPU machine"). WARPSIM_COMMIT names the
# commit the binary was built from.
set -u
R=$OUT/$1; S=$2; N=$3
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
rm -rf $R; mkdir -p $R
{ date -u +%Y-%m-%dT%H:%M:%SZ; echo "commit ${WARPSIM_COMMIT:-$(git rev-parse --short=12 HEAD)}"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ./build/warpsim-vkref devices; } > $R/provenance.txt 2>&1
# The clock file names its GPU, driver, date and command in a first line
# (device_clocks.py reads only the sample lines).
echo "# $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1); $(date -u +%Y-%m-%dT%H:%M:%SZ); nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm --format=csv -lms 20" > $R/nvidia-smi-clocks.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm --format=csv -lms 20 >> $R/nvidia-smi-clocks.txt 2>&1 &
clk=$!
stamp() { date +"%Y/%m/%d %H:%M:%S.%3N"; }
timeout 120 ./build/warpsim-vkref run $S --device nvidia --repeat 5 --shader-cache off --quiet > /dev/null 2>&1
echo "$(stamp), start, $N" >> $R/times.txt
timeout 300 ./build/warpsim-vkref run $S --device nvidia --repeat 15 --shader-cache off --json $R/$N.json > $R/$N.log 2>&1
rc=$?
echo "$(stamp), end, $N" >> $R/times.txt
kill $clk
echo "exit $rc" >> $R/provenance.txt
{ nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv; date -u +%Y-%m-%dT%H:%M:%SZ; echo "command: warpsim-vkref run $S --device nvidia --repeat 15 --shader-cache off --json $N.json (after a warm-up run, --repeat 5)"; } >> $R/provenance.txt
cat $R/provenance.txt
