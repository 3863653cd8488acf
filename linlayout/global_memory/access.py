"""The cost of a warp's global-memory access in closed form, and the public
:func:`global_access`.

When the placement is F₂-linear (a memory layout, or power-of-two strides without carries:
:mod:`.plan`) every hardware bit has an element-offset image and the offset of a (block,
warp, lane, register) position is the XOR of its bits' images. With the tensor's base a
multiple of the line size, the sector of element offset ``a`` is ``a >> s`` with ``s =
log2(sector_bytes / element_bytes)``, and ``x ↦ x >> s`` is F₂-linear too. One instruction
moves, in every lane, one aligned run of ``2^k`` elements (the vector), so its offsets are a
coset ``c ⊕ span(Λ ∪ {1, 2, …, 2^(k−1)})`` (``Λ`` the lane images) and its sectors the coset
``(c >> s) ⊕ span({v >> s})``:

    sectors per instruction = 2^rank({v >> s : v ∈ Λ ∪ {2^j : j < k}})

for every instruction of every warp (lines likewise with ``log2(line_bytes /
element_bytes)``). Instructions per warp are ``2^rank({r >> k : r ∈ R})`` (``R`` the
register images), the useful bytes ``2^rank(Λ ∪ R) · element_bytes``. Proof sketch and the
vector rule: ``docs/hardware-model.md`` (global memory). :mod:`.simulate` checks it by brute
force.
"""

from __future__ import annotations

from typing import Any

from .. import f2
from ..errors import LayoutError
from ..hardware.access import alignment_log2
from ..layout import LinearLayout
from .plan import GlobalPlan, plan_global, requested_vector_log2
from .report import GlobalAccessReport
from .simulate import simulate_plan

__all__ = ["global_access", "linear_global_access", "linear_vector_log2"]


def linear_vector_log2(plan: GlobalPlan, vector_elems: Any = None) -> int:
    """log2 of the vector of an F₂-linear placement: the widest ``k`` (at most
    :attr:`~linlayout.global_memory.plan.GlobalPlan.max_vector_log2`) with offsets ``1, 2, …,
    2^(k−1)`` in the span of the register images and the lane, warp and block images a
    multiple of ``2^k`` (:func:`linlayout.hardware.access.alignment_log2`: every thread's run
    starts aligned, in one register order) — the ``ld/st.shared`` rule of
    :mod:`linlayout.hardware.access` on global offsets. A requested width is checked instead.

    Raises:
        LayoutError: the placement is not F₂-linear, or a requested width is too wide, not
            held by one thread's registers, or not aligned in every thread.
    """
    if plan.images is None:
        raise LayoutError("the closed form needs an F2-linear placement (a layout, or "
                          "power-of-two strides without carries)")
    images = plan.images
    reg = [f2.apply(images, c) for c in plan.register]
    piv = f2.echelon(reg)
    held = 0
    while held < plan.max_vector_log2 and f2.reduce(1 << held, piv) == 0:
        held += 1
    aligned = alignment_log2(f2.apply(images, c) for c in plan.lane + plan.warp + plan.block)
    if vector_elems is None:
        return min(held, aligned)
    k = requested_vector_log2(vector_elems, plan)
    if k > held:
        raise LayoutError(f"vector_elems={vector_elems} is not possible: only the first "
                          f"{1 << held} consecutive offsets are held in one thread's registers")
    if k > aligned:
        raise LayoutError(f"vector_elems={vector_elems} is not possible: a lane's (or warp's) "
                          f"run of offsets starts at a multiple of {1 << aligned} elements "
                          "only, so its vector would straddle two aligned blocks")
    return k


