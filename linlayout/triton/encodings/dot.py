"""``#ttg.dot_op``: the register layout of a dot's A or B operand, derived from the layout of
its result (``nvidia_mma``, ``blocked``, ``amd_mfma`` or ``amd_wmma``).

Each thread holds ``k_width`` consecutive elements along k; warps are broadcast along k (the
warps that share a row of A all need that row).

Two of Triton 3.9's conversions multiply layouts whose out dims are ordered differently
(``mfmaDotToLinearLayout`` for operand B, ``wmmaDotOperandToLinearLayout`` for operand A):
Triton's ``operator*`` then silently picks an order, which
:meth:`linlayout.LinearLayout.__mul__` refuses. The products here transpose the second factor
to the first's order beforehand, which gives Triton's result (same bases, same out-dim order).

Example (operand A of an ``mma.sync`` m16n8k16 with 16-bit elements)::

    >>> from linlayout.triton import dot_operand, nvidia_mma
    >>> A = dot_operand(0, nvidia_mma(2, [1, 1], [16, 8]), k_width=2)
    >>> A.to_linear_layout([16, 16]).bases["register"]
    [[0, 1], [8, 0], [0, 8]]

Source: ``DotOperandEncodingAttr::toLinearLayout`` → ``nvidiaDotToLinearLayout``,
``fmaDotToLinearLayout``, ``mfmaDotToLinearLayout``, ``wmmaDotOperandToLinearLayout`` and
``broadcastedDotOperandLayout`` (``LinearLayoutConversions.cpp``, Triton 3.9).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..._checks import as_int, dim_name, power_of_two
from ...errors import LayoutError
from ...layout import LinearLayout
from .base import CGALayout, Encoding, check_order, check_shape, combine_cta_cga
from .construct import (
    dot_operand_order,
    identity_1d,
    identity_standard_nd,
    matrix_order,
    standard_out_dims,
    zeros_1d,
)
from .distributed import BlockedEncoding
from .mma import AmdMfmaEncoding, AmdWmmaEncoding, NvidiaMmaEncoding, nvidia_mma_tile
from .registry import AttributeBody, register_encoding

__all__ = ["DotOperandEncoding", "broadcasted_dot_operand_layout", "dot_operand"]


def broadcasted_dot_operand_layout(shape: Sequence[int], order: Sequence[int], k_dim: int,
                                   in_dim: str) -> LinearLayout:
    """``in_dim`` over ``shape`` (lanes or warps per dim), identity along every dim but
    ``k_dim``, broadcast along ``k_dim``; out dims in ``order``.

    Raises:
        LayoutError: ``shape`` not a list of powers of two, ``order`` not a permutation of its
            dims, ``k_dim`` not an int or ``in_dim`` not a name.

    Source: ``broadcastedDotOperandLayout`` (LinearLayoutConversions.cpp).
    """
    shape = check_shape(shape, None)
    order = check_order(order, len(shape))
    k_dim = as_int(k_dim, "k_dim")
    dim_name(in_dim, "in_dim")
    names = standard_out_dims(len(shape))
    ret = LinearLayout.empty()
    for d in order:
        make = zeros_1d if d == k_dim else identity_1d
        ret = ret * make(int(shape[d]), in_dim, names[d])
    return ret


@register_encoding
@dataclass(frozen=True)
class DotOperandEncoding(Encoding):
    """``#ttg.dot_op``: operand ``op_idx`` (0 = A, ``M×K``; 1 = B, ``K×N``) of a dot whose
    result has layout ``parent``; each thread holds ``k_width`` consecutive k elements.

    Raises:
        LayoutError: ``op_idx`` not 0 or 1, an unsupported parent, ``k_width`` missing (0) or
            not a power of two for an mma/mfma/wmma parent, or operand B of a wgmma (v3)
            parent (wgmma reads B from shared memory).

    Source: ``DotOperandEncodingAttr::toLinearLayout`` → ``nvidiaDotToLinearLayout``,
    ``fmaDotToLinearLayout`` (blocked parent), ``mfmaDotToLinearLayout``,
    ``wmmaDotOperandToLinearLayout``.
    """

    op_idx: int
    parent: Encoding
    k_width: int = 0
    kind = "distributed"
    mnemonic = "dot_op"
    attribute_keys = frozenset({"opIdx", "parent", "kWidth"})

    @classmethod
    def from_attribute(cls, body: Mapping[str, Any],
                       at: str | Callable[[], str] = "the given attribute body"
                       ) -> DotOperandEncoding:
        """From the body of ``#ttg.dot_op<{opIdx, parent[, kWidth]}>`` (``parent`` an
        encoding; ``kWidth`` defaults to 0, which only a blocked parent accepts).

        Args:
            body: the parsed ``{key = value}`` dict.
            at: the attribute's position in the text (or a function returning it).

        Raises:
            LayoutError: an unknown or missing key, an unsupported parent, or invalid values.

        Source: ``DotOperandEncodingAttr`` (TritonGPUAttrDefs.td).
        """
        b = AttributeBody.of(cls, body, at)
        with b.invalid():
            return cls(b.need("opIdx"), b.parent(b.need("parent")), b.get("kWidth", 0))

    def __post_init__(self) -> None:
        i = as_int(self.op_idx, "opIdx")
        if i not in (0, 1):
            raise LayoutError(f"opIdx must be 0 (A) or 1 (B), got {i}")
        object.__setattr__(self, "op_idx", i)
        if not isinstance(self.parent, (NvidiaMmaEncoding, BlockedEncoding, AmdMfmaEncoding,
                                        AmdWmmaEncoding)):
            raise LayoutError("a dot operand's parent must be nvidia_mma, blocked, amd_mfma or "
                              f"amd_wmma, got {type(self.parent).__name__}")
        k = power_of_two(self.k_width, "kWidth", allow_zero=True)
        if k == 0 and not isinstance(self.parent, BlockedEncoding):
            raise LayoutError("kWidth is required (a power of two) for an mma/mfma/wmma parent")
        if (isinstance(self.parent, NvidiaMmaEncoding) and self.parent.version_major == 3
                and i == 1):
            raise LayoutError("wgmma (mma v3) takes operand B from shared memory; a dot_op "
                              "with opIdx = 1 needs an mma v2 parent")
        object.__setattr__(self, "k_width", k)

    @property
    def rank(self) -> int:
        """Number of tensor dims."""
        return self.parent.rank

    @property
    def k_dim(self) -> int:
        """The k dim of this operand: the last for A, the one before for B."""
        return self.rank - 1 if self.op_idx == 0 else self.rank - 2

    @property
    def cga(self) -> CGALayout:
        """The parent's CGA layout with the k dim broadcast (Triton ``getCGALayout``)."""
        return self.parent.cga.zero_dim(self.k_dim)  # type: ignore[attr-defined]

    def build_linear_layout(self, shape: list[int]) -> LinearLayout:
        p = self.parent
        if isinstance(p, NvidiaMmaEncoding):
            return self._nvidia(p, shape)
        if isinstance(p, BlockedEncoding):
            return self._fma(p, shape)
        if isinstance(p, AmdMfmaEncoding):
            return self._mfma(p, shape)
        assert isinstance(p, AmdWmmaEncoding)
        return self._wmma(p, shape)

    def _nvidia(self, p: NvidiaMmaEncoding, shape: list[int]) -> LinearLayout:
        """Source: ``nvidiaDotToLinearLayout``."""
        rank = self.rank
        tile = [1] * rank
        instr_m = p.instr_shape[rank - 2] if p.version_major == 2 else p.instr_shape[0]
        k_mult = 4 if instr_m == 8 else 8
        if self.op_idx == 0:
            tile[rank - 2], tile[rank - 1] = instr_m, self.k_width * k_mult
        else:
            tile[rank - 2], tile[rank - 1] = self.k_width * k_mult, 8
        order = dot_operand_order(self.op_idx, rank, True)
        cta = nvidia_mma_tile(tile, self.k_width, order, order)
        warp_order = matrix_order(rank, p.version_major != 3)
        warps = broadcasted_dot_operand_layout(p.warps_per_cta, warp_order, self.k_dim, "warp")
        cta = cta * warps.transpose_outs(cta.out_dim_names)
        return combine_cta_cga(cta, self.cga, shape)

    def _fma(self, p: BlockedEncoding, shape: list[int]) -> LinearLayout:
        """Source: ``fmaDotToLinearLayout``: one thread holds the whole k extent."""
        names = standard_out_dims(self.rank)
        k_dim = self.k_dim
        thread_size = list(p.size_per_thread)
        thread_size[k_dim] = shape[k_dim]
        rep = [names[d] for d in p.order]
        regs = identity_standard_nd("register", thread_size, p.order)
        lanes = broadcasted_dot_operand_layout(p.threads_per_warp, p.order, k_dim, "lane")
        warps = broadcasted_dot_operand_layout(p.warps_per_cta, p.order, k_dim, "warp")
        cta = regs.transpose_outs(rep) * lanes.transpose_outs(rep) * warps.transpose_outs(rep)
        return combine_cta_cga(cta, self.cga, shape)

    def _mfma(self, p: AmdMfmaEncoding, shape: list[int]) -> LinearLayout:
        """Source: ``mfmaDotToLinearLayout``."""
        rank = self.rank
        names = standard_out_dims(rank)
        non_k_idx = rank - 2 if self.op_idx == 0 else rank - 1
        k_idx = self.k_dim
        m_dim, n_dim = p.instr_shape[0], p.instr_shape[1]
        non_k = m_dim if self.op_idx == 0 else n_dim
        warp_size = 64
        order = dot_operand_order(self.op_idx, rank, True)
        dim_k, dim_nk = names[order[0]], names[order[1]]
        # kWidth registers along k; lanes first along the non-k dim, the rest along k.
        tile = (identity_1d(self.k_width, "register", dim_k)
                * (identity_1d(non_k, "lane", dim_nk)
                   * identity_1d(warp_size // non_k, "lane", dim_k)))
        k_tile = warp_size // non_k * self.k_width
        if (m_dim, n_dim, self.op_idx) in ((64, 4, 0), (4, 64, 1)):
            tile = tile * identity_1d(16, "register", dim_k)
            k_tile *= 16
        if shape[k_idx] > k_tile:
            tile = tile * identity_1d(shape[k_idx] // k_tile, "register", dim_k)
        tile = tile * identity_1d(p.tiles_per_warp[non_k_idx], "register", dim_nk)
        tile = tile.transpose_outs([dim_k, dim_nk])
        if rank == 3:
            tile = (tile * identity_1d(1, "register", names[order[2]])
                    * identity_1d(1, "lane", names[order[2]]))
        warps = identity_standard_nd("warp", p.warps_per_cta, matrix_order(rank, True))
        # Triton multiplies ``tile * warps`` with the out dims of operand B ordered [k, nonk]
        # and [nonk, k]; its operator* keeps the first factor's order, as this does.
        cta = tile * warps.transpose_outs(tile.out_dim_names)
        # Unlike the other dot operands, Triton passes the *parent's* CGA layout here.
        return combine_cta_cga(cta, p.cga, shape)

    def _wmma(self, p: AmdWmmaEncoding, shape: list[int]) -> LinearLayout:
        """Source: ``wmmaDotOperandToLinearLayout``."""
        rank = self.rank
        names = standard_out_dims(rank)
        order = dot_operand_order(self.op_idx, rank, True)
        dim_k, dim_nk = names[order[0]], names[order[1]]
        k_dim = p.instr_shape[2]
        non_k = p.operand_non_k_dim(self.op_idx)
        wmma_tile, warp_size = 16, 32
        depth = warp_size // wmma_tile
        # kWidth registers along k, 16 lanes along non-k, the other lanes along k
        # (version 1 duplicates them instead), then register repeats along k and non-k.
        tile = (identity_1d(self.k_width, "register", dim_k)
                * identity_1d(wmma_tile, "lane", dim_nk)
                * (zeros_1d(depth, "lane", dim_k) if p.version == 1
                   else identity_1d(depth, "lane", dim_k))
                * identity_1d(k_dim // (depth * self.k_width), "register", dim_k))
        if non_k // wmma_tile > 1:
            tile = tile * identity_1d(non_k // wmma_tile, "register", dim_nk)
        # The warps' tiling with the k dim projected away (Triton ``projectAwayOutDim``) and
        # the register bases that became zero removed (``actionRemoveBroadcastedRegs``).
        cta = p.cta_layout().resize_out_dim(dim_k, 1).remove_zero_bases("register")
        # Triton multiplies ``tile * cta`` (out dims [k, nonk] and dim0… — for operand A
        # ordered differently) and then transposes to ``order``; transposing ``cta`` first
        # gives the same layout with compatible factors.
        rep = [names[d] for d in order]
        layout = tile * cta.transpose_outs(rep)
        return combine_cta_cga(layout, self.cga, shape)

    def text(self) -> str:
        kw = f", kWidth = {self.k_width}" if self.k_width else ""
        return f"#ttg.dot_op<{{opIdx = {self.op_idx}, parent = {self.parent.text()}{kw}}}>"

    def gluon(self, shape: Sequence[int] | None = None, *, module: str = "gl") -> str:
        """``gl.DotOperandLayout(operand_index=…, parent=…, k_width=…)``, the parent written
        without a shape.

        Raises:
            LayoutError: the parent has no Gluon constructor here (the AMD ones).

        Source: Gluon ``DotOperandLayout`` (``_layouts.py``).
        """
        return (f"{module}.DotOperandLayout(operand_index={self.op_idx}, "
                f"parent={self.parent.gluon(None, module=module)}, k_width={self.k_width})")


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
