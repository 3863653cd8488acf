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
:mod:`linlayout.f2`; subspaces (:meth:`LinearLayout.image`, :meth:`LinearLayout.kernel`) are
:class:`linlayout.Subspace` values.

The operations, by Triton name (LinearLayout.h / LinearLayout.cpp / LayoutUtils.cpp):

* construction — ``identity1D`` :meth:`~LinearLayout.identity_1d`, ``zeros1D``
  :meth:`~LinearLayout.zeros_1d`, ``strided1D`` :meth:`~LinearLayout.strided_1d`, ``empty``
  :meth:`~LinearLayout.empty`; and :meth:`~LinearLayout.from_columns`,
  :meth:`~LinearLayout.from_matrix`, :meth:`~LinearLayout.from_galois`,
  :meth:`~LinearLayout.from_function`, :meth:`~LinearLayout.random`,
  :meth:`~LinearLayout.parse`, :meth:`~LinearLayout.from_dict`;
* structure — ``transposeIns/Outs``, ``reshapeIns/Outs``, ``flattenIns/Outs``,
  ``resizeInDim/OutDim``, ``squeezeIns/Outs``, ``concatIns/Outs``, ``sublayout``,
  ``sublayoutIsZero``, ``removeZeroBasesAlongDim``; and ``rename_in_dim``/``rename_out_dim``;
* algebra — ``operator*``, ``compose``, ``invert``, ``pseudoinvert``, ``invertAndCompose``,
  ``lstsq`` (:meth:`~LinearLayout.least_squares`), ``divideLeft``/``divideRight``,
  ``quotient``, ``isTrivialOver``, ``getFreeVariableMasks``, ``getNumConsecutiveInOut``.

