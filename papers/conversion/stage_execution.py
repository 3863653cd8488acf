"""How often Triton's select–shuffle–select stages, as linlayout models them, reach the
destination layout: random bit permutations of one warp, run on symbolic bytes.

For ``--pairs`` random permutations of 3 register and 5 lane bits (one 32-lane warp; fixed
seed), at 8, 16 and 32 bits per element, builds the stage plan
(:func:`linlayout.conversion.plan_stages`, Triton 3.9's ``transferWithinWarp`` construction
for any number of register/lane transpositions) and runs it
(:func:`linlayout.conversion.execute_plan`). Prints, per number of transpositions and element
width, how many plans reach ``dst`` and how many do not; exits 1 if any does not.
``plan_conversion`` keeps only the plans that do, so this is a statement about the model of
the construction in ``linlayout/lowering/shuffle.py``, not about the planner's answers.
(Before the model solved ``P_reg`` from its stages, 13 one-transposition 8-bit plans and 34
two-transposition 8- and 16-bit plans missed; ``stage_probes.py`` shows Triton's compiled
stages reach ``dst`` on such pairs.) Needs no Triton.

Usage: ``python papers/conversion/stage_execution.py [--pairs N]``.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from linlayout import LinearLayout  # noqa: E402
from linlayout.conversion import ConversionProblem, execute_plan, plan_stages  # noqa: E402

REGISTER_BITS, LANE_BITS = 3, 5


def _layout(bits: list[int]) -> LinearLayout:
    return LinearLayout({"register": [[1 << b] for b in bits[:REGISTER_BITS]],
                         "lane": [[1 << b] for b in bits[REGISTER_BITS:]]},
                        {"dim0": 1 << len(bits)})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=300, help="random permutations (300)")
    args = ap.parse_args()
    rng = random.Random(1)
    n = REGISTER_BITS + LANE_BITS
    src = _layout(list(range(n)))
    tally: dict = collections.defaultdict(lambda: [0, 0])
    for _ in range(args.pairs):
        perm = list(range(n))
        rng.shuffle(perm)
        for bits in (8, 16, 32):
            pb = ConversionProblem.make(src, _layout(perm), bits)
            stages = plan_stages(pb, "cuda:90")
            if stages is None:
                continue
            tally[(stages.transpositions, bits)][execute_plan(pb, stages).correct] += 1
    print("transpositions | bits | reach dst | miss dst")
    for (t, bits), (miss, ok) in sorted(tally.items()):
        print(f"{t:14} | {bits:4} | {ok:9} | {miss:8}")
    return 1 if any(miss for miss, _ in tally.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
