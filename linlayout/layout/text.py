"""Text and dict forms of a layout: Triton's ``toString``, the repr, JSON dicts, and parsing.

Method bodies of :class:`~linlayout.LinearLayout`: :func:`layout_str` is ``str()`` (Triton's
``LinearLayout::toString``, one line per basis), :func:`layout_repr` is ``repr()`` (a
constructor call), :func:`parse` reads either back, :func:`to_dict`/:func:`from_dict` are the
CLI's JSON layout format. Worked example::

    L = {"register": [[1, 0]], "lane": [[0, 1]]} -> {"dim0": 2, "dim1": 2}
    str(L) ==  " - register=1 -> (1, 0)\n - lane=1 -> (0, 1)\n"
               "where out dims are: [dim0 (size 2), dim1 (size 2)]"
    L.to_dict() == {"bases": {"register": [[1, 0]], "lane": [[0, 1]]},
                    "out_dims": {"dim0": 2, "dim1": 2}}
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from itertools import repeat
from operator import and_, rshift
from typing import TYPE_CHECKING, Any

from ..errors import LayoutError, LayoutParseError

if TYPE_CHECKING:
    from . import LinearLayout

__all__ = ["from_dict", "layout_repr", "layout_str", "parse", "to_dict"]


def to_dict(self) -> dict[str, Any]:
    """``{"bases": {...}, "out_dims": {...}}``: the JSON layout format of the CLI.

    The same data as Triton's ``#ttg.linear`` attribute plus the out-dim sizes, which
    that attribute leaves implicit.
    """
    return {"bases": self.bases, "out_dims": self.out_dims}


def from_dict(cls, data: Mapping[str, Any]) -> LinearLayout:
    """Inverse of :meth:`to_dict`.

    Raises:
        LayoutError: ``data`` lacks ``bases`` or ``out_dims`` or they are malformed.
    """
    if not isinstance(data, Mapping) or "bases" not in data or "out_dims" not in data:
        raise LayoutError(
            'a layout is a JSON object {"bases": {in_dim: [[...]]}, "out_dims": {name: size}}'
        )
    if not isinstance(data["out_dims"], Mapping):
        raise LayoutError('"out_dims" must be an object {name: size}')
    return cls(data["bases"], data["out_dims"])


def parse(cls, text: str) -> LinearLayout:
    """Read a layout back from its ``repr()`` or its ``str()`` (Triton's ``toString``).

    No ``eval``: the repr is read with :func:`ast.literal_eval` on the literal arguments of
    the ``LinearLayout(...)`` call, the str line by line. Triton's output (with its leading
    newline) parses too. The str format cannot carry dim names that contain ``=``, `` -> ``,
    ``, `` or `` (size``; the repr can carry any name.

    Raises:
        LayoutParseError: the text is in neither format (the offending line is quoted).
        LayoutError: the text is well formed but describes an invalid layout.

    Example::

        >>> L = LinearLayout({"register": [[1, 0]], "lane": [[0, 1]]}, {"dim0": 2, "dim1": 2})
        >>> LinearLayout.parse(repr(L)) == LinearLayout.parse(str(L)) == L
        True
    """
    if not isinstance(text, str):
        raise LayoutParseError(f"parse needs a str, got {type(text).__name__}")
    s = text.strip()
    if s.startswith("LinearLayout("):
        return _parse_repr(cls, s)
    return _parse_str(cls, s)


def _parse_repr(cls, s: str) -> LinearLayout:
    try:
        call = ast.parse(s, mode="eval").body
    except SyntaxError as exc:
        raise LayoutParseError(f"not a LinearLayout repr: {exc.msg} in {s[:80]!r}") from None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id == "LinearLayout" and 1 <= len(call.args) <= 2):
        raise LayoutParseError(
            f"a LinearLayout repr is LinearLayout({{bases}}, out_dims={{...}}), got {s[:80]!r}"
        )
    try:
        args = [ast.literal_eval(a) for a in call.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    except ValueError:
        raise LayoutParseError(f"the arguments of {s[:80]!r} are not literals") from None
    unknown = set(kwargs) - {"out_dims", "require_surjective"}
    if unknown or None in kwargs:
        raise LayoutParseError(f"unknown LinearLayout arguments {sorted(map(str, unknown))}")
    return cls(*args, **kwargs)


def _parse_str(cls, s: str) -> LinearLayout:
    if s == "(empty layout)":
        return cls.empty()
    m = _EMPTY_WITH_OUTS.fullmatch(s)
    if m:
        return cls({}, _parse_out_dims(m.group(1), s))
    lines = [ln.strip() for ln in s.splitlines() if ln.strip()]
    if not lines or not lines[-1].startswith(_WHERE):
        raise LayoutParseError(
            "a LinearLayout str ends with 'where out dims are: [...]' (Triton toString); "
            f"got {s[-80:]!r}"
        )
    outs = _parse_out_dims(lines[-1][len(_WHERE):], lines[-1])
    bases: dict[str, list[list[int]]] = {}
    current = None
    for ln in lines[:-1]:
        size1 = _SIZE1.fullmatch(ln)
        basis = _BASIS.fullmatch(ln)
        if size1:
            _new_parsed_dim(bases, size1.group(1), ln)
            current = None  # no continuation lines after a size-1 dim
        elif basis:
            name, img = basis.group("name"), basis.group("img")
            value = int(basis.group("value"))
            if basis.group("new"):
                current = _new_parsed_dim(bases, name, ln)
            if current != name or value != 1 << len(bases[name]):
                raise LayoutParseError(
                    f"basis line {ln!r} is out of order: expected {current}="
                    f"{1 << len(bases[current]) if current else 1} next"
                )
            vals = [v.strip() for v in img.split(",")] if img.strip() else []
            if not all(v.isdigit() for v in vals):
                raise LayoutParseError(f"basis line {ln!r} has a non-integer value")
            bases[name].append([int(v) for v in vals])
        else:
            raise LayoutParseError(f"cannot read line {ln!r} of a LinearLayout str")
    return cls(bases, outs)


def layout_repr(self) -> str:
    return f"LinearLayout({self.bases!r}, out_dims={self.out_dims!r})"


def layout_str(self) -> str:
    """Triton's ``toString``: one line per basis (`` - register=1 -> (0, 1)``), then the
    out dims. One %-format of a per-shape template (cached) with every value."""
    if not self._cols:
        return _str_template(self._in, self._out)
    key = (self._in, self._out)
    template = STR_TEMPLATES.get(key)
    if template is None:
        if len(STR_TEMPLATES) >= 256:
            STR_TEMPLATES.clear()
        template = STR_TEMPLATES[key] = _str_template(self._in, self._out)
    cols = self._cols
    fields = (self._meta or self.dim_tables).out_fields
    k = len(fields)
    values: list[int] = [0] * (k * len(cols))  # basis after basis, out dims in order
    if k == 2:  # the usual (dim0, dim1): unrolled
        (_, _, m0), (_, s1, _) = fields
        values[0::2] = map(and_, cols, repeat(m0))
        values[1::2] = map(rshift, cols, repeat(s1))
        return template % tuple(values)
    for j, (_, sh, m) in enumerate(fields):
        if j == k - 1:  # the top field needs no mask
            values[j::k] = map(rshift, cols, repeat(sh)) if sh else cols
        else:
            values[j::k] = map(and_, map(rshift, cols, repeat(sh)) if sh else cols,
                               repeat(m))
    return template % tuple(values)


#: ``(in dims, out dims) -> %-template`` of :func:`layout_str`; cleared when it reaches 256
#: entries, so it stays small whatever shapes a program prints.
STR_TEMPLATES: dict[tuple, str] = {}


def _str_template(ins: tuple[tuple[str, int], ...], outs: tuple[tuple[str, int], ...]) -> str:
    """The text of :meth:`LinearLayout.__str__` with ``%d`` for each value (``%`` escaped);
    the text itself when there are no values."""
    out_text = ", ".join(f"{n} (size {1 << b})" for n, b in outs)
    if not ins:
        return f"(empty layout with out-dims [{out_text}])" if outs else "(empty layout)"
    image = "(" + ", ".join(["%d"] * len(outs)) + ")"
    lines = []
    for name, b in ins:
        name = name.replace("%", "%%")
        if not b:
            lines.append(f" - {name} is a size 1 dimension")
        for i in range(b):
            lines.append(f"{' - ' if i == 0 else '   '}{name}={1 << i} -> {image}")
    lines.append(f"where out dims are: [{out_text.replace('%', '%%')}]")
    text = "\n".join(lines)
    return text if any(b for _, b in ins) else text.replace("%%", "%")


_WHERE = "where out dims are: ["
_EMPTY_WITH_OUTS = re.compile(r"\(empty layout with out-dims \[(.*)\]\)", re.S)
_SIZE1 = re.compile(r"- (.+) is a size 1 dimension")
_BASIS = re.compile(r"(?P<new>- )?(?P<name>.+)=(?P<value>\d+) -> \((?P<img>[^()]*)\)")
_OUT_DIM = re.compile(r"(.+) \(size (\d+)\)")


def _parse_out_dims(text: str, line: str) -> dict[str, int]:
    """``'dim0 (size 4), dim1 (size 2)]'`` (closing bracket optional) → ``{dim0: 4, dim1: 2}``."""
    body = text[:-1] if text.endswith("]") else text
    outs: dict[str, int] = {}
    for part in (p.strip() for p in body.split(", ")) if body.strip() else ():
        m = _OUT_DIM.fullmatch(part)
        if not m or m.group(1) in outs:
            raise LayoutParseError(f"cannot read out dim {part!r} in {line!r}")
        outs[m.group(1)] = int(m.group(2))
    return outs


def _new_parsed_dim(bases: dict[str, list[list[int]]], name: str, line: str) -> str:
    if name in bases:
        raise LayoutParseError(f"in dim {name!r} appears twice (line {line!r})")
    bases[name] = []
    return name
