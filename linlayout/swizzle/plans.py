"""Candidate memory layouts ("plans") and how each is built and counted.

A plan fixes the memory layout's first offset bits (the *prefix*: the common vector, a side's
wider vector, a pinned prefix, or one 16-byte row of a matrix instruction), chooses the
segment span with :func:`~.segments.best_segment`, fills the bank bits, and reports every
side exactly as :func:`~linlayout.bank_conflicts` would count it on the result.
:func:`build_plan` is the workhorse; :func:`widened_plans` and :func:`kind_choices` produce
the alternatives :mod:`.synthesize` chooses among.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .. import f2
from ..conflicts import ConflictReport
from ..conflicts.closed_form import alignment_log2, count_matrix, count_offsets, widest_vector_log2
from ..errors import LayoutError
from ..hardware.instructions import (
    Instruction,
    MatrixGeometry,
    all_variants,
    check_memory,
    matrix_geometry,
    parse_instruction,
)
from ..hardware.kinds import Distributed
from ..hardware.model import BankModel
from .segments import best_segment
from .space import candidate_vectors, outside_spaces, project_along, vector_prefix_len

__all__ = [
    "MatrixKind",
    "Plan",
    "build_plan",
    "first_bank_choices",
    "ideal_cost",
    "kind_choices",
    "kind_report",
    "matrix_kind",
    "misaligned",
    "side_report",
    "widened_plans",
]


@dataclass
class Plan:
    """One candidate memory layout: its columns, its sides' reports, and the bounds it was
    built against.

    Attributes:
        cols: flat tensor coordinate of each offset bit (prefix, bank bits, segment bits).
        nbank: how many bank bits follow the prefix.
        reports: each side's exact :class:`~linlayout.ConflictReport`, store first.
        bounds: per-side lower-bound exponents of the segment choice.
        optimum: the exponents the chosen segment reaches (optimal when ``proven``).
        proven: the segment search finished.
        planned_k: the vector log2 each side was planned with.
        min_sum, sum_witness: the least sum of degrees over segment spans, and a span
            reaching it.
    """

    cols: list[int]
    nbank: int
    reports: list[ConflictReport]
    bounds: tuple[int, ...]  # per-side lower-bound exponents
    optimum: tuple[int, ...]  # exponents of the chosen segment (optimal when proven)
    proven: bool
    planned_k: list[int]
    min_sum: int = 0
    sum_witness: tuple[int, ...] = ()

    def meets(self) -> bool:
        """Every side conflict-free, or at the segment optimum with its planned vector."""
        return all(
            rep.degree == 1 or ((rep.vector_elems == 1 << k or rep.instruction != "ld/st.shared")
                                and rep.degree <= 1 << e)
            for rep, k, e in zip(self.reports, self.planned_k, self.optimum)
        )

    def score(self) -> tuple[int, int]:
        """``(worst degree, sum of degrees)`` over the sides."""
        degrees = [r.degree for r in self.reports]
        return (max(degrees), sum(degrees))

    def cost(self) -> tuple[int, int, int]:
        """(total wavefronts per warp, instructions per warp, worst degree) over all sides."""
        total = sum(r.wavefronts_per_warp for r in self.reports)
        instr = sum(r.instructions_per_warp for r in self.reports)
        return (total, instr, max(r.degree for r in self.reports))


@dataclass(frozen=True)
class MatrixKind:
    """A side's matrix instruction, its geometry, and the subspace its rows must start in."""

    instr: Instruction
    geom: MatrixGeometry
    aligned: tuple[int, ...]


def matrix_kind(instr: Instruction, side: Distributed, model: BankModel, d: int) -> MatrixKind | None:
    """The side's geometry for a matrix instruction, or None when the layout cannot use it."""
    if model.warp_log2 != 5 or model.hardware.row_bytes < 128:
        return None
    try:
        geom = matrix_geometry(instr, side.register, side.lane, model.element_bits)
    except LayoutError:
        return None
    row = list(geom.row)
    if instr.trans:
        rest = list(side.register) + [side.lane[0], side.lane[1]]
    else:
        rest = [r for r in side.register if not f2.in_span(r, row)] + list(side.lane[2:])
    rest += list(side.warp) + list(side.block)
    aligned = f2.extend_basis(row, rest)
    aligned += f2.extend_basis(row + aligned, (1 << i for i in range(d)))
    return MatrixKind(instr, geom, tuple(aligned))


