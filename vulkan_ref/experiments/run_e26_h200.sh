# E26 on the GPU machine (vulkan_ref/experiments/e26_chase_draw.py): each
# scene of samples/h200/e26_chase_draw/ with `warpsim-vkref run --repeat
# 15`, twice, with the SM clock sampled through the runs and provenance.txt,
# packed into $OUT/e26.tgz (run_scenes_h200.sh).
exec bash "$(dirname "$0")/run_scenes_h200.sh" e26-chase-draw \
  samples/h200/e26_chase_draw ring.amber e26.tgz
