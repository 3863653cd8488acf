"""Shared-memory access instructions: vectorised ld/st.shared, and ldmatrix / stmatrix.

``ld.shared`` / ``st.shared`` (the default) move ``2^k`` contiguous elements per lane; the
phases are the hardware model's (:mod:`linlayout.hardware`).

``ldmatrix`` / ``stmatrix`` (PTX ISA §9.7.14.5.15 "ldmatrix" and §9.7.14.5.16 "stmatrix",
shape ``.m8n8``) move 8×8 matrices of 16-bit elements: each of the 8 rows of a matrix is 16
contiguous bytes of shared memory, and lane ``4r + j`` holds bytes ``4j … 4j+3`` of row ``r``
(``.x1``, ``.x2``, ``.x4`` move 1, 2 or 4 matrices, one phase each). With ``.trans`` lane
``4c + j`` instead holds rows ``2j`` and ``2j + 1`` of column ``c``. Elements of 8 or 32 bits
are handled as Triton does, packing them into the same 32-bit lane chunks (no ``.trans``).

In the algebra, with ``P`` mapping a distributed layout's bits to element offsets and ``c =
log2(32 / element_bits)``:

* non-transposed: the row is offset bits ``0 … c+1``; ``P`` of ``c`` register directions must
  give offset bits ``0 … c−1`` (the lane's 32-bit chunk), and ``P(lane 0) = 2^c``,
  ``P(lane 1) = 2^(c+1)``; the 8 rows of a matrix are ``P(lane 2, 3, 4)``.
* ``.trans`` (16-bit only): the row is offset bits ``0 … 2`` = ``P(lane 2, 3, 4)``; the rows
  are ``P(register)``, ``P(lane 0)``, ``P(lane 1)``.

Every row (and every other register, warp and matrix direction) must start on a 16-byte
boundary. A matrix then takes ``2^e`` wavefronts with ``e = dim(segment ∩ (rows + row bits))``
— the same closed form as a 16-byte vector access whose phase is the 8 rows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .._checks import as_int, instance_of, int_list, shown
from .. import f2
from ..errors import LayoutError

__all__ = ["DEFAULT", "Instruction", "MatrixGeometry", "check_matrix_access", "matrix_geometry",
           "matrix_geometry_spare", "parse_instruction"]

#: The plain vectorised access.
DEFAULT = "ld/st.shared"
_MATRIX = re.compile(r"^(ld|st)matrix\.x([124])(\.trans)?$")


@dataclass(frozen=True)
class Instruction:
    """A shared-memory access kind.

    Attributes:
        name: ``"ld/st.shared"`` or e.g. ``"ldmatrix.x4"``, ``"stmatrix.x2.trans"``.
        matrices: matrices per instruction (1, 2 or 4); 0 for ld/st.shared.
        trans: the ``.trans`` variant.
        store: True for stmatrix and ``st.shared``, False for ldmatrix and ``ld.shared``,
            None for the plain access of unstated direction (``ld/st.shared``), which is
            counted as a store (no return packing, :meth:`~linlayout.hardware.model.BankModel.packed`).

    Source: PTX ISA §9.7.14.5.15 "ldmatrix" and §9.7.14.5.16 "stmatrix" (module docstring).
    """

    name: str
    matrices: int = 0
    trans: bool = False
    store: bool | None = None

    @property
    def is_matrix(self) -> bool:
        """True for ldmatrix/stmatrix."""
        return self.matrices > 0

    @property
    def is_plain_load(self) -> bool:
        """True for ``ld.shared`` named as such (the access whose return may be packed)."""
        return self.matrices == 0 and self.store is False


def parse_instruction(name: str | Instruction | None) -> Instruction:
    """The :class:`Instruction` for a name (``None`` means ld/st.shared).

    Raises:
        LayoutError: an unknown name (the message lists the accepted forms).

    Source: PTX ISA §9.7.14.5.15 "ldmatrix" and §9.7.14.5.16 "stmatrix" for the matrix
    forms.
    """
    if isinstance(name, Instruction):
        return name
    if name is None or name == DEFAULT:
        return Instruction(DEFAULT)
    if name in ("ld.shared", "st.shared"):
        return Instruction(str(name), store=name == "st.shared")
    m = _MATRIX.match(name) if isinstance(name, str) else None
    if not m:
        raise LayoutError(
            f"unknown instruction {shown(name)}; use 'ld.shared', 'st.shared', or "
            "'ldmatrix.x{1,2,4}[.trans]' / 'stmatrix.x{1,2,4}[.trans]'"
        )
    return Instruction(name, matrices=int(m.group(2)), trans=bool(m.group(3)),
                       store=m.group(1) == "st")


def all_variants(store: bool) -> list[Instruction]:
    """The matrix instructions of one direction, widest first (for ``instructions="auto"``)."""
    return list(_VARIANTS[bool(store)])


#: :func:`all_variants` by direction (instructions are immutable: parsed once, at import).
_VARIANTS = {store: tuple(parse_instruction(f"{'st' if store else 'ld'}matrix.x{n}{t}")
                          for n in (4, 2, 1) for t in ("", ".trans"))
             for store in (True, False)}


@dataclass(frozen=True)
class MatrixGeometry:
    """Where an ldmatrix/stmatrix access sits in the tensor (flat tensor coordinates).

    Attributes:
        row: the tensor directions of offset bits ``0 … row_bits−1`` (one 16-byte row), in
            offset order — a memory layout must start with exactly these.
        rows: the three directions spanning the 8 rows of one matrix (the phase).
        chunk_registers: register bit positions forming the lane's 32-bit chunk (non-trans)
            or the row-selecting register (trans).

    Source: PTX ISA §9.7.14.5.15 "ldmatrix" and §9.7.14.5.16 "stmatrix" (module docstring).
    """

    row: tuple[int, ...]
    rows: tuple[int, ...]
    chunk_registers: tuple[int, ...]


def _chunk_log2(element_bits: int) -> int:
    return max(0, 5 - (element_bits.bit_length() - 1))


def check_element(instr: Instruction, element_bits: int) -> None:
    """Raise LayoutError unless the element size suits the matrix instruction."""
    if instr.trans and element_bits != 16:
        raise LayoutError(f"{instr.name} moves 16-bit elements only; element_bits is {element_bits}")
    if element_bits not in (8, 16, 32):
        raise LayoutError(
            f"{instr.name} moves 8×8 matrices of 16-bit words (8- and 32-bit elements packed); "
            f"element_bits {element_bits} is not supported"
        )


def _columns(seq: Sequence[int], what: str) -> Sequence[int]:
    """``seq`` itself when it is a list or tuple of plain ints (the callers' case), else
    checked and converted by :func:`~linlayout._checks.int_list`."""
    if type(seq) in (tuple, list) and all(type(x) is int and x >= 0 for x in seq):
        return seq
    cols = int_list(seq, what)
    for i, x in enumerate(cols):
        if x < 0:
            raise LayoutError(f"{what}[{i}] must be a non-negative tensor coordinate, got {x}")
    return cols


def _matrix_args(instr: Instruction, register: Sequence[int], lane: Sequence[int],
                 element_bits: int) -> tuple[Sequence[int], Sequence[int], int]:
    instance_of(instr, Instruction, "instr")
    if type(element_bits) is not int:
        element_bits = as_int(element_bits, "element_bits")
    return _columns(register, "register"), _columns(lane, "lane"), element_bits


def matrix_geometry(instr: Instruction, register: Sequence[int], lane: Sequence[int],
                    element_bits: int, *, duplicate_rows: bool = False) -> MatrixGeometry:
    """The row and row-set directions an ldmatrix/stmatrix access of a layout needs.

    Strict (the default, what a layout built for the instruction must satisfy): the 8 rows
    of a matrix are 8 distinct rows of distinct elements.

    ``duplicate_rows`` (counting): the directions spanning the 8 rows may be broadcasts
    (zero, or dependent on each other), so several of a matrix's 8 row addresses are the
    same 16-byte row holding the same data — Triton 3.9 emits such ldmatrix/stmatrix for
    layouts whose lanes or registers repeat elements (a reduction's scratch). Each thread
    still gives one row address (PTX ISA §9.7.14.5.15/16), so the access is well defined;
    the cost counts the distinct row addresses (``span(rows)``). The row itself must still
    be 16 bytes of distinct elements, and no row may be a shift of another inside its
    16 bytes.

    Args:
        instr: a matrix instruction.
        register, lane: flat tensor coordinates of the distributed layout's register and lane
            bits (lane zero-extended to 32).
        element_bits: 8, 16 or 32 (16 for ``.trans``).
        duplicate_rows: accept repeated rows (see above).

    Raises:
        LayoutError: the element size does not fit, the layout has too few registers for
            the chunk or the ``.xN`` matrices, or a needed lane or register is a broadcast
            (with ``duplicate_rows``: a lane or register of the 16-byte row); an argument of
            the wrong type.
    """
    geom, spare = matrix_geometry_spare(instr, register, lane, element_bits,
                                        duplicate_rows=duplicate_rows)
    if spare < instr.matrices.bit_length() - 1:
        raise LayoutError(
            f"{instr.name} moves {instr.matrices} matrices per instruction but the layout's "
            "registers hold fewer; use a smaller .xN"
        )
    return geom


def matrix_geometry_spare(instr: Instruction, register: Sequence[int], lane: Sequence[int],
                          element_bits: int, *, duplicate_rows: bool = False,
                          trusted: bool = False) -> tuple[MatrixGeometry, int]:
    """:func:`matrix_geometry` without its last check, the ``.xN`` count: the geometry and
    the rank of the register directions outside the rows' span — ``instr`` and its
    narrower or wider ``.xN`` of the same kind (``.trans`` or not, load or store) fit
    exactly when that rank is at least ``log2(matrices)``, with this same geometry (one
    computation serves ``.x4``, ``.x2`` and ``.x1``).

    Args:
        instr, register, lane, element_bits, duplicate_rows: as :func:`matrix_geometry`.
        trusted: the caller passes ``register`` and ``lane`` as tuples or lists of
            non-negative ints and ``element_bits`` as an int (the synthesizer's flat
            columns): their type checks are skipped.

    Raises:
        LayoutError: every :func:`matrix_geometry` error but the ``.xN`` one.

    Source: PTX ISA §9.7.14.5.15 "ldmatrix" and §9.7.14.5.16 "stmatrix" (as
    :func:`matrix_geometry`).
    """
    if not trusted:
        register, lane, element_bits = _matrix_args(instr, register, lane, element_bits)
    check_element(instr, element_bits)
    c = _chunk_log2(element_bits)
    regs = list(register)
    if len(lane) < 5:
        raise LayoutError(f"{instr.name} needs a 32-lane warp")
    if instr.trans:
        if not regs:
            raise LayoutError(f"{instr.name} needs a register selecting the row pair")
        row: tuple[int, ...] = (lane[2], lane[3], lane[4])
        rows: tuple[int, ...] = (regs[0], lane[0], lane[1])
        chunk: tuple[int, ...] = (0,)
    else:
        if len(regs) < c:
            raise LayoutError(
                f"{instr.name} with {element_bits}-bit elements needs {1 << c} elements per lane "
                f"in registers; the layout has {1 << len(regs)}"
            )
        chunk_cols = _chunk_columns(regs, c)
        row = tuple(chunk_cols) + (lane[0], lane[1])
        rows = (lane[2], lane[3], lane[4])
        chunk = tuple(regs.index(x) for x in chunk_cols)
    want = len(row) + (f2.rank(list(rows)) if duplicate_rows else 3)
    rows_span = f2.echelon(list(row) + list(rows))  # reduced once: the checks below share it
    # without duplicate rows the row and rows are independent exactly when their span has
    # full rank: the row's own rank needs checking only when rows may repeat
    if len(rows_span) != want or (duplicate_rows and f2.rank(list(row)) != len(row)):
        if duplicate_rows:
            raise LayoutError(
                f"{instr.name} moves 16-byte rows of distinct elements, each row apart from "
                "the others; the layout repeats elements inside a row"
            )
        raise LayoutError(
            f"{instr.name} needs 8 distinct rows of distinct elements; the layout's lanes or "
            "registers broadcast (repeat) elements"
        )
    spare = f2.rank_outside(regs, rows_span)
    return MatrixGeometry(row=row, rows=rows, chunk_registers=chunk), spare


def check_matrix_access(instr: Instruction, register: Sequence[int], lane: Sequence[int],
                        warp_log2: int, row_bytes: int, element_bits: int,
                        vector_elems: object = None) -> MatrixGeometry:
    """Every precondition an ldmatrix/stmatrix access puts on the distributed layout and the
    hardware, in one place: :func:`linlayout.bank_conflicts` and
    :func:`linlayout.simulate_bank_access` both call it, so they accept exactly the same
    accesses (the simulator then replays the memory side itself).

    Args:
        instr: a matrix instruction (``instr.is_matrix``).
        register, lane: flat tensor coordinates of the layout's register and lane bits (lane
            zero-extended to the warp).
        warp_log2: log2 of the lanes per warp (the instruction needs 5: 32 lanes).
        row_bytes: bytes in one row of banks (at least 128: the 8 rows of a matrix).
        element_bits: bits per element (8, 16 or 32; 16 for ``.trans``).
        vector_elems: must be None (a matrix instruction moves fixed 16-byte rows).

    Rows may repeat (:func:`matrix_geometry` with ``duplicate_rows``): several threads of a
    matrix giving the same row address, holding the same data, are one 16-byte row to the
    banks, and both engines count the distinct rows.

    Returns:
        The :class:`MatrixGeometry` (:func:`matrix_geometry`).

    Raises:
        LayoutError: ``vector_elems`` given, a warp that is not 32 lanes, rows of banks
            narrower than 128 bytes, or any :func:`matrix_geometry` error (element size, too
            few registers for the 32-bit chunk or the ``.xN`` matrices, a broadcast lane or
            register inside the 16-byte row); an argument of the wrong type.

    Source: PTX ISA §9.7.14.5.15 "ldmatrix" and §9.7.14.5.16 "stmatrix" (``.m8n8``: 32
    threads, 16-byte rows, one 8×8 matrix per ``.xN`` step).
    """
    register, lane, element_bits = _matrix_args(instr, register, lane, element_bits)
    if type(warp_log2) is not int:
        warp_log2 = as_int(warp_log2, "warp_log2")
    if type(row_bytes) is not int:
        row_bytes = as_int(row_bytes, "row_bytes")
    if vector_elems is not None:
        raise LayoutError(f"vector_elems does not apply to {instr.name} (rows are 16 bytes)")
    if warp_log2 != 5 or row_bytes < 128:
        raise LayoutError(f"{instr.name} needs 32-lane warps and 128-byte rows of banks")
    return matrix_geometry(instr, register, lane, element_bits, duplicate_rows=True)


def _chunk_columns(regs: Sequence[int], c: int) -> list[int]:
    """The first ``c`` independent nonzero register columns (the lane's 32-bit chunk)."""
    return f2.extend_basis([], [r for r in regs if r], limit=c)


def check_memory(instr: Instruction, geom: MatrixGeometry, inv: Sequence[int],
                 register: Sequence[int], lane: Sequence[int], warp: Sequence[int],
                 element_bits: int, *, any_row_order: bool = False) -> tuple[list[int], int]:
    """Check that a memory layout serves the matrix access; return (row offsets, row bits).

    Strict (the default, what a layout built for the instruction must satisfy): the first
    offset bits hold ``geom.row`` in the order the instruction delivers a row (the lane's
    32-bit chunk, then lanes 0 and 1; ``.trans``: lanes 2, 3, 4).

    ``any_row_order`` (counting): the bank cost of a matrix instruction depends only on the
    16-byte rows each 8×8 matrix reads (PTX ISA "ldmatrix": each row is 16 contiguous bytes
    at a 16-byte-aligned address), so the row's offset bits may come from the row's lanes
    and any registers in any order (a compiler renames and repacks registers: Triton 3.9's
    ``lowerLdStMatrix`` picks the chunk registers by ``regPermForDivide``). Then lanes 0
    and 1 (``.trans``: lanes 2, 3, 4) must stay inside one 16-byte row, registers together
    with them must fill it, and lanes 2, 3, 4 (``.trans``: every register and lanes 0, 1)
    and warps must move whole rows. The returned row offsets are then the 16-byte-row parts.

    Args:
        inv: columns of the memory layout's inverse (tensor bit -> offset bits).
        any_row_order: accept any order of the row's offset bits (see above).

    Raises:
        LayoutError: the memory layout does not store each row as 16 contiguous bytes (in
            the order the instruction delivers them, unless ``any_row_order``), or a row is
            not 16-byte aligned.
    """
    row_bits = len(geom.row)
    low = (1 << row_bits) - 1
    if any_row_order:
        return _check_memory_any_order(instr, geom, inv, register, lane, warp, row_bits), row_bits
    want = [f2.apply(inv, v) for v in geom.row]
    if want != [1 << i for i in range(row_bits)]:
        raise LayoutError(
            f"{instr.name} reads rows of 16 contiguous bytes: the memory layout's first "
            f"{row_bits} offset bits must hold the directions {list(geom.row)} in that order "
            "(a lane's chunk, then lanes 0 and 1; with .trans lanes 2, 3, 4)"
        )
    # a register may mix in chunk bits (the compiler renames registers); nothing else may
    chunk_mask = 0 if instr.trans else (1 << _chunk_log2(element_bits)) - 1
    row_offs = [f2.apply(inv, v) for v in geom.rows]
    regs = [f2.apply(inv, v) & ~chunk_mask for v in register]
    warps = [f2.apply(inv, v) for v in warp]
    for off in row_offs + regs + warps:
        if off & low:
            raise LayoutError(
                f"{instr.name} needs every row to start on a 16-byte boundary; the memory "
                "layout places a row (or another register's or warp's data) mid-row"
            )
    return row_offs, row_bits


def _check_memory_any_order(instr: Instruction, geom: MatrixGeometry, inv: Sequence[int],
                            register: Sequence[int], lane: Sequence[int], warp: Sequence[int],
                            row_bits: int) -> list[int]:
    """:func:`check_memory` with ``any_row_order``: the row offsets of one matrix."""
    low = (1 << row_bits) - 1
    lanes = [f2.apply(inv, v) for v in lane]
    regs = [f2.apply(inv, v) for v in register]
    warps = [f2.apply(inv, v) for v in warp]
    if instr.trans:
        inside, whole = lanes[2:5], lanes[0:2] + regs + warps
    else:
        inside, whole = lanes[0:2], lanes[2:5] + warps
    if any(off & ~low for off in inside):
        raise LayoutError(
            f"{instr.name} reads rows of 16 contiguous bytes: the memory layout moves lanes "
            f"{'2, 3, 4' if instr.trans else '0 and 1'} out of the 16-byte row"
        )
    if any(off & low for off in whole):
        raise LayoutError(
            f"{instr.name} needs every row to start on a 16-byte boundary; the memory "
            "layout places a row (or a warp's data) mid-row"
        )
    if not instr.trans:
        # registers may carry row bits (renamed, repacked); with lanes 0 and 1 they must
        # fill the row: the registers that stay in lane 0's row span the rest of it
        filled = f2.rank(regs + inside) - f2.rank([r & ~low for r in regs])
        if filled != row_bits:
            raise LayoutError(
                f"{instr.name} reads rows of 16 contiguous bytes: the memory layout does "
                "not fill a row with one lane quad's registers"
            )
    return [f2.apply(inv, v) for v in geom.rows]
