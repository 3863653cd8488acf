"""Print a shared-memory layout as Triton attribute text.

:func:`to_triton_text` returns the most specific Triton attribute that reproduces the layout
*exactly* (checked by converting the attribute back with Triton's ``toLinearLayout`` rules and
comparing bit for bit):

1. ``#ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>`` or ``#ttg.nvmma_shared<{…}>``
   (TMA- and wgmma/tcgen05-compatible; tried first with ``prefer="nvmma"``);
2. otherwise ``#ttg.shared_linear<{offset = […]}, alignment = 16>`` with the offset bases.

Memory layouts with in dims ``vector, bank, segment[, reps]`` (what
:func:`linlayout.synthesize_swizzle` returns) are flattened to ``offset`` in that order first.

Example::

    >>> from linlayout.triton import swizzled_shared, to_triton_text
    >>> L = swizzled_shared(8, 1, 8, [1, 0]).to_linear_layout([64, 64])
    >>> to_triton_text(L, element_bits=16)
    '#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>'
"""

from __future__ import annotations

from collections.abc import Sequence

from .._checks import log2_exact, shown
from ..errors import LayoutError
from ..hardware.kinds import to_offset_layout
from ..layout import LinearLayout
from ..layout.padded import PaddedLayout
from . import encodings as Lyt
from .encodings import Encoding

__all__ = ["express", "to_offset_layout", "to_triton_text"]


def _shape(layout: LinearLayout) -> list[int]:
    return [layout.out_dims[f"dim{i}"] for i in range(len(layout.out_dims))]


def _swizzled_candidate(layout: LinearLayout) -> Encoding | None:
    """Read vec/perPhase/maxPhase/order off the offset bases (then verified by the caller)."""
    offs = layout.bases["offset"]
    rank = len(layout.out_dims)
    shape = _shape(layout)
    if rank == 1:
        return Lyt.SwizzledSharedEncoding(1, 1, 1, [0])

    def unit_dim(b: Sequence[int]) -> int | None:
        nz = [i for i, v in enumerate(b) if v]
        return nz[0] if len(nz) == 1 else None

    # Dims with a single element contribute no bases; place them by the default order.
    order: list[int] = []
    col = unit_dim(offs[0]) if offs else None
    if col is None:
        return None
    ncols_log = shape[col].bit_length() - 1
    row_bases = offs[ncols_log:]
    row = None
    for b in row_bases:
        nz = [i for i, v in enumerate(b) if v and i != col]
        if nz:
            row = nz[0]
            break
    if row is None:
        return None
    order = [col, row]
    rest = row_bases[shape[row].bit_length() - 1:]
    for b in rest:
        d = unit_dim(b)
        if d is not None and d not in order:
            order.append(d)
    for d in range(rank - 1, -1, -1):
        if d not in order:
            order.append(d)
    # Column shifts of the row bases give vec, perPhase, maxPhase.
    shifts = [b[col] for b in row_bases[:shape[row].bit_length() - 1]]
    nonzero = [k for k, c in enumerate(shifts) if c]
    if not nonzero:
        return Lyt.SwizzledSharedEncoding(1, 1, 1, order)
    p = nonzero[0]
    vec = shifts[p]
    if vec & (vec - 1):
        return None
    m = 1
    while p + m < len(shifts) and shifts[p + m] == (vec << m) % shape[col] and shifts[p + m]:
        m += 1
    return Lyt.SwizzledSharedEncoding(vec, 1 << p, 1 << m, order)


def express(memory: LinearLayout | PaddedLayout, element_bits: int | None = None, *,
            prefer: str = "swizzled") -> Encoding:
    """The Triton encoding that reproduces ``memory`` exactly (see the module docstring).

    Args:
        memory: a shared-memory layout (in dims ``offset[, block]`` or ``vector, bank,
            segment[, reps]``; out dims ``dim0 …``), or a
            :class:`~linlayout.layout.padded.PaddedLayout`, expressed as
            ``#ttg.padded_shared`` (short form when its remap is the identity).
        element_bits: element width, a power of two, needed to try ``nvmma_shared`` (8, 16,
            32 or 64: other widths skip it, as does None).
        prefer: ``"swizzled"`` (default) or ``"nvmma"``: which to return when both express
            the layout.

    Returns:
        An :class:`~linlayout.triton.encodings.Encoding` whose ``to_linear_layout`` at the
        memory's shape equals ``to_offset_layout(memory)``.

    Raises:
        LayoutError: ``memory`` is not a bijective shared-memory layout over ``dim0 …``,
            ``element_bits`` is neither None nor a positive power of two, ``prefer`` is
            unknown, or a padded layout's remap is not one Triton accepts (every basis along
            one dim by a power of two).
    """
    if prefer not in ("swizzled", "nvmma"):
        raise LayoutError(f"prefer must be 'swizzled' or 'nvmma', got {shown(prefer)}")
    if element_bits is not None:
        log2_exact(element_bits, "element_bits")
    if isinstance(memory, PaddedLayout):
        return Lyt.PaddedSharedEncoding.from_padded_layout(memory)
    layout = to_offset_layout(memory)
    shape = _shape(layout)
    rank = len(shape)
    block = layout.bases.get("block", [])
    if not block:
        nvmma = []
        if element_bits in (8, 16, 32, 64):
            for sw in (128, 64, 32, 0):
                for tr in (False, True):
                    nvmma.append(Lyt.NvmmaSharedEncoding(sw, tr, element_bits, False, None,
                                                         rank))
        swz = _swizzled_candidate(layout)
        order = ([swz] if swz else []) + nvmma
        if prefer == "nvmma":
            order = nvmma + ([swz] if swz else [])
        for enc in order:
            if _same(enc, shape, layout):
                return enc
    return Lyt.SharedLinearEncoding(layout.bases["offset"], block, 16)


def _same(enc: Encoding, shape: list[int], layout: LinearLayout) -> bool:
    try:
        return to_offset_layout(enc.to_linear_layout(shape)) == layout
    except LayoutError:
        return False


def to_triton_text(memory: LinearLayout | PaddedLayout, element_bits: int | None = None, *,
                   prefer: str = "swizzled") -> str:
    """Triton attribute text for ``memory`` (see :func:`express`).

    Raises:
        LayoutError: as :func:`express`.
    """
    return express(memory, element_bits, prefer=prefer).text()
