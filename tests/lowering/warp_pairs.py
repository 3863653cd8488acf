"""Random pairs of distributed layouts that keep every element in its warp (for the
decomposition, shuffle and convert-path tests)."""

from __future__ import annotations

import random

from linlayout.layout import LinearLayout


def layout(reg: list[int], lane: list[int], warp: list[int], rows_bits: int, cols_bits: int
           ) -> LinearLayout:
    """A layout from flat tensor bits (the low ``cols_bits`` are ``dim1``)."""
    def img(c: int) -> list[int]:
        return [c >> cols_bits, c & ((1 << cols_bits) - 1)]

    return LinearLayout({"register": [img(c) for c in reg], "lane": [img(c) for c in lane],
                         "warp": [img(c) for c in warp], "block": []},
                        {"dim0": 1 << rows_bits, "dim1": 1 << cols_bits})


def warp_pair(rng: random.Random, lane_bits: int = 5, warp_bits: int = 1,
              reg_bits: int | None = None) -> tuple[LinearLayout, LinearLayout]:
    """A source and a destination with the same warps: register/lane exchanges, lane and
    register permutations and broadcasts drawn at random."""
    nreg = rng.randint(1, 4) if reg_bits is None else reg_bits
    d = nreg + lane_bits + warp_bits
    bits = [1 << i for i in range(d)]
    rng.shuffle(bits)
    warp, lane, reg = bits[:warp_bits], bits[warp_bits:warp_bits + lane_bits], \
        bits[warp_bits + lane_bits:]
    if rng.random() < 0.2:
        i = rng.randrange(lane_bits)
        reg, lane[i] = reg + [lane[i]], 0
    t_reg, t_lane = list(reg), list(lane)
    nz = [i for i, c in enumerate(t_lane) if c]
    for _ in range(rng.choice([0, 1, 1, 2])):
        i, j = rng.randrange(len(t_reg)), rng.choice(nz)
        t_reg[i], t_lane[j] = t_lane[j], t_reg[i]
    if rng.random() < 0.5:
        rng.shuffle(t_lane)
    if rng.random() < 0.5:
        rng.shuffle(t_reg)
    if rng.random() < 0.2:
        t_reg.insert(rng.randrange(len(t_reg) + 1), 0)
    cols = d - d // 2
    return layout(reg, lane, warp, d - cols, cols), layout(t_reg, t_lane, warp, d - cols, cols)
