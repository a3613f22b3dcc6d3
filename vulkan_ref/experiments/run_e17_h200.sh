# E17 on the GPU machine (vulkan_ref/experiments/e17_output_merge.py): each
# scene of samples/h200/e17_output_merge/ with `warpsim-vkref run --repeat
# 15`, twice, with provenance.txt, packed into $OUT/e17.tgz
# (run_scenes_h200.sh).
exec bash "$(dirname "$0")/run_scenes_h200.sh" e17-output-merge \
  samples/h200/e17_output_merge w1024.amber e17.tgz
