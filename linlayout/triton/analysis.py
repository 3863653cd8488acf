"""``linlayout check``'s analysis: for every shared-memory op of a TTGIR module, the
instructions Triton 3.9.0 emits, their exact bank conflicts, and better layouts.

:func:`check_module` predicts each op's lowering with :mod:`linlayout.triton.lowering`
(``ldmatrix``/``stmatrix``, ``ld/st.shared`` at Triton's vector, ``cp.async``, AMD
``ds_read``/``ds_write``/``ds_read_b64_tr_b16``/direct-to-LDS copies, Triton's own scratch
layout for ``convert_layout``, the private scratch of reductions, histograms and scalar
atomics; TMA copies, wgmma/tcgen05 operand reads and tensor-memory ops named without a count)
and counts every lane access exactly with :func:`linlayout.bank_conflicts` on the module's
hardware (``ttg.target``: NVIDIA, AMD CDNA3 for gfx942, CDNA4 for gfx950; ``hardware=``
overrides). A view (``memdesc_subslice``/``memdesc_index``) is analysed inside its
allocation: the offset of a view XORs every address with one constant, which moves no access
between banks.

Better layouts:

* a buffer with an access of degree > 1 gets the cheapest layout Triton can express for all
  of its accesses (:func:`~linlayout.triton.suggest.suggest_layout`), with the instructions
  Triton would then emit;
* a ``convert_layout`` through shared memory is counted as Triton executes it (its scratch
  layout) and :func:`linlayout.synthesize_swizzle`'s layout for the pair is shown beside it
  with the saving in wavefronts and instructions per warp.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace

from ..conflicts import ConflictReport
from ..errors import LayoutError
from ..hardware.model import HardwareModel
from ..layout import LinearLayout
from ..swizzle import synthesize_swizzle
from .count import try_count
from .lowering import Emitted, Prediction, Target, largest_vectorisation, access_map
from .lowering.ops import cached_copy, embed_in_buffer, module_target, predict_module
from .suggest import BufferSide, suggest_layout
from .to_triton import to_triton_text
from .ttgir import Access, TTGIRModule, buffer_root, view_parents

__all__ = ["AccessReport", "InstructionReport", "check_module", "embed_in_buffer",
           "triton_vector_elems"]


@dataclass(frozen=True)
class InstructionReport:
    """One predicted instruction of an op with its exact cost.

    Attributes:
        emitted: the :class:`~linlayout.triton.lowering.Emitted` instruction (opcode, count
            per thread, vector).
        report: its :class:`~linlayout.ConflictReport` (None when not a modelled lane access).
        note: why it is not counted, if it is not.
    """

    emitted: Emitted
    report: ConflictReport | None = None
    note: str = ""

    def to_dict(self, amd: bool) -> dict:
        """``{"side", "ptx"|"isa", "per_thread", "vector_elems", "degree",
        "wavefronts_per_warp"}`` (+ ``instructions_per_warp``, ``note``)."""
        e = self.emitted
        d = {"side": e.side, ("isa" if amd else "ptx"): e.opcode, "per_thread": e.per_thread,
             "vector_elems": e.vector_elems,
             "degree": self.report.degree if self.report else None,
             "wavefronts_per_warp": self.report.wavefronts_per_warp if self.report else None}
        if self.report is not None:
            d["instructions_per_warp"] = self.report.instructions_per_warp
            d["wavefronts_per_instruction"] = self.report.wavefronts_per_instruction
        if self.note:
            d["note"] = self.note
        return d


@dataclass(frozen=True)
class AccessReport:
    """The verdict on one op.

    Attributes:
        access: the :class:`~linlayout.triton.ttgir.Access`.
        degree: the worst conflict degree of its counted instructions (1 = conflict-free), or
            None when nothing is counted (see ``note``).
        vector_elems: elements per lane of its first counted instruction.
        instructions: the predicted :class:`InstructionReport` s, stores first.
        report: the counted instruction's report for a load or store, else None.
        store, load: the two sides of a convert through shared memory, else None.
        suggestion: Triton text of a better shared layout for this buffer, else None.
        suggestion_degree: the worst degree of the buffer's accesses under the suggestion.
        alternative: for converts, ``synthesize_swizzle``'s layout beside Triton's with the
            saving (``{"layout", "wavefronts_per_warp", "instructions_per_warp", "saving":
            {...}}``), else None.
        uses_shared: False for converts that stay in registers/shuffles and tensor-memory ops.
        suggestion_instructions: the instructions Triton would emit for this access under
            the suggestion (the vectorisation it gains or loses), else empty.
        note: how the instructions were decided, why a value is missing, or what the
            suggestion is based on.
    """

    access: Access
    degree: int | None
    vector_elems: int | None
    report: ConflictReport | None = None
    store: ConflictReport | None = None
    load: ConflictReport | None = None
    suggestion: str | None = None
    suggestion_degree: int | None = None
    note: str = ""
    instructions: tuple[InstructionReport, ...] = ()
    alternative: dict | None = None
    uses_shared: bool = True
    target: Target | None = field(default=None, compare=False)
    suggestion_instructions: tuple[Emitted, ...] = ()

    @property
    def reports(self) -> tuple[ConflictReport, ...]:
        """The counted instructions' reports."""
        return tuple(i.report for i in self.instructions if i.report is not None)

    @property
    def wavefronts_per_instruction(self) -> int | None:
        """Wavefronts of one warp-level instruction of a load or store (None for converts and
        ops with several instructions)."""
        return None if self.report is None else self.report.wavefronts_per_instruction

    @property
    def instructions_per_warp(self) -> int | None:
        """Instructions one warp issues for the whole tile (all counted instructions)."""
        reps = self.reports
        return sum(r.instructions_per_warp for r in reps) if reps else None

    @property
    def wavefronts_per_warp(self) -> int | None:
        """Wavefronts one warp pays for the whole tile (all counted instructions)."""
        reps = self.reports
        return sum(r.wavefronts_per_warp for r in reps) if reps else None

    @property
    def wavefront_floor(self) -> int | None:
        """The fewest wavefronts the bytes a warp moves could take."""
        reps = self.reports
        return sum(r.wavefront_floor for r in reps) if reps else None

    def to_dict(self) -> dict:
        """The JSON contract of ``linlayout check --json`` for one op: ``line, source, op,
        kind, result, memdesc, element_type, element_bits, instructions[...], vector_elems,
        degree, wavefronts_per_instruction, instructions_per_warp, wavefronts_per_warp,
        wavefront_floor, suggestion`` (+ ``suggestion_degree``, ``alternative``, ``note``)."""
        a = self.access
        amd = self.target is not None and not self.target.is_nvidia
        out = {
            "line": a.line,
            "source": a.source,
            "op": a.op,
            "kind": a.kind,
            "result": a.result,
            "memdesc": a.memdesc,
            "element_type": a.element_type,
            "element_bits": a.element_bits,
            "uses_shared_memory": self.uses_shared,
            "instructions": [i.to_dict(amd) for i in self.instructions],
            "vector_elems": self.vector_elems,
            "degree": self.degree,
            "wavefronts_per_instruction": self.wavefronts_per_instruction,
            "instructions_per_warp": self.instructions_per_warp,
            "wavefronts_per_warp": self.wavefronts_per_warp,
            "wavefront_floor": self.wavefront_floor,
            "suggestion": self.suggestion,
        }
        if self.suggestion is not None:
            out["suggestion_degree"] = self.suggestion_degree
            key = "isa" if amd else "ptx"
            out["suggestion_instructions"] = [
                {"side": e.side, key: e.opcode, "per_thread": e.per_thread,
                 "vector_elems": e.vector_elems} for e in self.suggestion_instructions]
        if self.alternative is not None:
            out["alternative"] = self.alternative
        if self.note:
            out["note"] = self.note
        return out


