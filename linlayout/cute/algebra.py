"""CuTe's layout algebra on the power-of-two subset: ``coalesce``, ``complement``,
``composition``, the divides and the products, ``size``/``cosize``/``rank``/``depth`` and
``downcast``, each taking and returning a :class:`~linlayout.cute.CuteLayout`.

The names and results are CuTe's (CUTLASS ``include/cute/layout.hpp``; NVIDIA's Python
reference ``pycute``, ``layout.py``): the same shape and stride tuples, so the same value at
every coordinate. ``tests/cute/test_algebra.py`` replays several hundred random cases whose
answers NVIDIA's pycute computed (``papers/cute_gluon/generate_cute_algebra.py`` writes
``tests/data/cute_algebra.json``). Worked example — a 8×8 row-major tile divided into 2×4
blocks::

    >>> from linlayout import cute
    >>> cute.zipped_divide("(_8,_8):(_8,_1)", ("_2:_1", "_4:_1")).text()
    '((_2,_4),(_4,_2)):((_8,_1),(_16,_4))'

**The subset.** Every function accepts and returns layouts whose shape leaves are powers of
two and whose strides are 0 or powers of two (the layouts linlayout converts to F₂-linear
maps). An argument outside it, or a result that would leave it — ``complement`` of a layout
whose leaves overlap (CuTe's result holds a 0-sized mode), a cotarget that is not a power of
two — raises :class:`NotPowerOfTwoError` naming the leaf. The integer arithmetic itself is
CuTe's and exact.

**Swizzles.** As CuTe's ``ComposedLayout`` overloads do (``include/cute/layout_composed.hpp``),
``Sw<B,M,S> o offset o L`` (or a pointer flag) is carried through: the operation applies to the
inner layout ``L`` and the result keeps the swizzle and offset; ``size``, ``cosize``,
``rank``, ``depth`` and ``complement`` read ``L``. A swizzled layout as the *right* operand of
``composition`` (or as a tiler) is refused: ``A ∘ Sw ∘ B`` is no ``Sw o off o layout``.

**Tilers.** Where CuTe takes a tiler (the right operand of ``composition``, the divides and
products): a layout (text, :class:`~linlayout.cute.CuteLayout`, pycute object), an int ``n``
(the layout ``n:1``), ``None`` (leave that mode alone) or a tuple/list of tilers, one per
leading mode of the left operand (by-mode).

Source: CUTLASS ``include/cute/layout.hpp`` (``coalesce``, ``complement``, ``composition``,
``logical_divide``, ``zipped_divide``, ``tiled_divide``, ``flat_divide``, ``logical_product``,
``zipped_product``, ``tiled_product``, ``flat_product``, ``blocked_product``,
``raked_product``, ``cosize``, ``downcast``), ``include/cute/layout_composed.hpp``,
``media/docs/cpp/cute/02_layout_algebra.md``; pycute ``layout.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Union

from .._checks import as_int, log2_exact, shown
from ..errors import LayoutError
from .cutelayout import CuteLayout
from . import inttuple
from .inttuple import IntTuple, crd2idx, flatten, format_int_tuple, product
from .parse import parse_cute

__all__ = [
    "NotPowerOfTwoError",
    "blocked_product",
    "coalesce",
    "complement",
    "composition",
    "cosize",
    "depth",
    "downcast",
    "flat_divide",
    "flat_product",
    "logical_divide",
    "logical_product",
    "rank",
    "raked_product",
    "size",
    "tiled_divide",
    "tiled_product",
    "zipped_divide",
    "zipped_product",
]


class NotPowerOfTwoError(LayoutError):
    """A CuTe layout (an argument or a result) outside the power-of-two subset: a shape leaf
    that is not a power of two, or a stride that is neither 0 nor a power of two (the message
    names the leaf and the operation)."""


#: A plain layout while computing: ``(shape, stride)``, congruent IntTuples.
_Lay = tuple[IntTuple, IntTuple]
#: What CuTe accepts as a tiler (module docstring).
Tiler = Union[None, int, str, CuteLayout, tuple, list, Any]


# ----------------------------------------------------------------------------- plumbing
def _pow2(n: int) -> bool:
    return n > 0 and not n & (n - 1)


def _check_subset(lay: _Lay, op: str, what: str) -> None:
    shape, stride = lay
    for s, d in zip(flatten(shape), flatten(stride)):
        if not _pow2(s):
            raise NotPowerOfTwoError(
                f"{op}: {what} {_text(lay)} has the shape {s}, not a power of two; "
                "linlayout's CuTe algebra covers power-of-two shapes and strides")
        if d != 0 and not _pow2(d):
            raise NotPowerOfTwoError(
                f"{op}: {what} {_text(lay)} has the stride {d}, neither 0 nor a power of two; "
                "linlayout's CuTe algebra covers power-of-two shapes and strides")


def _text(lay: _Lay) -> str:
    return f"{format_int_tuple(lay[0])}:{format_int_tuple(lay[1])}"


def _read(layout: Any, op: str, what: str = "the layout") -> CuteLayout:
    cl = parse_cute(layout)
    _check_subset((cl.shape, cl.stride), op, what)
    return cl


def _result(src: CuteLayout, lay: _Lay, op: str) -> CuteLayout:
    """``lay`` as a CuteLayout keeping ``src``'s swizzle, offset and pointer flag."""
    _check_subset(lay, op, "the result")
    return CuteLayout(lay[0], lay[1], src.swizzle, src.offset, src.pointer_bits)


