"""Per-lane byte addresses of a case, and the hardware model restated on those addresses.

This module turns a (distributed layout, shared-memory layout) pair into what a kernel needs:
for every warp, every warp-level instruction and every lane, the byte address the lane hands to
the instruction. It enumerates the layouts itself (XOR of basis images, a dictionary for the
memory's inverse) and uses none of linlayout's counting code, so the address tables are an
independent check of :func:`linlayout.bank_conflicts`: :func:`count` applies the hardware model
to the addresses by brute force, and ``generate.py`` requires it to agree with linlayout on
every case it can (all but the padded buffers, which linlayout does not model yet: there this
count *is* the prediction).

The hardware model (NVIDIA; ``docs/hardware-model.md``):

* shared memory is 32 banks of 4-byte words, word ``a // 4`` in bank ``(a // 4) % 32``;
* ``ld.shared``/``st.shared`` of ``b`` bytes per lane (PTX ISA §9.7.9.8 "ld", §9.7.9.10 "st";
  ``.u8``, ``.u16``, ``.u32``, ``.v2.u32``, ``.v4.u32``) is served in phases of
  ``128 / max(b, 4)`` consecutive lanes: 32 lanes for 1–4 bytes, 16 for 8, 8 for 16;
* ``ldmatrix``/``stmatrix`` ``.m8n8.x{1,2,4}[.trans]`` (PTX ISA §9.7.14.5.15 "ldmatrix",
  §9.7.14.5.16 "stmatrix") move 8×8 matrices of 16-bit elements; lanes ``8j … 8j+7`` give the
  16-byte-aligned addresses of the 8 rows of matrix ``j`` (``.x1``: lanes 0–7, ``.x2``: 0–15,
  ``.x4``: 0–31; the other lanes' addresses are ignored) and each matrix is one phase;
* inside a phase, lanes asking for the same word are served together; a phase costs as many
  wavefronts as the most distinct words asked of one bank; warps never conflict;
* return packing (measured here first, ``pack`` cases): an ``ld.shared`` of 8 or 16 bytes
  per lane where every lane ``n`` asks for the same address as lane ``n ^ 1`` (or every lane
  the same as ``n ^ 2``) is served in the phases of an access half as wide (32 lanes for 8
  bytes, 16 for 16); stores are not packed.

Units: addresses are bytes from the start of the buffer; offsets are elements.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

#: NVIDIA shared memory: banks per row, bytes per bank word, lanes per warp.
NUM_BANKS = 32
BANK_BYTES = 4
WARP = 32


def _log2(n: int) -> int:
    if n < 1 or n & (n - 1):
        raise ValueError(f"{n} is not a power of two")
    return n.bit_length() - 1


def flat_images(layout, in_dim: str, out_order: Sequence[str]) -> list[int]:
    """The images of ``in_dim``'s basis vectors as flat tensor indices (``out_order[0]`` in the
    low bits, Triton's flattening); an absent in dim has no bases."""
    shifts, s = [], 0
    for d in out_order:
        shifts.append(s)
        s += _log2(layout.out_dims[d])
    out = []
    for img in layout.bases.get(in_dim, []):
        names = list(layout.out_dims)
        out.append(sum(img[names.index(d)] << sh for d, sh in zip(out_order, shifts)))
    return out


def _xor_span(images: Sequence[int], x: int) -> int:
    v = 0
    for i, img in enumerate(images):
        if x >> i & 1:
            v ^= img
    return v


@dataclass(frozen=True)
class Grid:
    """A distributed layout against a memory layout, enumerated: element offsets by thread.

    Attributes:
        offsets: ``offsets[w][lane][r]`` = element offset (in the memory layout) of register
            ``r`` of lane ``lane`` of warp ``w``.
        warps, registers: counts (powers of two).
    """

    offsets: tuple[tuple[tuple[int, ...], ...], ...]
    warps: int
    registers: int


