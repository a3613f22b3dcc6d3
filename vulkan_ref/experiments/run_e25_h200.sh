# E25 on the GPU machine (vulkan_ref/experiments/e25_chase_warps.py): the scene
# samples/h200/e25_chase_warps/e25.amber, timed by run_scene_h200.sh into
# $OUT/e25-chase-warps/ (e25.json, e25.log, provenance.txt).
exec bash "$(dirname "$0")/run_scene_h200.sh" e25-chase-warps \
  samples/h200/e25_chase_warps/e25.amber e25
