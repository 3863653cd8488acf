"""Optimal swizzle synthesis: the shared-memory layout for a store in layout A and a load in B.

The construction (Linear Layouts paper, arXiv 2505.23819, §5.4 and Lemma 9.5; the article
"Swizzle by hand, swizzle by algebra" replays it on a 16×32 transpose). Work in the tensor's
bit space F₂ᵈ. The memory layout is an ordered basis of it, split into

* ``vector`` (k bits): directions in both register spans, so both sides move ``2^k``
  contiguous elements per lane; k = dim(Reg_A ∩ Reg_B), capped at 128-bit accesses;
* ``bank`` (the rest of one row of banks): for elements narrower than a bank word its first
  bits are the within-word bits;
* ``segment`` (the rest): two offsets differing only here hit the same bank.

By the closed form in :mod:`linlayout.conflicts`, a side X is conflict-free exactly when the
segment span meets ``X_X = span(lanes of one phase of X) + Z`` only in 0, ``Z`` being the vector
plus within-word directions. :func:`linlayout.f2.avoiding_sequence` builds a segment span that
meets both ``X_A`` and ``X_B`` as little as any subspace of its dimension can (Lemma 9.5,
generalised to arbitrary — not only unit-vector — subspaces), so the result is conflict-free
whenever any layout with this vector is, and otherwise reaches the per-side lower bound
``2^max(0, dim segment − (d − dim X_X))`` on both sides at once.

A compiler vectorises as wide as the memory layout allows: if the first bank basis lay in one
side's register span, that side would use wider vectors and different phases than planned.
The first bank basis is therefore chosen outside both register spans whenever such a vector
exists, and ``.store``/``.load`` are always counted at the widest vectorisation the result
admits (exactly what :func:`linlayout.bank_conflicts` returns).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from . import f2
from .conflicts import ConflictReport, count_offsets, widest_vector_log2
from .hardware import BankModel, HardwareModel, bank_model
from .errors import LayoutError
from .kinds import Distributed, distributed_columns
from .layout import LinearLayout

__all__ = ["OptimalityBound", "SwizzleResult", "synthesize_swizzle"]


@dataclass(frozen=True)
class OptimalityBound:
    """What no shared-memory layout can beat, and why.

    Attributes:
        vector_elems: the widest vector both sides can use: ``2^dim(Reg_A ∩ Reg_B)`` elements,
            capped at 128-bit accesses (a memory layout's first offsets must be held in
            registers by both sides).
        store_degree, load_degree: the least conflict degree any memory layout with that
            vector subspace (and these within-word bits) gives each side:
            ``2^max(0, s − (d − dim X))`` with ``s`` segment bits, ``d`` tensor bits and
            ``X = span(lanes in one phase) + vector + within-word bits`` — a segment span
            of dimension ``s`` must meet ``X`` in at least that many dimensions.
        argument: the same, in words, with the numbers filled in.
    """

    vector_elems: int
    store_degree: int
    load_degree: int
    argument: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "vector_elems": self.vector_elems,
            "store_degree": self.store_degree,
            "load_degree": self.load_degree,
            "argument": self.argument,
        }


@dataclass(frozen=True)
class SwizzleResult:
    """A synthesized shared-memory layout with its certified costs.

    Attributes:
        layout: bijection with in dims ``vector``, ``bank``, ``segment`` (flattened in that
            order into the element offset) onto the tensor's out dims.
        vector_elems: the common vector width (elements) the layout was built for.
        store, load: :class:`ConflictReport` of each side, exactly as
            ``bank_conflicts(side, layout, element_bits=…)`` counts them (widest
            vectorisation the layout admits; a side may vectorise wider than
            ``vector_elems``).
        optimal: ``vector_elems`` equals ``bound.vector_elems`` and each side is
            conflict-free or meets its lower bound at the planned vector width.
        bound: the :class:`OptimalityBound` the result was checked against.
        element_bits: bits per element.
    """

    layout: LinearLayout
    vector_elems: int
    store: ConflictReport
    load: ConflictReport
    optimal: bool
    bound: OptimalityBound
    element_bits: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"layout": {"bases", "out_dims"}, "vector_elems", "store", "load",
        "optimal", "bound"}``."""
        return {
            "layout": self.layout.to_dict(),
            "vector_elems": self.vector_elems,
            "element_bits": self.element_bits,
            "store": self.store.to_dict(),
            "load": self.load.to_dict(),
            "optimal": self.optimal,
            "bound": self.bound.to_dict(),
        }


def _side(layout: Any, name: str, out_order: tuple[str, ...] | None,
          warp_log2: int) -> tuple[LinearLayout, Distributed]:
    """Validate one side; return it (out dims in ``out_order``) and its flat columns."""
    distributed_columns(layout, name, warp_log2)
    if out_order is not None:
        layout = layout.transpose_outs(out_order)
    return layout, distributed_columns(layout, name, warp_log2)


