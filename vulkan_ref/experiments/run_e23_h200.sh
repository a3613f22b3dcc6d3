# E23 on the GPU machine (vulkan_ref/experiments/e23_fragment_l1.py): the scene
# samples/h200/e23_fragment_l1/e23.amber, timed by run_scene_h200.sh into
# $OUT/e23-fragment-l1/ (e23.json, e23.log, provenance.txt).
exec bash "$(dirname "$0")/run_scene_h200.sh" e23-fragment-l1 \
  samples/h200/e23_fragment_l1/e23.amber e23
