"""The storage of a linear layout: its dims, its flat columns, the constructor and accessors.

:class:`LayoutCore` holds what every layout is made of and answers questions about it without
building a new layout. :class:`~linlayout.LinearLayout` (:mod:`linlayout.layout`) adds the
operations, whose bodies live in the sibling modules (:mod:`.algebra`, :mod:`.structure`,
:mod:`.construct`, :mod:`.text`).

Storage (four slots, read by the method modules of this package and by nothing else):

* ``_in``: ``((in dim, log2 size), …)`` in order;
* ``_out``: ``((out dim, log2 size), …)`` minor to major;
* ``_cols``: one int per input bit (in dims concatenated, the first dim's bit 0 first), each
  the **flattened** image: out values concatenated, the first out dim in the lowest bits;
* three caches: ``_hash``, ``_rank`` and ``_meta`` (the :class:`~.dims.DimTables`).

Worked example — 2 registers × 2 lanes onto a 4-element ``dim0``::

    bases = {"register": [[1]], "lane": [[2]]}, out dims {"dim0": 4}
    _in = (("register", 1), ("lane", 1)); _out = (("dim0", 2),); _cols = (0b01, 0b10)
    apply(register=1, lane=1) = 0b01 ^ 0b10 = 3
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence, Set
from typing import Any

from .. import f2
from .._checks import dim_name, log2_exact, need_mapping, shown
from ..errors import LayoutError
from .dims import DimTables, dim_tables, prefix_sums, split_flat

__all__ = ["LayoutCore", "need_layout"]

_new = object.__new__


class LayoutCore:
    """Dims, flat columns and the questions answered from them (base of LinearLayout).

    Immutable through its public API: every attribute is a read-only property and no
    attribute can be added. (The private slots are not guarded: a ``__setattr__`` guard would
    cost about 0.3 µs on every layout built.) Constructor arguments and errors: see
    :class:`~linlayout.LinearLayout`.
    """

    __slots__ = ("_in", "_out", "_cols", "_hash", "_rank", "_meta")

    def __init__(
        self,
        bases: Mapping[str, Sequence[Sequence[int]]],
        out_dims: Mapping[str, int] | Sequence[str] | None = None,
        *,
        require_surjective: bool = False,
    ) -> None:
        packed = _pack_plain(bases, out_dims) if type(bases) is dict and \
            type(out_dims) is dict else None
        if packed is None:  # anything unusual: read again, checking every value
            packed = _pack_checked(bases, out_dims)
            if out_dims is None or not isinstance(out_dims, Mapping):
                require_surjective = True  # inferred sizes: Triton's inferring constructor
        self._in, self._out, self._cols = packed
        self._hash = self._rank = self._meta = None
        if require_surjective and not self.is_surjective:
            raise LayoutError(
                f"the layout is not surjective: its {len(self._cols)} bases span a space of "
                f"dimension {self.rank} but the out dims {self.out_dims} need "
                f"{self.total_out_bits}; add bases or shrink the out dims"
            )

    @classmethod
    def unchecked(
        cls,
        in_dims: Sequence[tuple[str, int]],
        out_dims: Sequence[tuple[str, int]],
        cols: Sequence[int],
    ) -> Any:
        """Build from flat columns without any validation (the fast, unchecked constructor).

        For code that has already established every invariant — the algebra's own results,
        the synthesizer's layouts. Everyone else should use the constructor or
        :meth:`~linlayout.LinearLayout.from_columns`, which check their input.

        Args:
            in_dims: ``((name, log2 size), …)`` in order (distinct non-empty names).
            out_dims: ``((name, log2 size), …)`` minor to major.
            cols: ``sum(log2 in sizes)`` non-negative ints, each below ``2^sum(log2 out
                sizes)``: the flat image of each input bit (:attr:`columns`).

        Nothing is checked: input that breaks these rules gives a layout whose methods
        return wrong answers.
        """
        self = _new(cls)
        self._in = tuple(in_dims)
        self._out = tuple(out_dims)
        self._cols = tuple(cols)
        self._hash = self._rank = self._meta = None
        return self

    # ------------------------------------------------------------------ dims
    @property
    def dim_tables(self) -> DimTables:
        """Lookup tables of the dims (:class:`~linlayout.layout.dims.DimTables`: offsets,
        shifts, sizes and masks by name), built once and cached. Read-only."""
        meta = self._meta
        if meta is None:
            meta = self._meta = dim_tables(self._in, self._out)
        return meta

    @property
    def in_dims_log2(self) -> tuple[tuple[str, int], ...]:
        """``((in dim, log2 size), …)`` in order."""
        return self._in

    @property
    def out_dims_log2(self) -> tuple[tuple[str, int], ...]:
        """``((out dim, log2 size), …)``, minor to major."""
        return self._out

    @property
    def bases(self) -> dict[str, list[list[int]]]:
        """A fresh ``{in_dim: [[image per out dim], …]}`` copy (mutating it changes nothing)."""
        out, i, cols = {}, 0, self._cols
        outs = self._out
        if len(outs) == 2:  # the usual (dim0, dim1): split_flat inlined
            b0 = outs[0][1]
            m0, m1 = (1 << b0) - 1, (1 << outs[1][1]) - 1
            for n, b in self._in:
                out[n] = [[c & m0, c >> b0 & m1] for c in cols[i:i + b]]
                i += b
            return out
        for n, b in self._in:
            out[n] = [list(split_flat(outs, c)) for c in cols[i:i + b]]
            i += b
        return out

    @property
    def in_dims(self) -> dict[str, int]:
        """``{in_dim: size}`` in order."""
        return {n: 1 << b for n, b in self._in}

    @property
    def out_dims(self) -> dict[str, int]:
        """``{out_dim: size}`` in minor-to-major order."""
        return {n: 1 << b for n, b in self._out}

    @property
    def in_dim_names(self) -> tuple[str, ...]:
        """In-dim names in order."""
        return tuple(n for n, _ in self._in)

    @property
    def out_dim_names(self) -> tuple[str, ...]:
        """Out-dim names, minor to major."""
        return tuple(n for n, _ in self._out)

    def in_bits(self, in_dim: str) -> int:
        """log2 of the size of ``in_dim``.

        Raises:
            LayoutError: the layout has no such in dim.
        """
        bits = self.dim_tables.in_bits
        if isinstance(in_dim, str) and in_dim in bits:
            return bits[in_dim]
        raise LayoutError(f"no in dim {shown(in_dim)}; the in dims are {list(self.in_dim_names)}")

    def out_bits(self, out_dim: str) -> int:
        """log2 of the size of ``out_dim``.

        Raises:
            LayoutError: the layout has no such out dim.
        """
        bits = self.dim_tables.out_bits
        if isinstance(out_dim, str) and out_dim in bits:
            return bits[out_dim]
        raise LayoutError(f"no out dim {shown(out_dim)}; the out dims are {list(self.out_dim_names)}")

    @property
    def total_in_bits(self) -> int:
        """Sum of log2 of the in-dim sizes (number of columns)."""
        return len(self._cols)

    @property
    def total_out_bits(self) -> int:
        """Sum of log2 of the out-dim sizes (number of rows)."""
        out = self._out
        if len(out) == 2:  # the usual (dim0, dim1)
            return out[0][1] + out[1][1]
        return sum(b for _, b in out)

    # ------------------------------------------------------------------ columns, rank
    @property
    def columns(self) -> tuple[int, ...]:
        """Flat columns: the flattened image of each input bit, in-dims in order."""
        return self._cols

    def dim_columns(self, in_dim: str) -> tuple[int, ...]:
        """Flat columns of one in dim (empty tuple when the layout lacks it)."""
        i = 0
        for n, b in self._in:
            if n == in_dim:
                return self._cols[i:i + b]
            i += b
        return ()

    @property
    def rank(self) -> int:
        """Dimension of the image (number of linearly independent bases)."""
        if self._rank is None:
            self._rank = f2.rank(self._cols)
        return self._rank

    @property
    def is_surjective(self) -> bool:
        """Every output is reached: rank == total out bits."""
        return self.rank == self.total_out_bits

    @property
    def is_injective(self) -> bool:
        """Distinct inputs give distinct outputs: rank == total in bits."""
        return self.rank == self.total_in_bits

    @property
    def is_invertible(self) -> bool:
        """Surjective and as many input as output bits (Triton ``isInvertible``)."""
        return self.is_surjective and self.total_in_bits == self.total_out_bits

    # ------------------------------------------------------------------ evaluation
    def apply(self, inputs: Mapping[str, int]) -> dict[str, int]:
        """Evaluate ``L`` at one point (Triton ``apply``, LinearLayout.cpp).

        Args:
            inputs: ``{in_dim: value}``; missing in dims are 0.

        Returns:
            ``{out_dim: value}`` in out-dim order.

        Raises:
            LayoutError: an unknown in dim, or a value outside ``[0, size)``.
        """
        meta = self._meta or self.dim_tables
        spec = meta.in_spec
        cols = self._cols
        out = 0
        try:  # fast path: plain ints in range; anything else is re-read by flat_input
            for name, v in inputs.items():
                off, size = spec[name]
                if type(v) is not int or not 0 <= v < size:
                    raise TypeError
                while v:  # the set bits of v only
                    low = v & -v
                    out ^= cols[off + low.bit_length() - 1]
                    v ^= low
        except (TypeError, KeyError, AttributeError):
            out = f2.apply(cols, self.flat_input(inputs))
        fields = meta.out_fields
        if len(fields) == 2:  # the usual (dim0, dim1): unrolled
            (n0, _, m0), (n1, s1, m1) = fields
            return {n0: out & m0, n1: out >> s1 & m1}
        return {n: out >> sh & m for n, sh, m in fields}

    def flat_input(self, inputs: Mapping[str, int]) -> int:
        """``{in_dim: value}`` (missing dims 0) as one flat input int, the first in dim's
        bits lowest — the argument :meth:`apply_flat` takes.

        Raises:
            LayoutError: not a mapping, an unknown in dim, or a value outside ``[0, size)``.
        """
        need_mapping(inputs, "inputs")
        tables = self.dim_tables
        offs, sizes = tables.in_offsets, tables.in_bits
        x = 0
        for name, v in inputs.items():
            if not isinstance(name, str) or name not in sizes:
                raise LayoutError(
                    f"unknown in dim {shown(name)}; the in dims are {list(self.in_dim_names)}"
                )
            if type(v) is not int:
                if isinstance(v, bool):
                    raise LayoutError(f"value for in dim {shown(name)} is a bool; use an int")
                try:
                    v = operator.index(v)
                except TypeError:
                    raise LayoutError(
                        f"value for in dim {shown(name)} must be an int, got {shown(v)}") from None
            if v < 0 or v >> sizes[name]:
                raise LayoutError(
                    f"value {v} for in dim {shown(name)} is outside [0, {1 << sizes[name]})"
                )
            x |= v << offs[name]
        return x

    def apply_flat(self, x: int) -> int:
        """Evaluate on a flat input (in-dims concatenated) and return the flat output.

        ``x`` has :attr:`total_in_bits` meaningful bits (the first in dim's lowest); the
        result has :attr:`total_out_bits` (dim0 lowest). Bits of ``x`` at or above
        :attr:`total_in_bits` are ignored. No Triton counterpart (its ``apply`` is by dim).

        Raises:
            LayoutError: ``x`` is not a non-negative int.
        """
        if not isinstance(x, int) or isinstance(x, bool) or x < 0:
            raise LayoutError(f"apply_flat needs a non-negative int flat input, got {shown(x)}")
        return f2.apply(self._cols, x)

    # ------------------------------------------------------------------ identity
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LayoutCore):
            return NotImplemented
        return self._in == other._in and self._out == other._out and self._cols == other._cols

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self._in, self._out, self._cols))
        return self._hash


def need_layout(value: Any, what: str) -> None:
    """Raise LayoutError unless ``value`` is a layout (``what`` names the argument)."""
    if not isinstance(value, LayoutCore):
        raise LayoutError(f"{what} must be a LinearLayout, got {type(value).__name__}")


# ---------------------------------------------------------------------------- packing input
def _pack_plain(bases: dict, out_dims: dict) -> tuple | None:
    """The fast path of the constructor: ``(in dims, out dims, columns)`` when every name is a
    non-empty str, every size a plain power-of-two int and every image a list or tuple of
    in-range plain ints; None otherwise (then :func:`_pack_checked` reads the input again
    and names the fault)."""
    outs = []
    for name, size in out_dims.items():
        if type(name) is not str or not name or type(size) is not int or size < 1 \
                or size & (size - 1):
            return None
        outs.append((name, size.bit_length() - 1))
    cols: list[int] = []
    ins = []
    try:
        if len(outs) == 2:  # the usual (dim0, dim1): unrolled
            (_, l0), (_, l1) = outs
            for name, images in bases.items():
                if type(name) is not str or not name or type(images) is not list and \
                        type(images) is not tuple:
                    return None
                for img in images:
                    a, b = img
                    if type(a) is not int or type(b) is not int or a >> l0 or b >> l1 or \
                            type(img) is not list and type(img) is not tuple:
                        return None
                    cols.append(a | b << l0)
                ins.append((name, len(images)))
        else:
            nout = len(outs)
            fields = list(zip(prefix_sums([lg for _, lg in outs]), (lg for _, lg in outs)))
            for name, images in bases.items():
                if type(name) is not str or not name or type(images) is not list and \
                        type(images) is not tuple:
                    return None
                for img in images:
                    if type(img) is not list and type(img) is not tuple or len(img) != nout:
                        return None
                    flat = 0
                    for v, (sh, lg) in zip(img, fields):
                        if type(v) is not int or v >> lg:  # negative: v >> lg == -1
                            return None
                        flat |= v << sh
                    cols.append(flat)
                ins.append((name, len(images)))
    except (TypeError, ValueError):  # an image that does not unpack into two values
        return None
    return tuple(ins), tuple(outs), tuple(cols)


def _pack_checked(bases: Any, out_dims: Any) -> tuple:
    """The constructor's validating path: ``(in dims, out dims, columns)`` of any accepted
    input (mappings of any type, numpy ints, out-dim names with inferred sizes), or a
    LayoutError naming the first fault."""
    if not isinstance(bases, Mapping):
        raise LayoutError(
            f"bases must be a mapping {{in_dim: [[...], ...]}}, got {type(bases).__name__}"
        )
    if out_dims is None:
        if bases:
            raise LayoutError(
                "out_dims is required: pass {name: size} (or a list of names to infer sizes)"
            )
        out_names: list[str] = []
    elif isinstance(out_dims, (str, bytes)) or not isinstance(out_dims, Iterable):
        raise LayoutError(f"out_dims must be a mapping or a list of names, got {shown(out_dims)}")
    else:
        out_names = [dim_name(n, "out-dim") for n in out_dims]
    if len(set(out_names)) != len(out_names):
        raise LayoutError(f"out-dim names must be distinct, got {out_names}")
    sized = isinstance(out_dims, Mapping)
    if sized:
        out_log2 = [log2_exact(out_dims[n], f"size of out dim {shown(n)}") for n in out_names]
    ins: list[tuple[str, int]] = []
    images: list[tuple[str, int, tuple[int, ...]]] = []
    for name, dim_images in bases.items():
        dim_name(name, "in-dim")
        if isinstance(dim_images, (str, bytes, Set, Mapping)) or \
                not isinstance(dim_images, Iterable):
            raise LayoutError(f"bases[{shown(name)}] must be a list of images (an ordered "
                              f"sequence), got {shown(dim_images)}")
        count = 0
        for i, img in enumerate(dim_images):
            images.append((name, i, _image_values(name, i, img, out_names)))
            count += 1
        ins.append((name, count))
    if not sized:  # inferred: the smallest power of two above every value
        maxes = [0] * len(out_names)
        for _, _, vals in images:
            maxes = [max(m, v) for m, v in zip(maxes, vals)]
        out_log2 = [m.bit_length() for m in maxes]
    shifts = prefix_sums(out_log2)
    cols = []
    for name, i, vals in images:
        flat = 0
        for v, on, sh, lg in zip(vals, out_names, shifts, out_log2):
            if v >> lg:
                raise LayoutError(
                    f"bases[{shown(name)}][{i}] has value {v} for out dim {shown(on)}, which has size "
                    f"{1 << lg}; values must be below the out-dim size"
                )
            flat |= v << sh
        cols.append(flat)
    return tuple(ins), tuple(zip(out_names, out_log2)), tuple(cols)


def _image_values(name: str, i: int, img: Any, out_names: Sequence[str]) -> tuple[int, ...]:
    """The values of ``bases[name][i]``, validated (ints, one per out dim, non-negative)."""
    nout = len(out_names)
    if isinstance(img, (str, bytes, Set, Mapping)) or not isinstance(img, Iterable):
        raise LayoutError(f"bases[{shown(name)}][{i}] must be a list of {nout} ints (an ordered "
                          f"sequence), got {shown(img)}")
    vals = []
    for v in img:
        if isinstance(v, bool):
            raise LayoutError(f"bases[{shown(name)}][{i}] holds a bool {shown(v)}; use ints")
        try:
            vals.append(operator.index(v))
        except TypeError:
            raise LayoutError(f"bases[{shown(name)}][{i}] holds {shown(v)}, which is not an int") from None
    if len(vals) != nout:
        raise LayoutError(
            f"bases[{shown(name)}][{i}] = {shown(vals)} has {len(vals)} entries but there are {nout} out "
            f"dims {list(out_names)}; give one int per out dim"
        )
    for v, on in zip(vals, out_names):
        if v < 0:
            raise LayoutError(f"bases[{shown(name)}][{i}] has negative value {v} for out dim {shown(on)}")
    return tuple(vals)
