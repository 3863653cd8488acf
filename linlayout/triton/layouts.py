"""Triton's layout encodings as values, and their ``toLinearLayout`` conversions.

Each class below is one Triton attribute (``#ttg.blocked<…>``, ``#ttg.nvmma_shared<…>``, …)
with the same parameters. An encoding does not fix a shape; ``enc.to_linear_layout(shape)``
does, exactly as Triton's ``toLinearLayout(shape, attr)``: the result is bit for bit Triton's
layout (same in dims, same order of bases, same out dims ``dim0, dim1, …`` in that order),
checked against Triton 3.9 by the fixtures in ``tests/data/triton_layouts.json``.

* Distributed encodings map ``register, lane, warp, block`` to ``dim0 … dim{rank-1}``.
* Shared encodings map ``offset`` (element offset in one CTA's buffer) and ``block`` to
  ``dim0 …``. Pass the *allocation* shape (Triton's ``toLinearLayout(MemDescType)`` does).

``dim0`` is the first index of the shape (the row of a 2-D tensor). Triton lists out dims in
that order; keep it when comparing with Triton. For :func:`linlayout.bank_conflicts` the
order does not matter (out dims are matched by name).

The lower-case functions (:func:`blocked`, :func:`nvmma_shared`, …) build encodings with
keyword names taken from Gluon (``size_per_thread`` …); :mod:`linlayout.triton.parse` builds
the same objects from MLIR text.

Example::

    >>> from linlayout.triton import blocked
    >>> enc = blocked(size_per_thread=[1, 4], threads_per_warp=[8, 4],
    ...               warps_per_cta=[4, 1], order=[1, 0])
    >>> L = enc.to_linear_layout([32, 16])
    >>> L.bases["lane"][:2], L.out_dims
    ([[0, 4], [0, 8]], {'dim0': 32, 'dim1': 16})

Source: ``lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp`` (Triton 3.9); the function
each class mirrors is named in its docstring.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import LayoutError
from ..layout import LinearLayout
from . import _tll as T

__all__ = [
    "AmdMfmaEncoding",
    "AmdRotatingSharedEncoding",
    "AmdWmmaEncoding",
    "BlockedEncoding",
    "CGALayout",
    "DotOperandEncoding",
    "Encoding",
    "LinearEncoding",
    "NvidiaMmaEncoding",
    "NvmmaSharedEncoding",
    "SharedLinearEncoding",
    "SliceEncoding",
    "SwizzledSharedEncoding",
    "amd_mfma",
    "amd_rotating_shared",
    "amd_wmma",
    "blocked",
    "cga_layout_from_split",
    "dot_operand",
    "linear",
    "nvidia_mma",
    "nvmma_shared",
    "shared_linear",
    "slice",
    "swizzled_shared",
]


# ----------------------------------------------------------------------------- validation
def _int(v: Any, what: str) -> int:
    if isinstance(v, bool):
        raise LayoutError(f"{what} must be an int, got {v!r}")
    try:
        return operator.index(v)
    except TypeError:
        raise LayoutError(f"{what} must be an int, got {v!r}") from None


def _pow2(v: Any, what: str, allow_zero: bool = False) -> int:
    v = _int(v, what)
    if allow_zero and v == 0:
        return 0
    if v < 1 or v & (v - 1):
        raise LayoutError(f"{what} must be a positive power of two, got {v}")
    return v


def _ints(seq: Any, what: str, *, pow2: bool = False, length: int | None = None) -> tuple[int, ...]:
    if isinstance(seq, (str, bytes)) or not isinstance(seq, Sequence):
        raise LayoutError(f"{what} must be a list of ints, got {seq!r}")
    out = tuple(_pow2(x, f"{what}[{i}]") if pow2 else _int(x, f"{what}[{i}]")
                for i, x in enumerate(seq))
    if length is not None and len(out) != length:
        raise LayoutError(f"{what} has {len(out)} entries but the rank is {length}; "
                          f"give one per dimension")
    return out


def _order(order: Any, rank: int, what: str = "order") -> tuple[int, ...]:
    o = _ints(order, what, length=rank)
    if sorted(o) != list(range(rank)):
        raise LayoutError(f"{what} must be a permutation of 0..{rank - 1}, got {list(o)}")
    return o


def _bases(seq: Any, rank: int, what: str) -> tuple[tuple[int, ...], ...]:
    if isinstance(seq, (str, bytes)) or not isinstance(seq, Sequence):
        raise LayoutError(f"{what} must be a list of bases [[...], ...], got {seq!r}")
    out = []
    for i, b in enumerate(seq):
        vals = _ints(b, f"{what}[{i}]", length=rank)
        if any(v < 0 for v in vals):
            raise LayoutError(f"{what}[{i}] = {list(vals)} has a negative entry")
        out.append(vals)
    return tuple(out)


def _shape(shape: Any, rank: int | None, what: str = "shape") -> list[int]:
    s = list(_ints(shape, what, pow2=True))
    if rank is not None and len(s) != rank:
        raise LayoutError(f"{what} {s} has rank {len(s)} but the encoding has rank {rank}")
    return s


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


# ----------------------------------------------------------------------------- CGA layouts
@dataclass(frozen=True)
class CGALayout:
    """How the CTAs of a cluster (CGA) tile the tensor: ``block`` bits -> tile index per dim.

    ``bases[i]`` is the tile coordinate (one int per tensor dim, in units of one CTA's tile)
    of block ``2**i``; zero entries broadcast. Triton 3.9 prints it as ``CGALayout = [[…]]``;
    Triton ≤ 3.5 wrote ``CTAsPerCGA / CTASplitNum / CTAOrder``
    (:func:`cga_layout_from_split` converts).

    Source: ``CGAEncodingAttr`` (``include/triton/Dialect/TritonGPU/IR/CGAEncodingAttr.td``).
    """

    rank: int
    bases: tuple[tuple[int, ...], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "rank", _int(self.rank, "CGA rank"))
        object.__setattr__(self, "bases", _bases(self.bases, self.rank, "CGALayout"))
        for i, b in enumerate(self.bases):
            for v in b:
                if v & (v - 1):
                    raise LayoutError(
                        f"CGALayout[{i}] = {list(b)}: tile coordinates must be 0 or a power of "
                        "two"
                    )

    @property
    def is_trivial(self) -> bool:
        """One CTA (no block bits)."""
        return not self.bases

    def tl(self) -> T.TL:
        """``block`` -> ``dim0…`` with sizes inferred (Triton's ``getLinearLayout``)."""
        return T.make({"block": self.bases}, T.standard_out_dims(self.rank))

    @property
    def split_num(self) -> tuple[int, ...]:
        """CTA tiles per dim (Triton ``getCTASplitNum``)."""
        layout = self.tl()
        return tuple(layout.out_size(n) for n in layout.out_names)

    def shape_per_cta(self, shape: Sequence[int]) -> list[int]:
        """``shape`` divided by the tiles per dim (Triton ``getShapePerCTA``)."""
        return [max(1, s // k) for s, k in zip(shape, self.split_num)]

    def drop_dim(self, dim: int) -> CGALayout:
        """The CGA layout of a slice along ``dim``."""
        return CGALayout(self.rank - 1, tuple(b[:dim] + b[dim + 1:] for b in self.bases))

    def zero_dim(self, dim: int) -> CGALayout:
        """The CGA layout of a dot operand: the k dim broadcast."""
        return CGALayout(self.rank, tuple(b[:dim] + (0,) + b[dim + 1:] for b in self.bases))

    def text(self) -> str:
        """``", CGALayout = [[…]]"`` or ``""`` when trivial (Triton's printer omits it)."""
        return "" if self.is_trivial else f", CGALayout = {_fmt([list(b) for b in self.bases])}"


def cga_layout_from_split(ctas_per_cga: Sequence[int], cta_split_num: Sequence[int],
                          cta_order: Sequence[int]) -> CGALayout:
    """The CGA layout of Triton ≤ 3.5's ``CTAsPerCGA / CTASplitNum / CTAOrder`` triple.

    Along each dim (``cta_order[0]`` first) the block id first splits the dim into
    ``CTASplitNum`` tiles, then broadcasts over the remaining ``CTAsPerCGA / CTASplitNum``.

    Raises:
        LayoutError: lengths differ, a value is not a power of two, ``CTASplitNum`` does not
            divide ``CTAsPerCGA``, or ``cta_order`` is not a permutation.

    Source: ``makeCgaLayout`` / ``CGAEncodingAttr::fromSplitParams``
    (LinearLayoutConversions.cpp).
    """
    rank = len(cta_order)
    per = _ints(ctas_per_cga, "CTAsPerCGA", pow2=True, length=rank)
    split = _ints(cta_split_num, "CTASplitNum", pow2=True, length=rank)
    order = _order(cta_order, rank, "CTAOrder")
    names = T.standard_out_dims(rank)
    ret = T.empty()
    for d in order:
        if per[d] % split[d]:
            raise LayoutError(
                f"CTASplitNum[{d}] = {split[d]} must divide CTAsPerCGA[{d}] = {per[d]}"
            )
        ret = T.mul(ret, T.mul(T.identity1d(split[d], "block", names[d]),
                               T.zeros1d(per[d] // split[d], "block", names[d])))
    ret = T.transpose_outs(ret, names) if ret.outs else ret
    bases = ret.bases.get("block", [])
    return CGALayout(rank, tuple(tuple(b) for b in bases))


def _cga(cga: Any, rank: int) -> CGALayout:
    if cga is None:
        return CGALayout(rank)
    if isinstance(cga, CGALayout):
        if cga.rank != rank:
            raise LayoutError(f"CGALayout has rank {cga.rank} but the encoding has rank {rank}")
        return cga
    return CGALayout(rank, _bases(cga, rank, "cga_layout"))


def combine_cta_cga(cta: T.TL, cga: CGALayout, shape: Sequence[int],
                    drop_registers: bool = False) -> T.TL:
    """Extend a one-CTA layout to ``shape`` and add the ``block`` dim.

    Register bases that land outside ``shape`` are zeroed (broadcast), or dropped with
    ``drop_registers`` (what Triton 3.9 does for ``#ttg.blocked``).

    Source: ``combineCtaCgaWithShape`` (LinearLayoutConversions.cpp).
    """
    rank = len(shape)
    names = T.standard_out_dims(rank)
    labeled = dict(zip(names, shape))
    cga_tl = T.transpose_outs(T.ensure_not_larger(cga.tl(), labeled), cta.out_names)
    cta_shape = {n: max(1, labeled[n] // cga_tl.out_size(n)) for n in cta.out_names}
    cta = T.ensure_not_smaller(cta, cta_shape)
    cta = T.ensure_not_larger(cta, cta_shape, broadcast_registers=not drop_registers)
    return T.transpose_outs(T.mul(cta, cga_tl), names)


# ----------------------------------------------------------------------------- base class
class Encoding:
    """A Triton layout attribute. Subclasses are frozen dataclasses."""

    #: ``"distributed"`` or ``"shared"``.
    kind: str = ""
    #: The attribute mnemonic after ``#ttg.``.
    mnemonic: str = ""

    @property
    def rank(self) -> int:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def _tl(self, shape: list[int]) -> T.TL:  # pragma: no cover
        raise NotImplementedError

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """The layout for a tensor (or buffer) of this ``shape``.

        Args:
            shape: sizes per dim (powers of two), ``dim0`` first; for shared encodings the
                allocation shape.

        Returns:
            A :class:`LinearLayout` with in dims ``register, lane, warp, block`` (distributed)
            or ``offset, block`` (shared) and out dims ``dim0 … dim{rank-1}`` of these sizes.

        Raises:
            LayoutError: the shape's rank differs from the encoding's, a size is not a power of
                two, or the shape is too small for the encoding (Triton asserts there).
        """
        s = _shape(shape, self.rank)
        return self._tl(s).to_layout()

    def text(self) -> str:  # pragma: no cover
        """The attribute in Triton 3.9's printed syntax."""
        raise NotImplementedError


# ----------------------------------------------------------------------------- distributed
@dataclass(frozen=True)
class BlockedEncoding(Encoding):
    """``#ttg.blocked``: each thread owns ``size_per_thread`` contiguous elements, lanes and
    warps tile the rest in ``order`` (most minor first), CTAs by ``cga``.

    Source: ``BlockedEncodingAttr::toLinearLayout``.
    """

    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]
    cga: CGALayout | None = None
    kind = "distributed"
    mnemonic = "blocked"

    def __post_init__(self) -> None:
        rank = len(_ints(self.order, "order"))
        object.__setattr__(self, "size_per_thread",
                           _ints(self.size_per_thread, "sizePerThread", pow2=True, length=rank))
        object.__setattr__(self, "threads_per_warp",
                           _ints(self.threads_per_warp, "threadsPerWarp", pow2=True, length=rank))
        object.__setattr__(self, "warps_per_cta",
                           _ints(self.warps_per_cta, "warpsPerCTA", pow2=True, length=rank))
        object.__setattr__(self, "order", _order(self.order, rank))
        object.__setattr__(self, "cga", _cga(self.cga, rank))

    @property
    def rank(self) -> int:
        return len(self.order)

    def _tl(self, shape: list[int]) -> T.TL:
        cta = T.mul_all(
            T.identity_standard_nd("register", self.size_per_thread, self.order),
            T.identity_standard_nd("lane", self.threads_per_warp, self.order),
            T.identity_standard_nd("warp", self.warps_per_cta, self.order),
        )
        return combine_cta_cga(cta, self.cga, shape, drop_registers=True)

    def text(self) -> str:
        return (f"#ttg.blocked<{{sizePerThread = {_fmt(self.size_per_thread)}, "
                f"threadsPerWarp = {_fmt(self.threads_per_warp)}, "
                f"warpsPerCTA = {_fmt(self.warps_per_cta)}, order = {_fmt(self.order)}"
                f"{self.cga.text()}}}>")


@dataclass(frozen=True)
class SliceEncoding(Encoding):
    """``#ttg.slice``: the parent layout with out dim ``dim`` squeezed away.

    Source: ``SliceEncodingAttr::toLinearLayout`` (the parent at the shape with a 1 inserted
    at ``dim``; register bases that become zero are dropped).
    """

    dim: int
    parent: Encoding
    kind = "distributed"
    mnemonic = "slice"

    def __post_init__(self) -> None:
        if not isinstance(self.parent, Encoding) or self.parent.kind != "distributed":
            raise LayoutError(f"a slice's parent must be a distributed encoding, got "
                              f"{self.parent!r}")
        d = _int(self.dim, "slice dim")
        if not 0 <= d < self.parent.rank:
            raise LayoutError(f"slice dim {d} is out of range for a rank-{self.parent.rank} parent")
        object.__setattr__(self, "dim", d)

    @property
    def rank(self) -> int:
        return self.parent.rank - 1

    def _tl(self, shape: list[int]) -> T.TL:
        pshape = shape[:self.dim] + [1] + shape[self.dim:]
        parent = self.parent._tl(pshape)
        names = T.standard_out_dims(len(shape))
        bases = {}
        for n, imgs in parent.ins:
            new = [img[:self.dim] + img[self.dim + 1:] for img in imgs]
            if n == "register":
                new = [img for img in new if any(img)]
            bases[n] = new
        return T.make(bases, names)

    def text(self) -> str:
        return f"#ttg.slice<{{dim = {self.dim}, parent = {self.parent.text()}}}>"


@dataclass(frozen=True)
class NvidiaMmaEncoding(Encoding):
    """``#ttg.nvidia_mma``: the accumulator of ``mma.sync`` (v2: Ampere/Turing) or ``wgmma``
    (v3: Hopper). ``instr_shape`` is ``[M, N]`` (v2, rank 2; ``[1, M, N]`` batched) or
    ``[M, N, K]`` (v3).

    Source: ``NvidiaMmaEncodingAttr::toLinearLayout`` and ``nvidiaMmaTile``.
    """

    version_major: int
    version_minor: int
    warps_per_cta: tuple[int, ...]
    instr_shape: tuple[int, ...]
    cga: CGALayout | None = None
    kind = "distributed"
    mnemonic = "nvidia_mma"

    def __post_init__(self) -> None:
        v = _int(self.version_major, "versionMajor")
        if v not in (2, 3):
            raise LayoutError(f"versionMajor must be 2 (mma.sync) or 3 (wgmma), got {v}; "
                              "Volta's v1 is not supported by Triton 3.x")
        object.__setattr__(self, "version_major", v)
        object.__setattr__(self, "version_minor", _int(self.version_minor, "versionMinor"))
        w = _ints(self.warps_per_cta, "warpsPerCTA", pow2=True)
        object.__setattr__(self, "warps_per_cta", w)
        ins = _ints(self.instr_shape, "instrShape", pow2=True)
        object.__setattr__(self, "instr_shape", ins)
        if len(w) < 2:
            raise LayoutError("nvidia_mma needs rank >= 2 (warpsPerCTA has fewer entries)")
        if v == 3 and len(ins) != 3:
            raise LayoutError(f"an mma v3 instrShape is [M, N, K], got {list(ins)}")
        if v == 2 and len(ins) != len(w):
            raise LayoutError(f"an mma v2 instrShape has one entry per dim, got {list(ins)} for "
                              f"rank {len(w)}")
        object.__setattr__(self, "cga", _cga(self.cga, len(w)))

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    def _tl(self, shape: list[int]) -> T.TL:
        rank = self.rank
        if self.version_major == 2:
            tile = list(self.instr_shape)
        else:
            tile = [self.instr_shape[0], self.instr_shape[1]]
            if rank != 2:
                tile = [1] * (rank - 2) + tile
        order = T.matrix_order(rank, True)
        cta = _nvidia_mma_tile(tile, 2, order, T.matrix_order(rank, True))
        warp_order = T.matrix_order(rank, self.version_major != 3)
        cta = T.mul(cta, T.transpose_outs(
            T.identity_standard_nd("warp", self.warps_per_cta, warp_order), cta.out_names))
        return combine_cta_cga(cta, self.cga, shape)

    def text(self) -> str:
        return (f"#ttg.nvidia_mma<{{versionMajor = {self.version_major}, "
                f"versionMinor = {self.version_minor}, warpsPerCTA = {_fmt(self.warps_per_cta)}"
                f"{self.cga.text()}, instrShape = {_fmt(self.instr_shape)}}}>")


def _nvidia_mma_tile(tile_shape: Sequence[int], k_width: int, order: Sequence[int],
                     rep_order: Sequence[int]) -> T.TL:
    """Source: ``nvidiaMmaTile`` — kWidth registers and 4 lanes along the inner dim, 8 lanes
    along the outer dim, then register repeats (outer first)."""
    rank = len(rep_order)
    names = T.standard_out_dims(rank)
    cta = T.identity_standard_nd("register", [1] * rank, rep_order)
    inner, outer = order[0], order[1]
    m, n = tile_shape[outer], tile_shape[inner]
    if m % 8 or n % (k_width * 4):
        raise LayoutError(
            f"an mma tile of {m}x{n} cannot hold 8 rows and {k_width * 4} columns per warp tile"
        )
    return T.mul_all(
        cta,
        T.identity1d(k_width, "register", names[inner]),
        T.identity1d(4, "lane", names[inner]),
        T.identity1d(8, "lane", names[outer]),
        T.identity1d(m // 8, "register", names[outer]),
        T.identity1d(n // (k_width * 4), "register", names[inner]),
    )


def _broadcast_dot(shape: Sequence[int], order: Sequence[int], k_dim: int, in_dim: str) -> T.TL:
    """Source: ``broadcastedDotOperandLayout`` — identity along non-k dims, zeros along k."""
    names = T.standard_out_dims(len(shape))
    ret = T.empty()
    for d in order:
        if d == k_dim:
            ret = T.mul(ret, T.zeros1d(int(shape[d]), in_dim, names[d]))
        else:
            ret = T.mul(ret, T.identity1d(int(shape[d]), in_dim, names[d]))
    return ret


@dataclass(frozen=True)
class AmdMfmaEncoding(Encoding):
    """``#ttg.amd_mfma``: the accumulator of AMD CDNA MFMA (64-lane wavefronts).

    ``instr_shape`` is ``[M, N, K]`` with ``M×N`` in 32×32, 16×16, 64×4, 4×64.

    Source: ``AMDMfmaEncodingAttr::toLinearLayout``.
    """

    version: int
    warps_per_cta: tuple[int, ...]
    instr_shape: tuple[int, ...]
    is_transposed: bool
    tiles_per_warp: tuple[int, ...] | None = None
    element_bit_width: int = 32
    cga: CGALayout | None = None
    kind = "distributed"
    mnemonic = "amd_mfma"

    def __post_init__(self) -> None:
        object.__setattr__(self, "version", _int(self.version, "version"))
        w = _ints(self.warps_per_cta, "warpsPerCTA", pow2=True)
        if len(w) not in (2, 3):
            raise LayoutError(f"amd_mfma has rank 2 or 3, got warpsPerCTA {list(w)}")
        object.__setattr__(self, "warps_per_cta", w)
        ins = _ints(self.instr_shape, "instrShape", pow2=True)
        if len(ins) != 3 or [ins[0], ins[1]] not in ([32, 32], [16, 16], [64, 4], [4, 64]):
            raise LayoutError(f"amd_mfma instrShape must be [M, N, K] with MxN one of 32x32, "
                              f"16x16, 64x4, 4x64; got {list(ins)}")
        object.__setattr__(self, "instr_shape", ins)
        if not isinstance(self.is_transposed, bool):
            raise LayoutError(f"isTransposed must be a bool, got {self.is_transposed!r}")
        if ins[0] == 64 and ins[1] == 4 and not self.is_transposed:
            raise LayoutError("a 64x4 mfma layout must be transposed (isTransposed = true)")
        tpw = self.tiles_per_warp if self.tiles_per_warp is not None else [1] * len(w)
        object.__setattr__(self, "tiles_per_warp",
                           _ints(tpw, "tilesPerWarp", pow2=True, length=len(w)))
        e = _int(self.element_bit_width, "elementBitWidth")
        if e not in (32, 64):
            raise LayoutError(f"amd_mfma elementBitWidth must be 32 or 64, got {e}")
        object.__setattr__(self, "element_bit_width", e)
        object.__setattr__(self, "cga", _cga(self.cga, len(w)))

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    def _tl(self, shape: list[int]) -> T.TL:
        rank = self.rank
        names = T.standard_out_dims(rank)
        batch = rank == 3
        m_idx, n_idx = int(batch), 1 + int(batch)
        order = T.matrix_order(rank, True)
        dim_m, dim_n = names[order[1]], names[order[0]]
        m_dim, n_dim = self.instr_shape[0], self.instr_shape[1]
        height = 1 if self.element_bit_width == 64 else 4
        warp_size = 64
        tiles = (m_dim * n_dim) // (warp_size * height)
        if not self.is_transposed:
            regs = T.identity1d(height, "register", dim_m)
            lanes = T.mul(T.identity1d(n_dim, "lane", dim_n),
                          T.identity1d(warp_size // n_dim, "lane", dim_m))
            tile = T.mul(regs, lanes)
            if tiles > 0:
                tile = T.mul(tile, T.identity1d(tiles, "register", dim_m))
        else:
            regs = T.identity1d(height, "register", dim_n)
            lanes = T.mul(T.identity1d(m_dim, "lane", dim_m),
                          T.identity1d(warp_size // m_dim, "lane", dim_n))
            tile = T.mul(regs, lanes)
            if tiles > 0:
                tile = T.mul(tile, T.identity1d(tiles, "register", dim_n))
        tile = T.transpose_outs(tile, [dim_n, dim_m])
        tpw, wpc = self.tiles_per_warp, self.warps_per_cta
        tile = T.mul_all(
            tile,
            T.identity1d(tpw[n_idx], "register", dim_n),
            T.identity1d(wpc[n_idx], "warp", dim_n),
            T.identity1d(shape[n_idx] // (n_dim * wpc[n_idx] * tpw[n_idx]), "register", dim_n),
            T.identity1d(tpw[m_idx], "register", dim_m),
            T.identity1d(wpc[m_idx], "warp", dim_m),
        )
        if batch:
            tile = T.mul_all(tile, T.identity1d(1, "register", names[order[2]]),
                             T.identity1d(1, "lane", names[order[2]]),
                             T.identity1d(wpc[0], "warp", names[order[2]]))
        return combine_cta_cga(tile, self.cga, shape)

    def text(self) -> str:
        extra = self.cga.text()
        if any(t != 1 for t in self.tiles_per_warp):
            extra += f", tilesPerWarp = {_fmt(self.tiles_per_warp)}"
        if self.element_bit_width != 32:
            extra += f", elementBitWidth = {self.element_bit_width}"
        return (f"#ttg.amd_mfma<{{version = {self.version}, warpsPerCTA = "
                f"{_fmt(self.warps_per_cta)}, instrShape = {_fmt(self.instr_shape)}, "
                f"isTransposed = {_fmt(self.is_transposed)}{extra}}}>")


@dataclass(frozen=True)
class AmdWmmaEncoding(Encoding):
    """``#ttg.amd_wmma``: the accumulator of AMD RDNA/gfx1250 WMMA (32-lane waves).

    Triton 3.9 describes the warps by a linear ``ctaLayout`` (``register`` and ``warp`` bases
    in units of one WMMA tile) instead of ``warpsPerCTA``; :func:`amd_wmma` builds it from
    ``warps_per_cta``/``tiles_per_warp`` the way Triton's ``chooseWmmaCTALinearLayout`` does.

    Source: ``AMDWmmaEncodingAttr::toLinearLayout`` and ``getTileLayout``.
    """

    version: int
    is_transposed: bool
    warp_bases: tuple[tuple[int, ...], ...]
    reg_bases: tuple[tuple[int, ...], ...] = ()
    instr_shape: tuple[int, ...] = (16, 16, 16)
    cga: CGALayout | None = None
    rank_: int = 2
    kind = "distributed"
    mnemonic = "amd_wmma"

    def __post_init__(self) -> None:
        v = _int(self.version, "version")
        if v not in (1, 2, 3):
            raise LayoutError(f"amd_wmma version must be 1, 2 or 3, got {v}")
        object.__setattr__(self, "version", v)
        if not isinstance(self.is_transposed, bool):
            raise LayoutError(f"isTranspose must be a bool, got {self.is_transposed!r}")
        r = _int(self.rank_, "rank")
        if r not in (2, 3):
            raise LayoutError(f"amd_wmma has rank 2 or 3, got {r}")
        object.__setattr__(self, "rank_", r)
        object.__setattr__(self, "warp_bases", _bases(self.warp_bases, r, "ctaLayout warp"))
        object.__setattr__(self, "reg_bases", _bases(self.reg_bases, r, "ctaLayout register"))
        ins = _ints(self.instr_shape, "instrShape", pow2=True, length=3)
        if [ins[0], ins[1]] not in ([16, 16], [32, 16]):
            raise LayoutError(f"amd_wmma instrShape must be [16, 16, K] or [32, 16, K], got "
                              f"{list(ins)}")
        object.__setattr__(self, "instr_shape", ins)
        object.__setattr__(self, "cga", _cga(self.cga, r))

    @property
    def rank(self) -> int:
        return self.rank_

    def cta_tl(self) -> T.TL:
        return T.make({"register": self.reg_bases, "warp": self.warp_bases},
                      T.standard_out_dims(self.rank))

    def tile_tl(self) -> T.TL:
        rank = self.rank
        names = T.standard_out_dims(rank)
        thread_order = T.matrix_order(rank, not self.is_transposed)
        outs = [names[thread_order[0]], names[thread_order[1]]]
        if self.version == 1:
            tile = T.make({"register": [(0, 2), (0, 4), (0, 8)],
                           "lane": [(1, 0), (2, 0), (4, 0), (8, 0), (0, 1)]}, outs)
        elif self.instr_shape[0] == 32 and self.instr_shape[1] == 16:
            tile = T.make({"register": [(0, 1), (0, 2), (0, 4), (0, 16)],
                           "lane": [(1, 0), (2, 0), (4, 0), (8, 0), (0, 8)]}, outs)
        else:
            tile = T.make({"register": [(0, 1), (0, 2), (0, 4)],
                           "lane": [(1, 0), (2, 0), (4, 0), (8, 0), (0, 8)]}, outs)
        if rank == 3:
            tile = T.mul_all(tile, T.identity1d(1, "register", names[0]),
                             T.identity1d(1, "lane", names[0]))
        return T.transpose_outs(tile, names)

    def _tl(self, shape: list[int]) -> T.TL:
        names = T.standard_out_dims(self.rank)
        layout = T.mul(self.tile_tl(), self.cta_tl())
        rep = [names[d] for d in T.matrix_order(self.rank, True)]
        return combine_cta_cga(T.transpose_outs(layout, rep), self.cga, shape)

    def operand_non_k_dim(self, op_idx: int) -> int:
        m, n = self.instr_shape[0], self.instr_shape[1]
        if self.is_transposed and m != n:
            m, n = n, m
        return m if op_idx == 0 else n

    def text(self) -> str:
        cta = []
        if self.reg_bases:
            cta.append(f"register = {_fmt([list(b) for b in self.reg_bases])}")
        if self.warp_bases:
            cta.append(f"warp = {_fmt([list(b) for b in self.warp_bases])}")
        instr = ("" if self.instr_shape == (16, 16, 16)
                 else f", instrShape = {_fmt(self.instr_shape)}")
        return (f"#ttg.amd_wmma<{{version = {self.version}, isTranspose = "
                f"{_fmt(self.is_transposed)}, ctaLayout = {{{', '.join(cta)}}}"
                f"{self.cga.text()}{instr}}}>")


@dataclass(frozen=True)
class DotOperandEncoding(Encoding):
    """``#ttg.dot_op``: operand ``op_idx`` (0 = A, 1 = B) of a dot whose result has layout
    ``parent``; each thread holds ``k_width`` consecutive k elements.

    Source: ``DotOperandEncodingAttr::toLinearLayout`` → ``nvidiaDotToLinearLayout``,
    ``fmaDotToLinearLayout`` (blocked parent), ``mfmaDotToLinearLayout``,
    ``wmmaDotOperandToLinearLayout``.
    """

    op_idx: int
    parent: Encoding
    k_width: int = 0
    kind = "distributed"
    mnemonic = "dot_op"

    def __post_init__(self) -> None:
        i = _int(self.op_idx, "opIdx")
        if i not in (0, 1):
            raise LayoutError(f"opIdx must be 0 (A) or 1 (B), got {i}")
        object.__setattr__(self, "op_idx", i)
        if not isinstance(self.parent, (NvidiaMmaEncoding, BlockedEncoding, AmdMfmaEncoding,
                                        AmdWmmaEncoding)):
            raise LayoutError("a dot operand's parent must be nvidia_mma, blocked, amd_mfma or "
                              f"amd_wmma, got {type(self.parent).__name__}")
        k = _int(self.k_width, "kWidth")
        if k != 0:
            _pow2(k, "kWidth")
        if k == 0 and not isinstance(self.parent, BlockedEncoding):
            raise LayoutError("kWidth is required (a power of two) for an mma/mfma/wmma parent")
        if (isinstance(self.parent, NvidiaMmaEncoding) and self.parent.version_major == 3
                and i == 1):
            raise LayoutError("wgmma (mma v3) takes operand B from shared memory; a dot_op "
                              "with opIdx = 1 needs an mma v2 parent")
        object.__setattr__(self, "k_width", k)

    @property
    def rank(self) -> int:
        return self.parent.rank

    def _cga(self) -> CGALayout:
        k_dim = self.rank - 1 if self.op_idx == 0 else self.rank - 2
        return self.parent.cga.zero_dim(k_dim)

    def _tl(self, shape: list[int]) -> T.TL:
        p = self.parent
        if isinstance(p, NvidiaMmaEncoding):
            return self._nvidia(shape)
        if isinstance(p, BlockedEncoding):
            return self._fma(shape)
        if isinstance(p, AmdMfmaEncoding):
            return self._mfma(shape)
        return self._wmma(shape)

    def _nvidia(self, shape: list[int]) -> T.TL:
        p = self.parent
        assert isinstance(p, NvidiaMmaEncoding)
        rank = self.rank
        tile = [1] * rank
        instr_m = p.instr_shape[rank - 2] if p.version_major == 2 else p.instr_shape[0]
        k_mult = 4 if instr_m == 8 else 8
        if self.op_idx == 0:
            tile[rank - 2], tile[rank - 1] = instr_m, self.k_width * k_mult
        else:
            tile[rank - 2], tile[rank - 1] = self.k_width * k_mult, 8
        order = T.dot_operand_order(self.op_idx, rank, True)
        cta = _nvidia_mma_tile(tile, self.k_width, order, order)
        k_dim = rank - 1 if self.op_idx == 0 else rank - 2
        warp_order = T.matrix_order(rank, p.version_major != 3)
        cta = T.mul(cta, T.transpose_outs(
            _broadcast_dot(p.warps_per_cta, warp_order, k_dim, "warp"), cta.out_names))
        return combine_cta_cga(cta, self._cga(), shape)

    def _fma(self, shape: list[int]) -> T.TL:
        p = self.parent
        assert isinstance(p, BlockedEncoding)
        rank = self.rank
        names = T.standard_out_dims(rank)
        k_dim = rank - 1 if self.op_idx == 0 else rank - 2
        thread_size = list(p.size_per_thread)
        thread_size[k_dim] = shape[k_dim]
        rep = [names[d] for d in p.order]
        regs = T.identity_standard_nd("register", thread_size, p.order)
        lanes = _broadcast_dot(p.threads_per_warp, p.order, k_dim, "lane")
        warps = _broadcast_dot(p.warps_per_cta, p.order, k_dim, "warp")
        cta = T.mul_all(T.transpose_outs(regs, rep), T.transpose_outs(lanes, rep),
                        T.transpose_outs(warps, rep))
        return combine_cta_cga(cta, self._cga(), shape)

    def _mfma(self, shape: list[int]) -> T.TL:
        p = self.parent
        assert isinstance(p, AmdMfmaEncoding)
        rank = self.rank
        names = T.standard_out_dims(rank)
        batch = rank == 3
        non_k_idx = rank - 2 if self.op_idx == 0 else rank - 1
        k_idx = rank - 1 if self.op_idx == 0 else rank - 2
        m_dim, n_dim = p.instr_shape[0], p.instr_shape[1]
        non_k = m_dim if self.op_idx == 0 else n_dim
        warp_size = 64
        order = T.dot_operand_order(self.op_idx, rank, True)
        dim_k, dim_nk = names[order[0]], names[order[1]]
        tile = T.mul(T.identity1d(self.k_width, "register", dim_k),
                     T.mul(T.identity1d(non_k, "lane", dim_nk),
                           T.identity1d(warp_size // non_k, "lane", dim_k)))
        k_tile = warp_size // non_k * self.k_width
        if (m_dim, n_dim, self.op_idx) in ((64, 4, 0), (4, 64, 1)):
            tile = T.mul(tile, T.identity1d(16, "register", dim_k))
            k_tile *= 16
        if shape[k_idx] > k_tile:
            tile = T.mul(tile, T.identity1d(shape[k_idx] // k_tile, "register", dim_k))
        tile = T.mul(tile, T.identity1d(p.tiles_per_warp[non_k_idx], "register", dim_nk))
        tile = T.transpose_outs(tile, [dim_k, dim_nk])
        if batch:
            tile = T.mul_all(tile, T.identity1d(1, "register", names[order[2]]),
                             T.identity1d(1, "lane", names[order[2]]))
        warps = T.identity_standard_nd("warp", p.warps_per_cta, T.matrix_order(rank, True))
        cta = T.mul(tile, warps)
        # Unlike the other dot operands, Triton passes the *parent's* CGA layout here.
        return T.transpose_outs(combine_cta_cga(cta, p.cga, shape), names)

    def _wmma(self, shape: list[int]) -> T.TL:
        p = self.parent
        assert isinstance(p, AmdWmmaEncoding)
        rank = self.rank
        names = T.standard_out_dims(rank)
        order = T.dot_operand_order(self.op_idx, rank, True)
        dim_k, dim_nk = names[order[0]], names[order[1]]
        k_dim = p.instr_shape[2]
        non_k = p.operand_non_k_dim(self.op_idx)
        wmma_tile, warp_size = 16, 32
        depth = warp_size // wmma_tile
        tile = T.mul(T.identity1d(self.k_width, "register", dim_k),
                     T.identity1d(wmma_tile, "lane", dim_nk))
        tile = T.mul(tile, T.zeros1d(depth, "lane", dim_k) if p.version == 1
                     else T.identity1d(depth, "lane", dim_k))
        tile = T.mul(tile, T.identity1d(k_dim // (depth * self.k_width), "register", dim_k))
        if non_k // wmma_tile > 1:
            tile = T.mul(tile, T.identity1d(non_k // wmma_tile, "register", dim_nk))
        cta = p.cta_tl()
        k_pos = cta.out_names.index(dim_k)
        cta = T.make({n: [img[:k_pos] + (0,) + img[k_pos + 1:] for img in imgs]
                      for n, imgs in cta.ins}, names)
        cta = T.remove_zero_registers(cta)
        layout = T.transpose_outs(T.mul(tile, cta), [names[d] for d in order])
        return combine_cta_cga(layout, self._cga(), shape)

    def text(self) -> str:
        kw = f", kWidth = {self.k_width}" if self.k_width else ""
        return f"#ttg.dot_op<{{opIdx = {self.op_idx}, parent = {self.parent.text()}{kw}}}>"


@dataclass(frozen=True)
class LinearEncoding(Encoding):
    """``#ttg.linear``: an explicit layout with ``register, lane, warp, block`` bases.

    For a shape larger than the layout, register bases are added (as Triton's
    ``LinearEncodingAttr::toLinearLayout`` does); for a smaller one the largest bases
    broadcast.

    Source: ``LinearEncodingAttr`` (TritonGPUAttrDefs.td) and ``toLinearLayout``.
    """

    register: tuple[tuple[int, ...], ...]
    lane: tuple[tuple[int, ...], ...]
    warp: tuple[tuple[int, ...], ...]
    block: tuple[tuple[int, ...], ...] = ()
    rank_: int | None = None
    kind = "distributed"
    mnemonic = "linear"

    def __post_init__(self) -> None:
        r = self.rank_
        if r is None:
            for group in (self.register, self.lane, self.warp, self.block):
                if group:
                    r = len(group[0])
                    break
        if r is None:
            raise LayoutError("a linear encoding with no bases at all has no rank; pass rank_")
        object.__setattr__(self, "rank_", _int(r, "rank"))
        for name in ("register", "lane", "warp", "block"):
            object.__setattr__(self, name, _bases(getattr(self, name), r, name))

    @property
    def rank(self) -> int:
        return int(self.rank_)  # type: ignore[arg-type]

    def base_tl(self) -> T.TL:
        return T.make({"register": self.register, "lane": self.lane, "warp": self.warp,
                       "block": self.block}, T.standard_out_dims(self.rank))

    def order(self) -> list[int]:
        """Dims in the order register bases first move them, then the rest from the last dim
        down (Triton ``LinearEncodingAttr::getOrder`` / ``orderPerDim``)."""
        seen: list[int] = []
        for b in self.register:
            for i, v in enumerate(b):
                if v:
                    if i not in seen:
                        seen.append(i)
                    break
        return seen + [d for d in range(self.rank - 1, -1, -1) if d not in seen]

    def _tl(self, shape: list[int]) -> T.TL:
        names = T.standard_out_dims(self.rank)
        layout = T.transpose_outs(self.base_tl(), [names[d] for d in self.order()])
        want = dict(zip(names, shape))
        layout = T.ensure_not_smaller(layout, want)
        layout = T.ensure_not_larger(layout, want)
        return T.transpose_outs(layout, names)

    def text(self) -> str:
        def g(b):
            return _fmt([list(x) for x in b])
        return (f"#ttg.linear<{{register = {g(self.register)}, lane = {g(self.lane)}, "
                f"warp = {g(self.warp)}, block = {g(self.block)}}}>")


# ----------------------------------------------------------------------------- shared
@dataclass(frozen=True)
class _XorSharedEncoding(Encoding):
    """The (vec, perPhase, maxPhase, order) shared encodings: rows XOR their vec-groups with
    a phase of the row index (the subclasses say which phase)."""

    vec: int
    per_phase: int
    max_phase: int
    order: tuple[int, ...]
    cga: CGALayout | None = None
    kind = "shared"
    _rotating = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "vec", _pow2(self.vec, "vec"))
        object.__setattr__(self, "per_phase", _pow2(self.per_phase, "perPhase"))
        object.__setattr__(self, "max_phase", _pow2(self.max_phase, "maxPhase"))
        o = _ints(self.order, "order")
        object.__setattr__(self, "order", _order(o, len(o)))
        object.__setattr__(self, "cga", _cga(self.cga, len(o)))

    @property
    def rank(self) -> int:
        return len(self.order)

    def _tl(self, shape: list[int]) -> T.TL:
        return _swizzled_tl(shape, self.vec, self.per_phase, self.max_phase, self.order,
                            self.cga, rotating=self._rotating)

    def text(self) -> str:
        return (f"#ttg.{self.mnemonic}<{{vec = {self.vec}, perPhase = {self.per_phase}, "
                f"maxPhase = {self.max_phase}, order = {_fmt(self.order)}{self.cga.text()}}}>")


@dataclass(frozen=True)
class SwizzledSharedEncoding(_XorSharedEncoding):
    """``#ttg.swizzled_shared``: row ``r`` of the two most minor dims (``order[1]``,
    ``order[0]``) has its ``vec``-element groups XORed with ``(r / perPhase) % maxPhase``.

    Source: ``swizzledSharedToLinearLayout`` (LinearLayoutConversions.cpp).
    """

    mnemonic = "swizzled_shared"


def _swizzled_tl(shape: list[int], vec: int, per_phase: int, max_phase: int,
                 order: Sequence[int], cga: CGALayout, rotating: bool) -> T.TL:
    rank = len(shape)
    names = T.standard_out_dims(rank)
    per_cta = cga.shape_per_cta(shape)
    if rank == 1:
        return combine_cta_cga(T.identity1d(per_cta[0], "offset", "dim0"), cga, shape)
    col_dim, row_dim = order[0], order[1]
    # Triton's rotating layout uses the full shape here, the swizzled one the per-CTA shape.
    src = shape if rotating else per_cta
    ncols, nrows = src[col_dim], src[row_dim]
    bases = []
    col = 1
    while col < ncols:
        bases.append((0, col))
        col *= 2
    row = 1
    while row < nrows:
        phase = (row // per_phase) % max_phase
        if rotating:
            phase ^= row // max_phase // per_phase % max_phase
        bases.append((row, (vec * phase) % ncols))
        row *= 2
    cta = T.make({"offset": bases}, [names[row_dim], names[col_dim]])
    for d in order[2:]:
        cta = T.mul(cta, T.identity1d(src[d], "offset", names[d]))
    return combine_cta_cga(cta, cga, shape)


@dataclass(frozen=True)
class AmdRotatingSharedEncoding(_XorSharedEncoding):
    """``#ttg.amd_rotating_shared``: like swizzled_shared, but the XOR phase of row ``r`` is
    ``((r / perPhase) % maxPhase) ^ ((r / (perPhase·maxPhase)) % maxPhase)``.

    Source: ``sharedToLinearLayoutAMDRotating`` (LinearLayoutConversions.cpp).
    """

    mnemonic = "amd_rotating_shared"
    _rotating = True


@dataclass(frozen=True)
class NvmmaSharedEncoding(Encoding):
    """``#ttg.nvmma_shared``: the shared-memory layout of TMA and wgmma/tcgen05 operands.

    Rows of ``swizzling_byte_width`` bytes (0, 32, 64 or 128) are XOR-swizzled in 16-byte
    units over 8-row core matrices (CUDA's ``CU_TENSOR_MAP_SWIZZLE_32B/64B/128B``);
    ``transposed`` makes dim 0 the contiguous one; ``fp4_padded`` stores 4-bit pairs padded
    to 16 bytes per 8 bytes (tcgen05 ``mxf8f6f4``).

    Source: ``nvmmaSharedToLinearLayout``, ``getCoreMatrixLinearLayout`` and
    ``getTMABlockShape`` (TMAUtilities.cpp).
    """

    swizzling_byte_width: int
    transposed: bool
    element_bit_width: int
    fp4_padded: bool = False
    cga: CGALayout | None = None
    rank_: int = 2
    kind = "shared"
    mnemonic = "nvmma_shared"

    def __post_init__(self) -> None:
        s = _int(self.swizzling_byte_width, "swizzlingByteWidth")
        if s not in (0, 32, 64, 128):
            raise LayoutError(f"swizzlingByteWidth must be 0, 32, 64 or 128, got {s}")
        object.__setattr__(self, "swizzling_byte_width", s)
        e = _int(self.element_bit_width, "elementBitWidth")
        if e not in (8, 16, 32, 64):
            raise LayoutError(f"elementBitWidth must be 8, 16, 32 or 64, got {e}")
        object.__setattr__(self, "element_bit_width", e)
        for name in ("transposed", "fp4_padded"):
            if not isinstance(getattr(self, name), bool):
                raise LayoutError(f"{name} must be a bool, got {getattr(self, name)!r}")
        if self.fp4_padded and (s != 128 or e != 8):
            raise LayoutError("fp4Padded needs swizzlingByteWidth = 128 and elementBitWidth = 8")
        r = _int(self.rank_, "rank")
        if r < 1:
            raise LayoutError(f"rank must be at least 1, got {r}")
        object.__setattr__(self, "rank_", r)
        object.__setattr__(self, "cga", _cga(self.cga, r))

    @property
    def rank(self) -> int:
        return self.rank_

    def tma_block_shape(self, shape_per_cta: Sequence[int], packed: bool = True) -> list[int]:
        """Source: ``getTMABlockShape`` (TMAUtilities.cpp)."""
        block = list(shape_per_cta)
        contig = 0 if self.transposed else len(block) - 1
        if self.fp4_padded:
            block[contig] *= 2
        block = [min(b, 256) for b in block]
        if self.swizzling_byte_width:
            need = 8 * self.swizzling_byte_width // self.element_bit_width
            if block[contig] < need:
                raise LayoutError(
                    f"nvmma_shared with swizzlingByteWidth = {self.swizzling_byte_width} and "
                    f"{self.element_bit_width}-bit elements needs at least {need} elements "
                    f"along the contiguous dim {contig}, got {shape_per_cta[contig]}"
                )
            block[contig] = need
        if self.fp4_padded and packed:
            block[contig] //= 2
        return block

    def _core_matrix(self) -> T.TL:
        e, sw = self.element_bit_width, self.swizzling_byte_width
        vec = 128 // e
        per_phase, max_phase = {0: (1, 1), 32: (4, 2), 64: (2, 4), 128: (1, 8)}[sw]
        tile_cols = 8 * max(16, sw) // e
        bases = []
        col = 1
        while col < tile_cols:
            bases.append((0, col // 16 * 8 + col % 8 if self.fp4_padded else col))
            col *= 2
        row = 1
        while row < 8:
            c = vec * ((row // per_phase) % max_phase)
            bases.append((row, c // 16 * 8 + c % 8 if self.fp4_padded else c))
            row *= 2
        return T.make({"offset": bases}, ["dim0", "dim1"])

    def _tl(self, shape: list[int]) -> T.TL:
        rank = self.rank
        names = T.standard_out_dims(rank)
        per_cta = self.cga.shape_per_cta(shape)
        tma = self.tma_block_shape(per_cta)
        # Triton's ``transposeLinearLayout``: component j of every basis (in the layout's own
        # out-dim order) becomes old component rotate[j]. In the unswizzled branch the layout's
        # out dims run from the last dim down, so for rank > 2 this does not undo the rotation
        # of the TMA shape (offset bits end up broadcast); it is replayed as Triton 3.9 does.
        rotate = [rank - 1] + list(range(rank - 1))
        if self.swizzling_byte_width == 0:
            src = tma[1:] + tma[:1] if self.transposed else tma
            layout = T.identity1d(src[rank - 1], "offset", names[rank - 1])
            for i in range(rank - 2, -1, -1):
                layout = T.mul(layout, T.identity1d(src[i], "offset", names[i]))
            if self.transposed:
                layout = T.permute_components(layout, rotate)
            layout = T.ensure_not_smaller(layout, dict(zip(names, per_cta)))
            return combine_cta_cga(layout, self.cga, shape)
        if rank < 2:
            raise LayoutError("a swizzled nvmma_shared layout needs rank >= 2")
        collapsed = [1, tma[-1]]
        for t in tma[:-1]:
            collapsed[0] *= t
        if self.transposed:
            collapsed.reverse()
        tile = self._core_matrix()
        rows, cols = tile.out_size("dim0"), tile.out_size("dim1")
        pack = 2 if self.fp4_padded else 1
        if collapsed[1] * pack < cols or collapsed[0] < rows:
            raise LayoutError(
                f"nvmma_shared<{{swizzlingByteWidth = {self.swizzling_byte_width}}}> needs the "
                f"collapsed per-CTA shape to be at least [{rows}, {cols // pack}], got "
                f"{collapsed}"
            )
        layout = T.ensure_not_smaller(tile, {"dim0": collapsed[0], "dim1": collapsed[1]})
        target = list(tma)
        if self.transposed:
            target = target[1:] + target[:1]
        layout = T.reshape_standard(layout, target)
        if self.transposed:
            layout = T.permute_components(layout, rotate)
        layout = T.ensure_not_smaller(layout, dict(zip(names, per_cta)))
        return combine_cta_cga(layout, self.cga, shape)

    def text(self) -> str:
        extra = ", fp4Padded = true" if self.fp4_padded else ""
        extra += self.cga.text()
        if self.rank != 2 and self.cga.is_trivial:
            extra += f", rank = {self.rank}"
        return (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {self.swizzling_byte_width}, "
                f"transposed = {_fmt(self.transposed)}, elementBitWidth = "
                f"{self.element_bit_width}{extra}}}>")


@dataclass(frozen=True)
class SharedLinearEncoding(Encoding):
    """``#ttg.shared_linear``: an explicit shared layout with ``offset`` (and ``block``) bases.

    Triton asserts that the shape equals the layout's; so does this class.

    Source: ``SharedLinearEncodingAttr::toLinearLayout``.
    """

    offset: tuple[tuple[int, ...], ...]
    block: tuple[tuple[int, ...], ...] = ()
    alignment: int = 16
    kind = "shared"
    mnemonic = "shared_linear"

    def __post_init__(self) -> None:
        if not self.offset:
            raise LayoutError("shared_linear needs at least one offset basis")
        r = len(_ints(self.offset[0], "offset[0]"))
        object.__setattr__(self, "offset", _bases(self.offset, r, "offset"))
        object.__setattr__(self, "block", _bases(self.block, r, "block"))
        object.__setattr__(self, "alignment", _pow2(self.alignment, "alignment"))

    @property
    def rank(self) -> int:
        return len(self.offset[0])

    def base_tl(self) -> T.TL:
        return T.make({"offset": self.offset, "block": self.block},
                      T.standard_out_dims(self.rank))

    def _tl(self, shape: list[int]) -> T.TL:
        layout = self.base_tl()
        have = [layout.out_size(n) for n in layout.out_names]
        if have != list(shape):
            raise LayoutError(f"this shared_linear layout covers a shape of {have}, not "
                              f"{list(shape)}; Triton requires them to be equal")
        return layout

    def text(self) -> str:
        blk = f", block = {_fmt([list(b) for b in self.block])}" if self.block else ""
        return (f"#ttg.shared_linear<{{offset = {_fmt([list(b) for b in self.offset])}{blk}}}, "
                f"alignment = {self.alignment}>")


# ----------------------------------------------------------------------------- constructors
def blocked(size_per_thread: Sequence[int], threads_per_warp: Sequence[int],
            warps_per_cta: Sequence[int], order: Sequence[int], *,
            cga_layout: Sequence[Sequence[int]] | CGALayout | None = None) -> BlockedEncoding:
    """``#ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order[, CGALayout]}>``.

    Args:
        size_per_thread, threads_per_warp, warps_per_cta: per dim (powers of two), ``dim0``
            first.
        order: dims from most minor (fastest varying) to most major.
        cga_layout: CTA tile bases (Triton 3.9 ``CGALayout``), or a :class:`CGALayout`
            (use :func:`cga_layout_from_split` for ``CTAsPerCGA/CTASplitNum/CTAOrder``).

    Raises:
        LayoutError: lengths differ, a size is not a power of two, ``order`` is not a
            permutation.

    Source: ``BlockedEncodingAttr::toLinearLayout`` (LinearLayoutConversions.cpp).
    """
    return BlockedEncoding(size_per_thread, threads_per_warp, warps_per_cta, order,
                           _cga(cga_layout, len(order)) if cga_layout is not None else None)


def slice(dim: int, parent: Encoding) -> SliceEncoding:  # noqa: A001 - Triton's name
    """``#ttg.slice<{dim, parent}>``: ``parent`` with dim ``dim`` removed.

    Raises:
        LayoutError: ``parent`` is not distributed or ``dim`` is out of range.

    Source: ``SliceEncodingAttr::toLinearLayout``.
    """
    return SliceEncoding(dim, parent)


def nvidia_mma(version_major: int, warps_per_cta: Sequence[int], instr_shape: Sequence[int], *,
               version_minor: int = 0,
               cga_layout: Sequence[Sequence[int]] | CGALayout | None = None) -> NvidiaMmaEncoding:
    """``#ttg.nvidia_mma<{versionMajor, versionMinor, warpsPerCTA, instrShape}>``.

    Args:
        version_major: 2 (``mma.sync``, ``instr_shape = [16, 8]``) or 3 (``wgmma``,
            ``instr_shape = [16, N, K]``).
        warps_per_cta: per dim, ``dim0`` first.

    Raises:
        LayoutError: unsupported version or malformed shapes.

    Source: ``NvidiaMmaEncodingAttr::toLinearLayout``.
    """
    return NvidiaMmaEncoding(version_major, version_minor, warps_per_cta, instr_shape,
                             _cga(cga_layout, len(warps_per_cta))
                             if cga_layout is not None else None)


def dot_operand(op_idx: int, parent: Encoding, k_width: int = 0) -> DotOperandEncoding:
    """``#ttg.dot_op<{opIdx, parent, kWidth}>``.

    Args:
        op_idx: 0 for A (``M×K``), 1 for B (``K×N``).
        parent: the dot result's encoding (nvidia_mma, blocked, amd_mfma or amd_wmma).
        k_width: consecutive k elements per thread (required unless ``parent`` is blocked).

    Raises:
        LayoutError: invalid ``op_idx``/``k_width`` or parent.

    Source: ``DotOperandEncodingAttr::toLinearLayout`` (``nvidiaDotToLinearLayout``,
    ``fmaDotToLinearLayout``, ``mfmaDotToLinearLayout``, ``wmmaDotOperandToLinearLayout``).
    """
    return DotOperandEncoding(op_idx, parent, k_width)


def amd_mfma(version: int, warps_per_cta: Sequence[int], instr_shape: Sequence[int],
             is_transposed: bool, *, tiles_per_warp: Sequence[int] | None = None,
             element_bit_width: int = 32,
             cga_layout: Sequence[Sequence[int]] | CGALayout | None = None) -> AmdMfmaEncoding:
    """``#ttg.amd_mfma<{version, warpsPerCTA, instrShape, isTransposed[, tilesPerWarp,
    elementBitWidth]}>`` (64-lane wavefronts).

    Raises:
        LayoutError: unsupported instruction shape, element width or malformed lists.

    Source: ``AMDMfmaEncodingAttr::toLinearLayout``.
    """
    return AmdMfmaEncoding(version, warps_per_cta, instr_shape, is_transposed, tiles_per_warp,
                           element_bit_width, _cga(cga_layout, len(warps_per_cta))
                           if cga_layout is not None else None)


def amd_wmma(version: int, is_transposed: bool, *,
             warp_bases: Sequence[Sequence[int]] | None = None,
             reg_bases: Sequence[Sequence[int]] = (),
             warps_per_cta: Sequence[int] | None = None,
             tiles_per_warp: Sequence[int] | None = None,
             instr_shape: Sequence[int] = (16, 16, 16), rank: int = 2,
             cga_layout: Sequence[Sequence[int]] | CGALayout | None = None) -> AmdWmmaEncoding:
    """``#ttg.amd_wmma<{version, isTranspose, ctaLayout = {register, warp}[, instrShape]}>``.

    Give either ``warp_bases``/``reg_bases`` (Triton 3.9's ``ctaLayout``, in units of one
    WMMA tile) or ``warps_per_cta``/``tiles_per_warp`` (the pre-3.9 parameters; converted as
    Triton's ``chooseWmmaCTALinearLayout`` does).

    Raises:
        LayoutError: both or neither forms given, bad version, or malformed bases.

    Source: ``AMDWmmaEncodingAttr::toLinearLayout`` / ``getTileLayout``.
    """
    if (warp_bases is None) == (warps_per_cta is None):
        raise LayoutError("amd_wmma needs either warp_bases (Triton 3.9 ctaLayout) or "
                          "warps_per_cta (older syntax), not both or neither")
    if warps_per_cta is not None:
        w = _ints(warps_per_cta, "warpsPerCTA", pow2=True)
        tpw = _ints(tiles_per_warp if tiles_per_warp is not None else [1] * len(w),
                    "tilesPerWarp", pow2=True, length=len(w))
        names = T.standard_out_dims(len(w))
        ret = T.empty()
        for d in T.matrix_order(len(w), True):
            ret = T.mul_all(ret, T.identity1d(tpw[d], "register", names[d]),
                            T.identity1d(w[d], "warp", names[d]))
        ret = T.transpose_outs(ret, names)
        bases = ret.bases
        warp_bases = bases.get("warp", [])
        reg_bases = bases.get("register", [])
        rank = len(w)
    return AmdWmmaEncoding(version, is_transposed, warp_bases, reg_bases, instr_shape,
                           _cga(cga_layout, rank) if cga_layout is not None else None, rank)


def linear(register: Sequence[Sequence[int]], lane: Sequence[Sequence[int]],
           warp: Sequence[Sequence[int]], block: Sequence[Sequence[int]] = (), *,
           rank: int | None = None) -> LinearEncoding:
    """``#ttg.linear<{register, lane, warp, block}>``: explicit bases, one int per dim.

    Raises:
        LayoutError: bases of differing length or negative entries.

    Source: ``LinearEncodingAttr``.
    """
    return LinearEncoding(register, lane, warp, block, rank)


def swizzled_shared(vec: int, per_phase: int, max_phase: int, order: Sequence[int], *,
                    cga_layout: Sequence[Sequence[int]] | CGALayout | None = None
                    ) -> SwizzledSharedEncoding:
    """``#ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>``.

    Raises:
        LayoutError: a parameter is not a power of two or ``order`` is not a permutation.

    Source: ``swizzledSharedToLinearLayout``.
    """
    return SwizzledSharedEncoding(vec, per_phase, max_phase, order,
                                  _cga(cga_layout, len(order)) if cga_layout is not None else None)


def amd_rotating_shared(vec: int, per_phase: int, max_phase: int, order: Sequence[int], *,
                        cga_layout: Sequence[Sequence[int]] | CGALayout | None = None
                        ) -> AmdRotatingSharedEncoding:
    """``#ttg.amd_rotating_shared<{vec, perPhase, maxPhase, order}>``.

    Raises:
        LayoutError: as :func:`swizzled_shared`.

    Source: ``sharedToLinearLayoutAMDRotating``.
    """
    return AmdRotatingSharedEncoding(vec, per_phase, max_phase, order,
                                     _cga(cga_layout, len(order))
                                     if cga_layout is not None else None)


def nvmma_shared(swizzling_byte_width: int, element_bit_width: int, *, transposed: bool = False,
                 fp4_padded: bool = False, rank: int = 2,
                 cga_layout: Sequence[Sequence[int]] | CGALayout | None = None
                 ) -> NvmmaSharedEncoding:
    """``#ttg.nvmma_shared<{swizzlingByteWidth, transposed, elementBitWidth[, fp4Padded]}>``.

    Args:
        swizzling_byte_width: 0, 32, 64 or 128 (bytes per swizzled row).
        element_bit_width: 8, 16, 32 or 64.
        transposed: dim 0 is contiguous instead of the last dim.
        fp4_padded: 4-bit operands padded for tcgen05 (needs 128 and 8).

    Raises:
        LayoutError: unsupported values.

    Source: ``nvmmaSharedToLinearLayout``.
    """
    cga = _cga(cga_layout, rank) if cga_layout is not None else None
    return NvmmaSharedEncoding(swizzling_byte_width, transposed, element_bit_width, fp4_padded,
                               cga, rank)


def shared_linear(offset: Sequence[Sequence[int]], block: Sequence[Sequence[int]] = (), *,
                  alignment: int = 16) -> SharedLinearEncoding:
    """``#ttg.shared_linear<{offset, block}, alignment>``: explicit shared bases.

    Raises:
        LayoutError: no offset bases, or bases of differing length.

    Source: ``SharedLinearEncodingAttr``.
    """
    return SharedLinearEncoding(offset, block, alignment)
