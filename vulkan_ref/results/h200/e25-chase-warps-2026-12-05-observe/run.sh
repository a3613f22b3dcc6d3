set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=/tmp/e25-observe; rm -rf $R; mkdir -p $R
{ date -u +%Y-%m-%dT%H:%M:%SZ; echo "commit $WARPSIM_COMMIT"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ./build/warpsim-vkref devices; } > $R/provenance.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm --format=csv -lms 20 > $R/nvidia-smi-clocks.txt 2>&1 &
clk=$!
./build/warpsim-vkref run samples/h200/e25_chase_warps/e25.amber --device nvidia --repeat 3 --shader-cache off > /dev/null 2>&1
run() {  # name scene
  ./build/warpsim-vkref run $2 --device nvidia --observe --shader-cache off --out $R/$1 > $R/$1.log 2>&1
  echo "$1 exit $?" >> $R/provenance.txt
  python3 vulkan_ref/experiments/observe_summary.py $R/$1 > $R/$1.summary.json 2> $R/$1.summary.err
  gzip $R/$1/observe.bin
  rm -f $R/$1/frame.png
}
run e25 samples/h200/e25_chase_warps/e25.amber
run register_pressure samples/timing_families/register_pressure.amber
kill $clk
echo "command: warpsim-vkref run {samples/h200/e25_chase_warps/e25.amber,samples/timing_families/register_pressure.amber} --device nvidia --observe --shader-cache off --out {e25,register_pressure} (after a warm-up run of e25.amber with --repeat 3)" >> $R/provenance.txt
ls -la $R $R/e25
tar czf $OUT/e25-observe.tgz -C /tmp e25-observe
du -sh $OUT/*
