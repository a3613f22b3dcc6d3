// `warpsim-vkref compare`: the variants `warpsim compare` runs (several
// files, or one file per value of a define), each timed on a Vulkan device
// (median GPU time of its draws and dispatches) and run in the emulator's
// timing mode (cycles), side by side as ratios to the baseline, with the
// rank correlation of the two.
#ifndef WARPSIM_VULKAN_REF_COMPARE_CLI_H_
#define WARPSIM_VULKAN_REF_COMPARE_CLI_H_

namespace warpsim::vkref {

// argv: the words after "compare". Returns the exit code: 0 compared, 2
// invalid input (either side), a device without timestamps or an
// unwritable output, 3 unsupported (either side), 4 the emulator's
// instruction limit, 64 bad command line.
int CompareCommand(int argc, char** argv);

}  // namespace warpsim::vkref

#endif  // WARPSIM_VULKAN_REF_COMPARE_CLI_H_
