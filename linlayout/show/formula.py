"""A shared-memory layout's offset as an XOR formula in tensor coordinates.

A memory layout maps offset bits to tensor bits; its inverse writes every offset bit as the
XOR of some tensor-coordinate bits. Grouping those bits gives the formulas one writes by hand.
The article's 16×32 fp32 transpose (dim0 = m, dim1 = n) with offset bits ``0..4 = n ⊕ 2m`` and
``5..8 = m``::

    offset = 32·m + (n ⊕ 2·m)

How the formula is built (all exact, no heuristics that could change the value):

1. Offset bit ``i`` contains coordinate bit ``b`` of dim ``d``: record ``(d, δ = i − b)``.
   For a fixed ``(d, δ)`` the recorded ``b`` split into maximal runs ``[a, a + w)``; each run
   is a **part** ``((d >> a) & (2^w − 1)) << (a + δ)`` covering offset bits ``[a+δ, a+δ+w)``.
   The offset is the XOR of all parts.
2. Parts whose offset-bit ranges overlap form a **field** (XOR inside); fields cover disjoint
   bit ranges, so the offset is their *sum*. A field starting at offset bit ``g`` prints as
   ``2^g·(p₁ ⊕ p₂ …)``, fields in descending stride.
3. A part prints as ``d`` (whole coordinate), ``(d & 15)`` (low bits), ``⌊d/16⌋`` (high bits) or
   ``(⌊d/2⌋ & 7)`` (middle bits), times ``2^shift`` inside its field.

:func:`offset_fields` returns the structure, :func:`evaluate_fields` evaluates it, and
:func:`offset_formula` checks the evaluation against the layout before printing anything.
sympy is imported only by :func:`offset_formula_latex`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .. import f2
from .._checks import as_int, instance_of, need_mapping, sequence_of
from ..hardware.kinds import memory_columns
from ..errors import LayoutError
from ..layout import LinearLayout

__all__ = [
    "Field",
    "Part",
    "evaluate_fields",
    "offset_fields",
    "offset_formula",
    "offset_formula_latex",
]

#: Tensors up to this many elements are checked element by element; larger ones on every
#: tensor basis bit (the formula is F₂-linear, so that is a complete check too).
SELF_CHECK_ELEMENTS = 1 << 16


@dataclass(frozen=True)
class Part:
    """``((coord[dim] >> low_bit) & (2^width − 1)) << shift`` — one XOR operand of a field."""

    dim: str
    low_bit: int
    width: int
    shift: int


@dataclass(frozen=True)
class Field:
    """``2^stride_log2 · (XOR of parts)``; fields of one formula cover disjoint offset bits."""

    stride_log2: int
    parts: tuple[Part, ...]


def _checked_names(memory: LinearLayout, names: Mapping[str, str] | None) -> dict[str, str]:
    shown = {n: n for n in memory.out_dim_names}
    if names is None:
        return shown
    if not isinstance(names, Mapping):
        raise LayoutError(f"names must be a mapping {{out_dim: name}}, got {type(names).__name__}")
    for k, v in names.items():
        if k not in shown:
            raise LayoutError(f"names has key {k!r}, which is not an out dim of {list(shown)}")
        if not isinstance(v, str) or not v:
            raise LayoutError(f"names[{k!r}] must be a non-empty string, got {v!r}")
        shown[k] = v
    return shown


def _fields_from_rows(rows: list[int], out_bits: list[tuple[str, int]]) -> list[Field]:
    """Fields for ``value bit i = XOR of flat tensor bits set in rows[i]``."""
    where = [(name, b) for name, nb in out_bits for b in range(nb)]  # flat bit -> (dim, bit)
    runs: dict[tuple[str, int], set[int]] = {}
    for i, row in enumerate(rows):
        j = 0
        while row:
            if row & 1:
                name, b = where[j]
                runs.setdefault((name, i - b), set()).add(b)
            row >>= 1
            j += 1
    spans: list[tuple[int, int, str, int, int]] = []  # (lo, hi, dim, a, w) in value bits
    for (name, delta), bits in runs.items():
        for a in sorted(bits):
            if a - 1 in bits:
                continue
            w = 1
            while a + w in bits:
                w += 1
            spans.append((a + delta, a + delta + w, name, a, w))
    spans.sort()
    dim_order = {name: k for k, (name, _) in enumerate(out_bits)}
    fields: list[Field] = []
    group: list[tuple[int, int, str, int, int]] = []
    hi = -1
    for span in spans + [None]:  # type: ignore[list-item]
        if span is not None and group and span[0] < hi:
            group.append(span)
            hi = max(hi, span[1])
            continue
        if group:
            g = group[0][0]
            parts = sorted(
                (Part(dim=n, low_bit=a, width=w, shift=lo - g) for lo, _, n, a, w in group),
                key=lambda p: (p.shift, dim_order[p.dim], p.low_bit),
            )
            fields.append(Field(stride_log2=g, parts=tuple(parts)))
        if span is not None:
            group, hi = [span], span[1]
    fields.sort(key=lambda f: -f.stride_log2)
    return fields


def _inverse_rows(memory: LinearLayout) -> tuple[list[int], int, list[tuple[str, int]]]:
    """(rows of memory⁻¹ as flat-tensor-bit masks, number of offset bits, out dims in bits)."""
    cols, offset_bits = memory_columns(memory, memory.out_dim_names)
    inv = f2.inverse(list(cols))
    n = len(cols)
    rows = [sum(1 << j for j in range(n) if inv[j] >> i & 1) for i in range(n)]
    out_bits = [(name, memory.out_bits(name)) for name in memory.out_dim_names]
    return rows, offset_bits, out_bits


def offset_fields(memory: LinearLayout) -> tuple[list[Field], list[Field]]:
    """The offset (and block) of every tensor element as :class:`Field` lists.

    Args:
        memory: shared-memory layout, a bijection with in dims ``offset`` [+ ``block``] or
            ``vector, bank, segment`` [+ ``reps``] onto the tensor's out dims.

    Returns:
        ``(offset_fields, block_fields)``: the element offset (in elements, not bytes) and the
        CTA index, each ``Σ 2^stride · XOR(parts)``; ``block_fields`` is empty without a
        ``block`` dim.

    Raises:
        LayoutError: not a LinearLayout, or unknown in dims; NotInvertibleError: the layout
            is not a bijection.
    """
    instance_of(memory, LinearLayout, "memory")
    rows, offset_bits, out_bits = _inverse_rows(memory)
    return (_fields_from_rows(rows[:offset_bits], out_bits),
            _fields_from_rows(rows[offset_bits:], out_bits))


def evaluate_fields(fields: list[Field], coords: Mapping[str, int]) -> int:
    """Evaluate fields at one tensor element, exactly as the printed formula reads.

    Args:
        fields: from :func:`offset_fields`.
        coords: ``{out_dim: index}``.

    Returns:
        ``Σ 2^stride · (p₁ ⊕ p₂ ⊕ …)`` with ``p = ((coords[dim] >> low_bit) & mask) << shift``.

    Raises:
        LayoutError: ``fields`` is not a list of :class:`Field`, ``coords`` is not a mapping,
            or a dim of the fields is missing from it or not an int.
    """
    fields = sequence_of(fields, Field, "fields")
    need_mapping(coords, "coords")
    coords = dict(coords)
    for dim in sorted({p.dim for f in fields for p in f.parts}):
        if dim not in coords:
            raise LayoutError(f"coords has no {dim!r}: give an index for every dim of the "
                              f"fields, e.g. {{{dim!r}: 0}}")
        coords[dim] = as_int(coords[dim], f"coords[{dim!r}]")
    total = 0
    for f in fields:
        v = 0
        for p in f.parts:
            v ^= ((coords[p.dim] >> p.low_bit) & ((1 << p.width) - 1)) << p.shift
        total += v << f.stride_log2
    return total


def _part_text(p: Part, nbits: int, name: str) -> str:
    x = name
    if p.low_bit:
        x = f"⌊{name}/{1 << p.low_bit}⌋"
    if p.low_bit + p.width < nbits:
        x = f"({x} & {(1 << p.width) - 1})"
    return f"{1 << p.shift}·{x}" if p.shift else x


def _fields_text(fields: list[Field], memory: LinearLayout, shown: dict[str, str]) -> str:
    if not fields:
        return "0"
    terms = []
    for f in fields:
        inner = [_part_text(p, memory.out_bits(p.dim), shown[p.dim]) for p in f.parts]
        body = inner[0] if len(inner) == 1 else "(" + " ⊕ ".join(inner) + ")"
        terms.append(f"{1 << f.stride_log2}·{body}" if f.stride_log2 else body)
    return " + ".join(terms)


def _flat_terms(fields: list[Field], dim_shift: Mapping[str, int],
                dim_bits: Mapping[str, int]) -> list[tuple[int, list[tuple[int, int, int]]]]:
    """Each field as ``(stride_log2, [(bit of the flat index, mask, shift) per part])``: the
    parts read straight off the flat tensor index (``dim0`` bits lowest), as
    :func:`evaluate_fields` reads them off the coordinates."""
    return [(f.stride_log2,
             [(dim_shift[p.dim] + p.low_bit,
               ((1 << p.width) - 1) & (((1 << dim_bits[p.dim]) - 1) >> p.low_bit), p.shift)
              for p in f.parts]) for f in fields]


def _evaluate_flat(terms: list[tuple[int, list[tuple[int, int, int]]]], t: int) -> int:
    """:func:`evaluate_fields` of :func:`_flat_terms` at the flat tensor index ``t``."""
    total = 0
    for stride_log2, parts in terms:
        v = 0
        for at, mask, shift in parts:
            v ^= ((t >> at) & mask) << shift
        total += v << stride_log2
    return total


def _self_check(memory: LinearLayout, fields: tuple[list[Field], list[Field]]) -> None:
    """Raise RuntimeError unless the fields reproduce the layout (internal consistency):
    every element of tensors up to :data:`SELF_CHECK_ELEMENTS` elements, every basis bit
    of larger ones, evaluated as :func:`evaluate_fields` reads the formula."""
    cols, offset_bits = memory_columns(memory, memory.out_dim_names)
    mask = (1 << offset_bits) - 1
    names = memory.out_dim_names
    dim_shift, dim_bits, s = {}, {}, 0
    for n in names:
        dim_shift[n], dim_bits[n] = s, memory.out_bits(n)
        s += dim_bits[n]
    offsets, blocks = (_flat_terms(f, dim_shift, dim_bits) for f in fields)
    inv = f2.inverse(list(cols))
    if 1 << s <= SELF_CHECK_ELEMENTS:
        points = enumerate(f2.images(inv))  # (t, the input that lands on t)
    else:
        points = ((t, f2.apply(inv, t)) for t in [0] + [1 << j for j in range(s)])
    for t, real in points:
        if (_evaluate_flat(offsets, t) != real & mask
                or _evaluate_flat(blocks, t) != real >> offset_bits):
            coords = {n: (t >> dim_shift[n]) & ((1 << dim_bits[n]) - 1) for n in names}
            raise RuntimeError(
                f"offset_formula self-check failed at {coords}: this is a bug in "
                "linlayout.show.formula, please report it with the layout"
            )


def offset_formula(memory: LinearLayout, names: Mapping[str, str] | None = None) -> str:
    """The element offset of a shared-memory layout as an XOR formula, e.g. the article's
    ``offset = 32·m + (n ⊕ 2·m)``.

    Args:
        memory: shared-memory layout, a bijection with in dims ``offset`` [+ ``block``] or
            ``vector, bank, segment`` [+ ``reps``] (flattened in that order) onto the tensor's
            out dims (``dim0``, ``dim1``, …).
        names: optional display names ``{out_dim: name}``, e.g. ``{"dim0": "m", "dim1": "n"}``;
            dims not listed keep their own names.

    Returns:
        One line ``offset = …`` (in elements; ``·`` multiplies, ``⊕`` is XOR, ``⌊x/16⌋`` and
        ``(x & 15)`` select bits of a coordinate). With a ``block`` dim of size > 1 the CTA
        index follows: ``offset = …; block = …``. Verified against the layout before it is
        returned (every element for tensors up to 2^16 elements, every basis bit otherwise).

    Raises:
        LayoutError: unknown in dims or bad ``names``; NotInvertibleError: not a bijection.

    Example::

        >>> mem = LinearLayout({"offset": [[0, 1], [1, 0]]}, {"dim0": 2, "dim1": 2})
        >>> offset_formula(mem)
        'offset = 2·dim0 + dim1'
    """
    if not isinstance(memory, LinearLayout):
        raise LayoutError(f"memory must be a LinearLayout, got {type(memory).__name__}")
    shown = _checked_names(memory, names)
    fields = offset_fields(memory)
    _self_check(memory, fields)
    text = "offset = " + _fields_text(fields[0], memory, shown)
    if fields[1]:
        text += "; block = " + _fields_text(fields[1], memory, shown)
    return text


def offset_formula_latex(memory: LinearLayout, names: Mapping[str, str] | None = None) -> str:
    """The same formula as :func:`offset_formula`, as LaTeX (parts rendered by sympy).

    Returns:
        e.g. ``\\mathrm{offset} = 32 m + \\left(n \\oplus 2 m\\right)``.

    Raises:
        LayoutError, NotInvertibleError: as :func:`offset_formula`.
    """
    import sympy

    if not isinstance(memory, LinearLayout):
        raise LayoutError(f"memory must be a LinearLayout, got {type(memory).__name__}")
    shown = _checked_names(memory, names)
    fields = offset_fields(memory)
    _self_check(memory, fields)

    def part(p: Part) -> str:
        x = sympy.Symbol(shown[p.dim], integer=True, nonnegative=True)
        e = sympy.floor(x / 2 ** p.low_bit) if p.low_bit else x
        tex = sympy.latex(e)
        if p.low_bit + p.width < memory.out_bits(p.dim):
            tex = r"\left(" + sympy.latex(sympy.Mod(e, 2 ** p.width, evaluate=False)) + r"\right)"
        return f"{1 << p.shift} {tex}" if p.shift else tex

    def text(fs: list[Field]) -> str:
        if not fs:
            return "0"
        terms = []
        for f in fs:
            inner = [part(p) for p in f.parts]
            body = inner[0] if len(inner) == 1 else r"\left(" + r" \oplus ".join(inner) + r"\right)"
            terms.append(f"{1 << f.stride_log2} {body}" if f.stride_log2 else body)
        return " + ".join(terms)

    out = r"\mathrm{offset} = " + text(fields[0])
    if fields[1]:
        out += r"; \quad \mathrm{block} = " + text(fields[1])
    return out
