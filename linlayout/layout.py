"""``LinearLayout``: a linear map over F₂ between named, power-of-two-sized dimensions.

Conventions are Triton's (``include/triton/Tools/LinearLayout.h``) so results compare with it:

* ``bases[in_dim][i]`` is the image of ``in_dim = 2**i`` (all other inputs 0): a list with one
  int per out dim, in out-dim order.
* ``L(x)`` is the XOR of the images of the set bits of ``x`` — the layout is linear over F₂.
* Dims are ordered minor-to-major. Flattening puts the first dim in the least significant
  bits: ``flat = dim0 + size0 * dim1 + …``.

Worked example (4 elements held by 2 registers × 2 lanes)::

    L = LinearLayout({"register": [[1]], "lane": [[2]]}, out_dims={"dim0": 4})
    L.apply({"register": 1, "lane": 1}) == {"dim0": 3}        # 1 ^ 2
    L.matrix  # out bits × in bits: [[1, 0], [0, 1]] — the identity on 2 bits

Internally a layout keeps its **flat columns**: one int per input bit (in-dims concatenated in
order, register bit 0 first), each the flattened image. All algebra runs on those ints with
:mod:`linlayout.f2`.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import f2
from .errors import LayoutError, NotInvertibleError

__all__ = ["LinearLayout"]


def _log2_exact(size: Any, what: str) -> int:
    """log2 of a positive power-of-two int, else LayoutError naming ``what``."""
    if isinstance(size, bool):
        raise LayoutError(f"{what} must be a power of two, got {size!r}")
    try:
        size = operator.index(size)
    except TypeError:
        raise LayoutError(f"{what} must be an int power of two, got {size!r}") from None
    if size < 1 or size & (size - 1):
        raise LayoutError(f"{what} must be a positive power of two, got {size}")
    return size.bit_length() - 1


def _check_name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not name:
        raise LayoutError(f"{what} names must be non-empty strings, got {name!r}")
    return name


class LinearLayout:
    """A linear map over F₂ from named input dims to named output dims (immutable, hashable).

    Args:
        bases: ``{in_dim: [image of 2^0, image of 2^1, …]}``; each image is a sequence of
            ints, one per out dim, in out-dim order. An in-dim with an empty list has size 1.
        out_dims: ``{out_dim: size}`` (sizes are powers of two), in minor-to-major order; or a
            sequence of out-dim names, in which case each size is inferred as the smallest
            power of two above every basis value and the layout must be surjective (Triton's
            inferring constructor). May be omitted only when ``bases`` is empty (a layout
            with no dims at all).
        require_surjective: raise unless every output is reached.

    Raises:
        LayoutError: a name is not a non-empty string, an image has the wrong length, a value
            is negative or not below its out dim's size, a size is not a power of two, or the
            layout is not surjective when that was required.

    Source: Triton ``LinearLayout`` constructors (include/triton/Tools/LinearLayout.h).

    Example::

        >>> L = LinearLayout({"register": [[1, 0], [2, 0]], "lane": [[0, 1], [0, 2]]},
        ...                  out_dims={"dim0": 4, "dim1": 4})
        >>> L.apply({"register": 3, "lane": 1})
        {'dim0': 3, 'dim1': 1}
    """

    __slots__ = ("_in", "_out", "_cols", "_hash", "_rank")

    def __init__(
        self,
        bases: Mapping[str, Sequence[Sequence[int]]],
        out_dims: Mapping[str, int] | Sequence[str] | None = None,
        *,
        require_surjective: bool = False,
    ) -> None:
        if not isinstance(bases, Mapping):
            raise LayoutError(
                f"bases must be a mapping {{in_dim: [[...], ...]}}, got {type(bases).__name__}"
            )
        infer = out_dims is None or not isinstance(out_dims, Mapping)
        if out_dims is None:
            if bases:
                raise LayoutError(
                    "out_dims is required: pass {name: size} (or a list of names to infer sizes)"
                )
            out_names: list[str] = []
        elif isinstance(out_dims, Mapping):
            out_names = [_check_name(n, "out-dim") for n in out_dims]
        elif isinstance(out_dims, str):
            raise LayoutError(f"out_dims must be a mapping or a list of names, got {out_dims!r}")
        else:
            out_names = [_check_name(n, "out-dim") for n in out_dims]
        if len(set(out_names)) != len(out_names):
            raise LayoutError(f"out-dim names must be distinct, got {out_names}")
        nout = len(out_names)

        rows: list[tuple[str, list[tuple[int, ...]]]] = []
        for name, images in bases.items():
            _check_name(name, "in-dim")
            if isinstance(images, (str, bytes)) or not isinstance(images, Iterable):
                raise LayoutError(f"bases[{name!r}] must be a list of images, got {images!r}")
            imgs = []
            for i, img in enumerate(images):
                if isinstance(img, (str, bytes)) or not isinstance(img, Iterable):
                    raise LayoutError(
                        f"bases[{name!r}][{i}] must be a list of {nout} ints, got {img!r}"
                    )
                vals = []
                for v in img:
                    if isinstance(v, bool):
                        raise LayoutError(f"bases[{name!r}][{i}] holds a bool {v!r}; use ints")
                    try:
                        vals.append(operator.index(v))
                    except TypeError:
                        raise LayoutError(
                            f"bases[{name!r}][{i}] holds {v!r}, which is not an int"
                        ) from None
                if len(vals) != nout:
                    raise LayoutError(
                        f"bases[{name!r}][{i}] = {vals} has {len(vals)} entries but there are "
                        f"{nout} out dims {out_names}; give one int per out dim"
                    )
                for v, on in zip(vals, out_names):
                    if v < 0:
                        raise LayoutError(
                            f"bases[{name!r}][{i}] has negative value {v} for out dim {on!r}"
                        )
                imgs.append(tuple(vals))
            rows.append((name, imgs))

        if infer:
            maxes = [0] * nout
            for _, imgs in rows:
                for img in imgs:
                    for j, v in enumerate(img):
                        maxes[j] = max(maxes[j], v)
            out_log2 = [m.bit_length() for m in maxes]
            require_surjective = True
        else:
            assert isinstance(out_dims, Mapping)
            out_log2 = [_log2_exact(out_dims[n], f"size of out dim {n!r}") for n in out_names]
            for name, imgs in rows:
                for i, img in enumerate(imgs):
                    for v, on, lg in zip(img, out_names, out_log2):
                        if v >> lg:
                            raise LayoutError(
                                f"bases[{name!r}][{i}] has value {v} for out dim {on!r}, which "
                                f"has size {1 << lg}; values must be below the out-dim size"
                            )
        self._out: tuple[tuple[str, int], ...] = tuple(zip(out_names, out_log2))
        self._in: tuple[tuple[str, int], ...] = tuple((n, len(imgs)) for n, imgs in rows)
        shifts = self._out_shifts()
        cols = []
        for _, imgs in rows:
            for img in imgs:
                flat = 0
                for v, s in zip(img, shifts):
                    flat |= v << s
                cols.append(flat)
        self._cols: tuple[int, ...] = tuple(cols)
        self._hash: int | None = None
        self._rank: int | None = None
        if require_surjective and not self.is_surjective:
            raise LayoutError(
                f"the layout is not surjective: its {len(cols)} bases span a space of "
                f"dimension {self.rank} but the out dims {self.out_dims} need "
                f"{self.total_out_bits}; add bases or shrink the out dims"
            )

    # ------------------------------------------------------------------ construction helpers
    @classmethod
    def _from_flat(
        cls,
        in_dims: Sequence[tuple[str, int]],
        out_dims: Sequence[tuple[str, int]],
        cols: Sequence[int],
    ) -> LinearLayout:
        """Build from flat columns without re-validating (internal; inputs already checked)."""
        self = object.__new__(cls)
        setter = object.__setattr__
        setter(self, "_in", tuple(in_dims))
        setter(self, "_out", tuple(out_dims))
        setter(self, "_cols", tuple(cols))
        setter(self, "_hash", None)
        setter(self, "_rank", None)
        return self

    @classmethod
    def from_columns(
        cls,
        columns: Sequence[int],
        in_dims: Mapping[str, int],
        out_dims: Mapping[str, int],
    ) -> LinearLayout:
        """Build a layout from flat columns (one int per input bit, flattened outputs).

        Args:
            columns: ``sum(log2(in sizes))`` ints; column ``i`` is the flattened image of input
                bit ``i`` (in-dims concatenated in order, dim0 of the output in the low bits).
            in_dims: ``{name: size}`` (powers of two), in order.
            out_dims: ``{name: size}`` (powers of two), minor to major.

        Raises:
            LayoutError: sizes are not powers of two, the column count does not match, or a
                column does not fit in the output bits.
        """
        _need_mapping(in_dims, "in_dims")
        _need_mapping(out_dims, "out_dims")
        ins = [(_check_name(n, "in-dim"), _log2_exact(s, f"size of in dim {n!r}"))
               for n, s in in_dims.items()]
        outs = [(_check_name(n, "out-dim"), _log2_exact(s, f"size of out dim {n!r}"))
                for n, s in out_dims.items()]
        nin = sum(b for _, b in ins)
        nout = sum(b for _, b in outs)
        cols = []
        for c in columns:
            if isinstance(c, bool):
                raise LayoutError(f"column {c!r} is a bool; use ints")
            try:
                c = operator.index(c)
            except TypeError:
                raise LayoutError(f"column {c!r} is not an int") from None
            if c < 0 or c >> nout:
                raise LayoutError(f"column {c:#x} does not fit in the {nout} output bits")
            cols.append(c)
        if len(cols) != nin:
            raise LayoutError(
                f"got {len(cols)} columns but the in dims {dict(in_dims)} have {nin} bits"
            )
        return cls._from_flat(ins, outs, cols)

    @classmethod
    def empty(cls) -> LinearLayout:
        """The layout with no in dims and no out dims (the identity of ``*``)."""
        return cls._from_flat((), (), ())

    @classmethod
    def identity_1d(cls, size: int, in_dim: str, out_dim: str) -> LinearLayout:
        """``L(x) = x`` for ``x`` in ``[0, size)`` (Triton ``identity1D``).

        Raises:
            LayoutError: ``size`` is not a positive power of two or a name is empty.
        """
        n = _log2_exact(size, "identity_1d size")
        return cls._from_flat(
            ((_check_name(in_dim, "in-dim"), n),), ((_check_name(out_dim, "out-dim"), n),),
            [1 << i for i in range(n)],
        )

    @classmethod
    def zeros_1d(cls, size: int, in_dim: str, out_dim: str, out_dim_size: int = 1) -> LinearLayout:
        """``L(x) = 0`` for ``x`` in ``[0, size)``: a broadcast (Triton ``zeros1D``).

        Args:
            size: in-dim size (power of two).
            out_dim_size: size of the out dim (power of two, default 1).

        Raises:
            LayoutError: a size is not a positive power of two or a name is empty.
        """
        n = _log2_exact(size, "zeros_1d size")
        m = _log2_exact(out_dim_size, "zeros_1d out_dim_size")
        return cls._from_flat(
            ((_check_name(in_dim, "in-dim"), n),), ((_check_name(out_dim, "out-dim"), m),),
            [0] * n,
        )

    # ------------------------------------------------------------------ basic accessors
    def _out_shifts(self) -> list[int]:
        shifts, s = [], 0
        for _, b in self._out:
            shifts.append(s)
            s += b
        return shifts

    def _in_offsets(self) -> dict[str, int]:
        offs, s = {}, 0
        for n, b in self._in:
            offs[n] = s
            s += b
        return offs

    def _split_out(self, flat: int) -> tuple[int, ...]:
        vals = []
        for _, b in self._out:
            vals.append(flat & ((1 << b) - 1))
            flat >>= b
        return tuple(vals)

    @property
    def bases(self) -> dict[str, list[list[int]]]:
        """A fresh ``{in_dim: [[image per out dim], …]}`` copy (mutating it changes nothing)."""
        out, i = {}, 0
        for n, b in self._in:
            out[n] = [list(self._split_out(c)) for c in self._cols[i:i + b]]
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
        """log2 of the size of ``in_dim``. Raises LayoutError if absent."""
        for n, b in self._in:
            if n == in_dim:
                return b
        raise LayoutError(f"no in dim {in_dim!r}; the in dims are {list(self.in_dim_names)}")

    def out_bits(self, out_dim: str) -> int:
        """log2 of the size of ``out_dim``. Raises LayoutError if absent."""
        for n, b in self._out:
            if n == out_dim:
                return b
        raise LayoutError(f"no out dim {out_dim!r}; the out dims are {list(self.out_dim_names)}")

    @property
    def total_in_bits(self) -> int:
        """Sum of log2 of the in-dim sizes (number of columns)."""
        return len(self._cols)

    @property
    def total_out_bits(self) -> int:
        """Sum of log2 of the out-dim sizes (number of rows)."""
        return sum(b for _, b in self._out)

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
        """Evaluate ``L`` at one point.

        Args:
            inputs: ``{in_dim: value}``; missing in dims are 0.

        Returns:
            ``{out_dim: value}`` in out-dim order.

        Raises:
            LayoutError: an unknown in dim, or a value outside ``[0, size)``.
        """
        return dict(zip(self.out_dim_names, self._split_out(self.apply_flat(self._flat_in(inputs)))))

    def _flat_in(self, inputs: Mapping[str, int]) -> int:
        _need_mapping(inputs, "inputs")
        offs = self._in_offsets()
        sizes = dict(self._in)
        x = 0
        for name, v in inputs.items():
            if name not in sizes:
                raise LayoutError(
                    f"unknown in dim {name!r}; the in dims are {list(self.in_dim_names)}"
                )
            if isinstance(v, bool):
                raise LayoutError(f"value for in dim {name!r} is a bool; use an int")
            try:
                v = operator.index(v)
            except TypeError:
                raise LayoutError(f"value for in dim {name!r} must be an int, got {v!r}") from None
            if v < 0 or v >> sizes[name]:
                raise LayoutError(
                    f"value {v} for in dim {name!r} is outside [0, {1 << sizes[name]})"
                )
            x |= v << offs[name]
        return x

    def apply_flat(self, x: int) -> int:
        """Evaluate on a flat input (in-dims concatenated) and return the flat output."""
        return f2.apply(self._cols, x)

    # ------------------------------------------------------------------ algebra
    def compose(self, outer: LinearLayout) -> LinearLayout:
        """The layout ``x ↦ outer(self(x))`` (Triton ``compose``).

        Requires ``self``'s out dims to equal ``outer``'s in dims as a set, with each out size of
        ``self`` at most the matching in size of ``outer``.

        Raises:
            LayoutError: the dims do not match or a size is too large.
        """
        _need_layout(outer, "outer")
        osizes = dict(outer._in)
        if set(osizes) != set(self.out_dim_names):
            raise LayoutError(
                f"compose needs this layout's out dims {list(self.out_dim_names)} to equal the "
                f"outer layout's in dims {list(outer.in_dim_names)}"
            )
        for n, b in self._out:
            if b > osizes[n]:
                raise LayoutError(
                    f"out dim {n!r} has size {1 << b} but the outer in dim has size "
                    f"{1 << osizes[n]}; it must be at most that"
                )
        # Re-express our flat outputs as outer's flat inputs.
        ooffs = outer._in_offsets()
        outer_cols = outer._cols
        remap = []  # for each of our output bits, outer's column
        for n, b in self._out:
            base = ooffs[n]
            remap.extend(outer_cols[base:base + b])
        return LinearLayout._from_flat(self._in, outer._out, f2.compose(remap, self._cols))

    def invert(self) -> LinearLayout:
        """The inverse map (out dims become in dims). Triton ``invert``.

        Raises:
            NotInvertibleError: the layout is not a bijection.
        """
        if not self.is_invertible:
            raise NotInvertibleError(
                f"the layout is not invertible: rank {self.rank}, {self.total_in_bits} input "
                f"bits, {self.total_out_bits} output bits; a bijection needs all three equal. "
                "Use pseudoinvert() for a surjective layout"
            )
        # A bijection has exactly one inverse, so the direct elimination gives Triton's answer.
        return LinearLayout._from_flat(self._out, self._in, f2.inverse(self._cols))

    def pseudoinvert(self) -> LinearLayout:
        """A right inverse ``R`` with ``self(R(y)) == y`` for every output ``y``.

        Exactly Triton's ``pseudoinvert``: ``I.invert_and_compose(self)`` where ``I`` is the
        identity on this layout's out dims. Among the preimages, each output bit picks the one
        with all free variables zero; an in dim named like an out dim on which this layout is
        the identity maps back identically (the :meth:`invert_and_compose` heuristic).

        Raises:
            NotInvertibleError: the layout is not surjective.
        """
        if not self.is_surjective:
            raise NotInvertibleError(
                f"pseudoinvert needs a surjective layout; rank {self.rank} < "
                f"{self.total_out_bits} output bits"
            )
        ident = LinearLayout._from_flat(
            self._out, self._out, [1 << j for j in range(self.total_out_bits)]
        )
        return ident.invert_and_compose(self)

    def invert_and_compose(self, outer: LinearLayout) -> LinearLayout:
        """``C`` with ``outer(C(x)) == self(x)`` for all ``x`` (Triton ``invertAndCompose``).

        Both layouts must have the same out dims (any order) with equal sizes, and ``outer``
        must be surjective. As in Triton: an in dim that both layouts have, with identical
        images, maps to itself (identity); the rest is solved with free variables zero
        (Triton's ``lstsq``) over ``outer``'s other in dims, which maps broadcast copies to the
        smallest input. Where Triton's heuristic fails (an output of ``self``'s other dims
        needs an identity dim of ``outer`` too; Triton asserts), the identity dims' columns
        are used as well, after the others, so a valid ``C`` is always returned and equals
        Triton's whenever Triton's exists.

        Returns:
            A layout from ``self``'s in dims to ``outer``'s in dims.

        Raises:
            LayoutError: out dims differ; NotInvertibleError: ``outer`` is not surjective.
        """
        _need_layout(outer, "outer")
        if set(outer.out_dim_names) != set(self.out_dim_names):
            only_self = [n for n in self.out_dim_names if n not in outer.out_dim_names]
            only_outer = [n for n in outer.out_dim_names if n not in self.out_dim_names]
            raise LayoutError(
                f"invert_and_compose needs equal out dims, got {list(self.out_dim_names)} and "
                f"{list(outer.out_dim_names)} (only in this layout: {only_self}; only in "
                f"outer: {only_outer})"
            )
        outer_t = outer.transpose_outs(self.out_dim_names)
        if outer_t._out != self._out:
            bad = [n for (n, b), (_, ob) in zip(self._out, outer_t._out) if b != ob]
            raise LayoutError(
                f"out dim {bad[0]!r} has size {self.out_dims[bad[0]]} here but "
                f"{outer.out_dims[bad[0]]} in outer ({self.out_dims} vs {outer.out_dims}); a "
                "conversion does not change the shape of a tensor"
            )
        if not outer_t.is_surjective:
            raise NotInvertibleError(
                "invert_and_compose needs the outer layout to be surjective (every tensor "
                f"element must have a location); its rank is {outer_t.rank} < "
                f"{outer_t.total_out_bits}"
            )
        mine = dict(self._in)
        identity = [
            n for n, b in outer_t._in
            if n in mine and mine[n] == b and self.dim_columns(n) == outer_t.dim_columns(n)
        ]
        a_cols: list[int] = []
        a_index: list[int] = []  # flat position in outer's input of each A column
        ooffs = outer_t._in_offsets()
        # Non-identity dims first (Triton's lstsq over them), then the identity dims: with free
        # variables zero the identity columns are used only when the others cannot reach a
        # target, so the answer is Triton's whenever Triton's succeeds.
        for use_identity in (False, True):
            for n, b in outer_t._in:
                if (n in identity) == use_identity:
                    a_cols.extend(outer_t.dim_columns(n))
                    a_index.extend(range(ooffs[n], ooffs[n] + b))
        b_reduced = [c for n, _ in self._in if n not in identity for c in self.dim_columns(n)]
        sols = f2.solve_many(a_cols, b_reduced)
        # outer is surjective, so every target is reached.
        assert all(s is not None for s in sols)
        # Scatter solutions (over A's columns) into outer's flat input positions.
        result = []
        it = iter(sols)
        for n, b in self._in:
            if n in identity:
                base = ooffs[n]
                result.extend(1 << (base + i) for i in range(b))
            else:
                for _ in range(b):
                    s = next(it)
                    flat = 0
                    j = 0
                    while s:
                        if s & 1:
                            flat |= 1 << a_index[j]
                        s >>= 1
                        j += 1
                    result.append(flat)
        return LinearLayout._from_flat(self._in, outer_t._in, result)

    def __mul__(self, outer: LinearLayout) -> LinearLayout:
        """Triton's direct product ``inner * outer``.

        In dims and out dims are merged by name (the supremum of the two ordered lists);
        where both layouts share a dim, ``outer``'s bits come after ``inner``'s: its in bits
        are appended and its out values are shifted above ``inner``'s out bits.

        Raises:
            LayoutError: a dim common to both appears in a different relative order.
        """
        if not isinstance(outer, LinearLayout):
            return NotImplemented
        ins = _merge_dims(self._in, outer._in, "in")
        outs = _merge_dims(self._out, outer._out, "out")
        out_shift = {}
        s = 0
        for n, b in outs:
            out_shift[n] = s
            s += b
        inner_out = dict(self._out)

        def remap(layout: LinearLayout, extra: dict[str, int]) -> dict[str, list[int]]:
            res: dict[str, list[int]] = {}
            for n, b in layout._in:
                cols = []
                for c in layout.dim_columns(n):
                    vals = layout._split_out(c)
                    flat = 0
                    for (on, _), v in zip(layout._out, vals):
                        flat |= v << (out_shift[on] + extra.get(on, 0))
                    cols.append(flat)
                res[n] = cols
            return res

        inner_cols = remap(self, {})
        outer_cols = remap(outer, inner_out)
        cols = []
        for n, _ in ins:
            cols.extend(inner_cols.get(n, []))
            cols.extend(outer_cols.get(n, []))
        return LinearLayout._from_flat(ins, outs, cols)

    # ------------------------------------------------------------------ reshaping
    def transpose_outs(self, order: Sequence[str]) -> LinearLayout:
        """Reorder the out dims (Triton ``transposeOuts``).

        Raises:
            LayoutError: ``order`` is not a permutation of the out-dim names.
        """
        order = [order] if isinstance(order, str) else list(order)
        names = self.out_dim_names
        if (
            len(order) != len(names)
            or not all(isinstance(n, str) for n in order)
            or set(order) != set(names)
        ):
            raise LayoutError(
                f"transpose_outs needs a permutation of {list(self.out_dim_names)}, got {order}"
            )
        if tuple(order) == self.out_dim_names:
            return self
        sizes = dict(self._out)
        new_out = [(n, sizes[n]) for n in order]
        old_shift = dict(zip(self.out_dim_names, self._out_shifts()))
        cols = []
        for c in self._cols:
            flat, s = 0, 0
            for n, b in new_out:
                flat |= ((c >> old_shift[n]) & ((1 << b) - 1)) << s
                s += b
            cols.append(flat)
        return LinearLayout._from_flat(self._in, new_out, cols)

    def flatten_outs(self) -> LinearLayout:
        """One out dim, named like the first, of size the product (Triton ``flattenOuts``)."""
        if not self._out:
            return self
        return LinearLayout._from_flat(
            self._in, ((self._out[0][0], self.total_out_bits),), self._cols
        )

    def flatten_ins(self) -> LinearLayout:
        """One in dim, named like the first, of size the product (Triton ``flattenIns``)."""
        if not self._in:
            return self
        return LinearLayout._from_flat(
            ((self._in[0][0], self.total_in_bits),), self._out, self._cols
        )

    def sublayout(self, in_dims: Iterable[str], out_dims: Iterable[str]) -> LinearLayout:
        """Restrict to some in dims (others set to 0) and out dims (others dropped).

        Dim order follows this layout, not the arguments (Triton ``sublayout``). A bare string
        stands for a single dim name.

        Raises:
            LayoutError: a name is not a dim of this layout.
        """
        in_set = {in_dims} if isinstance(in_dims, str) else set(in_dims)
        out_set = {out_dims} if isinstance(out_dims, str) else set(out_dims)
        for n in in_set:
            self.in_bits(n)
        for n in out_set:
            self.out_bits(n)
        new_out = [(n, b) for n, b in self._out if n in out_set]
        shifts = dict(zip(self.out_dim_names, self._out_shifts()))
        cols = []
        new_in = []
        for n, b in self._in:
            if n not in in_set:
                continue
            new_in.append((n, b))
            for c in self.dim_columns(n):
                flat, s = 0, 0
                for on, ob in new_out:
                    flat |= ((c >> shifts[on]) & ((1 << ob) - 1)) << s
                    s += ob
                cols.append(flat)
        return LinearLayout._from_flat(new_in, new_out, cols)

    # ------------------------------------------------------------------ matrices, galois
    @property
    def matrix(self):
        """The matrix as a numpy ``uint8`` array of shape (total out bits, total in bits).

        Entry ``[r, c]`` is bit ``r`` of flat column ``c`` (dim0's bits are the first rows).
        """
        import numpy as np

        nrows, ncols = self.total_out_bits, self.total_in_bits
        m = np.zeros((nrows, ncols), dtype=np.uint8)
        for c, col in enumerate(self._cols):
            for r in range(nrows):
                if col >> r & 1:
                    m[r, c] = 1
        return m

    @classmethod
    def from_matrix(cls, matrix, in_dims: Mapping[str, int], out_dims: Mapping[str, int]):
        """Build from an (out bits × in bits) 0/1 matrix (numpy, galois or nested lists).

        Raises:
            LayoutError: the shape does not match the dims or an entry is not 0 or 1.
        """
        import numpy as np

        try:
            m = np.asarray(matrix)
        except Exception as exc:  # pragma: no cover - numpy accepts nearly anything
            raise LayoutError(f"cannot read a matrix from {type(matrix).__name__}: {exc}") from None
        _need_mapping(in_dims, "in_dims")
        _need_mapping(out_dims, "out_dims")
        ins = {n: s for n, s in in_dims.items()}
        outs = {n: s for n, s in out_dims.items()}
        nin = sum(_log2_exact(s, f"size of in dim {n!r}") for n, s in ins.items())
        nout = sum(_log2_exact(s, f"size of out dim {n!r}") for n, s in outs.items())
        if m.ndim == 1 and m.size == 0 and nout == 0:
            m = m.reshape(0, nin)  # a matrix with no rows, e.g. from ``[]`` (nested lists)
        if m.ndim != 2 or m.shape != (nout, nin):
            raise LayoutError(
                f"matrix has shape {m.shape} but the dims need ({nout} out bits, {nin} in bits)"
            )
        if m.size and not np.isin(m, (0, 1)).all():
            raise LayoutError("matrix entries must be 0 or 1 (elements of F2)")
        mi = m.astype(np.int64)
        cols = [sum(int(mi[r, c]) << r for r in range(nout)) for c in range(nin)]
        return cls.from_columns(cols, ins, outs)

    def to_galois(self):
        """The matrix as a ``galois.GF(2)`` array (imports galois lazily)."""
        import galois

        return galois.GF2(self.matrix)

    @classmethod
    def from_galois(cls, matrix, in_dims: Mapping[str, int], out_dims: Mapping[str, int]):
        """Inverse of :meth:`to_galois`: same as :meth:`from_matrix`."""
        import numpy as np

        return cls.from_matrix(np.asarray(matrix, dtype=np.uint8), in_dims, out_dims)

    # ------------------------------------------------------------------ serialisation, dunders
    def to_dict(self) -> dict[str, Any]:
        """``{"bases": {...}, "out_dims": {...}}``: the JSON layout format of the CLI."""
        return {"bases": self.bases, "out_dims": self.out_dims}

    @classmethod
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

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LinearLayout):
            return NotImplemented
        return self._in == other._in and self._out == other._out and self._cols == other._cols

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self._in, self._out, self._cols))
        return self._hash

    def __repr__(self) -> str:
        return f"LinearLayout({self.bases!r}, out_dims={self.out_dims!r})"

    def __str__(self) -> str:
        outs = ", ".join(f"{n} (size {1 << b})" for n, b in self._out)
        if not self._in:
            return f"(empty layout with out-dims [{outs}])" if self._out else "(empty layout)"
        lines = []
        for name, imgs in self.bases.items():
            if not imgs:
                lines.append(f" - {name} is a size 1 dimension")
                continue
            for i, img in enumerate(imgs):
                lead = " - " if i == 0 else "   "
                lines.append(f"{lead}{name}={1 << i} -> ({', '.join(map(str, img))})")
        lines.append(f"where out dims are: [{outs}]")
        return "\n".join(lines)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self.__slots__ and not hasattr(self, name):
            object.__setattr__(self, name, value)
            return
        if name in ("_hash", "_rank"):
            object.__setattr__(self, name, value)
            return
        raise AttributeError("LinearLayout is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("LinearLayout is immutable")


def _need_mapping(x: Any, what: str) -> None:
    if not isinstance(x, Mapping):
        raise LayoutError(f"{what} must be a mapping {{name: value}}, got {type(x).__name__}")


def _need_layout(x: Any, what: str) -> None:
    if not isinstance(x, LinearLayout):
        raise LayoutError(f"{what} must be a LinearLayout, got {type(x).__name__}")


def _merge_dims(
    a: Sequence[tuple[str, int]], b: Sequence[tuple[str, int]], kind: str
) -> list[tuple[str, int]]:
    """Supremum of two ordered dim lists (Triton operator*), sizes multiplied (log2 added)."""
    a_names = [n for n, _ in a]
    b_names = [n for n, _ in b]
    common_a = [n for n in a_names if n in b_names]
    common_b = [n for n in b_names if n in a_names]
    if common_a != common_b:
        raise LayoutError(
            f"the {kind} dims common to both layouts must appear in the same relative order; "
            f"got {a_names} and {b_names}"
        )
    # Triton builds the result in insertion order: inner's dims, then outer's new ones.
    merged = a_names + [n for n in b_names if n not in a_names]
    la, lb = dict(a), dict(b)
    return [(n, la.get(n, 0) + lb.get(n, 0)) for n in merged]
