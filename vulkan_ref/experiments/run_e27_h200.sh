# E27 on the GPU machine (vulkan_ref/experiments/e27_branch_bodies.py):
# each scene of samples/h200/e27_branch_bodies/ with `warpsim-vkref run
# --repeat 15`, twice, with the SM clock sampled through the runs and
# provenance.txt, packed into $OUT/e27.tgz (run_scenes_h200.sh).
exec bash "$(dirname "$0")/run_scenes_h200.sh" e27-branch-bodies \
  samples/h200/e27_branch_bodies never.amber e27.tgz
