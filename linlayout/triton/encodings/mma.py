"""Accumulator encodings of the matrix instructions: ``#ttg.nvidia_mma`` (``mma.sync``,
``wgmma``), ``#ttg.amd_mfma`` (CDNA) and ``#ttg.amd_wmma`` (RDNA, gfx1250).

Each maps ``register, lane, warp, block`` to the ``dim0 … dim{rank-1}`` index of the dot
result: the instruction's fixed per-warp tile, repeated over warps, then over the shape.
Their operands are :mod:`linlayout.triton.encodings.dot`.

Example (the ``mma.sync`` m16n8 fp32 accumulator: lanes 0–3 hold row 0)::

    >>> from linlayout.triton import nvidia_mma
    >>> L = nvidia_mma(2, [1, 1], [16, 8]).to_linear_layout([16, 8])
    >>> L.bases["register"], L.bases["lane"][:2]
    ([[0, 1], [8, 0]], [[0, 2], [0, 4]])

Source: ``NvidiaMmaEncodingAttr::toLinearLayout`` / ``nvidiaMmaTile``,
``AMDMfmaEncodingAttr::toLinearLayout``, ``AMDWmmaEncodingAttr::toLinearLayout`` /
``getTileLayout`` / ``getCtaLayout`` (``LinearLayoutConversions.cpp``) and
``chooseWmmaCTALinearLayout`` (Triton 3.9).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..._checks import as_int, int_list, shown
from ...errors import LayoutError
from ...layout import LinearLayout
from .base import (
    CGALayout,
    Encoding,
    as_cga,
    check_bases,
    check_order,
    check_shape,
    combine_cta_cga,
    format_value,
    gluon_cga,
    gluon_list,
)
from .construct import (
    from_bases,
    identity_1d,
    identity_standard_nd,
    matrix_order,
    standard_out_dims,
)
from .registry import AttributeBody, register_encoding

__all__ = [
    "AmdMfmaEncoding",
    "AmdWmmaEncoding",
    "NvidiaMmaEncoding",
    "amd_mfma",
    "amd_wmma",
    "nvidia_mma",
    "nvidia_mma_tile",
]


# ----------------------------------------------------------------------------- NVIDIA
def nvidia_mma_tile(tile_shape: Sequence[int], k_width: int, order: Sequence[int],
                    rep_order: Sequence[int]) -> LinearLayout:
    """One warp's ``mma`` tile: ``k_width`` registers and 4 lanes along the inner dim
    ``order[0]``, 8 lanes along the outer dim ``order[1]``, then register repeats (outer
    first) up to ``tile_shape``. Out dims in ``rep_order``.

    Raises:
        LayoutError: the tile cannot hold 8 rows and ``4·k_width`` columns; ``rep_order`` or
            ``order`` not a permutation of the dims (at least two), ``tile_shape`` not one
            power of two per dim, or ``k_width`` not a positive int.

    Source: ``nvidiaMmaTile`` (LinearLayoutConversions.cpp).
    """
    rank = len(int_list(rep_order, "rep_order"))
    if rank < 2:
        raise LayoutError(f"an mma tile has at least two dims; rep_order has {rank}")
    rep_order = check_order(rep_order, rank, "rep_order")
    order = check_order(order, rank)
    tile_shape = check_shape(tile_shape, rank, "tile_shape")
    k_width = as_int(k_width, "k_width")
    if k_width < 1:
        raise LayoutError(f"k_width must be a positive int, got {k_width}")
    names = standard_out_dims(rank)
    inner, outer = order[0], order[1]
    m, n = tile_shape[outer], tile_shape[inner]
    if m % 8 or n % (k_width * 4):
        raise LayoutError(
            f"an mma tile of {m}x{n} cannot hold 8 rows and {k_width * 4} columns per warp tile"
        )
    # A size-1 identity over every dim, in rep_order: "empty, but with a rank and an order".
    return (identity_standard_nd("register", [1] * rank, rep_order)
            * identity_1d(k_width, "register", names[inner])
            * identity_1d(4, "lane", names[inner])
            * identity_1d(8, "lane", names[outer])
            * identity_1d(m // 8, "register", names[outer])
            * identity_1d(n // (k_width * 4), "register", names[inner]))


@register_encoding
@dataclass(frozen=True)
class NvidiaMmaEncoding(Encoding):
    """``#ttg.nvidia_mma``: the accumulator of ``mma.sync`` (v2: Ampere/Turing) or ``wgmma``
    (v3: Hopper). ``instr_shape`` is ``[M, N]`` (v2, rank 2; ``[1, M, N]`` batched) or
    ``[M, N, K]`` (v3). Warps tile the result row-major (v2) or column-major (v3).

    Raises:
        LayoutError: version not 2 or 3, rank below 2, or an ``instr_shape`` of the wrong
            length.

    Source: ``NvidiaMmaEncodingAttr::toLinearLayout`` and ``nvidiaMmaTile``.
    """

    version_major: int
    version_minor: int
    warps_per_cta: tuple[int, ...]
    instr_shape: tuple[int, ...]
    cga: CGALayout | None = None
    kind = "distributed"
    mnemonic = "nvidia_mma"
    mnemonic_aliases = ("mma",)
    attribute_keys = frozenset({"versionMajor", "versionMinor", "warpsPerCTA", "instrShape",
                                "CGALayout", "CTAsPerCGA", "CTASplitNum", "CTAOrder"})

    @classmethod
    def from_attribute(cls, body: Mapping[str, Any],
                       at: str | Callable[[], str] = "the given attribute body"
                       ) -> NvidiaMmaEncoding:
        """From the body of ``#ttg.nvidia_mma<{versionMajor, versionMinor, warpsPerCTA,
        instrShape[, CGALayout]}>`` (also ``#ttg.mma``). Triton ≤ 3.0 left a v2
        ``instrShape`` implicit: ``[16, 8]`` (``[1, 16, 8]`` batched); ``versionMinor``
        defaults to 0.

        Args:
            body: the parsed ``{key = value}`` dict.
            at: the attribute's position in the text (or a function returning it).

        Raises:
            LayoutError: an unknown or missing key, or invalid values.

        Source: ``NvidiaMmaEncodingAttr`` (TritonGPUAttrDefs.td).
        """
        b = AttributeBody.of(cls, body, at)
        with b.invalid():
            w = b.need_list("warpsPerCTA")
            instr = b.get("instrShape")
            if instr is None and b.get("versionMajor") == 2:
                instr = [1] * (len(w) - 2) + [16, 8]  # Triton ≤ 3.0 left it implicit
            elif instr is None:
                b.need("instrShape")
            return cls(b.need("versionMajor"), b.get("versionMinor", 0), w, instr,
                       b.cga(len(w)))

    def __post_init__(self) -> None:
        v = as_int(self.version_major, "versionMajor")
        if v not in (2, 3):
            raise LayoutError(f"versionMajor must be 2 (mma.sync) or 3 (wgmma), got {v}; "
                              "Volta's v1 is not supported by Triton 3.x")
        object.__setattr__(self, "version_major", v)
        object.__setattr__(self, "version_minor", as_int(self.version_minor, "versionMinor"))
        w = int_list(self.warps_per_cta, "warpsPerCTA", pow2=True)
        object.__setattr__(self, "warps_per_cta", w)
        ins = int_list(self.instr_shape, "instrShape", pow2=True)
        object.__setattr__(self, "instr_shape", ins)
        if len(w) < 2:
            raise LayoutError("nvidia_mma needs rank >= 2 (warpsPerCTA has fewer entries)")
        if v == 3 and len(ins) != 3:
            raise LayoutError(f"an mma v3 instrShape is [M, N, K], got {list(ins)}")
        if v == 2 and len(ins) != len(w):
            raise LayoutError(f"an mma v2 instrShape has one entry per dim, got {list(ins)} for "
                              f"rank {len(w)}")
        object.__setattr__(self, "cga", as_cga(self.cga, len(w)))

    @property
    def rank(self) -> int:
        """Number of tensor dims."""
        return len(self.warps_per_cta)

    def build_linear_layout(self, shape: list[int]) -> LinearLayout:
        rank = self.rank
        if self.version_major == 2:
            tile = list(self.instr_shape)
        else:
            tile = [1] * (rank - 2) + [self.instr_shape[0], self.instr_shape[1]]
        order = matrix_order(rank, True)
        cta = nvidia_mma_tile(tile, 2, order, order)
        warp_order = matrix_order(rank, self.version_major != 3)
        warps = identity_standard_nd("warp", self.warps_per_cta, warp_order)
        cta = cta * warps.transpose_outs(cta.out_dim_names)
        return combine_cta_cga(cta, self.cga, shape)

    def text(self) -> str:
        return (f"#ttg.nvidia_mma<{{versionMajor = {self.version_major}, "
                f"versionMinor = {self.version_minor}, "
                f"warpsPerCTA = {format_value(self.warps_per_cta)}"
                f"{self.cga.text()}, instrShape = {format_value(self.instr_shape)}}}>")

    def gluon(self, shape: Sequence[int] | None = None, *, module: str = "gl") -> str:
        """``gl.NVMMADistributedLayout(version=[major, minor], warps_per_cta=…,
        instr_shape=…[, cga_layout=…])``; ``shape`` is not needed.

        Source: Gluon ``NVMMADistributedLayout`` (``_layouts.py``).
        """
        return (f"{module}.NVMMADistributedLayout(version=[{self.version_major}, "
                f"{self.version_minor}], warps_per_cta={gluon_list(self.warps_per_cta)}, "
                f"instr_shape={gluon_list(self.instr_shape)}{gluon_cga(self.cga)})")


# ----------------------------------------------------------------------------- AMD MFMA
@register_encoding
@dataclass(frozen=True)
class AmdMfmaEncoding(Encoding):
    """``#ttg.amd_mfma``: the accumulator of AMD CDNA MFMA (64-lane wavefronts).

    ``instr_shape`` is ``[M, N, K]`` with ``M×N`` in 32×32, 16×16, 64×4, 4×64; each lane
    holds 4 consecutive rows (32-bit elements) or 1 (64-bit); ``is_transposed`` swaps the
    roles of M and N within the tile; ``tiles_per_warp`` repeats the tile per warp.

    Raises:
        LayoutError: rank not 2 or 3, an unsupported instruction shape or element width, or a
            64×4 layout that is not transposed.

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
    attribute_keys = frozenset({"version", "versionMajor", "versionMinor", "warpsPerCTA",
                                "instrShape", "isTransposed", "tilesPerWarp", "elementBitWidth",
                                "CGALayout", "CTAsPerCGA", "CTASplitNum", "CTAOrder"})

    @classmethod
    def from_attribute(cls, body: Mapping[str, Any],
                       at: str | Callable[[], str] = "the given attribute body"
                       ) -> AmdMfmaEncoding:
        """From the body of ``#ttg.amd_mfma<{version, warpsPerCTA, instrShape, isTransposed[,
        tilesPerWarp, elementBitWidth, CGALayout]}>``; pre-3.9 spellings too
        (``versionMajor``, a two-entry ``instrShape`` ``[M, N]``, whose K does not affect the
        layout and is set to 8).

        Raises:
            LayoutError: an unknown or missing key, or invalid values.

        Source: ``AMDMfmaEncodingAttr`` (TritonGPUAttrDefs.td).
        """
        b = AttributeBody.of(cls, body, at)
        with b.invalid():
            w = b.need_list("warpsPerCTA")
            version = b.get("version", b.get("versionMajor"))
            if version is None:
                b.need("version")
            instr = list(b.need_list("instrShape"))
            if len(instr) == 2:  # pre-3.3 [M, N]; K does not affect the layout
                instr.append(8)
            return cls(version, w, instr, b.need("isTransposed"), b.get("tilesPerWarp"),
                       b.get("elementBitWidth", 32), b.cga(len(w)))

    def __post_init__(self) -> None:
        object.__setattr__(self, "version", as_int(self.version, "version"))
        w = int_list(self.warps_per_cta, "warpsPerCTA", pow2=True)
        if len(w) not in (2, 3):
            raise LayoutError(f"amd_mfma has rank 2 or 3, got warpsPerCTA {list(w)}")
        object.__setattr__(self, "warps_per_cta", w)
        ins = int_list(self.instr_shape, "instrShape", pow2=True)
        if len(ins) != 3 or [ins[0], ins[1]] not in ([32, 32], [16, 16], [64, 4], [4, 64]):
            raise LayoutError(f"amd_mfma instrShape must be [M, N, K] with MxN one of 32x32, "
                              f"16x16, 64x4, 4x64; got {list(ins)}")
        object.__setattr__(self, "instr_shape", ins)
        if not isinstance(self.is_transposed, bool):
            raise LayoutError(f"isTransposed must be a bool, got {shown(self.is_transposed)}")
        if ins[0] == 64 and ins[1] == 4 and not self.is_transposed:
            raise LayoutError("a 64x4 mfma layout must be transposed (isTransposed = true)")
        tpw = self.tiles_per_warp if self.tiles_per_warp is not None else [1] * len(w)
        object.__setattr__(self, "tiles_per_warp",
                           int_list(tpw, "tilesPerWarp", pow2=True, length=len(w)))
        e = as_int(self.element_bit_width, "elementBitWidth")
        if e not in (32, 64):
            raise LayoutError(f"amd_mfma elementBitWidth must be 32 or 64, got {e}")
        object.__setattr__(self, "element_bit_width", e)
        object.__setattr__(self, "cga", as_cga(self.cga, len(w)))

    @property
    def rank(self) -> int:
        """Number of tensor dims."""
        return len(self.warps_per_cta)

    def build_linear_layout(self, shape: list[int]) -> LinearLayout:
        rank = self.rank
        names = standard_out_dims(rank)
        batch = rank == 3
        m_idx, n_idx = int(batch), 1 + int(batch)
        order = matrix_order(rank, True)
        dim_m, dim_n = names[order[1]], names[order[0]]
        m_dim, n_dim = self.instr_shape[0], self.instr_shape[1]
        height = 1 if self.element_bit_width == 64 else 4
        warp_size = 64
        tiles = (m_dim * n_dim) // (warp_size * height)
        # Registers run along M (N when transposed), lanes first along the other dim.
        along, across = (dim_n, dim_m) if self.is_transposed else (dim_m, dim_n)
        lanes_across = n_dim if not self.is_transposed else m_dim
        tile = (identity_1d(height, "register", along)
                * (identity_1d(lanes_across, "lane", across)
                   * identity_1d(warp_size // lanes_across, "lane", along)))
        if tiles > 0:
            tile = tile * identity_1d(tiles, "register", along)
        tile = tile.transpose_outs([dim_n, dim_m])
        tpw, wpc = self.tiles_per_warp, self.warps_per_cta
        tile = (tile
                * identity_1d(tpw[n_idx], "register", dim_n)
                * identity_1d(wpc[n_idx], "warp", dim_n)
                * identity_1d(shape[n_idx] // (n_dim * wpc[n_idx] * tpw[n_idx]), "register",
                              dim_n)
                * identity_1d(tpw[m_idx], "register", dim_m)
                * identity_1d(wpc[m_idx], "warp", dim_m))
        if batch:
            tile = (tile * identity_1d(1, "register", names[order[2]])
                    * identity_1d(1, "lane", names[order[2]])
                    * identity_1d(wpc[0], "warp", names[order[2]]))
        return combine_cta_cga(tile, self.cga, shape)

    def text(self) -> str:
        extra = self.cga.text()
        if any(t != 1 for t in self.tiles_per_warp):
            extra += f", tilesPerWarp = {format_value(self.tiles_per_warp)}"
        if self.element_bit_width != 32:
            extra += f", elementBitWidth = {self.element_bit_width}"
        return (f"#ttg.amd_mfma<{{version = {self.version}, warpsPerCTA = "
                f"{format_value(self.warps_per_cta)}, instrShape = "
                f"{format_value(self.instr_shape)}, isTransposed = "
                f"{format_value(self.is_transposed)}{extra}}}>")


# ----------------------------------------------------------------------------- AMD WMMA
@register_encoding
@dataclass(frozen=True)
class AmdWmmaEncoding(Encoding):
    """``#ttg.amd_wmma``: the accumulator of AMD RDNA/gfx1250 WMMA (32-lane waves).

    Triton 3.9 describes the warps by a linear ``ctaLayout`` (``register`` and ``warp`` bases
    in units of one WMMA tile) instead of ``warpsPerCTA``; :func:`amd_wmma` builds it from
    ``warps_per_cta``/``tiles_per_warp`` the way Triton's ``chooseWmmaCTALinearLayout`` does.

    Raises:
        LayoutError: version not 1–3, rank not 2 or 3, malformed bases, or an
            ``instr_shape`` other than ``[16, 16, K]`` / ``[32, 16, K]``.

    Source: ``AMDWmmaEncodingAttr::toLinearLayout``, ``getTileLayout`` and ``getCtaLayout``.
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
    attribute_keys = frozenset({"version", "isTranspose", "isTransposed", "ctaLayout",
                                "warpsPerCTA", "tilesPerWarp", "instrShape", "CGALayout",
                                "CTAsPerCGA", "CTASplitNum", "CTAOrder", "rank"})

    @classmethod
    def from_attribute(cls, body: Mapping[str, Any],
                       at: str | Callable[[], str] = "the given attribute body"
                       ) -> AmdWmmaEncoding:
        """From the body of ``#ttg.amd_wmma<{version, isTranspose, ctaLayout = {register,
        warp}[, instrShape, CGALayout, rank]}>`` (Triton 3.9) or the older ``{version,
        isTransposed, warpsPerCTA[, tilesPerWarp, instrShape]}`` (converted by
        :func:`amd_wmma`). Without ``rank`` the rank is the first basis's length (2 when there
        are no bases); ``instrShape`` defaults to ``[16, 16, 16]``.

        Raises:
            LayoutError: an unknown or missing key, a ``ctaLayout`` that is not
                ``{register = […], warp = […]}``, or invalid values.

        Source: ``AMDWmmaEncodingAttr`` (TritonGPUAttrDefs.td).
        """
        b = AttributeBody.of(cls, body, at)
        with b.invalid():
            transposed = b.get("isTranspose", b.get("isTransposed", False))
            instr = b.get("instrShape", [16, 16, 16])
            if "ctaLayout" in b:
                cta = b["ctaLayout"]
                if not isinstance(cta, dict):
                    raise LayoutError(f"malformed MLIR at {b.at}: ctaLayout must be "
                                      "{register = [...], warp = [...]}")
                bad = sorted(set(cta) - {"register", "warp"})
                if bad:
                    raise LayoutError(f"malformed MLIR at {b.at}: ctaLayout has "
                                      f"unknown dims {bad}; expected register and warp")
                wb, rb = (b.bases(cta.get(k, []), f"ctaLayout {k}") for k in ("warp", "register"))
                rank = b.get("rank")
                if rank is None:
                    first = (wb or rb)
                    rank = len(first[0]) if first else 2
                return cls(b.need("version"), transposed, wb, rb, instr, b.cga(rank), rank)
            w = b.need_list("warpsPerCTA")
            return amd_wmma(b.need("version"), transposed, warps_per_cta=w,
                            tiles_per_warp=b.get("tilesPerWarp"), instr_shape=instr,
                            cga_layout=b.cga(len(w)))

    def __post_init__(self) -> None:
        v = as_int(self.version, "version")
        if v not in (1, 2, 3):
            raise LayoutError(f"amd_wmma version must be 1, 2 or 3, got {v}")
        object.__setattr__(self, "version", v)
        if not isinstance(self.is_transposed, bool):
            raise LayoutError(f"isTranspose must be a bool, got {shown(self.is_transposed)}")
        r = as_int(self.rank_, "rank")
        if r not in (2, 3):
            raise LayoutError(f"amd_wmma has rank 2 or 3, got {r}")
        object.__setattr__(self, "rank_", r)
        object.__setattr__(self, "warp_bases", check_bases(self.warp_bases, r, "ctaLayout warp"))
        object.__setattr__(self, "reg_bases",
                           check_bases(self.reg_bases, r, "ctaLayout register"))
        ins = int_list(self.instr_shape, "instrShape", pow2=True, length=3)
        if [ins[0], ins[1]] not in ([16, 16], [32, 16]):
            raise LayoutError(f"amd_wmma instrShape must be [16, 16, K] or [32, 16, K], got "
                              f"{list(ins)}")
        object.__setattr__(self, "instr_shape", ins)
        object.__setattr__(self, "cga", as_cga(self.cga, r))

    @property
    def rank(self) -> int:
        """Number of tensor dims."""
        return self.rank_

    def cta_layout(self) -> LinearLayout:
        """``register, warp`` -> ``dim0…`` in units of one tile (Triton ``getCtaLayout``)."""
        return from_bases({"register": self.reg_bases, "warp": self.warp_bases},
                          standard_out_dims(self.rank))

    def tile_layout(self) -> LinearLayout:
        """One WMMA tile: ``register, lane`` -> ``dim0…`` (Triton ``getTileLayout``)."""
        rank = self.rank
        names = standard_out_dims(rank)
        thread_order = matrix_order(rank, not self.is_transposed)
        outs = [names[thread_order[0]], names[thread_order[1]]]
        if self.version == 1:
            tile = from_bases({"register": [(0, 2), (0, 4), (0, 8)],
                               "lane": [(1, 0), (2, 0), (4, 0), (8, 0), (0, 1)]}, outs)
        elif self.instr_shape[0] == 32 and self.instr_shape[1] == 16:
            # 32x16: two 16x16 tiles stacked, the second in extra registers
            tile = from_bases({"register": [(0, 1), (0, 2), (0, 4), (0, 16)],
                               "lane": [(1, 0), (2, 0), (4, 0), (8, 0), (0, 8)]}, outs)
        else:
            tile = from_bases({"register": [(0, 1), (0, 2), (0, 4)],
                               "lane": [(1, 0), (2, 0), (4, 0), (8, 0), (0, 8)]}, outs)
        if rank == 3:
            tile = (tile * identity_1d(1, "register", names[0])
                    * identity_1d(1, "lane", names[0]))
        return tile.transpose_outs(names)

    def build_linear_layout(self, shape: list[int]) -> LinearLayout:
        names = standard_out_dims(self.rank)
        layout = self.tile_layout() * self.cta_layout()
        # Triton keeps this transposition only for compatibility with older tests.
        rep = [names[d] for d in matrix_order(self.rank, True)]
        return combine_cta_cga(layout.transpose_outs(rep), self.cga, shape)

    def operand_non_k_dim(self, op_idx: int) -> int:
        """The non-k size of operand ``op_idx``'s tile (Triton ``getOperandNonKDim``)."""
        m, n = self.instr_shape[0], self.instr_shape[1]
        if self.is_transposed and m != n:
            m, n = n, m
        return m if op_idx == 0 else n

    def text(self) -> str:
        cta = []
        if self.reg_bases:
            cta.append(f"register = {format_value([list(b) for b in self.reg_bases])}")
        if self.warp_bases:
            cta.append(f"warp = {format_value([list(b) for b in self.warp_bases])}")
        instr = ("" if self.instr_shape == (16, 16, 16)
                 else f", instrShape = {format_value(self.instr_shape)}")
        return (f"#ttg.amd_wmma<{{version = {self.version}, isTranspose = "
                f"{format_value(self.is_transposed)}, ctaLayout = {{{', '.join(cta)}}}"
                f"{self.cga.text()}{instr}}}>")


# ----------------------------------------------------------------------------- constructors
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
                             as_cga(cga_layout, len(warps_per_cta))
                             if cga_layout is not None else None)


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
                           element_bit_width, as_cga(cga_layout, len(warps_per_cta))
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
    Triton's ``chooseWmmaCTALinearLayout`` does: per dim from the last, tiles then warps).

    Raises:
        LayoutError: both or neither forms given, bad version, or malformed bases.

    Source: ``AMDWmmaEncodingAttr::toLinearLayout`` / ``chooseWmmaCTALinearLayout``.
    """
    if (warp_bases is None) == (warps_per_cta is None):
        raise LayoutError("amd_wmma needs either warp_bases (Triton 3.9 ctaLayout) or "
                          "warps_per_cta (older syntax), not both or neither")
    if warps_per_cta is not None:
        w = int_list(warps_per_cta, "warpsPerCTA", pow2=True)
        tpw = int_list(tiles_per_warp if tiles_per_warp is not None else [1] * len(w),
                       "tilesPerWarp", pow2=True, length=len(w))
        names = standard_out_dims(len(w))
        ret = LinearLayout.empty()
        for d in matrix_order(len(w), True):
            ret = (ret * LinearLayout.identity_1d(tpw[d], "register", names[d])
                   * LinearLayout.identity_1d(w[d], "warp", names[d]))
        bases = ret.transpose_outs(names).bases
        warp_bases = bases.get("warp", [])
        reg_bases = bases.get("register", [])
        rank = len(w)
    return AmdWmmaEncoding(version, is_transposed, warp_bases, reg_bases, instr_shape,
                           as_cga(cga_layout, rank) if cga_layout is not None else None, rank)
