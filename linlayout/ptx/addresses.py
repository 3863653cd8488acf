"""Byte addresses under a swizzle mode: the address map, chunk tables, base offsets, 96B.

* :func:`swizzled_address`, :func:`swizzle_layout`, :func:`address_formula` — the map on
  absolute shared-memory byte addresses, as a function, an F₂ layout and a formula;
* :func:`chunk_table`, :func:`format_chunk_table` — PTX ISA §5.5.7's per-line cell tables;
* :func:`base_offset`, :func:`buffer_offset` — PTX's base offset of a buffer, and the exact map
  seen from a buffer whose base is not aligned to the repeat period (its F₂-affine form, where
  one exists, is :func:`linlayout.ptx.buffers.buffer_layout`);
* :func:`swizzle96_address`, :func:`swizzle96_cell` — the 96B mode's explicit evaluator (its
  96-byte rows are not F₂-linear).

Every offset here is in **bytes**.
"""

from __future__ import annotations

from typing import Any

from .._checks import as_int, log2_exact
from ..cute import apply_xor_pairs, xor_pairs_layout
from ..errors import LayoutError
from ..layout import LinearLayout
from .modes import LINE_BYTES, SwizzleMode, swizzle_mode

__all__ = [
    "DEFAULT_SIZE_BYTES",
    "MAX_TABLE_LINES",
    "address_formula",
    "base_offset",
    "buffer_offset",
    "chunk_table",
    "format_chunk_table",
    "swizzle96_address",
    "swizzle96_cell",
    "swizzle_layout",
    "swizzled_address",
]

#: Default extent of :func:`swizzle_layout` and :func:`buffer_layout`: eight 128-byte lines,
#: the longest repeat period (128B) and the 8-line tables of PTX ISA §5.5.7.
DEFAULT_SIZE_BYTES = 1024


def swizzled_address(mode: Any, address: int) -> int:
    """Where the hardware puts the byte whose unswizzled shared-memory address is ``address``.

    Args:
        mode: a swizzle mode (see :func:`swizzle_mode`).
        address: absolute shared-memory **byte** address (non-negative int). The pattern is
            anchored at absolute addresses (multiples of :attr:`SwizzleMode.repeat_bytes`); a
            buffer at a non-aligned base sees a shifted pattern, see :func:`buffer_layout`.

    Returns:
        The swizzled byte address. Every mode is an involution (applying it twice gives the
        address back), so this also answers "which byte is stored at ``address``".

    Raises:
        LayoutError: unknown mode or a negative address.

    Source: PTX ISA §5.5.7 "Swizzling Modes" (tables for none/32B/64B/96B/128B and the 32B
    and 64B atomicity sub-modes; the 8-byte flip "at every alternate shared memory line");
    CUDA C++ Programming Guide §10.29.3.2 "The Swizzle Modes" (Table 11).

    Example::

        >>> swizzled_address("128B", 128 + 16)   # line 1, chunk 1 -> chunk 0
        128
    """
    spec = swizzle_mode(mode)
    a = as_int(address, "address")
    if a < 0:
        raise LayoutError(f"address must be a non-negative byte address, got {a}")
    return apply_xor_pairs(spec.xor_pairs, a)


def swizzle_layout(mode: Any, size_bytes: int = DEFAULT_SIZE_BYTES) -> LinearLayout:
    """The mode's address map on byte offsets ``[0, size_bytes)`` as a LinearLayout.

    Args:
        mode: a swizzle mode (see :func:`swizzle_mode`). ``"96B"`` gives its address map,
            which equals 32B's (the 96-byte rows are what is not linear; see
            :func:`swizzle96_cell`).
        size_bytes: a power of two; default 1024, which covers every mode's repeat period.
            Smaller sizes give the restriction (still a bijection).

    Returns:
        In dim ``offset`` (bytes) -> out dim ``offset`` (bytes), each of size ``size_bytes``;
        ``layout.apply({"offset": a}) == {"offset": swizzled_address(mode, a)}``.

    Raises:
        LayoutError: unknown mode or a size that is not a power of two.

    Source: as :func:`swizzled_address`.

    Example::

        >>> swizzle_layout("32B", 256).columns
        (1, 2, 4, 8, 16, 32, 64, 144)
    """
    m = swizzle_mode(mode)
    # Written bits (<= 6) lie below source bits (>= 7), so the restriction to [0, size) is exact.
    n = log2_exact(size_bytes, "size_bytes")
    return xor_pairs_layout(m.xor_pairs, 1 << n)


