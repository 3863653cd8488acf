"""Time the synthesis paths beyond one store and one load; write benchmarks/SYNTHESIS.md.

Run from the repository root:  python benchmarks/bench_synthesis.py [--quick] [--no-write]

Paths (issue 6): the plain store/load pair (must not get slower), several loads (exact segment
search), ``vectors="per_side"``, ``instructions="auto"`` (ld/st.shared vs ldmatrix/stmatrix),
the AMD hardware models, the closed-form count of the optimal family, and ``is_optimal``.
"""

from __future__ import annotations

import argparse
import platform
import sys
import timeit
from pathlib import Path

import linlayout as ll
from linlayout import examples
from linlayout.swizzle.family import is_optimal, optimal_swizzles
from linlayout.hardware import AMD_CDNA3

HERE = Path(__file__).resolve().parent


def best_time(fn, number: int, repeat: int = 5) -> float:
    """Best mean seconds per call over ``repeat`` runs of ``number`` calls."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def rows_cols_diag():
    out = {"dim0": 32, "dim1": 32}
    rows = ll.LinearLayout({"register": [[1 << i, 0] for i in range(5)],
                            "lane": [[0, 1 << i] for i in range(5)]}, out)
    cols = ll.LinearLayout({"register": [[0, 1 << i] for i in range(5)],
                            "lane": [[1 << i, 0] for i in range(5)]}, out)
    diag = ll.LinearLayout({"register": [[0, 1 << i] for i in range(5)],
                            "lane": [[1 << i, 1 << i] for i in range(5)]}, out)
    return rows, [cols, diag]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    scale = 0.2 if args.quick else 1.0

    def n(k: int) -> int:
        return max(1, int(k * scale))

    rows = []
    for name in examples.names():
        ex = examples.get(name)
        e = ex.element_bits
        cases = [
            ("store + load", lambda: ll.synthesize_swizzle(ex.store, ex.load, element_bits=e), 500),
            ('vectors="per_side"', lambda: ll.synthesize_swizzle(
                ex.store, ex.load, element_bits=e, vectors="per_side"), 200),
            ('instructions="auto"', lambda: ll.synthesize_swizzle(
                ex.store, ex.load, element_bits=e, instructions="auto"), 50),
            ("optimal_swizzles count", lambda: optimal_swizzles(
                ex.store, ex.load, element_bits=e).count, 200),
            ("is_optimal", None, 200),
        ]
        ref = ll.synthesize_swizzle(ex.store, ex.load, element_bits=e).layout
        for label, fn, reps in cases:
            if fn is None:
                fn = lambda: is_optimal(ref, ex.store, ex.load, element_bits=e)  # noqa: E731
            rows.append((name, label, best_time(fn, n(reps))))
    store, loads = rows_cols_diag()
    rows.append(("32x32 rows/cols/diagonals", "store + 2 loads (exact search)",
                 best_time(lambda: ll.synthesize_swizzle(store, loads, element_bits=32), n(50))))
    tr = examples.get("transpose")
    amd_store = ll.LinearLayout({"register": tr.store.bases["register"],
                                 "lane": tr.store.bases["lane"]}, tr.store.out_dims)
    rows.append(("transpose", "AMD_CDNA3 (32-lane layouts padded)",
                 best_time(lambda: ll.synthesize_swizzle(amd_store, tr.load, element_bits=32,
                                                         hardware=AMD_CDNA3), n(200))))
    table = ["| pair | path | time per call |", "|---|---|---|"]
    table += [f"| {a} | {b} | {t * 1e6:,.0f} µs |" for a, b, t in rows]
    report = "\n".join([
        "# Synthesis paths",
        "",
        "Written by `python benchmarks/bench_synthesis.py` (best of 5 runs; mean per call).",
        f"Machine: {platform.machine()}, Python {platform.python_version()}.",
        "",
        *table,
        "",
    ])
    print(report)
    if not args.no_write:
        (HERE / "SYNTHESIS.md").write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