def triton_vector_elems(dist: LinearLayout, memory: LinearLayout, element_bits: int) -> int:
    """The ``ld/st.shared`` vector width Triton's generic lowering picks for this access
    (``largestVectorisation``, Triton ``lib/Tools/LayoutUtils.cpp``: the largest ``v ≤ 128 /
    bits`` such that ``log2 v`` registers map exactly to offsets ``1 … v/2`` in any order and
    every other basis to a multiple of ``v``).

    Raises:
        LayoutError: the layouts do not fit together (different out dims, not a bijection).
    """
    return largest_vectorisation(access_map(dist, memory, element_bits))


def _report(a: Access, pred: Prediction, target: Target, hardware: HardwareModel
            ) -> AccessReport:
    instrs = []
    for side in pred.sides:
        rep, why = try_count(side, hardware)
        note = why
        if rep is None and not why and side.emitted.per_thread is not None \
                and side.emitted.side != "none":
            note = "not modelled by the bank counter"
        instrs.append(InstructionReport(side.emitted, rep, note))
    counted = [i for i in instrs if i.report is not None]
    degree = max((i.report.degree for i in counted), default=None)  # type: ignore[union-attr]
    vector = counted[0].emitted.vector_elems if counted else None
    one = counted[0].report if a.kind in ("store", "load") and len(counted) == 1 else None
    st = ld = None
    if a.kind == "convert" and counted:
        st = next((i.report for i in counted if i.emitted.side == "store"), None)
        ld = next((i.report for i in counted if i.emitted.side == "load"), None)
    return AccessReport(a, degree, vector, one, st, ld, note=pred.note,
                        instructions=tuple(instrs), uses_shared=pred.uses_shared, target=target)


