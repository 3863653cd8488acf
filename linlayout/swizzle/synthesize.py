"""Optimal swizzle synthesis: the shared-memory layout for a store in layout A and loads in B….

The construction (Linear Layouts paper, arXiv 2505.23819, §5.4 and Lemma 9.5; the article
"Swizzle by hand, swizzle by algebra" replays it on a 16×32 transpose). Work in the tensor's
bit space F₂ᵈ. The memory layout is an ordered basis of it, split into

* ``vector`` (k bits): directions in every side's register span, so each side moves ``2^k``
  contiguous elements per lane; k = dim(∩ Reg), capped at the widest access (128 bits);
* ``bank`` (the rest of one row of banks): for elements narrower than a bank word its first
  bits are the within-word bits;
* ``segment`` (the rest): two offsets differing only here hit the same bank.

By the closed form in :mod:`linlayout.conflicts`, a side X is conflict-free exactly when the
segment span meets ``X_X = span(lanes of one phase of X) + Z`` only in 0, ``Z`` being the vector
plus within-word directions. For a store and one load :func:`linlayout.f2.avoiding_sequence`
builds a segment span meeting both as little as any subspace of its dimension can (Lemma 9.5,
generalised to arbitrary — not only unit-vector — subspaces): the result is conflict-free
whenever any layout with this vector is, and otherwise reaches the per-side lower bound on both
sides at once. With several loads, :func:`linlayout.segments.best_segment` searches exactly.

A compiler vectorises as wide as the memory layout allows: if the first bank basis lay in a
side's register span, that side would use wider vectors and different phases than planned.
The first basis after the vector is therefore chosen outside every register span whenever
such a vector exists, and the reports are always counted at the widest vectorisation the
result admits (exactly what :func:`linlayout.bank_conflicts` returns). With
``vectors="per_side"`` a side may instead be given a wider vector on purpose, when that lowers
the total cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
import itertools
from itertools import combinations
from typing import Any

from .. import f2
from ..conflicts.closed_form import (
    ConflictReport,
    alignment_log2,
    count_matrix,
    count_offsets,
    widest_vector_log2,
)
from ..errors import LayoutError
from ..hardware.model import BankModel, HardwareModel, bank_model
from ..hardware.instructions import (
    Instruction,
    MatrixGeometry,
    all_variants,
    check_memory,
    matrix_geometry,
    parse_instruction,
)
from ..hardware.kinds import Distributed, distributed_columns, memory_columns, require_same_tensor
from ..layout import LinearLayout
from .segments import best_segment

__all__ = ["OptimalityBound", "SwizzleResult", "synthesize_swizzle"]

#: Values of ``vectors=``.
VECTOR_MODES = ("auto", "common", "per_side")


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


def _side(layout: Any, name: str, out_order: tuple[str, ...] | None,
          warp_log2: int) -> tuple[LinearLayout, Distributed]:
    """Validate one side; return it (out dims in ``out_order``) and its flat columns."""
    if out_order is not None and isinstance(layout, LinearLayout):
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
    lane_offs = f2.compose_within(inv, side.lane, d)  # memory offset of each lane bit
    k = widest_vector_log2(mem_cols, d, reg_basis, model)
    if k:  # a vector must also start aligned in every thread
        k = min(k, alignment_log2(lane_offs + f2.compose_within(inv, side.warp + side.block,
                                                                 d)))
    reg_offs = f2.compose_within(inv, side.register, d)
    return count_offsets(lane_offs, reg_offs, k, model)


def _prefix_len(prefix: Sequence[int], reg_basis: tuple[int, ...]) -> int:
    """How many leading prefix vectors lie in the register span (the side's vector log2)."""
    k = 0
    while k < len(prefix) and f2.reduce(prefix[k], reg_basis) == 0:
        k += 1
    return k


@dataclass
class _Plan:
    """One candidate: its memory columns, reports, and the bounds it was built against."""

    cols: list[int]
    nbank: int
    reports: list[ConflictReport]
    bounds: tuple[int, ...]  # per-side lower-bound exponents
    optimum: tuple[int, ...]  # exponents of the chosen segment (optimal when proven)
    proven: bool
    planned_k: list[int]
    min_sum: int = 0
    sum_witness: tuple[int, ...] = ()

    def meets(self) -> bool:
        """Every side conflict-free, or at the segment optimum with its planned vector."""
        return all(
            rep.degree == 1 or ((rep.vector_elems == 1 << k or rep.instruction != "ld/st.shared")
                                and rep.degree <= 1 << e)
            for rep, k, e in zip(self.reports, self.planned_k, self.optimum)
        )

    def score(self) -> tuple[int, int]:
        degrees = [r.degree for r in self.reports]
        return (max(degrees), sum(degrees))

    def cost(self) -> tuple[int, int, int]:
        """(total wavefronts per warp, instructions per warp, worst degree) over all sides."""
        total = sum(r.instructions * r.wavefronts for r in self.reports)
        instr = sum(r.instructions for r in self.reports)
        return (total, instr, max(r.degree for r in self.reports))


def synthesize_swizzle(
    store: LinearLayout,
    load: LinearLayout | Sequence[LinearLayout],
    *,
    element_bits: int,
    hardware: HardwareModel | None = None,
    vectors: str = "common",
    instructions: str | Sequence[str | None] | None = None,
    fixed: Sequence[Sequence[int]] | str | None = None,
    node_limit: int = 200_000,
) -> SwizzleResult:
    """The shared-memory layout with the widest vectors and the fewest wavefronts.

    Args:
        store: distributed layout that writes the tile (in dims among ``register, lane, warp,
            block``); bases may be any linear maps, including broadcasts (zero bases).
        load: distributed layout that reads it — or a sequence of them, for a tile read by
            several loads — over the same out dims with the same sizes (the order of out dims
            may differ; the result uses ``store``'s).
        element_bits: bits per element, a power of two up to the widest access (128).
        hardware: a :class:`linlayout.hardware.HardwareModel` (default ``NVIDIA``; other
            bank counts: ``NVIDIA.with_banks(num_banks=16)``).
        vectors: ``"common"`` (default, the fastest): every side uses the widest vector all
            register spans allow. ``"auto"``: give one side a wider vector of its own (its
            extra register directions placed right after the common vector) when that takes
            strictly fewer wavefronts per warp in total — possible only when the common vector
            is narrower than a bank word (e.g. the 128×128 fp16 transpose: 48 instead of 64
            wavefronts, 36 instead of 64 instructions). ``"per_side"``: widen whenever it
            lowers (wavefronts, then instructions), e.g. fewer store instructions at the same
            wavefront count.
        instructions: None (default): every side uses ld/st.shared. ``"auto"``: each side may
            instead use ldmatrix (loads) or stmatrix (the store), ``.x4`` when its registers
            allow, plain or ``.trans`` (:mod:`linlayout.instructions`); the combination with the
            fewest wavefronts per warp, then the fewest instructions, is chosen and each report
            names its instruction. A sequence (store first, then each load) fixes them, e.g.
            ``(None, "ldmatrix.x4")``.
        fixed: pin the first offsets: ``fixed[i]`` is the tensor coordinate (one int per out
            dim, in the store's out-dim order, a basis vector like ``bases`` entries) that
            offset bit ``i`` must map to — e.g. a contiguity a global-memory access imposes.
            At most one row of banks can be pinned. The rest is synthesized; the bounds then
            hold among layouts with this prefix. Or a TMA swizzle mode name (``"128B"``,
            ``"64B"``, ``"32B"``, ``"none"``, the 128B sub-modes): the layout must be one TMA
            writes with that mode (:func:`linlayout.ptx.tma_layouts`: every contiguous dim,
            dim order and box size is tried) — the exact minimum of the worst side (then of
            the total) over that choice space is returned, proven by exhaustion.
        node_limit: budget of the exact segment search used with several loads; past it the
            best layout found is returned with ``optimal=False``.

    Returns:
        A :class:`SwizzleResult`. With one load: both sides are conflict-free whenever any
        memory layout with that vector makes them so; otherwise each side meets its lower
        bound (``.bound``), which is both the balanced and the minimum-sum choice. With several
        loads: the ``(worst degree, sum of degrees)`` is minimal among segment choices, proven
        by exhaustive search unless the budget ran out.

    Raises:
        LayoutError: wrong in dims, out dims or sizes that differ between the sides, more
            lanes than a warp, an empty list of loads, an unknown ``vectors`` mode, or
            invalid hardware parameters.

    Source: Linear Layouts paper (arXiv 2505.23819) §5.4, Lemmas 9.4 and 9.5; Triton's
    ``GenericSwizzling.cpp`` computes the same kind of layout for unit-vector bases.

    Example (the article's 16×32 fp32 transpose)::

        >>> from linlayout import examples, synthesize_swizzle
        >>> ex = examples.get("transpose")
        >>> r = synthesize_swizzle(ex.store, ex.load, element_bits=32)
        >>> r.load.degree, r.store.degree, r.optimal
        (1, 1, True)
    """
    model = bank_model(element_bits, hardware)
    if vectors not in VECTOR_MODES:
        raise LayoutError(f"vectors must be one of {VECTOR_MODES}, got {vectors!r}")
    if not isinstance(node_limit, int) or isinstance(node_limit, bool) or node_limit < 0:
        raise LayoutError(f"node_limit must be a non-negative int, got {node_limit!r}")
    store, a = _side(store, "store", None, model.warp_log2)
    loads_in = [load] if isinstance(load, LinearLayout) or not isinstance(load, Sequence) else list(load)
    if not loads_in:
        raise LayoutError("give at least one load layout")
    sides = [a]
    for i, ld in enumerate(loads_in):
        name = "load" if len(loads_in) == 1 else f"load {i}"
        require_same_tensor(store, ld, "store", name)
        sides.append(_side(ld, name, store.out_dim_names, model.warp_log2)[1])
    d = store.total_out_bits
    regs = [f2.echelon(s.register) for s in sides]

    # 1. Vector: the widest common register subspace, capped at the widest access.
    common: tuple[int, ...] = regs[0]
    for r in regs[1:]:
        common = f2.intersection(common, r)
    # A vector direction must also stay clear of every lane, warp and block direction: each
    # thread's run of 2^k offsets must start on a multiple of 2^k (alignment).
    threads = [c for s_ in sides for c in s_.lane + s_.warp + s_.block]
    blocked = f2.intersection(common, threads) if threads and common else ()
    common_sorted = f2.extend_basis(blocked, sorted(common))
    kmax = min(len(common_sorted), model.max_vector_log2, d)
    vec = common_sorted[:kmax]

    if isinstance(fixed, str):
        if instructions is not None or vectors == "per_side":
            raise LayoutError("fixed=<TMA mode> fixes the whole layout; it cannot be combined "
                              "with instructions= or vectors=")
        return _fixed_tma(fixed, store, sides, regs, model, d, len(common))
    pinned = _pinned(fixed, store, d)
    if pinned is not None and instructions is not None:
        raise LayoutError("fixed= pins the first offsets; it cannot be combined with instructions=")
    if pinned is not None and len(pinned) > min(model.seg_lo, d):
        raise LayoutError(
            f"fixed= pins {len(pinned)} offset bits but one row of banks holds "
            f"{min(model.seg_lo, d)}; pin at most that many"
        )
    prefixes = [vec] if pinned is None else [pinned]
    # A side whose common-vector access is narrower than a bank word pays one wavefront per
    # instruction, so a wider vector of its own can lower the total; otherwise a conflict-free
    # layout already moves the data in the fewest wavefronts and only instructions could drop.
    subword = (model.element_bits << kmax) < (1 << model.word_log2)
    if pinned is None and (vectors == "per_side" or (vectors == "auto" and subword)):
        for side, r in zip(sides, regs):
            own = f2.extend_basis([], side.lane + side.warp + side.block)  # its own threads
            extra = f2.extend_basis(vec + own, sorted(r),
                                    limit=min(model.max_vector_log2, d) - kmax)
            if extra:
                prefixes.append(vec + extra)

    base = _build(prefixes[0], sides, regs, model, d, node_limit)
    assert base is not None
    plans: list[_Plan | None] = [base]
    if len(prefixes) > 1:
        plans += _widened_plans(prefixes[1:], base, vectors, sides, regs, model, d, node_limit)
    for kinds in _kind_choices(instructions, sides, model, d):
        prefix = list(next(k for k in kinds if k).geom.row)
        plan = _build(prefix, sides, regs, model, d, node_limit, kinds)
        if plan is not None:
            plans.append(plan)
    candidates = [p for p in plans if p is not None]
    if vectors == "per_side" or instructions is not None:
        best = min(candidates, key=lambda p: p.cost())
    elif vectors == "auto":
        # only strictly fewer wavefronts justify leaving the common vector
        best = min(candidates, key=lambda p: (p.cost()[0], p is not base, p.cost()[1:]))
    else:
        best = base
    if isinstance(instructions, (list, tuple)) and any(
            parse_instruction(n).is_matrix for n in instructions):
        fixed = [p for p in plans[len(prefixes):] if p is not None]
        if not fixed:
            raise LayoutError(
                f"no shared-memory layout serves the instructions {list(instructions)}: the "
                "matrix instructions need each 16-byte row in the order they deliver it, and "
                "the sides' rows disagree"
            )
        best = fixed[0]

    row = min(model.seg_lo, d)
    nseg = d - row
    # the vector every plain side actually uses (as counted), or a matrix row
    plain_k = [rep.vector_elems.bit_length() - 1 for rep in best.reports
               if rep.instruction == "ld/st.shared"]
    nvec = min(min(plain_k) if plain_k else best.planned_k[0], row)
    layout = LinearLayout.unchecked(
        (("vector", nvec), ("bank", row - nvec), ("segment", nseg)),
        tuple((n, store.out_bits(n)) for n in store.out_dim_names),
        best.cols,
    )
    worst = max(base.optimum) if base.optimum else 0
    bound = OptimalityBound(
        vector_elems=1 << kmax,
        store_degree=1 << base.bounds[0],
        load_degrees=tuple(1 << b for b in base.bounds[1:]),
        worst_degree=1 << worst,
        proven=base.proven,
        sum_degrees=base.min_sum,
        sum_witness=base.sum_witness,
        common_dim=len(common),
        aligned_dim=len(common_sorted),
        access_bytes=model.hardware.max_access_bytes,
        nseg=nseg,
        nbits=d,
    )
    optimal = best.proven and (best.meets() or best.cost() < base.cost())
    if pinned is not None:
        # with pinned offsets the vector may be narrower than kmax: optimal among layouts
        # with this prefix when every side meets its bound (those bounds assume the prefix)
        optimal = best.proven and best.meets()
    return SwizzleResult(
        layout=layout,
        vector_elems=1 << nvec,
        store=best.reports[0],
        loads=tuple(best.reports[1:]),
        optimal=optimal,
        bound=bound,
        element_bits=model.element_bits,
    )


@dataclass(frozen=True)
class _Kind:
    """A side's matrix instruction, its geometry, and the subspace its rows must start in."""

    instr: Instruction
    geom: MatrixGeometry
    aligned: tuple[int, ...]


def _matrix_kind(instr: Instruction, side: Distributed, model: BankModel, d: int) -> _Kind | None:
    """The side's geometry for a matrix instruction, or None when the layout cannot use it."""
    if model.warp_log2 != 5 or model.hardware.row_bytes < 128:
        return None
    try:
        geom = matrix_geometry(instr, side.register, side.lane, model.element_bits)
    except LayoutError:
        return None
    row = list(geom.row)
    if instr.trans:
        rest = list(side.register) + [side.lane[0], side.lane[1]]
    else:
        rest = [r for r in side.register if not f2.in_span(r, row)] + list(side.lane[2:])
    rest += list(side.warp) + list(side.block)
    aligned = f2.extend_basis(row, rest)
    aligned += f2.extend_basis(row + aligned, (1 << i for i in range(d)))
    return _Kind(instr, geom, tuple(aligned))


def _project(vectors: Sequence[int], prefix: Sequence[int], aligned: Sequence[int]) -> list[int]:
    """Project along span(prefix) onto span(aligned) (a complement of it)."""
    basis = list(prefix) + list(aligned)
    out = []
    for x in f2.solve_many(basis, vectors):
        assert x is not None
        out.append(f2.apply(aligned, x >> len(prefix)))
    return out


def _fixed_tma(mode: str, store: LinearLayout, sides: list[Distributed],
               regs: list[tuple[int, ...]], model: BankModel, d: int,
               common_dim: int) -> SwizzleResult:
    """The best layout TMA can write with ``mode`` (exhaustive over its choices)."""
    from .. import ptx  # ptx depends on nothing here; imported when a TMA mode is fixed

    cands = ptx.tma_layouts(mode, store.out_dims, model.element_bits)
    if not cands:
        raise LayoutError(
            f"TMA cannot write a tile of shape {list(store.out_dims.values())} with "
            f"{model.element_bits}-bit elements in mode {mode!r} (no box fits); try another mode"
        )
    scored = []
    for _, mem in cands:
        cols = list(memory_columns(mem, store.out_dim_names)[0])
        inv = f2.inverse(cols)
        reports = [_report(cols, inv, s, r, model, d) for s, r in zip(sides, regs)]
        degrees = [r.degree for r in reports]
        scored.append(((max(degrees), sum(degrees)), cols, reports))
    scored.sort(key=lambda t: t[0])
    (worst, _), cols, reports = scored[0]
    row = min(model.seg_lo, d)
    nvec = min(min(r.vector_elems for r in reports).bit_length() - 1, row)
    layout = LinearLayout.unchecked(
        (("vector", nvec), ("bank", row - nvec), ("segment", d - row)),
        tuple((n, store.out_bits(n)) for n in store.out_dim_names), cols)
    per_side = [min(t[2][i].degree for t in scored) for i in range(len(sides))]
    bound = OptimalityBound(
        vector_elems=1 << nvec, store_degree=per_side[0], load_degrees=tuple(per_side[1:]),
        worst_degree=worst, proven=True, sum_degrees=min(sum(r.degree for r in t[2])
                                                         for t in scored),
        common_dim=common_dim, access_bytes=model.hardware.max_access_bytes, nseg=d - row,
        nbits=d, tma_candidates=len(scored))
    return SwizzleResult(layout=layout, vector_elems=1 << nvec, store=reports[0],
                         loads=tuple(reports[1:]), optimal=True, bound=bound,
                         element_bits=model.element_bits)


def _pinned(fixed: Any, store: LinearLayout, d: int) -> list[int] | None:
    """Validate ``fixed`` and return it as flat tensor coordinates (None when not given)."""
    if fixed is None:
        return None
    if isinstance(fixed, (str, bytes)) or not isinstance(fixed, Iterable):
        raise LayoutError(
            f"fixed must be a TMA mode name or a list of tensor coordinates (one list of ints "
            f"per pinned offset bit), got {fixed!r}"
        )
    try:
        probe = LinearLayout({"offset": list(fixed)}, store.out_dims)
    except LayoutError as exc:
        raise LayoutError(f"fixed must list tensor coordinates, one per pinned offset bit: {exc}"
                          ) from None
    cols = list(probe.columns)
    if f2.rank(cols) != len(cols):
        raise LayoutError("the pinned offsets in fixed= are linearly dependent (or zero); "
                          "each must add a new tensor direction")
    return cols


def _ideal_cost(prefix: list[int], sides: list[Distributed], regs: list[tuple[int, ...]],
                model: BankModel) -> tuple[int, int]:
    """(wavefronts, instructions) per warp if every side were conflict-free at the vector the
    prefix gives it — a lower bound on what a plan with this prefix can cost."""
    waves = instrs = 0
    for side, r in zip(sides, regs):
        k = _prefix_len(prefix, r)
        n = 1 << max(0, len(r) - k)
        phases = 1 << len(model.phase_masks(k))
        waves += n * phases
        instrs += n
    return waves, instrs


def _widened_plans(prefixes: list[list[int]], base: _Plan, vectors: str,
                   sides: list[Distributed], regs: list[tuple[int, ...]], model: BankModel,
                   d: int, node_limit: int) -> list[_Plan]:
    """Plans giving one side a wider vector, built cheapest-ideal first.

    A plan can cost no less than its ideal (every side conflict-free), so once the best plan
    built so far is no worse than the next ideal, the remaining ones cannot win and are not
    built."""
    def key(cost: tuple[int, int, int], is_base: bool) -> tuple:
        # "auto" leaves the common vector only for strictly fewer wavefronts
        return (cost[0], not is_base, cost[1]) if vectors == "auto" else cost[:2]

    best_key = key(base.cost(), True)
    out = []
    for prefix in sorted(prefixes, key=lambda p: _ideal_cost(p, sides, regs, model)):
        if key(_ideal_cost(prefix, sides, regs, model) + (0,), False) >= best_key:
            break
        plan = _build(prefix, sides, regs, model, d, node_limit)
        if plan is not None:
            out.append(plan)
            best_key = min(best_key, key(plan.cost(), False))
    return out


def _kind_choices(instructions: Any, sides: list[Distributed], model: BankModel,
                  d: int) -> Iterator[list[_Kind | None]]:
    """Per-side matrix-instruction combinations to try (at least one matrix side each)."""
    if instructions is None:
        return
    if instructions == "auto":
        options: list[list[_Kind | None]] = []
        for i, side in enumerate(sides):
            opts: list[_Kind | None] = [None]
            for trans in (False, True):
                for instr in all_variants(store=i == 0):
                    if instr.trans != trans:
                        continue
                    kind = _matrix_kind(instr, side, model, d)
                    if kind is not None:  # widest .xN first: keep it
                        opts.append(kind)
                        break
            options.append(opts)
        for combo in itertools.product(*options):
            matrix = [k for k in combo if k]
            if matrix and all(k.geom.row == matrix[0].geom.row for k in matrix):
                yield list(combo)
        return
    if isinstance(instructions, str) or not isinstance(instructions, Sequence):
        raise LayoutError(
            f"instructions must be None, 'auto', or one name per side; got {instructions!r}"
        )
    if len(instructions) != len(sides):
        raise LayoutError(
            f"give one instruction per side (store first, then each load): {len(sides)} "
            f"names, got {len(instructions)}"
        )
    combo: list[_Kind | None] = []
    for i, (name, side) in enumerate(zip(instructions, sides)):
        instr = parse_instruction(name)
        if not instr.is_matrix:
            combo.append(None)
            continue
        if instr.store != (i == 0):
            raise LayoutError(f"{instr.name} is a {'store' if instr.store else 'load'}; "
                              f"side {i} is {'the store' if i == 0 else 'a load'}")
        if model.warp_log2 != 5 or model.hardware.row_bytes < 128:
            raise LayoutError(f"{instr.name} needs 32-lane warps and 128-byte rows of banks")
        matrix_geometry(instr, side.register, side.lane, model.element_bits)  # raises why not
        combo.append(_matrix_kind(instr, side, model, d))
    if any(combo):
        yield combo


def _build(prefix: list[int], sides: list[Distributed], regs: list[tuple[int, ...]],
           model: BankModel, d: int, node_limit: int,
           kinds: Sequence[_Kind | None] | None = None) -> _Plan | None:
    """Build the best layout whose offsets start with ``prefix`` (the vector, or a matrix row).

    ``kinds`` gives each side's matrix instruction (None: ld/st.shared). Returns None when a
    matrix side cannot use the resulting layout.
    """
    kinds = list(kinds) if kinds is not None else [None] * len(sides)
    kp = len(prefix)
    ks = [kp if kind else _prefix_len(prefix, r) for r, kind in zip(regs, kinds)]
    z = min(max(kp, model.within_word_bits), d)
    row = min(model.seg_lo, d)
    nbank = row - kp
    nseg = d - row
    lanes = [list(kind.geom.rows) if kind else f2.compose(s.lane, model.phase_lanes(k))
             for s, k, kind in zip(sides, ks, kinds)]
    # The first basis after the prefix must not extend the vector of a side that holds the
    # whole prefix in registers (and could still widen).
    avoid = [r for r, k, kind in zip(regs, ks, kinds)
             if not kind and k == kp and k < model.max_vector_log2]
    matrix = next((kind for kind in kinds if kind), None)
    def aligned_complement() -> list[int] | None:
        """A complement of the prefix holding the thread directions: those of the sides that
        hold the whole prefix first (they vectorise over all of it), then the others."""
        if matrix is not None:
            return list(matrix.aligned)
        if not kp:
            return None
        order = sorted(range(len(sides)), key=lambda i: ks[i] != kp)
        threads = [c for i in order for c in sides[i].lane + sides[i].warp + sides[i].block]
        t_basis = f2.extend_basis(prefix, threads)
        return t_basis + f2.extend_basis(prefix + t_basis, (1 << i for i in range(d)))

    # Sides whose vector is shorter than the prefix: Z ⊇ prefix no longer holds for them, so
    # search inside the aligned complement the non-prefix bases will span (exact there).
    uneven = bool(kp) and any(k < kp for k in ks)
    target = aligned_complement() if uneven or matrix is not None else None

    best: _Plan | None = None
    tries = 0
    for zcols, first_bank in _first_bank_choices(prefix, z, d, lanes, avoid):
        if uneven and target is not None:
            zcols = prefix + _project(zcols[kp:], prefix, target)
            w = model.within_word_bits
            xs = [list(f2.intersection(ln + zcols[:max(k, w)], target)) + zcols
                  for ln, k in zip(lanes, ks)]
        else:
            xs = [ln + zcols for ln in lanes]
        choice = best_segment(xs, zcols, d, nseg, node_limit=node_limit)
        seg = list(choice.segment)
        banks = list(zcols[kp:])
        if first_bank is not None and len(banks) < nbank:
            fb = first_bank(seg)
            if fb is None:
                continue
            banks.append(fb)
        flat_lanes = [v for ln in lanes for v in ln]
        banks += f2.extend_basis(prefix + banks + seg, _candidates(d, flat_lanes),
                                 limit=nbank - len(banks))
        seg.sort(key=lambda v: ((v & -v).bit_length(), v))
        cols = prefix + banks + seg
        inv = f2.inverse(cols)
        if kp and (matrix is not None or _misaligned(inv, sides, kp)):
            if target is None:
                target = aligned_complement()
            assert target is not None
            # Rows (matrix) or every thread's vector must start aligned: the thread (and row)
            # directions must lie in the span of the non-prefix bases. Project those bases
            # along the prefix onto the aligned complement; every side's X contains its Z,
            # so the conflicts do not change (the same argument as for Z in Lemma 9.5).
            rest = _project(banks + seg, prefix, target)
            banks, seg = rest[:len(banks)], rest[len(banks):]
            cols = prefix + banks + seg
            inv = f2.inverse(cols)
        try:
            reports = [_report_kind(cols, inv, s, r, kind, model, d)
                       for s, r, kind in zip(sides, regs, kinds)]
        except LayoutError:
            return None
        plan = _Plan(cols, nbank, reports, choice.lower_bounds, choice.exponents,
                     choice.proven, ks, choice.min_sum_degrees, choice.sum_witness)
        if best is None or plan.score() < best.score():
            best = plan
        tries += 1
        if plan.meets() or tries >= 32:
            break
    return best


def _misaligned(inv: list[int], sides: list[Distributed], kp: int) -> bool:
    """Whether some lane, warp or block direction has offset bits inside the prefix."""
    low = (1 << kp) - 1
    return any(f2.apply(inv, c) & low for s_ in sides for c in s_.lane + s_.warp + s_.block)


def _report_kind(cols: list[int], inv: list[int], side: Distributed, reg: tuple[int, ...],
                 kind: _Kind | None, model: BankModel, d: int) -> ConflictReport:
    """The side's exact report: ld/st.shared at its widest vector, or its matrix instruction."""
    if kind is None:
        return _report(cols, inv, side, reg, model, d)
    row_offs, row_bits = check_memory(kind.instr, kind.geom, inv, side.register, side.lane,
                                      side.warp, model.element_bits)
    reg_offs = [f2.apply(inv, c) for c in side.register]
    return count_matrix(kind.instr, row_offs, row_bits, reg_offs, model)


def _first_bank_choices(vec, z, d, lanes, avoid):
    """Yield ``(Z columns, first_bank)`` choices, best first.

    ``first_bank(seg)`` returns the first bank basis given the segment basis (or None when no
    candidate fits); it is None itself when Z already holds the first bank-dim basis.

    For sub-word elements the first bank-dim bases are the within-word bits (part of Z);
    otherwise the first bank basis is picked after the segment span. Either way the first
    basis after the vector should lie outside the register spans in ``avoid`` (so no side
    vectorises wider than planned); candidates that satisfy this come first, and a final
    unconstrained choice guarantees progress.
    """
    k = len(vec)
    if z > k:
        # Sub-word: choose the within-word extras now, the first outside the register spans;
        # lane directions every side shares come first (those lanes then share a word).
        # (a preference order only: common lane columns, then all lane columns)
        common_lanes = set(lanes[0]).intersection(*lanes[1:])
        prefer = sorted(common_lanes) + [v for ln in lanes for v in ln]
        seen = 0
        for first in _outside(_candidates(d, prefer), avoid + [f2.echelon(vec)]):
            zcols = vec + [first]
            zcols += f2.extend_basis(zcols, _candidates(d, prefer), limit=z - k - 1)
            if len(zcols) < z:
                continue
            yield zcols, None
            seen += 1
            if seen >= 8:
                break
        zcols = vec + f2.extend_basis(vec, _candidates(d, prefer), limit=z - k)
        yield zcols, None
        return

    flat = [v for ln in lanes for v in ln]

    def first_bank(avoid_spaces):
        def pick(seg):
            taken = f2.echelon(vec + seg)
            for c in _outside(_candidates(d, flat), avoid_spaces + [taken]):
                return c
            return None
        return pick

    yield vec, first_bank(avoid)
    for i in range(len(avoid)):
        yield vec, first_bank(avoid[:i] + avoid[i + 1:])
    if avoid:
        yield vec, first_bank([])
