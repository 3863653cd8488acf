"""Costing a shared-memory layout as a compiler lowers it, and synthesizing under that cost.

:func:`~linlayout.synthesize_swizzle` costs each side under the hardware model: the widest
vector the layout admits, plain ``ld/st.shared`` unless ``instructions=`` asks for a matrix
instruction. A compiler does not always emit that: Triton 3.9 lowers ``local_store`` /
``local_load`` through a ``#ttg.shared_linear`` layout with its own rules (``lowerLdStMatrix``
picks ``stmatrix`` on sm_90+ and ``ldmatrix`` on sm_75+ whenever the tile fits,
``largestVectorisation`` wants *single* registers on offsets ``1 … v/2``, gfx950 reads with
``ds_read_b64_tr_b16`` when lanes run along the contiguous dim; :mod:`linlayout.lowering`).

* :func:`lower_sides` — what each side of a transfer costs when Triton lowers it through a
  given layout: the instruction Triton emits (:class:`~linlayout.lowering.Emitted`) and its
  exact :class:`~linlayout.ConflictReport`.
* :func:`matrix_requests`, :func:`chunk_orders` and :func:`relaxed_bound` — what the
  lowered synthesis searches and what it proves: the matrix instructions the target has, the
  32-bit lane chunks Triton may pick for them, and the per-side bound that holds whatever
  chunk it picks.
* :func:`~linlayout.synthesis.synthesize.synthesize_lowered` (``synthesize_swizzle(...,
  lowering="triton")``) synthesizes under that cost.

**The lane's 32-bit chunk.** An ``ldmatrix``/``stmatrix`` row is 16 bytes: four lanes'
32-bit chunks. The hardware model (:func:`~linlayout.hardware.instructions.matrix_geometry`)
builds a layout whose chunk is the side's *first* ``c`` register columns (``c = log2(32 /
element_bits)``), in order. Triton 3.9's ``lowerLdStMatrix`` instead accepts *any* ``c``
single registers landing on offsets ``1 … 2^(c−1)``, in any order (``regPermForDivide`` before
``divideLeft``), so a layout whose chunk is other registers still lowers to the matrix
instruction. :func:`chunk_orders` reorders the sides' registers so that every chunk Triton
can pick comes first in some searched order; the hardware search on each order covers the
layouts with that chunk, and the least of their bounds covers them all.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from .. import f2
from ..conflicts import ConflictReport, bank_conflicts
from .._checks import instance_of
from ..errors import LayoutError
from ..hardware.instructions import all_variants
from ..hardware.kinds import memory_columns
from ..layout import LinearLayout
from ..lowering import AccessMap, Emitted, Target, access_map, predict_local
from ..lowering.target import target_for
from ..lowering.vectorise import triton_matrix_order
from .options import cost_bound, side_options
from .result import OptimalityBound, SideBound
from .transfer import Objective, Transfer

__all__ = ["LOWERINGS", "LoweredSide", "MAX_CHUNK_ORDERS", "chunk_orders", "lower_sides",
           "matrix_requests", "relaxed_bound", "resolve_target", "shared_counts",
           "sharing_counts"]

#: The cost models ``synthesize_swizzle(lowering=...)`` accepts.
LOWERINGS = ("hardware", "triton")

#: At most this many register orders (:func:`chunk_orders`) are searched per lowered
#: synthesis (about 2.5 ms each here); beyond it a few likely ones are, and the bound is
#: :func:`relaxed_bound`.
MAX_CHUNK_ORDERS = 64


@dataclass(frozen=True)
class LoweredSide:
    """One side of a transfer as a compiler lowers it through a layout.

    Attributes:
        side: ``"store"``, ``"load"`` or ``"load i"``.
        emitted: the instruction emitted, with its count per thread and vector
            (:class:`~linlayout.lowering.Emitted`).
        report: its exact :class:`~linlayout.ConflictReport` (at that instruction and
            vector).

    Source: Triton 3.9's ``local_store``/``local_load`` lowering (module docstring;
    :mod:`linlayout.lowering`).
    """

    side: str
    emitted: Emitted
    report: ConflictReport


def resolve_target(target: str | Target | None, transfer: Transfer) -> Target:
    """The :class:`~linlayout.lowering.Target` of a lowered synthesis: ``target`` parsed, or
    the transfer's hardware preset's (:func:`~linlayout.lowering.target.default_target`).

    Raises:
        LayoutError: an unknown target, or one whose warps do not match the hardware model.
    """
    return target_for(target, transfer.model.hardware)


def lower_sides(layout: LinearLayout, transfer: Transfer, target: Target
                ) -> tuple[LoweredSide, ...]:
    """Every side of ``transfer`` (store first) as Triton 3.9 lowers ``local_store`` /
    ``local_load`` through ``layout`` on ``target``, counted exactly on the transfer's
    hardware model.

    Args:
        layout: the shared-memory layout (in dims ``offset`` or ``vector, bank, segment``)
            over the transfer's tensor.
        transfer: the store, its loads and the element width.
        target: the compilation target (matrix instructions: ``ldmatrix`` sm_75+,
            ``stmatrix`` sm_90+; ``ds_read_b64_tr_b*`` on gfx950).

    Returns:
        One :class:`LoweredSide` per side.

    Raises:
        LayoutError: the layout does not fit the tensor, or Triton would emit an instruction
            the bank counter does not model; an argument of the wrong type.

    Source: ``lowerLocalLdSt`` / ``lowerLdStMatrix`` (``lib/Conversion/TritonGPUToLLVM``,
    ``third_party/nvidia``), ``largestVectorisation`` (``lib/Tools/LayoutUtils.cpp``).
    """
    instance_of(layout, LinearLayout, "layout")
    instance_of(transfer, Transfer, "transfer")
    instance_of(target, Target, "target")
    bits = max(8, transfer.element_bits)
    hw = transfer.model.hardware
    out = []
    names = ["store"] + (["load"] if len(transfer.loads) == 1
                         else [f"load {i}" for i in range(len(transfer.loads))])
    maps = _access_maps(layout, transfer, bits)
    for i, (name, dist) in enumerate(zip(names, (transfer.store, *transfer.loads))):
        kind = "store" if name == "store" else "load"
        m = access_map(dist, layout, bits) if maps is None else maps[i]
        e = predict_local(kind, m, target)
        if e.counter == "":
            raise LayoutError(f"Triton lowers the {name} to {e.opcode}, which the bank "
                              "counter does not model")
        if e.counter:
            # .trans: rows pair in the register Triton picks (triton_matrix_order)
            rep = bank_conflicts(triton_matrix_order(dist, layout, bits, e.counter), layout,
                                 element_bits=bits, hardware=hw, instruction=e.counter)
        else:
            rep = bank_conflicts(dist, layout, element_bits=bits, hardware=hw,
                                 vector_elems=e.vector_elems,
                                 instruction="ld.shared" if kind == "load" else "st.shared")
        out.append(LoweredSide(name, e, rep))
    return tuple(out)


def _access_maps(layout: LinearLayout, transfer: Transfer, bits: int
                 ) -> list[AccessMap] | None:
    """Every side's :func:`~linlayout.lowering.access_map` through ``layout``, read off the
    transfer's flat columns: a register, lane, warp or block basis lands at the memory
    layout's inverse applied to its tensor column (the composition ``access_map`` builds).
    None — compute them with ``access_map``, which also raises its errors — unless ``layout``
    is a bijection of offset bits alone (no ``block``) onto the store's tensor, with its out
    dims named as Triton names them."""
    store = transfer.store
    names = store.out_dim_names
    if sorted(layout.out_dim_names) != [f"dim{i}" for i in range(len(names))] or \
            dict(layout.out_dims_log2) != dict(store.out_dims_log2):
        return None
    try:
        cols, offset_bits = memory_columns(layout, names)
    except LayoutError:
        return None
    if offset_bits != len(cols):
        return None
    inv = f2.inverse(cols)
    d = len(cols)
    out = []
    for dist, side in zip(transfer.layouts, transfer.sides):
        lanes = side.lane[:dist.in_dims.get("lane", 1).bit_length() - 1]  # not zero-extended
        regs = f2.compose_unchecked(inv, [c for c in side.register if c], d)
        out.append(AccessMap(tuple(regs), tuple(f2.compose_unchecked(inv, lanes, d)),
                             tuple(f2.compose_unchecked(inv, side.warp, d)),
                             tuple(f2.compose_unchecked(inv, side.block, d)), bits))
    return out


def matrix_requests(transfer: Transfer, target: Target) -> list[str | None] | None:
    """Per side (store first), the ``instructions=`` request that lets the hardware search
    use every matrix instruction Triton 3.9 may emit on ``target`` for it: ``"auto"`` for the
    loads from sm_75 (``ldmatrix``) and for the store from sm_90 (``stmatrix``), None (plain
    ``ld/st.shared``) otherwise; None when no side has one (AMD, older NVIDIA, elements over
    32 bits).

    Source: ``lowerLdStMatrix`` is tried on sm_90+ for ``local_store`` and sm_75+ for
    ``local_load`` (``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM``, Triton 3.9).
    """
    instance_of(transfer, Transfer, "transfer")
    instance_of(target, Target, "target")
    if not target.is_nvidia or target.cc < 75 or transfer.element_bits > 32:
        return None
    return ["auto" if target.cc >= 90 else None] + ["auto"] * len(transfer.loads)


def _chunk_choices(register: tuple[int, ...], c: int) -> list[tuple[int, ...]]:
    """The ordered ``c``-tuples of a side's nonzero register columns (their indices)."""
    regs = [i for i, col in enumerate(register) if col]
    return list(itertools.permutations(regs, c)) if len(regs) >= c else [()]


