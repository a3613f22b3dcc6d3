// `warpsim-vkref crosscheck FILE.amber ...`: the command line around
// crosscheck.h (kept out of main.cpp, which holds `run` and `devices`).
#ifndef WARPSIM_VULKAN_REF_CROSSCHECK_CLI_H_
#define WARPSIM_VULKAN_REF_CROSSCHECK_CLI_H_

namespace warpsim::vkref {

extern const char kCrosscheckHelp[];

// argv: the words after "crosscheck". Returns the exit code: 0 agree,
// 1 differ, 2 invalid input (either side) or unwritable output, 3
// unsupported (either side, named), 4 the emulator's instruction limit,
// 64 bad command line.
int CrosscheckCommand(int argc, char** argv);

}  // namespace warpsim::vkref

#endif  // WARPSIM_VULKAN_REF_CROSSCHECK_CLI_H_
