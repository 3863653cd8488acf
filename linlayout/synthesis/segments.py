"""Choosing the segment subspace: exact minima for any number of accesses.

A side X of a shared-memory access (a store or a load) takes ``2^e_X`` wavefronts per phase
with ``e_X = dim(St ∩ X_X)``: ``St`` is the span of the memory layout's segment bases and
``X_X = span(lanes of one phase) + Z`` (:mod:`linlayout.conflicts`). Choosing the memory layout
therefore comes down to choosing an ``s``-dimensional ``St`` with ``St ∩ Z = 0`` that meets
every ``X_X`` as little as possible.

* Two sides: :func:`linlayout.f2.avoiding_sequence` reaches the per-side lower bound
  ``max(0, s − (n − dim X))`` on both at once (Lemma 9.5 of the Linear Layouts paper,
  generalised), so the answer is immediate and provably optimal.
* Three or more: over F₂ the subspaces can block each other (``u``, ``v`` and ``u ⊕ v`` spanning
  three lines in a plane leave no line free), so the lemma no longer decides. Work in the
  quotient ``Q = F₂ⁿ / Z`` and let ``W = ΣX̄``; directions outside ``W`` are harmless, so only
  ``κ = max(0, s − (dim Q − dim W))`` dimensions of ``St`` must lie inside ``W``. The search
  enumerates the kernels ``K ⊆ W`` of dimension ``κ`` as kernels of "bank maps"
  ``B: W → F₂^(w−κ)`` in canonical column form (one representative per kernel), fixing the
  columns of ``B`` one basis vector at a time and pruning on the sides already determined.
  A heuristic incumbent that meets every per-side lower bound ends the search at once.

:func:`best_segment` returns the witness, the exponent of each side, and whether optimality
was proven (the search finished within its node budget).
"""

from __future__ import annotations

import random
from functools import reduce
from operator import or_
from collections.abc import Sequence
from dataclasses import dataclass

from .. import f2
from .space import QuotientSpace

__all__ = ["SegmentChoice", "best_segment", "lower_bounds"]


@dataclass(frozen=True)
class SegmentChoice:
    """The outcome of a segment search.

    Attributes:
        segment: basis of ``St`` (vectors of F₂ⁿ), ``St ∩ Z = 0``.
        exponents: ``dim(St ∩ X_i)`` for each side, in input order (conflict degree ``2^e``).
        lower_bounds: the per-side dimension-count bounds ``max(0, s − (n − dim X_i))``.
        proven: True when no ``St`` has a smaller ``(max, sum)`` of exponents: either every
            side meets its lower bound or the exhaustive search finished.
        nodes: search nodes visited (0 when the closed form or the heuristic sufficed).
        min_sum_degrees: the least ``Σ 2^e_i`` over all segment spans (the total rather than
            the worst side; proven when ``proven``), and ``sum_witness`` a span reaching it.
    """

    segment: tuple[int, ...]
    exponents: tuple[int, ...]
    lower_bounds: tuple[int, ...]
    proven: bool
    nodes: int = 0

    min_sum_degrees: int = 0
    sum_witness: tuple[int, ...] = ()

    @property
    def score(self) -> tuple[int, int]:
        """``(max exponent, sum of degrees 2^e)``: the lexicographic objective."""
        return _worst_first(self.exponents)


def lower_bounds(xs: Sequence[Sequence[int]], nbits: int, nseg: int) -> tuple[int, ...]:
    """Per-side bounds ``max(0, s − (n − dim X_i))``: any s-dim subspace meets X_i that much."""
    return tuple(max(0, nseg - (nbits - f2.rank(x))) for x in xs)


def _worst_first(exps: Sequence[int], weights: Sequence[int] | None = None) -> tuple[int, int]:
    return (max(exps, default=0), _weighted(exps, weights))


def _sum_first(exps: Sequence[int], weights: Sequence[int] | None = None) -> tuple[int, int]:
    return (_weighted(exps, weights), max(exps, default=0))


def _weighted(exps: Sequence[int], weights: Sequence[int] | None) -> int:
    """``Σ weight · 2^e`` (weights 1 when None)."""
    if weights is None:
        return sum(1 << e for e in exps)
    return sum(wt << e for wt, e in zip(weights, exps))


def _exponents(seg: Sequence[int], xs: Sequence[Sequence[int]]) -> tuple[int, ...]:
    return tuple(len(f2.intersection(seg, x)) for x in xs)


