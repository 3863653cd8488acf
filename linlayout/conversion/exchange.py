"""The packed exchange: a shuffle conversion of 8- or 16-bit elements, two to a word, on
NVIDIA and AMD.

Each lane packs its source registers in pairs as the two 16-bit halves of 32-bit words
``x_0 … x_{W−1}`` (``W = max(1, nrs / 2)``; which source register bit picks the half is
chosen, the cheapest kept), ships whole words, and builds the destination registers from
the halves it holds and receives. Per lane:

1. *pack* each pair as one word ``x_c``. NVIDIA: one ``mov.b32 x, {lo, hi}`` (PTX ISA,
   *Data Movement and Conversion Instructions: mov*, packing a vector into a scalar), priced
   as a copy (weight 0): NVPTX keeps an ``i8`` in a ``.b16`` register, and Triton 3.9's
   ``transferWithinWarp`` (``ConvertLayoutOpToLLVM.cpp``) packs 8-bit elements two to a
   word as 16-bit halves the same way. AMD: what LLVM's AMDGPU back end spends building
   the word where the producer left the elements
   (:func:`~linlayout.lowering.amd_pack.pack_permutes`: a 16-bit pair from two registers
   is one ``v_perm_b32``, one already one register in order none; two zero-extended bytes
   each alone in its register none — Triton 3.9 runs LLVM's ``-O3`` before instruction selection,
   which rewrites the ``<2 x i16>`` packing of zero-extended bytes as ``zext``, ``shl 16``,
   ``or``, selected as one ``v_lshl_or_b32``, a VALU instruction no cost kind counts, as
   for Triton's own packing; without ``-O3`` the same bytes take a ``v_perm_b32``:
   ``papers/conversion/amd_byte_join.py``; bytes with unknown upper bits, or both in one
   register, one ``v_perm_b32``),
   counted only for the words that are shipped or permuted; a lone source register (one
   per lane) is shipped as it is, its element in the low half;
2. *rounds*: in round ``t`` every lane reads word ``x_{c_t}`` of the lane its table names —
   the same word in every lane, so no sender selects. NVIDIA: one ``shfl.sync.idx.b32``
   (PTX ISA, ``shfl.sync``); AMD: one ``ds_bpermute_b32`` (AMD CDNA3 ISA, *LDS
   instructions*: each lane reads a VGPR of the lane its address names, 32 bits, without
   touching LDS memory). A lane lacking elements of word ``c`` in ``k`` other lanes needs
   ``k`` rounds of ``c``; the rounds of ``c`` are the most any lane needs;
3. *permutes*: a destination register that takes its element from the same half of the
   same word in every lane is that half, unpacked; the others are lane-dependent choices,
   built by byte permutes whose selector depends on the lane. NVIDIA: ``prmt.b32`` (PTX
   ISA, ``prmt``: any four of the eight bytes of two registers); AMD: ``v_perm_b32`` (AMD
   CDNA3 ISA, *VOP3 instructions*: any four bytes of two VGPRs by a per-lane selector
   VGPR). A permute writes two halves, so two lane-dependent registers whose choices lie in
   the same two words share one; a register whose lanes draw on ``k > 2`` words is a chain
   of ``k − 1``;
4. *unpack* each destination register from its word's half: a ``mov.b32 {lo, hi}, word``
   on NVIDIA (weight 0); nothing at the convert on AMD (a consumer reads a high half with
   ``op_sel``/``*_d16_hi``; :mod:`~linlayout.lowering.amd_pack`).

On gfx950 the exchange may start with a *swap*: one ``v_permlane16_swap_b32`` or
``v_permlane32_swap_b32`` (AMD CDNA4 ISA, *VOP1 instructions*) per pair of source registers
that differ in one register bit, across lane bit 4 or 5 — in each pair, the lanes without
the lane bit trade their high register for the low register of the lane across the bit.
That exchanges the register bit with the lane bit of ``src`` (:class:`RegisterSwap`), so
the swapped registers are again a distributed layout and the steps above run from it. A
swap moves whole registers, so each still holds one element as the producer left it: two
zero-extended bytes still join for nothing, and one word carrying both swapped bytes can
then serve every lane with one ``ds_bpermute_b32`` where the unswapped registers need two
shuffles and a merge. The swap is a shuffle in the cost model (``shfl``, as Triton's own
``v_permlane*_swap`` stages are counted). Only a source left one element to a register
(no ``source_load``, not ``packed_source``) is swapped.

On gfx950 the exchange may also end with a swap (a *read-then-swap* plan,
:attr:`PackedExchangePlan.swaps_after`): the steps above build the destination with one of
its register bits traded with lane bit 4 or 5, then one ``v_permlane16_swap_b32`` or
``v_permlane32_swap_b32`` per pair of destination registers trades them back. The swap takes
two VGPRs, so where a pair's two registers are the two halves of one word the high half is
first shifted down (one ``v_lshrrev_b32``, a VALU instruction no cost kind counts, like the
join's ``v_lshl_or_b32``); the swap is counted as a shuffle, as above. One read of the two
joined source bytes then one swap reaches destinations no swap-then-read plan reaches
without a merge (the register bit from the source's lane bit 3 on a 64-lane wavefront):
2, where the other plans need 2.5. It is kept only where it is strictly cheaper than every
other packed exchange, and runs on symbolic registers like every plan. Compiled for gfx950
(``papers/conversion/swap_plans_amdgcn.py``, every swap plan of the AMD probe spaces) its
AMDGCN holds exactly the counted ``ds_bpermute_b32`` and ``v_permlane*_swap_b32``, one
``v_lshl_or_b32`` join and one ``v_lshrrev_b32`` shift (no cost kind counts either, as for
Triton's own path, whose data path on the same converts holds three such instructions),
and one ``s_nop 1``: gfx950's two wait states between a VALU write and a
``v_permlane*_swap`` reading it, which Triton's own swaps pay too and no cost kind counts.

The shuffles' source lanes depend only on the lane index, and so do the permutes'
selectors: per-lane constants, which a lowering picks as Triton 3.9's ``transferWithinWarp``
picks its own byte-permute selectors — a select of two constant selectors on a lane
predicate (``selp.b32`` of two immediates on NVIDIA, ``v_cndmask_b32`` on AMD, where
``v_perm_b32`` takes its selector from a VGPR as well), one select per further value a
selector takes across the lanes, shared by the permutes whose selectors agree in every lane.
Those selects are counted in the ``selector`` kind (:mod:`~linlayout.conversion.cost`), the
kind Triton's selector selects are counted in when the planner prices Triton's path
(:func:`~linlayout.conversion.triton.register_kinds`; ``check`` still lists them as the
selects the PTX has): both are lane-index arithmetic, like a shuffle's source lane and a
select's predicate, weighted 0 by default and priced alike when the weight is set. They are
not among :attr:`PackedExchangePlan.opcodes`, which the probes of ``papers/conversion``
check: those read the selectors from a per-lane table instead.

On the single register/lane exchange this costs one shuffle, one permute and one selector
select where the select plans need one shuffle and three (data) selects; on NVIDIA that is
the shuffle family's bound, which counts no selector. On AMD a 16-bit source in separate
registers adds the ``v_perm_b32`` that packs it.

``wide_source``: the producer left each 8/16-bit element in a 32-bit register with its upper
bits unknown (a gather's or ``redux.sync`` reduction's truncated 32-bit result,
:func:`linlayout.check.registers.wide_sources`). On NVIDIA step 1 then joins two such
registers' low halves with one ``prmt.b32`` (selector ``0x5410``, NVPTX's selection, as
``check`` counts for Triton's packing of such a source) per 16-bit word shipped or permuted;
8-bit elements pack as before (NVPTX's byte packing is the same from either register width,
as measured on Triton's converts of such sources). On AMD the pair costs what
:func:`~linlayout.lowering.amd_pack.pack_permutes` says for such registers (``opaque``
source words): one ``v_perm_b32``, 16-bit or 8-bit, as LLVM selects Triton's zero-extended
``<2 x i16>`` spelling (two computed bytes: two ``v_and_b32`` and the ``v_perm_b32``,
``papers/conversion/wide_join_isel.py``). The bounds count that join
(:mod:`~linlayout.conversion.bounds`); a pair spelled otherwise, ``(lo & 0xffff) |
(hi << 16)`` with each slot's high byte left unknown (``v_lshlrev_b32`` and
``v_and_or_b32``, no ``v_perm_b32``), lies outside the modelled family, as a hand-written
``v_lshl_or_b32`` does (:mod:`~linlayout.conversion.cost`). A lone source register is
shipped as it is: its low half is the element, its high half unknown bits that no table
picks (:attr:`PackedExchangePlan.high_unknown`).
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .._checks import instance_of, shown
from ..errors import LayoutError
from ..layout import LinearLayout
from ..lowering import Target
from ..lowering.amd_pack import SourceWord, pack_permutes, source_words
from ..lowering.convert import check_source_load
from .bounds import GFX950_SWAP_LANE_MASKS
from .cost import path_cost, resolve_weights
from .problem import ConversionProblem
from .shuffle import warp_map

__all__ = ["MAX_EXCHANGE_REGISTERS", "MAX_EXCHANGE_ROUNDS", "ExchangeRound", "PackedExchangePlan",
           "RegisterSwap", "WordPermute", "plan_packed_exchange"]

#: Most source or destination registers per thread the packed exchange plans for (its
#: tables are per lane and per register; a conversion it can win has few).
MAX_EXCHANGE_REGISTERS = 16
#: Most shuffles a packed exchange may take: past them the builder stops (a work limit, so
#: that planning stays fast; such a plan ships many words a lane does not need).
MAX_EXCHANGE_ROUNDS = 16

#: A 32-bit value of the plan: ``("x", c)`` the packed source word ``c``, ``("recv", t)``
#: the word received in round ``t``, ``("perm", p)`` the result of permute ``p``.
Ref = tuple[str, int]


@dataclass(frozen=True)
class ExchangeRound:
    """One shuffle: every lane reads packed word :attr:`word` of lane ``source_lane[l]``.

    Attributes:
        word: the index (into :attr:`PackedExchangePlan.pack`) of the word every lane sends.
        source_lane: per lane, the lane it reads.

    Source: module docstring (PTX ISA, ``shfl.sync``; AMD ``ds_bpermute_b32``).
    """

    word: int
    source_lane: tuple[int, ...]


@dataclass(frozen=True)
class RegisterSwap:
    """One swap stage before packing: a gfx950 ``v_permlane{lane_mask}_swap_b32`` on every
    pair of source registers ``(r, r | 1 << register_bit)`` (``r`` without that bit). In
    lane ``l`` without ``lane_mask``, register ``r | 1 << register_bit`` takes register
    ``r`` of lane ``l ^ lane_mask``; in lane ``l`` with it, register ``r`` takes register
    ``r | 1 << register_bit`` of lane ``l ^ lane_mask`` (AMD CDNA4 ISA, *VOP1
    instructions*: the two VGPRs trade rows across 16 or 32 lanes).

    Attributes:
        register_bit: the source register bit whose pairs are swapped.
        lane_mask: 16 or 32, the lanes the swap crosses.
    """

    register_bit: int
    lane_mask: int


@dataclass(frozen=True)
class WordPermute:
    """One lane-dependent byte permute (``prmt.b32`` / ``v_perm_b32``) of two 32-bit values.

    Attributes:
        inputs: the two values (:data:`Ref`), permutes only of earlier permutes.
        halves: per lane, the halves written to the low and the high half of the result,
            each ``0``–``3``: low, high of ``inputs[0]``, low, high of ``inputs[1]``.

    Source: PTX ISA, ``prmt``; AMD's ``v_perm_b32`` (module docstring).
    """

    inputs: tuple[Ref, Ref]
    halves: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class PackedExchangePlan:
    """A packed exchange (module docstring), as per-lane tables the executor runs.

    Attributes:
        element_bits: 8 or 16.
        target: the target the instructions are named and priced for (``"cuda:90"``,
            ``"hip:gfx942"``).
        pack: per packed word, the source registers in its low and high half (the same
            register twice where the source has one register per lane).
        rounds: the shuffles, in order (:class:`ExchangeRound`).
        permutes: the lane-dependent byte permutes, in order (:class:`WordPermute`).
        unpack: per destination register, the value (:data:`Ref`) and half (0 low, 1 high)
            it is read from — the same in every lane.
        instructions: per-thread (= per-warp) count of each instruction kind
            (``shfl``, ``selp``, ``prmt``, ``selector``, ``mov``; packing permutes, AMD's
            and a wide NVIDIA source's, are ``prmt``; ``selector``: the selects that pick
            the lane-dependent permutes' selectors, module docstring).
        opcodes: the shuffles and permutes by the target's opcode (``shfl.sync.idx.b32``,
            ``prmt.b32``; ``ds_bpermute_b32``, ``v_perm_b32``); the selector selects are
            left out (a lowering may read selectors from a table, as the probes do).
        high_unknown: the source has one register per lane and it holds a wide source's
            element (``wide_source``): the high half of ``("x", 0)`` is unknown bits,
            which no table picks (the executor runs it so).
        swaps: the swap stages run on the source registers before :attr:`pack`, in order
            (:class:`RegisterSwap`; gfx950 only); :attr:`pack` names the registers as they
            are after them.
        swaps_after: the swap stages run on the destination registers after :attr:`unpack`,
            in order (:class:`RegisterSwap` with a destination register bit; gfx950 only, a
            read-then-swap plan, module docstring); :attr:`unpack` names the registers as
            they are before them.
    """

    element_bits: int
    target: str
    pack: tuple[tuple[int, int], ...]
    rounds: tuple[ExchangeRound, ...]
    permutes: tuple[WordPermute, ...]
    unpack: tuple[tuple[Ref, int], ...]
    instructions: dict[str, int] = field(default_factory=dict)
    opcodes: dict[str, int] = field(default_factory=dict)
    high_unknown: bool = False
    swaps: tuple[RegisterSwap, ...] = ()
    swaps_after: tuple[RegisterSwap, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary: the swaps before and after, the packed words, the destination
        words, the shuffles, the lane-dependent permutes and the opcodes (the per-lane
        tables are left out)."""
        return {"swaps": [[s.register_bit, s.lane_mask] for s in self.swaps],
                "swaps_after": [[s.register_bit, s.lane_mask] for s in self.swaps_after],
                "pack": [list(p) for p in self.pack],
                "words": len({ref for ref, _ in self.unpack}), "shuffles": len(self.rounds),
                "permutes": len(self.permutes), "opcodes": dict(self.opcodes)}


