"""The brute-force check of a conversion plan: run it on symbolic registers.

Every thread starts with its ``src`` registers holding the tensor coordinates ``src``
assigns them (a flat element index stands for the value stored there). The executor runs the
plan step by step on every lane of every warp — a register renaming reads its table, a
shuffle round makes each lane send the word its table names and read the word of its source
lane, a shared-memory round trip writes every register to its swizzled offset and reads the
offsets back — and compares each thread's final registers with the coordinates ``dst``
assigns them. It trusts nothing the planner derived: the tables are executed as given.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._checks import instance_of, shown
from ..errors import LayoutError
from ..layout import LinearLayout
from .exchange import PackedExchangePlan
from .problem import ConversionProblem
from .shuffle import RegisterPlan, ShufflePlan, run_choice
from .stages import StagePlan

__all__ = ["MAX_EXECUTED_VALUES", "Execution", "execute_plan", "execute_shared"]

#: Most register values (threads × registers) one execution touches: far above the tests'
#: layouts, small enough for a few seconds of Python.
MAX_EXECUTED_VALUES = 1 << 20


@dataclass(frozen=True)
class Execution:
    """What running a plan gave.

    Attributes:
        correct: every thread's final registers hold ``dst``'s elements.
        checked: how many ``(thread, dst register)`` values were compared.
        mismatches: up to 8 ``(warp, lane, register, got, expected)`` where they differ
            (``got`` None: the value was never written).

    Source: the symbolic executor (module docstring).
    """

    correct: bool
    checked: int
    mismatches: tuple[tuple[int, int, int, int | None, int], ...] = ()


def _check_size(problem: ConversionProblem, warps: int) -> None:
    nrs, nrd = problem.register_bits
    total = warps * (1 << problem.lane_bits) * ((1 << nrs) + (1 << nrd))
    if total > MAX_EXECUTED_VALUES:
        raise LayoutError(f"executing this conversion touches {total} register values; the "
                          f"executor takes at most {MAX_EXECUTED_VALUES}")


def _initial(problem: ConversionProblem) -> list[list[list[int]]]:
    """``regs[warp][lane][register]``: the element ``src`` puts there."""
    nrs, _ = problem.register_bits
    lanes, warps = 1 << problem.lane_bits, 1 << problem.warp_bits
    _check_size(problem, warps)
    return [[[problem.thread_elements("src", r, lane, w) for r in range(1 << nrs)]
             for lane in range(lanes)] for w in range(warps)]


def _compare(problem: ConversionProblem, final: list[list[list[int | None]]]) -> Execution:
    bad = []
    checked = 0
    for w, warp in enumerate(final):
        for lane, regs in enumerate(warp):
            for r, got in enumerate(regs):
                want = problem.thread_elements("dst", r, lane, w)
                checked += 1
                if got != want and len(bad) < 8:
                    bad.append((w, lane, r, got, want))
    return Execution(not bad, checked, tuple(bad))


def execute_plan(problem: ConversionProblem,
                 plan: RegisterPlan | ShufflePlan | StagePlan | PackedExchangePlan
                 ) -> Execution:
    """Run a register, shuffle, stage or packed-exchange plan on every warp and compare
    with ``dst``. A :class:`~.exchange.PackedExchangePlan` runs element by element: its
    swaps first trade registers across lanes as :class:`~.exchange.RegisterSwap` says, then
    each lane packs its registers in pairs into words of two halves, each round reads the named
    word of the lane its table names, each permute writes the halves its per-lane table
    picks from its two inputs, and each destination register takes the half of the value
    its entry names (the same in every lane), and the swaps after
    (:attr:`~.exchange.PackedExchangePlan.swaps_after`) trade destination registers across
    lanes last; a high half of unknown bits
    (:attr:`~.exchange.PackedExchangePlan.high_unknown`) holds no element.

    A :class:`~.stages.StagePlan` runs its value graph (selects, byte permutes with their
    selectors, shuffles) lane by lane on warp 0, every byte tracked
    (:meth:`~linlayout.lowering.shuffle.WarpShuffleLowering.execute`); the other warps run
    the same instructions on elements that differ from warp 0's by their warp's column in
    ``src`` and in ``dst`` alike (the warp and block columns agree, or the plan is not
    built), and no instruction looks at the values, so warp 0 decides. A gfx950 stage plan
    runs as ``v_permlane*_swap`` instructions that perform the same exchange as the graph's
    shuffle–select stages.

    Raises:
        LayoutError: the plan does not fit the problem (a lane or register out of range), or
            the run would touch more than :data:`MAX_EXECUTED_VALUES` values, or an argument
            has the wrong type.
    """
    instance_of(problem, ConversionProblem, "problem")
    if isinstance(plan, StagePlan):
        return _execute_stages(problem, plan)
    if isinstance(plan, PackedExchangePlan):
        return _execute_exchange(problem, plan)
    if not isinstance(plan, (RegisterPlan, ShufflePlan)):
        raise LayoutError(f"plan must be a RegisterPlan, a ShufflePlan, a StagePlan or a "
                          f"PackedExchangePlan, got {shown(plan)}")
    regs = _initial(problem)
    nrd = problem.register_bits[1]
    final: list[list[list[int | None]]] = []
    try:
        for warp in regs:
            if isinstance(plan, RegisterPlan):
                final.append([[lane_regs[x] for x in plan.source_register] for lane_regs in warp])
                continue
            received = []
            for rnd in plan.rounds:
                words = [None if sel is None else tuple(lane_regs[x] for x in sel)
                         for lane_regs, sel in zip(warp, rnd.send)]
                received.append([words[s] for s in rnd.source_lane])
            def value(lane: int, step: tuple) -> int | None:
                if step[0] == "register":
                    return warp[lane][step[1]]
                word = received[step[1]][lane]
                return None if word is None else word[step[2]]

            out = [[value(lane, step) for step in row[:1 << nrd]]
                   for lane, row in enumerate(plan.assemble)]
            for r, program in plan.choices:  # byte-permute trees, run byte by byte
                leaves = program[0]
                got = run_choice(program, [[value(lane, step) for step in leaves]
                                           for lane in range(len(warp))], plan.element_bits)
                for lane, e in enumerate(got):
                    out[lane][r] = e
            final.append(out)
    except (IndexError, TypeError) as exc:
        raise LayoutError(f"the plan does not fit this conversion: {exc}") from None
    return _compare(problem, final)


def _execute_exchange(problem: ConversionProblem, plan: PackedExchangePlan) -> Execution:
    regs = _initial(problem)
    final = []
    try:
        for warp in regs:
            lanes = range(len(warp))
            for swap in plan.swaps:
                warp = _swap(warp, swap.register_bit, swap.lane_mask)
            values: dict[tuple[str, int], list[tuple[int | None, ...]]] = {}
            for c, (lo, hi) in enumerate(plan.pack):
                values[("x", c)] = [(lane_regs[lo], None if plan.high_unknown else lane_regs[hi])
                                    for lane_regs in warp]
            for t, rnd in enumerate(plan.rounds):
                sent = values[("x", rnd.word)]
                values[("recv", t)] = [sent[s] for s in rnd.source_lane]
            for p, perm in enumerate(plan.permutes):
                a, b = (values[ref] for ref in perm.inputs)
                values[("perm", p)] = [tuple((a[lane] + b[lane])[h] for h in perm.halves[lane])
                                       for lane in lanes]
            out = [[values[ref][lane][half] for ref, half in plan.unpack] for lane in lanes]
            for swap in plan.swaps_after:
                out = _swap(out, swap.register_bit, swap.lane_mask)
            final.append(out)
    except (IndexError, KeyError, TypeError, ValueError) as exc:
        raise LayoutError(f"the plan does not fit this conversion: {exc}") from None
    return _compare(problem, final)


def _swap(warp: list[list[int]], register_bit: int, lane_mask: int) -> list[list[int]]:
    """One :class:`~.exchange.RegisterSwap` on one warp's registers (a new list)."""
    out = [list(regs) for regs in warp]
    for lane, regs in enumerate(warp):
        for r in range(len(regs)):
            if r >> register_bit & 1:
                continue
            hi = r | 1 << register_bit
            if lane & lane_mask:
                out[lane][r] = warp[lane ^ lane_mask][hi]
            else:
                out[lane][hi] = warp[lane ^ lane_mask][r]
    return out


