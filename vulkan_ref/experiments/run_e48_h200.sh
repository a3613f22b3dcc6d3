# E48 on the GPU machine (vulkan_ref/experiments/e48_l2_wait.py):
# each scene of samples/h200/e48_l2_wait/ (one a variant) with
# `warpsim-vkref run --repeat 15`, twice, with the SM clock sampled
# through the runs and provenance.txt, packed into $OUT/e48.tgz
# (run_scenes_h200.sh).
exec bash "$(dirname "$0")/run_scenes_h200.sh" e48-l2-wait \
  samples/h200/e48_l2_wait coalesced_32.amber e48.tgz
