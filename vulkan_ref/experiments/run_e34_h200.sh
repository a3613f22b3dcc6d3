# E34 on the GPU machine (vulkan_ref/experiments/e34_unroll_limit.py): the
# scenes samples/h200/e34_unroll_limit/trips{1024,2048}.amber into
# $OUT/e34-unroll-limit/ (run_trips_h200.sh: the driver's code sizes and
# the dispatches' GPU times, runs.txt).
exec bash "$(dirname "$0")/run_trips_h200.sh" e34-unroll-limit \
  samples/h200/e34_unroll_limit
