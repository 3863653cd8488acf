"""What LLVM's NVPTX back end makes of Triton's ``ld.shared``/``st.shared`` vectors: LLVM's
``LoadStoreVectorizer``, not Triton.

Triton 3.9 emits each register ⇄ shared copy at its own vector width
(:func:`~.vectorise.largest_vectorisation`), one LLVM ``load``/``store`` per vector. Its LLVM
IR before ``-O3`` is that lowering. LLVM may afterwards merge neighbouring accesses: the NVPTX
code generator runs the ``LoadStoreVectorizer`` (``llvm/lib/Transforms/Vectorize/
LoadStoreVectorizer.cpp``), which joins accesses of one thread whose addresses differ by a
constant into one wider access when they are contiguous and the first is aligned to the
width. Triton's vector test asks more — that the vector's *registers* map, in some order, to
offsets ``1, 2, 4, …`` and that every other basis is a multiple of the width — so when a
shared layout puts a thread's elements next to each other through an XOR of several bits
(a register reaching offset ``2^k + 1``, say), Triton emits narrow accesses and LLVM merges
them.

The addresses LLVM sees. Triton's ``lowerLdSt`` (``lib/Conversion/TritonGPUToLLVM/
Utility.cpp``) computes the lane, warp and block part ``X`` of the offset once, then each
access's offset as ``X ⊕ c``, ``c`` the XOR of the register offsets outside the vector (as an
``xor`` or, for registers it finds disjoint from the lane bits, an ``add``:
``actionAdditiveStrides``). ``X`` can only have the bits ``P`` that some lane, warp or block
offset has, so ``X ⊕ c = (X ⊕ (c ∧ P)) + (c ∧ ¬P)``, and LLVM finds that split itself
(known bits: InstCombine turns the ``xor`` of bits known to be zero into a disjoint ``or``,
which ScalarEvolution adds; a constant with bits of both kinds is split before the LSV, as far
as the known bits reach: below). So the accesses of one thread fall into groups, one per value
of ``c ∧ P``: inside a group they differ by the constants ``c ∧ ¬P``; across groups by no
constant LLVM can prove. The alignment LLVM proves for an access (``InferAlignment``) is the
lowest set bit of ``P`` and of its constant (in bytes), capped by the buffer's 16-byte base.

Per group, LLVM (``splitChainByContiguity``, ``splitChainByAlignment``) sorts the accesses by
address, cuts them into runs of contiguous ones, and walks each run from its start: the
longest prefix of at most 16 bytes (``getLoadStoreVecRegBitWidth``) whose size divides the
first access's alignment (NVPTX's ``isLegalToVectorizeLoad/StoreChain``: alignment ≥ size; no
misaligned access) becomes one access, and the walk goes on after it; a first access with no
such prefix stays alone and the walk moves one access on.

Not modelled: how much LLVM actually proves about ``X``. LLVM's ``computeKnownBits``
(``llvm/lib/Analysis/ValueTracking.cpp``) stops 6 instructions deep, and LLVM's SLP
vectoriser (``SLPVectorizer.cpp``; Triton 3.9 runs it on sm_90 and later, not on sm_80) may
turn the ``or`` of Triton's lane terms into ``llvm.vector.reduce.or`` of one ``shl <4 x
i32>`` with a different shift per lane, of a vector built by one ``insertelement`` per
lane: its known bits are only those all lanes share, each lane one level deeper.

Both the alignment (``InferAlignment``) and the split of ``X ^ K`` into ``(X ^ K') + K''``
(which NVPTX's IR passes make before the LSV, over the bits of ``K`` proven zero in ``X``)
rest on those known bits; where the bits this model assumes go unproven, a group's first
access keeps the element's alignment, or the group stays cut into sub-groups the LSV sees
no constant distance between, and LLVM merges less than predicted
(``papers/triton_lowering/llvm_merge_known_bits.py`` shows both on the probes).

AMD is not modelled here: LLVM's AMDGPU back end merges LDS accesses under its own rules,
which keep the bytes each thread moves — ``SILoadStoreOptimizer``'s ``ds_read2``/``ds_write2``
pairs (:mod:`.lds_pairs`); its ``LoadStoreVectorizer`` widening on AMD is not modelled.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .. import f2
from .._checks import as_int, instance_of
from .._memo import memoize
from ..errors import LayoutError
from .vectorise import AccessMap

__all__ = ["MergedAccess", "llvm_merged_accesses", "merged_opcode"]

#: NVPTX's widest shared-memory access (``getLoadStoreVecRegBitWidth``: 128 bits).
MAX_ACCESS_BYTES = 16


@dataclass(frozen=True)
class MergedAccess:
    """The accesses one thread makes after LLVM's ``LoadStoreVectorizer``.

    Attributes:
        widths: ``((vector_elems, per_thread), …)``, widest first: how many accesses of each
            width one thread makes (straight-line code).
        vector_offsets: when every access has the same width ``w``: the element offsets
            ``1, 2, …, w/2`` (so a register basis can be chosen whose first ``log2 w``
            vectors make the merged vector), else ``()``.
        merged: whether LLVM changed anything (False: Triton's own vectors stay).
    """

    widths: tuple[tuple[int, int], ...]
    vector_offsets: tuple[int, ...] = ()
    merged: bool = False


def _lowbit(x: int) -> int:
    return x & -x


def llvm_merged_accesses(m: AccessMap, vector_elems: int,
                         base_align_bytes: int = MAX_ACCESS_BYTES) -> MergedAccess:
    """The ``ld.shared``/``st.shared`` accesses one thread makes once LLVM's NVPTX back end
    has merged Triton's ``vector_elems``-wide vectors of the access ``m``.

    ``m.registers`` are the register offsets (elements) in Triton's order; the vector's own
    registers are the ones reaching ``1, 2, …, vector_elems/2``. ``base_align_bytes``: the
    alignment of the buffer's start (Triton's shared allocation: 16 bytes or more).

    Source: ``lowerLdSt`` and ``actionAdditiveStrides`` (Triton 3.9) for the addresses;
    ``Vectorizer::splitChainByContiguity``/``splitChainByAlignment`` (LLVM
    ``LoadStoreVectorizer.cpp``) and ``NVPTXTTIImpl::isLegalToVectorizeLoadChain`` for the
    merge.

    Raises:
        LayoutError: ``m`` not an :class:`~.vectorise.AccessMap`; ``vector_elems`` not a power
            of two whose registers ``m`` has; ``base_align_bytes`` not a positive power of two.
    """
    instance_of(m, AccessMap, "m")
    v = as_int(vector_elems, "vector_elems")
    align0 = as_int(base_align_bytes, "base_align_bytes")
    if v < 1 or v & (v - 1) or align0 < 1 or align0 & (align0 - 1):
        raise LayoutError(f"vector_elems and base_align_bytes must be powers of two, got "
                          f"{v} and {align0}")
    return _merged(m, v, align0)


@memoize(4096)
def _merged(m: AccessMap, v: int, align0: int) -> MergedAccess:
    """:func:`llvm_merged_accesses` on checked arguments, cached per access map (a layout
    search meets the same thread addresses on many candidate buffers)."""
    regs = list(m.registers)
    k = v.bit_length() - 1
    rest = list(regs)
    for i in range(k):
        if (1 << i) not in rest:
            raise LayoutError(f"no register of the access reaches offset {1 << i}: not a "
                              f"{v}-element vector")
        rest.remove(1 << i)
    ebytes = max(8, m.element_bits) // 8
    others = [o for o in list(m.lanes) + list(m.warps) + list(m.blocks) if o]
    lane_bits = 0
    for o in others:
        lane_bits |= o
    base_align = min([align0, MAX_ACCESS_BYTES] + [_lowbit(o * ebytes) for o in others])
    width_bytes = v * ebytes
    groups: dict[int, list[int]] = {}
    for c in f2.images(rest):
        groups.setdefault(c & lane_bits, []).append((c & ~lane_bits) * ebytes)
    widths: Counter = Counter()
    for starts in groups.values():
        for run in _runs(sorted(starts), width_bytes):
            for size in _split(run, width_bytes, base_align):
                widths[size // ebytes] += 1
    out = tuple(sorted(widths.items(), reverse=True))
    merged = out != ((v, 1 << len(rest)),)
    offsets: tuple[int, ...] = ()
    if len(out) == 1 and merged:
        w = out[0][0]
        offsets = tuple(1 << i for i in range(w.bit_length() - 1))
    return MergedAccess(out, offsets, merged)


def _runs(starts: list[int], size: int) -> list[list[int]]:
    """Sorted access starts (bytes) cut into runs of contiguous accesses of ``size`` bytes."""
    runs: list[list[int]] = []
    for s in starts:
        if runs and runs[-1][-1] + size == s:
            runs[-1].append(s)
        else:
            runs.append([s])
    return runs


def _split(run: list[int], size: int, group_align: int) -> list[int]:
    """The access sizes (bytes) LLVM's ``splitChainByAlignment`` makes of one run."""
    out = []
    i = 0
    while i < len(run):
        align = min(group_align, _lowbit(run[i])) if run[i] else group_align
        best = 1
        for n in range(len(run) - i, 1, -1):
            total = n * size
            if total <= MAX_ACCESS_BYTES and align % total == 0:
                best = n
                break
        out.append(best * size)
        i += best
    return out