def enumerate_grid(layout, memory) -> Grid:
    """Element offset of every (warp, lane, register) of ``layout`` in ``memory``.

    ``memory`` maps ``offset`` (elements) onto the tensor; it must be a bijection. Lanes beyond
    the layout's lane dim are broadcasts (zero images), as in Triton and linlayout.
    """
    order = list(memory.out_dims)
    if set(order) != set(layout.out_dims):
        raise ValueError("layout and memory must have the same out dims")
    mem = flat_images(memory, "offset", order)
    where: dict[int, int] = {}
    for o in range(1 << len(mem)):
        where[_xor_span(mem, o)] = o
    if len(where) != 1 << len(mem):
        raise ValueError("the memory layout is not a bijection")
    if layout.bases.get("block"):
        raise ValueError("block bases are not supported: one CTA per case")
    lane = flat_images(layout, "lane", order)
    if len(lane) > 5:
        raise ValueError("more than 32 lanes")
    warp = flat_images(layout, "warp", order)
    reg = flat_images(layout, "register", order)
    regs = [_xor_span(reg, r) for r in range(1 << len(reg))]
    offs = []
    for w in range(1 << len(warp)):
        wv = _xor_span(warp, w)
        offs.append(tuple(
            tuple(where[wv ^ _xor_span(lane, t) ^ rv] for rv in regs) for t in range(WARP)))
    return Grid(offsets=tuple(offs), warps=1 << len(warp), registers=len(regs))


