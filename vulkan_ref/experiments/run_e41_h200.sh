# E41 on the GPU machine (vulkan_ref/experiments/e41_store_patterns.py):
# each scene of samples/h200/e41_store_patterns/ (one a variant) with
# `warpsim-vkref run --repeat 15`, twice, with the SM clock sampled
# through the runs and provenance.txt, packed into $OUT/e41.tgz
# (run_scenes_h200.sh).
exec bash "$(dirname "$0")/run_scenes_h200.sh" e41-store-patterns \
  samples/h200/e41_store_patterns small_coalesced.amber e41.tgz
