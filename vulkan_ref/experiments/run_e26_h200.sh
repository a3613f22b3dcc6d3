# E26 on the GPU machine (vulkan_ref/experiments/e26_chase_draw.py): the scene
# samples/h200/e26_chase_draw/e26.amber, timed by run_scene_h200.sh into
# $OUT/e26-chase-draw/ (e26.json, e26.log, provenance.txt).
exec bash "$(dirname "$0")/run_scene_h200.sh" e26-chase-draw \
  samples/h200/e26_chase_draw/e26.amber e26
