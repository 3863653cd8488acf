#!/usr/bin/env bash
# Everything on the GPU machine in one command (an H100: the device tool's nvidia-h100-x1):
#
#   bash papers/hardware/run_on_gpu.sh
#
# 1. build.sh        — nvcc (sm_90a) every kernels/*.cu + cuda/driver.cu -> build/hwcases
#                      (PREBUILT=1: use a build/ made elsewhere with the same flags)
# 2. check_sass.py   — each loop issues exactly its instructions (cuobjdump) -> sass.json
# 3. runner.py       — ncu counters (clock64() timing if ncu cannot read them) -> measurements.json
# 4. compare.py      — the table against cases.json; its exit status is this script's
#
# Needs nvcc, ncu (Nsight Compute), cuobjdump and python3 (standard library only): not
# linlayout, which only generate.py uses (on any machine). When $OUT is set (the device tool),
# measurements.json, sass.json, compare.txt and build.log go there; else into this directory.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
PY="${PYTHON:-python3}"
start=$(date +%s)

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv || true
if [ "${PREBUILT:-0}" = 1 ] && [ -x build/hwcases ] && ls build/obj/*.o >/dev/null 2>&1; then
  # built on another machine with the same nvcc flags (carried in build/): skip the rebuild
  echo "using the prebuilt build/hwcases" > build.log
  rc=0
else
  bash build.sh > build.log 2>&1
  rc=$?
fi
tail -3 build.log
if [ "$rc" -ne 0 ]; then
  echo "build failed (see build.log)"
  [ -n "${OUT:-}" ] && cp build.log "$OUT/"
  exit 3
fi

# With $OUT set, results are written straight there (rewritten after every ncu chunk), so a
# run stopped at the device tool's 600 s limit still brings back what it measured.
DEST="${OUT:-$HERE}"
[ -n "${OUT:-}" ] && cp build.log "$OUT/"
"$PY" check_sass.py --out "$DEST/sass.json" | tail -5 || true

"$PY" runner.py --out "$DEST/measurements.json" --sass "$DEST/sass.json" \
  --raw-csv "$DEST/ncu_raw.csv" "$@"
"$PY" compare.py --measurements "$DEST/measurements.json" > compare.txt 2>&1
status=$?
cat compare.txt

if [ -n "${OUT:-}" ]; then
  cp compare.txt "$OUT/"
  cp "$OUT/measurements.json" "$HERE/measurements.json"
fi
echo "run_on_gpu.sh: $(( $(date +%s) - start )) s, compare exit status $status"
exit $status