Every invalid call raises :class:`~linlayout.LayoutError` (or a subclass) naming the offending
dim; the operations that Triton answers with ``std::optional`` (division, quotient) return None.
"""

from __future__ import annotations

import ast
import operator
import random as _random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from itertools import repeat
from operator import and_, rshift
from typing import Any

from . import f2
from ._checks import dim_name, log2_exact, need_mapping, random_source
from .errors import LayoutError, NotInvertibleError
from .subspace import Subspace

_new = object.__new__

__all__ = ["LayoutParseError", "LinearLayout", "NotLinearError"]


class NotLinearError(LayoutError):
    """:meth:`LinearLayout.from_function` found a point where the function is not F₂-linear."""


class LayoutParseError(LayoutError):
    """:meth:`LinearLayout.parse` was given text in neither the repr nor the str format."""




def _prefix_sums(bits: Sequence[int]) -> list[int]:
    """Bit offsets of consecutive fields of the given widths: ``[0, b0, b0 + b1, …]``."""
    out, s = [], 0
    for b in bits:
        out.append(s)
        s += b
    return out


def _image_values(name: str, i: int, img: Any, out_names: Sequence[str]) -> tuple[int, ...]:
    """The values of ``bases[name][i]``, validated (ints, one per out dim, non-negative)."""
    nout = len(out_names)
    if isinstance(img, (str, bytes, Set, Mapping)) or not isinstance(img, Iterable):
        raise LayoutError(f"bases[{name!r}][{i}] must be a list of {nout} ints (an ordered "
                          f"sequence), got {img!r}")
    vals = []
    for v in img:
        if isinstance(v, bool):
            raise LayoutError(f"bases[{name!r}][{i}] holds a bool {v!r}; use ints")
        try:
            vals.append(operator.index(v))
        except TypeError:
            raise LayoutError(f"bases[{name!r}][{i}] holds {v!r}, which is not an int") from None
    if len(vals) != nout:
        raise LayoutError(
            f"bases[{name!r}][{i}] = {vals} has {len(vals)} entries but there are {nout} out "
            f"dims {list(out_names)}; give one int per out dim"
        )
    for v, on in zip(vals, out_names):
        if v < 0:
            raise LayoutError(f"bases[{name!r}][{i}] has negative value {v} for out dim {on!r}")
    return tuple(vals)


def _pack_image(name: str, i: int, vals: Sequence[int], out_names: Sequence[str],
                shifts: Sequence[int], out_log2: Sequence[int]) -> int:
    """The flat column of a validated image; LayoutError if a value exceeds its out dim."""
    flat = 0
    for v, on, sh, lg in zip(vals, out_names, shifts, out_log2):
        if v >> lg:
            raise LayoutError(
                f"bases[{name!r}][{i}] has value {v} for out dim {on!r}, which has size "
                f"{1 << lg}; values must be below the out-dim size"
            )
        flat |= v << sh
    return flat


def _pack_plain(bases: dict, out_dims: dict) -> tuple | None:
    """``(in dims, out dims, columns)`` for the constructor when every name is a non-empty
    str, every size a plain power-of-two int and every image a list or tuple of in-range
    plain ints; None otherwise (the caller then re-reads the input and names the fault)."""
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
            shifts = _prefix_sums([lg for _, lg in outs])
            fields = list(zip(shifts, (lg for _, lg in outs)))
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


def _names_arg(names: Any, what: str) -> list[str]:
    """A dim-name argument: one name, or an iterable of names (repeats dropped, as Triton's
    sets of names do)."""
    if isinstance(names, str):
        return [names]
    if not isinstance(names, Iterable):
        raise LayoutError(f"{what} must be a dim name or a list of names, got {names!r}")
    return list(dict.fromkeys(dim_name(n, "dim") for n in names))


def _dims_arg(dims: Any, what: str, kind: str) -> list[tuple[str, int]]:
    """``{name: size}`` or ``[(name, size), …]`` → ``[(name, log2 size), …]``, validated."""
    if isinstance(dims, Mapping):
        pairs = list(dims.items())
    elif isinstance(dims, Iterable) and not isinstance(dims, (str, bytes)):
        pairs = list(dims)
        if not all(isinstance(p, (tuple, list)) and len(p) == 2 for p in pairs):
            raise LayoutError(f"{what} must be {{name: size}} or [(name, size), ...], got {dims!r}")
    else:
        raise LayoutError(f"{what} must be {{name: size}} or [(name, size), ...], got {dims!r}")
    out = [(dim_name(n, kind), log2_exact(s, f"size of {kind} {n!r}")) for n, s in pairs]
    names = [n for n, _ in out]
    if len(set(names)) != len(names):
        raise LayoutError(f"{what} repeats a name: {names}")
    return out


class LinearLayout:
    """A linear map over F₂ from named input dims to named output dims (immutable, hashable).

    Immutable through its public API: every attribute is a read-only property and no
    attribute can be added. (The private ``_`` slots are not guarded: a ``__setattr__``
    guard would cost about 0.3 µs on every layout built.)

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

    __slots__ = ("_in", "_out", "_cols", "_hash", "_rank", "_meta")

    def __init__(
        self,
        bases: Mapping[str, Sequence[Sequence[int]]],
        out_dims: Mapping[str, int] | Sequence[str] | None = None,
        *,
        require_surjective: bool = False,
    ) -> None:
        if type(bases) is dict and type(out_dims) is dict:
            packed = _pack_plain(bases, out_dims)
            if packed is not None:  # plain, valid input (the usual case): packed in one pass
                self._in, self._out, self._cols = packed
                self._hash = self._rank = self._meta = None
                if require_surjective and not self.is_surjective:
                    self._not_surjective()
                return
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
            out_names = [dim_name(n, "out-dim") for n in out_dims]
        elif isinstance(out_dims, (str, bytes)) or not isinstance(out_dims, Iterable):
            raise LayoutError(f"out_dims must be a mapping or a list of names, got {out_dims!r}")
        else:
            out_names = [dim_name(n, "out-dim") for n in out_dims]
        if len(set(out_names)) != len(out_names):
            raise LayoutError(f"out-dim names must be distinct, got {out_names}")
        nout = len(out_names)

        if not infer:
            assert isinstance(out_dims, Mapping)
            out_log2 = [log2_exact(out_dims[n], f"size of out dim {n!r}") for n in out_names]
            shifts = _prefix_sums(out_log2)
        ins: list[tuple[str, int]] = []
        cols: list[int] = []
        raw: list[tuple[int, ...]] = []  # validated images, when the sizes are inferred
        for name, images in bases.items():
            dim_name(name, "in-dim")
            if isinstance(images, (str, bytes, Set, Mapping)) or \
                    not isinstance(images, Iterable):
                raise LayoutError(f"bases[{name!r}] must be a list of images (an ordered "
                                  f"sequence), got {images!r}")
            count = 0
            for i, img in enumerate(images):
                count += 1
                if infer:
                    raw.append(_image_values(name, i, img, out_names))
                    continue
                # Fast path: a list of in-range plain ints, packed in one pass.
                if (type(img) is list or type(img) is tuple) and len(img) == nout:
                    flat = 0
                    for v, sh, lg in zip(img, shifts, out_log2):
                        if type(v) is not int or v < 0 or v >> lg:
                            break
                        flat |= v << sh
                    else:
                        cols.append(flat)
                        continue
                vals = _image_values(name, i, img, out_names)
                cols.append(_pack_image(name, i, vals, out_names, shifts, out_log2))
            ins.append((name, count))
        if infer:
            maxes = [0] * nout
            for img in raw:
                for j, v in enumerate(img):
                    if v > maxes[j]:
                        maxes[j] = v
            out_log2 = [m.bit_length() for m in maxes]
            shifts = _prefix_sums(out_log2)
            it = iter(raw)
            cols = [_pack_image(name, i, next(it), out_names, shifts, out_log2)
                    for name, count in ins for i in range(count)]
            require_surjective = True
        self._out = tuple(zip(out_names, out_log2))
        self._in = tuple(ins)
        self._cols = tuple(cols)
        self._hash = self._rank = self._meta = None
        if require_surjective and not self.is_surjective:
            self._not_surjective()

    def _not_surjective(self) -> None:
        raise LayoutError(
            f"the layout is not surjective: its {len(self._cols)} bases span a space of "
            f"dimension {self.rank} but the out dims {self.out_dims} need "
            f"{self.total_out_bits}; add bases or shrink the out dims"
        )

    # ------------------------------------------------------------------ construction helpers
    @classmethod
    def unchecked(
        cls,
        in_dims: Sequence[tuple[str, int]],
        out_dims: Sequence[tuple[str, int]],
        cols: Sequence[int],
    ) -> LinearLayout:
        """Build from flat columns without any validation (the fast, unchecked constructor).

        For code that has already established every invariant — the algebra's own results,
        the synthesizer's layouts. Everyone else should use the constructor or
        :meth:`from_columns`, which check their input.

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

    @classmethod
    def from_columns(
        cls,
        columns: Sequence[int],
        in_dims: Mapping[str, int],
        out_dims: Mapping[str, int],
    ) -> LinearLayout:
        """Build a layout from flat columns (one int per input bit, flattened outputs).

        No Triton counterpart; the inverse of :attr:`columns`.

        Args:
            columns: ``sum(log2(in sizes))`` ints; column ``i`` is the flattened image of input
                bit ``i`` (in-dims concatenated in order, dim0 of the output in the low bits).
            in_dims: ``{name: size}`` (powers of two), in order.
            out_dims: ``{name: size}`` (powers of two), minor to major.

        Raises:
            LayoutError: sizes are not powers of two, the column count does not match, or a
                column does not fit in the output bits.
        """
        need_mapping(in_dims, "in_dims")
        need_mapping(out_dims, "out_dims")
        if isinstance(columns, (str, bytes)) or not isinstance(columns, Iterable):
            raise LayoutError(f"columns must be a sequence of ints, got {columns!r}")
        ins = [(dim_name(n, "in-dim"), log2_exact(s, f"size of in dim {n!r}"))
               for n, s in in_dims.items()]
        outs = [(dim_name(n, "out-dim"), log2_exact(s, f"size of out dim {n!r}"))
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
        return cls.unchecked(ins, outs, cols)

    @classmethod
    def empty(cls) -> LinearLayout:
        """The layout with no in dims and no out dims, the identity of ``*`` (Triton ``empty``)."""
        return cls.unchecked((), (), ())

    @classmethod
    def identity_1d(cls, size: int, in_dim: str, out_dim: str) -> LinearLayout:
        """``L(x) = x`` for ``x`` in ``[0, size)`` (Triton ``identity1D``).

        Raises:
            LayoutError: ``size`` is not a positive power of two or a name is empty.
        """
        n = log2_exact(size, "identity_1d size")
        return cls.unchecked(
            ((dim_name(in_dim, "in-dim"), n),), ((dim_name(out_dim, "out-dim"), n),),
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
        n = log2_exact(size, "zeros_1d size")
        m = log2_exact(out_dim_size, "zeros_1d out_dim_size")
        return cls.unchecked(
            ((dim_name(in_dim, "in-dim"), n),), ((dim_name(out_dim, "out-dim"), m),),
            [0] * n,
        )


    @classmethod
    def strided_1d(cls, size: int, stride: int, in_dim: str, out_dim: str) -> LinearLayout:
        """``L(x) = stride · x`` for ``x`` in ``[0, size)``, out size ``size · stride`` (Triton
        ``strided1D``).

        Bases ``[stride, 2·stride, 4·stride, …]``; surjective only for ``stride == 1``.

        Raises:
            LayoutError: ``size`` or ``stride`` is not a positive power of two, or a name is empty.

        Example::

            >>> LinearLayout.strided_1d(4, 2, "lane", "dim0").bases
            {'lane': [[2], [4]]}
        """
        n = log2_exact(size, "strided_1d size")
        k = log2_exact(stride, "strided_1d stride")
        return cls.unchecked(
            ((dim_name(in_dim, "in-dim"), n),), ((dim_name(out_dim, "out-dim"), n + k),),
            [1 << (i + k) for i in range(n)],
        )

    @classmethod
    def from_function(
        cls,
        fn: Callable[[dict[str, int]], Any],
        in_dims: Mapping[str, int] | Sequence[tuple[str, int]],
        out_dims: Mapping[str, int] | Sequence[tuple[str, int]],
        *,
        max_checks: int = 4096,
        rng: _random.Random | int | None = 0,
    ) -> LinearLayout:
        """The layout of a function given on small inputs, after checking that it is linear.

        ``fn`` is called with ``{in_dim: value}`` (every in dim present) and returns the
        output as ``{out_dim: value}``, a sequence in out-dim order, or an int when there is
        one out dim. The bases are its values at the powers of two; then ``fn`` is compared
        with the XOR of bases at 0 and on every input (when there are at most ``max_checks``)
        or on ``max_checks`` random inputs.

        Args:
            fn: the function (e.g. a swizzle formula written with ``^``, ``&``, ``>>``).
            in_dims, out_dims: ``{name: size}`` or ``[(name, size), …]`` (powers of two).
            max_checks: number of inputs to verify beyond the bases (≥ 0).
            rng: seed or ``random.Random`` for the sampled check.

        Raises:
            NotLinearError: ``fn`` is not F₂-linear (the input and the two outputs are named).
            LayoutError: ``fn`` is not callable, raises (chained), returns a malformed output,
                or a value is out of range for its out dim (named).

        Example (the 128-byte swizzle on a 8×8 tile of 16-byte chunks)::

            >>> L = LinearLayout.from_function(
            ...     lambda p: {"col": p["col"] ^ p["row"], "row": p["row"]},
            ...     {"col": 8, "row": 8}, {"col": 8, "row": 8})
            >>> L.bases["row"]
            [[1, 1], [2, 2], [4, 4]]
        """
        if not callable(fn):
            raise LayoutError(f"from_function needs a callable, got {fn!r}")
        ins = _dims_arg(in_dims, "in_dims", "in-dim")
        outs = _dims_arg(out_dims, "out_dims", "out-dim")
        if isinstance(max_checks, bool) or not isinstance(max_checks, int) or max_checks < 0:
            raise LayoutError(f"max_checks must be a non-negative int, got {max_checks!r}")
        sampler = random_source(rng)
        probe = cls.unchecked(ins, outs, [0] * sum(b for _, b in ins))

        def point(x: int) -> dict[str, int]:
            p = {}
            for n, b in ins:
                p[n] = x & ((1 << b) - 1)
                x >>= b
            return p

        def evaluate(x: int) -> int:
            try:
                value = fn(point(x))
            except Exception as exc:  # the caller's function: report where it failed
                raise LayoutError(
                    f"the function raised {type(exc).__name__}: {exc} at {point(x)}; it must "
                    f"accept {{in_dim: value}} for the in dims {[n for n, _ in ins]}"
                ) from exc
            return probe._flat_out(value, point(x))

        nin = probe.total_in_bits
        layout = cls.unchecked(ins, outs, [evaluate(1 << i) for i in range(nin)])
        if nin <= max_checks.bit_length() - 1:
            xs: Iterable[int] = range(1 << nin)
        else:
            xs = [0] + [sampler.getrandbits(nin) for _ in range(max_checks)]
        for x in xs:
            got, want = evaluate(x), layout.apply_flat(x)
            if got != want:
                raise NotLinearError(
                    f"the function is not linear over F2: at {point(x)} it gives "
                    f"{dict(zip(layout.out_dim_names, layout._split_out(got)))} but the XOR of "
                    "its values at the set bits is "
                    f"{dict(zip(layout.out_dim_names, layout._split_out(want)))}"
                )
        return layout

    def _flat_out(self, value: Any, where: Mapping[str, int]) -> int:
        """A function output (mapping, sequence or int) → flat out bits, validated."""
        names = self.out_dim_names
        if isinstance(value, Mapping):
            if set(value) != set(names):
                raise LayoutError(
                    f"at {dict(where)} the function returned out dims {list(value)}; expected "
                    f"{list(names)}"
                )
            vals = [value[n] for n in names]
        elif isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
            vals = list(value)
        elif len(names) == 1:
            vals = [value]
        else:
            raise LayoutError(
                f"at {dict(where)} the function returned {value!r}; return {{out_dim: value}} "
                f"or one value per out dim {list(names)}"
            )
        if len(vals) != len(names):
            raise LayoutError(
                f"at {dict(where)} the function returned {len(vals)} values for the "
                f"{len(names)} out dims {list(names)}"
            )
        flat = 0
        for (n, b), s, v in zip(self._out, self._out_shifts(), vals):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0 or v >> b:
                raise LayoutError(
                    f"at {dict(where)} the function gives {v!r} for out dim {n!r}, which needs "
                    f"an int in [0, {1 << b})"
                )
            flat |= v << s
        return flat

    @classmethod
    def random(
        cls,
        in_dims: Mapping[str, int] | Sequence[tuple[str, int]],
        out_dims: Mapping[str, int] | Sequence[tuple[str, int]],
        *,
        kind: str = "general",
        broadcast: float = 0.0,
        surjective: bool = False,
        rng: _random.Random | int | None = None,
    ) -> LinearLayout:
        """A random layout, for tests and experiments.

        Args:
            in_dims, out_dims: ``{name: size}`` or ``[(name, size), …]`` (powers of two).
            kind: ``"general"`` — every basis a uniformly random output; ``"unit"`` — each
                basis a single bit of one out dim (the layouts Triton's blocked, mma and
                swizzled-free shared encodings give), distinct bits while there are any left,
                0 afterwards.
            broadcast: probability that each basis is replaced by 0 (a broadcast input); with
                ``surjective`` the bases that span the outputs are never zeroed.
            surjective: guarantee every output is reached (needs total in bits ≥ total out
                bits).
            rng: ``random.Random``, int seed, or None.

        Raises:
            LayoutError: bad dims, ``kind`` unknown, ``broadcast`` outside [0, 1], or
                ``surjective`` with fewer in bits than out bits.

        Example::

            >>> L = LinearLayout.random({"register": 4, "lane": 32}, {"dim0": 16, "dim1": 8},
            ...                         kind="unit", surjective=True, rng=0)
            >>> L.is_surjective and all(c & (c - 1) == 0 for c in L.columns)
            True
        """
        ins = _dims_arg(in_dims, "in_dims", "in-dim")
        outs = _dims_arg(out_dims, "out_dims", "out-dim")
        if not isinstance(surjective, bool):
            raise LayoutError(f"surjective must be a bool, got {surjective!r}")
        if kind not in ("general", "unit"):
            raise LayoutError(f"kind must be 'general' or 'unit', got {kind!r}")
        if isinstance(broadcast, bool) or not isinstance(broadcast, (int, float)) \
                or not 0.0 <= broadcast <= 1.0:
            raise LayoutError(f"broadcast must be a probability in [0, 1], got {broadcast!r}")
        r = random_source(rng)
        nin, nout = sum(b for _, b in ins), sum(b for _, b in outs)
        if surjective and nin < nout:
            raise LayoutError(
                f"a surjective layout needs at least as many in bits as out bits; got {nin} in "
                f"bits for {nout} out bits"
            )
        positions = r.sample(range(nin), nin)
        cols = [0] * nin
        spanning: list[int] = []  # positions that must stay nonzero
        if kind == "unit":
            bits = r.sample(range(nout), nout)
            for pos, bit in zip(positions, bits):
                cols[pos] = 1 << bit
            spanning = positions[:nout] if surjective else []
        else:
            for pos in positions:
                cols[pos] = r.getrandbits(nout) if nout else 0
            if surjective:
                spanning = positions[:nout]
                while f2.rank(cols[p] for p in spanning) < nout:  # P(full rank) > 0.28
                    for p in spanning:
                        cols[p] = r.getrandbits(nout)
        keep = set(spanning)
        for pos in range(nin):
            if pos not in keep and broadcast and r.random() < broadcast:
                cols[pos] = 0
        return cls.unchecked(ins, outs, cols)

    # ------------------------------------------------------------------ basic accessors
    def _info(self) -> tuple:
        """Cached per-layout tables (read-only), by dim name: ``(in offset, in bits, out shift,
        out bits, {in dim: (offset, size)}, ((out dim, shift, mask), …), in names, out
        names)``."""
        meta = getattr(self, "_meta", None)  # absent on layouts pickled by older versions
        if meta is None:
            in_offs = dict(zip((n for n, _ in self._in), _prefix_sums([b for _, b in self._in])))
            shifts = dict(zip((n for n, _ in self._out),
                              _prefix_sums([b for _, b in self._out])))
            meta = (in_offs, dict(self._in), shifts, dict(self._out),
                    {n: (in_offs[n], 1 << b) for n, b in self._in},
                    tuple((n, shifts[n], (1 << b) - 1) for n, b in self._out),
                    tuple(in_offs), tuple(shifts))
            self._meta = meta
        return meta

    def _out_shifts(self) -> list[int]:
        return list(self._info()[2].values())

    def _in_offsets(self) -> dict[str, int]:
        return self._info()[0]

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
        if isinstance(in_dim, str) and in_dim in self._info()[1]:
            return self._info()[1][in_dim]
        raise LayoutError(f"no in dim {in_dim!r}; the in dims are {list(self.in_dim_names)}")

    def out_bits(self, out_dim: str) -> int:
        """log2 of the size of ``out_dim``. Raises LayoutError if absent."""
        if isinstance(out_dim, str) and out_dim in self._info()[3]:
            return self._info()[3][out_dim]
        raise LayoutError(f"no out dim {out_dim!r}; the out dims are {list(self.out_dim_names)}")

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
        meta = self._meta or self._info()
        spec = meta[4]
        cols = self._cols
        out = 0
        try:  # fast path: plain ints in range; anything else is re-read by _flat_in
            for name, v in inputs.items():
                off, size = spec[name]
                if type(v) is not int or not 0 <= v < size:
                    raise TypeError
                while v:  # the set bits of v only
                    low = v & -v
                    out ^= cols[off + low.bit_length() - 1]
                    v ^= low
        except (TypeError, KeyError, AttributeError):
            out = f2.apply(cols, self._flat_in(inputs))
        fields = meta[5]
        if len(fields) == 2:  # the usual (dim0, dim1): unrolled
            (n0, _, m0), (n1, s1, m1) = fields
            return {n0: out & m0, n1: out >> s1 & m1}
        return {n: out >> sh & m for n, sh, m in fields}

    def _flat_in(self, inputs: Mapping[str, int]) -> int:
        need_mapping(inputs, "inputs")
        offs, sizes = self._info()[:2]
        x = 0
        for name, v in inputs.items():
            if not isinstance(name, str) or name not in sizes:
                raise LayoutError(
                    f"unknown in dim {name!r}; the in dims are {list(self.in_dim_names)}"
                )
            if type(v) is not int:
                if isinstance(v, bool):
                    raise LayoutError(f"value for in dim {name!r} is a bool; use an int")
                try:
                    v = operator.index(v)
                except TypeError:
                    raise LayoutError(
                        f"value for in dim {name!r} must be an int, got {v!r}") from None
            if v < 0 or v >> sizes[name]:
                raise LayoutError(
                    f"value {v} for in dim {name!r} is outside [0, {1 << sizes[name]})"
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
            raise LayoutError(f"apply_flat needs a non-negative int flat input, got {x!r}")
        return f2.apply(self._cols, x)

    # ------------------------------------------------------------------ algebra
    def compose(self, outer: LinearLayout) -> LinearLayout:
        """The layout ``x ↦ outer(self(x))`` (Triton ``compose``, LinearLayout.cpp).

        Requires ``self``'s out dims to equal ``outer``'s in dims as a set, with each out size of
        ``self`` at most the matching in size of ``outer``. The result has ``self``'s in dims
        and ``outer``'s out dims; it may be non-surjective (Triton's ``Compose`` test).

        Raises:
            LayoutError: the dims do not match (named) or a size is too large.
        """
        if type(outer) is LinearLayout and self._out == outer._in:  # the usual case, inlined
            ocols, oout = outer._cols, outer._out
            width = oout[0][1] + oout[1][1] if len(oout) == 2 else sum(b for _, b in oout)
            if width < len(ocols):  # the bound on both layouts' columns
                width = len(ocols)
            result = _new(LinearLayout)
            result._in, result._out = self._in, oout
            result._cols = tuple(f2.compose_unchecked(ocols, self._cols, width))
            result._hash = result._rank = result._meta = None
            return result
        _need_layout(outer, "outer")
        ooffs, osizes = outer._info()[:2]
        if len(osizes) != len(self._out) or any(n not in osizes for n, _ in self._out):
            raise LayoutError(
                f"compose needs this layout's out dims {list(self.out_dim_names)} to equal the "
                f"outer layout's in dims {list(outer.in_dim_names)}"
            )
        # Re-express our flat outputs as outer's flat inputs: for each of our output bits,
        # outer's column.
        remap: list[int] = []
        outer_cols = outer._cols
        for n, b in self._out:
            if b > osizes[n]:
                raise LayoutError(
                    f"out dim {n!r} has size {1 << b} but the outer in dim has size "
                    f"{1 << osizes[n]}; it must be at most that"
                )
            remap += outer_cols[ooffs[n]:ooffs[n] + b]
        return LinearLayout.unchecked(self._in, outer._out, f2.compose_within(
            remap, self._cols, max(len(remap), outer.total_out_bits)))

    def invert(self) -> LinearLayout:
        """The inverse map (out dims become in dims). Triton ``invert``, LinearLayout.cpp.

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
        return LinearLayout.unchecked(self._out, self._in, f2.inverse(self._cols))

    def pseudoinvert(self) -> LinearLayout:
        """A right inverse ``R`` with ``self(R(y)) == y`` for every output ``y``.

        Exactly Triton's ``pseudoinvert`` (LinearLayout.cpp): ``I.invert_and_compose(self)``
        where ``I`` is the identity on this layout's out dims. Among the preimages, each output
        bit picks the one with all free variables zero; an in dim named like an out dim on
        which this layout is the identity maps back identically (the
        :meth:`invert_and_compose` heuristic).

        Raises:
            NotInvertibleError: the layout is not surjective.
        """
        if not self.is_surjective:
            raise NotInvertibleError(
                f"pseudoinvert needs a surjective layout; rank {self.rank} < "
                f"{self.total_out_bits} output bits"
            )
        ident = LinearLayout.unchecked(
            self._out, self._out, [1 << j for j in range(self.total_out_bits)]
        )
        return ident.invert_and_compose(self)

    def _same_out_names(self, other: LinearLayout, op: str, what: str) -> None:
        """LayoutError unless both layouts have the same out-dim names (any order)."""
        if set(other.out_dim_names) != set(self.out_dim_names):
            only_self = [n for n in self.out_dim_names if n not in other.out_dim_names]
            only_other = [n for n in other.out_dim_names if n not in self.out_dim_names]
            raise LayoutError(
                f"{op} needs equal out dims, got {list(self.out_dim_names)} and "
                f"{list(other.out_dim_names)} (only in this layout: {only_self}; only in "
                f"{what}: {only_other})"
            )

    def _columns_in(self, target: LinearLayout, op: str, what: str) -> Sequence[int]:
        """This layout's columns re-expressed in ``target``'s flat out bits.

        Needs the same out-dim names, each of ours at most ``target``'s size (else LayoutError
        naming the dim).
        """
        if self._out == target._out:
            return self._cols
        tsizes = target._info()[3]
        if len(tsizes) != len(self._out) or any(n not in tsizes for n, _ in self._out):
            self._same_out_names(target, op, what)
        for n, b in self._out:
            if b > tsizes[n]:
                raise LayoutError(
                    f"out dim {n!r} has size {1 << b} here but {1 << tsizes[n]} in {what} "
                    f"({self.out_dims} vs {target.out_dims}); {what}'s out dims must be at "
                    "least as large"
                )
        return _remap(self._cols, self._out_spec(target._info()[2]))

    def least_squares(self, other: LinearLayout) -> LinearLayout:
        """``X`` with ``self(X(x)) == other(x)`` for all ``x``, free variables zero.

        Triton ``LinearLayout::lstsq(A, B)`` (LinearLayout.cpp) with ``A = self``,
        ``B = other``: each column of ``B`` is solved over ``A``'s columns by reduced
        row-echelon elimination with the free variables set to 0 (:func:`f2.least_squares`),
        so among all solutions each input bit maps to the one using only *basic* columns of
        ``A`` (the smallest preimage in ``A``'s flat input order). Unlike
        :meth:`invert_and_compose` there is no identity heuristic and ``A`` need not be
        surjective; only ``Im(B) ⊆ Im(A)`` is required.

        Shapes: ``A``: in bits ``m`` → out bits ``k``; ``B``: in bits ``n`` → out bits
        ``k' ≤ k``; the result maps ``B``'s in dims (``n`` bits) to ``A``'s in dims (``m``).

        Raises:
            LayoutError: the out-dim names differ, or one of ``other``'s out dims is larger
                than ours (named).
            NotInvertibleError: an image of ``other`` is not in the image of this layout (the
                in dim and basis are named).

        Example::

            >>> A = LinearLayout({"lane": [[0], [1], [2]]}, {"dim0": 4})   # lane 1 broadcasts
            >>> B = LinearLayout.identity_1d(4, "register", "dim0")
            >>> A.least_squares(B).bases
            {'register': [[2], [4]]}
        """
        _need_layout(other, "other")
        targets = other._columns_in(self, "least_squares", "this layout")
        sols = f2.solve_many(self._cols, targets)
        for i, s in enumerate(sols):
            if s is None:
                name, bit = other._locate(i)
                raise NotInvertibleError(
                    f"other's basis {name}={1 << bit} maps to {other.bases[name][bit]}, which is "
                    "not in the image of this layout; least squares over F2 needs "
                    "Im(other) ⊆ Im(self)"
                )
        return LinearLayout.unchecked(other._in, self._in, sols)  # type: ignore[arg-type]

    def invert_and_compose(self, outer: LinearLayout) -> LinearLayout:
        """``C`` with ``outer(C(x)) == self(x)`` for all ``x`` (Triton ``invertAndCompose``).

        Both layouts must have the same out dims (any order), each of ``outer``'s at least as
        large as ours (Triton's ``InvertAndComposeLargerA``), and ``outer`` must be
        surjective. As in Triton (LinearLayout.cpp): an in dim that both layouts have, with
        identical images, maps to itself (identity); the rest is solved with free variables
        zero (Triton's ``lstsq``, :meth:`least_squares`) over ``outer``'s other in dims, which
        maps broadcast copies to the smallest input. Where Triton's heuristic fails (an output
        of ``self``'s other dims needs an identity dim of ``outer`` too; Triton asserts), the
        identity dims' columns are used as well, after the others, so a valid ``C`` is always
        returned and equals Triton's whenever Triton's exists.

        This is the rule of Triton's main branch (and of this project's spec). The Triton
        3.9 wheel does not apply the identity-dim rule: where several ``C`` exist it may
        return another, equally valid one (``outer(C(x)) == self(x)`` holds for both; 171
        of 1,836 small random pairs differed, 154 of them sharing a dim, never where ``C``
        is unique: ``papers/linear_layouts/triton_invert_and_compose.py``).

        Returns:
            A layout from ``self``'s in dims to ``outer``'s in dims.

        Raises:
            LayoutError: out dims differ (named) or one of ours is larger than ``outer``'s;
            NotInvertibleError: ``outer`` is not surjective.
        """
        _need_layout(outer, "outer")
        mine = self._columns_in(outer, "invert_and_compose", "outer")
        if not outer.is_surjective:
            raise NotInvertibleError(
                "invert_and_compose needs the outer layout to be surjective (every tensor "
                f"element must have a location); its rank is {outer.rank} < "
                f"{outer.total_out_bits}"
            )
        my_offs, my_sizes = self._info()[:2]
        ooffs, ocols = outer._info()[0], outer._cols
        identity = [
            n for n, b in outer._in
            if my_sizes.get(n) == b and tuple(mine[my_offs[n]:my_offs[n] + b])
            == ocols[ooffs[n]:ooffs[n] + b]
        ]
        a_cols: list[int] = []
        a_index: list[int] = []  # flat position in outer's input of each A column
        # Non-identity dims first (Triton's lstsq over them), then the identity dims: with free
        # variables zero the identity columns are used only when the others cannot reach a
        # target, so the answer is Triton's whenever Triton's succeeds.
        for use_identity in (False, True):
            for n, b in outer._in:
                if (n in identity) == use_identity:
                    a_cols.extend(ocols[ooffs[n]:ooffs[n] + b])
                    a_index.extend(range(ooffs[n], ooffs[n] + b))
        b_reduced = [mine[my_offs[n] + i] for n, b in self._in if n not in identity
                     for i in range(b)]
        sols = f2.solve_many(a_cols, b_reduced)  # outer is surjective: every target is reached
        if a_index != list(range(len(a_index))):  # identity dims moved: back to outer's order
            sols = [_scatter(x, a_index) for x in sols]  # type: ignore[arg-type]
        it = iter(sols)
        result = []
        for n, b in self._in:
            if n in identity:
                result.extend(1 << (ooffs[n] + i) for i in range(b))
            else:
                result.extend(next(it) for _ in range(b))
        return LinearLayout.unchecked(self._in, outer._in, result)

    def __mul__(self, outer: LinearLayout) -> LinearLayout:
        """Triton's direct product ``inner * outer`` (``operator*``, LinearLayout.cpp).

        In dims and out dims are merged by name into Triton's ``supremum`` of the two ordered
        lists (LayoutUtils.cpp): between consecutive shared dims, ``inner``'s own dims come
        first, then ``outer``'s — e.g. ``sup([a, b], [c, b]) == [a, c, b]``. Where both layouts
        share a dim, ``outer``'s bits come after ``inner``'s: its in bits are appended and its
        out values are shifted above ``inner``'s out bits. Sizes multiply; ranks add.

        Worked example (Triton's ``MultiplyOverlapping``)::

            identity_1d(4, "in", "o1") * identity_1d(8, "in", "o2")
            == LinearLayout({"in": [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]]},
                            {"o1": 4, "o2": 8})

        Raises:
            LayoutError: dims common to both appear in a different relative order (named).
        """
        if not isinstance(outer, LinearLayout):
            return NotImplemented
        mi, mo = self._meta or self._info(), outer._meta or outer._info()
        ins = _supremum_dims(self._in, outer._in, mi[6], mo[6], "in")
        outs = _supremum_dims(self._out, outer._out, mi[7], mo[7], "out")
        shift: dict[str, int] = {}
        s = 0
        for n, b in outs:
            shift[n] = s
            s += b
        inner_bits = mi[3]
        # Each layout's out fields keep their relative order in ``outs``: spread them apart.
        inner_cols = _spread(self._cols, [(sh, shift[n]) for n, sh, m in mi[5] if m])
        outer_cols = _spread(outer._cols, [(sh, shift[n] + inner_bits.get(n, 0))
                                           for n, sh, m in mo[5] if m])
        if len(ins) == len(self._in) + len(outer._in):  # no shared in dim: inner's, outer's
            return LinearLayout.unchecked(ins, outs, inner_cols + outer_cols)
        inner_by_dim = self._dim_map(inner_cols)
        outer_by_dim = outer._dim_map(outer_cols)
        cols: list[int] = []
        for n, _ in ins:
            cols.extend(inner_by_dim.get(n, ()))
            cols.extend(outer_by_dim.get(n, ()))
        return LinearLayout.unchecked(ins, outs, cols)

    def divide_left(self, divisor: LinearLayout) -> LinearLayout | None:
        """``C`` with ``divisor * C == self``, or None when there is none (Triton ``divideLeft``).

        LayoutUtils/LinearLayout.cpp ``divideLeft(A, B)`` with ``A = self``, ``B = divisor``:
        ``C`` exists iff, for every pair of in and out dims, ``A``'s matrix is block-diagonal
        ``[[B, 0], [0, C]]`` — ``B``'s in bits come first in each shared in dim and ``B``'s
        out bits are the low bits of each shared out dim. ``C`` has exactly ``A``'s in and out
        dims (size-1 dims kept), so ``C`` is well defined.

        Worked example (Triton's ``Divide_2D``)::

            A = {"in1": [[1, 1], [2, 2], [0, 8], [0, 4]], "in2": [[0, 2], [0, 1]]} (4×16)
            B = {"in1": [[1, 1], [2, 2]], "in2": [[0, 2], [0, 1]]}                 (4×4)
            A.divide_left(B) == {"in1": [[0, 2], [0, 1]], "in2": []}              (1×4)

        Raises:
            LayoutError: ``divisor`` is not a LinearLayout.
        """
        return self._divide(divisor, left=True)

    def divide_right(self, divisor: LinearLayout) -> LinearLayout | None:
        """``C`` with ``C * divisor == self``, or None when there is none (Triton ``divideRight``).

        The mirror of :meth:`divide_left` (LinearLayout.cpp ``divideRight(A, B)``): ``B``'s in
        bits are the last ones of each shared in dim and its out values the high bits of each
        shared out dim. ``C`` has exactly ``self``'s in and out dims.

        Raises:
            LayoutError: ``divisor`` is not a LinearLayout.
        """
        return self._divide(divisor, left=False)

    def _divide(self, divisor: LinearLayout, *, left: bool) -> LinearLayout | None:
        """Candidate quotient read off the block structure, kept only if the product matches."""
        _need_layout(divisor, "divisor")
        _, b_in, _, b_out = divisor._info()[:4]
        _, a_in, a_shift, a_out = self._info()[:4]
        if any(n not in a_in for n in b_in) or any(n not in a_out for n in b_out):
            return None
        c_out = [(n, b - b_out.get(n, 0)) for n, b in self._out]
        c_in = [(n, b - b_in.get(n, 0)) for n, b in self._in]
        if any(b < 0 for _, b in c_out + c_in):
            return None
        # C's out value of dim n is A's value without B's bits: the high bits (left division)
        # or the low bits (right division).
        spec, s = [], 0
        for n, cb in c_out:
            skip = b_out.get(n, 0) if left else 0
            if cb:
                spec.append((a_shift[n] + skip, (1 << cb) - 1, s))
            s += cb
        cols: list[int] = []
        for (n, b), (_, cb) in zip(self._in, c_in):
            own = self.dim_columns(n)
            cols.extend(_remap(own[b - cb:] if left else own[:cb], spec))
        quotient = LinearLayout.unchecked(c_in, c_out, cols)
        try:
            product = divisor * quotient if left else quotient * divisor
        except LayoutError:  # dim orders incompatible: no product can equal self
            return None
        return quotient if product == self else None

    def is_trivial_over(self, dims: str | Iterable[str]) -> bool:
        """Whether the layout acts as the identity on ``dims`` and keeps them apart from the rest.

        Triton ``isTrivialOver`` (LinearLayout.cpp). Seeing the matrix as blocks
        ``[[A, B], [C, D]]`` with ``D`` the block from the in dims ``dims`` to the out dims
        ``dims``: true iff ``D`` is the identity (the sublayout on ``dims``, flattened, maps
        bit ``k`` to bit ``k``; so each dim has the same size as in and out dim and the dims
        come in the same order on both sides), ``B = 0`` (other in dims never reach ``dims``'
        outputs) and ``C = 0`` (``dims``' inputs never reach other outputs). A name that is not
        both an in dim and an out dim makes the answer False (Triton returns false for a name
        in neither and asserts for a name on one side only).

        Raises:
            LayoutError: a name is not a non-empty string.
        """
        names = _names_arg(dims, "dims")
        _, ins, _, outs = self._info()[:4]
        if any(ins.get(n) is None or outs.get(n) != ins[n] for n in names):
            return False
        rest_in = [n for n in self.in_dim_names if n not in names]
        rest_out = [n for n in self.out_dim_names if n not in names]
        square = self.sublayout(names, names)
        return (
            square._cols == tuple(1 << k for k in range(len(square._cols)))
            and self.sublayout_is_zero(rest_in, names)
            and self.sublayout_is_zero(names, rest_out)
        )

    def quotient(self, dims: str | Iterable[str]) -> LinearLayout | None:
        """The layout on the remaining dims when it is trivial over ``dims``, else None.

        Triton ``quotient`` (LinearLayout.cpp): if :meth:`is_trivial_over` ``(dims)``, the
        :meth:`sublayout` without the in and out dims ``dims``; otherwise None.

        Example (Triton's ``QuotientOneDimension``)::

            >>> L = LinearLayout({"dim1": [[1, 0]], "dim2": [[0, 0]]}, {"dim1": 2, "dim2": 1})
            >>> L.quotient("dim1") == LinearLayout.zeros_1d(2, "dim2", "dim2")
            True

        Raises:
            LayoutError: a name is not a non-empty string.
        """
        names = _names_arg(dims, "dims")
        if not self.is_trivial_over(names):
            return None
        return self.sublayout([n for n in self.in_dim_names if n not in names],
                              [n for n in self.out_dim_names if n not in names])

    def free_variable_masks(self) -> dict[str, int]:
        """For each in dim, the bitmask of its *free variables* (Triton ``getFreeVariableMasks``).

        An input bit is free when its basis is in the span of the bases before it (in flat
        input order): it is a non-pivot column of the reduced row-echelon form
        (LinearLayout.cpp uses f2reduce; here :func:`f2.basic_columns`). Every reached output
        has exactly one preimage whose free bits are all zero (the one :meth:`least_squares`
        picks). All masks are 0 iff the layout is injective.

        Example (Triton's ``FreeVariableMasks``)::

            >>> LinearLayout({"in1": [[1, 1], [2, 2], [0, 0]], "in2": [[1, 0], [0, 1], [2, 0]]},
            ...              ["out1", "out2"]).free_variable_masks()
            {'in1': 4, 'in2': 2}
        """
        free = ~f2.basic_columns(self._cols)
        out, s = {}, 0
        for n, b in self._in:
            out[n] = (free >> s) & ((1 << b) - 1)
            s += b
        return out

    def num_consecutive_in_out(self) -> int:
        """How many consecutive inputs of the first in dim map to consecutive outputs of the
        first out dim (Triton ``getNumConsecutiveInOut``, LinearLayout.cpp).

        The largest ``V`` (a power of two) with ``L(a·V + v, b, …) = L(a·V, b, …) + (v, 0, …)``
        for all ``a``, ``b``, … and ``v < V``: the first ``log2 V`` bases of the first in dim
        are ``(1, 0, …), (2, 0, …), (4, 0, …)…`` and no other basis has a bit below ``V`` in the
        first out dim. 1 for a layout without in or out dims. E.g. registers → ``dim1`` (after
        ``transpose_outs`` puts ``dim1`` first): the vector width of a register access.

        Example (Triton's ``NumConsecutiveInOut``)::

            >>> LinearLayout({"in": [[1], [2], [4]], "in2": [[8], [18]]}, ["out"]
            ...              ).num_consecutive_in_out()
            2
        """
        if not self._in or not self._out:
            return 1
        first_bits = self._out[0][1]
        first_cols = self.dim_columns(self._in[0][0])
        consec = 0
        while consec < len(first_cols) and consec < first_bits and \
                first_cols[consec] == 1 << consec:
            consec += 1
        low = (1 << first_bits) - 1
        other = 0
        for c in self._cols[consec:]:  # the first dim's columns come first in the flat order
            other |= c & low
        zeros = (other & -other).bit_length() - 1 if other else consec
        return 1 << min(consec, zeros)

    def contiguous_elems_along(self, out_dim: str, in_dim: str | None = None) -> int:
        """Consecutive elements along ``out_dim`` reached by consecutive values of ``in_dim``.

        :meth:`num_consecutive_in_out` after moving ``in_dim`` (default: the first in dim,
        ``register`` for a distributed layout) and ``out_dim`` to the front, which is how
        Triton's lowerings use ``getNumConsecutiveInOut`` (LinearLayout.cpp) on a layout
        transposed so that the contiguous tensor dim comes first. Every aligned group of that
        many ``in_dim`` values holds that many consecutive ``out_dim`` elements (other
        coordinates fixed), so it is a safe vector width, in elements.

        Raises:
            LayoutError: ``out_dim`` or ``in_dim`` is not a dim of this layout (named).
        """
        self.out_bits(out_dim)
        if in_dim is None:
            if not self._in:
                return 1
            in_dim = self._in[0][0]
        self.in_bits(in_dim)
        moved = self.transpose_ins([in_dim] + [n for n in self.in_dim_names if n != in_dim])
        moved = moved.transpose_outs([out_dim] + [n for n in self.out_dim_names if n != out_dim])
        return moved.num_consecutive_in_out()

    def image(self) -> Subspace:
        """The subspace of reached outputs, as flat out-bit vectors (dim0 in the low bits).

        ``image().dim == rank``; the layout is surjective iff it is all of F₂^total_out_bits.
        No Triton counterpart (Triton only computes the rank, ``getMatrixRank`` in
        LinearLayout.cpp).
        """
        return Subspace.from_echelon(f2.echelon(self._cols))

    def kernel(self) -> Subspace:
        """The subspace of inputs mapped to 0, as flat in-bit vectors (first in dim lowest).

        Rank–nullity: ``kernel().dim + rank == total_in_bits``; the layout is injective iff
        the kernel is 0. Its elements are the broadcast directions: inputs ``x`` and
        ``x ^ k`` hold the same tensor element. No Triton counterpart (Triton reports the free
        variables instead, :meth:`free_variable_masks`).
        """
        return Subspace.from_echelon(f2.null_space(self._cols))

    # ------------------------------------------------------------------ structure
    def _out_spec(self, shift_of: Mapping[str, int]) -> list[tuple[int, int, int]]:
        """Remap spec moving each out dim named in ``shift_of`` to that bit (others dropped)."""
        return [(sh, m, shift_of[n]) for n, sh, m in (self._meta or self._info())[5]
                if m and n in shift_of]

    def _dim_map(self, cols: Sequence[int]) -> dict[str, Sequence[int]]:
        """Split flat columns (in this layout's in order) per in dim."""
        out, i = {}, 0
        for n, b in self._in:
            out[n] = cols[i:i + b]
            i += b
        return out

    def _locate(self, index: int) -> tuple[str, int]:
        """(in dim, bit) of flat column ``index``."""
        for n, b in self._in:
            if index < b:
                return n, index
            index -= b
        raise IndexError(index)

    def _permutation(self, order: Sequence[str] | str, names: tuple[str, ...], what: str,
                     op: str) -> list[str]:
        if not isinstance(order, Iterable):
            raise LayoutError(f"{op} needs a permutation of {list(names)}, got {order!r}")
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

    def transpose_ins(self, order: Sequence[str]) -> LinearLayout:
        """Reorder the in dims (Triton ``transposeIns``); the map itself is unchanged.

        Changes the flat input order, hence :meth:`reshape_ins`, :meth:`flatten_ins` and
        which preimage counts as smallest.

        Raises:
            LayoutError: ``order`` is not a permutation of the in-dim names.
        """
        order = self._permutation(order, self.in_dim_names, "in", "transpose_ins")
        if tuple(order) == self.in_dim_names:
            return self
        by_dim = self._dim_map(self._cols)
        sizes = dict(self._in)
        return LinearLayout.unchecked([(n, sizes[n]) for n in order], self._out,
                                       [c for n in order for c in by_dim[n]])

    def transpose_outs(self, order: Sequence[str]) -> LinearLayout:
        """Reorder the out dims (Triton ``transposeOuts``).

        Raises:
            LayoutError: ``order`` is not a permutation of the out-dim names.
        """
        order = self._permutation(order, self.out_dim_names, "out", "transpose_outs")
        if tuple(order) == self.out_dim_names:
            return self
        sizes = dict(self._out)
        new_out = [(n, sizes[n]) for n in order]
        shift, s = {}, 0
        for n, b in new_out:
            shift[n] = s
            s += b
        return LinearLayout.unchecked(self._in, new_out,
                                       _remap(self._cols, self._out_spec(shift)))

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
        dims = _dims_arg(new_in_dims, "new in dims", "in-dim")
        if sum(b for _, b in dims) != self.total_in_bits:
            raise LayoutError(
                f"reshape_ins to {dict((n, 1 << b) for n, b in dims)} (total "
                f"{1 << sum(b for _, b in dims)}) must keep the total in size "
                f"{1 << self.total_in_bits} of {self.in_dims}"
            )
        return LinearLayout.unchecked(dims, self._out, self._cols)

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
        dims = _dims_arg(new_out_dims, "new out dims", "out-dim")
        if sum(b for _, b in dims) != self.total_out_bits:
            raise LayoutError(
                f"reshape_outs to {dict((n, 1 << b) for n, b in dims)} (total "
                f"{1 << sum(b for _, b in dims)}) must keep the total out size "
                f"{1 << self.total_out_bits} of {self.out_dims}"
            )
        return LinearLayout.unchecked(self._in, dims, self._cols)

    def flatten_outs(self) -> LinearLayout:
        """One out dim, named like the first, of size the product (Triton ``flattenOuts``)."""
        if not self._out:
            return self
        return LinearLayout.unchecked(
            self._in, ((self._out[0][0], self.total_out_bits),), self._cols
        )

    def flatten_ins(self) -> LinearLayout:
        """One in dim, named like the first, of size the product (Triton ``flattenIns``)."""
        if not self._in:
            return self
        return LinearLayout.unchecked(
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
        new = log2_exact(size, f"new size of in dim {in_dim!r}")
        if new == old:
            return self
        by_dim = self._dim_map(self._cols)
        cols = (list(by_dim[in_dim]) + [0] * (new - old))[:new]
        return LinearLayout.unchecked(
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
        new = log2_exact(size, f"new size of out dim {out_dim!r}")
        if new == old:
            return self
        new_out = [(n, new if n == out_dim else b) for n, b in self._out]
        shift, s = {}, 0
        for n, b in new_out:
            shift[n] = s
            s += b
        src = self._info()[2]
        spec = [(src[n], (1 << min(b, nb)) - 1, shift[n])
                for (n, b), (_, nb) in zip(self._out, new_out) if min(b, nb)]
        cols = _remap(self._cols, spec)
        if new < old:  # Triton: a value that does not fit becomes 0 (not its low bits)
            field = ((1 << new) - 1) << shift[out_dim]
            cols = [c & ~field if ((orig >> src[out_dim]) & ((1 << old) - 1)) >> new else c
                    for c, orig in zip(cols, self._cols)]
        return LinearLayout.unchecked(self._in, new_out, cols)

    def rename_in_dim(self, old: str, new: str) -> LinearLayout:
        """The same layout with in dim ``old`` called ``new`` (order and bases unchanged).

        No Triton counterpart (Triton rebuilds the bases map under the new name).

        Raises:
            LayoutError: ``old`` is not an in dim, or ``new`` is empty or already an in dim.
        """
        self.in_bits(old)
        dim_name(new, "in-dim")
        if new != old and new in self.in_dim_names:
            raise LayoutError(f"cannot rename in dim {old!r} to {new!r}: {new!r} already exists")
        return LinearLayout.unchecked([(new if n == old else n, b) for n, b in self._in],
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
            raise LayoutError(f"cannot rename out dim {old!r} to {new!r}: {new!r} already exists")
        return LinearLayout.unchecked(self._in, [(new if n == old else n, b)
                                                  for n, b in self._out], self._cols)

    def squeeze_ins(self, dims: str | Iterable[str]) -> LinearLayout:
        """Remove size-1 in dims (Triton ``squeezeIns``).

        Raises:
            LayoutError: a name is not an in dim, or its size is not 1.
        """
        names = _names_arg(dims, "dims")
        for n in names:
            if self.in_bits(n):
                raise LayoutError(f"cannot squeeze in dim {n!r} of size {1 << self.in_bits(n)}; "
                                  "only size-1 dims can be removed")
        return LinearLayout.unchecked([d for d in self._in if d[0] not in names], self._out,
                                       self._cols)

    def squeeze_outs(self, dims: str | Iterable[str]) -> LinearLayout:
        """Remove size-1 out dims (Triton ``squeezeOuts``).

        Raises:
            LayoutError: a name is not an out dim, or its size is not 1.
        """
        names = _names_arg(dims, "dims")
        for n in names:
            if self.out_bits(n):
                raise LayoutError(f"cannot squeeze out dim {n!r} of size "
                                  f"{1 << self.out_bits(n)}; only size-1 dims can be removed")
        return LinearLayout.unchecked(self._in, [d for d in self._out if d[0] not in names],
                                       self._cols)

    def squeeze(self) -> LinearLayout:
        """Remove every size-1 in dim and out dim (the map is unchanged).

        Triton ``squeezeIns``/``squeezeOuts`` (LinearLayout.cpp) applied to all such dims.
        """
        return LinearLayout.unchecked([d for d in self._in if d[1]],
                                       [d for d in self._out if d[1]], self._cols)

    def concat_ins(self, other: LinearLayout) -> LinearLayout:
        """Both layouts side by side on the inputs: ``L(x, y) = self(x) ⊕ other(y)``.

        Triton ``concatIns`` (LinearLayout.cpp): the out dims must be identical (names, order
        and sizes) and the in dims disjoint; ``self``'s in dims come first. The inverse of
        :meth:`sublayout` on the in dims.

        Raises:
            LayoutError: the out dims differ or an in dim is in both (named).
        """
        _need_layout(other, "other")
        if other._out != self._out:
            raise LayoutError(f"concat_ins needs identical out dims, got {self.out_dims} and "
                              f"{other.out_dims}")
        shared = [n for n in other.in_dim_names if n in self.in_dim_names]
        if shared:
            raise LayoutError(f"concat_ins needs disjoint in dims; {shared[0]!r} is in both")
        return LinearLayout.unchecked(self._in + other._in, self._out, self._cols + other._cols)

    def concat_outs(self, other: LinearLayout) -> LinearLayout:
        """Both layouts stacked on the outputs: ``L(x) = (self(x), other(x))``.

        Triton ``concatOuts`` (LinearLayout.cpp): the in dims must be identical (names, order
        and sizes) and the out dims disjoint; ``self``'s out dims come first. The inverse of
        :meth:`sublayout` on the out dims.

        Raises:
            LayoutError: the in dims differ or an out dim is in both (named).
        """
        _need_layout(other, "other")
        if other._in != self._in:
            raise LayoutError(f"concat_outs needs identical in dims, got {self.in_dims} and "
                              f"{other.in_dims}")
        shared = [n for n in other.out_dim_names if n in self.out_dim_names]
        if shared:
            raise LayoutError(f"concat_outs needs disjoint out dims; {shared[0]!r} is in both")
        s = self.total_out_bits
        return LinearLayout.unchecked(self._in, self._out + other._out,
                                       [a | (b << s) for a, b in zip(self._cols, other._cols)])

    def sublayout(self, in_dims: str | Iterable[str], out_dims: str | Iterable[str]
                  ) -> LinearLayout:
        """Restrict to some in dims (others set to 0) and out dims (others dropped).

        Dim order follows this layout, not the arguments (Triton ``sublayout``). A bare string
        stands for a single dim name.

        Raises:
            LayoutError: a name is not a dim of this layout.
        """
        in_set = set(_names_arg(in_dims, "in_dims"))
        out_set = set(_names_arg(out_dims, "out_dims"))
        for n in in_set:
            self.in_bits(n)
        for n in out_set:
            self.out_bits(n)
        new_out = [(n, b) for n, b in self._out if n in out_set]
        shift, s = {}, 0
        for n, b in new_out:
            shift[n] = s
            s += b
        spec = self._out_spec(shift)
        by_dim = self._dim_map(self._cols)
        new_in = [(n, b) for n, b in self._in if n in in_set]
        return LinearLayout.unchecked(new_in, new_out,
                                       _remap([c for n, _ in new_in for c in by_dim[n]], spec))

    def sublayout_is_zero(self, in_dims: str | Iterable[str], out_dims: str | Iterable[str]
                          ) -> bool:
        """Whether :meth:`sublayout` ``(in_dims, out_dims)`` maps everything to 0 (Triton
        ``sublayoutIsZero``).

        Raises:
            LayoutError: a name is not a dim of this layout.
        """
        return not any(self.sublayout(in_dims, out_dims)._cols)

    def remove_zero_bases(self, in_dims: str | Iterable[str] | None = None) -> LinearLayout:
        """Drop the zero bases (broadcast inputs) of ``in_dims`` (default: every in dim).

        Triton ``removeZeroBasesAlongDim`` (LinearLayout.cpp), for several dims at once: the
        result enumerates each distinct output of those dims once.

        Raises:
            LayoutError: a name is not an in dim.
        """
        names = self.in_dim_names if in_dims is None else _names_arg(in_dims, "in_dims")
        for n in names:
            self.in_bits(n)
        by_dim = self._dim_map(self._cols)
        kept = {n: [c for c in by_dim[n] if c] if n in names else list(by_dim[n])
                for n, _ in self._in}
        return LinearLayout.unchecked([(n, len(kept[n])) for n, _ in self._in], self._out,
                                       [c for n, _ in self._in for c in kept[n]])

    # ------------------------------------------------------------------ matrices, galois
    @property
    def matrix(self):
        """The matrix as a numpy ``uint8`` array of shape (total out bits, total in bits).

        Entry ``[r, c]`` is bit ``r`` of flat column ``c`` (dim0's bits are the first rows).
        """
        import numpy as np

        nrows, ncols = self.total_out_bits, self.total_in_bits
        nbytes = (nrows + 7) // 8
        if not nrows or not ncols:
            return np.zeros((nrows, ncols), dtype=np.uint8)
        data = b"".join([c.to_bytes(nbytes, "little") for c in self._cols])
        per_column = np.frombuffer(data, dtype=np.uint8).reshape(ncols, nbytes)
        bits = np.unpackbits(per_column, axis=1, count=nrows, bitorder="little")
        return np.ascontiguousarray(bits.T)

    @classmethod
    def from_matrix(cls, matrix, in_dims: Mapping[str, int], out_dims: Mapping[str, int]):
        """Build from an (out bits × in bits) 0/1 matrix (numpy, galois or nested lists).

        The inverse of :attr:`matrix` (Triton's ``getMatrix`` layout of rows and columns).

        Args:
            matrix: shape ``(sum log2 out sizes, sum log2 in sizes)``; entry ``[r, c]`` is bit
                ``r`` of the flat image of input bit ``c``.
            in_dims, out_dims: ``{name: size}`` (powers of two), in order.

        Raises:
            LayoutError: the shape does not match the dims or an entry is not 0 or 1.
        """
        import numpy as np

        try:
            m = np.asarray(matrix)
        except Exception as exc:  # pragma: no cover - numpy accepts nearly anything
            raise LayoutError(f"cannot read a matrix from {type(matrix).__name__}: {exc}") from None
        need_mapping(in_dims, "in_dims")
        need_mapping(out_dims, "out_dims")
        ins = [(dim_name(n, "in-dim"), log2_exact(s, f"size of in dim {n!r}"))
               for n, s in in_dims.items()]
        outs = [(dim_name(n, "out-dim"), log2_exact(s, f"size of out dim {n!r}"))
                for n, s in out_dims.items()]
        nin = sum(b for _, b in ins)
        nout = sum(b for _, b in outs)
        if m.ndim == 1 and m.size == 0 and nout == 0:
            m = m.reshape(0, nin)  # a matrix with no rows, e.g. from ``[]`` (nested lists)
        if m.ndim != 2 or m.shape != (nout, nin):
            raise LayoutError(
                f"matrix has shape {m.shape} but the dims need ({nout} out bits, {nin} in bits)"
            )
        if m.dtype != np.bool_ and m.size:
            try:
                m8 = m.astype(np.uint8)
                ok = m8.max() <= 1 and (m.dtype == np.uint8 or (m8 == m).all())
            except (TypeError, ValueError):  # strings, objects that are not numbers
                ok = False
            if not ok:
                raise LayoutError("matrix entries must be 0 or 1 (elements of F2)")
            m = m8
        if nout and nin:  # each column's bits, packed little-endian into bytes
            per_column = np.packbits(np.ascontiguousarray(m.T, dtype=np.uint8), axis=1,
                                     bitorder="little")
            nbytes = per_column.shape[1]
            data = per_column.tobytes()
            cols = [int.from_bytes(data[i:i + nbytes], "little")
                    for i in range(0, nin * nbytes, nbytes)]
        else:
            cols = [0] * nin
        return cls.unchecked(ins, outs, cols)  # every column fits: nout rows

    def to_galois(self):
        """The matrix as a ``galois.GF(2)`` array of shape (total out bits, total in bits).

        Same layout of entries as :attr:`matrix` (Triton's ``getMatrix``, LinearLayout.cpp,
        packs the same matrix into ``uint64`` rows). galois is imported lazily.
        """
        import galois

        return galois.GF2(self.matrix)

    @classmethod
    def from_galois(cls, matrix, in_dims: Mapping[str, int], out_dims: Mapping[str, int]):
        """Inverse of :meth:`to_galois`: same as :meth:`from_matrix`.

        Raises:
            LayoutError: as :meth:`from_matrix`.
        """
        return cls.from_matrix(matrix, in_dims, out_dims)

    # ------------------------------------------------------------------ serialisation, dunders
    def to_dict(self) -> dict[str, Any]:
        """``{"bases": {...}, "out_dims": {...}}``: the JSON layout format of the CLI.

        The same data as Triton's ``#ttg.linear`` attribute plus the out-dim sizes, which
        that attribute leaves implicit.
        """
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

    @classmethod
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
            return cls._parse_repr(s)
        return cls._parse_str(s)

    @classmethod
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

    @classmethod
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
        """Triton's ``toString``: one line per basis (`` - register=1 -> (0, 1)``), then the
        out dims. One %-format of a per-shape template (cached) with every value."""
        if not self._cols:
            return _str_template(self._in, self._out)
        key = (self._in, self._out)
        template = _STR_TEMPLATES.get(key)
        if template is None:
            if len(_STR_TEMPLATES) >= 256:
                _STR_TEMPLATES.clear()
            template = _STR_TEMPLATES[key] = _str_template(self._in, self._out)
        cols = self._cols
        fields = (self._meta or self._info())[5]
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


_STR_TEMPLATES: dict[tuple, str] = {}  # (in dims, out dims) -> %-template of the str


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


# ---------------------------------------------------------------------------- module helpers

def _need_layout(x: Any, what: str) -> None:
    if type(x) is not LinearLayout and not isinstance(x, LinearLayout):
        raise LayoutError(f"{what} must be a LinearLayout, got {type(x).__name__}")


def _remap(cols: Iterable[int], spec: Sequence[tuple[int, int, int]]) -> list[int]:
    """Move bit fields of each column: ``spec`` lists (source shift, mask, target shift)."""
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


def _spread(cols: Sequence[int], fields: Sequence[tuple[int, int]]) -> list[int]:
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


def _scatter(x: int, positions: Sequence[int]) -> int:
    """Move bit ``j`` of ``x`` to bit ``positions[j]``."""
    out = 0
    while x:
        low = x & -x
        out |= 1 << positions[low.bit_length() - 1]
        x ^= low
    return out


def _supremum_dims(
    a: Sequence[tuple[str, int]], b: Sequence[tuple[str, int]],
    a_names: tuple[str, ...], b_names: tuple[str, ...], kind: str
) -> list[tuple[str, int]]:
    """Triton's ``supremum`` of two ordered dim lists (LayoutUtils.cpp), log2 sizes added.

    ``a_names``/``b_names`` are the names of ``a``/``b``. The dims common to both must be in
    the same relative order. Between consecutive common
    dims (and before the first, after the last) ``a``'s own dims come first, then ``b``'s:
    ``sup([a, b], [c, b]) == [a, c, b]``, ``sup([a, b], [a, c]) == [a, b, c]``.
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
            f"{bad!r} is out of order in {a_names} and {b_names}"
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
