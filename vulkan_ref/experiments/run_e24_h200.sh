# E24 on the GPU machine (vulkan_ref/experiments/e24_chase_steps.py): the scene
# samples/h200/e24_chase_steps/e24.amber, timed by run_scene_h200.sh into
# $OUT/e24-chase-steps/ (e24.json, e24.log, provenance.txt).
exec bash "$(dirname "$0")/run_scene_h200.sh" e24-chase-steps \
  samples/h200/e24_chase_steps/e24.amber e24
