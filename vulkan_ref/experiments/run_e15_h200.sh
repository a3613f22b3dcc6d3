# E15 on the GPU machine (vulkan_ref/experiments/e15_draw_cost.py): each
# scene of samples/h200/e15_draw_cost/ with `warpsim-vkref run --repeat 15`,
# twice, with provenance.txt, packed into $OUT/e15.tgz
# (run_scenes_h200.sh).
exec bash "$(dirname "$0")/run_scenes_h200.sh" e15-draw-cost \
  samples/h200/e15_draw_cost w512.amber e15.tgz
