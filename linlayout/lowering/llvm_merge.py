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
``xor`` or, for registers disjoint from the lane bits and from the XORed registers, an
``add``: ``actionAdditiveStrides``). ``X`` can only have the bits ``P`` that some lane, warp
or block offset has, so ``X ⊕ c = (X ⊕ (c ∧ P)) + (c ∧ ¬P)``, and LLVM finds that split itself
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

Where LLVM proves less about ``X``. Both the alignment (``InferAlignment``) and the split of
``X ^ K`` into ``(X ^ K') + K''`` (which NVPTX's IR passes make before the LSV, over the bits
of ``K`` proven zero in ``X``) rest on LLVM's ``computeKnownBits`` (``llvm/lib/Analysis/
ValueTracking.cpp``), which stops 6 instructions deep (``MaxAnalysisRecursionDepth``).

* Modelled: LLVM's SLP vectoriser (``SLPVectorizer.cpp``; Triton 3.9 runs it on every
  NVIDIA target but sm_80: ``make_llir``, ``disable_slp_vectorizer=capability == 80``)
  turns an OR of at least four operands (:func:`or_operands`: Triton's terms for ``X``,
  ``matrixVectorProd``) into ``llvm.vector.reduce.or`` of one ``shl <4 x i32>`` with a shift
  per lane. Through a vector shift ``computeKnownBits`` keeps only what holds for every
  shift amount the lanes' common bits allow, so on that ``X`` the split no longer finds the
  bits of ``K`` outside ``P``: two accesses whose XOR constants agree on ``P`` but differ
  elsewhere (``X ^ 16`` and ``X ^ 20``) stay in separate groups (``slp=True``). A constant
  with no bit in ``P`` is folded into an addition earlier (InstCombine, before SLP) and
  joins ``X``'s own group either way. Which register offsets Triton XORs and which it adds
  is ``actionAdditiveStrides``'s choice: an offset sharing no bit with a lane, warp or block
  offset nor with an XORed register offset is added. The threshold of four operands is a
  fit to the probes (SLP built the reduction from 4, 5 and 7 operands; its cost model is not
  modelled), and so is "no bit outside ``P`` proven" (the bits a vector shift keeps depend
  on how SLP builds the vector: a splat of the thread id, or one ``insertelement`` per
  operand, each a level deeper). Where it changes a prediction it is right on 7 of 12
  probes drawn for it, the prediction without it on 1 (``papers/triton_lowering/
  README.md``): SLP may also build no reduction for ``X`` (one of its operands taken into
  another vector) or keep more apart than the mixed constants.
* Not modelled: the alignment LLVM proves for a group's base when ``X``'s OR tree is deep.
  ``InferAlignment`` runs before SLP (after LoopVectorize), on the tree ``-O3`` has left:
  Triton's balanced one, or — seen where the load's ``X`` shares lane terms with the
  store's — a re-associated left-leaning chain whose deepest operands lie past the depth
  limit; the base then keeps the element's alignment and NVPTX merges none of the group's
  accesses (``papers/triton_lowering/llvm_merge_known_bits.py``; one known mismatch of the
  ``llvm_merge`` probes).

On AMD the same pass runs with AMDGPU's legality (:func:`_split_amd`, :func:`lds_speed`:
misaligned runs the back end ranks no slower than their elements merge too), followed by
instruction selection and ``SILoadStoreOptimizer``'s ``ds_read2``/``ds_write2`` pairs: the
whole AMD model is :mod:`.lds_pairs`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .. import f2
from .._checks import as_int, instance_of
from .._memo import memoize
from ..errors import LayoutError
from .vectorise import AccessMap

__all__ = [
    "NO_SLP_CC",
    "SLP_MIN_OPERANDS",
    "MergedAccess",
    "llvm_merged_accesses",
    "merged_opcode",
    "or_operands",
]

#: NVPTX's widest shared-memory access (``getLoadStoreVecRegBitWidth``: 128 bits).
MAX_ACCESS_BYTES = 16


