#!/bin/sh
# Usage: check_device.sh WARPSIM_VKREF COMMAND...
# Runs COMMAND when warpsim-vkref sees a CPU Vulkan device (lavapipe).
# Without one it exits 77 (ctest: skipped) with a message, unless CI=true,
# where lavapipe is part of the setup (tools/setup.sh) and its absence fails.
vkref=$1
shift
if "$vkref" devices | grep -q '\[cpu,'; then
  exec "$@"
fi
if [ "$CI" = "true" ]; then
  echo "check_device.sh: no lavapipe device (mesa-vulkan-drivers) with CI=true" >&2
  exit 1
fi
echo "check_device.sh: skipped: no lavapipe Vulkan device (install mesa-vulkan-drivers)" >&2
exit 77