def plan_packed_exchange(problem: ConversionProblem, target: Target | str = "cuda:90",
                         weights: Mapping[str, float] | None = None,
                         source_load: tuple[int, int] | None = None,
                         packed_source: bool = False, *,
                         wide_source: bool = False) -> PackedExchangePlan | None:
    """The cheapest packed exchange of ``problem`` on ``target`` under ``weights`` (module
    docstring), trying each source register bit as the half bit and, on gfx950 with the
    source one element to a register, each swap of a register bit with lane bit 4 or 5
    first (:class:`RegisterSwap`), and on gfx950 each swap of a destination register bit with
    lane bit 4 or 5 last (:attr:`PackedExchangePlan.swaps_after`, kept only where strictly
    cheaper); or None where it does not apply: elements of 32 bits or
    more, data crossing warps, no lane lacking anything, more than
    :data:`MAX_EXCHANGE_REGISTERS` registers on a side, or more than
    :data:`MAX_EXCHANGE_ROUNDS` shuffles needed.

    ``source_load`` and ``packed_source`` say where an AMD producer left the elements, as
    :func:`~linlayout.conversion.plan_stages` takes them: they price the ``v_perm_b32``
    that packs each shipped word (:func:`~linlayout.lowering.amd_pack.pack_permutes`); on
    NVIDIA packing is a ``mov``. ``wide_source``: the elements sit one to a 32-bit register
    with unknown upper bits (module docstring): packing two 16-bit elements costs a
    ``prmt.b32`` on NVIDIA, and AMD prices such registers' packing.

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`, an unknown target, bad
            weights, ``source_load`` not ``(dim, contiguity)`` naming a dim of ``src``, or
            ``packed_source`` or ``wide_source`` not a bool.
    """
    instance_of(problem, ConversionProblem, "problem")
    if not isinstance(packed_source, bool):
        raise LayoutError(f"packed_source must be True or False, got {shown(packed_source)}")
    if not isinstance(wide_source, bool):
        raise LayoutError(f"wide_source must be True or False, got {shown(wide_source)}")
    target = Target.parse(target)
    ws = resolve_weights(weights)
    check_source_load(source_load, problem.src)
    nrs, nrd = problem.register_bits
    if (problem.element_bits not in (8, 16) or problem.lane_bits == 0
            or max(1 << nrs, 1 << nrd) > MAX_EXCHANGE_REGISTERS or warp_map(problem) is None):
        return None
    words = None
    if not target.is_nvidia and not packed_source:
        words = _source_words(problem, source_load, wide_source)
    best = None
    for half_bit in range(nrs) if nrs else (None,):
        plan = _build(problem, target, half_bit, words, wide_source)
        if plan is None:
            continue  # nothing lacked, or more than MAX_EXCHANGE_ROUNDS shuffles
        key = (path_cost(plan.instructions, 0, ws), plan.instructions["shfl"])
        if best is None or key < best[0]:
            best = (key, plan)
    if best is None:
        return None  # no lane lacks anything: a renaming or selects, not an exchange
    if target.arch == "gfx950" and source_load is None and not packed_source:
        for plan in _swapped(problem, target, wide_source):
            key = (path_cost(plan.instructions, 0, ws), plan.instructions["shfl"])
            if key < best[0]:
                best = (key, plan)
    if target.arch == "gfx950":
        for plan in _swapped_after(problem, target, words, wide_source):
            key = (path_cost(plan.instructions, 0, ws), plan.instructions["shfl"])
            if key[0] < best[0][0]:  # kept only when strictly cheaper
                best = (key, plan)
    return best[1]


