"""linlayout memory layouts back to CuTe: the shortest ``Sw<B,M,S> o _0 o shape:stride``.

A memory layout ``offset -> (dim0, dim1, …)`` is the inverse of a CuTe map ``coordinate ->
offset``. That map has a CuTe form exactly when it factors as ``Sw ∘ L``: ``Sw`` one
``Swizzle<B,M,S>`` (or none) on the offset, ``L`` a *strided* layout — every coordinate bit
lands on one offset bit. Because a CuTe swizzle is its own inverse (the bits it reads are
never written), ``L = Sw ∘ F`` for the forward map ``F``, so :func:`to_cute_layout` tries
the identity and every ``Swizzle<B,M,S>`` whose bits lie inside the ``N`` offsets, keeps those
for which ``Sw ∘ F`` sends each coordinate bit to a single offset bit, and writes each mode's
coordinate bits as maximal runs (a run of ``k`` bits landing on consecutive offset bits from
``p`` is one leaf ``_2^k:_2^p``). Of the candidates it returns the shortest text (ties: the
smallest ``(B, M, S)``); without a swizzle it is a plain layout (CuTe drops identity
swizzles from compositions too).

Worked example: Triton's ``#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8,
order = [1, 0]}>`` on 8×64 halves is ``offset -> (row, col)`` with row ``r`` starting at
offset ``64r`` and its 8-element chunks XORed with ``r``: ``Sw<3,3,3> o _0 o
(_8,_64):(_64,_1)``.

Units: the offsets are the memory layout's (elements); the swizzle is on the element index
(``o _0 o``). The byte-address form of the SM90 atoms is ``Sw<B, M + log2(bytes per element),
S> o smem_ptr[…b](unset) o …``.

Source: CUTLASS ``include/cute/swizzle.hpp`` (``Swizzle`` and its ``print``),
``include/cute/layout_composed.hpp`` (``ComposedLayout``'s ``print``),
``include/cute/swizzle_layout.hpp`` (``composition`` drops ``Swizzle<0,M,S>``).
"""

from __future__ import annotations

from typing import Any

from .. import f2
from ..errors import LayoutError
from ..hardware.kinds import memory_columns
from ..layout import LinearLayout
from .cutelayout import CuteLayout
from .swizzle import apply_xor_pairs, xor_pairs

__all__ = ["NoCuteFormError", "to_cute", "to_cute_layout"]


class NoCuteFormError(LayoutError):
    """A valid memory layout that no single ``Sw<B,M,S> o _0 o shape:stride`` equals; the
    message says why."""


def _out_order(memory: LinearLayout) -> list[str]:
    names = list(memory.out_dim_names)
    if all(n.startswith("dim") and n[3:].isdigit() for n in names):
        return sorted(names, key=lambda n: int(n[3:]))
    return names


