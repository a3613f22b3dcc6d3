# E28 on the GPU machine (vulkan_ref/experiments/e28_branch_warps.py):
# each scene of samples/h200/e28_branch_warps/ with `warpsim-vkref run
# --repeat 15`, twice, with the SM clock sampled through the runs and
# provenance.txt, packed into $OUT/e28.tgz (run_scenes_h200.sh).
exec bash "$(dirname "$0")/run_scenes_h200.sh" e28-branch-warps \
  samples/h200/e28_branch_warps s8.amber e28.tgz