def chunk_orders(transfer: Transfer, target: Target) -> tuple[list[Transfer], bool]:
    """The transfer with matrix-capable sides' registers reordered so that every 32-bit lane
    chunk Triton may pick comes first in some order (module docstring), and whether the list
    covers them all.

    A side that Triton may lower to ``ldmatrix``/``stmatrix`` on ``target``
    (:func:`matrix_requests`) with 8- or 16-bit elements can take as its chunk any ordered
    tuple of ``c`` nonzero register bases (``c = log2(32 / element_bits)``; a 16-bit
    ``.trans`` access's row-pair register is the first register too); 32-bit elements have
    no choice. The hardware search proves an access assignment impossible only from spans
    and from the matrix sides' rows (:func:`~.plans.chain_dims_ok`): an assignment depends on
    the chunks of the sides it gives a matrix instruction, and those sides must share one row,
    hence one chunk. So it suffices to search: the given order; each side with each of its
    chunks first (the others as given); and each chunk that several sides hold in registers,
    first on all of them. The least bound over these searches is the least over every
    combination of chunks.

    When there are more than :data:`MAX_CHUNK_ORDERS` of them the list holds the given order
    and, per side, the chunk made of registers every other side also holds (the chunk a
    common vector needs), and is marked incomplete.

    Returns:
        ``(transfers, complete)``; the given transfer is always first.

    Raises:
        LayoutError: an argument of the wrong type.
    """
    instance_of(transfer, Transfer, "transfer")
    instance_of(target, Target, "target")
    requests = matrix_requests(transfer, target)
    bits = transfer.element_bits
    if requests is None or bits not in (8, 16):
        return [transfer], True
    c = 2 if bits == 8 else 1
    nsides = len(transfer.sides)
    choices = [_chunk_choices(side.register, c) if req else []
               for side, req in zip(transfer.sides, requests)]
    combos: list[tuple[tuple[int, ...], ...]] = []
    for i, ch in enumerate(choices):
        for tup in ch:
            combos.append(tuple(tup if j == i else () for j in range(nsides)))
    shared: set[tuple[int, ...]] = set()
    for i, ch in enumerate(choices):
        regs = transfer.sides[i].register
        for tup in ch:
            cols = tuple(regs[t] for t in tup)
            if cols in shared:
                continue
            shared.add(cols)
            combo = []
            for j in range(nsides):
                rj = list(transfer.sides[j].register)
                combo.append(tuple(rj.index(x) for x in cols)
                             if choices[j] and all(x in rj for x in cols) else ())
            if sum(1 for t in combo if t) >= 2:
                combos.append(tuple(combo))
    complete = len(combos) + 1 <= MAX_CHUNK_ORDERS
    if not complete:
        combos = [tuple(t if j == i else () for j in range(nsides))
                  for i in range(nsides) for t in _common_chunk(i, transfer, c)]
    out = [transfer]
    # two orders are the same transfer exactly when every side's registers are in the same
    # order: keyed by the sides' register columns, each order is built once
    seen = {tuple(s.register for s in transfer.sides)}
    for combo in combos:
        tr = transfer.with_registers_first(combo)
        key = tuple(s.register for s in tr.sides)
        if key not in seen:
            seen.add(key)
            out.append(tr)
    return out, complete