def _candidates(n: int) -> list[tuple[int, int, int]]:
    """Every ``(B, M, S)`` with ``B >= 1`` whose read and written bits lie below ``n``."""
    out = []
    for B in range(1, n // 2 + 1):
        for S in range(B, n - B + 1):
            for M in range(0, n - B - S + 1):  # reads M+S…M+S+B-1, writes M…M+B-1
                out.append((B, M, S))
                out.append((B, M, -S))  # reads M…M+B-1, writes M+S…
    return out


def _strided(cols: list[int], sizes: list[int]) -> tuple[Any, Any] | None:
    """(shape, stride) when every column is one bit, else None."""
    if any(c & (c - 1) or not c for c in cols):
        return None
    shape, stride = [], []
    j = 0
    for size in sizes:
        k = size.bit_length() - 1
        mode = cols[j:j + k]
        j += k
        leaves: list[tuple[int, int]] = []  # (bits, first stride)
        for c in mode:
            if leaves and leaves[-1][1] << leaves[-1][0] == c:
                leaves[-1] = (leaves[-1][0] + 1, leaves[-1][1])
            else:
                leaves.append((1, c))
        if not leaves:
            shape.append(1)
            stride.append(0)
        elif len(leaves) == 1:
            shape.append(1 << leaves[0][0])
            stride.append(leaves[0][1])
        else:
            shape.append(tuple(1 << b for b, _ in leaves))
            stride.append(tuple(s for _, s in leaves))
    if len(shape) == 1 and not isinstance(shape[0], tuple):  # one mode: _8:_1 rather than the rank-1 tuple (_8):(_1)
        return shape[0], stride[0]
    return tuple(shape), tuple(stride)


def to_cute_layout(memory: LinearLayout) -> CuteLayout:
    """The shortest CuTe layout equal to a memory layout (module docstring).

    Args:
        memory: a shared-memory layout: in dims ``offset`` (or ``vector, bank, segment``
            [+ ``reps``], flattened in that order, as :func:`linlayout.synthesize_swizzle`
            returns), out dims ``dim0, dim1, …`` (other names: in the layout's order), a
            bijection.

    Returns:
        A :class:`~linlayout.cute.CuteLayout` whose top-level mode ``k`` is out dim ``k``, with
        ``parse_layout(result) == memory`` up to the in-dim names.

    Raises:
        NoCuteFormError: the layout spans CTAs (a ``block`` dim), or no single swizzle of a
            strided layout equals it (the message names a coordinate bit that lands on several
            offset bits).
        LayoutError: not a shared-memory layout, or not a bijection.

    Example::

        >>> from linlayout.triton import swizzled_shared
        >>> M = swizzled_shared(8, 1, 8, [1, 0]).to_linear_layout([8, 64])
        >>> to_cute_layout(M).text()
        'Sw<3,3,3> o _0 o (_8,_64):(_64,_1)'
    """
    if not isinstance(memory, LinearLayout):
        raise LayoutError(f"memory must be a LinearLayout, got {type(memory).__name__}")
    order = _out_order(memory)
    cols, offset_bits = memory_columns(memory, tuple(order))
    if offset_bits != len(cols):
        raise NoCuteFormError("the layout spans several CTAs (a 'block' in dim); a CuTe "
                              "shared-memory layout describes one CTA's buffer")
    n = offset_bits
    forward = f2.inverse(list(cols), n)  # coordinate bit -> offset
    sizes = [memory.out_dims[d] for d in order]
    best: tuple[int, tuple[int, int, int], CuteLayout] | None = None
    plain = _strided(forward, sizes)
    if plain is not None:
        return CuteLayout(*plain)
    for B, M, S in _candidates(n):
        pairs = xor_pairs(B, M, S)
        got = _strided([apply_xor_pairs(pairs, c) for c in forward], sizes)
        if got is None:
            continue
        cl = CuteLayout(*got, swizzle=(B, M, S))
        key = (len(cl.text()), (B, M, S))
        if best is None or key < best[:2]:
            best = (key[0], key[1], cl)
    if best is not None:
        return best[2]
    for j, c in enumerate(forward):
        if c & (c - 1):
            dim, bit = _coordinate_bit(j, sizes, order)
            spots = [i for i in range(n) if c >> i & 1]
            raise NoCuteFormError(
                f"no CuTe form: {dim} bit {bit} lands on offset bits {spots} (an XOR of "
                f"several), and no single Sw<B,M,S> inside the {1 << n} offsets turns every "
                "coordinate bit into one offset bit (CuTe needs swizzle ∘ strided layout)"
            )
    raise NoCuteFormError("no CuTe form: no single Sw<B,M,S> turns every coordinate bit "
                          "into one offset bit")  # pragma: no cover (a column is never 0)


def _coordinate_bit(j: int, sizes: list[int], order: list[str]) -> tuple[str, int]:
    for name, size in zip(order, sizes):
        k = size.bit_length() - 1
        if j < k:
            return name, j
        j -= k
    raise AssertionError("coordinate bit out of range")  # pragma: no cover


def to_cute(memory: LinearLayout, *, static: bool = True) -> str:
    """CuTe text for a memory layout: ``to_cute_layout(memory).text(static=static)``.

    Raises:
        NoCuteFormError, LayoutError: as :func:`to_cute_layout`.

    Example::

        >>> from linlayout.cute import parse_layout
        >>> to_cute(parse_layout("((_8,_8),_64):((_64,_512),_1)"))
        '(_64,_64):(_64,_1)'
    """
    return to_cute_layout(memory).text(static=static)
