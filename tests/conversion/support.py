"""Small layouts for the conversion tests, and a brute-force search for the fewest shuffles."""

from __future__ import annotations

import itertools
import random
from functools import lru_cache

from linlayout import LinearLayout, f2


def probe_layout(side: dict, shape: list[int]) -> LinearLayout:
    """A layout of ``tests/data/conversion_triton_shuffles.json.gz`` (``reg``, ``lane``,
    ``warp`` bases over ``dim0, dim1``) as a :class:`LinearLayout`."""
    return LinearLayout({"register": side["reg"], "lane": side["lane"], "warp": side["warp"]},
                        {"dim0": shape[0], "dim1": shape[1]})


def warp_layout(columns: list[int], register_bits: int, out_bits: int) -> LinearLayout:
    """A one-warp layout: the first ``register_bits`` columns are registers, the rest lanes;
    one out dim ``dim0`` of ``2^out_bits`` elements."""
    regs = [[c] for c in columns[:register_bits]]
    lanes = [[c] for c in columns[register_bits:]]
    return LinearLayout({"register": regs, "lane": lanes}, {"dim0": 1 << out_bits})


def invertible_matrices(n: int):
    """Every invertible n×n matrix over F₂, as column lists."""
    for cols in itertools.product(range(1, 1 << n), repeat=n):
        if f2.rank(cols) == n:
            yield list(cols)


def random_invertible(n: int, rng: random.Random) -> list[int]:
    while True:
        cols = [rng.randrange(1, 1 << n) for _ in range(n)]
        if f2.rank(cols) == n:
            return cols


def min_shuffle_rounds(held: tuple[int, ...], need: tuple[int, ...], limit: int,
                       per_word: int = 1) -> int | None:
    """The fewest rounds (≤ ``limit``) of shuffles after which every lane holds the elements
    in its ``need`` mask, starting from ``held``; None if more are needed. Each round every
    lane sends one word of up to ``per_word`` elements it holds (2 for 16-bit elements) and
    reads the word of any lane: every plan is searched, relays included."""
    lanes = len(held)

    @lru_cache(maxsize=None)
    def reachable(state: tuple[int, ...], left: int) -> bool:
        lacking = [n & ~h for h, n in zip(state, need)]
        worst = max(bin(x).count("1") for x in lacking)
        if worst == 0:
            return True
        if -(-worst // per_word) > left:
            return False
        wanted = 0
        for x in lacking:
            wanted |= x
        options = []
        for h in state:
            elems = list(_bits(h & wanted))
            words = [sum(1 << e for e in c) for k in range(1, per_word + 1)
                     for c in itertools.combinations(elems, min(k, len(elems)))] or [0]
            options.append(sorted(set(words)))
        for sent in itertools.product(*options):
            words = set(sent) - {0}
            picks = [[w for w in words if w & ~state[l]] or [0] for l in range(lanes)]
            for got in itertools.product(*picks):
                nxt = tuple(h | w for h, w in zip(state, got))
                if nxt != state and reachable(nxt, left - 1):
                    return True
        return False

    for rounds in range(limit + 1):
        if reachable(tuple(held), rounds):
            return rounds
    return None


def _bits(mask: int):
    i = 0
    while mask:
        if mask & 1:
            yield i
        mask >>= 1
        i += 1


def held_and_needed(src: LinearLayout, dst: LinearLayout) -> tuple[tuple[int, ...], ...]:
    """Per lane of warp 0: the element masks ``src`` gives it and ``dst`` asks of it."""
    def masks(lay):
        rb = lay.in_bits("register")
        out = []
        for lane in range(1 << lay.in_bits("lane")):
            m = 0
            for r in range(1 << rb):
                m |= 1 << lay.apply_flat(r | lane << rb)
            out.append(m)
        return tuple(out)
    return masks(src), masks(dst)


def min_shuffle_select_cost(held: list[tuple[int, ...]], need: list[tuple[int, ...]],
                            shfl: float, selp: float, limit: float) -> float | None:
    """The least cost (≤ ``limit``) of a program of ``shfl`` (each lane reads any lane's copy
    of one value) and ``selp`` (each lane takes one of two values, by lane) instructions that
    computes every value in ``need`` from those in ``held``; a value is a tuple, one element
    per lane. Dijkstra over the sets of values computed: every program is searched. None when
    more than ``limit`` is needed."""
    import heapq

    lanes = len(held[0])
    maps = list(itertools.product(range(lanes), repeat=lanes))
    masks = list(itertools.product((False, True), repeat=lanes))
    start = frozenset(held)
    goal = set(need)
    best = {start: 0.0}
    queue = [(0.0, 0, start)]
    tick = 0
    while queue:
        cost, _, state = heapq.heappop(queue)
        if goal <= state:
            return cost
        if cost > best.get(state, float("inf")):
            continue
        new = {tuple(v[s] for s in m): shfl for v in state for m in maps}
        for a in state:
            for b in state:
                if a != b:
                    for k in masks:
                        v = tuple(x if take else y for x, y, take in zip(a, b, k))
                        new[v] = min(new.get(v, selp), selp)
        for v, w in new.items():
            if v in state or cost + w > limit + 1e-9:
                continue
            nxt = state | {v}
            if cost + w < best.get(nxt, float("inf")) - 1e-12:
                best[nxt] = cost + w
                tick += 1
                heapq.heappush(queue, (cost + w, tick, nxt))
    return None
