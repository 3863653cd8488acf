"""Exact bank conflicts of one predicted instruction (cached).

Each :class:`~linlayout.check.shared_memory.Side` is counted with :func:`linlayout.bank_conflicts`
at its vector (``ld/st.shared``, ``cp.async``) or as its matrix instruction
(``ldmatrix``/``stmatrix``, a ``.trans`` one with its registers in Triton's order:
:func:`~linlayout.lowering.vectorise.triton_matrix_order`); instructions the counter does not model (AMD ``ds_read_tr``,
direct-to-LDS copies, private scratch without a layout, named TMA/MMA ops) are not counted.
Before counting, :func:`side_fault` checks that the instruction can run on its buffer
(:func:`linlayout.hardware.access.access_fault`: aligned vectors, no padding gap inside).
"""

from __future__ import annotations

from dataclasses import replace

from .._checks import as_int, instance_of
from ..conflicts import ConflictReport, bank_conflicts
from ..errors import LayoutError
from ..hardware.access import AccessFault, access_fault
from ..hardware.model import HardwareModel
from ..layout import LinearLayout
from ..layout.padded import PaddedLayout
from ..lowering.emitted import Emitted
from ..lowering.vectorise import triton_matrix_order
from .shared_memory import Side
from .shared_memory.predict import to_offsets
from .._memo import memoize

__all__ = ["access_kind", "count_side", "is_lane_access", "one_instruction_layout", "side_fault",
           "try_count"]


@memoize(8192)
def _count(dist: LinearLayout, memory: LinearLayout, bits: int, vector: int | None,
           instruction: str | None, hardware: HardwareModel) -> ConflictReport:
    if instruction and instruction != "ld.shared":
        return bank_conflicts(dist, memory, element_bits=bits, hardware=hardware,
                              instruction=instruction)
    return bank_conflicts(dist, memory, element_bits=bits, hardware=hardware,
                          vector_elems=vector, instruction=instruction)


