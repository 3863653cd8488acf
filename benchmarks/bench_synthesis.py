"""Time the synthesis paths; write benchmarks/SYNTHESIS.md.

Run from the repository root:  python benchmarks/bench_synthesis.py [--quick] [--no-write]

Paths: the built-in store/load pairs, ``instructions="auto"`` (ld/st.shared vs
ldmatrix/stmatrix), the closed-form count of the optimal family and ``is_optimal``, a store
with two loads (exact segment search), the AMD hardware models, and — what a compiler pass
sees — random pairs of Triton encodings and a store with three loads
(:mod:`linlayout.triton.encodings.sampling`): median, 90th percentile and worst time per call.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
import timeit
from pathlib import Path

import linlayout as ll
from linlayout import examples
from linlayout.hardware import AMD_CDNA3
from linlayout.synthesis.family import is_optimal, optimal_swizzles
from linlayout.triton.encodings.sampling import random_pair

HERE = Path(__file__).resolve().parent


def best_time(fn, number: int, repeat: int = 5) -> float:
    """Best mean seconds per call over ``repeat`` runs of ``number`` calls."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def uncached(*args, **kwargs):
    """synthesize_swizzle without its result cache (every call computes)."""
    ll.synthesize_swizzle.cache_clear()
    return ll.synthesize_swizzle(*args, **kwargs)


def rows_cols_diag():
    out = {"dim0": 32, "dim1": 32}
    rows = ll.LinearLayout({"register": [[1 << i, 0] for i in range(5)],
                            "lane": [[0, 1 << i] for i in range(5)]}, out)
    cols = ll.LinearLayout({"register": [[0, 1 << i] for i in range(5)],
                            "lane": [[1 << i, 0] for i in range(5)]}, out)
    diag = ll.LinearLayout({"register": [[0, 1 << i] for i in range(5)],
                            "lane": [[1 << i, 1 << i] for i in range(5)]}, out)
    return rows, [cols, diag]


def random_triton(count: int, nloads: int, seed: int) -> tuple[list[float], int]:
    """Seconds per call of synthesize_swizzle on ``count`` random Triton tiles (one store,
    ``nloads`` loads of the same tile), and how many results were proven optimal."""
    rng = random.Random(seed)
    times, proven = [], 0
    for _ in range(count):
        store, load, bits, _ = random_pair(rng)
        loads = [load]
        while len(loads) < nloads:
            s2, l2, b2, _ = random_pair(rng, element_bits=(bits,))
            if l2.out_dims == store.out_dims:
                loads.append(l2)
        arg = loads[0] if nloads == 1 else loads
        best = None
        for _ in range(3):
            ll.synthesize_swizzle.cache_clear()
            t0 = time.perf_counter()
            r = ll.synthesize_swizzle(store, arg, element_bits=bits)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        times.append(best)
        proven += r.optimal
    return times, proven


#: Goals of the synthesis speed (median uncached call).
GOAL_PAIR_MS = 0.1
GOAL_THREE_LOADS_MS = 5.0


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
            ("store + load", lambda: uncached(ex.store, ex.load, element_bits=e), 500),
            ("store + load, repeated (cached)",
             lambda: ll.synthesize_swizzle(ex.store, ex.load, element_bits=e), 500),
            ('instructions="auto"', lambda: uncached(
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
                 best_time(lambda: uncached(store, loads, element_bits=32), n(50))))
    tr = examples.get("transpose")
    amd_store = ll.LinearLayout({"register": tr.store.bases["register"],
                                 "lane": tr.store.bases["lane"]}, tr.store.out_dims)
    rows.append(("transpose", "AMD_CDNA3 (32-lane layouts padded)",
                 best_time(lambda: uncached(amd_store, tr.load, element_bits=32,
                                            hardware=AMD_CDNA3), n(200))))
    table = ["| pair | path | time per call |", "|---|---|---|"]
    table += [f"| {a} | {b} | {t * 1e6:,.0f} µs |" for a, b, t in rows]
    dist = ["| pairs | calls | median | 90th percentile | worst | proven optimal |",
            "|---|---|---|---|---|---|"]
    goals = []
    for label, nloads, count, goal_ms in (
            ("random Triton pairs (store + load)", 1, n(300), GOAL_PAIR_MS),
            ("random Triton tiles (store + 3 loads)", 3, n(60), GOAL_THREE_LOADS_MS)):
        times, proven = random_triton(count, nloads, seed=nloads)
        q = statistics.quantiles(times, n=10)
        median_ms = statistics.median(times) * 1e3
        dist.append(f"| {label} | {count} | {median_ms:.3f} ms | "
                    f"{q[-1] * 1e3:.3f} ms | {max(times) * 1e3:.1f} ms | {proven}/{count} |")
        goals.append(f"- {label}: median {median_ms:.3f} ms against a goal of {goal_ms} ms — "
                     f"{'met' if median_ms <= goal_ms else 'NOT met'}")
    report = "\n".join([
        "# Synthesis paths",
        "",
        "Written by `python benchmarks/bench_synthesis.py` (best of 5 runs; mean per call).",
        f"Machine: {platform.machine()}, Python {platform.python_version()}.",
        "",
        *table,
        "",
        "Random Triton encodings (each call timed alone; best of 3 runs per pair):",
        "",
        *dist,
        "",
        "Against the goals (median per call):",
        "",
        *goals,
        "",
    ])
    print(report)
    if not args.no_write:
        (HERE / "SYNTHESIS.md").write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
