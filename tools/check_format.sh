#!/usr/bin/env bash
# Checks C++ (and CUDA) sources against .clang-format (Google style) with
# clang-format --dry-run --Werror; exits 1 listing the files that differ.
#
# Usage: tools/check_format.sh           check the repository's files
#        tools/check_format.sh --fix     reformat them in place
#        tools/check_format.sh FILE...   check only these files
# Repository files are those git knows (tracked, plus untracked ones that are
# not ignored) under emulator/ tests/ tools/ bench/ fuzz/ visualizer/ cuda_ref/
# vulkan_ref/, skipping any third_party/ folder.
set -euo pipefail

usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; }

fix=false
files=()
for arg in "$@"; do
  case "$arg" in
    --fix) fix=true ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "check_format.sh: unknown option '$arg'" >&2; usage >&2; exit 2 ;;
    *) files+=("$arg") ;;
  esac
done

repo_root=$(cd "$(dirname "$0")/.." && pwd)
# Name the style file explicitly so files outside the repository (given as
# arguments) are checked against it too, not against clang-format's fallback.
style="file:$repo_root/.clang-format"
clang_format="${CLANG_FORMAT:-clang-format}"
if ! command -v "$clang_format" >/dev/null 2>&1; then
  echo "check_format.sh: $clang_format not found (run tools/setup.sh)" >&2
  exit 2
fi
version=$("$clang_format" --version)
if [[ "$version" != *"version 14."* ]]; then
  echo "check_format.sh: warning: CI uses clang-format 14; this is: $version" >&2
fi

for f in "${files[@]}"; do
  if [[ ! -f "$f" ]]; then
    echo "check_format.sh: no such file: $f" >&2
    exit 2
  fi
done

if [[ ${#files[@]} -eq 0 ]]; then
  cd "$repo_root"
  dirs=(emulator tests tools bench fuzz visualizer cuda_ref vulkan_ref)
  while IFS= read -r -d '' f; do
    case "$f" in
      third_party/* | */third_party/*) continue ;;
      *.h | *.hpp | *.cpp | *.cc | *.cu | *.cuh) ;;
      *) continue ;;
    esac
    [[ -f "$f" ]] && files+=("$f")  # skip tracked files deleted in the work tree
  done < <(git ls-files -z --cached --others --exclude-standard -- "${dirs[@]}" | sort -zu)
fi

if [[ ${#files[@]} -eq 0 ]]; then
  echo "check_format.sh: no files to check"
  exit 0
fi

if $fix; then
  "$clang_format" -i --style="$style" "${files[@]}"
  echo "check_format.sh: formatted ${#files[@]} file(s)"
  exit 0
fi

bad=()
for f in "${files[@]}"; do
  if ! "$clang_format" --dry-run --Werror --style="$style" "$f" >/dev/null 2>&1; then
    bad+=("$f")
  fi
done

if [[ ${#bad[@]} -eq 0 ]]; then
  echo "check_format.sh: ${#files[@]} file(s) formatted correctly"
  exit 0
fi

echo "check_format.sh: ${#bad[@]} of ${#files[@]} file(s) need clang-format:"
printf '  %s\n' "${bad[@]}"
# Show what would change in the first few, so a CI log is enough to fix them.
for f in "${bad[@]:0:3}"; do
  echo "--- $f (first 40 lines of the diff)"
  "$clang_format" --style="$style" "$f" | diff -u "$f" - | sed -n '3,42p' || true
done
echo "Fix with: tools/check_format.sh --fix"
exit 1
