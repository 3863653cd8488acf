#!/usr/bin/env bash
# The Triton kernels on the GPU machine, one command (from the repository root):
#
#   bash papers/hardware/triton/run_on_gpu.sh
#
# 1. run.py measure  — one ncu process launches every cubin of cases.json once -> JSON (+ .csv)
# 2. compare.py      — the table against linlayout check's predictions; its exit status is this
#                      script's (0 agree, 1 a disagreement or missing kernel, 2 unreadable input)
#
# Needs ncu and python3 (standard library; libcuda through ctypes). With $OUT set (the device
# tool) the measurements and compare.txt go there, else into this directory.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
PY="${PYTHON:-python3}"
DEST="${OUT:-$HERE}"
start=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
timeout 130 "$PY" run.py measure --out "$DEST/triton_measurements.json" --budget 110
echo "run.py measure exit $?"
"$PY" compare.py --measurements "$DEST/triton_measurements.json" > "$DEST/triton_compare.txt" 2>&1
status=$?
cat "$DEST/triton_compare.txt"
echo "triton/run_on_gpu.sh: $(( $(date +%s) - start )) s, compare exit status $status"
exit $status
