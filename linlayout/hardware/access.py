"""The ``ld/st.shared`` access rule: which vector a warp access uses, and its alignment.

One rule, used by the bank-conflict counters (:mod:`linlayout.conflicts`) and by the swizzle
synthesizer (:mod:`linlayout.synthesis.plans`) so that a synthesized plan is counted exactly as
:func:`linlayout.bank_conflicts` counts it:

* a lane moves ``2^k`` consecutive elements in one instruction only if memory offsets
  ``0 … 2^k−1`` are held in one thread's registers (:func:`widest_vector_log2`),
* every thread's run of ``2^k`` offsets starts on a multiple of ``2^k``: the offsets of the
  lane, warp and block bits have their low ``k`` bits clear (:func:`alignment_log2`; registers
  may mix in vector bits, the compiler renames them),
* and ``2^k · element_bits`` fits the widest access of the hardware model (128 bits on NVIDIA).

:func:`access_fault` is the legality rule of an emitted access on a (possibly padded) buffer:
every vector (or ``ldmatrix``/``stmatrix`` row) must start at a byte address that is a
multiple of its size and hold its elements at consecutive addresses (no padding gap inside);
it names the first (warp, lane, register) that breaks it.

:func:`default_vector_log2` is the widest vector the rule allows; :func:`check_vector` checks a
requested one; :func:`plan_access` and :func:`plan_vector` apply both to a (distributed
layout, memory layout) pair. :func:`warp_bytes` is what such an access moves.

Source: Triton's ``largestVectorisation`` (``TritonGPUToLLVM/Utility.cpp``), which
``lowerLocalLdSt`` uses to pick the vector of a shared-memory access, and the vector forms of
``ld.shared``/``st.shared`` (PTX ISA, ``ld``/``st``: ``.v2``/``.v4``, at most 128 bits).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import reduce
from operator import or_
from typing import Any

from .. import f2
from .._checks import log2_exact
from .._memo import memoize
from ..errors import LayoutError
from ..layout import LinearLayout
from ..layout.padded import PaddedLayout, padding_vector_log2
from .kinds import distributed_columns, memory_columns, require_same_tensor
from .model import BankModel

__all__ = [
    "ACCESS_INSTRUCTIONS",
    "AccessFault",
    "AccessPlan",
    "access_fault",
    "alignment_log2",
    "check_vector",
    "default_vector_log2",
    "plan_access",
    "plan_vector",
    "warp_bytes",
    "widest_vector_log2",
]


@dataclass(frozen=True)
class AccessPlan:
    """A distributed layout and a shared-memory layout, validated and in flat-int form.

    Attributes:
        memory_cols: flattened tensor coordinate of each memory input bit: the offset bits
            first (element offsets), then block bits.
        offset_bits: how many of ``memory_cols`` are offset bits.
        register, lane, warp, block: flattened tensor coordinates of each input bit of the
            distributed layout; ``lane`` is zero-extended to the warp's lanes.
    """

    memory_cols: tuple[int, ...]
    offset_bits: int
    register: tuple[int, ...]
    lane: tuple[int, ...]
    warp: tuple[int, ...]
    block: tuple[int, ...]


def plan_access(layout: LinearLayout, memory: LinearLayout, warp_log2: int = 5) -> AccessPlan:
    """Validate a (distributed layout, shared-memory layout) pair; return it in flat form.

    Args:
        layout: distributed layout (in dims among ``register, lane, warp, block``).
        memory: shared-memory layout over the same out dims and sizes, a bijection
            (:func:`~linlayout.hardware.kinds.memory_columns`).
        warp_log2: log2 of the lanes of a warp (5 on NVIDIA, 6 on AMD).

    Raises:
        LayoutError: wrong in dims, mismatched out dims or sizes, too many lanes, or a memory
            layout that is not a bijection.
    """
    dist = distributed_columns(layout, "layout", warp_log2)
    require_same_tensor(layout, memory, "layout", "memory")
    if isinstance(memory, LinearLayout):
        mem_cols, offset_bits = _memory_columns(memory, layout.out_dim_names)
    else:  # refused, with the reason
        mem_cols, offset_bits = memory_columns(memory, layout.out_dim_names)
    return AccessPlan(
        memory_cols=mem_cols,
        offset_bits=offset_bits,
        register=dist.register,
        lane=dist.lane,
        warp=dist.warp,
        block=dist.block,
    )


@memoize(1024)
def _memory_columns(memory: LinearLayout, out_order: tuple[str, ...]
                    ) -> tuple[tuple[int, ...], int]:
    """:func:`~.kinds.memory_columns`, cached per buffer layout and out-dim order (every
    access counted on one buffer, and every candidate of a layout search, shares it)."""
    return memory_columns(memory, out_order)


@memoize(1024)
def _inverse(memory_cols: tuple[int, ...]) -> tuple[int, ...]:
    """:func:`linlayout.f2.inverse` of a validated buffer's columns, cached."""
    return tuple(f2.inverse(memory_cols))


