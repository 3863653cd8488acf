"""The packed exchange: a shuffle conversion of 8- or 16-bit elements in one round, two
elements to a word.

When every lane holds at most two source elements (one or two registers, broadcast copies
included) and some lane holds everything each lane lacks, one shuffle can carry a lane's
whole source. The plan, per lane, on NVIDIA:

1. *pack* the source registers as the two 16-bit halves of one 32-bit word ``x``: one
   ``mov.b32 x, {lo, hi}`` (PTX ISA, *Data Movement and Conversion Instructions: mov*,
   packing a vector into a scalar). An 8-bit element already lives in a 16-bit register
   (NVPTX keeps ``i8`` values in ``.b16`` registers), and Triton 3.9's
   ``transferWithinWarp`` (``ConvertLayoutOpToLLVM.cpp``) packs 8-bit elements two to a word
   as 16-bit halves the same way; a ``mov`` is priced as a copy (weight 0);
2. one ``shfl.sync.idx.b32`` reads ``x`` of the lane ``σ(l)`` (``recv``);
3. each *destination word* (destination registers ``2k`` and ``2k + 1``) is one
   ``prmt.b32`` of ``x`` and ``recv`` whose selector picks, per lane, the two halves that
   hold that lane's elements, from ``recv`` where it has them (a lane lacking nothing reads
   itself, so its ``recv`` is its ``x``; PTX ISA, ``prmt``: any four of the eight bytes);
   a word that takes both halves from ``x``, or both from ``recv``, the same way in every
   lane needs none (its registers are that word's halves, unpacked);
4. *unpack* each word into its two registers with ``mov.b32 {lo, hi}, word`` (a ``mov``).

The selector of step 3 depends only on the lane index: a per-lane constant, which a lowering
picks as Triton 3.9's ``transferWithinWarp`` picks its own ``prmt`` selectors — a select of
two constant selectors on a lane predicate (``selp.b32`` of two immediates), one select per
further value a selector takes across the lanes, shared by the words whose selectors agree
in every lane. Those selects are counted in the ``selector`` kind
(:mod:`~linlayout.conversion.cost`), the kind Triton's selector ``selp`` is counted in when
the planner prices Triton's path (:func:`~linlayout.conversion.triton.register_kinds`;
``check`` still lists it as the ``selp.b32`` the PTX has): both are lane-index arithmetic,
like a shuffle's source lane and a select's predicate, weighted 0 by default and priced
alike when the weight is set. On the single register/lane exchange this costs one ``shfl``,
one ``prmt`` and one selector select where the select plans need one ``shfl`` and three
``selp`` (data selects): at the shuffle family's bound, which counts no selector.

``wide_source``: the producer left each 16-bit element in a 32-bit register (a gather's or
``redux.sync`` reduction's truncated 32-bit result,
:func:`linlayout.check.registers.wide_sources`); step 1 then joins the two registers' low
halves with one ``prmt.b32`` (selector ``0x5410``, NVPTX's selection, as ``check`` counts for
Triton's packing of such a source), and a single source register is shuffled as it is (its
low half is the element; the high half is never picked). 8-bit elements pack as before
(NVPTX's byte packing is the same from either register width, as measured on Triton's
converts of such sources).

On AMD packing costs a ``v_perm_b32`` per word
(:data:`~linlayout.conversion.shuffle.AMD_PACK_PERMUTES`), which the other plans already
model, so the plan is built for NVIDIA targets only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._checks import instance_of
from ..errors import LayoutError
from ..lowering import Target
from .problem import ConversionProblem
from .shuffle import warp_map

__all__ = ["MAX_EXCHANGE_DST_REGISTERS", "PackedExchangePlan", "plan_packed_exchange"]

#: Most destination registers the packed exchange builds (two words of two halves).
MAX_EXCHANGE_DST_REGISTERS = 4


@dataclass(frozen=True)
class PackedExchangePlan:
    """A packed exchange (module docstring), as per-lane tables the executor runs.

    Attributes:
        element_bits: 8 or 16.
        pack: the source registers packed into the low and high halves of ``x`` (the same
            in every lane; one register is packed into both halves when the source has one).
        source_lane: per lane, the lane whose ``x`` it receives.
        words: per destination word, per lane, the two halves it takes, each
            ``("x", half)`` or ``("recv", half)`` (half 0 low, 1 high).
        instructions: per-thread (= per-warp) count of each instruction kind (``selector``:
            the selects that pick the lane-dependent ``prmt`` selectors, module docstring).
        high_unknown: ``x`` is a wide source's single 32-bit register shuffled as it is:
            its high half holds unknown bits, which no table may pick (the executor runs it
            so).
    """

    element_bits: int
    pack: tuple[int, int]
    source_lane: tuple[int, ...]
    words: tuple[tuple[tuple[tuple[str, int], tuple[str, int]], ...], ...]
    instructions: dict[str, int] = field(default_factory=dict)
    high_unknown: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary: the packing, the words and their permutes."""
        return {"pack": list(self.pack), "words": len(self.words),
                "permutes": self.instructions.get("prmt", 0)}


