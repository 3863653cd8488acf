"""Time the core paths and write the table to benchmarks/README.md.

Run from the repository root:  python benchmarks/bench_core.py [--quick]

Measures, on this machine, in one run:
* ``synthesize_swizzle`` and ``bank_conflicts`` on the three built-in examples;
* ``LinearLayout.invert`` against galois' inverse of the same GF(2) matrix (8, 14, 24 bits).

Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import timeit
from pathlib import Path

import numpy as np

import linlayout as ll
from linlayout import examples, f2

HERE = Path(__file__).resolve().parent


def uncached(*args, **kwargs):
    """synthesize_swizzle without its result cache (every call computes)."""
    import linlayout

    linlayout.synthesize_swizzle.cache_clear()
    return linlayout.synthesize_swizzle(*args, **kwargs)


def best_time(fn, number: int, repeat: int = 5) -> float:
    """Best mean seconds per call over ``repeat`` runs of ``number`` calls."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def random_bijection(rng: random.Random, nbits: int) -> list[int]:
    while True:
        cols = [rng.getrandbits(nbits) for _ in range(nbits)]
        if f2.rank(cols) == nbits:
            return cols


def fmt_us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} µs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    scale = 0.2 if args.quick else 1.0
    n = lambda k: max(1, int(k * scale))  # noqa: E731

    lines = ["| example | element_bits | synthesize_swizzle | bank_conflicts (store) | result |",
             "|---|---|---|---|---|"]
    for name in examples.names():
        ex = examples.get(name)
        e = ex.element_bits
        syn = lambda: uncached(ex.store, ex.load, element_bits=e)  # noqa: E731
        r = syn()
        t_syn = best_time(syn, n(500))
        t_bc = best_time(lambda: ll.bank_conflicts(ex.store, r.layout, element_bits=e), n(2000))
        lines.append(
            f"| {name} | {e} | {fmt_us(t_syn)} | {fmt_us(t_bc)} | vector {r.vector_elems}, "
            f"store {r.store.degree}-way, load {r.load.degree}-way, optimal={r.optimal} |"
        )

    import galois  # benchmark-only dependency on the oracle

    rng = random.Random(0)
    inv_lines = ["| bits | LinearLayout.invert | galois np.linalg.inv | ratio (galois / ours) |",
                 "|---|---|---|---|"]
    for bits in (8, 14, 24):
        cols = random_bijection(rng, bits)
        lay = ll.LinearLayout.from_columns(cols, {"offset": 1 << bits}, {"dim0": 1 << bits})
        gm = lay.to_galois()
        t_ours = best_time(lay.invert, n(2000))
        t_gal = best_time(lambda: np.linalg.inv(gm), n(200))
        inv_lines.append(
            f"| {bits} | {fmt_us(t_ours)} | {fmt_us(t_gal)} | {t_gal / t_ours:,.0f}× |"
        )

    report = "\n".join([
        "# Benchmarks",
        "",
        "Written by `python benchmarks/bench_core.py` (best of 5 runs; mean per call).",
        f"Machine: {platform.machine()}, {platform.processor() or 'cpu'}, Python "
        f"{platform.python_version()}, galois {galois.__version__}.",
        "Targets: `synthesize_swizzle` ≤ 100 µs on the 128×128 example; invert ≥ 20× "
        "faster than galois.",
        "",
        "## Synthesis and counting on the built-in examples",
        "",
        *lines,
        "",
        "## Inverting a random bijection of F₂ⁿ",
        "",
        *inv_lines,
        "",
    ])
    print(report)
    if not args.no_write:
        (HERE / "README.md").write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
