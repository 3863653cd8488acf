"""Interleaved A/B of two checkouts' cold ``synthesize_swizzle``, in one process.

Run from the repository root:

    python benchmarks/ab_synthesis.py OLD_CHECKOUT [NEW_CHECKOUT] [--rounds 9] [--auto]
                                      [--work]

loads both checkouts' ``linlayout`` into this one process (each under its own copy of the
package's modules, swapped into ``sys.modules`` before each of its calls, so that imports
made inside functions resolve in the right checkout), builds the benchmark's random pairs
in each (:mod:`synthesis_cases`, the same seed), and times every pair cold
(``clear_caches()`` first) with old and new alternated — the order flipped from pair to pair
and round to round — keeping each pair's best over the rounds: a shared machine's load
shifts both sides alike, which separate runs cannot promise. It prints each side's median
time per call and the median over pairs of new/old. ``--auto`` times
``instructions="auto"`` instead of the default. ``--work`` also counts, per cold call, the
Python opcode events (``sys.settrace``) and the calls ``cProfile`` sees (all, and Python
functions only) on both sides — deterministic measures of work, though not of time (a
builtin call is one opcode and costs more than a short loop). ``NEW_CHECKOUT`` defaults to
this one. Speed is reported, never asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load(checkout: Path, kw: dict) -> tuple[dict[str, ModuleType], list[tuple]]:
    """``checkout``'s ``linlayout`` modules (every one a synthesis imports, lazily or not)
    and its benchmark pairs; the modules are left out of ``sys.modules`` afterwards."""
    paths = [str(checkout), str(checkout / "benchmarks")]
    sys.path[:0] = paths
    try:
        import linlayout
        import synthesis_cases

        assert Path(linlayout.__file__).resolve().is_relative_to(checkout.resolve()), \
            f"{linlayout.__file__} is not in {checkout}"
        pairs = synthesis_cases.random_pairs()
        for store, ld, bits, _ in pairs:  # every lazy import made
            linlayout.clear_caches()
            linlayout.synthesize_swizzle(store, ld, element_bits=bits, **kw)
        mods = {k: m for k, m in sys.modules.items()
                if k == "linlayout" or k.startswith("linlayout.") or k == "synthesis_cases"}
    finally:
        del sys.path[:2]
    for k in mods:
        del sys.modules[k]
    return mods, pairs


def times(sides: list[tuple[dict, list]], rounds: int, kw: dict) -> list[list[float]]:
    """Each side's best seconds per pair over ``rounds``, the sides alternated."""
    n = len(sides[0][1])
    best = [[float("inf")] * n for _ in sides]
    for r in range(rounds):
        for i in range(n):
            for v in ((0, 1) if (r + i) % 2 == 0 else (1, 0)):
                mods, pairs = sides[v]
                sys.modules.update(mods)
                ll = mods["linlayout"]
                store, ld, bits, _ = pairs[i]
                ll.clear_caches()
                t = time.perf_counter()
                ll.synthesize_swizzle(store, ld, element_bits=bits, **kw)
                best[v][i] = min(best[v][i], time.perf_counter() - t)
    return best


def work(side: tuple[dict, list], kw: dict) -> tuple[float, float, float]:
    """Medians per cold call of (opcode events, cProfile calls, Python-function calls)."""
    mods, pairs = side
    sys.modules.update(mods)
    ll = mods["linlayout"]
    count = [0]

    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        return local

    def local(frame, event, arg):
        if event == "opcode":
            count[0] += 1
        return local

    opcodes, calls, python = [], [], []
    for store, ld, bits, _ in pairs:
        ll.clear_caches()
        count[0] = 0
        sys.settrace(tracer)
        ll.synthesize_swizzle(store, ld, element_bits=bits, **kw)
        sys.settrace(None)
        opcodes.append(count[0])
        ll.clear_caches()
        prof = cProfile.Profile()
        prof.enable()
        ll.synthesize_swizzle(store, ld, element_bits=bits, **kw)
        prof.disable()
        stats = pstats.Stats(prof)
        calls.append(stats.total_calls)
        python.append(sum(v[1] for k, v in stats.stats.items() if not k[0].startswith("~")))
    return statistics.median(opcodes), statistics.median(calls), statistics.median(python)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="the checkout to compare against")
    parser.add_argument("new", type=Path, nargs="?", default=ROOT,
                        help="the checkout measured (default: this one)")
    parser.add_argument("--rounds", type=int, default=9, help="timed rounds (default 9)")
    parser.add_argument("--auto", action="store_true", help='time instructions="auto"')
    parser.add_argument("--work", action="store_true",
                        help="also count opcodes and calls per cold call")
    args = parser.parse_args()
    kw = {"instructions": "auto"} if args.auto else {}
    sides = [load(args.old, kw), load(args.new, kw)]
    old, new = times(sides, args.rounds, kw)
    ratios = [b / a for a, b in zip(old, new)]
    print(f"cold {'auto' if args.auto else 'default'} synthesize_swizzle on {len(old)} pairs, "
          f"best of {args.rounds} interleaved rounds: old median "
          f"{statistics.median(old) * 1e6:.1f} µs, new {statistics.median(new) * 1e6:.1f} µs; "
          f"new/old per pair: median {statistics.median(ratios):.3f}, summed "
          f"{sum(new) / sum(old):.3f}")
    if args.work:
        for name, side in (("old", sides[0]), ("new", sides[1])):
            ops, calls, python = work(side, kw)
            print(f"{name}: per cold call (median) {ops:.0f} opcode events, {calls:.0f} calls "
                  f"({python:.0f} to Python functions)")


if __name__ == "__main__":
    main()
