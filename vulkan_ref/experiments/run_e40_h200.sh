# E40 on the GPU machine (vulkan_ref/experiments/e40_shared_banks.py):
# each scene of samples/h200/e40_shared_banks/ (one a variant) with
# `warpsim-vkref run --repeat 15`, twice, with the SM clock sampled
# through the runs and provenance.txt, packed into $OUT/e40.tgz
# (run_scenes_h200.sh).
exec bash "$(dirname "$0")/run_scenes_h200.sh" e40-shared-banks \
  samples/h200/e40_shared_banks s1.amber e40.tgz
