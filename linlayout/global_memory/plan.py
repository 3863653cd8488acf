"""Validated input of a global-memory access, and where each tensor element sits.

:func:`plan_global` checks a (distributed layout, global placement) pair and the memory
geometry once and returns a :class:`GlobalPlan`; both engines (:mod:`.access`, the closed
form, and :mod:`.simulate`, the brute force) start from it.

A placement is either

* a :class:`~linlayout.LinearLayout` from ``offset`` to the tensor (a bijection, like a
  shared-memory layout): element ``x`` of the tensor sits at element offset
  ``memory⁻¹(x)`` — F₂-linear, so the closed form applies; or
* strides, one positive int per tensor dim (in the layout's out-dim order), in elements:
  ``offset = Σ stride_d · coord_d``. That is affine over the integers, not over F₂ in
  general; it is F₂-linear exactly when every stride is a power of two and no two tensor bits
  land on the same offset bit (then the integer sum has no carries and equals the XOR) —
  :func:`linear_images` finds those images, and everything else is enumerated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import f2
from .._checks import as_int, log2_exact, shown
from ..errors import LayoutError
from ..hardware.kinds import distributed_columns, memory_columns, require_same_tensor
from ..layout import LinearLayout

__all__ = ["ELEMENT_BITS", "LANES_PER_WARP", "MAX_ACCESS_BYTES", "WARP_LOG2", "GlobalPlan",
           "element_offset",
           "linear_images", "plan_global", "requested_vector_log2"]

#: Element sizes a global access moves (``ld.global.b8`` … ``.b64``).
ELEMENT_BITS = (8, 16, 32, 64)
#: The widest per-lane global access: ``ld.global.v4.b32`` / ``.v2.b64`` (PTX ISA ``ld``).
MAX_ACCESS_BYTES = 16
#: log2 of the lanes of an NVIDIA warp.
WARP_LOG2 = 5
#: Lanes of one warp-level request: an NVIDIA warp (32) or an AMD CDNA wavefront (64).
LANES_PER_WARP = (32, 64)


@dataclass(frozen=True)
class GlobalPlan:
    """A distributed layout and a global placement, validated, in flat-int form.

    Attributes:
        register, lane, warp, block: the flattened tensor coordinate (dim0 of the layout's
            out dims in the low bits) of each input bit of the distributed layout; ``lane``
            zero-extended to the lanes of one request.
        out_bits: bits of each tensor dim, in the layout's out-dim order.
        memory_cols: the tensor coordinate of each ``offset`` bit when the placement is a
            layout (what the simulator inverts by enumeration), else None.
        images: when the placement is F₂-linear, the element offset of each flat tensor bit
            (offsets XOR); None otherwise.
        strides: the strides when the placement was given as strides, else None.
        element_bits: bits per element.
        sector_bytes, line_bytes, base_alignment_bytes: the memory geometry (powers of two).
    """

    register: tuple[int, ...]
    lane: tuple[int, ...]
    warp: tuple[int, ...]
    block: tuple[int, ...]
    out_bits: tuple[int, ...]
    memory_cols: tuple[int, ...] | None
    images: tuple[int, ...] | None
    strides: tuple[int, ...] | None
    element_bits: int
    sector_bytes: int
    line_bytes: int
    base_alignment_bytes: int

    @property
    def element_bytes(self) -> int:
        """Bytes per element."""
        return self.element_bits // 8

    @property
    def max_vector_log2(self) -> int:
        """log2 of the widest vector, in elements: 16 bytes, and no wider than the base
        alignment (an ``ld.global.v*`` address must be a multiple of its size)."""
        cap = min(MAX_ACCESS_BYTES, self.base_alignment_bytes)
        return max(0, (cap // self.element_bytes).bit_length() - 1)


def linear_images(strides: Sequence[int], out_bits: Sequence[int]) -> tuple[int, ...] | None:
    """The element offset of each flat tensor bit when ``offset = Σ stride_d · coord_d`` is
    F₂-linear, else None.

    Bit ``i`` of dim ``d`` adds ``stride_d · 2^i``. With power-of-two strides every such term
    is one bit; when no two terms share a bit, adding them never carries and the sum is their
    XOR — a linear map over F₂. Any other strides return None (enumerate instead).
    """
    images: list[int] = []
    seen = 0
    for s, n in zip(strides, out_bits):
        if s & (s - 1):
            return None
        for i in range(n):
            v = s << i
            if seen & v:
                return None
            seen |= v
            images.append(v)
    return tuple(images)


def element_offset(plan: GlobalPlan, coord: int) -> int:
    """The element offset of the flat tensor coordinate ``coord`` (integer arithmetic on the
    strides, or XOR of the linear images)."""
    if plan.strides is not None:
        out, shift = 0, 0
        for s, n in zip(plan.strides, plan.out_bits):
            out += s * ((coord >> shift) & ((1 << n) - 1))
            shift += n
        return out
    assert plan.images is not None
    return f2.apply(plan.images, coord)


def _geometry(sector_bytes: Any, line_bytes: Any, base_alignment_bytes: Any) -> tuple[int, ...]:
    sector = 1 << log2_exact(sector_bytes, "sector_bytes", lo=MAX_ACCESS_BYTES)
    line = 1 << log2_exact(line_bytes, "line_bytes", lo=sector)
    align = 1 << log2_exact(base_alignment_bytes, "base_alignment_bytes")
    return sector, line, align


def plan_global(layout: LinearLayout, memory: Any, *, element_bits: Any,
                sector_bytes: Any = 32, line_bytes: Any = 128,
                base_alignment_bytes: Any = 256, lanes_per_warp: Any = 32) -> GlobalPlan:
    """Validate a global access; return it as a :class:`GlobalPlan`.

    Args:
        layout: distributed layout (in dims among ``register, lane, warp, block``; at most
            ``lanes_per_warp`` lanes).
        memory: the tensor's placement: a :class:`~linlayout.LinearLayout` ``offset →
            tensor`` over the layout's tensor (a bijection, no ``block`` in dim), or one
            positive int stride per tensor dim, in elements, in the layout's out-dim order.
        element_bits: 8, 16, 32 or 64.
        sector_bytes: a power of two, at least 16 (32 on NVIDIA).
        line_bytes: a power of two, at least ``sector_bytes`` (128 on NVIDIA).
        base_alignment_bytes: a power of two: the tensor's first byte is a multiple of it.
        lanes_per_warp: the lanes of one request, 32 (an NVIDIA warp) or 64 (an AMD
            wavefront).

    Raises:
        LayoutError: any of the above violated (the message names the argument).
        NotInvertibleError: a memory layout that is not a bijection.
    """
    if isinstance(element_bits, bool) or element_bits not in ELEMENT_BITS:
        raise LayoutError(f"element_bits must be one of {list(ELEMENT_BITS)} for a global "
                          f"access, got {shown(element_bits)}")
    sector, line, align = _geometry(sector_bytes, line_bytes, base_alignment_bytes)
    if align * 8 < element_bits:
        raise LayoutError(f"base_alignment_bytes={align} is below the {element_bits // 8}-byte "
                          "element: every global access must be naturally aligned")
    if isinstance(lanes_per_warp, bool) or lanes_per_warp not in LANES_PER_WARP:
        raise LayoutError(f"lanes_per_warp must be 32 (an NVIDIA warp) or 64 (an AMD "
                          f"wavefront), got {shown(lanes_per_warp)}")
    dist = distributed_columns(layout, "layout", lanes_per_warp.bit_length() - 1)
    out_bits = tuple(layout.out_bits(n) for n in layout.out_dim_names)
    images: tuple[int, ...] | None
    strides: tuple[int, ...] | None = None
    memory_cols: tuple[int, ...] | None = None
    if isinstance(memory, LinearLayout):
        require_same_tensor(layout, memory, "layout", "memory")
        cols, offset_bits = memory_columns(memory, layout.out_dim_names)
        if offset_bits != len(cols):
            raise LayoutError("a global-memory layout has one address space: in dim 'offset' "
                              "only, no 'block'")
        images = tuple(f2.inverse(cols))
        memory_cols = cols
    elif isinstance(memory, (str, bytes)) or not isinstance(memory, Sequence):
        raise LayoutError("memory must be a LinearLayout (offset -> tensor) or a sequence of "
                          f"strides, one per tensor dim; got {type(memory).__name__}")
    else:
        if len(memory) != len(out_bits):
            raise LayoutError(f"memory gives {len(memory)} strides but the tensor has "
                              f"{len(out_bits)} dims {list(layout.out_dim_names)}")
        strides = tuple(as_int(s, f"stride {i}") for i, s in enumerate(memory))
        for i, s in enumerate(strides):
            if s < 1:
                raise LayoutError(f"stride {i} must be a positive number of elements, got {s}")
        images = linear_images(strides, out_bits)
    return GlobalPlan(register=dist.register, lane=dist.lane, warp=dist.warp, block=dist.block,
                      out_bits=out_bits, memory_cols=memory_cols, images=images, strides=strides,
                      element_bits=element_bits, sector_bytes=sector, line_bytes=line,
                      base_alignment_bytes=align)


def requested_vector_log2(vector_elems: Any, plan: GlobalPlan) -> int:
    """log2 of a requested vector width (elements per lane per instruction), checked against
    the widest access (16 bytes) and the base alignment; whether the layouts allow it is each
    engine's check.

    Raises:
        LayoutError: not a power of two, or wider than :attr:`GlobalPlan.max_vector_log2`.
    """
    k = log2_exact(vector_elems, "vector_elems")
    if k > plan.max_vector_log2:
        raise LayoutError(
            f"vector_elems={vector_elems} of {plan.element_bits}-bit elements is "
            f"{(plan.element_bits << k) // 8} bytes per lane: over the {MAX_ACCESS_BYTES}-byte "
            f"widest access or the {plan.base_alignment_bytes}-byte base alignment; use at "
            f"most {1 << plan.max_vector_log2}")
    return k
