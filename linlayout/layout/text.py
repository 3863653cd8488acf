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

__all__ = ["MAX_REPR_INT_DIGITS", "MAX_REPR_NESTING", "from_dict", "layout_repr", "layout_str", "parse",
           "to_dict"]


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

    No ``eval``: the repr's literal arguments are read by a small one-pass reader (dicts,
    lists, tuples, str, int, True/False; at most :data:`MAX_REPR_NESTING` levels and
    :data:`MAX_REPR_INT_DIGITS` digits), the str line by line (integers of at most
    :data:`MAX_REPR_INT_DIGITS` digits). Triton's output (with its leading
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


#: Limits of :func:`parse` on its repr form: nesting of ``[``/``{``/``(`` and digits of one
#: integer. Both are far above any layout (bases nest 3 deep; a value has at most as many
#: digits as 2^(out bits)) and keep parsing linear in the text, whatever
#: ``sys.set_int_max_str_digits`` says (its floor is 640 digits).
MAX_REPR_NESTING = 16
MAX_REPR_INT_DIGITS = 600

_REPR_TOKEN = re.compile(r"""[ \t\r\n]*(?:(?P<str>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")"""
                         r"|(?P<int>-?[0-9]+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                         r"|(?P<punct>[\[\](){}:,=]))")
_CLOSERS = {"[": "]", "(": ")", "{": "}"}


class _ReprReader:
    """A reader of the literal arguments of ``LinearLayout(...)``: dicts, lists, tuples, str,
    int, True/False — iteration-bounded, one pass, no ``eval`` and no :mod:`ast` (whose parser
    runs out of memory or recursion on hostile text)."""

    def __init__(self, text: str):
        self.s, self.i, self.depth = text, 0, 0

    def fail(self, expected: str) -> LayoutParseError:
        found = self.s[self.i:self.i + 30]
        return LayoutParseError(f"not a LinearLayout repr: expected {expected} at character "
                                f"{self.i}, found {found!r}" if found else
                                f"not a LinearLayout repr: expected {expected}, found the end")

    def token(self) -> tuple[str, str]:
        m = _REPR_TOKEN.match(self.s, self.i)
        if not m:
            raise self.fail("a literal, a name or one of []{}():,=")
        self.i = m.end()
        kind = m.lastgroup or "punct"
        return kind, m.group(kind)

    def peek(self) -> tuple[str, str] | None:
        m = _REPR_TOKEN.match(self.s, self.i)
        if not m:
            return None
        kind = m.lastgroup or "punct"
        return kind, m.group(kind)

    def expect(self, punct: str) -> None:
        if self.token() != ("punct", punct):
            raise self.fail(repr(punct))

    def value(self) -> Any:
        kind, tok = self.token()
        if kind == "int":
            if len(tok.lstrip("-")) > MAX_REPR_INT_DIGITS:
                raise LayoutParseError(f"an integer with {len(tok.lstrip('-'))} digits in a "
                                       f"LinearLayout repr; at most {MAX_REPR_INT_DIGITS}")
            return int(tok)
        if kind == "str":
            return ast.literal_eval(tok)  # one flat string token: bounded work
        if kind == "name" and tok in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[tok]
        if kind == "punct" and tok in _CLOSERS:
            self.depth += 1
            if self.depth > MAX_REPR_NESTING:
                raise LayoutParseError(f"a LinearLayout repr nests more than {MAX_REPR_NESTING} "
                                       "levels deep; no layout does")
            try:
                return self.container(tok)
            finally:
                self.depth -= 1
        self.i -= len(tok)
        raise self.fail("a literal (dict, list, tuple, str, int, True or False)")

    def container(self, opener: str) -> Any:
        closer = _CLOSERS[opener]
        items: list[Any] = []
        pairs: dict[Any, Any] = {}
        trailing_comma = False
        while True:
            if self.peek() == ("punct", closer):
                self.token()
                break
            item = self.value()
            if opener == "{":
                self.expect(":")
                if not isinstance(item, (str, int, bool)):
                    raise LayoutParseError("not a LinearLayout repr: a dict key must be a str "
                                           f"or int, got {type(item).__name__}")
                pairs[item] = self.value()
            else:
                items.append(item)
            kind, tok = self.token()
            if tok == closer and kind == "punct":
                trailing_comma = False
                break
            if (kind, tok) != ("punct", ","):
                self.i -= len(tok)
                raise self.fail(f"',' or {closer!r}")
            trailing_comma = True
        if opener == "{":
            return pairs
        if opener == "(":
            return tuple(items) if len(items) != 1 or trailing_comma else items[0]
        return items

    def call(self) -> tuple[list[Any], dict[str, Any]]:
        if self.token() != ("name", "LinearLayout"):
            raise self.fail("'LinearLayout'")
        self.expect("(")
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        while True:
            nxt = self.peek()
            if nxt == ("punct", ")"):
                self.token()
                break
            save = self.i
            kind, tok = self.token()
            if kind == "name" and self.peek() == ("punct", "="):
                self.token()
                if tok in kwargs:
                    raise LayoutParseError(f"LinearLayout argument {_q(tok)} is given twice")
                kwargs[tok] = self.value()
            else:
                if kwargs:
                    raise LayoutParseError("a positional argument follows a keyword argument "
                                           "in the LinearLayout repr")
                self.i = save
                args.append(self.value())
            kind, tok = self.token()
            if (kind, tok) == ("punct", ")"):
                break
            if (kind, tok) != ("punct", ","):
                self.i -= len(tok)
                raise self.fail("',' or ')'")
        if self.s[self.i:].strip():
            raise self.fail("the end of the text after 'LinearLayout(...)'")
        return args, kwargs


