"""Exhaustive proof on small tiles: no memory layout costs less than synthesize_swizzle's.

For random store/load pairs (and store + two loads) on tiles of ``d`` = 4 or 5 bits, with small
custom hardware models (2–4 banks, warps of 2–4 lanes), every memory layout is counted and the
cheapest is compared with :func:`linlayout.synthesize_swizzle`'s result under the same objective
(total wavefronts per warp then instructions, or the other order; random per-side weights).
Each side is counted as :func:`linlayout.bank_conflicts` counts it (``ld/st.shared`` at the
widest vector the layout admits).

Every layout, up to what cannot change a count: the cost of a layout depends only on its first
``r = min(seg_lo, d)`` offset bits (in order: they decide vectors, words and banks) and on the
span of the rest (the segment, which decides only which elements share a bank), so one layout
per (ordered first ``r`` columns, complement) pair is counted — every such pair, every layout's
cost. The checks, per pair:

* ``result == minimum``: the synthesizer found a cheapest layout;
* ``bound <= minimum``: the bound it reports is a true lower bound;
* ``optimal`` only when ``result == minimum``.

Run:  python papers/synthesis/exhaustive_small_tiles.py [--pairs N] [--seed S] [--bits 4 5]
Exit status 1 on any failed check.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time

from linlayout import LayoutError, LinearLayout, bank_conflicts, f2, synthesize_swizzle
from linlayout.hardware import HardwareModel, bank_model

HARDWARE = (
    HardwareModel(name="2 banks x 4 B, 4 lanes", num_banks=2, bank_bytes=4, warp_size=4,
                  max_access_bytes=8),
    HardwareModel(name="4 banks x 4 B, 4 lanes", num_banks=4, bank_bytes=4, warp_size=4,
                  max_access_bytes=16),
    HardwareModel(name="2 banks x 2 B, 2 lanes", num_banks=2, bank_bytes=2, warp_size=2,
                  max_access_bytes=4),
)


def layout_classes(d: int, r: int):
    """One memory layout (flat columns) per (ordered first ``r`` columns, complement)."""
    for first in itertools.permutations(range(1, 1 << d), r):
        if f2.rank(first) != r:
            continue
        comp = f2.complement(first, d)
        m = d - r
        for phi in range(1 << (r * m)):
            rest = []
            for j, c in enumerate(comp):
                v, bits = c, (phi >> (j * r)) & ((1 << r) - 1)
                for i in range(r):
                    if bits >> i & 1:
                        v ^= first[i]
                rest.append(v)
            yield list(first) + rest


def random_side(rng: random.Random, out: dict[str, int], nreg: int, nlane: int,
                nwarp: int) -> LinearLayout:
    """A distributed layout whose register, lane and warp images span the tensor."""
    bits = [s.bit_length() - 1 for s in out.values()]
    d = sum(bits)

    def image(v: int) -> list[int]:
        vals, s = [], 0
        for b in bits:
            vals.append((v >> s) & ((1 << b) - 1))
            s += b
        return vals

    while True:
        cols = [rng.getrandbits(d) for _ in range(nreg + nlane + nwarp)]
        if f2.rank(cols) == d:
            break
    return LinearLayout({"register": [image(c) for c in cols[:nreg]],
                         "lane": [image(c) for c in cols[nreg:nreg + nlane]],
                         "warp": [image(c) for c in cols[nreg + nlane:]]}, out)


def key(reports, weights, objective):
    w = sum(wt * r.wavefronts_per_warp for r, wt in zip(reports, weights))
    n = sum(wt * r.instructions_per_warp for r, wt in zip(reports, weights))
    return (w, n) if objective == "wavefronts" else (n, w)


def check_pair(rng: random.Random, d: int) -> tuple[str, bool, bool] | None:
    """One random case; ``(description, failed, optimal)`` or None when it was not built."""
    hw = rng.choice(HARDWARE)
    e = rng.choice([b for b in (8, 16, 32) if b <= hw.max_access_bytes * 8])
    lanes = hw.warp_size.bit_length() - 1
    split = rng.randint(0, d - 1)
    out = {"dim0": 1 << split, "dim1": 1 << (d - split)} if split else {"dim0": 1 << d}
    nwarp = rng.randint(0, 1)
    nreg = max(0, d - lanes - nwarp + rng.randint(0, 1))
    nsides = rng.choice([2, 2, 3])
    sides = [random_side(rng, out, nreg, lanes, nwarp) for _ in range(nsides)]
    objective = rng.choice(["wavefronts", "instructions"])
    weights = [rng.choice([1, 1, 2, 3]) for _ in range(nsides)]
    try:
        res = synthesize_swizzle(sides[0], sides[1:] if nsides > 2 else sides[1],
                                 element_bits=e, hardware=hw, objective=objective,
                                 weights=weights)
    except LayoutError:
        return None
    model = bank_model(e, hw)
    r = min(model.seg_lo, d)
    best = None
    for cols in layout_classes(d, r):
        mem = LinearLayout.from_columns(cols, {"offset": 1 << d}, sides[0].out_dims)
        k = key([bank_conflicts(s, mem, element_bits=e, hardware=hw) for s in sides], weights,
                objective)
        if best is None or k < best:
            best = k
    got = key(res.reports, weights, objective)
    b = res.bound
    bound = ((b.wavefronts_per_warp, b.instructions_per_warp) if objective == "wavefronts"
             else (b.instructions_per_warp, b.wavefronts_per_warp))
    failed = got != best or bound > best or (res.optimal and got != best)
    desc = (f"{hw.name}, {e}-bit, {nsides} sides, {objective}, weights {weights}: "
            f"synthesized {got}, minimum {best}, bound {bound}, optimal={res.optimal}")
    return desc, failed, res.optimal


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=60, help="random cases per tile size")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bits", type=int, nargs="+", default=[4], help="tile sizes d (4 or 5)")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    total = failures = proven = 0
    t0 = time.time()
    for d in args.bits:
        done = 0
        while done < args.pairs:
            out = check_pair(rng, d)
            if out is None:
                continue
            desc, failed, opt = out
            done += 1
            total += 1
            proven += opt
            if failed or args.verbose:
                print(("MISMATCH  " if failed else "ok        ") + f"d={d}: {desc}")
            failures += failed
    print(f"{total} cases (d in {args.bits}): synthesized cost = exhaustive minimum in "
          f"{total - failures}, proven optimal in {proven}; {failures} mismatches "
          f"({time.time() - t0:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
