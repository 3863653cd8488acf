"""The catalogue of hardware cases: every access ``generate.py`` turns into a kernel.

A :class:`Case` is one warp-level shared-memory access pattern, repeated by every warp of one
CTA: a distributed layout (which lane and register holds which tensor element), the
shared-memory layout the tensor sits in (element offset -> tensor element), the element size,
and the instruction. :func:`catalogue` builds them all, deterministically (the random cases use
fixed seeds), in categories:

========== ==================================================================================
width      conflict-free accesses of 1, 2, 4, 8 and 16 bytes per lane, loads and stores, plain
           and vectorised
stride     lanes a power-of-two number of words apart (2- to 32-way conflicts), wide accesses,
           and two probes of whether the hardware packs phases together
subword    8- and 16-bit elements where lanes share bank words (and the case the plain Lemma 9.4
           under-counts)
broadcast  lanes or registers with zero images (same word), 8- and 16-byte broadcasts
warps      2, 4 and 8 warps, disjoint or reading the same words
matrix     ldmatrix/stmatrix .x1/.x2/.x4 with and without .trans; 8-, 16- and 32-bit elements
article    the 16×32 fp32 transpose of "Swizzle by hand, swizzle by algebra": row-major, XOR m
           and XOR 2m buffers (16, 2, 1 wavefronts per load)
tma        buffers TMA writes with the none/32B/64B/128B swizzle modes
           (``linlayout.ptx.tma_tile_layout``)
padded     buffers with ``pad`` elements after every ``interval`` (not yet in linlayout: predicted
           by this directory's own address model, ``addresses.count``)
triton     Triton's published bank-conflict cases (``papers/linear_layouts``)
random     random layouts from fixed seeds
pack       wide loads where lane pairs share an address (return packing probes)
serial     multi-warp cases again with the warps taking turns
========== ==================================================================================

Offsets are elements; tensors are ``dim0`` (× ``dim1``) with Triton's flattening.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from linlayout import LinearLayout, bank_conflicts, examples, f2
from linlayout.ptx import tma_tile_layout

ROOT = Path(__file__).resolve().parents[2]
TRITON_DATA = ROOT / "papers" / "linear_layouts" / "data" / "triton_layouts.json"

#: Bytes of static shared memory a kernel may declare (48 KB without opting in).
MAX_SMEM = 48 * 1024
#: Most instructions per warp a case may have (its addresses are held in registers).
MAX_INSTRS = 64


@dataclass(frozen=True)
class Case:
    """One access pattern.

    Attributes:
        name: unique, ``[a-z0-9-]``.
        category: one of the catalogue's categories.
        description: one line: what is accessed and what the model expects.
        layout: the distributed layout (in dims among ``register, lane, warp``).
        memory: the shared-memory layout (in dim ``offset``, elements) — for a padded case the
            layout before padding.
        element_bits: bits per element (8 to 128).
        instruction: ``"ld.shared"``, ``"st.shared"`` or a matrix instruction such as
            ``"ldmatrix.x4.trans"`` (linlayout's names).
        vector_elems: force a narrower vector than linlayout's default (None: the default).
        padding: ``(interval, pad)`` in elements for a padded buffer, else None.
        serial: the warps take turns (warp ``w`` runs its whole loop, then a CTA barrier, then
            warp ``w + 1``), so no two warps access shared memory at the same time.
    """

    name: str
    category: str
    description: str
    layout: LinearLayout
    memory: LinearLayout
    element_bits: int
    instruction: str
    vector_elems: int | None = None
    padding: tuple[int, int] | None = None
    serial: bool = False

    @property
    def is_matrix(self) -> bool:
        return "matrix" in self.instruction

    @property
    def is_store(self) -> bool:
        return self.instruction.startswith("st")


# -- small constructors ---------------------------------------------------------------------

def line(n: int) -> dict[str, int]:
    """Out dims of a 1-D tensor of ``2^n`` elements."""
    return {"dim0": 1 << n}


def identity(n: int) -> LinearLayout:
    """The plain buffer of a 1-D tensor: offset ``o`` holds element ``o``."""
    return LinearLayout({"offset": [[1 << i] for i in range(n)]}, line(n))


def on_line(n: int, lane=(), register=(), warp=()) -> LinearLayout:
    """A distributed layout on a 1-D tensor given by element offsets: ``lane[i]`` is the offset
    of lane ``2^i`` (so with :func:`identity` memory, lane bits map straight to offsets)."""
    return LinearLayout({"register": [[x] for x in register], "lane": [[x] for x in lane],
                         "warp": [[x] for x in warp]}, line(n))


def bits_for(*groups) -> int:
    """Tensor bits that hold every offset given (at least 10: 1 KB of 8-bit elements)."""
    top = max([x for g in groups for x in g] + [0])
    return max(10, top.bit_length())


def offsets_case(name, category, description, element_bits, instruction="ld.shared", lane=(),
                 register=(), warp=(), vector_elems=None) -> Case:
    """A case on a 1-D tensor in the plain buffer, given by element offsets."""
    n = bits_for(lane, register, warp)
    return Case(name, category, description, on_line(n, lane, register, warp), identity(n),
                element_bits, instruction, vector_elems)


def units(n: int, start: int = 1) -> list[int]:
    """``start, 2·start, 4·start, …`` (``n`` of them)."""
    return [start << i for i in range(n)]


def grid2(rows: int, cols: int, bases: dict[str, list[list[int]]]) -> LinearLayout:
    """A distributed layout on a ``rows × cols`` tensor (``dim0`` = row, ``dim1`` = column)."""
    return LinearLayout(bases, {"dim0": rows, "dim1": cols})


def row_major(rows: int, cols: int) -> LinearLayout:
    """The unswizzled buffer: offset ``cols·row + col``."""
    rb, cb = rows.bit_length() - 1, cols.bit_length() - 1
    return grid2(rows, cols, {"offset": [[0, 1 << i] for i in range(cb)] +
                              [[1 << i, 0] for i in range(rb)]})


# -- categories ------------------------------------------------------------------------------

def width_cases() -> list[Case]:
    """Conflict-free: each lane moves its own consecutive vector."""
    out = []
    for nbytes in (1, 2, 4, 8, 16):
        e = 8 * nbytes
        phases = max(1, nbytes // 4)
        for op in ("ld", "st"):
            out.append(offsets_case(
                f"width-{e}bit-{op}", "width",
                f"{op}.shared of one {e}-bit element per lane, lanes consecutive: "
                f"{32 * nbytes} bytes, {phases} phase(s), conflict-free",
                e, f"{op}.shared", lane=units(5)))
    for e, v in ((8, 4), (8, 16), (16, 2), (16, 8), (32, 2), (32, 4)):
        k = v.bit_length() - 1
        out.append(offsets_case(
            f"width-{e}bit-vec{v}-ld", "width",
            f"ld.shared of {v} consecutive {e}-bit elements per lane ({e * v // 8} bytes), "
            "lanes consecutive: conflict-free", e, "ld.shared",
            lane=units(5, v), register=units(k)))
    return out


def stride_cases() -> list[Case]:
    """Lanes a power of two apart: the classic n-way conflicts."""
    out = []
    for s in (2, 4, 8, 16, 32):
        ops = ("ld", "st") if s in (2, 32) else ("ld",)
        for op in ops:
            out.append(offsets_case(
                f"stride{s}-32bit-{op}", "stride",
                f"{op}.shared.u32, lane l at word {s}·l: {min(s, 32)}-way conflict",
                32, f"{op}.shared", lane=units(5, s)))
    out.append(offsets_case(
        "stride2-64bit-ld", "stride",
        "ld.shared.v2 (8 bytes), lane l at 16·l bytes: each half-warp spans 256 bytes, 2-way",
        64, "ld.shared", lane=units(5, 2)))
    out.append(offsets_case(
        "stride2-128bit-ld", "stride",
        "ld.shared.v4 (16 bytes), lane l at 32·l bytes: each quarter-warp spans 256 bytes, 2-way",
        128, "ld.shared", lane=units(5, 2)))
    out.append(offsets_case(
        "stride8-128bit-st", "stride",
        "st.shared.v4, lane l at 128·l bytes: the 8 lanes of a quarter-warp hit the same 4 banks, "
        "8-way", 128, "st.shared", lane=units(5, 8)))
    out.append(offsets_case(
        "stride128-8bit-ld", "stride",
        "ld.shared.u8, lane l at byte 128·l: 32 words in bank 0, 32-way", 8, "ld.shared",
        lane=units(5, 128)))
    out.append(offsets_case(
        "stride64-16bit-st", "stride",
        "st.shared.u16, lane l at byte 128·l: 32 words in bank 0, 32-way", 16, "st.shared",
        lane=units(5, 64)))
    # Probes: each phase is 2-way and uses half the banks; another phase uses the other half.
    # The model counts phases separately (4 × 2 and 2 × 2 wavefronts); a hardware that packed
    # two phases into one wavefront would measure half.
    out.append(offsets_case(
        "probe-pack-128bit-ld", "stride",
        "ld.shared.v4: each quarter-warp 2-way in banks 0-15, the next quarter in banks 16-31 "
        "(are phases packed together?)", 128, "ld.shared", lane=[1, 2, 16, 4, 32]))
    out.append(offsets_case(
        "probe-pack-64bit-ld", "stride",
        "ld.shared.v2: each half-warp 2-way in banks 0-15, the other half in banks 16-31 "
        "(are phases packed together?)", 64, "ld.shared", lane=[1, 2, 4, 16, 8]))
    return out


def subword_cases() -> list[Case]:
    """Elements narrower than a bank word: lanes share words."""
    return [
        offsets_case("subword-8bit-segment-ld", "subword",
                     "ld.shared.u8, lane 1 at byte 129 (another byte of another word in the same "
                     "bank as lane 0's): 2-way although the offsets differ in a within-word bit "
                     "(the plain Lemma 9.4 says 1)", 8, "ld.shared", lane=[129, 4, 8, 16, 32]),
        offsets_case("subword-8bit-segment-st", "subword",
                     "the same pattern stored with st.shared.u8: 2-way", 8, "st.shared",
                     lane=[129, 4, 8, 16, 32]),
        offsets_case("subword-16bit-segment-ld", "subword",
                     "ld.shared.u16, lane 1 at element 65 (bytes 130-131, bank 0): 2-way", 16,
                     "ld.shared", lane=[65, 2, 4, 8, 16]),
        offsets_case("subword-8bit-words-ld", "subword",
                     "ld.shared.u8, four lanes per word, the 8 words 128 bytes apart: 8-way", 8,
                     "ld.shared", lane=[1, 2, 128, 256, 512]),
        offsets_case("subword-8bit-share-st", "subword",
                     "st.shared.u8, four lanes write the four bytes of each word (merged), 8 "
                     "words in 8 banks: 1 wavefront", 8, "st.shared", lane=[1, 2, 4, 8, 16]),
        offsets_case("subword-16bit-share-st", "subword",
                     "st.shared.u16, two lanes write the halves of each word, words strided by 2: "
                     "2-way", 16, "st.shared", lane=[1, 4, 8, 16, 32]),
        offsets_case("subword-16bit-vec2-ld", "subword",
                     "ld.shared.u32 of two 16-bit elements, lane l at word 2·l: 2-way", 16,
                     "ld.shared", lane=units(5, 4), register=[1]),
    ]


def broadcast_cases() -> list[Case]:
    """Zero images: several lanes (or registers) name the same element."""
    return [
        offsets_case("bcast-all-32bit-ld", "broadcast",
                     "ld.shared.u32, every lane reads word 0: 1 wavefront", 32, "ld.shared",
                     lane=[0] * 5),
        offsets_case("bcast-half-32bit-ld", "broadcast",
                     "ld.shared.u32, lanes l and l+16 read the same word: 1 wavefront", 32,
                     "ld.shared", lane=[1, 2, 4, 8, 0]),
        offsets_case("bcast-pairs-conflict-ld", "broadcast",
                     "ld.shared.u32, lane pairs share a word, the 16 words all in bank 0: "
                     "16-way", 32, "ld.shared", lane=[0, 32, 64, 128, 256]),
        offsets_case("bcast-register-32bit-ld", "broadcast",
                     "a zero register image: registers 0/1 and 2/3 are the same elements, so 2 "
                     "instructions of 1 wavefront", 32, "ld.shared",
                     lane=units(5), register=[0, 32]),
        offsets_case("bcast-all-32bit-st", "broadcast",
                     "st.shared.u32, every lane writes word 0: 1 wavefront", 32, "st.shared",
                     lane=[0] * 5),
        offsets_case("bcast-all-64bit-ld", "broadcast",
                     "ld.shared.v2, every lane reads the same 8 bytes: the model counts 2 "
                     "half-warp phases", 64, "ld.shared", lane=[0] * 5),
        offsets_case("bcast-halves-64bit-ld", "broadcast",
                     "ld.shared.v2, the two half-warps read the same 128 bytes: model 2 "
                     "wavefronts", 64, "ld.shared", lane=[1, 2, 4, 8, 0]),
        offsets_case("bcast-all-128bit-ld", "broadcast",
                     "ld.shared.v4, every lane reads the same 16 bytes: the model counts 4 "
                     "quarter-warp phases", 128, "ld.shared", lane=[0] * 5),
        offsets_case("bcast-quarters-128bit-ld", "broadcast",
                     "ld.shared.v4, the four quarter-warps read the same 128 bytes: model 4 "
                     "wavefronts", 128, "ld.shared", lane=[1, 2, 4, 0, 0]),
        offsets_case("bcast-all-64bit-st", "broadcast",
                     "st.shared.v2, every lane writes the same 8 bytes: model 2 wavefronts", 64,
                     "st.shared", lane=[0] * 5),
    ]


def warp_cases() -> list[Case]:
    """Several warps: each warp's instruction is counted on its own."""
    return [
        offsets_case("warps2-disjoint-ld", "warps",
                     "2 warps, each reads its own 128 bytes: 1 wavefront per warp", 32,
                     "ld.shared", lane=units(5), warp=[32]),
        offsets_case("warps4-same-ld", "warps",
                     "4 warps read the same 32 words (warp images zero): still 1 per warp", 32,
                     "ld.shared", lane=units(5), warp=[0, 0]),
        offsets_case("warps4-same-st", "warps",
                     "4 warps write the same 32 words: 1 per warp", 32, "st.shared",
                     lane=units(5), warp=[0, 0]),
        offsets_case("warps8-stride4-ld", "warps",
                     "8 warps, lane l at word 4·l, warp w shifted by w words: 4-way in each "
                     "warp, whatever the others do", 32, "ld.shared", lane=units(5, 4),
                     warp=[1, 2, 128]),
        offsets_case("warps4-vec4-ld", "warps",
                     "4 warps of ld.shared.v4 over a 2 KB row-major tile: 4 wavefronts per "
                     "warp instruction", 32, "ld.shared", register=[1, 2], lane=units(5, 4),
                     warp=[128, 256]),
    ]


# ldmatrix/stmatrix geometry on a row × column tensor (PTX ISA §9.7.14.5.15-16): a row of a
# matrix is 16 contiguous bytes; non-transposed, lane 4r+j holds 32-bit chunk j of row r; with
# .trans lane 4c+j holds rows 2j, 2j+1 of column c (register bit 0 picks the row).

def matrix_layout(element_bits: int, trans: bool, rows: int, cols: int) -> LinearLayout:
    """A warp's 16×(16 B) block read by ldmatrix.x4 (four 8×8 matrices of 16-bit words).

    Non-transposed, the lane's 32-bit chunk is ``32 / element_bits`` consecutive columns
    (registers), lanes 0-1 pick the chunk in the 16-byte row and lanes 2-4 the row; the two
    remaining registers pick the matrix (rows + 8, columns + one row width).
    """
    c = max(0, 5 - (element_bits.bit_length() - 1))  # register bits in a 32-bit chunk
    row_elems = 128 // element_bits
    if trans:
        assert element_bits == 16
        reg = [[1, 0], [8, 0], [0, 8]]
        lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]]
    else:
        reg = [[0, 1 << i] for i in range(c)] + [[8, 0], [0, row_elems]]
        lane = [[0, 1 << c], [0, 2 << c], [1, 0], [2, 0], [4, 0]]
    return grid2(rows, cols, {"register": reg, "lane": lane})


