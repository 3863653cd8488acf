"""Every ``convert_layout`` of the committed kernel corpus: the path Triton 3.9 takes and its
cost, beside ``plan_conversion``'s cheapest plan, under the default weights.

Reads the TTGIR of the ``corpus`` fixture set (``tests/data/fixture_sets.json``: tutorial and
``tl`` kernels compiled by Triton 3.9 for cuda:80/90/100 and gfx942/950); needs no Triton.
One row per distinct (layouts, element width, target, producer): Triton's path,
instructions and cost (with the producing load's contiguity, a float truncation's or AMD
scalar reduction's free packing, and a gather's or ``redux.sync`` reduction's results left one
to a 32-bit register — ``wide_source`` —, as ``check`` counts them);
the plan's family and construction, instructions and cost; the saving; whether the plan is
proven optimal; and whether every feasible path's plan, run on symbolic registers
(``execute_plan`` / ``execute_shared``), yields the destination layout.

Exits 1 when a plan costs more than Triton's path, when a plan's execution does not reach the
destination, or when a plan is marked optimal while Triton's path is cheaper.

Usage::

    python papers/conversion/triton_vs_plan.py            # print the table and summary
    python papers/conversion/triton_vs_plan.py --write    # also write triton_vs_plan.md
    python papers/conversion/triton_vs_plan.py --check    # fail if triton_vs_plan.md differs
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from linlayout import LayoutError, plan_conversion  # noqa: E402
from linlayout.check.registers import (load_sources, scalar_sources,  # noqa: E402
                                       truncated_sources, wide_sources)
from linlayout.check.shared_memory.ops import module_target  # noqa: E402
from linlayout.conversion import execute_plan, execute_shared  # noqa: E402
from linlayout.triton.ttgir import find_accesses, read_ttgir  # noqa: E402
from tests.check.shared_memory.triton_fixtures import entries  # noqa: E402

TABLE = Path(__file__).resolve().parent / "triton_vs_plan.md"


def _converts(set_name: str) -> dict:
    seen: dict = {}
    for case, e in sorted(entries(set_name).items()):
        if "ttgir" not in e:
            continue
        m = read_ttgir(e["ttgir"], case)
        target = module_target(m)
        loads = load_sources(m)
        accesses = find_accesses(m)
        wide = wide_sources(accesses, target)
        packed = truncated_sources(m) | scalar_sources(accesses, target)
        for a in accesses:
            if a.kind != "convert" or a.distributed is None or a.destination is None:
                continue
            operand = a.operands[0] if a.operands else None
            key = (a.distributed.layout, a.destination.layout, max(8, a.element_bits),
                   target, loads.get(operand), operand in packed, operand in wide)
            seen.setdefault(key, f"{case}:{a.line}")
    return seen


def _executed(plan) -> bool:
    for path in plan.paths:
        if not path.feasible:
            continue
        if path.path == "shared_memory":
            run = execute_shared(plan.problem, path.plan.layout)
        else:
            run = execute_plan(plan.problem, path.plan)
        if not run.correct:
            return False
    return True


def _kinds(counts: dict) -> str:
    return ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "none"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="corpus", help="fixture set (default corpus)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help=f"write {TABLE.name}")
    mode.add_argument("--check", action="store_true", help=f"fail if {TABLE.name} differs")
    args = ap.parse_args()
    rows = ["| convert | target | bits | Triton: path, instructions | Triton cost | plan | "
            "plan instructions | plan cost | saving | optimal | executed |",
            "|---|---|---:|---|---:|---|---|---:|---:|---|---|"]
    tally: collections.Counter = collections.Counter({"costlier than Triton": 0})
    bad = []
    for (src, dst, bits, target, load, packed, wide), where in _converts(args.set).items():
        try:
            plan = plan_conversion(src, dst, bits, hardware=target.hardware(), target=target,
                                   source_load=load, packed_source=packed, wide_source=wide)
        except LayoutError as exc:
            rows.append(f"| {where} | {target.name} | {bits} | not planned: "
                        f"{str(exc).split(';')[0]} |||||||")
            tally["not planned"] += 1
            continue
        t, best, saving = plan.triton, plan.best, plan.saving
        ran = _executed(plan)
        theirs = ", ".join(f"{n} {op}" for op, n in t.opcodes.items()) or "none"
        if t.path == "shared":
            theirs += f", {t.wavefronts} wavefronts, {t.barriers} bar.sync"
        mine = _kinds(best.instructions)
        if best.path == "shared_memory":
            mine += f", {best.wavefronts} wavefronts"
        if wide:
            where += " (wide source)"
        elif packed:
            where += " (packed source)"
        rows.append(f"| {where} | {target.name} | {bits} | {t.path}: {theirs} | "
                    f"{'-' if t.cost is None else f'{t.cost:g}'} | {best.path} ({best.method}) "
                    f"| {mine} | {best.cost:g} | {'-' if saving is None else f'{saving:g}'} | "
                    f"{'yes' if plan.optimal else 'no'} | {'yes' if ran else 'NO'} |")
        tally["converts"] += 1
        tally[f"best {best.path} ({best.method})"] += 1
        tally["optimal"] += plan.optimal
        if saving is not None and saving > 1e-9:
            tally["cheaper than Triton"] += 1
        if saving is not None and abs(saving) <= 1e-9:
            tally["as cheap as Triton"] += 1
        if saving is not None and saving < -1e-9:
            tally["costlier than Triton"] += 1
        if packed:
            tally["source packed by its producer"] += 1
        if wide:
            tally["source one element per 32-bit register (wide_source)"] += 1
        if t.cost is None:
            tally["Triton not costed"] += 1
        if not ran:
            bad.append(f"{where}: a plan does not reach the destination")
        for path in plan.paths:
            if path.feasible and path.bound is not None and path.bound > path.cost + 1e-9:
                bad.append(f"{where}: the {path.path} bound {path.bound:g} is above its "
                           f"plan's cost {path.cost:g}")
        if saving is not None and saving < -1e-9:
            bad.append(f"{where}: the plan costs {-saving:g} more than Triton's path")
            if plan.optimal:
                bad.append(f"{where}: marked optimal although Triton's path is cheaper")
    summary = [f"- {k}: {n}" for k, n in sorted(tally.items())]
    text = "\n".join(["# Triton's path vs plan_conversion, corpus converts",
                      "",
                      "Regenerated by `python papers/conversion/triton_vs_plan.py --write` "
                      "(default weights; no Triton needed).", "", *summary, "", *rows, ""])
    print("\n".join(rows))
    print("\n".join(summary))
    for line in bad:
        print("FAILED:", line)
    if args.write:
        TABLE.write_text(text, "utf-8")
    elif args.check:
        if not TABLE.exists() or TABLE.read_text("utf-8") != text:
            print(f"MISMATCH: {TABLE.name} differs from this run; regenerate it with --write")
            return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
