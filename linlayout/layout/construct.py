"""Constructors: from columns, 1-D building blocks, functions, random draws, matrices.

Method bodies of :class:`~linlayout.LinearLayout`: the ``cls``-first functions are installed
as class methods (``identity_1d``, ``from_function``, ``random`` …), :func:`matrix` as a
property. Triton's 1-D building blocks (``identity1D``, ``zeros1D``, ``strided1D`` in
``include/triton/Tools/LinearLayout.h``) plus the constructors Triton has no counterpart for.

Worked example: ``identity_1d(4, "lane", "dim0")`` has flat columns ``(1, 2)`` (lane bit
``i`` → ``dim0`` bit ``i``); ``strided_1d(4, 2, "lane", "dim0")`` has ``(2, 4)`` onto an
8-element ``dim0``; ``from_matrix([[0, 1], [1, 0]], {"r": 4}, {"o": 4})`` swaps the two bits
(columns ``(2, 1)``).
"""

from __future__ import annotations

import random
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .. import f2
from .._checks import dim_name, log2_exact, need_mapping, random_source, shown
from ..errors import LayoutError, NotLinearError
from .dims import dims_arg, prefix_sums, split_flat

if TYPE_CHECKING:
    from . import LinearLayout

__all__ = [
    "empty",
    "from_columns",
    "from_function",
    "from_galois",
    "from_matrix",
    "identity_1d",
    "matrix",
    "random_layout",
    "strided_1d",
    "to_galois",
    "zeros_1d",
]


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
        raise LayoutError(f"columns must be a sequence of ints, got {shown(columns)}")
    ins = [(dim_name(n, "in-dim"), log2_exact(s, f"size of in dim {shown(n)}"))
           for n, s in in_dims.items()]
    outs = [(dim_name(n, "out-dim"), log2_exact(s, f"size of out dim {shown(n)}"))
            for n, s in out_dims.items()]
    nin = sum(b for _, b in ins)
    nout = sum(b for _, b in outs)
    cols = []
    for c in columns:
        if isinstance(c, bool):
            raise LayoutError(f"column {shown(c)} is a bool; use ints")
        try:
            c = operator.index(c)
        except TypeError:
            raise LayoutError(f"column {shown(c)} is not an int") from None
        if c < 0 or c >> nout:
            raise LayoutError(f"column {c:#x} does not fit in the {nout} output bits")
        cols.append(c)
    if len(cols) != nin:
        raise LayoutError(
            f"got {len(cols)} columns but the in dims {dict(in_dims)} have {nin} bits"
        )
    return cls.unchecked(ins, outs, cols)


def empty(cls) -> LinearLayout:
    """The layout with no in dims and no out dims, the identity of ``*`` (Triton ``empty``)."""
    return cls.unchecked((), (), ())


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


def from_function(
    cls,
    fn: Callable[[dict[str, int]], Any],
    in_dims: Mapping[str, int] | Sequence[tuple[str, int]],
    out_dims: Mapping[str, int] | Sequence[tuple[str, int]],
    *,
    max_checks: int = 4096,
    rng: random.Random | int | None = 0,
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
        raise LayoutError(f"from_function needs a callable, got {shown(fn)}")
    ins = dims_arg(in_dims, "in_dims", "in-dim")
    outs = dims_arg(out_dims, "out_dims", "out-dim")
    if isinstance(max_checks, bool) or not isinstance(max_checks, int) or max_checks < 0:
        raise LayoutError(f"max_checks must be a non-negative int, got {shown(max_checks)}")
    sampler = random_source(rng)

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
        return _flat_output(outs, value, point(x))

    nin = sum(b for _, b in ins)
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
                f"{dict(zip(layout.out_dim_names, split_flat(layout.out_dims_log2, got)))} but the XOR of "
                "its values at the set bits is "
                f"{dict(zip(layout.out_dim_names, split_flat(layout.out_dims_log2, want)))}"
            )
    return layout


def _flat_output(outs: Sequence[tuple[str, int]], value: Any, where: Mapping[str, int]) -> int:
    """A function output (mapping, sequence or int) → flat out bits, validated."""
    names = [n for n, _ in outs]
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
            f"at {dict(where)} the function returned {shown(value)}; return {{out_dim: value}} "
            f"or one value per out dim {list(names)}"
        )
    if len(vals) != len(names):
        raise LayoutError(
            f"at {dict(where)} the function returned {len(vals)} values for the "
            f"{len(names)} out dims {list(names)}"
        )
    flat = 0
    for (n, b), s, v in zip(outs, prefix_sums([b for _, b in outs]), vals):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0 or v >> b:
            raise LayoutError(
                f"at {dict(where)} the function gives {shown(v)} for out dim {shown(n)}, which needs "
                f"an int in [0, {1 << b})"
            )
        flat |= v << s
    return flat


def random_layout(
    cls,
    in_dims: Mapping[str, int] | Sequence[tuple[str, int]],
    out_dims: Mapping[str, int] | Sequence[tuple[str, int]],
    *,
    kind: str = "general",
    broadcast: float = 0.0,
    surjective: bool = False,
    rng: random.Random | int | None = None,
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
    ins = dims_arg(in_dims, "in_dims", "in-dim")
    outs = dims_arg(out_dims, "out_dims", "out-dim")
    if not isinstance(surjective, bool):
        raise LayoutError(f"surjective must be a bool, got {shown(surjective)}")
    if kind not in ("general", "unit"):
        raise LayoutError(f"kind must be 'general' or 'unit', got {shown(kind)}")
    if isinstance(broadcast, bool) or not isinstance(broadcast, (int, float)) \
            or not 0.0 <= broadcast <= 1.0:
        raise LayoutError(f"broadcast must be a probability in [0, 1], got {shown(broadcast)}")
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
    ins = [(dim_name(n, "in-dim"), log2_exact(s, f"size of in dim {shown(n)}"))
           for n, s in in_dims.items()]
    outs = [(dim_name(n, "out-dim"), log2_exact(s, f"size of out dim {shown(n)}"))
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


def from_galois(cls, matrix, in_dims: Mapping[str, int], out_dims: Mapping[str, int]):
    """Inverse of :meth:`to_galois`: same as :meth:`from_matrix`.

    Raises:
        LayoutError: as :meth:`from_matrix`.
    """
    return cls.from_matrix(matrix, in_dims, out_dims)
