# E38 on the GPU machine (vulkan_ref/experiments/e38_chase_code.py): the
# scenes samples/h200/e38_chase_code/steps{64,128}.amber into
# $OUT/e38-chase-code/ (run_trips_h200.sh: the driver's code sizes and the
# dispatches' GPU times, runs.txt).
exec bash "$(dirname "$0")/run_trips_h200.sh" e38-chase-code \
  samples/h200/e38_chase_code steps64 steps128
