"""Structure operations: reorder, reshape, resize, rename, squeeze, concatenate, restrict.

Method bodies of :class:`~linlayout.LinearLayout` (installed on the class under these names),
with Triton's semantics (``transposeIns``, ``reshapeOuts``, ``sublayout``, … in
``lib/Tools/LinearLayout.cpp``). None of them does field arithmetic over F₂: each moves bit
fields of the flat columns (:func:`~linlayout.layout.dims.remap`) or regroups the dims.

Worked example: ``L = {"register": [[1, 0]], "lane": [[0, 1]]} -> {"dim0": 2, "dim1": 2}``
has flat columns ``(0b01, 0b10)``; ``L.transpose_outs(["dim1", "dim0"])`` swaps the fields
(columns ``(0b10, 0b01)``, same map), ``L.flatten_outs()`` keeps the columns and reads them as
one 4-element ``dim0``, and ``L.sublayout(["lane"], ["dim1"])`` is ``lane -> dim1``, the
identity on one bit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from .._checks import dim_name, log2_exact, shown
from ..errors import LayoutError
from .core import need_layout
from .dims import dims_arg, names_arg, out_spec, permutation, remap, split_by_dim

if TYPE_CHECKING:
    from . import LinearLayout

__all__ = [
    "concat_ins",
    "concat_outs",
    "flatten_ins",
    "flatten_outs",
    "remove_zero_bases",
    "rename_in_dim",
    "rename_out_dim",
    "reshape_ins",
    "reshape_outs",
    "resize_in_dim",
    "resize_out_dim",
    "squeeze",
    "squeeze_ins",
    "squeeze_outs",
    "sublayout",
    "sublayout_is_zero",
    "transpose_ins",
    "transpose_outs",
]


def transpose_ins(self, order: Sequence[str]) -> LinearLayout:
    """Reorder the in dims (Triton ``transposeIns``); the map itself is unchanged.

    Changes the flat input order, hence :meth:`reshape_ins`, :meth:`flatten_ins` and
    which preimage counts as smallest.

    Raises:
        LayoutError: ``order`` is not a permutation of the in-dim names.
    """
    order = permutation(order, self.in_dim_names, "in", "transpose_ins")
    if tuple(order) == self.in_dim_names:
        return self
    by_dim = split_by_dim(self._in, self._cols)
    sizes = dict(self._in)
    return type(self).unchecked([(n, sizes[n]) for n in order], self._out,
                                   [c for n in order for c in by_dim[n]])


def transpose_outs(self, order: Sequence[str]) -> LinearLayout:
    """Reorder the out dims (Triton ``transposeOuts``).

    Raises:
        LayoutError: ``order`` is not a permutation of the out-dim names.
    """
    order = permutation(order, self.out_dim_names, "out", "transpose_outs")
    if tuple(order) == self.out_dim_names:
        return self
    sizes = dict(self._out)
    new_out = [(n, sizes[n]) for n in order]
    shift, s = {}, 0
    for n, b in new_out:
        shift[n] = s
        s += b
    return type(self).unchecked(self._in, new_out,
                                   remap(self._cols, out_spec(self.dim_tables, shift)))


def reshape_ins(self, new_in_dims: Mapping[str, int] | Sequence[tuple[str, int]]
                ) -> LinearLayout:
    """Flatten the in dims, then split the flat input into ``new_in_dims`` (Triton
    ``reshapeIns``, LinearLayout.cpp). The flat columns are unchanged.

    Args:
        new_in_dims: ``{name: size}`` or ``[(name, size), …]`` (powers of two, distinct
            names) whose sizes multiply to the total in size.

    Raises:
        LayoutError: a size is not a power of two, a name repeats, or the total differs.

    Example (Triton's ``ReshapeIns``)::

        >>> L = LinearLayout({"in1": [[1], [4], [8]], "in2": [[2]]}, ["out"])
        >>> L.reshape_ins({"in3": 2, "in4": 8}).bases
        {'in3': [[1]], 'in4': [[4], [8], [2]]}
    """
    dims = dims_arg(new_in_dims, "new in dims", "in-dim")
    if sum(b for _, b in dims) != self.total_in_bits:
        raise LayoutError(
            f"reshape_ins to {dict((n, 1 << b) for n, b in dims)} (total "
            f"{1 << sum(b for _, b in dims)}) must keep the total in size "
            f"{1 << self.total_in_bits} of {self.in_dims}"
        )
    return type(self).unchecked(dims, self._out, self._cols)


def reshape_outs(self, new_out_dims: Mapping[str, int] | Sequence[tuple[str, int]]
                 ) -> LinearLayout:
    """Flatten the out dims (dim0 least significant), then split the flat output into
    ``new_out_dims`` (Triton ``reshapeOuts``, LinearLayout.cpp).

    Raises:
        LayoutError: a size is not a power of two, a name repeats, or the total differs.

    Example (Triton's ``ReshapeOuts``)::

        >>> L = LinearLayout({"in1": [[1], [4], [8]], "in2": [[3]]}, ["out"])
        >>> L.reshape_outs({"out2": 2, "out3": 8}).bases
        {'in1': [[1, 0], [0, 2], [0, 4]], 'in2': [[1, 1]]}
    """
    dims = dims_arg(new_out_dims, "new out dims", "out-dim")
    if sum(b for _, b in dims) != self.total_out_bits:
        raise LayoutError(
            f"reshape_outs to {dict((n, 1 << b) for n, b in dims)} (total "
            f"{1 << sum(b for _, b in dims)}) must keep the total out size "
            f"{1 << self.total_out_bits} of {self.out_dims}"
        )
    return type(self).unchecked(self._in, dims, self._cols)


def flatten_outs(self) -> LinearLayout:
    """One out dim, named like the first, of size the product (Triton ``flattenOuts``)."""
    if not self._out:
        return self
    return type(self).unchecked(
        self._in, ((self._out[0][0], self.total_out_bits),), self._cols
    )


def flatten_ins(self) -> LinearLayout:
    """One in dim, named like the first, of size the product (Triton ``flattenIns``)."""
    if not self._in:
        return self
    return type(self).unchecked(
        ((self._in[0][0], self.total_in_bits),), self._out, self._cols
    )


def resize_in_dim(self, in_dim: str, size: int) -> LinearLayout:
    """Change the size of one in dim.

    Shrinking keeps the first ``log2 size`` bases (Triton ``resizeInDim``); growing appends
    zero bases, i.e. broadcasts the new inputs (Triton's earlier ``resize``).

    Raises:
        LayoutError: ``in_dim`` is not an in dim or ``size`` is not a power of two.
    """
    old = self.in_bits(in_dim)
    new = log2_exact(size, f"new size of in dim {shown(in_dim)}")
    if new == old:
        return self
    by_dim = split_by_dim(self._in, self._cols)
    cols = (list(by_dim[in_dim]) + [0] * (new - old))[:new]
    return type(self).unchecked(
        [(n, new if n == in_dim else b) for n, b in self._in], self._out,
        [c for n, _ in self._in for c in (cols if n == in_dim else by_dim[n])],
    )


def resize_out_dim(self, out_dim: str, size: int) -> LinearLayout:
    """Change the size of one out dim.

    Shrinking zeroes every basis value of ``out_dim`` that is at least the new size (Triton
    ``resizeOutDim``, LinearLayout.cpp — a whole value, not its high bits); growing keeps
    the values (the layout stops being surjective).

    Raises:
        LayoutError: ``out_dim`` is not an out dim or ``size`` is not a power of two.
    """
    old = self.out_bits(out_dim)
    new = log2_exact(size, f"new size of out dim {shown(out_dim)}")
    if new == old:
        return self
    new_out = [(n, new if n == out_dim else b) for n, b in self._out]
    shift, s = {}, 0
    for n, b in new_out:
        shift[n] = s
        s += b
    src = self.dim_tables.out_shifts
    spec = [(src[n], (1 << min(b, nb)) - 1, shift[n])
            for (n, b), (_, nb) in zip(self._out, new_out) if min(b, nb)]
    cols = remap(self._cols, spec)
    if new < old:  # Triton: a value that does not fit becomes 0 (not its low bits)
        field = ((1 << new) - 1) << shift[out_dim]
        cols = [c & ~field if ((orig >> src[out_dim]) & ((1 << old) - 1)) >> new else c
                for c, orig in zip(cols, self._cols)]
    return type(self).unchecked(self._in, new_out, cols)


def rename_in_dim(self, old: str, new: str) -> LinearLayout:
    """The same layout with in dim ``old`` called ``new`` (order and bases unchanged).

    No Triton counterpart (Triton rebuilds the bases map under the new name).

    Raises:
        LayoutError: ``old`` is not an in dim, or ``new`` is empty or already an in dim.
    """
    self.in_bits(old)
    dim_name(new, "in-dim")
    if new != old and new in self.in_dim_names:
        raise LayoutError(f"cannot rename in dim {shown(old)} to {shown(new)}: {shown(new)} already exists")
    return type(self).unchecked([(new if n == old else n, b) for n, b in self._in],
                                   self._out, self._cols)


def rename_out_dim(self, old: str, new: str) -> LinearLayout:
    """The same layout with out dim ``old`` called ``new`` (order and bases unchanged).

    No Triton counterpart (Triton rebuilds the layout with the new out-dim name).

    Raises:
        LayoutError: ``old`` is not an out dim, or ``new`` is empty or already an out dim.
    """
    self.out_bits(old)
    dim_name(new, "out-dim")
    if new != old and new in self.out_dim_names:
        raise LayoutError(f"cannot rename out dim {shown(old)} to {shown(new)}: {shown(new)} already exists")
    return type(self).unchecked(self._in, [(new if n == old else n, b)
                                              for n, b in self._out], self._cols)


def squeeze_ins(self, dims: str | Iterable[str]) -> LinearLayout:
    """Remove size-1 in dims (Triton ``squeezeIns``).

    Raises:
        LayoutError: a name is not an in dim, or its size is not 1.
    """
    names = names_arg(dims, "dims")
    for n in names:
        if self.in_bits(n):
            raise LayoutError(f"cannot squeeze in dim {shown(n)} of size {1 << self.in_bits(n)}; "
                              "only size-1 dims can be removed")
    return type(self).unchecked([d for d in self._in if d[0] not in names], self._out,
                                   self._cols)


def squeeze_outs(self, dims: str | Iterable[str]) -> LinearLayout:
    """Remove size-1 out dims (Triton ``squeezeOuts``).

    Raises:
        LayoutError: a name is not an out dim, or its size is not 1.
    """
    names = names_arg(dims, "dims")
    for n in names:
        if self.out_bits(n):
            raise LayoutError(f"cannot squeeze out dim {shown(n)} of size "
                              f"{1 << self.out_bits(n)}; only size-1 dims can be removed")
    return type(self).unchecked(self._in, [d for d in self._out if d[0] not in names],
                                   self._cols)


def squeeze(self) -> LinearLayout:
    """Remove every size-1 in dim and out dim (the map is unchanged).

    Triton ``squeezeIns``/``squeezeOuts`` (LinearLayout.cpp) applied to all such dims.
    """
    return type(self).unchecked([d for d in self._in if d[1]],
                                   [d for d in self._out if d[1]], self._cols)


def concat_ins(self, other: LinearLayout) -> LinearLayout:
    """Both layouts side by side on the inputs: ``L(x, y) = self(x) ⊕ other(y)``.

    Triton ``concatIns`` (LinearLayout.cpp): the out dims must be identical (names, order
    and sizes) and the in dims disjoint; ``self``'s in dims come first. The inverse of
    :meth:`sublayout` on the in dims.

    Raises:
        LayoutError: the out dims differ or an in dim is in both (named).
    """
    need_layout(other, "other")
    if other._out != self._out:
        raise LayoutError(f"concat_ins needs identical out dims, got {self.out_dims} and "
                          f"{other.out_dims}")
    shared = [n for n in other.in_dim_names if n in self.in_dim_names]
    if shared:
        raise LayoutError(f"concat_ins needs disjoint in dims; {shown(shared[0])} is in both")
    return type(self).unchecked(self._in + other._in, self._out, self._cols + other._cols)


def concat_outs(self, other: LinearLayout) -> LinearLayout:
    """Both layouts stacked on the outputs: ``L(x) = (self(x), other(x))``.

    Triton ``concatOuts`` (LinearLayout.cpp): the in dims must be identical (names, order
    and sizes) and the out dims disjoint; ``self``'s out dims come first. The inverse of
    :meth:`sublayout` on the out dims.

    Raises:
        LayoutError: the in dims differ or an out dim is in both (named).
    """
    need_layout(other, "other")
    if other._in != self._in:
        raise LayoutError(f"concat_outs needs identical in dims, got {self.in_dims} and "
                          f"{other.in_dims}")
    shared = [n for n in other.out_dim_names if n in self.out_dim_names]
    if shared:
        raise LayoutError(f"concat_outs needs disjoint out dims; {shown(shared[0])} is in both")
    s = self.total_out_bits
    return type(self).unchecked(self._in, self._out + other._out,
                                   [a | (b << s) for a, b in zip(self._cols, other._cols)])


def sublayout(self, in_dims: str | Iterable[str], out_dims: str | Iterable[str]
              ) -> LinearLayout:
    """Restrict to some in dims (others set to 0) and out dims (others dropped).

    Dim order follows this layout, not the arguments (Triton ``sublayout``). A bare string
    stands for a single dim name.

    Raises:
        LayoutError: a name is not a dim of this layout.
    """
    in_set = set(names_arg(in_dims, "in_dims"))
    out_set = set(names_arg(out_dims, "out_dims"))
    for n in in_set:
        self.in_bits(n)
    for n in out_set:
        self.out_bits(n)
    new_out = [(n, b) for n, b in self._out if n in out_set]
    shift, s = {}, 0
    for n, b in new_out:
        shift[n] = s
        s += b
    spec = out_spec(self.dim_tables, shift)
    by_dim = split_by_dim(self._in, self._cols)
    new_in = [(n, b) for n, b in self._in if n in in_set]
    return type(self).unchecked(new_in, new_out,
                                   remap([c for n, _ in new_in for c in by_dim[n]], spec))


def sublayout_is_zero(self, in_dims: str | Iterable[str], out_dims: str | Iterable[str]
                      ) -> bool:
    """Whether :meth:`sublayout` ``(in_dims, out_dims)`` maps everything to 0 (Triton
    ``sublayoutIsZero``).

    Raises:
        LayoutError: a name is not a dim of this layout.
    """
    return not any(sublayout(self, in_dims, out_dims)._cols)


def remove_zero_bases(self, in_dims: str | Iterable[str] | None = None) -> LinearLayout:
    """Drop the zero bases (broadcast inputs) of ``in_dims`` (default: every in dim).

    Triton ``removeZeroBasesAlongDim`` (LinearLayout.cpp), for several dims at once: the
    result enumerates each distinct output of those dims once.

    Raises:
        LayoutError: a name is not an in dim.
    """
    names = self.in_dim_names if in_dims is None else names_arg(in_dims, "in_dims")
    for n in names:
        self.in_bits(n)
    by_dim = split_by_dim(self._in, self._cols)
    kept = {n: [c for c in by_dim[n] if c] if n in names else list(by_dim[n])
            for n, _ in self._in}
    return type(self).unchecked([(n, len(kept[n])) for n, _ in self._in], self._out,
                                   [c for n, _ in self._in for c in kept[n]])