def linear_global_access(plan: GlobalPlan, vector_elems: Any = None) -> GlobalAccessReport:
    """The closed form (module docstring) on a planned access.

    Raises:
        LayoutError: as :func:`linear_vector_log2`, or a base aligned to less than a line
            (the counts then depend on the placement: enumerate).
    """
    if plan.base_alignment_bytes < plan.line_bytes:
        raise LayoutError("the closed form needs a base aligned to a whole line; enumerate "
                          "the placements instead")
    k = linear_vector_log2(plan, vector_elems)
    assert plan.images is not None
    images = plan.images
    lane = [f2.apply(images, c) for c in plan.lane]
    reg = [f2.apply(images, c) for c in plan.register]
    eb = plan.element_bytes
    s = (plan.sector_bytes // eb).bit_length() - 1
    ln = (plan.line_bytes // eb).bit_length() - 1
    moved = lane + [1 << j for j in range(k)]
    instructions = 1 << f2.rank([r >> k for r in reg])
    sectors = 1 << f2.rank([v >> s for v in moved])
    lines = 1 << f2.rank([v >> ln for v in moved])
    return GlobalAccessReport(
        element_bits=plan.element_bits,
        vector_elems=1 << k,
        instructions_per_warp=instructions,
        sectors_per_instruction=sectors,
        lines_per_instruction=lines,
        sectors_per_warp=instructions * sectors,
        lines_per_warp=instructions * lines,
        useful_bytes_per_warp=eb << f2.rank(lane + reg),
        useful_bytes_per_instruction=eb << f2.rank(moved),
        sector_bytes=plan.sector_bytes,
        line_bytes=plan.line_bytes,
        base_alignment_bytes=plan.base_alignment_bytes,
        method="closed form",
    )


def global_access(layout: LinearLayout, memory: Any, *, element_bits: int,
                  vector_elems: int | None = None, sector_bytes: int = 32,
                  line_bytes: int = 128, base_alignment_bytes: int = 256,
                  limit: int | None = None, lanes_per_warp: int = 32) -> GlobalAccessReport:
    """The exact cost of a warp's ``ld.global``/``st.global`` access: sectors, lines,
    instructions, useful bytes, efficiency.

    F₂-linear placements with a line-aligned base are counted in closed form (module
    docstring); anything else (general strides, a base aligned to less than a line) by
    enumeration (:func:`~linlayout.global_memory.simulate_global_access`), refused up front
    past ``limit`` steps.

    Args:
        layout: distributed layout (in dims among ``register, lane, warp, block``; at most
            ``lanes_per_warp`` lanes) — e.g. from :func:`linlayout.cute.tv_layout` for a CuTe
            thread-value layout.
        memory: where each tensor element sits, in elements: a
            :class:`~linlayout.LinearLayout` ``offset → tensor`` (a bijection onto the
            layout's tensor; a row-major or any F₂-linear layout), or one positive int stride
            per tensor dim in the layout's out-dim order (``offset = Σ stride_d · coord_d``).
        element_bits: 8, 16, 32 or 64.
        vector_elems: elements per lane per instruction; default the widest the rule allows
            (at most 16 bytes and the base alignment; offsets ``0 … 2^k−1`` of every thread's
            run in its registers, contiguous and aligned).
        sector_bytes: bytes per sector, a power of two ≥ 16 (default 32).
        line_bytes: bytes per cache line, a power of two ≥ ``sector_bytes`` (default 128).
        base_alignment_bytes: the tensor's first byte is a multiple of this power of two
            (default 256: ``cudaMalloc`` aligns to at least 256 bytes). Below ``line_bytes``
            the counts are the worst over the placements it allows, by enumeration.
        limit: work limit of the enumeration (default
            :data:`~linlayout.global_memory.simulate.MAX_GLOBAL_STEPS`).
        lanes_per_warp: lanes of one request: 32 (an NVIDIA warp, the default) or 64 (an
            AMD CDNA wavefront; pass ``sector_bytes=line_bytes=128`` to count the 128-byte
            vector-L1 cache lines one wave instruction touches, see ``docs/hardware-model.md``).

    Returns:
        A :class:`~linlayout.global_memory.GlobalAccessReport`.

    Raises:
        LayoutError: a layout that is not distributed, a memory that does not fit its tensor
            (not a bijection: :class:`~linlayout.NotInvertibleError`), bad strides or sizes,
            an impossible ``vector_elems``, or an enumeration over ``limit``.

    Source: CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory" (32-byte
    sectors, the transactions of a warp); PTX ISA ``ld``/``st`` (``.v2``/``.v4`` vectors, at
    most 128 bits, naturally aligned).
    """
    plan = plan_global(layout, memory, element_bits=element_bits, sector_bytes=sector_bytes,
                       line_bytes=line_bytes, base_alignment_bytes=base_alignment_bytes,
                       lanes_per_warp=lanes_per_warp)
    if plan.images is not None and plan.base_alignment_bytes >= plan.line_bytes:
        return linear_global_access(plan, vector_elems)
    return simulate_plan(plan, vector_elems, limit)
