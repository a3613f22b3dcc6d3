#!/usr/bin/env bash
# Builds the fuzz targets' seed corpora from the conformance corpus and the
# repository, one folder per target under OUT (default build-fuzz/seeds):
#   amber_script/  the corpus's .amber files as they are
#   vk_script/     the corpus's .vkscript files (for the VkScript target)
#   spirv_program/ SPIR-V binaries: every GLSL and SPIRV-ASM shader embedded
#                  in an .amber file (SHADER ... END), compiled with
#                  glslangValidator or assembled with spirv-as, plus the
#                  corpus's .spv files and standalone GLSL / .spvasm shaders
#   png/           PNGs from tests/golden and the corpus
#   gpu_config/    the presets as JSON and the configs the tests use
# Seeds are named by content hash, so duplicates collapse. Shaders that do
# not compile are skipped (the corpus has HLSL, OpenCL C, and some shaders
# that need an environment the tools are not given).
#
# Usage: fuzz/make_seeds.sh [OUT]
#   CORPUS=dir   conformance corpus (default ../shared/conformance, else
#                shared/conformance)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$repo/build-fuzz/seeds}" && cd "${1:-$repo/build-fuzz/seeds}" && pwd)
corpus=${CORPUS:-}
if [[ -z "$corpus" ]]; then
  for c in "$repo/../shared/conformance" "$repo/shared/conformance"; do
    if [[ -d "$c" ]]; then corpus=$(cd "$c" && pwd); break; fi
  done
fi
if [[ -z "$corpus" || ! -d "$corpus" ]]; then
  echo "make_seeds.sh: conformance corpus not found (set CORPUS)" >&2
  exit 1
fi
for tool in glslangValidator spirv-as sha1sum awk; do
  command -v "$tool" >/dev/null || { echo "make_seeds.sh: $tool not found" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# add_seed TARGET FILE EXT: copies FILE into TARGET's folder under its hash.
add_seed() {
  local hash
  hash=$(sha1sum "$2" | cut -c1-16)
  cp "$2" "$out/$1/$hash$3"
}

for t in amber_script vk_script spirv_program png gpu_config; do
  rm -rf "${out:?}/$t"
  mkdir -p "$out/$t"
done

# Text corpora as they are.
while IFS= read -r -d '' f; do add_seed amber_script "$f" .amber; done \
  < <(find "$corpus" -name '*.amber' -print0)
while IFS= read -r -d '' f; do add_seed vk_script "$f" .vkscript; done \
  < <(find "$corpus" -name '*.vkscript' -print0)

# Shaders embedded in .amber files: one file per SHADER ... END block, named
# N.<stage>.<format>[.<target env>] (PASSTHROUGH and FILE shaders have no
# body and are skipped).
mkdir -p "$work/shaders"
find "$corpus" -name '*.amber' -print0 | xargs -0 awk -v dir="$work/shaders" '
  FNR == 1 { inside = 0 }
  !inside && $1 == "SHADER" && ($4 == "GLSL" || $4 == "SPIRV-ASM") &&
      $5 != "FILE" && $5 != "VIRTUAL_FILE" {
    env = ($5 == "TARGET_ENV") ? "." $6 : ""
    name = dir "/" (++n) "." $2 "." $4 env
    inside = 1
    next
  }
  inside && $1 == "END" && NF == 1 { inside = 0; close(name); next }
  inside { print > name }'
# Standalone shaders in the corpus and the repository.
find "$corpus" "$repo/shaders" "$repo/samples" -type f \
  \( -name '*.comp' -o -name '*.vert' -o -name '*.frag' -o -name '*.spvasm' \) \
  2>/dev/null | while IFS= read -r f; do
  case "$f" in
    *.comp) cp "$f" "$work/shaders/f$RANDOM$RANDOM.compute.GLSL" ;;
    *.vert) cp "$f" "$work/shaders/f$RANDOM$RANDOM.vertex.GLSL" ;;
    *.frag) cp "$f" "$work/shaders/f$RANDOM$RANDOM.fragment.GLSL" ;;
    *.spvasm) cp "$f" "$work/shaders/f$RANDOM$RANDOM.any.SPIRV-ASM" ;;
  esac
done

# build_shader FILE: compiles or assembles one extracted shader to FILE.spv.
build_shader() {
  local f=$1 base stage format env
  base=$(basename "$f")
  IFS=. read -r _ stage format env <<<"$base"
  if [[ "$format" == GLSL ]]; then
    local s
    case "$stage" in
      vertex) s=vert ;; fragment) s=frag ;; compute) s=comp ;;
      geometry) s=geom ;; tessellation_control) s=tesc ;;
      tessellation_evaluation) s=tese ;; *) return 0 ;;
    esac
    local genv=vulkan1.0
    case "$env" in spv1.[3]) genv=vulkan1.1 ;; spv1.[45]) genv=vulkan1.2 ;;
      spv1.6) genv=vulkan1.3 ;; esac
    glslangValidator -V --target-env "$genv" -S "$s" -o "$f.spv" "$f" \
      >/dev/null 2>&1 || rm -f "$f.spv"
  else
    spirv-as --target-env "${env:-spv1.0}" -o "$f.spv" "$f" >/dev/null 2>&1 ||
      spirv-as --target-env spv1.6 -o "$f.spv" "$f" >/dev/null 2>&1 ||
      rm -f "$f.spv"
  fi
}
export -f build_shader
find "$work/shaders" -type f -print0 |
  xargs -0 -n 16 -P "$(nproc)" bash -c 'for f; do build_shader "$f"; done' _
while IFS= read -r -d '' f; do add_seed spirv_program "$f" .spv; done \
  < <(find "$work/shaders" "$corpus" -name '*.spv' -print0)

# PNGs.
while IFS= read -r -d '' f; do add_seed png "$f" .png; done \
  < <(find "$repo/tests/golden" "$repo/samples" "$corpus" -name '*.png' -print0)

# GPU configs: both presets spelled out, and the shapes the tests use.
i=0
while IFS= read -r line; do
  i=$((i + 1))
  printf '%s\n' "$line" >"$work/gpu$i.json"
  add_seed gpu_config "$work/gpu$i.json" .json
done <<'JSON'
{"preset": "h200"}
{"preset": "teaching"}
{"name": "h200", "warp_width": 32, "vertex_batch_indices": 96, "tile_size": 16, "quad_packing": "per_primitive", "derivatives": "coarse", "kill": "terminate", "max_warp_instructions": 4000000000}
{"name": "teaching", "warp_width": 8, "vertex_batch_indices": 24, "tile_size": 8, "quad_packing": "mixed", "derivatives": "fine", "kill": "demote", "max_warp_instructions": 1000}
{"preset": "teaching", "warp_width": 16, "tile_size": 32, "quad_packing": "mixed", "derivatives": "fine", "kill": "demote"}
{"warp_width": 6}
{"tile_size": 1e3, "name": "x\u00e9"}
[1, 2.5, null, true, false, "s", {"a": {}}]
JSON

for t in amber_script vk_script spirv_program png gpu_config; do
  printf 'make_seeds.sh: %-14s %5d seeds\n' "$t" "$(find "$out/$t" -type f | wc -l)"
done
echo "make_seeds.sh: seeds in $out"
