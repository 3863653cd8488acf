"""Time the TTGIR reader on adversarial shapes; write benchmarks/READER.md.

Run from the repository root:  python benchmarks/bench_reader.py [--quick] [--no-write]

Rows: for each shape that once had a quadratic or unbounded path — an unterminated
``IR Dump`` header, chained slice aliases (each a tolerated error), unused ``tt.histogram``
results, a chain of views each loaded once, identical ``local_load``s, blank lines — the time
of ``read_ttgir`` at growing sizes up to 10 MB (1 MB with ``--quick``), and of ``check_module``
on the result. Linear reading shows as a constant µs per KB column; a shape that reaches a
limit (``MAX_OPS``, ``MAX_ALIASES``) shows the refusal and its time. Caches are cleared before
each timed run; speed is measured, never asserted.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import linlayout  # noqa: E402
from linlayout.check import check_module  # noqa: E402
from linlayout.errors import LayoutError  # noqa: E402
from linlayout.triton.ttgir import read_ttgir  # noqa: E402

HEAD = """#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#b1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @many(%x: tensor<64x64xf16, #blocked>, %z: tensor<4096xi32, #b1>) {
    %buf = ttg.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
"""
TAIL = "    tt.return\n  }\n}\n"
MEM = "!ttg.memdesc<64x64xf16, #shared, #smem, mutable>"


def _fill(unit, size: int, head: str = HEAD, tail: str = TAIL) -> str:
    n = max(1, (size - len(head) - len(tail)) // len(unit(0)))
    return head + "".join(unit(i) for i in range(n)) + tail


SHAPES = {
    "unterminated `IR Dump` header": lambda size: (
        "// -----// IR Dump Before " + "X" * size + "\n" + HEAD + TAIL),
    "chained slice aliases (tolerated errors)": lambda size: _fill(
        lambda i: f"#a{i + 1} = #ttg.slice<{{dim = 0, parent = #a{i}}}>\n", size,
        "#a0 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], "
        "order = [0]}>\n", "module {}\n"),
    "unused tt.histogram results": lambda size: _fill(
        lambda i: f"    %h{i:07d} = tt.histogram %z : tensor<4096xi32, #b1> -> "
                  "tensor<64xi32, #b1>\n", size),
    "chained views, each loaded": lambda size: _fill(
        lambda i: (f"    %v{i + 1} = ttg.memdesc_index %v{i}[%c0] : {MEM} -> {MEM}\n"
                   f"    %w{i} = ttg.local_load %v{i + 1} : {MEM} -> tensor<64x64xf16, #cols>\n"
                   ).replace("%v0[", "%buf["), size),
    "identical local_loads": lambda size: _fill(
        lambda i: f"    %y{i:07d} = ttg.local_load %buf : {MEM} -> tensor<64x64xf16, #cols>\n",
        size),
    "blank lines": lambda size: HEAD + "\n" * size + TAIL,
}


def _run(text: str) -> tuple[str, float, float | None]:
    linlayout.clear_caches()
    t = time.perf_counter()
    try:
        module = read_ttgir(text, "bench.ttgir")
    except LayoutError as exc:
        return f"refused: {str(exc).split(': ', 2)[-1][:60]}", time.perf_counter() - t, None
    read = time.perf_counter() - t
    t = time.perf_counter()
    check_module(module)
    return f"{len(module.ops)} ops", read, time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="sizes up to 1 MB")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    sizes = [100_000, 1_000_000] if args.quick else [100_000, 1_000_000, 10_000_000]
    lines = ["# The TTGIR reader on adversarial shapes", "",
             "Written by `python benchmarks/bench_reader.py` (one cold run per row: caches "
             "cleared).", f"Machine: {platform.machine()}, Python {platform.python_version()}.",
             "Linear reading: the µs per KB column stays flat as the size grows.", "",
             "| shape | bytes | result | read (s) | µs / KB | check (s) |",
             "|---|---|---|---|---|---|"]
    for name, make in SHAPES.items():
        for size in sizes:
            text = make(size)
            what, read, check = _run(text)
            per_kb = read * 1e6 / (len(text) / 1024)
            lines.append(f"| {name} | {len(text)} | {what} | {read:.2f} | {per_kb:.0f} | "
                         f"{'—' if check is None else f'{check:.2f}'} |")
            print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    if not args.no_write:
        (HERE / "READER.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
