"""One CuTe argument, whatever its form: an atom name, a thread-value layout with its tile, or
a shared-memory layout — what the ``linlayout`` command accepts wherever it takes a layout.

:func:`read_layout` decides by the text:

* an atom name (:func:`linlayout.cute.is_atom_name`: ``sm80_16x8x16.A``,
  ``SM75_U32x4_LDSM_N``, ``sm80_cp_async_u32``, …) is that atom's distributed layout
  (:func:`linlayout.cute.atom`; copy atoms are in bits and need ``element_bits``);
* text ending in ``on MxN`` (``((_4,_8),(_2,_2)):((_32,_1),(_16,_8)) on 16x8``) is a
  thread-value layout over that tile (:func:`linlayout.cute.tv_layout`);
* anything else is a shared-memory layout (:func:`linlayout.cute.parse_layout`: a
  :class:`~linlayout.LinearLayout`, or a :class:`~linlayout.PaddedLayout` for padded strides).

Source: the conventions of :mod:`linlayout.cute` (``__init__``); the CLI reads its layout
arguments with this function (``linlayout/cli/common.py``).
"""

from __future__ import annotations

import re
from typing import Any

from .._checks import shown
from ..errors import LayoutError
from ..layout import LinearLayout
from ..layout.padded import PaddedLayout
from .atoms import atom_info, is_atom_name
from .memory import parse_layout
from .tv import tv_layout

__all__ = ["TILE_SUFFIX", "read_layout"]

#: ``<CuTe text> on MxN[xK…]``: a thread-value layout and the tile its index runs over.
TILE_SUFFIX = re.compile(r"^(?P<text>.*\S)\s+on\s+(?P<tile>\d{1,9}(?:\s*x\s*\d{1,9})*)\s*$", re.S)


def read_layout(text: Any, element_bits: int | None = None) -> LinearLayout | PaddedLayout:
    """A CuTe atom name, ``<TV layout> on MxN`` or shared-memory layout text as a layout
    (module docstring).

    Args:
        text: the string.
        element_bits: the element width; required for copy atoms (CUTLASS writes them in
            bits); ignored for MMA atoms (they are in elements) and for layout text.

    Returns:
        A distributed :class:`~linlayout.LinearLayout` (``register, lane, warp -> dim0, …``)
        for an atom or a TV layout; a memory layout (``offset -> dim0, …``, or a
        :class:`~linlayout.PaddedLayout`) for shared-memory text.

    Raises:
        LayoutError: not a string, an atom that needs ``element_bits``, or text that none of
            the three forms reads (the message of the form it looked like).

    Example::

        >>> read_layout("sm80_16x8x16.C").bases["register"]
        [[0, 1], [8, 0]]
        >>> read_layout("((_4,_8),(_2,_2)):((_32,_1),(_16,_8)) on 16x8").out_dims
        {'dim0': 16, 'dim1': 8}
        >>> read_layout("(_64,_64):(_72,_1)").pairs
        ((64, 8),)
    """
    if not isinstance(text, str):
        raise LayoutError(f"a CuTe layout argument is a string, got {shown(text)}")
    if is_atom_name(text):
        info = atom_info(text)
        return info.linear_layout(element_bits if info.units == "bits" else None)
    m = TILE_SUFFIX.match(text)
    if m:
        tile = [int(x) for x in re.split(r"\s*x\s*", m.group("tile"))]
        return tv_layout(m.group("text"), tile)
    m = _LONG_TILE.match(text)
    if m:
        # a tile of more digits than any tensor needs: say so rather than read "on …" as
        # more layout text ("unexpected 'o' after the layout")
        tile = m.group("tile")
        shown_tile = tile if len(tile) <= 40 else tile[:40] + "…"
        raise LayoutError(f"the tile 'on {shown_tile}' has a size of more than 9 "
                          "digits; a tile is a tensor's shape, e.g. 'on 16x8'")
    return parse_layout(text)


#: ``… on MxN`` whose sizes are too long for :data:`TILE_SUFFIX`.
_LONG_TILE = re.compile(r"^.*\S\s+on\s+(?P<tile>\d+(?:\s*x\s*\d+)*)\s*$", re.S)