def _outside(candidates: Iterator[int], spaces: list[tuple[int, ...]]) -> Iterator[int]:
    """Candidates lying in none of the given (echelon) subspaces."""
    for c in candidates:
        if all(f2.reduce(c, s) for s in spaces):
            yield c


def _candidates(nbits: int, first: list[int]) -> Iterator[int]:
    """Vectors to try for a basis slot: ``first``, unit vectors, then sums of two and three."""
    yield from (c for c in first if c)
    units = [1 << i for i in range(nbits)]
    yield from units
    for a, b in combinations(units, 2):
        yield a | b
    for a, b, c in combinations(units, 3):
        yield a | b | c


def _report(mem_cols: list[int], inv: list[int], side: Distributed, reg_basis: tuple[int, ...],
            model: BankModel, d: int) -> ConflictReport:
    """Exactly what bank_conflicts(side, memory) returns, from flat columns."""
    k = widest_vector_log2(mem_cols, d, reg_basis, model)
    lane_offs = [f2.apply(inv, c) for c in side.lane]
    reg_offs = [f2.apply(inv, c) for c in side.register]
    return count_offsets(lane_offs, reg_offs, k, model)


def synthesize_swizzle(
    store: LinearLayout,
    load: LinearLayout,
    *,
    element_bits: int,
    num_banks: int | None = None,
    bank_bytes: int | None = None,
    hardware: HardwareModel | None = None,
) -> SwizzleResult:
    """The shared-memory layout with the widest vectors and the fewest wavefronts for a pair.

    Args:
        store: distributed layout that writes the tile (in dims among ``register, lane, warp,
            block``); bases may be any linear maps, including broadcasts (zero bases).
        load: distributed layout that reads it, over the same out dims with the same sizes
            (the order of out dims may differ; the result uses ``store``'s).
        element_bits: bits per element, a power of two from 1 to 128.
        num_banks: banks per row (power of two, default 32).
        bank_bytes: bytes per bank word (power of two, default 4).

    Returns:
        A :class:`SwizzleResult`. Its vector is the widest both register spans allow; both
        sides are conflict-free whenever any memory layout with that vector makes them so;
        otherwise each side meets its lower bound (``.bound``), which is both the balanced
        and the minimum-sum choice.

    Raises:
        LayoutError: wrong in dims, out dims or sizes that differ between the sides, more
            lanes than a warp, or invalid hardware parameters.

    Source: Linear Layouts paper (arXiv 2505.23819) §5.4, Lemmas 9.4 and 9.5; Triton's
    ``GenericSwizzling.cpp`` computes the same kind of layout for unit-vector bases.

    Example (the article's 16×32 fp32 transpose)::

        >>> from linlayout import examples, synthesize_swizzle
        >>> ex = examples.get("transpose")
        >>> r = synthesize_swizzle(ex.store, ex.load, element_bits=32)
        >>> r.load.degree, r.store.degree, r.optimal
        (1, 1, True)
    """
    model = bank_model(element_bits, num_banks, bank_bytes, hardware)
    store, a = _side(store, "store", None, model.warp_log2)
    distributed_columns(load, "load", model.warp_log2)
    if set(load.out_dim_names) != set(store.out_dim_names):
        raise LayoutError(
            f"store and load must have the same out dims; got {list(store.out_dim_names)} and "
            f"{list(load.out_dim_names)}"
        )
    ssizes, lsizes = store.out_dims, load.out_dims
    for n in store.out_dim_names:
        if ssizes[n] != lsizes[n]:
            raise LayoutError(
                f"out dim {n!r} has size {ssizes[n]} in the store but {lsizes[n]} in the load; "
                "both must describe the same tensor"
            )
    load, b = _side(load, "load", store.out_dim_names, model.warp_log2)
    d = store.total_out_bits

    # 1. Vector: the widest common register subspace, capped at 128-bit accesses.
    common = sorted(f2.intersection(a.register, b.register))
    kmax = min(len(common), model.max_vector_log2, d)
    vec = common[:kmax]
    k = kmax

    # 2. Sizes: Z = vector + within-word bits; bank bits fill one row; segment the rest.
    z = min(max(k, model.within_word_bits), d)
    row = min(model.seg_lo, d)
    nbank = row - k
    nseg = d - row
    phase_ids = model.phase_lanes(k)
    reg_a, reg_b = f2.echelon(a.register), f2.echelon(b.register)
    can_widen = k < model.max_vector_log2
    lanes_a = [f2.apply(a.lane, v) for v in phase_ids]
    lanes_b = [f2.apply(b.lane, v) for v in phase_ids]

    best: tuple[tuple[int, ...], list[int], ConflictReport, ConflictReport, int, int] | None = None
    tries = 0
    for zcols, first_bank in _first_bank_choices(vec, z, d, lanes_a, lanes_b, reg_a, reg_b, can_widen):
        # 3. Segment: the Lemma 9.5 sequence against both sides' phase spans.
        xa = lanes_a + zcols
        xb = lanes_b + zcols
        seq = f2.avoiding_sequence(xa, xb, zcols, d)
        seg = seq[:nseg]
        lb_a = max(0, nseg - (d - f2.rank(xa)))
        lb_b = max(0, nseg - (d - f2.rank(xb)))
        # 4. Bank: Z's extra bits, then the first bank basis, then unit vectors.
        banks = list(zcols[k:])
        if first_bank is not None and len(banks) < nbank:
            fb = first_bank(seg)
            if fb is None:
                continue
            banks.append(fb)
        banks += f2.extend_basis(
            vec + banks + seg, _candidates(d, lanes_a + lanes_b), limit=nbank - len(banks)
        )
        seg = sorted(seg, key=lambda v: ((v & -v).bit_length(), v))
        cols = vec + banks + seg
        inv = f2.inverse(cols)
        rep_a = _report(cols, inv, a, reg_a, model, d)
        rep_b = _report(cols, inv, b, reg_b, model, d)
        score = (max(rep_a.degree, rep_b.degree), rep_a.wavefronts + rep_b.wavefronts)
        if best is None or score < (max(best[2].degree, best[3].degree),
                                    best[2].wavefronts + best[3].wavefronts):
            best = (tuple(cols), banks, rep_a, rep_b, lb_a, lb_b)
        tries += 1
        if _meets(rep_a, lb_a, k) and _meets(rep_b, lb_b, k) or tries >= 32:
            break
    assert best is not None  # the unconstrained fallback always yields a choice
    cols_t, banks, rep_a, rep_b, lb_a, lb_b = best
    cols = list(cols_t)

    out_dims = store.out_dims
    layout = LinearLayout._from_flat(
        (("vector", k), ("bank", nbank), ("segment", nseg)),
        tuple((n, store.out_bits(n)) for n in out_dims),
        cols,
    )
    dim_xa, dim_xb = f2.rank(lanes_a + cols[:z]), f2.rank(lanes_b + cols[:z])
    argument = (
        f"vector: dim(Reg_store ∩ Reg_load) = {len(common)} and a 128-bit access holds at "
        f"most 2^{model.max_vector_log2} elements, so no layout vectorises both sides beyond "
        f"2^{kmax}; segment: any {nseg}-dim segment span in the {d}-bit tensor space meets "
        f"X = span(lanes of a phase + vector + within-word bits) in at least "
        f"max(0, {nseg} - ({d} - dim X)) dims (Lemma 9.5 count): dim X = {dim_xa} for the store "
        f"-> {1 << lb_a}-way at best, {dim_xb} for the load -> {1 << lb_b}-way at best"
    )
    bound = OptimalityBound(
        vector_elems=1 << kmax, store_degree=1 << lb_a, load_degree=1 << lb_b, argument=argument
    )
    optimal = _meets(rep_a, lb_a, k) and _meets(rep_b, lb_b, k)
    return SwizzleResult(
        layout=layout,
        vector_elems=1 << k,
        store=rep_a,
        load=rep_b,
        optimal=optimal,
        bound=bound,
        element_bits=model.element_bits,
    )