def best_segment(
    xs: Sequence[Sequence[int]],
    z: Sequence[int],
    nbits: int,
    nseg: int,
    *,
    node_limit: int = 200_000,
    seed: int = 0,
    weights: Sequence[int] | None = None,
) -> SegmentChoice:
    """An ``nseg``-dimensional segment span meeting the sides' subspaces as little as possible.

    Args:
        xs: spanning lists of the sides' subspaces ``X_i`` (each containing ``span(z)``).
        z: spanning list of the vector + within-word subspace ``Z`` (``St ∩ Z`` must be 0).
        nbits: the tensor's bit count ``n``.
        nseg: the segment dimension ``s`` (``s ≤ n − dim Z``).
        node_limit: search budget (nodes); past it the best found is returned unproven.
        seed: seed of the heuristic's random choices (results are deterministic per seed).
        weights: per-side weights of the sum objective ``Σ weight · 2^e`` (default 1 each):
            with each side's instructions × phases (× its weight) the sum is the total
            wavefronts per warp, and ``sum_witness`` minimises it.

    Returns:
        A :class:`SegmentChoice` minimising ``(max_i e_i, Σ e_i)`` — proven, or the best found
        within the budget.

    Raises:
        ValueError: ``nseg`` exceeds ``n − dim Z`` (a programming error; callers size it).
    """
    xs = [list(x) + list(z) for x in xs]
    if len(xs) <= 2:
        # Lemma 9.5, generalised: both per-side bounds are reached at once.
        ea, eb = sorted(f2.echelon(xs[0])), sorted(f2.echelon(xs[-1]))
        bounds = tuple(max(0, nseg - (nbits - len(e))) for e in ((ea, eb) if len(xs) == 2
                                                                 else (ea,)))
        seg = tuple(f2.avoiding_sequence_echelon(ea, eb, f2.echelon(z), nbits)[:nseg])
        if len(seg) < nseg:
            raise ValueError(f"a {nseg}-dim segment cannot avoid Z in {nbits} bits")
        total = _weighted(bounds, weights)
        return SegmentChoice(seg, bounds, bounds, proven=True, min_sum_degrees=total,
                             sum_witness=seg)
    bounds = lower_bounds(xs, nbits, nseg)
    quo = QuotientSpace(z, nbits)
    q = quo.dim
    if nseg > q:
        raise ValueError(f"a {nseg}-dim segment cannot avoid a {nbits - q}-dim Z in {nbits} bits")

    xbar = [f2.echelon(quo.down(v) for v in x) for x in xs]
    wbasis: list[int] = []
    for xb_ in xbar:  # W's basis adapted to X̄_1, then X̄_2's extension, …
        wbasis += f2.extend_basis(wbasis, sorted(xb_))
    w = len(wbasis)
    comp = f2.complement(wbasis, q)  # harmless directions, outside every side
    kappa = max(0, nseg - len(comp))
    outside = [quo.up(c) for c in comp[: nseg - kappa]]

    def lift(kernel_w: Sequence[int]) -> tuple[int, ...]:
        """Kernel vectors in W-coordinates -> segment basis in F₂ⁿ."""
        vecs = []
        for kv in kernel_w:
            v = 0
            for j, b in enumerate(wbasis):
                if kv >> j & 1:
                    v ^= b
            vecs.append(quo.up(v))
        return tuple(outside + vecs)

    if kappa == 0 or kappa == w:
        seg = lift([1 << j for j in range(w)] if kappa == w else [])
        exps = _exponents(seg, xs)
        return SegmentChoice(seg, exps, bounds, proven=True,
                             min_sum_degrees=_weighted(exps, weights), sum_witness=seg)

    # Sides in W-coordinates (each basis vector as a bitmask over wbasis).
    sol = f2.solve_many(wbasis, [v for xb_ in xbar for v in xb_])
    sides_w: list[list[int]] = []
    it = iter(sol)
    for xb_ in xbar:
        sides_w.append([next(it) for _ in xb_])  # type: ignore[misc]

    best = _heuristic(sides_w, w, kappa, seed, weights)
    exps_h = [len(f2.intersection(best, sd)) for sd in sides_w]
    bounds_w = tuple(max(0, kappa - (w - len(sd))) for sd in sides_w)
    if tuple(exps_h) == bounds_w:  # every side at its own bound: optimal for both objectives
        seg = lift(best)
        # St ∩ X_i maps onto K ∩ X̄_i (X_i ⊇ Z, and St's part outside W meets no X̄_i ⊆ W),
        # so the heuristic's exponents are the segment's
        exps = tuple(exps_h)
        return SegmentChoice(seg, exps, bounds, proven=True,
                             min_sum_degrees=_weighted(exps, weights), sum_witness=seg)

    found_mx, found_sm, nodes, complete = _search(
        sides_w, w, kappa, _worst_first(exps_h, weights), _sum_first(exps_h, weights),
        node_limit, weights)
    seg = lift(found_mx if found_mx is not None else best)
    sum_seg = lift(found_sm if found_sm is not None else best)
    exps_sum = _exponents(sum_seg, xs)
    return SegmentChoice(seg, _exponents(seg, xs), bounds, proven=complete, nodes=nodes,
                         min_sum_degrees=_weighted(exps_sum, weights), sum_witness=sum_seg)


