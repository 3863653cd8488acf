"""Op-by-op prediction of the shared-memory instructions Triton 3.9.0 emits for a TTGIR module.

:func:`~linlayout.check.shared_memory.ops.predict_access` turns one
:class:`~linlayout.triton.ttgir.Access` into the instructions of its lowering
(:class:`~linlayout.lowering.emitted.Emitted`) through the predictions here, each with the
register layout and the shared layout it moves (for the bank-conflict counter):

* ``local_alloc``/``local_store``/``local_load``/async copies: :mod:`linlayout.lowering.local`;
* ``convert_layout``: no shared memory when warps (and CTAs) keep their data (register moves
  and warp shuffles, Triton's ``cvtNeedsSharedMemory``), else the scratch layout of
  :mod:`linlayout.lowering.scratch`, the source side stored and the destination side loaded;
* private scratch (``tt.reduce`` across warps — ``ReduceOpToLLVM.cpp``
  ``storeWarpReduceToSharedMemory``/``accumulatePartialReductions``; ``tt.scan`` across warps
  — ``ScanOpToLLVM.cpp``: one predicated store of each warp's running total per chunk, then
  every thread reloads all warps' totals, on NVIDIA as LLVM leaves them in the PTX
  (:mod:`.scan`); ``tt.histogram`` — ``HistogramOpToLLVM.cpp`` (NVIDIA: the common lowering,
  one shared atomic per element; AMD: ``third_party/amd/.../HistogramOpToLLVM.cpp``, a
  warp-level histogram from ballots and one atomic per bin a lane owns);
  scalar ``tt.atomic_rmw``/``atomic_cas`` returning the old value through shared memory):
  :func:`predict_private`. ``tt.gather`` is named without a count;
* TMA copies, ``warp_group_dot``/``tc_gen5_mma`` (shared operands read through matrix
  descriptors) and tensor-memory ops: named, not counted — no lane addresses shared memory
  (``tmem_alloc`` reads the TMEM address back with one ``ld.shared.b32``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ... import f2
from ..._checks import as_int, instance_of, sequence_of, string
from ...errors import LayoutError
from ...hardware.lds import is_lds_instruction
from ...layout import LinearLayout
from ...layout.padded import PaddedLayout
from ...lowering.amd_pack import SLOT_PAIR_REASON
from ...lowering.convert import convert_path
from ...lowering.decompose import warp_broadcast_bits
from ...lowering.emitted import Emitted
from ...lowering.lds_pairs import lds_instructions
from ...lowering.llvm_merge import NO_SLP_CC, llvm_merged_accesses, merged_opcode
from ...lowering.local import ld_st, matrix, predict_async_copy, predict_local
from ...lowering.names import amd_lds, nvidia_ld_st
from ...lowering.vectorise import access_map, largest_vectorisation
from .reduce import kept_reloads, reduce_steps
from .scan import scan_shape, scan_sides
from ...lowering.round_trip_pack import round_trip_permutes
from ...lowering.scratch import ScratchPlan, drop_broadcast_registers, triton_scratch_layout
from ...lowering.shuffle import selector_select_keys
from ...lowering.target import Target
from ...lowering.vectorise import AccessMap, matrix_tile
from ...triton.ttgir import Access

__all__ = ["PERMUTE_BOUNDS", "Prediction", "Side", "add_permute_bounds", "amd_paired",
           "triton_emitted", "moved_bits", "predict_convert", "predict_copy",
           "predict_named", "predict_private", "prediction_pairs", "to_offsets"]

_NAMED_OPCODES = {
    "async_tma_copy_global_to_local":
        "cp.async.bulk.tensor.shared::cta.global.mbarrier::complete_tx::bytes",
    "async_tma_copy_local_to_global": "cp.async.bulk.tensor.global.shared::cta.bulk_group",
    "async_tma_gather": "cp.async.bulk.tensor.tile::gather4",
    "async_tma_scatter": "cp.async.bulk.tensor.tile::scatter4",
    "async_tma_reduce": "cp.reduce.async.bulk.tensor",
    "warp_group_dot": "wgmma.mma_async (shared operands through descriptors)",
    "tc_gen5_mma": "tcgen05.mma (shared operands through descriptors)",
    "tc_gen5_mma_scaled": "tcgen05.mma (shared operands through descriptors)",
    "tmem_load": "tcgen05.ld (tensor memory, not shared)",
    "tmem_store": "tcgen05.st (tensor memory, not shared)",
    "tmem_copy": "tcgen05.cp (tensor memory, not shared)",
}


@dataclass(frozen=True)
class Side:
    """One predicted instruction with what it moves.

    Attributes:
        emitted: the :class:`~linlayout.lowering.emitted.Emitted` instruction.
        dist: the register layout (broadcast registers kept), or None when not a lane access.
        memory: the shared layout it reads or writes (offset or vector/bank/segment/reps in
            dims; a :class:`~linlayout.PaddedLayout` for a ``padded_shared`` buffer), or None.
        base_offset_elems: for a view (``memdesc_subslice``) of a ``padded_shared`` buffer,
            the unpadded offset of its first element in the allocation (``dist`` is placed
            at the origin); 0 otherwise.
        stage_shift_elems: for a pipeline stage (``memdesc_index``) of a ``padded_shared``
            buffer, the padded element where its buffer starts; 0 otherwise.
        starts: for one width of an access LLVM merged to several widths (:func:`after_llvm`):
            the element offset constant of each of these instructions' first element in a
            thread's access (:attr:`~linlayout.lowering.llvm_merge.MergedAccess.instructions`:
            lane ``X`` moves ``X ⊕ start … X ⊕ start + vector_elems - 1``), one per
            instruction; ``dist`` then gives the lanes, warps and blocks only
            (:func:`linlayout.check.count.count_side` counts each instruction). ``()``
            otherwise: ``dist``'s registers make the instructions.
        share: ``(part, whole)``: this instruction makes ``part`` of the ``whole`` accesses
            (halves of a paired instruction counted as two) that ``dist`` describes — an AMD
            access of which LLVM pairs some (:func:`amd_paired`); ``(1, 1)`` otherwise. The
            bank counter counts ``dist`` and gives this side its share.
        triton: for an AMD access LLVM merged or paired (:func:`amd_paired`): the
            instruction Triton emitted for the whole access, the same object on every kind
            made of it (:func:`triton_emitted` joins them back); None otherwise.
    """

    emitted: Emitted
    dist: LinearLayout | None = None
    memory: LinearLayout | PaddedLayout | None = None
    base_offset_elems: int = 0
    stage_shift_elems: int = 0
    starts: tuple[int, ...] = ()
    share: tuple[int, int] = (1, 1)
    triton: Emitted | None = None


@dataclass(frozen=True)
class Prediction:
    """What one op lowers to.

    Attributes:
        sides: the instructions, stores before loads.
        note: how it was decided, or why nothing is counted.
        plan: Triton's scratch layout (converts through shared memory), else None.
        uses_shared: False for converts that stay in registers/shuffles and tensor-memory ops.
        analysed: False when the op's types were missing and nothing could be predicted.
        registers: instructions that stay in registers (warp shuffles, selects, byte
            permutes: :func:`linlayout.lowering.convert_path`), kept apart from ``sides`` (the
            shared-memory instructions).
        extra: facts beyond the instructions. For ``tt.scan``: ``"triton_loads"`` (Triton's
            own reloads, as its LLVM IR has them before LLVM's optimiser), ``"llvm_loads"``
            (what LLVM leaves of them, the loads ``sides`` counts on every target: the unused
            reload of the last total dropped and, on NVIDIA, consecutive totals merged into
            vectors — :mod:`.scan`) and
            ``"loads_after_llvm"`` (the scalar reloads kept before any merge). For a
            shuffle convert (and a reduce whose in-warp converts shuffle):
            ``"selector_selects"``, the keys of its selector selects
            (:func:`~linlayout.lowering.shuffle.selector_select_keys`), one per select counted
            in ``registers``. Where LLVM may spend fewer or more ``v_perm_b32`` than
            ``registers`` counts (AMD byte packing it does not decide from the TTGIR):
            :data:`PERMUTE_BOUNDS`, ``(fewer, more, reasons)`` (:func:`add_permute_bounds`).
    """

    sides: tuple[Side, ...] = ()
    note: str = ""
    plan: ScratchPlan | None = None
    uses_shared: bool = True
    extra: dict = field(default_factory=dict)
    analysed: bool = True
    registers: tuple[Emitted, ...] = ()


#: ``Prediction.extra`` key: ``(fewer, more, reasons)`` — the op's ``v_perm_b32`` per thread
#: in the final AMDGCN may be as few as its count minus ``fewer`` and as many as its count plus
#: ``more``, for the reasons named (a tuple of texts): LLVM packing bytes one way or another
#: (:func:`linlayout.lowering.amd_pack.pack_permute_bounds`,
#: :func:`linlayout.lowering.round_trip_pack.stored_word_bounds`)
PERMUTE_BOUNDS = "permute_bounds"


def prediction_pairs(pairs) -> list:
    """``pairs`` checked as the ``(Access, Prediction or LayoutError)`` pairs a kernel's
    predictions pass through (each rule that revises them takes and returns such a list),
    as a list.

    Raises:
        LayoutError: ``pairs`` is not a sequence, or an item is not such a pair.

    Source: this package's own convention (``linlayout.check.shared_memory.ops``).
    """
    sequence_of(pairs, tuple, "pairs")
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2 \
                or not isinstance(pair[1], (Prediction, LayoutError)):
            raise LayoutError(f"pairs must hold (Access, Prediction or LayoutError) pairs, got "
                              f"{pair!r:.80}")
        instance_of(pair[0], Access, "an access of pairs")
    return list(pairs)


def add_permute_bounds(pred: Prediction, fewer: int, more: int, reason: str) -> Prediction:
    """``pred`` with ``fewer``/``more`` added to its :data:`PERMUTE_BOUNDS` (and ``reason``
    to its reasons, once); ``pred`` itself when both are 0.

    Raises:
        LayoutError: ``pred`` not a Prediction; ``fewer`` or ``more`` not an int >= 0;
            ``reason`` not a string.

    Source: bookkeeping for the ranges of :func:`linlayout.lowering.amd_pack.
    pack_permute_bounds` and :func:`linlayout.lowering.round_trip_pack.
    round_trip_permute_bounds`.
    """
    instance_of(pred, Prediction, "pred")
    fewer, more = as_int(fewer, "fewer"), as_int(more, "more")
    string(reason, "reason")
    if fewer < 0 or more < 0:
        raise LayoutError(f"fewer and more must be >= 0, got {fewer}, {more}")
    if not fewer and not more:
        return pred
    f0, m0, why = pred.extra.get(PERMUTE_BOUNDS, (0, 0, ()))
    why = why if reason in why else (*why, reason)
    return replace(pred, extra={**pred.extra, PERMUTE_BOUNDS: (f0 + fewer, m0 + more, why)})


def moved_bits(element_bits: int, element_type: str = "") -> int:
    """Bits per element as Triton moves it: pointers 64, sub-byte types (``i1``) 8."""
    element_bits = as_int(element_bits, "element_bits")
    string(element_type, "element_type")
    if element_type.startswith("!tt.ptr"):
        return 64
    return max(8, element_bits)


def to_offsets(memory: LinearLayout) -> LinearLayout:
    """A scratch layout (vector/bank/segment/reps in dims) as one ``offset`` in dim.

    Raises:
        LayoutError: ``memory`` not a LinearLayout.
    """
    instance_of(memory, LinearLayout, "memory")
    if "offset" in memory.in_dims:
        return memory
    return LinearLayout.from_columns(memory.columns, {"offset": 1 << len(memory.columns)},
                                     dict(memory.out_dims))


def predict_copy(kind: str, dist: LinearLayout, memory: LinearLayout, element_bits: int,
                 target: Target, *, async_copy: bool = False, contiguity: int | None = None,
                 has_other: bool = False, buffer_op: bool = False,
                 kernel_terms: frozenset = frozenset()) -> Prediction:
    """A register ⇄ shared copy: ``kind`` ``"store"`` or ``"load"``; ``memory`` the whole
    allocation's layout (``dist`` already embedded in it). ``kernel_terms``: the leaf terms
    of the kernel's other lane/warp expressions (other copies' offsets, ``tt.make_range``
    indices: :func:`~linlayout.lowering.llvm_merge.expression_terms`); they decide the
    shape ``-O3`` gives this copy's, hence the alignment LLVM proves
    (:func:`~linlayout.lowering.llvm_merge.known_low_zeros`).

    Raises:
        LayoutError: the layouts do not fit together, or no instruction can move the access;
            an argument of the wrong type.
    """
    instance_of(target, Target, "target")
    m = access_map(dist, memory, element_bits)
    if async_copy:
        ems = predict_async_copy(m, target, contiguity, has_other, buffer_op)
        return Prediction(tuple(Side(e, dist, memory) for e in ems),
                          f"vector capped by contiguity {contiguity or 1}")
    return Prediction(after_llvm(Side(predict_local(kind, m, target), dist, memory), m,
                                 target, kernel_terms))


def after_llvm(side: Side, m: AccessMap, target: Target,
               kernel_terms: frozenset = frozenset()) -> tuple[Side, ...]:
    """``side`` as LLVM's NVPTX back end leaves it: Triton's ``ld/st.shared`` vectors merged
    by LLVM's ``LoadStoreVectorizer`` where a thread's neighbouring accesses line up
    (:func:`~linlayout.lowering.llvm_merge.llvm_merged_accesses`; LLVM's doing, not
    Triton's). Matrix instructions, AMD and unmerged accesses come back unchanged. When every
    access merges to one width, the side's register layout is re-based so that its first
    registers make the merged vector (the bank counter then sees the accesses LLVM emits);
    mixed widths (where LLVM's SLP vectoriser keeps some accesses apart: ``slp``, on every
    NVIDIA target but sm_80) come back as one side per width, each with the start of each of
    its instructions (:attr:`Side.starts`; no one register layout has every width's vectors,
    so :func:`linlayout.check.count.count_side` counts those instructions one by one). A view
    of a larger buffer is taken to start on a 16-byte boundary (its offset is not in ``m``).
    ``kernel_terms``: as :func:`predict_copy` says.

    Raises:
        LayoutError: ``m`` does not fit the side's vector (the model's message).
    """
    e = side.emitted
    if not target.is_nvidia:
        return amd_paired(side, m)
    if e.counter or not e.opcode.startswith(("ld.shared", "st.shared")) \
            or e.vector_elems is None:
        return (side,)
    merged = llvm_merged_accesses(m, e.vector_elems, slp=target.cc != NO_SLP_CC,
                                  kernel_terms=kernel_terms)
    if not merged.merged:
        return (side,)
    out = []
    mixed = len(merged.widths) > 1
    for w, per in merged.widths:
        em = ld_st(e.side, m, target, w)
        name = e.opcode if w == e.vector_elems else merged_opcode(e.side, w, e.element_bits)
        em = Emitted(em.side, name, per, w, em.element_bits, em.bytes_per_lane, em.counter)
        dist = side.dist
        if merged.vector_offsets and dist is not None:
            dist = _rebased(dist, m, merged.vector_offsets)
        starts = tuple(s for s, n in merged.instructions if n == w) if mixed else ()
        out.append(Side(em, dist, side.memory, side.base_offset_elems, side.stage_shift_elems,
                        starts))
    return tuple(out)


#: Triton's plain AMD LDS accesses, which LLVM may merge and pair (:func:`amd_paired`).
_PLAIN_LDS = frozenset(amd_lds(side, n) for side in ("load", "store")
                       for n in (1, 2, 4, 8, 16))


def amd_paired(side: Side, m: AccessMap,
               pads: tuple[tuple[int, int], ...] = ()) -> tuple[Side, ...]:
    """``side`` as LLVM's AMDGPU back end leaves it: Triton's ``ds_read``/``ds_write`` vectors
    of one thread merged where contiguous (``LoadStoreVectorizer``), and two ``b32``/``b64``
    accesses through one address register paired into a ``ds_read2*``/``ds_write2*``
    (``SILoadStoreOptimizer``) — :func:`~linlayout.lowering.lds_pairs.lds_instructions`;
    LLVM's doing, not Triton's. Other instructions come back unchanged. Each kind made is one
    side with its count per thread and :attr:`Side.triton` the access Triton emitted. When
    every kind moves one width per address, each side's ``share`` is its part of the
    accesses (halves of a paired instruction counted as two) and ``dist`` is re-based so
    that its first registers make that width's vector (the bank counter counts the whole
    access once and gives each kind its share); mixed widths come back with
    :attr:`Side.starts` (each address counted on its own).

    Raises:
        LayoutError: ``m`` not an access map, or the side's vector not a power of two
            whose registers ``m`` has (:func:`~linlayout.lowering.lds_pairs.
            lds_instructions`' message).

    Source: ``LoadStoreVectorizer.cpp`` and ``SILoadStoreOptimizer.cpp`` (LLVM's AMDGPU
    back end), as modelled in :mod:`linlayout.lowering.lds_pairs`.
    """
    e = side.emitted
    if e.vector_elems is None or e.per_thread is None or e.opcode not in _PLAIN_LDS:
        return (side,)
    kinds = lds_instructions(m, e.vector_elems, pads, store=e.side == "store")
    ebytes = e.bytes_per_lane // e.vector_elems
    if len(kinds) == 1 and not kinds[0].form and kinds[0].nbytes == e.bytes_per_lane:
        return (side,)
    widths = {k.nbytes for k in kinds}
    total = sum(len(k.starts) for k in kinds)
    dist = side.dist
    if len(widths) == 1 and dist is not None:
        (w,) = widths
        if w != e.bytes_per_lane and w // ebytes & (w // ebytes - 1) == 0:
            dist = _rebased(dist, m, tuple(1 << i for i in range((w // ebytes).bit_length()
                                                                  - 1)))
    out = []
    for k in kinds:
        halves = len(k.starts)
        # a paired instruction is counted as its halves (the half's mnemonic as the
        # counter, as for Triton's own accesses: linlayout.lowering.lds_pairs)
        half = amd_lds(e.side, k.nbytes)
        em = Emitted(e.side, k.opcode(e.side), k.count, k.nbytes // ebytes, e.element_bits,
                     k.nbytes * halves // k.count,
                     e.counter if half == e.opcode else
                     (half if is_lds_instruction(half) else None))
        if len(widths) == 1:
            out.append(replace(side, emitted=em, dist=dist, share=(halves, total), triton=e))
        else:
            out.append(replace(side, emitted=em, starts=k.starts, triton=e))
    return tuple(out)


def triton_emitted(sides, side: str | None = None) -> tuple[Emitted, ...]:
    """The instructions Triton emitted for ``sides`` (of one ``side``, ``"load"`` or
    ``"store"``, when given): the kinds :func:`amd_paired` made of one AMD access (LLVM's
    merges and ``ds_read2*``/``ds_write2*`` pairs) joined back into Triton's access — what
    the register models, which follow Triton's vectors, read.

    Raises:
        LayoutError: a side that is not a :class:`Side`.
    """
    out: list[Emitted] = []
    last: Emitted | None = None
    for s in sides:
        instance_of(s, Side, "side")
        e = s.emitted
        if side is not None and e.side != side:
            continue
        if s.triton is None:
            out.append(e)
            last = None
        elif s.triton is not last:
            out.append(s.triton)
            last = s.triton
    return tuple(out)


def _rebased(dist: LinearLayout, m: AccessMap, offsets: tuple[int, ...]) -> LinearLayout:
    """``dist`` with its register bases changed (same span) so that the first ones reach the
    element ``offsets`` in order; broadcast registers last."""
    cols = list(dist.dim_columns("register"))
    live = [c for c in cols if c]
    regs = list(m.registers)
    new, new_offs = [], []
    for o in offsets:
        mask = f2.solve(regs, o)
        c = 0
        for i, col in enumerate(live):
            if mask >> i & 1:
                c ^= col
        new.append(c)
        new_offs.append(o)
    for col, o in zip(live, regs):
        if not f2.in_span(o, new_offs):
            new.append(col)
            new_offs.append(o)
    new += [0] * (len(cols) - len(live))
    columns = []
    for name in dist.in_dim_names:
        columns += new if name == "register" else list(dist.dim_columns(name))
    return LinearLayout.from_columns(columns, dict(dist.in_dims), dict(dist.out_dims))


def needs_shared(src: LinearLayout, dst: LinearLayout) -> bool:
    """Whether a conversion goes through shared memory (Triton's ``cvtNeedsSharedMemory``).

    It does when a warp needs elements another warp holds — every element of warp ``w`` in
    ``dst`` must lie in ``src(w) + span(src registers, lanes)`` — or, inside a warp, when two
    or more register bases have to trade places with lanes (more than one mixed
    transposition in ``getWarpLayoutConvertDecomposition``: shuffles no longer pay).
    Registers only renamed, or one register/lane exchange and lane permutations, are done
    with registers and warp shuffles. Warp bases that differ (a source broadcast over some
    or all warp bits) stay in each warp only when they differ on broadcast warp bits alone
    and each difference is held by the source's lanes, not its registers
    (:func:`~linlayout.lowering.decompose.warp_broadcast_bits`; a warp basis the source
    does not broadcast, changed by source lanes, goes through shared memory in Triton 3.9).
    """
    def cols(layout: LinearLayout, dim: str) -> list[int]:
        return list(layout.dim_columns(dim))

    inner = cols(src, "register") + cols(src, "lane")
    span = f2.echelon(inner)
    for c in cols(dst, "register") + cols(dst, "lane"):
        if not f2.in_span(c, span):
            return True
    for dim in ("warp", "block"):
        a, b = cols(src, dim), cols(dst, dim)
        if len(a) != len(b):
            return True
        for x, y in zip(a, b):
            if not f2.in_span(x ^ y, span):
                return True
    if cols(src, "warp") != cols(dst, "warp") and not warp_broadcast_bits(src, dst):
        return True  # warp bases that differ by more than the source's lanes hold
    rs = [c for c in cols(src, "register") if c]
    rd = [c for c in cols(dst, "register") if c]
    mixed = f2.rank(rs + rd) - f2.rank(rd)
    return mixed >= 2


def _scratch_side(side: str, layout: LinearLayout, plan: ScratchPlan, tile: str, bits: int,
                  target: Target, wide_source: bool = False) -> tuple[Side, ...]:
    mem = to_offsets(plan.memory)
    m = access_map(layout, mem, bits)
    if tile != "ld/st":
        n = matrix_tile(m, tile == "matrix.trans")
        if n is not None:
            # each round lowers its own registers (transferWithinBlockSwizzling: one
            # lowerLdStMatrix call per rep), so the width is capped by a round's words
            n = min(n, max(1, m.registers_per_thread * bits // 32 // plan.reps))
            return (Side(matrix(side, m, n, tile == "matrix.trans"), layout, plan.memory),)
    v = largest_vectorisation(m)
    e = ld_st(side, m, target, v)
    # <2 x i16>, <2 x i8> are not packed, unless the two 16-bit elements are halves of 32-bit
    # registers: NVPTX then joins them with a prmt.b32 and stores one word
    if target.is_nvidia and bits < 32 and v == 2 and not (wide_source and bits == 16):
        op = "ld" if side == "load" else "st"
        e = Emitted(e.side, f"{op}.shared.v{v}.b{bits}", e.per_thread, v, bits,
                    e.bytes_per_lane, None)
    if plan.reps > 1:  # a barrier between rounds: LLVM merges nothing across them
        return (Side(e, layout, plan.memory),)
    return after_llvm(Side(e, layout, plan.memory), m, target)


def predict_convert(src: LinearLayout, dst: LinearLayout, element_bits: int,
                    target: Target, source_load: tuple[int, int] | None = None,
                    packed_source: bool = False, *, wide_source: bool = False,
                    source_values: tuple[str, ...] | None = None) -> Prediction:
    """A ``convert_layout``: nothing, register instructions (``source_load``,
    ``packed_source``, ``wide_source``, ``source_values``: see
    :func:`~linlayout.lowering.convert_path`), or
    Triton's scratch layout and its two sides, with the byte permutes packing and unpacking
    them (:func:`~linlayout.lowering.round_trip_pack.round_trip_permutes`).

    Raises:
        LayoutError: the layouts do not describe the same tensor; an argument of the wrong
            type.
    """
    instance_of(src, LinearLayout, "src")
    instance_of(dst, LinearLayout, "dst")
    instance_of(target, Target, "target")
    if not needs_shared(src, dst):
        pred = _in_registers(src, dst, element_bits, target, source_load, packed_source,
                             wide_source, source_values)
        if pred is not None:
            return pred
    plan = triton_scratch_layout(src, dst, element_bits,
                                 **target.scratch_options())
    lean_src = drop_broadcast_registers(src)
    st = _scratch_side("store", lean_src, plan, plan.store_tile, element_bits, target,
                       wide_source)
    ld = _scratch_side("load", drop_broadcast_registers(dst), plan, plan.load_tile,
                       element_bits, target)
    note = f"Triton's scratch layout: {plan.reps} round{'s' if plan.reps > 1 else ''}"
    packing = round_trip_permutes(
        lean_src, access_map(lean_src, to_offsets(plan.memory), element_bits),
        triton_emitted(st), triton_emitted(ld), element_bits, target,
        source_load, packed_source, wide_source=wide_source, source_values=source_values)
    return Prediction(st + ld, note, plan, registers=packing)


def _in_registers(src: LinearLayout, dst: LinearLayout, element_bits: int,
                  target: Target, source_load: tuple[int, int] | None = None,
                  packed_source: bool = False, wide_source: bool = False,
                  source_values: tuple[str, ...] | None = None) -> Prediction | None:
    """A convert that keeps each element in its warp: Triton's register or shuffle path with
    its register instructions (:func:`~linlayout.lowering.convert.convert_path`); None when
    Triton's decomposition at this element width, broadcasts dropped, still has two or more
    register/lane exchanges (it then goes through shared memory, which :func:`needs_shared`'s
    width-blind rank test can miss for 8/16-bit elements packed into words)."""
    try:
        path = convert_path(src, dst, element_bits, target, source_load,
                            packed_source=packed_source, wide_source=wide_source,
                            source_values=source_values)
    except LayoutError as exc:
        return Prediction((), f"stays within each warp: no shared memory; register "
                          f"instructions not predicted ({exc})", uses_shared=False)
    if path.path == "shuffle" and path.lowering is not None:
        low = path.lowering
        m = len(low.decomposition.transpositions)
        how = (f"{m} register/lane exchange{'s' if m != 1 else ''}"
               + ("" if low.decomposition.lane_perm_trivial else " and a lane permutation"))
        keys = selector_select_keys(low)
        pred = Prediction((), f"warp shuffles ({how}, Triton's {low.method} method): no shared "
                          "memory", uses_shared=False, registers=path.instructions,
                          extra={"selector_selects": keys} if keys else {})
        if path.permute_bounds is not None:
            n = (path.counts or {}).get("v_perm_b32", 0)
            lo, hi = path.permute_bounds
            pred = add_permute_bounds(pred, n - lo, hi - n, SLOT_PAIR_REASON)
        return pred
    if path.path == "registers" and path.instructions:
        return Prediction((), "registers renamed in each thread with byte permutes (AMD's "
                          "8-bit in-thread swap): no shared memory", uses_shared=False,
                          registers=path.instructions)
    if path.path in ("none", "registers"):
        return Prediction((), "registers renamed in each thread: no instructions, no shared "
                          "memory", uses_shared=False)
    if path.path == "shared":
        return None
    return Prediction((), "stays within each warp: no shared memory; register instructions "
                      "not predicted", uses_shared=False)


def _crosses_warps(layout: LinearLayout, axis: int) -> bool:
    names = layout.out_dim_names
    key = f"dim{axis}"
    if key not in names:
        return False
    k = names.index(key)
    return any(img[k] for img in layout.bases.get("warp", []))


def predict_private(op: str, operand: LinearLayout | None, result: LinearLayout | None,
                    element_bits: int, target: Target, axis: int | None,
                    operands: int = 1, operand_bits: tuple[int, ...] = (),
                    results_used: tuple[bool, ...] = (),
                    combine: tuple[frozenset[int], ...] | None = None) -> Prediction:
    """The private scratch of ``tt.reduce``, ``tt.scan``, ``tt.histogram`` and scalar
    atomics.

    ``tt.reduce`` is lowered as Triton does (:mod:`.reduce`): its cross-warp rounds and the
    move to the result layout are ``convert_layout``s, each predicted by
    :func:`predict_convert` (scratch layout, instructions and their layouts, so their bank
    conflicts are counted) once per operand, ``operand_bits`` giving each operand's moved
    bits (default ``element_bits`` for all ``operands``). When some results are unused
    (``results_used``, per result; ``combine``: the operands each result depends on), the
    reloads Triton's lowering leaves dead are not counted (:func:`.reduce.kept_reloads`).
    The other ops' scratch has no layout in the TTGIR: counts only, not bank conflicts.

    Raises:
        LayoutError: a reduce axis outside the operand, or layouts that do not fit.
    """
    def st_ld(side: str, v: int, per: int, bits: int) -> Emitted:
        nbytes = v * bits // 8
        if target.is_nvidia:
            name = nvidia_ld_st(side, v, bits)
        else:
            name = amd_lds(side, nbytes)
        return Emitted(side, name, per, v, bits, nbytes, "")

    if op == "reduce":
        if operand is None or axis is None:
            return Prediction((), "not analysed: missing types", analysed=False)
        return _predict_reduce(operand, result, axis, operand_bits or (element_bits,) * operands,
                               target, results_used, combine)
    if op == "scan":
        if operand is None or axis is None or not _crosses_warps(operand, axis):
            return Prediction((), "scanned within each warp (shuffles): no shared memory",
                              uses_shared=False)
        shape = scan_shape(operand, axis)
        nbits = operand_bits or (element_bits,) * operands
        stores, loads, after = scan_sides(shape, nbits, target)
        kept = (shape.outputs * shape.chunks * shape.warps - shape.outputs) * len(nbits)
        note = ("each warp's running totals stored (one thread per warp and chunk), every "
                "thread reloads all warps' totals; loads as the final assembly runs them: "
                f"LLVM drops the {shape.outputs * len(nbits)} unused reload(s) of the last "
                "total")
        if target.is_nvidia and shape.uniform:
            note += " and merges each chunk's consecutive totals into vector loads"
        elif not target.is_nvidia:
            note += (", stores and reloads merged and paired as AMDGPU's back end does "
                     "(ds_read2*, ds_read_b96/b128)")
        return Prediction(tuple(Side(e) for e in stores + after), note,
                          extra={"loads_after_llvm": kept,
                                 "triton_loads": tuple(loads),
                                 "llvm_loads": tuple(after)})
    if op == "histogram":
        if operand is None or result is None:
            return Prediction((), "not analysed: missing types", analysed=False)
        r_out = 1 << len([b for b in result.bases.get("register", []) if any(b)])
        if target.is_nvidia:  # one atomic per element (HistogramOpToLLVM.cpp)
            atom = "atom.relaxed.sys.shared.add.u32"
            per_thread = 1 << len([b for b in operand.bases.get("register", []) if any(b)])
            how = "shared atomics per element"
        else:  # AMD's own lowering: a warp-level histogram from ballots, one atomic per
            # bin a lane owns (the bins padded to one per lane)
            atom = "ds_add_u32"
            lanes = target.threads_per_warp
            per_thread = max(1 << result.total_out_bits, lanes) // lanes
            how = "a warp-level histogram (ballots), shared atomics per bin a lane owns"
        return Prediction((Side(st_ld("store", 1, r_out, 32)),
                           Side(Emitted("atomic", atom, per_thread, 1, 32, 4, "")),
                           Side(st_ld("load", 1, r_out, 32))),
                          f"bins zeroed, {how}, bins read back")
    if op in ("atomic_rmw", "atomic_cas"):
        if operand is not None:
            return _tensor_atomic(result or operand, element_bits, target)
        bits = max(32, element_bits)
        name = "st.shared::cta.b32" if target.is_nvidia and bits == 32 else None
        st = st_ld("store", 1, 1, bits)
        if name:
            st = Emitted("store", name, 1, 1, bits, bits // 8, "")
        return Prediction((Side(st), Side(st_ld("load", 1, 1, bits))),
                          "the old value is broadcast to all threads through shared memory")
    return Prediction((), f"tt.{op}: scratch not predicted (named only)")


def _row_major(out_dims: dict[str, int]) -> LinearLayout:
    """offset → tensor index, the last dim fastest (an unswizzled scratch buffer)."""
    names = list(out_dims)
    bases = []
    for d in reversed(range(len(names))):
        for k in range(out_dims[names[d]].bit_length() - 1):
            v = [0] * len(names)
            v[d] = 1 << k
            bases.append(v)
    return LinearLayout({"offset": bases}, out_dims)


def _tensor_atomic(layout: LinearLayout, element_bits: int, target: Target) -> Prediction:
    """A tensor ``tt.atomic_rmw``/``atomic_cas`` whose old value is used: where warps (or
    blocks) hold copies of one element, only one thread issues its atomic, so the old
    values go through a scratch buffer of the whole tensor (last dim fastest): each thread
    stores its distinct elements, a barrier, each thread loads them back, both vectorised as
    a plain ``ld/st.shared`` of the registers contiguous in the buffer (at most 16 bytes).
    Copies only among the lanes of a warp are exchanged by shuffles, without shared memory.
    Source: the allocator's scratch for atomics (``getRepShapeForAtomic`` in
    ``Allocation.cpp``) and the lowering's result broadcast after ``AtomicRMWOpConversion``/
    ``AtomicCASOpConversion`` (``LoadStoreOpToLLVM.cpp``), Triton 3.9; checked on compiled
    kernels (``papers/global_memory/heldout.py``)."""
    masks = layout.free_variable_masks()
    if not (masks.get("warp") or masks.get("block")):
        return Prediction((), "tensor atomic: no warp holds a copy of another's element (no "
                          "shared memory)", uses_shared=False)
    bits = max(8, element_bits)
    m = access_map(layout, _row_major(dict(layout.out_dims)), bits)
    v = largest_vectorisation(m, permute=False)
    st = ld_st("store", m, target, v)
    if target.is_nvidia:  # Triton stores through its own inline st.shared::cta
        st = replace(st, opcode=st.opcode.replace("st.shared", "st.shared::cta"))
    return Prediction((Side(st), Side(ld_st("load", m, target, v))),
                      "the old values are broadcast to the warps holding copies through "
                      "shared memory")


def _predict_reduce(operand: LinearLayout, result: LinearLayout | None, axis: int,
                    bits: tuple[int, ...], target: Target,
                    results_used: tuple[bool, ...] = (),
                    combine: tuple[frozenset[int], ...] | None = None) -> Prediction:
    steps = reduce_steps(operand, result, axis)
    per_step = [[predict_convert(src, dst, b, target) for b in bits] for _, src, dst in steps]
    shared = [any(p.uses_shared for p in ps) for ps in per_step]
    if len(results_used) != len(bits):
        results_used = ()
    kept = kept_reloads([k for k, _, _ in steps], shared, results_used,
                        combine if combine is None or len(combine) == len(bits) else None,
                        len(bits), dead_shuffles_removed=not target.is_nvidia)
    sides: list[Side] = []
    dropped = 0
    for ps, keep in zip(per_step, kept):
        for k, p in enumerate(ps):
            for side in p.sides:
                if side.emitted.side == "load" and k not in keep:
                    dropped += 1
                    continue
                sides.append(side)
    rounds = sum(shared)
    if not sides:
        return Prediction((), "reduced within each warp (shuffles): no shared memory",
                          uses_shared=False)
    note = (f"partial results exchanged through scratch: {rounds} "
            f"convert_layout{'s' if rounds > 1 else ''} (store, barrier, load)")
    if dropped:
        note += (f"; {dropped} reload{'s' if dropped > 1 else ''} of unused results dropped "
                 "(dead code)")
    return Prediction(tuple(sides), note)


def predict_named(op: str, target: Target) -> Prediction:
    """TMA copies, MMA operand reads and tensor-memory ops: named, not counted.

    Raises:
        LayoutError: ``op`` not a string or ``target`` not a Target.
    """
    string(op, "op")
    instance_of(target, Target, "target")
    if op == "tensormap_create":
        if not target.is_nvidia:
            return Prediction((), "no shared memory on this target", uses_shared=False)
        e = Emitted("store", "st.shared::cta.b32", 1, 1, 32, 4, "")
        return Prediction((Side(e),), "the 128-byte TMA descriptor is staged in shared memory "
                                      "(one elected thread)")
    if op == "tmem_alloc":
        e = Emitted("load", "ld.shared.b32", 1, 1, 32, 4, "")
        return Prediction((Side(e),), "tcgen05.alloc writes the TMEM address to shared memory; "
                                      "every thread reads it back")
    name = _NAMED_OPCODES.get(op, op)
    tensor_memory = op.startswith("tmem")
    e = Emitted("none", name, None, None, 0, 0, "")
    return Prediction((Side(e),), "tensor memory, not shared memory" if tensor_memory else
                      "issued through descriptors: no per-lane shared-memory addresses",
                      uses_shared=not tensor_memory)
