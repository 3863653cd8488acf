"""What :func:`~linlayout.synthesize_swizzle` returns: the layout, its costs, and its proof.

:class:`SwizzleResult` holds the synthesized shared-memory layout with the exact report of
every side (as :func:`~linlayout.bank_conflicts` counts it); :class:`OptimalityBound` holds
what no layout can beat and the argument, in words, that proves it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..conflicts import ConflictReport
from ..layout import LinearLayout

__all__ = ["OptimalityBound", "SwizzleResult"]


@dataclass(frozen=True)
class OptimalityBound:
    """What no shared-memory layout can beat, and why.

    Attributes:
        vector_elems: the widest vector every side can use: ``2^dim(∩ Reg)`` elements, capped
            at the widest access (a memory layout's first offsets must be held in registers
            by every side that vectorises them).
        store_degree: the least conflict degree any memory layout with that vector subspace
            (and these within-word bits) gives the store: ``2^max(0, s − (d − dim X))`` with
            ``s`` segment bits, ``d`` tensor bits and ``X = span(lanes in one phase) + vector
            + within-word bits`` — an ``s``-dim segment span meets ``X`` in at least that.
        load_degrees: the same for each load.
        worst_degree: the least possible degree of the worst side (``2^min max e``). With one
            load it is the larger per-side bound (both are reached at once); with several it
            comes from the exact search.
        proven: the search that produced ``worst_degree`` finished (always True with one load).
        sum_degrees: the least total ``Σ degree`` over the sides any segment span gives (with
            one load, the two per-side bounds added; with several it may need a less balanced
            span than the one minimising the worst side); ``sum_witness`` is a segment basis
            (flat tensor coordinates) that reaches it.
        common_dim, access_bytes, nseg, nbits, aligned_dim: the numbers behind the proof
            (``argument``: the same in words). tma_candidates: with a fixed TMA mode, how many layouts were
            counted exhaustively.
    """

    vector_elems: int
    store_degree: int
    load_degrees: tuple[int, ...]
    worst_degree: int
    proven: bool
    sum_degrees: int = 0
    sum_witness: tuple[int, ...] = field(default=(), compare=False)
    common_dim: int = field(default=0, compare=False)
    access_bytes: int = field(default=16, compare=False)
    nseg: int = field(default=0, compare=False)
    nbits: int = field(default=0, compare=False)
    tma_candidates: int = field(default=0, compare=False)
    aligned_dim: int = field(default=-1, compare=False)

    @property
    def load_degree(self) -> int:
        """The first load's bound (the only one for a store/load pair)."""
        return self.load_degrees[0]

    @property
    def argument(self) -> str:
        """The proof in words, with the numbers filled in."""
        if self.tma_candidates:
            return (f"exhaustive: all {self.tma_candidates} layouts TMA can write for this tile "
                    f"with the fixed mode were counted; the worst side is at best "
                    f"{self.worst_degree}-way and the degrees add up to at least "
                    f"{self.sum_degrees}")
        loads = self.load_degrees
        names = ["load"] if len(loads) == 1 else [f"load {i}" for i in range(len(loads))]
        per_side = ", ".join(f"{nm} -> {deg}-way at best"
                             for nm, deg in zip(["store"] + names, (self.store_degree, *loads)))
        aligned = self.common_dim if self.aligned_dim < 0 else self.aligned_dim
        text = (
            f"vector: dim(∩ Reg) = {self.common_dim}, of which {aligned} dims avoid every "
            f"lane/warp/block direction (each thread's run must start aligned), and a "
            f"{self.access_bytes}-byte access limits the vector, so no layout vectorises every "
            f"side beyond {self.vector_elems} elements; segment: any {self.nseg}-dim segment span in the {self.nbits}-bit "
            f"tensor space meets X = span(lanes of a phase + vector + within-word bits) in at "
            f"least max(0, {self.nseg} - ({self.nbits} - dim X)) dims (Lemma 9.5 count): "
            f"{per_side}"
        )
        if len(loads) > 1:
            how = "proven by exhaustive search" if self.proven else "search budget exhausted"
            text += (f"; jointly the worst side is at least {self.worst_degree}-way and the "
                     f"degrees add up to at least {self.sum_degrees} ({how})")
        return text

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the bounds, ``proven`` and the ``argument`` text."""
        return {
            "vector_elems": self.vector_elems,
            "store_degree": self.store_degree,
            "load_degree": self.load_degree,
            "load_degrees": list(self.load_degrees),
            "worst_degree": self.worst_degree,
            "sum_degrees": self.sum_degrees,
            "proven": self.proven,
            "argument": self.argument,
        }


@dataclass(frozen=True)
class SwizzleResult:
    """A synthesized shared-memory layout with its certified costs.

    Attributes:
        layout: bijection with in dims ``vector``, ``bank``, ``segment`` (flattened in that
            order into the element offset) onto the tensor's out dims.
        vector_elems: the vector width (elements) every side shares.
        store: :class:`ConflictReport` of the store, exactly as
            ``bank_conflicts(store, layout, element_bits=…)`` counts it (at the widest
            vectorisation the layout admits, which may exceed ``vector_elems``).
        loads: the same for each load, in the order given.
        optimal: ``vector_elems`` equals ``bound.vector_elems``, every side is conflict-free or
            at its proven optimum, and (with several loads) the search finished.
        bound: the :class:`OptimalityBound` the result was checked against.
        element_bits: bits per element.
    """

    layout: LinearLayout
    vector_elems: int
    store: ConflictReport
    loads: tuple[ConflictReport, ...]
    optimal: bool
    bound: OptimalityBound
    element_bits: int

    @property
    def load(self) -> ConflictReport:
        """The first load's report (the only one for a store/load pair)."""
        return self.loads[0]

    @property
    def tma_mode(self) -> Any:
        """The TMA swizzle mode and box that write ``layout`` exactly
        (:class:`linlayout.ptx.TmaMatch`), or None (:func:`linlayout.ptx.match_tma_mode`)."""
        from .. import ptx

        return ptx.match_tma_mode(self.layout, self.element_bits)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"layout": {"bases", "out_dims"}, "vector_elems", "store", "load",
        "loads", "optimal", "bound"}``."""
        return {
            "layout": self.layout.to_dict(),
            "vector_elems": self.vector_elems,
            "element_bits": self.element_bits,
            "store": self.store.to_dict(),
            "load": self.load.to_dict(),
            "loads": [r.to_dict() for r in self.loads],
            "optimal": self.optimal,
            "bound": self.bound.to_dict(),
        }
