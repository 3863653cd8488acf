"""Brute-force global-memory simulator: the ground truth of the closed form, and the engine
for placements that are not F₂-linear.

It uses no subspace algebra: it lists every (block, warp, lane, register) position of the
distributed layout, finds each element's offset (a dictionary built by enumerating a memory
layout's offsets, or integer arithmetic on strides), picks the vector by checking every
thread's registers, and counts distinct ``byte >> log2(sector_bytes)`` (and lines) over the
lanes of each instruction, for every base placement the alignment allows.

The access rule it enumerates (the same as the closed form's, :mod:`.access`): a lane moves
``2^k`` elements in one instruction when, grouping the registers (distinct tensor elements)
by ``offset >> k`` in thread 0, every group holds ``2^k`` registers and in every thread those
registers sit at one aligned run of ``2^k`` consecutive offsets, each register at the same
position of the run as in thread 0 (one instruction, one register order for every lane).
"""

from __future__ import annotations

from typing import Any

from .._checks import as_int
from ..errors import LayoutError
from ..layout import LinearLayout
from .plan import GlobalPlan, element_offset, plan_global, requested_vector_log2
from .report import GlobalAccessReport

__all__ = ["MAX_GLOBAL_STEPS", "base_placements", "check_global_work",
           "simulate_global_access", "simulate_plan"]

#: Default work limit of the enumeration: memory locations plus (placement, vector
#: candidate) × (block, warp, lane, register) combinations (seconds at the limit).
MAX_GLOBAL_STEPS = 1 << 22


def base_placements(plan: GlobalPlan) -> tuple[int, ...]:
    """The byte offsets of the tensor's first byte within a line that the base alignment
    allows: ``(0,)`` when aligned to a whole line (every such base counts the same), else
    ``0, A, 2A, … < line_bytes``."""
    if plan.base_alignment_bytes >= plan.line_bytes:
        return (0,)
    return tuple(range(0, plan.line_bytes, plan.base_alignment_bytes))


def check_global_work(plan: GlobalPlan, limit: Any = None) -> int:
    """The enumeration steps :func:`simulate_plan` takes for ``plan``.

    Raises:
        LayoutError: over ``limit`` (default :data:`MAX_GLOBAL_STEPS`), before any work.
    """
    limit = MAX_GLOBAL_STEPS if limit is None else as_int(limit, "limit")
    threads = 1 << (len(plan.block) + len(plan.warp) + len(plan.lane) + len(plan.register))
    # counted, not listed: a 2^40-byte line made the list itself exhaust memory
    placements = 1 if plan.base_alignment_bytes >= plan.line_bytes else \
        plan.line_bytes // plan.base_alignment_bytes
    passes = placements + plan.max_vector_log2 + 1
    locations = 1 << len(plan.memory_cols) if plan.memory_cols is not None else 0
    steps = locations + passes * threads
    if steps > limit:
        raise LayoutError(
            f"enumerating this global access takes {steps} steps ({passes} passes over "
            f"{threads} (block, warp, lane, register) combinations, {locations} memory "
            f"locations), over the limit of {limit}; an F2-linear placement (a layout, or "
            "power-of-two strides) with a line-aligned base is counted in closed form (pass "
            "limit= to enumerate anyway)")
    return steps


def _all_xors(cols: tuple[int, ...]) -> list[int]:
    """Entry ``i``: the XOR of ``cols[j]`` over the set bits ``j`` of ``i``."""
    out = [0]
    for c in cols:
        out += [x ^ c for x in out]
    return out


def _offset_function(plan: GlobalPlan):
    if plan.memory_cols is None:
        memo: dict[int, int] = {}  # each coordinate is asked for many times

        def off(coord: int) -> int:
            v = memo.get(coord)
            if v is None:
                v = memo[coord] = element_offset(plan, coord)
            return v
        return off
    where = {coord: off for off, coord in enumerate(_all_xors(plan.memory_cols))}
    return where.__getitem__


def _groups(regs: list[int], threads: list[int], off, k: int) -> list[list[int]] | None:
    """The registers of each instruction for a ``2^k`` vector, or None when some thread
    cannot move them as one aligned run in thread 0's register order."""
    if k == 0:
        return [[r] for r in regs]
    size, mask = 1 << k, (1 << k) - 1
    by_key: dict[int, list[int]] = {}
    for r in regs:
        by_key.setdefault(off(r) >> k, []).append(r)
    groups = list(by_key.values())
    for g in groups:
        if len(g) != size or len({off(r) & mask for r in g}) != size:
            return None
    for t in threads:
        for g in groups:
            runs = set()
            for r in g:
                a = off(t ^ r)
                if a & mask != off(r) & mask:
                    return None
                runs.add(a >> k)
            if len(runs) != 1:
                return None
    return groups