def _flat(layout: LinearLayout, coords: tuple[int, ...]) -> int:
    """Out-dim coordinates (in ``layout``'s out-dim order) as one flat index, first lowest."""
    flat, shift = 0, 0
    for c, (_, size) in zip(coords, layout.out_dims.items()):
        flat |= c << shift
        shift += size.bit_length() - 1
    return flat


def _execute_stages(problem: ConversionProblem, plan: StagePlan) -> Execution:
    src, dst = problem.src, problem.dst
    _check_size(problem, 1)
    try:
        got = plan.lowering.execute(src, 1 << problem.lane_bits)
    except LayoutError as exc:  # a permute mixed the bytes of two elements
        raise LayoutError(f"the stage plan does not fit this conversion: {exc}") from None
    regs = [i for i, c in enumerate(dst.dim_columns("register")) if c]
    bad = []
    checked = 0
    for r, row in enumerate(got):
        full = sum(1 << regs[b] for b in range(len(regs)) if r >> b & 1)
        for lane, element in enumerate(row):
            want = tuple(dst.apply({"register": full, "lane": lane}).values())
            checked += 1
            if element != want and len(bad) < 8:
                bad.append((0, lane, full,
                            _flat(dst, element) if isinstance(element, tuple) else None,
                            _flat(dst, want)))
    if len(got) != 1 << len(regs):
        return Execution(False, checked, tuple(bad))
    return Execution(not bad, checked, tuple(bad))


