"""The bank conflicts of one warp access against a limit, as ``linlayout conflicts`` prints them.

:func:`conflict_verdict` counts one access exactly (:func:`linlayout.bank_conflicts`) — a
distributed tile smaller than the memory's tensor is counted at the memory's origin
(:func:`linlayout.hardware.kinds.embed_at_origin`), with a note saying so — and compares its
degree with ``max_degree``; with ``explain=True`` it also explains the count
(:func:`linlayout.conflicts.explain.explain_conflicts`), rendered by :func:`explanation_text`.
:class:`ConflictVerdict` holds the result;
:meth:`~ConflictVerdict.to_text` is the table and ``ok:``/``FAIL:`` line the command prints and
:meth:`~ConflictVerdict.to_dict` the data its ``--json`` prints.

Example::

    >>> from linlayout import LinearLayout
    >>> from linlayout.show.conflicts import conflict_verdict
    >>> lanes = LinearLayout.identity_1d(32, "lane", "dim0")
    >>> memory = LinearLayout.identity_1d(32, "offset", "dim0")
    >>> conflict_verdict(lanes, memory, element_bits=32).to_text().splitlines()[-1]
    'ok: degree 1 <= --max-degree 1'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._checks import as_int, instance_of
from ..conflicts import ConflictReport, bank_conflicts
from ..conflicts.explain import ConflictExplanation, InstructionExplanation, explain_conflicts
from ..errors import LayoutError
from ..hardware.kinds import embed_at_origin, is_smaller_tile
from ..hardware.model import HardwareModel
from ..layout import LinearLayout
from ..layout.padded import PaddedLayout
from .schemas import versioned
from .text import table

__all__ = ["CONFLICT_HEADER", "ConflictVerdict", "conflict_verdict", "explanation_text",
           "tile_note"]

#: The header of the table :meth:`ConflictVerdict.to_text` prints.
CONFLICT_HEADER = ("instruction", "vector (elems)", "degree", "phases", "lanes/phase",
                   "wavefronts/instr", "instr/warp", "wavefronts/warp", "floor (wavefronts)",
                   "bytes/warp")


def tile_note(tile: LinearLayout, memory: LinearLayout) -> str | None:
    """The note printed when ``tile`` is a smaller tile of ``memory``'s tensor
    (:func:`~linlayout.hardware.kinds.is_smaller_tile`), e.g. an MMA atom inside a larger
    shared-memory tile: both shapes (element counts per out dim, in ``tile``'s order) and that
    the count is taken at the tile's origin; None otherwise.
    """
    if not is_smaller_tile(tile, memory):
        return None
    return (f"the layout covers {list(tile.out_dims.values())} of the memory's "
            f"{[memory.out_dims[n] for n in tile.out_dims]}: counted at the tile's origin")


@dataclass(frozen=True)
class ConflictVerdict:
    """One counted warp access and whether its degree is acceptable.

    Attributes:
        report: the exact count (:class:`~linlayout.ConflictReport`).
        max_degree: the largest acceptable conflict degree (at least 1).
        note: why the layouts were adjusted before counting (:func:`tile_note`), or None.
        explanation: the lanes, banks and words behind the count
            (:func:`~linlayout.conflicts.explain.explain_conflicts`), or None when not asked.
    """

    report: ConflictReport
    max_degree: int
    note: str | None = None
    explanation: ConflictExplanation | None = None

    @property
    def ok(self) -> bool:
        """True when the degree is at most :attr:`max_degree` (``linlayout conflicts`` exits 0)."""
        return self.report.degree <= self.max_degree

    def to_text(self) -> str:
        """The table of the count (:data:`CONFLICT_HEADER`), the note if any, the explanation
        if any (:func:`explanation_text`), and the verdict
        line ``ok: degree D <= --max-degree K`` or ``FAIL: degree D > --max-degree K``; lines
        joined by newlines, no final newline."""
        rep = self.report
        lines = [table(CONFLICT_HEADER, [(
            rep.instruction, rep.vector_elems, rep.degree, rep.phases, rep.lanes_per_phase,
            rep.wavefronts_per_instruction, rep.instructions_per_warp, rep.wavefronts_per_warp,
            rep.wavefront_floor, rep.bytes_per_warp)])]
        if self.note:
            lines.append(f"note: {self.note}")
        if self.explanation is not None:
            lines.append(explanation_text(self.explanation))
        word, cmp = ("ok", "<=") if self.ok else ("FAIL", ">")
        lines.append(f"{word}: degree {rep.degree} {cmp} --max-degree {self.max_degree}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """:meth:`ConflictReport.to_dict <linlayout.ConflictReport.to_dict>` plus
        ``max_degree``, ``ok`` and, when there is one, ``note`` and ``explain``
        (:meth:`ConflictExplanation.to_dict
        <linlayout.conflicts.explain.ConflictExplanation.to_dict>`) (JSON-ready)."""
        out = versioned(self.report.to_dict())
        out["max_degree"] = self.max_degree
        out["ok"] = self.ok
        if self.note:
            out["note"] = self.note
        if self.explanation is not None:
            out["explain"] = self.explanation.to_dict()
        return out


def conflict_verdict(layout: LinearLayout, memory: LinearLayout | PaddedLayout, *,
                     element_bits: int,
                     max_degree: int = 1, hardware: HardwareModel | None = None,
                     instruction: str | None = None,
                     vector_elems: int | None = None,
                     explain: bool = False) -> ConflictVerdict:
    """Count one warp access exactly and compare its degree with ``max_degree``.

    Args:
        layout: the distributed layout (in dims among ``register, lane, warp, block``); a
            smaller tile of ``memory``'s tensor (same out dims, each no larger) is counted at
            the memory's origin and the verdict carries a :func:`tile_note`.
        memory: the shared-memory layout (in dims ``offset`` or ``vector/bank/segment``), or
            a :class:`~linlayout.PaddedLayout` (its tensor is its ``linear`` component's).
        element_bits: bits per element.
        max_degree: the largest acceptable conflict degree, at least 1 (default 1:
            conflict-free).
        hardware, instruction, vector_elems: as for :func:`linlayout.bank_conflicts`.
        explain: also explain the count (the verdict's ``explanation``).

    Returns:
        A :class:`ConflictVerdict`.

    Raises:
        LayoutError: ``max_degree`` below 1, or anything :func:`linlayout.bank_conflicts`
            rejects.
    """
    max_degree = as_int(max_degree, "max_degree")
    if max_degree < 1:
        raise LayoutError(f"max_degree must be at least 1, got {max_degree}")
    tensor = memory.linear if isinstance(memory, PaddedLayout) else memory
    note = tile_note(layout, tensor)
    if note:
        layout = embed_at_origin(layout, tensor)
    if explain:
        expl = explain_conflicts(layout, memory, element_bits=element_bits, hardware=hardware,
                                 instruction=instruction, vector_elems=vector_elems)
        return ConflictVerdict(expl.report, max_degree, note, expl)
    rep = bank_conflicts(layout, memory, element_bits=element_bits, hardware=hardware,
                         instruction=instruction, vector_elems=vector_elems)
    return ConflictVerdict(rep, max_degree, note)


def _lanes(lanes: tuple[int, ...] | list[int]) -> str:
    """Lane ids as ascending runs: ``0-7, 16-23``."""
    runs: list[list[int]] = []
    for lane in sorted(lanes):
        if runs and lane == runs[-1][1] + 1:
            runs[-1][1] = lane
        else:
            runs.append([lane, lane])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _bits(bits: tuple[int, ...]) -> str:
    word = "bit" if len(bits) == 1 else "bits"
    return f"{word} {', '.join(map(str, bits))}"


def _instruction_lines(expl: ConflictExplanation, kind: int,
                       ins: InstructionExplanation) -> list[str]:
    """One instruction kind: its phases, then its worst phase's worst bank word by word."""
    rep = expl.report
    matrix = rep.instruction.startswith(("ldmatrix", "stmatrix"))
    unit = "matrix" if matrix else "phase"
    where = "per warp" if expl.scope == "per warp" else "over all warps"
    degrees = " + ".join(str(p.degree) for p in ins.phases)
    lines = [f"instruction kind {kind}: {ins.count} instruction(s) {where} like the one moving "
             f"registers {list(ins.registers)} of warp {ins.warp}, block {ins.block}: "
             f"{ins.wavefronts} wavefront(s) = {degrees} ({unit} degrees)"]
    for p in ins.phases:
        banks = (f", {p.conflicted_banks} bank(s) asked for {p.degree} distinct words"
                 if p.degree > 1 else ", every bank asked for at most one word")
        lines.append(f"  {unit} {p.index}: lanes {_lanes(p.lanes)}: degree {p.degree}{banks}")
    worst = ins.worst_phase
    if worst.degree > 1:
        lines.append(f"  worst {unit} {worst.index}, bank {worst.bank}: {worst.degree} distinct "
                     f"{expl.bank_bytes}-byte words")
        for w in worst.words:
            asks = ", ".join(f"{lane} (byte {b})" for lane, b in zip(w.lanes, w.lane_bytes))
            lines.append(f"    word {w.word} (bytes {w.byte_address}-"
                         f"{w.byte_address + expl.bank_bytes - 1}): lane(s) {asks}")
    return lines


def explanation_text(expl: ConflictExplanation) -> str:
    """The explanation :func:`conflict_verdict` adds with ``explain=True``, as lines of text
    (no final newline): per instruction kind its phases and degrees, the worst phase's worst
    bank with the words it is asked for and the lanes (and byte addresses) asking; then, for a
    linear memory layout, why: the colliding offset bits of Lemma 9.4's subspace, one lane
    pair per dimension.

    Raises:
        LayoutError: ``expl`` is not a ConflictExplanation (``conflict_verdict(...,
            explain=True).explanation`` or :func:`~linlayout.conflicts.explain.explain_conflicts`).
    """
    instance_of(expl, ConflictExplanation, "expl")
    rep = expl.report
    how = {"closed form": "linear layouts: every instruction of every warp costs the same",
           "enumeration": "padded layout: every instruction of every warp enumerated",
           "first instruction": "padded layout too large to enumerate: the first instruction "
                                "only"}[expl.method]
    lines = [f"explain ({how}):"]
    if rep.instruction.startswith(("ldmatrix", "stmatrix")):
        lines.append("  (a phase is one 8x8 matrix; row r of the instruction's m-th matrix has "
                     "its address from lane 8m + r)")
    for kind, ins in enumerate(expl.instructions, 1):
        lines += _instruction_lines(expl, kind, ins)
    if expl.pairs:
        n = len(expl.pairs)
        lines.append(
            f"why (Lemma 9.4): offsets differing only in segment bits (offset bits >= "
            f"{expl.seg_lo}, i.e. whole {rep.row_bytes}-byte rows of banks apart) share a bank; "
            f"span(segment bits) ∩ (span(phase) + Z) has dimension {n}, so "
            f"{1 << n} distinct words meet in one bank"
            + (f" (Z: offset bits below {expl.z}, inside one vector, word or row)" if expl.z
               else ""))
        unit = "rows" if rep.instruction.startswith(("ldmatrix", "stmatrix")) else "lanes"
        for p in expl.pairs:
            low = (f" and in {_bits(p.low_bits)} below {expl.z} (inside one vector or word)"
                   if p.low_bits else "")
            only = "" if p.low_bits else " only"
            kind = "is a segment bit" if len(p.segment_bits) == 1 else "are segment bits"
            who = f"{unit} {p.lanes[0]} and {p.lanes[1]}"
            if unit == "rows":
                who += f" of matrix 0 (lanes {p.lanes[0]} and {p.lanes[1]})"
            lines.append(
                f"  {who} differ{only} in offset {_bits(p.segment_bits)}{low}, which {kind}: "
                f"same bank, different word (bytes {p.byte_addresses[0]} and "
                f"{p.byte_addresses[1]})")
    elif rep.degree > 1 and expl.method != "closed form":
        lines.append("why: padding is not linear, so the collisions above are found by "
                     "enumeration, not by a subspace")
    return "\n".join(lines)