def matrix_cases() -> list[Case]:
    """ldmatrix / stmatrix variants on 16-bit tiles, and the 8- and 32-bit packings."""
    out = []
    sw128 = tma_tile_layout("128B", element_bits=16, rows=16, cols=64)
    plain = row_major(16, 64)
    for op in ("ld", "st"):
        for n in (1, 2, 4):
            for trans in (False, True):
                t = ".trans" if trans else ""
                out.append(Case(
                    f"{op}matrix-x{n}{t.replace('.', '-')}-sw128", "matrix",
                    f"{op}matrix.x{n}{t} of a 16×16 fp16 block of a 16×64 tile in the 128B "
                    f"swizzle: 8 rows of a matrix in 8 bank groups, {n} wavefront(s)",
                    matrix_layout(16, trans, 16, 64), sw128, 16, f"{op}matrix.x{n}{t}"))
    for instr, trans in (("ldmatrix.x4", False), ("ldmatrix.x4.trans", True),
                         ("stmatrix.x4", False), ("stmatrix.x2.trans", True)):
        out.append(Case(
            f"{instr.replace('.', '-')}-rowmajor", "matrix",
            f"{instr} from an unswizzled 16×64 fp16 tile: rows 128 bytes apart, all 8 rows in "
            "one bank group, 8-way", matrix_layout(16, trans, 16, 64), plain, 16, instr))
    out.append(Case(
        "ldmatrix-x4-rowmajor-16x16", "matrix",
        "ldmatrix.x4 from an unswizzled 16×16 fp16 tile: rows 32 bytes apart, rows r and r+4 "
        "share banks, 2-way", matrix_layout(16, False, 16, 16), row_major(16, 16), 16,
        "ldmatrix.x4"))
    out.append(Case(
        "ldmatrix-x4-8bit-rowmajor", "matrix",
        "ldmatrix.x4 moving 8-bit elements (4 per 32-bit chunk, as Triton packs them) from an "
        "unswizzled 16×128 int8 tile: 8-way", matrix_layout(8, False, 16, 128),
        row_major(16, 128), 8, "ldmatrix.x4"))
    out.append(Case(
        "ldmatrix-x4-8bit-sw128", "matrix",
        "ldmatrix.x4 of 8-bit elements from a 16×128 int8 tile in the 128B swizzle: "
        "conflict-free", matrix_layout(8, False, 16, 128),
        tma_tile_layout("128B", element_bits=8, rows=16, cols=128), 8, "ldmatrix.x4"))
    out.append(Case(
        "stmatrix-x4-32bit-sw128", "matrix",
        "stmatrix.x4 of 32-bit elements (one per chunk) into a 16×32 fp32 tile in the 128B "
        "swizzle: conflict-free", matrix_layout(32, False, 16, 32),
        tma_tile_layout("128B", element_bits=32, rows=16, cols=32), 32, "stmatrix.x4"))
    out.append(Case(
        "ldmatrix-x4-32bit-rowmajor", "matrix",
        "ldmatrix.x4 of 32-bit elements from an unswizzled 16×32 fp32 tile: 8-way",
        matrix_layout(32, False, 16, 32), row_major(16, 32), 32, "ldmatrix.x4"))
    return out


