"""Building the memory layout for one assignment of accesses, and counting it exactly.

An *assignment* gives every side one :class:`~.options.SideOption`: its vector width (or its
matrix instruction). :func:`build_plan` turns it into a memory layout in four steps, each a
piece of linear algebra over the tensor's bit space F₂ᵈ:

1. **The prefix** (:func:`build_prefix`): offset bits ``0 … K−1`` hold the vectors. Sides
   with longer vectors extend the prefix of sides with shorter ones, so the prefix is a chain:
   the first ``k`` directions must lie in the register span of every side with a vector of at
   least ``k`` and avoid every thread (lane, warp, block) direction of those sides — else a
   thread's run of ``2^k`` elements would not start aligned. A matrix instruction fixes the
   first bits to its 16-byte row instead. For elements narrower than a bank word the
   within-word bits follow (``K′ = max(K, w)``), lane directions first: lanes that share a
   word never conflict.
2. **The aligned complement** (:func:`aligned_complement`): the remaining offset bits span a
   complement ``Q`` of the prefix. Alignment asks, for every side and every one of its vector
   bits ``i``, that its thread directions have offset bit ``i`` clear: a linear condition on
   ``Q``, solved row by row. The freedom left is used so that a side with a shorter vector
   sees the longer vectors' bits as bank bits spread by its own lanes, which is what lets it
   reach its own bound (the rank condition in :func:`aligned_complement`).
3. **The segment** (:func:`~.segments.best_segment`, Lemma 9.5 for two sides): an
   ``s``-dimensional subspace of ``Q`` meeting every side's ``X = Λ + Z`` as little as
   possible.
4. **The banks**: the rest of ``Q``, preferring directions outside the register spans so no
   side vectorises differently from the plan.

Every plan is then counted exactly as :func:`~linlayout.bank_conflicts` counts it (each side
at the widest vector the layout admits), so a plan is never better on paper than on the GPU.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from .._memo import memoize, register
from .. import f2
from ..conflicts import ConflictReport
from ..conflicts.closed_form import count_matrix, count_side
from ..errors import LayoutError
from ..hardware.instructions import check_memory
from ..hardware.kinds import Distributed
from ..hardware.model import BankModel
from .options import SideOption
from .transfer import WAVEFRONTS, Objective
from .segments import SegmentChoice, best_segment

__all__ = [
    "Plan",
    "aligned_complement",
    "alignment_constraints",
    "build_plan",
    "build_prefix",
    "chain_dims_ok",
    "prefixes",
    "chain_ok",
    "segment_choice",
    "matrix_report",
    "phase_lanes",
    "side_report",
    "totals",
    "with_conflict_offsets",
]


@dataclass(frozen=True)
class Plan:
    """One memory layout and its sides' exact reports.

    Attributes:
        cols: flat tensor coordinate of each offset bit (prefix, bank bits, segment bits).
        reports: each side's exact :class:`~linlayout.ConflictReport`, store first.
        assignment: the options it was built for (the reports may do better: a side
            vectorises as widely as the layout allows).
        proven: the segment choice is optimal for the assignment's Z (always with two
            sides; with more, the exact search finished).
        source: how the layout was found (``"construction"``, ``"row-major"``, …).
    """

    cols: tuple[int, ...]
    reports: tuple[ConflictReport, ...]
    assignment: tuple[SideOption, ...]
    proven: bool = True
    source: str = "construction"


@dataclass
class Problem:
    """What stays fixed while one synthesis searches: the sides, the hardware, the objective.

    Attributes:
        sides: each side's flat columns (store first).
        regs: the echelon basis of each side's register images.
        model: the bank model; d: the tensor's bit count; dim_bits: each out dim's width,
            dim0 first (for the preference among equally good directions, :func:`simplicity_key`).
        weights: per-side weights (0 for a side that is not counted); objective: the order of
            the totals (:meth:`~.transfer.Objective.key`); node_limit: segment-search budget,
            for the whole synthesis: every exact segment search is charged its nodes in
            ``nodes_spent`` and gets only what is left.
        spans, free: caches by side set of the common register span and of its dimension
            free of thread directions (filled as the search goes).
        chain_bases: the cache of :func:`chain_ok` (echelon basis of each constraint group),
            shared by every construction of the synthesis.
        chains: the cache of :func:`chain_dims_ok`: by (side, vector) of each option for
            ``ld/st.shared``-only assignments; with matrix options, by ``("matrix", their
            row, (side, vector) of each ld/st.shared option)``.
        simplicity: the sort key of :func:`simplicity_key` for this tensor (derived).
        signature: what an ``ld/st.shared`` construction depends on (derived, hashable):
            each side's thread columns and register span (not the order of its register
            columns), the hardware, the tensor, the weights, the objective and the budget.
    """

    sides: tuple[Distributed, ...]
    regs: tuple[tuple[int, ...], ...]
    model: BankModel
    d: int
    dim_bits: tuple[int, ...]
    weights: tuple[int, ...]
    objective: Objective = WAVEFRONTS
    node_limit: int = 200_000
    nodes_spent: int = 0
    spans: dict[tuple[int, ...], tuple[int, ...]] = field(default_factory=dict)
    free: dict[tuple[int, ...], int] = field(default_factory=dict)
    chain_bases: dict[tuple[int, ...], tuple[int, ...]] = field(default_factory=dict)
    chains: dict[tuple, bool] = field(default_factory=dict)
    _simplicity: Callable[[int], int] | None = field(default=None, init=False, repr=False,
                                                     compare=False)
    _signature_id: int | None = field(default=None, init=False, repr=False, compare=False)
    _elems_log2: tuple[int, ...] | None = field(default=None, init=False, repr=False,
                                                compare=False)

    @property
    def simplicity(self) -> Callable[[int], int]:
        """See the class docstring (derived on first use: a direct construction needs none)."""
        got = self._simplicity
        if got is None:
            got = self._simplicity = simplicity_key(self.d, self.dim_bits)
        return got

    @property
    def elems_log2(self) -> tuple[int, ...]:
        """Each side's ``rank(lane + register images)``: log2 of the elements a warp moves
        (computed once; every count of the side needs it)."""
        got = self._elems_log2
        if got is None:
            got = self._elems_log2 = tuple(f2.rank(s.lane + s.register) for s in self.sides)
        return got

    @property
    def signature(self) -> tuple:
        """See the class docstring."""
        return (tuple((s.lane, s.warp, s.block) for s in self.sides), self.regs, self.model,
                self.d, self.dim_bits, self.weights, self.objective, self.node_limit)

    @property
    def signature_id(self) -> int:
        """A small int standing for :attr:`signature`: problems with equal signatures get the
        same one (while :func:`linlayout.clear_caches` keeps them), others never do — a
        cache key hashed at C speed (hashing the signature walks every field of the
        hardware model)."""
        got = self._signature_id
        if got is None:
            sig = self.signature
            got = _SIGNATURE_IDS.get(sig)
            if got is None:
                if len(_SIGNATURE_IDS) >= 4096:
                    _SIGNATURE_IDS.clear()
                got = _SIGNATURE_IDS[sig] = next(_NEXT_ID)
            self._signature_id = got
        return got


#: :attr:`Problem.signature_id` of each signature seen (ids are never reused, so emptying
#: this only makes later problems miss what earlier ones left in caches).
_SIGNATURE_IDS: dict[tuple, int] = {}
_NEXT_ID = itertools.count()
register(_SIGNATURE_IDS.clear)


def totals(reports: Sequence[ConflictReport], weights: Sequence[int]) -> tuple[int, int]:
    """``(Σ weight · wavefronts_per_warp, Σ weight · instructions_per_warp)`` over the sides."""
    w = n = 0
    for r, wt in zip(reports, weights):
        w += wt * r.wavefronts_per_warp
        n += wt * r.instructions_per_warp
    return w, n


def plan_key(plan: Plan, weights: Sequence[int], objective: Objective) -> tuple[int, int]:
    """The objective's key of a plan's exact cost (:meth:`~.transfer.Objective.key`)."""
    return objective.key(*totals(plan.reports, weights))


# ---------------------------------------------------------------------------------- counting
def side_report(mem_cols: Sequence[int], inv: Sequence[int], side: Distributed,
                reg_basis: tuple[int, ...], model: BankModel, d: int,
                with_basis: bool = True, load: bool = False,
                elems_log2: int | None = None) -> ConflictReport:
    """Exactly what ``bank_conflicts(side, memory, instruction="ld.shared" if load else
    "st.shared")`` returns, from flat columns (a load's return may be packed:
    :meth:`~linlayout.hardware.model.BankModel.packed`).

    Args:
        mem_cols: the memory layout's columns (tensor coordinate of each offset bit).
        inv: its inverse's columns (offset of each tensor bit).
        side: the distributed layout's columns.
        reg_basis: echelon basis of its register images.
        model: the bank model; d: the tensor's bit count.
        with_basis: also compute ``conflict_offsets`` (else empty: the search compares
            costs only, :func:`with_conflict_offsets` fills them in for the result).
        elems_log2: the rank of the side's lane and register images, when known
            (:attr:`Problem.elems_log2`).

    The count is :func:`~linlayout.conflicts.closed_form.count_side`.
    """
    return count_side(mem_cols, inv, side, reg_basis, model, with_basis, load, elems_log2)


def matrix_report(option: SideOption, inv: Sequence[int], side: Distributed,
                  model: BankModel, with_basis: bool = True) -> ConflictReport:
    """Exactly what ``bank_conflicts(side, memory, instruction=…)`` returns for a matrix
    option (``with_basis``: as :func:`side_report`).

    Raises:
        LayoutError: the memory layout does not serve the instruction (rows out of place).
    """
    assert option.geometry is not None
    row_offs, row_bits = check_memory(option.instruction, option.geometry, inv, side.register,
                                      side.lane, side.warp, model.element_bits)
    reg_offs = [f2.apply(inv, c) for c in side.register]
    lane_offs = [f2.apply(inv, c) for c in side.lane]
    return count_matrix(option.instruction, row_offs, row_bits, reg_offs, lane_offs, model,
                        with_basis)


def with_conflict_offsets(plan: Plan, problem: Problem) -> Plan:
    """The plan with every conflicted side's report counted again with its
    ``conflict_offsets`` (the search counts without them; a conflict-free report has none)."""
    if all(rep.degree == 1 for rep in plan.reports):
        return plan
    cols = list(plan.cols)
    inv = f2.inverse(cols)
    reports = []
    for rep, o in zip(plan.reports, plan.assignment):
        if rep.degree == 1:
            reports.append(rep)
        elif o.geometry is not None:
            reports.append(matrix_report(o, inv, problem.sides[o.side], problem.model))
        else:
            reports.append(side_report(cols, inv, problem.sides[o.side], problem.regs[o.side],
                                       problem.model, problem.d, load=o.side > 0))
    return dataclasses.replace(plan, reports=tuple(reports))


# ---------------------------------------------------------------------------------- step 1
def alignment_constraints(assignment: Sequence[SideOption], sides: Sequence[Distributed],
                          nbits: int) -> list[tuple[int, ...]]:
    """For each of the first ``nbits`` offset bits, the directions whose offsets must have
    that bit clear: the thread directions of every ``ld/st.shared`` side whose vector covers
    the bit; for a matrix instruction its rows and warps, and its registers from the lane
    chunk up (the rule of :func:`~linlayout.hardware.instructions.check_memory`)."""
    cons: list[list[int]] = [[] for _ in range(nbits)]
    for o in assignment:
        s = sides[o.side]
        if o.geometry is not None:
            every, from_chunk = o.constraints
            for i in range(min(nbits, o.vector_log2)):
                cons[i] += every
                if i >= o.chunk_bits:
                    cons[i] += from_chunk
        else:
            thr = [c for c in s.lane + s.warp + s.block if c]
            for i in range(min(nbits, o.vector_log2)):
                cons[i] += thr
    return [tuple(c) for c in cons]


def chain_ok(prefix: Sequence[int], cons: Sequence[tuple[int, ...]],
             bases: dict[tuple[int, ...], tuple[int, ...]] | None = None) -> bool:
    """Whether a complement of ``span(prefix)`` can satisfy the alignment constraints: for
    every bit ``i`` some functional is 1 on ``prefix[i]``, 0 on the other prefix vectors and 0
    on ``cons[i]`` — i.e. each group of bits with the same constraints stays independent
    modulo the other prefix vectors plus those constraints.

    ``bases`` caches the echelon basis of each constraint group between calls (the prefix is
    reduced modulo it: ``rank(P + C) = rank(C) + rank(P mod C)``)."""
    groups: dict[tuple[int, ...], list[int]] = {}
    ncons = len(cons)
    for i in range(len(prefix)):
        c = cons[i] if i < ncons else ()
        if c:
            groups.setdefault(c, []).append(i)
    for c, positions in groups.items():
        basis = bases.get(c) if bases is not None else None
        if basis is None:
            basis = _group_basis(c)
            if bases is not None:
                bases[c] = basis
        # the group's bits stay independent modulo the other prefix vectors plus C:
        # reduced modulo C, they extend the others' span by one dimension each
        red = [f2.reduce(v, basis) for v in prefix]
        if len(positions) == 1:
            at = positions[0]
            mine = [red[at]]
            others = red[:at] + red[at + 1:]
        else:
            inside = set(positions)
            mine = [red[i] for i in positions]
            others = [v for j, v in enumerate(red) if j not in inside]
        if len(f2.extend_basis(others, mine)) != len(mine):
            return False
    return True


@memoize(1024)
def _group_basis(directions: tuple[int, ...]) -> tuple[int, ...]:
    """The echelon basis of one constraint group's directions (cached: every prefix the
    search tries is checked against the same few groups)."""
    return f2.echelon(directions)


@memoize(4096)
def _chain_ok(prefix: tuple[int, ...], cons: tuple[tuple[int, ...], ...]) -> bool:
    """:func:`chain_ok`, cached on its inputs (with ``lowering="triton"`` the searches of
    the chunk orders test the same prefixes again: on the slowest random pairs ~2,600
    calls, 70 distinct)."""
    return chain_ok(prefix, cons)


def chain_dims_ok(assignment: Sequence[SideOption], problem: Problem) -> bool:
    """The exact necessary condition on dimensions for an assignment's vector chain: the
    first ``k`` offset bits lie in the register span of every side with a vector of at least
    ``k`` and avoid all those sides' thread directions, so for every such ``k`` that
    intersection of register spans, less its thread directions, has at least ``k``
    dimensions; matrix options must agree on their row. False proves that no layout gives
    every side its assigned access."""
    row = None
    for o in assignment:
        if o.geometry is not None:
            if row is None:
                row = o.prefix
            elif o.prefix != row:  # the matrix options disagree on their row
                return False
    if row is None:  # ld/st.shared only: the answer depends on the sides and their vectors
        key = tuple([(o.side, o.vector_log2) for o in assignment])
        got = problem.chains.get(key)
        if got is None:
            got = problem.chains[key] = _plain_chain_ok(key, problem)
        return got
    # with matrix options: on their row and the other sides and their vectors
    mkey = ("matrix", row, tuple([(o.side, o.vector_log2) for o in assignment
                                  if o.geometry is None]))
    got = problem.chains.get(mkey)
    if got is None:
        got = problem.chains[mkey] = _chain_dims_ok(
            assignment, problem, [o for o in assignment if o.geometry is not None])
    return got


def _plain_chain_ok(vectors: tuple[tuple[int, int], ...], problem: Problem) -> bool:
    """:func:`chain_dims_ok` of an ``ld/st.shared``-only assignment, given as its
    ``(side, vector_log2)`` pairs: each vector length ``k`` is shared by the sides whose
    vector is at least ``k``, which need ``k`` free dimensions (widest first: the fewest
    sides, the most dimensions needed)."""
    for k in sorted({v for _, v in vectors if v}, reverse=True):
        if _free_dims([s for s, v in vectors if v >= k], problem) < k:
            return False
    return True


def _chain_dims_ok(assignment: Sequence[SideOption], problem: Problem,
                   matrix: list[SideOption]) -> bool:
    """:func:`chain_dims_ok` once the matrix options (``matrix``) agree on their row."""
    regs, spans = problem.regs, problem.spans
    plain = [o for o in assignment if o.geometry is None]
    row = list(matrix[0].prefix) if matrix else []
    for o in plain:
        k = o.vector_log2
        if k and k <= len(row) and any(f2.reduce(c, regs[o.side]) for c in row[:k]):
            return False
    for k in {o.vector_log2 for o in plain if o.vector_log2 > len(row)}:
        members = [o.side for o in plain if o.vector_log2 >= k]
        space = _common_span(members, regs, spans)
        if any(f2.reduce(c, space) for c in row):
            return False
        if _free_dims(members, problem) < k:
            return False
    return True


def _free_dims(members: Sequence[int], problem: Problem) -> int:
    """``dim`` of the members' common register span less its dimensions along their thread
    directions: how long a vector chain they can share (cached by member set)."""
    key = tuple(members)
    if key not in problem.free:
        space = _common_span(members, problem.regs, problem.spans)
        sides = problem.sides
        thr = [c for s in members for t in (sides[s].lane, sides[s].warp, sides[s].block)
               for c in t if c]
        # dim(space ∩ T) = dim space + dim T − dim(space + T)
        blocked = (len(space) + f2.rank(thr) - f2.rank(list(space) + thr)
                   if thr and space else 0)
        problem.free[key] = len(space) - blocked
    return problem.free[key]


def _common_span(members: Sequence[int], regs: Sequence[tuple[int, ...]],
                 cache: dict[tuple[int, ...], tuple[int, ...]] | None = None) -> tuple[int, ...]:
    """Echelon basis of the intersection of the members' register spans (cached by member
    set when ``cache`` is given)."""
    key = tuple(members)
    if cache is not None and key in cache:
        return cache[key]
    space: tuple[int, ...] = regs[members[0]]
    for s in members[1:]:
        space = f2.intersection(space, regs[s])
    if cache is not None:
        cache[key] = space
    return space


def simplicity_key(d: int, dim_bits: Sequence[int] | None = None) -> Callable[[int], int]:
    """:func:`_simplicity_key`, shared between calls for the same tensor shape (its cache of
    keys then serves every synthesis of that shape)."""
    return _simplicity_key(d, tuple(dim_bits) if dim_bits else None)


@memoize(64)
def _simplicity_key(d: int, dim_bits: tuple[int, ...] | None) -> Callable[[int], int]:
    """A sort key on ``d``-bit directions preferring simple ones: fewer set bits, then — as in
    a row-major tile, the last dim fastest — bits of later dims, lower bits within a dim.
    ``dim_bits`` are the out dims' widths (dim0 first); without them, lower flat bits first.

    Two directions with as many bits compare by their lowest-ranked bit first (ranks: the
    preference order of the bits); reversing the ranks into a bitmask ``m`` turns that into
    one integer comparison, so the order is that of ``(popcount, −m)`` — returned as the one
    int ``popcount · 2^d + (2^d − 1 − m)``, which sorts the same.
    """
    order: list[int] = []
    if dim_bits:
        starts, pos = [], 0
        for b in dim_bits:
            starts.append(pos)
            pos += b
        for j in reversed(range(len(dim_bits))):
            order.extend(range(starts[j], starts[j] + dim_bits[j]))
    placed = set(order)
    order.extend(i for i in range(d) if i not in placed)
    if not dim_bits:  # lower flat bits first: (popcount, v) orders the same way
        return lambda v: v.bit_count() << d | v
    full = (1 << d) - 1
    # bit i of a direction weighs 2^(d-1-rank(i)): the OR of a direction's weights is the
    # bitmask m above
    weights = [0] * d
    for r, bit in enumerate(order):
        weights[bit] = 1 << (d - 1 - r)
    unit = [1 << d | (full - wt) for wt in weights]  # the keys of the unit vectors
    cache: dict[int, int] = {}
    limit = 1 << 16  # keys kept per shape

    def key(v: int) -> int:
        if not v & (v - 1) and v:  # a unit vector: one lookup
            return unit[v.bit_length() - 1]
        k = cache.get(v)
        if k is None:
            m, x = 0, v
            while x:
                low = x & -x
                m |= weights[low.bit_length() - 1]
                x ^= low
            k = v.bit_count() << d | (full - m)
            if len(cache) < limit:
                cache[v] = k
        return k

    return key


class _Pool:
    """A level's candidate directions — the nonzero elements of a common register span —
    preferred first: those in fewer shorter sides' register spans (they would widen that
    side's vector), then the simplest. Iterating yields the span's basis and sums of two
    first (sorted), then, only if the iteration gets that far, every other element (sorted):
    most constructions take the first candidates, and a span may have thousands."""

    def __init__(self, space: Sequence[int], shorter: Sequence[tuple[int, ...]],
                 simplicity: Callable[[int], int]) -> None:
        self._basis = f2.echelon(space)
        if shorter:
            reduce = f2.reduce

            def key(v: int) -> tuple:
                widens = 0
                for r in shorter:
                    if not reduce(v, r):
                        widens += 1
                return (widens, simplicity(v))
            self._key: Callable[[int], tuple | int] = key
        else:
            self._key = simplicity
        # The order starts with the unit basis vectors (of those in no shorter span, when
        # there are shorter sides): every other candidate has two bits set or more (a sum of
        # two fully reduced basis vectors holds both leading bits), so it sorts after them.
        # Those are sorted at once; the rest of the head only when the iteration gets there.
        units = [v for v in self._basis if not v & (v - 1)]
        if shorter:
            self._first = [v for k, v in sorted((key(v), v) for v in units) if not k[0]]
        else:
            self._first = sorted(units, key=simplicity)
        self._head: list[int] | None = None
        self._rest: list[int] | None = None

    def head(self) -> list[int]:
        """The basis and the sums of two, sorted (the first candidates)."""
        if self._head is None:
            b, first = self._basis, self._first
            taken = set(first)
            self._head = first + sorted([v for v in b if v not in taken] +
                                        [x ^ y for i, x in enumerate(b) for y in b[i + 1:]],
                                        key=self._key)
        return self._head

    def __iter__(self) -> Iterator[int]:
        first = self._first
        yield from first
        head = self.head()
        yield from head[len(first):]
        if len(self._basis) > 2:
            if self._rest is None:
                seen = set(head)
                self._rest = sorted((v for v in f2.span_elements(self._basis)
                                     if v and v not in seen), key=self._key)
            yield from self._rest

    def preferring(self, spaces: Sequence[tuple[int, ...]]) -> Iterator[int]:
        """Every candidate, those inside more of ``spaces`` (echelon bases) first, in the
        order of iteration otherwise — the same order as sorting the whole span by that
        count, without enumerating it when an early candidate is taken."""
        counts: dict[int, int] = {}
        for sp in spaces:
            for v in f2.span_elements(f2.intersection(self._basis, sp)):
                if v:
                    counts[v] = counts.get(v, 0) + 1
        head = set(self.head())

        def order(v: int) -> tuple:
            return (-counts[v], v not in head, self._key(v))

        first = sorted(counts, key=order)
        yield from first
        taken = set(first)
        for v in self:
            if v not in taken:
                yield v


def _span_candidates(space: Sequence[int], limit: int = 4096) -> list[int]:
    """Nonzero elements of ``span(space)`` (all of them up to ``limit``; beyond, the basis
    and the sums of two)."""
    basis = f2.echelon(space)
    if len(basis) <= limit.bit_length() - 1:
        return [v for v in f2.span_elements(basis) if v]
    return list(basis) + [a ^ b for i, a in enumerate(basis) for b in basis[i + 1:]]


def build_prefix(assignment: Sequence[SideOption], problem: Problem,
                 lanes: Sequence[Sequence[int]] | None = None) -> list[int] | None:
    """The preferred vector prefix of an assignment (module docstring, step 1), or None when
    none was found (:func:`chain_dims_ok` tells whether none exists): the first of
    :func:`prefixes`."""
    return next(iter(prefixes(assignment, problem, lanes)), None)


def prefixes(assignment: Sequence[SideOption], problem: Problem,
             lanes: Sequence[Sequence[int]] | None = None,
             bases: dict[tuple[int, ...], tuple[int, ...]] | None = None,
             feasible: bool = False,
             constraints: dict[int, list[tuple[int, ...]]] | None = None
             ) -> Iterable[list[int]]:
    """Every vector prefix of an assignment, lazily, the preferred first.

    A matrix option fixes the prefix to its row; the ``ld/st.shared`` sides' prefixes are
    nested by vector width, each level chosen inside the common register span of the sides
    that reach it, keeping :func:`chain_ok` true. Preference, bit by bit: a bit inside a
    shorter side's bank word (beyond its vector, below its within-word bits) takes that
    side's phase lanes (``lanes[s]``) first — lanes that share a word never conflict — then
    the directions that would not widen a shorter side's vector, then the simplest (unit
    vectors, low bits). The order of a level's bits matters only to the shorter sides, which
    is why the alternatives are worth trying (:func:`build_plan` does, while it misses its
    bound). ``bases``: a cache shared with :func:`chain_ok`; ``feasible``: the caller has
    checked :func:`chain_dims_ok` already; ``constraints``: where to leave the
    :func:`alignment_constraints` computed here, by their number of bits (the caller's own
    cache of them).
    """
    sides, regs, model, spans = problem.sides, problem.regs, problem.model, problem.spans
    matrix = [o for o in assignment if o.geometry is not None]
    plain = [o for o in assignment if o.geometry is None]
    if not feasible and not chain_dims_ok(assignment, problem):
        return
    head: list[int] = list(matrix[0].prefix) if matrix else []
    top = max([o.vector_log2 for o in assignment], default=0)
    nbits = max(top, len(head))
    cons = alignment_constraints(assignment, sides, nbits)
    if constraints is not None:
        constraints[nbits] = cons
    bases = {} if bases is None else bases
    cons_t = tuple(cons)
    if head and not _chain_ok(tuple(head), cons_t):  # no prefix yet: nothing to break
        return
    w = model.within_word_bits
    levels = sorted({o.vector_log2 for o in plain if o.vector_log2 > len(head)})
    pools: dict[int, _Pool] = {}

    def pool(level: int) -> _Pool:
        if level not in pools:
            k = levels[level]
            members = [o.side for o in plain if o.vector_log2 >= k]
            shorter = [regs[o.side] for o in plain if o.vector_log2 < k]
            pools[level] = _Pool(_common_span(members, regs, spans), shorter, problem.simplicity)
        return pools[level]

    lane_spans: dict[int, tuple[int, ...]] = {}  # each side's lanes, echelon, once

    def lane_span(side: int) -> tuple[int, ...]:
        got = lane_spans.get(side)
        if got is None:
            got = lane_spans[side] = f2.echelon(lanes[side])  # type: ignore[index]
        return got

    in_word = {pos: [lane_span(o.side) for o in plain
                     if lanes and o.vector_log2 <= pos < w and lanes[o.side]]
               for pos in range(len(head), min(top, w))}

    ncons = len(cons_t)

    def extend(prefix: list[int], level: int, state: _ChainState) -> Iterable[list[int]]:
        if level == len(levels):
            yield prefix
            return
        n = len(prefix)
        if n == levels[level]:
            yield from extend(prefix, level + 1, state)
            return
        spaces = in_word.get(n)
        cands = pool(level).preferring(spaces) if spaces else pool(level)
        at = state.at(cons_t[n] if n < ncons else ())
        for v in cands:
            child = at.step(v)
            if child is not None:
                yield from extend(prefix + [v], level, child)

    if not head or f2.rank(head) == len(head):  # a dependent prefix extends to no chain
        yield from extend(head, 0, _ChainState.of(head, cons_t))


def _piv_reduce(v: int, piv: dict[int, int]) -> int:
    """``v`` reduced by a pivot table (leading bit → vector): 0 iff ``v`` is in its span."""
    while v:
        p = piv.get(v.bit_length())
        if p is None:
            return v
        v ^= p
    return 0


def _piv_plus(piv: dict[int, int], v: int) -> dict[int, int]:
    """``_piv_with(piv, (v,))``: a new pivot table spanning ``piv`` and ``v`` (``piv`` itself
    when ``v`` lies in its span)."""
    get = piv.get
    while v:
        p = get(v.bit_length())
        if p is None:
            out = dict(piv)
            out[v.bit_length()] = v
            return out
        v ^= p
    return piv


def _piv_with(piv: dict[int, int], vectors: Iterable[int]) -> dict[int, int]:
    """A new pivot table spanning ``piv`` and ``vectors`` (``piv`` itself when they add
    nothing)."""
    out = piv
    for v in vectors:
        r = _piv_reduce(v, out)
        if r:
            if out is piv:
                out = dict(piv)
            out[r.bit_length()] = r
    return out


class _ChainState:
    """:func:`chain_ok` of a prefix, kept incrementally as :func:`prefixes` extends it.

    For a prefix ``P`` that satisfies :func:`chain_ok` and each constraint group ``g`` with
    positions ``S``: ``U_g = span(P outside S) + C_g`` and ``W_g = span(P) + C_g``, as pivot
    tables. Appending ``v`` (position ``n``, group ``c``) keeps the chain iff ``v ∉ W_c``
    (the group's bits stay independent modulo the rest; for a new group ``W_c`` is
    ``span(P) + C_c``) and, for every other group, ``v ∈ U_g`` or ``v ∉ W_g`` (else some
    combination of that group's bits falls into ``U_g + v``) — exactly what :func:`chain_ok`
    tests on ``P + [v]``, at two reductions per group."""

    __slots__ = ("span", "groups")

    def __init__(self, span: dict[int, int],
                 groups: dict[tuple[int, ...], tuple[dict[int, int], dict[int, int]]]) -> None:
        self.span = span
        self.groups = groups

    @classmethod
    def of(cls, prefix: Sequence[int], cons: Sequence[tuple[int, ...]]) -> "_ChainState":
        """The state of a prefix (which must satisfy :func:`chain_ok`)."""
        positions: dict[tuple[int, ...], list[int]] = {}
        for i in range(len(prefix)):
            c = cons[i] if i < len(cons) else ()
            if c:
                positions.setdefault(c, []).append(i)
        groups = {}
        for c, at in positions.items():
            inside = set(at)
            groups[c] = (_piv_with({}, list(c) + [v for j, v in enumerate(prefix)
                                                  if j not in inside]),
                         _piv_with({}, list(c) + list(prefix)))
        return cls(_piv_with({}, prefix), groups)

    def at(self, c: tuple[int, ...]) -> "_ChainStep":
        """The test for the next position, whose constraint group is ``c``."""
        return _ChainStep(self, c)


class _ChainStep:
    """Appending one vector at a given position to a :class:`_ChainState`'s prefix."""

    __slots__ = ("state", "c", "own", "others")

    def __init__(self, state: _ChainState, c: tuple[int, ...]) -> None:
        self.state, self.c = state, c
        got = state.groups.get(c) if c else None
        # W_c: the span the new bit must avoid (the prefix's span when it has no group)
        self.own = (got[1] if got is not None else
                    _piv_with(state.span, c) if c else state.span)
        self.others = [(u, w) for g, (u, w) in state.groups.items() if g != c]

    def step(self, v: int) -> _ChainState | None:
        """The state after appending ``v``, or None when the prefix would leave the chain
        (or ``v`` lies in its span)."""
        if not _piv_reduce(v, self.own):
            return None
        for u, w in self.others:
            if _piv_reduce(v, u) and not _piv_reduce(v, w):
                return None
        state, c = self.state, self.c
        groups = {}
        for g, (u, w) in state.groups.items():
            groups[g] = (u, _piv_plus(w, v)) if g == c else (_piv_plus(u, v), _piv_plus(w, v))
        if c and c not in groups:
            groups[c] = (self.own, _piv_plus(self.own, v))
        return _ChainState(_piv_plus(state.span, v), groups)


def within_word(prefix: list[int], lanes: Sequence[Sequence[int]], model: BankModel,
                d: int, cons: Sequence[tuple[int, ...]] = (),
                bases: dict[tuple[int, ...], tuple[int, ...]] | None = None
                ) -> list[int] | None:
    """Extend the prefix with the within-word bits of sub-word elements (lane directions the
    sides share first, then any lane direction, then unit vectors), keeping
    :func:`chain_ok`; None when no extension fits."""
    w = min(model.within_word_bits, d)
    if len(prefix) >= w:
        return prefix
    common = set(lanes[0]).intersection(*lanes[1:]) if lanes else set()
    candidates = sorted(c for c in common if c) + [c for ln in lanes for c in ln if c]
    candidates += [1 << i for i in range(d)]
    out = list(prefix)
    cons_t = tuple(cons)
    for v in candidates:
        if len(out) >= w:
            break
        trial = out + [v]
        if f2.rank(trial) == len(trial) and (not cons or _chain_ok(tuple(trial), cons_t)):
            out = trial
    if len(out) < w and cons:  # any independent vector keeping the chain
        for v in _span_candidates([1 << i for i in range(d)], limit=1 << 12):
            if len(out) >= w:
                break
            trial = out + [v]
            if f2.rank(trial) == len(trial) and _chain_ok(tuple(trial), cons_t):
                out = trial
    return out if len(out) == w else None


# ---------------------------------------------------------------------------------- step 2
def aligned_complement(prefix: Sequence[int], cons: Sequence[tuple[int, ...]],
                       lanes: Sequence[Sequence[int]], zs: Sequence[int], d: int
                       ) -> tuple[list[int], bool] | None:
    """A complement ``Q`` of ``span(prefix)`` satisfying every side's alignment (module
    docstring, step 2), as a basis, and whether the rank condition below holds for every
    side; None when the alignment equations have no solution.

    Offset bit ``i`` of the prefix is a linear functional ``g_i``; with an initial
    complement ``Q₀`` every complement is ``{q + φ(q)}`` for a map ``φ: Q₀ → span(prefix)``,
    and ``g_i(x) = p_i(x) + φ_i·q(x)`` (``p``, ``q``: the parts of ``x``). Alignment:
    ``g_i`` vanishes on the thread directions of every side whose vector covers bit ``i``
    (for a matrix instruction: its rows and warps, and its registers above the lane chunk) —
    one linear system per bit. The solution space is then used, bit by bit, so that for a
    side with a shorter ``Z`` (``zs[s]`` bits) the functionals of the bits above it are
    independent on its phase lanes ``lanes[s]``: then its ``X = Λ + Z`` projects onto the
    whole prefix and it keeps its own conflict bound.
    """
    kp = len(prefix)
    groups = {cons[i] if i < len(cons) else () for i in range(kp)}
    short = [(ln, z) for ln, z in zip(lanes, zs) if z < kp and ln]
    if len(groups) == 1 and () not in groups and not short:
        # every prefix bit has the same constraint directions S: Q ⊇ S, which needs S to
        # avoid the prefix
        thr = list(next(iter(groups)))
        inside = f2.extend_basis(prefix, thr)
        if len(inside) != f2.rank(thr):
            return None
        return inside + f2.extend_basis(list(prefix) + inside, (1 << i for i in range(d)),
                                        limit=d - kp - len(inside)), True
    q0 = f2.complement(prefix, d)
    m = len(q0)
    basis = list(prefix) + q0
    coords = f2.inverse(basis)  # tensor bit -> coordinates over (prefix, Q0)
    pmask = (1 << kp) - 1
    apply = f2.apply
    # each direction's coordinates, once: the constraint groups repeat the sides' thread
    # directions, and the phase lanes are among them
    coords_of: dict[int, int] = {}

    def coord(x: int) -> int:
        c = coords_of.get(x)
        if c is None:
            c = coords_of[x] = apply(coords, x)
        return c

    def split(x: int) -> tuple[int, int]:
        c = coord(x)
        return c & pmask, c >> kp

    # one linear system per constraint group (the bits sharing their constraint directions):
    # the system's columns are, for each Q0 coordinate j, the vector (bit j of q(t))_t; the
    # targets are the prefix parts' bits i, one per bit of the group
    phi: list[int] = [0] * kp  # row i: a bitmask over Q0's basis
    nulls: list[tuple[int, ...]] = [()] * kp
    free = tuple(1 << j for j in range(m))
    by_key: dict[tuple[int, ...], list[int]] = {}
    for i in range(kp):
        key = tuple(cons[i]) if i < len(cons) else ()
        if key:
            by_key.setdefault(key, []).append(i)
        else:
            nulls[i] = free
    for key, bits in by_key.items():
        cols = [0] * m
        pps = []
        # one equation per distinct direction (a group lists a direction once per side that
        # constrains it; repeated equations change neither the solution nor the kernel)
        for r, t in enumerate(dict.fromkeys(key)):
            c = coord(t)
            pps.append(c & pmask)
            q = c >> kp
            while q:
                low = q & -q
                cols[low.bit_length() - 1] |= 1 << r
                q ^= low
        targets = []
        for i in bits:
            target = 0
            for r, pp in enumerate(pps):
                target |= ((pp >> i) & 1) << r
            targets.append(target)
        sols, null = f2.solve_with_kernel(cols, targets)
        for i, sol in zip(bits, sols):
            if sol is None:
                return None
            phi[i] = sol
            nulls[i] = null
    # rank condition for the sides with a shorter Z
    ok = True
    for side_lanes, z in short:
        lam = [split(x) for x in side_lanes]

        def row_vec(i: int, f: int) -> int:
            out = 0
            for r, (pp, q) in enumerate(lam):
                out |= (((pp >> i) & 1) ^ ((f & q).bit_count() & 1)) << r
            return out

        # the rows chosen so far as a pivot table (leading bit -> vector): its size is their
        # rank, and a reduction by it tells whether a row is in their span
        chosen: dict[int, int] = {}
        for i in range(z, kp):
            v = row_vec(i, phi[i])
            red = _piv_reduce(v, chosen)
            if red == 0:
                for n in nulls[i]:
                    alt = row_vec(i, phi[i] ^ n)
                    red = _piv_reduce(alt, chosen)
                    if red:
                        phi[i] ^= n
                        break
            if red:
                chosen[red.bit_length()] = red
        ok = ok and len(chosen) >= min(len(side_lanes), kp - z)
    out = []
    for j, e in enumerate(q0):
        x = e
        for i in range(kp):
            if (phi[i] >> j) & 1:
                x ^= prefix[i]
        out.append(x)
    return out, ok


# ---------------------------------------------------------------------------------- steps 3-4
#: Prefix variants :func:`build_plan` tries when the first misses its assignment's bound.
MAX_VARIANTS = 4
#: How many prefixes :func:`build_plan` looks at (cheaply: steps 1–2) to find those worth
#: building.
SCAN_PREFIXES = 32


def phase_lanes(assignment: Sequence[SideOption], problem: Problem) -> list[list[int]]:
    """Each side's phase lanes under its assigned access, as tensor columns: the lanes of
    one phase of an ``ld/st.shared`` of the side's vector
    (:meth:`~linlayout.hardware.model.BankModel.phase_lanes`, packed for a load where the
    hardware packs it), or a matrix instruction's nonzero row directions."""
    out = []
    model, sides = problem.model, problem.sides
    for o in assignment:
        if o.geometry is not None:
            out.append([c for c in o.geometry.rows if c])
        else:
            side = sides[o.side]
            packed = model.packed(side.lane, o.vector_log2, o.side > 0)
            out.append(f2.compose(side.lane, model.phase_lanes(o.vector_log2, packed)))
    return out


def build_plan(assignment: Sequence[SideOption], problem: Problem,
               prefix: list[int] | None = None, target: tuple[int, int] | None = None,
               max_variants: int = MAX_VARIANTS, feasible: bool = False) -> Plan | None:
    """The cheapest memory layout found for an assignment (module docstring), with its exact
    reports; None when the assignment cannot be built (no prefix, no aligned complement, or a
    matrix instruction the result does not serve).

    The prefixes come from :func:`prefixes`, preferred first; those whose aligned complement
    meets every shorter side's rank condition are built first (up to :data:`SCAN_PREFIXES`
    are looked at: the check is cheap, the exact count is not). While the plan misses
    ``target`` (the assignment's ideal key), the next ones are built (up to
    ``max_variants``): the choice and order of a level's bits decide what a shorter side
    sees inside its bank word. ``prefix`` pins the first offset bits instead (``fixed=``).
    ``feasible``: the caller has checked :func:`chain_dims_ok` already.
    """
    lanes_by_side = phase_lanes(assignment, problem)
    bases = problem.chain_bases
    if prefix is not None:
        ready = _prepare(prefix, assignment, problem, lanes_by_side, bases)
        return None if ready is None else _build(ready, assignment, problem, lanes_by_side)
    best: Plan | None = None
    best_key: tuple[int, int] | None = None
    builds = 0
    later: list[_Prepared] = []  # prefixes that miss a shorter side's rank condition

    def consider(ready: _Prepared) -> bool:
        """Build one prefix; True when the search can stop (target met or builds used)."""
        nonlocal best, best_key, builds
        builds += 1
        plan = _build(ready, assignment, problem, lanes_by_side)
        if plan is not None:
            key = plan_key(plan, problem.weights, problem.objective)
            if best_key is None or key < best_key:
                best, best_key = plan, key
            if target is None or key <= target:
                return True
        return builds >= max(1, max_variants)

    hopeless: bool | None = None  # no prefix of this assignment can meet the condition
    scan = _Scan(lanes_by_side)
    scanned = prefixes(assignment, problem, lanes_by_side, bases, feasible, scan.cons)
    for variant in itertools.islice(scanned, SCAN_PREFIXES):
        # a prefix that provably misses the rank condition gets its complement only when it
        # is built (the scan then costs a rank, not a complement)
        ready = _prepare(variant, assignment, problem, lanes_by_side, bases, defer=True,
                         scan=scan)
        if ready is None:
            continue
        if not ready.fits:
            if hopeless is None:
                hopeless = _never_fits(ready, lanes_by_side)
            if hopeless:  # every prefix goes to `later`: build them in order, as they come
                ready = _completed(ready)
                if ready is not None and consider(ready):
                    return best
                continue
            later.append(ready)
            continue
        if consider(ready):
            return best
    for ready in later:
        ready = _completed(ready)
        if ready is not None and consider(ready):
            break
    return best


class _Scan:
    """What every prefix of one assignment shares while :func:`build_plan` scans them: the
    sides' phase lanes, the alignment constraints by prefix length, each side's ``Z`` width
    by full prefix length, and :func:`_misses_rank`'s answers."""

    __slots__ = ("lanes", "cons", "zs", "missed")

    def __init__(self, lanes_by_side: Sequence[Sequence[int]]) -> None:
        self.lanes = tuple(map(tuple, lanes_by_side))
        self.cons: dict[int, list[tuple[int, ...]]] = {}
        self.zs: dict[int, list[int]] = {}
        self.missed: dict[tuple[int, ...], bool] = {}


@dataclass(slots=True)
class _Prepared:
    """Steps 1–2 of one construction: the full prefix (with the within-word bits), the
    alignment constraints, each side's ``Z`` width, the aligned complement and whether it
    meets the rank condition of every shorter side."""

    full: list[int]
    cons: list[tuple[int, ...]]
    zs: list[int]
    q: list[int] | None
    fits: bool
    lanes: tuple[tuple[int, ...], ...] = ()
    d: int = 0


def _never_fits(ready: _Prepared, lanes_by_side: Sequence[Sequence[int]]) -> bool:
    """Whether no prefix of the assignment can meet the rank condition of
    :func:`aligned_complement` — decided from what every prefix of it shares: the prefix
    length, each side's ``Z`` width and the alignment constraints.

    The functional of prefix bit ``i`` vanishes on the span ``C_i`` of its constraints, so
    for any set ``I`` of the bits ``z … kp−1`` the functionals of ``I`` all vanish on
    ``C_I = ∩_{i∈I} C_i``: on a side's lanes ``Λ`` they have rank at most
    ``dim(Λ + C_I) − dim C_I``, and the other bits add at most one each. When that total is
    below ``min(|Λ|, kp − z)`` for some ``I`` the condition fails whatever the prefix — and
    whatever complement :func:`aligned_complement` picks (every one vanishes on ``C_i``).
    Every set ``I`` of the constrained bits is tried (the bits above ``z`` are few; beyond
    :data:`NEVER_FITS_BITS` of them, each bit alone and all of them): a bit whose lanes lie
    in its own constraints, for instance, gives a zero row on every prefix.
    """
    kp, cons = len(ready.full), ready.cons
    for lanes, z in zip(lanes_by_side, ready.zs):
        if z >= kp or not lanes:
            continue
        need = min(len(lanes), kp - z)
        bases = [_group_basis(cons[i]) for i in range(z, min(kp, len(cons))) if cons[i]]
        if not bases:
            continue
        free_rows = kp - z - len(bases)  # unconstrained bits: at most one each
        if len(bases) <= NEVER_FITS_BITS:
            subsets = range(1, 1 << len(bases))
        else:
            subsets = [1 << j for j in range(len(bases))] + [(1 << len(bases)) - 1]
        lane_list = list(lanes)
        common: dict[int, tuple[int, ...]] = {}
        for mask in subsets:
            low = mask & -mask
            rest = mask ^ low
            c = bases[low.bit_length() - 1]
            if rest:
                prev = common.get(rest)
                if prev is None:  # only with the capped subsets: intersect in full
                    prev = _common_constraints(tuple(b for j, b in enumerate(bases)
                                                     if rest >> j & 1))
                c = f2.intersection(prev, c) if prev else ()
            common[mask] = c
            others = free_rows + len(bases) - mask.bit_count()
            if others + f2.rank(lane_list + list(c)) - len(c) < need:
                return True
    return False


#: Up to this many constrained prefix bits above a side's ``Z``, :func:`_never_fits` tries
#: every set of them.
NEVER_FITS_BITS = 5


def _prepare(prefix: list[int], assignment: Sequence[SideOption], problem: Problem,
             lanes_by_side: Sequence[Sequence[int]],
             bases: dict[tuple[int, ...], tuple[int, ...]], defer: bool = False,
             scan: _Scan | None = None) -> _Prepared | None:
    """Steps 1–2 from a given prefix (None when no aligned complement exists); ``bases``: the
    cache of :func:`chain_ok`. ``defer``: when :func:`_misses_rank` proves that the prefix
    misses a shorter side's rank condition, the complement is left to :func:`_completed`
    (``q`` None, ``fits`` False). ``scan``: what the assignment's prefixes share
    (:class:`_Scan`), when several are prepared."""
    model, d = problem.model, problem.d
    if scan is None:
        scan = _Scan(lanes_by_side)
    top = max(len(prefix), *(o.vector_log2 for o in assignment))
    cons = scan.cons.get(top)
    if cons is None:
        cons = scan.cons[top] = alignment_constraints(assignment, problem.sides, top)
    full = within_word(list(prefix), scan.lanes, model, d, cons, bases)
    if full is None:
        return None
    kp = len(full)
    zs = scan.zs.get(kp)
    if zs is None:
        w = model.within_word_bits
        zs = scan.zs[kp] = [len(o.prefix) if o.geometry is not None else
                            min(max(o.vector_log2, w), kp)
                            for o in assignment]
    ready = _Prepared(full, cons, zs, None, False, scan.lanes, d)
    if defer and _misses_rank(ready, scan.missed):
        return ready
    return _completed(ready)


def _completed(ready: _Prepared) -> _Prepared | None:
    """``ready`` with its aligned complement (step 2) and whether it meets the rank
    condition; None when no aligned complement exists."""
    if ready.q is not None:
        return ready
    found = _aligned_complement(tuple(ready.full), tuple(ready.cons), ready.lanes,
                                tuple(ready.zs), ready.d)
    if found is None:
        return None
    return _Prepared(ready.full, ready.cons, ready.zs, list(found[0]), found[1], ready.lanes,
                     ready.d)


def _misses_rank(ready: _Prepared, cache: dict[tuple[int, ...], bool] | None = None) -> bool:
    """A sufficient test that a prefix misses the rank condition of
    :func:`aligned_complement` for some shorter side, whatever its complement.

    The functional ``g_i`` of prefix bit ``i`` vanishes on ``cons[i]`` and on every other
    prefix vector, so the bits ``z … kp−1`` of a side (``Z`` of width ``z``) all vanish on
    ``D = ∩ span(cons[i]) + span(prefix[:z])``: on the side's lanes ``Λ`` they have rank at
    most ``dim(Λ + D) − dim D``, below ``min(|Λ|, kp − z)`` the condition fails.

    ``cache``: each side's answer by its prefix ``prefix[:z]`` and ``kp`` (for one
    assignment the rest is shared: the prefixes scanned share their first bits).
    """
    full, cons, kp = ready.full, ready.cons, len(ready.full)
    for side, (lanes, z) in enumerate(zip(ready.lanes, ready.zs)):
        if z >= kp or not lanes:
            continue
        key = (side, kp, *full[:z])
        missed = cache.get(key) if cache is not None else None
        if missed is None:
            common = _common_constraints(tuple(cons[i] if i < len(cons) else ()
                                               for i in range(z, kp)))
            span_d = f2.echelon(list(common) + full[:z])
            missed = (f2.rank(list(lanes) + list(span_d)) - len(span_d)
                      < min(len(lanes), kp - z))
            if cache is not None:
                cache[key] = missed
        if missed:
            return True
    return False


@memoize(256)
def _common_constraints(groups: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """Echelon basis of the intersection of the spans of ``groups`` (zero when one is empty):
    what every prefix of an assignment shares in :func:`_misses_rank`."""
    common: tuple[int, ...] | None = None
    for c in groups:
        if not c:
            return ()
        basis = _group_basis(c)
        common = basis if common is None else f2.intersection(common, basis)
        if not common:
            return ()
    return common or ()


@memoize(1024)
def _aligned_complement(prefix: tuple[int, ...], cons: tuple[tuple[int, ...], ...],
                        lanes: tuple[tuple[int, ...], ...], zs: tuple[int, ...], d: int
                        ) -> tuple[tuple[int, ...], bool] | None:
    """:func:`aligned_complement`, cached (with ``lowering="triton"`` the searches of the
    chunk orders try the same prefixes and constraints again: on the slowest random pairs
    ~1,300 calls, 33 distinct)."""
    found = aligned_complement(list(prefix), list(cons), [list(x) for x in lanes], list(zs), d)
    return None if found is None else (tuple(found[0]), found[1])


def _build(ready: _Prepared, assignment: Sequence[SideOption], problem: Problem,
           lanes_by_side: Sequence[Sequence[int]]) -> Plan | None:
    """Steps 3–4 and the exact count (None when a matrix instruction is not served)."""
    sides, regs, model, d = problem.sides, problem.regs, problem.model, problem.d
    weights, node_limit = problem.weights, problem.node_limit
    full, zs, q = ready.full, ready.zs, ready.q
    row = min(model.seg_lo, d)
    nseg = d - row
    kp = len(full)
    # step 3: the segment, in coordinates over Q. Each side's X ∩ Q: with coordinates over
    # (prefix, Q), x in span(lanes) + span(prefix[:z]) lies in Q iff its lane part has no
    # prefix coordinate at or above z; its Q coordinates are then those of the lane part.
    m = len(q)
    coords = f2.inverse(full + q)
    pmask = (1 << kp) - 1
    xs = []
    for lam, z in zip(lanes_by_side, zs):
        xs.append(f2.low_subspace([(((c & pmask) >> z) << m) | (c >> kp)
                                   for c in f2.compose_unchecked(coords, lam, d)], m))
    nseg = min(nseg, m)
    if len(xs) == 2:
        # spans of unit vectors (most pairs) need no echelon forms; when the complement of
        # both sides' X holds the whole segment (about a third of pairs), nothing more
        seq = f2.avoiding_sequence(xs[0], xs[1], (), m, count=nseg)
        proven = True
    else:
        costs = tuple(wt * o.instructions_per_warp * o.phases
                      for o, wt in zip(assignment, weights))
        choice = segment_choice(tuple(map(tuple, xs)), m, nseg,
                          max(0, node_limit - problem.nodes_spent), costs)
        problem.nodes_spent += choice.nodes
        seq = list(choice.sum_witness)
        proven = choice.proven
    # any basis of the segment span counts the same: take the reduced one, lowest bits first
    seg_sorted = sorted(f2.echelon(f2.compose_unchecked(q, seq, None)))
    # step 4: the banks, outside the register spans where possible
    nbank = row - kp
    qb = f2.echelon(q)
    # the first bank bit decides whether a side vectorises wider than planned: outside every
    # register span if possible; the others only need to be simple (unit vectors first).
    # Every candidate lies in Q, which meets span(prefix) only in 0: independence from the
    # prefix and the segment is independence from the segment.
    first = f2.extend_basis(seg_sorted, _bank_candidates(qb, regs), limit=min(1, nbank))
    simple = _simplest_first(qb, problem.simplicity)
    banks = first + f2.extend_basis(seg_sorted + first, simple, limit=nbank - len(first))
    if len(banks) < nbank:
        return None
    cols = tuple(full + banks + seg_sorted)
    inv = f2.inverse(list(cols))
    reports = []
    try:
        for o in assignment:
            if o.geometry is not None:
                reports.append(matrix_report(o, inv, sides[o.side], model, False))
            else:
                reports.append(side_report(cols, inv, sides[o.side], regs[o.side], model, d,
                                           False, o.side > 0, problem.elems_log2[o.side]))
    except LayoutError:
        return None
    return Plan(cols, tuple(reports), tuple(assignment), proven)


@memoize(1024)
def segment_choice(xs: tuple[tuple[int, ...], ...], nbits: int, nseg: int, node_limit: int,
                   weights: tuple[int, ...]) -> SegmentChoice:
    """:func:`~.segments.best_segment` of a construction's sides (``xs``: each side's ``X``
    in the complement's coordinates, ``nbits`` of them; ``weights``: each side's
    instructions × phases × weight), cached on its inputs (the prefix variants and
    assignments of one search often pose the same segment problem: on the slowest
    three-load tiles about half of them; the nodes a cached answer took are charged again by
    the caller)."""
    return best_segment(xs, [], nbits, nseg, node_limit=node_limit, weights=weights)


def _simplest_first(basis: Sequence[int], simplicity: Callable[[int], int]) -> Iterator[int]:
    """The vectors of an :func:`~linlayout.f2.echelon` basis and their sums of two,
    ``sorted(…, key=simplicity)``, lazily: the key orders by popcount first, so the
    candidates are grouped by popcount and a group is sorted only when it is reached. In a
    fully reduced basis a sum of two holds both leading bits, so the unit vectors — the first
    group — are basis vectors: the sums are formed only if the iteration gets past them."""
    units = [v for v in basis if v and not v & (v - 1)]
    yield from sorted(units, key=simplicity)
    groups: dict[int, list[int]] = {}
    for v in basis:
        if v & (v - 1):
            groups.setdefault(v.bit_count(), []).append(v)
    for i, a in enumerate(basis):
        for b in basis[i + 1:]:
            v = a ^ b
            groups.setdefault(v.bit_count(), []).append(v)
    for count in sorted(groups):
        yield from sorted(groups[count], key=simplicity)


def _bank_candidates(q: Sequence[int], regs: Sequence[tuple[int, ...]]) -> Iterable[int]:
    """Vectors of ``span(q)`` to complete the banks with: those in fewer register spans
    first (basis vectors, then sums of two)."""
    basis = sorted(q)
    spans = [r for r in regs if r]

    reduce = f2.reduce

    def widening(v: int) -> int:
        n = 0
        for r in spans:
            if not reduce(v, r):
                n += 1
        return n

    # the sorts are stable, so the vectors in no register span come first in their given
    # order: yielded as they are found (the caller usually takes the first), the rest after
    yield from _unwidening_first(basis, widening)
    yield from _unwidening_first((a ^ b for i, a in enumerate(basis) for b in basis[i + 1:]),
                                 widening)


def _unwidening_first(vectors, widening):
    """``vectors`` in their order where ``widening`` is 0, yielded as found, then the others by
    ascending ``widening`` (a stable sort: ties in their given order)."""
    later = []
    for v in vectors:
        n = widening(v)
        if n:
            later.append((n, v))
        else:
            yield v
    later.sort(key=_first)
    for _, v in later:
        yield v


def _first(pair: tuple[int, int]) -> int:
    """The first entry of a pair (a sort key)."""
    return pair[0]
