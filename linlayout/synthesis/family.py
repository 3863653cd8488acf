"""The whole family of optimal swizzles, and certificates for hand-written layouts.

:func:`optimal_swizzles` counts — in closed form — and enumerates every segment subspace that
makes a store/load pair optimal at their widest *common* vector (both sides moving the same
``2^k`` elements per lane, the Linear Layouts paper's setting), given its vector and
within-word bits. For the article's 16×32 transpose that family is exactly the workbench's conflict-free
configurations: 322,560 of the 2^20 ways to XOR row bits into column bits.

The count. In the quotient ``Q = F₂ᵈ / Z`` (dimension ``q``) let ``U = X̄_store``,
``V = X̄_load``, ``I = U ∩ V`` and let ``s`` be the segment dimension. The moments
``M(α, β) = Σ_T [dim(T∩U), α]₂ [dim(T∩V), β]₂`` over all ``s``-dim subspaces ``T`` count the
triples ``(T, A ≤ T∩U, B ≤ T∩V)``; grouping by ``a′ = dim(A ∩ I)`` and ``c = dim(A ∩ B)``,

    M(α, β) = Σ_{a′, c} N(i, u, α, a′) · N(a′, v, β, c) · [q − α − β + c, s − α − β + c]₂

where ``N(t, n, k, c) = [t, c]₂ [n − t, k − c]₂ 2^{(t − c)(k − c)}`` counts the ``k``-dim
subspaces of an ``n``-dim space meeting a fixed ``t``-dim one in exactly ``c`` dimensions.
Gaussian-binomial inversion turns the moments into the number of ``T`` with
``dim(T∩U) = a`` and ``dim(T∩V) = b``. Members are these ``T`` (spans modulo ``Z``); each is
realised by the lift whose non-vector bases contain every lane, warp and block direction, so
that every thread's vector stays aligned. The tests check the formula against enumeration.

:func:`is_optimal` certifies a given memory layout: the widest possible common vector, and
each side at its proven minimum.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from .. import f2
from .._checks import as_int
from ..conflicts import ConflictReport, bank_conflicts
from ..errors import LayoutError
from ..hardware.model import HardwareModel
from ..hardware.kinds import distributed_columns
from ..layout import LinearLayout
from ..subspace import MAX_NBITS
from .result import OptimalityBound
from .space import QuotientSpace, project_along
from .synthesize import common_vector, synthesize_transfer
from .transfer import Objective, Transfer
from .._memo import memoize

__all__ = ["MAX_ENUMERATION", "Certificate", "OptimalFamily", "gaussian_binomial", "is_optimal",
           "optimal_swizzles"]


#: Default limit of :meth:`OptimalFamily.members`: candidate subspaces examined (about a
#: second per 10^5 on one core).
MAX_ENUMERATION = 1 << 20


def gaussian_binomial(n: int, k: int) -> int:
    """The number of ``k``-dim subspaces of F₂ⁿ (``[n, k]₂``); 0 when ``k`` is out of range.

    The Gaussian binomial coefficient at ``q = 2``,
    ``∏_{j<k} (2^{n−j} − 1) / (2^{j+1} − 1)`` (the count :func:`optimal_swizzles` is built
    from; ``docs/theory.md`` §7).

    Args:
        n: the ambient dimension, ``0 <= n <=`` :data:`~linlayout.subspace.MAX_NBITS`
            (a negative ``n`` gives 0).
        k: the subspace dimension (any int).

    Raises:
        LayoutError: ``n`` or ``k`` is not an int (a bool included), or ``n`` exceeds
            :data:`~linlayout.subspace.MAX_NBITS`.
    """
    n, k = as_int(n, "n"), as_int(k, "k")
    if n > MAX_NBITS:
        raise LayoutError(f"n = {n}: gaussian_binomial counts subspaces of F2^n for n up to "
                          f"{MAX_NBITS}")
    return _gaussian_binomial(n, k)


@memoize(4096)
def _gaussian_binomial(n: int, k: int) -> int:
    """:func:`gaussian_binomial` on checked ints."""
    if k < 0 or k > n or n < 0:
        return 0
    num, den = 1, 1
    for j in range(k):
        num *= (1 << (n - j)) - 1
        den *= (1 << (j + 1)) - 1
    return num // den


def _meeting(t: int, n: int, k: int, c: int) -> int:
    """k-dim subspaces of an n-dim space meeting a fixed t-dim subspace in exactly c dims."""
    if c < 0 or c > t or k - c < 0 or k - c > n - t:
        return 0
    return gaussian_binomial(t, c) * gaussian_binomial(n - t, k - c) * (1 << ((t - c) * (k - c)))


def count_meeting(q: int, s: int, u: int, v: int, i: int, a: int, b: int) -> int:
    """Number of ``s``-dim ``T ≤ F₂^q`` with ``dim(T∩U) = a`` and ``dim(T∩V) = b``.

    ``U``, ``V`` have dimensions ``u``, ``v`` and meet in dimension ``i`` (the count depends
    on nothing else). Exact integer arithmetic; see the module docstring for the derivation.
    """

    def moment(alpha: int, beta: int) -> int:
        total = 0
        for ap in range(0, min(alpha, i) + 1):
            n_a = _meeting(i, u, alpha, ap)
            if not n_a:
                continue
            for c in range(0, min(ap, beta) + 1):
                n_b = _meeting(ap, v, beta, c)
                if not n_b:
                    continue
                t = alpha + beta - c
                total += n_a * n_b * gaussian_binomial(q - t, s - t)
        return total

    result = 0
    for alpha in range(a, min(u, s) + 1):
        for beta in range(b, min(v, s) + 1):
            da, db = alpha - a, beta - b
            sign = -1 if (da + db) & 1 else 1
            weight = (1 << (da * (da - 1) // 2 + db * (db - 1) // 2))
            result += sign * weight * gaussian_binomial(alpha, a) * gaussian_binomial(beta, b) * \
                moment(alpha, beta)
    return result


@dataclass(frozen=True)
class OptimalFamily:
    """Every optimal segment subspace for a store/load pair (given vector and within-word bits).

    Attributes:
        reference: a member of the family (a :class:`~linlayout.LinearLayout` with in dims
            ``vector/bank/segment``): the layout the synthesizer builds when every side uses
            the widest common vector (:func:`~.synthesize.common_vector_layout`).
        count: how many segment spans give each side its optimal degree
            (``exponents``), counted modulo ``Z`` — two spans that differ only by vector
            or within-word components are one swizzle relabelled inside a vector or word:
            closed form, exact.
        exponents: the optimal ``(e_store, e_load)`` (degrees ``2^e``).
        z_basis: the vector + within-word directions ``Z`` the family shares.
        x_store, x_load: each side's phase directions ``X`` (echelon, flat coordinates).
        nbits: tensor bits ``d``; nseg: segment dimension ``s``.
        vector_bits: log2 of the common vector (elements per lane per access).
        aligned: the lane, warp and block directions every member's lift keeps outside the
            vector bits.
        out_dims: the tensor's ``(name, size)`` pairs.

    Iterating yields each member's segment basis (an :func:`linlayout.f2.echelon` tuple of
    flat tensor coordinates): the representative whose layout keeps every thread's vector
    aligned. Enumeration is exhaustive, so it is practical for families of up to a few million
    members; :meth:`members` refuses (LayoutError, before yielding) when the search would
    examine more than :data:`MAX_ENUMERATION` candidates (see :attr:`enumeration_size`), and
    :meth:`layout` turns a member into a memory layout.

    Source: the closed-form count of the module docstring (``docs/theory.md`` §7).
    """

    reference: LinearLayout
    count: int
    exponents: tuple[int, int]
    z_basis: tuple[int, ...]
    x_store: tuple[int, ...]
    x_load: tuple[int, ...]
    nbits: int
    nseg: int
    vector_bits: int
    aligned: tuple[int, ...]
    out_dims: tuple[tuple[str, int], ...]

    def __len__(self) -> int:
        """``count``, when Python's ``len()`` can return it.

        Raises:
            LayoutError: the family has more than ``sys.maxsize`` members (read ``.count``,
                an exact int of any size).
        """
        if self.count > sys.maxsize:
            raise LayoutError(f"the family has {self.count} members (about 2^"
                              f"{self.count.bit_length() - 1}), more than len() can return; "
                              "read .count instead")
        return self.count

    @property
    def enumeration_size(self) -> int:
        """How many candidate segment subspaces :meth:`members` examines (closed form): the
        graphs of the maps from a complement onto one side's phase span when a side is
        conflict-free with a complementary segment, else every ``nseg``-dim subspace of the
        quotient (the Gaussian binomial ``[q, nseg]₂``)."""
        q = self.nbits - len(self.z_basis)
        quo_dims = (f2.rank(list(self.x_store)) - len(self.z_basis),
                    f2.rank(list(self.x_load)) - len(self.z_basis))
        for first, e1 in zip(quo_dims, self.exponents):
            if e1 == 0 and self.nseg + first == q:
                return 1 << (first * self.nseg)
        return gaussian_binomial(q, self.nseg)

    def members(self, limit: int | None = None) -> Iterator[tuple[int, ...]]:
        """Each member's segment basis (see the class docstring), after checking the work.

        Args:
            limit: the most candidate subspaces to examine (default
                :data:`MAX_ENUMERATION`); enumeration visits :attr:`enumeration_size` of them.

        Raises:
            LayoutError: :attr:`enumeration_size` exceeds ``limit`` (the message gives both
                and the closed-form alternatives), raised before anything is yielded.
        """
        limit = MAX_ENUMERATION if limit is None else as_int(limit, "limit")
        size = self.enumeration_size
        if size > limit:
            raise LayoutError(
                f"enumerating this family examines {size} candidate segment subspaces (about "
                f"2^{size.bit_length() - 1}), over the limit of {limit}; .count gives the number "
                "of members in closed form, .reference (or synthesize_swizzle) one optimal "
                "member, and members(limit=...) enumerates anyway")
        return self._members()

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return self.members()

    def _members(self) -> Iterator[tuple[int, ...]]:
        quo = QuotientSpace(self.z_basis, self.nbits)
        u = f2.echelon(quo.down(x) for x in self.x_store)
        v = f2.echelon(quo.down(x) for x in self.x_load)
        ea, eb = self.exponents
        vec = list(self.z_basis[:self.vector_bits])
        for tbar in _subspaces_meeting(quo.dim, self.nseg, u, v, ea, eb):
            lifted = [quo.up(t) for t in tbar]
            if vec:  # the aligned representative: no lane/warp direction gains vector bits
                lifted = project_along(lifted, vec, self.aligned)
            yield f2.echelon(lifted)

    def is_member(self, segment: Sequence[int]) -> bool:
        """Whether a segment basis (flat tensor coordinates) spans a member: ``nseg``
        directions independent modulo ``Z`` meeting each side's phase span in the optimal
        dimension (:attr:`exponents`).

        Raises:
            LayoutError: ``segment`` is not a sequence of ints in ``[1, 2^nbits)``.
        """
        seg = self._check_segment(segment)
        quo = QuotientSpace(self.z_basis, self.nbits)
        t = [quo.down(x) for x in seg]
        if f2.rank(t) != self.nseg:
            return False
        u = f2.echelon(quo.down(x) for x in self.x_store)
        v = f2.echelon(quo.down(x) for x in self.x_load)
        return (len(f2.intersection(t, u)), len(f2.intersection(t, v))) == self.exponents

    def _check_segment(self, segment: Sequence[int]) -> list[int]:
        if isinstance(segment, (str, bytes)) or not isinstance(segment, Iterable):
            raise LayoutError(f"a member is a sequence of {self.nseg} segment bases (ints), got "
                              f"{type(segment).__name__}")
        seg = list(segment)
        if len(seg) != self.nseg:
            raise LayoutError(f"a member has {self.nseg} segment bases, got {len(seg)}")
        top = 1 << self.nbits
        for x in seg:
            if isinstance(x, bool) or not isinstance(x, int):
                raise LayoutError(f"segment bases are ints (flat tensor coordinates), got "
                                  f"{type(x).__name__}")
            if not 0 < x < top:
                shown = x if abs(x) < 1 << 64 else f"an int of {x.bit_length()} bits"
                raise LayoutError(f"segment basis {shown} is outside the tensor: flat "
                                  f"coordinates are 1 … {top - 1} ({self.nbits} bits)")
        return seg

    def layout(self, segment: Sequence[int]) -> LinearLayout:
        """The memory layout with the reference's vector and banks and this segment basis.

        Raises:
            LayoutError: ``segment`` is not a sequence of ``nseg`` ints in ``[1, 2^nbits)``,
                or is not a member (:meth:`is_member`: dependent modulo the vector and
                within-word bits, or not optimal for a side).
        """
        ref = self.reference
        seg = self._check_segment(segment)
        if not self.is_member(seg):
            raise LayoutError("the segment basis is not a member of the family: it is dependent "
                              "modulo the vector and within-word bits, or its span does not give "
                              "both sides their optimal degree; take members from iterating "
                              "the family")
        nvec = ref.in_bits("vector")
        cols = list(ref.columns)
        vec, banks = cols[:nvec], cols[nvec:self.nbits - self.nseg]
        if vec:
            seg = project_along(seg, vec, self.aligned)
        if f2.rank(vec + banks + seg) != self.nbits:
            fixed = vec + list(self.z_basis[nvec:])
            banks = list(self.z_basis[nvec:]) + f2.extend_basis(
                fixed + seg, (1 << i for i in range(self.nbits)),
                limit=self.nbits - self.nseg - len(fixed))
            if f2.rank(vec + banks + seg) != self.nbits:
                raise LayoutError("the segment basis is not independent of the vector bits")
            if vec:
                banks = project_along(banks, vec, self.aligned)
        return LinearLayout.unchecked(
            (("vector", nvec), ("bank", len(banks)), ("segment", self.nseg)),
            self.out_dims, vec + banks + seg)


def _subspaces_meeting(q: int, s: int, u: Sequence[int], v: Sequence[int], ea: int, eb: int
                       ) -> Iterator[list[int]]:
    """Every s-dim subspace of F₂^q meeting span(u) in ea and span(v) in eb dims (bases)."""
    # Fast path: the complements of a side (T ∩ U = 0, dim T = q − dim U) are the graphs of
    # the linear maps C → U over a fixed complement C.
    for first, second, e1, e2 in ((u, v, ea, eb), (v, u, eb, ea)):
        if e1 == 0 and s + len(first) == q:
            comp = f2.complement(first, q)
            fb = list(first)
            for entries in itertools.product(range(1 << len(fb)), repeat=s):
                t = [c ^ f2.apply(fb, m) for c, m in zip(comp, entries)]
                if len(f2.intersection(t, second)) == e2:
                    yield t
            return
    # General case: reduced echelon forms (pivot = highest bit, no other vector has it).
    for pivots in itertools.combinations(range(q), s):
        pset = set(pivots)
        frees = [[j for j in range(p) if j not in pset] for p in pivots]
        nfree = sum(len(f) for f in frees)
        for bits in range(1 << nfree):
            t, pos = [], 0
            for p, fr in zip(pivots, frees):
                vec = 1 << p
                for j in fr:
                    if bits >> pos & 1:
                        vec |= 1 << j
                    pos += 1
                t.append(vec)
            if len(f2.intersection(t, u)) == ea and len(f2.intersection(t, v)) == eb:
                yield t


def optimal_swizzles(
    store: LinearLayout,
    load: LinearLayout,
    *,
    element_bits: int,
    hardware: HardwareModel | None = None,
) -> OptimalFamily:
    """Count (exactly) and enumerate every optimal segment subspace of a store/load pair.

    The family: memory layouts with the widest common vector and the reference's
    within-word bits (``Z``) whose segment span gives each side its optimal degree at that
    vector — for NVIDIA's banks, every conflict-free one. Segment subspaces are counted, not orderings of their bases, nor
    choices of bank bases (any complement works; only ``Z`` and the segment span matter).

    Args: as :func:`linlayout.synthesize_swizzle` with a single load.

    Returns:
        An :class:`OptimalFamily` (``.count``, iteration, ``.layout(member)``).

    Raises:
        LayoutError: as :func:`linlayout.synthesize_swizzle`, or ``load`` is a list.

    Source: Lemma 9.5 of the Linear Layouts paper and the counting argument in this module's
    docstring; the article's workbench family (322,560 of 2^20) is the reproduction.
    """
    if not isinstance(load, LinearLayout):
        raise LayoutError("optimal_swizzles takes one load layout (a LinearLayout)")
    transfer = Transfer.make(store, load, element_bits=element_bits, hardware=hardware)
    ref = common_vector(transfer)
    model = transfer.model
    d = ref.total_out_bits
    k = ref.in_bits("vector")
    nseg = ref.in_bits("segment")
    z = min(max(k, model.within_word_bits), d)
    cols = list(ref.columns)
    zb = tuple(cols[:z])
    xs = []
    for i, side in enumerate((store, load.transpose_outs(store.out_dim_names))):
        dist = distributed_columns(side, "layout", model.warp_log2)
        packed = model.packed(dist.lane, k, i == 1)  # the load's return may be packed
        xs.append(tuple(f2.apply(dist.lane, v) for v in model.phase_lanes(k, packed)) + zb)
    ea = max(0, nseg - (d - f2.rank(xs[0])))
    eb = max(0, nseg - (d - f2.rank(xs[1])))
    q = d - z
    u = f2.rank(xs[0]) - z
    v = f2.rank(xs[1]) - z
    i = len(f2.intersection(xs[0], xs[1])) - z
    count = count_meeting(q, nseg, u, v, i, ea, eb)
    threads = [c for side in (store, load.transpose_outs(store.out_dim_names))
               for n in ("lane", "warp", "block") for c in side.dim_columns(n)]
    vec = list(zb[:k])
    t_basis = f2.extend_basis([], threads)
    aligned = tuple(t_basis + f2.extend_basis(vec + t_basis, (1 << j for j in range(d))))
    return OptimalFamily(
        reference=ref, count=count, exponents=(ea, eb), z_basis=zb, x_store=xs[0],
        x_load=xs[1], nbits=d, nseg=nseg, vector_bits=k, aligned=aligned,
        out_dims=tuple((n, store.out_bits(n)) for n in store.out_dim_names))


@dataclass(frozen=True)
class Certificate:
    """Whether a memory layout is optimal for a store and its loads, and why (not).

    Attributes:
        optimal: True when the layout costs exactly the proven optimum of the objective (the
            synthesizer's bound, reached).
        reasons: one sentence per side and one for the total, failed ones first.
        store, loads: the memory layout's :class:`ConflictReport` per side.
        bound: the :class:`linlayout.synthesis.OptimalityBound` it was compared with.
        wavefronts_per_warp, instructions_per_warp: its weighted totals.

    Source: the whole-tile bound of ``docs/theory.md`` §5, as :func:`is_optimal` applies it.
    """

    optimal: bool
    reasons: tuple[str, ...]
    store: ConflictReport
    loads: tuple[ConflictReport, ...]
    bound: OptimalityBound
    wavefronts_per_warp: int = 0
    instructions_per_warp: int = 0

    @property
    def load(self) -> ConflictReport:
        """The first load's report (the only one for a store/load pair)."""
        return self.loads[0]


def is_optimal(
    memory: LinearLayout,
    store: LinearLayout,
    load: LinearLayout | Sequence[LinearLayout],
    *,
    element_bits: int,
    hardware: HardwareModel | None = None,
    objective: str = "wavefronts",
    weights: Sequence[int] | None = None,
) -> Certificate:
    """Certify a hand-written shared-memory layout against the proven optimum.

    Every side is counted as :func:`linlayout.bank_conflicts` counts it (``ld/st.shared``
    at the widest vector the layout admits) and the weighted totals are compared with
    :func:`linlayout.synthesize_swizzle`'s bound for the same objective (the whole-tile
    bound of ``docs/theory.md`` §5: each side at its conflict-free cost or its Lemma 9.5
    count, Linear Layouts paper, arXiv 2505.23819).

    Args:
        memory: the shared-memory layout to check (in dims ``offset`` or
            ``vector/bank/segment``; a bijection onto the tensor).
        store, load: the accesses (``load`` may be a list), as for
            :func:`linlayout.synthesize_swizzle`.
        element_bits, hardware, objective, weights: as there.

    Returns:
        A :class:`Certificate`: ``optimal`` when the layout's totals equal a bound that no
        layout beats; otherwise the reasons say how far each side is from its best.

    Raises:
        LayoutError: as :func:`linlayout.bank_conflicts` and :func:`synthesize_swizzle`.
    """
    goal = Objective.parse(objective)
    transfer = Transfer.make(store, load, element_bits=element_bits, hardware=hardware,
                             weights=weights)
    r = synthesize_transfer(transfer, goal)
    kw = dict(element_bits=transfer.element_bits, hardware=transfer.hardware)
    reports = [bank_conflicts(side, memory, instruction="ld.shared" if i else "st.shared", **kw)
               for i, side in enumerate(transfer.layouts)]
    good: list[str] = []
    bad: list[str] = []
    for name, rep, best in zip(transfer.names, reports, r.reports):
        msg = (f"{name}: {rep.wavefronts_per_warp} wavefronts and {rep.instructions_per_warp} "
               f"instructions per warp ({rep.degree}-way at {rep.vector_elems} elements per "
               f"lane; the synthesized layout: {best.wavefronts_per_warp} and "
               f"{best.instructions_per_warp})")
        ok = goal.key(rep.wavefronts_per_warp, rep.instructions_per_warp) <= \
            goal.key(best.wavefronts_per_warp, best.instructions_per_warp)
        (good if ok else bad).append(msg)
    waves, instrs = transfer.totals(reports)
    msg = (f"total: {waves} wavefronts and {instrs} instructions per warp; no layout beats "
           f"{r.bound.wavefronts_per_warp} and {r.bound.instructions_per_warp}")
    proven = (waves, instrs) == (r.bound.wavefronts_per_warp, r.bound.instructions_per_warp)
    if not proven:
        msg += (" (not reached" + ("" if r.optimal else
                                   "; the synthesizer did not reach it either") + ")")
    (good if proven else bad).append(msg)
    if proven:  # a side worse than the synthesizer's is paid back by another: all good
        good, bad = bad + good, []
    return Certificate(optimal=proven, reasons=tuple(bad + good), store=reports[0],
                       loads=tuple(reports[1:]), bound=r.bound, wavefronts_per_warp=waves,
                       instructions_per_warp=instrs)