#: The CUDA compute capability for which Triton 3.9 turns LLVM's SLP vectoriser off
#: (``make_llir`` in ``third_party/nvidia/backend/compiler.py``: ``disable_slp_vectorizer=
#: capability == 80``, a ptxas work-around); every other NVIDIA target runs it.
NO_SLP_CC = 80

#: The fewest operands of the OR building Triton's lane/warp offset ``X`` that LLVM's SLP
#: vectoriser turns into ``llvm.vector.reduce.or`` of a ``<4 x i32>`` (four 32-bit lanes, a
#: 128-bit vector). A fit: the probes examined show the reduction from 4, 5 and 7 operands,
#: not from a 3-operand OR; SLP's cost model itself is not modelled.
SLP_MIN_OPERANDS = 4


def or_operands(columns: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """The operands of the OR tree Triton builds for a thread's byte offset ``X`` from its
    lane, warp and block ids, as LLVM's ``-O3`` sees it: each operand given by the offset bits
    it can set, in no particular order.

    ``columns``: the byte offset of each bit of Triton's input ``x`` (the lane id's bits, then
    the warp id's, then the block id's; 0 for a broadcast bit).

    Triton's ``matrixVectorProd`` (``lib/Conversion/TritonGPUToLLVM/Utility.cpp``) walks the
    diagonals of the matrix (the columns whose offset has bit ``col - shift``): a column alone
    on a diagonal (after removing those already taken, to a fixed point) becomes its own term
    — ``x & bit`` shifted, or a ``select`` of its offset when that has several bits — the
    other columns of a diagonal one ``(x & mask) << shift`` term. Terms whose rows no other
    column reaches are ORed (``or disjoint``), the others XORed; InstCombine turns an XOR of
    terms with no common bit into an ``or disjoint`` (``haveNoCommonBitsSet``), so the OR's
    operands are the terms grouped by shared bits: each group one operand.

    Raises:
        LayoutError: ``columns`` not a sequence of non-negative ints.
    """
    if not isinstance(columns, (list, tuple)):
        raise LayoutError(f"columns must be a list or tuple of byte offsets, got "
                          f"{type(columns).__name__}")
    cols = [as_int(c, "column") for c in columns]
    if any(c < 0 for c in cols):
        raise LayoutError(f"columns must be non-negative byte offsets, got {cols}")
    return _or_operands(tuple(cols))


@memoize(1024)
def _or_operands(cols: tuple[int, ...]) -> tuple[int, ...]:
    """:func:`or_operands` on checked columns."""
    ncol = len(cols)
    nrow = max([c.bit_length() for c in cols] + [1])

    def diagonal(shift: int) -> int:
        """The columns (a mask) whose offset has bit ``col - shift``."""
        return sum(1 << c for c in range(max(shift, 0), ncol)
                   if 0 <= c - shift < nrow and cols[c] >> (c - shift) & 1)

    masks = [diagonal(i) for i in range(-nrow + 1, ncol)]
    alone = 0
    grew = True
    while grew:
        grew = False
        for mask in masks:
            rest = mask & ~alone
            if rest and not rest & (rest - 1):
                alone |= rest
                grew = True
    terms = [cols[c] for c in range(ncol) if alone >> c & 1 and cols[c]]
    for shift, mask in zip(range(-nrow + 1, ncol), masks):
        bits = 0
        for c in range(ncol):
            if (mask & ~alone) >> c & 1:
                bits |= 1 << (c - shift)
        if bits:
            terms.append(bits)
    # terms sharing a bit stay XORed together: one operand per connected group
    groups: list[int] = []
    for t in terms:
        joined = [g for g in groups if g & t]
        merged = t
        for g in joined:
            merged |= g
            groups.remove(g)
        groups.append(merged)
    return tuple(groups)


def _thread_columns(m: AccessMap) -> list[int]:
    """The element offsets of the bits of Triton's ``x`` (lane, warp, block ids)."""
    return list(m.lanes) + list(m.warps) + list(m.blocks)


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
        instructions: ``((start, vector_elems), …)``, one per access the thread makes after
            the merge, sorted: ``start`` the element offset constant of its first element (the
            XOR constant ``c`` of the module doc, register offsets only: the access reads
            or writes the ``vector_elems`` elements at ``X ⊕ start, X ⊕ start + 1, …`` for a
            thread whose lane/warp/block part is ``X``; ``start`` is a multiple of
            ``vector_elems``).
    """

    widths: tuple[tuple[int, int], ...]
    vector_offsets: tuple[int, ...] = ()
    merged: bool = False
    instructions: tuple[tuple[int, int], ...] = ()


def _lowbit(x: int) -> int:
    return x & -x


def llvm_merged_accesses(m: AccessMap, vector_elems: int,
                         base_align_bytes: int = MAX_ACCESS_BYTES, *,
                         slp: bool = False) -> MergedAccess:
    """The ``ld.shared``/``st.shared`` accesses one thread makes once LLVM's NVPTX back end
    has merged Triton's ``vector_elems``-wide vectors of the access ``m``.

    ``m.registers`` are the register offsets (elements) in Triton's order; the vector's own
    registers are the ones reaching ``1, 2, …, vector_elems/2``. ``base_align_bytes``: the
    alignment of the buffer's start (Triton's shared allocation: 16 bytes or more).
    ``slp``: whether LLVM's SLP vectoriser runs on Triton's IR (Triton 3.9: every NVIDIA
    target but sm_80, :data:`NO_SLP_CC`). With it, an
    ``X`` built from at least :data:`SLP_MIN_OPERANDS` OR operands (:func:`or_operands`)
    becomes a vector reduction whose bits LLVM no longer proves, and accesses whose XOR
    constants share their lane/warp bits but differ elsewhere are not joined (module doc).

    Source: ``lowerLdSt`` and ``actionAdditiveStrides`` (Triton 3.9) for the addresses;
    ``Vectorizer::splitChainByContiguity``/``splitChainByAlignment`` (LLVM
    ``LoadStoreVectorizer.cpp``) and ``NVPTXTTIImpl::isLegalToVectorizeLoadChain`` for the
    merge.

    Raises:
        LayoutError: ``m`` not an :class:`~.vectorise.AccessMap`; ``vector_elems`` not a power
            of two whose registers ``m`` has; ``base_align_bytes`` not a positive power of two;
            ``slp`` not a bool.
    """
    instance_of(m, AccessMap, "m")
    v = as_int(vector_elems, "vector_elems")
    align0 = as_int(base_align_bytes, "base_align_bytes")
    instance_of(slp, bool, "slp")
    if v < 1 or v & (v - 1) or align0 < 1 or align0 & (align0 - 1):
        raise LayoutError(f"vector_elems and base_align_bytes must be powers of two, got "
                          f"{v} and {align0}")
    return _merged(m, v, align0, slp)


@memoize(4096)
def _merged(m: AccessMap, v: int, align0: int, slp: bool = False,
            amdgpu: bool = False) -> MergedAccess:
    """:func:`llvm_merged_accesses` on checked arguments, cached per access map (a layout
    search meets the same thread addresses on many candidate buffers); ``amdgpu``: the
    AMDGPU back end's rule for which runs become one access (:func:`_split_amd`) instead of
    NVPTX's."""
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
    xors, adds = _xor_and_added(rest, lane_bits)
    unsplit = slp and len(or_operands([o * ebytes for o in _thread_columns(m)])) \
        >= SLP_MIN_OPERANDS
    groups: dict[tuple[int, int], list[int]] = {}
    for k in f2.images(xors):
        # the XOR constant's bits outside P: split off by LLVM (module doc) unless SLP has
        # left X's bits unproven; then a mixed constant keeps its own chain
        apart = k & ~lane_bits if unsplit and k & lane_bits else 0
        for a in f2.images(adds):
            c = k ^ a
            groups.setdefault((c & lane_bits, apart), []).append((c & ~lane_bits) * ebytes)
    widths: Counter = Counter()
    accesses: list[tuple[int, int]] = []
    for (on_p, _), starts in groups.items():
        for run in _runs(sorted(starts), width_bytes):
            at = run[0]
            pieces = _split_amd(run, width_bytes, base_align, ebytes) if amdgpu \
                else _split(run, width_bytes, base_align)
            for size in pieces:
                widths[size // ebytes] += 1
                accesses.append((on_p | at // ebytes, size // ebytes))
                at += size
    out = tuple(sorted(widths.items(), reverse=True))
    merged = out != ((v, 1 << len(rest)),)
    offsets: tuple[int, ...] = ()
    if len(out) == 1 and merged:
        w = out[0][0]
        offsets = tuple(1 << i for i in range(w.bit_length() - 1))
    return MergedAccess(out, offsets, merged, tuple(sorted(accesses)))


def _xor_and_added(registers: list[int], lane_bits: int) -> tuple[list[int], list[int]]:
    """The register offsets Triton XORs into ``X`` and those it adds (``actionAdditiveStrides``
    in ``lowerLdSt``): a register offset is added when it shares no bit with any lane, warp or
    block offset (``lane_bits``) nor with an XORed register offset — to a fixed point, as
    Triton 3.9's IR shows on the probes (``papers/triton_lowering/llvm_merge_known_bits.py``:
    ``X ^ 16`` and ``X ^ 20`` where the 4-byte register offset shares a bit with ``X ^ 148``'s
    register offset only)."""
    bits = lane_bits
    xors: list[int] = []
    grew = True
    while grew:
        grew = False
        for r in registers:
            if r & bits and r not in xors:
                xors.append(r)
                bits |= r
                grew = True
    return xors, [r for r in registers if r not in xors]


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


def lds_speed(bits: int, align: int) -> int | None:
    """The relative speed the AMDGPU back end reports for one LDS access of ``bits`` bits at
    a byte alignment ``align`` on a target with unaligned DS access (gfx90a and later, in
    ROCm's unaligned access mode): None when it refuses the access, 0 or 1 for "slow", else
    the bits of a naturally aligned access of comparable speed.

    Source: ``SITargetLowering::allowsMisalignedMemoryAccessesImpl`` (LLVM
    ``SIISelLowering.cpp``, local address space): 64 bits are fast at 4-byte alignment (one
    ``ds_write2_b32``), 96 bits at 16, 128 bits at 8 (one ``ds_write2_b64``); a wider access
    below 4-byte alignment ranks as one dword; 32 bits or less rank their size when
    naturally aligned, else 0; other sizes are refused.
    """
    natural = 1
    while natural * 8 < bits:
        natural *= 2
    if bits == 64:
        return 64 if align >= 4 else 32
    if bits in (96, 128):
        need = 16 if bits == 96 else 8
        return bits if align >= need else (32 if align < 4 else 1)
    if bits > 32:
        return None
    return bits if align >= natural else 0


def _allowed_and_fast(size: int, align: int, elem_bits: int) -> bool:
    """LLVM's ``Vectorizer::accessIsAllowedAndFast`` for an LDS chain of ``size`` bytes whose
    first access is ``align``-aligned, of ``elem_bits``-bit elements: aligned to its size, or
    allowed and no slower than the elements one by one (:func:`lds_speed`)."""
    if align % size == 0:
        return True
    vec = lds_speed(8 * size, align)
    if vec is None:
        return False
    return vec >= (lds_speed(elem_bits, align) or 0)


def _split_amd(run: list[int], size: int, group_align: int, elem_bytes: int) -> list[int]:
    """The access sizes (bytes) LLVM's ``splitChainByAlignment`` makes of one run of
    contiguous ``size``-byte accesses on AMDGPU's LDS: from each start the longest prefix of
    at most 16 bytes (``getLoadStoreVecRegBitWidth``: 128 bits; any number of accesses, not
    only powers of two) that :func:`_allowed_and_fast` accepts at the start's alignment;
    a start with none stays alone."""
    out = []
    i = 0
    while i < len(run):
        # the first access's IR alignment: Triton's (its size) or LLVM's inferred, if more
        align = max(size, min(group_align, _lowbit(run[i])) if run[i] else group_align)
        best = 1
        for n in range(len(run) - i, 1, -1):
            total = n * size
            if total <= MAX_ACCESS_BYTES and _allowed_and_fast(total, align, 8 * elem_bytes):
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

