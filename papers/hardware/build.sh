#!/usr/bin/env bash
# Build every case kernel and the driver into one program, build/hwcases (sm_90a: H100/H200).
#
#   bash papers/hardware/build.sh            # all kernels, one nvcc per file, in parallel
#   NVCC=/path/to/nvcc JOBS=4 bash ...       # another compiler / parallelism
#   ARCH="-gencode=arch=compute_90a,code=sm_90a" (default) selects the target.
#
# Each kernels/*.cu is compiled on its own (whole-program mode: its __constant__ table lives in
# its own module), then linked with cuda/driver.cu. PTX=1 also keeps each kernel's PTX in
# build/ptx/ (nvcc -ptx). check_sass.py reads the SASS of build/obj/*.o (cuobjdump).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="${BUILD:-$HERE/build}"
NVCC="${NVCC:-nvcc}"
ARCH="${ARCH:--gencode=arch=compute_90a,code=sm_90a}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 4)}"
FLAGS="-O3 -std=c++17 -lineinfo $ARCH"

rm -rf "$BUILD/obj"
mkdir -p "$BUILD/obj" "$BUILD/ptx"
PTX="${PTX:-0}"
export HERE BUILD NVCC FLAGS PTX
compile_one() {
  local src="$1" base
  base="$(basename "$src" .cu)"
  # shellcheck disable=SC2086
  "$NVCC" $FLAGS -c "$src" -o "$BUILD/obj/$base.o"
  if [ "$PTX" = 1 ]; then
    # shellcheck disable=SC2086
    "$NVCC" $FLAGS -ptx "$src" -o "$BUILD/ptx/$base.ptx"
  fi
}
export -f compile_one

start=$(date +%s)
ls "$HERE"/kernels/*.cu "$HERE"/cuda/driver.cu | xargs -P "$JOBS" -I{} bash -c 'compile_one "$@"' _ {}
# shellcheck disable=SC2086
"$NVCC" $FLAGS -o "$BUILD/hwcases" "$BUILD"/obj/*.o
echo "built $BUILD/hwcases from $(ls "$HERE"/kernels/*.cu | wc -l) sources in $(( $(date +%s) - start )) s"
