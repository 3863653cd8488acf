"""Time the global-memory counter: the closed form against the brute-force simulator.

Run from the repository root:  python benchmarks/bench_global.py [--quick] [--no-write]
(``--no-write`` prints only; otherwise the report also goes to benchmarks/GLOBAL.md.)

A row-major fp16 tile of 2^d elements (d = 10 … 22) read by a blocked layout (8 contiguous
elements per thread, 32 lanes, 4 warps, the rest in registers): ``global_access`` in closed
form, and ``simulate_global_access`` while it is affordable (within its default work limit).
Both must agree; speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import platform
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from linlayout import LayoutError, LinearLayout  # noqa: E402
from linlayout.global_memory import global_access, simulate_global_access  # noqa: E402

HERE = Path(__file__).resolve().parent


def blocked(d: int) -> tuple[LinearLayout, tuple[int, int]]:
    """A 2^d-element tile (rows of 64 fp16), the layout and the row-major strides."""
    cols, rows = 6, d - 6
    bits = [(0, 1 << i) for i in range(cols)] + [(1 << i, 0) for i in range(rows)]
    reg, lane, warp = bits[:3], bits[3:8], bits[8:10]
    reg = reg + bits[10:]
    bases = {"register": [list(b) for b in reg], "lane": [list(b) for b in lane],
             "warp": [list(b) for b in warp]}
    return LinearLayout(bases, out_dims={"dim0": 1 << rows, "dim1": 1 << cols}), (1 << cols, 1)


def best(fn, number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=3)) / number


def fmt(s: float | None) -> str:
    if s is None:
        return "—"
    return f"{s * 1e6:.0f} µs" if s < 1e-2 else f"{s * 1e3:.1f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer sizes and repetitions")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args()
    sizes = range(10, 17, 2) if args.quick else range(10, 23, 2)
    rows = []
    for d in sizes:
        lay, strides = blocked(d)
        closed = global_access(lay, strides, element_bits=16)
        t_closed = best(lambda: global_access(lay, strides, element_bits=16), 20)
        try:
            sim = simulate_global_access(lay, strides, element_bits=16)
            assert sim.sectors_per_warp == closed.sectors_per_warp, (d, sim, closed)
            t_sim = best(lambda: simulate_global_access(lay, strides, element_bits=16), 1)
        except LayoutError:
            t_sim = None
        rows.append(f"| {d} | {closed.vector_elems} | {closed.sectors_per_warp} | "
                    f"{closed.efficiency:.2f} | {fmt(t_closed)} | {fmt(t_sim)} |")
    report = "\n".join([
        "## Global memory: closed form vs simulator", "",
        f"Python {platform.python_version()} on {platform.machine()}; best of 3. A blocked "
        "fp16 layout (8 elements per thread, 4 warps) reading a row-major tile of 2^d "
        "elements; the simulator stops at its default work limit (—).", "",
        "| d | vector | sectors/warp | efficiency | closed form | simulator |",
        "|---|---|---|---|---|---|", *rows, ""])
    print(report)
    if not args.no_write:
        (HERE / "GLOBAL.md").write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
