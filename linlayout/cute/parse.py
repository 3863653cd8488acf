"""Read CuTe layouts as CuTe prints them (C++ ``cute::print`` and pycute ``str``), or pycute
objects, into :class:`~linlayout.cute.cutelayout.CuteLayout` values.

Accepted text (whitespace anywhere between tokens)::

    layout   := inttuple ':' inttuple                  (_64,_64):(_64,_1)   8:1
    inttuple := int | '(' inttuple (',' inttuple)* ','? ')'
    int      := '_'? '-'? digits                       _64 (static)   64 (run-time)
    composed := swizzle ' o ' offset ' o ' layout      Sw<3,4,3> o _0 o (_8,_64):(_64,_1)
              | swizzle ' o ' layout                   (offset 0)
    swizzle  := 'Sw<B,M,S>' | 'Swizzle<B,M,S>'        C++ print / C++ source
              | 'SW_B_M_S' | 'Swizzle(B,M,S)'          pycute str / repr
    offset   := int                                    _0, _32, 32
              | 'smem_ptr[' N 'b](unset)'              pointer flag: byte-address swizzle
              | 'M_' S '|(' d '&' F ')=' v             MixedBits (its value v)

pycute's printing (``SW_3_4_3 o 0 o (8, 64):(64, 1)``, ``(8,):(1,)``) is the same grammar.
Refused with a message: strides with ``@`` (``ScaledBasis``, TMA coordinate layouts),
``smem_sparse`` pointers, a layout as the outer function of a composition, a swizzle without
a layout, text longer than :data:`MAX_TEXT` characters, integers with more than 18 digits.

Source: CUTLASS ``include/cute/container/tuple.hpp`` (``print_tuple``),
``include/cute/layout.hpp`` (``print``), ``include/cute/layout_composed.hpp`` (``print``),
``include/cute/swizzle.hpp`` (``print(Swizzle)``, ``print(MixedBits)``),
``include/cute/pointer_flagged.hpp`` (``print(smem_ptr_flag_bits)``),
``include/cute/numeric/integral_constant.hpp`` (``_N`` for ``Int<N>``); pycute
``layout.py``/``swizzle.py`` (``__str__``).
"""

from __future__ import annotations

import re
from typing import Any

from .._checks import shown
from ..errors import LayoutError
from .cutelayout import CuteLayout
from .inttuple import MAX_DEPTH, IntTuple

__all__ = ["MAX_TEXT", "from_pycute", "parse_cute"]

#: Longest text :func:`parse_cute` reads (characters).
MAX_TEXT = 1 << 16

_INT = re.compile(r"_?-?\d{1,18}(?!\d)")
_LONG_INT = re.compile(r"_?-?\d{19}")
_SW_CPP = re.compile(r"(?:Sw|Swizzle)\s*<\s*(-?\d{1,6})\s*,\s*(-?\d{1,6})\s*,\s*(-?\d{1,6})\s*>")
_SW_PY = re.compile(r"SW_(-?\d{1,6})_(-?\d{1,6})_(-?\d{1,6})(?![\w])")
_SW_REPR = re.compile(r"Swizzle\s*\(\s*(-?\d{1,6})\s*,\s*(-?\d{1,6})\s*,\s*(-?\d{1,6})\s*\)")
_PTR = re.compile(r"smem_ptr\s*\[\s*(\d{1,6})\s*b\s*\]\s*\(\s*unset\s*\)")
_SPARSE = re.compile(r"smem_sparse")
_MIXED = re.compile(r"M_-?\d{1,6}\s*\|\s*\(\s*_?\d{1,18}\s*&\s*_?\d{1,18}\s*\)\s*=\s*(\d{1,18})")
_SEP = re.compile(r"o(?![\w])")


