"""Interleaved A/B timing of two checkouts' ``synthesize_swizzle`` on the three-load tiles.

Run from the repository root:

    python benchmarks/replay_tiles.py OLD_CHECKOUT [NEW_CHECKOUT] [--tiles 50,49] [--rounds 9]

loads both checkouts' ``linlayout`` packages into this one process (under other names:
the package imports itself only relatively), rebuilds every tile of
:func:`synthesis_cases.random_tiles` in each, and times cold calls (every cache of that
package emptied first, as :mod:`bench_synthesis` does) alternately old and new, tile by
tile, round by round (the order flipped every round), in CPU time of the process: a shared
machine's load shifts both sides alike, which separate runs cannot promise. It prints the
best of the rounds per tile for the slowest tiles (by the old checkout), their ratios and
the worst tile of each side. ``NEW_CHECKOUT`` defaults to this one. Speed is reported,
never asserted.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from synthesis_cases import random_tiles  # noqa: E402


def load_package(checkout: Path, alias: str) -> ModuleType:
    """``checkout``'s ``linlayout`` package, imported as ``alias``."""
    init = checkout / "linlayout" / "__init__.py"
    spec = importlib.util.spec_from_file_location(
        alias, init, submodule_search_locations=[str(init.parent)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[alias] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path, help="the checkout to compare with")
    ap.add_argument("new", type=Path, nargs="?", default=ROOT, help="default: this one")
    ap.add_argument("--tiles", help="comma-separated tile indices (default: all 60)")
    ap.add_argument("--rounds", type=int, default=9, help="cold calls per tile and side")
    ap.add_argument("--show", type=int, default=10, help="how many of the slowest to list")
    args = ap.parse_args(argv)
    sides = [load_package(args.old.resolve(), "linlayout_old"),
             load_package(args.new.resolve(), "linlayout_new")]
    tiles = random_tiles()
    picked = ([int(i) for i in args.tiles.split(",")] if args.tiles else range(len(tiles)))
    cases = {}
    for i in picked:
        store, loads, bits, _ = tiles[i]
        cases[i] = []
        for pkg in sides:  # the tile as each package's own layouts
            s = pkg.LinearLayout.from_columns(store.columns, store.in_dims, store.out_dims)
            ls = [pkg.LinearLayout.from_columns(x.columns, x.in_dims, x.out_dims)
                  for x in loads]
            pkg.synthesize_swizzle(s, ls, element_bits=bits)  # imports done before timing
            cases[i].append((pkg, s, ls, bits))
    clock = time.process_time
    best = {i: [float("inf"), float("inf")] for i in cases}
    for r in range(args.rounds):
        for i, both in cases.items():
            for k in ((0, 1) if r % 2 == 0 else (1, 0)):
                pkg, s, ls, bits = both[k]
                pkg.clear_caches()
                t0 = clock()
                pkg.synthesize_swizzle(s, ls, element_bits=bits)
                best[i][k] = min(best[i][k], clock() - t0)
    order = sorted(best, key=lambda i: -best[i][0])
    print(f"{'tile':>4} {'old ms':>8} {'new ms':>8} {'new/old':>8}")
    for i in order[:args.show]:
        a, b = best[i]
        print(f"{i:>4} {a * 1e3:8.2f} {b * 1e3:8.2f} {b / a:8.2f}")
    ratios = [best[i][1] / best[i][0] for i in order]
    print(f"{len(order)} tiles, best of {args.rounds} cold calls each: worst "
          f"{max(v[0] for v in best.values()) * 1e3:.2f} ms -> "
          f"{max(v[1] for v in best.values()) * 1e3:.2f} ms, median ratio "
          f"{statistics.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