def _common_chunk(index: int, transfer: Transfer, c: int) -> list[tuple[int, ...]]:
    """Side ``index``'s first ``c`` register bases that lie in every other side's register
    span, as a one-element list (empty when there are not ``c`` of them)."""
    sides = transfer.sides
    others = [f2.echelon(s.register) for j, s in enumerate(sides) if j != index]
    picked = [i for i, r in enumerate(sides[index].register)
              if r and all(f2.in_span(r, o) for o in others)]
    return [tuple(picked[:c])] if len(picked) >= c else []


#: The table of :func:`sharing_counts` in effect (None outside it).
_COUNTS: ContextVar[dict | None] = ContextVar("linlayout_shared_counts", default=None)


@contextmanager
def sharing_counts() -> Iterator[dict]:
    """Within this block, the searches of one transfer's chunk orders share their counts of
    the simple layouts (:func:`shared_counts`): the orders differ only in the order of a
    side's register columns, so each side of each simple layout is counted once — an
    ``ld/st.shared`` side's count depends on its register span, lanes, warps and blocks (not
    on its register order), a matrix side's on its instruction, geometry and columns, and the
    hardware model and tensor are the transfer's. Every search in the block must be over the
    same hardware model and tensor bits. Per thread and task (a context variable); nested
    blocks start a table of their own.

    Yields:
        The table (a dict, empty at the start), for inspection.
    """
    table: dict = {}
    token = _COUNTS.set(table)
    try:
        yield table
    finally:
        _COUNTS.reset(token)


