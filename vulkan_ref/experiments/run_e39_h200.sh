# E39 on the GPU machine (vulkan_ref/experiments/e39_load_patterns.py):
# each scene of samples/h200/e39_load_patterns/ (one a variant) with
# `warpsim-vkref run --repeat 15`, twice, with the SM clock sampled
# through the runs and provenance.txt, packed into $OUT/e39.tgz
# (run_scenes_h200.sh); then the timing families (samples/timing_families/)
# the same way into $OUT/families.tgz, to set this machine's figures
# beside the H200's records of them.
bash "$(dirname "$0")/run_scenes_h200.sh" e39-load-patterns \
  samples/h200/e39_load_patterns l1_coalesced.amber e39.tgz
exec bash "$(dirname "$0")/run_scenes_h200.sh" families \
  samples/timing_families memory_loads.amber families.tgz