def alignment_log2(offsets: Iterable[int]) -> int:
    """Largest k such that every offset is a multiple of 2^k (zero offsets impose nothing;
    64 when all are zero).

    A vector of ``2^k`` elements is one instruction only if every thread's run starts on a
    multiple of ``2^k``: the element offsets of the lane, warp and block bits must have their
    low ``k`` bits clear (registers may mix in vector bits: the compiler renames them).
    """
    # the lowest set bit of the OR is the lowest over the offsets (one C-level pass)
    every = reduce(or_, offsets, 0)
    return min(64, (every & -every).bit_length() - 1) if every else 64


def widest_vector_log2(memory_cols: Sequence[int], offset_bits: int,
                       register_basis: Sequence[int], model: BankModel,
                       align_log2: int = 64) -> int:
    """Largest k with memory offset bits 0..k-1 in span(registers), ``k ≤ align_log2``, and
    2^k·element_bits ≤ the widest access.

    Args:
        memory_cols: tensor coordinate (flat int) of each memory input bit, offset bits first.
        offset_bits: how many of ``memory_cols`` are offset bits.
        register_basis: :func:`linlayout.f2.echelon` basis of the register images.
        model: the bank model (its ``max_vector_log2``).
        align_log2: a further cap: :func:`alignment_log2` of the lane, warp and block
            offsets, or a cap set by padding.
    """
    piv = register_basis
    k = 0
    limit = min(model.max_vector_log2, offset_bits, align_log2)
    if sum(map(int.bit_count, piv)) == len(piv):  # unit vectors: the span is their bits
        outside = ~reduce(or_, piv, 0)
        while k < limit and not memory_cols[k] & outside:
            k += 1
        return k
    while k < limit and f2.reduce(memory_cols[k], piv) == 0:
        k += 1
    return k


def default_vector_log2(memory_cols: Sequence[int], offset_bits: int,
                        register_basis: Sequence[int], model: BankModel,
                        thread_offsets: Callable[[], Iterable[int]],
                        cap_log2: int = 64) -> int:
    """log2 of the vector an ``ld/st.shared`` access uses when none is requested: the widest
    the registers back (:func:`widest_vector_log2`), every thread's run of offsets aligns to
    (:func:`alignment_log2`) and ``cap_log2`` permits (e.g. padding).

    Args:
        memory_cols, offset_bits, register_basis, model: as :func:`widest_vector_log2`.
        thread_offsets: returns the element offsets of the lane, warp and block bits; called
            only when the registers back a vector (the alignment then matters).
        cap_log2: a further cap on the result.
    """
    k = widest_vector_log2(memory_cols, offset_bits, register_basis, model, cap_log2)
    if k:
        k = min(k, alignment_log2(thread_offsets()))
    return k


def check_vector(vector_elems: Any, memory_cols: tuple[int, ...], offset_bits: int,
                 register_cols: tuple[int, ...], model: BankModel, align_log2: int = 64) -> int:
    """Validate a requested vector width (elements per lane per instruction); return its log2.

    Args:
        vector_elems: the requested width, in elements.
        memory_cols, offset_bits, model: as :func:`widest_vector_log2`.
        register_cols: tensor coordinate of each register bit of the distributed layout.
        align_log2: :func:`alignment_log2` of the lane, warp and block offsets.

    Raises:
        LayoutError: not a power of two, wider than the widest access (128 bits on NVIDIA),
            not backed by registers, or not aligned in every thread.
    """
    k = log2_exact(vector_elems, "vector_elems")
    if k > model.max_vector_log2:
        raise LayoutError(
            f"vector_elems={vector_elems} of {model.element_bits}-bit elements exceeds the "
            f"{model.hardware.max_access_bytes * 8}-bit widest access; use at most "
            f"{1 << model.max_vector_log2}"
        )
    widest = widest_vector_log2(memory_cols, offset_bits, f2.echelon(register_cols), model)
    if k > widest:
        raise LayoutError(
            f"vector_elems={vector_elems} is not possible: only the first {1 << widest} "
            "consecutive offsets of the memory layout are held in one thread's registers"
        )
    if k > align_log2:
        raise LayoutError(
            f"vector_elems={vector_elems} is not possible: a lane's (or warp's) run of offsets "
            f"starts at a multiple of {1 << align_log2} elements only, so its vector would "
            "straddle two aligned blocks"
        )
    return k


