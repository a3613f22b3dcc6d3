set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=/tmp/e28-observe; rm -rf $R; mkdir -p $R
{ date -u +%Y-%m-%dT%H:%M:%SZ; echo "commit $WARPSIM_COMMIT"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; ./build/warpsim-vkref devices; } > $R/provenance.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm --format=csv -lms 20 > $R/nvidia-smi-clocks.txt 2>&1 &
clk=$!
./build/warpsim-vkref run samples/h200/e28_branch_warps/s8.amber --device nvidia --repeat 15 --shader-cache off > /dev/null 2>&1
for s in s8 s64; do
  ./build/warpsim-vkref run samples/h200/e28_branch_warps/$s.amber --device nvidia --observe --shader-cache off --out $R/$s > $R/$s.log 2>&1
  echo "$s exit $?" >> $R/provenance.txt
  python3 vulkan_ref/experiments/observe_summary.py $R/$s > $R/$s.summary.json 2> $R/$s.summary.err
  gzip $R/$s/observe.bin
done
kill $clk
echo "command: warpsim-vkref run samples/h200/e28_branch_warps/{s8,s64}.amber --device nvidia --observe --shader-cache off --out {s8,s64} (after a warm-up run of s8 with --repeat 15)" >> $R/provenance.txt
ls -la $R $R/s64
tar czf $OUT/e28-observe.tgz -C /tmp e28-observe
du -sh $OUT/*