def article_memory(shift: int | None) -> LinearLayout:
    """The article's buffers for the 16×32 fp32 tile: ``offset = 32·m + (n ⊕ (m << shift))``
    (None: row-major)."""
    bank = [[0, 1 << i] for i in range(5)]
    seg = [[1 << j, 0 if shift is None else 1 << (j + shift)] for j in range(4)]
    return grid2(16, 32, {"offset": bank + seg})


def article_cases() -> list[Case]:
    """The article's transpose: loads 16 / 2 / 1 wavefronts, stores always 1."""
    ex = examples.get("transpose")
    out = []
    for tag, shift, what, w in (("rowmajor", None, "row-major", 16),
                                ("xor-m", 0, "half-swizzled (n XOR m)", 2),
                                ("xor-2m", 1, "synthesized (n XOR 2m)", 1)):
        mem = article_memory(shift)
        out.append(Case(f"article-load-{tag}", "article",
                        f"the article's column load of the 16×32 fp32 tile from the {what} "
                        f"buffer: {w} wavefront(s)", ex.load, mem, 32, "ld.shared"))
        out.append(Case(f"article-store-{tag}", "article",
                        f"the article's row store into the {what} buffer: 1 wavefront",
                        ex.store, mem, 32, "st.shared"))
    return out


def tma_cases() -> list[Case]:
    """Buffers written by TMA: ldmatrix.x4 and 16-byte row reads of a 16×64 fp16 tile."""
    out = []
    # 16-byte vectors down the rows: lane l reads chunk 0 of row l (lanes 0-15) of column
    # block l>>4; a quarter-warp's 8 rows sit in 8 different bank groups only if swizzled.
    rows_vec = grid2(16, 64, {"register": [[0, 1], [0, 2], [0, 4]],
                              "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]]})
    for mode in ("none", "32B", "64B", "128B"):
        mem = tma_tile_layout(mode, element_bits=16, rows=16, cols=64)
        out.append(Case(f"tma-{mode.lower()}-ldmatrix-x4", "tma",
                        f"ldmatrix.x4 of a 16×16 fp16 block from a 16×64 tile TMA wrote with "
                        f"swizzle {mode}", matrix_layout(16, False, 16, 64), mem, 16,
                        "ldmatrix.x4"))
        out.append(Case(f"tma-{mode.lower()}-rows-v4", "tma",
                        f"ld.shared.v4: lane l reads the first 16 bytes of row l of a 16×64 fp16 "
                        f"tile in swizzle {mode}", rows_vec, mem, 16, "ld.shared"))
    # 32-bit column read (lanes down 32 rows) from a 32×32 fp32 tile in the 128B swizzle
    cols = grid2(32, 32, {"register": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                          "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]})
    out.append(Case("tma-128b-columns-32bit", "tma",
                    "ld.shared.u32 of a column (lane = row, one element per instruction) of a "
                    "32×32 fp32 tile in the 128B swizzle: the XOR spreads 8 rows over 8 bank "
                    "groups, rows r and r+8 collide, 4-way",
                    cols, tma_tile_layout("128B", element_bits=32, rows=32, cols=32), 32,
                    "ld.shared", vector_elems=1))
    return out


def padded_cases() -> list[Case]:
    """Padded buffers: ``pad`` elements after every ``interval`` (predicted by address model)."""
    ex = examples.get("transpose")
    rm = article_memory(None)
    out = []
    for pad in (1, 2, 4, 8):
        out.append(Case(f"padded-article-load-32p{pad}", "padded",
                        f"the article's column load from the row-major 16×32 fp32 buffer padded "
                        f"by {pad} word(s) per 32-word row", ex.load, rm, 32, "ld.shared",
                        padding=(32, pad)))
    out.append(Case("padded-article-store-32p1", "padded",
                    "the article's row store into the row-major buffer padded by 1 word per row",
                    ex.store, rm, 32, "st.shared", padding=(32, 1)))
    rows_vec = grid2(16, 64, {"register": [[0, 1], [0, 2], [0, 4]],
                              "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]]})
    out.append(Case("padded-rows-v4-64p8", "padded",
                    "ld.shared.v4 of row starts of a 16×64 fp16 tile padded by 16 bytes per "
                    "row (interval 64, pad 8)", rows_vec, row_major(16, 64), 16, "ld.shared",
                    padding=(64, 8)))
    out.append(Case("padded-ldmatrix-x4-64p8", "padded",
                    "ldmatrix.x4 from a 16×64 fp16 tile padded by 16 bytes per row: rows 144 "
                    "bytes apart, conflict-free", matrix_layout(16, False, 16, 64),
                    row_major(16, 64), 16, "ldmatrix.x4", padding=(64, 8)))
    out.append(Case("padded-stmatrix-x4-trans-64p8", "padded",
                    "stmatrix.x4.trans into a 16×64 fp16 tile padded by 16 bytes per row",
                    matrix_layout(16, True, 16, 64), row_major(16, 64), 16, "stmatrix.x4.trans",
                    padding=(64, 8)))
    return out


def triton_cases() -> list[Case]:
    """Triton's published cases (``test_bank_conflicts``), layouts as Triton 3.9 built them."""
    data = json.loads(TRITON_DATA.read_text(encoding="utf-8"))
    out = []
    for i, c in enumerate(data["bank_conflict_cases"]):
        reg, shared = LinearLayout.from_dict(c["reg"]), LinearLayout.from_dict(c["shared"])
        shape = "x".join(map(str, c["shape"]))
        kind = c["reg_attr"].split("(")[0]
        skind = c["shared_attr"].split("(")[0]
        ops = ("ld", "st") if c["expected"] else ("ld",)
        for op in ops:
            out.append(Case(
                f"triton-{i:02d}-{op}", "triton",
                f"Triton test_bank_conflicts case {i}: {kind} {shape} {c['bitwidth']}-bit via "
                f"{skind}; Triton expects {c['expected']} extra wavefront(s) per wavefront",
                reg, shared, c["bitwidth"], f"{op}.shared"))
    return out


def random_cases(count: int = 12, seed: int = 20240517) -> list[Case]:
    """Random (general, not only unit-vector) layouts from a fixed seed; kept when the access
    fits a kernel (≤ ``MAX_INSTRS`` instructions per warp, ≤ 48 KB)."""
    rng = random.Random(seed)
    out: list[Case] = []
    while len(out) < count:
        e = rng.choice([8, 16, 32, 64])
        d = rng.randint(8, 11)
        a = rng.randint(2, d - 2)
        dims = {"dim0": 1 << a, "dim1": 1 << (d - a)}
        mem_cols = _random_bijection(rng, d, unit=rng.random() < 0.5)
        warps = rng.randint(0, 2)
        cols = _random_bijection(rng, d, unit=rng.random() < 0.5)
        lanes, rest = cols[:5], cols[5:]
        lanes = [0 if rng.random() < 0.1 else x for x in lanes]
        wb, regs = rest[:warps], rest[warps:]
        bases = {"register": [_split(x, a) for x in regs], "lane": [_split(x, a) for x in lanes],
                 "warp": [_split(x, a) for x in wb]}
        layout = LinearLayout(bases, dims)
        memory = LinearLayout({"offset": [_split(x, a) for x in mem_cols]}, dims)
        op = rng.choice(["ld", "st"])
        rep = bank_conflicts(layout, memory, element_bits=e)
        if rep.instructions_per_warp > MAX_INSTRS or (e << d) // 8 > MAX_SMEM:
            continue
        out.append(Case(f"random-{len(out):02d}-{op}", "random",
                        f"random {1 << a}x{1 << (d - a)} {e}-bit layouts (seed {seed}), "
                        f"{1 << warps} warp(s)", layout, memory, e, f"{op}.shared"))
    return out


def _random_bijection(rng: random.Random, n: int, unit: bool) -> list[int]:
    if unit:
        cols = [1 << i for i in range(n)]
        rng.shuffle(cols)
        return cols
    while True:
        cols = [rng.getrandbits(n) for _ in range(n)]
        if f2.rank(cols) == n:
            return cols


def _split(flat: int, low_bits: int) -> list[int]:
    """A flat tensor index as ``[dim0, dim1]`` (dim0 in the low ``low_bits`` bits)."""
    return [flat & ((1 << low_bits) - 1), flat >> low_bits]


def pack_cases() -> list[Case]:
    """Probes of return packing on wide loads: lanes ``n`` and ``n ^ 1`` (or ``n ^ 2``) asking
    for the same address (a zero image of lane bit 0 or 1).

    NVIDIA's forum answer on shared-memory loads with uniform addresses (sm_70/75) says a wide
    ``LDS`` returns one register per wavefront, and that when all lane pairs ``(n, n^1)`` or all
    pairs ``(n, n^2)`` share their address the return is packed, halving the wavefronts; the
    broadcast probes above measured exactly that on sm_90 (``bcast-all-64bit-ld``: 1, not 2;
    ``bcast-all-128bit-ld``: 2, not 4). These cases separate the candidate rules: pairing by lane
    bit 0, 1 or 2; pairing with bank conflicts inside the packed phase; stores; vectors of
    narrower elements. Predictions in ``cases.json`` are the model's at generation time."""
    c = offsets_case
    return [
        c("pack-lane0-64bit-ld", "pack", "v2 load, lanes n and n^1 share 8 bytes, 16 distinct "
          "addresses in 128 contiguous bytes", 64, "ld.shared", lane=[0, 1, 2, 4, 8]),
        c("pack-lane1-64bit-ld", "pack", "v2 load, lanes n and n^2 share 8 bytes", 64,
          "ld.shared", lane=[1, 0, 2, 4, 8]),
        c("pack-lane2-64bit-ld", "pack", "v2 load, lanes n and n^4 share 8 bytes (not a "
          "packing pair)", 64, "ld.shared", lane=[1, 2, 0, 4, 8]),
        c("pack-lane01-64bit-ld", "pack", "v2 load, four lanes n, n^1, n^2, n^3 share 8 bytes",
          64, "ld.shared", lane=[0, 0, 1, 2, 4]),
        c("pack-lane0-split-64bit-ld", "pack", "v2 load, n and n^1 share; the two half-warps "
          "read the same banks 128 bytes apart", 64, "ld.shared", lane=[0, 1, 2, 4, 16]),
        c("pack-lane0-conflict-64bit-ld", "pack", "v2 load, n and n^1 share; lane bit 1 moves "
          "128 bytes (same banks)", 64, "ld.shared", lane=[0, 16, 1, 2, 4]),
        c("pack-lane0-64bit-st", "pack", "v2 store, lanes n and n^1 write the same 8 bytes", 64,
          "st.shared", lane=[0, 1, 2, 4, 8]),
        c("pack-lane0-32x2-ld", "pack", "32-bit elements in vectors of 2 (v2 load), lanes n and "
          "n^1 share", 32, "ld.shared", lane=[0, 2, 4, 8, 16], register=[1]),
        c("pack-lane0-16x4-ld", "pack", "16-bit elements in vectors of 4 (v2 load), lanes n and "
          "n^1 share", 16, "ld.shared", lane=[0, 4, 8, 16, 32], register=[1, 2]),
        c("pack-lane0-128bit-ld", "pack", "v4 load, lanes n and n^1 share 16 bytes, 16 distinct "
          "addresses in 256 contiguous bytes", 128, "ld.shared", lane=[0, 1, 2, 4, 8]),
        c("pack-lane1-128bit-ld", "pack", "v4 load, lanes n and n^2 share 16 bytes", 128,
          "ld.shared", lane=[1, 0, 2, 4, 8]),
        c("pack-lane2-128bit-ld", "pack", "v4 load, lanes n and n^4 share 16 bytes (not a "
          "packing pair)", 128, "ld.shared", lane=[1, 2, 0, 4, 8]),
        c("pack-lane0-split-128bit-ld", "pack", "v4 load, n and n^1 share; lane bit 3 moves 128 "
          "bytes (same banks)", 128, "ld.shared", lane=[0, 1, 2, 8, 4]),
        c("pack-lane01-128bit-ld", "pack", "v4 load, four lanes n..n^3 share 16 bytes", 128,
          "ld.shared", lane=[0, 0, 1, 2, 4]),
        c("pack-lane0-128bit-st", "pack", "v4 store, lanes n and n^1 write the same 16 bytes",
          128, "st.shared", lane=[0, 1, 2, 4, 8]),
        c("pack-lane0-32x4-ld", "pack", "32-bit elements in vectors of 4 (v4 load), lanes n and "
          "n^1 share", 32, "ld.shared", lane=[0, 4, 8, 16, 32], register=[1, 2]),
        c("pack-lane0-conflict-32bit-ld", "pack", "32-bit load, n and n^1 share, 4-way conflict "
          "(control: one register, nothing to pack)", 32, "ld.shared", lane=[0, 32, 64, 1, 2]),
        c("pack-lane0-2instr-64bit-ld", "pack", "two v2 loads per warp, lanes n and n^1 share "
          "in both", 32, "ld.shared", lane=[0, 2, 4, 8, 16], register=[1, 32]),
    ]


#: Cases whose multi-warp counts varied between launches on the first run: measured again
#: with the warps taking turns (``Case.serial``).
SERIAL_OF = ("triton-04-ld", "triton-06-ld", "triton-09-st", "triton-10-st", "random-02-st",
             "random-10-st")


def serial_cases() -> list[Case]:
    """The :data:`SERIAL_OF` cases again, warps taking turns (``serial-<name>``)."""
    from dataclasses import replace
    base = {c.name: c for build in (triton_cases, random_cases) for c in build()}
    return [replace(base[n], name="serial-" + n, category="serial",
                    description="warps take turns: " + base[n].description, serial=True)
            for n in SERIAL_OF]


CATEGORIES = {
    "width": width_cases, "stride": stride_cases, "subword": subword_cases,
    "broadcast": broadcast_cases, "warps": warp_cases, "matrix": matrix_cases,
    "article": article_cases, "tma": tma_cases, "padded": padded_cases,
    "triton": triton_cases, "random": random_cases, "pack": pack_cases,
    "serial": serial_cases,
}


def catalogue() -> list[Case]:
    """Every case, in category order; names are unique."""
    out = [c for build in CATEGORIES.values() for c in build()]
    names = [c.name for c in out]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"duplicate case names: {sorted(dup)}")
    return out
