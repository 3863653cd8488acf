"""Dimension lists and bit fields: the bookkeeping under :class:`~linlayout.LinearLayout`.

A layout keeps its dims as tuples of ``(name, log2 size)`` pairs and its map as **flat
columns**: one int per input bit, each the flattened image (out dims concatenated, the first
one in the lowest bits). The functions here read dim arguments, lay out the bit fields of a
flat value, and move fields between two such layouts — the shuffles that structure operations
(transposes, sublayouts, products) reduce to. Worked example, out dims ``(("dim0", 2),
("dim1", 1))``: the flat value ``0b101`` is ``dim0 = 0b01 = 1``, ``dim1 = 0b1 = 1``
(:func:`split_flat`), and moving ``dim1`` below ``dim0`` is the remap spec
``[(0, 0b11, 1), (2, 0b1, 0)]`` (:func:`remap`), which sends ``0b101`` to ``0b011``.

Pure functions on ints and tuples; nothing here builds a layout.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from .._checks import dim_name, log2_exact, shown
from ..errors import LayoutError

__all__ = [
    "DimTables",
    "dim_tables",
    "dims_arg",
    "locate",
    "names_arg",
    "out_spec",
    "permutation",
    "prefix_sums",
    "remap",
    "scatter",
    "split_by_dim",
    "split_flat",
    "spread",
    "supremum",
]

#: ``((name, log2 size), …)``: a layout's in dims or out dims, in order.
Dims = tuple[tuple[str, int], ...]


class DimTables(NamedTuple):
    """Lookup tables of one layout's dims (built once per layout and cached).

    Attributes:
        in_offsets: ``{in dim: index of its first bit in the flat input}``.
        in_bits: ``{in dim: log2 size}``.
        out_shifts: ``{out dim: index of its lowest bit in the flat output}``.
        out_bits: ``{out dim: log2 size}``.
        in_spec: ``{in dim: (first flat input bit, size)}`` (for evaluation).
        out_fields: ``((out dim, shift, mask), …)`` in out-dim order: ``value = (flat >>
            shift) & mask``.
        in_names, out_names: the names in order.
    """

    in_offsets: dict[str, int]
    in_bits: dict[str, int]
    out_shifts: dict[str, int]
    out_bits: dict[str, int]
    in_spec: dict[str, tuple[int, int]]
    out_fields: tuple[tuple[str, int, int], ...]
    in_names: tuple[str, ...]
    out_names: tuple[str, ...]


def dim_tables(ins: Dims, outs: Dims) -> DimTables:
    """The :class:`DimTables` of a layout with these in and out dims."""
    in_offs = dict(zip((n for n, _ in ins), prefix_sums([b for _, b in ins])))
    shifts = dict(zip((n for n, _ in outs), prefix_sums([b for _, b in outs])))
    return DimTables(in_offs, dict(ins), shifts, dict(outs),
                     {n: (in_offs[n], 1 << b) for n, b in ins},
                     tuple((n, shifts[n], (1 << b) - 1) for n, b in outs),
                     tuple(in_offs), tuple(shifts))


def out_spec(tables: DimTables, shift_of: Mapping[str, int]) -> list[tuple[int, int, int]]:
    """The :func:`remap` spec moving each out dim named in ``shift_of`` to that bit (the other
    out dims are dropped), for a layout with these tables."""
    return [(sh, m, shift_of[n]) for n, sh, m in tables.out_fields if m and n in shift_of]


def prefix_sums(bits: Sequence[int]) -> list[int]:
    """Bit offsets of consecutive fields of the given widths: ``[0, b0, b0 + b1, …]``."""
    out, s = [], 0
    for b in bits:
        out.append(s)
        s += b
    return out


def split_flat(outs: Dims, flat: int) -> tuple[int, ...]:
    """The value of each out dim in a flat output (first dim in the lowest bits)."""
    vals = []
    for _, b in outs:
        vals.append(flat & ((1 << b) - 1))
        flat >>= b
    return tuple(vals)


def split_by_dim(ins: Dims, cols: Sequence[int]) -> dict[str, Sequence[int]]:
    """Flat columns (in the order of ``ins``) split per in dim."""
    out, i = {}, 0
    for n, b in ins:
        out[n] = cols[i:i + b]
        i += b
    return out


def locate(ins: Dims, index: int) -> tuple[str, int]:
    """``(in dim, bit)`` of flat input bit ``index``.

    Raises:
        IndexError: ``index`` is not below the total number of in bits (a caller's bug).
    """
    for n, b in ins:
        if index < b:
            return n, index
        index -= b
    raise IndexError(index)


def names_arg(names: Any, what: str) -> list[str]:
    """A dim-name argument: one name, or an iterable of names (repeats dropped, as Triton's
    sets of names do).

    Raises:
        LayoutError: not a name or an iterable of non-empty names.
    """
    if isinstance(names, str):
        return [names]
    if not isinstance(names, Iterable):
        raise LayoutError(f"{what} must be a dim name or a list of names, got {shown(names)}")
    return list(dict.fromkeys(dim_name(n, "dim") for n in names))


def dims_arg(dims: Any, what: str, kind: str) -> list[tuple[str, int]]:
    """``{name: size}`` or ``[(name, size), …]`` → ``[(name, log2 size), …]``, validated.

    Raises:
        LayoutError: another shape of argument, an empty name, a size that is not a power of
            two, or a repeated name.
    """
    if isinstance(dims, Mapping):
        pairs = list(dims.items())
    elif isinstance(dims, Iterable) and not isinstance(dims, (str, bytes)):
        pairs = list(dims)
        if not all(isinstance(p, (tuple, list)) and len(p) == 2 for p in pairs):
            raise LayoutError(f"{what} must be {{name: size}} or [(name, size), ...], got {shown(dims)}")
    else:
        raise LayoutError(f"{what} must be {{name: size}} or [(name, size), ...], got {shown(dims)}")
    out = [(dim_name(n, kind), log2_exact(s, f"size of {kind} {shown(n)}")) for n, s in pairs]
    names = [n for n, _ in out]
    if len(set(names)) != len(names):
        raise LayoutError(f"{what} repeats a name: {names}")
    return out


def permutation(order: Any, names: tuple[str, ...], what: str, op: str) -> list[str]:
    """``order`` checked to be a permutation of ``names`` (a bare string: a one-name list).

    Raises:
        LayoutError: ``order`` is not a permutation of ``names`` (the missing ones named).
    """
    if not isinstance(order, Iterable):
        raise LayoutError(f"{op} needs a permutation of {list(names)}, got {shown(order)}")
    order = [order] if isinstance(order, str) else list(order)
    if (
        len(order) != len(names)
        or not all(isinstance(n, str) for n in order)
        or set(order) != set(names)
    ):
        missing = [n for n in names if n not in order]
        raise LayoutError(
            f"{op} needs a permutation of {list(names)}, got {order}"
            + (f" (missing {what} dims {missing})" if missing else "")
        )
    return order


def remap(cols: Iterable[int], spec: Sequence[tuple[int, int, int]]) -> list[int]:
    """Move bit fields of each column: ``spec`` lists ``(source shift, mask, target shift)``;
    bits outside every field are dropped."""
    if len(spec) == 1:  # one field: one shift and mask per column
        ((src, mask, dst),) = spec
        if src == dst == 0:
            return [c & mask for c in cols]
        return [((c >> src) & mask) << dst for c in cols]
    if len(spec) == 2:  # two fields (dim0, dim1): unrolled
        (s0, m0, d0), (s1, m1, d1) = spec
        return [((c >> s0) & m0) << d0 | ((c >> s1) & m1) << d1 for c in cols]
    if spec and all(src == dst for src, _, dst in spec):
        keep = 0
        for src, mask, _ in spec:
            keep |= mask << src
        return [c & keep for c in cols]
    out = []
    for c in cols:
        flat = 0
        for src, mask, dst in spec:
            flat |= ((c >> src) & mask) << dst
        out.append(flat)
    return out


def spread(cols: Sequence[int], fields: Sequence[tuple[int, int]]) -> list[int]:
    """Move the bit fields of each column to new, increasing, non-overlapping places.

    ``fields`` lists ``(source shift, target shift)`` for consecutive fields that tile every
    column from bit 0 (field ``i`` is bits ``[s_i, s_{i+1})``, the last runs to the top), with
    targets increasing and far enough apart to hold each field. Arithmetic instead of
    masks: with ``g_i = c >> s_i``, the result is ``g_0·2^{d_0} + Σ_{i≥1} g_i·(2^{d_i} −
    2^{d_{i−1} + s_i − s_{i−1}})``, three operations per field and column.
    """
    if not fields:
        return [0] * len(cols)
    (s0, d0), rest = fields[0], fields[1:]
    if s0:  # the first field does not start at bit 0: drop the bits below it
        cols = [c >> s0 for c in cols]
        fields = [(s - s0, d) for s, d in fields]
        (s0, d0), rest = fields[0], fields[1:]
    terms = []
    prev_s, prev_d = s0, d0
    for s, d in rest:
        terms.append((s, (1 << d) - (1 << (prev_d + s - prev_s))))
        prev_s, prev_d = s, d
    if not terms:
        return [c << d0 for c in cols] if d0 else list(cols)
    if len(terms) == 1:
        ((s1, k1),) = terms
        if d0:
            return [(c << d0) + (c >> s1) * k1 for c in cols]
        return [c + (c >> s1) * k1 for c in cols]
    out = []
    for c in cols:
        v = c << d0
        for s, k in terms:
            v += (c >> s) * k
        out.append(v)
    return out


def scatter(x: int, positions: Sequence[int]) -> int:
    """Move bit ``j`` of ``x`` to bit ``positions[j]``."""
    out = 0
    while x:
        low = x & -x
        out |= 1 << positions[low.bit_length() - 1]
        x ^= low
    return out


def supremum(a: Dims, b: Dims, a_names: tuple[str, ...], b_names: tuple[str, ...],
             kind: str) -> list[tuple[str, int]]:
    """Triton's ``supremum`` of two ordered dim lists (LayoutUtils.cpp), log2 sizes added.

    The merged order of a product ``inner * outer``: the dims common to both must come in the
    same relative order; between consecutive common dims (and before the first, after the
    last) ``a``'s own dims come first, then ``b``'s. Examples: ``sup([a, b], [c, b]) == [a,
    c, b]``, ``sup([a, b], [a, c]) == [a, b, c]``, ``sup([a, b], [c, a]) == [c, a, b]``.

    Args:
        a, b: ``((name, log2 size), …)``.
        a_names, b_names: their names (passed in: layouts keep them cached).
        kind: ``"in"`` or ``"out"``, for the message.

    Raises:
        LayoutError: a pair of common dims is ordered differently in ``a`` and ``b``.
    """
    if a_names == b_names:  # the usual case: same dims, sizes add
        return [(n, x + y) for (n, x), (_, y) in zip(a, b)]
    if set(a_names).isdisjoint(b_names):  # inner's dims, then outer's
        return list(a) + list(b)
    common_a = [n for n in a_names if n in b_names]
    common_b = [n for n in b_names if n in a_names]
    if common_a != common_b:
        bad = next(x for x, y in zip(common_a, common_b) if x != y)
        raise LayoutError(
            f"the {kind} dims common to both layouts must appear in the same relative order; "
            f"{shown(bad)} is out of order in {a_names} and {b_names}"
        )
    merged: list[str] = []
    i = j = 0
    while i < len(a_names) or j < len(b_names):
        while i < len(a_names) and a_names[i] not in common_b:
            merged.append(a_names[i])
            i += 1
        while j < len(b_names) and b_names[j] not in common_a:
            merged.append(b_names[j])
            j += 1
        if i < len(a_names):  # the next common dim, which is also b_names[j]
            merged.append(a_names[i])
            i += 1
            j += 1
    la, lb = dict(a), dict(b)
    return [(n, la.get(n, 0) + lb.get(n, 0)) for n in merged]
