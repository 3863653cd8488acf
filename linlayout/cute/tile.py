"""CuTe's ``tile_to_shape``: repeat a layout atom until it covers a tile.

CUTLASS builds its shared-memory layouts from a small *atom* (``GMMA::Layout_K_SW128_Atom<T>``,
``composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>,…>)``) with
``tile_to_shape(atom, make_shape(bM, bK))``: the atom is repeated along each mode, mode 0
first (the default ``LayoutLeft`` order of the repeats), each repeat placed after the previous
ones in memory. For an atom of ``size`` elements and repeats ``r_k = shape_k / atom_k``::

    mode k  ->  (atom mode k, r_k) : (atom stride k, size · r_0 · … · r_{k-1})

and the atom's swizzle and offset apply to the whole index (CuTe keeps the
``ComposedLayout``). A repeat count of 1 gets the stride 0, as CuTe prints it. Example (what
C++ prints for ``tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, Shape<_128,_64>{})``)::

    Sw<3,4,3> o smem_ptr[16b](unset) o ((_8,_16),(_64,_1)):((_64,_512),(_1,_0))

Source: CUTLASS ``include/cute/layout.hpp`` (``tile_to_shape``, ``blocked_product``),
``include/cute/layout_composed.hpp`` (the composed overload).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._checks import as_int, shown
from ..errors import LayoutError
from .cutelayout import CuteLayout
from .inttuple import leaves, product
from .parse import parse_cute

__all__ = ["tile_to_shape"]


def _cosize(cl: CuteLayout) -> int:
    """1 + the largest index of the inner layout (non-negative strides)."""
    top = 0
    for (_, s), (_, d) in zip(leaves(cl.shape), leaves(cl.stride)):
        if d < 0:
            raise LayoutError(f"{cl.text()}: tile_to_shape needs non-negative strides")
        top += (s - 1) * d
    return top + 1


def tile_to_shape(atom: Any, shape: Sequence[int]) -> CuteLayout:
    """Repeat a CuTe layout atom over a tile (module docstring).

    Args:
        atom: CuTe text, a :class:`~linlayout.cute.CuteLayout` or a pycute object; its
            swizzle, offset or pointer flag is kept.
        shape: the tile, one extent per mode of the atom (a multiple of the atom's extent).

    Returns:
        The tiled :class:`~linlayout.cute.CuteLayout`.

    Raises:
        LayoutError: ``shape`` has another rank than the atom, or an extent that is not a
            positive multiple of the atom's.

    Example::

        >>> tile_to_shape("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)", [128, 64]).text()
        'Sw<3,4,3> o smem_ptr[16b](unset) o ((_8,_16),(_64,_1)):((_64,_512),(_1,_0))'
    """
    cl = parse_cute(atom)
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence):
        raise LayoutError(f"shape must be a list of extents, got {shown(shape)}")
    modes = cl.modes()
    if len(shape) != len(modes):
        raise LayoutError(f"{cl.text()} has {len(modes)} modes but the shape {list(shape)} has "
                          f"{len(shape)}")
    stride = _cosize(cl)
    out_shape, out_stride = [], []
    for k, ((ms, md), want) in enumerate(zip(modes, shape)):
        w = as_int(want, f"shape[{k}]")
        n = product(ms)
        if w < 1 or w % n:
            raise LayoutError(f"shape[{k}] = {w} is not a positive multiple of the atom's "
                              f"extent {n} in mode {k}")
        r = w // n
        out_shape.append((ms, r))
        out_stride.append((md, stride if r > 1 else 0))
        stride *= r
    return CuteLayout(tuple(out_shape), tuple(out_stride), cl.swizzle, cl.offset,
                      cl.pointer_bits)
