"""synthesize_swizzle against the simple layouts on random Triton-encoding pairs.

For random (store, load) pairs of Triton's NVIDIA encodings (``#ttg.blocked``, ``nvidia_mma``
v2/v3, dot operands; 8/16/32-bit; tiles 32–128 per side; 1–4 warps:
:func:`linlayout.triton.encodings.sampling.random_pair`), the synthesized layout's cost — total
wavefronts per warp over both sides, then instructions, each side at the widest vector the
layout admits — is compared with:

* row-major, in either dimension order;
* every layout TMA writes with every swizzle mode (every contiguous dim, dim order and box);
* Triton's generic swizzling algorithm (``papers/linear_layouts/triton_algorithm.py``).

Every alternative is counted by the same exact counter (:func:`linlayout.bank_conflicts`).
The check: no alternative is cheaper than the synthesized layout. The summary gives how often
the result is proven optimal and how much it saves over the best alternative.

Run:  python papers/synthesis/compare_alternatives.py [--pairs N] [--seed S]
Exit status 1 when an alternative beats the synthesizer.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "linear_layouts"))

from triton_algorithm import triton_swizzle  # noqa: E402

from linlayout import LinearLayout, bank_conflicts, ptx, synthesize_swizzle  # noqa: E402
from linlayout.triton.encodings.sampling import random_pair  # noqa: E402


def cost(memory: LinearLayout, sides, bits: int) -> tuple[int, int]:
    reps = [bank_conflicts(s, memory, element_bits=bits) for s in sides]
    return (sum(r.wavefronts_per_warp for r in reps), sum(r.instructions_per_warp for r in reps))


def row_major(out_dims: dict[str, int], fastest_first: list[str]) -> LinearLayout:
    names = list(out_dims)
    bits = {n: out_dims[n].bit_length() - 1 for n in names}
    cols = []
    for n in fastest_first:
        for i in range(bits[n]):
            cols.append([1 << i if m == n else 0 for m in names])
    return LinearLayout({"offset": cols}, out_dims)


def alternatives(store: LinearLayout, load: LinearLayout, bits: int):
    names = list(store.out_dims)
    for order in (names, names[::-1]):
        yield f"row-major ({order[0]} fastest)", row_major(store.out_dims, order)
    for mode in ptx.MATCH_ORDER:
        for _, mem in ptx.tma_layouts(mode, store.out_dims, bits):
            yield f"TMA {mode.value}", mem
    t = triton_swizzle(store, load, bits)
    if t.layout is not None:
        yield "Triton's algorithm", t.layout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    beaten, proven, ties, savings = 0, 0, 0, []
    gaps: list[tuple[int, int]] = []
    wins = {}
    for _ in range(args.pairs):
        store, load, bits, what = random_pair(rng)
        r = synthesize_swizzle(store, load, element_bits=bits)
        mine = (r.wavefronts_per_warp, r.instructions_per_warp)
        proven += r.optimal
        if not r.optimal:
            gaps.append(r.gap)
        best_alt, best_name = None, None
        for name, mem in alternatives(store, load, bits):
            c = cost(mem, (store, load), bits)
            if best_alt is None or c < best_alt:
                best_alt, best_name = c, name
        if best_alt < mine:
            beaten += 1
            print(f"BEATEN by {best_name}: {best_alt} < {mine}  ({what})")
        elif best_alt == mine:
            ties += 1
            wins[best_name] = wins.get(best_name, 0) + 1
        else:
            savings.append(best_alt[0] - mine[0] + (best_alt[1] - mine[1]) / 1000)
    n = args.pairs
    better = len(savings)
    print(f"{n} random Triton-encoding pairs: proven optimal {proven}, "
          f"strictly cheaper than every alternative {better}, tied with the best "
          f"alternative {ties} ({', '.join(f'{k}: {v}' for k, v in sorted(wins.items()))}), "
          f"beaten {beaten}")
    if savings:
        waves = sorted(int(s) for s in savings)
        print(f"wavefronts per warp saved over the best alternative where cheaper: median "
              f"{waves[len(waves) // 2]}, max {waves[-1]}")
    if gaps:
        print(f"not proven optimal: {len(gaps)}; their gaps to the bound (wavefronts, "
              f"instructions per warp): {sorted(gaps)}")
    return 1 if beaten else 0


if __name__ == "__main__":
    sys.exit(main())
