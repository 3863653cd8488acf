"""The direct construction: one layout built on bit masks for the usual synthesis.

Most transfers a compiler asks about have sides (a store and its loads) whose columns are
unit vectors or zero — Triton's blocked, MMA and dot-operand layouts are permutations of
tensor bits — and an ``ld/st.shared`` assignment that a layout can meet. For them every
subspace the construction of :mod:`.plans` handles is spanned by tensor bits, so each step
is a few mask operations (no echelon forms, no search over prefixes):

1. **The vector prefix**, level by level (each distinct vector width of the assignment): the
   offset bits up to a width hold tensor bits in the register spans of every side whose
   vector reaches it and in none of those sides' thread directions, in the first such side's
   register order — the shorter sides' phase lanes first (they then fall in different banks
   of those sides' accesses), then bits outside the shorter sides' register spans (so they
   keep the vectors they were assigned). For elements narrower than a bank word the
   within-word bits follow: lane directions every side shares first, then any lane
   direction, then the lowest free bits.
2. **The segment** (Lemma 9.5 of the Linear Layouts paper, arXiv 2505.23819, on unit
   vectors): a phase of side ``s`` conflicts exactly in ``S ∩ span(Λ_s)`` (``S``: the
   segment's tensor span, inside the bits left after the prefix; ``Λ_s``: the side's phase
   lanes there), so ``S`` takes the bits in no side's phase lanes first (register bits, then
   the others, highest first); with two sides it then takes sums ``a ^ b`` of one phase lane
   of each side that the other lacks (Triton's ``computeSegment``,
   ``lib/Tools/GenericSwizzling.cpp``, pairs bits the same way); with more, the exact
   segment search (:func:`~.plans.segment_choice`) over the bits left decides.
3. **The banks**: the remaining bits (of each pair, the store's bit), one outside every
   register span first (the first bank bit decides whether a side vectorises wider than
   assigned), then in ascending order.

The layout is then counted exactly (:func:`~.plans.side_report`, its thread offsets read off
the construction's own table of offsets); the caller returns it only
when it costs exactly the assignment's ideal key, the per-side lower bound — then it is
optimal with the same proof the search gives, and the search is skipped. Otherwise (a
segment needing conflicts, a side widening, a column that is not a unit vector, phases that
are not sets of lane bits) the caller falls back to the search of :mod:`.synthesize`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from itertools import chain
from operator import attrgetter, or_
from typing import Any

from .. import f2
from ..conflicts.closed_form import count_side
from .options import SideOption
from .plans import Plan, Problem, segment_choice, side_report
from .transfer import Transfer

__all__ = ["UnitSides", "direct_plan", "unit_sides"]


class UnitSides:
    """Each side of a problem whose columns are all unit vectors or zero, as tensor-bit
    masks (built by :func:`unit_sides`, once per synthesis).

    Attributes:
        regs: each side's register bits; lanes: its lane bits; threads: its lane, warp and
            block bits; elems_log2: ``rank(lane + register images)`` (the bits of
            ``regs | lanes``, derived).
    """

    __slots__ = ("regs", "threads", "lanes", "elems_log2")

    def __init__(self, regs: tuple[int, ...], lanes: tuple[int, ...],
                 threads: tuple[int, ...]) -> None:
        self.regs, self.lanes, self.threads = regs, lanes, threads
        self.elems_log2 = tuple(map(int.bit_count, map(or_, regs, lanes)))

    def register_bases(self) -> tuple[tuple[int, ...], ...]:
        """Each side's :func:`~linlayout.f2.echelon` basis of its register images: its
        register bits, highest first (what ``echelon`` returns for unit vectors and zeros)."""
        return tuple([tuple(_bits(r)[::-1]) for r in self.regs])

    def chain_ok(self, assignment: Sequence[SideOption]) -> bool:
        """:func:`~.plans.chain_dims_ok` of an ``ld/st.shared`` assignment, on masks: for
        every vector width ``k`` taken, the register bits every side with a vector of at
        least ``k`` shares, less all those sides' thread bits, number at least ``k`` (spans
        of unit vectors meet in the span of their common bits)."""
        regs, threads = self.regs, self.threads
        for o in assignment:
            k = o.vector_log2
            if not k:
                continue
            space, thr = -1, 0
            for x in assignment:
                if x.vector_log2 >= k:
                    space &= regs[x.side]
                    thr |= threads[x.side]
            if (space & ~thr).bit_count() < k:
                return False
        return True


def unit_sides(problem: Problem | Transfer) -> UnitSides | None:
    """The problem's :class:`UnitSides`, or None when some register, lane, warp or block
    column is neither a unit vector nor zero. Only ``problem.sides`` is read: a
    :class:`~.transfer.Transfer` serves as well."""
    count = int.bit_count
    regs, lanes, threads = [], [], []
    for s in problem.sides:
        cols = s.register + s.lane + s.warp + s.block
        # unit vectors and zeros only: as many set bits as nonzero columns
        if sum(map(count, cols)) != len(cols) - cols.count(0):
            return None
        regs.append(reduce(or_, s.register, 0))
        lane = reduce(or_, s.lane, 0)
        lanes.append(lane)
        threads.append(reduce(or_, s.warp + s.block, lane))
    return UnitSides(tuple(regs), tuple(lanes), tuple(threads))

#: The unit vectors ``2^i`` (tensor bits and offset bits alike).
_UNITS = tuple(1 << i for i in range(64))


def _mask(columns: Sequence[int]) -> int:
    """The OR of ``columns`` (the tensor bits they span, for unit vectors)."""
    return reduce(or_, columns, 0)


def _bits(mask: int) -> list[int]:
    """The unit vectors of ``mask`` (non-negative), lowest first (for masks of up to 16
    bits — most tensors — read off two tables of byte values: no per-bit Python work)."""
    if mask < 65536:
        return [*_LOW_BYTE[mask & 255], *_HIGH_BYTE[mask >> 8]]
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


#: The unit vectors of each byte value ``b`` (lowest first), as bits 0–7 and as bits 8–15.
_LOW_BYTE = tuple(tuple(1 << i for i in range(8) if b >> i & 1) for b in range(256))
_HIGH_BYTE = tuple(tuple(u << 8 for u in bits) for bits in _LOW_BYTE)


def direct_plan(assignment: Sequence[SideOption], problem: Problem,
                units: UnitSides) -> Plan | None:
    """The layout of the direct construction (module docstring) for an ``ld/st.shared``
    assignment of two or more sides, counted exactly; None when the construction does not
    apply (a matrix option, fewer than two sides, more than 64 tensor bits, phases that are
    not sets of lane bits, too few register bits for a vector, or two sides whose segment
    cannot avoid both sides' phase lanes). With three or more sides the exact segment search
    may run: its nodes are charged to ``problem.nodes_spent``.

    Args:
        assignment: one ``ld/st.shared`` :class:`~.options.SideOption` per side, store first.
        problem: the synthesis (:class:`~.plans.Problem`).
        units: its sides as masks (:func:`unit_sides`: every column a unit vector or zero).

    Returns:
        A :class:`~.plans.Plan` with ``cols`` a basis of the ``d``-bit tensor space and each
        side's exact report — which may miss the assignment's ideal key (the caller checks).

    Source: Linear Layouts paper (arXiv 2505.23819) §5.4 and Lemma 9.5; Triton 3.9's
    ``optimalSwizzlingLdSt`` (``lib/Tools/GenericSwizzling.cpp``) builds layouts of this kind.
    """
    sides, model, d = problem.sides, problem.model, problem.d
    if len(assignment) < 2 or d > len(_UNITS) or \
            list(map(_GEOMETRY, assignment)).count(None) < len(assignment):
        return None
    phase = list(map(_PHASE_MASK, assignment))  # read off the lanes with each option
    if None in phase:
        for i, o in enumerate(assignment):
            if phase[i] is None:
                phase[i] = _phase_mask(o, sides[o.side], model)
                if phase[i] is None:
                    return None
    at_side = list(map(_SIDE, assignment))
    regs = list(map(units.regs.__getitem__, at_side))
    threads = list(map(units.threads.__getitem__, at_side))
    ks = list(map(_VECTOR, assignment))
    # step 1: the vector prefix, level by level (the sides whose vector reaches it share it)
    prefix: list[int] = []
    used = 0
    for k in sorted(set(ks)):
        if k <= len(prefix):
            continue
        members: list[int] = []
        shorter: list[int] = []
        for i, ki in enumerate(ks):
            (members if ki >= k else shorter).append(i)
        space = ~used
        for i in members:
            space &= regs[i] & ~threads[i]
        # in the first member's register order; a shorter side's phase lanes first (they
        # fall in its banks), then bits outside its register span (it keeps its vector)
        cands = [c for c in dict.fromkeys(sides[assignment[members[0]].side].register)
                 if c & space]
        if len(shorter) == 1:  # (the same order as below, for one shorter side)
            ph, rg = phase[shorter[0]], regs[shorter[0]]
            cands.sort(key=lambda c: (not c & ph) * 2 + bool(c & rg))
        elif shorter:
            cands.sort(key=lambda c: (sum(not c & phase[i] for i in shorter),
                                      sum(bool(c & regs[i]) for i in shorter)))
        take = cands[:k - len(prefix)]
        if len(take) < k - len(prefix):
            return None
        prefix += take
        used |= reduce(or_, take, 0)
    need = min(model.within_word_bits, d) - len(prefix)
    if need > 0:  # within-word bits: shared lanes, then any lane, then the lowest
        shared = -1
        for o in assignment:
            shared &= units.lanes[o.side]
        order = _bits(shared)
        for o in assignment:
            order += sides[o.side].lane
        for c in chain(order, _UNITS[:d]):
            if c and not c & used:
                prefix.append(c)
                used |= c
                need -= 1
                if not need:
                    break
    kp = len(prefix)
    row = min(model.seg_lo, d)
    nseg, nbank = d - row, row - kp
    if nbank < 0:
        return None
    # step 2: the segment, avoiding every side's phase lanes
    rest = ((1 << d) - 1) & ~used
    either = reduce(or_, regs, 0)
    # free register bits first (in the segment they only separate instructions), high first
    free = rest & ~reduce(or_, phase, 0)
    units_seg = (_bits(free & either)[::-1] + _bits(free & ~either)[::-1])[:nseg]
    paired: list[tuple[int, int]] = []
    if len(units_seg) < nseg and len(assignment) > 2:
        return _searched_segment(assignment, problem, units, prefix, rest, phase, nseg)
    if len(units_seg) < nseg:
        a, b = phase[0] & rest, phase[1] & rest
        only_a, only_b = _bits(a & ~b), _bits(b & ~a)
        need = nseg - len(units_seg)
        if need > min(len(only_a), len(only_b)):
            return None
        paired = list(zip(only_a[:need], only_b[:need]))
    # step 3: the banks — what the segment leaves (of a pair, the store's bit)
    left = rest & ~_mask(units_seg) & ~_mask([y for _, y in paired])
    banks = _bits(left)
    if banks and banks[0] & either and left & ~either:
        outside = left & ~either
        outside &= -outside  # the lowest bank bit outside every register span
        banks.remove(outside)
        banks.insert(0, outside)
    seg = sorted(units_seg + [x ^ y for x, y in paired])
    cols = tuple(prefix + banks + seg)
    # the inverse: a unit column at offset bit i takes its tensor bit to 2^i; of a pair
    # x ^ y in the segment (x a bank bit), y goes to both offset bits
    at = dict(zip(cols, _UNITS))  # (a pair's entry is never looked up)
    for x, y in paired:
        at[y] = at[x] | at[x ^ y]
    at[0] = 0  # a broadcast thread column: offset 0
    # every thread offset is looked up in ``at``: count_side needs no inverse columns
    offset_of, regs_of, elems = at.__getitem__, problem.regs, units.elems_log2
    reports = tuple([count_side(cols, (), sides[i], regs_of[i], model, False, i > 0,
                                elems[i], offset_of) for i in at_side])
    plan = _new(Plan)  # the frozen dataclass, without its per-field __setattr__ calls
    plan.__dict__.update(cols=cols, reports=reports, assignment=tuple(assignment), proven=True,
                         source="construction")
    return plan


_new = object.__new__
#: An option's fields, read at C speed.
_GEOMETRY, _PHASE_MASK, _SIDE, _VECTOR = map(attrgetter, ("geometry", "phase_mask", "side",
                                                         "vector_log2"))


def _searched_segment(assignment: Sequence[SideOption], problem: Problem, units: UnitSides,
                      prefix: list[int], rest: int, phase: Sequence[int], nseg: int
                      ) -> Plan | None:
    """Steps 2–3 for three or more sides whose segment cannot avoid every phase lane with
    free bits alone: the exact segment search (:func:`~.plans.segment_choice`, charged to the
    problem's node budget) over the bits left after the prefix, then the banks (outside the
    register spans first, then the lowest bits) and the exact count. ``proven``: whether the
    segment search finished."""
    sides, model, d = problem.sides, problem.model, problem.d
    free = _bits(rest)  # the complement's coordinates: coordinate j is tensor bit free[j]
    m = len(free)
    xs = tuple(tuple(1 << j for j, c in enumerate(free) if c & ph) for ph in phase)
    costs = tuple(wt * o.instructions_per_warp * o.phases
                  for o, wt in zip(assignment, problem.weights))
    choice = segment_choice(xs, m, nseg, max(0, problem.node_limit - problem.nodes_spent),
                            costs)
    problem.nodes_spent += choice.nodes
    seg = sorted(f2.echelon(f2.compose(free, list(choice.sum_witness))))
    either = reduce(or_, [units.regs[o.side] for o in assignment], 0)
    candidates = [c for c in free if not c & either] + [c for c in free if c & either]
    banks = f2.extend_basis(seg, candidates, limit=m - len(seg))
    cols = tuple(prefix + banks + seg)
    if len(cols) != d:
        return None
    inv = f2.inverse(list(cols), d)
    reports = tuple(side_report(cols, inv, sides[o.side], problem.regs[o.side], model, d,
                                False, o.side > 0, units.elems_log2[o.side])
                    for o in assignment)
    return Plan(cols, reports, tuple(assignment), choice.proven)


def _phase_mask(option: SideOption, side: Any, model: Any) -> int | None:
    """The tensor bits of the side's lanes in one phase of its ``ld/st.shared`` access
    (:func:`~.plans.phase_lanes`, as a mask); None when a phase's lanes are not a set of
    lane bits (a hardware whose phases group lanes otherwise, e.g. AMD's: their tensor
    columns may be sums, which a mask does not describe)."""
    load = option.side > 0
    packed = load and model.packed(side.lane, option.vector_log2, load)  # stores never pack
    _, lane_ids, p = model.phase_info(option.vector_log2, packed)
    if p is not None:
        return _mask(side.lane[:p])
    cols = f2.compose(side.lane, lane_ids)
    if sum(map(int.bit_count, cols)) != len(cols) - cols.count(0):
        return None
    return _mask(cols)
