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
sides at once. With several loads, :func:`linlayout.swizzle.segments.best_segment` searches exactly.

A compiler vectorises as wide as the memory layout allows: if the first bank basis lay in a
side's register span, that side would use wider vectors and different phases than planned.
The first basis after the vector is therefore chosen outside every register span whenever
such a vector exists, and the reports are always counted at the widest vectorisation the
result admits (exactly what :func:`linlayout.bank_conflicts` returns). With
``vectors="per_side"`` a side may instead be given a wider vector on purpose, when that lowers
the total cost.

:func:`synthesize_swizzle` runs in named stages: :func:`_read_sides` (validate the store and
the loads), :func:`_common_vector` (the widest aligned common register subspace),
:func:`_prefixes` (which first offsets to try: the vector, a pinned prefix, each side's wider
vector), :func:`_candidate_plans` (build a :class:`~.plans.Plan` for each, and for each
matrix-instruction combination), :func:`_choose` (the plan the objective prefers) and
:func:`_result` (the layout, the bound and the optimality claim).
"""


from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import f2
from ..errors import LayoutError
from ..hardware.instructions import DEFAULT, parse_instruction
from ..hardware.kinds import Distributed, distributed_columns, memory_columns, require_same_tensor
from ..hardware.model import BankModel, HardwareModel, bank_model
from ..layout import LinearLayout
from .plans import Plan, build_plan, kind_choices, side_report, widened_plans
from .result import OptimalityBound, SwizzleResult

__all__ = ["OptimalityBound", "SwizzleResult", "synthesize_swizzle"]

#: Values of ``vectors=``.
VECTOR_MODES = ("auto", "common", "per_side")


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
            allow, plain or ``.trans`` (:mod:`linlayout.hardware.instructions`); the combination with the
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
    store, sides = _read_sides(store, load, model)
    d = store.total_out_bits
    regs = [f2.echelon(s.register) for s in sides]
    vector = _common_vector(sides, regs, model, d)
    if isinstance(fixed, str):
        if instructions is not None or vectors == "per_side":
            raise LayoutError("fixed=<TMA mode> fixes the whole layout; it cannot be combined "
                              "with instructions= or vectors=")
        return _fixed_tma(fixed, store, sides, regs, model, d, vector.common_dim)
    pinned = _pinned(fixed, store, d)
    if pinned is not None and instructions is not None:
        raise LayoutError("fixed= pins the first offsets; it cannot be combined with instructions=")
    if pinned is not None and len(pinned) > min(model.seg_lo, d):
        raise LayoutError(
            f"fixed= pins {len(pinned)} offset bits but one row of banks holds "
            f"{min(model.seg_lo, d)}; pin at most that many"
        )
    prefixes = _prefixes(vector, pinned, vectors, sides, regs, model, d)
    base, plans = _candidate_plans(prefixes, vectors, instructions, sides, regs, model, d,
                                   node_limit)
    best = _choose(base, plans, vectors, instructions)
    return _result(best, base, vector, pinned is not None, store, model, d)


@dataclass(frozen=True)
class _Vector:
    """The common vector stage's outcome.

    Attributes:
        basis: the vector directions (flat tensor coordinates), at most the widest access.
        common_dim: ``dim(∩ Reg)`` over the sides.
        aligned_dim: how many of those avoid every lane/warp/block direction.
    """

    basis: list[int]
    common_dim: int
    aligned_dim: int


def _read_sides(store: Any, load: Any, model: BankModel) -> tuple[LinearLayout, list[Distributed]]:
    """Validate the store and every load; the store (its out-dim order is the result's) and
    each side's flat columns, store first, loads transposed to the store's out-dim order."""
    store, a = _side(store, "store", None, model.warp_log2)
    loads_in = [load] if isinstance(load, LinearLayout) or not isinstance(load, Sequence) \
        else list(load)
    if not loads_in:
        raise LayoutError("give at least one load layout")
    sides = [a]
    for i, ld in enumerate(loads_in):
        name = "load" if len(loads_in) == 1 else f"load {i}"
        require_same_tensor(store, ld, "store", name)
        sides.append(_side(ld, name, store.out_dim_names, model.warp_log2)[1])
    return store, sides


def _common_vector(sides: list[Distributed], regs: list[tuple[int, ...]], model: BankModel,
                   d: int) -> _Vector:
    """The widest common register subspace whose directions avoid every thread direction
    (each thread's run of ``2^k`` offsets must start on a multiple of ``2^k``), capped at the
    widest access."""
    common: tuple[int, ...] = regs[0]
    for r in regs[1:]:
        common = f2.intersection(common, r)
    threads = [c for s_ in sides for c in s_.lane + s_.warp + s_.block]
    blocked = f2.intersection(common, threads) if threads and common else ()
    common_sorted = f2.extend_basis(blocked, sorted(common))
    kmax = min(len(common_sorted), model.max_vector_log2, d)
    return _Vector(common_sorted[:kmax], len(common), len(common_sorted))


def _prefixes(vector: _Vector, pinned: list[int] | None, vectors: str,
              sides: list[Distributed], regs: list[tuple[int, ...]], model: BankModel,
              d: int) -> list[list[int]]:
    """The first offsets to build plans from: the common vector (or the pinned prefix), then,
    when ``vectors`` asks for it, each side's own wider vector.

    A side whose common-vector access is narrower than a bank word pays one wavefront per
    instruction, so a wider vector of its own can lower the total; otherwise a conflict-free
    layout already moves the data in the fewest wavefronts and only instructions could drop.
    """
    vec = vector.basis
    kmax = len(vec)
    prefixes = [vec] if pinned is None else [pinned]
    subword = (model.element_bits << kmax) < (1 << model.word_log2)
    if pinned is None and (vectors == "per_side" or (vectors == "auto" and subword)):
        for side, r in zip(sides, regs):
            own = f2.extend_basis([], side.lane + side.warp + side.block)  # its own threads
            extra = f2.extend_basis(vec + own, sorted(r),
                                    limit=min(model.max_vector_log2, d) - kmax)
            if extra:
                prefixes.append(vec + extra)
    return prefixes


def _candidate_plans(prefixes: list[list[int]], vectors: str, instructions: Any,
                     sides: list[Distributed], regs: list[tuple[int, ...]], model: BankModel,
                     d: int, node_limit: int) -> tuple[Plan, list[Plan]]:
    """``(base plan, every plan)``: the base plan on the first prefix, the widened plans on
    the others, and one plan per matrix-instruction combination (those that exist)."""
    base = build_plan(prefixes[0], sides, regs, model, d, node_limit)
    assert base is not None
    plans: list[Plan] = [base]
    if len(prefixes) > 1:
        plans += widened_plans(prefixes[1:], base, vectors, sides, regs, model, d, node_limit)
    for kinds in kind_choices(instructions, sides, model, d):
        prefix = list(next(k for k in kinds if k).geom.row)
        plan = build_plan(prefix, sides, regs, model, d, node_limit, kinds)
        if plan is not None:
            plans.append(plan)
    return base, plans


def _choose(base: Plan, plans: list[Plan], vectors: str, instructions: Any) -> Plan:
    """The plan the objective prefers.

    ``vectors="common"``: the base plan. ``"per_side"`` or any ``instructions``: the fewest
    (wavefronts, instructions) per warp. ``"auto"``: the base plan unless another takes
    strictly fewer wavefronts. Instructions given as a list with a matrix instruction: the
    first plan that uses them (LayoutError when none exists).
    """
    if vectors == "per_side" or instructions is not None:
        best = min(plans, key=lambda p: p.cost())
    elif vectors == "auto":
        best = min(plans, key=lambda p: (p.cost()[0], p is not base, p.cost()[1:]))
    else:
        best = base
    if isinstance(instructions, (list, tuple)) and any(
            parse_instruction(n).is_matrix for n in instructions):
        matrix_plans = [p for p in plans if any(r.instruction != DEFAULT for r in p.reports)]
        if not matrix_plans:
            raise LayoutError(
                f"no shared-memory layout serves the instructions {list(instructions)}: the "
                "matrix instructions need each 16-byte row in the order they deliver it, and "
                "the sides' rows disagree"
            )
        best = matrix_plans[0]
    return best


def _result(best: Plan, base: Plan, vector: _Vector, pinned: bool, store: LinearLayout,
            model: BankModel, d: int) -> SwizzleResult:
    """The chosen plan as a :class:`SwizzleResult`: the layout with in dims ``vector, bank,
    segment``, the bound (from the base plan: the widest common vector's segment bounds) and
    the optimality claim."""
    row = min(model.seg_lo, d)
    nseg = d - row
    # the vector every plain side actually uses (as counted), or a matrix row
    plain_k = [rep.vector_elems.bit_length() - 1 for rep in best.reports
               if rep.instruction == DEFAULT]
    nvec = min(min(plain_k) if plain_k else best.planned_k[0], row)
    layout = LinearLayout.unchecked(
        (("vector", nvec), ("bank", row - nvec), ("segment", nseg)),
        tuple((n, store.out_bits(n)) for n in store.out_dim_names),
        best.cols,
    )
    worst = max(base.optimum) if base.optimum else 0
    bound = OptimalityBound(
        vector_elems=1 << len(vector.basis),
        store_degree=1 << base.bounds[0],
        load_degrees=tuple(1 << b for b in base.bounds[1:]),
        worst_degree=1 << worst,
        proven=base.proven,
        sum_degrees=base.min_sum,
        sum_witness=base.sum_witness,
        common_dim=vector.common_dim,
        aligned_dim=vector.aligned_dim,
        access_bytes=model.hardware.max_access_bytes,
        nseg=nseg,
        nbits=d,
    )
    optimal = best.proven and (best.meets() or best.cost() < base.cost())
    if pinned:
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


def _side(layout: Any, name: str, out_order: tuple[str, ...] | None,
          warp_log2: int) -> tuple[LinearLayout, Distributed]:
    """Validate one side; return it (out dims in ``out_order``) and its flat columns."""
    if out_order is not None and isinstance(layout, LinearLayout):
        layout = layout.transpose_outs(out_order)
    return layout, distributed_columns(layout, name, warp_log2)


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
        reports = [side_report(cols, inv, s, r, model, d) for s, r in zip(sides, regs)]
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