def vector_table(grid: Grid, vector_elems: int) -> list[list[list[int]]]:
    """``table[w][i][lane]``: first element offset of the lane's vector in instruction ``i``.

    Registers are grouped into instructions as a compiler vectorises them: registers whose
    elements (seen from warp 0, lane 0) lie in one aligned run of ``vector_elems`` offsets are
    one instruction; instructions are ordered by that run's offset. Every lane's registers of
    one instruction must then fill exactly one aligned run (else no single instruction moves
    them and ``ValueError`` is raised).
    """
    v = vector_elems
    groups: dict[int, list[int]] = defaultdict(list)
    for r, off in enumerate(grid.offsets[0][0]):
        groups[off // v].append(r)
    order = [groups[k] for k in sorted(groups)]
    table = []
    for w in range(grid.warps):
        per_instr = []
        for members in order:
            starts = []
            for t in range(WARP):
                offs = sorted({grid.offsets[w][t][r] for r in members})
                if len(offs) != v or offs[0] % v or offs[-1] - offs[0] != v - 1:
                    raise ValueError(f"warp {w} lane {t}: registers {members} are not one "
                                     f"aligned run of {v} offsets: {offs}")
                starts.append(offs[0])
            per_instr.append(starts)
        table.append(per_instr)
    return table


def matrix_table(grid: Grid, element_bits: int, matrices: int,
                 trans: bool) -> list[list[list[int]]]:
    """``table[w][i][lane]``: the element offset of the row lane ``lane`` addresses in
    ``ldmatrix``/``stmatrix`` instruction ``i`` (``.x{matrices}``, ``.trans`` or not).

    A matrix is identified by its 8 row starts. Non-transposed, row ``q`` of the matrix holding
    register ``r`` is where lane ``4q`` keeps ``r`` (lanes ``4q … 4q+3`` share a row); with
    ``.trans`` (16-bit only) lane ``4c + j`` holds rows ``2j`` and ``2j + 1`` of column ``c`` in
    registers ``r`` and ``r ^ 1``. Matrices are ordered by their first register and packed
    ``matrices`` to an instruction; lane ``8j + q`` addresses row ``q`` of the instruction's
    matrix ``j``; lanes ``≥ 8·matrices`` (ignored by the hardware) repeat lane
    ``lane % (8·matrices)``.
    """
    row_elems = 128 // element_bits
    table = []
    for w in range(grid.warps):
        offs = grid.offsets[w]
        keys: list[tuple[int, ...]] = []
        for r in range(grid.registers):
            if trans:
                base = r & ~1
                rows = tuple(offs[q >> 1][base | (q & 1)] // row_elems * row_elems
                             for q in range(8))
            else:
                rows = tuple(offs[4 * q][r] // row_elems * row_elems for q in range(8))
            if rows not in keys:
                keys.append(rows)
        if len(keys) % matrices:
            raise ValueError(f"{len(keys)} matrices per warp do not fill .x{matrices}")
        per_instr = []
        for i in range(0, len(keys), matrices):
            group = keys[i:i + matrices]
            span = 8 * matrices
            per_instr.append([group[(t % span) // 8][t % 8] for t in range(WARP)])
        table.append(per_instr)
    return table


@dataclass(frozen=True)
class Count:
    """The hardware model applied to an address table.

    Attributes:
        wavefronts: ``wavefronts[w][i]`` for warp ``w``, instruction ``i``.
        degree: the largest number of distinct words asked of one bank in one phase.
        phases: phases per instruction.
    """

    wavefronts: tuple[tuple[int, ...], ...]
    degree: int
    phases: int

    @property
    def per_warp(self) -> list[int]:
        """Wavefronts each warp pays for all its instructions."""
        return [sum(w) for w in self.wavefronts]

    @property
    def total(self) -> int:
        """Wavefronts of the whole block (one pass over every warp's instructions)."""
        return sum(self.per_warp)

    @property
    def uniform(self) -> bool:
        """Every instruction of every warp costs the same (always so for linear layouts)."""
        return len({x for w in self.wavefronts for x in w}) == 1


def phase_degree(accesses: Sequence[tuple[int, int]]) -> int:
    """Wavefronts of one phase: the most distinct words any bank is asked for.

    Args:
        accesses: ``(byte address, bytes)`` of each lane (or matrix row) in the phase.
    """
    banks: dict[int, set[int]] = defaultdict(set)
    for addr, nbytes in accesses:
        for word in range(addr // BANK_BYTES, (addr + nbytes - 1) // BANK_BYTES + 1):
            banks[word % NUM_BANKS].add(word)
    return max(len(s) for s in banks.values())


def packs(addrs: Sequence[int], access_bytes: int) -> bool:
    """Return packing (module docstring): a wide load whose lanes ``n`` and ``n ^ 1`` (or
    ``n`` and ``n ^ 2``) all give the same address."""
    return access_bytes >= 2 * BANK_BYTES and any(
        all(addrs[n] == addrs[n ^ m] for n in range(WARP)) for m in (1, 2))


def count(table: Sequence[Sequence[Sequence[int]]], access_bytes: int, matrices: int = 0,
          load: bool = False) -> Count:
    """Apply the hardware model (module docstring) to byte addresses.

    Args:
        table: ``table[w][i][lane]`` byte addresses.
        access_bytes: bytes per lane (1–16) for ``ld/st.shared``; ignored for matrices.
        matrices: 0 for ``ld/st.shared``, else 1, 2 or 4 (``ldmatrix``/``stmatrix``).
        load: an ``ld.shared`` (whose return may be packed, :func:`packs`).
    """
    if matrices:
        phases = [list(range(8 * j, 8 * j + 8)) for j in range(matrices)]
        width = 16
    else:
        width = access_bytes
    waves, degree, nphases = [], 1, 0
    for warp in table:
        row = []
        for addrs in warp:
            for a in addrs:
                if a % width:
                    raise ValueError(f"address {a} is not aligned to the {width}-byte access")
            if not matrices:
                wide = access_bytes // 2 if load and packs(addrs, access_bytes) else access_bytes
                per = (NUM_BANKS * BANK_BYTES) // max(wide, BANK_BYTES)
                phases = [list(range(p, p + per)) for p in range(0, WARP, per)]
            nphases = max(nphases, len(phases))
            ds = [phase_degree([(addrs[t], width) for t in lanes]) for lanes in phases]
            degree = max(degree, *ds)
            row.append(sum(ds))
        waves.append(tuple(row))
    return Count(wavefronts=tuple(waves), degree=degree, phases=nphases)


def padded(offset: int, interval: int, pad: int) -> int:
    """A padded buffer's element position: ``offset + (offset // interval) * pad``.

    ``pad`` elements of padding follow every ``interval`` elements (Triton's
    ``#ttg.padded_shared<[interval:+pad]>``); ``interval`` must be a multiple of the vector so
    that no access straddles a gap.
    """
    return offset + (offset // interval) * pad