def _plain(lay: _Lay, op: str) -> CuteLayout:
    _check_subset(lay, op, "the result")
    return CuteLayout(lay[0], lay[1])


def _rank(lay: _Lay) -> int:
    return len(lay[0]) if isinstance(lay[0], tuple) else 1


def _mode(lay: _Lay, i: int) -> _Lay:
    if isinstance(lay[0], tuple):
        return lay[0][i], lay[1][i]
    return lay


def _make(modes: Iterable[_Lay]) -> _Lay:
    """CuTe ``make_layout(l0, l1, …)``: one top-level mode per layout."""
    ms = list(modes)
    return tuple(m[0] for m in ms), tuple(m[1] for m in ms)


def _size(lay: _Lay) -> int:
    return product(lay[0])


def _cosize(lay: _Lay) -> int:
    """``L(size - 1) + 1``: one past the largest index (strides are non-negative here)."""
    return crd2idx(_size(lay) - 1, lay[0], lay[1]) + 1


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _one(shape: list[int], stride: list[int]) -> _Lay:
    """A flat list of leaves as a layout: an int mode when there is one leaf."""
    if len(shape) == 1:
        return shape[0], stride[0]
    return tuple(shape), tuple(stride)


# ----------------------------------------------------------------------------- coalesce
def _coalesce(lay: _Lay) -> _Lay:
    shape: list[int] = [1]
    stride: list[int] = [0]
    for s, d in zip(flatten(lay[0]), flatten(lay[1])):
        if s == 1:
            continue
        if shape[-1] == 1:
            shape[-1], stride[-1] = s, d
        elif shape[-1] * stride[-1] == d:
            shape[-1] *= s
        else:
            shape.append(s)
            stride.append(d)
    return _one(shape, stride)


def _coalesce_profile(lay: _Lay, profile: Any) -> _Lay:
    if isinstance(profile, (tuple, list)):
        if len(profile) > _rank(lay):
            raise LayoutError(f"coalesce: the profile {shown(profile)} has more modes than the "
                              f"layout {_text(lay)} ({_rank(lay)})")
        return _make([_coalesce_profile(_mode(lay, i), p) for i, p in enumerate(profile)]
                     + [_mode(lay, i) for i in range(len(profile), _rank(lay))])
    return _coalesce(lay)


