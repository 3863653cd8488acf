"""The register instructions that pack and unpack 8- and 16-bit elements around a convert's
round trip through shared memory.

Triton 3.9's ``transferWithinBlockSwizzling`` (``ConvertLayoutOpToLLVM.cpp``) stores each
vector of the scratch layout with ``lowerLdStShared``: the elements of one vector are put
into an LLVM vector with ``insertelement`` and stored whole (the NVIDIA target bitcasts a
vector of sub-32-bit elements to 32-bit words for ``st.shared.v*.b32``); the load side
loads a vector and takes its elements out with ``extractelement``. Triton emits no packing
instruction of its own: what the PTX/AMDGCN spends is LLVM's instruction selection of those
vector builds and extracts, modelled here as measured on compiled code: the assembly LLVM's
back end selects from Triton's LLVM IR before ``-O3``
(``papers/triton_lowering/lowering_reference.py``; LLVM's instruction selection, not
Triton):

* NVIDIA, 16-bit elements: nothing (a ``<2 x i16>`` word is one ``mov.b32 {lo, hi}``) —
  unless the producer left each element in a 32-bit register (``wide_source``: the
  truncation of a ``shfl.sync`` or ``redux.sync`` result): then NVPTX builds each stored
  32-bit word from the two registers with one ``prmt.b32`` (selector ``0x5410``), a
  two-element vector included (stored as ``st.shared.b32``, not ``.v2.b16``).
* NVIDIA, 8-bit elements, store: three ``prmt.b32`` per 32-bit word stored (two byte pairs
  and one join: NVPTX's ``BUILD_VECTOR`` of ``v4i8``), whenever a store moves 4 bytes or
  more (``st.shared.b32``/``.v2``/``.v4``, ``stmatrix``); a 2-byte ``st.shared.v2.b8`` packs
  nothing.
* NVIDIA, 8-bit elements, load: four ``prmt.b32`` per 32-bit word loaded
  (``ld.shared.b32``/``.v2.b32``/``.v4.b32``, and each register of an ``ldmatrix``: one
  byte extract each); sub-word loads spend nothing at the convert. This is Triton's lowering as instruction
  selection spells it (the assembly of Triton's LLVM IR with ``-O3`` skipped); after
  ``-O3`` a scalar word whose consumer re-packs it whole keeps none of them (LLVM's
  InstCombine removes the extract/insert pairs: ``docs/triton-lowering.md``, "LLVM
  re-spelling").
* AMD: each stored 32-bit word is assembled as the shuffle path's packed registers are
  (:func:`~linlayout.lowering.amd_pack.pack_permutes`, by where the producer left the
  elements: :func:`~linlayout.lowering.amd_pack.source_words`, ``wide`` for a 32-bit
  shuffle result); a float truncation to 16 bits builds its words for free. Loads unpack for nothing (a consumer's extracts are its
  own). Two bytes stored as one 16-bit word (``ds_write_b16``) cost no ``v_perm_b32``,
  wherever they sit: LLVM joins them with shifts and ors (``v_lshl_or_b32``, SDWA). A
  stored word is the registers at its consecutive offsets, whichever register bases reach
  them (offset 1 may be the sum of two register bases in a swizzled layout): it is packed
  the same.
* AMD, 8-bit elements stored to global memory straight after the round trip
  (:func:`stored_word_permutes`): where Triton stores the destination in vectors of 4 bytes
  or more (its first two register bases step 1 and 2 along the store's contiguous dim),
  LLVM's InstCombine folds each 4-byte vector built from the loaded scratch vectors into a
  ``shufflevector``; one whose 16-bit halves are in-order halves of two scratch words
  loaded by separate ``ds_read_b32`` is one ``v_perm_b32`` (selector ``0x01000504`` or
  ``0x03020706``) carrying the loads' line, the convert's. Two zero-extended halves
  (``ds_read_u16``) join with ``v_lshl_or_b32``; other words are built on the store's line,
  a consumer's instructions. Where Triton stores bytes, LLVM's SelectionDAG may merge a
  thread's consecutive byte stores (``DAGCombiner::mergeConsecutiveStores``), word by word:
  a merged word of such halves costs the same ``v_perm_b32`` on the convert's line, a word
  left as four ``global_store_byte`` none. Which words merge is not predicted from the TTGIR
  (``papers/triton_lowering/amd_byte_pack_probes.py``: of 14 kernels with two such words
  per thread, 9 merged both and 5 one, the other left ``global_store_byte``, for layouts of
  one family), so the main count is Triton's byte stores, none merged, and ``merged=True``
  gives the count if every word merges: ``check`` reports it as the other outcome
  (``may_merge``). Note: Triton vectorises a store only as far as AxisInfo also proves the
  pointer's alignment (``tt.divisibility``); the probes' pointer arguments carry none, so
  Triton's IR stores single bytes (``<1 x i8>``, ``align 1``) even where the first two
  register bases step 1 and 2, and there too the 4-byte words are LLVM's merges — every one
  measured merged (``papers/triton_lowering/byte_store_merges.py``), which the count above
  assumes.
  LLVM, not Triton: Triton's IR before ``-O3`` has no ``v_perm_b32`` for it.
* AMD, the other 4-byte words of such a store (:func:`stored_word_bounds`): a word whose
  bytes are not in-order halves of two ``ds_read_b32`` words — in-order halves of two
  32-bit registers of one ``ds_read_b64``/``ds_read_b128``, single bytes of two loaded
  registers, or the bytes of one register out of order — is built with ``v_perm_b32`` on
  the convert's line in some kernels and on the store's line (or with shifts and ors) in
  others: measured on gfx942/gfx950 probes both ways for layouts of one family
  (``amd_byte_pack_probes.py``: 3 ``v_perm_b32`` on the convert's line for such words of
  ``ds_read_b64`` loads in two kernels, none in five others). Not predicted: ``check``
  counts none and names the range (0 to one ``v_perm_b32`` per source register beyond the
  first, at least one where the word is not a loaded register in order; for byte stores,
  only if the word merges).
"""

