# E44 on the GPU machine (vulkan_ref/experiments/e44_texture_check.py):
# each scene of samples/h200/e44_texture_check/ (one a variant) with
# `warpsim-vkref run --repeat 15`, twice, with the SM clock sampled
# through the runs and provenance.txt, packed into $OUT/e44.tgz
# (run_scenes_h200.sh).
exec bash "$(dirname "$0")/run_scenes_h200.sh" e44-texture-check \
  samples/h200/e44_texture_check f_none.amber e44.tgz