def coalesce(layout: Any, profile: Any = None) -> CuteLayout:
    """CuTe's ``coalesce``: the same map on ``[0, size)`` with the fewest flat modes.

    Adjacent leaves ``s0:d0, s1:d1`` merge into ``s0·s1:d0`` when ``d1 = s0·d0``; size-1
    leaves vanish; a single leaf is an int mode; no leaf at all is ``_1:_0``.

    Args:
        layout: a CuTe layout (text, :class:`~linlayout.cute.CuteLayout`, pycute object) in the
            power-of-two subset; a swizzle or offset is kept.
        profile: None (coalesce the whole layout), or a tuple giving, per leading mode, a
            profile to coalesce that mode by (an int: coalesce the mode whole); later modes are
            kept (CuTe's ``coalesce(layout, trg_profile)``).

    Returns:
        A :class:`~linlayout.cute.CuteLayout`.

    Raises:
        NotPowerOfTwoError: the layout is outside the power-of-two subset.
        LayoutError: unreadable input, or a profile with more modes than the layout.

    Example::

        >>> coalesce("((_2,_4),_8):((_1,_2),_8)").text()
        '_64:_1'
        >>> coalesce("((_2,_4),(_8,_1)):((_1,_2),(_16,_0))", (1, 1)).text()
        '(_8,_8):(_1,_16)'

    Source: CUTLASS ``include/cute/layout.hpp`` (``coalesce``, ``bw_coalesce``); pycute
    ``coalesce``.
    """
    cl = _read(layout, "coalesce")
    return _result(cl, _coalesce_profile((cl.shape, cl.stride), profile), "coalesce")


