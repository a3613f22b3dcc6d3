# E46 on the GPU machine (vulkan_ref/experiments/e46_chase_body.py):
# each scene of samples/h200/e46_chase_body/ (one a variant) with
# `warpsim-vkref run --repeat 15`, twice, with the SM clock sampled
# through the runs and provenance.txt, packed into $OUT/e46.tgz
# (run_scenes_h200.sh).
exec bash "$(dirname "$0")/run_scenes_h200.sh" e46-chase-body \
  samples/h200/e46_chase_body count.amber e46.tgz