def _swap_trades(problem: ConversionProblem, layout: LinearLayout, register_bits: int
                 ) -> Iterator[tuple[int, int, LinearLayout]]:
    """``(register_bit, lane_mask, traded)`` for each gfx950 swap stage a layout of
    ``problem`` admits: ``layout`` with that register bit's and lane bit's columns traded
    (what one :class:`RegisterSwap` does to it)."""
    for register_bit in range(register_bits):
        for lane_mask in GFX950_SWAP_LANE_MASKS:
            lane_bit = lane_mask.bit_length() - 1
            if lane_bit >= problem.lane_bits:
                continue
            bases = {d: [list(v) for v in vs] for d, vs in layout.bases.items()}
            reg, lane = bases["register"], bases["lane"]
            reg[register_bit], lane[lane_bit] = lane[lane_bit], reg[register_bit]
            yield register_bit, lane_mask, LinearLayout(bases, dict(layout.out_dims))


def _swapped(problem: ConversionProblem, target: Target,
             wide_source: bool) -> Iterator[PackedExchangePlan]:
    """Every packed exchange that starts with one swap stage (:class:`RegisterSwap`), each
    half bit tried: the swapped registers as a new ``src`` (the register bit and the lane
    bit trade columns), the exchange built from there, the swaps prepended and counted."""
    nrs, _ = problem.register_bits
    for register_bit, lane_mask, traded in _swap_trades(problem, problem.src, nrs):
        swapped = ConversionProblem(traded, problem.dst, problem.element_bits,
                                    problem.hardware)
        words = _source_words(swapped, None, wide_source)
        n = (1 << nrs) // 2  # one instruction per register pair
        for half_bit in range(nrs):
            plan = _build(swapped, target, half_bit, words, wide_source, rounds_needed=False)
            if plan is None:
                continue
            counts = dict(plan.instructions, shfl=plan.instructions["shfl"] + n)
            opcodes = {f"v_permlane{lane_mask}_swap_b32": n, **plan.opcodes}
            yield replace(plan, instructions=counts, opcodes=opcodes,
                          swaps=(RegisterSwap(register_bit, lane_mask),))


