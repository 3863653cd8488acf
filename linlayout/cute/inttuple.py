"""CuTe's ``IntTuple``: an int, or a tuple of IntTuples — how shapes and strides are written.

A CuTe layout is a pair of congruent IntTuples ``shape:stride``. A *coordinate* of a mode may
be given as one integer; it is split **colexicographically** (leftmost fastest) over that
mode's shape, recursively: for the shape ``(3,(2,3))`` the index ``16`` is ``(1,5)``, i.e.
``(1,(1,2))``. The index of a natural (fully split) coordinate is its inner product with the
stride. Worked example, the layout ``(_4,_8):(_8,_1)``::

    coordinate (1, 2) -> 1*8 + 2*1 = 10          one integer 9 -> (9 % 4, 9 // 4) = (1, 2)

Everything here is plain integer arithmetic (no F₂); :mod:`linlayout.cute.bits` turns a layout
into bits.

Source: CUTLASS ``include/cute/int_tuple.hpp`` (``size``, ``product``, ``depth``,
``congruent``), ``include/cute/stride.hpp`` (``idx2crd``, ``crd2idx``) and
``media/docs/cpp/cute/01_layout.md`` ("Coordinate mapping"); pycute ``int_tuple.py``.
"""

from __future__ import annotations

from typing import Union

from .._checks import shown
from ..errors import LayoutError

__all__ = [
    "IntTuple",
    "MAX_DEPTH",
    "MAX_ELEMENTS",
    "congruent",
    "crd2idx",
    "depth",
    "flatten",
    "format_int_tuple",
    "idx2crd",
    "leaves",
    "product",
]

#: An int or a (nested) tuple of ints.
IntTuple = Union[int, tuple]

#: Deepest nesting accepted anywhere in :mod:`linlayout.cute` (deeper input raises LayoutError).
MAX_DEPTH = 32

#: Most elements (the product of a shape) accepted anywhere in :mod:`linlayout.cute`: 2^24.
MAX_ELEMENTS = 1 << 24


def depth(t: IntTuple) -> int:
    """Nesting depth: 0 for an int, 1 for a flat tuple, … (CuTe ``depth``).

    Raises:
        LayoutError: nesting deeper than :data:`MAX_DEPTH`, or an entry that is not an int or
            a tuple.

    Example::

        >>> depth(((8, 8), 64))
        2
    """
    return _depth(t, 0)


def _depth(t: IntTuple, level: int) -> int:
    if level > MAX_DEPTH:
        raise LayoutError(f"an IntTuple nested deeper than {MAX_DEPTH} levels is refused")
    if isinstance(t, tuple):
        return 1 + max((_depth(e, level + 1) for e in t), default=0)
    if type(t) is not int:
        raise LayoutError(f"an IntTuple holds ints and tuples, got {shown(t)}")
    return 0


def flatten(t: IntTuple) -> tuple[int, ...]:
    """The leaves, left to right (CuTe ``flatten``).

    Example::

        >>> flatten(((8, 8), 64))
        (8, 8, 64)
    """
    if isinstance(t, tuple):
        return tuple(x for e in t for x in flatten(e))
    return (t,)


def leaves(t: IntTuple, path: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], int]]:
    """``(path, leaf)`` for every leaf, left to right; a path lists the tuple index at each
    level (an int at the top has the path ``()``).

    Example::

        >>> leaves(((8, 4), 64))
        [((0, 0), 8), ((0, 1), 4), ((1,), 64)]
    """
    if isinstance(t, tuple):
        return [x for i, e in enumerate(t) for x in leaves(e, path + (i,))]
    return [(path, t)]


def product(t: IntTuple) -> int:
    """The product of the leaves (CuTe ``size`` of a shape; 1 for ``()``).

    Example::

        >>> product(((8, 8), 64))
        4096
    """
    p = 1
    for x in flatten(t):
        p *= x
    return p


def congruent(a: IntTuple, b: IntTuple) -> bool:
    """True when ``a`` and ``b`` have the same tree (CuTe ``congruent``: a shape and its
    stride must be).

    Example::

        >>> congruent(((8, 8), 64), ((64, 512), 1)), congruent((8, 8), (1, (2, 4)))
        (True, False)
    """
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(congruent(x, y) for x, y in zip(a, b))
    return not isinstance(a, tuple) and not isinstance(b, tuple)


def idx2crd(index: int, shape: IntTuple) -> IntTuple:
    """Split one integer colexicographically over ``shape`` (CuTe ``idx2crd``): the natural
    coordinate, congruent with ``shape``. The last leaf of a mode takes what is left (CuTe
    does not wrap it).

    Example::

        >>> idx2crd(16, (3, (2, 3)))
        (1, (1, 2))
    """
    if isinstance(shape, tuple):
        out = []
        for i, s in enumerate(shape):
            if i == len(shape) - 1:
                out.append(idx2crd(index, s))
            else:
                n = product(s)
                out.append(idx2crd(index % n, s))
                index //= n
        return tuple(out)
    return index


def crd2idx(coord: IntTuple, shape: IntTuple, stride: IntTuple) -> int:
    """The index of a coordinate (CuTe ``crd2idx``): an int coordinate of a tuple mode is
    split with :func:`idx2crd` first, then the natural coordinate · stride.

    Raises:
        LayoutError: a tuple coordinate that is not congruent with the shape's mode.

    Example::

        >>> crd2idx((1, 2), (4, 8), (8, 1)), crd2idx(9, (4, 8), (8, 1))
        (10, 10)
    """
    if isinstance(shape, tuple):
        if not isinstance(coord, tuple):
            coord = idx2crd(coord, shape)
        if len(coord) != len(shape):
            raise LayoutError(f"coordinate {shown(coord)} does not match the shape {shown(shape)}")
        return sum(crd2idx(c, s, d) for c, s, d in zip(coord, shape, stride))
    if isinstance(coord, tuple):
        raise LayoutError(f"coordinate {shown(coord)} is a tuple but its mode has the shape {shape}")
    return coord * stride


def format_int_tuple(t: IntTuple, *, static: bool = True) -> str:
    """``t`` as CuTe's C++ ``print`` writes it: no spaces, ``(a,b)``, a rank-1 tuple as
    ``(a)``; ``static`` integers (``Int<N>``) carry a leading ``_``.

    Example::

        >>> format_int_tuple(((8, 8), 64)), format_int_tuple((8,), static=False)
        ('((_8,_8),_64)', '(8)')
    """
    if isinstance(t, tuple):
        return "(" + ",".join(format_int_tuple(e, static=static) for e in t) + ")"
    return f"_{t}" if static else str(t)
