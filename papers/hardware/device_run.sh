#!/usr/bin/env bash
# One device-tool call (an H100 or H200 with nvcc, ncu, cuobjdump, python3): everything this
# directory measures, with at most 8 files left in $OUT.
#
#   run(command="bash papers/hardware/device_run.sh", carry=["papers/hardware/build"], ...)
#
# 1. triton/run_on_gpu.sh when present (first: a call cut off must not lose it): the
#    Triton-compiled kernels -> triton_measurements.json, triton_compare.txt
# 2. run_on_gpu.sh (PREBUILT=1 when build/ was carried): every case of cases.json
#    -> measurements.json, sass.json, compare.txt, build.log, ncu_raw.csv
# 3. the cases whose multi-warp counts varied, and their serial variants, again at 16 and 32
#    loop iterations -> repeats.json ({"16": measurements, "32": measurements})
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
OUT="${OUT:-$HERE/out}"
mkdir -p "$OUT"
export OUT PYTHONUNBUFFERED=1
# The Triton kernels first: the shortest step, and the one a cut-off call must not lose.
if [ -f triton/run_on_gpu.sh ]; then
  bash triton/run_on_gpu.sh
  echo "triton/run_on_gpu.sh exit status $?"
fi
PREBUILT=1 bash run_on_gpu.sh --budget 200 --timeout 150
status=$?
rm -f "$OUT/build.log"  # "using the prebuilt build/hwcases": keep $OUT within 8 files

NOISY=$(python3 - <<'PY'
import json
names = [c["case"] for c in json.load(open("cases.json"))["cases"]]
print(" ".join(n for n in names if n.startswith("serial-") or "serial-" + n in names))
PY
)
tmp=$(mktemp -d)
for n in 16 32; do
  python3 runner.py --method ncu --iters "$n" --out "$tmp/r$n.json" --budget 60 --timeout 60 \
    --only $NOISY | tail -1
done
python3 - "$tmp" "$OUT/repeats.json" <<'PY'
import json, sys
from pathlib import Path
tmp, out = Path(sys.argv[1]), Path(sys.argv[2])
doc = {n: json.loads((tmp / f"r{n}.json").read_text()) for n in ("16", "32")
       if (tmp / f"r{n}.json").is_file()}
out.write_text(json.dumps(doc, indent=1) + "\n")
PY

exit $status