def _meets(rep: ConflictReport, lb: int, k: int) -> bool:
    """Conflict-free, or at the lower bound with the planned vector width."""
    return rep.degree == 1 or (rep.vector_elems == 1 << k and rep.degree == 1 << lb)


def _first_bank_choices(vec, z, d, lanes_a, lanes_b, reg_a, reg_b, can_widen):
    """Yield ``(Z columns, first_bank)`` choices, best first.

    ``first_bank(seg)`` returns the first bank basis given the segment basis (or None when no
    candidate fits); it is None itself when Z already holds the first bank-dim basis.

    For sub-word elements the first bank-dim bases are the within-word bits (part of Z);
    otherwise the first bank basis is picked after the segment span. Either way the first
    basis after the vector should lie outside both register spans (so neither side
    vectorises wider than planned); candidates that satisfy this come first, and a final
    unconstrained choice guarantees progress.
    """
    k = len(vec)
    shared = sorted(f2.intersection(lanes_a, lanes_b)) + lanes_a + lanes_b
    avoid = [reg_a, reg_b] if can_widen else []
    if z > k:
        # Sub-word: choose the within-word extras now, the first outside both register spans.
        seen = 0
        for first in _outside(_candidates(d, shared), avoid + [f2.echelon(vec)]):
            zcols = vec + [first]
            zcols += f2.extend_basis(zcols, _candidates(d, shared), limit=z - k - 1)
            if len(zcols) < z:
                continue
            yield zcols, None
            seen += 1
            if seen >= 8:
                break
        zcols = vec + f2.extend_basis(vec, _candidates(d, shared), limit=z - k)
        yield zcols, None
        return

    def first_bank(avoid_spaces):
        def pick(seg):
            taken = f2.echelon(vec + seg)
            for c in _outside(_candidates(d, lanes_a + lanes_b), avoid_spaces + [taken]):
                return c
            return None
        return pick

    yield vec, first_bank(avoid)
    if avoid:
        yield vec, first_bank([reg_a])
        yield vec, first_bank([reg_b])
        yield vec, first_bank([])
