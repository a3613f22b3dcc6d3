// Registers per thread per pipeline and stage, read from a warpsim-vkref
// report (the driver's "Register Count" executable statistic), for timing
// runs that model occupancy with a real driver's allocation
// (`warpsim run --timing --registers-from REPORT.json`).
#ifndef WARPSIM_RUNNER_REGISTERS_FILE_H_
#define WARPSIM_RUNNER_REGISTERS_FILE_H_

#include <map>
#include <string>

#include "base/diagnostic.h"
#include "sm/timing.h"

namespace warpsim::runner {

// The report's pipelines[] entries that carry
// executable_statistics["Register Count"], by pipeline name and stage
// (vertex, fragment, compute). A missing or malformed file, or one with no
// such entry, is invalid input naming the file (and the JSON error's line).
Result<std::map<std::string, sm::StageRegisters>> LoadPipelineRegisters(
    const std::string& path);

}  // namespace warpsim::runner

#endif  // WARPSIM_RUNNER_REGISTERS_FILE_H_
