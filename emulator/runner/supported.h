// What the executor supports of Amber's DEVICE_FEATURE and
// DEVICE_EXTENSION names; a scene asking for anything else is unsupported,
// by name.
#ifndef WARPSIM_RUNNER_SUPPORTED_H_
#define WARPSIM_RUNNER_SUPPORTED_H_

#include <set>
#include <string>

namespace warpsim::runner {

const std::set<std::string>& SupportedFeatures();
const std::set<std::string>& SupportedExtensions();

}  // namespace warpsim::runner

#endif  // WARPSIM_RUNNER_SUPPORTED_H_