def plan_vector(plan: AccessPlan, model: BankModel, vector_elems: Any = None,
                cap_log2: int = 64) -> tuple[list[int], list[int], int]:
    """The ``ld/st.shared`` vector of a planned access: ``(inverse memory columns, lane
    offsets, log2 of the vector)``. The default vector is :func:`default_vector_log2` (capped
    by ``cap_log2``); a requested one is checked (:func:`check_vector`).

    Raises:
        LayoutError: a requested vector that is not possible (:func:`check_vector`), or a lane
            bit that reaches another CTA's shared memory.
    """
    inv = list(_inverse(tuple(plan.memory_cols)))
    lane_offs = [f2.apply(inv, c) for c in plan.lane]

    def thread_offsets() -> list[int]:
        return lane_offs + [f2.apply(inv, c) for c in plan.warp + plan.block]

    if vector_elems is None:
        k = default_vector_log2(plan.memory_cols, plan.offset_bits, f2.echelon(plan.register),
                                model, thread_offsets, cap_log2)
    else:
        k = check_vector(vector_elems, plan.memory_cols, plan.offset_bits, plan.register, model,
                         alignment_log2(thread_offsets()))
    offset_mask = (1 << plan.offset_bits) - 1
    for i, x in enumerate(lane_offs):
        if x & ~offset_mask:
            raise LayoutError(
                f"lane bit {i} moves the access to another CTA's shared memory (memory 'block' "
                "bits); a warp's ld/st.shared addresses only its own CTA"
            )
    return inv, lane_offs, k


