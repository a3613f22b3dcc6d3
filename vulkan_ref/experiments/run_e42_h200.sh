# E42 on the GPU machine (vulkan_ref/experiments/e42_memory_slots.py):
# each scene of samples/h200/e42_memory_slots/ (one a variant) with
# `warpsim-vkref run --repeat 15`, twice, with the SM clock sampled
# through the runs and provenance.txt, packed into $OUT/e42.tgz
# (run_scenes_h200.sh).
exec bash "$(dirname "$0")/run_scenes_h200.sh" e42-memory-slots \
  samples/h200/e42_memory_slots ffma16.amber e42.tgz
