"""The byte extracts of an 8-bit reduction's last shared-memory load, as its consumer widens
them (:func:`widen_loaded_bytes`).

A ``tt.reduce`` whose move to the result layout goes through shared memory unpacks each
loaded 32-bit word of 8-bit results with four ``extractelement`` s on the reduce's line
(Triton 3.9, ``lowerLdStShared``), which ``check`` counts as four ``prmt.b32``
(:func:`linlayout.lowering.round_trip_pack.round_trip_permutes`). What NVPTX selects for
them depends on how their readers widen them (:mod:`linlayout.lowering.byte_extracts`;
LLVM's instruction selection, not Triton). When the reduction's only reader is a
``convert_layout`` on the warp-shuffle path that packs two 8-bit elements per 32-bit
register (``transferWithinWarp``: the low element zero-extended, the high one zero-extended
and shifted by 16, joined with an ``or``), a byte 0 that is only ever the low element of
such a pair is widened by the ``or`` alone, and NVPTX selects ``and.b32 w, 0xff`` on the
convert's line instead of a ``prmt.b32`` on the reduce's. When it is a convert through
shared memory that stores 32-bit words, a stored word built from the loaded bytes is a byte
shuffle of those words (one ``prmt.b32`` on the convert's line for at most two words, one
per further word beyond, where Triton's byte-by-byte build spends three) and its bytes'
extracts die
(:func:`linlayout.lowering.byte_extracts.built_word_permutes`); the same holds for a
warp-shuffle convert that packs four of those bytes into each register it moves
(:func:`shuffled_word_sources`). When it stores byte pairs
(``st.shared.v2.b8``), a pair that is one 16-bit half of a loaded word has its two extracts
selected on the convert's line (:func:`linlayout.lowering.byte_extracts.pair_is_half_word`).
When it stores single bytes (``st.shared.b8``), a loaded byte 0 is the register's low byte,
no ``prmt.b32``.

The other way round, an 8-bit convert through shared memory whose loaded bytes the next
reduction reads first: by a signed in-thread ``min``/``max`` (byte 0 a ``cvt.s8.s32``), by
a ``redux.sync`` round (byte 0 free under a partitioned round of identity 0; a signed
round's extracts on the reduction's line, byte 0 free) or by a signed butterfly round (two
``prmt.b32`` per byte). The same rules read the bytes of an 8-bit convert that stays in
registers on NVIDIA's warp-shuffle path with four elements per shuffled register
(:func:`shuffled_byte_positions`): it unpacks each moved word with a ``bitcast`` to
``<4 x i8>`` and one ``extractelement`` per byte, as a load's unpacking, and NVPTX selects
those extracts the same way for every reader kind (measured on shuffled and selected words).
Read first by an in-thread ``and`` step, or an ``add``/``xor``/``or`` step before a
partitioned ``redux.sync`` round of identity 0, byte 0 of each word is free (read off
compiled kernels: ``_in_thread_zero_reads``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from ... import f2
from ..._checks import instance_of, sequence_of, string
from ...errors import LayoutError
from ...layout import LinearLayout
from ...lowering.byte_extracts import (built_word_permutes, byte_extract_permutes,
                                       pair_is_half_word)
from ...lowering.emitted import Emitted
from ...lowering.convert import convert_path
from ...lowering.round_trip_pack import words_loaded
from ...lowering.scratch import drop_broadcast_registers
from ...lowering.shuffle import unpacked_bytes
from ...lowering.target import Target
from ...lowering.vectorise import access_map
from ...triton.ttgir import Access
from ..shared_memory.predict import Prediction, predict_convert, to_offsets, triton_emitted
from ..shared_memory.reduce import reduce_steps

__all__ = ["loaded_byte_positions", "pack_byte_readers", "shuffled_byte_positions",
           "shuffled_word_sources", "stored_pair_sources", "stored_word_sources",
           "widen_loaded_bytes"]

_AXIS = re.compile(r"axis\s*=\s*(\d+)")


def loaded_byte_positions(src: LinearLayout, dst: LinearLayout, target: Target
                          ) -> tuple[int, ...] | None:
    """Per non-broadcast register of ``dst`` (in order), the byte of its 32-bit word that a
    convert of 8-bit elements from ``src`` through shared memory loads it into, or None when
    that convert does not load every register as part of a 32-bit word (it stays in
    registers, or loads sub-word vectors).

    Source: Triton 3.9's round trip through shared memory
    (``ConvertLayoutOpToLLVM.cpp``, ``lowerLdStShared``) as
    :func:`linlayout.lowering.round_trip_pack.words_loaded` predicts its loads.

    Raises:
        LayoutError: the layouts do not describe the same tensor; an argument of the wrong
            type.
    """
    pred = predict_convert(src, dst, 8, target)
    if pred.plan is None:
        return None
    lean = drop_broadcast_registers(dst)
    loads = triton_emitted(pred.sides, "load")
    m = access_map(lean, to_offsets(pred.plan.memory), 8)
    if 4 * words_loaded(loads) != m.registers_per_thread:
        return None
    return tuple(offset & 3 for offset in f2.images(m.registers))


def _byte_shuffle(src: LinearLayout, dst: LinearLayout, target: Target):
    """Triton's warp-shuffle lowering of an 8-bit convert on NVIDIA that packs four bytes
    to a shuffled register (``n_pack == 2``), else None."""
    instance_of(target, Target, "target")
    if not target.is_nvidia:
        return None
    path = convert_path(src, dst, 8, target)
    low = path.lowering
    if path.path != "shuffle" or low is None or low.decomposition.n_pack != 2:
        return None
    return low


def shuffled_byte_positions(src: LinearLayout, dst: LinearLayout, target: Target
                            ) -> tuple[int, ...] | None:
    """The bytes a convert of 8-bit elements from ``src`` to ``dst`` on NVIDIA's warp-shuffle
    path takes out of its moved 32-bit registers: per destination register unpacked from a
    shuffled or selected word of four bytes (``transferWithinWarp`` with ``n_pack`` 2: a
    ``bitcast`` to ``<4 x i8>`` and one ``extractelement`` per byte, the same IR as a
    shared-memory load's unpacking), its byte of that word, in order; None where the
    convert takes another path, packs fewer than four elements per register, or moves no
    packed word (registers it does not unpack from a moved word are left out).

    NVPTX selects these extracts as it selects a loaded word's, reader by reader
    (:mod:`linlayout.lowering.byte_extracts`; measured by
    ``papers/triton_lowering/byte_extract_isel.py`` on shuffled and selected words).

    Raises:
        LayoutError: the layouts do not describe the same tensor; an argument of the wrong
            type.

    Source: ``transferWithinWarp`` (``ConvertLayoutOpToLLVM.cpp``), Triton 3.9, as its LLVM
    IR before ``-O3`` shows (:func:`linlayout.lowering.shuffle.unpacked_bytes`).
    """
    low = _byte_shuffle(src, dst, target)
    if low is None:
        return None
    bytes_at = tuple(b for b in unpacked_bytes(low) if b is not None)
    return bytes_at or None


def _loaded_words(src: LinearLayout, dst: LinearLayout, target: Target
                  ) -> list[tuple[int, int]] | None:
    """Per non-broadcast register of ``dst``: ``(word, byte)`` — which 32-bit word of the
    thread's loads (by offset) and which byte of it — or None (:func:`loaded_byte_positions`)."""
    if loaded_byte_positions(src, dst, target) is None:
        return None
    pred = predict_convert(src, dst, 8, target)
    m = access_map(drop_broadcast_registers(dst), to_offsets(pred.plan.memory), 8)
    return [(offset >> 2, offset & 3) for offset in f2.images(m.registers)]


def stored_word_sources(src: LinearLayout, dst: LinearLayout, target: Target
                        ) -> list[tuple[int, ...]] | None:
    """Per 32-bit word that a convert of 8-bit elements from ``src`` to ``dst`` through
    shared memory stores, its four non-broadcast source registers, low byte first; None where
    the convert stays in registers or stores vectors under 4 bytes (no word is built).

    Raises:
        LayoutError: the layouts do not describe the same tensor; an argument of the wrong
            type.
    """
    return _stored_groups(src, dst, target, 4, lambda n_bytes: n_bytes >= 4)


def shuffled_word_sources(src: LinearLayout, dst: LinearLayout, target: Target
                          ) -> list[tuple[int, ...]] | None:
    """Per 32-bit register that a convert of 8-bit elements from ``src`` to ``dst`` on
    NVIDIA's warp-shuffle path packs four elements into (``transferWithinWarp``, ``n_pack``
    2: an ``insertelement`` build of a ``<4 x i8>`` and a ``bitcast`` to ``i32``), its four
    non-broadcast source registers, low byte first — the same build a convert through shared
    memory makes of a stored word (:func:`stored_word_sources`); None where the convert
    takes another path or packs fewer elements per register.

    Raises:
        LayoutError: the layouts do not describe the same tensor; an argument of the wrong
            type.

    Source: ``transferWithinWarp`` (``ConvertLayoutOpToLLVM.cpp``), Triton 3.9, as its LLVM
    IR before ``-O3`` shows (:attr:`linlayout.lowering.shuffle.WarpShuffleLowering.packs`).
    """
    low = _byte_shuffle(src, dst, target)
    if low is None:
        return None
    return [tuple(p) for p in low.packs]


def stored_pair_sources(src: LinearLayout, dst: LinearLayout, target: Target
                        ) -> list[tuple[int, int]] | None:
    """Per 2-byte vector (``st.shared.v2.b8``) that a convert of 8-bit elements from ``src``
    to ``dst`` through shared memory stores, its two non-broadcast source registers, low byte
    first; None where the convert stays in registers or stores other widths.

    Raises:
        LayoutError: the layouts do not describe the same tensor; an argument of the wrong
            type.
    """
    return _stored_groups(src, dst, target, 2, lambda n_bytes: n_bytes == 2)


def _stored_groups(src: LinearLayout, dst: LinearLayout, target: Target, n: int,
                   fits: Callable[[int], bool]) -> list | None:
    """The non-broadcast registers of ``src`` grouped by the ``n``-byte vector a convert of
    8-bit elements to ``dst`` through shared memory stores them in, low byte first; None where
    the convert stays in registers, stores nothing, stores a vector whose bytes per lane (0
    when unknown) do not satisfy ``fits``, or a group is not full."""
    pred = predict_convert(src, dst, 8, target)
    if pred.plan is None:
        return None
    stores = list(triton_emitted(pred.sides, "store"))
    if not stores or not all(fits(e.bytes_per_lane or 0) for e in stores):
        return None
    m = access_map(drop_broadcast_registers(src), to_offsets(pred.plan.memory), 8)
    groups: dict[int, list[tuple[int, int]]] = {}
    for r, offset in enumerate(f2.images(m.registers)):
        groups.setdefault(offset // n, []).append((offset % n, r))
    if any(len(g) != n for g in groups.values()):
        return None
    return [tuple(r for _, r in sorted(g)) for _, g in sorted(groups.items())]


def pack_byte_readers(src: LinearLayout, dst: LinearLayout, target: Target
                      ) -> dict[int, frozenset[str]] | None:
    """``{non-broadcast register of src: its reader kinds}``
    (:data:`linlayout.lowering.byte_extracts.BYTE_READERS`) for a convert of 8-bit elements
    on NVIDIA's warp-shuffle path that packs two elements per 32-bit register
    (``transferWithinWarp``: ``zext``, ``shl`` by 16, ``or``): the low element of a pair is
    read by the ``or`` (``"zext_arith"``), the high one through the shift, and an element
    packed alone as it is (``"zext"``). None where the convert takes another path or packs
    otherwise; registers it does not pack are left out.

    Raises:
        LayoutError: the layouts do not describe the same tensor; an argument of the wrong
            type.

    Source: ``transferWithinWarp`` (``ConvertLayoutOpToLLVM.cpp``), Triton 3.9, as its LLVM
    IR before ``-O3`` shows.
    """
    instance_of(target, Target, "target")
    path = convert_path(src, dst, 8, target)
    low = path.lowering
    if not target.is_nvidia or path.path != "shuffle" or low is None \
            or low.decomposition.n_pack != 1:
        return None
    out: dict[int, set[str]] = {}
    for pack in low.packs:
        for slot, r in enumerate(pack):
            kind = "zext_arith" if slot == 0 and len(pack) > 1 else "zext"
            out.setdefault(r, set()).add(kind)
    return {r: frozenset(k) for r, k in out.items()}


def widen_loaded_bytes(pairs: list, text: str, target: Target) -> list:
    """``pairs`` (``(Access, Prediction | LayoutError)``, as
    :func:`~linlayout.check.shared_memory.ops.predict_module` builds them) with each NVIDIA
    8-bit one-operand ``tt.reduce`` whose move to the result layout loads 32-bit words
    (:func:`loaded_byte_positions`) and whose result's only use is one convert charged what
    NVPTX selects for its loaded bytes: read by a shuffle convert packing two elements per
    register (:func:`pack_byte_readers`), a ``prmt.b32`` fewer per byte 0 read only by the
    packing ``or`` (:func:`linlayout.lowering.byte_extracts.byte_extract_permutes`); stored
    one byte at a time (``st.shared.b8``) by a convert through shared memory, a
    ``prmt.b32`` fewer per stored byte 0 (the store writes the word's low byte); stored
    by a convert through shared memory as words (:func:`stored_word_sources`) or packed four
    to a register by a shuffle convert (:func:`shuffled_word_sources`), four extracts
    fewer on the reduce per built word and, on the convert, three less the byte shuffles of
    its loaded words
    (:func:`linlayout.lowering.byte_extracts.built_word_permutes`); stored as byte pairs
    (:func:`stored_pair_sources`), two extracts moved from the reduce's line to the
    convert's per pair that is one half of a loaded word
    (:func:`linlayout.lowering.byte_extracts.pair_is_half_word`). Then each 8-bit convert
    through shared memory whose loaded bytes the next reduction reads first: by a signed
    in-thread ``min``/``max`` (``_sign_extended_reads``), or by its first ``redux.sync``
    round (``_redux_round_reads``: byte 0 free for a partitioned round of identity 0; a
    signed round's extracts on the reduction's line, byte 0 free; a signed butterfly round
    two per byte), or by an in-thread ``and`` step, or ``add``/``xor``/``or`` step before a
    partitioned round of identity 0 (``_in_thread_zero_reads``: byte 0 free) — or, where
    the convert stays in registers on the warp-shuffle path with four bytes per shuffled
    register, whose unpacked bytes it reads first (:func:`shuffled_byte_positions`), the
    same. Other ops pass unchanged.

    Raises:
        LayoutError: ``pairs`` is not a sequence of pairs; ``text`` not a string; ``target``
            not a Target.

    Source: NVPTX's instruction selection (LLVM, not Triton:
    :mod:`linlayout.lowering.byte_extracts`), measured on compiled reductions
    (``papers/triton_lowering/redux_heldout_probes.py``).
    """
    sequence_of(pairs, tuple, "pairs")
    string(text, "text")
    instance_of(target, Target, "target")
    if not target.is_nvidia:
        return list(pairs)
    index = {a.result: i for i, (a, p) in enumerate(pairs)
             if isinstance(a, Access) and a.op == "reduce" and a.result
             and isinstance(p, Prediction)}
    out = list(pairs)
    for a, pred in pairs:
        if a.kind != "convert" or not a.operands or a.operands[0] not in index \
                or a.distributed is None or a.destination is None \
                or not _used_once(a.operands[0], text):
            continue
        i = index[a.operands[0]]
        reduce, rpred = out[i]
        try:
            built = _built_words(reduce, a, target)
            delta = 0 if built[0] else _byte_delta(reduce, a, target)
        except LayoutError:
            continue  # either op is reported as it was analysed
        if delta:
            out[i] = (reduce, _more_permutes(rpred, delta))
        elif built[0] and isinstance(pred, Prediction):
            j = next(k for k, (b, _) in enumerate(out) if b is a)
            out[i] = (reduce, _more_permutes(rpred, -built[0], _FOLDED))
            out[j] = (a, _more_permutes(pred, -built[1], _FOLDED))
        elif isinstance(pred, Prediction):
            try:
                moved = _moved_extracts(reduce, a, target)
            except LayoutError:
                continue
            if moved:
                j = next(k for k, (b, _) in enumerate(out) if b is a)
                out[i] = (reduce, _more_permutes(rpred, -moved, _MOVED))
                out[j] = (a, _more_permutes(pred, moved, _MOVED, add=True))
    return _redux_round_reads(_in_thread_zero_reads(_sign_extended_reads(out, text, target),
                                                    text, target), text, target)


#: Signed 8-bit combine ops: NVPTX computes them on sign-extended 16-bit registers.
_SIGNED_MIN_MAX = frozenset({"arith.minsi", "arith.maxsi"})

_SIGN_READ = ("byte 0 of each loaded word read only by the next reduction's signed in-thread "
              "min/max (NVPTX's cvt.s8.s32 of the word, no prmt.b32)")


def _sign_extended_reads(pairs: list, text: str, target: Target) -> list:
    """``pairs`` with each NVIDIA 8-bit convert through shared memory that loads 32-bit
    words (:func:`loaded_byte_positions`) or on the warp-shuffle path with four bytes per
    shuffled register (:func:`shuffled_byte_positions`), whose result's only use is a
    one-operand 8-bit ``tt.reduce`` with a signed ``min``/``max`` combine that starts with
    an in-thread step (every register of its operand shares its accumulator with another),
    charged one
    ``prmt.b32`` fewer per loaded word's byte 0: every loaded byte is first read by that
    signed combine, which NVPTX computes on a sign-extended 16-bit register, so byte 0 is a
    ``cvt.s8.s32`` of the word (:func:`linlayout.lowering.byte_extracts.byte_extract_permutes`
    with ``"signed_byte"``). A reduction without an in-thread step (its first reader a
    shuffle) is left as it was.

    Source: NVPTX's instruction selection (LLVM, not Triton:
    :mod:`linlayout.lowering.byte_extracts`), seen on a compiled 8-bit ``minsi`` reduction
    after an ``ldmatrix`` round trip (``papers/triton_lowering/README.md``, fresh-seed sweep),
    and after a warp-shuffle convert (``tests/check/registers/test_shuffled_byte_readers.py``).
    """
    out = list(pairs)
    for _, a, j, convert, axis, bytes_at in _convert_fed_reductions(pairs, text, target):
        if a.combiner not in _SIGNED_MIN_MAX:
            continue
        cpred = out[j][1]
        try:
            if not _in_thread_step(a.distributed.layout, axis):
                continue  # the first reader is a shuffle
        except LayoutError:
            continue
        delta = sum(byte_extract_permutes(b, {"signed_byte"}) - 1 for b in bytes_at)
        if delta:
            out[j] = (convert, _more_permutes(cpred, delta, _SIGN_READ))
    return out


#: Sign-blind combine ops whose in-thread step, read by a partitioned ``redux.sync`` round
#: of identity 0, leaves byte 0 of each word free (measured: see :func:`_in_thread_zero_reads`).
_LOW_BYTE_TREES = frozenset({"arith.addi", "arith.xori", "arith.ori"})

_IN_THREAD_READ = ("byte 0 of each word read only by the next reduction's in-thread and (or "
                   "add/xor/or before a partitioned redux.sync round of identity 0): NVPTX "
                   "combines the words' low bytes, no prmt.b32")


def _in_thread_zero_reads(pairs: list, text: str, target: Target) -> list:
    """``pairs`` with each NVIDIA 8-bit convert whose loaded (:func:`loaded_byte_positions`)
    or shuffled (:func:`shuffled_byte_positions`) bytes the next reduction reads first in an
    in-thread step charged one ``prmt.b32`` fewer per word's byte 0 where compiled kernels
    show NVPTX combining the words themselves: an ``arith.addi``/``xori``/``ori`` step
    whose in-warp round is a partitioned ``redux.sync`` round (identity 0: the round's
    ``and`` with 255 makes the result zero-extended, and every byte 0 is the word itself),
    or an ``arith.andi`` step followed by an in-warp round (butterfly or ``redux.sync``):
    an ``and`` is zero-extended when one of its operands is (LLVM's demanded-bits
    simplification of an ``and``), so per accumulator every byte-0 leaf is the word itself
    but one where all its leaves are bytes 0 (:func:`_accumulator_leaves`). Other combine ops
    (``maxui``, ``minui``, ``muli``), those ops before other rounds, and steps with no
    in-warp round after them are left as they were.

    This is a rule read off compiled kernels, not derived from LLVM's source: byte 0's
    extract is a truncation of the word, and the steps measured here let NVPTX's
    demanded-bits combines use the word in its place, but the small LLVM IR kernels of
    ``byte_extract_isel.py`` do not reproduce Triton's tree (an ``add`` step before a
    butterfly round keeps byte 0's ``prmt.b32`` in the compiled kernels).

    Source: Triton 3.9.0's lowering of compiled ``r3`` reductions and their variants on
    sm_80/90/100 (``papers/triton_lowering/README.md``, the ``r3`` draws after the
    shuffle-path reader rule).
    """
    from .reduce import first_round_redux, reduce_rounds

    out = list(pairs)
    for _, a, j, convert, axis, bytes_at in _convert_fed_reductions(pairs, text, target):
        if a.combiner != "arith.andi" and a.combiner not in _LOW_BYTE_TREES:
            continue
        try:
            operand = a.distributed.layout
            if not _in_thread_step(operand, axis) or not reduce_rounds(operand, axis)[0][1]:
                continue  # no in-thread step, or no in-warp round after it
            if a.combiner in _LOW_BYTE_TREES and first_round_redux(
                    operand, axis, 8, target, a.combiner) != "partitioned":
                continue
            groups = _accumulator_leaves(operand, axis, bytes_at)
        except LayoutError:
            continue
        if a.combiner == "arith.andi":
            if groups is None:
                continue
            # an and is zero-extended when one operand is: all byte-0 leaves of an
            # accumulator but one are free when no other leaf is zero-extended already
            delta = -sum(leaves.count(0) - (leaves.count(0) == len(leaves))
                         for leaves in groups)
        else:
            delta = -sum(1 for b in bytes_at if b == 0)
        if delta:
            out[j] = (convert, _more_permutes(out[j][1], delta, _IN_THREAD_READ))
    return out


def _accumulator_leaves(operand: LinearLayout, axis: int, bytes_at: tuple[int, ...]
                        ) -> list[list[int]] | None:
    """The bytes ``bytes_at`` (one per non-broadcast register of ``operand``, in order)
    grouped by the accumulator of the in-thread step along ``axis`` that reads them
    (registers at the same position off the axis), or None when ``bytes_at`` does not
    cover every register."""
    lean = drop_broadcast_registers(operand)
    regs = lean.bases.get("register", [])
    if len(bytes_at) != 1 << len(regs):
        return None
    k = lean.out_dim_names.index(f"dim{axis}")
    groups: dict[tuple, list[int]] = {}
    for i, byte in enumerate(bytes_at):
        pos = [0] * len(lean.out_dim_names)
        for bit, img in enumerate(regs):
            if i >> bit & 1:
                pos = [x ^ y for x, y in zip(pos, img)]
        pos[k] = 0
        groups.setdefault(tuple(pos), []).append(byte)
    return list(groups.values())


_PARTITIONED_READ = ("byte 0 of each loaded word read only by the two arms of the next "
                     "reduction's partitioned redux.sync round (NVPTX's and.b32 w, 255 on the "
                     "reduction's line, no prmt.b32)")

_SIGNED_REDUX_READ = ("loaded bytes read sign-extended by the next reduction's redux.sync round "
                      "(byte 0 a cvt.s32.s8, bytes 1-3 prmt.b32 on the reduction's line)")


_SIGNED_BUTTERFLY_READ = ("loaded bytes read by the next reduction's butterfly round of a "
                          "signed min/max, shuffled zero-extended and combined sign-extended "
                          "(two prmt.b32 per byte)")


def _redux_round_reads(pairs: list, text: str, target: Target) -> list:
    """``pairs`` with each NVIDIA 8-bit convert through shared memory that loads 32-bit
    words (:func:`loaded_byte_positions`) or on the warp-shuffle path with four bytes per
    shuffled register (:func:`shuffled_byte_positions`: the same extracts, selected alike),
    whose result's only use is a one-operand 8-bit ``tt.reduce`` with no in-thread step
    (every register of its operand its own accumulator) whose first in-warp round is a ``redux.sync`` round
    (:func:`linlayout.check.registers.reduce.first_round_redux`), charged what NVPTX selects
    for the loaded bytes that round reads, each widened to 32 bits:

    * zero-extended into a partitioned round whose identity is 0 (``add``, ``or``, ``xor``,
      unsigned ``max``: two selects per value, one against 0 on each side): byte 0 of each
      word costs no ``prmt.b32`` (``"zext_partitioned"`` of
      :func:`linlayout.lowering.byte_extracts.byte_extract_permutes`; NVPTX's
      ``and.b32 w, 255`` on the reduction's line);
    * sign-extended (signed ``min``/``max``, partitioned or not): byte 0 costs none
      (``"sext"``: a ``cvt.s32.s8`` of the word) and the other bytes' ``prmt.b32`` move to
      the reduction's line.

    Other ``redux.sync`` rounds (a full-warp zero-extended round, the partitioned
    ``umin``/``and`` whose identity is -1, a round whose lanes hold copies) keep one
    ``prmt.b32`` per byte on the convert's line, as before. A first round of butterfly
    shuffles of a signed ``min``/``max`` reads each byte twice, zero-extended for
    ``shfl.sync.bfly`` and sign-extended for the combine: two ``prmt.b32`` per byte, byte
    0 included (``{"zext", "signed_byte"}``), on the convert's line; a butterfly round of
    another combine op, one per byte, as before.

    Source: NVPTX's instruction selection (LLVM, not Triton), measured by
    ``papers/triton_lowering/byte_extract_isel.py`` on the round's IR as Triton 3.9's
    ``TargetInfo::warpReduce`` (``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/
    TargetInfo.cpp``) emits it, and on compiled reductions after a convert through shared
    memory (``papers/triton_lowering/README.md``, fresh-seed sweep) and after a warp-shuffle
    convert (``tests/check/registers/test_shuffled_byte_readers.py``; the butterfly case
    there on the small kernels only: no compiled shuffle convert reached it).
    """
    from .reduce import REDUX_ZERO_IDENTITY, first_round_redux, reduce_rounds

    if not target.is_nvidia:
        return list(pairs)
    out = list(pairs)
    for r, a, j, convert, axis, bytes_at in _convert_fed_reductions(pairs, text, target):
        rpred, cpred = out[r][1], out[j][1]
        if not isinstance(rpred, Prediction):
            continue
        try:
            operand = a.distributed.layout
            if _in_thread_step(operand, axis):
                continue  # an in-thread step reads the bytes first
            kind = first_round_redux(operand, axis, 8, target, a.combiner)
        except LayoutError:
            continue
        if kind is None:
            if a.combiner in _SIGNED_MIN_MAX and reduce_rounds(operand, axis)[0][1]:
                delta = sum(byte_extract_permutes(b, {"zext", "signed_byte"}) - 1
                            for b in bytes_at)
                out[j] = (convert, _more_permutes(cpred, delta, _SIGNED_BUTTERFLY_READ))
            continue
        if a.combiner in _SIGNED_MIN_MAX:
            moved = sum(byte_extract_permutes(b, {"sext"}) for b in bytes_at)
            out[j] = (convert, _more_permutes(cpred, -len(bytes_at), _SIGNED_REDUX_READ))
            out[r] = (a, _more_permutes(rpred, moved, _SIGNED_REDUX_READ, add=True))
        elif kind == "partitioned" and a.combiner in REDUX_ZERO_IDENTITY:
            delta = sum(byte_extract_permutes(b, {"zext_partitioned"}) - 1 for b in bytes_at)
            if delta:
                out[j] = (convert, _more_permutes(cpred, delta, _PARTITIONED_READ))
    return out


def _convert_fed_reductions(pairs: list, text: str, target: Target):
    """``(r, reduce, j, convert, axis, bytes_at)`` for each one-operand 8-bit ``tt.reduce``
    at ``pairs[r]`` (with its operand's layout) whose operand is the result of the 8-bit
    convert at ``pairs[j]`` (a counted prediction, with both layouts), used by nothing else,
    that loads 32-bit words (``bytes_at``: :func:`loaded_byte_positions`) or unpacks moved
    words on the warp-shuffle path (:func:`shuffled_byte_positions`)."""
    converts = {a.result: i for i, (a, p) in enumerate(pairs)
                if isinstance(a, Access) and a.kind == "convert" and a.result
                and isinstance(p, Prediction)}
    for r, (a, _) in enumerate(pairs):
        m = _AXIS.search(a.attrs or "") if isinstance(a, Access) else None
        if m is None or a.op != "reduce" or a.element_bits != 8 \
                or len(a.operand_types) != 1 or a.distributed is None \
                or not a.operands or a.operands[0] not in converts \
                or not _used_once(a.operands[0], text):
            continue
        j = converts[a.operands[0]]
        convert = pairs[j][0]
        if convert.element_bits != 8 or convert.distributed is None \
                or convert.destination is None:
            continue
        try:
            bytes_at = loaded_byte_positions(convert.distributed.layout,
                                             convert.destination.layout, target)
            if bytes_at is None:
                bytes_at = shuffled_byte_positions(convert.distributed.layout,
                                                   convert.destination.layout, target)
        except LayoutError:
            continue
        if bytes_at is not None:
            yield r, a, j, convert, int(m.group(1)), bytes_at


def _in_thread_step(operand: LinearLayout, axis: int) -> bool:
    """Whether a reduction of ``operand`` along ``axis`` starts within each thread (some
    registers share an accumulator); raises :class:`LayoutError` as ``reduce_rounds``."""
    from .reduce import reduce_rounds

    held = 1 << f2.rank([_flat(operand, img) for img in operand.bases.get("register", [])])
    return held > reduce_rounds(operand, axis)[0][0]


def _flat(layout: LinearLayout, img) -> int:
    """A register basis image of ``layout`` as one integer (its dims side by side)."""
    flat, shift = 0, 0
    for v, name in zip(img, layout.out_dim_names):
        flat |= v << shift
        shift += layout.out_bits(name)
    return flat


_MOVED = ("byte pairs stored as halves of the loaded words (NVPTX selects their extracts "
          "on the storing convert's line)")


_FOLDED = ("stored or shuffled words built straight from the loaded words (NVPTX's DAG "
           "combiner: one prmt.b32 of two words, the byte extracts dead)")


def _last_load(reduce: Access, target: Target) -> tuple[LinearLayout, LinearLayout] | None:
    m = _AXIS.search(reduce.attrs)
    if m is None or reduce.distributed is None or reduce.destination is None \
            or reduce.element_bits != 8 or len(reduce.operand_types) != 1:
        return None
    steps = reduce_steps(reduce.distributed.layout, reduce.destination.layout,
                         int(m.group(1)))
    if not steps or steps[-1][0] != "result":
        return None
    return steps[-1][1], steps[-1][2]


def _built_words(reduce: Access, convert: Access, target: Target) -> tuple[int, int]:
    """``(extracts that die, permutes the stores spare)`` when ``convert`` stores, through
    shared memory, words of the bytes the reduce's last move loaded, or packs them four to a
    register on the warp-shuffle path (:func:`shuffled_word_sources`): a built word is a
    byte shuffle of the loaded words its bytes come from
    (:func:`linlayout.lowering.byte_extracts.built_word_permutes`: none for one loaded word
    in order, one for two, one per further word), not three, and its bytes' extracts die."""
    last = _last_load(reduce, target)
    if last is None or convert.element_bits != 8:
        return 0, 0
    loaded = _loaded_words(*last, target)
    stored = stored_word_sources(convert.distributed.layout, convert.destination.layout,
                                 target)
    if stored is None:
        stored = shuffled_word_sources(convert.distributed.layout,
                                       convert.destination.layout, target)
    if loaded is None or stored is None or len(loaded) != 4 * len(stored):
        return 0, 0
    dead = spared = 0
    for regs in stored:
        dead += 4
        spared += 3 - built_word_permutes(loaded[r] for r in regs)
    return dead, spared


def _moved_extracts(reduce: Access, convert: Access, target: Target) -> int:
    """The byte extracts of the reduce's last load that NVPTX selects on ``convert``'s line:
    two per stored byte pair that is one 16-bit half of a loaded word."""
    last = _last_load(reduce, target)
    if last is None or convert.element_bits != 8:
        return 0
    loaded = _loaded_words(*last, target)
    stored = stored_pair_sources(convert.distributed.layout, convert.destination.layout,
                                 target)
    if loaded is None or stored is None or len(loaded) != 2 * len(stored):
        return 0
    return sum(2 for regs in stored if pair_is_half_word(loaded[r] for r in regs))


def _byte_delta(reduce: Access, convert: Access, target: Target) -> int:
    """The ``prmt.b32`` the reduce's last loads spend beyond four per word, read by
    ``convert``: packed two per register by a shuffle convert (:func:`pack_byte_readers`),
    or stored one byte at a time (``st.shared.b8``: ``"store_byte"``, byte 0 free)."""
    last = _last_load(reduce, target)
    if last is None or convert.element_bits != 8:
        return 0
    src, dst = last
    bytes_at = loaded_byte_positions(src, dst, target)
    readers = pack_byte_readers(convert.distributed.layout, convert.destination.layout,
                                target)
    if readers is None:
        singles = _stored_groups(convert.distributed.layout, convert.destination.layout,
                                 target, 1, lambda n_bytes: n_bytes == 1)
        readers = {r: frozenset({"store_byte"}) for (r,) in singles or ()}
    if bytes_at is None or not readers:
        return 0
    return sum(byte_extract_permutes(bytes_at[r], kinds) - 1
               for r, kinds in readers.items() if r < len(bytes_at))


def _used_once(name: str, text: str) -> bool:
    """Whether SSA value ``name`` is read by exactly one operation of ``text``."""
    uses = re.findall(rf"{re.escape(name)}(?![\w$.-])", text)
    return len(uses) == 2  # its definition and one use


_WIDENED = "byte 0 of a loaded word widened by its reader's or (NVPTX's and.b32 0xff, on the " \
    "reader's line)"


def _more_permutes(pred: Prediction, delta: int, why: str = _WIDENED,
                   add: bool = False) -> Prediction:
    regs, done = [], False
    for e in pred.registers:
        if not done and e.opcode == "prmt.b32":
            e, done = replace(e, per_thread=(e.per_thread or 0) + delta), True
        if e.per_thread != 0:
            regs.append(e)
    if not done and add and delta > 0:
        regs.append(Emitted("permute", "prmt.b32", delta, None, 32, 0, ""))
        done = True
    if not done:
        return pred
    return replace(pred, registers=tuple(regs), note=f"{pred.note}; {why}")