from __future__ import annotations

import re

from .._checks import instance_of
from ..errors import LayoutError
from ..layout import LinearLayout
from .amd_pack import pack_permutes, source_words
from .emitted import Emitted
from .target import Target
from .vectorise import AccessMap

__all__ = ["SPLIT_LOAD_REASON", "STORED_WORD_REASON", "round_trip_permute_bounds",
           "round_trip_permutes", "stored_word_bounds",
           "stored_word_permutes", "words_loaded"]

_WORD_LOAD = re.compile(r"^(?:ld\.shared(?:::cta)?(?:\.v(\d))?\.b32|"
                        r"ldmatrix\.sync\.aligned\.m8n8\.x(\d)(?:\.trans)?\.shared\.b16)$")


def round_trip_permutes(src: LinearLayout, store_map: AccessMap,
                        stores: tuple[Emitted, ...], loads: tuple[Emitted, ...],
                        element_bits: int, target: Target,
                        source_load: tuple[int, int] | None = None,
                        packed_source: bool = False, *,
                        wide_source: bool = False,
                        source_values: tuple[str, ...] | None = None) -> tuple[Emitted, ...]:
    """The byte permutes (``prmt.b32`` on NVIDIA, ``v_perm_b32`` on AMD) per thread that
    pack a convert's source into its scratch stores and unpack its loads (module docstring).

    Args:
        src: the source layout, broadcast registers dropped (the store side's registers).
        store_map: :func:`~linlayout.lowering.vectorise.access_map` of ``src`` into Triton's
            scratch layout (the element offset of each register basis).
        stores: the store side's instructions; ``loads``: the load side's.
        element_bits: bits per element as moved (8, 16, 32, 64; only 8 and 16 pack).
        target: the compilation target.
        source_load: ``(dim, contiguity_elems)`` of the global load that produced the
            source (AMD: its words arrive packed), or None.
        packed_source: the source is a float truncation to 16 bits (AMD: packs for free).
        wide_source: the producer left each 8/16-bit element in a 32-bit register, upper
            bits unknown (a warp-local gather's shuffle results, a ``redux.sync`` round:
            :func:`linlayout.check.registers.wide_sources`).
        source_values: (AMD) what the producer left in each source register
            (:func:`~linlayout.lowering.amd_pack.source_words`, ``values``), or None.

    Returns:
        One ``Emitted`` (side ``"permute"``) per opcode, or ``()`` when nothing is spent.

    Raises:
        LayoutError: an argument of the wrong type (``wide_source`` not a bool); a bad
            ``source_load`` dim.

    Source: ``transferWithinBlockSwizzling`` and ``lowerLdStShared``
    (``lib/Conversion/TritonGPUToLLVM/ConvertLayoutOpToLLVM.cpp``, ``Utility.cpp``), Triton
    3.9, as LLVM's NVPTX and AMDGPU back ends select them.
    """
    instance_of(src, LinearLayout, "src")
    instance_of(store_map, AccessMap, "store_map")
    instance_of(target, Target, "target")
    if not isinstance(wide_source, bool):
        raise LayoutError(f"wide_source must be True or False, got {wide_source!r}")
    if element_bits not in (8, 16) or not stores:
        return ()
    if target.is_nvidia:
        n = 0
        if element_bits == 16 and wide_source:
            n += sum(_words_stored(e) for e in stores)
        if element_bits == 8:
            if all(_bytes_per_vector(e) >= 4 for e in stores):
                n += 3 * store_map.registers_per_thread // 4
            n += 4 * words_loaded(loads)
        return (Emitted("permute", "prmt.b32", n, None, 32, 0, ""),) if n else ()
    if packed_source and element_bits == 16:
        return ()
    per_word = min(32 // element_bits, min(_elems_per_vector(e) for e in stores))
    if per_word < 2 or (element_bits == 8 and per_word == 2):
        return ()  # a 2-byte word of bytes: shifts and ors (v_lshl_or_b32, SDWA), no v_perm
    words = source_words(src, element_bits,
                         *(source_load if source_load is not None else ()),
                         wide=wide_source and source_load is None,
                         values=source_values if source_load is None else None)
    if len(words) != store_map.registers_per_thread:
        return ()
    # each stored word: the registers at offsets w, w + 1, …, w + per_word − 1 (w a multiple
    # of per_word), whichever register bases (single offset bits or not) reach them
    at = {_offset(store_map.registers, i): i for i in range(store_map.registers_per_thread)}
    n = 0
    for offset, base in at.items():
        if offset % per_word:
            continue
        if any(offset ^ j not in at for j in range(per_word)):
            return ()  # the vector's elements are not registers of one thread
        pack = tuple(words[at[offset ^ j]] for j in range(per_word))
        n += pack_permutes(pack, element_bits)
    return (Emitted("permute", "v_perm_b32", n, None, 32, 0, ""),) if n else ()


#: why a convert of a global load's bytes has a range (:func:`round_trip_permute_bounds`,
#: :func:`linlayout.lowering.convert.shuffle_permute_bounds`)
SPLIT_LOAD_REASON = (
    "the source's global load: Triton loads it narrower than the run of consecutive bytes a "
    "thread holds and LLVM may merge each run into one register or leave its bytes apart, "
    "each then alone in its register (the load's may_merge); the packing follows")


def round_trip_permute_bounds(src: LinearLayout, store_map: AccessMap,
                              stores: tuple[Emitted, ...], loads: tuple[Emitted, ...],
                              element_bits: int, target: Target,
                              source_load: tuple[int, int]) -> tuple[int, int]:
    """``(low, high)`` of :func:`round_trip_permutes`' ``v_perm_b32`` where the source's
    global load may or may not have its runs merged by LLVM (the load's ``may_merge``:
    :func:`linlayout.check.global_memory.predict.predict_global`): each stored word costs
    between what it costs from merged runs (``source_load``, as
    :func:`round_trip_permutes` counts) and from bytes each alone in a register
    (:func:`~.amd_pack.source_words` without ``source_load``), whichever is fewer; summed
    over the stored words. ``(n, n)`` where nothing packs.

    Raises:
        LayoutError: as :func:`round_trip_permutes`.

    Source: measured on gfx942 converts whose source runs LLVM left as
    ``global_load_ubyte`` (``papers/triton_lowering/amd_byte_pack_probes.py``).
    """
    n = sum(e.per_thread or 0 for e in round_trip_permutes(
        src, store_map, stores, loads, element_bits, target, source_load))
    if target.is_nvidia or element_bits not in (8, 16) or not stores:
        return n, n
    per_word = min(32 // element_bits, min(_elems_per_vector(e) for e in stores))
    if per_word < 2 or (element_bits == 8 and per_word == 2):
        return n, n
    merged = source_words(src, element_bits, *source_load)
    apart = source_words(src, element_bits)
    if len(merged) != store_map.registers_per_thread:
        return n, n
    at = {_offset(store_map.registers, i): i for i in range(store_map.registers_per_thread)}
    low = high = 0
    for offset in at:
        if offset % per_word:
            continue
        if any(offset ^ j not in at for j in range(per_word)):
            return n, n
        idx = [at[offset ^ j] for j in range(per_word)]
        a = pack_permutes(tuple(merged[i] for i in idx), element_bits)
        b = pack_permutes(tuple(apart[i] for i in idx), element_bits)
        low += min(a, b)
        high += max(a, b)
    return min(low, n), max(high, n)


def stored_word_permutes(dst: LinearLayout, load_map: AccessMap,
                         loads: tuple[Emitted, ...], element_bits: int, target: Target,
                         store: tuple[int, int], *, merged: bool = False) -> int:
    """``v_perm_b32`` per thread on a convert's line that LLVM spends building the 4-byte
    vectors of the global store that follows an 8-bit round trip through shared memory
    (module docstring).

    Args:
        dst: the destination layout, broadcast registers dropped (the load side's registers).
        load_map: :func:`~linlayout.lowering.vectorise.access_map` of ``dst`` into Triton's
            scratch layout (the element offset of each register basis, rounds included).
        loads: the load side's instructions (their bytes per lane: the bytes one load
            instruction brings).
        element_bits: bits per element as moved (only 8 is counted; else 0).
        target: the compilation target (only AMD is counted; else 0).
        store: ``(dim, contiguity_elems)`` of the global store of the convert's result: the
            tensor dim along which its pointer runs over consecutive addresses
            (:func:`linlayout.check.registers.store_destinations`).
        merged: where Triton stores ``dst`` byte by byte, count the words as if LLVM's
            SelectionDAG merged every 4-byte word of them into one store
            (``DAGCombiner::mergeConsecutiveStores``; whether it does is not predicted:
            module docstring). Where Triton stores 4-byte vectors it changes nothing.

    Returns:
        ``v_perm_b32`` per thread: one per 4-byte word (four registers of ``dst`` at
        consecutive addresses along ``store``'s dim, the first at a multiple of 4 elements,
        contiguity 4 or more: :func:`~.amd_pack.source_words`) whose two 16-bit halves are
        each two bytes of one loaded register, in order, loaded by two different 4-byte
        instructions (``ds_read_b32``) — counted where Triton stores ``dst`` in vectors of 4
        bytes or more (its first two register bases step 1 and 2 elements along
        ``store``'s dim), and with ``merged`` also where it stores bytes; else 0.

    Raises:
        LayoutError: an argument of the wrong type (``merged`` not a bool); ``store`` not
            ``(dim, contiguity)``.

    Source: LLVM's InstCombine (``shufflevector`` of the loaded vectors), SelectionDAG's
    ``DAGCombiner::mergeConsecutiveStores`` (byte stores) and the AMDGPU back end's
    ``v_perm_b32`` selection of Triton 3.9's ``tt.store`` (``StoreOpConversion``,
    ``LoadStoreOpToLLVM.cpp``) after ``transferWithinBlockSwizzling``, measured on the final
    gfx942/gfx950 AMDGCN (``papers/triton_lowering/amd_byte_pack_probes.py``).
    """
    instance_of(dst, LinearLayout, "dst")
    instance_of(load_map, AccessMap, "load_map")
    instance_of(target, Target, "target")
    if not (isinstance(store, tuple) and len(store) == 2
            and all(isinstance(v, int) for v in store)):
        raise LayoutError(f"store must be (dim, contiguity_elems), got {store!r}")
    if not isinstance(merged, bool):
        raise LayoutError(f"merged must be True or False, got {merged!r}")
    for e in loads:
        instance_of(e, Emitted, "load")
    if target.is_nvidia or element_bits != 8 or not loads:
        return 0
    load_bytes = min(max(1, e.bytes_per_lane) for e in loads)
    if load_bytes != 4:
        return 0  # zero-extended halves (ds_read_u16) join with v_lshl_or_b32; the words of
        # a wider load are taken apart on the store's line
    if not merged and not _vectorised_words(dst, store):
        return 0  # byte stores: whether SelectionDAG merges them is not predicted
    n = 0
    for offsets in _stored_word_offsets(dst, load_map, store):
        halves = [(offsets[0], offsets[1]), (offsets[2], offsets[3])]
        if all(lo % 2 == 0 and hi == lo + 1 for lo, hi in halves) and \
                offsets[0] // load_bytes != offsets[2] // load_bytes:
            n += 1
    return n


#: why a round trip's stored words have a range (:func:`stored_word_bounds`)
STORED_WORD_REASON = (
    "the 4-byte words of the global store after an 8-bit round trip, other than in-order "
    "halves of two ds_read_b32 words: LLVM builds each on the convert's line (v_perm_b32) "
    "or on the store's line; not predicted")


def stored_word_bounds(dst: LinearLayout, load_map: AccessMap, loads: tuple[Emitted, ...],
                       element_bits: int, target: Target, store: tuple[int, int]) -> int:
    """The most ``v_perm_b32`` per thread, beyond :func:`stored_word_permutes` (with
    ``merged``), that LLVM may spend on a convert's line building the other 4-byte words of
    the global store after an 8-bit round trip through shared memory (module docstring);
    the fewest is 0 (LLVM builds them on the store's line, or with shifts and ors).

    Args:
        as :func:`stored_word_permutes` (without ``merged``: a word Triton stores byte by
        byte counts as if it merged, the most it may cost).

    Returns:
        For each 4-byte word (four registers of ``dst`` at consecutive addresses along
        ``store``'s dim, contiguity 4 or more) loaded by instructions of 4 bytes or more and
        not counted by :func:`stored_word_permutes`: ``k − 1`` for a word whose bytes lie in
        ``k ≥ 2`` loaded 32-bit registers (one ``v_perm_b32`` takes any four bytes of two
        registers, so ``k − 1`` join ``k``), 1 for the bytes of one register out of order,
        0 for a loaded register in order; summed. 0 off AMD, for other widths, or for
        sub-word loads (``ds_read_u8``/``u16``: zero-extended, joined by ``v_lshl_or_b32``).

    Raises:
        LayoutError: as :func:`stored_word_permutes`.

    Source: LLVM's InstCombine and AMDGPU ``v_perm_b32`` selection of Triton 3.9's
    ``tt.store`` after ``transferWithinBlockSwizzling``; where the instructions land is
    measured on the final gfx942/gfx950 AMDGCN
    (``papers/triton_lowering/amd_byte_pack_probes.py``), not predicted.
    """
    counted = stored_word_permutes(dst, load_map, loads, element_bits, target, store,
                                   merged=True)
    if target.is_nvidia or element_bits != 8 or not loads:
        return 0
    load_bytes = min(max(1, e.bytes_per_lane) for e in loads)
    if load_bytes < 4 or store[1] < 4:
        return 0
    n = 0
    for offsets in _stored_word_offsets(dst, load_map, store):
        regs = {o // 4 for o in offsets}
        if len(regs) == 2:
            n += 1
        elif len(regs) == 1 and (offsets != list(range(offsets[0], offsets[0] + 4))
                                 or offsets[0] % 4):
            n += 1
    return max(0, n - counted)


def _stored_word_offsets(dst: LinearLayout, load_map: AccessMap,
                         store: tuple[int, int]) -> list[list[int]]:
    """For each whole 4-byte word a thread stores (four bytes of ``dst`` at consecutive
    addresses along ``store``'s dim), the scratch byte offsets its bytes were loaded from, in
    byte order."""
    groups: dict = {}
    for i, w in enumerate(source_words(dst, 8, *store)):
        groups.setdefault(w.word, []).append((w.byte, i))
    return [[_offset(load_map.registers, i) for _, i in sorted(members)]
            for members in groups.values() if len(members) == 4]


def _vectorised_words(dst: LinearLayout, store: tuple[int, int]) -> bool:
    """Whether a thread's bytes of each 4-byte word are its consecutive registers, in order:
    its first two register bases step 1 and 2 elements along the store's contiguous dim (the
    layout's contiguity per thread, in register order) and AxisInfo's contiguity is 4 or
    more. Triton's ``tt.store`` lowering then stores 4-byte vectors where the pointer's
    alignment is known too, else bytes that LLVM merged in every probe measured."""
    dim, contiguity = store
    if contiguity < 4 or not 0 <= dim < len(dst.out_dims):
        return False
    regs = [img for img in dst.bases["register"] if any(img)]
    return len(regs) >= 2 and all(
        list(regs[k]) == [1 << k if j == dim else 0 for j in range(len(regs[k]))]
        for k in range(2))


def words_loaded(loads: tuple[Emitted, ...]) -> int:
    """The 32-bit words per thread that NVIDIA loads of 8-bit elements bring in, each
    unpacked with four byte extracts: ``ld.shared.b32``/``.v2.b32``/``.v4.b32`` and each
    register of an ``ldmatrix``; sub-word loads bring none.

    Raises:
        LayoutError: ``loads`` not Emitted records.
    """
    n = 0
    for e in loads:
        instance_of(e, Emitted, "load")
        m = _WORD_LOAD.match(e.opcode)
        if m and e.per_thread:
            n += int(m.group(1) or m.group(2) or 1) * e.per_thread
    return n


def _offset(registers: tuple[int, ...], index: int) -> int:
    """The element offset of register ``index`` (a sum of register bases, by its bits)."""
    out = 0
    for k, image in enumerate(registers):
        if index >> k & 1:
            out ^= image
    return out


def _words_stored(e: Emitted) -> int:
    """32-bit words per thread a store builds from registers (``st.shared.b32``/``.v2``/
    ``.v4``, each register of a ``stmatrix``); a 2-byte store builds none."""
    return (e.per_thread or 0) * (e.bytes_per_lane // 4)


def _elems_per_vector(e: Emitted) -> int:
    if e.vector_elems is None:
        return 1
    if e.bytes_per_lane and e.element_bits:
        return max(1, e.bytes_per_lane * 8 // e.element_bits)
    return e.vector_elems


def _bytes_per_vector(e: Emitted) -> int:
    return _elems_per_vector(e) * e.element_bits // 8
