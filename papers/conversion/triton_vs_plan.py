"""Every ``convert_layout`` of the committed kernel corpus: the path Triton 3.9 takes and its
cost, beside ``plan_conversion``'s cheapest plan, under the default weights.

Reads the TTGIR of the ``corpus`` fixture set (``tests/data/fixture_sets.json``: tutorial and
``tl`` kernels compiled by Triton 3.9 for cuda:80/90/100 and gfx942/950); needs no Triton.
Prints one row per distinct (layouts, element width, target) and a summary, with the converts
where Triton's path is cheaper than the plan (its ``ldmatrix``/``stmatrix`` scratch sides and
gfx950 ``v_permlane*_swap`` are outside the planner's families; ``plan_conversion`` then
makes no optimality claim). Exits 1 only when such a plan is still marked optimal.

Usage: ``python papers/conversion/triton_vs_plan.py [--set NAME]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from linlayout import LayoutError, plan_conversion  # noqa: E402
from linlayout.check.shared_memory.ops import module_target  # noqa: E402
from linlayout.triton.ttgir import find_accesses, read_ttgir  # noqa: E402
from tests.check.shared_memory.triton_fixtures import entries  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="corpus", help="fixture set (default corpus)")
    args = ap.parse_args()
    seen: dict = {}
    for case, e in sorted(entries(args.set).items()):
        if "ttgir" not in e:
            continue
        m = read_ttgir(e["ttgir"], case)
        target = module_target(m)
        for a in find_accesses(m):
            if a.kind != "convert" or a.distributed is None or a.destination is None:
                continue
            key = (a.distributed.layout, a.destination.layout, max(8, a.element_bits),
                   target.name)
            if key in seen:
                continue
            try:
                plan = plan_conversion(key[0], key[1], key[2], hardware=target.hardware(),
                                       target=target)
            except LayoutError as exc:
                seen[key] = (f"{case}:{a.line}", None, str(exc).split(";")[0][:60])
                continue
            seen[key] = (f"{case}:{a.line}", plan, "")
    print(f"{'convert':58} | {'target':10} | bits | Triton path (cost) | plan (cost)    "
          "| saving")
    worse = saved = bad = 0
    for (src, dst, bits, tname), (where, plan, why) in seen.items():
        if plan is None:
            print(f"{where[:58]:58} | {tname:10} | {bits:4} | not planned: {why}")
            continue
        t = plan.triton
        tc = "-" if t.cost is None else f"{t.cost:g}"
        s = plan.saving
        print(f"{where[:58]:58} | {tname:10} | {bits:4} | {t.path:9} ({tc:>5}) | "
              f"{plan.best.path:13} ({plan.best.cost:g}) | {'-' if s is None else f'{s:g}'}")
        if s is not None and s < -1e-9:
            worse += 1
            bad += plan.optimal
        if s is not None and s > 1e-9:
            saved += 1
    print(f"{len(seen)} distinct converts; the plan is cheaper on {saved}, costlier on {worse}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
