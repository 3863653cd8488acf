"""The report of a synthesized shared-memory layout, as ``linlayout synthesize`` prints it.

:func:`synthesis_report` gathers, for a :class:`~linlayout.SwizzleResult`, everything a person
(or a tool reading JSON) wants next to the layout: its offset formula
(:func:`~linlayout.show.formula.offset_formula`), the TMA swizzle mode that writes it
(:func:`~linlayout.ptx.match_tma_mode`), its Triton, Gluon and CuTe forms, the cost table
with the proof of optimality, and optionally the best padded layout beside it with the choice
between the two. :class:`SynthesisReport` holds them; :meth:`~SynthesisReport.to_text` is the
text ``linlayout synthesize`` prints and :meth:`~SynthesisReport.to_dict` the data its
``--json`` prints.

Example::

    >>> from linlayout import examples, synthesize_swizzle
    >>> from linlayout.show.synthesis import synthesis_report
    >>> ex = examples.get("transpose")
    >>> report = synthesis_report(synthesize_swizzle(ex.store, ex.load, element_bits=32),
    ...                           example="transpose")
    >>> report.formula
    'offset = 128·⌊n/8⌋ + 32·⌊m/4⌋ + 4·((n & 7) ⊕ 2·⌊m/4⌋) + (m & 3)'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import examples
from .._checks import instance_of, log2_exact, sequence_of
from ..conflicts import ConflictReport
from ..cute import NoCuteFormError, to_cute
from ..errors import LayoutError
from ..layout import LinearLayout
from ..ptx import TmaMatch, match_tma_mode
from ..synthesis import (LoweredSide, PaddingChoice, PaddingResult, SwizzleResult, Transfer,
                         choose_padding_or_swizzle, lower_sides)
from ..synthesis.explain import SynthesisExplanation, explain_synthesis
from ..synthesis.lowered import resolve_target
from ..triton import to_gluon, to_triton_text
from .formula import offset_formula
from .schemas import versioned
from .text import table

__all__ = ["EXAMPLE_NAMES", "EXPLAIN_HEADER", "SIDE_HEADER", "SynthesisReport",
           "explanation_text", "interop", "side_rows", "synthesis_report"]

#: Display names of tensor dims for built-in examples (the article calls them m and n).
EXAMPLE_NAMES = {"transpose": {"dim0": "m", "dim1": "n"}}

#: The header of :func:`side_rows`.
SIDE_HEADER = ("side", "instruction", "vector (elems)", "degree", "instr/warp",
               "wavefronts/warp", "floor (wavefronts)", "bytes/warp")


def side_rows(names: Sequence[str], reports: Sequence[Any],
              counted: tuple[bool, ...] = ()) -> list[tuple]:
    """One table row per side (:data:`SIDE_HEADER`): instruction, vector (elements), degree,
    and the warp's totals against the floors; a side not counted (a TMA copy) is marked so.

    Args:
        names: each side's name (``"store"``, ``"load"``, …).
        reports: each side's :class:`~linlayout.ConflictReport`, in the same order.
        counted: which sides enter the totals (default: all).

    Raises:
        LayoutError: ``names`` not a list of str, ``reports`` not a list of ConflictReport,
            or the lists of different lengths.
    """
    names = sequence_of(names, str, "names")
    reports = sequence_of(reports, ConflictReport, "reports")
    counted = sequence_of(counted, (bool, int), "counted")
    if len(names) != len(reports) or (counted and len(counted) != len(reports)):
        raise LayoutError(f"names, reports (and counted) must have one entry per side; got "
                          f"{len(names)} names and {len(reports)} reports")
    rows = []
    counted = counted or (True,) * len(reports)
    for name, rep, c in zip(names, reports, counted):
        if not c:
            rows.append((name, "TMA copy (not counted)", "-", "-", "-", "-", "-", "-"))
            continue
        rows.append((name, rep.instruction, rep.vector_elems, rep.degree,
                     rep.instructions_per_warp, rep.wavefronts_per_warp, rep.wavefront_floor,
                     rep.bytes_per_warp))
    return rows


def interop(memory: LinearLayout, element_bits: int, *, tma: bool = False) -> dict[str, Any]:
    """A shared-memory layout as Triton attribute text, Gluon source and CuTe text.

    Args:
        memory: the layout (in dims ``offset`` or ``vector/bank/segment``).
        element_bits: bits per element.
        tma: the layout is one a TMA copy writes: name it as ``#ttg.nvmma_shared`` /
            ``gl.NVMMASharedLayout`` (what Triton's TMA path needs) when that names it, even
            where a ``swizzled_shared`` is the same layout.

    Returns:
        ``{"triton", "gluon", "cute"}``, each None where the layout has no such form (Triton
        and Gluon together); when CuTe has none, also ``"cute_reason"``, the reason.

    Source: :func:`~linlayout.triton.to_triton_text` / :func:`~linlayout.triton.to_gluon`
    (Triton 3.9's shared encodings) and :func:`~linlayout.cute.to_cute`.

    Raises:
        LayoutError: ``memory`` is not a LinearLayout, or ``element_bits`` is not a positive
            power of two (a layout Triton or CuTe cannot name is None, not an error).
    """
    instance_of(memory, LinearLayout, "memory")
    log2_exact(element_bits, "element_bits")
    out: dict[str, Any] = {}
    try:
        prefer = "nvmma" if tma else "swizzled"
        out["triton"] = to_triton_text(memory, element_bits, prefer=prefer)
        out["gluon"] = to_gluon(memory, element_bits, prefer=prefer)
    except LayoutError:
        out["triton"] = out["gluon"] = None
    try:
        out["cute"] = to_cute(memory)
    except NoCuteFormError as exc:
        out["cute"], out["cute_reason"] = None, str(exc)
    return out


def _side_names(nloads: int) -> list[str]:
    return ["store"] + (["load"] if nloads == 1 else [f"load {i}" for i in range(nloads)])


def _padded_text(padding: PaddingResult) -> str | None:
    """The padded layout as Triton attribute text, or None when it has none."""
    try:
        return to_triton_text(padding.memory)
    except LayoutError:
        return None


@dataclass(frozen=True)
class SynthesisReport:
    """A synthesized layout with everything ``linlayout synthesize`` shows beside it.

    Attributes:
        result: the :class:`~linlayout.SwizzleResult`.
        title: the first line of the text.
        formula: the offset formula (:func:`~linlayout.show.formula.offset_formula`).
        tma: the TMA mode and box that write the layout (:class:`~linlayout.ptx.TmaMatch`),
            or None.
        triton, gluon: the layout as Triton attribute text and Gluon source (None when it
            has no such form).
        cute: its CuTe text, or None with ``cute_reason`` saying why.
        example: the built-in example's name, when the transfer is one (goes in the JSON).
        padding: the best padded layout (:class:`~linlayout.synthesis.PaddingResult`), or None.
        choice: the swizzle and the padding compared
            (:class:`~linlayout.synthesis.PaddingChoice`), when ``padding`` is given.
        lowered: for a result costed under the hardware model, each side as Triton 3.9 lowers
            it through the printed Triton layout on :attr:`target`
            (:class:`~linlayout.synthesis.LoweredSide`), when the transfer was given.
        target: the target of :attr:`lowered` (``"cuda:90"``).
        lowered_note: why :attr:`lowered` is missing, when it could not be computed.
        explanation: per offset bit, the constraint that put it there
            (:func:`~linlayout.synthesis.explain.explain_synthesis`), when asked for.
    """

    result: SwizzleResult
    title: str
    formula: str
    tma: TmaMatch | None
    triton: str | None
    gluon: str | None
    cute: str | None
    cute_reason: str | None = None
    example: str | None = None
    padding: PaddingResult | None = None
    choice: PaddingChoice | None = None
    lowered: tuple[LoweredSide, ...] | None = None
    target: str | None = None
    lowered_note: str | None = None
    explanation: SynthesisExplanation | None = None

    def lowered_totals(self) -> tuple[int, int] | None:
        """``(wavefronts, instructions)`` per warp, weighted, of :attr:`lowered`, or None."""
        if self.lowered is None:
            return None
        ws = (self.result.weights or (1,) * len(self.result.reports))[-len(self.lowered):]
        return (sum(w * s.report.wavefronts_per_warp for w, s in zip(ws, self.lowered)),
                sum(w * s.report.instructions_per_warp for w, s in zip(ws, self.lowered)))

    def _lowered_line(self) -> str | None:
        if self.lowered is None:
            return (f"Triton 3.9 cost: not computed — {self.lowered_note}"
                    if self.lowered_note else None)
        wf, ins = self.lowered_totals()  # type: ignore[misc]
        sides = ", ".join(f"{s.side} {s.emitted.opcode} x{s.emitted.per_thread}"
                          for s in self.lowered)
        mine = (self.result.wavefronts_per_warp, self.result.instructions_per_warp)
        same = "the cost reported below" if (wf, ins) == mine else \
            f"the report below says {mine[0]} and {mine[1]}"
        return (f"Triton 3.9 ({self.target}) lowers local_store/local_load through it to: "
                f"{sides} — {wf} wavefronts, {ins} instructions per warp ({same})")

    def to_text(self) -> str:
        """The text ``linlayout synthesize`` prints (without the final newline): title,
        layout, formula, TMA mode, Triton/Gluon/CuTe forms, cost table, verdict, notes and
        proof, then the padding comparison when there is one."""
        text = self._swizzle_text()
        if self.explanation is not None:
            text += "\n\n" + explanation_text(self.explanation)
        if self.padding is not None:
            text += "\n\n" + self._padding_text()
        return text

    def to_dict(self) -> dict[str, Any]:
        """The data ``linlayout synthesize --json`` prints: :meth:`SwizzleResult.to_dict
        <linlayout.SwizzleResult.to_dict>` with ``formula``, ``tma_mode``, ``triton``,
        ``gluon``, ``cute`` (and ``cute_reason``), ``example`` (a built-in example), and with
        padding ``padding`` (with its ``triton`` text) and ``choice``, and with an explanation
        ``explain`` (:meth:`SynthesisExplanation.to_dict
        <linlayout.synthesis.explain.SynthesisExplanation.to_dict>`)."""
        out = versioned(self.result.to_dict())
        out["formula"] = self.formula
        out["tma_mode"] = self.tma.to_dict() if self.tma else None
        out["triton"], out["gluon"], out["cute"] = self.triton, self.gluon, self.cute
        if self.cute_reason is not None:
            out["cute_reason"] = self.cute_reason
        if self.example is not None:
            out["example"] = self.example
        if self.lowered is not None:
            wf, ins = self.lowered_totals()  # type: ignore[misc]
            out["triton_lowering"] = {
                "target": self.target,
                "sides": [{"side": s.side, "opcode": s.emitted.opcode,
                           "per_thread": s.emitted.per_thread,
                           "vector_elems": s.emitted.vector_elems,
                           "wavefronts_per_warp": s.report.wavefronts_per_warp,
                           "instructions_per_warp": s.report.instructions_per_warp,
                           "degree": s.report.degree} for s in self.lowered],
                "wavefronts_per_warp": wf, "instructions_per_warp": ins,
                "same_as_report": (wf, ins) == (self.result.wavefronts_per_warp,
                                                self.result.instructions_per_warp)}
        elif self.lowered_note is not None:
            out["triton_lowering"] = {"target": self.target, "note": self.lowered_note}
        if self.padding is not None and self.choice is not None:
            out["padding"] = self.padding.to_dict()
            out["padding"]["triton"] = _padded_text(self.padding)
            out["choice"] = self.choice.choice
        if self.explanation is not None:
            out["explain"] = self.explanation.to_dict()
        return out

    def _swizzle_text(self) -> str:
        result = self.result
        rows = side_rows(_side_names(len(result.loads)), list(result.reports), result.counted)
        weighted = any(w != 1 for w in result.weights)
        rows.append(("total" + (" (weighted)" if weighted else ""), "", "", "",
                     result.instructions_per_warp, result.wavefronts_per_warp,
                     result.wavefront_floor, ""))
        b = result.bound
        floor_word = "yes" if result.at_floor else "no"
        summary = (f"conflict-free: {'yes' if result.conflict_free else 'no'}; at the bandwidth "
                   f"floor: {floor_word} ({result.wavefronts_per_warp} wavefronts per warp, "
                   f"floor {result.wavefront_floor})")
        if result.optimal:
            verdict = (f"proven optimal: yes — no layout beats {b.wavefronts_per_warp} "
                       f"wavefronts and {b.instructions_per_warp} instructions per warp")
        else:
            gw, gi = result.gap
            verdict = (f"proven optimal: no — the bound is {b.wavefronts_per_warp} wavefronts "
                       f"and {b.instructions_per_warp} instructions per warp; this layout is "
                       f"{gw} wavefronts and {gi} instructions above it")
        cute = self.cute or f"none — {self.cute_reason}"
        tma_line = self.tma.describe() if self.tma else None
        if result.counted and not result.counted[0] and not (
                self.triton or "").startswith("#ttg.nvmma_shared"):
            # a TMA store whose layout no nvmma_shared names at this shape (e.g. a swizzle
            # wider than the tile's rows): Triton's TMA path cannot produce it
            tma_line = (f"{tma_line}; " if tma_line else "") + (
                "no #ttg.nvmma_shared names this layout at this shape, and Triton's TMA path "
                "needs one: the Triton/Gluon forms below serve local_store/local_load only")
        # Only a positive TMA note: "not realisable" would be noise for most synthesized
        # layouts (the JSON always carries "tma_mode", null when no TMA mode writes it).
        return "\n".join([
            self.title,
            "",
            "shared-memory layout (offset bits -> tensor coordinates):",
            str(result.layout),
            "",
            self.formula,
            *([tma_line] if tma_line else []),
            f"Triton: {self.triton}", f"Gluon:  {self.gluon}", f"CuTe:   {cute}",
            *([line] if (line := self._lowered_line()) else []),
            "",
            table(SIDE_HEADER, rows),
            "",
            summary,
            verdict,
            *[f"note: {n}" for n in result.notes],
            f"bound: {b.argument}",
        ])

    def _padding_text(self) -> str:
        result, padding, choice = self.result, self.padding, self.choice
        assert padding is not None and choice is not None
        rows = side_rows(_side_names(len(padding.loads)), list(padding.reports))
        rows.append(("total", "", "", "", padding.instructions_per_warp,
                     padding.wavefronts_per_warp, "", ""))
        pairs = ", ".join(f"{i}:+{p}" for i, p in padding.memory.pairs)
        text = _padded_text(padding)
        if choice.choice == "padding":
            why = f"padding is cheaper, for {padding.overhead_bytes} bytes of shared memory"
        elif choice.tie:
            why = (f"they tie; the swizzle needs no padding ({padding.overhead_bytes} "
                   "bytes saved)")
        else:
            why = "the swizzle is cheaper"
        return "\n".join([
            f"best padded layout ({padding.candidates} candidates): pad [{pairs}] (elements), "
            f"overhead {padding.overhead_bytes} bytes per CTA "
            f"({padding.memory.size_bytes(padding.element_bits)} bytes in all)",
            *([f"Triton: {text}"] if text else []),
            "",
            table(SIDE_HEADER, rows),
            "",
            f"swizzle: {result.wavefronts_per_warp} wavefronts, {result.instructions_per_warp} "
            f"instructions per warp, 0 bytes of padding; padding: {padding.wavefronts_per_warp} "
            f"wavefronts, {padding.instructions_per_warp} instructions, "
            f"{padding.overhead_bytes} bytes",
            f"choose: {choice.choice} — {why}",
            *([f"note: the padding caps vectors at {padding.memory.max_vector_elems} elements "
               f"(every interval and pad must be a multiple of the vector)"]
              if padding.memory.max_vector_elems < max(r.vector_elems for r in result.reports)
              else []),
        ])


#: The header of :func:`explanation_text`'s table.
EXPLAIN_HEADER = ("offset bit", "tile", "kind", "reason", "sides")


def explanation_text(explanation: SynthesisExplanation) -> str:
    """An explanation as text: a table with one row per offset bit (its tile direction, where
    it sits in the bank model, the reason, and what each side holds there: ``v`` marks a bit
    inside the side's vector, ``!`` one that raises its conflict degree), then each bit's
    reason in words, runs of bits with the same sentence on one line (lines joined by newlines,
    no final newline).

    Raises:
        LayoutError: ``explanation`` is not a SynthesisExplanation.
    """
    instance_of(explanation, SynthesisExplanation, "explanation")
    rows = []
    for b in explanation.bits:
        tile = "(" + ", ".join(str(v) for v in b.tile.values()) + ")"
        sides = "; ".join(f"{r.side}: {r.holds or '-'}"
                          + (" v" if r.in_vector else "") + (" !" if r.conflict else "")
                          for r in b.sides)
        rows.append((b.bit, tile, b.kind, b.reason, sides))
    lines = ["why each offset bit (v: inside the side's vector; !: raises its conflicts):",
             table(EXPLAIN_HEADER, rows), ""]
    runs: list[list] = []  # [first bit, last bit, text]
    for b in explanation.bits:
        if runs and runs[-1][2] == b.text and runs[-1][1] == b.bit - 1:
            runs[-1][1] = b.bit
        else:
            runs.append([b.bit, b.bit, b.text])
    lines += [(f"bit {lo}" if lo == hi else f"bits {lo}-{hi}") + f": {text}"
              for lo, hi, text in runs]
    return "\n".join(lines)


def synthesis_report(result: SwizzleResult, *, title: str | None = None,
                     dim_names: Mapping[str, str] | None = None, example: str | None = None,
                     padding: PaddingResult | None = None,
                     transfer: Transfer | None = None,
                     target: str | None = None, explain: bool = False) -> SynthesisReport:
    """The report of a synthesized layout (module docstring).

    Args:
        result: what :func:`~linlayout.synthesize_swizzle` returned.
        title: the text's first line. Default: for a built-in ``example``, ``example NAME
            (B-bit elements): DESCRIPTION`` (as ``linlayout synthesize`` prints it), else
            ``synthesized shared-memory layout (B-bit elements)``.
        dim_names: display names of the tensor dims in the formula (e.g. ``{"dim0": "m"}``;
            default: the example's, :data:`EXAMPLE_NAMES`).
        example: the name of the built-in example (:mod:`linlayout.examples`) the result was
            synthesized for: sets the default title and dim names, and ``"example"`` in
            :meth:`~SynthesisReport.to_dict`.
        padding: the best padded layout for the same transfer and objective
            (:func:`~linlayout.synthesis.synthesize_padding`), compared with the swizzle
            (:func:`~linlayout.synthesis.choose_padding_or_swizzle`).
        transfer: the transfer ``result`` was synthesized for
            (:class:`~linlayout.synthesis.Transfer`); with it, a result costed under the
            hardware model also says what Triton 3.9 pays for the printed layout
            (:func:`~linlayout.synthesis.lower_sides`).
        target: the compilation target for that (default: the hardware preset's,
            ``cuda:90`` for NVIDIA).
        explain: add the constraint behind each offset bit
            (:func:`~linlayout.synthesis.explain.explain_synthesis`); needs ``transfer``.

    Returns:
        A :class:`SynthesisReport`.

    Raises:
        LayoutError: ``result`` is not a SwizzleResult; ``example`` is not a built-in
            example's name; an unknown ``target``; ``explain`` without ``transfer``.
    """
    instance_of(result, SwizzleResult, "result")
    if explain and transfer is None:
        raise LayoutError("explain=True needs the transfer the result was synthesized for")
    bits = result.element_bits
    if example is not None:
        ex = examples.get(example)
        if title is None:
            title = f"example {example} ({bits}-bit elements): {ex.description}"
        if dim_names is None:
            dim_names = EXAMPLE_NAMES.get(example)
    if title is None:
        title = f"synthesized shared-memory layout ({bits}-bit elements)"
    tma = match_tma_mode(result.layout, bits)
    forms = interop(result.layout, bits, tma=tma is not None)
    lowered = note = tname = None
    if transfer is not None and result.lowering == "hardware":
        t = resolve_target(target, transfer)
        tname = t.name
        try:
            lowered = lower_sides(result.layout, transfer, t)
        except LayoutError as exc:
            note = str(exc)
        if lowered is not None and result.counted and not result.counted[0]:
            lowered = lowered[1:]  # a TMA copy writes the tile: only the loads are lowered
    return SynthesisReport(
        result=result, title=title,
        formula=offset_formula(result.layout, dict(dim_names) if dim_names else None),
        tma=tma, triton=forms["triton"], gluon=forms["gluon"],
        cute=forms["cute"], cute_reason=forms.get("cute_reason"), example=example,
        padding=padding,
        choice=None if padding is None else choose_padding_or_swizzle(result, padding),
        lowered=lowered, target=tname, lowered_note=note,
        explanation=explain_synthesis(result, transfer) if explain and transfer else None)