def address_formula(mode: Any) -> str:
    """The address map as a one-line formula on the byte address ``a``.

    Returns:
        e.g. ``"swizzled(a) = a ⊕ 16·(⌊a/128⌋ & 7)"`` for 128B (``⊕`` is XOR, ``·``
        multiplies, ``⌊a/128⌋`` is integer division); ``"swizzled(a) = a"`` for none.

    Raises:
        LayoutError: unknown mode.

    Example::

        >>> address_formula("128B_atom_32B_flip_8B")
        'swizzled(a) = a ⊕ 32·(⌊a/128⌋ & 3) ⊕ 8·(⌊a/128⌋ & 1)'

    Source: as :func:`swizzled_address` (PTX ISA §5.5.7 "Swizzling Modes").
    """
    m = swizzle_mode(mode)
    runs: list[list[tuple[int, int]]] = []
    for t, s in sorted(m.xor_pairs, key=lambda p: (p[1] - p[0], p[1])):
        if runs and runs[-1][-1][1] + 1 == s and runs[-1][-1][0] + 1 == t:
            runs[-1].append((t, s))
        else:
            runs.append([(t, s)])
    runs.sort(key=lambda r: -r[0][0])
    terms = []
    for run in runs:
        t0, s0 = run[0]
        terms.append(f"{1 << t0}·(⌊a/{1 << s0}⌋ & {(1 << len(run)) - 1})")
    return "swizzled(a) = " + " ⊕ ".join(["a"] + terms)


#: Most lines :func:`chunk_table` lists (it enumerates them); every mode repeats within 8.
MAX_TABLE_LINES = 1 << 12


