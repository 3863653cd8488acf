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
from typing import Any

from .. import f2
from .._checks import log2_exact
from ..errors import LayoutError
from ..layout import LinearLayout
from .kinds import distributed_columns, memory_columns, require_same_tensor
from .model import BankModel

__all__ = [
    "AccessPlan",
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
    mem_cols, offset_bits = memory_columns(memory, layout.out_dim_names)
    return AccessPlan(
        memory_cols=mem_cols,
        offset_bits=offset_bits,
        register=dist.register,
        lane=dist.lane,
        warp=dist.warp,
        block=dist.block,
    )


def alignment_log2(offsets: Iterable[int]) -> int:
    """Largest k such that every offset is a multiple of 2^k (zero offsets impose nothing;
    64 when all are zero).

    A vector of ``2^k`` elements is one instruction only if every thread's run starts on a
    multiple of ``2^k``: the element offsets of the lane, warp and block bits must have their
    low ``k`` bits clear (registers may mix in vector bits: the compiler renames them).
    """
    k = 64
    for x in offsets:
        if x:
            k = min(k, (x & -x).bit_length() - 1)
    return k


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
    inv = f2.inverse(plan.memory_cols)
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