def side_report(mem_cols: list[int], inv: list[int], side: Distributed, reg_basis: tuple[int, ...],
            model: BankModel, d: int) -> ConflictReport:
    """Exactly what ``bank_conflicts(side, memory)`` returns, from flat columns.

    Args:
        mem_cols: the memory layout's columns (tensor coordinate of each offset bit).
        inv: its inverse's columns (offset of each tensor bit).
        side: the distributed layout's columns.
        reg_basis: echelon basis of its register images.
        model: the bank model; d: the tensor's bit count.
    """
    lane_offs = f2.compose_within(inv, side.lane, d)  # memory offset of each lane bit
    k = widest_vector_log2(mem_cols, d, reg_basis, model)
    if k:  # a vector must also start aligned in every thread
        k = min(k, alignment_log2(lane_offs + f2.compose_within(inv, side.warp + side.block,
                                                                 d)))
    reg_offs = f2.compose_within(inv, side.register, d)
    return count_offsets(lane_offs, reg_offs, k, model)


def kind_report(cols: list[int], inv: list[int], side: Distributed, reg: tuple[int, ...],
                 kind: MatrixKind | None, model: BankModel, d: int) -> ConflictReport:
    """The side's exact report: ld/st.shared at its widest vector, or its matrix instruction."""
    if kind is None:
        return side_report(cols, inv, side, reg, model, d)
    row_offs, row_bits = check_memory(kind.instr, kind.geom, inv, side.register, side.lane,
                                      side.warp, model.element_bits)
    reg_offs = [f2.apply(inv, c) for c in side.register]
    return count_matrix(kind.instr, row_offs, row_bits, reg_offs, model)


def misaligned(inv: list[int], sides: list[Distributed], kp: int) -> bool:
    """Whether some lane, warp or block direction has offset bits inside the prefix."""
    low = (1 << kp) - 1
    return any(f2.apply(inv, c) & low for s_ in sides for c in s_.lane + s_.warp + s_.block)


def ideal_cost(prefix: list[int], sides: list[Distributed], regs: list[tuple[int, ...]],
                model: BankModel) -> tuple[int, int]:
    """(wavefronts, instructions) per warp if every side were conflict-free at the vector the
    prefix gives it — a lower bound on what a plan with this prefix can cost."""
    waves = instrs = 0
    for side, r in zip(sides, regs):
        k = vector_prefix_len(prefix, r)
        n = 1 << max(0, len(r) - k)
        phases = 1 << len(model.phase_masks(k))
        waves += n * phases
        instrs += n
    return waves, instrs


def widened_plans(prefixes: list[list[int]], base: Plan, vectors: str,
                   sides: list[Distributed], regs: list[tuple[int, ...]], model: BankModel,
                   d: int, node_limit: int) -> list[Plan]:
    """Plans giving one side a wider vector, built cheapest-ideal first.

    A plan can cost no less than its ideal (every side conflict-free), so once the best plan
    built so far is no worse than the next ideal, the remaining ones cannot win and are not
    built."""
    def key(cost: tuple[int, int, int], is_base: bool) -> tuple:
        # "auto" leaves the common vector only for strictly fewer wavefronts
        return (cost[0], not is_base, cost[1]) if vectors == "auto" else cost[:2]

    best_key = key(base.cost(), True)
    out = []
    for prefix in sorted(prefixes, key=lambda p: ideal_cost(p, sides, regs, model)):
        if key(ideal_cost(prefix, sides, regs, model) + (0,), False) >= best_key:
            break
        plan = build_plan(prefix, sides, regs, model, d, node_limit)
        if plan is not None:
            out.append(plan)
            best_key = min(best_key, key(plan.cost(), False))
    return out