def plan_packed_exchange(problem: ConversionProblem,
                         target: Target | str = "cuda:90", *,
                         wide_source: bool = False) -> PackedExchangePlan | None:
    """The packed exchange of ``problem`` (module docstring), or None where it does not
    apply: elements of 32 bits or more, an AMD target, data crossing warps, more than two
    source registers or :data:`MAX_EXCHANGE_DST_REGISTERS` destination registers, no lane
    lacking anything, or some lane lacking elements no single lane holds. ``wide_source``:
    the source's 16-bit elements sit one to a 32-bit register (module docstring): packing two
    costs a ``prmt``.

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`, an unknown target, or
            ``wide_source`` not a bool.
    """
    instance_of(problem, ConversionProblem, "problem")
    if not isinstance(wide_source, bool):
        raise LayoutError(f"wide_source must be True or False, got {wide_source!r}")
    target = Target.parse(target)
    nrs, nrd = problem.register_bits
    if (not target.is_nvidia or problem.element_bits not in (8, 16) or nrs > 1
            or (1 << nrd) > MAX_EXCHANGE_DST_REGISTERS or warp_map(problem) is None):
        return None
    lanes = range(1 << problem.lane_bits)
    pack = (0, 1) if nrs else (0, 0)
    x = [tuple(problem.thread_elements("src", r, lane, 0) for r in pack) for lane in lanes]
    need = [[problem.thread_elements("dst", r, lane, 0) for r in range(1 << nrd)]
            for lane in lanes]
    lacks = [set(need[lane]) - set(x[lane]) for lane in lanes]
    if not any(lacks):
        return None
    source = []
    for lane in lanes:
        if not lacks[lane]:
            source.append(lane)
            continue
        found = next((s for s in lanes if lacks[lane] <= set(x[s])), None)
        if found is None:
            return None
        source.append(found)
    recv = [x[s] for s in source]
    words = []
    prmt = 1 if wide_source and problem.element_bits == 16 and nrs else 0  # the pack
    selectors: set[tuple] = set()
    for k in range(0, 1 << nrd, 2):
        regs = [k, k + 1] if (1 << nrd) > 1 else [k, k]
        per_lane = []
        for lane in lanes:
            picks = []
            for r in regs:
                e = need[lane][r]
                picks.append(("recv", recv[lane].index(e)) if e in recv[lane]
                             else ("x", x[lane].index(e)))
            per_lane.append(tuple(picks))
        if len(set(per_lane)) > 1 or len({w for w, _ in per_lane[0]}) > 1:
            prmt += 1  # halves of both words, or chosen by lane: one byte permute
        if len(set(per_lane)) > 1:
            selectors.add(tuple(per_lane))  # its selector is chosen by lane
        # otherwise the word is x or recv itself, unpacked in some order: nothing
        words.append(tuple(per_lane))
    shfl = int(any(s != lane for lane, s in enumerate(source)))
    return PackedExchangePlan(problem.element_bits, pack, tuple(source), tuple(words),
                              {"shfl": shfl, "selp": 0, "prmt": prmt,
                               "selector": sum(len(set(f)) - 1 for f in selectors), "mov": 0},
                              wide_source and not nrs)
