# E37 on the GPU machine (vulkan_ref/experiments/e37_fragment_loads.py):
# samples/h200/e37_fragment_loads/loads.amber with `warpsim-vkref run
# --repeat 15`, twice, with the SM clock sampled through the runs and
# provenance.txt, packed into $OUT/e37.tgz (run_scenes_h200.sh).
exec bash "$(dirname "$0")/run_scenes_h200.sh" e37-fragment-loads \
  samples/h200/e37_fragment_loads loads.amber e37.tgz
