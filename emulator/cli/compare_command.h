// `warpsim compare`: what two or more ways of writing a shader cost on
// the same scene, per variant and per branch (regress/, profile/).
#ifndef WARPSIM_CLI_COMPARE_COMMAND_H_
#define WARPSIM_CLI_COMPARE_COMMAND_H_

namespace warpsim::cli {

// argv holds the arguments after "compare". Exit codes: 0 compared; 1 a
// variant is more than --fail-above PCT slower than the baseline; 2 invalid
// input; 3 unsupported; 4 the warp instruction limit stopped a variant; 64
// bad command line.
int CompareCommand(int argc, char** argv);

}  // namespace warpsim::cli

#endif  // WARPSIM_CLI_COMPARE_COMMAND_H_
