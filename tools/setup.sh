#!/usr/bin/env bash
# Installs the Debian 12 packages warpsim needs to build and test.
#
# Idempotent: asks dpkg which packages are missing and does nothing (no
# apt-get, no network) when none are. Otherwise runs `apt-get update` and
# installs only the missing ones. Runs as root, or through sudo when it is
# available.
#
# Usage: tools/setup.sh           install what is missing
#        tools/setup.sh --check   list what is missing; exit 1 if anything is
set -euo pipefail

# One line per package, with the reason it is here.
packages=(
  build-essential     # g++ (C++20), make
  cmake               # build system (>= 3.25)
  pkg-config          # used by some find_package() configs
  git                 # tools/check_format.sh lists files with git ls-files
  clang-format        # Google style check (Debian 12: clang-format 14)
  glslang-dev         # GLSL -> SPIR-V front end (library)
  glslang-tools       # glslangValidator, to compile shaders by hand
  spirv-tools         # SPIRV-Tools: validator, assembler, spirv-opt (library + tools)
  spirv-headers       # spirv.hpp and the Khronos grammar JSON the opcode table is generated from
  libvulkan-dev       # Vulkan headers (enums, formats) and loader (vulkan_ref/ links it)
  mesa-vulkan-drivers # lavapipe, the CPU Vulkan device warpsim-vkref and its tests run on
  catch2              # unit tests (Catch2 v2)
  nlohmann-json3-dev  # JSON reports and GPU configs
  libstb-dev          # stb_image_write for PNG output
  libbenchmark-dev    # Google Benchmark (bench/)
  valgrind            # bench/instructions.py: callgrind counts a frame's host instructions
  clang-14            # fuzz/ targets: libFuzzer needs clang (WARPSIM_BUILD_FUZZERS)
  libclang-rt-14-dev  # fuzz/: clang's ASan, UBSan and libFuzzer runtimes (-fsanitize=fuzzer)
  libfuzzer-14-dev    # fuzz/: libFuzzer.a, for linking a fuzz target into another driver
  libglfw3-dev        # warpsim-viz: windows and input (GLFW)
  libimgui-dev        # warpsim-viz: Dear ImGui 1.86 with its GLFW and OpenGL3 backends
  libgl-dev           # warpsim-viz: OpenGL
  xvfb                # warpsim-viz's screenshot tests: a display without a screen
  xauth               # xvfb-run needs it
  python3-matplotlib  # samples/experiments/: the figures
)

usage() {
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
}

check_only=false
case "${1:-}" in
  "") ;;
  --check) check_only=true ;;
  -h | --help) usage; exit 0 ;;
  *) echo "setup.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup.sh: dpkg-query not found; this script supports Debian 12 only." >&2
  echo "Install these packages (Debian names) by other means: ${packages[*]}" >&2
  exit 1
fi

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup.sh: all ${#packages[@]} packages present; nothing to do."
  exit 0
fi

echo "setup.sh: missing packages: ${missing[*]}"
if $check_only; then
  exit 1
fi

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "setup.sh: not root and sudo is not available; as root, run:" >&2
  echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi

echo "setup.sh: installing ${#missing[@]} package(s) with apt-get"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing[@]}"
echo "setup.sh: installed: ${missing[*]}"
