"""What AMD's backend spends packing 8- and 16-bit elements into 32-bit registers around a
warp shuffle, and the byte permutes of an 8-bit conversion inside each thread.

Triton 3.9's ``transferWithinWarp`` (and gfx950's ``ConvertLayoutOpPermlaneSwap``) packs
``2**n_pack`` elements into one 32-bit register before the shuffles
(``insertelement`` + ``bitcast``, no instruction of its own; 8-bit elements in pairs are
zero-extended to 16 bits first). What that costs in the AMDGCN depends on where the elements
already sit: LLVM's AMDGPU backend assembles the register with ``v_perm_b32`` (any four
bytes of two registers) and ``v_lshl_or_b32`` (a high half shifted onto a low half whose top
bits are known zero), and spends nothing where the register is one the producer already
holds. A source loaded from global memory arrives in 32-bit registers of consecutive
addresses (LLVM merges the per-element loads of a contiguous run into one
``global_load_dword*``); a producer whose results are 32-bit shuffle results (a warp-local
gather's ``ds_bpermute_b32`` and 32-bit selects: ``wide``) leaves one element per register
with the upper bits unknown; any other producer is taken to leave one element per register,
zero-extended. A producer that computes its results (a scan, a reduction) says per register
what it left (``values`` of :func:`source_words`: :data:`RAW`, :data:`COMPUTED`,
:data:`CANONICAL`). Counted per packed register (:func:`pack_permutes`, checked on
``papers/triton_lowering/shuffle_probes.py``, ``producer_probes.py`` and
``amd_producer_probes.py``):

* 16-bit pair: 0 when both halves are already one register, in order; 0 (one
  ``v_bfi_b32``) when the low element sits in the low half of its register and the high one
  in the high half of a register computed from it (:data:`HIGH`); 0 when both are
  ``f16`` values LLVM knows to be canonical (:data:`CANONICAL`: the pair is one
  ``v_pack_b32_f16``, which LLVM selects only for such halves), or two gfx950 ``bf16``
  conversion results (one ``v_cvt_pk_bf16_f32``: a ``bf16`` min/max); else one ``v_perm_b32``;
* 8-bit pair (in 16-bit slots): 0 from two registers of zero-extended bytes
  (``v_lshl_or_b32``, or ``v_or_b32_sdwa`` picking each byte out of its register); one
  ``v_perm_b32`` when both bytes lie in one register, or when either is computed (its upper
  bits unknown: the permute zero-fills the bytes between). Where a byte is a loaded one
  sharing its register with other loaded bytes, LLVM builds the pair either with that one
  ``v_perm_b32`` or with shifts and masks (``v_alignbit_b32`` + ``v_and_b32``,
  ``v_bfe_u32``, ``v_lshl_or_b32``, SDWA ors), by the pair's place in the load, the load's
  width and the consumer; no rule on the bytes alone predicts which
  (:func:`pack_permute_bounds`: 0 to 1, the count above the upper end);
* four bytes: 0 when they are one register in order, or two 2-byte registers each in order
  (``v_lshl_or_b32``); one ``v_perm_b32`` when they come from two registers; 0 when each
  is the low byte of its own register whose upper bits are unknown (a 32-bit shuffle
  result, an arithmetic or select result: LLVM shifts and ors the bytes, ``v_lshlrev_b16``
  and ``v_or_b32_sdwa`` with ``BYTE_0``/``WORD_1`` operand selects, instead of the
  byte-provider ``v_perm_b32`` it matches on zero-extended bytes); from four registers of
  which some hold zero-extended bytes, one ``v_perm_b32`` per 16-bit half whose high byte
  is a zero-extended one; else one ``v_perm_b32`` per 16-bit half not already in order in
  one register, and a ``v_lshl_or_b32`` joining the halves;
* four bytes of one ``global_load_dwordx2`` (``SourceWord.load``): as AMDGPU instruction
  selection builds them, one ``v_perm_b32`` or 16-bit shifts and SDWA ors, by the bytes'
  places in the load (:func:`dwordx2_pack_permutes`); the same byte of each of the four
  words of one ``global_load_dwordx4``: :func:`dwordx4_column_permutes`; four bytes of
  four words of two 8- or 16-byte loads, each 16-bit half the same word of both loads and all
  at one byte offset (a round trip's stored word of two ``dwordx4`` rows): the measured table
  :func:`load_pair_column_permutes` (0, 1 or 2 by the words and the offset). All measured on
  small compiled kernels (``papers/triton_lowering/swap_pack_isel.py``).

Unpacking costs nothing at the convert (a store writes a high half with ``*_d16_hi``);
where a consumer needs the elements apart, the instructions it spends are its own.

An 8-bit conversion that only renames registers is, on AMD, ``ConvertLayoutOpInThreadSwap``
(``third_party/amd/lib/TritonAMDGPUToLLVM/ConvertLayoutOpToLLVM.cpp``): the source
registers are packed four at a time (as above, by where the producer left them; a register
moved whole is not packed at all), and each destination register is built with ``v_perm_b32``
— one from a single source register (none when its bytes are in place), one from two, and
from three or four: byte pairs, pairs merged into quads over two registers, and one final
permute (:func:`inthread_permutes`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._checks import instance_of, sequence_of
from ..errors import LayoutError
from ..layout import LinearLayout

__all__ = ["CANONICAL", "COMPUTED", "HIGH", "RAW", "SLOT_PAIR_REASON", "SourceWord",
           "VALUE_KINDS", "dwordx2_pack_permutes", "dwordx4_column_permutes",
           "inthread_permutes", "load_pair_column_permutes", "pack_permutes", "pack_permute_bounds", "pair_permutes",
           "permlane_pair_permutes", "slot_pair_permutes", "source_words"]

#: a value as it was loaded or moved: one element per register, zero-extended (a byte that
#: LLVM's byte-provider matching can pick with ``v_perm_b32``)
RAW = "raw"
#: a value computed in its register (an integer or float combine, a select, a shuffle
#: result, a value of another basic block): its bits above the element are unknown
COMPUTED = "computed"
#: a 16-bit float value that packs with another such in one instruction, no ``v_perm_b32``:
#: an ``f16`` value LLVM's AMDGPU back end knows to be canonical (``isCanonicalized`` of
#: ``SIISelLowering.cpp``: a float arithmetic result, or a select of two such within its
#: depth limit, in the same basic block; ``v_pack_b32_f16``), or a gfx950 ``bf16``
#: conversion result (``v_cvt_pk_bf16_f32``: of a ``bf16`` min or max)
CANONICAL = "canonical"
#: a 16-bit value in the high half of its 32-bit register, the low half unknown: a gfx942
#: ``bf16`` combine result, or a gfx950 ``bf16`` add, sub or mul (Triton computes in ``f32``
#: and rounds with integer ops, which leave the ``bf16`` in the ``f32``'s high half). LLVM joins
#: a value in a low half with such a high half by one ``v_bfi_b32`` (a bitfield insert, no
#: ``v_perm_b32``), two such high halves by one ``v_perm_b32`` (selector ``0x07060302``)
HIGH = "high"
#: the kinds a producer may leave in a register (:func:`source_words`, ``values``)
VALUE_KINDS = (RAW, COMPUTED, CANONICAL, HIGH)


@dataclass(frozen=True)
class SourceWord:
    """Where one source element sits when the convert starts.

    Attributes:
        word: identifies the 32-bit register (equal for elements in the same register).
        byte: the element's first byte in it.
        width_bytes: bytes of the register the producer filled (the rest known zero).
        opaque: the register is a 32-bit value computed from the element (a shuffle's
            result truncated, an arithmetic result): its bytes above the element are
            unknown, neither zero nor loaded bytes LLVM can track (``width_bytes`` is then 4).
        canonical: the element packs with another such for free (:data:`CANONICAL`).
        load: identifies the global load instruction that read the element (equal for
            elements of one contiguous run, one ``global_load_*`` of ``load_bytes`` bytes),
            None when the producer is not a load from global memory.
        load_bytes: bytes that load reads (4, 8 or 16; 0 when ``load`` is None).
        load_byte: the element's first byte in that load (0 … ``load_bytes - 1``).
        rank: the order in which Triton's IR loads the element (its register index: Triton
            emits a tensor's loads register by register), 0 when ``load`` is None.
        ordered: Triton's IR loads the bytes of the element's load in address order (the
            source's first register bases are the load's unit steps, lowest first).
    """

    word: tuple
    byte: int
    width_bytes: int
    opaque: bool = False
    canonical: bool = False
    load: tuple | None = None
    load_bytes: int = 0
    load_byte: int = 0
    rank: int = 0
    ordered: bool = False


def _register_columns(src: LinearLayout) -> list[int]:
    return [i for i, c in enumerate(src.dim_columns("register")) if c]


def source_words(src: LinearLayout, element_bits: int, contiguous_dim: int | None = None,
                 contiguity_elems: int = 1, *, wide: bool = False,
                 values: tuple[str, ...] | None = None) -> tuple[SourceWord, ...]:
    """The register each non-broadcast source register (in order) arrives in.

    Args:
        src: the source's distributed layout.
        element_bits: 8 or 16 (other widths are not packed).
        contiguous_dim: the out dim (index) along which the producer loaded consecutive
            addresses, or None when the producer is not a load from global memory.
        contiguity_elems: AxisInfo's contiguity of the load's pointer along that dim.
        wide: (without ``contiguous_dim``) the producer leaves each element in a 32-bit
            register whose upper bits are unknown (a 32-bit shuffle result truncated).
        values: (without ``contiguous_dim``) what the producer left in each non-broadcast
            register, in order (:data:`VALUE_KINDS`); it overrides ``wide``.

    Raises:
        LayoutError: ``src`` not a LinearLayout; ``contiguous_dim`` not one of its dims;
            ``values`` not one known kind per non-broadcast register.
    """
    instance_of(src, LinearLayout, "src")
    cols = _register_columns(src)
    if values is not None and (not isinstance(values, tuple) or len(values) != 1 << len(cols)
                               or any(v not in VALUE_KINDS for v in values)):
        raise LayoutError(f"values must be one of {VALUE_KINDS} per non-broadcast source "
                          f"register ({1 << len(cols)}), got {values!r}")
    elem_bytes = max(1, element_bits // 8)
    images = [src.bases["register"][i] for i in cols]
    if contiguous_dim is not None and not 0 <= contiguous_dim < len(src.out_dims):
        raise LayoutError(f"contiguous_dim {contiguous_dim} is not a dim of the source "
                          f"({dict(src.out_dims)})")
    run_bits = 0
    if contiguous_dim is not None:
        def unit(b: int) -> bool:
            return any(img[contiguous_dim] == 1 << b and
                       all(v == 0 for j, v in enumerate(img) if j != contiguous_dim)
                       for img in images)
        while (1 << (run_bits + 1)) <= max(1, contiguity_elems) and unit(run_bits):
            run_bits += 1
    per_word_bits = max(0, (4 // elem_bytes).bit_length() - 1)
    low = min(run_bits, per_word_bits)
    width = min(4, elem_bytes << run_bits)
    # one global_load_* reads at most 16 bytes of the run (dwordx4)
    load_bits = min(run_bits, (16 // elem_bytes).bit_length() - 1)
    ordered = contiguous_dim is not None and all(
        list(images[b]) == [1 << b if j == contiguous_dim else 0 for j in range(len(images[b]))]
        for b in range(load_bits))
    out = []
    for i in range(1 << len(cols)):
        full = sum(1 << cols[b] for b in range(len(cols)) if i >> b & 1)
        if contiguous_dim is None:
            kind = values[i] if values is not None else (COMPUTED if wide else RAW)
            out.append(SourceWord((i,), 0, elem_bytes) if kind == RAW else
                       SourceWord((i,), 2, 4, True) if kind == HIGH else
                       SourceWord((i,), 0, 4, True, kind == CANONICAL))
            continue
        coord = list(src.apply({"register": full}).values())
        x = coord[contiguous_dim]
        coord[contiguous_dim] = x >> low
        run = list(coord)
        run[contiguous_dim] = x >> load_bits
        out.append(SourceWord(tuple(coord), (x & ((1 << low) - 1)) * elem_bytes, width,
                              load=tuple(run), load_bytes=elem_bytes << load_bits,
                              load_byte=(x & ((1 << load_bits) - 1)) * elem_bytes,
                              rank=i, ordered=ordered))
    return tuple(out)


def pack_permutes(pack: tuple[SourceWord, ...], element_bits: int) -> int:
    """``v_perm_b32`` instructions LLVM spends assembling one packed register whose elements
    (low bytes first) sit where ``pack`` says (module docstring).

    Raises:
        LayoutError: not 2 or 4 elements of 8 or 16 bits, or ``pack`` not a list of
            :class:`SourceWord`.
    """
    pack = sequence_of(pack, SourceWord, "pack")
    if element_bits not in (8, 16) or len(pack) not in (2, 4) or \
            (element_bits == 16 and len(pack) != 2):
        raise LayoutError(f"a packed register holds 2 16-bit or 2 or 4 8-bit elements, got "
                          f"{len(pack)} of {element_bits} bits")
    if len(pack) == 2:
        a, b = pack
        if element_bits == 16:
            if a.word == b.word and (a.byte, b.byte) == (0, 2):
                return 0
            if a.byte == 0 and b.opaque and b.byte == 2:
                return 0  # a low half under a computed high half: one v_bfi_b32
            return 0 if a.canonical and b.canonical else 1  # v_pack_b32_f16
        # zero-extended bytes of two registers: v_or_b32_sdwa / v_lshl_or_b32; of one, or
        # computed ones (upper bits unknown): one v_perm_b32 zero-filling the other bytes
        return 1 if a.word == b.word or a.opaque or b.opaque else 0
    words = {w.word for w in pack}
    if len(words) == 1 and [w.byte for w in pack] == [0, 1, 2, 3]:
        return 0
    if all(w.load is not None and w.load == pack[0].load and w.load_bytes in (8, 16)
           and not w.opaque for w in pack):
        offsets = tuple(w.load_byte for w in pack)
        if pack[0].load_bytes == 8:
            return dwordx2_pack_permutes(offsets)
        if len({o // 4 for o in offsets}) == 4 and len({o % 4 for o in offsets}) == 1:
            return dwordx4_column_permutes(offsets)

    if len(words) == 4:
        n = _load_pair_column(pack)
        if n is not None:
            return n

    def in_order(h: tuple[SourceWord, SourceWord], low: bool) -> bool:
        return (h[0].word == h[1].word and (h[0].byte, h[1].byte) == (0, 1)
                and (h[0].width_bytes == 2 if low else True))

    halves = ((pack[0], pack[1]), (pack[2], pack[3]))
    if in_order(halves[0], True) and in_order(halves[1], False):
        return 0
    if len(words) <= 2:
        return 1
    if len(words) == 4 and any(w.opaque for w in pack):
        # low bytes of 32-bit values are shifted and ORed in (SDWA); a half whose high byte
        # is a zero-extended one is matched as a byte provider: one v_perm_b32
        return sum(0 if h[1].opaque else 1 for h in halves)
    return sum(0 if in_order(h, i == 0) else 1 for i, h in enumerate(halves))


#: why an 8-bit pair in 16-bit slots of loaded bytes has a range (:func:`pack_permute_bounds`)
SLOT_PAIR_REASON = (
    "8-bit pairs in 16-bit slots of loaded bytes: LLVM's SLP vectoriser may build two or "
    "more such registers as <2 x i32> vector ops (shifts and SDWA ors, no v_perm_b32) "
    "instead of one by one (slot_pair_permutes); its cost model decides, not the TTGIR")


def slot_pair_permutes(lo: SourceWord, hi: SourceWord) -> int | None:
    """``v_perm_b32`` LLVM's AMDGPU instruction selection spends building one 8-bit pair in
    16-bit slots, ``zext(lo) | zext(hi) << 16``, from loaded bytes, when the pair is built as
    scalar ``i32`` operations; None where not measured (then :func:`pack_permutes`).

    Measured by the loads' width ``w`` (``load_bytes``, the same for both) and the bytes'
    offsets ``i`` (``lo``) and ``j`` (``hi``) in them, ``a = i mod 4``, ``b = j mod 4``; for
    8- and 16-byte loads only where Triton's IR loads each load's bytes in address order
    (``ordered``), "``hi`` later" meaning it loads ``hi`` after ``lo`` (``rank``):

    * ``w = 1`` (each byte alone, zero-extended): 0 (``v_lshl_or_b32``);
    * ``w = 2``, one load or two: 0 when ``i = 1`` (the top byte: a shift right leaves it
      zero-extended); else 1;
    * ``w = 4``, one load or two: 0 when ``i = 2`` and ``b`` is 0 or 3 (``v_alignbit_b32``
      + ``v_and_b32``); else 1;
    * ``w = 8`` or ``16``: 0 when ``a = 2`` and ``b = 0``, or ``a`` is 2 or 3, ``b = 1`` and
      ``hi`` later, or ``a = 2``, ``b = 3`` and ``hi`` earlier (a ``v_alignbit_b32`` funnel
      shift of two loaded words, masked), or, in one load, ``j = i + 2`` with ``a`` 0 or 1
      (a ``v_and_b32`` mask of 0x00ff00ff); else 1.

    Measured exhaustively on small kernels compiled by Triton 3.9's LLVM back end
    (``papers/triton_lowering/swap_pack_isel.py --slot-table``: every ordered pair of one
    2-, 4-, 8- and 16-byte load and of two such loads, gfx942 and gfx950 alike), additive
    over the pairs of one kernel (random pairings of 4, 8 and 16 loaded bytes, stored whole
    or swapped as ``transferWithinWarp`` does). For 2- and 4-byte loads the order in which
    the IR loads the bytes changes nothing (every pair re-measured with the loads reversed
    and with each load's bytes reversed: 108 kernels, all equal); for 8- and 16-byte loads
    it changes most counts (10 of 17 pairs re-measured in reverse order differ), so bytes
    loaded out of address order are not predicted (None). The pattern is SelectionDAG's (which byte extracts it folds into a mask or
    a funnel shift before ``SIISelLowering.cpp``'s ``v_perm_b32`` matching), read off the
    measurement, not derived from LLVM's source.

    Raises:
        LayoutError: ``lo`` or ``hi`` not a SourceWord.
    """
    instance_of(lo, SourceWord, "lo")
    instance_of(hi, SourceWord, "hi")
    if lo.opaque or hi.opaque or lo.canonical or hi.canonical:
        return None
    if lo.load is None or hi.load is None:
        return 0 if (lo.word != hi.word and lo.width_bytes == hi.width_bytes == 1) else None
    w = lo.load_bytes
    if hi.load_bytes != w or w not in (1, 2, 4, 8, 16):
        return None
    i, j = lo.load_byte, hi.load_byte
    a, b = i % 4, j % 4
    if w == 1:
        return 0
    if w == 2:
        return 0 if i == 1 else 1
    if w == 4:
        return 0 if i == 2 and b in (0, 3) else 1
    if not (lo.ordered and hi.ordered):
        return None
    later = hi.rank > lo.rank
    zero = ((a == 2 and b == 0) or (a in (2, 3) and b == 1 and later)
            or (a == 2 and b == 3 and not later)
            or (lo.load == hi.load and j == i + 2 and a in (0, 1)))
    return 0 if zero else 1


def permlane_pair_permutes(lo: SourceWord, hi: SourceWord) -> int:
    """``v_perm_b32`` LLVM's AMDGPU instruction selection spends building one 8-bit pair in
    16-bit slots as gfx950's ``ConvertLayoutOpPermlaneSwap`` asks for it: one, wherever the
    two bytes sit.

    That lowering zero-extends each byte to ``i16`` and joins the two with
    ``insertelement <2 x i16>`` (after ``-O3``: a ``shufflevector`` of the two ``<1 x i8>``
    loads and ``zext <2 x i8> to <2 x i16>``), a ``v2i16`` ``build_vector`` of two
    zero-extended bytes, which the back end matches as one byte-selecting ``v_perm_b32``.
    ``transferWithinWarp`` builds its pairs as scalar ``i32`` operations instead
    (``zext``/``shl``/``or``), which the back end may build with shifts and masks
    (:func:`slot_pair_permutes`: 0 for some byte places). Measured with
    ``papers/triton_lowering/swap_pack_isel.py --permlane-pairs`` on gfx950: every ordered
    pair of bytes of one 2-, 4-, 8- and 16-byte load (310) and of two 1- or 2-byte loads
    (10), stored whole: one ``v_perm_b32`` each in the ``insertelement`` form (and in the
    ``-O3`` form, measured for the 2- and 4-byte loads and the two loads), where the scalar
    form costs 0 for 62 of them; the same with the pair moved by ``v_permlane16_swap``.

    Raises:
        LayoutError: ``lo`` or ``hi`` not a SourceWord.
    """
    instance_of(lo, SourceWord, "lo")
    instance_of(hi, SourceWord, "hi")
    return 1


def pair_permutes(lo: SourceWord, hi: SourceWord) -> int:
    """``v_perm_b32`` of one 8-bit pair in 16-bit slots as ``check`` counts it:
    :func:`slot_pair_permutes` where measured, else :func:`pack_permutes`.

    Raises:
        LayoutError: ``lo`` or ``hi`` not a SourceWord.
    """
    n = slot_pair_permutes(lo, hi)
    return pack_permutes((lo, hi), 8) if n is None else n


def pack_permute_bounds(pack: tuple[SourceWord, ...], element_bits: int, *,
                        vectorisable: bool = False) -> tuple[int, int]:
    """``(low, high)``: the fewest and the most ``v_perm_b32`` LLVM may spend assembling one
    packed register where ``check``'s count (:func:`pair_permutes` for an 8-bit pair,
    else :func:`pack_permutes`, between the two) is not decided by the TTGIR; ``(n, n)``
    where it is.

    An 8-bit pair in 16-bit slots of loaded bytes (not computed, not each alone in a
    zero-extended register):

    * not measured (:func:`slot_pair_permutes` None: loads of unequal widths, bytes Triton
      loads out of address order): 0 or 1. Shifts and masks build any such pair with no
      ``v_perm_b32``; one ``v_perm_b32`` (zero bytes by selector ``0x0c``) builds it whole
      from its at most two registers, and LLVM's matching (``matchPERM`` on an ``or`` of
      byte providers) makes at most one for one ``or`` tree;
    * measured at 1, with ``vectorisable`` (the convert packs two or more registers, which
      LLVM's SLP vectoriser may build together as ``<2 x i32>`` operations): 0 or 1 — the
      vector build is selected as shifts and SDWA ors, no ``v_perm_b32`` (measured on
      gfx942 and gfx950 converts whose ``-O3`` IR has the vector build: 2 of the fixture
      probes and 13 of 40 of a fresh draw of shuffles packing two bytes a register, every
      one at this low end; ``papers/triton_lowering/amd_byte_pack_probes.py``); SLP's cost
      model, not the TTGIR, decides whether it does.

    Raises:
        LayoutError: as :func:`pack_permutes`; ``vectorisable`` not a bool.

    Source: the AMDGPU instruction selection measured above (LLVM's ``v_perm_b32``
    matching and SLP vectoriser, Triton 3.9's LLVM; ``papers/triton_lowering/
    swap_pack_isel.py`` and ``amd_byte_pack_probes.py``).
    """
    if not isinstance(vectorisable, bool):
        raise LayoutError(f"vectorisable must be True or False, got {vectorisable!r}")
    pack = sequence_of(pack, SourceWord, "pack")
    if element_bits == 8 and len(pack) == 2:
        a, b = pack
        n = pair_permutes(a, b)
        loaded = not (a.opaque or b.opaque) and not (
            a.word != b.word and a.width_bytes == 1 and b.width_bytes == 1)
        if loaded and (slot_pair_permutes(a, b) is None or (n and vectorisable)):
            return 0, 1
        return n, n
    n = pack_permutes(pack, element_bits)
    return n, n


def dwordx2_pack_permutes(offsets: tuple[int, ...]) -> int:
    """``v_perm_b32`` LLVM's AMDGPU instruction selection spends building one 32-bit register
    of four bytes (low byte first) taken from one ``global_load_dwordx2``: ``offsets`` are
    the bytes' offsets in the 8 loaded bytes (word 0: 0-3, word 1: 4-7).

    0 when the four bytes are one loaded word in order, or when a 16-bit half of the
    register has the load's first byte (offset 0) as its high byte, or has it as its low
    byte under a byte of word 1 while the other half is not wholly of word 1: SelectionDAG
    then assembles the register with 16-bit shifts and SDWA ors (``v_lshlrev_b16``,
    ``v_or_b32_sdwa``, ``v_and_b32_sdwa`` with ``BYTE_0``/``WORD_1`` selects; on gfx950
    also ``v_bitop3_b16``) instead of matching a ``v_perm_b32``; 1 otherwise. Measured
    on every one of the 1680 ordered choices of four of the eight bytes, on gfx942 and
    gfx950 alike, and additive over the registers a kernel packs from one load (200 random
    two-register kernels, each stored whole, shuffled by DPP and swapped as Triton's
    ``transferWithinWarp`` does), with ``papers/triton_lowering/swap_pack_isel.py``; the
    probes it explains compile to the same AMDGCN with Triton's ``-O3`` middle end skipped,
    so instruction selection, not the middle end, decides. Where the bytes come from a 4-
    or 16-byte load the rule does not hold (from a ``dwordx4`` the register ``(w0.b0,
    w1.b0, w0.b1, w1.b1)`` keeps its ``v_perm_b32``; :func:`dwordx4_column_permutes` is
    that load's measured case);
    :func:`pack_permutes` applies it only to 8-byte loads.

    Raises:
        LayoutError: not four distinct offsets in ``0 … 7``.

    Source: LLVM's AMDGPU SelectionDAG lowering of an ``i8`` vector build
    (``SIISelLowering.cpp``: ``v_perm_b32`` is matched from byte providers of an ``or``
    tree, ``performOrCombine``/``matchPERM``), measured on the LLVM Triton 3.9.0 ships.
    """
    if not isinstance(offsets, tuple) or len(offsets) != 4 or len(set(offsets)) != 4 or \
            any(isinstance(o, bool) or not isinstance(o, int) or not 0 <= o < 8
                for o in offsets):
        raise LayoutError(f"a packed register takes four distinct bytes of the eight a "
                          f"dwordx2 load reads, got {offsets!r}")
    if offsets in ((0, 1, 2, 3), (4, 5, 6, 7)):
        return 0
    halves = (offsets[:2], offsets[2:])
    for k, (lo, hi) in enumerate(halves):
        if hi == 0:
            return 0
        if lo == 0 and hi >= 4 and not all(o >= 4 for o in halves[1 - k]):
            return 0
    return 1


def dwordx4_column_permutes(offsets: tuple[int, ...]) -> int:
    """``v_perm_b32`` LLVM's AMDGPU instruction selection spends building one 32-bit register
    of four bytes (low byte first) that are the same byte of each of the four words one
    ``global_load_dwordx4`` reads (``offsets``: the bytes' offsets in the 16 loaded bytes,
    ``4·word + k`` with one ``k``): one when the low 16-bit half pairs two words eight bytes
    apart (words 0 and 2, or 1 and 3: a ``v_perm_b32`` zero-filling the upper half), 0
    otherwise (16-bit shifts and SDWA ors, joined by ``v_lshl_or_b32``). Measured on all 24
    word orders at each of the four byte offsets, gfx942 and gfx950, and on Triton's packings
    of a 16-byte load (``papers/triton_lowering/swap_pack_isel.py``).

    Raises:
        LayoutError: not one byte of each word at one offset in ``0 … 15``.

    Source: LLVM's AMDGPU SelectionDAG lowering of an ``i8`` vector build
    (``SIISelLowering.cpp``), measured on the LLVM Triton 3.9.0 ships.
    """
    if not isinstance(offsets, tuple) or len(offsets) != 4 or \
            any(isinstance(o, bool) or not isinstance(o, int) or not 0 <= o < 16
                for o in offsets) or \
            len({o // 4 for o in offsets}) != 4 or len({o % 4 for o in offsets}) != 1:
        raise LayoutError(f"a packed register of a dwordx4 load's column takes one byte at one "
                          f"offset of each of its four words, got {offsets!r}")
    return 1 if (offsets[0] ^ offsets[1]) == 8 else 0


#: :func:`load_pair_column_permutes`'s measured counts: ``(load_bytes, i, j)`` -> the count
#: for byte offset ``k = 0 … 3``; pairs of words whose count depends on which load is at the
#: lower address are left out (not predicted)
_LOAD_PAIR_COLUMNS = {
    (8, 0, 1): (0, 1, 1, 1), (8, 1, 0): (0, 1, 1, 1),
    (16, 0, 1): (1, 1, 1, 1), (16, 0, 3): (1, 1, 1, 1), (16, 1, 0): (1, 1, 1, 1),
    (16, 1, 3): (1, 0, 1, 0), (16, 2, 0): (2, 2, 2, 2), (16, 2, 1): (1, 1, 1, 1),
    (16, 2, 3): (1, 1, 1, 1), (16, 3, 0): (2, 1, 2, 1), (16, 3, 1): (1, 0, 1, 0),
    (16, 3, 2): (1, 1, 1, 1),
}


def load_pair_column_permutes(load_bytes: int, words: tuple[int, int], byte: int) -> int | None:
    """``v_perm_b32`` LLVM's AMDGPU instruction selection spends building one 32-bit register
    of four bytes, each from its own loaded word, taken from two loads ``A`` and ``B`` of
    ``load_bytes`` bytes each (``global_load_dwordx2`` or ``dwordx4``) as ``(A.wi, B.wi,
    A.wj, B.wj)`` or with either half's two bytes the other way round: each 16-bit half
    holds the same word of both loads (``words = (i, j)``, the words' indices in their
    loads, ``i != j``), and all four bytes sit at one byte offset ``byte`` (``k``) of their
    words. None where not measured or where the count depends on which of the two loads, the
    lower-addressed or the other, gives the upper half's low byte (``(i, j)`` of ``(0, 2)``
    and ``(1, 2)`` of a 16-byte load: 1 or 2; the source words do not say which load is
    lower).

    A table read off the measurement, not a derived rule: 8-byte loads, 0 at ``k = 0`` and
    1 otherwise; 16-byte loads, 1 for ``(i, j)`` of ``(0, 1)``, ``(1, 0)``, ``(0, 3)``,
    ``(2, 1)``, ``(2, 3)``, ``(3, 2)``; 2 for ``(2, 0)``; ``2, 1, 2, 1`` by ``k`` for
    ``(3, 0)``; ``1, 0, 1, 0`` for ``(1, 3)`` and ``(3, 1)``. Measured on every such word pair,
    half orientation and ``k`` (``papers/triton_lowering/swap_pack_isel.py --load-pairs``,
    224 registers), gfx942 and gfx950 alike, and with the loads' bytes loaded in reverse
    order alike (unlike :func:`slot_pair_permutes`, the IR's load order changes nothing).
    SelectionDAG builds one half with ``v_perm_b32`` or with a 16-bit shift and an SDWA or
    (``v_lshlrev_b16`` + ``v_or_b32_sdwa``) and joins the halves with ``v_lshl_or_b32``;
    which half gets which follows no rule on the bytes found here.

    Raises:
        LayoutError: ``load_bytes`` not 8 or 16; ``words`` not two distinct word indices of
            such a load; ``byte`` not 0 … 3.

    Source: LLVM's AMDGPU SelectionDAG lowering of an ``i8`` vector build
    (``SIISelLowering.cpp``), measured on the LLVM Triton 3.9.0 ships.
    """
    if load_bytes not in (8, 16) or isinstance(load_bytes, bool):
        raise LayoutError(f"load_bytes must be 8 or 16, got {load_bytes!r}")
    if not isinstance(words, tuple) or len(words) != 2 or words[0] == words[1] or any(
            isinstance(w, bool) or not isinstance(w, int) or not 0 <= w < load_bytes // 4
            for w in words):
        raise LayoutError(f"words must be two distinct word indices of a {load_bytes}-byte "
                          f"load, got {words!r}")
    if isinstance(byte, bool) or not isinstance(byte, int) or not 0 <= byte < 4:
        raise LayoutError(f"byte must be 0 … 3, got {byte!r}")
    row = _LOAD_PAIR_COLUMNS.get((load_bytes, *words))
    return None if row is None else row[byte]


def _load_pair_column(pack: tuple[SourceWord, ...]) -> int | None:
    """:func:`load_pair_column_permutes` of four loaded bytes in that shape, else None."""
    if any(w.load is None or w.opaque or w.canonical for w in pack):
        return None
    n = pack[0].load_bytes
    if n not in (8, 16) or any(w.load_bytes != n for w in pack):
        return None
    loads = {w.load for w in pack}
    if len(loads) != 2 or len({w.load_byte % 4 for w in pack}) != 1:
        return None
    halves = ((pack[0], pack[1]), (pack[2], pack[3]))
    if any(lo.load == hi.load or lo.load_byte != hi.load_byte for lo, hi in halves):
        return None
    i, j = (h[0].load_byte // 4 for h in halves)
    if i == j:
        return None
    return load_pair_column_permutes(n, (i, j), pack[0].load_byte % 4)


def inthread_permutes(conversion: list[int], words: tuple[SourceWord, ...]) -> int:
    """``v_perm_b32`` instructions of ``ConvertLayoutOpInThreadSwap`` for an 8-bit register
    renaming, ``conversion[d]`` = the source register of destination register ``d`` (a
    permutation of ``0 … 4k-1``), with the packing (:func:`pack_permutes`, ``words``:
    :func:`source_words`) of every source register a permute reads; a source register moved
    whole costs nothing (its packing and unpacking fold away).

    Raises:
        LayoutError: not a permutation of a multiple of four registers, or ``words`` not one
            per register.
    """
    n = len(conversion)
    if n % 4 or sorted(conversion) != list(range(n)) or len(words) != n:
        raise LayoutError("ConvertLayoutOpInThreadSwap needs a permutation of 4k registers "
                          "and the place of each")
    regs = [[divmod(conversion[r * 4 + b], 4) for b in range(4)] for r in range(n // 4)]
    first: dict = {}  # first-level permute -> the source bytes it picks
    needed: set[int] = set()
    left = []
    for i, reg in enumerate(regs):
        srcs = {r for r, _ in reg}
        if len(srcs) == 1:
            if any(byte != b for b, (_, byte) in enumerate(reg)):
                first[("one", tuple(reg))] = reg
            # else a whole source register moves: its pack and unpack fold away
        elif len(srcs) == 2:
            first[("two", tuple(reg))] = reg
        else:
            left.append(i)
    # byte pairs of every register left, merged into quads over two source registers
    pairs = [(regs[i][2 * h], regs[i][2 * h + 1]) for i in left for h in range(2)]
    where = {}
    for k, p in enumerate(pairs):
        for loc in p:
            where[loc] = k
    merged = [False] * len(pairs)
    for k, p in enumerate(pairs):
        if merged[k]:
            continue
        reg0, byte0 = p[0]
        for b in range(4):
            if b == byte0:
                continue
            other = where.get((reg0, b))
            if other is None or merged[other]:
                continue
            rs = {r for r, _ in p}
            if all(r in rs for r, _ in pairs[other]):
                merged[other] = merged[k] = True
                first[("quad", k)] = list(pairs[other]) + list(p)
                break
    for k, p in enumerate(pairs):
        if not merged[k]:
            first[("pair", k)] = list(p)
    for picked in first.values():
        needed |= {r for r, _ in picked}
    packs = sum(pack_permutes(tuple(words[4 * r:4 * r + 4]), 8) for r in sorted(needed))
    return len(first) + len(left) + packs
