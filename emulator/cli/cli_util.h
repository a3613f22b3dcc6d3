// Command-line helpers the warpsim subcommands share (hand-written option
// parsing, like the rest of the CLI: each subcommand has few options and its
// own help text and exit codes).
#ifndef WARPSIM_CLI_CLI_UTIL_H_
#define WARPSIM_CLI_CLI_UTIL_H_

#include <cstdint>
#include <string>

#include "runner/gpu_config.h"

namespace warpsim::cli {

constexpr int kExitUsage = 64;

// A decimal unsigned number, the whole string.
bool ParseUint(const char* s, uint64_t* out);

// Prints "warpsim: MESSAGE" and the help text to stderr; returns 64.
int Usage(const std::string& message, const char* help);

// --gpu-config ARG: a preset name or a JSON file. A word that names neither
// is a mistyped preset: a bad command line (64, with the presets listed);
// a file that does not load is invalid input (2, with its diagnostic).
// Returns 0 and fills *config on success.
int LoadGpuConfigArg(const char* arg, const char* help,
                     runner::GpuConfig* config);

// Writes `data` next to `path`, then renames it into place: a crash never
// leaves a partial file that looks complete. Creates missing parent
// directories. False when it cannot.
bool WriteFileAtomically(const std::string& path, const std::string& data);

}  // namespace warpsim::cli

#endif  // WARPSIM_CLI_CLI_UTIL_H_
