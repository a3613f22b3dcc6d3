// Helpers for tests that need a Vulkan device: lavapipe, or a clear skip.
#ifndef WARPSIM_TESTS_VULKAN_REF_VK_TEST_UTIL_H_
#define WARPSIM_TESTS_VULKAN_REF_VK_TEST_UTIL_H_

#include <string>

#include "vulkan_ref/vk_runner.h"

namespace warpsim::vkref::testing {

// True when lavapipe is there. Otherwise the test should return: a WARN
// says it was skipped, and with CI=true (where tools/setup.sh installs
// lavapipe) the test FAILs instead.
bool HaveLavapipe();

// Parses and runs inline AmberScript on lavapipe.
DeviceRunReport RunText(const std::string& amber, uint32_t repeat = 1);

// status, diagnostic and failed expectations, for INFO().
std::string Describe(const DeviceRunReport& report);

}  // namespace warpsim::vkref::testing

#endif  // WARPSIM_TESTS_VULKAN_REF_VK_TEST_UTIL_H_
