"""tcgen05 (and wgmma) shared-memory swizzle atoms as memory layouts.

:func:`tcgen05_atom` builds the atom of PTX ISA §9.7.16.10.6 "Shared Memory Layout and
Swizzling" for a swizzle mode, a major-ness (K or MN) and an element size;
:data:`TCGEN05_ATOM_SHAPES` is that section's table of atom shapes. An atom is exactly what TMA
writes with the same mode and a box inner dimension of one atom row, so it is built by
:func:`linlayout.ptx.tma.tma_box_layout`. Offsets are in **elements**.
"""

from __future__ import annotations

from typing import Any

from .._checks import shown
from ..errors import LayoutError
from ..layout import LinearLayout
from .modes import SwizzleMode, swizzle_mode
from .tma import check_element_bits, tma_box_layout

__all__ = ["TCGEN05_ATOM_SHAPES", "tcgen05_atom"]


#: PTX ISA §9.7.16.10.6 Table 55, "Layout for swizzle atoms" (128-bit elements), as
#: ``(MN extent, K extent)``: for smaller elements the leading dimension (MN for MN-major, K
#: for K-major) is multiplied by ``128 / element_bits``. 128B with 32B atomicity is MN-major
#: only ("–" for K).
TCGEN05_ATOM_SHAPES: dict[tuple[SwizzleMode, str], tuple[int, int]] = {
    (SwizzleMode.SWIZZLE_128B_ATOM_32B, "MN"): (8, 4),
    (SwizzleMode.SWIZZLE_128B, "MN"): (8, 8),
    (SwizzleMode.SWIZZLE_128B, "K"): (8, 8),
    (SwizzleMode.SWIZZLE_64B, "MN"): (4, 8),
    (SwizzleMode.SWIZZLE_64B, "K"): (8, 4),
    (SwizzleMode.SWIZZLE_32B, "MN"): (2, 8),
    (SwizzleMode.SWIZZLE_32B, "K"): (8, 2),
    (SwizzleMode.NONE, "MN"): (1, 8),
    (SwizzleMode.NONE, "K"): (8, 1),
}


def _major(major: Any) -> str:
    if isinstance(major, str):
        key = major.strip().upper().replace("-MAJOR", "").replace("_MAJOR", "")
        if key in ("K",):
            return "K"
        if key in ("MN", "M", "N"):
            return "MN"
    raise LayoutError(f"major must be 'K' or 'MN' (also 'M' or 'N'), got {shown(major)}")


def tcgen05_atom(mode: Any, major: str, element_bits: int) -> LinearLayout:
    """The tcgen05 (and wgmma) shared-memory swizzle atom as a memory layout.

    Args:
        mode: ``"none"``, ``"32B"``, ``"64B"``, ``"128B"`` or ``"128B_atom_32B"`` (the modes
            with a tcgen05 descriptor layout type).
        major: ``"K"`` (K contiguous) or ``"MN"`` (M or N contiguous).
        element_bits: bits per element (power of two, 1–128; 16 for fp16/bf16, 32 for tf32).

    Returns:
        In dim ``offset`` (**elements**) -> out dims ``dim0`` (MN index) and ``dim1`` (K
        index), of the shape of PTX Table 55 scaled to the element size: e.g. 128B K-major
        fp16 is 8 × 64, 128B MN-major tf32 is 32 × 8. The byte offset of element ``(mn, k)``
        equals CUTLASS's ``Layout_{K,MN}_SW{32,64,128}_Atom`` / ``Layout_*_INTER_Atom`` and
        ``UMMA::Layout_MN_SW128_32B_Atom``: ``Swizzle<B,M,S>`` applied to the byte address of
        ``(T, W·8):(1, T)`` (MN-major) or ``(8, T):(T, 1)`` (K-major) bits, ``T`` = the atom's
        row bits. It is also exactly what TMA writes with the same mode and a box inner
        dimension of one atom row (:func:`tma_tile_layout`).

    Raises:
        LayoutError: a mode without a tcgen05 layout type (96B, the 8-byte flip, 64B
            atomicity), the K-major form of 128B with 32B atomicity (Table 55 has "–"), an
            unknown ``major``, or bad ``element_bits``.

    Source: PTX ISA §9.7.16.10.6 "Shared Memory Layout and Swizzling", Table 55; CUTLASS
    ``include/cute/atom/mma_traits_sm90_gmma.hpp`` (``GMMA::Layout_*_Atom_Bits``) and
    ``include/cute/atom/mma_traits_sm100.hpp`` (``UMMA::Layout_MN_SW128_32B_Atom_Bits``).

    Example::

        >>> tcgen05_atom("128B", "K", 16).out_dims
        {'dim0': 8, 'dim1': 64}
    """
    m = swizzle_mode(mode)
    mj = _major(major)
    eb = check_element_bits(element_bits)
    if m.tcgen05_layout_type is None:
        raise LayoutError(
            f"the {m.value} mode has no tcgen05 shared-memory descriptor layout type; tcgen05 "
            "atoms exist for none, 32B, 64B, 128B and 128B_atom_32B"
        )
    shape = TCGEN05_ATOM_SHAPES.get((m, mj))
    if shape is None:
        raise LayoutError(
            f"PTX Table 55 has no K-major atom for {m.value} (128B swizzling with 32B "
            "atomicity is MN-major only, '–' for K); use major='MN' or the 128B mode"
        )
    scale = 128 // eb
    mn, k = shape
    if mj == "MN":
        out = {"dim0": mn * scale, "dim1": k}
        order = ["dim0", "dim1"]
        row_bytes = mn * 16
    else:
        out = {"dim0": mn, "dim1": k * scale}
        order = ["dim1", "dim0"]
        row_bytes = k * 16
    return tma_box_layout(m, out, order, eb, row_bytes)  # Table 55's shapes are all valid boxes