def _score(kernel: Sequence[int], sides: Sequence[Sequence[int]],
           weights: Sequence[int] | None = None) -> tuple[int, int]:
    return _worst_first([len(f2.intersection(kernel, s)) for s in sides], weights)


#: Up to this many coordinates the heuristic tries every vector at every step (then it is
#: deterministic and one pass suffices); beyond, it samples.
_EXHAUSTIVE_CANDIDATES_BITS = 7


def _heuristic(sides: Sequence[Sequence[int]], w: int, kappa: int, seed: int,
               weights: Sequence[int] | None = None) -> list[int]:
    """Greedy kernel: add the candidate vector that raises (max, sum) the least.

    Adding ``c`` to a kernel ``K`` raises ``dim(K ∩ X)`` by one exactly when ``c`` lies in
    ``K + X`` (and not in ``K``), so each side's exponent is tracked with one reduction
    against the echelon basis of ``K + X``. With at most :data:`_EXHAUSTIVE_CANDIDATES_BITS`
    coordinates every nonzero vector is a candidate (one deterministic pass); beyond, six
    randomised passes (seeded) each try 48 sampled vectors and the unit vectors per step.
    A pass that meets every side's lower bound ends the search (nothing scores less).
    """
    rng = random.Random(seed)
    best: list[int] | None = None
    best_score = None
    side_bases = [f2.echelon(sd) for sd in sides]
    wts = [1] * len(sides) if weights is None else list(weights)
    floor = [max(0, kappa - (w - len(sb))) for sb in side_bases]
    floor_score = _worst_first(floor, weights)
    everything = w <= _EXHAUSTIVE_CANDIDATES_BITS
    for _ in range(1 if everything else 6):
        if everything:
            kernel, exps = _greedy_all(side_bases, w, kappa, wts)
        else:
            kernel, exps = _greedy_sampled(side_bases, w, kappa, wts, rng)
        sc = _worst_first(exps, weights)
        if best_score is None or sc < best_score:
            best, best_score = kernel, sc
        if best_score == floor_score:
            break
    assert best is not None
    return best


def _greedy_all(side_bases: Sequence[tuple[int, ...]], w: int, kappa: int,
                wts: Sequence[int]) -> tuple[list[int], list[int]]:
    """One deterministic greedy pass of :func:`_heuristic` over every nonzero vector of
    ``F₂^w`` (``w`` at most :data:`_EXHAUSTIVE_CANDIDATES_BITS`): the spans involved have at
    most ``2^w`` elements, so each is kept as a ``2^w``-bit set (bit ``x`` for element ``x``)
    and membership is bit arithmetic. A candidate's score depends only on which spans hold it
    (its mask): for each mask the lowest candidate with it is found at once
    (:func:`_lowest_by_mask`). Returns the kernel and its sides' exponents."""
    low = _low_masks(w)
    kernel: list[int] = []
    in_kernel = 1  # {0}
    spans = [_span_bits(sb, low) for sb in side_bases]  # K + X_i
    exps = [0] * len(side_bases)
    full = (1 << (1 << w)) - 1
    while len(kernel) < kappa:
        c, exps = _greedy_pick(_lowest_by_mask(full & ~in_kernel, spans), exps, wts)
        kernel.append(c)
        in_kernel |= _translated(in_kernel, c, low)
        spans = [sp if sp >> c & 1 else sp | _translated(sp, c, low) for sp in spans]
    return kernel, exps


def _lowest_by_mask(free: int, spans: Sequence[int]) -> dict[int, int]:
    """For each mask ``m`` (bit ``i``: the candidate lies in ``spans[i]``) that some
    candidate of the set ``free`` has, the lowest such candidate — the sets are split side
    by side, so only the masks that occur are formed."""
    groups = [(0, free)]
    for i, sp in enumerate(spans):
        bit = 1 << i
        split = []
        for m, cands in groups:
            outside = cands & ~sp
            if outside:
                split.append((m, outside))
            inside = cands & sp
            if inside:
                split.append((m | bit, inside))
        groups = split
    return {m: (cands & -cands).bit_length() - 1 for m, cands in groups}


