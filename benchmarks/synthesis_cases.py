"""The synthesis benchmark's inputs, and a record of every result on them.

Run from the repository root:

    python benchmarks/synthesis_cases.py --write before.json
    python benchmarks/synthesis_cases.py --compare before.json

The inputs (:func:`cases`) are what :mod:`bench_synthesis` times: 300 random pairs of Triton
encodings and 60 three-load tiles (:func:`linlayout.triton.encodings.sampling.random_pair`,
fixed seeds, reproducible without Triton) and the built-in examples. Each is synthesized
by default, with ``instructions="auto"`` and with ``lowering="triton"``; ``--write`` records
every result (layout, each side's report, totals, optimality and bound) and ``--compare``
checks a later checkout against such a record: the same layouts, or the same costs and
optimality on every case. A result whose layout, reports and costs are unchanged but whose
bound is higher (a stronger proof: ``optimal`` may only go from False to True, where the
result costs exactly the new bound) is accepted and listed one by one. It exits 1 on any
other difference — a speed-up must not change a result.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import linlayout as ll
from linlayout import examples
from linlayout.triton.encodings.sampling import random_pair

#: Seeds of the random inputs (the pairs, the three-load tiles).
PAIR_SEED, TILE_SEED = 1, 3


def random_pairs(count: int = 300, seed: int = PAIR_SEED) -> list[tuple]:
    """``count`` random (store, load, element_bits, description) Triton pairs."""
    rng = random.Random(seed)
    return [random_pair(rng) for _ in range(count)]


def random_tiles(count: int = 60, nloads: int = 3, seed: int = TILE_SEED) -> list[tuple]:
    """``count`` random (store, [loads], element_bits, description) tiles read by
    ``nloads`` loads (the second and later loads: random encodings of the same tile)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        store, load, bits, what = random_pair(rng)
        loads = [load]
        while len(loads) < nloads:
            _, l2, _, _ = random_pair(rng, element_bits=(bits,))
            if l2.out_dims == store.out_dims:
                loads.append(l2)
        out.append((store, loads, bits, what))
    return out


def example_pairs() -> list[tuple]:
    """The built-in examples as (store, load, element_bits, name)."""
    return [(examples.get(n).store, examples.get(n).load, examples.get(n).element_bits, n)
            for n in examples.names()]


def cases() -> dict[str, list[tuple]]:
    """Every benchmark input, by group."""
    return {"pairs": random_pairs(), "tiles": random_tiles(), "examples": example_pairs()}


#: The variants each input is synthesized with.
VARIANTS = {"default": {}, "auto": {"instructions": "auto"}, "triton": {"lowering": "triton"}}


def record(result: ll.SwizzleResult) -> dict:
    """A result as comparable JSON (layout, reports, totals, optimality, bound)."""
    d = result.to_dict()
    return {"layout": d["layout"], "reports": [r.to_dict() for r in result.reports],
            "totals": d["totals"], "optimal": d["optimal"],
            "bound": [d["bound"]["wavefronts_per_warp"], d["bound"]["instructions_per_warp"]]}


def run_all() -> dict:
    """Every case under every variant: ``{"group/i/variant": record or error}``."""
    out = {}
    for group, items in cases().items():
        for i, (store, load, bits, what) in enumerate(items):
            for name, kw in VARIANTS.items():
                try:
                    out[f"{group}/{i}/{name}"] = record(
                        ll.synthesize_swizzle(store, load, element_bits=bits, **kw))
                except ll.LayoutError as exc:
                    out[f"{group}/{i}/{name}"] = {"error": str(exc)}
    return out


def same(a: dict, b: dict) -> bool:
    """The same layout, or the same costs and optimality."""
    if a == b:
        return True
    if "error" in a or "error" in b:
        return False
    return (a["totals"] == b["totals"] and a["optimal"] == b["optimal"]
            and a["bound"] == b["bound"])


def proven(a: dict, b: dict) -> bool:
    """``b`` is ``a`` with a higher bound proven: the same layout, reports and totals, the
    bound raised (never lowered) and ``optimal`` True only where the result costs exactly
    the new bound (so it can only go from False to True, by that proof)."""
    if "error" in a or "error" in b:
        return False
    ta, tb = dict(a["totals"]), dict(b["totals"])
    gap = tb.pop("gap", None)
    ta.pop("gap", None)
    if (a["layout"], a["reports"], ta) != (b["layout"], b["reports"], tb):
        return False
    cost = [tb["wavefronts_per_warp"], tb["instructions_per_warp"]]
    return (b["bound"] > a["bound"] and b["optimal"] >= a["optimal"]
            and (not b["optimal"] or b["bound"] == cost)
            and gap in (None, [cost[0] - b["bound"][0], cost[1] - b["bound"][1]]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", metavar="FILE", help="record every result into FILE")
    ap.add_argument("--compare", metavar="FILE", help="compare with a recorded FILE")
    args = ap.parse_args(argv)
    now = run_all()
    if args.write:
        Path(args.write).write_text(json.dumps(now, sort_keys=True), encoding="utf-8")
        print(f"recorded {len(now)} results into {args.write}")
    if args.compare:
        then = json.loads(Path(args.compare).read_text(encoding="utf-8"))
        layouts = sum(then[k] == now.get(k) for k in then)
        raised = [k for k in then if k in now and then[k] != now[k]
                  and proven(then[k], now[k])]
        bad = [k for k in then if k not in now or not (same(then[k], now[k])
                                                      or k in raised)]
        print(f"{len(then)} results: {layouts} identical, "
              f"{len(then) - layouts - len(bad) - len(raised)} with a different layout of the "
              f"same costs and optimality, {len(raised)} the same layout with a higher bound "
              f"proven, {len(bad)} differ")
        for k in raised:
            a, b = then[k], now[k]
            print(f"  {k}: bound {a['bound']} -> {b['bound']}, "
                  f"cost {[b['totals']['wavefronts_per_warp'], b['totals']['instructions_per_warp']]}"
                  f", optimal {a['optimal']} -> {b['optimal']}")
        for k in bad[:20]:
            print(f"  {k}: {then[k].get('totals', then[k])} -> "
                  f"{now.get(k, {}).get('totals', now.get(k))}")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