def _swapped_after(problem: ConversionProblem, target: Target,
                   words: tuple[SourceWord, ...] | None,
                   wide_source: bool) -> Iterator[PackedExchangePlan]:
    """Every read-then-swap plan (module docstring): a packed exchange to ``dst`` with one
    destination register bit and lane bit 4 or 5 traded, then one swap stage per pair of
    destination registers that trades them back (:class:`RegisterSwap` is its own inverse
    on the layout's columns), each half bit tried, the swaps appended and counted."""
    nrs, nrd = problem.register_bits
    for register_bit, lane_mask, traded in _swap_trades(problem, problem.dst, nrd):
        before = ConversionProblem(problem.src, traded, problem.element_bits,
                                   problem.hardware)
        if warp_map(before) is None:
            continue
        n = (1 << nrd) // 2  # one instruction per destination register pair
        for half_bit in range(nrs) if nrs else (None,):
            plan = _build(before, target, half_bit, words, wide_source, rounds_needed=False)
            if plan is None:
                continue
            counts = dict(plan.instructions, shfl=plan.instructions["shfl"] + n)
            opcodes = {**plan.opcodes, f"v_permlane{lane_mask}_swap_b32": n}
            yield replace(plan, instructions=counts, opcodes=opcodes,
                          swaps_after=(RegisterSwap(register_bit, lane_mask),))