def simulate_plan(plan: GlobalPlan, vector_elems: Any = None,
                  limit: Any = None) -> GlobalAccessReport:
    """Count a planned access by enumeration (:func:`simulate_global_access` on a
    :class:`~linlayout.global_memory.plan.GlobalPlan`).

    Raises:
        LayoutError: over the work limit (:func:`check_global_work`, before any work), a
            requested vector that is too wide or that the layouts do not allow.
    """
    check_global_work(plan, limit)
    want = None if vector_elems is None else requested_vector_log2(vector_elems, plan)
    off = _offset_function(plan)
    regs = list(dict.fromkeys(_all_xors(plan.register)))  # distinct elements, first kept
    lanes = _all_xors(plan.lane)
    warps = [b ^ w for b in _all_xors(plan.block) for w in _all_xors(plan.warp)]
    threads = [w ^ ln for w in warps for ln in lanes]
    if want is not None:
        groups = _groups(regs, threads, off, want)
        if groups is None:
            raise LayoutError(
                f"vector_elems={vector_elems} is not possible: some thread's registers do not "
                f"hold {vector_elems} consecutive, aligned offsets in one register order")
        k = want
    else:
        for k in range(plan.max_vector_log2, -1, -1):
            groups = _groups(regs, threads, off, k)
            if groups is not None:
                break
    assert groups is not None
    eb = plan.element_bytes
    s_log2 = plan.sector_bytes.bit_length() - 1
    l_log2 = plan.line_bytes.bit_length() - 1
    spi = lpi = sectors_w = lines_w = useful_w = useful_i = 0
    # each warp's element offsets per instruction: the same for every base placement
    per_warp = [[{off(w ^ ln ^ r) for ln in lanes for r in g} for g in groups]
                for w in warps]
    for p in base_placements(plan):
        for insts in per_warp:
            s_total = l_total = 0
            warp_offs: set[int] = set()
            for offs in insts:
                warp_offs |= offs
                sectors = {(p + a * eb) >> s_log2 for a in offs}
                lines = {(p + a * eb) >> l_log2 for a in offs}
                spi, lpi = max(spi, len(sectors)), max(lpi, len(lines))
                useful_i = max(useful_i, len(offs) * eb)
                s_total += len(sectors)
                l_total += len(lines)
            sectors_w, lines_w = max(sectors_w, s_total), max(lines_w, l_total)
            useful_w = max(useful_w, len(warp_offs) * eb)
    return GlobalAccessReport(
        element_bits=plan.element_bits, vector_elems=1 << k, instructions_per_warp=len(groups),
        sectors_per_instruction=spi, lines_per_instruction=lpi, sectors_per_warp=sectors_w,
        lines_per_warp=lines_w, useful_bytes_per_warp=useful_w,
        useful_bytes_per_instruction=useful_i, sector_bytes=plan.sector_bytes,
        line_bytes=plan.line_bytes, base_alignment_bytes=plan.base_alignment_bytes,
        method="enumeration")


def simulate_global_access(layout: LinearLayout, memory: Any, *, element_bits: int,
                           vector_elems: int | None = None, sector_bytes: int = 32,
                           line_bytes: int = 128, base_alignment_bytes: int = 256,
                           limit: int | None = None, lanes_per_warp: int = 32
                           ) -> GlobalAccessReport:
    """:func:`~linlayout.global_memory.global_access` by brute-force enumeration: the ground
    truth of its closed form, and exact for any strides.

    Arguments and result are those of :func:`~linlayout.global_memory.global_access`
    (``method == "enumeration"``); ``limit`` bounds the work (default
    :data:`MAX_GLOBAL_STEPS`), checked before any enumeration.

    Raises:
        LayoutError: as :func:`~linlayout.global_memory.global_access`, or the work over
            ``limit``.

    Source: CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory" (32-byte
    sectors, 128-byte lines; ``docs/hardware-model.md`` §9).
    """
    plan = plan_global(layout, memory, element_bits=element_bits, sector_bytes=sector_bytes,
                       line_bytes=line_bytes, base_alignment_bytes=base_alignment_bytes,
                       lanes_per_warp=lanes_per_warp)
    return simulate_plan(plan, vector_elems, limit)
