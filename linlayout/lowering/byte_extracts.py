"""How LLVM's NVPTX back end selects the byte extracts of an 8-bit word loaded from shared
memory — LLVM's instruction selection, not Triton's lowering.

Triton 3.9 unpacks every 32-bit word of 8-bit elements it loads (``ld.shared.b32``/``.v2``/
``.v4`` of ``<4 x i8>``) with one ``extractelement`` per byte
(``lowerLdStShared``, ``lib/Conversion/TritonGPUToLLVM/Utility.cpp``), and then widens or
combines each byte as the op reading it asks. NVPTX has no 8-bit registers: its instruction
selection turns each extract *together with how its readers widen it* into one instruction,
so the count depends on the readers, not on the extracts alone. Measured by compiling small
LLVM IR kernels with Triton 3.9's LLVM (``papers/triton_lowering/byte_extract_isel.py``,
sm_80/90/100; the same on each) — one loaded word, every byte read the stated way:

* read zero-extended (``zext`` to 16, 32 or 64 bits, or as an 8-bit value by a sign-blind op:
  ``umin``/``umax``, ``add``, ``xor``, ``and``, ``or``, which NVPTX computes on 16-bit
  registers): one ``prmt.b32`` per byte, selector ``0x777k`` (byte ``k``, zero-filled);
* byte 0 zero-extended to 32 bits when the extension is read only by an integer ``or``,
  ``xor``, ``add`` or ``mul`` (the packing ``or`` of two bytes into one 32-bit register, say):
  no ``prmt.b32`` — the DAG combiner folds the extension into the word's low byte and selects
  ``and.b32 w, 0xff``, on the reader's line. Read by a shift, a select, a shuffle, a ``sub``
  or an ``and``, it stays ``prmt.b32 0x7770``;
* byte 0 zero-extended to 32 bits when the extension is read by the two arms of a
  partitioned ``redux.sync`` round whose identity is 0 (Triton's ``TargetInfo::warpReduce``
  for ``add``, ``or``, ``xor``, unsigned ``max``: ``select c, x, 0`` into one ``redux.sync``
  and ``select c, 0, x`` into the other): no ``prmt.b32`` — NVPTX spells the second arm as
  an ``and`` with the negated lane bit and selects the extension as ``and.b32 w, 255``, on
  the reduction's line. The first arm alone (the one select of a round whose lanes hold
  copies), a full-warp ``redux.sync`` of the extension, or the partitioned round of
  ``umin``/``and`` (identity -1) keep the ``prmt.b32 0x7770``; the second arm alone is free
  (Triton emits it only with the first);
* stored as a byte (``store i8`` of the extract, to shared or global memory): byte 0 costs
  no ``prmt.b32`` (``st.shared.b8``/``st.global.b8`` of the word's register writes its low
  byte), bytes 1–3 one each;
* read sign-extended (``sext`` to 16, 32 or 64 bits, or by a signed ``smin``/``smax`` on the
  byte, which NVPTX computes on sign-extended 16-bit registers): one ``prmt.b32`` per byte
  1–3 (selectors ``0x9991``, ``0xaaa2``, ``0xbbb3``: extract and sign extension in one) and
  none for byte 0 (``cvt.s32.s8``/``cvt.s8.s32``/``cvt.s64.s8`` of the word). A ``sext``
  to 32 bits read by a ``redux.sync`` round (signed ``min``/``max``, partitioned or not) is
  the same, the ``prmt.b32`` on the reduction's line (the ``sext``'s), not the load's;
* read both ways (zero-extended for a shuffle and sign-extended for a signed min/max, say):
  the byte is materialised twice, one ``prmt.b32`` of each kind (``0x777k`` and ``0x888k``-
  style), byte 0 included;
* not read: nothing (the extract is dead).

The same holds, reader kind by reader kind and byte by byte, for a word that was not loaded
but moved in registers: a warp-shuffle convert packing four 8-bit elements per 32-bit
register unpacks each shuffled (``shfl.sync``) or selected word with a ``bitcast`` to
``<4 x i8>`` and one ``extractelement`` per byte (``transferWithinWarp``), and NVPTX selects
those extracts exactly as a loaded word's (every case above, measured on both kinds of moved
word, sm_80/90/100).

Bytes read by a stored word: a ``<4 x i8>`` built with ``insertelement`` from extracts of
loaded words (Triton's vector build before a ``st.shared`` of 4 bytes or more) is a byte
shuffle of those words and its extracts die: one ``prmt.b32`` for at most two words (the DAG
combiner turns the build into a byte shuffle of two ``v4i8``: selectors such as ``0x5140``,
``0x7362``), none when it is one loaded word in order, and one more per further word (two
for three words, three for four: a shuffle of each pair, then one joining them, selectors
such as ``0x4000``/``0x40``/``0x7610``).

Bytes read by a stored pair (``<2 x i8>``, ``st.shared.v2.b8``): when the pair is bytes
``2j`` and ``2j+1`` of one loaded word, in order (the word's ``j``-th 16-bit half), the DAG
combiner folds the build of the two extracts into that half of the word, and the store's
lowering extracts both bytes again: the same two ``prmt.b32`` (``0x777k``), now under the
*store's* line, not the load's. Any other pair (bytes of two words, reversed, ``1``/``2``,
repeated) keeps its extracts on the load's line.

:func:`byte_extract_permutes` counts one byte, :func:`word_extract_permutes` one word,
:func:`built_word_permutes` one stored word of loaded bytes, :func:`pair_is_half_word`
whether a stored pair's extracts move to the store's line.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._checks import as_int
from ..errors import LayoutError

__all__ = ["BYTE_READERS", "SIGN_READERS", "ZERO_READERS", "built_word_permutes",
           "byte_extract_permutes", "pair_is_half_word", "word_extract_permutes"]

#: Readers that take a byte zero-extended: ``"zext_arith"`` (a ``zext`` to 32 bits read only
#: by an integer ``or``/``xor``/``add``/``mul``), ``"zext_partitioned"`` (a ``zext`` to 32
#: bits read by the arms of a partitioned ``redux.sync`` round with identity 0: both, or the
#: second, ``select c, 0, x``, alone),
#: ``"zext"`` (a ``zext`` read otherwise: a shift, select, shuffle, ``redux.sync``, ``sub``,
#: ``and``, store; or to 16/64 bits), ``"byte"`` (an 8-bit sign-blind op on the byte itself:
#: unsigned min/max, ``add``, ``xor``, ``and``, ``or``), ``"store_byte"`` (an 8-bit store of
#: the byte itself, ``st.shared.b8``/``st.global.b8``: the low byte of a register).
ZERO_READERS = frozenset({"zext_arith", "zext_partitioned", "zext", "byte", "store_byte"})
#: Readers that take a byte sign-extended: ``"sext"`` (a ``sext`` to 16, 32 or 64 bits),
#: ``"signed_byte"`` (a signed 8-bit ``smin``/``smax``).
SIGN_READERS = frozenset({"sext", "signed_byte"})
#: Every reader kind :func:`byte_extract_permutes` knows.
BYTE_READERS = ZERO_READERS | SIGN_READERS


def byte_extract_permutes(byte: int, readers: Iterable[str]) -> int:
    """The ``prmt.b32`` NVPTX selects for the ``extractelement`` of byte ``byte`` of a
    loaded ``<4 x i8>`` word, given how its readers take it (module docstring).

    Args:
        byte: the byte's position in its 32-bit word, 0 to 3.
        readers: the kinds of its readers (:data:`BYTE_READERS`; repeats do not matter).

    Returns:
        0, 1 or 2: one per kind of extension the byte is read with (zero-filled, sign-
        replicated); byte 0 read one way only, and that way free (only ``"zext_arith"``,
        only ``"zext_partitioned"``, only ``"store_byte"``, or only sign-extending
        readers), costs none; a byte nobody reads costs none.

    Raises:
        LayoutError: ``byte`` not 0–3, or a reader kind not in :data:`BYTE_READERS`.

    Source: LLVM's NVPTX instruction selection (``NVPTXISelLowering.cpp``: ``v4i8``
    extracts as ``PRMT``), as Triton 3.9's LLVM compiles it
    (``papers/triton_lowering/byte_extract_isel.py``).
    """
    byte = as_int(byte, "byte")
    if not 0 <= byte <= 3:
        raise LayoutError(f"byte must be 0 to 3 (a byte of a 32-bit word), got {byte}")
    kinds = frozenset(readers)
    unknown = kinds - BYTE_READERS
    if unknown:
        raise LayoutError(f"unknown byte reader kind(s) {sorted(unknown)}; use "
                          f"{sorted(BYTE_READERS)}")
    zero, sign = kinds & ZERO_READERS, kinds & SIGN_READERS
    if byte == 0 and zero and not sign:
        return 0 if zero in ({"zext_arith"}, {"zext_partitioned"}, {"store_byte"}) else 1
    if byte == 0 and sign and not zero:
        return 0
    return int(bool(zero)) + int(bool(sign))


def word_extract_permutes(readers: Iterable[str]) -> int:
    """The ``prmt.b32`` NVPTX selects unpacking one loaded word of four bytes, every byte
    read by ``readers`` (:func:`byte_extract_permutes` of bytes 0 to 3).

    Raises:
        LayoutError: a reader kind not in :data:`BYTE_READERS`.
    """
    kinds = frozenset(readers)
    return sum(byte_extract_permutes(b, kinds) for b in range(4))


def built_word_permutes(sources: Iterable[tuple[int, int]]) -> int:
    """The ``prmt.b32`` NVPTX selects for a stored ``<4 x i8>`` word built from loaded bytes
    (the byte extracts die).

    Args:
        sources: per byte of the stored word (low first), ``(loaded word, byte in it)``.

    Returns:
        0 for one loaded word in order (the word itself), 1 for bytes of at most two loaded
        words (one byte shuffle), else one per loaded word less one (2 for three words, 3
        for four).

    Raises:
        LayoutError: not four ``(word, byte)`` pairs with bytes 0 to 3.

    Source: LLVM's DAG combiner and NVPTX's ``PRMT`` lowering of a ``v4i8`` vector
    shuffle, as Triton 3.9's LLVM compiles it (``papers/triton_lowering/byte_extract_isel.py``).
    """
    pairs = _word_bytes(sources, 4, "four")
    words = {w for w, _ in pairs}
    if len(words) > 2:
        return len(words) - 1
    return 0 if len(words) == 1 and [b for _, b in pairs] == [0, 1, 2, 3] else 1


def pair_is_half_word(sources: Iterable[tuple[int, int]]) -> bool:
    """Whether a stored ``<2 x i8>`` pair of loaded bytes is one 16-bit half of one loaded
    word, in order — then NVPTX selects its two byte extracts (``prmt.b32``) under the
    store's line, not the load's (module docstring).

    Args:
        sources: per byte of the stored pair (low first), ``(loaded word, byte in it)``.

    Returns:
        True for bytes ``(w, 2j)``, ``(w, 2j + 1)``; False otherwise.

    Raises:
        LayoutError: not two ``(word, byte)`` pairs with bytes 0 to 3.

    Source: LLVM's NVPTX instruction selection as Triton 3.9's LLVM compiles it, measured on
    compiled kernels whose stored pairs were permuted
    (``papers/triton_lowering/byte_extract_isel.py``); the extracts then follow the store's
    debug location, as a fold of the pair's build into a subvector of the word would (the
    mechanism is inferred from the PTX, not read in LLVM's source).
    """
    pairs = _word_bytes(sources, 2, "two")
    (w0, b0), (w1, b1) = pairs
    return w0 == w1 and b0 % 2 == 0 and b1 == b0 + 1


def _word_bytes(sources: Iterable[tuple[int, int]], n: int, n_words: str
                ) -> list[tuple[int, int]]:
    """``sources`` as a list of ``n`` ``(loaded word, byte in it)`` pairs (``n_words``: ``n``
    spelt out for the message); raises LayoutError on another count or a byte outside 0 to
    3."""
    try:
        pairs = [tuple(p) for p in sources]
    except TypeError:
        raise LayoutError(f"sources must be {n_words} (word, byte) pairs, got "
                          f"{sources!r:.80}") from None
    if len(pairs) != n or any(len(p) != 2 for p in pairs):
        raise LayoutError(f"sources must be {n_words} (word, byte) pairs, got {pairs!r:.80}")
    for word, byte in pairs:
        as_int(word, "word")
        if not 0 <= as_int(byte, "byte") <= 3:
            raise LayoutError(f"a byte must be 0 to 3, got {byte}")
    return pairs
