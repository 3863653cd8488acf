"""Interleaved A/B timing of two checkouts' ``linlayout/f2.py`` on the calls a synthesis makes.

Run from the repository root:

    python benchmarks/replay_f2.py OLD_CHECKOUT [NEW_CHECKOUT] [--functions rank,echelon]

records the arguments of every call of the hot :mod:`linlayout.f2` functions while this
checkout synthesizes the benchmark's random pairs cold (:mod:`synthesis_cases`, by default
and with ``instructions="auto"``), then loads both checkouts' ``f2.py`` into this one
process and replays the calls through each, alternating old and new on chunks of 100 calls
(best of 11 per chunk, summed): a shared machine's load shifts both sides alike, which
separate runs cannot promise. ``NEW_CHECKOUT`` defaults to this one. It prints each
function's time per call on both sides and their ratio; speed is reported, never asserted.

Python opcode counts (``sys.settrace``) are a deterministic proxy for work, but not for
time: a builtin call (``map``, ``sorted``, ``sum``) costs a few opcodes and more time than
the short loop it replaces on lists of 3–14 columns — this replay tells them apart.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import linlayout as ll  # noqa: E402
from linlayout import f2  # noqa: E402
from synthesis_cases import random_pairs  # noqa: E402

#: The functions replayed (the ones a synthesis calls most).
FUNCTIONS = ("rank", "echelon", "extend_basis", "inverse", "compose_unchecked", "compose",
             "reduce", "intersection", "low_subspace", "avoiding_sequence", "apply")


def record(names: tuple[str, ...]) -> dict[str, list[tuple]]:
    """The arguments of every call of ``names`` during the cold syntheses (iterators kept as
    lists, so that each replay sees the same values)."""
    calls: dict[str, list[tuple]] = {n: [] for n in names}
    originals = {n: getattr(f2, n) for n in names}

    def recorder(name, fn):
        def call(*args, **kwargs):
            args = tuple(a if isinstance(a, (int, list, tuple, type(None))) else list(a)
                         for a in args)
            calls[name].append((args, kwargs))
            return fn(*args, **kwargs)
        return call

    for n in names:
        setattr(f2, n, recorder(n, originals[n]))
    try:
        for kw in ({}, {"instructions": "auto"}):
            for store, load, bits, _ in random_pairs():
                ll.clear_caches()
                ll.synthesize_swizzle(store, load, element_bits=bits, **kw)
    finally:
        for n, fn in originals.items():
            setattr(f2, n, fn)
    return calls


def load_f2(checkout: Path, tag: str) -> ModuleType:
    """``checkout``'s ``linlayout/f2.py`` as a module of its own (its relative imports
    resolve in this process's ``linlayout``)."""
    name = f"linlayout._f2_{tag}"
    spec = importlib.util.spec_from_file_location(name, checkout / "linlayout" / "f2.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def replay(old: ModuleType, new: ModuleType, calls: list[tuple], name: str
           ) -> tuple[float, float]:
    """Seconds ``old`` and ``new`` take for ``calls`` of ``name``: old and new alternated on
    chunks of 100 calls, the best of 11 runs per chunk, summed."""
    fo, fn = getattr(old, name), getattr(new, name)
    total_old = total_new = 0.0
    for start in range(0, len(calls), 100):
        chunk = calls[start:start + 100]
        best = {fo: float("inf"), fn: float("inf")}
        for r in range(11):
            for f in (fo, fn) if r % 2 == 0 else (fn, fo):
                t = time.perf_counter()
                for args, kwargs in chunk:
                    f(*args, **kwargs)
                best[f] = min(best[f], time.perf_counter() - t)
        total_old += best[fo]
        total_new += best[fn]
    return total_old, total_new


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="the checkout to compare against")
    parser.add_argument("new", type=Path, nargs="?", default=ROOT,
                        help="the checkout measured (default: this one)")
    parser.add_argument("--functions", default=",".join(FUNCTIONS),
                        help="comma-separated f2 functions to replay")
    args = parser.parse_args()
    names = tuple(n for n in args.functions.split(",") if n)
    calls = record(names)
    old, new = load_f2(args.old, "old"), load_f2(args.new, "new")
    syntheses = 2 * len(random_pairs())
    sum_old = sum_new = 0.0
    for n in names:
        if not calls[n] or not hasattr(old, n):
            continue
        t_old, t_new = replay(old, new, calls[n], n)
        sum_old += t_old
        sum_new += t_new
        per = 1e9 / len(calls[n])
        print(f"{n:18s} {len(calls[n]):6d} calls  old {t_old * per:6.0f} ns  "
              f"new {t_new * per:6.0f} ns  new/old {t_new / t_old:.3f}")
    print(f"all: old {sum_old / syntheses * 1e6:.1f} µs, new {sum_new / syntheses * 1e6:.1f} µs "
          f"per synthesis; new/old {sum_new / sum_old:.3f}")


if __name__ == "__main__":
    main()