def _source_words(problem: ConversionProblem, source_load: tuple[int, int] | None,
                  wide_source: bool) -> tuple[SourceWord, ...]:
    """Where each source register (broadcast copies included) sits, for AMD packing."""
    cols = problem.columns("src", "register")
    live = [b for b, c in enumerate(cols) if c]
    lean = (source_words(problem.src, problem.element_bits, *source_load)
            if source_load is not None else
            source_words(problem.src, problem.element_bits, wide=wide_source))
    return tuple(lean[sum((r >> b & 1) << i for i, b in enumerate(live))]
                 for r in range(1 << len(cols)))


def _build(problem: ConversionProblem, target: Target, half_bit: int | None,
           words: tuple[SourceWord, ...] | None,
           wide_source: bool = False, rounds_needed: bool = True) -> PackedExchangePlan | None:
    nrs, nrd = problem.register_bits
    lanes = range(1 << problem.lane_bits)
    if half_bit is None:
        pack = [(0, 0)]
    else:
        pack = [(r, r | 1 << half_bit) for r in range(1 << nrs) if not r >> half_bit & 1]
    high_unknown = wide_source and half_bit is None  # a lone wide register, shipped as it is
    x = [[tuple(problem.thread_elements("src", r, lane, 0) for r in p) for p in pack]
         for lane in lanes]
    if high_unknown:
        x = [[(w[0], None) for w in row] for row in x]
    need = [[problem.thread_elements("dst", r, lane, 0) for r in range(1 << nrd)]
            for lane in lanes]
    held = [{e for w in x[lane] for e in w if e is not None} for lane in lanes]
    lacks = [set(need[lane]) - held[lane] for lane in lanes]
    if rounds_needed and not any(lacks):
        return None
    holders: dict[int, list[tuple[int, int]]] = {}  # element -> (word, lane) holding it
    for lane in lanes:
        for c, w in enumerate(x[lane]):
            for e in set(w) - {None}:
                holders.setdefault(e, []).append((c, lane))
    # per lane, the (word, lane) pairs it reads: a greedy cover of what it lacks
    reads: list[list[tuple[int, int]]] = []
    for lane in lanes:
        cover: dict[tuple[int, int], set[int]] = {}
        for e in lacks[lane]:
            for cs in holders[e]:
                cover.setdefault(cs, set()).add(e)
        reads.append(_greedy_reads(cover, set(lacks[lane])))
    rounds: list[ExchangeRound] = []
    for c in range(len(pack)):
        per_lane = [[s for cc, s in reads[lane] if cc == c] for lane in lanes]
        for k in range(max(len(p) for p in per_lane)):
            source = tuple(p[k] if k < len(p) else lane for lane, p in zip(lanes, per_lane))
            rounds.append(ExchangeRound(c, source))
    if len(rounds) > MAX_EXCHANGE_ROUNDS:
        return None
    options = []
    for lane in lanes:
        have = _places(x, rounds, lane)
        options.append([have[need[lane][r]] for r in range(1 << nrd)])
    permutes: list[WordPermute] = []
    unpack: list[tuple[Ref, int] | None] = [None] * (1 << nrd)
    pending: list[tuple[int, list[Ref], list[tuple[Ref, int]]]] = []
    for r in range(1 << nrd):
        common = set(options[0][r]).intersection(*(set(o[r]) for o in options))
        if common:
            unpack[r] = min(common)  # the same half of the same word in every lane
            continue
        refs = _cover([{v for v, _ in options[lane][r]} for lane in lanes])
        picks = [next(p for ref in refs for p in options[lane][r] if p[0] == ref)
                 for lane in lanes]
        pending.append((r, refs, picks))
    # lane-dependent registers: two whose choices lie in the same two words share a permute
    while pending:
        r, refs, picks = pending.pop(0)
        if len(refs) == 1:
            refs = refs * 2
        acc: Ref = refs[0]
        acc_picks = picks
        for i, ref in enumerate(refs[1:]):
            last = i == len(refs) - 2
            mate = None
            if last:
                mate = next((m for m in pending if set(m[1]) <= {acc, ref}), None)
            ins = (acc, ref)
            low = [_half_index(ins, p) for p in acc_picks]
            high = low if mate is None else [_half_index(ins, p) for p in mate[2]]
            permutes.append(WordPermute(ins, tuple(zip(low, high))))
            out: Ref = ("perm", len(permutes) - 1)
            acc_picks = [(out, 0) if p[0] in ins else p for p in acc_picks]
            acc = out
            if mate is not None:
                pending.remove(mate)
                unpack[mate[0]] = (out, 1)
        unpack[r] = (acc, 0)
    used = {ins for p in permutes for ins in p.inputs} | {("x", rd.word) for rd in rounds}
    packs = 0
    if words is not None:
        packs = sum(_pack_permutes(words[lo], words[hi], problem.element_bits)
                    for c, (lo, hi) in enumerate(pack) if lo != hi and ("x", c) in used)
    elif wide_source and problem.element_bits == 16:
        # NVIDIA: two 16-bit elements' 32-bit registers joined by one prmt.b32 (0x5410)
        packs = sum(1 for c, (lo, hi) in enumerate(pack) if lo != hi and ("x", c) in used)
    selectors = {p.halves for p in permutes}  # permutes whose selectors agree share selects
    instructions = {"shfl": len(rounds), "selp": 0, "prmt": len(permutes) + packs,
                    "selector": sum(len(set(h)) - 1 for h in selectors), "mov": 0}
    if target.is_nvidia:
        opcodes = {"shfl.sync.idx.b32": len(rounds), "prmt.b32": len(permutes) + packs}
    else:
        opcodes = {"ds_bpermute_b32": len(rounds), "v_perm_b32": len(permutes) + packs}
    return PackedExchangePlan(problem.element_bits, target.name, tuple(pack), tuple(rounds),
                              tuple(permutes), tuple(unpack), instructions,
                              {k: n for k, n in opcodes.items() if n}, high_unknown)


