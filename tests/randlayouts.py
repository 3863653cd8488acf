"""Seeded generators of random layouts for the property tests (unit-vector and general)."""

from __future__ import annotations

import random

from linlayout import LinearLayout, f2


def random_invertible(rng: random.Random, n: int, unit: bool) -> list[int]:
    """Columns of a random bijection of F2^n: a permutation of unit vectors, or a general one."""
    if unit:
        cols = [1 << i for i in range(n)]
        rng.shuffle(cols)
        return cols
    while True:
        cols = [rng.getrandbits(n) for _ in range(n)] if n else []
        if f2.rank(cols) == n:
            return cols


def split_out(flat: int, out_bits: list[int]) -> list[int]:
    vals = []
    for b in out_bits:
        vals.append(flat & ((1 << b) - 1))
        flat >>= b
    return vals


def out_dims_for(out_bits: list[int]) -> dict[str, int]:
    return {f"dim{i}": 1 << b for i, b in enumerate(out_bits)}


def random_out_bits(rng: random.Random, d: int) -> list[int]:
    a = rng.randint(0, d)
    return [a, d - a]


def random_memory(rng: random.Random, out_bits: list[int], unit: bool) -> LinearLayout:
    d = sum(out_bits)
    cols = random_invertible(rng, d, unit)
    return LinearLayout(
        {"offset": [split_out(c, out_bits) for c in cols]}, out_dims_for(out_bits)
    )


def random_distributed(
    rng: random.Random,
    out_bits: list[int],
    *,
    unit: bool,
    warp_bits: int,
    broadcast: float = 0.0,
    lane_bits: int = 5,
) -> LinearLayout:
    """A distributed layout onto the tensor: lane bits first, then warps, registers the rest.

    With probability ``broadcast`` each basis is replaced by zero (or a copy of another basis).
    The in-bits exceed the tensor bits when needed so that every tensor bit is covered.
    """
    d = sum(out_bits)
    cols = random_invertible(rng, d, unit)
    extra = max(0, lane_bits + warp_bits - d)
    cols = cols + [0] * extra
    lanes = cols[:lane_bits]
    warps = cols[lane_bits:lane_bits + warp_bits]
    regs = cols[lane_bits + warp_bits:]

    def noisy(cs: list[int]) -> list[int]:
        out = []
        for c in cs:
            if broadcast and rng.random() < broadcast:
                c = rng.choice([0, rng.choice(cols)])
            out.append(c)
        return out

    bases = {
        "register": [split_out(c, out_bits) for c in noisy(regs)],
        "lane": [split_out(c, out_bits) for c in noisy(lanes)],
    }
    if warp_bits:
        bases["warp"] = [split_out(c, out_bits) for c in noisy(warps)]
    return LinearLayout(bases, out_dims_for(out_bits))


def random_memory_vectorisable(
    rng: random.Random, layout: LinearLayout, unit: bool
) -> LinearLayout:
    """A random memory layout whose first offset bits are register directions of ``layout``.

    So that wide vectors (and the phases they bring) get exercised.
    """
    out_bits = [layout.out_bits(n) for n in layout.out_dim_names]
    d = sum(out_bits)
    regs = [c for c in layout.dim_columns("register") if c]
    rng.shuffle(regs)
    first = f2.extend_basis([], regs)[: rng.randint(0, 4)]
    rest = random_invertible(rng, d, unit)
    cols = first + f2.extend_basis(first, rest)
    return LinearLayout(
        {"offset": [split_out(c, out_bits) for c in cols]},
        dict(zip(layout.out_dim_names, (1 << b for b in out_bits))),
    )


def random_pair(
    rng: random.Random,
    out_bits: list[int],
    *,
    unit: bool,
    warp_bits: int,
    broadcast: float = 0.0,
) -> tuple[LinearLayout, LinearLayout]:
    """A store and a load over the same tensor whose register spans share 0-4 directions."""
    store = random_distributed(rng, out_bits, unit=unit, warp_bits=warp_bits, broadcast=broadcast)
    d = sum(out_bits)
    regs = [c for c in store.dim_columns("register") if c]
    rng.shuffle(regs)
    shared = f2.extend_basis([], regs)[: rng.randint(0, 4)]
    rest = f2.extend_basis(shared, random_invertible(rng, d, unit))
    rng.shuffle(rest)
    lane_bits = 5
    cols = rest + [0] * max(0, lane_bits + warp_bits - len(rest))
    lanes, warps, regs_b = cols[:lane_bits], cols[lane_bits:lane_bits + warp_bits], cols[lane_bits + warp_bits:]
    regs_b = shared + regs_b
    if broadcast:
        lanes = [0 if rng.random() < broadcast else c for c in lanes]
    bases = {
        "register": [split_out(c, out_bits) for c in regs_b],
        "lane": [split_out(c, out_bits) for c in lanes],
    }
    if warp_bits:
        bases["warp"] = [split_out(c, out_bits) for c in warps]
    load = LinearLayout(bases, out_dims_for(out_bits))
    return store, load
