// `warpsim occupancy`: the occupancy rules (sm/occupancy.h) from the command
// line.
#ifndef WARPSIM_CLI_OCCUPANCY_COMMAND_H_
#define WARPSIM_CLI_OCCUPANCY_COMMAND_H_

namespace warpsim::cli {

// argv holds the arguments after "occupancy". Exit codes: 0 the answer;
// 2 a launch the hardware refuses (the reason on stderr), or a GPU config
// file that does not load; 64 bad command line.
int OccupancyCommand(int argc, char** argv);

}  // namespace warpsim::cli

#endif  // WARPSIM_CLI_OCCUPANCY_COMMAND_H_