def _pack_permutes(lo: SourceWord, hi: SourceWord, element_bits: int) -> int:
    """``v_perm_b32`` that build one packed word: :func:`~linlayout.lowering.amd_pack.
    pack_permutes` where each byte of an 8-bit pair sits alone, zero-extended, in its own
    register (after Triton's ``-O3`` one ``v_lshl_or_b32``, no ``v_perm_b32``:
    ``papers/conversion/amd_byte_join.py``, ``packed_exchange_amdgcn.py``); any other 8-bit
    pair from two registers one ``v_perm_b32``, the price this plan's compiled probe
    confirmed before."""
    alone = all(w.byte == 0 and w.width_bytes == 1 and not w.opaque for w in (lo, hi))
    if element_bits == 8 and lo.word != hi.word and not alone:
        return 1
    return pack_permutes((lo, hi), element_bits)


def _places(x: list[list[tuple[int, int | None]]], rounds: list[ExchangeRound],
            lane: int) -> dict[int, list[tuple[Ref, int]]]:
    """Per element, every (value, half) in which ``lane`` holds it after the shuffles."""
    out: dict[int, list[tuple[Ref, int]]] = {}
    for c, w in enumerate(x[lane]):
        for h, e in enumerate(w):
            if e is not None:  # None: a wide lone register's unknown high half
                out.setdefault(e, []).append((("x", c), h))
    for t, rd in enumerate(rounds):
        for h, e in enumerate(x[rd.source_lane[lane]][rd.word]):
            if e is not None:
                out.setdefault(e, []).append((("recv", t), h))
    return out