def shared_counts() -> dict | None:
    """The table of the innermost :func:`sharing_counts` block in effect, or None outside
    one. Keys name what was counted (a tag first, then the memory columns and the side's
    columns that decide it); values are the counts."""
    return _COUNTS.get()


def relaxed_bound(transfer: Transfer, objective: Objective, target: Target
                  ) -> OptimalityBound:
    """What no layout beats when Triton lowers both sides on ``target``, whatever registers
    it puts in a matrix instruction's 32-bit chunk: every side at its own cheapest access
    (``ld/st.shared`` at any vector, the matrix instructions of :func:`matrix_requests`),
    with no check that one layout serves them all (:func:`~.options.cost_bound`). Each
    side's option bound is independent of the chunk (its instruction count and phase bound
    depend only on spans), so this holds for every chunk; it is reached less often than the
    search's bound, which also rules out assignments no layout serves.

    Raises:
        LayoutError: an argument of the wrong type.
    """
    instance_of(transfer, Transfer, "transfer")
    instance_of(objective, Objective, "objective")
    instance_of(target, Target, "target")
    requests = matrix_requests(transfer, target) or [None] * len(transfer.sides)
    model = transfer.model
    d = transfer.store.total_out_bits
    options = []
    for i, (side, req) in enumerate(zip(transfer.sides, requests)):
        matrix = all_variants(store=i == 0) if req else None
        options.append(side_options(i, side, tuple(f2.echelon(side.register)), model, d,
                                    matrix=matrix))
    key, chosen = cost_bound(options, transfer.weights, objective)
    waves, instrs = objective.totals(key)
    sides = []
    for name, o, side in zip(transfer.names, chosen, transfer.sides):
        warp_bytes = (transfer.element_bits << f2.rank([c for c in side.register + side.lane
                                                        if c])) // 8
        floor = -(-warp_bytes // model.hardware.row_bytes)
        sides.append(SideBound(side=name, instruction=o.instruction.name,
                               vector_elems=1 << o.vector_log2, degree=1 << o.bound_exponent,
                               wavefronts_per_warp=o.wavefronts_bound,
                               instructions_per_warp=o.instructions_per_warp,
                               wavefront_floor=floor))
    return OptimalityBound(objective=objective.name, weights=transfer.weights,
                           sides=tuple(sides), wavefronts_per_warp=waves,
                           instructions_per_warp=instrs, reached=False, method="per-side")