# ----------------------------------------------------------------------------- complement
def _complement(lay: _Lay, cotarget: int, op: str) -> _Lay:
    """CuTe's complement, integer for integer (an overlapping layout gets a 0-sized mode, as
    pycute's does; :func:`complement` refuses that result)."""
    shape: list[int] = []
    stride: list[int] = []
    current = 1
    for d, s in sorted(zip(flatten(lay[1]), flatten(lay[0]))):
        if d == 0 or s == 1:
            continue
        if current > s * d:
            raise LayoutError(
                f"{op}: {_text(lay)} has leaves that overlap (the leaf {s}:{d} lies inside the "
                f"span {current} of the leaves before it), so it has no complement; CuTe "
                "needs an injective layout")
        shape.append(d // current)
        stride.append(current)
        current = s * d
    shape.append(_ceil_div(cotarget, current))
    stride.append(current)
    return _coalesce((tuple(shape), tuple(stride)))


def complement(layout: Any, cotarget: int | None = None) -> CuteLayout:
    """CuTe's ``complement(L, cotarget)``: the layout of the indices ``L`` skips, in order,
    up to ``cotarget`` — so ``(L, complement(L, n))`` covers ``[0, n)`` once.

    Args:
        layout: an injective CuTe layout in the power-of-two subset (a swizzle is ignored:
            CuTe complements the inner layout).
        cotarget: the size to complete to, a power of two; default ``cosize(L)`` (CuTe's).

    Returns:
        A plain :class:`~linlayout.cute.CuteLayout` (coalesced).

    Raises:
        NotPowerOfTwoError: the layout, ``cotarget`` or the result outside the subset.
        LayoutError: overlapping leaves (not injective), unreadable input.

    Example::

        >>> complement("(_4,_2):(_1,_16)", 128).text()
        '(_4,_4):(_4,_32)'

    Source: CUTLASS ``include/cute/layout.hpp`` (``complement``); pycute ``complement``.
    """
    cl = _read(layout, "complement")
    lay = (cl.shape, cl.stride)
    if cotarget is None:
        target = _cosize(lay)
    else:
        target = as_int(cotarget, "cotarget")
        if not _pow2(target):
            raise NotPowerOfTwoError(f"complement: the cotarget {target} is not a power of two "
                                     "(the result would leave the power-of-two subset)")
    out = _complement(lay, target, "complement")
    if 0 in flatten(out[0]):
        raise LayoutError(f"complement: {_text(lay)} has leaves that overlap (CuTe's answer "
                          f"{_text(out)} has a 0-sized mode): it is not injective, so it has "
                          "no complement")
    return _plain(out, "complement")


# ----------------------------------------------------------------------------- composition
def _compose_leaf(a: _Lay, b: _Lay) -> _Lay:
    """``A ∘ B`` for a B with an int shape."""
    bs, bd = b
    if bd == 0:
        return bs, 0
    if bs == 0:
        raise LayoutError(f"composition: {_text(a)} composed with a 0-sized mode (the "
                          "complement of a tiler whose leaves overlap); give an injective tiler")
    flat = _coalesce(a)
    a_shape, a_stride = flatten(flat[0]), flatten(flat[1])
    shape: list[int] = []
    stride: list[int] = []
    rest_shape, rest_stride = bs, bd
    for s, d in zip(a_shape[:-1], a_stride[:-1]):
        if s == 0 or (s % rest_stride and rest_stride % s):
            raise LayoutError(f"composition: {_text(a)} and {_text(b)} fail CuTe's "
                              "divisibility condition (a shape neither divides nor is divided "
                              "by the stride it meets)")
        n = min(max(1, s // rest_stride), rest_shape)
        if n != 1:
            shape.append(n)
            stride.append(rest_stride * d)
        rest_shape //= n
        rest_stride = _ceil_div(rest_stride, s)
    if rest_shape != 1 or not shape:
        shape.append(rest_shape)
        stride.append(rest_stride * a_stride[-1])
    return _one(shape, stride)


def _compose(a: _Lay, b: _Lay) -> _Lay:
    if isinstance(b[0], tuple):
        return _make(_compose(a, _mode(b, i)) for i in range(_rank(b)))
    return _compose_leaf(a, b)


def _tiler(t: Any, op: str) -> Any:
    """A tiler as nested lists of ``_Lay``/None (module docstring)."""
    if t is None:
        return None
    if isinstance(t, (tuple, list)):
        if not t:
            raise LayoutError(f"{op}: an empty tiler; give a layout or one tiler per mode")
        return [_tiler(x, op) for x in t]
    if isinstance(t, int) and not isinstance(t, bool):
        if not _pow2(t):
            raise NotPowerOfTwoError(f"{op}: the tiler {t} is not a power of two")
        return (t, 1)
    cl = parse_cute(t)
    if cl.is_composed:
        raise LayoutError(f"{op}: the tiler {cl.text()} has a swizzle or offset; a tiler is a "
                          "plain layout (A ∘ Sw ∘ B is no Sw o offset o layout)")
    lay = (cl.shape, cl.stride)
    _check_subset(lay, op, "the tiler")
    return lay


def _by_mode(fn: Any, a: _Lay, t: Any, op: str) -> _Lay:
    """Apply ``fn`` mode by mode for a tuple tiler (CuTe's ``transform_layout``)."""
    if len(t) > _rank(a):
        raise LayoutError(f"{op}: the tiler has {len(t)} modes but {_text(a)} has {_rank(a)}")
    return _make([fn(_mode(a, i), x) for i, x in enumerate(t)]
                 + [_mode(a, i) for i in range(len(t), _rank(a))])


def _composition(a: _Lay, t: Any) -> _Lay:
    if t is None:
        return a
    if isinstance(t, list):
        return _by_mode(_composition, a, t, "composition")
    return _compose(a, t)


def composition(a: Any, b: Tiler) -> CuteLayout:
    """CuTe's ``composition(A, B)``: the layout ``c -> A(B(c))`` with B's shape.

    Args:
        a: the outer layout (power-of-two subset; its swizzle and offset are kept, as CuTe's
            ``ComposedLayout`` overload does).
        b: the inner layout, an int ``n`` (``n:1``), None, or a tuple of these per mode of
            ``a`` (module docstring).

    Returns:
        A :class:`~linlayout.cute.CuteLayout` whose shape is ``b``'s (by-mode: each mode's).
        A tuple ``b`` shorter than ``a``'s rank keeps ``a``'s remaining modes, as pycute does;
        C++ CuTe's ``composition`` drops them ("Drop any modes of lhs that aren't hit by
        rhs", ``include/cute/layout.hpp``) — the divides and products keep them in both.

    Raises:
        NotPowerOfTwoError: an operand or the result outside the subset.
        LayoutError: a swizzled ``b``, a tuple with more modes than ``a``, unreadable input.

    Example::

        >>> composition("(_4,_8):(_8,_1)", "(_8,_4):(_4,_1)").text()
        '(_8,_4):(_1,_8)'

    Source: CUTLASS ``include/cute/layout.hpp`` (``composition``); pycute ``composition``.
    """
    cl = _read(a, "composition")
    return _result(cl, _composition((cl.shape, cl.stride), _tiler(b, "composition")),
                   "composition")


# ----------------------------------------------------------------------------- divides
def _logical_divide(a: _Lay, t: Any) -> _Lay:
    if t is None:
        return a
    if isinstance(t, list):
        return _by_mode(_logical_divide, a, t, "logical_divide")
    return _compose(a, _make([t, _complement(t, _size(a), "logical_divide")]))


def _unzip(split: Any, a: _Lay, t: Any) -> _Lay:
    """CuTe's ``tile_unzip``/pycute ``hier_unzip``: ``((tiles…), (rests…, later modes…))``."""
    if t is None:
        return _make([(1, 0), a])
    if isinstance(t, list):
        if len(t) > _rank(a):
            raise LayoutError(f"the tiler has {len(t)} modes but {_text(a)} has {_rank(a)}")
        parts = [_unzip(split, _mode(a, i), x) for i, x in enumerate(t)]
        return _make([_make([_mode(p, 0) for p in parts]),
                      _make([_mode(p, 1) for p in parts]
                            + [_mode(a, i) for i in range(len(t), _rank(a))])])
    return split(a, t)


def _divide_op(op: str, a: Any, tiler: Tiler, build: Any) -> CuteLayout:
    cl = _read(a, op)
    return _result(cl, build((cl.shape, cl.stride), _tiler(tiler, op)), op)


def _modes_of(lay: _Lay) -> list[_Lay]:
    return [_mode(lay, i) for i in range(_rank(lay))]


def logical_divide(a: Any, tiler: Tiler) -> CuteLayout:
    """CuTe's ``logical_divide(A, B)``: ``A ∘ (B, complement(B, size(A)))`` — mode 0 walks one
    tile ``B``, mode 1 the tiles; by-mode for a tuple tiler.

    Args:
        a: the layout to divide (power-of-two subset; a swizzle and offset are kept).
        tiler: a layout, int, None or tuple of them (module docstring).

    Returns:
        A :class:`~linlayout.cute.CuteLayout`.

    Raises:
        NotPowerOfTwoError: an operand or the result outside the subset.
        LayoutError: an overlapping tiler (no complement), a swizzled tiler, unreadable input.

    Example::

        >>> logical_divide("_16:_1", "_4:_2").text()
        '(_4,(_2,_2)):(_2,(_1,_8))'

    Source: CUTLASS ``include/cute/layout.hpp`` (``logical_divide``); pycute
    ``logical_divide``.
    """
    return _divide_op("logical_divide", a, tiler, _logical_divide)


def _zipped_divide(a: _Lay, t: Any) -> _Lay:
    return _unzip(_logical_divide, a, t)


def zipped_divide(a: Any, tiler: Tiler) -> CuteLayout:
    """CuTe's ``zipped_divide``: :func:`logical_divide` with the tile modes gathered into mode
    0 and the rest into mode 1: ``((tile…), (rest…))``.

    Raises:
        NotPowerOfTwoError, LayoutError: as :func:`logical_divide`.

    Example::

        >>> zipped_divide("(_8,_8):(_1,_8)", (2, 4)).text()
        '((_2,_4),(_4,_2)):((_1,_8),(_2,_32))'

    Source: CUTLASS ``include/cute/layout.hpp`` (``zipped_divide``, ``tile_unzip``); pycute
    ``zipped_divide``.
    """
    return _divide_op("zipped_divide", a, tiler, _zipped_divide)


def _tiled_divide(a: _Lay, t: Any) -> _Lay:
    z = _zipped_divide(a, t)
    return _make([_mode(z, 0)] + _modes_of(_mode(z, 1)))


def tiled_divide(a: Any, tiler: Tiler) -> CuteLayout:
    """CuTe's ``tiled_divide``: :func:`zipped_divide` with the rest unpacked:
    ``((tile…), rest0, rest1, …)``.

    Raises:
        NotPowerOfTwoError, LayoutError: as :func:`logical_divide`.

    Example::

        >>> tiled_divide("(_8,_8):(_1,_8)", (2, 4)).text()
        '((_2,_4),_4,_2):((_1,_8),_2,_32)'

    Source: CUTLASS ``include/cute/layout.hpp`` (``tiled_divide``); pycute ``tiled_divide``.
    """
    return _divide_op("tiled_divide", a, tiler, _tiled_divide)


def _unpack(lay: _Lay) -> list[_Lay]:
    """C++'s slice ``layout(repeat<R>(_))``: the modes of a rank-R layout, or the layout
    itself, whole, when R is 1 (``repeat<1>(_)`` is ``_``: a rank-1 tuple stays nested)."""
    return _modes_of(lay) if _rank(lay) > 1 else [lay]


def _flat_divide(a: _Lay, t: Any) -> _Lay:
    z = _zipped_divide(a, t)
    return _make(_unpack(_mode(z, 0)) + _unpack(_mode(z, 1)))


def flat_divide(a: Any, tiler: Tiler) -> CuteLayout:
    """CuTe's ``flat_divide``: :func:`zipped_divide` with both modes unpacked:
    ``(tile0, tile1, …, rest0, rest1, …)``.

    Raises:
        NotPowerOfTwoError, LayoutError: as :func:`logical_divide`.

    Example::

        >>> flat_divide("(_8,_8):(_1,_8)", (2, 4)).text()
        '(_2,_4,_4,_2):(_1,_8,_2,_32)'

    Source: CUTLASS ``include/cute/layout.hpp`` (``flat_divide``: ``result(repeat<R0>(_),
    repeat<R1>(_))`` of the zipped divide; a part of rank 1 stays one nested mode, as that
    slice keeps it).
    """
    return _divide_op("flat_divide", a, tiler, _flat_divide)


# ----------------------------------------------------------------------------- products
def _logical_product(a: _Lay, t: Any) -> _Lay:
    if t is None:
        return a
    if isinstance(t, list):
        return _by_mode(_logical_product, a, t, "logical_product")
    cotarget = _size(a) * _cosize(t)  # any integer: only the result must be in the subset
    return _make([a, _compose(_complement(a, cotarget, "logical_product"), t)])


def logical_product(a: Any, tiler: Tiler) -> CuteLayout:
    """CuTe's ``logical_product(A, B)``: ``(A, complement(A, size(A)·cosize(B)) ∘ B)`` — mode 0
    is ``A``, mode 1 repeats it as ``B`` says; by-mode for a tuple tiler.

    Args:
        a: the block (power-of-two subset; a swizzle and offset are kept).
        tiler: a layout, an int ``n`` (``n:1``, as C++ reads it; pycute's int branch calls
            ``logical_divide`` instead), None, or a tuple of these.

    Returns:
        A :class:`~linlayout.cute.CuteLayout`.

    Raises:
        NotPowerOfTwoError: an operand or the result outside the subset.
        LayoutError: a block whose leaves overlap (no complement), unreadable input.

    Example::

        >>> logical_product("(_2,_2):(_4,_1)", "_4:_1").text()
        '((_2,_2),(_2,_2)):((_4,_1),(_2,_8))'

    Source: CUTLASS ``include/cute/layout.hpp`` (``logical_product``); pycute
    ``logical_product``.
    """
    return _divide_op("logical_product", a, tiler, _logical_product)


def _zipped_product(a: _Lay, t: Any) -> _Lay:
    return _unzip(_logical_product, a, t)


def zipped_product(a: Any, tiler: Tiler) -> CuteLayout:
    """CuTe's ``zipped_product``: :func:`logical_product` gathered as ``((block…),
    (repeats…))``.

    Raises:
        NotPowerOfTwoError, LayoutError: as :func:`logical_product`.

    Source: CUTLASS ``include/cute/layout.hpp`` (``zipped_product``); pycute
    ``zipped_product``.
    """
    return _divide_op("zipped_product", a, tiler, _zipped_product)


def tiled_product(a: Any, tiler: Tiler) -> CuteLayout:
    """CuTe's ``tiled_product``: :func:`zipped_product` with the repeats unpacked.

    Raises:
        NotPowerOfTwoError, LayoutError: as :func:`logical_product`.

    Source: CUTLASS ``include/cute/layout.hpp`` (``tiled_product``); pycute ``tiled_product``.
    """
    def build(x: _Lay, t: Any) -> _Lay:
        z = _zipped_product(x, t)
        return _make([_mode(z, 0)] + _modes_of(_mode(z, 1)))
    return _divide_op("tiled_product", a, tiler, build)


def flat_product(a: Any, tiler: Tiler) -> CuteLayout:
    """CuTe's ``flat_product``: :func:`zipped_product` with both modes unpacked.

    Raises:
        NotPowerOfTwoError, LayoutError: as :func:`logical_product`.

    Source: CUTLASS ``include/cute/layout.hpp`` (``flat_product``).
    """
    def build(x: _Lay, t: Any) -> _Lay:
        z = _zipped_product(x, t)
        return _make(_unpack(_mode(z, 0)) + _unpack(_mode(z, 1)))
    return _divide_op("flat_product", a, tiler, build)


def _append(lay: _Lay, r: int) -> _Lay:
    """CuTe ``append<R>``: pad with ``_1:_0`` modes to rank ``r`` (an int mode stays one when
    ``r`` is 1)."""
    if _rank(lay) == r:
        return lay
    return _make(_modes_of(lay) + [(1, 0)] * (r - _rank(lay)))


def _zip(x: _Lay, y: _Lay) -> _Lay:
    """CuTe ``zip`` of two rank-R layouts: ``((x0,y0),(x1,y1),…)``; an int-shaped ``x`` gives
    the one mode ``((x,y))`` with ``y`` whole (C++'s ``zip`` of a non-tuple; where C++ has no
    rule — a tuple ``x``, an int ``y`` — ``y`` is read as a rank-1 tuple)."""
    if not isinstance(x[0], tuple):
        return ((x[0], y[0]),), ((x[1], y[1]),)
    if not isinstance(y[0], tuple):
        y = ((y[0],), (y[1],))
    return _make(_make([_mode(x, i), _mode(y, i)]) for i in range(_rank(x)))


def _rank_product(op: str, a: Any, tiler: Any, block_first: bool) -> CuteLayout:
    cl = _read(a, op)
    t = _tiler(tiler, op)
    if t is None or isinstance(t, list):
        raise LayoutError(f"{op}: the tiler must be one layout (or an int), got {shown(tiler)}")
    lay = (cl.shape, cl.stride)
    r = max(_rank(lay), _rank(t))
    prod = _logical_product(_append(lay, r), _append(t, r))
    block, reps = _mode(prod, 0), _mode(prod, 1)
    return _result(cl, _zip(block, reps) if block_first else _zip(reps, block), op)


def blocked_product(a: Any, tiler: Any) -> CuteLayout:
    """CuTe's ``blocked_product(block, tiler)``: the block repeated over the tiler, mode by
    mode — mode ``k`` of the result is ``(block_k, repeat_k)`` (the block's elements
    contiguous, then the repeats).

    Args:
        a: the block (power-of-two subset; a swizzle and offset are kept).
        tiler: one layout (or an int ``n``, ``n:1``); both are padded to the larger rank with
            ``_1:_0`` modes (CuTe ``append<R>``).

    Returns:
        A :class:`~linlayout.cute.CuteLayout` of rank ``max(rank(a), rank(tiler))``
        (CUTLASS 4's definition: ``zip`` of the logical product's two modes, no coalesce).

    Raises:
        NotPowerOfTwoError: an operand or the result outside the subset.
        LayoutError: a tuple tiler, a block whose leaves overlap, unreadable input.

    Example::

        >>> blocked_product("(_2,_2):(_1,_2)", "(_2,_4):(_1,_2)").text()
        '((_2,_2),(_2,_4)):((_1,_4),(_2,_8))'

    Source: CUTLASS ``include/cute/layout.hpp`` (``blocked_product``); built on pycute's
    ``logical_product``.
    """
    return _rank_product("blocked_product", a, tiler, True)


def raked_product(a: Any, tiler: Any) -> CuteLayout:
    """CuTe's ``raked_product(block, tiler)``: as :func:`blocked_product` with the repeats
    innermost — mode ``k`` is ``(repeat_k, block_k)`` (the repeats interleaved, "raked").

    Raises:
        NotPowerOfTwoError, LayoutError: as :func:`blocked_product`.

    Example::

        >>> raked_product("(_2,_2):(_1,_2)", "(_2,_4):(_1,_2)").text()
        '((_2,_2),(_4,_2)):((_4,_1),(_8,_2))'

    Source: CUTLASS ``include/cute/layout.hpp`` (``raked_product``).
    """
    return _rank_product("raked_product", a, tiler, False)


# ----------------------------------------------------------------------------- sizes
def _read_any(layout: Any) -> CuteLayout:
    return parse_cute(layout)


def _shape(t: IntTuple) -> IntTuple:
    """An IntTuple shape given directly: positive int leaves (LayoutError otherwise)."""
    inttuple.depth(t)
    for s in flatten(t):
        if s < 1:
            raise LayoutError(f"the shape {shown(t)} has the entry {s}; CuTe shapes are positive")
    return t


def size(layout: Any) -> int:
    """CuTe's ``size``: the number of coordinates (the product of the shape).

    Args:
        layout: a CuTe layout, or an IntTuple shape (an int or a tuple).

    Raises:
        LayoutError: unreadable input, or a shape entry below 1.

    Example::

        >>> size("((_8,_8),_64):((_64,_512),_1)"), size((4, (2, 8)))
        (4096, 64)
    """
    if isinstance(layout, (int, tuple)) and not isinstance(layout, bool):
        return product(_shape(layout))
    return _read_any(layout).size


def cosize(layout: Any) -> int:
    """CuTe's ``cosize``: one past the largest index of the (inner) layout, ``L(size-1)+1``
    (strides are non-negative in the subset).

    Raises:
        NotPowerOfTwoError: the layout is outside the power-of-two subset.
        LayoutError: unreadable input.

    Example::

        >>> cosize("(_4,_2):(_1,_16)")
        20

    Source: CUTLASS ``include/cute/layout.hpp`` (``cosize``); pycute ``cosize``.
    """
    cl = _read(layout, "cosize")
    return _cosize((cl.shape, cl.stride))


def rank(layout: Any) -> int:
    """CuTe's ``rank``: the number of top-level modes (1 for an int shape).

    Args:
        layout: a CuTe layout, or an IntTuple.

    Example::

        >>> rank("((_8,_8),_64):((_64,_512),_1)"), rank(8)
        (2, 1)

    Source: CuTe's ``rank`` (``include/cute/layout.hpp``; pycute ``Layout.__len__``).

    Raises:
        LayoutError: ``layout`` is not CuTe text, a layout or an IntTuple, or does not parse.
    """
    if isinstance(layout, (int, tuple)) and not isinstance(layout, bool):
        _shape(layout)
        return len(layout) if isinstance(layout, tuple) else 1
    return _read_any(layout).rank


def depth(layout: Any) -> int:
    """CuTe's ``depth``: the nesting depth of the shape (0 for an int, 1 for a flat tuple).

    Args:
        layout: a CuTe layout, or an IntTuple.

    Raises:
        LayoutError: unreadable input.

    Example::

        >>> depth("((_8,_8),_64):((_64,_512),_1)"), depth("_8:_1")
        (2, 0)
    """
    if isinstance(layout, (int, tuple)) and not isinstance(layout, bool):
        return inttuple.depth(_shape(layout))
    return inttuple.depth(_read_any(layout).shape)


# ----------------------------------------------------------------------------- downcast
def _downcast(shape: IntTuple, stride: IntTuple, n: int) -> _Lay:
    if isinstance(shape, tuple):
        parts = [_downcast(s, d, n) for s, d in zip(shape, stride)]
        return tuple(p[0] for p in parts), tuple(p[1] for p in parts)
    if stride in (1, -1):
        return shape * n, stride
    return shape, stride * n


def downcast(layout: Any, n: int) -> CuteLayout:
    """CuTe's ``downcast<n>``: a layout in units ``n`` times smaller (the inverse of
    :func:`~linlayout.cute.upcast` on layouts it accepts): a stride-1 leaf gets ``n`` times
    the shape, every other stride is multiplied by ``n``.

    Args:
        layout: a plain layout in the power-of-two subset with a stride-1 leaf (CuTe:
            "Downcast requires adjacent elements").
        n: the unit ratio, a power of two (16 turns 16-bit elements into bits).

    Raises:
        NotPowerOfTwoError: the layout outside the subset.
        LayoutError: a swizzle or offset, no stride-1 leaf, ``n`` not a power of two.

    Example::

        >>> downcast("(_32,(_2,_4)):(_2,(_1,_64))", 16).text()
        '(_32,(_32,_4)):(_32,(_1,_1024))'

    Source: CUTLASS ``include/cute/layout.hpp`` (``downcast``).
    """
    cl = _read(layout, "downcast")
    log2_exact(n, "n")
    if cl.is_composed:
        raise LayoutError(f"{cl.text()}: downcast applies to a plain layout (no swizzle or "
                          "offset)")
    if 1 not in flatten(cl.stride):
        raise LayoutError(f"downcast: {cl.text()} has no stride-1 leaf (CuTe: 'Downcast "
                          "requires adjacent elements')")
    return _plain(_downcast(cl.shape, cl.stride, n), "downcast")