def merged_opcode(side: str, vector_elems: int, element_bits: int) -> str:
    """How NVPTX prints a vector LLVM merged: ``vector_elems`` elements of ``element_bits``
    kept as their own type (``<2 x i16>`` → ``st.shared.v2.b16``, ``<4 x i16>`` →
    ``.v4.b16``, ``<2 x i8>`` → ``.v2.b8``), except where NVPTX holds several in one 32-bit
    register (``<4 x i8>`` → ``.b32``, ``<8 x i8>`` → ``.v2.b32``, 16 bytes of 8- or 16-bit
    elements → ``.v4.b32``).

    Source: NVPTX's legal vector types (``NVPTXISelLowering.cpp``: ``v2i8``/``v2i16``/``v4i16``
    vectors, ``v4i8`` and ``v2i16`` packed in 32-bit registers), as printed for Triton 3.9.

    Raises:
        LayoutError: a width over 16 bytes, or a side other than ``"load"``/``"store"``.
    """
    if side not in ("load", "store"):
        raise LayoutError(f"side must be 'load' or 'store', got {side!r}")
    n = as_int(vector_elems, "vector_elems")
    bits = max(8, as_int(element_bits, "element_bits"))
    total = n * bits
    if total > 128:
        raise LayoutError(f"{total}-bit shared access: PTX has no wider access than 128 bits")
    op = "ld" if side == "load" else "st"
    if bits >= 32 or n == 1 or total > 64 or (bits == 8 and n >= 4):
        word = 64 if bits >= 64 else (bits if n == 1 else 32)
        k = total // word
        return f"{op}.shared.b{word}" if k == 1 else f"{op}.shared.v{k}.b{word}"
    return f"{op}.shared.v{n}.b{bits}"

