#!/usr/bin/env bash
# A second look at chosen Triton kernels on the GPU machine (from the repository root):
#
#   bash papers/hardware/triton/investigate_on_gpu.sh [KERNEL ...]
#
# 1. run.py measure with each kernel launched REPEATS times (default 8) in one ncu process:
#    do the counts vary from launch to launch (concurrent warps, stray counts) or not?
#    -> repeat_measurements.json (+ .csv)
# 2. ncu's SourceCounters section on one launch of each: per SASS instruction, how many warps
#    executed it and its shared-memory wavefronts -> source_counters.csv (+ .err)
# 3. the kernels' SASS (cuobjdump -sass) -> sass.txt
# 4. every kernel once more (run.py measure) -> triton_measurements_2.json (+ .csv)
# Needs ncu, cuobjdump and python3. At most 7 files in $OUT.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
DEST="${OUT:-$HERE/out}"
mkdir -p "$DEST"
KERNELS=("$@")
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(tk_sum0_i8_w8 tk_max1_f16_w8 tk_dot_bf16_w2)
REPEATS="${REPEATS:-8}"
names=()
for k in "${KERNELS[@]}"; do for _ in $(seq "$REPEATS"); do names+=("$k"); done; done
export PYTHONUNBUFFERED=1
start=$(date +%s)
timeout 150 python3 run.py measure --out "$DEST/repeat_measurements.json" --budget 130 "${names[@]}"
echo "repeat measure exit $? after $(( $(date +%s) - start )) s"

NCU="$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || echo ncu)"
rep="$(mktemp -d)/src"
timeout 150 "$NCU" --clock-control none --section SourceCounters --import-source no \
  --export "$rep" --force-overwrite python3 run.py launch "${KERNELS[@]}" > "$DEST/source_counters.err" 2>&1
echo "ncu SourceCounters exit $? after $(( $(date +%s) - start )) s"
timeout 60 "$NCU" --import "$rep.ncu-rep" --page source --csv --print-source sass \
  > "$DEST/source_counters.csv" 2>> "$DEST/source_counters.err"
echo "ncu --page source exit $?; $(wc -l < "$DEST/source_counters.csv") lines"

CUOBJDUMP="$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null || echo cuobjdump)"
for k in "${KERNELS[@]}"; do echo "== $k"; "$CUOBJDUMP" -sass "kernels/$k.cubin"; done > "$DEST/sass.txt" 2>&1

timeout 130 python3 run.py measure --out "$DEST/triton_measurements_2.json" --budget 110
echo "second full measure exit $? after $(( $(date +%s) - start )) s"
tail -5 "$DEST/source_counters.err"