def kind_choices(instructions: Any, sides: list[Distributed], model: BankModel,
                  d: int) -> Iterator[list[MatrixKind | None]]:
    """Per-side matrix-instruction combinations to try (at least one matrix side each)."""
    if instructions is None:
        return
    if instructions == "auto":
        options: list[list[MatrixKind | None]] = []
        for i, side in enumerate(sides):
            opts: list[MatrixKind | None] = [None]
            for trans in (False, True):
                for instr in all_variants(store=i == 0):
                    if instr.trans != trans:
                        continue
                    kind = matrix_kind(instr, side, model, d)
                    if kind is not None:  # widest .xN first: keep it
                        opts.append(kind)
                        break
            options.append(opts)
        for combo in itertools.product(*options):
            matrix = [k for k in combo if k]
            if matrix and all(k.geom.row == matrix[0].geom.row for k in matrix):
                yield list(combo)
        return
    if isinstance(instructions, str) or not isinstance(instructions, Sequence):
        raise LayoutError(
            f"instructions must be None, 'auto', or one name per side; got {instructions!r}"
        )
    if len(instructions) != len(sides):
        raise LayoutError(
            f"give one instruction per side (store first, then each load): {len(sides)} "
            f"names, got {len(instructions)}"
        )
    combo: list[MatrixKind | None] = []
    for i, (name, side) in enumerate(zip(instructions, sides)):
        instr = parse_instruction(name)
        if not instr.is_matrix:
            combo.append(None)
            continue
        if instr.store != (i == 0):
            raise LayoutError(f"{instr.name} is a {'store' if instr.store else 'load'}; "
                              f"side {i} is {'the store' if i == 0 else 'a load'}")
        if model.warp_log2 != 5 or model.hardware.row_bytes < 128:
            raise LayoutError(f"{instr.name} needs 32-lane warps and 128-byte rows of banks")
        matrix_geometry(instr, side.register, side.lane, model.element_bits)  # raises why not
        combo.append(matrix_kind(instr, side, model, d))
    if any(combo):
        yield combo


def build_plan(prefix: list[int], sides: list[Distributed], regs: list[tuple[int, ...]],
           model: BankModel, d: int, node_limit: int,
           kinds: Sequence[MatrixKind | None] | None = None) -> Plan | None:
    """Build the best layout whose offsets start with ``prefix`` (the vector, or a matrix row).

    ``kinds`` gives each side's matrix instruction (None: ld/st.shared). Returns None when a
    matrix side cannot use the resulting layout.
    """
    kinds = list(kinds) if kinds is not None else [None] * len(sides)
    kp = len(prefix)
    ks = [kp if kind else vector_prefix_len(prefix, r) for r, kind in zip(regs, kinds)]
    z = min(max(kp, model.within_word_bits), d)
    row = min(model.seg_lo, d)
    nbank = row - kp
    nseg = d - row
    lanes = [list(kind.geom.rows) if kind else f2.compose(s.lane, model.phase_lanes(k))
             for s, k, kind in zip(sides, ks, kinds)]
    # The first basis after the prefix must not extend the vector of a side that holds the
    # whole prefix in registers (and could still widen).
    avoid = [r for r, k, kind in zip(regs, ks, kinds)
             if not kind and k == kp and k < model.max_vector_log2]
    matrix = next((kind for kind in kinds if kind), None)
    def aligned_complement() -> list[int] | None:
        """A complement of the prefix holding the thread directions: those of the sides that
        hold the whole prefix first (they vectorise over all of it), then the others."""
        if matrix is not None:
            return list(matrix.aligned)
        if not kp:
            return None
        order = sorted(range(len(sides)), key=lambda i: ks[i] != kp)
        threads = [c for i in order for c in sides[i].lane + sides[i].warp + sides[i].block]
        t_basis = f2.extend_basis(prefix, threads)
        return t_basis + f2.extend_basis(prefix + t_basis, (1 << i for i in range(d)))

    # Sides whose vector is shorter than the prefix: Z ⊇ prefix no longer holds for them, so
    # search inside the aligned complement the non-prefix bases will span (exact there).
    uneven = bool(kp) and any(k < kp for k in ks)
    target = aligned_complement() if uneven or matrix is not None else None

    best: Plan | None = None
    tries = 0
    for zcols, first_bank in first_bank_choices(prefix, z, d, lanes, avoid):
        if uneven and target is not None:
            zcols = prefix + project_along(zcols[kp:], prefix, target)
            w = model.within_word_bits
            xs = [list(f2.intersection(ln + zcols[:max(k, w)], target)) + zcols
                  for ln, k in zip(lanes, ks)]
        else:
            xs = [ln + zcols for ln in lanes]
        choice = best_segment(xs, zcols, d, nseg, node_limit=node_limit)
        seg = list(choice.segment)
        banks = list(zcols[kp:])
        if first_bank is not None and len(banks) < nbank:
            fb = first_bank(seg)
            if fb is None:
                continue
            banks.append(fb)
        flat_lanes = [v for ln in lanes for v in ln]
        banks += f2.extend_basis(prefix + banks + seg, candidate_vectors(d, flat_lanes),
                                 limit=nbank - len(banks))
        seg.sort(key=lambda v: ((v & -v).bit_length(), v))
        cols = prefix + banks + seg
        inv = f2.inverse(cols)
        if kp and (matrix is not None or misaligned(inv, sides, kp)):
            if target is None:
                target = aligned_complement()
            assert target is not None
            # Rows (matrix) or every thread's vector must start aligned: the thread (and row)
            # directions must lie in the span of the non-prefix bases. Project those bases
            # along the prefix onto the aligned complement; every side's X contains its Z,
            # so the conflicts do not change (the same argument as for Z in Lemma 9.5).
            rest = project_along(banks + seg, prefix, target)
            banks, seg = rest[:len(banks)], rest[len(banks):]
            cols = prefix + banks + seg
            inv = f2.inverse(cols)
        try:
            reports = [kind_report(cols, inv, s, r, kind, model, d)
                       for s, r, kind in zip(sides, regs, kinds)]
        except LayoutError:
            return None
        plan = Plan(cols, nbank, reports, choice.lower_bounds, choice.exponents,
                     choice.proven, ks, choice.min_sum_degrees, choice.sum_witness)
        if best is None or plan.score() < best.score():
            best = plan
        tries += 1
        if plan.meets() or tries >= 32:
            break
    return best


