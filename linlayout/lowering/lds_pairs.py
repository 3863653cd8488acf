"""What LLVM's AMDGPU back end makes of Triton's LDS accesses — LLVM's doing, not Triton's:
its ``LoadStoreVectorizer`` merges a thread's contiguous accesses (:func:`lds_instructions`)
and ``SILoadStoreOptimizer`` pairs two ``ds_read_b32``/``ds_read_b64``
(``ds_write_b32``/``ds_write_b64``) of one thread into one ``ds_read2*``/``ds_write2*``
(:func:`lds_paired_accesses` alone; :func:`lds_instructions` both, with Triton's program
order and the writes alias analysis cannot move past).

Triton 3.9 emits each register ⇄ LDS copy at its own vector width, one LLVM ``load``/``store``
per vector, and the AMDGPU code generator selects ``ds_read_b32``/``b64``/… for each. The
machine pass ``SILoadStoreOptimizer`` (``llvm/lib/Target/AMDGPU/SILoadStoreOptimizer.cpp``)
then runs before register allocation — so on Triton's lowering before ``-O3`` too — and
pairs accesses under these rules (read from the LLVM source):

* only ``DS_READ_B32``/``DS_READ_B64`` and ``DS_WRITE_B32``/``DS_WRITE_B64`` are candidates
  (``getInstClass``/``getOpcodeWidth``), and only two of the same opcode pair
  (``getInstSubclass``): ``ds_read_u8/u16``, ``ds_read_b96/b128`` and the writes of those
  widths stay alone;
* within a stretch of a basic block without an ordered memory access or an instruction with
  unmodelled side effects (a barrier ends it), the candidates are put in lists, one per
  address register (``hasSameBaseAddress``); each list is sorted by the access's immediate
  offset and walked once: two neighbours in that order pair when their offsets differ, are
  multiples of the size ``s`` (4 or 8 bytes), and, in units of ``s``, either differ by at
  most 255 or differ by a multiple of 64 at most ``255 · 64`` (``offsetsCanBeCombined``; the
  base is moved by an added constant where the offsets themselves do not fit the two 8-bit
  fields). A pair becomes the ``st64`` form (offsets in units of ``64 s``) when both offsets
  are multiples of ``64 s`` below ``256 · 64 s``, or when only their distance is such a
  multiple and they do not both fit 8 bits; else the plain form. A merged pair is not
  merged again; the walk goes on after it, and an access that pairs with neither neighbour
  stays alone (``optimizeInstsWithSameBaseAddr``);
* a write is moved down to its partner (``checkAndPrepareMerge``) only past writes LLVM's
  alias analysis proves apart; reads are moved up past reads freely. :func:`lds_paired_accesses`
  takes every intervening write as proven apart; :func:`lds_instructions` takes writes
  through another address register as not (their addresses differ by an ``xor`` of lane
  bits, which alias analysis cannot decompose) in Triton's program order (``lowerLdSt``:
  the register offsets it adds in the inner loop, those it XORs outside,
  ``actionAdditiveStrides``) — on the committed fixtures that matches the writes LLVM
  pairs.

The address registers. As for NVIDIA (:mod:`.llvm_merge`), a thread's accesses sit at
``X ⊕ c`` with ``X`` the lane/warp/block part, which has only the bits ``P`` some lane, warp
or block offset has: ``X ⊕ c = (X ⊕ (c ∧ P)) + (c ∧ ¬P)``. Accesses with the same ``c ∧ P``
share one address register and differ by the constants ``c ∧ ¬P``, which instruction
selection folds into the 16-bit immediate offset; accesses with different ``c ∧ P`` have
different registers and never pair. The immediate is taken as ``c ∧ ¬P`` in bytes (the
buffer at LDS offset 0; a buffer elsewhere can only change the ``st64``/plain choice).

The bytes are unchanged: a ``ds_read2_b32`` reads the two dwords the two ``ds_read_b32``
did, each lane at its two addresses (the two halves are served one after the other:
:mod:`linlayout.hardware.lds`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import f2
from .._checks import as_int, instance_of
from .._memo import memoize
from ..errors import LayoutError
from .llvm_merge import MAX_ACCESS_BYTES, contiguous_runs, split_amd_run, xor_and_added
from .vectorise import AccessMap

__all__ = ["LdsKind", "PairedAccesses", "lds_instructions", "lds_lowered", "lds_paired_accesses"]

#: ``offset0``/``offset1`` of ``ds_read2*``/``ds_write2*``: 8 bits each, in units of the size
#: (or of 64 sizes for ``st64``).
_FIELD = 255


@dataclass(frozen=True)
class PairedAccesses:
    """The LDS accesses of one thread once ``SILoadStoreOptimizer`` has paired them.

    Attributes:
        single: accesses left alone (Triton's instruction).
        pairs: ``ds_read2_b*``/``ds_write2_b*`` made (two accesses each).
        pairs_st64: ``ds_read2st64_b*``/``ds_write2st64_b*`` made.
    """

    single: int
    pairs: int = 0
    pairs_st64: int = 0

    @property
    def paired(self) -> bool:
        """Whether LLVM paired anything."""
        return bool(self.pairs or self.pairs_st64)


def _pair_kind(a: int, b: int, size: int) -> str | None:
    """``"st64"``, ``"plain"`` or None: how ``offsetsCanBeCombined`` combines two immediate
    offsets ``a``, ``b`` (bytes) of accesses of ``size`` bytes."""
    if a == b or a % size or b % size:
        return None
    ea, eb = a // size, b // size
    if ea % 64 == 0 and eb % 64 == 0 and ea // 64 <= _FIELD and eb // 64 <= _FIELD:
        return "st64"
    if ea <= _FIELD and eb <= _FIELD:
        return "plain"
    d = abs(ea - eb)
    if d % 64 == 0 and d // 64 <= _FIELD:
        return "st64"
    if d <= _FIELD:
        return "plain"
    return None


def _padded(o: int, pads: tuple[tuple[int, int], ...]) -> int:
    """Element ``o`` of the linear remap at its ``padded_shared`` position (each interval
    ``iv`` adds ``pad`` elements after every ``iv``)."""
    return o + sum((o // iv) * pad for iv, pad in pads)


def lds_paired_accesses(m: AccessMap, vector_elems: int,
                        pads: tuple[tuple[int, int], ...] = ()) -> PairedAccesses:
    """The accesses one thread makes once LLVM's ``SILoadStoreOptimizer`` has paired Triton's
    ``vector_elems``-wide LDS accesses of ``m`` (module docstring).

    ``m.registers`` are the register offsets (elements) in Triton's order; the vector's own
    registers are the ones reaching ``1, 2, …, vector_elems/2``; the other registers, in
    order, give Triton's (program) order of the accesses. ``pads``: the ``(interval,
    pad)`` pairs of a ``padded_shared`` buffer (``m`` then describes its linear remap): a
    constant ``k`` whose bits no lane or warp offset has lands ``k + Σ ⌊k/iv⌋·pad`` elements
    from its register's address, since adding such disjoint bits carries nothing into the
    interval counts.

    Returns:
        :class:`PairedAccesses`; for a width other than 4 or 8 bytes, everything single.

    Source: ``SILoadStoreOptimizer.cpp`` (``collectMergeableInsts``,
    ``optimizeInstsWithSameBaseAddr``, ``offsetsCanBeCombined``, ``checkAndPrepareMerge``);
    ``lowerLdSt`` (Triton 3.9) for the addresses.

    Raises:
        LayoutError: ``m`` not an :class:`~.vectorise.AccessMap`; ``vector_elems`` not a
            power of two whose registers ``m`` has.
    """
    instance_of(m, AccessMap, "m")
    v, rest = _vector_and_rest(m, vector_elems)
    n = 1 << len(rest)
    ebytes = max(8, m.element_bits) // 8
    size = v * ebytes
    if size not in (4, 8):
        return PairedAccesses(n)
    lane_bits = 0
    for o in list(m.lanes) + list(m.warps) + list(m.blocks):
        lane_bits |= o
    order = f2.images(rest)  # program order
    group = [c & lane_bits for c in order]
    imm = [_padded(c & ~lane_bits, pads) * ebytes for c in order]
    lists: dict[int, list[int]] = {}
    for i, g in enumerate(group):
        lists.setdefault(g, []).append(i)
    pairs = st64 = 0
    for g, members in lists.items():
        members.sort(key=lambda i: imm[i])  # stable: program order among equal offsets
        k = 0
        while k + 1 < len(members):
            a, b = members[k], members[k + 1]
            kind = _pair_kind(imm[a], imm[b], size)
            if kind is None:
                k += 1
                continue
            if kind == "st64":
                st64 += 1
            else:
                pairs += 1
            k += 2
    return PairedAccesses(n - 2 * (pairs + st64), pairs, st64)


@dataclass(frozen=True)
class LdsKind:
    """One kind of LDS instruction a thread executes for an access, once LLVM has merged and
    paired Triton's vectors.

    Attributes:
        form: ``""`` (one address), ``"2"`` (``ds_read2_b*``/``ds_write2_b*``) or
            ``"2st64"``.
        nbytes: the bytes one address moves (a half's, for the paired forms): 1, 2, 4, 8,
            12 or 16.
        count: instructions per thread.
        starts: the element offset constant of each address's first element (two per paired
            instruction), sorted: lane ``X`` moves ``X ⊕ start …`` (as
            :attr:`~.llvm_merge.MergedAccess.instructions`).
    """

    form: str
    nbytes: int
    count: int
    starts: tuple[int, ...]

    def opcode(self, side: str) -> str:
        """The AMDGCN mnemonic (``ds_write2st64_b32``, ``ds_read_u16``, …) for ``side``
        (``"load"``/``"store"``)."""
        from .names import amd_lds

        if not self.form:
            return amd_lds(side, self.nbytes)
        op = "ds_read" if side == "load" else "ds_write"
        return f"{op}{self.form}_b{8 * self.nbytes}"


def _pieces(nbytes: int) -> list[int]:
    """A merged access of ``nbytes`` as instruction selection emits it: one access of a size
    an LDS instruction has (1, 2, 4, 8, 12, 16), else power-of-two pieces, largest first
    (a 3-byte chain: ``ds_write_b16`` and ``ds_write_b8``)."""
    if nbytes in (1, 2, 4, 8, 12, 16):
        return [nbytes]
    out = []
    p = 16
    while nbytes:
        while p > nbytes:
            p //= 2
        out.append(p)
        nbytes -= p
    return out


def lds_instructions(m: AccessMap, vector_elems: int,
                     pads: tuple[tuple[int, int], ...] = (), *,
                     store: bool = False) -> tuple[LdsKind, ...]:
    """The LDS instructions one thread executes for Triton's ``vector_elems``-wide accesses of
    ``m`` once LLVM's AMDGPU back end has merged them (``LoadStoreVectorizer``) and paired
    them (``SILoadStoreOptimizer``), one :class:`LdsKind` per kind, in a fixed order.

    1. **Merge.** The ``LoadStoreVectorizer`` (run by AMDGPU's code generator before
       instruction selection) joins the accesses of one address register (the same ``c ∧ P``,
       :func:`lds_paired_accesses`) that are contiguous, as NVPTX's
       (:func:`~.llvm_merge.llvm_merged_accesses`), but under AMDGPU's legality: from each
       start the longest run of at most 16 bytes that is aligned to its size, or that
       ``allowsMisalignedMemoryAccesses`` allows and ranks no slower than its elements
       (:func:`~.llvm_merge.lds_speed`: two dwords at 4-byte alignment, four at 8, three at
       16). The alignment is the start's (the lowest set bit of ``P`` and of the immediate,
       in bytes, at most 16: ``InferAlignment``). Not modelled on a ``padded_shared``
       buffer (``pads``): Triton's vectors are kept there.
    2. **Select.** An 8-byte access aligned to 4 (not 8) is one ``ds_*2_b32`` with adjacent
       offsets, a 16-byte one aligned to 8 (not 16) one ``ds_*2_b64``
       (``DS64Bit4ByteAligned``/``DS128Bit8ByteAligned`` patterns); other sizes are one
       ``ds_*_b<bits>`` (``ds_read_u8``/``u16`` for narrow reads), a 3-byte chain a 2- and a
       1-byte access.
    3. **Pair.** The single ``b32``/``b64`` accesses are paired as
       :func:`lds_paired_accesses` describes: one list per address register, sorted by
       immediate offset, in which a ``b32`` and a ``b64`` neighbour do not pair (one list per
       instruction class: ``DS_READ``/``DS_WRITE``; two of one opcode only).

    Source: ``LoadStoreVectorizer.cpp`` (``splitChainByContiguity``,
    ``splitChainByAlignment``, ``accessIsAllowedAndFast``), ``GCNTTIImpl::
    getLoadStoreVecRegBitWidth``, ``SITargetLowering::allowsMisalignedMemoryAccessesImpl``,
    AMDGPU's ``DSInstructions.td`` patterns and ``SILoadStoreOptimizer.cpp`` (LLVM); Triton
    3.9's ``lowerLdSt`` for the addresses.

    Raises:
        LayoutError: as :func:`lds_paired_accesses`.
    """
    instance_of(m, AccessMap, "m")
    instance_of(store, bool, "store")
    v, rest = _vector_and_rest(m, vector_elems)
    return _lds_instructions(m, v, tuple(rest), _checked_pads(pads), store)


@memoize(4096)
def _lds_instructions(m: AccessMap, v: int, rest: tuple[int, ...],
                      pads: tuple[tuple[int, int], ...], store: bool) -> tuple[LdsKind, ...]:
    """:func:`lds_instructions` on checked arguments, cached per access map (a kernel and the
    layout search meet the same accesses many times)."""
    ebytes = max(8, m.element_bits) // 8
    width = v * ebytes
    others = [o for o in list(m.lanes) + list(m.warps) + list(m.blocks) if o]
    lane_bits = 0
    for o in others:
        lane_bits |= o
    group_align = min([MAX_ACCESS_BYTES] + [(o * ebytes) & -(o * ebytes) for o in others])
    # Triton's program order of its vectors (element constants): lowerLdSt's loop over the
    # registers it adds (inner) inside the loop over those it XORs (actionAdditiveStrides)
    xors, adds = xor_and_added(list(rest), lane_bits)
    order = f2.images(adds + xors)

    accs = [(c & lane_bits, _padded(c & ~lane_bits, pads) * ebytes, c) for c in order]
    instrs = _lowered(accs, width, ebytes, group_align, store, not pads)
    kinds: dict[tuple[str, int], list[int]] = {}
    for ins in instrs:
        kinds.setdefault((ins[5], ins[3]), []).extend(ins[4])
    out = []
    for (form, nbytes), starts in sorted(kinds.items(), key=lambda kv: (-kv[0][1], kv[0][0])):
        n = len(starts) // (2 if form else 1)
        out.append(LdsKind(form, nbytes, n, tuple(sorted(starts))))
    return tuple(out)


def _lowered(accs: list[tuple[int, int, int]], width: int, ebytes: int, group_align: int,
             store: bool, merge: bool, pair_narrow_reads: bool = True) -> list[list]:
    """The machine LDS instructions of Triton's ``width``-byte accesses ``accs`` (program
    order; each ``(address register, immediate bytes, start element)``) after LLVM's
    ``LoadStoreVectorizer`` (when ``merge``), instruction selection and
    ``SILoadStoreOptimizer``, as :func:`lds_instructions` describes (without
    ``pair_narrow_reads``, a dword read of elements under 32 bits stays single); each
    ``[position, register, immediate, bytes per address, starts, form]``."""
    # 1. the LoadStoreVectorizer: (position, register, immediate, bytes, start) per access
    merged: list[tuple[int, int, int, int, int]] = []
    groups: dict[int, list[tuple[int, int, int]]] = {}
    for pos, (g, imm, start) in enumerate(accs):
        groups.setdefault(g, []).append((pos, imm, start))
    for g, members in groups.items():
        segments = [[members[0]]]
        for prev, cur in zip(members, members[1:]):
            # a store chain ends at a store through another address register, which alias
            # analysis does not prove apart (splitChainByMayAliasInstrs)
            if store and cur[0] != prev[0] + 1:
                segments.append([cur])
            else:
                segments[-1].append(cur)
        for seg in segments:
            if not merge:
                merged.extend((pos, g, imm, width, start) for pos, imm, start in seg)
                continue
            at = {imm: (pos, start) for pos, imm, start in seg}
            for run in contiguous_runs(sorted(at), width):
                k = 0
                for size in split_amd_run(run, width, group_align, ebytes):
                    n = size // width
                    poss = [at[b][0] for b in run[k:k + n]]
                    # stores sink to the chain's last, loads rise to its first (vectorizeChain)
                    merged.append((max(poss) if store else min(poss), g, run[k], size,
                                   at[run[k]][1]))
                    k += n

    # 2. instruction selection: [position, register, immediate, bytes, starts, form]
    instrs: list[list] = []
    single: set[int] = set()  # dword reads of narrow elements, when they are not paired
    for pos, g, imm, nbytes, start in sorted(merged):
        # the IR alignment: Triton's own (its vector's size) or what LLVM infers, if more
        align = max(width, min(group_align, imm & -imm) if imm else group_align)
        if nbytes > width and (nbytes == 8 and align == 4 or nbytes == 16 and align == 8):
            half = nbytes // 2
            instrs.append([pos, g, imm, half, (start, start + half // ebytes), "2"])
            continue
        at_b, at_e = imm, start
        if not store and nbytes == 3 and align >= 4:
            # a 3-byte load aligned to 4 is widened to the dword (type legalisation): one
            # ds_read_b32, its fourth byte read too
            instrs.append([pos, g, imm, 4, (start,), ""])
            if not pair_narrow_reads:
                single.add(id(instrs[-1]))
            continue
        for piece in _pieces(nbytes):
            instrs.append([pos, g, at_b, piece, (at_e,), ""])
            if not (store or pair_narrow_reads) and piece == 4 and ebytes < 4:
                single.add(id(instrs[-1]))
            at_b += piece
            at_e += piece // ebytes

    # 3. SILoadStoreOptimizer: one list per address register
    lists: dict[int, list[list]] = {}
    for ins in instrs:
        if ins[3] in (4, 8) and not ins[5] and id(ins) not in single:
            lists.setdefault(ins[1], []).append(ins)
    for members in lists.values():
        members.sort(key=lambda t: (t[2], t[0]))  # by offset, stable in program order
        k = 0
        while k + 1 < len(members):
            a, b = members[k], members[k + 1]
            kind = _pair_kind(a[2], b[2], a[3]) if a[3] == b[3] else None
            first, second = (a, b) if a[0] <= b[0] else (b, a)
            if kind is not None and store and any(
                    x[1] != first[1] and first[0] < x[0] < second[0] for x in instrs):
                # a write is sunk to its partner only past writes alias analysis proves
                # apart: not those through another address register (checkAndPrepareMerge)
                kind = None
            if kind is None:
                k += 1
                continue
            instrs.remove(first)
            second[4] = tuple(sorted(a[4] + b[4]))
            second[5] = "2st64" if kind == "st64" else "2"
            if not store:
                second[0] = first[0]  # a read rises to its partner
            k += 2
    return instrs


def lds_lowered(accesses, width: int, element_bits: int, base_align: int, *,
                store: bool, pair_narrow_reads: bool = True
                ) -> tuple[tuple[str, int, int], ...]:
    """The LDS instructions one thread executes for Triton's ``width``-byte accesses of
    ``element_bits``-bit elements at ``accesses`` — ``(address register, immediate byte
    offset)`` pairs in program order, the register any hashable key, its address aligned to
    ``base_align`` bytes — once LLVM has merged and paired them (the rules of
    :func:`lds_instructions`): ``((form, bytes per address, count), …)``. Without
    ``pair_narrow_reads`` a ``ds_read_b32`` of elements under 32 bits (a merged vector of
    them, or a 3-byte load widened to the dword) is left single, as in every compiled AMD
    ``tt.scan`` reload seen (a fit: :func:`linlayout.check.shared_memory.scan` passes it).

    Source: as :func:`lds_instructions` (LLVM's ``LoadStoreVectorizer.cpp``,
    ``SIISelLowering.cpp``, ``SILoadStoreOptimizer.cpp``).

    Raises:
        LayoutError: ``width`` or ``base_align`` not a positive power of two, an immediate
            not a non-negative int.
    """
    w = as_int(width, "width")
    a = as_int(base_align, "base_align")
    ebytes = max(8, as_int(element_bits, "element_bits")) // 8
    if w < 1 or w & (w - 1) or a < 1 or a & (a - 1):
        raise LayoutError(f"width and base_align must be powers of two, got {w} and {a}")
    accs = []
    for g, imm in accesses:
        imm = as_int(imm, "immediate")
        if imm < 0:
            raise LayoutError(f"immediate offsets are non-negative, got {imm}")
        accs.append((g, imm, imm // ebytes))
    kinds: dict[tuple[str, int], int] = {}
    for ins in _lowered(accs, w, ebytes, min(a, MAX_ACCESS_BYTES), store, True,
                        pair_narrow_reads):
        kinds[(ins[5], ins[3])] = kinds.get((ins[5], ins[3]), 0) + 1
    return tuple((f, n, c) for (f, n), c in sorted(kinds.items(),
                                                     key=lambda kv: (-kv[0][1], kv[0][0])))


def _vector_and_rest(m: AccessMap, vector_elems) -> tuple[int, list[int]]:
    """``vector_elems`` checked (a power of two whose registers ``m`` has) and the register
    offsets of ``m`` outside the vector's own (``1, 2, …, vector_elems/2``)."""
    v = as_int(vector_elems, "vector_elems")
    if v < 1 or v & (v - 1):
        raise LayoutError(f"vector_elems must be a power of two, got {v}")
    rest = list(m.registers)
    for i in range(v.bit_length() - 1):
        if (1 << i) not in rest:
            raise LayoutError(f"no register of the access reaches offset {1 << i}: not a "
                              f"{v}-element vector")
        rest.remove(1 << i)
    return v, rest


def _checked_pads(pads: object) -> tuple[tuple[int, int], ...]:
    """``pads`` as a tuple of ``(interval, pad)`` element counts (intervals positive powers
    of two, pads non-negative), else a LayoutError."""
    try:
        out = tuple((as_int(iv, "interval"), as_int(pad, "pad")) for iv, pad in pads)
    except (TypeError, ValueError) as exc:
        raise LayoutError(f"pads must be (interval, pad) pairs of element counts, got "
                          f"{pads!r}") from exc
    for iv, pad in out:
        if iv < 1 or iv & (iv - 1) or pad < 0:
            raise LayoutError(f"a pad interval must be a positive power of two and a pad "
                              f"non-negative, got ({iv}, {pad})")
    return out