def warp_bytes(lane_offs: Sequence[int], reg_offs: Sequence[int], model: BankModel) -> int:
    """Distinct bytes one warp moves: ``2^rank(lane and register offsets)`` elements, in bytes
    (rounded up for sub-byte totals).

    Args:
        lane_offs, reg_offs: element offsets of each lane and register bit.
        model: the bank model (its ``element_bits``).
    """
    elems_log2 = f2.rank(list(lane_offs) + list(reg_offs))
    return -(-(model.element_bits << elems_log2) // 8)


#: The instructions :func:`access_fault` knows, with the byte sizes each may move per lane.
ACCESS_INSTRUCTIONS = {
    "ld.shared": (1, 2, 4, 8, 16),
    "st.shared": (1, 2, 4, 8, 16),
    "ldmatrix": (16,),
    "stmatrix": (16,),
    "cp.async": (4, 8, 16),
    "ds_read": (1, 2, 4, 8, 12, 16),
    "ds_write": (1, 2, 4, 8, 12, 16),
}


@dataclass(frozen=True)
class AccessFault:
    """The first illegal vector of an access (:func:`access_fault`).

    Attributes:
        warp, lane, register: the thread and the register (index of the distributed
            layout's ``register`` dim) holding the first element of the faulting vector (for
            ``ldmatrix``/``stmatrix``: of the faulting 16-byte row).
        byte_address: the byte address, from the CTA's buffer start, the instruction uses for
            that vector or row (its first element's padded offset times the element size).
        reason: why it is illegal (misaligned, or a padding gap inside the vector).
        block: the CTA (``block`` index) of that thread; 0 with one CTA.
    """

    warp: int
    lane: int
    register: int
    byte_address: int
    reason: str
    block: int = 0


def access_fault(layout: LinearLayout, memory: LinearLayout | PaddedLayout, *,
                 element_bits: int, vector_elems: int, instruction: str = "ld.shared",
                 warp_log2: int = 5, base_offset_elems: int = 0,
                 stage_shift_elems: int = 0) -> AccessFault | None:
    """Whether every vector access of ``layout`` to ``memory`` is legal; the first one that
    is not, else None.

    The access moves, per lane and instruction, one *unit* of consecutive unpadded offsets
    ``x0 … x0 + u − 1`` (``x0`` a multiple of ``u``): the vector of ``vector_elems`` elements
    for ``ld/st.shared``, ``cp.async`` and AMD ``ds_read``/``ds_write``, one 16-byte row
    (``128 / element_bits`` elements, held by the registers and lanes together) for
    ``ldmatrix``/``stmatrix``. The instruction is issued at the byte address of the unit's
    first element, ``pad(x0) · element_bits / 8``, and moves ``u`` consecutive elements from
    there. It is legal when

    * that address is a multiple of the access size (``u · element_bits / 8`` bytes; 16 for a
      matrix row) — not required for AMD LDS, which ROCm runs in unaligned mode, and
    * the unit's elements are consecutive in the padded space: ``pad(x0 + u − 1) − pad(x0) =
      u − 1`` (no padding gap inside; otherwise the instruction moves a pad element and
      misses the last one).

    A :class:`~linlayout.LinearLayout` buffer has no padding: every unit is an aligned block
    of ``u`` elements, always legal. Units are searched block by block, then warp, lane and
    register, in increasing order; the first illegal one is returned.

    A view (``memdesc_subslice``) inside a larger allocation is checked where it lies:
    ``layout`` is placed at the allocation's origin and ``base_offset_elems`` is the unpadded
    offset of the view's first element; every unit's offsets are XORed with it (the view's
    coordinates and its origin's occupy disjoint bits, so XOR is addition), then padded. A
    base that is not a multiple of ``u`` makes every unit misaligned. A pipeline stage
    (``memdesc_index``) moves every padded offset by ``stage_shift_elems`` (the stage times
    the padded size of one buffer).

    Args:
        layout: distributed layout (in dims among ``register, lane, warp, block``).
        memory: the buffer: a shared-memory :class:`~linlayout.LinearLayout` (in dims
            ``offset[, block]``) or a :class:`~linlayout.PaddedLayout`, over ``layout``'s
            tensor.
        element_bits: bits per element as moved: 8, 16, 32 or 64.
        vector_elems: elements per lane per instruction (for ``ldmatrix``/``stmatrix``: the
            elements of one 16-byte row, ``128 / element_bits``).
        instruction: one of :data:`ACCESS_INSTRUCTIONS` (``"ld.shared"``, ``"st.shared"``,
            ``"ldmatrix"``, ``"stmatrix"``, ``"cp.async"``, ``"ds_read"``, ``"ds_write"``).
        warp_log2: log2 of the lanes of a warp (5 on NVIDIA, 6 on AMD).
        base_offset_elems: the unpadded offset of a view's first element in its allocation
            (0: the allocation itself), in ``[0, size of memory)``.
        stage_shift_elems: padded elements added to every address (a ``memdesc_index``
            stage's start), ``>= 0``.

    Returns:
        None when every unit is legal, else the :class:`AccessFault` of the first illegal one.

    Raises:
        LayoutError: the layouts do not fit (:func:`plan_access`); an unknown instruction; an
            ``element_bits`` outside 8/16/32/64; a ``vector_elems`` that is not a power of two
            or a size the instruction cannot move (``cp.async``: 4, 8, 16 bytes; ``ld/st``:
            at most 16); a unit whose elements the registers (for matrix rows: registers and
            lanes) do not hold — no such instruction exists for the access.

    Source: PTX ISA section 9.7.9.8 ``ld`` and 9.7.9.9 ``st`` ("the address must be naturally
    aligned to a multiple of the access size"; vectors ``.v2``/``.v4`` to their whole size),
    the ``ldmatrix``/``stmatrix`` sections (each row address 16-byte aligned, a row 16
    contiguous bytes), ``cp.async`` (4, 8 or 16 bytes, aligned to the copy size); Triton's
    ``applyPadding`` (the vector's address is its first element's padded offset) and
    ``lowerLocalLdSt``; for AMD, ``SH_MEM_CONFIG.alignment_mode = UNALIGNED`` set by the
    amdkfd driver (``update_qpd_v9``), so LDS vectors need no alignment.
    """
    if instruction not in ACCESS_INSTRUCTIONS:
        raise LayoutError(f"instruction must be one of {sorted(ACCESS_INSTRUCTIONS)}, "
                          f"got {instruction!r}")
    if isinstance(element_bits, bool) or element_bits not in (8, 16, 32, 64):
        raise LayoutError(f"element_bits must be 8, 16, 32 or 64, got {element_bits!r}")
    k = log2_exact(vector_elems, "vector_elems")
    matrix = instruction in ("ldmatrix", "stmatrix")
    nbytes = vector_elems * element_bits // 8
    if matrix:
        if element_bits > 32 or vector_elems * element_bits != 128:
            raise LayoutError(f"{instruction} moves 16-byte rows: vector_elems must be "
                              f"{128 // min(element_bits, 32)} for {element_bits}-bit elements")
    elif nbytes not in ACCESS_INSTRUCTIONS[instruction]:
        raise LayoutError(f"{instruction} cannot move {nbytes} bytes per lane "
                          f"(allowed: {ACCESS_INSTRUCTIONS[instruction]})")
    pairs: tuple[tuple[int, int], ...] = ()
    if isinstance(memory, PaddedLayout):
        pairs = memory.pairs
        linear = memory.linear
    else:
        linear = memory
    plan = plan_access(layout, linear, warp_log2)
    holders = plan.register + plan.lane if matrix else plan.register
    span = f2.echelon(holders)
    if k > plan.offset_bits or any(f2.reduce(plan.memory_cols[j], span)
                                   for j in range(k)):
        who = "registers and lanes" if matrix else "registers"
        raise LayoutError(f"no {instruction} of {vector_elems} elements exists for this access: "
                          f"a thread's {who} do not hold {vector_elems} consecutive offsets")
    n_offsets = 1 << plan.offset_bits
    if isinstance(base_offset_elems, bool) or not isinstance(base_offset_elems, int) \
            or not 0 <= base_offset_elems < n_offsets:
        raise LayoutError(f"base_offset_elems must be an int in [0, {n_offsets}), "
                          f"got {base_offset_elems!r}")
    aligned = not instruction.startswith("ds_")
    unit = 1 << k
    ebytes = element_bits // 8
    if isinstance(stage_shift_elems, bool) or not isinstance(stage_shift_elems, int) \
            or stage_shift_elems < 0:
        raise LayoutError(f"stage_shift_elems must be an int >= 0, got {stage_shift_elems!r}")
    base = base_offset_elems
    shift = stage_shift_elems
    base_ok = (base % unit == 0 and (shift * ebytes) % nbytes == 0) or not aligned
    if base_ok and (not pairs or padding_vector_log2(pairs) >= k):
        return None  # every interval, pad and the base a multiple of the unit: aligned

    def pad(x: int) -> int:
        return x + sum((x // i) * p for i, p in pairs) + shift

    def why(x0: int) -> str:
        x0 ^= base
        p0 = pad(x0)
        addr = p0 * ebytes
        if aligned and addr % nbytes:
            what = "row address" if matrix else "address"
            where = ""
            if base % unit:
                where = f": the view starts at element {base} of its allocation"
            elif (shift * ebytes) % nbytes:
                where = f": its buffer starts at padded element {shift}"
            return (f"{instruction} {what} {addr} is not a multiple of its {nbytes}-byte "
                    f"access{where} (misaligned)")
        end = pad(x0 + unit - 1)
        if end - p0 != unit - 1:
            return (f"the {unit}-element {'row' if matrix else 'vector'} at byte {addr} "
                    f"crosses a padding gap: its last element is at byte {end * ebytes}, "
                    f"not {(p0 + unit - 1) * ebytes} (it would move a pad element)")
        return ""

    bad = {x0: r for x0 in range(0, n_offsets, unit) if (r := why(x0))}
    if not bad:
        return None
    inv = f2.inverse(plan.memory_cols)
    mask = n_offsets - 1

    def offs(cols: tuple[int, ...]) -> list[int]:
        return f2.images([f2.apply(inv, c) for c in cols])

    regs, lanes, warps, blocks = (offs(plan.register), offs(plan.lane), offs(plan.warp),
                                  offs(plan.block))
    for b, bo in enumerate(blocks):
        for w, wo in enumerate(warps):
            for ln, lo in enumerate(lanes):
                t = bo ^ wo ^ lo
                for r, ro in enumerate(regs):
                    x = (t ^ ro) & mask
                    if x in bad:
                        return AccessFault(w, ln, r, pad(x ^ base) * ebytes,
                                           bad[x], b)
    return None