def count_side(side: Side, hardware: HardwareModel) -> ConflictReport | None:
    """The :class:`~linlayout.ConflictReport` of one predicted instruction, or None when it
    is not a modelled lane access.

    A view of a padded buffer (``base_offset_elems``/``stage_shift_elems``) is counted at
    the allocation's origin: its addresses are the origin's plus one constant (the padded
    start), which keeps every lane's bank when it is a whole number of 4-byte words.

    One width of an access LLVM merged to several widths (:attr:`Side.starts`, from
    :func:`~linlayout.check.shared_memory.predict.after_llvm`) is counted instruction by
    instruction: each is one warp-wide ``ld/st.shared`` of ``vector_elems`` elements whose
    lane ``X`` (its lane/warp/block offset) moves the offsets ``X ⊕ start + j``; the counter
    sees it as a layout whose registers are the memory's offsets ``1, 2, …, vector_elems/2``
    (:func:`one_instruction_layout`). Its ``start`` is XORed into every lane's offset alike,
    which on a linear buffer moves each word to one fixed other word and each bank to one
    fixed other bank (bank and word are bits of the offset), so every instruction costs what
    the one at ``start = 0`` costs; the report is that instruction's, with
    ``instructions_per_warp`` the number of starts and ``bytes_per_warp`` their bytes.

    Raises:
        LayoutError: the layouts do not fit (the counter's message); a padded view starting
            inside a 4-byte word (its bank pattern differs from the origin's); merged
            instructions (``starts``) on a padded buffer (not modelled: padding is not linear,
            so instructions at different starts may differ).
    """
    e = side.emitted
    if side.dist is None or side.memory is None or e.counter == "" or e.per_thread is None:
        return None
    if isinstance(side.memory, PaddedLayout) and (side.base_offset_elems
                                                  or side.stage_shift_elems):
        pairs = side.memory.pairs
        start = side.base_offset_elems
        start += sum((start // i) * p for i, p in pairs) + side.stage_shift_elems
        if (start * e.element_bits) % 32:
            raise LayoutError(f"the view starts at bit {start * e.element_bits} of its "
                              "allocation, not on a 4-byte bank word: its lanes' bank "
                              "pattern is not the one counted at the origin")
    if side.starts:
        return _count_starts(side, hardware)
    if e.counter:
        # a .trans matrix pairs rows in the register Triton picks, not register 0
        dist = triton_matrix_order(side.dist, side.memory, e.element_bits, e.counter)
        return _shared(_count(dist, side.memory, e.element_bits, None, e.counter, hardware),
                       side.share)
    # a plain ld.shared is counted as a load (its return may be packed); anything else that
    # writes shared memory (st.shared, cp.async) as a store
    load = e.side == "load" and e.opcode.startswith("ld.shared")
    return _shared(_count(side.dist, side.memory, e.element_bits, e.vector_elems,
                          "ld.shared" if load else None, hardware), side.share)


def _shared(rep: ConflictReport, share: tuple[int, int]) -> ConflictReport:
    """``rep`` (the whole access) cut to the ``share = (part, whole)`` of its instructions one
    predicted kind makes (an AMD access of which LLVM pairs some: the singles and the halves
    of the ``ds_read2*``/``ds_write2*``). Every instruction of a linear buffer costs the
    same, so the part's wavefronts are its share of the whole's; a padded buffer whose
    instructions cost unevenly has no such share.

    Raises:
        LayoutError: the whole's instructions cost unevenly, or the share is not a whole
            number of instructions.
    """
    part, whole = share
    if part == whole:
        return rep
    if rep.uneven_wavefronts_per_warp is not None:
        raise LayoutError("its instructions cost unevenly on the padded buffer, so the "
                          "share LLVM paired has no one cost")
    if (rep.instructions_per_warp * part) % whole or (rep.bytes_per_warp * part) % whole:
        raise LayoutError(f"{part}/{whole} of {rep.instructions_per_warp} instructions is "
                          "not a whole number")
    return replace(rep, instructions_per_warp=rep.instructions_per_warp * part // whole,
                   bytes_per_warp=rep.bytes_per_warp * part // whole)


def one_instruction_layout(dist: LinearLayout, memory: LinearLayout,
                           vector_elems: int) -> LinearLayout:
    """The register layout of one warp-wide instruction whose lanes move ``vector_elems``
    consecutive offsets from their own lane/warp/block offset: ``dist``'s lanes, warps and
    blocks, and ``log2 vector_elems`` registers reaching the tensor elements at memory
    offsets ``1, 2, …, vector_elems/2`` (the columns of ``memory``'s first offset bits).

    Args:
        dist: a register layout (in dims among ``register, lane, warp, block``).
        memory: the buffer's linear layout (``offset`` in dim, or ``vector, bank, segment``
            [+ ``reps``], flattened in that order: :func:`~.shared_memory.predict.to_offsets`).
        vector_elems: a power of two, at most the buffer's size.

    Raises:
        LayoutError: ``vector_elems`` not a power of two within the buffer; arguments of the
            wrong type.

    Source: the address of lane ``X``'s element ``j`` in a vector aligned to its size is
    ``X ⊕ j`` (``j < vector_elems``), as ``lowerLdSt`` (Triton 3.9) and LLVM's merged access
    (:mod:`linlayout.lowering.llvm_merge`) address it.
    """
    instance_of(dist, LinearLayout, "dist")
    instance_of(memory, LinearLayout, "memory")
    v = as_int(vector_elems, "vector_elems")
    k = v.bit_length() - 1
    offs = list(to_offsets(memory).dim_columns("offset"))
    if v < 1 or v & (v - 1) or k > len(offs):
        raise LayoutError(f"vector_elems must be a power of two within the buffer's "
                          f"{1 << len(offs)} offsets, got {v}")
    columns: list[int] = []
    sizes: dict[str, int] = {}
    for name in dist.in_dim_names:
        if name == "register":
            columns += offs[:k]
            sizes[name] = v
        else:
            columns += list(dist.dim_columns(name))
            sizes[name] = dist.in_dims[name]
    if "register" not in sizes:
        columns = offs[:k] + columns
        sizes = {"register": v, **sizes}
    return LinearLayout.from_columns(columns, sizes, dict(dist.out_dims))


def _count_starts(side: Side, hardware: HardwareModel) -> ConflictReport:
    """:func:`count_side` of merged instructions (``side.starts``)."""
    e = side.emitted
    if not isinstance(side.memory, LinearLayout):
        raise LayoutError("instructions LLVM merged to several widths on a padded buffer are "
                          "not counted: padding is not linear, so instructions at different "
                          "starts may cost differently")
    assert side.dist is not None and e.vector_elems is not None
    one = one_instruction_layout(side.dist, side.memory, e.vector_elems)
    load = e.side == "load" and e.opcode.startswith("ld.shared")
    rep = _count(one, side.memory, e.element_bits, e.vector_elems,
                 "ld.shared" if load else None, hardware)
    n = len(side.starts)
    return replace(rep, instructions_per_warp=n * rep.instructions_per_warp,
                   bytes_per_warp=n * rep.bytes_per_warp)


def is_lane_access(side: Side) -> bool:
    """Whether ``side`` is an emitted instruction whose lanes address shared memory through a
    layout (a register layout and a buffer layout are known, a count per thread is
    predicted): its bank conflicts are expected to be counted. Private scratch without a
    layout (``tt.scan``, ``tt.histogram``, scalar atomics, ``tensormap_create``,
    ``tmem_alloc``) and named-only ops (TMA, MMA descriptors) are not."""
    e = side.emitted
    return (side.dist is not None and side.memory is not None and e.per_thread is not None
            and e.side in ("load", "store", "atomic"))


def access_kind(e: Emitted) -> str | None:
    """The :data:`~linlayout.hardware.access.ACCESS_INSTRUCTIONS` kind of an emitted
    instruction (its alignment rule), or None when it has none to check (AMD direct-to-LDS
    copies, whose lanes' LDS addresses follow from ``M0``, and named-only ops)."""
    op = e.opcode
    for kind in ("ldmatrix", "stmatrix", "ld.shared", "st.shared", "ds_read", "ds_write"):
        if op.startswith(kind):
            return kind
    if op.startswith("cp.async.c"):  # cp.async.ca / cp.async.cg, not the bulk (TMA) copies
        return "cp.async"
    return None


@memoize(4096)
def _fault(dist: LinearLayout, memory: LinearLayout | PaddedLayout, bits: int, vector: int,
           kind: str, warp_log2: int, base: int = 0, shift: int = 0) -> AccessFault | None:
    try:
        return access_fault(dist, memory, element_bits=bits, vector_elems=vector,
                            instruction=kind, warp_log2=warp_log2, base_offset_elems=base,
                            stage_shift_elems=shift)
    except LayoutError:  # not a vector access the rule applies to: the counter decides
        return None


def side_fault(side: Side, hardware: HardwareModel) -> AccessFault | None:
    """The first illegal vector of one predicted instruction on its buffer
    (:func:`linlayout.hardware.access.access_fault`: misaligned, or a padding gap inside a
    vector or ``ldmatrix``/``stmatrix`` row; a view checked at its offset in the
    allocation), or None when every vector is legal or the
    instruction has no alignment rule to check (:func:`access_kind`)."""
    e = side.emitted
    kind = access_kind(e)
    if side.starts:
        # LLVM merges only accesses it proves aligned to the merged size (llvm_merge)
        return None
    if not is_lane_access(side) or kind is None or e.vector_elems is None \
            or e.element_bits not in (8, 16, 32, 64):
        return None
    assert side.dist is not None and side.memory is not None
    return _fault(side.dist, side.memory, e.element_bits, e.vector_elems, kind,
                  hardware.warp_size.bit_length() - 1, side.base_offset_elems,
                  side.stage_shift_elems)


def try_count(side: Side, hardware: HardwareModel) -> tuple[ConflictReport | None, str]:
    """:func:`count_side`, with the error message instead of an exception."""
    try:
        return count_side(side, hardware), ""
    except LayoutError as exc:
        return None, str(exc)