def _greedy_reads(cover: dict[tuple[int, int], set[int]], left: set[int]
                  ) -> list[tuple[int, int]]:
    """The (word, lane) pairs one lane reads: repeatedly the pair holding most of what it
    still lacks (ties: the lowest word, then the lowest lane), until nothing is lacking.

    A lazy greedy: a pair's count only falls as elements are covered, so a pair popped from
    the heap whose recounted number still equals its key beats every other pair, and the
    choice is the one a full scan would make. Scanning every pair per choice cost ``pairs ×
    choices`` set intersections per lane (20 s for one 16-register, 64-lane conversion)."""
    heap = [(-len(left & e), c, s) for (c, s), e in cover.items()]
    heapq.heapify(heap)
    chosen: list[tuple[int, int]] = []
    while left:
        neg, c, s = heapq.heappop(heap)
        n = len(left & cover[(c, s)])
        if n != -neg:
            heapq.heappush(heap, (-n, c, s))
            continue
        chosen.append((c, s))
        left -= cover[(c, s)]
    return chosen


def _cover(sets: list[set[Ref]]) -> list[Ref]:
    """A few values that hold, in every lane, one of that lane's candidates (greedy: the
    value held by most lanes still uncovered, the first in sorted order on a tie)."""
    left = list(range(len(sets)))
    chosen: list[Ref] = []
    while left:
        counts = Counter(v for i in left for v in sets[i])
        ref = max(sorted(counts), key=counts.__getitem__)
        chosen.append(ref)
        left = [i for i in left if ref not in sets[i]]
    return chosen


def _half_index(inputs: tuple[Ref, Ref], pick: tuple[Ref, int]) -> int:
    """The permute half (0–3) that reads ``pick``; 0 where the lane's choice lies in
    neither input (a lane whose element a later permute of the chain supplies)."""
    ref, h = pick
    if ref == inputs[0]:
        return h
    if ref == inputs[1]:
        return 2 + h
    return 0
