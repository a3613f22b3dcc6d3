// `warpsim test`: every scene under some paths, run in parallel and
// compared with a baseline (cli/test_command.cpp).
#ifndef WARPSIM_CLI_TEST_COMMAND_H_
#define WARPSIM_CLI_TEST_COMMAND_H_

namespace warpsim::cli {

// argv holds the arguments after "test". Exit codes: 0 every scene passed
// (or was unsupported) and none regressed; 1 a scene failed or regressed;
// 2 a baseline that does not load or an output that cannot be written; 64
// bad command line.
int TestCommand(int argc, char** argv);

}  // namespace warpsim::cli

#endif  // WARPSIM_CLI_TEST_COMMAND_H_
