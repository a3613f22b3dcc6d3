# E43 on the GPU machine (vulkan_ref/experiments/e43_texture_path.py):
# each scene of samples/h200/e43_texture_path/ (one a variant) with
# `warpsim-vkref run --repeat 15`, twice, with the SM clock sampled
# through the runs and provenance.txt, packed into $OUT/e43.tgz
# (run_scenes_h200.sh).
exec bash "$(dirname "$0")/run_scenes_h200.sh" e43-texture-path \
  samples/h200/e43_texture_path f_none.amber e43.tgz