def execute_shared(problem: ConversionProblem, memory: LinearLayout) -> Execution:
    """Run a shared-memory round trip through ``memory`` (a bijection from offsets — its in
    dims flattened, first lowest — onto the tensor, as :func:`~linlayout.synthesize_swizzle`
    returns): every warp stores each register at the offset of its element, then every
    thread loads the offset of each ``dst`` element. Two different values at one offset, or
    a load of an offset nobody wrote, make the run incorrect.

    Raises:
        LayoutError: ``memory`` does not cover the tensor's out dims, the run is too big, or
            an argument has the wrong type.

    Source: the symbolic executor (module docstring).
    """
    instance_of(problem, ConversionProblem, "problem")
    instance_of(memory, LinearLayout, "memory")
    if memory.total_in_bits > 24:
        raise LayoutError(f"the memory layout has {memory.total_in_bits} offset bits; the "
                          "executor takes at most 24")
    if dict(memory.out_dims) != dict(problem.src.out_dims):
        raise LayoutError(f"the memory layout's out dims {dict(memory.out_dims)} are not the "
                          f"tensor's {dict(problem.src.out_dims)}")
    if memory.out_dim_names != problem.src.out_dim_names:
        memory = memory.transpose_outs(list(problem.src.out_dim_names))
    regs = _initial(problem)
    offset_of = {memory.apply_flat(o): o for o in range(1 << memory.total_in_bits)}
    smem: dict[int, int] = {}
    clash = False
    for warp in regs:
        for lane_regs in warp:
            for value in lane_regs:
                o = offset_of.get(value)
                if o is None or smem.setdefault(o, value) != value:
                    clash = True
    final = [[[smem.get(offset_of.get(problem.thread_elements("dst", r, lane, w), -1))
               for r in range(1 << problem.register_bits[1])]
              for lane in range(1 << problem.lane_bits)] for w in range(len(regs))]
    result = _compare(problem, final)
    if clash:
        return Execution(False, result.checked, result.mismatches)
    return result
