# E36 on the GPU machine (vulkan_ref/experiments/e36_chase_ring.py): the
# scenes samples/h200/e36_chase_ring/trips{1024,2048}.amber into
# $OUT/e36-chase-ring/ (run_trips_h200.sh: the dispatches' GPU times,
# runs.txt), then E24's scene on the same machine (run_scene_h200.sh) into
# $OUT/e36-chase-ring/e24/.
set -u
bash "$(dirname "$0")/run_trips_h200.sh" e36-chase-ring \
  samples/h200/e36_chase_ring
OUT=$OUT/e36-chase-ring bash "$(dirname "$0")/run_scene_h200.sh" e24 \
  samples/h200/e24_chase_steps/e24.amber e24