def first_bank_choices(vec, z, d, lanes, avoid):
    """Yield ``(Z columns, first_bank)`` choices, best first.

    ``first_bank(seg)`` returns the first bank basis given the segment basis (or None when no
    candidate fits); it is None itself when Z already holds the first bank-dim basis.

    For sub-word elements the first bank-dim bases are the within-word bits (part of Z);
    otherwise the first bank basis is picked after the segment span. Either way the first
    basis after the vector should lie outside the register spans in ``avoid`` (so no side
    vectorises wider than planned); candidates that satisfy this come first, and a final
    unconstrained choice guarantees progress.
    """
    k = len(vec)
    if z > k:
        # Sub-word: choose the within-word extras now, the first outside the register spans;
        # lane directions every side shares come first (those lanes then share a word).
        # (a preference order only: common lane columns, then all lane columns)
        common_lanes = set(lanes[0]).intersection(*lanes[1:])
        prefer = sorted(common_lanes) + [v for ln in lanes for v in ln]
        seen = 0
        for first in outside_spaces(candidate_vectors(d, prefer), avoid + [f2.echelon(vec)]):
            zcols = vec + [first]
            zcols += f2.extend_basis(zcols, candidate_vectors(d, prefer), limit=z - k - 1)
            if len(zcols) < z:
                continue
            yield zcols, None
            seen += 1
            if seen >= 8:
                break
        zcols = vec + f2.extend_basis(vec, candidate_vectors(d, prefer), limit=z - k)
        yield zcols, None
        return

    flat = [v for ln in lanes for v in ln]

    def first_bank(avoid_spaces):
        def pick(seg):
            taken = f2.echelon(vec + seg)
            for c in outside_spaces(candidate_vectors(d, flat), avoid_spaces + [taken]):
                return c
            return None
        return pick

    yield vec, first_bank(avoid)
    for i in range(len(avoid)):
        yield vec, first_bank(avoid[:i] + avoid[i + 1:])
    if avoid:
        yield vec, first_bank([])