def _alternative(a: Access, r: AccessReport, hardware: HardwareModel) -> dict | None:
    """``synthesize_swizzle``'s scratch layout for a convert, beside Triton's."""
    if r.wavefronts_per_warp is None or r.store is None or r.load is None:
        return None
    assert a.distributed is not None and a.destination is not None
    try:
        s = synthesize_swizzle(a.distributed.layout, a.destination.layout,
                               element_bits=max(8, a.element_bits), hardware=hardware)
    except LayoutError:
        return None
    wf = s.store.wavefronts_per_warp + s.load.wavefronts_per_warp
    ins = s.store.instructions_per_warp + s.load.instructions_per_warp
    try:
        text = to_triton_text(s.layout, a.element_bits if a.element_bits in (8, 16, 32, 64)
                              else None)
    except LayoutError:
        text = None
    return {"layout": text, "vector_elems": s.vector_elems,
            "degree": max(s.store.degree, s.load.degree),
            "wavefronts_per_warp": wf, "instructions_per_warp": ins,
            "saving": {"wavefronts_per_warp": r.wavefronts_per_warp - wf,
                       "instructions_per_warp": (r.instructions_per_warp or 0) - ins}}


def check_module(module: TTGIRModule, *, hardware: HardwareModel | None = None,
                 suggest: bool = True) -> list[AccessReport]:
    """Instructions and bank conflicts of every shared-memory op of ``module``.

    Args:
        module: from :func:`~linlayout.triton.ttgir.read_ttgir`.
        hardware: the bank model; default the module's (``ttg.target`` /
            ``ttg.threads-per-warp``: NVIDIA, AMD_CDNA3, AMD_CDNA4).
        suggest: compute better layouts (buffers with conflicts, converts).

    Returns:
        One :class:`AccessReport` per op, in file order. An op that cannot be analysed (a
        layout without a linear form, ``padded_shared``) gets degree None and a note
        starting with ``"not analysed"``; it does not stop the file.

    Raises:
        LayoutError: an unknown ``ttg.target``.
    """
    target = module_target(module)
    hw = hardware or target.hardware()
    reports: list[AccessReport] = []
    groups: dict[str, list[int]] = defaultdict(list)
    sides: dict[int, BufferSide] = {}
    for a, pred in predict_module(module, target):
        if isinstance(pred, LayoutError):
            reports.append(AccessReport(a, None, None, note=f"not analysed: {pred}",
                                        target=target))
            continue
        r = _report(a, pred, target, hw)
        if a.kind == "convert" and suggest and r.degree is not None:
            r = replace(r, alternative=_alternative(a, r, hw))
        if a.kind in ("store", "load") and r.degree is not None:
            assert a.memory is not None and a.distributed is not None
            idx = len(reports)
            async_copy = a.op in ("async_copy_global_to_local", "buffer_load_to_local")
            sides[idx] = BufferSide(a.line, a.kind,
                                    embed_in_buffer(a.distributed.layout, a.memory.layout),
                                    max(8, a.element_bits), async_copy,
                                    (a.max_vector_elems or (1 if a.masked else 0))
                                    if async_copy else None)
            groups[a.root or a.memdesc or f"line{a.line}"].append(idx)
        reports.append(r)
    if suggest:
        _suggest_buffers(module, reports, groups, sides, target, hw)
    return reports


def _under(side: BufferSide, layout: LinearLayout | None, target: Target
           ) -> tuple[Emitted, ...]:
    """The instructions of one access if its buffer had ``layout``."""
    if layout is None:
        return ()
    try:
        p = cached_copy(side.kind, side.dist, layout, side.bits, target, side.async_copy,
                        side.contiguity)
    except LayoutError:
        return ()
    return tuple(s.emitted for s in p.sides)


def _suggest_buffers(module: TTGIRModule, reports: list[AccessReport],
                     groups: dict[str, list[int]], sides: dict[int, BufferSide],
                     target: Target, hw: HardwareModel) -> None:
    parents = view_parents(module)
    ttng = {buffer_root(n, parents) for n in module.ttng_uses}
    for root, members in groups.items():
        worst = max(reports[i].degree or 1 for i in members)
        if worst <= 1:
            continue
        first = reports[members[0]].access
        assert first.memory is not None
        try:
            best = suggest_layout([sides[i] for i in members], first.memory.layout, target, hw,
                                  root in ttng, first.memory.encoding)
        except LayoutError:
            best = None
        for i in members:
            r = reports[i]
            if (r.degree or 1) <= 1:
                continue
            if best is None:
                reports[i] = replace(r, note=f"{r.note}; no shared layout does better for all "
                                             f"accesses of buffer {root}".lstrip("; "))
            elif best.degree >= worst:
                reports[i] = replace(r, note=f"the best layout found ({best.basis}) is not "
                                             f"better: degree {best.degree}")
            else:
                reports[i] = replace(r, suggestion=best.text, suggestion_degree=best.degree,
                                     note=f"suggestion for buffer {root}: {best.basis}",
                                     suggestion_instructions=_under(sides[i], best.layout,
                                                                    target))
