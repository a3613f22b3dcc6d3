#!/usr/bin/env bash
# Configures and builds warpsim (Release, -O2). The CLI ends up at
# $BUILD_DIR/warpsim (default build/warpsim).
#
# Usage: tools/build.sh [extra cmake -D options]
#   BUILD_DIR=dir    build into dir instead of build/
#   CI=true          warnings are errors (-DWARPSIM_WERROR=ON); otherwise OFF
# Options given on the command line come last, so they win, e.g.
#   BUILD_DIR=build-asan tools/build.sh -DWARPSIM_SANITIZE=ON
#   tools/build.sh -DCMAKE_BUILD_TYPE=Debug
set -euo pipefail

if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi

cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build}"

# Explicit ON/OFF so that a CI configure does not leave -Werror cached in a
# developer's build directory.
werror=OFF
if [[ "${CI:-}" == "true" ]]; then
  werror=ON
fi

cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DWARPSIM_WERROR="$werror" "$@"
cmake --build "$build_dir" -j"$(nproc)"
if [[ -x "$build_dir/warpsim" ]]; then
  echo "build.sh: built $build_dir/warpsim"
fi