def _greedy_pick(first: dict[int, int], exps: Sequence[int], wts: Sequence[int]
                 ) -> tuple[int, list[int]]:
    """The greedy step's pick among each mask's lowest candidate (:func:`_lowest_by_mask`):
    the least ``((max, weighted sum) of the exponents after it, candidate)``, and those
    exponents. A mask raises the exponents of its sides by one: the worst becomes the
    larger of the worst and theirs plus one, the sum grows by their terms."""
    adds = [wt << e for wt, e in zip(wts, exps)]
    base, top = sum(adds), max(exps)
    pick: tuple[tuple[int, int], int, int] | None = None
    for m, c in first.items():
        hi, total, x = top, base, m
        while x:
            i = (x & -x).bit_length() - 1
            x &= x - 1
            total += adds[i]
            if exps[i] >= hi:
                hi = exps[i] + 1
        sc = (hi, total)
        if pick is None or (sc, c) < (pick[0], pick[1]):
            pick = (sc, c, m)
    assert pick is not None
    _, c, m = pick
    return c, [e + (m >> i & 1) for i, e in enumerate(exps)]


def _greedy_sampled(side_bases: Sequence[tuple[int, ...]], w: int, kappa: int,
                    wts: Sequence[int], rng: random.Random) -> tuple[list[int], list[int]]:
    """One randomised greedy pass of :func:`_heuristic` (48 sampled vectors and the unit
    vectors per step); the kernel and its sides' exponents."""
    if w <= _SPAN_SET_BITS:
        return _greedy_sampled_bits(side_bases, w, kappa, wts, rng)
    kernel: list[int] = []
    k_basis: tuple[int, ...] = ()
    sums = list(side_bases)  # echelon bases of K + X_i
    # up to _SPAN_SET_BITS dimensions, K + X_i is also kept as the set of its elements:
    # membership is then a lookup instead of a reduction
    sets: list[set[int] | None] = [set(f2.span_elements(sb)) if len(sb) <= _SPAN_SET_BITS
                                   else None for sb in sums]
    exps = [0] * len(side_bases)
    nsides = len(side_bases)
    units = {1 << j for j in range(w)}
    reduce = f2.reduce
    while len(kernel) < kappa:
        pool = {rng.getrandbits(w) for _ in range(48)}
        pool |= units
        pick = None
        for c in sorted(pool):
            if c == 0 or reduce(c, k_basis) == 0:
                continue
            trial = exps[:]
            for i in range(nsides):
                st = sets[i]
                if (c in st) if st is not None else reduce(c, sums[i]) == 0:
                    trial[i] += 1
            sc = (max(trial), sum(wt << e for wt, e in zip(wts, trial)))
            if pick is None or sc < pick[0]:
                pick = (sc, c, trial)
        assert pick is not None
        _, c, exps = pick
        kernel.append(c)
        k_basis = f2.echelon(kernel)
        for i in range(nsides):
            st = sets[i]
            if st is not None and c not in st:
                if len(sums[i]) + 1 <= _SPAN_SET_BITS:
                    st |= {x ^ c for x in st}
                else:
                    sets[i] = None
        sums = [f2.echelon(list(sb) + [c]) for sb in sums]
    return kernel, exps


#: Largest dimension of ``K + X_i`` that :func:`_greedy_sampled` keeps as a set of elements.
_SPAN_SET_BITS = 10


def _greedy_sampled_bits(side_bases: Sequence[tuple[int, ...]], w: int, kappa: int,
                         wts: Sequence[int], rng: random.Random
                         ) -> tuple[list[int], list[int]]:
    """:func:`_greedy_sampled` for ``w`` up to :data:`_SPAN_SET_BITS` coordinates: the same
    samples and the same pick, with the pool, ``K`` and every ``K + X_i`` kept as
    ``2^w``-bit sets (bit ``x`` for element ``x``, as :func:`_greedy_all` does). A
    candidate's score depends only on which ``K + X_i`` hold it (its mask), and the pick is
    the least (score, candidate): so only each mask's lowest candidate is scored
    (:func:`_lowest_by_mask`)."""
    low = _low_masks(w)
    kernel: list[int] = []
    in_kernel = 1  # {0}
    spans = [_span_bits(sb, low) for sb in side_bases]  # K + X_i
    exps = [0] * len(side_bases)
    unit_bits = 0
    for j in range(w):
        unit_bits |= 1 << (1 << j)
    shift = (1).__lshift__
    while len(kernel) < kappa:
        pool = {rng.getrandbits(w) for _ in range(48)}
        free = (reduce(or_, map(shift, pool)) | unit_bits) & ~in_kernel
        c, exps = _greedy_pick(_lowest_by_mask(free, spans), exps, wts)
        kernel.append(c)
        in_kernel |= _translated(in_kernel, c, low)
        spans = [sp if sp >> c & 1 else sp | _translated(sp, c, low) for sp in spans]
    return kernel, exps


