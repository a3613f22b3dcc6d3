# E35 on the GPU machine (vulkan_ref/experiments/e35_branch_unroll.py): the
# scenes samples/h200/e35_branch_unroll/trips{1024,2048}.amber into
# $OUT/e35-branch-unroll/ (run_trips_h200.sh: the driver's code sizes and
# the dispatches' GPU times, runs.txt).
exec bash "$(dirname "$0")/run_trips_h200.sh" e35-branch-unroll \
  samples/h200/e35_branch_unroll