class _Reader:
    """A cursor over the text; every error names the column."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, msg: str) -> LayoutError:
        snippet = self.text if len(self.text) <= 80 else self.text[:77] + "..."
        return LayoutError(f"CuTe layout {shown(snippet)}, column {self.pos + 1}: {msg}")

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos:self.pos + 1]

    def at_end(self) -> bool:
        self.skip()
        return self.pos >= len(self.text)

    def match(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        self.skip()
        m = pattern.match(self.text, self.pos)
        if m:
            self.pos = m.end()
        return m

    def expect(self, char: str, what: str) -> None:
        if self.peek() != char:
            found = self.peek() or "the end"
            raise self.error(f"expected {shown(char)} {what}, found {shown(found)}")
        self.pos += 1

    # ------------------------------------------------------------------ grammar
    def int_tuple(self, level: int = 0) -> IntTuple:
        if level > MAX_DEPTH:
            raise self.error(f"nested deeper than {MAX_DEPTH} levels")
        if self.peek() == "(":
            self.pos += 1
            items = [self.int_tuple(level + 1)]
            while self.peek() == ",":
                self.pos += 1
                if self.peek() == ")":  # pycute's rank-1 tuple: (8,)
                    break
                items.append(self.int_tuple(level + 1))
            self.expect(")", "to close the tuple")
            return tuple(items)
        m = self.match(_INT)
        if not m:
            if _LONG_INT.match(self.text, self.pos):
                raise self.error("an integer with more than 18 digits is refused")
            found = self.peek() or "the end"
            raise self.error(f"expected an integer such as _64 or 64, or a tuple, found "
                             f"{shown(found)}")
        if self.peek() == "@":
            raise self.error("strides with '@' (ScaledBasis, e.g. _1@0) are coordinate "
                             "layouts of TMA tensors, not offsets; only integer strides are "
                             "accepted")
        return int(m.group(0).lstrip("_"))

    def layout(self) -> tuple[IntTuple, IntTuple]:
        shape = self.int_tuple()
        if self.peek() != ":":
            raise self.error("expected ':' and the strides after the shape (a layout is "
                             "shape:stride, e.g. (_8,_64):(_64,_1))")
        self.pos += 1
        return shape, self.int_tuple()

    def swizzle(self) -> tuple[int, int, int] | None:
        for pat in (_SW_CPP, _SW_PY, _SW_REPR):
            m = self.match(pat)
            if m:
                return int(m.group(1)), int(m.group(2)), int(m.group(3))
        return None

    def separator(self) -> bool:
        return self.match(_SEP) is not None

    def offset(self) -> tuple[int, int | None] | None:
        """``(offset, pointer_bits)`` if an offset follows (then an ``o`` must follow it)."""
        start = self.pos
        m = self.match(_PTR)
        if m:
            return 0, int(m.group(1))
        self.skip()
        if _SPARSE.match(self.text, self.pos):
            raise self.error("smem_sparse pointers (structured-sparse operands) are not "
                             "supported")
        m = self.match(_MIXED)
        if m:
            return int(m.group(1)), None
        m = self.match(_INT)
        if m:
            if self.separator():
                self.pos -= 1  # leave the 'o' for the caller
                value = int(m.group(0).lstrip("_"))
                if value < 0:
                    raise self.error(f"the offset {value} is negative")
                return value, None
            if self.peek() == "(":
                raise self.error("expected ' o ' after the offset")
        self.pos = start
        return None


def parse_cute(text: Any) -> CuteLayout:
    """Parse CuTe's printed layout syntax (module docstring) into a :class:`CuteLayout`.

    Args:
        text: a string such as ``"(_64,_64):(_64,_1)"``, ``"((_8,_8),_64):((_64,_512),_1)"``,
            ``"Sw<3,4,3> o _0 o (_8,_64):(_64,_1)"``,
            ``"Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"`` or pycute's
            ``"SW_3_4_3 o 0 o (8, 64):(64, 1)"``. A :class:`CuteLayout` is returned as is;
            pycute ``Layout``/``ComposedLayout`` objects are converted (:func:`from_pycute`).

    Returns:
        The layout, not yet checked for F₂-linearity (:func:`linlayout.cute.parse_layout`
        does that).

    Raises:
        LayoutError: anything else, with the column and what was expected there.

    Example::

        >>> parse_cute("Sw<3,4,3> o _0 o ((_8,_8),_64):((_64,_512),_1)").swizzle
        (3, 4, 3)
        >>> parse_cute("SW_3_4_3 o 0 o (8, 64):(64, 1)").text()
        'Sw<3,4,3> o _0 o (_8,_64):(_64,_1)'
    """
    if isinstance(text, CuteLayout):
        return text
    if not isinstance(text, str):
        return from_pycute(text)
    if len(text) > MAX_TEXT:
        raise LayoutError(f"a CuTe layout text of {len(text)} characters is refused (at most "
                          f"{MAX_TEXT})")
    r = _Reader(text)
    if r.at_end():
        raise LayoutError("empty CuTe layout text; write it as CuTe prints it, e.g. "
                          "(_64,_64):(_64,_1)")
    swz = r.swizzle()
    offset, pointer_bits = 0, None
    if swz is not None:
        if not r.separator():
            if r.at_end():
                raise r.error("a swizzle alone has no shape; compose it with a layout, e.g. "
                              "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)")
            raise r.error("expected ' o ' after the swizzle")
        got = r.offset()
        if got is not None:
            offset, pointer_bits = got
            if not r.separator():
                raise r.error("expected ' o ' after the offset")
    elif r.peek() in ("(", "_", "-") or r.peek().isdigit():
        pass
    else:
        raise r.error("expected a layout such as (_64,_64):(_64,_1) or a swizzle such as "
                      "Sw<3,4,3>")
    shape, stride = r.layout()
    if not r.at_end():
        if r.separator():
            raise r.error("a composition whose outer function is a layout is not supported; "
                          "only Sw<B,M,S> o offset o layout")
        raise r.error(f"unexpected {shown(r.peek())} after the layout")
    return CuteLayout(shape, stride, swz, offset, pointer_bits)


def from_pycute(obj: Any) -> CuteLayout:
    """Convert a pycute ``Layout`` or ``ComposedLayout`` (duck-typed: pycute is not imported).

    Args:
        obj: an object with ``shape`` and ``stride`` (a layout), or with ``layoutB`` (a
            swizzle with ``bits``, ``base``, ``shift``), ``offset`` (an int) and ``layoutA``
            (a layout) — pycute's ``ComposedLayout``, whose ``layoutB`` is the *outer*
            function.

    Raises:
        LayoutError: anything else (the message says what was found).

    Example::

        >>> class L:  # stands in for pycute.Layout((8, 64), (64, 1))
        ...     shape, stride = (8, 64), (64, 1)
        >>> from_pycute(L()).text()
        '(_8,_64):(_64,_1)'
    """
    if all(hasattr(obj, a) for a in ("layoutB", "offset", "layoutA")):
        outer, inner = obj.layoutB, obj.layoutA
        if not all(hasattr(outer, a) for a in ("bits", "base", "shift")):
            raise LayoutError("a pycute ComposedLayout whose outer function (layoutB) is not a "
                              f"Swizzle is not supported, got {type(outer).__name__}")
        if not (hasattr(inner, "shape") and hasattr(inner, "stride")):
            raise LayoutError("the inner layout (layoutA) of a pycute ComposedLayout must be a "
                              f"Layout, got {type(inner).__name__}")
        return CuteLayout(inner.shape, inner.stride, (outer.bits, outer.base, outer.shift),
                          obj.offset)
    if hasattr(obj, "shape") and hasattr(obj, "stride"):
        return CuteLayout(obj.shape, obj.stride)
    if all(hasattr(obj, a) for a in ("bits", "base", "shift")):
        raise LayoutError("a Swizzle alone has no shape; compose it with a layout")
    raise LayoutError(f"expected CuTe text, a CuteLayout or a pycute Layout/ComposedLayout, "
                      f"got {type(obj).__name__}")