def _parse_repr(cls, s: str) -> LinearLayout:
    args, kwargs = _ReprReader(s).call()
    if not 1 <= len(args) <= 2:
        raise LayoutParseError(
            f"a LinearLayout repr is LinearLayout({{bases}}, out_dims={{...}}), got {s[:80]!r}"
        )
    unknown = set(kwargs) - {"out_dims", "require_surjective"}
    if unknown:
        raise LayoutParseError(f"unknown LinearLayout arguments {_q(sorted(unknown))}")
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
            value = _str_int(basis.group("value"), ln)
            if basis.group("new"):
                current = _new_parsed_dim(bases, name, ln)
            if current != name or value != 1 << len(bases[name]):
                raise LayoutParseError(
                    f"basis line {_q(ln)} is out of order: expected {str(current)[:60]}="
                    f"{1 << len(bases[current]) if current else 1} next"
                )
            vals = [v.strip() for v in img.split(",")] if img.strip() else []
            if not all(v.isdigit() for v in vals):
                raise LayoutParseError(f"basis line {_q(ln)} has a non-integer value")
            bases[name].append([_str_int(v, ln) for v in vals])
        else:
            raise LayoutParseError(f"cannot read line {_q(ln)} of a LinearLayout str")
    return cls(bases, outs)


def layout_repr(self) -> str:
    """``repr()`` of a layout: the constructor call ``LinearLayout({...}, out_dims={...})``,
    which ``LinearLayout.parse`` (and ``eval`` with ``LinearLayout`` in scope) reads back."""
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
_BASIS = re.compile(r"(?P<new>- )?(?P<name>[^=]+)=(?P<value>\d+) -> \((?P<img>[^()]*)\)")
_OUT_DIM = re.compile(r"(.+) \(size (\d+)\)")


def _parse_out_dims(text: str, line: str) -> dict[str, int]:
    """``'dim0 (size 4), dim1 (size 2)]'`` (closing bracket optional) → ``{dim0: 4, dim1: 2}``."""
    body = text[:-1] if text.endswith("]") else text
    outs: dict[str, int] = {}
    for part in (p.strip() for p in body.split(", ")) if body.strip() else ():
        m = _OUT_DIM.fullmatch(part)
        if not m or m.group(1) in outs:
            raise LayoutParseError(f"cannot read out dim {_q(part)} in {_q(line)}")
        outs[m.group(1)] = _str_int(m.group(2), line)
    return outs


def _q(text: object, limit: int = 100) -> str:
    """``repr(text)`` cut to about ``limit`` characters: messages quote input, boundedly."""
    r = repr(text)
    return r if len(r) <= limit else r[:limit - 1] + "…"


def _str_int(digits: str, line: str) -> int:
    """``int(digits)`` with at most :data:`MAX_REPR_INT_DIGITS` digits."""
    if len(digits) > MAX_REPR_INT_DIGITS:
        raise LayoutParseError(f"an integer with {len(digits)} digits in line {line[:60]!r}…; "
                               f"at most {MAX_REPR_INT_DIGITS}")
    return int(digits)


def _new_parsed_dim(bases: dict[str, list[list[int]]], name: str, line: str) -> str:
    if name in bases:
        raise LayoutParseError(f"in dim {_q(name)} appears twice (line {_q(line)})")
    bases[name] = []
    return name