def chunk_table(mode: Any, lines: int = 8, cell_bytes: int = 16) -> list[list[int]]:
    """PTX ISA §5.5.7's tables: for each 128-byte line, the cell stored at each position.

    Args:
        mode: a swizzle mode.
        lines: how many 128-byte lines (from address 0, aligned to the repeat period).
        cell_bytes: cell size in bytes (a power of two dividing 128). Must not be larger than
            what the mode keeps intact (16 for the 16-byte modes, 8 for the 8-byte flip, 32/64
            for the atom modes), or cells would be split.

    Returns:
        ``table[line][pos]`` = index (within the line) of the cell whose data the hardware
        stores at position ``pos`` of ``line``. Because every mode is an involution this is
        also where cell ``pos`` goes. E.g. 128B: line 1 is ``[1, 0, 3, 2, 5, 4, 7, 6]``.

    Raises:
        LayoutError: unknown mode, bad ``lines`` (below 1 or over :data:`MAX_TABLE_LINES`:
            the table is listed line by line), or a ``cell_bytes`` the mode would split.

    Source: PTX ISA §5.5.7 "Swizzling Modes" tables (16-byte cells, numbered per line).

    Example::

        >>> chunk_table("64B", lines=4)[3]
        [3, 2, 1, 0, 7, 6, 5, 4]
    """
    m = swizzle_mode(mode)
    nl = as_int(lines, "lines")
    if nl < 1:
        raise LayoutError(f"lines must be at least 1, got {nl}")
    if nl > MAX_TABLE_LINES:
        raise LayoutError(
            f"lines = {nl} is over the limit of {MAX_TABLE_LINES}: the table repeats every "
            f"{m.repeat_bytes // LINE_BYTES} lines (the mode's repeat period), so ask for at "
            "most that many; swizzled_address() and address_formula() give any address")
    cb = as_int(cell_bytes, "cell_bytes")
    if cb < 1 or cb > LINE_BYTES or cb & (cb - 1):
        raise LayoutError(f"cell_bytes must be a power of two from 1 to 128, got {cb}")
    g = m.granularity_bytes
    if g is not None and cb > g:
        raise LayoutError(
            f"the {m.value} swizzle moves {g}-byte units, so {cb}-byte cells would not stay "
            f"intact; "
            f"use cell_bytes <= {g}"
        )
    table = []
    for line in range(nl):
        row = []
        for pos in range(LINE_BYTES // cb):
            src = apply_xor_pairs(m.xor_pairs, line * LINE_BYTES + pos * cb)  # involution: inverse = itself
            row.append((src % LINE_BYTES) // cb)
        table.append(row)
    return table


def format_chunk_table(mode: Any, lines: int = 8, cell_bytes: int | None = None) -> str:
    """:func:`chunk_table` as text, cells grouped by the mode's atomicity (as PTX ISA §5.5.7
    prints its 32- and 64-byte-atomicity tables, e.g. ``| 2 3 | 0 1 | 6 7 | 4 5 |``).

    Args:
        cell_bytes: default 16, or 8 for ``128B_atom_32B_flip_8B`` (so the flip shows).

    Returns:
        One line per 128-byte line, e.g. ``"line 1: 2 3 | 0 1 | 6 7 | 4 5"`` for
        ``128B_atom_32B``.

    Raises:
        LayoutError: as :func:`chunk_table`.
    """
    m = swizzle_mode(mode)
    if cell_bytes is None:
        cell_bytes = 8 if m is SwizzleMode.SWIZZLE_128B_ATOM_32B_FLIP_8B else 16
    table = chunk_table(m, lines, cell_bytes)
    group = max(1, (m.atomicity_bytes or 16) // cell_bytes)
    width = len(str(LINE_BYTES // cell_bytes - 1))
    out = []
    for i, row in enumerate(table):
        cells = [str(c).rjust(width) for c in row]
        groups = [" ".join(cells[j:j + group]) for j in range(0, len(cells), group)]
        out.append(f"line {i}: " + (" | " if group > 1 else " ").join(groups))
    return "\n".join(out)


# ---------------------------------------------------------------------------- base offsets
def base_offset(mode: Any, address: int) -> int:
    """The swizzle base offset of a buffer starting at ``address`` (PTX §5.5.7 formulas).

    Args:
        mode: a swizzle mode. The 128B sub-modes use the 128-byte formula.
        address: the buffer's absolute shared-memory byte address (``dstMem``).

    Returns:
        ``(address / 128) % 8`` for the 128B modes, ``% 4`` for 64B, ``% 2`` for 32B and 96B,
        0 for none. It is 0 exactly when the address is on the boundary where the pattern
        starts (for 128-byte-aligned addresses): 1024/512/256/256 bytes for 128B/64B/32B/96B.
        The CUDA guide (Table 11) adds it to the row index: ``smem[y][((y+offset)%8)^x]``.

    Raises:
        LayoutError: unknown mode or a negative address.

    Source: PTX ISA §5.5.7 (base offset table); CUDA C++ Programming Guide §10.29.3.2,
    Table 11 "Swizzle Pattern Pointer Offset Formula and Index Relation".

    Example::

        >>> base_offset("128B", 0x2280)
        5
    """
    m = swizzle_mode(mode)
    a = as_int(address, "address")
    if a < 0:
        raise LayoutError(f"address must be a non-negative byte address, got {a}")
    return (a // LINE_BYTES) % m.base_modulus


def buffer_offset(mode: Any, base: int, offset: int) -> int:
    """Buffer-relative swizzled offset: ``swizzled_address(mode, base + offset) - base``.

    The exact (possibly non-affine) map that :func:`buffer_layout` expresses when it can. It
    may be negative or past the buffer when ``base`` is not 128-byte aligned.

    Raises:
        LayoutError: unknown mode, negative ``base`` or ``offset``.

    Example::

        >>> buffer_offset("128B", 256, 0)      # base offset 2: row 0 uses phase 2
        32

    Source: PTX ISA §5.5.7 (the base offset ``(dstMem / 128) % m``); CUDA C++ Programming
    Guide §10.29.3.2, Table 11.
    """
    m = swizzle_mode(mode)
    b, o = as_int(base, "base"), as_int(offset, "offset")
    if b < 0 or o < 0:
        raise LayoutError(f"base and offset must be non-negative, got base={b}, offset={o}")
    return apply_xor_pairs(m.xor_pairs, b + o) - b


# ---------------------------------------------------------------------------- 96B
def _check_96_args(row: Any, cell: Any, base: Any) -> tuple[int, int, int]:
    r, c, b = as_int(row, "row"), as_int(cell, "cell"), as_int(base, "base")
    if r < 0:
        raise LayoutError(f"row must be non-negative, got {r}")
    if not 0 <= c < 6:
        raise LayoutError(f"a 96-byte row holds 16-byte cells 0..5, got cell {c}")
    if b < 0 or b % LINE_BYTES:
        raise LayoutError(
            f"base must be a non-negative multiple of 128 bytes (TMA's shared-memory "
            f"alignment), got {b}"
        )
    return r, c, b


def swizzle96_address(row: int, cell: int, base: int = 0) -> int:
    """96B mode: buffer-relative byte address of 16-byte ``cell`` of 96-byte ``row``.

    A 96B box packs rows of 96 bytes (six 16-byte cells) one after another; the hardware then
    applies 32B's address map (PTX §5.5.7: the 96B table equals the 32B table, the pattern
    starts on 256-byte boundaries, base offset ``(dstMem/128) % 2``)::

        address(row, cell) = swizzled_address("96B", base + 96·row + 16·cell) − base

    This is not F₂-linear in ``(row, cell)``: ``row ↦ 96·row`` has carries (rows 1 and 2 start
    at 96 and 192, row 3 at 288 ≠ 96 ⊕ 192 = 160). Hence this explicit evaluator.

    Args:
        row: row index (non-negative).
        cell: 16-byte cell within the row, 0..5.
        base: the buffer's absolute byte address, a multiple of 128 (default 0).

    Returns:
        The byte address relative to ``base``.

    Raises:
        LayoutError: a cell outside 0..5, a negative row, or a base that is not a non-negative
            multiple of 128.

    Example::

        >>> [swizzle96_address(1, c) for c in range(6)]   # row 1 spans bytes 96..191
        [96, 112, 144, 128, 176, 160]
    """
    r, c, b = _check_96_args(row, cell, base)
    return apply_xor_pairs(SwizzleMode.SWIZZLE_96B.xor_pairs, b + 96 * r + 16 * c) - b


def swizzle96_cell(row: int, cell: int, base: int = 0) -> tuple[int, int]:
    """96B mode on (row, 16-byte cell) coordinates: where cell ``(row, cell)`` is stored.

    The swizzle only flips address bit 4 (swaps the two 16-byte halves of an aligned 32-byte
    pair), and 96 is a multiple of 32, so a cell never leaves its row: the result is
    ``(row, cell ^ b)`` with ``b`` = bit 7 of ``base + 96·row + 16·cell`` — a permutation of
    each row's cells that depends non-linearly on ``row``.

    Args:
        row, cell, base: as :func:`swizzle96_address`.

    Returns:
        ``(row, cell)`` of the 96-byte-row grid where the data lands.

    Raises:
        LayoutError: as :func:`swizzle96_address`.

    Example::

        >>> [swizzle96_cell(1, c)[1] for c in range(6)]
        [0, 1, 3, 2, 5, 4]

    Source: PTX ISA §5.5.7 "Swizzling Modes" (the 96B table, boundary and base offset are
    32B's).
    """
    r2, byte = divmod(swizzle96_address(row, cell, base), 96)
    return r2, byte // 16
