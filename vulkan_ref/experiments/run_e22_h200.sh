# E22 on the GPU machine (vulkan_ref/experiments/e22_fragment_lines.py): the scene
# samples/h200/e22_fragment_lines/e22.amber, timed by run_scene_h200.sh into
# $OUT/e22-fragment-lines/ (e22.json, e22.log, provenance.txt).
exec bash "$(dirname "$0")/run_scene_h200.sh" e22-fragment-lines \
  samples/h200/e22_fragment_lines/e22.amber e22
