#!/usr/bin/env bash
# The SASS NVIDIA's Vulkan driver makes of each scene's shaders, on the GPU
# machine: every scene given (a folder's *.amber, or files) runs once with
# `warpsim-vkref run --repeat 1` with the driver's shader disk cache in a
# folder of its own (__GL_SHADER_DISK_CACHE_PATH), then
# nv_shader_cache.py unpacks that cache and disassembles its code with the
# CUDA toolkit's nvdisasm. Packed into $OUT/TGZ: per scene its report
# (the pipelines' register counts and binary sizes), the cache as the
# driver wrote it, the unpacked objects and the .sass text, with
# provenance.txt (GPU, driver, date, commit, command). Scenes run in the
# order given until DEADLINE seconds have passed (default 300); the rest
# are listed as not run. Needs build/warpsim-vkref, Debian's Vulkan loader
# in .gl/ and Debian's zstd in .zstd/ (vulkan_ref/README.md, "On the GPU
# machine"). WARPSIM_COMMIT names the commit the binary was built from.
#   usage: run_sass_h200.sh RECORD_NAME TGZ SCENE_DIR_OR_FILE...
set -u
name=$1 tgz=$2
shift 2
deadline=$((SECONDS + ${DEADLINE:-300}))
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
mkdir -p /tmp/zstdroot
for f in .zstd/*.deb; do dpkg -x $f /tmp/zstdroot; done
export PATH=/tmp/zstdroot/usr/bin:$PATH
export LD_LIBRARY_PATH=/tmp/zstdroot/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=/tmp/$name; rm -rf $R; mkdir -p $R
{ date -u +%Y-%m-%dT%H:%M:%SZ; echo "commit ${WARPSIM_COMMIT:-$(git rev-parse --short=12 HEAD)}"; nvidia-smi --query-gpu=name,driver_version --format=csv; nvdisasm --version | tail -2; zstd --version; ./build/warpsim-vkref devices; } > $R/provenance.txt 2>&1
py=$(dirname "$0")/nv_shader_cache.py
for arg in "$@"; do
  if [ -d "$arg" ]; then files=$(ls $arg/*.amber); else files=$arg; fi
  for f in $files; do
    tag=$(basename $(dirname $f))__$(basename $f .amber)
    if [ $SECONDS -ge $deadline ]; then
      echo "not run (deadline) $f" >> $R/provenance.txt
      continue
    fi
    d=$R/$tag; mkdir -p $d/cache
    __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH=$d/cache \
      __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 \
      ./build/warpsim-vkref run $f --device nvidia --repeat 1 \
      --shader-cache off --json $d/report.json > $d/run.log 2>&1
    rc=$?
    python3 $py extract $d/cache $d/objects > $d/extract.txt 2>&1
    python3 $py disasm $d/objects > $d/disasm.txt 2>&1
    echo "scene $f exit $rc, extract $(wc -l < $d/extract.txt) objects, $(ls $d/objects/*.sass 2>/dev/null | wc -l) sass" >> $R/provenance.txt
  done
done
{ date -u +%Y-%m-%dT%H:%M:%SZ; echo "command: for each scene F: __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH=TAG/cache __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 warpsim-vkref run F --device nvidia --repeat 1 --shader-cache off --json TAG/report.json; nv_shader_cache.py extract TAG/cache TAG/objects; nv_shader_cache.py disasm TAG/objects"; } >> $R/provenance.txt
tar czf $OUT/$tgz -C /tmp $name
cat $R/provenance.txt
