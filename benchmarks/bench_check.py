"""Time ``linlayout check``; write benchmarks/CHECK.md.

Run from the repository root:  python benchmarks/bench_check.py [--quick] [--no-write]

Rows: a TTGIR file with one 64×64 f16 buffer written once and read 400 times column-wise
(every read 8-way conflicted, so the suggestion search runs) — the pace target for a file of
many accesses is ≥ 200 accesses per second through the whole command (and 4,000 reads
show the time stays linear in the accesses); and every file of the Triton 3.9 corpus
fixture (``tests/data/triton_lowering.json.gz``), predicted and counted. Caches are cleared
before each timed run (a cold start); speed is measured, never asserted.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from linlayout import lowering  # noqa: E402
from linlayout.check import check_module  # noqa: E402
import linlayout  # noqa: E402
from linlayout.triton.ttgir import read_ttgir  # noqa: E402

HEAD = """#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @many(%x: tensor<64x64xf16, #blocked>) {
    %buf = ttg.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
"""


def many_loads(n: int) -> str:
    """One buffer, one store, ``n`` loads."""
    body = "".join(f"    %y{i} = ttg.local_load %buf : !ttg.memdesc<64x64xf16, #shared, #smem, "
                   f"mutable> -> tensor<64x64xf16, #cols>\n" for i in range(n))
    return HEAD + body + "    tt.return\n  }\n}\n"


def clear() -> None:
    linlayout.clear_caches()


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        clear()
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    repeat = 1 if args.quick else 3
    rows = []
    for n in ((100, 400) if args.quick else (100, 400, 4000)):  # 4000: stays linear
        text = many_loads(n)
        s = timed(lambda: check_module(read_ttgir(text, "many.ttgir")), repeat)
        rows.append((f"{n} loads of one buffer + 1 store (cuda:90)", n + 1, s))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "many.ttgir"
        path.write_text(many_loads(400))
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        cmd = [sys.executable, "-m", "linlayout", "check", "--json", str(path)]
        best = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            subprocess.run(cmd, env=env, capture_output=True, check=False)
            best = min(best, time.perf_counter() - t)
        rows.append(("`linlayout check --json` on the 400-load file (a new process: "
                     "interpreter start and imports included)", 401, best))
    data = json.loads(gzip.decompress((ROOT / "tests/data/triton_lowering.json.gz").read_bytes()))
    files = data["files"]

    def corpus() -> int:
        k = 0
        for name, e in files.items():
            k += len(check_module(read_ttgir(e["ttgir"], name)).ops)
        return k

    clear()
    nops = corpus()
    s = timed(corpus, 1)
    rows.append((f"the Triton 3.9 corpus: {len(files)} files", nops, s))
    lines = ["# linlayout check", "",
             "Written by `python benchmarks/bench_check.py` (best of "
             f"{repeat} cold runs: caches cleared before each).",
             f"Machine: {platform.machine()}, Python {platform.python_version()}.",
             "Target: ≥ 200 accesses/s on a file of 400 loads of one buffer (a kernel file a CI job "
             "checks in well under a second).", "",
             "| input | ops | seconds | ops / s |", "|---|---|---|---|"]
    for what, n, sec in rows:
        lines.append(f"| {what} | {n} | {sec:.2f} | {n / sec:.0f} |")
    lines.append("")
    lines.append(f"Triton lowering rules: {lowering.__name__} (Triton 3.9.0).")
    text = "\n".join(lines) + "\n"
    if args.no_write:
        print(text)
    else:
        (HERE / "CHECK.md").write_text(text)
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
