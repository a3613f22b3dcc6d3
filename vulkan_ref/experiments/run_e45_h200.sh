# E45 on the GPU machine (vulkan_ref/experiments/e45_divergent_paths.py):
# each scene of samples/h200/e45_divergent_paths/ (one a variant) with
# `warpsim-vkref run --repeat 15`, twice, with the SM clock sampled
# through the runs and provenance.txt, packed into $OUT/e45.tgz
# (run_scenes_h200.sh).
exec bash "$(dirname "$0")/run_scenes_h200.sh" e45-divergent-paths \
  samples/h200/e45_divergent_paths seq1.amber e45.tgz
