"""What LLVM's AMDGPU back end makes of Triton's LDS accesses: ``SILoadStoreOptimizer`` pairs
two ``ds_read_b32``/``ds_read_b64`` (``ds_write_b32``/``ds_write_b64``) of one thread into one
``ds_read2*``/``ds_write2*`` — LLVM's doing, not Triton's.

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
  alias analysis proves apart; reads are moved up past reads freely. Not modelled: the
  model takes every intervening write of a convert or local store as proven apart (on the
  committed fixtures, 2 of 110 AMD converts pair fewer writes than that predicts, a
  write through another address register lying between the two of a pair).

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
from ..errors import LayoutError
from .vectorise import AccessMap

__all__ = ["PairedAccesses", "lds_paired_accesses"]

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
    v = as_int(vector_elems, "vector_elems")
    if v < 1 or v & (v - 1):
        raise LayoutError(f"vector_elems must be a power of two, got {v}")
    rest = list(m.registers)
    for i in range(v.bit_length() - 1):
        if (1 << i) not in rest:
            raise LayoutError(f"no register of the access reaches offset {1 << i}: not a "
                              f"{v}-element vector")
        rest.remove(1 << i)
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
