"""TMA tiles: the shared-memory layout a TMA copy writes, and which TMA copy writes a layout.

* :func:`tma_tile_layout` — a ``rows × cols`` tile (``dim1`` contiguous) with a swizzle mode;
  :func:`tma_box_layout` — the same for any dims, dim order and box size;
* :func:`tma_layouts` — every layout one mode can write for a tile;
* :func:`match_tma_mode` / :func:`tma_matches` — the modes and boxes (:class:`TmaMatch`) with
  which TMA writes a given layout exactly.

Offsets are in **elements** of ``element_bits`` bits. The model is the one the CUDA C++
Programming Guide §10.29.3.2 "The Swizzle Modes" describes (boxes of at most the swizzle
width, rows of ``boxDim[0]`` elements, the swizzle applied to the absolute shared-memory
address) and the one Triton's ``NVMMASharedEncoding`` uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any

from .. import f2
from .._checks import as_int, log2_exact, need_mapping, shown
from ..errors import LayoutError
from ..hardware.kinds import memory_columns
from ..layout import LinearLayout
from .modes import LINE_BYTES, SwizzleMode, swizzle_mode

__all__ = [
    "MATCH_ORDER",
    "MAX_BOX_ELEMS",
    "TmaMatch",
    "check_element_bits",
    "match_tma_mode",
    "tma_box_layout",
    "tma_layouts",
    "tma_matches",
    "tma_offset_columns",
    "tma_tile_layout",
]

#: TMA's largest box extent per dimension, in elements (cuTensorMapEncodeTiled: boxDim <= 256).
MAX_BOX_ELEMS = 256


def check_element_bits(element_bits: Any) -> int:
    """``element_bits`` itself, validated: bits per element of a TMA tile or tcgen05 atom.

    Args:
        element_bits: a power of two from 1 to 128 (16 for fp16/bf16, 32 for fp32/tf32).

    Returns:
        The value as an int.

    Raises:
        LayoutError: a bool, not an int, or not a power of two in ``[1, 128]``.
    """
    eb = as_int(element_bits, "element_bits")
    if eb < 1 or eb > 128 or eb & (eb - 1):
        raise LayoutError(
            f"element_bits must be a power of two from 1 to 128 (e.g. 16 for fp16), got {eb}"
        )
    return eb


def _box_problem(m: SwizzleMode, eb: int, inner_elems: int, rows_total: int,
                 box_inner_bytes: int) -> str | None:
    """Why a TMA box of this shape cannot produce the tile, or None when it can."""
    if m is SwizzleMode.SWIZZLE_96B:
        return ("the 96B mode packs 96-byte rows (row r starts at byte 96·r), and r ↦ 96·r is "
                "not F2-linear (rows 1 and 2 start at 96 and 192, row 3 at 288 ≠ 96 ⊕ 192); "
                "no LinearLayout describes its tiles. Use ptx.swizzle96_cell(row, cell) or "
                "swizzle96_address(row, cell) for the exact map (its address map alone is "
                "swizzle_layout('96B'))")
    g = m.granularity_bytes
    if g is not None and eb > 8 * g:
        return (f"the {m.value} swizzle moves {g}-byte units, which would split "
                f"{eb}-bit elements")
    inner_bits = inner_elems * eb
    if inner_bits < 128:
        return (f"the inner (contiguous) dimension holds {inner_bits} bits, but TMA moves "
                "whole 16-byte chunks; it needs at least 16 bytes (128 bits)")
    inner_bytes = inner_bits // 8
    B = box_inner_bytes
    if B < 16 or B & (B - 1):
        return f"box_inner_bytes must be a power of two of at least 16, got {B}"
    if B > inner_bytes:
        return f"box_inner_bytes {B} exceeds the tile's inner dimension of {inner_bytes} bytes"
    if m.span_bytes is not None and B > m.span_bytes:
        return (f"the {m.value} swizzle allows a box inner dimension of at most "
                f"{m.span_bytes} bytes (CUDA guide Table 12), got {B}")
    if m.atomicity_bytes is not None and B < m.atomicity_bytes:
        return (f"the {m.value} swizzle keeps {m.atomicity_bytes}-byte units intact, so the box "
                f"inner dimension must be at least {m.atomicity_bytes} bytes, got {B}")
    if B * 8 // eb > MAX_BOX_ELEMS:
        return (f"a box inner dimension of {B} bytes is {B * 8 // eb} elements, more than TMA's "
                f"{MAX_BOX_ELEMS}")
    if B < inner_bytes and (rows_total * B) % LINE_BYTES:
        return (f"{inner_bytes // B} boxes of {rows_total}×{B} bytes would start at offsets "
                f"that are not 128-byte aligned (TMA's shared-memory alignment)")
    return None


def _default_box(m: SwizzleMode, eb: int, inner_elems: int) -> int:
    inner_bytes = max(16, inner_elems * eb // 8)
    cap = m.span_bytes if m.span_bytes is not None else MAX_BOX_ELEMS * eb // 8
    return max(16, min(inner_bytes, cap))


def _tma_offset(m: SwizzleMode, eb: int, sizes: Sequence[int], box_inner_bytes: int,
                coords: Sequence[int]) -> int:
    """Element offset of one element of a TMA-written tile (the direct hardware model).

    ``sizes``/``coords`` list the tile's dims innermost (contiguous) first. The inner dim is
    cut into boxes of ``box_inner_bytes``; box ``j`` is written after box ``j-1`` (each box
    holds every row); inside a box, rows of ``box_inner_bytes`` follow each other densely;
    then the hardware swizzles the byte address.
    """
    box_elems = box_inner_bytes * 8 // eb
    j, cc = divmod(coords[0], box_elems)
    r, stride = 0, 1
    for c, s in zip(coords[1:], sizes[1:]):
        r += c * stride
        stride *= s
    bit = ((j * stride + r) * box_inner_bytes) * 8 + cc * eb
    byte, sub = divmod(bit, 8)
    swizzled = byte  # apply_xor_pairs on the mode's own (valid) pairs, without re-checking them
    for t, src in m.xor_pairs:
        swizzled ^= ((byte >> src) & 1) << t
    sw_bit = swizzled * 8 + sub
    assert sw_bit % eb == 0
    return sw_bit // eb


def _tma_layout(m: SwizzleMode, eb: int, out_dims: Mapping[str, int], order: Sequence[str],
                box_inner_bytes: int) -> LinearLayout:
    """Memory layout (offset in elements -> tensor dims) of a TMA tile; dims ``order`` inner
    first. Parameters must already be valid (see _box_problem)."""
    cols = _tma_offsets(m, eb, out_dims, order, box_inner_bytes)
    inv = f2.inverse(cols) if cols else []
    total = 1
    for s in out_dims.values():
        total *= s
    return LinearLayout.from_columns(inv, {"offset": total}, dict(out_dims))


def _tma_offsets(m: SwizzleMode, eb: int, out_dims: Mapping[str, int], order: Sequence[str],
                 box_inner_bytes: int) -> list[int]:
    """The element offset of each tensor bit of a TMA tile (``out_dims``' order, dim0's bits
    first): the inverse of :func:`_tma_layout`'s columns."""
    # _tma_offset of each unit coordinate, inlined: the element's bit address before the
    # swizzle is a single power of two, and the swizzle XORs byte-address bits — on a bit
    # address 2^b (b >= 3: byte bit b - 3) it adds the targets of byte bit b - 3
    e = eb.bit_length() - 1
    spread: dict[int, int] = {}
    for t, src in m.xor_pairs:
        spread[src + 3] = spread.get(src + 3, 0) ^ 1 << (t + 3)
    get = spread.get
    sizes = [out_dims[d] for d in order]
    box_elems = box_inner_bytes * 8 // eb
    row_bits = box_inner_bytes * 8  # one row of a box, in bits
    strides = [1]  # the row stride (in rows) of each non-inner dim in box order
    for s in sizes[1:]:
        strides.append(strides[-1] * s)
    rows = strides[-1]
    cols = []
    for name, size in out_dims.items():
        if size == 1:  # a dim of size 1 has no bits (and no place in the box order)
            continue
        k = order.index(name)
        if k == 0:  # the contiguous dim: inside a box, then box after box
            for i in range(size.bit_length() - 1):
                c = 1 << i
                bit = c * eb if c < box_elems else (c // box_elems) * rows * row_bits
                cols.append((bit ^ get(bit.bit_length() - 1, 0)) >> e)
        else:  # a row dim: dense rows of a box
            bit = strides[k - 1] * row_bits
            for _ in range(size.bit_length() - 1):
                cols.append((bit ^ get(bit.bit_length() - 1, 0)) >> e)
                bit <<= 1
    return cols


def tma_box_layout(mode: Any, out_dims: Mapping[str, int], dim_order: Sequence[str],
                   element_bits: int, box_inner_bytes: int) -> LinearLayout:
    """The shared-memory layout TMA writes for a tile, with every choice TMA leaves open given.

    The general form of :func:`tma_tile_layout` (which has two dims, ``dim1`` contiguous):
    ``dim_order`` lists the tile's dims in TMA box order, innermost (contiguous, TMA's
    ``boxDim[0]``) first; the inner dim is cut into boxes of ``box_inner_bytes``, box ``j``
    written after box ``j − 1``; inside a box the rows (the other dims, the first fastest)
    follow each other densely, ``box_inner_bytes`` each; then the hardware applies
    :func:`~linlayout.ptx.swizzled_address` to the absolute address. The buffer is assumed
    aligned to the mode's repeat period.

    Args:
        mode: a swizzle mode other than 96B.
        out_dims: ``{name: size}`` of the tile's dims (sizes powers of two).
        dim_order: every name of ``out_dims`` once, innermost first.
        element_bits: bits per element (power of two, 1–128).
        box_inner_bytes: the box's inner dimension in bytes (a power of two, 16 up to the
            swizzle width, at least the atomicity, at most 256 elements).

    Returns:
        In dim ``offset`` (**elements**) -> out dims ``out_dims``.

    Raises:
        LayoutError: sizes that are not powers of two, a ``dim_order`` that is not an order of
            the dims, or anything :func:`tma_tile_layout` refuses (96B, a box TMA cannot issue,
            elements split by the swizzle).

    Source: CUDA C++ Programming Guide §10.29.3.2 (Table 12); PTX ISA §5.5.7.

    Example::

        >>> from linlayout.show.formula import offset_formula
        >>> mn_major = tma_box_layout("128B", {"mn": 64, "k": 8}, ["mn", "k"], 16, 128)
        >>> offset_formula(mn_major, {"mn": "mn", "k": "k"})   # fp16, mn contiguous
        'offset = 64·k + (mn ⊕ 8·k)'
    """
    m = swizzle_mode(mode)
    need_mapping(out_dims, "out_dims")
    sizes = {name: 1 << log2_exact(size, f"size of dim {shown(name)}")
             for name, size in out_dims.items()}
    if isinstance(dim_order, str):
        raise LayoutError(f"dim_order must be a list of dim names, got {shown(dim_order)}")
    order = list(dim_order)
    if len(order) != len(sizes) or set(order) != set(sizes):
        raise LayoutError(
            f"dim_order {order} must list every dim of {list(sizes)} once, innermost first"
        )
    eb = check_element_bits(element_bits)
    B = as_int(box_inner_bytes, "box_inner_bytes")
    rows_total = 1
    for name in order[1:]:
        rows_total *= sizes[name]
    problem = _box_problem(m, eb, sizes[order[0]], rows_total, B)
    if problem:
        raise LayoutError(problem)
    return _tma_layout(m, eb, sizes, order, B)


def tma_tile_layout(mode: Any, *, element_bits: int, rows: int, cols: int,
                    box_inner_bytes: int | None = None) -> LinearLayout:
    """The shared-memory layout TMA writes for a ``rows × cols`` tile with a swizzle mode.

    Model (the one Triton's ``NVMMASharedEncoding`` uses, checked against it in the tests):
    the contiguous dim (``dim1``, the box's ``boxDim[0]``) is cut into boxes of
    ``box_inner_bytes``; box ``j`` is written after box ``j − 1``; inside a box row ``r``
    occupies bytes ``[r·B, (r+1)·B)``; then the hardware applies :func:`swizzled_address` to
    the absolute address. The buffer is assumed aligned to the mode's repeat period (else see
    :func:`buffer_layout`). Any dims, dim order and box: :func:`tma_box_layout`.

    Args:
        mode: a swizzle mode other than 96B.
        element_bits: bits per element (power of two, 1–128).
        rows: size of ``dim0`` (a power of two).
        cols: size of ``dim1`` in elements (a power of two; at least 16 bytes).
        box_inner_bytes: the TMA box's inner dimension in bytes (a power of two, 16 up to the
            swizzle width, at least the atomicity). Default: ``min(row bytes, swizzle width)``
            (for none: the row, up to 256 elements).

    Returns:
        In dim ``offset`` (**elements**) -> out dims ``dim0`` (row) and ``dim1`` (column).

    Raises:
        LayoutError: 96B (its 96-byte rows are not F₂-linear: use :func:`swizzle96_cell`),
            sizes that are not powers of two, a box TMA cannot issue (inner dimension under 16
            bytes or above the swizzle width, under the atomicity, over 256 elements, boxes not
            128-byte aligned), or elements split by the swizzle.

    Source: CUDA C++ Programming Guide §10.29.3.2 (Table 12: swizzle width, inner dimension
    limit, repeat); PTX ISA §5.5.7.

    Example::

        >>> from linlayout.show.formula import offset_formula
        >>> L = tma_tile_layout("128B", element_bits=16, rows=8, cols=64)
        >>> offset_formula(L, {"dim0": "row", "dim1": "col"})
        'offset = 64·row + (col ⊕ 8·row)'
    """
    m = swizzle_mode(mode)
    eb = check_element_bits(element_bits)
    r = 1 << log2_exact(rows, "rows")
    c = 1 << log2_exact(cols, "cols")
    B = _default_box(m, eb, c) if box_inner_bytes is None else \
        as_int(box_inner_bytes, "box_inner_bytes")
    return tma_box_layout(m, {"dim0": r, "dim1": c}, ["dim1", "dim0"], eb, B)


@dataclass(frozen=True)
class TmaMatch:
    """A TMA swizzle mode (and box) that writes a given shared-memory layout exactly.

    Attributes:
        mode: the :class:`SwizzleMode`.
        box_inner_bytes: the box's inner dimension (``boxDim[0]·element size``) in bytes.
        dim_order: the tensor dims in TMA box order, innermost (contiguous) first.
        boxes: TMA copies along the inner dimension (``inner bytes / box_inner_bytes``); box
            ``j`` is written right after box ``j − 1``.
        element_bits: bits per element.

    Source: as :func:`match_tma_mode` (CUDA C++ Programming Guide §10.29.3.2, Table 12;
    PTX ISA §5.5.7).
    """

    mode: SwizzleMode
    box_inner_bytes: int
    dim_order: tuple[str, ...]
    boxes: int
    element_bits: int

    @property
    def inner_dim(self) -> str:
        """The contiguous tensor dim (TMA's ``boxDim[0]``)."""
        return self.dim_order[0]

    def describe(self) -> str:
        """e.g. ``"realisable as CU_TENSOR_MAP_SWIZZLE_128B (box inner dimension 128 bytes)"``."""
        name = self.mode.cu_tensor_map_swizzle_name or f"the {self.mode.value} swizzle"
        extra = f", {self.boxes} boxes along {self.inner_dim}" if self.boxes > 1 else ""
        return f"realisable as {name} (box inner dimension {self.box_inner_bytes} bytes{extra})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: mode name, driver name and value, box, dims, boxes."""
        return {
            "mode": self.mode.value,
            "cu_tensor_map_swizzle": self.mode.cu_tensor_map_swizzle_name,
            "cu_tensor_map_swizzle_value": self.mode.cu_tensor_map_swizzle,
            "box_inner_bytes": self.box_inner_bytes,
            "inner_dim": self.inner_dim,
            "dim_order": list(self.dim_order),
            "boxes": self.boxes,
            "element_bits": self.element_bits,
        }


#: Order in which :func:`match_tma_mode` tries modes: simplest first. 96B is absent (its tiles
#: are not linear; on power-of-two rows its address map is 32B's, so 32B is reported).
MATCH_ORDER = (
    SwizzleMode.NONE,
    SwizzleMode.SWIZZLE_32B,
    SwizzleMode.SWIZZLE_64B,
    SwizzleMode.SWIZZLE_128B,
    SwizzleMode.SWIZZLE_128B_ATOM_64B,
    SwizzleMode.SWIZZLE_128B_ATOM_32B,
    SwizzleMode.SWIZZLE_128B_ATOM_32B_FLIP_8B,
)


def tma_matches(memory_layout: LinearLayout, element_bits: int) -> list[TmaMatch]:
    """Every (mode, dim order, box) with which TMA writes ``memory_layout`` exactly.

    See :func:`match_tma_mode`; this returns all matches in preference order.

    Raises:
        LayoutError, NotInvertibleError: as :func:`match_tma_mode`.

    Source: as :func:`match_tma_mode` (CUDA C++ Programming Guide §10.29.3.2, Table 12;
    PTX ISA §5.5.7).
    """
    eb = check_element_bits(element_bits)
    cols, offset_bits = memory_columns(memory_layout)
    if len(cols) != offset_bits:
        raise LayoutError(
            "match_tma_mode works on one CTA's tile: the layout has a 'block' dim; pass "
            "memory.sublayout(['offset'], …) restricted to one CTA"
        )
    out_dims = memory_layout.out_dims
    if not cols:
        return []
    # memory_columns gives offset -> tensor in canonical in-dim order (vector, bank, segment
    # flatten into the offset); the forward map tensor -> element offset is its inverse.
    target = f2.inverse(list(cols))
    return [match for match, cand in _tma_candidates(MATCH_ORDER, out_dims, eb)
            if list(f2.inverse(list(cand.columns))) == target]


def _tma_choices(modes: Sequence[SwizzleMode], out_dims: Mapping[str, int], eb: int
                 ) -> list[tuple[TmaMatch, SwizzleMode, list[str], int]]:
    """Every (mode, dim order, box) TMA can issue for the tile: ``(match, mode, order, box
    inner bytes)``."""
    big = [d for d, s in out_dims.items() if s > 1]
    found: list[tuple[TmaMatch, SwizzleMode, list[str], int]] = []
    if not big:
        return found
    for m in modes:
        for order in permutations(big):
            inner = out_dims[order[0]]
            rows_total = 1
            for d in order[1:]:
                rows_total *= out_dims[d]
            inner_bytes = inner * eb // 8
            if inner * eb < 128:
                continue
            B = inner_bytes
            while B >= 16:
                if _box_problem(m, eb, inner, rows_total, B) is None:
                    found.append((TmaMatch(m, B, tuple(order), inner_bytes // B, eb), m,
                                  list(order), B))
                B //= 2
    return found


def _tma_candidates(modes: Sequence[SwizzleMode], out_dims: Mapping[str, int], eb: int
                    ) -> list[tuple[TmaMatch, LinearLayout]]:
    """Every (mode, dim order, box) TMA can issue for the tile, with the layout it writes."""
    return [(match, _tma_layout(m, eb, out_dims, order, B))
            for match, m, order, B in _tma_choices(modes, out_dims, eb)]


def tma_offset_columns(mode: Any, out_dims: Mapping[str, int], element_bits: int
                       ) -> list[tuple[TmaMatch, tuple[int, ...]]]:
    """:func:`tma_layouts` as the inverse maps only: for every layout TMA can write with one
    mode, the element offset of each tensor bit (``out_dims``' order, the first dim's bits
    lowest; dims of size 1 have none) — what a caller that counts many candidate layouts
    needs, without building a :class:`~linlayout.LinearLayout` for each.

    Raises:
        LayoutError: as :func:`tma_layouts`.

    Source: the TMA address rule of :func:`tma_box_layout` (boxes along the contiguous dim,
    dense rows, then the mode's byte-address swizzle), evaluated on unit coordinates.
    """
    m = swizzle_mode(mode)
    if m is SwizzleMode.SWIZZLE_96B:
        raise LayoutError("96B swizzling has 96-byte rows, which are not F2-linear; "
                          "use swizzle96_cell for its addresses")
    dims = dict(out_dims)
    eb = check_element_bits(element_bits)
    return [(match, tuple(_tma_offsets(mm, eb, dims, order, B)))
            for match, mm, order, B in _tma_choices([m], dims, eb)]


def tma_layouts(mode: Any, out_dims: Mapping[str, int], element_bits: int
                ) -> list[tuple[TmaMatch, LinearLayout]]:
    """Every shared-memory layout TMA can write for a tile of ``out_dims`` with one mode.

    One per choice of contiguous dim, order of the other dims and box inner size (the choice
    space :func:`match_tma_mode` searches), as ``(TmaMatch, layout)`` pairs; the layouts have
    in dim ``offset`` (elements). Empty when TMA cannot issue any box for the tile.

    Raises:
        LayoutError: an unknown mode, 96B (not F₂-linear), or bad ``element_bits``.
    """
    m = swizzle_mode(mode)
    if m is SwizzleMode.SWIZZLE_96B:
        raise LayoutError("96B swizzling has 96-byte rows, which are not F2-linear; "
                          "use swizzle96_cell for its addresses")
    return _tma_candidates([m], dict(out_dims), check_element_bits(element_bits))


def match_tma_mode(memory_layout: LinearLayout, element_bits: int) -> TmaMatch | None:
    """A TMA swizzle mode and box with which TMA writes ``memory_layout`` exactly, or None.

    "Realises" means: for every element of the tile, the byte offset where TMA puts it (with
    the buffer aligned to the mode's repeat period) equals the byte offset the layout gives it.
    TMA's tile is the one of :func:`tma_tile_layout`, generalised to any number of dims and
    any choice of contiguous dim: the contiguous dim is cut into boxes of ``B`` bytes (box
    ``j`` written after box ``j − 1``), rows of ``B`` bytes are dense inside a box (the other
    dims in box order, first fastest), and the address is swizzled. Tried: every mode except
    96B (simplest first: none, 32B, 64B, 128B, then the 128B sub-modes), every order of the
    dims, every power-of-two ``B`` that TMA can issue, widest first.

    Args:
        memory_layout: a shared-memory layout (in dims ``offset`` or ``vector, bank, segment``
            [+ ``reps``], offsets in **elements**), a bijection onto the tile; no ``block``
            dim.
        element_bits: bits per element (power of two, 1–128).

    Returns:
        The first :class:`TmaMatch` (``.describe()`` gives e.g. ``"realisable as
        CU_TENSOR_MAP_SWIZZLE_128B (box inner dimension 128 bytes)"``), or None when no TMA
        mode writes this layout (e.g. swizzles at a granularity finer than 16 bytes, or XOR
        patterns the hardware does not have).

    Raises:
        LayoutError: invalid in dims, a ``block`` dim, or bad ``element_bits``;
        NotInvertibleError: the layout is not a bijection.

    Source: CUDA C++ Programming Guide §10.29.3.2 (Table 12), PTX ISA §5.5.7.

    Example::

        >>> from linlayout.ptx import tcgen05_atom
        >>> atom = tcgen05_atom("128B", "K", 16)
        >>> match_tma_mode(atom, 16).describe()
        'realisable as CU_TENSOR_MAP_SWIZZLE_128B (box inner dimension 128 bytes)'
    """
    found = tma_matches(memory_layout, element_bits)
    return found[0] if found else None