def _low_masks(w: int) -> list[int]:
    """For each coordinate ``j < w``, the ``2^w``-bit set of the ``x`` with bit ``j`` of
    ``x`` clear (a block of ``2^j`` ones repeated every ``2^(j+1)`` positions)."""
    full = (1 << (1 << w)) - 1
    return [full // ((1 << (2 << j)) - 1) * ((1 << (1 << j)) - 1) for j in range(w)]


def _translated(bits: int, c: int, low: Sequence[int]) -> int:
    """The ``2^w``-bit set ``{x ^ c : x in bits}`` (``low``: :func:`_low_masks`)."""
    j = 0
    while c:
        if c & 1:
            step = 1 << j
            mask = low[j]
            bits = ((bits & mask) << step) | ((bits >> step) & mask)
        c >>= 1
        j += 1
    return bits


def _span_bits(basis: Sequence[int], low: Sequence[int]) -> int:
    """The ``2^w``-bit set of the elements of ``span(basis)``."""
    bits = 1  # {0}
    for b in basis:
        bits |= _translated(bits, b, low)
    return bits


def _search(
    sides: Sequence[Sequence[int]], w: int, kappa: int, inc_worst: tuple[int, int],
    inc_sum: tuple[int, int], limit: int, weights: Sequence[int] | None = None
) -> tuple[list[int] | None, list[int] | None, int, bool]:
    """Exhaustive search over bank maps ``B: F₂^w → F₂^r`` (``r = w − κ``) in canonical form.

    Column ``j`` of ``B`` is either a vector of the span of the earlier columns or the next
    unit vector (a new pivot): every kernel is met exactly once. A side is scored as soon as
    all coordinates its vectors use are fixed (the others count with their lower bound), and a
    branch is cut when it can beat neither incumbent: ``(worst exponent, Σ degrees)`` nor
    ``(Σ degrees, worst exponent)``.

    Returns ``(kernel best for the worst side or None, kernel best for the sum or None, nodes,
    complete)``; None where no kernel beats the incumbent.
    """
    r = w - kappa
    ready_at: list[list[int]] = [[] for _ in range(w)]
    for i, vs in enumerate(sides):
        top = max(v.bit_length() for v in vs) - 1 if vs else 0
        ready_at[max(top, 0)].append(i)
    bounds = [max(0, kappa - (w - len(vs))) for vs in sides]
    best_w, best_s = inc_worst, inc_sum
    cols_w: list[int] | None = None
    cols_s: list[int] | None = None
    cols = [0] * w
    exps = list(bounds)  # undetermined sides count with their lower bound
    nodes = 0
    complete = True

    def side_exp(i: int) -> int:
        imgs = [f2.apply(cols, v) for v in sides[i]]
        return len(sides[i]) - f2.rank(imgs)

    def rec(j: int, rank: int, span: list[int]) -> None:
        nonlocal nodes, best_w, best_s, cols_w, cols_s, complete
        if j == w:
            if rank == r:
                sw, ss = _worst_first(exps, weights), _sum_first(exps, weights)
                if sw < best_w:
                    best_w, cols_w = sw, list(cols)
                if ss < best_s:
                    best_s, cols_s = ss, list(cols)
            return
        if rank + (w - j) < r:
            return
        nodes += 1
        if nodes > limit:
            complete = False
            return
        options = [(1 << rank, rank + 1)] if rank < r else []
        options += [(v, rank) for v in span]
        touched = ready_at[j]
        for col, new_rank in options:
            # every column tried is charged, once per side it scores: a node's options
            # number up to 2^rank, and each side scored is a rank computation
            nodes += max(1, len(touched))
            if nodes > limit:
                complete = False
                break
            cols[j] = col
            for i in touched:
                exps[i] = side_exp(i)
            # every completion scores at least the current (monotone) values
            if _worst_first(exps, weights) < best_w or _sum_first(exps, weights) < best_s:
                new_span = span if new_rank == rank else span + [x ^ col for x in span]
                rec(j + 1, new_rank, new_span)
            if not complete:
                break
        for i in touched:
            exps[i] = bounds[i]
        cols[j] = 0

    rec(0, 0, [0])
    # kernel of B: vectors x (over W coordinates) with B x = 0
    kern_w = list(f2.null_space(cols_w)) if cols_w is not None else None
    kern_s = list(f2.null_space(cols_s)) if cols_s is not None else None
    return kern_w, kern_s, nodes, complete
