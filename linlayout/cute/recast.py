"""CuTe's ``upcast<N>``: a layout in small units (bits) re-expressed in units ``N`` times larger.

CUTLASS writes copy atoms in bits (``Copy_Traits``: "Map from (src-thr,src-val) to bit") and
converts them for an element type ``T`` with ``recast_layout<uint1_t, T>``, i.e.
``upcast<sizeof_bits<T>>`` (``Copy_Atom<Op, T>::ValLayoutSrc``, ``include/cute/atom/
copy_atom.hpp``). Per leaf: a stride-0 leaf stays; otherwise ``shape -> ceil_div(shape,
ceil_div(N, |stride|))`` and ``stride -> sign(stride) · ceil_div(|stride|, N)``, which requires
``|stride|`` to divide ``N`` or ``N`` to divide ``|stride|``. Worked example, ldmatrix's
register side ``(_32,(_32,_4)):(_32,(_1,_1024))`` for 16-bit elements::

    thread leaf 32:32   -> 32:2       (a thread's 32 bits start every 2 elements)
    value leaves 32:1   -> 2:1        (32 bits = 2 elements)
                 4:1024 -> 4:64

Source: CUTLASS ``include/cute/layout.hpp`` (``upcast``), ``include/cute/atom/copy_atom.hpp``.
"""

from __future__ import annotations

from typing import Any

from .._checks import log2_exact
from ..errors import LayoutError
from .cutelayout import CuteLayout
from .inttuple import IntTuple
from .parse import parse_cute

__all__ = ["upcast"]


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _upcast(shape: IntTuple, stride: IntTuple, n: int) -> tuple[IntTuple, IntTuple]:
    if isinstance(shape, tuple):
        pairs = [_upcast(s, d, n) for s, d in zip(shape, stride)]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
    if stride == 0:
        return shape, 0
    a = abs(stride)
    if a % n and n % a:
        raise LayoutError(f"upcast<{n}>: the stride {stride} neither divides nor is divisible "
                          f"by {n} (CuTe's 'Divisibility condition')")
    sign = 1 if stride > 0 else -1
    return _ceil_div(shape, _ceil_div(n, a)), sign * _ceil_div(a, n)


def upcast(layout: Any, n: int) -> CuteLayout:
    """CuTe's ``upcast<n>(layout)`` (module docstring).

    Args:
        layout: a plain CuTe layout (text, :class:`~linlayout.cute.CuteLayout` or pycute).
        n: the unit ratio, a power of two (16 turns a layout in bits into one in 16-bit
            elements).

    Raises:
        LayoutError: a swizzled or offset layout, ``n`` not a power of two, or a stride that
            fails the divisibility condition.

    Example::

        >>> upcast("(_32,(_32,_4)):(_32,(_1,_1024))", 16).text()
        '(_32,(_2,_4)):(_2,(_1,_64))'
    """
    cl = parse_cute(layout)
    log2_exact(n, "n")
    if cl.is_composed:
        raise LayoutError(f"{cl.text()}: upcast applies to a plain layout (no swizzle or offset)")
    shape, stride = _upcast(cl.shape, cl.stride, n)
    return CuteLayout(shape, stride)
